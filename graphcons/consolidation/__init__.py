"""consolidation"""

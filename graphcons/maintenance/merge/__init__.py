"""maintenance/merge"""

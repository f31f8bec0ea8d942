"""Benchmarks of cluster discovery: planted clusters (GDS vs Python), quality on real logs, digit masking."""

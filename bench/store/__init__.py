"""Benchmarks of the store: admission speed, the 1M store, determinism, SIMILAR neighbours, the similarity floor."""

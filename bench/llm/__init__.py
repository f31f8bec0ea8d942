"""Benchmarks of models in the loop and reflection."""

"""Benchmarks of the scheduled jobs: the loop under load, kill -9."""

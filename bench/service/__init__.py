"""Benchmarks of the HTTP API: load, fuzzing, Neo4j outages."""

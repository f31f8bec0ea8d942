"""Layer 0: what every layer needs (configuration, the Neo4j connection, queries, errors, audit, the memory model, time, embedders)."""

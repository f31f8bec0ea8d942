"""Layer 3: the one human-gated review queue for every kind of proposal."""

"""Layer 4: the one human-gated review queue for every kind of proposal (insights, profiles, maintenance)."""

"""Layer 2: keeping the store healthy (merge, weights and decay, promotion, deprecation, health); never imports consolidation."""

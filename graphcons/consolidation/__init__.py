"""Layer 2: from memories to proposed insights (fused graph, communities, value gate, scan, synthesis, grounding, budgets, the consolidate kind, provenance, precompute)."""

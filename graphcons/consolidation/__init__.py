"""Layer 2: from memories to proposed insights, and the beliefs about them.

The insight pipeline: the fused graph and its communities (`fusion`, `communities`, `placement`,
`split`, `closure`), the value gate (`gate`, `figures`, `contrast`), the scan, synthesis (`synthesis/`:
the providers, their typed models and prompts), the grounding guard, budgets, the `consolidate` job and
its proposal kind (`insight`). Beliefs: `epistemics`, `rules`, `provenance`, `precompute`. The
providers, budgets and word checks here serve the profiles wing too (graphcons.profiles, the floor
above); nothing here imports it.
"""

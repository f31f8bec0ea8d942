"""Insight synthesis (seed 000 "Synthesizing the insight"): typed models, the prompt, providers.

    from graphcons.consolidation.synthesis import make_synthesizer
    synth = make_synthesizer(config.llm)      # offline by default, openai when configured

The pipeline around a provider (budgets, grounding, the proposal) is in
graphcons.consolidation.consolidate; the guard itself in graphcons.consolidation.grounding.
"""

from __future__ import annotations

from graphcons.consolidation.synthesis.base import Synthesis, Synthesizer
from graphcons.core.config import LLMConfig


def make_synthesizer(cfg: LLMConfig) -> Synthesizer:
    if cfg.provider == "openai":  # imported on demand: instructor and openai are slow to import
        from graphcons.consolidation.synthesis.openai import OpenAISynthesizer

        return OpenAISynthesizer(cfg)
    # the offline synthesizer with the extractive reflection of issue 14 added
    from graphcons.consolidation.synthesis.offline_reflection import OfflineReflector

    return OfflineReflector()


__all__ = ["Synthesis", "Synthesizer", "make_synthesizer"]

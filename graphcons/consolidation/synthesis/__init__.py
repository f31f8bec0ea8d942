"""Insight synthesis (seed 000 "Synthesizing the insight"): typed models, the prompt, providers.

    from graphcons.consolidation.synthesis import make_synthesizer
    synth = make_synthesizer(config.llm)      # offline by default, openai when configured

The pipeline around a provider (budgets, grounding, the proposal) is in
graphcons.consolidation.consolidate; the guard itself in graphcons.consolidation.grounding. A
provider with a model also reflects (`Synthesizer.reflect`, the reflection prompt and models
here); the offline reflection and the reflection pass are the profiles wing's (graphcons.profiles).
"""

from __future__ import annotations

from graphcons.consolidation.synthesis.base import Synthesis, Synthesizer
from graphcons.core.config import LLMConfig


def make_synthesizer(cfg: LLMConfig) -> Synthesizer:
    """The configured provider. Offline: the extractive insight synthesizer; the reflection pass
    builds its own offline reflector (graphcons.profiles.reflect.make_reflector)."""
    if cfg.provider == "openai":  # imported on demand: instructor and openai are slow to import
        from graphcons.consolidation.synthesis.openai import OpenAISynthesizer

        return OpenAISynthesizer(cfg)
    from graphcons.consolidation.synthesis.offline import OfflineSynthesizer

    return OfflineSynthesizer()


__all__ = ["Synthesis", "Synthesizer", "make_synthesizer"]

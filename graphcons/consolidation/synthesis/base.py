"""The synthesizer interface: a prompt in, typed themes and insight out.

Providers live one per module (`offline.py`, `openai.py`); `make_synthesizer` picks one from
[llm].provider. A provider returns the *raw* typed synthesis; grounding, budgets and the
proposal are the caller's business (graphcons.consolidation.consolidate), so every provider gets
exactly the same checks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from graphcons.consolidation.synthesis.models import Insight, Themes
from graphcons.consolidation.synthesis.prompt import SynthesisPrompt


@dataclass
class Synthesis:
    themes: Themes
    insight: Insight
    provider: str
    model: str
    calls: int  # LLM calls spent (0 for the offline synthesizer)


class Synthesizer(ABC):
    #: Recorded on every proposal.
    provider: str
    model: str
    #: LLM calls one synthesis needs (the provider budget counts them); 0 when offline.
    calls_per_synthesis: int = 0

    @abstractmethod
    def synthesize(self, prompt: SynthesisPrompt) -> Synthesis:
        """Two steps: themes, then the insight. Raises graphcons.errors.ProviderError on failure."""

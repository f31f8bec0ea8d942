"""The synthesizer interface: a prompt in, typed themes and insight out.

Providers live one per module (`offline.py`, `openai.py`); `make_synthesizer` picks one from
[llm].provider. A provider returns the *raw* typed synthesis; grounding, budgets and the
proposal are the caller's business (graphcons.consolidation.consolidate), so every provider gets
exactly the same checks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from graphcons.consolidation.synthesis.models import Insight, Reflection, Themes
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, SynthesisPrompt
from graphcons.core.errors import ProviderError


@dataclass
class Synthesis:
    themes: Themes
    insight: Insight | None  # None: the members share no claim (a group of facts is not an insight)
    provider: str
    model: str
    calls: int  # LLM calls spent (0 for the offline synthesizer)
    no_pattern: str = ""  # why there is no insight; the cluster is settled as "no_pattern" until it changes


@dataclass
class Reflected:
    """A provider's raw reflection on one entity (grounding is the caller's business)."""

    reflection: Reflection
    provider: str
    model: str
    calls: int


class Synthesizer(ABC):
    #: Recorded on every proposal.
    provider: str
    model: str
    #: LLM calls one synthesis needs (the provider budget counts them); 0 when offline.
    calls_per_synthesis: int = 0

    @abstractmethod
    def synthesize(self, prompt: SynthesisPrompt) -> Synthesis:
        """Two steps: themes, then the insight. Raises graphcons.errors.ProviderError on failure."""

    #: LLM calls one reflection needs (issue 14); 0 when offline.
    calls_per_reflection: int = 0

    def reflect(self, prompt: ReflectionPrompt) -> Reflected:
        """Typed preferences, behaviors, facts and a summary of one entity (seed 004)."""
        raise ProviderError(f"the {self.provider} synthesizer does not reflect")

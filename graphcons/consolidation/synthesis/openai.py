"""Any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, a llama.cpp server) via instructor.

The client, its settings and its error mapping live in graphcons.core.llm (shared with the
merge verifier).

Each synthesis makes two calls (themes, then insight), each typed by per-call models whose
cited ids are an enum of the shown ids. Every failure (timeout, HTTP error, connection
error, output that does not parse or validate after the re-asks) becomes one ProviderError;
the caller then stores nothing and leaves the cluster pending.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from graphcons.consolidation.synthesis.base import Reflected, Synthesis, Synthesizer
from graphcons.consolidation.synthesis.models import (
    Insight,
    Reflection,
    Themes,
    call_models,
    reflection_call_model,
    to_stored,
)
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, SynthesisPrompt
from graphcons.core.config import LLMConfig
from graphcons.core.errors import ProviderError
from graphcons.core.llm import LLMClient


class OpenAISynthesizer(Synthesizer):
    provider = "openai"
    calls_per_synthesis = 2
    calls_per_reflection = 1

    def __init__(self, cfg: LLMConfig, env: dict[str, str] | None = None):
        self.llm = LLMClient(cfg, env)
        self.cfg, self.model, self.base_url, self.mode = cfg, self.llm.model, self.llm.base_url, self.llm.mode
        self.client = self.llm.client

    def synthesize(self, prompt: SynthesisPrompt) -> Synthesis:
        themes_model, insight_model = call_models(prompt.member_ids, prompt.context_ids)
        calls = 0
        try:
            calls += 1
            themes = self._call(themes_model, prompt.themes_messages(), "themes")
            calls += 1
            insight = self._call(insight_model, prompt.insight_messages([t.model_dump() for t in themes.themes]),
                                 "insight")
        except ProviderError as exc:
            exc.calls = calls  # type: ignore[attr-defined]
            raise
        return Synthesis(themes=to_stored(themes, Themes), insight=to_stored(insight, Insight),
                         provider=self.provider, model=self.model, calls=calls)

    def reflect(self, prompt: ReflectionPrompt) -> Reflected:
        """One call typed by a Reflection model whose cited ids are an enum of the shown ids."""
        try:
            out = self._call(reflection_call_model(prompt.member_ids), prompt.messages(), "reflection")
        except ProviderError as exc:
            exc.calls = 1  # type: ignore[attr-defined]
            raise
        return Reflected(reflection=to_stored(out, Reflection), provider=self.provider, model=self.model, calls=1)

    def _call(self, response_model: type[BaseModel], messages: list[dict[str, str]], step: str) -> Any:
        return self.llm.call(response_model, messages, step)

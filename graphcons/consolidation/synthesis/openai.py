"""Any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, a llama.cpp server) via instructor.

The client, its settings and its error mapping live in graphcons.core.llm (shared with the
merge verifier).

Each synthesis makes two calls (themes, then insight), each typed by per-call models whose
cited ids are an enum of the shown ids. The model sees prompt-local short ids (M1.., C1..);
every id it cites is mapped back to the real id here (an id it invents stays as written, and
the grounding guard strips it like any id that was not shown). Every failure (timeout, HTTP
error, connection error, output that does not parse or validate after the re-ask) becomes one
ProviderError; the caller then stores nothing and leaves the cluster pending.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from graphcons.consolidation.synthesis.base import Reflected, Synthesis, Synthesizer
from graphcons.consolidation.synthesis.models import (
    Insight,
    Reflection,
    Themes,
    SupportCheck,
    call_models,
    reflection_call_model,
    support_call_model,
)
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, Shown, SynthesisPrompt
from graphcons.core.config import LLMConfig
from graphcons.core.errors import ProviderError
from graphcons.core.llm import LLMClient


def _mapped(data: Any, real_id: Any) -> Any:
    """The model's answer (as plain data) with every cited id (`member_ids`, `memory_ids`) mapped back."""
    if isinstance(data, dict):
        return {k: [real_id(i) for i in v] if k in ("member_ids", "memory_ids") and isinstance(v, list)
                else _mapped(v, real_id) for k, v in data.items()}
    if isinstance(data, list):
        return [_mapped(v, real_id) for v in data]
    return data


class OpenAISynthesizer(Synthesizer):
    provider = "openai"
    calls_per_synthesis = 2
    calls_per_reflection = 1

    def __init__(self, cfg: LLMConfig, env: dict[str, str] | None = None):
        self.llm = LLMClient(cfg, env)
        self.cfg, self.model, self.base_url, self.mode = cfg, self.llm.model, self.llm.base_url, self.llm.mode
        self.client = self.llm.client
        self.check_calls = 0  # support checks (issue 40), counted apart from the reflection's own calls

    def _sized(self, prompt: SynthesisPrompt) -> None:
        # the prompt's memory text is cut to fit this model's context ([llm] context_tokens); the
        # caller's prompt hash, computed after the call, covers what was shown
        prompt.context_tokens = self.cfg.context_tokens

    def synthesize(self, prompt: SynthesisPrompt) -> Synthesis:
        self._sized(prompt)
        themes_model, insight_model = call_models(prompt.shown_member_ids, prompt.shown_context_ids)
        self.calls = 0
        try:
            themes = self._call(themes_model, prompt.themes_messages(), "themes")
            insight = self._call(insight_model, prompt.insight_messages([t.model_dump() for t in themes.themes]),
                                 "insight")
        except ProviderError as exc:
            exc.calls = self.calls  # type: ignore[attr-defined]
            raise
        return Synthesis(themes=Themes.model_validate(_mapped(themes.model_dump(), prompt.real_id)),
                         insight=Insight.model_validate(_mapped(insight.model_dump(), prompt.real_id)),
                         provider=self.provider, model=self.model, calls=self.calls)

    def reflect(self, prompt: ReflectionPrompt) -> Reflected:
        """One call typed by a Reflection model whose cited ids are an enum of the shown ids."""
        self._sized(prompt)
        self.calls = 0
        try:
            out = self._call(reflection_call_model(prompt.shown_member_ids), prompt.messages(), "reflection")
        except ProviderError as exc:
            exc.calls = self.calls  # type: ignore[attr-defined]
            raise
        return Reflected(reflection=Reflection.model_validate(_mapped(out.model_dump(), prompt.real_id)),
                         provider=self.provider, model=self.model, calls=self.calls)

    def check_support(self, statement: str, cited: dict[str, str], subject: str = "",
                      namespace: str = "") -> list[tuple[str, str]]:
        """One call (issue 40): which cited memories say `statement`, quoting their words; the
        grounding guard keeps the statement only when a quote is really in its memory."""
        prompt = ReflectionPrompt(members=[Shown(id=i, title="", content=t) for i, t in cited.items()],
                                  subject=subject, namespace=namespace)
        self._sized(prompt)
        before = self.calls
        try:
            out = self._call(support_call_model(prompt.shown_member_ids), prompt.support_messages(statement),
                             "support_check")
        finally:
            self.check_calls += self.calls - before
            self.calls = before  # a check is not one of the reflection's own calls
        check = SupportCheck.model_validate(out.model_dump())
        return [(prompt.real_id(q.memory_id), q.quote) for q in check.supporting]

    def _call(self, response_model: type[BaseModel], messages: list[dict[str, str]], step: str) -> Any:
        """One typed call; `calls` counts every request it sent (a re-ask is one more; at least one)."""
        try:
            return self.llm.call(response_model, messages, step)
        finally:
            self.calls += max(1, self.llm.attempts)

"""Any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, a llama.cpp server) via instructor.

Settings: base URL and key from [llm] or $OPENAI_BASE_URL / $OPENAI_API_KEY (a local server
needs no key; a placeholder is sent), the model from [llm].model or $GRAPHCONS_LLM_MODEL,
the instructor mode from [llm].instructor_mode (TOOLS works with llama.cpp servers, whose
forced tool call becomes a JSON-schema grammar; JSON_SCHEMA does not), and timeout_s,
max_retries (HTTP retries and instructor re-asks), temperature.

Each synthesis makes two calls (themes, then insight), each typed by per-call models whose
cited ids are an enum of the shown ids. Every failure (timeout, HTTP error, connection
error, output that does not parse or validate after the re-asks) becomes one ProviderError;
the caller then stores nothing and leaves the cluster pending.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

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
from graphcons.core.errors import ConfigError, ProviderError

# instructor logs every failed attempt at ERROR; graphcons reports the failure itself (ProviderError,
# audit record), so without logging configured by the application those lines are not printed.
logging.getLogger("instructor").addHandler(logging.NullHandler())


class OpenAISynthesizer(Synthesizer):
    provider = "openai"
    calls_per_synthesis = 2
    calls_per_reflection = 1

    def __init__(self, cfg: LLMConfig, env: dict[str, str] | None = None):
        import instructor
        import openai

        env = dict(os.environ if env is None else env)
        self.cfg = cfg
        self.model = cfg.model
        self.base_url = cfg.base_url or env.get("OPENAI_BASE_URL") or None
        api_key = cfg.api_key or env.get("OPENAI_API_KEY") or ("not-needed" if self.base_url else None)
        if not api_key:
            raise ConfigError("llm.api_key: not set and no $OPENAI_API_KEY; set one, or point [llm].base_url / "
                              "$OPENAI_BASE_URL at a local OpenAI-compatible server (no key needed)")
        try:
            mode = instructor.Mode[cfg.instructor_mode]
        except KeyError:
            raise ConfigError(f"llm.instructor_mode: unknown mode {cfg.instructor_mode!r}") from None
        self.mode = mode
        self.client = openai.OpenAI(base_url=self.base_url, api_key=api_key, timeout=cfg.timeout_s,
                                    max_retries=cfg.max_retries)
        self.instructor = instructor.from_openai(self.client, mode=mode)

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
        import openai
        from instructor.core.exceptions import InstructorError

        where = f"{step} step, model {self.model!r} at {self.base_url or 'api.openai.com'}"
        try:
            return self.instructor.chat.completions.create(
                model=self.model, response_model=response_model, messages=messages,
                max_retries=self.cfg.max_retries, temperature=self.cfg.temperature,
            )
        except openai.APITimeoutError as exc:
            raise ProviderError(f"LLM timed out after {self.cfg.timeout_s}s ({where})") from exc
        except openai.APIStatusError as exc:
            raise ProviderError(f"LLM answered HTTP {exc.status_code} ({where}): {_short(exc.message)}") from exc
        except openai.APIConnectionError as exc:
            raise ProviderError(f"cannot reach the LLM ({where}): {exc}") from exc
        except openai.OpenAIError as exc:
            raise ProviderError(f"LLM request failed ({where}): {_short(str(exc))}") from exc
        except InstructorError as exc:
            cause = _openai_cause(exc, openai.OpenAIError)
            if isinstance(cause, openai.APITimeoutError):
                raise ProviderError(f"LLM timed out after {self.cfg.timeout_s}s ({where})") from exc
            if isinstance(cause, openai.APIStatusError):
                raise ProviderError(f"LLM answered HTTP {cause.status_code} ({where})") from exc
            if isinstance(cause, openai.OpenAIError):
                raise ProviderError(f"LLM request failed ({where}): {_short(str(cause))}") from exc
            raise ProviderError(f"LLM output was not a valid {step} after {self.cfg.max_retries + 1} attempt(s) "
                                f"({where}): {_short(str(exc))}") from exc
        except (PydanticValidationError, json.JSONDecodeError, ValueError, KeyError, TypeError) as exc:
            raise ProviderError(f"LLM output was not a valid {step} ({where}): {_short(str(exc))}") from exc


def _openai_cause(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first exception of `kind` in the cause chain (instructor wraps the SDK's errors)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, kind):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."

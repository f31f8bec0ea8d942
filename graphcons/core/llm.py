"""One OpenAI-compatible chat client typed by instructor, shared by every caller of [llm].

Settings: base URL and key from [llm] or $OPENAI_BASE_URL / $OPENAI_API_KEY (a local server
needs no key; a placeholder is sent), the model from [llm].model or $GRAPHCONS_LLM_MODEL,
the instructor mode from [llm].instructor_mode (TOOLS works with llama.cpp servers, whose
forced tool call becomes a JSON-schema grammar; JSON_SCHEMA does not), and timeout_s,
max_retries (HTTP retries of one request), reasks (an answer that does not validate is asked
again with the validation error shown to the model: instructor's re-ask), temperature.
With `[llm] debug = true` (or $GRAPHCONS_LLM_DEBUG=1) every raw answer, failed attempts
included, is logged on the `graphcons.llm` logger (a stderr handler is added to that logger
only if it has none; the process's logging configuration is not touched).

Every failure (timeout, HTTP error, connection error, output that does not parse or validate
after the re-asks) becomes one ProviderError naming the step, model and endpoint. Synthesis
(consolidation) and the merge verifier (maintenance) both call through here.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone
from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from graphcons.core.config import LLMConfig
from graphcons.core.errors import ConfigError, ProviderError

# instructor logs every failed attempt at ERROR; graphcons reports the failure itself (ProviderError,
# audit record), so without logging configured by the application those lines are not printed.
logging.getLogger("instructor").addHandler(logging.NullHandler())
log = logging.getLogger("graphcons.llm")
DEBUG_ENV = "GRAPHCONS_LLM_DEBUG"


class LLMClient:
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
        self.debug = cfg.debug or env.get(DEBUG_ENV, "").lower() in ("1", "true", "yes")
        if self.debug and not log.handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
            log.addHandler(handler)
            log.setLevel(logging.DEBUG)
        self.attempts = 0  # requests the last call sent (1 + its re-asks)
        self.raw: list[str] = []  # the raw answers of the last call, in order
        self.instructor.on("completion:response", self._answered)

    def _answered(self, response: Any) -> None:
        self.attempts += 1
        try:
            msg = response.choices[0].message
            calls = msg.tool_calls or []
            raw = calls[0].function.arguments if calls else (msg.content or "")
        except (AttributeError, IndexError):
            raw = repr(response)
        self.raw.append(raw)
        if self.debug:
            log.debug("raw answer %d of model %r: %s", self.attempts, self.model, raw)

    def call(self, response_model: type[BaseModel], messages: list[dict[str, str]], step: str) -> Any:
        """One typed call (re-asked `reasks` times with the validation error when the answer does
        not validate); every failure is a ProviderError. `attempts` and `raw` describe the call."""
        import openai
        from instructor.core.exceptions import InstructorError

        where = f"{step} step, model {self.model!r} at {self.base_url or 'api.openai.com'}"
        self.attempts, self.raw = 0, []
        try:
            out = self.instructor.chat.completions.create(
                model=self.model, response_model=response_model, messages=messages,
                max_retries=self.cfg.reasks, temperature=self.cfg.temperature,  # instructor: re-asks after the first
            )
            if self.debug:
                log.debug("%s (%d attempt(s)): %s", step, self.attempts, out.model_dump_json())
            return out
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
            raise ProviderError(f"LLM output was not a valid {step} after {max(1, self.attempts)} attempt(s) "
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


# -- what every caller that shows memories to a model shares ------------------------------------
def data_fence(*texts: str) -> str:
    """The fence line memory texts are shown between, as data: derived from the texts (the same texts
    give the same prompt) and removed from them (`defused`), so no text can close its own fence."""
    return "@@MEMORY-" + hashlib.sha256("\n".join(texts).encode()).hexdigest()[:12]


def defused(text: str, fence: str) -> str:
    """Memory text with the fence marker removed, so it cannot close its own fence."""
    while fence in text:
        text = text.replace(fence, "")
    return text.replace("@@MEMORY-", "@@memory-")


def verifier_client(cfg: LLMConfig, setting: str, client: "LLMClient | None" = None) -> "LLMClient":
    """The client of an opt-in model verifier (`setting` = "llm"), or the error naming the setting when
    no model is configured."""
    if cfg.provider != "openai" and client is None:
        raise ConfigError(f"{setting}: 'llm' needs an LLM: set [llm] provider = 'openai' (any "
                          "OpenAI-compatible endpoint, [llm] base_url) or choose verifier 'rules'")
    return client or LLMClient(cfg)


@dataclass
class CallBudget:
    """The model calls a pass may still make: `max_calls` this pass ([llm] max_calls_per_run) and
    `daily_cap` a UTC day, of which `used_today` were made before the pass (counted from its audit
    records); 0 = no limit. `calls` counts every attempt, `recorded` the calls this pass audited."""

    max_calls: int
    daily_cap: int
    cap_name: str  # the setting of the daily cap, named when it is reached
    used_today: int = 0
    calls: int = 0
    recorded: int = 0

    @classmethod
    def of_pass(cls, cfg: LLMConfig, daily_cap: int, cap_name: str, *, db: Any = None, now: Any = None,
                count: str = "") -> "CallBudget":
        """A pass's budget; `count` names the statement counting the calls audited in [start, end), read
        for the UTC day of `now` (no database or no `now`: nothing counted yet)."""
        used = 0
        if db is not None and now is not None:
            start = datetime.combine(now.astimezone(timezone.utc).date(), time(0), tzinfo=timezone.utc)
            used = db.run(count, start=start, end=start + timedelta(days=1))[0]["n"]
        return cls(cfg.max_calls_per_run, daily_cap, cap_name, used_today=used)

    def refusal(self) -> str | None:
        """Why no further call may be made now (None: one may)."""
        if self.max_calls and self.calls >= self.max_calls:
            return f"provider budget spent ({self.calls} of {self.max_calls} LLM calls this run, [llm] max_calls_per_run)"
        if self.daily_cap and self.used_today + self.recorded >= self.daily_cap:
            return (f"daily cap reached ({self.used_today + self.recorded} of {self.daily_cap} verifier calls today, "
                    f"{self.cap_name})")
        return None

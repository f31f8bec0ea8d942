"""`graphcons llm check` (issue 31): can the configured model synthesize and reflect?

One tiny synthesis (four incidents) and one tiny reflection (five memories about one user),
sent to the configured `[llm]` endpoint through the production path: the prompt, the typed
per-call models, the OpenAI synthesizer, the grounding guard. Nothing is stored and Neo4j is
not needed. For each step: seconds, whether the typed output parsed, whether its citations
were grounded; then what to change ([llm] instructor_mode, timeout_s, context_tokens, the
server's context, the model) when they were not. Both inputs are easy: each statement to make
is said in so many words by the memories, so a 1.5B instruction model passes them. It checks both
passes (insights and profiles), so it stands beside the facade, above both wings.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from typing import Any

from graphcons.consolidation.grounding import ground
from graphcons.consolidation.synthesis.base import Synthesizer
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, Shown, SynthesisPrompt
from graphcons.core.config import Config
from graphcons.core.errors import ProviderError, Ungrounded
from graphcons.profiles.reflection_grounding import ground_reflection

_T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
INCIDENTS = [
    ("m-1", "Checkout returned HTTP 503 for ten minutes after the 14:00 deploy; the cache was cold."),
    ("m-2", "After Tuesday's deploy checkout answered 503 until the cache warmed up."),
    ("m-3", "Deploy of release 4.2: checkout 503 errors for eight minutes, cold cache again."),
    ("m-4", "Checkout 503s after the Friday deploy stopped once the cache was warm."),
]
USER = "user-kim"
PROFILE = [
    ("k-1", "Kim prefers tea over coffee in the morning."),
    ("k-2", "Kim asked for answers in Spanish."),
    ("k-3", "Kim said she always drinks green tea before a meeting."),
    ("k-4", "Kim runs five kilometres every Sunday morning."),
    ("k-5", "Kim works as a nurse at the city hospital."),
]


def _shown(rows: list[tuple[str, str]], source: str) -> list[Shown]:
    return [Shown(id=i, title="", content=t, kind="observation", source=f"{source}-{n}", sources=(f"{source}-{n}",),
                  created_at=_T0 + timedelta(days=n)) for n, (i, t) in enumerate(rows)]


def _synthesis(synth: Synthesizer) -> dict[str, Any]:
    prompt = SynthesisPrompt(members=_shown(INCIDENTS, "pager"), subject="checkout", namespace="llm-check")
    out = synth.synthesize(prompt)
    g = ground(out.insight, out.themes, prompt.member_ids, {m.id: m.sources for m in prompt.members})
    return {"calls": out.calls, "shown": len(prompt.members), "cited": g.cited, "claims": len(g.insight.claims),
            "title": g.insight.title, "stripped": g.stripped}


def _reflection(synth: Synthesizer) -> dict[str, Any]:
    prompt = ReflectionPrompt(members=_shown(PROFILE, "chat"), subject=USER, namespace="llm-check")
    out = synth.reflect(prompt)
    g = ground_reflection(out.reflection, prompt.member_ids, texts={m.id: m.content for m in prompt.members},
                          subject=USER)
    return {"calls": out.calls, "shown": len(prompt.members), "cited": g.cited,
            "statements": len(g.reflection.statements()), "stripped": g.stripped}


def _advice(cfg: Config, step: dict[str, Any]) -> list[str]:
    llm, error = cfg.llm, step.get("error", "")
    low = error.lower()
    if "timed out" in low:
        return [f"raise [llm] timeout_s (now {llm.timeout_s:g} s): the {step['step']} call did not finish in time; "
                "a local CPU model needs minutes per call (docs/LLM.md)"]
    if "cannot reach" in low:
        return [f"nothing answered at {llm.base_url or 'api.openai.com'}: start the server or fix [llm] base_url"]
    if "http 400" in low and any(w in low for w in ("context", "n_ctx", "too long", "exceed", "tokens")):
        return [f"the prompt did not fit the server's context: start the server with a larger context "
                f"(llama.cpp: --n_ctx 4096) and set [llm] context_tokens to it (now {llm.context_tokens})"]
    if "http 404" in low:
        return [f"the endpoint does not know the model {llm.model!r}: set [llm] model to one it serves"]
    if "http 401" in low or "http 403" in low:
        return ["the endpoint refused the key: set [llm] api_key or $OPENAI_API_KEY"]
    if "not a valid" in low:
        if llm.instructor_mode != "TOOLS":
            return [f"set [llm] instructor_mode = \"TOOLS\" (now {llm.instructor_mode}): llama.cpp, vLLM and Ollama "
                    "turn the forced tool call into a grammar, so the answer always parses"]
        return ["the answer did not fit the schema even with TOOLS: set [llm] debug = true to see the raw answer; "
                "a larger model may be needed"]
    if step.get("parsed") and not step.get("grounded"):
        return ["the model cited none of the memories it was shown: keep instructor_mode TOOLS (the cited ids are "
                "then an enum of the shown ones) and try a larger instruction-tuned model; [llm] debug = true "
                "logs its raw answer"]
    if error:
        return [f"the {step['step']} call failed: {error}"]
    if step.get("seconds", 0) > 0.5 * llm.timeout_s:
        return [f"the {step['step']} call took {step['seconds']:.0f} s, over half of [llm] timeout_s "
                f"({llm.timeout_s:g} s): raise it before a larger prompt times out"]
    return []


def check(cfg: Config, *, synthesizer: Synthesizer | None = None) -> dict[str, Any]:
    """Call the configured endpoint once for a tiny synthesis and once for a tiny reflection."""
    llm = cfg.llm
    report: dict[str, Any] = {"provider": llm.provider, "model": llm.model, "base_url": llm.base_url,
                              "instructor_mode": llm.instructor_mode, "timeout_s": llm.timeout_s,
                              "context_tokens": llm.context_tokens, "steps": [], "advice": []}
    if llm.provider != "openai" and synthesizer is None:
        report.update(ok=False, advice=["[llm] provider is \"offline\": set provider = \"openai\", base_url (a local "
                                        "OpenAI-compatible server needs no key) and model, then check again"])
        return report
    if synthesizer is None:
        from graphcons.consolidation.synthesis.openai import OpenAISynthesizer

        synthesizer = OpenAISynthesizer(llm)
    for name, run in (("synthesis", _synthesis), ("reflection", _reflection)):
        step: dict[str, Any] = {"step": name}
        t0 = time.perf_counter()
        try:
            step.update(run(synthesizer), parsed=True, grounded=True)
        except Ungrounded as exc:
            step.update(parsed=True, grounded=False, error=str(exc))
        except ProviderError as exc:
            step.update(parsed=False, grounded=False, error=str(exc), calls=getattr(exc, "calls", None))
        step["seconds"] = round(time.perf_counter() - t0, 1)
        raw = getattr(getattr(synthesizer, "llm", None), "raw", None)
        if not step["grounded"] and raw:
            step["raw"] = list(raw)  # what the model answered, for the user to read
        report["steps"].append(step)
        report["advice"] += _advice(cfg, step)
    report["ok"] = all(s["parsed"] and s["grounded"] for s in report["steps"])
    return report

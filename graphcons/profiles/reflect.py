"""Per-entity reflection (issue 14, seed 004): what do we know about user-ana?

`reflect` handles one entity (a memory `subject` within a namespace) end to end:

1. the `[reflection] recent` (50) most recent *unconsolidated* memories of the subject
   (status active or proposed, of the reflected kinds, none written by a consolidation);
2. of those, `max_shown` (15) are chosen for *coverage*: greedy facility location over the
   embeddings. Each step adds the memory that most raises sum_c max_s cos+(c, s) over all
   candidates c (cos+ = cosine clipped at 0), i.e. the memory that best represents what the
   chosen ones do not yet cover; the newest memory is taken first, ties go to the newer, then
   the smaller id. Recurring topics (a preference said five times) get a representative
   early, one-off topics still get one once the big ones are covered; the newest-15 would
   miss anything older than the last burst. Deterministic: no randomness, no clock;
3. the synthesizer (`Synthesizer.reflect`: the offline extractive one, or an OpenAI-compatible
   model via instructor) extracts typed preferences, behaviors, facts (each citing shown ids)
   and a summary; the grounding guard strips unshown ids and drops statements citing nothing;
4. the grounded reflection is queued as ONE pending proposal of kind `reflect` in the review
   queue (graphcons.profiles.reflect_kind applies and reverts it); with
   `[reflection] auto_apply = true` it is applied at once, still audited and revertible.

`due` lists entities at their threshold (10 unconsolidated memories for an entity, 50 for the
namespace-wide subjects; consolidated memories no longer count) and `reflect_due` reflects each,
within `[reflection] daily_cap` and `[llm] max_calls_per_run` (spent: the entity stays due).

The model: $GRAPHCONS_REFLECTION_MODEL, then `[reflection.models]` for the namespace, then
`[llm].model` when `[llm].provider = "openai"`, then the offline synthesizer (`resolve_model`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import partial
from datetime import datetime
from typing import Any, Callable

import numpy as np

from graphcons.consolidation.budget import Budget, day_bounds
from graphcons.consolidation.cluster import membership_hash
from graphcons.consolidation.synthesis import Synthesizer, make_synthesizer
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, Shown
from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.embedders import Embedder
from graphcons.core.errors import NotFound, ProviderError, Ungrounded, ValidationError
from graphcons.profiles import profile, reflect_kind
from graphcons.profiles.offline_reflection import OfflineReflector
from graphcons.profiles.reflection_grounding import ground_reflection
from graphcons.store import proposals
from graphcons.store.proposals import Proposal, Review, Status

ENV_MODEL = "GRAPHCONS_REFLECTION_MODEL"
OFFLINE = "offline"
SELECTION = "facility-location"


# -- which model reflects ---------------------------------------------------------------------------
def resolve_model(cfg: Config, namespace: str = "default", env: dict[str, str] | None = None) -> dict[str, str]:
    """{provider, model, source}: $GRAPHCONS_REFLECTION_MODEL, [reflection.models][namespace],
    [llm].model (provider openai), else the offline synthesizer. A model named "offline" is it."""
    env = dict(os.environ if env is None else env)
    for model, source in ((env.get(ENV_MODEL), f"${ENV_MODEL}"),
                          (cfg.reflection.models.get(namespace), f"[reflection.models].{namespace}")):
        if model:
            return {"provider": OFFLINE if model == OFFLINE else "openai", "model": model, "source": source}
    if cfg.llm.provider == "openai":
        return {"provider": "openai", "model": cfg.llm.model, "source": "[llm].model"}
    return {"provider": OFFLINE, "model": OfflineSynthesizer.model, "source": "offline synthesizer (default)"}


def make_reflector(cfg: Config, namespace: str = "default", env: dict[str, str] | None = None) -> Synthesizer:
    chosen = resolve_model(cfg, namespace, env)
    if chosen["provider"] == OFFLINE:
        return OfflineReflector()  # the offline synthesizer, reflecting too (profiles/offline_reflection)
    return make_synthesizer(cfg.llm.model_copy(update={"provider": "openai", "model": chosen["model"]}))


# -- which memories are shown -------------------------------------------------------------------------
def support_checker(synth: Synthesizer, subject: str, namespace: str) -> Callable[[str, dict[str, str]], list] | None:
    """The model's support check of one statement (issue 40), when the reflector has a model."""
    check = getattr(synth, "check_support", None)
    if check is None:
        return None
    return lambda statement, cited: check(statement, cited, subject=subject, namespace=namespace)


def select(rows: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    """Up to k rows (newest first on input) chosen for coverage by greedy facility location."""
    if len(rows) <= k:
        return list(rows)
    vecs = np.asarray([r["embedding"] for r in rows], dtype=np.float64)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.where(norms == 0, 1, norms)
    sim = np.clip(vecs @ vecs.T, 0.0, None)
    chosen = [0]  # the newest memory is always shown: the latest word on the entity
    covered = sim[0].copy()
    for _ in range(k - 1):
        best, best_gain = -1, -1.0
        for i in range(len(rows)):  # input order is newest first: strict '>' keeps the newer on a tie
            if i in chosen:
                continue
            gain = float(np.maximum(sim[i], covered).sum() - covered.sum())
            if gain > best_gain + 1e-12:
                best, best_gain = i, gain
        chosen.append(best)
        covered = np.maximum(covered, sim[best])
    return [rows[i] for i in sorted(chosen)]


def coverage(rows: list[dict[str, Any]], chosen_ids: set[str]) -> float:
    """Mean over the candidates of their best cosine to a chosen memory (1.0: all covered)."""
    vecs = np.asarray([r["embedding"] for r in rows], dtype=np.float64)
    vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    idx = [i for i, r in enumerate(rows) if r["id"] in chosen_ids]
    return float(np.clip(vecs @ vecs[idx].T, 0, None).max(axis=1).mean()) if idx else 0.0


# -- one entity ---------------------------------------------------------------------------------------
@dataclass
class ReflectionResult:
    """Seed 004's response (entity_id, namespace, insights, memories_reviewed,
    new_semantic_memories, profile_updated) plus what graphcons adds to it."""

    entity_id: str
    namespace: str
    status: str  # proposed | applied | unchanged | nothing_new | pending | failed | ungrounded
    reason: str = ""
    proposal_id: str | None = None
    memories_reviewed: int = 0
    unconsolidated: int = 0  # the subject's unconsolidated memories before this reflection
    insights: list[str] = field(default_factory=list)
    reflection: dict[str, Any] = field(default_factory=dict)  # the grounded typed output
    new_semantic_memories: int = 0
    confirmed: int = 0
    profile_updated: bool = False
    profile_version: int | None = None
    grounding: dict[str, Any] = field(default_factory=dict)
    selection: dict[str, Any] = field(default_factory=dict)
    provider: str | None = None
    model: str | None = None
    calls: int = 0
    profile: dict[str, Any] | None = None  # the entity's stored profile after this call (None: none yet)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def resolve_namespace(db: Database, subject: Any, namespace: Any) -> str:
    """The namespace given, or the only one the subject has memories in."""
    if not isinstance(subject, str) or not subject.strip():
        raise ValidationError("subject", "must be a non-empty string")
    if namespace is not None:
        if not isinstance(namespace, str) or not namespace.strip():
            raise ValidationError("namespace", "must be a non-empty string")
        return namespace
    found = [r["namespace"] for r in db.run("reflection/namespaces", subject=subject)]
    if not found:
        raise NotFound(f"no memory has subject {subject!r} in any namespace; nothing to reflect on")
    if len(found) > 1:
        raise ValidationError("namespace", f"subject {subject!r} has memories in {', '.join(found)}; name one")
    return found[0]


def proposal_id(namespace: str, subject: str, mhash: str) -> str:
    return proposals.digest_id("r-", reflect_kind.KIND, namespace, subject, mhash)


def used_today(db: Database, now: datetime) -> int:
    start, end = day_bounds(now)
    return db.run("reflection/daily_count", start=start, end=end)[0]["n"]


def budget_for_run(db: Database, cfg: Config, now: datetime) -> Budget:
    """The synthesis budget, counted for reflection: its own daily cap, the same provider budget."""
    return Budget(daily_cap=cfg.reflection.daily_cap, used_today=used_today(db, now), max_calls=cfg.llm.max_calls_per_run,
                  namespace_cap=cfg.reflection.namespace_daily_cap)


def used_today_in(db: Database, now: datetime, namespace: str) -> int:
    """Reflections attempted today in one namespace, for [reflection] namespace_daily_cap."""
    start, end = day_bounds(now)
    return db.run("reflection/daily_count_namespace", start=start, end=end, prefix=profile.key(namespace, ""))[0]["n"]


def _insights(refl: dict[str, Any]) -> list[str]:
    return [s["statement"] for c in ("preferences", "behaviors", "facts") for s in refl.get(c, [])]


def _from_proposal(res: ReflectionResult, p: Proposal[reflect_kind.ReflectionPayload]) -> ReflectionResult:
    refl = p.payload.reflection or {}
    res.proposal_id, res.reflection, res.insights = p.id, refl, _insights(refl)
    res.grounding, res.provider, res.model = dict(p.grounding or {}), p.provider, p.model
    res.profile_updated = p.status == Status.APPLIED
    res.profile_version = p.profile_version
    res.new_semantic_memories = len(p.created_ids or ())
    res.confirmed = len(p.confirmed_ids or ())
    return res


def reflect(db: Database, cfg: Config, embedder: Embedder | None, subject: str, *, namespace: str | None = None,
            now: datetime, synthesizer: Synthesizer | None = None, budget: Budget | None = None,
            run_id: str | None = None, auto_apply: bool | None = None) -> ReflectionResult:
    """Reflect on one entity now, whatever its threshold (see the module docstring); with no
    namespace, the one the subject lives in. The result carries the entity's stored profile."""
    namespace = resolve_namespace(db, subject, namespace)
    res = _reflect(db, cfg, embedder, subject, namespace, now=now, synthesizer=synthesizer, budget=budget,
                   run_id=run_id, auto_apply=auto_apply)
    stored = profile.current(db, namespace, subject)
    res.profile = stored if stored["version"] else None
    return res


def _reflect(db: Database, cfg: Config, embedder: Embedder | None, subject: str, namespace: str, *, now: datetime,
             synthesizer: Synthesizer | None, budget: Budget | None, run_id: str | None,
             auto_apply: bool | None) -> ReflectionResult:
    rc = cfg.reflection
    res, shown_rows = _shown(db, cfg, subject, namespace)
    if not shown_rows:
        return res
    run_id = run_id or audit.new_run_id("reflect")
    versions = {r["id"]: int(r["version"] or 1) for r in shown_rows}
    mhash = membership_hash(versions)
    pid = proposal_id(namespace, subject, mhash)
    existing = db.run("proposals/get", id=pid)
    if existing:  # the same memories at the same versions: no second model call, the proposal stands
        res.status, res.reason = "unchanged", f"these memories were already reflected on (proposal {pid})"
        payloads = {reflect_kind.KIND: reflect_kind.ReflectionPayload}
        return _from_proposal(res, Proposal.decode(existing[0]["proposal"], payloads))
    synth = synthesizer or make_reflector(cfg, namespace)
    res.provider, res.model = synth.provider, synth.model
    budget = budget or budget_for_run(db, cfg, now)
    base = {"subject": subject, "namespace": namespace, "membership_hash": mhash, "provider": synth.provider,
            "model": synth.model, "memories": len(versions)}
    # reflection has its own cap ([reflection] daily_cap), counted from its audit records
    refusal = (budget.refusal(synth.calls_per_reflection)
               or budget.cap_refusal("reflections", "[reflection] daily_cap", namespace=namespace,
                                     used_in_namespace=used_today_in(db, now, namespace)))
    if refusal:
        audit.record(db, "reflect_deferred", [profile.key(namespace, subject)], run_id=run_id, at=now,
                     reason=refusal, **base, **budget.figures())
        res.status, res.reason = "pending", refusal
        return res
    budget.start()
    ordered = sorted(shown_rows, key=lambda r: (r["created_at"], r["id"]))  # oldest first reads as a story
    prompt = ReflectionPrompt(members=[Shown.from_row(r) for r in ordered], subject=subject, namespace=namespace)
    record = partial(audit.record, db, "reflect", [profile.key(namespace, subject)], run_id=run_id, at=now, **base)
    grounded, result = _grounded(synth, prompt, res, budget, rc.max_statements, record)
    if grounded is None:
        return res
    _propose(db, cfg, embedder, res, grounded, result, prompt, versions, pid=pid, run_id=run_id, now=now, base=base,
             auto_apply=rc.auto_apply if auto_apply is None else auto_apply)
    return res


def _shown(db: Database, cfg: Config, subject: str, namespace: str) -> tuple[ReflectionResult, list[dict[str, Any]]]:
    """The entity's result so far and the memories a reflection would be shown (none: nothing new)."""
    rc = cfg.reflection
    counts = db.run("reflection/subject", namespace=namespace, subject=subject, kinds=rc.kinds)[0]
    if counts["total"] == 0:
        raise NotFound(f"no memory has subject {subject!r} in namespace {namespace!r}; nothing to reflect on")
    res = ReflectionResult(entity_id=subject, namespace=namespace, status="nothing_new",
                           unconsolidated=counts["unconsolidated"])
    rows = db.run("reflection/candidates", namespace=namespace, subject=subject, kinds=rc.kinds, recent=rc.recent)
    if not rows:
        res.reason = "every memory of this subject is already consolidated: nothing new to reflect on"
        return res, []
    shown_rows = select(rows, rc.max_shown)
    res.memories_reviewed = len(shown_rows)
    res.selection = {"method": SELECTION if len(rows) > rc.max_shown else "all", "candidates": len(rows),
                     "shown": len(shown_rows), "coverage": round(coverage(rows, {r["id"] for r in shown_rows}), 4)}
    return res, shown_rows


def _grounded(synth: Any, prompt: ReflectionPrompt, res: ReflectionResult, budget: Budget, max_statements: int,
              record: Callable[..., Any]) -> tuple[Any, Any]:
    """The model's reflection, grounded in what it was shown, each call spent from the budget; (None,
    None) with the result failed or ungrounded (audited) when there is nothing to propose."""
    try:
        result = synth.reflect(prompt)
    except ProviderError as exc:
        res.calls = getattr(exc, "calls", synth.calls_per_reflection)
        budget.spend(res.calls)
        record(outcome="provider_error", error=str(exc), calls=res.calls)
        res.status, res.reason = "failed", str(exc)
        return None, None
    res.calls = result.calls
    budget.spend(result.calls)
    if hasattr(synth, "check_calls"):
        synth.check_calls = 0
    texts = {m.id: m.text for m in prompt.members}
    try:
        grounded = ground_reflection(result.reflection, prompt.member_ids, max_statements=max_statements, texts=texts,
                                     subject=prompt.subject, speakers={m.id: m.speaker for m in prompt.members},
                                     check=support_checker(synth, prompt.subject, prompt.namespace))
    except Ungrounded as exc:
        checks = getattr(synth, "check_calls", 0)
        res.calls += checks
        budget.spend(checks)
        record(outcome="rejected_ungrounded", error=str(exc), stripped=exc.stripped, calls=res.calls)
        res.status, res.reason, res.grounding = "ungrounded", str(exc), {"stripped": exc.stripped}
        return None, None
    res.calls += grounded.check_calls
    budget.spend(grounded.check_calls)
    return grounded, result


def _propose(db: Database, cfg: Config, embedder: Embedder | None, res: ReflectionResult, grounded: Any, result: Any,
             prompt: ReflectionPrompt, versions: dict[str, int], *, pid: str, run_id: str, now: datetime,
             base: dict[str, Any], auto_apply: bool) -> None:
    """The grounded reflection as one `reflect` proposal (audited in its transaction), applied at once
    with auto_apply."""
    namespace, subject = prompt.namespace, prompt.subject
    refl = grounded.reflection.model_dump()
    n = len(grounded.reflection.statements())
    props = {
        "id": pid, "kind": reflect_kind.KIND, "created_at": now, "run_id": run_id, "namespace": namespace,
        "subject": subject, "title": f"Reflection on {subject}: {n} statement(s) from {len(versions)} memories",
        "member_ids": sorted(versions), "member_versions": json.dumps(versions, sort_keys=True),
        "membership_hash": base["membership_hash"], "cited": grounded.cited, "provider": result.provider,
        "model": result.model, "prompt_hash": prompt.prompt_hash(result.model),
        "grounding": json.dumps(grounded.report(), sort_keys=True),
        "payload": json.dumps({"reflection": refl, "selection": res.selection}, sort_keys=True),
        "epistemic_status": "hypothesis",
    }

    def propose(tx: Tx) -> Any:
        created = proposals.create(tx, props, [{"id": m, "version": v} for m, v in sorted(versions.items())])
        audit.record(tx, "reflect", [profile.key(namespace, subject), pid], run_id=run_id, at=now,
                     outcome="proposed", proposal_id=pid, created=bool(created), cited=grounded.cited,
                     stripped=grounded.stripped, statements=n, prompt_hash=props["prompt_hash"],
                     calls=res.calls, selection=res.selection, **base)
        return created

    created = db.write(propose)
    res.status = "proposed"
    res.reason = "" if created else "proposal already queued"
    res.proposal_id, res.reflection, res.insights = pid, refl, _insights(refl)
    res.grounding = grounded.report()
    if auto_apply:
        if embedder is None:
            raise ValidationError("embedder", "auto_apply needs the embedder to store the semantic memories")
        payloads = {reflect_kind.KIND: reflect_kind.ReflectionPayload}
        decision = reflect_kind.approve(proposals.get(db, pid, payloads),
                                        Review(db=db, cfg=cfg, embedder=lambda: embedder, by="auto_apply", now=now))
        res.status = "applied"
        res.profile_updated, res.profile_version = decision.changed, decision.profile_version
        res.new_semantic_memories, res.confirmed = len(decision.created), len(decision.confirmed)


# -- every due entity (the weekly `reflect` job) ---------------------------------------------------------
def due(db: Database, cfg: Config, *, namespace: str | None = None) -> list[dict[str, Any]]:
    """Entities at or above their threshold, by namespace then subject."""
    rc = cfg.reflection
    return db.run("reflection/due", namespace=namespace, kinds=rc.kinds, entity_threshold=rc.entity_threshold,
                  namespace_threshold=rc.namespace_threshold, namespace_subjects=rc.namespace_subjects)


@dataclass
class DueReport:
    run_id: str
    enabled: bool
    dry_run: bool
    due: list[dict[str, Any]] = field(default_factory=list)
    results: list[ReflectionResult] = field(default_factory=list)
    budget: dict[str, Any] = field(default_factory=dict)
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for r in self.results:
            counts[r.status] = counts.get(r.status, 0) + 1
        return {"run_id": self.run_id, "enabled": self.enabled, "dry_run": self.dry_run, "message": self.message,
                "due": self.due, "budget": self.budget, "counts": counts,
                "results": [r.to_dict() for r in self.results]}


def reflect_due(db: Database, cfg: Config, embedder: Embedder | None, *, now: datetime,
                synthesizer: Synthesizer | None = None, namespace: str | None = None, dry_run: bool = False,
                progress: Callable[[int, int, ReflectionResult | None], None] | None = None,
                run_id: str | None = None, per_namespace: tuple[int, int] | None = None) -> DueReport:
    """Reflect on every due entity within the budgets (the scheduled job; off unless [reflection] enabled).

    `per_namespace` = (max reflections, max LLM calls) for each namespace in this run (0 = no
    limit; the job passes `[jobs.reflect] max_items, llm_budget`): one busy namespace cannot
    spend the run's budget before the others get a turn. The daily cap stays store-wide."""
    run_id = run_id or audit.new_run_id("reflect_due")
    report = DueReport(run_id=run_id, enabled=cfg.reflection.enabled, dry_run=dry_run)
    report.due = due(db, cfg, namespace=namespace)
    if not cfg.reflection.enabled or dry_run:
        report.message = ("dry run: the due entities are listed, nothing reflected" if cfg.reflection.enabled else
                          f"the scheduled reflection is disabled ([reflection] enabled = false): {len(report.due)} "
                          "entity(ies) due; set enabled = true under [reflection] in graphcons.toml or "
                          "GRAPHCONS__REFLECTION__ENABLED=true; `graphcons reflect --subject S` reflects on one "
                          "entity on demand")
        audit.record(db, "reflect_due", [], run_id=run_id, at=now, enabled=cfg.reflection.enabled, dry_run=dry_run,
                     due=len(report.due))
        return report
    budget = budget_for_run(db, cfg, now)
    budgets: dict[str, Budget] = {}
    synths: dict[str, Synthesizer] = {}
    if progress:
        progress(0, len(report.due), None)
    for i, d in enumerate(report.due, 1):
        synth = synthesizer or synths.setdefault(d["namespace"], make_reflector(cfg, d["namespace"]))
        spend = budget
        if per_namespace is not None:
            if d["namespace"] not in budgets:  # due rows come grouped by namespace: the day's count so far
                started = sum(b.started for b in budgets.values())
                budgets[d["namespace"]] = Budget(
                    daily_cap=budget.daily_cap, used_today=budget.used_today + started,
                    max_calls=per_namespace[1] or budget.max_calls, max_syntheses=per_namespace[0],
                    limit_key="[jobs.reflect] max_items (per namespace)")
            spend = budgets[d["namespace"]]
        res = reflect(db, cfg, embedder, d["subject"], namespace=d["namespace"], now=now, synthesizer=synth,
                      budget=spend, run_id=run_id)
        report.results.append(res)
        if progress:
            progress(i, len(report.due), res)
    if per_namespace is None:
        report.budget = budget.figures()
    else:
        report.budget = {"daily_cap": budget.daily_cap, "used_today_before_run": budget.used_today,
                         "started": sum(b.started for b in budgets.values()),
                         "llm_calls": sum(b.calls for b in budgets.values()),
                         "per_namespace": {ns: b.figures() for ns, b in budgets.items()}}
    audit.record(db, "reflect_due", [profile.key(d["namespace"], d["subject"]) for d in report.due], run_id=run_id,
                 at=now, enabled=True, dry_run=False, due=len(report.due), counts=report.to_dict()["counts"],
                 budget=report.budget)
    audit.record_run(db, "reflect", run_id, now, {"due": len(report.due), **report.to_dict()["counts"]})
    return report

"""The consolidate job: scan -> gate -> synthesis -> grounding -> proposal (seed 000).

`synthesize_cluster` handles one cluster end to end and stores at most one pending
proposal; `consolidate` runs a scan (graphcons.scan, which clusters and gates) and
synthesizes its accepted clusters within the budgets, respecting [consolidation] enabled
and dry_run. Data flows one way; nothing here applies a proposal.

Every outcome of a cluster is recorded on its (:SynthesisTask {cluster_key}) and audited:
proposed, unchanged (same membership hash as a settled outcome: not synthesized again),
pending (a budget was spent; a later run picks it up), failed (provider error: nothing
stored, still pending), ungrounded (cites no member: rejected, nothing stored).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Callable

from graphcons.consolidation import closure, insight
from graphcons.consolidation.budget import Budget, needs_synthesis, settle
from graphcons.consolidation.cluster import Cluster, membership_hash
from graphcons.consolidation.gate import GateDecision
from graphcons.consolidation.grounding import Grounded, ground, stating, subject_words
from graphcons.consolidation.precompute import precompute
from graphcons.consolidation.scan import scan
from graphcons.consolidation.synthesis import Synthesis, Synthesizer, make_synthesizer
from graphcons.consolidation.synthesis.prompt import Shown, SynthesisPrompt
from graphcons.core import audit
from graphcons.core.config import Config, RedactionConfig
from graphcons.core.db import Database, Rows, Tx
from graphcons.core.errors import (
    Conflict,
    NotFound,
    ProviderError,
    Ungrounded,
    ValidationError,
)
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import utcnow
from graphcons.core.vectors import cosine_matrix
from graphcons.store import evidence, linker, proposals
from graphcons.store.proposals import Proposal, Status

CONFLICT_KINDS = ["contradicts", "conflicts_with", "conflicts", "exception", "exception_to", "refutes", "disputes"]
MAX_CONTEXT = 10


@dataclass
class Outcome:
    """What synthesis did for one cluster."""

    cluster_key: str
    status: str  # proposed | unchanged | pending | failed | ungrounded | no_pattern | skipped | would_synthesize
    reason: str = ""
    proposal_id: str | None = None
    membership_hash: str | None = None
    grounding: dict[str, Any] = field(default_factory=dict)
    calls: int = 0
    title: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ConsolidateReport:
    run_id: str
    enabled: bool
    dry_run: bool
    scan: dict[str, Any] | None = None
    outcomes: list[Outcome] = field(default_factory=list)
    budget: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    pending: str = ""  # how many clusters a budget left pending, why, and when they run
    precomputed: int = 0  # insights whose sleep-time inferences were (re)computed in this run

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "enabled": self.enabled, "dry_run": self.dry_run, "message": self.message, "pending": self.pending,
                "precomputed": self.precomputed,
                "scan": self.scan, "budget": self.budget, "outcomes": [o.to_dict() for o in self.outcomes],
                "counts": {s: self.count(s) for s in sorted({o.status for o in self.outcomes})}}


def load_prompt(db: Database, cluster: Cluster,
                redaction: RedactionConfig | None = None) -> tuple[SynthesisPrompt, dict[str, int]]:
    rows = db.run("synthesis/members", ids=list(cluster.member_ids))
    missing = [r["id"] for r in rows if not r["found"]]
    if missing:
        raise NotFound(f"cluster {cluster.key}: member(s) {', '.join(missing)} do not exist")
    ctx_rows = db.run("synthesis/context", ids=list(cluster.member_ids), kinds=CONFLICT_KINDS, limit=MAX_CONTEXT)
    # a derived member (a statement, an insight) shows, and counts, only its premises' sources
    srcs = evidence.sources(db, [r["id"] for r in rows + ctx_rows])
    members = [Shown.from_row({**r, "sources": srcs.get(r["id"])}) for r in rows]
    ctx = [Shown.from_row({**r, "sources": srcs.get(r["id"])}) for r in ctx_rows]
    subjects = sorted({r["subject"] for r in rows})
    subject = cluster.subject or (subjects[0] if len(subjects) == 1 else None)
    versions = {r["id"]: int(r["version"]) for r in rows}
    ids = [r["id"] for r in rows]  # in id order, as the triangle is computed
    cos = cosine_matrix(db.run("synthesis/pair_cosines", Rows.VALUES, ids=ids)[0]["sims"]) if len(ids) > 1 else None
    cosines = {(a, b): round(float(cos[i, j]), 4) for i, a in enumerate(ids) for j, b in enumerate(ids) if i < j} \
        if cos is not None else {}
    return SynthesisPrompt(members=members, context=ctx, subject=subject, namespace=cluster.namespace,
                           redaction=redaction, cosines=cosines), versions


def _task(db: Database, key: str) -> dict[str, Any] | None:
    rows = db.run("synthesis/task_get", keys=[key])
    return rows[0]["task"] if rows else None


def _set_task(runner: Any, cluster: Cluster, status: str, reason: str, now: datetime, run_id: str,
              mhash: str | None, proposal_id: str | None = None, attempt: int = 0) -> None:
    runner.run("synthesis/task_set", key=cluster.key, status=status, reason=reason, now=now, run_id=run_id,
               membership_hash=mhash, member_ids=list(cluster.member_ids), namespace=cluster.namespace,
               subject=cluster.subject, proposal_id=proposal_id, attempt=attempt)


def _settled(db: Database, cluster: Cluster, status: str, reason: str, now: datetime, run_id: str, mhash: str,
             outcome: str, **details: Any) -> None:
    """A synthesis that proposed nothing: its task and budget reservation settled as `status`, audited."""
    def work(tx: Tx) -> None:
        _set_task(tx, cluster, status, reason, now, run_id, mhash, attempt=1)
        settle(tx, now, cluster.key, mhash, status)
        audit.record(tx, "synthesize", [cluster.key], run_id=run_id, at=now, outcome=outcome, **details)

    db.write(work)


def synthesize_cluster(db: Database, cfg: Config, cluster: Cluster, *, synthesizer: Synthesizer | None = None,
                       budget: Budget | None = None, figures: dict[str, Any] | None = None,
                       run_id: str | None = None, now: datetime | None = None, force: bool = False) -> Outcome:
    """Synthesize one cluster into at most one pending proposal (never applies anything)."""
    if cluster.size < 2:
        raise ValidationError("cluster", "needs at least two members")
    now = now or utcnow()
    run_id = run_id or audit.new_run_id("synthesize")
    synth = synthesizer or make_synthesizer(cfg.llm)
    budget = budget or Budget.for_run(db, cfg, now)
    prompt, versions = load_prompt(db, cluster, cfg.redaction)
    mhash = membership_hash(versions)
    task = _task(db, cluster.key)
    if not force and not needs_synthesis(task, mhash):
        return Outcome(cluster.key, "unchanged", f"already {task['status']} at this membership", task.get("proposal_id"),
                       mhash)
    refusal = budget.refusal(synth.calls_per_synthesis) or budget.reserve(db, now, cluster.key, mhash, run_id, cluster.namespace)
    if refusal:
        return _deferred(db, cluster, budget, refusal, now, run_id, mhash)
    budget.start()
    base = {"cluster_key": cluster.key, "membership_hash": mhash, "provider": synth.provider, "model": synth.model,
            "members": len(versions), "redactions": dict(sorted(prompt.redactions.items()))}
    try:
        result = synth.synthesize(prompt)
    except ProviderError as exc:
        calls = getattr(exc, "calls", synth.calls_per_synthesis)
        budget.spend(calls)
        _settled(db, cluster, "failed", str(exc), now, run_id, mhash, "provider_error", error=str(exc), calls=calls,
                 **base)
        return Outcome(cluster.key, "failed", str(exc), None, mhash, calls=calls)
    budget.spend(result.calls)
    if result.insight is None:  # unrelated facts: nothing proposed, not re-tried until the membership changes
        _settled(db, cluster, "no_pattern", result.no_pattern, now, run_id, mhash, "no_pattern",
                 reason=result.no_pattern, calls=result.calls, **base)
        return Outcome(cluster.key, "no_pattern", result.no_pattern, None, mhash, calls=result.calls)
    return _grounded_proposal(db, cluster, prompt, versions, result, figures, now, run_id, mhash, base)


def _deferred(db: Database, cluster: Cluster, budget: Budget, refusal: str, now: datetime, run_id: str,
              mhash: str) -> Outcome:
    """A budget refused the call: the task stays pending for a later run to pick up, audited with the budget's figures."""
    def deferred(tx: Tx) -> None:
        _set_task(tx, cluster, "pending", refusal, now, run_id, mhash)
        audit.record(tx, "synthesis_deferred", [cluster.key], run_id=run_id, at=now, reason=refusal,
                     membership_hash=mhash, **budget.figures())

    db.write(deferred)
    return Outcome(cluster.key, "pending", refusal, None, mhash)


def _grounded_proposal(db: Database, cluster: Cluster, prompt: SynthesisPrompt, versions: dict[str, int],
                       result: Synthesis, figures: dict[str, Any] | None, now: datetime, run_id: str, mhash: str,
                       base: dict[str, Any]) -> Outcome:
    """The provider's insight grounded in the members it cites and stored as one pending proposal; an
    insight that cites no member is rejected (nothing stored)."""
    sources, texts = {m.id: m.sources for m in prompt.members}, {m.id: m.text for m in prompt.members}
    try:
        grounded = ground(result.insight, result.themes, prompt.member_ids, sources, prompt.context_ids,
                          texts=texts, subject=cluster.subject or "")
    except Ungrounded as exc:
        _settled(db, cluster, "ungrounded", str(exc), now, run_id, mhash, "rejected_ungrounded", error=str(exc),
                 stripped=exc.stripped, stripped_count=len(exc.stripped), calls=result.calls, **base)
        return Outcome(cluster.key, "ungrounded", str(exc), None, mhash, {"stripped": exc.stripped}, result.calls)
    grounded.insight = grounded.insight.dated({m.id: m.created_at for m in prompt.members},  # facts in time order
                                              texts, partial(stating, ignore=subject_words(prompt.subject or "")))
    report = grounded.report()
    report["sources"] = sorted({s for mid in grounded.cited for s in sources[mid]})
    pid = insight.proposal_id(cluster.key, mhash)
    props = _proposal_props(cluster, prompt, versions, result, grounded, report, figures, pid, now, run_id, mhash)

    def propose(tx: Tx) -> Any:
        created = proposals.create(tx, props, [{"id": m, "version": v} for m, v in sorted(versions.items())])
        _set_task(tx, cluster, "proposed", "", now, run_id, mhash, proposal_id=pid, attempt=1)
        settle(tx, now, cluster.key, mhash, "proposed")
        audit.record(tx, "synthesize", [cluster.key, pid], run_id=run_id, at=now, outcome="proposed",
                     proposal_id=pid, created=bool(created), cited=grounded.cited,
                     stripped=grounded.stripped, stripped_count=grounded.stripped_count,
                     prompt_hash=props["prompt_hash"], calls=result.calls, **base)
        return created

    created = db.write(propose)
    return Outcome(cluster.key, "proposed", "" if created else "proposal already queued", pid, mhash, report,
                   result.calls, grounded.insight.title)


def _proposal_props(cluster: Cluster, prompt: SynthesisPrompt, versions: dict[str, int], result: Synthesis,
                    grounded: Grounded, report: dict[str, Any], figures: dict[str, Any] | None, pid: str,
                    now: datetime, run_id: str, mhash: str) -> dict[str, Any]:
    """The insight proposal's properties: the membership it was drawn from (ids and versions), how it
    was produced and grounded, and its payload."""
    return {
        "id": pid, "kind": insight.KIND, "created_at": now, "run_id": run_id,
        "cluster_key": cluster.key, "namespace": cluster.namespace, "subject": prompt.subject,
        "member_ids": list(cluster.member_ids), "member_versions": json.dumps(versions, sort_keys=True),
        "membership_hash": mhash, "cited": grounded.cited, "title": grounded.insight.title,
        "provider": result.provider, "model": result.model, "prompt_hash": prompt.prompt_hash(result.model),
        "grounding": json.dumps(report, sort_keys=True), "epistemic_status": "hypothesis",
        "payload": insight.InsightPayload(
            insight=grounded.insight.model_dump(mode="json"), themes=grounded.themes.model_dump(mode="json"),
            gate_figures=json.loads(json.dumps(figures or cluster.figures or {}, default=str)),
            context_ids=list(prompt.context_ids), confidence=grounded.insight.confidence).stored(),
    }


def synthesize_accepted(db: Database, cfg: Config, decisions: list[GateDecision], *, now: datetime,
                        synthesizer: Synthesizer | None = None, dry_run: bool = False, run_id: str | None = None,
                        progress: Callable[[int, int, Outcome | None], None] | None = None,
                        budget: Budget | None = None) -> tuple[list[Outcome], Budget]:
    """Synthesize accepted clusters into pending proposals within the budgets: clusters a previous
    run left pending first, then by key (deterministic). A dry run only says what it would do."""
    run_id = run_id or audit.new_run_id("synthesize")
    tasks = {r["task"]["cluster_key"]: r["task"] for r in db.run("synthesis/task_get", keys=[d.key for d in decisions])}
    ordered = sorted(decisions, key=lambda d: (tasks.get(d.key, {}).get("status") not in ("pending", "failed"), d.key))
    synth = synthesizer or (None if dry_run else make_synthesizer(cfg.llm))
    budget = budget or Budget.for_run(db, cfg, now)
    outcomes: list[Outcome] = []
    if progress:
        progress(0, len(ordered), None)
    for i, d in enumerate(ordered, 1):
        cluster = Cluster(member_ids=d.cluster.member_ids, namespace=d.cluster.namespace, subject=d.cluster.subject,
                          figures=d.figures)
        if dry_run:
            status = ("would_synthesize" if d.membership_hash is None or needs_synthesis(tasks.get(d.key), d.membership_hash)
                      else "unchanged")
            out = Outcome(d.key, status, "dry run: nothing synthesized", None, d.membership_hash)
        else:
            try:
                out = synthesize_cluster(db, cfg, cluster, synthesizer=synth, budget=budget, figures=d.figures,
                                         run_id=run_id, now=now)
            except NotFound as exc:  # a member vanished between scan and synthesis
                out = Outcome(d.key, "skipped", str(exc))
            if out.proposal_id and out.title is None:  # unchanged: name the proposal it already has
                p = proposals.get(db, out.proposal_id)
                out.title, out.reason = p.title, out.reason or f"proposal {p.status}"
        outcomes.append(out)
        if progress:
            progress(i, len(ordered), out)
    return outcomes, budget


def resynthesize(db: Database, cfg: Config, p: Proposal[insight.InsightPayload], *, now: datetime,
                 synthesizer: Synthesizer | None = None) -> Outcome:
    """Re-synthesize a pending or stale consolidate proposal's cluster from its members' current
    versions; a pending proposal it replaces is marked stale (kept, naming its replacement)."""
    pid = p.id
    if p.status not in (Status.PENDING, Status.STALE):
        raise Conflict(f"proposal {pid} is {p.status}; only a pending or stale proposal is re-synthesized")
    rows = db.run("proposals/member_versions", ids=list(p.member_ids))
    live = [r["id"] for r in rows if r["version"] is not None and r["status"] in LIVE_STATUSES]
    if len(live) < cfg.consolidation.min_size:
        raise Conflict(f"proposal {pid}: only {len(live)} of its {len(rows)} members are still live "
                       f"(min_size {cfg.consolidation.min_size}); nothing to re-synthesize")
    figures = p.payload.gate_figures
    cluster = Cluster(member_ids=tuple(live), namespace=str(p.namespace), subject=p.subject, figures=figures or {})
    out = synthesize_cluster(db, cfg, cluster, synthesizer=synthesizer, figures=figures, now=now, force=True)
    if out.proposal_id and out.proposal_id != pid and p.status == Status.PENDING:
        def stale(tx: Tx) -> None:
            proposals.transition(tx, pid, "pending", "stale", now=now, by="resynthesize", replaced_by=out.proposal_id)
            audit.record(tx, "proposal_stale", [pid, out.proposal_id], at=now, replaced_by=out.proposal_id)

        db.write(stale)
    return out


def pending_message(outcomes: list[Outcome]) -> str:
    """How many clusters a budget left pending, why, and when they run (empty when none)."""
    pending = [o for o in outcomes if o.status == "pending"]
    if not pending:
        return ""
    reasons = sorted({o.reason for o in pending})
    return (f"{len(pending)} cluster(s) left pending: {'; '.join(reasons)}. They run first at the next consolidate "
            "run (the daily cap resets at 00:00 UTC; the per-run budgets at every run).")


def consolidate(db: Database, cfg: Config, *, now: datetime, synthesizer: Synthesizer | None = None,
                namespace: str | None = None, progress: Callable[[int, int, Outcome | None], None] | None = None,
                budget: Budget | None = None, run_id: str | None = None,
                dry_run: bool | None = None, scopes: list[dict] | None = None) -> ConsolidateReport:
    """scan -> gate -> synthesis -> proposals, within enabled / dry_run / daily_cap / provider budget.
    `dry_run=True` makes this run a dry run whatever the setting; it can never lift the setting.
    `scopes` (a triggered job's dirty (namespace, subject) scopes) scans, in each of their namespaces,
    only their subjects and those the fused graph joins to them (closure.scan_targets) instead of
    `namespace`; the accepted clusters are synthesized together, in the order a full pass gives them."""
    cc = cfg.consolidation
    if dry_run and not cc.dry_run:
        cc = cc.model_copy(update={"dry_run": True})
    run_id = run_id or audit.new_run_id("consolidate")
    report = ConsolidateReport(run_id=run_id, enabled=cc.enabled, dry_run=cc.dry_run)
    if not cc.enabled:
        report.message = ("consolidation is disabled ([consolidation] enabled = false). To synthesize, set "
                          "enabled = true and dry_run = false under [consolidation] in graphcons.toml, or in the "
                          "environment: GRAPHCONS__CONSOLIDATION__ENABLED=true "
                          "GRAPHCONS__CONSOLIDATION__DRY_RUN=false (dry_run = true only reports the clusters)")
        if not cc.dry_run:  # a dry run writes nothing (issue 59)
            audit.record(db, "consolidate", [], run_id=run_id, at=now, enabled=False, dry_run=False)
        return report
    linker.link_pending(db, cfg)  # the closure below reads SIMILAR edges: a put's deferred ones first
    targets = closure.scan_targets(db, scopes) if scopes is not None else [(namespace, None)]
    scans = [scan(db, cfg, now=now, namespace=ns, subjects=subjects, dry_run=cc.dry_run) for ns, subjects in targets]
    accepted = [d for s in scans for d in s.accepted]
    report.scan = {"run_id": ", ".join(s.run_id for s in scans), "accepted": len(accepted),
                   "consolidation_due": sum(s.consolidation_due for s in scans),
                   "scanned": [{"namespace": s.namespace, "subjects": s.subjects} for s in scans],
                   "warnings": [w for s in scans for w in s.warnings]}
    synth = synthesizer or (None if cc.dry_run else make_synthesizer(cfg.llm))
    report.outcomes, budget = synthesize_accepted(db, cfg, accepted, now=now, synthesizer=synth,
                                                  dry_run=cc.dry_run, run_id=run_id, progress=progress,
                                                  budget=budget)
    report.budget = budget.figures()
    report.pending = pending_message(report.outcomes)
    if not cc.dry_run:  # sleep-time precompute for insights approved since the last run (off the response path)
        report.precomputed = len(precompute(db, now=now))
    counts = {s: report.count(s) for s in sorted({o.status for o in report.outcomes})}
    if cc.dry_run:  # a dry run writes nothing, not even its audit (issue 59; principle 3): the report says it all
        return report
    audit.record(db, "consolidate", [o.cluster_key for o in report.outcomes], run_id=run_id, at=now, enabled=True,
                 dry_run=False, scan_run_id=report.scan["run_id"], counts=counts, budget=report.budget,
                 provider=getattr(synth, "provider", None), model=getattr(synth, "model", None),
                 live=LIVE_STATUSES)
    # the job's last run in `health`, by hand or by a worker
    audit.record_run(db, "consolidate", run_id, now, {"accepted": len(accepted), **counts,
                                                      "precomputed": report.precomputed})
    return report

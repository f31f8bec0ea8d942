"""The human-gated proposal queue (principle 2, seed 000 "One atomic, human-gated proposal").

Synthesis never writes an insight. It queues one pending `consolidate` proposal holding the
typed insight (JSON), the cluster key, each member's version, the model, a prompt hash, the
gate's figures and the grounding report. A person (or a script) then:

- approves it: ONE transaction inserts the insight memory (kind insight, epistemic status
  hypothesis, tensions, gaps and implications folded into its text; embedded and given
  SIMILAR edges like any memory), SUMMARIZES {version} to each member's current version,
  DERIVED_FROM to each cited member, marks the proposal applied and writes the audit record.
  A failure anywhere inside leaves nothing. Approving an applied proposal changes nothing.
  If a member changed since the proposal was made, approval refuses (Conflict) and offers
  re-synthesis. Members are never deleted or archived; they stay active.
- rejects it: the proposal is kept with the reason.
- reverts it: the insight is deprecated (a new version), every link stays, marked reverted.

The queue lists proposals of every kind (merge proposals of the merge job too); approve and
revert here handle `consolidate` proposals and hand other kinds to their own module.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from graphcons.core import audit
from graphcons.store.admission import node_props, version_props
from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.consolidation.grounding import confirmation_phrase
from graphcons.core.memory import LIVE_STATUSES, Kind, MemoryInput, content_hash, utcnow
from graphcons.consolidation.synthesis.models import Insight

KIND = "consolidate"
INSIGHT_SOURCE = "graphcons:consolidate"
OTHER_KINDS = ("merge",)  # proposal kinds applied by their own module (issue 5's merge job)
JSON_FIELDS = ("insight", "themes", "member_versions", "gate_figures", "grounding", "budget")


def proposal_id(kind: str, cluster_key: str, membership_hash: str) -> str:
    return "p-" + hashlib.sha256(f"{kind}|{cluster_key}|{membership_hash}".encode()).hexdigest()[:16]


def insight_id_for(pid: str) -> str:
    return "ins-" + hashlib.sha256(pid.encode()).hexdigest()[:16]


def decode(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for key in JSON_FIELDS:
        if isinstance(out.get(key), str):
            try:
                out[key] = json.loads(out[key])
            except json.JSONDecodeError:
                pass
    for key, value in list(out.items()):
        if hasattr(value, "to_native"):
            out[key] = value.to_native()
    return out


def get(db: Database, pid: str) -> dict[str, Any]:
    rows = db.run("proposals/get", id=pid)
    if not rows:
        raise NotFound(f"no proposal with id {pid!r}")
    return decode(rows[0]["proposal"])


def list_(db: Database, *, status: str | None = None, kind: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    return [decode(r["proposal"]) for r in db.run("proposals/list", status=status, kind=kind, limit=limit)]


def render(insight: Insight, *, member_count: int, sources: list[str]) -> tuple[str, str]:
    """(title, content) of the insight memory: everything a retrieval should surface."""
    main = insight.claims[0]
    title = f"{insight.title} ({confirmation_phrase(main.confirmations or 1)})"
    lines = [insight.concept.strip(), "", "Claims:"]
    for c in insight.claims:
        lines.append(f"- {c.statement} ({confirmation_phrase(c.confirmations or 1)}; members {', '.join(c.member_ids)})")
    if insight.tensions:
        lines += ["", "Tensions:"] + [f"- {t.description}" + (f" [{', '.join(t.member_ids)}]" if t.member_ids else "")
                                       for t in insight.tensions]
    if insight.gaps:
        lines += ["", "Gaps and open questions:"] + [f"- {x}" for x in insight.gaps]
    if insight.implications:
        lines += ["", "Implications:"] + [f"- {x}" for x in insight.implications]
    lines += ["", f"Epistemic status: hypothesis (confidence {insight.confidence:.2f}); consolidated from "
                  f"{member_count} memories, {len(sources)} distinct source(s): {', '.join(sources)}."]
    return title, "\n".join(lines)


@dataclass
class ApproveResult:
    proposal_id: str
    insight_id: str | None
    changed: bool
    summarizes: int = 0
    derived_from: int = 0
    status: str = "applied"
    details: dict[str, Any] = field(default_factory=dict)


def _stale(db_or_tx: Any, versions: dict[str, int]) -> list[str]:
    rows = db_or_tx.run("proposals/member_versions", ids=sorted(versions))
    problems = []
    for r in rows:
        if r["version"] is None:
            problems.append(f"{r['id']} no longer exists")
        elif r["version"] != versions[r["id"]]:
            problems.append(f"{r['id']} changed (version {versions[r['id']]} -> {r['version']})")
        elif r["status"] not in LIVE_STATUSES:
            problems.append(f"{r['id']} is now {r['status']}")
    return problems


def _stale_message(pid: str, problems: list[str]) -> str:
    return (f"proposal {pid} is stale: {'; '.join(problems)} since it was made. Nothing was applied. "
            f"Re-synthesize it from the current versions with `graphcons proposals resynthesize {pid}` "
            "(Python: g.resynthesize(proposal_id)), then review the new proposal.")


class _Rollback(Exception):
    pass


def approve(db: Database, cfg: Config, embedder: Embedder, pid: str, *, by: str = "user",
            now: datetime | None = None, checkpoint: Callable[[str], None] | None = None) -> ApproveResult:
    """Apply a pending consolidate proposal in one transaction (see the module docstring).

    `checkpoint(step)` is called after each step inside the transaction ("insight",
    "links", "proposal", "audit"); an exception there rolls everything back (fault injection).
    """
    p = get(db, pid)
    if p.get("kind") != KIND:
        return _dispatch("approve", db, cfg, embedder, p, by=by, now=now)
    if p["status"] == "applied":
        return ApproveResult(pid, p.get("insight_id"), changed=False, status="applied")
    if p["status"] != "pending":
        raise Conflict(f"proposal {pid} is {p['status']}; only a pending proposal can be approved")
    versions: dict[str, int] = p["member_versions"]
    problems = _stale(db, versions)
    if problems:
        raise Conflict(_stale_message(pid, problems))
    insight = Insight.model_validate(p["insight"])
    grounding = p.get("grounding") or {}
    sources = list(grounding.get("sources") or [])
    title, content = render(insight, member_count=len(versions), sources=sources)
    now = now or utcnow()
    iid = insight_id_for(pid)
    mem = MemoryInput(content=content[: cfg.admission.max_content_chars], title=title[: cfg.admission.max_title_chars],
                      kind=Kind.insight, subject=p.get("subject") or "general", namespace=p["namespace"],
                      source=INSIGHT_SOURCE, confidence=float(insight.confidence), id=iid, created_at=now)
    chash = content_hash(mem.content)
    vec = embedder.embed_one(f"{mem.title}. {mem.content}")
    props = node_props(mem, chash, vec)
    props.update(epistemic_status="hypothesis", proposal_id=pid, cluster_key=p["cluster_key"],
                 summarizes=sorted(versions), derived_from=list(p["cited"]), member_sources=sources,
                 activation=0.0, insight_json=json.dumps(p["insight"], sort_keys=True))
    claims_per_member: dict[str, int] = {}
    for c in insight.claims:
        for mid in c.member_ids:
            claims_per_member[mid] = claims_per_member.get(mid, 0) + 1
    step = checkpoint or (lambda _s: None)
    k = cfg.admission.similar_k
    try:
        with db.transaction() as tx:
            locked = tx.run("proposals/lock", id=pid)[0]["proposal"]
            if locked["status"] == "applied":
                raise _Rollback(locked.get("insight_id"))
            if locked["status"] != "pending":
                raise Conflict(f"proposal {pid} is {locked['status']}; only a pending proposal can be approved")
            problems = _stale(tx, versions)
            if problems:
                raise Conflict(_stale_message(pid, problems))
            tx.run("memory/create", props=props, version_props=version_props(props, now), candidates=max(4 * k, 10),
                   k=k, floor=cfg.consolidation.similarity_floor, live=list(LIVE_STATUSES))
            step("insight")
            links = tx.run("proposals/apply_links", insight_id=iid, proposal_id=pid, now=now,
                           members=[{"id": m, "version": v} for m, v in sorted(versions.items())],
                           cited=[{"id": m, "version": versions[m], "claims": claims_per_member.get(m, 0)}
                                  for m in p["cited"]])[0]
            step("links")
            tx.run("proposals/mark_applied", id=pid, now=now, by=by, insight_id=iid)
            tx.run("synthesis/task_set", key=p["cluster_key"], status="applied", reason=f"approved by {by}", now=now,
                   run_id=p.get("run_id"), membership_hash=p.get("membership_hash"), member_ids=None, namespace=None,
                   subject=None, proposal_id=pid, attempt=0)
            step("proposal")
            audit.record(tx, "approve", [pid, iid, *sorted(versions)], at=now, kind=KIND, by=by,
                         cluster_key=p["cluster_key"], summarizes=links["summarizes"], derived_from=links["derived"],
                         model=p.get("model"), prompt_hash=p.get("prompt_hash"))
            step("audit")
    except _Rollback as rb:
        return ApproveResult(pid, rb.args[0], changed=False, status="applied")
    return ApproveResult(pid, iid, changed=True, summarizes=links["summarizes"], derived_from=links["derived"])


def reject(db: Database, pid: str, reason: str, *, by: str = "user", now: datetime | None = None) -> dict[str, Any]:
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError("reason", "say why the proposal is rejected")
    p = get(db, pid)
    if p.get("kind") != KIND:
        return _dispatch("reject", db, None, None, p, by=by, now=now, reason=reason)
    if p["status"] == "rejected":
        return p
    if p["status"] != "pending":
        raise Conflict(f"proposal {pid} is {p['status']}; only a pending proposal can be rejected"
                       + (" (revert an applied one)" if p["status"] == "applied" else ""))
    now = now or utcnow()
    with db.transaction() as tx:
        rows = tx.run("proposals/reject", id=pid, reason=reason.strip(), by=by, now=now)
        if not rows:
            raise Conflict(f"proposal {pid} changed while it was being rejected; try again")
        if p.get("kind") == KIND:
            tx.run("synthesis/task_set", key=p["cluster_key"], status="rejected", reason=reason.strip(), now=now,
                   run_id=p.get("run_id"), membership_hash=p.get("membership_hash"), member_ids=None,
                   namespace=None, subject=None, proposal_id=pid, attempt=0)
        audit.record(tx, "reject", [pid], at=now, kind=p.get("kind"), by=by, reason=reason.strip())
    return decode(rows[0]["proposal"])


def resolve(db: Database, any_id: str) -> dict[str, Any]:
    """A proposal by its id, or the proposal that created an insight (by the insight's id)."""
    rows = db.run("proposals/get", id=any_id)
    if rows:
        return decode(rows[0]["proposal"])
    mem = db.run("memory/get", id=any_id)
    if mem and mem[0]["memory"].get("proposal_id"):
        return get(db, mem[0]["memory"]["proposal_id"])
    raise NotFound(f"no proposal (or insight made by one) with id {any_id!r}")


def revert(db: Database, cfg: Config, any_id: str, reason: str = "reverted", *, by: str = "user",
           now: datetime | None = None) -> dict[str, Any]:
    p = resolve(db, any_id)
    pid = p["id"]
    if p.get("kind") != KIND:
        return _dispatch("revert", db, cfg, None, p, by=by, now=now)
    if p["status"] == "reverted":
        return {"proposal": p, "insight_id": p.get("insight_id"), "changed": False}
    if p["status"] != "applied":
        raise Conflict(f"proposal {pid} is {p['status']}; only an applied proposal can be reverted")
    now = now or utcnow()
    with db.transaction() as tx:
        rows = tx.run("proposals/revert", id=pid, now=now, by=by, reason=reason)
        if not rows:
            raise Conflict(f"proposal {pid} changed while it was being reverted; try again")
        tx.run("synthesis/task_set", key=p["cluster_key"], status="reverted", reason=reason, now=now,
               run_id=p.get("run_id"), membership_hash=p.get("membership_hash"), member_ids=None, namespace=None,
               subject=None, proposal_id=pid, attempt=0)
        audit.record(tx, "revert", [pid, rows[0]["insight_id"]], at=now, kind=KIND, by=by, reason=reason,
                     links_kept=rows[0]["links"])
    return {"proposal": decode(rows[0]["proposal"]), "insight_id": rows[0]["insight_id"], "changed": True,
            "links_kept": rows[0]["links"]}


def _dispatch(verb: str, db: Database, cfg: Config, embedder: Embedder | None, p: dict[str, Any], *,
              by: str = "user", now: datetime | None = None, reason: str | None = None) -> Any:
    """Proposals of other kinds are applied by their own module: graphcons.<kind>.<verb>(db, id, now=, by=)."""
    kind = p.get("kind")
    module = None
    if isinstance(kind, str) and kind.isidentifier() and kind in OTHER_KINDS:
        import importlib

        module = importlib.import_module(f"graphcons.{kind}")
    fn = getattr(module, verb, None) if module else None
    if fn is None:
        raise Conflict(f"proposal {p['id']} is a {kind!r} proposal; graphcons has no {verb} for that kind")
    kw: dict[str, Any] = {"now": now or utcnow(), "by": by}
    if verb == "reject":
        kw["reason"] = reason
    return fn(db, p["id"], **kw)

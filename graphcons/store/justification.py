"""Justifications and scoped exceptions as stored records, and premise invalidation (seed 002).

    (:Justification {id, insight_id, kind: synthesis|evidence|rule, status: standing|withdrawn,
                     proposal_id?, evidence_id?, rule?, rule_version?, by, created_at,
                     withdrawn_at?, withdrawn_cause?})-[:JUSTIFIES]->(insight)
    (justification)-[:PREMISE {version, required, status: holding|lost, lost_op?, lost_cause?}]->(memory)
    (memory)-[:EXCEPTION_TO {scope (JSON), version, status: supported|contested, reason}]->(insight)

Why here, in store: every path that changes a premise must withdraw what rested on it IN ITS
OWN TRANSACTION: editing (store.history), merging, deprecating and archiving, and the
merge job's conflicts (maintenance). Those layers cannot import consolidation, so the
invalidation and the re-derivation of the status are store operations on a `Tx`; the rule
that derives the status is the pure state machine in core.epistemics. Judgement (is this
evidence independent? is this exception self-derived? which rule applies?) stays in
consolidation.epistemics. Every change is audited in the same transaction.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from graphcons.core import audit, epistemics
from graphcons.core.memory import LIVE_STATUSES
from graphcons.store.proposals import digest_id


def justification_id(insight_id: str, kind: str, *basis: str) -> str:
    """Deterministic: the same justification (insight, kind, basis) gets the same id."""
    return digest_id("j-", insight_id, kind, *basis)


def create(tx: Any, insight_id: str, kind: str, premises: list[dict[str, Any]], *, basis: list[str],
           now: datetime, by: str, **props: Any) -> str:
    """Record one justification with its exact premises [{id, version, required}]."""
    jid = justification_id(insight_id, kind, *basis)
    tx.run("justification/create", id=jid, insight_id=insight_id, now=now,
           props={"kind": kind, "by": by, **{k: v for k, v in props.items() if v is not None}},
           premises=[{"id": p["id"], "version": int(p["version"]), "required": bool(p["required"])}
                     for p in premises])
    return jid


def premises_changed(tx: Any, memory_ids: list[str], *, op: str, cause: str, now: datetime,
                     run_id: str | None = None) -> list[dict[str, Any]]:
    """Call in the transaction that changed these memories (op: edit, merge, deprecate,
    archive, conflict). Withdraws what no longer holds, re-derives and audits; returns the
    insights' status transitions."""
    ids = sorted(set(memory_ids))
    lost = tx.run("justification/lose_premises", ids=ids, live=LIVE_STATUSES, now=now, op=op, cause=cause)
    if lost:
        audit.record(tx, "premises_lost", ids + sorted({r["insight_id"] for r in lost}), run_id=run_id, at=now,
                     change=op, cause=cause,
                     justifications=[{"id": r["justification"], "insight": r["insight_id"], "kind": r["kind"],
                                      "before": r["before"], "after": r["after"], "lost": r["lost"]} for r in lost])
    insights = {r["insight_id"] for r in lost}
    insights |= {r["insight_id"] for r in tx.run("justification/exception_targets", ids=ids)}
    return rederive(tx, sorted(insights), cause=f"{op}: {cause}", now=now, run_id=run_id)


def premises_restored(tx: Any, memory_ids: list[str], *, cause: str, now: datetime,
                      run_id: str | None = None) -> list[dict[str, Any]]:
    """The reverse, after a restore or a reverted merge (never after an edit)."""
    ids = sorted(set(memory_ids))
    back = tx.run("justification/reinstate", ids=ids, live=LIVE_STATUSES, now=now, cause=cause)
    if back:
        audit.record(tx, "premises_reinstated", ids + sorted({r["insight_id"] for r in back}), run_id=run_id,
                     at=now, cause=cause, justifications=[{"id": r["justification"], "insight": r["insight_id"],
                                                           "before": r["before"], "after": r["after"]} for r in back])
    insights = {r["insight_id"] for r in back}
    insights |= {r["insight_id"] for r in tx.run("justification/exception_targets", ids=ids)}
    return rederive(tx, sorted(insights), cause=f"restore: {cause}", now=now, run_id=run_id)


def rederive(tx: Any, insight_ids: list[str], *, cause: str, now: datetime,
             run_id: str | None = None) -> list[dict[str, Any]]:
    """Derive each insight's status from its records (core.epistemics), store it, audit every
    transition with its cause; an insight that becomes unsupported is due for re-synthesis."""
    changes = []
    for row in tx.run("justification/state", ids=list(insight_ids)):
        exceptions = []
        for e in row["exceptions"] or []:
            status, reason = epistemics.exception_status(e, LIVE_STATUSES)
            exceptions.append({"memory_id": e["memory_id"], "scope": json.loads(e["scope"]), "status": status,
                               "reason": reason, "was": e["status"]})
        status = epistemics.derive_status(row["justifications"] or [])
        scopes = epistemics.derive_scopes(exceptions)
        before_scopes = json.loads(row["scopes"]) if row["scopes"] else []
        before = row["status"]
        if status == before and scopes == before_scopes and all(e["status"] == e["was"] for e in exceptions):
            continue
        tx.run("justification/set_status", id=row["id"], status=status, scopes=json.dumps(scopes, sort_keys=True),
               now=now, exceptions=[{k: e[k] for k in ("memory_id", "status", "reason")} for e in exceptions])
        change = {"insight_id": row["id"], "from": before, "to": status, "scopes_before": before_scopes,
                  "scopes": scopes, "cause": cause,
                  "rule": epistemics.TRANSITIONS.get((before, status), "scoped exceptions changed")}
        audit.record(tx, "epistemic_transition", [row["id"]], run_id=run_id, at=now, **change)
        if status == epistemics.UNSUPPORTED and before != epistemics.UNSUPPORTED:
            tx.run("justification/resynthesis_due", insight_id=row["id"], now=now, live=LIVE_STATUSES,
                   reason=f"insight {row['id']} became unsupported ({cause})")
        changes.append(change)
    return changes


def withdraw_proposal(tx: Any, proposal_id: str, *, cause: str, now: datetime,
                      run_id: str | None = None) -> list[dict[str, Any]]:
    """A reverted proposal's justifications no longer stand (its derivation links are marked reverted):
    withdrawn and marked reverted (no premise coming back revives them), audited, and the status of
    what they justified (an insight, a reflection's statements) re-derived."""
    rows = tx.run("justification/withdraw_proposal", proposal_id=proposal_id, now=now, cause=cause)
    if rows:
        audit.record(tx, "justifications_withdrawn", [proposal_id, *sorted({r["insight_id"] for r in rows})],
                     run_id=run_id, at=now, cause=cause, justifications=[r["id"] for r in rows])
    return rederive(tx, sorted({r["insight_id"] for r in rows}), cause=cause, now=now, run_id=run_id)


def rested_on(runner: Any, memory_id: str) -> bool:
    """True when a live insight summarises this memory or a live statement derives from it (a premise of a
    reflection, issue 41): no job retires it unreviewed."""
    rows = runner.run("justification/rested_on", id=memory_id, live=LIVE_STATUSES)
    return bool(rows and rows[0]["rested_on"])


def add_exception(tx: Any, insight_id: str, memory_id: str, scope: dict[str, str], *, now: datetime, by: str,
                  run_id: str | None = None) -> dict[str, Any]:
    """Link a scoped exception (validated by the caller) and re-derive the insight."""
    row = tx.run("justification/add_exception", insight_id=insight_id, memory_id=memory_id,
                 scope=json.dumps(scope, sort_keys=True), now=now, by=by, run_id=run_id)[0]
    if row["created"]:
        audit.record(tx, "exception_added", [insight_id, memory_id], run_id=run_id, at=now, by=by, scope=scope,
                     version=row["version"])
    changes = rederive(tx, [insight_id], cause=f"exception {memory_id} {json.dumps(scope, sort_keys=True)}",
                       now=now, run_id=run_id)
    return {"created": row["created"], "version": row["version"], "changes": changes}


def view(runner: Any, insight_id: str) -> dict[str, Any] | None:
    """The insight's status, per-scope statuses, justifications and exceptions (None if no memory)."""
    rows = runner.run("justification/view", id=insight_id)
    if not rows:
        return None
    r = rows[0]
    justs = []
    for j in r["justifications"] or []:
        j = dict(j)
        justs.append({"id": j.pop("id"), "kind": j.pop("kind"), "status": j.pop("status"),
                      "premises": [{"id": p["id"], "version": p["version"], "required": p["required"],
                                    "status": p["status"], **({"lost_cause": p["lost_cause"]} if p["lost_cause"] else {})}
                                   for p in j.pop("premises")],
                      **{k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in sorted(j.items())
                         if k not in ("insight_id",)}})
    excs = [{"memory_id": e["memory_id"], "title": e["title"], "scope": json.loads(e["scope"]), "status": e["status"],
             "version": e["version"], **({"reason": e["reason"]} if e["reason"] else {})}
            for e in r["exceptions"] or []]
    return {"epistemic_status": r["status"], "scopes": json.loads(r["scopes"]) if r["scopes"] else [],
            "justifications": justs, "exceptions": excs}

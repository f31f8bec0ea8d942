"""Confirming, excepting and deriving insights: the judgement half of seed 002.

The stored records and their invalidation are store.justification; the state machine is
core.epistemics. Here are the checks a human or a job must pass to change what graphcons
believes, each applied in one audited transaction that re-derives the insight's status:

- confirm(insight, evidence): an independent justification. The evidence must come from a
  source that none of the insight's premises came from (repetition from one source is not
  confirmation; a derived memory's sources are those it derives from, store.evidence), must not
  be a premise, and must not be derived from the insight itself.
- except_(insight, memory, scope): a scoped exception (core.epistemics.parse_scope). Refused
  when the memory's provenance reaches the insight it would defeat, or it is a required
  premise of that insight.
- justify_by_rule(insight, rule, premises): a registered rule (consolidation.rules) derives it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphcons.consolidation import rules
from graphcons.core import epistemics
from graphcons.core.db import Database, Tx
from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.core.memory import LIVE_STATUSES
from graphcons.store import evidence, justification


def _id(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field, "must be a non-empty string")
    return value


def _facts(db: Database, insight_id: Any, memory_id: Any, field: str) -> dict[str, Any]:
    """Both memories exist, the first is a live insight, the second is live; else a clear error."""
    insight_id, memory_id = _id(insight_id, "insight_id"), _id(memory_id, field)
    f = db.run("epistemics/facts", insight_id=insight_id, memory_id=memory_id)[0]
    if not f["insight_found"]:
        raise NotFound(f"no memory with id {insight_id!r}")
    if f["insight_kind"] != "insight":
        raise ValidationError("insight_id", f"{insight_id} is a {f['insight_kind']}, not an insight; only an insight "
                                            "generalises, so only an insight has justifications and exceptions")
    if f["insight_status"] not in LIVE_STATUSES:
        raise Conflict(f"insight {insight_id} is {f['insight_status']}; restore it first")
    if not f["memory_found"]:
        raise NotFound(f"no memory with id {memory_id!r}")
    if f["status"] not in LIVE_STATUSES:
        raise Conflict(f"memory {memory_id} is {f['status']}; a retired memory supports nothing")
    if f["namespace"] != f["insight_namespace"]:
        raise ValidationError(field, f"{memory_id} is in namespace {f['namespace']!r}, the insight in "
                                     f"{f['insight_namespace']!r}")
    # evidence sources: a statement or insight derived from other memories brings only theirs (issue 50)
    srcs = evidence.sources(db, [memory_id, *f["premise_ids"]])
    return {**f, "insight_id": insight_id, "memory_id": memory_id, "sources": srcs[memory_id],
            "premise_sources": sorted({s for p in f["premise_ids"] for s in srcs.get(p, [])})}


def confirm(db: Database, insight_id: str, evidence_id: str, *, now: datetime, by: str = "user") -> dict[str, Any]:
    """Attach independent confirming evidence: a second justification, tracked on its own."""
    f = _facts(db, insight_id, evidence_id, "evidence")
    if f["derived_from_insight"]:
        raise ValidationError("evidence", f"{evidence_id} is derived from {insight_id}: a conclusion cannot confirm itself")
    if f["is_premise"]:
        raise ValidationError("evidence", f"{evidence_id} is already a premise of {insight_id}, not independent evidence")
    shared = sorted(set(f["sources"]) & set(f["premise_sources"]))
    if shared:
        raise ValidationError("evidence", f"{evidence_id} comes from {', '.join(shared)}, a source the insight already "
                                          "rests on: repetition from one source is not confirmation")
    def work(tx: Tx) -> tuple[str, Any]:
        jid = justification.create(tx, insight_id, epistemics.EVIDENCE,
                                   [{"id": evidence_id, "version": f["version"], "required": True}],
                                   basis=[evidence_id, str(f["version"])], now=now, by=by, evidence_id=evidence_id)
        changes = justification.rederive(tx, [insight_id], cause=f"confirmed by {evidence_id} ({by})", now=now)
        return jid, changes

    jid, changes = db.write(work)
    return {"insight_id": insight_id, "justification": jid, "changes": changes,
            **_status(db, insight_id)}


def except_(db: Database, insight_id: str, memory_id: str, scope: Any, *, now: datetime,
            by: str = "user") -> dict[str, Any]:
    """Record a scoped exception: defeats the insight within `scope` while it is supported."""
    parsed = epistemics.parse_scope(scope)
    f = _facts(db, insight_id, memory_id, "memory")
    if f["derived_from_insight"]:
        raise ValidationError("memory", f"{memory_id}'s provenance reaches {insight_id}: an exception cannot be derived "
                                        "from the generalisation it would defeat")
    if f["is_premise"]:
        raise ValidationError("memory", f"{memory_id} is a required premise of {insight_id}; it cannot also be an "
                                        "exception to it (edit or deprecate it instead)")
    out = db.write(lambda tx: justification.add_exception(tx, insight_id, memory_id, parsed, now=now, by=by))
    return {"insight_id": insight_id, "memory_id": memory_id, "scope": parsed, "created": out["created"],
            "changes": out["changes"], **_status(db, insight_id)}


def justify_by_rule(db: Database, insight_id: str, rule_name: str, premise_ids: list[str], *, now: datetime,
                    by: str = "user") -> dict[str, Any]:
    """A registered rule derives the insight from these premises (all required), or says why not."""
    rule = rules.get(rule_name)
    if not isinstance(premise_ids, list) or not premise_ids:
        raise ValidationError("premises", "name at least one premise memory")
    facts = [_facts(db, insight_id, pid, "premises") for pid in sorted(set(premise_ids))]
    for f in facts:
        if f["derived_from_insight"]:
            raise ValidationError("premises", f"{f['memory_id']} is derived from {insight_id}: circular")
    insight = {"id": insight_id, "subject": facts[0]["insight_subject"], "namespace": facts[0]["insight_namespace"],
               "premise_sources": facts[0]["premise_sources"]}
    premises = [{"id": f["memory_id"], "kind": f["kind"], "subject": f["subject"], "namespace": f["namespace"],
                 "sources": f["sources"], "version": f["version"]} for f in facts]
    why_not = rule.check(insight, premises)
    if why_not:
        raise ValidationError("rule", f"{rule.name}@{rule.version} is not eligible: {why_not}")
    def work(tx: Tx) -> tuple[str, Any]:
        jid = justification.create(tx, insight_id, epistemics.RULE,
                                   [{"id": p["id"], "version": p["version"], "required": True} for p in premises],
                                   basis=[rule.name, str(rule.version), *[f"{p['id']}@{p['version']}" for p in premises]],
                                   now=now, by=by, rule=rule.name, rule_version=rule.version)
        changes = justification.rederive(tx, [insight_id], cause=f"derived by rule {rule.name}@{rule.version}",
                                         now=now)
        return jid, changes

    jid, changes = db.write(work)
    return {"insight_id": insight_id, "justification": jid, "rule": rule.public(), "changes": changes,
            **_status(db, insight_id)}


def _status(db: Database, insight_id: str) -> dict[str, Any]:
    v = justification.view(db, insight_id) or {}
    return {"epistemic_status": v.get("epistemic_status"), "scopes": v.get("scopes", [])}


def describe(db: Database, memory_id: str) -> dict[str, Any]:
    """What `show` and `explain` print about an insight: status, scopes, justifications, exceptions."""
    v = justification.view(db, _id(memory_id, "memory_id"))
    if v is None:
        raise NotFound(f"no memory with id {memory_id!r}")
    return v


def status_in(db: Database, insight_id: str, context: Any) -> dict[str, Any]:
    """The insight's status in one situation: defeated / uncertain inside an exception's scope."""
    if not isinstance(context, dict):
        raise ValidationError("context", "must be an object of condition values, e.g. {\"trip_distance_km\": 800}")
    v = describe(db, insight_id)
    if v["epistemic_status"] is None:
        raise ValidationError("insight_id", f"{insight_id} is not an insight")
    verdict = epistemics.status_in(v["epistemic_status"], v["scopes"], context)
    return {"insight_id": insight_id, "context": context, "status": verdict.status,
            "global_status": verdict.global_status, "because": verdict.because}

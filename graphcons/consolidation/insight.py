"""The `consolidate` proposal kind: an insight applied with its provenance, or reverted.

Synthesis (consolidation.consolidate) queues a pending proposal holding the typed insight,
the cluster key, each member's version, the model, a prompt hash, the gate's figures and
the grounding report. The review queue (graphcons.review.queue) then calls this module:

- approve: ONE transaction inserts the insight memory (kind insight, epistemic status
  hypothesis, tensions, gaps and implications folded into its text; embedded and given
  SIMILAR edges like any memory), SUMMARIZES {version} to each member's current version,
  DERIVED_FROM to each cited member, marks the proposal applied and writes the audit record.
  A failure anywhere inside leaves nothing. If a member changed since the proposal was made,
  approval refuses (Conflict) and offers re-synthesis. The same transaction records the
  synthesis justification (seed 002: premises = the cited members at their versions, all
  required), marks the members `consolidated` (seed 004; never archived while the insight
  stands; back to their earlier status on revert) and gives the insight the highest importance
  among them.
- reject: the cluster's synthesis task remembers the rejection (no re-synthesis until it changes).
- revert: the insight is deprecated (a new version), every link stays, marked reverted; members
  no other applied proposal consolidates get their earlier status back; whatever rests on the
  insight (evidence for another insight, a premise) loses that premise in the same transaction.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphcons.consolidation.grounding import confirmation_phrase
from graphcons.consolidation.synthesis.models import Fact, Insight
from graphcons.core import audit, weights
from graphcons.core.config import Config
from graphcons.core.db import Tx
from graphcons.core.errors import Conflict
from graphcons.core.memory import LIVE_STATUSES, Kind, embedded_text
from graphcons.core import epistemics
from graphcons.store import admission, justification, proposals
from graphcons.store.proposals import Decision, InsightEffect, Payload, Proposal, Review, Status

KIND = "consolidate"
INSIGHT_SOURCE = "graphcons:consolidate"


@dataclass(frozen=True, kw_only=True)
class InsightPayload(Payload):
    """What a consolidation proposes (consolidate.py's `synthesize_cluster`): the grounded insight and
    its themes as stored, the gate's figures, the context memories shown beside the members, and the
    insight's confidence."""

    insight: dict[str, Any]
    themes: dict[str, Any] | None = None
    gate_figures: dict[str, Any] | None = None
    context_ids: list[str] | None = None
    confidence: float | None = None

    def typed(self) -> Insight:
        return Insight.model_validate(self.insight)

    def wire(self) -> dict[str, Any]:
        """Shown at the proposal's top level, as this kind was stored (and shown) before issue 60."""
        return self.to_dict()


PAYLOAD = InsightPayload


def proposal_id(cluster_key: str, membership_hash: str) -> str:
    return proposals.digest_id("p-", KIND, cluster_key, membership_hash)


def insight_id_for(pid: str) -> str:
    return proposals.digest_id("ins-", pid)


def render(insight: Insight, *, member_count: int, sources: list[str]) -> tuple[str, str]:
    """(title, content) of the insight memory: everything a retrieval should surface."""
    main = insight.claims[0]
    title = f"{insight.title} ({confirmation_phrase(main.confirmations or 1)})"
    lines = [insight.concept.strip(), "", "Claims:"]
    for c in insight.claims:
        when = f"{c.when}: " if c.when else ""  # the date of the member stating it (issue 48)
        lines.append(f"- {when}{c.statement} ({confirmation_phrase(c.confirmations or 1)}; "
                     f"members {', '.join(c.member_ids)})")
    if insight.facts:  # issue 39: the facts an agent answers from, in time order with their dates
        lines += ["", "Facts:"] + [f"- {fact_line(f)}" for f in insight.facts]
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


_SECTIONS = {"Claims:": "claims", "Facts:": "facts", "Tensions:": "tensions", "Gaps and open questions:": "gaps",
             "Implications:": "implications"}


def reading(content: str) -> tuple[str, dict[str, Any]]:
    """An insight's text as a reader pastes it (issue 63: the shortest true thing): its facts, one a
    line with its date, without member ids or headings; and apart, what `render` adds for a reviewer
    (tensions, gaps, implications, the epistemic note). Text not in render's shape (an insight edited
    by hand) is its own reading, with nothing apart."""
    parts: dict[str, list[str]] = {}
    section, note = None, None
    for line in content.splitlines():
        if line.strip() in _SECTIONS:
            section = _SECTIONS[line.strip()]
        elif line.startswith("Epistemic status:"):
            note, section = line.strip(), None
        elif section and line.startswith("- "):
            parts.setdefault(section, []).append(line[2:].strip())
    if not parts.get("facts") and not parts.get("claims"):
        return content, {}
    facts = [re.sub(r"\s\[[^\]]*\]$", "", f) for f in parts.get("facts", [])] or \
            [re.sub(r"\s\([^()]*; members [^()]*\)$", "", c) for c in parts["claims"]]
    apart: dict[str, Any] = {k: v for k, v in parts.items() if k not in ("facts", "claims")}
    if note:
        apart["epistemic_note"] = note
    return "\n".join(facts), apart


def fact_line(fact: Fact) -> str:
    """One fact as an insight's text and a context show it: "7 May 2023: ... [m-1, m-2]"."""
    when = f"{fact.when}: " if fact.when else ""
    return f"{when}{fact.statement} [{', '.join(fact.member_ids)}]"


def stale_members(runner: Any, versions: dict[str, int]) -> list[str]:
    """Why a proposal no longer matches its members (empty: every member is as it was)."""
    problems = []
    for r in runner.run("proposals/member_versions", ids=sorted(versions)):
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


def _task(runner: Any, p: Proposal[InsightPayload], status: str, reason: str, now: datetime) -> None:
    runner.run("synthesis/task_set", key=p.cluster_key, status=status, reason=reason, now=now, run_id=p.run_id,
               membership_hash=p.membership_hash, member_ids=None, namespace=None, subject=None, proposal_id=p.id,
               attempt=0)


class _AlreadyApplied(Exception):
    pass


def approve(p: Proposal[InsightPayload], review: Review) -> Decision:
    """Apply a pending consolidate proposal in one transaction (see the module docstring).

    `review.step(name)` is called after each step inside the transaction ("insight",
    "links", "proposal", "audit"); an exception there rolls everything back (fault injection).
    """
    pid, cfg = p.id, review.config()
    versions = dict(p.member_versions or {})
    problems = stale_members(review.db, versions)
    if problems:
        raise Conflict(_stale_message(pid, problems))
    insight = p.payload.typed()
    sources = list((p.grounding or {}).get("sources") or [])
    title, content = render(insight, member_count=len(versions), sources=sources)
    iid = insight_id_for(pid)
    mem = admission.derived_input(cfg, content=content, title=title, kind=Kind.insight,
                                  subject=p.subject or "general", namespace=str(p.namespace),
                                  source=INSIGHT_SOURCE, confidence=float(insight.confidence), id=iid, created_at=review.now)
    vec = review.embed_with().embed_one(embedded_text(mem.title, mem.content))
    provenance = dict(epistemic_status="hypothesis", proposal_id=pid, cluster_key=p.cluster_key,
                      summarizes=sorted(versions), derived_from=list(p.cited or ()), member_sources=sources,
                      activation=0.0, insight_json=json.dumps(p.payload.insight, sort_keys=True))

    def work(tx: Tx) -> dict[str, Any]:
        locked = proposals.lock(tx, pid)
        if locked.status == Status.APPLIED:
            raise _AlreadyApplied(locked.insight_id)
        if locked.status != Status.PENDING:
            raise Conflict(f"proposal {pid} is {locked.status}; only a pending proposal can be approved")
        problems = stale_members(tx, versions)
        if problems:
            raise Conflict(_stale_message(pid, problems))
        props = admission.admit_derived(tx, cfg, mem, vec, review.now, **provenance)  # + its SIMILAR edges
        review.step("insight")
        return _links(tx, cfg, p, insight, iid, props, review)

    try:
        links = review.db.write(work)  # retried whole on a deadlock; a retry sees the proposal still pending
    except _AlreadyApplied as done:
        return Decision.of(pid, KIND, Status.APPLIED, changed=False, effect=InsightEffect(done.args[0]))
    return Decision.of(pid, KIND, Status.APPLIED, effect=InsightEffect(iid, links["summarizes"], links["derived"]))


def _links(tx: Tx, cfg: Config, p: Proposal[InsightPayload], insight: Insight, iid: str, props: dict[str, Any],
           review: Review) -> dict[str, Any]:
    """The insight's links, justification and members' status, inside approve's transaction."""
    pid, now, by = p.id, review.now, review.by
    versions, cited = dict(p.member_versions or {}), list(p.cited or ())
    claims_per_member: dict[str, int] = {}
    for c in insight.claims:
        for mid in c.member_ids:
            claims_per_member[mid] = claims_per_member.get(mid, 0) + 1
    links = tx.run("insights/apply_links", insight_id=iid, proposal_id=pid, now=now,
                   members=[{"id": m, "version": v} for m, v in sorted(versions.items())],
                   cited=[{"id": m, "version": versions[m], "claims": claims_per_member.get(m, 0)} for m in cited])[0]
    # seed 002: the synthesis justification requires exactly the members its claims cite
    # (shown but uncited members are context, not premises); members become consolidated
    justification.create(tx, iid, epistemics.SYNTHESIS,
                         [{"id": m, "version": versions[m], "required": True} for m in sorted(cited)],
                         basis=[pid], now=now, by=by, proposal_id=pid)
    # seed 004: the members are now consolidated (still live, addressable and searchable) and
    # the insight keeps the highest importance among them.
    marked = tx.run("memory/mark_consolidated", ids=sorted(versions), proposal_id=pid, now=now)[0]
    if marked["max_importance"] is not None:
        imp = float(marked["max_importance"])
        tx.run("insights/keep_importance", insight_id=iid, importance=imp,
               effective_weight=weights.stored(props, cfg.weights, manual=imp))
    review.step("links")
    proposals.transition(tx, pid, "pending", "applied", now=now, by=by, insight_id=iid)
    _task(tx, p, "applied", f"approved by {by}", now)
    review.step("proposal")
    audit.record(tx, "approve", [pid, iid, *sorted(versions)], at=now, kind=KIND, by=by,
                 cluster_key=p.cluster_key, summarizes=links["summarizes"], derived_from=links["derived"],
                 model=p.model, prompt_hash=p.prompt_hash)
    review.step("audit")
    return links


def reject(tx: Tx, p: Proposal[InsightPayload], review: Review) -> None:
    """Inside the queue's reject transaction: the cluster is not synthesized again until it changes."""
    _task(tx, p, "rejected", review.reason, review.now)


def revert(p: Proposal[InsightPayload], review: Review) -> Decision:
    """Deprecate the insight of an applied proposal; every link stays, marked reverted."""
    pid, now, by, reason = p.id, review.now, review.by, review.reason
    def work(tx: Tx) -> list[dict[str, Any]]:
        proposals.transition(tx, pid, "applied", "reverted", now=now, by=by, reason=reason)
        rows = tx.run("insights/revert", proposal_id=pid, now=now, by=by, reason=reason)
        if not rows:
            raise Conflict(f"proposal {pid} names no insight it created; nothing was reverted")
        _task(tx, p, "reverted", reason, now)
        cause = f"insight proposal {pid} reverted by {by}: {reason}"
        # its synthesis justification is withdrawn (issue 59: it stayed standing), so the insight is unsupported
        justification.withdraw_proposal(tx, pid, cause=cause, now=now)
        # the insight is retired: whatever rests on it (a statement or insight over it) loses that premise
        justification.premises_changed(tx, [rows[0]["insight_id"]], op="deprecate", now=now, cause=cause)
        restored = tx.run("memory/unmark_consolidated", ids=sorted(p.member_versions or {}), proposal_id=pid,
                          now=now)[0]["restored"]
        audit.record(tx, "revert", [pid, rows[0]["insight_id"]], at=now, kind=KIND, by=by, reason=reason,
                     links_kept=rows[0]["links"], unconsolidated=restored)
        return rows

    rows = review.db.write(work)
    return Decision.of(pid, KIND, Status.REVERTED, reason=reason,
                       effect=InsightEffect(rows[0]["insight_id"], links_kept=rows[0]["links"]))

"""The `reflect` proposal kind (issue 14, seed 004): a reviewed reflection folded into its entity's profile
(graphcons.profiles.profile, the stored profile).

Approving a reflection proposal (graphcons.review.queue calls `approve`) does, in ONE transaction:
- each new statement becomes a semantic memory (kind preference / behavior / fact, importance
  0.8, tags reflection + insight, source_type consolidated, source_count, epistemic status
  hypothesis) with DERIVED_FROM to the memories it cites;
- a statement the profile already holds (same category, cosine >= [reflection] same_statement,
  same polarity) is *confirmed*: no new memory, its entry's sources grow (new DERIVED_FROM edges);
- a statement of opposite polarity to a close entry (cosine >= contradiction_floor) is added
  and both are *flagged* (status contradicted, CONFLICTS_WITH for review), never dropped; the
  open conflict contests what rests on either (premise invalidation, seed 002);
- the memories the reflection *cited* are marked consolidated (issue 31: a shown memory no
  statement rests on stays unconsolidated and counts toward the next reflection); the profile
  gets its next version.
`revert` deprecates the memories the reflection created (whatever rests on them, e.g. an insight
over a statement, loses that premise in the same transaction), closes its conflicts (premises they
contested hold again), marks its links reverted, gives the
reviewed memories their earlier status back and restores the previous profile version (as a
new version: history is kept).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from graphcons.consolidation.insight import stale_members
from graphcons.consolidation.synthesis.models import (
    CATEGORIES,
    CATEGORY_KIND,
    Reflection,
)
from graphcons.core import audit, epistemics
from graphcons.core.config import Config
from graphcons.core.db import Tx
from graphcons.core.errors import Conflict
from graphcons.core.memory import Kind, MemoryInput, embedded_text
from graphcons.profiles import profile
from graphcons.store import admission, justification, proposals
from graphcons.store.proposals import Decision, Payload, ProfileEffect, Proposal, Review, Status

KIND = "reflect"
SOURCE = "graphcons:reflect"
TAGS = ["reflection", "insight"]
HELD = ("current", "contradicted")  # an entry's statuses while its statement memory is live
# Negation or aversion: "no longer takes the train" against "takes the train". ("instead of",
# "over" compare two options and keep the statement positive.)
_NEGATIVE_RE = re.compile(r"\b(not|no|never|dislikes?|disliked|hates?|hated|avoids?|avoided|stopped|"
                          r"no longer|refuses?)\b|n't\b", re.IGNORECASE)


def semantic_id(pid: str, category: str, statement: str) -> str:
    return proposals.digest_id("sem-", pid, category, statement.casefold())


def polarity(text: str) -> int:
    """-1 for a negative or aversive statement ("avoids flying", "no longer uses X"), else +1."""
    return -1 if _NEGATIVE_RE.search(text) else 1


# -- merging a reflection into a profile ------------------------------------------------------------
@dataclass
class Merged:
    profile: dict[str, Any]  # the new profile fields (entries per category + summary)
    created: list[dict[str, Any]]  # {id, category, statement, cited}
    confirmed: list[dict[str, Any]]  # {id, category, statement, cited (new ones)}
    conflicts: list[dict[str, Any]]  # {new, old, reasons, score}


def merge(old: dict[str, Any], reflection: Reflection, pid: str, new_vecs: dict[str, list[float]],
          old_vecs: dict[str, list[float]], *, same: float, contradiction: float) -> Merged:
    """Fold a grounded reflection into the profile: confirm, flag or add each statement."""
    entries = {c: [dict(e) for e in old[c]] for c in CATEGORIES}
    created: list[dict[str, Any]] = []
    confirmed: list[dict[str, Any]] = []
    conflicts: list[dict[str, Any]] = []
    for category, st in reflection.statements():
        sid = semantic_id(pid, category, st.statement)
        vec = np.asarray(new_vecs[sid])
        best = None  # (cosine, entry) of the closest earlier entry of this category
        for e in entries[category]:  # a retired entry (its memory not live) is neither confirmed nor flagged
            if e["id"] in old_vecs and not e.get("new") and e.get("status", "current") in HELD:
                cos = float(vec @ np.asarray(old_vecs[e["id"]]))
                if best is None or cos > best[0] or (cos == best[0] and e["id"] < best[1]["id"]):
                    best = (cos, e)
        same_polarity = best is not None and polarity(st.statement) == polarity(best[1]["statement"])
        if best is not None and best[0] >= same and same_polarity:
            e = best[1]
            added = [i for i in st.memory_ids if i not in e["sources"]]
            e["sources"] = sorted(set(e["sources"]) | set(st.memory_ids))
            e["proposals"] = e.get("proposals", []) + [pid]
            confirmed.append({"id": e["id"], "category": category, "statement": e["statement"], "cited": added})
            continue
        entry = {"id": sid, "statement": st.statement, "sources": list(st.memory_ids), "proposals": [pid],
                 "status": "current", "contradicts": [], "contradicted_by": [], "new": True}
        if st.restated:  # a quote of one memory, not a generalisation (issue 40)
            entry["restated"] = st.restated
        if best is not None and best[0] >= contradiction and not same_polarity:
            old_e = best[1]
            old_e["status"] = entry["status"] = "contradicted"
            old_e["contradicted_by"] = sorted(set(old_e.get("contradicted_by", [])) | {sid})
            entry["contradicts"] = [old_e["id"]]
            conflicts.append({"new": sid, "old": old_e["id"], "score": round(best[0], 4),
                              "reasons": ["opposite polarity in the entity profile"]})
        entries[category].append(entry)
        created.append({"id": sid, "category": category, "statement": st.statement, "cited": list(st.memory_ids)})
    for c in CATEGORIES:
        for e in entries[c]:
            e.pop("new", None)
    return Merged(profile={"summary": reflection.summary, **entries}, created=created, confirmed=confirmed,
                  conflicts=conflicts)


# -- the `reflect` proposal kind --------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ReflectionPayload(Payload):
    """What a reflection proposes (reflection.py's `_propose`): the grounded `Reflection` as stored
    (the selection of memories it was shown stays in `rest`)."""

    reflection: dict[str, Any]

    def typed(self) -> Reflection:
        return Reflection.model_validate(self.reflection or {})


PAYLOAD = ReflectionPayload


def _scope(p: Proposal[ReflectionPayload]) -> tuple[str, str]:
    return str(p.namespace), str(p.subject)


def approve(p: Proposal[ReflectionPayload], review: Review) -> Decision:
    """Apply a pending reflection in one transaction (see the module docstring)."""
    pid, cfg = p.id, review.config()
    reflection = p.payload.typed()
    texts = {semantic_id(pid, c, s.statement): s.statement for c, s in reflection.statements()}
    ids = list(texts)
    # Embedded as admission embeds a memory (title == content == the statement), so the vectors of
    # new statements and of the profile's earlier entries compare like for like.
    new_vecs = dict(zip(ids, review.embed_with().embed([embedded_text(t, t) for t in texts.values()]))) if ids else {}

    def work(tx: Tx) -> Decision:
        locked = proposals.lock(tx, pid)
        if locked.status == Status.APPLIED:
            return Decision.of(pid, KIND, Status.APPLIED, changed=False)
        if locked.status != Status.PENDING:
            raise Conflict(f"proposal {pid} is {locked.status}; only a pending proposal can be approved")
        problems = stale_members(tx, dict(p.member_versions or {}))
        if problems:
            raise Conflict(f"proposal {pid} is stale: {'; '.join(problems)} since it was made. Nothing was applied; "
                           f"reflect again (`graphcons reflect --subject {p.subject}`) and review the new proposal.")
        return _apply(tx, cfg, p, reflection, new_vecs, review)

    return review.db.write(work)  # retried whole on a deadlock; a retry sees the proposal still pending


def _apply(tx: Tx, cfg: Config, p: Proposal[ReflectionPayload], reflection: Reflection,
           new_vecs: dict[str, list[float]], review: Review) -> Decision:
    """The reflection merged into the profile, inside approve's transaction (the proposal locked, fresh)."""
    pid, by, now, rc = p.id, review.by, review.now, cfg.reflection
    namespace, subject = _scope(p)
    versions = dict(p.member_versions or {})
    old = profile.current(tx, namespace, subject)
    held = [e["id"] for c in CATEGORIES for e in old[c]]
    old_vecs = {r["id"]: r["embedding"] for r in tx.run("reflection/entry_vectors", ids=held) if r["embedding"]}
    merged = merge(old, reflection, pid, new_vecs, old_vecs, same=rc.same_statement,
                   contradiction=rc.contradiction_floor)
    for row in merged.created:  # admitted like any memory: per-subject SIMILAR edges
        admission.admit_derived(tx, cfg, _statement(cfg, namespace, subject, row, now), new_vecs[row["id"]], now,
                                **_statement_provenance(cfg, row, pid))
    review.step("memories")
    derived = _derive(tx, pid, merged, versions, by=by, now=now)
    review.step("links")
    marked = tx.run("memory/mark_consolidated", ids=sorted(set(p.cited or ()) & set(versions)), proposal_id=pid,
                    now=now)[0]["marked"]
    version = profile.save(tx, namespace, subject, {**merged.profile, "card": old["card"]}, old["version"], pid=pid,
                           change="reflect", by=by, now=now)  # the card is its own proposal's (profiles/card_kind)
    review.step("profile")
    proposals.transition(tx, pid, "pending", "applied", now=now, by=by)
    created, confirmed = [r["id"] for r in merged.created], [r["id"] for r in merged.confirmed]
    tx.run("reflection/applied", id=pid, profile_version=version, profile_version_before=old["version"],
           created_ids=created, confirmed_ids=confirmed)
    audit.record(tx, "approve", [pid, profile.key(namespace, subject), *sorted(versions)], at=now, kind=KIND,
                 by=by, subject=subject, namespace=namespace, profile_version=version, created=created,
                 confirmed=confirmed, conflicts=merged.conflicts, consolidated=marked, derived_from=derived,
                 model=p.model, prompt_hash=p.prompt_hash)
    review.step("audit")
    return Decision.of(pid, KIND, Status.APPLIED, effect=ProfileEffect(
        profile_version=version, created=created, confirmed=confirmed, consolidated=marked, derived_from=derived))


def _derive(tx: Tx, pid: str, merged: Merged, versions: dict[str, int], *, by: str, now: datetime) -> int:
    """DERIVED_FROM from each statement to the memories it cites, its justification, and the conflicts
    it flagged; how many DERIVED_FROM links were written."""
    rows = [{"id": r["id"], "created": True, "cited": [{"id": i, "version": versions[i]} for i in r["cited"]]}
            for r in merged.created]
    rows += [{"id": r["id"], "created": False, "cited": [{"id": i, "version": versions[i]} for i in r["cited"]]}
             for r in merged.confirmed]
    derived = tx.run("reflection/derive", proposal_id=pid, rows=rows, now=now)[0]["derived"] if rows else 0
    for row in rows:  # seed 002: each statement rests on the memories it cites (a confirmation: a second,
        # independent path), so a premise merged, edited or retired withdraws it in that same transaction
        justification.create(tx, row["id"], epistemics.SYNTHESIS, [{**c, "required": True} for c in row["cited"]],
                             basis=[pid], now=now, by=by, proposal_id=pid)
    if merged.conflicts:  # an open conflict contests what rests on either statement (seed 002)
        tx.run("reflection/conflicts", pairs=merged.conflicts, proposal_id=pid, now=now)
        justification.premises_changed(tx, [c[k] for c in merged.conflicts for k in ("new", "old")], op="conflict",
                                       cause=f"reflection {pid} flagged opposite statements", now=now)
    return derived


def reject(tx: Tx, p: Proposal[ReflectionPayload], review: Review) -> None:
    """Nothing of the profile changes; the same memories at the same versions are not reflected on again."""


def _statement(cfg: Config, namespace: str, subject: str, row: dict[str, Any], now: datetime) -> MemoryInput:
    """A new statement as a memory input (title == content == the statement)."""
    text = row["statement"][: cfg.admission.max_content_chars]
    return admission.derived_input(cfg, content=text, title=text, kind=Kind(CATEGORY_KIND[row["category"]]),
                                   subject=subject, namespace=namespace, source=SOURCE,
                                   importance=cfg.reflection.importance, id=row["id"], created_at=now)


def _statement_provenance(cfg: Config, row: dict[str, Any], pid: str) -> dict[str, Any]:
    return dict(epistemic_status="hypothesis", proposal_id=pid, tags=TAGS, source_type="consolidated",
                source_count=len(row["cited"]), derived_from=sorted(row["cited"]), reflection_category=row["category"],
                activation=0.0)


def revert(p: Proposal[ReflectionPayload], review: Review) -> Decision:
    """Undo an applied reflection: created memories deprecated, links kept but marked reverted,
    the memories it consolidated back to their earlier status, the profile back to its previous version."""
    pid, (namespace, subject) = p.id, _scope(p)
    later = [r["id"] for r in review.db.run("reflection/later_applied", namespace=namespace, subject=subject,
                                            profile_version=int(p.profile_version or 0))]
    if later:
        raise Conflict(f"proposal {pid}: the later reflection(s) {', '.join(later)} of {subject!r} are applied "
                       "on top of it; revert them first (newest first). Nothing was reverted.")
    done, version, restored = review.db.write(lambda tx: _revert(tx, p, review))
    return Decision.of(pid, KIND, Status.REVERTED, reason=review.reason, effect=ProfileEffect(
        profile_version=version, consolidated=restored, links_kept=done["links"]))


def _revert(tx: Tx, p: Proposal[ReflectionPayload], review: Review) -> tuple[dict[str, Any], int, int]:
    pid, by, now, reason = p.id, review.by, review.now, review.reason
    namespace, subject = _scope(p)
    proposals.transition(tx, pid, "applied", "reverted", now=now, by=by, reason=reason)
    done = tx.run("reflection/revert", proposal_id=pid, now=now, by=by, reason=reason)[0]
    cause = f"reflection {pid} reverted by {by}: {reason}"
    justification.withdraw_proposal(tx, pid, cause=cause, now=now)
    # its statements are retired: whatever rests on them (an insight over them) loses that premise
    justification.premises_changed(tx, done["retired"], op="deprecate", cause=cause, now=now)
    justification.premises_restored(tx, done["contested"], cause=cause, now=now)  # its conflicts are closed
    restored = tx.run("memory/unmark_consolidated", ids=sorted(p.member_versions or {}), proposal_id=pid,
                      now=now)[0]["restored"]
    cur = profile.current(tx, namespace, subject)
    before = int(p.profile_version_before or 0)
    if before:
        rows = tx.run("profile/version", key=cur["key"], version=before)
        fields = profile.decode_version(rows[0]["version"])
    else:
        fields = profile.empty(namespace, subject)
    fields["card"] = cur["card"]  # a card approved since stays (reverting a card is its own proposal's)
    version = profile.save(tx, namespace, subject, fields, cur["version"], pid=pid,
                           change=f"revert to version {before}", by=by, now=now)
    audit.record(tx, "revert", [pid, cur["key"]], at=now, kind=KIND, by=by, reason=reason,
                 profile_version=version, restored_version=before, deprecated=done["deprecated"],
                 links_kept=done["links"], unconsolidated=restored)
    return done, version, restored

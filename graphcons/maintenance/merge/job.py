"""The merge job (seed 003, deferred operation 1): find near-duplicates and queue them.

Candidates: for each live memory, the vector index's nearest neighbours, kept only within
the same subject AND namespace (never across them) and live; the best `[merge] top_k`.
Never all pairs. Each pair is decided in stages (merge.score: seed score, difference check,
verifier); a pair scoring >= `[merge] threshold` ends as one of:
- `conflict`: the texts differ in meaning; a `(a)-[:CONFLICTS_WITH {status: 'open', reasons}]->(b)`
  link for review, never a merge;
- `duplicate`: a merge proposal `(:Proposal {kind: 'merge', status: 'pending'})` in the one
  review queue; with `[merge] auto_apply = true` a pair at or over `auto_apply_at` is applied
  at once (merge.review applies it) and one under it is still only proposed;
- `near_paraphrase_with_difference`: a `(a)-[:RELATED {source: 'merge'}]->(b)` link (with
  `[merge] related_links`), not a merge;
- `nothing`.
A pair with a proposal of any status, a conflict link or a RELATED link is never proposed
again, so a second run changes nothing. The proposal's payload records every stage's figures.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any, Callable, Iterator

from graphcons.core import audit
from graphcons.core.config import Config, MergeConfig
from graphcons.core.db import Database
from graphcons.core.errors import Conflict
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import require_aware
from graphcons.maintenance.merge import review, verifiers, verify
from graphcons.maintenance.merge.score import CONFLICT, DUPLICATE, PENDING, RELATED, Pair, rule_text, score_pair
from graphcons.store import justification, proposals


def candidate_pairs(db: Database, cfg: Config, *, progress: Callable[[int], None] | None = None,
                    namespace: str | None = None, subject: str | None = None,
                    verifier: verify.Verifier | None = None) -> Iterator[Pair]:
    """Every scored candidate pair (any score), each once, in page order; optionally one namespace / subject.
    `verifier`: the one of this pass (default: `[merge] verifier` without a per-pass budget)."""
    mcfg = cfg.merge
    seen: set[tuple[str, str]] = set()
    after: str | None = None
    cache: dict[str, dict[str, Any]] = {}
    while True:
        rows = db.run("merge/candidates", live=list(LIVE_STATUSES), after=after, limit=mcfg.batch_size,
                      width=max(mcfg.search_width, mcfg.top_k + 1), k=mcfg.top_k, namespace=namespace,
                      subject=subject)
        if not rows:
            break
        after = rows[-1]["memory"]["id"]
        page = {r["memory"]["id"]: r["memory"] for r in rows}
        wanted = sorted({n["id"] for r in rows for n in r["neighbours"]} - page.keys() - cache.keys())
        if wanted:
            for r in db.run("merge/memories", ids=wanted):
                cache[r["memory"]["id"]] = r["memory"]
        for r in rows:
            ma = r["memory"]
            for n in r["neighbours"]:
                key = tuple(sorted((ma["id"], n["id"])))
                if key in seen:
                    continue
                seen.add(key)
                mb = page.get(n["id"]) or cache.get(n["id"])
                if mb is not None:
                    yield score_pair(ma, mb, float(n["cosine"]), mcfg, verifier)
        cache = {k: v for k, v in cache.items() if k > after}  # later pages may still need them
        if progress:
            progress(len(rows))


# -- the job ----------------------------------------------------------------------------------
def run(db: Database, cfg: Config, *, now: datetime, dry_run: bool = True, run_id: str | None = None,
        auto_apply: bool | None = None, progress: Callable[[int], None] | None = None,
        namespace: str | None = None, subject: str | None = None) -> dict[str, Any]:
    """One merge pass. Dry run: report what would be proposed, applied, flagged or linked, in the same
    shape as a run that writes; write nothing. `namespace` / `subject` limit the pass like the cluster scan."""
    require_aware(now)
    mcfg = cfg.merge
    auto = mcfg.auto_apply if auto_apply is None else auto_apply
    run_id = run_id or audit.new_run_id("merge")
    verifier = verifiers.for_run(cfg, db=db, now=now, run_id=run_id, dry_run=dry_run)
    over = [p for p in candidate_pairs(db, cfg, progress=progress, namespace=namespace, subject=subject,
                                       verifier=verifier) if p.score >= mcfg.threshold]
    over.sort(key=lambda p: (-p.score, p.a, p.b))
    known = {}
    for start in range(0, len(over), 1000):
        chunk = over[start : start + 1000]
        for row in db.run("merge/known_pairs", pairs=[{"proposal_id": p.proposal_id, "a": p.a, "b": p.b}
                                                       for p in chunk]):
            known[row["proposal_id"]] = row
    proposed, applied, flagged, skipped, related = [], [], [], [], []
    retired: set[str] = set()  # losers of this run: a later pair touching one waits for the next run
    for p in over:
        k = known.get(p.proposal_id, {})
        if k.get("proposal_status") or k.get("conflict") or k.get("related"):
            continue  # already handled in an earlier run
        if p.a in retired or p.b in retired:
            skipped.append(asdict(p))
            continue
        if p.outcome == RELATED:
            related.append(asdict(p))
            if not dry_run and mcfg.related_links:
                with db.transaction() as tx:
                    tx.run("merge/related", a=p.a, b=p.b, score=p.score, p_duplicate=p.p_duplicate,
                           only_a=p.only_winner if p.winner == p.a else p.only_loser,
                           only_b=p.only_loser if p.winner == p.a else p.only_winner, now=now, run_id=run_id)
                    audit.record(tx, "merge_related", [p.a, p.b], run_id=run_id, at=now, score=p.score,
                                 p_duplicate=p.p_duplicate, propose_at=mcfg.propose_at,
                                 rule="near paraphrase with a difference: linked RELATED, not merged")
            continue
        if p.outcome == CONFLICT:
            flagged.append(asdict(p))
            if not dry_run:
                with db.transaction() as tx:
                    contests = p.score >= mcfg.contest_at
                    tx.run("merge/conflict", a=p.a, b=p.b, reasons=p.contradictions, score=p.score, now=now,
                           run_id=run_id, contests=contests)
                    audit.record(tx, "merge_conflict", [p.a, p.b], run_id=run_id, at=now,
                                 rule="contradiction guard: " + ", ".join(p.contradictions), score=p.score,
                                 title_sim=p.title_sim, cosine=p.cosine, threshold=mcfg.threshold,
                                 opposites=p.opposites)
                    if contests:
                        justification.premises_changed(tx, [p.a, p.b], op="conflict", now=now, run_id=run_id,
                                                       cause=f"open CONFLICTS_WITH between {p.a} and {p.b}: "
                                                             + ", ".join(p.contradictions))
            continue
        if p.outcome != DUPLICATE:
            continue
        # issue 13: a member an insight rests on is never merged away without review
        if auto and p.auto_apply_ok and not justification.rested_on(db, p.loser):
            applied.append(asdict(p))
            retired.add(p.loser)
            if not dry_run:
                try:
                    with db.transaction() as tx:
                        _propose(tx, p, now, run_id, mcfg)
                        locked = proposals.lock(tx, p.proposal_id)
                        if locked["status"] == "pending":  # another worker or a reviewer may have settled it
                            review.apply(tx, locked, now=now, run_id=run_id, by="auto")
                except Conflict:  # a memory of the pair was merged elsewhere meanwhile: nothing written
                    applied.pop()
                    skipped.append(asdict(p))
        else:
            proposed.append(asdict(p))
            if not dry_run:
                with db.transaction() as tx:
                    _propose(tx, p, now, run_id, mcfg)
                    audit.record(tx, "merge_proposed", [p.winner, p.loser], run_id=run_id, at=now,
                                 proposal=p.proposal_id, rule=rule_text(p, mcfg), score=p.score)
    report = {"job": "merge", "run_id": run_id, "dry_run": dry_run, "now": now.isoformat(),
              "namespace": namespace, "subject": subject,
              "auto_apply": auto, "threshold": mcfg.threshold, "verifier": mcfg.verifier,
              "propose_at": mcfg.propose_at, "auto_apply_at": mcfg.auto_apply_at, "over_threshold": len(over),
              "proposed": proposed, "applied": applied, "conflicts": flagged, "related": related,
              "deferred": skipped, "pending": [asdict(p) for p in over if p.outcome == PENDING]}
    if not dry_run:
        audit.record_run(db, "merge", run_id, now, {k: (len(v) if isinstance(v, list) else v) for k, v in report.items()})
    return report


def _propose(tx: Any, p: Pair, now: datetime, run_id: str, cfg: MergeConfig) -> bool:
    payload = {**asdict(p), "threshold": cfg.threshold, "title_weight": cfg.title_weight,
               "content_weight": cfg.content_weight, "propose_at": cfg.propose_at, "auto_apply_at": cfg.auto_apply_at,
               "rule_text": rule_text(p, cfg),
               # what the loser says that the winner does not: kept only on the (addressable) loser after a
               # merge; a reviewer may first edit the winner to carry it
               "loser_adds": p.only_loser,
               "suggested_edit": "" if not p.only_loser else "edit the winner to keep the loser's "
                                 + ", ".join(p.only_loser) + " before approving"}
    props = {"id": p.proposal_id, "kind": review.KIND, "created_at": now, "run_id": run_id,
             "memory_ids": [p.winner, p.loser], "namespace": p.namespace, "subject": p.subject,
             "title": f"merge {p.loser} into {p.winner} ({p.score:.3f})", "payload": json.dumps(payload, sort_keys=True)}
    return proposals.create(tx, props, [{"id": p.winner, "version": p.versions[0]},
                                        {"id": p.loser, "version": p.versions[1]}])

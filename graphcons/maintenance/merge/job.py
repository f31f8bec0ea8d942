"""The merge job (seed 003, deferred operation 1): find near-duplicates and queue them.

Candidates: for each live memory, the vector index's nearest neighbours, kept only within
the same subject AND namespace (never across them) and live; the best `[merge] top_k`.
Never all pairs. Each pair is scored (merge.score) and checked by the contradiction guard
(merge.guard). A pair scoring >= `[merge] threshold` is:
- flagged, not merged, when the guard finds the texts disagree: a
  `(a)-[:CONFLICTS_WITH {status: 'open', reasons}]->(b)` link for review;
- otherwise a merge proposal `(:Proposal {kind: 'merge', status: 'pending'})` in the one
  review queue, or applied at once when `[merge] auto_apply = true` (merge.review applies it).
A pair with a proposal of any status or a conflict link is never proposed again, so a
second run changes nothing.
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
from graphcons.maintenance.merge import review
from graphcons.maintenance.merge.score import Pair, rule_text, score_pair
from graphcons.store import proposals


def candidate_pairs(db: Database, cfg: Config, *, progress: Callable[[int], None] | None = None) -> Iterator[Pair]:
    """Every scored candidate pair (any score), each once, in page order."""
    mcfg = cfg.merge
    seen: set[tuple[str, str]] = set()
    after: str | None = None
    cache: dict[str, dict[str, Any]] = {}
    while True:
        rows = db.run("merge/candidates", live=list(LIVE_STATUSES), after=after, limit=mcfg.batch_size,
                      width=max(mcfg.search_width, mcfg.top_k + 1), k=mcfg.top_k)
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
                    yield score_pair(ma, mb, float(n["cosine"]), mcfg)
        cache = {k: v for k, v in cache.items() if k > after}  # later pages may still need them
        if progress:
            progress(len(rows))


# -- the job ----------------------------------------------------------------------------------
def run(db: Database, cfg: Config, *, now: datetime, dry_run: bool = True, run_id: str | None = None,
        auto_apply: bool | None = None, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """One merge pass. Dry run: report what would be proposed, applied or flagged; write nothing."""
    require_aware(now)
    mcfg = cfg.merge
    auto = mcfg.auto_apply if auto_apply is None else auto_apply
    run_id = run_id or audit.new_run_id("merge")
    over = [p for p in candidate_pairs(db, cfg, progress=progress) if p.score >= mcfg.threshold]
    over.sort(key=lambda p: (-p.score, p.a, p.b))
    known = {}
    for start in range(0, len(over), 1000):
        chunk = over[start : start + 1000]
        for row in db.run("merge/known_pairs", pairs=[{"proposal_id": p.proposal_id, "a": p.a, "b": p.b}
                                                       for p in chunk]):
            known[row["proposal_id"]] = row
    proposed, applied, flagged, skipped = [], [], [], []
    retired: set[str] = set()  # losers of this run: a later pair touching one waits for the next run
    for p in over:
        k = known.get(p.proposal_id, {})
        if k.get("proposal_status") or k.get("conflict"):
            continue  # already handled in an earlier run
        if p.a in retired or p.b in retired:
            skipped.append(asdict(p))
            continue
        if p.contradictions:
            flagged.append(asdict(p))
            if not dry_run:
                with db.transaction() as tx:
                    tx.run("merge/conflict", a=p.a, b=p.b, reasons=p.contradictions, score=p.score, now=now,
                           run_id=run_id)
                    audit.record(tx, "merge_conflict", [p.a, p.b], run_id=run_id, at=now,
                                 rule="contradiction guard: " + ", ".join(p.contradictions), score=p.score,
                                 title_sim=p.title_sim, cosine=p.cosine, threshold=mcfg.threshold)
            continue
        if auto:
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
              "auto_apply": auto, "threshold": mcfg.threshold, "over_threshold": len(over),
              "proposed": proposed, "applied": applied, "conflicts": flagged, "deferred": skipped}
    if not dry_run:
        audit.record_run(db, "merge", run_id, now, {k: (len(v) if isinstance(v, list) else v) for k, v in report.items()})
    return report


def _propose(tx: Any, p: Pair, now: datetime, run_id: str, cfg: MergeConfig) -> bool:
    payload = {**asdict(p), "threshold": cfg.threshold, "title_weight": cfg.title_weight,
               "content_weight": cfg.content_weight, "rule_text": rule_text(p, cfg)}
    props = {"id": p.proposal_id, "kind": review.KIND, "created_at": now, "run_id": run_id,
             "memory_ids": [p.winner, p.loser], "namespace": p.namespace, "subject": p.subject,
             "title": f"merge {p.loser} into {p.winner} ({p.score:.3f})", "payload": json.dumps(payload, sort_keys=True)}
    return proposals.create(tx, props, [{"id": p.winner, "version": p.versions[0]},
                                        {"id": p.loser, "version": p.versions[1]}])

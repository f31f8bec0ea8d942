"""The merge job (seed 003, deferred operation 1): find near-duplicates and queue them.

Candidates: for each live memory, its `[merge] top_k` nearest live memories by cosine within
the same subject AND namespace (never across them), ties by id. Since issue 15 they are found
block by block (merge.blocking: each subject's similarities computed on the server, exact),
not by one vector-index query per memory (`index_candidate_pairs`, the reference kept for
comparison and for blocks too large to compare all pairs). Never all pairs of the store. The
pass builds and decides only pairs at or over the candidate floor and writes its decisions in
batches (one transaction per `WRITE_BATCH` pairs, one audit record per pair). Each pair is decided in stages (merge.score: seed score, difference check,
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
again, so a second run changes nothing. A pair where one memory is derived from the other (an
insight and a member, a reflection's statement and a memory it cites, a justification's premise)
is no candidate at all (`derived` in the report; issue 41): merging them would retire a premise
into its own conclusion. Nor is any pair with a memory derived from others (`conclusions` in the
report; issue 50): a statement or insight merged into a sibling memory would add its premises'
evidence to it a second time. The proposal's payload records every stage's figures.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, ClassVar, Iterator

from graphcons.core import audit
from graphcons.core.config import Config, MergeConfig
from graphcons.core.db import Database, Rows
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.report import PassReport
from graphcons.core.time import require_aware
from graphcons.maintenance.merge import blocking, review, verifiers, verify
from graphcons.maintenance.merge.guard import compare_title
from graphcons.maintenance.merge.score import (CONFLICT, DUPLICATE, PENDING, RELATED, Pair, fold, folded_similarity,
                                               rule_text, score_pair, seed_score)
from graphcons.store import justification, proposals, schema

log = logging.getLogger("graphcons.merge")


def candidate_pairs(db: Database, cfg: Config, *, progress: Callable[[int], None] | None = None,
                    namespace: str | None = None, subject: str | None = None,
                    floor: float | None = None, verifier: verify.Verifier | None = None,
                    scopes: list[dict[str, str]] | None = None) -> Iterator[Pair]:
    """Every scored candidate pair, each once, block by block (merge.blocking: exact nearest
    neighbours inside each namespace + subject); optionally one namespace / subject. With `floor`,
    a pair whose seed score is under it is dropped unbuilt (the pass decides only the others).
    `verifier`: the one of this pass (default: `[merge] verifier` without a per-pass budget).
    `scopes` ([{namespace, subject}]): only these blocks (an incremental pass over dirty scopes)."""
    mcfg = cfg.merge
    if scopes is not None:
        rows = db.run("merge/blocks_of", live=LIVE_STATUSES,
                      scopes=[{"namespace": s["namespace"], "subject": s["subject"]} for s in scopes])
    else:
        rows = db.run("merge/blocks", live=LIVE_STATUSES, namespace=namespace, subject=subject)
    blocks = sorted((r["namespace"], r["subject"], sorted(r["ids"])) for r in rows)
    batch: list[list[str]] = []
    size = 0
    for n, (ns, subj, ids) in enumerate(blocks):
        if len(ids) > blocking.EXACT_BLOCK_MAX:  # too large to compare all pairs: the index, as before
            if schema.vector_index_online(db):
                yield from index_candidate_pairs(db, cfg, namespace=ns, subject=subj, verifier=verifier)
            else:  # being rebuilt (maintenance.vector_index): this block waits for the next pass
                log.warning("merge: block %s/%s (%d memories) skipped: the vector index is not online", ns, subj, len(ids))
            if progress:
                progress(len(ids))
        elif len(ids) > 1:
            batch.append(ids)
            size += len(ids)
        elif progress:
            progress(1)  # one memory: no pair
        if batch and (size >= mcfg.batch_size or n == len(blocks) - 1):
            # Values only (maps, lists, numbers): Rows.VALUES skips Record.data()'s walk over every
            # cosine, half of a triggered pass over 100 dirty blocks of ~120 at 1M (issue 33).
            for row in db.run("merge/block_pairs", Rows.VALUES, blocks=batch):
                yield from _block_pairs(row["members"], row["sims"], mcfg, floor, verifier)
            if progress:
                progress(size)
            batch, size = [], 0


def _block_pairs(members: list[dict[str, Any]], sims: list[list[float]], mcfg: MergeConfig,
                 floor: float | None, verifier: verify.Verifier | None) -> Iterator[Pair]:
    cos = blocking.cosine_matrix(sims)
    titles = [fold(compare_title(m)[0]) for m in members] if floor is not None else []
    for i, j in blocking.top_k_pairs(cos, [m["id"] for m in members], mcfg.top_k):
        cosine = float(cos[i, j])
        if floor is not None and seed_score(folded_similarity(titles[i], titles[j]), cosine, mcfg) < floor:
            continue
        yield score_pair(members[i], members[j], cosine, mcfg, verifier)


def index_candidate_pairs(db: Database, cfg: Config, *, progress: Callable[[int], None] | None = None,
                          namespace: str | None = None, subject: str | None = None,
                          floor: float | None = None, verifier: verify.Verifier | None = None) -> Iterator[Pair]:
    """The reference definition the pass used before issue 15, kept to compare against (tests,
    bench/merge/speed.py): per live memory, one vector-index query for its `search_width` nearest
    memories, filtered to the same subject + namespace and live, the best `top_k` kept. Same
    pairs as `candidate_pairs` where the index finds every block member's true neighbours;
    its cosine is the index's float32 figure. `floor` is accepted and ignored (all are scored)."""
    mcfg = cfg.merge
    seen: set[tuple[str, str]] = set()
    after: str | None = None
    cache: dict[str, dict[str, Any]] = {}
    while True:
        rows = db.run("merge/candidates", live=LIVE_STATUSES, after=after, limit=mcfg.batch_size,
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
WRITE_BATCH = 500  # decided pairs written per transaction


def run(db: Database, cfg: Config, *, now: datetime, dry_run: bool = True, run_id: str | None = None,
        auto_apply: bool | None = None, progress: Callable[[int], None] | None = None,
        namespace: str | None = None, subject: str | None = None,
        candidates: Callable[..., Iterator[Pair]] | None = None,
        scopes: list[dict[str, str]] | None = None) -> "MergeReport":
    """One merge pass. Dry run: report what would be proposed, applied, flagged or linked, in the same
    shape as a run that writes; write nothing. `namespace` / `subject` limit the pass like the cluster scan.
    `candidates` replaces the candidate definition (`index_candidate_pairs`: the reference one).
    `scopes` ([{namespace, subject}]): an incremental pass over only these blocks (the worker passes the
    dirty scopes when admissions triggered the run); pairs never cross a block, so in those scopes it
    decides exactly what a full pass decides."""
    require_aware(now)
    mcfg = cfg.merge
    auto = mcfg.auto_apply if auto_apply is None else auto_apply
    run_id = run_id or audit.new_run_id("merge")
    verifier = verifiers.for_run(cfg, db=db, now=now, run_id=run_id, dry_run=dry_run)
    extra = {"scopes": scopes} if scopes is not None else {}
    pairs = (candidates or candidate_pairs)(db, cfg, progress=progress, namespace=namespace, subject=subject,
                                            floor=mcfg.threshold, verifier=verifier, **extra)
    over = [p for p in pairs if p.score >= mcfg.threshold]
    over.sort(key=lambda p: (-p.score, p.a, p.b))
    known = _known_pairs(db, over)
    proposed, applied, flagged, skipped, related, derived, conclusions = _decide(
        db, over, known, auto=auto, dry_run=dry_run, now=now, run_id=run_id, mcfg=mcfg)
    report = MergeReport(
        run_id=run_id, dry_run=dry_run, now=now.isoformat(), namespace=namespace, subject=subject, auto_apply=auto,
        threshold=mcfg.threshold, verifier=mcfg.verifier, propose_at=mcfg.propose_at, auto_apply_at=mcfg.auto_apply_at,
        over_threshold=len(over), proposed=proposed, applied=applied, conflicts=flagged, related=related,
        deferred=skipped, derived=derived, conclusions=conclusions,
        pending=[p for p in over if p.outcome == PENDING
                 and not any(known.get(p.proposal_id, {}).get(f) for f in ("lineage", "conclusion"))],
        # verdicts not acted on: the verifier's own answers or the rules stage contradicted them
        refused=[p for p in over if p.refused])
    if not dry_run:
        audit.record_run(db, "merge", run_id, now, report.counts())
    return report


@dataclass(frozen=True)
class MergeReport(PassReport):
    """What a merge pass did (or a dry run would do), each pair as it was decided: one wire shape,
    `to_dict` (each pair's `as_dict`), for every door. `conflicts`: pairs the guard kept apart;
    `deferred`: a pair touching a memory this run merged away (the next run decides it); `derived` /
    `conclusions`: pairs never merged (issues 41, 50); `pending`: the verifier gave no verdict yet."""

    auto_apply: bool
    threshold: float
    verifier: str
    propose_at: float
    auto_apply_at: float
    over_threshold: int
    proposed: list[Pair]
    applied: list[Pair]
    conflicts: list[Pair]
    related: list[Pair]
    deferred: list[Pair]
    derived: list[Pair]
    conclusions: list[Pair]
    pending: list[Pair]
    refused: list[Pair]
    job: ClassVar[str] = "merge"


def _known_pairs(db: Database, over: list[Pair]) -> dict[str, dict[str, Any]]:
    """What the store already holds for each pair, by proposal id: its proposal's status, a conflict or merge
    RELATED link, whether one is derived from the other or either from other memories. 1000 pairs per query."""
    known = {}
    for start in range(0, len(over), 1000):
        chunk = over[start : start + 1000]
        for row in db.run("merge/known_pairs", pairs=[{"proposal_id": p.proposal_id, "a": p.a, "b": p.b}
                                                       for p in chunk]):
            known[row["proposal_id"]] = row
    return known


def _decide(db: Database, over: list[Pair], known: dict[str, dict[str, Any]], *, auto: bool, dry_run: bool,
            now: datetime, run_id: str, mcfg: MergeConfig) -> tuple[list[Pair], ...]:
    """Act on each pair over the threshold, best first: (proposed, applied, flagged, skipped, related, derived,
    conclusions). Decisions are written WRITE_BATCH at a time, in order (nothing with `dry_run`); an
    auto-applied pair is written in its own transaction, after the ones decided before it."""
    proposed: list[Pair] = []
    applied: list[Pair] = []
    flagged: list[Pair] = []
    skipped: list[Pair] = []
    related: list[Pair] = []
    derived: list[Pair] = []
    conclusions: list[Pair] = []
    retired: set[str] = set()  # losers of this run: a later pair touching one waits for the next run
    pending: list[tuple[str, Pair]] = []  # decided, not yet written: written WRITE_BATCH at a time, in order

    def flush() -> None:
        if pending and not dry_run:
            db.write(lambda tx: _write(tx, pending, now, run_id, mcfg))
        pending.clear()

    for p in over:
        k = known.get(p.proposal_id, {})
        if k.get("proposal_status") or k.get("conflict") or k.get("related"):
            continue  # already handled in an earlier run
        if k.get("lineage") or k.get("conclusion"):  # not two copies of one memory; no evidence twice (issue 50)
            (derived if k.get("lineage") else conclusions).append(p)
            continue
        if p.a in retired or p.b in retired:
            skipped.append(p)
            continue
        if p.outcome == RELATED:
            related.append(p)
            if mcfg.related_links:
                pending.append(("related", p))
        elif p.outcome == CONFLICT:
            flagged.append(p)
            pending.append(("conflict", p))
        elif p.outcome != DUPLICATE:
            continue
        elif auto and p.auto_apply_ok and _unless_rested_on(db, p.loser, flush):
            retired.add(p.loser)
            (applied if dry_run or _auto_apply(db, p, now, run_id, mcfg) else skipped).append(p)
        else:
            proposed.append(p)
            pending.append(("proposed", p))
        if len(pending) >= WRITE_BATCH:
            flush()
    flush()
    return proposed, applied, flagged, skipped, related, derived, conclusions


def _auto_apply(db: Database, p: Pair, now: datetime, run_id: str, cfg: MergeConfig) -> bool:
    """Propose and apply one pair in one transaction; False when a memory of the pair was merged
    elsewhere meanwhile (nothing written)."""
    return proposals.propose_and_apply(db, p.proposal_id, lambda tx: _propose(tx, p, now, run_id, cfg),
                                       lambda tx, locked: review.apply(tx, locked, now=now, run_id=run_id, by="auto"),
                                       {review.KIND: review.MergePayload})


def _unless_rested_on(db: Database, loser: str, flush: Callable[[], None]) -> bool:
    """Issue 13: a member an insight rests on is never merged away without review. The pairs decided
    before are written first (a conflict may withdraw the insight this reads), as one at a time did."""
    flush()
    return not justification.rested_on(db, loser)


def _write(tx: Any, decided: list[tuple[str, Pair]], now: datetime, run_id: str, cfg: MergeConfig) -> None:
    """Write decided pairs in one transaction, a few statements for all of them: RELATED links,
    CONFLICTS_WITH links, pending proposals, one audit record per pair (as one pair at a time did)."""
    rel = [p for kind, p in decided if kind == "related"]
    con = [p for kind, p in decided if kind == "conflict"]
    pro = [p for kind, p in decided if kind == "proposed"]
    records = []
    if rel:
        tx.run("merge/related_many", now=now, run_id=run_id, rows=[
            {"a": p.a, "b": p.b, "score": p.score, "p_duplicate": p.p_duplicate,
             "only_a": p.only_winner if p.winner == p.a else p.only_loser,
             "only_b": p.only_loser if p.winner == p.a else p.only_winner} for p in rel])
        records += [("merge_related", [p.a, p.b], {"score": p.score, "p_duplicate": p.p_duplicate,
                     "propose_at": cfg.propose_at,
                     "rule": "near paraphrase with a difference: linked RELATED, not merged",
                     "kept_apart": p.apart}) for p in rel]
    if con:
        tx.run("merge/conflict_many", now=now, run_id=run_id, rows=[
            {"a": p.a, "b": p.b, "reasons": p.contradictions, "score": p.score, "contests": p.score >= cfg.contest_at}
            for p in con])
        records += [("merge_conflict", [p.a, p.b], {"rule": "contradiction guard: " + ", ".join(p.contradictions),
                     "score": p.score, "title_sim": p.title_sim, "cosine": p.cosine, "threshold": cfg.threshold,
                     "opposites": p.opposites}) for p in con]
    if pro:
        proposals.create_many(tx, [(_proposal_props(p, now, run_id, cfg),
                                    [{"id": p.winner, "version": p.versions[0]},
                                     {"id": p.loser, "version": p.versions[1]}]) for p in pro])
        records += [("merge_proposed", [p.winner, p.loser], {"proposal": p.proposal_id, "rule": rule_text(p, cfg),
                     "score": p.score}) for p in pro]
    audit.record_many(tx, [(op, targets, now, details) for op, targets, details in records], run_id=run_id)
    for p in con:
        if p.score >= cfg.contest_at:
            justification.premises_changed(tx, [p.a, p.b], op="conflict", now=now, run_id=run_id,
                                           cause=f"open CONFLICTS_WITH between {p.a} and {p.b}: "
                                                 + ", ".join(p.contradictions))


def _propose(tx: Any, p: Pair, now: datetime, run_id: str, cfg: MergeConfig) -> bool:
    return proposals.create(tx, _proposal_props(p, now, run_id, cfg), [{"id": p.winner, "version": p.versions[0]},
                                                                       {"id": p.loser, "version": p.versions[1]}])


def _proposal_props(p: Pair, now: datetime, run_id: str, cfg: MergeConfig) -> dict[str, Any]:
    payload = {**p.as_dict(), "threshold": cfg.threshold, "title_weight": cfg.title_weight,
               "content_weight": cfg.content_weight, "propose_at": cfg.propose_at, "auto_apply_at": cfg.auto_apply_at,
               "rule_text": rule_text(p, cfg),
               # what the loser says that the winner does not: kept only on the (addressable) loser after a
               # merge; a reviewer may first edit the winner to carry it
               "loser_adds": p.only_loser,
               "suggested_edit": "" if not p.only_loser else "edit the winner to keep the loser's "
                                 + ", ".join(p.only_loser) + " before approving"}
    return {"id": p.proposal_id, "kind": review.KIND, "created_at": now, "run_id": run_id,
            "memory_ids": [p.winner, p.loser], "namespace": p.namespace, "subject": p.subject,
            "title": f"merge {p.loser} into {p.winner} ({p.score:.3f})", "payload": json.dumps(payload, sort_keys=True)}

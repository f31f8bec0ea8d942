"""The job table: every deferred operation as a named job (seeds 003 and 004).

Each runner takes (db, cfg, now, ctx) and returns its counts; `ctx.checkpoint()` is called
between pages / clusters and raises when the worker must stop (SIGTERM, lease lost), so a
job stops only between two transactions. Every job is idempotent or resumable:
- merge: pairs with a proposal or conflict link are skipped; propose (+ apply) is one transaction;
- updates: pairs with an update proposal of any status or a SUPERSEDES edge are skipped (proposal
  ids are digests of the pair); propose (+ apply) is one transaction; a triggered run reads only the
  dirty blocks (issue 62);
- weights / decay: recomputes from the memories' state at `now`, writes only changed ones;
- promote / deprecate: conditional per-memory writes (a promoted one is no longer proposed);
- consolidate: deterministic proposal ids, SynthesisTask records, budget reservations per
  membership (a killed synthesis resumes its reservation);
- precompute: skips insights already precomputed at their version;
- reflect: a reflection proposal's id is a digest of its entity and the shown memories' versions
  (the same memories are never reflected on twice), consolidated memories no longer count
  toward the thresholds, and a budget-deferred entity stays due for the next run;
- index: probes the vector index and rebuilds it only when slow (its readers scan exactly meanwhile);
- cards: a card proposal's id is a digest of its subject and its members' versions (an unchanged
  subject is never proposed twice); without the cards extra it reports that and writes nothing;
- keys: keys the memories not read in their current version, a batch per transaction (key ids are
  digests of memory, version and place: a rerun writes nothing new; store/keys);
- event_time: reads the event times of memories the current resolver has not read, a page per
  transaction, marking each (store/eventtimes; admission and edits store their own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from graphcons.consolidation import consolidate as consolidation
from graphcons.consolidation.budget import Budget
from graphcons.consolidation.precompute import precompute
from graphcons.core.config import Config, JobConfig
from graphcons.core.db import Database
from graphcons.core.embedders import make_embedder
from graphcons.maintenance import deprecation, promotion, vector_index, weights
from graphcons.maintenance.merge import job as merge_job
from graphcons.maintenance.updates import job as updates_job
from graphcons.profiles import card_items, card_pass, reflect
from graphcons.store import eventtimes, keys


@dataclass
class Context:
    run_id: str
    checkpoint: Callable[[], None] = lambda: None
    notes: list[str] = field(default_factory=list)  # what the one-line log should say besides counts
    # The dirty (namespace, subject) scopes when admissions triggered the run (None: a full pass, as on
    # schedule, on first run or by hand). Jobs that can work incrementally touch only these.
    scopes: list[dict[str, str]] | None = None


Runner = Callable[[Database, Config, datetime, Context], dict[str, Any]]


def _lens(report: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: (len(report[k]) if isinstance(report[k], list) else report[k]) for k in keys}


def _merge(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    r = merge_job.run(db, cfg, now=now, dry_run=False, run_id=ctx.run_id, progress=lambda n: ctx.checkpoint(),
                      scopes=ctx.scopes)
    counts = _lens(r.to_dict(), "over_threshold", "proposed", "applied", "conflicts", "deferred", "pending")
    return {**counts, "scopes": "all" if ctx.scopes is None else len(ctx.scopes)}


def _updates(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    r = updates_job.run(db, cfg, now=now, dry_run=False, run_id=ctx.run_id, progress=lambda n: ctx.checkpoint(),
                        scopes=ctx.scopes)
    return _lens(r.to_dict(), "found", "proposed", "applied", "known", "scopes", "blocks", "memories")


def _cards(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    if not card_items.available():
        ctx.notes.append(f"skipped: {card_items.ParserMissing()}")
        return {"proposed": 0}
    r = card_pass.run(db, now=now, dry_run=False, run_id=ctx.run_id, progress=lambda n: ctx.checkpoint())
    return {**_lens(r.to_dict(), "proposed", "known"), "subjects": r.subjects}


def _promote(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    r = promotion.run(db, cfg, now=now, dry_run=False, run_id=ctx.run_id, progress=lambda n: ctx.checkpoint())
    return _lens(r, "promoted", "still_proposed")


def _weights(job: str) -> Runner:
    def run(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
        r = weights.recompute(db, cfg, now=now, dry_run=False, run_id=ctx.run_id, job=job,
                              progress=lambda n: ctx.checkpoint())
        return _lens(r, "scanned", "changed", "below_deprecation_weight")
    return run


def _deprecate(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    return _lens(deprecation.run(db, cfg, now=now, dry_run=False, run_id=ctx.run_id), "deprecated", "archived")


def _consolidate(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    jc = cfg.jobs.consolidate
    budget = Budget.for_run(db, cfg, now, max_calls=jc.llm_budget, max_syntheses=jc.max_items)
    scopes = _consolidate_scopes(cfg, ctx)
    r = consolidation.consolidate(db, cfg, now=now, run_id=ctx.run_id, budget=budget, scopes=scopes,
                                  progress=lambda i, n, o: ctx.checkpoint())
    scanned = (r.scan or {}).get("scanned", [])
    if scopes is not None:
        ctx.notes.append("scanned " + "; ".join(
            f"{s['namespace']}: " + ("the whole namespace" if s["subjects"] is None else f"{len(s['subjects'])} subject(s)")
            for s in scanned) + f" for {len(scopes)} dirty scope(s)")
    ctx.notes.extend(m for m in (r.message, r.pending) if m)
    counts = r.to_dict()["counts"]
    return {"enabled": r.enabled, "dry_run": r.dry_run, "accepted": (r.scan or {}).get("accepted", 0), **counts,
            "llm_calls": r.budget.get("llm_calls", 0), "scopes": "all" if scopes is None else len(scopes),
            "subjects_scanned": _subjects_scanned(scopes, scanned)}


def _subjects_scanned(scopes: list[dict] | None, scanned: list[dict]) -> int | str:
    if scopes is None:
        return "all"
    if any(s["subjects"] is None for s in scanned):  # a closure that reached past closure.MAX_SUBJECTS
        return "whole namespace"
    return sum(len(s["subjects"]) for s in scanned)


def _consolidate_scopes(cfg: Config, ctx: Context) -> list[dict] | None:
    """A triggered run scans only the dirty subjects and the subjects the fused graph joins to them
    (graphcons.consolidation.closure): label propagation decides each connected part of the graph
    alone (nodes in id order, ties by a per-memory weight), so clusters, decisions and proposals
    there are the full pass's (tests/test_incremental_jobs.py). Leiden's resolution is derived from
    the whole projection, so its runs stay full passes; the schedule's full pass stays the safety
    net either way."""
    if ctx.scopes is None or cfg.consolidation.algorithm != "label_propagation":
        return None  # a full pass
    return ctx.scopes


def _reflect(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    """Seed 004's weekly reflection: every entity with >= 10 unconsolidated memories (>= 50 for
    the namespace-wide subjects) gets one `reflect` proposal in the review queue, within the
    daily cap and [jobs.reflect]'s per-namespace limits. The embedder is loaded only when
    [reflection] auto_apply stores the semantic memories at once."""
    jr = cfg.jobs.reflect
    embedder = make_embedder(cfg.embedding) if cfg.reflection.auto_apply else None
    r = reflect.reflect_due(db, cfg, embedder, now=now, run_id=ctx.run_id,
                               per_namespace=(jr.max_items, jr.llm_budget),
                               progress=lambda i, n, res: ctx.checkpoint())
    if r.message:
        ctx.notes.append(r.message)
    pending = [x for x in r.results if x.status == "pending"]
    if pending:
        ctx.notes.append(f"{len(pending)} entity(ies) left due: {pending[0].reason}")
    counts = r.to_dict()["counts"]
    return {"enabled": r.enabled, "due": len(r.due), **counts, "llm_calls": r.budget.get("llm_calls", 0)}


def _index(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    r = vector_index.maintain(db, slowdown_max=cfg.jobs.index_slowdown_max)
    return {"probe_ms": r["probe_ms"], "baseline_ms": r["baseline_ms"], "rebuilt": r["rebuilt"]}


def _event_time(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    return eventtimes.backfill(db, now=now, run_id=ctx.run_id, progress=lambda n: ctx.checkpoint())


def _keys(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    r = keys.key_pending(db, cfg, make_embedder(cfg.embedding), now=now).to_dict()
    return {k: r[k] for k in ("read", "keyed", "keys")}  # the run id is the job's own


def _precompute(db: Database, cfg: Config, now: datetime, ctx: Context) -> dict[str, Any]:
    return {"precomputed": len(precompute(db, now=now))}


@dataclass(frozen=True)
class Job:
    name: str
    run: Runner | None  # None: a slot whose job a later issue adds
    dirty: bool = False  # reads the admissions' dirty marks (and clears them when it ran)


JOBS: dict[str, Job] = {j.name: j for j in (
    Job("merge", _merge, dirty=True),
    Job("updates", _updates, dirty=True),
    Job("promote", _promote, dirty=True),
    Job("weights", _weights("weights")),
    Job("decay", _weights("decay")),
    Job("deprecate", _deprecate),
    Job("consolidate", _consolidate, dirty=True),
    Job("precompute", _precompute),
    Job("reflect", _reflect),
    Job("cards", _cards),
    Job("index", _index),
    Job("event_time", _event_time),
    Job("keys", _keys),
)}


def settings(cfg: Config, name: str) -> JobConfig:
    return getattr(cfg.jobs, name)

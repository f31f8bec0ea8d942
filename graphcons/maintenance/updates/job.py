"""The update pass (issue 51 item 1): notice updates among live memories and queue them for review.

Block by block ((namespace, subject): an update never crosses either; a run that admissions triggered
reads only the dirty blocks, issue 62, as the merge pass does), the memories are read and
`detect` finds the (newer, older) pairs where the newer states a new value for the older's attribute
(graphcons/maintenance/updates/detect.py). A pair with an update proposal of any status (a rejected pair
is never proposed again) or already related by SUPERSEDES is skipped. Each new pair becomes a pending
`update` proposal in the one review queue (graphcons.review.queue), audited; with `[updates] verifier =
"llm"` only the new pairs the model calls updates (maintenance/updates/verify.py: the others are `refused`
or `pending`); with `[updates] auto_apply` (off by default) one at or over `auto_apply_at` is applied at
once. A dry run reports the same lists and writes nothing at all (no proposal, no edge, no audit record;
the verifier asks within its budget and records nothing).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, ClassVar

from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.errors import ValidationError
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.report import PassReport
from graphcons.core.time import require_aware
from graphcons.maintenance.updates import review
from graphcons.maintenance.updates.verify import Unverified, UpdateVerifier
from graphcons.maintenance.updates.detect import KIND, Update, detect
from graphcons.store import proposals

READ_BATCH = 2000  # memories read per query (whole blocks; a block larger than this is read alone)
WRITE_BATCH = 500  # proposals written per transaction


@dataclass(frozen=True)
class UpdatesReport(PassReport):
    """What an update pass did (or a dry run would do): one wire shape, `to_dict` (each pair's `as_dict`),
    for every door. `found`: pairs detected; `known`: of those, pairs already proposed or related;
    `refused` / `pending`: pairs the model verifier refused or has not judged yet; `blocks` / `memories`:
    what the pass read; `scopes`: "all" or how many dirty scopes an incremental run read."""

    auto_apply: bool
    auto_apply_at: float
    found: int
    proposed: list[Update]
    applied: list[Update]
    known: int
    scopes: str | int
    blocks: int
    memories: int
    verifier: str
    refused: list[Unverified]
    pending: list[Unverified]
    job: ClassVar[str] = "updates"


def run(db: Database, cfg: Config, *, now: datetime, dry_run: bool = True, run_id: str | None = None,
        auto_apply: bool | None = None, namespace: str | None = None, subject: str | None = None,
        progress: Callable[[int], None] | None = None, scopes: list[dict[str, str]] | None = None) -> UpdatesReport:
    """One update pass; `namespace` / `subject` limit it. `scopes` ([{namespace, subject}]): an incremental
    pass over only these blocks (the worker passes the dirty scopes when admissions triggered the run); an
    update never crosses a block, so in those scopes it finds exactly what a full pass finds. Returns what
    it proposed, applied and skipped, and what it read (`blocks`, `memories`)."""
    require_aware(now)
    for name, value in (("namespace", namespace), ("subject", subject)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ValidationError(name, "expected a non-empty text or none")
    ucfg = cfg.updates
    auto = ucfg.auto_apply if auto_apply is None else auto_apply
    run_id = run_id or audit.new_run_id("updates")
    found, read = _found(db, namespace, subject, progress, scopes)
    known = {r["proposal_id"]: r for start in range(0, len(found), 1000) for r in db.run(
        "updates/known_pairs", pairs=[{"proposal_id": u.proposal_id, "newer": u.newer, "older": u.older}
                                      for u in found[start:start + 1000]])}
    seen = {pid for pid, k in known.items() if k.get("proposal_status") or k.get("superseded")}
    handled = [u for u in found if u.proposal_id in seen]
    fresh = [u for u in found if u.proposal_id not in seen]
    refused: list[Unverified] = []
    pending: list[Unverified] = []
    if ucfg.verifier == "llm" and fresh:  # the model reads each new pair before it is proposed
        fresh, refused, pending = UpdateVerifier(cfg, db=db, now=now, run_id=run_id, dry_run=dry_run).sift(fresh)
    applied = [u for u in fresh if auto and u.confidence >= ucfg.auto_apply_at]
    proposed = [u for u in fresh if not (auto and u.confidence >= ucfg.auto_apply_at)]
    if not dry_run:
        for start in range(0, len(proposed), WRITE_BATCH):
            chunk = proposed[start:start + WRITE_BATCH]
            db.write(lambda tx: _propose(tx, chunk, now, run_id))
        applied = [u for u in applied if _auto_apply(db, u, now, run_id)]
    report = UpdatesReport(run_id=run_id, dry_run=dry_run, now=now.isoformat(), namespace=namespace, subject=subject,
                           auto_apply=auto, auto_apply_at=ucfg.auto_apply_at, found=len(found), proposed=proposed,
                           applied=applied, known=len(handled), scopes="all" if scopes is None else len(scopes),
                           blocks=read["blocks"], memories=read["memories"], verifier=ucfg.verifier,
                           refused=refused, pending=pending)
    if not dry_run:
        audit.record_run(db, "updates", run_id, now, report.counts())
    return report


def _found(db: Database, namespace: str | None, subject: str | None, progress: Callable[[int], None] | None,
           scopes: list[dict[str, str]] | None) -> tuple[list[Update], dict[str, int]]:
    """Every update of the store's blocks (or of the `scopes`' blocks), read a few blocks at a time, and
    how many blocks and memories were read."""
    if scopes is not None:
        blocks = db.run("updates/blocks_of", live=LIVE_STATUSES,
                        scopes=[{"namespace": x["namespace"], "subject": x["subject"]} for x in scopes])
    else:
        blocks = db.run("memory/blocks", live=LIVE_STATUSES, namespace=namespace, subject=subject)
    found: list[Update] = []
    batch: list[dict[str, str]] = []
    size = 0
    for n, b in enumerate(blocks):
        batch.append({"namespace": b["namespace"], "subject": b["subject"]})
        size += b["size"]
        if size >= READ_BATCH or n == len(blocks) - 1:
            found += detect(db.run("memory/underived", live=LIVE_STATUSES, scopes=batch))
            if progress:
                progress(size)
            batch, size = [], 0
    return found, {"blocks": len(blocks), "memories": sum(b["size"] for b in blocks)}


def _props(u: Update, now: datetime, run_id: str) -> dict[str, Any]:
    return {"id": u.proposal_id, "kind": KIND, "created_at": now, "run_id": run_id, "memory_ids": [u.newer, u.older],
            "namespace": u.namespace, "subject": u.subject, "attribute": u.attribute,
            "since": u.newer_since,  # retrieval reads a pending update's since without the payload (issue 62)
            "title": f"update: {u.attribute}: {u.old_value} -> {u.new_value} ({u.older} -> {u.newer})",
            "payload": json.dumps(u.as_dict(), sort_keys=True)}


def _propose(tx: Tx, chunk: list[Update], now: datetime, run_id: str) -> None:
    proposals.create_many(tx, [(_props(u, now, run_id), [{"id": u.newer, "version": u.newer_version},
                                                          {"id": u.older, "version": u.older_version}])
                               for u in chunk])
    audit.record_many(tx, [("update_proposed", [u.newer, u.older], now,
                            {"proposal": u.proposal_id, "attribute": u.attribute, "old_value": u.old_value,
                             "new_value": u.new_value, "since": u.newer_since, "confidence": u.confidence})
                           for u in chunk], run_id=run_id)


def _auto_apply(db: Database, u: Update, now: datetime, run_id: str) -> bool:
    """Propose and apply one update in one transaction; False when a memory stopped being live meanwhile."""
    return proposals.propose_and_apply(db, u.proposal_id, lambda tx: _propose(tx, [u], now, run_id),
                                       lambda tx, locked: review.apply(tx, locked, now=now, run_id=run_id, by="auto"),
                                       {KIND: review.UpdatePayload})

"""One-time store migrations. `similar`: rebuild SIMILAR edges per subject (issue 12). (The
proposal payloads' migration of issue 60 is the proposal record's own: store/proposals.py.)

Stores admitted before per-subject neighbours hold SIMILAR edges chosen store-wide within a
namespace, often to other subjects. The rebuild replays admission order (admitted_at, id):
each memory's cross-subject SIMILAR edges become SIMILAR_ACROSS (kept, not fused by
clustering), then it links to its top-k earlier live memories of the same subject exactly as
admission now would. Same-subject edges already there stay. Batches commit one at a time,
each audited; a memory done is marked with the scheme, so an interrupted run resumes where it
stopped and a second run changes nothing.
"""

from __future__ import annotations

from typing import Any, Callable

from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.errors import ValidationError
from graphcons.core.time import utcnow
from graphcons.store import neighbours


def rebuild_similar(db: Database, cfg: Config, *, batch_size: int = 200, limit: int | None = None,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Migrate up to `limit` memories (None: all); progress(done, total) after each batch."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= 10_000:
        raise ValidationError("batch_size", "must be an integer between 1 and 10000")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValidationError("limit", "must be a positive integer or None")
    scheme = neighbours.SCHEME
    pending = db.run("similar/migrate_count", scheme=scheme)[0]["pending"]
    total = pending if limit is None else min(pending, limit)
    done = retyped = linked = 0
    while done < total:
        ids = [r["id"] for r in db.run("similar/migrate_page", scheme=scheme, limit=min(batch_size, total - done))]
        if not ids:
            break
        now = utcnow()
        def work(tx: Tx, ids: list[str] = ids, now: datetime = now) -> tuple[int, int]:
            b_retyped = b_linked = 0
            for mid in ids:
                b_retyped += tx.run("similar/retype_cross", id=mid, now=now)[0]["retyped"]
                b_linked += len(neighbours.link(tx, cfg, mid, earlier_only=True))
                tx.run("similar/mark_scheme", id=mid, scheme=scheme)
            audit.record(tx, "migrate_similar", ids, at=now, scheme=scheme, retyped=b_retyped, linked=b_linked,
                         k=cfg.admission.similar_k, floor=cfg.consolidation.similarity_floor)
            return b_retyped, b_linked

        b_retyped, b_linked = db.write(work)
        done += len(ids)
        retyped += b_retyped
        linked += b_linked
        if progress:
            progress(done, total)
    remaining = db.run("similar/migrate_count", scheme=scheme)[0]["pending"]
    return {"scheme": scheme, "migrated": done, "retyped_cross_subject": retyped, "neighbours_linked": linked,
            "remaining": remaining}


"""Spreading activation (seed 000): touching a hot insight warms the members beneath it.

When an insight is used (accessed in a session, retrieved, or touched explicitly), it gains
`amount` of activation and every memory below it along SUMMARIZES gains
`amount * decay ** depth` (depth 1 = its members; insights over insights reach further).
The value gate's salience reads `m.activation`, so a hot insight keeps its cluster alive.
Reverted links carry nothing; deprecated insights do not spread.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphcons.core import audit
from graphcons.core.db import Database
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import utcnow

DECAY = 0.5
DEPTH = 3


def spread(db: Database, ids: list[str], *, amount: float = 1.0, decay: float = DECAY, depth: int = DEPTH,
           now: datetime | None = None, record: bool = True) -> dict[str, float]:
    """Warm the memories beneath the given insights; returns {memory id: activation added}."""
    return db.write(lambda tx: spread_in(tx, ids, amount=amount, decay=decay, depth=depth, now=now, record=record))


def spread_in(tx: Any, ids: list[str], *, amount: float = 1.0, decay: float = DECAY, depth: int = DEPTH,
              now: datetime | None = None, record: bool = True) -> dict[str, float]:
    """`spread` inside the caller's transaction (usage records it atomically with the access).

    Ids that are not live insights are skipped by the query itself, so usage needs no lookup first.
    """
    ids = sorted(set(ids))
    if not ids or amount <= 0:
        return {}
    rows = tx.run("activation/spread", ids=ids, amount=float(amount), decay=float(decay),
                  depth=int(max(1, min(depth, 4))), live=LIVE_STATUSES)
    warmed = {r["id"]: r["delta"] for r in rows}
    if warmed and record:
        audit.record(tx, "activate", ids, at=now or utcnow(), amount=amount, decay=decay, depth=depth,
                     warmed=len(warmed))
    return warmed

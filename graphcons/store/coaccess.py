"""Co-access, the usage signal (seed 000): memories used together in a session.

Each memory's access count and last access grow on every use. A pair of memories used in
the same session gets one CO_ACCESSED increment per session, however often the session
touches them (repetition is not confirmation). Only the first `coaccess_window`
memories of a session form pairs, which bounds the pairs a session can write.
"""

from __future__ import annotations

from datetime import datetime
from itertools import combinations

from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.errors import NotFound
from graphcons.core.inputs import check_ids, check_key
from graphcons.core.time import utcnow
from graphcons.store.activation import spread_in


def record_access(db: Database, cfg: Config, session: str, ids: list[str], *, now: datetime | None = None,
                  read: bool = False) -> dict:
    """`read`: the ids were just read from the store (retrieve's hits; nothing is ever deleted), so
    their existence is not asked again (a round trip less on every recorded retrieve, issue 52)."""
    check_key("session", session)  # the one input policy (core/inputs.py)
    ids = list(dict.fromkeys(check_ids("ids", ids)))  # keep order, drop repeats within the call
    found = set(ids) if read else set(db.run("memory/existing_ids", ids=ids)[0]["found"])
    missing = [i for i in ids if i not in found]
    if missing:
        raise NotFound(f"unknown memory id(s): {', '.join(missing)}")
    now = now or utcnow()
    window = cfg.admission.coaccess_window
    def work(tx: Tx) -> tuple[dict, dict]:
        members = {r["id"]: r["rank"] for r in tx.run("access/session_members", session=session)}
        uses, fresh = [], []
        for mem_id in ids:
            if mem_id not in members:
                members[mem_id] = len(members)
                fresh.append(mem_id)
            uses.append({"id": mem_id, "rank": members[mem_id]})
        in_window = [m for m, rank in members.items() if rank < window]
        fresh_in_window = set(fresh) & set(in_window)
        pairs = sorted(
            tuple(sorted(p)) for p in combinations(sorted(in_window), 2) if fresh_in_window & set(p)
        )
        row = tx.run("access/record", session=session, uses=uses, pairs=[list(p) for p in pairs], now=now)[0]
        audit.record(tx, "access", ids, at=now, session=session, new_pairs=len(pairs), window=window)
        warmed = spread_in(tx, ids, now=now)  # a used insight warms its members (spreading activation)
        return row, warmed

    row, warmed = db.write(work)  # retried whole on a deadlock with concurrent writers (issue 30)
    return {"session": session, "accessed": len(ids), "pairs": row["pairs"], "warmed": len(warmed)}

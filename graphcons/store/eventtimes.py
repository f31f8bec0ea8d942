"""Event times for memories admitted before the resolver (issue 47), or read by an older one:
the back-fill the `event_time` job runs. Admission and edits store them themselves.

Idempotent and resumable: each page is one transaction that writes only memories the current
resolver has not read, marks every memory it read (`event_resolver`), and is audited; a run that
stops between pages leaves the rest pending for the next.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from graphcons.core import audit, eventtime
from graphcons.core.db import Database

PAGE = 1000


def backfill(db: Database, *, now: datetime, run_id: str | None = None, page: int = PAGE,
             progress: Callable[[int], None] = lambda n: None) -> dict[str, Any]:
    """Read every pending memory's event times, a page at a time: {read, with_times, pages}."""
    read = with_times = pages = 0
    after = ""
    while True:
        rows = db.run("eventtime/pending", version=eventtime.VERSION, after=after, page=page)
        if not rows:
            break
        props = [{"id": r["id"], "props": eventtime.properties(r["content"] or "", r["created_at"])} for r in rows]

        def work(tx: Any) -> dict[str, Any]:
            out = tx.run("eventtime/set", rows=props, version=eventtime.VERSION)[0]
            audit.record(tx, "event_time", [r["id"] for r in rows], run_id=run_id, at=now,
                         resolver=eventtime.VERSION, written=out["written"], with_times=out["with_times"])
            return out

        out = db.write(work)
        read, with_times, pages = read + out["written"], with_times + out["with_times"], pages + 1
        after = rows[-1]["id"]
        progress(read)
    return {"read": read, "with_times": with_times, "pages": pages, "resolver": eventtime.VERSION}

"""The audit trail: one (:Audit) record per operation (principle 9).

Records are written inside the operation's own transaction where there is one, so an
operation and its audit record commit together or not at all.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from graphcons.core.time import utcnow


def record(runner: Any, op: str, targets: list[str], *, run_id: str | None = None,
           at: datetime | None = None, **details: Any) -> str:
    """Write one audit record with `runner` (a Database or a Tx); returns its id."""
    audit_id = "a-" + uuid.uuid4().hex[:16]
    runner.run(
        "audit/record",
        id=audit_id,
        op=op,
        at=at or utcnow(),
        run_id=run_id,
        targets=list(targets),
        details=json.dumps(details, sort_keys=True, default=str),
    )
    return audit_id


def record_many(runner: Any, entries: list[tuple[str, list[str], datetime | None, dict[str, Any]]], *,
                run_id: str | None = None) -> list[str]:
    """Several audit records (op, targets, at, details) in one statement, in order; their ids."""
    rows = [{"id": "a-" + uuid.uuid4().hex[:16], "op": op, "at": at or utcnow(), "run_id": run_id,
             "targets": list(targets), "details": json.dumps(details, sort_keys=True, default=str)}
            for op, targets, at, details in entries]
    if rows:
        runner.run("audit/record_many", records=rows)
    return [r["id"] for r in rows]


def with_count(op: str, targets: list[str], *, at: datetime, count: str, **details: Any) -> dict[str, Any]:
    """An audit record for a statement to write itself, whose detail `count` is a number only that
    statement knows (admission's SIMILAR count): its details JSON comes in two halves, `head` and
    `tail`, to be joined around the number (cypher/memory/admit). The joined text is what `record`
    would write with that number, so readers see no difference. A value `details` gives for
    `count` is replaced."""
    text = json.dumps({**details, count: 0}, sort_keys=True, default=str)
    # A key followed by `": ` cannot occur inside a JSON string value (its quotes are escaped).
    head, sep, tail = text.partition(json.dumps(count) + ": 0")
    return {"id": "a-" + uuid.uuid4().hex[:16], "op": op, "at": at, "targets": list(targets),
            "head": head + sep[:-1], "tail": tail}


def new_run_id(job: str) -> str:
    return f"{job}-{uuid.uuid4().hex[:12]}"


def decode(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    if isinstance(out.get("details"), str):
        out["details"] = json.loads(out["details"])
    return out


def record_run(runner: Any, job: str, run_id: str, now: datetime, summary: dict[str, Any]) -> str:
    """One audit record per (non-dry) job run: what ran, when, with what outcome."""
    return record(runner, "maintenance_run", [job], run_id=run_id, at=now, job=job, summary=summary)


def read(runner: Any, *, op: str | None = None, target: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """The newest audit records first, optionally of one operation or about one target."""
    return [decode(r["audit"]) for r in runner.run("audit/list", op=op, target=target, limit=limit)]

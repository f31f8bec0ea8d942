"""The census the metrics gauges read at scrape time: memories per namespace and status, pending
proposals per kind (two aggregate reads; no ids leave here)."""

from __future__ import annotations

from typing import Any

from graphcons.core.db import Database


def counts(db: Database) -> dict[str, list[dict[str, Any]]]:
    return {"memories": db.run("metrics/memories"), "proposals": db.run("metrics/pending")}

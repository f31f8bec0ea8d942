"""The store itself: schema (constraints, indexes, vector index) and its embedder identity.

`graphcons init` applies cypher/schema/*.cypher idempotently and records which embedder
built the store; opening a store with a different embedder is refused, never mixed.
"""

from __future__ import annotations

from typing import Any

from graphcons.core import audit
from graphcons.core.cypher import names, statements
from graphcons.core.db import Database
from graphcons.core.errors import EmbedderMismatch
from graphcons.core.time import utcnow
from graphcons.store import proposals, tie


#: The vector index over Memory.embedding (cypher/schema/03_vector.cypher).
VECTOR_INDEX = "memory_embedding"
#: The keyword index over Memory.title and .content (cypher/schema/02_indexes.cypher).
KEYWORD_INDEX = "memory_text"
KEYWORD_FIELDS = ["title", "content", "namespace", "subject"]  # cypher/schema/02_indexes
INDEX_WAIT_S = 3600


# What a statement that first asks `db.awaitIndex(VECTOR_INDEX, 0)` fails with when the index
# cannot answer now: missing, or POPULATING while it is rebuilt (cypher/retrieval/vector.cypher).
INDEX_NOT_ONLINE = ("Neo.ClientError.Schema.IndexNotFound", "Neo.ClientError.Procedure.ProcedureTimedOut")


def vector_index_online(runner: Any) -> bool:
    """Whether the vector index can answer queries now (`runner`: a Database or a transaction).
    While it is rebuilt (maintenance.vector_index) it is missing or POPULATING; its readers then
    scan exactly instead, slower but never failing (issue 15)."""
    rows = runner.run("health/vector_index", name=VECTOR_INDEX)
    return bool(rows) and rows[0]["state"] == "ONLINE"


def apply_schema(db: Database, dimensions: int) -> list[str]:
    applied = []
    for name in names("schema"):
        for stmt in statements(name):
            db.run_text(stmt, dimensions=dimensions) if "$dimensions" in stmt else db.run_text(stmt)
            applied.append(name)
    # An index created over a large store populates for a while (1M memories: the vector index
    # took over 5 min on 2 cores); init waits for it rather than fail half-way.
    db.run("health/await_indexes", seconds=INDEX_WAIT_S)
    return sorted(set(applied))


def identity(db: Database) -> dict[str, Any] | None:
    rows = db.run("store/get")
    return rows[0]["store"] if rows else None


def check_embedder(recorded: dict[str, Any] | None, model: str, dimensions: int) -> None:
    if recorded is None:
        return
    if recorded["embedding_model"] != model or recorded["embedding_dimensions"] != dimensions:
        raise EmbedderMismatch(
            f"this store was built with embedder {recorded['embedding_model']!r} "
            f"({recorded['embedding_dimensions']} dimensions) but the configuration asks for "
            f"{model!r} ({dimensions} dimensions). Mixing them would make similarities meaningless: "
            "set [embedding] back to the store's embedder, or use a new database."
        )


def _keyword_index_migration(db: Database) -> bool:
    """A keyword index made before it was eventually consistent (issue 15) or before it held the
    scope fields (issue 28) is dropped, for apply_schema to make again (keyword search is
    unavailable while it repopulates; init waits for it). Audited."""
    rows = db.run("health/fulltext_index", name=KEYWORD_INDEX)
    if not rows or (rows[0]["eventually_consistent"] and list(rows[0]["properties"]) == KEYWORD_FIELDS):
        return False
    db.run("health/fulltext_index_drop")
    audit.record(db, "keyword_index_recreate", [KEYWORD_INDEX], at=utcnow(), eventually_consistent=True,
                 was=list(rows[0]["properties"]), fields=KEYWORD_FIELDS)
    return True


def init(db: Database, model: str, dimensions: int) -> dict[str, Any]:
    check_embedder(identity(db), model, dimensions)
    recreated = _keyword_index_migration(db)
    applied = apply_schema(db, dimensions)
    ties = tie.backfill(db)  # migration (issue 15): memories stored before the tie weight existed
    nested = proposals.nest_payloads(db)  # migration (issue 60): consolidate proposals stored before it
    store = db.run("store/claim", embedding_model=model, embedding_dimensions=dimensions, now=utcnow())[0]["store"]
    return {"schema": applied, "store": store, "ties_backfilled": ties, "keyword_index_recreated": recreated,
            "payloads_nested": nested}


def stats(db: Database) -> dict[str, Any]:
    """Counts of memories (by status, kind, namespace), versions, edges and sessions."""
    row = db.run("memory/stats")[0]
    for key in ("by_status", "by_kind", "by_namespace"):
        row[key] = {k: n for k, n in sorted(row[key], key=lambda kv: str(kv[0]))}
    row["store"] = identity(db)
    return row

"""Retrieval: nearest live memories to a query; a use is recorded as co-access.

Deprecated memories are never returned themselves: a hit on one lands on the memory
that SUPERSEDES it. Keyword search uses the full-text index and records nothing.
"""

from __future__ import annotations

import uuid
from typing import Any

from neo4j.exceptions import ClientError

from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.errors import ValidationError
from graphcons.core.memory import LIVE_STATUSES, Memory
from graphcons.store.coaccess import record_access


def retrieve(db: Database, cfg: Config, embedder: Embedder, query: str, k: int = 5, *,
             namespace: str | None = None, session: str | None = None, record: bool = True) -> list[dict[str, Any]]:
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("query", "must be a non-empty string")
    if not isinstance(k, int) or not 1 <= k <= 1000:
        raise ValidationError("k", "must be an integer between 1 and 1000")
    rows = db.run(
        "retrieval/vector",
        embedding=embedder.embed_one(query),
        candidates=max(4 * k, 20),
        k=k,
        namespace=namespace,
        live=list(LIVE_STATUSES),
    )
    hits = [{"memory": Memory.from_node(r["memory"]), "score": r["cosine"], "superseded": r["superseded"]}
            for r in rows]
    if record and hits:
        record_access(db, cfg, session or f"retrieve-{uuid.uuid4().hex[:12]}", [h["memory"].id for h in hits])
    return hits


def search_text(db: Database, text: str, k: int = 10, *, namespace: str | None = None) -> list[dict[str, Any]]:
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("text", "must be a non-empty string")
    try:
        rows = db.run("retrieval/fulltext", text=text, k=k, namespace=namespace, live=list(LIVE_STATUSES))
    except ClientError as exc:  # Lucene query syntax ("AND (", unbalanced quotes): bad input, not a crash
        if "ParseException" not in (exc.message or "") and "TokenMgrError" not in (exc.message or ""):
            raise
        raise ValidationError("text", "is not a valid full-text query (Lucene syntax); quote or escape "
                                      "operators such as AND, OR, (, [, \"") from None
    return [{"memory": Memory.from_node(r["memory"]), "score": r["score"]} for r in rows]

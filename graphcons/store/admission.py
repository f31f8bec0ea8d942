"""Admission, the immediate phase (seed 003): validate, dedupe, embed, write, link.

Fast and local: one embedding, one existence check, one write transaction. Everything
heavier (clustering, merging, synthesis) runs later as a background job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.errors import NotFound, ValidationError
from graphcons.core.memory import (
    LinkInput,
    MemoryInput,
    content_hash,
    derived_title,
    embedded_text,
    new_memory_id,
    parse_input,
)
from graphcons.core.time import utcnow
from graphcons.store import dirty, neighbours, tie

VERSION_FIELDS = ("title", "content", "kind", "subject", "scope", "status", "content_hash", "source")


@dataclass
class Admission:
    """What `add` did: a new memory, or evidence added to an exact duplicate."""

    id: str
    created: bool
    evidence_count: int = 1
    similar: list[dict[str, Any]] = field(default_factory=list)
    linked: int = 0


def validate_links(db: Database, links: list[LinkInput]) -> None:
    targets = sorted({ln.target for ln in links})
    if not targets:
        return
    found = set(db.run("memory/existing_ids", ids=targets)[0]["found"])
    missing = [t for t in targets if t not in found]
    if missing:
        raise ValidationError("links.target", f"unknown memory id(s): {', '.join(missing)}")


def admit(db: Database, cfg: Config, embedder: Embedder, data: Any,
          embedding: list[float] | None = None) -> Admission:
    mem = parse_input(data, max_title=cfg.admission.max_title_chars, max_content=cfg.admission.max_content_chars)
    validate_links(db, mem.links)
    chash = content_hash(mem.content)
    dup = db.run("memory/find_duplicate", namespace=mem.namespace, subject=mem.subject, content_hash=chash)
    if dup:
        return _add_evidence(db, dup[0]["id"], mem)
    if mem.id is not None and db.run("memory/existing_ids", ids=[mem.id])[0]["found"]:
        raise ValidationError("id", f"a memory with id {mem.id!r} already exists with different content")
    vec = embedding if embedding is not None else embedder.embed_one(embedded_text(mem.title, mem.content))
    if len(vec) != embedder.dimensions:
        raise ValidationError("embedding", f"has {len(vec)} dimensions; the store uses {embedder.dimensions}")
    return _create(db, cfg, mem, chash, vec)


def link(db: Database, source_id: str, target_id: str, kind: str, *, by: str, now: datetime) -> int:
    """Add an explicit LINKED {kind} edge between two existing memories; audited."""
    if not db.run("memory/existing_ids", ids=[source_id])[0]["found"]:
        raise NotFound(f"no memory with id {source_id!r}")
    try:
        ln = LinkInput(target=target_id, kind=kind)
    except PydanticValidationError as exc:
        err = exc.errors()[0]
        raise ValidationError(str(err["loc"][-1]) if err["loc"] else "kind", err["msg"]) from None
    validate_links(db, [ln])
    with db.transaction() as tx:
        n = tx.run("memory/link", id=source_id, links=[ln.model_dump()], now=now, source=by)[0]["linked"]
        audit.record(tx, "link", [source_id, target_id], at=now, kind=kind, by=by)
    return n


def node_props(mem: MemoryInput, chash: str, vec: list[float]) -> dict[str, Any]:
    now = utcnow()
    created = mem.created_at or now
    title = mem.title or derived_title(mem.content)
    return {
        "id": mem.id or new_memory_id(mem.namespace, mem.subject, mem.source, chash, created),
        "kind": mem.kind.value,
        "title": title,
        "title_derived": mem.title is None,
        "content": mem.content,
        "subject": mem.subject,
        "namespace": mem.namespace,
        "scope": mem.scope,
        "source": mem.source,
        "origin": mem.origin,
        "session": mem.session,
        "created_at": created,
        "admitted_at": now,
        "status": mem.status.value,
        "importance": mem.importance,
        "weight_manual": mem.importance,
        "weight_confidence": mem.confidence,
        "weight_usage": 0.0,
        "weight_feedback": 0.5,
        "weight_decay": 1.0,
        "effective_weight": mem.importance,
        "access_count": 0,
        "sources": [mem.source],
        "evidence_count": 1,
        "repetitions": 0,
        "content_hash": chash,
        "version": 1,
        "embedding": vec,
    }


def version_props(props: dict[str, Any], at: Any) -> dict[str, Any]:
    snap = {k: props[k] for k in VERSION_FIELDS if k in props}
    snap.update(memory_id=props["id"], version=props.get("version", 1), created_at=at)
    return snap


def _create(db: Database, cfg: Config, mem: MemoryInput, chash: str, vec: list[float]) -> Admission:
    props = node_props(mem, chash, vec)
    props["tie"] = tie.weight(props["id"])  # label propagation's tie-breaker (issue 15), read by the scan
    with db.transaction() as tx:
        similar = neighbours.create(tx, cfg, props, version_props(props, props["admitted_at"]))
        linked = 0
        if mem.links:
            linked = tx.run("memory/link", id=props["id"], links=[ln.model_dump() for ln in mem.links],
                            now=props["admitted_at"], source=mem.source)[0]["linked"]
        dirty.mark(tx, mem.namespace, mem.subject, props["admitted_at"])  # event triggers of the job loop
        audit.record(tx, "add", [props["id"]], at=props["admitted_at"], source=mem.source, origin=mem.origin,
                     namespace=mem.namespace, subject=mem.subject, similar=len(similar), links=linked)
    return Admission(id=props["id"], created=True, similar=similar, linked=linked)


def _add_evidence(db: Database, mem_id: str, mem: MemoryInput) -> Admission:
    with db.transaction() as tx:
        row = tx.run("memory/add_evidence", id=mem_id, source=mem.source)[0]
        linked = 0
        if mem.links:
            linked = tx.run("memory/link", id=mem_id, links=[ln.model_dump() for ln in mem.links],
                            now=utcnow(), source=mem.source)[0]["linked"]
        audit.record(tx, "add_evidence", [mem_id], source=mem.source, origin=mem.origin, new_source=row["is_new"],
                     evidence_count=row["evidence_count"])
    return Admission(id=mem_id, created=False, evidence_count=row["evidence_count"], linked=linked)

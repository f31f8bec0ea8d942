"""Versions: editing a memory makes a new version and keeps every old one."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphcons.core import audit, eventtime, weights
from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.core.inputs import check_filled, depth_problem
from graphcons.core.memory import (
    Memory,
    check_length,
    content_hash,
    derived_title,
    embedded_text,
    metadata_json,
    without_embedding,
)
from graphcons.core.time import utcnow
from graphcons.store import neighbours
from graphcons.store import justification
from graphcons.store.admission import version_props

EDITABLE = {"title", "content", "scope", "importance", "metadata"}


def get(db: Database, mem_id: str, *, namespaces: list[str] | None = None) -> Memory:
    """The memory; with `namespaces`, one outside them is missing (the same query and answer, so a
    caller cannot tell an id of another namespace from a free one, by text or by time)."""
    rows = (db.run("memory/get", id=mem_id) if namespaces is None
            else db.run("memory/get_visible", id=mem_id, namespaces=namespaces))
    if not rows:
        raise NotFound(f"no memory with id {mem_id!r}")
    return Memory.from_node(rows[0]["memory"])


def edit(db: Database, cfg: Config, embedder: Embedder, mem_id: str, *, source: str = "user",
         **changes: Any) -> Memory:
    """Edit a memory: its new version, the old one kept (none when nothing would change)."""
    changes = _checked(cfg, changes)
    current = get(db, mem_id)
    if "metadata" not in changes and (deep := depth_problem(current.metadata)):
        # stored before the door bounded it (issue 59): the new version could not be answered either
        raise ValidationError("metadata", f"the stored metadata {deep}: send metadata to replace it with this edit")
    if unchanged(current, changes):  # e.g. a request retried after a 503 whose edit had landed: no new version
        return current
    _follow(cfg, embedder, current, changes)
    now = utcnow()
    vprops = _version_props(current, changes, mem_id, source, now)
    if "metadata" in changes:  # stored as JSON text, compared above as the object
        changes["metadata"] = metadata_json(changes["metadata"])
    def work(tx: Any) -> list[dict[str, Any]]:
        rows = tx.run("memory/edit", id=mem_id, expected_version=current.version, changes=without_embedding(changes),
                      embedding=changes.get("embedding"),
                      version_props=vprops, now=now)
        if not rows:
            raise Conflict(f"memory {mem_id!r} changed while it was being edited; try again")
        neighbours.link(tx, cfg, mem_id)
        audit.record(tx, "edit", [mem_id], at=now, source=source, fields=sorted(changes.keys() - {"embedding"}),
                     from_version=current.version, to_version=current.version + 1)
        # what rested on the old version no longer does (seed 002), in this same transaction
        justification.premises_changed(tx, [mem_id], op="edit", now=now,
                                       cause=f"{mem_id} edited (v{current.version} -> v{current.version + 1}) by {source}")
        return rows

    rows = db.write(work)  # retried whole on a deadlock with concurrent writers (issue 30)
    return Memory.from_node(rows[0]["memory"])


def _checked(cfg: Config, changes: dict[str, Any]) -> dict[str, Any]:
    """The requested changes (None: not changed), each checked before the memory is read; an importance
    becomes the manual weight component."""
    unknown = set(changes) - EDITABLE
    if unknown:
        raise ValidationError(sorted(unknown)[0], f"cannot be edited; editable fields: {', '.join(sorted(EDITABLE))}")
    changes = {k: v for k, v in changes.items() if v is not None}
    if not changes:
        raise ValidationError("changes", "nothing to change")
    for key in ("title", "content", "scope"):
        if key in changes:
            check_filled(key, changes[key])  # the one input policy (core/inputs.py)
    check_length("content", changes.get("content"), cfg.admission.max_content_chars)
    check_length("title", changes.get("title"), cfg.admission.max_title_chars)
    if "importance" in changes:
        imp = changes["importance"]
        if isinstance(imp, bool) or not isinstance(imp, (int, float)) or not 0 <= imp <= 1:
            raise ValidationError("importance", "must be a number between 0 and 1")
        changes["weight_manual"] = float(imp)
    if "metadata" in changes:
        try:
            metadata_json(changes["metadata"])
        except ValueError as exc:
            raise ValidationError("metadata", str(exc)) from None
    return changes


def _follow(cfg: Config, embedder: Embedder, current: Memory, changes: dict[str, Any]) -> None:
    """Add to `changes` what follows from them: the stored weight, a derived title, the content hash,
    the event times and the embedding."""
    if "weight_manual" in changes:  # one formula: the stored weight follows its changed component
        changes["effective_weight"] = weights.stored(current.model_dump(), cfg.weights, manual=changes["weight_manual"])
    if "title" in changes:
        changes["title_derived"] = False
    if "content" in changes or "title" in changes:
        content = changes.get("content", current.content)
        untitled = current.title_derived and "title" not in changes
        if untitled:  # an untitled memory keeps deriving its title from its first sentence
            changes["title"] = derived_title(content)
        changes["content_hash"] = content_hash(content)
        changes.update(eventtime.properties(content, current.created_at))  # its event times follow its text
        changes["embedding"] = embedder.embed_one(embedded_text(None if untitled else changes.get("title", current.title),
                                                                content))


def _version_props(current: Memory, changes: dict[str, Any], mem_id: str, source: str,
                   now: datetime) -> dict[str, Any]:
    """The properties of the new version's record: the memory as this edit leaves it, and who edited it."""
    snapshot = current.model_dump(include={"title", "content", "kind", "subject", "scope", "status", "source"})
    snapshot.update({k: v for k, v in changes.items() if k in snapshot})
    snapshot["content_hash"] = changes.get("content_hash", current.content_hash)
    metadata = changes.get("metadata", current.metadata)  # each version keeps the metadata it had
    if metadata is not None:
        snapshot["metadata"] = metadata_json(metadata)
    snapshot["edited_by"] = source
    vprops = version_props({**snapshot, "id": mem_id}, now)
    vprops["edited_by"] = source
    return vprops


def unchanged(current: Memory, changes: dict[str, Any]) -> bool:
    """True when every change is already the memory's value (an explicit title over a derived
    one is a change: the title stops following the content)."""
    if "title" in changes and current.title_derived:
        return False
    return all(getattr(current, k) == v for k, v in changes.items())


def history(db: Database, mem_id: str) -> list[dict[str, Any]]:
    get(db, mem_id)  # raises NotFound for an unknown id
    out = []
    for row in db.run("memory/history", id=mem_id):
        v = dict(row["version"])
        out.append(v)
    return out

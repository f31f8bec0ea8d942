"""Admission, the immediate phase (seed 003): validate, dedupe, embed, write, link.

Every memory node is created here: what callers add (`admit`, `admit_many`) and what graphcons
derives (`admit_derived`: an insight, a reflection's statement, inside its approval's transaction).

Fast and local: one embedding, then one write transaction whose hot path is one statement that
checks (duplicate, ids, link targets), writes and audits (issue 15: bench/store/admission.py).
`admit_many` gives the same graph for a batch with one read and UNWIND statements. Everything heavier
(clustering, merging, synthesis) runs later as a background job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from graphcons.core import audit, eventtime, weights
from graphcons.core.config import Config, WeightsConfig
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.errors import NotFound, ValidationError
from graphcons.core.memory import (
    LIVE_STATUSES,
    LinkInput,
    MemoryInput,
    content_hash,
    derived_title,
    embedded_text,
    metadata_json,
    new_memory_id,
    parse_input,
    without_embedding,
)
from graphcons.core.time import utcnow
from graphcons.store import neighbours, tie

VERSION_FIELDS = ("title", "content", "kind", "subject", "scope", "status", "content_hash", "source", "metadata")


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


class BatchItemError(ValidationError):
    """Bad input in item `index` of a batch admission; nothing of the batch was written."""

    def __init__(self, index: int, field: str, problem: str):
        self.index = index
        super().__init__(f"items[{index}].{field}", problem)


class IdTaken(ValidationError):
    """An explicit id another memory holds (nothing was written): a store's put then edits that memory."""


def admit(db: Database, cfg: Config, embedder: Embedder, data: Any,
          embedding: list[float] | None = None, *, now: datetime | None = None, keyed: bool = False,
          deferred: bool = False) -> Admission:
    """One memory: the embedding, then one write transaction whose hot path is one statement
    (memory/admit: the duplicate, id and link-target checks, the memory, its neighbours, links,
    dirty mark and audit record). An exact duplicate is embedded for nothing, a price paid
    rarely for one round trip fewer on every new memory (issue 15). `now` is the admission time
    (`admitted_at`, and `created_at` when the input gives none); it decides no id (issue 29).
    `keyed` (a store's put, which names its key): no exact duplicate, the memory is created under its
    own id even when another key holds the same text (issue 59: the put answered the other key's id).
    `deferred` (a store's put, issue 63): no SIMILAR edges now; the memory is marked for
    graphcons.store.linker, which writes the ones admission would have written after the put returns."""
    mem = parse_input(data, max_title=cfg.admission.max_title_chars, max_content=cfg.admission.max_content_chars)
    vec = embedding if embedding is not None else embedder.embed_one(embedded_text(mem.title, mem.content))
    if len(vec) != embedder.dimensions:
        raise ValidationError("embedding", f"has {len(vec)} dimensions; the store uses {embedder.dimensions}")
    return _create(db, cfg, mem, content_hash(mem.content), vec, now or utcnow(), dedupe=not keyed, deferred=deferred)


def admit_many(db: Database, cfg: Config, embedder: Embedder, items: list[Any],
               embeddings: list[list[float]] | None = None, *, now: datetime | None = None) -> list[Admission]:
    """A batch, all or nothing, with the graph `admit` would give item by item in order:
    the same checks (a bad item raises BatchItemError naming its index and field, and
    nothing is written), exact duplicates of the store or of an earlier item add evidence,
    and each new memory's SIMILAR neighbours come from the store and the earlier items only.
    One read (two when a generated id is taken: a true repeat), one embedding call, one write
    transaction of UNWIND statements."""
    now = now or utcnow()
    if embeddings is not None and len(embeddings) != len(items):
        raise ValidationError("embeddings", f"{len(embeddings)} embeddings for {len(items)} items")
    mems = []
    for i, data in enumerate(items):
        try:
            mems.append(parse_input(data, max_title=cfg.admission.max_title_chars,
                                    max_content=cfg.admission.max_content_chars))
        except ValidationError as exc:
            raise BatchItemError(i, exc.field, exc.problem) from None
    hashes = [content_hash(m.content) for m in mems]
    asked = [ln.target for m in mems for ln in m.links] + [m.id for m in mems if m.id]
    bases = {i: new_memory_id(m.namespace, m.subject, m.source, h) for i, (m, h) in enumerate(zip(mems, hashes))
             if m.id is None}
    store_dups, found = _check(db, list(zip(mems, hashes)), asked + sorted(set(bases.values())))
    targets: dict[int, str | int] = {}  # item -> the store memory or earlier item it adds evidence to
    earlier: dict[tuple[str, str, str], int] = {}  # the batch's new memories by duplicate key
    explicit: dict[str, int] = {}  # explicit ids of the batch's new memories -> their item
    new: list[int] = []
    for i, (mem, chash) in enumerate(zip(mems, hashes)):
        missing = sorted({ln.target for ln in mem.links} - found - explicit.keys())
        if missing:
            raise BatchItemError(i, "links.target", f"unknown memory id(s): {', '.join(missing)}")
        key = (mem.namespace, mem.subject, chash)
        if i in store_dups or key in earlier:
            targets[i] = store_dups.get(i, earlier.get(key))
            continue
        if mem.id is not None and mem.id in explicit:
            raise BatchItemError(i, "id", f"shares the id {mem.id!r} with item {explicit[mem.id]} of this batch "
                                          "(a different text); give each new memory its own id")
        if mem.id is not None and mem.id in found:
            raise BatchItemError(i, "id", f"a memory with id {mem.id!r} already exists with different content")
        new.append(i)
        earlier[key] = i
        if mem.id is not None:
            explicit[mem.id] = i
    if embeddings is None:
        texts = [embedded_text(mems[i].title, mems[i].content) for i in new]
        vecs = dict(zip(new, embedder.embed(texts) if texts else []))
    else:
        vecs = {i: embeddings[i] for i in new}
    props: dict[int, dict[str, Any]] = {}
    for i in new:
        if len(vecs[i]) != embedder.dimensions:
            raise BatchItemError(i, "embedding", f"has {len(vecs[i])} dimensions; the store uses {embedder.dimensions}")
        props[i] = node_props(mems[i], hashes[i], list(vecs[i]), now, cfg.weights)
    _repeat_ids(db, props, [i for i in new if i in bases and (bases[i] in found or bases[i] in explicit)], set(explicit))
    evidence = {i: (props[t]["id"] if isinstance(t, int) else t) for i, t in targets.items()}
    return db.write(lambda tx: _write_batch(tx, cfg, mems, props, evidence, now))


def _check(db: Database, keyed: list[tuple[MemoryInput, str]], ids: list[str]) -> tuple[dict[int, str], set[str]]:
    """{item: id of its exact duplicate in the store} and which of `ids` exist, in one read."""
    keys = [{"namespace": m.namespace, "subject": m.subject, "content_hash": h} for m, h in keyed]
    row = db.run("memory/admission_check", keys=keys, ids=sorted(set(ids)))[0]
    return {i: dup for i, dup in row["duplicates"]}, set(row["found"])


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
    def work(tx: Any) -> int:
        n = tx.run("memory/link", id=source_id, links=[ln.model_dump()], now=now, source=by)[0]["linked"]
        audit.record(tx, "link", [source_id, target_id], at=now, kind=kind, by=by)
        return n

    return db.write(work)


def node_props(mem: MemoryInput, chash: str, vec: list[float], now: datetime | None,
               wcfg: WeightsConfig) -> dict[str, Any]:
    """A new memory's properties; its id is the explicit one or generated from the input (issue 29).
    `now` is the admission time (the clock when none is given): it is recorded, never part of the id.
    Its weights are the formula's as of its creation (core/weights), so the weights job and feedback agree."""
    now = now or utcnow()
    created = mem.created_at or now
    title = mem.title or derived_title(mem.content)
    props = {
        **_id_props(mem.id or new_memory_id(mem.namespace, mem.subject, mem.source, chash)),
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
        "access_count": 0,
        "sources": [mem.source],
        "evidence_count": 1,
        "repetitions": 0,
        "content_hash": chash,
        "version": 1,
        "embedding": vec,
        "metadata": None if mem.metadata is None else metadata_json(mem.metadata),  # absent when None
    }
    props.update(eventtime.properties(mem.content, created))  # when what it says happened (issue 47)
    # as of its creation (decay 1, no use yet), whatever the clock: the weights job decays it from there
    props.update(weights.compute(props, created, wcfg))
    return props


def _id_props(mem_id: str) -> dict[str, Any]:
    # tie: label propagation's tie-breaker (issue 15), a function of the id, read by the scan
    return {"id": mem_id, "tie": tie.weight(mem_id)}


def _free_ids(runner: Any, bases: list[str], also_taken: set[str] | frozenset = frozenset()) -> dict[str, str]:
    """For each taken generated id, the first free repeat id <base>-2, -3, ... (issue 29), one read."""
    taken = {r["base"]: set(r["taken"]) for r in runner.run("memory/ids_from", bases=sorted(set(bases)))}
    out = {}
    for base in bases:
        seq = 2
        while f"{base}-{seq}" in taken.get(base, ()) or f"{base}-{seq}" in also_taken:
            seq += 1
        out[base] = f"{base}-{seq}"
    return out


def _repeat_ids(db: Database, props: dict[int, dict[str, Any]], repeats: list[int], explicit: set[str]) -> None:
    """The batch's true repeats (generated id taken in the store or by an explicit id of the batch) get
    their first free repeat id. Two items never share a generated id: that would be an exact duplicate."""
    if repeats:
        free = _free_ids(db, [props[i]["id"] for i in repeats], explicit)
        for i in repeats:
            props[i].update(_id_props(free[props[i]["id"]]))


def derived_input(cfg: Config, *, content: str, title: str, **fields: Any) -> MemoryInput:
    """The input of a memory graphcons derives (an insight, a reflection's statement): its text cut to
    admission's limits, never refused for its length."""
    return MemoryInput(content=content[: cfg.admission.max_content_chars], title=title[: cfg.admission.max_title_chars],
                       **fields)


def admit_derived(tx: Any, cfg: Config, mem: MemoryInput, vec: list[float], now: datetime,
                  **provenance: Any) -> dict[str, Any]:
    """Create a memory graphcons derives, inside the caller's transaction (the approval of its proposal):
    the properties every memory gets (node_props, weights as of `now`) plus `provenance` (its epistemic
    status, proposal, derived_from, ...), its first version and its SIMILAR edges like any memory.
    Returns the stored properties."""
    props = {**node_props(mem, content_hash(mem.content), vec, now, cfg.weights), **provenance}
    neighbours.create(tx, cfg, props, version_props(props, now))
    return props


def version_props(props: dict[str, Any], at: Any) -> dict[str, Any]:
    snap = {k: props[k] for k in VERSION_FIELDS if k in props}
    snap.update(memory_id=props["id"], version=props.get("version", 1), created_at=at)
    return snap


def _create(db: Database, cfg: Config, mem: MemoryInput, chash: str, vec: list[float], now: datetime,
            dedupe: bool = True, deferred: bool = False) -> Admission:
    props = node_props(mem, chash, vec, now, cfg.weights)
    k, exact_max = cfg.admission.similar_k, cfg.admission.exact_scope_max
    if deferred and k:
        props["similar_pending"], k = True, 0  # linked after the put returns (store/linker.py)
    # The audit record memory/admit writes, but for the SIMILAR count only it knows. Every link
    # target exists when the memory is written, so each link gives one MERGE row: linked = len(links).
    op, ids, at, details = _added(props, mem, 0, len(mem.links))
    record = audit.with_count(op, ids, at=at, count="similar", **details)  # its 0 is the placeholder

    generated = props["id"] if mem.id is None else None

    def work(tx: Any) -> Admission:
        if generated:  # a retried transaction starts again from the generated id
            props.update(_id_props(generated))
            record["targets"] = [generated]
        row = admit_row(tx)
        if row["taken"] and generated and not row["missing"] and row["duplicate"] is None:
            # a true repeat (its generated id is taken; nothing was written): the first free repeat id
            props.update(_id_props(_free_ids(tx, [generated])[generated]))
            record["targets"] = [props["id"]]
            row = admit_row(tx)
        if row["missing"]:  # in the order the separate checks had: links, duplicate, id
            raise ValidationError("links.target", f"unknown memory id(s): {', '.join(row['missing'])}")
        if row["duplicate"] is not None:
            return _record(tx, *_add_evidence(tx, row["duplicate"], mem, now))
        if row["taken"]:
            raise IdTaken("id", f"a memory with id {props['id']!r} already exists with different content")
        admission = Admission(id=props["id"], created=True, similar=list(row["neighbours"]), linked=row["linked"])
        if k and row["size"] > exact_max:  # a large scope: the vector index, same transaction, then the record
            admission.similar = neighbours.link_by_index(tx, cfg, props["id"])
            _record(tx, admission, _added(props, mem, len(admission.similar), row["linked"]))
        return admission

    def admit_row(tx: Any) -> dict[str, Any]:
        return tx.run("memory/admit", props={**without_embedding(props), "similar_scheme": neighbours.SCHEME},
                      embedding=props["embedding"],
                      version_props=version_props(props, props["admitted_at"]), k=k, exact_max=exact_max,
                      floor=cfg.consolidation.similarity_floor, live=LIVE_STATUSES,
                      links=[ln.model_dump() for ln in mem.links],
                      link_targets=sorted({ln.target for ln in mem.links}), audit=record, dedupe=dedupe)[0]

    return db.write(work)


def _added(props: dict[str, Any], mem: MemoryInput, similar: int, linked: int) -> tuple:
    """The audit record of one new memory (the same for `admit` and `admit_many`)."""
    return ("add", [props["id"]], props["admitted_at"],
            dict(source=mem.source, origin=mem.origin, namespace=mem.namespace, subject=mem.subject,
                 similar=similar, links=linked))


def _record(tx: Any, admission: Admission, entry: tuple) -> Admission:
    op, targets, at, details = entry
    audit.record(tx, op, targets, at=at, **details)
    return admission


def _write_batch(tx: Any, cfg: Config, mems: list[MemoryInput], props: dict[int, dict[str, Any]],
                 evidence: dict[int, str], now: datetime) -> list[Admission]:
    k, exact_max = cfg.admission.similar_k, cfg.admission.exact_scope_max
    new = sorted(props)
    ids = [props[i]["id"] for i in new]
    similar: dict[int, list[dict[str, Any]]] = {i: [] for i in new}
    if new:
        tx.run("memory/create_many", rows=[{"props": {**without_embedding(props[i]), "similar_scheme": neighbours.SCHEME},
                                            "embedding": props[i]["embedding"],
                                            "version_props": version_props(props[i], props[i]["admitted_at"])}
                                           for i in new])
        groups: dict[tuple[str, str], list[int]] = {}  # the batch's new memories by scope, in order
        for n, i in enumerate(new):
            groups.setdefault((mems[i].namespace, mems[i].subject), []).append(n)
        rows = tx.run("similar/exact_many", ids=ids, position={mid: n for n, mid in enumerate(ids)},
                      groups=[{"namespace": ns, "subject": subject, "items": items}
                              for (ns, subject), items in groups.items()], k=k, earlier_only=False,
                      exact_max=exact_max, floor=cfg.consolidation.similarity_floor, live=LIVE_STATUSES)
        for row in sorted(rows, key=lambda r: r["i"]):
            i = new[row["i"]]
            similar[i] = list(row["neighbours"])
            if k and row["size"] > exact_max:  # the index; later items of the batch do not exist yet
                n = row["i"]
                similar[i] = neighbours.link_by_index(tx, cfg, ids[n], exclude=ids[n + 1:], unindexed=ids[:n])
    out: list[Admission] = []
    records: list[tuple] = []
    for i, mem in enumerate(mems):  # evidence and links in item order, as one by one
        if i in evidence:
            a, entry = _add_evidence(tx, evidence[i], mem, now)
            out.append(a)
            records.append(entry)
            continue
        linked = 0
        if mem.links:
            linked = tx.run("memory/link", id=props[i]["id"], links=[ln.model_dump() for ln in mem.links],
                            now=props[i]["admitted_at"], source=mem.source)[0]["linked"]
        out.append(Admission(id=props[i]["id"], created=True, similar=similar[i], linked=linked))
        records.append(_added(props[i], mem, len(similar[i]), linked))
    marks: dict[tuple[str, str], dict[str, Any]] = {}
    for i in new:
        mk = marks.setdefault((mems[i].namespace, mems[i].subject),
                              {"namespace": mems[i].namespace, "subject": mems[i].subject, "count": 0,
                               "first_at": props[i]["admitted_at"]})
        mk["count"] += 1
        mk["last_at"] = props[i]["admitted_at"]
    if marks:
        tx.run("jobs/mark_dirty_many", marks=list(marks.values()))
    audit.record_many(tx, records)
    return out


def _add_evidence(tx: Any, mem_id: str, mem: MemoryInput, now: datetime) -> tuple[Admission, tuple]:
    """A repeated claim adds evidence to memory `mem_id`; returns it with its audit entry."""
    row = tx.run("memory/add_evidence", id=mem_id, source=mem.source)[0]
    linked = 0
    if mem.links:
        linked = tx.run("memory/link", id=mem_id, links=[ln.model_dump() for ln in mem.links],
                        now=now, source=mem.source)[0]["linked"]
    entry = ("add_evidence", [mem_id], None, dict(source=mem.source, origin=mem.origin, new_source=row["is_new"],
                                                 evidence_count=row["evidence_count"]))
    return Admission(id=mem_id, created=False, evidence_count=row["evidence_count"], linked=linked), entry

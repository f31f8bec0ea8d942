"""/v1 routes over memories: add (one, batch), put (create or new version), get, history, edit, link, access, retrieve,
search, context, explain. Each calls one verb of the Graphcons facade; what the caller writes is
sourced to its token (principal), never to a string it sends."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Response
from fastapi.exceptions import RequestValidationError

from graphcons.api import Graphcons
from graphcons.core.errors import NotFound, ValidationError
from graphcons.core.inputs import check_ids, check_key
from graphcons.core.memory import Memory
from graphcons.recall.query import RecallQuery
from graphcons.service import models as m
from graphcons.service.deps import own_memory, qualified, read_namespace, role, store, unseen, write_namespace
from graphcons.store.admission import BatchItemError
from graphcons.store.tokens import Principal

MAX_ID = 128  # core/memory.py: an explicit id is at most 128 characters

router = APIRouter(prefix="/v1", tags=["memories"])
reader, writer = role("reader"), role("writer")


def _k(g: Graphcons, k: int, where: str) -> int:
    """`k` within its one bound, [service] max_k (issue 50): the served schema states that bound
    (`bound_k`) and a larger `k` is refused as the schema refuses any value out of range (422)."""
    max_k = g.config.service.max_k
    if k > max_k:
        raise RequestValidationError([{"type": "less_than_equal", "loc": (where, "k"), "input": k, "ctx": {"le": max_k},
                                       "msg": f"Input should be less than or equal to {max_k} ([service] max_k)"}])
    return k


def bound_k(schema: dict[str, Any], max_k: int) -> dict[str, Any]:
    """The OpenAPI schema with `k`'s maximum set to the server's [service] max_k (retrieve, search)."""
    schema["components"]["schemas"]["RetrieveQuery"]["properties"]["k"]["maximum"] = max_k
    for param in schema["paths"]["/v1/search"]["get"]["parameters"]:
        if param["name"] == "k":
            param["schema"]["maximum"] = max_k
    return schema


def _session(p: Principal, session: str) -> str:
    """Sessions are per caller, so one caller cannot add its memories to another's session.
    The caller's own text is checked first (the prefix would make a blank session non-blank)."""
    return f"{p.source}/{check_key('session', session)}"


def _scoped_id(namespace: str, memory_id: str) -> str:
    """An explicit id is scoped to its namespace (issue 30): `note-1` written into `team` is
    stored as `team:note-1`, so two tenants may both use `note-1` and a taken id never tells a
    caller what exists in a namespace it cannot see. An id already carrying the prefix is kept,
    so the id a response returned can be sent again."""
    prefix = f"{namespace}:"
    scoped = memory_id if memory_id.startswith(prefix) else prefix + memory_id
    if len(scoped) > MAX_ID:
        raise ValidationError("id", f"is {len(scoped)} characters with its namespace prefix {prefix!r}; "
                                    f"the limit is {MAX_ID}")
    return scoped


def _memory_input(g: Graphcons, p: Principal, body: m.MemoryCreate) -> dict[str, Any]:
    data = body.model_dump(exclude_unset=True)
    data["namespace"] = write_namespace(p, body.namespace)
    data["source"] = p.source
    if body.session is not None:
        data["session"] = _session(p, body.session)
    if body.id is not None:
        data["id"] = _scoped_id(data["namespace"], check_key("id", body.id))
    data["links"] = [{**ln.model_dump(), "target": qualified(g, data["namespace"], ln.target)} for ln in body.links]
    hidden = unseen(g, p, [ln["target"] for ln in data["links"]])
    if hidden:  # the same answer as for an id that does not exist
        raise ValidationError("links.target", f"unknown memory id(s): {', '.join(sorted(hidden))}")
    return data


def _admitted(a: Any) -> m.Admitted:
    return m.Admitted(id=a.id, created=a.created, evidence_count=a.evidence_count, similar=a.similar, linked=a.linked)


@router.post("/memories", response_model=m.Admitted, status_code=201,
             responses={200: {"model": m.Admitted, "description": "an exact duplicate: evidence added"}})
def add(body: m.MemoryCreate, response: Response, g: Graphcons = Depends(store),
        p: Principal = Depends(writer)) -> m.Admitted:
    """Admit one memory (201), or add the caller as evidence to an exact duplicate (200)."""
    admitted = g.add(_memory_input(g, p, body))
    if not admitted.created:
        response.status_code = 200
    return _admitted(admitted)


@router.post("/memories/batch", response_model=m.BatchAdmitted)
def add_batch(body: m.MemoryBatch, g: Graphcons = Depends(store),
              p: Principal = Depends(writer)) -> m.BatchAdmitted:
    """Admit several memories. Every one is validated first; one bad memory refuses the whole
    batch (400 naming `memories[i].field`) and nothing is written."""
    limit = g.config.service.max_batch
    if len(body.memories) > limit:
        raise ValidationError("memories", f"{len(body.memories)} memories; the limit is {limit} per batch")
    inputs = []
    for i, item in enumerate(body.memories):
        try:
            inputs.append(_memory_input(g, p, item))
        except ValidationError as exc:
            raise ValidationError(f"memories[{i}].{exc.field}", exc.problem) from None
    try:  # one transaction: a bad item (a taken id, an unknown link) writes nothing of the batch
        admitted = g.add_many(inputs)
    except BatchItemError as exc:
        raise ValidationError(f"memories[{exc.index}].{exc.field.split('.', 1)[1]}", exc.problem) from None
    return m.BatchAdmitted(results=[_admitted(a) for a in admitted])


@router.put("/memories/{memory_id}", response_model=m.Admitted, status_code=201,
            responses={200: {"model": m.Admitted, "description": "it existed: the body is its new version"}})
def put(memory_id: str, body: m.MemoryCreate, response: Response, g: Graphcons = Depends(store),
        p: Principal = Depends(writer)) -> m.Admitted:
    """Create the memory with this id (201), or make the body's content and metadata its new version
    (200; a retired one is restored first): a store's put in one round trip, a new key no 404 (issue 49)."""
    out = g.put(_memory_input(g, p, body.model_copy(update={"id": memory_id})), source=p.source)
    if isinstance(out, Memory):
        response.status_code = 200
        return m.Admitted(id=out.id, created=False, evidence_count=out.evidence_count)
    return _admitted(out)


@router.get("/memories/{memory_id}", response_model=Memory)
def get(memory_id: str, g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> Memory:
    return own_memory(g, p, memory_id)


@router.get("/memories/{memory_id}/history", response_model=list[dict[str, Any]])
def history(memory_id: str, g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> list[dict[str, Any]]:
    """Every version of the memory, oldest first."""
    own_memory(g, p, memory_id)
    return g.history(memory_id)


@router.patch("/memories/{memory_id}", response_model=Memory)
def edit(memory_id: str, body: m.MemoryEdit, g: Graphcons = Depends(store), p: Principal = Depends(writer)) -> Memory:
    """A new version with these changes (title, content, scope, importance); the old one is kept."""
    own_memory(g, p, memory_id)
    return g.edit(memory_id, source=p.source, **body.model_dump(exclude_unset=True))


@router.post("/memories/{memory_id}/retire", response_model=dict[str, Any])
def retire(memory_id: str, g: Graphcons = Depends(store), p: Principal = Depends(writer)) -> dict[str, Any]:
    """Take the memory out of use with no replacement: archived and kept (never deleted), no longer
    retrieved; `graphcons restore` brings it back. A LangGraph store's delete (issue 42)."""
    own_memory(g, p, memory_id)
    return g.retire(memory_id, reason="retired through the API", by=p.source)


@router.post("/memories/{memory_id}/restore", response_model=dict[str, Any])
def restore(memory_id: str, g: Graphcons = Depends(store), p: Principal = Depends(writer)) -> dict[str, Any]:
    """Bring back a retired (archived) or deprecated memory."""
    own_memory(g, p, memory_id)
    return g.restore(memory_id, by=p.source)


@router.post("/memories/{memory_id}/links", response_model=m.Linked)
def link(memory_id: str, body: m.LinkCreate, g: Graphcons = Depends(store), p: Principal = Depends(writer)) -> m.Linked:
    target = qualified(g, own_memory(g, p, memory_id).namespace, body.target)
    if unseen(g, p, [target]):
        raise ValidationError("links.target", f"unknown memory id(s): {body.target}")
    return m.Linked(linked=g.link(memory_id, target, body.kind, by=p.source))


@router.get("/memories/{memory_id}/explain", response_model=dict[str, Any])
def explain(memory_id: str, g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> dict[str, Any]:
    """How do you know X? The provenance tree down to the source episodes."""
    own_memory(g, p, memory_id)
    return g.explain(memory_id)


@router.post("/access", response_model=m.AccessOut)
def access(body: m.AccessCreate, g: Graphcons = Depends(store), p: Principal = Depends(writer)) -> m.AccessOut:
    """Record that these memories were used together in one of the caller's sessions."""
    session = _session(p, body.session)
    check_ids("ids", body.ids)
    hidden = unseen(g, p, body.ids)
    if hidden:
        raise NotFound(f"unknown memory id(s): {', '.join(hidden)}")
    return m.AccessOut(**g.access(session, body.ids))


@router.post("/retrieve", response_model=m.Hits)
def retrieve(body: m.RetrieveQuery, g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> m.Hits:
    """Nearest memories to a query; a writer's retrieval is recorded as co-access (a reader's never)."""
    _k(g, body.k, "body")
    namespace = read_namespace(p, body.namespace)
    record = body.record and p.has("writer")
    session = _session(p, body.session) if body.session is not None else None
    hits = g.retrieve(RecallQuery.of(g.config.retrieval, body.query, body.k, namespace=namespace, subject=body.subject,
                                     session=session, record=record, as_of=body.as_of, when=body.when,
                                     when_mode=body.when_mode, now=body.now, diverse=body.diverse, mode=body.mode))
    return m.Hits(hits=[h for h in hits if p.sees(h.memory.namespace)], recording=hits.recording,
                  window=hits.window.to_dict() if hits.window else None)


@router.post("/context", response_model=m.ContextOut, response_model_exclude_none=True)
def context(body: m.ContextQuery, g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> m.ContextOut:
    """The text block an agent pastes into its prompt (issue 39): best memories and insight facts until
    the budget (words, tokens or both), each line with its id under a header of its day, no fact twice; a writer's
    use is recorded as co-access. A line carries what the Python line does: `excerpt`, and `superseded_by` /
    `until` for an earlier value (absent when they say nothing)."""
    namespace = read_namespace(p, body.namespace)
    session = _session(p, body.session) if body.session is not None else None
    words, tokens = body.budget()
    q = RecallQuery.for_context(g.config.retrieval, body.query, namespace=namespace, subject=body.subject,
                                session=session, record=body.record and p.has("writer"), as_of=body.as_of,
                                when=body.when, when_mode=body.when_mode, now=body.now)
    ctx = g.context(q, words, budget_tokens=tokens)
    return m.ContextOut(**ctx.to_dict())


@router.get("/memories", response_model=list[Memory])
def listing(namespace: str | None = Query(None, max_length=100), subject: str | None = Query(None, max_length=200),
            limit: int = Query(100, ge=1, le=1000), offset: int = Query(0, ge=0),
            g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> list[Memory]:
    """One page of a namespace's (and subject's) live memories, oldest first."""
    ns = write_namespace(p, namespace)  # one namespace, the caller's
    return g.memories(ns, subject=subject, limit=limit, offset=offset)


@router.get("/scopes", response_model=list[tuple[str, str]])
def scopes(namespace: str | None = Query(None, max_length=100), under: str | None = Query(None, min_length=1,
                                                                                          max_length=200),
           g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> list[tuple[str, str]]:
    """Every (namespace, subject) the caller sees that holds a live memory; with `namespace` and `under`,
    only that namespace's subject `under` and those nested under it (`under/...`: a store's search prefix,
    one index seek instead of every memory)."""
    if under is not None:
        if namespace is None:
            raise ValidationError("namespace", "is needed with under: subjects are nested within one namespace")
        ns = read_namespace(p, namespace)
        return [(ns, s) for s in g.subjects_under(ns, under)]
    return g.scopes(namespaces=None if p.everywhere else list(p.namespaces))


@router.get("/search", response_model=m.Hits)
def search(text: str = Query(min_length=1, max_length=2000), k: int = Query(10, ge=1),
           namespace: str | None = Query(None, max_length=100),
           g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> m.Hits:
    """Keyword search (full-text index); records nothing."""
    hits = g.search(text, k=_k(g, k, "query"), namespace=read_namespace(p, namespace))
    return m.Hits(hits=[h for h in hits if p.sees(h.memory.namespace)])

"""graphcons as LangGraph's long-term memory store (issue 42): `GraphconsStore`, a `BaseStore`.

    from graphcons import Graphcons
    from graphcons.integrations.langgraph import GraphconsStore
    store = GraphconsStore(Graphcons())                       # in process, every namespace
    store = GraphconsStore.over_http("http://api:8765", tok)  # the HTTP API: only the token's namespaces

Namespace tuples: the first label is graphcons' namespace, the rest joined by "/" its subject:
("memories", "u1") -> namespace "memories", subject "u1"; ("memories", "u1", "prefs") -> subject
"u1/prefs"; ("memories",) -> subject "general" (graphcons' default subject, so it lists as the
one-label tuple). Labels may not contain "/" and the first one is [A-Za-z0-9_.-]+ without ".".

An item is a memory: its key an explicit id scoped to the namespace (`<namespace>:lg-<hash of the
tuple and key>`), the value's text (value["text"], ["content"], ["memory"], or LangMem's
{"content": {"content": ...}}; else its JSON) as content, and the whole value kept as metadata and
returned as it was put. A second put makes a new version (the old one is kept); `delete` retires the
memory (archived, never deleted; `graphcons restore` brings it back) and get / search stop returning
it. `search(prefix, query=...)` is graphcons' retrieve (hybrid scores; no co-access recorded), then
the value filter (LangGraph's operators) and limit / offset; without a query, the scope's items oldest
first. Insights and reflection's semantic memories in the scope come back like items, keyed by their
memory id, with their provenance ids in the value (`summarizes`, `derived_from`); an entity's profile
comes back as the item "profile" of its (namespace, subject). One difference from InMemoryStore: the
same text put twice in one (namespace, subject) is one memory (graphcons adds evidence to the first),
so the second key is not found.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from datetime import datetime
from typing import Any, Iterable

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from graphcons.api import Graphcons
from graphcons.core.memory import Memory
from graphcons.integrations.backend import Http, Local

DEFAULT_SUBJECT = "general"
PROFILE_KEY = "profile"
_NAMESPACE = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
TEXT_KEYS = ("text", "content", "memory")


class GraphconsStore(BaseStore):
    """A LangGraph store over graphcons; sync `batch`, async `abatch` (the same calls in a thread)."""

    supports_ttl = False

    def __init__(self, graphcons: Graphcons | Local | Http):
        self.backend = Local(graphcons) if isinstance(graphcons, Graphcons) else graphcons

    @classmethod
    def over_http(cls, url: str, token: str) -> "GraphconsStore":
        return cls(Http(url, token))

    # -- BaseStore ------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        out: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                out.append(self._get(op.namespace, op.key))
            elif isinstance(op, PutOp):
                self._put(op.namespace, op.key, op.value)
                out.append(None)
            elif isinstance(op, SearchOp):
                out.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                out.append(self._list_namespaces(op))
            else:
                raise ValueError(f"unknown operation {type(op).__name__}")
        return out

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # -- the mapping ------------------------------------------------------------------------
    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        ns, subject = scope(namespace)
        mem = self.backend.get(self.backend.scoped_id(ns, item_id(namespace, key)))
        if mem is None and key == PROFILE_KEY and len(namespace) > 1:  # an item the caller put wins
            return self._profile_item(namespace, ns, subject)
        if mem is None and key_shaped(key):  # an insight or any memory, by its own id
            mem = self.backend.get(key)
        if mem is None or mem.status not in LIVE or mem.namespace != ns or to_namespace(mem) != tuple(namespace):
            return None
        return to_item(mem)

    def _put(self, namespace: tuple[str, ...], key: str, value: dict[str, Any] | None) -> None:
        ns, subject = scope(namespace)
        mem_id = self.backend.scoped_id(ns, item_id(namespace, key))
        mem = self.backend.get(mem_id)
        if value is None:
            if mem is not None and mem.status in LIVE:
                self.backend.retire(mem_id)
            return
        if not isinstance(value, dict):
            raise ValueError(f"value must be a dict, got {type(value).__name__}")
        metadata = {"langgraph": {"namespace": list(namespace), "key": key}, "value": value}
        if mem is None:
            self.backend.add({"id": mem_id, "content": text_of(value), "namespace": ns, "subject": subject,
                              "metadata": metadata})
            return
        if mem.status not in LIVE:
            self.backend.restore(mem_id)
        self.backend.edit(mem_id, content=text_of(value), metadata=metadata)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        want = op.offset + op.limit
        found: list[SearchItem] = []
        for ns, subject in self._search_scopes(prefix):
            if op.query:
                found += [to_item(m, score) for m, score in self.backend.retrieve(op.query, max(want, 1) * 4, ns,
                                                                                      subject)]
            else:
                found += [to_item(m) for m in self._all(ns, subject)]
            if subject is not None and len(prefix) > 1 and (p := self._profile_item(to_tuple(ns, subject), ns, subject)):
                found.append(p)
        seen: set[tuple[tuple[str, ...], str]] = set()
        kept = []
        for it in found:
            if (it.namespace, it.key) in seen or it.namespace[:len(prefix)] != prefix:
                continue
            seen.add((it.namespace, it.key))
            if all(matches(it.value.get(k), v) for k, v in (op.filter or {}).items()):
                kept.append(it)
        if op.query:
            kept.sort(key=lambda it: (-(it.score or 0.0), it.key))
        return kept[op.offset:op.offset + op.limit]

    def _search_scopes(self, prefix: tuple[str, ...]) -> list[tuple[str, str | None]]:
        """The (namespace, subject) pairs a prefix covers; subject None = the whole namespace."""
        if not prefix:
            return sorted({(ns, None) for ns, _ in self.backend.scopes()})
        ns, _ = scope(prefix)
        if len(prefix) == 1:
            return [(ns, None)]
        return [(n, s) for n, s in self.backend.scopes() if n == ns and to_tuple(n, s)[:len(prefix)] == prefix]

    def _all(self, ns: str, subject: str | None, page: int = 500) -> list[Memory]:
        out, offset = [], 0
        while True:
            batch = self.backend.members(ns, subject, page, offset)
            out += batch
            if len(batch) < page:
                return out
            offset += page

    def _profile_item(self, namespace: tuple[str, ...], ns: str, subject: str) -> SearchItem | None:
        prof = self.backend.profile(ns, subject)
        if not prof:
            return None
        value = {"kind": "profile", "text": prof.get("summary") or "",
                 **{k: prof.get(k) for k in ("preferences", "behaviors", "facts", "memory_ids", "source_ids",
                                             "version")}}
        created, updated = (_instant(prof.get(k)) for k in ("created_at", "updated_at"))
        return SearchItem(namespace=namespace, key=PROFILE_KEY, value=value, created_at=created,
                          updated_at=updated or created)

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = {to_tuple(ns, subject) for ns, subject in self.backend.scopes()}
        kept = [t for t in found if all(namespace_matches(c, t) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            kept = list({t[:op.max_depth] for t in kept})
        return sorted(kept)[op.offset:op.offset + op.limit]


LIVE = ("proposed", "active", "consolidated")


def scope(namespace: tuple[str, ...]) -> tuple[str, str]:
    """A LangGraph namespace tuple -> (graphcons namespace, subject)."""
    if not namespace:
        raise InvalidNamespaceError("a namespace needs at least one label (the graphcons namespace)")
    if not _NAMESPACE.match(namespace[0]):
        raise InvalidNamespaceError(f"the first label {namespace[0]!r} is graphcons' namespace: 1-100 characters "
                                    "of letters, digits, _ and -")
    for label in namespace[1:]:
        if not isinstance(label, str) or not label or "/" in label or "." in label:
            raise InvalidNamespaceError(f"label {label!r}: a non-empty string without '/' or '.'")
    return namespace[0], "/".join(namespace[1:]) or DEFAULT_SUBJECT


def _instant(v: Any) -> datetime | None:
    return datetime.fromisoformat(v) if isinstance(v, str) else v  # the HTTP API sends ISO-8601 text


def to_tuple(ns: str, subject: str) -> tuple[str, ...]:
    return (ns,) if subject == DEFAULT_SUBJECT else (ns, *subject.split("/"))


def to_namespace(mem: Memory) -> tuple[str, ...]:
    lg = (mem.metadata or {}).get("langgraph")
    return tuple(lg["namespace"]) if lg else to_tuple(mem.namespace, mem.subject)


def item_id(namespace: tuple[str, ...], key: str) -> str:
    """A key's memory id within its namespace: a hash, so any key (spaces, slashes) makes a valid id."""
    digest = hashlib.sha256(json.dumps([list(namespace), key]).encode()).hexdigest()[:24]
    return f"lg-{digest}"


def key_shaped(key: str) -> bool:
    return bool(re.match(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$", key))


def text_of(value: dict[str, Any]) -> str:
    for k in TEXT_KEYS:
        v = value.get(k)
        if isinstance(v, str) and v.strip():
            return v
        if isinstance(v, dict):  # LangMem: {"kind": "Memory", "content": {"content": "..."}}
            inner = v.get("content")
            if isinstance(inner, str) and inner.strip():
                return inner
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def to_item(mem: Memory, score: float | None = None) -> SearchItem:
    lg = (mem.metadata or {}).get("langgraph")
    if lg:
        namespace, key, value = tuple(lg["namespace"]), lg["key"], mem.metadata["value"]
    else:  # a memory graphcons made or was given directly: an insight, a semantic memory, an episode
        namespace, key = to_tuple(mem.namespace, mem.subject), mem.id
        value = {"text": mem.content, "kind": mem.kind, "title": mem.title, "status": mem.status}
        if mem.epistemic_status:
            value["epistemic_status"] = mem.epistemic_status
        for k in ("summarizes", "derived_from"):
            if getattr(mem, k):
                value[k] = list(getattr(mem, k))
    return SearchItem(namespace=namespace, key=key, value=value, created_at=mem.created_at,
                      updated_at=mem.updated_at or mem.created_at, score=score)


def namespace_matches(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    """LangGraph's prefix / suffix match with "*" wildcards."""
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    pairs = zip(ns, path) if cond.match_type == "prefix" else zip(reversed(ns), reversed(path))
    return all(p == "*" or k == p for k, p in pairs)


def matches(actual: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics: equality, nested objects, and $eq $ne $gt $gte $lt $lte."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_operator(actual, op, v) for op, v in wanted.items())
        return isinstance(actual, dict) and all(matches(actual.get(k), v) for k, v in wanted.items())
    return actual == wanted


def _operator(actual: Any, op: str, v: Any) -> bool:
    if op == "$eq":
        return actual == v
    if op == "$ne":
        return actual != v
    if actual is None:
        return False
    compare = {"$gt": float.__gt__, "$gte": float.__ge__, "$lt": float.__lt__, "$lte": float.__le__}.get(op)
    if compare is None:
        raise ValueError(f"unsupported filter operator {op!r}")
    return compare(float(actual), float(v))

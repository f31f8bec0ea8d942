"""graphcons as LangGraph's long-term memory store (issues 42, 49): `GraphconsStore`, a `BaseStore`.

    from graphcons import Graphcons
    from graphcons.integrations.langgraph import GraphconsStore
    store = GraphconsStore(Graphcons())                       # in process, every namespace
    store = GraphconsStore.over_http("http://api:8765", tok)  # the HTTP API: only the token's namespaces
    store = GraphconsStore(g, index={"fields": ["data"]}, include_insights=False)

Namespace tuples: the first label is graphcons' namespace, the rest joined by "/" its subject:
("memories", "u1") -> namespace "memories", subject "u1"; ("memories", "u1", "prefs") -> subject
"u1/prefs"; ("memories",) -> subject "general" (graphcons' default subject, so it lists as the
one-label tuple). A "/" inside a label is written %2F in the subject (and "%" %25); labels may not
contain "." (LangGraph's rule) and the first one is [A-Za-z0-9_-]+.

An item is a memory: its key an explicit id scoped to the namespace (`<namespace>:lg-<hash of the
tuple and key>`), the value's text (shapes.py: the `index` fields, else `data`, `text`, `content`,
`memory` or LangMem's shape, else the value's JSON) as content, and the whole value kept as metadata
and returned as it was put. A second put makes a new version (the old one is kept); `delete` retires
the memory (archived, never deleted). `search(prefix, query=...)` is graphcons' retrieve (its order, no
diversity step; no co-access recorded; an insight shown carries its members' facts, so they are not
listed again unless a filter asks for the items' own fields), read deeper until the filter passes
offset + limit items, then filled with every other passing item unscored, as InMemoryStore fills
with its unindexed ones; without a query, the scope's items oldest first. What consolidation and
reflection made comes back in the namespace's value shape, its kind and provenance under the
reserved key `_graphcons` (or not at all with include_insights=False); a write to it edits it
(graphcons' edit: a new version), a delete reverts an insight's consolidation. See
docs/INTEGRATIONS.md for what still differs from InMemoryStore.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from datetime import datetime
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Literal
from urllib.parse import unquote, urlsplit

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
from graphcons.core import tracing
from graphcons.core.config import load_config
from graphcons.core.memory import Memory, metadata_json
from graphcons.consolidation import insight
from graphcons.integrations import shapes
from graphcons.integrations.backend import Http, Local, time_args
from graphcons.recall.hits import Hit, Member, Mode

DEFAULT_SUBJECT = "general"
PROFILE_KEY = "profile"
MODES = tuple(m.value for m in Mode)  # retrieve's modes, as `mode` may name them
_NAMESPACE = re.compile(r"^[A-Za-z0-9_-]{1,100}$")


class GraphconsStore(BaseStore):
    """A LangGraph store over graphcons; sync `batch`, async `abatch` (the same calls in a thread).

    `index`: LangGraph's IndexConfig; its `fields` say which value fields are the text (default:
    detected, see shapes.py); `embed` / `dims` naming another embedder than graphcons' are refused.
    `include_insights=False` leaves out what consolidation and reflection made (insights, semantic
    memories, profiles): the store then answers with what was put only. `warm`: load the embedder
    and open the driver (or the HTTP connection) now, so the first call is not the slow one. `mode`:
    retrieve's for a query search (None: `[retrieval] mode`, hybrid by default); "vector" is the
    nearest items only, as LangGraph's stores rank (no keyword list, no graph step: faster, and on the
    dev data less accurate: docs/RETRIEVAL.md)."""

    supports_ttl = False

    def __init__(self, graphcons: Graphcons | Local | Http, *, index: dict[str, Any] | None = None,
                 include_insights: bool = True, warm: bool = True, mode: str | None = None):
        if mode is not None and mode not in MODES:
            raise ValueError(f"mode must be {', '.join(MODES[:-1])} or {MODES[-1]} (got {mode!r})")
        self.mode = mode
        self.backend = Local(graphcons) if isinstance(graphcons, Graphcons) else graphcons
        self.fields = None if index is None else shapes.index_fields(index, *self.backend.embedder_identity())
        self.include_insights = include_insights
        self._paths: dict[tuple[str, ...], str] = {}  # namespace tuple -> the text path it was written with
        if warm:
            with tracing.span("langgraph warm-up"):
                self.backend.warm()

    @classmethod
    def over_http(cls, url: str, token: str, **kw: Any) -> "GraphconsStore":
        return cls(Http(url, token), **kw)

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, *, token: str | None = None, config: Any = None,
                         **kw: Any) -> Iterator["GraphconsStore"]:
        """LangGraph's constructor shape (PostgresStore.from_conn_string): a Neo4j URI
        (`neo4j://user:password@host:7687`; the rest from graphcons.toml / the environment, or
        `config`), or the HTTP API's URL with `token`. The store and what it opened close on exit."""
        if conn_string.startswith(("http://", "https://")):
            if not token:
                raise ValueError("an HTTP URL needs token= (a graphcons API token: graphcons tokens create)")
            with cls.over_http(conn_string, token, **kw) as store:
                yield store
            return
        cfg = config if config is not None else load_config()
        url = urlsplit(conn_string)
        neo4j = cfg.neo4j.model_copy(update={"uri": f"{url.scheme}://{url.hostname}" + (f":{url.port}" if url.port else ""),
                                             "user": unquote(url.username or "") or cfg.neo4j.user,
                                             "password": unquote(url.password or "") or cfg.neo4j.password})
        with Graphcons(cfg.model_copy(update={"neo4j": neo4j})) as g, cls(g, **kw) as store:
            yield store

    def close(self) -> None:
        """Close what the store opened (the HTTP client); a Graphcons passed in is the caller's to close."""
        self.backend.close()

    def __enter__(self) -> "GraphconsStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- BaseStore ------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        out: list[Result] = []
        for op in ops:
            with tracing.span(f"langgraph {type(op).__name__}"):  # the op's kind only, never its keys or text
                out.append(self._one(op))
        return out

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            return self._put(op.namespace, op.key, op.value, op.index)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"unknown operation {type(op).__name__}")

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def search(self, namespace_prefix: tuple[str, ...], /, *, query: str | None = None,
               filter: dict[str, Any] | None = None, limit: int = 10, offset: int = 0,
               refresh_ttl: bool | None = None, as_of: Any = None, when: str | None = None,
               when_mode: str | None = None, now: Any = None) -> list[SearchItem]:
        """BaseStore's search, plus retrieve's time arguments (issue 63) for a query search: `as_of`
        answers with what was current then, `when` / `when_mode` rank or restrict by event time, `now`
        is what the query's own "last month" is counted from (issue 61). With any of them the page
        holds retrieve's answers only (no unscored fill: it would bring back what they leave out).
        LangGraph's SearchOp has no place for them, so such a call skips `batch`."""
        times = time_args(as_of=as_of, when=when, when_mode=when_mode, now=now)
        if not times:
            return super().search(namespace_prefix, query=query, filter=filter, limit=limit, offset=offset,
                                  refresh_ttl=refresh_ttl)
        if not query:
            raise ValueError(f"{', '.join(times)} rank a query search: pass query= as well")
        with tracing.span("langgraph SearchOp"):
            return self._search(SearchOp(tuple(namespace_prefix), filter, limit, offset, query), times)

    async def asearch(self, namespace_prefix: tuple[str, ...], /, *, query: str | None = None,
                      filter: dict[str, Any] | None = None, limit: int = 10, offset: int = 0,
                      refresh_ttl: bool | None = None, as_of: Any = None, when: str | None = None,
                      when_mode: str | None = None, now: Any = None) -> list[SearchItem]:
        return await asyncio.to_thread(self.search, namespace_prefix, query=query, filter=filter, limit=limit,
                                       offset=offset, refresh_ttl=refresh_ttl, as_of=as_of, when=when,
                                       when_mode=when_mode, now=now)

    # -- get / put ------------------------------------------------------------------------
    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        ns, subject = scope(namespace)
        mem = self.backend.get(self.backend.scoped_id(ns, item_id(namespace, key)))
        if mem is None and key == PROFILE_KEY and len(namespace) > 1:  # an item the caller put wins
            return self._profile_item(tuple(namespace), ns, subject)
        if mem is None:
            mem = self._derived(tuple(namespace), ns, key)
        if mem is None or mem.status not in LIVE or mem.namespace != ns or to_namespace(mem) != tuple(namespace):
            return None
        return self._item(mem)

    def _derived(self, namespace: tuple[str, ...], ns: str, key: str) -> Memory | None:
        """The memory graphcons made (an insight, a semantic memory) keyed `key` in this namespace."""
        if not self.include_insights or not key_shaped(key):
            return None
        mem = self.backend.get(key)
        if mem is None or is_item(mem) or mem.namespace != ns or to_namespace(mem) != namespace:
            return None
        return mem if mem.status in LIVE else None

    def _put(self, namespace: tuple[str, ...], key: str, value: dict[str, Any] | None,
             index: Literal[False] | list[str] | None = None) -> None:
        ns, subject = scope(namespace)
        if made_key(key) and (made := self._derived(tuple(namespace), ns, key)) is not None:
            return self._write_derived(tuple(namespace), made, value)
        mem_id = self.backend.scoped_id(ns, item_id(namespace, key))
        if value is None:
            return self._delete(tuple(namespace), ns, subject, key, mem_id)
        if not isinstance(value, dict):
            raise ValueError(f"value must be a dict, got {type(value).__name__}")
        value = {k: v for k, v in value.items() if k != shapes.RESERVED}  # graphcons' note on a value read back
        text, path, indexed = shapes.text_at(value, self.fields if index is None else (index or None))
        lg: dict[str, Any] = {"namespace": list(namespace), "key": key, "text": path}
        if index is False or not indexed:
            lg["index"] = False  # searched by query like LangGraph's unindexed items: after every scored one
        metadata = {"langgraph": lg, "value": value}
        try:
            metadata_json(metadata)  # checked here so a LangGraph caller gets a ValueError about its value
        except ValueError as exc:
            raise ValueError(f"the value with its key and namespace {exc} (graphcons keeps an item's value "
                             "beside its text, bounded)") from None
        self._paths[tuple(namespace)] = path
        self.backend.put({"id": mem_id, "content": text, "namespace": ns, "subject": subject, "metadata": metadata})
        return None

    def _delete(self, namespace: tuple[str, ...], ns: str, subject: str, key: str, mem_id: str) -> None:
        mem = self.backend.get(mem_id)
        if mem is not None and mem.status in LIVE:
            self.backend.retire(mem_id)
        elif mem is None and key == PROFILE_KEY and self._profile_item(namespace, ns, subject):
            raise ValueError("the profile is reflection's (graphcons reflect); change it by reflecting again or "
                             "reject its proposal in the review queue, not through the store")
        return None

    def _write_derived(self, namespace: tuple[str, ...], mem: Memory, value: dict[str, Any] | None) -> None:
        """A write to a memory graphcons made goes through graphcons' own paths: a value edits its
        text (a new version, audited); None reverts an insight's consolidation (its members come
        back) or retires a semantic memory. Never a copy beside it."""
        if value is None:
            if mem.kind == "insight":
                self.backend.revert(mem.id)
            else:
                self.backend.retire(mem.id)
            return None
        if not isinstance(value, dict):
            raise ValueError(f"value must be a dict, got {type(value).__name__}")
        self.backend.edit(mem.id, content=shapes.written_text(value, self._path_for(namespace, mem)))
        return None

    # -- search ---------------------------------------------------------------------------
    def _search(self, op: SearchOp, times: dict[str, Any] | None = None) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        want = op.offset + op.limit
        scopes = self._search_scopes(prefix)
        if not op.query:
            return self._passing(self._listed(scopes, prefix), prefix, op.filter)[op.offset:want]
        carried: set[tuple[tuple[str, ...], str]] = set()  # members an insight of the page carries
        kept = self._ranked(op.query, scopes, prefix, op.filter, want, times or {}, carried)
        if len(kept) < want and not times:  # every item the filter passes is an answer (InMemoryStore's unscored fill)
            have = {(it.namespace, it.key) for it in kept} | carried
            shown = {self.backend.scoped_id(it.namespace[0], item_id(it.namespace, it.key)) for it in kept}
            kept += [it for it in self._passing(self._listed(scopes, prefix), prefix, op.filter)
                     if (it.namespace, it.key) not in have and not _restates(it, shown)]
        return kept[op.offset:want]

    def _ranked(self, query: str, scopes: list[tuple[str, str | None]], prefix: tuple[str, ...],
                flt: dict[str, Any] | None, want: int, times: dict[str, Any],
                carried: set[tuple[tuple[str, ...], str]]) -> list[SearchItem]:
        """retrieve's ranking (its order kept within a scope), read deeper until `want` pass the filter."""
        k = min(self.backend.max_k, max(2 * want, 10))
        while True:
            found: list[SearchItem] = []
            exhausted = True
            for ns, subject in scopes:
                hits = self.backend.retrieve(query, k, ns, subject, diverse=False, mode=self.mode, **times)
                exhausted = exhausted and len(hits) < k  # fewer than k shown: nothing more to read
                # a superseded item names its successor by key (the successor is shown too: retrieve brings it)
                keys = {m.id: item_key(m) for h in hits for m in [h.memory, *(x.memory for x in h.members or [])]}
                # an insight shown carries its members' facts (retrieve routed it so): they are not listed
                # again beside it (issue 63: each fact once a page), unless the store leaves insights out
                # or a filter asks for the items' own fields (an insight has none of them)
                listed = not self.include_insights or bool(flt)
                # a member carried is an item with its own relevance and, when an update superseded it, its successor
                pairs = [pair for h in hits for pair in [(h.memory, h.score, h), *(
                    (m.memory, m.relevance, m) for m in h.members or [] if listed)]]
                if not listed:
                    carried |= {(to_namespace(m.memory), item_key(m.memory)) for h in hits for m in h.members or []}
                found += [it for m, score, h in pairs if not unindexed(m)
                          and (it := self._item(m, score, _newer(h, keys))) is not None]
            if len(scopes) > 1:
                found.sort(key=lambda it: -(it.score or 0.0))
            kept = self._passing(found, prefix, flt)
            if len(kept) >= want or exhausted or k >= self.backend.max_k:
                return kept
            k = min(self.backend.max_k, k * 4)

    def _passing(self, found: list[SearchItem], prefix: tuple[str, ...], flt: dict[str, Any] | None) -> list[SearchItem]:
        seen: set[tuple[tuple[str, ...], str]] = set()
        kept = []
        for it in found:
            if (it.namespace, it.key) in seen or it.namespace[:len(prefix)] != prefix:
                continue
            seen.add((it.namespace, it.key))
            if all(matches(it.value.get(k), v) for k, v in (flt or {}).items()):
                kept.append(it)
        return kept

    def _listed(self, scopes: list[tuple[str, str | None]], prefix: tuple[str, ...]) -> list[SearchItem]:
        """Every live item of the scopes, oldest first, each scope's profile after its items."""
        out: list[SearchItem] = []
        for ns, subject in scopes:
            out += [it for m in self._all(ns, subject) if (it := self._item(m)) is not None]
            if subject is not None and len(prefix) > 1 and (p := self._profile_item(to_tuple(ns, subject), ns, subject)):
                out.append(p)
        return out

    def _search_scopes(self, prefix: tuple[str, ...]) -> list[tuple[str, str | None]]:
        """The (namespace, subject) pairs a prefix covers; subject None = the whole namespace."""
        if not prefix:
            return sorted({(ns, None) for ns, _ in self.backend.scopes()})
        ns, subject = scope(prefix)
        if len(prefix) == 1:
            return [(ns, None)]
        return [(ns, s) for s in self.backend.subjects_under(ns, subject) if to_tuple(ns, s)[:len(prefix)] == prefix]

    def _all(self, ns: str, subject: str | None, page: int = 500) -> list[Memory]:
        out, offset = [], 0
        while True:
            batch = self.backend.members(ns, subject, page, offset)
            out += batch
            if len(batch) < page:
                return out
            offset += page

    # -- items ----------------------------------------------------------------------------
    def _item(self, mem: Memory, score: float | None = None, newer: dict[str, Any] | None = None) -> SearchItem | None:
        """A memory as an item: what was put as it was put; what graphcons made in the shape its
        namespace was written with (None when the store leaves those out). `newer` (a value an
        update superseded: its successor's key and since when) goes under `_graphcons`, with the
        memory's kind and event time: on a put item, the one thing graphcons adds to its value."""
        lg = (mem.metadata or {}).get("langgraph")
        if lg:
            namespace, value = tuple(lg["namespace"]), mem.metadata["value"]
            self._paths.setdefault(namespace, lg.get("text") or shapes.detected_path(value))
            if newer:
                value = {**value, shapes.RESERVED: {"id": mem.id, "kind": mem.kind, **_event(mem), **newer}}
            return SearchItem(namespace=namespace, key=lg["key"], value=value, created_at=mem.created_at,
                              updated_at=mem.updated_at or mem.created_at, score=score)
        if not self.include_insights:
            return None
        namespace = to_tuple(mem.namespace, mem.subject)
        made = {"id": mem.id, "kind": mem.kind, "title": mem.title, "status": mem.status, **_event(mem)}
        if mem.epistemic_status:
            made["epistemic_status"] = mem.epistemic_status
        for k in ("summarizes", "derived_from"):
            if getattr(mem, k):
                made[k] = list(getattr(mem, k))
        text = mem.content
        if mem.kind == "insight":  # its facts only: what a reviewer reads beside them is no line for a prompt
            text, apart = insight.reading(mem.content)
            made.update(apart)
        value = {**shapes.placed(self._path_for(namespace, mem), text), shapes.RESERVED: {**made, **(newer or {})}}
        return SearchItem(namespace=namespace, key=mem.id, value=value, created_at=mem.created_at,
                          updated_at=mem.updated_at or mem.created_at, score=score)

    def _path_for(self, namespace: tuple[str, ...], mem: Memory | None = None, ids: list[str] | None = None) -> str | None:
        """The text path `namespace` was written with: known from this store's reads and writes,
        else read off one of the memories `mem` was made from (one get)."""
        if namespace in self._paths:
            return self._paths[namespace]
        if ids is None:
            ids = [*(mem.summarizes or []), *(mem.derived_from or [])] if mem is not None else []
        for source_id in ids[:1]:
            source = self.backend.get(source_id)
            if source is not None and is_item(source):
                lg = source.metadata["langgraph"]
                return self._paths.setdefault(namespace, lg.get("text") or shapes.detected_path(source.metadata["value"]))
        return None

    def _profile_item(self, namespace: tuple[str, ...], ns: str, subject: str) -> SearchItem | None:
        if not self.include_insights:
            return None
        prof = self.backend.profile(ns, subject)
        if not prof:
            return None
        made = {"kind": "profile", **{k: prof.get(k) for k in ("preferences", "behaviors", "facts", "memory_ids",
                                                                "source_ids", "version")}}
        path = self._path_for(namespace, ids=list(prof.get("source_ids") or prof.get("memory_ids") or []))
        value = {**shapes.placed(path, prof.get("summary") or ""), shapes.RESERVED: made}
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


def item_key(mem: Memory) -> str:
    """The key a memory is read by through the store: the put key of an item, the id of what graphcons made."""
    lg = (mem.metadata or {}).get("langgraph")
    return lg["key"] if lg else mem.id


def _newer(hit: Hit | Member | None, keys: dict[str, str]) -> dict[str, Any] | None:
    """A superseded hit's (or carried member's) successor as the store names it (its key: updates never cross a namespace
    and subject, so it is in the same namespace tuple) and since when; None for a current value."""
    if hit is None or hit.superseded_by is None:
        return None
    return {"superseded_by": keys.get(hit.superseded_by, hit.superseded_by), "until": hit.until}


def _restates(it: SearchItem, shown: set[str]) -> bool:
    """An item graphcons made from memories the page already shows (the fill would repeat their facts)."""
    made = it.value.get(shapes.RESERVED) if isinstance(it.value, dict) else None
    return bool(made and made.get("kind") != "item" and set(made.get("summarizes") or []) & shown)


def _event(mem: Memory) -> dict[str, str]:
    """When what the memory says happened (core/eventtime), where its text says so."""
    return {k: v for k in ("event_start", "event_end") if (v := getattr(mem, k))}


def scope(namespace: tuple[str, ...]) -> tuple[str, str]:
    """A LangGraph namespace tuple -> (graphcons namespace, subject)."""
    if not namespace:
        raise InvalidNamespaceError("a namespace needs at least one label (the graphcons namespace)")
    if not _NAMESPACE.match(namespace[0]):
        raise InvalidNamespaceError(f"the first label {namespace[0]!r} is graphcons' namespace: 1-100 characters "
                                    "of letters, digits, _ and -")
    for label in namespace[1:]:
        if not isinstance(label, str) or not label or "." in label:  # LangGraph's own rule: no "." in a label
            raise InvalidNamespaceError(f"label {label!r}: a non-empty string without '.'")
    return namespace[0], "/".join(_escaped(label) for label in namespace[1:]) or DEFAULT_SUBJECT


def _escaped(label: str) -> str:
    """A label inside the subject: "/" joins labels there, so a "/" in one (a user id like
    org/alice) is written %2F, and "%" is written %25 so that reading it back is exact."""
    return label.replace("%", "%25").replace("/", "%2F")


def _instant(v: Any) -> datetime | None:
    return datetime.fromisoformat(v) if isinstance(v, str) else v  # the HTTP API sends ISO-8601 text


def to_tuple(ns: str, subject: str) -> tuple[str, ...]:
    labels = subject.split("/")
    return (ns,) if subject == DEFAULT_SUBJECT else (ns, *(x.replace("%2F", "/").replace("%25", "%") for x in labels))


def to_namespace(mem: Memory) -> tuple[str, ...]:
    lg = (mem.metadata or {}).get("langgraph")
    return tuple(lg["namespace"]) if lg else to_tuple(mem.namespace, mem.subject)


def item_id(namespace: tuple[str, ...], key: str) -> str:
    """A key's memory id within its namespace: a hash, so any key (spaces, slashes) makes a valid id."""
    digest = hashlib.sha256(json.dumps([list(namespace), key]).encode()).hexdigest()[:24]
    return f"lg-{digest}"


def key_shaped(key: str) -> bool:
    return bool(re.match(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$", key))


def is_item(mem: Memory) -> bool:
    """Put through the store (its namespace, key and value kept in its metadata)."""
    return bool((mem.metadata or {}).get("langgraph"))


def made_key(key: str) -> bool:
    """Shaped like the id of a memory graphcons made or admitted itself (an insight `ins-`, a semantic
    memory of reflection `sem-`, a memory added without an id `m-`): a write to such a key asks
    whether it is one (a UUID or any other key is an item's, with no lookup first)."""
    return key.startswith(("ins-", "sem-", "m-")) and key_shaped(key)


def unindexed(mem: Memory) -> bool:
    return (mem.metadata or {}).get("langgraph", {}).get("index") is False


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

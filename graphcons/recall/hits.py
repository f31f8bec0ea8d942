"""What retrieval shows, typed (issue 46): a `Hit` is one memory shown for a query, with its score,
the scores that brought it there and, for an insight (or another derived memory), the members it
carries. Ranking works on mutable `Candidate`s; what leaves `retrieve` is frozen.

A hit is read by its attributes (`hit.memory`, `hit.members`; issue 60: the dict-style reading it
kept while callers moved is gone). `to_dict()` is its one wire shape: the optional parts appear only
when they say something, as before; `decode` reads that shape back (the HTTP API's answer). `Hit` and `Member` are also the HTTP
API's schema of a hit (issue 60: every field, null when it says nothing), and MCP's recall shows
`to_dict()` with its own view of a memory.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, ClassVar

from pydantic import Field, TypeAdapter

from graphcons.core.memory import Memory


class Mode(StrEnum):
    """How candidates are found: both lists fused with the graph step, or one list alone."""

    HYBRID = "hybrid"
    VECTOR = "vector"
    KEYWORD = "keyword"


class InsightMode(StrEnum):
    """How insights are shown: an insight routes to the members it cites, or carries them where it
    says their content in fewer tokens ("digest", issue 61), members nested under it ("group"), or
    every memory in its own place ("plain")."""

    DIGEST = "digest"
    GROUP = "group"
    PLAIN = "plain"


@dataclass(frozen=True, slots=True)
class Head:
    """What ranking needs of a candidate; the shown hits are read in full once (hydration)."""

    id: str
    kind: str | None = None
    epistemic_status: str | None = None

    @classmethod
    def of(cls, props: dict[str, Any]) -> "Head":
        return cls(props["id"], props.get("kind"), props.get("epistemic_status"))


SUPERSEDED_BY = "An update's newer memory, shown before this one (issue 51)"
UNTIL = "When that newer value became current (ISO-8601)."


class _Wire:
    """The one wire shape of a typed record: a field that is None is left out, except the fields in
    `ALWAYS`, which are part of the shape even when None (as they were when hits were dicts)."""

    __slots__ = ()
    ALWAYS: ClassVar[tuple[str, ...]] = ()

    def _shown(self) -> list[str]:
        return [f.name for f in fields(self)  # type: ignore[arg-type]
                if f.name in self.ALWAYS or getattr(self, f.name) is not None]

    def to_dict(self, *, only: Collection[str] | None = None,
                memory: Callable[[Memory], Any] | None = None) -> dict[str, Any]:
        """The wire shape: every field that says something (carried members as dicts too); `only`
        those of these fields, each memory shown by `memory` (default: the Memory itself)."""
        out: dict[str, Any] = {}
        for k in self._shown():
            if only is not None and k not in only:
                continue
            v = getattr(self, k)
            if k == "members":
                v = [x.to_dict(memory=memory) for x in v]
            elif k == "memory" and memory is not None:
                v = memory(v)
            out[k] = v
        return out

    @classmethod
    def decode(cls, wire: dict[str, Any]) -> Any:
        """The record back from its wire shape (the HTTP API's JSON: memories as objects, checked)."""
        return _adapter(cls).validate_python(wire)


@cache
def _adapter(cls: type) -> TypeAdapter:
    return TypeAdapter(cls)


@dataclass(frozen=True, slots=True)
class Member(_Wire):
    """A member an insight hit carries: its memory, how well it matches the query, (grouped
    rankings) the live insights that summarise it, and `superseded_by` / `until` as a hit's when an
    update stated its newer value (issue 62)."""

    ALWAYS: ClassVar[tuple[str, ...]] = ("memory", "relevance")
    memory: Memory
    relevance: Annotated[float | None, Field(description="Its cosine with the query (0 when the query "
                                                         "has no embedding).")] = None
    insights: Annotated[list[dict[str, Any]] | None, Field(description="Grouped rankings: the live insights that "
                                                                       "summarise it ({id, title, epistemic_status}).")] = None
    superseded_by: Annotated[str | None, Field(description=f"{SUPERSEDED_BY}.")] = None
    until: Annotated[str | None, Field(description=UNTIL)] = None


@dataclass(frozen=True, slots=True)
class Hit(_Wire):
    """One memory shown. `score` is its relevance before the diversity step (the list order is the
    ranking); `vector` / `keyword` / `graph` / `community` are the parts that made it; `superseded`
    the deprecated memories a hit on which landed here; `derived` whether it cites memories;
    `members` what an insight hit carries; `insights` the live insights summarising a plain hit;
    `epistemic_status` / `exceptions` an insight's standing; `superseded_by` / `until` the memory
    that states its newer value and since when (graphcons.recall.current); `via` the insight that
    routed recall to it (its place, issue 61); `source_episodes` what an insight rests on at the bottom."""

    ALWAYS: ClassVar[tuple[str, ...]] = ("memory", "score", "superseded", "vector", "keyword")
    memory: Memory
    score: Annotated[float, Field(description="Relevance before retrieve's diversity step; the list order is the "
                                              "ranking.")]
    superseded: Annotated[list[str], Field(description="The deprecated memories a hit on which landed here.")
                          ] = field(default_factory=list)
    vector: Annotated[float | None, Field(description="Its cosine with the query; null when the vector list did not "
                                                      "find it.")] = None
    keyword: Annotated[float | None, Field(description="Its full-text score; null when the keyword list did not "
                                                       "find it.")] = None
    graph: Annotated[float | None, Field(description="The graph step's part of the score.")] = None
    community: Annotated[float | None, Field(description="The community prior's part of the score.")] = None
    derived: Annotated[bool | None, Field(description="Whether it cites memories (null: unknown).")] = None
    members: Annotated[list[Member] | None, Field(description="What an insight hit carries: the members it cites "
                                                              "(or, grouped, summarises) that match.")] = None
    insights: Annotated[list[dict[str, Any]] | None, Field(description="The live insights summarising a plain hit "
                                                                       "({id, title, epistemic_status}).")] = None
    epistemic_status: Annotated[str | None, Field(description="An insight's standing: hypothesis, supported or "
                                                              "unsupported.")] = None
    exceptions: Annotated[list[Any] | None, Field(description="An insight's scoped exceptions.")] = None
    superseded_by: Annotated[str | None, Field(description=f"{SUPERSEDED_BY}; null when this value is current.")] = None
    until: Annotated[str | None, Field(description=UNTIL)] = None  # the update's `since`
    via: Annotated[str | None, Field(description=(
        "The insight whose place this memory took: it restated its members, so recall routed to them (issue 61); "
        "null otherwise."))] = None
    # read with the hit (issue 60: MCP's recall walked the provenance once per insight hit)
    source_episodes: Annotated[list[str] | None, Field(description=(
        "An insight's source episodes, oldest first: the memories at the bottom of its provenance (explain's "
        "`sources`)."))] = None
    key: Annotated[str | None, Field(description=(
        "The memory's sentence that matched the query better than the whole memory (a retrieval key, issue 61); "
        "null when the memory itself matched best."))] = None


@dataclass(slots=True)
class Candidate:
    """A memory while it is being ranked: scores are added step by step, then it becomes a Hit."""

    memory: Head | Memory
    score: float = 0.0
    vector: float | None = None
    keyword: float | None = None
    superseded: list[str] = field(default_factory=list)
    graph: float | None = None
    community: float | None = None
    derived: bool | None = None
    key: str | None = None  # the retrieval key that found it in the vector list (graphcons.store.keys)

    @property
    def id(self) -> str:
        return self.memory.id


class Hits(list):
    """retrieve()'s ranked hits (a plain list of `Hit`) that also say what became of their co-access
    recording: "recorded", "off" (record=False or no hits) or "skipped: <why>" (issue 30)."""

    recording: str = "off"
    # each shown memory's stored properties as hydration read them (no embedding): what a caller
    # shows beyond Memory's fields (context: an insight's typed digest) without another round trip
    nodes: dict[str, dict[str, Any]] = {}
    # the event-time window the ranking used (recall.eventwindow.Window: the question's own time, or
    # the caller's `when`); None when there was none
    window: Any = None

"""The memory model: what a memory is, what input to admit one must look like.

A memory lives in Neo4j as a (:Memory) node holding its current version; every version,
the current one included, is also kept as a (:MemoryVersion) snapshot linked by
(:Memory)-[:VERSION]->(:MemoryVersion). Nothing is ever deleted: retirement is a status
(deprecated, archived) and replacement a SUPERSEDES edge.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from graphcons.core.errors import ValidationError
from graphcons.core.inputs import BLANK, created_at_problem, depth_problem, is_blank, text_problem


class Kind(StrEnum):
    episode = "episode"
    observation = "observation"
    fact = "fact"
    decision = "decision"
    incident = "incident"
    preference = "preference"
    insight = "insight"
    pattern = "pattern"
    behavior = "behavior"  # a behavioural pattern found by reflection (issue 14)


class Status(StrEnum):
    proposed = "proposed"
    active = "active"
    consolidated = "consolidated"
    deprecated = "deprecated"
    archived = "archived"


#: The kinds and statuses as Literal types: the schemas of the HTTP API and of the MCP tools list them.
KindName = Literal.__getitem__(tuple(k.value for k in Kind))
StatusName = Literal.__getitem__(tuple(s.value for s in Status))

#: Statuses that take part in clustering and retrieval ranking (the driver sends a tuple as a Cypher list).
LIVE_STATUSES = (Status.proposed.value, Status.active.value, Status.consolidated.value)

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")


def content_hash(content: str) -> str:
    """Hash of the normalised text: case, Unicode form and whitespace do not make a new memory."""
    norm = " ".join(unicodedata.normalize("NFKC", content).casefold().split())
    return hashlib.sha256(norm.encode()).hexdigest()


def derived_title(content: str, limit: int = 80) -> str:
    """A title for a memory given none: its first sentence, cut at a word boundary."""
    first = re.split(r"(?<=[.!?])\s", content.strip(), maxsplit=1)[0]
    if len(first) <= limit:
        return first
    return first[:limit].rsplit(" ", 1)[0] + "…"


def new_memory_id(namespace: str, subject: str, source: str, chash: str, seq: int = 1) -> str:
    """A function of the input only (issue 29): the same memory admitted into any store at any
    time gets the same id, so everything that breaks ties by id (label propagation, winner
    order, cluster keys) does too. No clock: a re-import a day later must not change clusters.
    `seq` > 1 only for a true repeat whose first id is taken (admission picks the first free one:
    the same text re-admitted after its memory was edited away from it, or an explicit id that
    happens to take it); an exact duplicate never gets here, it adds evidence instead."""
    key = "|".join([namespace, subject, source, chash])
    base = "m-" + hashlib.sha256(key.encode()).hexdigest()[:16]
    return base if seq <= 1 else f"{base}-{seq}"


MAX_LINKS = 50  # explicit links of one memory


class LinkInput(BaseModel):
    """An explicit link from the new memory to an existing one."""

    model_config = ConfigDict(extra="forbid")
    target: str = Field(min_length=1, max_length=128)
    kind: str = Field(default="related", min_length=1, max_length=64, pattern=r"^[a-z][a-z0-9_]*$")


def checked_metadata(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is not None:
        metadata_json(value)  # raises naming the problem
    return value


# The metadata field of every input model (admission, the HTTP API's bodies): depth and size checked
# when the input is read, so a value no reader could serialise never reaches a transaction
Metadata = Annotated[dict[str, Any] | None, AfterValidator(checked_metadata)]


class MemoryInput(BaseModel):
    """What a caller hands to `add`. Validated strictly: a wrong type is an error, not a cast."""

    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)

    # content, subject, scope, source and session must say something: `_filled` (not min_length,
    # whose "at least 1 character" misleads for "   " and misses "\u200b")
    content: str
    title: str | None = None
    kind: Kind = Kind.episode
    subject: str = Field(default="general", max_length=200)
    namespace: str = Field(default="default", min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$")
    scope: str = Field(default="global", max_length=200)
    source: str = Field(default="user", max_length=200)
    origin: str | None = Field(default=None, max_length=200)  # display label; the API binds `source` (issue 16)
    session: str | None = Field(default=None, max_length=200)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    status: Status = Status.active
    id: str | None = None
    created_at: datetime | None = None
    links: list[LinkInput] = Field(default_factory=list, max_length=MAX_LINKS)
    # Free key/value data the caller keeps beside the text (a LangGraph item's value, issue 42):
    # stored as one JSON string, returned as it was given, filterable by retrieval's callers.
    metadata: Metadata = None

    @field_validator("content", "title", "subject", "scope", "source", "origin", "session")
    @classmethod
    def _storable(cls, v: str | None) -> str | None:
        problem = text_problem(v)  # the one input policy (core/inputs.py)
        if problem:
            raise ValueError(problem)
        return v

    @field_validator("content", "subject", "scope", "source", "session")
    @classmethod
    def _filled(cls, v: str | None) -> str | None:
        if v is not None and is_blank(v):
            raise ValueError(BLANK)
        return v

    @field_validator("title")
    @classmethod
    def _title(cls, v: str | None) -> str | None:
        return None if v is not None and is_blank(v) else v  # an invisible title is none: derive one

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str | None) -> str | None:
        if v is not None and not _ID_RE.match(v):
            raise ValueError("must be 1-128 characters of letters, digits, _ . : - (starting with a letter or digit)")
        return v

    @field_validator("created_at")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        problem = created_at_problem(v) if v is not None else None
        if problem:
            raise ValueError(problem)
        return v


def parse_input(data: Any, *, max_title: int, max_content: int) -> MemoryInput:
    """Validate raw input (dict or MemoryInput) into a MemoryInput, or raise naming the field."""
    if isinstance(data, MemoryInput):
        data = data.model_dump(exclude_unset=True)
    if not isinstance(data, dict):
        raise ValidationError("memory", f"expected an object, got {type(data).__name__}")
    data = dict(data)
    # JSON has no datetime: accept ISO-8601 strings for created_at (still strict on the rest).
    if isinstance(data.get("created_at"), str):
        try:
            data["created_at"] = datetime.fromisoformat(data["created_at"])
        except ValueError:
            raise ValidationError("created_at", f"not an ISO-8601 date-time: {data['created_at']!r}") from None
    for key in ("kind", "status"):
        if isinstance(data.get(key), str):
            enum = Kind if key == "kind" else Status
            try:
                data[key] = enum(data[key])
            except ValueError:
                allowed = ", ".join(e.value for e in enum)
                raise ValidationError(key, f"unknown value {data[key]!r}; allowed: {allowed}") from None
    try:
        mem = MemoryInput.model_validate(data)
    except PydanticValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "memory"
        cause = (err.get("ctx") or {}).get("error")  # our own wording, without pydantic's "Value error, "
        raise ValidationError(field, str(cause) if err["type"] == "value_error" and cause else err["msg"]) from None
    check_length("content", mem.content, max_content)
    check_length("title", mem.title, max_title)
    return mem


MAX_METADATA_CHARS = 16_000


def metadata_json(value: Any) -> str:
    """A memory's metadata as stored: canonical JSON (sorted keys) of an object, at most 16k characters."""
    if not isinstance(value, dict):
        raise ValueError(f"must be an object, got {type(value).__name__}")
    deep = depth_problem(value)  # before dumping it: json.dumps recurses, and no reader could serialise it
    if deep:
        raise ValueError(deep)
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"must be plain JSON ({exc})") from None
    if len(text) > MAX_METADATA_CHARS:
        raise ValueError(f"is {len(text)} characters as JSON; the limit is {MAX_METADATA_CHARS}")
    problem = text_problem(text)
    if problem:
        raise ValueError(problem)
    return text


def check_length(field: str, value: str | None, limit: int) -> None:
    """The size limits of admission, shared by editing."""
    if value is not None and len(value) > limit:
        raise ValidationError(field, f"is {len(value)} characters; the limit is {limit}")


class Memory(BaseModel):
    """A stored memory as graphcons returns it (the current version)."""

    model_config = ConfigDict(extra="ignore")

    id: str
    kind: str
    title: str
    title_derived: bool = False  # admitted without a title: the title is the first sentence
    content: str
    subject: str
    namespace: str
    scope: str
    source: str
    origin: str | None = None
    session: str | None = None
    created_at: datetime
    updated_at: datetime | None = None
    status: str
    epistemic_status: str | None = None  # insights start as "hypothesis" (seed 002)
    importance: float = 0.5
    weight_manual: float = 0.5
    weight_confidence: float = 0.5
    weight_usage: float = 0.0
    weight_feedback: float = 0.5
    weight_decay: float = 1.0
    effective_weight: float = 0.5
    access_count: int = 0
    last_accessed: datetime | None = None
    sources: list[str] = Field(default_factory=list)
    evidence_count: int = 1
    content_hash: str
    version: int = 1
    metadata: dict[str, Any] | None = None
    # when what it says happened (core/eventtime, issue 47): resolved expressions, their first and last day
    event_times: list[dict[str, str]] | None = None
    event_start: str | None = None
    event_end: str | None = None
    # provenance of an insight (its members, the ones it cites) or of reflection's semantic memories
    summarizes: list[str] | None = None
    derived_from: list[str] | None = None

    @field_validator("metadata", "event_times", mode="before")
    @classmethod
    def _stored_json(cls, v: Any) -> Any:
        return json.loads(v) if isinstance(v, str) else v

    @classmethod
    def from_node(cls, props: dict[str, Any]) -> "Memory":
        return cls.model_validate({k: v for k, v in props.items() if k != "embedding"})


def without_embedding(props: dict[str, Any]) -> dict[str, Any]:
    """A memory node's properties as the create queries take them: the embedding goes apart,
    since they store it with db.create.setNodeVectorProperty as 32-bit floats (the embedders'
    own precision). Issue 15: a Cypher list is stored as 64-bit floats, twice the bytes, and
    admission's exact top-k reads every scope member's vector; measured ~2x faster at 32 bits."""
    return {k: v for k, v in props.items() if k != "embedding"}


def embedded_text(title: str | None, content: str) -> str:
    """The text a memory is embedded by, the same at admission, edit and insight approval."""
    return f"{title}. {content}" if title else content

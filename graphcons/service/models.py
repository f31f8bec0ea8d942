"""Request and response bodies of the HTTP API (pydantic; they make /openapi.json).

Request bodies are strict about types (a number is not a string) and refuse unknown fields,
like the Python API; their values are then checked once more by the same code the Python
API runs (admission, editing, review), so both give the same errors for the same input.
There is no `source` field: through the API the source is the caller's token (`origin` is a
free display label).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from graphcons.access.limits import AsOf, Now, QueryText, When
from graphcons.core.inputs import text_problem, texts
from graphcons.core.memory import KindName, LinkInput, Metadata, StatusName
from graphcons.recall.context import ContextLine  # the one model of a line (Python and MCP show it too)
from graphcons.recall.hits import Hit  # the one model of a hit and its members (issue 60)
HARD_BATCH_LIMIT = 1000  # the schema's bound; [service] max_batch is the one enforced (<= this)


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="after")
    def _storable(self) -> "Body":
        # JSON may carry lone surrogates ("\ud800") and NULs: the one input policy (core/inputs.py)
        # refuses them as 400 bad_input naming the field (service/errors.py reads this error type)
        for path, text in texts(self):
            problem = text_problem(text)
            if problem:
                raise PydanticCustomError("bad_input", "{problem}", {"field": path, "problem": problem})
        return self


class MemoryCreate(Body):
    content: str = Field(description="The memory's text (stored verbatim); not blank.")
    title: str | None = None
    kind: KindName = "episode"  # type: ignore[valid-type]
    subject: str = Field(default="general", min_length=1, max_length=200)
    namespace: str | None = Field(default=None, min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$",
                                  description="Default: the token's namespace when it has exactly one.")
    scope: str = Field(default="global", min_length=1, max_length=200)
    origin: str | None = Field(default=None, max_length=200,
                               description="Free display label; the evidence source is your token.")
    session: str | None = Field(default=None, max_length=200)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    status: StatusName = "active"  # type: ignore[valid-type]
    id: str | None = Field(default=None, max_length=128)
    created_at: str | None = Field(default=None, max_length=64, description="ISO-8601 with a timezone.")
    links: list[LinkInput] = Field(default_factory=list, max_length=50)
    metadata: Metadata = Field(default=None, description="Free JSON object kept beside the text (at most 16k "
                                                         "characters as JSON, 32 levels deep).")


class MemoryBatch(Body):
    memories: list[MemoryCreate] = Field(min_length=1, max_length=HARD_BATCH_LIMIT)


class Admitted(BaseModel):
    id: str
    created: bool
    evidence_count: int
    similar: list[dict[str, Any]] = Field(default_factory=list)
    linked: int = 0


class BatchAdmitted(BaseModel):
    results: list[Admitted]


class MemoryEdit(Body):
    title: str | None = None
    content: str | None = None
    scope: str | None = None
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    metadata: Metadata = None


class LinkCreate(Body):
    target: str = Field(min_length=1, max_length=128)
    kind: str = Field(default="related", min_length=1, max_length=64)


class Linked(BaseModel):
    linked: int


class AccessCreate(Body):
    session: str = Field(min_length=1, max_length=200)
    ids: list[str] = Field(min_length=1, max_length=200)


class AccessOut(BaseModel):
    session: str
    accessed: int
    pairs: int
    warmed: int


# The time fields of retrieve and context, typed once with the MCP server's (access/limits.py)
WhenMode = Annotated[Literal["boost", "restrict"] | None, Field(description="With `when`: boost (the default) moves "
                                                                "in-window memories up, restrict shows only them.")]


class RetrieveQuery(Body):
    query: QueryText
    k: int = Field(default=5, ge=1, description="At most [service] max_k (the served schema's maximum).")
    namespace: str | None = Field(default=None, max_length=100)
    subject: str | None = Field(default=None, min_length=1, max_length=200)
    session: str | None = Field(default=None, max_length=200)
    record: bool = True  # writers: record the hits as used together (readers never record)
    as_of: AsOf = None
    when: When = None
    when_mode: WhenMode = None
    now: Now = None
    diverse: bool = Field(default=True, description="false: the ranking as scored, without the diversity "
                                                     "step (a store's page of its best k)")
    mode: Literal["hybrid", "vector", "keyword"] | None = Field(default=None, description="The ranking: "
                                                                "[retrieval] mode when left out (hybrid)")


class ContextQuery(Body):
    query: QueryText
    budget_words: int | None = Field(default=300, ge=10, le=5000, description=(
        "Words the block may hold (ids and dates included); 300 unless budget_tokens alone is sent. A budget in "
        "words also holds at most [retrieval] tokens_per_word model tokens a word."))
    budget_tokens: int | None = Field(default=None, ge=10, le=20000, description=(
        "Model tokens the block may hold (cl100k_base, the whole text). Sent alone, it is the only budget; "
        "with budget_words, both hold."))
    namespace: str | None = Field(default=None, max_length=100)
    subject: str | None = Field(default=None, max_length=200)
    session: str | None = Field(default=None, max_length=200)
    record: bool = True  # writers: record the memories shown as used together (readers never record)

    def budget(self) -> tuple[int | None, int | None]:
        """(budget_words, budget_tokens) as the caller meant them: budget_tokens sent alone bounds tokens only."""
        if self.budget_tokens is not None and "budget_words" not in self.model_fields_set:
            return None, self.budget_tokens
        return self.budget_words, self.budget_tokens
    as_of: AsOf = None
    when: When = None
    when_mode: WhenMode = None
    now: Now = None


class Window(BaseModel):
    """The event-time window a ranking used (recall/eventwindow.py): the question's own time phrases,
    or the caller's `when`."""

    start: str = Field(description="Its first day (ISO-8601).")
    end: str = Field(description="Its last day, included.")
    mode: Literal["boost", "restrict"] = Field(description="boost: its memories ranked higher; restrict: only them.")
    source: Literal["question", "when"] = Field(description="question: resolved from the query's own time phrases; "
                                                            "when: the caller's window.")
    phrases: list[str] | None = Field(default=None, description="The query's phrases it was resolved from.")


class ContextOut(BaseModel):
    text: str = Field(description="The block to paste into a prompt: one line per memory or insight fact, each "
                                  "citing its memory by a short reference (#3: see refs), under a header of its day.")
    words: int
    budget_words: int | None = Field(description="The budget in words; null when the caller gave tokens only.")
    tokens: int = Field(description="The text's model tokens (cl100k_base).")
    budget_tokens: int | None = Field(description="The ceiling on tokens: the caller's, or tokens_per_word a word.")
    lines: list[ContextLine]
    ids: list[str] = Field(description="Every memory id the block cites, in order.")
    refs: dict[str, str] = Field(default_factory=dict, description=(
        "Each short reference of the text (\"#3\") and the memory id it stands for; empty when the server "
        "writes ids in the text ([retrieval] context_refs = \"id\")."))
    window: Window | None = Field(default=None, description="The event-time window the ranking used; absent when "
                                                            "none (the query named no time).")


class Hits(BaseModel):
    hits: list[Hit]
    # retrieve only: "recorded", "off" or "skipped: <why>" (the hits stand; their use was not recorded)
    recording: str | None = None
    window: Window | None = Field(default=None, description="The event-time window the ranking used; null when "
                                                            "none (the query named no time).")


class ClusterOut(BaseModel):
    key: str
    member_ids: list[str]
    namespace: str | None = None
    subject: str | None = None
    figures: dict[str, Any] = Field(default_factory=dict)


class Reason(Body):
    reason: str = Field(min_length=1, max_length=2000)


class JobRun(Body):
    dry_run: bool = Field(default=True, description="True (the default): report what the job would do, write "
                                                    "nothing, whatever the configuration says.")
    now: str | None = Field(default=None, max_length=64, description="Decision time, ISO-8601 with a timezone.")
    namespace: str | None = Field(default=None, min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$",
                                  description="Only this namespace. Default: every namespace for a * token (scan, "
                                              "consolidate, updates and cards: the token's namespace).")


class TokenCreate(Body):
    name: str = Field(min_length=1, max_length=64)
    namespaces: list[str] = Field(min_length=1, max_length=100)
    role: Literal["reader", "writer", "reviewer", "admin"]


class TokenCreated(BaseModel):
    token: str = Field(description="Shown only now; graphcons keeps only its hash.")
    record: dict[str, Any]


class Problem(BaseModel):
    """Every error response: what went wrong, and the field when the input was at fault."""

    error: str
    message: str
    field: str | None = None

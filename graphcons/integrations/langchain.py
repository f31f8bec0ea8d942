"""graphcons as a LangChain retriever (issue 42): `GraphconsRetriever`, a `BaseRetriever`.

    retriever = GraphconsRetriever.over(Graphcons(), namespace="memories", k=5)
    retriever = GraphconsRetriever.over_http("http://api:8765", token, k=5)
    docs = retriever.invoke("why did checkout fail?")

Each hit of graphcons' retrieve is a `Document` whose page_content is the memory text (an insight's:
its facts, the reviewer's notes in the metadata, `consolidation.insight.reading`) and whose
metadata holds id, score, date (created_at, ISO-8601), kind, status, namespace, subject,
epistemic_status, summarizes (an insight's summarized ids, the store's name; `members` is the same
list under its old name), derived_from (the ids it cites), event_start / event_end (when what it
says happened, where its text says so), superseded_by / until (a value an update superseded: the
newer memory's id, which comes first, and since when; None when current) and the memory's own metadata.
`score_threshold`: hits scoring under it are left out. `as_of`, `when`, `when_mode` and `now` (what
the query's own "last month" is counted from) are retrieve's (docs/RETRIEVAL.md), on the retriever or
per call (`retriever.invoke(q, as_of="2023-05-10")`, `retriever.invoke(q, now="2023-06-07")`).
An argument the retriever does not know is refused (issue 63: `subjet=` was silently ignored).
Sync and async (`ainvoke`: the same call in a thread). No co-access is recorded.
"""

from __future__ import annotations

import asyncio
import difflib
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from graphcons.api import Graphcons
from graphcons.consolidation import insight
from graphcons.core import tracing
from graphcons.core.errors import ValidationError
from graphcons.integrations.backend import TIME_ARGS, Http, Local
from graphcons.recall.current import check_as_of
from graphcons.recall.hits import Hit

PER_CALL = {*TIME_ARGS, "verbose"}  # what invoke(query, **kw) may pass on (verbose: LangChain's own)


class GraphconsRetriever(BaseRetriever):
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    backend: Any  # backend.Local or backend.Http
    k: int = Field(default=5, ge=1, le=1000)
    namespace: str | None = None  # None: every namespace the backend sees
    subject: str | None = None
    score_threshold: float | None = None  # leave out hits scoring under it
    as_of: Any = None  # what was current then: a date, an aware datetime or ISO-8601 text (checked below)
    when: str | None = None  # event time: "auto" or a window (2023-06, 2023-06-01/2023-06-30)
    when_mode: Literal["boost", "restrict"] | None = None
    now: Any = None  # what "last month" in a query is counted from: a date, an aware datetime or ISO-8601 text

    @model_validator(mode="before")
    @classmethod
    def _known_arguments(cls, data: Any) -> Any:
        """An argument the retriever does not have is refused by name (pydantic's default ignores it)."""
        if isinstance(data, dict):
            known = sorted(cls.model_fields)
            for name in data:
                if name not in cls.model_fields:
                    close = difflib.get_close_matches(str(name), known, n=1)
                    hint = f" (did you mean {close[0]!r}?)" if close else ""
                    if name == "search_kwargs":  # LangChain's vector-store retrievers take it; this one does not
                        hint = " (pass its keys as arguments of their own: k=5, subject=...)"
                    raise ValueError(f"GraphconsRetriever has no argument {name!r}{hint}; it takes "
                                     f"{', '.join(k for k in known if k not in ('name', 'tags', 'metadata'))}")
        return data

    @field_validator("as_of", "now")
    @classmethod
    def _instant(cls, v: Any, info: ValidationInfo) -> Any:
        try:
            check_as_of(v, info.field_name)  # retrieve's own check, now rather than at the first call
        except ValidationError as exc:
            raise ValueError(f"{info.field_name} {exc.problem}") from None
        return v

    @classmethod
    def over(cls, g: Graphcons, **kw: Any) -> "GraphconsRetriever":
        return cls(backend=Local(g), **kw)

    @classmethod
    def over_http(cls, url: str, token: str, **kw: Any) -> "GraphconsRetriever":
        return cls(backend=Http(url, token), **kw)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **call: Any) -> list[Document]:
        """`call`: invoke's keyword arguments; as_of, when, when_mode and now override the retriever's."""
        unknown = sorted(set(call) - PER_CALL)
        if unknown:
            raise TypeError(f"GraphconsRetriever.invoke got an unknown argument {unknown[0]!r}; per call it takes "
                            f"{', '.join(TIME_ARGS)}")
        times = {name: call.get(name, getattr(self, name)) for name in TIME_ARGS}
        with tracing.span("langchain retrieve"):
            hits = self.backend.retrieve(query, self.k, self.namespace, self.subject, **times)
        return [document(h) for h in hits if self.score_threshold is None or h.score >= self.score_threshold]

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **call: Any) -> list[Document]:
        return await asyncio.to_thread(self._get_relevant_documents, query, run_manager=run_manager, **call)


def document(hit: Hit) -> Document:
    mem = hit.memory
    meta: dict[str, Any] = {
        "id": mem.id, "score": hit.score, "date": mem.created_at.isoformat(), "kind": mem.kind, "status": mem.status,
        "namespace": mem.namespace, "subject": mem.subject, "epistemic_status": mem.epistemic_status,
        "summarizes": list(mem.summarizes or []), "members": list(mem.summarizes or []),
        "derived_from": list(mem.derived_from or []), "event_start": mem.event_start, "event_end": mem.event_end,
        "superseded_by": hit.superseded_by, "until": hit.until,
    }
    if mem.metadata:
        meta["metadata"] = mem.metadata
    text = mem.content
    if mem.kind == "insight":  # its facts (issue 63); what a reviewer reads beside them goes to the metadata
        text, apart = insight.reading(mem.content)
        meta.update(apart)
    return Document(id=mem.id, page_content=text, metadata=meta)

"""graphcons as a LangChain retriever (issue 42): `GraphconsRetriever`, a `BaseRetriever`.

    retriever = GraphconsRetriever.over(Graphcons(), namespace="memories", k=5)
    retriever = GraphconsRetriever.over_http("http://api:8765", token, k=5)
    docs = retriever.invoke("why did checkout fail?")

Each hit of graphcons' retrieve is a `Document` whose page_content is the memory text and whose
metadata holds id, score, date (created_at, ISO-8601), kind, status, namespace, subject,
epistemic_status, summarizes (an insight's summarized ids, the store's name; `members` is the same
list under its old name), derived_from (the ids it cites) and the memory's own metadata.
`score_threshold`: hits scoring under it are left out. Sync and async (`ainvoke`: the same call in
a thread). No co-access is recorded.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from graphcons.api import Graphcons
from graphcons.core import tracing
from graphcons.core.memory import Memory
from graphcons.integrations.backend import Http, Local


class GraphconsRetriever(BaseRetriever):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    backend: Any  # backend.Local or backend.Http
    k: int = Field(default=5, ge=1, le=1000)
    namespace: str | None = None  # None: every namespace the backend sees
    subject: str | None = None
    score_threshold: float | None = None  # leave out hits scoring under it

    @classmethod
    def over(cls, g: Graphcons, **kw: Any) -> "GraphconsRetriever":
        return cls(backend=Local(g), **kw)

    @classmethod
    def over_http(cls, url: str, token: str, **kw: Any) -> "GraphconsRetriever":
        return cls(backend=Http(url, token), **kw)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        with tracing.span("langchain retrieve"):
            hits = self.backend.retrieve(query, self.k, self.namespace, self.subject)
        return [document(m, score) for m, score, _ in hits
                if self.score_threshold is None or score >= self.score_threshold]

    async def _aget_relevant_documents(self, query: str, *,
                                       run_manager: AsyncCallbackManagerForRetrieverRun) -> list[Document]:
        return await asyncio.to_thread(self._get_relevant_documents, query, run_manager=run_manager)


def document(mem: Memory, score: float) -> Document:
    meta: dict[str, Any] = {
        "id": mem.id, "score": score, "date": mem.created_at.isoformat(), "kind": mem.kind, "status": mem.status,
        "namespace": mem.namespace, "subject": mem.subject, "epistemic_status": mem.epistemic_status,
        "summarizes": list(mem.summarizes or []), "members": list(mem.summarizes or []),
        "derived_from": list(mem.derived_from or []),
    }
    if mem.metadata:
        meta["metadata"] = mem.metadata
    return Document(id=mem.id, page_content=mem.content, metadata=meta)

"""The verbs the integrations need, over a `Graphcons` in process (`Local`) or the HTTP API with a
token (`Http`; the server enforces the token's namespaces and role, so an integration bound to a
token reads and writes only what that token may). Both return core `Memory` objects and recall's own
`Hit` (issue 60: one type for a hit at every door; the HTTP answer decoded by `Hit.decode`)."""

from __future__ import annotations

from datetime import date
from typing import Any

from graphcons.api import Graphcons
from graphcons.core.errors import NotFound, ValidationError
from graphcons.core.memory import Memory
from graphcons.recall.hits import Hit
from graphcons.recall.query import RecallQuery

TIME_ARGS = ("as_of", "when", "when_mode", "now")  # retrieve's time arguments, passed through as given


def time_args(**given: Any) -> dict[str, Any]:
    """The time arguments that were given (as_of, when, when_mode, now), for retrieve."""
    return {k: v for k, v in given.items() if k in TIME_ARGS and v is not None}


class Local:
    """A Graphcons in this process: every namespace, written with `source` as the evidence source."""

    def __init__(self, g: Graphcons, *, source: str = "langgraph"):
        self.g, self.source = g, source
        self.max_k = g.config.service.max_k

    def embedder_identity(self) -> tuple[str, int, Any]:
        """(name, dimensions, embed one text) of the embedder every memory is embedded with."""
        return self.g.embedder.name, self.g.embedder.dimensions, self.g.embedder.embed_one

    def warm(self) -> None:
        """Load the embedder, open the driver's pool and plan retrieve's queries now (a query on a
        namespace that holds nothing), so the first real call is not the slow one."""
        self.g.warm()

    def close(self) -> None:
        """The Graphcons is the caller's: it stays open."""

    def get(self, memory_id: str) -> Memory | None:
        try:
            return self.g.get(memory_id)
        except NotFound:
            return None

    def put(self, data: dict[str, Any]) -> None:
        self.g.put({**data, "source": self.source}, source=self.source)

    def edit(self, memory_id: str, **changes: Any) -> None:
        self.g.edit(memory_id, source=self.source, **changes)

    def retire(self, memory_id: str) -> None:
        self.g.retire(memory_id, reason="deleted through the LangGraph store", by=self.source)

    def retrieve(self, query: str, k: int, namespace: str | None, subject: str | None, *, diverse: bool = True,
                 mode: str | None = None, **when: Any) -> list[Hit]:
        """retrieve, recording nothing; `diverse=False`: a page as ranked (a store's search asks for its
        best `k`: `RecallQuery.page`); `mode`: retrieve's (None: [retrieval] mode); `when`: as_of, when,
        when_mode, now (time_args)."""
        rc, scope = self.g.config.retrieval, {"namespace": namespace, "subject": subject, "mode": mode,
                                              **time_args(**when)}
        k = min(k, self.max_k)
        q = RecallQuery.page(rc, query, k, **scope) if not diverse else RecallQuery.of(rc, query, k, record=False,
                                                                                          **scope)
        return list(self.g.retrieve(q))

    def revert(self, insight_id: str) -> None:
        self.g.revert(insight_id, "deleted through the LangGraph store", by=self.source)

    def members(self, namespace: str, subject: str | None, limit: int, offset: int) -> list[Memory]:
        return self.g.memories(namespace, subject=subject, limit=limit, offset=offset)

    def scopes(self) -> list[tuple[str, str]]:
        return self.g.scopes()

    def subjects_under(self, namespace: str, subject: str) -> list[str]:
        """The subjects of `namespace` a prefix covers: `subject` and those nested under it."""
        return self.g.subjects_under(namespace, subject)

    def profile(self, namespace: str, subject: str) -> dict[str, Any] | None:
        try:
            return self.g.profile(subject, namespace=namespace)
        except NotFound:
            return None

    def scoped_id(self, namespace: str, local_id: str) -> str:
        return f"{namespace}:{local_id}"  # the id the HTTP API would store (service/memories._scoped_id)


class Http:
    """The HTTP API of `graphcons serve` with one bearer token (httpx, a dependency of the extras)."""

    def __init__(self, url: str, token: str, *, timeout: float = 30.0):
        import httpx

        self.client = httpx.Client(base_url=url.rstrip("/"), headers={"Authorization": f"Bearer {token}"},
                                   timeout=timeout)
        self.max_k = 100  # [service] max_k's default; a larger k is refused by the server

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        resp = self.client.request(method, path, **kw)
        if resp.status_code == 404:  # missing, or in a namespace the token does not see: the same answer
            return None
        if resp.status_code == 403:
            raise PermissionError(resp.json().get("message", "forbidden"))
        if resp.status_code in (400, 422):
            body = resp.json()
            raise ValidationError(body.get("field") or "request", body.get("message", resp.text))
        resp.raise_for_status()
        return resp.json()

    def get(self, memory_id: str) -> Memory | None:
        out = self._call("GET", f"/v1/memories/{memory_id}")
        return None if out is None else Memory.model_validate(out)

    def put(self, data: dict[str, Any]) -> None:
        """One round trip: PUT creates the memory or makes the body its new version."""
        local = data["id"].removeprefix(f"{data['namespace']}:")  # the API scopes the id to the namespace
        self._call("PUT", f"/v1/memories/{local}", json={k: v for k, v in data.items() if k != "id"})

    def edit(self, memory_id: str, **changes: Any) -> None:
        self._call("PATCH", f"/v1/memories/{memory_id}", json=changes)

    def retire(self, memory_id: str) -> None:
        self._call("POST", f"/v1/memories/{memory_id}/retire")

    def retrieve(self, query: str, k: int, namespace: str | None, subject: str | None, *, diverse: bool = True,
                 mode: str | None = None, **when: Any) -> list[Hit]:
        """POST /v1/retrieve, recording nothing; a date or datetime `as_of` is sent as ISO-8601 text."""
        times = {k_: v.isoformat() if isinstance(v, date) else v for k_, v in time_args(**when).items()}
        body = {"query": query, "k": min(k, self.max_k), "namespace": namespace, "subject": subject, "record": False,
                "diverse": diverse, "mode": mode, **times}
        out = self._call("POST", "/v1/retrieve", json={k_: v for k_, v in body.items() if v is not None})
        return [Hit.decode(h) for h in out["hits"]]

    def revert(self, insight_id: str) -> None:
        self._call("POST", f"/v1/proposals/{insight_id}/revert", json={"reason": "deleted through the LangGraph store"})

    def embedder_identity(self) -> tuple[str, None, None]:
        return "the server's embedder", None, None  # dims / embed cannot be checked here: refused

    def warm(self) -> None:
        """Open the connection now (the server warms its own embedder)."""
        self.client.get("/healthz")

    def members(self, namespace: str, subject: str | None, limit: int, offset: int) -> list[Memory]:
        params = {"namespace": namespace, "limit": limit, "offset": offset}
        if subject is not None:
            params["subject"] = subject
        return [Memory.model_validate(m) for m in self._call("GET", "/v1/memories", params=params)]

    def scopes(self) -> list[tuple[str, str]]:
        return [tuple(s) for s in self._call("GET", "/v1/scopes")]

    def subjects_under(self, namespace: str, subject: str) -> list[str]:
        found = self._call("GET", "/v1/scopes", params={"namespace": namespace, "under": subject})
        return [s for _, s in found or []]

    def profile(self, namespace: str, subject: str) -> dict[str, Any] | None:
        found = self._call("GET", "/v1/profiles", params={"namespace": namespace, "subject": subject})
        return found[0] if found else None  # [] when the entity has none: no 404 on the wire

    def scoped_id(self, namespace: str, local_id: str) -> str:
        return f"{namespace}:{local_id}"

    def close(self) -> None:
        self.client.close()

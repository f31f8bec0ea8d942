"""A real uvicorn server on 127.0.0.1 for the HTTP API tests (issue 16), and small helpers."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import uvicorn

from graphcons.service import create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """create_app(config) served by uvicorn in a thread; `client(token)` talks to it over TCP."""

    def __init__(self, config, embedder=None, bind_host=None):
        # bind_host: the address the app believes it serves (/metrics' rule); uvicorn stays on loopback
        self.app = create_app(config, embedder=embedder, bind_host=bind_host)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "Server":
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)


def counts(g) -> dict:
    """Everything a request could write, counted: nodes per label, relationships, and the memory
    fields a write bumps without a new node (versions, evidence, accesses, repetitions)."""
    nodes = {r["label"]: r["n"] for r in g.db.run_text("MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n")}
    rels = g.db.run_text("MATCH ()-[r]->() RETURN count(r) AS n")[0]["n"]
    mem = g.db.run_text("MATCH (m:Memory) RETURN sum(m.version) AS versions, sum(m.evidence_count) AS evidence, "
                        "sum(m.access_count) AS accesses, sum(coalesce(m.repetitions, 0)) AS repetitions")[0]
    return {**nodes, "relationships": rels, **mem}

"""The store of a server process: one Graphcons, opened on the first call that needs it (so a
server starts, and answers "unavailable", while Neo4j is down) and reused by every request."""

from __future__ import annotations

import threading

from graphcons.api import Graphcons
from graphcons.core.config import Config
from graphcons.core.embedders import Embedder


class Store:
    """One Graphcons for the whole server (HTTP routes and MCP sessions alike)."""

    def __init__(self, config: Config, embedder: Embedder | None = None):
        self.config = config
        self._embedder = embedder
        self._g: Graphcons | None = None
        self._lock = threading.Lock()

    def get(self) -> Graphcons:
        with self._lock:
            if self._g is None:
                g = Graphcons(self.config, embedder=self._embedder)
                try:
                    g.embedder  # checks the store's embedder (initialises a fresh one) and loads it once
                except Exception:
                    g.close()
                    raise
                self._g = g
            return self._g

    def close(self) -> None:
        with self._lock:
            if self._g is not None:
                self._g.close()
                self._g = None

"""After Neo4j was lost: one background probe per Database asks the server a trivial query until it
answers, and meanwhile every transaction fails fast instead of queueing on a server that is still
starting (issue 50 item 7).

A restarted server accepts Bolt connections well before it answers queries: on a loaded host the
first answer took 13-21 s after Bolt was enabled (the Cypher runtime and the web server still
starting), and planning each query anew then took seconds more (its query cache is empty, its JIT
cold): requests sent then waited 25-80 s before answering 200. With the probe, such a request answers
503 within `[neo4j] unavailable_retry_s`; when the probe's first answer was slow (a cold server), it
also plans every query this process has run (EXPLAIN, nothing executed) before requests go through.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

import neo4j
from neo4j.exceptions import DriverError, Neo4jError

log = logging.getLogger("graphcons.db")
INTERVAL_S = 0.2  # between probes while the server refuses (a refused connection costs nothing)
COLD_S = 1.0  # a first answer slower than this comes from a server that just started: plan first


class Recovery:
    def __init__(self, open_session: Callable[[], neo4j.Session], statement: str,
                 known: Callable[[], list[str]]):
        self._open, self._statement, self._known = open_session, statement, known
        self._lock = threading.Lock()
        self._back = threading.Event()  # set: the server answers (no probe runs)
        self._back.set()
        self._closed = threading.Event()

    def lost(self) -> None:
        """The server was lost: start the probe, unless one runs already."""
        with self._lock:
            if not self._back.is_set() or self._closed.is_set():
                return
            self._back.clear()
            threading.Thread(target=self._probe, name="graphcons-neo4j-probe", daemon=True).start()

    def wait(self, timeout_s: float) -> bool:
        """True at once when the server is not known lost; else whether the probe sees it answer
        within `timeout_s`."""
        return self._back.wait(max(0.0, timeout_s))

    def close(self) -> None:
        self._closed.set()

    def _probe(self) -> None:
        while not self._closed.is_set():
            try:
                with self._open() as session:
                    t0 = time.monotonic()
                    session.run(self._statement).consume()
                    if time.monotonic() - t0 > COLD_S:
                        self._plan(session)
            except (DriverError, Neo4jError, OSError) as exc:
                log.debug("Neo4j not answering yet: %s", exc)
                self._closed.wait(INTERVAL_S)
                continue
            log.info("Neo4j answers queries again")
            self._back.set()
            return

    def _plan(self, session: neo4j.Session) -> None:
        """Plan the queries this process runs on a server that just started (EXPLAIN: nothing runs)."""
        texts = self._known()
        log.info("Neo4j answered slowly (just started): planning %d queries before requests go through", len(texts))
        for text in texts:
            try:
                session.run("EXPLAIN " + text).consume()
            except Neo4jError as exc:  # a statement EXPLAIN refuses (schema): nothing to warm
                log.debug("not planned: %s", exc)

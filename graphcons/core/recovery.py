"""After Neo4j was lost: one background probe per Database asks the server a trivial query until it
answers, and meanwhile every transaction fails fast instead of queueing on a server that is still
starting (issue 50 item 7).

A restarted server accepts Bolt connections well before it answers queries: on a loaded host the
first answer took 13-21 s after Bolt was enabled (the Cypher runtime and the web server still
starting), and planning each query anew then took seconds more (its query cache is empty, its JIT
cold): requests sent then waited 25-80 s before answering 200. With the probe, such a request answers
503 within `[neo4j] unavailable_retry_s`; when the probe's first answer was slow (a cold server), it
also plans the HOT statements this process ran most (EXPLAIN, nothing executed), for at most PLAN_S,
before requests go through; the others are planned by the first request that runs them. Issue 59:
planning every statement the process had ever run kept a long-running server at 503 for 49-58 s after
Neo4j was ready, growing with use.
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
HOT = 8  # statements planned before requests go through: a retrieve's and an add's
PLAN_S = 3.0  # and never longer than this, however slow the cold server plans


class Recovery:
    def __init__(self, open_session: Callable[[], neo4j.Session], statement: str,
                 hottest: Callable[[int], list[str]]):
        self._open, self._statement, self._hottest = open_session, statement, hottest
        self.planned = 0  # statements the last cold start planned (tests, the log)
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
        """Plan the statements this process runs most on a server that just started (EXPLAIN: nothing
        runs): at most HOT of them, for at most PLAN_S; the rest are planned when first run."""
        texts, deadline = self._hottest(HOT), time.monotonic() + PLAN_S
        self.planned = 0
        for text in texts:
            if time.monotonic() > deadline:
                break
            try:
                session.run("EXPLAIN " + text).consume()
            except Neo4jError as exc:  # a statement EXPLAIN refuses (schema): nothing to warm
                log.debug("not planned: %s", exc)
            self.planned += 1
        log.info("Neo4j answered slowly (just started): planned the %d queries run most before requests go "
                 "through", self.planned)

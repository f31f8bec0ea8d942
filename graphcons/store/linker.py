"""SIMILAR edges written after a put returns (issue 63: a store's put at the speed of a store).

`add` writes a memory's SIMILAR edges in its own transaction (graphcons.store.neighbours): at 1k
memories in a scope that exact scan is most of the ~20 ms an admission costs. A key-value store's
`put` (GraphconsStore, HTTP PUT) does not wait for it: its memory is admitted with
`similar_pending = true` and linked here, in admission order, each to the memories admitted before
it (`neighbours.link(earlier_only=True)`), so the edges are the ones admission would have written.

Who links: the `Linker` thread of the process that put (woken by each put, a batch per
transaction), the worker at every tick, and every scan and consolidation before it reads the
graph (`link_pending`), so a cluster never misses an edge. Linking twice is harmless
(cypher/similar/link keeps one edge per pair).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from graphcons.core import audit, tracing
from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.errors import ServerUnavailable
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import utcnow
from graphcons.store import neighbours

log = logging.getLogger("graphcons.linker")

BATCH = 64  # memories per transaction
QUIET_S = 0.2  # the thread links once puts pause this long (or BATCH came, or MAX_WAIT_S passed): an
MAX_WAIT_S = 2.0  # agent's put-then-search turn does not share the server with a link of its own put


def link_pending(db: Database, cfg: Config, *, batch: int = BATCH, limit: int | None = None) -> int:
    """Write the SIMILAR edges of every memory a put deferred (at most `limit`); how many were linked."""
    done = 0
    while limit is None or done < limit:
        want = batch if limit is None else min(batch, limit - done)
        rows = db.run("similar/pending", limit=want)
        if not rows:
            break
        db.write(lambda tx, rows=rows: _link(tx, cfg, rows))
        done += len(rows)
        if len(rows) < want:
            break
    return done


def _link(tx: Any, cfg: Config, pending: list[dict[str, Any]]) -> None:
    """One batch (similar/pending's rows, in admission order): the exact scan of each small scope (its
    embeddings read once), the vector index for a larger one, the marks removed, one audit record."""
    k, exact_max = cfg.admission.similar_k, cfg.admission.exact_scope_max
    ids = [r["id"] for r in pending]
    groups: dict[tuple[str, str], list[int]] = {}
    for n, r in enumerate(pending):  # in admission order within each scope
        groups.setdefault((r["namespace"], r["subject"]), []).append(n)
    rows = tx.run("similar/exact_many", ids=ids, position={}, earlier_only=True,
                  groups=[{"namespace": ns, "subject": s, "items": items} for (ns, s), items in groups.items()],
                  k=k, exact_max=exact_max, floor=cfg.consolidation.similarity_floor, live=LIVE_STATUSES)
    linked = 0
    for r in rows:
        found = list(r["neighbours"])
        if k and r["size"] > exact_max:  # a large scope: the index, those admitted before it only
            found = neighbours.choose_by_index(tx, cfg, r["id"], earlier_only=True)
            if found:
                tx.run("similar/link", id=r["id"], neighbours=found)
        linked += len(found)
    tx.run("similar/settled", ids=ids)
    audit.record(tx, "similar_link", ids, at=utcnow(), deferred=True, similar=linked)


class Linker:
    """One daemon thread per process that put: `poke()` after a put, `close()` links what is left."""

    def __init__(self, db: Database, cfg: Config):
        self.db, self.cfg = db, cfg
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pokes = 0

    def poke(self) -> None:
        with self._lock:
            self._pokes += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="graphcons-linker", daemon=True)
                self._thread.start()
        self._idle.clear()
        self._wake.set()

    def _settle(self) -> None:
        """Wait for the puts to pause (QUIET_S without one), a batch to gather, or MAX_WAIT_S."""
        deadline = time.monotonic() + MAX_WAIT_S
        while not self._stop.is_set() and self._pokes < BATCH and time.monotonic() < deadline:
            self._wake.clear()
            if not self._wake.wait(min(QUIET_S, max(0.0, deadline - time.monotonic()))):
                return

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every memory poked so far is linked (True) or `timeout` passed (False)."""
        return self._idle.wait(timeout)

    def close(self, timeout: float = 30.0) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._settle()
            self._wake.clear()
            with self._lock:
                self._pokes = 0
            try:
                with tracing.span("graphcons link similar"):  # background work: a root span of its own
                    link_pending(self.db, self.cfg)
            except ServerUnavailable as exc:  # Neo4j away: the worker or the next put links them
                log.warning("deferred SIMILAR links not written yet: %s", exc)
            except Exception:  # never let the thread die silently: the next poke tries again
                log.exception("deferred SIMILAR links failed")
            if not self._wake.is_set():
                self._idle.set()
            if self._stop.is_set():
                return

"""The Neo4j connection: one driver, parameterised named queries, one place for retries.

Nothing here knows about memories; it runs the queries of cypher/ and checks that the
server is the one graphcons needs (reachable, with GDS).

Every transaction goes through `_transact` (issue 30, issue 33):
- a write (`write(work)`, or `run` of a query that writes) is retried on transient errors
  (deadlocks, a leader switch) with bounded exponential backoff for up to `[neo4j] retry_s`;
- a query that only reads runs in a read transaction (routed to a secondary on a cluster);
  whether it reads is asked of the server once per query text (EXPLAIN's query type), and
  anything that calls GDS stays on the writer so a projection and its algorithms meet;
- Neo4j unreachable fails within `[neo4j] unavailable_retry_s` plus one connection timeout
  as `ServerUnavailable`, whose public text names no address and says whether a write of
  this call may have landed: the failing transaction's commit was sent, or an earlier write of
  the same call (`call_scope`: one HTTP request, one MCP tool call) committed. Outside a call
  scope (the worker, the CLI) only the failing transaction counts;
- after a lost server, one background probe (core/recovery) asks it a trivial query until it
  answers; meanwhile every transaction fails within unavailable_retry_s instead of queueing on a
  server that accepts connections but is still starting (issue 50 item 7);
- a connection the server stopped answering (the driver's read timed out after the server's
  receive-timeout hint) is one stuck connection, not an outage: retried once more on a fresh one;
- one bookmark manager per Database, so every session of the process reads its own writes
  (on a single server too, where it costs nothing); a call may also bring bookmarks from
  elsewhere and take away its writes' (`call_scope`: the HTTP API's Graphcons-Bookmark
  header, for a caller whose requests land on different API processes).
"""

from __future__ import annotations

import contextvars
import heapq
import logging
import random
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterator, TypeVar

import neo4j
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConnectionAcquisitionTimeoutError,
    DriverError,
    IncompleteCommit,
    Neo4jError,
    ResultFailedError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graphcons.core import metrics, tracing
from graphcons.core.config import Neo4jConfig
from graphcons.core.cypher import query
from graphcons.core.errors import Busy, ServerUnavailable, ValidationError
from graphcons.core.recovery import Recovery
from graphcons.core.time import native

T = TypeVar("T")
log = logging.getLogger("graphcons.db")

GDS_HELP = (
    "the Graph Data Science plugin is not installed on this Neo4j server. "
    "Use scripts/neo4j start (it assembles Neo4j with the open-source GDS 2.13 from Maven Central), "
    "or add the GDS plugin to your server (compose/docker-compose.yml sets NEO4J_PLUGINS='[\"graph-data-science\"]') "
    "and allow it with dbms.security.procedures.unrestricted=gds.*"
)
READ, WRITE = neo4j.READ_ACCESS, neo4j.WRITE_ACCESS
LOST = (ServiceUnavailable, SessionExpired)  # the server went away (or a cluster member did)
# A transaction Neo4j terminated (its timeout, an operator, shutdown): rolled back, not retried
TERMINATED = ("Neo.ClientError.Transaction.Terminated", "Neo.ClientError.Transaction.LockClientStopped",
              "Neo.TransientError.Transaction.Terminated", "Neo.TransientError.Transaction.LockClientStopped")
BUSY_POOL = "Neo4j is busy: no free connection within [neo4j] acquisition_timeout_s"
DATABASE_UNAVAILABLE = "Neo.TransientError.General.DatabaseUnavailable"  # starting or stopping: an outage

_MODES: dict[str, str] = {}  # query text -> READ | WRITE, asked of the server once per process
_SEEN: dict[str, int] = {}  # query text -> times this process ran it (the hottest are planned after a restart)


def hottest(n: int) -> list[str]:
    """The `n` query texts this process ran most (a race between two counts only blurs the ranking)."""
    return heapq.nlargest(n, list(_SEEN), key=lambda text: _SEEN.get(text, 0))


class Rows(Enum):
    """How `run` turns a result's records into dicts (its positional second argument, so a query
    may still have a parameter of any name)."""

    DATA = "data"  # Record.data(): nodes, relationships and paths as dicts; temporal values converted
    # values only (strings, numbers, lists, maps; no nodes, relationships or paths): no walk of
    # Record.data() over every nested value, which costs seconds on a cluster scan's millions (issue 15)
    VALUES = "values"
    # no temporal value by construction (ids, numbers, strings and lists of them: a scan's members
    # and projected edges): rows as the driver decoded them (~0.7 s less on a 100k-memory scan)
    PLAIN = "plain"


_CONVERT: dict[Rows, Callable[[neo4j.Record], dict[str, Any]]] = {
    Rows.DATA: lambda r: native(r.data()), Rows.VALUES: lambda r: native(dict(r)), Rows.PLAIN: dict}


@dataclass
class Call:
    """One caller's unit of work (an HTTP request, an MCP tool call): the bookmarks it brings (every
    transaction of the call starts after them), the bookmarks its last write left (to hand back to
    the caller), and whether one of its writes committed (a later failure of the call may then leave
    part of it written, and the error says so)."""

    given: tuple[str, ...] = ()
    left: tuple[str, ...] = field(default=())
    wrote: bool = False


_call: contextvars.ContextVar[Call | None] = contextvars.ContextVar("graphcons_call", default=None)


@contextmanager
def call_scope(given: tuple[str, ...] = ()) -> Iterator[Call]:
    """Within this block (one HTTP request, one MCP tool call), transactions also wait for `given`,
    record the bookmarks of their writes in the yielded object, and a failure says whether an
    earlier write of the block committed. Each block starts with nothing written."""
    call = Call(tuple(given))
    token = _call.set(call)
    try:
        yield call
    finally:
        _call.reset(token)


def _wrote_before() -> bool:
    """Whether a write of the current call committed before now (False outside a call scope)."""
    call = _call.get()
    return call is not None and call.wrote


def _committed_write(session: neo4j.Session | None) -> None:
    if (call := _call.get()) is not None:
        call.wrote = True
        if session is not None:
            call.left = tuple(sorted(session.last_bookmarks().raw_values))


@dataclass
class Trip:
    """One statement sent to the server: its query's name, the server's own time (the driver's
    result summary: until the first record, then until the last) and the time this process spent
    on it (sending, waiting, decoding), in ms. An explicit transaction's COMMIT is a trip of its own
    ("commit"); its BEGIN travels with the first statement."""

    name: str
    server_ms: float
    wall_ms: float
    round_trips: int = 1
    alongside: bool = False  # sent from `alongside`'s worker: its time overlaps the caller's


@dataclass
class Tally:
    """The statements of one unit of work (a retrieve, an add), in order: what `counted` yields.
    Cheap enough to leave in: a list append per statement, only while a tally is open."""

    trips: list[Trip] = field(default_factory=list)

    @property
    def round_trips(self) -> int:
        return sum(t.round_trips for t in self.trips)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.trips]


_tally: contextvars.ContextVar[Tally | None] = contextvars.ContextVar("graphcons_tally", default=None)
_beside: contextvars.ContextVar[bool] = contextvars.ContextVar("graphcons_alongside", default=False)


@contextmanager
def counted() -> Iterator[Tally]:
    """Within this block, every statement this context sends is recorded in the yielded Tally
    (bench/retrieval/hot_paths.py's breakdown, and the test that a retrieve costs what
    docs/RETRIEVAL.md says). A statement `alongside` runs in a copy of the context: counted too."""
    tally = Tally()
    token = _tally.set(tally)
    try:
        yield tally
    finally:
        _tally.reset(token)


def _count(name: str, result: Any, started: float) -> None:
    """Record one statement (RUN and PULL: one round trip) in the open tally, if any."""
    if (tally := _tally.get()) is None:
        return
    summary = result.consume()  # every record was read: the summary is already here, no round trip
    server = (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
    tally.trips.append(Trip(name, float(server), round(1000 * (time.perf_counter() - started), 3), 1,
                            _beside.get()))


def _count_commit(started: float) -> None:
    if (tally := _tally.get()) is not None:
        tally.trips.append(Trip("commit", 0.0, round(1000 * (time.perf_counter() - started), 3), 1))


U = TypeVar("U")
_ALONGSIDE = ThreadPoolExecutor(max_workers=8, thread_name_prefix="graphcons-alongside")


def alongside(first: Callable[[], T], second: Callable[[], U]) -> tuple[T, U]:
    """`first()` on a worker thread while `second()` runs on this one: two independent reads of
    one call at once (retrieve's vector and keyword lists, each a round trip of its own). The
    worker runs in a copy of this call's context, so it waits for the call's bookmarks and its
    queries trace under the call's span. An error of either is raised, `first`'s before."""
    def beside() -> T:
        _beside.set(True)  # in the worker's copy of the context only
        return first()

    pending = _ALONGSIDE.submit(contextvars.copy_context().run, beside)
    try:
        other = second()
    finally:
        done = pending.result()  # never left running behind a failed `second`
    return done, other


class Database:
    def __init__(self, cfg: Neo4jConfig):
        self.cfg = cfg
        self.bookmarks = neo4j.GraphDatabase.bookmark_manager()
        self.transactions = {READ: 0, WRITE: 0}  # committed, by access mode (what tests check)
        self.recovery = Recovery(lambda: self.driver.session(database=cfg.database), query("admin/ping"), hottest)
        try:
            self.driver = neo4j.GraphDatabase.driver(
                cfg.uri, auth=(cfg.user, cfg.resolved_password()), notifications_min_severity="OFF",
                connection_timeout=cfg.connection_timeout_s,
                connection_acquisition_timeout=cfg.acquisition_timeout_s,
                max_connection_pool_size=cfg.max_pool_size,
            )
            self.driver.verify_connectivity()
        except (ServiceUnavailable, SessionExpired, ConnectionAcquisitionTimeoutError, OSError) as exc:
            metrics.NEO4J_UNAVAILABLE.inc()
            raise ServerUnavailable(
                f"cannot reach Neo4j at {cfg.uri} ({exc}); start it with scripts/neo4j start, or point graphcons "
                "at the running server: GRAPHCONS_NEO4J_BOLT_PORT and GRAPHCONS_NEO4J_HOME as scripts/neo4j "
                "was started with, or NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD (eval \"$(scripts/neo4j env)\" sets them)"
            ) from exc
        except AuthError as exc:
            raise ServerUnavailable(
                f"Neo4j at {cfg.uri} refused user {cfg.user!r}: {exc.message}; "
                "check NEO4J_PASSWORD (scripts/neo4j password prints the generated one)",
                public="Neo4j refused graphcons' credentials",
            ) from exc

    def close(self) -> None:
        self.recovery.close()
        self.driver.close()

    # --- queries by name, each its own transaction --------------------------------------

    def run(self, name: str, rows: Rows = Rows.DATA, /, **params: Any) -> list[dict[str, Any]]:
        """Run one named query in its own transaction (read or write, retried); rows as dicts,
        converted as `rows` says (Rows.VALUES / Rows.PLAIN for the big reads of a scan)."""
        with tracing.span(name, "client", **{"db.system": "neo4j"}):  # the file's name, never its parameters
            return self._one(name, query(name), rows, params)

    def run_text(self, text: str, rows: Rows = Rows.DATA, /, **params: Any) -> list[dict[str, Any]]:
        """`run` for a statement read from cypher/ by the caller (schema files hold several)."""
        return self._one("(text)", text, rows, params)

    def _one(self, name: str, text: str, rows: Rows, params: dict[str, Any]) -> list[dict[str, Any]]:
        """One statement in its own transaction. A read runs as an auto-commit transaction: one
        network round trip (RUN and PULL pipelined), where BEGIN, RUN and COMMIT cost two or three
        (issue 52); a write keeps its explicit, retried transaction."""
        mode = self.mode_of(text, params)
        return self._transact(lambda tx: tx.statement(name, text, rows, params), mode, auto=mode == READ)

    # --- units of work -------------------------------------------------------------------

    def write(self, work: Callable[["Tx"], T]) -> T:
        """Run `work(tx)` in one write transaction: all of it commits or none of it. Retried
        whole on transient errors (deadlocks on shared locks, a leader switch), so `work` must
        compute its result from the transaction only and keep no state of a failed attempt."""
        return self._transact(work, WRITE)

    def read(self, work: Callable[["Tx"], T]) -> T:
        """Run `work(tx)` in one read transaction (a secondary on a cluster), retried like `write`."""
        return self._transact(work, READ)

    @contextmanager
    def transaction(self) -> Iterator["Tx"]:
        """One explicit write transaction, NOT retried: for code that holds a transaction open or
        rolls it back on purpose (the battery, tests). Everything else uses `write(work)`."""
        with self._session(WRITE) as session:
            with session.begin_transaction() as tx:
                yield Tx(tx)
                tx.commit()
            _committed_write(session)
        self.transactions[WRITE] += 1

    def mode_of(self, text: str, params: dict[str, Any]) -> str:
        """READ when the server says the query only reads (and it calls no GDS procedure, whose
        graph catalogue lives on one member), else WRITE. Asked once per text (EXPLAIN)."""
        mode = _MODES.get(text)
        if mode is None:
            mode = WRITE
            if "gds." not in text:
                try:
                    started = time.perf_counter()  # once per text and process: a first call's cost
                    summary = self._transact(lambda tx: tx._tx.run("EXPLAIN " + text, params).consume(), READ, auto=True)
                    if (tally := _tally.get()) is not None:
                        tally.trips.append(Trip("explain", 0.0, round(1000 * (time.perf_counter() - started), 3)))
                    mode = READ if summary.query_type == "r" else WRITE
                except (Neo4jError, DriverError):  # a statement EXPLAIN refuses (schema): the writer
                    mode = WRITE
            _MODES[text] = mode
        return mode

    def _session(self, mode: str) -> neo4j.Session:
        call = _call.get()
        given = neo4j.Bookmarks.from_raw_values(call.given) if call and call.given else None
        return self.driver.session(database=self.cfg.database, default_access_mode=mode,
                                   bookmark_manager=self.bookmarks, bookmarks=given)

    def _transact(self, work: Callable[["Tx"], T], mode: str, *, auto: bool = False) -> T:
        """Run `work` in one transaction of `mode`, retrying transient failures: deadlocks for up to
        retry_s, a lost server for up to unavailable_retry_s. Each attempt is a fresh transaction.
        While a lost server has not answered the recovery probe, it fails within unavailable_retry_s."""
        start, attempt, stall_retried = time.monotonic(), 0, False
        if not self.recovery.wait(self.cfg.unavailable_retry_s):
            metrics.NEO4J_UNAVAILABLE.inc()
            raise ServerUnavailable(f"Neo4j at {self.cfg.uri} was lost and has not answered a query since",
                                    maybe_written=_wrote_before())
        while True:
            try:
                result = self._attempt(work, mode, auto)
                self.transactions[mode] += 1
                return result
            except IncompleteCommit as exc:  # the commit was sent, its answer lost: never retried
                metrics.NEO4J_UNAVAILABLE.inc()
                if mode == WRITE:
                    _committed_write(None)  # it may have: a later failure of this call says so too
                raise self._unavailable(exc, maybe_written=mode == WRITE or _wrote_before()) from exc
            except ClientError as exc:
                if exc.code == "Neo.ClientError.Transaction.InvalidBookmark":
                    raise ValidationError("bookmark", "is not a bookmark of this database") from exc
                if exc.code not in TERMINATED:
                    raise
                raise Busy(f"Neo4j terminated the transaction ({exc.code}); nothing of it was written",
                           public="Neo4j terminated the transaction (a timeout, an operator or a shutdown)",
                           maybe_written=_wrote_before()) from exc
            except TransientError as exc:  # rolled back whole: a deadlock victim, a lock wait that timed out
                if exc.code == DATABASE_UNAVAILABLE:
                    self._back_again(start, exc)
                elif not exc.is_retryable() or not self._wait(start, attempt, self.cfg.retry_s, exc):
                    raise Busy(f"Neo4j rolled the transaction back ({exc.code}) after {attempt + 1} attempt(s); "
                               "nothing of it was written", maybe_written=_wrote_before()) from exc
            except LOST as exc:
                if stalled(exc) and not stall_retried:
                    # one stuck connection, not an outage (that refuses connections at once): the
                    # wait already outlasted the budget, so one attempt more, on a fresh connection
                    stall_retried = True
                    log.warning("Neo4j did not answer within its receive timeout (%s); retrying once on a "
                                "fresh connection", exc)
                    metrics.retried("stalled")
                else:
                    self._back_again(start, exc)
            except ConnectionAcquisitionTimeoutError as exc:  # every pooled connection stayed busy
                raise ServerUnavailable(f"{BUSY_POOL} ({exc})", public=BUSY_POOL,
                                        maybe_written=_wrote_before()) from exc
            attempt += 1

    def _back_again(self, start: float, exc: Exception) -> None:
        """The server was lost: retry once the recovery probe saw it answer a query, within
        unavailable_retry_s of the call's start; else fail as unavailable."""
        self.recovery.lost()
        left = start + self.cfg.unavailable_retry_s - time.monotonic()
        if left <= 0 or not self.recovery.wait(left):
            metrics.NEO4J_UNAVAILABLE.inc()
            raise self._unavailable(exc, maybe_written=_wrote_before()) from exc
        log.info("Neo4j answers again after %s; retrying the transaction", type(exc).__name__)
        metrics.retried("unavailable")

    def _attempt(self, work: Callable[["Tx"], T], mode: str, auto: bool = False) -> T:
        session = self._session(mode)
        try:
            if auto:  # one read statement: the session's auto-commit transaction, nothing to commit
                result = work(Tx(session))
            else:
                # BEGIN sent with the first statement, not on its own (the driver's execute_query
                # does the same): a round trip less per transaction
                with getattr(session, "_pipelined_begin", None) or nullcontext():
                    tx = session.begin_transaction()
                with tx:
                    result = work(Tx(tx))
                    committing = time.perf_counter()
                    _commit(tx)
                    _count_commit(committing)
            if mode == WRITE:
                _committed_write(session)
        except ResultFailedError as exc:
            _close(session)
            raise failure_of(exc) from None
        except BaseException:
            _close(session)
            raise
        _close(session)  # after the commit: a connection lost now must not make the write run twice
        return result

    def _wait(self, start: float, attempt: int, budget: float, exc: Exception) -> bool:
        """Sleep before the next attempt if the budget allows one; False when it is spent."""
        # exponential from 50 ms, capped at 1 s, jittered so deadlocked peers do not collide again
        delay = min(1.0, 0.05 * 2 ** attempt) * random.uniform(0.5, 1.5)
        if time.monotonic() - start + delay > budget:
            return False
        log.info("transaction failed (%s); retry %d in %.2f s", type(exc).__name__, attempt + 1, delay)
        metrics.retried("transient")
        time.sleep(delay)
        return True

    def _unavailable(self, exc: Exception, *, maybe_written: bool) -> ServerUnavailable:
        # the driver's text names the server's address: kept for the operator, never shown to clients
        return ServerUnavailable(f"Neo4j at {self.cfg.uri} is unavailable ({type(exc).__name__}: {exc})",
                                 maybe_written=maybe_written)

    def gds_version(self) -> str:
        try:
            return self.run("admin/gds_version")[0]["version"]
        except ClientError as exc:
            if "Unknown function" in (exc.message or "") or "gds" in (exc.message or ""):
                raise ServerUnavailable(GDS_HELP, public="Neo4j lacks the Graph Data Science plugin") from exc
            raise


def _commit(tx: neo4j.Transaction) -> None:
    """COMMIT, whose failure to answer success does not prove the write was not applied: the server had
    it. A server stopping answered a COMMIT DatabaseUnavailable (or dropped the connection) for a
    transaction it then applied (issue 59: bench/service/outage.py found such writes answered "nothing
    was written"). So a lost connection, a database going away or a database error there is the driver's
    IncompleteCommit: never retried, and the error says the write may have landed. The caller's own error
    (a ClientError: a constraint) and a transient rollback (a deadlock found at COMMIT) stay themselves:
    the server rolled those back, and a deadlock is retried."""
    try:
        tx.commit()
        return
    except (IncompleteCommit, ClientError):
        raise
    except TransientError as exc:
        if exc.code != DATABASE_UNAVAILABLE:
            raise
        answer: Exception = exc
    except (Neo4jError, DriverError) as exc:
        answer = exc
    raise IncompleteCommit(f"the COMMIT was sent and answered {type(answer).__name__}: {answer}") from answer


def stalled(exc: BaseException) -> bool:
    """The driver gave up reading an established connection (no answer within the receive
    timeout the server hinted at, 120 s by default): "Failed to read from defunct connection",
    caused by a socket timeout. A refused or unreachable server fails in connecting instead."""
    if not str(exc).startswith("Failed to read"):
        return False
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, TimeoutError):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def failure_of(exc: ResultFailedError) -> Exception:
    """The server's error behind the driver's "this result or another result in the same
    transaction has encountered an error": seen when a deadlock victim's rollback re-reads a
    failed result (CI, 8 concurrent writers). Classified as itself, so a deadlock is retried."""
    for cause in (exc.__cause__, exc.__context__):
        if isinstance(cause, (Neo4jError, DriverError)):
            return cause
    return exc


def _close(session: neo4j.Session) -> None:
    try:
        session.close()
    except (DriverError, Neo4jError, OSError) as exc:
        log.debug("closing a session failed: %s", exc)


class Tx:
    """A thin wrapper so code inside a transaction also runs queries by name."""

    def __init__(self, tx: neo4j.Transaction):
        self._tx = tx

    def run(self, name: str, rows: Rows = Rows.DATA, /, **params: Any) -> list[dict[str, Any]]:
        with tracing.span(name, "client", **{"db.system": "neo4j"}):
            return self.statement(name, query(name), rows, params)

    def run_text(self, text: str, rows: Rows = Rows.DATA, /, **params: Any) -> list[dict[str, Any]]:
        return self.statement("(text)", text, rows, params)

    def statement(self, name: str, text: str, rows: Rows, params: dict[str, Any]) -> list[dict[str, Any]]:
        """One statement of this transaction, its rows converted as `rows` says; counted under
        `name` in an open `counted()` tally."""
        convert = _CONVERT[rows]
        _SEEN[text] = _SEEN.get(text, 0) + 1
        started = time.perf_counter()
        result = self._tx.run(text, params)
        out = [convert(r) for r in result]
        _count(name, result, started)
        return out

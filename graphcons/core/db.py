"""The Neo4j connection: one driver, parameterised named queries, one place for retries.

Nothing here knows about memories; it runs the queries of cypher/ and checks that the
server is the one graphcons needs (reachable, with GDS).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

import neo4j
from neo4j.exceptions import AuthError, ClientError, ServiceUnavailable

from graphcons.core.config import Neo4jConfig
from graphcons.core.cypher import query
from graphcons.core.errors import ServerUnavailable
from graphcons.core.time import native

T = TypeVar("T")

GDS_HELP = (
    "the Graph Data Science plugin is not installed on this Neo4j server. "
    "Use scripts/neo4j start (it assembles Neo4j with the open-source GDS 2.13 from Maven Central), "
    "or add the GDS plugin to your server (compose/docker-compose.yml sets NEO4J_PLUGINS='[\"graph-data-science\"]') "
    "and allow it with dbms.security.procedures.unrestricted=gds.*"
)


class Database:
    def __init__(self, cfg: Neo4jConfig):
        self.cfg = cfg
        try:
            self.driver = neo4j.GraphDatabase.driver(
                cfg.uri, auth=(cfg.user, cfg.resolved_password()), notifications_min_severity="OFF"
            )
            self.driver.verify_connectivity()
        except (ServiceUnavailable, OSError) as exc:
            raise ServerUnavailable(
                f"cannot reach Neo4j at {cfg.uri} ({exc}); start it with scripts/neo4j start "
                "or set NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD"
            ) from exc
        except AuthError as exc:
            raise ServerUnavailable(
                f"Neo4j at {cfg.uri} refused user {cfg.user!r}: {exc.message}; "
                "check NEO4J_PASSWORD (scripts/neo4j password prints the generated one)"
            ) from exc

    def close(self) -> None:
        self.driver.close()

    def run(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """Run one named query in its own auto-retried transaction; rows as dicts."""
        return self.run_text(query(name), **params)

    def run_text(self, text: str, /, **params: Any) -> list[dict[str, Any]]:
        """Run a statement read from cypher/ by the caller (schema files hold several)."""
        records, _, _ = self.driver.execute_query(text, params, database_=self.cfg.database)
        return [native(r.data()) for r in records]

    def run_values(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """`run` for a query whose columns hold only values (strings, numbers, lists, maps; no
        nodes, relationships or paths): rows without Record.data()'s walk over every nested value,
        which costs seconds on the millions of values a cluster scan reads (issue 15)."""
        records, _, _ = self.driver.execute_query(query(name), params, database_=self.cfg.database)
        return [native(dict(r)) for r in records]

    def run_plain(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """`run_values` for a query that returns no temporal value by construction (ids, numbers,
        strings and lists of them: a scan's detected members and projected edges): rows as the
        driver decoded them, without the walk over every value (~0.7 s of a 100k-memory scan)."""
        records, _, _ = self.driver.execute_query(query(name), params, database_=self.cfg.database)
        return [dict(r) for r in records]

    @contextmanager
    def transaction(self) -> Iterator["Tx"]:
        """One explicit write transaction: everything inside commits together or not at all."""
        with self.driver.session(database=self.cfg.database) as session:
            with session.begin_transaction() as tx:
                yield Tx(tx)
                tx.commit()

    def write(self, work: Callable[["Tx"], T]) -> T:
        """Run `work(tx)` in one write transaction, retried on transient errors (deadlocks on
        shared locks when admissions run concurrently, leader switches): `work` must compute
        its result from the transaction only, so a retry gives the same result it would have
        given the first time (the driver's managed transactions, up to 30 s of retries)."""
        with self.driver.session(database=self.cfg.database) as session:
            return session.execute_write(lambda tx: work(Tx(tx)))

    def gds_version(self) -> str:
        try:
            return self.run("admin/gds_version")[0]["version"]
        except ClientError as exc:
            if "Unknown function" in (exc.message or "") or "gds" in (exc.message or ""):
                raise ServerUnavailable(GDS_HELP) from exc
            raise


class Tx:
    """A thin wrapper so code inside a transaction also runs queries by name."""

    def __init__(self, tx: neo4j.Transaction):
        self._tx = tx

    def run(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        return [native(r.data()) for r in self._tx.run(query(name), params)]

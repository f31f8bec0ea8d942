"""Where the graph algorithms run (issue 33): the fused projection and the detectors through the
graphdatascience client, on the database's own GDS plugin or in an Aura Graph Analytics session.

`[gds] backend = "plugin"` with `client = false` (the default) never comes here: scan.py calls the GDS
procedures in Cypher, detection and the members' fields in one query. This module drives the same
steps through the client's API instead:

- plugin + client: the same projection query (cypher/clusters/project), then toUndirected, the
  detector's stream and the graph's drop as client calls on the database's plugin. Same graph, same
  node order, same configuration: the same clusters (tests/test_gds_placement.py compares them).
- sessions: the projection query's memory selection and weights, ending in
  `gds.graph.project.remote` (`remote_query`), run by the session against the database; the
  session sums each pair's relationships into one undirected edge, runs the detector and streams
  the communities back by database node id; the members' fields are then read from the database
  (cypher/clusters/members_by_node). Aura DB has no GDS plugin, so nothing of it runs there.
  The projected edges are not collected in this mode: the gate computes its figures by its store
  pass (graphcons.consolidation.figures), as it does for a caller's clusters.

What was exercised: the plugin + client path, and the remote query's selection (run locally with the
plugin's `gds.graph.project`), on the local Neo4j 5.26 + GDS 2.13. What was not: a real session (it
needs an Aura account with Graph Analytics enabled; docs/SCALE.md says so).
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from typing import Any

from graphcons.consolidation import fusion
from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.communities import Detector, Leiden, _clusters
from graphcons.core.config import ConsolidationConfig, GdsConfig
from graphcons.core.cypher import query
from graphcons.core.db import Database, Rows
from graphcons.core.errors import ConfigError
from graphcons.store import tie

# The environment variables the Aura API credentials come from (never from graphcons.toml).
CREDENTIAL_VARS = ("GRAPHCONS_AURA_CLIENT_ID", "GRAPHCONS_AURA_CLIENT_SECRET")
PROJECT_VAR = "GRAPHCONS_AURA_PROJECT_ID"

# clusters/project's aggregation starts at this line; the remote query keeps everything before it.
_PROJECT_CALL = "WITH gds.graph.project("


def remote_query(name: str = "clusters/project") -> str:
    """The projection query `name` (clusters/project, project_members or project_parts) up to its
    `WITH gds.graph.project(`, ending in `<name>_remote_tail`'s gds.graph.project.remote: one memory
    selection and one weight formula for the plugin and the session, so they cannot drift apart."""
    text = query(name)
    at = text.find(_PROJECT_CALL)
    if at < 0:  # the projection query was rewritten: say so instead of projecting something else
        raise RuntimeError(f"cypher/{name} no longer contains {_PROJECT_CALL!r}; update placement.remote_query")
    return text[:at] + query(f"{name}_remote_tail")


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def detector_kwargs(detector: Detector, proj: fusion.Projection) -> dict[str, Any]:
    """The detector's procedure configuration as the client's keyword arguments."""
    return {_snake(k): v for k, v in detector.config(proj).items()}


class ClientGds:
    """One graphdatascience object (GraphDataScience on the plugin, or AuraGraphDataScience of a
    session) and the steps of a scan's detection through it."""

    def __init__(self, gds: Any, *, remote: bool):
        self.gds = gds
        self.remote = remote

    def project(self, db: Database, cc: ConsolidationConfig, graph_name: str, *,
                namespace: str | None = None, subjects: list[str] | None = None,
                with_edges: bool = False) -> fusion.Projection:
        params = {"namespace": namespace, "subjects": subjects, **tie.params(), **fusion.weight_params(cc)}
        if self.remote:
            self.gds.graph.project.cypher(graph_name, remote_query(), query_parameters=params)
            with_edges = False  # the remote query returns the graph only; the gate reads the store
        else:
            frame = self.gds.run_cypher(query("clusters/project"),
                                        {**params, "graph_name": graph_name, "with_edges": with_edges})
            if frame.empty or frame.iloc[0]["graph"] is None:
                return fusion.Projection(graph_name=graph_name, nodes=0, relationships=0)
        if not self.gds.graph.exists(graph_name):  # an empty selection projects no graph at all
            return fusion.Projection(graph_name=graph_name, nodes=0, relationships=0)
        G = self.gds.graph.get(graph_name)
        relationships = 0
        total_weight = 0.0
        if G.relationship_count():
            result = self.gds.graph.relationships.to_undirected(G, "__ALL__", "FUSED", aggregation="SUM",
                                                                concurrency=1)
            relationships = int(result.relationships_written)
            self.gds.graph.relationships.drop(G, "__ALL__")
        edges = None
        if self.remote:
            if relationships:  # each undirected edge streams once per direction
                weights = self.gds.graph.relationship_properties.stream(G, ["weight"], ["FUSED"])
                total_weight = float(weights["weight"].sum()) / 2
        else:
            row = frame.iloc[0]
            total_weight = float(row["total_weight"] or 0.0)
            if with_edges:
                edges = fusion._pairs(row.to_dict())
        return fusion.Projection(graph_name=graph_name, nodes=int(G.node_count()), relationships=relationships,
                                 total_weight=total_weight, edges=edges)

    def project_subgraphs(self, db: Database, name: str, graph_name: str, params: dict[str, Any]) -> None:
        """clusters/project_members or project_parts (a split's undirected subgraphs) under `graph_name`."""
        if self.remote:
            self.gds.graph.project.cypher(graph_name, remote_query(name), query_parameters=params,
                                          undirected_relationship_types=["*"])
        else:
            self.gds.run_cypher(query(name), {**params, "graph_name": graph_name})

    def detect(self, db: Database, detector: Detector, proj: fusion.Projection) -> list[Cluster]:
        return self.detect_members(db, detector, proj)[0]

    def detect_members(self, db: Database, detector: Detector, proj: fusion.Projection
                       ) -> tuple[list[Cluster], dict[str, dict[str, Any]]]:
        G = self.gds.graph.get(proj.graph_name)
        kwargs = detector_kwargs(detector, proj)
        if isinstance(detector, Leiden):
            try:
                frame = self.gds.leiden.stream(G, **kwargs)
            except Exception as exc:  # the plugin's "all singletons" failure (communities.Leiden says why)
                if "dendrogramManager" in str(exc):
                    return [], {}
                raise
        else:
            frame = self.gds.label_propagation.stream(G, **kwargs)
        if frame.empty:
            return [], {}
        rows = db.run("clusters/members_by_node", Rows.PLAIN, node=[int(n) for n in frame["nodeId"]],
                            community=[int(c) for c in frame["communityId"]])
        return _clusters(rows)

    def drop(self, graph_name: str) -> None:
        self.gds.graph.drop(graph_name, fail_if_missing=False)

    def close(self) -> None:
        close = getattr(self.gds, "close", None)
        if close is not None and self.remote:
            close()


def aura_credentials() -> tuple[str, str, str | None]:
    """The Aura API credentials from the environment, or a ConfigError naming what is missing."""
    missing = [v for v in CREDENTIAL_VARS if not os.environ.get(v)]
    if missing:
        raise ConfigError(
            f"gds.backend = \"sessions\" needs Aura API credentials: set {' and '.join(missing)} "
            f"(and {PROJECT_VAR} when your Aura user belongs to several projects); create them in the Aura "
            "console under API credentials. Or set [gds] backend = \"plugin\" to run GDS inside the database.")
    return os.environ[CREDENTIAL_VARS[0]], os.environ[CREDENTIAL_VARS[1]], os.environ.get(PROJECT_VAR) or None


def connect(db: Database, gc: GdsConfig) -> ClientGds:
    """The client for `gc`: the database's plugin through GraphDataScience, or a session (created, or
    joined when it runs already) through GdsSessions."""
    if gc.backend == "plugin":
        from graphdatascience import GraphDataScience

        client = GraphDataScience(db.driver, database=db.cfg.database, arrow=False, show_progress=False)
        return ClientGds(_after_own_writes(db, client), remote=False)
    client_id, client_secret, project_id = aura_credentials()
    from graphdatascience.session import AuraAPICredentials, DbmsConnectionInfo, GdsSessions, SessionMemory

    memory = next(m for m in SessionMemory if m.value.value == gc.session_memory)  # the config allows only these
    sessions = GdsSessions(api_credentials=AuraAPICredentials(client_id, client_secret, project_id))
    gds = sessions.get_or_create(
        gc.session_name, memory=memory,
        db_connection=DbmsConnectionInfo(uri=db.cfg.uri, username=db.cfg.user, password=db.cfg.resolved_password(),
                                         database=db.cfg.database),
        ttl=timedelta(minutes=gc.session_ttl_minutes), timeout=gc.session_timeout_s, show_progress=False)
    return ClientGds(_after_own_writes(db, gds), remote=True)


def _after_own_writes(db: Database, client: Any) -> Any:
    """The client's queries start after every write this process made (db.bookmarks), as the
    product's own sessions do: on a cluster a projection read from a secondary sees what was just
    admitted (issue 33)."""
    import neo4j

    seen = db.bookmarks.get_bookmarks()
    if seen:
        client.set_bookmarks(neo4j.Bookmarks.from_raw_values(seen))
    return client

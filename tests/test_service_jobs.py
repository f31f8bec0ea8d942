"""The job routes (issue 50 item 1) through a real uvicorn server and the real Neo4j: every
`POST /v1/jobs/{job}` honours the request's `dry_run` (nothing written, whatever the configuration
says) and `namespace` (only that namespace touched), and echoes both. Before, consolidate ignored
`dry_run` (with `[consolidation] dry_run = false` a dry run made real proposals) and merge, decay,
promote and deprecate ran over every namespace and answered `"namespace": null`."""

from __future__ import annotations

import pytest
from service_helpers import Server
from synthesis_helpers import INCIDENTS, NOW, add_incidents
from test_updates import NEW, OLD

from graphcons.core.config import Config, ConsolidationConfig

LATER = "2027-06-01T00:00:00+00:00"  # the routes' decision time: months after the memories
# decay before deprecate reads it; updates and cards before merge and consolidate change the pair they read
ORDER = ("scan", "updates", "cards", "consolidate", "merge", "promote", "decay", "deprecate")
DERIVED = ("embedding", "community", "community_size", "community_run")  # a scan's recall prior, not a write


@pytest.fixture(scope="module")
def server(neo4j_settings, embedder):
    """A server whose configuration lets consolidation write: only the request can ask for a dry run."""
    cc = ConsolidationConfig(enabled=True, dry_run=False, min_salience=0.0)
    with Server(Config(neo4j=neo4j_settings, consolidation=cc), embedder) as srv:
        yield srv


def tenant(g, ns: str) -> None:
    """Something for every job to change in `ns`: a linked incident cluster (consolidate), a near
    duplicate pair (merge), a proposed decision (promote), weights to recompute (decay) and an old
    note nobody reads (deprecate), and a count the user gave twice, a month apart (updates; cards)."""
    rows = [(f"{ns}-{mid}", text, source, day) for mid, text, source, day in INCIDENTS]
    add_incidents(g, rows, namespace=ns)
    ids = [r[0] for r in rows]
    for i, x in enumerate(ids):
        for y in ids[i + 1:]:
            g.link(x, y, "same_incident")
    for text, source in (("The billing export runs every night at 02:00 and writes to the reports bucket.", "ops"),
                         ("Every night at 02:00 the billing export runs and writes to the reports bucket.", "wiki")):
        g.add({"title": "Nightly billing export", "content": text, "source": source, "subject": "export",
               "namespace": ns, "created_at": "2026-11-20T10:00:00+00:00"})
    g.add({"content": "We decided to move the job queue to Kafka.", "kind": "decision", "status": "proposed",
           "subject": "queue", "namespace": ns})
    g.add({"content": "The fax machine on floor 3 needs toner.", "subject": "office", "namespace": ns,
           "importance": 0.0, "confidence": 0.0, "created_at": "2025-01-06T10:00:00+00:00"})
    for turn in (OLD, NEW):
        g.add({**turn, "namespace": ns})


def state(g, ns: str | None = None) -> dict:
    """What a job writes (of one namespace, or the whole store): each memory's properties, the
    proposals, the synthesis budget, and every audit record except a scan's record of itself (a scan
    that is no dry run records that it ran; what changed is what this compares)."""
    where = "" if ns is None else "WHERE m.namespace = $ns"
    mems = {r["m"]["id"]: {k: v for k, v in r["m"].items() if k not in DERIVED}
            for r in g.db.run_text(f"MATCH (m:Memory) {where} RETURN m {{.*}} AS m", ns=ns)}
    props = g.db.run_text("MATCH (p:Proposal) OPTIONAL MATCH (p)-[:ABOUT]->(m:Memory) WITH p, collect(m.namespace) AS ns "
                          "WHERE $ns IS NULL OR $ns IN ns OR p.namespace = $ns RETURN p.id AS id, p.status AS status "
                          "ORDER BY id", ns=ns)
    budget = g.db.run_text("MATCH (b) WHERE (b:SynthesisBudget OR b:BudgetReservation OR b:NamespaceBudget) AND "
                           "($ns IS NULL OR b.namespace = $ns) RETURN count(b) AS n", ns=ns)[0]["n"]
    audits = [(a["op"], sorted(a["targets"])) for a in g.audit_log(limit=10_000)
              if a["op"] != "cluster_scan"
              and (ns is None or any(t in mems for t in a["targets"]))]
    return {"memories": mems, "proposals": props, "budget": budget, "audits": sorted(audits)}


def everything(g) -> dict:
    """The whole store as a dry run must leave it (issue 59): every node and relationship counted by
    label or type, every memory property (a scan's communities included), every audit record."""
    nodes = g.db.run_text("MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS n ORDER BY l")
    rels = g.db.run_text("MATCH ()-[r]->() RETURN type(r) AS t, count(*) AS n ORDER BY t")
    mems = g.db.run_text("MATCH (m:Memory) RETURN m {.*, embedding: null} AS m ORDER BY m.id")
    return {"nodes": nodes, "relationships": rels, "memories": mems, "audits": len(g.audit_log(limit=10_000))}


def test_every_job_route_honours_dry_run_and_namespace(g, server):
    for ns in ("nsA", "nsB"):
        tenant(g, ns)
    g.decay(dry_run=False, now=NOW)  # stored weights as a worker leaves them
    root = server.client(g.create_token("root", ["*"], "admin")[0])
    jobs = server.app.openapi()["paths"]["/v1/jobs/{job}"]["post"]["parameters"][0]["schema"]["enum"]
    assert sorted(jobs) == sorted(ORDER)  # a new job is walked here or this fails

    before = everything(g)
    for job in ORDER:
        r = root.post(f"/v1/jobs/{job}", json={"dry_run": True, "namespace": "nsA", "now": LATER})
        assert r.status_code == 200, (job, r.text)
        assert (r.json()["dry_run"], r.json()["namespace"]) == (True, "nsA"), job
        # nothing at all: no ConsolidationRun, no audit, no community (issue 59: scan and consolidate wrote them)
        assert everything(g) == before, f"the dry run of {job} wrote"

    other, touched = state(g, "nsB"), {}
    for job in ORDER:
        mine = state(g, "nsA")
        r = root.post(f"/v1/jobs/{job}", json={"dry_run": False, "namespace": "nsA", "now": LATER})
        assert r.status_code == 200, (job, r.text)
        assert (r.json()["dry_run"], r.json()["namespace"]) == (False, "nsA"), job
        assert state(g, "nsB") == other, f"{job} asked for nsA touched nsB"
        touched[job] = state(g, "nsA") != mine
    assert touched == {"scan": False, "updates": True, "cards": True, "consolidate": True, "merge": True,
                       "promote": True, "decay": True, "deprecate": True}
    assert {p["namespace"] for p in g.proposals()} == {"nsA"}


def test_a_job_without_namespace_echoes_every_namespace_and_a_tenant_admin_stays_in_its_own(g, server):
    tenant(g, "nsA")
    root = server.client(g.create_token("root", ["*"], "admin")[0])
    r = root.post("/v1/jobs/promote", json={"now": LATER})
    assert r.status_code == 200 and (r.json()["dry_run"], r.json()["namespace"]) == (True, None), r.text
    scoped = server.client(g.create_token("admin-a", ["nsA"], "admin")[0])
    r = scoped.post("/v1/jobs/consolidate", json={"now": LATER})  # its one namespace, a dry run by default
    assert r.status_code == 200 and (r.json()["dry_run"], r.json()["namespace"]) == (True, "nsA"), r.text
    assert g.proposals() == []
    assert scoped.post("/v1/jobs/consolidate", json={"namespace": "nsB"}).status_code == 403
    assert scoped.post("/v1/jobs/decay", json={"namespace": "nsA"}).status_code == 403  # store-wide jobs need *
    assert root.post("/v1/jobs/decay", json={"namespace": ""}).status_code == 422

"""The rest of the HTTP surface (issue 32) through a real uvicorn server and the real Neo4j:
reflect and profiles, feedback, conflicts, except / confirm / justify, consolidate (run, dry run);
each with the roles and namespace scoping of the first routes (graphcons/service/deps.py)."""

from __future__ import annotations

import pytest
from service_helpers import Server, counts
from synthesis_helpers import NOW, add_incidents
from test_reflection import add_many

from graphcons.core.config import Config, ServiceConfig

ROLES = ("reader", "writer", "reviewer", "admin")


@pytest.fixture(scope="module")
def server(neo4j_settings, embedder):
    with Server(Config(neo4j=neo4j_settings, service=ServiceConfig()), embedder) as srv:
        yield srv


@pytest.fixture
def api(g, server):
    """One token per role on namespace 'team', an admin on 'other', and an admin over '*'."""
    tokens = {r: g.create_token(f"{r}-1", ["team"], r)[0] for r in ROLES}
    tokens["outsider"] = g.create_token("outsider", ["other"], "admin")[0]
    tokens["root"] = g.create_token("root", ["*"], "admin")[0]
    return server, {k: server.client(v) for k, v in tokens.items()}


def error(resp, status, name):
    assert resp.status_code == status, resp.text
    data = resp.json()
    assert data["error"] == name and data["message"] and "Traceback" not in resp.text
    return data


def insight_in(g, namespace="team"):
    """An applied insight over four checkout incidents in `namespace`."""
    cluster = add_incidents(g, namespace=namespace)
    pid = g.synthesize(cluster, now=NOW).proposal_id
    return g.approve(pid, by="ana", now=NOW).insight_id


def test_openapi_lists_every_new_route_with_summaries_and_errors(api):
    server, c = api
    spec = server.client().get("/openapi.json").json()
    paths = spec["paths"]
    for path, method in [("/v1/reflect", "post"), ("/v1/reflect/due", "post"), ("/v1/profiles/{subject}", "get"),
                         ("/v1/profiles/{subject}/history", "get"), ("/v1/memories/{memory_id}/feedback", "post"),
                         ("/v1/conflicts", "get"), ("/v1/conflicts/{a}/{b}/resolve", "post"),
                         ("/v1/insights/{insight_id}/exceptions", "post"),
                         ("/v1/insights/{insight_id}/confirmations", "post"),
                         ("/v1/insights/{insight_id}/justifications", "post"),
                         ("/v1/insights/{insight_id}/epistemics", "get"), ("/v1/rules", "get"),
                         ("/v1/consolidate", "post")]:
        op = paths[path][method]
        assert op["summary"] and op["description"], path
        assert {"401", "403", "404"} <= set(op["responses"]), path


def test_reflect_and_profile_by_role_and_namespace(g, api):
    _, c = api
    add_many(g, "user-ana", [f"Ana prefers short answers about invoice {i}." for i in range(10)], namespace="team",
             kind="preference")
    error(c["reader"].post("/v1/reflect", json={"subject": "user-ana"}), 403, "forbidden")
    error(c["outsider"].post("/v1/reflect", json={"subject": "user-ana", "namespace": "team"}), 403, "forbidden")
    before = counts(g)
    error(c["writer"].post("/v1/reflect", json={"subject": "user-ana", "extra": 1}), 422, "invalid_request")
    assert counts(g) == before
    r = c["writer"].post("/v1/reflect", json={"subject": "user-ana"})  # the token's one namespace
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["status"] == "proposed" and out["namespace"] == "team" and out["memories_reviewed"] == 10
    assert g.proposal(out["proposal_id"])["status"] == "pending"
    error(c["writer"].get("/v1/profiles/user-ana"), 404, "not_found")  # nothing approved yet
    g.approve(out["proposal_id"], now=NOW)
    prof = c["reader"].get("/v1/profiles/user-ana").json()
    assert prof["version"] == 1 and prof["preferences"]
    assert [v["version"] for v in c["reader"].get("/v1/profiles/user-ana/history").json()] == [1]
    error(c["outsider"].get("/v1/profiles/user-ana", params={"namespace": "team"}), 403, "forbidden")
    assert c["root"].get("/v1/profiles/user-ana").json()["version"] == 1  # '*': the subject's own namespace
    error(c["writer"].post("/v1/reflect", json={"subject": "nobody"}), 404, "not_found")


def test_the_due_pass_lists_then_reflects_within_the_token_namespaces(g, api):
    server, c = api
    for ns in ("team", "other"):
        add_many(g, f"user-{ns}", [f"{ns} user prefers tea number {i}." for i in range(10)], namespace=ns,
                 kind="preference")
    error(c["reviewer"].post("/v1/reflect/due", json={}), 403, "forbidden")
    listed = c["admin"].post("/v1/reflect/due", json={}).json()  # a dry run by default
    assert [(d["namespace"], d["subject"]) for d in listed["due"]] == [("team", "user-team")]
    assert g.proposals(kind="reflect") == []
    off = c["admin"].post("/v1/reflect/due", json={"dry_run": False}).json()
    assert off["enabled"] is False and "GRAPHCONS__REFLECTION__ENABLED" in off["message"]
    server.app.state.store.config.reflection.enabled = True
    try:
        ran = c["admin"].post("/v1/reflect/due", json={"dry_run": False}).json()
    finally:
        server.app.state.store.config.reflection.enabled = False
    assert ran["counts"] == {"proposed": 1}
    assert [(p["namespace"], p["subject"]) for p in g.proposals(kind="reflect")] == [("team", "user-team")]
    # '*' sees both; team stays due until its proposal is approved (a pending one consolidates nothing)
    assert {d["namespace"] for d in c["root"].post("/v1/reflect/due", json={}).json()["due"]} == {"team", "other"}


def test_feedback_by_role_and_namespace(g, api):
    _, c = api
    mid = g.add({"content": "Deploys on Friday afternoon caused two outages.", "namespace": "team"}).id
    error(c["reader"].post(f"/v1/memories/{mid}/feedback", json={"verdict": "useful"}), 403, "forbidden")
    hidden = error(c["outsider"].post(f"/v1/memories/{mid}/feedback", json={"verdict": "useful"}), 404, "not_found")
    assert hidden["message"] == "no memory with id " + repr(mid)  # as if it did not exist
    error(c["writer"].post(f"/v1/memories/{mid}/feedback", json={"verdict": "meh"}), 422, "invalid_request")
    stored = c["writer"].get(f"/v1/memories/{mid}").json()["effective_weight"]
    useful = c["writer"].post(f"/v1/memories/{mid}/feedback", json={"verdict": "useful"}).json()
    assert useful["effective_weight_before"] == pytest.approx(stored)  # issue 41: the stored weight, not another
    assert useful["effective_weight"] > useful["effective_weight_before"]  # 'useful' never lowers it
    assert c["writer"].get(f"/v1/memories/{mid}").json()["effective_weight"] == pytest.approx(useful["effective_weight"])
    r = c["writer"].post(f"/v1/memories/{mid}/feedback", json={"verdict": "wrong", "note": "one outage only"})
    # the writer changed its mind: its 'wrong' replaces its 'useful' (one rater counts once)
    assert r.status_code == 200 and (r.json()["wrong"], r.json()["useful"], r.json()["replaced"]) == (1, 0, "useful")
    assert r.json()["effective_weight"] < r.json()["effective_weight_before"]
    assert g.audit_log(op="feedback")[0]["details"]["by"] == "api:writer-1"


def test_one_token_repeating_useful_counts_once(g, api):
    """Issue 50 item 10: the same token repeating "useful" raised the weight each time (0.45, 0.475,
    0.49). Feedback from one principal on one memory counts once, like evidence from one source."""
    server, c = api
    mid = g.add({"content": "Warming the cache before switching traffic avoids 503s.", "namespace": "team"}).id
    first = c["writer"].post(f"/v1/memories/{mid}/feedback", json={"verdict": "useful"}).json()
    assert first["effective_weight"] > first["effective_weight_before"]
    for _ in range(3):
        again = c["writer"].post(f"/v1/memories/{mid}/feedback", json={"verdict": "useful"})
        assert again.status_code == 200 and again.json()["effective_weight"] == pytest.approx(first["effective_weight"])
        assert (again.json()["useful"], again.json()["replaced"]) == (1, "useful")
    assert first["replaced"] is None
    assert c["reader"].get(f"/v1/memories/{mid}").json()["effective_weight"] == pytest.approx(first["effective_weight"])
    other = server.client(g.create_token("writer-2", ["team"], "writer")[0])  # another principal does count
    second = other.post(f"/v1/memories/{mid}/feedback", json={"verdict": "useful"}).json()
    assert second["useful"] == 2 and second["effective_weight"] > first["effective_weight"]
    assert len(g.audit_log(op="feedback")) == 5  # every rating is kept and audited


def _conflict(g, namespace):
    a = g.add({"id": f"{namespace}-a", "content": "The EU region stores invoices for 7 years.",
               "namespace": namespace}).id
    b = g.add({"id": f"{namespace}-b", "content": "The EU region stores invoices for 10 years.",
               "namespace": namespace}).id
    g.db.run_text("MATCH (a:Memory {id: $a}), (b:Memory {id: $b}) "
                  "CREATE (a)-[:CONFLICTS_WITH {status: 'open', reasons: ['number'], score: 0.9, detected_at: $now}]->(b)",
                  a=a, b=b, now=NOW)
    return a, b


def test_conflicts_are_listed_within_the_namespaces_and_resolved_by_reviewers(g, api):
    _, c = api
    a, b = _conflict(g, "team")
    _conflict(g, "other")
    assert [(x["a"], x["b"]) for x in c["reader"].get("/v1/conflicts").json()] == [(a, b)]
    assert len(c["root"].get("/v1/conflicts").json()) == 2
    body = {"holds": a, "note": "the retention policy says 7"}
    error(c["writer"].post(f"/v1/conflicts/{a}/{b}/resolve", json=body), 403, "forbidden")
    error(c["outsider"].post(f"/v1/conflicts/{a}/{b}/resolve", json=body), 404, "not_found")
    error(c["reviewer"].post(f"/v1/conflicts/{a}/{b}/resolve", json={"holds": "both"}), 400, "bad_input")
    r = c["reviewer"].post(f"/v1/conflicts/{a}/{b}/resolve", json=body)
    assert r.status_code == 200, r.text
    assert c["reader"].get("/v1/conflicts").json() == []
    resolved = c["reader"].get("/v1/conflicts", params={"status": "all"}).json()
    assert resolved[0]["status"] == "resolved" and resolved[0]["resolved_by"] == "api:reviewer-1"
    error(c["reviewer"].post(f"/v1/conflicts/{a}/{b}/resolve", json=body), 409, "conflict")
    assert g.get(a).status == g.get(b).status == "active"  # both kept


def test_except_confirm_justify_and_epistemics(g, api):
    _, c = api
    iid = insight_in(g)
    canary = g.add({"id": "inc-canary", "content": "Canary deploys of checkout never returned 503.",
                    "source": "oncall-cy", "subject": "checkout", "namespace": "team"}).id
    status_page = g.add({"id": "status-1", "content": "The status page showed checkout 503s after each deploy.",
                         "source": "status-page", "subject": "checkout", "namespace": "team"}).id
    pref = g.add({"id": "pref-1", "content": "The checkout team prefers warming caches before switching traffic.",
                  "source": "team-handbook", "subject": "checkout", "namespace": "team", "kind": "preference"}).id
    scope = {"deploy_strategy": "canary"}
    error(c["writer"].post(f"/v1/insights/{iid}/exceptions", json={"memory_id": canary, "scope": scope}),
          403, "forbidden")
    error(c["outsider"].get(f"/v1/insights/{iid}/epistemics"), 404, "not_found")
    r = c["reviewer"].post(f"/v1/insights/{iid}/exceptions", json={"memory_id": canary, "scope": scope})
    assert r.status_code == 200 and r.json()["created"], r.text
    situation = c["reader"].post(f"/v1/insights/{iid}/status", json={"context": scope}).json()
    assert situation["status"] == "defeated"
    # repetition from one source is not confirmation: pagerduty is already a premise source
    error(c["reviewer"].post(f"/v1/insights/{iid}/confirmations", json={"evidence_id": "inc-1"}), 400, "bad_input")
    ok = c["reviewer"].post(f"/v1/insights/{iid}/confirmations", json={"evidence_id": status_page})
    assert ok.status_code == 200 and ok.json()["epistemic_status"] == "supported", ok.text
    assert [r["name"] for r in c["reader"].get("/v1/rules").json()] == ["stated-preference"]
    just = c["reviewer"].post(f"/v1/insights/{iid}/justifications", json={"rule": "stated-preference",
                                                                          "premises": [pref]})
    assert just.status_code == 200, just.text
    kinds = {j["kind"] for j in c["reader"].get(f"/v1/insights/{iid}/epistemics").json()["justifications"]}
    assert kinds == {"synthesis", "evidence", "rule"}
    error(c["reviewer"].post(f"/v1/insights/{iid}/justifications", json={"rule": "stated-preference",
                                                                         "premises": ["m-missing"]}),
          404, "not_found")


def test_consolidate_run_and_dry_run(g, api):
    server, c = api
    add_incidents(g, namespace="team")
    ids = ["inc-1", "inc-2", "inc-3", "inc-4"]
    for i, x in enumerate(ids):
        for y in ids[i + 1:]:
            g.link(x, y, "same_incident")
    cc = server.app.state.store.config.consolidation  # the server's own configuration
    saved = cc.model_dump()
    cc.enabled, cc.min_salience = True, 0.0
    try:
        error(c["reviewer"].post("/v1/consolidate", json={}), 403, "forbidden")
        error(c["outsider"].post("/v1/consolidate", json={"namespace": "team"}), 403, "forbidden")
        dry = c["admin"].post("/v1/consolidate", json={})
        assert dry.status_code == 200 and dry.json()["dry_run"] is True, dry.text
        assert dry.json()["scan"]["accepted"] == 1 and g.proposals(kind="consolidate") == []
        refused = error(c["admin"].post("/v1/consolidate", json={"dry_run": False}), 409, "conflict")
        assert "GRAPHCONS__CONSOLIDATION__DRY_RUN" in refused["message"]
        cc.dry_run = False  # the operator lifts dry-run mode; a request may still ask for a dry run
        assert c["admin"].post("/v1/consolidate", json={"dry_run": True}).json()["dry_run"] is True
        assert g.proposals(kind="consolidate") == []
        run = c["admin"].post("/v1/consolidate", json={"dry_run": False})
        assert run.status_code == 200 and run.json()["counts"] == {"proposed": 1}, run.text
        (prop,) = c["reader"].get("/v1/proposals", params={"kind": "consolidate"}).json()
        assert prop["namespace"] == "team"
        assert c["outsider"].get("/v1/proposals", params={"kind": "consolidate"}).json() == []
    finally:
        for k, v in saved.items():
            setattr(cc, k, v)

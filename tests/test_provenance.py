"""Provenance you can ask about, spreading activation, and sleep-time precompute (real Neo4j)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from synthesis_helpers import INCIDENTS, NOW, add_incidents

from graphcons.consolidation.provenance import build, walk
from graphcons.core.cypher import query
from graphcons.core.errors import DanglingProvenance

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def applied(g):
    cluster = add_incidents(g)
    res = g.approve(g.synthesize(cluster, now=NOW).proposal_id, now=NOW)
    return cluster, res.insight_id


def test_explain_walks_to_the_source_episodes_with_sources_and_dates(g, applied):
    cluster, iid = applied
    out = g.explain(iid)
    assert out["tree"]["kind"] == "insight" and out["tree"]["epistemic_status"] == "hypothesis"
    kids = out["tree"]["children"]
    assert [k["id"] for k in kids] == list(cluster.member_ids)
    assert all(k["link"]["cited"] and k["link"]["summarized_version"] == 1 for k in kids)
    expected = {mid: (source, day) for mid, _, source, day in INCIDENTS}
    assert [s["id"] for s in out["sources"]] == ["inc-1", "inc-2", "inc-3", "inc-4"]  # oldest first
    for s in out["sources"]:
        assert s["sources"] == [expected[s["id"]][0]] and s["created_at"].startswith(expected[s["id"]][1])
    # and from a source episode: which insight summarises it
    assert [r["id"] for r in g.explain("inc-1")["summarized_by"]] == [iid]


def test_provenance_round_trips_through_the_browser_queries(g, applied):
    cluster, iid = applied
    rows = g.db.run_text(query("provenance/sources"), id=iid)
    assert [r["id"] for r in rows] == list(cluster.member_ids)
    paths = g.db.run_text(query("provenance/graph"), id=iid)
    assert len(paths) == 2 * cluster.size  # one SUMMARIZES and one DERIVED_FROM path per member
    assert g.db.run_text(query("provenance/dangling")) == []


def test_dangling_provenance_raises(g, applied):
    _, iid = applied
    # something outside graphcons removes a member (graphcons itself never deletes)
    g.db.run_text("MATCH (m:Memory {id: 'inc-2'}) DETACH DELETE m")
    with pytest.raises(DanglingProvenance) as err:
        g.explain(iid)
    assert "inc-2" in str(err.value)
    assert g.db.run_text(query("provenance/dangling")) == [{"insight": iid, "missing": ["inc-2"]}]


def test_dangling_version_raises(g, applied):
    _, iid = applied
    links, nodes = walk(g.db, iid)
    links[0] = {**links[0], "type": "SUMMARIZES", "version_exists": False}
    with pytest.raises(DanglingProvenance):
        build(iid, links, nodes)


def test_touching_an_insight_warms_its_members_with_decay(g, applied):
    cluster, iid = applied
    out = g.access("s-1", [iid])
    assert out["warmed"] == cluster.size
    act = {r["id"]: r["a"] for r in g.db.run_text("MATCH (m:Memory) RETURN m.id AS id, m.activation AS a")}
    assert act[iid] == 1.0 and all(act[m] == 0.5 for m in cluster.member_ids)
    # a second level decays further: an insight over this insight warms the episodes by 0.25
    from graphcons.consolidation.cluster import Cluster

    other = add_incidents(g, [("x-1", "Search 503 after deploy 2.1", "a", "2026-11-01"),
                              ("x-2", "Search 503 after deploy 2.2", "b", "2026-11-02"),
                              ("x-3", "Search 503 after deploy 2.3", "c", "2026-11-03")], subject="checkout")
    io = g.approve(g.synthesize(other, now=NOW).proposal_id, now=NOW).insight_id
    top = g.approve(g.synthesize(Cluster((iid, io), "default", "checkout"), now=NOW).proposal_id, now=NOW).insight_id
    warmed = g.activate([top])
    assert warmed[iid] == 0.5 and warmed["inc-1"] == 0.25
    # a reverted (deprecated) insight no longer spreads
    g.revert(top, "wrong")
    assert g.activate([top]) == {}


def test_sleep_time_precompute_is_keyed_by_insight_id_and_invalidated_by_an_edit(g, applied):
    from graphcons.consolidation.precompute import default_inferences, stored

    _, iid = applied
    calls = []

    def counting(row):
        calls.append((row["id"], row["version"]))
        return default_inferences(row)

    assert stored(g.db, [iid]) == {}  # approval alone computes nothing: precompute is a background step
    out = g.precompute(now=NOW, inference_fn=counting)
    assert list(out) == [iid] and out[iid][0]["question"].startswith("What do we know about")
    assert stored(g.db, [iid]) == out and calls == [(iid, 1)]  # stored under the insight id
    # a second run (and any number of reads) uses what is stored: the inference is not called again
    assert g.precompute(now=NOW, inference_fn=counting) == {}
    assert stored(g.db, [iid]) == out and calls == [(iid, 1)]
    # an edited insight is a new version: its old inferences are no longer served ...
    g.edit(iid, content="Checkout returns 503 after every deploy until the cache is warm.")
    assert g.get(iid).version == 2 and stored(g.db, [iid]) == {}
    # ... and the next run recomputes them from the new version
    again = g.precompute(now=NOW, inference_fn=counting)
    assert list(again) == [iid] and calls == [(iid, 1), (iid, 2)] and stored(g.db, [iid]) == again
    # a reverted (deprecated) insight's inferences are not served either
    g.revert(iid, "wrong")
    assert stored(g.db, [iid]) == {}


def test_cli_explain_json_and_tree(g, applied, neo4j_settings, tmp_path):
    _, iid = applied
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password())
    env.pop("GRAPHCONS_CONFIG", None)

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=120)

    out = cli("explain", iid, "--json")
    assert out.returncode == 0, out.stderr
    assert [s["id"] for s in json.loads(out.stdout)["sources"]] == ["inc-1", "inc-2", "inc-3", "inc-4"]
    tree = cli("explain", iid)
    assert tree.returncode == 0 and "inc-4" in tree.stdout and "pagerduty" in tree.stdout
    listed = json.loads(cli("proposals", "list", "--status", "all", "--json").stdout)
    assert [p["status"] for p in listed] == ["applied"]
    g.db.run_text("MATCH (m:Memory {id: 'inc-1'}) DETACH DELETE m")
    assert cli("explain", iid).returncode == 9  # dangling provenance has its own exit code


def test_benchmark_battery_passes_and_is_rerunnable(g):
    from graphcons.battery import run_battery

    from graphcons.battery import EPISTEMIC_NAMESPACE, SYNTHESES_PER_RUN, BudgetSpent

    g.config.consolidation.daily_cap = 2 * SYNTHESES_PER_RUN  # room for two runs today, not three
    spent = []
    for run in range(2):
        before = len(g.audit_log(op="synthesize", limit=1000))
        results = run_battery(g, now=NOW)
        assert [r.name for r in results if not r.passed] == [], [r.detail for r in results if not r.passed]
        # what it reports spending of today's cap is what the audit trail (the cap's count) shows
        assert results.spent == len(g.audit_log(op="synthesize", limit=1000)) - before
        spent.append(results.spent)
        assert len(results) == 22  # seed 001: 12, seed 002: 7 (issue 13), reflection: 3 (issue 14)
    # seed 001's checks spend 4 on a fresh store and 1 on a re-run (only the forced fabricated
    # synthesis repeats); seed 002's build fresh insights on every run, so they spend the same each time
    epistemic = spent[1] - 1
    assert spent[0] == 4 + epistemic and epistemic >= 1, spent
    assert spent[0] <= SYNTHESES_PER_RUN
    # nothing of the scratch namespace stays live: each run's memories are archived, none deleted
    live = g.db.run_text("MATCH (m:Memory {namespace: $ns}) RETURN m.status AS s, count(*) AS n",
                         ns=EPISTEMIC_NAMESPACE)
    statuses = {r["s"] for r in live}  # archived, or deprecated by the checks themselves
    assert statuses <= {"archived", "deprecated"} and "archived" in statuses, live
    # a third run would pass the cap: refused before writing anything
    size = g.db.run("synthesis/graph_size")[0]
    with pytest.raises(BudgetSpent, match="daily_cap"):
        run_battery(g, now=NOW)
    assert g.db.run("synthesis/graph_size")[0] == size
    assert len(g.audit_log(op="synthesize", limit=1000)) == sum(spent)

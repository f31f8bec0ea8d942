"""Retrieval as a user sees it (issue 9): scoped, hybrid, any text, insight-aware."""

import json
import os
import subprocess
import sys

import pytest

from graphcons.core.errors import ValidationError

from synthesis_helpers import NOW, add_incidents

METACHARACTERS = ['/', '"', '(', ')', ':', '~', '*', '?', '\\', '+', '-', '!', '{', '}', '[', ']', '^', '&&', '||',
                  'AND', 'OR', 'NOT', 'TO', '"unbalanced quote', 'a/b', 'path /api/v1/orders', '(503', 'title:foo',
                  'deploy~2', 'fail*', '?ail', '+must -not', '\\"', 'x AND', 'OR y', 'NOT', 'a && b || c', '[1 TO 5]',
                  '{a TO b}', 'boost^3', '!!', '""', '/regex/', 'é ñ 中文 🙂', ' '.join(['x'] * 2000)]


@pytest.fixture
def cli_run(g, neo4j_settings, tmp_path):
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password())
    env.pop("GRAPHCONS_CONFIG", None)
    return lambda *args: subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True,
                                        env=env, cwd=tmp_path, timeout=120)


def ids(hits):
    return [h["memory"].id for h in hits]


def add_deploys(g, namespaces="abcdef", per=6):
    for ns in namespaces:
        for n in range(per):
            g.add({"id": f"{ns}-{n}", "content": f"deploy {n} of service {ns.upper()} failed with a 503",
                   "namespace": ns, "subject": f"svc-{ns}", "source": "pager"})


@pytest.mark.parametrize("mode", ["vector", "keyword", "hybrid"])
def test_a_scope_holding_k_memories_returns_k_of_them(g, mode):
    add_deploys(g)
    hits = g.retrieve("503 timeout", k=5, namespace="c", mode=mode, record=False)
    assert len(hits) == 5 and {h["memory"].namespace for h in hits} == {"c"}
    hits = g.retrieve("503 timeout", k=6, subject="svc-d", mode=mode, record=False)
    assert sorted(ids(hits)) == [f"d-{n}" for n in range(6)]


def test_large_scopes_widen_the_index_pool_until_k_are_found(g):
    add_deploys(g, namespaces="abcdefghij", per=6)
    g.config.retrieval.exact_scope_max = 0  # force the vector-index path
    g.config.retrieval.index_pool = 1
    hits = g.retrieve("503 timeout", k=6, namespace="j", mode="vector", record=False)
    assert sorted(ids(hits)) == [f"j-{n}" for n in range(6)]
    g.config.retrieval.exact_scope_max = 2000
    exact = g.retrieve("503 timeout", k=6, namespace="j", mode="vector", record=False)
    assert ids(exact) == ids(hits)  # same order: exact re-scoring, ties by id


def test_any_string_is_a_valid_query(g):
    g.add({"id": "p", "content": "GET path /api/v1/orders returned (503) after deploy: \"cache\" cold",
           "subject": "api", "source": "pager"})
    for text in METACHARACTERS:
        for mode in ("keyword", "hybrid"):
            g.retrieve(text, k=3, mode=mode, record=False)
        g.search(text)
    assert ids(g.search("/api/v1/orders"))[:1] == ["p"]
    assert ids(g.search('"cache'))[:1] == ["p"]
    assert ids(g.search("(503)"))[:1] == ["p"]


def test_hybrid_finds_what_either_signal_finds_and_is_deterministic(g):
    g.add({"id": "code", "content": "Error ZX-7731 shows up in the billing worker logs", "subject": "billing",
           "source": "logs"})
    g.add({"id": "meaning", "content": "Invoices were charged twice because the payment job retried",
           "subject": "billing", "source": "pager"})
    for n in range(8):
        g.add({"id": f"noise-{n}", "content": f"Team lunch number {n} was at the pizza place", "subject": "billing",
               "source": "chat"})
    query = "ZX-7731 customers billed two times"
    hybrid = g.retrieve(query, k=3, record=False)  # hybrid is the default
    assert {"code", "meaning"} <= set(ids(hybrid))
    assert ids(g.retrieve(query, k=3, record=False)) == ids(hybrid)
    assert "code" == ids(g.retrieve(query, k=1, mode="keyword", record=False))[0]
    top = hybrid[0]
    assert top["vector"] is not None and top["keyword"] is not None  # found by both lists


def test_bad_arguments_name_the_field(g):
    for kwargs, field in [({"mode": "fuzzy"}, "mode"), ({"insights": "nested"}, "insights"), ({"k": 0}, "k"),
                          ({"namespace": " "}, "namespace"), ({"subject": 3}, "subject")]:
        with pytest.raises(ValidationError) as err:
            g.retrieve("503", **{"k": 3, **kwargs})
        assert err.value.field == field
    with pytest.raises(ValidationError) as err:
        g.retrieve("  ")
    assert err.value.field == "query"


@pytest.fixture
def insight(g):
    cluster = add_incidents(g)
    g.add({"id": "other", "content": "The office coffee machine was repaired on Tuesday", "subject": "office",
           "source": "chat"})
    pid = g.synthesize(cluster, now=NOW).proposal_id
    return g.approve(pid, by="ana", now=NOW).insight_id, cluster


def test_an_insight_brings_its_members_within_the_budget(g, insight):
    iid, cluster = insight
    g.config.retrieval.members_per_insight = 2
    ins = g.get(iid)
    query = f"{ins.title}. {ins.content}"  # the insight's own embedded text: it ranks first
    hits = g.retrieve(query, k=4, mode="vector", record=False)
    shown = ids(hits) + [m["memory"].id for h in hits for m in h.get("members", [])]
    assert len(shown) == 4 and len(set(shown)) == 4  # k memories in all, none twice
    top = hits[0]
    assert top["memory"].id == iid and top["memory"].epistemic_status == "hypothesis"
    assert len(top["members"]) == 2 and {m["memory"].id for m in top["members"]} <= set(cluster.member_ids)
    relevance = [m["relevance"] for m in top["members"]]
    assert relevance == sorted(relevance, reverse=True)
    for h in hits[1:]:  # a member hit shows the insight that summarises it
        assert [i["id"] for i in h["insights"]] == ([iid] if h["memory"].id in cluster.member_ids else [])
    plain = g.retrieve("checkout 503 errors after a deploy", k=4, insights="plain", record=False)
    assert len(plain) == 4 and all("members" not in h and "insights" not in h for h in plain)


def test_an_unsupported_insight_ranks_below_everything_else(g, insight):
    iid, _ = insight
    g.db.run_text("MATCH (i:Memory {id: $id}) SET i.epistemic_status = 'unsupported'", id=iid)
    hits = g.retrieve("checkout 503 errors after a deploy", k=10, insights="plain", record=False)
    assert ids(hits)[-1] == iid and hits[-1]["memory"].epistemic_status == "unsupported"


def test_cli_search_modes_and_scope(g, cli_run):
    add_deploys(g, namespaces="abc", per=3)
    for mode in ("vector", "keyword", "hybrid"):
        out = cli_run("search", "503 timeout", "--k", "3", "--namespace", "c", "--mode", mode, "--json")
        assert out.returncode == 0, out.stderr
        assert sorted(h["id"] for h in json.loads(out.stdout)) == ["c-0", "c-1", "c-2"]
    out = cli_run("search", 'deploy/503 "unbalanced', "--keyword", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)[0]["content"].startswith("deploy")
    bad = cli_run("search", "503", "--mode", "fuzzy")
    assert bad.returncode != 0 and "mode" in bad.stderr


def test_keyword_search_finds_a_memory_right_after_its_admission_and_old_indexes_are_migrated(g):
    """The keyword index is eventually consistent (issue 15: Lucene's update leaves the admission's
    commit); search waits for pending updates, so nothing just admitted is missed. A store made
    before that has a consistent index: init recreates it (audited), and search still works."""
    def keyword_index():
        return g.db.run_text("SHOW INDEXES YIELD name, options WHERE name = 'memory_text' "
                             "RETURN options.indexConfig['fulltext.eventually_consistent'] AS ec")
    assert keyword_index() == [{"ec": True}]
    for n in range(20):  # each found by the very next call, not "eventually"
        g.add({"content": f"rotation key kestrel{n} expires soon", "subject": "keys"})
        assert [h["memory"].content for h in g.search(f"kestrel{n}")] == [f"rotation key kestrel{n} expires soon"]
    for batch in range(3):  # a batch's last memory too: the index has a whole batch to take
        g.add_many([{"content": f"ticket heron{batch}x{i} reopened by the customer", "subject": f"tickets{batch}"}
                    for i in range(300)])
        assert len(g.search(f"heron{batch}x299")) == 1
    # a store from before: the index as it was created then (test setup only)
    g.db.run_text("DROP INDEX memory_text")
    g.db.run_text("CREATE FULLTEXT INDEX memory_text FOR (m:Memory) ON EACH [m.title, m.content]")
    g.db.run_text("CALL db.awaitIndexes(60)")
    assert keyword_index() == [{"ec": False}]
    assert g.init()["keyword_index_recreated"] is True
    assert keyword_index() == [{"ec": True}] and g.init()["keyword_index_recreated"] is False  # once
    assert len(g.audit_log(op="keyword_index_recreate")) == 1
    assert len(g.search("kestrel7")) == 1  # repopulated from the stored text

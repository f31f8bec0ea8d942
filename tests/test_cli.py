"""The command line as a script would use it: exit codes and --json."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import graphcons_cli

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def cli(g, neo4j_settings, tmp_path):
    # this checkout's graphcons, not the shared venv's editable install (a worktree ran main's CLI here)
    return graphcons_cli(neo4j_settings, tmp_path, timeout=120)


def test_add_show_history_search_stats_json(cli):
    out = cli("add", "Payments API timed out during the Black Friday peak", "--subject", "payments",
              "--source", "pager", "--json")
    assert out.returncode == 0, out.stderr
    mem_id = json.loads(out.stdout)["id"]
    shown = json.loads(cli("show", mem_id, "--json").stdout)
    assert shown["subject"] == "payments" and shown["sources"] == ["pager"]
    assert json.loads(cli("history", mem_id, "--json").stdout)[0]["version"] == 1
    hits = json.loads(cli("search", "payments timeout", "--keyword", "--json").stdout)
    assert hits[0]["id"] == mem_id
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["memories"] == 1 and stats["by_status"] == {"active": 1}


def test_exit_codes(cli):
    assert cli("show", "m-missing").returncode == 3
    bad = cli("add", "x", "--kind", "rumour")
    assert bad.returncode == 2 and "kind" in bad.stderr
    assert cli("access", "m-missing", "--session", "s").returncode == 3


def test_import_reports_bad_lines_and_keeps_going(cli, tmp_path):
    lines = [
        json.dumps({"content": "Disk full on db-2", "subject": "db"}),
        "{not json",
        json.dumps({"content": "Disk full on db-3", "subject": "db", "importance": "very"}),
        json.dumps({"content": "Disk full on db-4", "subject": "db"}),
        json.dumps({"content": "Disk full on db-2", "subject": "db"}),
    ]
    path = tmp_path / "mem.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = cli("import", str(path), "--json")
    assert out.returncode == 2  # some lines failed
    report = json.loads(out.stdout)
    assert report["admitted"] == 2 and report["duplicates"] == 1
    assert [e["line"] for e in report["errors"]] == [2, 3]
    assert "importance" in report["errors"][1]["error"]


def test_config_show_masks_secrets(cli):
    out = cli("config", "show", "--json")
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert data["neo4j"]["password"] == "***"
    assert data["consolidation"]["enabled"] is False and data["consolidation"]["dry_run"] is True
    # the similarity floor in effect and where it comes from (issue 12: the embedder's calibration)
    assert data["consolidation"]["similarity_floor"] == 0.65
    assert "STS-B" in data["consolidation"]["similarity_floor_source"]


def test_merge_by_subject_then_conflicts_list_and_resolve(cli):  # issue 11
    ids = [json.loads(cli("add", text, "--subject", "inv", "--json").stdout)["id"]
           for text in ("Invoices are archived before month end.", "Invoices are archived after month end.")]
    out = cli("merge", "--apply", "--subject", "inv", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["subject"] == "inv" and [c["contradictions"] for c in report["conflicts"]] == [["antonym"]]
    listed = json.loads(cli("conflicts", "list", "--json").stdout)
    assert [{r["a"], r["b"]} for r in listed] == [set(ids)]
    done = cli("conflicts", "resolve", ids[0], ids[1], "--holds", ids[1], "--note", "finance confirmed", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["holds"] == ids[1]
    assert json.loads(cli("conflicts", "list", "--json").stdout) == []
    assert cli("conflicts", "resolve", ids[0], "m-missing", "--holds", ids[0]).returncode == 3
    assert cli("conflicts", "resolve", ids[0], ids[1], "--holds", "nobody").returncode == 2


def test_the_cli_finds_the_server_scripts_neo4j_started(neo4j_settings, tmp_path):
    """Issue 41 item 13: with GRAPHCONS_NEO4J_BOLT_PORT / GRAPHCONS_NEO4J_HOME exported as for
    scripts/neo4j (a non-default port and home) and no NEO4J_URI, the CLI connects to that server
    (it used to try 7687); when nothing answers there, the error says which variables to set."""
    port = neo4j_settings.uri.rsplit(":", 1)[1]
    home = tmp_path / "neo4j-home"
    home.mkdir()
    (home / "password").write_text(neo4j_settings.resolved_password() + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_") and k != "GRAPHCONS_CONFIG"}

    def run(**extra):
        return subprocess.run([sys.executable, "-m", "graphcons", "config", "show", "--json"], capture_output=True,
                              text=True, env={**env, **extra}, cwd=tmp_path, timeout=120)

    out = run(GRAPHCONS_NEO4J_BOLT_PORT=port, GRAPHCONS_NEO4J_HOME=str(home))
    assert json.loads(out.stdout)["neo4j"]["uri"] == f"bolt://127.0.0.1:{port}", out.stderr
    stats = subprocess.run([sys.executable, "-m", "graphcons", "stats", "--json"], capture_output=True, text=True,
                           env={**env, "GRAPHCONS_NEO4J_BOLT_PORT": port, "GRAPHCONS_NEO4J_HOME": str(home)},
                           cwd=tmp_path, timeout=300)
    assert stats.returncode == 0, stats.stderr
    assert "memories" in json.loads(stats.stdout)
    # NEO4J_URI still names any other server
    other = run(GRAPHCONS_NEO4J_BOLT_PORT=port, NEO4J_URI="bolt://db.example:7999")
    assert json.loads(other.stdout)["neo4j"]["uri"] == "bolt://db.example:7999"
    from service_helpers import free_port

    nobody = str(free_port())
    down = subprocess.run([sys.executable, "-m", "graphcons", "stats"], capture_output=True, text=True,
                          env={**env, "GRAPHCONS_NEO4J_BOLT_PORT": nobody, "GRAPHCONS_NEO4J_HOME": str(home)},
                          cwd=tmp_path, timeout=120)
    assert down.returncode == 5 and f"127.0.0.1:{nobody}" in down.stderr
    assert "GRAPHCONS_NEO4J_BOLT_PORT" in down.stderr and "NEO4J_URI" in down.stderr, down.stderr


def test_search_and_context_take_as_of_and_when(g, cli):
    """Issue 51 / 47: --as-of, --when, --when-mode; a superseded value is listed after its successor."""
    from current_helpers import Q, food_with_update

    food_with_update(g)
    hits = json.loads(cli("search", Q, "--namespace", "food", "--k", "3", "--json").stdout)
    order = [h["id"] for h in hits]
    assert order.index("new") < order.index("old") and hits[order.index("old")]["superseded_by"] == "new"
    # issue 60: every field of the hit's one wire shape, the memory's beside it (before: 5 of them, by hand)
    ours = [h.to_dict() for h in g.retrieve(Q, k=3, namespace="food", record=False)]
    assert [h["id"] for h in hits] == [h["memory"].id for h in ours]
    for hit, shown in zip(ours, hits):
        assert {"summarised_by" if k == "insights" else k for k in hit if k != "memory"} <= set(shown)
    table = cli("search", Q, "--namespace", "food", "--k", "3").stdout
    assert "earlier, until" in table
    then = json.loads(cli("search", Q, "--namespace", "food", "--k", "3", "--as-of", "2023-05-10", "--json").stdout)
    assert "old" in [h["id"] for h in then] and "new" not in [h["id"] for h in then]
    ctx = cli("context", Q, "--namespace", "food").stdout
    assert "earlier, until 27 May 2023:" in ctx
    may = json.loads(cli("context", "What happened in May 2023?", "--namespace", "food", "--when", "auto",
                         "--when-mode", "restrict", "--as-of", "2023-05-02", "--json").stdout)
    assert may["ids"] and set(may["ids"]) <= {"old", "f1"}
    bad = cli("context", Q, "--as-of", "soon")
    assert bad.returncode == 2 and "as_of" in bad.stderr


def test_search_and_context_take_now_and_say_the_questions_window(g, cli):
    """Issue 61: --now is what "last month" is counted from; the window is said on stderr; a bad --now
    is refused naming now."""
    from current_helpers import NOW, PURCHASES, add

    add(g, PURCHASES, namespace="shop")
    q = "What did I buy last month?"
    found = cli("search", q, "--namespace", "shop", "--k", "4", "--mode", "vector", "--now", NOW, "--when", "auto",
                "--json")
    assert json.loads(found.stdout)[0]["id"] == "bike"
    assert "event time 2023-05-01 to 2023-05-31 (the query's 'last month'): ranked higher" in found.stderr
    ctx = cli("context", q, "--namespace", "shop", "--now", NOW, "--when", "auto")
    assert "(#" in ctx.stdout and "event time 2023-05-01 to 2023-05-31" in ctx.stderr
    assert "event time" not in cli("context", "What did I buy?", "--namespace", "shop", "--now", NOW,
                                   "--when", "auto").stderr
    bad = cli("search", q, "--now", "soon")
    assert bad.returncode == 2 and "now" in bad.stderr

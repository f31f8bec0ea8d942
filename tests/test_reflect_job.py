"""The weekly `reflect` job (issue 32, seed 004) in the job table, on the real Neo4j: entities at
their threshold get one reflection proposal each in the review queue, within per-namespace
limits; disabled it writes nothing; `graphcons jobs run reflect` and `jobs list --json` show it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from conftest import graphcons_cli
from test_reflection import add_many

from graphcons.jobs.worker import run_job

NOW = datetime(2026, 11, 29, 4, 45, tzinfo=timezone.utc)  # a Sunday, 04:45 UTC: the seed's slot


def reflect_proposals(g):
    return {(p["namespace"], p["subject"]): p for p in g.proposals(kind="reflect", status="pending")}


def notes(subject, n):
    return [f"{subject} prefers short answers and works on invoice number {i}." for i in range(n)]


def enable(g, **jobs):
    g.config.reflection.enabled = True
    for k, v in jobs.items():
        setattr(g.config.jobs.reflect, k, v)


def test_reflect_is_implemented_weekly_and_listed(g):
    rows = {r["job"]: r for r in g.jobs(now=NOW)}
    assert rows["reflect"]["implemented"] and rows["reflect"]["enabled"]
    assert rows["reflect"]["schedule"] == "45 4 * * 0" and rows["reflect"]["due"]  # never ran: due at once
    run_job(g.db, g.config, "reflect", now=NOW)
    later = {r["job"]: r for r in g.jobs(now=NOW + timedelta(days=1))}["reflect"]
    assert not later["due"] and later["next_due"] == NOW + timedelta(days=7)


def test_the_job_writes_one_proposal_per_due_entity_and_never_twice(g):
    enable(g)
    add_many(g, "user-ana", notes("Ana", 10), kind="preference")
    add_many(g, "user-bo", notes("Bo", 9), kind="preference")  # one short of the threshold
    result = run_job(g.db, g.config, "reflect", now=NOW)
    assert result.status == "ok", result.error
    assert result.counts["due"] == 1 and result.counts["proposed"] == 1
    found = reflect_proposals(g)
    assert list(found) == [("default", "user-ana")]
    assert found[("default", "user-ana")]["run_id"] == result.run_id  # the JobRun names the proposals it wrote
    again = run_job(g.db, g.config, "reflect", now=NOW + timedelta(days=7))
    assert again.counts.get("proposed", 0) == 0 and again.counts["unchanged"] == 1
    assert len(g.proposals(kind="reflect")) == 1


def test_approving_a_job_reflection_consumes_the_threshold(g):
    enable(g)
    add_many(g, "user-ana", notes("Ana", 10), kind="preference")
    run_job(g.db, g.config, "reflect", now=NOW)
    (prop,) = reflect_proposals(g).values()
    g.approve(prop["id"], now=NOW)
    after = run_job(g.db, g.config, "reflect", now=NOW + timedelta(days=7))
    assert after.counts["due"] == 0 and g.profile("user-ana")["version"] == 1


def test_disabled_reflection_writes_nothing_and_says_how_to_enable(g):
    add_many(g, "user-ana", notes("Ana", 10), kind="preference")
    result = run_job(g.db, g.config, "reflect", now=NOW)
    assert result.status == "ok" and result.counts["enabled"] is False and result.counts["due"] == 1
    assert g.proposals(kind="reflect") == []
    assert any("GRAPHCONS__REFLECTION__ENABLED" in n and "graphcons.toml" in n for n in result.notes)


def test_each_namespace_has_its_own_run_budget(g):
    enable(g, max_items=1)
    add_many(g, "user-ana", notes("Ana", 10), namespace="acme", kind="preference")
    add_many(g, "user-bo", notes("Bo", 10), namespace="acme", kind="preference")
    add_many(g, "user-cy", notes("Cy", 10), namespace="zeta", kind="preference")
    result = run_job(g.db, g.config, "reflect", now=NOW)
    assert result.counts["due"] == 3 and result.counts["proposed"] == 2 and result.counts["pending"] == 1
    # acme's second entity waits; zeta, later in the order, still got its turn
    assert set(reflect_proposals(g)) == {("acme", "user-ana"), ("zeta", "user-cy")}
    assert any("[jobs.reflect] max_items" in n for n in result.notes)
    nxt = run_job(g.db, g.config, "reflect", now=NOW + timedelta(days=7))
    assert nxt.counts["proposed"] == 1 and ("acme", "user-bo") in reflect_proposals(g)


@pytest.fixture
def cli(g, neo4j_settings, tmp_path):
    return graphcons_cli(neo4j_settings, tmp_path, GRAPHCONS__REFLECTION__ENABLED="true")


def test_cli_jobs_run_reflect_writes_proposals_and_jobs_list_shows_it(g, cli):
    add_many(g, "user-ana", notes("Ana", 10), kind="preference")
    listed = {r["job"]: r for r in json.loads(cli("jobs", "list", "--json").stdout)}
    assert listed["reflect"]["implemented"] is True
    out = cli("jobs", "run", "reflect", "--now", NOW.isoformat(), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["counts"]["proposed"] == 1
    assert list(reflect_proposals(g)) == [("default", "user-ana")]

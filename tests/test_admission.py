"""Admission: validation, exact duplicates, versions, SIMILAR edges, links."""

import pytest

from graphcons.core.errors import ValidationError


def count(g, text, **params):
    return g.db.run_text(text, **params)[0]["n"]


def test_add_writes_memory_version_and_similar_edges(g):
    first = g.add({"content": "The checkout service returned HTTP 503 right after the 4.2 deploy",
                   "subject": "checkout", "source": "pager"})
    second = g.add({"content": "Right after the 4.3 deploy the checkout service returned HTTP 503",
                    "subject": "checkout", "source": "oncall"})
    unrelated = g.add({"content": "The team lunch moved to Thursday at noon", "subject": "team"})
    assert first.created and second.created and unrelated.created

    mem = g.get(second.id)
    assert mem.subject == "checkout" and mem.version == 1 and mem.status == "active"
    assert mem.title.startswith("Right after the 4.3 deploy")  # derived from the first sentence
    assert g.history(second.id)[0]["content"] == mem.content

    # The second is similar to the first (cosine above the 0.82 floor), not to the lunch memory.
    assert [s["id"] for s in second.similar] == [first.id]
    assert second.similar[0]["score"] >= 0.82
    assert count(g, "MATCH (:Memory {id: $a})-[r:SIMILAR]-(:Memory {id: $b}) RETURN count(r) AS n",
                 a=second.id, b=first.id) == 1
    assert count(g, "MATCH (:Memory {id: $a})-[r:SIMILAR]-() RETURN count(r) AS n", a=unrelated.id) == 0


def test_similar_edges_are_sparse_and_respect_k_and_floor(g):
    g.config.admission.similar_k = 2
    base = "The nightly backup of the billing database failed with a disk full error"
    ids = [g.add({"content": f"{base} on run {i}", "subject": "billing"}).id for i in range(5)]
    degrees = g.db.run_text(
        "MATCH (m:Memory)-[r:SIMILAR]->() WHERE m.id IN $ids RETURN m.id AS id, count(r) AS n", ids=ids)
    assert degrees and max(r["n"] for r in degrees) <= 2
    scores = g.db.run_text("MATCH ()-[r:SIMILAR]->() RETURN collect(r.score) AS s")[0]["s"]
    assert scores and min(scores) >= g.config.consolidation.similarity_floor


def test_similar_edges_never_cross_namespaces(g):
    a = g.add({"content": "Redis latency spiked during the cache warmup", "namespace": "team-a"})
    b = g.add({"content": "Redis latency spiked during the cache warm-up", "namespace": "team-b"})
    assert a.created and b.created and b.similar == []


def test_duplicate_from_one_source_keeps_evidence_one(g):
    text = "The project deadline is Friday"
    ids = {g.add({"content": text, "subject": "project-x", "source": "alice"}).id for _ in range(3)}
    assert len(ids) == 1
    mem = g.get(ids.pop())
    assert mem.evidence_count == 1 and mem.sources == ["alice"]
    assert count(g, "MATCH (m:Memory) RETURN count(m) AS n") == 1


def test_duplicate_from_two_sources_counts_two(g):
    a = g.add({"content": "The project deadline is Friday", "subject": "project-x", "source": "alice"})
    b = g.add({"content": "the project  deadline is friday", "subject": "project-x", "source": "bob"})
    assert b.id == a.id and not b.created and b.evidence_count == 2
    assert sorted(g.get(a.id).sources) == ["alice", "bob"]


def test_same_text_about_another_subject_is_a_new_memory(g):
    a = g.add({"content": "The deadline is Friday", "subject": "project-x"})
    b = g.add({"content": "The deadline is Friday", "subject": "project-y"})
    assert a.id != b.id and b.created


def test_edit_keeps_every_version(g):
    a = g.add({"content": "The API rate limit is 100 requests per minute", "subject": "api"})
    g.edit(a.id, content="The API rate limit is 200 requests per minute", source="ops")
    g.edit(a.id, title="Rate limit")
    versions = g.history(a.id)
    assert [v["version"] for v in versions] == [1, 2, 3]
    assert "100 requests" in versions[0]["content"]
    assert "200 requests" in versions[1]["content"] and versions[1]["edited_by"] == "ops"
    current = g.get(a.id)
    assert current.version == 3 and current.title == "Rate limit" and "200" in current.content
    assert count(g, "MATCH (m:Memory) RETURN count(m) AS n") == 1


@pytest.mark.parametrize(
    "data, field",
    [
        ({"title": "no content"}, "content"),
        ({"content": "   "}, "content"),
        ({"content": 42}, "content"),
        ({"content": "ok", "importance": "high"}, "importance"),
        ({"content": "ok", "importance": 3.0}, "importance"),
        ({"content": "ok", "kind": "rumour"}, "kind"),
        ({"content": "ok", "created_at": "yesterday"}, "created_at"),
        ({"content": "ok", "colour": "blue"}, "colour"),
        ({"content": "x" * 20_001}, "content"),
        ({"content": "ok", "title": "t" * 301}, "title"),
        ({"content": "ok", "links": [{"target": "m-does-not-exist", "kind": "causes"}]}, "links.target"),
        ({"content": "ok", "namespace": "bad namespace!"}, "namespace"),
    ],
)
def test_bad_input_names_the_field_and_writes_nothing(g, data, field):
    before = g.db.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"]
    with pytest.raises(ValidationError) as err:
        g.add(data)
    assert err.value.field == field
    assert field.split(".")[0] in str(err.value)
    assert g.db.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"] == before


def test_an_explicit_id_is_refused_for_other_content_and_kept_for_the_same(g):
    a = g.add({"content": "Ledger export runs at 02:00 UTC", "id": "ops-1", "subject": "ledger"})
    before = g.db.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"]
    with pytest.raises(ValidationError) as err:
        g.add({"content": "Ledger export moved to 03:00 UTC", "id": "ops-1", "subject": "ledger"})
    assert err.value.field == "id" and "ops-1" in str(err.value)
    assert g.db.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"] == before
    again = g.add({"content": "Ledger export runs at 02:00 UTC", "id": "ops-1", "subject": "ledger", "source": "cron"})
    assert (again.id, again.created, again.evidence_count) == (a.id, False, 2)


def test_links_at_admission_and_later(g):
    a = g.add({"content": "Incident 17: checkout down", "subject": "checkout"})
    b = g.add({"content": "Postmortem of incident 17", "subject": "checkout",
               "links": [{"target": a.id, "kind": "postmortem_of"}]})
    c = g.add({"content": "Runbook: roll back the checkout deploy", "subject": "checkout"})
    assert b.linked == 1
    g.link(c.id, a.id, "remediates")
    g.link(c.id, a.id, "remediates")  # the same link twice is one link
    kinds = g.db.run_text(
        "MATCH (x:Memory)-[r:LINKED]->(:Memory {id: $a}) RETURN x.id AS id, r.kind AS kind ORDER BY id", a=a.id)
    assert sorted((r["id"], r["kind"]) for r in kinds) == sorted([(b.id, "postmortem_of"), (c.id, "remediates")])
    with pytest.raises(ValidationError):
        g.link(c.id, "m-missing", "remediates")


def test_every_admission_is_audited(g):
    a = g.add({"content": "Cache hit ratio dropped to 40%", "source": "grafana"})
    g.add({"content": "Cache hit ratio dropped to 40%", "source": "alertmanager"})
    ops = [e["op"] for e in g.audit_log(target=a.id)]
    assert sorted(ops) == ["add", "add_evidence"]

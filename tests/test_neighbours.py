"""SIMILAR neighbours per subject, reproducible on fresh stores, and the migration (issues 9, 12)."""

import json
import os
import subprocess
import sys

import pytest

from graphcons.store.admission import admit

from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import query as bench_query  # noqa: E402  (the bench's own Cypher, to build a legacy store)

TOPICS = [
    "the checkout service returned 503 errors right after deploy {n}",
    "we prefer TypeScript with strict mode for new frontend project {n}",
    "the nightly backup job to bucket {n} took longer than two hours",
    "customer {n} asked for a refund because the parcel arrived damaged",
    "the kafka consumer lag on topic {n} grew past ten thousand messages",
]
NEAR = ["{s}", "Again, {s}.", "{s} (seen again today)", "Note: {s}", "{s}, as reported by on-call"]
OFF_TOPIC = ["lunch was pizza on day {n}", "the office plants were watered on day {n}",
             "a new coffee machine arrived in room {n}"]


def corpus() -> list[dict]:
    """300 memories, built deterministically: 3 namespaces x 4 subjects x 25, near-duplicate groups."""
    rows = []
    for ns in ("acme", "globex", "initech"):
        for si, subject in enumerate(("ana", "bo", "cy", "dee")):
            texts = []
            for t in range(4):
                topic = TOPICS[(si + t) % len(TOPICS)]
                for v, form in enumerate(NEAR):
                    texts.append(form.format(s=topic.format(n=(t * 7 + si) % 5)))
            texts += [OFF_TOPIC[i % 3].format(n=i + si) for i in range(5)]
            for i, text in enumerate(texts):
                rows.append({"id": f"{ns}-{subject}-{i:02d}", "content": text, "namespace": ns, "subject": subject,
                             "source": f"{subject}-log-{i % 3}"})
    assert len(rows) == 300
    return rows


def similar_edges(g):
    rows = g.db.run_text("MATCH (a:Memory)-[s:SIMILAR]->(b:Memory) "
                         "RETURN a.id AS a, b.id AS b, s.score AS score, a.subject = b.subject AS same")
    return {(r["a"], r["b"], round(r["score"], 6)) for r in rows}, all(r["same"] for r in rows)


def wipe(g):
    with g.db.driver.session(database=g.config.neo4j.database) as session:  # as conftest does
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
    g.init()


@pytest.fixture(scope="module")
def memories(embedder):
    rows = corpus()
    return rows, embedder.embed([r["content"] for r in rows])


def admit_all(g, memories):
    rows, vectors = memories
    for row, vec in zip(rows, vectors):
        admit(g.db, g.config, g.embedder, row, embedding=vec)


def test_same_memories_same_order_give_the_same_edges_and_clusters_on_fresh_stores(g, memories):
    g.config.consolidation.sim_floor = 0.6
    runs = []
    for _ in range(2):
        wipe(g)
        admit_all(g, memories)
        edges, same_subject = similar_edges(g)
        runs.append((edges, sorted(c.key for c in g.clusters())))
        assert same_subject  # no SIMILAR edge joins two subjects
    (edges_1, clusters_1), (edges_2, clusters_2) = runs
    assert len(edges_1) > 500 and edges_1 == edges_2
    assert len(clusters_1) >= 20 and clusters_1 == clusters_2


def test_other_subjects_cannot_take_a_memorys_neighbour_slots(g):
    g.config.admission.similar_k = 2
    g.config.consolidation.sim_floor = 0.5
    for user in ("u1", "u2", "u3", "u4"):  # everyone says the same common sentences
        for n, text in enumerate(["I am married", "I have two dogs", "I am married and happy"]):
            g.add({"id": f"{user}-common-{n}", "content": text, "subject": user, "source": user})
    g.add({"id": "u1-own", "content": "I have two dogs called Rex and Fido", "subject": "u1", "source": "u1"})
    linked = {s["id"] for s in g.add({"id": "u1-new", "content": "I am married, happily", "subject": "u1",
                                      "source": "u1"}).similar}
    assert linked and all(i.startswith("u1-") for i in linked)
    _, same_subject = similar_edges(g)
    assert same_subject


def test_a_large_scope_uses_the_widening_index_pool_and_finds_the_same_neighbours(g, memories):
    g.config.consolidation.sim_floor = 0.6
    admit_all(g, memories)
    exact, _ = similar_edges(g)
    wipe(g)
    g.config.admission.exact_scope_max = 0  # every scope goes through the vector index
    g.config.admission.index_pool = 5
    admit_all(g, memories)
    indexed, same_subject = similar_edges(g)
    assert same_subject and indexed == exact


def test_migrate_similar_rebuilds_per_subject_edges_resumably(g, memories, neo4j_settings, tmp_path):
    g.config.consolidation.sim_floor = 0.6
    admit_all(g, memories)
    fresh, _ = similar_edges(g)
    # A legacy store: edges chosen per namespace (some across subjects), no scheme marker.
    g.db.run_text("MATCH ()-[s:SIMILAR]->() DELETE s")
    g.db.run_text("MATCH (m:Memory) REMOVE m.similar_scheme")
    g.db.run_text(bench_query("clusters_create_similar"), rows=[
        {"a": "acme-ana-00", "b": "acme-bo-03", "v": 0.91}, {"a": "globex-cy-10", "b": "globex-dee-00", "v": 0.88}])
    seen = []
    first = g.migrate_similar(batch_size=40, limit=100, progress=lambda done, total: seen.append((done, total)))
    assert first["migrated"] == 100 and first["remaining"] == 200
    assert seen == [(40, 100), (80, 100), (100, 100)]  # progress after each batch, towards this run's total
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password(), GRAPHCONS__CONSOLIDATION__SIM_FLOOR="0.6")
    env.pop("GRAPHCONS_CONFIG", None)
    out = subprocess.run([sys.executable, "-m", "graphcons", "migrate", "similar", "--json"], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["migrated"] == 200 and report["remaining"] == 0
    assert first["retyped_cross_subject"] + report["retyped_cross_subject"] == 2
    rebuilt, same_subject = similar_edges(g)
    assert same_subject and rebuilt == fresh  # exactly what admission now builds
    across = g.db.run_text("MATCH (a)-[x:SIMILAR_ACROSS]->(b) RETURN a.id AS a, b.id AS b, x.score AS s ORDER BY a")
    assert [(r["a"], r["b"], r["s"]) for r in across] == [("acme-ana-00", "acme-bo-03", 0.91),
                                                          ("globex-cy-10", "globex-dee-00", 0.88)]
    assert g.migrate_similar()["migrated"] == 0  # a second run changes nothing
    audits = g.audit_log(op="migrate_similar", limit=100)
    assert sum(len(a["targets"]) for a in audits) == 300

"""Issue 15: the merge pass's block candidates decide exactly what the vector-index reference
decided, on a real Neo4j with a real embedder: same pairs, same outcomes, same figures, same
writes; and the same on every run."""

from datetime import datetime, timedelta, timezone

import numpy as np

from graphcons.maintenance.merge import blocking
from graphcons.maintenance.merge import job
from graphcons.maintenance.merge.score import proposal_id

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
T0 = NOW - timedelta(days=3)

# per subject: planted duplicates (paraphrases), conflicts (negation, numbers, names), near
# paraphrases with a difference, and unrelated members, so every outcome occurs
STORE = {
    "checkout": [
        "The checkout service returned 503 errors right after deploy 4.2 went out.",
        "Right after deploy 4.2 went out, the checkout service returned 503 errors.",
        "The checkout service returned 503 errors right after deploy 4.3 went out.",
        "The checkout service did not return errors after deploy 4.2.",
        "Checkout latency doubled during the Black Friday sale.",
        "The cart page loads product images from the CDN.",
        "Checkout latency doubled during the Black Friday sale in the EU region.",
        "Payments are retried three times before the order fails.",
    ],
    "prefs": [
        "The user prefers TypeScript.",
        "TypeScript is the user's preferred language.",
        "The user does not like TypeScript.",
        "The user works from Lisbon on Mondays.",
        "The user works from Lisbon on Mondays and Tuesdays.",
    ],
    "export": [
        "The nightly export writes to the reports bucket.",
        "The nightly export writes CSV files to the reports bucket in the EU region.",
        "The nightly export was written by Alice.",
        "The nightly export was written by Bob.",
    ],
    "db": [
        "The staging database is in the Frankfurt region and is backed up before each deploy.",
        "The staging database is in the Frankfurt region and is not backed up before each deploy.",
        "The staging database is backed up before each deploy; it lives in the Frankfurt region.",
    ],
}


def load(g):
    ids = []
    for ns in ("default", "team-b"):
        for subject, texts in STORE.items():
            if ns == "team-b" and subject not in ("checkout", "db"):
                continue  # another namespace with some of the same texts: never paired across
            for i, text in enumerate(texts):
                ids.append(g.add({"content": text, "subject": subject, "namespace": ns, "source": f"s{i}",
                                  "created_at": T0 + timedelta(minutes=i)}).id)
    g.add({"content": "A lone memory in its own subject.", "subject": "alone", "created_at": T0})
    return ids


def decisions(report):
    return {k: v for k, v in report.to_dict().items() if k != "run_id"}


def test_block_candidates_decide_exactly_what_the_index_reference_decides(g, monkeypatch):
    load(g)
    for auto in (False, True):
        ref = job.run(g.db, g.config, now=NOW, auto_apply=auto, candidates=job.index_candidate_pairs)
        new = job.run(g.db, g.config, now=NOW, auto_apply=auto)
        assert decisions(new) == decisions(ref)  # same pairs, outcomes, figures, winners, order
    assert ref.proposed and ref.conflicts and ref.related  # every outcome is exercised
    assert decisions(job.run(g.db, g.config, now=NOW)) == decisions(new := job.run(g.db, g.config, now=NOW))
    pairs = [p for key in ("proposed", "conflicts", "related") for p in getattr(new, key)]
    assert all(p.namespace in ("default", "team-b") for p in pairs)
    # a block too large for all pairs goes through the index: still the same decisions
    monkeypatch.setattr(blocking, "EXACT_BLOCK_MAX", 4)
    assert decisions(job.run(g.db, g.config, now=NOW)) == decisions(new)


def test_the_batched_writes_are_what_the_reference_decided(g):
    load(g)
    ref = job.run(g.db, g.config, now=NOW, candidates=job.index_candidate_pairs)  # dry: what it would write
    wet = job.run(g.db, g.config, now=NOW, dry_run=False)
    assert {k: v for k, v in decisions(wet).items() if k != "dry_run"} == \
           {k: v for k, v in decisions(ref).items() if k != "dry_run"}
    queued = {p["id"]: p["payload"] for p in g.proposals(kind="merge", status="pending")}
    assert set(queued) == {proposal_id(p.a, p.b) for p in ref.proposed}
    for p in ref.proposed:
        payload = queued[proposal_id(p.a, p.b)]
        assert {k: payload[k] for k in p.as_dict()} == {k: list(v) if isinstance(v, tuple) else v
                                                        for k, v in p.as_dict().items()}
        assert payload["threshold"] == g.config.merge.threshold and payload["rule_text"].startswith(p.rule)
    about = g.db.run_text("MATCH (p:Proposal)-[a:ABOUT]->(m:Memory) RETURN p.id AS p, m.id AS m, a.version AS v")
    assert len(about) == 2 * len(ref.proposed)
    rel = g.db.run_text("MATCH (a)-[r:RELATED {source: 'merge'}]->(b) RETURN a.id AS a, b.id AS b, r.score AS s, "
                        "r.p_duplicate AS p, r.run_id AS run")
    assert sorted((r["a"], r["b"], r["s"], r["p"]) for r in rel) == \
           sorted((p.a, p.b, p.score, p.p_duplicate) for p in ref.related)
    assert {r["run"] for r in rel} == {wet.run_id}
    con = g.db.run_text("MATCH (a)-[c:CONFLICTS_WITH]->(b) RETURN a.id AS a, b.id AS b, c.reasons AS r, "
                        "c.score AS s, c.contests AS contests")
    assert sorted((c["a"], c["b"], c["r"], c["s"], c["contests"]) for c in con) == \
           sorted((p.a, p.b, p.contradictions, p.score, p.score >= g.config.merge.contest_at)
                  for p in ref.conflicts)
    # one audit record per decided pair, as one pair at a time wrote them
    for op, key in (("merge_proposed", "proposed"), ("merge_related", "related"), ("merge_conflict", "conflicts")):
        recs = g.audit_log(op=op, limit=1000)
        assert len(recs) == len(getattr(ref, key)) and {r["run_id"] for r in recs} == {wet.run_id}
    again = job.run(g.db, g.config, now=NOW + timedelta(hours=1), dry_run=False)
    assert again.proposed == again.conflicts == again.related == []  # a second pass changes nothing


def test_each_member_keeps_its_nearest_block_members_ties_by_id():
    # cosines of four members (ids d, c, b, a in row order): row 3 ties rows 1 and 2
    cos = np.array([[-np.inf, 0.9, 0.1, 0.2],
                    [0.9, -np.inf, 0.5, 0.3],
                    [0.1, 0.5, -np.inf, 0.3],
                    [0.2, 0.3, 0.3, -np.inf]])
    # k=1: d->c, c->d, b->c, a->{c or b: tie at 0.3, b is the smaller id}
    assert blocking.top_k_pairs(cos, ["d", "c", "b", "a"], 1) == [(0, 1), (1, 2), (2, 3)]
    assert blocking.top_k_pairs(cos, ["a", "b", "c", "d"], 1) == [(0, 1), (1, 2), (1, 3)]
    half = [[0.95, 0.55, 0.6], [0.75, 0.65], [0.65]]  # (1 + cosine) / 2 as the server sends it
    assert np.allclose(blocking.cosine_matrix(half), cos)

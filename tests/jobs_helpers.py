"""Shared helpers of the scheduled-jobs tests (issue 10): stores with merge and consolidate work,
and the invariants a killed-and-taken-over job must leave."""

from __future__ import annotations

import numpy as np

from graphcons.store import admission

CLUSTER_TEXTS = ["Checkout returned 503 right after deploy {k}; rolled back.",
                 "Deploy {k} caused 503 errors on checkout until the cache warmed.",
                 "503s on the checkout API followed deploy {k}, cache was cold.",
                 "After deploy {k} checkout served 503 for eight minutes."]


def n(g, cypher, **params):
    return g.db.run_text(cypher, **params)[0]["n"]


def add_duplicate_pairs(g, tag: str, pairs: int = 6, seed: int = 0) -> None:
    """`pairs` near-duplicate pairs in subject `tag` (same vector + tiny noise, titles one hyphen apart)."""
    rng = np.random.default_rng(seed)
    dims = g.embedder.dimensions
    for i in range(pairs):
        base = rng.normal(size=dims)
        for j, title in enumerate((f"Cache warmup fixes checkout errors {tag} {i}",
                                   f"Cache warm-up fixes checkout errors {tag} {i}")):
            v = base + rng.normal(0, 0.01, dims)
            admission.admit(g.db, g.config, g.embedder,
                            {"id": f"{tag}-{i}-{j}", "title": title, "subject": tag, "source": f"src-{j}",
                             "content": f"{title}: warming the cache before switching traffic."},
                            embedding=(v / np.linalg.norm(v)).tolist())


def add_linked_cluster(g, tag: str, size: int = 4) -> list[str]:
    """A cluster the gate accepts (with min_salience 0): linked memories of one subject."""
    ids = []
    for i in range(size):
        ids.append(g.add({"id": f"{tag}-m{i}", "content": CLUSTER_TEXTS[i % 4].format(k=tag), "subject": tag,
                          "source": f"oncall-{i}", "kind": "incident"}).id)
    for i, x in enumerate(ids):
        for y in ids[i + 1:]:
            g.link(x, y, "related")
    return ids


def assert_store_whole(g) -> None:
    """No duplicate or half-applied proposal, no memory without its version."""
    assert n(g, "MATCH (m:Memory) WHERE NOT EXISTS { (m)-[:VERSION]->(:MemoryVersion {version: m.version}) } "
                "RETURN count(m) AS n") == 0
    # merge: applied <=> its SUPERSEDES edge and a deprecated loser; pending => no edge
    assert n(g, "MATCH (p:Proposal {kind: 'merge'}) OPTIONAL MATCH (w)-[s:SUPERSEDES {proposal: p.id}]->(l) "
                "WITH p, count(s) AS edges, collect(l.status) AS losers "
                "WHERE (p.status = 'applied') <> (edges = 1) OR (p.status = 'applied' AND losers <> ['deprecated']) "
                "RETURN count(p) AS n") == 0
    # no pair proposed twice, and no memory merged away twice (a memory may sit in several
    # pending proposals: with the merge floor at 0.65 one incident resembles several others)
    assert n(g, "MATCH (p:Proposal {kind: 'merge'}) WITH CASE WHEN p.memory_ids[0] < p.memory_ids[1] "
                "THEN p.memory_ids ELSE [p.memory_ids[1], p.memory_ids[0]] END AS pair, count(p) AS k "
                "WHERE k > 1 RETURN count(pair) AS n") == 0
    assert n(g, "MATCH (p:Proposal {kind: 'merge', status: 'applied'}) WITH p.memory_ids[1] AS loser, count(p) AS k "
                "WHERE k > 1 RETURN count(loser) AS n") == 0
    # consolidate: one proposal per cluster membership, none half-applied
    assert n(g, "MATCH (p:Proposal {kind: 'consolidate'}) WITH p.cluster_key AS key, p.membership_hash AS h, "
                "count(*) AS k WHERE k > 1 RETURN count(*) AS n") == 0
    assert n(g, "MATCH (p:Proposal {kind: 'consolidate'}) WHERE p.status = 'pending' "
                "AND EXISTS { (p)-[:CREATED]->() } RETURN count(p) AS n") == 0
    # every proposal has its ABOUT edges (created in the proposal's own transaction)
    assert n(g, "MATCH (p:Proposal) WHERE NOT EXISTS { (p)-[:ABOUT]->() } RETURN count(p) AS n") == 0
    # a synthesis audited as proposed names a proposal that exists
    assert n(g, "MATCH (a:Audit {op: 'synthesize'}) WHERE a.details CONTAINS '\"outcome\": \"proposed\"' "
                "AND NOT EXISTS { MATCH (p:Proposal) WHERE p.id IN a.targets } RETURN count(a) AS n") == 0


# -- kill -9 in the middle of a job ------------------------------------------------------------
def _child(cfg, job, now):  # a worker process (forked): runs one job under its lease
    import os

    from graphcons.core.db import Database
    from graphcons.jobs.worker import run_job

    db = Database(cfg.neo4j)
    run_job(db, cfg, job, now=now, worker=f"child-{os.getpid()}", force=True)
    db.close()


def kill_points(g, job: str, points: int, now, add_work, rng, max_tries: int | None = None) -> dict:
    """Start a worker process on `job` and SIGKILL it at a random moment of its run; the next
    worker process (after the lease expired) takes the lease over, marks the dead run abandoned
    and resumes the job, and is killed in turn; the store must be whole after every kill. A
    last worker (this process) finishes the job. `add_work(i)` gives each round fresh work.
    Repeats until `points` kills landed while a job ran."""
    import multiprocessing
    import os
    import signal
    import time

    from graphcons.jobs.worker import run_job

    ctx = multiprocessing.get_context("fork")
    cfg = g.config
    add_work(-1)
    p = ctx.Process(target=_child, args=(cfg, job, now))  # a clean run: how long the job itself takes
    p.start()
    p.join()
    runs = "MATCH (r:JobRun {job: $job}) RETURN r.run_id AS id, r.status AS status, r.duration_ms AS ms"
    run_s = max(r["ms"] or 0 for r in g.db.run_text(runs, job=job)) / 1000
    landed = tries = 0
    while landed < points and tries < (max_tries or 10 * points):
        tries += 1
        add_work(tries)
        before = {r["id"] for r in g.db.run_text(runs, job=job)}
        p = ctx.Process(target=_child, args=(cfg, job, now))
        p.start()
        # Aim at the job, not at the process: wait until this worker's JobRun is running (start-up and
        # imports take most of a worker's life and vary a lot with load), then kill it at a random
        # moment of the run's expected length.
        new: list[dict] = []
        deadline = time.monotonic() + 120
        while p.is_alive() and not new and time.monotonic() < deadline:
            new = [r for r in g.db.run_text(runs, job=job) if r["id"] not in before]
            if not new:
                time.sleep(0.005)
        if new:
            time.sleep(rng.uniform(0.0, 0.9) * run_s)
        try:
            os.kill(p.pid, signal.SIGKILL)
        except ProcessLookupError:  # it finished first (and was reaped)
            pass
        p.join()
        assert p.exitcode in (0, -signal.SIGKILL), f"the worker process failed (exit {p.exitcode})"
        hit = any(r["status"] == "running" for r in g.db.run_text(runs, job=job) if r["id"] not in before)
        assert_store_whole(g)
        if hit:
            landed += 1
            time.sleep(cfg.jobs.lease_ttl_s + 0.1)  # the dead worker's lease expires; the next one takes over
    r = run_job(g.db, cfg, job, now=now, force=True)  # the last worker finishes the job
    assert r.status == "ok", r.line()
    assert_store_whole(g)
    assert landed >= points, f"only {landed} of {tries} kills landed during the run"
    abandoned = n(g, "MATCH (r:JobRun {job: $job, status: 'abandoned'}) RETURN count(r) AS n", job=job)
    assert n(g, "MATCH (r:JobRun {job: $job, status: 'running'}) RETURN count(r) AS n", job=job) == 0
    return {"job": job, "kills_landed": landed, "tries": tries, "runs_abandoned_and_taken_over": abandoned,
            "job_run_s": round(run_s, 3)}

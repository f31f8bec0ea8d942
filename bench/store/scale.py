"""One store of 1M memories, loaded once; admission, the cluster scan and the merge pass timed
against it in one run (issue 15).

The store is bench/merge/speed.py's synthetic one (subjects of 20 memories, embeddings = subject
centroid + noise, 5 % planted near-duplicates, random-word texts), written in bulk, with the
edges admission and use would have given it: SIMILAR by admission's exact rule (each memory's
top `similar_k` among the earlier memories of its subject at cosine >= the embedder's floor,
ties by id; computed here in numpy per subject, the same rule cypher/similar/exact.cypher applies)
and CO_ACCESSED pairs inside a subject (each pair with probability 5/19, count 1-4), so the scan
meets a graph with one connected group per subject. Then, on that store:

1. admission: p50/p95 of single admissions excluding embedding (vectors computed beforehand; the
   first pass after the start and a second, steady-state pass) and including it (the offline
   MiniLM embedder), into existing subjects, and the rate of `add_many` batches; with the time
   per round trip of the single path (bench/store/admission.py's Profile); then, after reading the
   store once (as a running service has), one more pass of each single kind (`store_read_once`);
2. the whole cluster scan (`graphcons clusters`: projection + detection + gate, label propagation),
   twice: right after the start (a cold page cache) and again (the steady state);
3. a full merge pass writing proposals, with the recall of the planted pairs and the proposals
   that were not planted;
4. (`--phases incremental`, issue 33) 10,000 new memories in 100 subjects, then the merge pass a
   trigger runs over the dirty scopes beside a full pass, and the cluster scan a triggered
   consolidate runs (the dirty subjects and those edges join to them) beside a full scan, each with
   its equality on those scopes.
Peak RSS of Neo4j and of Python and `uptime`'s load are recorded for each phase.

    python -m bench.store.scale [--n 1000000] [--keep-store] [--phases admission,scan,merge,incremental]
                                    [--out bench/store/results/scale.json]

Runs on the throwaway bench server (bench/server.py: heap 6g, page cache --pagecache, default 6g as
docs/DEPLOY.md advises for this store), reset unless
--keep-store finds the same store already loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import plots, query
from bench.merge import speed as mbench
from bench.store import admission as adm  # noqa: E402
from bench.clusters.planted import RssSampler  # noqa: E402
from bench.server import HOME, bench_server, stop_bench_server  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.consolidation import closure  # noqa: E402
from graphcons.consolidation.scan import scan  # noqa: E402
from graphcons.core.db import Rows  # noqa: E402
from graphcons.core.embedders.minilm import MiniLMEmbedder  # noqa: E402
from graphcons.core.memory import LIVE_STATUSES  # noqa: E402
from graphcons.core.time import utcnow  # noqa: E402
from graphcons.maintenance import vector_index  # noqa: E402
from graphcons.maintenance.merge import job as merge  # noqa: E402
from graphcons.store import dirty  # noqa: E402
from graphcons.store.admission import admit  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "scale.json"
EDGE_BATCH = 10_000


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def similar_edges(store: dict, k: int, floor: float) -> list[tuple[int, int, float]]:
    """Admission's exact rule per subject: memory i -> its top k earlier memories of its subject
    (admission order = index order) with cosine >= floor, ties by id."""
    vecs, subj = store["vecs"], store["subjects"]
    order = np.argsort(subj, kind="stable")  # members of a subject stay in admission order
    bounds = np.flatnonzero(np.diff(subj[order])) + 1
    edges = []
    for members in np.split(order, bounds):
        sims = vecs[members] @ vecs[members].T
        for a in range(1, len(members)):
            earlier = [(float(sims[a, b]), b) for b in range(a) if sims[a, b] >= floor]
            earlier.sort(key=lambda t: (-t[0], members[t[1]]))
            edges += [(int(members[a]), int(members[b]), c) for c, b in earlier[:k]]
    return edges


def coaccess_edges(store: dict, seed: int = 11) -> list[tuple[int, int, int]]:
    rng = np.random.default_rng(seed)
    subj = store["subjects"]
    order = np.argsort(subj, kind="stable")
    bounds = np.flatnonzero(np.diff(subj[order])) + 1
    edges = []
    for members in np.split(order, bounds):
        iu, ju = np.triu_indices(len(members), 1)
        keep = rng.random(len(iu)) < 5.0 / max(1, len(members) - 1)
        counts = rng.integers(1, 5, int(keep.sum()))
        edges += [(int(members[a]), int(members[b]), int(c)) for a, b, c in zip(iu[keep], ju[keep], counts)]
    return edges


def write_edges(g: Graphcons, name: str, edges: list[tuple], eid: dict[int, str]) -> None:
    text = query(name)
    for lo in range(0, len(edges), EDGE_BATCH):
        g.db.run_text(text, rows=[{"a": eid[a], "b": eid[b], "v": v} for a, b, v in edges[lo:lo + EDGE_BATCH]])


def load(g: Graphcons, n: int, sampler: RssSampler, out: dict) -> set[tuple[str, str]]:
    store = mbench.synthetic_store(n)
    cfg = g.config
    with sampler.phase(out, "load"):
        mbench.wipe(g)
        out["memories_write_s"] = round(mbench.write_store(g, store), 1)
        t0 = time.perf_counter()
        eid = {int(r["id"][2:]): r["eid"] for r in g.db.run_text(query("scale_element_ids"))}
        sim = similar_edges(store, cfg.admission.similar_k, cfg.consolidation.similarity_floor)
        co = coaccess_edges(store)
        write_edges(g, "clusters_create_similar_by_eid", sim, eid)
        write_edges(g, "clusters_create_coaccess_by_eid", co, eid)
        out.update(similar_edges=len(sim), coaccess_edges=len(co), edges_write_s=round(time.perf_counter() - t0, 1))
        out["vector_index_build_s"] = round(mbench.build_index(g), 1)
    print(f"loaded {n:,} memories, {len(sim):,} SIMILAR and {len(co):,} CO_ACCESSED edges in {out['load_s']} s",
          flush=True)
    return store["planted"]


def admission(g: Graphcons, emb: MiniLMEmbedder, args, sampler: RssSampler, tag: str = "") -> dict:
    # A reused store already holds the probes of earlier runs, which would come back as exact
    # duplicates (evidence, no embedding, no neighbour scan): `tag` makes each one new.
    probes = iter(f"{s} {tag}".rstrip() for s in adm.sentences()[4000:])
    n_subjects = args.n // 20

    def subj(i: int) -> str:  # existing subjects of 20, spread over the store
        return f"subj-{(7919 * i) % n_subjects:05d}"

    for i in range(args.warmup):  # untimed: plans compiled
        w = next(probes)
        admit(g.db, g.config, emb, {"content": w, "subject": "warmup"}, embedding=emb.embed_one(w))
    out: dict = {"uptime_before": uptime(), "index_probe_ms": vector_index.probe(g.db, repeat=20)}
    # Two passes, as bench/store/admission.py: the first after the server started and the store was
    # loaded, then the steady state (reported as excluding_embedding).
    for label in ("excluding_embedding_after_start", "excluding_embedding"):
        with sampler.phase(out, label):
            lat, _, prof = adm.excluding_embedding(g, emb, args.admissions, probes, subj)
        out[label] = adm.summary(lat)
    out["profile_excluding_embedding"] = prof.summary()
    texts = [next(probes) for _ in range(args.admissions)]
    with sampler.phase(out, "including_embedding"):
        lat = []
        for i in range(args.admissions):
            lat += adm.timed(lambda s: g.add({"content": s, "subject": subj(args.admissions + i)}), [texts[i]])
    out["including_embedding"] = adm.summary(lat)
    batches = [[{"content": next(probes), "subject": subj(j), "source": "import"} for j in range(args.batch)]
               for _ in range(args.batches)]
    with sampler.phase(out, "batch"):
        for b in batches:
            g.add_many(b)
    out["batch"] = {"batch_size": args.batch, "batches": args.batches,
                    "memories_per_s": round(args.batch * args.batches / out["batch_s"], 1)}
    grouped = [[{"content": next(probes), "subject": subj(8 * (k + 1) + j % 8), "source": "import"}
                for j in range(args.batch)] for k in range(args.batches)]  # a batch in 8 subjects
    with sampler.phase(out, "batch_grouped"):
        for b in grouped:
            g.add_many(b)
    out["batch"]["grouped_memories_per_s"] = round(args.batch * args.batches / out["batch_grouped_s"], 1)
    with sampler.phase(out, "import"):
        out["batch"]["import_memories_per_s"] = adm.import_rate(g, [
            {"content": next(probes), "subject": subj(j), "source": "import"} for j in range(args.batch * args.batches)])
    # A running service has read its store before: read it once (Community's page cache starts cold
    # after a restart), then one more pass of each kind, interleaved, into subjects not yet touched.
    t = time.perf_counter()
    g.db.run_text("MATCH (m:Memory) RETURN count(m.subject) AS s, count(m.content_hash) AS h, "
                  "sum(size(m.embedding)) AS e")
    out["store_read_s"] = round(time.perf_counter() - t, 1)
    first = 2 * args.admissions + args.batch * args.batches
    warm = [(next(probes), next(probes)) for _ in range(args.admissions)]
    vecs = emb.embed([a for a, _ in warm])
    lat_ex, lat_in = [], []
    with sampler.phase(out, "store_read_once"):
        for i, ((a, b), v) in enumerate(zip(warm, vecs)):
            lat_ex += adm.timed(lambda s: admit(g.db, g.config, emb, {"content": s, "subject": subj(first + 2 * i)},
                                                embedding=v), [a])
            lat_in += adm.timed(lambda s: g.add({"content": s, "subject": subj(first + 2 * i + 1)}), [b])
    out["store_read_once"] = {"excluding_embedding": adm.summary(lat_ex), "including_embedding": adm.summary(lat_in)}
    out["uptime_after"] = uptime()
    print(f"admission at {args.n:,} stored: excl. embedding {out['excluding_embedding']}, "
          f"incl. {out['including_embedding']}, batch {out['batch']}; after the store was read once "
          f"({out['store_read_s']} s): {out['store_read_once']}", flush=True)
    return out


def cluster_scan(g: Graphcons, sampler: RssSampler) -> dict:
    """Two scans: the first reads every page of the store into the page cache for the first time
    since the start (Neo4j Community does not warm it), the second is the steady state of a
    running service (its figures are the unprefixed ones)."""
    out: dict = {"uptime_before": uptime()}
    for label in ("after_start", "steady"):
        part: dict = {}
        with sampler.phase(part, "scan"):
            report = scan(g.db, g.config, now=utcnow(), algorithm="label_propagation")
        part.update(report.timings)
        part.update(clusters=len(report.clusters), decisions=len(report.decisions), accepted=len(report.accepted))
        print(f"scan ({label}): {part['scan_s']} s ({report.timings}), {part['clusters']:,} clusters, "
              f"{part['accepted']:,} accepted", flush=True)
        if label == "after_start":
            out["after_start"] = part
        else:
            out.update(part)
    out["uptime_after"] = uptime()
    return out


def merge_pass(g: Graphcons, planted: set[tuple[str, str]], sampler: RssSampler) -> dict:
    out: dict = {"uptime_before": uptime()}
    t0 = time.perf_counter()

    def tick(k: int, done=[0]) -> None:
        done[0] += k
        if done[0] % 100_000 < k:
            print(f"  merge pass: {done[0]:,} memories after {time.perf_counter() - t0:.0f} s", flush=True)

    with sampler.phase(out, "pass"):
        wet = merge.run(g.db, g.config, now=mbench.NOW, dry_run=False, progress=tick)
    got = {(p.a, p.b) for p in wet.proposed}
    out.update(over_threshold=wet.over_threshold, proposals_written=len(wet.proposed),
               related_links_written=len(wet.related), conflicts_written=len(wet.conflicts),
               planted_near_duplicates=len(planted), planted_found=len(planted & got),
               planted_recall=round(len(planted & got) / len(planted), 4), proposals_not_planted=len(got - planted),
               # the loaded store's ids are b-NNNNNN; the others are this or an earlier run's admissions
               proposals_not_planted_within_store=sum(a.startswith("b-") and b.startswith("b-") for a, b in got - planted),
               uptime_after=uptime())
    print(f"merge pass: {out['pass_s']} s, recall {out['planted_recall']}, "
          f"{out['proposals_not_planted']} not planted", flush=True)
    return out


def incremental(g: Graphcons, emb: MiniLMEmbedder, args, sampler: RssSampler, tag: str = "") -> dict:
    """Issue 33: admit `--new` memories into `--new-subjects` existing subjects (add_many, the
    embedding included), then time the merge pass a trigger runs (only the dirty scopes, as the
    worker passes them) beside a full pass in the same run, both dry runs on the same store, and
    check that both decide the same pairs in the dirty scopes."""
    out: dict = {"uptime_before": uptime(), "new_memories": args.new, "new_subjects": args.new_subjects}
    sents = adm.sentences()
    n_subjects = args.n // 20
    first = args.new_subjects_from
    subjects = [f"subj-{(104729 * i) % n_subjects:05d}" for i in range(first, first + args.new_subjects)]
    for job in ("merge", "consolidate"):  # marks an earlier run left: a triggered run would have cleared them
        dirty.clear(g.db, job, dirty.pending(g.db, job, 1, limit=1_000_000), utcnow(), "bench-scale")
    rows = [{"content": f"{sents[i % len(sents)]} (round {i // len(sents)}) {tag}".rstrip(),
             "subject": subjects[i % len(subjects)], "source": "incremental"} for i in range(args.new)]
    with sampler.phase(out, "admit"):
        for start in range(0, len(rows), 256):
            g.add_many(rows[start:start + 256])
    scopes = [{"namespace": m["namespace"], "subject": m["subject"]}
              for m in dirty.pending(g.db, "merge", 1, limit=100_000)]
    out["dirty_scopes"] = len(scopes)
    with sampler.phase(out, "triggered_merge"):
        scoped = merge.run(g.db, g.config, now=mbench.NOW, dry_run=True, scopes=scopes)
    # The same pass again: its query plans compiled and its pages cached, as a worker's later
    # triggered runs meet them (the first run above is the first merge since the server started).
    with sampler.phase(out, "triggered_merge_repeat"):
        merge.run(g.db, g.config, now=mbench.NOW, dry_run=True, scopes=scopes)
    # Where the triggered pass's time goes: the server's part (the dirty blocks' members and cosines,
    # merge/block_pairs) timed alone; the rest is scoring the pairs in Python and the known-pairs read.
    t = time.perf_counter()
    blocks = [sorted(r["ids"]) for r in g.db.run("merge/blocks_of", live=list(LIVE_STATUSES), scopes=scopes)]
    batch: list[list[str]] = []
    for n, ids in enumerate(blocks):  # batched as candidate_pairs batches them ([merge] batch_size memories)
        batch += [ids] if len(ids) > 1 else []
        if batch and (sum(map(len, batch)) >= g.config.merge.batch_size or n == len(blocks) - 1):
            g.db.run("merge/block_pairs", Rows.VALUES, blocks=batch)
            batch = []
    out["triggered_merge_server_part_s"] = round(time.perf_counter() - t, 2)
    # A triggered consolidate scans the dirty subjects and those the fused graph joins to them
    # (closure.scan_targets, as the job does), right after the admissions as a trigger would; the
    # full passes come after both triggered ones (a full pass reads the whole store through the page
    # cache and would leave the dirty subjects' pages cold).
    with sampler.phase(out, "dirty_scope_scan"):
        targets = closure.scan_targets(g.db, scopes)
        part = [scan(g.db, g.config, now=utcnow(), namespace=ns, subjects=subjects, algorithm="label_propagation")
                for ns, subjects in targets]
    with sampler.phase(out, "dirty_scope_scan_repeat"):
        for ns, subjects in closure.scan_targets(g.db, scopes):
            scan(g.db, g.config, now=utcnow(), namespace=ns, subjects=subjects, algorithm="label_propagation")
    with sampler.phase(out, "full_merge"):
        full = merge.run(g.db, g.config, now=mbench.NOW, dry_run=True)
    dirty_keys = {(s["namespace"], s["subject"]) for s in scopes}
    mem = {r["id"]: (r["ns"], r["subject"]) for r in g.db.run_text(
        "UNWIND $ids AS id MATCH (m:Memory {id: id}) RETURN m.id AS id, m.namespace AS ns, m.subject AS subject",
        ids=sorted({p.a for p in full.proposed} | {p.a for p in scoped.proposed}))}
    in_dirty = sorted((p.a, p.b) for p in full.proposed if mem.get(p.a) in dirty_keys)
    out.update(triggered_proposed=len(scoped.proposed), full_proposed=len(full.proposed),
               full_proposed_in_dirty_scopes=len(in_dirty),
               equal_on_dirty_scopes=sorted((p.a, p.b) for p in scoped.proposed) == in_dirty,
               uptime_after=uptime())
    with sampler.phase(out, "full_scan"):
        whole = scan(g.db, g.config, now=utcnow(), algorithm="label_propagation")
    scanned = set()
    for ns, subjects in targets:
        scanned |= {r["id"] for r in g.db.run_text(
            "MATCH (m:Memory {namespace: $ns}) WHERE $subjects IS NULL OR m.subject IN $subjects RETURN m.id AS id",
            ns=ns, subjects=subjects)}
    key = lambda ds: sorted((d.key, d.accepted, d.membership_hash) for d in ds)  # noqa: E731
    out.update(dirty_scope_scan_subjects=sum(len(s) if s is not None else -1 for _, s in targets),
               dirty_scope_scan_memories=len(scanned),
               dirty_scope_scan_decisions=sum(len(r.decisions) for r in part),
               full_scan_decisions=len(whole.decisions),
               scan_equal_on_dirty_scopes=key(d for r in part for d in r.decisions)
               == key(d for d in whole.decisions if d.cluster.member_ids[0] in scanned),
               consolidate_note="a triggered consolidate scans the dirty subjects and the subjects an edge joins "
                                "to them (closure); -1 subjects means a namespace was scanned whole",
               uptime_after=uptime())
    print(f"incremental: triggered merge {out['triggered_merge_s']} s over {len(scopes)} scopes, full pass "
          f"{out['full_merge_s']} s; equal on the dirty scopes: {out['equal_on_dirty_scopes']}; scan of "
          f"{out['dirty_scope_scan_subjects']} subject(s) {out['dirty_scope_scan_s']} s, full "
          f"{out['full_scan_s']} s, equal: {out['scan_equal_on_dirty_scopes']}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="memories in the store")
    ap.add_argument("--admissions", type=int, default=300, help="single admissions timed per mode")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--keep-store", action="store_true", help="reuse the bench server's store if it holds --n memories")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--pagecache", default="6g",
                    help="Neo4j's page cache (docs/DEPLOY.md: at least the store files, ~3.6 GB at 1M; runs before "
                         "2026-12-02 17:10 UTC used 3g)")
    ap.add_argument("--new", type=int, default=10_000, help="incremental phase: new memories admitted")
    ap.add_argument("--new-subjects", type=int, default=100, help="incremental phase: subjects they go to")
    ap.add_argument("--new-subjects-from", type=int, default=0,
                    help="incremental phase: the first of those subjects (another value on a reused store: "
                         "subjects no earlier run grew)")
    ap.add_argument("--phases", default="admission,scan,merge",
                    help="which phases to run (comma-separated); the others keep their figures from --out; "
                         "`load` alone only loads the store (for a later --keep-store run)")
    args = ap.parse_args()
    phases = set(args.phases.split(","))
    if not phases or phases - {"admission", "scan", "merge", "incremental", "load"}:
        raise SystemExit(f"--phases: expected some of load,admission,scan,merge,incremental; got {args.phases!r}")
    emb = MiniLMEmbedder()
    cfg = bench_server(heap="6g", pagecache=args.pagecache, reset=not args.keep_store)
    results: dict = {"benchmark": "scale", "command": " ".join(["python -m bench.store.scale"] + sys.argv[1:]),
                     "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                                 "neo4j_heap": "6g", "neo4j_pagecache": args.pagecache},
                     "targets": {"admission_p95_excluding_embedding_ms": 20, "admission_p95_including_embedding_ms": 60,
                                 "batch_memories_per_s": 500, "scan_1m_s": 60},
                     "n": args.n, "store": {}}
    old = json.loads(args.out.read_text()) if args.out.exists() else {}
    if "baseline" in old:
        results["baseline"] = old["baseline"]
    for phase in {"admission", "scan", "merge", "incremental"} - phases:  # not re-run: the figures of the run before
        if phase in old:
            results[phase] = {"from_run": old.get("command", "") + " at " + old.get("at", "?"), **old[phase]}
    results["at"] = utcnow().isoformat(timespec="seconds")
    try:
        with Graphcons(cfg, embedder=emb) as g:
            sampler = RssSampler(int((HOME / "neo4j.pid").read_text().strip()))
            g.init()
            stored = g.db.run_text("MATCH (m:Memory) RETURN count(m) AS n")[0]["n"]
            if args.keep_store and stored >= args.n:
                planted = mbench.synthetic_store(args.n)["planted"]
                mbench.clear_merge_output(g)
                results["store"]["reused"] = stored
            else:
                planted = load(g, args.n, sampler, results["store"])
            tag = f"(run {time.strftime('%Y%m%d%H%M%S')})" if "reused" in results["store"] else ""
            if "admission" in phases:
                results["admission"] = admission(g, emb, args, sampler, tag)
                args.out.write_text(json.dumps(results, indent=2) + "\n")  # a long run keeps what it measured
            if "scan" in phases:
                results["scan"] = cluster_scan(g, sampler)
                args.out.write_text(json.dumps(results, indent=2) + "\n")
            if "merge" in phases:
                results["merge"] = merge_pass(g, planted, sampler)
                args.out.write_text(json.dumps(results, indent=2) + "\n")
            if "incremental" in phases:
                results["incremental"] = incremental(g, emb, args, sampler, tag)
            sampler.stop()
    finally:
        stop_bench_server()
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    plots.render(args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()

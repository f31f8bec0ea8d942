"""The update pass on a large store of chat turns: the incremental run after new memories (issue 62 target:
after 1,000 new memories on a 100k store, the triggered run < 60 s).

The store: `--n` chat turns of the LongMemEval S dev haystacks (../shared/data/longmemeval-s-dev.json.gz,
122k turns), stored as bench/retrieval/longmemeval.py stores them (each haystack one namespace, the
speaker's role the subject, created_at the session's date, the event times admission would store), written
in bulk (bench/cypher/merge_load.cypher: the update pass reads texts, not vectors, so one fixed vector stands
for each). Then, timed:
1. `full_pass_s`: a full update pass writing its proposals (what a store runs once);
2. `admit_s`: `--new` further turns (the haystacks after the store's) admitted through `add_many` (the
   product's path: embeddings, dirty marks) into `--new-scopes` of the store's namespaces, each turn keeping
   its role as subject;
3. `triggered_s`: the pass a trigger runs, over the dirty scopes as the worker passes them (`scopes`),
   writing its proposals, with the blocks and memories it read;
4. the check: a full dry pass afterwards finds nothing new in those scopes (`full_after_new_in_dirty`: 0
   means the triggered run found everything a full pass finds there), and `full_after_s` beside it.
Peak figures are the load (`uptime`) before and after; nothing else runs in the clock.

    python -m bench.jobs.updates_scale [--n 100000] [--new 1000] [--new-scopes 20] [--uri URI]
                                       [--out bench/jobs/results/updates_scale.json]

Without --uri it runs on the throwaway bench server (bench/server.py), which it resets.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import command, query  # noqa: E402
from bench.retrieval.lme_data import DATA_S, when  # noqa: E402
from bench.server import bench_server  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core import eventtime  # noqa: E402
from graphcons.core.config import Config, Neo4jConfig  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402
from graphcons.core.memory import content_hash, parse_input  # noqa: E402
from graphcons.maintenance.updates import job as updates  # noqa: E402
from graphcons.store import dirty  # noqa: E402
from graphcons.store.admission import node_props  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "updates_scale.json"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
TARGET_S = 60.0


def turns(limit: int) -> list[dict]:
    """The first `limit` turns of the S haystacks, haystack by haystack (file order), as memory inputs."""
    out: list[dict] = []
    for q in json.load(gzip.open(DATA_S)):
        for sid, date, session in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"]):
            for j, t in enumerate(session):
                if any(c.isalnum() for c in t.get("content", "")):  # no blank or invisible-only turn
                    out.append({"content": t["content"], "subject": t["role"], "namespace": f"hs-{q['question_id']}",
                                "session": sid, "source": f"chat:{sid}:{j}", "created_at": when(date)})
                if len(out) >= limit:
                    return out
    return out


def write_store(g: Graphcons, rows: list[dict]) -> float:
    """Bulk-write the store's turns, 1,000 a statement; seconds."""
    t0 = time.perf_counter()
    vec = [1.0] + [0.0] * (g.embedder.dimensions - 1)
    batch = []
    for i, row in enumerate(rows):
        mem = parse_input({**row, "id": f"t-{i:06d}"}, max_title=1000, max_content=100_000)
        props = node_props(mem, content_hash(mem.content), vec, None, g.config.weights)
        batch.append(props | eventtime.properties(mem.content, row["created_at"]))
        if len(batch) == 1000 or i == len(rows) - 1:
            g.db.run_text(query("merge_load"), rows=batch)
            batch = []
    return round(time.perf_counter() - t0, 1)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, round(time.perf_counter() - t, 2)


def run(g: Graphcons, args: argparse.Namespace) -> dict:
    rows = turns(args.n + args.new)
    store, new = rows[:args.n], rows[args.n:]
    report: dict = {"n": len(store), "uptime_before": uptime(), "store_write_s": write_store(g, store)}
    full, report["full_pass_s"] = timed(lambda: updates.run(g.db, g.config, now=NOW, dry_run=False))
    report.update(full_pass_blocks=full.blocks, full_pass_memories=full.memories,
                  full_pass_proposed=len(full.proposed))
    namespaces = list(dict.fromkeys(r["namespace"] for r in store))[:args.new_scopes]
    new = [{**r, "namespace": namespaces[i % len(namespaces)]} for i, r in enumerate(new)]
    dirty.clear(g.db, "updates", dirty.pending(g.db, "updates", 1, limit=1_000_000), NOW, "bench-updates-scale")
    _, report["admit_s"] = timed(lambda: [g.add_many(new[i:i + 256]) for i in range(0, len(new), 256)])
    scopes = [{"namespace": m["namespace"], "subject": m["subject"]}
              for m in dirty.pending(g.db, "updates", 1, limit=100_000)]
    triggered, report["triggered_s"] = timed(
        lambda: updates.run(g.db, g.config, now=NOW, dry_run=False, scopes=scopes))
    after, report["full_after_s"] = timed(lambda: updates.run(g.db, g.config, now=NOW, dry_run=True))
    keys = {(s["namespace"], s["subject"]) for s in scopes}
    report.update(new_memories=len(new), dirty_scopes=len(scopes), triggered_blocks=triggered.blocks,
                  triggered_memories=triggered.memories, triggered_proposed=len(triggered.proposed),
                  full_after_new_in_dirty=sum(1 for u in after.proposed if (u.namespace, u.subject) in keys),
                  target_s=TARGET_S, met=report["triggered_s"] < TARGET_S, uptime_after=uptime())
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="turns in the store")
    ap.add_argument("--new", type=int, default=1000, help="turns admitted after the first pass")
    ap.add_argument("--new-scopes", type=int, default=20, help="namespaces the new turns go to")
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"), help="wipe and use this Neo4j (default: bench server)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    cfg = Config(neo4j=Neo4jConfig(uri=args.uri, password=os.environ.get("NEO4J_PASSWORD") or None)) if args.uri \
        else bench_server(heap="1g", pagecache="512m")
    with Graphcons(cfg, embedder=make_embedder(cfg.embedding)) as g:
        with g.db.driver.session(database=cfg.neo4j.database) as session:  # the bench store only
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
        g.init()
        report = {"command": command("bench.jobs.updates_scale"), **run(g, args)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

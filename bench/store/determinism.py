"""Same input, same store? (issue 29, principle 4)

Both LoCoMo dev conversations (../shared/data/locomo-dev.json: every observation a memory,
namespace = conversation, subject = speaker, source = dialogue turn, no ids, no times) are
imported into two fresh stores with the admission clock a day apart, then scanned, consolidated
(offline synthesizer, dry_run = false) and merged, each run's jobs two hours after its import.
Compared between the two stores: memory ids, SIMILAR edges (pairs and scores), cluster keys,
accepted cluster keys, consolidate proposal ids, merge proposal ids.

Two id rules, in the same run:
- `input`: graphcons' rule (ids from namespace, subject, source and normalised content);
- `admission_time` (the baseline, the rule before issue 29): the same lines given explicit ids
  hashed from those fields *and the admission time*, as core.memory.new_memory_id did.

    python -m bench.store.determinism [--uri bolt://...]

With --uri (or $NEO4J_URI, $NEO4J_PASSWORD) it WIPES that database; without, it uses the
throwaway bench server (bench/server.py). Saves bench/store/results/determinism.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import command  # noqa: E402
from bench.server import consolidating_config, stop_bench_server  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.memory import content_hash  # noqa: E402

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "locomo-dev.json"
RESULTS = Path(__file__).resolve().parent / "results" / "determinism.json"
DAY_ONE = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
DAY_TWO = DAY_ONE + timedelta(days=1)
LATER = timedelta(hours=2)


def load() -> list[dict]:
    lines = []
    for conv in json.loads(DATA.read_text()):
        for session in sorted(conv["observation"], key=lambda s: int(s.split("_")[1])):
            for speaker, facts in conv["observation"][session].items():
                for fact, turn in facts:
                    lines.append({"content": fact, "namespace": conv["sample_id"], "subject": speaker,
                                  "source": str(turn), "kind": "observation"})
    return lines


def time_hashed(line: dict, now: datetime) -> dict:
    """The id rule before issue 29: the admission time hashed in (created_at defaulted to it)."""
    key = "|".join([line["namespace"], line["subject"], line["source"], content_hash(line["content"]), now.isoformat()])
    return {**line, "id": "m-" + hashlib.sha256(key.encode()).hexdigest()[:16]}


def wipe(g: Graphcons) -> None:
    # benchmark isolation only: graphcons itself never deletes
    g.db.run_text("CALL gds.graph.list() YIELD graphName CALL gds.graph.drop(graphName, false) YIELD graphName AS g "
                  "RETURN count(*)")
    with g.db.driver.session(database=g.config.neo4j.database) as session:
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
    g.init()


def one_store(g: Graphcons, lines: list[dict], now: datetime, rule: str) -> dict:
    wipe(g)
    rows = [time_hashed(x, now) for x in lines] if rule == "admission_time" else lines
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "locomo.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in rows))
        t = time.perf_counter()
        report = g.import_jsonl(path, now=now)
        seconds = time.perf_counter() - t
    ids = [r["id"] for r in g.db.run_text("MATCH (m:Memory) WHERE m.kind <> 'insight' RETURN m.id AS id ORDER BY id")]
    similar = [(r["a"], r["b"], r["s"]) for r in g.db.run_text(
        "MATCH (a:Memory)-[s:SIMILAR]->(b:Memory) RETURN a.id AS a, b.id AS b, s.score AS s ORDER BY a, b")]
    scan = g.scan(now=now + LATER)
    g.consolidate(now=now + LATER)
    consolidate = sorted(p["id"] for p in g.proposals(kind="consolidate", limit=100_000))
    g.merge(dry_run=False, now=now + LATER)
    merges = sorted(p["id"] for p in g.proposals(kind="merge", limit=100_000))
    return {"admitted": report.admitted, "import_seconds": round(seconds, 1), "ids": ids, "similar": similar,
            "clusters": sorted(c.key for c in scan.clusters), "accepted": sorted(d.key for d in scan.accepted),
            "consolidate": consolidate, "merges": merges}


def compare(a: dict, b: dict) -> dict:
    out = {"counts": {k: [len(a[k]), len(b[k])] for k in ("ids", "similar", "clusters", "accepted", "consolidate",
                                                             "merges")},
           "identical": {k: a[k] == b[k] for k in ("ids", "similar", "clusters", "accepted", "consolidate", "merges")}}
    out["admitted"] = [a["admitted"], b["admitted"]]
    out["import_seconds"] = [a["import_seconds"], b["import_seconds"]]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"), help="wipe and use this Neo4j (default: bench server)")
    args = ap.parse_args()
    load_before = os.getloadavg()
    cfg = consolidating_config(args.uri, pagecache="256m")
    lines = load()
    result: dict = {"command": command("bench.store.determinism"), "data": DATA.name,
                    "memories": len(lines), "clocks": [DAY_ONE.isoformat(), DAY_TWO.isoformat()],
                    "uptime_load_before": [round(x, 2) for x in load_before]}
    with Graphcons(cfg) as g:
        for rule in ("admission_time", "input"):
            result[rule] = compare(one_store(g, lines, DAY_ONE, rule), one_store(g, lines, DAY_TWO, rule))
            print(rule, json.dumps(result[rule]))
    if not args.uri:
        stop_bench_server()
    result["uptime"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()

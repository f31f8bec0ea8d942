"""Fuzzing that reaches the store (issues 16, 30): --cases requests drawn by hypothesis over
every route and role of the HTTP API (tests/fuzz_requests.py): three in four drawn valid (real
ids from the store, values the request models accept), the rest one mutation away (a lower
role, another namespace, an unknown id, junk or NUL or Cypher in a field, an unknown field).
Against a real uvicorn server and Neo4j, after seeding memories and pending proposals in a
fresh namespace. Reports statuses per route, 500s (goal 0), writes by refused requests (goal 0,
the store's counts compared around every request) and the store's invariants afterwards
(every memory has its versions, no proposal half-applied). Uses $NEO4J_URI, which nothing else may
write to while it runs: the store-wide counts would charge another writer's work to a refused
request (a run beside bench/llm/models.py on the same Neo4j reported one such false write).

    NEO4J_URI=... python -m bench.service.fuzz [--cases 10000]

Saves bench/service/results/fuzz.json (with the command and the machine's load).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from fuzz_requests import Fuzz, cases, invariants, seed  # noqa: E402
from service_helpers import Server  # noqa: E402

from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "fuzz.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--note", default="2 shared cores", help="what else ran on the machine, saved with the figures")
    args = ap.parse_args()
    cfg = load_config()
    cfg.service.max_body_bytes = 64 * 1024
    cfg.service.max_batch = 10
    ns = f"fuzz-{uuid.uuid4().hex[:8]}"
    start, load_before = time.perf_counter(), os.getloadavg()
    with Graphcons(cfg) as g, Server(cfg) as srv:
        proposals = seed(g, ns, datetime.now(timezone.utc))
        fuzz = Fuzz(g, srv, ns)

        @settings(max_examples=args.cases, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(case=cases())
        def one(case):
            fuzz.run(case)

        one()
        broken = invariants(g)
    out = {"benchmark": "fuzz", "command": " ".join([Path(sys.executable).name, *sys.argv]), "namespace": ns,
           "seeded_proposals": proposals, **fuzz.report(), "invariant_violations": broken,
           "seconds": round(time.perf_counter() - start, 1), "load_before": load_before, "load_after": os.getloadavg(),
           "note": f"{args.note}; 'drawn_valid' = cases drawn to pass, 'answered_2xx' = cases that did"}
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2))
    print(json.dumps({k: v for k, v in out.items() if k not in ("by_route",) and not k.startswith("examples")}, indent=2))


if __name__ == "__main__":
    main()

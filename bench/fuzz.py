"""Fuzzing the HTTP API (issue 16): --cases hypothesis-generated admission payloads (arbitrary
unicode, huge strings, nested junk, Cypher fragments, null bytes) against a real uvicorn server;
reports 500s (goal 0) and writes caused by refused requests (goal 0). Uses $NEO4J_URI.

    NEO4J_URI=... .venv/bin/python bench/fuzz.py [--cases 10000]

Saves bench/results/fuzz.json (with the machine's load).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
import uuid
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from service_helpers import Server, counts  # noqa: E402
from test_service_fuzz import payloads  # noqa: E402

from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "fuzz.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=10_000)
    args = ap.parse_args()
    cfg = load_config()
    cfg.service.max_body_bytes = 64 * 1024
    ns = f"fuzz-{uuid.uuid4().hex[:8]}"
    statuses: collections.Counter = collections.Counter()
    bad_writes: list = []
    errors_500: list = []
    start, load_before = time.perf_counter(), os.getloadavg()
    with Graphcons(cfg) as g, Server(cfg) as srv:
        token, _ = g.create_token(f"fuzzer-{ns}", [ns], "writer", by="bench")
        client = srv.client(token)

        @settings(max_examples=args.cases, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(payload=payloads)
        def case(payload):
            before = counts(g)
            r = client.post("/v1/memories", json=payload)
            statuses[r.status_code] += 1
            if r.status_code >= 500:
                errors_500.append(r.text[:300])
            elif r.status_code >= 400 and counts(g) != before:
                bad_writes.append(repr(payload)[:300])

        case()
    out = {"cases": sum(statuses.values()), "statuses": dict(sorted(statuses.items())), "errors_500": len(errors_500),
           "writes_by_refused_requests": len(bad_writes), "examples_500": errors_500[:5],
           "examples_bad_writes": bad_writes[:5], "seconds": round(time.perf_counter() - start, 1),
           "load_before": load_before, "load_after": os.getloadavg(),
           "note": "2 shared cores with other jobs running"}
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2))
    print(json.dumps({k: v for k, v in out.items() if not k.startswith("examples")}, indent=2))


if __name__ == "__main__":
    main()

"""HTTP API throughput (issue 16): requests/s and p50/p95 of add and retrieve through
`graphcons serve` (uvicorn on 127.0.0.1) with 8 concurrent clients, next to the same calls
in-process. Bounded: --n requests per client and kind. Uses the Neo4j of $NEO4J_URI and a
fresh namespace (it writes memories there; graphcons never deletes).

    NEO4J_URI=... NEO4J_PASSWORD=... .venv/bin/python bench/api.py [--clients 8] [--n 20]

Prints a table and saves bench/results/api.json (with the machine's load).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from service_helpers import Server  # noqa: E402

from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "api.json"


def figures(latencies: list[float], wall: float) -> dict:
    lat = sorted(latencies)
    return {"requests": len(lat), "per_s": round(len(lat) / wall, 1), "p50_ms": round(1000 * statistics.median(lat), 1),
            "p95_ms": round(1000 * lat[int(0.95 * (len(lat) - 1))], 1)}


def run(calls, clients: int) -> dict:
    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        latencies = [x for batch in pool.map(lambda f: f(), calls) for x in batch]
    return figures(latencies, time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--n", type=int, default=20)
    args = ap.parse_args()
    cfg = load_config()
    ns = f"bench-{uuid.uuid4().hex[:8]}"
    out = {"load_before": os.getloadavg(), "clients": args.clients, "n_per_client": args.n, "namespace": ns}
    retries: list[int] = []
    with Graphcons(cfg) as g, Server(cfg) as srv:
        token, _ = g.create_token(f"bench-{ns}", [ns], "writer", by="bench")

        def http_adds(c: int):
            def go():
                lat, client = [], srv.client(token)
                for i in range(args.n):
                    t = time.perf_counter()
                    for attempt in range(12):  # a 503 transient (deadlock rolled back) is retried, and counted
                        r = client.post("/v1/memories", json={"content": f"HTTP bench memory {c}-{i}: deploy {i} "
                                                                        f"of service {c} returned 503 for {i} minutes."})
                        if r.status_code != 503:
                            break
                        retries.append(1)
                        time.sleep(0.1 * (attempt + 1) * (1 + c % 3))
                    assert r.status_code == 201, r.text
                    lat.append(time.perf_counter() - t)
                return lat
            return go

        def http_retrieves(c: int):
            def go():
                lat, client = [], srv.client(token)
                for i in range(args.n):
                    t = time.perf_counter()
                    r = client.post("/v1/retrieve", json={"query": f"503 after deploy {i}", "k": 5,
                                                          "session": f"s{c}"})
                    assert r.status_code == 200, r.text
                    lat.append(time.perf_counter() - t)
                return lat
            return go

        out["http_add"] = run([http_adds(c) for c in range(args.clients)], args.clients)
        out["http_add_retries_after_deadlock"] = len(retries)
        out["http_retrieve"] = run([http_retrieves(c) for c in range(args.clients)], args.clients)

        def local(kind: str):
            lat = []
            for i in range(args.n * 2):
                t = time.perf_counter()
                if kind == "add":
                    g.add({"content": f"In-process bench memory {i}: cache warm-up took {i} seconds.",
                           "namespace": ns, "source": "bench"})
                else:
                    g.retrieve(f"cache warm-up {i}", k=5, namespace=ns)
                lat.append(time.perf_counter() - t)
            return [lat]

        out["inprocess_add"] = run([lambda: local("add")[0]], 1)
        out["inprocess_retrieve"] = run([lambda: local("retrieve")[0]], 1)
    out["load_after"] = os.getloadavg()
    out["note"] = "2 shared cores with other jobs running; figures are upper bounds on latency, not capacity"
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2))
    for key in ("http_add", "http_add_retries_after_deadlock", "http_retrieve", "inprocess_add", "inprocess_retrieve"):
        print(f"{key:20s} {out[key]}")
    print(f"load {out['load_before']} -> {out['load_after']}; saved {RESULTS}")


if __name__ == "__main__":
    main()

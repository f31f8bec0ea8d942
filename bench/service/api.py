"""HTTP API under load (issues 16, 30), through uvicorn on 127.0.0.1 and a real Neo4j.

1. Mixed load (issue 30): for each of --mix-clients (1, 8, 32) concurrent writers, --seconds of
   requests mixing add, batch, PATCH, link, access, retrieve (recorded as co-access) and search
   over shared memories (so writers contend for the same nodes); per verb: requests, statuses,
   p50/p95; afterwards every 2xx write is checked in the store (each added memory with its
   versions, each edit's version, each link's edge, each access's session). Goal: 0 responses
   5xx, 0 missing writes. A client does not retry: a 503 is counted as the caller would see it.
2. Throughput of add and retrieve alone with --clients clients, --n requests each, next to the
   same calls in-process (the baseline, measured in the same run).

Uses the Neo4j of $NEO4J_URI and a fresh namespace (it writes memories there; graphcons never
deletes).

    NEO4J_URI=... NEO4J_PASSWORD=... python -m bench.service.api [--seconds 60] [--mix-clients 1,8,32]

Prints a summary and saves bench/service/results/api.json (with the command and the machine's load).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
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


VERBS = ("add", "batch", "patch", "link", "access", "retrieve", "search")
TOPICS = ["checkout 503 after deploy", "payments pool exhausted", "VPN drops at night", "cache cold after restart",
          "queue latency doubled", "disk full on db", "certificate expired", "rollback took long"]


class Mixed:
    """One mixed-load run: `clients` threads, each its own HTTP client, for `seconds`."""

    def __init__(self, srv, token: str, ns: str, shared: list[str], clients: int, seconds: float):
        self.srv, self.token, self.ns, self.clients, self.seconds = srv, token, ns, clients, seconds
        self.shared = list(shared)
        self.lock = threading.Lock()
        self.lat: dict[str, list[float]] = collections.defaultdict(list)
        self.statuses: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.examples_5xx: list[str] = []
        self.added: list[str] = []
        self.edits: list[tuple[str, int]] = []
        self.links: list[tuple[str, str]] = []
        self.accesses: list[str] = []

    def _ids(self, c: int, i: int, n: int) -> list[str]:
        with self.lock:
            pool = self.shared + self.added[-200:]
        return list(dict.fromkeys(pool[(c * 7 + i * 3 + j * 11) % len(pool)] for j in range(n)))

    def _memory(self, c: int, i: int, j: int = 0) -> dict:
        topic = TOPICS[(c + i + j) % len(TOPICS)]
        return {"content": f"Load {self.clients}/{c}/{i}/{j}: {topic}, seen by client {c} at step {i}.",
                "subject": topic.split()[0]}

    def _request(self, client, verb: str, c: int, i: int, pair: tuple = ()):
        if verb == "add":
            return client.post("/v1/memories", json=self._memory(c, i))
        if verb == "batch":
            return client.post("/v1/memories/batch", json={"memories": [self._memory(c, i, j) for j in range(3)]})
        if verb == "patch":
            mid = self._ids(c, i, 1)[0]
            return client.patch(f"/v1/memories/{mid}", json={"content": f"Edited by {c} at {i}: {TOPICS[i % 8]}."})
        if verb == "link":
            a, b = pair
            return client.post(f"/v1/memories/{a}/links", json={"target": b, "kind": "related"})
        if verb == "access":
            return client.post("/v1/access", json={"session": f"load-{c}-{i // 10}", "ids": self._ids(c, i, 3)})
        if verb == "retrieve":
            return client.post("/v1/retrieve", json={"query": TOPICS[(c + i) % 8], "k": 5, "session": f"r-{c}"})
        return client.get("/v1/search", params={"text": TOPICS[(c * 3 + i) % 8].split()[0], "k": 5})

    def _record(self, verb: str, r, req_ids: tuple) -> None:
        data = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
        with self.lock:
            if verb == "add":
                self.added.append(data["id"])
            elif verb == "batch":
                self.added += [x["id"] for x in data["results"]]
            elif verb == "patch":
                self.edits.append((data["id"], data["version"]))
            elif verb == "link":
                self.links.append(req_ids)
            elif verb == "access":
                self.accesses.append(data["session"])

    def client_loop(self, c: int) -> None:
        client = self.srv.client(self.token)
        deadline = time.monotonic() + self.seconds
        i = 0
        while time.monotonic() < deadline:
            verb = VERBS[(c + i) % len(VERBS)]
            req = self._request_with_ids(client, verb, c, i)
            t, (r, ids) = time.perf_counter(), (None, ())
            try:
                r, ids = req()
            except Exception as exc:  # a transport failure is a failed request too
                with self.lock:
                    self.statuses[verb]["transport_error"] += 1
                    self.examples_5xx.append(f"{verb}: {type(exc).__name__}: {exc}"[:200])
                i += 1
                continue
            with self.lock:
                self.lat[verb].append(time.perf_counter() - t)
                self.statuses[verb][r.status_code] += 1
                if r.status_code >= 500:
                    self.examples_5xx.append(f"{verb} {r.status_code}: {r.text[:160]}")
            if r.status_code < 300:
                self._record(verb, r, ids)
            i += 1

    def _request_with_ids(self, client, verb: str, c: int, i: int):
        def go():
            pair = tuple((self._ids(c, i, 2) * 2)[:2]) if verb == "link" else ()
            return self._request(client, verb, c, i, pair), pair
        return go

    def run(self) -> dict:
        start = time.perf_counter()
        threads = [threading.Thread(target=self.client_loop, args=(c,)) for c in range(self.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - start
        verbs = {v: {**figures(self.lat[v], wall), "statuses": {str(k): n for k, n in sorted(self.statuses[v].items(),
                                                                                              key=str)}}
                 for v in VERBS if self.lat[v]}
        total = sum(sum(c.values()) for c in self.statuses.values())
        fivexx = sum(n for c in self.statuses.values() for k, n in c.items() if k == "transport_error" or k >= 500)
        return {"clients": self.clients, "seconds": round(wall, 1), "requests": total,
                "per_s": round(total / wall, 1), "responses_5xx": fivexx, "verbs": verbs,
                "examples_5xx": self.examples_5xx[:5]}

    def verify(self, g) -> dict:
        """Every 2xx write present afterwards."""
        ids = sorted(set(self.added))
        found = g.db.run_text("UNWIND $ids AS id MATCH (m:Memory {id: id}) "
                              "WHERE COUNT { (m)-[:VERSION]->(:MemoryVersion) } >= m.version "
                              "RETURN count(m) AS n", ids=ids)[0]["n"]
        edits = g.db.run_text("UNWIND $rows AS row MATCH (:Memory {id: row[0]})-[:VERSION]->(v:MemoryVersion) "
                              "WHERE v.version = row[1] RETURN count(DISTINCT row) AS n",
                              rows=[list(e) for e in set(self.edits)])[0]["n"]
        pairs = sorted({(a, b) for a, b in self.links if a != b})
        linked = g.db.run_text("UNWIND $rows AS row MATCH (:Memory {id: row[0]})-[:LINKED]->(:Memory {id: row[1]}) "
                               "RETURN count(DISTINCT row) AS n", rows=[list(p) for p in pairs])[0]["n"]
        sessions = sorted(set(self.accesses))
        used = g.db.run_text("UNWIND $ids AS id MATCH (s:Session {id: id})-[:USED]->() RETURN count(DISTINCT s) AS n",
                             ids=sessions)[0]["n"]
        return {"memories_2xx": len(ids), "memories_missing": len(ids) - found,
                "edits_2xx": len(set(self.edits)), "edits_missing": len(set(self.edits)) - edits,
                "links_2xx": len(pairs), "links_missing": len(pairs) - linked,
                "sessions_2xx": len(sessions), "sessions_missing": len(sessions) - used}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--mix-clients", default="1,8,32", help="comma-separated client counts of the mixed load")
    ap.add_argument("--skip-throughput", action="store_true", help="only the mixed load")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--note", default="2 shared cores", help="what else ran on the machine, saved with the figures")
    args = ap.parse_args()
    cfg = load_config()
    ns = f"bench-{uuid.uuid4().hex[:8]}"
    out = {"benchmark": "api", "command": " ".join([Path(sys.executable).name, *sys.argv]),
           "load_before": os.getloadavg(), "clients": args.clients, "n_per_client": args.n, "namespace": ns,
           "note": args.note}
    retries: list[int] = []
    with Graphcons(cfg) as g, Server(cfg) as srv:
        token, _ = g.create_token(f"bench-{ns}", [ns], "writer", by="bench")
        shared = [g.add({"content": f"Shared memory {i}: {TOPICS[i % 8]} (load bench seed).", "namespace": ns,
                         "subject": TOPICS[i % 8].split()[0], "source": "bench"}).id for i in range(24)]
        out["mixed"] = []
        for n in [int(x) for x in args.mix_clients.split(",") if x]:
            mixed = Mixed(srv, token, ns, shared, n, args.seconds)
            run_out = mixed.run()
            run_out["written"] = mixed.verify(g)
            run_out["load_after"] = os.getloadavg()
            out["mixed"].append(run_out)
            w = run_out["written"]
            print(f"mixed {n:>2} clients: {run_out['requests']} requests, {run_out['per_s']}/s, "
                  f"5xx {run_out['responses_5xx']}, missing writes "
                  f"{w['memories_missing'] + w['edits_missing'] + w['links_missing'] + w['sessions_missing']}", flush=True)
        if args.skip_throughput:
            out["load_after"] = os.getloadavg()
            _save(out, args.out)
            return

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
    _save(out, args.out)
    for key in ("http_add", "http_add_retries_after_deadlock", "http_retrieve", "inprocess_add", "inprocess_retrieve"):
        print(f"{key:20s} {out[key]}")
    print(f"load {out['load_before']} -> {out['load_after']}; saved {args.out}")


def _save(out: dict, path: Path) -> None:
    out.setdefault("note", "")
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

"""Neo4j stopped and started under a running HTTP service (issue 30, defect 3): how long
/healthz, a write and a read take to answer while the server is down, what they say, and
whether the same service answers again once the server is back, without a restart.

It STOPS and STARTS the local server of scripts/neo4j ($GRAPHCONS_NEO4J_HOME, bolt port
$GRAPHCONS_NEO4J_BOLT_PORT): run it against your own server only.

    python -m bench.service.outage [--rounds 3]

Baseline, same run: the driver's own managed transaction with its default retry policy (what
graphcons used before: `driver.execute_query`, retried for up to 30 s) against the stopped server.
Saves bench/service/results/outage.json (with the command and the load).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import neo4j

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from service_helpers import Server  # noqa: E402

from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402

ADDRESS = re.compile(r"127\.0\.0\.1|localhost|:\d{4,5}\b|bolt|neo4j://")


def neo4j_ctl(action: str) -> float:
    t0 = time.monotonic()
    subprocess.run([str(ROOT / "scripts" / "neo4j"), action], check=True, capture_output=True)
    return round(time.monotonic() - t0, 2)


def timed(call) -> dict:
    t0 = time.monotonic()
    resp = call()
    body = resp.json() if resp.headers.get("content-type", "").startswith("application/json") else {}
    msg = body.get("message", "") if isinstance(body, dict) else ""
    return {"status": resp.status_code, "seconds": round(time.monotonic() - t0, 3), "message": msg,
            "names_an_address": bool(ADDRESS.search(msg))}


def legacy_wait(cfg) -> float:
    """The old path: the driver's managed transaction with its default retry (30 s)."""
    driver = neo4j.GraphDatabase.driver(cfg.neo4j.uri, auth=(cfg.neo4j.user, cfg.neo4j.resolved_password()))
    t0 = time.monotonic()
    try:
        driver.execute_query("RETURN gds.version() AS v", database_=cfg.neo4j.database)
    except Exception:
        pass
    driver.close()
    return round(time.monotonic() - t0, 2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    load = os.getloadavg()
    cfg = load_config()
    with Graphcons(cfg) as g:
        g.init()
        token = g.create_token(f"outage-{int(time.time())}", ["outage"], "writer")[0]
    rounds = []
    with Server(cfg) as srv, srv.client(token) as c:
        assert c.get("/healthz").status_code == 200
        for r in range(args.rounds):
            up = {"healthz": timed(lambda: c.get("/healthz")),
                  "write": timed(lambda: c.post("/v1/memories", json={"content": f"outage bench round {r} before",
                                                                    "subject": "outage"}))}
            stop_s = neo4j_ctl("stop")
            down = {"healthz": timed(lambda: c.get("/healthz")),
                    "write": timed(lambda: c.post("/v1/memories", json={"content": f"outage bench round {r} down",
                                                                      "subject": "outage"})),
                    "read": timed(lambda: c.get("/v1/search", params={"text": "outage"}))}
            legacy = legacy_wait(cfg) if r == 0 else None
            start_s = neo4j_ctl("start")
            back = {"healthz": timed(lambda: c.get("/healthz")),
                    "write": timed(lambda: c.post("/v1/memories", json={"content": f"outage bench round {r} back",
                                                                      "subject": "outage"}))}
            rounds.append({"round": r, "up": up, "stop_s": stop_s, "down": down, "start_s": start_s,
                           "back_without_restart": back, "legacy_execute_query_down_s": legacy})
            print(json.dumps(rounds[-1]), flush=True)
    down_times = [d["down"][k]["seconds"] for d in rounds for k in ("healthz", "write", "read")]
    result = {
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": "python -m bench.service.outage " + " ".join(sys.argv[1:]),
        "load_before": load, "load_after": os.getloadavg(), "note": "2 cores shared by 9 Neo4j servers and their tests",
        "settings": cfg.neo4j.model_dump(include={"connection_timeout_s", "acquisition_timeout_s",
                                                  "unavailable_retry_s", "retry_s"}),
        "target": "Neo4j stopped: 503 within 2 s on /healthz and a write; started again: next request succeeds",
        "summary": {
            "down_max_s": max(down_times),
            "down_all_503": all(d["down"][k]["status"] == 503 for d in rounds for k in ("healthz", "write", "read")),
            "down_any_address": any(d["down"][k]["names_an_address"] for d in rounds for k in ("healthz", "write", "read")),
            "back_all_ok": all(d["back_without_restart"]["healthz"]["status"] == 200
                               and d["back_without_restart"]["write"]["status"] in (200, 201) for d in rounds),
            "legacy_execute_query_down_s": rounds[0]["legacy_execute_query_down_s"] if rounds else None,
        },
        "rounds": rounds,
    }
    out = ROOT / "bench" / "service" / "results" / "outage.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"]))


if __name__ == "__main__":
    main()

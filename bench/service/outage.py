"""Neo4j stopped and started under load (issue 30 defect 3, issue 50 item 7, issue 59): 8 HTTP clients and
1 MCP client (streamable HTTP, one session held throughout) call a running service while Neo4j is
stopped and started again, twice, and the run reports issue 59's done-when figures:

- responses >= 500 other than 503 (must be 0), over HTTP and MCP;
- refused writes that landed (must be 0): every write carries its own text, and each one answered
  503 "nothing of this request was written" is looked up in the store afterwards; every 2xx write
  must be there (acknowledged writes lost, also 0);
- seconds from Neo4j ready (`scripts/neo4j start` returned) to the first 200 of a request sent after
  it (target <= 10 s), per round;
- the MCP session: its calls during the outage answer the `unavailable` tool error (no HTTP 404
  "session not found"), and the same session answers after it.

Also per round, one request of each kind just after the stop (healthz, a write, a read): 503 within 2 s
naming no server address.

It STOPS and STARTS the local server of scripts/neo4j ($GRAPHCONS_NEO4J_HOME, bolt port
$GRAPHCONS_NEO4J_BOLT_PORT): run it against your own server only.

    python -m bench.service.outage [--rounds 2] [--clients 8] [--down-s 10] [--after-s 30]

Saves bench/service/results/outage.json (with the command and the host's load: the machine may be shared).
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

import httpx
import uvicorn

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from service_helpers import Server, free_port  # noqa: E402

from graphcons.access.holder import Store  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402
from graphcons.mcp.server import build_server  # noqa: E402

ADDRESS = re.compile(r"127\.0\.0\.1|localhost|:\d{4,5}\b|bolt|neo4j://")
NOTHING = "nothing of this request was written"
NAMESPACE = "outage"


@dataclass
class Answer:
    client: str  # http-N or mcp
    kind: str  # write, retrieve, search, context, recall
    sent: float  # monotonic
    done: float
    status: int  # HTTP status
    error: str = ""  # the body's error name, or the MCP tool error's first word
    text: str = ""  # a write's content (looked up afterwards)
    nothing_written: bool = False  # the 503 said nothing of the request was written
    message: str = ""  # the error's text, cut


def neo4j_ctl(action: str) -> float:
    t0 = time.monotonic()
    subprocess.run([str(ROOT / "scripts" / "neo4j"), action], check=True, capture_output=True)
    return time.monotonic() - t0


def timed(call) -> dict:
    t0 = time.monotonic()
    resp = call()
    body = resp.json() if resp.headers.get("content-type", "").startswith("application/json") else {}
    msg = body.get("message", "") if isinstance(body, dict) else ""
    return {"status": resp.status_code, "seconds": round(time.monotonic() - t0, 3),
            "names_an_address": bool(ADDRESS.search(msg))}


def http_client(n: int, client: httpx.Client, answers: list[Answer], stop: threading.Event, run: int) -> None:
    """One of the 8 clients: a write, then a read of each kind, in turn. Each write's text is its own
    (client, call and run), so a refused one found in the store afterwards landed."""
    for i in itertools.count():
        if stop.is_set():
            return
        kind = ("write", "retrieve", "write", "search", "write", "context")[i % 6]
        text = f"Outage bench run {run} client {n} call {i}: checkout deploys need a warm cache."
        sent = time.monotonic()
        try:
            if kind == "write":
                r = client.post("/v1/memories", json={"content": text, "subject": f"client-{n}"})
            elif kind == "retrieve":
                r = client.post("/v1/retrieve", json={"query": "checkout warm cache", "k": 5})
            elif kind == "search":
                r = client.get("/v1/search", params={"text": "cache", "k": 5})
            else:
                r = client.post("/v1/context", json={"query": "checkout deploys", "budget_words": 100})
        except httpx.HTTPError as exc:  # no answer at all: counted as a failure
            answers.append(Answer(f"http-{n}", kind, sent, time.monotonic(), 0, type(exc).__name__))
            continue
        body = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
        msg = body.get("message", "") if isinstance(body, dict) else ""
        answers.append(Answer(f"http-{n}", kind, sent, time.monotonic(), r.status_code,
                              body.get("error", "") if isinstance(body, dict) else "",
                              text if kind == "write" else "", NOTHING in msg, msg[:160]))
        time.sleep(0.05)


class Mcp:
    """The MCP server over streamable HTTP in a thread, and one raw JSON-RPC session on it (raw, so an
    HTTP 404 "session not found" is seen as such: the SDK's client would open a new session instead)."""

    def __init__(self, cfg, token: str):
        self.store = Store(cfg)
        self.port = free_port()
        app = build_server(self.store, transport="streamable-http", port=self.port).streamable_http_app()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
                        "Content-Type": "application/json"}
        self.session: str | None = None
        self.sessions: set[str] = set()

    def __enter__(self) -> "Mcp":
        self.thread.start()
        while not self.server.started:
            time.sleep(0.05)
        hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "outage-bench", "version": "1"}}}
        r = httpx.post(self.url, json=hello, headers=self.headers, timeout=120)
        self.session = r.headers["mcp-session-id"]
        self.sessions.add(self.session)
        httpx.post(self.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, timeout=60,
                   headers={**self.headers, "Mcp-Session-Id": self.session})
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.store.close()

    def call(self, n: int, name: str, arguments: dict) -> tuple[int, str, str]:
        """(HTTP status, "" for a result or the tool error's first word, its text) of one call on the session."""
        body = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        r = httpx.post(self.url, json=body, headers={**self.headers, "Mcp-Session-Id": self.session}, timeout=120)
        if r.status_code != 200:
            return r.status_code, "", r.text[:200]
        data = [line[5:] for line in r.text.splitlines() if line.startswith("data:")] or [r.text]
        result = json.loads(data[-1]).get("result") or {}
        if not result.get("isError"):
            return 200, "", ""
        text = result["content"][0]["text"].split(": ", 1)[-1]  # after "Error executing tool x"
        return 200, text.split(":", 1)[0], text

    def client(self, answers: list[Answer], stop: threading.Event, run: int) -> None:
        for i in itertools.count(1):
            if stop.is_set():
                return
            name = "recall" if i % 2 else "remember"
            text = f"Outage bench run {run} MCP call {i}: deploys are frozen on Fridays."
            args = {"query": "deploys frozen", "k": 3} if name == "recall" else {"content": text, "subject": "mcp"}
            sent = time.monotonic()
            try:
                status, error, said = self.call(i, name, args)
            except httpx.HTTPError as exc:
                status, error, said = 0, type(exc).__name__, ""
            answers.append(Answer("mcp", name, sent, time.monotonic(), status, error,
                                  text if name == "remember" else "", NOTHING in said, said[:160]))
            time.sleep(0.2)


def landed(g: Graphcons, texts: list[str]) -> set[str]:
    rows = g.db.run_text("MATCH (m:Memory {namespace: $ns}) WHERE m.content IN $texts RETURN m.content AS c",
                         ns=NAMESPACE, texts=texts)
    return {r["c"] for r in rows}


def figures(answers: list[Answer], rounds: list[dict], g: Graphcons) -> dict:
    bad = [a for a in answers if a.status >= 500 and a.status != 503 or a.status == 0]
    refused = [a.text for a in answers if a.text and a.nothing_written]
    acknowledged = [a.text for a in answers if a.text and (200 <= a.status < 300 and not a.error)]
    refused_landed = landed(g, refused) if refused else set()
    t0 = rounds[0]["stopping_at"] if rounds else 0.0
    landed_examples = [{**asdict(a), "sent": round(a.sent - t0, 2), "done": round(a.done - t0, 2)}
                       for a in answers if a.text in refused_landed][:10]
    lost = set(acknowledged) - (landed(g, acknowledged) if acknowledged else set())
    recovery, recovery_sent_after, last_503 = [], [], []
    for r, nxt in zip(rounds, [*rounds[1:], None]):  # the HTTP clients' answers from ready to the next stop
        until = nxt["stopping_at"] if nxt else float("inf")
        http = [a for a in answers if a.client != "mcp" and r["ready_at"] <= a.done < until]
        ok = [a.done for a in http if 200 <= a.status < 300]
        recovery.append(round(min(ok) - r["ready_at"], 2) if ok else None)
        sent_after = [a.done for a in http if a.sent >= r["ready_at"] and 200 <= a.status < 300]
        recovery_sent_after.append(round(min(sent_after) - r["ready_at"], 2) if sent_after else None)
        late = [a.done for a in http if a.status == 503]
        last_503.append(round(max(late) - r["ready_at"], 2) if late else None)
    mcp = [a for a in answers if a.client == "mcp"]
    during = [a for a in mcp for r in rounds if r["stopped_at"] <= a.sent and a.done <= r["ready_at"]]
    last = [a for a in mcp if a.sent > rounds[-1]["ready_at"]][-3:] if rounds else []  # the run's last calls
    return {
        "responses": len(answers), "writes": sum(a.kind in ("write", "remember") for a in answers),
        "status_counts": {str(s): sum(a.status == s for a in answers) for s in sorted({a.status for a in answers})},
        "errors_500_other_than_503": len(bad),
        "errors_500_other_than_503_examples": [asdict(a) for a in bad[:5]],
        "refused_writes": len(refused), "refused_writes_that_landed": len(refused_landed),
        "refused_writes_that_landed_examples": landed_examples,  # seconds after the first stop began
        "acknowledged_writes": len(acknowledged), "acknowledged_writes_lost": len(lost),
        "seconds_from_ready_to_first_200": recovery,
        "seconds_from_ready_to_first_200_of_a_request_sent_after_ready": recovery_sent_after,
        "seconds_from_ready_to_last_503": last_503,
        "recovery_within_10_s": all(s is not None and s <= 10 for s in recovery),
        "mcp_calls_during_outage": len(during),
        "mcp_during_outage_unavailable": sum(a.status == 200 and a.error == "unavailable" for a in during),
        "mcp_during_outage_other": [(a.status, a.error) for a in during
                                    if not (a.status == 200 and a.error == "unavailable")][:10],
        "mcp_http_404": sum(a.status == 404 for a in mcp),
        "mcp_same_session_works_after": bool(last) and all(a.status == 200 and not a.error for a in last),
        "mcp_calls_after_recovery_checked": len(last),
    }


def outage_round(r: int, probe: httpx.Client, stamp: int, args: argparse.Namespace) -> dict:
    """Stop Neo4j (one request of each kind right after), keep it down, start it, then load for after_s."""
    stopping_at = time.monotonic()
    stop_s = neo4j_ctl("stop")
    stopped_at = time.monotonic()
    down = {"healthz": timed(lambda: probe.get("/healthz")),
            "write": timed(lambda: probe.post("/v1/memories", json={"content": f"outage probe {stamp} {r}"})),
            "read": timed(lambda: probe.get("/v1/search", params={"text": "outage"}))}
    time.sleep(max(0.0, args.down_s - (time.monotonic() - stopped_at)))
    start_s = neo4j_ctl("start")
    ready_at = time.monotonic()
    out = {"round": r, "stop_s": round(stop_s, 1), "start_s": round(start_s, 1), "down": down,
           "stopping_at": stopping_at, "stopped_at": stopped_at, "ready_at": ready_at}
    print(json.dumps({k: v for k, v in out.items() if not k.endswith("_at")}), flush=True)
    time.sleep(args.after_s)
    return out


def under_load(cfg, token: str, stamp: int, args: argparse.Namespace) -> tuple[list[Answer], list[dict], bool]:
    """The clients calling throughout the rounds: (their answers, the rounds, one MCP session throughout)."""
    answers: list[Answer] = []
    stop = threading.Event()
    with Server(cfg) as srv, Mcp(cfg, token) as mcp:
        clients = [srv.client(token) for _ in range(args.clients + 1)]
        assert clients[0].get("/healthz").status_code == 200
        threads = [threading.Thread(target=http_client, args=(n, c, answers, stop, stamp), daemon=True)
                   for n, c in enumerate(clients[1:])]
        threads.append(threading.Thread(target=mcp.client, args=(answers, stop, stamp), daemon=True))
        for t in threads:
            t.start()
        time.sleep(10)  # warm, under load
        rounds = [outage_round(r, clients[0], stamp, args) for r in range(args.rounds)]
        stop.set()
        for t in threads:
            t.join(timeout=180)
        for c in clients:
            c.close()
        return answers, rounds, mcp.sessions == {mcp.session}


def main() -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--down-s", type=float, default=10.0, help="seconds Neo4j stays stopped under load")
    ap.add_argument("--after-s", type=float, default=30.0, help="seconds of load after each start")
    args = ap.parse_args()
    load = os.getloadavg()
    cfg = load_config()
    g = Graphcons(cfg)
    g.init()
    stamp = int(time.time())
    token = g.create_token(f"outage-{stamp}", [NAMESPACE], "writer")[0]
    answers, rounds, same_session = under_load(cfg, token, stamp, args)
    summary = figures(answers, rounds, g)
    summary["mcp_one_session_throughout"] = same_session
    summary["down_503_within_2_s"] = all(d["down"][k]["status"] == 503 and d["down"][k]["seconds"] < 2
                                         for d in rounds for k in ("healthz", "write", "read"))
    summary["down_any_address"] = any(d["down"][k]["names_an_address"] for d in rounds for k in d["down"])
    g.close()
    result = {
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": "python -m bench.service.outage " + " ".join(sys.argv[1:]),
        "load_before": load, "load_after": os.getloadavg(),
        "note": "2 cores shared with other Neo4j servers and test runs (see the load figures)",
        "settings": cfg.neo4j.model_dump(include={"connection_timeout_s", "acquisition_timeout_s",
                                                  "unavailable_retry_s", "retry_s"}),
        "target": "0 responses >= 500 but 503; 0 refused writes landed; first 200 within 10 s of Neo4j ready; "
                  "the MCP session answers `unavailable` during the outage and works after",
        "summary": summary,
        "rounds": [{**{k: v for k, v in r.items() if not k.endswith("_at")},
                    **{k: round(v - rounds[0]["stopping_at"], 1) for k, v in r.items() if k.endswith("_at")}}
                   for r in rounds],
    }
    out = ROOT / "bench" / "service" / "results" / "outage.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()

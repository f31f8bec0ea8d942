"""Requests that reach the store (issue 30): hypothesis strategies for every route of the HTTP API
and every role, most of them valid (real ids from the store, values the request models accept),
the rest one mutation away from valid (a lower role, another namespace, an unknown id, a bad
value, junk where a field goes, NUL bytes, Cypher fragments). Shared by tests/test_service_fuzz.py
(a short run) and bench/service/fuzz.py (10,000 cases).

    Fuzz(g, server, namespace).run(case)  sends one drawn case, checks it, updates the pools
    invariants(g)                         the store's invariants after a run (empty: all hold)
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
from hypothesis import strategies as st
from service_helpers import counts

CYPHER = ["'}) DETACH DELETE n //", "\") MATCH (n) DETACH DELETE n RETURN 1 //", "$content",
          "MATCH (m:Memory) SET m.status = 'archived'", "'; CALL dbms.shutdown(); //"]
WORDS = ["deploy", "checkout", "503", "cache", "payments", "database", "pool", "nightly", "batch", "VPN",
         "timeout", "queue", "latency", "upgrade", "rollback", "incident", "Friday", "freeze", "disk", "alert"]
JOBS = ("scan", "merge", "decay", "promote", "deprecate", "consolidate", "updates", "cards")
ROLES = ("reader", "writer", "reviewer", "admin")

sentences = st.lists(st.sampled_from(WORDS), min_size=3, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")
junk_text = st.one_of(st.text(max_size=40), st.sampled_from(CYPHER + ["", "   ", "\x00", "a\x00b", "\ud800x"]))
junk = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | junk_text,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=6)
dates = st.dates().map(lambda d: f"{d.isoformat()}T10:00:00+00:00")
pick = st.integers(0, 10**6)  # an index into a pool, resolved when the case is sent


@dataclass
class Case:
    """One request to send: `route` names the generator; `valid` says whether it was drawn to pass."""

    route: str
    valid: bool
    role: str
    draw: dict[str, Any]
    mutation: str | None = None


MUTATIONS = ("role", "namespace", "unknown_id", "junk_field", "extra_field", "nul", "cypher", "blank")


def _memory(draw) -> dict[str, Any]:
    body: dict[str, Any] = {"content": draw(sentences) + f" #{draw(st.integers(0, 10**9))}"}
    if draw(st.booleans()):
        body["subject"] = draw(st.sampled_from(["checkout", "payments", "vpn"]))
    if draw(st.integers(0, 4)) == 0:
        body["title"] = draw(sentences)
    if draw(st.integers(0, 4)) == 0:
        body["created_at"] = draw(dates.filter(lambda s: "1970" <= s[:4] < "2100"))
    if draw(st.integers(0, 4)) == 0:
        body["session"] = f"s{draw(st.integers(0, 5))}"
    if draw(st.integers(0, 5)) == 0:
        body["id"] = f"fz-{draw(st.integers(0, 10**9))}"
    if draw(st.integers(0, 3)) == 0:
        body["links"] = [{"target": ("pool", draw(pick)), "kind": draw(st.sampled_from(["related", "caused_by"]))}]
    return body


ROUTES: dict[str, tuple[str, int]] = {  # route -> (minimum role, weight)
    "add": ("writer", 10), "batch": ("writer", 5), "get": ("reader", 6), "history": ("reader", 3),
    "explain": ("reader", 2), "edit": ("writer", 6), "link": ("writer", 5), "access": ("writer", 6),
    "retrieve": ("reader", 6), "search": ("reader", 5), "proposals": ("reader", 2), "proposal": ("reader", 2),
    "approve": ("reviewer", 2), "reject": ("reviewer", 2), "revert": ("reviewer", 1), "clusters": ("reader", 1),
    "health": ("admin", 1), "stats": ("admin", 1), "job": ("admin", 1), "tokens": ("admin", 1),
    "token_create": ("admin", 1), "token_revoke": ("admin", 1), "healthz": ("reader", 1),
}


@st.composite
def cases(draw) -> Case:
    route = draw(st.sampled_from([r for r, (_, w) in ROUTES.items() for _ in range(w)]))
    valid = draw(st.integers(0, 3)) > 0  # three in four drawn valid
    d: dict[str, Any] = {"id": draw(pick), "target": draw(pick), "k": draw(st.integers(1, 20)),
                         "memory": _memory(draw), "text": draw(sentences)}
    if route == "batch":
        d["memories"] = [_memory(draw) for _ in range(draw(st.integers(1, 4)))]
    if route == "edit":
        d["changes"] = draw(st.sampled_from([{"content": draw(sentences)}, {"title": draw(sentences)},
                                             {"importance": draw(st.floats(0, 1))}, {"scope": "team"}]))
    if route == "access":
        d["ids"] = draw(st.lists(pick, min_size=1, max_size=5))
    if route == "job":
        d["job"], d["dry_run"] = draw(st.sampled_from(JOBS)), draw(st.integers(0, 4)) > 0
    if route == "token_create":
        d["role"] = draw(st.sampled_from(ROLES))
    minimum = ROUTES[route][0]
    role = draw(st.sampled_from(ROLES[ROLES.index(minimum):]))
    mutation = None
    if not valid:
        mutation = draw(st.sampled_from(MUTATIONS))
        d["junk"] = draw(junk)
        d["junk_text"] = draw(junk_text)
        if mutation == "role" and minimum != "reader":
            role = draw(st.sampled_from(ROLES[:ROLES.index(minimum)]))
    return Case(route, valid, role, d, mutation)


@dataclass
class Fuzz:
    """Sends cases as the four roles of `namespace` (admin over every namespace: jobs, health and
    stats need it) plus a writer of another namespace; keeps pools of the ids it created."""

    g: Any
    server: Any
    namespace: str
    memories: list[str] = field(default_factory=list)
    proposals: list[str] = field(default_factory=list)
    spare_tokens: list[str] = field(default_factory=list)
    statuses: collections.Counter = field(default_factory=collections.Counter)
    by_route: dict[str, collections.Counter] = field(default_factory=lambda: collections.defaultdict(collections.Counter))
    errors_500: list[str] = field(default_factory=list)
    refused_writes: list[str] = field(default_factory=list)
    drawn_valid: int = 0

    def __post_init__(self) -> None:
        ns = self.namespace
        self.clients = {r: self.server.client(self.g.create_token(f"fz-{r}-{ns}", ["*" if r == "admin" else ns], r,
                                                                  by="fuzz")[0]) for r in ROLES}
        self.outsider = self.server.client(self.g.create_token(f"fz-out-{ns}", [f"{ns}-other"], "writer", by="fuzz")[0])
        rows = self.g.db.run_text("MATCH (m:Memory {namespace: $ns}) RETURN m.id AS id ORDER BY id", ns=ns)
        self.memories = [r["id"] for r in rows]
        rows = self.g.db.run_text("MATCH (p:Proposal) WHERE p.namespace = $ns OR $ns IN p.namespaces "
                                  "RETURN p.id AS id ORDER BY id", ns=ns)
        self.proposals = [r["id"] for r in rows]
        self._before = counts(self.g)

    def _mem(self, i: int) -> str:
        return self.memories[i % len(self.memories)] if self.memories else "m-none"

    def _prop(self, i: int) -> str:
        return self.proposals[i % len(self.proposals)] if self.proposals else "p-none"

    def _resolve(self, body: dict[str, Any]) -> dict[str, Any]:
        out = dict(body)
        if "links" in out:
            out["links"] = [{**ln, "target": self._mem(ln["target"][1])} for ln in out["links"]]
        return out

    def request(self, c: Case) -> tuple[str, str, dict[str, Any]]:
        d, ns = c.draw, self.namespace
        mid, pid = self._mem(d["id"]), self._prop(d["id"])
        routes: dict[str, tuple[str, str, dict[str, Any]]] = {
            "add": ("POST", "/v1/memories", {"json": self._resolve(d["memory"])}),
            "batch": ("POST", "/v1/memories/batch", {"json": {"memories": [self._resolve(x) for x in d.get("memories", [])]}}),
            "get": ("GET", f"/v1/memories/{mid}", {}),
            "history": ("GET", f"/v1/memories/{mid}/history", {}),
            "explain": ("GET", f"/v1/memories/{mid}/explain", {}),
            "edit": ("PATCH", f"/v1/memories/{mid}", {"json": d.get("changes", {"content": d["text"]})}),
            "link": ("POST", f"/v1/memories/{mid}/links", {"json": {"target": self._mem(d["target"]), "kind": "related"}}),
            "access": ("POST", "/v1/access", {"json": {"session": f"s{d['k'] % 4}",
                                                        "ids": [self._mem(i) for i in d.get("ids", [d["id"]])]}}),
            "retrieve": ("POST", "/v1/retrieve", {"json": {"query": d["text"], "k": d["k"]}}),
            "search": ("GET", "/v1/search", {"params": {"text": d["text"], "k": d["k"]}}),
            "proposals": ("GET", "/v1/proposals", {"params": {"limit": d["k"]}}),
            "proposal": ("GET", f"/v1/proposals/{pid}", {}),
            "approve": ("POST", f"/v1/proposals/{pid}/approve", {}),
            "reject": ("POST", f"/v1/proposals/{pid}/reject", {"json": {"reason": d["text"]}}),
            "revert": ("POST", f"/v1/proposals/{pid}/revert", {"json": {"reason": d["text"]}}),
            "clusters": ("GET", "/v1/clusters", {}),
            "health": ("GET", "/v1/health", {}),
            "stats": ("GET", "/v1/stats", {}),
            "job": ("POST", f"/v1/jobs/{d.get('job', 'scan')}", {"json": {"dry_run": d.get("dry_run", True),
                                                                         "namespace": ns} if d.get("job") in ("scan", "consolidate")
                                                                else {"dry_run": d.get("dry_run", True)}}),
            "tokens": ("GET", "/v1/tokens", {}),
            "token_create": ("POST", "/v1/tokens", {"json": {"name": f"spare-{d['id']}", "namespaces": [ns],
                                                             "role": d.get("role", "reader")}}),
            "token_revoke": ("POST", f"/v1/tokens/{self.spare_tokens[d['id'] % len(self.spare_tokens)] if self.spare_tokens else 't-none'}/revoke", {}),
            "healthz": ("GET", "/healthz", {}),
        }
        method, path, kw = routes[c.route]
        if c.valid or c.mutation == "role":
            return method, path, kw
        return self._mutate(c, method, path, kw)

    def _mutate(self, c: Case, method: str, path: str, kw: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
        d, m = c.draw, c.mutation
        body = kw.get("json")
        if m == "unknown_id" or (body is None and m not in ("namespace",)):
            if "/v1/memories/" in path or "/v1/proposals/" in path or "/revoke" in path:
                parts = path.split("/")
                parts[3] = f"nope-{d['id']}"
                return method, "/".join(parts), kw
            if body is not None and "ids" in body:
                return method, path, {"json": {**body, "ids": body["ids"] + [f"nope-{d['id']}"]}}
            if "params" in kw:
                return method, path, {"params": {**kw["params"], "k": d["junk_text"]}}
            return method, path, {"json": d["junk"]}
        if m == "namespace":
            if c.route in ("add", "batch", "retrieve", "job"):
                target = body.get("memories", [body])[0] if isinstance(body, dict) else {}
                target["namespace"] = f"{self.namespace}-other"
                return method, path, {"json": body}
            return method, path, {**kw, "_client": "outsider"}
        if body is None:
            return method, path, {"json": d["junk"]}
        body = dict(body)
        item = body["memories"][0] if "memories" in body and body["memories"] else body
        key = next((k for k in ("content", "query", "reason", "session", "name", "text", "target") if k in item),
                   next(iter(item), "x"))
        if m == "junk_field":
            item[key] = d["junk"]
        elif m == "extra_field":
            item["source" if c.route in ("add", "batch") else "surprise"] = d["junk_text"]
        elif m == "nul":
            item[key] = f"{item.get(key)}\x00"
        elif m == "cypher":
            item[key] = d["junk_text"] + CYPHER[d["id"] % len(CYPHER)]
        elif m == "blank":
            item[key] = "   "
        return method, path, {"json": body}

    def run(self, c: Case) -> int:
        method, path, kw = self.request(c)
        client = self.outsider if kw.pop("_client", None) == "outsider" else self.clients[c.role]
        if "json" in kw:  # JSON escapes (\ud800 stays an escape: httpx would fail to encode it as UTF-8)
            kw = {**kw, "content": json.dumps(kw.pop("json")).encode(), "headers": {"content-type": "application/json"}}
        if "params" in kw:  # percent-encoded by hand: a lone surrogate goes out as the invalid UTF-8 it would be
            query = "&".join(f"{quote(str(k))}={quote(str(v).encode('utf-8', 'surrogatepass'))}"
                             for k, v in kw.pop("params").items())
            path = f"{path}?{query}"
        try:
            r = client.request(method, path, **kw)
        except httpx.TransportError as exc:  # the server dropped or timed out: a failure, counted like a 5xx
            self.statuses["transport_error"] += 1
            self.by_route[c.route]["transport_error"] += 1
            self.errors_500.append(f"{method} {path}: {type(exc).__name__}: {exc}"[:300])
            return 599
        self.statuses[r.status_code] += 1
        self.by_route[c.route][r.status_code] += 1
        self.drawn_valid += c.valid
        after = counts(self.g)
        if r.status_code >= 500:
            self.errors_500.append(f"{method} {path} {kw!r:.200} -> {r.status_code} {r.text[:200]}")
        elif r.status_code >= 400 and _written(self._before, after):
            self.refused_writes.append(f"{method} {path} {kw!r:.200} -> {r.status_code}")
        self._before = after
        if r.status_code < 300:
            self._remember(c, r)
        return r.status_code

    def _remember(self, c: Case, r: Any) -> None:
        data = r.json()
        if c.route == "add":
            self.memories.append(data["id"])
        elif c.route == "batch":
            self.memories += [x["id"] for x in data["results"]]
        elif c.route == "token_create":
            self.spare_tokens.append(data["record"]["id"])

    def report(self) -> dict[str, Any]:
        total = sum(self.statuses.values())
        ok = sum(n for s, n in self.statuses.items() if isinstance(s, int) and s < 300)
        return {"cases": total, "drawn_valid": self.drawn_valid, "answered_2xx": ok,
                "answered_2xx_share": round(ok / total, 3) if total else 0,
                "statuses": {str(k): v for k, v in sorted(self.statuses.items(), key=str)},
                "by_route": {r: {str(k): v for k, v in sorted(c.items(), key=str)} for r, c in sorted(self.by_route.items())},
                "errors_500": len(self.errors_500), "writes_by_refused_requests": len(self.refused_writes),
                "examples_500": self.errors_500[:5], "examples_refused_writes": self.refused_writes[:5]}


def _written(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """A refused request wrote something: any count changed. A refused request still leaves its
    audit-free reads; token lookups write nothing."""
    return before != after


def invariants(g: Any) -> dict[str, int]:
    """Violations of the store's invariants (all zero when they hold)."""
    q = {
        # every memory has every version 1..version, once each
        "memories_missing_versions": "MATCH (m:Memory) OPTIONAL MATCH (m)-[:VERSION]->(v:MemoryVersion) "
                                     "WITH m, collect(DISTINCT v.version) AS vs "
                                     "WHERE size(vs) <> m.version OR NOT m.version IN vs RETURN count(m) AS n",
        # an applied consolidate proposal created its insight; an unapplied one created nothing live
        "applied_without_insight": "MATCH (p:Proposal {kind: 'consolidate', status: 'applied'}) "
                                   "WHERE NOT (p)-[:CREATED]->(:Memory) RETURN count(p) AS n",
        "unapplied_with_live_insight": "MATCH (p:Proposal {kind: 'consolidate'})-[:CREATED]->(i:Memory) "
                                       "WHERE p.status IN ['pending', 'rejected', 'stale'] AND i.status <> 'archived' "
                                       "RETURN count(p) AS n",
        # an insight's recorded provenance has its links (no dangling SUMMARIZES)
        "insights_missing_members": "MATCH (i:Memory {kind: 'insight'}) WHERE i.status IN ['active', 'proposed'] "
                                    "AND size(coalesce(i.summarizes, [])) > COUNT { (i)-[:SUMMARIZES]->() } "
                                    "RETURN count(i) AS n",
        # a SUPERSEDES edge that is not reverted leaves its loser retired
        "superseded_still_live": "MATCH (w:Memory)-[s:SUPERSEDES]->(l:Memory) WHERE coalesce(s.reverted, false) = false "
                                 "AND s.proposal IS NOT NULL AND l.status IN ['active', 'proposed'] RETURN count(l) AS n",
    }
    return {name: g.db.run_text(cypher)[0]["n"] for name, cypher in q.items()}


SEED = [  # two clusters worth a proposal each, and a few loners
    ("checkout", "Checkout returned 503 after deploy {n}; rolled back after 12 minutes.", "pagerduty"),
    ("checkout", "503s on checkout right after deploy {n}, cache was cold.", "oncall-ana"),
    ("checkout", "Deploy {n} went out and checkout served 503 after deploy for 8 minutes.", "oncall-bo"),
    ("checkout", "Again 503 after deploy {n} on checkout; warm the cache before switching traffic.", "pagerduty"),
    ("payments", "Payments database pool exhausted during nightly batch {n}.", "pagerduty"),
    ("payments", "Nightly batch {n} exhausted the payments database pool again.", "oncall-ana"),
    ("payments", "Payments database pool exhausted by nightly batch {n}.", "oncall-bo"),
    ("vpn", "The VPN dropped at 02:00 during maintenance window {n}.", "oncall-bo"),
]


def seed(g: Any, namespace: str, now: Any) -> int:
    """Memories and pending consolidate proposals in `namespace` (offline synthesis of each
    subject's memories), so that the review routes have real ids to act on; returns the number
    of proposals."""
    from graphcons.consolidation.cluster import Cluster

    groups: dict[str, list[str]] = {}
    for n, (subject, text, source) in enumerate(SEED):
        a = g.add({"content": text.format(n=n), "subject": subject, "source": source, "namespace": namespace,
                   "created_at": f"2026-11-{n + 1:02d}T10:00:00+00:00"})
        groups.setdefault(subject, []).append(a.id)
    made = 0
    for subject, ids in groups.items():
        if len(ids) >= 2:
            out = g.synthesize(Cluster(member_ids=tuple(sorted(ids)), namespace=namespace, subject=subject,
                                       figures={"size": len(ids), "cohesion": 0.9}), now=now)
            made += bool(out.proposal_id)
    return made

"""`graphcons benchmark`: the battery of named checks of seed 001 (and the guards of issue 4).

It seeds a small episode history in its own namespace (`graphcons-benchmark`, fixed ids, so
re-running reuses it: graphcons never deletes, and a second run finds the same memories),
runs the real pipeline on the connected store (scan -> gate -> offline synthesis ->
proposals -> approve -> explain -> precompute) and checks what a user would check. Run it
against a scratch database if you do not want its memories in yours; its syntheses count
toward the day's [consolidation] daily_cap.

Checks (seed 001's list first):
 1. related episodes cluster           (the deadline episodes form one accepted cluster)
 2. unrelated episodes split           (noise never joins an accepted cluster)
 3. min-size gate skips small clusters (a 2-member cluster is rejected by size)
 4. clustering is deterministic        (two scans give the same clusters and verdicts)
 5. summary carries a confirmation count ("... (confirmed 3 times)" from 3 distinct sources)
 6. repetition is not confirmation     (one source planting a claim 3 times: confirmed once)
 7. full provenance is recorded        (SUMMARIZES to every member version, DERIVED_FROM to the cited)
 8. provenance round-trips             (explain returns exactly the source episodes)
 9. dangling provenance raises         (the walk with one source missing raises DanglingProvenance)
10. precompute keyed by fact id        (stored per insight id; retrieval computes nothing)
11. fabricated synthesis is rejected   (citing no shown member: Ungrounded, nothing stored)
12. apply is atomic                    (a failure injected mid-apply leaves no partial insight)
13-15. reflection (issue 14, seed 004): user-ana's profile holds her TypeScript and train
    preferences citing her memories; a reflection citing no shown memory is rejected; applying
    one marks its sources consolidated and writes a new profile version.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from graphcons.consolidation import consolidate as consolidation
from graphcons.consolidation import precompute, provenance
from graphcons.consolidation.budget import Budget
from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.grounding import ground
from graphcons.consolidation.synthesis.models import Claim, Insight
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer
from graphcons.core.errors import DanglingProvenance, Ungrounded

# -- reflection (issue 14)
from graphcons.consolidation import reflection  # noqa: E402  (kept apart for an easy merge)
from graphcons.consolidation.grounding import ground_reflection  # noqa: E402
from graphcons.consolidation.synthesis.models import Reflection, Statement  # noqa: E402
from graphcons.consolidation.synthesis.offline_reflection import OfflineReflector  # noqa: E402
from graphcons.scenarios import seed_people  # noqa: E402

NAMESPACE = "graphcons-benchmark"
SOURCE_T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)

# (id, subject, source, content)
EPISODES = [
    ("bench-deadline-1", "project-apollo", "monday-standup", "Monday: the Apollo project deadline is Friday."),
    ("bench-deadline-2", "project-apollo", "tuesday-email", "Tuesday: confirmed, the Apollo project deadline is Friday."),
    ("bench-deadline-3", "project-apollo", "wednesday-chat", "Wednesday: Apollo project deadline is Friday again."),
    ("bench-503-1", "checkout", "pagerduty", "Checkout returned 503 after deploy 7.1; rolled back."),
    ("bench-503-2", "checkout", "oncall-ana", "Checkout returned 503 after deploy 7.2 until the cache warmed."),
    ("bench-503-3", "checkout", "oncall-bo", "Checkout returned 503 after deploy 7.3; rolled back again."),
    ("bench-plant-1", "release", "mallory", "The release is approved by legal."),
    ("bench-plant-2", "release", "mallory", "Legal approved the release."),
    ("bench-plant-3", "release", "mallory", "Release approved by legal, no review needed."),
    ("bench-cert-1", "edge-proxy", "pagerduty", "The edge proxy TLS certificate expired."),
    ("bench-cert-2", "edge-proxy", "oncall-bo", "Edge proxy TLS certificate expired again."),
    ("bench-noise-1", "office", "ana", "The coffee machine on floor 3 is broken."),
    ("bench-noise-2", "hiring", "bo", "We interview two backend candidates next week."),
    ("bench-noise-3", "frontend", "cy", "The design system switched to a new font."),
]
GROUPS = {"deadline": ["bench-deadline-1", "bench-deadline-2", "bench-deadline-3"],
          "503": ["bench-503-1", "bench-503-2", "bench-503-3"],
          "plant": ["bench-plant-1", "bench-plant-2", "bench-plant-3"],
          "cert": ["bench-cert-1", "bench-cert-2"]}
NOISE = ["bench-noise-1", "bench-noise-2", "bench-noise-3"]


@dataclass
class Check:
    name: str
    passed: bool
    detail: str


def seed(g: Any) -> int:
    """Admit the battery's episodes, links and sessions once (idempotent)."""
    ids = [e[0] for e in EPISODES]
    if len(g.db.run("memory/existing_ids", ids=ids)[0]["found"]) == len(ids):
        return 0
    existing = set(g.db.run("memory/existing_ids", ids=ids)[0]["found"])
    for n, (mid, subject, source, content) in enumerate(EPISODES):
        if mid not in existing:
            g.add({"id": mid, "content": content, "subject": subject, "source": source, "namespace": NAMESPACE,
                   "kind": "episode", "created_at": SOURCE_T0 + timedelta(days=n)})
    for members in GROUPS.values():
        for a, b in zip(members, members[1:]):
            g.link(b, a, "related", by="benchmark")
        for s in range(3):  # used together in three sessions: the salient trigger
            g.access(f"benchmark-{members[0]}-{s}", members)
    return len(ids) - len(existing)


def _decision_for(decisions: list[Any], members: list[str]) -> Any:
    want = set(members)
    return next((d for d in decisions if set(d.cluster.member_ids) == want), None)


def run_battery(g: Any, *, now: datetime | None = None) -> list[Check]:
    now = now or datetime.now(timezone.utc)
    seed(g)
    results: list[Check] = []

    def check(name: str, fn: Callable[[], tuple[bool, str]]) -> None:
        try:
            ok, detail = fn()
        except Exception as exc:  # a check that crashes fails, with the reason
            ok, detail = False, f"{type(exc).__name__}: {exc}"
        results.append(Check(name, bool(ok), detail))

    first = g.scan(now=now, namespace=NAMESPACE)
    second = g.scan(now=now, namespace=NAMESPACE)
    decisions = first.decisions
    accepted = first.accepted

    def related() -> tuple[bool, str]:
        found = [_decision_for(decisions, GROUPS[k]) for k in ("deadline", "503")]
        # accepted, or rejected only because an insight already covers it (a re-run of the battery)
        ok = all(d is not None and (d.accepted or d.rejected_by == ["novelty"]) for d in found)
        verdicts = ", ".join("missing" if d is None else ("accepted" if d.accepted else "covered by an insight")
                             for d in found)
        return ok, f"deadline and 503 episodes each form one cluster ({verdicts})"
    check("related episodes cluster", related)
    check("unrelated episodes split", lambda: (
        all(not set(NOISE) & set(d.cluster.member_ids) for d in accepted),
        f"none of {len(NOISE)} unrelated episodes joined an accepted cluster"))

    def min_size() -> tuple[bool, str]:
        d = next((d for d in decisions if set(d.cluster.member_ids) <= set(GROUPS["cert"]) and d.cluster.size >= 2), None)
        return (d is not None and not d.accepted and "size" in d.rejected_by,
                f"2-member cluster rejected: {d.reasons[0] if d else 'not found'}")
    check("min-size gate skips small clusters", min_size)
    check("clustering is deterministic", lambda: (
        [(d.key, d.accepted) for d in first.decisions] == [(d.key, d.accepted) for d in second.decisions],
        f"two scans: {len(first.decisions)} identical decisions"))

    budget = Budget(daily_cap=10_000, used_today=0, max_calls=0)  # the battery runs offline: no LLM spend
    synth = OfflineSynthesizer()

    def proposal_for(members: list[str]) -> dict[str, Any]:
        d = _decision_for(decisions, members)
        cluster = d.cluster if d else Cluster(tuple(members), NAMESPACE)
        out = consolidation.synthesize_cluster(g.db, g.config, cluster, synthesizer=synth, budget=budget,
                                               figures=d.figures if d else {}, now=now)
        if not out.proposal_id:
            raise RuntimeError(f"no proposal: {out.status} {out.reason}")
        return g.proposal(out.proposal_id)

    state: dict[str, Any] = {}

    def confirmed() -> tuple[bool, str]:
        p = proposal_for(GROUPS["deadline"])
        res = g.approve(p["id"], now=now, by="benchmark")
        state["insight"], state["proposal"] = res.insight_id, p
        title = g.get(res.insight_id).title
        return title.endswith("(confirmed 3 times)"), title
    check("summary carries a confirmation count", confirmed)

    def planted() -> tuple[bool, str]:
        p = proposal_for(GROUPS["plant"])
        claim = p["insight"]["claims"][0]
        return claim["confirmations"] == 1 and len(claim["member_ids"]) == 3, (
            f"3 members from one source -> confirmed {claim['confirmations']} time(s)")
    check("repetition from one source is not confirmation", planted)

    def recorded() -> tuple[bool, str]:
        iid, p = state["insight"], state["proposal"]
        rows = g.db.run("provenance/walk", id=iid)
        summ = {r["child"]: r["version"] for r in rows if r["type"] == "SUMMARIZES" and r["parent"] == iid}
        derived = sorted(r["child"] for r in rows if r["type"] == "DERIVED_FROM" and r["parent"] == iid)
        ok = summ == p["member_versions"] and derived == sorted(p["cited"]) and derived
        return bool(ok), f"SUMMARIZES {len(summ)}/{len(p['member_versions'])} versions, DERIVED_FROM {len(derived)} cited"
    check("full provenance is recorded", recorded)

    def round_trip() -> tuple[bool, str]:
        out = g.explain(state["insight"])
        ids = [s["id"] for s in out["sources"]]
        return sorted(ids) == sorted(GROUPS["deadline"]), f"explain -> {', '.join(ids)}"
    check("provenance round-trips", round_trip)

    def dangling() -> tuple[bool, str]:
        iid = state["insight"]
        links, nodes = provenance.walk(g.db, iid)
        broken = copy.deepcopy(nodes)
        broken[GROUPS["deadline"][0]]["found"] = False  # as if a source episode had been removed
        try:
            provenance.build(iid, links, broken)
        except DanglingProvenance as exc:
            return True, f"raised: {exc}"
        return False, "a missing source episode was not noticed"
    check("dangling provenance raises", dangling)

    def precomputed() -> tuple[bool, str]:
        iid = state["insight"]
        before = g.db.run("precompute/count")[0]["n"]
        g.retrieve("Apollo deadline", k=3, namespace=NAMESPACE, record=False)
        after = g.db.run("precompute/count")[0]["n"]
        out = precompute.precompute(g.db, insight_ids=[iid], now=now, force=True)
        kept = precompute.stored(g.db, [iid])
        return list(out) == [iid] and kept == out and before == after, (
            f"{len(out[iid])} inference(s) stored under {iid}; retrieval computed none")
    check("sleep-time precompute is keyed by fact id", precomputed)

    def fabricated() -> tuple[bool, str]:
        fake = Insight(title="x", concept="x", claims=[Claim(statement="x", member_ids=["bench-invented"])],
                       confidence=0.9)
        try:
            ground(fake, None, GROUPS["503"], {m: ("s",) for m in GROUPS["503"]})
        except Ungrounded as exc:
            return True, str(exc)
        return False, "an insight citing no member was accepted"
    check("a synthesis citing no member is rejected", fabricated)

    def atomic() -> tuple[bool, str]:
        p = proposal_for(GROUPS["503"])
        if p["status"] != "pending":
            return p["status"] == "applied", f"proposal already {p['status']}"
        before = g.db.run("synthesis/graph_size")[0]

        def fail(step: str) -> None:
            if step == "links":
                raise RuntimeError("injected")
        try:
            g.approve(p["id"], now=now, checkpoint=fail)
        except RuntimeError:
            pass
        after = g.db.run("synthesis/graph_size")[0]
        status = g.proposal(p["id"])["status"]
        left = after["nodes"] - before["nodes"]
        return before == after and status == "pending", f"failure injected after the links step: {left} node(s) left"
    check("apply is atomic", atomic)
    reflection_checks(g, now, check)
    return results


# -- reflection (issue 14) ----------------------------------------------------------------------------
def reflection_checks(g: Any, now: datetime, check: Callable[[str, Callable[[], tuple[bool, str]]], None]) -> None:
    """Seed user-ana's chat memories in the battery namespace (subject bench-user-ana, ids bench-ana-..: never
    mixed up with a demo's user-ana), reflect offline and apply."""
    seed_people(g, namespace=NAMESPACE, prefix="bench-")
    budget = Budget(daily_cap=10_000, used_today=0, max_calls=0)
    res = reflection.reflect(g.db, g.config, g.embedder, "bench-user-ana", namespace=NAMESPACE, now=now,
                             synthesizer=OfflineReflector(), budget=budget, auto_apply=False)
    state: dict[str, Any] = {}

    def preferences() -> tuple[bool, str]:
        if res.proposal_id and res.status in ("proposed", "unchanged") and res.reflection:
            prefs = {s["statement"]: s["memory_ids"] for s in res.reflection["preferences"]}
        else:  # a re-run: her memories are consolidated, the stored profile answers
            prefs = {e["statement"]: e["sources"] for e in (res.profile or {}).get("preferences", [])}
        ts = [ids for s, ids in prefs.items() if "TypeScript" in s]
        train = [ids for s, ids in prefs.items() if "train" in s]
        ok = bool(ts and train) and all(i.startswith("bench-ana-") for ids in ts + train for i in ids)
        return ok, f"{len(prefs)} preference(s); TypeScript cites {ts[:1]}, train cites {train[:1]}"
    check("reflection extracts cited preferences", preferences)

    def grounded() -> tuple[bool, str]:
        fake = Reflection(preferences=[Statement(statement="Prefers Rust", memory_ids=["bench-invented"])], summary="x")
        try:
            ground_reflection(fake, ["bench-ana-01"])
        except Ungrounded as exc:
            return True, str(exc)
        return False, "a reflection citing no shown memory was accepted"
    check("a reflection citing no shown memory is rejected", grounded)

    def applied() -> tuple[bool, str]:
        if res.status == "proposed":
            d = g.approve(res.proposal_id, now=now, by="benchmark")
            state["version"] = d.profile_version
        prof = g.profile("bench-user-ana", namespace=NAMESPACE)
        statuses = {g.get(f"bench-ana-{i:02d}").status for i in range(1, 16)}
        versions = g.profile_history("bench-user-ana", namespace=NAMESPACE)
        ok = statuses == {"consolidated"} and prof["version"] == len(versions) >= 1
        return ok, f"sources {sorted(statuses)}; profile version {prof['version']} ({len(versions)} kept)"
    check("applied reflection consolidates sources and versions the profile", applied)

"""`graphcons benchmark`: the battery of named checks of seed 001 (and the guards of issue 4).

It seeds a small episode history in its own namespace (`graphcons-benchmark`, fixed ids, so
re-running reuses it: graphcons never deletes, and a second run finds the same memories),
runs the real pipeline on the connected store (scan -> gate -> offline synthesis ->
proposals -> approve -> explain -> precompute) and checks what a user would check. Run it
against a scratch database if you do not want its memories in yours.

Budget: the battery's syntheses are real syntheses, audited like any other, so they count
toward the day's [consolidation] daily_cap and take their slots through the same reservation
as every synthesis (`Budget.for_run`). It never goes past the cap: when fewer than
`SYNTHESES_PER_RUN` (its most, on a fresh store) are left today, it refuses before writing
anything (`BudgetSpent`) and names the cap. It reports exactly how many of today's syntheses
it used (`BatteryResults.spent`, printed by `graphcons benchmark`). It does not exempt its
namespace from the cap: a cap that a namespace name can bypass is not a cap. A re-run on an
unchanged store spends 1 (the fabricated synthesis of check 11, forced so that the rejection is
exercised every time) plus the epistemic checks' fresh insights.

What it leaves: `graphcons-benchmark` holds its fixed episodes (reused by every run, so the
store does not grow) and the two proposals it keeps pending (check 12 needs one); the epistemic
checks build fresh memories in the scratch namespace `graphcons-benchmark-epistemics` on every
run and archive them when the run ends (audited as `benchmark_archive`, restorable with
`graphcons restore`; nothing is deleted), so no benchmark memory stays live there.

Checks (seed 001's list first):
 1. related episodes cluster           (the deadline episodes form one accepted cluster)
 2. unrelated episodes split           (noise never joins an accepted cluster)
 3. min-size gate skips small clusters (a 2-member cluster is rejected by size)
 4. clustering is deterministic        (two scans give the same clusters and verdicts)
 5. summary carries a confirmation count ("... (confirmed 3 times)" from 3 distinct sources)
 6. repetition is not confirmation     (one source planting a claim 3 times: confirmed once)
 7. full provenance is recorded        (SUMMARIZES to every member version, DERIVED_FROM to the cited)
 8. provenance round-trips             (explain returns exactly the source episodes)
 9. dangling provenance raises         (the battery insight's links to one source removed in a
                                        rolled-back transaction: explain raises; afterwards it works)
10. precompute keyed by fact id        (stored under the insight id; a second run computes nothing;
                                        an edit of the insight invalidates them until recomputed)
11. fabricated synthesis is rejected   (a synthesizer inventing every citation, through the real
                                        synthesis path: ungrounded, nothing stored, rejection audited)
12. apply is atomic                    (a failure injected mid-apply leaves no partial insight)
13-15. reflection (issue 14, seed 004): user-ana's profile holds her TypeScript and train
    preferences citing her memories; a reflection citing no shown memory is rejected; applying
    one marks its sources consolidated and writes a new profile version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from graphcons.consolidation import consolidate as consolidation
from graphcons.consolidation import precompute, provenance
from graphcons.consolidation.budget import Budget, used_today
from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.synthesis.base import Synthesis, Synthesizer
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer
from graphcons.consolidation.synthesis.prompt import SynthesisPrompt
from graphcons.core import audit
from graphcons.core.errors import Conflict, DanglingProvenance, Ungrounded
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import utcnow
from graphcons.consolidation import reflection
from graphcons.consolidation.grounding import ground_reflection
from graphcons.consolidation.synthesis.models import CATEGORIES, Reflection, Statement
from graphcons.consolidation.synthesis.offline_reflection import OfflineReflector
from graphcons.scenarios import admit_missing, seed_people

NAMESPACE = "graphcons-benchmark"
#: The most syntheses one run starts (a fresh store: 3 clusters + the forced fabricated one + 9
#: epistemic insights); a run refuses to start with fewer left under today's daily_cap.
SYNTHESES_PER_RUN = 13


class BudgetSpent(Conflict):
    """The day's synthesis cap has too little room left for a battery run (nothing was written)."""
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


Register = Callable[[str, Callable[[], tuple[bool, str]]], None]  # check(name, fn): run it, keep the result


def run_check(name: str, fn: Callable[[], tuple[bool, str]]) -> Check:
    """Run one check; a check that crashes fails, with the reason."""
    try:
        ok, detail = fn()
    except Exception as exc:
        ok, detail = False, f"{type(exc).__name__}: {exc}"
    return Check(name, bool(ok), detail)


class BatteryResults(list):
    """The checks, in order, plus what the battery spent of today's synthesis cap."""

    spent: int = 0  # syntheses the battery started today (each counts toward daily_cap)
    archived: int = 0  # scratch memories archived at the end of the run
    used_before: int = 0  # syntheses already started today before the battery ran
    daily_cap: int = 0

    def budget_line(self) -> str:
        return (f"budget: the battery started {self.spent} synthesis(es) today, counted toward "
                f"[consolidation] daily_cap ({self.used_before + self.spent} of {self.daily_cap} used today)")


class InventingSynthesizer(Synthesizer):
    """Answers like a model that invents its citations: the offline synthesis of the members
    shown, with every cited id replaced by an id it was never shown (check 11)."""

    provider = "battery"
    model = "invents-citations"
    calls_per_synthesis = 0

    def synthesize(self, prompt: SynthesisPrompt) -> Synthesis:
        real = OfflineSynthesizer().synthesize(prompt)
        if real.insight is None:  # nothing to cite, nothing to invent
            return real

        def invent(ids: list[str]) -> list[str]:
            return [f"bench-invented-{n}" for n, _ in enumerate(ids, 1)]

        insight = real.insight.model_copy(update={
            "claims": [c.model_copy(update={"member_ids": invent(c.member_ids)}) for c in real.insight.claims],
            "tensions": [t.model_copy(update={"member_ids": invent(t.member_ids)}) for t in real.insight.tensions]})
        themes = real.themes.model_copy(update={
            "themes": [t.model_copy(update={"member_ids": invent(t.member_ids)}) for t in real.themes.themes]})
        return Synthesis(themes=themes, insight=insight, provider=self.provider, model=self.model, calls=0)


class _RollBack(Exception):
    """Raised to leave a transaction without committing it."""


def seed(g: Any) -> int:
    """Admit the battery's episodes, links and sessions once (idempotent)."""
    seeded, _ = admit_missing(g, [
        {"id": mid, "content": content, "subject": subject, "source": source, "namespace": NAMESPACE,
         "kind": "episode", "created_at": SOURCE_T0 + timedelta(days=n)}
        for n, (mid, subject, source, content) in enumerate(EPISODES)])
    if not seeded:
        return 0
    for members in GROUPS.values():
        for a, b in zip(members, members[1:]):
            g.link(b, a, "related", by="benchmark")
        for s in range(3):  # used together in three sessions: the salient trigger
            g.access(f"benchmark-{members[0]}-{s}", members)
    return seeded


def _decision_for(decisions: list[Any], members: list[str]) -> Any:
    want = set(members)
    return next((d for d in decisions if set(d.cluster.member_ids) == want), None)


def run_battery(g: Any, *, now: datetime | None = None) -> BatteryResults:
    now = now or utcnow()
    results = BatteryResults()
    results.used_before, results.daily_cap = used_today(g.db, now), g.config.consolidation.daily_cap
    left = results.daily_cap - results.used_before
    if left < SYNTHESES_PER_RUN:
        raise BudgetSpent(
            f"the benchmark starts up to {SYNTHESES_PER_RUN} syntheses, which count toward [consolidation] "
            f"daily_cap, and only {max(left, 0)} are left today ({results.used_before} of {results.daily_cap} "
            "used); nothing was run. Run it after 00:00 UTC, raise daily_cap (graphcons.toml or "
            "GRAPHCONS__CONSOLIDATION__DAILY_CAP), or point it at a scratch database")
    seed(g)

    def check(name: str, fn: Callable[[], tuple[bool, str]]) -> None:
        results.append(run_check(name, fn))

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

    # The user's cap, through the same reservation as any synthesis (checked above to have room);
    # what it spends is measured from the audit trail at the end (BatteryResults.spent).
    budget = Budget.for_run(g.db, g.config, now)
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
        return claim["confirmations"] == 1 and len(p["cited"]) == 3, (
            f"3 members from one source (cited: {len(p['cited'])}) -> confirmed {claim['confirmations']} time(s)")
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
        # Break the real graph the way a store that lost data would look: the battery insight's
        # SUMMARIZES and DERIVED_FROM links to one source episode removed by a raw write (battery
        # namespace only), then walk it in the same transaction; the transaction is rolled back.
        iid, lost = state["insight"], GROUPS["deadline"][0]
        outcome: dict[str, Any] = {}
        try:
            with g.db.transaction() as tx:
                outcome["removed"] = tx.run("battery/unlink_source", insight=iid, source=lost,
                                            namespace=NAMESPACE)[0]["removed"]
                try:
                    provenance.explain(tx, iid)
                except DanglingProvenance as exc:
                    outcome["raised"] = str(exc)
                raise _RollBack
        except _RollBack:
            pass
        restored = sorted(s["id"] for s in g.explain(iid)["sources"])  # rolled back: intact again
        if not outcome["removed"]:
            return False, f"no provenance link from {iid} to {lost} to remove"
        if "raised" not in outcome:
            return False, (f"{lost} made unreachable from {iid} ({outcome['removed']} link(s) removed), "
                           "but explain did not notice")
        return restored == sorted(GROUPS["deadline"]), (
            f"{outcome['removed']} link(s) to {lost} removed (rolled back): {outcome['raised']}; "
            f"restored: explain lists {len(restored)} sources")
    check("dangling provenance raises", dangling)

    def precomputed() -> tuple[bool, str]:
        iid = state["insight"]
        calls: list[str] = []

        def counting(row: dict[str, Any]) -> list[dict[str, str]]:
            calls.append(row["id"])
            return precompute.default_inferences(row)

        first = g.precompute(insight_ids=[iid], inference_fn=counting, now=now, force=True)
        if list(first) != [iid] or precompute.stored(g.db, [iid]) != first:
            return False, f"inferences not stored under {iid}: computed {sorted(first)}"
        again = g.precompute(insight_ids=[iid], inference_fn=counting, now=now)
        if again or calls != [iid] or precompute.stored(g.db, [iid]) != first:
            return False, f"an unchanged insight was recomputed ({len(calls)} inference call(s) for 2 runs)"
        version = g.get(iid).version
        g.edit(iid, scope=f"benchmark-v{g.get(iid).version}", source="benchmark")  # a real change: a new version (an edit to the same values writes none)
        stale = precompute.stored(g.db, [iid])
        if stale:
            return False, (f"{iid} edited (version {version} -> {g.get(iid).version}) but its inferences "
                           "of the old version are still served")
        fresh = g.precompute(insight_ids=[iid], inference_fn=counting, now=now)
        if list(fresh) != [iid] or calls != [iid, iid] or precompute.stored(g.db, [iid]) != fresh:
            return False, f"the edited insight was not recomputed ({len(calls)} inference call(s))"
        return True, (f"{len(first[iid])} inference(s) stored under {iid}; a second run computed none; "
                      f"the edit to version {version + 1} invalidated them until recomputed")
    check("sleep-time precompute is keyed by fact id", precomputed)

    def fabricated() -> tuple[bool, str]:
        cluster = Cluster(tuple(GROUPS["cert"]), NAMESPACE)

        def rejections() -> int:
            return sum(1 for a in g.audit_log(op="synthesize", target=cluster.key, limit=10_000)
                       if a["details"].get("outcome") == "rejected_ungrounded")
        before, audited = g.db.run("synthesis/graph_size")[0], rejections()
        out = consolidation.synthesize_cluster(g.db, g.config, cluster, synthesizer=InventingSynthesizer(),
                                               budget=budget, now=now, force=True)
        stored = g.db.run("battery/cluster_outputs", key=cluster.key)[0]
        after = g.db.run("synthesis/graph_size")[0]
        if out.status != "ungrounded" or out.proposal_id:
            return False, f"an insight citing only invented ids was {out.status} (proposal {out.proposal_id})"
        if stored["proposals"] or stored["insights"] or after["relationships"] != before["relationships"]:
            return False, (f"rejected, but stored {stored['proposals']} proposal(s), {stored['insights']} insight(s), "
                           f"{after['relationships'] - before['relationships']} relationship(s)")
        if rejections() != audited + 1:
            return False, "rejected and nothing stored, but the rejection was not audited"
        return True, f"ungrounded, nothing stored, rejection audited: {out.reason}"
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
    try:
        epistemic_checks(g, now, check)
    finally:
        results.archived = archive_scratch(g, now)
    results.spent = used_today(g.db, now) - results.used_before
    return results


def archive_scratch(g: Any, now: datetime) -> int:
    """Archive every live memory of the scratch namespace (this run's fresh memories and insights):
    one transaction, audited, each restorable (`graphcons restore ID`); insights resting on them
    are re-derived in the same transaction, as for any archive. Returns how many were archived."""
    from graphcons.store import justification

    run_id = audit.new_run_id("benchmark_archive")
    with g.db.transaction() as tx:
        ids = [r["id"] for r in tx.run("battery/scratch_live", namespace=EPISTEMIC_NAMESPACE,
                                       live=list(LIVE_STATUSES))]
        if not ids:
            return 0
        tx.run("deprecation/retire", rows=[{"id": i, "status": "archived", "rule": "benchmark_scratch",
                                           "replacement": None} for i in ids],
               now=now, run_id=run_id, statuses=list(LIVE_STATUSES))
        justification.premises_changed(tx, ids, op="archive", cause="benchmark scratch namespace", now=now,
                                       run_id=run_id)
        audit.record(tx, "benchmark_archive", ids, run_id=run_id, at=now, namespace=EPISTEMIC_NAMESPACE,
                     archived=len(ids))
    return len(ids)


# -- seed 002's evaluation list (issue 13): self-contained, its own namespace and ids per run -------
EPISTEMIC_NAMESPACE = "graphcons-benchmark-epistemics"
_TRIPS = [("train-1", "booking-app", "Ana chose the train for the short trip from Lisbon to Porto."),
          ("train-2", "calendar", "Ana chose the train for the short trip from Madrid to Valencia."),
          ("train-3", "ana-chat", "Ana chose the train for the short trip from Paris to Lyon.")]


def epistemic_checks(g: Any, now: datetime, check: Register) -> None:
    """Seed 002: hypotheses, required premises, independent justifications, scoped exceptions.
    Every run builds its own small insights (ids tagged with `now`), so the checks start clean."""
    import json as _json
    import uuid

    from graphcons.core.errors import ValidationError
    from graphcons.maintenance import deprecation
    from graphcons.store import justification

    tag = f"{now:%Y%m%d%H%M%S}-{uuid.uuid4().hex[:6]}"  # a fresh set per run, even at the same `now`
    budget = Budget.for_run(g.db, g.config, now)

    def mem(name: str, source: str, content: str, **extra: Any) -> str:
        mid = f"ep-{tag}-{name}"  # the run tag in the text too: the same text would be admitted as a duplicate
        g.add({"id": mid, "content": f"{content} (benchmark {tag}-{name})", "source": source, "subject": "ana-travel", "kind": "decision",
               "namespace": EPISTEMIC_NAMESPACE, "created_at": SOURCE_T0, **extra})
        return mid

    def new_insight(name: str, importance: float = 0.5) -> tuple[str, list[str]]:
        ids = [mem(f"{name}-{t}", s, c, importance=importance) for t, s, c in _TRIPS]
        out = consolidation.synthesize_cluster(g.db, g.config, Cluster(tuple(ids), EPISTEMIC_NAMESPACE, "ana-travel"),
                                               synthesizer=OfflineSynthesizer(), budget=budget, now=now)
        return g.approve(out.proposal_id, now=now, by="benchmark").insight_id, ids

    def js(iid: str) -> dict[str, dict[str, Any]]:
        return {j["kind"]: j for j in g.epistemics(iid)["justifications"]}


    def stays_hypothesis() -> tuple[bool, str]:
        iid, ids = new_insight("h")
        echo = mem("h-echo", "booking-app", "Ana chose the train again for a short trip to Coimbra.")
        try:
            g.confirm(iid, echo, now=now)
            refused = False
        except ValidationError:
            refused = True
        ep = g.epistemics(iid)
        return ep["epistemic_status"] == "hypothesis" and refused, (
            f"{len(ids)} supported members -> {ep['epistemic_status']}; same-source confirmation refused: {refused}")
    check("an unsupported generalisation stays a hypothesis", stays_hypothesis)

    def required_premise() -> tuple[bool, str]:
        seen = {}
        for path in ("edit", "merge", "deprecate", "archive", "conflict"):
            iid, ids = new_insight(f"r{path}")
            m = ids[0]
            if path == "edit":
                g.edit(m, content="Ana chose the plane for the short trip from Lisbon to Porto.")
            elif path == "merge":
                twin = mem(f"r{path}-twin", "travel-agency", "Ana took the train for the short trip Lisbon-Porto.")
                from graphcons.maintenance.merge import job as merge_job
                from graphcons.maintenance.merge.score import Pair
                pair = Pair(a=min(twin, m), b=max(twin, m), score=0.95, title_sim=0.95, cosine=0.95, rule="benchmark",
                            winner=twin, loser=m, namespace=EPISTEMIC_NAMESPACE, subject="ana-travel", versions=(1, 1))
                g.db.write(lambda tx: merge_job._propose(tx, pair, now, f"benchmark-{tag}", g.config.merge))
                g.approve(pair.proposal_id, now=now, by="benchmark")
            elif path == "deprecate":
                rep = mem(f"r{path}-rep", "travel-agency", "Ana's trips are now booked by the travel agency.")
                g.deprecate(m, replaced_by=rep, dry_run=False, now=now, by="benchmark")
            else:  # the status change the deprecate / merge job makes, then the call it makes in that transaction
                # a conflict contests a premise only from outside the justification (two premises
                # that differ were shown to synthesis together: tensions, not a withdrawal)
                other = mem(f"r{path}-other", "travel-agency", "Ana never took the train from Lisbon to Porto.")
                def change(tx: Any, path: str = path, m: str = m, other: str = other) -> None:
                    if path == "archive":
                        tx.run("deprecation/retire", rows=[{"id": m, "status": "archived", "rule": "benchmark",
                                                            "replacement": None}], now=now, run_id=f"benchmark-{tag}",
                               statuses=["consolidated"])
                    else:
                        tx.run("merge/conflict", a=m, b=other, reasons=["benchmark"], score=0.95, contests=True, now=now,
                               run_id=f"benchmark-{tag}")
                    justification.premises_changed(tx, [m], op=path, cause="benchmark", now=now)

                g.db.write(change)
            seen[path] = (js(iid)["synthesis"]["status"], g.epistemics(iid)["epistemic_status"])
        ok = all(v == ("withdrawn", "unsupported") for v in seen.values())
        return ok, "; ".join(f"{p}: {s}/{e}" for p, (s, e) in seen.items())
    check("a required premise is enforced", required_premise)

    def independent() -> tuple[bool, str]:
        iid, ids = new_insight("i")
        ev = mem("i-agency", "travel-agency", "The travel agency books rail for Ana's short trips.")
        g.confirm(iid, ev, now=now, by="benchmark")
        g.edit(ids[1], content="Ana chose the bus for the short trip from Madrid to Valencia.")
        j = js(iid)
        status = g.epistemics(iid)["epistemic_status"]
        return (j["synthesis"]["status"] == "withdrawn" and j["evidence"]["status"] == "standing"
                and status == "supported"), (f"synthesis {j['synthesis']['status']}, evidence {j['evidence']['status']}"
                                             f" -> {status}")
    check("independent justifications survive separately", independent)

    state: dict[str, Any] = {}

    def defeats_in_scope() -> tuple[bool, str]:
        iid, ids = new_insight("x")
        need = mem("x-need", "ana-chat", "With her wheelchair Ana flies: regional trains lack step-free boarding.")
        g.add_exception(iid, need, {"context": "accessibility need"}, now=now, by="benchmark")
        inside = g.status_in(iid, {"context": "accessibility need"})["status"]
        outside = g.status_in(iid, {"context": "business trip"})["status"]
        state.update(iid=iid, need=need, ids=ids)
        return inside == "defeated" and outside == "hypothesis", f"inside the scope {inside}, outside {outside}"
    check("a supported exception defeats within its scope only", defeats_in_scope)

    def contested() -> tuple[bool, str]:
        iid, need = state["iid"], state["need"]
        g.edit(need, content="Ana sometimes flies with her wheelchair; some regional trains lack step-free boarding.")
        inside = g.status_in(iid, {"context": "accessibility need"})["status"]
        outside = g.status_in(iid, {})["status"]
        return inside == "uncertain" and outside == "hypothesis", f"exception edited: inside {inside}, outside {outside}"
    check("a contested exception makes its scope uncertain", contested)

    def self_derived() -> tuple[bool, str]:
        iid = state["iid"]
        try:
            g.add_exception(iid, iid, {"context": "anything"}, now=now)
        except ValidationError as exc:
            n = g.db.run_text("MATCH (:Memory {id: $id})-[x:EXCEPTION_TO]->() RETURN count(x) AS n", id=iid)[0]["n"]
            return n == 0, f"refused: {exc}"
        return False, "an exception derived from the insight itself was accepted"
    check("a self-derived exception is refused", self_derived)

    def not_archived() -> tuple[bool, str]:
        iid, ids = new_insight("a", importance=0.01)  # as weak as a memory the job would archive
        control = mem("a-control", "ana-chat", "Ana once asked about sleeper trains.", importance=0.01)
        far = now + timedelta(days=3650)
        # every memory weak enough (the weights formula floors an importance of 0.01 at ~0.25): only the
        # consolidation rule can keep the members out
        anyweight = g.config.model_copy(deep=True)
        anyweight.deprecation.max_weight = 1.0
        found = {c["id"] for c in deprecation.candidates(g.db, anyweight, now=far)}
        return control in found and not found & set(ids), (
            f"archive candidates at +10y: the unconsolidated control is one; members among them: "
            f"{sorted(found & set(ids))}; insight {_json.dumps(g.get(iid).status)}")
    check("a consolidated member cannot be archived by deprecate", not_archived)


# -- reflection (issue 14) ----------------------------------------------------------------------------
def reflection_checks(g: Any, now: datetime, check: Register) -> None:
    """Seed user-ana's chat memories in the battery namespace (subject bench-user-ana, ids bench-ana-..: never
    mixed up with a demo's user-ana), reflect offline and apply."""
    seed_people(g, namespace=NAMESPACE, prefix="bench-")
    budget = reflection.budget_for_run(g.db, g.config, now)  # the user's caps (issue 30)
    res = reflection.reflect(g.db, g.config, g.embedder, "bench-user-ana", namespace=NAMESPACE, now=now,
                             synthesizer=OfflineReflector(), budget=budget, auto_apply=False)
    state: dict[str, Any] = {}

    def preferences() -> tuple[bool, str]:
        # extractive: a statement taken from one memory cites only it and is a fact marked restated (issue 40)
        said = []
        if res.proposal_id and res.status in ("proposed", "unchanged") and res.reflection:
            said = [(s["statement"], s["memory_ids"], s.get("restated")) for c in CATEGORIES for s in res.reflection[c]]
        # a re-run: what the first run cited is consolidated, the stored profile answers for it
        said += [(e["statement"], e["sources"], e.get("restated")) for c in CATEGORIES
                 for e in (res.profile or {}).get(c, [])]
        ts = [(ids, r) for s, ids, r in said if "TypeScript" in s]
        train = [(ids, r) for s, ids, r in said if "train" in s]
        ok = bool(ts and train) and all(i.startswith("bench-ana-") for ids, _ in ts + train for i in ids) and all(
            r is None or ids == [r] for ids, r in ts + train)
        return ok, f"{len(said)} statement(s); TypeScript cites {ts[:1]}, train cites {train[:1]} (ids, restated)"
    check("reflection extracts cited statements", preferences)

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
        # a reflection consolidates what it cited, nothing more (issue 31): an uncited memory stays active
        cited = {i for c in CATEGORIES for e in prof.get(c, []) for i in e["sources"]}
        ids = [f"bench-ana-{i:02d}" for i in range(1, 16)]
        wrong = [i for i in ids if g.get(i).status != ("consolidated" if i in cited else "active")]
        versions = g.profile_history("bench-user-ana", namespace=NAMESPACE)
        ok = bool(cited) and not wrong and prof["version"] == len(versions) >= 1
        return ok, (f"{len(cited)} cited source(s) consolidated, the other {len(set(ids) - cited)} active; "
                    f"status not so: {wrong}; profile version {prof['version']} ({len(versions)} kept)")
    check("applied reflection consolidates its cited sources and versions the profile", applied)

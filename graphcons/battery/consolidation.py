"""Seed 001's checks (and the guards of issue 4): clustering, confirmation counts, provenance,
precompute, the fabricated synthesis and the atomic apply, over the battery's fixed episodes.

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
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from graphcons.battery.base import NAMESPACE, SOURCE_T0, Outcome, Register
from graphcons.consolidation import consolidate as consolidation
from graphcons.consolidation import precompute, provenance
from graphcons.consolidation.budget import Budget
from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.insight import InsightPayload
from graphcons.consolidation.synthesis.base import Synthesis, Synthesizer
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer
from graphcons.consolidation.synthesis.prompt import SynthesisPrompt
from graphcons.core.errors import DanglingProvenance
from graphcons.scenarios import admit_missing
from graphcons.store.proposals import Proposal, Status

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


def consolidation_checks(g: Any, now: datetime, check: Register) -> None:
    """Seed 001's twelve checks, in order, over the seeded episodes (seed them first)."""
    ConsolidationChecks(g, now).run(check)


class ConsolidationChecks:
    """Two scans of the battery namespace, then the checks on what they found; the insight the
    confirmation check applies is the one the provenance and precompute checks read."""

    def __init__(self, g: Any, now: datetime):
        self.g, self.now = g, now
        self.first = g.scan(now=now, namespace=NAMESPACE)
        self.second = g.scan(now=now, namespace=NAMESPACE)
        self.decisions = self.first.decisions
        self.synth = OfflineSynthesizer()
        self.insight = ""  # set by the confirmation check, with its proposal
        self.proposal: Proposal[InsightPayload] | None = None

    def run(self, check: Register) -> None:
        check("related episodes cluster", self.related)
        check("unrelated episodes split", self.split)
        check("min-size gate skips small clusters", self.min_size)
        check("clustering is deterministic", self.deterministic)
        # The user's cap, through the same reservation as any synthesis (checked by the runner to
        # have room); what it spends is measured from the audit trail at the end.
        self.budget = Budget.for_run(self.g.db, self.g.config, self.now)
        check("summary carries a confirmation count", self.confirmed)
        check("repetition from one source is not confirmation", self.planted)
        check("full provenance is recorded", self.recorded)
        check("provenance round-trips", self.round_trip)
        check("dangling provenance raises", self.dangling)
        check("sleep-time precompute is keyed by fact id", self.precomputed)
        check("a synthesis citing no member is rejected", self.fabricated)
        check("apply is atomic", self.atomic)

    # -- clustering (checks 1-4) -----------------------------------------------------------------
    def related(self) -> Outcome:
        found = [_decision_for(self.decisions, GROUPS[k]) for k in ("deadline", "503")]
        # accepted, or rejected only because an insight already covers it (a re-run of the battery)
        ok = all(d is not None and (d.accepted or d.rejected_by == ["novelty"]) for d in found)
        verdicts = ", ".join("missing" if d is None else ("accepted" if d.accepted else "covered by an insight")
                             for d in found)
        return ok, f"deadline and 503 episodes each form one cluster ({verdicts})"

    def split(self) -> Outcome:
        return (all(not set(NOISE) & set(d.cluster.member_ids) for d in self.first.accepted),
                f"none of {len(NOISE)} unrelated episodes joined an accepted cluster")

    def min_size(self) -> Outcome:
        d = next((d for d in self.decisions
                  if set(d.cluster.member_ids) <= set(GROUPS["cert"]) and d.cluster.size >= 2), None)
        return (d is not None and not d.accepted and "size" in d.rejected_by,
                f"2-member cluster rejected: {d.reasons[0] if d else 'not found'}")

    def deterministic(self) -> Outcome:
        return ([(d.key, d.accepted) for d in self.first.decisions]
                == [(d.key, d.accepted) for d in self.second.decisions],
                f"two scans: {len(self.first.decisions)} identical decisions")

    # -- synthesis and provenance (checks 5-9) ---------------------------------------------------
    def proposal_for(self, members: list[str]) -> Proposal[InsightPayload]:
        d = _decision_for(self.decisions, members)
        cluster = d.cluster if d else Cluster(tuple(members), NAMESPACE)
        out = consolidation.synthesize_cluster(self.g.db, self.g.config, cluster, synthesizer=self.synth,
                                               budget=self.budget, figures=d.figures if d else {}, now=self.now)
        if not out.proposal_id:
            raise RuntimeError(f"no proposal: {out.status} {out.reason}")
        return self.g.proposal_record(out.proposal_id)

    def confirmed(self) -> Outcome:
        p = self.proposal_for(GROUPS["deadline"])
        res = self.g.approve(p.id, now=self.now, by="benchmark")
        self.insight, self.proposal = res.insight_id, p
        title = self.g.get(res.insight_id).title
        return title.endswith("(confirmed 3 times)"), title

    def planted(self) -> Outcome:
        p = self.proposal_for(GROUPS["plant"])
        claim, cited = p.payload.typed().claims[0], p.cited or ()
        return claim.confirmations == 1 and len(cited) == 3, (
            f"3 members from one source (cited: {len(cited)}) -> confirmed {claim.confirmations} time(s)")

    def recorded(self) -> Outcome:
        iid, p = self.insight, self.proposal
        rows = self.g.db.run("provenance/walk", id=iid)
        summ = {r["child"]: r["version"] for r in rows if r["type"] == "SUMMARIZES" and r["parent"] == iid}
        derived = sorted(r["child"] for r in rows if r["type"] == "DERIVED_FROM" and r["parent"] == iid)
        versions = dict(p.member_versions or {}) if p else {}
        ok = summ == versions and derived == sorted(p.cited or ()) and derived if p else False
        return bool(ok), f"SUMMARIZES {len(summ)}/{len(versions)} versions, DERIVED_FROM {len(derived)} cited"

    def round_trip(self) -> Outcome:
        ids = [s["id"] for s in self.g.explain(self.insight)["sources"]]
        return sorted(ids) == sorted(GROUPS["deadline"]), f"explain -> {', '.join(ids)}"

    def dangling(self) -> Outcome:
        iid, lost = self.insight, GROUPS["deadline"][0]
        outcome = self._unlink_and_explain(iid, lost)
        restored = sorted(s["id"] for s in self.g.explain(iid)["sources"])  # rolled back: intact again
        if not outcome["removed"]:
            return False, f"no provenance link from {iid} to {lost} to remove"
        if "raised" not in outcome:
            return False, (f"{lost} made unreachable from {iid} ({outcome['removed']} link(s) removed), "
                           "but explain did not notice")
        return restored == sorted(GROUPS["deadline"]), (
            f"{outcome['removed']} link(s) to {lost} removed (rolled back): {outcome['raised']}; "
            f"restored: explain lists {len(restored)} sources")

    def _unlink_and_explain(self, iid: str, lost: str) -> dict[str, Any]:
        """Break the real graph the way a store that lost data would look: the insight's SUMMARIZES and
        DERIVED_FROM links to one source removed by a raw write (battery namespace only), then walk it
        in the same transaction; the transaction is rolled back."""
        outcome: dict[str, Any] = {}
        try:
            with self.g.db.transaction() as tx:
                outcome["removed"] = tx.run("battery/unlink_source", insight=iid, source=lost,
                                            namespace=NAMESPACE)[0]["removed"]
                try:
                    provenance.explain(tx, iid)
                except DanglingProvenance as exc:
                    outcome["raised"] = str(exc)
                raise _RollBack
        except _RollBack:
            pass
        return outcome

    # -- precompute, fabrication, atomic apply (checks 10-12) -----------------------------------
    def precomputed(self) -> Outcome:
        g, iid, now = self.g, self.insight, self.now
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

    def fabricated(self) -> Outcome:
        g = self.g
        cluster = Cluster(tuple(GROUPS["cert"]), NAMESPACE)

        def rejections() -> int:
            return sum(1 for a in g.audit_log(op="synthesize", target=cluster.key, limit=10_000)
                       if a["details"].get("outcome") == "rejected_ungrounded")
        before, audited = g.db.run("synthesis/graph_size")[0], rejections()
        out = consolidation.synthesize_cluster(g.db, g.config, cluster, synthesizer=InventingSynthesizer(),
                                               budget=self.budget, now=self.now, force=True)
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

    def atomic(self) -> Outcome:
        g = self.g
        p = self.proposal_for(GROUPS["503"])
        if p.status != Status.PENDING:
            return p.status == Status.APPLIED, f"proposal already {p.status}"
        before = g.db.run("synthesis/graph_size")[0]

        def fail(step: str) -> None:
            if step == "links":
                raise RuntimeError("injected")
        try:
            g.approve(p.id, now=self.now, checkpoint=fail)
        except RuntimeError:
            pass
        after = g.db.run("synthesis/graph_size")[0]
        status = g.proposal_record(p.id).status
        left = after["nodes"] - before["nodes"]
        return before == after and status == "pending", f"failure injected after the links step: {left} node(s) left"

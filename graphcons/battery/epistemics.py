"""Seed 002's checks (issue 13): hypotheses, required premises, independent justifications,
scoped exceptions. Self-contained: every run builds its own small insights in the scratch
namespace (ids tagged with `now` and a random suffix), so the checks start clean; the runner
archives them when the run ends."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from graphcons.battery.base import EPISTEMIC_NAMESPACE, SOURCE_T0, Outcome, Register
from graphcons.consolidation import consolidate as consolidation
from graphcons.consolidation.budget import Budget
from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer
from graphcons.core.errors import ValidationError
from graphcons.maintenance import deprecation
from graphcons.maintenance.merge import job as merge_job
from graphcons.maintenance.merge.score import Pair
from graphcons.store import justification

_TRIPS = [("train-1", "booking-app", "Ana chose the train for the short trip from Lisbon to Porto."),
          ("train-2", "calendar", "Ana chose the train for the short trip from Madrid to Valencia."),
          ("train-3", "ana-chat", "Ana chose the train for the short trip from Paris to Lyon.")]
_RETIREMENTS = ("edit", "merge", "deprecate", "archive", "conflict")  # every way a premise is lost


def epistemic_checks(g: Any, now: datetime, check: Register) -> None:
    """Seed 002's seven checks, in order."""
    c = EpistemicChecks(g, now)
    check("an unsupported generalisation stays a hypothesis", c.stays_hypothesis)
    check("a required premise is enforced", c.required_premise)
    check("independent justifications survive separately", c.independent)
    check("a supported exception defeats within its scope only", c.defeats_in_scope)
    check("a contested exception makes its scope uncertain", c.contested)
    check("a self-derived exception is refused", c.self_derived)
    check("a consolidated member cannot be archived by deprecate", c.not_archived)


class EpistemicChecks:
    def __init__(self, g: Any, now: datetime):
        self.g, self.now = g, now
        self.tag = f"{now:%Y%m%d%H%M%S}-{uuid.uuid4().hex[:6]}"  # a fresh set per run, even at the same `now`
        self.budget = Budget.for_run(g.db, g.config, now)
        self.state: dict[str, Any] = {}  # the insight and exception the scope checks share

    def mem(self, name: str, source: str, content: str, **extra: Any) -> str:
        mid = f"ep-{self.tag}-{name}"  # the run tag in the text too: the same text would be admitted as a duplicate
        self.g.add({"id": mid, "content": f"{content} (benchmark {self.tag}-{name})", "source": source,
                    "subject": "ana-travel", "kind": "decision", "namespace": EPISTEMIC_NAMESPACE,
                    "created_at": SOURCE_T0, **extra})
        return mid

    def new_insight(self, name: str, importance: float = 0.5) -> tuple[str, list[str]]:
        ids = [self.mem(f"{name}-{t}", s, c, importance=importance) for t, s, c in _TRIPS]
        out = consolidation.synthesize_cluster(self.g.db, self.g.config,
                                               Cluster(tuple(ids), EPISTEMIC_NAMESPACE, "ana-travel"),
                                               synthesizer=OfflineSynthesizer(), budget=self.budget, now=self.now)
        return self.g.approve(out.proposal_id, now=self.now, by="benchmark").insight_id, ids

    def js(self, iid: str) -> dict[str, dict[str, Any]]:
        return {j["kind"]: j for j in self.g.epistemics(iid)["justifications"]}

    def stays_hypothesis(self) -> Outcome:
        iid, ids = self.new_insight("h")
        echo = self.mem("h-echo", "booking-app", "Ana chose the train again for a short trip to Coimbra.")
        try:
            self.g.confirm(iid, echo, now=self.now)
            refused = False
        except ValidationError:
            refused = True
        ep = self.g.epistemics(iid)
        return ep["epistemic_status"] == "hypothesis" and refused, (
            f"{len(ids)} supported members -> {ep['epistemic_status']}; same-source confirmation refused: {refused}")

    def required_premise(self) -> Outcome:
        seen = {}
        for path in _RETIREMENTS:
            iid, ids = self.new_insight(f"r{path}")
            self.lose_premise(path, ids[0])
            seen[path] = (self.js(iid)["synthesis"]["status"], self.g.epistemics(iid)["epistemic_status"])
        ok = all(v == ("withdrawn", "unsupported") for v in seen.values())
        return ok, "; ".join(f"{p}: {s}/{e}" for p, (s, e) in seen.items())

    def lose_premise(self, path: str, m: str) -> None:
        """Take premise `m` away by `path`, the way the product does it."""
        g, now = self.g, self.now
        if path == "edit":
            g.edit(m, content="Ana chose the plane for the short trip from Lisbon to Porto.")
        elif path == "merge":
            twin = self.mem(f"r{path}-twin", "travel-agency", "Ana took the train for the short trip Lisbon-Porto.")
            pair = Pair(a=min(twin, m), b=max(twin, m), score=0.95, title_sim=0.95, cosine=0.95, rule="benchmark",
                        winner=twin, loser=m, namespace=EPISTEMIC_NAMESPACE, subject="ana-travel", versions=(1, 1))
            g.db.write(lambda tx: merge_job._propose(tx, pair, now, f"benchmark-{self.tag}", g.config.merge))
            g.approve(pair.proposal_id, now=now, by="benchmark")
        elif path == "deprecate":
            rep = self.mem(f"r{path}-rep", "travel-agency", "Ana's trips are now booked by the travel agency.")
            g.deprecate(m, replaced_by=rep, dry_run=False, now=now, by="benchmark")
        else:
            self.retire_in_place(path, m)

    def retire_in_place(self, path: str, m: str) -> None:
        """The status change the deprecate / merge job makes, then the call it makes in that transaction.
        A conflict contests a premise only from outside the justification (two premises that differ
        were shown to synthesis together: tensions, not a withdrawal)."""
        now, run_id = self.now, f"benchmark-{self.tag}"
        other = self.mem(f"r{path}-other", "travel-agency", "Ana never took the train from Lisbon to Porto.")

        def change(tx: Any) -> None:
            if path == "archive":
                tx.run("deprecation/retire", rows=[{"id": m, "status": "archived", "rule": "benchmark",
                                                    "replacement": None}], now=now, run_id=run_id,
                       statuses=["consolidated"])
            else:
                tx.run("merge/conflict", a=m, b=other, reasons=["benchmark"], score=0.95, contests=True, now=now,
                       run_id=run_id)
            justification.premises_changed(tx, [m], op=path, cause="benchmark", now=now)

        self.g.db.write(change)

    def independent(self) -> Outcome:
        iid, ids = self.new_insight("i")
        ev = self.mem("i-agency", "travel-agency", "The travel agency books rail for Ana's short trips.")
        self.g.confirm(iid, ev, now=self.now, by="benchmark")
        self.g.edit(ids[1], content="Ana chose the bus for the short trip from Madrid to Valencia.")
        j = self.js(iid)
        status = self.g.epistemics(iid)["epistemic_status"]
        return (j["synthesis"]["status"] == "withdrawn" and j["evidence"]["status"] == "standing"
                and status == "supported"), (f"synthesis {j['synthesis']['status']}, evidence {j['evidence']['status']}"
                                             f" -> {status}")

    def defeats_in_scope(self) -> Outcome:
        iid, ids = self.new_insight("x")
        need = self.mem("x-need", "ana-chat", "With her wheelchair Ana flies: regional trains lack step-free boarding.")
        self.g.add_exception(iid, need, {"context": "accessibility need"}, now=self.now, by="benchmark")
        inside = self.g.status_in(iid, {"context": "accessibility need"})["status"]
        outside = self.g.status_in(iid, {"context": "business trip"})["status"]
        self.state.update(iid=iid, need=need, ids=ids)
        return inside == "defeated" and outside == "hypothesis", f"inside the scope {inside}, outside {outside}"

    def contested(self) -> Outcome:
        iid, need = self.state["iid"], self.state["need"]
        self.g.edit(need, content="Ana sometimes flies with her wheelchair; some regional trains lack step-free boarding.")
        inside = self.g.status_in(iid, {"context": "accessibility need"})["status"]
        outside = self.g.status_in(iid, {})["status"]
        return inside == "uncertain" and outside == "hypothesis", f"exception edited: inside {inside}, outside {outside}"

    def self_derived(self) -> Outcome:
        iid = self.state["iid"]
        try:
            self.g.add_exception(iid, iid, {"context": "anything"}, now=self.now)
        except ValidationError as exc:
            n = self.g.db.run("battery/exceptions_of", id=iid)[0]["n"]
            return n == 0, f"refused: {exc}"
        return False, "an exception derived from the insight itself was accepted"

    def not_archived(self) -> Outcome:
        iid, ids = self.new_insight("a", importance=0.01)  # as weak as a memory the job would archive
        control = self.mem("a-control", "ana-chat", "Ana once asked about sleeper trains.", importance=0.01)
        far = self.now + timedelta(days=3650)
        # every memory weak enough (the weights formula floors an importance of 0.01 at ~0.25): only the
        # consolidation rule can keep the members out
        anyweight = self.g.config.model_copy(deep=True)
        anyweight.deprecation.max_weight = 1.0
        found = {c["id"] for c in deprecation.candidates(self.g.db, anyweight, now=far)}
        return control in found and not found & set(ids), (
            f"archive candidates at +10y: the unconsolidated control is one; members among them: "
            f"{sorted(found & set(ids))}; insight {json.dumps(self.g.get(iid).status)}")

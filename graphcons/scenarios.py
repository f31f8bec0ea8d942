"""Demonstration scenarios: `graphcons scenario incident-consolidation`.

The incident-consolidation scenario (seed 001's DevOps agent) seeds, in its own namespace,
an incident history: repeated "503 after deploy" incidents on checkout that on-call
sessions keep pulling up together (the salient trigger), a cold but tightly linked set of
payments-db pool exhaustions (dense-but-cold), 503s on search that share a root-cause link
with checkout (a different subject: the gate never merges it with checkout), a pair of
certificate expiries (too small to generalise from) and unrelated noise. It then runs the
dry-run scan on that namespace. Seeding is idempotent: a second run only scans.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from graphcons.consolidation.consolidate import synthesize_accepted
from graphcons.consolidation.scan import ScanReport
from graphcons.core.time import utcnow
from graphcons.profiles.reflect import due

NAMESPACE = "scenario-incidents"
_T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)

# (id, subject, kind, content)
INCIDENTS: list[tuple[str, str, str, str]] = [
    ("inc-checkout-1", "checkout-service", "incident", "Checkout returned HTTP 503 errors right after the 4.2 deploy; rolled back."),
    ("inc-checkout-2", "checkout-service", "incident", "Checkout returned HTTP 503 errors right after the 4.3 deploy; rolled back."),
    ("inc-checkout-3", "checkout-service", "incident", "Checkout service returned 503 errors immediately after deploy 4.5; rollback fixed it."),
    ("inc-checkout-4", "checkout-service", "incident", "After deploying checkout 4.7 the service returned HTTP 503 errors until rollback."),
    ("inc-checkout-5", "checkout-service", "incident", "Checkout returned HTTP 503 errors right after the 5.0 deploy; rolled back."),
    ("inc-paydb-1", "payments-db", "incident", "Payments database connection pool exhausted during the nightly batch job."),
    ("inc-paydb-2", "payments-db", "incident", "Payments DB ran out of pooled connections while the nightly batch ran."),
    ("inc-paydb-3", "payments-db", "incident", "Nightly batch exhausted the payments database connection pool again; raised max pool size."),
    ("inc-paydb-4", "payments-db", "incident", "Payments database refused new connections during the nightly batch: pool exhausted."),
    ("inc-search-1", "search-service", "incident", "Search returned HTTP 503 errors right after the 2.1 deploy; rolled back."),
    ("inc-search-2", "search-service", "incident", "Search API answered 503 for ten minutes after the 2.2 rollout."),
    ("inc-search-3", "search-service", "incident", "Search returned HTTP 503 errors after deploy 2.4 until the pods were restarted."),
    ("inc-cert-1", "edge-proxy", "incident", "The TLS certificate of the edge proxy expired and browsers refused the site."),
    ("inc-cert-2", "edge-proxy", "incident", "Edge proxy TLS certificate expired overnight; renewed it by hand."),
    ("note-lunch", "office", "observation", "Team lunch moved to Thursday."),
    ("note-wifi", "office", "observation", "The guest wifi password changes every Monday."),
    ("note-style", "frontend", "decision", "We use tabs in the frontend repository."),
    ("note-oncall", "team", "fact", "The on-call rotation swaps on Wednesdays at noon."),
    ("note-laptop", "it", "observation", "New laptops arrive with the VPN client preinstalled."),
]

LINKS: list[tuple[str, str, str]] = [
    ("inc-paydb-2", "inc-paydb-1", "same_root_cause"),
    ("inc-paydb-3", "inc-paydb-1", "same_root_cause"),
    ("inc-paydb-4", "inc-paydb-3", "same_root_cause"),
    ("inc-search-1", "inc-checkout-1", "same_root_cause"),  # shared load balancer, different service
    ("inc-search-3", "inc-checkout-5", "related"),
]

SESSIONS: list[tuple[str, list[str]]] = [
    ("oncall-1", ["inc-checkout-1", "inc-checkout-2", "inc-checkout-3"]),
    ("oncall-2", ["inc-checkout-2", "inc-checkout-3", "inc-checkout-4", "inc-checkout-5"]),
    ("oncall-3", ["inc-checkout-1", "inc-checkout-4", "inc-checkout-5"]),
    ("oncall-4", ["inc-checkout-1", "inc-checkout-2", "inc-checkout-3", "inc-checkout-4", "inc-checkout-5"]),
    ("oncall-5", ["note-oncall", "inc-cert-1"]),
]


def admit_missing(g: Any, memories: list[dict[str, Any]]) -> tuple[int, int]:
    """Admit the memories whose ids are not stored yet (scenarios and the battery re-run
    safely); returns (admitted now, already there)."""
    existing = set(g.db.run("memory/existing_ids", ids=[m["id"] for m in memories])[0]["found"])
    for m in memories:
        if m["id"] not in existing:
            g.add(m)
    return len(memories) - len(existing), len(existing)


def seed_incidents(g: Any) -> dict[str, int]:
    """Admit the scenario's memories, links and sessions unless they are already there."""
    seeded, existing = admit_missing(g, [
        {"id": mid, "content": content, "subject": subject, "kind": kind, "namespace": NAMESPACE,
         "source": "scenario:incident-consolidation", "created_at": _T0 + timedelta(hours=6 * n)}
        for n, (mid, subject, kind, content) in enumerate(INCIDENTS)])
    if seeded:  # links and sessions only on the first run (co-access counts once per session)
        for a, b, kind in LINKS:
            g.link(a, b, kind, by="scenario:incident-consolidation")
        for session, members in SESSIONS:
            g.access(f"scenario-{session}", members)
    return {"seeded": seeded, "existing": existing}


def incident_consolidation(g: Any, *, now: datetime | None = None, synthesize: bool = True) -> dict[str, Any]:
    """Seed the incident history (idempotent), run the dry-run scan on its namespace, then
    synthesize its accepted clusters into pending proposals (issue 4; nothing is applied)."""
    now = now or utcnow()
    counts = seed_incidents(g)
    report: ScanReport = g.scan(now=now, namespace=NAMESPACE)
    out = {"namespace": NAMESPACE, **counts, "report": report}
    if synthesize:
        from graphcons.consolidation.synthesis import make_synthesizer

        synth = make_synthesizer(g.config.llm)  # the configured one, named in the result
        out["synthesizer"] = {"provider": synth.provider, "model": synth.model}
        out["synthesis"] = synthesize_accepted(g.db, g.config, report.accepted, now=now, synthesizer=synth)[0]
    return out


# -- travel-preferences (seed 002's own example) ---------------------------------------------------
TRAVEL_NAMESPACE = "scenario-travel"
TRAVEL_SUBJECT = "traveller-ana"
_TRAVEL_T0 = datetime(2026, 2, 2, 8, 0, tzinfo=timezone.utc)
_TRAVEL_NOW = datetime(2026, 4, 1, 12, 0, tzinfo=timezone.utc)
# (id, kind, source, content): four supported travel decisions from different sources
TRIPS: list[tuple[str, str, str, str]] = [
    ("trip-porto", "decision", "booking-app", "Ana chose the train for the short trip from Lisbon to Porto (310 km)."),
    ("trip-valencia", "decision", "calendar", "Ana chose the train for the short trip from Madrid to Valencia (300 km)."),
    ("trip-lyon", "decision", "ana-chat", "Ana chose the train for the short trip from Paris to Lyon (390 km)."),
    ("trip-turin", "decision", "expense-report", "Ana chose the train for the short trip from Milan to Turin (140 km)."),
]
ACCESS_NEED = ("ana-access-need", "fact", "ana-chat",
               "When Ana travels with her wheelchair she flies even on short trips: the regional trains on her "
               "routes have no step-free boarding.")
AGENCY = ("agency-report", "observation", "travel-agency",
          "The travel agency reports that Ana books rail for short trips and flights only for long ones.")
ACCESS_SCOPE = {"context": "accessibility need"}


def _travel_state(g: Any, iid: str, step: str, note: str) -> dict[str, Any]:
    ep = g.epistemics(iid)
    return {"step": step, "note": note, "epistemic_status": ep["epistemic_status"], "scopes": ep["scopes"],
            "justifications": [{"id": j["id"], "kind": j["kind"], "status": j["status"],
                                "premises": [{"id": p["id"], "version": p["version"], "required": p["required"],
                                              "status": p["status"]} for p in j["premises"]]}
                               for j in ep["justifications"]],
            "exceptions": [{"memory_id": e["memory_id"], "scope": e["scope"], "status": e["status"]}
                           for e in ep["exceptions"]],
            "in_accessibility_context": g.status_in(iid, {"context": "accessibility need"})["status"],
            "elsewhere": g.status_in(iid, {})["status"]}


def travel_preferences(g: Any) -> dict[str, Any]:
    """Seed 002's example, step by step: supported trips -> hypothesis "chooses trains for short
    trips" -> an accessibility-need exception (defeated within its scope only) -> independent
    evidence (supported) -> one required premise withdrawn (the other justification stands).
    Runs once on a fresh store; a second run reports the insight's current state."""
    from graphcons.consolidation import insight as insight_kind
    from graphcons.consolidation.budget import Budget
    from graphcons.consolidation.cluster import Cluster, membership_hash
    from graphcons.consolidation.consolidate import synthesize_cluster
    from graphcons.consolidation.synthesis import make_synthesizer

    source = "scenario:travel-preferences"
    synth = make_synthesizer(g.config.llm)  # the configured one ([llm] provider), named in the result
    cluster = Cluster(tuple(t[0] for t in TRIPS), TRAVEL_NAMESPACE, TRAVEL_SUBJECT)
    pid = insight_kind.proposal_id(cluster.key, membership_hash({t[0]: 1 for t in TRIPS}))
    iid = insight_kind.insight_id_for(pid)
    if g.db.run("memory/existing_ids", ids=[iid])[0]["found"]:
        return {"insight_id": iid, "namespace": TRAVEL_NAMESPACE, "already_ran": True,
                "steps": [_travel_state(g, iid, "current", "the scenario ran before: its insight as it stands")]}
    admit_missing(g, [{"id": mid, "content": content, "kind": kind, "subject": TRAVEL_SUBJECT, "source": src,
                       "namespace": TRAVEL_NAMESPACE, "created_at": _TRAVEL_T0 + timedelta(days=7 * n)}
                      for n, (mid, kind, src, content) in enumerate([*TRIPS, ACCESS_NEED, AGENCY])])
    steps = []
    out = synthesize_cluster(g.db, g.config, cluster, synthesizer=synth, now=_TRAVEL_NOW,
                             budget=Budget(daily_cap=10_000, used_today=0, max_calls=0))
    if out.proposal_id != pid:
        raise RuntimeError(f"travel scenario: synthesis by the {synth.provider} synthesizer ({synth.model}) gave "
                           f"{out.status}: {out.reason}")
    g.approve(pid, by=source, now=_TRAVEL_NOW)
    who = "the offline (extractive) synthesizer" if synth.provider == "offline" else f"the model {synth.model!r}"
    steps.append(_travel_state(g, iid, "approved", f"a generalisation proposed by {who}: a hypothesis, however "
                                                   "many supported trips it rests on"))
    g.add_exception(iid, ACCESS_NEED[0], ACCESS_SCOPE, by=source, now=_TRAVEL_NOW + timedelta(hours=1))
    steps.append(_travel_state(g, iid, "exception", "a supported exception defeats it within its scope only"))
    g.confirm(iid, AGENCY[0], by=source, now=_TRAVEL_NOW + timedelta(hours=2))
    steps.append(_travel_state(g, iid, "confirmed", "independent evidence (a source no premise came from): supported"))
    g.edit("trip-valencia", source=source,
           content="Ana chose the bus, not the train, for the short trip from Madrid to Valencia (300 km).")
    steps.append(_travel_state(g, iid, "premise withdrawn", "a required premise changed: the synthesis "
                                                            "justification is withdrawn, the evidence stands"))
    return {"insight_id": iid, "namespace": TRAVEL_NAMESPACE, "title": g.get(iid).title,
            "synthesizer": {"provider": synth.provider, "model": synth.model}, "steps": steps}
# -- entity reflection (issue 14, seed 004): what do we know about user-ana? ---------------------
PEOPLE_NAMESPACE = "scenario-people"
_P0 = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)

# (id, subject, kind, content): user-ana has 15 memories (due: 10+), user-bo 4 (not due).
PEOPLE: list[tuple[str, str, str, str]] = [
    ("ana-01", "user-ana", "preference", "Ana prefers TypeScript over JavaScript for every new service."),
    ("ana-02", "user-ana", "episode", "Ana asked for the code review examples to be rewritten in TypeScript."),
    ("ana-03", "user-ana", "observation", "Ana said strongly typed languages save her time; TypeScript above all."),
    ("ana-04", "user-ana", "preference", "Ana prefers the train to flying for trips under 500 km."),
    ("ana-05", "user-ana", "episode", "Ana booked the train to Porto for the offsite instead of a flight."),
    ("ana-06", "user-ana", "observation", "Ana takes the train to the office on Tuesdays and Thursdays."),
    ("ana-07", "user-ana", "observation", "Ana usually reviews pull requests first thing in the morning."),
    ("ana-08", "user-ana", "episode", "Ana reviewed four pull requests before 9am again."),
    ("ana-09", "user-ana", "observation", "Ana reviews pull requests every morning before standup."),
    ("ana-10", "user-ana", "fact", "Ana works on the payments team in Lisbon."),
    ("ana-11", "user-ana", "fact", "Ana is the maintainer of the checkout SDK."),
    ("ana-12", "user-ana", "episode", "Ana joined the payments team in March 2025."),
    ("ana-13", "user-ana", "decision", "Ana decided the checkout SDK will drop Node 16 support."),
    ("ana-14", "user-ana", "preference", "Ana likes concise answers with the code first."),
    ("ana-15", "user-ana", "episode", "Ana was annoyed by a long explanation and asked for the short version."),
    ("bo-01", "user-bo", "preference", "Bo prefers Python for data scripts."),
    ("bo-02", "user-bo", "observation", "Bo cycles to work when it is not raining."),
    ("bo-03", "user-bo", "fact", "Bo leads the data platform team."),
    ("bo-04", "user-bo", "episode", "Bo asked for the quarterly report as a notebook."),
]


def seed_people(g: Any, *, namespace: str = PEOPLE_NAMESPACE, prefix: str = "") -> dict[str, int]:
    """Admit the people scenario's memories (ids and subjects `prefix` + ...) unless already there."""
    seeded, existing = admit_missing(g, [
        {"id": prefix + mid, "content": content, "subject": prefix + subject, "kind": kind, "namespace": namespace,
         "source": f"chat:{subject}", "created_at": _P0 + timedelta(days=2 * n)}
        for n, (mid, subject, kind, content) in enumerate(PEOPLE)])
    return {"seeded": seeded, "existing": existing}


def entity_reflection(g: Any, *, now: datetime | None = None) -> dict[str, Any]:
    """Seed the people scenario, list who is due (user-ana, not user-bo) and reflect on user-ana:
    a pending `reflect` proposal with her TypeScript and train preferences citing her memories."""
    now = now or utcnow()
    counts = seed_people(g)
    out = {"namespace": PEOPLE_NAMESPACE, **counts, "due": due(g.db, g.config, namespace=PEOPLE_NAMESPACE)}
    out["reflection"] = g.reflect("user-ana", namespace=PEOPLE_NAMESPACE, now=now)
    return out

"""Seed 004's checks (issue 14): user-ana's profile holds her TypeScript and train preferences
citing her memories; a reflection citing no shown memory is rejected; applying one marks its
sources consolidated and writes a new profile version."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphcons.battery.base import NAMESPACE, Outcome, Register
from graphcons.consolidation.synthesis.models import CATEGORIES, Reflection, Statement
from graphcons.core.errors import Ungrounded
from graphcons.profiles import reflect as reflection
from graphcons.profiles.offline_reflection import OfflineReflector
from graphcons.profiles.reflection_grounding import ground_reflection
from graphcons.scenarios import seed_people

SUBJECT = "bench-user-ana"


def reflection_checks(g: Any, now: datetime, check: Register) -> None:
    """Seed user-ana's chat memories in the battery namespace (subject bench-user-ana, ids bench-ana-..: never
    mixed up with a demo's user-ana), reflect offline and apply."""
    seed_people(g, namespace=NAMESPACE, prefix="bench-")
    budget = reflection.budget_for_run(g.db, g.config, now)  # the user's caps (issue 30)
    res = reflection.reflect(g.db, g.config, g.embedder, SUBJECT, namespace=NAMESPACE, now=now,
                             synthesizer=OfflineReflector(), budget=budget, auto_apply=False)
    check("reflection extracts cited statements", lambda: _preferences(res))
    check("a reflection citing no shown memory is rejected", _grounded)
    check("applied reflection consolidates its cited sources and versions the profile", lambda: _applied(g, res, now))


def _preferences(res: Any) -> Outcome:
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


def _grounded() -> Outcome:
    fake = Reflection(preferences=[Statement(statement="Prefers Rust", memory_ids=["bench-invented"])], summary="x")
    try:
        ground_reflection(fake, ["bench-ana-01"])
    except Ungrounded as exc:
        return True, str(exc)
    return False, "a reflection citing no shown memory was accepted"


def _applied(g: Any, res: Any, now: datetime) -> Outcome:
    if res.status == "proposed":
        g.approve(res.proposal_id, now=now, by="benchmark")
    prof = g.profile(SUBJECT, namespace=NAMESPACE)
    # a reflection consolidates what it cited, nothing more (issue 31): an uncited memory stays active
    cited = {i for c in CATEGORIES for e in prof.get(c, []) for i in e["sources"]}
    ids = [f"bench-ana-{i:02d}" for i in range(1, 16)]
    wrong = [i for i in ids if g.get(i).status != ("consolidated" if i in cited else "active")]
    versions = g.profile_history(SUBJECT, namespace=NAMESPACE)
    ok = bool(cited) and not wrong and prof["version"] == len(versions) >= 1
    return ok, (f"{len(cited)} cited source(s) consolidated, the other {len(set(ids) - cited)} active; "
                f"status not so: {wrong}; profile version {prof['version']} ({len(versions)} kept)")

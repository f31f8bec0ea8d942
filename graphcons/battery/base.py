"""What every seed's checks share: the check record, running one, the results of a run and the
budget refusal, and the battery's namespaces."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable

from graphcons.core.errors import Conflict

NAMESPACE = "graphcons-benchmark"
#: Seed 002's scratch namespace: fresh memories every run, archived when the run ends.
EPISTEMIC_NAMESPACE = "graphcons-benchmark-epistemics"
SOURCE_T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
#: The most syntheses one run starts (a fresh store: 3 clusters + the forced fabricated one + 9
#: epistemic insights); a run refuses to start with fewer left under today's daily_cap.
SYNTHESES_PER_RUN = 13


class BudgetSpent(Conflict):
    """The day's synthesis cap has too little room left for a battery run (nothing was written)."""


@dataclass
class Check:
    name: str
    passed: bool
    detail: str


Outcome = tuple[bool, str]
Register = Callable[[str, Callable[[], Outcome]], None]  # check(name, fn): run it, keep the result


def run_check(name: str, fn: Callable[[], Outcome]) -> Check:
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

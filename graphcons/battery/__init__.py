"""`graphcons benchmark`: the battery of named checks, one module per seed system.

It seeds a small episode history in its own namespace (`graphcons-benchmark`, fixed ids, so
re-running reuses it: graphcons never deletes, and a second run finds the same memories),
runs the real pipeline on the connected store (scan -> gate -> offline synthesis ->
proposals -> approve -> explain -> precompute) and checks what a user would check. Run it
against a scratch database if you do not want its memories in yours.

    base           the check record, a run's results, the budget refusal, the namespaces
    consolidation  seed 001 (and the guards of issue 4): checks 1-12
    reflection     seed 004 (issue 14): checks 13-15
    epistemics     seed 002 (issue 13): seven checks in a scratch namespace
    runner         run_battery: the cap check, the seeds in that order, the scratch archive

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
"""

from graphcons.battery.base import (EPISTEMIC_NAMESPACE, NAMESPACE, SOURCE_T0, SYNTHESES_PER_RUN, BatteryResults,
                                    BudgetSpent, Check, Register, run_check)
from graphcons.battery.consolidation import EPISODES, GROUPS, NOISE, InventingSynthesizer, seed
from graphcons.battery.epistemics import epistemic_checks
from graphcons.battery.reflection import reflection_checks
from graphcons.battery.runner import archive_scratch, run_battery

__all__ = ["EPISODES", "EPISTEMIC_NAMESPACE", "GROUPS", "NAMESPACE", "NOISE", "SOURCE_T0", "SYNTHESES_PER_RUN",
           "BatteryResults", "BudgetSpent", "Check", "InventingSynthesizer", "Register", "archive_scratch",
           "epistemic_checks", "reflection_checks", "run_battery", "run_check", "seed"]

"""Bounded synthesis work (principle 8, seeds 000 and 002).

Two budgets, both checked *before* a synthesis starts:

- `[consolidation] daily_cap`: at most this many synthesis attempts per UTC day over every
  namespace (the ceiling), and `namespace_daily_cap` per namespace (issue 30: one tenant that
  spends its share leaves the rest of the ceiling to the others; reflection has the same pair
  under `[reflection]`). Each
  attempt reserves its slot in Neo4j first (cypher/synthesis/reserve.cypher: one atomic
  conditional write on the day's `(:SynthesisBudget)`), so any number of workers and
  manual runs together never exceed the cap; the day's counter starts from the audited
  syntheses. A reservation is per cluster membership: a worker killed mid-synthesis leaves
  it open, and the worker that takes its lease over resumes it instead of spending a second
  slot; while another live run holds it, the cluster is left pending (no second LLM call).
  A manual run killed mid-synthesis holds its cluster's reservation until the day ends;
- `[llm] max_calls_per_run` (or `[jobs.consolidate] llm_budget`): at most this many LLM
  calls in one run (0 = no limit), and `max_syntheses` per run (`[jobs.consolidate]
  max_items`); a run lives in one process under its lease, so these count in memory.
  The offline synthesizer makes no calls.

When a budget is spent the remaining clusters stay pending (recorded as such on their
SynthesisTask) and a later run picks them up; nothing falls back to a weaker rule.
`needs_synthesis` is the other half: a cluster is synthesized again only when its
membership hash (member ids + versions) changed since the last proposal for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, time, timedelta, timezone
from typing import Any

from graphcons.core.config import Config
from graphcons.core.db import Database

#: Task statuses after which the same membership is not synthesized again.
SETTLED = ("proposed", "applied", "rejected", "reverted", "ungrounded", "no_pattern")


def day_bounds(now: datetime) -> tuple[datetime, datetime]:
    start = datetime.combine(now.astimezone(timezone.utc).date(), time(0), tzinfo=timezone.utc)
    return start, start + timedelta(days=1)


def used_today(db: Database, now: datetime) -> int:
    start, end = day_bounds(now)
    return db.run("synthesis/daily_count", start=start, end=end)[0]["n"]


def reservation_id(day: str, cluster_key: str, membership_hash: str) -> str:
    return f"{day}|{cluster_key}|{membership_hash}"


def settle(runner: Any, now: datetime, cluster_key: str, membership_hash: str, outcome: str) -> None:
    """Mark this membership's reservation of the day as used (in the outcome's transaction)."""
    day = day_bounds(now)[0].date().isoformat()
    runner.run("synthesis/settle", id=reservation_id(day, cluster_key, membership_hash), outcome=outcome, now=now)


@dataclass
class Budget:
    daily_cap: int
    used_today: int
    max_calls: int  # 0 = unlimited
    calls: int = 0
    started: int = 0
    max_syntheses: int = 0  # per run, 0 = unlimited
    resumed: int = 0  # reservations a killed run left and this run used
    namespace_cap: int = 0  # per namespace and UTC day, 0 = only the ceiling (daily_cap)
    namespaces: dict[str, int] = field(default_factory=dict)  # used today per namespace, as last read
    limit_key: str = "[jobs.consolidate] max_items"  # the setting a run limit refusal names

    @classmethod
    def for_run(cls, db: Database, cfg: Config, now: datetime, *, max_calls: int | None = None,
                max_syntheses: int = 0) -> "Budget":
        return cls(daily_cap=cfg.consolidation.daily_cap, used_today=used_today(db, now),
                   max_calls=cfg.llm.max_calls_per_run if not max_calls else max_calls, max_syntheses=max_syntheses,
                   namespace_cap=cfg.consolidation.namespace_daily_cap)

    def refusal(self, calls_needed: int) -> str | None:
        """Why a synthesis needing `calls_needed` LLM calls may not start in this run (None: it may)."""
        if self.max_syntheses and self.started >= self.max_syntheses:
            return f"run limit reached ({self.max_syntheses} syntheses per run, {self.limit_key})"
        if self.max_calls and self.calls + calls_needed > self.max_calls:
            return f"provider budget spent ({self.calls} of {self.max_calls} LLM calls this run)"
        return None

    def cap_refusal(self, what: str = "syntheses", key: str = "[consolidation] daily_cap", *,
                    namespace: str | None = None, used_in_namespace: int = 0) -> str | None:
        """The daily caps counted in this process (used before the run + started in it), for work
        that takes no reservation in Neo4j (reflection has its own caps): the ceiling, then the
        namespace's share (`used_in_namespace` read from the store); None while there is room."""
        if self.daily_cap and self.used_today + self.started >= self.daily_cap:
            return (f"daily cap reached ({self.used_today + self.started} of {self.daily_cap} {what} today, {key}); "
                    "it stays due for the next day")
        if namespace is not None:
            self.namespaces[namespace] = used_in_namespace
            if self.namespace_cap and used_in_namespace >= self.namespace_cap:
                return (f"namespace cap reached ({used_in_namespace} of {self.namespace_cap} {what} today in "
                        f"{namespace!r}, {key.replace('daily_cap', 'namespace_daily_cap')}); it stays due for the "
                        "next day, other namespaces go on")
        return None

    def reserve(self, db: Database, now: datetime, cluster_key: str, membership_hash: str, run_id: str,
                namespace: str = "default") -> str | None:
        """Take one slot of the day's ceiling and of the namespace's share in Neo4j (atomic across
        workers); the refusal, or None."""
        start, end = day_bounds(now)
        day = start.date().isoformat()
        row = db.run("synthesis/reserve", day=day, start=start, end=end, now=now, cap=self.daily_cap,
                     ns_cap=self.namespace_cap, namespace=namespace,
                     id=reservation_id(day, cluster_key, membership_hash), key=cluster_key,
                     membership_hash=membership_hash, run_id=run_id)[0]
        self.namespaces[namespace] = row["namespace_reserved"]
        if row["busy"]:
            return f"being synthesized by run {row['held_by']}"
        if not row["granted"] and row["ceiling_full"]:
            return f"daily cap reached ({self.daily_cap} syntheses per day) over all namespaces ([consolidation] daily_cap)"
        if not row["granted"]:
            return (f"namespace cap reached ({self.namespace_cap} syntheses per day in {namespace!r}, "
                    "[consolidation] namespace_daily_cap); other namespaces go on")
        self.resumed += int(row["resumed"])
        return None

    def start(self) -> None:
        self.started += 1

    def spend(self, calls: int) -> None:
        self.calls += calls

    def figures(self) -> dict[str, Any]:
        return {"daily_cap": self.daily_cap, "used_today_before_run": self.used_today, "started": self.started,
                "resumed_reservations": self.resumed, "llm_calls": self.calls, "max_calls_per_run": self.max_calls,
                "max_syntheses_per_run": self.max_syntheses, "namespace_daily_cap": self.namespace_cap,
                "used_today_by_namespace": dict(sorted(self.namespaces.items()))}


def needs_synthesis(task: dict[str, Any] | None, membership_hash: str) -> bool:
    """False when this exact membership already has a settled outcome (re-run only on change)."""
    if task is None:
        return True
    return not (task.get("membership_hash") == membership_hash and task.get("status") in SETTLED)

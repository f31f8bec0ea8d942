"""Bounded synthesis work (principle 8, seeds 000 and 002).

Two budgets, both checked *before* a synthesis starts:

- `[consolidation] daily_cap`: at most this many synthesis attempts per UTC day, counted
  from the audit trail ('synthesize' records), so separate runs on one day share the cap;
- `[llm] max_calls_per_run`: at most this many LLM calls in one run (0 = no limit); the
  offline synthesizer makes none.

When a budget is spent the remaining clusters stay pending (recorded as such on their
SynthesisTask) and a later run picks them up; nothing falls back to a weaker rule.
`needs_synthesis` is the other half: a cluster is synthesized again only when its
membership hash (member ids + versions) changed since the last proposal for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone
from typing import Any

from graphcons.core.config import Config
from graphcons.core.db import Database

#: Task statuses after which the same membership is not synthesized again.
SETTLED = ("proposed", "applied", "rejected", "reverted", "ungrounded")


def day_bounds(now: datetime) -> tuple[datetime, datetime]:
    start = datetime.combine(now.astimezone(timezone.utc).date(), time(0), tzinfo=timezone.utc)
    return start, start + timedelta(days=1)


def used_today(db: Database, now: datetime) -> int:
    start, end = day_bounds(now)
    return db.run("synthesis/daily_count", start=start, end=end)[0]["n"]


@dataclass
class Budget:
    daily_cap: int
    used_today: int
    max_calls: int  # 0 = unlimited
    calls: int = 0
    started: int = 0

    @classmethod
    def for_run(cls, db: Database, cfg: Config, now: datetime) -> "Budget":
        return cls(daily_cap=cfg.consolidation.daily_cap, used_today=used_today(db, now),
                   max_calls=cfg.llm.max_calls_per_run)

    def refusal(self, calls_needed: int) -> str | None:
        """Why a synthesis needing `calls_needed` LLM calls may not start now (None: it may)."""
        if self.used_today + self.started >= self.daily_cap:
            return f"daily cap reached ({self.daily_cap} syntheses per day)"
        if self.max_calls and self.calls + calls_needed > self.max_calls:
            return f"provider budget spent ({self.calls} of {self.max_calls} LLM calls this run)"
        return None

    def start(self) -> None:
        self.started += 1

    def spend(self, calls: int) -> None:
        self.calls += calls

    def figures(self) -> dict[str, Any]:
        return {"daily_cap": self.daily_cap, "used_today_before_run": self.used_today, "started": self.started,
                "llm_calls": self.calls, "max_calls_per_run": self.max_calls}


def needs_synthesis(task: dict[str, Any] | None, membership_hash: str) -> bool:
    """False when this exact membership already has a settled outcome (re-run only on change)."""
    if task is None:
        return True
    return not (task.get("membership_hash") == membership_hash and task.get("status") in SETTLED)

"""Cron schedules of the jobs: parsed by croniter, never by hand; always in UTC.

`next_after(expr, t)` is the first fire time strictly after `t`; `period(expr, t)` the gap
between the two fire times that follow `t` (for "overdue by more than twice its period").
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from croniter import croniter


def check(expr: str) -> str:
    """The expression if croniter accepts it (five fields), else ValueError saying why."""
    if not isinstance(expr, str) or len(expr.split()) != 5:
        raise ValueError(f"{expr!r} is not a cron expression (five fields: minute hour day month weekday)")
    if not croniter.is_valid(expr):
        raise ValueError(f"{expr!r} is not a valid cron expression")
    return expr


def next_after(expr: str, t: datetime) -> datetime:
    return croniter(expr, t.astimezone(timezone.utc)).get_next(datetime)


def period(expr: str, t: datetime) -> timedelta:
    it = croniter(expr, t.astimezone(timezone.utc))
    first = it.get_next(datetime)
    return it.get_next(datetime) - first

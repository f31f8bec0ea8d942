"""Event time in a query (issues 47, 61): "what did I paint in June 2023?", "where did we go last
year?".

The question's own time (issue 61): with `when` left out and `[retrieval] question_time` on, the
query's time phrases are resolved with core/eventtime against `as_of`, else the caller's `now`
(else the clock): "in June 2023" is 1-30 June 2023, "last year" the calendar year before, and the
window boosts. A query that names no time is ranked exactly as without a window. `when="auto"` asks
for the same whatever the setting; `when="off"` for none. An explicit window is ISO text, "2023-06"
(a month), "2023" (a year), "2023-06-01" (a day) or "START/END" with either form, a date, or a
(start, end) pair of dates.

A memory is in the window when its event interval (`event_start`..`event_end`, what its text says
happened, core/eventtime) overlaps it, else when the day it was said (`created_at`) falls inside.
`when_mode="boost"` (the default) moves in-window memories up: they rank as if their score were
`WHEN_BOOST` x the best candidate's score higher (the reported `score` is unchanged); the order is
then by that key, so the diversity step's order is not kept. `"restrict"` shows in-window memories
only. The boost is a modest default, not a fitted one (measured: docs/RETRIEVAL.md, "Event time").
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

from graphcons.core.errors import ValidationError
from graphcons.core.eventtime import resolve
from graphcons.core.time import utcnow
from graphcons.recall.hits import Candidate

WHEN_BOOST = 0.25
MODES = ("boost", "restrict")
WHEN_HINT = ('must be "auto", "off", a date or month or year ("2023-06-01", "2023-06", "2023"), "START/END" of those, '
             "a date, or a (start, end) pair of dates")


@dataclass(frozen=True, slots=True)
class Window:
    """The days a query asks about (both included), and whether to keep only those memories."""

    start: date
    end: date
    restrict: bool = False
    source: Literal["question", "when"] = "when"  # the query's own phrases (auto), or the caller's window
    phrases: tuple[str, ...] = ()  # the query's phrases it was resolved from

    def to_dict(self) -> dict[str, Any]:
        """What `explain`, a hit list and a context show of it."""
        out: dict[str, Any] = {"start": self.start.isoformat(), "end": self.end.isoformat(),
                               "mode": "restrict" if self.restrict else "boost", "source": self.source}
        if self.phrases:
            out["phrases"] = list(self.phrases)
        return out

    def holds(self, t: dict[str, Any]) -> bool:
        """Whether a memory (its times row: created_at, event_start, event_end) falls in the window."""
        if t.get("event_start"):
            start = date.fromisoformat(t["event_start"][:10])
            end = date.fromisoformat((t.get("event_end") or t["event_start"])[:10])
        else:
            said = t.get("created_at")
            if not isinstance(said, (date, datetime)):
                return False
            start = end = said.date() if isinstance(said, datetime) else said
        return start <= self.end and self.start <= end


def window(when: Any, when_mode: Any, query: str, ref: datetime | None, *, question: bool = False) -> Window | None:
    """The window a call asks for, checked; None when there is none or its query names no time.
    `ref`: what "last year" is resolved against (as_of or the caller's now; the clock when none).
    `question`: `when` left out means the query's own time (`[retrieval] question_time`)."""
    if when_mode is not None and when_mode not in MODES:
        raise ValidationError("when_mode", f"must be one of {', '.join(MODES)}")
    if when is None or when == "off":
        if when_mode is not None:
            raise ValidationError("when_mode", "needs `when` (\"auto\" or a window)")
        return asked(query, ref, False) if question and when is None else None
    if when == "auto":
        return asked(query, ref, when_mode == "restrict")
    return _given(when, when_mode == "restrict")


def asked(query: str, ref: datetime | None, restrict: bool) -> Window | None:
    """The days the query's own time phrases name, resolved against `ref`; None when it names none."""
    found = resolve(query, ref or utcnow())
    if not found:
        return None
    return Window(min(e.start for e in found), max(e.end for e in found), restrict, "question",
                  tuple(e.expression for e in found))


def _given(when: Any, restrict: bool) -> Window:
    """An explicit window: ISO text, a date, or a (start, end) pair."""
    if isinstance(when, str):
        parts = when.split("/")
        if len(parts) > 2:
            raise ValidationError("when", WHEN_HINT)
        start, end = _span(parts[0]), _span(parts[-1])
        span = (start[0], end[1])
    elif isinstance(when, date):  # a datetime is a date too: its day
        span = _span(when)
    elif isinstance(when, (tuple, list)) and len(when) == 2:
        span = (_span(when[0])[0], _span(when[1])[1])
    else:
        raise ValidationError("when", WHEN_HINT)
    if span[0] > span[1]:
        raise ValidationError("when", f"starts after it ends ({span[0]} > {span[1]})")
    return Window(span[0], span[1], restrict)


def _span(value: Any) -> tuple[date, date]:
    """A day, month or year as its first and last day."""
    if isinstance(value, datetime):
        return value.date(), value.date()
    if isinstance(value, date):
        return value, value
    try:
        text = value.strip() if isinstance(value, str) else ""
        if len(text) == 4:
            return date(int(text), 1, 1), date(int(text), 12, 31)
        if len(text) == 7:
            year, month = int(text[:4]), int(text[5:])
            return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
        day = date.fromisoformat(text)
        return day, day
    except ValueError:
        pass
    raise ValidationError("when", f"{WHEN_HINT}; got {value!r}")


def apply(order: list[Candidate], known: dict[str, dict[str, Any]], w: Window | None) -> list[Candidate]:
    """The ranking with the window applied: in-window memories only (restrict), or moved up (boost)."""
    if w is None:
        return order
    inside = {h.id for h in order if w.holds(known.get(h.id, {}))}
    if w.restrict:
        return [h for h in order if h.id in inside]
    if not inside:
        return order
    lift = WHEN_BOOST * max((abs(h.score) for h in order), default=1.0)
    # sorted() is stable: equal keys keep the ranking's order
    return sorted(order, key=lambda h: (h.memory.epistemic_status == "unsupported",
                                        -round(h.score + (lift if h.id in inside else 0.0), 9)))

"""Event time (issue 47): when what a memory says happened, resolved against when it was said.

"ran a charity race last Saturday", said on Thursday 25 May 2023, happened on Saturday 20 May
2023; "painted it last year" in 2022; "going camping next month" in June 2023. A memory's
`created_at` is when it was said; its text often places the event elsewhere. `resolve(text,
said_at)` finds such expressions and resolves each to a span (start, end) with its granularity
(day, weekend, week, month, year); an expression it cannot place stays text: it never guesses.

Why rules and not a parser library: measured on the LoCoMo dev observations (issue 47; figures in
docs/RETRIEVAL.md), dateparser's `search_dates` took 76 ms a text (admission's whole budget is
10 ms), returned one day for "last year" and "last week" (no granularity) and read "once or twice
a year" as a date; ctparse resolved "last Friday" to the Friday after. Relative expressions in
speech are few and regular: the rules below cover them, each one tested, in about 50 µs a text.

Conventions (the ones people use and the dev data's answers follow):
- "last <weekday>": the latest such day strictly before the day it was said; "next <weekday>":
  the first strictly after; a bare weekday ("on Friday") is left alone (either side is possible).
- "last / next week | month | year": the calendar week (Monday-Sunday), month or year before or
  after the one it was said in; "this ..." the one it was said in.
- "last weekend" the Saturday-Sunday before; "next / this weekend" the coming one.
- "N days | weeks | months | years ago" / "in N ...": N units before / after, at that unit's
  granularity; "a few", "some", "several" are not numbers and stay text.
- Absolute dates ("8 May 2023", "May 8, 2023", "May 2023", "in 2021") resolve as written; a month
  or day without a year stays text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from graphcons.core.time import day as _day

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2}
VERSION = 1  # stored on every memory it has read (`event_resolver`): a later version re-reads older ones
GRANULARITIES = ("day", "weekend", "week", "month", "season", "year")

WEEKDAY_ABBREVIATIONS = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4}  # not "sat", "sun"
SEASONS = {"spring": (3, 5), "summer": (6, 8), "fall": (9, 11), "autumn": (9, 11)}  # winter spans two years: left alone
_WD = "|".join(WEEKDAYS) + "|" + "|".join(sorted(WEEKDAY_ABBREVIATIONS, key=len, reverse=True))
_MON = "|".join(MONTHS) + "|" + "|".join(m[:3] for m in MONTHS) + "|sept"
_NUM = r"\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True))
_UNIT = r"days?|weeks?|weekends?|months?|years?"
_YEAR = r"(?:19|20)\d{2}"
PATTERNS = [  # (kind, regex); the first that matches a stretch of text wins, longest patterns first
    ("day_month_year", rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MON})\.?,?\s+({_YEAR})\b"),
    ("month_day_year", rf"\b({_MON})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+({_YEAR})\b"),
    ("month_year", rf"\b(?:in\s+)?({_MON})\.?,?\s+(?:of\s+)?({_YEAR})\b"),
    ("ago", rf"\b({_NUM})\s+({_UNIT})\s+ago\b"),
    ("in_units", rf"\bin\s+({_NUM})\s+({_UNIT})\b(?!\s+ago)"),
    ("relative_weekday", rf"\b(last|this past|past|next)\s+({_WD})\b"),
    ("relative_unit", r"\b(last|this past|past|next|this|(?<=the )previous|(?<=the )preceding)\s+(weekend|week|month|year)\b"),
    ("season", r"\b(last|this past|next|this)\s+(spring|summer|fall|autumn)\b"),
    ("the_day", r"\b(the day before yesterday|the day after tomorrow|yesterday|today|tonight|tomorrow|last night)\b"),
    ("year", rf"\b(?:in|during|since|of)\s+({_YEAR})\b"),
]
_COMPILED = [(kind, re.compile(rx, re.IGNORECASE)) for kind, rx in PATTERNS]
# What each pattern cannot match without: in an ASCII text (lower-cased, where case-insensitive
# matching is plain), a pattern whose every group of words has none in the text is not scanned.
# Admission computes event time on every memory: the ten scans cost ~0.7 ms a 20-word text that
# names a day, the substring tests a few µs (issue 52). Other texts are scanned by every pattern.
_YEARS = tuple(f"{c}{d}" for c in ("19", "20") for d in "0123456789")
_UNITS = ("day", "week", "month", "year")
_NEEDS = {"day_month_year": (_YEARS,), "month_day_year": (_YEARS,), "month_year": (_YEARS,), "year": (_YEARS,),
          "ago": (("ago",),), "in_units": (_UNITS, ("in",)),
          "relative_weekday": (("last", "past", "next"), ("mon", "tue", "wed", "thu", "fri", "sat", "sun")),
          "relative_unit": (_UNITS, ("last", "past", "next", "this", "previous", "preceding")),
          "season": (("spring", "summer", "fall", "autumn"),),
          "the_day": (("yesterday", "today", "tonight", "tomorrow", "night"),)}


def _may_match(kind: str, low: str | None) -> bool:
    return low is None or all(any(w in low for w in words) for words in _NEEDS[kind])
_HINT = re.compile(rf"\b(?:{_WD}|{_MON}|ago|yesterday|today|tonight|tomorrow|night|spring|summer|fall|autumn|{_UNIT}|"
                   rf"{_YEAR})\b",
                   re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class EventTime:
    """One resolved expression: the words as written, the first and last day it covers."""

    expression: str
    start: date
    end: date
    granularity: str

    def label(self) -> str:
        """How an agent reads it: "20 May 2023", "week of 15 May 2023", "May 2023", "2022"."""
        if self.granularity == "year":
            return str(self.start.year)
        if self.granularity == "month":
            return f"{MONTHS[self.start.month - 1].capitalize()} {self.start.year}"
        if self.granularity == "season":
            name = next(k for k, (a, _) in SEASONS.items() if a == self.start.month)
            return f"{name} {self.start.year}"
        day = _day(self.start)
        return day if self.granularity == "day" else f"{self.granularity} of {day}"

    def to_dict(self) -> dict[str, str]:
        return {"expression": self.expression, "start": self.start.isoformat(), "end": self.end.isoformat(),
                "granularity": self.granularity}


def resolve(text: str, said_at: datetime | date) -> list[EventTime]:
    """Every time expression of `text` placed in time from `said_at`, in text order. Overlapping
    matches: the first pattern wins (absolute dates before relative ones)."""
    if not text or not _HINT.search(text):  # most memories name no time: one scan and out
        return []
    said = said_at.date() if isinstance(said_at, datetime) else said_at
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, EventTime]] = []
    low = text.lower() if text.isascii() else None
    for kind, rx in _COMPILED:
        if not _may_match(kind, low):
            continue
        for m in rx.finditer(text):
            if any(m.start() < b and a < m.end() for a, b in taken):
                continue
            try:
                span = _RESOLVERS[kind](m, said)
            except (OverflowError, ValueError):  # "next year" said on 9999-12-31 names no day (issue 59)
                span = None
            if span is not None:
                taken.append((m.start(), m.end()))
                found.append((m.start(), EventTime(m.group(0), *span)))
    return [e for _, e in sorted(found, key=lambda x: x[0])]


def properties(text: str, said_at: datetime | date) -> dict[str, object]:
    """What a memory stores of its event times: the resolved expressions as JSON text (`event_times`,
    absent when none), the first and last day they cover (`event_start`, `event_end`: ISO dates,
    which compare in order), and the resolver's version (`event_resolver`)."""
    found = resolve(text, said_at)
    return {"event_times": json.dumps([e.to_dict() for e in found]) if found else None,
            "event_start": min(e.start for e in found).isoformat() if found else None,
            "event_end": max(e.end for e in found).isoformat() if found else None,
            "event_resolver": VERSION}


def annotate(text: str, said_at: datetime | date) -> str:
    """The text with each relative expression's resolution after it: "... last Saturday [20 May
    2023] ...". Absolute dates are left as written (they need no help)."""
    out, last = [], 0
    for e in resolve(text, said_at):
        if _is_absolute(e.expression):
            continue
        i = text.find(e.expression, last)
        out.append(text[last:i + len(e.expression)] + f" [{e.label()}]")
        last = i + len(e.expression)
    return "".join(out) + text[last:]


def _is_absolute(expression: str) -> bool:
    return bool(re.search(_YEAR, expression))


def _month(name: str) -> int:
    name = name.lower().rstrip(".")
    return next(i for i, m in enumerate(MONTHS, 1) if m.startswith(name[:3]))


def _month_span(year: int, month: int) -> tuple[date, date, str]:
    nxt = date(year + month // 12, month % 12 + 1, 1)
    return date(year, month, 1), nxt - timedelta(days=1), "month"


def _shift_month(d: date, months: int) -> tuple[int, int]:
    n = d.year * 12 + d.month - 1 + months
    return n // 12, n % 12 + 1


def _number(word: str) -> int | None:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else NUMBERS.get(word)


def _unit_span(said: date, unit: str, n: int) -> tuple[date, date, str] | None:
    """The whole unit n units from the one `said` is in (n < 0: before)."""
    unit = unit.lower().rstrip("s")
    if unit == "day":
        d = said + timedelta(days=n)
        return d, d, "day"
    if unit == "week":
        monday = said - timedelta(days=said.weekday()) + timedelta(weeks=n)
        return monday, monday + timedelta(days=6), "week"
    if unit == "weekend":
        latest = said - timedelta(days=(said.weekday() - 5) % 7)  # the latest Saturday on or before `said`
        current = said.weekday() >= 5  # said during a weekend: that one is "this weekend"
        if n < 0:
            saturday = latest - timedelta(weeks=-n - (0 if current else 1))
        else:
            saturday = (latest if current else latest + timedelta(weeks=1)) + timedelta(weeks=max(n - 1, 0))
        return saturday, saturday + timedelta(days=1), "weekend"
    if unit == "month":
        return _month_span(*_shift_month(said, n))
    if unit == "year":
        return date(said.year + n, 1, 1), date(said.year + n, 12, 31), "year"
    return None


def _on_day(year: int, month: str, day: int) -> tuple[date, date, str] | None:
    try:
        d = date(year, _month(month), day)
    except ValueError:  # "31 June 2023": not a day
        return None
    return d, d, "day"


def _r_day_month_year(m: re.Match, said: date):
    return _on_day(int(m.group(3)), m.group(2), int(m.group(1)))


def _r_month_day_year(m: re.Match, said: date):
    return _on_day(int(m.group(3)), m.group(1), int(m.group(2)))


def _r_month_year(m: re.Match, said: date):
    return _month_span(int(m.group(2)), _month(m.group(1)))


def _r_ago(m: re.Match, said: date):
    n = _number(m.group(1))
    return None if n is None else _unit_span(said, m.group(2), -n)


def _r_in_units(m: re.Match, said: date):
    n = _number(m.group(1))
    return None if n is None else _unit_span(said, m.group(2), n)


def _r_relative_weekday(m: re.Match, said: date):
    name = m.group(2).lower()
    target = WEEKDAYS.index(name) if name in WEEKDAYS else WEEKDAY_ABBREVIATIONS[name]
    if m.group(1).lower() == "next":
        d = said + timedelta(days=(target - said.weekday() - 1) % 7 + 1)
    else:
        d = said - timedelta(days=(said.weekday() - target - 1) % 7 + 1)
    return d, d, "day"


def _r_relative_unit(m: re.Match, said: date):
    which, unit = m.group(1).lower(), m.group(2).lower()
    step = {"last": -1, "past": -1, "this past": -1, "previous": -1, "preceding": -1, "next": 1, "this": 0}[which]
    if unit == "weekend" and which == "next":
        step = 0  # "next weekend" is the coming one, as "this weekend" is
    return _unit_span(said, unit, step)


def _r_the_day(m: re.Match, said: date):
    offset = {"the day before yesterday": -2, "yesterday": -1, "last night": -1, "today": 0, "tonight": 0,
              "tomorrow": 1, "the day after tomorrow": 2}[" ".join(m.group(1).lower().split())]
    d = said + timedelta(days=offset)
    return d, d, "day"


def _r_season(m: re.Match, said: date):
    """"last summer": the latest summer over before the day it was said; "this summer" the one of its
    year; "next summer" the first that starts after it."""
    which = " ".join(m.group(1).lower().split())
    first, last = SEASONS[m.group(2).lower()]
    year = said.year
    if which in ("last", "this past"):
        year -= 0 if said.month > last else 1
    elif which == "next":
        year += 0 if said.month < first else 1
    start = date(year, first, 1)
    return start, _month_span(year, last)[1], "season"


def _r_year(m: re.Match, said: date):
    y = int(m.group(1))
    return date(y, 1, 1), date(y, 12, 31), "year"


_RESOLVERS = {"day_month_year": _r_day_month_year, "month_day_year": _r_month_day_year,
              "month_year": _r_month_year, "ago": _r_ago, "in_units": _r_in_units,
              "relative_weekday": _r_relative_weekday, "relative_unit": _r_relative_unit,
              "the_day": _r_the_day, "season": _r_season, "year": _r_year}

"""The one home for time: the clock, Neo4j temporal values, and parsing `--now`.

Decisions never read the wall clock themselves (principle 4): callers pass `now`, and only
the outermost layer (API facade, CLI, worker) fills it from `utcnow()` when none is given.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytz  # the Neo4j driver's own dependency: its date-times carry pytz offsets

from graphcons.core.errors import ValidationError


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def native(value: Any) -> Any:
    """Neo4j temporal values to Python ones, through lists and maps; other values unchanged.

    The database boundary (Database.run / Tx.run) applies it to every row, so no other
    module converts temporal values.
    """
    kind = type(value)
    if kind in _PLAIN:  # most values: one set lookup (a scan returns millions of them)
        return value
    if kind is list:
        return [v if type(v) in _PLAIN else native(v) for v in value]
    if kind is dict:
        return {k: v if type(v) in _PLAIN else native(v) for k, v in value.items()}
    if hasattr(value, "to_native"):
        return value.to_native()
    if isinstance(value, dict):
        return {k: native(v) for k, v in value.items()}
    if isinstance(value, list):
        return [native(v) for v in value]
    return value


_PLAIN = frozenset({str, int, float, bool, type(None), bytes})


def memory_fields(fields: list[list[Any]], instants: list[list[str]]) -> dict[str, Any]:
    """A memory's properties as cypher/retrieval/hydrate sends them: [key, value] pairs, and its
    zoned date-times as ISO-8601 text, read back here into the datetime the driver would have
    given (the same instant, offset and tzinfo: pytz's fixed offset); `embedding` None."""
    props = {k: v if type(v) in _PLAIN else native(v) for k, v in fields}  # a list property, a named zone
    for key, text in instants:
        props[key] = instant(text)
    props["embedding"] = None
    return props


def instant(text: str) -> datetime:
    """Neo4j's text of a zoned date-time with an offset ("2026-01-01T10:00:00.123456789Z") as the
    driver decodes it: nanoseconds cut to microseconds, tzinfo pytz.FixedOffset (the driver's)."""
    value = datetime.fromisoformat(text)  # Python 3.11: any number of fractional digits, "Z"
    offset = value.utcoffset()
    seconds = int(offset.total_seconds()) if offset is not None else 0
    if offset is None or seconds % 60:  # an offset in seconds: kept as parsed
        return value
    return value.replace(tzinfo=pytz.FixedOffset(seconds // 60))


def require_aware(now: Any, field: str = "now") -> datetime:
    if not isinstance(now, datetime) or now.tzinfo is None:
        raise ValidationError(field, "must be a timezone-aware datetime (e.g. 2026-11-29T10:00:00+00:00)")
    return now


def parse_instant(value: str | None, field: str = "now") -> datetime | None:
    """An ISO-8601 date-time with its timezone (the command line's `--now`)."""
    if value is None:
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        raise ValidationError(field, f"not an ISO-8601 date-time: {value!r}") from None
    if dt.tzinfo is None:
        raise ValidationError(field, "must carry a timezone (e.g. 2026-11-29T10:00:00+00:00)")
    return dt


def day(value: datetime | None) -> str:
    """A date as people (and LoCoMo's answers) write it: "7 May 2023"; "" for none. What
    retrieval, contexts and insight digests show next to a fact (issue 39)."""
    if value is None:
        return ""
    return f"{value.day} {MONTHS[value.month - 1]} {value.year}"


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")  # not strftime: its month names follow the process locale

"""The one input policy (issue 30): the Python API, the CLI, `import` and the HTTP API check
text, ids, sessions and dates with these functions, so the same input gets the same answer
(a ValidationError naming the field: CLI exit 2, HTTP 400) on every path. docs/HTTP-POLICY.md lists it.

- Text that is stored (content, title, subject, scope, source, origin, session, edits)
  carries no NUL byte (Neo4j stores it, but most tools that read it back cut at the NUL) and
  no lone surrogate (JSON can carry "\ud800"; Neo4j cannot store it).
- Text that must say something (content, subject, scope, source, edits, ids, sessions) is not
  blank: what is left after removing whitespace and invisible format characters (Unicode
  category Cf: zero-width spaces, joiners, direction marks, BOM) is not empty. "\u200b\u200b" once
  became a memory with an invisible title that answered every query.
- An id or a session is a non-blank string without NUL; a list of ids names the bad item
  (`ids[2]`).
- `created_at` lies in [EARLIEST, LATEST): fixed bounds, not "now", so that the same input is
  accepted or refused the same way at any time (principle 4). Year 1 was accepted once and
  the next decay run archived it.
- A JSON value kept as given (a memory's metadata) nests at most MAX_DEPTH levels (issue 59): a
  metadata object 900 levels deep was stored, and every answer that included it then failed to
  serialise (500 for every reader of the namespace). `depth_problem` walks it without recursion.
- Bytes that should be JSON (an HTTP body, an import line): `utf8_problem` says where they are not
  UTF-8, and `raw_control` names the field of a raw control character that made them not JSON, with
  the same words on both paths.
"""

from __future__ import annotations

import json
import unicodedata
from datetime import datetime, timezone
from typing import Any, Iterator

from pydantic import BaseModel

from graphcons.core.errors import ValidationError

EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2100, 1, 1, tzinfo=timezone.utc)


SURROGATE = "is not valid Unicode (a lone surrogate)"
NUL = "must not contain a NUL byte (\\u0000)"


def text_problem(value: Any) -> str | None:
    """Why a text may not be stored (None: it may)."""
    if not isinstance(value, str):
        return None
    if "\x00" in value:
        return NUL
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return SURROGATE
    return None


MAX_DEPTH = 32  # objects and lists inside each other; LangGraph values and LangChain metadata nest a few


def depth_problem(value: Any, limit: int = MAX_DEPTH) -> str | None:
    """Why a JSON value nests too deep (None: it does not): walked a level at a time, without
    recursion, and never further than `limit` levels."""
    layer = [value]
    for _ in range(limit):
        layer = [child for item in layer if isinstance(item, (dict, list, tuple))
                 for child in (item.values() if isinstance(item, dict) else item)]
        if not layer:
            return None
    if any(isinstance(item, (dict, list, tuple)) for item in layer):
        return f"nests too deep: more than {limit} levels of objects and lists (the limit)"
    return None


SHOWN = 500  # characters of a message that may carry a caller's value


def cut(text: str, limit: int = SHOWN) -> str:
    """`text` for an error or a log line: whole when short, else its start and how long it was, so a
    caller's value is never echoed whole (issue 59: a 100k-character `as_of` became 2,703 log lines)."""
    return text if len(text) <= limit else f"{text[:limit]}... (cut: {len(text)} characters)"


def utf8_problem(raw: bytes) -> str | None:
    """Why these bytes are not UTF-8, with the 1-based byte position (None: they are). Encoded lone
    surrogates pass, as a JSON parser reading bytes lets them: the text rule above then names the field."""
    try:
        raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 ({exc.reason} at byte {exc.start + 1})"
    return None


def texts(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, text) of every string in a value (a pydantic model, parsed JSON, arguments), e.g. ("links[0].target", "m-1")."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, BaseModel):
        for name, item in value:
            yield from texts(item, f"{path}.{name}" if path else name)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from texts(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from texts(key, path)
            yield from texts(item, f"{path}.{key}" if path else str(key))


def raw_control(text: str) -> tuple[str, str] | None:
    """(field, problem) of the first raw control character inside a JSON string of `text`, read
    leniently (strict JSON refuses it, so the parser names only a character offset): a NUL breaks
    the text rule above, another one needs escaping. None: there is none, or `text` is no JSON."""
    try:
        lenient = json.loads(text, strict=False)
    except (ValueError, RecursionError):
        return None
    for field, value in texts(lenient):
        if "\x00" in value:
            return field or "body", NUL
        raw = next((ch for ch in value if ord(ch) < 0x20), None)
        if raw is not None:
            return field or "body", f"a raw control character (U+{ord(raw):04X}) inside a JSON string; escape it"
    return None


def check_text(field: str, value: Any) -> None:
    problem = text_problem(value)
    if problem:
        raise ValidationError(field, problem)


BLANK = "is blank (only whitespace or invisible characters); say something"


def is_blank(value: str) -> bool:
    """Nothing a reader could see: only whitespace and format characters (category Cf)."""
    return all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in value)


def filled_problem(value: Any) -> str | None:
    """Why a text that must say something (or an id, a session) may not be stored (None: it may)."""
    if not isinstance(value, str) or not value:
        return "must be a non-empty string"
    if is_blank(value):
        return BLANK
    return text_problem(value)


def check_filled(field: str, value: Any) -> str:
    problem = filled_problem(value)
    if problem:
        raise ValidationError(field, problem)
    return value


check_key = check_filled  # ids and sessions: the same rule


def check_ids(field: str, ids: Any) -> list[str]:
    """A non-empty list of ids, each checked; the first bad one is named `field[i]`."""
    if not isinstance(ids, (list, tuple)) or not ids:
        raise ValidationError(field, "give at least one memory id")
    for i, value in enumerate(ids):
        check_key(f"{field}[{i}]", value)
    return list(ids)


def created_at_problem(value: datetime) -> str | None:
    if value.tzinfo is None:
        return "must carry a timezone (e.g. 2026-11-29T10:00:00+00:00)"
    if not EARLIEST <= value < LATEST:
        return f"must lie between {EARLIEST.date()} and {LATEST.date()} (got {value.isoformat()})"
    return None

"""No API token in a server's log (issues 30, 50): a client may put its token where only the
Authorization header belongs (`?token=`, `?access_token=`, the path, percent-encoded or not), and
uvicorn's access log writes each request's raw path and query verbatim.

`install()` masks every log record of the process as it is created, whoever logs it (uvicorn's
access and error logs, graphcons' loggers, the MCP SDK's): anything shaped like an API token
(`gct_...`, its characters plain or percent-encoded, even twice) becomes `gct_***`; in uvicorn's
access log the value of every query parameter outside SAFE becomes `***` as well (search text and
unknown parameters may carry secrets too). The HTTP service (`create_app`) and the MCP server
(`build_server`) both call it, so it holds however either is served. A record factory rather than
a logger's filter: a filter sees only its own logger's records, not those its children pass up.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import parse_qsl, quote

from graphcons.store.tokens import PREFIX

ACCESS_LOGGER = "uvicorn.access"
#: Query parameters of the API that never carry secrets: logged as sent (token-shaped text still masked).
SAFE = frozenset({"k", "limit", "status", "kind", "namespace"})
MASK = "***"


def _char(ch: str) -> str:
    """One character as written, or percent-encoded (`%5F`), or encoded again (`%255F`)."""
    return f"(?:{re.escape(ch)}|%(?:25)*{ord(ch):02X})"


_TOKEN = re.compile("".join(_char(c) for c in PREFIX) + r"(?:[A-Za-z0-9_\-]|%(?:25)*[0-9A-F]{2})+", re.IGNORECASE)


def mask(text: str) -> str:
    """`text` with every token-shaped run masked."""
    return _TOKEN.sub(PREFIX + MASK, text)


def scrub(path: str) -> str:
    """A request path as uvicorn logs it: query values masked (SAFE ones kept) and token-shaped text masked."""
    base, sep, query = path.partition("?")
    if sep:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = "&".join(f"{quote(k, safe='')}={quote(v, safe='') if k in SAFE else MASK}" for k, v in pairs)
        base = f"{base}?{query}"
    return mask(base)


def _masked(value: Any) -> Any:
    if isinstance(value, (int, float)) or value is None:  # numbers keep their %d / %f formatting
        return value
    text = str(value)
    return mask(text) if _TOKEN.search(text) else value


def _mask_record(record: logging.LogRecord) -> None:
    args = record.args
    if record.name == ACCESS_LOGGER and isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
        args = (*args[:2], scrub(args[2]), *args[3:])  # '%s - "%s %s HTTP/%s" %d': the path is third
    if isinstance(args, tuple):
        record.args = tuple(_masked(a) for a in args)
    elif isinstance(args, dict):
        record.args = {k: _masked(v) for k, v in args.items()}
    if isinstance(record.msg, str):
        record.msg = mask(record.msg)


def install() -> None:
    """Mask every log record of this process from now on (once: a second server reuses it)."""
    make = logging.getLogRecordFactory()
    if getattr(make, "masks_tokens", False):
        return

    def masking(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        _mask_record(record)
        return record

    masking.masks_tokens = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(masking)

"""No API token and no user content in a server's log (issues 30, 50, 63): a client may put its token
where only the Authorization header belongs (`?token=`, `?access_token=`, the path, percent-encoded or
not), uvicorn's access log writes each request's raw path and query verbatim, and the MCP SDK logs a
failed tool's error text (which names the subject or the argument value it refused).

`install()` masks every log record of the process as it is created, whoever logs it (uvicorn's
access and error logs, graphcons' loggers, the MCP SDK's): anything shaped like an API token
(`gct_...`, its characters plain or percent-encoded, even twice) becomes `gct_***`; in uvicorn's
access log the value of every query parameter outside SAFE becomes `***` as well (search text and
unknown parameters may carry secrets too), and so does every path segment that is not one of the
routes' own words (ROUTE_WORDS): a memory id or store key, a subject, a proposal id (`/v1/memories/***/history`).
The MCP SDK's `Tool 'x' failed: ...` and `Resource '...' failed: ...` keep the error's name and field
only (`not_found`, `bad_input (as_of)`), and a resource's address its kind. The HTTP service (`create_app`) and the MCP server
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
MCP_LOGGER = "mcp.server.mcpserver.server"  # the SDK's "Tool %r failed: %r", "Resource %r failed: %r"
#: Query parameters of the API that never carry secrets: logged as sent (token-shaped text still masked).
SAFE = frozenset({"k", "limit", "status", "kind", "namespace"})
#: The fixed words of the served paths (HTTP API, /metrics, the docs pages, /mcp) and the job names: a path
#: segment that is none of them is the caller's (an id, a key, a subject) and is logged as MASK.
ROUTE_WORDS = frozenset({
    "v1", "healthz", "health", "stats", "jobs", "tokens", "revoke", "memories", "batch", "history", "retire",
    "restore", "links", "explain", "feedback", "access", "retrieve", "context", "scopes", "search", "proposals",
    "approve", "reject", "revert", "clusters", "reflect", "due", "profiles", "insights", "epistemics", "status",
    "rules", "exceptions", "confirmations", "justifications", "conflicts", "resolve", "consolidate", "metrics",
    "docs", "redoc", "openapi.json", "oauth2-redirect", "mcp",
    "scan", "merge", "decay", "promote", "deprecate", "updates", "cards"})
MASK = "***"
_ERROR_HEAD = re.compile(r"^(?:Error executing tool \S+: )?([a-z_]+(?: \([^()]*\))?)(?::|$)")


def _char(ch: str) -> str:
    """One character as written, or percent-encoded (`%5F`), or encoded again (`%255F`)."""
    return f"(?:{re.escape(ch)}|%(?:25)*{ord(ch):02X})"


_TOKEN = re.compile("".join(_char(c) for c in PREFIX) + r"(?:[A-Za-z0-9_\-]|%(?:25)*[0-9A-F]{2})+", re.IGNORECASE)


def mask(text: str) -> str:
    """`text` with every token-shaped run masked."""
    return _TOKEN.sub(PREFIX + MASK, text)


def scrub(path: str) -> str:
    """A request path as uvicorn logs it: query values masked (SAFE ones kept), path segments that are not
    ROUTE_WORDS masked, and token-shaped text masked."""
    base, sep, query = path.partition("?")
    base = "/".join(s if not s or s in ROUTE_WORDS else MASK for s in base.split("/"))
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


def error_head(text: str) -> str:
    """An error as graphcons names it, without its text: "bad_input (as_of)", "not_found" (MASK otherwise)."""
    found = _ERROR_HEAD.match(text)
    return found.group(1) if found else MASK


def _mcp_args(record: logging.LogRecord) -> Any:
    """The SDK's failed tool or resource: the tool's name, the resource's kind, the error's name and field."""
    args = record.args
    if record.msg == "Tool %r failed: %r" and isinstance(args, tuple) and len(args) == 2:
        return (args[0], error_head(str(args[1])))
    if record.msg == "Resource %r failed: %r" and isinstance(args, tuple) and len(args) == 2:
        return (str(args[0]).rpartition("/")[0] + "/" + MASK, error_head(str(args[1])))
    return args


def _mask_record(record: logging.LogRecord) -> None:
    args = record.args
    if record.name == ACCESS_LOGGER and isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
        args = (*args[:2], scrub(args[2]), *args[3:])  # '%s - "%s %s HTTP/%s" %d': the path is third
    elif record.name == MCP_LOGGER:
        args = _mcp_args(record)
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

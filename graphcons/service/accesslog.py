"""Tokens never reach a log (issue 30): uvicorn's access log writes each request's path with
its query string, so a client that put its token in `?token=` or `?access_token=` (refused:
only the Authorization header authenticates) would leave it in the log verbatim.

`ScrubQuery` rewrites the path of every access-log record before any handler formats it:
the value of every query parameter outside SAFE becomes `***` (search text and unknown
parameters may carry secrets too), and anything shaped like an API token (`gct_...`) is masked
wherever it appears in the path. It is installed on the `uvicorn.access` logger by
`create_app`, so it holds however the app is served (graphcons serve, uvicorn --factory,
gunicorn workers).
"""

from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl, quote

from graphcons.store.tokens import PREFIX

LOGGER = "uvicorn.access"
#: Query parameters of the API that never carry secrets: logged as sent.
SAFE = frozenset({"k", "limit", "status", "kind", "namespace"})
MASK = "***"
_TOKEN = re.compile(re.escape(PREFIX) + r"[A-Za-z0-9_\-]+")


def scrub(path: str) -> str:
    """The path with its query values masked (SAFE ones kept) and token-shaped text masked."""
    base, sep, query = path.partition("?")
    if sep:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = "&".join(f"{quote(k, safe='')}={quote(v, safe='') if k in SAFE else MASK}" for k, v in pairs)
        base = f"{base}?{query}"
    return _TOKEN.sub(PREFIX + MASK, base)


class ScrubQuery(logging.Filter):
    """uvicorn logs `'%s - "%s %s HTTP/%s" %d'` with (client, method, path, version, status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], scrub(args[2]), *args[3:])
        return True


def install() -> None:
    """Put the filter on uvicorn's access logger once (a second app in the process reuses it)."""
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(f, ScrubQuery) for f in logger.filters):
        logger.addFilter(ScrubQuery())

"""Errors as HTTP responses: graphcons' own errors keep their meaning (the CLI's exit codes
become statuses, by the table in graphcons/access/errors.py that the MCP server shares), every
body is a `Problem` {error, message, field}, and nothing unexpected ever shows a stack trace (it
is logged on the server with an id the response names).

    400 bad_input        ValidationError (exit 2): the field is named, nothing was written
    401 unauthenticated  no or unknown bearer token
    403 forbidden        the token's role or namespaces do not allow it
    404 not_found        NotFound (exit 3), and another namespace's memory or proposal
    409 conflict        Conflict (exit 8), DanglingProvenance (exit 9)
    413 too_large        the body is over [service] max_body_bytes
    422 invalid_request  the body or a parameter does not fit the schema; Ungrounded (exit 10)
    502 provider_error   ProviderError (exit 7)
    503 unavailable      Neo4j / GDS down (exit 5), embedder mismatch (exit 6), with Retry-After; the
                         text names no server address and says whether a write of the request was sent
                         (it may have landed: retrying the same request is safe, docs/DEPLOY.md)
    503 transient        Neo4j kept rolling a transaction back (deadlocks) after every retry, or
                         terminated it; with Retry-After, the same text rules
    500 internal         anything else (ConfigError, a bug): a message and an id, no trace
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired, TransientError
from starlette.exceptions import HTTPException

from graphcons.access.errors import status_of, unavailable_text
from graphcons.access.rights import Forbidden
from graphcons.core import errors as e
from graphcons.core.inputs import NUL, SURROGATE, raw_control

log = logging.getLogger("graphcons.service")

HTTP_NAMES = {400: "bad_input", 401: "unauthenticated", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
              409: "conflict", 413: "too_large", 415: "unsupported_media_type", 422: "invalid_request",
              503: "unavailable"}


def problem(status: int, error: str, message: str, field: str | None = None,
            headers: dict[str, str] | None = None) -> JSONResponse:
    body: dict[str, Any] = {"error": error, "message": message, "field": field}
    return JSONResponse(body, status_code=status, headers=headers)


def _field(loc: tuple[Any, ...]) -> str:
    """A pydantic location as docs/HTTP-POLICY.md names fields: `memories[1].content`."""
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "body"


def _bad_json(doc: Any, err: dict[str, Any]) -> JSONResponse:
    """A body that is not JSON. A raw control character inside a string (a NUL byte, a newline) is
    the usual cause: read leniently, the field that holds it is named (a NUL is the input policy's
    400), not the character offset pydantic reports as the location; `import` says the same."""
    text = doc.decode("utf-8", "replace") if isinstance(doc, (bytes, bytearray)) else str(doc or "")
    found = raw_control(text)
    if found is not None:
        field, why = found
        status, name = (400, "bad_input") if why == NUL else (422, "invalid_request")  # a NUL breaks the input policy
        return problem(status, name, f"{field}: {why}", field)
    reason = (err.get("ctx") or {}).get("error", "invalid")
    return problem(422, "invalid_request", f"body: not valid JSON ({reason} at character {err['loc'][-1]})", "body")


def install(app: FastAPI) -> None:
    @app.exception_handler(e.GraphconsError)
    async def _graphcons(request: Request, exc: e.GraphconsError) -> JSONResponse:
        if isinstance(exc, e.ServerUnavailable):
            return unavailable(request, exc, exc.maybe_written)
        known = status_of(exc)
        if known:
            return problem(*known, str(exc), getattr(exc, "field", None))
        return _internal(request, exc)

    @app.exception_handler(Forbidden)
    async def _forbidden(request: Request, exc: Forbidden) -> JSONResponse:
        return problem(403, "forbidden", str(exc), exc.field)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        err = (exc.errors() or [{}])[0]
        if err.get("type") == "json_invalid":
            return _bad_json(exc.body, err)
        field = _field(tuple(err.get("loc", ())))
        if err.get("type") == "bad_input":  # the input policy, checked by models.Body: 400 as everywhere
            ctx = err.get("ctx") or {}
            field = ctx["field"] if field == "body" else f"{field}.{ctx['field']}"
            return problem(400, "bad_input", f"{field}: {ctx['problem']}", field)
        if err.get("type") == "string_unicode":  # pydantic's own check of a nested model met a lone surrogate
            return problem(400, "bad_input", f"{field}: {SURROGATE}", field)
        msg = err.get("msg", "invalid")
        if err.get("type") == "value_error" and (err.get("ctx") or {}).get("error"):  # our words, not "Value error, ..."
            msg = str(err["ctx"]["error"])
        if err.get("type") == "extra_forbidden":
            msg = "unknown field" + ("; the source of what you write is your token (use origin for a label)"
                                     if field.endswith("source") else "")
        return problem(422, "invalid_request", f"{field}: {msg}", field)

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> JSONResponse:
        if isinstance(exc.__cause__, RecursionError):  # FastAPI's JSON parse of a body nested ~1,000 deep
            return problem(422, "invalid_request", "body: not JSON graphcons reads (nested too deep)", "body")
        return problem(exc.status_code, HTTP_NAMES.get(exc.status_code, "error"), str(exc.detail),
                       headers=getattr(exc, "headers", None))

    # core/db.py turns the driver's failures into ServerUnavailable / Busy; these two catch any that
    # escape it (a driver call outside db.py), with the same public text
    @app.exception_handler(DriverError)
    async def _neo4j(request: Request, exc: DriverError) -> JSONResponse:
        if isinstance(exc, (ServiceUnavailable, SessionExpired)):
            return unavailable(request, e.ServerUnavailable(str(exc)), request.method not in SAFE_METHODS)
        return _internal(request, exc)

    @app.exception_handler(Neo4jError)
    async def _transient(request: Request, exc: Neo4jError) -> JSONResponse:
        if isinstance(exc, TransientError):
            return unavailable(request, e.Busy(str(exc)), request.method not in SAFE_METHODS)
        return _internal(request, exc)

    @app.exception_handler(Exception)
    async def _anything(request: Request, exc: Exception) -> JSONResponse:
        return _internal(request, exc)


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def unavailable(request: Request, exc: e.ServerUnavailable, maybe_written: bool) -> JSONResponse:
    """503 with the public text only (the operator's text, which may name the server, goes to the log)
    and what the client may do: retry later, and whether a write of this request may have landed."""
    log.warning("503 on %s %s: %s", request.method, request.url.path, exc)
    name = "transient" if isinstance(exc, e.Busy) else "unavailable"
    return problem(503, name, unavailable_text(exc, maybe_written), headers={"Retry-After": "1"})


def _internal(request: Request, exc: Exception) -> JSONResponse:
    ref = uuid.uuid4().hex[:12]
    log.error("internal error %s on %s %s", ref, request.method, request.url.path, exc_info=exc)
    return problem(500, "internal", f"internal error (logged on the server as {ref})")

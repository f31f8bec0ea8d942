"""graphcons' errors as a remote caller reads them: one name per error (the HTTP status beside
it), whether the call came over HTTP (service/errors.py builds the response) or MCP (a tool
error `name (field): problem`), and the public text of an outage."""

from __future__ import annotations

from graphcons.core import errors as e

STATUS: list[tuple[type[Exception], int, str]] = [  # first match wins (subclasses first)
    (e.ValidationError, 400, "bad_input"),
    (e.NotFound, 404, "not_found"),
    (e.Conflict, 409, "conflict"),
    (e.DanglingProvenance, 409, "dangling_provenance"),
    (e.Ungrounded, 422, "ungrounded"),
    (e.ProviderError, 502, "provider_error"),
    (e.Busy, 503, "transient"),
    (e.ServerUnavailable, 503, "unavailable"),
    (e.EmbedderMismatch, 503, "unavailable"),
]


def status_of(exc: Exception) -> tuple[int, str] | None:
    """(HTTP status, error name) of a graphcons error; None for anything else (an internal error)."""
    return next(((status, name) for cls, status, name in STATUS if isinstance(exc, cls)), None)


def unavailable_text(exc: e.ServerUnavailable, maybe_written: bool) -> str:
    """What a remote caller (HTTP or MCP) is told: the public text and whether a write may have landed."""
    if maybe_written:
        return (f"{exc.public}. A write of this request was sent and may have landed; retrying the same "
                "request is safe (docs/DEPLOY.md says what each retry does).")
    return f"{exc.public}; nothing of this request was written. Retry later."

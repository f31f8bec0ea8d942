"""Operations: /healthz (no token), store health and stats, jobs, and API tokens.

Health and stats span the whole store, so they need an admin token over every namespace ("*"),
and so do the merge, decay, promote and deprecate jobs (`namespace` narrows them to one); scan,
consolidate, updates and cards run within the token's namespaces. Every job honours the request's `dry_run`
and `namespace` and echoes both. An admin of some namespaces manages only tokens within them.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from graphcons.api import Graphcons
from graphcons.core.errors import NotFound, ServerUnavailable
from graphcons.core.time import parse_instant
from graphcons.service import models as m
from graphcons.service.deps import everywhere, read_namespace, role, store
from graphcons.service.errors import Forbidden, problem, unavailable
from graphcons.service.maintenance import consolidate_run
from graphcons.store.tokens import Principal

log = logging.getLogger("graphcons.service")
router = APIRouter(tags=["operations"])
admin = role("admin")
JOBS = ("scan", "merge", "decay", "promote", "deprecate", "consolidate", "updates", "cards")


@router.get("/healthz", responses={503: {"model": m.Problem}})
def healthz(request: Request) -> JSONResponse:
    """Neo4j answers and has GDS. No token needed; says nothing about the data."""
    try:
        g = request.app.state.store.get()
        gds = g.db.gds_version()
    except ServerUnavailable as exc:  # answers within ~2 s ([neo4j] timeouts); the address stays in the log
        return unavailable(request, exc, maybe_written=False)
    except Exception as exc:  # any other failure here also means the service cannot work
        log.warning("healthz: %s: %s", type(exc).__name__, exc)
        return problem(503, "unavailable", f"the service cannot work ({type(exc).__name__}); see the server log")
    return JSONResponse({"status": "ok", "neo4j": "ok", "gds": gds})


@router.get("/v1/health", response_model=dict[str, Any])
def health(g: Graphcons = Depends(store), p: Principal = Depends(admin)) -> dict[str, Any]:
    """Seed 003's health figures and quality metrics with their targets."""
    everywhere(p)
    return g.health()


@router.get("/v1/stats", response_model=dict[str, Any])
def stats(g: Graphcons = Depends(store), p: Principal = Depends(admin)) -> dict[str, Any]:
    everywhere(p)
    return g.stats()


@router.post("/v1/jobs/{job}", response_model=dict[str, Any])
def run_job(job: Literal[JOBS], body: m.JobRun, g: Graphcons = Depends(store),  # type: ignore[valid-type]
            p: Principal = Depends(admin)) -> dict[str, Any]:
    """Run one job now: a dry run unless `dry_run` is false (the configuration can only add one), over
    `namespace` only when given; the answer echoes both. Recorded like the CLI's runs; a dry run writes
    nothing (a scan's dry run no run record, audit or communities). Consolidate answers as
    `POST /v1/consolidate` does. The update and card passes (issue 63) queue `update` and `card` proposals
    for review, within the token's namespaces."""
    if job == "consolidate":
        return consolidate_run(g, p, dry_run=body.dry_run, namespace=body.namespace, now=body.now)
    now = parse_instant(body.now, "now")
    if job == "scan":
        namespace = read_namespace(p, body.namespace)
        return {**g.scan(now=now, namespace=namespace, dry_run=body.dry_run).to_dict(), "namespace": namespace}
    if job == "cards":  # per (namespace, subject) block: a tenant's admin runs them on its own
        return g.cards(dry_run=body.dry_run, now=now, namespace=read_namespace(p, body.namespace)).to_dict()
    if job == "updates":
        return g.updates(dry_run=body.dry_run, now=now, namespace=read_namespace(p, body.namespace)).to_dict()
    everywhere(p)
    if job == "merge":  # the report echoes both
        return g.merge(dry_run=body.dry_run, now=now, namespace=body.namespace).to_dict()
    verb = {"decay": g.decay, "promote": g.promote, "deprecate": g.deprecate}[job]
    return verb(dry_run=body.dry_run, now=now, namespace=body.namespace)  # the report echoes both


# -- tokens ---------------------------------------------------------------------------------
def _within(p: Principal, namespaces: list[str]) -> bool:
    return p.everywhere or set(namespaces) <= set(p.namespaces)


@router.get("/v1/tokens", response_model=list[dict[str, Any]])
def tokens(g: Graphcons = Depends(store), p: Principal = Depends(admin)) -> list[dict[str, Any]]:
    """The tokens within the caller's namespaces (hashes are never shown)."""
    return [t for t in g.tokens() if _within(p, t["namespaces"])]


@router.post("/v1/tokens", response_model=m.TokenCreated, status_code=201)
def create_token(body: m.TokenCreate, g: Graphcons = Depends(store), p: Principal = Depends(admin)) -> m.TokenCreated:
    if not _within(p, body.namespaces):
        raise Forbidden("a token can only grant namespaces its creator has", "namespaces")
    token, record = g.create_token(body.name, body.namespaces, body.role, by=p.source)
    return m.TokenCreated(token=token, record=record)


@router.post("/v1/tokens/{token_id}/revoke", response_model=dict[str, Any])
def revoke_token(token_id: str, g: Graphcons = Depends(store), p: Principal = Depends(admin)) -> dict[str, Any]:
    found = {t["id"]: t for t in g.tokens()}
    if token_id not in found or not _within(p, found[token_id]["namespaces"]):
        raise NotFound(f"no token with id {token_id!r}")
    return g.revoke_token(token_id, by=p.source)

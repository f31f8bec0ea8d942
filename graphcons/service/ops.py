"""Operations: /healthz (no token), store health and stats, jobs, and API tokens.

Jobs, health and stats span the whole store, so they need an admin token over every
namespace ("*"); an admin of some namespaces manages only tokens within them.
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
from graphcons.store.tokens import Principal

log = logging.getLogger("graphcons.service")
router = APIRouter(tags=["operations"])
admin = role("admin")
JOBS = ("scan", "merge", "decay", "promote", "deprecate", "consolidate")


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
    """Run one job now (a dry run unless `dry_run` is false); recorded like the CLI's runs."""
    now = parse_instant(body.now, "now")
    if job in ("scan", "consolidate") and body.namespace is not None:
        namespace = read_namespace(p, body.namespace)
    else:
        everywhere(p)
        namespace = None
    if job == "scan":
        return g.scan(now=now, namespace=namespace).to_dict()
    if job == "consolidate":
        return g.consolidate(now=now, namespace=namespace).to_dict()
    if job == "merge":
        return g.merge(dry_run=body.dry_run, now=now)
    if job == "decay":
        return g.decay(dry_run=body.dry_run, now=now)
    if job == "promote":
        return g.promote(dry_run=body.dry_run, now=now)
    return g.deprecate(dry_run=body.dry_run, now=now)


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

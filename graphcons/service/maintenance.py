"""/v1 routes over store maintenance a caller takes part in: rating a memory (feedback), the
conflicts the merge guard kept apart (list, resolve), and a consolidation run (or its dry run).

Feedback needs a writer; settling a conflict needs a reviewer (a person decides which memory
holds, both are kept); consolidating spends the synthesis budget, so it needs an admin, like
`POST /v1/jobs/consolidate`, and covers only the token's namespaces."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from graphcons.api import Graphcons
from graphcons.core.errors import Conflict
from graphcons.core.time import parse_instant
from graphcons.service.deps import own_memory, read_namespace, role, store, write_namespace
from graphcons.service.models import Body, Problem
from graphcons.store.tokens import Principal

router = APIRouter(prefix="/v1", tags=["maintenance"])
reader, writer, reviewer, admin = role("reader"), role("writer"), role("reviewer"), role("admin")


class FeedbackCreate(Body):
    verdict: Literal["useful", "wrong"] = Field(description="Was the memory (or insight) useful, or wrong?")
    note: str | None = Field(default=None, max_length=2000)


class ConflictResolution(Body):
    holds: str = Field(min_length=1, max_length=128, description="Which memory holds: one of the two ids, or 'both'.")
    scope: str = Field(default="", max_length=500, description="Where it holds (needed when both hold).")
    note: str = Field(default="", max_length=2000)


class ConsolidateRun(Body):
    dry_run: bool = Field(default=True, description="True: report the clusters the gate accepts, synthesize "
                                                     "nothing. False needs [consolidation] dry_run = false.")
    namespace: str | None = Field(default=None, max_length=100,
                                  description="Default: the token's namespace, or every namespace for a * token.")
    now: str | None = Field(default=None, max_length=64, description="Decision time, ISO-8601 with a timezone.")


@router.post("/memories/{memory_id}/feedback", response_model=dict[str, Any], summary="Rate a memory")
def feedback(memory_id: str, body: FeedbackCreate, g: Graphcons = Depends(store),
             p: Principal = Depends(writer)) -> dict[str, Any]:
    """Rate a memory or an insight `useful` or `wrong`; its feedback weight and effective weight (what
    retrieval and decay read) follow, before and after are returned and audited. A token counts once
    per memory: its new rating replaces its earlier one (`replaced` names that verdict)."""
    own_memory(g, p, memory_id)
    return g.feedback(memory_id, body.verdict, note=body.note, by=p.source)


@router.get("/conflicts", response_model=list[dict[str, Any]], summary="Conflicts the merge guard kept apart")
def conflicts(status: Literal["open", "resolved", "all"] = Query("open"), limit: int = Query(100, ge=1, le=1000),
              namespace: str | None = Query(None, max_length=100, description="Only this namespace (one of the token's)."),
              g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> list[dict[str, Any]]:
    """Pairs of memories that look alike but contradict each other (`CONFLICTS_WITH`), newest first,
    within the token's namespaces (another one is 403)."""
    namespaces = None if p.everywhere else list(p.namespaces)
    if namespace is not None:
        namespaces = [write_namespace(p, namespace)]
    return g.conflicts(status=None if status == "all" else status, limit=limit, namespaces=namespaces)


@router.post("/conflicts/{a}/{b}/resolve", response_model=dict[str, Any], summary="Settle a conflict")
def resolve(a: str, b: str, body: ConflictResolution, g: Graphcons = Depends(store),
            p: Principal = Depends(reviewer)) -> dict[str, Any]:
    """Record which memory holds (`a`, `b` or `both` with a scope) and why; both memories are kept,
    nothing is deprecated. 409 when the conflict is already resolved."""
    own_memory(g, p, a)
    own_memory(g, p, b)
    return g.resolve_conflict(a, b, holds=body.holds, scope=body.scope, note=body.note, by=p.source)


@router.post("/consolidate", response_model=dict[str, Any], summary="Consolidate (or its dry run)",
             responses={409: {"model": Problem, "description": "dry_run false while [consolidation] dry_run is true"},
                        502: {"model": Problem, "description": "the configured model failed"}})
def consolidate(body: ConsolidateRun, g: Graphcons = Depends(store), p: Principal = Depends(admin)) -> dict[str, Any]:
    """scan -> gate -> synthesis -> pending `consolidate` proposals in the review queue, within
    `[consolidation] daily_cap` and the provider budget. A dry run (the default) records the scan and
    says which clusters would be synthesized. The configuration stays in charge: a request can ask
    for a dry run, never lift `[consolidation] enabled = false` or `dry_run = true`."""
    return consolidate_run(g, p, dry_run=body.dry_run, namespace=body.namespace, now=body.now)


def consolidate_run(g: Graphcons, p: Principal, *, dry_run: bool, namespace: str | None,
                    now: str | None) -> dict[str, Any]:
    """One consolidation for this route and `POST /v1/jobs/consolidate`: the request's dry run always
    holds, the run covers the token's namespace(s) and the answer echoes `dry_run` and `namespace`."""
    at = parse_instant(now, "now")
    scope = read_namespace(p, namespace)
    if not dry_run and g.config.consolidation.dry_run:
        raise Conflict("consolidation is in dry-run mode ([consolidation] dry_run = true): only a dry run can be "
                       "asked for; an operator lifts it with dry_run = false under [consolidation] in "
                       "graphcons.toml or GRAPHCONS__CONSOLIDATION__DRY_RUN=false")
    return {**g.consolidate(now=at, namespace=scope, dry_run=dry_run).to_dict(), "namespace": scope}

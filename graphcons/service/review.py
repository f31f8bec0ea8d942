"""/v1 routes over the review queue and clusters: list, show, approve, reject, revert, and the
dry-run cluster view. Approving, rejecting and reverting need the reviewer role; each is
recorded with the caller as `by`."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, Query

from graphcons.api import Graphcons
from graphcons.core.errors import NotFound
from graphcons.service import models as m
from graphcons.service.deps import own_memory, own_proposal, read_namespace, role, store, write_namespace
from graphcons.store.proposals import STATUSES, Decision
from graphcons.store.tokens import ALL, Principal

router = APIRouter(prefix="/v1", tags=["review"])
reader, reviewer = role("reader"), role("reviewer")
StatusName = Literal.__getitem__((*STATUSES, "all"))  # "all": every status, as `graphcons proposals list --status all`


@router.get("/proposals", response_model=list[dict[str, Any]])
def proposals(status: StatusName | None = Query(None, description="One status, or all (the default)."),  # type: ignore[valid-type]
              kind: str | None = Query(None, max_length=64),
              namespace: str | None = Query(None, max_length=256, description="Only this namespace (one of the token's)."),
              limit: int = Query(100, ge=1, le=1000),
              g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> list[dict[str, Any]]:
    """The review queue (oldest first), limited to the token's namespaces (another one is 403)."""
    namespaces = None if ALL in p.namespaces else list(p.namespaces)
    if namespace is not None:
        namespaces = [write_namespace(p, namespace)]
    return g.proposals(status=None if status == "all" else status, kind=kind, limit=limit, namespaces=namespaces)


@router.get("/proposals/{proposal_id}", response_model=dict[str, Any])
def proposal(proposal_id: str, g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> dict[str, Any]:
    return own_proposal(g, p, proposal_id)


@router.post("/proposals/{proposal_id}/approve", response_model=Decision)
def approve(proposal_id: str, g: Graphcons = Depends(store), p: Principal = Depends(reviewer)) -> Decision:
    """Apply a pending proposal in one transaction (approving twice changes nothing)."""
    own_proposal(g, p, proposal_id)
    return g.approve(proposal_id, by=p.source)


@router.post("/proposals/{proposal_id}/reject", response_model=Decision)
def reject(proposal_id: str, body: m.Reason, g: Graphcons = Depends(store), p: Principal = Depends(reviewer)) -> Decision:
    own_proposal(g, p, proposal_id)
    return g.reject(proposal_id, body.reason, by=p.source)


@router.post("/proposals/{proposal_id}/revert", response_model=Decision)
def revert(proposal_id: str, body: m.Reason, g: Graphcons = Depends(store), p: Principal = Depends(reviewer)) -> Decision:
    """Undo an applied proposal, named by its id or by the id of the insight it created."""
    missing = NotFound(f"no proposal (or insight made by one) with id {proposal_id!r}")
    try:
        own_proposal(g, p, proposal_id)
    except NotFound:
        try:
            own_memory(g, p, proposal_id)
        except NotFound:
            raise missing from None
    return g.revert(proposal_id, body.reason, by=p.source)


@router.get("/clusters", response_model=list[m.ClusterOut])
def clusters(namespace: str | None = Query(None, max_length=100),
             algorithm: Literal["label_propagation", "leiden"] | None = Query(None),
             g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> list[m.ClusterOut]:
    """Communities of the fused graph (a dry run: nothing is written)."""
    found = g.clusters(namespace=read_namespace(p, namespace), algorithm=algorithm)
    return [m.ClusterOut(key=c.key, member_ids=list(c.member_ids), namespace=c.namespace, subject=c.subject,
                         figures=c.figures) for c in found if p.sees(c.namespace)]

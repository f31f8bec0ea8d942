"""/v1 routes over what graphcons believes, and why (issue 13, seed 002): an insight's epistemic
status with its justifications and exceptions, its status in one situation, the registered
rules, and the three reviewer verbs that change a belief: a scoped exception (except), independent
evidence (confirm) and a rule justification (justify). Every id must lie in the token's
namespaces (another namespace's memory answers 404, as a missing one)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from pydantic import Field

from graphcons.api import Graphcons
from graphcons.service.deps import own_memory, role, store
from graphcons.service.models import Body
from graphcons.store.tokens import Principal

router = APIRouter(prefix="/v1", tags=["beliefs"])
reader, reviewer = role("reader"), role("reviewer")


class ExceptionCreate(Body):
    memory_id: str = Field(min_length=1, max_length=128, description="The memory that is the exception.")
    scope: dict[str, Any] = Field(description='Where the exception applies, e.g. {"trip_distance_km": ">500"}.')


class Confirmation(Body):
    evidence_id: str = Field(min_length=1, max_length=128,
                             description="A memory from a source none of the insight's premises came from.")


class RuleJustification(Body):
    rule: str = Field(min_length=1, max_length=100, description="A registered rule (GET /v1/rules).")
    premises: list[str] = Field(min_length=1, max_length=100, description="Premise memory ids, all required.")


class Situation(Body):
    context: dict[str, Any] = Field(default_factory=dict,
                                    description='The situation, e.g. {"trip_distance_km": 800}.')


@router.get("/insights/{insight_id}/epistemics", response_model=dict[str, Any], summary="Why graphcons believes it")
def epistemics(insight_id: str, g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> dict[str, Any]:
    """The insight's epistemic status (hypothesis | supported | unsupported), per-scope statuses,
    justifications with their exact premises, and its scoped exceptions."""
    own_memory(g, p, insight_id)
    return g.epistemics(insight_id)


@router.post("/insights/{insight_id}/status", response_model=dict[str, Any], summary="Its status in one situation")
def status_in(insight_id: str, body: Situation, g: Graphcons = Depends(store),
              p: Principal = Depends(reader)) -> dict[str, Any]:
    """The insight's status in this situation: defeated or uncertain inside an exception's scope."""
    own_memory(g, p, insight_id)
    return g.status_in(insight_id, body.context)


@router.get("/rules", response_model=list[dict[str, Any]], summary="Rules that may justify an insight")
def rules(p: Principal = Depends(reader), g: Graphcons = Depends(store)) -> list[dict[str, Any]]:
    """The registered rules that may derive a generalisation (name, version, description)."""
    return g.rules()


@router.post("/insights/{insight_id}/exceptions", response_model=dict[str, Any], summary="Record a scoped exception")
def except_(insight_id: str, body: ExceptionCreate, g: Graphcons = Depends(store),
            p: Principal = Depends(reviewer)) -> dict[str, Any]:
    """The memory defeats the insight within `scope` (uncertain there while the exception is
    contested); elsewhere the insight keeps its status. Both memories are kept."""
    own_memory(g, p, insight_id)
    own_memory(g, p, body.memory_id)
    return g.add_exception(insight_id, body.memory_id, body.scope, by=p.source)


@router.post("/insights/{insight_id}/confirmations", response_model=dict[str, Any],
             summary="Attach independent evidence")
def confirm(insight_id: str, body: Confirmation, g: Graphcons = Depends(store),
            p: Principal = Depends(reviewer)) -> dict[str, Any]:
    """A second, independent justification. Refused (400) when the evidence comes from a source the
    insight already rests on: repetition from one source is not confirmation."""
    own_memory(g, p, insight_id)
    own_memory(g, p, body.evidence_id)
    return g.confirm(insight_id, body.evidence_id, by=p.source)


@router.post("/insights/{insight_id}/justifications", response_model=dict[str, Any],
             summary="Justify an insight by a rule")
def justify(insight_id: str, body: RuleJustification, g: Graphcons = Depends(store),
            p: Principal = Depends(reviewer)) -> dict[str, Any]:
    """A registered rule derives the insight from these premises, or 400 says why it is not eligible."""
    own_memory(g, p, insight_id)
    for premise in body.premises:
        own_memory(g, p, premise)
    return g.justify(insight_id, body.rule, list(body.premises), by=p.source)

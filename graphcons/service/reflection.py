"""/v1 routes over reflection and entity profiles (issue 14, seed 004): reflect on one entity
now (a pending `reflect` proposal in the review queue), read its profile and the profile's
versions. An entity is a memory `subject` within a namespace; with no namespace, a token of one
namespace means that one, a token over every namespace ("*") the one the subject lives in."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from graphcons.api import Graphcons
from graphcons.core.errors import NotFound
from graphcons.core.time import parse_instant
from graphcons.service.deps import read_namespace, role, store
from graphcons.service.models import Body, Problem
from graphcons.store.tokens import Principal

router = APIRouter(prefix="/v1", tags=["reflection"])
reader, writer, admin = role("reader"), role("writer"), role("admin")
PROVIDER = {502: {"model": Problem, "description": "the configured model failed (nothing was written)"}}


class ReflectRequest(Body):
    subject: str = Field(min_length=1, max_length=200, description="The entity: a memory subject, e.g. user-ana.")
    namespace: str | None = Field(default=None, min_length=1, max_length=100,
                                  description="Default: the token's namespace, or the one the subject lives in.")


@router.post("/reflect", response_model=dict[str, Any], responses=PROVIDER, summary="Reflect on one entity now")
def reflect(body: ReflectRequest, g: Graphcons = Depends(store), p: Principal = Depends(writer)) -> dict[str, Any]:
    """Seed 004's on-demand reflection: the entity's recent unconsolidated memories (up to
    `[reflection] max_shown` of the `recent` newest, chosen for coverage) become typed preferences,
    behaviors and facts that cite them, queued as ONE pending `reflect` proposal (`proposal_id`) for
    a reviewer; the profile changes only when it is approved (or at once with `[reflection]
    auto_apply`). `status`: proposed | applied | unchanged (these memories were already reflected on)
    | nothing_new | pending (the daily cap or the provider budget is spent) | failed | ungrounded.
    Counts toward `[reflection] daily_cap`."""
    res = g.reflect(body.subject, namespace=read_namespace(p, body.namespace))
    return res.to_dict()


class DueRun(Body):
    dry_run: bool = Field(default=True, description="True: list the due entities, reflect on none.")
    namespace: str | None = Field(default=None, max_length=100,
                                  description="Default: the token's namespace, or every namespace for a * token.")
    now: str | None = Field(default=None, max_length=64, description="Decision time, ISO-8601 with a timezone.")


@router.post("/reflect/due", response_model=dict[str, Any], responses=PROVIDER,
             summary="Reflect on every due entity (the weekly job)")
def reflect_due(body: DueRun, g: Graphcons = Depends(store), p: Principal = Depends(admin)) -> dict[str, Any]:
    """Seed 004's scheduled pass on demand: every entity with `[reflection] entity_threshold` (10)
    unconsolidated memories, or `namespace_threshold` (50) for the namespace-wide subjects, gets one
    pending `reflect` proposal, within the daily cap. A dry run (the default) only lists them; a real
    run needs `[reflection] enabled = true` (else it says so and writes nothing)."""
    now = parse_instant(body.now, "now")
    return g.reflect_due(now=now, namespace=read_namespace(p, body.namespace), dry_run=body.dry_run).to_dict()


@contextmanager
def _http_hint(subject: str) -> Iterator[None]:
    """A missing profile's 404 points an HTTP client at the route it has, not at a CLI command."""
    try:
        yield
    except NotFound as exc:
        missing = str(exc).split("; ", 1)[0]  # "no profile for 'x' in namespace 'y'"
        raise NotFound(f"{missing}; reflect on it first (POST /v1/reflect with {json.dumps({'subject': subject})}) "
                       "and have a reviewer approve the proposal") from None


@router.get("/profiles", response_model=list[dict[str, Any]], summary="An entity's profile, if it has one")
def profile_if_any(subject: str = Query(min_length=1, max_length=200),
                   namespace: str | None = Query(None, max_length=100, description="Default as for /v1/reflect."),
                   g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> list[dict[str, Any]]:
    """[the profile] or [] before a reflection on the entity is approved: a store asking whether an
    entity has a profile gets an answer, not a 404 (issue 49)."""
    try:
        return [g.profile(subject, namespace=read_namespace(p, namespace))]
    except NotFound:
        return []


@router.get("/profiles/{subject}", response_model=dict[str, Any], summary="An entity's profile")
def profile(subject: str, namespace: str | None = Query(None, max_length=100,
                                                        description="Default as for /v1/reflect."),
            g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> dict[str, Any]:
    """The entity's current profile: preferences, behaviors and facts (each with the memories it came
    from) and a summary. 404 until a reflection on it is approved."""
    with _http_hint(subject):
        return g.profile(subject, namespace=read_namespace(p, namespace))


@router.get("/profiles/{subject}/history", response_model=list[dict[str, Any]], summary="Every version of a profile")
def profile_history(subject: str, namespace: str | None = Query(None, max_length=100,
                                                                description="Default as for /v1/reflect."),
                    g: Graphcons = Depends(store), p: Principal = Depends(reader)) -> list[dict[str, Any]]:
    """Every version of the entity's profile, oldest first, each with the proposal that made it."""
    with _http_hint(subject):
        return g.profile_history(subject, namespace=read_namespace(p, namespace))

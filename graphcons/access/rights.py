"""What a caller may do: its role and its namespaces (an API token's, store/tokens.py).

A token sees only its namespaces: another namespace's memory or proposal answers exactly as a
missing one does (the same "not found"), so a caller cannot learn what exists elsewhere; writing
into a namespace the token lacks, or using a role it lacks, is Forbidden (HTTP 403, the MCP tool
error `forbidden: ...`).
"""

from __future__ import annotations

from typing import Any

from graphcons.api import Graphcons
from graphcons.core.errors import NotFound, ValidationError
from graphcons.core.memory import Memory
from graphcons.store.tokens import Principal


class Forbidden(Exception):
    """The caller is known but its role or namespaces do not allow this."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def require(p: Principal, minimum: str) -> Principal:
    """The caller, if its role is at least `minimum`."""
    if not p.has(minimum):
        raise Forbidden(f"this needs the {minimum} role; the token {p.name!r} is a {p.role}")
    return p


def everywhere(p: Principal) -> None:
    """Store-wide operations (jobs, health, stats) need a token over every namespace ("*")."""
    if not p.everywhere:
        raise Forbidden("this spans every namespace; it needs a token with namespace *")


def write_namespace(p: Principal, namespace: str | None) -> str:
    """The namespace a write goes to: the one given, or the token's only one."""
    if namespace is None:
        if p.everywhere:
            return "default"
        if len(p.namespaces) == 1:
            return p.namespaces[0]
        raise ValidationError("namespace", f"required: this token covers {', '.join(p.namespaces)}")
    if not p.sees(namespace):
        raise Forbidden(f"the token {p.name!r} may not use namespace {namespace!r}", "namespace")
    return namespace


def read_namespace(p: Principal, namespace: str | None) -> str | None:
    """The namespace a read covers: the one given, the token's only one, or all (None) for *."""
    if namespace is None and p.everywhere:
        return None
    return write_namespace(p, namespace)


def own_memory(g: Graphcons, p: Principal, memory_id: str) -> Memory:
    """The memory, if the caller may see it; another namespace's memory is 'not found'."""
    return g.get(memory_id, namespaces=None if p.everywhere else list(p.namespaces))


def qualified(g: Graphcons, namespace: str, target: str) -> str:
    """A link target read as an explicit id is written (issue 59): the HTTP API stores the caller's
    `inc-104` as `team:inc-104`, so a target `inc-104` is that memory when it exists in the namespace
    written to; else the target as given (a generated id, one already qualified, or an unknown one,
    which admission then reports)."""
    prefix = f"{namespace}:"
    if target.startswith(prefix):
        return target
    try:
        return g.get(prefix + target, namespaces=[namespace]).id
    except NotFound:
        return target


def unseen(g: Graphcons, p: Principal, ids: list[str]) -> list[str]:
    """The ids among `ids` that exist in a namespace the caller does not see."""
    out = []
    for mem_id in dict.fromkeys(ids):
        try:
            if not p.sees(g.get(mem_id).namespace):
                out.append(mem_id)
        except NotFound:
            pass
    return out


def own_proposal(g: Graphcons, p: Principal, proposal_id: str) -> dict[str, Any]:
    """The proposal in its wire shape, when the caller sees its namespace."""
    prop = g.proposal_record(proposal_id)
    if not p.sees(prop.namespace or "default"):
        raise NotFound(f"no proposal with id {proposal_id!r}")
    return prop.to_dict()

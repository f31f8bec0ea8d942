"""The registry of rules that may DERIVE a generalisation (seed 002: "a registered eligible rule").

A model-proposed insight stays a hypothesis unless independent evidence confirms it or a
registered rule derives it. A rule is registered by name with a version; a justification
records the rule and version that produced it, so a later change of a rule is visible in
every insight it justified. `graphcons rules list` prints this table.

A rule looks at the insight and the premise memories it is offered and either accepts them
(they become the justification's required premises) or says why it is not eligible.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from graphcons.core.errors import ValidationError

#: (insight facts, premise facts) -> None when eligible, else the reason it is not
Check = Callable[[dict[str, Any], list[dict[str, Any]]], str | None]


@dataclass(frozen=True)
class Rule:
    name: str
    version: int
    description: str
    check: Check

    def public(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "description": self.description}


RULES: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    if rule.name in RULES:
        raise ValueError(f"rule {rule.name!r} is already registered")
    RULES[rule.name] = rule
    return rule


def get(name: Any) -> Rule:
    if not isinstance(name, str) or name not in RULES:
        raise ValidationError("rule", f"unknown rule {name!r}; registered: {', '.join(sorted(RULES)) or 'none'}")
    return RULES[name]


def listing() -> list[dict[str, Any]]:
    return [RULES[n].public() for n in sorted(RULES)]


def _stated_preference(insight: dict[str, Any], premises: list[dict[str, Any]]) -> str | None:
    if not premises:
        return "needs the memory in which the subject states the preference"
    for p in premises:
        if p["kind"] != "preference":
            return f"{p['id']} is a {p['kind']}, not a stated preference"
        if p["subject"] != insight["subject"] or p["namespace"] != insight["namespace"]:
            return f"{p['id']} is about {p['subject']!r} in {p['namespace']!r}, not the insight's subject"
        shared = set(p["sources"]) & set(insight["premise_sources"])
        if shared:
            return f"{p['id']} comes from {', '.join(sorted(shared))}, a source the insight already rests on"
    return None


register(Rule(
    name="stated-preference", version=1,
    description="A preference the subject stated (kind 'preference', same subject and namespace, from a source "
                "the insight does not already rest on) derives the generalisation about that preference.",
    check=_stated_preference))

"""What graphcons believes about an insight, and why (seed 002): the epistemic state machine.

Pure rules, no storage. An insight's status is DERIVED, never set by hand, from its
justifications (each standing or withdrawn) and its scoped exceptions:

    hypothesis   every model-proposed generalisation starts here, however many supported
                 members it has; it stays here while only synthesis justifies it.
    supported    a standing INDEPENDENT justification exists: confirming evidence from a
                 source outside the premises' sources, or a registered eligible rule.
    unsupported  every justification has lost a required premise (it stays addressable,
                 ranks below supported knowledge and its cluster is due for re-synthesis).

Per scope, from exceptions: a supported exception DEFEATS the insight within its declared
scope; a contested one (its memory changed, retired, in open conflict, or itself
unsupported) makes that scope UNCERTAIN; outside every scope the status above holds.

It lives in core because every layer that changes a premise (store: edit; maintenance:
merge, deprecate, archive, conflicts) re-derives the status in its own transaction, and
consolidation (approval, confirm, exceptions) does too: one rule below all of them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from graphcons.core.errors import ValidationError

HYPOTHESIS, SUPPORTED, UNSUPPORTED = "hypothesis", "supported", "unsupported"
DEFEATED, UNCERTAIN = "defeated", "uncertain"
STATUSES = (HYPOTHESIS, SUPPORTED, UNSUPPORTED)

SYNTHESIS, EVIDENCE, RULE = "synthesis", "evidence", "rule"
#: Justifications that confirm a generalisation independently of the examples it came from.
INDEPENDENT = (EVIDENCE, RULE)
STANDING, WITHDRAWN = "standing", "withdrawn"
HOLDING, LOST = "holding", "lost"

#: The transitions, each with what causes it (every one is audited with its concrete cause).
TRANSITIONS: dict[tuple[str, str], str] = {
    (HYPOTHESIS, SUPPORTED): "an independent justification (evidence or a registered rule) was added",
    (HYPOTHESIS, UNSUPPORTED): "every justification lost a required premise",
    (SUPPORTED, HYPOTHESIS): "the last independent justification was withdrawn; synthesis still stands",
    (SUPPORTED, UNSUPPORTED): "every justification lost a required premise",
    (UNSUPPORTED, HYPOTHESIS): "a synthesis justification stands again (its premise was restored)",
    (UNSUPPORTED, SUPPORTED): "an independent justification stands",
}


def derive_status(justifications: list[dict[str, Any]]) -> str:
    """The global status from justifications [{kind, status}] (see the module docstring)."""
    standing = [j for j in justifications if j.get("status") == STANDING]
    if any(j.get("kind") in INDEPENDENT for j in standing):
        return SUPPORTED
    if justifications and not standing:
        return UNSUPPORTED
    return HYPOTHESIS


def exception_status(e: dict[str, Any], live: tuple[str, ...]) -> tuple[str, str | None]:
    """(supported | contested, why) of one exception from its memory's current state."""
    if e.get("memory_status") not in live:
        return "contested", f"exception memory is {e.get('memory_status')}"
    if e.get("version") != e.get("recorded_version"):
        return "contested", f"exception memory changed (version {e.get('recorded_version')} -> {e.get('version')})"
    if e.get("conflicts"):
        return "contested", "exception memory is in open conflict with " + ", ".join(sorted(e["conflicts"]))
    if e.get("memory_epistemic") == UNSUPPORTED:
        return "contested", "exception memory is itself unsupported"
    return "supported", None


def derive_scopes(exceptions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-scope statuses from exceptions [{memory_id, scope, status}], in a stable order."""
    out = []
    for e in exceptions:
        state = DEFEATED if e["status"] == "supported" else UNCERTAIN
        out.append({"scope": e["scope"], "status": state, "exception": e["memory_id"]})
    return sorted(out, key=lambda s: (json.dumps(s["scope"], sort_keys=True), s["exception"]))


# -- scopes: small typed conditions ------------------------------------------------------------
_KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_CMP_RE = re.compile(r"^(<=|>=|!=|<|>|=)\s*(-?\d+(?:\.\d+)?)$")


@dataclass(frozen=True)
class Condition:
    key: str
    op: str | None  # a comparison on a number, or None for a label that must equal
    value: float | str

    def holds(self, given: Any) -> bool | None:
        """True / False when the context says; None when it is silent (not evidence either way)."""
        if given is None:
            return None
        if self.op is None:
            return str(given).strip().casefold() == str(self.value).casefold()
        try:
            x = float(given)
        except (TypeError, ValueError):
            return False
        v = float(self.value)
        return {"<": x < v, "<=": x <= v, ">": x > v, ">=": x >= v, "=": x == v, "!=": x != v}[self.op]


def parse_scope(value: Any) -> dict[str, str]:
    """Validate a scope: a non-empty JSON object of `key: condition`, each condition a label
    ("accessibility need") or a comparison on a number (">500", "<=2"). Raises naming the field."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValidationError("scope", f"not valid JSON: {exc.msg}") from None
    if not isinstance(value, dict) or not value:
        raise ValidationError("scope", 'must be a non-empty JSON object, e.g. {"trip_distance_km": ">500"}')
    if len(value) > 8:
        raise ValidationError("scope", "at most 8 conditions")
    out = {}
    for key, cond in value.items():
        if not isinstance(key, str) or not _KEY_RE.match(key):
            raise ValidationError(f"scope.{key}", "a condition name is lower_snake_case (letters, digits, _)")
        if isinstance(cond, bool) or not isinstance(cond, (str, int, float)):
            raise ValidationError(f"scope.{key}", "a condition is a label or a comparison like \">500\"")
        cond = str(cond).strip()
        if not cond or len(cond) > 200:
            raise ValidationError(f"scope.{key}", "a condition is 1-200 characters")
        if cond[0] in "<>=!" and not _CMP_RE.match(cond):
            raise ValidationError(f"scope.{key}", f"{cond!r} is not a comparison on a number (e.g. \">500\")")
        out[key] = cond
    return dict(sorted(out.items()))


def conditions(scope: dict[str, str]) -> list[Condition]:
    out = []
    for key, cond in sorted(scope.items()):
        m = _CMP_RE.match(cond)
        out.append(Condition(key, m.group(1), float(m.group(2))) if m else Condition(key, None, cond))
    return out


def in_scope(scope: dict[str, str], context: dict[str, Any]) -> bool:
    """True only when the context satisfies every condition of the scope. A context silent
    on a condition is not inside the scope (and not evidence that no exception applies)."""
    return all(c.holds(context.get(c.key)) for c in conditions(scope))


@dataclass
class Verdict:
    """The status of an insight for one concrete situation (`context`)."""

    status: str
    global_status: str
    because: list[dict[str, Any]] = field(default_factory=list)  # the scopes that applied


def status_in(global_status: str, scopes: list[dict[str, Any]], context: dict[str, Any]) -> Verdict:
    """Defeated inside a supported exception's scope, uncertain inside a contested one's,
    the global status everywhere else."""
    hits = [s for s in scopes if in_scope(s["scope"], context)]
    if any(s["status"] == DEFEATED for s in hits):
        return Verdict(DEFEATED, global_status, hits)
    if hits:
        return Verdict(UNCERTAIN, global_status, hits)
    return Verdict(global_status, global_status, [])

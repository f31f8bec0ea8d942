"""How the CLI prints what graphcons believes about an insight (show, explain)."""

from __future__ import annotations

import json
from typing import Any

from graphcons.cli.app import console, literal


def print_epistemics(ep: dict[str, Any]) -> None:
    """Status, scopes, justifications (with exact premises) and exceptions, for show / explain."""
    if not ep or ep.get("epistemic_status") is None:
        return
    console.print(f"[bold]epistemic status[/]: [magenta]{ep['epistemic_status']}[/]")
    for s in ep["scopes"]:
        console.print(f"  {s['status']} where {json.dumps(s['scope'], sort_keys=True)} (exception {s['exception']})",
                      highlight=False)
    for j in ep["justifications"]:
        extra = f" rule {j['rule']}@{j['rule_version']}" if j.get("rule") else ""
        console.print(f"  justification {j['id']} [cyan]{j['kind']}[/]{extra}: {j['status']}"
                      + (f" ({j['withdrawn_cause']})" if j.get("withdrawn_cause") else ""), highlight=False)
        for p in j["premises"]:
            mark = "required" if p["required"] else "optional"
            console.print(f"    premise {p['id']} v{p['version']} {mark}: {p['status']}", highlight=False)
    for e in ep["exceptions"]:
        console.print(f"  exception {e['memory_id']} {json.dumps(e['scope'], sort_keys=True)}: {e['status']}"
                      + (f" ({literal(e['reason'])})" if e.get("reason") else ""), highlight=False)

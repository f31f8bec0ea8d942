"""Commands of seed 002 (issue 13): except, confirm, justify, status-in, rules list, and the
travel-preferences scenario."""

from __future__ import annotations

import json
from typing import Any, List, Optional

import typer
from rich.table import Table

from graphcons.cli.app import JsonOpt, answer, app, console, emit_json, errors_to_exit, open_store
from graphcons.cli.clusters import scenario_app


def _changed(out: dict[str, Any], json_out: bool, what: str) -> None:
    if json_out:
        emit_json(out)
        return
    console.print(f"{what}; {out['insight_id']} is now [magenta]{out['epistemic_status']}[/]")
    for s in out.get("scopes") or []:
        console.print(f"  {s['status']} where {json.dumps(s['scope'], sort_keys=True)}", highlight=False)


@app.command("except")
def except_(insight_id: str = typer.Argument(..., help="The insight the exception limits."),
            memory: str = typer.Option(..., "--memory", "-m", help="The memory that is the exception."),
            scope: str = typer.Option(..., "--scope", help='Where it applies, JSON: {"trip_distance_km": ">500"}.'),
            by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Record a scoped exception: defeats the insight inside SCOPE only (uncertain while contested)."""
    with open_store() as g:
        out = g.add_exception(insight_id, memory, scope, by=by)
    _changed(out, json_out, f"exception {memory} recorded" if out["created"] else "exception already recorded")


@app.command()
def confirm(insight_id: str = typer.Argument(...),
            evidence: str = typer.Option(..., "--evidence", "-e", help="A memory from an independent source."),
            by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Attach independent evidence: a second justification, tracked on its own."""
    with open_store() as g:
        out = g.confirm(insight_id, evidence, by=by)
    _changed(out, json_out, f"justification {out['justification']} (evidence {evidence}) recorded")


@app.command()
def justify(insight_id: str = typer.Argument(...), rule: str = typer.Option(..., "--rule", help="A registered rule."),
            premise: List[str] = typer.Option(..., "--premise", "-p", help="A premise memory id (repeatable)."),
            by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """A registered rule derives the insight from these premises (see `graphcons rules list`)."""
    with open_store() as g:
        out = g.justify(insight_id, rule, list(premise), by=by)
    _changed(out, json_out, f"justification {out['justification']} (rule {rule}) recorded")


@app.command("status-in")
def status_in(insight_id: str, context: str = typer.Option("{}", "--context",
                                                           help='The situation, JSON: {"context": "accessibility need"}.'),
              json_out: bool = JsonOpt) -> None:
    """The insight's status in one situation: defeated / uncertain inside an exception's scope."""
    with errors_to_exit():
        from graphcons.core.errors import ValidationError

        try:
            ctx: Optional[Any] = json.loads(context)
        except json.JSONDecodeError as exc:
            raise ValidationError("context", f"not valid JSON: {exc.msg}") from None
        with open_store() as g:
            out = g.status_in(insight_id, ctx)
    if json_out:
        emit_json(out)
    else:
        console.print(f"{insight_id} in {json.dumps(ctx)}: [magenta]{out['status']}[/] (globally {out['global_status']})")


rules_app = typer.Typer(help="The registered rules that may derive a generalisation.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")


@rules_app.command("list")
def rules_list(json_out: bool = JsonOpt) -> None:
    """Every registered rule with its version."""
    from graphcons.consolidation.rules import listing

    rows = listing()
    if json_out:
        emit_json(rows)
        return
    table = Table("rule", "version", "description")
    for r in rows:
        table.add_row(r["name"], str(r["version"]), r["description"])
    console.print(table)


@scenario_app.command("travel-preferences")
def travel_preferences(json_out: bool = JsonOpt) -> None:
    """Seed 002's example: trips -> hypothesis -> scoped exception -> evidence -> a premise withdrawn."""
    from graphcons.scenarios import travel_preferences as run

    out = answer(json_out, run)
    if out is None:
        return
    console.print(f"insight {out['insight_id']}: {out.get('title', '')}")
    if out.get("synthesizer"):
        console.print(f"synthesized by: {out['synthesizer']['provider']} ({out['synthesizer']['model']})")
    table = Table("step", "status", "accessibility need", "elsewhere", "justifications", "note")
    for s in out["steps"]:
        table.add_row(s["step"], s["epistemic_status"], s["in_accessibility_context"], s["elsewhere"],
                      ", ".join(f"{j['kind']}:{j['status']}" for j in s["justifications"]), s["note"])
    console.print(table)
    console.print(f"next: graphcons show {out['insight_id']} --json, graphcons explain {out['insight_id']}")

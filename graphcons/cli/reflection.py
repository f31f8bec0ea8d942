"""Commands of reflection (issue 14, seed 004): reflect, profile, scenario entity-reflection."""

from __future__ import annotations

from typing import Any, Optional

import typer
from rich.table import Table

from graphcons.cli.app import JsonOpt, answer, app, console, emit_json, open_store, parse_now, literal
from graphcons.cli.clusters import scenario_app

CATEGORIES = ("preferences", "behaviors", "facts")


def _response(r: Any) -> dict[str, Any]:
    """Seed 004's response fields first, then what graphcons adds."""
    d = r.to_dict()
    head = ("entity_id", "namespace", "insights", "memories_reviewed", "new_semantic_memories", "profile_updated",
            "proposal_id", "status")
    return {**{k: d[k] for k in head}, **{k: v for k, v in d.items() if k not in head}}


def render_result(r: Any) -> None:
    console.print(f"{r.entity_id} ({r.namespace}): {r.status}"
                  + (f" - {r.reason}" if r.reason else "")
                  + (f"; proposal {r.proposal_id}" if r.proposal_id else ""), markup=False, highlight=False)
    sel = r.selection or {}
    if sel:
        console.print(f"reviewed {r.memories_reviewed} of {sel.get('candidates')} unconsolidated memories "
                      f"({sel.get('method')}, coverage {sel.get('coverage')}); model {r.provider}/{r.model}",
                      highlight=False)
    if r.reflection:
        table = Table("category", "statement", "cites")
        for c in CATEGORIES:
            for s in r.reflection.get(c, []):
                table.add_row(c, literal(s["statement"]), ", ".join(s["memory_ids"]))
        console.print(table)
        console.print(f"summary: {r.reflection.get('summary', '')}", markup=False, highlight=False)
    if r.profile_updated:
        console.print(f"profile version {r.profile_version}: {r.new_semantic_memories} new semantic memories, "
                      f"{r.confirmed} confirmed")
    elif r.status == "proposed":
        console.print(f"review it: graphcons proposals approve {r.proposal_id}")
    elif r.profile:
        console.print(f"current profile: version {r.profile['version']} "
                      f"(graphcons profile {r.entity_id} --namespace {r.namespace})", markup=False)


@app.command()
def reflect(subject: Optional[str] = typer.Option(None, "--subject", "-s", help="The entity (a memory subject)."),
            namespace: Optional[str] = typer.Option(None, help="Its namespace (default: the one it lives in)."),
            due: bool = typer.Option(False, "--due", help="Reflect on every due entity (the weekly job)."),
            dry_run: bool = typer.Option(False, "--dry-run", help="With --due: list the due entities only."),
            now: Optional[str] = typer.Option(None, "--now", help="Decision time (ISO-8601, default now)."),
            json_out: bool = JsonOpt) -> None:
    """Reflect on an entity: preferences, behaviors, facts and a summary, citing its memories."""
    if due == (subject is not None):
        console.print("[red]error[/]: give --subject S (one entity, on demand) or --due (every due entity)")
        raise typer.Exit(2)
    with open_store() as g:
        if due:
            report = g.reflect_due(now=parse_now(now), namespace=namespace, dry_run=dry_run)
        else:
            result = g.reflect(subject, namespace=namespace, now=parse_now(now))
    if not due:
        if json_out:
            emit_json(_response(result))
        else:
            render_result(result)
        return
    if json_out:
        out = report.to_dict()
        out["results"] = [_response(r) for r in report.results]
        emit_json(out)
        return
    if report.message:
        console.print(report.message, markup=False, highlight=False)
    console.print(f"run {report.run_id}: {len(report.due)} due entit{'y' if len(report.due) == 1 else 'ies'}")
    for d in report.due:
        console.print(f"  {d['namespace']}/{d['subject']}: {d['unconsolidated']} unconsolidated "
                      f"(threshold {d['threshold']})", highlight=False)
    for r in report.results:
        render_result(r)


@app.command()
def profile(subject: str, namespace: Optional[str] = typer.Option(None, help="Its namespace (default: the one it lives in)."),
            history: bool = typer.Option(False, "--history", help="Every version, oldest first."),
            json_out: bool = JsonOpt) -> None:
    """An entity's profile: preferences, behaviors, facts (with the memories they rest on), summary."""
    data = answer(json_out, lambda g: g.profile_history(subject, namespace=namespace) if history
                  else g.profile(subject, namespace=namespace))
    if data is None:
        return
    for p in data if history else [data]:
        console.print(f"{p['subject']} ({p['namespace']}) version {p['version']}, "
                      f"{p.get('change') or ''} {str(p.get('updated_at') or p.get('created_at') or '')[:19]}",
                      markup=False, highlight=False)
        table = Table("category", "statement", "sources", "status")
        for c in CATEGORIES:
            for e in p[c]:
                table.add_row(c, literal(e["statement"]), literal(", ".join(e["sources"])), e.get("status", "current"))
        console.print(table)
        console.print(f"summary: {p.get('summary') or ''}", markup=False, highlight=False)


@scenario_app.command("entity-reflection")
def entity_reflection(json_out: bool = JsonOpt) -> None:
    """Seed two people's chat memories (namespace scenario-people) and reflect on user-ana."""
    from graphcons.scenarios import entity_reflection as run

    with open_store() as g:
        out = run(g)
    if json_out:
        emit_json({"namespace": out["namespace"], "seeded": out["seeded"], "due": out["due"],
                   "reflection": _response(out["reflection"])})
        return
    console.print(f"namespace {out['namespace']}: {out['seeded']} memories seeded ({out['existing']} already there); "
                  f"due: {', '.join(d['subject'] for d in out['due']) or 'nobody'}")
    render_result(out["reflection"])

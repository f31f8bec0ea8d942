"""Commands of cluster discovery (issue 3): `clusters` (dry-run scan) and `scenario`."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from graphcons.cli.app import JsonOpt, app, console, emit_json, err_console, open_store


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def render_report(report, *, show_all: bool = True) -> None:
    """A rich table of the scan's decisions, then consolidation_due and the warnings."""
    table = Table(title=f"cluster scan {report.run_id} ({report.algorithm}, "
                        f"{report.nodes} memories, {report.relationships} fused edges)")
    table.add_column("cluster", no_wrap=True)
    for col in ("size", "cohesion", "salience", "trigger"):
        table.add_column(col, justify="right" if col != "trigger" else "left")
    table.add_column("verdict", ratio=2, overflow="fold")
    table.add_column("members", ratio=2, overflow="fold")
    for d in report.decisions:
        f = d.figures
        verdict = "[green]accepted[/]" if d.accepted else "[red]rejected[/]: " + "; ".join(d.reasons)
        if d.split_from:
            verdict += f" [dim](part of {d.split_from})[/]"
        table.add_row(
            d.key, str(d.cluster.size),
            f"{f['cohesion']:.2f}" if "cohesion" in f else "-",
            f"{f['salience']:.2f}" if "salience" in f else "-",
            d.trigger or "-", verdict,
            "\n".join(_short(t) for t in d.titles[:2])
            + (f"\n… +{d.cluster.size - min(2, len(d.titles))} more" if d.cluster.size > 2 else ""),
        )
    console.print(table)
    console.print(f"accepted {len(report.accepted)}, rejected {len(report.rejected)}, "
                  f"consolidation_due {report.consolidation_due}"
                  + (" (dry run: nothing synthesized)" if report.dry_run else ""))
    for w in report.warnings:
        err_console.print(f"[yellow]warning[/]: {w}", highlight=False)


@app.command()
def clusters(
    namespace: Optional[str] = typer.Option(None, help="Scan one namespace only (default: all, never mixed)."),
    algorithm: Optional[str] = typer.Option(None, help="label_propagation or leiden (default: [consolidation] algorithm)."),
    accepted_only: bool = typer.Option(False, "--accepted", help="Show accepted clusters only."),
    json_out: bool = JsonOpt,
) -> None:
    """Dry-run cluster scan: fused graph -> communities -> value gate. Writes only its audit record."""
    with open_store() as g:
        report = g.scan(namespace=namespace, algorithm=algorithm)
    if accepted_only:
        report.decisions = report.accepted
    if json_out:
        emit_json(report.to_dict())
    else:
        render_report(report)


scenario_app = typer.Typer(help="Seed a demonstration scenario and show what graphcons makes of it.",
                           no_args_is_help=True)
app.add_typer(scenario_app, name="scenario")


@scenario_app.command("incident-consolidation")
def incident_consolidation(json_out: bool = JsonOpt) -> None:
    """Seed a DevOps incident history (namespace scenario-incidents) and show clusters and verdicts."""
    from graphcons.scenarios import incident_consolidation as run

    with open_store() as g:
        out = run(g)
    if json_out:
        emit_json({"seeded": out["seeded"], **out["report"].to_dict(),
                   "synthesis": [o.to_dict() for o in out.get("synthesis", [])]})
    else:
        console.print(f"namespace {out['namespace']}: {out['seeded']} memories seeded "
                      f"({out['existing']} already there)")
        render_report(out["report"])
        from graphcons.cli.synthesis import (
            render_outcomes,  # issue 4: the pending proposals the scenario ends with
        )

        render_outcomes(out.get("synthesis", []))

"""Commands of cluster discovery (issue 3): `clusters` (a scan: proposes nothing) and `scenario`."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from graphcons.cli.app import JsonOpt, app, console, emit_json, err_console, open_store, literal
from graphcons.core.text import printable


def _short(text: str, n: int = 40) -> str:
    text = printable(text)
    return literal(text if len(text) <= n else text[: n - 1] + "…")


def render_report(report, *, wide: bool = False) -> None:
    """A rich table of the scan's decisions, then consolidation_due and the warnings.

    On a terminal narrower than 120 columns the low-value columns go first (salience, trigger,
    the second member) and every cell stays on one line, cut with an ellipsis; --wide shows all.
    """
    wide = wide or console.width >= 120
    table = Table(title=f"scan {report.run_id} ({report.algorithm}, {report.nodes} memories, "
                        f"{report.relationships} fused edges)")
    table.add_column("cluster", no_wrap=True, min_width=18)  # keys are never cut: commands take them
    table.add_column("size", justify="right", no_wrap=True, min_width=4)
    table.add_column("coh", justify="right", no_wrap=True, min_width=4)
    if wide:
        table.add_column("salience", justify="right")
        table.add_column("trigger")
    free = max(20, console.width - 18 - 4 - 4 - 3 * 5 - 1)  # what the fixed columns and borders leave
    table.add_column("verdict", ratio=1, no_wrap=not wide, overflow="fold" if wide else "ellipsis",
                     max_width=None if wide else free // 3)
    table.add_column("members", ratio=2, no_wrap=not wide, overflow="fold" if wide else "ellipsis",
                     max_width=None if wide else free - free // 3)
    for d in report.decisions:
        f = d.figures
        verdict = "[green]accepted[/]" if d.accepted else "[red]rejected[/]: " + "; ".join(d.reasons)
        if d.split_from:
            verdict += f" [dim](part of {d.split_from})[/]"
        shown = 2 if wide else 1
        members = ("\n" if wide else "; ").join(_short(t) for t in d.titles[:shown])
        if d.cluster.size > shown:
            members += f"{chr(10) if wide else ' '}… +{d.cluster.size - min(shown, len(d.titles))} more"
        cells = [d.key, str(d.cluster.size), f"{f['cohesion']:.2f}" if "cohesion" in f else "-"]
        if wide:
            cells += [f"{f['salience']:.2f}" if "salience" in f else "-", d.trigger or "-"]
        table.add_row(*cells, verdict, members)
    console.print(table)
    console.print(f"accepted {len(report.accepted)}, rejected {len(report.rejected)}, "
                  f"consolidation_due {report.consolidation_due}"
                  + (" (dry run: nothing recorded)" if report.dry_run else ""))
    for w in report.warnings:
        err_console.print(f"[yellow]warning[/]: {w}", highlight=False)


@app.command()
def clusters(
    namespace: Optional[str] = typer.Option(None, help="Scan one namespace only (default: all, never mixed)."),
    algorithm: Optional[str] = typer.Option(None, help="label_propagation or leiden (default: [consolidation] algorithm)."),
    accepted_only: bool = typer.Option(False, "--accepted", help="Show accepted clusters only."),
    wide: bool = typer.Option(False, "--wide", help="Every column, wrapped (default fits the terminal)."),
    json_out: bool = JsonOpt,
) -> None:
    """Cluster scan: fused graph -> communities -> value gate. Proposes nothing; records the run."""
    with open_store() as g, err_console.status("scanning: fused projection, communities, value gate"):
        report = g.scan(namespace=namespace, algorithm=algorithm)
    if accepted_only:
        report.decisions = report.accepted
    if json_out:
        emit_json(report.to_dict())
    else:
        render_report(report, wide=wide)


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
        emit_json({"seeded": out["seeded"], **out["report"].to_dict(), "synthesizer": out.get("synthesizer"),
                   "synthesis": [o.to_dict() for o in out.get("synthesis", [])]})
    else:
        console.print(f"namespace {out['namespace']}: {out['seeded']} memories seeded "
                      f"({out['existing']} already there)")
        render_report(out["report"])
        from graphcons.cli.synthesis import (
            render_outcomes,  # issue 4: the pending proposals the scenario ends with
        )

        if out.get("synthesizer"):
            console.print(f"synthesized by: {out['synthesizer']['provider']} ({out['synthesizer']['model']})")
        render_outcomes(out.get("synthesis", []))

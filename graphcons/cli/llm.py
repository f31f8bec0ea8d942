"""`graphcons llm check` (issue 31): is the configured model usable? (no store needed)"""

from __future__ import annotations

import typer
from rich.table import Table

from graphcons.cli.app import JsonOpt, app, console, emit_json, errors_to_exit, load_cfg

llm_app = typer.Typer(help="The configured LLM endpoint ([llm]): check it before a scheduled run uses it.",
                      no_args_is_help=True)
app.add_typer(llm_app, name="llm")


@llm_app.command("check")
def check(json_out: bool = JsonOpt) -> None:
    """Send a tiny synthesis and a tiny reflection to [llm]; report latency, parsing, grounding, advice.

    Exit 0 when both parsed and were grounded, 7 (provider error) otherwise."""
    from graphcons.llm_check import check as run

    cfg = load_cfg()
    with errors_to_exit():
        out = run(cfg)
    if json_out:
        emit_json(out)
    else:
        console.print(f"model {out['model']!r} at {out['base_url'] or 'api.openai.com'} ({out['provider']}, "
                      f"mode {out['instructor_mode']}, timeout {out['timeout_s']:g} s, context {out['context_tokens']})")
        table = Table("step", "seconds", "calls", "parsed", "grounded", "cited / shown", "error")
        for s in out["steps"]:
            table.add_row(s["step"], f"{s['seconds']:.1f}", str(s.get("calls") or ""), "yes" if s["parsed"] else "no",
                          "yes" if s["grounded"] else "no", f"{len(s.get('cited') or [])} / {s.get('shown', '')}",
                          s.get("error", ""))
        if out["steps"]:
            console.print(table)
        for line in out["advice"]:
            console.print(f"- {line}", highlight=False)
        console.print("usable" if out["ok"] else "[bold red]not usable as configured[/]")
    if not out["ok"]:
        raise typer.Exit(7)

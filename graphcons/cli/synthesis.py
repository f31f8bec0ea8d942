"""Commands of synthesis: consolidate, explain, precompute, benchmark."""

from __future__ import annotations

from typing import Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.tree import Tree

from graphcons.cli.app import JsonOpt, answer, app, console, emit_json, err_console, literal, open_store, parse_now

NowOpt = typer.Option(None, "--now", help="Decision time (ISO-8601, default now): the day the daily cap counts.")


@app.command()
def consolidate(namespace: Optional[str] = typer.Option(None, help="Only this namespace."),
                now: Optional[str] = NowOpt, json_out: bool = JsonOpt) -> None:
    """Scan -> gate -> synthesis -> pending proposals (respects enabled, dry_run, daily_cap, budgets)."""
    with open_store() as g:
        with Progress(TextColumn("synthesizing"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                      console=err_console, disable=json_out) as bar:
            task = bar.add_task("", total=None)

            def progress(done: int, total: int, outcome: Any) -> None:
                bar.update(task, total=total, completed=done,
                           description=f"{outcome.cluster_key} {outcome.status}" if outcome else "scanning done")

            report = g.consolidate(now=parse_now(now), namespace=namespace, progress=progress)
    if json_out:
        emit_json(report.to_dict())
        return
    if report.message:
        console.print(report.message, markup=False, highlight=False)  # it names [consolidation]: text, not markup
        return
    scan = report.scan or {}
    mode = "dry run: nothing synthesized" if report.dry_run else "synthesis"
    console.print(f"run {report.run_id} ({mode}); scan {scan.get('run_id')}: {scan.get('accepted', 0)} accepted "
                  f"cluster(s), {scan.get('consolidation_due', 0)} due")
    for w in scan.get("warnings") or []:
        console.print(f"[yellow]warning[/]: {w}")
    table = Table("cluster", "status", "proposal", "reason")
    for o in report.outcomes:
        table.add_row(o.cluster_key, o.status, o.proposal_id or "", literal((o.reason or "")[:90]))
    console.print(table)
    counts = report.to_dict()["counts"]
    console.print(", ".join(f"{n} {s}" for s, n in counts.items()) or "no accepted clusters")
    if report.budget:
        b = report.budget
        console.print(f"budget: {b['used_today_before_run'] + b['started']}/{b['daily_cap']} syntheses today, "
                      f"{b['llm_calls']} LLM call(s)" + (f" of {b['max_calls_per_run']}" if b['max_calls_per_run'] else ""))
        shares = ", ".join(f"{ns} {n}" for ns, n in (b.get("used_today_by_namespace") or {}).items())
        cap = b.get("namespace_daily_cap") or 0
        console.print(f"per namespace: {shares or 'none used'} (cap {cap if cap else 'none: only the daily cap'})",
                      highlight=False)
    if report.pending:
        console.print(f"[yellow]{report.pending}[/]", highlight=False)


def _tree_label(node: dict[str, Any]) -> str:
    link = node.get("link") or {}
    rel = "+".join(r.lower() for r in link.get("relations", []))
    tag = f"[dim]{rel}{' v' + str(link['summarized_version']) if link.get('summarized_version') else ''}[/] " if rel else ""
    status = "" if node.get("status") == "active" else f" [yellow]({node.get('status')})[/]"
    hyp = f" [magenta]{node['epistemic_status']}[/]" if node.get("epistemic_status") else ""
    date = (node.get("created_at") or "")[:10]
    sources = literal(", ".join(node.get("sources") or []))
    return (f"{tag}[bold]{node['id']}[/] [cyan]{node.get('kind')}[/]{hyp}{status} {literal(node.get('title') or '')} "
            f"[dim]({sources}; {date})[/]")


@app.command()
def explain(memory_id: str, json_out: bool = JsonOpt) -> None:
    """How do you know X? Walk SUMMARIZES / DERIVED_FROM down to the source episodes."""
    out = answer(json_out, lambda g: g.explain(memory_id))
    if out is None:
        return

    def add(branch: Tree, node: dict[str, Any]) -> None:
        for child in node["children"]:
            add(branch.add(_tree_label(child)), child)

    root = Tree(_tree_label(out["tree"]))
    add(root, out["tree"])
    console.print(root)
    src = out["sources"]
    console.print(f"{len(src)} source episode(s), {len({s for n in src for s in n['sources']})} distinct source(s)")
    if out.get("summarized_by"):
        console.print("summarised by: " + ", ".join(f"{r['id']} ({r['status']})" for r in out["summarized_by"]))
    if out.get("epistemics"):  # issue 13: what graphcons believes about it, and why
        from graphcons.cli.beliefs import print_epistemics

        print_epistemics(out["epistemics"])


@app.command()
def precompute(force: bool = typer.Option(False, "--force", help="Recompute even for unchanged insights."),
               json_out: bool = JsonOpt) -> None:
    """Sleep-time precompute: store inferences per insight id (a background step)."""
    out = answer(json_out, lambda g: g.precompute(force=force))
    if out is not None:
        console.print(f"precomputed {sum(len(v) for v in out.values())} inference(s) for {len(out)} insight(s)")


@app.command()
def benchmark(json_out: bool = JsonOpt) -> None:
    """Run the battery of named checks (seeds 001, 002, 004) in its own namespaces; prints N/N passed.

    Its syntheses count toward [consolidation] daily_cap and it never passes the cap (it refuses to
    start without room). Its episodes in graphcons-benchmark are reused by every run; its scratch
    memories in graphcons-benchmark-epistemics are archived when it ends (nothing deleted)."""
    from graphcons.battery import EPISTEMIC_NAMESPACE, NAMESPACE, run_battery

    with open_store() as g:
        results = run_battery(g)
    passed = sum(1 for r in results if r.passed)
    if json_out:
        emit_json({"passed": passed, "total": len(results), "checks": [r.__dict__ for r in results],
                   "budget": {"spent": results.spent, "used_before": results.used_before,
                              "daily_cap": results.daily_cap},
                   "archived_scratch": results.archived})
    else:
        for r in results:
            mark = "[green]PASS[/]" if r.passed else "[red]FAIL[/]"
            console.print(f"{mark} {r.name}: {r.detail}", highlight=False)
        console.print(results.budget_line(), highlight=False, markup=False)
        console.print(f"left in the store: the fixed episodes of namespace {NAMESPACE} (reused by every run); "
                      f"{results.archived} scratch memories of {EPISTEMIC_NAMESPACE} archived (restorable, "
                      "nothing deleted)", highlight=False, markup=False)
        console.print(f"{passed}/{len(results)} passed")
    if passed != len(results):
        raise typer.Exit(1)


def render_outcomes(outcomes: list[Any]) -> None:
    """The proposals a synthesis pass left in the queue, with the next commands to run."""
    if not outcomes:
        return
    console.print("synthesis of the accepted clusters (pending proposals for review; nothing applied):")
    table = Table("cluster", "synthesis", "proposal", "title / reason")
    for o in outcomes:
        table.add_row(o.cluster_key, o.status, o.proposal_id or "", literal(str(o.title or o.reason or "")[:70]))
    console.print(table)
    if any(o.proposal_id for o in outcomes):
        console.print("next: graphcons proposals show ID, graphcons proposals approve ID, graphcons explain INSIGHT_ID")

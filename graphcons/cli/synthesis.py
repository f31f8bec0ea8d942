"""Commands of synthesis and review (issue 4): consolidate, proposals, explain, precompute, benchmark."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.tree import Tree

from graphcons.cli.app import JsonOpt, app, console, emit_json, err_console, open_store

NowOpt = typer.Option(None, "--now", help="Decision time (ISO-8601, default now): the day the daily cap counts.")


def _now(value: Optional[str]) -> Optional[datetime]:
    if value is None:
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        err_console.print(f"[bold red]error[/]: --now: not an ISO-8601 date-time: {value!r}")
        raise typer.Exit(2) from None
    if dt.tzinfo is None:
        err_console.print("[bold red]error[/]: --now: give a timezone (e.g. 2026-11-29T10:00:00+00:00)")
        raise typer.Exit(2)
    return dt


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

            report = g.consolidate(now=_now(now), namespace=namespace, progress=progress)
    if json_out:
        emit_json(report.to_dict())
        return
    if report.message:
        console.print(report.message)
        return
    scan = report.scan or {}
    mode = "dry run: nothing synthesized" if report.dry_run else "synthesis"
    console.print(f"run {report.run_id} ({mode}); scan {scan.get('run_id')}: {scan.get('accepted', 0)} accepted "
                  f"cluster(s), {scan.get('consolidation_due', 0)} due")
    for w in scan.get("warnings") or []:
        console.print(f"[yellow]warning[/]: {w}")
    table = Table("cluster", "status", "proposal", "reason")
    for o in report.outcomes:
        table.add_row(o.cluster_key, o.status, o.proposal_id or "", (o.reason or "")[:90])
    console.print(table)
    counts = report.to_dict()["counts"]
    console.print(", ".join(f"{n} {s}" for s, n in counts.items()) or "no accepted clusters")
    if report.budget:
        b = report.budget
        console.print(f"budget: {b['used_today_before_run'] + b['started']}/{b['daily_cap']} syntheses today, "
                      f"{b['llm_calls']} LLM call(s)" + (f" of {b['max_calls_per_run']}" if b['max_calls_per_run'] else ""))


proposals_app = typer.Typer(help="The review queue: list, show, approve, reject, revert proposals.",
                            no_args_is_help=True)
app.add_typer(proposals_app, name="proposals")


@proposals_app.command("list")
def proposals_list(status: str = typer.Option("pending", help="pending, applied, rejected, reverted, stale or all"),
                   kind: Optional[str] = typer.Option(None, help="consolidate, merge, ... (default: every kind)"),
                   limit: int = typer.Option(100, min=1), json_out: bool = JsonOpt) -> None:
    """Proposals of every kind, oldest first."""
    with open_store() as g:
        rows = g.proposals(status=None if status == "all" else status, kind=kind, limit=limit)
    if json_out:
        emit_json(rows)
        return
    table = Table("id", "kind", "status", "created", "title / summary", "members")
    for p in rows:
        title = p.get("title") or p.get("summary") or p.get("rule") or ""
        members = p.get("member_ids") or p.get("memory_ids") or []
        table.add_row(p["id"], str(p.get("kind")), str(p.get("status")), str(p.get("created_at", ""))[:19],
                      str(title)[:60], str(len(members)) if isinstance(members, list) else "")
    console.print(table)
    console.print(f"{len(rows)} proposal(s)")


@proposals_app.command("show")
def proposals_show(proposal_id: str, json_out: bool = JsonOpt) -> None:
    """One proposal with its typed insight, members, model, prompt hash and gate figures."""
    with open_store() as g:
        p = g.proposal(proposal_id)
    if json_out:
        emit_json(p)
        return
    insight = p.get("insight") if isinstance(p.get("insight"), dict) else None
    head = Table(show_header=False, box=None)
    shown = ("id", "kind", "status", "cluster_key", "namespace", "subject", "provider", "model", "prompt_hash",
             "membership_hash", "created_at", "reason", "insight_id")
    for key in shown:
        if p.get(key) is not None:
            head.add_row(f"[bold]{key}[/]", str(p[key]))
    if not insight:  # a proposal of another kind (e.g. merge): every field as stored
        for key, value in sorted(p.items()):
            if key not in shown and value is not None:
                head.add_row(f"[bold]{key}[/]", json.dumps(value, default=str) if not isinstance(value, str) else value)
        console.print(head)
        return
    console.print(head)
    tree = Tree(f"[bold]{insight['title']}[/]  (confidence {insight['confidence']:.2f}, hypothesis)")
    tree.add(insight["concept"])
    claims = tree.add("claims")
    for c in insight["claims"]:
        n = c.get("confirmations") or 1
        claims.add(f"{c['statement']}  [dim](confirmed {'once' if n == 1 else f'{n} times'}; "
                   f"{', '.join(c['member_ids'])})[/]")
    for label, key in (("tensions", "tensions"), ("gaps", "gaps"), ("implications", "implications")):
        items = insight.get(key) or []
        if items:
            branch = tree.add(label)
            for item in items:
                branch.add(item["description"] if isinstance(item, dict) else str(item))
    console.print(tree)
    grounding = p.get("grounding") or {}
    versions = p.get("member_versions") or {}
    console.print(f"members: {', '.join(f'{m}@v{v}' for m, v in sorted(versions.items()))}")
    console.print(f"cited: {', '.join(p.get('cited') or [])}; stripped unshown ids: "
                  f"{grounding.get('stripped_count', 0)}; gate figures: {json.dumps(p.get('gate_figures'), default=str)}")


@proposals_app.command("approve")
def proposals_approve(proposal_id: str, by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Apply a pending proposal in one transaction (approving twice changes nothing)."""
    with open_store() as g:
        res = g.approve(proposal_id, by=by)
    data = res.__dict__ if hasattr(res, "__dict__") else res
    if json_out:
        emit_json(data)
    elif hasattr(res, "changed"):
        if res.changed:
            console.print(f"applied {res.proposal_id}: insight {res.insight_id} summarises {res.summarizes} "
                          f"member(s), derived from {res.derived_from}")
        else:
            console.print(f"{res.proposal_id} was already applied (insight {res.insight_id}); nothing changed")
    else:
        console.print(json.dumps(data, default=str))


@proposals_app.command("reject")
def proposals_reject(proposal_id: str, reason: str = typer.Option(..., "--reason", help="Why (kept on the proposal)."),
                     by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Reject a pending proposal; it is kept with the reason."""
    with open_store() as g:
        p = g.reject(proposal_id, reason, by=by)
    if json_out:
        emit_json(p)
    else:
        console.print(f"rejected {proposal_id}: {reason}")


@proposals_app.command("revert")
def proposals_revert(proposal_id: str, reason: str = typer.Option("reverted", "--reason"),
                     by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Undo an applied proposal: the insight is deprecated, every link stays (nothing deleted)."""
    with open_store() as g:
        out = g.revert(proposal_id, reason, by=by)
    if json_out:
        emit_json(out)
    elif isinstance(out, dict) and "changed" in out:
        console.print(f"reverted {proposal_id}: insight {out.get('insight_id')} deprecated, "
                      f"{out.get('links_kept', 0)} link(s) kept" if out["changed"] else
                      f"{proposal_id} was already reverted; nothing changed")
    else:
        console.print(json.dumps(out, default=str))


@proposals_app.command("resynthesize")
def proposals_resynthesize(proposal_id: str, json_out: bool = JsonOpt) -> None:
    """Re-synthesize a stale proposal from its members' current versions (a new proposal)."""
    with open_store() as g:
        out = g.resynthesize(proposal_id)
    if json_out:
        emit_json(out.to_dict())
    else:
        console.print(f"{out.cluster_key}: {out.status} {out.proposal_id or ''} {out.reason}")


def _tree_label(node: dict[str, Any]) -> str:
    link = node.get("link") or {}
    rel = "+".join(r.lower() for r in link.get("relations", []))
    tag = f"[dim]{rel}{' v' + str(link['summarized_version']) if link.get('summarized_version') else ''}[/] " if rel else ""
    status = "" if node.get("status") == "active" else f" [yellow]({node.get('status')})[/]"
    hyp = " [magenta]hypothesis[/]" if node.get("epistemic_status") == "hypothesis" else ""
    date = (node.get("created_at") or "")[:10]
    sources = ", ".join(node.get("sources") or [])
    return (f"{tag}[bold]{node['id']}[/] [cyan]{node.get('kind')}[/]{hyp}{status} {node.get('title') or ''} "
            f"[dim]({sources}; {date})[/]")


@app.command()
def explain(memory_id: str, json_out: bool = JsonOpt) -> None:
    """How do you know X? Walk SUMMARIZES / DERIVED_FROM down to the source episodes."""
    with open_store() as g:
        out = g.explain(memory_id)
    if json_out:
        emit_json(out)
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


@app.command()
def precompute(force: bool = typer.Option(False, "--force", help="Recompute even for unchanged insights."),
               json_out: bool = JsonOpt) -> None:
    """Sleep-time precompute: store inferences per insight id (a background step)."""
    with open_store() as g:
        out = g.precompute(force=force)
    if json_out:
        emit_json(out)
    else:
        console.print(f"precomputed {sum(len(v) for v in out.values())} inference(s) for {len(out)} insight(s)")


@app.command()
def benchmark(json_out: bool = JsonOpt) -> None:
    """Run the battery of named checks (seed 001) on a throwaway namespace; prints N/N passed."""
    from graphcons.battery import run_battery

    with open_store() as g:
        results = run_battery(g)
    passed = sum(1 for r in results if r.passed)
    if json_out:
        emit_json({"passed": passed, "total": len(results), "checks": [r.__dict__ for r in results],
                   "budget": {"spent": results.spent, "used_before": results.used_before,
                              "daily_cap": results.daily_cap}})
    else:
        for r in results:
            mark = "[green]PASS[/]" if r.passed else "[red]FAIL[/]"
            console.print(f"{mark} {r.name}: {r.detail}", highlight=False)
        console.print(results.budget_line(), highlight=False, markup=False)
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
        table.add_row(o.cluster_key, o.status, o.proposal_id or "", str(o.title or o.reason or "")[:70])
    console.print(table)
    if any(o.proposal_id for o in outcomes):
        console.print("next: graphcons proposals show ID, graphcons proposals approve ID, graphcons explain INSIGHT_ID")

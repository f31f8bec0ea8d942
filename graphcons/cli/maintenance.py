"""Store maintenance commands (issue 5): merge, promote, deprecate, decay, weights recompute,
health, restore. Every job is a dry run unless --apply is given; --now fixes the decision
time (ISO-8601 with a timezone) so a run can be reproduced."""

from __future__ import annotations

from typing import Any, Callable, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from graphcons.cli.app import JsonOpt, answer, app, console, emit_json, err_console, open_store, parse_now, literal
from graphcons.cli.review import show_decision
from graphcons.core.errors import Conflict

ApplyOpt = typer.Option(False, "--apply", help="Write the changes (default: dry run, report only).")
NowOpt = typer.Option(None, "--now", help="Decision time, ISO-8601 with timezone (default: the current time).")


def _dry(dry_run: bool | None) -> str:
    return "[yellow](dry run: nothing written; use --apply)[/]" if dry_run else ""


# -- merge ----------------------------------------------------------------------------------
merge_app = typer.Typer(help="Near-duplicate merge: run the pass, review its proposals, revert a merge.",
                        invoke_without_command=True)
app.add_typer(merge_app, name="merge")


@merge_app.callback()
def merge(ctx: typer.Context, apply: bool = ApplyOpt, now: Optional[str] = NowOpt,
          auto: Optional[bool] = typer.Option(None, "--auto-apply/--propose",
                                              help="Override [merge] auto_apply for this run."),
          namespace: Optional[str] = typer.Option(None, help="Only this namespace."),
          subject: Optional[str] = typer.Option(None, help="Only this subject."),
          json_out: bool = JsonOpt) -> None:
    """Find near-duplicates (same subject and namespace) and propose merges; flag contradicting pairs."""
    if ctx.invoked_subcommand is not None:
        return
    with open_store() as g:
        from graphcons.maintenance.weights import count_live

        with Progress(TextColumn("merge scan"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err_console, disable=json_out) as bar:
            task = bar.add_task("merge", total=count_live(g.db))
            report = g.merge(dry_run=not apply, now=parse_now(now), auto_apply=auto,
                             progress=lambda n: bar.advance(task, n), namespace=namespace, subject=subject)
    if json_out:
        emit_json(report.to_dict())
        return
    table = Table("action", "score", "winner", "loser", "rule / reasons")
    for action in ("applied", "proposed", "conflicts", "related", "deferred", "pending"):
        for p in getattr(report, action):
            why = (", ".join(p.contradictions + p.opposites) if action == "conflicts" else
                   p.pending if action == "pending" else
                   p.rule if p.p_duplicate is None else f"{p.rule}, p_duplicate {p.p_duplicate:.3f}")
            table.add_row(action, f"{p.score:.3f}", p.winner, p.loser, why)
    console.print(table)
    console.print(f"over threshold {report.threshold}: {report.over_threshold}; proposed "
                  f"{len(report.proposed)}, applied {len(report.applied)}, conflicts "
                  f"{len(report.conflicts)}, related {len(report.related)}, deferred {len(report.deferred)}, "
                  f"pending verification {len(report.pending)}, derived from one another (never merged) "
                  f"{len(report.derived)} {_dry(report.dry_run)}")


@app.command("updates")
def updates(apply: bool = ApplyOpt, now: Optional[str] = NowOpt,
            auto: Optional[bool] = typer.Option(None, "--auto-apply/--propose",
                                                help="Override [updates] auto_apply for this run."),
            namespace: Optional[str] = typer.Option(None, help="Only this namespace."),
            subject: Optional[str] = typer.Option(None, help="Only this subject."),
            json_out: bool = JsonOpt) -> None:
    """Notice updates: a newer memory stating a new value for an older one's attribute (same subject and
    namespace, another day) is proposed as newer SUPERSEDES older; review with `graphcons proposals --kind update`."""
    with open_store() as g:
        report = g.updates(dry_run=not apply, now=parse_now(now), auto_apply=auto, namespace=namespace, subject=subject)
    if json_out:
        emit_json(report.to_dict())
        return
    table = Table("action", "older -> newer", "attribute", "old -> new", "since", "confidence")
    for action, pairs in (("applied", report.applied), ("proposed", report.proposed)):
        for u in pairs:
            table.add_row(action, f"{u.older} -> {u.newer}", literal(u.attribute), literal(f"{u.old_value} -> {u.new_value}"),
                          u.newer_since[:10], f"{u.confidence:.2f}")
    console.print(table)
    checked = (f", refused by the model {len(report.refused)}, pending its check {len(report.pending)}"
               if report.verifier == "llm" else "")
    console.print(f"found {report.found}: proposed {len(report.proposed)}, applied {len(report.applied)}, "
                  f"already handled {report.known}{checked} {_dry(report.dry_run)}")


@merge_app.command("list")
def merge_list(status: Optional[str] = typer.Option("pending", help="pending, applied, rejected, reverted or all"),
               limit: int = typer.Option(100, min=1), json_out: bool = JsonOpt) -> None:
    """Merge proposals in the review queue."""
    with open_store() as g:
        rows = g.proposal_records(status=None if status == "all" else status, kind="merge", limit=limit)
    if json_out:
        emit_json([p.to_dict() for p in rows])
        return
    table = Table("id", "status", "score", "winner", "loser")
    for p in rows:
        pair = p.payload
        table.add_row(p.id, str(p.status), f"{pair.score:.3f}", pair.winner, pair.loser)
    console.print(table)


def _reason(default: str) -> Any:
    return typer.Option(default, help="Why (kept on the proposal).")


def _decided(proposal_id: str, json_out: bool, act: Callable[[Any, str], Any]) -> None:
    """One decision on a merge proposal (named by its id or its pair), shown as the queue shows it."""
    with open_store() as g:
        show_decision(act(g, _merge_id(g, proposal_id)), json_out)


@merge_app.command("approve")
def merge_approve(proposal_id: str, by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Apply one pending merge proposal (one transaction); alias of `proposals approve`."""
    _decided(proposal_id, json_out, lambda g, pid: g.approve(pid, by=by))


@merge_app.command("reject")
def merge_reject(proposal_id: str, by: str = typer.Option("user"), reason: str = _reason("not a duplicate"),
                 json_out: bool = JsonOpt) -> None:
    """Reject a pending merge proposal (the pair is not proposed again); alias of `proposals reject`."""
    _decided(proposal_id, json_out, lambda g, pid: g.reject(pid, reason, by=by))


@merge_app.command("revert")
def merge_revert(proposal_id: str, by: str = typer.Option("user"), reason: str = _reason("reverted"),
                 json_out: bool = JsonOpt) -> None:
    """Undo an applied merge: the loser comes back; SUPERSEDES is kept, marked reverted; alias of `proposals revert`."""
    _decided(proposal_id, json_out, lambda g, pid: g.revert(pid, reason, by=by))


def _merge_id(g: Any, proposal_id: str) -> str:
    """The merge aliases act on merge proposals only (the queue itself takes every kind)."""
    kind = g.proposal_record(proposal_id).kind
    if kind != "merge":
        raise Conflict(f"{proposal_id} is a {kind!r} proposal; use `graphcons proposals` for it")
    return proposal_id


# -- weights and decay ----------------------------------------------------------------------
weights_app = typer.Typer(help="Effective weights (five components, Ebbinghaus decay).", no_args_is_help=True)
app.add_typer(weights_app, name="weights")


def _weights(job: str, apply: bool, now: Optional[str], json_out: bool) -> None:
    with open_store() as g:
        from graphcons.maintenance.weights import count_live

        total = count_live(g.db)
        with Progress(TextColumn(job), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err_console, disable=json_out) as bar:
            task = bar.add_task(job, total=total)
            fn = g.decay if job == "decay" else g.recompute_weights
            report = fn(dry_run=not apply, now=parse_now(now), progress=lambda n: bar.advance(task, n))
    if json_out:
        emit_json(report)
    else:
        console.print(f"{job}: scanned {report['scanned']}, changed {report['changed']}, "
                      f"{report['below_deprecation_weight']} below the deprecation weight {_dry(report.get('dry_run'))}")


@weights_app.command("recompute")
def weights_recompute(apply: bool = ApplyOpt, now: Optional[str] = NowOpt, json_out: bool = JsonOpt) -> None:
    """Recompute every live memory's effective weight in batches (with a progress bar)."""
    _weights("weights", apply, now, json_out)


@app.command()
def decay(apply: bool = ApplyOpt, now: Optional[str] = NowOpt, json_out: bool = JsonOpt) -> None:
    """Apply Ebbinghaus decay R = e^(-t/S) at --now (recomputes the effective weights)."""
    _weights("decay", apply, now, json_out)


# -- promotion, deprecation, restore ----------------------------------------------------------
@app.command()
def promote(apply: bool = ApplyOpt, now: Optional[str] = NowOpt, json_out: bool = JsonOpt) -> None:
    """Promote proposed memories to active by seed 003's rules (each promotion records its rule)."""
    report = answer(json_out, lambda g: g.promote(dry_run=not apply, now=parse_now(now)))
    if report is None:
        return
    for p in report["promoted"]:
        console.print(f"{p['id']}: {p['rule']}", highlight=False)
    console.print(f"promoted {len(report['promoted'])}, still proposed {report['still_proposed']} {_dry(report.get('dry_run'))}")


@app.command()
def deprecate(memory_id: Optional[str] = typer.Argument(None, help="Deprecate this memory by hand (needs --replaced-by)."),
              replaced_by: Optional[str] = typer.Option(None, "--replaced-by", help="The active memory that replaces it."),
              apply: bool = ApplyOpt, now: Optional[str] = NowOpt, by: str = typer.Option("user"),
              json_out: bool = JsonOpt) -> None:
    """Retire stale memories: deprecate those an active memory SUPERSEDES, archive the rest."""
    report = answer(json_out, lambda g: g.deprecate(memory_id, replaced_by=replaced_by, dry_run=not apply,
                                                    now=parse_now(now), by=by))
    if report is None:
        return
    if memory_id is not None:
        console.print(f"{memory_id}: deprecated, replaced by {replaced_by} {_dry(report.get('dry_run'))}")
        return
    for r in report["deprecated"] + report["archived"]:
        console.print(f"{r['id']}: {r['status']} ({r['rule']})", highlight=False)
    console.print(f"deprecated {len(report['deprecated'])}, archived {len(report['archived'])} {_dry(report.get('dry_run'))}")


@app.command()
def restore(memory_id: str, by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Bring back a deprecated or archived memory (a merged one by reverting its merge)."""
    with open_store() as g:
        out = g.restore(memory_id, by=by)
    emit_json(out) if json_out else console.print(
        f"{memory_id}: {'restored to ' + out['status'] if out['changed'] else 'already ' + out['status']}")


@app.command()
def health(now: Optional[str] = NowOpt, scan: bool = typer.Option(False, "--scan", help="Count duplicate candidates "
           "with a fresh dry-run merge scan instead of the pending proposals."), json_out: bool = JsonOpt) -> None:
    """Seed 003's health figures, quality metrics with their targets, and the last run of each job."""
    report = answer(json_out, lambda g: g.health(now=parse_now(now), scan=scan))
    if report is None:
        return
    table = Table("figure", "value", show_header=False, box=None)
    for key, value in report["figures"].items():
        table.add_row(f"[bold]{key}[/]", f"{value:.3f}" if isinstance(value, float) else str(value))
    console.print(table)
    q = Table("quality metric", "value", "target", "ok")
    for key, m in report["quality"].items():
        q.add_row(key, "n/a" if m["value"] is None else f"{m['value']:.3f}", m["target"],
                  {True: "[green]yes[/]", False: "[red]no[/]", None: "-"}[m["ok"]])
    console.print(q)
    runs = Table("job", "last run", "last status")
    for job, at in report["last_runs"].items():
        runs.add_row(job, str(at) if at else "never", report["last_status"].get(job) or "-")
    console.print(runs)
    vi = report.get("vector_index") or {}
    console.print(f"vector index {vi.get('name')}: {vi.get('state')}, probe "
                  f"{'n/a' if vi.get('probe_ms') is None else str(vi['probe_ms']) + ' ms'} ({vi.get('probe', '')})")
    for warning in report.get("warnings", []):
        console.print(f"[yellow]warning[/]: {warning}", highlight=False)


# -- vector index ----------------------------------------------------------------------------
index_app = typer.Typer(help="The vector index: its health, and a rebuild when queries got slow.", no_args_is_help=True)
app.add_typer(index_app, name="index")


@index_app.command("status")
def index_status(json_out: bool = JsonOpt) -> None:
    """State, population and the median latency of a fixed probe query."""
    with open_store() as g:
        out = g.index_status()
    emit_json(out) if json_out else console.print(out)


@index_app.command("rebuild")
def index_rebuild(yes: bool = typer.Option(False, "--yes", help="Confirm: vector queries fail until the new "
                                           "index is ONLINE (seconds at 100k)."),
                  by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Drop and recreate the vector index from the stored embeddings (schema only, no data)."""
    if not yes:
        err_console.print("[bold red]error[/]: --yes: the rebuild drops the vector index first; retrieval's vector "
                          "leg, SIMILAR choice in large scopes and merge candidates fail until it is ONLINE again")
        raise typer.Exit(2)
    with open_store() as g:
        out = g.rebuild_index(by=by)
    emit_json(out) if json_out else console.print(
        f"rebuilt {out['name']} in {out['seconds']} s: probe {out['probe_ms_before']} ms -> {out['probe_ms_after']} ms")


@app.command("feedback")
def feedback(memory_id: str, useful: bool = typer.Option(False, "--useful", help="It helped."),
             wrong: bool = typer.Option(False, "--wrong", help="It is wrong or misleading."),
             note: Optional[str] = typer.Option(None, "--note", help="Why (kept with the rating)."),
             by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Rate a memory or an insight: feeds the feedback weight and the insight-quality metric."""
    if useful == wrong:
        err_console.print("[bold red]error[/]: verdict: give exactly one of --useful or --wrong")
        raise typer.Exit(2)
    out = answer(json_out, lambda g: g.feedback(memory_id, "useful" if useful else "wrong", note=note, by=by))
    if out is not None:
        console.print(f"{memory_id}: rated {out['verdict']} ({out['useful']} useful, {out['wrong']} wrong); "
                      f"effective weight {out['effective_weight_before']:.3f} -> {out['effective_weight']:.3f}")
# -- conflicts (issue 11) ---------------------------------------------------------------------
conflicts_app = typer.Typer(help="Pairs the merge guard kept apart: list them, settle one (both memories are kept).")
app.add_typer(conflicts_app, name="conflicts")


@conflicts_app.command("list")
def conflicts_list(status: Optional[str] = typer.Option("open", help="open, resolved or all"),
                   limit: int = typer.Option(100, min=1), json_out: bool = JsonOpt) -> None:
    """CONFLICTS_WITH links found by the merge pass."""
    rows = answer(json_out, lambda g: g.conflicts(status=None if status == "all" else status, limit=limit))
    if rows is None:
        return
    table = Table("a", "b", "status", "reasons", "holds", "scope")
    for r in rows:
        table.add_row(r["a"], r["b"], r["status"], literal(", ".join(r["reasons"] or [])), r["holds"] or "", literal(r["scope"] or ""))
    console.print(table)


@conflicts_app.command("resolve")
def conflicts_resolve(a: str, b: str, holds: str = typer.Option(..., help="The id that holds, or 'both'."),
                      scope: str = typer.Option("", help="Where it holds (required with 'both')."),
                      note: str = typer.Option("", help="Why."), by: str = typer.Option("user"),
                      json_out: bool = JsonOpt) -> None:
    """Settle one conflict; both memories stay as they are."""
    out = answer(json_out, lambda g: g.resolve_conflict(a, b, holds=holds, scope=scope, note=note, by=by))
    if out is None:
        return
    console.print(f"resolved: {out['holds']} holds{(' in ' + out['scope']) if out['scope'] else ''}")


@app.command("cards")
def cards(apply: bool = ApplyOpt, now: Optional[str] = NowOpt,
          namespace: Optional[str] = typer.Option(None, help="Only this namespace."),
          subject: Optional[str] = typer.Option(None, help="Only this subject."),
          json_out: bool = JsonOpt) -> None:
    """Profile cards: each subject's memories said the short way, grouped, dated and cited, one `card`
    proposal per subject; review with `graphcons proposals --kind card` (approving versions the profile)."""
    with open_store() as g:
        report = g.cards(dry_run=not apply, now=parse_now(now), namespace=namespace, subject=subject)
    if json_out:
        emit_json(report.to_dict())
        return
    table = Table("proposal", "namespace", "subject", "items", "memories", "groups")
    for c in report.proposed:
        table.add_row(c.proposal_id, c.namespace, literal(c.subject), str(c.items), str(c.memories),
                      ", ".join(f"{k} {v}" for k, v in sorted(c.groups.items())))
    console.print(table)
    console.print(f"subjects {report.subjects}: proposed {len(report.proposed)}, already proposed "
                  f"{len(report.known)} ({report.parser}) {_dry(report.dry_run)}")

"""The one review queue on the command line: `graphcons proposals list|show|approve|reject|
revert|resynthesize` for every kind of proposal (`graphcons merge list|approve|reject|revert`
are aliases that call the same functions). Every action goes through Graphcons' queue verbs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table
from rich.tree import Tree

from graphcons.cli.app import JsonOpt, app, console, emit_json, errors_to_exit, open_store, literal
from graphcons.consolidation.insight import InsightPayload
from graphcons.consolidation.synthesis.models import Insight
from graphcons.core.errors import ValidationError
from graphcons.store.proposals import Decision


def show_decision(d: Decision, json_out: bool) -> None:
    """One line per review action, the same for every kind (or the typed result as JSON)."""
    if json_out:
        emit_json(d.model_dump())
        return
    if not d.changed:
        console.print(f"{d.proposal_id} was already {d.status}; nothing changed")
    elif d.kind == "merge":
        verb = "merged" if d.status == "applied" else d.status
        console.print(f"{d.proposal_id}: {verb}" + (f" ({d.loser} into {d.winner})" if d.winner else "")
                      + (f": {d.reason}" if d.reason else ""), markup=False)
    elif d.kind == "update":  # issue 51
        edge = f"{d.newer} SUPERSEDES {d.older}" + (" (edge kept, marked reverted)" if d.status == "reverted" else "")
        console.print(f"{d.status} {d.proposal_id}: {edge}" + (f": {d.reason}" if d.reason else ""), markup=False)
    elif d.kind == "reflect":  # issue 14
        what = (f"{len(d.created)} new semantic memories, {len(d.confirmed)} confirmed, {d.consolidated} memories "
                "consolidated" if d.status == "applied" else f"{d.consolidated} memories back to their earlier status")
        console.print(f"{d.status} {d.proposal_id}: profile version {d.profile_version}; {what}")
    elif d.status == "applied":
        console.print(f"applied {d.proposal_id}: insight {d.insight_id} summarises {d.summarizes} "
                      f"member(s), derived from {d.derived_from}")
    elif d.status == "reverted":
        console.print(f"reverted {d.proposal_id}: insight {d.insight_id} deprecated, {d.links_kept} link(s) kept")
    else:
        console.print(f"{d.status} {d.proposal_id}" + (f": {d.reason}" if d.reason else ""), markup=False)


proposals_app = typer.Typer(help="The review queue: list, show, approve, reject, revert proposals.",
                            no_args_is_help=True)
app.add_typer(proposals_app, name="proposals")


@proposals_app.command("list")
def proposals_list(status: str = typer.Option("pending", help="pending, applied, rejected, reverted, stale or all"),
                   kind: Optional[str] = typer.Option(None, help="consolidate, merge, ... (default: every kind)"),
                   namespace: Optional[str] = typer.Option(None, help="Only this namespace's proposals."),
                   limit: int = typer.Option(100, min=1),
                   wide: bool = typer.Option(False, "--wide", help="Every column (default fits the terminal)."),
                   json_out: bool = JsonOpt) -> None:
    """Proposals of every kind, oldest first."""
    with open_store() as g:
        rows = g.proposal_records(status=None if status == "all" else status, kind=kind, limit=limit,
                                  namespaces=None if namespace is None else [namespace])
    if json_out:
        emit_json([p.to_dict() for p in rows])
        return
    wide = wide or console.width >= 120  # narrow terminals: one line per proposal, cut with an ellipsis
    table = Table()
    table.add_column("id", no_wrap=True, min_width=18)  # ids are never cut: the next command takes one
    table.add_column("kind", no_wrap=True, min_width=5, max_width=None if wide else 11)
    table.add_column("status", no_wrap=True, min_width=7)
    if wide:
        table.add_column("created")
    table.add_column("title / summary", ratio=1, no_wrap=not wide, overflow="ellipsis",
                     max_width=None if wide else max(12, console.width - 18 - 11 - 7 - 3 - 3 * 5 - 1))
    table.add_column("n", justify="right")
    for p in rows:
        cells = [p.id, p.kind, str(p.status)]
        if wide:
            cells.append(str(p.created_at or "")[:19])
        table.add_row(*cells, literal(p.heading()), str(len(p.member_ids)))
    console.print(table)
    more = " (the first --limit; there may be more: raise --limit or narrow with --namespace / --kind)" \
        if len(rows) == limit else ""
    console.print(f"{len(rows)} proposal(s){more}")


@proposals_app.command("show")
def proposals_show(proposal_id: str, json_out: bool = JsonOpt) -> None:
    """One proposal with its typed insight, members, model, prompt hash and gate figures."""
    with open_store() as g:
        p = g.proposal_record(proposal_id)
    if json_out:
        emit_json(p.to_dict())
        return
    head = Table(show_header=False, box=None)
    for key, value in p.to_dict(only=SHOWN_FIRST).items():
        head.add_row(f"[bold]{key}[/]", literal(value))
    if not isinstance(p.payload, InsightPayload) or not p.payload.insight:
        # a proposal of another kind (e.g. merge): every field as stored
        for key, value in sorted(p.to_dict().items()):
            if key not in SHOWN_FIRST and value is not None:
                head.add_row(f"[bold]{key}[/]", literal(json.dumps(value, default=str) if not isinstance(value, str) else value))
        console.print(head)
        _dropped(dict(p.grounding or {}))
        return
    console.print(head)
    console.print(_insight_tree(p.payload.typed()))
    grounding = dict(p.grounding or {})
    versions = p.member_versions or {}
    console.print(f"members: {', '.join(f'{m}@v{v}' for m, v in sorted(versions.items()))}")
    console.print(f"cited: {', '.join(p.cited or ())}; stripped unshown ids: "
                  f"{grounding.get('stripped_count', 0)}; gate figures: {json.dumps(p.payload.gate_figures, default=str)}")
    _dropped(grounding)  # the claims, facts and implications the guard dropped or folded (issue 48)


SHOWN_FIRST = ("id", "kind", "status", "cluster_key", "namespace", "subject", "provider", "model", "prompt_hash",
               "membership_hash", "created_at", "reason", "insight_id")


def _insight_tree(insight: Insight) -> Tree:
    tree = Tree(f"[bold]{literal(insight.title)}[/]  (confidence {insight.confidence:.2f}, hypothesis)")
    tree.add(literal(insight.concept))
    claims = tree.add("claims")
    for c in insight.claims:
        n = c.confirmations or 1
        claims.add(f"{literal(c.statement)}  [dim](confirmed {'once' if n == 1 else f'{n} times'}; "
                   f"{', '.join(c.member_ids)})[/]")
    for label, items in (("tensions", [t.description for t in insight.tensions]), ("gaps", insight.gaps),
                         ("implications", insight.implications)):
        if items:
            branch = tree.add(label)
            for item in items:
                branch.add(literal(item))
    return tree


def _dropped(grounding: dict) -> None:
    """What the grounding guard removed from a reflection or an insight, and why (issues 40, 48)."""
    dropped = grounding.get("dropped") or [] if isinstance(grounding, dict) else []
    if dropped:
        console.print(f"[bold]dropped statements ({len(dropped)}):[/]")
        for d in dropped:
            what = d.get("category") or d.get("kind")  # a reflection's category, an insight line's kind
            cited = d.get("memory_ids") or d.get("member_ids") or []
            console.print(f"  - {literal(d['statement'])}  [dim]({what}; cited {', '.join(cited) or 'nothing'}"
                          f"): {literal(d['reason'])}[/]")


@proposals_app.command("approve")
def proposals_approve(proposal_id: str, by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Apply a pending proposal in one transaction (approving twice changes nothing)."""
    with open_store() as g:
        show_decision(g.approve(proposal_id, by=by), json_out)


@proposals_app.command("reject")
def proposals_reject(proposal_id: str, reason: str = typer.Option(..., "--reason", help="Why (kept on the proposal)."),
                     by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Reject a pending proposal; it is kept with the reason."""
    with open_store() as g:
        show_decision(g.reject(proposal_id, reason, by=by), json_out)


@proposals_app.command("revert")
def proposals_revert(proposal_id: str, reason: str = typer.Option("reverted", "--reason"),
                     by: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Undo an applied proposal: the insight is deprecated, every link stays (nothing deleted)."""
    with open_store() as g:
        show_decision(g.revert(proposal_id, reason, by=by), json_out)


@proposals_app.command("resynthesize")
def proposals_resynthesize(proposal_id: str, json_out: bool = JsonOpt) -> None:
    """Re-synthesize a stale proposal from its members' current versions (a new proposal)."""
    with open_store() as g:
        out = g.resynthesize(proposal_id)
    if json_out:
        emit_json(out.to_dict())
    else:
        console.print(f"{out.cluster_key}: {out.status} {out.proposal_id or ''} {out.reason}", markup=False)




@app.command("review")
def review(namespace: Optional[str] = typer.Option(None, help="Only this namespace."),
           kind: Optional[str] = typer.Option(None, help="consolidate, merge, ... (default: every kind)"),
           by: str = typer.Option("user", help="Reviewer name recorded on each action.")) -> None:
    """The review queue as a terminal app: approve, reject, revert, resynthesize with one key."""
    from graphcons.cli.tui import ReviewApp  # Textual loads only for this command

    with open_store() as g:
        ReviewApp(g, namespace=namespace, kind=kind, by=by).run()


@app.command("viz")
def viz(what: str = typer.Argument(..., help="insight | cluster | subject | memory"),
        target: str = typer.Argument(..., help="The insight id, cluster key, subject or memory id."),
        out: str = typer.Option("graphcons-viz.html", "--out", help="The HTML file to write."),
        depth: int = typer.Option(1, "--depth", help="memory: how many hops around it (0-5)."),
        namespace: Optional[str] = typer.Option(None, help="subject: only this namespace.")) -> None:
    """An interactive picture (neo4j-viz) of a provenance tree, a cluster, a subject or a neighbourhood."""
    from graphcons import viz as pictures  # neo4j-viz loads only for this command

    folder = Path(out).parent
    if not folder.is_dir():  # checked first: a missing folder is a clear error, not a traceback after the query
        with errors_to_exit():
            raise ValidationError("out", f"the folder {folder} does not exist; create it or choose another --out")
    with open_store() as g:
        vg, counts = pictures.graph(g.db, what, target, depth=depth, namespace=namespace)
        try:
            path = pictures.write_html(vg, out, f"graphcons: {what} {target}")
        except OSError as exc:
            raise ValidationError("out", f"cannot write {out}: {exc.strerror or exc}") from None
    console.print(f"wrote {path} ({counts['nodes']} memories, {counts['relationships']} relationships); "
                  "open it in a browser")

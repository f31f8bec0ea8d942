"""One-time store migrations (`graphcons migrate ...`)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from graphcons.cli.app import JsonOpt, app, console, emit_json, open_store

migrate_app = typer.Typer(help="One-time store migrations (resumable, audited).", no_args_is_help=True)
app.add_typer(migrate_app, name="migrate")


@migrate_app.command("similar")
def similar(batch_size: int = typer.Option(200, min=1, max=10_000, help="Memories per transaction."),
            limit: Optional[int] = typer.Option(None, min=1, help="Stop after this many memories (resume later)."),
            json_out: bool = JsonOpt) -> None:
    """Rebuild SIMILAR edges per subject: cross-subject edges become SIMILAR_ACROSS (kept, not
    clustered); each memory links to its top-k earlier memories of the same subject."""
    with open_store() as g, Progress(TextColumn("migrate similar"), BarColumn(), MofNCompleteColumn(),
                                     TimeRemainingColumn(), console=console, disable=json_out) as bar:
        task = bar.add_task("similar", total=None)
        out = g.migrate_similar(batch_size=batch_size, limit=limit,
                                progress=lambda done, total: bar.update(task, completed=done, total=total))
    if json_out:
        emit_json(out)
    else:
        console.print(f"migrated {out['migrated']} memories: {out['neighbours_linked']} same-subject neighbours "
                      f"linked, {out['retyped_cross_subject']} cross-subject edges kept as SIMILAR_ACROSS; "
                      f"{out['remaining']} remaining")


@migrate_app.command("payloads")
def payloads(reverse: bool = typer.Option(False, "--reverse", help="Store consolidate proposals as before issue 60 "
                                          "(for an older checkout; `graphcons init` moves them back)."),
             json_out: bool = JsonOpt) -> None:
    """Every kind of proposal keeps what it proposes under `payload` (issue 60): move the consolidate
    proposals of an older store there (`graphcons init` does it too)."""
    with open_store() as g:
        out = g.migrate_payloads(reverse=reverse)
    if json_out:
        emit_json(out)
    else:
        console.print(f"{out['direction']}: {out['moved']} consolidate proposal(s) moved")

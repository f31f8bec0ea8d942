"""`graphcons serve` (the HTTP API, issue 16) and `graphcons tokens` (its bearer tokens)."""

from __future__ import annotations

from typing import List, Optional

import typer
from rich.table import Table

from graphcons.cli.app import JsonOpt, answer, app, console, emit_json, errors_to_exit, load_cfg, open_store

tokens_app = typer.Typer(help="API tokens: create (shown once), list, revoke. Only a hash is stored.",
                         no_args_is_help=True)
app.add_typer(tokens_app, name="tokens")


@app.command()
def serve(host: Optional[str] = typer.Option(None, help="Interface to bind (default [service] host, 127.0.0.1)."),
          port: Optional[int] = typer.Option(None, help="Port (default [service] port, 8765)."),
          log_level: str = typer.Option("info", help="uvicorn log level.")) -> None:
    """Serve the HTTP API (OpenAPI at /openapi.json, routes under /v1, /healthz without a token)."""
    from graphcons.service import serve as run

    cfg = load_cfg()
    with errors_to_exit():
        run(cfg, host=host, port=port, log_level=log_level)


@tokens_app.command("create")
def tokens_create(name: str = typer.Option(..., help="The caller's identity: the source of what it writes."),
                  namespace: List[str] = typer.Option(..., help="A namespace it may use (repeatable; * for all)."),
                  role: str = typer.Option("writer", help="reader, writer, reviewer or admin."),
                  json_out: bool = JsonOpt) -> None:
    """Create a token; it is printed once and cannot be shown again."""
    with open_store() as g:
        token, record = g.create_token(name, list(namespace), role, by="cli")
    if json_out:
        emit_json({"token": token, **record})
    else:
        console.print(f"token {record['id']} for {name} ({role} on {', '.join(record['namespaces'])}):")
        console.print(token, highlight=False)
        console.print("[dim]Shown once: graphcons keeps only its hash.[/]")


@tokens_app.command("list")
def tokens_list(json_out: bool = JsonOpt) -> None:
    """Every token (revoked ones too); never the token itself."""
    rows = answer(json_out, lambda g: g.tokens())
    if rows is None:
        return
    table = Table("id", "name", "role", "namespaces", "status", "created")
    for t in rows:
        table.add_row(t["id"], t["name"], t["role"], ", ".join(t["namespaces"]), t["status"], str(t["created_at"]))
    console.print(table)


@tokens_app.command("revoke")
def tokens_revoke(token_id: str = typer.Argument(..., help="The token's id (tokens list)."),
                  reason: str = typer.Option("revoked", help="Why (kept on the token)."),
                  json_out: bool = JsonOpt) -> None:
    """Revoke a token: it stops authenticating at once; the record stays."""
    out = answer(json_out, lambda g: g.revoke_token(token_id, by="cli", reason=reason))
    if out is not None:
        console.print(f"token {out['id']} ({out['name']}) revoked" + ("" if out["changed"] else " (already)"))

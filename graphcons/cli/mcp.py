"""`graphcons mcp`: the MCP server for agents and desktop assistants (issue 32; docs/MCP.md)."""

from __future__ import annotations

import typer

from graphcons.cli.app import app, errors_to_exit, load_cfg


@app.command()
def mcp(transport: str = typer.Option("stdio", help="stdio (a desktop assistant starts graphcons itself) or "
                                                    "http (streamable HTTP; every request needs an API token)."),
        host: str = typer.Option("127.0.0.1", help="Interface to bind (http)."),
        port: int = typer.Option(8766, help="Port (http)."),
        path: str = typer.Option("/mcp", help="Endpoint path (http).")) -> None:
    """Serve graphcons as MCP tools (remember, recall, context, explain, profile, reflect, proposals, feedback, run_job).
    Over stdio with your own rights, narrowed by $GRAPHCONS_MCP_TOKEN; over http with each request's token."""
    from graphcons.core.errors import ValidationError
    from graphcons.mcp import serve

    cfg = load_cfg()
    with errors_to_exit():
        if transport not in ("stdio", "http"):
            raise ValidationError("transport", f"must be stdio or http, not {transport!r}")
        serve(cfg, transport="stdio" if transport == "stdio" else "streamable-http", host=host, port=port, path=path)

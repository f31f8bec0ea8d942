"""`graphcons mcp`: the Model Context Protocol server, so agents and desktop assistants reach
graphcons as tools (issue 32). Built on the official `mcp` SDK (`MCPServer`); every tool calls
one verb of the Graphcons facade, like the CLI and the HTTP API.

    rights.py   who the caller is: the local user over stdio (narrowed by $GRAPHCONS_MCP_TOKEN),
                an API token's principal over streamable HTTP (the HTTP API's roles and namespaces)
    server.py   the tools (remember, recall, context, explain, profile, reflect, proposals, feedback) and
                the resources (a memory, an insight with its provenance)
"""

from graphcons.mcp.server import build_server, serve

__all__ = ["build_server", "serve"]

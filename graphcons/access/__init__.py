"""Access for remote callers: what the HTTP service (graphcons/service) and the MCP server
(graphcons/mcp) share, so that neither is built on the other. It sits on the facade
(graphcons/api.py) and below both servers.

    holder.py    the one Graphcons of a server process, opened on first use
    rights.py    a token's role and namespaces: require a role, pick the namespace of a read or
                 a write, another namespace's memory or proposal is "not found"
    errors.py    graphcons' errors as the names (and HTTP statuses) a remote caller reads, and the
                 public text of an outage
    logmask.py   no API token in a server's log (uvicorn's access log and graphcons' loggers)
    limits.py    the bounds both servers put on what a caller sends: a body's size (read no
                 further) and the lengths of the arguments both take
"""

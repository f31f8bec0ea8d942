"""The HTTP API: `graphcons serve` (FastAPI + uvicorn), versioned under /v1.

    create_app(config)   the ASGI app (tests mount it in uvicorn or a TestClient)
    serve(config, ...)   run it with uvicorn on host:port ([service] host / port)

Every route calls one verb of the Graphcons facade, like the CLI; the routes live by area:
memories.py (add, batch, get, history, edit, link, access, retrieve, search, explain),
review.py (proposals, clusters), ops.py (/healthz, health, stats, jobs, tokens),
reflection.py (reflect, profiles), beliefs.py (epistemics, except / confirm / justify, rules),
maintenance.py (feedback, conflicts, consolidate); graphcons/access/logmask.py keeps tokens out of
the log (issues 30, 50), as for the MCP server.
"""

from __future__ import annotations

import inspect
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from graphcons.core import metrics, tracing
from graphcons.core.config import Config, load_config
from graphcons.core.embedders import Embedder
from graphcons.access import logmask
from graphcons.service import beliefs, errors, maintenance, memories, observe, ops, reflection, review
from graphcons.service.bookmarks import Bookmarks
from graphcons.service.deps import Store
from graphcons.access.limits import BodyLimit
from graphcons.service.models import Problem

log = logging.getLogger("graphcons.service")
ROUTERS = (ops.router, memories.router, review.router, reflection.router, beliefs.router, maintenance.router,
           observe.router)
# FastAPI's own OpenTelemetry (0.16x) would add a second server span per request with the raw path
# and query string (memory ids, search text): observe.Observe's span is the one, route templates only.
NO_OWN_TELEMETRY: dict[str, Any] = (
    {"telemetry": {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters else {})
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": Problem} for status in (400, 401, 403, 404, 409, 413, 422, 500, 502, 503)
}


def create_app(config: Config | str | Path | None = None, *, embedder: Embedder | None = None,
               bind_host: str | None = None) -> FastAPI:
    """`bind_host`: the address the server listens on (default [service] host); /metrics is open
    without a token only on a loopback one (service/observe.py)."""
    cfg = config if isinstance(config, Config) else load_config(config)
    holder = Store(cfg, embedder)
    tracing.configure(cfg.otel)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        try:  # the first request should not load the embedder nor plan the queries (issue 52)
            holder.get().warm()
        except Exception as exc:  # Neo4j not up yet: the server still starts, the first call pays
            log.warning("warm-up skipped: %s", exc)
        yield
        holder.close()

    app = FastAPI(title="graphcons", version="1", lifespan=lifespan, **NO_OWN_TELEMETRY,
                  description="Memory consolidation in Neo4j: add, retrieve, review. Every /v1 route needs a "
                              "bearer token (`graphcons tokens create`); roles, namespaces and the trust model: docs/HTTP.md.")
    app.state.store = holder
    app.state.metrics_open = observe.loopback(bind_host or cfg.service.host)
    app.state.metrics_registry = metrics.store_registry(lambda: holder.get().census())
    for router in ROUTERS:
        app.include_router(router, responses=ERRORS)
    schema = app.openapi
    app.openapi = lambda: memories.bound_k(schema(), cfg.service.max_k)  # k's one bound, the configured one
    errors.install(app)
    logmask.install()  # no token in the log (uvicorn's access log included), whoever serves the app
    app.add_middleware(BodyLimit, max_bytes=cfg.service.max_body_bytes)
    app.add_middleware(Bookmarks)  # Graphcons-Bookmark: read your own writes on any API process
    app.add_middleware(observe.Observe)  # outermost: every request is counted and traced, refused ones too
    return app


def serve(config: Config | str | Path | None = None, *, host: str | None = None, port: int | None = None,
          log_level: str = "info") -> None:
    import uvicorn

    cfg = config if isinstance(config, Config) else load_config(config)
    uvicorn.run(create_app(cfg, bind_host=host or cfg.service.host), host=host or cfg.service.host, port=port or cfg.service.port,
                log_level=log_level)

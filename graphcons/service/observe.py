"""What an operator watches (issue 42): request metrics and spans, and `GET /metrics`.

`Observe` is a pure ASGI middleware: per request it opens a span named by the matched route
template (`GET /v1/memories/{memory_id}`, never the raw path, so no id reaches a label or a span
name) and counts the request by route, method and status with its latency. Unmatched paths count
as route "unmatched".

/metrics rule: open without a token when the server is bound to a loopback address (only local
processes reach it); bound elsewhere it needs an admin token over every namespace ("*"), as
/v1/stats does: the page counts every tenant's memories and requests, so an admin of some
namespaces gets 403 (issue 50). Or run the worker's separate `--metrics-port` scrape port behind
your own firewall.
"""

from __future__ import annotations

import ipaddress
import time

from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials

from graphcons.core import metrics, tracing
from graphcons.service.deps import bearer, everywhere, require

router = APIRouter(tags=["operations"])


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Observe:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        status = {"code": 500}  # an exception that escapes every handler is a 500 to the client

        async def send_status(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        start = time.perf_counter()
        method = scope["method"]
        with tracing.span(method, "server", **{"http.request.method": method}) as span:
            try:
                await self.app(scope, receive, send_status)
            finally:
                route = getattr(scope.get("route"), "path", None) or "unmatched"
                if span is not None:  # the route is known only now: the span is renamed to its template
                    span.update_name(f"{method} {route}")
                    span.set_attribute("http.route", route)
                    span.set_attribute("http.response.status_code", status["code"])
                metrics.HTTP_REQUESTS.labels(route, method, str(status["code"])).inc()
                metrics.HTTP_LATENCY.labels(route, method).observe(time.perf_counter() - start)


@router.get("/metrics", include_in_schema=True, response_class=Response,
            summary="Prometheus metrics (open on a loopback bind, else an admin token over *)")
def metrics_endpoint(request: Request,
                     credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Response:
    state = request.app.state
    if not state.metrics_open:
        from graphcons.service.deps import caller

        g = state.store.get()
        everywhere(require(caller(request, g, credentials), "admin"))  # store-wide figures, like /v1/stats
    body, content_type = metrics.exposition(state.metrics_registry)
    return Response(body, media_type=content_type)


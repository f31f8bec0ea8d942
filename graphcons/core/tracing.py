"""OpenTelemetry traces, optional (issue 42; the `otel` extra): `span(name)` is a real span when
opentelemetry is installed and a no-op otherwise (also when it is installed but nothing configured a
tracer provider). `configure([otel])` installs the configured exporter once per process when enabled
(the service, the worker and a `Graphcons` in process all call it): OTLP/HTTP, the console, or an
in-memory list (`exported()`).

What leaves in a span (issue 49): span names are route templates, job names, operation kinds and
cypher/ file names; attributes are bounded values (a method, a route template, a status, a job
name, a run id). Never query strings, path ids, parameters or memory text; an exception is recorded
as its type only (its message may quote the input).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager, nullcontext
from typing import Any, Iterator

from graphcons.core.config import OtelConfig

try:
    from opentelemetry import trace as _trace
except ImportError:  # the base install: no tracing
    _trace = None

_configured = False
_provider = None  # the provider graphcons' spans go to: `install`'s or `configure`'s; else the global one
_memory = None  # the in-memory exporter of [otel] exporter = "memory"


def install(provider) -> None:
    """Trace graphcons' spans into `provider` (None: back to the global provider)."""
    global _provider
    _provider = provider


def configure(cfg: OtelConfig) -> bool:
    """Install [otel]'s exporter when enabled (once per process); True when tracing is on."""
    global _configured
    if not cfg.enabled:
        return False
    if _trace is None:
        raise RuntimeError("[otel] enabled needs the otel extra: pip install 'graphcons[otel]'")
    if not _configured:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider

        provider = TracerProvider(resource=Resource.create({"service.name": cfg.service_name}))
        provider.add_span_processor(_processor(cfg))
        _trace.set_tracer_provider(provider)
        install(provider)  # ours even when another library set the global provider first
        _configured = True
    return True


def _processor(cfg: OtelConfig):
    global _memory
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor

    if cfg.exporter == "console":
        return SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stdout))  # today's stdout, not import time's
    if cfg.exporter == "memory":
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        _memory = InMemorySpanExporter()
        return SimpleSpanProcessor(_memory)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return BatchSpanProcessor(OTLPSpanExporter(endpoint=cfg.endpoint) if cfg.endpoint else OTLPSpanExporter())


def exported() -> list[Any]:
    """The finished spans [otel] exporter = "memory" kept (empty for the other exporters)."""
    return list(_memory.get_finished_spans()) if _memory is not None else []


@contextmanager
def span(name: str, kind: str = "internal", **attributes: Any) -> Iterator[Any]:
    """A span named `name` around the block (attributes: bounded values only), or nothing."""
    if _trace is None:
        with nullcontext() as nothing:
            yield nothing
        return
    tracer = (_provider or _trace.get_tracer_provider()).get_tracer("graphcons")
    with tracer.start_as_current_span(name, kind=getattr(_trace.SpanKind, kind.upper()),
                                      attributes={k: v for k, v in attributes.items() if v is not None},
                                      record_exception=False, set_status_on_exception=False) as s:
        try:
            yield s
        except Exception as exc:  # the type only: a message can quote memory text or an id
            s.set_status(_trace.Status(_trace.StatusCode.ERROR, type(exc).__name__))
            raise

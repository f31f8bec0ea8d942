"""OpenTelemetry traces, optional (issue 42; the `otel` extra): `span(name)` is a real span when
opentelemetry is installed and a no-op otherwise (also when it is installed but nothing configured a
tracer provider). `configure([otel])` installs an OTLP/HTTP exporter once per process when enabled.
Span names are route templates, job names and cypher/ file names; never parameters or memory text."""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from typing import Any, Iterator

from graphcons.core.config import OtelConfig

try:
    from opentelemetry import trace as _trace
except ImportError:  # the base install: no tracing
    _trace = None

_configured = False
_provider = None  # a tracer provider given to `install` (tests: the SDK's in-memory exporter); else the global one


def install(provider) -> None:
    """Trace graphcons' spans into `provider` (None: back to the global provider)."""
    global _provider
    _provider = provider


def configure(cfg: OtelConfig) -> bool:
    """Install the OTLP exporter when [otel] enabled (once per process); True when tracing is on."""
    global _configured
    if not cfg.enabled:
        return False
    if _trace is None:
        raise RuntimeError("[otel] enabled needs the otel extra: pip install 'graphcons[otel]'")
    if not _configured:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        provider = TracerProvider(resource=Resource.create({"service.name": cfg.service_name}))
        exporter = OTLPSpanExporter(endpoint=cfg.endpoint) if cfg.endpoint else OTLPSpanExporter()
        provider.add_span_processor(BatchSpanProcessor(exporter))
        _trace.set_tracer_provider(provider)
        _configured = True
    return True


@contextmanager
def span(name: str, kind: str = "internal", **attributes: Any) -> Iterator[Any]:
    """A span named `name` around the block (attributes: bounded values only), or nothing."""
    if _trace is None:
        with nullcontext() as nothing:
            yield nothing
        return
    tracer = (_provider or _trace.get_tracer_provider()).get_tracer("graphcons")
    with tracer.start_as_current_span(name, kind=getattr(_trace.SpanKind, kind.upper()),
                                      attributes={k: v for k, v in attributes.items() if v is not None}) as s:
        yield s

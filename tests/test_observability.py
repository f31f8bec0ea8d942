"""Issue 42: what an operator watches. `curl /metrics` after a workload, parsed with
prometheus-client's own parser (requests by route template and status with latency, Neo4j
unavailability and retried transactions, job runs by job and outcome, proposals pending by kind,
memories by namespace; no ids in any label), the /metrics access rule, the worker's --metrics-port,
and OpenTelemetry spans for a request, a job and each Neo4j query file (the SDK's in-memory exporter)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from outage_helpers import BoltProxy
from prometheus_client.parser import text_string_to_metric_families
from service_helpers import Server, free_port
from synthesis_helpers import NOW, add_incidents

from graphcons.core import tracing
from graphcons.core.config import Config, ServiceConfig
from graphcons.service import create_app

REPO = Path(__file__).resolve().parent.parent


def scrape(text: str) -> dict[str, list]:
    """{sample name: [(labels, value)]} of a /metrics page, read by prometheus-client's parser."""
    out: dict[str, list] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.setdefault(s.name, []).append((s.labels, s.value))
    return out


def value(samples, name, **labels) -> float:
    return sum(v for lab, v in samples.get(name, []) if all(lab.get(k) == w for k, w in labels.items()))


@pytest.fixture
def proxied(g, config, embedder):
    """The HTTP service talking to Neo4j through a forwarder the test can cut."""
    proxy = BoltProxy(int(config.neo4j.uri.rsplit(":", 1)[1]))
    cfg = config.model_copy(update={"neo4j": config.neo4j.model_copy(update={"uri": proxy.uri})})
    with Server(cfg, embedder) as srv:
        yield srv, proxy
    proxy.close()


def test_metrics_after_a_workload_show_every_family_with_bounded_labels(g, proxied):
    server, proxy = proxied
    writer = server.client(g.create_token("writer-1", ["team"], "writer")[0])
    before = scrape(server.client().get("/metrics").text)  # loopback bind: no token needed
    g.synthesize(add_incidents(g, namespace="team"), now=NOW)  # one pending consolidate proposal
    created = writer.post("/v1/memories", json={"content": "Ana prefers the aisle seat", "id": "seat-1"})
    assert created.status_code == 201
    assert writer.get("/v1/memories/team:seat-1").status_code == 200
    assert writer.get("/v1/memories/team:nope").status_code == 404
    assert writer.post("/v1/retrieve", json={"query": "seat"}).status_code == 200
    g.run_job("weights", now=NOW)
    proxy.down()  # Neo4j goes away: a write waits for it (unavailable_retry_s), then is answered 503
    assert writer.post("/v1/memories", json={"content": "Ana flies on Mondays"}).status_code == 503
    proxy.up()

    page = server.client().get("/metrics")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/plain")
    after = scrape(page.text)
    delta = lambda name, **lab: value(after, name, **lab) - value(before, name, **lab)  # noqa: E731
    assert delta("graphcons_http_requests_total", route="/v1/memories", method="POST", status="201") == 1
    assert delta("graphcons_http_requests_total", route="/v1/memories/{memory_id}", method="GET", status="200") == 1
    assert delta("graphcons_http_requests_total", route="/v1/memories/{memory_id}", method="GET", status="404") == 1
    assert delta("graphcons_http_requests_total", route="/v1/memories", method="POST", status="503") == 1
    assert delta("graphcons_http_request_duration_seconds_count", route="/v1/retrieve", method="POST") == 1
    assert value(after, "graphcons_http_request_duration_seconds_bucket", route="/v1/retrieve", le="+Inf") >= 1
    assert delta("graphcons_neo4j_unavailable_total") >= 1
    # no retry against a server that is not back: the write waited for the recovery probe, then 503
    assert delta("graphcons_neo4j_retries_total", cause="unavailable") == 0
    assert delta("graphcons_job_runs_total", job="weights", outcome="ok") == 1
    assert delta("graphcons_job_duration_seconds_count", job="weights", outcome="ok") == 1
    assert value(after, "graphcons_proposals_pending", kind="consolidate") == 1
    assert value(after, "graphcons_memories", namespace="team", status="active") == 5
    # bounded cardinality: route templates only, no memory id or text in any label
    labels = [v for samples in after.values() for lab, _ in samples for v in lab.values()]
    assert not [v for v in labels if "seat" in v or "inc-" in v or "nope" in v]


def test_metrics_off_loopback_need_an_admin_token(g, config, embedder):
    app = create_app(config, embedder=embedder, bind_host="0.0.0.0")
    from fastapi.testclient import TestClient

    admin, writer = g.create_token("ops", ["*"], "admin")[0], g.create_token("w", ["team"], "writer")[0]
    with TestClient(app) as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"Authorization": f"Bearer {writer}"}).status_code == 403
        ok = client.get("/metrics", headers={"Authorization": f"Bearer {admin}"})
        assert ok.status_code == 200 and "graphcons_http_requests_total" in ok.text


def test_off_loopback_a_namespace_admin_sees_no_other_tenant(g, config, embedder):
    """Issue 50 item 2: an admin of nsA got 200 with nsB's memory counts while /v1/stats refused it.
    Store-wide figures need a * token: /metrics answers that admin 403, as /v1/stats does."""
    g.add({"content": "Tenant B's private incident note.", "namespace": "nsB"})
    tenant, root = g.create_token("admin-a", ["nsA"], "admin")[0], g.create_token("ops", ["*"], "admin")[0]
    with Server(config, embedder, bind_host="10.0.0.5") as srv:
        assert srv.client(tenant).get("/v1/stats").status_code == 403
        refused = srv.client(tenant).get("/metrics")
        assert refused.status_code == 403 and "nsB" not in refused.text
        assert refused.json()["error"] == "forbidden" and "*" in refused.json()["message"]
        ok = srv.client(root).get("/metrics")
        assert ok.status_code == 200 and value(scrape(ok.text), "graphcons_memories", namespace="nsB") == 1


def test_the_worker_serves_metrics_on_its_own_port(g, neo4j_settings, tmp_path):
    port = free_port()
    cfg = tmp_path / "graphcons.toml"
    cfg.write_text("[jobs]\npoll_s = 600\n")
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password(), GRAPHCONS_CONFIG=str(cfg), PYTHONPATH=str(REPO))
    g.add({"content": "one memory so the census has a namespace", "namespace": "team"})
    proc = subprocess.Popen([sys.executable, "-m", "graphcons", "worker", "--metrics-port", str(port)], env=env,
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, samples = time.monotonic() + 600, {}
        while time.monotonic() < deadline:  # the first pass runs every due job once
            try:
                samples = scrape(httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text)
            except httpx.HTTPError:
                samples = {}
            if value(samples, "graphcons_job_runs_total", job="index") >= 1:
                break
            assert proc.poll() is None, proc.stdout.read()
            time.sleep(1)
        assert value(samples, "graphcons_job_runs_total", job="weights", outcome="ok") == 1
        assert value(samples, "graphcons_memories", namespace="team", status="active") == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=120)


@pytest.fixture
def spans():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter, provider = InMemorySpanExporter(), TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.install(provider)
    yield exporter
    tracing.install(None)


def test_spans_for_a_request_a_job_and_each_query_file(g, config, embedder, spans):
    pytest.importorskip("opentelemetry.sdk")
    token = g.create_token("writer-1", ["team"], "writer")[0]
    with Server(config, embedder) as server, server.client(token) as client:
        assert client.post("/v1/memories", json={"content": "Ana's secret plan is to fly to Porto",
                                                 "id": "plan-7"}).status_code == 201
    g.run_job("weights", now=NOW)
    done = spans.get_finished_spans()
    by_name = {s.name: s for s in done}
    request = by_name["POST /v1/memories"]
    assert request.attributes["http.route"] == "/v1/memories" and request.attributes["http.response.status_code"] == 201
    admit = by_name["memory/admit"]  # the cypher/ file's name, a child of the request's span
    assert admit.parent is not None and admit.context.trace_id == request.context.trace_id
    job = by_name["job weights"]
    assert job.attributes["job"] == "weights"
    assert [s for s in done if s.context.trace_id == job.context.trace_id and s.name.startswith("weights/")]
    # never parameters: no span carries the memory's text or id
    for s in done:
        assert "Porto" not in s.name and "plan-7" not in s.name
        assert not [v for v in s.attributes.values() if "Porto" in str(v) or "plan-7" in str(v)]


def test_the_otel_section_is_typed_and_refuses_unknown_keys(tmp_path, monkeypatch):
    from graphcons.core.config import ConfigError, load_config

    monkeypatch.delenv("GRAPHCONS_CONFIG", raising=False)
    good = tmp_path / "good.toml"
    good.write_text('[otel]\nenabled = true\nendpoint = "http://127.0.0.1:4318/v1/traces"\n')
    cfg = load_config(good)
    assert cfg.otel.enabled and cfg.otel.service_name == "graphcons"
    bad = tmp_path / "bad.toml"
    bad.write_text("[otel]\nenable = true\n")
    with pytest.raises(ConfigError, match="otel.enable"):
        load_config(bad)
    monkeypatch.setenv("GRAPHCONS__OTEL__ENABLED", "maybe")
    with pytest.raises(ConfigError, match="otel.enabled"):
        load_config(good)


def test_enabled_otel_installs_an_otlp_exporter(monkeypatch):
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    from opentelemetry import trace

    from graphcons.core.config import OtelConfig

    assert tracing.configure(OtelConfig()) is False  # off by default: nothing installed
    installed = []
    monkeypatch.setattr(trace, "set_tracer_provider", installed.append)
    monkeypatch.setattr(tracing, "_configured", False)
    monkeypatch.setattr(tracing, "_provider", None)  # configure installs its provider: put back afterwards
    assert tracing.configure(OtelConfig(enabled=True, endpoint="http://127.0.0.1:4318/v1/traces",
                                        service_name="api-1")) is True
    (provider,) = installed
    assert provider.resource.attributes["service.name"] == "api-1"
    exporters = [p.span_exporter for p in provider._active_span_processor._span_processors]
    assert [type(e).__name__ for e in exporters] == ["OTLPSpanExporter"]
    assert exporters[0]._endpoint == "http://127.0.0.1:4318/v1/traces"
    provider.shutdown()


PLANT = "Zanzibar7731"  # planted in every id, path, query string and text below; no span may carry it


def leaks(s) -> str:
    """Everything a span exports, as text: name, attributes, events, status, links, resource."""
    return repr((s.name, dict(s.attributes or {}), [(e.name, dict(e.attributes or {})) for e in s.events],
                 s.status.description, [dict(link.attributes or {}) for link in s.links],
                 dict(s.resource.attributes)))


def test_exported_spans_hold_no_query_string_path_id_or_memory_text(g, config, embedder, spans, monkeypatch):
    """Issue 49: one server span per request (route templates only; FastAPI's own telemetry, which
    would add one with url.path and url.query, stays off even with a global provider set), and the
    in-process store's Neo4j spans under the call's span."""
    from opentelemetry import trace
    from opentelemetry.trace import SpanKind

    from graphcons.integrations.langgraph import GraphconsStore

    monkeypatch.setattr(trace, "get_tracer_provider", lambda: tracing._provider)  # a global provider is set
    token = g.create_token("writer-1", ["team"], "writer")[0]
    with Server(config, embedder) as server, server.client(token) as c:
        answers = [c.post("/v1/memories", json={"content": f"the {PLANT} vault opens at nine", "id": f"id-{PLANT}"}),
                   c.get(f"/v1/memories/team:id-{PLANT}"), c.get(f"/v1/memories/team:gone-{PLANT}"),
                   c.get("/v1/search", params={"text": PLANT}), c.post("/v1/retrieve", json={"query": PLANT}),
                   c.patch(f"/v1/memories/team:id-{PLANT}", json={"content": "", "title": PLANT}),
                   c.get(f"/v1/profiles/{PLANT}", params={"namespace": "team"})]
    assert [a.status_code for a in answers] == [201, 200, 404, 200, 200, 400, 404]
    served = [s for s in spans.get_finished_spans() if s.kind == SpanKind.SERVER]
    assert sorted(s.name for s in served) == sorted([
        "POST /v1/memories", "GET /v1/memories/{memory_id}", "GET /v1/memories/{memory_id}", "GET /v1/search",
        "POST /v1/retrieve", "PATCH /v1/memories/{memory_id}", "GET /v1/profiles/{subject}"])
    spans.clear()
    store = GraphconsStore(g)
    store.put(("team", PLANT), f"key-{PLANT}", {"data": f"{PLANT} likes the aisle seat"})
    assert store.search(("team",), query=f"where does {PLANT} sit?", filter={"data": PLANT})  == []
    assert store.get(("team", PLANT), f"key-{PLANT}") is not None
    g.retrieve(PLANT, namespace="team", record=False)
    assert g.linker.wait(30)  # the put's deferred SIMILAR links, under their own root span, finished too
    done = spans.get_finished_spans()
    by_id = {s.context.span_id: s for s in done}
    queries = [s for s in done if s.attributes.get("db.system") == "neo4j"]
    assert queries and all(s.parent is not None and s.parent.span_id in by_id for s in queries)  # none a root
    roots = {s.name for s in done if s.parent is None} - {"graphcons link similar"}  # the put's deferred links
    assert roots == {"langgraph warm-up", "langgraph PutOp", "langgraph SearchOp", "langgraph GetOp",
                     "graphcons retrieve"}
    for s in [*served, *done]:
        assert PLANT not in leaks(s), leaks(s)


def test_otel_in_process_with_the_memory_and_console_exporters(g, config, embedder, monkeypatch, capsys):
    """[otel] is honoured by a Graphcons in process: exporter = "memory" keeps the spans
    (tracing.exported()), exporter = "console" prints them."""
    from opentelemetry import trace

    from graphcons.api import Graphcons
    from graphcons.core.config import OtelConfig

    monkeypatch.setattr(trace, "set_tracer_provider", lambda provider: None)  # the process' global stays
    monkeypatch.setattr(tracing, "_provider", None)
    for exporter in ("memory", "console"):
        monkeypatch.setattr(tracing, "_configured", False)
        otel = OtelConfig(enabled=True, exporter=exporter, service_name=f"lg-{exporter}")
        with Graphcons(config.model_copy(update={"otel": otel}), embedder=embedder) as local:
            local.memories("team")
        tracing.install(None)
    names = [s.name for s in tracing.exported()]
    assert "graphcons memories" in names and "memory/in_scope" in names
    (query,) = [s for s in tracing.exported() if s.name == "memory/in_scope"]
    assert query.parent is not None and query.resource.attributes["service.name"] == "lg-memory"
    printed = capsys.readouterr().out
    assert '"name": "graphcons memories"' in printed and "lg-console" in printed

"""A local OpenAI-compatible chat-completions server for the tests (127.0.0.1, random port).

It is not a mock of graphcons' code: the production path (openai SDK + instructor over real
HTTP) talks to it exactly as it would to OpenAI, Ollama, vLLM or a llama.cpp server. It
replays a script of responses, one per request, then falls back to a responder:

    {"args": {...}}              a well-formed answer: a tool call when the request offered
                                 tools (instructor TOOLS mode), else the JSON as message content
    {"raw": "text"}              the same, with this exact (possibly malformed) text
    {"status": 503}              an HTTP error with an OpenAI-style error body
    {"delay": 5.0, ...}          wait before answering (to trigger the client's timeout)
    callable(request) -> dict    computed from the request (e.g. cite the ids it was shown)

`server.requests` keeps every request body received, for assertions.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Script = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]

MEMBER_RE = re.compile(r"MEMBER id=(\S+)")


def shown_memories(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(short id, text) of each fenced memory of a reflection prompt, in order."""
    text = "\n".join(m.get("content") or "" for m in request.get("messages", []) if isinstance(m.get("content"), str))
    return re.findall(r"MEMORY id=(\S+)[^\n]*\n(.*?)\n@@MEMORY-\S+ END", text, flags=re.S)


def shown_member_ids(request: dict[str, Any]) -> list[str]:
    text = "\n".join(m.get("content") or "" for m in request.get("messages", []) if isinstance(m.get("content"), str))
    return list(dict.fromkeys(MEMBER_RE.findall(text)))


def step(request: dict[str, Any]) -> str:
    """'themes' or 'insight', read from the tool offered or the prompt."""
    for tool in request.get("tools") or []:
        name = tool.get("function", {}).get("name", "")
        if name:
            return "themes" if name.lower().startswith("theme") else "insight"
    text = json.dumps(request.get("messages", []))
    return "themes" if "Step 1 of 2" in text else "insight"


def grounded_answer(request: dict[str, Any], *, extra_ids: list[str] = (), title: str = "Recurring 503 after deploy",
                    only_invented: bool = False) -> dict[str, Any]:
    """What a well-behaved model answers: cites the ids it was shown (plus `extra_ids`); asked to check
    a reflection statement (issue 40/48), it quotes each memory it was shown whole, as the local model did."""
    if any(t.get("function", {}).get("name", "").lower().startswith("support") for t in request.get("tools") or []):
        return {"args": {"supporting": [{"memory_id": i, "quote": t} for i, t in shown_memories(request)]}}
    ids = [] if only_invented else shown_member_ids(request)
    ids = ids + list(extra_ids)
    if step(request) == "themes":
        return {"args": {"themes": [{"title": "deploys and 503s", "question": "Why do deploys cause 503s?",
                                     "member_ids": ids}]}}
    return {"args": {
        "title": title,
        "concept": "Deploys are followed by 503 errors until caches warm up.",
        "claims": [{"statement": "Checkout returns 503 after a deploy (confirmed 9 times)", "member_ids": ids}],
        "facts": [{"statement": "Checkout returned 503 after deploy 4.1.", "member_ids": ids[:1]}],
        "tensions": [{"description": "One incident blamed the database instead", "member_ids": ids[:1]}],
        "gaps": ["No root cause is recorded."],
        "implications": ["Warm the cache before switching traffic."],
        "confidence": 0.6,
    }}


def request_text(request: dict[str, Any]) -> str:
    """Every message of a request, as one text."""
    return "\n".join(m.get("content") or "" for m in request.get("messages", []) if isinstance(m.get("content"), str))


def verdicts_by_pair(pairs: dict[str, tuple[str, str, str]], answer: Callable[[str], dict[str, Any]],
                     default: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A responder for a verifier's requests: `answer(label)` of the pair (first text, second text, label)
    whose first text the request shows, else `answer(default)`."""
    def respond(request: dict[str, Any]) -> dict[str, Any]:
        text = request_text(request)
        return answer(next((label for first, _, label in pairs.values() if first in text), default))
    return respond


def served_by(server: "FakeLLM") -> Any:
    """The [llm] section of a config that calls `server` (no retries, a short timeout)."""
    from graphcons.core.config import LLMConfig

    return LLMConfig(provider="openai", base_url=server.base_url, model="test-model", timeout_s=5.0, max_retries=0)


def _real_endpoint_marker() -> Any:
    import os

    import pytest

    return pytest.mark.skipif(not os.environ.get("GRAPHCONS_TEST_LLM_BASE_URL"), reason=(
        "set GRAPHCONS_TEST_LLM_BASE_URL (and GRAPHCONS_TEST_LLM_MODEL) to run against a real endpoint"))


needs_real_endpoint = _real_endpoint_marker()  # the opt-in tests against a real OpenAI-compatible server


def real_endpoint() -> Any:
    """The [llm] section of the opt-in real-endpoint tests: $GRAPHCONS_TEST_LLM_BASE_URL, _API_KEY, _MODEL,
    _MODE (instructor mode, TOOLS for a llama.cpp server) and _TIMEOUT."""
    import os

    from graphcons.core.config import LLMConfig

    return LLMConfig(provider="openai", base_url=os.environ["GRAPHCONS_TEST_LLM_BASE_URL"],
                     api_key=os.environ.get("GRAPHCONS_TEST_LLM_API_KEY") or None,
                     model=os.environ.get("GRAPHCONS_TEST_LLM_MODEL", "gpt-4o-mini"),
                     instructor_mode=os.environ.get("GRAPHCONS_TEST_LLM_MODE", "TOOLS"),
                     timeout_s=float(os.environ.get("GRAPHCONS_TEST_LLM_TIMEOUT", "300")), max_retries=2)


def use_verifier(g: Any, server: "FakeLLM", section: str, **settings: Any) -> None:
    """Point `g` at `server` and set `[section] verifier = "llm"` and the other `settings`."""
    g.config.llm = served_by(server)
    for key, value in {"verifier": "llm", **settings}.items():
        setattr(getattr(g.config, section), key, value)


class FakeLLM:
    def __init__(self, script: list[Script] | None = None, fallback: Script | None = None):
        self.script: list[Script] = list(script or [])
        self.fallback: Script = fallback or grounded_answer
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer.lock:
                    outer.requests.append(body)
                    item = outer.script.pop(0) if outer.script else outer.fallback
                if callable(item):
                    item = item(body)
                if item.get("delay"):
                    time.sleep(float(item["delay"]))
                status, payload = outer.render(item, body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FakeLLM":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def push(self, *items: Script) -> None:
        with self.lock:
            self.script.extend(items)

    @staticmethod
    def render(item: dict[str, Any], request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if item.get("status"):
            code = int(item["status"])
            return code, {"error": {"message": item.get("message", f"scripted HTTP {code}"), "type": "server_error",
                                    "code": code}}
        text = item["raw"] if "raw" in item else json.dumps(item.get("args", {}))
        tools = request.get("tools") or []
        if tools:
            name = tools[0]["function"]["name"]
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": text}
            finish = "stop"
        return 200, {"id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                     "model": request.get("model", "test-model"),
                     "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}

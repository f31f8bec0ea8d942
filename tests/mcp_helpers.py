"""`python -m graphcons mcp` over stdio as a raw JSON-RPC peer (lines the SDK's client would not send)."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class StdioPeer:
    """The server as a subprocess of this checkout's package (PYTHONPATH: whatever the shared
    environment's editable install points at); `send` writes one line, `answer` reads one."""

    def __init__(self, neo4j_settings, cwd):
        env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
                   NEO4J_PASSWORD=neo4j_settings.resolved_password(), PYTHONPATH=str(ROOT))
        env.pop("GRAPHCONS_CONFIG", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "graphcons", "mcp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout], daemon=True).start()

    def send(self, text: str) -> None:
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 120) -> bytes:
        return self.lines.get(timeout=timeout)

    def __enter__(self) -> "StdioPeer":
        return self

    def __exit__(self, *exc) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)

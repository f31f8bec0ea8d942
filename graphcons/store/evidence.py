"""What counts as evidence: the independent sources behind a memory (issue 50).

A memory derived from others (an insight, a reflection's statement) is not a new witness: it
brings only the sources of the memories it derives from. Synthesis counts confirmations and
confidence from these, and confirming an insight checks independence against them.
"""

from __future__ import annotations

from typing import Any


def sources(runner: Any, ids: list[str]) -> dict[str, list[str]]:
    """{memory id: its evidence sources}; an id with no memory is left out."""
    if not ids:
        return {}
    return {r["id"]: list(r["sources"]) for r in runner.run("memory/evidence_sources", ids=sorted(set(ids)))}

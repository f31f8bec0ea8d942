"""Bulk admission from JSON Lines: one memory object per line, batched embeddings.

A bad line is reported with its line number and skipped; the others are admitted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.errors import GraphconsError
from graphcons.core.memory import embedded_text, parse_input
from graphcons.store.admission import admit


@dataclass
class ImportReport:
    admitted: int = 0
    duplicates: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)


def import_jsonl(db: Database, cfg: Config, embedder: Embedder, path: str | Path, *,
                 progress: Callable[[int], None] | None = None) -> ImportReport:
    """Admit every line of `path` through the normal admission path (same checks)."""
    report = ImportReport()
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    batch: list[tuple[int, dict]] = []

    def flush() -> None:
        parsed = []
        for lineno, obj in batch:
            try:
                mem = parse_input(obj, max_title=cfg.admission.max_title_chars, max_content=cfg.admission.max_content_chars)
                parsed.append((lineno, obj, mem))
            except GraphconsError as exc:
                report.errors.append((lineno, str(exc)))
        vectors = embedder.embed([embedded_text(m.title, m.content) for _, _, m in parsed]) if parsed else []
        for (lineno, obj, _), vec in zip(parsed, vectors):
            try:
                result = admit(db, cfg, embedder, obj, embedding=vec)
                if result.created:
                    report.admitted += 1
                else:
                    report.duplicates += 1
            except GraphconsError as exc:
                report.errors.append((lineno, str(exc)))
        if progress:
            progress(len(batch))
        batch.clear()

    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            if progress:
                progress(1)
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            report.errors.append((lineno, f"not valid JSON: {exc.msg} at column {exc.colno}"))
            if progress:
                progress(1)
            continue
        batch.append((lineno, obj))
        if len(batch) >= cfg.admission.import_batch_size:
            flush()
    if batch:
        flush()
    return report


def count_lines(path: str | Path) -> int:
    return len(Path(path).read_text(encoding="utf-8").splitlines())

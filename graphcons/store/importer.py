"""Bulk admission from JSON Lines: one memory object per line, admitted in batches of
`admission.import_batch_size` by `admit_many` (one embedding call and one transaction per
batch, the same graph as admitting line by line).

A bad line is reported with its line number and skipped; the others are admitted (the
batch is retried without it: `admit_many` writes nothing of a batch with a bad item).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.store.admission import BatchItemError, admit_many


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
        items = list(batch)
        while items:
            try:
                results = admit_many(db, cfg, embedder, [obj for _, obj in items])
            except BatchItemError as exc:
                lineno = items.pop(exc.index)[0]
                report.errors.append((lineno, f"{exc.field.split('.', 1)[1]}: {exc.problem}"))
                continue
            report.admitted += sum(r.created for r in results)
            report.duplicates += sum(not r.created for r in results)
            break
        report.errors.sort()
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

"""Bulk admission from JSON Lines: one memory object per line, admitted in batches of
`admission.import_batch_size` by `admit_many` (one embedding call and one transaction per
batch, the same graph as admitting line by line).

A bad line is reported with its line number and skipped; the others are admitted (the
batch is retried without it: `admit_many` writes nothing of a batch with a bad item). The
file is read as bytes and each line decoded on its own, so any bytes are a reported line, never
a failed import (issue 30): invalid UTF-8, JSON nested deeper than the parser goes, a number
too long to convert, NUL bytes or lone surrogates in a text (the input policy, core/inputs.py).

The next batch is embedded on a second thread while the current one is written (issue 15:
the embedder and the server's neighbour scan each take about a core). It embeds every
valid line, exact duplicates too: which lines are duplicates is only known once the batch
before is written.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.errors import ValidationError
from graphcons.core.inputs import raw_control, text_problem, texts, utf8_problem
from graphcons.core.memory import embedded_text, parse_input
from graphcons.core.time import utcnow
from graphcons.store.admission import BatchItemError, admit_many


@dataclass
class ImportReport:
    admitted: int = 0
    duplicates: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)


def import_jsonl(db: Database, cfg: Config, embedder: Embedder, path: str | Path, *,
                 progress: Callable[[int], None] | None = None, now: datetime | None = None) -> ImportReport:
    """Admit every line of `path` through the normal admission path (same checks). `now` is the
    admission time of every line (the clock when none is given); ids never depend on it."""
    report = ImportReport()
    now = now or utcnow()
    batches = _batches(Path(path).read_bytes().splitlines(), cfg.admission.import_batch_size, report)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphcons-embed") as pool:
        current = next(batches, None)
        pending = pool.submit(_embed, cfg, embedder, current[0]) if current else None
        while current is not None:
            batch, skipped = current
            vecs = pending.result()
            current = next(batches, None)
            if current is not None:  # embedded while this one is written
                pending = pool.submit(_embed, cfg, embedder, current[0])
            _admit(db, cfg, embedder, list(zip(batch, vecs)), report, now)
            if progress:
                progress(len(batch) + skipped)
    report.errors.sort()
    return report


def _batches(lines: list[bytes], size: int, report: ImportReport) -> Iterator[tuple[list[tuple[int, Any]], int]]:
    """Batches of (line number, parsed line), parsed as they are needed, each with the number of
    blank and unparsable lines (reported) met since the batch before."""
    batch: list[tuple[int, Any]] = []
    skipped = 0
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            skipped += 1
            continue
        try:
            batch.append((lineno, parse_line(raw)))
        except ValueError as exc:
            report.errors.append((lineno, str(exc)))
            skipped += 1
            continue
        if len(batch) >= size:
            yield batch, skipped
            batch, skipped = [], 0
    if batch or skipped:
        yield batch, skipped


def parse_line(raw: bytes) -> Any:
    """One line's JSON value, or ValueError saying why the line is not one."""
    bad = utf8_problem(raw)
    if bad:
        raise ValueError(bad)
    text = raw.decode("utf-8", "surrogatepass")  # an encoded lone surrogate: the text rule names its field, as HTTP does
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        found = raw_control(text)  # a raw NUL or control character: its field, in HTTP's words
        if found is not None:
            raise ValueError(f"{found[0]}: {found[1]}") from None
        raise ValueError(f"not valid JSON: {exc.msg.removesuffix(' at')} at column {exc.colno}") from None
    except RecursionError:
        raise ValueError("not usable JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ValueError(f"not usable JSON: {exc}") from None
    for path, item in texts(value):  # a NUL or lone surrogate anywhere: named as HTTP names it (models.Body)
        if text_problem(item):
            raise ValueError(f"{path or 'line'}: {text_problem(item)}")
    return value


def _embed(cfg: Config, embedder: Embedder, batch: list[tuple[int, Any]]) -> list[list[float] | None]:
    """The embedding of each line that parses (None for the others: admit_many rejects them first)."""
    texts: dict[int, str] = {}
    for n, (_, obj) in enumerate(batch):
        try:
            mem = parse_input(obj, max_title=cfg.admission.max_title_chars, max_content=cfg.admission.max_content_chars)
        except ValidationError:
            continue
        texts[n] = embedded_text(mem.title, mem.content)
    vecs = dict(zip(texts, embedder.embed(list(texts.values())) if texts else []))
    return [vecs.get(n) for n in range(len(batch))]


def _admit(db: Database, cfg: Config, embedder: Embedder, items: list[tuple[tuple[int, Any], list[float] | None]],
           report: ImportReport, now: datetime) -> None:
    """One batch; a bad line is reported and the batch retried without it."""
    while items:
        try:
            results = admit_many(db, cfg, embedder, [obj for (_, obj), _ in items], embeddings=[v for _, v in items],
                                 now=now)
        except BatchItemError as exc:
            lineno = items.pop(exc.index)[0][0]
            report.errors.append((lineno, f"{exc.field.split('.', 1)[1]}: {exc.problem}"))
            continue
        report.admitted += sum(r.created for r in results)
        report.duplicates += sum(not r.created for r in results)
        return


def count_lines(path: str | Path) -> int:
    return len(Path(path).read_bytes().splitlines())

"""Issue 48's targets, against a reading: the guard re-judges the local model's stored reflections
(bench/llm/results/llm-reflection.json, no model call) and its classes are compared with the hand labels
of tests/data/llm_kept_labels.json (its `how` says how they were made)."""

import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the bench package, as tests/test_plots.py reads it
from bench.llm.models import score_reflection  # noqa: E402
from bench.llm.reading import label_agreement, reader_classes  # noqa: E402

STORED = ROOT / "bench" / "llm" / "results" / "llm-reflection.json"
LABELS = ROOT / "tests" / "data" / "llm_kept_labels.json"


def _rejudged() -> list[dict]:
    runs = copy.deepcopy(json.loads(STORED.read_text())["reflection"]["runs"])
    for r in runs:
        if "output" in r:
            score_reflection(r)  # the stored shown memories, output and check answers; no model
    return runs


def test_the_labels_cover_every_statement_written_and_say_how_they_were_made():
    labels = json.loads(LABELS.read_text())
    assert "By reading" in labels["how"] and "2026-12-06" in labels["how"]
    written = [(r["user"].strip(), s["statement"]) for r in _rejudged() for s in r["statements"]]
    assert sorted(written) == sorted((x["user"], x["statement"]) for x in labels["labels"])
    assert {x["label"] for x in labels["labels"]} == {"generalisation", "copy", "partly", "unsupported", "chat"}


def test_what_the_guard_keeps_reads_as_supported_and_its_classes_agree_with_the_reading():
    runs = _rejudged()
    agreement = label_agreement(runs, LABELS)
    by_label = agreement["kept_by_label"]
    kept = sum(by_label.values())
    assert kept == reader_classes(runs)["kept"] > 0
    assert by_label["unsupported"] == by_label["chat"] == 0  # nothing kept a reader calls unsupported or chat
    assert by_label["partly"] <= 0.10 * kept
    assert agreement["kept"]["share"] >= 0.9

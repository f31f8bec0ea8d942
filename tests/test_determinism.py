"""Same input, same result (issue 29, principle 4): one JSONL imported into two fresh stores with
the clock a day apart gives the same memory ids, SIMILAR edges, cluster keys, gate decisions,
consolidate proposals and merge proposals; ids are a function of the input, never of the time."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import _wipe

DATA = Path(os.environ.get("GRAPHCONS_DEV_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
LOCOMO = DATA / "locomo-dev.json"
DAY_ONE = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
DAY_TWO = DAY_ONE + timedelta(days=1, hours=3, minutes=17)
LATER = timedelta(hours=2)  # the jobs run this long after each import


def _locomo_lines(tmp_path: Path) -> Path:
    """A LoCoMo-like file: one conversation's observations as memories (namespace = conversation,
    subject = speaker, source = dialogue turn), no ids and no times, in session order; plus the
    things a real feed repeats: a fact restated by the same speaker (a merge candidate) and one
    line sent twice (an exact repeat: evidence, no new memory)."""
    conv = json.loads(LOCOMO.read_text())[0]
    lines = []
    for session in sorted(conv["observation"], key=lambda s: int(s.split("_")[1])):
        for speaker, facts in conv["observation"][session].items():
            for fact, turn in facts:
                lines.append({"content": fact, "namespace": conv["sample_id"], "subject": speaker,
                              "source": str(turn), "kind": "observation"})
    first = lines[0]
    lines.append({**first, "content": first["content"].rstrip(".") + " this month.", "source": "restated"})
    lines.append(dict(lines[5]))
    path = tmp_path / "locomo.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _run(g, path: Path, now: datetime) -> dict:
    """Import at `now`, then scan, consolidate (offline synthesizer) and merge a little later;
    everything the issue compares, minus the times and run ids each run records."""
    report = g.import_jsonl(path, now=now)
    memories = g.db.run_text("MATCH (m:Memory) WHERE m.kind <> 'insight' RETURN m.id AS id, m.content_hash AS hash, "
                             "m.evidence_count AS evidence, m.tie AS tie, m.admitted_at AS at ORDER BY id")
    similar = g.db.run_text("MATCH (a:Memory)-[s:SIMILAR]->(b:Memory) RETURN a.id AS a, b.id AS b, s.score AS score "
                            "ORDER BY a, b")
    scan = g.scan(now=now + LATER)
    run = g.consolidate(now=now + LATER)
    consolidate = [{k: p.get(k) for k in ("id", "cluster_key", "membership_hash", "member_versions", "cited", "insight")}
                   for p in g.proposals(kind="consolidate", limit=10_000)]
    merged = g.merge(dry_run=False, now=now + LATER)
    merges = [{k: p.get(k) for k in ("id", "memory_ids", "status", "payload")}
              for p in g.proposals(kind="merge", limit=10_000)]
    conflicts = g.db.run_text("MATCH (a:Memory)-[c:CONFLICTS_WITH]->(b:Memory) RETURN a.id AS a, b.id AS b ORDER BY a, b")
    return {
        "report": (report.admitted, report.duplicates, report.errors),
        "admitted_at": {m.pop("at") for m in memories},
        "memories": memories,
        "similar": similar,
        "clusters": [c.key for c in scan.clusters],
        "decisions": [(d.key, d.accepted, d.rejected_by, d.membership_hash) for d in scan.decisions],
        "consolidate_statuses": sorted(o.status for o in run.outcomes),
        "consolidate": consolidate,
        "merge_report": {k: len(v) if isinstance(v, list) else v for k, v in merged.to_dict().items()
                         if k not in ("run_id", "now", "seconds", "timings")},
        "merges": merges,
        "conflicts": conflicts,
    }


@pytest.mark.skipif(not LOCOMO.exists(), reason="../shared/data/locomo-dev.json (the dev set) is not here")
def test_the_same_file_gives_the_same_store_a_day_later(g, tmp_path):
    g.config.consolidation.enabled = True
    g.config.consolidation.dry_run = False  # proposals are written, by the offline synthesizer
    g.config.consolidation.daily_cap = 10_000
    path = _locomo_lines(tmp_path)

    first = _run(g, path, DAY_ONE)
    _wipe(g)  # the second fresh store: the same empty database, a day later
    g.init()
    second = _run(g, path, DAY_TWO)

    # the clocks really were a day apart ...
    assert first.pop("admitted_at") == {DAY_ONE} and second.pop("admitted_at") == {DAY_TWO}
    # ... and the run compared something: every kind of output is there
    admitted, duplicates, errors = first["report"]
    assert admitted >= 150 and duplicates == 1 and errors == []
    assert len(first["similar"]) > 100 and len(first["clusters"]) >= 5
    assert any(accepted for _, accepted, _, _ in first["decisions"])
    assert first["consolidate"] and first["merges"]
    for key in first:
        assert first[key] == second[key], key
    # the file gives no dates: a digest's facts are undated, never dated by the admission clock
    facts = [f for p in first["consolidate"] for f in p["insight"]["facts"]]
    assert facts and all(f["when"] is None for f in facts)


def test_ids_come_from_the_input_and_a_true_repeat_gets_the_next_sequence(g):
    fact = {"content": "The nightly backup runs at 02:00 UTC.", "subject": "backup", "source": "ops-wiki"}
    a = g.add(fact, now=DAY_ONE)
    assert a.created and a.id.startswith("m-")
    # the same memory sent again a day later: the same id, more evidence, no new memory
    again = g.add({**fact, "source": "chat"}, now=DAY_TWO)
    assert (again.id, again.created, again.evidence_count) == (a.id, False, 2)
    # its text is edited away; the original text arrives again from the same source: a true repeat
    g.edit(a.id, content="The nightly backup runs at 03:00 UTC.")
    repeat = g.add(fact, now=DAY_TWO)
    assert repeat.created and repeat.id == f"{a.id}-2"
    assert g.get(repeat.id).content == fact["content"] and g.get(a.id).content.endswith("03:00 UTC.")
    # a batch sees the taken ids too: the next free sequence, not a constraint error
    g.edit(repeat.id, content="The nightly backup runs at 04:00 UTC.")
    (third,) = g.add_many([fact], now=DAY_TWO)
    assert third.created and third.id == f"{a.id}-3"
    # an explicit id is kept; a different source or subject is another memory with another id
    assert g.add({**fact, "id": "backup-time", "content": "Backups are kept for 30 days."}).id == "backup-time"
    other = g.add({**fact, "subject": "backups"}, now=DAY_ONE)
    assert other.created and other.id not in {a.id, repeat.id, third.id}

    # the same history on a fresh store, at other times, gives the same ids
    _wipe(g)
    g.init()
    assert g.add(fact, now=DAY_TWO).id == a.id
    g.edit(a.id, content="The nightly backup runs at 03:00 UTC.")
    (again,) = g.add_many([fact], now=DAY_ONE)
    assert again.id == repeat.id

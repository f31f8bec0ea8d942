"""Retrieval keys (issue 61 item 2): what a pass learns about a memory, used to find it.

A memory's embedding is the mean of everything it says: a long chat turn about a trip, a recipe and
a new job sits far from "where did I start working?" though one of its sentences answers it. The
keys pass reads each memory of several sentences once per version, splits it into its sentences
(core.text.sentences; shorter than `key_min_words` dropped; by default only those in the first person,
`[retrieval] key_sentences`: the speaker's own facts, where an assistant's long advice is found by its
whole turn, as it was; LongMemEval dev below), embeds each and stores it as a
`(:Key)-[:KEY_OF]->(:Memory)` with its provenance: `source` "sentence", the pass's `run`, when
(`created_at`) and the memory `version` it was read from. The vector list scores a memory by the
best of its own embedding and its keys' (cypher/retrieval/vector.cypher; `[retrieval] keys` turns
that off), and a hit a key found says which (`Hit.key`, shown by explain). A key is never a memory:
no other list, no context line and no cluster reads it; the context shows the memory's own words.
A memory edited since is read again and its older keys stop counting (their version differs);
nothing is deleted.

Who runs it: `Graphcons.keys()`, `Graphcons.consolidate()` when it writes (first), and the scheduled
`keys` job. Its ids are the memory's id, version and the sentence's place: the same store gives
the same keys.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.text import first_person, sentences

BATCH = 128  # memories per transaction
EVERY = 1 << 62  # the pending read's limit when the pass has none
DERIVED = ("insight", "profile")  # found as themselves: their text is already short statements


@dataclass
class KeysReport:
    read: int = 0  # memories read (keyed or not)
    keyed: int = 0  # memories that got keys
    keys: int = 0
    run_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"read": self.read, "keyed": self.keyed, "keys": self.keys, "run_id": self.run_id}


def sentence_keys(content: str, min_words: int, most: int, first_person_only: bool = True) -> list[str]:
    """The sentences a memory is also found by: none for a memory of one sentence (its embedding is
    that sentence's), else each of at least `min_words` words (and, by default, in the first person:
    the speaker's own facts), at most `most`, in the text's order."""
    said = sentences(content)
    if len(said) < 2:
        return []
    return [s for s in said if len(s.split()) >= min_words and (first_person(s) or not first_person_only)][:most]


def key_id(memory_id: str, version: int, place: int) -> str:
    return "k-" + hashlib.sha256(f"{memory_id}\x00{version}\x00{place}".encode()).hexdigest()[:20]


def of(db: Database, memory_id: str) -> list[dict[str, Any]]:
    """A memory's keys of its current version with their provenance (explain shows them)."""
    return db.run("keys/of", id=memory_id)


def key_pending(db: Database, cfg: Config, embedder: Embedder, *, now: datetime, limit: int | None = None,
                namespace: str | None = None) -> KeysReport:
    """Key every live memory (of `namespace`, or all) not read in its current version (at most `limit`);
    one audit record a batch."""
    rc = cfg.retrieval
    report = KeysReport(run_id=audit.new_run_id("keys"))
    pending = [r["id"] for r in db.run("keys/pending", live=list(LIVE_STATUSES), skip_kinds=list(DERIVED),
                                       limit=EVERY if limit is None else limit, namespace=namespace)]
    for start in range(0, len(pending), BATCH):
        rows = db.run("keys/texts", ids=pending[start:start + BATCH], live=list(LIVE_STATUSES))
        if not rows:
            continue
        said = [sentence_keys(r["content"] or "", rc.key_min_words, rc.keys_per_memory,
                              rc.key_sentences == "first_person") for r in rows]
        flat = [s for group in said for s in group]
        vectors = iter(embedder.embed(flat) if flat else [])
        memories = [{"id": r["id"], "version": r["version"],
                     "keys": [{"id": key_id(r["id"], r["version"], i), "text": s, "place": i, "embedding": next(vectors)}
                              for i, s in enumerate(group)]} for r, group in zip(rows, said)]

        def write(tx: Any, memories: list[dict[str, Any]] = memories) -> None:
            tx.run("keys/write", memories=memories, run=report.run_id, at=now)
            audit.record(tx, "keys", [m["id"] for m in memories if m["keys"]], run_id=report.run_id, at=now,
                         read=len(memories), keys=sum(len(m["keys"]) for m in memories))

        db.write(write)
        report.read += len(rows)
        report.keyed += sum(1 for m in memories if m["keys"])
        report.keys += len(flat)
    return report

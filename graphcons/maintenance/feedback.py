"""Feedback, the signal seed 003 weighs: a person rates a memory or an insight useful or wrong.

Each rating is kept as a (:Feedback)-[:ABOUT]->(memory) node (nothing is overwritten). One rater
(`by`: an HTTP caller's token, the CLI's user) counts once per memory, like evidence from one source:
its new rating replaces its earlier one (`replaced_by` on the old node), so repeating "useful" does
not pump a weight (issue 50) while changing one's mind still counts. The memory's `weight_feedback`
component becomes (useful + 1) / (rated + 2) over the raters' current ratings (0.5 before any
rating, as every memory starts), and its effective weight is recomputed at once with the one
weights formula (graphcons.core.weights) over its stored components: only the feedback one
changes (decay is the weights job's), so 'useful' never lowers a weight and 'wrong' never raises
it (issue 41). Insight quality (health) reads the ratings.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from graphcons.core import audit, weights
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.errors import NotFound, ValidationError
from graphcons.core.time import require_aware

VERDICTS = ("useful", "wrong")


def rate(db: Database, cfg: Config, memory_id: str, verdict: str, *, now: datetime, by: str = "user",
         note: str | None = None) -> dict[str, Any]:
    """Record one rating (replacing `by`'s earlier one on this memory) and update the memory's feedback
    weight; returns before/after and the verdict it replaced (None: `by`'s first rating here)."""
    require_aware(now)
    if verdict not in VERDICTS:
        raise ValidationError("verdict", f"must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    if note is not None and (not isinstance(note, str) or len(note) > 2000):
        raise ValidationError("note", "must be text of at most 2000 characters")
    def work(tx: Tx) -> tuple[dict[str, Any], float]:
        rows = tx.run("feedback/record", id=memory_id, feedback_id="fb-" + uuid.uuid4().hex[:16], verdict=verdict,
                      note=note, by=by, now=now)
        if not rows:
            raise NotFound(f"no memory with id {memory_id!r}")
        mem, before, replaced = rows[0]["memory"], rows[0]["before"], rows[0]["replaced"]
        new = weights.stored(mem, cfg.weights)
        tx.run("weights/set_effective", id=memory_id, effective_weight=new)
        audit.record(tx, "feedback", [memory_id], at=now, by=by, verdict=verdict, note=note, replaced=replaced,
                     before={"weight_feedback": before, "effective_weight": mem["effective_weight"]},
                     after={"weight_feedback": mem["weight_feedback"], "effective_weight": new})
        return mem, new, replaced

    mem, new, replaced = db.write(work)
    return {"id": memory_id, "verdict": verdict, "replaced": replaced,
            "useful": mem["feedback_useful"], "wrong": mem["feedback_wrong"],
            "weight_feedback": mem["weight_feedback"], "effective_weight_before": mem["effective_weight"],
            "effective_weight": new}


def insight_quality(db: Database) -> float | None:
    """Share of rated insights rated useful more often than wrong (None: nothing rated yet)."""
    row = db.run("feedback/insight_quality")[0]
    return row["useful"] / row["rated"] if row["rated"] else None

"""Sleep-time precompute (seed 001, Letta + UC Berkeley): inferences keyed by insight id.

Run as a background step (after `consolidate`, or `graphcons precompute`), never on the
response path: retrieval only reads what is stored. For each live insight the inference
function returns a list of {question, answer} pairs anticipating what an agent will ask;
they are stored on one (:Precomputed {insight_id}) node per insight, keyed by the insight's
version, and recomputed only when that version changed. An edit of the insight (a new
version) invalidates them at once: `stored` returns only inferences computed from the
current version of a live insight, so the response path never serves stale ones.

The default inference function is deterministic and extractive (from the typed insight:
what the pattern is, how we know it, what is open, what to do); pass your own (for example
an LLM call) as `inference_fn`.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable

from graphcons.core import audit
from graphcons.core.db import Database, Tx
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import utcnow

Inference = dict[str, str]
InferenceFn = Callable[[dict[str, Any]], list[Inference]]


def default_inferences(row: dict[str, Any]) -> list[Inference]:
    insight = json.loads(row["insight"]) if row.get("insight") else {}
    claims = insight.get("claims") or []
    out = [{"question": f"What do we know about {insight.get('title') or row['title']}?",
            "answer": insight.get("concept") or row["title"]}]
    if claims:
        main = claims[0]
        out.append({"question": f"How do you know that {main['statement']}?",
                    "answer": f"From {len(main.get('member_ids') or [])} memories "
                              f"({main.get('confirmations') or 1} distinct source(s)): "
                              f"{', '.join(main.get('member_ids') or [])}; run `graphcons explain {row['id']}`."})
    for gap in (insight.get("gaps") or [])[:2]:
        out.append({"question": "What is still open?", "answer": gap})
    for imp in (insight.get("implications") or [])[:2]:
        out.append({"question": "What should be done about it?", "answer": imp})
    for t in (insight.get("tensions") or [])[:2]:
        out.append({"question": "What could make this wrong?", "answer": t["description"]})
    return out


def precompute(db: Database, *, insight_ids: list[str] | None = None, inference_fn: InferenceFn | None = None,
               now: datetime | None = None, force: bool = False) -> dict[str, list[Inference]]:
    """Compute and store inferences for live insights; returns {insight id: inferences} computed now."""
    fn = inference_fn or default_inferences
    now = now or utcnow()
    rows = db.run("precompute/insights", ids=insight_ids, live=LIVE_STATUSES)
    computed: dict[str, list[Inference]] = {}
    for row in rows:
        if not force and row["done_version"] == row["version"]:
            continue
        computed[row["id"]] = list(fn(row))
    if computed:
        run_id = audit.new_run_id("precompute")
        items = [{"insight_id": k, "version": next(r["version"] for r in rows if r["id"] == k),
                  "inferences": json.dumps(v, sort_keys=True)} for k, v in sorted(computed.items())]
        def store(tx: Tx) -> None:
            tx.run("precompute/store", items=items, now=now, run_id=run_id)
            audit.record(tx, "precompute", sorted(computed), run_id=run_id, at=now, insights=len(computed))

        db.write(store)
    return computed


def stored(db: Database, insight_ids: list[str]) -> dict[str, list[Inference]]:
    """What precompute stored, keyed by insight id (what the response path reads): only
    inferences computed from the insight's current version, and only for live insights."""
    return {r["insight_id"]: json.loads(r["inferences"])
            for r in db.run("precompute/get", ids=sorted(insight_ids), live=LIVE_STATUSES)}

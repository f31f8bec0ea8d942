"""LongMemEval's dev data as the benches store it (bench/retrieval/longmemeval.py, updates.py, when.py): the
oracle file (each question's evidence sessions) and the 50-session haystacks, every turn one memory
(`created_at` the session's date, one namespace per question); a question's `date` is when it was asked
(`question_date`: what its "last month" is counted from, passed as retrieve's and context's `now`). Its own module so the benches that read
it do not import one another."""

from __future__ import annotations

import gzip
import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

from graphcons.core.config import AdmissionConfig
from graphcons.core.inputs import is_blank

ROOT = Path(__file__).resolve().parents[2]
MAX_CONTENT = AdmissionConfig().max_content_chars
DATA = ROOT.parent / "shared" / "data" / "longmemeval-dev.json"
DATA_S = ROOT.parent / "shared" / "data" / "longmemeval-s-dev.json.gz"


def when(text: str) -> datetime:
    """LongMemEval's "2023/05/25 (Thu) 20:21" as an aware datetime (UTC: the data has no zone)."""
    return datetime.strptime(text.split(" (")[0] + " " + text.split(") ")[1], "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc)


def chosen(data: list[dict], per_type: int) -> list[dict]:
    """The first `per_type` questions of each type by the sha256 of their id: a fixed set."""
    ranked = sorted(data, key=lambda q: hashlib.sha256(q["question_id"].encode()).hexdigest())
    kept: list[str] = []
    for q in ranked:
        if sum(1 for x in ranked if x["question_id"] in kept and x["question_type"] == q["question_type"]) < per_type:
            kept.append(q["question_id"])
    return [q for q in data if q["question_id"] in set(kept)]


def storable(content: str) -> str:
    """A turn as a recording agent stores it: one longer than the store takes (`[admission]
    max_content_chars`: 5 pasted documents in all 248 dev haystacks, none in an answer session) is cut
    at the last space before the limit. Empty turns are not stored (the haystacks hold some)."""
    if len(content) <= MAX_CONTENT:
        return content
    cut = content[:MAX_CONTENT]
    return cut[:cut.rfind(" ")] if " " in cut else cut


def load(types: set[str] | None, limit: int | None, haystack: str = "oracle",
         per_type: int = 8) -> tuple[list[dict], list[dict]]:
    memories, questions = [], []
    data = json.loads(DATA.read_text()) if haystack == "oracle" else chosen(json.load(gzip.open(DATA_S)), per_type)
    for q in data:
        if types and q["question_type"] not in types:
            continue
        if limit and sum(1 for x in questions if x["type"] == q["question_type"]) >= limit:
            continue
        ns = f"lme-{q['question_id']}"
        dates = {}
        for sid, date, turns in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"]):
            dates[sid] = when(date)
            for j, t in enumerate(turns):
                if is_blank(t["content"]):  # a chat log's empty turn (the haystacks hold some): nothing to store
                    continue
                memories.append({"id": f"{q['question_id']}.{sid}.{j}", "content": storable(t["content"]), "namespace": ns,
                                 "subject": t["role"], "source": f"{sid}:{j}", "kind": "observation",
                                 "session": sid, "created_at": dates[sid].isoformat()})
        latest = max(dates[s] for s in q["answer_session_ids"]) if q["answer_session_ids"] else None
        questions.append({"id": q["question_id"], "type": q["question_type"], "namespace": ns,
                          "question": q["question"], "answer": str(q["answer"]), "date": when(q["question_date"]),
                          "answer_sessions": sorted(q["answer_session_ids"]),
                          "latest_sessions": sorted(s for s in q["answer_session_ids"] if dates[s] == latest)})
    return memories, questions

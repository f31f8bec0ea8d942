"""Near-duplicate merge (seed 003, deferred operation 1): the merge rule lives here.

Candidates: for each live memory, the vector index's nearest neighbours, kept only within
the same subject AND namespace (never across them) and live; the best `[merge] top_k`.
Never all pairs.

Score of a pair (a, b):

    score = title_weight * jaro_winkler(title_a, title_b) + content_weight * cosine(a, b)

(0.4 and 0.6 by default; jellyfish's Jaro-Winkler on case-folded titles; the cosine of the
stored embeddings, exact from the vector index.) Derived-title rule: a memory admitted
without a title is compared by its derived title, the first sentence of its current
content (graphcons.memory.derived_title); the pair's `rule` then says "derived-title".

A pair scoring >= `[merge] threshold` is:
- flagged, not merged, when the contradiction guard finds the texts disagree (one negates
  what the other states; each mentions a number, a date or a name the other lacks):
  a `(a)-[:CONFLICTS_WITH {status: 'open', reasons}]->(b)` link for review;
- otherwise a merge proposal `(:Proposal {kind: 'merge', status: 'pending'})`, or applied
  at once when `[merge] auto_apply = true`.

Applying: the higher effective weight wins (then more evidence, then the smaller id);
`(winner)-[:SUPERSEDES {proposal}]->(loser)`; the loser becomes deprecated, still
addressable; distinct sources and access statistics add up on the winner; retrieval
follows SUPERSEDES to the winner. Reverting keeps the edge, marked `reverted: true`.
A pair with a proposal of any status or a conflict link is never proposed again, so a
second run changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterator

import jellyfish

from graphcons.core import audit
from graphcons.core.config import Config, MergeConfig
from graphcons.core.db import Database
from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.core.memory import LIVE_STATUSES, derived_title
from graphcons.maintenance.weights import require_aware

PROPOSAL_STATUSES = ("pending", "applied", "rejected", "reverted")


# -- the score ------------------------------------------------------------------------------
def compare_title(mem: dict[str, Any]) -> tuple[str, bool]:
    """(title used for comparison, derived?): untitled memories use their first sentence."""
    if mem.get("title_derived") or not (mem.get("title") or "").strip():
        return derived_title(mem.get("content") or ""), True
    return mem["title"], False


def title_similarity(a: str, b: str) -> float:
    return float(jellyfish.jaro_winkler_similarity(a.casefold().strip(), b.casefold().strip()))


def pair_score(title_sim: float, cosine: float, cfg: MergeConfig) -> float:
    return cfg.title_weight * title_sim + cfg.content_weight * cosine


# -- the contradiction guard -------------------------------------------------------------------
_NEGATIONS = {"not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "cannot", "without",
              "não", "nunca", "nem", "nenhum", "nenhuma"}
_NUMBER_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                 "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12"}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"sept": "september"}
_WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
_RELATIVE_DAYS = {"yesterday", "today", "tomorrow"}
_NOT_NAMES = {"i", "the", "a", "an", "it", "he", "she", "they", "we", "you", "this", "that", "these", "those",
              "in", "on", "at", "but", "and", "or", "if", "mr", "mrs", "ms", "dr", "his", "her", "its", "their",
              "our", "my", "as", "for", "of", "to", "by", "with", "after", "before", "when", "while"}
_WORD_RE = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’-]*|\d+(?:[.,:]\d+)*")
_NUM_RE = re.compile(r"\d+(?:[.,]\d+)*")


def _numbers(text: str, words: list[str]) -> set[str]:
    out = set()
    for raw in _NUM_RE.findall(text):
        norm = re.sub(r",(?=\d{3}\b)", "", raw).replace(",", ".")
        try:
            out.add(repr(float(norm)) if norm.count(".") <= 1 else norm)
        except ValueError:
            out.add(norm)
    out.update(repr(float(_NUMBER_WORDS[w])) for w in words if w in _NUMBER_WORDS)
    return out


def _dates(words: list[str]) -> set[str]:
    out = set()
    for w in words:
        w = w.rstrip(".")
        if w in _MONTHS or w in _WEEKDAYS or w in _RELATIVE_DAYS:
            out.add(w)
        elif w in _MONTH_ABBR and w != "may":
            out.add(_MONTH_ABBR[w])
    return out


def _names(text: str) -> set[str]:
    names = set()
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n+", text):
        tokens = _WORD_RE.findall(sentence)
        for i, tok in enumerate(tokens):
            low = tok.casefold().strip("'’-")
            if i == 0 or not tok[0].isupper() or low in _NOT_NAMES:
                continue
            if low in _MONTHS or low in _WEEKDAYS or low in _MONTH_ABBR:
                continue
            names.add(low)
    return names


def _words(text: str) -> list[str]:
    text = re.sub(r"n['’]t\b", " not", text, flags=re.IGNORECASE)
    return [w.casefold() for w in _WORD_RE.findall(text)]


def contradictions(text_a: str, text_b: str) -> list[str]:
    """Why two near-identical texts may still disagree; empty when nothing is found.

    - negation: one text has a negation cue (not, n't, no, never, without, ...) the other lacks;
    - numbers / dates / names: EACH text mentions one the other does not (one text merely adding
      a detail the other leaves out is not a contradiction).
    """
    wa, wb = _words(text_a), _words(text_b)
    reasons = []
    if bool(_NEGATIONS & set(wa)) != bool(_NEGATIONS & set(wb)):
        reasons.append("negation")
    for label, sa, sb in (("numbers", _numbers(text_a, wa), _numbers(text_b, wb)),
                          ("dates", _dates(wa), _dates(wb))):
        if sa - sb and sb - sa:
            reasons.append(label)
    na, nb = _names(text_a), _names(text_b)
    # a name absent from the other text altogether (capitalised or not)
    only_a, only_b = na - set(wb), nb - set(wa)
    if only_a and only_b:
        reasons.append("names")
    return reasons


def _guard_text(mem: dict[str, Any]) -> str:
    title, derived = compare_title(mem)
    return mem.get("content") or "" if derived else f"{title}. {mem.get('content') or ''}"


# -- candidates -------------------------------------------------------------------------------
@dataclass
class Pair:
    a: str  # a < b
    b: str
    score: float
    title_sim: float
    cosine: float
    rule: str
    winner: str
    loser: str
    contradictions: list[str] = field(default_factory=list)
    namespace: str = ""
    subject: str = ""

    @property
    def proposal_id(self) -> str:
        return proposal_id(self.a, self.b)


def proposal_id(a: str, b: str) -> str:
    lo, hi = sorted((a, b))
    return "merge-" + hashlib.sha256(f"{lo}\n{hi}".encode()).hexdigest()[:16]


def _rank(mem: dict[str, Any]) -> tuple:
    """Winner order: higher effective weight, then more evidence, then the smaller id."""
    return (-(mem.get("effective_weight") or 0.0), -(mem.get("evidence_count") or 1), mem["id"])


def score_pair(ma: dict[str, Any], mb: dict[str, Any], cosine: float, cfg: MergeConfig) -> Pair:
    if ma["id"] > mb["id"]:
        ma, mb = mb, ma
    ta, da = compare_title(ma)
    tb, db_ = compare_title(mb)
    tsim = title_similarity(ta, tb)
    winner, loser = sorted((ma, mb), key=_rank)
    reasons = contradictions(_guard_text(ma), _guard_text(mb)) if cfg.contradiction_guard else []
    return Pair(a=ma["id"], b=mb["id"], score=round(pair_score(tsim, cosine, cfg), 12), title_sim=round(tsim, 12),
                cosine=round(cosine, 12), rule="derived-title" if (da or db_) else "title",
                winner=winner["id"], loser=loser["id"], contradictions=reasons,
                namespace=ma.get("namespace", ""), subject=ma.get("subject", ""))


def candidate_pairs(db: Database, cfg: Config, *, progress: Callable[[int], None] | None = None) -> Iterator[Pair]:
    """Every scored candidate pair (any score), each once, in page order."""
    mcfg = cfg.merge
    seen: set[tuple[str, str]] = set()
    after: str | None = None
    cache: dict[str, dict[str, Any]] = {}
    while True:
        rows = db.run("merge/candidates", live=list(LIVE_STATUSES), after=after, limit=mcfg.batch_size,
                      width=max(mcfg.search_width, mcfg.top_k + 1), k=mcfg.top_k)
        if not rows:
            break
        after = rows[-1]["memory"]["id"]
        page = {r["memory"]["id"]: r["memory"] for r in rows}
        wanted = sorted({n["id"] for r in rows for n in r["neighbours"]} - page.keys() - cache.keys())
        if wanted:
            for r in db.run("merge/memories", ids=wanted):
                cache[r["memory"]["id"]] = r["memory"]
        for r in rows:
            ma = r["memory"]
            for n in r["neighbours"]:
                key = tuple(sorted((ma["id"], n["id"])))
                if key in seen:
                    continue
                seen.add(key)
                mb = page.get(n["id"]) or cache.get(n["id"])
                if mb is not None:
                    yield score_pair(ma, mb, float(n["cosine"]), mcfg)
        cache = {k: v for k, v in cache.items() if k > after}  # later pages may still need them
        if progress:
            progress(len(rows))


# -- the job ----------------------------------------------------------------------------------
def run(db: Database, cfg: Config, *, now: datetime, dry_run: bool = True, run_id: str | None = None,
        auto_apply: bool | None = None, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """One merge pass. Dry run: report what would be proposed, applied or flagged; write nothing."""
    from graphcons.maintenance.health import record_run

    require_aware(now)
    mcfg = cfg.merge
    auto = mcfg.auto_apply if auto_apply is None else auto_apply
    run_id = run_id or audit.new_run_id("merge")
    over = [p for p in candidate_pairs(db, cfg, progress=progress) if p.score >= mcfg.threshold]
    over.sort(key=lambda p: (-p.score, p.a, p.b))
    known = {}
    for start in range(0, len(over), 1000):
        chunk = over[start : start + 1000]
        for row in db.run("merge/known_pairs", pairs=[{"proposal_id": p.proposal_id, "a": p.a, "b": p.b}
                                                       for p in chunk]):
            known[row["proposal_id"]] = row
    proposed, applied, flagged, skipped = [], [], [], []
    retired: set[str] = set()  # losers of this run: a later pair touching one waits for the next run
    for p in over:
        k = known.get(p.proposal_id, {})
        if k.get("proposal_status") or k.get("conflict"):
            continue  # already handled in an earlier run
        if p.a in retired or p.b in retired:
            skipped.append(asdict(p))
            continue
        if p.contradictions:
            flagged.append(asdict(p))
            if not dry_run:
                with db.transaction() as tx:
                    tx.run("merge/conflict", a=p.a, b=p.b, reasons=p.contradictions, score=p.score, now=now,
                           run_id=run_id)
                    audit.record(tx, "merge_conflict", [p.a, p.b], run_id=run_id, at=now,
                                 rule="contradiction guard: " + ", ".join(p.contradictions), score=p.score,
                                 title_sim=p.title_sim, cosine=p.cosine, threshold=mcfg.threshold)
            continue
        if auto:
            applied.append(asdict(p))
            retired.add(p.loser)
            if not dry_run:
                with db.transaction() as tx:
                    _propose(tx, p, now, run_id, mcfg)
                    _apply(tx, p.proposal_id, now=now, run_id=run_id, by="auto")
        else:
            proposed.append(asdict(p))
            if not dry_run:
                with db.transaction() as tx:
                    _propose(tx, p, now, run_id, mcfg)
                    audit.record(tx, "merge_proposed", [p.winner, p.loser], run_id=run_id, at=now,
                                 proposal=p.proposal_id, rule=_rule_text(p, mcfg), score=p.score)
    report = {"job": "merge", "run_id": run_id, "dry_run": dry_run, "now": now.isoformat(),
              "auto_apply": auto, "threshold": mcfg.threshold, "over_threshold": len(over),
              "proposed": proposed, "applied": applied, "conflicts": flagged, "deferred": skipped}
    if not dry_run:
        record_run(db, "merge", run_id, now, {k: (len(v) if isinstance(v, list) else v) for k, v in report.items()})
    return report


def _rule_text(p: Pair, cfg: MergeConfig) -> str:
    return (f"{p.rule}: {cfg.title_weight}*jaro_winkler(title) + {cfg.content_weight}*cosine(content) "
            f"= {p.score:.4f} >= {cfg.threshold}")


def _propose(tx: Any, p: Pair, now: datetime, run_id: str, cfg: MergeConfig) -> dict[str, Any]:
    payload = {**asdict(p), "threshold": cfg.threshold, "title_weight": cfg.title_weight,
               "content_weight": cfg.content_weight, "rule_text": _rule_text(p, cfg)}
    return tx.run("merge/propose", id=p.proposal_id, now=now, run_id=run_id, memory_ids=[p.winner, p.loser],
                  payload=json.dumps(payload, sort_keys=True))[0]["proposal"]


def _apply(tx: Any, pid: str, *, now: datetime, run_id: str, by: str) -> dict[str, Any]:
    rows = tx.run("merge/get_proposal", id=pid)
    if not rows or rows[0]["proposal"].get("kind") != "merge":
        raise NotFound(f"no merge proposal with id {pid!r}")
    prop = rows[0]["proposal"]
    if prop["status"] != "pending":
        raise Conflict(f"merge proposal {pid!r} is {prop['status']}, not pending")
    payload = json.loads(prop["payload"])
    out = tx.run("merge/apply", winner=payload["winner"], loser=payload["loser"], proposal_id=pid, now=now,
                 run_id=run_id, score=payload["score"], live=list(LIVE_STATUSES))
    if not out:
        raise Conflict(f"merge proposal {pid!r} is stale: {payload['winner']} or {payload['loser']} is no "
                       "longer live (or they no longer share subject and namespace); reject it")
    tx.run("merge/set_status", id=pid, expected="pending", status="applied", now=now, by=by, run_id=run_id)
    audit.record(tx, "merge", [payload["winner"], payload["loser"]], run_id=run_id, at=now, proposal=pid, by=by,
                 rule=payload.get("rule_text"), winner=payload["winner"], loser=payload["loser"],
                 before={"winner": out[0]["before"], "loser_status": out[0]["loser_status"]},
                 after={"winner": out[0]["after"], "loser_status": "deprecated"})
    return {"proposal": pid, "winner": payload["winner"], "loser": payload["loser"], "status": "applied"}


# -- review -----------------------------------------------------------------------------------
def _check_id(pid: Any) -> str:
    if not isinstance(pid, str) or not pid.strip():
        raise ValidationError("proposal_id", "must be a non-empty string")
    return pid


def approve(db: Database, pid: str, *, now: datetime, by: str = "user", run_id: str | None = None) -> dict[str, Any]:
    """Apply one pending merge proposal in one transaction; approving an applied one changes nothing."""
    _check_id(pid)
    require_aware(now)
    with db.transaction() as tx:
        prop = _get(tx, pid)
        if prop["status"] == "applied":
            payload = json.loads(prop["payload"])
            return {"proposal": pid, "winner": payload["winner"], "loser": payload["loser"], "status": "applied",
                    "changed": False}
        out = _apply(tx, pid, now=now, run_id=run_id or audit.new_run_id("merge-approve"), by=by)
    return {**out, "changed": True}


def reject(db: Database, pid: str, *, now: datetime, by: str = "user", reason: str | None = None) -> dict[str, Any]:
    _check_id(pid)
    require_aware(now)
    with db.transaction() as tx:
        prop = _get(tx, pid)
        if prop["status"] == "rejected":
            return {"proposal": pid, "status": "rejected", "changed": False}
        if prop["status"] != "pending":
            raise Conflict(f"merge proposal {pid!r} is {prop['status']}; only a pending one can be rejected")
        run_id = audit.new_run_id("merge-reject")
        tx.run("merge/set_status", id=pid, expected="pending", status="rejected", now=now, by=by, run_id=run_id)
        audit.record(tx, "merge_rejected", prop.get("memory_ids") or [], run_id=run_id, at=now, proposal=pid, by=by,
                     reason=reason, rule="rejected by reviewer", before={"status": "pending"},
                     after={"status": "rejected"})
    return {"proposal": pid, "status": "rejected", "changed": True}


def revert(db: Database, pid: str, *, now: datetime, by: str = "user", run_id: str | None = None) -> dict[str, Any]:
    """Undo an applied merge; the SUPERSEDES edge stays, marked reverted. Reverting twice is a no-op."""
    _check_id(pid)
    require_aware(now)
    run_id = run_id or audit.new_run_id("merge-revert")
    with db.transaction() as tx:
        prop = _get(tx, pid)
        if prop["status"] == "reverted":
            return {"proposal": pid, "status": "reverted", "changed": False}
        if prop["status"] != "applied":
            raise Conflict(f"merge proposal {pid!r} is {prop['status']}; only an applied merge can be reverted")
        out = tx.run("merge/revert", proposal_id=pid, now=now, run_id=run_id)
        tx.run("merge/set_status", id=pid, expected="applied", status="reverted", now=now, by=by, run_id=run_id)
        row = out[0] if out else {}
        audit.record(tx, "merge_reverted", prop.get("memory_ids") or [], run_id=run_id, at=now, proposal=pid, by=by,
                     rule="revert merge", before={"winner": row.get("before"), "loser_status": row.get("loser_was")},
                     after={"winner": row.get("after"), "loser_status": row.get("loser_now")})
    return {"proposal": pid, "status": "reverted", "changed": True,
            "winner": row.get("winner"), "loser": row.get("loser")}


def _get(tx: Any, pid: str) -> dict[str, Any]:
    rows = tx.run("merge/get_proposal", id=pid)
    if not rows or rows[0]["proposal"].get("kind") != "merge":
        raise NotFound(f"no merge proposal with id {pid!r}")
    return rows[0]["proposal"]


def proposals(db: Database, status: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    if status is not None and status not in PROPOSAL_STATUSES:
        raise ValidationError("status", f"unknown value {status!r}; allowed: {', '.join(PROPOSAL_STATUSES)}")
    if not isinstance(limit, int) or limit < 1:
        raise ValidationError("limit", "must be a positive integer")
    out = []
    for r in db.run("merge/list_proposals", status=status, limit=limit):
        p = dict(r["proposal"])
        p["payload"] = json.loads(p["payload"]) if isinstance(p.get("payload"), str) else p.get("payload")
        for key in ("created_at", "reviewed_at"):
            if hasattr(p.get(key), "to_native"):
                p[key] = p[key].to_native()
        out.append(p)
    return out

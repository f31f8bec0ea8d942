"""The merge decision for one candidate pair, in stages (each recorded on the pair):

(b) the seed's score (seed 003, deferred operation 1), kept and reported:
    score = title_weight * jaro_winkler(title_a, title_b) + content_weight * cosine(a, b)
    (0.4 and 0.6 by default; jellyfish's Jaro-Winkler on case-folded titles; the cosine of the
    stored embeddings). A pair under `[merge] threshold` stops here (`nothing`).
(c) the difference check (merge.guard): a difference in meaning makes it a `conflict`; a pair
    that cannot be a restatement without contradicting itself (a question against a statement,
    content words that mostly do not line up: difflib ratio < `[merge] min_order_ratio`) is kept
    apart, a `near_paraphrase_with_difference` at most, before any verifier runs;
(d) the verifier (merge.verify, `[merge] verifier`): `p_duplicate` >= `[merge] propose_at` makes it a
    `duplicate` (a merge proposal; applied at once only with `auto_apply` and p >= `auto_apply_at`); a
    restatement (`RESTATED_ORDER`) is recorded for the reviewer but places no pair over a point (issue 29);
    under it, a pair whose texts differ in content is a `near_paraphrase_with_difference`
    (a RELATED link, not a merge); otherwise `nothing`. A verifier with its own label (llm, an
    NLI model) decides the outcome itself; one without a verdict now leaves the pair `pending`
    (nothing written; a later run decides it). A label the verifier's own answers or the rules
    stage contradict is not acted on (`refused`, outcome `nothing`; merge/verify_llm.py).
Derived-title rule: a memory admitted without a title is compared by its derived title, the
first sentence of its current content; the pair's `rule` then says "derived-title". The
winner of a pair is the higher effective weight, then more evidence, then the more
informative text (more content words), then the smaller id.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import jellyfish

from graphcons.core.config import MergeConfig
from graphcons.maintenance.merge import verifiers, verify
from graphcons.maintenance.merge.guard import compare_title, differences, guard_text
from graphcons.maintenance.values import content_stems, words

DUPLICATE, RELATED, CONFLICT, NOTHING = "duplicate", "near_paraphrase_with_difference", "conflict", "nothing"
PENDING = "pending"  # the verifier gave no verdict in this run (its budget is spent): a later run decides
LABELS = {DUPLICATE: DUPLICATE, RELATED: RELATED, CONFLICT: CONFLICT, "different": NOTHING}


def fold(title: str) -> str:
    return title.casefold().strip()


def folded_similarity(a: str, b: str) -> float:
    """Jaro-Winkler of two titles already folded (`fold`)."""
    return float(jellyfish.jaro_winkler_similarity(a, b))


def title_similarity(a: str, b: str) -> float:
    return folded_similarity(fold(a), fold(b))


def pair_score(title_sim: float, cosine: float, cfg: MergeConfig) -> float:
    return cfg.title_weight * title_sim + cfg.content_weight * cosine


def seed_score(title_sim: float, cosine: float, cfg: MergeConfig) -> float:
    """Stage (b) as a pair records it and as the candidate floor compares it."""
    return round(pair_score(title_sim, cosine, cfg), 12)


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
    versions: tuple[int, int] = (1, 1)  # (winner, loser) versions the pair was scored at
    outcome: str = NOTHING
    p_duplicate: float | None = None  # the verifier's figure (None: the pair stopped before it)
    verifier: str = ""
    verdict_reason: str = ""  # the verifier's reason, when it gives one (llm, nli)
    pending: str = ""  # why the verifier gave no verdict in this run
    verdict: str = ""  # the verifier's own label, when it gives one (llm, nli)
    refused: str = ""  # why that label was not acted on (the outcome is then `nothing`)
    features: dict[str, float] = field(default_factory=dict)
    only_winner: list[str] = field(default_factory=list)  # content words (stemmed) one text has, the other not
    only_loser: list[str] = field(default_factory=list)  # what a merge would drop from the live view
    opposites: list[str] = field(default_factory=list)
    apart: list[str] = field(default_factory=list)  # why the texts never merge though neither contradicts
    restated: bool = False  # every content word aligns, mostly in order (shown to the reviewer; decides nothing)
    auto_apply_ok: bool = False  # p_duplicate >= auto_apply_at (and no difference in meaning)

    @property
    def proposal_id(self) -> str:
        return proposal_id(self.a, self.b)

    def as_dict(self) -> dict[str, Any]:
        """dataclasses.asdict for this flat record (its lists and dict copied), without its deep-copy cost."""
        return {k: list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v
                for k, v in vars(self).items()}


def proposal_id(a: str, b: str) -> str:
    lo, hi = sorted((a, b))
    return "merge-" + hashlib.sha256(f"{lo}\n{hi}".encode()).hexdigest()[:16]


def _winner_loser(ma: dict[str, Any], mb: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Winner order: higher effective weight, then more evidence, then the more informative text
    (more distinct content words: a longer text's extra clause stays in the live view), then the
    smaller id. The texts are read only on a tie (the pass scores every candidate pair)."""
    def rank(m: dict[str, Any]) -> tuple:
        return (-round(m.get("effective_weight") or 0.0, 9), -(m.get("evidence_count") or 1))
    ra, rb = rank(ma), rank(mb)
    if ra == rb:
        ra, rb = (-len(set(content_stems(words(guard_text(m))))) for m in (ma, mb))
    if ra != rb:
        return (ma, mb) if ra < rb else (mb, ma)
    return (ma, mb) if ma["id"] < mb["id"] else (mb, ma)


def score_pair(ma: dict[str, Any], mb: dict[str, Any], cosine: float, cfg: MergeConfig,
               verifier: verify.Verifier | None = None) -> Pair:
    """Stage (b) for every candidate; (c) and (d) only for a pair at or over `threshold`."""
    if ma["id"] > mb["id"]:
        ma, mb = mb, ma
    ta, da = compare_title(ma)
    tb, db_ = compare_title(mb)
    tsim = title_similarity(ta, tb)
    winner, loser = _winner_loser(ma, mb)
    p = Pair(a=ma["id"], b=mb["id"], score=seed_score(tsim, cosine, cfg), title_sim=round(tsim, 12),
             cosine=round(cosine, 12), rule="derived-title" if (da or db_) else "title",
             winner=winner["id"], loser=loser["id"], namespace=ma.get("namespace", ""),
             subject=ma.get("subject", ""), versions=(int(winner.get("version") or 1), int(loser.get("version") or 1)))
    if p.score >= cfg.threshold:
        decide(p, guard_text(winner), guard_text(loser), cfg, verifier)
    return p


# A restatement: no content word of either text is missing from the other and at least half of them line
# up in order (difflib ratio), with no difference in meaning found. Recorded on the pair (and its proposal)
# for the reviewer. It used to propose a pair whatever its p_duplicate; on unseen text that proposed pairs
# far under `propose_at` (issue 29: 0.54), so the operating points alone decide now.
RESTATED_ORDER = 0.5


def over(p: Pair, point: float, *, auto: bool = False) -> bool:
    """Whether the verifier's judgement places a pair at or over an operating point (`auto`: the
    auto-apply point; the same rule, kept for callers that name it)."""
    return p.p_duplicate is not None and p.p_duplicate >= point


def decide(p: Pair, text_winner: str, text_loser: str, cfg: MergeConfig,
           verifier: verify.Verifier | None = None) -> Pair:
    """Stages (c) and (d): the differences, the verifier, the outcome."""
    d = differences(text_winner, text_loser)
    p.contradictions = d.conflicts if cfg.contradiction_guard else []
    p.opposites, p.only_winner, p.only_loser = d.opposites, d.only_a, d.only_b
    p.features = {k: round(v, 6) for k, v in verify.features(p.cosine, p.title_sim, d).items()}
    if p.contradictions:
        p.outcome = CONFLICT
        return p
    p.apart = d.apart + (["word order"] if d.order_ratio < cfg.min_order_ratio else [])
    if p.apart:  # no verifier call (an llm's budget is not spent on it): a link at most
        p.outcome = RELATED if d.only_a or d.only_b else NOTHING
        return p
    verifier = verifier or verifiers.default(cfg)
    v = verifier.judge(p, text_winner, text_loser)
    p.verifier, p.verdict_reason = verifier.name, v.reason
    p.p_duplicate = None if v.p_duplicate is None else round(v.p_duplicate, 6)
    if v.pending:
        p.outcome, p.pending = PENDING, v.pending
        return p
    p.restated = verifier.name == "rules" and not d.only_a and not d.only_b and d.order_ratio >= RESTATED_ORDER
    p.verdict = v.label or ""
    if v.refused:  # the verifier's label is contradicted (issue 31): nothing is written for the pair
        p.outcome, p.refused = NOTHING, v.refused
    elif v.label is not None:
        p.outcome = LABELS[v.label]
    elif over(p, cfg.propose_at):
        p.outcome = DUPLICATE
    elif d.only_a or d.only_b:
        p.outcome = RELATED
    if p.outcome == CONFLICT:
        p.contradictions = [f"{verifier.name} verifier: {v.reason or 'conflict'}"]
    # auto-apply needs the verifier's agreement: its p_duplicate (for llm, the rules figure) over the point
    p.auto_apply_ok = p.outcome == DUPLICATE and over(p, cfg.auto_apply_at, auto=True)
    return p


def rule_text(p: Pair, cfg: MergeConfig) -> str:
    text = (f"{p.rule}: {cfg.title_weight}*jaro_winkler(title) + {cfg.content_weight}*cosine(content) "
            f"= {p.score:.4f} >= {cfg.threshold}")
    if p.apart:
        text += f"; kept apart: {', '.join(p.apart)}"
    if p.p_duplicate is not None:
        text += f"; no difference in meaning; {p.verifier} verifier p_duplicate = {p.p_duplicate:.4f}"
        text += f" >= {cfg.propose_at}" if p.p_duplicate >= cfg.propose_at else ""
        if p.restated:
            text += "; a restatement: every content word aligns, mostly in order"
        if p.verdict_reason:
            text += f"; verdict: {p.verdict_reason}"
        if p.auto_apply_ok:
            text += f" (>= auto_apply_at {cfg.auto_apply_at})"
    return text

"""The merge score of a pair of memories (seed 003, deferred operation 1).

    score = title_weight * jaro_winkler(title_a, title_b) + content_weight * cosine(a, b)

(0.4 and 0.6 by default; jellyfish's Jaro-Winkler on case-folded titles; the cosine of the
stored embeddings.) Derived-title rule: a memory admitted without a title is compared by
its derived title, the first sentence of its current content; the pair's `rule` then says
"derived-title". The winner of a pair is the higher effective weight, then more evidence,
then the smaller id.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import jellyfish

from graphcons.core.config import MergeConfig
from graphcons.maintenance.merge.guard import compare_title, contradictions, guard_text


def title_similarity(a: str, b: str) -> float:
    return float(jellyfish.jaro_winkler_similarity(a.casefold().strip(), b.casefold().strip()))


def pair_score(title_sim: float, cosine: float, cfg: MergeConfig) -> float:
    return cfg.title_weight * title_sim + cfg.content_weight * cosine


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
    reasons = contradictions(guard_text(ma), guard_text(mb)) if cfg.contradiction_guard else []
    return Pair(a=ma["id"], b=mb["id"], score=round(pair_score(tsim, cosine, cfg), 12), title_sim=round(tsim, 12),
                cosine=round(cosine, 12), rule="derived-title" if (da or db_) else "title",
                winner=winner["id"], loser=loser["id"], contradictions=reasons,
                namespace=ma.get("namespace", ""), subject=ma.get("subject", ""),
                versions=(int(winner.get("version") or 1), int(loser.get("version") or 1)))




def rule_text(p: Pair, cfg: MergeConfig) -> str:
    return (f"{p.rule}: {cfg.title_weight}*jaro_winkler(title) + {cfg.content_weight}*cosine(content) "
            f"= {p.score:.4f} >= {cfg.threshold}")

"""The value gate (seed 000): which clusters are worth an insight, and why.

Every candidate cluster gets one `GateDecision` with its reasons and figures. Rules:

- scope (seed 002): members must share namespace, resolved subject and scope. A cluster
  that mixes them is split into one part per (namespace, subject, scope); the mixed cluster
  is recorded as rejected (rule "scope") and each part is gated on its own, so a mixed
  cluster never reaches the accepted list as one.
- size: `min_size` <= size <= `max_size`. A community over `max_size` is split (split.py:
  Leiden on its own subgraph at a rising resolution), recorded as rejected (rule "size", with
  the parts) and each part is gated on its own, recursively; only a community that no
  resolution splits is rejected as too big.
- contrast (after the rules below): an accepted cluster whose members form two groups that
  differ in one slot (contrast.py: a word in every member of one side and none of the other,
  and vice versa, both after or before the same word, each side >= min_size) becomes rejected
  (rule "contrast", its figures kept) and each side is gated on its own, recursively
  (`contrast_split`, off by default: its cost at scale, see config).
- cohesion: sum over member pairs of the fused weight (capped at 1 per pair) / (size *
  slots / 2) >= `min_cohesion`, where slots = min(admission.similar_k, size - 1): the edge
  density of a cluster of up to k + 1 members, and above that the mean weighted in-cluster
  degree over the k neighbour slots a SIMILAR graph gives each memory. (Plain density, over
  size * (size - 1) / 2 pairs, falls as ~k / (size - 1) in a k-NN graph however tight the
  group: a 16-member part of one log template failed 0.35; kept in figures as `density`.)
- trigger, one of:
    "salient"         salience = co-access mass + activation mass >= `min_salience`, where
                      co-access mass = sum of CO_ACCESSED counts between members / pairs
                      (how many sessions used each pair together, on average) and
                      activation mass = sum of members' `activation` (0 when unset);
    "dense_but_cold"  cohesive, not salient, and every member individually cold
                      (access_count <= `cold_access_max`).
  No trigger (not salient, yet some members are used individually) rejects.
- novelty: rejected when one live insight already SUMMARIZES more than
  `novelty_overlap_max` of the members.

Decisions are deterministic: they read only the graph and the configuration.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from graphcons.consolidation import contrast, figures
from graphcons.consolidation import split as splitting
from graphcons.consolidation.cluster import Cluster, membership_hash
from graphcons.consolidation.fusion import Edges, weight_params
from graphcons.core.config import ConsolidationConfig, GdsConfig
from graphcons.core.db import Database, Rows
from graphcons.core.errors import NotFound
from graphcons.core.memory import embedded_text

FIGURES_BATCH = 2000
MEMBERS_BATCH = 20000
TITLES_SHOWN = 3


@dataclass
class GateDecision:
    """The gate's verdict on one cluster, with the figures it was based on."""

    cluster: Cluster
    accepted: bool
    reasons: list[str]
    figures: dict[str, Any]
    rejected_by: list[str] = field(default_factory=list)  # rule names: scope, size, contrast, cohesion, trigger, novelty
    trigger: str | None = None  # "salient" or "dense_but_cold" when one fired
    split_from: str | None = None  # key of the mixed or oversized cluster this part was split from
    titles: list[str] = field(default_factory=list)  # a few member titles, for the report
    membership_hash: str | None = None  # member ids + versions (tells synthesis to re-run)

    @property
    def key(self) -> str:
        return self.cluster.key

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.cluster.key,
            "accepted": self.accepted,
            "namespace": self.cluster.namespace,
            "subject": self.cluster.subject,
            "size": self.cluster.size,
            "trigger": self.trigger,
            "rejected_by": list(self.rejected_by),
            "reasons": list(self.reasons),
            "figures": dict(self.figures),
            "split_from": self.split_from,
            "titles": list(self.titles),
            "membership_hash": self.membership_hash,
            "member_ids": list(self.cluster.member_ids),
        }


def _batches(items: list[Any], n: int):
    for i in range(0, len(items), n):
        yield items[i:i + n]


def _members(db: Database, ids: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for chunk in _batches(ids, MEMBERS_BATCH):
        for r in db.run("gate/members", Rows.VALUES, ids=chunk):
            out[r["id"]] = r
    return out


def _scope_parts(cluster: Cluster, members: dict[str, dict[str, Any]]) -> list[Cluster]:
    first = members[cluster.member_ids[0]]
    scope = (first["namespace"], first["subject"], first["scope"])
    if all((m["namespace"], m["subject"], m["scope"]) == scope for m in map(members.__getitem__, cluster.member_ids)):
        return [Cluster(member_ids=cluster.member_ids, namespace=scope[0], subject=scope[1])]  # the usual case
    groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for mid in cluster.member_ids:
        m = members[mid]
        groups[(m["namespace"], m["subject"], m["scope"])].append(mid)
    return [Cluster(member_ids=tuple(ids), namespace=ns, subject=subj)
            for (ns, subj, _scope), ids in sorted(groups.items(), key=lambda kv: min(kv[1]))]


def _describe_mix(cluster: Cluster, members: dict[str, dict[str, Any]]) -> str:
    parts = []
    for label, key in (("namespaces", "namespace"), ("subjects", "subject"), ("scopes", "scope")):
        values = sorted({str(members[m][key]) for m in cluster.member_ids})
        if len(values) > 1:
            parts.append(f"{label} {', '.join(values)}")
    return "; ".join(parts)


def gate(db: Database, cc: ConsolidationConfig, clusters: list[Cluster],
         members: dict[str, dict[str, Any]] | None = None, edges: Edges | None = None,
         gds: GdsConfig | None = None) -> list[GateDecision]:
    """Decide on every cluster (and on each part of a mixed one); ordered like the input.

    `members` (by id, the fields of cypher/gate/members) may come with the clusters: the scan's
    detection reads them in its own query; otherwise (or for any id missing) they are read here.
    `edges`: the scan's projected edges, when the clusters and `members` (with each member's `node`)
    were detected on them (figures.py). `gds`: where oversized communities are split ([gds]; the
    database's plugin by graphcons' Cypher when None)."""
    ids = sorted({m for c in clusters for m in c.member_ids})
    members = dict(members or {})
    members.update(_members(db, [m for m in ids if m not in members]))
    missing = [m for m in ids if m not in members]
    if missing:
        raise NotFound(f"cluster member(s) not found: {', '.join(missing[:10])}")
    decisions: list[GateDecision] = []
    to_score: list[GateDecision] = []
    scope_parts = {c.key: _scope_parts(c, members) for c in clusters if c.size >= cc.min_size}
    # Every oversized part is split from one projection (issue 15); deeper levels one by one.
    oversized = {p.key: p for parts in scope_parts.values() for p in parts if p.size > cc.max_size}
    disjoint = len({m for p in oversized.values() for m in p.member_ids}) == sum(p.size for p in oversized.values())
    splits = splitting.split_many(db, cc, list(oversized.values()), gds=gds) if disjoint else {}
    for cluster in clusters:
        if cluster.size < cc.min_size:  # too small to split into anything worth gating
            d = _size_reject(cc, cluster, None)
            d.titles = _titles(cluster, members)
            decisions.append(d)
            continue
        parts = scope_parts[cluster.key]
        split_from = None
        if len(parts) > 1:
            mix = _describe_mix(cluster, members)
            decisions.append(GateDecision(
                cluster=cluster, accepted=False, rejected_by=["scope"],
                reasons=[f"scope: mixes {mix}; split into {len(parts)} parts, each gated on its own"],
                figures={"size": cluster.size, "parts": len(parts)},
                titles=_titles(cluster, members)))
            split_from = cluster.key
        for part in parts:
            _place(db, cc, part, split_from, members, decisions, to_score, level=0, splits=splits, gds=gds)
    _score(db, cc, to_score, members, edges)
    if cc.contrast_split:
        decisions = _contrast_pass(db, cc, decisions, members, edges)
    return decisions


def _contrast_pass(db: Database, cc: ConsolidationConfig, decisions: list[GateDecision],
                   members: dict[str, dict[str, Any]], edges: Edges | None = None) -> list[GateDecision]:
    """Split every accepted part that has a contrast: it becomes rejected by "contrast" (its
    figures kept), its two sides are scored and placed right after it, and an accepted side is
    checked again. Only accepted parts are read (every part's texts: ~1 s more gate time on the
    10k planted scan, against ~0.3 s)."""
    texts: dict[str, str] = {}
    candidates = [d for d in decisions if d.accepted and d.cluster.size >= 2 * cc.min_size]
    while candidates:
        wanted = sorted({m for d in candidates for m in d.cluster.member_ids} - texts.keys())
        for chunk in _batches(wanted, MEMBERS_BATCH):
            for r in db.run("gate/texts", Rows.VALUES, ids=chunk):
                texts[r["id"]] = embedded_text(r["title"], r["content"])
        sides_of: dict[int, list[GateDecision]] = {}
        for d in candidates:
            found = contrast.find({m: texts[m] for m in d.cluster.member_ids}, cc.min_size)
            if found is None:
                continue
            d.accepted = False
            d.rejected_by = ["contrast"]
            d.reasons = [f"contrast: {len(found.sides[0])} members say '{found.words[0]}' and "
                         f"{len(found.sides[1])} say '{found.words[1]}' in the same place; split into 2 parts, "
                         f"each gated on its own"]
            d.figures.update({"parts": 2, "contrast": list(found.words)})
            sides_of[id(d)] = [
                _to_score(Cluster(member_ids=side, namespace=d.cluster.namespace, subject=d.cluster.subject), d.key, members)
                for side in found.sides]
        if not sides_of:
            break
        sides = [side for group in sides_of.values() for side in group]
        _score(db, cc, sides, members, edges)
        decisions = [x for d in decisions for x in (d, *sides_of.get(id(d), ()))]
        candidates = [d for d in sides if d.accepted and d.cluster.size >= 2 * cc.min_size]
    return decisions


def _place(db: Database, cc: ConsolidationConfig, part: Cluster, split_from: str | None,
           members: dict[str, dict[str, Any]], decisions: list[GateDecision], to_score: list[GateDecision],
           level: int, splits: dict[str, splitting.Split] | None = None, gds: GdsConfig | None = None) -> None:
    """Decide on one part: split it when too big (recursively), reject it when too small, else score it."""
    if part.size > cc.max_size:
        done = (splits or {}).get(part.key) if level == 0 else None
        result = done if done is not None else splitting.split(db, cc, part, level, gds=gds)
        d = _size_reject(cc, part, split_from)
        d.titles = _titles(part, members)
        d.figures.update({"parts": len(result.parts), "split_gamma": round(result.gamma, 4)})
        if not result.parts:
            d.reasons = [f"size: {part.size} members > max_size {cc.max_size} and cannot be split further "
                         f"(Leiden on its subgraph finds no smaller part up to gamma {result.gamma:g})"]
            decisions.append(d)
            return
        left_out = part.size - sum(p.size for p in result.parts)
        d.reasons = [f"size: {part.size} members > max_size {cc.max_size}; split into {len(result.parts)} parts "
                     f"(Leiden gamma {result.gamma:g} on its subgraph"
                     + (f", {left_out} member(s) left alone" if left_out else "") + "), each gated on its own"]
        decisions.append(d)
        for sub in result.parts:
            _place(db, cc, sub, part.key, members, decisions, to_score, result.level, gds=gds)
        return
    if part.size < cc.min_size:
        d = _size_reject(cc, part, split_from)
        d.titles = _titles(part, members)
        decisions.append(d)
        return
    d = _to_score(part, split_from, members)
    decisions.append(d)
    to_score.append(d)


def _to_score(part: Cluster, split_from: str | None, members: dict[str, dict[str, Any]]) -> GateDecision:
    """An undecided part of the right size, waiting for its figures (_score)."""
    return GateDecision(cluster=part, accepted=False, reasons=[], figures={"size": part.size},
                        split_from=split_from, titles=_titles(part, members),
                        membership_hash=membership_hash({m: members[m]["version"] for m in part.member_ids}))


def _titles(cluster: Cluster, members: dict[str, dict[str, Any]]) -> list[str]:
    return [members[m]["title"] for m in cluster.member_ids[:TITLES_SHOWN] if m in members]


def _size_reject(cc: ConsolidationConfig, cluster: Cluster, split_from: str | None) -> GateDecision:
    if cluster.size < cc.min_size:
        reason = f"size: {cluster.size} members < min_size {cc.min_size}"
    else:
        reason = f"size: {cluster.size} members > max_size {cc.max_size}"
    return GateDecision(cluster=cluster, accepted=False, reasons=[reason], rejected_by=["size"],
                        figures={"size": cluster.size}, split_from=split_from)


def _score(db: Database, cc: ConsolidationConfig, decisions: list[GateDecision],
           members: dict[str, dict[str, Any]], edges: Edges | None = None) -> None:
    params = weight_params(cc)
    parts = [d.cluster.member_ids for d in decisions]
    ids = [m for p in parts for m in p]
    if len(set(ids)) == len(ids):  # no memory in two parts: one pass for all
        namespaces = sorted({d.cluster.namespace for d in decisions})
        if edges is not None and figures.projection_exact(cc):
            rows = figures.from_projection(db, edges, parts, [members[m]["node"] for m in ids], params["live"],
                                           namespaces)
        else:
            rows = figures.from_store(db, parts, params, namespaces)
        for i, d in enumerate(decisions):
            _decide(cc, d, rows[i], members)
        return
    for chunk in _batches(decisions, FIGURES_BATCH):  # overlapping clusters (a caller's list): one by one
        rows = db.run("gate/figures", clusters=[{"key": d.key, "ids": list(d.cluster.member_ids)} for d in chunk],
                      **params)
        by_key = {r["key"]: r for r in rows}
        for d in chunk:
            _decide(cc, d, by_key[d.key], members)


def _decide(cc: ConsolidationConfig, d: GateDecision, row: dict[str, Any], members: dict[str, dict[str, Any]]) -> None:
    n = d.cluster.size
    pairs = n * (n - 1) / 2
    slots = cc.cohesion_slots(n)
    cohesion = min(1.0, row["weight_sum"] / (n * slots / 2))
    coaccess_mass = row["coaccess"] / pairs
    activation_mass = sum(members[m]["activation"] for m in d.cluster.member_ids)
    salience = coaccess_mass + activation_mass
    access = [members[m]["access_count"] for m in d.cluster.member_ids]
    cold = sum(1 for a in access if a <= cc.cold_access_max)
    overlap = (row["covered"] or 0) / n
    d.figures.update({
        "size": n,
        "cohesion": round(cohesion, 4),
        "cohesion_slots": slots,
        "density": round(row["weight_sum"] / pairs, 4),
        "edges": row["edges"],
        "salience": round(salience, 4),
        "coaccess_mass": round(coaccess_mass, 4),
        "activation_mass": round(activation_mass, 4),
        "cold_members": cold,
        "max_access_count": max(access),
        "novelty_overlap": round(overlap, 4),
        "covering_insight": row["insight"],
    })
    passed: list[str] = [f"size: {n} members within {cc.min_size}-{cc.max_size}"]
    failed: list[tuple[str, str]] = []
    if cohesion >= cc.min_cohesion:
        passed.append(f"cohesion: {cohesion:.2f} >= min_cohesion {cc.min_cohesion}")
    else:
        failed.append(("cohesion", f"cohesion: {cohesion:.2f} < min_cohesion {cc.min_cohesion} (too loosely connected)"))
    if salience >= cc.min_salience:
        d.trigger = "salient"
        passed.append(f"trigger salient: salience {salience:.2f} >= min_salience {cc.min_salience} "
                      f"(co-access {coaccess_mass:.2f} + activation {activation_mass:.2f})")
    elif cold == n:
        d.trigger = "dense_but_cold"
        passed.append(f"trigger dense_but_cold: salience {salience:.2f} < {cc.min_salience} and all {n} members "
                      f"cold (access_count <= {cc.cold_access_max})")
    else:
        failed.append(("trigger", f"trigger: none (salience {salience:.2f} < min_salience {cc.min_salience}, "
                                  f"and {n - cold} of {n} members are not cold: used up to {max(access)} times)"))
    if overlap > cc.novelty_overlap_max:
        failed.append(("novelty", f"novelty: insight {row['insight']} already summarizes {row['covered']} of {n} "
                                  f"members ({overlap:.0%} > novelty_overlap_max {cc.novelty_overlap_max:.0%})"))
    else:
        passed.append(f"novelty: overlap {overlap:.0%} <= novelty_overlap_max {cc.novelty_overlap_max:.0%}")
    d.accepted = not failed
    d.rejected_by = [rule for rule, _ in failed]
    d.reasons = passed if d.accepted else [msg for _, msg in failed]

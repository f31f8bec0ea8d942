"""A cluster of memories with a canonical identity.

Members are sorted by id and the key is a hash of those ids, so the same members give
the same key on every run (and a cluster that did not change is recognised as the same).
`membership_hash` also covers each member's version: it changes when a member is edited,
which is what tells synthesis to re-run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


def cluster_key(member_ids: list[str] | tuple[str, ...]) -> str:
    return "c-" + hashlib.sha256("\n".join(sorted(member_ids)).encode()).hexdigest()[:16]


def membership_hash(versions: dict[str, int]) -> str:
    text = "\n".join(f"{mid}@{versions[mid]}" for mid in sorted(versions))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Cluster:
    member_ids: tuple[str, ...]
    namespace: str
    subject: str | None = None  # None when members mix subjects (the gate splits or rejects)
    figures: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "member_ids", tuple(sorted(self.member_ids)))

    @cached_property
    def key(self) -> str:  # computed once: a scan of 1M memories asks for ~100k keys several times each
        return cluster_key(self.member_ids)

    @property
    def size(self) -> int:
        return len(self.member_ids)

"""Connected groups: the components of a set of items under a pairwise link, deterministic (the
offline synthesizer folds restating members with it, the offline reflector groups sentences)."""

from __future__ import annotations

from typing import Callable, TypeVar

T = TypeVar("T")


def connected_groups(items: list[T], linked: Callable[[int, int], bool]) -> list[list[T]]:
    """The connected components of `items` under `linked(i, j)` (i < j), by union-find: each group in
    item order, the groups in the order of their first item (deterministic)."""
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if linked(i, j):
                a, b = root(i), root(j)
                parent[max(a, b)] = min(a, b)
    groups: dict[int, list[T]] = {}
    for i, item in enumerate(items):
        groups.setdefault(root(i), []).append(item)
    return list(groups.values())

"""The subjects a triggered scan must read (issue 33): the dirty subjects of a namespace and
every subject an edge of the fused graph joins to them, step by step until nothing is added.

Label propagation decides each connected part of the fused graph alone (nodes in id order, ties
by a per-memory weight, graphcons.consolidation.fusion), so a scan of subjects closed under the
edges finds there the clusters, gate decisions and proposals of a full pass. A namespace whose
subjects are all joined gives the whole namespace back: the scan is then the namespace's."""

from __future__ import annotations

from graphcons.core.db import Database
from graphcons.core.memory import LIVE_STATUSES

# Past this many subjects a per-subject selection stops paying off against one namespace seek:
# the closure is given up and the namespace scanned whole.
MAX_SUBJECTS = 5000


def closed_subjects(db: Database, namespace: str, dirty: list[str], *,
                    max_subjects: int = MAX_SUBJECTS) -> list[str] | None:
    """The sorted closure of `dirty` under the fused graph's edges in `namespace`, or None (scan the
    whole namespace) when it grows past `max_subjects` or reaches a memory without a subject."""
    known = sorted(set(dirty))
    frontier = known
    while frontier:
        row = db.run("clusters/subject_neighbours", namespace=namespace, frontier=frontier, known=known,
                     live=LIVE_STATUSES)[0]
        if row["unscoped"]:
            return None
        frontier = sorted(set(row["subjects"]) - set(known))
        known = sorted(set(known) | set(frontier))
        if len(known) > max_subjects:
            return None
    return known


def scan_targets(db: Database, scopes: list[dict]) -> list[tuple[str, list[str] | None]]:
    """Per namespace of the dirty (namespace, subject) `scopes`, in namespace order: the subjects a
    triggered scan reads (None: the whole namespace)."""
    by_namespace: dict[str, set[str]] = {}
    for s in scopes:
        by_namespace.setdefault(s["namespace"], set()).add(s["subject"])
    return [(ns, closed_subjects(db, ns, sorted(subjects))) for ns, subjects in sorted(by_namespace.items())]

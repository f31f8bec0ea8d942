"""Shared material for the cluster-discovery tests (issue 3)."""

from __future__ import annotations

import hashlib

# Five incidents whose MiniLM cosines are all >= 0.83 (checked in test_similarity_only):
# similarity alone clusters them at the default sim_floor 0.82.
INCIDENTS_503 = [
    "Checkout returned HTTP 503 errors right after the 4.2 deploy; rolled back.",
    "Checkout returned HTTP 503 errors right after the 4.3 deploy; rolled back.",
    "Checkout service returned 503 errors immediately after deploy 4.5; rollback fixed it.",
    "After deploying checkout 4.7 the service returned HTTP 503 errors until rollback.",
    "Checkout returned HTTP 503 errors right after the 5.0 deploy; rolled back.",
]

# Mutually unrelated sentences (MiniLM cosine well under 0.82): no SIMILAR edges among them,
# so clusters over them come from links or co-access only.
DISTINCT = [
    "Team lunch moved to Thursday.",
    "The guest wifi password changes every Monday.",
    "We use tabs in the frontend repository.",
    "The on-call rotation swaps on Wednesdays at noon.",
    "New laptops arrive with the VPN client preinstalled.",
    "Quarterly planning starts with a review of customer churn.",
    "The staging cluster runs on spot instances to save money.",
    "Alice prefers written status updates over meetings.",
    "Invoices are archived for seven years for the auditors.",
    "The mobile app crashes when the camera permission is denied.",
    "Our Kafka topics keep messages for three days.",
    "The marketing site is built with a static site generator.",
    "Bob is allergic to peanuts; order lunch accordingly.",
    "Database backups are verified by a weekly restore drill.",
    "The design system uses an eight pixel spacing grid.",
    "Support tickets in Portuguese go to the Lisbon team.",
    "Feature flags older than ninety days must be removed.",
    "The CEO presents the roadmap at the all-hands in March.",
    "Release notes are drafted by the product manager on Fridays.",
    "GPU quotas for research are granted per project.",
    "The office closes early on the last Friday of the month.",
    "Passwords for shared accounts live in the team vault.",
    "Load tests run against a copy of production data every night.",
    "The warehouse robots pause for maintenance at 2am.",
]


def add_all(g, texts, **fields):
    """Admit each text with the given fields; returns the ids in order.

    Ids are derived from the text and fields (admission would derive them from the wall
    clock): community detection breaks ties by id, so fixed ids make each test graph the
    same graph on every run.
    """
    out = []
    for t in texts:
        data = {"content": t, **fields}
        if "id" not in data:
            data["id"] = "t-" + hashlib.sha1(repr(sorted(data.items())).encode()).hexdigest()[:12]
        out.append(g.add(data).id)
    return out


def link_clique(g, ids, kind="related"):
    """Link every pair of the given memories (an explicit-links cluster)."""
    for i, x in enumerate(ids):
        for y in ids[i + 1:]:
            g.link(x, y, kind)


def keyset(clusters):
    return sorted(c.key for c in clusters)


def cluster_of(clusters, member_id):
    for c in clusters:
        if member_id in c.member_ids:
            return c
    return None

"""Applied updates for the tests of issue 51 (the current value first, as_of): until the update review
writes them, tests/reference/update_edge.cypher makes one, as that review will."""

from __future__ import annotations

from pathlib import Path

REFERENCE = Path(__file__).resolve().parent / "reference"
Q = "How many Korean restaurants have I tried in my city?"
FOOD = [  # the older value is worded closer to the question: without the update it ranks first
    ("old", "How many Korean restaurants have I tried in my city? Three Korean restaurants so far.", "2023-05-01"),
    ("new", "I have now tried four Korean restaurants in my city.", "2023-05-27"),
    ("f1", "My sister lives in Boston and works as a nurse.", "2023-05-02"),
    ("f2", "I bought new running shoes for the marathon.", "2023-05-03"),
    ("f3", "The office coffee machine was repaired on Tuesday.", "2023-05-04"),
]

# The question's own time (issue 61): asked "What did I buy last month?" on 7 June 2023
PURCHASES = [  # by their words the March and June purchases match the question best
    ("kayak", "I bought a kayak and a paddle, my best buy so far.", "2023-03-02"),
    ("shoes", "I bought running shoes, the best buy of the summer.", "2023-06-04"),
    ("bike", "I bought a red road bike from the shop downtown.", "2023-05-16"),
    ("dentist", "The dentist said my teeth are fine.", "2023-05-20"),
]
NOW = "2023-06-07"


def update(g, newer: str, older: str, since: str, *, reverted: bool = False) -> None:
    """(newer)-[:SUPERSEDES {reason: 'update', since}]->(older), the older left active."""
    g.db.run_text((REFERENCE / "update_edge.cypher").read_text(), newer=newer, older=older, since=since,
                  attribute="restaurants tried", reverted=reverted)


def add(g, rows, namespace: str = "food") -> None:
    for mid, text, day in rows:
        g.add({"id": mid, "content": text, "subject": "user", "namespace": namespace, "source": f"chat-{mid}",
               "created_at": f"{day}T12:00:00+00:00"})


def food_with_update(g) -> None:
    """FOOD in namespace food, "new" superseding "old" since 27 May 2023 12:00 UTC."""
    add(g, FOOD)
    update(g, "new", "old", "2023-05-27T12:00:00+00:00")

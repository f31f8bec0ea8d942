"""Profile cards (issue 47 item 2) on a real Neo4j: what a reviewer and an agent would check."""

from datetime import datetime, timedelta, timezone

import pytest

from graphcons.profiles import card_items as extract
from graphcons.core.errors import Conflict
from graphcons.core.text import content_terms

pytestmark = pytest.mark.skipif(not extract.available(), reason="the cards extra (spaCy + en_core_web_sm) is missing")

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
T0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)
MELANIE = [
    ("Melanie signed up for a pottery class and finds it therapeutic for self-expression.", 0),
    ("Melanie went camping with her family in the mountains last week, which was a great break.", 3),
    ("Melanie painted a lake sunrise last year which holds special meaning to her.", 9),
    ("Melanie is planning to go swimming with the kids next month.", 12),
    ("Melanie loves reading books, especially Charlotte's Web.", 15),
]


def add_melanie(g, ns="conv"):
    return [g.add({"content": text, "subject": "Melanie", "namespace": ns, "source": f"D{n}",
                   "created_at": T0 + timedelta(days=days)}).id for n, (text, days) in enumerate(MELANIE)]


def test_an_item_says_its_member_the_short_way_and_only_with_its_words():
    mems = [{"id": f"m{n}", "content": text, "date": "2023-05-08"} for n, (text, _) in enumerate(MELANIE)]
    items = extract.items(mems, "Melanie")
    by = {i.member_id: i for i in items}
    assert set(by) == {"m0", "m1", "m2", "m3", "m4"}
    for i in items:  # grounded: every content word is its member's, and shorter than it
        member = mems[int(i.member_id[1:])]["content"]
        assert content_terms(i.text) <= content_terms(member)
        assert len(i.text.split()) < len(member.split())
        assert not i.text.startswith("Melanie")  # the card is hers: her name is its header
    assert "camping" in by["m1"].text and "mountains" in by["m1"].text
    assert "last week" not in by["m1"].text and "which" not in by["m1"].text  # the date says when
    assert by["m3"].group == "plans" and by["m4"].group == "preferences"
    assert extract.items(mems, "Melanie") == items  # the same text, the same card


def test_a_long_member_gives_the_item_of_its_opening_and_what_follows_changes_nothing():
    """A chat turn of hundreds of words: the item is its start said the short way (only the opening
    sentences are parsed, PARSE_WORDS); what comes after them changes neither the item nor its group."""
    opening = "I adopted a rescue greyhound called Pixel from the shelter, which took two months of visits. " + \
        " ".join(f"Then we walked to the park number {n} and back home before the rain came." for n in range(6))
    assert len(opening.split()) > extract.PARSE_WORDS
    tails = [" ".join(f"We walked to the park number {n} and back home again." for n in range(40)),
             " ".join(f"My sister Maria in Paris {n} told me about the tomatoes she grows." for n in range(40))]
    items = [extract.items([{"id": "m", "content": f"{opening} {tail}", "date": "2023-05-08"}], "user")[0]
             for tail in tails]
    assert items[0] == items[1] and "adopted a rescue greyhound" in items[0].text
    assert "which" not in items[0].text and "Maria" not in items[0].text
    assert extract.grounded(items[0].text, f"{opening} {tails[0]}")

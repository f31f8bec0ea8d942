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


def test_a_card_is_proposed_reviewed_versioned_and_reverted(g):
    ids = add_melanie(g)
    dry = g.cards(now=NOW)
    assert [c.subject for c in dry.proposed] == ["Melanie"] and g.proposals(kind="card") == []
    report = g.cards(dry_run=False, now=NOW)
    (c,) = report.proposed
    (p,) = g.proposals(kind="card", status="pending")
    assert p["id"] == c.proposal_id == dry.proposed[0].proposal_id  # deterministic id
    assert sorted(p["memory_ids"]) == sorted(ids)
    assert g.cards(dry_run=False, now=NOW).proposed == []  # unchanged memories: nothing new

    g.edit(ids[2], content="Melanie painted a lake sunset in 2022.")  # changed since the proposal
    out = g.approve(p["id"], by="alice", now=NOW)
    assert out.status == "applied" and out.profile_version == 1
    card = g.profile("Melanie", namespace="conv")["card"]
    assert card["proposal_id"] == p["id"] and card["parser"] == extract.PARSER
    assert {i["member_id"] for i in card["items"]} == set(ids) - {ids[2]}  # never cites what changed
    dates = {i["member_id"]: i["date"] for i in card["items"]}
    assert dates[ids[0]] == "8 May 2023"  # when it was said
    assert dates[ids[1]] == "week of 1 May 2023"  # "last week", said on 11 May: its event time
    assert dates[ids[3]] == "June 2023"  # "next month", said on 20 May
    assert g.approve(p["id"], now=NOW).changed is False

    again = g.cards(dry_run=False, now=NOW).proposed  # the edit is new: a second card, then reverts
    (p2,) = [x for x in g.proposals(kind="card", status="pending")]
    assert again[0].proposal_id == p2["id"]
    g.approve(p2["id"], now=NOW)
    with pytest.raises(Conflict):  # the later card first
        g.revert(p["id"], "wrong subject", now=NOW)
    g.revert(p2["id"], "too long", now=NOW)
    assert g.profile("Melanie", namespace="conv")["card"]["proposal_id"] == p["id"]
    g.revert(p["id"], "not needed", now=NOW)
    assert g.profile("Melanie", namespace="conv")["card"] == {}
    assert [v["version"] for v in g.profile_history("Melanie", namespace="conv")] == [1, 2, 3, 4]  # history kept


def test_context_shows_the_card_items_the_lines_had_no_room_for_first(g):
    ids = add_melanie(g)
    g.config.retrieval.card_share = 0.3  # opt-in (off by default: docs/RETRIEVAL.md)
    g.cards(dry_run=False, now=NOW)
    (p,) = g.proposals(kind="card", status="pending")
    plain = g.context("What activities does Melanie partake in?", 60, namespace="conv", record=False)
    g.approve(p["id"], now=NOW)
    ctx = g.context("What activities does Melanie partake in?", 60, namespace="conv", record=False)
    assert ctx.words <= 60 and plain.words <= 60
    assert ctx.lines[0].kind == "card" and ctx.lines[0].text.startswith("Melanie, ")
    cited = [i for line in ctx.lines for i in line.ids]
    assert len(cited) == len(set(cited))  # no memory both as a line and as an item
    assert len(set(cited)) >= len(set(plain.ids))  # no fewer of what she does in the same words
    items = [line for line in ctx.lines if line.kind == "card" and line.ids]
    ref = {i: r for r, i in ctx.refs.items()}
    for line in items:  # the member said the short way, with its date and its reference
        said, _, rest = line.text[2:].partition(" [")
        assert len(said.split()) < len(g.get(line.ids[0]).content.split())
        assert rest == f"{line.date}] ({ref[line.ids[0]]})"
    other = g.context("What does Caroline like?", 40, namespace="conv", record=False)
    assert all(line.kind != "card" for line in other.lines)  # not about her: no card
    g.config.retrieval.card_share = 0.0
    assert g.context("What activities does Melanie partake in?", 60, namespace="conv", record=False).text == plain.text

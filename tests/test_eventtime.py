"""Event time (issue 47): expressions resolved against a fixed `said` day, never guessed. No server."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from graphcons.core.eventtime import annotate, resolve

THURSDAY = date(2023, 5, 25)  # said on Thursday 25 May 2023


def spans(text: str, said=THURSDAY) -> list[tuple[str, str, str, str]]:
    return [(e.expression, e.start.isoformat(), e.end.isoformat(), e.granularity) for e in resolve(text, said)]


@pytest.mark.parametrize("text, expected", [
    ("ran a charity race last Saturday", ("last Saturday", "2023-05-20", "2023-05-20", "day")),
    ("met her last Thursday", ("last Thursday", "2023-05-18", "2023-05-18", "day")),  # never the day it was said
    ("Last Fri I took my kids", ("Last Fri", "2023-05-19", "2023-05-19", "day")),
    ("see you next Tuesday", ("next Tuesday", "2023-05-30", "2023-05-30", "day")),
    ("went hiking last week", ("last week", "2023-05-15", "2023-05-21", "week")),
    ("busy this week", ("this week", "2023-05-22", "2023-05-28", "week")),
    ("a meeting next week", ("next week", "2023-05-29", "2023-06-04", "week")),
    ("camping last weekend", ("last weekend", "2023-05-20", "2023-05-21", "weekend")),
    ("camping two weekends ago", ("two weekends ago", "2023-05-13", "2023-05-14", "weekend")),
    ("going camping next month", ("next month", "2023-06-01", "2023-06-30", "month")),
    ("the previous month was hard", ("previous month", "2023-04-01", "2023-04-30", "month")),
    ("painted it last year", ("last year", "2022-01-01", "2022-12-31", "year")),
    ("started three years ago", ("three years ago", "2020-01-01", "2020-12-31", "year")),
    ("got a puppy 2 weeks ago", ("2 weeks ago", "2023-05-08", "2023-05-14", "week")),
    ("went there four days ago", ("four days ago", "2023-05-21", "2023-05-21", "day")),
    ("a job interview yesterday", ("yesterday", "2023-05-24", "2023-05-24", "day")),
    ("dinner last night", ("last night", "2023-05-24", "2023-05-24", "day")),
    ("the opening is tomorrow", ("tomorrow", "2023-05-26", "2023-05-26", "day")),
    ("moving in two weeks", ("in two weeks", "2023-06-05", "2023-06-11", "week")),
    ("a hike last summer", ("last summer", "2022-06-01", "2022-08-31", "season")),
    ("met on 8 May, 2023", ("8 May, 2023", "2023-05-08", "2023-05-08", "day")),
    ("met on May 9th, 2021", ("May 9th, 2021", "2021-05-09", "2021-05-09", "day")),
    ("moved in June 2022", ("in June 2022", "2022-06-01", "2022-06-30", "month")),
    ("vegan since 2016", ("since 2016", "2016-01-01", "2016-12-31", "year")),
])
def test_an_expression_resolves_against_the_day_it_was_said(text, expected):
    assert spans(text) == [expected]


@pytest.mark.parametrize("text", [
    "went there on Friday",                  # a bare weekday: before or after, nobody can tell
    "a few years ago", "some weeks ago",     # vague
    "once or twice a year", "three times a week",  # frequencies, not events
    "married for 5 years",                   # a duration
    "in May we moved",                       # a month without its year
    "the next day she called",               # relative to the story, not to when it was said
    "she may come", "I sat down last",       # words that only look like dates
    "",
])
def test_what_cannot_be_placed_stays_text(text):
    assert resolve(text, THURSDAY) == []
    assert annotate(text, THURSDAY) == text


def test_weekends_and_weekdays_from_either_side_of_a_weekend():
    sunday, saturday = date(2023, 5, 28), date(2023, 5, 27)
    assert spans("last weekend", sunday) == [("last weekend", "2023-05-20", "2023-05-21", "weekend")]
    assert spans("this weekend", saturday) == [("this weekend", "2023-05-27", "2023-05-28", "weekend")]
    assert spans("next weekend", THURSDAY) == [("next weekend", "2023-05-27", "2023-05-28", "weekend")]
    assert spans("last Saturday", saturday)[0][1] == "2023-05-20"  # a week before, not the same day
    assert spans("next Saturday", saturday)[0][1] == "2023-06-03"


def test_month_and_year_arithmetic_crosses_year_ends():
    assert spans("last month", date(2023, 1, 9)) == [("last month", "2022-12-01", "2022-12-31", "month")]
    assert spans("next month", date(2022, 12, 17)) == [("next month", "2023-01-01", "2023-01-31", "month")]
    assert spans("last week", date(2023, 1, 1)) == [("last week", "2022-12-19", "2022-12-25", "week")]
    assert spans("last summer", date(2023, 9, 1))[0][1] == "2023-06-01"  # summer is over by September
    assert spans("next summer", date(2023, 7, 1))[0][1] == "2024-06-01"  # the first that starts after


def test_an_aware_datetime_resolves_on_its_own_day_and_annotate_keeps_every_word():
    said = datetime(2023, 5, 25, 23, 30, tzinfo=timezone.utc)
    text = "Melanie ran a charity race last Saturday and starts a class next month."
    assert annotate(text, said) == ("Melanie ran a charity race last Saturday [20 May 2023] and starts a class "
                                    "next month [June 2023].")
    assert annotate("Met on 8 May, 2023.", said) == "Met on 8 May, 2023."  # an absolute date needs no help
    assert [e.to_dict()["granularity"] for e in resolve(text, said)] == ["day", "month"]


def test_admission_and_edits_store_event_times_and_the_job_back_fills_older_memories(g):
    said = "2023-05-25T14:00:00+00:00"
    m = g.add({"id": "race", "content": "Ran a charity race last Saturday.", "subject": "mel", "created_at": said})
    plain = g.add({"id": "plain", "content": "Likes pottery.", "subject": "mel", "created_at": said})
    got = g.get("race")
    assert got.event_times == [{"expression": "last Saturday", "start": "2023-05-20", "end": "2023-05-20",
                                "granularity": "day"}]
    assert (got.event_start, got.event_end) == ("2023-05-20", "2023-05-20")
    assert g.get("plain").event_times is None and m and plain
    g.edit("race", content="Ran a charity race last month.")
    assert g.get("race").event_times[0]["start"] == "2023-04-01"  # its event times follow its text
    # a store written before issue 47: nothing read yet (test setup only: graphcons writes these itself)
    g.db.run_text("MATCH (m:Memory) REMOVE m.event_times, m.event_start, m.event_end, m.event_resolver")
    assert g.get("race").event_times is None
    first = g.run_job("event_time")
    assert first.status == "ok" and first.counts["read"] == 2 and first.counts["with_times"] == 1
    assert g.get("race").event_end == "2023-04-30"
    audits = g.db.run_text("MATCH (a:Audit {op: 'event_time'}) RETURN a.targets AS targets")
    assert sorted(audits[0]["targets"]) == ["plain", "race"]
    again = g.run_job("event_time")  # idempotent: nothing left to read
    assert again.status == "ok" and again.counts["read"] == 0

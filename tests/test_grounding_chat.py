"""Issue 48: reflection over chats reads who said what. An assistant's turn and the user's questions
or thanks for the assistant's suggestions are not facts about the user; a chat line is dropped whole."""

from datetime import datetime, timezone

import pytest

from graphcons.consolidation.synthesis.models import Reflection, Statement
from graphcons.profiles.offline_reflection import extract
from graphcons.profiles.reflection_grounding import ground_reflection, said_by_entity
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, Shown, speaker_of
from graphcons.core.errors import Ungrounded
from graphcons.core.text import chat_line

T0 = datetime(2023, 4, 27, tzinfo=timezone.utc)


def _reflection(**categories):
    return Reflection(summary="", **{c: [Statement(statement=s, memory_ids=ids) for s, ids in items]
                                     for c, items in categories.items()})


def test_an_assistant_turn_is_never_a_fact_about_the_user():
    texts = {"u1": "I went to the racetrack today; I really enjoy car racing.",
             "a1": "You could take up painting or plan a trip to the mountains to relax.",
             "u2": "Besides painting and going on a trip, do you have any other suggestions?"}
    speakers = {"u1": "user", "a1": "assistant", "u2": "user"}
    assert said_by_entity(texts["a1"], "assistant") == "" and said_by_entity(texts["u2"], "user") == ""
    refl = _reflection(preferences=[("Gary likes car racing.", ["u1"]),
                                    ("Gary likes painting and going on trips.", ["a1", "u2"])])
    out = ground_reflection(refl, list(texts), texts=texts, subject="Gary", speakers=speakers)
    assert [s.statement for _, s in out.reflection.statements()] == ["Gary likes car racing."]
    assert "hold 0 of its 2 content words" in out.dropped[0]["reason"]
    # without the speakers the assistant's words would have held it: the role is what refuses them
    loose = ground_reflection(refl, list(texts), texts=texts, subject="Gary")
    assert "Gary likes painting and going on trips." in [s.statement for _, s in loose.reflection.statements()]


def test_the_speaker_comes_from_the_memorys_role_or_speaker_else_its_subject():
    assert speaker_of({"metadata": '{"role": "assistant"}', "subject": "user-1"}) == "assistant"
    assert speaker_of({"metadata": {"speaker": "Melanie"}, "subject": "conv-26"}) == "Melanie"
    assert speaker_of({"metadata": None, "subject": "assistant"}) == "assistant"  # LongMemEval: role as subject


def test_the_offline_reflector_reads_only_what_the_user_says():
    members = [Shown(id="u1", title="", content="I usually cycle to work every morning.", created_at=T0,
                     speaker="user"),
               Shown(id="a1", title="", content="I usually recommend cycling to work every morning.", created_at=T0,
                     speaker="assistant"),
               Shown(id="u2", title="", content="Thanks, those are helpful suggestions. Do you cycle every morning?",
                     created_at=T0, speaker="user")]
    refl = extract(ReflectionPrompt(members=members, subject="user", namespace="t"))
    cited = {i for _, s in refl.statements() for i in s.memory_ids}
    assert cited == {"u1"}


@pytest.mark.parametrize("line", [
    "Okay, those are very practical suggestions, and I'll do my best to follow them.",
    "Sure, that makes sense, I will give it a try.",
    "Alright, thank you so much for the tips!",
    "Hi again, my friend.",
    "Wow, that sounds really helpful.",
    "What kind of music do you listen to?",
])
def test_chat_formulas_and_acknowledgements_are_chat_lines(line):
    assert chat_line(line)


@pytest.mark.parametrize("line", [
    "I will try to read more excellent articles to improve my writing skills.",
    "Ana gives financial advice to small companies.",
    "I think you can call me Lulu.",
    "I tried making beef stew with potatoes today.",
])
def test_a_sentence_about_the_speaker_is_not_a_chat_line(line):
    assert not chat_line(line)


def test_a_chat_line_drops_the_whole_statement_never_a_fragment():
    texts = {"f1": "Okay, those are very practical suggestions, and I'll do my best to follow them. "
                   "By the way, do you enjoy outdoor activities too?",
             "f2": "I've been learning rock climbing lately and I go to the climbing gym every Friday."}
    refl = _reflection(behaviors=[("Okay, those are very practical suggestions, and I'll do my best to follow them. "
                                   "By the way, do you enjoy outdoor activities too?", ["f1"]),
                                  ("Frank goes rock climbing every Friday. Do you like climbing?", ["f2"]),
                                  ("Frank goes to the climbing gym every Friday.", ["f2"])])
    out = ground_reflection(refl, list(texts), texts=texts, subject="Frank")
    assert [s.statement for _, s in out.reflection.statements()] == ["Frank goes to the climbing gym every Friday."]
    assert [d["reason"].split(" (")[0] for d in out.dropped] == ["a chat line", "a chat line"]
    assert out.judged[0].chat_removed[0].startswith("Okay")  # the lines that made it chat, listed
    with pytest.raises(Ungrounded):
        ground_reflection(_reflection(facts=[("Thanks a lot for your advice!", ["f1"])]),
                          list(texts), texts=texts, subject="Frank")

"""The offline default synthesizer: deterministic, extractive, no network.

It builds the same typed themes and insight an LLM would, from the members' own words:

- the *concept* is the phrase most members share (the longest n-gram found in the most
  members, e.g. "503 after deploy"), else their most shared terms; it must hold at least two
  words beyond names and the subject (a predicate and a topic: a shared "Andrew" is not a
  statement);
- the main claim is that phrase, citing exactly the members that contain all its words; its
  confirmation count is computed later by the grounding guard from distinct sources
  ("Project deadline: Friday (confirmed 3 times)" in seed 001's form). When fewer than two
  members share such a statement the members are unrelated facts, not an insight: no insight
  is returned (`Synthesis.no_pattern` says why) and the cluster is settled as "no pattern"
  until its membership changes (issue 28);
- the title and the concept's first sentence state that claim (it is what gets embedded);
- further claims are the other content terms shared by at least half of the members; filler
  words ("right", "really", "thing") are not claims;
- tensions are disagreements only: a minority of supporting members negating the statement
  itself, and the labelled context (known conflicts and exceptions);
- gaps say what no member records (a second source; a cause and a fix for incidents);
- implications are the members' own action sentences, else a conservative default.

Same members in, same insight out: no clock, no randomness, ties broken by id and text.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from graphcons.consolidation.synthesis.base import Synthesis, Synthesizer
from graphcons.consolidation.synthesis.models import (
    Claim,
    Insight,
    Tension,
    Theme,
    Themes,
)
from graphcons.consolidation.synthesis.prompt import Shown, SynthesisPrompt

STOPWORDS = frozenset("""
a an the and or but if then else of to in on at by for with from into onto over under about as is are was were be been
being it its this that these those there here we you he she they them our your their my me i us his her do does did done
have has had having not no yes so than too very can could should would may might must will shall just also only again
once more most some any all each every both few many much such own same other another what which who whom whose when
where why how up down out off after before during while until since via per new one two three four five six seven eight
nine ten vs etc again today yesterday tomorrow monday tuesday wednesday thursday friday saturday sunday
""".split())
# Words too common in speech to be a claim on their own ("Recurring detail: right").
FILLER = frozenset("""
right really actually pretty quite thing things stuff lot lots way ways kind sort bit good great nice well like
get got getting going go goes make made making take took want wanted know knew think thought feel felt say said
tell told see saw look looked come came time times day days year years people something anything everything
nothing someone everyone always never often sometimes still even ever much many lately recently
""".split())
# Days of the week are stopwords for *shared terms* but count in phrases ("deadline: Friday").
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
MONTHS = frozenset("january february march april may june july august september october november december".split())
NEGATIONS = frozenset("not no never without cannot can't didn't doesn't don't isn't wasn't weren't won't false "
                      "instead unlike".split())
INCIDENT_KINDS = frozenset({"incident"})
CAUSE_WORDS = ("because", "caused by", "root cause", "due to", "triggered by")
FIX_WORDS = ("fix", "fixed", "rollback", "rolled back", "roll back", "resolved", "mitigat", "runbook", "restart",
             "workaround", "revert")
ACTION_RE = re.compile(r"\b(should|must|always|never|need to|needs to|remember to|make sure|runbook|roll ?back|"
                       r"fix(?:ed)? by|workaround)\b", re.IGNORECASE)
NEGATION_REACH = 3
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_.-]*[A-Za-z0-9]|[A-Za-z0-9]")
_SENT_RE = re.compile(r"(?<=[.!?;])\s+")


def _stem(word: str) -> str:
    w = word.lower().strip("'.")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 3 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss") and not w.endswith("us"):
        return w[:-1]
    return w


def _tokens(text: str) -> list[tuple[str, str]]:
    """(stem, surface) pairs in order."""
    return [(_stem(w), w) for w in _WORD_RE.findall(text)]


def _content(stem: str) -> bool:
    return stem not in STOPWORDS and len(stem) >= 2


def content_terms(text: str) -> set[str]:
    """The stems of a text's content words (no stopwords), as the synthesizer compares texts."""
    return {s for s, _ in _tokens(text) if _content(s)}


class _Member:
    def __init__(self, shown: Shown):
        self.shown = shown
        self.id = shown.id
        text = shown.content if shown.content.startswith(shown.title) else f"{shown.title}. {shown.content}"
        self.text = text
        self.tokens = _tokens(text)
        # token indices that open a sentence (capitalised there for grammar, not as a name)
        self.openers = {i for i, mt in enumerate(_WORD_RE.finditer(text))
                        if not text[:mt.start()].rstrip() or text[:mt.start()].rstrip()[-1] in ".!?:;"}
        self.stems = [s for s, _ in self.tokens]
        self.terms = {s for s in self.stems if _content(s)}
        lowered = text.lower()
        self.negated = any(w in NEGATIONS for w in (t.lower() for _, t in self.tokens)) or "n't" in lowered
        self.lowered = lowered

    def starts_sentence(self, i: int) -> bool:
        return i in self.openers

    def negates(self, core: tuple[str, ...]) -> bool:
        """A negation within NEGATION_REACH words before or among the statement's words
        ("no 503 after deploy", "deploy did not cause 503"), not anywhere in the text."""
        spots = [i for i, s in enumerate(self.stems) if s in core]
        if not spots:
            return False
        lo, hi = max(0, min(spots) - NEGATION_REACH), max(spots)
        return any(t.lower() in NEGATIONS or t.lower().endswith("n't") for _, t in self.tokens[lo:hi + 1])

    def has_phrase(self, phrase: tuple[str, ...]) -> bool:
        n = len(phrase)
        return any(tuple(self.stems[i:i + n]) == phrase for i in range(len(self.stems) - n + 1))

    def surface(self, phrase: tuple[str, ...]) -> str:
        n = len(phrase)
        for i in range(len(self.stems) - n + 1):
            if tuple(self.stems[i:i + n]) == phrase:
                return " ".join(t for _, t in self.tokens[i:i + n])
        return " ".join(phrase)


def _quorum(n: int) -> int:
    return max(2, math.ceil(n / 2))


def _phrase_word(stem: str) -> bool:
    return _content(stem) or stem in WEEKDAYS


def _names(members: list[_Member]) -> set[str]:
    """Stems written as names wherever they occur: capitalised (not all capitals, not a number)
    every time, at least once inside a sentence (Andrew, Lisbon; not HTTP, not a sentence's
    first word)."""
    capital, lower, inside = set(), set(), set()
    for m in members:
        for i, (stem, word) in enumerate(m.tokens):
            if word[:1].isupper() and not word.isupper():
                capital.add(stem)
                if i > 0 and not m.starts_sentence(i):
                    inside.add(stem)
            else:
                lower.add(stem)
    return (capital - lower - WEEKDAYS - MONTHS) & inside


def _best_phrase(members: list[_Member], naming: frozenset[str] | set[str] = frozenset()) -> tuple[str, ...] | None:
    """The n-gram (2-4 words, content words at both ends) that best covers the members:
    highest (members containing it) x (content words in it); longer, then alphabetical, wins ties."""
    df: Counter[tuple[str, ...]] = Counter()
    for m in members:
        seen: set[tuple[str, ...]] = set()
        for n in (2, 3, 4):
            for i in range(len(m.stems) - n + 1):
                gram = tuple(m.stems[i:i + n])
                if _phrase_word(gram[0]) and _phrase_word(gram[-1]) and len(set(gram)) == n \
                        and sum(1 for w in gram if _phrase_word(w) and w not in naming) >= 2:
                    seen.add(gram)
        df.update(seen)
    quorum = _quorum(len(members))

    def score(g: tuple[str, ...]) -> int:
        return df[g] * sum(1 for w in g if _phrase_word(w))

    ranked = sorted((g for g, c in df.items() if c >= quorum), key=lambda g: (-score(g), -len(g), g))
    return ranked[0] if ranked else None


CONNECTORS = ("after", "before", "during", "when", "while", "following", "on", "in", "by", "for", "with")
WINDOW = 5


def _extension(members: list[_Member], phrase: tuple[str, ...], candidates: list[str]) -> tuple[str, str] | None:
    """(connector, term) that most members put right after the phrase, e.g. ("after", "deploy"):
    '503 errors' + 'after deploy' when the members say '503 errors right after the 4.2 deploy'."""
    votes: Counter[tuple[str, str]] = Counter()
    n = len(phrase)
    for m in members:
        seen: set[tuple[str, str]] = set()
        for i in range(len(m.stems) - n + 1):
            if tuple(m.stems[i:i + n]) != phrase:
                continue
            tail = m.stems[i + n:i + n + WINDOW + 1]
            for j, word in enumerate(tail):
                if word in CONNECTORS:
                    for term in tail[j + 1:]:
                        if term in candidates:
                            seen.add((word, term))
                            break
                    break
        votes.update(seen)
    quorum = _quorum(len(members))
    ranked = sorted((v for v, c in votes.items() if c >= quorum), key=lambda v: (-votes[v], candidates.index(v[1]), v))
    return ranked[0] if ranked else None


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT_RE.split(text) if s.strip()]


class OfflineSynthesizer(Synthesizer):
    provider = "offline"
    model = "extractive-v1"
    calls_per_synthesis = 0

    def synthesize(self, prompt: SynthesisPrompt) -> Synthesis:
        members = sorted((_Member(s) for s in prompt.members), key=lambda m: m.id)
        n = len(members)
        subject = prompt.subject if prompt.subject and prompt.subject != "general" else None
        # Words that name the topic holder (a person, a product, the subject) are not a claim:
        # three different facts about Andrew share "Andrew" and nothing else (issue 12).
        naming = _names(members) | {_stem(w) for w in re.split(r"[^A-Za-z0-9]+", subject or "") if w}
        df = Counter(t for m in members for t in m.terms)
        quorum = _quorum(n)
        shared = sorted((t for t, c in df.items() if c >= quorum), key=lambda t: (-df[t], t))
        core, label = self._statement(members, shared, naming)
        # A claim cites exactly the members that contain every word of its statement.
        supporting = [m for m in members if core and all(w in m.stems for w in core)]
        if len(supporting) < 2:
            return self._no_pattern(members, subject, shared, naming)
        main = f"{subject}: {label}" if subject and subject.lower() not in label.lower() else label
        main = main[:1].upper() + main[1:]
        support_ids = [m.id for m in supporting]

        claims = [Claim(statement=main, member_ids=support_ids)]
        extra_terms = [t for t in shared if t not in core and t not in naming and t not in FILLER][:4]
        for term in extra_terms:
            ids = [m.id for m in members if term in m.terms]
            shown_term = next(t for m in members for s, t in m.tokens if s == term)
            claims.append(Claim(statement=f"Recurring detail: {shown_term} ({len(ids)} of {n} members)", member_ids=ids))

        tensions = self._tensions(supporting, core, prompt.context)
        gaps = self._gaps(members, supporting, label, prompt)
        implications = self._implications(members, label)

        sources = {s for m in supporting for s in m.shown.sources}
        share = len(supporting) / n if n else 0.0
        confidence = round(min(0.9, 0.2 + 0.5 * share + 0.2 * min(1.0, (len(sources) - 1) / 2)), 2)
        insight = Insight(title=main if len(main) <= 120 else main[:117] + "...",
                          concept=self._concept(label, supporting, n, shared, core),
                          claims=claims, tensions=tensions, gaps=gaps, implications=implications,
                          confidence=confidence)
        themes = [Theme(title=label, question=f"When and why does '{label}' recur?", member_ids=support_ids)]
        for term in extra_terms[:2]:
            ids = [m.id for m in members if term in m.terms]
            themes.append(Theme(title=term, question=f"What part does '{term}' play in '{label}'?", member_ids=ids))
        return Synthesis(themes=Themes(themes=themes), insight=insight, provider=self.provider, model=self.model,
                         calls=0)

    @staticmethod
    def _statement(members: list[_Member], shared: list[str], naming: set[str]) -> tuple[tuple[str, ...], str]:
        """(the words every supporting member must contain, the statement's text); ((), "") when the
        members share no statement with at least two words beyond names (a predicate and a topic)."""
        phrase = _best_phrase(members, naming)
        if phrase:
            core = tuple(g for g in phrase if _phrase_word(g))
            label = next(m.surface(phrase) for m in members if m.has_phrase(phrase))
            holders = [m for m in members if all(w in m.stems for w in core)]
            ext = _extension(holders, phrase, [t for t in shared if t not in core])
            if ext:
                connector, term = ext
                core = core + (term,)
                label = f"{label} {connector} {next(t for m in members for st, t in m.tokens if st == term)}"
        else:
            core = tuple(t for t in shared if t not in naming)[:2]
            label = ", ".join(next(t for m in members for s, t in m.tokens if s == w) for w in core)
        if sum(1 for w in core if w not in naming) < 2:
            return (), ""
        return core, label

    def _no_pattern(self, members: list[_Member], subject: str | None, shared: list[str],
                    naming: set[str]) -> Synthesis:
        """No statement is shared by two members: nothing to propose (a group of facts is not an insight)."""
        topic_terms = [t for t in shared if t in naming] or shared
        topic = next((t for m in members for s, t in m.tokens if topic_terms and s == topic_terms[0]), None)
        about = topic or subject or "one topic"
        reason = f"no pattern: the {len(members)} members share a topic ({about}) but no statement"
        themes = [Theme(title=about, question=f"What do the members say about {about}?", member_ids=[m.id for m in members])]
        return Synthesis(themes=Themes(themes=themes), insight=None, provider=self.provider, model=self.model,
                         calls=0, no_pattern=reason)

    @staticmethod
    def _concept(label: str, supporting: list[_Member], n: int, shared: list[str], core: tuple[str, ...]) -> str:
        """First sentence: the claim itself (embedded with the title), then how many members hold it."""
        terms = [t for t in shared if t not in core and t not in FILLER][:5]
        text = f"{label[:1].upper() + label[1:]}. {len(supporting)} of {n} members describe this pattern."
        if terms:
            text += f" They also share: {', '.join(terms)}."
        return text + " A generalization from these examples, held as a hypothesis."

    @staticmethod
    def _tensions(supporting: list[_Member], core: tuple[str, ...], context: list[Shown]) -> list[Tension]:
        """Disagreement only: a minority of supporting members negates the statement itself (a
        negation right before or inside it), plus the labelled conflicts and exceptions."""
        out: list[Tension] = []
        negated = [m for m in supporting if m.negates(core)]
        if negated and len(negated) * 2 < len(supporting):
            agree = next(m for m in supporting if m not in negated)
            for m in negated:
                out.append(Tension(description=f"{m.id} disagrees: \"{m.shown.title}\"", member_ids=[m.id, agree.id]))
        for c in context:
            rel = f" ({c.relation})" if c.relation else ""
            out.append(Tension(description=f"known conflict or exception{rel}, not support: \"{c.title}\"",
                               member_ids=[c.id]))
        return out

    @staticmethod
    def _gaps(members: list[_Member], supporting: list[_Member], label: str, prompt: SynthesisPrompt) -> list[str]:
        gaps: list[str] = []
        sources = sorted({s for m in supporting for s in m.shown.sources})
        if len(sources) == 1:
            gaps.append(f"All {len(supporting)} supporting members come from one source ({sources[0]}): "
                        "repetition is not confirmation; an independent source is missing.")
        if any(m.shown.kind in INCIDENT_KINDS for m in members):  # causes and fixes are incident questions
            if not any(w in m.lowered for m in members for w in CAUSE_WORDS):
                gaps.append("No member states a root cause.")
            if not any(w in m.lowered for m in members for w in FIX_WORDS):
                gaps.append("No member records a fix, rollback or runbook.")
        if len(supporting) < len(members):
            gaps.append(f"{len(members) - len(supporting)} member(s) do not mention '{label}': "
                        "does the pattern hold for them?")
        if prompt.context:
            gaps.append("Known exceptions limit where this holds; their scope is not established by the members.")
        return gaps

    @staticmethod
    def _implications(members: list[_Member], label: str) -> list[str]:
        found: list[str] = []
        for m in members:
            for sentence in _sentences(m.shown.content):
                if ACTION_RE.search(sentence) and sentence not in found:
                    found.append(f"{sentence} (from {m.id})")
                    break
            if len(found) >= 3:
                break
        found.append(f"Treat '{label}' as a recurring pattern to check first when it shows up again; "
                     "keep it a hypothesis until independent evidence confirms it.")
        return found

"""The typed shapes of a synthesis: themes (step 1) and the insight (step 2).

Two families of models:

- the *stored* models (`Themes`, `Insight`, ...) hold any string ids; they are what a
  provider returns, what the grounding guard checks and what a proposal keeps as JSON;
- the *per-call* models (`call_models(shown, context)`) are built for one cluster: every
  cited id is typed as an enum of exactly the ids shown to the model (a `Literal` in the
  JSON schema the LLM sees, so a grammar-constrained server cannot even emit another id).
  A server that ignores schemas can still send other ids; parsing keeps them as strings and
  `graphcons.grounding` strips and counts them (checked again in code, never trusted).

Claims cite members only; tensions may also cite the labelled context (known conflicts
and exceptions), which never counts as support.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Annotated, Any, Callable

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model
from pydantic.json_schema import SkipJsonSchema

from graphcons.core.text import shown_in
from graphcons.core.time import day
from graphcons.store.digest import Fact  # the stored fact, one model: recall reads it too

MAX_THEMES = 3
# A line about the present is dated by the latest member stating it; any other by the earliest ("since").
NOW_RE = re.compile(r"\b(currently|now|nowadays|these days|still|at the moment|at present|presently)\b", re.IGNORECASE)


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


def _all_required(schema: dict[str, Any]) -> None:
    schema["required"] = list(schema.get("properties", {}))


class _CallModel(_Model):
    """A per-call model: every property is *required in the schema the model sees* (a
    grammar-constrained server writes required properties first, in schema order, and may skip
    the others), while parsing keeps the stored models' defaults (an answer without `gaps` is
    still an answer; the grounding guard decides what it is worth)."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_all_required)


class Theme(_Model):
    """One high-level theme or question the cluster collectively answers."""

    title: str = Field(description="A short name for the theme.")
    question: str = Field(description="The question the members answer together.")
    member_ids: list[str] = Field(default_factory=list, description="Ids of the members this theme rests on.")


class Themes(_Model):
    themes: list[Theme] = Field(min_length=1, max_length=MAX_THEMES,
                                description="One to three themes or questions the cluster answers.")


class Claim(_Model):
    """One statement of the insight and the member ids it rests on."""

    statement: str = Field(description="One durable statement, without any confirmation count.")
    member_ids: list[str] = Field(default_factory=list, description="Ids of the members that support it.")
    # Filled in by the grounding guard (distinct sources of the cited members), never by the model.
    confirmations: int | None = Field(default=None, description="Leave empty: computed by graphcons.")
    # When it happened: the date of the member that states it, filled in by graphcons, never by the model.
    when: str | None = Field(default=None, description="Leave empty: computed by graphcons.")


class Tension(_Model):
    """A contradiction or tension between members (or with a known conflict or exception)."""

    description: str
    member_ids: list[str] = Field(default_factory=list, description="Ids of the memories in tension.")


class Insight(_Model):
    """The consolidated memory: its claim, the cluster's distinct facts (each citing the members
    it comes from, in time order), tensions, gaps, implications (issue 39: what surfaces on
    retrieval is this text, so it must carry the facts an agent answers from)."""

    title: str = Field(description="A short title for the insight.")
    concept: str = Field(description="The unifying concept the members share, in one or two sentences.")
    claims: list[Claim] = Field(min_length=1, description="The insight's statements, each citing its members.")
    facts: list[Fact] = Field(default_factory=list, description="The cluster's distinct facts, each once, each "
                                                                "citing the members that state it.")
    tensions: list[Tension] = Field(default_factory=list, description="Internal tensions or contradictions.")
    gaps: list[str] = Field(default_factory=list, description="Gaps or open questions.")
    implications: list[str] = Field(default_factory=list, description="Implications for design or action.")
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence in the generalization, 0 to 1.")

    def dated(self, created: dict[str, Any], texts: dict[str, str] | None = None,
              stating: Callable[[str, list[str], dict[str, str]], list[str]] | None = None) -> "Insight":
        """A copy whose facts and claims carry their date ("7 May 2023"), facts in time order (undated
        last, then as written): when a line happened is its members' `created_at`, which a caller sets to
        the event's time (issue 39). With the members' `texts`, a line is dated by the member that states
        it (its text shown word for word, issue 50; else `stating`, the guard's rule, issue 48), never by
        a co-cited neighbour: the earliest such member, the latest for a line about now ("currently")."""
        def when(line: Claim | Fact) -> Any:
            ids = line.member_ids
            if texts:
                ids = (shown_in(line.statement, {m: texts[m] for m in ids if m in texts})
                       or (stating(line.statement, ids, texts) if stating else []) or ids)
            dates = [created[m] for m in ids if created.get(m) is not None]
            return (max if NOW_RE.search(line.statement) else min)(dates, default=None)

        facts = [(when(f), i, f) for i, f in enumerate(self.facts)]
        facts.sort(key=lambda t: (t[0] is None, t[0] or 0, t[1]))
        return self.model_copy(update={
            "claims": [c.model_copy(update={"when": day(when(c)) or None}) for c in self.claims],
            "facts": [f.model_copy(update={"when": day(d) or None}) for d, _, f in facts]})

    def cited_ids(self) -> list[str]:
        """Member ids the claims and facts rest on, sorted and distinct."""
        return sorted({i for c in [*self.claims, *self.facts] for i in c.member_ids})


def _id_type(ids: tuple[str, ...], what: str) -> Any:
    # The schema the model sees is an enum of the shown ids; parsing accepts any string so the
    # grounding guard can strip and count the ones that were not shown.
    schema = {"type": "string", "enum": list(ids), "description": what}
    return Annotated[str, WithJsonSchema(schema)]


MAX_FACTS = 8  # an insight's fact lines: one retrieval item, about a short paragraph
MAX_CITED = 5  # ids per claim or statement in the schema a model sees: listing every id is no citation


@lru_cache(maxsize=64)
def call_models(member_ids: tuple[str, ...], context_ids: tuple[str, ...] = ()) -> tuple[type[BaseModel], type[BaseModel]]:
    """(ThemesModel, InsightModel) for one call: cited ids typed as the shown ids only.

    The field order leads a small model (a grammar-constrained server writes required fields in
    schema order): each claim picks its members before it is written, claims come before the
    tensions, the concept and the title, and every field is required so none is skipped."""
    member_id = _id_type(member_ids, "the id of one member shown above")
    any_id = _id_type(tuple(member_ids) + tuple(context_ids), "the id of a member or of a labelled context memory")
    theme = create_model("Theme", __base__=_CallModel,
                         member_ids=(list[member_id], Field(min_length=1, json_schema_extra={"maxItems": len(member_ids)},
                                                            description="Ids of the members this theme rests on.")),
                         title=(str, Field(description="A short name for the theme.")),
                         question=(str, Field(description="The question the members answer together.")))
    themes = create_model("Themes", __base__=_CallModel,
                          themes=(list[theme], Field(min_length=1, max_length=MAX_THEMES,
                                                     description=Themes.model_fields["themes"].description)))
    claim = create_model("Claim", __base__=_CallModel,
                         member_ids=(list[member_id], Field(min_length=1, json_schema_extra={"maxItems": MAX_CITED},
                                                            description="First: the ids of the members it rests on.")),
                         statement=(str, Field(description="Then: one durable statement saying only what those "
                                                           "members say, without any confirmation count.")))
    fact = create_model("Fact", __base__=_CallModel,
                        member_ids=(list[member_id], Field(min_length=1, json_schema_extra={"maxItems": MAX_CITED},
                                                           description="First: the ids of every member stating it.")),
                        statement=(str, Field(description="Then: the fact, once, in the members' own terms (a "
                                                          "name, a number, a place, what happened).")))
    tension = create_model("Tension", __base__=_CallModel,
                           member_ids=(list[any_id], Field(default_factory=list, json_schema_extra={"maxItems": MAX_CITED},
                                                           description="Ids of the memories that disagree.")),
                           description=(str, Field(description="How they disagree (never a claim restated).")))
    insight = create_model(
        "Insight", __base__=_CallModel,
        claims=(list[claim], Field(min_length=1, description=Insight.model_fields["claims"].description)),
        facts=(list[fact], Field(default_factory=list, json_schema_extra={"maxItems": MAX_FACTS},
                                 description=Insight.model_fields["facts"].description)),
        tensions=(list[tension], Field(default_factory=list, description="Real disagreements between members, or "
                                                                         "with the context; empty when there is none.")),
        gaps=(list[str], Field(default_factory=list, description=Insight.model_fields["gaps"].description)),
        implications=(list[str], Field(default_factory=list,
                                       description=Insight.model_fields["implications"].description)),
        concept=(str, Field(description=Insight.model_fields["concept"].description)),
        title=(str, Field(description=Insight.model_fields["title"].description)),
        confidence=(float, Field(ge=0.0, le=1.0, description="Confidence in the generalization, 0 to 1; "
                                                             "below 1 unless the members leave no doubt.")))
    themes.__doc__ = Themes.__doc__ or "The themes of the cluster."
    insight.__doc__ = Insight.__doc__
    return themes, insight


def to_stored(obj: BaseModel, model: type[_Model]) -> Any:
    """A per-call (or any) instance as the stored model."""
    return model.model_validate(obj.model_dump())


# -- reflection (issue 14, seed 004): what one entity's memories say about it ------------------
MAX_STATEMENTS = 8  # per category parsed; [reflection] max_statements caps what is kept
# Per category in the schema the model sees: bounds what a small local model generates (a few tokens
# per second on a CPU); what a reflection leaves uncited stays unconsolidated for the next one.
CALL_STATEMENTS = 4

CATEGORIES = ("preferences", "behaviors", "facts")
#: The memory kind each category's statements are stored as.
CATEGORY_KIND = {"preferences": "preference", "behaviors": "behavior", "facts": "fact"}


class Statement(_Model):
    """One short statement about the entity and the ids of the memories it rests on."""

    statement: str = Field(description="One short statement about the entity, without any confirmation count.")
    memory_ids: list[str] = Field(default_factory=list, description="Ids of the shown memories it rests on.")
    # Set by the grounding guard, never by the model: the id of the one memory this statement only
    # restates (a quoted fact, not a generalisation; issue 40).
    restated: str | None = Field(default=None, description="Leave empty: set by graphcons.")


class SupportQuote(_Model):
    memory_id: str = Field(description="The id of a memory that says what the statement says.")
    quote: str = Field(description="The shortest span of that memory that says it, copied exactly.")


class SupportCheck(_Model):
    """A model's check of one statement: which cited memories say it, quoting their words."""

    supporting: list[SupportQuote] = Field(default_factory=list)


class Reflection(_Model):
    """What the shown memories say about one entity (a user, a project, a service)."""

    preferences: list[Statement] = Field(default_factory=list, max_length=MAX_STATEMENTS,
                                         description="What the entity prefers, likes, wants or avoids.")
    behaviors: list[Statement] = Field(default_factory=list, max_length=MAX_STATEMENTS,
                                       description="Recurring behavioural patterns: what the entity usually does.")
    facts: list[Statement] = Field(default_factory=list, max_length=MAX_STATEMENTS,
                                   description="Durable key facts about the entity.")
    summary: str = Field(description="A natural-language summary of the entity in two or three sentences.")

    def statements(self) -> list[tuple[str, Statement]]:
        """(category, statement) pairs in category order."""
        return [(c, s) for c in CATEGORIES for s in getattr(self, c)]

    def cited_ids(self) -> list[str]:
        return sorted({i for _, s in self.statements() for i in s.memory_ids})


@lru_cache(maxsize=64)
def reflection_call_model(memory_ids: tuple[str, ...]) -> type[BaseModel]:
    """The Reflection model for one call: every cited id typed as one of the shown ids.

    Shaped for a small model (issue 31): every field is required (a grammar-constrained server
    writes required fields first, in schema order, and skips optional ones), each category
    before the summary, each with at least one statement (a category with something to say
    must say it; a statement citing nothing real is dropped by the grounding guard), and each
    statement names its memories before it is written."""
    shown = _id_type(memory_ids, "the id of one memory shown above")
    statement = create_model("Statement", __base__=_CallModel,
                             memory_ids=(list[shown], Field(min_length=1, json_schema_extra={"maxItems": MAX_CITED},
                                                            description="First: the ids of the memories it rests on.")),
                             statement=(str, Field(description="Then: one short statement saying only what those "
                                                               "memories say about the entity.")))
    # at least one statement per category in the schema (the grammar), none needed to parse
    fields: dict[str, Any] = {c: (list[statement], Field(default_factory=list, max_length=MAX_STATEMENTS,
                                                         json_schema_extra={"minItems": 1,
                                                                            "maxItems": CALL_STATEMENTS},
                                                         description=Reflection.model_fields[c].description))
                              for c in CATEGORIES}
    fields["summary"] = (str, Field(description="Last: one or two sentences repeating only what the statements say."))
    model = create_model("Reflection", __base__=_CallModel, **fields)
    model.__doc__ = Reflection.__doc__
    return model


@lru_cache(maxsize=64)
def support_call_model(memory_ids: tuple[str, ...]) -> type[BaseModel]:
    """The SupportCheck model for one call: the memory id first (an enum of the ids shown), then the quote."""
    shown = _id_type(memory_ids, "the id of one memory shown above")
    quote = create_model("SupportQuote", __base__=_CallModel,
                         memory_id=(shown, Field(description=SupportQuote.model_fields["memory_id"].description)),
                         quote=(str, Field(description=SupportQuote.model_fields["quote"].description)))
    model = create_model("SupportCheck", __base__=_CallModel,
                         supporting=(list[quote], Field(default_factory=list, json_schema_extra={"maxItems": 3},
                                                        description="The memories that say it; empty when none does.")))
    model.__doc__ = SupportCheck.__doc__
    return model

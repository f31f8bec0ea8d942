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

from functools import lru_cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model
from pydantic.json_schema import SkipJsonSchema

MAX_THEMES = 3


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


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


class Tension(_Model):
    """A contradiction or tension between members (or with a known conflict or exception)."""

    description: str
    member_ids: list[str] = Field(default_factory=list, description="Ids of the memories in tension.")


class Insight(_Model):
    """The consolidated memory: concept, claims with citations, tensions, gaps, implications."""

    title: str = Field(description="A short title for the insight.")
    concept: str = Field(description="The unifying concept the members share, in one or two sentences.")
    claims: list[Claim] = Field(min_length=1, description="The insight's statements, each citing its members.")
    tensions: list[Tension] = Field(default_factory=list, description="Internal tensions or contradictions.")
    gaps: list[str] = Field(default_factory=list, description="Gaps or open questions.")
    implications: list[str] = Field(default_factory=list, description="Implications for design or action.")
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence in the generalization, 0 to 1.")

    def cited_ids(self) -> list[str]:
        """Member ids the claims rest on, sorted and distinct."""
        return sorted({i for c in self.claims for i in c.member_ids})


def _id_type(ids: tuple[str, ...], what: str) -> Any:
    # The schema the model sees is an enum of the shown ids; parsing accepts any string so the
    # grounding guard can strip and count the ones that were not shown.
    schema = {"type": "string", "enum": list(ids), "description": what}
    return Annotated[str, WithJsonSchema(schema)]


@lru_cache(maxsize=64)
def call_models(member_ids: tuple[str, ...], context_ids: tuple[str, ...] = ()) -> tuple[type[BaseModel], type[BaseModel]]:
    """(ThemesModel, InsightModel) for one call: cited ids typed as the shown ids only."""
    member_id = _id_type(member_ids, "the id of one member shown above")
    any_id = _id_type(tuple(member_ids) + tuple(context_ids), "the id of a member or of a labelled context memory")
    theme = create_model("Theme", __base__=Theme, member_ids=(list[member_id], Field(default_factory=list)))
    themes = create_model("Themes", __base__=Themes,
                          themes=(list[theme], Field(min_length=1, max_length=MAX_THEMES)))
    claim = create_model("Claim", __base__=Claim, member_ids=(list[member_id], Field(min_length=1)),
                         confirmations=(SkipJsonSchema[int | None], None))
    tension = create_model("Tension", __base__=Tension, member_ids=(list[any_id], Field(default_factory=list)))
    insight = create_model("Insight", __base__=Insight, claims=(list[claim], Field(min_length=1)),
                           tensions=(list[tension], Field(default_factory=list)))
    themes.__doc__ = Themes.__doc__ or "The themes of the cluster."
    insight.__doc__ = Insight.__doc__
    return themes, insight


def to_stored(obj: BaseModel, model: type[_Model]) -> Any:
    """A per-call (or any) instance as the stored model."""
    return model.model_validate(obj.model_dump())


# -- reflection (issue 14, seed 004): what one entity's memories say about it ------------------
MAX_STATEMENTS = 8  # per category in the schema the model sees; [reflection] max_statements caps what is kept

CATEGORIES = ("preferences", "behaviors", "facts")
#: The memory kind each category's statements are stored as.
CATEGORY_KIND = {"preferences": "preference", "behaviors": "behavior", "facts": "fact"}


class Statement(_Model):
    """One short statement about the entity and the ids of the memories it rests on."""

    statement: str = Field(description="One short statement about the entity, without any confirmation count.")
    memory_ids: list[str] = Field(default_factory=list, description="Ids of the shown memories it rests on.")


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
    """The Reflection model for one call: every cited id typed as one of the shown ids."""
    shown = _id_type(memory_ids, "the id of one memory shown above")
    statement = create_model("Statement", __base__=Statement, memory_ids=(list[shown], Field(min_length=1)))
    fields = {c: (list[statement], Field(default_factory=list, max_length=MAX_STATEMENTS,
                                         description=Reflection.model_fields[c].description)) for c in CATEGORIES}
    model = create_model("Reflection", __base__=Reflection, **fields)
    model.__doc__ = Reflection.__doc__
    return model

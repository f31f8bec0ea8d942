"""An insight's digest fact, typed (issue 60): one distinct fact of a cluster, said once, citing every
member that states it, with the day it happened. Synthesis writes it inside the insight
(graphcons.consolidation.synthesis.models.Insight, stored as the insight's `insight_json`) and a
context reads it back from there (graphcons.recall.context): one model for both, here beneath the two
wings because both read it."""

from __future__ import annotations

from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, Field


class Fact(BaseModel):
    """One distinct fact of the cluster, said once (its restatements cite it together)."""

    model_config = ConfigDict(extra="ignore")

    statement: str = Field(description="The fact, in the members' own terms.")
    member_ids: list[str] = Field(default_factory=list, description="Ids of every member that states it.")
    # When it happened: the date of the member that states it, filled in by graphcons, never by the model.
    when: str | None = Field(default=None, description="Leave empty: computed by graphcons.")

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()


def facts_of(digest: Mapping[str, Any]) -> list[Fact]:
    """The facts of a stored insight (its `insight_json`, decoded); an insight stored before facts has none."""
    return [Fact.model_validate(f) for f in digest.get("facts") or []]

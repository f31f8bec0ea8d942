"""A profile's card item, typed (issue 60): one memory of a subject said the short way, in its group,
with its date. The card pass makes items (graphcons.profiles.card_items), a card proposal stores them,
an approved card keeps them in the profile, and a context shows them (graphcons.recall.context): all
four read this one record, decoded once from what is stored (`decode`) and stored or shown as
`to_dict`. It lives here, beneath the profiles and recall wings, because both read it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Callable, Mapping


@dataclass(frozen=True)
class CardItem:
    group: str  # plans, preferences, possessions, places, people or activities
    text: str
    member_id: str
    date: str  # as a context's days read: the member's event time when resolved, else when it was said

    @classmethod
    def decode(cls, stored: Mapping[str, Any]) -> "CardItem":
        """An item as a card stores it (its JSON object)."""
        return cls(group=stored["group"], text=stored["text"], member_id=stored["member_id"], date=stored["date"])

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def said(self, flat: Callable[[str], str]) -> "CardItem":
        """The item with its words passed through `flat` (a context's one-line text; the id stays)."""
        return replace(self, group=flat(self.group), text=flat(self.text), date=flat(self.date))


def items_of(card: Mapping[str, Any]) -> list[CardItem]:
    """The items of a stored card ({proposal_id, parser, items}; {} when a profile has none)."""
    return [CardItem.decode(i) for i in card.get("items") or []]

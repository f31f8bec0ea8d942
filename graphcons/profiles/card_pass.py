"""The card pass: one `card` proposal per subject whose live memories changed since its last card.

Subject by subject ((namespace, subject) blocks of two live memories or more: cypher/memory/blocks,
as the update pass reads them), the live memories that are not derived from others
(cypher/memory/underived: an insight or a reflection's statement says what its premises say)
become card items (graphcons.profiles.card_items). The proposal cites every member an item comes
from, at its version; its id is a digest of the subject and those versions, so the same memories
give the same proposal on any fresh store, and a pass over an unchanged store proposes nothing new.
Each is queued in the one review queue (graphcons.review.queue); approving it gives the profile its
next version with the card (graphcons.profiles.card_kind). A dry run reports the same and writes nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import date, datetime
from typing import Any, Callable, ClassVar

from graphcons.consolidation.cluster import membership_hash
from graphcons.core import audit, eventtime
from graphcons.core.db import Database, Tx
from graphcons.core.errors import ValidationError
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.report import PassReport
from graphcons.core.time import day, require_aware
from graphcons.profiles import card_items
from graphcons.store import proposals
from graphcons.store.card import CardItem

KIND = "card"


@dataclass(frozen=True)
class CardProposal:
    """One subject's card before it is queued: the items, the versions of the members they come from,
    and how many memories the subject had."""

    id: str
    namespace: str
    subject: str
    versions: dict[str, int]
    run_id: str
    items: list[CardItem]
    parser: str
    memories: int

    def summary(self) -> "CardSummary":
        return CardSummary(proposal_id=self.id, namespace=self.namespace, subject=self.subject, items=len(self.items),
                           memories=self.memories, groups=dict(Counter(i.group for i in self.items)))


@dataclass(frozen=True)
class CardSummary:
    """A card the pass proposed, as its report lists it; `groups`: how many items each group holds."""

    proposal_id: str
    namespace: str
    subject: str
    items: int
    memories: int
    groups: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CardsReport(PassReport):
    """What a card pass did (or a dry run would do): one wire shape, `to_dict`, for every door."""

    parser: str
    subjects: int  # the (namespace, subject) blocks read
    proposed: list[CardSummary]
    known: list[str]  # proposal ids already queued for these memories
    job: ClassVar[str] = "cards"


def run(db: Database, *, now: datetime, dry_run: bool = True, namespace: str | None = None,
        subject: str | None = None, run_id: str | None = None,
        progress: Callable[[int], None] | None = None) -> CardsReport:
    """One card pass; `namespace` / `subject` limit it. Returns the proposals made (or that a dry
    run would make) and the subjects whose card is already proposed for these memories."""
    require_aware(now)
    for name, value in (("namespace", namespace), ("subject", subject)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ValidationError(name, "expected a non-empty text or none")
    if not card_items.available():
        raise card_items.ParserMissing()
    run_id = run_id or audit.new_run_id("cards")
    made: list[CardProposal] = []
    known: list[str] = []
    blocks = db.run("memory/blocks", live=LIVE_STATUSES, namespace=namespace, subject=subject)
    for n, b in enumerate(blocks):
        scope = {"namespace": b["namespace"], "subject": b["subject"]}
        card = propose_one(db.run("memory/underived", live=LIVE_STATUSES, scopes=[scope]), **scope, now=now,
                           run_id=run_id)
        if card is None:
            continue
        if not dry_run and not db.write(lambda tx, c=card: _queue(tx, c, now, run_id)):
            known.append(card.id)
            continue
        made.append(card)
        if progress:
            progress(n + 1)
    report = CardsReport(run_id=run_id, dry_run=dry_run, now=now.isoformat(), namespace=namespace, subject=subject,
                         parser=card_items.PARSER, subjects=len(blocks), proposed=[c.summary() for c in made],
                         known=known)
    if not dry_run:
        audit.record_run(db, "cards", run_id, now, report.counts())
    return report


def propose_one(rows: list[dict[str, Any]], *, namespace: str, subject: str, now: datetime,
                run_id: str) -> CardProposal | None:
    """The card proposal of one subject's memories (None when no memory gives an item)."""
    mems = [{"id": r["id"], "content": r["content"], "date": item_date(r["content"], r["created_at"]),
             "event_start": r.get("event_start"), "said": r["created_at"]} for r in rows]
    items = card_items.items(mems, subject)
    if not items:
        return None
    versions = {r["id"]: int(r["version"] or 1) for r in rows if r["id"] in {i.member_id for i in items}}
    pid = proposals.digest_id("card-", namespace, subject, membership_hash(versions))
    return CardProposal(id=pid, namespace=namespace, subject=subject, versions=versions, run_id=run_id, items=items,
                        parser=card_items.PARSER, memories=len(rows))


def item_date(content: str, said: str) -> str:
    """An item's date as an agent reads a context's days: its first resolved event time at its own
    granularity ("20 May 2023", "week of 1 May 2023", "May 2023", "2022"; core/eventtime), else the
    day it was said."""
    said_day = date.fromisoformat(said[:10])
    found = eventtime.resolve(content, said_day)
    return found[0].label() if found else day(datetime.combine(said_day, datetime.min.time()))


def _queue(tx: Tx, card: CardProposal, now: datetime, run_id: str) -> bool:
    """Queue the proposal once per id (False: it exists already, whatever its status)."""
    payload = {"items": [i.to_dict() for i in card.items], "parser": card.parser, "memories": card.memories}
    props = {"id": card.id, "kind": KIND, "created_at": now, "run_id": run_id, "namespace": card.namespace,
             "subject": card.subject, "memory_ids": sorted(card.versions),
             "member_versions": json.dumps(card.versions, sort_keys=True),
             "title": f"card: {card.subject} ({len(card.items)} items from {len(card.versions)} memories)",
             "payload": json.dumps(payload, sort_keys=True)}
    if not proposals.create(tx, props, [{"id": i, "version": v} for i, v in sorted(card.versions.items())]):
        return False
    audit.record(tx, "card_proposed", [card.id], run_id=run_id, at=now, subject=card.subject,
                 namespace=card.namespace, items=len(card.items), parser=card.parser)
    return True

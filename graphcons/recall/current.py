"""The current value first (issue 51): an applied update, `(newer)-[:SUPERSEDES {reason: 'update',
since}]->(older)`, leaves the older memory live (it was true until `since`), so a query may find both.
`retrieve` and `context` show the older only after its successor, marked with `superseded_by` and
`until` (the edge's `since`); a successor the ranking did not reach is brought in right before the
older one (it is the current value), and when k has no room left the older falls off the end, never
the successor. Reverted update edges count for nothing.

`as_of` answers with what was current then: memories created after it are not shown, and an update
whose `since` (or whose newer memory) is after it does not count (the older was current then). Merges
and retirements are replayed (issue 62): the lists read every status, a hit lands on its merge winner
only by a SUPERSEDES edge applied (`at`) and not reverted by then (cypher/retrieval/vector, spread), and
a memory is shown when it was live then (`was_live`: a memory merged away or deprecated after `as_of`
shows, one retired before and restored after does not). It is a filter on the ranking (the pool widens
until k remain): texts and scores are today's (an edit is not undone, a merge's added sources stay on
its winner), and an insight's members and an update's successor are read live as they stand today.
A restricting `when` window (`when_mode="restrict"`) likewise ignores a successor outside it (issue 59):
nothing outside the window is shown, and inside it the older value is the one that held.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, time, timezone
from typing import Any, Callable

from graphcons.core.db import Database
from graphcons.core.errors import ValidationError
from graphcons.core.memory import LIVE_STATUSES
from graphcons.recall.eventwindow import Window
from graphcons.recall.hits import Candidate, Hit, Member

MAX_CHAIN = 5  # successors of successors brought in, as the merge chain in retrieval/vector.cypher
AS_OF_HINT = "must be a date (2023-05-27) or a date-time with a timezone (2023-05-27T10:00:00+00:00)"


def check_as_of(value: Any, field: str = "as_of") -> datetime | None:
    """`as_of` as the last instant it covers: a date means its whole day (UTC); a date-time must say
    its timezone. ISO-8601 text is accepted (HTTP, MCP, CLI). `field`: the name an error gives (a
    query's `now` is checked the same way)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = date.fromisoformat(value) if len(value.strip()) == 10 else datetime.fromisoformat(value)
        except ValueError:
            raise ValidationError(field, f"{AS_OF_HINT}; got {value!r}") from None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValidationError(field, AS_OF_HINT)
        return value
    if isinstance(value, date):
        return datetime.combine(value, time.max, tzinfo=timezone.utc)
    raise ValidationError(field, AS_OF_HINT)


def instant(value: Any) -> datetime | None:
    """A stored time (a Neo4j date-time, or ISO text as an edge's `since`) as an aware datetime; a
    date is its first instant, a time without a zone is UTC; None when it is not a time."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
    if isinstance(value, date):
        return datetime.combine(value, time.min, tzinfo=timezone.utc)
    return None


def times(db: Database, ids: list[str]) -> dict[str, dict[str, Any]]:
    """created_at and the event interval of each memory, in one round trip (asked only by calls with
    `as_of` or `when`)."""
    return {r["id"]: r for r in db.run("retrieval/times", ids=ids)[0]["times"]} if ids else {}


def visible_at(order: list[Candidate], known: dict[str, dict[str, Any]], as_of: datetime | None) -> list[Candidate]:
    """The candidates that were visible at `as_of` (all of them without one): created by then, and
    live then (`was_live`)."""
    if as_of is None:
        return order
    return [h for h in order if (t := instant(known.get(h.id, {}).get("created_at"))) is not None and t <= as_of
            and was_live(known[h.id], as_of)]


def was_live(t: dict[str, Any], as_of: datetime) -> bool:
    """Whether a memory was live at `as_of`, by its last retirement (merge, stale-memory job, revert)
    and its last restore: a retired memory was live before it was retired; a live one was not between a
    retirement and a restore around `as_of`. An earlier retire-and-restore is not on the node (the audit
    trail keeps it): only the last of each is read."""
    retired = max((x for x in (instant(t.get(f)) for f in ("deprecated_at", "archived_at", "retired_at")) if x),
                  default=None)
    if t.get("status") not in LIVE_STATUSES:
        retired = retired or instant(t.get("updated_at"))
        return retired is not None and retired > as_of
    restored = instant(t.get("restored_at"))
    return not (retired is not None and restored is not None and retired <= as_of < restored)


def successors(newer: dict[str, list[dict[str, Any]]], namespace: str | None, subject: str | None,
               as_of: datetime | None, window: Window | None = None) -> dict[str, tuple[str, str]]:
    """For each older memory, its successor visible in the call's scope, current at `as_of` and, under a
    restricting `when` window, inside it (issue 59: restrict never shows a memory outside the window;
    within it the older value is the one that held): (id, until). Of several, the one current last
    (latest `since`, then id)."""
    out: dict[str, tuple[str, str]] = {}
    for old, rows in newer.items():
        best: tuple[datetime, str, str] | None = None
        for r in rows:
            if namespace not in (None, r["namespace"]) or subject not in (None, r["subject"]):
                continue
            if window is not None and window.restrict and not window.holds(r):
                continue
            since = instant(r["since"]) or instant(r["created_at"])
            born = instant(r["created_at"])
            if since is None or (as_of is not None and (since > as_of or (born is not None and born > as_of))):
                continue
            until = r["since"] if isinstance(r["since"], str) else since.isoformat()
            if best is None or (since, r["id"]) > best[:2]:
                best = (since, r["id"], until)
        if best is not None:
            out[old] = (best[1], best[2])
    return out


def first(hits: list[Hit], newer: dict[str, list[dict[str, Any]]], k: int, *, namespace: str | None,
          subject: str | None, as_of: datetime | None, window: Window | None = None,
          bring: Callable[[list[str]], tuple[list[Hit], dict[str, list[dict[str, Any]]]]],
          members_count: bool = False) -> list[Hit]:
    """The hits with every superseded one right after its successor (brought in with `bring` when
    missing, scored as the hit it stands before) and marked; a member an insight hit carries is
    marked too, after its successor when the same hit carries both, else with its successor's hit
    placed before the carrier (issue 62). At most k places (`members_count`: a carried member takes
    one, "group"), the last ones falling off. Unchanged when no hit has a current successor."""
    succ = successors(newer, namespace, subject, as_of, window)
    if not succ:
        return hits
    by_id = {h.memory.id: h for h in hits}
    ranked_ids = set(by_id)
    carrier = {m.memory.id: h.memory.id for h in hits for m in h.members or []}  # shown under an insight already
    for _ in range(MAX_CHAIN):
        missing = sorted({s for s, _ in succ.values()} - by_id.keys() - carrier.keys())
        if not missing:
            break
        extra, more = bring(missing)
        by_id.update({h.memory.id: h for h in extra})
        succ.update({o: s for o, s in successors(more, namespace, subject, as_of, window).items() if o not in succ})
    out: list[Hit] = []
    placed: set[str] = set()

    def place(h: Hit) -> None:
        mid = h.memory.id
        if mid in placed:
            return
        placed.add(mid)
        own = [m.memory.id for m in h.members or []]
        for old in [mid] + own:  # what states the newer value of this hit or of what it carries comes first
            s = succ.get(old)
            if s is None or s[0] in own:
                continue
            if s[0] in by_id:
                nxt = by_id[s[0]]
                place(nxt if s[0] in ranked_ids else replace(nxt, score=h.score))
            elif s[0] in carrier:
                place(by_id[carrier[s[0]]])
        s = succ.get(mid)
        marked = h if s is None else replace(h, superseded_by=s[0], until=s[1])
        out.append(marked if not own else replace(marked, members=_members(h.members or [], succ)))

    for h in hits:
        place(h)
    return _within(out, k, members_count)


def _members(members: list[Member], succ: dict[str, tuple[str, str]]) -> list[Member]:
    """An insight's members with each superseded one marked and, when its successor is carried too,
    right after it (relevance order otherwise)."""
    by_id = {m.memory.id: m for m in members}
    out: list[Member] = []
    placed: set[str] = set()

    def place(m: Member) -> None:
        if m.memory.id in placed:
            return
        placed.add(m.memory.id)
        s = succ.get(m.memory.id)
        if s is None:
            out.append(m)
            return
        if s[0] in by_id:
            place(by_id[s[0]])
        out.append(replace(m, superseded_by=s[0], until=s[1]))

    for m in members:
        place(m)
    return out


def _within(hits: list[Hit], k: int, members_count: bool) -> list[Hit]:
    """The first k places: a hit is one; with `members_count` each member it carries is one more,
    the last members falling off before their hit does."""
    if not members_count:
        return hits[:k]
    out: list[Hit] = []
    left = k
    for h in hits:
        if left <= 0:
            break
        members = (h.members or [])[:left - 1]
        out.append(h if h.members is None or len(members) == len(h.members) else replace(h, members=members))
        left -= 1 + len(members)
    return out

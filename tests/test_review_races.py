"""Racing reviewers (issue 59 item 1, principle 14): every transition happens under the proposal's lock
with its status re-read inside it, so two reviewers acting at the same moment get one winner; the other
is told the status it found (409 over HTTP), and what the proposal did to the store matches its status.

The race is forced, not hoped for: the first reviewer is held inside her transaction after she wrote
the new status (an approval at its checkpoint; a revert on a node a test transaction holds) while the
second queues on the proposal's lock (seen in SHOW TRANSACTIONS); then she commits. Before the fix a reject that waited behind an approval overwrote it (status rejected,
effect applied), and two reverts both applied."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

import pytest
from test_merge import A, B
from test_updates import NEW, OLD

from conftest import _wipe
from graphcons.profiles import card_items as extract
from graphcons.core.errors import Conflict
from synthesis_helpers import add_incidents

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
T0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)


def _pending_update(g):
    g.add(OLD), g.add(NEW)
    g.updates(dry_run=False, now=NOW)
    (p,) = g.proposals(kind="update", status="pending")
    return p["id"]


def _pending_merge(g):
    g.add(A), g.add(B)
    g.merge(dry_run=False, now=NOW)
    (p,) = g.proposals(kind="merge", status="pending")
    return p["id"]


def _pending_consolidation(g):
    out = g.synthesize(add_incidents(g), now=NOW)
    assert out.status == "proposed"
    return out.proposal_id


def _pending_card(g):
    for n, text in enumerate(["Melanie signed up for a pottery class and finds it therapeutic.",
                              "Melanie went camping with her family in the mountains last week.",
                              "Melanie loves reading books, especially Charlotte's Web."]):
        g.add({"content": text, "subject": "Melanie", "namespace": "conv", "source": f"D{n}",
               "created_at": T0 + timedelta(days=n)})
    (c,) = g.cards(dry_run=False, now=NOW).proposed
    return c.proposal_id


def _pending_reflection(g):
    for n, text in enumerate(["Kim prefers green tea in the afternoon.", "Kim plays chess every Sunday morning.",
                              "Kim prefers green tea over coffee at work.", "Kim runs five kilometres on Mondays."]):
        g.add({"content": text, "subject": "kim", "kind": "preference", "source": f"chat:{n}",
               "created_at": T0 + timedelta(hours=n)})
    res = g.reflect("kim", now=NOW)
    assert res.status == "proposed"
    return res.proposal_id


def _one(g, query, **params):
    return g.db.run_text(query, **params)[0]["n"]


# kind -> (make a pending proposal, is its effect on the store live?)
KINDS = {
    "update": (_pending_update, lambda g, pid: _one(
        g, "MATCH ()-[s:SUPERSEDES {proposal_id: $pid}]->() WHERE NOT coalesce(s.reverted, false) "
           "RETURN count(s) AS n", pid=pid) == 1),
    "merge": (_pending_merge, lambda g, pid: _one(
        g, "MATCH ()-[s:SUPERSEDES {proposal: $pid}]->(l:Memory {status: 'deprecated'}) "
           "WHERE NOT coalesce(s.reverted, false) RETURN count(s) AS n", pid=pid) == 1),
    "consolidate": (_pending_consolidation, lambda g, pid: _one(
        g, "MATCH (i:Memory {proposal_id: $pid, kind: 'insight'}) WHERE i.status <> 'deprecated' "
           "RETURN count(i) AS n", pid=pid) == 1),
    "card": (_pending_card, lambda g, pid: g.profile("Melanie", namespace="conv")["card"].get("proposal_id") == pid),
    "reflect": (_pending_reflection, lambda g, pid: _one(
        g, "MATCH (m:Memory {proposal_id: $pid}) WHERE m.status <> 'deprecated' RETURN count(m) AS n", pid=pid) > 0),
}

ACTIONS = {
    "approve": lambda g, pid, who, **kw: g.approve(pid, by=who, now=NOW, **kw),
    "reject": lambda g, pid, who: g.reject(pid, f"{who} says no", by=who, now=NOW),
    "revert": lambda g, pid, who: g.revert(pid, f"{who} undoes it", by=who, now=NOW),
}
# the step after which an approval has written its proposal's new status, still inside its transaction
WRITTEN = {"reflect": "audit"}
BLOCKED = "SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked' RETURN count(*) AS n"


def _wait(g, thread, blocked):
    deadline = time.monotonic() + 120
    while _one(g, BLOCKED) < blocked and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)


def _run(out, who, action, g, pid, **kw):
    try:
        out[who] = ACTIONS[action](g, pid, who, **kw)
    except Conflict as e:  # what HTTP answers 409
        out[who] = e


def _race_approval(g, kind, pid, second):
    """ana approves and stops inside her transaction once she has written the new status (not yet
    committed); bo acts then, reads the proposal still pending and waits on its lock; ana commits."""
    out: dict[str, object] = {}
    written, go = threading.Event(), threading.Event()

    def pause(step):
        if step == WRITTEN.get(kind, "proposal") and not written.is_set():
            written.set()
            go.wait(120)

    ana = threading.Thread(target=_run, args=(out, "ana", "approve", g, pid), kwargs={"checkpoint": pause})
    ana.start()
    written.wait(120)
    bo = threading.Thread(target=_run, args=(out, "bo", second, g, pid))
    bo.start()
    _wait(g, bo, 1)  # bo waits on the lock ana holds
    go.set()
    for t in (ana, bo):
        t.join(120)
    return out["ana"], out["bo"]


def _race_reverts(g, pid):
    """Both revert an applied proposal: ana's transaction writes `reverted`, then waits on a node a test
    transaction holds (every node and edge but proposals and audits); bo queues on the proposal's lock."""
    out: dict[str, object] = {}
    held = ["MATCH (n) WHERE NOT n:Proposal AND NOT n:Audit ", "MATCH ()-[n]->() "]
    with g.db.transaction() as holder:
        for h in held:
            holder.run_text(h + "SET n.held_by_test = true")
        threads = []
        for who in ("ana", "bo"):
            threads.append(threading.Thread(target=_run, args=(out, who, "revert", g, pid)))
            threads[-1].start()
            _wait(g, threads[-1], len(threads))
        for h in held:
            holder.run_text(h + "REMOVE n.held_by_test")
    for t in threads:
        t.join(120)
    return out["ana"], out["bo"]


def _changed(result) -> bool:
    return not isinstance(result, Exception) and getattr(result, "changed", True)


KIND_PARAMS = [pytest.param(k, marks=pytest.mark.skipif(k == "card" and not extract.available(),
                                                        reason="the cards extra (spaCy) is missing")) for k in KINDS]


@pytest.mark.parametrize("second", ["reject", "approve"])
@pytest.mark.parametrize("kind", KIND_PARAMS)
def test_a_review_racing_an_approval_gets_one_winner(g, kind, second):
    make, live = KINDS[kind]
    for attempt in range(2):  # twice, each on a fresh proposal
        if attempt:
            _wipe(g)  # test isolation only
            g.init()
        pid = make(g)
        a, b = _race_approval(g, kind, pid, second)
        assert _changed(a), a  # ana committed first
        p = g.proposal(pid)
        assert p["status"] == "applied" and p["applied_by"] == "ana" and not p.get("rejected_by"), p
        if second == "reject":  # bo is told what he found: 409 over HTTP
            assert isinstance(b, Conflict) and "is applied, not pending" in str(b), b
        else:  # approving twice changes nothing
            assert not _changed(b), b
        assert live(g, pid)  # the effect matches the status


@pytest.mark.parametrize("kind", KIND_PARAMS)
def test_racing_reverts_revert_once(g, kind):
    make, live = KINDS[kind]
    pid = make(g)
    g.approve(pid, by="ana", now=NOW)
    a, b = _race_reverts(g, pid)
    assert [_changed(a), _changed(b)].count(True) == 1, (a, b)
    loser = b if _changed(a) else a
    assert isinstance(loser, Conflict) and "is reverted, not applied" in str(loser), loser
    p = g.proposal(pid)
    assert p["status"] == "reverted" and not live(g, pid)
    assert p["reverted_by"] == ("ana" if _changed(a) else "bo")
    for who in ("ana", "bo"):  # only the winner's revert is audited, not two
        assert (_one(g, "MATCH (a:Audit) WHERE a.details CONTAINS $why RETURN count(a) AS n", why=f"{who} undoes it")
                > 0) == (p["reverted_by"] == who)

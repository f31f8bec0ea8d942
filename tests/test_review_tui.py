"""The terminal review queue through Textual's pilot: the keys act on the real database
exactly as the CLI verbs do (same functions, same audit)."""

import asyncio
from pathlib import Path

from synthesis_helpers import NOW, add_incidents

from graphcons.cli.tui import ReviewApp, word_diff
from graphcons.consolidation.cluster import Cluster

OUT = Path(__file__).resolve().parent.parent / "test-output"


def _two_pending(g):
    first = g.synthesize(add_incidents(g), now=NOW).proposal_id
    g.add({"id": "db-1", "content": "Postgres failover took 40 seconds on Monday.", "subject": "db", "source": "a"})
    g.add({"id": "db-2", "content": "Postgres failover took 35 seconds after the patch.", "subject": "db", "source": "b"})
    g.add({"id": "db-3", "content": "Another Postgres failover, 38 seconds, replica lag.", "subject": "db", "source": "c"})
    second = g.synthesize(Cluster(member_ids=("db-1", "db-2", "db-3"), namespace="default", subject="db"),
                          now=NOW).proposal_id
    return sorted([first, second], key=lambda pid: g.proposal(pid)["created_at"].isoformat() + pid)


def test_approve_one_and_reject_another_with_a_reason(g):
    ids = _two_pending(g)
    listed = [p["id"] for p in g.proposals(status="pending")]

    async def drive():
        app = ReviewApp(g, by="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            detail = str(app.query_one("#detail").render())
            assert listed[0] in detail  # the detail pane shows the proposal under the cursor
            await pilot.press("a")  # approve the first
            await pilot.pause()
            assert [r.id for r in app.rows] == [listed[1]]  # only the other stays pending
            await pilot.press("r")
            await pilot.pause()
            for ch in "too vague":
                await pilot.press("space" if ch == " " else ch)
            await pilot.press("enter")
            await pilot.pause()
            assert app.rows == []
            await pilot.press("f", "f")  # show applied proposals
            await pilot.pause()
            await pilot.press("u")  # rate the approved insight useful
            await pilot.pause()
            OUT.mkdir(exist_ok=True)
            app.save_screenshot(filename="review-tui.svg", path=str(OUT))

    asyncio.run(drive())
    first, second = g.proposal(listed[0]), g.proposal(listed[1])
    assert first["status"] == "applied" and first["applied_by"] == "ana" and first["insight_id"]
    assert second["status"] == "rejected" and second["reason"] == "too vague" and second["rejected_by"] == "ana"
    assert {a["op"] for a in g.audit_log(limit=20)} >= {"approve", "reject", "feedback"}  # audited as the CLI would
    assert g.get(first["insight_id"]).weight_feedback > 0.5
    assert sorted(ids) == sorted(listed) and (OUT / "review-tui.svg").stat().st_size > 1000


def test_a_refused_action_shows_the_message_and_changes_nothing(g):
    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    g.edit("inc-1", content="Checkout returned 503 after deploy 4.1; rolled back after 13 minutes.")

    async def drive():
        app = ReviewApp(g)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("a")  # stale: a member changed since the proposal
            await pilot.pause()
            assert "resynthesize" in str(app.query_one("#status").render())

    asyncio.run(drive())
    assert g.proposal(pid)["status"] == "pending"


def test_merge_detail_is_a_word_diff():
    marked = word_diff("checkout returned 503 after deploy 4.2", "checkout returned 500 after deploy 4.2")
    assert "[strike red]503[/]" in marked and "[bold green]500[/]" in marked


def test_tables_fit_an_80_column_terminal_and_never_cut_an_id(g, neo4j_settings, tmp_path):
    import os
    import subprocess
    import sys

    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password(), COLUMNS="80")
    env.pop("GRAPHCONS_CONFIG", None)
    for args in (["proposals", "list"], ["clusters"]):
        out = subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=300)
        assert out.returncode == 0, out.stderr
        assert max(len(line) for line in out.stdout.splitlines()) <= 80, out.stdout
        if args[0] == "proposals":
            assert pid in out.stdout  # the id the next command needs is whole


BLOCKS = {chr(c) for c in range(0x2580, 0x25A0)}  # block elements: scrollbar thumbs and bars


def screen_lines(app) -> list[str]:
    """The screen as the terminal shows it, one string per row (what tmux capture-pane would print)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def test_the_screen_at_80x24_shows_the_whole_footer_and_a_clean_list(g):
    """Issue 41: at 80x24 the footer was cut ("q qu") and the list pane showed a stray block glyph
    (its sideways scrollbar, with the columns after the title out of sight)."""
    _two_pending(g)

    async def drive():
        app = ReviewApp(g)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            return screen_lines(app), app.query_one("#queue").region.width, app.rows

    lines, pane, shown = asyncio.run(drive())
    assert len(lines) == 24 and all(len(line) == 80 for line in lines)
    footer = lines[-1]
    for key in ("a approve", "r reject", "v revert", "s resynth", "f filter", "q quit"):
        assert key in footer
    header, rows = lines[0][:pane], [line[:pane] for line in lines[1:-2]]
    assert header.split()[:2] == ["kind", "n"]  # the columns after the title no longer scroll out of sight
    assert [r.split()[:2] for r in rows if r.strip()] == [[p.kind[:5], str(len(p.member_ids))] for p in shown]
    assert len(shown) == 2
    assert not BLOCKS & set("".join(rows)), rows

"""Pictures with neo4j-viz: the page holds the provenance tree's memories, and (when Debian's
chromium is installed, as scripts/setup does) renders them in a real browser without errors."""

import shutil
import subprocess

import pytest
from synthesis_helpers import NOW, add_incidents

from graphcons import viz
from graphcons.core.errors import NotFound, ValidationError


@pytest.fixture
def insight(g):
    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    return g.approve(pid, now=NOW).insight_id


def test_provenance_picture_holds_the_insight_its_members_and_the_links(g, insight, tmp_path):
    vg, counts = viz.graph(g.db, "insight", insight)
    ids = {n.id for n in vg.nodes}
    assert ids == {insight, "inc-1", "inc-2", "inc-3", "inc-4"}
    kinds = {(r.source, r.target, r.properties["type"]) for r in vg.relationships}
    assert {(insight, f"inc-{i}", "SUMMARIZES") for i in range(1, 5)} <= kinds
    colours = {n.id: str(n.color) for n in vg.nodes}
    assert colours[insight] != colours["inc-1"]  # the insight stands out
    page = viz.write_html(vg, tmp_path / "p.html", f"insight {insight}")
    text = page.read_text()
    assert insight in text and "inc-4" in text and "<title>insight " in text


def test_bad_requests_name_the_problem(g, insight):
    with pytest.raises(ValidationError, match="what"):
        viz.graph(g.db, "galaxy", insight)
    with pytest.raises(ValidationError, match="depth"):
        viz.graph(g.db, "memory", insight, depth=9)
    with pytest.raises(NotFound):
        viz.graph(g.db, "memory", "m-nope")
    with pytest.raises(NotFound):
        viz.graph(g.db, "subject", "no-such-subject")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (scripts/setup installs it)")
def test_the_page_renders_nodes_in_a_real_browser(g, insight, tmp_path):
    vg, _ = viz.graph(g.db, "insight", insight)
    page = viz.write_html(vg, tmp_path / "p.html", "insight")
    # Headless chromium loads the page and prints the DOM after scripts ran.
    out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=8000",
                          "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "<canvas" in out.stdout  # the renderer drew its canvas
    errors = [ln for ln in out.stderr.splitlines() if "CONSOLE" in ln and ("Error" in ln or "error" in ln)]
    assert not errors, "\n".join(errors[:10])
    shot = tmp_path / "p.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=8000",
                    "--window-size=1000,700", f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=180)
    assert shot.is_file() and shot.stat().st_size > 5000

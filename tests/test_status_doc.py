"""docs/STATUS.md is one page a newcomer reads (issues 41, 46): what is built, what is not, the known
limits, each figure with the command and the result file behind it; current (every part the package
ships is on it); not a dated work log nor a bench log."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATUS = (ROOT / "docs" / "STATUS.md").read_text()


def test_status_has_the_sections_a_newcomer_needs():
    headings = re.findall(r"^## (.+)$", STATUS, re.M)
    assert [h.split(",")[0].split(" ")[0] for h in headings] == ["Built", "Not", "Known", "Where"], headings


def test_status_is_one_page_not_a_dated_work_log():
    # who worked when, and in which session, belongs to git log
    assert not re.search(r"\b(this|second|late|later|next|evening|afternoon|morning|first) session", STATUS, re.I)
    assert not re.search(r"^#.*\b20\d\d-\d\d-\d\d", STATUS, re.M)  # no dated title
    assert not re.search(r"\d{1,2}:\d{2}-\d{1,2}:\d{2} UTC", STATUS)  # working hours
    assert len(STATUS.splitlines()) < 70 and len(STATUS) < 12_000  # one page, not four screens


def test_status_is_current_every_shipped_part_is_on_it():
    for part in ("LangGraph", "LangChain", "/metrics", "tracing", "MCP", "battery", "context", "worker"):
        assert part in STATUS, part


def test_every_command_and_file_the_status_cites_exists():
    modules = set(re.findall(r"python -m (bench(?:\.\w+)+)", STATUS))
    results = set(re.findall(r"\b([\w-]+\.json)\b", STATUS))
    docs = set(re.findall(r"\b(?:docs/)?([A-Z][A-Z-]+\.md)\b", STATUS)) - {"README.md"}
    tests = set(re.findall(r"\b(tests/test_\w+\.py)\b", STATUS))
    assert modules and results and docs and tests
    assert [m for m in sorted(modules) if not (ROOT / (m.replace(".", "/") + ".py")).is_file()] == []
    saved = {p.name for p in (ROOT / "bench").glob("*/results/*.json")}  # beside their scripts
    assert [r for r in sorted(results) if r not in saved] == []
    assert [d for d in sorted(docs) if not (ROOT / "docs" / d).is_file()] == []
    assert [t for t in sorted(tests) if not (ROOT / t).is_file()] == []
    # every row of the "built" table names a figure and the command behind it
    rows = [line for line in STATUS.split("## Not built")[0].splitlines() if line.startswith("| ") and "---" not in line]
    for row in rows[1:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 4 and cells[2] and cells[3], row


def test_bench_commands_are_spelled_one_way_in_every_doc():
    """`python -m bench.<concern>.<script>` from the repository root (docs/BENCHMARKS.md), never a path."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    path_style = [f"{p.name}: {m}" for p in pages for m in re.findall(r"python3? bench/[\w/]+\.py", p.read_text())]
    assert path_style == []
    for p in pages:
        for m in re.findall(r"python -m (bench(?:\.\w+)+)", p.read_text()):
            assert (ROOT / (m.replace(".", "/") + ".py")).is_file(), f"{p.name}: {m}"

"""docs/STATUS.md is one page a newcomer reads (issue 41): what is built, what is not, the known
limits, each figure with the command and the result file behind it; not a dated work log."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATUS = (ROOT / "docs" / "STATUS.md").read_text()


def test_status_has_the_sections_a_newcomer_needs():
    headings = re.findall(r"^## (.+)$", STATUS, re.M)
    for wanted in ("Built", "Not built", "Known limits", "Retrieval and answers (issue 39)", "Grounding (issue 40)"):
        assert any(h.startswith(wanted) for h in headings), wanted


def test_status_is_not_a_dated_work_log():
    # who worked when, and in which session, belongs to git log
    assert not re.search(r"\b(this|second|late|later|next|evening|afternoon|morning|first) session", STATUS, re.I)
    assert not re.search(r"^#.*\b20\d\d-\d\d-\d\d", STATUS, re.M)  # no dated title
    assert not re.search(r"\d{1,2}:\d{2}-\d{1,2}:\d{2} UTC", STATUS)  # working hours
    assert len(STATUS.splitlines()) < 150


def test_every_command_and_file_the_status_cites_exists():
    scripts = set(re.findall(r"\bbench/[\w/]+\.py\b", STATUS))
    results = set(re.findall(r"\b([\w-]+\.json)\b", STATUS))
    docs = set(re.findall(r"\b(?:docs/)?([A-Z][A-Z-]+\.md)\b", STATUS)) - {"README.md"}
    assert scripts and results and docs
    assert [s for s in sorted(scripts) if not (ROOT / s).is_file()] == []
    assert [r for r in sorted(results) if not (ROOT / "bench" / "results" / r).is_file()] == []
    assert [d for d in sorted(docs) if not (ROOT / "docs" / d).is_file()] == []
    # every row of the "built" table names a figure and the command behind it
    rows = [line for line in STATUS.split("## Not built")[0].splitlines() if line.startswith("| ") and "---" not in line]
    for row in rows[1:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 4 and cells[2] and cells[3], row

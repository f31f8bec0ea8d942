"""An insight's text as a reader pastes it (issue 63), and as it is embedded.

consolidation/insight.render writes an insight for a reviewer: its concept, claims with their members'
ids, facts with theirs, tensions, gaps, the epistemic note. `reading` takes that text back apart: the facts,
one a line with its date, without ids or headings. It is here, in core, because a memory's embedded text
(core.memory.embedded_text) is its reading wherever the memory is embedded: approval, edit, import.
"""

from __future__ import annotations

import re
from typing import Any

_SECTIONS = {"Claims:": "claims", "Facts:": "facts", "Tensions:": "tensions", "Gaps and open questions:": "gaps",
             "Implications:": "implications"}


def reading(content: str) -> tuple[str, dict[str, Any]]:
    """An insight's text as a reader pastes it (issue 63: the shortest true thing): its facts, one a
    line with its date, without member ids or headings; and apart, what `render` adds for a reviewer
    (tensions, gaps, implications, the epistemic note). Text not in render's shape (an insight edited
    by hand) is its own reading, with nothing apart."""
    parts: dict[str, list[str]] = {}
    section, note = None, None
    for line in content.splitlines():
        if line.strip() in _SECTIONS:
            section = _SECTIONS[line.strip()]
        elif line.startswith("Epistemic status:"):
            note, section = line.strip(), None
        elif section and line.startswith("- "):
            parts.setdefault(section, []).append(line[2:].strip())
    if not parts.get("facts") and not parts.get("claims"):
        return content, {}
    facts = [re.sub(r"\s\[[^\]]*\]$", "", f) for f in parts.get("facts", [])] or \
            [re.sub(r"\s\([^()]*; members [^()]*\)$", "", c) for c in parts["claims"]]
    apart: dict[str, Any] = {k: v for k, v in parts.items() if k not in ("facts", "claims")}
    if note:
        apart["epistemic_note"] = note
    return "\n".join(facts), apart

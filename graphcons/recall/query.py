"""One recall query (issue 60): what `retrieve` and `context` are asked, checked once.

The facade builds it from its keyword arguments (HTTP, MCP, the CLI and the integrations call the
facade), so every rule lives here: a query with a visible character, k within bounds, a scope of
non-empty names, a known mode and insight mode, `as_of` as the last instant it covers
(`current.check_as_of`), `when` / `when_mode` as a window resolved against `as_of`, else the caller's
`now` (`eventwindow.window`). A bad value raises ValidationError naming its field, before anything is
read or written. The recall functions below it take the value and check nothing again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from graphcons.core.config import RetrievalConfig
from graphcons.core.errors import ValidationError
from graphcons.core.inputs import is_blank
from graphcons.recall import current, eventwindow
from graphcons.recall.hits import InsightMode, Mode

MAX_K = 1000  # the facade's bound; the HTTP service's `[service] max_k` may be lower


@dataclass(frozen=True)
class RecallQuery:
    text: str
    k: int
    namespace: str | None = None
    subject: str | None = None
    mode: Mode = Mode.HYBRID
    insights: InsightMode = InsightMode.DIGEST
    as_of: datetime | None = None
    window: eventwindow.Window | None = None
    record: bool = True
    session: str | None = None
    diverse: bool = True  # False: a page of the ranking as scored (a framework store's search: no MMR step)

    @classmethod
    def of(cls, rc: RetrievalConfig, text: Any, k: Any = 5, *, namespace: Any = None, subject: Any = None,
           mode: Any = None, insights: Any = None, as_of: Any = None, when: Any = None, when_mode: Any = None,
           now: datetime | None = None, record: bool = True, session: str | None = None,
           diverse: bool = True, field: str = "query") -> "RecallQuery":
        """The query checked; `field` names the text in an error ("text" for a keyword search);
        mode and insights default to `[retrieval]`'s."""
        if not isinstance(text, str) or is_blank(text):  # "\u200b" would be answered with arbitrary hits
            raise ValidationError(field, "must be a non-empty string with a visible character")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise ValidationError("k", f"must be an integer between 1 and {MAX_K}")
        for name, value in (("namespace", namespace), ("subject", subject)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValidationError(name, "must be a non-empty string or None")
        mode, insights = mode or rc.mode, insights or rc.insights
        if mode not in set(Mode):
            raise ValidationError("mode", f"must be one of {', '.join(Mode)}")
        if insights not in set(InsightMode):
            raise ValidationError("insights", f"must be one of {', '.join(InsightMode)}")
        as_of = current.check_as_of(as_of)
        window = eventwindow.window(when, when_mode, text, as_of or now)
        if not isinstance(diverse, bool):
            raise ValidationError("diverse", "must be true or false")
        return cls(text, k, namespace, subject, Mode(mode), InsightMode(insights), as_of, window, record, session,
                   diverse)

    def but(self, **changes: Any) -> "RecallQuery":
        """The same query with some fields set (context asks for its pool, ungrouped)."""
        return replace(self, **changes)

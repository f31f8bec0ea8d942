"""One recall query (issue 60): what `retrieve` and `context` are asked, checked once.

Two roads end in it: the transports (HTTP service, MCP server, CLI, the integrations' in-process
backend) build it with a recipe below and hand it to the facade; a Python caller passes the facade
keywords and the facade builds it with `of`. Every rule lives here: a query with a visible character,
k within bounds, a scope of non-empty names, a known mode and insight mode, `as_of` as the last
instant it covers (`current.check_as_of`), `now` (what the question's "last month" is counted from)
likewise, and the event-time window (`eventwindow.window`): `when` / `when_mode` as given, else the
query's own time phrases when `[retrieval] question_time` is on, resolved against `as_of`, else
`now`, else the clock. A bad value raises ValidationError naming its field, before anything is read
or written. The recall functions below it take the value and check nothing again.

Recipes (the combinations the transports use):
- `of`: retrieve as asked (an agent's recall: diversity on, insights as configured);
- `for_context`: what `context` reads, its pool (context then asks for it ungrouped);
- `page`: a framework store's search (LangGraph `search`): the best k as scored, no diversity
  step, nothing recorded;
- `keyword_search`: the facade's `search`, full-text only, ungrouped, the text named `text`.
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
POOL = 40  # hits context() reads to fill a budget: more than any 300-word context holds


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
           now: Any = None, record: bool = True, session: str | None = None,
           diverse: bool = True, field: str = "query") -> "RecallQuery":
        """The query checked; `field` names the text in an error ("text" for a keyword search);
        mode and insights default to `[retrieval]`'s; `now` (a date, an aware datetime or ISO-8601
        text; None: the clock) is what the query's own time phrases are counted from."""
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
        as_of, now = current.check_as_of(as_of), current.check_as_of(now, "now")
        window = eventwindow.window(when, when_mode, text, as_of or now, question=rc.question_time)
        if not isinstance(diverse, bool):
            raise ValidationError("diverse", "must be true or false")
        return cls(text, k, namespace, subject, Mode(mode), InsightMode(insights), as_of, window, record, session,
                   diverse)

    @classmethod
    def for_context(cls, rc: RetrievalConfig, text: Any, **kw: Any) -> "RecallQuery":
        """What `context` reads: its pool of hits (k = POOL); the same keywords as `of` but k."""
        return cls.of(rc, text, POOL, **kw)

    @classmethod
    def page(cls, rc: RetrievalConfig, text: Any, k: Any, **kw: Any) -> "RecallQuery":
        """A framework store's search (issue 63): its best k as scored, without the diversity step,
        recording nothing (a store's search is not an agent's use of what it shows)."""
        return cls.of(rc, text, k, record=False, diverse=False, **kw)

    @classmethod
    def keyword_search(cls, rc: RetrievalConfig, text: Any, k: Any, *, namespace: Any = None,
                       subject: Any = None) -> "RecallQuery":
        """The facade's `search`: full-text only, ungrouped, no time window, nothing recorded; any
        text is a query (an error names it `text`)."""
        return cls.of(rc, text, k, namespace=namespace, subject=subject, mode=Mode.KEYWORD,
                      insights=InsightMode.PLAIN, when="off", record=False, field="text")

    def but(self, **changes: Any) -> "RecallQuery":
        """The same query with some fields set (context asks for its pool, ungrouped)."""
        return replace(self, **changes)

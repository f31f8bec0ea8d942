"""`graphcons review`: the review queue as a terminal app (Textual), usable over SSH at 80x24.

A list of proposals on the left, the one under the cursor on the right: for a consolidation,
the insight's claims each followed by the members it cites (members nobody cites dimmed),
tensions, gaps and the labelled context; for a merge, the two texts as a word diff with the
score parts. Every key calls the same Graphcons verbs as `graphcons proposals ...` (no second
code path), so each action is validated and audited exactly as on the command line.
"""

from __future__ import annotations

import difflib
from typing import Any

from rich.markup import escape
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Label, Static

from graphcons.api import Graphcons
from graphcons.consolidation.insight import InsightPayload
from graphcons.core.errors import GraphconsError
from graphcons.core.text import printable
from graphcons.maintenance.merge.review import MergePayload
from graphcons.maintenance.updates.review import UpdatePayload
from graphcons.store.proposals import Proposal

STATUS_FILTERS = ("pending", "stale", "applied", "rejected", "reverted", None)  # None = every status


def word_diff(a: str, b: str) -> str:
    """Rich markup of b against a, word by word: removed words struck in red, added in green."""
    wa, wb = a.split(), b.split()
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=wa, b=wb, autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            out.append(f"[strike red]{escape(' '.join(wa[i1:i2]))}[/]")
        if op in ("insert", "replace"):
            out.append(f"[bold green]{escape(' '.join(wb[j1:j2]))}[/]")
        if op == "equal":
            out.append(escape(" ".join(wa[i1:i2])))
    return " ".join(out)


def _snippet(text: str, width: int = 160) -> str:
    text = printable(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def shown(value: Any) -> Any:
    """A proposal's or a memory's values as the pane may show them (issue 59): every string through
    `printable`, before any markup is built around it (a control sequence is never drawn, and what is
    left of it is escaped like the rest of the text)."""
    if isinstance(value, str):
        return printable(value, multiline=True)
    if isinstance(value, dict):
        return {k: shown(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [shown(v) for v in value]
    return value


def describe(g: Graphcons, p: Proposal[Any]) -> str:
    """The detail pane of one proposal, as Rich markup."""
    head = (f"[b]{escape(shown(p.title or p.id))}[/]\n[dim]{shown(p.id)} · {shown(p.kind)} · {p.status}"
            f" · {shown(p.namespace or '')}/{shown(p.subject or '')} · {str(p.created_at or '')[:10]}[/]\n")
    if isinstance(p.payload, MergePayload):
        return head + _merge(g, p.payload)
    if isinstance(p.payload, UpdatePayload):
        u = p.payload  # issue 51: both sentences, both dates, the attribute
        return head + (f"[b]{escape(shown(u.attribute))}[/]: {escape(shown(u.old_value))} -> {escape(shown(u.new_value))}\n"
                       f"[dim]older {shown(u.older)} · {shown(u.older_since or '')[:10]}[/]\n{escape(shown(u.older_sentence or ''))}\n"
                       f"[dim]newer {shown(u.newer)} · {shown(u.newer_since)[:10]}[/]\n{escape(shown(u.newer_sentence or ''))}")
    if isinstance(p.payload, InsightPayload) and p.payload.insight:
        return head + _consolidation(g, p, p.payload)
    return head + "\n".join(f"{k}: {escape(str(v))}" for k, v in sorted(shown(p.to_dict()).items()) if v is not None)


def _memory(g: Graphcons, mid: str) -> tuple[str, str]:
    try:
        m = g.get(mid)
    except GraphconsError:
        return mid, "(missing)"
    return shown(m.title), shown(m.content)


def _consolidation(g: Graphcons, p: Proposal[InsightPayload], payload: InsightPayload) -> str:
    ins, lines = payload.typed(), []
    lines.append(f"{escape(shown(ins.concept))}\n[dim]confidence {ins.confidence:.2f} · hypothesis[/]\n")
    cited: set[str] = set()
    for c in ins.claims:
        lines.append(f"[b]• {escape(shown(c.statement))}[/]")
        for mid in shown(c.member_ids):
            cited.add(mid)
            title, content = _memory(g, mid)
            lines.append(f"    [cyan]{mid}[/]: {escape(_snippet(content, 120))}")
    uncited = [m for m in shown(p.member_ids) if m not in cited]
    if uncited:
        lines.append("\n[dim]members shown but not cited:[/]")
        lines += [f"[dim]    {m} {escape(_snippet(_memory(g, m)[1], 100))}[/]" for m in uncited]
    for label, items in (("tensions", [t.description for t in ins.tensions]), ("gaps", ins.gaps)):
        if items:
            lines.append(f"\n[b]{label}[/]")
            lines += [f"  - {escape(shown(str(i)))}" for i in items]
    ctx = shown(payload.context_ids or [])
    if ctx:
        lines.append("\n[b yellow]context (conflicts / exceptions, never support)[/]")
        lines += [f"  [yellow]{m}[/] {escape(_snippet(_memory(g, m)[1], 100))}" for m in ctx]
    figures = shown(payload.gate_figures or {})
    if figures:
        lines.append("\n[dim]gate: " + ", ".join(f"{k} {v}" for k, v in sorted(figures.items())
                                                   if isinstance(v, (int, float))) + "[/]")
    return "\n".join(lines)


def _merge(g: Graphcons, pay: MergePayload) -> str:
    (_, a), (_, b) = _memory(g, pay.winner or ""), _memory(g, pay.loser or "")
    parts = (f"score {pay.score or 0:.3f} = {pay.title_weight}·JW {pay.title_sim or 0:.3f}"
             f" + {pay.content_weight}·cos {pay.cosine or 0:.3f}  (threshold {pay.threshold})")
    guard = ", ".join(shown(pay.contradictions or [])) or "none"
    return (f"{parts}\n[dim]guard: {guard} · rule {shown(pay.rule)}[/]\n\n"
            f"[b]keeps[/] {shown(pay.winner)}\n{escape(a)}\n\n[b]deprecates[/] {shown(pay.loser)} (diff against the kept text)\n"
            f"{word_diff(a, b)}")


class ReasonScreen(ModalScreen[str | None]):
    """Asks why (rejecting needs a reason); Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, prompt: str):
        super().__init__()
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        with Vertical(id="reason"):
            yield Label(self.prompt)
            yield Input(placeholder="reason", id="reason-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReviewApp(App[None]):
    """The review queue. Keys: a approve, r reject, v revert, s resynthesize, o open in Browser,
    u / w rate an applied proposal's insight useful / wrong, f cycle the status filter,
    n/p or arrows move, q quit."""

    # At 80x24 the footer has 80 columns: the bindings it shows fit only without the command
    # palette's "^p palette" (which cut "q quit" to "q qu"); the palette offers nothing these keys don't.
    ENABLE_COMMAND_PALETTE = False
    # The list pane clips the title column rather than scrolling sideways: a horizontal scrollbar
    # there was a stray block glyph under the rows, and it hid the columns after the title.
    CSS = """
    #queue { width: 38%; min-width: 30; overflow-x: hidden; }
    #detail-box { width: 1fr; border-left: solid $accent; padding: 0 1; }
    #status { height: 1; background: $boost; }
    #reason { padding: 1 2; width: 70; height: auto; border: round $accent; background: $panel; }
    ReasonScreen { align: center middle; }
    """
    BINDINGS = [
        Binding("a", "approve", "approve"), Binding("r", "reject", "reject"), Binding("v", "revert", "revert"),
        Binding("s", "resynthesize", "resynth"), Binding("o", "browser", "Browser"),
        Binding("u", "rate('useful')", "useful", show=False), Binding("w", "rate('wrong')", "wrong", show=False),
        Binding("f", "filter", "filter"), Binding("n", "move(1)", "next", show=False),
        Binding("p", "move(-1)", "prev", show=False), Binding("q", "quit", "quit"),
    ]

    def __init__(self, g: Graphcons, *, namespace: str | None = None, kind: str | None = None, by: str = "user"):
        super().__init__()
        self.g, self.namespace, self.kind, self.by = g, namespace, kind, by
        self.status_filter = 0
        self.rows: list[Proposal[Any]] = []

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="detail-box"):
                yield Static(id="detail")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("kind", "n", "title")  # the title last: it is the column the pane clips
        self.reload()

    # -- data ------------------------------------------------------------------------------
    @property
    def status(self) -> str | None:
        return STATUS_FILTERS[self.status_filter]

    def reload(self, keep: str | None = None) -> None:
        rows = self.g.proposal_records(status=self.status, kind=self.kind, limit=500)
        self.rows = [r for r in rows if self.namespace is None or r.namespace == self.namespace]
        table = self.query_one(DataTable)
        table.clear()
        for r in self.rows:
            table.add_row(r.kind[:5], str(len(r.member_ids)), _snippet(str(r.title or r.id), 40), key=r.id)
        if keep and any(r.id == keep for r in self.rows):
            table.move_cursor(row=[r.id for r in self.rows].index(keep))
        self.say(f"{len(self.rows)} proposal(s) · status {self.status or 'all'}"
                 + (f" · kind {self.kind}" if self.kind else "") + (f" · namespace {self.namespace}" if self.namespace else ""))
        self.show_current()

    def current(self) -> Proposal[Any] | None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row is None or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def show_current(self) -> None:
        p = self.current()
        detail = self.query_one("#detail", Static)
        detail.update(describe(self.g, self.g.proposal_record(p.id)) if p else "[dim]nothing to review[/]")

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self.show_current()

    def say(self, text: str) -> None:
        self.query_one("#status", Static).update(text)

    def _act(self, label: str, fn: Any) -> None:
        p = self.current()
        if p is None:
            return
        try:
            d = fn(p.id)
        except GraphconsError as exc:  # the same message the CLI prints, never a traceback
            self.say(f"[red]{escape(printable(str(exc)))}[/]")
            return
        changed = getattr(d, "changed", True)
        self.reload(keep=p.id)
        self.say(f"{label} {p.id}" + ("" if changed else " (nothing changed)"))

    # -- actions ---------------------------------------------------------------------------
    def action_move(self, step: int) -> None:
        table = self.query_one(DataTable)
        if self.rows:
            table.move_cursor(row=max(0, min(len(self.rows) - 1, table.cursor_row + step)))

    def action_approve(self) -> None:
        self._act("approved", lambda pid: self.g.approve(pid, by=self.by))

    def action_revert(self) -> None:
        self._act("reverted", lambda pid: self.g.revert(pid, "reverted in review", by=self.by))

    def action_resynthesize(self) -> None:
        self._act("re-synthesized", lambda pid: self.g.resynthesize(pid))

    def action_reject(self) -> None:
        p = self.current()
        if p is None:
            return

        def done(reason: str | None) -> None:
            if reason:
                self._act("rejected", lambda pid: self.g.reject(pid, reason, by=self.by))
            else:
                self.say("not rejected: a reason is needed")

        self.push_screen(ReasonScreen(f"Why reject {p.id}?"), done)

    def action_rate(self, verdict: str) -> None:
        p = self.current()
        if p is None or not p.insight_id:
            self.say("rate an applied consolidation's insight (press f to show applied proposals)")
            return
        self._act(f"rated {verdict}:", lambda pid: self.g.feedback(str(p.insight_id), verdict, by=self.by))

    def action_filter(self) -> None:
        self.status_filter = (self.status_filter + 1) % len(STATUS_FILTERS)
        self.reload()

    def action_browser(self) -> None:
        p = self.current()
        if p is None:
            return
        # the Browser takes the id as a parameter and the query from its file in cypher/
        query = "cypher/provenance/graph.cypher" if p.insight_id else "cypher/proposals/get.cypher"
        self.say(f":param id => '{p.insight_id or p.id}'  then paste {query} in the Neo4j Browser")

"""The Typer app and what every command shares: opening the store, output, exit codes.

Exit codes scripts can rely on: 0 success, 2 bad input, 3 not found, 4 bad config,
5 Neo4j/GDS unavailable, 6 embedder mismatch, 7 provider error, 8 conflict,
9 dangling provenance, 1 anything else.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Callable, Any, Iterator, Optional

import click
import typer
from typer.core import TyperGroup
from rich.console import Console
from rich.markup import escape

from graphcons.core.errors import GraphconsError
from graphcons.core.text import printable
from graphcons.core.time import parse_instant

# `graphcons --help` in the order a newcomer needs the commands (issue 41): the one table of
# help sections. Typer's rich_help_panel renders only with Rich markup on, which this app turns off
# (help text quotes "[service] host"), so the group below writes these sections with click's formatter.
HELP_SECTIONS: dict[str, tuple[str, ...]] = {
    "Getting started": ("init", "scenario", "add", "search", "context", "show", "config"),
    "Memories": ("import", "edit", "history", "link", "access", "feedback", "stats", "viz"),
    "Consolidation": ("clusters", "consolidate", "explain", "reflect", "profile", "cards", "precompute", "rules",
                      "except", "confirm", "justify", "status-in"),
    "Review": ("proposals", "review", "conflicts"),
    "Maintenance": ("health", "merge", "updates", "decay", "weights", "promote", "deprecate", "restore", "index",
                    "migrate", "benchmark"),
    "Service": ("serve", "tokens", "mcp", "worker", "jobs", "llm"),
}
_OTHER = "Other commands"  # a command missing from the table still shows (tests/test_cli_help.py fails on it)


class SectionedGroup(TyperGroup):
    """The root command: lists its subcommands by HELP_SECTIONS, in that order."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        known = [name for names in HELP_SECTIONS.values() for name in names if name in self.commands]
        return known + [name for name in self.commands if name not in known]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        commands = [(n, c) for n in self.list_commands(ctx) if (c := self.get_command(ctx, n)) and not c.hidden]
        if not commands:
            return
        width = max(len(n) for n, _ in commands)  # one name column for every section
        limit = formatter.width - 6 - width  # click's spacing
        placed = {n: section for section, names in HELP_SECTIONS.items() for n in names}
        for section in [*HELP_SECTIONS, _OTHER]:
            rows = [(n.ljust(width), c.get_short_help_str(limit)) for n, c in commands
                    if placed.get(n, _OTHER) == section]
            if rows:
                with formatter.section(section):
                    formatter.write_dl(rows)


app = typer.Typer(
    cls=SectionedGroup,
    help="graphcons: consolidates an AI agent's episodic memories in Neo4j into reviewed, "
    "cited insights, and keeps the store healthy without ever deleting a memory.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help text is plain text: "[service] host" must not be eaten as Rich markup
)


class Screen(Console):
    """A console that never writes a control sequence it did not make (issue 59): every string it
    renders, a table cell or a printed line, passes `printable` first, so a memory holding
    "\x1b[2J" or an OSC title cannot clear or retitle the operator's terminal. Rich's own styles are
    added after, and --json output escapes control characters itself."""

    def render_str(self, text: str, **kwargs: Any) -> Any:
        return super().render_str(printable(text, multiline=True), **kwargs)


console = Screen()
err_console = Screen(stderr=True)


def literal(value: Any) -> str:
    """A stored value (a memory's text, a subject, a statement) as a table cell or part of a printed
    line: printable, and its brackets text, not Rich markup ("[/]" in a memory crashed `show`,
    "[link=...]" drew a hyperlink)."""
    return escape(printable(str(value), multiline=True))


_state: dict[str, Any] = {"config": None}

JsonOpt = typer.Option(False, "--json", help="Print machine-readable JSON.")


@app.callback()
def _root(config: Optional[Path] = typer.Option(None, "--config", "-c", envvar="GRAPHCONS_CONFIG",
                                                help="Path of graphcons.toml.")) -> None:
    _state["config"] = config


@contextmanager
def open_store() -> Iterator[Any]:
    """Open the store for one command; graphcons errors become a message and an exit code."""
    from graphcons.api import Graphcons

    with errors_to_exit():
        with Graphcons(_state["config"]) as g:
            yield g


@contextmanager
def errors_to_exit() -> Iterator[None]:
    try:
        yield
    except GraphconsError as exc:
        # escaped: a message quoting `[consolidation]` or a pattern like '^[a-z]+$' is text, not Rich markup
        err_console.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False)
        raise typer.Exit(exc.exit_code) from None


def parse_now(value: Optional[str]) -> Optional[datetime]:
    """`--now`: an ISO-8601 date-time with its timezone; a bad one exits 2 naming the option."""
    with errors_to_exit():
        return parse_instant(value, "now")


def load_cfg():
    from graphcons.core.config import load_config

    with errors_to_exit():
        return load_config(_state["config"])


def answer(json_out: bool, call: Callable[[Any], Any]) -> Any:
    """One facade call on a store opened for it. With --json its result is printed and None comes
    back (nothing left to render); otherwise the result comes back to be rendered."""
    with open_store() as g:
        out = call(g)
    if json_out:
        emit_json(out)
        return None
    return out


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str, sort_keys=False) + "\n")

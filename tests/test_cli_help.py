"""`graphcons --help` as a newcomer reads it (issue 41): the commands in sections, in the order
they are needed, starting with init and add, and every command in one of them."""

import subprocess
import sys


def help_sections() -> list[tuple[str, list[str]]]:
    out = subprocess.run([sys.executable, "-m", "graphcons", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    sections: list[tuple[str, list[str]]] = []
    for line in out.stdout.splitlines():
        if line and not line.startswith(" ") and line.endswith(":") and not line.startswith(("Usage", "Options")):
            sections.append((line[:-1], []))
        elif sections and line.startswith("  ") and line.split():
            sections[-1][1].append(line.split()[0])
    return sections


def test_help_groups_the_commands_in_the_order_a_newcomer_needs_them():
    sections = help_sections()
    assert [name for name, _ in sections] == ["Getting started", "Memories", "Consolidation", "Review",
                                              "Maintenance", "Service"]  # no "Other commands": all are placed
    order = [cmd for _, cmds in sections for cmd in cmds]
    assert order[:3] == ["init", "scenario", "add"]
    # the commands the issue found first now come after the ones a newcomer starts with
    for late in ("except", "confirm", "justify", "status-in", "worker"):
        assert order.index(late) > order.index("add") > order.index("init")
    assert dict(sections)["Getting started"][:4] == ["init", "scenario", "add", "search"]
    assert "worker" in dict(sections)["Service"] and "except" in dict(sections)["Consolidation"]


def test_every_command_is_listed_once_in_help():
    import typer

    from graphcons.cli import app

    root = typer.main.get_command(app)
    listed = [cmd for _, cmds in help_sections() for cmd in cmds]
    assert sorted(listed) == sorted(root.commands) and len(listed) == len(set(listed))

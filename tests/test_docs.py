"""The reference pages stay true to the code (issue 32): docs/CLI.md and docs/HTTP-REFERENCE.md are
generated from the Typer app and the OpenAPI schema, and every local link and picture in docs/ exists."""

import importlib.util
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _gendocs():
    spec = importlib.util.spec_from_file_location("gendocs", REPO / "scripts" / "gendocs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_reference_pages_are_current():
    stale = _gendocs().stale()
    assert not stale, f"stale: {[str(p.relative_to(REPO)) for p in stale]}; run .venv/bin/python scripts/gendocs.py"


def test_cli_reference_lists_every_command():
    import typer

    from graphcons.cli import app

    root = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="graphcons")
    text = (REPO / "docs" / "CLI.md").read_text()
    for name in root.list_commands(ctx):
        assert f"## graphcons {name}\n" in text, name
    assert "(default [service] host, 127.0.0.1)" in " ".join(text.split())  # help text is not Rich markup


def test_http_reference_lists_every_route():
    from graphcons.core.config import Config
    from graphcons.service import create_app

    text = (REPO / "docs" / "HTTP-REFERENCE.md").read_text()
    for path, item in create_app(Config()).openapi()["paths"].items():
        for method in item:
            assert f"## {method.upper()} {path}\n" in text, (method, path)


def test_every_local_link_in_docs_exists():
    for page in sorted((REPO / "docs").glob("*.md")):
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if link.startswith(("http://", "https://", "mailto:")):
                continue
            assert (page.parent / link).exists(), f"{page.name}: {link}"

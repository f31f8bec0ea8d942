"""The graphcons command line (Typer + rich). Each area registers its commands on `app`."""

from .app import app
from . import memory  # noqa: F401  (registers the foundation commands)


def main() -> None:
    app()


__all__ = ["app", "main"]

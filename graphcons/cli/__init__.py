"""The graphcons command line (Typer + rich). Each area registers its commands on `app`."""

from graphcons.cli.app import app
from graphcons.cli import memory  # noqa: F401  (registers the foundation commands)
from graphcons.cli import maintenance  # noqa: F401  (issue 5: merge, promote, deprecate, decay, weights, health, restore)
from graphcons.cli import clusters  # noqa: F401  (issue 3: clusters, scenario)
from graphcons.cli import synthesis  # noqa: F401  (issue 4: consolidate, proposals, explain, precompute, benchmark)
from graphcons.cli import migrate  # noqa: F401  (issue 9/12: migrate similar)


def main() -> None:
    app()


__all__ = ["app", "main"]

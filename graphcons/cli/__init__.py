"""The graphcons command line (Typer + rich). Each area registers its commands on `app`."""

from .app import app
from . import memory  # noqa: F401  (registers the foundation commands)
from . import maintenance  # noqa: F401  (issue 5: merge, promote, deprecate, decay, weights, health, restore)
from . import clusters  # noqa: F401  (issue 3: clusters, scenario)
from . import synthesis  # noqa: F401  (issue 4: consolidate, proposals, explain, precompute, benchmark)


def main() -> None:
    app()


__all__ = ["app", "main"]

"""The graphcons command line (Typer + rich). Each area registers its commands on `app`."""

from graphcons.cli import (
    clusters,  # noqa: F401  (issue 3: clusters, scenario)
    jobs,  # noqa: F401  (issue 10: worker, jobs list, jobs run)
    maintenance,  # noqa: F401  (issue 5: merge, promote, deprecate, decay, weights, health, restore)
    memory,  # noqa: F401  (registers the foundation commands)
    review,  # noqa: F401  (the one review queue: proposals ...)
    synthesis,  # noqa: F401  (consolidate, explain, precompute, benchmark)
)
from graphcons.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]

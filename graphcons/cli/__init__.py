"""The graphcons command line (Typer + rich). Each area registers its commands on `app`."""

from graphcons.cli import (
    clusters,  # noqa: F401  (issue 3: clusters, scenario)
    maintenance,  # noqa: F401  (issue 5: merge, promote, deprecate, decay, weights, health, restore)
    memory,  # noqa: F401  (registers the foundation commands)
    reflection,  # noqa: F401  (issue 14: reflect, profile, scenario entity-reflection)
    review,  # noqa: F401  (the one review queue: proposals ...)
    synthesis,  # noqa: F401  (consolidate, explain, precompute, benchmark)
)
from graphcons.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]

"""The graphcons command line (Typer + rich). Each area registers its commands on `app`."""

from graphcons.cli import (
    clusters,  # noqa: F401  (issue 3: clusters, scenario)
    epistemics,  # noqa: F401  (issue 13: except, confirm, justify, status-in, rules, travel scenario)
    jobs,  # noqa: F401  (issue 10: worker, jobs list, jobs run)
    llm,  # noqa: F401  (issue 31: llm check)
    maintenance,  # noqa: F401  (issue 5: merge, promote, deprecate, decay, weights, health, restore)
    mcp,  # noqa: F401  (issue 32: the MCP server)
    memory,  # noqa: F401  (registers the foundation commands)
    migrate,  # noqa: F401  (migrate similar)
    reflection,  # noqa: F401  (issue 14: reflect, profile, scenario entity-reflection)
    review,  # noqa: F401  (the one review queue: proposals ...)
    service,  # noqa: F401  (issue 16: serve, tokens)
    synthesis,  # noqa: F401  (consolidate, explain, precompute, benchmark)
)
from graphcons.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]

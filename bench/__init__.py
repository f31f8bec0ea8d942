"""Benchmarks, in folders by concern (store, clusters, merge, retrieval, llm, service, jobs), each
saving its JSON beside itself in `bench/<concern>/results/`. Run one from the repository root:
`python -m bench.<concern>.<script> --help`. Their own Cypher, used by no product code, lives in
bench/cypher/ and is loaded with `query(name)`."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CYPHER = Path(__file__).resolve().parent / "cypher"


def query(name: str) -> str:
    return (CYPHER / f"{name}.cypher").read_text()


PRIVATE = ("--uri", "--password")  # a saved result is shared: never the server's address or secret


def command(module: str, argv: list[str] | None = None) -> str:
    """The command a result was made with, to save beside it: `python -m module` and its arguments
    (sys.argv's by default) without the values of --uri and --password, in either spelling."""
    args = sys.argv[1:] if argv is None else argv
    kept = [a for n, a in enumerate(args)
            if a not in PRIVATE and not a.startswith(tuple(f"{p}=" for p in PRIVATE))
            and (n == 0 or args[n - 1] not in PRIVATE)]
    return " ".join([f"python -m {module}", *kept])

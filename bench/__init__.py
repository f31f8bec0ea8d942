"""Benchmarks (run as scripts: `python bench/<name>.py --help`). Their own Cypher, used by no
product code, lives in bench/cypher/ and is loaded with `query(name)`."""

from pathlib import Path

CYPHER = Path(__file__).resolve().parent / "cypher"


def query(name: str) -> str:
    return (CYPHER / f"{name}.cypher").read_text()

"""Benchmarks, in folders by concern (store, clusters, merge, retrieval, llm, service, jobs), each
saving its JSON beside itself in `bench/<concern>/results/`. Run one from the repository root:
`python -m bench.<concern>.<script> --help`. Their own Cypher, used by no product code, lives in
bench/cypher/ and is loaded with `query(name)`."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CYPHER = Path(__file__).resolve().parent / "cypher"


def query(name: str) -> str:
    return (CYPHER / f"{name}.cypher").read_text()

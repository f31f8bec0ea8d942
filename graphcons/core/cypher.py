"""Named Cypher queries loaded from the repository's cypher/ folder.

One query per file: `query("memory/create")` reads cypher/memory/create.cypher.
Queries are always run with parameters; user data is never formatted into them.
Set $GRAPHCONS_CYPHER_DIR to read them from elsewhere (e.g. a non-editable install).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

CYPHER_DIR = Path(os.environ.get("GRAPHCONS_CYPHER_DIR", Path(__file__).resolve().parents[2] / "cypher"))


@lru_cache(maxsize=None)
def query(name: str) -> str:
    path = CYPHER_DIR / f"{name}.cypher"
    if not path.is_file():
        raise FileNotFoundError(f"no Cypher query named {name!r} (looked for {path})")
    return path.read_text()


def statements(name: str) -> list[str]:
    """The `;`-separated statements of one file (schema files hold several)."""
    lines = [ln for ln in query(name).splitlines() if not ln.strip().startswith("//")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def names(folder: str) -> list[str]:
    """Every query in a folder, sorted, as names usable with query()."""
    return sorted(f"{folder}/{p.stem}" for p in (CYPHER_DIR / folder).glob("*.cypher"))

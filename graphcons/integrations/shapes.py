"""Value shapes of the LangGraph store (issue 49): which field of an item's value is its text, and
how a memory graphcons made (an insight, a semantic memory, a profile) is put back into the shape
its namespace was written with, so a node reading `item.value["data"]` reads an insight too.

A text path is a dotted path of dict keys ("data", "content.content" for LangMem) or "$" (the
whole value as JSON, LangGraph's default when no field says which is the text). LangGraph's
`index={"fields": [...]}` names the paths; without it `{"data": x}`, `{"text": x}`,
`{"content": x}`, `{"memory": x}` and LangMem's `{"kind": "Memory", "content": {"content": x}}`
read as their text. What graphcons adds about a memory (kind, provenance) is under RESERVED.
"""

from __future__ import annotations

import json
import math
from typing import Any

from langgraph.store.base.embed import get_text_at_path

RESERVED = "_graphcons"  # the reserved value key: what graphcons adds about a memory it made
WHOLE = "$"
TEXT_KEYS = ("data", "text", "content", "memory")
LANGMEM = "content.content"


def detected_path(value: dict[str, Any]) -> str:
    """The text path of a value written without index fields."""
    for k in TEXT_KEYS:
        v = value.get(k)
        if isinstance(v, str) and v.strip():
            return k
        if isinstance(v, dict) and isinstance(v.get("content"), str) and v["content"].strip():
            return f"{k}.content"  # LangMem: {"kind": "Memory", "content": {"content": "..."}}
    return WHOLE


def text_at(value: dict[str, Any], fields: list[str] | None) -> tuple[str, str, bool]:
    """(text, path, indexed) of a value: the named fields' text joined (LangGraph's path syntax),
    or the detected field; with no text in the named fields, the value's JSON, not indexed (as
    LangGraph leaves such an item without a vector)."""
    if fields is None:
        path = detected_path(value)
        return (whole(value) if path == WHOLE else _at(value, path)), path, True
    texts = [t for f in fields for t in (
        [whole(value)] if f == WHOLE else get_text_at_path(value, f)) if isinstance(t, str) and t.strip()]
    if not texts:
        return whole(value), WHOLE, False
    return "\n".join(texts), fields[0], True


def whole(value: dict[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _at(value: Any, path: str) -> str:
    for part in path.split("."):
        value = value[part]
    return value


def placed(path: str | None, text: str) -> dict[str, Any]:
    """A value in the shape `path` describes, holding `text` (a path that is not plain dict keys,
    or the whole value, gives {"text": ...})."""
    if not path or path == WHOLE or not all(p.isidentifier() for p in path.split(".")):
        return {"text": text}
    value: Any = text
    for part in reversed(path.split(".")):
        value = {part: value}
    if path == LANGMEM:
        value["kind"] = "Memory"
    return value


def written_text(value: dict[str, Any], path: str | None) -> str:
    """The text of a value written to a memory graphcons made: at the namespace's path or the
    detected one. Any other field is refused: such a memory holds text only (nothing would keep it)."""
    value = {k: v for k, v in value.items() if k != RESERVED}
    found = path if path and path != WHOLE and _has(value, path) else detected_path(value)
    if found == WHOLE:
        raise ValueError("a memory graphcons made (an insight, a profile) holds text only: put its text under "
                         f"{', '.join(repr(k) for k in TEXT_KEYS)} or the namespace's index field")
    extra = sorted(set(value) - {found.split(".")[0]} - ({"kind"} if found == LANGMEM else set()))
    if extra:
        raise ValueError(f"a memory graphcons made holds text only; field {extra[0]!r} would not be kept")
    return _at(value, found)


def _has(value: dict[str, Any], path: str) -> bool:
    try:
        return isinstance(_at(value, path), str)
    except (KeyError, TypeError):
        return False


def index_fields(index: Any, name: str | None, dims: int | None, probe: Any = None) -> list[str] | None:
    """LangGraph's `index` config as the fields that hold the text (None: detect them). graphcons
    embeds with its own embedder ([embedding]): `dims` or `embed` naming another one is refused."""
    if index is None:
        return None
    if not isinstance(index, dict):
        raise ValueError("index must be LangGraph's IndexConfig dict: {'fields': [...]} (optionally 'dims', 'embed')")
    if "dims" in index and index["dims"] != dims:
        raise ValueError(f"index dims {index['dims']!r} differ from graphcons' embedder ({name}, {dims} dimensions); "
                         "graphcons embeds with its [embedding] embedder: leave dims out or match it")
    if index.get("embed") is not None and not _same_embedder(index["embed"], name, probe):
        raise ValueError(f"index embed differs from graphcons' embedder ({name}); graphcons embeds every memory "
                         "with its [embedding] embedder: leave embed out, or configure [embedding] instead")
    fields = index.get("fields")
    if fields is None:
        return None
    if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields):
        raise ValueError("index fields must be a list of paths, e.g. ['data'] or ['content.content']")
    return list(fields)


def _same_embedder(embed: Any, name: str | None, probe: Any) -> bool:
    """A provider string naming graphcons' model, or embeddings giving graphcons' vector for a probe text."""
    if isinstance(embed, str):
        return name is not None and embed.split(":", 1)[-1] in (name, name.split("/")[-1])
    if probe is None:
        return False
    text = "graphcons embedder probe"
    fn = getattr(embed, "embed_documents", embed)
    try:
        theirs = list(fn([text])[0])
    except Exception:  # an async-only embedder or one that fails: not provably the same
        return False
    ours = probe(text)
    if len(theirs) != len(ours):
        return False
    dot = sum(a * b for a, b in zip(theirs, ours))
    norm = math.sqrt(sum(a * a for a in theirs) * sum(b * b for b in ours)) or 1.0
    return dot / norm > 0.999

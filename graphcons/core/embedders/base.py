"""The embedder interface: text in, L2-normalised float vectors out."""

from __future__ import annotations

from abc import ABC, abstractmethod


class Embedder(ABC):
    #: Recorded in the store; a different name or dimension on an existing store is refused.
    name: str
    dimensions: int

    @abstractmethod
    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text, in order."""

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

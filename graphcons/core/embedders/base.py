"""The embedder interface: text in, L2-normalised float vectors out."""

from __future__ import annotations

from abc import ABC, abstractmethod


class Embedder(ABC):
    #: Recorded in the store; a different name or dimension on an existing store is refused.
    name: str
    dimensions: int
    # The cosine floor for a SIMILAR edge that fits each model (cosines are not comparable
    # across models) is in graphcons.core.floors, read by config without loading the model.

    @abstractmethod
    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text, in order."""

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

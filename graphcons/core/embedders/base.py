"""The embedder interface: text in, L2-normalised float vectors out."""

from __future__ import annotations

from abc import ABC, abstractmethod


class Embedder(ABC):
    #: Recorded in the store; a different name or dimension on an existing store is refused.
    name: str
    dimensions: int
    #: The cosine floor for a SIMILAR edge that fits this model (None: not calibrated), and how
    #: it was calibrated. Cosines are not comparable across models, so the floor belongs here.
    sim_floor: float | None = None
    sim_floor_calibration: str = ""

    @abstractmethod
    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text, in order."""

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

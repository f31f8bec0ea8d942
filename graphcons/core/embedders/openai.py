"""Any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, llama.cpp server).

Base URL and key come from [embedding] or $OPENAI_BASE_URL / $OPENAI_API_KEY; the model
and its dimension from [embedding] (the dimension sizes the vector index, so it is required).
"""

from __future__ import annotations

import math

from graphcons.core.config import EmbeddingConfig
from graphcons.core.embedders.base import Embedder
from graphcons.core.errors import ConfigError, ProviderError


class OpenAIEmbedder(Embedder):
    def __init__(self, cfg: EmbeddingConfig):
        if not cfg.dimensions:
            raise ConfigError("embedding.dimensions: required for the openai provider (it sizes the vector index)")
        import openai

        self.client = openai.OpenAI(base_url=cfg.base_url, api_key=cfg.api_key or None, timeout=cfg.timeout_s)
        self.model = cfg.model
        self.name = f"openai:{cfg.model}"
        self.dimensions = cfg.dimensions
        self.batch_size = cfg.batch_size

    def embed(self, texts: list[str]) -> list[list[float]]:
        import openai

        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start : start + self.batch_size]
            try:
                resp = self.client.embeddings.create(model=self.model, input=chunk)
            except openai.OpenAIError as exc:
                raise ProviderError(f"embedding request to model {self.model!r} failed: {exc}") from exc
            for item in sorted(resp.data, key=lambda d: d.index):
                vec = list(item.embedding)
                if len(vec) != self.dimensions:
                    raise ProviderError(
                        f"model {self.model!r} returned {len(vec)} dimensions; embedding.dimensions says {self.dimensions}"
                    )
                norm = math.sqrt(sum(x * x for x in vec)) or 1.0
                out.append([x / norm for x in vec])
        return out

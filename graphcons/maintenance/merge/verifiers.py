"""The verifier of a merge pass, chosen by `[merge] verifier` (see merge/verify.py for the interface)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from graphcons.core.config import Config, MergeConfig
from graphcons.core.errors import ConfigError
from graphcons.maintenance.merge.verify import RulesVerifier, Verifier
from graphcons.maintenance.merge.verify_llm import LLMVerifier
from graphcons.maintenance.merge.verify_onnx import OnnxVerifier

NAMES = ("rules", "llm", "onnx")


def for_run(cfg: Config, *, db: Any = None, now: datetime | None = None, run_id: str | None = None,
            dry_run: bool = True) -> Verifier:
    """The verifier `[merge] verifier` names, for one merge pass (the llm one counts its budget per pass)."""
    name = cfg.merge.verifier
    if name == "llm":
        return LLMVerifier(cfg, db=db, now=now, run_id=run_id, dry_run=dry_run)
    return default(cfg.merge)


def default(cfg: MergeConfig) -> Verifier:
    """The verifier of a pair scored outside a merge pass (no budget to count: not the llm one)."""
    if cfg.verifier == "onnx":
        return _onnx(cfg.onnx_model, cfg.onnx_tokenizer, tuple(cfg.onnx_labels), cfg.onnx_max_tokens)
    if cfg.verifier == "llm":
        raise ConfigError("merge.verifier: 'llm' counts a budget per merge pass; score pairs through the merge job "
                          "(or merge.verifiers.for_run(config, db=...))")
    return RulesVerifier()


@lru_cache(maxsize=4)
def _onnx(model: str | None, tokenizer: str | None, labels: tuple[str, ...], max_tokens: int) -> Verifier:
    return OnnxVerifier(model, tokenizer, list(labels), max_tokens)  # one loaded session per model, not one per pair

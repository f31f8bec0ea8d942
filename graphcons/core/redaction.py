"""Redaction: secrets in memory text are replaced by typed placeholders before any model sees it.

Memory text is the user's data and is stored as written; what leaves graphcons for an LLM
(synthesis prompts, reflection, any later prompt) passes through `redact` first. Detection
reuses detect-secrets' maintained regex plugins (AWS, GitHub, GitLab, Slack, Stripe, OpenAI,
JWT, password-in-URL, ...) plus a few patterns of our own that those plugins match only in
part or not at all (a whole PEM block, the password of a URL, current OpenAI keys, bearer
tokens, `password=...` assignments), e-mail addresses
(optional) and the configured `[redaction] patterns`. Each secret becomes
`[REDACTED:<type>]`; the counts per type go to the audit record of the operation.
"""

from __future__ import annotations

import logging
import re
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator
from functools import lru_cache

from graphcons.core.config import RedactionConfig

# Ours first: they cover whole secrets that a plugin would only cut a piece of.
_OWN = (
    ("private_key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
                               r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)")),
    ("password_in_url", re.compile(r"://[^:/?#\[\]@\s]+:([^:/?#\[\]@\s]+)@")),
    ("github_token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}")),  # fine-grained tokens
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{12,}=*)")),
    ("password", re.compile(r"(?i)\b(?:password|passwd|pwd|passphrase|secret|api[_-]?key|access[_-]?token)"
                            r"\b[\"']?\s*[:=]\s*[\"']?([^\s\"',;]{4,})")),
)
EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_NOT_SECRETS = {"Public IP (ipv4)"}  # detect-secrets flags public IPs; they are not credentials


@contextmanager
def _host_logging_kept() -> Iterator[None]:
    """Undo what importing detect-secrets does to the process: its logger module calls
    `logging.captureWarnings(True)`, which would route every warning of the host application
    to logging (issue 31). The warning hook and the root logger are put back as they were."""
    show, root = warnings.showwarning, logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        if warnings.showwarning is not show:
            logging.captureWarnings(False)  # restores the hook captureWarnings(True) replaced
            warnings.showwarning = show
        root.handlers[:] = handlers
        root.setLevel(level)


@lru_cache(maxsize=1)
def _plugin_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(type, pattern) of every regex-based detect-secrets plugin, in a stable order."""
    with _host_logging_kept():  # the plugins are imported on first use, inside too
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.plugins.base import RegexBasedDetector

        out = []
        for secret_type, cls in sorted(get_mapping_from_secret_type_to_class().items()):
            if secret_type in _NOT_SECRETS or not issubclass(cls, RegexBasedDetector):
                continue
            label = re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")
            out += [(label, p) for p in cls().denylist]
    return tuple(out)


@dataclass
class Redacted:
    """The redacted text and how many secrets of each type were replaced."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def patterns(cfg: RedactionConfig) -> list[tuple[str, re.Pattern[str], bool]]:
    """(type, pattern, only_group_1): our patterns with a group replace just the secret in it;
    a plugin's groups mean other things (a token's prefix), so its whole match goes."""
    found = [(label, p, bool(p.groups)) for label, p in _OWN]
    found += [(label, p, False) for label, p in _plugin_patterns()]
    if cfg.emails:
        found.append(("email", EMAIL, False))
    found += [("custom", re.compile(p), False) for p in cfg.patterns]
    return found


def redact(text: str, cfg: RedactionConfig | None = None) -> Redacted:
    """`text` with each secret replaced by `[REDACTED:<type>]` (only the secret where the pattern
    marks it: `postgres://admin:[REDACTED:password_in_url]@db`)."""
    cfg = cfg or RedactionConfig()
    if not cfg.enabled or not text:
        return Redacted(text)
    counts: dict[str, int] = {}
    for label, pattern, only_group in patterns(cfg):
        def swap(m: re.Match[str], label: str = label, only_group: bool = only_group) -> str:
            group = 1 if only_group and m.group(1) else 0
            if m.group(group).startswith("[REDACTED:"):
                return m.group(0)  # already replaced by an earlier pattern
            counts[label] = counts.get(label, 0) + 1
            start, end = m.span(group)
            whole = m.group(0)
            return whole[: start - m.start()] + f"[REDACTED:{label}]" + whole[end - m.start():]
        text = pattern.sub(swap, text)
    return Redacted(text, counts)

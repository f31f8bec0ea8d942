"""A pass's report (issue 60): one typed record per pass whose `to_dict` is the one wire shape HTTP, MCP,
the CLI and the jobs table show, and whose `counts` is what the run record keeps."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar


def _wire(item: Any) -> Any:
    """A list item as it goes on the wire: a typed item by its own shape (a pair's `as_dict`, a summary's
    `to_dict`), a plain value as it is."""
    for shape in ("as_dict", "to_dict"):
        if hasattr(item, shape):
            return getattr(item, shape)()
    return item


@dataclass(frozen=True)
class PassReport:
    """The base of a pass's frozen report: what every pass says about its run (its id, whether it wrote,
    its decision time, the namespace / subject it was limited to); `job` names the pass (the wire's
    first key)."""

    run_id: str
    dry_run: bool
    now: str
    namespace: str | None
    subject: str | None
    job: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"job": self.job}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = [_wire(x) for x in v] if isinstance(v, list) else v
        return out

    def counts(self) -> dict[str, Any]:
        """The run record's figures: each list by its length."""
        return {k: (len(v) if isinstance(v, list) else v) for k, v in self.to_dict().items()}

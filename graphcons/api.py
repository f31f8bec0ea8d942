"""The Python API: one object whose verbs follow the seeds' concepts.

    from graphcons import Graphcons
    with Graphcons() as g:            # reads graphcons.toml and the environment
        g.init()
        a = g.add({"content": "Deploy 4.2 caused 503s on checkout", "subject": "checkout"})
        hits = g.retrieve("503 after deploy", k=5)

Data flows one way: admission -> signals -> communities -> gate -> synthesis ->
proposal -> apply. Each verb delegates to the one module that owns its concept.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphcons.store import admission
from graphcons.core import audit
from graphcons.store import coaccess
from graphcons.store import history
from graphcons.store import retrieval
from graphcons.store import schema as store
from graphcons.core.config import Config, load_config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder, embedder_identity, make_embedder
from graphcons.core.errors import ValidationError
from graphcons.core.memory import LinkInput, Memory, utcnow

if TYPE_CHECKING:  # issue 3: clusters, gate, scan
    from graphcons.consolidation.cluster import Cluster
    from graphcons.consolidation.gate import GateDecision
    from graphcons.consolidation.scan import ScanReport


class Graphcons:
    def __init__(self, config: Config | str | Path | None = None, *, embedder: Embedder | None = None):
        self.config = config if isinstance(config, Config) else load_config(config)
        self.db = Database(self.config.neo4j)
        self._embedder = embedder
        self._checked = False

    # -- lifecycle -------------------------------------------------------------------
    def __enter__(self) -> "Graphcons":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @property
    def embedder(self) -> Embedder:
        """Loaded on first use, after checking that the store was built with it."""
        if self._embedder is None:
            self._check_store()
            self._embedder = make_embedder(self.config.embedding)
        return self._embedder

    def _check_store(self) -> None:
        if not self._checked:
            name, dims = self._identity()
            store.check_embedder(store.identity(self.db), name, dims)
            self._checked = True

    def _identity(self) -> tuple[str, int]:
        if self._embedder is not None:
            return self._embedder.name, self._embedder.dimensions
        return embedder_identity(self.config.embedding)

    def init(self) -> dict[str, Any]:
        """Apply the schema (idempotent) and record the embedder; checks GDS is there."""
        gds = self.db.gds_version()
        name, dims = self._identity()
        out = store.init(self.db, name, dims)
        self._checked = True
        return {**out, "gds_version": gds}

    # -- admission and usage -----------------------------------------------------------
    def add(self, memory: dict[str, Any] | Any, **fields: Any) -> admission.Admission:
        """Admit one memory (a dict or keyword fields); see MemoryInput for the fields."""
        data = dict(memory) if isinstance(memory, dict) else ({"content": memory} if isinstance(memory, str) else memory)
        if isinstance(data, dict):
            data.update(fields)
        self._check_store()
        return admission.admit(self.db, self.config, self.embedder, data)

    def link(self, source_id: str, target_id: str, kind: str = "related", *, by: str = "user") -> int:
        """Add an explicit LINKED edge between two existing memories."""
        history.get(self.db, source_id)
        try:
            ln = LinkInput(target=target_id, kind=kind)
        except Exception as exc:  # pydantic's message names the field
            raise ValidationError("kind", str(exc).splitlines()[-1]) from None
        admission.validate_links(self.db, _Links([ln]))
        with self.db.transaction() as tx:
            n = tx.run("memory/link", id=source_id, links=[ln.model_dump()], now=utcnow(), source=by)[0]["linked"]
            audit.record(tx, "link", [source_id, target_id], kind=kind, by=by)
        return n

    def access(self, session: str, ids: list[str]) -> dict[str, Any]:
        """Record that these memories were used together in a session."""
        return coaccess.record_access(self.db, self.config, session, ids)

    def retrieve(self, query: str, k: int = 5, *, namespace: str | None = None, subject: str | None = None,
                 session: str | None = None, record: bool = True, mode: str | None = None,
                 insights: str | None = None) -> list[dict[str, Any]]:
        """Ranked memories in the scope (mode hybrid|vector|keyword, insights group|plain;
        defaults from [retrieval]); their use is recorded as co-access."""
        return retrieval.retrieve(self.db, self.config, self.embedder, query, k, namespace=namespace,
                                  subject=subject, session=session, record=record, mode=mode, insights=insights)

    def search(self, text: str, k: int = 10, *, namespace: str | None = None,
               subject: str | None = None) -> list[dict[str, Any]]:
        """Plain keyword search (full-text index, any text is a valid query); records nothing."""
        return retrieval.search_text(self.db, text, k, namespace=namespace, subject=subject)

    def migrate_similar(self, *, batch_size: int = 200, limit: int | None = None,
                        progress: Any = None) -> dict[str, Any]:
        """Rebuild SIMILAR per subject for a store admitted before issue 12 (resumable, audited)."""
        from graphcons.store import migrations

        self.init()  # the schema gains the (namespace, subject) index the rebuild reads
        return migrations.rebuild_similar(self.db, self.config, batch_size=batch_size, limit=limit, progress=progress)

    # -- clusters (issue 3) -------------------------------------------------------------
    def clusters(self, *, namespace: str | None = None, algorithm: str | None = None) -> list["Cluster"]:
        """Communities of the fused graph (>= 2 members, canonical keys); writes nothing."""
        from graphcons.consolidation.scan import detect

        return detect(self.db, self.config.consolidation, namespace=namespace, algorithm=algorithm)[1]

    def gate(self, clusters: list["Cluster"]) -> list["GateDecision"]:
        """The value gate's decision (accepted or not, reasons, figures) on each cluster."""
        from graphcons.consolidation.gate import gate

        return gate(self.db, self.config.consolidation, list(clusters))

    def scan(self, *, now: Any = None, namespace: str | None = None, algorithm: str | None = None) -> "ScanReport":
        """Dry-run cluster scan: clusters, gate decisions, consolidation_due; records a :ConsolidationRun."""
        from graphcons.consolidation.scan import scan

        return scan(self, now=now, namespace=namespace, algorithm=algorithm)

    # -- reading and editing -------------------------------------------------------------
    def get(self, memory_id: str) -> Memory:
        return history.get(self.db, memory_id)

    def edit(self, memory_id: str, *, source: str = "user", **changes: Any) -> Memory:
        return history.edit(self.db, self.config, self.embedder, memory_id, source=source, **changes)

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        return history.history(self.db, memory_id)

    def stats(self) -> dict[str, Any]:
        row = self.db.run("memory/stats")[0]
        for key in ("by_status", "by_kind", "by_namespace"):
            row[key] = {k: n for k, n in sorted(row[key], key=lambda kv: str(kv[0]))}
        row["store"] = store.identity(self.db)
        return row

    def audit_log(self, *, op: str | None = None, target: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        return [audit.decode(r["audit"]) for r in self.db.run("audit/list", op=op, target=target, limit=limit)]

    # -- maintenance (issue 5) ------------------------------------------------------------
    # Jobs are dry runs by default (they report what they would do). `now` is the decision
    # time (decay, ages, cutoffs); the wall clock is read here only when none is given.
    def merge(self, *, dry_run: bool = True, now: Any = None, auto_apply: bool | None = None,
              progress: Any = None) -> dict[str, Any]:
        """Near-duplicate merge pass: proposals (or merges with [merge] auto_apply) and conflict links."""
        from graphcons.maintenance.merge import job as merge

        return merge.run(self.db, self.config, now=now or utcnow(), dry_run=dry_run, auto_apply=auto_apply,
                         progress=progress)

    def merge_proposals(self, status: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        from graphcons.maintenance.merge import job as merge

        return merge.proposals(self.db, status, limit)

    def approve_merge(self, proposal_id: str, *, by: str = "user", now: Any = None) -> dict[str, Any]:
        from graphcons.maintenance.merge import job as merge

        return merge.approve(self.db, proposal_id, now=now or utcnow(), by=by)

    def reject_merge(self, proposal_id: str, *, by: str = "user", reason: str | None = None,
                     now: Any = None) -> dict[str, Any]:
        from graphcons.maintenance.merge import job as merge

        return merge.reject(self.db, proposal_id, now=now or utcnow(), by=by, reason=reason)

    def revert_merge(self, proposal_id: str, *, by: str = "user", now: Any = None) -> dict[str, Any]:
        from graphcons.maintenance.merge import job as merge

        return merge.revert(self.db, proposal_id, now=now or utcnow(), by=by)

    def decay(self, *, dry_run: bool = True, now: Any = None, progress: Any = None) -> dict[str, Any]:
        """Recompute every live memory's weights (Ebbinghaus decay included) at `now`."""
        from graphcons.maintenance import weights

        return weights.recompute(self.db, self.config, now=now or utcnow(), dry_run=dry_run, progress=progress,
                                 job="decay")

    def recompute_weights(self, *, dry_run: bool = True, now: Any = None, progress: Any = None) -> dict[str, Any]:
        from graphcons.maintenance import weights

        return weights.recompute(self.db, self.config, now=now or utcnow(), dry_run=dry_run, progress=progress)

    def promote(self, *, dry_run: bool = True, now: Any = None) -> dict[str, Any]:
        """proposed -> active by seed 003's rules; each promotion records its rule."""
        from graphcons.maintenance import promotion

        return promotion.run(self.db, self.config, now=now or utcnow(), dry_run=dry_run)

    def deprecate(self, memory_id: str | None = None, *, replaced_by: str | None = None, dry_run: bool = True,
                  now: Any = None, by: str = "user") -> dict[str, Any]:
        """Without an id: the deprecation job (deprecate replaced stale memories, archive the rest).
        With an id: deprecate that memory, which needs an active replacement (`replaced_by`)."""
        from graphcons.maintenance import deprecation

        if memory_id is None:
            return deprecation.run(self.db, self.config, now=now or utcnow(), dry_run=dry_run)
        return deprecation.deprecate_memory(self.db, memory_id, replaced_by, now=now or utcnow(), by=by,
                                            dry_run=dry_run)

    def restore(self, memory_id: str, *, by: str = "user", now: Any = None) -> dict[str, Any]:
        """Bring back a deprecated or archived memory (a merged one by reverting its merge)."""
        from graphcons.maintenance import deprecation

        return deprecation.restore(self.db, memory_id, now=now or utcnow(), by=by)

    def health(self, *, now: Any = None, scan: bool = False) -> dict[str, Any]:
        """Seed 003's health figures and quality metrics with their targets."""
        from graphcons.maintenance import health

        return health.health(self.db, self.config, now=now or utcnow(), scan=scan)

    # -- synthesis and proposals (issue 4) ---------------------------------------------------
    # Synthesis queues pending proposals; approve applies one in one transaction; revert
    # deprecates the insight and keeps every link; explain walks provenance to the sources.
    def synthesize(self, cluster: "Cluster", *, figures: dict[str, Any] | None = None, now: Any = None,
                   synthesizer: Any = None, force: bool = False) -> Any:
        """Synthesize one cluster into a pending consolidate proposal (grounded, budgeted)."""
        from graphcons.consolidation import consolidate as consolidation

        return consolidation.synthesize_cluster(self.db, self.config, cluster, synthesizer=synthesizer,
                                                figures=figures, now=now, force=force)

    def consolidate(self, *, now: Any = None, namespace: str | None = None, synthesizer: Any = None,
                    progress: Any = None) -> Any:
        """scan -> gate -> synthesis -> proposals, within enabled / dry_run / daily_cap / budgets."""
        from graphcons.consolidation import consolidate as consolidation

        return consolidation.consolidate(self, now=now, namespace=namespace, synthesizer=synthesizer,
                                         progress=progress)

    def proposals(self, *, status: str | None = None, kind: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The review queue: proposals of every kind, oldest first."""
        from graphcons.review import queue as proposals

        return proposals.list_(self.db, status=status, kind=kind, limit=limit)

    def proposal(self, proposal_id: str) -> dict[str, Any]:
        from graphcons.review import queue as proposals

        return proposals.get(self.db, proposal_id)

    def approve(self, proposal_id: str, *, by: str = "user", now: Any = None, checkpoint: Any = None) -> Any:
        """Apply a pending proposal in one transaction (approving twice changes nothing)."""
        from graphcons.review import queue as proposals

        return proposals.approve(self.db, self.config, self.embedder, proposal_id, by=by, now=now,
                                 checkpoint=checkpoint)

    def reject(self, proposal_id: str, reason: str, *, by: str = "user", now: Any = None) -> dict[str, Any]:
        """Reject a pending proposal; it is kept with the reason."""
        from graphcons.review import queue as proposals

        return proposals.reject(self.db, proposal_id, reason, by=by, now=now)

    def revert(self, proposal_or_insight_id: str, reason: str = "reverted", *, by: str = "user",
               now: Any = None) -> dict[str, Any]:
        """Undo an applied consolidation: the insight is deprecated, every link is kept."""
        from graphcons.review import queue as proposals

        return proposals.revert(self.db, self.config, proposal_or_insight_id, reason, by=by, now=now)

    def resynthesize(self, proposal_id: str, *, now: Any = None, synthesizer: Any = None) -> Any:
        """Re-synthesize a stale proposal's cluster from the members' current versions."""
        from graphcons.consolidation import consolidate as consolidation

        return consolidation.resynthesize(self.db, self.config, proposal_id, synthesizer=synthesizer, now=now)

    def explain(self, memory_id: str) -> dict[str, Any]:
        """How do you know X? The provenance tree down to the source episodes."""
        from graphcons.consolidation import provenance

        return provenance.explain(self.db, memory_id)

    def activate(self, insight_ids: list[str], *, amount: float = 1.0, now: Any = None) -> dict[str, float]:
        """Spreading activation: warm the members beneath these insights along SUMMARIZES."""
        from graphcons.store import activation

        return activation.spread(self.db, insight_ids, amount=amount, now=now)

    def precompute(self, *, insight_ids: list[str] | None = None, inference_fn: Any = None, now: Any = None,
                   force: bool = False) -> dict[str, list[dict[str, str]]]:
        """Sleep-time precompute: inferences stored per insight id, off the response path."""
        from graphcons.consolidation import precompute

        return precompute.precompute(self.db, insight_ids=insight_ids, inference_fn=inference_fn, now=now,
                                     force=force)


class _Links:
    """Adapter so validate_links can check links given outside a MemoryInput."""

    def __init__(self, links: list[LinkInput]):
        self.links = links

"""The Python API: one object whose verbs follow the seeds' concepts.

    from graphcons import Graphcons
    with Graphcons() as g:            # reads graphcons.toml and the environment
        g.init()
        a = g.add({"content": "Deploy 4.2 caused 503s on checkout", "subject": "checkout"})
        hits = g.retrieve("503 after deploy", k=5)

Data flows one way: admission -> signals -> communities -> gate -> synthesis ->
proposal -> apply. The facade holds the connection, the configuration and the embedder,
fills `now` from the clock when none is given, and delegates each verb to the one module
that owns its concept; no module below receives the facade.
"""

from __future__ import annotations

import functools
import inspect
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from graphcons.consolidation import consolidate as consolidation
from graphcons.consolidation import epistemics, provenance, rules
from graphcons.consolidation import precompute as precomputing
from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.gate import GateDecision, gate
from graphcons.consolidation.scan import ScanReport, detect, scan
from graphcons.consolidation.synthesis import Synthesizer
from graphcons.core import audit, tracing
from graphcons.core.config import Config, load_config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder, embedder_identity, make_embedder
from graphcons.core.errors import NotFound, ValidationError
from graphcons.core.memory import Memory, parse_input
from graphcons.core.time import utcnow
from graphcons.jobs import status as job_status
from graphcons.jobs import worker as job_worker
from graphcons.maintenance import deprecation, feedback, health, promotion, vector_index, weights
from graphcons.maintenance.merge import conflicts as merge_conflicts
from graphcons.maintenance.merge import job as merge_job
from graphcons.maintenance.updates import job as updates_job
from graphcons.profiles import card_pass
from graphcons.profiles import profile as profiles
from graphcons.profiles import reflect as reflection
from graphcons.review import queue
from graphcons.store import (
    activation,
    admission,
    census,
    coaccess,
    history,
    importer,
    migrations,
    scopes,
    linker,
    tokens,
)
from graphcons.store import keys as keys_mod
from graphcons.store.linker import Linker
from graphcons.recall import context as context_mod
from graphcons.recall import retrieval
from graphcons.recall.hits import Hit
from graphcons.recall.query import RecallQuery
from graphcons.store import proposals as proposal_store
from graphcons.store import schema as store
from graphcons.store.proposals import Decision, Proposal


def _traced(cls: type) -> type:
    """Each public verb runs in a span named after it (`graphcons retrieve`), so the Neo4j query
    spans of a call made in process sit under that call, as a request's sit under its server span."""
    for name, fn in list(vars(cls).items()):
        if inspect.isfunction(fn) and not name.startswith("_"):
            setattr(cls, name, _in_span(f"graphcons {name}", fn))
    return cls


def _in_span(span_name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def verb(*args: Any, **kwargs: Any) -> Any:
        with tracing.span(span_name):
            return fn(*args, **kwargs)

    return verb


def _alone(verb: Callable[..., Any], given: dict[str, Any], *kept: str) -> None:
    """A `RecallQuery` carries the query's arguments: one given beside it would be silently ignored
    (issue 63's lesson), so it is refused by name. `kept`: the verb's own (context's budget)."""
    for name, p in inspect.signature(verb).parameters.items():
        if name == "query" or name in kept or p.default is inspect.Parameter.empty:
            continue
        if given[name] is not p.default and given[name] != p.default:
            raise ValidationError(name, "is part of the RecallQuery given: set it there")


@_traced
class Graphcons:
    def __init__(self, config: Config | str | Path | None = None, *, embedder: Embedder | None = None,
                 warm: bool = False):
        """`warm`: ready for the first call when constructed (`warm()`), not on the first request."""
        self.config = config if isinstance(config, Config) else load_config(config)
        tracing.configure(self.config.otel)  # [otel] in process too (once per process)
        self.db = Database(self.config.neo4j)
        self._embedder = embedder
        self._checked = False
        self._linker: Linker | None = None
        if warm:
            try:
                self.warm()
            except BaseException:
                self.db.close()
                raise

    def warm(self) -> "Graphcons":
        """Load the embedder (the store checked against it), open the driver's connections and run
        retrieve's and context's statements once on an empty namespace, so the first real call
        costs what the next does (issue 52: the first search in a fresh process took ~1 s)."""
        self._check_store()
        retrieval.warm(self.db, self.config, self.embedder)
        return self

    # -- lifecycle -------------------------------------------------------------------
    def __enter__(self) -> "Graphcons":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._linker is not None:  # what this process put is linked before the driver closes
            self._linker.close()
        self.db.close()

    @property
    def linker(self) -> Linker:
        """The thread that writes a put's SIMILAR edges after the put returns (store/linker.py)."""
        if self._linker is None:
            self._linker = Linker(self.db, self.config)
        return self._linker

    def link_pending(self) -> int:
        """Write every SIMILAR edge a put deferred now (the worker and each scan do it too); how many memories."""
        return linker.link_pending(self.db, self.config)

    @property
    def embedder(self) -> Embedder:
        """Loaded on first use, after checking that the store was built with it."""
        if self._embedder is None:
            self._check_store()
            self._embedder = make_embedder(self.config.embedding)
        return self._embedder

    def _check_store(self) -> None:
        """The store's schema exists and was built with this embedder; a fresh database is
        initialised here (init is idempotent), so no command meets a missing index."""
        if not self._checked:
            recorded = store.identity(self.db)
            if recorded is None:
                self.init()
                return
            store.check_embedder(recorded, *self._identity())
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
    def add(self, memory: dict[str, Any] | Any, *, now: datetime | None = None, **fields: Any) -> admission.Admission:
        """Admit one memory (a dict, a string of content, or keyword fields); see MemoryInput.
        `now`: the admission time (default the clock); the id is a function of the input only."""
        data = dict(memory) if isinstance(memory, dict) else ({"content": memory} if isinstance(memory, str) else memory)
        if isinstance(data, dict):
            data.update(fields)
        self._check_store()
        return admission.admit(self.db, self.config, self.embedder, data, now=now or utcnow())

    def add_many(self, memories: list[dict[str, Any] | Any], *, now: datetime | None = None) -> list[admission.Admission]:
        """Admit a batch, all or nothing, with the graph `add` would give one by one in order
        (one embedding call, one transaction); a bad item raises naming `items[i].field`."""
        items = [dict(m) if isinstance(m, dict) else ({"content": m} if isinstance(m, str) else m) for m in memories]
        self._check_store()
        return admission.admit_many(self.db, self.config, self.embedder, items, now=now or utcnow())

    def import_jsonl(self, path: str | Path, *, progress: Callable[[int], None] | None = None,
                     now: datetime | None = None) -> importer.ImportReport:
        """Admit every line of a JSON Lines file through admission; bad lines are reported."""
        self._check_store()
        return importer.import_jsonl(self.db, self.config, self.embedder, path, progress=progress, now=now or utcnow())

    def link(self, source_id: str, target_id: str, kind: str = "related", *, by: str = "user") -> int:
        """Add an explicit LINKED edge between two existing memories."""
        self._check_store()
        return admission.link(self.db, source_id, target_id, kind, by=by, now=utcnow())

    def access(self, session: str, ids: list[str]) -> dict[str, Any]:
        """Record that these memories were used together in a session."""
        return coaccess.record_access(self.db, self.config, session, ids)

    def retrieve(self, query: str | RecallQuery, k: int = 5, *, namespace: str | None = None,
                 subject: str | None = None, session: str | None = None, record: bool = True,
                 mode: str | None = None, insights: str | None = None, as_of: Any = None, when: Any = None,
                 when_mode: str | None = None, diverse: bool = True, now: Any = None) -> retrieval.Hits:
        """Ranked memories in the scope (mode hybrid|vector|keyword, insights group|plain;
        defaults from [retrieval]); their use is recorded as co-access (`hits.recording` says
        "recorded", "off", or "skipped: <why>" when Neo4j refused it after retries). A memory an
        update superseded comes after its successor, marked (`superseded_by`, `until`); `as_of` (a
        date or an aware datetime) answers with what was current then; the query's own time phrases
        ("last month") boost memories of that time, counted from `as_of`, else `now` (default: the
        clock; `hits.window` says which days); `when` ("auto", "off" or a window) and `when_mode`
        (boost | restrict) ask for a window (docs/RETRIEVAL.md). `diverse=False`: the ranking as
        scored, without the diversity step (a store's page, issue 63). `query` may be a checked
        `RecallQuery` (what the transports build): the other arguments are then its own."""
        self._check_store()
        if isinstance(query, RecallQuery):
            _alone(self.retrieve, locals())
            q = query
        else:
            q = RecallQuery.of(self.config.retrieval, query, k, namespace=namespace, subject=subject, mode=mode,
                               insights=insights, as_of=as_of, when=when, when_mode=when_mode,
                               now=utcnow() if now is None else now, record=record, session=session, diverse=diverse)
        return retrieval.retrieve(self.db, self.config, self.embedder, q)

    def context(self, query: str | RecallQuery, budget_words: int | None = None, *, budget_tokens: int | None = None,
                namespace: str | None = None, subject: str | None = None, session: str | None = None,
                record: bool = True, mode: str | None = None, as_of: Any = None, when: Any = None,
                when_mode: str | None = None, now: Any = None) -> context_mod.Context:
        """The text block an agent pastes into its prompt: the best hits packed until the budget
        (`budget_words`, `budget_tokens` or both; neither: 300 words), every line with its date and id,
        an insight as its facts most relevant to the query, no fact twice (issue 39), a superseded value
        only after its successor ("earlier, until ..."). Its use is recorded like retrieve's; `as_of`,
        `when`, `when_mode`, `now` as retrieve's (`ctx.window`). `query` may be a checked `RecallQuery`
        (`RecallQuery.for_context`): the arguments other than the budget are then its own."""
        self._check_store()
        whole = context_mod.budget(self.config, budget_words, budget_tokens)  # the budget's error comes first
        if isinstance(query, RecallQuery):
            _alone(self.context, locals(), "budget_words", "budget_tokens")
            q = query
        else:
            q = RecallQuery.for_context(self.config.retrieval, query, namespace=namespace, subject=subject,
                                        mode=mode, as_of=as_of, when=when, when_mode=when_mode,
                                        now=utcnow() if now is None else now, record=record, session=session)
        return context_mod.context(self.db, self.config, self.embedder, q, whole)

    def search(self, text: str, k: int = 10, *, namespace: str | None = None,
               subject: str | None = None) -> list[Hit]:
        """Plain keyword search (full-text index, any text is a valid query); records nothing."""
        self._check_store()
        return retrieval.search_text(self.db, RecallQuery.keyword_search(self.config.retrieval, text, k,
                                                                         namespace=namespace, subject=subject))

    def census(self) -> dict[str, list[dict[str, Any]]]:
        """Memories per namespace and status, pending proposals per kind (the metrics gauges)."""
        return census.counts(self.db)

    def memories(self, namespace: str, *, subject: str | None = None, limit: int = 100,
                 offset: int = 0) -> list[Memory]:
        """One page of a namespace's (and subject's) live memories, oldest first."""
        return scopes.members(self.db, namespace, subject=subject, limit=limit, offset=offset)

    def scopes(self, *, namespaces: list[str] | None = None) -> list[tuple[str, str]]:
        """Every (namespace, subject) holding a live memory (of some `namespaces`), in order."""
        return scopes.list_(self.db, namespaces=namespaces)

    def subjects_under(self, namespace: str, subject: str) -> list[str]:
        """The subjects of `namespace` holding a live memory that are `subject` or nested under it
        (`subject/...`), in order: a framework store's search prefix (one index seek, not every memory)."""
        return scopes.under(self.db, namespace, subject)

    def migrate_similar(self, *, batch_size: int = 200, limit: int | None = None,
                        progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Rebuild SIMILAR per subject for a store admitted before issue 12 (resumable, audited)."""
        self.init()  # the schema gains the (namespace, subject) index the rebuild reads
        return migrations.rebuild_similar(self.db, self.config, batch_size=batch_size, limit=limit, progress=progress)

    def migrate_payloads(self, *, reverse: bool = False) -> dict[str, Any]:
        """Every kind keeps what it proposes under `payload` (issue 60; `init` does this too); `reverse`
        stores consolidate proposals as before it, for an older checkout (run it without `init` after)."""
        if reverse:
            return {"direction": "flatten", "moved": proposal_store.flatten_payloads(self.db)}
        return {"direction": "nest", "moved": proposal_store.nest_payloads(self.db)}

    # -- clusters -------------------------------------------------------------------------
    def clusters(self, *, namespace: str | None = None, algorithm: str | None = None) -> list[Cluster]:
        """Communities of the fused graph (>= 2 members, canonical keys); writes nothing."""
        return detect(self.db, self.config.consolidation, namespace=namespace, algorithm=algorithm,
                      gds=self.config.gds)[1]

    def gate(self, clusters: list[Cluster]) -> list[GateDecision]:
        """The value gate's decision (accepted or not, reasons, figures) on each cluster."""
        return gate(self.db, self.config.consolidation, list(clusters))

    def scan(self, *, now: datetime | None = None, namespace: str | None = None,
             algorithm: str | None = None, dry_run: bool = False) -> ScanReport:
        """Cluster scan (proposes nothing): clusters, gate decisions, consolidation_due; records a
        :ConsolidationRun, its audit and the communities unless `dry_run` (then it writes nothing)."""
        return scan(self.db, self.config, now=now or utcnow(), namespace=namespace, algorithm=algorithm,
                    dry_run=dry_run)

    # -- reading and editing -------------------------------------------------------------
    def get(self, memory_id: str, *, namespaces: list[str] | None = None) -> Memory:
        """The memory; with `namespaces`, one in another namespace is NotFound like a missing id."""
        return history.get(self.db, memory_id, namespaces=namespaces)

    def edit(self, memory_id: str, *, source: str = "user", **changes: Any) -> Memory:
        return history.edit(self.db, self.config, self.embedder, memory_id, source=source, **changes)

    def put(self, memory: dict[str, Any], *, source: str = "user",
            now: datetime | None = None) -> admission.Admission | Memory:
        """A key-value store's put (issue 49): admit the memory with memory["id"], or, when that id is
        taken in its namespace, make its content and metadata the memory's new version (a retired
        one restored first). The Admission of a new memory, else the edited Memory."""
        if not isinstance(memory, dict) or not memory.get("id"):
            raise ValidationError("id", "put needs the memory's id")
        self._check_store()
        try:  # a new key first (one statement: the put an agent makes every turn), under its own key even
            # when another key holds the same text; its SIMILAR edges are written after it returns (linker)
            admitted = admission.admit(self.db, self.config, self.embedder, dict(memory), now=now or utcnow(),
                                       keyed=True, deferred=True)
        except admission.IdTaken:  # the id is taken: this put is that memory's new version
            pass
        else:
            self.linker.poke()
            return admitted
        current = self.get(memory["id"], namespaces=[memory.get("namespace") or "default"])
        if current.status in ("deprecated", "archived"):
            self.restore(current.id, by=source, now=now)
        return self.edit(current.id, source=source, content=memory.get("content"), metadata=memory.get("metadata"))

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        return history.history(self.db, memory_id)

    def stats(self) -> dict[str, Any]:
        return store.stats(self.db)

    def audit_log(self, *, op: str | None = None, target: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        return audit.read(self.db, op=op, target=target, limit=limit)

    # -- maintenance ------------------------------------------------------------------------
    # Jobs are dry runs by default (they report what they would do). `now` is the decision
    # time (decay, ages, cutoffs); the wall clock is read here only when none is given.
    def merge(self, *, dry_run: bool = True, now: datetime | None = None, auto_apply: bool | None = None,
              progress: Callable[[int], None] | None = None, namespace: str | None = None,
              subject: str | None = None) -> merge_job.MergeReport:
        """Near-duplicate merge pass: proposals (or merges with [merge] auto_apply), conflict and RELATED links."""
        return merge_job.run(self.db, self.config, now=now or utcnow(), dry_run=dry_run, auto_apply=auto_apply,
                             progress=progress, namespace=namespace, subject=subject)

    def updates(self, *, dry_run: bool = True, now: datetime | None = None, auto_apply: bool | None = None,
                namespace: str | None = None, subject: str | None = None) -> updates_job.UpdatesReport:
        """Update pass (issue 51): a newer memory stating a new value for an older one's attribute is proposed as
        (newer)-[:SUPERSEDES {reason: 'update'}]->(older) (applied at once only with [updates] auto_apply)."""
        return updates_job.run(self.db, self.config, now=now or utcnow(), dry_run=dry_run, auto_apply=auto_apply,
                               namespace=namespace, subject=subject)

    def keys(self, *, now: datetime | None = None, limit: int | None = None,
             namespace: str | None = None) -> keys_mod.KeysReport:
        """Keys pass (issue 61): each memory of several sentences also found by each of its own sentences
        (graphcons.store.keys); reads only memories (of `namespace`) not read in their current version."""
        return keys_mod.key_pending(self.db, self.config, self.embedder, now=now or utcnow(), limit=limit,
                                    namespace=namespace)

    def cards(self, *, dry_run: bool = True, now: datetime | None = None, namespace: str | None = None,
              subject: str | None = None) -> card_pass.CardsReport:
        """Card pass (issue 47): each subject's memories said the short way, grouped, dated and cited, proposed
        as one `card` proposal per subject; approving it gives the profile its next version with the card."""
        return card_pass.run(self.db, now=now or utcnow(), dry_run=dry_run, namespace=namespace, subject=subject)

    def conflicts(self, *, status: str | None = "open", limit: int = 100,
                  namespaces: list[str] | None = None) -> list[dict[str, Any]]:
        """Pairs the merge guard kept apart (`CONFLICTS_WITH`), open ones by default (of some `namespaces`)."""
        return merge_conflicts.list_conflicts(self.db, status=status, limit=limit, namespaces=namespaces)

    def resolve_conflict(self, a: str, b: str, *, holds: str, scope: str = "", note: str = "", by: str = "user",
                         now: datetime | None = None) -> dict[str, Any]:
        """Settle a conflict: which memory holds (a, b or 'both'), where; both memories are kept."""
        return merge_conflicts.resolve(self.db, a, b, holds=holds, scope=scope, note=note, by=by,
                                       now=now or utcnow())

    def decay(self, *, dry_run: bool = True, now: datetime | None = None,
              progress: Callable[[int], None] | None = None, namespace: str | None = None) -> dict[str, Any]:
        """Recompute every live memory's weights (Ebbinghaus decay included; one namespace's with `namespace`) at `now`."""
        return weights.recompute(self.db, self.config, now=now or utcnow(), dry_run=dry_run, progress=progress,
                                 job="decay", namespace=namespace)

    def recompute_weights(self, *, dry_run: bool = True, now: datetime | None = None,
                          progress: Callable[[int], None] | None = None) -> dict[str, Any]:
        return weights.recompute(self.db, self.config, now=now or utcnow(), dry_run=dry_run, progress=progress)

    def promote(self, *, dry_run: bool = True, now: datetime | None = None,
                namespace: str | None = None) -> dict[str, Any]:
        """proposed -> active by seed 003's rules (one namespace's with `namespace`); each promotion records its rule."""
        return promotion.run(self.db, self.config, now=now or utcnow(), dry_run=dry_run, namespace=namespace)

    def deprecate(self, memory_id: str | None = None, *, replaced_by: str | None = None, dry_run: bool = True,
                  now: datetime | None = None, by: str = "user", namespace: str | None = None) -> dict[str, Any]:
        """Without an id: the deprecation job (deprecate replaced stale memories, archive the rest; only
        `namespace`'s when given: the job's scope). With an id: deprecate that memory, which needs an active replacement
        (`replaced_by`)."""
        if memory_id is None:
            return deprecation.run(self.db, self.config, now=now or utcnow(), dry_run=dry_run, namespace=namespace)
        return deprecation.deprecate_memory(self.db, memory_id, replaced_by, now=now or utcnow(), by=by,
                                            dry_run=dry_run)

    def retire(self, memory_id: str, *, reason: str = "retired", by: str = "user",
               now: datetime | None = None) -> dict[str, Any]:
        """Take a memory out of use with no replacement (archived, kept, restorable): a store's delete."""
        return deprecation.retire_memory(self.db, memory_id, reason=reason, now=now or utcnow(), by=by)

    def restore(self, memory_id: str, *, by: str = "user", now: datetime | None = None) -> dict[str, Any]:
        """Bring back a deprecated or archived memory (a merged one by reverting its merge)."""
        return deprecation.restore(self.db, memory_id, now=now or utcnow(), by=by)

    def feedback(self, memory_id: str, verdict: str, *, note: str | None = None, by: str = "user",
                 now: datetime | None = None) -> dict[str, Any]:
        """Rate a memory or an insight `useful` or `wrong`: its feedback weight and effective weight follow."""
        return feedback.rate(self.db, self.config, memory_id, verdict, note=note, by=by, now=now or utcnow())

    def health(self, *, now: datetime | None = None, scan: bool = False) -> dict[str, Any]:
        """Seed 003's health figures and quality metrics with their targets."""
        return health.health(self.db, self.config, now=now or utcnow(), scan=scan)

    def index_status(self) -> dict[str, Any]:
        """The vector index: state, population and the latency of a fixed probe query."""
        return vector_index.status(self.db)

    def rebuild_index(self, *, by: str = "user") -> dict[str, Any]:
        """Drop and recreate the vector index from the stored embeddings (schema only; audited)."""
        self._check_store()
        return vector_index.rebuild(self.db, by=by)

    # -- synthesis and the review queue -------------------------------------------------------
    # Synthesis queues pending proposals; approve applies one in one transaction; revert
    # undoes an applied one and keeps every link; explain walks provenance to the sources.
    def synthesize(self, cluster: Cluster, *, figures: dict[str, Any] | None = None, now: datetime | None = None,
                   synthesizer: Synthesizer | None = None, force: bool = False) -> consolidation.Outcome:
        """Synthesize one cluster into a pending consolidate proposal (grounded, budgeted)."""
        return consolidation.synthesize_cluster(self.db, self.config, cluster, synthesizer=synthesizer,
                                                figures=figures, now=now or utcnow(), force=force)

    def consolidate(self, *, now: datetime | None = None, namespace: str | None = None,
                    synthesizer: Synthesizer | None = None, dry_run: bool | None = None,
                    progress: Callable[[int, int, Any], None] | None = None) -> consolidation.ConsolidateReport:
        """scan -> gate -> synthesis -> proposals, within enabled / dry_run / daily_cap / budgets;
        `dry_run=True` reports the clusters without synthesizing whatever [consolidation] dry_run says.
        A run that may write keys the memories written since first (`keys`): what it learns is used to find."""
        cc = self.config.consolidation
        if cc.enabled and not (cc.dry_run if dry_run is None else dry_run):
            self.keys(now=now, namespace=namespace)
        return consolidation.consolidate(self.db, self.config, now=now or utcnow(), namespace=namespace,
                                         synthesizer=synthesizer, progress=progress, dry_run=dry_run)

    def proposals(self, *, status: str | None = None, kind: str | None = None, limit: int = 100,
                  namespaces: list[str] | None = None) -> list[dict[str, Any]]:
        """The review queue: proposals of every kind (or one `kind`; of some `namespaces`), oldest first,
        each in its one wire shape (`Proposal.to_dict`)."""
        return [p.to_dict() for p in self.proposal_records(status=status, kind=kind, limit=limit,
                                                           namespaces=namespaces)]

    def proposal(self, proposal_id: str) -> dict[str, Any]:
        """One proposal in its wire shape (`Proposal.to_dict`)."""
        return self.proposal_record(proposal_id).to_dict()

    def proposal_records(self, *, status: str | None = None, kind: str | None = None, limit: int = 100,
                         namespaces: list[str] | None = None) -> list[Proposal[Any]]:
        """`proposals`, typed: each a `Proposal` with its kind's payload."""
        return queue.list_(self.db, status=status, kind=kind, limit=limit, namespaces=namespaces)

    def proposal_record(self, proposal_id: str) -> Proposal[Any]:
        """`proposal`, typed."""
        return queue.get(self.db, proposal_id)

    def approve(self, proposal_id: str, *, by: str = "user", now: datetime | None = None,
                checkpoint: Callable[[str], None] | None = None) -> Decision:
        """Apply a pending proposal of any kind in one transaction (approving twice changes nothing)."""
        return queue.approve(self.db, self.config, lambda: self.embedder, proposal_id, by=by, now=now or utcnow(),
                             checkpoint=checkpoint)

    def reject(self, proposal_id: str, reason: str, *, by: str = "user", now: datetime | None = None) -> Decision:
        """Reject a pending proposal; it is kept with the reason."""
        return queue.reject(self.db, proposal_id, reason, by=by, now=now or utcnow())

    def revert(self, proposal_or_insight_id: str, reason: str = "reverted", *, by: str = "user",
               now: datetime | None = None) -> Decision:
        """Undo an applied proposal (a consolidation: the insight is deprecated; a merge: the loser is back)."""
        return queue.revert(self.db, proposal_or_insight_id, reason, by=by, now=now or utcnow())

    def resynthesize(self, proposal_id: str, *, now: datetime | None = None,
                     synthesizer: Synthesizer | None = None) -> consolidation.Outcome:
        """Re-synthesize a stale proposal's cluster from the members' current versions."""
        return queue.resynthesize(self.db, self.config, proposal_id, synthesizer=synthesizer, now=now or utcnow())

    # -- reflection and entity profiles (issue 14, seed 004) --------------------------------------
    def reflect(self, subject: str, *, namespace: str | None = None, now: datetime | None = None,
                synthesizer: Synthesizer | None = None, auto_apply: bool | None = None) -> reflection.ReflectionResult:
        """Reflect on one entity now (whatever its threshold): a pending `reflect` proposal, or
        applied at once with [reflection] auto_apply. No namespace: the one the subject lives in."""
        self._check_store()
        return reflection.reflect(self.db, self.config, self.embedder, subject, namespace=namespace,
                                  now=now or utcnow(), synthesizer=synthesizer, auto_apply=auto_apply)

    def reflect_due(self, *, now: datetime | None = None, namespace: str | None = None, dry_run: bool = False,
                    synthesizer: Synthesizer | None = None,
                    progress: Callable[[int, int, Any], None] | None = None) -> reflection.DueReport:
        """The weekly job: reflect on every entity at its threshold (needs [reflection] enabled)."""
        self._check_store()
        return reflection.reflect_due(self.db, self.config, self.embedder, now=now or utcnow(), namespace=namespace,
                                      dry_run=dry_run, synthesizer=synthesizer, progress=progress)

    def profile(self, subject: str, *, namespace: str | None = None) -> dict[str, Any]:
        """An entity's profile: preferences, behaviors, facts (each with its sources) and a summary."""
        return profiles.get(self.db, subject, reflection.resolve_namespace(self.db, subject, namespace))

    def profile_history(self, subject: str, *, namespace: str | None = None) -> list[dict[str, Any]]:
        """Every version of an entity's profile, oldest first."""
        return profiles.history(self.db, subject, reflection.resolve_namespace(self.db, subject, namespace))

    def reflection_model(self, namespace: str = "default") -> dict[str, str]:
        """Which model reflects on this namespace, and why (env, [reflection.models], [llm], offline)."""
        return reflection.resolve_model(self.config, namespace)

    def explain(self, memory_id: str) -> dict[str, Any]:
        """How do you know X? The provenance tree down to the source episodes."""
        return provenance.explain(self.db, memory_id)

    def activate(self, insight_ids: list[str], *, amount: float = 1.0, now: datetime | None = None) -> dict[str, float]:
        """Spreading activation: warm the members beneath these insights along SUMMARIZES."""
        return activation.spread(self.db, insight_ids, amount=amount, now=now or utcnow())

    def precompute(self, *, insight_ids: list[str] | None = None, inference_fn: Any = None,
                   now: datetime | None = None, force: bool = False) -> dict[str, list[dict[str, str]]]:
        """Sleep-time precompute: inferences stored per insight id, off the response path."""
        return precomputing.precompute(self.db, insight_ids=insight_ids, inference_fn=inference_fn,
                                       now=now or utcnow(), force=force)

    # -- what graphcons believes, and why (seed 002) ----------------------------------------------
    def confirm(self, insight_id: str, evidence_id: str, *, by: str = "user", now: datetime | None = None) -> dict[str, Any]:
        """Attach independent evidence (a source none of the premises came from): a second justification."""
        return epistemics.confirm(self.db, insight_id, evidence_id, now=now or utcnow(), by=by)

    def add_exception(self, insight_id: str, memory_id: str, scope: dict[str, Any] | str, *, by: str = "user",
                      now: datetime | None = None) -> dict[str, Any]:
        """A scoped exception: defeats the insight within `scope` (uncertain there while contested)."""
        return epistemics.except_(self.db, insight_id, memory_id, scope, now=now or utcnow(), by=by)

    def justify(self, insight_id: str, rule: str, premises: list[str], *, by: str = "user",
                now: datetime | None = None) -> dict[str, Any]:
        """A registered rule derives the insight from these premises (see `rules()`)."""
        return epistemics.justify_by_rule(self.db, insight_id, rule, premises, now=now or utcnow(), by=by)

    def epistemics(self, memory_id: str) -> dict[str, Any]:
        """Status, per-scope statuses, justifications (with exact premises) and exceptions of an insight."""
        return epistemics.describe(self.db, memory_id)

    def status_in(self, insight_id: str, context: dict[str, Any]) -> dict[str, Any]:
        """The insight's status in one situation (defeated / uncertain inside an exception's scope)."""
        return epistemics.status_in(self.db, insight_id, context)

    def rules(self) -> list[dict[str, Any]]:
        """The registered rules that may derive a generalisation (name, version, description)."""
        return rules.listing()
    # -- API tokens (issue 16) ---------------------------------------------------------------
    # The HTTP service (graphcons/service/) authenticates every request with one of these.
    def create_token(self, name: str, namespaces: list[str], role: str, *, by: str = "user",
                     now: datetime | None = None) -> tuple[str, dict[str, Any]]:
        """A new API token: (the plain token, shown only now; its record). Only a hash is stored."""
        self._check_store()
        return tokens.create(self.db, name, namespaces, role, by=by, now=now or utcnow())

    def tokens(self) -> list[dict[str, Any]]:
        return tokens.list_(self.db)

    def revoke_token(self, token_id: str, *, by: str = "user", reason: str = "revoked",
                     now: datetime | None = None) -> dict[str, Any]:
        return tokens.revoke(self.db, token_id, by=by, reason=reason, now=now or utcnow())

    def authenticate(self, token: str) -> tokens.Principal | None:
        """The principal of an active token, or None."""
        return tokens.authenticate(self.db, token)

    def check(self, memory: dict[str, Any]) -> None:
        """Validate one memory as `add` would (fields, sizes, link targets) without writing it."""
        mem = parse_input(memory, max_title=self.config.admission.max_title_chars,
                          max_content=self.config.admission.max_content_chars)
        admission.validate_links(self.db, mem.links)
    # -- scheduled jobs (issue 10) ------------------------------------------------------------
    def jobs(self, *, now: datetime | None = None) -> list[dict[str, Any]]:
        """Every job: schedule, enabled, due now or when, last run and its status, lease holder."""
        return job_status.jobs(self.db, self.config, now or utcnow())

    def run_due(self, *, now: datetime | None = None, worker: str | None = None) -> list[job_worker.RunResult]:
        """Run every job due at `now` once, each under its Neo4j lease (what `graphcons worker --once` does)."""
        return job_worker.run_due(self.db, self.config, now=now or utcnow(), worker=worker)

    def run_job(self, name: str, *, now: datetime | None = None, worker: str | None = None) -> job_worker.RunResult:
        """Run one job now, due or not, taking its lease like a worker does (a given `now` never moves
        the job's schedule: see job_worker.MANUAL_AT)."""
        return job_worker.run_job(self.db, self.config, name, now=now or utcnow(), worker=worker, force=True,
                                  trigger=job_worker.MANUAL_AT if now is not None else "")

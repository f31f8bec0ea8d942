"""Configuration: one TOML file (graphcons.toml), typed sections, environment overrides.

Lookup order for the file: the `path` argument, $GRAPHCONS_CONFIG, ./graphcons.toml;
a missing default file means "all defaults". Environment variables override the file:
the well-known NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD, OPENAI_BASE_URL / OPENAI_API_KEY,
GRAPHCONS_LLM_MODEL, and any key as GRAPHCONS__SECTION__KEY=value (TOML value syntax,
falling back to a plain string), e.g. GRAPHCONS__CONSOLIDATION__DAILY_CAP=5.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)
from pydantic import ValidationError as PydanticValidationError

from graphcons.core import schedule
from graphcons.core.errors import ConfigError
from graphcons.core.floors import floor_of

REPO_ROOT = Path(__file__).resolve().parents[2]


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Neo4jConfig(Section):
    # Default: the server scripts/neo4j runs, on $GRAPHCONS_NEO4J_BOLT_PORT when set (load_config), else 7687;
    # NEO4J_URI or graphcons.toml name another one.
    uri: str = "bolt://127.0.0.1:7687"
    user: str = "neo4j"
    # None: read the password scripts/neo4j generated (under $GRAPHCONS_NEO4J_HOME or .neo4j/).
    password: str | None = None
    database: str = "neo4j"
    # Failing fast (issue 30): a TCP connect gives up after connection_timeout_s; getting a connection
    # (a free pooled one, or a new one with its Bolt handshake and login) after acquisition_timeout_s;
    # a lost server is waited for (core/recovery's probe) for unavailable_retry_s before the call fails (503). A stopped server
    # refuses at once (503 in ~0.5 s); a host that accepts and never answers costs acquisition_timeout_s.
    # A cluster's leader election can take longer: raise unavailable_retry_s there (docs/DEPLOY.md).
    connection_timeout_s: float = Field(default=1.5, gt=0, le=120)
    acquisition_timeout_s: float = Field(default=1.5, gt=0, le=600)
    unavailable_retry_s: float = Field(default=0.5, ge=0, le=600)
    # Transient errors (deadlocks between concurrent writers) are retried with bounded exponential
    # backoff (50 ms doubling to 1 s, jittered) for up to retry_s; the transaction is rerun whole.
    retry_s: float = Field(default=15.0, ge=0, le=600)
    max_pool_size: int = Field(default=100, ge=1, le=10_000)

    @field_validator("uri")
    @classmethod
    def _scheme(cls, v: str) -> str:
        schemes = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
        if v.split("://", 1)[0] not in schemes or "://" not in v:
            raise ValueError(f"must start with one of {', '.join(s + '://' for s in schemes)} (got {v!r})")
        return v

    def resolved_password(self) -> str:
        if self.password:
            return self.password
        home = Path(os.environ.get("GRAPHCONS_NEO4J_HOME", REPO_ROOT / ".neo4j"))
        pw_file = home / "password"
        if pw_file.is_file():
            return pw_file.read_text().strip()
        raise ConfigError(
            "neo4j.password: not set and no generated password at "
            f"{pw_file}; set NEO4J_PASSWORD or run scripts/neo4j start"
        )


class EmbeddingConfig(Section):
    provider: Literal["minilm", "openai"] = "minilm"
    # For the offline default the model is fixed; for openai it names the remote model.
    model: str = "all-MiniLM-L6-v2-int8"
    dimensions: int | None = Field(default=None, ge=1, le=8192)  # openai: required
    base_url: str | None = None  # openai: else $OPENAI_BASE_URL
    api_key: str | None = None  # openai: else $OPENAI_API_KEY
    batch_size: int = Field(default=32, ge=1, le=2048)
    timeout_s: float = Field(default=30.0, gt=0)


class LLMConfig(Section):
    provider: Literal["offline", "openai"] = "offline"
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    api_key: str | None = None
    # instructor mode: TOOLS works with llama.cpp servers; JSON_SCHEMA does not.
    instructor_mode: Literal["TOOLS", "JSON", "JSON_SCHEMA", "MD_JSON"] = "TOOLS"
    # Seconds per request. A local CPU model (llama.cpp, 1.5B, 2 busy cores) took 10-190 s per call
    # (docs/LLM.md); a hosted model answers in seconds, so the wait costs nothing there.
    timeout_s: float = Field(default=300.0, gt=0)
    # HTTP retries of one request (timeouts, 5xx); an answer that does not validate is asked again
    # `reasks` times with the validation error shown to the model.
    max_retries: int = Field(default=1, ge=0, le=10)
    reasks: int = Field(default=1, ge=0, le=5)
    temperature: float = Field(default=0.0, ge=0, le=2)
    # The model's context window in tokens: prompts are cut to fit it with room for the answer
    # (llama.cpp's server default --n_ctx is 2048; 4096 is the advice in docs/LLM.md).
    context_tokens: int = Field(default=4096, ge=1024)
    # Log every raw typed output (and the failed attempts) on the `graphcons.llm` logger.
    debug: bool = False
    # Provider budget: at most this many LLM calls per consolidation run (0 = no limit).
    max_calls_per_run: int = Field(default=0, ge=0)


class AdmissionConfig(Section):
    max_title_chars: int = Field(default=300, ge=1)
    max_content_chars: int = Field(default=20_000, ge=1)
    # SIMILAR edges: top-k neighbours above the consolidation sim_floor (sparse by design).
    similar_k: int = Field(default=5, ge=0, le=100)
    # Neighbours are chosen per subject (graphcons/store/neighbours.py): exactly when the
    # namespace+subject scope holds at most this many memories, else from a vector-index pool
    # of at least index_pool candidates that widens until k are found (bench/retrieval/answers.py).
    exact_scope_max: int = Field(default=2_000, ge=0)  # ~20 us per memory scanned; index ~30 ms (bench/store/scope_scan.py)
    index_pool: int = Field(default=100, ge=1, le=100_000)
    # Co-access: at most this many memories of one session take part in pairs,
    # so a session writes at most window*(window-1)/2 CO_ACCESSED pairs.
    coaccess_window: int = Field(default=20, ge=2, le=200)
    import_batch_size: int = Field(default=256, ge=1, le=10_000)


GRAPH_KINDS = frozenset({"SIMILAR", "LINKED", "CO_ACCESSED", "SUMMARIZES", "SIBLING"})


class RetrievalConfig(Section):
    """retrieve(): modes, scope and insight grouping (graphcons/recall/)."""

    mode: Literal["hybrid", "vector", "keyword"] = "hybrid"
    # Exact cosine over the namespace/subject scope up to this many memories; larger
    # scopes read the vector index with a pool that widens until k results are found.
    exact_scope_max: int = Field(default=2_000, ge=0)  # ~20 us per memory scanned; index ~30 ms (bench/store/scope_scan.py)
    index_pool: int = Field(default=100, ge=1, le=100_000)
    # A scope of at least index_scope_min memories holding at least index_scope_share of the store
    # reads the index too (issue 63: one user's store, where the exact scan cost 12 ms at 1k and the
    # index 4): the index's nearest are then mostly the scope's own. index_scope_share > 1 turns it off.
    index_scope_min: int = Field(default=500, ge=0)
    index_scope_share: float = Field(default=0.75, gt=0)
    # Retrieval keys (issue 61 item 2, graphcons.store.keys): a memory of several sentences is also
    # found by each sentence of at least key_min_words words (at most keys_per_memory), written by
    # the keys pass; false: the vector list reads memories' own embeddings only.
    keys: bool = True
    # which sentences become keys: "first_person" (the speaker's own words, "I started a new job"; an
    # assistant's advice is found by its whole turn) or "all"
    key_sentences: Literal["first_person", "all"] = "first_person"
    key_min_words: int = Field(default=4, ge=1)
    # a key's cosine counts this much below the memory's own: a memory found only by one sentence
    # yields to one whose whole text is nearly as near. Off: 0.1, fitted on 48 LongMemEval dev questions,
    # cost the 201 others 0.018 answer words @300 (docs/RETRIEVAL.md, "The key discount")
    key_discount: float = Field(default=0.0, ge=0, le=1)
    keys_per_memory: int = Field(default=32, ge=1, le=1_000)
    # Hybrid (issue 28): each of vector and keyword contributes its top max(hybrid_pool, k), so
    # the top k of any k <= hybrid_pool is the prefix of a longer list. Scores are fused after
    # scaling each list by the query's best score: cosine / best + keyword_weight * bm25 / best.
    hybrid_pool: int = Field(default=100, ge=1, le=10_000)
    keyword_weight: float = Field(default=0.2, ge=0)  # chosen by every fold of the validation by conversation (docs/RETRIEVAL.md)
    # Graph-aware recall (hybrid only; 0 turns it off): the top graph_seeds fused hits spread, one
    # step, along SIMILAR (score), LINKED (kind weight), CO_ACCESSED (saturating count) and
    # SUMMARIZES (insight <-> member, and member -> its insight's other members), within the
    # scope; a memory's score gains graph_weight * its spread, the strongest seed weight x edge
    # strength x graph_kinds[type] reaching it. SIMILAR is 0 by default: near paraphrases add
    # nothing the vector list lacks, and their cliques outvoted the query (docs/RETRIEVAL.md).
    graph_weight: float = Field(default=0.1, ge=0)
    graph_seeds: int = Field(default=10, ge=1, le=100)
    # SUMMARIZES and SIBLING are 0 by default (issue 61): spreading from a hit to its insight and its
    # insight's other members cost the first 10 memories' evidence after consolidation (0.651 ->
    # 0.647 on the dev conversations; 0.651 without them); what an insight knows routes recall in
    # retrieval's walk instead (recall/route.py).
    graph_kinds: dict[str, Annotated[float, Field(ge=0)]] = Field(default_factory=lambda: {
        "SIMILAR": 0.0, "LINKED": 1.0, "CO_ACCESSED": 1.0, "SUMMARIZES": 0.0, "SIBLING": 0.0})
    # "spread": the one-statement step above. "ppr": personalised PageRank (HippoRAG) from the same
    # seeds over a per-query GDS projection of the scope, edges weighted as above (SIBLING is the
    # two SUMMARIZES steps); its cost grows with the scope. Measured against each other in
    # docs/RETRIEVAL.md.
    graph_method: Literal["spread", "ppr"] = "spread"
    ppr_damping: float = Field(default=0.5, gt=0, lt=1)
    # Diversity (hybrid only; 0 turns it off): the best diversity_pool candidates are put in order
    # greedily, each next one the highest score - diversity x its highest cosine to one already
    # placed (maximal marginal relevance): ten restatements of one fact make room for the other
    # facts a multi-hop question needs. The pool does not depend on k, so the k-prefix property
    # holds. Measured in docs/RETRIEVAL.md.
    diversity: float = Field(default=0.3, ge=0)
    diversity_pool: int = Field(default=50, ge=2, le=1000)
    # Community prior (hybrid only; 0 turns it off; issue 39): the cluster hypothesis. Each scan
    # stores every memory's community (accepted by the gate or not); a candidate gains
    # community_weight x the mean score of its community's other members among the candidates
    # (a member outside the candidates counts 0), so a memory whose siblings match the query
    # rises. Issue 39 chose 0.1 (every fold, +0.003 recall@10 under the insights' stand-in); with
    # insights routing to their members (issue 61) it costs multi-hop evidence and context words
    # after consolidation, so it is 0 (off) by default (docs/RETRIEVAL.md, "Do no harm, exactly").
    community_weight: float = Field(default=0.0, ge=0)

    @field_validator("graph_kinds")
    @classmethod
    def _known_kinds(cls, kinds: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(kinds) - GRAPH_KINDS)
        if unknown:
            raise ValueError(f"unknown edge type(s) {', '.join(unknown)}; expected some of {', '.join(sorted(GRAPH_KINDS))}")
        return kinds
    # "digest" (issue 39): an insight is one item of k carrying the members it cites (their facts
    # are in its text) as provenance; those members are not shown again. "group": an insight
    # brings up to members_per_insight of the members it SUMMARIZES (most relevant first), each
    # counted in k. Either way a member shows its insights. "plain": off.
    insights: Literal["digest", "group", "plain"] = "digest"
    members_per_insight: int = Field(default=3, ge=0, le=100)
    # Profile cards in context() (issue 47): when the query names a subject with an approved card
    # (or the caller's subject has one), up to this share of the word budget shows, first, the card
    # items of the pool's memories the lines had no room for (each memory said the short way,
    # dated, cited). Off (0) by default: on the dev conversations 0.1-0.5 moved answer words by
    # -0.008..+0.002 and cost multi-hop up to 0.032 at 150 words (docs/RETRIEVAL.md).
    card_share: float = Field(default=0.0, ge=0, le=1)
    # context() with a budget in words only also holds at most this many model tokens a word (issue
    # 59: one 20,000-character "word", or text without spaces, walked through a 10-word budget).
    # 4 never binds on prose (about 1.3 a word) or on the dev sets' lines with their ids.
    tokens_per_word: float = Field(default=4.0, ge=1, le=100)
    # How a context()'s text cites a memory (issues 61, 63): "short" = "#3", the memory's place in the
    # context's ranking (2-3 model tokens; `Context.refs` maps each to its id, `lines[].ids` keep the
    # ids); "id" = the memory's id (an id of the LangGraph store is ~40 characters, 15-25 tokens).
    context_refs: Literal["short", "id"] = "short"
    # The question's own time (issue 61): with `when` left out, the time phrases of the query ("last
    # month", "in May", "two weeks ago"), resolved against as_of or the caller's `now`, boost the
    # memories whose event time falls in that window (recall/eventwindow.py); a query that names no
    # time ranks as without it. Off by default: measured on and off (docs/RETRIEVAL.md, "Event
    # time"), it raised LoCoMo and LongMemEval's temporal answer words but cost LongMemEval's
    # session recall up to 0.016 (multi-session, temporal). `when="auto"` asks for it per call.
    question_time: bool = False


class ConsolidationConfig(Section):
    enabled: bool = False  # discover clusters and synthesize insights
    dry_run: bool = True  # report clusters but do not synthesize
    # Cosine floor for a SIMILAR edge. None (default): the embedder's calibrated floor (issue 12;
    # MiniLM 0.65). Read the floor in effect as `similarity_floor`, never `sim_floor`.
    sim_floor: float | None = Field(default=None, ge=-1, le=1)
    # Wake the consolidate job early (issue 10) when a cluster scan reports consolidation_due
    # or a subject gains [jobs] trigger_cluster_size new memories; still bounded by dry_run and daily_cap.
    auto_trigger: bool = True
    min_size: int = Field(default=3, ge=2)
    max_size: int = Field(default=25, ge=2)
    # Cohesion (gate.py): fused weight inside the cluster / (size * cohesion_slots(size) / 2), i.e.
    # edge density up to similar_k + 1 members, mean weighted in-cluster degree / similar_k above.
    min_cohesion: float = Field(default=0.35, ge=0, le=1)
    min_salience: float = Field(default=2.0, ge=0)
    novelty_overlap_max: float = Field(default=0.5, ge=0, le=1)
    daily_cap: int = Field(default=20, ge=0)  # syntheses per UTC day, all namespaces together (the ceiling)
    # Syntheses per UTC day and namespace (0 = only the ceiling): one tenant spending its share
    # leaves the rest of the ceiling to the others (issue 30). Off by default, so a single-tenant
    # store keeps the whole ceiling; a shared server sets it below daily_cap (docs/HTTP-POLICY.md).
    namespace_daily_cap: int = Field(default=0, ge=0)
    algorithm: Literal["label_propagation", "leiden"] = "label_propagation"
    max_iterations: int = Field(default=20, ge=1, le=1000)
    leiden_gamma: float = Field(default=1.0, gt=0)  # resolution, used as is when leiden_density = 0
    # Leiden resolution from a density: gamma = leiden_density * n / mean weighted degree of the
    # projected graph, so the cluster sizes found do not drift with the size of the store
    # (a fixed modularity gamma merges small clusters more as the graph grows; bench/clusters/planted.py).
    leiden_density: float = Field(default=0.07, ge=0, le=1)
    leiden_seed: int = 42
    # Fusion: weight of each signal in the summed edge weight.
    similarity_weight: float = Field(default=1.0, ge=0)
    link_weight: float = Field(default=1.0, ge=0)
    coaccess_weight: float = Field(default=1.0, ge=0)
    # Per link kind (1.0 for a kind not listed); >= 0 like every weight: the detectors need
    # non-negative weights, and the projection keeps a pair when one of its signals weighs > 0.
    link_kind_weights: dict[str, Annotated[float, Field(ge=0)]] = Field(default_factory=dict)
    # Co-access saturates: a pair used together `count` times weighs count / (count + coaccess_k).
    coaccess_k: float = Field(default=1.0, gt=0)
    # Dense-but-cold trigger: a member is cold when used at most this many times.
    cold_access_max: int = Field(default=2, ge=0)
    # A community over max_size is split by Leiden on its own subgraph at this resolution, raised
    # by split_gamma_step per level, at most split_max_depth levels deep (consolidation/split.py).
    split_gamma: float = Field(default=1.0, gt=0)
    split_gamma_step: float = Field(default=2.0, gt=1)
    split_max_depth: int = Field(default=6, ge=0, le=20)
    # A cluster of two groups that differ in a word (opened / closed) is split in two
    # (consolidation/contrast.py): the embedder places such statements at cosine 0.9-0.99.
    # Off by default: it reads every accepted cluster's texts, +100 s of gate at 1M memories
    # (bench/store/results/scale.json) for +0.03-0.04 mean purity on two loghub systems.
    contrast_split: bool = False

    # The embedder's calibrated floor, bound by Config when the configuration is loaded.
    _embedder_floor: float | None = PrivateAttr(default=None)
    # admission.similar_k, bound by Config: the neighbour slots cohesion is measured against.
    _similar_k: int = PrivateAttr(default=5)

    def cohesion_slots(self, size: int) -> int:
        """How many fellow members one member of a `size`-member cluster can be linked to by
        SIMILAR: min(similar_k, size - 1) (every member, when SIMILAR is off)."""
        return min(self._similar_k, size - 1) if self._similar_k > 0 else size - 1

    @property
    def similarity_floor(self) -> float:
        """The SIMILAR floor in effect: `sim_floor` when set, else the embedder's calibrated floor."""
        if self.sim_floor is not None:
            return float(self.sim_floor)
        if self._embedder_floor is not None:
            return self._embedder_floor
        return similarity_floor_of(EmbeddingConfig(), None)[0]


# Used only for an embedder without a calibrated floor (the pre-calibration default).
UNCALIBRATED_FLOOR = 0.82


def similarity_floor_of(embedding: EmbeddingConfig, sim_floor: float | None) -> tuple[float, str]:
    """(floor, where it comes from): the configured `sim_floor`, else the embedder's own."""
    if sim_floor is not None:
        return float(sim_floor), "consolidation.sim_floor"
    floor, how = floor_of(embedding.provider, embedding.model)
    if floor is None:
        return UNCALIBRATED_FLOOR, f"uncalibrated default ({how}; set consolidation.sim_floor)"
    return float(floor), f"embedder {embedding.model if embedding.provider == 'openai' else 'minilm'}: {how}"


# -- maintenance (issue 5) ---------------------------------------------------------------
class MergeConfig(Section):
    """Near-duplicate merge, in stages (graphcons/maintenance/merge/score.py): the seed score
    title_weight * jaro_winkler(title) + content_weight * cosine >= threshold makes a candidate;
    the difference check may make it a conflict; the verifier's p_duplicate places it against
    the two operating points (bench/merge/quality.py picks them; bench/merge/results/merge-quality.json)."""

    # stage (b), the candidate floor: the verifier runs only on pairs at or over it (0.65 keeps 93 % of
    # MRPC duplicates as candidates; the seed's 0.92 kept 14 %)
    threshold: float = Field(default=0.65, ge=0, le=1)
    title_weight: float = Field(default=0.4, ge=0, le=1)
    content_weight: float = Field(default=0.6, ge=0, le=1)
    # stage (d), merge/verify.py: "rules" (default, offline logistic regression); "llm" (the [llm] provider
    # judges each candidate, redacted, fenced as data; at most llm_daily_cap calls a UTC day and [llm]
    # max_calls_per_run a run, a pair without a verdict stays pending for a later run; merge/verify_llm.py);
    # "onnx" (your own cross-encoder or NLI model: onnx_model + onnx_tokenizer; merge/verify_onnx.py).
    # The operating points below were picked for "rules"; re-pick them for an onnx model.
    verifier: Literal["rules", "llm", "onnx"] = "rules"
    llm_daily_cap: int = Field(default=200, ge=0)  # llm verifier: calls per UTC day (0 = no limit)
    # llm verifier: a `duplicate` the rules verifier places under this p_duplicate is not acted on
    # (the rules stage contradicts it; a `conflict` it places at or over propose_at neither).
    llm_duplicate_floor: float = Field(default=0.3, ge=0, le=1)
    onnx_model: str | None = None  # onnx verifier: path of the model file (.onnx)
    onnx_tokenizer: str | None = None  # onnx verifier: path of its tokenizer.json (Hugging Face tokenizers)
    # onnx verifier: the model's output columns, e.g. ["contradiction", "entailment", "neutral"] for an NLI
    # model (needs "entailment"; "contradiction" makes a conflict); empty: one logit, a cross-encoder
    onnx_labels: list[str] = Field(default_factory=list)
    onnx_max_tokens: int = Field(default=256, ge=8, le=4096)
    # operating point `propose` (recall-oriented, a human reviews): the lowest p_duplicate whose dev-half
    # merges have MRPC precision >= 0.88, merge < 1 % of STS-B pairs graded < 3 and <= 0.5 % of SICK
    # contradictions (bench/merge/quality.py PROPOSE_RULE; held-out MRPC half P 0.91 R 0.49). Issue 29's
    # cross-dataset figures (fit on two data sets, report on the third): docs/MERGE.md
    propose_at: float = Field(default=0.74, ge=0, le=1)
    # stage (c): a pair whose content words mostly do not line up (difflib ratio of the two content-word
    # sequences under this) is no restatement, whatever the verifier says: the largest round floor that
    # keeps >= 99 % of the dev half's MRPC true merges at propose_at (bench/merge/quality.py ORDER_RULE); the
    # fitted verifier alone proposed same-subject pairs of shuffled words (bench/merge/speed.py's synthetic store)
    min_order_ratio: float = Field(default=0.4, ge=0, le=1)
    # operating point `auto_apply` (precision-oriented): the lowest p_duplicate whose dev-half merges have
    # MRPC precision >= 0.97 over >= 50 merges, no STS-B pair graded < 3, no SICK contradiction
    # (AUTO_RULE: 0.91), plus 0.02 of margin (held-out MRPC half P 0.97 R 0.12; docs/MERGE.md)
    auto_apply_at: float = Field(default=0.93, ge=0, le=1)
    top_k: int = Field(default=5, ge=1, le=100)  # neighbours kept per memory (same subject + namespace)
    # vector-index candidates read before the filter, for a subject too large to compare all pairs (merge.blocking)
    search_width: int = Field(default=50, ge=1, le=1000)
    auto_apply: bool = False  # apply pairs over auto_apply_at directly instead of queueing proposals
    contradiction_guard: bool = True  # negation / antonym / role reversal / numbers / dates / names -> CONFLICTS_WITH
    related_links: bool = True  # near paraphrases with a difference -> RELATED link (never a merge)
    # A conflict contests a premise of an insight (seed 002) only between near-identical texts:
    # over the candidate floor many pairs merely share a topic (two incidents of different
    # deploys differ "in the same place"); those are shown for review but withdraw nothing.
    # 0.92 was the seed-score threshold the old merge rule used for near-duplicates.
    contest_at: float = Field(default=0.92, ge=0, le=1)
    batch_size: int = Field(default=500, ge=1, le=10_000)


class UpdatesConfig(Section):
    """Updates noticed (issue 51; graphcons/maintenance/updates): a newer memory stating a new value for what
    an older one of the same subject stated is proposed as `(newer)-[:SUPERSEDES {reason: 'update'}]->(older)`
    in the review queue. Auto-apply is off: a person approves each one unless `auto_apply` is set."""

    auto_apply: bool = False  # apply proposals at or over auto_apply_at at once instead of queueing them
    # the share of the shorter sentence's content words the two sentences share (detect.py's confidence)
    auto_apply_at: float = Field(default=0.8, ge=0, le=1)
    # "llm" (opt-in, issue 62): the [llm] model reads each pair the rules found before it is proposed, and
    # only a pair it calls an update, with answers that agree, is proposed (maintenance/updates/verify.py)
    verifier: Literal["rules", "llm"] = "rules"
    llm_daily_cap: int = Field(default=200, ge=0)  # llm verifier: calls per UTC day (0 = no limit)


class WeightsConfig(Section):
    """effective_weight = (sum_i c_i * component_i / sum_i c_i) * decay (see graphcons/core/weights.py)."""

    manual: float = Field(default=0.3, ge=0)
    confidence: float = Field(default=0.2, ge=0)
    usage: float = Field(default=0.2, ge=0)
    feedback: float = Field(default=0.3, ge=0)
    usage_saturation: float = Field(default=10.0, gt=0)  # accesses at which usage reaches 1 - 1/e
    base_stability_days: float = Field(default=7.0, gt=0)  # S of a never-accessed memory
    reinforcement: float = Field(default=1.0, ge=0)  # each access adds reinforcement * base to S
    max_stability_days: float = Field(default=3650.0, gt=0)
    batch_size: int = Field(default=1000, ge=1, le=50_000)
    tolerance: float = Field(default=1e-9, ge=0)  # changes smaller than this are not written


class PromotionConfig(Section):
    """proposed -> active rules of seed 003, checked in this order; the first that fires is recorded."""

    min_sources: int = Field(default=3, ge=1)  # distinct sources for direct promotion
    min_sources_weighted: int = Field(default=2, ge=1)
    min_weight: float = Field(default=0.5, ge=0, le=1)
    direct_kinds: list[str] = Field(default_factory=lambda: ["decision"])  # architectural decisions
    min_age_hours: float = Field(default=24.0, ge=0)  # time-based, only with no open conflict
    time_based: bool = True


class DeprecationConfig(Section):
    """Stale = older than min_age_days, effective_weight < max_weight, access_count <= max_access_count."""

    min_age_days: float = Field(default=30.0, ge=0)
    max_weight: float = Field(default=0.1, ge=0, le=1)
    max_access_count: int = Field(default=0, ge=0)
    archive: bool = True  # a stale memory without an active replacement is archived
    statuses: list[Literal["proposed", "active"]] = Field(default_factory=lambda: ["active", "proposed"])


class HealthConfig(Section):
    """When `graphcons health` warns about work piling up (issue 29). Shares are of the live
    memories (active, proposed, consolidated): a queue that grows with the store is judged
    against the store's size; below `warn_min_count` nothing is a backlog yet."""

    pending_merges_warn_share: float = Field(default=0.02, ge=0)  # pending merge proposals / live memories
    open_conflicts_warn_share: float = Field(default=0.01, ge=0)  # open CONFLICTS_WITH links / live memories
    warn_min_count: int = Field(default=20, ge=0)  # fewer pending proposals (or open conflicts) never warn


# -- the HTTP service and redaction (issue 16) ----------------------------------------------
class ServiceConfig(Section):
    """`graphcons serve`: where it listens and how much one request may carry."""

    host: str = "127.0.0.1"  # loopback by default: exposing the API is a deliberate choice
    port: int = Field(default=8765, ge=1, le=65535)
    max_body_bytes: int = Field(default=1_048_576, ge=1024)  # a larger request is refused with 413
    max_batch: int = Field(default=100, ge=1, le=1000)  # memories per POST /v1/memories/batch
    max_k: int = Field(default=100, ge=1, le=1000)  # hits per retrieve / search


class OtelConfig(Section):
    """OpenTelemetry traces (issue 42; needs the `otel` extra): a span per HTTP request, per job run
    and per Neo4j query file. Off by default; `endpoint` is an OTLP/HTTP traces URL."""

    enabled: bool = False
    endpoint: str = ""  # e.g. http://localhost:4318/v1/traces; empty = the exporter's own default / env
    service_name: str = Field(default="graphcons", min_length=1, max_length=100)
    # otlp: OTLP/HTTP to `endpoint`; console: each span as JSON on stdout; memory: kept in the process
    # (core/tracing.exported(), for tests and a quick look)
    exporter: Literal["otlp", "console", "memory"] = "otlp"


class RedactionConfig(Section):
    """Secrets are replaced by typed placeholders before any model sees memory text."""

    enabled: bool = True
    emails: bool = True  # e-mail addresses too ([REDACTED:email])
    patterns: list[str] = Field(default_factory=list)  # extra regexes; a match becomes [REDACTED:custom]

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, v: list[str]) -> list[str]:
        for pattern in v:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None
        return v


# -- reflection (issue 14, seed 004) ---------------------------------------------------
class ReflectionConfig(Section):
    """Per-entity reflection: typed preferences / behaviors / facts / summary per subject."""

    enabled: bool = False  # the scheduled `--due` pass (on-demand `reflect` always runs)
    auto_apply: bool = False  # apply a reflection directly instead of queueing a proposal
    entity_threshold: int = Field(default=10, ge=1)  # unconsolidated memories that make a subject due
    namespace_threshold: int = Field(default=50, ge=1)  # ... for namespace-wide subjects (below)
    # Subjects that stand for "no specific entity" (the admission default) or a namespace's whole user.
    namespace_subjects: list[str] = Field(default_factory=lambda: ["general"])
    recent: int = Field(default=50, ge=1, le=1000)  # the most recent unconsolidated memories considered
    max_shown: int = Field(default=15, ge=1, le=100)  # of those, how many the model is shown
    kinds: list[str] = Field(default_factory=lambda: ["episode", "observation", "preference", "decision",
                                                      "incident", "fact"])
    max_statements: int = Field(default=5, ge=1, le=50)  # per category (preferences, behaviors, facts)
    importance: float = Field(default=0.8, ge=0, le=1)  # of each semantic memory a reflection creates
    same_statement: float = Field(default=0.9, ge=-1, le=1)  # cosine at which a statement confirms an entry
    contradiction_floor: float = Field(default=0.7, ge=-1, le=1)  # cosine above which opposite polarity flags
    daily_cap: int = Field(default=20, ge=0)  # reflections attempted per UTC day, all namespaces together
    namespace_daily_cap: int = Field(default=0, ge=0)  # reflections per UTC day and namespace (0 = only the ceiling)
    models: dict[str, str] = Field(default_factory=dict)  # namespace -> model ("offline": no LLM)
# -- scheduled jobs (issue 10) -----------------------------------------------------------------
class JobConfig(Section):
    """One deferred operation: when it runs (cron, UTC), whether it runs, its own limits."""

    schedule: str
    enabled: bool = True
    max_items: int = Field(default=0, ge=0)  # consolidate / reflect: syntheses per run (0 = no limit)
    llm_budget: int = Field(default=0, ge=0)  # consolidate / reflect: LLM calls per run (0 = [llm] max_calls_per_run)

    @field_validator("schedule")
    @classmethod
    def _cron(cls, v: str) -> str:
        return schedule.check(v)


def _job(expr: str, **kw: Any) -> Any:
    return Field(default_factory=lambda: JobConfig(schedule=expr, **kw))


class JobsConfig(Section):
    """Seed 003's frequencies and seed 004's times (UTC). A job that never ran is due at once."""

    merge: JobConfig = _job("0 */6 * * *")
    updates: JobConfig = _job("20 */6 * * *")  # issue 51: updates noticed, proposed for review
    promote: JobConfig = _job("15 */6 * * *")
    weights: JobConfig = _job("0 */12 * * *")
    decay: JobConfig = _job("30 3 * * *")
    consolidate: JobConfig = _job("30 3 * * *")
    precompute: JobConfig = _job("0 5 * * *")
    deprecate: JobConfig = _job("0 4 */2 * *")  # every other day (cron has no "every 48 h")
    reflect: JobConfig = _job("45 4 * * 0")  # seed 004: weekly, Sunday 04:45; reflects only with [reflection] enabled
    cards: JobConfig = _job("55 4 * * 0")  # issue 47: profile cards proposed for review, weekly after reflect
    index: JobConfig = _job("50 4 * * *")  # vector index health: probe, rebuild when slow (issue 15)
    # event times of memories admitted before the resolver (issue 47): due at once on a store that never ran it,
    # then weekly (admission and edits store their own)
    event_time: JobConfig = _job("10 5 * * 0")
    keys: JobConfig = _job("25 3 * * *")  # issue 61: retrieval keys of the memories written since, daily before consolidate
    index_slowdown_max: float = Field(default=3.0, gt=1)  # index job: rebuild when its probe is this x slower than after the last rebuild
    lease_ttl_s: float = Field(default=180.0, ge=1)  # a killed worker's lease expires after this
    poll_s: float = Field(default=30.0, gt=0)  # how often a worker looks for due jobs and triggers
    trigger_insertions: int = Field(default=10, ge=1)  # new memories in one subject -> merge, promote, updates
    trigger_cluster_size: int = Field(default=5, ge=2)  # new memories in one subject -> consolidate (auto_trigger)
    trigger_weight: float = Field(default=0.15, ge=0, le=1)  # a live memory below it after decay -> deprecate
    trigger_min_gap_s: float = Field(default=600.0, ge=0)  # a trigger never reruns a job sooner than this
    # A run triggered by dirty subjects touches only the dirty (namespace, subject) scopes where the job can
    # (merge and updates: their pairs never cross a scope); scheduled runs stay full passes (issue 33).
    incremental: bool = True

    @model_validator(mode="after")
    def _limits(self) -> "JobsConfig":
        for name in ("merge", "updates", "promote", "weights", "decay", "precompute", "deprecate", "index", "event_time",
                     "cards", "keys"):
            job = getattr(self, name)
            if job.max_items or job.llm_budget:
                raise ValueError(f"jobs.{name}: max_items and llm_budget apply to consolidate and reflect only")
        return self


class GdsConfig(Section):
    """Where the graph algorithms run (issue 33). "plugin": the GDS plugin of the database itself
    (today's server-side path), driven by graphcons' own Cypher procedure calls (`client = false`,
    the default: detection and the members' fields in one query) or by the graphdatascience client
    (`client = true`, the same projection and algorithms through the client's API). "sessions": an
    Aura Graph Analytics session (graphdatascience's GdsSessions): the fused graph is projected
    remotely from the database into the session and the communities stream back; needs Aura API
    credentials (GRAPHCONS_AURA_CLIENT_ID / GRAPHCONS_AURA_CLIENT_SECRET, optional
    GRAPHCONS_AURA_PROJECT_ID), never stored in graphcons.toml."""

    backend: Literal["plugin", "sessions"] = "plugin"
    client: bool = False
    session_name: str = "graphcons"
    # graphdatascience's SessionMemory sizes
    session_memory: Literal["2GB", "4GB", "8GB", "16GB", "24GB", "32GB", "48GB", "64GB", "96GB", "128GB",
                            "192GB", "256GB", "384GB", "512GB"] = "8GB"
    session_ttl_minutes: int = Field(default=60, ge=1)
    session_timeout_s: int = Field(default=600, ge=1)  # waiting for a new session to start

    @model_validator(mode="after")
    def _client_for_sessions(self) -> "GdsConfig":
        if self.backend == "sessions":
            self.__dict__["client"] = True  # a session is only reachable through the client
        return self


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt [section] is an error, never silently ignored

    neo4j: Neo4jConfig = Field(default_factory=Neo4jConfig)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    admission: AdmissionConfig = Field(default_factory=AdmissionConfig)
    consolidation: ConsolidationConfig = Field(default_factory=ConsolidationConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    merge: MergeConfig = Field(default_factory=MergeConfig)
    updates: UpdatesConfig = Field(default_factory=UpdatesConfig)
    weights: WeightsConfig = Field(default_factory=WeightsConfig)
    promotion: PromotionConfig = Field(default_factory=PromotionConfig)
    deprecation: DeprecationConfig = Field(default_factory=DeprecationConfig)
    health: HealthConfig = Field(default_factory=HealthConfig)
    service: ServiceConfig = Field(default_factory=ServiceConfig)
    otel: OtelConfig = Field(default_factory=OtelConfig)
    redaction: RedactionConfig = Field(default_factory=RedactionConfig)
    reflection: ReflectionConfig = Field(default_factory=ReflectionConfig)
    jobs: JobsConfig = Field(default_factory=JobsConfig)
    gds: GdsConfig = Field(default_factory=GdsConfig)

    source_path: Path | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _bind_embedder_floor(self) -> "Config":
        self.consolidation._embedder_floor = similarity_floor_of(self.embedding, None)[0]
        self.consolidation._similar_k = self.admission.similar_k
        return self

    @property
    def similarity_floor(self) -> float:
        """The cosine floor for SIMILAR edges in effect (configured, else the embedder's calibrated one)."""
        return self.consolidation.similarity_floor

    def public_dict(self) -> dict[str, Any]:
        """The settings as a dict with secrets masked (for `config show` and audit records)."""
        data = self.model_dump(mode="json", exclude={"source_path"})
        floor, source = similarity_floor_of(self.embedding, self.consolidation.sim_floor)
        data["consolidation"]["similarity_floor"] = floor
        data["consolidation"]["similarity_floor_source"] = source
        for section in data.values():
            if isinstance(section, dict):
                for key in ("password", "api_key"):
                    if section.get(key):
                        section[key] = "***"
        return data


_WELL_KNOWN_ENV = {
    "NEO4J_URI": ("neo4j", "uri"),
    "NEO4J_USER": ("neo4j", "user"),
    "NEO4J_USERNAME": ("neo4j", "user"),
    "NEO4J_PASSWORD": ("neo4j", "password"),
    "NEO4J_DATABASE": ("neo4j", "database"),
    "GRAPHCONS_LLM_MODEL": ("llm", "model"),
}


def _parse_env_value(raw: str) -> Any:
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def _env_overrides(env: dict[str, str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, (section, key) in _WELL_KNOWN_ENV.items():
        if env.get(name):
            out.setdefault(section, {})[key] = env[name]
    for name, raw in env.items():
        if name.startswith("GRAPHCONS__") and name.count("__") == 2:
            _, section, key = name.split("__")
            out.setdefault(section.lower(), {})[key.lower()] = _parse_env_value(raw)
    return out


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_config(path: str | Path | None = None, env: dict[str, str] | None = None) -> Config:
    env = dict(os.environ if env is None else env)
    explicit = path or env.get("GRAPHCONS_CONFIG")
    file = Path(explicit) if explicit else Path("graphcons.toml")
    data: dict[str, Any] = {}
    if file.is_file():
        try:
            data = tomllib.loads(file.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{file}: not valid TOML: {exc}") from exc
    elif explicit:
        raise ConfigError(f"config file {file} does not exist")
    data = _merge(data, _env_overrides(env))
    port = env.get("GRAPHCONS_NEO4J_BOLT_PORT")
    if port and "uri" not in data.get("neo4j", {}):  # the server scripts/neo4j started on that port
        data.setdefault("neo4j", {})["uri"] = f"bolt://127.0.0.1:{port}"
    try:
        cfg = Config.model_validate(data)
    except PydanticValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{field}: {first['msg']} (in {file if file.is_file() else 'environment'})") from exc
    cfg.source_path = file if file.is_file() else None
    return cfg

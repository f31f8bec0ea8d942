"""The MCP tools and resources; each calls one verb of the Graphcons facade.

Tools (descriptions are written for a model choosing among them):
    remember(content, subject?, namespace?, source?, kind?, links?, title?, created_at?)   add a memory
    recall(query, k?, namespace?, subject?)       retrieve, an insight carrying the members it cites
    context(query, budget_words?, budget_tokens?, namespace?, subject?)  the citable text block (a header per day) to paste into a prompt
    explain(id)                                   the provenance tree down to the source episodes
    profile(subject, namespace?)                  an entity's preferences, behaviors, facts
    reflect(subject, namespace?)                  propose a reflection on an entity (review queue)
    proposals(action, ...)                        list / show / approve / reject (reviewers)
    feedback(id, verdict, note?)                  rate a memory useful or wrong
    run_job(job, dry_run?, namespace?)            run the update or card pass now (admins; review queue)
Resources: graphcons://memories/{memory_id}, graphcons://insights/{insight_id} (with provenance).

Roles and namespaces are the HTTP API's (graphcons/access/rights.py, shared with it): reader < writer
< reviewer < admin; another namespace's memory or proposal is "not found". Errors come back as tool errors
named like the HTTP API's ("bad_input (field): ...", "forbidden: ...", "not_found: ...").
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import threading
from pathlib import Path
from typing import Annotated, Any, Callable, Literal

from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.server.stdio import stdio_server
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag
from pydantic import ValidationError as ArgumentsError
from pydantic_core import to_jsonable_python

from graphcons.access import limits, logmask
from graphcons.access.errors import status_of, unavailable_text
from graphcons.access.holder import Store
from graphcons.access.limits import MAX_ID, MAX_NAME, MAX_NAMESPACE, MAX_NOTE, MAX_TIME, BodyLimit, QueryText
from graphcons.access.rights import (Forbidden, own_memory, own_proposal, qualified, read_namespace, require, unseen,
                                     write_namespace)
from graphcons.core.config import Config, load_config
from graphcons.core.db import call_scope
from graphcons.core.errors import Busy, GraphconsError, NotFound, ServerUnavailable, ValidationError
from graphcons.core.inputs import SURROGATE, cut, text_problem, texts
from graphcons.core.memory import MAX_LINKS, KindName, Memory
from graphcons.mcp import unauthorized, wire
from graphcons.mcp.rights import LOCAL, LOCAL_SOURCE, StoreTokenVerifier, local_principal, request_principal
from graphcons.recall.hits import Hit
from graphcons.recall.query import RecallQuery
from graphcons.review.queue import KINDS
from graphcons.store.proposals import STATUSES

# what the `proposals` tool lists of each (its members under the name they are stored as)
LISTED = ("id", "kind", "status", "namespace", "subject", "title", "created_at", "member_ids", "memory_ids")
from graphcons.store.tokens import Principal

log = logging.getLogger("graphcons.mcp")

Transport = Literal["stdio", "streamable-http"]
# what recall shows of a hit's and a member's wire shape: not the ranking's parts (vector, keyword, graph,
# community, derived), nor each member's insights (the insight that carries it, again)
RECALLED = ("memory", "score", "superseded_by", "until", "via", "insights", "exceptions")
RECALLED_MEMBER = ("memory", "relevance", "superseded_by", "until")
RECALL_NOTE = ("hits are in rank order (rank 1 first); score is each hit's relevance before the diversity step "
               "(fused vector and keyword scores plus the graph step), so it need not decrease down the list; "
               "it is not a similarity")
INSTRUCTIONS = (
    "graphcons is a long-term memory that consolidates what it is told into reviewed knowledge. "
    "Call `recall` before answering anything that past conversations, decisions or incidents may "
    "inform; call `remember` for each new durable fact, preference, decision or incident (one memory "
    "per fact, with a `subject` naming the entity it is about). Insights in `recall` are "
    "generalisations over several memories; `explain` shows what one rests on. Nothing is ever deleted."
)


class Link(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    target: str = Field(min_length=1, max_length=MAX_ID, description="The id of an existing memory.")
    kind: str = Field(default="related", min_length=1, max_length=64,
                      description="How they relate, e.g. related, same_incident, caused_by.")


# Every argument carries its own description and bounds: a model reads only the schema. The bounds are
# the HTTP API's (access/limits.py; issue 59: a 2 MB query was answered after 7.8 s).
Content = Annotated[str, Field(description="The memory's text, stored verbatim: one fact, preference, decision, "
                                           "incident or observation, in a full sentence.")]
Subject = Annotated[str, Field(min_length=1, max_length=MAX_NAME,
                               description="The entity the memory is about: a user, service or project "
                                           "(e.g. user-ana, checkout). Default: general.")]
NamespaceArg = Annotated[str | None, Field(max_length=MAX_NAMESPACE,
                                           description="The namespace (tenant) to use; default: the caller's only "
                                                       "namespace, or default / all namespaces for a * token.")]
Source = Annotated[str | None, Field(max_length=MAX_NAME,
                                     description="Where the memory came from (e.g. slack, pagerduty); with an API "
                                                 "token it is shown as the origin, the token is the source.")]
KindArg = Annotated[KindName, Field(description="What kind of memory this is.")]  # type: ignore[valid-type]
# A link is an id or an object; the discriminator checks it as the one its JSON type says (so an error
# names that form only), and its tags (never an argument's name) are left out of the field an error names
LINK_FORMS = ("an id", "a link")
LinkArg = Annotated[Annotated[str, Field(min_length=1, max_length=MAX_ID), Tag(LINK_FORMS[0])]
                    | Annotated[Link, Tag(LINK_FORMS[1])],
                    Discriminator(lambda v: LINK_FORMS[0] if isinstance(v, str) else LINK_FORMS[1])]
Links = Annotated[list[LinkArg] | None, Field(max_length=MAX_LINKS,
                                              description="Memories this one relates to: ids, or "
                                                          "{target, kind} objects.")]
Title = Annotated[str | None, Field(description="A short title; default: the first sentence of the content.")]
When = Annotated[str | None, Field(max_length=MAX_TIME,
                                   description="When the event happened, ISO-8601 with a timezone (e.g. "
                                               "2023-05-08T13:56:00+00:00); default: now. Shown beside the memory "
                                               "in recall and context.")]
Budget = Annotated[int | None, Field(ge=10, le=5000, description=(
    "Words the block may hold, dates and ids included (300 when neither budget is given); it also holds at most "
    "[retrieval] tokens_per_word model tokens a word."))]
TokenBudget = Annotated[int | None, Field(ge=10, le=20000, description=(
    "Model tokens the block may hold (cl100k_base). Alone, the only budget; with budget_words, both hold."))]
Query = Annotated[QueryText, Field(description="What to look for, in natural language.")]
K = Annotated[int, Field(ge=1, le=1000, description="How many hits to return.")]  # le: [service] max_k at build
SubjectFilter = Annotated[str | None, Field(max_length=MAX_NAME,
                                            description="Only memories about this entity (a subject).")]
MemoryId = Annotated[str, Field(min_length=1, max_length=MAX_ID,
                                description="A memory or insight id, as returned by remember or recall.")]
AsOf = Annotated[limits.AsOf, Field(description="Answer with what was current then: a date (2023-05-27, its whole "
                                                "day) or an ISO-8601 date-time with a timezone. Default: now.")]
WhenArg = Annotated[limits.When, Field(description="Event time. Left out: the query's own time phrase (\"in June "
                                                   "2023\", \"last year\"), against as_of or now, ranks its memories "
                                                   "higher (the server's [retrieval] question_time); \"auto\": that "
                                                   "phrase whatever the setting; \"off\": no window; or a window: "
                                                   "2023-06-01, 2023-06, 2023, or START/END of those.")]
NowArg = Annotated[limits.Now, Field(description="What the query's own time phrases (\"last month\") are counted "
                                                "from: a date or an ISO-8601 date-time with a timezone. Default: now.")]
WhenMode = Annotated[Literal["boost", "restrict"] | None,
                     Field(description="With when: boost (default) moves memories of that time up; restrict "
                                       "shows only them.")]
Entity = Annotated[str, Field(min_length=1, max_length=MAX_NAME,
                              description="The entity: a memory subject such as user-ana.")]
Action = Annotated[Literal["list", "show", "approve", "reject"],
                   Field(description="list the queue, show one proposal, approve or reject it.")]
ProposalId = Annotated[str | None, Field(max_length=MAX_ID, description="The proposal to show, approve or reject.")]
Reason = Annotated[str | None, Field(max_length=MAX_NOTE,
                                     description="Why the proposal is rejected (required to reject; kept).")]
StatusArg = Annotated[Literal.__getitem__(STATUSES) | None,  # type: ignore[valid-type]
                      Field(description="list: only proposals with this status (default pending; null: all).")]
ProposalKind = Annotated[Literal.__getitem__(tuple(KINDS)) | None,  # type: ignore[valid-type]
                         Field(description="list: only proposals of this kind.")]
Limit = Annotated[int, Field(ge=1, le=1000, description="list: at most this many proposals.")]
Verdict = Annotated[Literal["useful", "wrong"], Field(description="Was the memory useful, or wrong?")]
Note = Annotated[str | None, Field(max_length=MAX_NOTE, description="Optional: what was useful or wrong about it.")]
JobName = Annotated[Literal["updates", "cards"],
                    Field(description="updates: find newer memories that state a new value for an older one's "
                                      "attribute (one `update` proposal each); cards: each subject's memories said "
                                      "the short way (one `card` proposal per subject).")]
DryRun = Annotated[bool, Field(description="True (the default): report what the pass would propose, write nothing.")]


def _error(exc: Exception) -> ToolError:
    """A graphcons error as the tool error a model reads (the HTTP API's error names), cut to
    core/inputs.SHOWN characters: the SDK also logs it, and it may carry a caller's value."""
    return ToolError(cut(str(_named(exc))))


def _named(exc: Exception) -> ToolError:
    if isinstance(exc, Forbidden):
        return ToolError(f"forbidden: {exc}")
    if isinstance(exc, ServerUnavailable):  # the public text only (the operator's may name the server)
        name = "transient" if isinstance(exc, Busy) else "unavailable"
        return ToolError(f"{name}: {unavailable_text(exc, exc.maybe_written)}")
    known = status_of(exc)
    if known:
        field = getattr(exc, "field", None)  # named once: "bad_input (k): must be ...", not "(k): k: must"
        return ToolError(f"{known[1]}{f' ({field})' if field else ''}: {getattr(exc, 'problem', None) or exc}")
    return ToolError(f"error: {exc}")


def _memory(m: Memory) -> dict[str, Any]:
    """What a model needs of a memory (no weights, hashes or embeddings)."""
    out = {"id": m.id, "kind": m.kind, "title": m.title, "content": m.content, "subject": m.subject,
           "namespace": m.namespace, "status": m.status, "created_at": m.created_at.isoformat(),
           "sources": list(m.sources)}
    if m.epistemic_status:
        out["epistemic_status"] = m.epistemic_status
    if m.event_start:  # when what it says happened, where its text says so (issue 63: as the Python hit has it)
        out.update(event_start=m.event_start, event_end=m.event_end)
    return out


def _recalled(h: Hit, rank: int) -> dict[str, Any]:
    """A hit as recall shows it: the hit's wire shape (recall/hits.py) without the ranking's parts, each
    memory as `_memory`, what says nothing left out (a model pays for every token); an insight always
    carries its members, the ids it cites and its source episodes, all read with the hit (issue 60)."""
    out = {"rank": rank, **_said(h.to_dict(only=RECALLED, memory=_memory))}
    out["score"] = round(float(h.score), 4)
    members = [_said(x.to_dict(only=RECALLED_MEMBER, memory=_memory)) for x in h.members or []]
    if h.memory.kind == "insight":
        out.update(cites=sorted(h.memory.derived_from or []), source_episodes=h.source_episodes or [], members=members)
    elif members:  # another memory that cites (a profile's statement, "digest" mode) carries them too
        out["members"] = members
    return out


def _said(shown: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in shown.items() if v is not None and v != []}


class Tools:
    """The tool bodies, bound to one store and one way of naming the caller."""

    def __init__(self, store: Store, caller: Callable[[], Principal]):
        self.store, self.caller = store, caller

    def _by(self, p: Principal) -> str:
        return LOCAL_SOURCE if p is LOCAL else p.source

    def remember(self, content: Content, subject: Subject = "general", namespace: NamespaceArg = None,
                 source: Source = None, kind: KindArg = "episode", links: Links = None,
                 title: Title = None, created_at: When = None) -> dict[str, Any]:
        g, p = self.store.get(), require(self.caller(), "writer")
        targets = [ln if isinstance(ln, Link) else Link(target=ln) for ln in links or []]
        written_to = write_namespace(p, namespace)
        targets = [ln.model_copy(update={"target": qualified(g, written_to, ln.target)}) for ln in targets]
        data: dict[str, Any] = {"content": content, "subject": subject, "kind": kind, "namespace": written_to,
                                "links": [ln.model_dump() for ln in targets]}
        if title is not None:
            data["title"] = title
        if created_at is not None:
            data["created_at"] = created_at
        if p is LOCAL:
            data["source"] = source or LOCAL_SOURCE
        else:  # as over HTTP: the evidence source is the token; a named source is a display label
            data["source"] = p.source
            if source:
                data["origin"] = source
        hidden = unseen(g, p, [ln.target for ln in targets])
        if hidden:  # the same answer as for an id that does not exist
            raise ValidationError("links.target", f"unknown memory id(s): {', '.join(sorted(hidden))}")
        a = g.add(data)
        return {"id": a.id, "created": a.created, "namespace": data["namespace"], "evidence_count": a.evidence_count,
                "similar": a.similar, "linked": a.linked}

    def recall(self, query: Query, k: K = 5, namespace: NamespaceArg = None,
               subject: SubjectFilter = None, as_of: AsOf = None, when: WhenArg = None,
               when_mode: WhenMode = None, now: NowArg = None) -> dict[str, Any]:
        g, p = self.store.get(), require(self.caller(), "reader")
        if not isinstance(k, int) or k < 1 or k > g.config.service.max_k:
            raise ValidationError("k", f"must be between 1 and {g.config.service.max_k}")
        hits = g.retrieve(RecallQuery.of(g.config.retrieval, query, k, namespace=read_namespace(p, namespace),
                                         subject=subject, record=p.has("writer"), as_of=as_of, when=when,
                                         when_mode=when_mode, now=now))
        return {"hits": [_recalled(h, rank) for rank, h in enumerate((h for h in hits if p.sees(h.memory.namespace)),
                                                                       start=1)],
                "note": RECALL_NOTE, **({"window": hits.window.to_dict()} if hits.window else {})}

    def context(self, query: Query, budget_words: Budget = None, namespace: NamespaceArg = None,
                subject: SubjectFilter = None, as_of: AsOf = None, when: WhenArg = None,
                when_mode: WhenMode = None, budget_tokens: TokenBudget = None, now: NowArg = None) -> dict[str, Any]:
        g, p = self.store.get(), require(self.caller(), "reader")
        q = RecallQuery.for_context(g.config.retrieval, query, namespace=read_namespace(p, namespace), subject=subject,
                                    record=p.has("writer"), as_of=as_of, when=when, when_mode=when_mode, now=now)
        return g.context(q, budget_words, budget_tokens=budget_tokens).to_dict()

    def explain(self, id: MemoryId) -> dict[str, Any]:
        g, p = self.store.get(), require(self.caller(), "reader")
        own_memory(g, p, id)
        return g.explain(id)

    def profile(self, subject: Entity, namespace: NamespaceArg = None) -> dict[str, Any]:
        g, p = self.store.get(), require(self.caller(), "reader")
        namespace = read_namespace(p, namespace)
        try:
            return g.profile(subject, namespace=namespace)
        except NotFound:  # the store's text names a CLI command; an agent has the reflect tool
            raise NotFound(f"no profile for {subject!r}{f' in namespace {namespace!r}' if namespace else ''}; call "
                           f"the `reflect` tool on it and have a reviewer approve the proposal") from None

    def reflect(self, subject: Entity, namespace: NamespaceArg = None) -> dict[str, Any]:
        g, p = self.store.get(), require(self.caller(), "writer")
        res = g.reflect(subject, namespace=read_namespace(p, namespace)).to_dict()
        res.pop("profile", None)  # the stored profile is what `profile` reads; this is the proposal
        return res

    def proposals(self, action: Action = "list", proposal_id: ProposalId = None, reason: Reason = None,
                  status: StatusArg = "pending", kind: ProposalKind = None, limit: Limit = 20) -> dict[str, Any]:
        g, p = self.store.get(), require(self.caller(), "reader")
        if action == "list":
            namespaces = None if p.everywhere else list(p.namespaces)
            found = g.proposal_records(status=status, kind=kind, limit=limit, namespaces=namespaces)
            return {"proposals": [x.to_dict(only=LISTED) for x in found]}
        if not proposal_id:
            raise ValidationError("proposal_id", f"required to {action} a proposal")
        if action == "show":
            return {"proposal": own_proposal(g, p, proposal_id)}
        require(p, "reviewer")
        own_proposal(g, p, proposal_id)
        if action == "approve":
            return {"decision": g.approve(proposal_id, by=self._by(p)).model_dump()}
        if not reason or not reason.strip():
            raise ValidationError("reason", "say why the proposal is rejected (it is kept with the reason)")
        return {"decision": g.reject(proposal_id, reason, by=self._by(p)).model_dump()}

    def run_job(self, job: JobName, dry_run: DryRun = True, namespace: NamespaceArg = None) -> dict[str, Any]:
        """The update or card pass (issue 63), as `POST /v1/jobs/{updates|cards}`: an admin's, within its
        namespaces; its proposals wait in the review queue (the `proposals` tool)."""
        g, p = self.store.get(), require(self.caller(), "admin")
        if job == "cards":
            return g.cards(dry_run=dry_run, namespace=read_namespace(p, namespace)).to_dict()
        return g.updates(dry_run=dry_run, namespace=read_namespace(p, namespace)).to_dict()

    def feedback(self, id: MemoryId, verdict: Verdict, note: Note = None) -> dict[str, Any]:
        g, p = self.store.get(), require(self.caller(), "writer")
        own_memory(g, p, id)
        return g.feedback(id, verdict, note=note, by=self._by(p))

    # -- resources ----------------------------------------------------------------------------------
    def memory_resource(self, memory_id: str) -> str:
        g, p = self.store.get(), require(self.caller(), "reader")
        return _json(own_memory(g, p, memory_id).model_dump())

    def insight_resource(self, insight_id: str) -> str:
        g, p = self.store.get(), require(self.caller(), "reader")
        m = own_memory(g, p, insight_id)
        if m.kind != "insight":
            raise NotFound(f"{insight_id} is a {m.kind}, not an insight (read graphcons://memories/{insight_id})")
        return _json({"insight": m.model_dump(), "provenance": g.explain(insight_id)})


def _json(value: Any) -> str:
    return json.dumps(to_jsonable_python(value), sort_keys=True, ensure_ascii=False)


def _tool(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            with call_scope():  # one tool call: a failure says whether a write of this call landed
                return to_jsonable_python(fn(*args, **kwargs))
        except (GraphconsError, Forbidden) as exc:
            raise _error(exc) from None
    return run


def _bounded(fn: Callable[..., Any], name: str, maximum: int) -> Callable[..., Any]:
    """`fn` with argument `name`'s schema maximum set to the configured one ([service] max_k)."""
    sig = inspect.signature(fn, eval_str=True)
    param = sig.parameters[name]
    info = param.annotation.__metadata__[0]
    bounded = Annotated[int, Field(ge=1, le=maximum, description=info.description)]
    fn.__signature__ = sig.replace(parameters=[param.replace(annotation=bounded) if p.name == name else p
                                               for p in sig.parameters.values()])  # type: ignore[attr-defined]
    return fn


def _bad_arguments(exc: ArgumentsError) -> str:
    """The SDK's argument check in the documented form, `bad_input (field): problem` (no pydantic link)."""
    out = []
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if p not in LINK_FORMS]
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "arguments"
        msg = "unknown argument" if err["type"] == "extra_forbidden" else err["msg"]
        out.append(f"bad_input ({field}): {msg}")
    return "; ".join(out)


class ExactArguments(FuncMetadata):
    """The SDK's argument metadata without its pre-parse, which turns a string that reads as JSON into
    that value ("null" -> None, '["a"]' -> a list): a string stays a string, as over HTTP."""

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return data


class GraphconsTool(Tool):
    """The SDK's tool with the HTTP API's rules for arguments: an unknown one is refused (the schema says
    additionalProperties: false), types are strict (no "5" or true for 5 or 1), every text passes the
    input policy (core/inputs: no NUL, no lone surrogate), and errors read like every other graphcons error."""

    @classmethod
    def strict(cls, fn: Callable[..., Any], *, name: str, description: str) -> "GraphconsTool":
        tool = cls.from_function(fn, name=name, description=description)
        loose = tool.fn_metadata
        exact = type(loose.arg_model.__name__, (loose.arg_model,),
                     {"model_config": ConfigDict(extra="forbid", strict=True), "__module__": __name__})
        tool.fn_metadata = ExactArguments(arg_model=exact, output_schema=loose.output_schema,
                                          output_model=loose.output_model, wrap_output=loose.wrap_output)
        tool.parameters = exact.model_json_schema(by_alias=True)
        return tool

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            self.fn_metadata.validate_arguments(arguments)
        except ArgumentsError as exc:
            raise ToolError(f"Error executing tool {self.name}: {cut(_bad_arguments(exc))}") from None
        for field, text in texts(arguments):
            problem = SURROGATE if text == wire.MARKER else text_problem(text)
            if problem:
                raise ToolError(f"Error executing tool {self.name}: bad_input ({field or 'arguments'}): {problem}")
        return await super().run(arguments, context, convert_result)


class GraphconsServer(MCPServer):
    """The SDK's server; a tool call with a lone surrogate reaches the tool on either transport (wire.py).
    Over streamable HTTP the bearer token is checked before any byte of a body is read, and a body over
    [service] max_body_bytes is refused with 413 as the HTTP API refuses it (issue 59: a 200 MB body with
    no token was read whole, 6 s and +400 MB, before the 401); a missing or bad token's 401 says so in the
    error the client sees (unauthorized.py)."""

    max_body_bytes = 1_048_576  # build_server sets [service] max_body_bytes

    def streamable_http_app(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("max_request_body_size", self.max_body_bytes)
        app = super().streamable_http_app(*args, **kwargs)
        for route in app.router.routes:
            guard = getattr(route, "app", None)
            if isinstance(guard, RequireAuthMiddleware):  # behind the token check, which reads headers only
                guard.app = BodyLimit(wire.LenientBody(guard.app), self.max_body_bytes, utf8=False)
                return unauthorized.SaysWhy(app)
        return unauthorized.SaysWhy(BodyLimit(wire.LenientBody(app), self.max_body_bytes, utf8=False))

    async def run_stdio_async(self) -> None:  # the SDK's, with the read stream passed through wire.Reread
        async with stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(wire.Reread(read_stream, write_stream), write_stream,
                                            self._lowlevel_server.create_initialization_options())


def _resource(fn: Callable[..., str]) -> Callable[..., str]:
    @functools.wraps(fn)
    def read(*args: Any, **kwargs: Any) -> str:
        try:
            return fn(*args, **kwargs)
        except NotFound as exc:
            raise ResourceNotFoundError(str(exc)) from None
        except (GraphconsError, Forbidden) as exc:
            raise ResourceError(str(_error(exc))) from None
    return read


DESCRIPTIONS = {
    "remember": "Store one memory: a fact, preference, decision, incident or observation worth keeping beyond "
                "this conversation. One memory per fact; `subject` names the entity it is about (a user, a "
                "service, a project: e.g. user-ana, checkout); `kind` says what it is; `links` are ids of "
                "memories it relates to. Storing the same content again adds evidence instead of a duplicate. "
                "Returns the memory id.",
    "recall": "Search long-term memory before answering from what was said, decided or observed earlier. "
              "Returns up to k memories ranked for the query; an insight (a digest graphcons consolidated "
              "from several memories: its claim and their facts, dated) stands for the members it cites and "
              "carries them, so they are not listed again. Narrow with "
              "`subject` (one entity) or `namespace`. The list order is the ranking (`rank` 1 first); `score` is "
              "the relevance before the diversity step, so it need not decrease down the list.",
    "context": "The text block to paste into your prompt before answering: the memories (and insight facts) "
               "most relevant to the query, best first, one line each with its id for citation, under a header "
               "of its day, never over `budget_words`, no fact twice. Prefer it to `recall` when you need words, not records.",
    "explain": "Answer 'how do you know this?' for a memory or insight id: the provenance tree down to the "
               "source episodes, with sources, dates and, for an insight, its epistemic status, "
               "justifications and exceptions.",
    "profile": "What graphcons knows about one entity (a `subject` such as user-ana): its preferences, "
               "behaviors and facts, each with the memories it came from, and a summary. Built by approved "
               "reflections: not found until a reflection on the entity is approved.",
    "reflect": "Ask graphcons to reflect on one entity now: its recent unconsolidated memories are distilled "
               "into preferences, behaviors and facts that cite them, queued as ONE proposal for a human "
               "reviewer (the profile changes only when it is approved). Use after many new memories about "
               "an entity; it counts toward a daily cap.",
    "proposals": "The human review queue: action=list (pending proposals of every kind: consolidations, "
                 "merges, reflections, updates, cards), show (one, in full), approve or reject (reviewer role; reject needs "
                 "a reason). Approving applies the proposal in one transaction; nothing is deleted.",
    "feedback": "Rate a memory or insight you used: verdict useful or wrong (with an optional note). Its "
                "weight in retrieval and decay follows.",
    "run_job": "Run a pass that keeps knowledge current now (admin role): job=updates notices a newer memory "
           "stating a new value for an older one's attribute, so recall shows the current value first and "
           "marks the earlier one; job=cards says each subject's memories the short way. A dry run (the "
           "default) reports what it would propose; dry_run=false queues the proposals for review (the "
           "`proposals` tool), applied only when a reviewer approves (or by [updates] auto_apply).",
}


def build_server(store: Store, *, transport: Transport = "stdio", host: str = "127.0.0.1", port: int = 8766,
                 env: dict[str, str] | None = None) -> GraphconsServer:
    """The MCP server over one store (its caller closes it). stdio: the local user's rights (or
    $GRAPHCONS_MCP_TOKEN's); streamable-http: each request's bearer token, as over the HTTP API."""
    logmask.install()  # no token in the log: uvicorn's access log of /mcp?token=... included
    options: dict[str, Any] = {}
    if transport == "stdio":
        def caller() -> Principal:  # checked on every call: a revoked token stops at once, as over HTTP
            return local_principal(store.get(), env)
    else:
        def caller() -> Principal:
            return request_principal(store)

        options = {"token_verifier": StoreTokenVerifier(store),
                   "auth": AuthSettings(issuer_url=f"http://{host}:{port}", resource_server_url=None)}
    tools = Tools(store, caller)
    registered = []
    for name, description in DESCRIPTIONS.items():
        fn = _tool(getattr(tools, name))
        if name == "recall":
            fn = _bounded(fn, "k", store.config.service.max_k)
        registered.append(GraphconsTool.strict(fn, name=name, description=description))
    server = GraphconsServer("graphcons", instructions=INSTRUCTIONS, tools=registered, **options)
    server.max_body_bytes = store.config.service.max_body_bytes
    server.resource("graphcons://memories/{memory_id}", name="memory", mime_type="application/json",
                    description="One memory (current version) as JSON.")(_resource(tools.memory_resource))
    server.resource("graphcons://insights/{insight_id}", name="insight", mime_type="application/json",
                    description="An insight with its provenance: what it summarises and cites, down to the "
                                "source episodes.")(_resource(tools.insight_resource))
    return server


def _warm(store: Store) -> None:
    try:
        store.get().warm()
    except Exception as exc:  # Neo4j not up yet: the server still serves, the first call pays
        log.warning("warm-up skipped: %s", exc)


def serve(config: Config | str | Path | None = None, *, transport: Transport = "stdio", host: str = "127.0.0.1",
          port: int = 8766, path: str = "/mcp") -> None:
    """Run the server until the client closes stdio, or serve streamable HTTP at http://host:port/path.
    One store (one Neo4j driver, one embedder) serves every session; it is opened and warmed
    (Graphcons.warm) on a thread at start, so the first tool call does not load the embedder (issue 52)."""
    cfg = config if isinstance(config, Config) else load_config(config)
    store = Store(cfg)
    threading.Thread(target=_warm, args=(store,), name="graphcons-mcp-warm-up", daemon=True).start()
    try:
        server = build_server(store, transport=transport, host=host, port=port)
        if transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=port, streamable_http_path=path)
    finally:
        store.close()

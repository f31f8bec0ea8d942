"""Commands of the foundation: init, add, import, show, history, link, access, search, stats, config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from graphcons.core.errors import ValidationError
from graphcons.core.text import printable
from graphcons.recall.hits import Hit
from graphcons.recall.query import RecallQuery
from graphcons.cli.app import (answer, JsonOpt, app, console, emit_json, err_console, errors_to_exit, load_cfg, literal,
                               open_store)


@app.command()
def init(json_out: bool = JsonOpt) -> None:
    """Create constraints and indexes (idempotent) and record the embedder of this store."""
    out = answer(json_out, lambda g: g.init())
    if out is not None:
        store = out["store"]
        console.print(f"schema applied ({len(out['schema'])} files), GDS {out['gds_version']}, "
                      f"embedder {store['embedding_model']} ({store['embedding_dimensions']} dims)")


@app.command()
def add(
    content: str = typer.Argument(..., help="The memory's text."),
    title: Optional[str] = typer.Option(None, help="Short title (default: the first sentence)."),
    kind: str = typer.Option("episode", help="episode, fact, decision, incident, preference, insight, pattern, ..."),
    subject: str = typer.Option("general", help="The resolved entity the memory is about."),
    namespace: str = typer.Option("default"),
    scope: str = typer.Option("global"),
    source: str = typer.Option("user", help="Who or what wrote it."),
    session: Optional[str] = typer.Option(None),
    importance: float = typer.Option(0.5, min=0.0, max=1.0),
    status: str = typer.Option("active", help="proposed or active"),
    id: Optional[str] = typer.Option(None, help="Your own id (default: derived)."),
    link: List[str] = typer.Option([], help="KIND:ID explicit link to an existing memory (repeatable)."),
    json_out: bool = JsonOpt,
) -> None:
    """Admit one memory: validate, dedupe, embed, write SIMILAR edges and links."""
    links = []
    for spec in link:
        kind_, _, target = spec.rpartition(":") if ":" in spec else ("related", "", spec)
        links.append({"target": target, "kind": kind_ or "related"})
    data = {"content": content, "kind": kind, "subject": subject, "namespace": namespace, "scope": scope,
            "source": source, "importance": importance, "status": status, "links": links}
    for key, value in (("title", title), ("session", session), ("id", id)):
        if value is not None:
            data[key] = value
    with open_store() as g:
        res = g.add(data)
    if json_out:
        emit_json(res.__dict__)
    elif res.created:
        console.print(f"added {res.id} ({len(res.similar)} similar, {res.linked} links)")
    else:
        console.print(f"duplicate of {res.id}: evidence from {res.evidence_count} distinct source(s)")


def _require_file(path: Path) -> None:
    """A missing file exits 2 naming it, and names the example of the same name if there is one
    (`graphcons import memories.jsonl` from the repository means examples/memories.jsonl)."""
    if path.is_file():
        return
    example = Path("examples") / path.name
    hint = f"; did you mean {example}?" if example.is_file() and example != path else ""
    with errors_to_exit():
        raise ValidationError("path", f"no such file: {path}{hint}")


@app.command("import")
def import_(path: Path = typer.Argument(..., dir_okay=False, readable=True,
                                        help="A JSON Lines file: one memory object per line."),
            json_out: bool = JsonOpt) -> None:
    """Admit memories from a JSONL file in batches; bad lines are reported, not fatal."""
    from graphcons.store.importer import count_lines

    _require_file(path)
    with open_store() as g:
        with Progress(TextColumn("importing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err_console, disable=json_out) as bar:
            task = bar.add_task("import", total=count_lines(path))
            report = g.import_jsonl(path, progress=lambda n: bar.advance(task, n))
    if json_out:
        emit_json({"admitted": report.admitted, "duplicates": report.duplicates,
                   "errors": [{"line": ln, "error": msg} for ln, msg in report.errors]})
    else:
        console.print(f"admitted {report.admitted}, duplicates {report.duplicates}, errors {len(report.errors)}")
        for ln, msg in report.errors:  # each bad line (issue 30)
            err_console.print(f"  line {ln}: {msg}", highlight=False)
    if report.errors:
        raise typer.Exit(2)


@app.command()
def show(memory_id: str, json_out: bool = JsonOpt) -> None:
    """Show one memory (current version)."""
    with open_store() as g:
        mem = g.get(memory_id)
        ep = g.epistemics(memory_id) if mem.kind == "insight" else None  # issue 13
    if json_out:
        emit_json({**mem.model_dump(mode="json"), **(ep or {})})
        return
    table = Table(show_header=False, box=None)
    for key, value in mem.model_dump().items():
        table.add_row(f"[bold]{key}[/]", literal(value))
    console.print(table)
    if ep:
        from graphcons.cli.beliefs import print_epistemics

        print_epistemics(ep)


@app.command("history")
def history_(memory_id: str, json_out: bool = JsonOpt) -> None:
    """Every version of a memory, oldest first."""
    versions = answer(json_out, lambda g: g.history(memory_id))
    if versions is None:
        return
    table = Table("version", "at", "title", "content")
    for v in versions:
        table.add_row(str(v["version"]), str(v["created_at"]), literal(v.get("title", "")), literal(v.get("content", "")[:80]))
    console.print(table)


@app.command()
def edit(memory_id: str, content: Optional[str] = typer.Option(None), title: Optional[str] = typer.Option(None),
         scope: Optional[str] = typer.Option(None), importance: Optional[float] = typer.Option(None),
         source: str = typer.Option("user"), json_out: bool = JsonOpt) -> None:
    """Edit a memory: a new version is written, the old one kept in history."""
    with open_store() as g:
        mem = g.edit(memory_id, source=source, content=content, title=title, scope=scope, importance=importance)
    if json_out:
        emit_json(mem.model_dump(mode="json"))
    else:
        console.print(f"{mem.id} is now at version {mem.version}")


@app.command()
def link(source_id: str, target_id: str, kind: str = typer.Option("related"), by: str = typer.Option("user")) -> None:
    """Add an explicit LINKED edge of a kind between two memories."""
    with open_store() as g:
        g.link(source_id, target_id, kind, by=by)
    console.print(f"linked {source_id} -[{kind}]-> {target_id}", markup=False, highlight=False)


@app.command()
def access(ids: List[str] = typer.Argument(..., help="Memory ids used together."),
           session: str = typer.Option(..., "--session", "-s", help="The session that used them."),
           json_out: bool = JsonOpt) -> None:
    """Record that memories were used together in a session (the co-access signal)."""
    out = answer(json_out, lambda g: g.access(session, ids))
    if out is not None:
        console.print(f"session {out['session']}: {out['accessed']} accessed, {out['pairs']} new co-access pairs")


AsOfOpt = typer.Option(None, "--as-of", help="What was current then: a date (2023-05-27) or an ISO-8601 date-time "
                                                "with a timezone.")
WhenOpt = typer.Option(None, "--when", help="Event time. Left out: the query's own time phrase (\"last month\") "
                                            "ranks its memories higher ([retrieval] question_time); auto: that phrase "
                                            "whatever the setting; off: no window; or a window (2023-06-01, 2023-06, "
                                            "2023, START/END).")
WhenModeOpt = typer.Option(None, "--when-mode", help="With --when: boost (default) or restrict.")
NowOpt = typer.Option(None, "--now", help="What the query's own time phrases are counted from: a date (2023-06-07) "
                                          "or an ISO-8601 date-time with a timezone (default: the clock).")


@app.command()
def context(query: str, budget: Optional[int] = typer.Option(None, "--budget", min=10, max=5000, help=(
                "Words the block may hold (ids and dates included; 300 when neither budget is given).")),
            tokens: Optional[int] = typer.Option(None, "--tokens", min=10, max=20000, help=(
                "Model tokens the block may hold (cl100k_base); alone, the only budget.")),
            namespace: Optional[str] = typer.Option(None), subject: Optional[str] = typer.Option(None),
            session: Optional[str] = typer.Option(None, help="Record the memories shown as used in this session."),
            as_of: Optional[str] = AsOfOpt, when: Optional[str] = WhenOpt, when_mode: Optional[str] = WhenModeOpt,
            now: Optional[str] = NowOpt, json_out: bool = JsonOpt) -> None:
    """Print the context block an agent pastes into its prompt: best memories and insight facts,
    each line with its id under a header of its day, never over the budget (words, tokens or both), no fact twice; a value an update
    superseded only after its successor ("earlier, until ...")."""
    with open_store() as g:
        q = RecallQuery.for_context(g.config.retrieval, query, namespace=namespace, subject=subject, session=session,
                                    record=session is not None, as_of=as_of, when=when, when_mode=when_mode, now=now)
        ctx = g.context(q, budget, budget_tokens=tokens)
    if json_out:
        emit_json(ctx.to_dict())
        return
    typer.echo(printable(ctx.text, multiline=True) if ctx.text else "(nothing in this scope matches)")
    words = f"{ctx.words} of {ctx.budget_words} words" if ctx.budget_words else f"{ctx.words} words"
    typer.echo(f"-- {words}, {ctx.tokens} of {ctx.budget_tokens} tokens, {len(ctx.ids)} memories cited", err=True)
    _say_window(ctx.window)


def _say_window(w) -> None:
    """The event-time window the ranking used, on stderr (the answer on stdout stays as it was)."""
    if w is not None:
        said = f" (the query's {', '.join(repr(p) for p in w.phrases)})" if w.phrases else ""
        typer.echo(f"-- event time {w.start} to {w.end}{said}: {'only those' if w.restrict else 'ranked higher'}",
                   err=True)


@app.command()
def search(query: str, k: int = typer.Option(5, min=1, max=1000), namespace: Optional[str] = typer.Option(None),
           subject: Optional[str] = typer.Option(None),
           mode: Optional[str] = typer.Option(None, help="hybrid | vector | keyword (default: [retrieval] mode)."),
           keyword: bool = typer.Option(False, "--keyword", help="Same as --mode keyword."),
           plain: bool = typer.Option(False, "--plain", help="Do not group insight members under insights."),
           session: Optional[str] = typer.Option(None, help="Record the hits as used in this session."),
           as_of: Optional[str] = AsOfOpt, when: Optional[str] = WhenOpt, when_mode: Optional[str] = WhenModeOpt,
           now: Optional[str] = NowOpt, json_out: bool = JsonOpt) -> None:
    """Find memories in a scope: hybrid (default), vector or keyword; insights bring their members; a
    value an update superseded comes after its successor, marked "earlier, until ..."."""
    mode = "keyword" if keyword else mode
    with open_store() as g:
        hits = g.retrieve(RecallQuery.of(g.config.retrieval, query, k, namespace=namespace, subject=subject,
                                         session=session, record=session is not None, mode=mode,
                                         insights="plain" if plain else None, as_of=as_of, when=when,
                                         when_mode=when_mode, now=now))
        mode = mode or g.config.retrieval.mode
    if hits.recording.startswith("skipped"):  # the hits stand; only their use went unrecorded
        typer.echo(f"note: session not recorded ({hits.recording})", err=True)
    _say_window(hits.window)
    if json_out:
        emit_json([_hit_json(h) for h in hits])
        return
    # Say what the score is: a hybrid score is a rank-fusion figure (an exact match may read 0.03),
    # so the cosine is shown beside it.
    hybrid = mode == "hybrid"
    table = Table(SCORE_LABELS.get(mode, "score"), *(["cosine"] if hybrid else []), "id", "kind", "subject", "title")
    for h in hits:
        m = h.memory
        status = f" [{m.epistemic_status}{'; scoped exceptions' if h.exceptions else ''}]" \
            if m.epistemic_status else ""
        above = "".join(f"  (in {i['id']})" for i in h.insights or [])
        cosine = [f"{h.vector:.3f}" if h.vector is not None else "-"] if hybrid else []
        earlier = f"earlier, until {h.until}: " if h.superseded_by else ""  # its successor is the row above
        table.add_row(f"{h.score:.4f}", *cosine, m.id, m.kind, literal(m.subject), literal(earlier + m.title + status + above))
        for sub in h.members or []:
            table.add_row("", *([""] if hybrid else []), "  " + sub.memory.id, sub.memory.kind,
                          literal(sub.memory.subject), "  " + literal(sub.memory.title))
    console.print(table)
    console.print(SCORE_NOTES.get(mode, ""), style="dim", markup=False, highlight=False)


SCORE_LABELS = {"hybrid": "rank score", "vector": "cosine", "keyword": "keyword score"}
SCORE_NOTES = {
    "hybrid": "rank score: the fused vector and keyword relevance plus the graph step, before the diversity step "
              "(graphcons/recall/rank.py); the list order is the ranking, so the score need not decrease, and "
              "it is not a similarity. cosine: the vector similarity (- = found by keyword only).",
    "vector": "cosine: the similarity of the query's and the memory's embeddings (1 = same direction).",
    "keyword": "keyword score: the full-text index's relevance (Lucene BM25), comparable within one search only.",
}


def _hit_json(h: Hit) -> dict:
    """A hit's one wire shape (recall/hits.py: to_dict), laid out as `search --json` always printed it."""
    return _flat(h.to_dict(memory=lambda m: m.model_dump(mode="json")))


def _flat(shown: dict) -> dict:
    """The memory's fields beside the hit's (a member's beside its relevance), `insights` under the name
    this command gave it before hits were typed, `summarised_by`."""
    memory = shown.pop("memory")
    if "members" in shown:
        shown["members"] = [_flat(x) for x in shown["members"]]
    if "insights" in shown:
        shown["summarised_by"] = shown.pop("insights")
    return {**shown, **memory}


@app.command()
def stats(json_out: bool = JsonOpt) -> None:
    """Counts of memories, versions, edges and sessions."""
    s = answer(json_out, lambda g: g.stats())
    if s is None:
        return
    table = Table(show_header=False, box=None)
    for key, value in s.items():
        table.add_row(f"[bold]{key}[/]", json.dumps(value, default=str))
    console.print(table)


config_app = typer.Typer(help="Show the configuration.", no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("show")
def config_show(json_out: bool = JsonOpt) -> None:
    """The effective configuration (file + environment), secrets masked."""
    cfg = load_cfg()
    data = cfg.public_dict()
    reflection_model = _reflection_model(cfg)
    if json_out:
        emit_json({"file": str(cfg.source_path) if cfg.source_path else None, **data,
                   "reflection_model": reflection_model})
        return

    console.print(f"# file: {cfg.source_path or '(none: defaults + environment)'}")
    for section, values in data.items():
        console.print(f"\n[{section}]", markup=False)
        for key, value in values.items():
            console.print(f"{key} = {json.dumps(value)}", markup=False, highlight=False)
    console.print("\n# reflection model (GRAPHCONS_REFLECTION_MODEL > [reflection.models] > [llm].model > offline):",
                  markup=False, highlight=False)
    for ns, chosen in reflection_model.items():
        console.print(f"#   {ns}: {chosen['provider']} {chosen['model']} (from {chosen['source']})", markup=False,
                      highlight=False)


def _reflection_model(cfg) -> dict:
    """Which model reflects, for the default namespace and each one [reflection.models] names (issue 14)."""
    from graphcons.profiles.reflect import resolve_model

    return {ns: resolve_model(cfg, ns) for ns in ["default", *sorted(cfg.reflection.models)]}

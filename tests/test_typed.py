"""Issue 60: what recall and the profiles show is typed, and read through its type: no string-key read
of a hit (or a member it carries), a context line, a card item or an insight's digest fact outside
its own decode / to_dict. Proposals have their own greps (tests/test_proposal_record.py). Greps over
graphcons/, like that test; no server needed.

How the greps stay precise (a Cypher row or a JSON body read by key is fine, and graphcons reads
many of them, some with the same key names, "memory" and "score" first):
- a key unique to the record, read from any variable: a card item's "member_id" and "group" (no
  Cypher row or other record of graphcons has them);
- a common key, only where the variable is named for the record: `hit`, `hits[...]`, `member`
  anywhere, `h` in the modules that hold hits (a hit's readers; recall/lists.py names a Cypher row of
  the full-text index `h`, before any hit exists, so it is not one of them), `line` in the modules
  that hold context lines (not `ln`: provenance, viz and the memories route name link rows so), `f` / `fact`
  reading a digest fact's keys, `card` reading its "items", and anyone reading "facts" of a digest or
  "lines" of a context's wire shape back;
- the owner of each record (its decode / to_dict) is left out of the grep for that record.
"""

from __future__ import annotations

import re
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "graphcons"
KEY = r"""(\[["']|\.get\(["']|\.keys\(\))"""  # x["k"], x.get("k"), x.keys()
HOLD_HITS = ["recall/retrieval.py", "recall/context.py", "recall/route.py", "recall/current.py", "recall/hits.py",
             "integrations/backend.py", "integrations/langgraph.py", "integrations/langchain.py", "mcp/server.py",
             "cli/memory.py", "service/memories.py", "service/models.py"]
HOLD_LINES = ["recall/context.py", "cli/memory.py", "mcp/server.py", "service/memories.py", "service/models.py",
              "integrations/langgraph.py", "integrations/langchain.py"]
# (what, pattern, the modules it is grepped in (None: all of graphcons/), its owner)
RULES = [
    ("hit", re.compile(rf"\b(hit|hits\[[^\]]*\]|member){KEY}"), None, "recall/hits.py"),
    ("hit", re.compile(rf"\bh{KEY}"), HOLD_HITS, "recall/hits.py"),
    ("context line", re.compile(rf"\bline{KEY}"), HOLD_LINES, "recall/context.py"),
    ("context line", re.compile(r"""\[["']lines["']\]|\.get\(["']lines["']"""), None, "recall/context.py"),
    ("card item", re.compile(r"""\[["'](member_id|group)["']\]|\.get\(["'](member_id|group)["']"""), None,
     "store/card.py"),
    ("card item", re.compile(r"""\bcard(\[|\.get\()["']items["']"""), None, "store/card.py"),
    ("digest fact", re.compile(rf"""\b(f|fact){KEY}(statement|member_ids|when)\b"""), None, "store/digest.py"),
    ("digest fact", re.compile(r"""\[["']facts["']\]|\.get\(["']facts["']"""), ["recall/context.py", "recall/route.py",
                                                                             "recall/retrieval.py"], "store/digest.py"),
]


def reads(files: dict[str, str]) -> list[str]:
    """Every line of `files` (path under graphcons/ -> text) a rule flags, with the record it reads."""
    found = []
    for what, pattern, where, owner in RULES:
        for name, text in sorted(files.items()):
            if name == owner or (where is not None and name not in where):
                continue
            found += [f"{name}:{n}: {what}: {line.strip()}"
                      for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
    return found


def test_no_string_key_read_of_a_hit_line_card_item_or_fact_outside_its_decode():
    files = {str(p.relative_to(PKG)): p.read_text() for p in PKG.rglob("*.py")}
    found = reads(files)
    assert not found, "read the typed record (its attributes) instead:\n" + "\n".join(found)


def test_the_greps_see_each_read_and_leave_rows_alone():
    """What each rule catches, from the reads before issue 60 (f57a6c3), and what it leaves."""
    before = {
        "integrations/backend.py": 'return Hit(h["memory"], h["score"], [(m["memory"], m.get("relevance"))',
        "recall/context.py": 'out.setdefault(item["member_id"], (row["subject"], item))\n'
                             'facts = [f for f in digest.get("facts", []) if not set(f.get("member_ids", []))]',
        "profiles/card_pass.py": 'groups[i["group"]] = groups.get(i["group"], 0) + 1',
        "cli/memory.py": 'for line in ctx.to_dict()["lines"]: print(line["text"])',
    }
    found = reads(before)
    assert {(r.split(":")[0], r.split(": ")[1]) for r in found} == {
        ("integrations/backend.py", "hit"), ("recall/context.py", "card item"), ("recall/context.py", "digest fact"),
        ("profiles/card_pass.py", "card item"), ("cli/memory.py", "context line")}
    assert {r.split(":")[1] for r in found if r.startswith("recall/context.py")} == {"1", "2"}
    rows = {"recall/lists.py": 'return [Candidate(Head.of(h["memory"]), keyword=h["score"]) for h in rows]',
            "consolidation/provenance.py": 'ids = {ln["child"] for ln in links}',
            "service/memories.py": 'hidden = unseen(g, p, [ln["target"] for ln in data["links"]])',
            "maintenance/merge/job.py": 'yield from _block_pairs(row["members"], row["sims"])',
            "recall/context.py": 'digest = facts_of(json.loads(hits.nodes[h.memory.id]["insight_json"]))',
            "store/card.py": 'return cls(group=stored["group"], member_id=stored["member_id"])'}
    assert reads(rows) == []

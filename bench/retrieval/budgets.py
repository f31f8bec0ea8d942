"""The context budgets the retrieval benches report (issue 61): words and model tokens, one label each.

A label is a number of words ("300") or of model tokens ("tokens/400", core/cost.py's tokenizer). Results
keep words at the top of a table and tokens under `tokens`: table["300"], table["tokens"]["400"].
"""

from __future__ import annotations

WORDS = (150, 300, 1000)
TOKENS = (200, 400)
LABELS = tuple(str(w) for w in WORDS) + tuple(f"tokens/{t}" for t in TOKENS)


def budget(label: str) -> dict:
    """"300" -> {"budget_words": 300}; "tokens/400" -> {"budget_tokens": 400} (context()'s arguments)."""
    kind, _, n = label.rpartition("/")
    if kind not in ("", "tokens") or not n.isdigit():
        raise ValueError(f"budget {label!r}: a number of words, or tokens/<number>")
    return {"budget_tokens": int(n)} if kind else {"budget_words": int(n)}


def within(ctx, label: str) -> bool:
    """The context keeps to its budget (the bench asserts it: a figure past its budget is not at equal cost)."""
    return ctx.words <= budget(label).get("budget_words", ctx.words) and ctx.tokens <= ctx.budget_tokens


def nest(table: dict, label: str, value) -> None:
    """Store value at the label's place: "300" -> table["300"]; "tokens/400" -> table["tokens"]["400"]."""
    *group, last = label.split("/")
    for g in group:
        table = table.setdefault(g, {})
    table[last] = value


def at(table: dict, label: str):
    """The value nest() stored for label."""
    for part in label.split("/"):
        table = table[part]
    return table

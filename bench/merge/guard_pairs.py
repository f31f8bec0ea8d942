"""The contradiction guard alone on every pair of the dev data (no embedder, no candidate floor, ~20 s):
how many SICK contradictions it flags and how many true duplicates (bench/merge/data.py's labels) it
wrongly flags. With a path, each pair's flag is written there, so two checkouts can be compared pair by
pair (a guard change that moves no pair leaves bench/merge/cross.py's figures as they are).

    python -m bench.merge.guard_pairs [/tmp/flags.json]
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.merge.data import load_mrpc, load_sick, load_stsb  # noqa: E402
from graphcons.maintenance.merge import guard  # noqa: E402

out, flags = {}, {}
for name, pairs in (("sick", load_sick()), ("mrpc", load_mrpc()), ("stsb", load_stsb())):
    got = [(dp, guard.contradictions(dp.a, dp.b)) for dp in pairs]
    flags[name] = [bool(c) for _, c in got]
    contra = [c for dp, c in got if getattr(dp, "nli", None) == "CONTRADICTION"]
    dups = [c for dp, c in got if dp.label]
    out[name] = {"pairs": len(got), "flagged": sum(map(bool, flags[name])),
                 "duplicates": len(dups), "duplicates_flagged": sum(map(bool, dups))}
    if contra:
        out[name] |= {"contradictions": len(contra), "contradictions_flagged": sum(map(bool, contra)),
                      "contradiction_recall": round(sum(map(bool, contra)) / len(contra), 4)}
print(json.dumps(out, indent=1))
if len(sys.argv) > 1:
    Path(sys.argv[1]).write_text(json.dumps(flags))

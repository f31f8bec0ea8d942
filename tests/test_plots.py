"""Every committed benchmark result has its charts: bench/plots.py draws them from the JSON
(each bench script calls it after saving), and a chart is a real picture, not an empty file."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import plots  # noqa: E402


def test_each_result_file_of_a_known_kind_draws_its_charts(tmp_path):
    results = plots.results_files()  # bench/<concern>/results/*.json
    drawn = {f.name: plots.render(f, tmp_path) for f in results}
    for name in ("admission.json", "clusters.json", "merge.json"):
        assert drawn[name], f"no chart for {name}"
    for paths in drawn.values():
        for png in paths:
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_an_unknown_kind_is_skipped_not_fatal(tmp_path):
    f = tmp_path / "mystery.json"
    f.write_text('{"benchmark": "mystery"}')
    assert plots.render(f, tmp_path) == []

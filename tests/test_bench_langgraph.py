"""bench.service.langgraph's bookkeeping (issue 63), without a server: round trips read from libpq's
protocol trace, and each size's rows stated as the Targets read them (store[size][store_name][op])."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import postgres_server  # noqa: E402
from bench.service import langgraph as bench  # noqa: E402

# What PQtrace writes (timestamps suppressed) for a pipelined put of two statements, then a search.
PUT = """F\t120\tParse\t "" "INSERT INTO store ..." 0
F\t40\tBind\t "" "" 0 3 ...
F\t6\tDescribe\t P ""
F\t9\tExecute\t "" 0
F\t120\tParse\t "" "INSERT INTO store_vectors ..." 0
F\t40\tBind\t "" "" 0 4 ...
F\t6\tDescribe\t P ""
F\t9\tExecute\t "" 0
F\t4\tSync
B\t4\tParseComplete
B\t4\tBindComplete
B\t4\tNoData
B\t15\tCommandComplete\t "INSERT 0 1"
B\t4\tParseComplete
B\t4\tBindComplete
B\t4\tNoData
B\t15\tCommandComplete\t "INSERT 0 1"
B\t5\tReadyForQuery\t I"""
SEARCH = """F\t200\tParse\t "" "WITH scored AS ..." 0
F\t60\tBind\t "" "" 0 5 ...
F\t6\tDescribe\t P ""
F\t9\tExecute\t "" 0
F\t4\tSync
B\t4\tParseComplete
B\t4\tBindComplete
B\t120\tRowDescription\t 6 ...
B\t80\tDataRow\t 6 ...
B\t13\tCommandComplete\t "SELECT 1"
B\t5\tReadyForQuery\t I"""


def test_a_pipelined_put_is_one_round_trip_of_two_statements():
    assert bench.trips_in_trace(PUT.splitlines()) == {"round_trips": 1, "statements": 2}
    assert bench.trips_in_trace(SEARCH.splitlines()) == {"round_trips": 1, "statements": 1}
    both = (PUT + "\n" + SEARCH).splitlines()
    assert bench.trips_in_trace(both) == {"round_trips": 2, "statements": 3}
    assert bench.trips_in_trace(["", "not a trace line"]) == {"round_trips": 0, "statements": 0}


def figures(p50):
    return {"p50": p50, "p95": p50 * 2, "max": p50 * 3, "n": 10}


def test_each_size_is_stated_as_the_targets_read_it():
    row = {
        "inmemory": {"put_ms": figures(0.01), "search_ms": figures(10),
                     "put_then_search": {"put_ms": figures(0.01), "search_ms": figures(11)},
                     "round_trips": {"put": 0, "search": 0}},
        "postgres": {"put_ms": figures(2), "search_ms": figures(3),
                     "put_then_search": {"put_ms": figures(2), "search_ms": figures(4)},
                     "round_trips": {"put": 1, "search": 1}, "statements": {"put": 2, "search": 1},
                     "first_call_ms": {"embedder_ms": 300, "connect_ms": 5, "construct_ms": 305,
                                       "first_search_ms": 9}},
        "graphcons": {"put_ms": figures(20), "search_ms": figures(40),
                      "put_then_search": {"put_ms": figures(21), "search_ms": figures(41)},
                      "round_trips": {"put": 3, "search": 5}, "queries": {"put": [], "search": []}},
        "first_call_ms": {"construct_ms": 600, "first_search_ms": 90},  # graphcons' (the key before issue 63)
        "graphcons_http": {"put_ms": figures(25), "search_ms": figures(45),
                           "round_trips": {"put": 1, "search": 2}},
    }
    view = bench.targets_view(row)
    assert set(view) == {"inmemory", "postgres", "graphcons", "graphcons_http"}
    assert view["postgres"]["search"] == figures(3) and view["postgres"]["put"] == figures(2)
    assert view["postgres"]["put_then_search"] == {"put": figures(2), "search": figures(4)}
    assert (view["postgres"]["construct_ms"], view["postgres"]["first_call_ms"]) == (305, 9)
    assert (view["graphcons"]["construct_ms"], view["graphcons"]["first_call_ms"]) == (600, 90)
    assert view["graphcons"]["round_trips"] == {"put": 3, "search": 5}
    assert "construct_ms" not in view["inmemory"] and "put_then_search" not in view["graphcons_http"]
    assert bench.targets_view({"graphcons": row["graphcons"]}) == {"graphcons": {
        k: v for k, v in view["graphcons"].items() if k not in ("construct_ms", "first_call_ms")}}


def test_what_the_bench_postgres_lacks_is_named_with_its_install(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHCONS_BENCH_PG_BIN", str(tmp_path))  # a folder without PostgreSQL's programs
    gaps = postgres_server.missing()
    assert any("apt-get install postgresql" in gap for gap in gaps)
    assert all(isinstance(gap, str) and gap for gap in gaps)

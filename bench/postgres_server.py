"""A throwaway PostgreSQL + pgvector for benchmarks (issue 63): LangGraph's PostgresStore, the database a
user would pick instead of graphcons, measured beside GraphconsStore by bench/service/langgraph.py.

Like bench/server.py's Neo4j it never touches a database of the machine's own (no pg_ctlcluster, nothing
under /var/lib/postgresql): its own cluster in .postgres-bench, made afresh by `start` (initdb, so every
run starts empty), listening on 127.0.0.1 only, port 5497 ($GRAPHCONS_BENCH_PG_HOME and
$GRAPHCONS_BENCH_PG_PORT override them; $GRAPHCONS_BENCH_PG_BIN names PostgreSQL's bin folder), started by
the bench and stopped at its end (`stop`). PostgreSQL's settings are its defaults (shared_buffers 128 MB,
fsync on): what a user who installs it gets. PostgreSQL refuses to run as root: run as root (this project's
machines), the cluster runs as the `postgres` user, which then owns the folder.

It needs PostgreSQL's server programs with pgvector and, in Python, `langgraph-checkpoint-postgres` with
`psycopg[binary]`: all in the `bench` extra, the server as the `pgserver` wheel (PostgreSQL 16.2 with
pgvector 0.6.2; Debian bookworm, this project's machines, has no pgvector package). Debian's own server
with `postgresql-<N>-pgvector` (trixie on) is used first where it is installed. `missing()` names whatever
is not there.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
from importlib.util import find_spec
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HOME = Path(os.environ.get("GRAPHCONS_BENCH_PG_HOME", REPO / ".postgres-bench"))
PORT = int(os.environ.get("GRAPHCONS_BENCH_PG_PORT", "5497"))
USER = "bench"  # the cluster's superuser (initdb -U), password in HOME/password
RUN_AS = "postgres"  # the account the server runs as when this process is root
SETTINGS = f"""
# bench/postgres_server.py: the loopback only, TCP only (no socket in a system folder)
listen_addresses = '127.0.0.1'
port = {PORT}
unix_socket_directories = ''
"""


class Missing(RuntimeError):
    """What the bench's PostgreSQL needs and does not find, each with how to install it."""


def _major(path: Path) -> int:
    return int(path.parent.name) if path.parent.name.isdigit() else 0


def _wheel_bin() -> Path | None:
    """The bin folder of the `pgserver` wheel (the bench extra): PostgreSQL 16 with pgvector 0.6, for a
    machine whose Debian has no pgvector package (bookworm has none)."""
    try:
        spec = find_spec("pgserver")
    except (ImportError, ValueError):
        return None
    return Path(spec.origin).parent / "pginstall" / "bin" if spec and spec.origin else None


def _has_vector(folder: Path) -> bool:
    share = _sharedir(folder)
    return share is not None and (share / "extension" / "vector.control").exists()


def bindir() -> Path | None:
    """PostgreSQL's server programs: $GRAPHCONS_BENCH_PG_BIN, else the first of Debian's
    /usr/lib/postgresql/<N>/bin (newest first), an `initdb` on PATH and the `pgserver` wheel's that has
    pgvector, else the first that has the programs (missing() then names pgvector)."""
    if given := os.environ.get("GRAPHCONS_BENCH_PG_BIN"):
        candidates = [Path(given)]
    else:
        candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_major, reverse=True)
        if found := shutil.which("initdb"):
            candidates.append(Path(found).resolve().parent)
        if wheel := _wheel_bin():
            candidates.append(wheel)
    present = [f for f in candidates if all((f / name).exists() for name in ("initdb", "pg_ctl", "postgres"))]
    return next((f for f in present if _has_vector(f)), present[0] if present else None)


def _version(bin_: Path) -> str:
    """The server's major version ("15"), from `postgres --version`."""
    out = subprocess.run([str(bin_ / "postgres"), "--version"], capture_output=True, text=True).stdout
    word = next((w for w in out.split() if w[:1].isdigit()), "")
    return word.split(".")[0]


def _sharedir(bin_: Path) -> Path | None:
    if not (bin_ / "pg_config").exists():
        return None
    out = subprocess.run([str(bin_ / "pg_config"), "--sharedir"], capture_output=True, text=True)
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def missing() -> list[str]:
    """Everything the bench's PostgreSQL lacks, one line each with how to install it (empty: ready)."""
    gaps = []
    try:
        import psycopg  # noqa: F401  (fails without a libpq: psycopg[binary] brings its own)
        from langgraph.store.postgres import PostgresStore  # noqa: F401
    except ImportError as exc:
        gaps.append(f"Python: LangGraph's PostgresStore ({exc}): pip install 'graphcons[bench]' "
                    "(langgraph-checkpoint-postgres, psycopg[binary], psycopg-pool), or scripts/setup")
    bin_ = bindir()
    if bin_ is None:
        gaps.append("PostgreSQL's server programs (initdb, pg_ctl, postgres): pip install 'graphcons[bench]' "
                    "(its pgserver wheel), or apt-get install postgresql postgresql-<N>-pgvector; "
                    "GRAPHCONS_BENCH_PG_BIN names another bin folder")
        return gaps
    major = _version(bin_) or "<N>"
    share = _sharedir(bin_) or Path(f"/usr/share/postgresql/{major}")
    if not (share / "extension" / "vector.control").exists():
        gaps.append(f"pgvector for PostgreSQL {major} (no {share / 'extension' / 'vector.control'}): "
                    f"apt-get install postgresql-{major}-pgvector where Debian has it (trixie on; bookworm has "
                    "none), or the bench extra's pgserver wheel (PostgreSQL 16 + pgvector 0.6): "
                    "pip install 'graphcons[bench]'")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(RUN_AS)
        except KeyError:
            gaps.append(f"a '{RUN_AS}' account to run the server as (PostgreSQL refuses root; Debian's "
                        "postgresql package creates it), or run the bench as another user")
    return gaps


def _as_server(cmd: list, **kw) -> subprocess.CompletedProcess:
    """Run one of PostgreSQL's programs as the account that owns the cluster."""
    if os.geteuid() == 0:
        kw.update(user=RUN_AS, group=pwd.getpwnam(RUN_AS).pw_gid, extra_groups=[])
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=str(HOME), **kw)


def _log_tail(lines: int = 15) -> str:
    try:
        return "\n".join((HOME / "postgres.log").read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def start() -> str:
    """A fresh, empty cluster on 127.0.0.1:PORT with a database `bench`; its connection string.
    Raises Missing (naming each missing piece and its install) or RuntimeError (with what failed)."""
    if gaps := missing():
        raise Missing("the bench's PostgreSQL cannot start; missing:\n  - " + "\n  - ".join(gaps))
    bin_ = bindir()
    assert bin_ is not None
    stop()  # one left running by an interrupted run
    data = HOME / "data"
    shutil.rmtree(data, ignore_errors=True)
    HOME.mkdir(parents=True, exist_ok=True)
    password = secrets.token_urlsafe(18)
    pwfile = HOME / "pwfile"
    pwfile.write_text(password + "\n")
    pwfile.chmod(0o600)
    if os.geteuid() == 0:  # the server's account writes the folder (data, log) and reads the password once
        account = pwd.getpwnam(RUN_AS)
        for path in (HOME, pwfile):
            os.chown(path, account.pw_uid, account.pw_gid)
    try:
        out = _as_server([bin_ / "initdb", "-D", data, "-U", USER, "--pwfile", pwfile, "--auth", "scram-sha-256",
                          "-E", "UTF8", "--locale", "C"])
    finally:
        pwfile.unlink(missing_ok=True)
    if out.returncode != 0:
        raise RuntimeError(f"initdb failed{' (as ' + RUN_AS + ')' if os.geteuid() == 0 else ''} in {data} "
                           f"(the folder must be reachable by that account; GRAPHCONS_BENCH_PG_HOME moves it):\n"
                           f"{out.stderr.strip()}")
    (HOME / "password").write_text(password)
    (HOME / "password").chmod(0o600)
    with open(data / "postgresql.conf", "a") as conf:
        conf.write(SETTINGS)
    out = _as_server([bin_ / "pg_ctl", "-D", data, "-l", HOME / "postgres.log", "-w", "-t", "60", "start"])
    if out.returncode != 0:
        raise RuntimeError(f"the bench's PostgreSQL did not start on 127.0.0.1:{PORT} (port taken? "
                           f"GRAPHCONS_BENCH_PG_PORT moves it):\n{out.stderr.strip()}\n{_log_tail()}")
    return fresh_database()


def _url(database: str) -> str:
    password = (HOME / "password").read_text().strip()
    return f"postgresql://{USER}:{password}@127.0.0.1:{PORT}/{database}"


def fresh_database(name: str = "bench") -> str:
    """Drop and create the database `name` (the bench's own, per size); its connection string."""
    import psycopg

    with psycopg.connect(_url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return _url(name)


def pgvector_version(url: str) -> tuple[int, ...]:
    """The pgvector the server offers (its default version), e.g. (0, 5, 1); () when none."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    return tuple(int(x) for x in row[0].split(".") if x.isdigit()) if row else ()


def stop() -> None:
    """Stop the bench's cluster if it runs (its data stays until the next `start` wipes it)."""
    bin_ = bindir()
    data = HOME / "data"
    if bin_ is None or not (data / "postmaster.pid").exists():
        return
    _as_server([bin_ / "pg_ctl", "-D", data, "-m", "fast", "-w", "-t", "60", "stop"])

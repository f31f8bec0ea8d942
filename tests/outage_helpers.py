"""A TCP forwarder in front of the real Neo4j that a test can cut, to see what graphcons does
when the server goes away and comes back (issue 30) without stopping the shared test server.

    down()                     close every connection and refuse new ones: what a stopped server
                               looks like to the driver (connection refused)
    up(warm_s=0)               accept connections again on the same port; with warm_s, answer no
                               query (BEGIN or RUN) sent in the next warm_s seconds before they end:
                               a restarted server that accepts connections while it still starts
    cut_next_write_commit()    let the next write transaction's COMMIT through to Neo4j, then drop
                               the connection before the answer returns: a write that landed while
                               the client saw Neo4j go away (the driver raises IncompleteCommit)
    fail_next_write_commit()   let the next write transaction's COMMIT through to Neo4j (it commits), answer the
                               client a FAILURE DatabaseUnavailable instead of its SUCCESS, and go down: a server
                               that stops while it commits (issue 59's outage bench saw such a write land)
    stall_next_begin(times=1)  let the next BEGIN (each of the next `times`) through and forward nothing more on its connection,
                               which stays open: a server that never answers (the driver gives up
                               after the server's receive-timeout hint, which recv_timeout_s shortens
                               in every HELLO answer so a test waits seconds, not Neo4j's 120 s)

It reads just enough of the Bolt stream to find a BEGIN in read mode and a COMMIT; everything
else passes through unchanged.
"""

from __future__ import annotations

import re
import socket
import threading
import time

BEGIN = b"\xb1\x11"  # a Bolt struct of one field, signature 0x11 (BEGIN {extra})
RUN = b"\xb3\x10"  # three fields, signature 0x10 (RUN query, parameters, extra)
READ_MODE = b"\x84mode\x81r"  # the extra map's "mode": "r" (absent for a write transaction)
COMMIT = b"\x00\x02\xb0\x12\x00\x00"  # one chunk of 2 bytes: the field-less struct 0x12, then the end marker
# HELLO's answer carries hints {"connection.recv_timeout_seconds": 120}: a 31-byte string (0xD0 0x1F),
# then the value as a one-byte tiny int (0..127), so a new value keeps every chunk's length
RECV_TIMEOUT_HINT = re.compile(rb"(\xd0\x1fconnection\.recv_timeout_seconds)[\x00-\x7f]")


def _failure(code: str, message: str) -> bytes:
    """A Bolt 5 FAILURE message (its GQL fields too, as the driver reads them), as one chunk and its end
    marker (PackStream strings under 256 bytes)."""
    def text(value: str) -> bytes:
        raw = value.encode()
        return (bytes([0x80 + len(raw)]) if len(raw) < 16 else b"\xd0" + bytes([len(raw)])) + raw
    fields = {"neo4j_code": code, "message": message, "gql_status": "50N42",
              "description": "error: general processing exception - unexpected error"}
    payload = b"\xb1\x7f" + bytes([0xA0 + len(fields)]) + b"".join(text(k) + text(v) for k, v in fields.items())
    return len(payload).to_bytes(2, "big") + payload + b"\x00\x00"


UNAVAILABLE_FAILURE = _failure("Neo.TransientError.General.DatabaseUnavailable", "Database 'neo4j' unavailable")


class BoltProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1", recv_timeout_s: int | None = None):
        self.target = (host, target_port)
        assert recv_timeout_s is None or 0 < recv_timeout_s < 128
        self.recv_timeout_s = recv_timeout_s
        self.hints_rewritten = 0  # HELLO answers whose receive-timeout hint was shortened
        self._stalls_armed = 0
        self.stalled = threading.Event()  # set once a BEGIN was let through and its answer withheld
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, 0))
        self.port = self._listener.getsockname()[1]
        self.uri = f"bolt://{host}:{self.port}"
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        self._armed = False
        self._fail_armed = False
        self.failed = threading.Event()  # set once a write's COMMIT was answered with a FAILURE and the proxy went down
        self.cut = threading.Event()  # set once a write's COMMIT was let through and its connection dropped
        self._serving = False
        self._warm_until = 0.0
        self.up()

    # -- control -------------------------------------------------------------------------
    def up(self, warm_s: float = 0) -> None:
        with self._lock:
            self._warm_until = time.monotonic() + warm_s
            if self._serving:
                return
            if self._listener.fileno() < 0:
                self._listener = socket.socket()
                self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                self._listener.bind((self.target[0], self.port))
            self._listener.listen(64)
            self._serving = True
            threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()

    def down(self) -> None:
        with self._lock:
            self._serving = False
            _close(self._listener)
            for c in self._conns:
                _close(c)
            self._conns.clear()

    def cut_next_write_commit(self) -> None:
        self.cut.clear()
        self._armed = True

    def fail_next_write_commit(self) -> None:
        self.failed.clear()
        self._fail_armed = True

    def stall_next_begin(self, times: int = 1) -> None:
        self.stalled.clear()
        self._stalls_armed = times

    def close(self) -> None:
        self.down()

    # -- forwarding ----------------------------------------------------------------------
    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # the listener was closed (down)
            try:
                server = socket.create_connection(self.target)
            except OSError:
                _close(client)
                continue
            with self._lock:
                if not self._serving:
                    _close(client), _close(server)
                    return
                self._conns += [client, server]
            state = {"read": False}
            threading.Thread(target=self._pump, args=(client, server, state, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, state, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, state: dict, from_client: bool) -> None:
        cut_here = False
        try:
            while True:
                data = src.recv(65536)
                if not data or (not from_client and state.get("mute")):
                    break
                if from_client:
                    if (BEGIN in data or RUN in data) and time.monotonic() < self._warm_until:
                        state["hold_until"] = self._warm_until  # its answer waits until the server is warm
                    if BEGIN in data:
                        state["read"] = READ_MODE in data
                        with self._lock:
                            stall, self._stalls_armed = self._stalls_armed > 0, max(0, self._stalls_armed - 1)
                        if stall:
                            state["stall"] = True
                            self.stalled.set()
                    if self._fail_armed and COMMIT in data and not state["read"]:
                        self._fail_armed = False
                        state["fail_commit"] = True  # the server commits; the client hears a FAILURE
                    if self._armed and COMMIT in data and not state["read"]:
                        self._armed, cut_here = False, True
                        state["mute"] = True  # the answer to this COMMIT is never forwarded
                        dst.sendall(data)
                        time.sleep(0.5)  # the server commits; its answer never reaches the client
                        break
                elif state.pop("fail_commit", False):
                    dst.sendall(UNAVAILABLE_FAILURE)
                    self.down()
                    self.failed.set()
                    break
                elif state.get("stall"):
                    continue  # the server answered; the client never hears it, the connection stays open
                elif state.get("hold_until", 0) > time.monotonic():
                    time.sleep(state["hold_until"] - time.monotonic())
                elif self.recv_timeout_s is not None:
                    data, n = RECV_TIMEOUT_HINT.subn(lambda m: m.group(1) + bytes([self.recv_timeout_s]), data)
                    self.hints_rewritten += n
                if state.get("mute"):
                    break
                dst.sendall(data)
        except OSError:
            pass
        _close(src), _close(dst)
        if cut_here:
            self.cut.set()


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    s.close()


def proxied(config):
    """A BoltProxy in front of the test server and a copy of `config` that talks through it."""
    proxy = BoltProxy(int(config.neo4j.uri.rsplit(":", 1)[1]))
    return proxy, config.model_copy(update={"neo4j": config.neo4j.model_copy(update={"uri": proxy.uri})})

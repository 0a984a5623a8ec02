"""harness.py - what the protocol tests share: a real carcd to talk to.

Daemon starts the built daemon ($CARCD, default <top_builddir>/daemon/carcd)
on a Unix socket in a fresh temporary directory and on a free TCP port of
127.0.0.1, waits until both answer, and stops it with SIGTERM (SIGKILL if it
does not stop).  Raw is a bare socket for bytes no client would send.
Helpers play random games and check what the daemon says about them.
"""

import atexit
import hashlib
import json
import os
import random
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP_SRCDIR, "contrib", "python"))
import carcd  # noqa: E402
import msgpack  # noqa: E402  (python3-msgpack; run the tests with /usr/bin/python3)

CARCD = os.environ.get("CARCD") or os.path.join(
    os.environ.get("top_builddir", TOP_SRCDIR), "daemon", "carcd")
PYTHON = os.environ.get("PYTHON3") or "/usr/bin/python3"
# The byte order of the carcd under test, for tests that write its journal
# files (which hold the machine's own): struct's "<" or ">", or "=" for this
# machine's (tests/port/daemon sets it for a carcd of another machine).
BYTE_ORDER = os.environ.get("CARCD_BYTE_ORDER", "=")
# `make check-valgrind` sets CARCD_VALGRIND: the daemon then runs under it
# (its error exit code fails the test that stops it), and slowly.
# CARCD_SLOW, when set, says how much slower than a native daemon the one
# under test is (tests/port/daemon sets it for a carcd under qemu-user):
# the tests' waits and time limits are stretched by it.
WRAPPER = os.environ.get("CARCD_VALGRIND", "").split()
SLOW = float(os.environ.get("CARCD_SLOW") or (20.0 if WRAPPER else 1.0))
START_TIMEOUT = 15.0 * SLOW
STOP_TIMEOUT = 10.0 * SLOW

METHODS = ("hello", "new_game", "state", "legal_moves", "apply_move", "score", "history",
           "games", "close_game", "subscribe", "unsubscribe", "tiles", "stats", "ping")
ERROR_CODES = carcd.ERROR_CODES
# every expansion built, as new_game names them
EVERY_SET = ["base", "river", "river2", "mini", "inns-cathedrals", "traders-builders",
             "abbey-mayor", "king-robber", "cathars", "cult", "hills-sheep"]
# every port a move or a figure may name: edges, half-edges, centre buildings,
# enclosed fields and barn corners
PORTS = ["N", "E", "S", "W", "NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR", "cloister", "tower", "I", "II",
         "nw", "ne", "se", "sw"]


def free_tcp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DaemonError(Exception):
    pass


_running = set()   # daemons to kill should the tests stop without stopping them


@atexit.register
def _kill_leftovers():
    for proc in list(_running):
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Daemon:
    """A carcd of our own.  Use as a context manager or call start()/stop()."""

    def __init__(self, *extra_args, tcp=True, unix=True, binary=None):
        self.binary = binary or CARCD   # another carcd than the build's (an installed one)
        self.extra_args = list(extra_args)
        self.want_tcp, self.want_unix = tcp, unix
        self.proc = None
        self.dir = None

    # addresses in carcd.py's notation
    @property
    def unix_address(self):
        return "unix:" + self.unix_path

    @property
    def tcp_address(self):
        return "tcp:127.0.0.1:%d" % self.port

    def address(self, transport):
        return self.unix_address if transport == "unix" else self.tcp_address

    def start(self):
        if not os.access(self.binary, os.X_OK):
            raise DaemonError("no daemon at %s (build it, or set CARCD)" % self.binary)
        self.dir = tempfile.mkdtemp(prefix="carcd-test-")
        self.unix_path = os.path.join(self.dir, "carcd.sock")
        self.log_path = os.path.join(self.dir, "carcd.log")
        for attempt in range(5):   # a free port can be taken before the daemon binds it
            self.port = free_tcp_port()
            args = WRAPPER + [self.binary]
            if self.want_unix:
                args += ["--listen", "unix:" + self.unix_path]
            if self.want_tcp:
                args += ["--listen", "tcp:127.0.0.1:%d" % self.port]
            args += self.extra_args
            self.args = args
            self.log = open(self.log_path, "ab")
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                         stderr=subprocess.STDOUT)
            _running.add(self.proc)
            if self._wait_ready():
                return self
            self.log.close()
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
                break
            self.proc.wait()
        raise DaemonError("carcd did not come up: %s\n%s" % (" ".join(self.args), self.log_tail()))

    def _wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        targets = ([self.unix_address] if self.want_unix else []) + \
                  ([self.tcp_address] if self.want_tcp else [])
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            targets = [t for t in targets if not answers(t)]
            if not targets:
                return True
            time.sleep(0.05)
        return False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n=40):
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode(errors="replace").splitlines()
            return "\n".join(lines[-n:])
        except OSError:
            return ""

    def stop(self):
        """SIGTERM; returns the exit status (-9 when it had to be killed)."""
        if self.proc is None:
            return None
        status = self.proc.poll()
        if status is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                status = self.proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                status = -9
        self.log.close()
        _running.discard(self.proc)
        self.proc = None
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        return status

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def client(self, transport="unix", encoding="msgpack", timeout=20.0):
        return carcd.Client(self.address(transport), encoding=encoding, timeout=timeout)

    def raw(self, transport="unix", timeout=5.0):
        return Raw(self.address(transport), timeout)


def stop_checked(d):
    """Stops a module's daemon; raises DaemonError (an error in the run)
    when it died during the tests or did not exit 0 on SIGTERM."""
    died = not d.alive()
    tail = d.log_tail()
    status = d.stop()
    if died:
        raise DaemonError("carcd died during the tests (status %s):\n%s" % (status, tail))
    if status != 0:
        raise DaemonError("carcd exited %s on SIGTERM, not 0:\n%s" % (status, tail))


def module_daemon(*extra_args):
    """setUpModule/tearDownModule for a module that shares one daemon.

    tearDownModule fails (an error in the run) when the daemon died during
    the tests or did not exit 0 on SIGTERM."""
    holder = {}

    def setup():
        holder["d"] = Daemon(*extra_args).start()

    def teardown():
        d = holder.pop("d", None)
        if d is not None:
            stop_checked(d)

    return holder, setup, teardown


class Raw:
    """A bare connection: send any bytes, read back decoded messages."""

    def __init__(self, address, timeout=5.0):
        family, addr = carcd.parse_address(address)
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(addr)
        self.timeout = timeout
        self.unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        self.lines = b""
        self.eof = False
        self.mode = None  # "msgpack" or "json", from what we read back

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        """Send all of data; False when the daemon stopped taking it (closed)."""
        try:
            self.sock.sendall(data)
            return True
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            return False

    def send_msgpack(self, obj):
        return self.send(msgpack.packb(obj, use_bin_type=True))

    def send_line(self, text):
        return self.send((text if isinstance(text, bytes) else text.encode()) + b"\n")

    def shutdown_write(self):
        self.sock.shutdown(socket.SHUT_WR)

    def _recv(self, timeout):
        r, _, _ = select.select([self.sock], [], [], max(0.0, timeout))
        if not r:
            return None
        try:
            data = self.sock.recv(1 << 16)
        except (ConnectionResetError, BrokenPipeError):
            data = b""
        if not data:
            self.eof = True
        return data

    def read(self, mode, n=1, timeout=None):
        """Up to n messages decoded as mode ("msgpack" or "json") before the timeout."""
        out = []
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            if mode == "msgpack":
                for m in self.unpacker:
                    out.append(m)
            else:
                while b"\n" in self.lines:
                    line, self.lines = self.lines.split(b"\n", 1)
                    if line.strip():
                        out.append(json.loads(line))
            if len(out) >= n or self.eof:
                return out
            data = self._recv(deadline - time.monotonic())
            if data is None:
                return out
            if mode == "msgpack":
                self.unpacker.feed(data)
            else:
                self.lines += data

    def read_one(self, mode, timeout=None):
        msgs = self.read(mode, 1, timeout)
        return msgs[0] if msgs else None

    def read_to_close(self, mode, timeout=None):
        """Every message the daemon sends until it closes the connection or
        the timeout passes, and whether it closed it: (messages, closed)."""
        got = self.read(mode, 1 << 30, timeout)   # returns at the close or the timeout
        return got, self.eof

    def closed_by_peer(self, timeout=None):
        """True when the daemon closes the connection before the timeout
        (whatever else it still sends is read and dropped)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while not self.eof:
            data = self._recv(deadline - time.monotonic())
            if data is None:
                return False
        return True


class Proxy:
    """A Unix socket in front of the daemon's at `upstream`, for a client under
    test to talk to: it records each request (as [type, msgid, method,
    params]) in .requests and calls on_request(msg) before it passes it on,
    in MessagePack or JSON lines as the client speaks; the daemon's answers go
    back untouched."""

    def __init__(self, upstream, on_request=None):
        self.upstream, self.on_request = upstream, on_request
        self.requests = []
        self.dir = tempfile.mkdtemp(prefix="carcd-proxy-")
        self.path = os.path.join(self.dir, "p.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(4)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            up.connect(self.upstream)
            threading.Thread(target=self._down, args=(up, conn), daemon=True).start()
            threading.Thread(target=self._up, args=(conn, up), daemon=True).start()

    @staticmethod
    def _down(up, conn):
        try:
            while True:
                data = up.recv(65536)
                if not data:
                    break
                conn.sendall(data)
        except OSError:
            pass
        finally:
            conn.close()

    def _up(self, conn, up):
        unpacker, buf, mode = msgpack.Unpacker(raw=False), b"", None
        try:
            while True:
                data = conn.recv(65536)
                if not data:
                    break
                if mode is None:
                    mode = "msgpack" if data[0] in range(0x90, 0xa0) or data[0] in (0xdc, 0xdd) else "json"
                if mode == "msgpack":
                    unpacker.feed(data)
                    msgs = list(unpacker)
                else:
                    buf += data
                    *lines, buf = buf.split(b"\n")
                    msgs = [json.loads(line) for line in lines if line.strip()]
                for msg in msgs:
                    self.requests.append(msg)
                    if self.on_request:
                        self.on_request(msg)
                    up.sendall(msgpack.packb(msg, use_bin_type=True) if mode == "msgpack"
                               else json.dumps(msg).encode() + b"\n")
        except OSError:
            pass
        finally:
            up.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sock.close()
        try:
            os.unlink(self.path)
            os.rmdir(self.dir)
        except OSError:
            pass


class ReplyAsserts:
    """unittest.TestCase mixin: what every error reply looks like (PROTOCOL.md
    section 2: [1, msgid, {code, message}, nil])."""

    def assertErrorResponse(self, resp, code, msgid="any"):
        self.assertIsNotNone(resp, "no response (expected a %s error)" % code)
        self.assertIsInstance(resp, list, resp)
        self.assertEqual(len(resp), 4, resp)
        self.assertEqual(resp[0], 1, resp)
        if msgid != "any":
            self.assertEqual(resp[1], msgid, resp)
        self.assertIsNone(resp[3], resp)
        self.assertIsInstance(resp[2], dict, resp)
        self.assertEqual(resp[2].get("code"), code, resp)
        self.assertIsInstance(resp[2].get("message"), str, resp)
        self.assertTrue(resp[2]["message"], resp)


def packb(obj):
    """MessagePack as the daemon reads it: str as str, bytes as bin."""
    return msgpack.packb(obj, use_bin_type=True)


def vmrss_kib(pid):
    """The resident memory of process pid, in KiB (0 if it has none)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# Runs a command as the user nobody: tests of what carcd does when the
# system refuses it something (a file mode) that root would be allowed.
AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
needs_nobody = unittest.skipUnless(os.geteuid() == 0 and shutil.which("setpriv"),
                                   "needs root and setpriv to run carcd as nobody")


def answers(address):
    """Does a carcd at address answer a ping?  Its socket file is there from
    bind(), a moment before it listens: a connect in between is refused, so
    a daemon is up once it answers, not once its socket exists."""
    try:
        with carcd.Client(address, timeout=2.0) as c:
            c.ping()
        return True
    except (carcd.ConnectionClosed, OSError):
        return False


def wait_for(pred, timeout):
    """True as soon as pred() is; pred() itself at the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def code_of(fn, *args, **kw):
    """The error code fn(*args, **kw) raises, or None when it succeeds."""
    try:
        fn(*args, **kw)
    except carcd.Error as e:
        return e.code
    return None


# ---- games ---------------------------------------------------------------

def play_random_game(play, legal, rng, max_moves=2000):
    """Play one game to its end with random legal moves.

    legal() -> legal_moves result; play(lm, move) -> apply_move result.
    Returns [(lm, move, result)] in order."""
    record = []
    for _ in range(max_moves):
        lm = legal()
        if lm["phase"] == "over":
            return record
        assert lm["moves"], "no legal move in phase %s but the game is not over" % lm["phase"]
        move = rng.choice(lm["moves"])
        record.append((lm, move, play(lm, move)))
    raise AssertionError("the game did not end within %d moves" % max_moves)


def play_out(client, game):
    """Plays a game to its end, the first listed move each time (with its
    seq); returns the results of its moves."""
    results = []
    while True:
        lm = client.legal_moves(game)
        if lm["phase"] == "over":
            return results
        results.append(client.apply_move(game, lm["moves"][0], seq=lm["seq"]))


def play_with_client(client, game, tokens, rng):
    """A random game through one client holding every seat's token."""
    return play_random_game(
        lambda lm, move: client.apply_move(game, move, token=tokens[lm["seat"]], seq=lm["seq"]),
        lambda: client.legal_moves(game), rng)


def all_events(record):
    return [ev for _, _, res in record for ev in res["events"]]


def points_by_seat(events, nseats):
    pts = [0] * nseats
    for ev in events:
        if ev["type"] == "scored":
            pts[ev["seat"]] += ev["points"]
    return pts


def history_moves(h):
    """The moves of a `history` result.  carcd wraps each as {seq, seat, move}
    (proto/PROTOCOL.md); a bare move is taken as it is."""
    return [m["move"] if "move" in m and "type" not in m else m for m in h["moves"]]


def history_events(h):
    """The events of a `history` result without the `seq` carcd adds to each."""
    return [{k: v for k, v in ev.items() if k != "seq"} for ev in h["events"]]


def seed_commitment(seed, salt):
    return hashlib.sha256(("%d:%s" % (seed, salt)).encode()).hexdigest()


def new_rng(test_name):
    """A random.Random seeded from $CARCD_TEST_SEED (printed on failure) or the name."""
    seed = os.environ.get("CARCD_TEST_SEED", test_name)
    return random.Random(seed)

"""test_audit_daemon2.py - a second audit of carcd as an operator runs it,
against proto/PROTOCOL.md sections 5 and 6 (limits, options, logging,
signals) and ../shared/design/PROTOCOL.md section 7.  It covers what
test_daemon.py, test_audit_daemon.py, test_malformed.py and test_contract.py
leave out: option boundaries and messages, the JSON line limit at its exact
edge, a pipelining client that does not read, SIGTERM with clients attached,
closing games in a full registry, stats error counters for connection-level
errors, the documented log lines, many subscriptions on one connection, and
fair service of a flooding client.  Every test starts daemons of its own.

Five of these failed when they were written, each on a promise of the
documentation the daemon broke (number syntax, usage after a bad value,
getopt's argv[0] prefix, replies lost at SIGTERM, one large reply under a
small --max-output); carcd was mended to keep them."""

import os
import re
import signal
import socket
import subprocess
import threading
import time
import unittest

import msgpack

import harness
from harness import CARCD, SLOW, START_TIMEOUT, STOP_TIMEOUT, Daemon, wait_for
import carcd  # noqa: E402  (harness puts contrib/python on the path)
from test_audit_daemon import AuditCase  # noqa: E402  (assertError)


def run_carcd(*args, argv0=None):
    """A carcd expected to refuse to start: (exit status, stderr)."""
    argv = [argv0 or CARCD] + list(args)
    p = subprocess.run(argv, executable=CARCD, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=START_TIMEOUT)
    return p.returncode, p.stderr.decode(errors="replace")


def finish(c, game, name):
    """Play a game made with auth false to its end with random moves."""
    harness.play_random_game(lambda lm, m: c.apply_move(game, m), lambda: c.legal_moves(game),
                             harness.new_rng(name))


def finished_game(c, name="finished"):
    """A finished two-seat base game: its `history` reply is about 17 KB."""
    g = c.new_game(["ann", "bob"], auth=False, seed=1)["game"]
    finish(c, g, name)
    return g


def log_lines(d, pattern):
    return re.findall(pattern, d.log_tail(100000))


# ---- options: ranges, messages, repetition ------------------------------------------------

# option, its documented minimum and maximum (PROTOCOL.md section 6), the hello.limits key
RANGES = (("--max-connections", 1, 1 << 20, None),
          ("--max-games", 1, 100000000, "max_games"),
          ("--idle-timeout", 1, 1 << 30, "idle_timeout"),
          ("--max-request", 64, 1 << 30, "max_request"),
          ("--max-line", 64, 1 << 30, "max_line"),
          ("--max-output", 4096, 1 << 40, None))


class Options(AuditCase):
    def test_range_edges_are_accepted_and_one_past_refused(self):
        """Each numeric option takes its documented minimum and maximum (the
        daemon starts and hello reports the value) and refuses one below the
        minimum and one above the maximum with exit 2 and a `carcd: ` line."""
        for opt, lo, hi, key in RANGES:
            for bad in (lo - 1, hi + 1):
                with self.subTest(opt=opt, value=bad):
                    status, err = run_carcd("--listen", "tcp:127.0.0.1:0", opt, str(bad))
                    self.assertEqual(status, 2, err)
                    self.assertTrue(err.startswith("carcd: --%s" % opt[2:]), err)
                    self.assertIn(str(bad), err.splitlines()[0])
            for good in (lo, hi):
                with self.subTest(opt=opt, value=good):
                    with Daemon(opt, str(good), tcp=False) as d:
                        # (the harness's ready check was served; with one connection
                        # allowed, a second one could race its close)
                        if opt == "--max-connections":
                            self.assertIn("ready (protocol 1, %d connection%s" % (good, "" if good == 1 else "s"),
                                          d.log_tail())
                            continue
                        with d.client("unix") as c:
                            self.assertEqual(c.ping(), {})
                            if key:
                                self.assertEqual(c.hello()["limits"][key], good)

    def test_repeated_option_last_one_counts(self):
        """Not documented: the usual getopt convention, the last value wins."""
        with Daemon("--max-games", "5", "--max-games", "7", "--max-line", "100", "--max-line", "200",
                    tcp=False) as d, d.client("unix") as c:
            lim = c.hello()["limits"]
            self.assertEqual((lim["max_games"], lim["max_line"]), (7, 200))

    def test_32_listeners_are_accepted_33_refused(self):
        """`--listen` is "repeatable, up to 32"."""
        status, err = run_carcd(*(["--listen", "tcp:127.0.0.1:0"] * 33))
        self.assertEqual(status, 2, err)
        self.assertTrue(err.startswith("carcd: "), err)
        self.assertIn("32", err.splitlines()[0])
        d = Daemon(*(["--listen", "tcp:127.0.0.1:0"] * 30), tcp=True, unix=True).start()
        try:
            self.assertEqual(len(log_lines(d, r"info: listening on ")), 32, d.log_tail())
            ports = re.findall(r"listening on tcp:127\.0\.0\.1:(\d+)", d.log_tail(100))
            self.assertEqual(len(set(ports)), 31)   # 30 picked ports and the harness's own
            for port in ports[:3] + ports[-3:]:
                with carcd.Client("tcp:127.0.0.1:" + port, timeout=5) as c:
                    self.assertEqual(c.ping(), {})
        finally:
            self.assertEqual(d.stop(), 0)

    def test_short_listen_option(self):
        d = Daemon("-l", "tcp:127.0.0.1:0", tcp=False).start()
        try:
            port = re.search(r"listening on tcp:127\.0\.0\.1:(\d+)", d.log_tail()).group(1)
            with carcd.Client("tcp:127.0.0.1:" + port, timeout=5) as c:
                self.assertEqual(c.ping(), {})
        finally:
            self.assertEqual(d.stop(), 0)

    def test_numbers_are_plain_decimal(self):
        """"Numbers are plain decimal integers" (section 6): a sign, leading
        or trailing blanks, hex, floats and suffixes are refused (strtol
        alone would take the sign and the blanks in front)."""
        for value in ("0x40", "64.0", "1e3", "64k", "64 ", "", "+64", " 64"):
            with self.subTest(value=value):
                p = subprocess.Popen([CARCD, "--listen", "tcp:127.0.0.1:0", "--max-line", value],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                try:
                    status = p.wait(3 * SLOW)
                except subprocess.TimeoutExpired:
                    p.send_signal(signal.SIGTERM)
                    p.wait(STOP_TIMEOUT)
                    status = "started"
                self.assertEqual(status, 2, "--max-line %r" % value)

    def test_bad_value_message_is_followed_by_the_usage(self):
        """Exit 2 is "one line on stderr starting `carcd: `, then the usage",
        also for a value out of range, a bad --log-level and a 33rd --listen."""
        for args in (["--max-games", "0"], ["--max-output", "1"], ["--log-level", "loud"],
                     ["--listen", "tcp:127.0.0.1:0"] * 33):
            with self.subTest(args=args[:2]):
                status, err = run_carcd(*args)
                self.assertEqual(status, 2, err)
                lines = err.splitlines()
                self.assertTrue(lines[0].startswith("carcd: "), err)
                self.assertIn("usage: carcd", err, "no usage after %r" % lines[0])

    def test_getopt_errors_start_with_carcd(self):
        """An unknown option or a missing value is "one line on stderr
        starting `carcd: `", also when carcd is started by its path (as
        systemd's ExecStart= does), where getopt's own message would start
        with argv[0]."""
        for args in (["--bogus"], ["--max-games"], ["-x"]):
            with self.subTest(args=args):
                status, err = run_carcd(*args, argv0="/usr/sbin/carcd")
                self.assertEqual(status, 2, err)
                self.assertTrue(err.startswith("carcd: "), err)
                self.assertIn("usage: carcd", err)


# ---- the JSON line limit at its edge ---------------------------------------------------

MAX_LINE = 64


def line_of(n, msgid=None):
    """A request line of exactly n bytes (no line end): a ping, padded."""
    for pad in range(n):
        text = ('[0,%d,"ping",{"p":"%s"}]' % (msgid, "x" * pad)) if msgid is not None \
            else 'ping {"p":"%s"}' % ("x" * pad)
        if len(text) == n:
            return text.encode()
    raise AssertionError("no line of %d bytes" % n)


class LineLimit(AuditCase):
    def test_exactly_max_line_is_served_one_more_is_limit(self):
        """A JSON line of at most --max-line bytes, "without its line end"
        (section 5): 64 bytes with \\n or \\r\\n are served, 65 are `limit`
        (msgid nil) and the connection goes on."""
        with Daemon("--max-line", str(MAX_LINE), tcp=False) as d, d.raw("unix") as r:
            ok = line_of(MAX_LINE)
            r.send(ok + b"\n")
            r.send(ok + b"\r\n")
            r.send(line_of(MAX_LINE, msgid=5) + b"\r\n")
            self.assertEqual(r.read("json", 3, timeout=5),
                             [[1, None, None, {}], [1, None, None, {}], [1, 5, None, {}]])
            for end in (b"\n", b"\r\n"):
                r.send(line_of(MAX_LINE + 1, msgid=6) + end)
                m = r.read_one("json", timeout=5)
                self.assertEqual((m[0], m[1], m[2]["code"], m[3]), (1, None, "limit", None), m)
            r.send_line("ping")
            self.assertEqual(r.read_one("json", timeout=5), [1, None, None, {}])

    def test_long_line_in_pieces_gets_one_limit_and_is_skipped(self):
        """A line many times the limit, arriving in pieces: one `limit`, the
        rest of the line is skipped (nothing of it is read as a request), and
        the next line is served."""
        with Daemon("--max-line", str(MAX_LINE), tcp=False) as d, d.raw("unix") as r:
            # the tail of the long line would be a request of its own if it were not skipped
            pieces = [b'["' + b"x" * 100] + [b"y" * 100] * 8 + [b'"]\nping {"p":"after"}\n']
            tail_req = b'\nhello\n'
            for p in pieces[:-1]:
                self.assertTrue(r.send(p))
                time.sleep(0.05)
            r.send(pieces[-1])
            msgs = r.read("json", 2, timeout=5)
            self.assertEqual(len(msgs), 2, msgs)
            self.assertEqual(msgs[0][2]["code"], "limit")
            self.assertEqual(msgs[1], [1, None, None, {}])
            self.assertEqual(r.read("json", 1, timeout=0.5), [], "more than one answer to one long line")
            r.send(tail_req)
            m = r.read_one("json", timeout=5)
            self.assertEqual(m[2], None)
            self.assertEqual(m[3]["server"], "carcd")

    def test_last_line_without_newline_at_the_edge(self):
        """"a last JSON line without newline, then shutdown: answered as a
        line" - with the same limit as any line."""
        with Daemon("--max-line", str(MAX_LINE), tcp=False) as d:
            with d.raw("unix") as r:
                r.send(line_of(MAX_LINE, msgid=9))
                r.shutdown_write()
                self.assertEqual(r.read_one("json", timeout=5), [1, 9, None, {}])
                self.assertTrue(r.closed_by_peer(5))
            with d.raw("unix") as r:
                r.send(line_of(MAX_LINE + 1, msgid=9))
                r.shutdown_write()
                m = r.read_one("json", timeout=5)
                self.assertEqual(m[2]["code"], "limit", m)
                self.assertTrue(r.closed_by_peer(5))


# ---- a client that pipelines and does not read ------------------------------------------

PIPELINED = 800   # history replies of ~17 KB: ~14 MB, well past the 8 MiB --max-output default


class Pipelining(AuditCase):
    def test_unread_replies_pause_the_client_and_it_is_served_when_it_reads(self):
        """"A client that sends requests but does not read its replies stops
        being served once 1 MiB of replies wait (it is served again when it
        reads)": its replies add up to far more than --max-output, yet it is
        not cut off; everyone else is served meanwhile."""
        with Daemon() as d, d.client("unix") as c:
            g = finished_game(c)
            size = len(msgpack.packb(c.history(g)))
            self.assertGreater(size * PIPELINED, 8 << 20)
            r = d.raw("unix", timeout=20)
            r.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            r.send(b"".join(msgpack.packb([0, i, "history", {"game": g}]) for i in range(PIPELINED)))
            time.sleep(1.0 * SLOW)
            with d.client("tcp") as other:
                self.assertEqual(other.state(g)["over"], True)
            self.assertTrue(d.alive())
            self.assertEqual(log_lines(d, r"unread, disconnected"), [])
            msgs = r.read("msgpack", PIPELINED, timeout=60)
            self.assertEqual([m[1] for m in msgs], list(range(PIPELINED)))
            self.assertTrue(all(m[2] is None and m[3]["game"] == g for m in msgs))
            self.assertFalse(r.eof)
            r.send_msgpack([0, 1, "ping", {}])
            self.assertEqual(r.read_one("msgpack", timeout=5), [1, 1, None, {}])
            r.close()

    def test_sigterm_writes_out_every_reply_of_a_paused_client(self):
        """"SIGTERM or SIGINT: carcd ... answers what it has already read,
        writes out every reply, closes every connection".  A client paused
        with unread replies (the previous test: it is never cut off while
        the daemon runs) gets every one at SIGTERM as it reads: the pause
        holds through the shutdown, rather than every answer being queued
        at once past --max-output and the connection dropped.

        The replies must be written within the daemon's 10 s of grace,
        which does not stretch under valgrind: so a --max-output of 2 MiB
        and a quarter of PIPELINED, which still add up to past it."""
        n = PIPELINED // 4
        d = Daemon("--max-output", str(2 << 20)).start()
        try:
            with d.client("unix") as c:
                g = finished_game(c)
                self.assertGreater(len(msgpack.packb(c.history(g))) * n, 2 << 20)
            r = d.raw("unix", timeout=20)
            r.send(b"".join(msgpack.packb([0, i, "history", {"game": g}]) for i in range(n)))
            time.sleep(1.0 * SLOW)
            d.proc.send_signal(signal.SIGTERM)
            msgs = r.read("msgpack", n, timeout=60)
            r.close()
            self.assertEqual(d.proc.wait(STOP_TIMEOUT), 0)
            self.assertEqual(len(msgs), n,
                             "%d of %d replies, then the connection was dropped:\n%s"
                             % (len(msgs), n, d.log_tail()))
        finally:
            d.stop()

    def test_a_reply_larger_than_max_output_to_a_reading_client(self):
        """--max-output is "unread output before a slow reader is cut off"
        and accepts 4096: a client that asks for the `history` of a finished
        game (17 KB) with nothing unread before gets it."""
        with Daemon("--max-output", "4096") as d:
            with d.client("unix") as c:
                g = finished_game(c)
            with d.raw("unix", timeout=10) as r:
                r.send_msgpack([0, 1, "history", {"game": g}])
                m = r.read_one("msgpack", timeout=10)
                self.assertIsNotNone(m, "disconnected: %s" % log_lines(d, r"warn: .*"))
                self.assertEqual((m[1], m[2]), (1, None))

    def test_replies_to_requests_sent_together_under_a_small_max_output(self):
        """Replies are bounded by the pause, not cut off by --max-output: a
        `ping` and a `history` (17 KB) sent in one write, under
        --max-output 4096, are both answered, though the second reply is
        queued behind the first."""
        with Daemon("--max-output", "4096") as d:
            with d.client("unix") as c:
                g = finished_game(c)
            with d.raw("unix", timeout=10) as r:
                r.send(msgpack.packb([0, 1, "ping", {}]) + msgpack.packb([0, 2, "history", {"game": g}]))
                msgs = r.read("msgpack", 2, timeout=10)
                self.assertEqual([(m[1], m[2]) for m in msgs], [(1, None), (2, None)],
                                 "disconnected: %s" % log_lines(d, r"warn: .*"))


# ---- SIGTERM with clients attached ---------------------------------------------------

class Shutdown(AuditCase):
    def test_sigterm_stops_accepting_while_replies_drain(self):
        """SIGTERM: carcd "stops accepting (and removes its Unix socket
        files), answers what it has already read, writes out every reply,
        closes every connection and exits 0"; info lines mark the start and
        end of the shutdown."""
        d = Daemon().start()
        try:
            with d.client("unix") as c:
                g = finished_game(c)
                live = c.new_game(["ann"], auth=False)["game"]
            watcher = d.client("tcp", "json")
            self.assertEqual(watcher.subscribe(live), {"seq": 0})
            n = 150   # ~2.6 MB of replies: more than the socket holds, less than --max-output
            r = d.raw("unix", timeout=20)
            r.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            r.send(b"".join(msgpack.packb([0, i, "history", {"game": g}]) for i in range(n)))
            time.sleep(0.5 * SLOW)
            unix_path, port = d.unix_path, d.port
            d.proc.send_signal(signal.SIGTERM)
            self.assertTrue(wait_for(lambda: log_lines(d, r"info: SIGTERM: no new connections"), 5 * SLOW),
                            d.log_tail())
            # the reader holds the shutdown: carcd is still running, but takes no one new
            self.assertTrue(d.alive())
            self.assertFalse(os.path.exists(unix_path), "the socket file stays during the shutdown")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                    s.sendall(b"ping\n")
                    s.settimeout(5)
                    self.assertEqual(s.recv(100), b"", "a new connection was served after SIGTERM")
            except (ConnectionRefusedError, ConnectionResetError):
                pass
            # the watcher, with nothing to be sent, is closed at once
            self.assertTrue(harness.wait_for(lambda: self.closed(watcher), 5 * SLOW))
            watcher.close()
            # the paused client gets every answer, then the end
            msgs = r.read("msgpack", n, timeout=30)
            self.assertEqual([m[1] for m in msgs], list(range(n)))
            self.assertTrue(r.closed_by_peer(10))
            r.close()
            self.assertEqual(d.proc.wait(STOP_TIMEOUT), 0, d.log_tail())
            self.assertTrue(log_lines(d, r"info: stopped"))
        finally:
            d.stop()

    @staticmethod
    def closed(client):
        try:
            client.ping()
            return False
        except (carcd.ConnectionClosed, OSError):
            return True

    def test_second_sigterm_is_a_warning(self):
        """"a second SIGTERM or SIGINT meanwhile exits at once" and is logged
        at `warn`."""
        d = Daemon().start()
        try:
            r = d.raw("unix")
            r.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            r.send(b"hello\n" * 1000)
            time.sleep(0.5 * SLOW)
            d.proc.send_signal(signal.SIGTERM)
            self.assertTrue(wait_for(lambda: log_lines(d, r"SIGTERM: no new connections"), 5 * SLOW))
            d.proc.send_signal(signal.SIGTERM)
            self.assertEqual(d.proc.wait(5 * SLOW), 0)
            self.assertTrue(log_lines(d, r"warn: SIGTERM again"), d.log_tail())
            r.close()
        finally:
            d.stop()


# ---- a full registry: closing frees room -------------------------------------------------

class Registry(AuditCase):
    def test_closing_a_game_frees_room_without_eviction(self):
        """With --max-games games in play, new_game is `limit`; closing one
        makes room, nothing is evicted, and the new id is not a reused one."""
        with Daemon("--max-games", "3", tcp=False) as d, d.client("unix") as c:
            gs = [c.new_game(["ann", "bob"]) for _ in range(3)]
            e0 = c.stats()["errors"]["limit"]
            self.assertError("limit", c.new_game, ["cid"])
            self.assertEqual(c.stats()["errors"]["limit"], e0 + 1)
            c.close_game(gs[1]["game"], gs[1]["admin_token"])
            g = c.new_game(["cid"])["game"]
            self.assertGreater(g, gs[2]["game"])
            s = c.stats()
            self.assertEqual((s["games"], s["games_total"], s["games_evicted"]), (3, 4, 0))
            self.assertEqual([x["game"] for x in c.games()["games"]], [gs[0]["game"], gs[2]["game"], g])
            self.assertError("limit", c.new_game, ["dan"])

    def test_eviction_is_logged_at_info(self):
        """info: "a game evicted from a full registry"."""
        with Daemon("--max-games", "1", tcp=False) as d, d.client("unix") as c:
            g = c.new_game(["ann"], tiles=["BA/C"], auth=False)["game"]
            finish(c, g, "evict")
            c.new_game(["bob"])
            self.assertTrue(wait_for(lambda: log_lines(d, r"info: game %d evicted" % g), 5), d.log_tail())


# ---- stats counters for connection-level errors -----------------------------------------

class Stats(AuditCase):
    def test_errors_outside_methods_are_counted(self):
        """`errors: {code: count}` counts what a connection is told before
        any method runs: a bad JSON line (bad_request), a line over
        --max-line and a MessagePack request over --max-request (limit),
        undecodable MessagePack (bad_request).  `requests` grows by the
        requests served; `uptime` grows."""
        with Daemon("--max-line", "64", "--max-request", "64", tcp=False) as d, d.client("unix") as c:
            s0 = c.stats()
            with d.raw("unix") as r:
                r.send_line("{not json")
                r.send_line("ping " + "x" * 100)
                for _ in range(10):
                    r.send_line("ping")
                msgs = r.read("json", 12, timeout=5)
                self.assertEqual([m[2] and m[2]["code"] for m in msgs], ["bad_request", "limit"] + [None] * 10)
            with d.raw("unix") as r:
                r.send(msgpack.packb([0, 1, "ping", {"p": "x" * 100}]))
                self.assertEqual(r.read_one("msgpack", timeout=5)[2]["code"], "limit")
                self.assertTrue(r.closed_by_peer(5))
            with d.raw("unix") as r:
                r.send(b"\x94\xc1")
                self.assertEqual(r.read_one("msgpack", timeout=5)[2]["code"], "bad_request")
                self.assertTrue(r.closed_by_peer(5))
            time.sleep(0.05)
            s1 = c.stats()
            self.assertEqual(s1["errors"]["bad_request"] - s0["errors"]["bad_request"], 2)
            self.assertEqual(s1["errors"]["limit"] - s0["errors"]["limit"], 2)
            self.assertEqual(sum(s1["errors"].values()) - sum(s0["errors"].values()), 4)
            self.assertIn(s1["requests"] - s0["requests"], (10, 11, 12, 13, 14))
            self.assertGreaterEqual(s1["connections_total"] - s0["connections_total"], 3)
            self.assertGreater(s1["uptime"], s0["uptime"])
            self.assertIsInstance(s1["uptime"], float)


# ---- refused connections: one warning a minute --------------------------------------------

class Refused(AuditCase):
    def test_refusals_are_warned_at_most_once_a_minute(self):
        """warn: "a connection refused at --max-connections (at most once a
        minute, with the count refused since)"; connections_refused counts
        every one."""
        with Daemon("--max-connections", "1") as d:
            for _ in range(100):   # the harness's own connections may not be gone yet
                held = d.raw("unix")
                held.send_line("stats")
                m = held.read_one("json", timeout=2)
                if m and m[2] is None:
                    break
                held.close()
                time.sleep(0.1)
            before = m[3]["connections_refused"]
            for i in range(6):
                with d.raw("tcp" if i % 2 else "unix") as r:
                    r.send_line("ping")
                    self.assertEqual(r.read_to_close("json", 5), ([], True))
            held.send_line("stats")
            after = held.read_one("json", timeout=5)[3]
            self.assertEqual(after["connections_refused"] - before, 6)
            self.assertEqual(after["connections"], 1)
            warns = log_lines(d, r"warn: connection refused.*")
            self.assertEqual(len(warns), 1, warns)
            held.close()


# ---- logging -----------------------------------------------------------------------------

class Logging(AuditCase):
    def test_debug_lines_and_their_absence_at_info(self):
        """debug: each connection opened and closed (peer address), why a
        connection was closed (idle, bad input, HTTP), games created, over
        and closed.  None of it at the default level."""
        for level in ("debug", "info"):
            with self.subTest(level=level):
                with Daemon("--log-level", level, "--idle-timeout", "1") as d:
                    with d.client("tcp") as c:
                        port = c.sock.getsockname()[1]
                        g = c.new_game(["ann"], tiles=["BA/C"], auth=False)
                        finish(c, g["game"], "log")
                        h = c.new_game(["bob"])
                        c.close_game(h["game"], h["admin_token"])
                    with d.raw("unix") as r:
                        r.send(b"\x94\xc1")
                        self.assertTrue(r.closed_by_peer(5))
                    with d.raw("unix") as r:
                        r.send(b"GET / HTTP/1.1\r\n\r\n")
                        r.closed_by_peer(5)
                    with d.raw("unix") as r:
                        self.assertTrue(r.closed_by_peer(10))   # idle
                    time.sleep(0.2)
                    log = d.log_tail(100000)
                    expect = [r"debug: 127\.0\.0\.1:\d+: connected", r"debug: 127\.0\.0\.1:\d+: closed",
                              r"debug: game %d: new" % g["game"], r"debug: game %d: over" % g["game"],
                              r"debug: game %d: closed" % h["game"], r"debug: .*idle",
                              r"debug: .*bad_request", r"debug: .*HTTP"]
                    expect.append(r"debug: 127\.0\.0\.1:%d: connected" % port)
                    for pat in expect:
                        if level == "debug":
                            self.assertRegex(log, pat)
                        else:
                            self.assertNotRegex(log, pat)
                    if level == "info":
                        self.assertNotIn("debug: ", log)
                    self.assertRegex(log, r"info: .*ready")

    def test_slow_reader_cut_off_is_a_warning(self):
        """warn: "a slow reader cut off at --max-output"; the games go on."""
        with Daemon("--max-output", "65536", tcp=False) as d, d.client("unix") as player:
            # forty games watched from the start (the subscribe replies are
            # small: the connection is not paused yet), then played one by
            # one while the watcher reads nothing: their notifications go
            # out past the pause, up to the output limit
            games = [player.new_game(["ann", "bob"], auth=False)["game"] for _ in range(40)]
            s = socket.socket(socket.AF_UNIX)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(d.unix_path)
            s.sendall(b"".join(msgpack.packb([0, i, "subscribe", {"game": g}]) for i, g in enumerate(games)))
            self.assertTrue(wait_for(lambda: sum(x["watchers"] for x in player.games()["games"]) >= 40, 5))
            rng = harness.new_rng("slow reader warn")
            for g in games:
                harness.play_random_game(lambda lm, m: player.apply_move(g, m),
                                         lambda: player.legal_moves(g), rng)
                if log_lines(d, r"warn: .*unread, disconnected"):
                    break
            self.assertTrue(wait_for(lambda: log_lines(d, r"warn: .*more than 65536 bytes unread, disconnected"), 5),
                            d.log_tail())
            self.assertEqual(player.ping(), {})
            s.close()


# ---- idle connections that sent part of a request ------------------------------------------

class Idle(AuditCase):
    def test_part_of_a_request_is_no_request(self):
        """Idle is "no request, no notification": a connection that sent half
        a JSON line or half a MessagePack request and then nothing is closed
        after --idle-timeout, like a silent one."""
        with Daemon("--idle-timeout", "1", "--log-level", "debug", tcp=False) as d:
            half_line, half_mp = d.raw("unix"), d.raw("unix")
            half_line.send(b'ping {"p":')
            half_mp.send(msgpack.packb([0, 1, "ping", {"p": "xxxx"}])[:6])
            self.assertTrue(half_line.closed_by_peer(10 * SLOW), "half a line kept the connection")
            self.assertTrue(half_mp.closed_by_peer(10 * SLOW), "half a request kept the connection")
            self.assertGreaterEqual(len(log_lines(d, r"idle for 1 s, closed")), 2, d.log_tail())
            half_line.close(), half_mp.close()
            with d.client("unix") as c:
                self.assertEqual(c.ping(), {})


# ---- many games and subscriptions on one connection -------------------------------------

class ManySubscriptions(AuditCase):
    GAMES = 200
    ROUNDS = 3

    def test_one_connection_watching_many_games(self):
        """Every move of every watched game reaches the one connection, each
        game's seqs in order without gaps, interleaved as the moves were
        applied; unsubscribing from half stops exactly those; closing the
        connection ends every subscription (`watchers` back to 0)."""
        with Daemon() as d, d.client("unix") as player:
            games = [player.new_game(["ann", "bob"], auth=False, seed=i)["game"] for i in range(self.GAMES)]
            w = d.client("tcp", "json", timeout=30)
            for g in games:
                self.assertEqual(w.subscribe(g), {"seq": 0})
            self.assertEqual({s["watchers"] for s in player.games()["games"]}, {1})
            applied = []
            for _ in range(self.ROUNDS):
                for g in games:
                    lm = player.legal_moves(g)
                    res = player.apply_move(g, lm["moves"][0])
                    applied.append((g, res["seq"], res["events"]))
            got = []
            for _ in range(len(applied)):
                n = w.next_event(timeout=10)
                self.assertIsNotNone(n, "only %d of %d notifications" % (len(got), len(applied)))
                got.append((n["game"], n["seq"], n["events"]))
            self.assertEqual(got, applied)
            for g in games[::2]:
                w.unsubscribe(g)
            expect = []
            for g in games:
                lm = player.legal_moves(g)
                res = player.apply_move(g, lm["moves"][0])
                if g in games[1::2]:
                    expect.append((g, res["seq"]))
            got = []
            while True:
                n = w.next_event(timeout=1.0 * SLOW)
                if n is None:
                    break
                got.append((n["game"], n["seq"]))
            self.assertEqual(got, expect)
            w.close()
            self.assertTrue(wait_for(lambda: {s["watchers"] for s in player.games()["games"]} == {0}, 10))


# ---- fairness: a flood does not starve others ----------------------------------------------

class Fairness(AuditCase):
    def test_a_flooding_client_does_not_starve_another(self):
        """At most 32 requests of one connection are served per turn of the
        loop: a client that pipelines thousands of costly requests does not
        keep another's ping waiting until it is done."""
        n = 4000
        with Daemon() as d, d.client("unix") as c:
            g = finished_game(c)
            r = d.raw("unix", timeout=60)
            counts = {"n": 0}
            stop = threading.Event()

            def reader():
                while counts["n"] < n and not stop.is_set():
                    got = r.read("msgpack", 50, timeout=1)
                    if not got and r.eof:
                        return
                    counts["n"] += len(got)

            r.send(b"".join(msgpack.packb([0, i, "history", {"game": g}]) for i in range(n)))
            t = threading.Thread(target=reader, daemon=True)
            t.start()
            self.assertTrue(wait_for(lambda: counts["n"] > 0, 10))
            with d.client("tcp") as other:
                self.assertEqual(other.ping(), {})
                seen = counts["n"]
            self.assertLess(seen, n * 3 // 4, "the other client waited for most of the flood")
            t.join(120 * SLOW)
            stop.set()
            r.close()
            self.assertEqual(counts["n"], n)


if __name__ == "__main__":
    unittest.main()

"""test_audit10_daemon.py - what round 10 of the mutation testing of
daemon/*.c showed no test checked (proto/PROTOCOL.md sections 5 and 6):

- after a closing error carcd *shuts its side* of the connection at once
  (the client reads the end of the stream right after the error reply,
  while its own side is still open), and it lingers reading for *up to 2
  seconds*, not until the idle timeout (skipping the shutdown or the linger
  timer passed every other test: the client saw the close only later);
- PORT is "a number from 0 to 65535": 65535 itself is a port carcd listens
  on (refusing it as a usage error passed every other test);
- systemd's sockets are carcd's only "when `LISTEN_PID` is carcd's pid":
  LISTEN_FDS meant for another process is ignored (taking the descriptors
  whatever LISTEN_PID says passed every other test); and 32 passed
  listening sockets are all served (refusing 32 as too many passed too);
- --idle-timeout: a connection that never sends a byte is closed after
  the timeout, not twice it; and one that made a request is closed the
  timeout after that request, not later (arming the first timer for twice
  the timeout, or re-arming it for a whole timeout, passed every other
  test);
- SIGTERM "answers what it has already read": whole requests; the start
  of one that was still arriving gets no `bad_request` (the client did
  nothing wrong: the server stopped), the connection just closes after the
  replies (answering it passed every other test);
- "a socket on which a daemon still listens is refused (exit 1)", also
  when that daemon's backlog is full (its connect answers EAGAIN, not
  ECONNREFUSED): taking such a socket over passed every other test;
- "one reply or notification larger than `--max-output`, to a client that
  had read everything before it, still goes out": a watcher that keeps up
  gets a last notification of a game larger than --max-output and stays
  connected (cutting it off passed every other test, which only try a large
  reply);
- a client that does not read its replies "stops being served once 1 MiB
  of replies wait, or half of `--max-output` if that is less": with
  --max-output 1 MiB the pause comes at 512 KiB, half a MiB before the
  pause under --max-output 2 MiB (pausing at 1 MiB under both passed every
  other test); and it "is served again when it has read down to a quarter
  of that", not half (resuming at half passed every other test);
- `stats` memory.per_game is what one held game takes: `games` divided by
  the number of games (reporting the total passed every other test).

Each test starts a daemon of its own.  The times these tests allow, and
the pauses they take to see the daemon settle, grow by harness.SLOW under
valgrind, where the tests show only that the behaviour holds; the plain and
sanitizer runs tell the limits apart."""

import json
import msgpack
import os
import random
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from harness import CARCD, PYTHON, SLOW, STOP_TIMEOUT, Daemon, vmrss_kib, wait_for
import carcd  # noqa: E402  (harness puts contrib/python on the path)
from test_audit_daemon2 import finished_game  # noqa: E402
from test_daemon import LAUNCHER, Proc, ping  # noqa: E402  (a carcd started by hand; systemd's launcher)

# Starts carcd with the socket given as a descriptor number in argv[1] on
# fd 3 and LISTEN_FDS=1, as systemd would, but with LISTEN_PID naming
# another process (the launcher's parent): the sockets are not carcd's.
FOREIGN_LAUNCHER = r"""
import os, sys
os.dup2(int(sys.argv[1]), 3)
os.environ["LISTEN_FDS"] = "1"
os.environ["LISTEN_PID"] = str(os.getppid())
os.execv(sys.argv[2], sys.argv[2:])
"""
# The same with LISTEN_PID carcd's pid followed by junk, which names no
# process either (sd_listen_fds(3) refuses it too).
JUNK_PID_LAUNCHER = FOREIGN_LAUNCHER.replace("str(os.getppid())", "str(os.getpid()) + 'x'")
# Digits and nothing else (PROTOCOL.md section 6): carcd's pid after a
# blank or a plus sign is no pid of carcd's either.
BLANK_PID_LAUNCHER = FOREIGN_LAUNCHER.replace("str(os.getppid())", "' ' + str(os.getpid())")
PLUS_PID_LAUNCHER = FOREIGN_LAUNCHER.replace("str(os.getppid())", "'+' + str(os.getpid())")

class ClosingErrors(unittest.TestCase):
    def test_our_side_is_shut_right_after_a_closing_error(self):
        """PROTOCOL.md section 5: "byte 0xc1 ... `bad_request`, then close"
        and "After a closing error carcd shuts its side of the connection
        and reads (and drops) what the client still sends for up to 2
        seconds".  The client keeps its own side open and sends nothing
        more: the end of the stream follows the error reply at once, well
        before the 2 seconds of lingering are over."""
        with Daemon(tcp=False) as d, d.raw("unix") as raw:
            raw.send(b"\x94\x00\x01\xc1")
            reply = raw.read_one("msgpack", timeout=5)
            self.assertEqual(reply[0], 1)
            self.assertEqual(reply[2]["code"], "bad_request")
            t0 = time.monotonic()
            self.assertTrue(raw.closed_by_peer(timeout=1.0 * SLOW), "no end of stream within 1 s of the error")
            self.assertLess(time.monotonic() - t0, 1.0 * SLOW)

    def test_lingering_ends_after_2_seconds(self):
        """PROTOCOL.md section 5: carcd "reads (and drops) what the client
        still sends for up to 2 seconds".  A client that neither closes nor
        stops sending does not keep its connection past that: `stats`
        counts it gone within a few seconds (the idle timeout is 600 s)."""
        with Daemon(tcp=False) as d, d.raw("unix") as raw, d.client("unix") as c:
            self.assertEqual(c.stats()["connections"], 2)
            raw.send(b"\x94\x00\x01\xc1")
            self.assertEqual(raw.read_one("msgpack", timeout=5)[2]["code"], "bad_request")
            raw.send(b"more bytes the daemon drops")
            self.assertTrue(wait_for(lambda: c.stats()["connections"] == 1, 4.0 * SLOW),
                            "the lingering connection was not closed within 4 s")


class StopWithUnreadRequests(unittest.TestCase):
    def test_requests_never_read_end_in_a_clean_close(self):
        """PROTOCOL.md section 6: at SIGTERM carcd answers what it has read
        and writes out every reply; requests pipelined past that get no
        answer, and the connection ends as after a closing error (its end
        of stream after the replies), not with a reset, which could destroy
        replies still in flight."""
        with Daemon(unix=False) as d, d.raw("tcp") as r:
            r.send(b"".join(b'[0, %d, "ping", {}]\n' % i for i in range(3000)))
            d.proc.send_signal(signal.SIGTERM)
            out = b""
            r.sock.settimeout(5 * SLOW)
            try:
                while True:
                    chunk = r.sock.recv(1 << 20)
                    if not chunk:
                        break
                    out += chunk
            except ConnectionResetError:
                self.fail("reset after %d replies" % out.count(b"\n"))
            replies = [json.loads(line) for line in out.splitlines()]
            self.assertEqual(replies, [[1, i, None, {}] for i in range(len(replies))])
            self.assertEqual(d.proc.wait(STOP_TIMEOUT), 0)


class Idle(unittest.TestCase):
    def test_a_silent_connection_is_closed_after_the_idle_timeout(self):
        """PROTOCOL.md section 5: "idle connection (no request, no
        notification) | 600 s | `--idle-timeout`".  Under --idle-timeout 1
        a connection that sends nothing is closed about 1 s after it was
        made (within 1.6 s), not 2 s."""
        with Daemon("--idle-timeout", "1", tcp=False) as d, d.raw("unix") as raw:
            t0 = time.monotonic()
            self.assertTrue(raw.closed_by_peer(timeout=1.6 * SLOW), "still open after 1.6 s")
            self.assertGreater(time.monotonic() - t0, 0.8)

    def test_the_timeout_counts_from_the_last_request(self):
        """PROTOCOL.md section 5: idle is "no request, no notification" for
        --idle-timeout.  Under --idle-timeout 1, a connection that pings
        half a second after it was made is closed about 1 s after that
        ping: not half a second after it, as it would be if the timeout
        counted from the connection, nor 1.5 s after it, as a sweep once a
        second would.  The close may come up to 1.45 s after the ping, to
        leave room for a loaded machine."""
        with Daemon("--idle-timeout", "1", tcp=False) as d, d.raw("unix") as raw:
            time.sleep(0.5)
            raw.send_line("ping")
            self.assertEqual(raw.read_one("json", timeout=2), [1, None, None, {}])
            t0 = time.monotonic()
            self.assertTrue(raw.closed_by_peer(timeout=1.45 * SLOW), "still open 1.45 s after the last request")
            self.assertGreater(time.monotonic() - t0, 0.8)


class Shutdown(unittest.TestCase):
    def test_sigterm_does_not_answer_half_a_request(self):
        """PROTOCOL.md section 6: "SIGTERM or SIGINT: carcd stops accepting
        ..., answers what it has already read, writes out every reply,
        closes every connection and exits 0".  A client has sent one whole
        `ping` and the first bytes of a second when SIGTERM comes: it gets
        the reply to the first and then the end of the stream, no error
        about the second (its connection did not end inside a message)."""
        d = Daemon(tcp=False).start()
        try:
            with d.raw("unix") as raw:
                whole = msgpack.packb([0, 1, "ping", {}])
                raw.send(whole + whole[:5])
                self.assertEqual(raw.read_one("msgpack", timeout=5), [1, 1, None, {}])
                d.proc.send_signal(signal.SIGTERM)
                self.assertEqual(raw.read("msgpack", 5, timeout=5 * SLOW), [])
                self.assertTrue(raw.eof)
            self.assertEqual(d.proc.wait(STOP_TIMEOUT), 0)
        finally:
            d.stop()


class Ports(unittest.TestCase):
    def test_port_65535_is_a_port(self):
        """PROTOCOL.md section 6: "`PORT` is a number from 0 to 65535".
        When nobody holds 127.0.0.1:65535 (the port lies above the kernel's
        ephemeral range), carcd listens there and answers."""
        probe = socket.socket()
        try:
            probe.bind(("127.0.0.1", 65535))
        except OSError:
            self.fail("127.0.0.1:65535 is in use: this test needs it free")
        finally:
            probe.close()
        d = Proc(["--listen", "tcp:127.0.0.1:65535"])
        try:
            d.wait_log(r"ready")
            self.assertEqual(ping("tcp:127.0.0.1:65535"), {})
        finally:
            d.close()

    def test_a_busy_daemon_with_a_full_backlog_keeps_its_socket(self):
        """PROTOCOL.md section 6: "a socket file left at `PATH` by a daemon
        that was killed is replaced; a socket on which a daemon still
        listens is refused (exit 1)".  A daemon that is stopped (SIGSTOP)
        with its backlog full still listens: a second carcd on its path
        exits 1 and the first keeps serving once it runs again."""
        with Daemon(tcp=False) as d:
            os.kill(d.proc.pid, signal.SIGSTOP)
            queued = []
            try:
                for _ in range(4096):
                    s = socket.socket(socket.AF_UNIX)
                    s.setblocking(False)
                    try:
                        s.connect(d.unix_path)
                    except BlockingIOError:
                        s.close()
                        break
                    queued.append(s)
                else:
                    self.fail("4096 connections did not fill the backlog")
                try:
                    p = subprocess.run([CARCD, "--listen", "unix:" + d.unix_path], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=5)
                except subprocess.TimeoutExpired:
                    self.fail("a second carcd took over the socket of a daemon that listens")
                self.assertEqual(p.returncode, 1, p.stderr.decode(errors="replace"))
                self.assertIn("already listens", p.stderr.decode(errors="replace"))
            finally:
                for s in queued:
                    s.close()
                os.kill(d.proc.pid, signal.SIGCONT)

            def pings():   # once it has accepted (and dropped) the queued connections
                try:
                    with d.client("unix", timeout=2.0) as c:
                        return c.ping() == {}
                except (carcd.ConnectionClosed, OSError):
                    return False
            self.assertTrue(wait_for(pings, 10), "the first daemon no longer answers")


class SocketActivation(unittest.TestCase):
    def test_listen_fds_of_another_pid_are_not_taken(self):
        """PROTOCOL.md section 6: "When `LISTEN_PID` is carcd's pid, the
        `LISTEN_FDS` descriptors from 3 on are taken as listening sockets".
        With LISTEN_PID naming another process (or carcd's pid and junk)
        carcd serves its --listen address only and logs no systemd
        listener."""
        for launcher in (FOREIGN_LAUNCHER, JUNK_PID_LAUNCHER, BLANK_PID_LAUNCHER, PLUS_PID_LAUNCHER):
            with self.subTest(launcher=launcher):
                tmp = tempfile.mkdtemp(prefix="carcd-audit10-")
                passed, own = os.path.join(tmp, "passed.sock"), os.path.join(tmp, "own.sock")
                sock = socket.socket(socket.AF_UNIX)
                sock.bind(passed)
                sock.listen(4)
                d = Proc(None, pass_fds=[sock.fileno()],
                         argv=[PYTHON, "-c", launcher, str(sock.fileno()), CARCD, "--listen", "unix:" + own])
                sock.close()
                try:
                    d.wait_log(r"ready")
                    self.assertNotIn("systemd", d.text())
                    self.assertEqual(d.text().count("listening on"), 1, d.text())
                    self.assertEqual(ping("unix:" + own), {})
                finally:
                    d.close()
                    for name in os.listdir(tmp):
                        os.unlink(os.path.join(tmp, name))
                    os.rmdir(tmp)

    def test_32_passed_sockets_are_served(self):
        """PROTOCOL.md section 6: the `LISTEN_FDS` descriptors from 3 on
        are taken as listening sockets, "each must be a listening stream
        socket, otherwise carcd exits 1"; carcd takes up to 32 listeners
        (as many as --listen options).  32 listening Unix sockets passed by
        a systemd-like launcher are all served, the last one too."""
        tmp = tempfile.mkdtemp(prefix="carcd-audit10-")
        paths = [os.path.join(tmp, "s%d.sock" % i) for i in range(32)]
        socks = []
        for path in paths:
            s = socket.socket(socket.AF_UNIX)
            s.bind(path)
            s.listen(4)
            socks.append(s)
        fds = [s.fileno() for s in socks]
        d = Proc(None, pass_fds=fds, argv=[PYTHON, "-c", LAUNCHER, ",".join(map(str, fds)), "-", CARCD])
        for s in socks:
            s.close()
        try:
            d.wait_log(r"ready")
            self.assertIn("(systemd fd 34)", d.text())
            self.assertEqual(ping("unix:" + paths[-1]), {})
        finally:
            d.close()
            for name in os.listdir(tmp):
                os.unlink(os.path.join(tmp, name))
            os.rmdir(tmp)


    def test_too_many_listeners_leave_no_socket_file(self):
        """PROTOCOL.md section 6: at most 32 listeners, and "A failed start
        removes the Unix sockets it had already made".  2 sockets from
        systemd and 31 --listen: carcd exits 1 before it binds any, so no
        socket file of its own is left, the 31st's neither; a LISTEN_FDS
        with a sign in front is refused as no number."""
        tmp = tempfile.mkdtemp(prefix="carcd-audit10-")
        try:
            socks = []
            for i in range(2):
                s = socket.socket(socket.AF_UNIX)
                s.bind(os.path.join(tmp, "sd%d.sock" % i))
                s.listen(4)
                socks.append(s)
            fds = [s.fileno() for s in socks]
            own = ["--listen=unix:" + os.path.join(tmp, "m%d.sock" % i) for i in range(31)]
            for count, words in (("-", "too many listeners: 2 from systemd and 31 --listen, at most 32 in all"),
                                 ("+2", "LISTEN_FDS=+2: want a number of sockets from 0 to 32")):
                with self.subTest(listen_fds=count):
                    d = Proc(None, pass_fds=fds, argv=[PYTHON, "-c", LAUNCHER, ",".join(map(str, fds)), count, CARCD]
                             + own)
                    try:
                        self.assertEqual(d.proc.wait(STOP_TIMEOUT), 1, d.text())
                        self.assertIn(words, d.text())
                        self.assertEqual(sorted(n for n in os.listdir(tmp) if n.startswith("m")), [])
                    finally:
                        d.close()
            for s in socks:
                s.close()
        finally:
            for name in os.listdir(tmp):
                os.unlink(os.path.join(tmp, name))
            os.rmdir(tmp)


EVERY_SET = ["base", "inns-cathedrals", "traders-builders", "abbey-mayor", "king-robber", "hills-sheep",
             "cathars", "cult"]


class MaxOutput(unittest.TestCase):
    def test_a_notification_larger_than_max_output_to_a_watcher_that_reads(self):
        """PROTOCOL.md section 5: "The limit is on output left unread: one
        reply or notification larger than `--max-output`, to a client that
        had read everything before it, still goes out."  Six seats play a
        game of many sets to its end under --max-output 4096; the last move
        scores dozens of features, so its notification is over 4096 bytes of
        JSON.  The watcher, which read every notification before, gets it
        whole and is still served."""
        with Daemon("--max-output", "4096", tcp=False) as d, d.client("unix") as c, \
                d.client("unix", "json") as w:
            g = c.new_game(["a", "b", "c", "d", "e", "f"], auth=False, seed=9, expansions=EVERY_SET)["game"]
            self.assertEqual(w.subscribe(g), {"seq": 0})
            rng = random.Random(9)
            note = res = None
            while True:
                lm = c.legal_moves(g)
                if lm["phase"] == "over":
                    break
                res = c.apply_move(g, rng.choice(lm["moves"]))
                note = w.next_event(timeout=5)
                self.assertIsNotNone(note, "no notification of seq %d" % lm["seq"])
                self.assertEqual(note["events"], res["events"])
            self.assertTrue(res["over"])
            self.assertGreater(len(json.dumps([2, "event", note], separators=(",", ":"))), 4096)
            self.assertEqual(w.ping(), {})
            self.assertNotIn("unread, disconnected", d.log_tail())

    def served_before_the_pause(self, max_output):
        """How many `history` replies (17 KB each) a daemon under
        --max-output writes to a client that pipelines 200 and reads none:
        what the pause lets through plus what the socket buffers hold."""
        with Daemon("--max-output", str(max_output), tcp=False) as d, d.client("unix") as c:
            g = finished_game(c)
            with d.raw("unix", timeout=20) as r:
                before = c.stats()["requests"]
                r.send(b"".join(msgpack.packb([0, i, "history", {"game": g}]) for i in range(200)))
                served = [-1]
                since = [time.monotonic()]

                # settled: the count has not moved for 0.3 s (x SLOW), so a
                # daemon slowed by a loaded machine is not caught between
                # two replies and taken for a paused one
                def settled():
                    n = c.stats()["requests"] - before - 1 - len(served)
                    if n != served[-1]:
                        since[0] = time.monotonic()
                    served.append(n)
                    return n > 0 and time.monotonic() - since[0] >= 0.3 * SLOW
                time.sleep(0.1 * SLOW)
                self.assertTrue(wait_for(settled, 10 * SLOW))
                self.assertTrue(d.alive())
                return served[-1], len(msgpack.packb(c.history(g)))

    def test_replies_pause_at_half_of_a_small_max_output(self):
        """PROTOCOL.md section 5: "A client that sends requests but does not
        read its replies stops being served once 1 MiB of replies wait, or
        half of `--max-output` if that is less".  Under --max-output 1 MiB
        the pause comes at 512 KiB, under 2 MiB at 1 MiB: the second daemon
        writes about 512 KiB more replies before it stops serving (the
        socket buffers, whatever their size, take the same in both)."""
        small, size = self.served_before_the_pause(1 << 20)
        large, _ = self.served_before_the_pause(2 << 20)
        self.assertGreater(small, 0)
        self.assertGreaterEqual((large - small) * size, 256 << 10,
                                "%d replies of %d bytes under 1 MiB, %d under 2 MiB" % (small, size, large))
        self.assertLessEqual((large - small) * size, 768 << 10,
                             "%d replies of %d bytes under 1 MiB, %d under 2 MiB" % (small, size, large))

    def read_before_service_resumes(self, max_output):
        """Bytes a paused client (200 `history` requests pipelined, none
        read) reads, 16 KiB at a time, before the daemon serves it again."""
        with Daemon("--max-output", str(max_output), tcp=False) as d, d.client("unix") as c:
            g = finished_game(c)
            with d.raw("unix", timeout=20) as r:
                calls = [0]
                before = c.stats()["requests"]

                def served():   # requests but the stats calls of this test
                    calls[0] += 1
                    return c.stats()["requests"] - before - calls[0]
                r.send(b"".join(msgpack.packb([0, i, "history", {"game": g}]) for i in range(200)))
                last = -1
                while True:   # until the pause
                    time.sleep(0.05 * SLOW)
                    n = served()
                    if n == last:
                        break
                    last = n
                read = 0
                while read < (4 << 20):
                    got = r.sock.recv(16 << 10)
                    self.assertTrue(got, "disconnected")
                    read += len(got)
                    time.sleep(0.01 * SLOW)
                    if served() > last:
                        return read
                self.fail("not served again after reading %d bytes" % read)

    def test_service_resumes_at_a_quarter_of_the_pause(self):
        """PROTOCOL.md section 5: a client that does not read "stops being
        served once 1 MiB of replies wait, or half of `--max-output` if that
        is less (it is served again when it has read down to a quarter of
        that)".  Pause and resume at 512 and 128 KiB under --max-output
        1 MiB, at 1 MiB and 256 KiB under 2 MiB: the client of the second
        reads about 384 KiB more before it is served again (at half, 256 KiB
        more); the socket buffers take the same in both."""
        small = self.read_before_service_resumes(1 << 20)
        large = self.read_before_service_resumes(2 << 20)
        self.assertTrue(320 << 10 <= large - small <= 480 << 10,
                        "read %d bytes before service resumed under 1 MiB, %d under 2 MiB" % (small, large))


class Stats(unittest.TestCase):
    def test_per_game_is_the_memory_of_one_game(self):
        """PROTOCOL.md section 4, stats: `memory: {rss, games, per_game}`,
        memory in bytes, `games` being what the held games take; per_game
        is that divided among the games held (0 with none)."""
        with Daemon(tcp=False) as d, d.client("unix") as c:
            self.assertEqual(c.stats()["memory"]["per_game"], 0)
            for n in (1, 2, 3):
                c.new_game(["ann", "bob"])
                st = c.stats()
                self.assertEqual(st["games"], n)
                self.assertGreater(st["memory"]["games"], 0)
                self.assertEqual(st["memory"]["per_game"], st["memory"]["games"] // n)
            # rss in bytes, as the kernel counts the process's pages (whatever
            # their size): VmRSS, read just before and after
            before = vmrss_kib(d.proc.pid)
            rss = c.stats()["memory"]["rss"]
            after = vmrss_kib(d.proc.pid)
            self.assertLessEqual(min(before, after) * 1024 - 1024 * 1024, rss)
            self.assertLessEqual(rss, max(before, after) * 1024 + 1024 * 1024)


if __name__ == "__main__":
    unittest.main()

"""test_daemon.py - carcd as an operator runs it: options, listeners,
signals, logging and systemd socket activation (proto/PROTOCOL.md,
section 6).  Every test starts daemons of its own."""

import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from harness import CARCD, PYTHON, SLOW, START_TIMEOUT, STOP_TIMEOUT, Daemon, wait_for
import carcd  # noqa: E402  (harness puts contrib/python on the path)

# What starts carcd as systemd would: the sockets given as file descriptor
# numbers in argv[1] become 3, 4, ... and LISTEN_FDS/LISTEN_PID name them.
LAUNCHER = r"""
import fcntl, os, sys
fds = [int(x) for x in sys.argv[1].split(",") if x]
high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in fds]   # out of the way of 3, 4, ...
for i, fd in enumerate(high):
    os.dup2(fd, 3 + i)
os.environ["LISTEN_FDS"] = sys.argv[2] if sys.argv[2] != "-" else str(len(fds))
os.environ["LISTEN_PID"] = str(os.getpid())
os.execv(sys.argv[3], sys.argv[3:])
"""


def run_carcd(*args, timeout=None):
    """carcd that is expected to refuse to start: (exit status, stderr)."""
    p = subprocess.run([CARCD] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout or START_TIMEOUT)
    return p.returncode, p.stderr.decode(errors="replace")


def ping(address, timeout=5.0):
    with carcd.Client(address, timeout=timeout) as c:
        return c.ping()


class Proc:
    """A carcd started by hand, its stderr in a file."""

    def __init__(self, args, pass_fds=(), argv=None, env=None):
        self.dir = tempfile.mkdtemp(prefix="carcd-daemon-")
        self.log_path = os.path.join(self.dir, "log")
        self.log = open(self.log_path, "wb")
        if callable(env):   # env(log file's stat) -> extra environment
            env = dict(os.environ, **env(os.fstat(self.log.fileno())))
        self.proc = subprocess.Popen(argv or [CARCD] + list(args), stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=subprocess.STDOUT, pass_fds=pass_fds,
                                     env=env)

    def text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def wait_log(self, pattern, timeout=START_TIMEOUT):
        found = []

        def seen():
            m = re.search(pattern, self.text())
            if m:
                found.append(m)
            return bool(m) or self.proc.poll() is not None

        wait_for(seen, timeout)
        if not found:
            raise AssertionError("no %r in the log:\n%s" % (pattern, self.text()))
        return found[0]

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return -9
        finally:
            self.log.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        for name in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, name))
        os.rmdir(self.dir)


class Options(unittest.TestCase):
    def test_refused_values_exit_2_with_a_message(self):
        for args in (["--max-connections", "0"], ["--max-games", "x"], ["--idle-timeout", "-1"],
                     ["--max-request", "1"], ["--max-line", "1k"], ["--max-output", ""],
                     ["--log-level", "verbose"], ["--bogus"], ["stray"]):
            status, err = run_carcd(*args)
            self.assertEqual(status, 2, args)
            self.assertTrue(err.startswith("carcd: ") or "unrecognized" in err, (args, err))

    def test_bad_addresses_exit_1_with_a_message(self):
        long_path = "/tmp/" + "x" * 120
        for spec, words in (("tcp:127.0.0.1:99999", "port"), ("tcp:127.0.0.1:-1", "port"),
                            ("tcp:127.0.0.1:http", "port"), ("tcp:127.0.0.1", "HOST:PORT"),
                            ("tcp:[::1]", "PORT"), ("tcp::7878", "HOST:PORT"), ("unix:", "PATH"),
                            ("udp:1.2.3.4:5", "tcp:HOST:PORT"), ("unix:" + long_path, "at most 107"),
                            ("unix:/nonexistent-dir/carcd.sock", "No such file")):
            status, err = run_carcd("--listen", spec)
            self.assertEqual(status, 1, spec)
            self.assertIn("error: ", err, spec)
            self.assertIn(words, err, spec)
            self.assertNotIn("listening on", err, spec)

    def test_help_and_version(self):
        p = subprocess.run([CARCD, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0)
        self.assertIn(b"--listen", p.stdout)
        p = subprocess.run([CARCD, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.startswith(b"carcd "))

    def test_several_listeners_port_0_and_ipv6(self):
        args = ["--listen", "tcp:127.0.0.1:0"]
        try:
            with socket.socket(socket.AF_INET6) as s:
                s.bind(("::1", 0))
            ipv6 = True
        except OSError:
            ipv6 = False
        if ipv6:
            args += ["--listen", "tcp:[::1]:0"]
        d = Proc(args)
        try:
            d.wait_log(r"ready")
            ports = re.findall(r"listening on tcp:127\.0\.0\.1:(\d+)", d.text())
            self.assertEqual(len(ports), 1, d.text())
            self.assertNotEqual(ports[0], "0")
            self.assertEqual(ping("tcp:127.0.0.1:" + ports[0]), {})
            if ipv6:
                port6 = re.search(r"listening on tcp:\[::1\]:(\d+)", d.text()).group(1)
                with socket.create_connection(("::1", int(port6)), timeout=5) as s:
                    s.sendall(b"ping\n")
                    self.assertEqual(s.makefile("rb").readline(), b"[1,null,null,{}]\n")
            self.assertEqual(d.stop(), 0)
        finally:
            d.close()


class UnixSockets(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-unix-")
        self.path = os.path.join(self.dir, "carcd.sock")

    def tearDown(self):
        for name in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, name))
        os.rmdir(self.dir)

    def test_stale_socket_file_is_replaced(self):
        # what a daemon killed with SIGKILL leaves: a socket file nobody listens on
        s = socket.socket(socket.AF_UNIX)
        s.bind(self.path)
        s.close()
        d = Proc(["--listen", "unix:" + self.path])
        try:
            d.wait_log(r"ready")
            self.assertEqual(ping("unix:" + self.path), {})
            self.assertIn("stale", d.text())
            self.assertEqual(d.stop(), 0)
            self.assertFalse(os.path.exists(self.path), "SIGTERM leaves the socket file")
        finally:
            d.close()

    def test_socket_of_a_running_daemon_is_not_taken(self):
        first = Proc(["--listen", "unix:" + self.path])
        try:
            first.wait_log(r"ready")
            status, err = run_carcd("--listen", "unix:" + self.path)
            self.assertEqual(status, 1)
            self.assertIn("already listens on it", err)
            # the first one still has its socket, and its file
            self.assertTrue(os.path.exists(self.path))
            self.assertEqual(ping("unix:" + self.path), {})
            self.assertEqual(first.stop(), 0)
        finally:
            first.close()

    def test_a_file_that_is_not_a_socket_is_left_alone(self):
        with open(self.path, "w") as f:
            f.write("data\n")
        status, err = run_carcd("--listen", "unix:" + self.path)
        self.assertEqual(status, 1)
        self.assertIn("not a socket", err)
        with open(self.path) as f:
            self.assertEqual(f.read(), "data\n")

    def test_failed_start_removes_the_sockets_it_made(self):
        status, err = run_carcd("--listen", "unix:" + self.path, "--listen", "tcp:127.0.0.1:70000")
        self.assertEqual(status, 1, err)
        self.assertFalse(os.path.exists(self.path), err)

    def test_out_of_descriptors_it_pauses_and_serves_again(self):
        """Section 6: "When `accept` fails (out of file descriptors), the
        listener pauses for 0.5 s instead of spinning", with a `warn` line
        at most once a minute.  carcd runs with 32 descriptors and 40
        clients connect and ping: those beyond what it can hold wait in the
        backlog while it pauses, not in a loop; once half of the first
        clients hang up, every waiting client is answered."""
        path = os.path.join(self.dir, "carcd.sock")
        limit = ("import os, resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32)); "
                 "os.execv(sys.argv[1], sys.argv[1:])")
        d = Proc(None, argv=[PYTHON, "-c", limit, CARCD, "--listen", "unix:" + path])
        clients = []
        try:
            d.wait_log(r"ready")
            for _ in range(40):
                s = socket.socket(socket.AF_UNIX)
                s.settimeout(10 * SLOW)
                s.connect(path)
                s.sendall(b"ping\n")
                clients.append(s)
            d.wait_log(r"warn: unix:[^\n]*: accept: [^\n]*; pausing 500 ms \(1 time since the last such line\)")
            time.sleep(1.5)
            warnings = len(re.findall(r"accept: .*; pausing 500 ms", d.text()))
            self.assertEqual(warnings, 1, d.text())  # paused about 3 times since: no line for them
            self.assertIsNone(d.proc.poll(), d.text())
            # the first clients were taken and answered; the last one waits
            for s in clients[:10]:
                self.assertEqual(s.recv(4096), b"[1,null,null,{}]\n")
                s.close()
            clients[-1].settimeout(0.3)
            with self.assertRaises(TimeoutError):
                clients[-1].recv(4096)
            clients[-1].settimeout(10 * SLOW)
            # each answer read lets one more in
            for s in clients[10:]:
                self.assertEqual(s.recv(4096), b"[1,null,null,{}]\n")
                s.close()
            self.assertEqual(d.stop(), 0, d.text())
        finally:
            for s in clients:
                s.close()
            d.close()


class Signals(unittest.TestCase):
    def test_sighup_is_ignored(self):
        with Daemon() as d:
            with d.client() as c:
                game = c.new_game(players=["ann", "bob"], seed=3)["game"]
            d.proc.send_signal(signal.SIGHUP)
            wait_for(lambda: "SIGHUP" in d.log_tail(), 5 * SLOW)
            self.assertTrue(d.alive(), d.log_tail())
            with d.client() as c:
                self.assertEqual(c.state(game)["game"], game)
            self.assertIn("SIGHUP", d.log_tail())
            unix_path = d.unix_path
            self.assertEqual(d.stop(), 0)
            self.assertFalse(os.path.exists(unix_path))

    def test_sigterm_and_sigint_close_connections_and_exit_0(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            d = Daemon().start()
            raw = d.raw("tcp", timeout=5.0)
            raw.send_line("ping")
            self.assertEqual(raw.read_one("json"), [1, None, None, {}])
            unix_path = d.unix_path
            d.proc.send_signal(sig)
            self.assertTrue(raw.closed_by_peer(STOP_TIMEOUT), "connection left open after %s" % sig)
            raw.close()
            self.assertEqual(d.proc.wait(STOP_TIMEOUT), 0, d.log_tail())
            self.assertFalse(os.path.exists(unix_path), "%s leaves the socket file" % sig)
            self.assertIn("stopped", d.log_tail())
            d.stop()

    def test_second_sigint_exits_at_once(self):
        d = Daemon().start()
        try:
            # replies nobody reads hold the shutdown up to its 10 s grace
            raw = d.raw("unix")
            raw.send(b"hello\n" * 2000)
            time.sleep(0.5 * SLOW)
            d.proc.send_signal(signal.SIGINT)
            time.sleep(0.3 * SLOW)
            t0 = time.monotonic()
            d.proc.send_signal(signal.SIGINT)
            self.assertEqual(d.proc.wait(STOP_TIMEOUT), 0, d.log_tail())
            self.assertLess(time.monotonic() - t0, 5.0 * SLOW)
            raw.close()
        finally:
            d.stop()

    def test_peer_that_vanished_does_not_kill_it(self):
        with Daemon() as d:
            for transport in ("unix", "tcp"):
                for _ in range(5):
                    raw = d.raw(transport)
                    raw.send(b"hello\n" * 3000)
                    raw.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    raw.close()
            time.sleep(0.3 * SLOW)
            self.assertTrue(d.alive(), d.log_tail())
            with d.client() as c:
                self.assertEqual(c.ping(), {})


class Logging(unittest.TestCase):
    def test_tokens_are_never_logged(self):
        with Daemon("--log-level", "debug") as d:
            with d.client() as c:
                g = c.new_game(players=["ann", "bob"], seed=11)
                tokens = [s["token"] for s in g["seats"]] + [g["admin_token"]]
                lm = c.legal_moves(g["game"])
                c.apply_move(g["game"], lm["moves"][0], token=tokens[lm["seat"]], seq=lm["seq"])
                c.close_game(g["game"], g["admin_token"])
            log = d.log_tail(1000)
            self.assertIn("debug: ", log)
            for t in tokens:
                self.assertNotIn(t, log)

    def test_error_level_is_quiet_when_all_is_well(self):
        with Daemon("--log-level", "error") as d:
            with d.client() as c:
                c.ping()
            d.proc.send_signal(signal.SIGHUP)
            time.sleep(0.2 * SLOW)
            log = d.log_tail()
        self.assertEqual(log, "")

    def test_time_is_left_to_the_journal_only_when_stderr_is_the_journal(self):
        stamp = r"(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}[+-]\d{4} info: listening on "
        for env, timed in ((lambda st: {"JOURNAL_STREAM": "%d:%d" % (st.st_dev, st.st_ino)}, False),
                           (lambda st: {"JOURNAL_STREAM": "%d:%d" % (st.st_dev, st.st_ino + 1)}, True),
                           (lambda st: {"JOURNAL_STREAM": "garbage"}, True)):
            d = Proc(["--listen", "tcp:127.0.0.1:0"], env=env)
            try:
                d.wait_log(r"ready")
                self.assertEqual(d.stop(), 0)
                text = d.text()
                if timed:
                    self.assertRegex(text, stamp)
                else:
                    # the priority of sd-daemon(3) first: journald takes it off
                    self.assertRegex(text, r"(?m)^<6>info: listening on ")
                    self.assertNotRegex(text, stamp)
            finally:
                d.close()

    def test_refused_connections_are_a_warning(self):
        with Daemon("--max-connections", "1") as d:
            # the harness's own connections may not be gone yet
            for _ in range(50):
                first = d.raw("unix")
                first.send_line("ping")
                if first.read_one("json") == [1, None, None, {}]:
                    break
                first.close()
                time.sleep(0.1)
            with first:
                with d.raw("unix") as second:
                    self.assertTrue(second.closed_by_peer(5.0))
                wait_for(lambda: "refused" in d.log_tail(), 5 * SLOW)
                self.assertRegex(d.log_tail(), r"warn: connection refused: 1 connections open")


class SocketActivation(unittest.TestCase):
    """carcd started as systemd starts it (carcd.socket): LISTEN_FDS."""

    def launch(self, socks, listen_fds="-", *args):
        fds = [s.fileno() for s in socks]
        argv = [PYTHON, "-c", LAUNCHER, ",".join(map(str, fds)), listen_fds, CARCD] + list(args)
        return Proc(None, pass_fds=fds, argv=argv)

    def test_passed_tcp_and_unix_sockets_are_served(self):
        tmp = tempfile.mkdtemp(prefix="carcd-sd-")
        path = os.path.join(tmp, "carcd.sock")
        tcp = socket.socket()
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(16)
        port = tcp.getsockname()[1]
        unix = socket.socket(socket.AF_UNIX)
        unix.bind(path)
        unix.listen(16)
        d = self.launch([tcp, unix])
        tcp.close()
        unix.close()
        try:
            d.wait_log(r"ready")
            self.assertIn("listening on tcp:127.0.0.1:%d (systemd fd 3)" % port, d.text())
            self.assertIn("listening on unix:%s (systemd fd 4)" % path, d.text())
            # no default listener beside the passed sockets
            self.assertNotIn("7878", d.text())
            self.assertEqual(ping("tcp:127.0.0.1:%d" % port), {})
            self.assertEqual(ping("unix:" + path), {})
            self.assertEqual(d.stop(), 0)
            # the socket file is systemd's: carcd leaves it
            self.assertTrue(os.path.exists(path))
        finally:
            d.close()
            os.unlink(path)
            os.rmdir(tmp)

    def test_what_is_not_a_listening_stream_socket_is_refused(self):
        udp = socket.socket(type=socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        bound = socket.socket()
        bound.bind(("127.0.0.1", 0))
        for socks, n, words in (([udp], "-", "not a listening stream socket"),
                                ([bound], "-", "not a listening stream socket"),
                                ([], "1", "fd 3 is not a socket"),
                                ([], "x", "LISTEN_FDS=x"),
                                ([], "-1", "LISTEN_FDS=-1")):
            d = self.launch(socks, n, "--listen", "tcp:127.0.0.1:0")
            try:
                self.assertEqual(d.proc.wait(START_TIMEOUT), 1, d.text())
                self.assertIn(words, d.text())
                self.assertNotIn("ready", d.text())
            finally:
                d.close()
        udp.close()
        bound.close()


if __name__ == "__main__":
    unittest.main()

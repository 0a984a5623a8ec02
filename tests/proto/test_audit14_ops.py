"""What an operator running carcd as a service found: listeners, options,
signals and socket activation (proto/PROTOCOL.md section 6).

A fourteenth review started the daemon as a service would, with every form
of `--listen` and option value, and sent it signals.  Pinned here, each
against the sentence of section 6 it holds the daemon to:

- "a socket on which a daemon still listens is refused (exit 1)": carcd
  judged any socket it could not connect to with a stream connect as
  stale and deleted it -- a live datagram or seqpacket socket of another
  program (a syslog /dev/log, say), or a live carcd's socket that the
  user starting carcd may not connect to (EACCES) in a directory it may
  write.
- "carcd removes its Unix socket files when it stops": it removes the
  path, whatever file is there by then, so a daemon whose file was
  replaced takes the new owner's socket with it.
- "SIGHUP is ignored": not while the journal is being restored (the
  handlers are installed only after the listeners), when it kills carcd.
- "a second SIGTERM or SIGINT meanwhile exits at once" and exit status 0
  after a SIGTERM/SIGINT shutdown: a second one arriving while carcd frees
  its games after the loop killed it with the signal (status -15).
- "one line on stderr starting `carcd: `" for a bad option: an unknown
  short option inside a cluster (`-xy`) was reported as the argument
  before it.
"""

import os
import signal
import socket
import subprocess
import tempfile
import shutil
import threading
import time
import unittest

import harness

CARCD = harness.CARCD


def start(args, **kw):
    return subprocess.Popen([CARCD] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, **kw)


def finish(p, timeout=10):
    """(exit status, stderr) of p, stopping it with SIGTERM if it still runs."""
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        p.wait(10)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    return p.returncode, err


def wait_path(path, p, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and p.poll() is None:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return os.path.exists(path)


def sig_blocked(pid, sig):
    """Whether process pid blocks signal sig (/proc/PID/status, SigBlk)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigBlk:"):
                    return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False


def make_games(d, n):
    r = d.raw(timeout=60)
    line = b'new_game {"players":["a","b"]}\n'
    # a writer of its own: carcd stops reading a client 1 MiB of replies behind
    threading.Thread(target=r.send, args=(line * n,), daemon=True).start()
    got = 0
    while got < n:
        msgs = r.read("json", n - got, timeout=60)
        if not msgs:
            raise AssertionError("no reply to new_game after %d" % got)
        got += len(msgs)
    r.close()


class LiveSocketsAreNotTaken(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-a14-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def check_refused(self, path, owner_sock):
        ino = os.stat(path).st_ino
        p = start(["--listen", "unix:" + path])
        time.sleep(0.5)
        status, err = finish(p, 0.1)
        self.assertTrue(os.path.exists(path), "carcd deleted a live socket of another program:\n" + err)
        self.assertEqual(os.stat(path).st_ino, ino, "carcd replaced a live socket:\n" + err)
        self.assertEqual(status, 1, err)

    def test_live_datagram_socket(self):
        path = os.path.join(self.dir, "dgram.sock")
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.bind(path)
            self.check_refused(path, s)

    def test_live_seqpacket_socket(self):
        path = os.path.join(self.dir, "seq.sock")
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
            s.bind(path)
            s.listen(4)
            self.check_refused(path, s)

    @unittest.skipUnless(os.geteuid() == 0, "needs root to start carcd as another user")
    def test_live_carcd_socket_the_user_may_not_connect_to(self):
        """A carcd of root's on a 0700 socket in a directory others may write;
        a carcd started as nobody on the same path must be refused, not
        delete root's socket."""
        if not os.stat(os.path.dirname(self.dir)).st_mode & 0o001:
            self.skipTest("nobody cannot reach " + os.path.dirname(self.dir))
        os.chmod(self.dir, 0o777)
        path = os.path.join(self.dir, "live.sock")
        old = os.umask(0o077)
        try:
            root = start(["--listen", "unix:" + path])
        finally:
            os.umask(old)
        try:
            self.assertTrue(wait_path(path, root))
            ino = os.stat(path).st_ino

            def as_nobody():
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            p = start(["--listen", "unix:" + path], preexec_fn=as_nobody)
            time.sleep(0.6)
            status, err = finish(p, 0.1)
            self.assertTrue(os.path.exists(path) and os.stat(path).st_ino == ino,
                            "a carcd as nobody deleted root's live socket:\n" + err)
            self.assertEqual(status, 1, err)
        finally:
            root.send_signal(signal.SIGTERM)
            finish(root)

    def test_exit_removes_only_its_own_socket_file(self):
        """A's file deleted, B listening on the path since: A's exit must leave B's file."""
        path = os.path.join(self.dir, "s.sock")
        a = start(["--listen", "unix:" + path])
        b = None
        try:
            self.assertTrue(wait_path(path, a))
            os.unlink(path)
            b = start(["--listen", "unix:" + path])
            self.assertTrue(wait_path(path, b))
            ino = os.stat(path).st_ino
            a.send_signal(signal.SIGTERM)
            self.assertEqual(finish(a)[0], 0)
            self.assertTrue(os.path.exists(path) and os.stat(path).st_ino == ino,
                            "the carcd that stopped removed the socket file of the one still running")
        finally:
            for p in (a, b):
                if p and p.poll() is None:
                    p.send_signal(signal.SIGTERM)
                    finish(p)


class Signals(unittest.TestCase):
    def test_signals_while_the_journal_is_restored(self):
        """SIGHUP is ignored (logged at info), also while carcd restores its
        journal; a SIGTERM that comes then stops it cleanly once it is up."""
        top = tempfile.mkdtemp(prefix="carcd-a14-")
        try:
            j = os.path.join(top, "journal")
            with harness.Daemon("--journal", j, tcp=False) as d:
                make_games(d, 3000)
            sock = os.path.join(top, "s.sock")
            p = start(["--journal", j, "--listen", "unix:" + sock])
            # from its first line carcd holds the signals back; before that,
            # the default action (death) is still in place
            deadline = time.monotonic() + 10
            while not sig_blocked(p.pid, signal.SIGHUP) and time.monotonic() < deadline:
                time.sleep(0.001)
            self.assertTrue(sig_blocked(p.pid, signal.SIGHUP))
            early = not os.path.exists(sock)
            p.send_signal(signal.SIGHUP)
            p.send_signal(signal.SIGTERM)
            status, err = finish(p, 60)
            self.assertEqual(status, 0, err)
            self.assertIn("SIGHUP: nothing to reload", err)
            self.assertIn("SIGTERM: no new connections", err)
            self.assertIn("journal: %s: 3000 games restored" % j, err)
            self.assertTrue(err.rstrip().endswith("info: stopped"), err[-300:])
            self.assertTrue(early, "the signals came after the restore: the test shows nothing")
        finally:
            shutil.rmtree(top, ignore_errors=True)

    def test_sigusr_is_ignored(self):
        """SIGUSR1 and SIGUSR2 (a log rotator's "reopen") are ignored like
        SIGHUP: the daemon and its games go on."""
        d = harness.Daemon(tcp=False).start()
        try:
            with d.client() as c:
                g = c.new_game(["a", "b"])["game"]
                for sig in (signal.SIGUSR1, signal.SIGUSR2):
                    d.proc.send_signal(sig)
                    deadline = time.monotonic() + 10
                    name = signal.Signals(sig).name
                    while name + ": nothing to reload" not in d.log_tail() and time.monotonic() < deadline:
                        time.sleep(0.01)
                    self.assertIn("info: %s: nothing to reload (options are only read at start); ignored" % name,
                                  d.log_tail())
                self.assertEqual(c.state(g)["seq"], 0)
        finally:
            self.assertEqual(d.stop(), 0)

    def test_second_sigterm_while_tearing_down(self):
        """SIGTERM, then SIGTERM again and again until carcd is gone: exit 0,
        never death by the signal."""
        d = harness.Daemon("--max-games", "100000", tcp=False).start()
        try:
            make_games(d, 10000)
            p = d.proc
            p.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 15
            while p.poll() is None and time.monotonic() < deadline:
                try:
                    p.send_signal(signal.SIGTERM)
                except ProcessLookupError:
                    break
                time.sleep(0.0005)
            p.wait(15)
            self.assertEqual(p.returncode, 0, "a second SIGTERM during the shutdown: status %s\n%s"
                             % (p.returncode, d.log_tail(4)))
        finally:
            d.stop()


class Options(unittest.TestCase):
    def test_unknown_short_option_in_a_cluster(self):
        p = start(["--listen", "tcp:127.0.0.1:0", "--max-games=5", "-xy"])
        status, err = finish(p)
        self.assertEqual(status, 2)
        first = err.splitlines()[0]
        self.assertIn("-x", first, "the error names another option: " + first)
        self.assertNotIn("--max-games", first)


if __name__ == "__main__":
    unittest.main()

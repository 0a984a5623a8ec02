"""--journal: games that outlive a restart of carcd, or a crash.

Each test runs daemons of its own on one journal directory: games made
and played on the first are compared, method by method, with what the
next one serves after a SIGKILL or a SIGTERM.
"""

import errno
import os
import resource
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import tempfile
import unittest
import zlib

import harness
import carcd  # noqa: E402  (harness puts contrib/python on the path)

EVERY = ["base", "river", "river2", "mini", "inns-cathedrals", "traders-builders", "abbey-mayor", "king-robber",
         "cathars", "cult", "hills-sheep"]
MOVE = 12   # bytes of a move in a game file
REC = 16    # and of its record: the move and a CRC-32


def snapshot(c, game):
    """Everything a client can ask about a game."""
    return {"state": c.state(game), "legal_moves": c.legal_moves(game), "history": c.history(game),
            "score": c.score(game)}


def play(c, game, tokens, rng, n):
    """n random legal moves (fewer when the game ends)."""
    for _ in range(n):
        lm = c.legal_moves(game)
        if lm["phase"] == "over":
            return
        token = tokens[lm["seat"]] if tokens else None
        c.apply_move(game, rng.choice(lm["moves"]), token=token, seq=lm["seq"])


class JournalDirs:
    """A journal directory for each test, and daemons of its own on it, stopped
    (cleanly, it is checked) at the end; a mixin of TestCases."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="carcd-journal-")
        self.dir = os.path.join(self.tmp, "journal")
        self.daemons = []

    def tearDown(self):
        for d in self.daemons:
            if d.alive():
                status = d.stop()
                self.assertEqual(status, 0, "carcd did not stop cleanly:\n" + d.log_tail())
            else:
                d.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def daemon(self, *extra):
        d = harness.Daemon("--journal", self.dir, *extra, tcp=False).start()
        self.daemons.append(d)
        return d

    def files(self):
        return sorted(os.listdir(self.dir))

    def refused(self, journal, listen=None, prefix=(), env=None):
        """The stderr of a carcd started (after `prefix`, such as setpriv)
        on `journal`, which must refuse it: exit 1 at once."""
        listen = listen or "unix:" + os.path.join(self.tmp, "s.sock")
        p = subprocess.run(list(prefix) + [harness.CARCD, "--listen", listen, "--journal", journal],
                           capture_output=True, text=True, timeout=30, env=env)
        self.assertEqual(p.returncode, 1, p.stderr)
        return p.stderr


class Journal(JournalDirs, unittest.TestCase):
    def crash(self, d):
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait()

    def test_games_come_back_after_a_crash(self):
        rng = harness.new_rng(self.id())
        d = self.daemon()
        with d.client() as c:
            a = c.new_game(["ann", "bob", "cy"], seed=11)
            tokens = [s["token"] for s in a["seats"]]
            play(c, a["game"], tokens, rng, 25)
            b = c.new_game(["solo & <co>"], expansions=EVERY, seed=2 ** 53 - 1, auth=False,
                           rules={"abbey_final_round": True, "farm_scoring": "per-farm-3"},
                           components={"large": False}, bag=[2, "wolf", 1])
            play(c, b["game"], None, rng, 60)
            done = c.new_game(["x", "y"], expansions=["base", "traders-builders"], tiles=["BA/C", "TB/CcR.c",
                              "BA/RRRR"], start=[{"tile": "BA/RCr", "x": 0, "y": 0, "rot": 90}], auth=False)
            play(c, done["game"], None, rng, 100)
            gone = c.new_game(["p", "q"])
            c.close_game(gone["game"], gone["admin_token"])
            before = {g["game"]: snapshot(c, g["game"]) for g in (a, b, done)}
            listing = c.games()
        self.assertTrue(before[done["game"]]["state"]["over"])
        self.assertEqual(self.files(), ["1.game", "2.game", "3.game", "next-id"])
        self.crash(d)

        d2 = self.daemon()
        with d2.client() as c:
            for game, snap in before.items():
                self.assertEqual(snapshot(c, game), snap, "game %d" % game)
            self.assertEqual(c.games(), listing)
            self.assertEqual(harness.code_of(c.state, gone["game"]), "no_such_game")
            # the tokens are the game's own still
            lm = c.legal_moves(a["game"])
            due = lm["seat"]
            other = tokens[(due + 1) % 3]
            self.assertEqual(harness.code_of(c.apply_move, a["game"], lm["moves"][0], token=other),
                             "not_your_turn")
            self.assertEqual(harness.code_of(c.apply_move, a["game"], lm["moves"][0], token="0" * 32), "forbidden")
            res = c.apply_move(a["game"], lm["moves"][0], token=tokens[due], seq=lm["seq"])
            self.assertEqual(res["seq"], lm["seq"] + 1)
            self.assertEqual(harness.code_of(c.close_game, done["game"], a["admin_token"]), "forbidden")
            c.close_game(done["game"], done["admin_token"])
            # ids go on after the highest ever made, the closed game's too
            self.assertEqual(c.new_game(["z"])["game"], gone["game"] + 1)
            after = snapshot(c, a["game"])
        self.assertEqual(self.files(), ["1.game", "2.game", "5.game", "next-id"])
        self.assertEqual(after["state"]["seed_sha256"], before[a["game"]]["state"]["seed_sha256"])

        # the move made after the restart is kept as well (a clean stop this time)
        self.assertEqual(d2.stop(), 0)
        d3 = self.daemon()
        with d3.client() as c:
            self.assertEqual(snapshot(c, a["game"]), after)
            # the finished game's seed and salt keep their promise
            h = before[done["game"]]["history"]
            self.assertEqual(harness.seed_commitment(h["seed"], h["salt"]),
                             before[done["game"]]["state"]["seed_sha256"])

    def test_many_games_moving_in_turn(self):
        """More games than carcd keeps files open for, each moving in turn:
        every move reaches its own file."""
        d = self.daemon()
        n = 300
        with d.client() as c:
            games = [c.new_game(["a", "b"], seed=i, auth=False)["game"] for i in range(n)]
            for rnd in range(3):
                for g in games[rnd::2] if rnd < 2 else games:
                    lm = c.legal_moves(g)
                    c.apply_move(g, lm["moves"][g % len(lm["moves"])], seq=lm["seq"])
            seqs = {g: c.state(g)["seq"] for g in games}
        self.assertEqual(sorted(set(seqs.values())), [2])
        self.crash(d)
        d2 = self.daemon()
        with d2.client() as c:
            self.assertEqual({g: c.state(g)["seq"] for g in games}, seqs)

    def test_files_are_private_and_go_with_their_games(self):
        d = self.daemon("--max-games", "2")
        with d.client() as c:
            g1 = c.new_game(["a"], tiles=["BA/C"], auth=False)
            play(c, g1["game"], None, harness.new_rng(self.id()), 10)
            self.assertTrue(c.state(g1["game"])["over"])
            g2 = c.new_game(["a", "b"])
            self.assertEqual(self.files(), ["1.game", "2.game", "next-id"])
            g3 = c.new_game(["a", "b"])   # the registry is full: the finished game 1 makes room
            self.assertEqual(harness.code_of(c.state, g1["game"]), "no_such_game")
            self.assertEqual(self.files(), ["2.game", "3.game", "next-id"])
            c.close_game(g2["game"], g2["admin_token"])
            self.assertEqual(self.files(), ["3.game", "next-id"])
            self.assertEqual(g3["game"], 3)
        self.assertEqual(stat.S_IMODE(os.stat(self.dir).st_mode), 0o700)
        for name in self.files():
            self.assertEqual(stat.S_IMODE(os.stat(os.path.join(self.dir, name)).st_mode), 0o600, name)
        with open(os.path.join(self.dir, "3.game"), "rb") as f:
            self.assertIn(bytes.fromhex(g3["seats"][0]["token"]), f.read())   # why they are private

    def test_broken_files_are_set_aside_and_the_rest_restored(self):
        rng = harness.new_rng(self.id())
        d = self.daemon()
        with d.client() as c:
            games = [c.new_game(["a", "name %d" % i], seed=i, auth=False)["game"] for i in range(1, 10)]
            for g in games:
                play(c, g, None, rng, 12)
        self.assertEqual(d.stop(), 0)
        path = lambda g, suffix="": os.path.join(self.dir, "%d.game%s" % (g, suffix))  # noqa: E731
        size = os.path.getsize(path(1))
        head = size - 12 * REC

        def edit(g, change):
            """Rewrites game g's file through change(bytearray), then mends its
            checksums, as a file written by a carcd would have them."""
            with open(path(g), "r+b") as f:
                data = bytearray(f.read())
                change(data)
                data[head - 8:head - 4] = b"\0\0\0\0"
                crc = zlib.crc32(bytes(data[:head]))
                data[head - 8:head - 4] = struct.pack(harness.BYTE_ORDER + "I", crc)
                for i in range(12):
                    at = head + i * REC
                    crc = zlib.crc32(bytes(data[at:at + MOVE]), crc)
                    data[at + MOVE:at + REC] = struct.pack(harness.BYTE_ORDER + "I", crc)
                f.seek(0)
                f.write(data)

        with open(path(1), "ab") as f:          # a move torn by a crash: dropped, the game restored
            f.write(b"\x01\x00\x00")
        # a move that is not legal there (its checksums right)
        edit(2, lambda data: data.__setitem__(slice(head + 5 * REC, head + 5 * REC + MOVE),
                                              struct.pack(harness.BYTE_ORDER + "BBBBhhHH", 1, 0, 0, 0, 999, 999, 0, 0)))
        with open(path(3), "r+b") as f:         # another build's file
            f.seek(8)
            f.write(b"\xff\xff\xff\xff")
        os.truncate(path(4), 100)               # half a header
        with open(path(5), "r+b") as f:         # not a game file at all
            f.write(b"GARBAGE!")
        shutil.copy(path(6), path(99))          # a file whose header names game 6

        def bad_name(data):                     # a name no new_game would take
            data[data.index(b"name 7") + 4] = 1
        edit(7, bad_name)
        with open(path(8), "r+b") as f:         # one bit of a move flipped
            f.seek(head + 3 * REC + 4)
            byte = f.read(1)[0]
            f.seek(head + 3 * REC + 4)
            f.write(bytes([byte ^ 1]))
        with open(path(9), "r+b") as f:         # one bit of the header flipped
            f.seek(head - 40)
            byte = f.read(1)[0]
            f.seek(head - 40)
            f.write(bytes([byte ^ 1]))
        shutil.copy(path(6), path(10))
        edit(10, lambda data: data.__setitem__(slice(16, 24), struct.pack(harness.BYTE_ORDER + "q", 10)))
        edit(10, lambda data: data.__setitem__(slice(head - 16, head - 8), b"\1" * 8))  # dealt otherwise
        os.mkfifo(path(11))                     # a FIFO must not stall the start
        os.symlink(path(6), path(12))           # nor is a link followed
        with open(path(13, ".new"), "wb") as f:  # a new_game a crash cut short: never answered
            f.write(b"half a header")
        with open(path(2 ** 53 - 1), "wb") as f:  # a broken file's name is no game id
            f.write(b"x")
        with open(os.path.join(self.dir, "notes.txt"), "w") as f:
            f.write("not ours: left alone\n")
        d2 = self.daemon()
        with d2.client() as c:
            self.assertEqual(c.state(1)["seq"], 12)
            self.assertEqual(c.state(6)["seq"], 12)
            for g in (2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 99):
                self.assertEqual(harness.code_of(c.state, g), "no_such_game", g)
            self.assertEqual(c.new_game(["a"])["game"], 10)   # next-id: a broken file's name is no game id
        self.assertEqual(os.path.getsize(path(1)), size)
        broken = [2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 99, 2 ** 53 - 1]
        self.assertEqual(self.files(), sorted(["1.game", "6.game", "10.game", "next-id", "notes.txt"] +
                                              ["%d.game.broken" % g for g in broken]))
        log = d2.log_tail(200)
        for g, why in ((2, "a move in it is not legal where it stands"),
                       (3, "written by another carcd build"), (4, "shorter than a game's header"),
                       (5, "not a carcd game file"), (7, "its header is damaged"),
                       (8, "a move in it fails its checksum"), (9, "its header fails its checksum"),
                       (10, "this carcd deals its setup differently"), (11, "not a regular file"),
                       (12, "a symbolic link, not a file"), (99, "its header names another game")):
            self.assertIn("error: journal: %s: %s" % (path(g), why), log)
        self.assertIn("journal: %s: 2 games restored (others not: see the errors above)" % self.dir, log)

    def test_restore_stops_at_max_games_and_evicts_nothing(self):
        d = self.daemon()
        with d.client() as c:
            done = [c.new_game(["a"], tiles=["BA/C"], auth=False)["game"] for _ in range(3)]
            for g in done:
                play(c, g, None, harness.new_rng(self.id()), 10)
                self.assertTrue(c.state(g)["over"])
            c.new_game(["a", "b"])
        self.assertEqual(d.stop(), 0)
        d2 = self.daemon("--max-games", "2")
        with d2.client() as c:
            self.assertEqual([g["game"] for g in c.games()["games"]], [1, 2])
        self.assertEqual(self.files(), ["1.game", "2.game", "3.game", "4.game", "next-id"])
        self.assertIn("journal: game 3 not restored: --max-games games are restored already", d2.log_tail())
        self.assertIn("journal: %s: 2 games restored (others not" % self.dir, d2.log_tail())

    def test_a_directory_that_cannot_be_used(self):
        with open(os.path.join(self.tmp, "file"), "w") as f:
            f.write("x")
        for where, says in ((os.path.join(self.tmp, "file"), "cannot open"),
                            (os.path.join(self.tmp, "no", "such"), "cannot make")):
            err = self.refused(where)
            self.assertIn("error: journal: %s %s" % (says, where), err)
            self.assertIn("error: cannot keep a journal in %s" % where, err)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "s.sock")))
        shared = os.path.join(self.tmp, "shared")
        os.mkdir(shared, 0o755)
        os.chmod(shared, 0o755)
        self.assertIn("error: journal: %s has mode 0755: it must be closed to group and others (mode 0700)" % shared,
                      self.refused(shared))
        os.chmod(shared, 0o710)   # closed to others, open to the group: refused too, and the mode says why
        self.assertIn("%s has mode 0710: it must be closed" % shared, self.refused(shared))
        if os.geteuid() == 0:   # (only root can give it away; CI runs as root)
            os.chmod(shared, 0o700)
            os.chown(shared, 65534, -1)
            self.assertIn("%s belongs to uid 65534: it must belong to carcd's user (uid 0)" % shared,
                          self.refused(shared))
        self.assertEqual(os.listdir(shared), [])
        # a directory closed to writing, named as such (run as nobody when
        # root, whom no mode stops)
        os.chmod(shared, 0o500)
        as_user = []
        if os.geteuid() == 0:
            os.chown(shared, 65534, -1)
            os.chmod(self.tmp, 0o711)   # for nobody to reach it
            as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        self.assertIn("error: journal: cannot write in %s: %s" % (shared, os.strerror(errno.EACCES)),
                      self.refused(shared, listen="tcp:127.0.0.1:0", prefix=as_user))
        # next-id, named when it is what stands in the way
        os.chmod(shared, 0o700)
        if os.geteuid() == 0:
            os.chown(shared, 0, -1)
        next_id = os.path.join(shared, "next-id")
        for make, says, remove in ((lambda at: os.symlink("/nowhere", at),
                                    "it is a symbolic link, which carcd does not follow", os.unlink),
                                   (os.mkdir, "Is a directory", os.rmdir)):
            make(next_id)
            self.assertIn("error: journal: cannot open %s: %s" % (next_id, says), self.refused(shared))
            remove(next_id)
        self.assertEqual(os.listdir(shared), [])
        p = subprocess.run([harness.CARCD, "--journal", ""], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith("carcd: --journal wants a directory\n"), p.stderr)

    def test_a_directory_that_cannot_be_read_to_its_end(self):
        """A readdir that fails (a 32-bit carcd without large-file support
        on 64-bit inode numbers: EOVERFLOW) is no empty journal: carcd
        says so and does not start, rather than serve none of its games."""
        d = self.daemon()
        with d.client() as c:
            c.new_game(["a"])
        self.assertEqual(d.stop(), 0)
        shim = os.path.join(self.tmp, "readdir_fails.so")
        src = shim[:-3] + ".c"
        with open(src, "w") as f:
            f.write("#include <dirent.h>\n#include <errno.h>\n"
                    "struct dirent *readdir(DIR *d) { (void)d; errno = EOVERFLOW; return 0; }\n"
                    "struct dirent64 *readdir64(DIR *d) { (void)d; errno = EOVERFLOW; return 0; }\n")
        cc = shlex.split(os.environ.get("CC", "cc"))   # CC="ccache gcc" is two words
        cc = subprocess.run(cc + ["-D_GNU_SOURCE", "-shared", "-fPIC", "-o", shim, src], capture_output=True, text=True)
        self.assertEqual(cc.returncode, 0, cc.stderr)
        env = dict(os.environ, LD_PRELOAD=shim,
                   ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
        err = self.refused(self.dir, env=env)
        self.assertIn("error: journal: cannot read %s: %s" % (self.dir, os.strerror(errno.EOVERFLOW)), err)
        self.assertNotIn("restored", err)
        self.assertEqual(self.files(), ["1.game", "next-id"])
        with self.daemon().client() as c:   # and without the fault, all is there
            self.assertEqual(c.state(1)["seq"], 0)

    def test_one_daemon_per_journal(self):
        d = self.daemon()
        self.assertIn("error: journal: %s is in use by another carcd" % self.dir, self.refused(self.dir))
        with d.client() as c:
            self.assertEqual(c.new_game(["a"])["game"], 1)
        self.assertEqual(d.stop(), 0)
        self.daemon()   # free again once it stopped

    def test_without_the_option_nothing_is_written(self):
        d = harness.Daemon(tcp=False).start()
        self.daemons.append(d)
        with d.client() as c:
            c.new_game(["a", "b"])
        self.assertFalse(os.path.exists(self.dir))


class FullDisk(unittest.TestCase):
    """A write that fails (a full disk; here a file-size limit, RLIMIT_FSIZE,
    with SIGXFSZ ignored so that the write fails with EFBIG instead of
    killing carcd) costs that game its file, with an error line; the game
    goes on in memory, and the other games keep theirs."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="carcd-journal-full-")
        self.dir = os.path.join(self.tmp, "journal")
        self.sock = os.path.join(self.tmp, "carcd.sock")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, limit):
        def limited():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # kept across exec
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        # stderr to a pipe: the limit would stop a log file too
        p = subprocess.Popen(harness.WRAPPER + [harness.CARCD, "--listen", "unix:" + self.sock, "--journal", self.dir],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             preexec_fn=limited)
        self.assertTrue(harness.wait_for(lambda: self.ready(p), harness.START_TIMEOUT), "carcd did not come up")
        return p

    def ready(self, p):
        self.assertIsNone(p.poll(), "carcd exited")
        return harness.answers("unix:" + self.sock)

    def stop(self, p):
        p.send_signal(signal.SIGTERM)
        err = p.communicate(timeout=harness.STOP_TIMEOUT)[1].decode()
        self.assertEqual(p.returncode, 0, err)
        return err

    def test_a_failed_write_costs_the_game_its_file_only(self):
        rng = harness.new_rng(self.id())
        # a first game with no limit tells the size of a header
        p = self.start(resource.RLIM_INFINITY)
        with carcd.Client("unix:" + self.sock) as c:
            first = c.new_game(["a"], auth=False)["game"]
        self.stop(p)
        head = os.path.getsize(os.path.join(self.dir, "%d.game" % first))
        # room for a header and 5 moves a file
        p = self.start(head + 5 * REC)
        with carcd.Client("unix:" + self.sock) as c:
            long, short = c.new_game(["a"], auth=False)["game"], c.new_game(["b"], auth=False)["game"]
            play(c, long, None, rng, 12)
            play(c, short, None, rng, 3)
            self.assertEqual(c.state(long)["seq"], 12)   # the game goes on
            kept = snapshot(c, short)
        err = self.stop(p)
        self.assertIn("error: journal: game %d: cannot append a move: File too large; the game goes on without its "
                      "file (a restart ends it)" % long, err)
        self.assertEqual(err.count("error: "), 1, err)   # once, not at every move after
        self.assertEqual(sorted(os.listdir(self.dir)), ["%d.game" % g for g in (first, short)] + ["next-id"])
        # a header that cannot be written: new_game still makes the game
        p = self.start(head - 1)
        with carcd.Client("unix:" + self.sock) as c:
            lost = c.new_game(["c"], auth=False)["game"]
            play(c, lost, None, rng, 2)
            self.assertEqual(c.state(lost)["seq"], 2)
            self.assertEqual(snapshot(c, short), kept)   # restored before
        err = self.stop(p)
        self.assertIn("error: journal: game %d: cannot write its file: File too large" % lost, err)
        p = self.start(resource.RLIM_INFINITY)
        with carcd.Client("unix:" + self.sock) as c:
            self.assertEqual([g["game"] for g in c.games()["games"]], [first, short])
            self.assertEqual(snapshot(c, short), kept)
            self.assertEqual(c.new_game(["d"])["game"], lost + 1)
        self.stop(p)


if __name__ == "__main__":
    unittest.main()

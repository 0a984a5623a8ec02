"""The contrib tools against the real daemon: carcctl and the random bot."""

import json
import os
import subprocess
import unittest

import harness

daemon, setUpModule, tearDownModule = harness.module_daemon()

BOT = os.path.join(harness.TOP_SRCDIR, "contrib", "bots", "random_bot.py")
# the built carcctl, or its source (which finds carcd.py beside it)
CARCCTL = os.environ.get("CARCCTL")
CARCCTL_CMD = [CARCCTL] if CARCCTL else [harness.PYTHON, os.path.join(harness.TOP_SRCDIR, "contrib", "carcctl.in")]
TIMEOUT = 120


def run(cmd, **kw):
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, **kw)


def start(cmd):
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(proc):
    """(stdout, stderr) of a started process, killed if it does not end in time."""
    try:
        return proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


class Carcctl(unittest.TestCase):
    def ctl(self, *args, where=None, expect=0):
        d = daemon["d"]
        where = where if where is not None else ["--socket", d.unix_path]
        p = run(CARCCTL_CMD + where + list(args))
        self.assertEqual(p.returncode, expect, "carcctl %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
        if expect == 0:
            self.assertEqual(p.stderr, "")
            return json.loads(p.stdout) if p.stdout.strip() else None
        self.assertRegex(p.stderr, r"(?m)^carcctl: ")
        self.assertEqual(p.stdout, "")
        return p.stderr

    def test_a_game_from_the_shell(self):
        g = self.ctl("new", "--players", "ann,bob", "--seed", "7")
        game = str(g["game"])
        t0, t1 = g["seats"][0]["token"], g["seats"][1]["token"]
        st = self.ctl("state", game)
        self.assertEqual(st["phase"], "tile")
        moves = self.ctl("moves", game)
        self.assertEqual(self.ctl("moves", game, "--seat", "1")["moves"], [])
        res = self.ctl("play", game, json.dumps(moves["moves"][0]), "--token", t0)
        self.assertGreater(res["seq"], moves["seq"])
        res = self.ctl("--compact", "play", game, "--index", "0", "--token", t0)
        self.assertEqual(res["seat"], 1)
        # errors: a message on stderr, exit 1
        err = self.ctl("play", game, "--random", "--token", t0, expect=1)
        self.assertIn("not_your_turn", err)
        err = self.ctl("play", game, "--random", "--token", "nope", expect=1)
        self.assertIn("forbidden", err)
        err = self.ctl("play", game, '{"type": "place_tile", "tile": "BA/C", "x": 9, "y": 9, "rot": 0}',
                       "--token", t1, expect=1)
        self.assertIn("illegal_move", err)
        err = self.ctl("play", game, "--random", "--token", t1, "--seq", "0", expect=1)
        self.assertIn("conflict", err)
        self.assertIn("no_such_game", self.ctl("state", "987654321", expect=1))
        # the same over TCP and JSON lines
        where = ["--host", "127.0.0.1", "--port", str(daemon["d"].port)]
        self.assertEqual(self.ctl("state", game, where=where), self.ctl("--json-lines", "state", game))
        sc = self.ctl("score", game, where=where)
        self.assertIs(sc["final"], False)
        self.assertEqual(harness.history_moves(self.ctl("history", game))[0], moves["moves"][0])
        self.assertIn(g["game"], [s["game"] for s in (lambda r: r["games"] if isinstance(r, dict) else r)(
            self.ctl("games"))])
        self.assertEqual(self.ctl("ping"), {})
        self.assertEqual(self.ctl("hello")["protocol"], 1)
        self.assertIn("uptime", " ".join(self.ctl("stats")))
        self.assertEqual(self.ctl("call", "ping", "{}"), {})
        self.assertIn("unknown_method", self.ctl("call", "fly", expect=1))
        self.assertIn("forbidden", self.ctl("close", game, "--admin-token", t0, expect=1))
        self.assertEqual(self.ctl("close", game, "--admin-token", g["admin_token"]), {})

    def test_usage_and_connection_errors(self):
        self.ctl("frobnicate", expect=2)
        self.ctl("play", "1", expect=2)                        # no move given
        self.ctl("call", "ping", "{not json", expect=2)
        err = self.ctl("ping", where=["--socket", "/nonexistent/carcd.sock"], expect=3)
        self.assertIn("cannot connect", err)

    def test_watch(self):
        d = daemon["d"]
        g = self.ctl("new", "--players", "ann,bob", "--tiles", "BA/C,BA/L,BA/RCr")
        watcher = start(CARCCTL_CMD + ["--socket", d.unix_path, "watch", str(g["game"])])
        try:
            # its first line says it is subscribed, and from which seq
            first = json.loads(watcher.stdout.readline())
            self.assertEqual(first, {"game": g["game"], "seq": g["state"]["seq"]})
            with d.client("tcp") as c:
                record = harness.play_with_client(c, g["game"], [s["token"] for s in g["seats"]],
                                                  harness.new_rng(self.id()))
            applied = [res for _, _, res in record]
        finally:
            out, err = finish(watcher)
        self.assertEqual(watcher.returncode, 0, err)
        notes = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([n["seq"] for n in notes], [r["seq"] for r in applied])
        self.assertEqual([n["events"] for n in notes], [r["events"] for r in applied])
        self.assertEqual(notes[-1]["events"][-1]["type"], "game_over")


class RandomBot(unittest.TestCase):
    def test_bot_plays_every_seat_of_its_game(self):
        d = daemon["d"]
        for address, encoding in ((d.unix_address, "msgpack"), (d.tcp_address, "json")):
            p = run([harness.PYTHON, BOT, "--address", address, "--encoding", encoding,
                     "--players", "3", "--rng", "1"])
            self.assertEqual(p.returncode, 0, p.stderr)
            out = json.loads(p.stdout)
            self.assertIs(out["final"], True)
            self.assertEqual(len(out["scores"]), 3)
            self.assertGreater(out["moves_played"], 71)

    def test_bots_join_a_game_with_tokens(self):
        d = daemon["d"]
        with d.client("unix") as c:
            g = c.new_game(["bot a", "bot b"])
            bots = [start([harness.PYTHON, BOT, "--address", d.unix_address, "--game", str(g["game"]),
                           "--token", g["seats"][0]["token"], "--seat", "0", "--rng", "2"]),
                    # this one does not say its seat: it finds out
                    start([harness.PYTHON, BOT, "--address", d.tcp_address, "--encoding", "json",
                           "--game", str(g["game"]), "--token", g["seats"][1]["token"]])]
            outs = []
            for b in bots:
                out, err = finish(b)
                self.assertEqual(b.returncode, 0, err)
                outs.append(json.loads(out))
            sc = c.score(g["game"])
            self.assertIs(sc["final"], True)
            for out in outs:
                self.assertEqual(out["scores"], sc["scores"])
            moves = len(c.history(g["game"])["moves"])
            self.assertEqual(sum(o["moves_played"] for o in outs), moves)

    def test_bot_with_a_wrong_token(self):
        d = daemon["d"]
        with d.client("unix") as c:
            g = c.new_game(["ann", "bob"])
        p = run([harness.PYTHON, BOT, "--address", d.unix_address, "--game", str(g["game"]),
                 "--token", "wrong", "--seat", "0"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("forbidden", p.stderr)


if __name__ == "__main__":
    unittest.main()

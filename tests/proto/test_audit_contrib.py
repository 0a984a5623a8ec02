"""An audit of the contrib tools (contrib/README.md) where test_contrib.py
leaves a statement unpinned:

- carcctl's read commands print exactly what the daemon answers, in both
  encodings; `play -` reads the move from stdin; `watch --count N`;
- carcctl and the random bot through each decision the expansions add (the
  abbey choice, the wagon, the flock, the escape, the final abbey round),
  from a crafted position to the end of the game;
- bad usage and bad peers: a port past 65535, a peer that is not carcd (bytes
  of neither encoding, messages that are no response, silence), a seat the
  game does not have, --players outside 1 to 6: a clear message and the
  documented exit status, never a traceback;
- carcd.Client: `games(after, limit)` as the protocol's parameters."""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import warnings

import harness
import carcd  # noqa: E402  (harness puts contrib/python on the path)
from crafted import (ABBEY_MOVES, ABBEY_TILES, ESCAPE_MOVES, ESCAPE_TILES, FINAL_MOVES, FINAL_TILES, FLOCK_MOVES,
                     FLOCK_START, WAGONS_MOVES, WAGONS_TILES, Table)
from test_contrib import ALL, BOT, CARCCTL_CMD, finish, run, start

daemon, setUpModule, tearDownModule = harness.module_daemon()

# Each expansion decision: (phase, new_game options, moves that lead to it, the move types it offers)
DECISIONS = [
    ("tile", dict(players=["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=ABBEY_TILES, seed=5),
     ABBEY_MOVES, {"place_abbey", "draw"}),
    ("wagon", dict(players=["ann", "bob", "cy"], expansions=["base", "abbey-mayor"], tiles=WAGONS_TILES, seed=5),
     WAGONS_MOVES, {"move_wagon", "pass"}),
    ("flock", dict(players=["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START, bag=[3, 2, 4],
                   tiles=["BA/RFr"] * 5, seed=5), FLOCK_MOVES, {"flock"}),
    ("escape", dict(players=["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5),
     ESCAPE_MOVES, {"escape", "pass"}),
    ("abbey_final", dict(players=["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=FINAL_TILES, seed=5,
                         rules={"abbey_final_round": True}), FINAL_MOVES, {"place_abbey", "pass"}),
]


def new_args(opts):
    """carcctl new's arguments for a DECISIONS entry's options."""
    args = ["--players", ",".join(opts["players"]), "--expansions", ",".join(opts["expansions"]),
            "--tiles", ",".join(opts["tiles"]), "--seed", str(opts["seed"])]
    for s in opts.get("start", ()):
        args += ["--start", "%s@%d,%d,%d" % (s["tile"], s["x"], s["y"], s["rot"])]
    if "bag" in opts:
        args += ["--bag", ",".join(str(t) for t in opts["bag"])]
    for k, v in opts.get("rules", {}).items():
        args += ["--rule", "%s=%s" % (k, json.dumps(v))]
    return args


class FakePeer:
    """A Unix socket whose peer is not carcd: after the first bytes it reads
    it sends `reply` (None: nothing) and closes after `linger` seconds."""

    def __init__(self, reply, linger=0.3):
        self.reply, self.linger = reply, linger
        self.dir = tempfile.mkdtemp(prefix="carcd-fake-")
        self.path = os.path.join(self.dir, "fake.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(8)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn):
        try:
            conn.settimeout(10)
            if conn.recv(4096) and self.reply is not None:
                conn.sendall(self.reply)
            self.stop.wait(self.linger)
        except OSError:
            pass
        finally:
            conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


# what a peer that is not carcd may answer, for each encoding the client speaks
NOT_CARCD = [
    ("bytes that are no MessagePack", b"\xc1\xc1\xc1\xc1", "msgpack"),
    ("a MessagePack message that is no response", b"\x93\x01\x02\x03", "msgpack"),
    ("a JSON server's line", b'{"hello": 1}\n', "msgpack"),
    ("a line that is no JSON", b"{{{not json\n", "json"),
    ("a JSON line that is no response", b"[1,2,3]\n", "json"),
    ("an HTTP reply", b"HTTP/1.1 400 Bad Request\r\n\r\n", "json"),
    ("a response whose msgid is a list", b"[1,[1],null,{}]\n", "json"),
    ("a response whose msgid is a boolean", b"[1,true,null,{}]\n", "json"),
    ("a response whose msgid is a map", b"\x94\x01\x81\xa1a\x01\xc0\x80", "msgpack"),
]


class CarcctlAudit(unittest.TestCase):
    def ctl(self, *args, where=None, expect=0, env=None, stdin=None):
        d = daemon["d"]
        where = where if where is not None else ["--socket", d.unix_path]
        p = subprocess.run(CARCCTL_CMD + where + list(args), input=stdin if stdin is not None else "",
                           capture_output=True, text=True, timeout=120, env=env)
        self.assertEqual(p.returncode, expect, "carcctl %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
        self.assertNotIn("Traceback", p.stderr)
        if expect == 0:
            self.assertEqual(p.stderr, "")
            return json.loads(p.stdout) if p.stdout.strip() else None
        self.assertRegex(p.stderr, r"(?m)^carcctl: \S")
        self.assertEqual(p.stdout, "")
        return p.stderr

    def test_read_commands_print_what_the_daemon_says(self):
        d = daemon["d"]
        with d.client() as c:
            g = c.new_game(["ann", "bob", "cy"], expansions=ALL.split(","), seed=21, auth=False)
            game = g["game"]
            rng = harness.new_rng(self.id())
            for _ in range(25):
                lm = c.legal_moves(game)
                c.apply_move(game, rng.choice(lm["moves"]), seq=lm["seq"])
            direct = {"state": c.state(game), "moves": c.legal_moves(game), "score": c.score(game),
                      "history": c.history(game), "hello": c.hello()}
            due = direct["moves"]["seat"]
            page = c.call("games", after=game - 1, limit=1)
        for opts in ([], ["--json-lines"], ["--compact"], ["--json-lines", "--compact"]):
            with self.subTest(opts=opts):
                for cmd in ("state", "moves", "score", "history"):
                    self.assertEqual(self.ctl(*opts, cmd, str(game)), direct[cmd], cmd)
                self.assertEqual(self.ctl(*opts, "hello"), direct["hello"])
                self.assertEqual(self.ctl(*opts, "moves", str(game), "--seat", str(due)), direct["moves"])
                other = self.ctl(*opts, "moves", str(game), "--seat", str((due + 1) % 3))
                self.assertEqual(other, dict(direct["moves"], moves=[]))
                self.assertEqual(self.ctl(*opts, "games", "--after", str(game - 1), "--limit", "1"), page)
                self.assertEqual(self.ctl(*opts, "call", "state", json.dumps({"game": game})), direct["state"])
        # --compact: one line; otherwise indented
        p = run(CARCCTL_CMD + ["--socket", d.unix_path, "--compact", "state", str(game)])
        self.assertEqual(len(p.stdout.splitlines()), 1)
        p = run(CARCCTL_CMD + ["--socket", d.unix_path, "state", str(game)])
        self.assertGreater(len(p.stdout.splitlines()), 10)

    def test_play_from_stdin_and_watch_count(self):
        d = daemon["d"]
        g = self.ctl("new", "--players", "ann,bob", "--seed", "3")
        game, tokens = str(g["game"]), [s["token"] for s in g["seats"]]
        watcher = start(CARCCTL_CMD + ["--socket", d.unix_path, "watch", game, "--count", "2"])
        try:
            self.assertEqual(json.loads(watcher.stdout.readline()), {"game": g["game"], "seq": 0})
            lm = self.ctl("moves", game)
            res = self.ctl("play", game, "-", "--token", tokens[0], "--seq", "0", stdin=json.dumps(lm["moves"][-1]))
            self.assertEqual(res["seq"], 1)
            self.assertIn("not valid JSON", self.ctl("play", game, "-", "--token", tokens[0], stdin="", expect=2))
            results = [self.ctl("play", game, "--index", "0", "--token", tokens[0])]
            lm = self.ctl("moves", game)
            results.append(self.ctl("play", game, "--random", "--token", tokens[lm["seat"]]))
            out, err = finish(watcher, 20)
        finally:
            finish(watcher, 5)
        self.assertEqual((watcher.returncode, err), (0, ""))
        notes = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([n["seq"] for n in notes], [1, 2])   # two notifications, then it stops
        self.assertEqual(notes[1]["events"], results[0]["events"])
        self.assertIn("--index 5", self.ctl("play", game, "--index", "5", "--token", tokens[1], expect=2))

    def test_play_through_each_expansion_decision(self):
        for phase, opts, moves, types in DECISIONS:
            with self.subTest(phase=phase):
                g = self.ctl("new", *new_args(opts))
                game, tokens = str(g["game"]), [s["token"] for s in g["seats"]]
                for move in moves:
                    lm = self.ctl("moves", game)
                    self.assertIn(move, lm["moves"])
                    self.ctl("--compact", "play", game, json.dumps(move), "--token", tokens[lm["seat"]])
                lm = self.ctl("moves", game)
                self.assertEqual(lm["phase"], phase)
                self.assertEqual({m["type"] for m in lm["moves"]}, types)
                decided = len(moves) + 1
                for _ in range(100):
                    lm = self.ctl("moves", game)
                    if lm["phase"] == "over":
                        break
                    env = dict(os.environ, CARCD_TOKEN=tokens[lm["seat"]])
                    pick = ["--index", str(len(lm["moves"]) - 1)] if lm["seq"] == len(moves) else ["--random"]
                    res = self.ctl("play", game, *pick, env=env)
                    self.assertEqual(res["seq"], lm["seq"] + 1)
                self.assertEqual(lm["phase"], "over")
                h = self.ctl("history", game)
                self.assertEqual(h["moves"][decided - 1]["seq"], decided)
                self.assertIn(h["moves"][decided - 1]["move"]["type"], types)
                self.assertIs(self.ctl("score", game)["final"], True)
                self.assertIn("game_over", self.ctl("play", game, "--random", "--token", tokens[0], expect=1))

    def test_a_port_past_65535_is_a_usage_error(self):
        for where in (["--address", "tcp:127.0.0.1:99999"], ["--port", "70000"],
                      ["--host", "127.0.0.1", "--port", "65536"]):
            with self.subTest(where=where):
                self.assertIn("not an address", self.ctl("ping", where=where, expect=2))
        with self.assertRaises(ValueError):
            carcd.parse_address("tcp:127.0.0.1:65536")
        self.assertEqual(carcd.parse_address("tcp:127.0.0.1:65535")[1], ("127.0.0.1", 65535))

    def test_every_address_form_carcd_py_reads(self):
        """carcd.parse_address takes 'tcp:HOST:PORT', 'unix:PATH', a bare
        'HOST:PORT' and a bare path (anything with a slash): each reaches
        the daemon through carcctl --address; an IPv6 host goes in
        brackets, and no host is 127.0.0.1.  Without a port, or with one
        that is not a number, it is not an address."""
        d = daemon["d"]
        self.assertEqual(carcd.parse_address(d.unix_path), (socket.AF_UNIX, d.unix_path))
        self.assertEqual(carcd.parse_address("unix:relative.sock"), (socket.AF_UNIX, "relative.sock"))
        self.assertEqual(carcd.parse_address("localhost:7878"), (socket.AF_INET, ("localhost", 7878)))
        self.assertEqual(carcd.parse_address("tcp::7878"), (socket.AF_INET, ("127.0.0.1", 7878)))
        self.assertEqual(carcd.parse_address("tcp:[::1]:7878"), (socket.AF_INET6, ("::1", 7878)))
        for bad in ("localhost", "tcp:localhost:", "tcp:localhost:http", "tcp:host:-1", "7878"):
            with self.subTest(bad=bad), self.assertRaisesRegex(ValueError, "not an address"):
                carcd.parse_address(bad)
        for address in (d.unix_path, "unix:" + d.unix_path, "127.0.0.1:%d" % d.port, "tcp:127.0.0.1:%d" % d.port):
            with self.subTest(address=address):
                self.assertEqual(self.ctl("ping", where=["--address", address]), {})

    def test_a_peer_that_is_not_carcd(self):
        for what, reply, encoding in NOT_CARCD:
            with self.subTest(what=what), FakePeer(reply) as peer:
                opts = ["--json-lines"] if encoding == "json" else []
                err = self.ctl(*opts, "ping", where=["--socket", peer.path], expect=3)
                self.assertIn(peer.path, err)
        with FakePeer(None, linger=10) as peer:   # it never answers
            t0 = time.monotonic()
            err = self.ctl("--timeout", "0.5", "ping", where=["--socket", peer.path], expect=3)
            self.assertIn("no response", err)
            self.assertLess(time.monotonic() - t0, 8)
        with FakePeer(None, linger=0) as peer:    # it closes at once
            # EOF, or a reset when the close beats the read: either is said
            self.assertRegex(self.ctl("ping", where=["--socket", peer.path], expect=3), "closed the connection|lost")


class PythonClientAudit(unittest.TestCase):
    def test_games_takes_after_and_limit(self):
        d = daemon["d"]
        with d.client() as c:
            ids = [c.new_game(["ann"])["game"] for _ in range(3)]
            page = c.games(after=ids[0], limit=1)
            self.assertEqual([s["game"] for s in page["games"]], [ids[1]])
            self.assertIs(page["more"], True)
            self.assertIn(ids[2], [s["game"] for s in c.games()["games"]])

    def test_a_peer_that_is_not_carcd_closes_the_client(self):
        for what, reply, encoding in NOT_CARCD:
            with self.subTest(what=what), FakePeer(reply) as peer:
                c = carcd.Client("unix:" + peer.path, encoding=encoding, timeout=5)
                with self.assertRaises(carcd.ConnectionClosed) as e:
                    c.ping()
                self.assertIn(peer.path, str(e.exception))
                self.assertTrue(c.closed)
                with self.assertRaises(carcd.ConnectionClosed):
                    c.ping()


    def test_bad_arguments_are_refused_before_anything_is_opened(self):
        d = daemon["d"]
        for timeout in (0, -1, float("nan"), float("inf"), "5", True):
            with self.subTest(timeout=timeout), warnings.catch_warnings():
                warnings.simplefilter("error", ResourceWarning)   # no socket left open
                with self.assertRaises(ValueError) as e:
                    carcd.Client(d.unix_address, timeout=timeout)
                self.assertIn("timeout", str(e.exception))
        with d.client() as c:
            before = len(c.games()["games"])
            with self.assertRaises(TypeError):
                c.new_game("solo")   # one name, not four one-letter seats
            self.assertEqual(len(c.games()["games"]), before)
            self.assertEqual(len(c.new_game(["solo"])["seats"]), 1)

    def test_a_json_line_without_end_is_capped(self):
        codec = carcd._JsonCodec()
        codec.MAX_LINE = 100
        self.assertEqual(codec.feed(b"[1,1,null,{}]\n[1,2"), [[1, 1, None, {}]])
        self.assertEqual(codec.feed(b",null,{}]\n"), [[1, 2, None, {}]])
        for _ in range(9):
            self.assertEqual(codec.feed(b"x" * 10), [])
        with self.assertRaises(ValueError):
            codec.feed(b"x" * 11)


class RandomBotAudit(unittest.TestCase):
    def bot(self, *args, timeout=120):
        return run([harness.PYTHON, BOT] + list(args), timeout=timeout)

    def test_bots_play_each_expansion_decision(self):
        d = daemon["d"]
        for phase, opts, moves, types in DECISIONS:
            with self.subTest(phase=phase), d.client() as c:
                t = Table(self, c, **opts)
                t.play(*moves)
                lm = t.legal()
                self.assertEqual(lm["phase"], phase)
                # one bot a seat; none says its seat, so each finds it out
                bots = [start([harness.PYTHON, BOT, "--address", d.unix_address if i % 2 else d.tcp_address,
                               "--encoding", "json" if i % 2 else "msgpack", "--game", str(t.game),
                               "--token", token, "--rng", str(i), "--timeout", "60"])
                        for i, token in enumerate(t.tokens)]
                outs = []
                for b in bots:
                    out, err = finish(b, 90)
                    self.assertEqual(b.returncode, 0, err)
                    self.assertNotIn("Traceback", err)
                    outs.append(json.loads(out))
                sc = c.score(t.game)
                h = c.history(t.game)
                self.assertIs(sc["final"], True)
                for out in outs:
                    self.assertEqual(out["scores"], sc["scores"])
                self.assertEqual(sum(o["moves_played"] for o in outs), len(h["moves"]) - len(moves))
                self.assertIn(h["moves"][len(moves)]["move"]["type"], types)
        # the final abbey round of an auth-false game, every seat played by one bot
        with d.client() as c:
            opts = dict(DECISIONS[-1][1], auth=False)
            t = Table(self, c, **opts)
            t.play(*FINAL_MOVES)
            p = self.bot("--address", d.unix_address, "--game", str(t.game), "--rng", "4")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(json.loads(p.stdout)["moves_played"], len(c.history(t.game)["moves"]) - len(FINAL_MOVES))
            self.assertIs(c.score(t.game)["final"], True)

    def test_bot_usage_errors_that_reach_no_daemon(self):
        d = daemon["d"]
        with d.client() as c:
            before = c.stats()["games_total"]
        for args, what in ((["--address", "tcp:127.0.0.1:99999"], "not an address"),
                           (["--address", d.unix_address, "--players", "0"], "--players"),
                           (["--address", d.unix_address, "--players", "7"], "--players"),
                           (["--address", d.unix_address, "--players", "-1"], "--players")):
            with self.subTest(args=args):
                p = self.bot(*args, timeout=30)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(what, p.stderr)
                self.assertNotIn("Traceback", p.stderr)
        # an empty list of expansions is what the daemon refuses, not a base game
        p = self.bot("--address", d.unix_address, "--expansions", "")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("invalid_params", p.stderr)
        with d.client() as c:
            self.assertEqual(c.stats()["games_total"], before)   # none was made

    def test_bot_with_a_seat_the_game_does_not_have(self):
        d = daemon["d"]
        with d.client() as c:
            g = c.new_game(["ann", "bob"])
        t0 = time.monotonic()
        p = self.bot("--address", d.unix_address, "--game", str(g["game"]), "--seat", "2",
                     "--token", g["seats"][1]["token"], "--timeout", "20", timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("no seat 2", p.stderr)
        self.assertLess(time.monotonic() - t0, 15)   # it does not wait for a turn that never comes

    def test_bot_against_a_peer_that_is_not_carcd(self):
        for what, reply, encoding in NOT_CARCD:
            with self.subTest(what=what), FakePeer(reply) as peer:
                p = self.bot("--address", "unix:" + peer.path, "--encoding", encoding, timeout=30)
                self.assertEqual(p.returncode, 3, p.stderr)
                self.assertRegex(p.stderr, r"^random_bot: \S")
                self.assertNotIn("Traceback", p.stderr)
        with FakePeer(None, linger=30) as peer:   # it never answers: --timeout bounds the wait
            t0 = time.monotonic()
            p = self.bot("--address", "unix:" + peer.path, "--timeout", "1", timeout=60)
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertIn("no response", p.stderr)
            self.assertLess(time.monotonic() - t0, 15)


if __name__ == "__main__":
    unittest.main()

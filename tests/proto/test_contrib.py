"""The contrib tools against the real daemon: carcctl and the random bot."""

import collections
import json
import os
import subprocess
import time
import unittest

import harness
import carcd  # noqa: E402  (harness puts contrib/python on the path)

daemon, setUpModule, tearDownModule = harness.module_daemon()

BOT = os.path.join(harness.TOP_SRCDIR, "contrib", "bots", "random_bot.py")
# the built carcctl, or its source (which finds carcd.py beside it)
CARCCTL = os.environ.get("CARCCTL")
CARCCTL_CMD = [CARCCTL] if CARCCTL else [harness.PYTHON, os.path.join(harness.TOP_SRCDIR, "contrib", "carcctl.in")]
TIMEOUT = 120
EXPANSIONS = ("base", "river", "river2", "mini", "inns-cathedrals", "traders-builders", "abbey-mayor",
              "king-robber", "cathars", "cult", "hills-sheep")
ALL = ",".join(EXPANSIONS)
# a short supply of tiles of many sets, so that a game through carcctl ends soon
MIXED_TILES = ("BA/Cc+,IC/CRCR,TB/CcR.c,AM/CRcr+,KR/RC,SI.CA/Cc,CU/SC,HS/CFC.h,IC/CRcR+,TB/CcRC.c,"
               "AM/CCRR,HS/RR.h,BA/CRRR,KR/CRrR,CU/SRCR,SI.CA/RCr,TB/RRC,IC/C!,AM/C!+,HS/Cc.v,BA/RRRR,"
               "TB/CRc.g,IC/CcRr+.i,CU/S,BA/L")


def run(cmd, timeout=TIMEOUT, **kw):
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout, **kw)


def start(cmd):
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def idle_daemon():
    """A daemon of its own that closes connections idle for 1 s."""
    return harness.Daemon("--idle-timeout", "1", tcp=False)


def finish(proc, timeout=TIMEOUT):
    """(stdout, stderr) of a started process, killed if it does not end in time."""
    try:
        return proc.communicate(timeout=timeout)
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
        # tokens from the environment, off the command line that `ps` shows
        env = dict(os.environ, CARCD_TOKEN=t1, CARCD_ADMIN_TOKEN=g["admin_token"])
        env.pop("CARCD_ADDRESS", None)
        p = run(CARCCTL_CMD + ["--socket", daemon["d"].unix_path, "--compact", "play", game, "--random"], env=env)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertGreater(json.loads(p.stdout)["seq"], res["seq"])
        p = run(CARCCTL_CMD + ["--socket", daemon["d"].unix_path, "close", game], env=env)
        self.assertEqual((p.returncode, p.stdout.strip(), p.stderr), (0, "{}", ""))
        self.assertIn("no_such_game", self.ctl("state", game, expect=1))

    def test_close_without_admin_token(self):
        env = dict(os.environ)
        env.pop("CARCD_ADMIN_TOKEN", None)
        p = run(CARCCTL_CMD + ["--socket", daemon["d"].unix_path, "close", "1"], env=env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("carcctl: close needs the game's admin token", p.stderr)
        g = self.ctl("new", "--players", "ann")
        self.assertEqual(self.ctl("close", str(g["game"]), "--admin-token", g["admin_token"]), {})

    def test_usage_and_connection_errors(self):
        self.ctl("frobnicate", expect=2)
        self.ctl("play", "1", expect=2)                        # no move given
        self.ctl("call", "ping", "{not json", expect=2)
        # JSON, but not what the option takes: the rule is said, no traceback
        for params in ("[]", "[{}]", "7", "null", '"{}"'):
            err = self.ctl("call", "ping", params, expect=2)
            self.assertIn("PARAMS must be a JSON object", err)
            self.assertNotIn("Traceback", err)
        for start in ("{}x", '{"tile": "BA/L"', "[1, 2]"):
            err = self.ctl("new", "--players", "ann", "--start", start, expect=2)
            self.assertIn("--start", err)
            self.assertNotIn("Traceback", err)
        err = self.ctl("ping", where=["--socket", "/nonexistent/carcd.sock"], expect=3)
        self.assertIn("cannot connect", err)
        p = run(CARCCTL_CMD + ["--version"])   # needs no daemon
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertRegex(p.stdout, r"^carcctl [0-9][0-9.]*\n$" if CARCCTL else r"^carcctl \S+\n$")

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

    def test_new_with_expansions_rules_and_components(self):
        g = self.ctl("--compact", "new", "--players", "ann,bob,cy", "--expansions", ALL.replace(",", ", "),
                     "--seed", "12", "--rule", "abbey_final_round=true", "--rule", "farm_scoring=per-farm-3",
                     "--rule", "catapult_target_points=7", "--component", "large=false",
                     "--component", "king=false")
        self.assertEqual([s["name"] for s in g["seats"]], ["ann", "bob", "cy"])
        supply = g["state"]["seats"][0]["supply"]
        self.assertNotIn("large", supply)
        for kind in ("follower", "wagon", "mayor", "builder", "pig", "barn", "shepherd", "abbey"):
            self.assertIn(kind, supply)
        self.assertEqual(g["state"]["board"][0]["tile"], "RI/s")   # a river game
        setup = self.ctl("history", str(g["game"]))["setup"]
        self.assertEqual(setup["expansions"], list(EXPANSIONS))
        self.assertEqual(setup["components"], {"large": False, "king": False})
        self.assertEqual((setup["rules"]["abbey_final_round"], setup["rules"]["farm_scoring"],
                          setup["rules"]["catapult_target_points"]), (True, "per-farm-3", 7))
        # what the daemon refuses is exit 1, with its code; bad usage is exit 2
        self.assertIn("not available yet", self.ctl("new", "--expansions", "base,tower", expect=1))
        self.assertIn("invalid_params", self.ctl("new", "--rule", "farm_scoring=per-tile", expect=1))
        self.assertIn("invalid_params", self.ctl("new", "--component", "large=maybe", expect=1))
        self.assertIn("invalid_params", self.ctl("new", "--players", "a,b,c,d,e,f,g", expect=1))
        self.assertIn("KEY=VALUE", self.ctl("new", "--rule", "farmers", expect=2))

    def test_new_with_start_tiles_and_a_bag(self):
        g = self.ctl("new", "--players", "solo", "--no-auth", "--expansions", "base,hills-sheep",
                     "--start", "BA/RCr@0,0", "--start", '{"tile": "BA/Cc+", "x": 0, "y": -1, "rot": 180}',
                     "--bag", "wolf,2,1", "--tiles", "HS/RR.h,BA/L,BA/CRRR")
        game = str(g["game"])
        board = [(t["tile"], t["x"], t["y"], t["rot"]) for t in g["state"]["board"]]
        self.assertEqual(board, [("BA/RCr", 0, 0, 0), ("BA/Cc+", 0, -1, 180)])
        self.assertEqual(g["state"]["tile"]["id"], "HS/RR.h")
        for _ in range(20):
            res = self.ctl("play", game, "--random")
            if res["over"]:
                break
        self.assertIs(res["over"], True)
        setup = self.ctl("history", game)["setup"]
        self.assertEqual(setup["start"], [{"tile": "BA/RCr", "x": 0, "y": 0, "rot": 0},
                                          {"tile": "BA/Cc+", "x": 0, "y": -1, "rot": 180}])
        self.assertEqual(setup["bag"], ["wolf", 2, 1])
        self.assertIn("TILE@X,Y", self.ctl("new", "--start", "RI/s", expect=2))
        self.assertIn("TILE@X,Y", self.ctl("new", "--start", "RI/s@a,0", expect=2))
        self.assertIn("hills-sheep", self.ctl("new", "--bag", "1,wolf", expect=1))

    def test_play_random_to_the_end_with_every_expansion(self):
        g = self.ctl("new", "--expansions", ALL, "--no-auth", "--seed", "4", "--tiles", MIXED_TILES)
        game = str(g["game"])
        seqs = []
        for _ in range(200):
            p = run(CARCCTL_CMD + ["--socket", daemon["d"].unix_path, "--compact", "play", game, "--random"])
            if p.returncode != 0:
                break
            seqs.append(json.loads(p.stdout)["seq"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, "carcctl: game_over: no move is due in game %s\n" % game)
        self.assertEqual(seqs, list(range(1, len(seqs) + 1)))
        h = self.ctl("history", game)
        self.assertEqual(len(h["moves"]), len(seqs))
        types = collections.Counter(m["move"]["type"] for m in h["moves"])
        self.assertGreater(types["place_tile"], 10)
        self.assertEqual(self.ctl("state", game)["tiles_left"], 0)
        sc = self.ctl("score", game)
        self.assertIs(sc["final"], True)
        self.assertEqual(sc["scores"], sc["if_ended_now"])
        self.assertIn("game_over", self.ctl("play", game, "--index", "0", expect=1))
        self.assertIn("game_over", self.ctl("play", game, '{"type": "pass"}', expect=1))
        self.assertEqual(self.ctl("moves", game)["moves"], [])

    def test_play_with_tokens_through_an_expansion_game(self):
        g = self.ctl("new", "--players", "ann,bob", "--expansions", "base,abbey-mayor,hills-sheep",
                     "--seed", "3", "--tiles", "BA/Cc+,AM/CRcr+,HS/CFC.h,BA/L")
        game, tokens = str(g["game"]), [s["token"] for s in g["seats"]]
        for _ in range(40):
            lm = self.ctl("moves", game)
            if lm["phase"] == "over":
                break
            # the due seat's token from the environment, as the docs say
            p = run(CARCCTL_CMD + ["--socket", daemon["d"].unix_path, "play", game, "--index", "0"],
                    env=dict(os.environ, CARCD_TOKEN=tokens[lm["seat"]]))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(json.loads(p.stdout)["seq"], lm["seq"] + 1)
        self.assertEqual(lm["phase"], "over")
        self.assertEqual(harness.history_moves(self.ctl("history", game))[0]["type"], "place_tile")

    def test_watch_ends_when_the_game_is_closed_or_already_over(self):
        d = daemon["d"]
        g = self.ctl("new", "--no-auth")
        watcher = start(CARCCTL_CMD + ["--socket", d.unix_path, "watch", str(g["game"])])
        try:
            self.assertEqual(json.loads(watcher.stdout.readline()), {"game": g["game"], "seq": 0})
            self.ctl("play", str(g["game"]), "--random")
            self.assertEqual(self.ctl("close", str(g["game"]), "--admin-token", g["admin_token"]), {})
        finally:
            out, err = finish(watcher)
        self.assertEqual(watcher.returncode, 0, err)
        notes = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([n["seq"] for n in notes], [1, 1])
        self.assertEqual(notes[-1]["events"], [{"type": "game_closed"}])
        # a finished game: the line it watches from, and done
        g = self.ctl("new", "--players", "solo", "--no-auth", "--tiles", "BA/L")
        while not self.ctl("play", str(g["game"]), "--random")["over"]:
            pass
        p = run(CARCCTL_CMD + ["--socket", d.unix_path, "watch", str(g["game"])], timeout=10)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(len(p.stdout.splitlines()), 1)
        self.assertIn("no_such_game", self.ctl("watch", str(g["game"] + 1000), expect=1))

    def test_games_pages(self):
        ids = [self.ctl("new")["game"] for _ in range(3)]
        page = self.ctl("games", "--after", str(ids[0] - 1), "--limit", "2")
        self.assertEqual([s["game"] for s in page["games"]], ids[:2])
        self.assertIs(page["more"], True)
        self.assertEqual([s["game"] for s in self.ctl("games", "--after", str(ids[1]))["games"]][:1], ids[2:])

    def test_bad_addresses_and_options_are_usage_errors(self):
        sock = ["--socket", daemon["d"].unix_path]
        self.assertIn("not an address", self.ctl("ping", where=["--address", "bogus"], expect=2))
        self.ctl("ping", where=sock + ["--port", "1"], expect=2)
        self.ctl("--timeout", "0", "ping", where=sock, expect=2)
        self.ctl("--timeout", "-1", "ping", where=sock, expect=2)
        self.assertIn("cannot connect", self.ctl("ping", where=["--address", "tcp:127.0.0.1:1"], expect=3))
        self.assertEqual(self.ctl("ping", where=["--port", str(daemon["d"].port)]), {})
        # a game id beyond 64 bits: refused in both encodings, no traceback
        self.assertIn("invalid_params", self.ctl("state", "99999999999999999999", where=sock, expect=1))
        err = self.ctl("--json-lines", "state", "99999999999999999999", where=sock, expect=1)
        self.assertNotIn("Traceback", err)
        # the usage shown is the command's own
        err = self.ctl("play", "1", "--index", "0", "--random", where=sock, expect=2)
        self.assertIn("usage: carcctl play", err)

    def test_watch_and_bots_keep_an_idle_connection_open(self):
        with idle_daemon() as d:
            with d.client() as c:
                g = c.new_game(["ann", "bob"], expansions=["base", "cathars"], tiles=["BA/L", "SI.CA/Cc"])
            game = str(g["game"])
            watcher = start(CARCCTL_CMD + ["--socket", d.unix_path, "watch", game, "--keepalive", "0.3"])
            # the bot's keepalive by default: a third of the daemon's idle timeout
            bot0 = start([harness.PYTHON, BOT, "--address", d.unix_address, "--game", game,
                          "--token", g["seats"][0]["token"], "--timeout", "20"])
            bot1 = None
            try:
                self.assertLessEqual(json.loads(watcher.stdout.readline())["seq"], 2)
                time.sleep(2.5)   # longer than the daemon lets a quiet connection be
                bot1 = start([harness.PYTHON, BOT, "--address", d.unix_address, "--game", game,
                              "--token", g["seats"][1]["token"], "--seat", "1"])
            finally:   # each ends soon once seat 1 has played
                out1, err1 = finish(bot1, 20) if bot1 else ("", "")
                out0, err0 = finish(bot0, 20)
                wout, werr = finish(watcher, 20)
            self.assertEqual(bot1.returncode, 0, err1)
            self.assertEqual(bot0.returncode, 0, err0)
            self.assertEqual(watcher.returncode, 0, werr)
            self.assertEqual(json.loads(out0)["scores"], json.loads(out1)["scores"])
            self.assertGreater(json.loads(out0)["moves_played"], 0)   # it was still there when its turn came
            self.assertEqual(json.loads(wout.splitlines()[-1])["events"][-1]["type"], "game_over")
            # without a keepalive before the daemon's idle timeout, the watcher is cut off: exit 3
            with d.client() as c:
                g = c.new_game(["ann"])
            p = run(CARCCTL_CMD + ["--socket", d.unix_path, "watch", str(g["game"]), "--keepalive", "30"])
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertIn("closed the connection", p.stderr)


class PythonClient(unittest.TestCase):
    def test_methods_in_both_encodings(self):
        d = daemon["d"]
        for encoding in ("msgpack", "json"):
            with d.client(encoding=encoding) as c:
                self.assertEqual(c.hello()["protocol"], 1)
                g = c.new_game(["ann", "bob"], expansions=["base", "hills-sheep", "abbey-mayor"], seed=3,
                               rules={"abbey_final_round": True}, components={"large": True},
                               bag=[2, "wolf"], start=[{"tile": "BA/RCr", "x": 0, "y": 0, "rot": 0}],
                               tiles=["HS/CFC.h", "AM/CRcr+", "BA/L"])
                game, tokens = g["game"], [s["token"] for s in g["seats"]]
                self.assertIn("large", g["state"]["seats"][1]["supply"])
                self.assertEqual(c.subscribe(game), {"seq": 0})
                lm = c.legal_moves(game)
                self.assertEqual(c.legal_moves(game, seat=1)["moves"], [])
                with self.assertRaises(carcd.Error) as e:
                    c.apply_move(game, lm["moves"][0], token=tokens[1])
                self.assertEqual(e.exception.code, "not_your_turn")
                self.assertIn("seat 0", e.exception.message)
                res = c.apply_move(game, lm["moves"][0], token=tokens[0], seq=lm["seq"])
                self.assertEqual(c.next_event(timeout=5), {"game": game, "seq": res["seq"], "events": res["events"]})
                with self.assertRaises(carcd.Error) as e:
                    c.apply_move(game, lm["moves"][0], token=tokens[0], seq=lm["seq"])
                self.assertEqual(e.exception.code, "conflict")
                self.assertEqual(c.state(game)["seq"], 1)
                self.assertIs(c.score(game)["final"], False)
                self.assertEqual(len(c.history(game)["moves"]), 1)
                self.assertIn(game, [s["game"] for s in c.games()["games"]])
                self.assertEqual(c.call("games", after=game - 1, limit=1)["games"][0]["game"], game)
                self.assertEqual(c.unsubscribe(game), {"seq": 1})
                self.assertIn("uptime", c.stats())
                m1, m2 = c.send("ping"), c.send("state", {"game": game})
                self.assertEqual(c.response(m2)["seq"], 1)
                self.assertEqual(c.response(m1), {})
                with self.assertRaises(carcd.Error) as e:
                    c.close_game(game, tokens[0])
                self.assertEqual(e.exception.code, "forbidden")
                self.assertEqual(c.close_game(game, g["admin_token"]), {})
                with self.assertRaises(carcd.Error) as e:
                    c.state(game)
                self.assertEqual((e.exception.code, str(e.exception)),
                                 ("no_such_game", "no_such_game: " + e.exception.message))
                with self.assertRaises(carcd.Error) as e:
                    c.call("fly")
                self.assertEqual(e.exception.code, "unknown_method")

    def test_polling_big_integers_and_closed_connections(self):
        d = daemon["d"]
        with d.client() as c, d.client(encoding="json") as other:
            g = c.new_game(["solo"], auth=False)
            c.subscribe(g["game"])
            self.assertIsNone(c.next_event(timeout=0))
            other.apply_move(g["game"], other.legal_moves(g["game"])["moves"][0])
            deadline = time.monotonic() + 5
            note = None
            while note is None and time.monotonic() < deadline:   # timeout 0 looks at what came
                note = c.next_event(timeout=0)
            self.assertEqual(note["seq"], 1)
            with self.assertRaises(carcd.Error) as e:
                c.state(2 ** 64)
            self.assertEqual(e.exception.code, "invalid_params")
            self.assertEqual(c.ping(), {})                      # and the connection goes on
        with self.assertRaises(carcd.ConnectionClosed):
            c.ping()                                            # a closed client
        with idle_daemon() as idle:
            for encoding in ("msgpack", "json"):
                c = idle.client(encoding=encoding)
                time.sleep(1.6)                                 # the daemon closes it as idle
                with self.assertRaises(carcd.ConnectionClosed):
                    c.ping()
                    c.ping()
                c.close()
                c = idle.client(encoding=encoding)
                g = c.new_game(["solo"])
                c.subscribe(g["game"])
                self.assertIsNone(c.next_event(timeout=1.6, keepalive=0.3))
                self.assertEqual(c.ping(), {})                  # still open
                c.close()


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

    def test_bot_with_every_expansion_on_1_and_6_seats(self):
        d = daemon["d"]
        for players, encoding in ((1, "msgpack"), (6, "json")):
            p = run([harness.PYTHON, BOT, "--address", d.unix_address, "--encoding", encoding,
                     "--players", str(players), "--expansions", ALL, "--seed", str(players), "--rng", "3",
                     "--rule", "abbey_final_round=true", "--rule", "farm_scoring=per-farm-4",
                     "--component", "large=false"])
            self.assertEqual(p.returncode, 0, p.stderr)
            out = json.loads(p.stdout)
            self.assertIs(out["final"], True)
            self.assertEqual(len(out["scores"]), players)
            with d.client() as c:
                h = c.history(out["game"])
                self.assertEqual(c.score(out["game"])["scores"], out["scores"])
            self.assertEqual(h["setup"]["expansions"], list(EXPANSIONS))
            self.assertEqual(len(h["setup"]["players"]), players)
            self.assertEqual(h["setup"]["components"], {"large": False})
            self.assertEqual((h["setup"]["rules"]["abbey_final_round"], h["setup"]["rules"]["farm_scoring"]),
                             (True, "per-farm-4"))
            self.assertEqual(len(h["moves"]), out["moves_played"])
            self.assertEqual(h["events"][0]["tile"], "RI/s")
            self.assertGreater(sum(ev["type"] == "tile_placed" for ev in h["events"]), 150)
            kinds = {m["move"].get("kind") for m in h["moves"] if m["move"]["type"] == "deploy"}
            self.assertNotIn("large", kinds)

    def test_bots_play_one_seat_each_of_six_with_every_expansion(self):
        d = daemon["d"]
        first = start([harness.PYTHON, BOT, "--address", d.unix_address, "--players", "6", "--seat", "2",
                       "--expansions", ALL, "--seed", "9", "--rng", "9"])
        others = []
        try:
            made = json.loads(first.stdout.readline())
            self.assertEqual(sorted(made["tokens"]), ["0", "1", "3", "4", "5"])
            others = [start([harness.PYTHON, BOT, "--address", d.tcp_address if seat % 2 else d.unix_address,
                             "--encoding", "json" if seat % 2 else "msgpack", "--game", str(made["game"]),
                             "--token", token, "--rng", str(seat)])
                      for seat, token in sorted((int(s), t) for s, t in made["tokens"].items())]
            outs = []
            for b in others + [first]:
                out, err = finish(b, 60)
                self.assertEqual(b.returncode, 0, err)
                outs.append(json.loads(out))
        finally:
            for b in [first] + others:
                if b.poll() is None:
                    b.kill()
                    b.communicate()
        with d.client() as c:
            sc = c.score(made["game"])
            moves = c.history(made["game"])["moves"]
        self.assertIs(sc["final"], True)
        self.assertEqual({json.dumps(o["scores"]) for o in outs}, {json.dumps(sc["scores"])})
        self.assertEqual(sum(o["moves_played"] for o in outs), len(moves))
        self.assertEqual(outs[-1]["moves_played"], sum(m["seat"] == 2 for m in moves))

    def test_bot_usage_errors(self):
        d = daemon["d"]
        with d.client() as c:
            before = c.stats()["games_total"]
        for args, what in ((["--address", "bogus"], "not an address"),
                           (["--address", d.unix_address, "--players", "2", "--seat", "2"], "no seat 2"),
                           (["--address", d.unix_address, "--game", "1", "--players", "3"], "--players"),
                           (["--address", d.unix_address, "--rule", "farmers"], "KEY=VALUE"),
                           (["--address", d.unix_address, "--timeout", "0"], "above 0")):
            p = run([harness.PYTHON, BOT] + args)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(what, p.stderr)
            self.assertNotIn("Traceback", p.stderr)
        with d.client() as c:
            self.assertEqual(c.stats()["games_total"], before)   # none was made
        p = run([harness.PYTHON, BOT, "--address", d.unix_address, "--rule", "farmers=maybe"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("invalid_params", p.stderr)
        p = run([harness.PYTHON, BOT, "--address", "unix:/nonexistent/carcd.sock"])
        self.assertEqual(p.returncode, 3)
        self.assertIn("cannot connect", p.stderr)

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

"""A second audit of the contrib tools (contrib/README.md, each tool's --help)
against a real daemon, where test_contrib.py and test_audit_contrib.py leave
a statement unpinned, with the expansions:

- carcctl `new`: the README's examples as written; every flag reaching the
  daemon (every set, every rule option, every component); what is refused
  (exit 1, one line `carcctl: CODE: message`) and what is bad usage (exit 2),
  neither making a game;
- carcctl `play`: each move type the expansions add, sent as JSON, plays as
  the same move sent by the Python client; malformed moves; `--index` and
  `--random` send the seq of the listing they chose from (a move slipped in
  between is a `conflict`, not a move on the newer position);
- carcctl `watch --count`; `COMMAND --help`;
- carcd.Client: each method's error as code and message, in both encodings;
  integers past 64 bits; pipelining; `call` keywords; $CARCD_ADDRESS;
- random_bot.py: its three modes with every set and every rule option, its
  printed scores equal to the daemon's `score`, and its exit statuses
  0, 1, 2 and 3."""

import hashlib
import re
import json
import os
import subprocess
import threading
import time
import unittest

import harness
import carcd  # noqa: E402  (harness puts contrib/python on the path)
from crafted import (ABBEY_MOVES, ABBEY_TILES, ESCAPE_MOVES, ESCAPE_TILES, FINAL_MOVES, FINAL_TILES, FLOCK_MOVES,
                     FLOCK_START, WAGONS_MOVES, WAGONS_TILES)
from test_contrib import ALL, BOT, CARCCTL_CMD, EXPANSIONS, finish, run, start

daemon, setUpModule, tearDownModule = harness.module_daemon()

AVAILABLE_COMPONENTS = ("large", "wagon", "mayor", "builder", "pig", "barn", "shepherd", "abbey",
                        "king", "robber", "goods")
FIGURES = ("large", "wagon", "mayor", "builder", "pig", "barn", "shepherd", "abbey")
UNBUILT_COMPONENTS = ("tower", "fairy", "dragon", "count", "catapult")
UNBUILT_SETS = ("princess-dragon", "tower", "count")

# the expansion decisions of crafted.py: new_game options, the moves that lead there
DECISIONS = {
    "abbey": (dict(players=["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=ABBEY_TILES, seed=5),
              ABBEY_MOVES),
    "wagon": (dict(players=["ann", "bob", "cy"], expansions=["base", "abbey-mayor"], tiles=WAGONS_TILES, seed=5),
              WAGONS_MOVES),
    "flock": (dict(players=["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START, bag=[3, 2, 4],
                   tiles=["BA/RFr"] * 5, seed=5), FLOCK_MOVES),
    "escape": (dict(players=["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5),
               ESCAPE_MOVES),
    "abbey_final": (dict(players=["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=FINAL_TILES, seed=5,
                         rules={"abbey_final_round": True}), FINAL_MOVES),
}


def games_total():
    with daemon["d"].client() as c:
        return c.stats()["games_total"]


def lead_to(client, name):
    """A game of DECISIONS[name], played up to its decision: (game, tokens)."""
    opts, moves = DECISIONS[name]
    g = client.new_game(**opts)
    tokens = [s["token"] for s in g["seats"]]
    for move in moves:
        lm = client.legal_moves(g["game"])
        assert move in lm["moves"], (name, move, lm)
        client.apply_move(g["game"], move, token=tokens[lm["seat"]], seq=lm["seq"])
    return g["game"], tokens


class CtlMixin:
    """carcctl run against ctl_daemon, the daemon of this module; another
    module that uses the mixin names its own (and may set ctl_timeout)."""
    ctl_daemon = daemon
    ctl_timeout = 120

    def ctl(self, *args, where=None, expect=0, env=None, stdin=""):
        d = self.ctl_daemon["d"]
        where = where if where is not None else ["--socket", d.unix_path]
        p = subprocess.run(CARCCTL_CMD + where + list(args), input=stdin, capture_output=True, text=True,
                           timeout=self.ctl_timeout, env=env)
        self.assertEqual(p.returncode, expect, "carcctl %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
        self.assertNotIn("Traceback", p.stderr)
        if expect == 0:
            self.assertEqual(p.stderr, "")
            return json.loads(p.stdout) if p.stdout.strip() else None
        self.assertEqual(p.stdout, "")
        return p.stderr

    def refused(self, *args, code, **kw):
        """carcctl ARGS is refused by the daemon: exit 1 and one line `carcctl: CODE: message`."""
        err = self.ctl(*args, expect=1, **kw)
        self.assertRegex(err, r"\Acarcctl: %s: \S[^\n]*\n\Z" % code)
        return err


# ---------------------------------------------------------------------------------------------------------
class CarcctlNew(CtlMixin, unittest.TestCase):
    def test_readme_new_examples_as_written(self):
        # carcctl new --players ann,bob,cy --expansions base,river,abbey-mayor,hills-sheep \
        #         --rule abbey_final_round=true --rule farm_scoring=per-farm-3 --component large=true
        g = self.ctl("new", "--players", "ann,bob,cy", "--expansions", "base,river,abbey-mayor,hills-sheep",
                     "--rule", "abbey_final_round=true", "--rule", "farm_scoring=per-farm-3",
                     "--component", "large=true")
        self.assertEqual([s["name"] for s in g["seats"]], ["ann", "bob", "cy"])
        self.assertEqual(g["state"]["board"][0]["tile"], "RI/s")
        for seat in g["state"]["seats"]:
            for kind in ("large", "wagon", "mayor", "barn", "shepherd", "abbey"):
                self.assertIn(kind, seat["supply"])
        setup = self.ctl("history", str(g["game"]))["setup"]
        self.assertEqual(setup["expansions"], ["base", "river", "abbey-mayor", "hills-sheep"])
        self.assertEqual(setup["components"], {"large": True})
        self.assertEqual((setup["rules"]["abbey_final_round"], setup["rules"]["farm_scoring"]), (True, "per-farm-3"))
        self.assertIs(setup["auth"], True)
        # carcctl new --players solo --expansions base,hills-sheep --bag 2,wolf,1 --start BA/RCr@0,0
        g = self.ctl("new", "--players", "solo", "--expansions", "base,hills-sheep", "--bag", "2,wolf,1",
                     "--start", "BA/RCr@0,0")
        game = str(g["game"])
        self.assertEqual([(t["tile"], t["x"], t["y"], t["rot"]) for t in g["state"]["board"]], [("BA/RCr", 0, 0, 0)])
        self.assertNotIn("bag", self.ctl("history", game)["setup"])   # secret until the end
        token = g["seats"][0]["token"]
        while not self.ctl("play", game, "--random", "--token", token)["over"]:
            pass
        h = self.ctl("history", game)
        self.assertEqual(h["setup"]["bag"], [2, "wolf", 1])
        self.assertEqual(h["setup"]["start"], [{"tile": "BA/RCr", "x": 0, "y": 0, "rot": 0}])

    def test_every_flag_at_once_reaches_the_daemon(self):
        tiles = ["HS/RR.h", "AM/CRcr+", "BA/L", "KR/RC", "BA/CRRR"]
        g = self.ctl("new", "--players", "ann, bob", "--expansions", "base, hills-sheep, abbey-mayor, king-robber",
                     "--seed", "123456789", "--tiles", ",".join(tiles), "--rule", "farmers=false",
                     "--rule", "catapult_target_points=0", "--component", "large=true", "--component", "king=false",
                     "--start", "BA/RCr@0,0", "--start", "BA/Cc+@0,-1,180",
                     "--start", '{"tile": "BA/L", "x": 5, "y": 5, "rot": 270}', "--bag", "wolf, 4,1", "--no-auth")
        game = str(g["game"])
        st = g["state"]
        self.assertEqual([(t["tile"], t["x"], t["y"], t["rot"]) for t in st["board"]],
                         [("BA/RCr", 0, 0, 0), ("BA/Cc+", 0, -1, 180), ("BA/L", 5, 5, 270)])
        self.assertEqual((st["tile"]["id"], st["tiles_left"]), (tiles[0], len(tiles) - 1))
        self.assertIn("large", st["seats"][0]["supply"])
        self.assertNotIn("seed", st)      # secret until the end
        setup = self.ctl("history", game)["setup"]
        self.assertEqual(setup["players"], ["ann", "bob"])
        # in the daemon's order
        self.assertEqual(setup["expansions"], ["base", "abbey-mayor", "king-robber", "hills-sheep"])
        self.assertEqual(setup["components"], {"large": True, "king": False})
        self.assertEqual((setup["rules"]["farmers"], setup["rules"]["catapult_target_points"]), (False, 0))
        self.assertIs(setup["auth"], False)
        for _ in range(60):      # --no-auth: no token needed, for either seat
            if self.ctl("play", game, "--random")["over"]:
                break
        h = self.ctl("history", game)
        self.assertEqual(h["seed"], 123456789)
        self.assertEqual(hashlib.sha256(("%d:%s" % (h["seed"], h["salt"])).encode()).hexdigest(), st["seed_sha256"])
        self.assertEqual(h["setup"]["tiles"], tiles)
        self.assertEqual(h["setup"]["bag"], ["wolf", 4, 1])
        self.assertEqual(len(h["setup"]["start"]), 3)

    def test_every_rule_option_through_rule(self):
        hello = self.ctl("hello")
        args, want = [], {}
        for r in hello["rules"]:
            if r["type"] == "integer":
                value = r["max"] if r["default"] != r["max"] else r["min"]
            else:
                value = [v for v in r["values"] if v != r["default"]][0]
            want[r["key"]] = value
            args += ["--rule", "%s=%s" % (r["key"], json.dumps(value) if not isinstance(value, str) else value)]
        self.assertGreaterEqual(len(want), 20)
        g = self.ctl("new", "--expansions", ALL, *args)
        self.assertEqual(self.ctl("history", str(g["game"]))["setup"]["rules"], want)
        for r in hello["rules"]:   # and a value of no option: refused, nothing made
            before = games_total()
            bad = "1001" if r["type"] == "integer" else "maybe"
            self.refused("new", "--rule", "%s=%s" % (r["key"], bad), code="invalid_params")
            self.assertEqual(games_total(), before)
        self.refused("new", "--rule", "no_such_rule=1", code="invalid_params")

    def test_every_component_and_every_set(self):
        for kind in AVAILABLE_COMPONENTS:
            with self.subTest(component=kind):
                g = self.ctl("new", "--component", "%s=true" % kind)
                self.assertEqual(self.ctl("history", str(g["game"]))["setup"]["components"], {kind: True})
                if kind in FIGURES:
                    self.assertIn(kind, g["state"]["seats"][1]["supply"])
        for kind in UNBUILT_COMPONENTS:
            with self.subTest(component=kind):
                self.assertIn("not available yet", self.refused("new", "--component", "%s=true" % kind,
                                                                code="invalid_params"))
        for name in EXPANSIONS:
            with self.subTest(expansion=name):
                g = self.ctl("new", "--expansions", "base,%s" % name if name != "base" else "base")
                self.assertEqual(self.ctl("history", str(g["game"]))["setup"]["expansions"],
                                 ["base", name] if name != "base" else ["base"])
        for name in UNBUILT_SETS:
            with self.subTest(expansion=name):
                self.assertIn("not available yet", self.refused("new", "--expansions", "base," + name,
                                                                code="invalid_params"))
        self.refused("new", "--expansions", "base,no-such-set", code="invalid_params")
        # a set without a standard start tile needs --start
        self.assertIn("start", self.refused("new", "--expansions", "cult", code="invalid_params"))
        g = self.ctl("new", "--expansions", "cult", "--start", "CU/S@0,0")
        self.assertEqual(g["state"]["board"][0]["tile"], "CU/S")

    def test_new_refusals_are_exit_1_and_make_no_game(self):
        before = games_total()
        for args, what in ((["--players", " "], "players"),
                           (["--expansions", ""], "expansions"),
                           (["--seed", "-1"], "seed"),
                           (["--seed", str(2 ** 53)], "seed"),
                           (["--seed", str(2 ** 64)], "MessagePack"),   # refused by carcd.py, unsent
                           (["--json-lines", "--seed", str(2 ** 64)], "seed"),
                           (["--tiles", "BA/L,nope"], "nope"),
                           (["--tiles", "AM/A", "--expansions", "base,abbey-mayor"], "abbey"),
                           (["--tiles", "HS/RR.h"], "HS/RR.h"),
                           (["--start", "BA/RCr@0,0,45"], "rot"),
                           (["--start", "BA/RCr@2000,0"], "1000"),
                           (["--start", '{"tile": "BA/RCr"}'], "x"),
                           (["--bag", "5", "--expansions", "base,hills-sheep"], "bag"),
                           (["--bag", "wolf,wolf,wolf", "--expansions", "base,hills-sheep"], "bag"),
                           (["--component", "large=1"], "large"),
                           (["--rule", "abbey_final_round=yes"], "abbey_final_round")):
            with self.subTest(args=args):
                pre = [a for a in args if a == "--json-lines"]
                rest = [a for a in args if a != "--json-lines"]
                self.assertIn(what, self.refused(*pre, "new", *rest, code="invalid_params"))
        self.assertEqual(games_total(), before)

    def test_new_usage_errors_are_exit_2_and_make_no_game(self):
        before = games_total()
        for args, what in ((["--seed", "abc"], "--seed"),
                           (["--seed", "1.5"], "--seed"),
                           (["--component", "large"], "KEY=VALUE"),
                           (["--component", "=true"], "KEY=VALUE"),
                           (["--rule", "=1"], "KEY=VALUE"),
                           (["--start", "[1]"], "--start"),
                           (["--start", "{bad"], "not valid JSON"),
                           (["--start", "X@1,2,3,4"], "TILE@X,Y"),
                           (["--start", "@1,2"], "TILE@X,Y"),
                           (["--players"], "--players"),
                           (["--no-auth=yes"], "--no-auth")):
            with self.subTest(args=args):
                err = self.ctl("new", *args, expect=2)
                self.assertIn("usage: carcctl new", err)
                self.assertIn(what, err)
        self.assertEqual(games_total(), before)

    def test_an_empty_tiles_list_is_not_a_full_supply(self):
        """README: `--tiles ID,...` (the whole supply, in order).  An empty list
        is sent as one, and the daemon refuses it (`tiles` lists 1 to 320
        ids): no game of the full shuffled supply is made in its place."""
        before = games_total()
        p = run(CARCCTL_CMD + ["--socket", daemon["d"].unix_path, "new", "--players", "solo", "--tiles", ""])
        made = games_total() - before
        self.assertEqual((p.returncode, made), (1, 0),
                         "carcctl new --tiles '' exit %d, made %d game(s): %s" % (p.returncode, made,
                                                                                  p.stdout[:200]))
        self.assertIn("invalid_params", p.stderr)


# ---------------------------------------------------------------------------------------------------------
class CarcctlPlay(CtlMixin, unittest.TestCase):
    def twin(self, name, move):
        """The result of `move` at decision `name`, sent as JSON by carcctl in
        one game and by the Python client in a twin game; both, and the states after."""
        with daemon["d"].client() as c:
            g1, t1 = lead_to(c, name)
            g2, t2 = lead_to(c, name)
            lm = c.legal_moves(g1)
            self.assertIn(move, lm["moves"])
            seat = lm["seat"]
            via_ctl = self.ctl("play", str(g1), json.dumps(move), "--token", t1[seat])
            direct = c.apply_move(g2, move, token=t2[seat], seq=lm["seq"])
            states = [c.state(g) for g in (g1, g2)]
            for s in states:
                del s["game"], s["seed_sha256"]
            self.assertEqual(states[0], states[1])
            self.assertEqual(c.history(g1)["moves"][-1], {"seq": lm["seq"] + 1, "seat": seat, "move": move})
        self.assertEqual(via_ctl, direct)
        return via_ctl

    def test_each_expansion_move_type_as_json(self):
        with daemon["d"].client() as c:
            game, _ = lead_to(c, "abbey")
            abbeys = [m for m in c.legal_moves(game)["moves"] if m["type"] == "place_abbey"]
        self.assertTrue(abbeys)
        res = self.twin("abbey", abbeys[0])
        placed = [e for e in res["events"] if e["type"] == "tile_placed"]
        self.assertEqual([(e["tile"], e["x"], e["y"]) for e in placed], [("AM/A", abbeys[0]["x"], abbeys[0]["y"])])
        res = self.twin("abbey", {"type": "draw"})
        self.assertEqual(res["phase"], "tile")
        self.assertIn("tile_drawn", [e["type"] for e in res["events"]])
        with daemon["d"].client() as c:
            game, _ = lead_to(c, "wagon")
            wagons = [m for m in c.legal_moves(game)["moves"] if m["type"] == "move_wagon"]
        self.assertTrue(wagons)
        res = self.twin("wagon", wagons[-1])
        self.assertIn(("deployed", "wagon", wagons[-1]["x"], wagons[-1]["y"]),
                      [(e["type"], e.get("kind"), e.get("x"), e.get("y")) for e in res["events"]])
        for choice in ("expand", "gather"):
            res = self.twin("flock", {"type": "flock", "choice": choice})
            types = [e["type"] for e in res["events"]]
            if choice == "expand":
                self.assertIn("sheep_drawn", types)
            else:
                self.assertIn(("scored", "flock"), [(e["type"], e.get("feature")) for e in res["events"]])
        with daemon["d"].client() as c:
            game, _ = lead_to(c, "escape")
            escapes = [m for m in c.legal_moves(game)["moves"] if m["type"] == "escape"]
        self.assertTrue(escapes)
        res = self.twin("escape", escapes[0])
        self.assertIn(("returned", escapes[0]["figure"], "escape"),
                      [(e["type"], e.get("figure"), e.get("why")) for e in res["events"]])
        with daemon["d"].client() as c:
            game, _ = lead_to(c, "abbey_final")
            finals = [m for m in c.legal_moves(game)["moves"] if m["type"] == "place_abbey"]
        self.assertTrue(finals)
        res = self.twin("abbey_final", finals[0])
        self.assertIn("AM/A", [e.get("tile") for e in res["events"]])
        res = self.twin("abbey_final", {"type": "pass"})
        self.assertEqual(res["seq"], len(FINAL_MOVES) + 1)

    def test_malformed_and_misplaced_moves(self):
        with daemon["d"].client() as c:
            game, tokens = lead_to(c, "flock")
            lm = c.legal_moves(game)
            before = c.state(game)
        game_s, token = str(game), tokens[lm["seat"]]
        for move, code in (({"type": "flock", "choice": "scatter"}, "invalid_params"),
                           ({"type": "flock"}, "invalid_params"),
                           ({"type": "fly"}, "invalid_params"),
                           ([1], "invalid_params"),
                           ("flock", "invalid_params"),
                           ({"type": "move_dragon", "x": 0, "y": 0}, "illegal_move"),
                           ({"type": "place_abbey", "x": 0, "y": 1}, "illegal_move"),
                           ({"type": "draw"}, "illegal_move"),
                           ({"type": "escape", "figure": "0.follower.1"}, "illegal_move"),
                           ({"type": "move_wagon", "x": 0, "y": 0, "at": "N"}, "illegal_move"),
                           ({"type": "pass"}, "illegal_move")):
            with self.subTest(move=move):
                self.refused("play", game_s, json.dumps(move), "--token", token, code=code)
                self.refused("play", game_s, "-", "--token", token, stdin=json.dumps(move), code=code)
        with daemon["d"].client() as c:
            self.assertEqual(c.state(game), before)       # nothing moved
        # the right move with a stale or future --seq: conflict, nothing moved
        for seq in (lm["seq"] - 1, lm["seq"] + 1):
            err = self.refused("play", game_s, json.dumps(lm["moves"][0]), "--token", token, "--seq", str(seq),
                               code="conflict")
            self.assertIn("seq %d" % seq, err)
            self.refused("play", game_s, "--index", "0", "--token", token, "--seq", str(seq), code="conflict")
        with daemon["d"].client() as c:
            self.assertEqual(c.state(game), before)
        # bad usage: exit 2
        self.ctl("play", game_s, "--index", "-1", "--token", token, expect=2)
        self.ctl("play", game_s, json.dumps(lm["moves"][0]), "--random", "--token", token, expect=2)
        self.ctl("play", game_s, "-", "--index", "0", "--token", token, expect=2, stdin="{}")
        self.ctl("play", game_s, "{not json", "--token", token, expect=2)
        self.ctl("play", game_s, "--index", "x", expect=2)
        self.ctl("play", game_s, "--index", "0", "--seq", "x", expect=2)
        with daemon["d"].client() as c:
            self.assertEqual(c.state(game), before)

    def test_index_and_random_send_the_seq_of_their_listing(self):
        """README: --index N and --random pick one of the legal moves and send it
        with their seq, so they never land on a newer position.  A proxy slips
        another move in between carcctl's legal_moves and its apply_move."""
        d = daemon["d"]
        for opts in ([], ["--json-lines"]):
            for pick in (["--index", "0"], ["--random"]):
                with self.subTest(opts=opts, pick=pick), d.client() as c:
                    g = c.new_game(["ann", "bob"], auth=False, seed=11)
                    game = g["game"]

                    def slip_in(msg):
                        if msg[2] != "apply_move":
                            return
                        with d.client() as other:
                            other.apply_move(game, other.legal_moves(game)["moves"][-1])

                    with harness.Proxy(d.unix_path, slip_in) as proxy:
                        err = self.refused(*opts, "play", str(game), *pick, where=["--socket", proxy.path],
                                           code="conflict")
                        self.assertIn("seq 0", err)
                        sent = [m for m in proxy.requests if m[2] == "apply_move"]
                        self.assertEqual(len(sent), 1)
                        self.assertEqual(sent[0][3]["seq"], 0)
                    h = c.history(game)
                    self.assertEqual(len(h["moves"]), 1)   # only the move slipped in
                    # without a move slipped in, the same command plays at the seq it saw
                    with harness.Proxy(d.unix_path) as proxy:
                        res = self.ctl(*opts, "play", str(game), *pick, where=["--socket", proxy.path])
                        sent = [m for m in proxy.requests if m[2] == "apply_move"]
                    self.assertEqual((res["seq"], sent[0][3]["seq"]), (2, 1))
                    listed = c.history(game)["moves"][1]["move"]
                    self.assertEqual(sent[0][3]["move"], listed)



# ---------------------------------------------------------------------------------------------------------
class CarcctlWatchAndHelp(CtlMixin, unittest.TestCase):
    def watch(self, game, *args, opts=()):
        return start(CARCCTL_CMD + list(opts) + ["--socket", daemon["d"].unix_path, "watch", str(game)] + list(args))

    def test_watch_count(self):
        d = daemon["d"]
        for opts in ((), ("--json-lines",)):
            with self.subTest(opts=opts), d.client() as c:
                g = c.new_game(["solo"], auth=False, tiles=["BA/L", "BA/C", "BA/RFr"],
                               expansions=["base"], seed=2)
                game = g["game"]
                one = self.watch(game, "--count", "1", opts=opts)
                many = self.watch(game, "--count", "100", opts=opts)
                none = self.watch(game, "--count", "0", opts=opts)
                try:
                    for w in (one, many, none):
                        self.assertEqual(json.loads(w.stdout.readline()), {"game": game, "seq": 0})
                    results = harness.play_out(c, game)
                    outs = [finish(w, 20) for w in (one, many, none)]
                finally:
                    for w in (one, many, none):
                        finish(w, 5)
                for w, (out, err) in zip((one, many, none), outs):
                    self.assertEqual((w.returncode, err), (0, ""))
                notes = [[json.loads(line) for line in out.splitlines()] for out, _ in outs]
                expect = [{"game": game, "seq": r["seq"], "events": r["events"]} for r in results]
                self.assertEqual(notes[0], expect[:1])          # --count 1: one, though more came
                self.assertEqual(notes[1], expect)               # --count 100: ends with the game
                self.assertEqual(notes[1][-1]["events"][-1]["type"], "game_over")
                self.assertEqual(notes[2], [])                   # --count 0: only {game, seq}
                # over already: its line, and done, whatever --count
                p = run(CARCCTL_CMD + list(opts) + ["--socket", d.unix_path, "watch", str(game), "--count", "5"],
                        timeout=20)
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                self.assertEqual([json.loads(x) for x in p.stdout.splitlines()], [{"game": game, "seq": len(results)}])
        self.ctl("watch", "1", "--count", "x", expect=2)
        self.ctl("watch", "1", "--keepalive", "0", expect=2)
        self.assertIn("no_such_game", self.refused("watch", "987654321", "--count", "1", code="no_such_game"))

    def test_watch_outlasts_a_short_idle_timeout(self):
        # without --keepalive, watch pings within the daemon's idle timeout
        # (hello's limits), not after a fixed 60 s: against --idle-timeout 2
        # it was dropped as idle before the next move came
        with harness.Daemon("--idle-timeout", "2", tcp=False) as d, d.client() as c:
            game = c.new_game(["solo"], auth=False, tiles=["BA/L", "BA/C"], seed=2)["game"]
            w = start(CARCCTL_CMD + ["--socket", d.unix_path, "watch", str(game), "--count", "1"])
            try:
                self.assertEqual(json.loads(w.stdout.readline()), {"game": game, "seq": 0})
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:   # the client of this test stays awake too
                    c.ping()
                    time.sleep(0.5)
                lm = c.legal_moves(game)
                res = c.apply_move(game, lm["moves"][0], seq=lm["seq"])
                out, err = finish(w, 20)
            finally:
                finish(w, 5)
            self.assertEqual((w.returncode, err), (0, ""))
            self.assertEqual([json.loads(x) for x in out.splitlines()],
                             [{"game": game, "seq": res["seq"], "events": res["events"]}])

    def test_every_error_line_starts_with_carcctl(self):
        """README: errors go to stderr as one line starting `carcctl: ` with
        exit status 1, 2 or 3, also a usage error argparse finds in a
        command's own arguments (argparse itself would write `carcctl new:
        error: ...`)."""
        d = daemon["d"]
        for args, status in ((["new", "--seed", "x"], 2), (["watch"], 2), (["play", "1", "--index", "x"], 2),
                             (["moves", "1", "--seat", "x"], 2), (["close", "1"], 2), (["state", "x"], 2),
                             (["play", "1"], 2), (["frobnicate"], 2), (["ping", "--bogus"], 2),
                             (["watch", "1", "--count", "-1"], 2), (["watch", "1", "--count", "1.5"], 2),
                             (["state", "987654321"], 1)):
            with self.subTest(args=args):
                p = run(CARCCTL_CMD + ["--socket", d.unix_path] + args)
                self.assertEqual(p.returncode, status, p.stderr)
                self.assertTrue(p.stderr.splitlines()[-1].startswith("carcctl: "), p.stderr.splitlines()[-1])

    def test_a_usage_error_shows_the_usage_of_the_part_it_is_in(self):
        """README: bad usage prints the command's usage, then `carcctl:
        message`; arguments left over used to get carcctl's own usage."""
        d = daemon["d"]
        for args, usage, left in ((["moves", "1", "--index", "0"], "usage: carcctl moves", "--index 0"),
                                  (["state", "1", "--bogus"], "usage: carcctl state", "--bogus"),
                                  (["play", "1", "{}", "{}"], "usage: carcctl play", "{}"),
                                  (["--bogus", "state", "1"], "usage: carcctl [-h]", "--bogus")):
            with self.subTest(args=args):
                p = run(CARCCTL_CMD + ["--socket", d.unix_path] + args)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertTrue(p.stderr.startswith(usage), p.stderr)
                self.assertEqual(p.stderr.splitlines()[-1], "carcctl: unrecognized arguments: " + left)

    def test_play_takes_its_options_before_the_move_too(self):
        for before in (True, False):
            with self.subTest(before=before):
                g = self.ctl("new", "--players", "ann", "--seed", "3")
                game, token = str(g["game"]), g["seats"][0]["token"]
                move = json.dumps(self.ctl("moves", game)["moves"][0])
                opts = ["--token", token, "--seq", "0"]
                res = self.ctl("play", game, *(opts + [move] if before else [move] + opts))
                self.assertEqual(res["seq"], 1)

    def test_help_of_each_command(self):
        p = run(CARCCTL_CMD + ["--help"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        for cmd in ("new", "state", "moves", "play", "watch", "score", "history", "games", "hello", "stats",
                    "ping", "close", "call", "--socket", "--host", "--port", "--address", "--json-lines",
                    "--compact", "--timeout", "CARCD_ADDRESS", "CARCD_TOKEN"):
            self.assertIn(cmd, p.stdout)
        options = {"new": ("--players", "--expansions", "--seed", "--tiles", "--rule", "--component", "--start",
                           "--bag", "--no-auth"),
                   "moves": ("--seat",), "play": ("--index", "--random", "--token", "--seq", "move"),
                   "watch": ("--count", "--keepalive", "default 60"), "games": ("--after", "--limit"),
                   "close": ("--admin-token",), "call": ("method", "params"),
                   "state": ("game",), "score": ("game",), "history": ("game",),
                   "hello": (), "stats": (), "ping": ()}
        for cmd, opts in options.items():
            with self.subTest(cmd=cmd):
                p = run(CARCCTL_CMD + [cmd, "--help"])
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                self.assertIn("usage: carcctl %s" % cmd, p.stdout)
                for opt in opts:
                    self.assertIn(opt, p.stdout)
        p = run([harness.PYTHON, BOT, "--help"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        for opt in ("--address", "--encoding", "--game", "--token", "--seat", "--players", "--expansions", "--seed",
                    "--rule", "--component", "--rng", "--timeout", "--keepalive", "--verbose", "msgpack", "json"):
            self.assertIn(opt, p.stdout)

    def test_default_address_and_token_from_the_environment(self):
        d = daemon["d"]
        env = dict(os.environ, CARCD_ADDRESS=d.unix_address)
        g = self.ctl("new", "--players", "ann,bob", where=[], env=env)
        game = str(g["game"])
        env["CARCD_TOKEN"] = g["seats"][1]["token"]
        self.refused("play", game, "--index", "0", where=[], env=env, code="not_your_turn")
        env["CARCD_TOKEN"] = g["seats"][0]["token"]
        self.assertEqual(self.ctl("play", game, "--index", "0", where=[], env=env)["seq"], 1)
        # an explicit --token wins over $CARCD_TOKEN
        self.refused("play", game, "--index", "0", "--token", g["seats"][1]["token"], where=[], env=env,
                     code="not_your_turn")
        env2 = dict(os.environ, CARCD_ADDRESS="tcp:127.0.0.1:%d" % d.port)
        self.assertEqual(self.ctl("state", game, where=[], env=env2)["seq"], 1)
        saved = os.environ.get("CARCD_ADDRESS")
        os.environ["CARCD_ADDRESS"] = d.unix_address
        try:
            with carcd.Client() as c:
                self.assertEqual(c.state(int(game))["seq"], 1)
        finally:
            if saved is None:
                del os.environ["CARCD_ADDRESS"]
            else:
                os.environ["CARCD_ADDRESS"] = saved


# ---------------------------------------------------------------------------------------------------------
class PythonClient2(unittest.TestCase):
    def test_each_method_raises_its_error_with_code_and_message(self):
        d = daemon["d"]
        messages = {}
        for encoding in ("msgpack", "json"):
            with d.client(encoding=encoding) as c:
                g = c.new_game(["ann", "bob"], expansions=["base", "cathars"], seed=1)
                game, tokens = g["game"], [s["token"] for s in g["seats"]]
                over = c.new_game(["solo"], auth=False, tiles=["BA/L"])
                while not c.apply_move(over["game"], c.legal_moves(over["game"])["moves"][0])["over"]:
                    pass
                lm = c.legal_moves(game)
                cases = [
                    ("new_game players", lambda: c.new_game([]), "invalid_params"),
                    ("new_game expansions", lambda: c.new_game(["a"], expansions=["base", "tower"]), "invalid_params"),
                    ("new_game components", lambda: c.new_game(["a"], components={"large": "yes"}), "invalid_params"),
                    ("new_game rules", lambda: c.new_game(["a"], rules={"escape": "never"}), "invalid_params"),
                    ("new_game seed", lambda: c.new_game(["a"], seed=-5), "invalid_params"),
                    ("new_game tiles", lambda: c.new_game(["a"], tiles=["XX/none"]), "invalid_params"),
                    ("new_game start", lambda: c.new_game(["a"], start=[{"tile": "BA/L", "x": 0, "y": 0, "rot": 1}]),
                     "invalid_params"),
                    ("new_game bag", lambda: c.new_game(["a"], bag=[1]), "invalid_params"),
                    ("new_game auth", lambda: c.new_game(["a"], auth="no"), "invalid_params"),
                    ("state", lambda: c.state(987654321), "no_such_game"),
                    ("legal_moves", lambda: c.legal_moves(game, seat=2), "invalid_params"),
                    ("apply_move no token", lambda: c.apply_move(game, lm["moves"][0]), "forbidden"),
                    ("apply_move other seat", lambda: c.apply_move(game, lm["moves"][0], token=tokens[1]),
                     "not_your_turn"),
                    ("apply_move illegal", lambda: c.apply_move(game, {"type": "pass"}, token=tokens[0]),
                     "illegal_move"),
                    ("apply_move stale", lambda: c.apply_move(game, lm["moves"][0], token=tokens[0], seq=7),
                     "conflict"),
                    ("apply_move over", lambda: c.apply_move(over["game"], {"type": "pass"}), "game_over"),
                    ("score", lambda: c.score(987654321), "no_such_game"),
                    ("history", lambda: c.history(987654321), "no_such_game"),
                    ("games", lambda: c.games(limit=0), "invalid_params"),
                    ("close_game", lambda: c.close_game(game, "0" * 32), "forbidden"),
                    ("subscribe", lambda: c.subscribe(987654321), "no_such_game"),
                    ("unsubscribe", lambda: c.unsubscribe("x"), "invalid_params"),
                    ("hello", lambda: c.hello(client=5), "invalid_params"),
                    ("call", lambda: c.call("no_such_method"), "unknown_method"),
                ]
                for what, fn, code in cases:
                    with self.subTest(encoding=encoding, what=what):
                        with self.assertRaises(carcd.Error) as cm:
                            fn()
                        e = cm.exception
                        self.assertEqual(e.code, code, str(e))
                        self.assertIsInstance(e.message, str)
                        self.assertTrue(e.message)
                        self.assertEqual(str(e), "%s: %s" % (code, e.message))
                        self.assertIsInstance(e.msgid, int)
                        messages.setdefault(what, set()).add(re.sub(r"\d+", "N", e.message))
                self.assertEqual(c.state(game)["seq"], 0)     # nothing was played
                self.assertEqual(c.ping(), {})               # and the connection goes on
        for what, texts in messages.items():
            self.assertEqual(len(texts), 1, "%s: the encodings say different things: %s" % (what, texts))

    def test_integers_past_64_bits(self):
        d = daemon["d"]
        with d.client() as c:
            for n in (2 ** 64, -2 ** 63 - 1, 2 ** 70):
                before = c.stats()["requests"]
                with self.assertRaises(carcd.Error) as cm:
                    c.state(n)
                self.assertEqual(cm.exception.code, "invalid_params")
                # not sent: the daemon counted only the two stats requests
                self.assertEqual(c.stats()["requests"], before + 1)
            with self.assertRaises(carcd.Error) as cm:   # fits MessagePack's uint64: sent, refused
                c.state(2 ** 64 - 1)
            self.assertEqual(cm.exception.code, "invalid_params")
            with self.assertRaises(carcd.Error) as cm:
                c.new_game(["a"], seed=2 ** 64)
            self.assertEqual(cm.exception.code, "invalid_params")
            self.assertEqual(c.ping(), {})
        with d.client(encoding="json") as c:
            for n in (2 ** 64, -2 ** 63 - 1):
                with self.assertRaises(carcd.Error) as cm:
                    c.state(n)
                self.assertEqual(cm.exception.code, "invalid_params")
            self.assertEqual(c.ping(), {})

    def test_pipelining_call_keywords_and_waiting(self):
        d = daemon["d"]
        for encoding in ("msgpack", "json"):
            with self.subTest(encoding=encoding), d.client(encoding=encoding) as c, \
                    d.client(encoding=encoding) as other:
                g = c.new_game(["solo"], auth=False, seed=3)
                game = g["game"]
                ids = [c.send("state", {"game": 987654321}), c.send("ping"), c.send("state", {"game": game}),
                       c.send("no_such_method")]
                self.assertEqual(c.response(ids[2])["game"], game)   # out of order
                with self.assertRaises(carcd.Error) as cm:
                    c.response(ids[3])
                self.assertEqual((cm.exception.code, cm.exception.msgid), ("unknown_method", ids[3]))
                self.assertEqual(c.response(ids[1]), {})
                with self.assertRaises(carcd.Error) as cm:
                    c.response(ids[0])
                self.assertEqual(cm.exception.code, "no_such_game")
                with self.assertRaises(TimeoutError):
                    c.response(ids[3] + 100, timeout=0.3)                # never sent
                # call(method, params, **kw): keywords join the params, None ones are left out
                self.assertEqual(c.call("legal_moves", {"game": game}, seat=None)["seat"], 0)
                self.assertEqual(c.call("legal_moves", {"game": game}, seat=0)["moves"],
                                 c.legal_moves(game)["moves"])
                self.assertEqual(c.call("games", {"limit": 1}, after=game - 1)["games"][0]["game"], game)
                # next_event(timeout=None) waits until a notification comes
                self.assertEqual(c.subscribe(game), {"seq": 0})
                timer = threading.Timer(0.4, lambda: other.apply_move(game, other.legal_moves(game)["moves"][0]))
                timer.start()
                t0 = time.monotonic()
                note = c.next_event(timeout=None)
                timer.join()
                self.assertGreater(time.monotonic() - t0, 0.3)
                self.assertEqual((note["game"], note["seq"]), (game, 1))
                self.assertIsNone(c.next_event(timeout=0.2))
                self.assertEqual(c.unsubscribe(game), {"seq": 1})
                with self.assertRaises(ValueError):
                    carcd.Client(d.unix_address, encoding="xml")


# ---------------------------------------------------------------------------------------------------------
class RandomBot2(unittest.TestCase):
    def bot(self, *args, env=None, timeout=120):
        p = run([harness.PYTHON, BOT] + list(args), timeout=timeout, env=env)
        self.assertNotIn("Traceback", p.stderr)
        return p

    def check_final(self, out, expansions=None, players=None):
        """The bot's printed line agrees with the daemon's score and history."""
        with daemon["d"].client() as c:
            sc = c.score(out["game"])
            h = c.history(out["game"])
        self.assertEqual(set(out), {"game", "moves_played", "scores", "final"})
        self.assertIs(out["final"], True)
        self.assertIs(sc["final"], True)
        self.assertEqual(out["scores"], sc["scores"])
        if expansions is not None:
            self.assertEqual(h["setup"]["expansions"], expansions)
        if players is not None:
            self.assertEqual(len(h["setup"]["players"]), players)
        return h

    def test_readme_example_as_written(self):
        # random_bot.py --players 6 --expansions base,river,cathars,hills-sheep \
        #         --rule abbey_final_round=true --component large=true --seed 1 --rng 2
        d = daemon["d"]
        p = self.bot("--address", d.unix_address, "--players", "6", "--expansions", "base,river,cathars,hills-sheep",
                     "--rule", "abbey_final_round=true", "--component", "large=true", "--seed", "1", "--rng", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout)
        h = self.check_final(out, ["base", "river", "cathars", "hills-sheep"], 6)
        self.assertEqual(out["moves_played"], len(h["moves"]))
        self.assertEqual(h["setup"]["components"], {"large": True})
        self.assertEqual(h["seed"], 1)

    def test_mode_every_seat_with_each_set(self):
        d = daemon["d"]
        sets = [["base", x] for x in EXPANSIONS if x != "base"] + [["base"], ["river"], ["river2"]]
        for i, exps in enumerate(sets):
            with self.subTest(expansions=exps):
                enc = "json" if i % 2 else "msgpack"
                p = self.bot("--address", d.tcp_address if i % 2 else d.unix_address, "--encoding", enc,
                             "--players", str(1 + i % 6), "--expansions", ",".join(exps), "--seed", str(i),
                             "--rng", str(i))
                self.assertEqual(p.returncode, 0, p.stderr)
                out = json.loads(p.stdout)
                h = self.check_final(out, exps, 1 + i % 6)
                self.assertEqual(out["moves_played"], len(h["moves"]))
        # sets without a standard start tile: the bot has no --start, so the daemon refuses
        for exps in ("cult", "mini", "abbey-mayor,hills-sheep"):
            with self.subTest(expansions=exps):
                p = self.bot("--address", d.unix_address, "--expansions", exps)
                self.assertEqual((p.returncode, p.stdout), (1, ""))
                self.assertRegex(p.stderr, r"^random_bot: invalid_params: ")

    def test_every_rule_option_and_component(self):
        d = daemon["d"]
        with d.client() as c:
            hello = c.hello()
        args, want = [], {}
        for r in hello["rules"]:
            if r["type"] == "integer":
                value = r["max"]
            else:
                value = [v for v in r["values"] if v != r["default"]][0]
            want[r["key"]] = value
            args += ["--rule", "%s=%s" % (r["key"], json.dumps(value) if not isinstance(value, str) else value)]
        comps = {k: (i % 2 == 0) for i, k in enumerate(AVAILABLE_COMPONENTS)}
        for k, v in comps.items():
            args += ["--component", "%s=%s" % (k, json.dumps(v))]
        p = self.bot("--address", d.unix_address, "--players", "4", "--expansions", ALL, "--seed", "8", "--rng", "8",
                     *args)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout)
        h = self.check_final(out, list(EXPANSIONS), 4)
        self.assertEqual(h["setup"]["rules"], want)
        # every set is on, so each component is on already: setup lists the ones switched off
        self.assertEqual(h["setup"]["components"], {k: v for k, v in comps.items() if not v})
        self.assertEqual(out["moves_played"], len(h["moves"]))

    def test_mode_one_seat_prints_the_others_tokens(self):
        d = daemon["d"]
        first = start([harness.PYTHON, BOT, "--address", d.unix_address, "--players", "3", "--seat", "1",
                       "--expansions", "base,abbey-mayor,cathars", "--seed", "4", "--rng", "4", "--encoding", "json"])
        others = []
        try:
            made = json.loads(first.stdout.readline())
            self.assertEqual(set(made), {"game", "admin_token", "tokens"})
            self.assertEqual(sorted(made["tokens"]), ["0", "2"])
            # the printed tokens are those seats' own: each bot is told no seat, and plays only its own
            others = [start([harness.PYTHON, BOT, "--address", d.unix_address, "--game", str(made["game"]),
                             "--token", made["tokens"][s], "--rng", s, "--verbose"]) for s in ("0", "2")]
            results = [finish(b, 90) for b in others + [first]]
        finally:
            for b in [first] + others:
                finish(b, 5)
        outs = []
        for b, (out, err) in zip(others + [first], results):
            self.assertEqual(b.returncode, 0, err)
            outs.append(json.loads(out.splitlines()[-1]))
        self.assertEqual(len(results[2][0].splitlines()), 1)   # first line was read above; then the final one
        with daemon["d"].client() as c:
            h = self.check_final(outs[2], ["base", "abbey-mayor", "cathars"], 3)   # already the daemon's order
            moves = h["moves"]
            for seat, out in zip((0, 2, 1), outs):
                self.assertEqual(out["scores"], outs[2]["scores"])
                self.assertEqual(out["moves_played"], sum(m["seat"] == seat for m in moves))
            # --verbose: one line per move it played, "seat N seq M: MOVE"
            for seat, (_, err) in zip((0, 2), results):
                lines = err.splitlines()
                mine = [m for m in moves if m["seat"] == seat]
                self.assertEqual(len(lines), len(mine))
                self.assertEqual(lines, ["seat %d seq %d: %s" % (seat, m["seq"] - 1, json.dumps(m["move"]))
                                         for m in mine])
            self.assertEqual(c.close_game(made["game"], made["admin_token"]), {})   # the printed admin token

    def test_mode_join_an_auth_false_game_by_seat(self):
        d = daemon["d"]
        with d.client() as c:
            g = c.new_game(["ann", "bob"], expansions=["base", "hills-sheep", "traders-builders"], auth=False, seed=6)
        bots = [start([harness.PYTHON, BOT, "--address", d.unix_address, "--game", str(g["game"]), "--seat", str(s),
                       "--rng", str(s), "--encoding", enc]) for s, enc in ((0, "msgpack"), (1, "json"))]
        outs = []
        for b in bots:
            out, err = finish(b, 90)
            self.assertEqual(b.returncode, 0, err)
            outs.append(json.loads(out))
        h = self.check_final(outs[0], ["base", "traders-builders", "hills-sheep"], 2)
        self.assertEqual(outs[1]["scores"], outs[0]["scores"])
        for seat in (0, 1):
            self.assertEqual(outs[seat]["moves_played"], sum(m["seat"] == seat for m in h["moves"]))

    def test_exit_0_joining_a_game_already_over(self):
        d = daemon["d"]
        with d.client() as c:
            g = c.new_game(["ann", "bob"], tiles=["BA/L", "BA/C"], expansions=["base"])
            tokens = [s["token"] for s in g["seats"]]
            while True:
                lm = c.legal_moves(g["game"])
                if lm["phase"] == "over":
                    break
                c.apply_move(g["game"], lm["moves"][0], token=tokens[lm["seat"]])
        p = self.bot("--address", d.unix_address, "--game", str(g["game"]), "--token", tokens[1], "--timeout", "5")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout)
        self.check_final(out)
        self.assertEqual((out["game"], out["moves_played"]), (g["game"], 0))

    def test_exit_1_when_the_daemon_refuses(self):
        d = daemon["d"]
        with d.client() as c:
            g = c.new_game(["ann", "bob"])
        env = dict(os.environ)
        env.pop("CARCD_TOKEN", None)
        for args, code in ((["--game", str(g["game"])], "forbidden"),              # an auth game, no token
                           (["--game", "987654321", "--token", "x"], "no_such_game"),
                           (["--expansions", "base,tower"], "invalid_params"),
                           (["--component", "king=1"], "invalid_params"),
                           (["--seed", "-3"], "invalid_params")):
            with self.subTest(args=args):
                p = self.bot("--address", d.unix_address, "--timeout", "20", *args, env=env, timeout=60)
                self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
                self.assertRegex(p.stderr, r"\Arandom_bot: %s: \S" % code)
        # the token from $CARCD_TOKEN: the same game, now played
        env["CARCD_TOKEN"] = g["seats"][0]["token"]
        bot = subprocess.Popen([harness.PYTHON, BOT, "--address", d.unix_address, "--game", str(g["game"]),
                                "--seat", "0", "--timeout", "30"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
        try:
            with d.client() as c:
                deadline = time.monotonic() + 20
                while c.state(g["game"])["seq"] == 0 and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertGreater(c.state(g["game"])["seq"], 0)
        finally:
            bot.kill()
            finish(bot, 5)

    def test_exit_2_on_bad_usage(self):
        d = daemon["d"]
        before = games_total()
        for args in (["--encoding", "xml"], ["--keepalive", "0"], ["--timeout", "-1"], ["--seed", "x"],
                     ["--component", "large"], ["--game", "1", "--expansions", "base"],
                     ["--game", "1", "--seed", "3"], ["--game", "1", "--component", "large=true"],
                     ["--players", "x"], ["--rng", "1.5"]):
            with self.subTest(args=args):
                p = self.bot("--address", d.unix_address, *args, timeout=30)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertIn("usage:", p.stderr)
        self.assertEqual(games_total(), before)

    def test_exit_3_on_timeout_and_on_a_lost_connection(self):
        d = daemon["d"]
        with d.client() as c:
            g = c.new_game(["ann", "bob"])
        t0 = time.monotonic()
        p = self.bot("--address", d.unix_address, "--game", str(g["game"]), "--token", g["seats"][1]["token"],
                     "--seat", "1", "--timeout", "1", "--keepalive", "0.3", timeout=60)
        self.assertEqual((p.returncode, p.stdout), (3, ""), p.stderr)
        self.assertIn("nothing happened", p.stderr)
        self.assertLess(time.monotonic() - t0, 15)
        # a daemon that goes away while the bot waits for its turn
        with harness.Daemon(tcp=False) as own:
            with own.client() as c:
                g = c.new_game(["ann", "bob"])
            bot = start([harness.PYTHON, BOT, "--address", own.unix_address, "--game", str(g["game"]),
                         "--token", g["seats"][1]["token"], "--seat", "1", "--timeout", "60"])
            time.sleep(1.0)
            self.assertIsNone(bot.poll())
            own.stop()
            out, err = finish(bot, 30)
        self.assertEqual((bot.returncode, out), (3, ""), err)
        self.assertRegex(err, r"\Arandom_bot: \S")
        self.assertNotIn("Traceback", err)

    def test_a_game_closed_while_the_bot_waits(self):
        """Not in the README: the game goes away under a waiting bot.  It ends
        at once with 1 (the daemon refuses what follows: no_such_game), not
        waiting for --timeout."""
        d = daemon["d"]
        with d.client() as c:
            g = c.new_game(["ann", "bob"])
            bot = start([harness.PYTHON, BOT, "--address", d.unix_address, "--game", str(g["game"]),
                         "--token", g["seats"][1]["token"], "--seat", "1", "--timeout", "60"])
            time.sleep(1.0)
            c.close_game(g["game"], g["admin_token"])
            t0 = time.monotonic()
            out, err = finish(bot, 30)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertEqual((bot.returncode, out), (1, ""), err)
        self.assertRegex(err, r"\Arandom_bot: no_such_game: ")
        self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    unittest.main()

"""subscribe's `moves` (proto/PROTOCOL.md, subscribe): a watcher that asks
for it gets each notification in the `decision` form with `moves` beside,
the list `legal_moves` gives for the decision due at that seq (with
`features: true`, as legal_moves' `features` gives it), so that a bot or a
UI plays from notifications alone: one request a decision, apply_move.
Forms combine with `state`; watchers of different forms on one game each
get their own, in MessagePack, JSON lines and over WebSocket; the end of a
game brings `moves: []`, and so does a game_closed notification; `features`
without `moves`, or either not a boolean, is refused and changes nothing;
hello lists both; random_bot.py plays on them."""

import json
import os
import subprocess
import unittest

import harness
from harness import SLOW, code_of
import carcd  # noqa: E402  (harness puts contrib/python on the path)
from test_subscribe_state import Watching, daemon, played
from test_websocket import start_ws_daemon

EVERY_SET = harness.EVERY_SET
WAIT = 10.0 * SLOW
BOT = os.path.join(harness.TOP_SRCDIR, "contrib", "bots", "random_bot.py")


def setUpModule():
    daemon["d"] = start_ws_daemon()


def tearDownModule():
    harness.stop_checked(daemon.pop("d"))


class Moves(Watching):
    def test_hello_lists_the_extras(self):
        for encoding in ("msgpack", "json"):
            extras = self.client(encoding).hello()["extras"]
            self.assertIn("subscribe.moves", extras)
            self.assertIn("subscribe.features", extras)

    def test_every_move_carries_the_moves_due_in_every_encoding(self):
        """Random games with every set and 2 to 4 seats: after each move the
        `moves` watchers (MessagePack, JSON lines, WebSocket; one with
        `features`, one with `state` as well) hear the decision due and
        exactly what legal_moves lists for it; a `decision` watcher on the
        same game hears that form without them."""
        rng = harness.new_rng(self.id())
        for seed, players in ((31, ["ann", "bob"]), (32, ["ann", "bob", "cy", "di"])):
            mover = self.client()
            g = mover.new_game(players, expansions=EVERY_SET, seed=seed, auth=False)["game"]
            told, listed, featured, both, over_ws = (self.client(), self.client("msgpack"), self.client("json"),
                                                     self.client("json"), self.ws())
            self.assertEqual(told.call("subscribe", game=g, decision=True), {"seq": 0})
            self.assertEqual(listed.call("subscribe", game=g, moves=True), {"seq": 0})
            self.assertEqual(featured.call("subscribe", game=g, moves=True, features=True, decision=False),
                             {"seq": 0})
            self.assertEqual(both.call("subscribe", game=g, moves=True, state=True), {"seq": 0})
            self.assertEqual(over_ws.call("subscribe", game=g, moves=True, features=True), {"seq": 0})
            moves = kinds = 0
            seen = set()
            for r in played(mover, g, rng):
                moves += 1
                now, rich = mover.legal_moves(g), mover.legal_moves(g, features=True)
                self.assertEqual(now["seq"], r["seq"])
                decided = {"game": g, "seq": r["seq"], "events": r["events"], "phase": r["phase"],
                           "seat": r["seat"], "over": r["over"]}
                self.assertEqual(told.next_event(timeout=WAIT), decided)
                self.assertEqual(listed.next_event(timeout=WAIT), dict(decided, moves=now["moves"]))
                self.assertEqual(featured.next_event(timeout=WAIT), dict(decided, moves=rich["moves"]))
                self.assertEqual(over_ws.next_event(timeout=WAIT), dict(decided, moves=rich["moves"]))
                self.assertEqual(both.next_event(timeout=WAIT),
                                 dict(decided, moves=now["moves"], state=mover.state(g)))
                seen.add(r["phase"])
                kinds = max(kinds, len(now["moves"]))
            self.assertTrue(r["over"])
            self.assertEqual(now["moves"], [])   # the last notification: the game is over, no move is due
            self.assertGreater(moves, 100)
            self.assertGreater(kinds, 10)
            self.assertGreaterEqual(len(seen), 3, seen)   # decisions of several kinds came
            for w in (told, listed, featured, both, over_ws):
                self.assertIsNone(w.next_event(timeout=0.2))   # one notification a move, no more
            self.assertEqual(self.watchers_of(g), 5)

    def test_a_bot_plays_a_game_from_notifications_alone(self):
        """Two seats with tokens, each on its own connection: after one
        legal_moves at the start, every decision comes from a notification,
        and the game plays to its end with one apply_move a decision."""
        rng = harness.new_rng(self.id())
        made = self.client().new_game(["ann", "bob"], expansions=EVERY_SET, seed=5)
        g = made["game"]
        seats = [self.client(), self.client("json")]
        for c in seats:
            self.assertEqual(c.call("subscribe", game=g, moves=True), {"seq": 0})
        due = seats[0].legal_moves(g)
        requests, applied = 0, 0
        while due["phase"] != "over":
            who = due["seat"]
            seats[who].apply_move(g, rng.choice(due["moves"]), token=made["seats"][who]["token"], seq=due["seq"])
            requests += 1
            applied += 1
            notes = [c.next_event(timeout=WAIT) for c in seats]
            self.assertEqual(notes[0], notes[1])
            self.assertEqual(notes[0]["seq"], due["seq"] + 1)
            due = notes[0]
        self.assertEqual(due["phase"], "over")
        self.assertEqual(due["moves"], [])
        self.assertEqual(requests, applied)
        self.assertEqual(self.client().state(g)["seq"], applied)
        self.assertTrue(self.client().score(g)["final"])

    def test_subscribing_again_sets_the_form_anew(self):
        mover, w = self.client(), self.client()
        g = mover.new_game(["ann", "bob"], seed=3, auth=False)["game"]
        dec = {"game", "seq", "events", "phase", "seat", "over"}
        steps = [({"moves": True}, dec | {"moves"}),
                 ({}, {"game", "seq", "events"}),                  # without: off
                 ({"moves": True, "features": True, "state": True}, dec | {"moves", "state"}),
                 ({"state": True}, dec | {"state"}),
                 ({"decision": True, "moves": False}, dec),
                 ({"moves": True, "features": False}, dec | {"moves"}),
                 ({"moves": True, "features": True}, dec | {"moves"})]
        for params, keys in steps:
            with self.subTest(params=params):
                seq = mover.state(g)["seq"]
                self.assertEqual(w.call("subscribe", game=g, **params), {"seq": seq})
                mover.apply_move(g, mover.legal_moves(g)["moves"][0])
                n = w.next_event(timeout=WAIT)
                self.assertEqual(set(n), keys)
                if "moves" in n:
                    self.assertEqual(n["moves"], mover.legal_moves(g, features=params.get("features", False))["moves"])
        self.assertEqual(self.watchers_of(g), 1)

    def test_bad_params_are_refused_and_change_nothing(self):
        w = self.client()
        g = w.new_game(["ann"], seed=3, auth=False)["game"]
        bads = [{"moves": v} for v in ("yes", 1, 0, [True], {"on": True})]
        bads += [{"moves": True, "features": v} for v in ("yes", 1, [True])]
        bads += [{"features": True}, {"features": True, "moves": False}, {"features": True, "state": True}]
        for params in bads:
            with self.subTest(params=params):
                self.assertEqual(code_of(w.call, "subscribe", game=g, **params), "invalid_params")
        self.assertEqual(self.watchers_of(g), 0)
        # `features` alone is refused before the game is looked for, as a wrong type is
        self.assertEqual(code_of(w.call, "subscribe", game=987654321, features=True), "invalid_params")
        self.assertEqual(code_of(w.call, "subscribe", game=987654321, moves=True), "no_such_game")
        # a refused subscribe leaves the form a watcher has as it was
        self.assertEqual(w.call("subscribe", game=g, moves=True), {"seq": 0})
        self.assertEqual(code_of(w.call, "subscribe", game=g, features=True), "invalid_params")
        w.apply_move(g, w.legal_moves(g)["moves"][0])
        n = w.next_event(timeout=WAIT)
        self.assertEqual(n["moves"], w.legal_moves(g)["moves"])
        self.assertNotIn("state", n)

    def test_a_closed_game_has_no_moves(self):
        w, stated = self.client("json"), self.client()
        mover, made, st = self.game_at_3()
        g = made["game"]
        self.assertTrue(mover.legal_moves(g)["moves"])
        self.assertEqual(w.call("subscribe", game=g, moves=True, features=True), {"seq": 3})
        self.assertEqual(stated.call("subscribe", game=g, moves=True, state=True), {"seq": 3})
        mover.close_game(g, made["admin_token"])
        closed = {"game": g, "seq": 3, "events": [{"type": "game_closed"}], "phase": st["phase"],
                  "seat": st["seat"], "over": False, "moves": []}
        self.assertEqual(w.next_event(timeout=WAIT), closed)
        self.assertEqual(stated.next_event(timeout=WAIT), dict(closed, state=st))

    def test_the_mover_hears_its_reply_first(self):
        made, _, note = self.mover_watching({"moves": True})
        self.assertEqual(set(note), {"game", "seq", "events", "phase", "seat", "over", "moves"})
        self.assertEqual(note["moves"], self.client().legal_moves(made["game"])["moves"])

class Clients(Watching):
    def test_the_python_client_asks_for_them(self):
        _, _, n = self.python_client_watching({"moves": True, "features": True}, "moves")
        self.assertTrue(any("feature" in m for m in n["moves"]), n["moves"])

    def test_carcctl_watch_moves(self):
        mover = self.client()
        g = mover.new_game(["ann", "bob"], seed=9, auth=False)["game"]
        for flags, features in ((["--moves"], False), (["--features"], True), (["-m", "--features"], True)):
            with self.subTest(flags=flags):
                lines, listed = self.carcctl_watching(
                    flags, lambda mover, g: mover.legal_moves(g, features=features)["moves"], mover, g)
                self.assertEqual([line["moves"] for line in lines], listed)

    def hello_without_moves(self):
        """hello's result as a carcd without subscribe's moves would give it."""
        h = self.client().hello()
        return dict(h, extras=[e for e in h["extras"] if e != "subscribe.moves"])

    def player_game(self, features=False, hello=None, players=("ann", "bob")):
        """A game of every set played to its end by carcd.Player, seat by
        seat with the last move listed; returns its history, the decisions
        the chooser saw, what on_move saw and the Player."""
        made = self.client().new_game(list(players), expansions=EVERY_SET, seed=6)
        tokens = {s["seat"]: s["token"] for s in made["seats"]}
        seen, told = [], []

        def choose(due):
            seen.append(due)
            return due["moves"][-1]
        c = self.client("json")
        player = carcd.Player(c, made["game"], tokens, choose, features=features,
                              on_move=lambda due, move: told.append((due, move)), hello=hello)
        score = player.play(timeout=60 * SLOW)
        self.assertTrue(score["final"])
        history = c.history(made["game"])
        return history, seen, told, player

    def test_the_python_player_plays_a_chooser(self):
        """carcd.Player: the chooser gets each decision of the seats it
        holds tokens for, with its moves as legal_moves lists them, and its
        moves are played in order, each told to on_move."""
        history, seen, told, player = self.player_game(features=True)
        self.assertTrue(player.notified)
        played = history["moves"]
        self.assertEqual(len(played), len(seen))
        self.assertEqual(player.moves_played, len(seen))
        self.assertEqual(told, [(due, due["moves"][-1]) for due in seen])
        for i, (due, m) in enumerate(zip(seen, played)):
            self.assertEqual((due["seq"], due["seat"]), (i, m["seat"]))
            self.assertEqual({k: v for k, v in due["moves"][-1].items() if k not in ("feature", "ports")}, m["move"])
        self.assertTrue(any("feature" in m for due in seen for m in due["moves"]))   # the features form

    def test_the_python_player_without_the_extra(self):
        """Against a carcd without `subscribe`'s moves (its hello here
        without them) Player asks legal_moves after each move, and plays the
        same game: the same moves, chosen alike."""
        before = self.requests()
        history, seen, _, player = self.player_game(hello=self.hello_without_moves())
        spent = self.requests() - before - 1
        self.assertFalse(player.notified)
        self.assertGreaterEqual(spent, 2 * len(seen))
        again, _, _, _ = self.player_game()
        self.assertEqual([m["move"] for m in again["moves"]], [m["move"] for m in history["moves"]])

    def test_the_python_player_leaves_other_games_to_the_client(self):
        """A Player's client that watches another game too: each move of
        the Player's game is followed by one in the other, whose
        notifications (with moves too) are never taken for the Player's
        decisions and stay queued for the caller, in order."""
        for hello in (self.client().hello(), self.hello_without_moves()):
            with self.subTest(extras=hello["extras"]):
                adm = self.client()
                other = adm.new_game(["x", "y"], seed=11, auth=False)["game"]
                g = adm.new_game(["a", "b"], seed=11, auth=False)["game"]
                c = self.client()
                c.subscribe(other, moves=True)
                seen = []

                def choose(due):
                    seen.append(due)
                    return due["moves"][0]

                def meanwhile(due, move):   # the other game moves as often, on the same moves
                    lm = adm.legal_moves(other)
                    if lm["phase"] != "over":
                        adm.apply_move(other, lm["moves"][0], seq=lm["seq"])
                score = carcd.Player(c, g, {carcd.ALL_SEATS: None}, choose, on_move=meanwhile, hello=hello).play(
                    timeout=30 * SLOW)
                self.assertTrue(score["final"])
                self.assertEqual({due["game"] for due in seen}, {g})
                self.assertEqual([due["seq"] for due in seen], list(range(len(seen))))
                played = adm.state(other)["seq"]
                self.assertGreater(played, 50)
                c.ping()   # its reply comes after every notification of a move made before it
                queued = [n for n in c.events if n["game"] == other]
                self.assertEqual([n["seq"] for n in queued], list(range(1, played + 1)))

    def test_a_move_the_daemon_refuses_raises(self):
        made = self.client().new_game(["ann"], seed=6)
        c = self.client()
        player = carcd.Player(c, made["game"], {0: made["seats"][0]["token"]}, lambda due: {"type": "pass"})
        with self.assertRaises(carcd.Error) as cm:
            player.play(timeout=10)
        self.assertEqual(cm.exception.code, "illegal_move")
        self.assertEqual(c.state(made["game"])["seq"], 0)

    def requests(self):
        return self.client().call("stats")["requests"]

    def test_random_bot_makes_one_request_a_decision(self):
        """random_bot.py on a daemon with `moves`: a whole game of every set
        costs it about one request a move, where one legal_moves after each
        move would double that."""
        before = self.requests()
        p = subprocess.run([harness.PYTHON, BOT, "--address", daemon["d"].unix_address, "--players", "3",
                            "--expansions", ",".join(EVERY_SET), "--seed", "12", "--rng", "4"],
                           capture_output=True, text=True, timeout=120 * SLOW)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout)
        self.assertTrue(out["final"])
        spent = self.requests() - before - 1   # the stats call of before is counted once it is answered
        played = out["moves_played"]
        self.assertGreater(played, 150)
        # new_game, hello, subscribe, one legal_moves, score: five beyond the moves
        self.assertEqual(spent, played + 5, (spent, played))


if __name__ == "__main__":
    unittest.main()

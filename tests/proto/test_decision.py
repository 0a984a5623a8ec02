"""subscribe's `decision` (proto/PROTOCOL.md, subscribe): a watcher that
asks for it gets each notification with the phase, seat and over of the
game after the move, as the mover's apply_move reply has them, so that a
UI following a game from notifications alone knows whose decision is due,
also within a turn (a wagon, an escape, a flock) and after a `pass` that
brings no event.  Without it a notification is the contract's
{game, seq, events}, whoever else watches the same game."""

import json
import unittest

import harness
from harness import SLOW, code_of
from test_contrib import CARCCTL_CMD, finish, start

daemon, setUpModule, tearDownModule = harness.module_daemon()

EVERY_SET = harness.EVERY_SET
WAIT = 10.0 * SLOW


class Decision(unittest.TestCase):
    def setUp(self):
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()

    def client(self, encoding="msgpack"):
        c = daemon["d"].client(encoding=encoding)
        self.clients.append(c)
        return c

    def test_watchers_of_each_form_in_both_encodings(self):
        """Whole games with every set: the `decision` watchers (MessagePack
        and JSON lines) hear each move with the mover's phase, seat and over,
        which are those legal_moves gives next; the plain ones hear exactly
        {game, seq, events}.  Decisions within a turn came up, so they were
        followed too."""
        rng = harness.new_rng(self.id())
        phases = set()
        for seed in (11, 12, 13):
            mover = self.client()
            plain = [self.client("msgpack"), self.client("json")]
            told = [self.client("msgpack"), self.client("json")]
            g = mover.new_game(["ann", "bob", "cy"], expansions=EVERY_SET, seed=seed, auth=False)["game"]
            for w in plain:
                self.assertEqual(w.subscribe(g), {"seq": 0})
            for w in told:
                self.assertEqual(w.call("subscribe", game=g, decision=True), {"seq": 0})
            while True:
                lm = mover.legal_moves(g)
                if lm["phase"] == "over":
                    break
                r = mover.apply_move(g, rng.choice(lm["moves"]))
                phases.add(r["phase"])
                for w in plain:
                    n = w.next_event(timeout=WAIT)
                    self.assertEqual(n, {"game": g, "seq": r["seq"], "events": r["events"]})
                due = mover.legal_moves(g)
                for w in told:
                    n = w.next_event(timeout=WAIT)
                    self.assertEqual(n, {"game": g, "seq": r["seq"], "events": r["events"],
                                         "phase": r["phase"], "seat": r["seat"], "over": r["over"]})
                    self.assertEqual((n["phase"], n["seat"]), (due["phase"], due["seat"]))
            self.assertTrue(r["over"])
        self.assertTrue(phases & {"wagon", "escape", "flock"}, phases)

    def test_subscribing_again_changes_the_form(self):
        mover, w = self.client(), self.client()
        g = mover.new_game(["ann", "bob"], seed=3, auth=False)["game"]
        self.assertEqual(w.call("subscribe", game=g, decision=True), {"seq": 0})
        r = mover.apply_move(g, mover.legal_moves(g)["moves"][0])
        self.assertEqual(set(w.next_event(timeout=WAIT)), {"game", "seq", "events", "phase", "seat", "over"})
        self.assertEqual(w.subscribe(g), {"seq": r["seq"]})   # again, without: the contract's form
        mover.apply_move(g, {"type": "pass"})
        self.assertEqual(set(w.next_event(timeout=WAIT)), {"game", "seq", "events"})
        self.assertEqual(w.call("subscribe", game=g, decision=False), {"seq": r["seq"] + 1})
        self.assertEqual(self.client().call("games", after=g - 1, limit=1)["games"][0]["watchers"], 1)

    def test_each_watcher_keeps_its_form_as_others_come_and_go(self):
        """Watchers of both forms, in an order that mixes them; one after
        another leaves, by unsubscribe or by closing its connection, from
        the front, the middle and the back of the game's list: after each,
        every watcher left still hears its own form."""
        mover = self.client()
        g = mover.new_game(["ann", "bob"], seed=5, auth=False)["game"]
        forms = [True, False, False, True, True, False]
        watchers = []
        for wants in forms:
            w = self.client()
            self.assertEqual(w.call("subscribe", game=g, decision=True) if wants else w.subscribe(g), {"seq": 0})
            watchers.append([w, wants])
        for leave in (0, 2, -1, 1):    # positions in the list as it stands
            w, _ = watchers.pop(leave)
            if leave % 2:
                w.close()
            else:
                w.unsubscribe(g)
            lm = mover.legal_moves(g)
            r = mover.apply_move(g, lm["moves"][0])
            plain = {"game": g, "seq": r["seq"], "events": r["events"]}
            for w, wants in watchers:
                want = dict(plain, phase=r["phase"], seat=r["seat"], over=r["over"]) if wants else plain
                self.assertEqual(w.next_event(timeout=WAIT), want)
        self.assertEqual(self.client().call("games", after=g - 1, limit=1)["games"][0]["watchers"], 2)

    def test_a_decision_that_is_no_boolean_is_refused(self):
        w = self.client()
        g = w.new_game(["ann"], seed=3, auth=False)["game"]
        for bad in ("yes", 1, [True], {"on": True}):
            with self.subTest(decision=bad):
                self.assertEqual(code_of(w.call, "subscribe", game=g, decision=bad), "invalid_params")
        self.assertEqual(self.client().call("games", after=g - 1, limit=1)["games"][0]["watchers"], 0)

    def test_a_closed_game_tells_how_it_stood(self):
        mover, w = self.client(), self.client()
        made = mover.new_game(["ann", "bob"], seed=3, auth=False)
        g = made["game"]
        w.call("subscribe", game=g, decision=True)
        mover.close_game(g, made["admin_token"])
        n = w.next_event(timeout=WAIT)
        self.assertEqual(n, {"game": g, "seq": 0, "events": [{"type": "game_closed"}],
                             "phase": "tile", "seat": 0, "over": False})

    def test_carcctl_watch_decision(self):
        """`carcctl watch --decision` (and the Python client's
        subscribe(decision=True)) prints the notifications with it; without
        the option, the contract's form."""
        mover = self.client()
        g = mover.new_game(["solo"], auth=False, tiles=["BA/L", "BA/C", "BA/RFr"], seed=2)["game"]
        sock = daemon["d"].unix_path
        told = start(CARCCTL_CMD + ["--socket", sock, "watch", str(g), "--decision"])
        plain = start(CARCCTL_CMD + ["--socket", sock, "--json-lines", "watch", str(g)])
        try:
            for w in (told, plain):
                self.assertEqual(json.loads(w.stdout.readline()), {"game": g, "seq": 0})
            results = harness.play_out(mover, g)
            outs = [finish(w, 20) for w in (told, plain)]
        finally:
            for w in (told, plain):
                finish(w, 5)
        for w, (_, err) in zip((told, plain), outs):
            self.assertEqual((w.returncode, err), (0, ""))
        notes = [[json.loads(line) for line in out.splitlines()] for out, _ in outs]
        self.assertEqual(notes[0], [dict(r, game=g) for r in results])
        self.assertEqual(notes[1], [{"game": g, "seq": r["seq"], "events": r["events"]} for r in results])
        self.assertEqual(notes[0][-1]["phase"], "over")


class Timeout(unittest.TestCase):
    def test_a_game_closed_for_want_of_moves_tells_how_it_stood(self):
        """--game-timeout closes a game as close_game does: its `decision`
        watcher hears game_closed with the phase, seat and over, its plain
        one without."""
        # 3 s: time for both to subscribe first on a loaded machine (or under valgrind)
        with harness.Daemon("--game-timeout", "3", tcp=False) as d, d.client() as mover, \
                d.client() as told, d.client() as plain:
            g = mover.new_game(["ann", "bob"], seed=3, auth=False)["game"]
            told.call("subscribe", game=g, decision=True)
            plain.subscribe(g)
            closed = {"game": g, "seq": 0, "events": [{"type": "game_closed"}]}
            self.assertEqual(plain.next_event(timeout=WAIT + 5), closed)
            self.assertEqual(told.next_event(timeout=WAIT + 5), dict(closed, phase="tile", seat=0, over=False))


if __name__ == "__main__":
    unittest.main()

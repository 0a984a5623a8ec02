"""subscribe's `state` (proto/PROTOCOL.md, subscribe): a watcher that asks
for it gets each notification in the `decision` form with `state` beside,
the very object `state` returns for the game at that seq, so that a UI
follows a game from notifications alone, without a `state` call per move.
Watchers of the three forms on one game each get their own, in MessagePack,
JSON lines and over WebSocket; subscribing again sets the form anew; a
game_closed notification carries the state the game was closed in; a
`state` that is no boolean is refused as a `decision` that is none is; and
hello lists the extra."""

import collections
import json
import unittest

import harness
from harness import SLOW, code_of
from test_websocket import OP_BIN, OP_CLOSE, OP_TEXT, WSRaw, start_ws_daemon

EVERY_SET = harness.EVERY_SET
WAIT = 10.0 * SLOW

daemon = {}


def setUpModule():
    daemon["d"] = start_ws_daemon()


def tearDownModule():
    harness.stop_checked(daemon.pop("d"))


def played(mover, g, rng):
    """Plays game g to its end with random legal moves, yielding the
    apply_move result of each."""
    while True:
        lm = mover.legal_moves(g)
        if lm["phase"] == "over":
            return
        yield mover.apply_move(g, rng.choice(lm["moves"]))


class WSClient:
    """Just enough of a client over WebSocket (JSON text messages) to
    subscribe and read notifications."""

    def __init__(self, testcase, port):
        self.tc = testcase
        self.w = WSRaw(port, timeout=WAIT).upgrade(testcase)
        self.events = collections.deque()
        self.msgid = 0

    def close(self):
        self.w.close()

    def _read(self, timeout, none_ok=False):
        m = self.w.read_message(timeout)
        if m is None and none_ok:
            return None
        self.tc.assertIsNotNone(m, "nothing from the daemon over WebSocket")
        self.tc.assertNotIn(m[0], (OP_CLOSE, OP_BIN), m)
        self.tc.assertEqual(m[0], OP_TEXT, m)
        return json.loads(m[1].decode("utf-8"))

    def call(self, method, **params):
        self.msgid += 1
        self.w.send_text(json.dumps([0, self.msgid, method, params]).encode())
        while True:
            msg = self._read(WAIT)
            if msg[0] == 2:
                self.events.append(msg[2])
                continue
            self.tc.assertEqual(msg[:3], [1, self.msgid, None], msg)
            return msg[3]

    def next_event(self, timeout=WAIT):
        if self.events:
            return self.events.popleft()
        msg = self._read(timeout, none_ok=True)
        if msg is None:
            return None
        self.tc.assertEqual(msg[:2], [2, "event"], msg)
        return msg[2]


class Watching(unittest.TestCase):
    """What the test cases share: clients of the module's daemon, closed after."""

    def setUp(self):
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()
        self.assertTrue(daemon["d"].alive(), "carcd died:\n" + daemon["d"].log_tail())

    def client(self, encoding="msgpack"):
        c = daemon["d"].client(encoding=encoding)
        self.clients.append(c)
        return c

    def ws(self):
        c = WSClient(self, daemon["d"].ws_port)
        self.clients.append(c)
        return c

    def watchers_of(self, g):
        return self.client().call("games", after=g - 1, limit=1)["games"][0]["watchers"]

    def python_client_watching(self, form, key):
        """The Python client subscribed with `form` (subscribe()'s keyword
        arguments) hears a move with `key` in its notification, as the
        mover's `state` or legal_moves (features as the form asks) have it;
        subscribed again with decision=True alone, the next without it.
        Returns the mover, the game and the first notification."""
        mover, w = self.client(), self.client("json")
        g = mover.new_game(["ann", "bob"], seed=8, auth=False)["game"]
        w.subscribe(g, **form)
        mover.apply_move(g, mover.legal_moves(g)["moves"][0])
        n = w.next_event(timeout=WAIT)
        now = mover.state(g) if key == "state" else mover.legal_moves(g, features=form.get("features", False))[key]
        self.assertEqual(n[key], now)
        w.subscribe(g, decision=True)        # asked again without it: off
        mover.apply_move(g, mover.legal_moves(g)["moves"][0])
        self.assertNotIn(key, w.next_event(timeout=WAIT))
        return mover, g, n

    def carcctl_watching(self, flags, seen, mover=None, g=None):
        """`carcctl watch G --count 2` with `flags` while two moves are
        played: its two notification lines, parsed, and seen(mover, g)
        after each move (a new game unless mover and g are given)."""
        from test_contrib import CARCCTL_CMD, finish, start
        if mover is None:
            mover = self.client()
            g = mover.new_game(["ann", "bob"], seed=9, auth=False)["game"]
        seq = mover.state(g)["seq"]
        watcher = start(CARCCTL_CMD + ["--socket", daemon["d"].unix_path, "watch", str(g), "--count", "2"] + flags)
        try:
            self.assertEqual(json.loads(watcher.stdout.readline()), {"game": g, "seq": seq})
            after = []
            for _ in range(2):
                mover.apply_move(g, mover.legal_moves(g)["moves"][-1])
                after.append(seen(mover, g))
            out, err = finish(watcher)
        finally:
            if watcher.poll() is None:
                watcher.kill()
                watcher.communicate()
        self.assertEqual(watcher.returncode, 0, err)
        return [json.loads(line) for line in out.splitlines()], after

    def game_at_3(self):
        """A two-seat game with the abbey, three moves in: the mover, the
        new_game result and the state."""
        mover = self.client()
        made = mover.new_game(["ann", "bob"], expansions=["base", "abbey-mayor"], seed=3, auth=False)
        for _ in range(3):
            mover.apply_move(made["game"], mover.legal_moves(made["game"])["moves"][-1])
        return mover, made, mover.state(made["game"])

    def mover_watching(self, form):
        """A one-seat game whose mover watches it with `form` (subscribe's
        params beyond `game`) and plays a move, in JSON lines on a bare
        socket, so that the order is what came over the wire: the reply
        must come first, then the notification.  Returns the game's new_game
        result, the reply's result and the notification's params, which
        must hold the reply's events and decision."""
        made = self.client().new_game(["ann"], seed=4, auth=False)
        g = made["game"]
        with daemon["d"].raw() as raw:
            raw.send_line(json.dumps([0, 1, "subscribe", dict(form, game=g)]))
            self.assertEqual(raw.read_one("json"), [1, 1, None, {"seq": 0}])
            lm = self.client().legal_moves(g)
            raw.send_line(json.dumps([0, 2, "apply_move", {"game": g, "move": lm["moves"][0]}]))
            got = raw.read("json", 2)
        self.assertEqual(len(got), 2, got)
        reply, note = got
        self.assertEqual(reply[:3], [1, 2, None])
        self.assertEqual(note[:2], [2, "event"])
        r = reply[3]
        self.assertEqual({k: note[2][k] for k in ("game", "seq", "events", "phase", "seat", "over")},
                         {"game": g, "seq": 1, "events": r["events"], "phase": r["phase"], "seat": r["seat"],
                          "over": r["over"]})
        return made, r, note[2]


class State(Watching):
    def test_hello_lists_the_extra(self):
        self.assertIn("subscribe.state", self.client().hello()["extras"])
        self.assertIn("subscribe.state", self.client("json").hello()["extras"])

    def test_every_move_carries_the_state_in_every_encoding(self):
        """Random games with every set: after each move the `state`
        watchers (MessagePack, JSON lines, WebSocket; one of them asked for
        `decision: false` too) hear the mover's events, phase, seat and over
        with the state that `state` returns right after; on the same game a
        `decision` watcher hears that form without the state, and a plain
        one the contract's form."""
        rng = harness.new_rng(self.id())
        for seed in (21, 22):
            mover = self.client()
            g = mover.new_game(["ann", "bob", "cy"], expansions=EVERY_SET, seed=seed, auth=False)["game"]
            plain, told = self.client("json"), self.client()
            stated = [self.client("msgpack"), self.client("json"), self.ws()]
            self.assertEqual(plain.call("subscribe", game=g), {"seq": 0})
            self.assertEqual(told.call("subscribe", game=g, decision=True), {"seq": 0})
            self.assertEqual(stated[0].call("subscribe", game=g, state=True), {"seq": 0})
            self.assertEqual(stated[1].call("subscribe", game=g, state=True, decision=False), {"seq": 0})
            self.assertEqual(stated[2].call("subscribe", game=g, state=True), {"seq": 0})
            moves = 0
            for r in played(mover, g, rng):
                moves += 1
                st = mover.state(g)
                self.assertEqual(st["seq"], r["seq"])
                base = {"game": g, "seq": r["seq"], "events": r["events"]}
                decided = dict(base, phase=r["phase"], seat=r["seat"], over=r["over"])
                self.assertEqual(plain.next_event(timeout=WAIT), base)
                self.assertEqual(told.next_event(timeout=WAIT), decided)
                for w in stated:
                    self.assertEqual(w.next_event(timeout=WAIT), dict(decided, state=st))
            self.assertTrue(r["over"])
            self.assertTrue(st["over"])
            self.assertIn("seed", st)   # the end shows the seed, in the notification too
            self.assertGreater(moves, 50)
            for w in [plain, told] + stated:
                self.assertIsNone(w.next_event(timeout=0.2))   # one notification a move, no more
            self.assertEqual(self.watchers_of(g), 5)

    def test_the_mover_hears_its_reply_first(self):
        """A mover that watches with `state` gets its reply, then the
        notification with the state."""
        made, _, note = self.mover_watching({"state": True})
        st = self.client().state(made["game"])
        self.assertEqual(set(note), {"game", "seq", "events", "phase", "seat", "over", "state"})
        self.assertEqual(note["state"], st)
        self.assertNotEqual(st, made["state"])

    def test_subscribing_again_sets_the_form_anew(self):
        mover, w = self.client(), self.client()
        g = mover.new_game(["ann", "bob"], seed=3, auth=False)["game"]
        full = {"game", "seq", "events", "phase", "seat", "over", "state"}
        steps = [({"state": True}, full),
                 ({}, {"game", "seq", "events"}),                        # without: off
                 ({"decision": True}, {"game", "seq", "events", "phase", "seat", "over"}),
                 ({"decision": True, "state": True}, full),
                 ({"decision": True, "state": False}, {"game", "seq", "events", "phase", "seat", "over"}),
                 ({"state": True}, full)]
        for params, keys in steps:
            with self.subTest(params=params):
                seq = mover.state(g)["seq"]
                self.assertEqual(w.call("subscribe", game=g, **params), {"seq": seq})
                lm = mover.legal_moves(g)
                mover.apply_move(g, lm["moves"][0])
                n = w.next_event(timeout=WAIT)
                self.assertEqual(set(n), keys)
                if "state" in n:
                    self.assertEqual(n["state"], mover.state(g))
        self.assertEqual(self.watchers_of(g), 1)
        self.assertEqual(w.unsubscribe(g), {"seq": len(steps)})
        mover.apply_move(g, mover.legal_moves(g)["moves"][0])
        self.assertIsNone(w.next_event(timeout=0.3))

    def test_a_state_that_is_no_boolean_is_refused(self):
        w = self.client()
        g = w.new_game(["ann"], seed=3, auth=False)["game"]
        for bad in ("yes", 1, 0, [True], {"on": True}):
            with self.subTest(state=bad):
                self.assertEqual(code_of(w.call, "subscribe", game=g, state=bad), "invalid_params")
                self.assertEqual(code_of(w.call, "subscribe", game=g, decision=True, state=bad), "invalid_params")
        self.assertEqual(self.watchers_of(g), 0)
        # a refused subscribe leaves the form a watcher has as it was
        self.assertEqual(w.call("subscribe", game=g, state=True), {"seq": 0})
        self.assertEqual(code_of(w.call, "subscribe", game=g, state="no"), "invalid_params")
        w.apply_move(g, w.legal_moves(g)["moves"][0])
        self.assertIn("state", w.next_event(timeout=WAIT))

    def test_a_closed_game_tells_its_state(self):
        w, plain = self.client("json"), self.client()
        mover, made, st = self.game_at_3()
        g = made["game"]
        self.assertEqual(w.call("subscribe", game=g, state=True), {"seq": 3})
        plain.subscribe(g)
        mover.close_game(g, made["admin_token"])
        closed = {"game": g, "seq": 3, "events": [{"type": "game_closed"}]}
        self.assertEqual(plain.next_event(timeout=WAIT), closed)
        self.assertEqual(w.next_event(timeout=WAIT),
                         dict(closed, phase=st["phase"], seat=st["seat"], over=False, state=st))
        self.assertEqual(code_of(mover.state, g), "no_such_game")


class Clients(Watching):
    """The Python client's subscribe(state=True) and `carcctl watch --state`."""

    def test_the_python_client_asks_for_it(self):
        _, _, n = self.python_client_watching({"state": True}, "state")
        self.assertEqual((n["phase"], n["seat"], n["over"]), ("action", 0, False))

    def test_carcctl_watch_state(self):
        lines, states = self.carcctl_watching(["--state"], lambda mover, g: mover.state(g))
        self.assertEqual([line["state"] for line in lines], states)

class Timeout(unittest.TestCase):
    def test_a_game_closed_for_want_of_moves_tells_its_state(self):
        """--game-timeout closes a game as close_game does: its `state`
        watcher hears game_closed with the state, its plain one without."""
        with harness.Daemon("--game-timeout", "3", tcp=False) as d, d.client() as mover, \
                d.client() as stated, d.client() as plain:
            g = mover.new_game(["ann", "bob"], seed=3, auth=False)["game"]
            st = mover.state(g)
            stated.call("subscribe", game=g, state=True)
            plain.subscribe(g)
            closed = {"game": g, "seq": 0, "events": [{"type": "game_closed"}]}
            self.assertEqual(plain.next_event(timeout=WAIT + 5), closed)
            self.assertEqual(stated.next_event(timeout=WAIT + 5),
                             dict(closed, phase="tile", seat=0, over=False, state=st))


if __name__ == "__main__":
    unittest.main()

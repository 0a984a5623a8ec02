"""test_audit_subs.py - an audit of subscriptions and notifications against
proto/PROTOCOL.md (sections 1, 4 `subscribe, unsubscribe`, `close_game`,
5 "Full registry") and the contract (../shared/design/PROTOCOL.md sections
2, 4, 4.2 and 6), over both encodings.

What the other modules already check is not repeated here (test_contract:
pipelined subscribe in JSON, subscribing twice, `watchers`; test_expansions:
one watcher of every-set games; test_audit_daemon: the 1024 limit, idle,
disconnecting watchers; test_audit_daemon2: many games on one connection;
test_malformed: eviction skips watched games).  Added: what a watcher hears
measured against `history` and `state` (seq grouping, nothing the state
hides), subscribe/unsubscribe while moves flow from another connection,
`subscribe` with a `seq` it does not know, unsubscribing a game one does
not watch, refused moves, the mover's own order in MessagePack, order
across two games and two movers, a close among several watched games, and
when a watched game becomes evictable again.

Every check waits with generous timeouts; none depends on how fast the
daemon is."""

import re
import threading
import time
import unittest

import harness
from harness import Daemon, SLOW, code_of, packb, wait_for

daemon, setUpModule, tearDownModule = harness.module_daemon()

ALL_EXPANSIONS = ["base", "river", "river2", "mini", "inns-cathedrals", "traders-builders",
                  "abbey-mayor", "king-robber", "cathars", "cult", "hills-sheep"]
WAIT = 10.0 * SLOW       # for a notification that must come
QUIET = 0.5 * SLOW       # for one that must not
HEX32 = re.compile(r"^[0-9a-f]{32}$")
SECRET_KEYS = {"seed", "salt", "bag", "admin_token", "supply", "order"}


def drain(client, timeout=QUIET):
    """Every notification that arrives until none came for `timeout`."""
    out = []
    while True:
        n = client.next_event(timeout=timeout)
        if n is None:
            return out
        out.append(n)


def collect(client, count, timeout=WAIT):
    out = []
    while len(out) < count:
        n = client.next_event(timeout=timeout)
        if n is None:
            break
        out.append(n)
    return out


def walk(obj):
    """Every (key, value) pair and bare value inside obj."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k, v
            yield from walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield None, v
            yield from walk(v)


def finish(c, game, name):
    harness.play_random_game(lambda lm, m: c.apply_move(game, m), lambda: c.legal_moves(game),
                             harness.new_rng(name))


def held(c):
    return [s["game"] for s in c.games()["games"]]


def watchers_of(c, game):
    return {s["game"]: s for s in c.games()["games"]}[game]["watchers"]


# ---- a whole every-set game, watched over both encodings ----------------------------------

class EverySetWatched(unittest.TestCase):
    """Three seats with their own tokens, every built expansion (hills, so
    tiles go face down), played over MessagePack; a MessagePack watcher, a
    JSON watcher and the player's own connection are subscribed.  The state
    is read after every move."""

    @classmethod
    def setUpClass(cls):
        d = daemon["d"]
        cls.c = d.client("unix", "msgpack")
        cls.wm = d.client("tcp", "msgpack")
        cls.wj = d.client("unix", "json")
        g = cls.c.new_game(["ann", "bob", "cy"], expansions=ALL_EXPANSIONS, seed=4242)
        cls.g, cls.game = g, g["game"]
        cls.tokens = [s["token"] for s in g["seats"]]
        cls.subs = [w.subscribe(cls.game)["seq"] for w in (cls.wm, cls.wj, cls.c)]
        rng = harness.new_rng("EverySetWatched")
        cls.record, cls.states = [], []
        for _ in range(4000):
            lm = cls.c.legal_moves(cls.game)
            if lm["phase"] == "over":
                break
            move = rng.choice(lm["moves"])
            res = cls.c.apply_move(cls.game, move, token=cls.tokens[lm["seat"]], seq=lm["seq"])
            cls.record.append((lm, move, res))
            cls.states.append(cls.c.state(cls.game))
        # refused moves after the end: no notification for them
        cls.over_codes = [code_of(cls.c.apply_move, cls.game, {"type": "pass"}, token=t) for t in cls.tokens]
        n = len(cls.record)
        cls.notes = {"msgpack": collect(cls.wm, n), "json": collect(cls.wj, n), "mover": collect(cls.c, n)}
        cls.late = {"msgpack": drain(cls.wm), "json": drain(cls.wj), "mover": drain(cls.c)}
        cls.history = cls.c.history(cls.game)

    @classmethod
    def tearDownClass(cls):
        for c in (cls.c, cls.wm, cls.wj):
            c.close()

    def test_game_ended(self):
        self.assertTrue(self.record)
        self.assertIs(self.record[-1][2]["over"], True)
        self.assertEqual(self.subs, [0, 0, 0])
        self.assertEqual(self.over_codes, ["game_over"] * 3)

    def test_each_watcher_gets_every_result_in_order_without_gaps(self):
        want = [{"game": self.game, "seq": res["seq"], "events": res["events"]} for _, _, res in self.record]
        self.assertEqual([w["seq"] for w in want], list(range(1, len(self.record) + 1)))
        for who, notes in self.notes.items():
            with self.subTest(watcher=who):
                self.assertEqual(len(notes), len(want))
                self.assertEqual(notes, want)
                self.assertEqual(self.late[who], [], "notifications after game_over / refused moves")
                self.assertEqual(notes[-1]["events"][-1]["type"], "game_over")

    def test_notifications_are_history_grouped_by_seq(self):
        """history's events carry the seq they belong to; the events of the
        notification with seq s are exactly history's events of seq s."""
        by_seq = {}
        for ev in self.history["events"]:
            ev = dict(ev)
            by_seq.setdefault(ev.pop("seq"), []).append(ev)
        self.assertEqual(set(by_seq) - {0} <= {n["seq"] for n in self.notes["msgpack"]}, True)
        for n in self.notes["msgpack"]:
            self.assertEqual(n["events"], by_seq.get(n["seq"], []), n["seq"])

    def test_nothing_secret_in_notifications(self):
        """No token, seed, salt, supply or bag; a hidden tile is only
        {type, x, y}; game_over holds only the scores."""
        secrets = set(self.tokens) | {self.g["admin_token"]}
        hidden = 0
        for n in self.notes["json"]:
            self.assertEqual(set(n), {"game", "seq", "events"})
            for k, v in walk(n):
                self.assertNotIn(k, SECRET_KEYS, (n["seq"], k))
                if k == "tiles":   # feature_completed's count, never a list of ids
                    self.assertIs(type(v), int, (n["seq"], v))
                if isinstance(v, str):
                    self.assertNotIn(v, secrets, n["seq"])
                    self.assertIsNone(HEX32.match(v), (n["seq"], v))
            for ev in n["events"]:
                if ev["type"] == "tile_hidden":
                    hidden += 1
                    self.assertEqual(set(ev), {"type", "x", "y"}, ev)
                if ev["type"] == "game_over":
                    self.assertEqual(set(ev), {"type", "scores"}, ev)
        self.assertGreater(hidden, 0, "no tile went under a hill in this game: the check is void")

    def test_hidden_tiles_never_drawn_in_view(self):
        """After the end `tiles` is the supply in order, hidden tiles in their
        places.  The tiles a watcher saw drawn (setup and notifications) are
        that list without exactly as many entries as there were tile_hidden
        events: a hidden tile's id never went out before the end."""
        supply = self.history["tiles"]
        seen = [e for e in self.history["events"] if e["seq"] == 0]
        for n in self.notes["msgpack"]:
            seen += n["events"]
        drawn = [e["tile"] for e in seen if e["type"] == "tile_drawn"]
        hidden = sum(1 for e in seen if e["type"] == "tile_hidden")
        self.assertEqual(len(drawn) + hidden, len(supply), (len(drawn), hidden, len(supply)))
        it = iter(supply)
        self.assertTrue(all(t in it for t in drawn), "the drawn tiles are not the supply in order")

    def test_a_drawn_tile_is_what_the_state_shows(self):
        """What a watcher learns of a draw is what `state` shows anyone: the
        last tile_drawn of a move is the state's tile, drawn_by its seat."""
        n = 0
        for (lm, move, res), st in zip(self.record, self.states):
            draws = [e for e in res["events"] if e["type"] == "tile_drawn"]
            if not draws:
                continue
            last = draws[-1]
            tail = res["events"][res["events"].index(last) + 1:]
            if any(e["type"] in ("tile_discarded", "game_over") for e in tail):
                continue
            n += 1
            self.assertEqual(st["tile"], {"id": last["tile"], "drawn_by": last["seat"]}, (res["seq"], res["events"]))
        self.assertGreater(n, 20)


# ---- subscribing while another connection plays ----------------------------------------------

class WhileMovesFlow(unittest.TestCase):
    """A player thread applies moves without pause; watchers subscribe and
    unsubscribe meanwhile.  Whatever the timing, a watcher hears exactly the
    moves after the seq `subscribe` answered up to the seq `unsubscribe`
    answered, each once, with the events of that move."""

    def test_windows_are_exact(self):
        d = daemon["d"]
        with d.client("unix", "msgpack") as c:
            games = [c.new_game(["ann", "bob"], seed=100 + i, auth=False)["game"] for i in range(3)]
        results = {}      # (game, seq) -> events
        current = [games[0]]   # the game the player is on
        done = threading.Event()
        errors = []

        def player():
            try:
                with d.client("tcp", "msgpack") as p:
                    for game in games:
                        current[0] = game
                        rng = harness.new_rng("flow%d" % game)
                        while not done.is_set():
                            lm = p.legal_moves(game)
                            if lm["phase"] == "over":
                                break
                            res = p.apply_move(game, rng.choice(lm["moves"]), seq=lm["seq"])
                            results[(game, res["seq"])] = res["events"]
                            time.sleep(0.002)
            except Exception as e:   # reported by the main thread
                errors.append(e)
            finally:
                done.set()

        windows = []
        t = threading.Thread(target=player)
        t.start()
        try:
            enc = ["msgpack", "json"]
            conns = [d.client("unix", enc[i % 2]) for i in range(4)]
            k, pause = 0, harness.new_rng("flow pauses")
            while not done.is_set() and k < 40:
                w = conns[k % len(conns)]
                game = current[0]
                sub = w.subscribe(game)["seq"]
                got, deadline = [], time.monotonic() + WAIT
                while len(got) < 3 and time.monotonic() < deadline:   # let a few moves pass
                    n = w.next_event(timeout=0.1)
                    if n is not None:
                        got.append(n)
                    elif done.is_set() or current[0] != game:
                        break
                time.sleep(pause.uniform(0, 0.01))   # moves may come between the last note and this
                unsub = w.unsubscribe(game)["seq"]
                w.ping()
                got += drain(w, 0)
                windows.append((w.encoding, game, sub, unsub, got))
                k += 1
            done.set()
            t.join(60)
            late = [(c.encoding, drain(c)) for c in conns]
            for c in conns:
                c.close()
        finally:
            done.set()
            t.join(60)
        self.assertEqual(errors, [])
        self.assertGreater(sum(1 for w in windows if w[4]), 5, "too few windows saw a move")
        self.assertEqual({w[0] for w in windows if w[4]}, {"msgpack", "json"})
        for enc, game, sub, unsub, got in windows:
            with self.subTest(encoding=enc, game=game, sub=sub, unsub=unsub):
                self.assertEqual([n["seq"] for n in got], list(range(sub + 1, unsub + 1)))
                for n in got:
                    self.assertEqual(n["game"], game)
                    self.assertEqual(n["events"], results[(game, n["seq"])])
        self.assertEqual([(e, n) for e, n in late if n], [], "notifications after unsubscribe")


# ---- parameters and odd calls ---------------------------------------------------------------

class Params(unittest.TestCase):
    def setUp(self):
        self.c = daemon["d"].client("unix", "msgpack")

    def tearDown(self):
        self.c.close()

    def play(self, game, n):
        out = []
        for _ in range(n):
            lm = self.c.legal_moves(game)
            out.append(self.c.apply_move(game, lm["moves"][0], seq=lm["seq"]))
        return out

    def test_subscribe_with_a_seq_replays_nothing(self):
        """`subscribe` takes only `game`; "Parameters the method does not
        know are ignored": a `seq` asks for no backlog."""
        for enc in ("msgpack", "json"):
            for seq in (0, 2, "x", -1):
                with self.subTest(encoding=enc, seq=seq), daemon["d"].client("tcp", enc) as w:
                    game = self.c.new_game(["ann"], auth=False)["game"]
                    self.play(game, 4)
                    self.assertEqual(w.call("subscribe", {"game": game, "seq": seq}), {"seq": 4})
                    self.assertEqual(drain(w), [], "moves before the subscription were sent")
                    res = self.play(game, 1)[0]
                    self.assertEqual(w.next_event(timeout=WAIT), {"game": game, "seq": 5, "events": res["events"]})

    def test_unsubscribe_a_game_not_watched_touches_no_one_else(self):
        """An unsubscribe from a connection that does not watch the game
        answers the seq and leaves the other connections' subscriptions."""
        game = self.c.new_game(["ann"], auth=False)["game"]
        self.play(game, 2)
        with daemon["d"].client("tcp", "json") as a, daemon["d"].client("unix", "msgpack") as b, \
                daemon["d"].client("tcp", "json") as j:
            self.assertEqual(a.subscribe(game), {"seq": 2})
            self.assertEqual(b.unsubscribe(game), {"seq": 2})
            self.assertEqual(j.unsubscribe(game), {"seq": 2})
            self.assertEqual(watchers_of(self.c, game), 1)
            res = self.play(game, 1)[0]
            self.assertEqual(a.next_event(timeout=WAIT), {"game": game, "seq": 3, "events": res["events"]})
            self.assertEqual(drain(b) + drain(j), [])
            self.assertEqual(code_of(b.unsubscribe, 987654321), "no_such_game")
            self.assertEqual(code_of(b.call, "unsubscribe", {}), "invalid_params")

    def test_refused_moves_send_nothing(self):
        """A refused move changes nothing: no notification, the next one is seq 1."""
        g = self.c.new_game(["ann", "bob"], seed=3)
        game, t = g["game"], [s["token"] for s in g["seats"]]
        with daemon["d"].client("tcp", "json") as w, daemon["d"].client("unix", "msgpack") as m:
            w.subscribe(game), m.subscribe(game)
            lm = self.c.legal_moves(game)
            good = lm["moves"][0]
            bad_place = dict(good, x=50, y=50)
            for args, code in (((game, good), "forbidden"), ((game, good, "0" * 32), "forbidden"),
                               ((game, good, t[1]), "not_your_turn"), ((game, good, t[0], 7), "conflict"),
                               ((game, bad_place, t[0]), "illegal_move"),
                               ((game, {"type": "fly"}, t[0]), "invalid_params")):
                self.assertEqual(code_of(self.c.apply_move, *args), code, args)
            res = self.c.apply_move(game, good, token=t[0], seq=0)
            for who in (w, m):
                self.assertEqual(who.next_event(timeout=WAIT), {"game": game, "seq": 1, "events": res["events"]})
                self.assertEqual(drain(who), [])

    def test_mover_hears_its_response_first_in_msgpack(self):
        """Section 1: the connection that sent a move hears its response
        before the notification about it (MessagePack, several moves sent at once)."""
        game = self.c.new_game(["ann"], auth=False, seed=9)["game"]
        with daemon["d"].raw("tcp") as r:
            r.send(packb([0, 1, "subscribe", {"game": game}]))
            self.assertEqual(r.read_one("msgpack", timeout=WAIT), [1, 1, None, {"seq": 0}])
            lm = self.c.legal_moves(game)
            r.send(packb([0, 2, "apply_move", {"game": game, "move": lm["moves"][0], "seq": 0}]) +
                   packb([0, 3, "ping", {}]))
            got = r.read("msgpack", 3, timeout=WAIT)
            self.assertEqual(len(got), 3, got)
            self.assertEqual(got[0][:3], [1, 2, None], "not the move's response first: %r" % got)
            res = got[0][3]
            self.assertEqual([m for m in got if m[0] == 2],
                             [[2, "event", {"game": game, "seq": 1, "events": res["events"]}]])
            self.assertIn([1, 3, None, {}], got)


# ---- several games on one connection ---------------------------------------------------------

class SeveralGames(unittest.TestCase):
    def test_order_across_games_and_movers(self):
        """Two games moved by two connections (one each encoding), taking
        turns unevenly; each watcher (both encodings) hears (game, seq) in
        the order the moves were answered."""
        d = daemon["d"]
        with d.client("unix", "msgpack") as pa, d.client("tcp", "json") as pb, \
                d.client("tcp", "msgpack") as wm, d.client("unix", "json") as wj:
            ga = pa.new_game(["ann"], auth=False, seed=1)["game"]
            gb = pb.new_game(["bob"], auth=False, seed=2)["game"]
            for w in (wm, wj):
                w.subscribe(ga), w.subscribe(gb)
            applied = []
            for step in range(30):
                p, g = (pa, ga) if step % 3 != 1 else (pb, gb)
                lm = p.legal_moves(g)
                res = p.apply_move(g, lm["moves"][-1])
                applied.append((g, res["seq"], res["events"]))
            for w in (wm, wj):
                got = [(n["game"], n["seq"], n["events"]) for n in collect(w, len(applied))]
                self.assertEqual(got, applied, w.encoding)

    def test_close_one_of_two_watched_games(self):
        """close_game while watched: each watcher (both encodings) gets one
        game_closed at the current seq for that game, nothing more of it,
        and the other game it watches goes on; the closed game's place in
        the connection's subscriptions is given back (watchers of the other
        game unchanged)."""
        d = daemon["d"]
        with d.client("unix", "msgpack") as c, d.client("tcp", "msgpack") as wm, \
                d.client("unix", "json") as wj:
            x = c.new_game(["ann", "bob"], seed=5)
            y = c.new_game(["cy"], auth=False, seed=6)["game"]
            tx = [s["token"] for s in x["seats"]]
            for w in (wm, wj):
                w.subscribe(x["game"]), w.subscribe(y)
            lm = c.legal_moves(x["game"])
            rx = c.apply_move(x["game"], lm["moves"][0], token=tx[0])
            self.assertEqual(c.close_game(x["game"], x["admin_token"]), {})
            lm = c.legal_moves(y)
            ry = c.apply_move(y, lm["moves"][0])
            want = [{"game": x["game"], "seq": 1, "events": rx["events"]},
                    {"game": x["game"], "seq": 1, "events": [{"type": "game_closed"}]},
                    {"game": y, "seq": 1, "events": ry["events"]}]
            for w in (wm, wj):
                self.assertEqual(collect(w, 3) + drain(w), want, w.encoding)
                self.assertEqual(code_of(w.subscribe, x["game"]), "no_such_game")
            self.assertEqual(watchers_of(c, y), 2)


# ---- a full registry ------------------------------------------------------------------------

class Eviction(unittest.TestCase):
    """5 "Full registry": new_game drops the oldest finished game that
    nobody watches.  A game stays watched while any connection watches it,
    and stops being watched when the last one unsubscribes or disconnects;
    subscribing twice is one subscription, ended by one unsubscribe."""

    def test_when_a_watched_game_becomes_evictable(self):
        with Daemon("--max-games", "3") as d, d.client("unix") as c:
            f1 = c.new_game(["ann"], tiles=["BA/C"], auth=False)["game"]
            finish(c, f1, "f1")
            f2 = c.new_game(["ann"], tiles=["BA/C"], auth=False)["game"]
            finish(c, f2, "f2")
            running = c.new_game(["ann", "bob"])["game"]
            w1, w2 = d.client("tcp", "json"), d.client("unix", "msgpack")
            w3 = d.client("tcp", "msgpack")
            try:
                self.assertEqual(w1.subscribe(f1), {"seq": 2})
                self.assertEqual(w3.subscribe(f1), {"seq": 2})
                self.assertEqual(w2.subscribe(f2), {"seq": 2})
                self.assertEqual(w2.subscribe(f2), {"seq": 2})
                self.assertEqual(code_of(c.new_game, ["x"]), "limit")
                # twice subscribed, once unsubscribed: f2 is unwatched (f1 is older, but watched)
                self.assertEqual(w2.unsubscribe(f2), {"seq": 2})
                n1 = c.new_game(["x"])["game"]
                self.assertEqual(held(c), [f1, running, n1])
                self.assertEqual(drain(w2), [], "a watcher heard of the eviction of a game it no longer watched")
                # one of f1's two watchers disconnects: still watched
                w1.close()
                self.assertTrue(wait_for(lambda: watchers_of(c, f1) == 1, WAIT))
                self.assertEqual(code_of(c.new_game, ["x"]), "limit")
                # the last one disconnects: f1 goes
                w3.close()
                self.assertTrue(wait_for(lambda: watchers_of(c, f1) == 0, WAIT))
                n2 = c.new_game(["x"])["game"]
                self.assertEqual(held(c), [running, n1, n2])
                self.assertEqual(c.stats()["games_evicted"], 2)
                self.assertEqual(code_of(w2.subscribe, f1), "no_such_game")
                self.assertEqual(code_of(w2.subscribe, f2), "no_such_game")
            finally:
                for w in (w1, w2, w3):
                    w.close()


if __name__ == "__main__":
    unittest.main()

"""Whole games over the socket: two players with their own tokens and a
subscribed watcher, the end of a game, and replay from `history`."""

import threading
import unittest

import harness
from harness import carcd

daemon, setUpModule, tearDownModule = harness.module_daemon()


class FullGame(unittest.TestCase):
    """One base game, played to the end by two clients (each with only its own
    seat's token) while a third connection watches it."""

    @classmethod
    def setUpClass(cls):
        d = daemon["d"]
        rng = harness.new_rng("FullGame")
        cls.host = d.client("tcp", "json")
        g = cls.host.new_game(["ann", "bob"])
        cls.g, cls.game = g, g["game"]
        cls.players = [d.client("unix", "msgpack"), d.client("tcp", "json")]
        cls.watcher = d.client("unix", "msgpack")
        cls.subscribed_at = cls.watcher.subscribe(cls.game)["seq"]
        cls.results = []      # (seat, move, apply_move result), in order
        cls.refused = []      # codes of the moves tried out of turn
        for _ in range(1000):
            progressed = False
            for seat, (c, s) in enumerate(zip(cls.players, g["seats"])):
                lm = c.legal_moves(cls.game, seat=seat)
                if lm["phase"] == "over" or not lm["moves"]:
                    continue
                other = cls.players[1 - seat]
                move = rng.choice(lm["moves"])
                # the other player may not play it
                try:
                    other.apply_move(cls.game, move, token=g["seats"][1 - seat]["token"])
                except carcd.Error as e:
                    cls.refused.append(e.code)
                res = c.apply_move(cls.game, move, token=s["token"], seq=lm["seq"])
                cls.results.append((seat, move, res))
                progressed = True
            if not progressed:
                break
        cls.notes = []   # what the watcher received: one notification per move
        while len(cls.notes) < len(cls.results):
            note = cls.watcher.next_event(timeout=10)
            if note is None:
                break
            cls.notes.append(note)
        cls.final_state = cls.host.state(cls.game)
        cls.final_score = cls.host.score(cls.game)
        cls.history = cls.host.history(cls.game)

    @classmethod
    def tearDownClass(cls):
        for c in cls.players + [cls.watcher, cls.host]:
            c.close()

    def events(self):
        return [ev for _, _, res in self.results for ev in res["events"]]

    def test_game_reached_its_end(self):
        self.assertTrue(self.results)
        last = self.results[-1][2]
        self.assertIs(last["over"], True)
        self.assertEqual(last["phase"], "over")
        self.assertIsNone(last["seat"])
        for _, _, res in self.results[:-1]:
            self.assertIs(res["over"], False)
        st = self.final_state
        self.assertIs(st["over"], True)
        self.assertEqual(st["phase"], "over")
        self.assertEqual(st["tiles_left"], 0)
        lm = self.host.legal_moves(self.game)
        self.assertEqual((lm["phase"], lm["seat"], lm["moves"]), ("over", None, []))
        # every tile drawn was placed or discarded: 72 tiles in all
        placed = sum(1 for e in self.events() if e["type"] == "tile_placed")
        discarded = sum(1 for e in self.events() if e["type"] == "tile_discarded")
        self.assertEqual(placed + discarded, 71)
        self.assertEqual(len(st["board"]), 1 + placed)

    def test_seats_alternate_and_out_of_turn_is_refused(self):
        self.assertEqual(set(self.refused), {"not_your_turn"})
        self.assertEqual(len(self.refused), len(self.results))
        tile_seats = [seat for seat, move, _ in self.results if move["type"] == "place_tile"]
        self.assertEqual(tile_seats, [i % 2 for i in range(len(tile_seats))])

    def test_seq_increases(self):
        seqs = [self.subscribed_at] + [res["seq"] for _, _, res in self.results]
        self.assertEqual(seqs, sorted(set(seqs)), "seq did not increase with every move")

    def test_watcher_saw_every_event_in_order(self):
        self.assertEqual(len(self.notes), len(self.results))
        for note, (_, _, res) in zip(self.notes, self.results):
            self.assertEqual(note["game"], self.game)
            self.assertEqual(note["seq"], res["seq"])
            self.assertEqual(note["events"], res["events"])
        self.assertEqual(self.watcher.next_event(timeout=0.3), None, "a notification after the end")

    def test_final_scores(self):
        sc = self.final_score
        self.assertIs(sc["final"], True)
        evs = self.events()
        self.assertEqual(evs[-1]["type"], "game_over")
        self.assertEqual(evs[-1]["scores"], sc["scores"])
        self.assertEqual(sum(1 for e in evs if e["type"] == "game_over"), 1)
        self.assertEqual(harness.points_by_seat(evs, 2), sc["scores"])
        self.assertEqual([s["score"] for s in self.final_state["seats"]], sc["scores"])
        self.assertEqual(sc["if_ended_now"], sc["scores"])
        for b in sc["breakdown"]:
            self.assertEqual(sum(b["by"].values()), sc["scores"][b["seat"]])
        for e in evs:
            if e["type"] == "scored":
                self.assertGreater(e["points"], 0, "a scored event for 0 points")
        # final scoring comes after the last tile, and only it is marked final
        last_tile = max(i for i, e in enumerate(evs) if e["type"] in ("tile_placed", "tile_discarded"))
        for i, e in enumerate(evs):
            if e["type"] == "scored":
                self.assertIsInstance(e["final"], bool)
                if e["final"]:
                    self.assertGreater(i, last_tile, e)

    def test_figures_stay_on_the_board_at_the_end(self):
        """PROTOCOL.md, Events, "The end": final scoring returns no figure."""
        evs = self.events()
        first_final = min(i for i, e in enumerate(evs) if e["type"] == "scored" and e["final"])
        self.assertEqual([e for e in evs[first_final:] if e["type"] == "returned"], [])
        standing = {}
        for e in evs:
            if e["type"] == "deployed":
                standing[e["figure"]] = e["seat"]
            elif e["type"] == "returned":
                del standing[e["figure"]]
        on_board = {f["id"]: f for b in self.final_state["board"] for f in b["figures"]}
        self.assertEqual(sorted(on_board), sorted(standing))
        for s in self.final_state["seats"]:
            mine = sum(1 for seat in standing.values() if seat == s["seat"])
            self.assertEqual(s["supply"], {"follower": 7 - mine})

    def test_after_the_end(self):
        g = self.g
        with self.assertRaises(carcd.Error) as cm:
            self.players[0].apply_move(self.game, {"type": "pass"}, token=g["seats"][0]["token"])
        self.assertEqual(cm.exception.code, "game_over")
        with self.assertRaises(carcd.Error) as cm:
            self.players[1].apply_move(self.game, {"type": "pass"}, token=g["seats"][1]["token"])
        self.assertEqual(cm.exception.code, "game_over")

    def test_history_reveals_the_seed(self):
        h = self.history
        self.assertEqual(harness.history_moves(h), [move for _, move, _ in self.results])
        evs = self.events()
        hev = harness.history_events(h)
        self.assertEqual(hev[len(hev) - len(evs):], evs)
        seed, salt = h["seed"], h["salt"]
        self.assertIsInstance(seed, int)
        self.assertRegex(salt, r"^[0-9a-f]{32}$")
        self.assertEqual(harness.seed_commitment(seed, salt), self.g["state"]["seed_sha256"])
        self.assertEqual(self.final_state["seed_sha256"], self.g["state"]["seed_sha256"])
        tiles = h["tiles"]
        drawn = [e["tile"] for e in h["events"] if e["type"] == "tile_drawn"]
        self.assertEqual(tiles, drawn)
        self.assertEqual(len(tiles), 71)

    def replay(self, **setup):
        h = self.history
        with daemon["d"].client("unix") as c:
            g = c.new_game(["ann", "bob"], **setup)
            tokens = [s["token"] for s in g["seats"]]
            results = []
            for move in harness.history_moves(h):
                seat = c.legal_moves(g["game"])["seat"]
                results.append(c.apply_move(g["game"], move, token=tokens[seat]))
            return c.score(g["game"]), results, c.history(g["game"])

    def test_replay_with_seed_and_tiles(self):
        h = self.history
        score, results, h2 = self.replay(seed=h["seed"], tiles=h["tiles"])
        self.assertEqual(score["scores"], self.final_score["scores"])
        self.assertIs(score["final"], True)
        self.assertEqual([r["events"] for r in results], [r["events"] for _, _, r in self.results])
        self.assertEqual(harness.history_moves(h2), harness.history_moves(h))

    def test_replay_with_seed_alone(self):
        h = self.history
        score, results, h2 = self.replay(seed=h["seed"])
        self.assertEqual(score["scores"], self.final_score["scores"])
        self.assertEqual(h2["tiles"], h["tiles"])
        self.assertEqual(h2["seed"], h["seed"])


class ShortGames(unittest.TestCase):
    def setUp(self):
        self.c = daemon["d"].client("unix")
        self.rng = harness.new_rng(self.id())

    def tearDown(self):
        self.c.close()

    def test_tiles_list_ends_the_game(self):
        tiles = ["BA/C", "BA/L", "BA/Cccc+", "BA/RCr"]
        g = self.c.new_game(["ann", "bob"], tiles=tiles)
        tokens = [s["token"] for s in g["seats"]]
        rec = harness.play_with_client(self.c, g["game"], tokens, self.rng)
        placed = [e["tile"] for e in harness.all_events(rec) if e["type"] in ("tile_placed", "tile_discarded")]
        self.assertEqual(placed, tiles)
        self.assertEqual(harness.all_events(rec)[-1]["type"], "game_over")
        self.assertEqual(self.c.history(g["game"])["tiles"], tiles)

    def test_one_seat(self):
        g = self.c.new_game(["solo"], tiles=["BA/C", "BA/L", "BA/RCr"])
        rec = harness.play_with_client(self.c, g["game"], [g["seats"][0]["token"]], self.rng)
        self.assertTrue(all(lm["seat"] == 0 for lm, _, _ in rec))
        sc = self.c.score(g["game"])
        self.assertIs(sc["final"], True)
        self.assertEqual(len(sc["scores"]), 1)

    def test_auth_false_ignores_tokens(self):
        g = self.c.new_game(["ann", "bob"], auth=False, tiles=["BA/C", "BA/L"])
        game = g["game"]
        for token in (None, "not a token", g["seats"][1]["token"]):
            lm = self.c.legal_moves(game)
            if lm["phase"] == "over":
                break
            res = self.c.apply_move(game, lm["moves"][0], token=token, seq=lm["seq"])
            self.assertGreater(res["seq"], lm["seq"])

    def test_same_seed_same_game(self):
        a = self.c.new_game(["ann", "bob"], seed=4242)
        b = self.c.new_game(["ann", "bob"], seed=4242)
        self.assertEqual(a["state"]["tile"], b["state"]["tile"])
        # the commitment is salted: equal seeds do not show as equal hashes
        self.assertNotEqual(a["state"]["seed_sha256"], b["state"]["seed_sha256"])
        ta = [s["token"] for s in a["seats"]]
        tb = [s["token"] for s in b["seats"]]
        for _ in range(20):
            la, lb = self.c.legal_moves(a["game"]), self.c.legal_moves(b["game"])
            self.assertEqual(la["moves"], lb["moves"])
            self.assertEqual((la["phase"], la["seat"]), (lb["phase"], lb["seat"]))
            move = self.rng.choice(la["moves"])
            ra = self.c.apply_move(a["game"], move, token=ta[la["seat"]])
            rb = self.c.apply_move(b["game"], move, token=tb[lb["seat"]])
            self.assertEqual(ra["events"], rb["events"])

    def test_history_hides_seed_until_the_end(self):
        g = self.c.new_game(["ann", "bob"], tiles=["BA/C", "BA/L"], seed=99)
        h = self.c.history(g["game"])
        self.assertNotIn("seed", h)
        self.assertNotIn("salt", h)
        self.assertNotIn("seed", h["setup"])
        harness.play_with_client(self.c, g["game"], [s["token"] for s in g["seats"]], self.rng)
        h = self.c.history(g["game"])
        self.assertEqual(h["seed"], 99)
        self.assertEqual(harness.seed_commitment(99, h["salt"]), g["state"]["seed_sha256"])

    def test_history_hides_the_tile_order_until_the_end(self):
        """The supply order is secret until the end (§4, history: "before the
        end, neither"; §4.2: never the order of the supply), also in a game
        made with `tiles`: other seats than its maker must not read it."""
        tiles = ["BA/C", "BA/L", "BA/RCr", "BA/Cccc+"]
        g = self.c.new_game(["ann", "bob"], tiles=tiles)
        with daemon["d"].client("tcp", "json") as other:
            h = other.history(g["game"])
            self.assertNotIn("tiles", h)
            self.assertNotIn("tiles", h["setup"], "history shows the supply order before the end")
            self.assertNotIn("BA/Cccc+", repr(h))
            harness.play_with_client(self.c, g["game"], [s["token"] for s in g["seats"]], self.rng)
            self.assertEqual(other.history(g["game"])["tiles"], tiles)

    def test_concurrent_moves_on_one_game(self):
        """Two connections race with the same move and seq: exactly one wins."""
        g = self.c.new_game(["ann", "bob"], auth=False)
        game = g["game"]
        d = daemon["d"]
        clients = [d.client("unix"), d.client("tcp", "json")]
        try:
            for _ in range(10):
                lm = self.c.legal_moves(game)
                move = self.rng.choice(lm["moves"])
                outcomes = [None, None]

                def go(i):
                    try:
                        outcomes[i] = clients[i].apply_move(game, move, seq=lm["seq"])["seq"]
                    except carcd.Error as e:
                        outcomes[i] = e.code
                threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                wins = [o for o in outcomes if isinstance(o, int)]
                self.assertEqual(len(wins), 1, outcomes)
                self.assertIn("conflict", outcomes)
        finally:
            for c in clients:
                c.close()


if __name__ == "__main__":
    unittest.main()

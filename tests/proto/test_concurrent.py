"""200 clients at once, each playing its own whole game to the end over its
own connection (Unix and TCP, MessagePack-RPC and JSON lines), and every
game consistent afterwards."""

import threading
import time
import traceback
import unittest

import harness

daemon, setUpModule, tearDownModule = harness.module_daemon()

CLIENTS = 200
DEADLINE = 120.0 * harness.SLOW   # seconds for all of them; it normally takes far less


class Player(threading.Thread):
    def __init__(self, i, barrier):
        super().__init__(name="player-%d" % i, daemon=True)
        self.i, self.barrier = i, barrier
        self.transport = ("unix", "tcp")[i % 2]
        self.encoding = ("msgpack", "json")[(i // 2) % 2]
        self.error = None
        self.summary = None

    def run(self):
        try:
            self.play()
        except BaseException:
            self.error = traceback.format_exc()
            self.barrier.abort()

    def play(self):
        rng = harness.new_rng("concurrent-%d" % self.i)
        with daemon["d"].client(self.transport, self.encoding, timeout=60) as c:
            nseats = 2 + self.i % 3
            g = c.new_game(["p%d" % s for s in range(nseats)], seed=1000 + self.i)
            self.barrier.wait(timeout=60)   # every client connected and holding a game
            game, tokens = g["game"], [s["token"] for s in g["seats"]]
            record = harness.play_with_client(c, game, tokens, rng)
            events = harness.all_events(record)
            score, state, hist = c.score(game), c.state(game), c.history(game)
            seqs = [g["state"]["seq"]] + [res["seq"] for _, _, res in record]
            assert seqs == sorted(set(seqs)), "seq not increasing in game %s" % game
            assert record[-1][2]["over"] is True and state["over"] is True
            assert score["final"] is True
            assert events[-1]["type"] == "game_over" and events[-1]["scores"] == score["scores"]
            assert harness.points_by_seat(events, nseats) == score["scores"], \
                "scored events do not add up to the scores in game %s" % game
            assert [s["score"] for s in state["seats"]] == score["scores"]
            assert harness.history_moves(hist) == [m for _, m, _ in record]
            assert hist["seed"] == 1000 + self.i
            assert harness.seed_commitment(hist["seed"], hist["salt"]) == g["state"]["seed_sha256"]
            self.summary = {"game": game, "scores": score["scores"], "moves": harness.history_moves(hist),
                            "seed": hist["seed"], "tiles": hist["tiles"], "nseats": nseats}


class Concurrent(unittest.TestCase):
    def test_200_clients_each_play_a_game(self):
        barrier = threading.Barrier(CLIENTS)
        players = [Player(i, barrier) for i in range(CLIENTS)]
        t0 = time.monotonic()
        for p in players:
            p.start()
        for p in players:
            p.join(max(0.1, DEADLINE - (time.monotonic() - t0)))
        elapsed = time.monotonic() - t0
        stuck = [p.name for p in players if p.is_alive()]
        self.assertEqual(stuck, [], "clients still playing after %.0f s" % DEADLINE)
        errors = [p.error for p in players if p.error]
        self.assertEqual(errors[:3], [], "%d of %d clients failed" % (len(errors), CLIENTS))
        games = {p.summary["game"] for p in players}
        self.assertEqual(len(games), CLIENTS, "two clients were given the same game")
        print("\n%d games, %d moves in %.1f s" % (CLIENTS, sum(len(p.summary["moves"]) for p in players),
                                                  elapsed), end=" ", flush=True)

        with daemon["d"].client("unix") as c:
            listed = c.games()
            listed = listed["games"] if isinstance(listed, dict) else listed
            listed = {s["game"] for s in listed}
            self.assertLessEqual(games, listed)
            # the same seed and moves give the same game: replay a few
            for p in players[:: CLIENTS // 8]:
                s = p.summary
                g = c.new_game(["p%d" % i for i in range(s["nseats"])], seed=s["seed"], auth=False)
                for move in s["moves"]:
                    c.apply_move(g["game"], move)
                self.assertEqual(c.score(g["game"])["scores"], s["scores"])
                self.assertEqual(c.history(g["game"])["tiles"], s["tiles"])


if __name__ == "__main__":
    unittest.main()

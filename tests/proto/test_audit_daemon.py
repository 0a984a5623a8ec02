"""test_audit_daemon.py - an audit of carcd's daemon behaviour against
proto/PROTOCOL.md (sections 4 to 6): the game lifecycle, `games` paging,
`stats`, limits set by options, watchers, history with put-aside tiles,
signals and busy addresses.  Each test starts daemons of its own.

Tests marked "BUG" describe what the documentation promises and fail while
the daemon does otherwise."""

import signal
import socket
import subprocess
import time
import unittest

import msgpack

import harness
from harness import CARCD, SLOW, START_TIMEOUT, STOP_TIMEOUT, Daemon, wait_for
import carcd  # noqa: E402  (harness puts contrib/python on the path)

ALL_CITY = [{"tile": "BA/Cccc+", "x": 0, "y": 0, "rot": 0}]
ALL_ROAD = "BA/RRRR"


def finish(c, game, name):
    """Play a game made with auth false to its end with random moves."""
    harness.play_random_game(lambda lm, m: c.apply_move(game, m), lambda: c.legal_moves(game),
                             harness.new_rng(name))


def held(c):
    return [s["game"] for s in c.games()["games"]]


class AuditCase(unittest.TestCase):
    def assertError(self, code, fn, *args, **kw):
        with self.assertRaises(carcd.Error) as cm:
            fn(*args, **kw)
        self.assertEqual(cm.exception.code, code, cm.exception.message)
        return cm.exception


# ---- the game lifecycle ---------------------------------------------------------------

class Lifecycle(AuditCase):
    def test_close_game_tokens_and_ids_never_reused(self):
        with Daemon() as d, d.client("unix") as c:
            a, b = c.new_game(["ann"]), c.new_game(["bob"])
            for wrong in ("0" * 32, b["admin_token"], a["seats"][0]["token"], "zz", "",
                          a["admin_token"] + "00", a["admin_token"][:-1]):
                self.assertError("forbidden", c.close_game, a["game"], wrong)
            self.assertEqual(c.state(a["game"])["game"], a["game"])   # a refused close changes nothing
            self.assertError("invalid_params", c.call, "close_game", {"game": a["game"]})
            self.assertEqual(c.close_game(b["game"], b["admin_token"]), {})   # the newest game
            self.assertEqual(c.close_game(a["game"], a["admin_token"]), {})
            self.assertEqual(held(c), [])
            g = c.new_game(["cid"])
            self.assertGreater(g["game"], b["game"], "a closed game's id was given again")
            self.assertError("no_such_game", c.state, b["game"])
            self.assertError("no_such_game", c.subscribe, a["game"])
            s = c.stats()
            self.assertEqual((s["games"], s["games_total"], s["games_evicted"]), (1, 3, 0))

    def test_games_paging_at_the_edges(self):
        with Daemon() as d, d.client("unix") as c:
            gs = [c.new_game(["p%d" % i]) for i in range(5)]
            ids = [g["game"] for g in gs]
            c.close_game(ids[2], gs[2]["admin_token"])
            live = ids[:2] + ids[3:]
            self.assertEqual(c.games(), {"games": c.games()["games"], "more": False})
            self.assertEqual(held(c), live)
            # pages of 2 by `after` = the last id seen
            seen, after, pages = [], None, 0
            while True:
                page = c.games(after=after, limit=2)
                pages += 1
                seen += [s["game"] for s in page["games"]]
                if not page["more"]:
                    break
                after = page["games"][-1]["game"]
            self.assertEqual((seen, pages), (live, 2))
            # exactly the rest: `more` is false
            self.assertEqual(c.games(after=ids[1], limit=2), {"games": c.games(after=ids[1], limit=2)["games"],
                                                              "more": False})
            self.assertEqual([s["game"] for s in c.games(after=ids[1], limit=2)["games"]], ids[3:])
            # `after` a closed id, past the last, and huge
            self.assertEqual([s["game"] for s in c.games(after=ids[2])["games"]], ids[3:])
            self.assertEqual(c.games(after=ids[-1]), {"games": [], "more": False})
            self.assertEqual(c.games(after=2 ** 63 - 1), {"games": [], "more": False})
            page = c.games(limit=1)
            self.assertEqual(([s["game"] for s in page["games"]], page["more"]), ([ids[0]], True))
            self.assertEqual(len(c.games(limit=10000)["games"]), 4)
            for bad in ({"limit": 0}, {"limit": 10001}, {"after": -1}, {"limit": "2"}, {"after": 1.5}):
                self.assertError("invalid_params", c.call, "games", bad)

    def test_stats_counts_connections_and_errors(self):
        with Daemon("--max-connections", "3") as d, d.client("unix") as c:
            # the connections of the check that the daemon is up may still be closing
            self.assertTrue(wait_for(lambda: c.stats()["connections"] == 1, 5))
            s0 = c.stats()
            self.assertEqual((s0["connections"], s0["games"]), (1, 0))
            a, b = d.client("tcp"), d.client("unix")
            a.ping(), b.ping()
            with d.raw("unix") as r:   # the fourth: refused
                r.send_msgpack([0, 1, "ping", {}])
                self.assertTrue(r.closed_by_peer(5))
            s = c.stats()
            self.assertEqual(s["connections"], 3)
            self.assertEqual(s["connections_refused"], s0["connections_refused"] + 1)
            self.assertEqual(s["connections_total"], s0["connections_total"] + 2)
            a.close(), b.close()
            self.assertTrue(wait_for(lambda: c.stats()["connections"] == 1, 5))
            self.assertError("no_such_game", c.state, 999)
            self.assertError("unknown_method", c.call, "nope")
            s2 = c.stats()
            self.assertEqual(s2["errors"]["no_such_game"], s["errors"]["no_such_game"] + 1)
            self.assertEqual(s2["errors"]["unknown_method"], s["errors"]["unknown_method"] + 1)
            self.assertGreater(s2["requests"], s["requests"])


# ---- stats.memory ---------------------------------------------------------------------

class Memory(AuditCase):
    def test_memory_games_back_to_zero_after_closing_a_watched_game(self):
        """BUG: subscribing grows a game's list of watchers without counting
        it in memory.games, and closing the game then takes off more than was
        counted: memory.games goes negative (-32 for one watcher)."""
        with Daemon() as d, d.client("unix") as c:
            self.assertEqual(c.stats()["memory"]["games"], 0)
            g = c.new_game(["ann", "bob"])
            c.subscribe(g["game"])
            c.close_game(g["game"], g["admin_token"])
            c.next_event(timeout=5)
            mem = c.stats()["memory"]
            self.assertEqual(mem["games"], 0, "memory.games after every game was closed: %r" % mem)

    def test_memory_games_counts_subscribers(self):
        """BUG: PROTOCOL.md says memory.games counts "subscribers"; watching a
        game does not change it."""
        with Daemon() as d, d.client("unix") as c:
            g = c.new_game(["ann", "bob"])
            before = c.stats()["memory"]["games"]
            watchers = [d.client("unix") for _ in range(8)]
            try:
                for w in watchers:
                    w.subscribe(g["game"])
                self.assertGreater(c.stats()["memory"]["games"], before)
            finally:
                for w in watchers:
                    w.close()


class ClosedWatcher(AuditCase):
    def test_a_connection_closed_by_an_error_watches_nothing(self):
        """PROTOCOL.md section 7: after a closing error carcd reads and
        drops what the client still sends for up to 2 seconds; the
        connection hears nothing more, so the games it watched stop
        counting it at once, not 2 seconds later."""
        with Daemon() as d, d.client("unix") as c:
            g = c.new_game(["ann", "bob"])["game"]
            with d.raw("unix") as r:
                r.send(msgpack.packb([0, 1, "subscribe", {"game": g}]))
                self.assertIsNone(r.read_one("msgpack", timeout=3)[2])
                self.assertEqual(c.games()["games"][0]["watchers"], 1)
                r.send(b"\xc1")
                self.assertEqual(r.read_one("msgpack", timeout=3)[2]["code"], "bad_request")
                self.assertTrue(r.closed_by_peer(3))
                self.assertEqual(c.games()["games"][0]["watchers"], 0)


# ---- a full registry ----------------------------------------------------------------

class FullRegistry(AuditCase):
    def full(self, d, c):
        done = c.new_game(["ann"], tiles=["BA/C"], auth=False)["game"]
        finish(c, done, "full")
        running = c.new_game(["ann", "bob"])["game"]
        return done, running

    def test_a_refused_new_game_evicts_nothing(self):
        """BUG: with the registry full, a new_game refused as invalid_params
        (no standard start tile; start tiles that do not match) still drops
        the oldest finished game: it is checked only after the eviction."""
        bad = ({"expansions": ["cult"]},
               {"start": [{"tile": "BA/C", "x": 0, "y": 0, "rot": 0},
                          {"tile": ALL_ROAD, "x": 1, "y": 0, "rot": 0}]})
        for params in bad:
            with self.subTest(params=params), Daemon("--max-games", "2") as d, d.client("unix") as c:
                done, running = self.full(d, c)
                self.assertError("invalid_params", c.call, "new_game", dict(params, players=["ann"]))
                self.assertEqual(held(c), [done, running], "a refused new_game evicted a game")
                self.assertEqual(c.stats()["games_evicted"], 0)

    def test_limit_message_when_the_finished_game_is_watched(self):
        """Unclear error: the `limit` answer says why nothing could be
        dropped.  With a finished game that is watched, "none of them is
        over" is untrue."""
        with Daemon("--max-games", "1") as d, d.client("unix") as c:
            g = c.new_game(["ann"], tiles=["BA/C"], auth=False)["game"]
            finish(c, g, "watched")
            c.subscribe(g)
            e = self.assertError("limit", c.new_game, ["bob"])
            self.assertNotIn("none of them is over", e.message)
            self.assertEqual(e.message, "the server holds 1 game, its limit, each still in play or watched")
            c.unsubscribe(g)
            self.assertGreater(c.new_game(["bob"])["game"], g)   # unwatched now: evicted
            self.assertEqual(c.stats()["games_evicted"], 1)


# ---- limits from the options ------------------------------------------------------------

class Limits(AuditCase):
    def test_max_request_small(self):
        with Daemon("--max-request", "64") as d:
            with d.client("unix") as c:
                self.assertEqual(c.hello()["limits"]["max_request"], 64)
            for size, served in ((63, True), (64, True), (65, False), (300, False)):
                req = next(r for r in (msgpack.packb([0, 1, "ping", {"c": "x" * k}]) for k in range(size))
                           if len(r) == size)
                with d.raw("unix") as r:
                    r.send(req)
                    m = r.read_one("msgpack", timeout=3)
                    if served:
                        self.assertEqual(m, [1, 1, None, {}], size)
                    else:
                        self.assertEqual((m[0], m[1], m[2]["code"]), (1, None, "limit"), size)
                        self.assertTrue(r.closed_by_peer(5), size)
            # many small requests in one write are judged one by one
            with d.raw("unix") as r:
                req = msgpack.packb([0, 7, "ping", {"c": "x" * 30}])
                r.send(req * 20)
                self.assertEqual(r.read("msgpack", 20, timeout=5), [[1, 7, None, {}]] * 20)

    def test_max_line_small(self):
        with Daemon("--max-line", "64") as d, d.raw("unix") as r:
            r.send_line('hello {"client": "%s"}' % ("x" * 60))
            r.send_line("ping")
            m = r.read("json", 2, timeout=5)
            self.assertEqual(m[0][2]["code"], "limit")
            self.assertEqual(m[1], [1, None, None, {}])

    def test_notifications_keep_a_watcher_from_idling(self):
        """Idle means no request and no notification (PROTOCOL.md section 5)."""
        with Daemon("--idle-timeout", "1") as d, d.client("unix") as c, d.client("tcp") as w:
            g = c.new_game(["ann"], auth=False)["game"]
            self.assertEqual(w.subscribe(g), {"seq": 0})
            t0, n = time.monotonic(), 0
            while time.monotonic() - t0 < 2.5:
                lm = c.legal_moves(g)
                c.apply_move(g, lm["moves"][0])
                n += 1
                time.sleep(0.3)
            # the n notifications are all there (the last came 0.3 s ago, the
            # idle timeout counting from it), then the watcher is still served;
            # waiting for silence first would leave the ping little of the 1 s
            seqs = []
            for _ in range(n):
                note = w.next_event(timeout=5)
                seqs.append(None if note is None else note["seq"])
            self.assertEqual(seqs, list(range(1, n + 1)))
            self.assertEqual(w.ping(), {})
            self.assertIsNone(w.next_event(timeout=0.3))

    def test_subscription_limit_and_closed_games(self):
        with Daemon() as d, d.client("unix") as c:
            gs = [c.new_game(["a"], tiles=["BA/C"]) for _ in range(1025)]
            for g in gs[:1024]:
                c.subscribe(g["game"])
            self.assertError("limit", c.subscribe, gs[1024]["game"])
            self.assertEqual(c.subscribe(gs[7]["game"]), {"seq": 0})   # again: harmless
            c.close_game(gs[0]["game"], gs[0]["admin_token"])
            self.assertEqual(c.next_event(timeout=5)["events"], [{"type": "game_closed"}])
            self.assertEqual(c.subscribe(gs[1024]["game"]), {"seq": 0})   # a closed one no longer counts
            self.assertError("limit", c.subscribe, c.new_game(["b"])["game"])
            c.unsubscribe(gs[1]["game"])
            self.assertEqual(c.subscribe(gs[1]["game"]), {"seq": 0})


# ---- watchers -------------------------------------------------------------------------

class Watchers(AuditCase):
    def test_a_watcher_that_disconnects(self):
        with Daemon() as d, d.client("unix") as c:
            g = c.new_game(["ann"], auth=False)["game"]
            stay, gone = d.client("tcp"), d.client("unix", "json")
            stay.subscribe(g), gone.subscribe(g)
            gone.subscribe(g)   # twice: counted once
            self.assertEqual(c.games()["games"][0]["watchers"], 2)
            gone.close()
            self.assertTrue(wait_for(lambda: c.games()["games"][0]["watchers"] == 1, 5))
            lm = c.legal_moves(g)
            res = c.apply_move(g, lm["moves"][0])
            self.assertEqual(stay.next_event(timeout=5), {"game": g, "seq": 1, "events": res["events"]})
            stay.close()
            self.assertTrue(wait_for(lambda: c.games()["games"][0]["watchers"] == 0, 5))
            lm = c.legal_moves(g)
            c.apply_move(g, lm["moves"][0])   # nobody to tell
            self.assertTrue(d.alive())

    def test_nothing_after_game_closed(self):
        with Daemon() as d, d.client("unix") as c, d.client("unix", "json") as w:
            g = c.new_game(["ann", "bob"], seed=5)
            game = g["game"]
            w.subscribe(game)
            lm = c.legal_moves(game)
            c.apply_move(game, lm["moves"][0], token=g["seats"][0]["token"])
            self.assertEqual(w.next_event(timeout=5)["seq"], 1)
            c.close_game(game, g["admin_token"])
            self.assertEqual(w.next_event(timeout=5), {"game": game, "seq": 1, "events": [{"type": "game_closed"}]})
            self.assertError("no_such_game", w.unsubscribe, game)
            self.assertError("no_such_game", c.apply_move, game, lm["moves"][0], token=g["seats"][0]["token"])
            self.assertEqual(w.ping(), {})
            self.assertIsNone(w.next_event(timeout=0.3))


# ---- history with put-aside tiles -----------------------------------------------------------

class HistoryDiscards(AuditCase):
    def played_and_replayed(self, c, tiles, name, **opts):
        """A game of `tiles` played to its end at random (`name` seeds the
        choices): history keeps the order secret until then, gives it
        then as `tiles`, and a game made from it replays the same."""
        g = c.new_game(["ann", "bob"], tiles=tiles, **opts)["game"]
        self.assertNotIn("tiles", c.history(g)["setup"])   # secret until the end
        finish(c, g, name)
        h = c.history(g)
        self.assertEqual(h["tiles"], tiles)
        again = c.new_game(["ann", "bob"], tiles=h["tiles"], **opts)["game"]
        for m in harness.history_moves(h):
            c.apply_move(again, m)
        h2 = c.history(again)
        self.assertEqual((h2["events"], h2["tiles"]), (h["events"], h["tiles"]))
        return h

    def test_history_replays_with_discarded_and_reshuffled_tiles(self):
        with Daemon() as d, d.client("unix") as c:
            for mode, whys in (("discard", ["unplaceable"]), ("reshuffle", ["reshuffled", "unplaceable"])):
                with self.subTest(mode=mode):
                    opts = dict(start=ALL_CITY, seed=1, rules={"unplaceable_tile": mode}, auth=False)
                    h = self.played_and_replayed(c, ["BA/C", ALL_ROAD, "BA/C"], mode, **opts)
                    self.assertEqual([e["why"] for e in h["events"] if e["type"] == "tile_discarded"], whys)
                    self.assertEqual(h["seed"], 1)

    def put_back(self, c, tiles, drawn, **opts):
        """played_and_replayed with tiles put back; `drawn`: the tiles
        drawn, put-back ones twice."""
        h = self.played_and_replayed(c, tiles, self.id(), seed=3, rules={"unplaceable_tile": "reshuffle"},
                                     auth=False, **opts)
        self.assertEqual([e["tile"] for e in h["events"] if e["type"] == "tile_drawn"], drawn)
        return h

    def test_a_river_tile_put_back_to_the_end_of_the_tiles_given(self):
        # the lake fits nowhere next to the spring while river tiles are
        # still to come: with `tiles` the caller orders the river, so it
        # goes to the end of the list, behind the land tiles, and comes
        # round last (the shared contract, `tiles`)
        with Daemon() as d, d.client("unix") as c:
            tiles = ["RI.1/I.e", "RI.1/IFI", "RI.1/II", "BA/L", "BA/L"]
            h = self.put_back(c, tiles, ["RI.1/I.e", "RI.1/IFI", "RI.1/II", "BA/L", "BA/L", "RI.1/I.e"],
                              expansions=["base", "river"])
            self.assertEqual([(e["tile"], e["why"]) for e in h["events"] if e["type"] == "tile_discarded"],
                             [("RI.1/I.e", "reshuffled")])

    def test_a_tile_put_back_and_hidden_under_a_hill(self):
        # the crossroads fits nowhere round an all-city start: back to the
        # bottom, where the hill drawn next hides it
        with Daemon() as d, d.client("unix") as c:
            h = self.put_back(c, [ALL_ROAD, "HS/Cc.h.1"], [ALL_ROAD, "HS/Cc.h.1"],
                              expansions=["base", "hills-sheep"], start=ALL_CITY)
            self.assertEqual([e["type"] for e in h["events"] if e["type"].startswith("tile_")],
                             ["tile_placed", "tile_drawn", "tile_discarded", "tile_drawn", "tile_placed", "tile_hidden"])


# ---- signals and addresses ----------------------------------------------------------------

class SignalsAndAddresses(AuditCase):
    def test_sigterm_answers_every_pipelined_request(self):
        d = Daemon().start()
        try:
            with d.client("unix") as c:
                game = c.new_game(["ann", "bob"], seed=3)["game"]
            r = d.raw("unix", timeout=10)
            n = 300
            r.send(b"".join(msgpack.packb([0, i, "history", {"game": game}]) for i in range(n)))
            time.sleep(0.1 * SLOW)   # time to read them all: it answers what it has read
            d.proc.send_signal(signal.SIGTERM)
            msgs = r.read("msgpack", n + 1, timeout=STOP_TIMEOUT)
            self.assertEqual([m[1] for m in msgs], list(range(n)))
            self.assertTrue(all(m[2] is None for m in msgs))
            self.assertTrue(r.closed_by_peer(STOP_TIMEOUT))
            r.close()
            self.assertEqual(d.proc.wait(STOP_TIMEOUT), 0, d.log_tail())
        finally:
            d.stop()

    def test_sigterm_with_a_reader_that_never_reads_exits_within_10s(self):
        d = Daemon().start()
        try:
            r = d.raw("unix")
            r.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            r.send(b"hello\n" * 2000)
            time.sleep(0.5)
            t0 = time.monotonic()
            d.proc.send_signal(signal.SIGTERM)
            self.assertEqual(d.proc.wait(STOP_TIMEOUT + 5), 0, d.log_tail())
            # 10 s documented, plus the start-up and exit of a daemon under valgrind (make check-valgrind)
            self.assertLess(time.monotonic() - t0, 12 + (10 if harness.WRAPPER else 0))
            r.close()
        finally:
            d.stop()

    def test_a_busy_tcp_address_exits_1(self):
        with Daemon(unix=False) as d:
            p = subprocess.run([CARCD, "--listen", d.tcp_address], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=START_TIMEOUT)
            err = p.stderr.decode(errors="replace")
            self.assertEqual(p.returncode, 1, err)
            self.assertIn("error: ", err)
            self.assertIn(d.tcp_address, err)
            with d.client("tcp") as c:   # the first one still serves
                self.assertEqual(c.ping(), {})


if __name__ == "__main__":
    unittest.main()

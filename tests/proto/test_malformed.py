"""Bad input, each case answered as PROTOCOL.md section 7 says, and the
daemon still serving its other clients afterwards; then the other limits
(connections, games, idle time, slow readers) and the daemon's life cycle
(socket activation, SIGTERM, SIGPIPE)."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import harness
from harness import carcd, packb, vmrss_kib

daemon, setUpModule, tearDownModule = harness.module_daemon()

MIB = 1 << 20


class Malformed(harness.ReplyAsserts, unittest.TestCase):
    """Every test ends with check_still_serving(): a bystander that holds a
    game over its own connection, and a fresh client on each transport."""

    @classmethod
    def setUpClass(cls):
        d = daemon["d"]
        cls.d = d
        cls.bystander = d.client("tcp", "json")
        g = cls.bystander.new_game(["ann", "bob"])
        cls.g = g
        cls.game = g["game"]
        cls.tokens = [s["token"] for s in g["seats"]]
        lm = cls.bystander.legal_moves(cls.game)
        cls.bystander.apply_move(cls.game, lm["moves"][0], token=cls.tokens[0], seq=lm["seq"])
        cls.bystander_state = cls.bystander.state(cls.game)

    @classmethod
    def tearDownClass(cls):
        cls.bystander.close()

    def tearDown(self):
        self.check_still_serving()

    def check_still_serving(self):
        self.assertTrue(self.d.alive(), "carcd died:\n" + self.d.log_tail())
        self.assertEqual(self.bystander.ping(), {})
        self.assertEqual(self.bystander.state(self.game), self.bystander_state,
                         "a game of another client changed")
        for transport in ("unix", "tcp"):
            for encoding in ("msgpack", "json"):
                with self.d.client(transport, encoding, timeout=5) as c:
                    self.assertEqual(c.ping(), {})
                    self.assertEqual(c.state(self.game)["seq"], self.bystander_state["seq"])

    # ---- helpers -------------------------------------------------------------------
    def assertAnswerThenClose(self, r, mode, code):
        self.assertErrorResponse(r.read_one(mode), code)
        self.assertTrue(r.closed_by_peer(5), "the connection stayed open after a %s framing error" % code)

    def assertPing(self, r, mode, msgid=77):
        if mode == "msgpack":
            r.send_msgpack([0, msgid, "ping", {}])
        else:
            r.send_line('[0, %d, "ping", {}]' % msgid)
        self.assertEqual(r.read_one(mode), [1, msgid, None, {}], "the connection does not go on")

    # ---- MessagePack framing errors: an answer, then close -------------------------
    def test_truncated_msgpack_then_shutdown_write(self):
        whole = packb([0, 1, "state", {"game": self.game}])
        for cut in (1, 5, len(whole) - 1):
            with self.d.raw("unix") as r:
                r.send(whole[:cut])
                time.sleep(0.05)
                r.shutdown_write()
                self.assertAnswerThenClose(r, "msgpack", "bad_request")

    def test_truncated_msgpack_after_good_requests(self):
        with self.d.raw("tcp") as r:
            r.send_msgpack([0, 1, "ping", {}])
            self.assertEqual(r.read_one("msgpack"), [1, 1, None, {}])
            r.send(packb([0, 2, "ping", {}])[:3])
            r.shutdown_write()
            self.assertAnswerThenClose(r, "msgpack", "bad_request")

    def test_five_bytes_declaring_four_billion_elements(self):
        rss_before = vmrss_kib(self.d.proc.pid)
        cases = (b"\xdd\xff\xff\xff\xff",                         # array32 of 2^32-1 elements
                 b"\x94\x00\x01\xa4ping\xdf\xff\xff\xff\xff",      # params: map32 of 2^32-1 pairs
                 b"\x94\x00\x01\xdb\xff\xff\xff\xff",              # method: str32 of 4 GiB
                 b"\x94\x00\x01\xa4ping\xc6\xff\xff\xff\xff")      # params: bin32 of 4 GiB
        for data in cases:
            for transport in ("unix", "tcp"):
                with self.d.raw(transport) as r:
                    r.send(data)   # and nothing more: the header alone is judged
                    self.assertAnswerThenClose(r, "msgpack", "limit")
        grew = vmrss_kib(self.d.proc.pid) - rss_before
        self.assertLess(grew, 32 * 1024, "carcd's memory grew by %d KiB on declared lengths" % grew)

    def test_nesting_depth_1000(self):
        for data in (b"\x91" * 1000 + b"\xc0",
                     b"\x94\x00\x01\xa4ping" + b"\x91" * 999 + b"\xc0",
                     b"\x94\x00\x01\xa4ping" + b"\x81\xa1k" * 999 + b"\xc0"):
            with self.d.raw("unix") as r:
                r.send(data)
                self.assertAnswerThenClose(r, "msgpack", "limit")

    def test_byte_c1(self):
        for data in (b"\x94\x00\x01\xc1", b"\x94\x00\x01\xa4ping\x81\xc1\x00", b"\x92\xc1"):
            with self.d.raw("unix") as r:
                r.send(data)
                self.assertAnswerThenClose(r, "msgpack", "bad_request")

    def test_request_over_the_size_limit(self):
        big = packb([0, 1, "new_game", {"players": ["x" * 1000] * (MIB // 1000 + 10)}])
        one_string = packb([0, 1, "ping", {"pad": "x" * (MIB + 10)}])
        for data in (big, one_string):
            self.assertGreater(len(data), MIB)
            for transport in ("unix", "tcp"):
                with self.d.raw(transport, timeout=10) as r:
                    r.send(data)   # the daemon may close before it has read it all
                    self.assertAnswerThenClose(r, "msgpack", "limit")

    # ---- MessagePack objects that are not requests: an answer, and it goes on --------
    def test_non_array_envelope(self):
        with self.d.raw("unix") as r:
            self.assertPing(r, "msgpack", 1)
            for bad in ({"method": "ping"}, "ping", 42, None, True, 1.5, b"\x00",
                        [], [0, 1], [0, 1, "ping"], [0, 1, "ping", {}, 5],
                        [5, 1, "ping", {}], [1, 1, None, {}], [2, "event", {}],
                        [0, "one", "ping", {}], [0, -1, "ping", {}], [0, 1 << 32, "ping", {}],
                        [0, 1, 7, {}], [0, 1, None, {}]):
                r.send_msgpack(bad)
                resp = r.read_one("msgpack")
                self.assertErrorResponse(resp, "bad_request")
            self.assertPing(r, "msgpack", 2)

    def test_non_array_envelope_json(self):
        with self.d.raw("tcp") as r:
            # (a bare word is the shorthand for a method; a method name starts with a letter)
            for bad in ('{"method": "ping"}', '"ping"', "42", "[]", "[0, 1]",
                        '[0, 1, "ping"]', '[7, 1, "ping", {}]', '[0, "one", "ping", {}]',
                        '[0, -1, "ping", {}]', '[0, 1, 7, {}]'):
                r.send_line(bad)
                self.assertErrorResponse(r.read_one("json"), "bad_request")
            self.assertPing(r, "json")

    def test_wrong_types_in_params(self):
        g = self.game
        cases = [("state", {"game": "seven"}), ("state", {"game": 1.5}), ("state", {"game": None}),
                 ("state", {"game": [g]}), ("state", {}),
                 ("legal_moves", {"game": g, "seat": "one"}),
                 ("apply_move", {"game": g, "move": "pass", "token": self.tokens[0]}),
                 ("apply_move", {"game": g, "move": {"type": "pass"}, "token": 5}),
                 ("apply_move", {"game": g, "move": {"type": "pass"}, "token": self.tokens[0], "seq": "3"}),
                 ("apply_move", {"game": g, "token": self.tokens[0]}),
                 ("new_game", {"players": "ann"}), ("new_game", {"players": [1, 2]}),
                 ("new_game", {"players": ["ann"], "seed": "7"}),
                 ("new_game", {"players": ["ann"], "auth": "false"}),
                 ("new_game", {"players": ["ann"], "expansions": "base"}),
                 ("new_game", {"players": ["ann"], "rules": ["farmers"]}),
                 ("new_game", {"players": ["ann"], "rules": {"farmers": "no"}}),
                 ("new_game", {"players": ["ann"], "tiles": "BA/C"}),
                 ("new_game", {"players": ["ann"], "start": [{"tile": "BA/C", "x": "0", "y": 0, "rot": 0}]}),
                 ("new_game", {"players": ["ann"], "start": [{"tile": "BA/C", "x": 0, "y": 0, "rot": 45}]}),
                 ("close_game", {"game": g, "admin_token": 12}),
                 ("subscribe", {"game": "x"})]
        for encoding in ("msgpack", "json"):
            with self.d.client("unix", encoding) as c:
                for method, params in cases:
                    with self.assertRaises(carcd.Error, msg="%s %r" % (method, params)) as cm:
                        c.call(method, params)
                    self.assertEqual(cm.exception.code, "invalid_params", "%s %r: %s" % (method, params, cm.exception))
                # params that are not a map at all
                for params in (7, "x", [1], [{"game": g}, 2]):
                    msgid = c.send("state", params)
                    with self.assertRaises(carcd.Error) as cm:
                        c.response(msgid)
                    self.assertIn(cm.exception.code, ("invalid_params", "bad_request"))
                self.assertEqual(c.ping(), {})

    def test_unknown_method(self):
        for encoding in ("msgpack", "json"):
            with self.d.client("tcp", encoding) as c:
                for name in ("no_such_method", "PING", "", "x" * 200):
                    with self.assertRaises(carcd.Error) as cm:
                        c.call(name)
                    self.assertEqual(cm.exception.code, "unknown_method")
                self.assertEqual(c.ping(), {})
        with self.d.raw("unix") as r:
            r.send_line("fly_to_the_moon {}")
            self.assertErrorResponse(r.read_one("json"), "unknown_method", None)
            self.assertPing(r, "json")

    # ---- JSON lines -----------------------------------------------------------------
    def test_bad_json(self):
        with self.d.raw("unix") as r:
            for bad in (b"{", b'ping {', b'state {"game": }', b'[0, 1, "ping"', b"ping {} trailing",
                        b"\xc1\xff\xfe", b'[0, 1, "ping", {"a": NaN}]', b"state {'game': 1}"):
                r.send_line(bad)
                self.assertErrorResponse(r.read_one("json"), "bad_request")
            self.assertPing(r, "json")

    def test_json_line_over_the_limit(self):
        with self.d.raw("tcp", timeout=10) as r:
            r.send_line('[0, 1, "ping", {}]')
            self.assertEqual(r.read_one("json"), [1, 1, None, {}])
            self.assertTrue(r.send(b'[0, 2, "ping", {"pad": "' + b"x" * MIB), "the daemon stopped reading")
            r.send(b'"}]\n')
            self.assertErrorResponse(r.read_one("json"), "limit")
            self.assertPing(r, "json", 3)

    def test_json_1mib_line_without_newline(self):
        with self.d.raw("unix", timeout=10) as r:
            self.assertTrue(r.send(b"x" * MIB), "the daemon stopped reading")
            resp = r.read_one("json", timeout=5)   # may come now, or once the line ends
            r.send(b"\n")
            resp = resp or r.read_one("json")
            self.assertErrorResponse(resp, "limit")
            self.assertPing(r, "json")

    def test_json_nesting_over_the_limit(self):
        with self.d.raw("tcp") as r:
            r.send_line('[0, 1, "ping", {"a": ' + "[" * 100 + "]" * 100 + "}]")
            self.assertErrorResponse(r.read_one("json"), "limit")
            self.assertPing(r, "json")

    def test_http_request(self):
        for transport in ("unix", "tcp"):
            with self.d.raw(transport) as r:
                r.send(b"GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: test\r\n\r\n")
                self.assertClosedSilently(r, "an HTTP request")

    def test_http_of_other_versions(self):
        """Section 7: an HTTP request line is closed without a reply, of
        any method, of HTTP/0.9 (a path, no version) and HTTP/2's preface
        too."""
        for data in (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", b"GET /\r\n", b"GET /index.html\r\n",
                     # any method, known or not: the body is never run
                     b"PROPFIND /dav HTTP/1.1\r\nHost: x\r\n\r\nping {}\n",
                     b'BREW /pot HTTP/1.1\r\nHost: x\r\n\r\nnew_game {"players":["evil"]}\n'):
            with self.subTest(data=data), self.d.raw("tcp") as r:
                r.send(data)
                self.assertClosedSilently(r, data)

    def assertClosedSilently(self, r, what):
        """The daemon closes the connection and sends nothing before (read
        first: closed_by_peer drops what it reads)."""
        got, closed = r.read_to_close("json", 5)
        self.assertTrue(closed, "%r did not close the connection" % (what,))
        self.assertEqual(got, [], what)

    def test_http_as_the_last_line(self):
        """A request line without its newline, the peer's writing side
        shut: the same as with one, \r or not."""
        for data in (b"PUT /x HTTP/1.1\r", b"PUT /x HTTP/1.1", b"GET /"):
            with self.subTest(data=data), self.d.raw("tcp") as r:
                r.send(data)
                time.sleep(0.05)
                r.shutdown_write()
                self.assertClosedSilently(r, data)
        with self.d.raw("tcp") as r:   # and a request so ended is served
            r.send(b'[0,7,"ping",{}]\r')
            r.shutdown_write()
            self.assertEqual(r.read_one("json"), [1, 7, None, {}])

    def test_slow_reader_does_not_slow_the_others(self):
        """A client that pipelines requests and never reads their (large)
        responses: the daemon cuts it off past its output limit, or stops
        reading from it; either way the others are served at once."""
        with self.d.client("unix") as c:
            g = c.new_game(["ann", "bob"], auth=False)
            harness.play_random_game(lambda lm, m: c.apply_move(g["game"], m),
                                     lambda: c.legal_moves(g["game"]), harness.new_rng("slow"))
            one = len(packb(c.history(g["game"])))
        request = packb([0, 1, "history", {"game": g["game"]}])
        wanted = 3 * 8 * MIB // one + 1          # responses of 24 MiB in all
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.d.unix_path)
        s.setblocking(False)
        sent, deadline = 0, time.monotonic() + 3
        try:
            while sent < wanted and time.monotonic() < deadline:
                try:
                    s.sendall(request)
                    sent += 1
                except BlockingIOError:
                    time.sleep(0.01)
                except (BrokenPipeError, ConnectionResetError):
                    break
            t0 = time.monotonic()
            self.check_still_serving()
            self.assertLess(time.monotonic() - t0, 2.0 * harness.SLOW, "a slow reader slowed the others")
            got = 0
            s.setblocking(True)
            s.settimeout(5)
            try:
                while True:
                    data = s.recv(1 << 20)
                    if not data:
                        break
                    got += len(data)
            except (socket.timeout, ConnectionResetError):
                pass
            # all of it (the daemon stopped reading while it could not write)
            # or less (it cut the reader off); never more
            self.assertLessEqual(got, sent * (one + 16))
        finally:
            s.close()

    # ---- game errors ----------------------------------------------------------------
    def game_errors(self, c):
        g = c.new_game(["ann", "bob"])
        game, t0, t1 = g["game"], g["seats"][0]["token"], g["seats"][1]["token"]
        lm = c.legal_moves(game)
        move = lm["moves"][0]

        def code(fn, *a, **kw):
            try:
                fn(*a, **kw)
            except carcd.Error as e:
                self.assertTrue(e.message, e)
                return e.code
            self.fail("accepted: %s %r %r" % (fn.__name__, a, kw))

        # wrong token: of no seat, of another game's seat, the admin token
        self.assertEqual(code(c.apply_move, game, move, token="00" * 16), "forbidden")
        self.assertEqual(code(c.apply_move, game, move, token=self.tokens[0]), "forbidden")
        self.assertEqual(code(c.apply_move, game, move, token=g["admin_token"]), "forbidden")
        # out of turn
        self.assertEqual(code(c.apply_move, game, move, token=t1), "not_your_turn")
        # illegal moves, each with a reason
        far = dict(move, x=move["x"] + 30)
        self.assertEqual(code(c.apply_move, game, far, token=t0), "illegal_move")
        self.assertEqual(code(c.apply_move, game, dict(move, x=0, y=0), token=t0), "illegal_move")
        self.assertEqual(code(c.apply_move, game, dict(move, tile="BA/Cccc+" if move["tile"] != "BA/Cccc+"
                                                          else "BA/L"), token=t0), "illegal_move")
        self.assertEqual(code(c.apply_move, game, {"type": "pass"}, token=t0), "illegal_move")
        self.assertIn(code(c.apply_move, game, {"type": "teleport"}, token=t0), ("illegal_move", "invalid_params"))
        # an edge that does not match its neighbour: the message says which
        placements = {(m["x"], m["y"], m["rot"]) for m in lm["moves"]}
        for x, y in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            bad = [r for r in (0, 90, 180, 270) if (x, y, r) not in placements]
            if bad:
                e = None
                try:
                    c.apply_move(game, dict(move, x=x, y=y, rot=bad[0]), token=t0)
                except carcd.Error as err:
                    e = err
                self.assertIsNotNone(e)
                self.assertEqual(e.code, "illegal_move")
                self.assertRegex(e.message.lower(), r"edge|side|north|east|south|west|match",
                                 "the reason does not name the edge: %r" % e.message)
                break
        # a seq that is not the current one
        self.assertEqual(code(c.apply_move, game, move, token=t0, seq=lm["seq"] + 1), "conflict")
        # none of it changed the game
        self.assertEqual(c.legal_moves(game), lm)
        res = c.apply_move(game, move, token=t0, seq=lm["seq"])
        self.assertGreater(res["seq"], lm["seq"])
        # a stale seq: the move just played, sent again
        lm2 = c.legal_moves(game)
        self.assertEqual(code(c.apply_move, game, lm2["moves"][0], token=t0, seq=lm["seq"]), "conflict")
        self.assertEqual(c.legal_moves(game), lm2)
        # unknown game, for every method that names one
        for method, params in (("state", {}), ("legal_moves", {}), ("score", {}), ("history", {}),
                               ("apply_move", {"move": move, "token": t0}), ("subscribe", {}),
                               ("unsubscribe", {}), ("close_game", {"admin_token": g["admin_token"]})):
            params = dict(params, game=987654321)
            self.assertEqual(code(c.call, method, params), "no_such_game", method)

    def test_game_errors_msgpack(self):
        with self.d.client("unix", "msgpack") as c:
            self.game_errors(c)

    def test_game_errors_json(self):
        with self.d.client("tcp", "json") as c:
            self.game_errors(c)


class SlowSubscriber(unittest.TestCase):
    OUTPUT_LIMIT = 64 * 1024

    def test_slow_subscriber_is_cut_off(self):
        """A subscriber that reads nothing, of many games at once: its
        notifications pile up past --max-output and it is cut off, while
        the games go on at full speed."""
        with harness.Daemon("--max-output", str(self.OUTPUT_LIMIT)) as d, \
                d.client("unix") as player, d.client("unix") as watcher:
            games = [player.new_game(["ann", "bob"], auth=False)["game"] for _ in range(40)]
            s = socket.socket(socket.AF_UNIX)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(d.unix_path)
            for i, game in enumerate(games):
                s.sendall(packb([0, i, "subscribe", {"game": game}]))
            watcher.subscribe(games[0])
            rng = harness.new_rng("slow subscriber")
            t0 = time.monotonic()
            moves = 0
            for game in games:
                moves += len(harness.play_random_game(lambda lm, m, g=game: player.apply_move(g, m),
                                                      lambda g=game: player.legal_moves(g), rng))
            elapsed = time.monotonic() - t0
            # a subscriber that reads is not cut off, and saw its game
            notes = [watcher.next_event(timeout=5) for _ in range(3)]
            self.assertNotIn(None, notes)
            # the one that did not read was cut off: it reads what was sent, then EOF
            s.settimeout(10)
            got = 0
            while True:
                try:
                    data = s.recv(1 << 16)
                except ConnectionResetError:
                    break
                if not data:
                    break
                got += len(data)
            s.close()
            total = 0
            for game in games:
                total += len(packb(player.history(game)["events"]))
            self.assertLess(got, total, "the slow subscriber was never cut off")
            self.assertLess(elapsed / moves, 0.01, "the games slowed down: %.1f ms a move" % (elapsed / moves * 1e3))
            self.assertEqual(player.ping(), {})


class ConnectionLimit(unittest.TestCase):
    LIMIT = 6

    @staticmethod
    def connect_retrying(d, transport):
        """A served connection; retried while the daemon may not yet have
        seen that an earlier connection closed."""
        deadline = time.monotonic() + 5
        while True:
            try:
                c = d.client(transport, timeout=2)
                c.ping()
                return c
            except (carcd.ConnectionClosed, OSError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def test_over_max_connections(self):
        with harness.Daemon("--max-connections", str(self.LIMIT)) as d:
            held = []
            try:
                for i in range(self.LIMIT):
                    held.append(self.connect_retrying(d, "unix" if i % 2 else "tcp"))
                for transport in ("unix", "tcp"):
                    with d.raw(transport) as r:
                        r.send_msgpack([0, 1, "ping", {}])
                        got, closed = r.read_to_close("msgpack", 5)
                        self.assertTrue(closed, "a connection over the limit was served")
                        self.assertEqual(got, [], "a connection over the limit was answered")
                # every other connection is still served
                for c in held:
                    self.assertEqual(c.ping(), {})
                g = held[0].new_game(["ann"])
                self.assertEqual(held[1].state(g["game"])["game"], g["game"])
                # a freed place can be taken again
                held.pop().close()
                self.connect_retrying(d, "unix").close()
                self.assertTrue(d.alive())
            finally:
                for c in held:
                    c.close()
            self.assertEqual(d.stop(), 0)


class OtherLimits(unittest.TestCase):
    def test_max_games(self):
        """Past --max-games, new_game drops the oldest finished game nobody
        watches, and answers `limit` when there is none (proto/PROTOCOL.md)."""
        with harness.Daemon("--max-games", "3") as d, d.client("unix") as c:
            short = c.new_game(["ann"], tiles=["BA/C"], auth=False)
            held = [c.new_game(["ann", "bob"])["game"] for _ in range(2)]
            with self.assertRaises(carcd.Error) as cm:
                c.new_game(["ann", "bob"])
            self.assertEqual(cm.exception.code, "limit")
            harness.play_random_game(lambda lm, m: c.apply_move(short["game"], m),
                                     lambda: c.legal_moves(short["game"]), harness.new_rng("max_games"))
            g = c.new_game(["ann", "bob"])
            with self.assertRaises(carcd.Error) as cm:
                c.state(short["game"])
            self.assertEqual(cm.exception.code, "no_such_game")
            for game in held + [g["game"]]:
                self.assertEqual(c.state(game)["seq"], 0)

    def test_max_games_evicts_the_oldest_finished_game_nobody_watches(self):
        """The game dropped is the oldest of the finished ones that no
        connection watches: a watched one stays, and so do newer ones."""
        with harness.Daemon("--max-games", "4") as d, d.client("unix") as c, d.client("unix") as w:
            done = []
            for i in range(3):
                g = c.new_game(["ann"], tiles=["BA/C"], auth=False)
                harness.play_random_game(lambda lm, m: c.apply_move(g["game"], m),
                                         lambda: c.legal_moves(g["game"]), harness.new_rng("evict%d" % i))
                done.append(g["game"])
            w.subscribe(done[0])
            running = c.new_game(["ann", "bob"])["game"]
            c.new_game(["ann", "bob"])         # full: drops done[1], the oldest nobody watches
            held = [s["game"] for s in c.games()["games"]]
            self.assertNotIn(done[1], held)
            self.assertIn(done[0], held)
            self.assertIn(done[2], held)
            self.assertIn(running, held)
            self.assertEqual(c.stats()["games_evicted"], 1)
            c.new_game(["ann", "bob"])         # then done[2]
            held = [s["game"] for s in c.games()["games"]]
            self.assertNotIn(done[2], held)
            self.assertIn(done[0], held)
            w.unsubscribe(done[0])
            c.new_game(["ann", "bob"])         # unwatched now: done[0] goes
            held = [s["game"] for s in c.games()["games"]]
            self.assertNotIn(done[0], held)
            self.assertEqual(len(held), 4)
            with self.assertRaises(carcd.Error) as cm:
                c.new_game(["ann", "bob"])
            self.assertEqual(cm.exception.code, "limit")

    def test_idle_timeout(self):
        with harness.Daemon("--idle-timeout", "1") as d:
            with d.raw("unix") as idle, d.client("tcp") as busy:
                self.assertEqual(busy.hello()["limits"]["idle_timeout"], 1)   # so clients know when to ping
                t0 = time.monotonic()
                while time.monotonic() - t0 < 1.6:
                    self.assertEqual(busy.ping(), {})
                    time.sleep(0.2)
                self.assertTrue(idle.closed_by_peer(3), "an idle connection was not closed")
                self.assertEqual(busy.ping(), {})


    def test_blank_lines_are_no_activity(self):
        """PROTOCOL.md 5: only a complete request (or a notification) counts as activity; blank
        lines are ignored, so a client sending nothing but them is closed at the idle timeout."""
        with harness.Daemon("--idle-timeout", "1") as d:
            with d.raw("unix") as blank:
                blank.send(b"ping\n")
                t0 = time.monotonic()
                closed = False
                while time.monotonic() - t0 < 3.5 and not closed:
                    try:
                        blank.send(b"\n  \r\n\t\n")
                    except OSError:
                        closed = True
                        break
                    closed = blank.closed_by_peer(0.3)
                self.assertTrue(closed, "blank lines kept a connection open past --idle-timeout")

class SocketActivation(unittest.TestCase):
    def test_listen_fds(self):
        """Sockets handed over as systemd does (LISTEN_FDS, LISTEN_PID, from fd 3)."""
        tmp = tempfile.mkdtemp(prefix="carcd-test-")
        path = os.path.join(tmp, "activated.sock")
        us = socket.socket(socket.AF_UNIX)
        us.bind(path)
        us.listen(16)
        ts = socket.socket(socket.AF_INET)
        ts.bind(("127.0.0.1", 0))
        ts.listen(16)
        port = ts.getsockname()[1]

        def as_systemd_does():
            os.dup2(us.fileno(), 3)
            os.dup2(ts.fileno(), 4)
            os.environ.update(LISTEN_FDS="2", LISTEN_PID=str(os.getpid()))

        log = open(os.path.join(tmp, "carcd.log"), "wb")
        proc = subprocess.Popen(harness.WRAPPER + [harness.CARCD], stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, close_fds=False, preexec_fn=as_systemd_does)
        try:
            us.close()
            ts.close()
            for address in ("unix:" + path, "tcp:127.0.0.1:%d" % port):
                deadline = time.monotonic() + harness.START_TIMEOUT
                while True:
                    try:
                        with carcd.Client(address, timeout=5) as c:
                            self.assertEqual(c.ping(), {})
                            self.assertEqual(c.new_game(["ann"])["state"]["phase"], "tile")
                        break
                    except carcd.ConnectionClosed:
                        self.assertLess(time.monotonic(), deadline, "no answer on " + address)
                        time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            self.assertEqual(proc.wait(harness.STOP_TIMEOUT), 0)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.close()
            shutil.rmtree(tmp, ignore_errors=True)


class Signals(unittest.TestCase):
    def test_sigterm_exits_zero_with_clients_connected(self):
        d = harness.Daemon().start()
        try:
            c = d.client("unix")
            c.new_game(["ann"])
            r = d.raw("tcp")
            r.send(b"\x94\x00")   # half a request in flight
        finally:
            status = d.stop()
        c.close()
        r.close()
        self.assertEqual(status, 0)

    def test_sigpipe_ignored(self):
        """A client that sends requests and closes without reading its
        responses must not kill the daemon."""
        d = harness.Daemon().start()
        try:
            for _ in range(20):
                s = socket.socket(socket.AF_UNIX)
                s.connect(d.unix_path)
                s.sendall(packb([0, 1, "hello", {}]) * 200)
                s.close()
            with d.client("unix") as c:
                self.assertEqual(c.ping(), {})
            self.assertTrue(d.alive())
        finally:
            self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    unittest.main()

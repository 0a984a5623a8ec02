"""test_client.py - contrib/web/carcd.js, the browser client, in headless
Chromium against a real carcd.

The page is tests/web/client_test.html, served by browser.Static (an http
origin) and also opened from file:// (origin null); it loads the library and
a few helpers (playRandomGame, outcome, errorOf), and each test drives it
with Page.eval of an async expression.  One Chromium and one carcd (with a
WebSocket listener and --max-line 1024) serve the module; tests that close
or stop a daemon, or set --ws-origin, start a daemon of their own.  The
Python client (contrib/python/carcd.py, over TCP) is the reference: what
the browser is told must be what it is told.

Each test checks, at its end, that the page logged no error nor uncaught
exception but those the test expects (a connection it made fail on purpose).
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import unittest

import websockets

import browser
from browser import SLOW, Browser, Static, WsDaemon
import harness
from harness import carcd

MAX_LINE = 1024
_module = {}


def setUpModule():
    _module["static"] = Static()
    try:
        _module["daemon"] = WsDaemon("--max-line", str(MAX_LINE)).start()
        _module["browser"] = Browser()
    except BaseException:
        tearDownModule()
        raise


def tearDownModule():
    b = _module.pop("browser", None)
    if b:
        b.close()
    s = _module.pop("static", None)
    if s:
        s.close()
    d = _module.pop("daemon", None)
    if d:
        harness.stop_checked(d)


def js(value):
    """value as a JavaScript literal."""
    return json.dumps(value)


class FakeServer:
    """A WebSocket server that is not carcd: each text it gets is answered
    with what reply(text, path) returns (str: a text message, bytes: a binary
    one), for what carcd never sends."""

    def __init__(self, reply):
        self.reply = reply
        self.loop = browser.LoopThread()
        self.server = self.loop.run(self._start(), 10)
        self.port = self.server.sockets[0].getsockname()[1]
        self.url = "ws://127.0.0.1:%d/" % self.port

    async def _start(self):
        return await websockets.serve(self._serve, "127.0.0.1", 0)

    async def _serve(self, ws, path):
        try:
            async for text in ws:
                await ws.send(self.reply(text, path))
        except websockets.exceptions.ConnectionClosed:
            pass

    def close(self):
        async def stop():
            self.server.close()
            await self.server.wait_closed()
        self.loop.run(stop(), 10)
        self.loop.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ClientCase(unittest.TestCase):
    maxDiff = None
    PAGE = "tests/web/client_test.html"

    def setUp(self):
        self.daemon = _module["daemon"]
        self.static = _module["static"]
        self.browser = _module["browser"]
        self.pages = []
        # console lines a test expects (regexes); any other error fails it
        self.expected_console = []
        self.page = self.open_page()
        self.py = self.daemon.client("tcp", "json")

    def tearDown(self):
        self.py.close()
        try:
            for page in self.pages:
                unexpected = [line for line in page.console()
                              if re.match(r"(error|exception)\b", line)
                              and not any(re.search(p, line) for p in self.expected_console)]
                self.assertEqual(unexpected, [], "the page logged errors")
        finally:
            for page in self.pages:
                page.close()

    def open_page(self, url=None):
        page = self.browser.open(url or self.static.url(self.PAGE))
        self.pages.append(page)
        page.wait_for("window.pageReady === true && typeof Carcd === 'function'")
        return page

    def eval(self, expr, timeout=20, page=None):
        return (page or self.page).eval(expr, timeout)

    def run_js(self, body, url=None, timeout=20, page=None):
        """Runs an async function body with `URL` the daemon's ws URL (or url); its value."""
        return self.eval("(async (URL) => {\n%s\n})(%s)" % (body, js(url or self.daemon.ws_url)),
                         timeout, page)

    def new_py_game(self, players=("ann", "bob"), **kw):
        return self.py.new_game(players=list(players), **kw)

    def play_py(self, game, tokens, n):
        """n moves of game by the Python client, the first listed each time; their results."""
        results = []
        for _ in range(n):
            lm = self.py.legal_moves(game)
            results.append(self.py.apply_move(game, lm["moves"][0], token=tokens[lm["seat"]], seq=lm["seq"]))
        return results

    def py_error(self, method, params):
        """(code, message, data) of what the daemon tells the Python client."""
        try:
            self.py.call(method, params)
        except carcd.Error as e:
            return e.code, e.message, e.data
        self.fail("%s %r did not fail over TCP" % (method, params))

    def assertClosedError(self, err, code, reason):
        self.assertTrue(err.get("isCarcdError"), err)
        self.assertEqual(err["code"], "closed", err)
        self.assertIn("code %d" % code, err["message"])
        if reason:
            self.assertIn(reason, err["message"])
        self.assertEqual(err["data"], "<undefined>", err)


class TestBasics(ClientCase):

    def test_globals_and_error_codes(self):
        got = self.eval("""({
            carcd: typeof window.Carcd, error: typeof window.CarcdError,
            codes: Carcd.ERROR_CODES, frozen: Object.isFrozen(Carcd.ERROR_CODES),
            isError: new CarcdError("limit", "m") instanceof Error,
            fields: (e => [e.name, e.code, e.message, e.data])(new CarcdError("illegal_move", "no", {reason: "x"})),
        })""")
        self.assertEqual(got["carcd"], "function")
        self.assertEqual(got["error"], "function")
        self.assertEqual(got["codes"], list(harness.ERROR_CODES))
        self.assertTrue(got["frozen"])
        self.assertTrue(got["isError"])
        self.assertEqual(got["fields"], ["CarcdError", "illegal_move", "no", {"reason": "x"}])

    def test_connect_and_hello(self):
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const before = c.pending;
            const h = await c.call("hello", {client: "carcd.js tests"});
            const ping = await c.call("ping");      // params default to {}
            return {url: c.url, before, after: c.pending, h, ping, isCarcd: c instanceof Carcd};""")
        self.assertEqual(got["url"], self.daemon.ws_url)
        self.assertEqual(got["before"], 0)
        self.assertEqual(got["after"], 0)
        self.assertTrue(got["isCarcd"])
        self.assertEqual(got["ping"], {})
        h = got["h"]
        self.assertEqual(h["server"], "carcd")
        self.assertEqual(h["protocol"], 1)
        self.assertEqual(h["methods"], list(harness.METHODS))
        self.assertEqual(h, self.py.hello("carcd.js tests"))

    def test_handler_names(self):
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const out = [];
            for (const f of ["on", "off"]) {
              for (const name of ["events", "message", "", "Close"]) {
                try { c[f](name, () => {}); out.push(f + " " + name + ": accepted"); }
                catch (e) { out.push(f + " " + name + ": " + e.name); }
              }
            }
            const fn = () => {};
            c.off("event", fn);                      // never added: nothing happens
            c.on("event", fn).on("close", fn);
            out.push((await c.call("ping")) ? "ok" : "no");
            return out;""")
        self.assertEqual(got, ["on events: TypeError", "on message: TypeError", "on : TypeError",
                               "on Close: TypeError", "off events: TypeError", "off message: TypeError",
                               "off : TypeError", "off Close: TypeError", "ok"])

    def test_unserializable_params(self):
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const cyc = {}; cyc.self = cyc;
            const sent = [], send = c._ws.send.bind(c._ws);
            c._ws.send = (text) => { sent.push(JSON.parse(text)[2]); send(text); };
            const r = [await outcome(c.call("ping", {big: 1n})), await outcome(c.call("ping", cyc)),
                       await outcome(c.call("state", {game: 1, seq: NaN})),
                       await outcome(c.call("new_game", {players: ["a"], seed: [-Infinity]}))];
            r.push(c.pending, await c.call("ping"), sent);
            return r;""")
        for err in got[:4]:
            self.assertEqual(err["name"], "TypeError", err)
        self.assertIn('parameter "seq" is NaN', got[2]["message"])
        self.assertIn('is -Infinity', got[3]["message"])
        self.assertEqual(got[4:], [0, {}, ["ping"]])


class TestGames(ClientCase):

    def test_random_game_to_the_end(self):
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const g = await c.call("new_game", {players: ["ann", "bob"]});
            const tokens = g.seats.map(s => s.token);
            const played = await playRandomGame(c, g.game, tokens, 20261207);
            const score = await c.call("score", {game: g.game});
            const state = await c.call("state", {game: g.game});
            return {game: g.game, played, score, over: state.over, phase: state.phase};""", timeout=120)
        played = got["played"]
        self.assertGreater(played["moves"], 71, "a base game places at least the 71 tiles of its supply")
        self.assertEqual(played["seqs"], list(range(1, played["moves"] + 1)))
        self.assertEqual(played["lastPhase"], "over")
        self.assertTrue(got["over"])
        self.assertEqual(got["phase"], "over")
        over = [ev for ev in played["events"] if ev["type"] == "game_over"]
        self.assertEqual(len(over), 1)
        py_score = self.py.score(got["game"])
        self.assertTrue(py_score["final"])
        self.assertEqual(got["score"], py_score)
        self.assertEqual(over[0]["scores"], py_score["scores"])
        self.assertEqual(harness.points_by_seat(played["events"], 2), py_score["scores"])
        # and the game the daemon recorded is the one the page played
        hist = self.py.history(got["game"])
        self.assertEqual(len(hist["moves"]), played["moves"])

    def test_play_is_one_request_a_decision(self):
        """client.play: the chooser (here async) gets each decision of the
        seats it holds tokens for, as legal_moves lists it; its moves are
        the game's, each told to onMove, and with subscribe's moves the
        whole game costs a request a move and four more."""
        g = self.new_py_game(expansions=harness.EVERY_SET, seed=12)
        tokens = {str(s["seat"]): s["token"] for s in g["seats"]}
        before = self.py.stats()["requests"]
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const seen = [], told = [];
            const score = await c.play(%d, %s, async (due) => { seen.push(due); return due.moves[due.moves.length - 1]; },
                                       {features: true, onMove: (due, move) => told.push([due.seq, move])});
            await c.close();
            return {score, seen, told};""" % (g["game"], js(tokens)), timeout=120)
        spent = self.py.stats()["requests"] - before - 1   # the second stats call counts itself
        seen, told = got["seen"], got["told"]
        hist = self.py.history(g["game"])
        self.assertTrue(got["score"]["final"])
        self.assertEqual(got["score"], self.py.score(g["game"]))
        self.assertEqual(len(hist["moves"]), len(seen))
        self.assertEqual([d["seq"] for d in seen], list(range(len(seen))))
        self.assertEqual(told, [[d["seq"], d["moves"][-1]] for d in seen])
        for due, m in zip(seen, hist["moves"]):
            self.assertEqual(due["seat"], m["seat"])
            self.assertEqual({k: v for k, v in due["moves"][-1].items() if k not in ("feature", "ports")}, m["move"])
        self.assertTrue(any("feature" in m for d in seen for m in d["moves"]))
        self.assertEqual(spent, len(seen) + 4)   # hello, subscribe, one legal_moves, score

    def test_play_of_a_closed_game(self):
        """A game closed while play waits for the other seat rejects
        no_such_game; a move carcd refuses rejects with its error."""
        g = self.new_py_game(seed=13)
        self.run_js("""
            window.__played = null;
            const c = await Carcd.connect(URL);
            c.play(%d, {1: %s}, (due) => due.moves[0]).then(
              (r) => { window.__played = {result: r}; },
              (e) => { window.__played = {code: e.code, message: e.message}; });
            return true;""" % (g["game"], js(g["seats"][1]["token"])))
        # play has subscribed: it waits for seat 0's move
        harness.wait_for(lambda: self.py.games(after=g["game"] - 1, limit=1)["games"][0]["watchers"] == 1, 10 * SLOW)
        self.py.close_game(g["game"], g["admin_token"])
        got = self.page.wait_for("window.__played", 20)
        self.assertEqual(got["code"], "no_such_game", got)
        g = self.new_py_game(seed=13)
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            return await c.play(%d, {0: %s}, (due) => ({type: "pass"})).catch((e) => [e.code, e.data]);
            """ % (g["game"], js(g["seats"][0]["token"])))
        self.assertEqual(got[0], "illegal_move")
        self.assertEqual(self.py.state(g["game"])["seq"], 0)

    def test_wire_errors(self):
        g = self.new_py_game()
        game, tokens = g["game"], [s["token"] for s in g["seats"]]
        lm = self.py.legal_moves(game)
        taken = dict(lm["moves"][0], x=0, y=0)      # the start tile lies there
        cases = [
            ("nope", {}),
            ("new_game", {"players": []}),
            ("state", {"game": "one"}),
            ("apply_move", {"game": game, "token": tokens[0], "move": taken}),
            ("apply_move", {"game": game, "token": tokens[1], "move": lm["moves"][0]}),
            ("apply_move", {"game": game, "move": lm["moves"][0]}),
            ("apply_move", {"game": game, "token": tokens[0], "seq": 5, "move": lm["moves"][0]}),
            ("state", {"game": 987654321}),
        ]
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const out = [];
            for (const [m, p] of %s) out.push(await outcome(c.call(m, p)));
            return out;""" % js(cases))
        codes = [e.get("code") for e in got]
        self.assertEqual(codes, ["unknown_method", "invalid_params", "invalid_params", "illegal_move",
                                 "not_your_turn", "forbidden", "conflict", "no_such_game"])
        for (method, params), err in zip(cases, got):
            self.assertTrue(err["isCarcdError"] and err["isError"], err)
            self.assertEqual(err["name"], "CarcdError")
            code, message, data = self.py_error(method, params)
            self.assertEqual(err["code"], code)
            self.assertEqual(err["message"], message)
            self.assertTrue(err["message"])
            self.assertEqual(err["data"], "<undefined>" if data is None else data)
        self.assertEqual(got[3]["data"]["reason"], "place_taken")
        self.assertEqual(got[4]["message"], "it is the turn of seat 0 (ann), not of seat 1 (bob)")
        self.assertEqual(got[7]["message"], "there is no game 987654321")
        # a refused move changed nothing
        self.assertEqual(self.py.state(game)["seq"], 0)

    def test_edge_mismatch_data(self):
        # PROTOCOL.md's example: BA/LR north of the start tile; data names the neighbour
        g = self.py.new_game(players=["ann"], tiles=["BA/LR", "BA/LR"])
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            return outcome(c.call("apply_move", {game: %d, token: %s,
                move: {type: "place_tile", tile: "BA/LR", x: 0, y: -1, rot: 0}}));""" % (
            g["game"], js(g["seats"][0]["token"])))
        self.assertEqual(got["code"], "illegal_move")
        self.assertEqual(got["data"], {"reason": "edge_mismatch", "x": 0, "y": 0, "at": "N"})
        self.assertIn("does not match", got["message"])

    def test_game_over_error(self):
        g = self.py.new_game(players=["solo"], tiles=["BA/CRr"], auth=False)
        harness.play_out(self.py, g["game"])
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            return outcome(c.call("apply_move", {game: %d, move: {type: "pass"}}));""" % g["game"])
        self.assertEqual(got["code"], "game_over")
        self.assertEqual(got["message"], "game %d is over" % g["game"])


class TestNotifications(ClientCase):

    def setUp(self):
        super().setUp()
        g = self.new_py_game()
        self.game, self.tokens = g["game"], [s["token"] for s in g["seats"]]
        other = self.new_py_game(players=["cy", "dee"])
        self.other, self.other_tokens = other["game"], [s["token"] for s in other["seats"]]

    def subscribe_page(self, decision=True):
        self.eval("""(async () => {
            window.client = await Carcd.connect(%s);
            window.got = []; window.got2 = [];
            window.handler = (n) => got.push(n);
            window.handler2 = (n) => got2.push(n);
            client.on("event", handler).on("event", handler2);
            return client.call("subscribe", {game: %d, decision: %s});
        })()""" % (js(self.daemon.ws_url), self.game, js(decision)))

    def settle(self):
        """Once a ping of the page's is answered, every notification queued
        for it before (a move the Python client saw answered) has been handled:
        one connection's messages come in order."""
        self.assertEqual(self.eval("client.call('ping')"), {})

    def test_events_of_a_subscribed_game(self):
        self.subscribe_page()
        results = self.play_py(self.game, self.tokens, 12)
        self.play_py(self.other, self.other_tokens, 3)      # not watched: never heard
        got = self.page.wait_for("got.length >= 12 && got")
        self.settle()
        got = self.eval("got")
        self.assertEqual(len(got), 12)
        self.assertEqual([n["game"] for n in got], [self.game] * 12)
        self.assertEqual([n["seq"] for n in got], list(range(1, 13)))
        for n, res in zip(got, results):
            self.assertEqual(n["events"], res["events"])
            self.assertEqual((n["phase"], n["seat"], n["over"]), (res["phase"], res["seat"], res["over"]))
        self.assertEqual(self.eval("got2"), got)

    def test_off_stops_events(self):
        self.subscribe_page(decision=False)
        self.play_py(self.game, self.tokens, 2)
        self.page.wait_for("got.length === 2 && got2.length === 2")
        self.eval("client.off('event', handler), 1")
        self.play_py(self.game, self.tokens, 3)
        self.page.wait_for("got2.length === 5")
        self.settle()
        self.assertEqual(self.eval("got.length"), 2)
        self.assertEqual([n["seq"] for n in self.eval("got2")], [1, 2, 3, 4, 5])
        self.assertNotIn("phase", self.eval("got2[0]"))     # no decision: the contract's form
        # on again: heard again
        self.eval("client.on('event', handler), 1")
        self.play_py(self.game, self.tokens, 1)
        self.page.wait_for("got.length === 3")
        self.assertEqual(self.eval("got[2].seq"), 6)

    def test_throwing_handler(self):
        self.expected_console = [r"^error: carcd\.js: a \"(event|close)\" handler threw: .*boom"]
        self.subscribe_page()
        self.eval("""client.on("event", (n) => { throw new Error("boom at " + n.seq); }),
                     client.on("close", () => { throw new Error("boom closing"); }), 1""")
        self.play_py(self.game, self.tokens, 4)
        self.page.wait_for("got2.length === 4")
        self.settle()
        # later calls, and handlers after the one that threw, go on
        st = self.eval("client.call('state', {game: %d})" % self.game)
        self.assertEqual(st["seq"], 4)
        self.assertEqual([n["seq"] for n in self.eval("got")], [1, 2, 3, 4])
        self.assertEqual(self.eval("got2.length"), 4)
        self.play_py(self.game, self.tokens, 1)
        self.page.wait_for("got2.length === 5")
        closed = self.eval("client.close()")
        self.assertEqual(closed["code"], 1000)
        throws = [line for line in self.page.console() if "boom" in line]
        self.assertEqual(len(throws), 6, self.page.console())
        self.assertTrue(any("boom closing" in line for line in throws))


class TestConcurrency(ClientCase):

    def test_many_calls_at_once(self):
        games = [self.new_py_game()["game"] for _ in range(5)]
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const games = %s;
            const calls = [];
            for (let i = 0; i < 200; i++) {
              if (i %% 2 === 0) calls.push(c.call("state", {game: games[i %% 5]}));
              else calls.push(outcome(c.call("state", {game: 900000 + i})));
            }
            const during = c.pending;
            const results = await Promise.all(calls);
            return {during, after: c.pending, results};""" % js(games))
        self.assertEqual(got["during"], 200)
        self.assertEqual(got["after"], 0)
        for i, r in enumerate(got["results"]):
            if i % 2 == 0:
                self.assertEqual(r["game"], games[i % 5], i)
                self.assertEqual(r["seq"], 0)
            else:
                self.assertEqual(r["code"], "no_such_game", i)
                self.assertEqual(r["message"], "there is no game %d" % (900000 + i), i)

    def test_msgids(self):
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const sent = [];
            const send = c._ws.send.bind(c._ws);
            c._ws.send = (text) => { sent.push(JSON.parse(text)); send(text); };
            await c.call("ping"); await c.call("ping");
            c._nextId = 2 ** 32 - 2;                  // as after four billion calls
            const r = await Promise.all([1, 2, 3, 4].map(i => c.call("state", {game: 999000 + i})
                                                          .catch(e => e.message)));
            return {ids: sent.map(m => m[1]), shapes: sent.map(m => [m[0], m[2], m[3]]), r};""")
        self.assertEqual(got["ids"], [1, 2, 2 ** 32 - 2, 2 ** 32 - 1, 1, 2])
        self.assertEqual(got["shapes"][0], [0, "ping", {}])
        self.assertEqual(got["r"], ["there is no game %d" % (999000 + i) for i in (1, 2, 3, 4)])

    def test_reply_without_msgid_answers_the_oldest_call(self):
        # a line over --max-line is answered `limit` with a nil msgid (carcd
        # could not read it); replies come in order, so it is that call's
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            return Promise.all([
              outcome(c.call("ping")),
              outcome(c.call("ping", {pad: "x".repeat(%d)})),
              outcome(c.call("state", {game: 424242})),
              outcome(c.call("hello")),
            ]);""" % (2 * MAX_LINE))
        self.assertEqual(got[0], {"resolved": {}})
        self.assertEqual(got[1]["code"], "limit")
        self.assertIn("%d bytes" % MAX_LINE, got[1]["message"])
        self.assertEqual(got[2]["code"], "no_such_game")
        self.assertEqual(got[3]["resolved"]["server"], "carcd")


class TestClosing(ClientCase):

    def test_play_pings_while_choose_thinks(self):
        """A chooser that takes longer than --idle-timeout (a promise that
        waits 2.5 s, on a daemon that closes after 1 s idle) keeps its
        connection: play pings meanwhile.  Tokens null per seat play the
        seats of an auth-false game, here only seat 0 (seat 1 moves over
        TCP)."""
        with WsDaemon("--idle-timeout", "1") as d, d.client("tcp", "json") as py:
            g = py.new_game(["ann", "bob"], tiles=["BA/Rr", "BA/C"], auth=False)
            got = self.run_js("""
                const c = await Carcd.connect(URL);
                window.__slow = {moves: 0};
                c.play(%d, {0: null}, (due) => new Promise((resolve) => setTimeout(() => {
                    window.__slow.moves++;
                    resolve(due.moves[0]);
                  }, %d))).then((r) => { window.__slow.score = r; }, (e) => { window.__slow.err = e.message; });
                return true;""" % (g["game"], 2500 * SLOW), url=d.ws_url)
            self.assertTrue(got)
            for _ in range(20):
                lm = py.legal_moves(g["game"])
                if lm["phase"] == "over":
                    break
                if lm["seat"] == 1:
                    py.apply_move(g["game"], lm["moves"][0], seq=lm["seq"])
                else:
                    harness.wait_for(lambda: py.legal_moves(g["game"])["seq"] > lm["seq"], 20 * SLOW)
            slow = self.page.wait_for("window.__slow.score || window.__slow.err ? window.__slow : null", 30)
        self.assertNotIn("err", slow)
        self.assertTrue(slow["score"]["final"])
        self.assertGreaterEqual(slow["moves"], 2)   # seat 0's tile and its follower decision at least

    def test_idle_close(self):
        with WsDaemon("--idle-timeout", "1") as d:
            got = self.run_js("""
                const c = await Carcd.connect(URL);
                const heard = [];
                c.on("close", (info) => heard.push(info));
                await c.call("ping");
                // The page is busy past the idle timeout (carcd's close frame
                // arrives, the browser answers it, but the page hears of it
                // only once it is free again): this call goes out on a socket
                // that is closing, and is pending when the close comes.
                const t0 = Date.now();
                while (Date.now() - t0 < %d) {}
                const late = outcome(c.call("ping"));
                const pendingThen = c.pending;
                const err = await late;
                const closed = await c.closed;
                const again = await c.close();
                const after = await outcome(c.call("hello"));
                return {pendingThen, err, closed, again, after, heard, pending: c.pending};""" % (2500 * SLOW),
                url=d.ws_url, timeout=30)
        reason = "idle too long (--idle-timeout)"
        self.assertEqual(got["pendingThen"], 1)
        self.assertClosedError(got["err"], 1000, reason)
        self.assertEqual(got["closed"], {"code": 1000, "reason": reason})
        self.assertEqual(got["again"], got["closed"])
        self.assertEqual(got["heard"], [got["closed"]])
        self.assertClosedError(got["after"], 1000, reason)
        self.assertEqual(got["pending"], 0)

    def test_sigterm_close(self):
        d = WsDaemon().start()
        try:
            # the page will be busy for a while, then call; meanwhile carcd stops
            self.run_js("""
                window.client = await Carcd.connect(URL);
                window.heard = [];
                client.on("close", (info) => heard.push(info));
                await client.call("ping");
                setTimeout(() => {
                  const t0 = Date.now();
                  while (Date.now() - t0 < %d) {}
                  window.late = outcome(client.call("ping"));
                  window.pendingThen = client.pending;
                }, 0);
                return 1;""" % (3000 * SLOW), url=d.ws_url)
            self.assertEqual(d.stop(), 0)
        finally:
            d.stop()
        got = self.eval("""(async () => ({err: await late, pendingThen, closed: await client.closed, heard,
                                           after: await outcome(client.call("ping"))}))()""", timeout=30)
        self.assertEqual(got["pendingThen"], 1)
        self.assertEqual(got["closed"]["code"], 1001)
        self.assertClosedError(got["err"], 1001, got["closed"]["reason"])
        self.assertClosedError(got["after"], 1001, got["closed"]["reason"])
        self.assertEqual(got["heard"], [got["closed"]])

    def test_daemon_killed(self):
        # no close frame at all: the browser says 1006
        d = WsDaemon().start()
        try:
            self.run_js("window.client = await Carcd.connect(URL); await client.call('ping'); return 1;",
                        url=d.ws_url)
            d.proc.send_signal(signal.SIGSTOP)
            self.eval("window.late = outcome(client.call('hello')), 1")
            self.assertEqual(self.eval("client.pending"), 1)
            d.proc.kill()
            d.proc.wait()
        finally:
            d.stop()
        got = self.eval("(async () => ({err: await late, closed: await client.closed}))()")
        self.assertEqual(got["closed"]["code"], 1006)
        self.assertClosedError(got["err"], 1006, None)

    def test_client_close(self):
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const heard = [];
            c.on("close", (info) => heard.push(info));
            await c.call("ping");
            const pending = outcome(c.call("hello"));    // its reply comes after close(): dropped
            const closing = c.close(4001, "done here");
            const after = await outcome(c.call("ping"));
            return {pending: await pending, closed: await closing, same: await c.closed,
                    after, heard, count: c.pending, second: await c.close()};""")
        self.assertEqual(got["closed"]["code"], 4001)     # carcd answers with the same code
        self.assertEqual(got["same"], got["closed"])
        self.assertEqual(got["second"], got["closed"])
        self.assertEqual(got["heard"], [got["closed"]])
        self.assertClosedError(got["pending"], 4001, None)
        self.assertClosedError(got["after"], 4001, None)
        self.assertEqual(got["count"], 0)

    def test_close_code_the_api_refuses(self):
        got = self.run_js("""
            const c = await Carcd.connect(URL);
            const bad = await outcome(c.close(1001));       // a page may not send 1001
            const still = await c.call("ping");
            return {bad, still, closed: await c.close()};""")
        self.assertEqual(got["bad"]["name"], "InvalidAccessError")
        self.assertEqual(got["still"], {})
        self.assertEqual(got["closed"], {"code": 1000, "reason": ""})


class TestUnreachable(ClientCase):

    def test_nobody_listens(self):
        port = harness.free_tcp_port()
        url = "ws://127.0.0.1:%d/" % port
        self.expected_console = [r"WebSocket connection to '%s' failed" % re.escape(url)]
        got = self.run_js("return outcome(Carcd.connect(URL));", url=url)
        self.assertTrue(got["isCarcdError"], got)
        self.assertEqual(got["code"], "unreachable")
        self.assertIn(url, got["message"])
        self.assertIn("1006", got["message"])

    def test_bad_url(self):
        got = self.run_js("return Promise.all([outcome(Carcd.connect('ws://[')), outcome(Carcd.connect('ftp://127.0.0.1/'))]);")
        for err in got:
            self.assertEqual(err["code"], "unreachable", err)
            self.assertIn("cannot connect to", err["message"])

    def test_timeout(self):
        # a socket that accepts connections (the kernel's backlog) but never answers the handshake
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen(8)
            url = "ws://127.0.0.1:%d/" % s.getsockname()[1]
            got = self.run_js("""
                const t0 = Date.now();
                const r = await outcome(Carcd.connect(URL, {timeout: 300}));
                r.took = Date.now() - t0;
                return r;""", url=url)
        self.assertEqual(got["code"], "unreachable")
        self.assertIn("no answer within 300 ms", got["message"])
        self.assertGreaterEqual(got["took"], 290)
        self.assertLess(got["took"], 5000 * SLOW)

    def test_ws_origin(self):
        with WsDaemon("--ws-origin", "http://example.com") as other, \
                WsDaemon("--ws-origin", self.static.origin) as ours:
            self.expected_console = [r"WebSocket connection to '%s' failed" % re.escape(other.ws_url)]
            refused = self.run_js("return outcome(Carcd.connect(URL));", url=other.ws_url)
            served = self.run_js("return (await Carcd.connect(URL)).call('ping');", url=ours.ws_url)
        self.assertEqual(refused["code"], "unreachable")
        self.assertIn(other.ws_url, refused["message"])
        self.assertEqual(served, {})

    def test_file_page(self):
        # file:// pages have the origin null: served by a carcd with
        # --ws-origin null, where the same page over http is refused
        path = os.path.join(browser.TOP_SRCDIR, "tests", "web", "client_test.html")
        page = self.open_page("file://" + path)
        self.assertEqual(self.eval("location.protocol", page=page), "file:")
        with WsDaemon("--ws-origin", "null") as d:
            self.expected_console = [r"WebSocket connection to '%s' failed" % re.escape(d.ws_url)]
            got = self.run_js("""
                const c = await Carcd.connect(URL);
                const g = await c.call("new_game", {players: ["ann"], tiles: ["BA/CRr", "BA/Rr"]});
                const played = await playRandomGame(c, g.game, [g.seats[0].token], 1);
                return {played, hello: await c.call("hello")};""", url=d.ws_url, page=page)
            refused = self.run_js("return outcome(Carcd.connect(URL));", url=d.ws_url)
        self.assertEqual(got["hello"]["server"], "carcd")
        self.assertEqual(got["played"]["lastPhase"], "over")
        self.assertEqual(refused["code"], "unreachable")


class TestBadReplies(ClientCase):

    def test_unreadable_messages(self):
        def reply(text, path):
            msgid = json.loads(text)[1]
            return {"/text": "no json here",
                    "/binary": b"\x94\x01\x01\xc0\x80",
                    "/shape": json.dumps([3, msgid]),
                    "/stray": json.dumps([1, msgid + 1000, None, {}]),
                    "/error": json.dumps([1, msgid, "bad", None])}[path]
        self.expected_console = [r"^error: carcd\.js: the server at ws://127\.0\.0\.1:\d+/\w+ sent "]
        with FakeServer(reply) as fake:
            got = self.run_js("""
                const out = {};
                for (const path of ["text", "binary", "shape", "stray"]) {
                  const c = await Carcd.connect(URL + path);
                  const r = await Promise.all([outcome(c.call("ping")), outcome(c.call("ping"))]);
                  out[path] = {r, closed: await c.closed, after: await outcome(c.call("ping")), pending: c.pending};
                }
                const c = await Carcd.connect(URL + "error");
                out.error = {r: await outcome(c.call("ping")), pending: c.pending};
                out.error.closed = await c.close();
                return out;""", url=fake.url)
        for path in ("text", "binary", "shape", "stray"):
            r = got[path]
            for err in r["r"]:
                self.assertEqual(err["code"], "bad_reply", (path, err))
                self.assertIn("the server at %s%s sent" % (fake.url, path), err["message"])
            self.assertEqual(r["closed"]["code"], 4000, path)
            self.assertEqual(r["after"]["code"], "closed", path)
            self.assertEqual(r["pending"], 0)
        self.assertIn('"no json here"', got["text"]["r"][0]["message"])
        self.assertIn("binary", got["binary"]["r"][0]["message"])
        self.assertIn("msgid", got["stray"]["r"][0]["message"])
        # an error that is no {code, message}: that call only, the connection goes on
        self.assertEqual(got["error"]["r"]["code"], "bad_reply")
        self.assertEqual(got["error"]["pending"], 0)
        self.assertEqual(got["error"]["closed"]["code"], 1000)


class TestCommonJS(unittest.TestCase):
    """carcd.js under Node (a bot or a test tool in JavaScript): required as
    CommonJS, with Debian's `ws` package (node-ws, in /usr/share/nodejs) as
    options.WebSocket, since Node 18 and 20 have no global one.  Node and
    node-ws are part of the set-up: without them this fails, it does not skip."""

    def node(self, script, *args):
        node = shutil.which("node") or shutil.which("nodejs")
        self.assertIsNotNone(node, "no node (apt-get install nodejs node-ws)")
        env = dict(os.environ, NODE_PATH=os.pathsep.join(
            p for p in (os.environ.get("NODE_PATH"), "/usr/share/nodejs") if p))
        path = os.path.join(browser.TOP_SRCDIR, "contrib", "web", "carcd.js")
        out = subprocess.run([node, "-e", script, path] + list(args), capture_output=True, text=True,
                             timeout=30 * SLOW, env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def test_require(self):
        got = self.node("""
            const m = require(process.argv[1]);
            const out = {keys: Object.keys(m).sort(), global: typeof globalThis.Carcd,
                         codes: m.Carcd.ERROR_CODES.length};
            m.Carcd.connect("ws://127.0.0.1:1/", {WebSocket: require("ws")}).catch(e => {
              out.err = [e.code, e instanceof m.CarcdError];
              console.log(JSON.stringify(out));
            });""")
        self.assertEqual(got["keys"], ["Carcd", "CarcdError"])
        self.assertEqual(got["global"], "undefined")
        self.assertEqual(got["codes"], 11)
        self.assertEqual(got["err"], ["unreachable", True])

    def test_plays_under_node_with_ws(self):
        daemon = _module["daemon"]
        got = self.node("""
            const {Carcd, CarcdError} = require(process.argv[1]);
            (async () => {
              const c = await Carcd.connect(process.argv[2], {WebSocket: require("ws")});
              const g = await c.call("new_game", {players: ["ann", "bob"], seed: 11});
              const moves = await c.call("legal_moves", {game: g.game});
              const bad = await c.call("apply_move", {game: g.game, token: g.seats[1].token,
                                                      move: moves.moves[0]}).catch(e => e);
              await c.call("apply_move", {game: g.game, token: g.seats[0].token, move: moves.moves[0]});
              const st = await c.call("state", {game: g.game});
              const closed = await c.close();
              console.log(JSON.stringify({game: g.game, tiles: st.board.length,
                                          bad: [bad instanceof CarcdError, bad.code], closed}));
            })().catch(e => { console.error(e); process.exit(1); });""", daemon.ws_url)
        self.assertEqual(got["bad"], [True, "not_your_turn"])
        self.assertEqual(got["closed"]["code"], 1000)
        with daemon.client("tcp", "json") as ref:
            self.assertEqual(len(ref.call("state", {"game": got["game"]})["board"]), got["tiles"])
        self.assertEqual(got["tiles"], 2)   # the start tile and the one placed

    def test_play_under_node(self):
        """A bot in Node: client.play with tokens null plays every seat of
        an auth-false game of every set to its end."""
        daemon = _module["daemon"]
        got = self.node("""
            const {Carcd} = require(process.argv[1]);
            (async () => {
              const c = await Carcd.connect(process.argv[2], {WebSocket: require("ws")});
              const g = await c.call("new_game", {players: ["ann", "bob", "cy"], auth: false, seed: 14,
                                                  expansions: JSON.parse(process.argv[3])});
              let moves = 0;
              const score = await c.play(g.game, null, (due) => due.moves[moves++ % due.moves.length]);
              await c.close();
              console.log(JSON.stringify({game: g.game, moves, score}));
            })().catch(e => { console.error(e); process.exit(1); });""", daemon.ws_url, json.dumps(harness.EVERY_SET))
        self.assertTrue(got["score"]["final"])
        with daemon.client("tcp", "json") as ref:
            self.assertEqual(len(ref.call("history", {"game": got["game"]})["moves"]), got["moves"])
            self.assertEqual(ref.call("score", {"game": got["game"]}), got["score"])


if __name__ == "__main__":
    unittest.main()

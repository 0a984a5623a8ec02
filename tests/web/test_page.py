"""test_page.py - contrib/web/index.html, the play page, end to end.

The page (with contrib/web/carcd.js and board.js) runs in headless Chromium
(tests/web/browser.py) against a real carcd with a WebSocket listener; what
it shows is checked against what the daemon says over TCP (tests/proto's
Python client).  One daemon, one static HTTP server and one browser for the
module.  Every test also checks that the page threw no uncaught exception.

Run: tests/web/run.sh test_page   (from the build directory)
"""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "contrib"))
import browser  # noqa: E402
import harness  # noqa: E402  (browser.py put tests/proto on the path)

SLOW = harness.SLOW
PAGE = "contrib/web/index.html"
GAME_TIMEOUT = 240        # seconds (times SLOW, as every wait of browser.py) for a whole game

M = {}                    # the module's daemon, web server and browser


def setUpModule():
    M["daemon"] = browser.WsDaemon().start()
    try:
        M["web"] = browser.Static()
        M["browser"] = browser.Browser()
    except BaseException:
        tearDownModule()
        raise


def tearDownModule():
    b, web, d = M.pop("browser", None), M.pop("web", None), M.pop("daemon", None)
    if b:
        b.close()
    if web:
        web.close()
    if d:
        harness.stop_checked(d)


def js(value):
    return json.dumps(value)


class PageCase(unittest.TestCase):
    """Opens pages, and checks each one's console when the test ends."""

    def setUp(self):
        self.pages = []          # [(page, network errors allowed)]
        self.rng = harness.new_rng(self.id())

    def tearDown(self):
        try:
            for page, allow_network in self.pages:
                self.assertNoExceptions(page, allow_network)
        finally:
            for page, _ in self.pages:
                page.close()

    def assertNoExceptions(self, page, allow_network=False):
        """No uncaught exception, no console.error from the page's scripts
        (carcd.js reports a handler that threw so), and no failed load but,
        where a test connects to nothing on purpose, the browser's own
        report of that WebSocket."""
        bad = []
        for line in page.console():
            if line.startswith("exception:"):
                bad.append(line)
            elif line.startswith("error:"):
                if allow_network and line.startswith("error: [network]") and "WebSocket" in line:
                    continue
                bad.append(line)
        self.assertEqual(bad, [], "the page logged errors")

    def client(self):
        c = M["daemon"].client("tcp", "json")
        self.addCleanup(c.close)
        return c

    def open_page(self, query="", url=None, allow_network=False, daemon=None):
        d = daemon or M["daemon"]
        q = "ws=" + d.ws_url + ("&" + query if query else "")
        page = M["browser"].open((url or M["web"].url(PAGE)) + "?" + q)
        self.pages.append((page, allow_network))
        page.wait_for("document.body.dataset.conn === 'open' || document.body.dataset.conn === 'closed'", 20)
        self.assertEqual(page.eval("document.body.dataset.conn"), "open", self.status(page))
        return page

    # ---- reading the page ------------------------------------------------------

    @staticmethod
    def status(page):
        return page.eval("document.querySelector('#status').textContent")

    def assertRefused(self, page, c, game, move):
        """The page sends `move` for the seat due; the daemon refuses it, and
        #status shows the message it gives (legal_moves with `move` says it
        too).  Returns the status line."""
        why = c.legal_moves(game, move=move)["why"]
        self.assertEqual(why["code"], "illegal_move")
        self.assertFalse(page.eval("CarcdPlay.apply(%s)" % js(move)))
        text = page.wait_for("(s => s.className === 'error' && s.textContent)(document.querySelector('#status'))", 20)
        self.assertIn(why["message"], text)
        return text

    @staticmethod
    def page_scores(page):
        return page.eval("""[...document.querySelectorAll('#scores [data-seat]')]
            .map(e => [Number(e.dataset.seat), Number(e.dataset.score)])""")

    @staticmethod
    def page_tiles(page):
        return page.eval("""[...document.querySelectorAll('#board g.tile')]
            .map(g => [Number(g.dataset.x), Number(g.dataset.y), g.dataset.tile, Number(g.dataset.rot)])""")

    @staticmethod
    def seq(page):
        v = page.eval("document.body.dataset.seq")
        return int(v) if v not in (None, "") else None

    def assertMatchesState(self, page, state):
        """The page's seats and scores, tiles and figures are the state's."""
        self.assertEqual(self.page_scores(page), [[s["seat"], s["score"]] for s in state["seats"]])
        tiles = self.page_tiles(page)
        self.assertEqual(len(tiles), len(state["board"]))
        self.assertEqual(sorted(map(tuple, tiles)),
                         sorted((t["x"], t["y"], t["tile"], t["rot"]) for t in state["board"]))
        figures = sorted(f["id"] for t in state["board"] for f in t.get("figures") or [])
        self.assertEqual(sorted(page.eval("[...document.querySelectorAll('#board g.figure')].map(f => f.dataset.id)")),
                         figures)

    # ---- driving the page ------------------------------------------------------

    def setup_game(self, page, kinds, expansions=None, seed=None):
        """Fills the New game form: one seat per kind ("human" or "bot"),
        expansions (None: base only; "all": every one the page offers)."""
        while page.eval("document.querySelectorAll('#players .player').length") < len(kinds):
            page.click("#add-player")
        while page.eval("document.querySelectorAll('#players .player').length") > len(kinds):
            page.click("#players .player:last-child .remove")
        page.eval("""(kinds => kinds.forEach((k, i) => {
            document.querySelector('#players [data-player="' + i + '"] select[name=kind]').value = k;
        }))(%s)""" % js(kinds))
        if expansions == "all":
            page.eval("document.querySelectorAll('#expansions input').forEach(i => { i.checked = !i.disabled; })")
        else:
            page.eval("""(want => document.querySelectorAll('#expansions input')
                .forEach(i => { i.checked = want.includes(i.value); }))(%s)""" % js(expansions or ["base"]))
        page.eval("document.querySelector('#seed').value = %s" % js("" if seed is None else str(seed)))

    def start_game(self, page):
        """Clicks Start; returns the new game's id."""
        before = page.eval("document.body.dataset.game || ''")
        page.click("#new-game")
        page.wait_for("(document.body.dataset.game || '') !== %s && document.body.dataset.seq !== ''" % js(before), 20)
        return int(page.eval("document.body.dataset.game"))

    def wait_over(self, page):
        page.wait_for("document.body.dataset.phase === 'over' && !document.querySelector('#over').hidden",
                      GAME_TIMEOUT)

    def assertFinalScores(self, page, game):
        with self.client() as c:
            score = c.score(game)
            state = c.state(game)
        self.assertTrue(score["final"])
        self.assertTrue(state["over"])
        self.assertEqual([s for _, s in self.page_scores(page)], score["scores"])
        self.assertMatchesState(page, state)
        self.assertEqual(page.eval("getComputedStyle(document.querySelector('#over')).display"), "block")
        self.assertEqual(page.eval("document.querySelectorAll('#final tr').length"), len(score["scores"]))


class TestBots(PageCase):
    """1. Every expansion, every seat a bot of the page: the game ends, and
    the page shows the daemon's scores and every tile."""

    def test_bots_play_every_expansion_to_the_end(self):
        page = self.open_page("delay=0")
        with self.client() as c:
            offered = sorted(e["name"] for e in c.hello()["expansions"] if e.get("available") is not False)
        self.assertEqual(sorted(page.eval("[...document.querySelectorAll('#expansions input:not(:disabled)')]"
                                          ".map(i => i.value)")), offered)
        self.assertEqual(page.eval("[...document.querySelectorAll('#expansions input:checked')].map(i => i.value)"),
                         ["base"], "base is checked by default")
        self.setup_game(page, ["bot", "bot", "bot"], "all")
        # two rule options changed from their defaults (the abbey's final round: a phase more)
        page.eval("document.querySelector('#rules [data-rule=abbey_final_round]').value = 'true'")
        page.eval("""document.querySelector('#rules [data-rule=farm_scoring]').value = '"per-farm-3"'""")
        game = self.start_game(page)
        with self.client() as c:
            setup = c.history(game)["setup"]
        self.assertEqual(sorted(setup["expansions"]), offered)
        self.assertEqual(len(setup["players"]), 3)
        self.assertIs(setup["rules"]["abbey_final_round"], True)
        self.assertEqual(setup["rules"]["farm_scoring"], "per-farm-3")
        self.assertEqual(setup["rules"]["wagon_move"], "connected")
        self.wait_over(page)
        self.assertFinalScores(page, game)
        self.assertEqual(page.eval("document.body.dataset.await"), "none")
        self.assertTrue(page.eval("document.querySelectorAll('#events li').length > 0"))
        self.assertNotIn("error", page.eval("document.querySelector('#status').className"), self.status(page))


class TestHuman(PageCase):
    """2. Seat 0 human, seat 1 a bot: the human plays only by clicks."""

    def test_human_plays_by_clicks(self):
        page = self.open_page("delay=0")
        self.setup_game(page, ["human", "bot"], "all", seed=2027)
        game = self.start_game(page)
        c = self.client()
        placements = decisions = rotations = 0
        for _ in range(2000):
            what = page.wait_for("""(b => b.dataset.phase === 'over' ? 'over'
                : b.dataset.await === 'human' ? 'human' : '')(document.body)""", 60)
            if what == "over":
                break
            seq = self.seq(page)
            lm = c.legal_moves(game)
            self.assertEqual(lm["seq"], seq)
            self.assertEqual(lm["seat"], 0)
            places = sorted(set((m["x"], m["y"]) for m in lm["moves"] if m["type"] == "place_tile"))
            others = [i for i, m in enumerate(lm["moves"]) if m["type"] != "place_tile"]
            targets = sorted(tuple(map(int, t)) for t in page.eval(
                "[...document.querySelectorAll('#board .target')].map(t => [t.dataset.x, t.dataset.y])"))
            self.assertEqual(targets, places, "the targets are the places legal_moves lists")
            self.assertEqual(sorted(int(i) for i in page.eval(
                "[...document.querySelectorAll('#moves .move')].map(b => b.dataset.index)")), others)
            self.assertTrue(all(page.eval("[...document.querySelectorAll('#moves .move')].map(b => b.textContent.trim())")))
            if places:
                x, y = self.rng.choice(places)
                rots = sorted(m["rot"] for m in lm["moves"] if m["type"] == "place_tile" and (m["x"], m["y"]) == (x, y))
                sel = '#board .target[data-x="%d"][data-y="%d"]' % (x, y)
                page.click(sel)
                rot = int(page.wait_for("(p => p && p.dataset.x === %s && p.dataset.y === %s && p.dataset.rot)"
                                        "(document.querySelector('#board .preview-tile'))" % (js(str(x)), js(str(y)))))
                self.assertIn(rot, rots)
                self.assertEqual(page.eval("document.querySelector('#rotate').disabled"), len(rots) < 2)
                if len(rots) > 1:
                    # the target again, or the Rotate button: the next rotation that fits, round
                    seen = [rot]
                    for k in range(len(rots) + self.rng.randrange(len(rots))):
                        page.click(sel if k % 2 else "#rotate")
                        rot = int(page.wait_for("(r => r !== %s && r)(document.querySelector('#board .preview-tile')"
                                                ".dataset.rot)" % js(str(rot))))
                        seen.append(rot)
                        rotations += 1
                    self.assertEqual(sorted(seen[:len(rots)]), rots)
                    self.assertEqual(seen[len(rots)], seen[0])
                page.click("#place")
                placements += 1
                expect = ("place_tile", x, y, rot)
            else:
                i = self.rng.choice(others)
                page.click('#moves .move[data-index="%d"]' % i)
                decisions += 1
                m = lm["moves"][i]
                expect = tuple(m.get(k) for k in ("type", "kind", "x", "y", "at", "figure", "choice"))
            page.wait_for("Number(document.body.dataset.seq) > %d || document.querySelector('#status').className"
                          % seq, 30)
            self.assertNotIn("error", page.eval("document.querySelector('#status').className"), self.status(page))
            played = c.history(game)["moves"][seq]
            self.assertEqual(played["seat"], 0)
            got = played["move"]
            if places:
                self.assertEqual((got["type"], got["x"], got["y"], got["rot"]), expect)
            else:
                self.assertEqual(tuple(got.get(k) for k in ("type", "kind", "x", "y", "at", "figure", "choice")), expect)
        else:
            self.fail("the game did not end")
        self.assertGreater(placements, 10)
        self.assertGreater(decisions, 10)
        self.assertGreater(rotations, 0)
        self.assertFinalScores(page, game)


class TestWatch(PageCase):
    """3. A game played over TCP, watched by the page."""

    def test_watch_follows_moves(self):
        c = self.client()
        g = c.new_game(players=["ann", "bob"], expansions=["base", "inns-cathedrals", "abbey-mayor"], seed=99)
        game, tokens = g["game"], [s["token"] for s in g["seats"]]
        c.apply_move(game, c.legal_moves(game)["moves"][0], token=tokens[0])   # a move before the watch
        page = self.open_page()
        page.eval("document.querySelector('#watch-id').value = %s" % js(str(game)))
        page.click("#watch")
        page.wait_for("document.body.dataset.mode === 'watch' && document.body.dataset.seq === '1'", 20)
        self.assertMatchesState(page, c.state(game))
        self.assertEqual(page.eval("document.body.dataset.await"), "other")
        for _ in range(30):
            lm = c.legal_moves(game)
            res = c.apply_move(game, self.rng.choice(lm["moves"]), token=tokens[lm["seat"]], seq=lm["seq"])
            page.wait_for("document.body.dataset.seq === %s" % js(str(res["seq"])), 20)
            state = c.state(game)
            self.assertMatchesState(page, state)
            self.assertEqual(page.eval("document.body.dataset.phase"), state["phase"])
            self.assertEqual(page.eval("document.querySelector('#scores [data-turn]').dataset.seat"), str(state["seat"]))
            # a watcher makes no moves
            self.assertEqual(page.eval("document.querySelectorAll('#board .target, #moves .move').length"), 0)
            self.assertTrue(page.eval("document.querySelector('#decision').hidden"))
        self.assertTrue(page.eval("document.querySelectorAll('#events li').length >= 30"))
        c.close_game(game, g["admin_token"])
        page.wait_for("/closed/.test(document.querySelector('#status').textContent)", 20)

    def counted_page(self, strip=(), query=""):
        """A page whose client counts its calls by method (window.__calls)
        and keeps the params of its subscribes (window.__subscribes),
        reconnected so that the counting client is the one it uses; its
        hello shows none of the extras in `strip`, as from a carcd without
        them."""
        page = self.open_page(query)
        page.eval("""((strip) => {
            window.__calls = {};
            window.__subscribes = [];
            const connect = Carcd.connect;
            Carcd.connect = async function () {
              const c = await connect.apply(this, arguments);
              const call = c.call.bind(c);
              c.call = async function (method, params) {
                window.__calls[method] = (window.__calls[method] || 0) + 1;
                if (method === "subscribe") window.__subscribes.push(params);
                const r = await call(method, params);
                if (method === "hello") r.extras = (r.extras || []).filter(e => strip.indexOf(e) < 0);
                return r;
              };
              return c;
            };
          })(%s)""" % js(list(strip)))
        self.assertTrue(page.eval("CarcdPlay.connect(%s).then(() => true)" % js(M["daemon"].ws_url)))
        page.wait_for("document.body.dataset.conn === 'open' && window.__calls.hello === 1", 20)
        return page

    def watch_moves(self, page, moves):
        """Watches a new game over the page, plays `moves` moves over TCP,
        each followed on the page; returns the page's `state` calls when
        it had shown the game first, and after the moves."""
        c = self.client()
        g = c.new_game(players=["ann", "bob"], expansions=["base", "abbey-mayor"], seed=77)
        game, tokens = g["game"], [s["token"] for s in g["seats"]]
        self.assertTrue(page.eval("CarcdPlay.watch(%d).then(() => true)" % game))
        page.wait_for("document.body.dataset.game === %s && document.body.dataset.seq === '0'" % js(str(game)), 20)
        first = page.eval("window.__calls.state || 0")
        for _ in range(moves):
            lm = c.legal_moves(game)
            res = c.apply_move(game, self.rng.choice(lm["moves"]), token=tokens[lm["seat"]], seq=lm["seq"])
            page.wait_for("document.body.dataset.seq === %s" % js(str(res["seq"])), 20)
            state = c.state(game)
            self.assertMatchesState(page, state)
            self.assertEqual(page.eval("document.body.dataset.phase"), state["phase"])
            self.assertEqual(page.eval("CarcdPlay.state"), state)
        return first, page.eval("window.__calls.state || 0")

    def test_watching_with_the_state_extra_calls_no_state_per_move(self):
        """A carcd whose hello lists "subscribe.state": the page subscribes
        with it and shows each notification's state, with no `state` call
        after the one that first shows the game."""
        with self.client() as c:
            self.assertIn("subscribe.state", c.hello()["extras"])
        page = self.counted_page()
        first, after = self.watch_moves(page, 12)
        self.assertEqual((first, after), (1, 1))
        self.assertNotIn("legal_moves", page.eval("window.__calls"))   # no seat of the page decides

    def test_watching_without_the_state_extra_calls_state(self):
        """A carcd without the extra (its hello here without it): the page
        subscribes as before and calls `state` after each notification."""
        page = self.counted_page(strip=["subscribe.state"])
        first, after = self.watch_moves(page, 8)
        self.assertEqual(first, 1)
        self.assertGreaterEqual(after, first + 8)

    def play_with_bots(self, page):
        """The page's bots play a two-seat game to its end; returns its id
        and the number of moves played in it."""
        self.setup_game(page, ["bot", "bot"], "all", seed=404)
        game = self.start_game(page)
        self.wait_over(page)
        self.assertFinalScores(page, game)
        self.assertNotIn("error", page.eval("document.querySelector('#status').className"), self.status(page))
        with self.client() as c:
            return game, len(c.history(game)["moves"])

    def test_playing_with_the_moves_extra_calls_legal_moves_once(self):
        """A carcd whose hello lists "subscribe.moves" and
        "subscribe.features": a page that plays subscribes with them, and
        its seats decide from the notifications' moves: one `legal_moves`
        in a whole game, for the first decision, which no notification
        brought.  A page that only watches asks for no moves."""
        page = self.counted_page(query="delay=0")
        game, played = self.play_with_bots(page)
        self.assertGreater(played, 100)
        self.assertEqual(page.eval("window.__calls.legal_moves"), 1)
        self.assertEqual(page.eval("window.__subscribes"),
                         [{"game": game, "decision": True, "state": True, "moves": True, "features": True}])
        self.assertTrue(page.eval("CarcdPlay.watch(%d).then(() => true)" % game))
        page.wait_for("document.body.dataset.mode === 'watch'", 20)
        self.assertEqual(page.eval("window.__subscribes[1]"), {"game": game, "decision": True, "state": True})

    def test_playing_without_the_moves_extra_calls_legal_moves(self):
        """A carcd without the extra (its hello here without it): the page
        calls `legal_moves` at each decision of its seats, as before."""
        page = self.counted_page(strip=["subscribe.moves"], query="delay=0")
        game, played = self.play_with_bots(page)
        self.assertGreaterEqual(page.eval("window.__calls.legal_moves"), played)
        self.assertNotIn("moves", page.eval("window.__subscribes[0]"))

    def test_watch_from_the_query(self):
        c = self.client()
        g = c.new_game(players=["ann", "bob", "cid"], seed=5)
        page = self.open_page("watch=%d" % g["game"])
        page.wait_for("document.body.dataset.game === %s && document.body.dataset.seq === '0'" % js(str(g["game"])), 20)
        self.assertMatchesState(page, c.state(g["game"]))
        self.assertEqual(page.eval("document.querySelector('#game-title').textContent"), "Watching game %d" % g["game"])

    def test_names_are_text_not_markup(self):
        # player names come from whoever made the game: a watcher's page
        # shows them as text and runs nothing they hold
        c = self.client()
        names = ['<img src=x onerror="window.__pwned=1">', '<b id="bold">bob</b>']
        g = c.new_game(players=names, seed=3)
        game, tokens = g["game"], [s["token"] for s in g["seats"]]
        page = self.open_page("watch=%d" % game)
        page.wait_for("document.body.dataset.game === %s" % js(str(game)), 20)
        for _ in range(6):   # placements and deploys, so the names reach the event log
            lm = c.legal_moves(game)
            res = c.apply_move(game, lm["moves"][-1], token=tokens[lm["seat"]], seq=lm["seq"])
            page.wait_for("document.body.dataset.seq === %s" % js(str(res["seq"])), 20)
        self.assertEqual(page.eval("[...document.querySelectorAll('#scores .name bdi')].map(e => e.textContent)"),
                         names)
        self.assertTrue(page.eval("[...document.querySelectorAll('#events li')].some("
                                  "li => li.textContent.includes(%s))" % js(names[1])))
        self.assertEqual(page.eval("document.querySelectorAll('#bold, img:not([src^=\"data:\"])').length"), 0)
        self.assertIsNone(page.eval("window.__pwned === undefined ? null : window.__pwned"))

    def test_watch_no_such_game(self):
        page = self.open_page()
        page.eval("document.querySelector('#watch-id').value = '987654'")
        page.click("#watch")
        text = page.wait_for("(s => s.className === 'error' && s.textContent)(document.querySelector('#status'))", 20)
        self.assertIn("no_such_game", text)
        self.assertEqual(page.eval("document.body.dataset.phase"), "none")


class TestErrors(PageCase):
    """4. Errors show in #status, and the page goes on."""

    def test_unreachable_and_bad_url(self):
        port = harness.free_tcp_port()
        page = M["browser"].open(M["web"].url(PAGE) + "?ws=ws://127.0.0.1:%d/" % port)
        self.pages.append((page, True))
        text = page.wait_for("(s => s.className === 'error' && s.textContent)(document.querySelector('#status'))", 20)
        self.assertIn("unreachable", text)
        self.assertIn("127.0.0.1:%d" % port, text)
        self.assertEqual(page.eval("document.body.dataset.conn"), "closed")
        # no alert(): a dialog would block the page, and this eval with it
        self.assertEqual(page.eval("1 + 1"), 2)
        page.eval("document.querySelector('#url').value = 'no such url'")
        page.click("#connect")
        text = page.wait_for("(s => s.className === 'error' && /no such url/.test(s.textContent) && s.textContent)"
                             "(document.querySelector('#status'))",
                             20)
        self.assertIn("unreachable", text)
        self.assertEqual(page.eval("document.querySelector('#status').className"), "error")
        # a good URL: connected again
        page.eval("document.querySelector('#url').value = %s" % js(M["daemon"].ws_url))
        page.click("#connect")
        page.wait_for("document.body.dataset.conn === 'open'", 20)
        self.assertNotEqual(page.eval("document.querySelector('#status').className"), "error")

    def test_illegal_move_shows_and_recovers(self):
        page = self.open_page("delay=0")
        self.setup_game(page, ["human", "bot"], ["base"], seed=11)
        game = self.start_game(page)
        page.wait_for("document.body.dataset.await === 'human' && document.body.dataset.phase === 'tile'", 20)
        c = self.client()
        state = c.state(game)
        bad = {"type": "place_tile", "tile": state["tile"]["id"], "x": 0, "y": 0, "rot": 0}   # on the start tile
        self.assertIn("illegal_move", self.assertRefused(page, c, game, bad))
        self.assertEqual(c.state(game)["seq"], state["seq"])
        # the page goes on: the same decision is offered, and a click plays
        page.wait_for("document.body.dataset.await === 'human' && document.querySelectorAll('#board .target').length > 0",
                      20)
        page.click("#board .target")
        page.wait_for("!!document.querySelector('#board .preview-tile')", 20)
        page.click("#place")
        page.wait_for("Number(document.body.dataset.seq) > %d" % state["seq"], 20)
        self.assertNotEqual(page.eval("document.querySelector('#status').className"), "error", self.status(page))
        page.wait_for("document.body.dataset.await === 'human' || document.body.dataset.phase === 'over'", 20)
        self.assertMatchesState(page, c.state(game))

    def test_late_click_is_refused_and_the_page_goes_on(self):
        # a placement sent again after it was played (a click racing the
        # page's redraw): the decision now due is another, the daemon refuses
        # it, the page says why and offers what is due
        page = self.open_page("delay=0")
        self.setup_game(page, ["human", "human"], ["base"], seed=12)
        game = self.start_game(page)
        page.wait_for("document.body.dataset.await === 'human' && document.querySelectorAll('#board .target').length", 20)
        move = page.eval("CarcdPlay.legal.moves[0]")
        self.assertTrue(page.eval("CarcdPlay.apply(%s)" % js(move)))
        page.wait_for("document.body.dataset.phase === 'action' && document.body.dataset.await === 'human'", 20)
        c = self.client()
        self.assertRefused(page, c, game, move)
        page.wait_for("document.body.dataset.await === 'human' && !!document.querySelector('#moves .move-pass')", 20)
        page.click("#moves .move-pass")
        page.wait_for("document.body.dataset.phase === 'tile' && document.body.dataset.seq === '2'", 20)
        self.assertMatchesState(page, c.state(game))

    def test_reconnect_goes_on(self):
        # connecting again in the middle of a game: the page keeps the seats'
        # tokens, subscribes again and plays on
        page = self.open_page("delay=0")
        self.setup_game(page, ["human", "bot"], ["base"], seed=13)
        game = self.start_game(page)
        page.wait_for("document.body.dataset.await === 'human' && document.body.dataset.phase === 'tile'", 20)
        seq = self.seq(page)
        page.click("#connect")
        page.wait_for("document.body.dataset.conn === 'open' && document.body.dataset.await === 'human'"
                      " && document.querySelectorAll('#board .target').length > 0", 20)
        page.click("#board .target")
        page.click("#place")
        page.wait_for("Number(document.body.dataset.seq) > %d" % seq, 20)
        page.wait_for("document.body.dataset.await === 'human' && document.body.dataset.phase === 'action'", 20)
        page.click("#moves .move-pass")
        # and the bot plays on too, up to the human's next placement
        page.wait_for("document.body.dataset.await === 'human' && document.body.dataset.phase === 'tile'"
                      " && Number(document.body.dataset.seq) > %d" % (seq + 2), 20)
        with self.client() as c:
            self.assertMatchesState(page, c.state(game))
        self.assertNotEqual(page.eval("document.querySelector('#status').className"), "error", self.status(page))

    def test_daemon_stops(self):
        with browser.WsDaemon() as d:
            page = self.open_page("delay=0", daemon=d)
            self.setup_game(page, ["human", "bot"], ["base"])
            self.start_game(page)
            page.wait_for("document.body.dataset.await === 'human'", 20)
            d.stop()
            text = page.wait_for("(s => /closed/.test(s.textContent) && s.textContent)(document.querySelector('#status'))",
                                 20)
        self.assertIn("code 1001", text)
        self.assertEqual(page.eval("document.querySelector('#status').className"), "error")
        self.assertEqual(page.eval("document.body.dataset.conn"), "closed")
        # nothing to click that could not be sent
        self.assertEqual(page.eval("document.querySelectorAll('#board .target, #moves .move').length"), 0)


class TestFile(PageCase):
    """5. The page opened from disk (file://, Origin null) plays."""

    def test_file_page_plays(self):
        # a daemon that serves only the origin null: pages from disk
        with browser.WsDaemon("--ws-origin", "null") as d:
            url = "file://" + os.path.join(harness.TOP_SRCDIR, PAGE)
            page = self.open_page("delay=0", url=url, daemon=d)
            self.assertEqual(page.eval("location.protocol"), "file:")
            self.setup_game(page, ["bot", "bot"], ["base", "river"])
            game = self.start_game(page)
            self.wait_over(page)
            with harness.carcd.Client(d.tcp_address, encoding="json") as c:
                score = c.score(game)
                state = c.state(game)
            self.assertEqual([s for _, s in self.page_scores(page)], score["scores"])
            self.assertMatchesState(page, state)
            # the same page over HTTP has another origin, which this daemon refuses
            other = M["browser"].open(M["web"].url(PAGE) + "?ws=" + d.ws_url)
            self.pages.append((other, True))
            text = other.wait_for("(s => s.className === 'error' && s.textContent)(document.querySelector('#status'))",
                                  20)
            self.assertIn("unreachable", text)


class TestDrawing(PageCase):
    """board.js draws every tile as contrib/render.py does, byte for byte."""

    def test_tiles_as_render_py(self):
        import render
        c = self.client()
        names = [e["name"] for e in c.hello()["expansions"] if e.get("available") is not False]
        answer = c.tiles(expansions=names, rot=0)
        tiles = render.wire_tiles(answer)
        page = self.open_page()
        drawn = page.eval("""(a => { const t = CarcdBoard.wireTiles(a), out = {};
            for (const id in t) for (const r of [0, 90, 180, 270]) out[id + '@' + r] = CarcdBoard.tileSvg(t[id], r, 64);
            return out; })(%s)""" % js(answer))
        self.assertEqual(len(drawn), 4 * len(tiles))
        for tid, ttype in tiles.items():
            for rot in (0, 90, 180, 270):
                self.assertEqual(drawn["%s@%d" % (tid, rot)], "".join(render.tile_svg(render.Placed(ttype, rot), 64)),
                                 "%s at rot %d" % (tid, rot))
        fig = {"id": "2.large.1", "kind": "large", "at": "N", "feature": "city", "ports": ["N"], "sheep": [1, 3]}
        self.assertEqual(page.eval("CarcdBoard.figureSvg(%s, 10, 20, 64)" % js(fig)),
                         "".join(render.figure_svg(fig, 10, 20, 64)))


if __name__ == "__main__":
    unittest.main()

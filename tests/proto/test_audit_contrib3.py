"""A third audit of the contrib tools, from the mutation testing of contrib/:
statements of contrib/README.md and the tools' docstrings that a broken
carcctl, carcd.py or random_bot.py could contradict without any earlier test
noticing:

- carcctl `watch --count N` also stops after N when the game ended between
  its `subscribe` and its look at the phase (the notifications then queued);
- carcctl `play --random` picks at random (not always the same move);
- carcctl exits 0, silently, when the reader of its output goes away
  (`carcctl watch 7 | head -3`): none of the error statuses 1, 2, 3;
- carcd.Client raises the error of a response with a nil msgid (a request
  the daemon could not read) rather than waiting for the timeout, and reads
  a JSON line longer than one read of the socket; next_event() waits the
  client's timeout by default; a reset connection is ConnectionClosed;
- random_bot.py passes the seq of the listing it chose from, so a move slipped
  in between is a conflict it recovers from, not a move on a newer position;
  with the token of a seat it does not know it tries once, then waits;
- README's carcd.py example, run as written, gets the notification of its
  move (it used to subscribe after the move, and got None)."""

import json
import os
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import harness
import carcd  # noqa: E402  (harness puts contrib/python on the path)
from harness import play_out
from test_audit_contrib2 import CtlMixin as Ctl2Mixin
from test_contrib import ALL, BOT, CARCCTL_CMD, finish, run, start

daemon, setUpModule, tearDownModule = harness.module_daemon()


def solo_game(c):
    return c.new_game(["solo"], auth=False, tiles=["BA/L", "BA/C", "BA/RFr"], expansions=["base"], seed=2)


class CtlMixin(Ctl2Mixin):
    ctl_daemon = daemon
    ctl_timeout = 60


# ---------------------------------------------------------------------------------------------------------
class CarcctlWatch3(CtlMixin, unittest.TestCase):
    def test_count_when_the_game_ends_between_subscribe_and_its_look(self):
        """README: watch ends at once when the game is already over, `--count N`
        stops earlier.  A proxy plays the game to its end when the watcher asks
        for the phase, so the game's notifications are queued by then."""
        d = daemon["d"]
        for opts in ([], ["--json-lines"]):
            for count in (1, 2):
                with self.subTest(opts=opts, count=count), d.client() as c:
                    game = solo_game(c)["game"]
                    played = []

                    def end_it(msg):
                        if msg[2] == "legal_moves" and not played:
                            with d.client() as other:
                                played.extend(play_out(other, game))

                    with harness.Proxy(d.unix_path, end_it) as proxy:
                        p = run(CARCCTL_CMD + opts + ["--socket", proxy.path, "watch", str(game),
                                                      "--count", str(count)], timeout=30)
                    self.assertEqual((p.returncode, p.stderr), (0, ""))
                    self.assertGreater(len(played), count)
                    lines = [json.loads(x) for x in p.stdout.splitlines()]
                    expect = [{"game": game, "seq": r["seq"], "events": r["events"]} for r in played]
                    self.assertEqual(lines, [{"game": game, "seq": 0}] + expect[:count])

    def test_random_is_random(self):
        """README: `--random` picks one of the legal moves (at random): over
        twenty copies of one position it does not always send the same one."""
        d = daemon["d"]
        picked = set()
        with d.client() as c:
            for _ in range(20):
                g = c.new_game(["ann", "bob"], auth=False, seed=3)
                lm = c.legal_moves(g["game"])
                res = self.ctl("play", str(g["game"]), "--random")
                self.assertEqual(res["seq"], 1)
                picked.add(json.dumps(c.history(g["game"])["moves"][0]["move"], sort_keys=True))
                self.assertIn(json.loads(next(iter(picked))), lm["moves"])
        self.assertGreater(len(lm["moves"]), 3)
        self.assertGreater(len(picked), 1)

    def test_a_reader_that_goes_away_is_exit_0(self):
        """`carcctl watch 7 | head -3`: when its stdout is closed it stops,
        with status 0 (not 1 'refused', 3 'unreachable') and nothing on stderr."""
        d = daemon["d"]
        with d.client() as c:
            game = solo_game(c)["game"]
            w = subprocess.Popen(CARCCTL_CMD + ["--socket", d.unix_path, "watch", str(game)],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                self.assertEqual(json.loads(w.stdout.readline()), {"game": game, "seq": 0})
                w.stdout.close()
                play_out(c, game)
                err = w.stderr.read()
                w.wait(20)
            finally:
                if w.poll() is None:
                    w.kill()
                    w.wait()
        self.assertEqual((w.returncode, err), (0, b""))


# ---------------------------------------------------------------------------------------------------------
class PythonClient3(unittest.TestCase):
    def test_a_response_with_a_nil_msgid_is_raised(self):
        """carcd.Client.response: `A response with a nil msgid (the daemon could
        not read a request) answers the oldest request still waiting, so it is
        raised here too.`  A JSON line past the daemon's 65536 bytes is such a
        request: its `limit` error comes back as carcd.Error, not as a wait until
        the timeout; the request after it is answered as usual."""
        d = daemon["d"]
        with carcd.Client(d.unix_address, encoding="json", timeout=10) as c:
            t0 = time.monotonic()
            with self.assertRaises(carcd.Error) as e:
                c.call("ping", {"pad": "x" * 70000})
            self.assertEqual(e.exception.code, "limit")
            self.assertLess(time.monotonic() - t0, 5)
            self.assertEqual(c.ping(), {})

    def test_a_nil_msgid_goes_to_the_request_it_answers(self):
        """The same error pipelined before another request, whose response()
        is asked first: the error belongs to the oldest request unanswered
        when it arrives (the unreadable one), not to whichever response() is
        asked first, so the good request gets its own answer and the bad one
        the error.  Several rounds: the two responses often arrive in one read."""
        d = daemon["d"]
        with carcd.Client(d.unix_address, encoding="json", timeout=10) as c:
            for _ in range(10):
                bad, good = c.send("ping", {"pad": "y" * 70000}), c.send("ping")
                self.assertEqual(c.response(good), {})
                with self.assertRaises(carcd.Error) as e:
                    c.response(bad)
                self.assertEqual(e.exception.code, "limit")

    def test_json_lines_longer_than_one_read(self):
        """The JSON-lines encoding: a response longer than one read of the
        socket (the history of a long game, past 64 KiB) is one message, read
        in pieces; carcctl --json-lines prints it as the MessagePack client reads it."""
        d = daemon["d"]
        p = run([harness.PYTHON, BOT, "--address", d.unix_address, "--players", "6", "--expansions", ALL,
                 "--seed", "1", "--rng", "1", "--timeout", "60"], timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        game = json.loads(p.stdout)["game"]
        with d.client() as mp, carcd.Client(d.unix_address, encoding="json") as js:
            want = mp.history(game)
            self.assertGreater(len(json.dumps(want)), 1 << 16)
            for _ in range(3):
                self.assertEqual(js.history(game), want)
                self.assertEqual(js.ping(), {})
        q = run(CARCCTL_CMD + ["--socket", d.unix_path, "--json-lines", "--compact", "history", str(game)])
        self.assertEqual((q.returncode, q.stderr), (0, ""))
        self.assertEqual(json.loads(q.stdout), want)


    def test_next_event_waits_the_clients_timeout_by_default(self):
        """next_event's docstring: timeout `default the client's timeout`: with
        nothing happening, next_event() returns None after about that long."""
        d = daemon["d"]
        with carcd.Client(d.unix_address, timeout=0.5) as c:
            game = solo_game(c)["game"]
            c.subscribe(game)
            got = []
            t = threading.Thread(target=lambda: got.append((c.next_event(), time.monotonic())), daemon=True)
            t0 = time.monotonic()
            t.start()
            t.join(15)
            self.assertFalse(t.is_alive(), "next_event() still waiting after 15 s")
            self.assertIsNone(got[0][0])
            self.assertLess(got[0][1] - t0, 10)


    def test_a_connection_reset_is_connection_closed(self):
        """README: `A lost or closed connection ... raises carcd.ConnectionClosed`,
        also when the peer resets it (it closes with the request unread)."""
        tmp = tempfile.mkdtemp(prefix="carcd-reset-")
        path = os.path.join(tmp, "r.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(2)

        def serve():
            for _ in range(2):
                try:
                    conn, _ = srv.accept()
                except OSError:
                    return
                conn.settimeout(10)
                try:
                    conn.recv(1, socket.MSG_PEEK)   # the request is there: close without reading it
                except OSError:
                    pass
                conn.close()

        threading.Thread(target=serve, daemon=True).start()
        try:
            for encoding in ("msgpack", "json"):
                with self.subTest(encoding=encoding), carcd.Client("unix:" + path, encoding=encoding,
                                                                    timeout=10) as c:
                    with self.assertRaises(carcd.ConnectionClosed):
                        c.ping()
                    self.assertTrue(c.closed)
        finally:
            srv.close()
            os.unlink(path)
            os.rmdir(tmp)

    def test_the_defaults_the_readme_gives(self):
        # contrib/README.md: timeout 30 s; msgpack when python3-msgpack is there (it is for these tests)
        with carcd.Client(daemon["d"].unix_address) as c:
            self.assertEqual((c.timeout, c.encoding), (30, "msgpack"))
            self.assertIsNotNone(c.ping())

    def test_the_readme_example_runs_as_written(self):
        """README's example, run literally on this daemon in both encodings:
        the notification of the move it made is what next_event returns (it
        subscribed after its move once, and waited five seconds for None)."""
        with open(os.path.join(harness.TOP_SRCDIR, "contrib", "README.md"), encoding="utf-8") as f:
            text = f.read()
        code = text.split("## python/carcd.py\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
        self.assertIn('"unix:/run/carcd/carcd.sock")', code)
        for encoding in ("msgpack", "json"):
            here = code.replace('"unix:/run/carcd/carcd.sock")',
                                "%r, encoding=%r)" % (daemon["d"].unix_address, encoding))
            names = {}
            exec(compile(here, "contrib/README.md", "exec"), names)
            note, g = names["note"], names["g"]
            self.assertIsNotNone(note, encoding)
            self.assertEqual((sorted(note), note["game"], note["seq"]), (["events", "game", "seq"], g["game"], 1))
            placed, move = note["events"][0], names["lm"]["moves"][0]
            self.assertEqual([placed[k] for k in ("type", "seat", "tile", "x", "y", "rot")],
                             ["tile_placed", 0] + [move[k] for k in ("tile", "x", "y", "rot")])


# ---------------------------------------------------------------------------------------------------------
class RandomBot3(unittest.TestCase):
    def test_the_bot_sends_the_seq_of_its_listing(self):
        """random_bot.py's docstring: it sends one of the legal moves `passing
        seq so that it never plays on a stale state`.  A proxy slips another
        move in before the bot's first apply_move: that is a conflict, after
        which the bot looks again and plays the game to its end."""
        d = daemon["d"]
        for encoding in ("msgpack", "json"):
            with self.subTest(encoding=encoding), d.client() as c:
                game = solo_game(c)["game"]
                slipped = []

                def slip_in(msg):
                    if msg[2] == "apply_move" and not slipped:
                        with d.client() as other:
                            lm = other.legal_moves(game)
                            other.apply_move(game, lm["moves"][-1], seq=lm["seq"])
                            slipped.append(lm["moves"][-1])

                with harness.Proxy(d.unix_path, slip_in) as proxy:
                    p = run([harness.PYTHON, BOT, "--address", "unix:" + proxy.path, "--encoding", encoding,
                             "--game", str(game), "--rng", "1", "--timeout", "20"], timeout=60)
                    sent = [m[3] for m in proxy.requests if m[2] == "apply_move"]
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(json.loads(p.stdout)["final"], True)
                self.assertTrue(all(isinstance(params.get("seq"), int) for params in sent), sent)
                self.assertEqual(sent[0]["seq"], 0)     # its first listing, refused as a conflict
                h = c.history(game)
                self.assertEqual(h["moves"][0]["move"], slipped[0])     # the move slipped in came first
                self.assertEqual(json.loads(p.stdout)["moves_played"], len(h["moves"]) - 1)
                self.assertEqual(len(sent), len(h["moves"]))    # each but the conflict played

    def test_a_token_of_an_unknown_seat_is_tried_once_then_it_waits(self):
        """The docstring: when it does not know which seat its token holds `it
        simply tries: not_your_turn tells it the seat due is not its own`, and
        it waits for its turns through notifications: one try while the other
        seat is due, not a try after each refusal."""
        d = daemon["d"]
        with d.client() as c:
            g = c.new_game(["ann", "bob"], seed=4, tiles=["BA/L", "BA/C", "BA/RFr", "BA/L"])
            game, tokens = g["game"], [s["token"] for s in g["seats"]]
            with harness.Proxy(d.unix_path) as proxy:
                bot = start([harness.PYTHON, BOT, "--address", "unix:" + proxy.path, "--game", str(game),
                             "--token", tokens[1], "--timeout", "30"])
                try:
                    # seat 0 is due all this while: the bot's first try (its start
                    # may be slow on a loaded machine), then 1.5 s for any other
                    def apply_moves():
                        return [m for m in proxy.requests if m[2] == "apply_move"]
                    self.assertTrue(harness.wait_for(apply_moves, 30), "the bot never tried a move")
                    time.sleep(1.5)
                    tries = apply_moves()
                    self.assertIsNone(bot.poll())
                    while True:              # seat 0's moves, by hand
                        lm = c.legal_moves(game)
                        if lm["phase"] == "over":
                            break
                        if lm["seat"] == 0:
                            c.apply_move(game, lm["moves"][0], token=tokens[0], seq=lm["seq"])
                        else:
                            time.sleep(0.05)
                    out, err = finish(bot, 30)
                finally:
                    finish(bot, 5)
        self.assertEqual(bot.returncode, 0, err)
        self.assertEqual(len(tries), 1, tries)
        self.assertGreater(json.loads(out)["moves_played"], 0)

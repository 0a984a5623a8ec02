"""contrib/arena.py against the real daemon: matches of bots, forfeits, errors."""

import ctypes
import importlib.util
import io
import json
import math
import os
import signal
import statistics
import subprocess
import tempfile
import time
import unittest

import harness

daemon, setUpModule, tearDownModule = harness.module_daemon()

ARENA = [harness.PYTHON, os.path.join(harness.TOP_SRCDIR, "contrib", "arena.py")]
BOT = os.path.join(harness.TOP_SRCDIR, "contrib", "bots", "random_bot.py")
RANDOM = "%s %s" % (harness.PYTHON, BOT)
TIMEOUT = 300
EXPANSIONS = ("base,river,river2,mini,inns-cathedrals,traders-builders,abbey-mayor,king-robber,cathars,cult,"
              "hills-sheep")


def arena(*args, where=None):
    d = daemon["d"]
    where = ["--address", d.unix_address] if where is None else where
    return subprocess.run(ARENA + where + list(args), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purposes
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class Match(unittest.TestCase):
    def report(self, *args, where=None):
        p = arena("--json", *args, where=where)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_deals_turn_the_seats_and_scores_are_the_daemons(self):
        r = self.report("--bot", "ann=" + RANDOM, "--bot", "bob=%s --rng 3" % RANDOM, "--deals", "3",
                        "--seed", "41")
        games = r["games"]
        self.assertEqual((r["seed"], r["deals"], len(games)), (41, 3, 6))
        with daemon["d"].client() as c:
            for i, g in enumerate(games):
                deal, turn = divmod(i, 2)
                self.assertEqual((g["deal"], g["seed"]), (deal, 41 + deal))
                names = [e["bot"] for e in g["seats"]]
                self.assertEqual(names, ["ann", "bob"] if turn == 0 else ["bob", "ann"])
                st = c.state(g["game"])
                self.assertTrue(st["over"])
                self.assertEqual([s["name"] for s in st["seats"]], names)
                self.assertEqual([e["score"] for e in g["seats"]], c.score(g["game"])["scores"])
                h = c.history(g["game"])
                self.assertEqual(h["seed"], g["seed"])
                best = max(e["score"] for e in g["seats"])
                self.assertEqual(g["winners"], [e["bot"] for e in g["seats"] if e["score"] == best])
            # both games of a deal are dealt the same tiles
            for deal in range(3):
                a, b = (c.history(games[2 * deal + t]["game"]) for t in range(2))
                self.assertEqual(a["tiles"], b["tiles"])
        rows = {row["bot"]: row for row in r["standings"]}
        self.assertEqual(set(rows), {"ann", "bob"})
        self.assertAlmostEqual(rows["ann"]["wins"] + rows["bob"]["wins"], 6.0, places=2)
        for name, row in rows.items():
            mine = [e["score"] for g in games for e in g["seats"] if e["bot"] == name]
            theirs = [e["score"] for g in games for e in g["seats"] if e["bot"] != name]
            self.assertEqual(row["games"], 6)
            self.assertEqual(row["forfeits"], 0)
            self.assertAlmostEqual(row["mean_score"], sum(mine) / 6, places=2)
            self.assertAlmostEqual(row["mean_margin"], (sum(mine) - sum(theirs)) / 6, places=2)
        order = [row["bot"] for row in r["standings"]]
        self.assertEqual(order, sorted(rows, key=lambda n: (-rows[n]["win_rate"], -rows[n]["mean_score"], n)))

    def test_ten_deals_by_default(self):
        # contrib/README.md: `--deals N`, default 10; one bot: a game a deal
        r = self.report("--bot", "x=" + RANDOM, "--seed", "9", "--parallel", "4")
        self.assertEqual((r["deals"], len(r["games"]), sorted(g["seed"] for g in r["games"])),
                         (10, 10, list(range(9, 19))))

    def test_the_same_seed_plays_the_same_tiles(self):
        a = self.report("--bot", "x=" + RANDOM, "--deals", "1", "--seed", "7")
        b = self.report("--bot", "x=" + RANDOM, "--deals", "1", "--seed", "7")
        with daemon["d"].client() as c:
            ha, hb = c.history(a["games"][0]["game"]), c.history(b["games"][0]["game"])
        self.assertNotEqual(a["games"][0]["game"], b["games"][0]["game"])
        self.assertEqual(ha["tiles"], hb["tiles"])

    def test_six_bots_every_expansion_in_parallel(self):
        bots = []
        for name in "abcdef":
            bots += ["--bot", "%s=%s" % (name, RANDOM)]
        r = self.report(*bots, "--deals", "1", "--expansions", EXPANSIONS, "--rule", "abbey_final_round=true",
                        "--component", "large=false", "--parallel", "3", "--seed", "5")
        self.assertEqual(len(r["games"]), 6)
        self.assertEqual(r["rules"], {"abbey_final_round": True})
        self.assertEqual(r["components"], {"large": False})
        seats_of = {n: sorted(e["seat"] for g in r["games"] for e in g["seats"] if e["bot"] == n) for n in "abcdef"}
        self.assertEqual(seats_of, {n: [0, 1, 2, 3, 4, 5] for n in "abcdef"})
        with daemon["d"].client() as c:
            for g in r["games"]:
                st = c.state(g["game"])
                self.assertTrue(st["over"])
                self.assertEqual(st["seats"][0]["supply"].get("large"), None)   # the component is off
                self.assertIn("abbey", st["seats"][0]["supply"])
        self.assertEqual(sum(row["games"] for row in r["standings"]), 36)

    def test_solo_has_no_margin(self):
        r = self.report("--bot", "solo=" + RANDOM, "--deals", "2")
        self.assertEqual(len(r["games"]), 2)
        row = r["standings"][0]
        self.assertEqual((row["games"], row["wins"], row["mean_margin"]), (2, 2.0, None))

    def test_table_and_verbose_lines(self):
        p = arena("--bot", "ann=" + RANDOM, "--bot", "bob=" + RANDOM, "--deals", "1", "--seed", "9", "-v")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertTrue(lines[0].startswith("seed 9, 1 deal, 2 games (0 forfeited), expansions base"), lines[0])
        self.assertEqual(lines[1].split(), ["bot", "games", "wins", "win%", "+-", "mean", "score", "mean", "margin",
                                            "+-", "forfeits"])
        self.assertEqual(sorted(line.split()[0] for line in lines[2:4]), ["ann", "bob"])
        for line in lines[2:4]:   # one deal: no interval
            self.assertEqual([line.split()[i] for i in (4, 7)], ["-", "-"], line)
        self.assertEqual(len(lines), 4)
        games = p.stderr.splitlines()
        self.assertEqual(len(games), 2)
        for line in games:
            self.assertRegex(line, r"^game \d+, deal 0: (ann|bob) \d+, (ann|bob) \d+$")
        # more deals: the intervals, and a line that says what they are
        p = arena("--bot", "ann=" + RANDOM, "--bot", "bob=" + RANDOM, "--deals", "3", "--seed", "9", "--json")
        report = json.loads(p.stdout)
        out = io.StringIO()
        load_arena().print_table(report, out)
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), 5)
        self.assertTrue(lines[4].startswith("+-: half the width of a 95% confidence interval, deals as the samples"))
        rows = {row["bot"]: row for row in report["standings"]}
        for line in lines[2:4]:
            row = rows[line.split()[0]]
            self.assertGreater(row["mean_margin_ci95"], 0)
            self.assertEqual(line.split()[4], "%.1f" % (100 * row["win_rate_ci95"]))
            self.assertEqual(line.split()[7], "%.2f" % row["mean_margin_ci95"])


class Bots(unittest.TestCase):
    def test_placeholders_and_the_token_in_the_environment(self):
        with tempfile.TemporaryDirectory() as tmp:
            seen = os.path.join(tmp, "seen")
            # one bot names everything through placeholders; the other gets
            # the usual arguments and finds its token in $CARCD_TOKEN
            filled = "%s --address {address} --game {game} --token {token} --seat {seat}" % RANDOM
            env_bot = "sh -c 'echo \"$CARCD_GAME $CARCD_SEAT $*\" >> %s; exec %s \"$@\"' env-bot" % (seen, RANDOM)
            p = arena("--json", "--bot", "filled=" + filled, "--bot", "env=" + env_bot, "--deals", "1")
            self.assertEqual(p.returncode, 0, p.stderr)
            r = json.loads(p.stdout)
            self.assertEqual(sum(row["games"] for row in r["standings"]), 4)
            with open(seen) as f:
                calls = [line.split() for line in f.read().splitlines()]
        self.assertEqual(len(calls), 2)
        for g, call in zip(r["games"], calls):
            seat = next(e["seat"] for e in g["seats"] if e["bot"] == "env")
            self.assertEqual(call, [str(g["game"]), str(seat), "--address", daemon["d"].unix_address,
                                    "--game", str(g["game"]), "--seat", str(seat)])
            self.assertFalse(any(len(w) == 32 for w in call), "no token on the command line")

    def test_a_bot_that_stops_forfeits(self):
        r = Match.report(self, "--bot", "ok=" + RANDOM, "--bot", "quits=sh -c 'echo giving up >&2; exit 4'",
                         "--deals", "1")
        self.assertEqual(len(r["games"]), 2)
        for g in r["games"]:
            f = g["forfeit"]
            self.assertEqual(f["bot"], "quits")
            self.assertEqual(f["seat"], next(e["seat"] for e in g["seats"] if e["bot"] == "quits"))
            self.assertEqual(f["why"], "its process ended (status 4) before the game did: giving up")
            self.assertNotIn("winners", g)
            with daemon["d"].client() as c:   # the arena closed the game
                self.assertEqual(harness.code_of(c.state, g["game"]), "no_such_game")
        rows = {row["bot"]: row for row in r["standings"]}
        self.assertEqual((rows["quits"]["forfeits"], rows["quits"]["games"], rows["quits"]["win_rate"],
                          rows["quits"]["mean_score"]), (2, 2, 0.0, None))
        self.assertEqual((rows["ok"]["forfeits"], rows["ok"]["games"], rows["ok"]["mean_score"]), (0, 0, None))
        self.assertTrue(r["complete"])

    def test_a_bot_that_never_moves_forfeits_and_is_stopped(self):
        with tempfile.TemporaryDirectory() as tmp:
            pids = os.path.join(tmp, "pids")
            sleeper = "sh -c 'echo $$ >> %s; exec sleep 600'" % pids
            t0 = time.monotonic()
            # 3 s: time enough for `ok`, which moves first in one game, to
            # start and move on a loaded machine (or a daemon under valgrind)
            p = arena("--json", "--bot", "slow=" + sleeper, "--bot", "ok=" + RANDOM, "--deals", "1",
                      "--move-timeout", "3")
            took = time.monotonic() - t0
            self.assertEqual(p.returncode, 0, p.stderr)
            r = json.loads(p.stdout)
            with open(pids) as f:
                started = [int(x) for x in f.read().split()]
        self.assertEqual(len(started), 2)
        for pid in started:
            self.assertFalse(pid_alive(pid), "bot process %d outlived its game" % pid)
        for g in r["games"]:
            self.assertEqual(g["forfeit"]["bot"], "slow")
            self.assertEqual(g["forfeit"]["why"], "no move in 3 seconds")
        self.assertLess(took, 60)

    def test_what_a_bot_started_goes_with_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            child = os.path.join(tmp, "child")
            forker = "sh -c 'sleep 300 & echo $! > %s; exit 3'" % child
            r = Match.report(self, "--bot", "ok=" + RANDOM, "--bot", "forker=" + forker, "--deals", "1",
                             "--parallel", "1")
            with open(child) as f:
                pid = int(f.read())
        self.assertEqual({g["forfeit"]["bot"] for g in r["games"]}, {"forker"})
        self.assertTrue(harness.wait_for(lambda: not pid_alive(pid), 10), "the bot's child outlived its game")

    def stop_match(self, signal_it):
        """A match whose second bot never moves, stopped by signal_it(arena's
        Popen) once that bot runs; returns the arena's stdout and stderr
        after checking that it stopped as SIGTERM says and took every bot
        with it."""
        with tempfile.TemporaryDirectory() as tmp:
            pids = os.path.join(tmp, "pids")
            sleeper = "sh -c 'echo $$ >> %s; exec sleep 600'" % pids
            proc = subprocess.Popen(ARENA + ["--address", daemon["d"].unix_address, "--json", "--bot",
                                             "ok=" + RANDOM, "--bot", "slow=" + sleeper, "--deals", "3"],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            try:
                self.assertTrue(harness.wait_for(lambda: os.path.exists(pids), 60))
                signal_it(proc)
                out, err = proc.communicate(timeout=60)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
            with open(pids) as f:
                started = [int(x) for x in f.read().split()]
        self.assertEqual(proc.returncode, 143, err)
        self.assertIn("arena: stopped by signal %d" % signal.SIGTERM, err)
        for pid in started:
            self.assertTrue(harness.wait_for(lambda: not pid_alive(pid), 10), "bot %d outlived the match" % pid)
        return out, err

    def test_sigterm_stops_every_bot_and_reports_the_games_played(self):
        out, _ = self.stop_match(lambda proc: proc.send_signal(signal.SIGTERM))
        r = json.loads(out)
        self.assertFalse(r["complete"])
        self.assertLess(len(r["games"]), 6)

    def test_sigterm_taken_by_a_worker_thread_stops_the_match(self):
        # The kernel may hand a process's SIGTERM to any of its threads;
        # tgkill(2) (glibc 2.30 on) hands it to the thread that plays the
        # game, not the main one.  The arena used to sleep through it in
        # Thread.join() until the match was over (here: never, as the slow
        # bot does not move).
        libc = ctypes.CDLL(None, use_errno=True)

        def to_the_worker(proc):
            workers = [int(t) for t in os.listdir("/proc/%d/task" % proc.pid) if int(t) != proc.pid]
            self.assertEqual(len(workers), 1, "one game at a time: one worker thread")
            self.assertEqual(libc.tgkill(proc.pid, workers[0], signal.SIGTERM), 0, os.strerror(ctypes.get_errno()))

        out, _ = self.stop_match(to_the_worker)
        self.assertFalse(json.loads(out)["complete"])

    def test_a_full_daemon_is_asked_again(self):
        with harness.Daemon("--max-games", "1", tcp=False) as d:
            p = arena("--json", "--bot", "a=" + RANDOM, "--bot", "b=" + RANDOM, "--deals", "2", "--parallel", "2",
                      where=["--address", d.unix_address])
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout)
        self.assertEqual(len(r["games"]), 4)
        self.assertTrue(all("winners" in g for g in r["games"]))

    def test_a_bot_that_cannot_start_forfeits(self):
        r = Match.report(self, "--bot", "ok=" + RANDOM, "--bot", "gone=/nonexistent/bot", "--deals", "1")
        for g in r["games"]:
            self.assertEqual(g["forfeit"]["bot"], "gone")
            self.assertEqual(g["forfeit"]["why"], "/nonexistent/bot could not be started: No such file or directory")

    def test_logs_keep_each_bots_output(self):
        with tempfile.TemporaryDirectory() as tmp:
            logs = os.path.join(tmp, "logs")
            r = Match.report(self, "--bot", "ann=%s -v" % RANDOM, "--bot", "b/b=" + RANDOM, "--deals", "1",
                             "--logs", logs)
            names = sorted(os.listdir(logs))
            expect = sorted("game-%d-seat-%d-%s.log" % (g["game"], e["seat"], e["bot"].replace("/", "_"))
                            for g in r["games"] for e in g["seats"])
            self.assertEqual(names, expect)
            for g in r["games"]:
                seat = next(e["seat"] for e in g["seats"] if e["bot"] == "ann")
                with open(os.path.join(logs, "game-%d-seat-%d-ann.log" % (g["game"], seat))) as f:
                    out = f.read()
                self.assertIn('"game": %d' % g["game"], out)    # the bot's own final line
                self.assertRegex(out, r"seat %d seq \d+: " % seat)   # and its -v moves


def load_arena():
    spec = importlib.util.spec_from_file_location("arena", ARENA[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Standings(unittest.TestCase):
    def test_ties_share_the_win_and_forfeits_count_apart(self):
        bots = [("x", ["x"]), ("y", ["y"]), ("z", ["z"])]

        def game(scores):
            seats = [{"seat": s, "bot": b, "score": v} for s, (b, v) in enumerate(scores)]
            best = max(v for _, v in scores)
            return {"seats": seats, "winners": [b for b, v in scores if v == best]}

        records = [game([("x", 10), ("y", 10), ("z", 4)]),     # x and y share first place
                   game([("y", 7), ("z", 9), ("x", 3)]),
                   {"seats": [], "forfeit": {"seat": 0, "bot": "z", "why": "test"}}]
        rows = {r["bot"]: r for r in load_arena().standings(bots, records)}
        # z's forfeit is a game it lost, with no score; x and y played no game there
        # records without a deal are samples of their own: two games, t = 12.706 for one degree of freedom
        t1 = 12.706 / math.sqrt(2)
        self.assertEqual(rows["x"], {"bot": "x", "games": 2, "wins": 0.5, "win_rate": 0.25,
                                     "win_rate_ci95": round(t1 * statistics.stdev([0.5, 0]), 4), "mean_score": 6.5,
                                     "mean_margin": -3.0, "mean_margin_ci95": round(t1 * statistics.stdev([0, -6]), 2),
                                     "forfeits": 0})
        self.assertEqual(rows["y"], {"bot": "y", "games": 2, "wins": 0.5, "win_rate": 0.25,
                                     "win_rate_ci95": round(t1 * statistics.stdev([0.5, 0]), 4), "mean_score": 8.5,
                                     "mean_margin": -1.0, "mean_margin_ci95": round(t1 * statistics.stdev([0, -2]), 2),
                                     "forfeits": 0})
        t2 = 4.303 / math.sqrt(3)
        self.assertEqual(rows["z"], {"bot": "z", "games": 3, "wins": 1.0, "win_rate": 0.3333,
                                     "win_rate_ci95": round(t2 * statistics.stdev([0, 1, 0]), 4), "mean_score": 6.5,
                                     "mean_margin": -2.0, "mean_margin_ci95": round(t1 * statistics.stdev([-6, 2]), 2),
                                     "forfeits": 1})
        order = [r["bot"] for r in load_arena().standings(bots, records)]
        self.assertEqual(order, ["z", "y", "x"])   # by win rate, then forfeits, then mean score
        # a bot that quits every game it would lose ranks below one that plays them out
        quitter = [game([("q", 9), ("p", 1)])] + [{"seats": [], "forfeit": {"seat": 0, "bot": "q", "why": "-"}}] * 9
        quitter += [game([("q", 1), ("p", 9)])]
        order = [r["bot"] for r in load_arena().standings([("q", ["q"]), ("p", ["p"])], quitter)]
        self.assertEqual(order, ["p", "q"])


    def test_confidence_intervals_take_deals_as_the_samples(self):
        a = load_arena()
        bots = [("p", ["p"]), ("q", ["q"])]

        def game(deal, p, q):
            best = max(p, q)
            return {"deal": deal, "seats": [{"seat": 0, "bot": "p", "score": p}, {"seat": 1, "bot": "q", "score": q}],
                    "winners": [b for b, v in (("p", p), ("q", q)) if v == best]}

        # one deal: no interval, however many games
        rows = {r["bot"]: r for r in a.standings(bots, [game(0, 10, 5), game(0, 3, 8)])}
        self.assertIsNone(rows["p"]["win_rate_ci95"])
        self.assertIsNone(rows["p"]["mean_margin_ci95"])
        # two games a deal (both seat orders): the deal's mean is the sample
        deals = [(12, 4, 9, 9), (5, 7, 20, 2), (8, 1, 6, 3), (9, 9, 4, 10), (15, 6, 7, 7)]
        records = [g for d, (a1, b1, a2, b2) in enumerate(deals) for g in (game(d, a1, b1), game(d, a2, b2))]
        rows = {r["bot"]: r for r in a.standings(bots, records)}

        def share(mine, theirs):
            return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0

        wins = [(share(a1, b1) + share(a2, b2)) / 2 for a1, b1, a2, b2 in deals]
        margins = [(a1 - b1 + a2 - b2) / 2 for a1, b1, a2, b2 in deals]
        t4 = 2.776 / math.sqrt(5)
        self.assertEqual(rows["p"]["win_rate"], round(sum(wins) / 5, 4))
        self.assertEqual(rows["p"]["win_rate_ci95"], round(t4 * statistics.stdev(wins), 4))
        self.assertEqual(rows["p"]["mean_margin"], round(sum(margins) / 5, 2))
        self.assertEqual(rows["p"]["mean_margin_ci95"], round(t4 * statistics.stdev(margins), 2))
        self.assertEqual(rows["q"]["mean_margin_ci95"], rows["p"]["mean_margin_ci95"])   # the same samples, negated
        # deals of unequal weight (a forfeit, a match stopped early): the cluster-robust estimate of
        # sum(x) / sum(n), worked out here by hand
        records = records[:9] + [{"deal": 4, "seats": [], "forfeit": {"seat": 1, "bot": "q", "why": "-"}}]
        rows = {r["bot"]: r for r in a.standings(bots, records)}
        per = [(sum(share(r["seats"][1]["score"], r["seats"][0]["score"]) for r in records[2 * d:2 * d + 2]
                    if "forfeit" not in r), 2) for d in range(5)]
        total = sum(n for _, n in per)
        ratio = sum(x for x, _ in per) / total
        var = 5 / 4 * sum((x - ratio * n) ** 2 for x, n in per) / total ** 2
        self.assertEqual(rows["q"]["win_rate"], round(ratio, 4))
        self.assertEqual(rows["q"]["win_rate_ci95"], round(2.776 * math.sqrt(var), 4))
        # the t table: 11 degrees of freedom take 10's value (the wider interval), 12 its own, past 120 the normal
        for k, t in ((12, 2.228), (13, 2.179), (200, 1.960)):
            xs = [i % 2 for i in range(k)]
            self.assertAlmostEqual(a.ci95([(x, 1) for x in xs]), t * statistics.stdev(xs) / math.sqrt(k), places=12)
        # clusters with no game do not count
        self.assertEqual(a.ci95([(1, 1), (0, 0), (0, 1)]), a.ci95([(1, 1), (0, 1)]))


class Errors(unittest.TestCase):
    def fails(self, expect, *args, where=None):
        p = arena(*args, where=where)
        self.assertEqual(p.returncode, expect, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertNotIn("Traceback", p.stderr)
        return p.stderr

    def test_the_daemon_refuses(self):
        err = self.fails(1, "--bot", "a=" + RANDOM, "--expansions", "base,nope")
        self.assertEqual(err, "arena: new_game: invalid_params: unknown expansion `nope`\n")
        err = self.fails(1, "--bot", "a=" + RANDOM, "--rule", "farm_scoring=never")
        self.assertRegex(err, r"^arena: new_game: invalid_params: .*farm_scoring")

    def test_no_daemon(self):
        err = self.fails(3, "--bot", "a=" + RANDOM, where=["--address", "unix:/nonexistent/carcd.sock"])
        self.assertRegex(err, r"^arena: cannot connect to unix:/nonexistent/carcd.sock")

    def test_usage(self):
        seven = []
        for i in range(7):
            seven += ["--bot", "b%d=%s" % (i, RANDOM)]
        cases = [
            ([], "the following arguments are required: --bot"),
            (["--bot", "nameless"], "a bot is NAME=COMMAND"),
            (["--bot", "=cmd"], "a bot is NAME=COMMAND"),
            (["--bot", "a= "], "a bot is NAME=COMMAND"),
            (["--bot", "a\x01=x"], "without control characters"),
            (["--bot", "a\x85=x"], "without control characters"),
            (["--bot", "a\u202eb=x"], "bidirectional formatting characters"),
            (["--bot", "a=x 'open"], "bot a: No closing quotation"),
            (["--bot", "a=x", "--bot", "a=y"], "two bots are called a"),
            (seven, "at most 6 bots"),
            (["--bot", "a=x", "--deals", "0"], "must be at least 1"),
            (["--bot", "a=x", "--parallel", "two"], "not a whole number"),
            (["--bot", "a=x", "--seed", "-1"], "a seed is 0 to 2^53-1"),
            (["--bot", "a=x", "--seed", str(2 ** 53 - 1), "--deals", "2"], "would pass 2^53-1"),
            (["--bot", "a=x", "--move-timeout", "0"], "--move-timeout"),
            (["--bot", "a=x", "--carcd", "/nonexistent"], "no executable there"),
            (["--bot", "a=x", "--address", "tcp:host"], "not an address"),
            (["--bot", "a=x", "--rule", "novalue"], "--rule"),
        ]
        for args, says in cases:
            with self.subTest(args=args):
                err = self.fails(2, *args, where=[])
                self.assertRegex(err, r"\Aarena: [^\n]*\n\Z")   # README: one line, `arena: ...`
                self.assertIn(says, err)
        err = self.fails(2, "--bot", "a=x", "--carcd", harness.CARCD)   # with --address: one or the other
        self.assertIn("not allowed with argument", err)

    def test_a_private_daemon(self):
        p = subprocess.run(ARENA + ["--json", "--carcd", harness.CARCD, "--bot", "a=" + RANDOM, "--bot",
                                    "b=" + RANDOM, "--deals", "1"], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout)
        self.assertEqual([g["game"] for g in r["games"]], [1, 2])   # a daemon of its own counts from 1
        self.assertTrue(all("winners" in g for g in r["games"]))


if __name__ == "__main__":
    unittest.main()

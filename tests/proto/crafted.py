"""Crafted games for the protocol tests of the expansions: move builders,
short move lists from the rule scenarios that bring a game to one of the
expansions' decisions, and Table, a game played through a client with
every move checked against legal_moves.  Shared by test_expansions.py,
test_wire_ext.py and the audit tests."""

import os
import re
import unittest

from harness import TOP_SRCDIR, carcd


def documented_reasons():
    """The names an illegal_move's data.reason may take: those of the table
    under "Why a move is illegal" in proto/PROTOCOL.md."""
    with open(os.path.join(TOP_SRCDIR, "proto", "PROTOCOL.md"), encoding="utf-8") as f:
        text = f.read()
    table = text.split("### Why a move is illegal", 1)[1].split("\n### ", 1)[0]
    rows = [line.split(" | ")[0] for line in table.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([a-z_]+)`", row)}


REASONS = documented_reasons()

PASS = {"type": "pass"}
DRAW = {"type": "draw"}


def place(tile, x, y, rot):
    return {"type": "place_tile", "tile": tile, "x": x, "y": y, "rot": rot}


def deploy(x, y, at, kind="follower"):
    return {"type": "deploy", "kind": kind, "x": x, "y": y, "at": at}


def wagon(x, y, at):
    return {"type": "move_wagon", "x": x, "y": y, "at": at}


def abbey(x, y):
    return {"type": "place_abbey", "x": x, "y": y}


def tile(t, x, y, rot=0):
    """A start tile of new_game's `start`."""
    return {"tile": t, "x": x, "y": y, "rot": rot}


def error_of(fn, *args, **kw):
    """(code, message) of the carcd.Error that fn(*args, **kw) raises, or None."""
    try:
        fn(*args, **kw)
    except carcd.Error as e:
        return e.code, e.message
    return None


def escape(figure):
    return {"type": "escape", "figure": figure}


def flock(choice):
    return {"type": "flock", "choice": choice}


# tests/scenarios/am-11: three seats; seat 1's tile completes seat 0's
# wagon road and seat 2's wagon road at once.  The wagons decide clockwise
# from seat 1, the player on turn: seat 2, then seat 0.
WAGONS_TILES = ["BA/RRR", "BA/L", "BA/LR", "BA/RFr", "BA/RRR", "BA/RFr"]
WAGONS_MOVES = [place("BA/RRR", 1, 0, 0), deploy(1, 0, "W", "wagon"), place("BA/L", 0, 1, 0), PASS,
                place("BA/LR", -1, 1, 180), deploy(-1, 1, "N", "wagon"), place("BA/RFr", 2, 0, 0), PASS,
                place("BA/RRR", -1, 0, 0), PASS]

# A cloister ringed by seven start tiles: seat 0 puts its wagon on it, and
# seat 1's tile completes it.  Nothing is connected to an all-field cloister.
RING = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1)]
RING_START = [{"tile": "BA/L", "x": x, "y": y, "rot": 0} for x, y in RING]

# tests/scenarios/cathars-06 with a second follower of seat 0 on a road
# (as test_expansions.py): seat 0's follower may escape at the end of its turn.
ESCAPE_TILES = ["SI.CA/Cc", "BA/L", "BA/RFr", "BA/RFr"]
ESCAPE_MOVES = [place("SI.CA/Cc", 0, -1, 180), deploy(0, -1, "E"), place("BA/L", -1, -1, 0),
                deploy(-1, -1, "cloister"), place("BA/RFr", 1, 0, 0), deploy(1, 0, "E")]

# tests/scenarios/hills-09: seat 0's third tile joins its shepherd's farm.
FLOCK_START = [{"tile": "BA/RFr", "x": 0, "y": 0, "rot": 0}, {"tile": "BA/RFr", "x": 2, "y": 0, "rot": 0}]
FLOCK_MOVES = [place("BA/RFr", -1, 0, 0), deploy(-1, 0, "ER", "shepherd"), place("BA/RFr", 3, 0, 0),
               deploy(3, 0, "ER", "shepherd"), place("BA/RFr", 1, 0, 0), PASS]

# tests/scenarios/audit-06: the hole at (0,-1) opens with the last tile.
FINAL_TILES = ["BA/LR", "BA/Rr", "BA/Rr", "BA/C", "BA/C", "BA/C"]
FINAL_MOVES = [place("BA/LR", -1, 0, 270), deploy(-1, 0, "E"), place("BA/Rr", 1, 0, 90), PASS,
               place("BA/Rr", 1, -1, 0), PASS, place("BA/C", -1, -1, 90), deploy(-1, -1, "E"),
               place("BA/C", 1, -2, 0), PASS, place("BA/C", 0, -2, 180), PASS]

# tests/scenarios/am-02: (0,-1) is a hole when seat 0's turn begins.
ABBEY_TILES = FINAL_TILES[:6] + ["BA/RFr", "BA/C"]
ABBEY_MOVES = [place("BA/LR", -1, 0, 270), deploy(-1, 0, "E"), place("BA/Rr", 1, 0, 90), PASS,
               place("BA/Rr", 1, -1, 0), PASS, place("BA/C", -1, -1, 90), deploy(-1, -1, "E"),
               place("BA/C", 1, -2, 0), PASS, place("BA/C", 0, -2, 180), PASS]

# tests/scenarios/am-05: seat 0's wagon on a road that seat 1's tile completes.
WAGON_TILES = ["BA/RRR", "BA/RFr", "BA/LR", "BA/LR", "BA/RFr"]
WAGON_MOVES = [place("BA/RRR", 1, 0, 0), deploy(1, 0, "W", "wagon"), place("BA/RFr", 2, 0, 0),
               deploy(2, 0, "E"), place("BA/LR", 1, 1, 180), PASS, place("BA/LR", -1, 0, 270), PASS]


class Table:
    """A crafted game: every seat's token, moves checked against legal_moves."""

    def __init__(self, test, client, players, **options):
        self.t, self.c = test, client
        self.g = client.new_game(players, **options)
        self.game = self.g["game"]
        self.tokens = [s["token"] for s in self.g["seats"]]
        self.auth = options.get("auth", True)

    def legal(self, seat=None):
        return self.c.legal_moves(self.game, seat=seat)

    def state(self):
        return self.c.state(self.game)

    def play(self, *moves):
        """Play moves (each must be listed); the result of the last."""
        res = None
        for move in moves:
            lm = self.legal()
            self.t.assertIn(move, lm["moves"], "not listed in phase %s" % lm["phase"])
            token = self.tokens[lm["seat"]] if self.auth else None
            res = self.c.apply_move(self.game, move, token=token, seq=lm["seq"])
            self.t.assertEqual(res["seq"], lm["seq"] + 1)
        return res

    def events(self, *moves):
        return self.play(*moves)["events"]

    def send(self, move):
        """Apply a move legal_moves need not list as it is written (another
        port of the feature); its events."""
        lm = self.legal()
        token = self.tokens[lm["seat"]] if self.auth else None
        res = self.c.apply_move(self.game, move, token=token, seq=lm["seq"])
        self.t.assertEqual(res["seq"], lm["seq"] + 1)
        return res["events"]

    def refuse(self, move, code, token="due", reason=None):
        """move is answered with code and changes nothing (state with its
        seq, legal_moves); the message.  An illegal_move carries a
        documented data.reason (`reason`, when given), kept in self.data."""
        before, lm = self.state(), self.legal()
        if token == "due":
            token = self.tokens[lm["seat"]] if self.auth else None
        with self.t.assertRaises(carcd.Error, msg="%r was accepted" % (move,)) as cm:
            self.c.apply_move(self.game, move, token=token)
        self.t.assertEqual(cm.exception.code, code, "%r: %s" % (move, cm.exception))
        self.t.assertIsInstance(cm.exception.message, str)
        self.t.assertTrue(cm.exception.message)
        self.data = cm.exception.data
        if code == "illegal_move":
            self.t.assertIsInstance(self.data, dict, "%r: no data" % (move,))
            self.t.assertIn(self.data.get("reason"), REASONS, "%r: %s" % (move, cm.exception))
            if reason is not None:
                self.t.assertEqual(self.data["reason"], reason, "%r: %s" % (move, cm.exception))
        else:
            self.t.assertIsNone(self.data, "%r: %s" % (move, cm.exception))
        after = self.state()
        self.t.assertEqual(after["seq"], before["seq"], "%r moved the game on" % (move,))
        self.t.assertEqual(after, before, "%r changed the game" % (move,))
        self.t.assertEqual(self.legal(), lm)
        return cm.exception.message

    def supply(self, seat):
        return self.state()["seats"][seat]["supply"]

    def decision(self):
        """(phase, seat) of legal_moves, after checking that state says the same."""
        lm, st = self.legal(), self.state()
        self.t.assertEqual((st["phase"], st["seat"], st["seq"]), (lm["phase"], lm["seat"], lm["seq"]))
        return lm["phase"], lm["seat"]


def over_both(daemon):
    """A mixin for a TestCase of the module whose daemon this is: self.c
    speaks ENCODING over TRANSPORT (subclasses set the other pair), and
    table() makes a Table on it."""

    class OverBoth:
        TRANSPORT, ENCODING = "unix", "msgpack"

        def setUp(self):
            self.c = daemon["d"].client(self.TRANSPORT, self.ENCODING)

        def tearDown(self):
            self.c.close()

        def table(self, players, **options):
            return Table(self, self.c, players, **options)

    return OverBoth


def register_over_both(namespace, groups, over_both_mixin):
    """Each group (a mixin of tests) as two TestCases in the module
    `namespace`: GROUP_Msgpack on the Unix socket, GROUP_Json over TCP.
    The group comes first in the order, so that a setUp or tearDown of its
    own wraps the client's (calling super())."""
    for group in groups:
        for transport, encoding in (("unix", "msgpack"), ("tcp", "json")):
            name = "%s_%s" % (group.__name__, encoding.capitalize())
            # of that module, so that its setUpModule starts the daemon for them
            namespace[name] = type(name, (group, over_both_mixin, unittest.TestCase),
                                   {"TRANSPORT": transport, "ENCODING": encoding,
                                    "__module__": namespace["__name__"]})


def of_type(events, *types):
    return [e for e in events if e["type"] in types]

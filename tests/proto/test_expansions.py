"""The expansions over the wire (PROTOCOL.md sections 5-7): random whole
games with every built expansion on, crafted situations for the abbey, the
wagon, the flock and the escape, and bad input for the expansions' moves."""

import collections
import random
import re
import unittest

import harness
from harness import carcd
from crafted import (ABBEY_MOVES, ABBEY_TILES, DRAW, ESCAPE_MOVES, ESCAPE_TILES, FLOCK_MOVES, FLOCK_START, PASS,
                     WAGON_MOVES, WAGON_TILES, Table, deploy, of_type, place)

daemon, setUpModule, tearDownModule = harness.module_daemon()

ALL_EXPANSIONS = ["base", "river", "river2", "mini", "inns-cathedrals", "traders-builders",
                  "abbey-mayor", "king-robber", "cathars", "cult", "hills-sheep"]

# Section 3: ports, corners, figure kinds.
PORTS = {"N", "E", "S", "W", "NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR",
         "cloister", "tower", "I", "II"}
CORNERS = {"nw", "ne", "se", "sw"}
KINDS = {"follower", "large", "wagon", "mayor", "builder", "pig", "barn", "shepherd"}

# Section 5: the move types of each phase, and the fields of each move type
# these expansions use.
PHASE_MOVES = {
    "tile": {"draw", "place_abbey", "place_tile", "ransom"},
    "action": {"deploy", "tower_piece", "move_fairy", "remove_knight", "ransom", "pass"},
    "capture": {"capture", "pass"},
    "exchange": {"exchange", "pass"},
    "dragon": {"move_dragon"},
    "city_before_scoring": {"leave_city", "pass"},
    "wagon": {"move_wagon", "pass"},
    "flock": {"flock"},
    "city_entry": {"enter_city", "pass", "move_count"},
    "escape": {"escape", "pass"},
    "catapult": {"catapult", "catapult_result"},
    "final_city": {"leave_city", "pass"},
    "abbey_final": {"place_abbey", "pass"},
}
MOVE_FIELDS = {
    "place_tile": {"tile", "x", "y", "rot"},
    "draw": set(),
    "place_abbey": {"x", "y"},
    "deploy": {"kind", "x", "y", "at"},
    "pass": set(),
    "move_wagon": {"x", "y", "at"},
    "flock": {"choice"},
    "escape": {"figure"},
}

# Section 6: the fields of each event (optional ones apart).
EVENT_FIELDS = {
    "tile_drawn": {"seat", "tile"},
    "tile_placed": {"seat", "tile", "x", "y", "rot"},
    "tile_discarded": {"tile", "why"},
    "tile_hidden": {"x", "y"},
    "deployed": {"seat", "figure", "kind", "x", "y", "at", "ports", "feature"},
    "returned": {"seat", "figure", "why"},
    "feature_completed": {"feature", "x", "y", "at", "ports", "tiles"},
    "scored": {"seat", "points", "feature", "x", "y", "at", "ports", "final"},
    "token_taken": {"seat", "token"},
    "sheep_drawn": {"seat", "x", "y", "token"},
    "turn": {"seat"},
    "game_over": {"scores"},
}
EVENT_OPTIONAL = {"token_taken": {"from"}}
# Where each kind may stand (RULES.md: farmers and large ones anywhere; the
# mayor in cities; the wagon never on a field; builder on roads and cities;
# pig, barn and shepherd in fields).
FEATURES_OF_KIND = {
    "follower": {"road", "city", "field", "cloister"},
    "large": {"road", "city", "field", "cloister"},
    "mayor": {"city"},
    "wagon": {"road", "city", "cloister"},
    "builder": {"road", "city"},
    "pig": {"field"},
    "barn": {"field"},
    "shepherd": {"field"},
}
RETURNED_WHY = {"scored", "princess", "dragon", "escape", "challenge", "catapult", "lonely",
                "wolf", "flock", "barn"}
SCORED_FEATURES = {"road", "city", "cloister", "field", "barn", "trade", "king", "robber",
                   "fairy", "ransom", "flock", "catapult"}
# Scores that belong to no place (proto/PROTOCOL.md: no x, y, at).
PLACELESS = {"trade", "king", "robber"}
TOKENS = {"king", "robber", "wine", "grain", "cloth"}

# What the random games must have shown, all games together.
WANT_PHASE_MOVES = {("tile", "place_tile"), ("tile", "draw"), ("tile", "place_abbey"),
                    ("action", "deploy"), ("action", "pass"),
                    ("wagon", "move_wagon"), ("wagon", "pass"),
                    ("flock", "flock/expand"), ("flock", "flock/gather"),
                    ("escape", "escape"), ("escape", "pass"),
                    ("abbey_final", "place_abbey"), ("abbey_final", "pass")}
WANT_PHASES = {"tile", "action", "wagon", "flock", "escape", "abbey_final"}
WANT_KINDS = KINDS
# Not tile_discarded: with every set a tile that fits nowhere is rare, and no
# river tile is ever left without a place (RULES.md 4.20, README "The river");
# Messages.test_a_river_tile_that_fits_nowhere_is_discarded has one.
WANT_EVENTS = {"tile_drawn", "tile_placed", "tile_hidden", "deployed", "returned",
               "feature_completed", "scored", "token_taken", "sheep_drawn", "turn", "game_over"}
WANT_RETURNED = {"scored", "barn", "wolf", "flock", "escape", "challenge", "lonely"}
WANT_SCORED = {"road", "city", "cloister", "field", "barn", "trade", "king", "robber", "flock"}
WANT_TOKENS = {"king", "robber", "wine", "grain", "cloth"}
WANT_SHEEP = {1, 2, 3, 4, "wolf"}

# (seats, seed, transport, encoding, abbey_final_round): both encodings,
# 2 to 6 seats; these seeds make every item of WANT_* appear.
GAMES = [
    (2, 10, "unix", "msgpack", True),
    (2, 8, "tcp", "json", False),
    (3, 1, "tcp", "json", True),
    (3, 5, "unix", "msgpack", False),
    (4, 4, "unix", "msgpack", True),
    (4, 2, "tcp", "json", True),
    (5, 4, "tcp", "json", False),
    (5, 7, "unix", "msgpack", True),
    (6, 4, "unix", "msgpack", True),
    (6, 6, "tcp", "json", False),
]


def other_transport(transport, encoding):
    return ("tcp", "json") if encoding == "msgpack" else ("unix", "msgpack")


class Bot:
    """Chooses every move from legal_moves, leaning towards what the
    expansions' rarer decisions need: seat 0 always draws instead of placing
    its abbey (so it still holds it after the last tile), the others do
    either at random; in the final abbey round it places the abbey and
    passes by turns; a cult place goes next to a known cloister where it
    can; a figure goes onto a centre building nine times in ten."""

    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(seed)
        self.buildings = set()

    def choose(self, lm):
        moves = lm["moves"]
        for m in moves:
            if m["type"] == "deploy" and m["at"] == "cloister":
                self.buildings.add((m["x"], m["y"]))
        if lm["phase"] == "tile" and DRAW in moves and (lm["seat"] == 0 or self.rng.random() < 0.5):
            return DRAW
        if lm["phase"] == "abbey_final":  # place the abbey and pass by turns
            self.final_passes = not getattr(self, "final_passes", self.seed % 2)
            return PASS if self.final_passes else next(m for m in moves if m["type"] == "place_abbey")
        tiles = [m for m in moves if m["type"] == "place_tile"]
        if tiles and tiles[0]["tile"].startswith("CU/"):
            near = [m for m in tiles
                    if any(abs(m["x"] - x) <= 1 and abs(m["y"] - y) <= 1 for x, y in self.buildings)]
            if near:
                return self.rng.choice(near)
        centre = [m for m in moves if m["type"] == "deploy" and m["at"] == "cloister"]
        if centre and self.rng.random() < 0.9:
            return self.rng.choice(centre)
        return self.rng.choice(moves)


class Played:
    """One random game as it went: [(lm, move, result)], the notifications
    a watcher on the other encoding received, and the end's answers."""


def play_game(d, nseats, seed, transport, encoding, final_round):
    p = Played()
    p.nseats, p.seed, p.transport, p.encoding, p.final_round = nseats, seed, transport, encoding, final_round
    p.rules = {"abbey_final_round": final_round}
    p.players = ["p%d" % i for i in range(nseats)]
    with d.client(transport, encoding) as c, d.client(*other_transport(transport, encoding)) as w:
        p.g = c.new_game(p.players, expansions=ALL_EXPANSIONS, rules=p.rules, seed=seed)
        game = p.g["game"]
        p.game = game
        tokens = [s["token"] for s in p.g["seats"]]
        p.subscribed = w.subscribe(game)["seq"]
        bot = Bot(seed * 10 + nseats)
        p.record = []
        p.others = []   # (phase, legal_moves of a seat that does not decide)
        for _ in range(3000):
            lm = c.legal_moves(game)
            if lm["phase"] == "over":
                break
            if lm["phase"] != "tile" and lm["phase"] != "action":
                other = (lm["seat"] + 1) % nseats
                p.others.append((lm, c.legal_moves(game, seat=other)))
            move = bot.choose(lm)
            res = c.apply_move(game, move, token=tokens[lm["seat"]], seq=lm["seq"])
            p.record.append((lm, move, res))
        p.notes = []
        while len(p.notes) < len(p.record):
            note = w.next_event(timeout=10)
            if note is None:
                break
            p.notes.append(note)
        p.late_note = w.next_event(timeout=0.05)
        p.over_lm = c.legal_moves(game)
        p.state = c.state(game)
        p.score = c.score(game)
        p.history = c.history(game)
        # the replay: the same players, expansions, rules and seed, the same moves
        g2 = c.new_game(p.players, expansions=ALL_EXPANSIONS, rules=p.rules, seed=p.history["seed"])
        t2 = [s["token"] for s in g2["seats"]]
        p.replay = []
        for move in harness.history_moves(p.history):
            seat = c.legal_moves(g2["game"])["seat"]
            p.replay.append(c.apply_move(g2["game"], move, token=t2[seat]))
        p.replay_score = c.score(g2["game"])
    return p


class RandomGames(unittest.TestCase):
    """Whole games with every built expansion, moves chosen from legal_moves
    and sent back unchanged; each game over one encoding, watched over the
    other."""

    @classmethod
    def setUpClass(cls):
        d = daemon["d"]
        cls.games = [play_game(d, *cfg) for cfg in GAMES]

    def each(self):
        for p in self.games:
            with self.subTest(seats=p.nseats, seed=p.seed, encoding=p.encoding):
                yield p

    # ---- moves --------------------------------------------------------------------
    def test_moves_listed_are_well_formed(self):
        for p in self.each():
            for lm, move, res in p.record:
                self.assertEqual(lm["game"], p.game)
                self.assertIn(lm["phase"], PHASE_MOVES)
                self.assertIsInstance(lm["seat"], int)
                self.assertTrue(0 <= lm["seat"] < p.nseats, lm)
                self.assertTrue(lm["moves"], lm)
                for m in lm["moves"]:
                    self.assertIn(m["type"], PHASE_MOVES[lm["phase"]], (lm["phase"], m))
                    self.assertIn(m["type"], MOVE_FIELDS, m)
                    self.assertEqual(set(m), {"type"} | MOVE_FIELDS[m["type"]], m)
                    self.check_move_values(lm, m)
                self.assertIn(move, lm["moves"])

    def check_move_values(self, lm, m):
        t = m["type"]
        for k in ("x", "y"):
            if k in m:
                self.assertIsInstance(m[k], int, m)
        if t == "place_tile":
            self.assertIn(m["rot"], (0, 90, 180, 270), m)
        elif t == "deploy":
            self.assertIn(m["kind"], KINDS, m)
            self.assertIn(m["at"], CORNERS if m["kind"] == "barn" else PORTS, m)
        elif t == "move_wagon":
            self.assertIn(m["at"], PORTS - {"tower"}, m)
        elif t == "flock":
            self.assertIn(m["choice"], ("expand", "gather"), m)
        elif t == "escape":
            self.assertRegex(m["figure"], r"^%d\.(follower|large|wagon|mayor)\.[1-9][0-9]*$" % lm["seat"])

    def test_each_phase_lists_what_section_5_says(self):
        for p in self.each():
            for lm, move, res in p.record:
                moves, phase = lm["moves"], lm["phase"]
                types = collections.Counter(m["type"] for m in moves)
                if phase == "tile":
                    if types["draw"] or types["place_abbey"]:
                        # the abbey instead of drawing: nothing drawn yet
                        self.assertEqual(types["draw"], 1, lm)
                        self.assertGreaterEqual(types["place_abbey"], 1, lm)
                        self.assertEqual(set(types), {"draw", "place_abbey"}, lm)
                    else:
                        self.assertEqual(set(types), {"place_tile"}, lm)
                        self.assertEqual(len({m["tile"] for m in moves}), 1, lm)
                elif phase == "action":
                    self.assertEqual(types["pass"], 1, lm)
                    self.assertEqual(set(types), {"deploy", "pass"}, lm)
                elif phase == "wagon":
                    self.assertEqual(types["pass"], 1, lm)
                    self.assertGreaterEqual(types["move_wagon"], 1, lm)
                elif phase == "flock":
                    self.assertEqual(sorted(m["choice"] for m in moves), ["expand", "gather"], lm)
                elif phase == "escape":
                    self.assertEqual(types["pass"], 1, lm)
                    self.assertGreaterEqual(types["escape"], 1, lm)
                elif phase == "abbey_final":
                    self.assertTrue(p.final_round, "abbey_final without abbey_final_round")
                    self.assertEqual(types["pass"], 1, lm)
                    self.assertGreaterEqual(types["place_abbey"], 1, lm)
                else:
                    self.fail("phase %s in a game of these expansions" % phase)
                self.assertEqual(len(moves), len({tuple(sorted(m.items())) for m in moves}),
                                 "a move listed twice: %s" % lm)

    def test_seat_that_does_not_decide_gets_no_moves(self):
        n = 0
        for p in self.each():
            for lm, other in p.others:
                n += 1
                self.assertEqual(other["seq"], lm["seq"])
                self.assertEqual(other["phase"], lm["phase"])
                self.assertEqual(other["seat"], lm["seat"])
                self.assertEqual(other["moves"], [])
        self.assertGreater(n, 10)

    def test_each_move_accepted_and_seq_advances(self):
        for p in self.each():
            seq = p.g["state"]["seq"]
            self.assertEqual(seq, 0)
            self.assertEqual(p.subscribed, 0)
            for lm, move, res in p.record:
                self.assertEqual(lm["seq"], seq)
                self.assertEqual(res["seq"], seq + 1)
                seq = res["seq"]
                self.assertEqual(set(res), {"seq", "events", "phase", "seat", "over"})
            self.assertEqual(p.state["seq"], seq)
            self.assertEqual(len(p.record), seq)

    def test_result_says_who_decides_next(self):
        for p in self.each():
            for (lm, move, res), nxt in zip(p.record, p.record[1:] + [(p.over_lm, None, None)]):
                self.assertEqual((res["phase"], res["seat"]), (nxt[0]["phase"], nxt[0]["seat"]))
                self.assertIs(res["over"], nxt[0]["phase"] == "over")

    def test_events_of_each_move(self):
        for p in self.each():
            wagons_home = set()
            for lm, move, res in p.record:
                evs, seat, t = res["events"], lm["seat"], move["type"]
                if t == "place_tile":
                    self.assertEqual(evs[0], dict(move, type="tile_placed", seat=seat))
                elif t == "place_abbey":
                    self.assertEqual(evs[0], {"type": "tile_placed", "seat": seat, "tile": "AM/A",
                                              "x": move["x"], "y": move["y"], "rot": 0})
                elif t == "draw":
                    self.assertEqual(evs, [{"type": "tile_drawn", "seat": seat, "tile": evs[0]["tile"]}])
                    self.assertEqual((res["phase"], res["seat"]), ("tile", seat))
                elif t == "deploy":
                    self.assertEqual({k: evs[0][k] for k in ("type", "seat", "kind", "x", "y", "at")},
                                     {"type": "deployed", "seat": seat, "kind": move["kind"],
                                      "x": move["x"], "y": move["y"], "at": move["at"]})
                    self.assertRegex(evs[0]["figure"], r"^%d\.%s\.[1-9][0-9]*$" % (seat, move["kind"]))
                    if move["kind"] == "shepherd":
                        self.assertEqual({k: evs[1].get(k) for k in ("type", "seat", "x", "y")},
                                         {"type": "sheep_drawn", "seat": seat, "x": move["x"], "y": move["y"]})
                elif t == "move_wagon":
                    # the owner's wagon, back home after a scoring, goes onto the feature
                    self.assertIn(seat, wagons_home)
                    self.assertEqual({k: evs[0][k] for k in ("type", "seat", "kind", "x", "y", "at")},
                                     {"type": "deployed", "seat": seat, "kind": "wagon",
                                      "x": move["x"], "y": move["y"], "at": move["at"]})
                    self.assertRegex(evs[0]["figure"], r"^%d\.wagon\.[1-9][0-9]*$" % seat)
                elif t == "flock" and move["choice"] == "expand":
                    self.assertEqual({k: evs[0].get(k) for k in ("type", "seat")},
                                     {"type": "sheep_drawn", "seat": seat})
                elif t == "flock":
                    mine = [e for e in evs if e["type"] == "returned" and e["seat"] == seat]
                    self.assertEqual([(e["why"], e["figure"].split(".")[1]) for e in mine],
                                     [("flock", "shepherd")], evs)
                    self.assertIn(seat, [e["seat"] for e in evs if e["type"] == "scored"
                                         and e["feature"] == "flock"])
                elif t == "escape":
                    self.assertEqual(evs[0], {"type": "returned", "seat": seat,
                                              "figure": move["figure"], "why": "escape"})
                if lm["phase"] == "wagon":
                    self.assertIn(seat, wagons_home, "the wagon phase is for the owner of a scored wagon")
                    wagons_home.discard(seat)
                else:
                    wagons_home = set()
                for e in evs:
                    if e["type"] == "returned" and e["why"] == "scored" and ".wagon." in e["figure"]:
                        wagons_home.add(e["seat"])
                    if e["type"] == "deployed" and e["kind"] == "wagon":
                        wagons_home.discard(e["seat"])

    def test_events_are_those_of_section_6(self):
        for p in self.each():
            for lm, move, res in p.record:
                for e in res["events"]:
                    self.check_event(e, p.nseats)

    def check_event(self, e, nseats):
        t = e["type"]
        self.assertIn(t, EVENT_FIELDS, e)
        fields = EVENT_FIELDS[t]
        self.assertTrue(fields | {"type"} <= set(e) <= fields | {"type"} | EVENT_OPTIONAL.get(t, set()), e)
        if t == "scored":  # goods, the king and the robber belong to no place
            placeless = e["feature"] in PLACELESS
            self.assertEqual([e[k] is None for k in ("x", "y", "at")], [placeless] * 3, e)
        if "seat" in e and not (t == "tile_placed" and e["seat"] is None):
            self.assertIn(e["seat"], range(nseats), e)
        for k in ("x", "y", "rot", "points", "tiles"):
            if e.get(k) is not None:
                self.assertIsInstance(e[k], int, e)
        if t in ("deployed", "returned"):
            self.assertRegex(e["figure"], r"^%d\.(%s)\.[1-9][0-9]*$" % (e["seat"], "|".join(KINDS)))
        if t == "deployed":
            self.assertEqual(e["figure"].split(".")[1], e["kind"])
            self.assertIn(e["at"], CORNERS if e["kind"] == "barn" else PORTS, e)
            self.assertIn(e["feature"], FEATURES_OF_KIND[e["kind"]], e)
        elif t == "returned":
            self.assertIn(e["why"], RETURNED_WHY, e)
        elif t == "scored":
            self.assertIn(e["feature"], SCORED_FEATURES, e)
            self.assertGreater(e["points"], 0, e)
            self.assertIsInstance(e["final"], bool, e)
        elif t == "token_taken":
            self.assertIn(e["token"], TOKENS, e)
            if "from" in e:
                self.assertIn(e["token"], ("king", "robber"), e)
                self.assertIn(e["from"], range(nseats), e)
                self.assertNotEqual(e["from"], e["seat"], e)
        elif t == "sheep_drawn":
            self.assertIn(e["token"], WANT_SHEEP, e)
        elif t == "tile_placed":
            self.assertIn(e["rot"], (0, 90, 180, 270), e)
        elif t == "tile_discarded":
            self.assertIn(e["why"], ("unplaceable", "reshuffled"), e)
        elif t == "feature_completed":
            self.assertIn(e["feature"], ("road", "city", "cloister"), e)
            self.assertGreaterEqual(e["tiles"], 1, e)
        elif t == "game_over":
            self.assertEqual(len(e["scores"]), nseats)

    def test_hidden_tiles_stay_secret(self):
        for p in self.each():
            evs = harness.all_events(p.record)
            self.assertTrue(any(e["type"] == "tile_hidden" for e in evs))
            for i, e in enumerate(evs):
                if e["type"] == "tile_hidden":
                    self.assertEqual(set(e), {"type", "x", "y"})
                    placed = evs[i - 1]
                    # the hill tile placed just before, at the same place
                    self.assertEqual((placed["type"], placed["x"], placed["y"]), ("tile_placed", e["x"], e["y"]))
                    self.assertTrue(placed["tile"].startswith("HS/") and ".h" in placed["tile"], placed)
            # every tile of the supply was placed, discarded or hidden
            drawn = sum(1 for e in evs if e["type"] in ("tile_discarded", "tile_hidden")
                        or (e["type"] == "tile_placed" and e["tile"] != "AM/A"))
            self.assertEqual(drawn, p.g["state"]["tiles_left"] + 1)
            self.assertEqual(p.state["tiles_left"], 0)

    # ---- watchers, the end, history --------------------------------------------------
    def test_watcher_receives_the_same_events(self):
        for p in self.each():
            self.assertEqual(len(p.notes), len(p.record))
            for note, (lm, move, res) in zip(p.notes, p.record):
                self.assertEqual(note, {"game": p.game, "seq": res["seq"], "events": res["events"]})
            self.assertIsNone(p.late_note)

    def test_game_over_with_the_scores_of_score(self):
        for p in self.each():
            evs = harness.all_events(p.record)
            last = p.record[-1][2]
            self.assertEqual((last["phase"], last["seat"], last["over"]), ("over", None, True))
            self.assertEqual(p.over_lm, {"game": p.game, "seq": last["seq"], "phase": "over",
                                         "seat": None, "moves": []})
            self.assertEqual(evs[-1]["type"], "game_over")
            self.assertEqual([e["type"] for e in evs].count("game_over"), 1)
            sc = p.score
            self.assertIs(sc["final"], True)
            self.assertEqual(evs[-1]["scores"], sc["scores"])
            self.assertEqual(sc["if_ended_now"], sc["scores"])
            self.assertEqual(harness.points_by_seat(evs, p.nseats), sc["scores"])
            self.assertEqual([s["score"] for s in p.state["seats"]], sc["scores"])
            self.assertIs(p.state["over"], True)
            by = collections.defaultdict(collections.Counter)
            for e in evs:
                if e["type"] == "scored":
                    by[e["seat"]][e["feature"]] += e["points"]
            for b in sc["breakdown"]:
                self.assertEqual(sum(b["by"].values()), sc["scores"][b["seat"]])
                self.assertEqual({k: v for k, v in b["by"].items() if v}, dict(by[b["seat"]]))
            # final scoring only after the last tile
            last_tile = max(i for i, e in enumerate(evs) if e["type"] in ("tile_placed", "tile_discarded")
                            and e.get("tile") != "AM/A")
            for i, e in enumerate(evs):
                if e["type"] == "scored" and e["final"]:
                    self.assertGreater(i, last_tile, e)
            # after the last tile a turn only begins for a seat's abbey in the final round
            self.assertEqual([e["seat"] for e in evs[last_tile + 1:] if e["type"] == "turn"],
                             [lm["seat"] for lm, _, _ in p.record if lm["phase"] == "abbey_final"])

    def test_state_at_the_end(self):
        # section 4.2: `seat` is null once over, and so is `tile`; a seat's
        # `tokens` holds king and robber as true, goods as counts
        held = set()
        for p in self.each():
            self.assertEqual((p.state["phase"], p.state["over"]), ("over", True))
            self.assertIsNone(p.state["seat"])
            self.assertIsNone(p.state["tile"])
            for seat in p.state["seats"]:
                for token, value in seat["tokens"].items():
                    self.assertIn(token, WANT_TOKENS, seat)
                    if token in ("king", "robber"):
                        self.assertIs(value, True, seat)
                    else:
                        self.assertIs(type(value), int, seat)
                        self.assertGreater(value, 0, seat)
                    held.add(token)
            # the start tile was placed by nobody
            first = p.history["events"][0]
            self.assertEqual((first["type"], first["seat"], first["seq"]), ("tile_placed", None, 0), first)
        self.assertEqual(held, WANT_TOKENS)

    def test_history_holds_the_game_and_replays(self):
        for p in self.each():
            h = p.history
            self.assertEqual(harness.history_moves(h), [move for _, move, _ in p.record])
            self.assertEqual([m["seq"] for m in h["moves"]], list(range(1, len(p.record) + 1)))
            self.assertEqual([m["seat"] for m in h["moves"]], [lm["seat"] for lm, _, _ in p.record])
            evs = harness.all_events(p.record)
            hev = harness.history_events(h)
            self.assertEqual(hev[len(hev) - len(evs):], evs)
            self.assertEqual(h["setup"]["expansions"], ALL_EXPANSIONS)
            self.assertIs(h["setup"]["rules"]["abbey_final_round"], p.final_round)
            self.assertEqual(harness.seed_commitment(h["seed"], h["salt"]), p.g["state"]["seed_sha256"])
            self.assertEqual(len(p.state["board"]), sum(1 for e in hev if e["type"] == "tile_placed"))
            self.assertEqual([r["events"] for r in p.replay], [r["events"] for _, _, r in p.record])
            self.assertEqual(p.replay_score, p.score)

    # ---- what the games covered ------------------------------------------------------
    def test_the_games_covered_the_expansions(self):
        seen = collections.defaultdict(set)
        for p in self.games:
            for lm, move, res in p.record:
                t = move["type"] + ("/" + move["choice"] if move["type"] == "flock" else "")
                seen["phase_move"].add((lm["phase"], t))
                seen["phase"].add(lm["phase"])
                if move["type"] == "deploy":
                    seen["kind"].add(move["kind"])
                for e in res["events"]:
                    seen["event"].add(e["type"])
                    if e["type"] == "returned":
                        seen["returned"].add(e["why"])
                    elif e["type"] == "scored":
                        seen["scored"].add(e["feature"])
                    elif e["type"] == "token_taken":
                        seen["token"].add(e["token"])
                        if "from" in e:
                            seen["token_from"].add(e["token"])
                    elif e["type"] == "sheep_drawn":
                        seen["sheep"].add(e["token"])
                    elif e["type"] == "deployed" and e["kind"] == "barn":
                        seen["barn_at"].add(e["at"])
        self.assertEqual(seen["phase_move"], WANT_PHASE_MOVES)
        self.assertEqual(seen["phase"], WANT_PHASES)
        self.assertEqual(seen["kind"], WANT_KINDS)
        self.assertEqual(seen["event"], WANT_EVENTS)
        self.assertEqual(seen["returned"], WANT_RETURNED)
        self.assertEqual(seen["scored"], WANT_SCORED)
        self.assertEqual(seen["token"], WANT_TOKENS)
        self.assertEqual(seen["token_from"], {"king", "robber"})
        self.assertEqual(seen["sheep"], WANT_SHEEP)
        self.assertTrue(seen["barn_at"] and seen["barn_at"] <= CORNERS)
        self.assertEqual({p.encoding for p in self.games}, {"msgpack", "json"})
        self.assertEqual({p.nseats for p in self.games}, {2, 3, 4, 5, 6})


def check_scored(test, events, expected):
    """The scored events are expected, a list of (seat, points, feature,
    final, tiles) in any order; the event may name its feature by any of its
    tiles (section 3), so its (x, y) must be one of tiles."""
    got = sorted((e for e in events if e["type"] == "scored"),
                 key=lambda e: (e["seat"], e["feature"], e["points"], e["final"]))
    expected = sorted(expected, key=lambda x: (x[0], x[2], x[1], x[3]))
    test.assertEqual([(e["seat"], e["points"], e["feature"], e["final"]) for e in got],
                     [x[:4] for x in expected])
    for e, x in zip(got, expected):
        test.assertIn((e["x"], e["y"]), x[4], e)
        test.assertIn(e["at"], PORTS, e)


class TwoClients(unittest.TestCase):
    """A MessagePack client on the Unix socket and a JSON one on TCP."""

    def setUp(self):
        self.c = daemon["d"].client("unix")
        self.j = daemon["d"].client("tcp", "json")

    def tearDown(self):
        self.c.close()
        self.j.close()


class Crafted(TwoClients):
    """Situations built with new_game's `tiles`, `start` and `bag`."""

    def abbey_game(self, client, **options):
        t = Table(self, client, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=ABBEY_TILES,
                  seed=5, **options)
        t.play(*ABBEY_MOVES)
        return t

    def test_abbey_instead_of_drawing(self):
        t = self.abbey_game(self.j)
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("tile", 0))
        self.assertCountEqual(lm["moves"], [{"type": "place_abbey", "x": 0, "y": -1}, DRAW])
        st = t.state()
        self.assertIsNone(st["tile"])
        self.assertEqual(st["tiles_left"], 2)
        self.assertEqual([s["supply"]["abbey"] for s in st["seats"]], [1, 1])
        # seat 0 draws instead
        self.assertEqual(t.events(DRAW), [{"type": "tile_drawn", "seat": 0, "tile": "BA/RFr"}])
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("tile", 0))
        self.assertTrue(lm["moves"])
        self.assertEqual({(m["type"], m["tile"]) for m in lm["moves"]}, {("place_tile", "BA/RFr")})
        self.assertEqual(t.state()["tile"], {"id": "BA/RFr", "drawn_by": 0})
        t.play(place("BA/RFr", -2, 0, 90), PASS)
        # seat 1 still holds its abbey: the same choice; it places it
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("tile", 1))
        self.assertCountEqual(lm["moves"], [{"type": "place_abbey", "x": 0, "y": -1}, DRAW])
        evs = t.events({"type": "place_abbey", "x": 0, "y": -1})
        self.assertEqual(evs, [{"type": "tile_placed", "seat": 1, "tile": "AM/A", "x": 0, "y": -1, "rot": 0}])
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("action", 1))
        self.assertCountEqual(lm["moves"], [deploy(0, -1, "cloister"), deploy(0, -1, "cloister", "wagon"), PASS])
        evs = t.events(deploy(0, -1, "cloister"))
        self.assertEqual(evs[0], {"type": "deployed", "seat": 1, "figure": "1.follower.2", "kind": "follower",
                                  "x": 0, "y": -1, "at": "cloister", "ports": ["cloister"], "feature": "cloister"})
        # the abbey's walls close the road (4 tiles) and the cities around it
        check_scored(self, evs, [(0, 4, "road", False, {(-1, 0), (0, 0), (1, 0), (1, -1)}),
                                 (1, 2, "city", False, {(-1, -1)})])
        self.assertCountEqual([(e["seat"], e["figure"], e["why"]) for e in of_type(evs, "returned")],
                              [(0, "0.follower.1", "scored"), (1, "1.follower.1", "scored")])
        self.assertEqual(evs[-2:], [{"type": "turn", "seat": 0},
                                    {"type": "tile_drawn", "seat": 0, "tile": "BA/C"}])
        # no hole left: seat 0's turn begins with the tile drawn
        st = t.state()
        self.assertEqual([s["supply"]["abbey"] for s in st["seats"]], [1, 0])
        self.assertEqual(st["tile"], {"id": "BA/C", "drawn_by": 0})
        self.assertEqual({m["type"] for m in t.legal()["moves"]}, {"place_tile"})
        evs = t.events(place("BA/C", 2, 0, 0), PASS)
        check_scored(self, evs, [(1, 8, "cloister", True, {(0, -1)})])
        self.assertEqual(evs[-1], {"type": "game_over", "scores": [4, 10]})

    def test_abbey_after_the_last_tile(self):
        """abbey_final_round: after the last tile seat 0 still holds its
        abbey and a hole is open: place_abbey or pass, then the end."""
        t = Table(self, self.c, ["solo"], expansions=["base", "abbey-mayor"], tiles=ABBEY_TILES,
                  seed=5, rules={"abbey_final_round": True})
        t.play(*[PASS if m == deploy(-1, -1, "E") else m for m in ABBEY_MOVES])
        for tile, where in (("BA/RFr", (-2, 0, 90)), ("BA/C", (2, 0, 0))):
            lm = t.legal()
            self.assertCountEqual(lm["moves"], [{"type": "place_abbey", "x": 0, "y": -1}, DRAW])
            self.assertEqual(t.events(DRAW), [{"type": "tile_drawn", "seat": 0, "tile": tile}])
            evs = t.events(place(tile, *where))
            if t.legal()["phase"] == "action":
                evs = t.events(PASS)
        self.assertEqual(evs, [{"type": "turn", "seat": 0}])
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("abbey_final", 0))
        self.assertCountEqual(lm["moves"], [{"type": "place_abbey", "x": 0, "y": -1}, PASS])
        self.assertEqual(t.legal(seat=0)["moves"], lm["moves"])
        t.refuse(DRAW, "illegal_move")
        t.refuse({"type": "place_abbey", "x": 3, "y": 0}, "illegal_move")
        evs = t.events({"type": "place_abbey", "x": 0, "y": -1})
        self.assertEqual(evs, [{"type": "tile_placed", "seat": 0, "tile": "AM/A", "x": 0, "y": -1, "rot": 0}])
        self.assertEqual(t.supply(0)["abbey"], 0)
        # a figure may go onto it, then the walls close the road and the game ends
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("action", 0))
        self.assertCountEqual(lm["moves"], [deploy(0, -1, "cloister"), deploy(0, -1, "cloister", "wagon"), PASS])
        evs = t.events(deploy(0, -1, "cloister"))
        self.assertEqual(evs[0]["figure"], "0.follower.2")
        check_scored(self, evs, [(0, 4, "road", False, {(-1, 0), (0, 0), (1, 0), (1, -1)}),
                                 (0, 8, "cloister", True, {(0, -1)})])
        self.assertFalse(of_type(evs, "turn", "tile_drawn"))
        self.assertEqual(evs[-1], {"type": "game_over", "scores": [12]})
        self.assertEqual(t.c.score(t.game)["scores"], [12])
        self.assertEqual(t.legal()["phase"], "over")

    def test_wagon_moves_after_its_road_scored(self):
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=WAGON_TILES, seed=5)
        evs = t.events(*WAGON_MOVES[:2])
        self.assertEqual(evs[0]["figure"], "0.wagon.1")
        self.assertEqual(t.supply(0)["wagon"], 0)
        evs = t.events(*WAGON_MOVES[2:])
        check_scored(self, evs, [(0, 3, "road", False, {(-1, 0), (0, 0), (1, 0)})])
        self.assertEqual(of_type(evs, "returned"),
                         [{"type": "returned", "seat": 0, "figure": "0.wagon.1", "why": "scored"}])
        self.assertFalse(of_type(evs, "turn"), "the turn goes on to the wagon")
        # seat 1's turn, but seat 0, the wagon's owner, decides
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("wagon", 0))
        self.assertEqual(t.state()["phase"], "wagon")
        self.assertEqual(lm["moves"], [{"type": "move_wagon", "x": -1, "y": 0, "at": "cloister"}, PASS])
        self.assertEqual(t.legal(seat=1)["moves"], [])
        self.assertEqual(t.supply(0)["wagon"], 1)
        evs = t.events({"type": "move_wagon", "x": -1, "y": 0, "at": "cloister"})
        self.assertEqual(evs, [{"type": "deployed", "seat": 0, "figure": "0.wagon.1", "kind": "wagon",
                                "x": -1, "y": 0, "at": "cloister", "ports": ["cloister"], "feature": "cloister"},
                               {"type": "turn", "seat": 0},
                               {"type": "tile_drawn", "seat": 0, "tile": "BA/RFr"}])
        self.assertEqual(t.supply(0)["wagon"], 0)
        figs = {(b["x"], b["y"]): b["figures"] for b in t.state()["board"]}
        self.assertEqual(figs[(-1, 0)], [{"id": "0.wagon.1", "kind": "wagon", "at": "cloister", "ports": ["cloister"],
                                          "feature": "cloister"}])
        evs = t.events(place("BA/RFr", 3, 0, 0), PASS)
        check_scored(self, evs, [(0, 2, "cloister", True, {(-1, 0)}),
                                 (1, 3, "road", True, {(1, 0), (2, 0), (3, 0)})])
        self.assertEqual(evs[-1], {"type": "game_over", "scores": [5, 3]})

    def test_wagon_pass_stays_home(self):
        t = Table(self, self.j, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=WAGON_TILES, seed=5)
        t.play(*WAGON_MOVES)
        evs = t.events(PASS)
        self.assertEqual(evs, [{"type": "turn", "seat": 0}, {"type": "tile_drawn", "seat": 0, "tile": "BA/RFr"}])
        self.assertEqual(t.supply(0)["wagon"], 1)

    def flock_game(self, client):
        t = Table(self, client, ["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START,
                  bag=[3, 2, 4, "wolf"], tiles=["BA/RFr"] * 6, seed=5)
        evs = t.events(*FLOCK_MOVES[:2])
        self.assertEqual(evs[:2], [{"type": "deployed", "seat": 0, "figure": "0.shepherd.1", "kind": "shepherd",
                                    "x": -1, "y": 0, "at": "ER", "ports": ["ER", "SL", "SR", "WL"], "feature": "field"},
                                   {"type": "sheep_drawn", "seat": 0, "x": -1, "y": 0, "token": 3}])
        evs = t.events(*FLOCK_MOVES[2:4])
        self.assertEqual(evs[1], {"type": "sheep_drawn", "seat": 1, "x": 3, "y": 0, "token": 2})
        evs = t.events(*FLOCK_MOVES[4:])
        self.assertEqual(evs, [])
        return t

    def test_flock_expand_then_gather(self):
        t = self.flock_game(self.c)
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("flock", 0))
        self.assertEqual(lm["moves"], [{"type": "flock", "choice": "expand"}, {"type": "flock", "choice": "gather"}])
        self.assertEqual(t.legal(seat=1)["moves"], [])
        evs = t.events({"type": "flock", "choice": "expand"})
        self.assertEqual(evs, [{"type": "sheep_drawn", "seat": 0, "x": -1, "y": 0, "token": 4},
                               {"type": "turn", "seat": 1}, {"type": "tile_drawn", "seat": 1, "tile": "BA/RFr"}])
        evs = t.events(place("BA/RFr", 4, 0, 0), PASS)
        self.assertEqual(evs, [])
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("flock", 1))
        self.assertEqual(lm["moves"], [{"type": "flock", "choice": "expand"}, {"type": "flock", "choice": "gather"}])
        evs = t.events({"type": "flock", "choice": "gather"})
        # 3 + 4 + 2 sheep in the farm: every shepherd owner there scores 9
        farm = {(x, 0) for x in range(-1, 5)}
        check_scored(self, evs, [(0, 9, "flock", False, farm), (1, 9, "flock", False, farm)])
        self.assertEqual(of_type(evs, "returned"),
                         [{"type": "returned", "seat": 0, "figure": "0.shepherd.1", "why": "flock"},
                          {"type": "returned", "seat": 1, "figure": "1.shepherd.1", "why": "flock"}])
        self.assertEqual(evs[-2:], [{"type": "turn", "seat": 0}, {"type": "tile_drawn", "seat": 0, "tile": "BA/RFr"}])
        self.assertEqual([s["score"] for s in t.state()["seats"]], [9, 9])
        self.assertEqual([t.supply(s)["shepherd"] for s in (0, 1)], [1, 1])

    def test_flock_expand_draws_the_wolf(self):
        t = self.flock_game(self.j)
        t.play({"type": "flock", "choice": "expand"}, place("BA/RFr", 4, 0, 0), PASS)
        evs = t.events({"type": "flock", "choice": "expand"})
        self.assertEqual(evs[:3], [{"type": "sheep_drawn", "seat": 1, "x": 3, "y": 0, "token": "wolf"},
                                   {"type": "returned", "seat": 0, "figure": "0.shepherd.1", "why": "wolf"},
                                   {"type": "returned", "seat": 1, "figure": "1.shepherd.1", "why": "wolf"}])
        check_scored(self, evs, [])
        self.assertEqual([s["score"] for s in t.state()["seats"]], [0, 0])

    def escape_game(self, client):
        t = Table(self, client, ["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5)
        self.assertEqual(t.events(*ESCAPE_MOVES[:2])[0]["figure"], "0.follower.1")
        # no cloister next to the siege tile yet: no escape decision
        self.assertEqual((t.legal()["phase"], t.legal()["seat"]), ("tile", 1))
        evs = t.events(*ESCAPE_MOVES[2:])
        self.assertEqual(evs, [{"type": "deployed", "seat": 0, "figure": "0.follower.2", "kind": "follower",
                                "x": 1, "y": 0, "at": "E", "ports": ["E", "W"], "feature": "road"}])
        return t

    def test_escape_from_the_besieged_city(self):
        t = self.escape_game(self.c)
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("escape", 0))
        self.assertEqual(lm["moves"], [{"type": "escape", "figure": "0.follower.1"}, PASS])
        self.assertEqual(t.legal(seat=1)["moves"], [])
        self.assertEqual(t.supply(0)["follower"], 5)
        evs = t.events({"type": "escape", "figure": "0.follower.1"})
        self.assertEqual(evs, [{"type": "returned", "seat": 0, "figure": "0.follower.1", "why": "escape"},
                               {"type": "turn", "seat": 1}, {"type": "tile_drawn", "seat": 1, "tile": "BA/RFr"}])
        self.assertEqual(t.supply(0)["follower"], 6)
        figs = {(b["x"], b["y"]): b["figures"] for b in t.state()["board"]}
        self.assertEqual(figs[(0, -1)], [])
        evs = t.events(place("BA/RFr", -1, 0, 0), PASS)
        check_scored(self, evs, [(0, 3, "road", True, {(-1, 0), (0, 0), (1, 0)}),
                                 (1, 4, "cloister", True, {(-1, -1)})])

    def test_escape_pass_keeps_the_follower(self):
        t = self.escape_game(self.j)
        evs = t.events(PASS)
        self.assertEqual(evs, [{"type": "turn", "seat": 1}, {"type": "tile_drawn", "seat": 1, "tile": "BA/RFr"}])
        figs = {(b["x"], b["y"]): b["figures"] for b in t.state()["board"]}
        self.assertEqual(figs[(0, -1)], [{"id": "0.follower.1", "kind": "follower", "at": "E", "ports": ["E", "S"],
                                         "feature": "city"}])
        # only the player on turn may free followers: none at the end of seat 1's turn
        evs = t.events(place("BA/RFr", -1, 0, 0), PASS)
        self.assertFalse(of_type(evs, "returned"))
        # the besieged city is incomplete: seat 0's follower there scores nothing
        check_scored(self, evs, [(0, 3, "road", True, {(-1, 0), (0, 0), (1, 0)}),
                                 (1, 4, "cloister", True, {(-1, -1)})])
        self.assertEqual(evs[-1], {"type": "game_over", "scores": [3, 4]})


class BadInput(TwoClients):
    """Bad expansion moves: each answered with its error code and leaving the
    game as it was (state, seq and legal_moves compared before and after)."""

    OUT_OF_PHASE = [{"type": "draw"}, {"type": "place_abbey", "x": 0, "y": -1},
                    {"type": "move_wagon", "x": -1, "y": 0, "at": "cloister"},
                    {"type": "flock", "choice": "expand"}, {"type": "flock", "choice": "gather"},
                    {"type": "escape", "figure": "0.follower.1"}]

    def out_of_phase(self, t, open_types):
        for move in self.OUT_OF_PHASE:
            if move["type"] not in open_types:
                with self.subTest(phase=t.legal()["phase"], move=move):
                    t.refuse(move, "illegal_move")

    def test_expansion_moves_in_a_base_game(self):
        t = Table(self, self.j, ["ann", "bob"], tiles=["BA/RFr", "BA/L", "BA/C"], seed=5)
        self.out_of_phase(t, {})
        t.refuse(deploy(1, 0, "E"), "illegal_move")
        t.play(place("BA/RFr", 1, 0, 0))
        self.out_of_phase(t, {})
        for kind in KINDS - {"follower"}:
            with self.subTest(kind=kind):
                t.refuse(deploy(1, 0, "nw" if kind == "barn" else "E", kind), "illegal_move")

    def test_wagon_phase(self):
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=WAGON_TILES, seed=5)
        t.play(*WAGON_MOVES[:4])
        # a wagon move in the tile and in the action phase
        self.out_of_phase(t, {})
        t.play(*WAGON_MOVES[4:7])
        self.out_of_phase(t, {})
        t.play(WAGON_MOVES[7])
        self.assertEqual(t.legal()["phase"], "wagon")
        self.out_of_phase(t, {"move_wagon"})
        for move in (place("BA/RFr", 3, 0, 0), deploy(-1, 0, "cloister"), deploy(-1, 0, "cloister", "wagon")):
            t.refuse(move, "illegal_move")
        good = {"type": "move_wagon", "x": -1, "y": 0, "at": "cloister"}
        for move, code in (
                ({"type": "move_wagon", "x": -1, "y": 0}, "invalid_params"),               # no at
                (dict(good, at=None), "invalid_params"),                                   # nil: not given
                (dict(good, at="XX"), "invalid_params"),                                   # no port
                (dict(good, at="nw"), "illegal_move"),                                     # a corner
                (dict(good, at="II"), "illegal_move"),                                     # no feature there
                (dict(good, at="tower"), "illegal_move"),
                ({"type": "move_wagon", "x": 5, "y": 5, "at": "N"}, "illegal_move"),       # no tile
                ({"type": "move_wagon", "x": 0, "y": 0, "at": "N"}, "illegal_move"),       # not connected
                ({"type": "move_wagon", "x": 2, "y": 0, "at": "W"}, "illegal_move"),       # occupied
                ({"type": "move_wagon", "x": 1, "y": 1, "at": "N"}, "illegal_move"),       # complete
                ({"type": "move_wagon", "x": -1, "y": 0, "at": "NL"}, "illegal_move"),     # a field
                (dict(good, x="-1"), "invalid_params"),
                (dict(good, x=-1.5), "invalid_params"),
                (dict(good, at=7), "invalid_params"),
                (dict(good, at=["cloister"]), "invalid_params"),
                ({"type": "move_wagon", "y": 0, "at": "cloister"}, "invalid_params")):
            with self.subTest(move=move):
                t.refuse(move, code)
        # tokens: seat 1 is on turn but seat 0 decides
        t.refuse(good, "not_your_turn", token=t.tokens[1])
        t.refuse(good, "forbidden", token="0" * 32)
        t.refuse(good, "forbidden", token=t.g["admin_token"])
        t.refuse(good, "forbidden", token=None)
        # integral floats are integers; extra keys are ignored; any port of the feature
        lm = t.legal()
        res = t.c.apply_move(t.game, {"type": "move_wagon", "x": -1.0, "y": 0, "at": "cloister", "why": 1},
                             token=t.tokens[0], seq=lm["seq"])
        self.assertEqual(res["events"][0]["figure"], "0.wagon.1")

    def test_flock_phase(self):
        t = Table(self, self.j, ["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START,
                  bag=[3, 2, 4], tiles=["BA/RFr"] * 5, seed=5)
        self.out_of_phase(t, {})
        t.play(*FLOCK_MOVES[:1])
        self.out_of_phase(t, {})
        t.play(*FLOCK_MOVES[1:])
        self.assertEqual(t.legal()["phase"], "flock")
        self.out_of_phase(t, {"flock"})
        for move, code in (
                ({"type": "flock", "choice": "fly"}, "invalid_params"),
                ({"type": "flock", "choice": "Expand"}, "invalid_params"),
                ({"type": "flock", "choice": ""}, "invalid_params"),
                ({"type": "flock"}, "invalid_params"),
                ({"type": "flock", "choice": None}, "invalid_params"),
                ({"type": "flock", "choice": 1}, "invalid_params"),
                ({"type": "flock", "choice": ["expand"]}, "invalid_params"),
                ({"type": "flock", "choice": True}, "invalid_params"),
                (PASS, "illegal_move"),                                    # no pass in the flock phase
                (deploy(1, 0, "ER", "follower"), "illegal_move"),
                (deploy(1, 0, "ER", "shepherd"), "illegal_move")):
            with self.subTest(move=move):
                t.refuse(move, code)
        t.refuse({"type": "flock", "choice": "gather"}, "not_your_turn", token=t.tokens[1])
        t.refuse({"type": "flock", "choice": "gather"}, "forbidden", token="f" * 32)
        self.assertEqual(t.events({"type": "flock", "choice": "gather"})[0]["feature"], "flock")

    def test_escape_phase(self):
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5)
        t.play(*ESCAPE_MOVES[:2])
        self.out_of_phase(t, {})                 # seat 1's tile phase
        t.play(*ESCAPE_MOVES[2:])
        self.assertEqual(t.legal()["phase"], "escape")
        self.out_of_phase(t, {"escape"})
        for move, code in (
                ({"type": "escape", "figure": "1.follower.1"}, "illegal_move"),   # not the seat's
                ({"type": "escape", "figure": "0.follower.2"}, "illegal_move"),   # on a road: not besieged
                ({"type": "escape", "figure": "0.follower.3"}, "illegal_move"),   # in the supply
                ({"type": "escape"}, "invalid_params"),
                ({"type": "escape", "figure": None}, "invalid_params"),
                ({"type": "escape", "figure": 1}, "invalid_params"),
                ({"type": "escape", "figure": {"id": "0.follower.1"}}, "invalid_params"),
                (deploy(1, 0, "NL"), "illegal_move"),
                (place("BA/RFr", -1, 0, 0), "illegal_move")):
            with self.subTest(move=move):
                t.refuse(move, code)
        t.refuse({"type": "escape", "figure": "0.follower.1"}, "not_your_turn", token=t.tokens[1])
        t.refuse({"type": "escape", "figure": "0.follower.1"}, "forbidden", token="")
        t.play({"type": "escape", "figure": "0.follower.1"})
        # seat 1's turn: its own follower is in no besieged city, and it is no escape phase
        t.refuse({"type": "escape", "figure": "1.follower.1"}, "illegal_move")

    def test_abbey_choice(self):
        t = Table(self, self.j, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=ABBEY_TILES, seed=5)
        # no hole yet: the tile is drawn, no abbey move
        t.refuse({"type": "place_abbey", "x": 0, "y": -1}, "illegal_move")
        t.refuse(DRAW, "illegal_move")
        t.play(*ABBEY_MOVES[:-1])
        self.out_of_phase(t, {})                 # seat 1's action phase
        t.play(ABBEY_MOVES[-1])
        self.assertEqual(t.legal()["phase"], "tile")
        self.out_of_phase(t, {"draw", "place_abbey"})
        for move, code in (
                ({"type": "place_abbey", "x": 5, "y": 5}, "illegal_move"),      # far from the board
                ({"type": "place_abbey", "x": -1, "y": 1}, "illegal_move"),     # next to tiles, no hole
                ({"type": "place_abbey", "x": 0, "y": 0}, "illegal_move"),      # a tile is there
                ({"type": "place_abbey", "x": 0}, "invalid_params"),
                ({"type": "place_abbey", "x": 0, "y": "-1"}, "invalid_params"),
                ({"type": "place_abbey", "x": 0, "y": -0.5}, "invalid_params"),
                ({"type": "place_abbey", "x": None, "y": -1}, "invalid_params"),
                (place("BA/RFr", -2, 0, 90), "illegal_move"),                   # nothing drawn yet
                (PASS, "illegal_move"),
                (deploy(0, -2, "S"), "illegal_move")):
            with self.subTest(move=move):
                t.refuse(move, code)
        t.refuse({"type": "place_abbey", "x": 0, "y": -1}, "not_your_turn", token=t.tokens[1])
        t.refuse(DRAW, "not_your_turn", token=t.tokens[1])
        t.refuse(DRAW, "forbidden", token=t.tokens[0][:-1] + ("0" if t.tokens[0][-1] != "0" else "1"))
        t.play(DRAW)
        # drawn: the abbey is no longer a choice
        t.refuse({"type": "place_abbey", "x": 0, "y": -1}, "illegal_move")
        t.refuse(DRAW, "illegal_move")

    def test_seat_without_an_abbey(self):
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=ABBEY_TILES, seed=5,
                  components={"abbey": False})
        t.play(*ABBEY_MOVES)
        lm = t.legal()
        self.assertEqual({m["type"] for m in lm["moves"]}, {"place_tile"})
        self.assertEqual(t.supply(0).get("abbey", 0), 0)
        t.refuse({"type": "place_abbey", "x": 0, "y": -1}, "illegal_move")   # a hole, but no abbey
        t.refuse(DRAW, "illegal_move")

    def test_used_abbey(self):
        t = Table(self, self.c, ["ann", "bob", "cy"], expansions=["base", "abbey-mayor"], seed=5,
                  tiles=["BA/LR", "BA/Rr", "BA/Rr", "BA/C", "BA/C", "BA/C", "BA/C", "BA/C", "BA/C"])
        # three seats: seat 2 sets the hole; seat 0 places its abbey there
        t.play(place("BA/LR", -1, 0, 270), PASS, place("BA/Rr", 1, 0, 90), PASS, place("BA/Rr", 1, -1, 0), PASS,
               place("BA/C", -1, -1, 90), PASS, place("BA/C", 1, -2, 0), PASS, place("BA/C", 0, -2, 180), PASS)
        self.assertEqual(t.legal()["seat"], 0)
        t.play({"type": "place_abbey", "x": 0, "y": -1}, PASS)
        self.assertEqual(t.supply(0)["abbey"], 0)
        # the next turns of seats 1, 2 and 0 begin with a tile drawn
        for seat in (1, 2, 0):
            lm = t.legal()
            self.assertEqual((lm["phase"], lm["seat"]), ("tile", seat))
            self.assertEqual({m["type"] for m in lm["moves"]}, {"place_tile"})
            t.refuse({"type": "place_abbey", "x": 0, "y": -1}, "illegal_move")
            t.refuse(DRAW, "illegal_move")
            t.play(lm["moves"][0])
            if t.legal()["phase"] == "action":
                t.play(PASS)

    def test_deploy_of_a_kind_the_seat_does_not_hold(self):
        t = Table(self, self.j, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=WAGON_TILES, seed=5)
        t.play(*WAGON_MOVES[:2])
        self.assertEqual(t.supply(0), {"follower": 7, "wagon": 0, "mayor": 1, "barn": 1, "abbey": 1})
        t.play(*WAGON_MOVES[2:3])
        lm = t.legal()
        self.assertEqual({m["kind"] for m in lm["moves"] if m["type"] == "deploy"}, {"follower", "wagon"})
        t.play(*WAGON_MOVES[3:5])
        # seat 0: its wagon is on the board; kinds of expansions not in the game
        self.assertEqual(t.legal()["phase"], "action")
        self.assertEqual({m["kind"] for m in t.legal()["moves"] if m["type"] == "deploy"}, {"follower"})
        for move, code in (
                (deploy(1, 1, "cloister", "wagon"), "illegal_move"),     # on the board already
                (deploy(1, 1, "cloister", "large"), "illegal_move"),     # Inns & Cathedrals not in play
                (deploy(1, 1, "cloister", "builder"), "illegal_move"),
                (deploy(1, 1, "cloister", "pig"), "illegal_move"),
                (deploy(1, 1, "cloister", "shepherd"), "illegal_move"),
                (deploy(1, 1, "cloister", "mayor"), "illegal_move"),     # a mayor only in a city
                (deploy(1, 1, "nw", "follower"), "illegal_move"),        # a corner is for barns
                (deploy(1, 1, "cloister", "dragon"), "invalid_params"),  # neutral, no seat's kind
                (deploy(1, 1, "cloister", "banana"), "invalid_params"),
                (deploy(1, 1, "cloister", 1), "invalid_params"),
                (deploy(1, 1, "XX", "barn"), "invalid_params"),
                (deploy(1, 1, ["cloister"]), "invalid_params"),
                ({"type": "deploy", "x": 1, "y": 1, "at": "cloister"}, "invalid_params"),
                (deploy(1, 1, "cloister", "Follower"), "invalid_params")):
            with self.subTest(move=move):
                t.refuse(move, code)

    def test_barn(self):
        """tests/scenarios/am-07: a barn needs a corner where four tiles meet;
        placed into a farm with a farmer it scores the farmer and sends it home."""
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor"], seed=5,
                  tiles=["BA/RFr", "BA/CC.2", "BA/C", "BA/C", "BA/L", "BA/RFr"])
        t.play(place("BA/RFr", 1, 0, 0))
        self.assertFalse([m for m in t.legal()["moves"] if m.get("kind") == "barn"])
        t.refuse(deploy(1, 0, "sw", "barn"), "illegal_move")       # two tiles at that corner
        t.refuse(deploy(1, 0, "SL", "barn"), "illegal_move")       # a barn stands on a corner
        t.play(PASS, place("BA/CC.2", 0, 1, 270), deploy(0, 1, "NL"), place("BA/C", 0, 2, 0), PASS,
               place("BA/C", -1, 1, 90), PASS, place("BA/L", 1, 1, 0))
        lm = t.legal()
        self.assertEqual([m for m in lm["moves"] if m.get("kind") == "barn"], [deploy(1, 1, "nw", "barn")])
        t.refuse(deploy(1, 1, "ne", "barn"), "illegal_move")
        evs = t.events(deploy(1, 1, "nw", "barn"))
        self.assertEqual(evs[0], {"type": "deployed", "seat": 0, "figure": "0.barn.1", "kind": "barn",
                                  "x": 1, "y": 1, "at": "nw", "ports": ["nw"], "feature": "field"})
        check_scored(self, evs, [(1, 6, "field", False, {(0, 0), (1, 0), (0, 1), (1, 1)})])
        self.assertEqual(of_type(evs, "returned"),
                         [{"type": "returned", "seat": 1, "figure": "1.follower.1", "why": "barn"}])
        evs = t.events(place("BA/RFr", 2, 0, 0), PASS)
        check_scored(self, evs, [(0, 8, "barn", True, {(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)})])
        self.assertEqual(evs[-1], {"type": "game_over", "scores": [8, 6]})


# what a refusal adds for a flock move in a game without the shepherd
NO_SHEPHERD = "; and this game has no shepherd (Hills & Sheep, or the `shepherd` component) at all"


class Messages(unittest.TestCase):
    """An illegal expansion move's message says why in the game's words
    (PROTOCOL.md section 2): the decision due and the moves it takes, or the
    rule the move breaks."""

    def setUp(self):
        self.c = daemon["d"].client("unix")

    def tearDown(self):
        self.c.close()

    def test_abbey_choice_and_holes(self):
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=ABBEY_TILES, seed=5)
        t.play(*ABBEY_MOVES)
        for move in (PASS, place("BA/C", 0, -3, 0), {"type": "flock", "choice": "expand"}):
            with self.subTest(move=move):
                self.assertEqual(t.refuse(move, "illegal_move"),
                                 "a %s move is not open now: the tile decision takes draw or place_abbey%s"
                                 % (move["type"], NO_SHEPHERD if move["type"] == "flock" else ""))
        for x, y in ((5, 5), (-1, 1), (0, 0)):
            with self.subTest(x=x, y=y):
                self.assertEqual(t.refuse({"type": "place_abbey", "x": x, "y": y}, "illegal_move"),
                                 "the abbey may not go at (%d,%d): it goes only into a hole, an empty place "
                                 "with a tile on each of its four sides" % (x, y))

    def test_wagon_phase(self):
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=WAGON_TILES, seed=5)
        t.play(*WAGON_MOVES)
        self.assertEqual(t.legal()["phase"], "wagon")
        for move in ({"type": "flock", "choice": "gather"}, deploy(-1, 0, "cloister")):
            with self.subTest(move=move):
                self.assertEqual(t.refuse(move, "illegal_move"),
                                 "a %s move is not open now: the wagon decision takes pass or move_wagon%s"
                                 % (move["type"], NO_SHEPHERD if move["type"] == "flock" else ""))
        # each condition of the wagon's target, named (data.reason) and worded
        self.assertEqual(t.refuse({"type": "move_wagon", "x": 0, "y": 0, "at": "N"}, "illegal_move",
                                  reason="wagon_out_of_reach"),
                         "the wagon may not move to N of (0,0): that city is not connected to the feature just "
                         "scored (wagon_move connected: a road going on through a junction, a road ending at a city "
                         "or cloister, the cloister a road enters)")
        self.assertEqual(t.data, {"reason": "wagon_out_of_reach", "x": 1, "y": 0})  # the wagon's tile
        self.assertEqual(t.refuse({"type": "move_wagon", "x": 2, "y": 0, "at": "E"}, "illegal_move",
                                  reason="wagon_occupied"),
                         "the wagon may not move to E of (2,0): a follower stands in that road already")
        self.assertEqual(t.refuse({"type": "move_wagon", "x": 1, "y": 1, "at": "N"}, "illegal_move",
                                  reason="wagon_complete"),
                         "the wagon may not move to N of (1,1): that road is complete")
        self.assertEqual(t.refuse({"type": "move_wagon", "x": 2, "y": 0, "at": "NL"}, "illegal_move",
                                  reason="wagon_kind"),
                         "the wagon may not move to NL of (2,0): a wagon goes only onto a road, city or cloister, "
                         "never a field")
        self.assertEqual(t.refuse({"type": "move_wagon", "x": 9, "y": 9, "at": "N"}, "illegal_move",
                                  reason="wagon_no_tile"),
                         "the wagon may not move to N of (9,9): no tile is there")
        self.assertEqual(t.data, {"reason": "wagon_no_tile"})
        self.assertEqual(t.refuse({"type": "move_wagon", "x": 2, "y": 0, "at": "cloister"}, "illegal_move",
                                  reason="wagon_nothing"),
                         "the wagon may not move to cloister of (2,0): that tile has nothing at cloister")
        # the other variant names its own reach (RULES.md 2.9, C2)
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=WAGON_TILES, seed=5,
                  rules={"wagon_move": "adjacent-tiles"})
        t.play(*WAGON_MOVES)
        self.assertEqual(t.legal()["phase"], "wagon")
        self.assertEqual(t.refuse({"type": "move_wagon", "x": -1, "y": 0, "at": "cloister"}, "illegal_move",
                                  reason="wagon_out_of_reach"),
                         "the wagon may not move to cloister of (-1,0): that cloister is not on the wagon's tile "
                         "(1,0) or one of the eight around it (wagon_move adjacent-tiles)")
        self.assertEqual(t.data, {"reason": "wagon_out_of_reach", "x": 1, "y": 0})

    def test_flock_and_escape_phases(self):
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START,
                  bag=[3, 2, 4, "wolf"], tiles=["BA/RFr"] * 6, seed=5)
        t.play(*FLOCK_MOVES)
        self.assertEqual(t.legal()["phase"], "flock")
        self.assertEqual(t.refuse(PASS, "illegal_move"),
                         "a pass move is not open now: the flock decision takes flock")
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5)
        t.play(*ESCAPE_MOVES)
        self.assertEqual(t.legal()["phase"], "escape")
        self.assertEqual(t.refuse(deploy(1, 0, "NL"), "illegal_move"),
                         "a deploy move is not open now: the escape decision takes pass or escape")
        self.assertEqual(t.refuse({"type": "escape", "figure": "0.follower.2"}, "illegal_move",
                                  reason="escape_not_in_city"),
                         "that figure may not escape now: only a follower standing in a city escapes (not a builder "
                         "or pig, nor a figure in the supply)")
        self.assertEqual(t.refuse({"type": "escape", "figure": "1.follower.1"}, "illegal_move",
                                  reason="escape_not_yours"),
                         "that figure may not escape now: it is not yours, and only the seat on turn frees followers")
        self.assertEqual(t.refuse({"type": "escape", "figure": "0.follower.3"}, "illegal_move",
                                  reason="escape_not_in_city"),
                         "that figure may not escape now: only a follower standing in a city escapes (not a builder "
                         "or pig, nor a figure in the supply)")


    def test_cult_place_refused(self):
        # tests/scenarios/cult-02: a cloister next to two cult places
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "cult", "mini"],
                  start=[{"tile": "GQ/F", "x": 1, "y": 0, "rot": 0}], tiles=["CU/S", "CU/S", "BA/L", "CU/S"], seed=5)
        t.play(place("CU/S", 0, 0, 0), PASS, place("CU/S", 2, 0, 0), PASS)
        self.assertEqual(t.refuse(place("BA/L", 1, -1, 0), "illegal_move"),
                         "BA/L may not go at (1,-1) turned 0°: a cloister or abbey may not be next to (diagonals "
                         "count) more than one cult place, and this one would be next to two")

    def test_cult_refusals_name_the_condition(self):
        # tests/scenarios/cult-01: a cult place next to two cloisters, then a
        # cloister next to a cult place that has one already
        start = [{"tile": "GQ/F", "x": 1, "y": 0, "rot": 0}]
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "cult", "mini"], start=start,
                  tiles=["BA/L", "BA/L", "CU/S", "BA/L"], seed=5)
        t.play(place("BA/L", 0, 0, 0), PASS, place("BA/L", 2, 0, 0), PASS)
        self.assertEqual(t.refuse(place("CU/S", 1, -1, 0), "illegal_move"),
                         "CU/S may not go at (1,-1) turned 0°: a cult place may not be next to (diagonals count) "
                         "more than one cloister or abbey, and this one would be next to two")
        t.play(place("CU/S", -1, 0, 0), PASS)
        self.assertEqual(t.refuse(place("BA/L", -2, 0, 0), "illegal_move"),
                         "BA/L may not go at (-2,0) turned 0°: the cult place at (-1,0) has a cloister or abbey "
                         "next to it (diagonals count) already, and a cult place may not be next to more than one")
        # a cult place beside a cloister that has a cult place beside it
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "cult", "mini"], start=start,
                  tiles=["BA/L", "CU/S", "CU/S", "BA/C"], seed=5)
        t.play(place("BA/L", 0, 0, 0), PASS, place("CU/S", -1, 0, 0), PASS)
        self.assertEqual(t.refuse(place("CU/S", 1, -1, 0), "illegal_move"),
                         "CU/S may not go at (1,-1) turned 0°: the cloister at (0,0) has a cult place next to it "
                         "(diagonals count) already, and a cloister or abbey may not be next to more than one")
        # tests/scenarios/audit3-cu-02: the abbey into a hole (0,0) beside a
        # cult place that has a cloister beside it; the hole (4,0) keeps the
        # abbey open this turn
        start = [{"tile": t, "x": x, "y": y, "rot": 0} for t, x, y in (
            ("CU/S", 0, -1), ("BA/L", -1, -2), ("GQ/F", -1, 0), ("GQ/F", 1, 0), ("GQ/F", 0, 1),
            ("GQ/F", 3, 0), ("GQ/F", 5, 0), ("GQ/F", 4, -1), ("GQ/F", 4, 1))]
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "cult", "abbey-mayor", "mini"], start=start,
                  tiles=["GQ/F", "GQ/F"], seed=5)
        self.assertEqual(t.refuse({"type": "place_abbey", "x": 0, "y": 0}, "illegal_move"),
                         "the abbey may not go at (0,0): the cult place at (0,-1) has a cloister or abbey next to "
                         "it (diagonals count) already, and a cult place may not be next to more than one")

    def test_river_placement_refused(self):
        # tests/scenarios/river-04: the river goes on from its open end only;
        # in a River II game the same words (the engine names the rule by
        # River II there, the set in the game)
        for river, tiles in (("river", ["RI.1/IFI", "RI.1/II"]), ("river2", ["RI.2/II", "RI.2/II+"])):
            with self.subTest(river=river):
                t = Table(self, self.c, ["ann", "bob"], expansions=["base", river], tiles=tiles, seed=5)
                self.assertEqual(t.refuse(place(tiles[0], 0, 1, 0), "illegal_move"),
                                 "%s may not go at (0,1) turned 0°: a river tile must continue the river from an "
                                 "open end, and its river meets none here" % tiles[0])

    def test_an_abbey_not_offered_says_why(self):
        # RULES.md 2.9: the abbey instead of drawing, into a hole, once a
        # game, not while the river is laid; a place_abbey sent when the
        # turn's tile is drawn says which of these kept it back
        drawn = "first place the tile you drew (%s) with a place_tile move: "
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor"],
                  tiles=ABBEY_TILES + ["BA/C"], seed=5)
        t.play(*ABBEY_MOVES)
        t.play(DRAW)  # seat 0 draws instead of its abbey
        self.assertEqual(t.refuse({"type": "place_abbey", "x": 0, "y": -1}, "illegal_move"),
                         drawn % "BA/RFr" + "the abbey is played instead of drawing, when the turn begins, and this "
                         "turn's tile is drawn")
        t.play(place("BA/RFr", -2, 0, 90), PASS, {"type": "place_abbey", "x": 0, "y": -1}, PASS)
        self.assertEqual(t.refuse({"type": "place_abbey", "x": 0, "y": -2}, "illegal_move"),
                         drawn % "BA/C" + "there is no hole for it, an empty place with a tile on each of its four "
                         "sides")
        t.play(t.legal()["moves"][0], PASS)
        self.assertEqual(t.refuse({"type": "place_abbey", "x": 0, "y": -2}, "illegal_move"),
                         drawn % "BA/C" + "your abbey is on the board already")
        # the river first
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "river", "abbey-mayor"],
                  tiles=["RI.1/IFI", "BA/C"], seed=5)
        self.assertEqual(t.refuse({"type": "place_abbey", "x": 1, "y": 0}, "illegal_move"),
                         drawn % "RI.1/IFI" + "the abbey waits until the river is laid")
        # tests/scenarios/audit3-cu-02 with only the hole the cult rule refuses
        start = [{"tile": tile, "x": x, "y": y, "rot": 0} for tile, x, y in (
            ("CU/S", 0, -1), ("BA/L", -1, -2), ("GQ/F", -1, 0), ("GQ/F", 1, 0), ("GQ/F", 0, 1))]
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "cult", "abbey-mayor", "mini"], start=start,
                  tiles=["GQ/F", "GQ/F"], seed=5)
        self.assertEqual(t.refuse({"type": "place_abbey", "x": 0, "y": 0}, "illegal_move"),
                         drawn % "GQ/F" + "no hole takes it: at (0,0), the cult place at (0,-1) has a cloister or "
                         "abbey next to it (diagonals count) already, and a cult place may not be next to more "
                         "than one")

    def test_figure_refusals_in_a_players_words(self):
        # a UI walk's three: the large follower named as such, a barn in a
        # game without farmers, a field named by a whole edge
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "river", "inns-cathedrals"],
                  tiles=["RI.1/IFI", "BA/L"], seed=5)
        t.play(place("RI.1/IFI", 1, 0, 0))
        self.assertEqual(t.refuse(deploy(1, 0, "W", "large"), "illegal_move"),
                         "a large follower may not stand on a river")
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor"], rules={"farmers": False},
                  tiles=["BA/L", "BA/L"], seed=5)
        first = t.legal()["moves"][0]
        t.play(first)
        x, y = first["x"], first["y"]
        self.assertEqual(t.refuse(deploy(x, y, "nw", "barn"), "illegal_move"),
                         "a barn stands in a field, and this game is played without farmers: no barns either")
        t = Table(self, self.c, ["ann", "bob"], expansions=["base"], tiles=["BA/L", "BA/L"], seed=5)
        first = t.legal()["moves"][0]
        t.play(first)
        x, y = first["x"], first["y"]
        self.assertEqual(t.refuse(deploy(x, y, "N"), "illegal_move"),
                         "the tile at (%d,%d) has nothing to stand on at N itself: a field is named by a half of "
                         "the edge, NL or NR" % (x, y))

    def test_river_refusals_name_the_condition(self):
        # Every place next to the board that legal_moves leaves out for a
        # river tile, tried in random games: the refusal names one condition
        # of the river's rule, and the common ones all come up.
        reasons = {
            "unjoined": r"a river tile must continue the river from an open end, and its river meets none here",
            "u-turn": r"it would turn the river the same way as the tile it continues, a U-turn",
            "room": r"its river would run on into \((-?\d+),(-?\d+)\), and that place, the one beyond it and "
                    r"the places beside those two must all be empty, so that the river cannot turn back on itself "
                    r"or meet its other branch",
            "boxed": r"it would leave the river an open end that none of the river tiles still to come can "
                     r"continue",
            "not free": r"another placement leaves the river a free end, from which the river tiles still to come "
                        r"can always go on, and this one does not",
        }
        pattern = re.compile(r"(\S+) may not go at \((-?\d+),(-?\d+)\) turned (\d+)°: (.*)$")
        seen = collections.Counter()
        for seed in range(1, 41):
            sets = ["base", "river", "river2", "mini"] if seed % 2 else ["base", "river2"]
            t = Table(self, self.c, ["ann", "bob"], expansions=sets, seed=seed)
            rng = random.Random(seed)
            while True:
                lm = t.legal()
                moves = lm["moves"]
                if lm["phase"] != "tile" or not moves or moves[0]["type"] != "place_tile":
                    break
                tile = moves[0]["tile"]
                if not (tile.startswith("RI") or tile in ("GQ/RFI", "GQ/CICI")):
                    break  # the river is done
                board = {(b["x"], b["y"]) for b in t.state()["board"]}
                empty = {(x + dx, y + dy) for x, y in board for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0))} - board
                listed = {(m["x"], m["y"], m["rot"]) for m in moves}
                for (x, y) in sorted(empty):
                    for rot in (0, 90, 180, 270):
                        if (x, y, rot) in listed:
                            continue
                        with self.assertRaises(carcd.Error) as cm:
                            self.c.apply_move(t.game, place(tile, x, y, rot), token=t.tokens[lm["seat"]])
                        self.assertEqual(cm.exception.code, "illegal_move")
                        match = pattern.match(cm.exception.message)
                        if not match:
                            continue  # the edges: another message
                        self.assertEqual(match.group(1, 2, 3, 4), (tile, str(x), str(y), str(rot)))
                        named = [k for k, r in reasons.items() if re.fullmatch(r, match.group(5))]
                        self.assertEqual(len(named), 1, cm.exception.message)
                        if named == ["room"]:  # an empty place next to the tile's own place
                            end = re.fullmatch(reasons["room"], match.group(5))
                            ex, ey = int(end.group(1)), int(end.group(2))
                            self.assertEqual(abs(ex - x) + abs(ey - y), 1)
                            self.assertNotIn((ex, ey), board)
                        seen[named[0]] += 1
                t.play(rng.choice(moves))
                if t.legal()["phase"] == "action":
                    t.play(PASS)
        self.assertEqual(set(seen), set(reasons) - {"boxed"}, seen)
        # The fork, then a curve east of it that turns south: the fork's
        # north end is left to the one curve still to come, and either way it
        # turns there, the room ahead of its end holds a placed tile.
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "river2"],
                  tiles=["RI.2/III", "RI.2/II", "RI.2/II"], seed=1)
        t.play(place("RI.2/III", 1, 0, 0), PASS)
        self.assertEqual(t.refuse(place("RI.2/II", 2, 0, 0), "illegal_move"),
                         "RI.2/II may not go at (2,0) turned 0°: " + reasons["boxed"])
        # The fork's south branch turned west runs into (0,1), beside the spring.
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "river2"],
                  tiles=["RI.2/III", "RI.2/CcII+", "RI.2/I.v", "BA/L"], seed=1)
        t.play(place("RI.2/III", 1, 0, 180), PASS)
        self.assertEqual(t.refuse(place("RI.2/CcII+", 1, 1, 180), "illegal_move"),
                         "RI.2/CcII+ may not go at (1,1) turned 180°: its river would run on into (0,1), and that "
                         "place, the one beyond it and the places beside those two must all be empty, so that the "
                         "river cannot turn back on itself or meet its other branch")
        # Start tiles: two springs face each other across (1,0), and a third
        # has its end at (1,4); a straight between the two would join them.
        springs = [{"tile": "RI/s", "x": x, "y": y, "rot": rot} for x, y, rot in ((0, 0, 0), (2, 0, 180), (0, 4, 0))]
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "river"], start=springs,
                  tiles=["RI.1/IFI", "BA/L"], seed=1)
        self.assertIn(place("RI.1/IFI", 1, 4, 0), t.legal()["moves"])
        self.assertEqual(t.refuse(place("RI.1/IFI", 1, 0, 0), "illegal_move"),
                         "RI.1/IFI may not go at (1,0) turned 0°: its river would join two ends of the river, and "
                         "the river's branches must never meet")

    def test_river2_may_name_its_spring_as_start(self):
        # the spring RI/s starts a River II game; named as `start` it is in
        # that game too, though the River's tile list has it first
        spring = [{"tile": "RI/s", "x": 0, "y": 0, "rot": 0}]
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "river2"], start=spring,
                  tiles=["RI.2/I.v", "BA/C"], seed=5)
        self.assertEqual([(b["tile"], b["x"], b["y"]) for b in t.state()["board"]], [("RI/s", 0, 0)])
        t.play(place("RI.2/I.v", 1, 0, 0))
        with self.assertRaises(carcd.Error) as cm:  # in neither of this game's sets
            self.c.new_game(["ann", "bob"], expansions=["base"], start=spring, tiles=["BA/C"], seed=5)
        self.assertEqual((cm.exception.code, cm.exception.message),
                         ("invalid_params", "start[0]: tile `RI/s` belongs to `river`, which this game does not have"))

    def test_a_river_tile_that_fits_nowhere_is_discarded(self):
        # tests/scenarios/river-16: three start tiles show the spring's open
        # end fields on every other side, so only a lake fits there
        boxed = [{"tile": "RI/s", "x": 0, "y": 0, "rot": 0}, {"tile": "BA/C", "x": 1, "y": -1, "rot": 0},
                 {"tile": "BA/C", "x": 2, "y": 0, "rot": 0}, {"tile": "BA/C", "x": 1, "y": 1, "rot": 180}]
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "river", "river2"], start=boxed,
                  tiles=["BA/C", "RI.2/II", "RI.2/I.v"], seed=5)
        evs = t.events(place("BA/C", 0, -1, 0), PASS)
        self.assertEqual([e for e in evs if e["type"] in ("tile_drawn", "tile_discarded")],
                         [{"type": "tile_drawn", "seat": 1, "tile": "RI.2/II"},
                          {"type": "tile_discarded", "tile": "RI.2/II", "why": "unplaceable"},
                          {"type": "tile_drawn", "seat": 1, "tile": "RI.2/I.v"}])
        self.assertEqual(t.legal()["moves"], [place("RI.2/I.v", 1, 0, 0)])


class Replays(unittest.TestCase):
    """After the end, history's `seed` and `tiles` replay the game exactly
    (PROTOCOL.md section 4): tiles that went under hills are in the tile
    order, and the sheep drawn are the same whether the server dealt the
    supply or the game was made with it."""

    def setUp(self):
        self.c = daemon["d"].client("unix")

    def tearDown(self):
        self.c.close()

    def play(self, game, seed):
        return harness.play_random_game(lambda lm, mv: self.c.apply_move(game, mv),
                                        lambda: self.c.legal_moves(game), random.Random(seed))

    def test_tiles_under_hills_are_in_the_order(self):
        # tests/scenarios/hills-01: BA/C goes under the first hill
        tiles = ["HS/RR.h", "BA/C", "BA/RFr", "HS/RFR.h"]
        g = self.c.new_game(["a", "b"], expansions=["base", "hills-sheep"], tiles=tiles, seed=1, auth=False)
        rec = self.play(g["game"], 1)
        self.assertEqual([e["type"] for e in harness.all_events(rec)].count("tile_hidden"), 1)
        for e in harness.all_events(rec):
            if e["type"] == "tile_hidden":
                self.assertEqual(set(e), {"type", "x", "y"})   # which tile stays secret
        h = self.c.history(g["game"])
        self.assertEqual(h["setup"]["tiles"], tiles)
        self.assertEqual(h["tiles"], tiles)

    def test_replay_with_the_dealt_tiles(self):
        for expansions, seed in ((["base", "hills-sheep"], 1), (["base", "hills-sheep"], 2), (ALL_EXPANSIONS, 1),
                                 (ALL_EXPANSIONS, 4)):
            with self.subTest(expansions=expansions, seed=seed):
                g = self.c.new_game(["a", "b"], expansions=expansions, seed=seed, auth=False)
                rec = self.play(g["game"], seed)
                events = [r["events"] for _, _, r in rec]
                kinds = {e["type"] for evs in events for e in evs}
                self.assertTrue({"tile_hidden", "sheep_drawn"} <= kinds, kinds)
                h = self.c.history(g["game"])
                g2 = self.c.new_game(["a", "b"], expansions=expansions, auth=False, seed=h["seed"],
                                     tiles=h["tiles"])
                got = [self.c.apply_move(g2["game"], mv)["events"] for mv in harness.history_moves(h)]
                self.assertEqual(got, events)
                self.assertEqual(self.c.score(g2["game"])["scores"], self.c.score(g["game"])["scores"])


if __name__ == "__main__":
    unittest.main()

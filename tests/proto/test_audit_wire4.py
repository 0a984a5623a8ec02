"""The wire contract of the expansions (shared/design/PROTOCOL.md sections
3-6 and proto/PROTOCOL.md "Expansions"), where the other modules leave a
statement unpinned: hello's lists for the expansions the daemon plays (each
expansion, its components and its rule options available and implemented);
each rule option of those expansions sent through new_game's `rules`
changing the game as RULES.md section 6 says, against the same game with
the default; where a farm's score is said to be; every feature named in
random games named by ports of its kind; and score's breakdown after every
move.  Each group runs over MessagePack on the Unix socket and over JSON
lines on TCP."""

import random
import unittest

import harness
from crafted import PASS, deploy, of_type, over_both, place, register_over_both

daemon, setUpModule, tearDownModule = harness.module_daemon()

OverBoth = over_both(daemon)

# proto/PROTOCOL.md: "Today the engine plays the base game and these
# expansions"
PLAYED = ["base", "river", "river2", "mini", "inns-cathedrals", "traders-builders", "abbey-mayor",
          "king-robber", "cathars", "cult", "hills-sheep"]
# The components those expansions bring (proto/PROTOCOL.md "Expansions"
# and new_game `components`; RULES.md section 2).
PLAYED_COMPONENTS = {"large", "wagon", "mayor", "builder", "pig", "barn", "shepherd", "abbey", "king",
                     "robber", "goods"}
# RULES.md section 6: the options of the base game and of those expansions.
PLAYED_RULES = {"farm_scoring", "farmers", "tiny_city", "wagon_move", "barn_placement", "escape",
                "escape_cloister", "hill_tiebreak", "gq11_pig_herd", "abbey_final_round",
                "volcano_lake_extra_turn", "unplaceable_tile"}


# ---- hello: the expansions played, with their components and options ------------------------

class HelloOfThePlayedExpansions:
    """Contract section 4: hello lists `expansions, components, rules (each
    with its values and default)`; proto/PROTOCOL.md section 4 adds
    `available` to expansions and components and `implemented` to rules,
    and names the expansions played today.  Each of them is available, and
    so are its components and its rule options; every one of them is
    accepted by new_game, with every component of them switched on."""

    def test_played_expansions_components_and_rules(self):
        h = self.c.hello()
        exp = {e["name"]: e["available"] for e in h["expansions"]}
        comp = {e["name"]: e["available"] for e in h["components"]}
        rules = {r["key"]: r for r in h["rules"]}
        for name in PLAYED:
            self.assertIs(exp.get(name), True, name)
        for name in PLAYED_COMPONENTS:
            self.assertIs(comp.get(name), True, name)
        for key in PLAYED_RULES:
            self.assertIn(key, rules)
            self.assertIs(rules[key].get("implemented"), True, rules[key])
        for r in h["rules"]:
            self.assertIs(type(r["implemented"]), bool, r)

    def test_each_played_expansion_with_each_component_on(self):
        for name in PLAYED[1:]:
            with self.subTest(expansion=name):
                g = self.c.new_game(["ann", "bob"], expansions=["base", name],
                                    components={k: True for k in PLAYED_COMPONENTS})
                setup = self.c.history(g["game"])["setup"]
                self.assertEqual(setup["expansions"], ["base", name])
                # (setup's `components` holds the switches that differ from the
                # expansions' own: a switch to what the expansion brings anyway
                # is not kept; the texts do not say which form setup takes)
                for k, v in setup["components"].items():
                    self.assertIs(v, True, setup)
                supply = g["state"]["seats"][0]["supply"]
                for kind in ("follower", "large", "wagon", "mayor", "builder", "pig", "barn", "shepherd"):
                    self.assertGreaterEqual(supply.get(kind, 0), 1, (kind, supply))
                self.assertEqual(supply.get("abbey"), 1, supply)


# ---- the rule options of the played expansions, through new_game --------------------------

def scores_of(events):
    return sorted((e["seat"], e["points"], e["feature"], e["final"]) for e in of_type(events, "scored"))


class RuleOptions:
    """Contract section 4.1: `rules`, "optional map of rule options,
    ../rules/RULES.md section 6"; hello says each option is implemented.
    The same game with an option at its default and at the other value
    answers as the rule scenarios work out by hand from RULES.md."""

    def test_volcano_lake_extra_turn(self):
        # tests/scenarios/river-08 and river-09: the placer of the volcano
        # lake plays again, unless the option is off
        for value, seat in ((True, 0), (False, 1)):
            with self.subTest(volcano_lake_extra_turn=value):
                t = self.table(["ann", "bob"], expansions=["base", "river2"], tiles=["RI.2/I.v", "BA/C", "BA/C"],
                               seed=5, rules={"volcano_lake_extra_turn": value})
                res = t.play(place("RI.2/I.v", 1, 0, 0))
                self.assertEqual(res["events"][1:], [{"type": "turn", "seat": seat},
                                                     {"type": "tile_drawn", "seat": seat, "tile": "BA/C"}])
                self.assertEqual((res["phase"], res["seat"]), ("tile", seat))
                self.assertEqual(self.c.history(t.game)["setup"]["rules"]["volcano_lake_extra_turn"], value)

    BARN_TILES = ["BA/RFr", "BA/C", "BA/L", "BA/C", "BA/L", "BA/C", "BA/RFr", "BA/L"]
    BARN_MOVES = [place("BA/RFr", 1, 0, 0), PASS, place("BA/C", 0, -1, 180), PASS, place("BA/L", 1, -1, 0), PASS,
                  place("BA/C", 0, 1, 180), PASS, place("BA/L", 1, 1, 0), deploy(1, 1, "nw", "barn"),
                  place("BA/C", 0, 2, 0), PASS, place("BA/RFr", 2, 0, 0), PASS, place("BA/L", 2, 1, 0)]

    def test_barn_placement(self):
        # tests/scenarios/am-10: seat 1's last tile makes a corner in the
        # farm that holds seat 0's barn; a second barn only with second-barn-ok
        second = deploy(2, 1, "nw", "barn")
        t = self.table(["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=self.BARN_TILES, seed=5,
                       rules={"barn_placement": "second-barn-ok"})
        t.play(*self.BARN_MOVES)
        self.assertIn(second, t.legal()["moves"])
        evs = t.events(second)
        self.assertEqual(evs[0]["figure"], "1.barn.1")
        self.assertEqual(scores_of(evs), [(0, 4, "barn", True), (1, 4, "barn", True)])
        t = self.table(["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=self.BARN_TILES, seed=5)
        t.play(*self.BARN_MOVES)
        self.assertNotIn(second, t.legal()["moves"])
        t.refuse(second, "illegal_move")
        self.assertEqual(scores_of(t.events(PASS)), [(0, 4, "barn", True)])

    def test_escape_cloister(self):
        # tests/scenarios/cathars-08: seat 0's follower in a besieged city
        # whose siege tile touches no cloister; a cloister touches another
        # tile of the city.  any-tile: it may escape; siege-tile: no escape
        # decision (its only move would be pass)
        moves = [place("SI.CA/Cc", 0, -1, 180), deploy(0, -1, "E"), place("BA/L", 0, 1, 0),
                 deploy(0, 1, "cloister"), place("BA/RFr", 1, 0, 0), PASS]
        for value, phase in (("any-tile", ("escape", 0)), ("siege-tile", ("tile", 1))):
            with self.subTest(escape_cloister=value):
                t = self.table(["ann", "bob"], expansions=["base", "cathars"], seed=5,
                               tiles=["SI.CA/Cc", "BA/L", "BA/RFr", "BA/RFr"], rules={"escape_cloister": value})
                t.play(*moves)
                self.assertEqual(t.decision(), phase)
                if value == "any-tile":
                    self.assertEqual(t.legal()["moves"], [{"type": "escape", "figure": "0.follower.1"}, PASS])
                    evs = t.events({"type": "escape", "figure": "0.follower.1"})
                    self.assertEqual(evs[0], {"type": "returned", "seat": 0, "figure": "0.follower.1",
                                              "why": "escape"})
                    self.assertEqual(t.supply(0), {"follower": 7})

    ESCAPE_MOVES = [place("SI.CA/C", 0, -1, 0), deploy(0, -1, "N"), PASS, place("BA/RFr", -1, 0, 90), PASS,
                    place("SI.CA/C", 0, 1, 180), deploy(0, 1, "S"), PASS, place("BA/RFr", 1, 0, 90), PASS,
                    place("BA/CFc.1", 0, -2, 90), deploy(0, -2, "N", "builder"), PASS, place("BA/RFr", 1, -1, 90),
                    PASS, place("BA/CFc.1", 0, -3, 90), PASS]

    def test_escape(self):
        # tests/scenarios/audit-11: at the end of the first part of a
        # builder's double turn seat 0 has a follower in each of two
        # besieged cities.  one-per-turn: one escapes, then the extra turn;
        # each-city: the other may escape too, and its city's builder, left
        # without a follower of seat 0, goes home (`returned` `lonely`)
        for value in ("one-per-turn", "each-city"):
            with self.subTest(escape=value):
                t = self.table(["ann", "bob"], expansions=["base", "cathars", "traders-builders"], seed=5,
                               start=[{"tile": "BA/L", "x": 0, "y": 0, "rot": 0}],
                               tiles=["SI.CA/C", "BA/RFr", "SI.CA/C", "BA/RFr", "BA/CFc.1", "BA/RFr", "BA/CFc.1",
                                      "BA/RFr", "BA/RFr"], rules={"escape": value})
                t.play(*self.ESCAPE_MOVES)
                self.assertEqual(t.decision(), ("escape", 0))
                self.assertCountEqual(t.legal()["moves"], [{"type": "escape", "figure": "0.follower.1"},
                                                           {"type": "escape", "figure": "0.follower.2"}, PASS])
                evs = t.events({"type": "escape", "figure": "0.follower.2"})
                self.assertEqual(evs[0], {"type": "returned", "seat": 0, "figure": "0.follower.2", "why": "escape"})
                if value == "one-per-turn":
                    self.assertEqual(evs[1:], [{"type": "turn", "seat": 0},
                                               {"type": "tile_drawn", "seat": 0, "tile": "BA/RFr"}])
                    self.assertEqual(t.decision(), ("tile", 0))
                    continue
                self.assertEqual(evs[1:], [])
                self.assertEqual(t.decision(), ("escape", 0))
                self.assertEqual(t.legal()["moves"], [{"type": "escape", "figure": "0.follower.1"}, PASS])
                evs = t.events({"type": "escape", "figure": "0.follower.1"})
                self.assertEqual(evs[:2], [{"type": "returned", "seat": 0, "figure": "0.follower.1", "why": "escape"},
                                           {"type": "returned", "seat": 0, "figure": "0.builder.1", "why": "lonely"}])
                self.assertEqual(t.supply(0), {"follower": 7, "builder": 1, "pig": 1})

    HILL_START = [{"tile": "BA/RFr", "x": x, "y": -1, "rot": 0} for x in range(-2, 3)] + \
                 [{"tile": "BA/RFr", "x": 0, "y": 3, "rot": 90}]
    HILL_TILES = ["HS/CFR.h", "BA/RFr", "HS/CFR.h", "BA/RFr", "HS/CFR.h", "BA/RFr", "BA/Ccc", "BA/CFc.1",
                  "BA/CFc.1", "BA/CFc.1"]
    HILL_MOVES = [place("HS/CFR.h", -2, 0, 90), deploy(-2, 0, "E"), place("HS/CFR.h", 2, 0, 270), deploy(2, 0, "W"),
                  place("HS/CFR.h", 0, 2, 0), deploy(0, 2, "N"), place("BA/Ccc", 0, 0, 180), deploy(0, 0, "E"),
                  place("BA/CFc.1", -1, 0, 0), PASS, place("BA/CFc.1", 1, 0, 0), PASS, place("BA/CFc.1", 0, 1, 90)]

    def test_hill_tiebreak(self):
        # tests/scenarios/mut-ext-12: a 2 : 2 tie in a city of 7 tiles
        # (14); seat 0 has two followers on hills, seat 1 one.  count: only
        # seat 0 scores; at-least-one: both do
        for value, want in (("count", [(0, 14, "city", False)]),
                            ("at-least-one", [(0, 14, "city", False), (1, 14, "city", False)])):
            with self.subTest(hill_tiebreak=value):
                t = self.table(["ann", "bob"], expansions=["base", "hills-sheep"], start=self.HILL_START,
                               tiles=self.HILL_TILES, seed=5, rules={"hill_tiebreak": value})
                t.play(*self.HILL_MOVES)
                evs = t.events(PASS)
                self.assertEqual(scores_of(evs), want)
                self.assertEqual(len(of_type(evs, "returned")), 4)

    def test_gq11_pig_herd(self):
        # tests/scenarios/mini-10 and mini-11: two farmers tie for two
        # cities; the GQ11 field tile in the farm is a pig herd (5 a city)
        # or nothing (4 a city)
        moves = [place("BA/C", 0, -1, 180), deploy(0, -1, "NL"), place("BA/RFr", 1, 0, 0), deploy(1, 0, "NL"),
                 place("GQ/F", 1, -1, 0), PASS, place("BA/C", 0, -2, 0), PASS, place("BA/C", 0, -3, 180)]
        for value, each in (("pig", 5), ("nothing", 4)):
            with self.subTest(gq11_pig_herd=value):
                t = self.table(["ann", "bob"], expansions=["base", "traders-builders", "mini"], seed=5,
                               tiles=["BA/C", "BA/RFr", "GQ/F", "BA/C", "BA/C"], rules={"gq11_pig_herd": value})
                t.play(*moves)
                res = t.play(PASS)
                self.assertTrue(res["over"])
                self.assertEqual(scores_of(res["events"]), [(0, each, "field", True)] * 2 +
                                 [(1, each, "field", True)] * 2)
                self.assertEqual(self.c.score(t.game)["scores"], [2 * each, 2 * each])


# ---- where a farm's score is said to be ---------------------------------------------------

FIELD_PORTS = {"NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR", "I", "II"}


class FieldScores:
    """Contract section 3: "Where the server names a feature it gives its
    kind (`road`, `city`, `field`, ...), `at` = its first port in canonical
    order, and `ports` = all its ports on that tile"; section 6: `scored`
    has `feature, x, y, at`, "one per seat per scored feature".  Under
    per-farm-3 and per-farm-4 a farm scores: its final score (`feature:
    "field"`) names the farm, a field port (a half-edge, or `I`/`II`) of a
    tile the farm covers.  Under per-city-4 (the default) the farms score
    city by city, one event per seat per completed city, and
    proto/PROTOCOL.md says each names the city it is for (the contract is
    silent on which of the two a per-city score names)."""

    # tests/scenarios/mini-10/11: one farm with both seats' farmers touches
    # two completed cities; the game ends with the last tile
    MOVES = [place("BA/C", 0, -1, 180), deploy(0, -1, "NL"), place("BA/RFr", 1, 0, 0), deploy(1, 0, "NL"),
             place("GQ/F", 1, -1, 0), PASS, place("BA/C", 0, -2, 0), PASS, place("BA/C", 0, -3, 180), PASS]
    # the tiles the farm covers (all but the two city caps' cities)
    FARM_TILES = {(0, 0), (0, -1), (1, 0), (1, -1), (0, -2)}

    def final_field_scores(self, farm_scoring):
        t = self.table(["ann", "bob"], expansions=["base", "traders-builders", "mini"], seed=5,
                       tiles=["BA/C", "BA/RFr", "GQ/F", "BA/C", "BA/C"], rules={"farm_scoring": farm_scoring})
        res = t.play(*self.MOVES)
        self.assertTrue(res["over"])
        return of_type(res["events"], "scored")

    def check_named_farm(self, scored):
        self.assertTrue(scored)
        for e in scored:
            self.assertEqual(e["feature"], "field", e)
            self.assertIn((e["x"], e["y"]), self.FARM_TILES, e)
            self.assertIn(e["at"], FIELD_PORTS, "a field score named at a port of no field: %r" % (e,))
            self.assertTrue(set(e["ports"]) <= FIELD_PORTS, e)
            self.assertEqual(e["at"], e["ports"][0], e)

    def test_per_farm(self):
        for rule in ("per-farm-3", "per-farm-4"):
            with self.subTest(farm_scoring=rule):
                self.check_named_farm(self.final_field_scores(rule))

    def test_per_city_4(self):
        # the default: 4 a city to the farmers' majority of the farms
        # touching it; the scores are those of mini-10 (herd: 5 a city).
        # Each seat's two events name the two completed cities, one each.
        scored = self.final_field_scores("per-city-4")
        self.assertEqual(sorted((e["seat"], e["points"]) for e in scored), [(0, 5), (0, 5), (1, 5), (1, 5)])
        edges = {"N", "E", "S", "W"}
        places = {0: set(), 1: set()}
        for e in scored:
            self.assertEqual(e["feature"], "field", e)
            self.assertIn(e["at"], edges, "a per-city score named at a port of no city: %r" % (e,))
            self.assertTrue(set(e["ports"]) <= edges, e)
            self.assertEqual(e["at"], e["ports"][0], e)
            places[e["seat"]].add((e["x"], e["y"], e["at"]))
        self.assertEqual(len(places[0]), 2)
        self.assertEqual(places[0], places[1])


# Section 3's canonical order, and the ports each kind of feature has.
CANONICAL = ["N", "E", "S", "W", "NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR", "cloister", "tower", "I", "II"]
PORTS_OF_KIND = {"road": {"N", "E", "S", "W"}, "city": {"N", "E", "S", "W"}, "cloister": {"cloister"},
                 "field": FIELD_PORTS, "barn": FIELD_PORTS, "flock": FIELD_PORTS}


class NamedFeatures:
    """Contract section 3 for every event that names a feature (`deployed`,
    `feature_completed`, `scored` with a place) in random games with every
    played expansion: `at` is the first of `ports`, `ports` come in
    canonical order, and they are ports of the kind named (a road or city:
    edges; a field, a barn's or a flock's farm: half-edges or I/II; a
    cloister, abbey or cult place: `cloister`; a barn deployed: its corner).
    The final farm scores under per-city-4 are FieldScores' case and are
    left out here, so that this test pins everything else."""

    SEEDS = (1, 2, 3, 4)

    def test_random_games(self):
        seen = set()
        for seed in self.SEEDS:
            for farm_scoring in ("per-city-4", "per-farm-3"):
                g = self.c.new_game(["a", "b", "c"], expansions=PLAYED, seed=seed, auth=False,
                                    rules={"farm_scoring": farm_scoring})
                rng = random.Random(seed)
                while True:
                    lm = self.c.legal_moves(g["game"])
                    if lm["phase"] == "over":
                        break
                    res = self.c.apply_move(g["game"], rng.choice(lm["moves"]))
                    for e in res["events"]:
                        if e["type"] not in ("deployed", "feature_completed", "scored") or e["at"] is None:
                            continue
                        if (e["type"] == "scored" and e["feature"] == "field" and e["final"]
                                and farm_scoring == "per-city-4"):
                            continue
                        with self.subTest(seed=seed, farm_scoring=farm_scoring, event=e):
                            self.check(e)
                        seen.add((e["type"], e["feature"]))
        for want in (("scored", "field"), ("scored", "barn"), ("scored", "flock"), ("scored", "cloister"),
                     ("deployed", "field"), ("feature_completed", "cloister")):
            self.assertIn(want, seen)

    def check(self, e):
        ports = e["ports"]
        self.assertEqual(e["at"], ports[0])
        if e["type"] == "deployed" and e["kind"] == "barn":
            self.assertEqual(ports, [e["at"]])
            self.assertIn(e["at"], ("nw", "ne", "se", "sw"))
            return
        self.assertEqual(ports, sorted(set(ports), key=CANONICAL.index))
        self.assertTrue(set(ports) <= PORTS_OF_KIND[e["feature"]])


BY_KEYS = {"road", "city", "cloister", "field", "barn", "trade", "king", "robber", "flock"}


class ScoreDuringPlay:
    """Contract section 4, `score`: `{scores, final, breakdown: [{seat, by:
    {road, city, cloister, field, ...}}], if_ended_now}`; proto/PROTOCOL.md
    names the keys of `by` (road, city, cloister, field, barn, trade, king,
    robber, flock).  After every move of random games with every played
    expansion (flock and barn scores come during play): `scores` are the
    points of the `scored` events so far and the state's scores, `by`
    splits them by the events' `feature`, `final` is false until the end."""

    def test_random_games(self):
        for seed in (5, 6):
            g = self.c.new_game(["a", "b", "c", "d"], expansions=PLAYED, seed=seed, auth=False)
            game, rng = g["game"], random.Random(seed)
            by = [dict.fromkeys(BY_KEYS, 0) for _ in range(4)]
            while True:
                lm = self.c.legal_moves(game)
                if lm["phase"] == "over":
                    break
                res = self.c.apply_move(game, rng.choice(lm["moves"]))
                for e in of_type(res["events"], "scored"):
                    by[e["seat"]][e["feature"]] += e["points"]
                sc, st = self.c.score(game), self.c.state(game)
                with self.subTest(seed=seed, seq=res["seq"]):
                    self.assertIs(sc["final"], res["over"])
                    self.assertEqual([b["seat"] for b in sc["breakdown"]], [0, 1, 2, 3])
                    self.assertEqual([b["by"] for b in sc["breakdown"]], by)
                    self.assertEqual(sc["scores"], [sum(b.values()) for b in by])
                    self.assertEqual([s["score"] for s in st["seats"]], sc["scores"])
                    self.assertEqual(len(sc["if_ended_now"]), 4)
            self.assertTrue(by[0]["flock"] or by[1]["flock"] or by[2]["flock"] or by[3]["flock"])


GROUPS = (HelloOfThePlayedExpansions, RuleOptions, FieldScores, NamedFeatures, ScoreDuringPlay)
register_over_both(globals(), GROUPS, OverBoth)


if __name__ == "__main__":
    unittest.main()

"""What a client author meets and proto/PROTOCOL.md now says in so many words.

An outside client written from the documents alone found five places where
the daemon was right but the text left the client guessing: a deploy named
through another tile the feature covers, the state's tile in the abbey
decision, a rot sent with place_abbey, where the scores a barn brings are
drawn, and an expansion named twice.  Each is pinned here as documented.
A later walk through the documents found the rule options' meanings only
in the rules reference beside the repository; PROTOCOL.md's table of them
is held to what hello lists.  A UI author's walk found two counts left
unsaid: a tile gone under a hill leaves tiles_left with no tile_drawn, and
feature_completed's `tiles` for a cloister is 1.  The scenarios that the
documents cite as pinning a rule or a reading are held to exist, and each
scenario to have its row in tests/scenarios/README.md.  A bot author's walk
found history's `setup` shape without the `bag` a game made with one shows
at its end: the shape is held to the keys the daemon sends.  A tester's walk
found new_game's given supply, start tiles and bag left unsaid in five
places (empty lists, counts past a set's, a lake given first, the tile a
hill hides, a bag that runs out); PROTOCOL.md says them now, pinned here.
"""

import json
import os
import random
import re
import unittest

import harness
from crafted import PASS, abbey, deploy, error_of, place, tile


# A city open to the north at (0,0), cloister tiles round it, one farm;
# the supply: a cloister tile for a farmer, then the city tile that closes
# the city, where a barn goes at its NE corner (tests/scenarios/
# audit12-b-01 plays the same game through the engine).
BARN_GAME = dict(expansions=["base", "abbey-mayor"], auth=False,
                 start=[tile("BA/C", 0, 0), tile("BA/L", 1, 0), tile("BA/L", 1, -1), tile("BA/L", 1, -2),
                        tile("BA/L", 0, -2)],
                 tiles=["BA/L", "BA/C"])

# A hole at (0,0) with a road tile on each side: the first turn offers the abbey.
HOLE_GAME = dict(expansions=["base", "abbey-mayor"], auth=False,
                 start=[tile("BA/Rr", 0, -1, 90), tile("BA/Rr", 0, 1, 90), tile("BA/Rr", -1, 0), tile("BA/Rr", 1, 0)],
                 tiles=["BA/L"])


class OwnDaemon(unittest.TestCase):
    """A daemon of the class's own, and a JSON-lines client of it (self.c)."""

    @classmethod
    def setUpClass(cls):
        cls.d = harness.Daemon().__enter__()
        cls.c = cls.d.client(encoding="json")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.d.__exit__(None, None, None)


class Documented(OwnDaemon):
    def barn_game_at_its_barn(self):
        g = self.c.new_game(["a", "b"], **BARN_GAME)["game"]
        self.c.apply_move(g, place("BA/L", 2, 0, 0))
        self.c.apply_move(g, deploy(2, 0, "NL"))
        self.c.apply_move(g, place("BA/C", 0, -1, 180))
        return g

    def test_a_deploy_names_the_tile_just_placed(self):
        g = self.c.new_game(["a"], auth=False, tiles=["BA/RCr"])["game"]
        self.c.apply_move(g, place("BA/RCr", 1, 0, 0))   # its road runs on into the start tile's
        listed = [m for m in self.c.legal_moves(g)["moves"] if m["type"] == "deploy" and m["at"] in ("E", "W")]
        self.assertEqual(len(listed), 1)   # the road, by its first port
        self.assertEqual((listed[0]["x"], listed[0]["y"]), (1, 0))
        seq = self.c.state(g)["seq"]
        through = dict(listed[0], x=0, y=0, at="E")   # the same road, named on the start tile
        self.assertEqual(error_of(self.c.apply_move, g, through),
                         ("illegal_move", "figures go on the tile just placed, at (1,0), not (0,0)"))
        self.assertEqual(self.c.state(g)["seq"], seq)
        self.c.apply_move(g, listed[0])
        self.assertEqual(self.c.state(g)["seq"], seq + 1)

    def test_a_barn_corner_is_named_from_the_tile_just_placed(self):
        g = self.barn_game_at_its_barn()
        barns = [m for m in self.c.legal_moves(g)["moves"] if m["type"] == "deploy" and m["kind"] == "barn"]
        self.assertIn(deploy(0, -1, "ne", "barn"),
                      [{k: m[k] for k in ("type", "kind", "x", "y", "at")} for m in barns])
        seq = self.c.state(g)["seq"]
        # the other three tiles that meet at that corner
        for x, y, at in ((1, -1, "nw"), (0, -2, "se"), (1, -2, "sw")):
            code = error_of(self.c.apply_move, g, deploy(x, y, at, "barn"))
            self.assertEqual(code[0], "illegal_move", (x, y, at))
            self.assertIn("figures go on the tile just placed", code[1])
        self.assertEqual(self.c.state(g)["seq"], seq)

    def test_the_scores_a_barn_brings_name_the_farm_under_per_city_4(self):
        g = self.barn_game_at_its_barn()
        self.assertEqual(self.c.state(g)["seq"], 3)
        farm = {"seat": 0, "feature": "field"}
        r = self.c.apply_move(g, deploy(0, -1, "ne", "barn"))
        scored = [e for e in r["events"] if e["type"] == "scored"]
        # the farmer is paid off at once: 3 for the one city, named on the
        # farm (a field port of a tile it covers), not on the city
        self.assertEqual(len(scored), 2, scored)
        self.assertEqual({k: scored[0][k] for k in farm}, farm)
        self.assertEqual((scored[0]["points"], scored[0]["final"]), (3, False))
        self.assertIn(scored[0]["at"], ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"))
        # the barn at the end: 4 for the city, on the farm too
        self.assertEqual({k: scored[1][k] for k in ("seat", "feature", "points", "final")},
                         {"seat": 1, "feature": "barn", "points": 4, "final": True})
        self.assertIn(scored[1]["at"], ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"))
        self.assertEqual(self.c.history(g)["setup"]["rules"]["farm_scoring"], "per-city-4")

    def test_the_abbey_decision_has_no_tile_and_the_abbey_no_rotation(self):
        g = self.c.new_game(["a", "b"], **HOLE_GAME)["game"]
        st = self.c.state(g)
        self.assertEqual((st["phase"], st["tile"]), ("tile", None))
        self.assertEqual(sorted(m["type"] for m in self.c.legal_moves(g)["moves"]), ["draw", "place_abbey"])
        r = self.c.apply_move(g, dict(abbey(0, 0), rot=90))
        placed = [e for e in r["events"] if e["type"] == "tile_placed"]
        self.assertEqual([(e["tile"], e["x"], e["y"], e["rot"]) for e in placed], [("AM/A", 0, 0, 0)])
        self.assertEqual([(t["tile"], t["rot"]) for t in self.c.state(g)["board"] if (t["x"], t["y"]) == (0, 0)],
                         [("AM/A", 0)])

    def test_an_expansion_named_twice_counts_once(self):
        once = self.c.new_game(["a"], seed=5, expansions=["base", "abbey-mayor"])
        twice = self.c.new_game(["a"], seed=5, expansions=["base", "abbey-mayor", "base", "abbey-mayor"])
        for r in (once, twice):
            r["state"].pop("game")
            r["state"].pop("seed_sha256")   # salted: differs from game to game
        self.assertEqual(once["state"], twice["state"])
        self.assertEqual(self.c.history(twice["game"])["setup"]["expansions"], ["base", "abbey-mayor"])

    def test_a_tile_under_a_hill_leaves_the_supply_without_a_draw(self):
        # PROTOCOL.md, "Unplaceable tiles": tiles_left counts a tile out when
        # it goes under a hill, with tile_hidden and no tile_drawn
        g = self.c.new_game(["a"], expansions=["base", "hills-sheep"], auth=False,
                            tiles=["HS/Cc.h.1", "BA/L", "BA/L"])
        self.assertEqual(g["state"]["tiles_left"], 2)
        first = [m for m in self.c.legal_moves(g["game"])["moves"] if m["type"] == "place_tile"][0]
        events = self.c.apply_move(g["game"], first)["events"]
        while self.c.state(g["game"])["phase"] != "tile":
            events += self.c.apply_move(g["game"], {"type": "pass"})["events"]
        kinds = [e["type"] for e in events if e["type"] in ("tile_hidden", "tile_drawn")]
        self.assertEqual(kinds, ["tile_hidden", "tile_drawn"])
        self.assertEqual(self.c.state(g["game"])["tiles_left"], 0)

    def test_a_completed_cloister_covers_one_tile(self):
        # PROTOCOL.md, feature_completed: `tiles` counts the tiles the
        # feature covers, and a cloister covers its own only (it scores 9)
        ring = [tile("BA/L", x, y) for x in range(3) for y in range(3) if (x, y) != (1, 1)]
        g = self.c.new_game(["a"], auth=False, start=ring, tiles=["BA/L"])["game"]
        self.c.apply_move(g, place("BA/L", 1, 1, 0))
        events = self.c.apply_move(g, deploy(1, 1, "cloister"))["events"]
        done = [(e["x"], e["y"], e["feature"], e["tiles"]) for e in events if e["type"] == "feature_completed"]
        self.assertEqual(done, [(1, 1, "cloister", 1)])
        self.assertIn(9, [e["points"] for e in events if e["type"] == "scored" and e["feature"] == "cloister"])


PROTOCOL_MD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "proto", "PROTOCOL.md")


def documented_options():
    """PROTOCOL.md's rule options table: key -> its values, as written."""
    with open(PROTOCOL_MD, encoding="utf-8") as f:
        text = f.read()
    section = text.split("### Rule options\n", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        key = re.fullmatch(r"`([a-z0-9_]+)`", cells[0]) if len(cells) == 3 else None
        if key:
            rows[key.group(1)] = [json.loads(v) if v in ("true", "false") else v
                                  for v in re.findall(r"`([^`]+)`", cells[1])]
    return rows


def documented_setup_keys():
    """The keys of history's `setup` as PROTOCOL.md's history section shows
    them: (always there, there for a game made with them)."""
    with open(PROTOCOL_MD, encoding="utf-8") as f:
        text = f.read()
    shape = re.search(r"`setup` is what the game was made with: `\{([^}]*)\}`", text).group(1)
    names = [re.sub(r"\s*\(.*", "", n.strip()) for n in re.sub(r"\([^)]*\)", "", shape).split(",")]
    return ({n for n in names if not n.endswith("?")}, {n[:-1] for n in names if n.endswith("?")})


class HistorySetupShape(OwnDaemon):
    def test_the_setup_of_a_game_made_with_everything_has_the_keys_documented(self):
        always, given = documented_setup_keys()
        self.assertEqual(given, {"tiles", "bag", "start"})
        made = dict(expansions=["base", "hills-sheep"], auth=False, bag=[2, "wolf", 1],
                    start=[tile("BA/C", 0, 0)], tiles=["BA/RFr", "BA/L"])
        c = self.c
        plain = c.new_game(["a"], auth=False)["game"]
        self.assertEqual(set(c.history(plain)["setup"]), always)
        g = c.new_game(["a", "b"], **made)["game"]
        # tiles and bag are secret until the end; start is not
        self.assertEqual(set(c.history(g)["setup"]), always | {"start"})
        harness.play_random_game(lambda lm, m: c.apply_move(g, m), lambda: c.legal_moves(g), random.Random(4))
        self.assertEqual(set(c.history(g)["setup"]), always | given)


class GivenSupply(OwnDaemon):
    """What a tester who sets up positions meets, as PROTOCOL.md's new_game
    table now says it: empty lists, counts past a set's, a lake given
    before other river tiles, a hill hiding the next tile given."""

    def test_empty_lists(self):
        self.assertEqual(error_of(self.c.new_game, ["a"], tiles=[])[0], "invalid_params")
        self.assertEqual(error_of(self.c.new_game, ["a"], start=[])[0], "invalid_params")
        g = self.c.new_game(["a"], auth=False, expansions=["base", "hills-sheep"], bag=[], tiles=["BA/L"])["game"]
        harness.play_random_game(lambda lm, m: self.c.apply_move(g, m), lambda: self.c.legal_moves(g),
                                 random.Random(1))
        self.assertNotIn("bag", self.c.history(g)["setup"])

    def test_a_tile_more_often_than_its_set_holds_it(self):
        g = self.c.new_game(["a"], auth=False, tiles=["BA/RRRR"] * 3)   # the base set has one
        self.assertEqual((g["state"]["tile"]["id"], g["state"]["tiles_left"]), ("BA/RRRR", 2))

    def test_a_lake_given_before_other_river_tiles_is_discarded_not_they(self):
        g = self.c.new_game(["a"], auth=False, seed=7, expansions=["river", "base"],
                            tiles=["RI.1/I.e", "RI.1/II", "RI.1/IFI", "BA/L"])["game"]
        self.assertEqual(self.c.state(g)["tile"]["id"], "RI.1/II")
        gone = [e for e in self.c.history(g)["events"] if e["type"] == "tile_discarded"]
        self.assertEqual([(e["tile"], e["seq"]) for e in gone], [("RI.1/I.e", 0)])

    def test_a_hill_hides_the_next_tile_given_a_river_tile_too(self):
        g = self.c.new_game(["a"], auth=False, seed=9, expansions=["base", "river", "hills-sheep"],
                            tiles=["RI.1/II", "HS/Cc.h.1", "RI.1/I.e", "BA/L", "HS/RR.h", "BA/Cc+"])["game"]
        for move in (place("RI.1/II", 1, 0, 0), PASS, place("HS/Cc.h.1", 0, -1, 0), PASS):
            self.c.apply_move(g, move)
        events = [e["type"] for e in self.c.history(g)["events"]]
        self.assertIn("tile_hidden", events)
        self.assertEqual((self.c.state(g)["tile"]["id"], self.c.state(g)["tiles_left"]), ("BA/L", 2))


class RuleOptionsTable(unittest.TestCase):
    def test_every_option_that_acts_is_documented_with_its_values_default_first(self):
        with harness.Daemon() as d, d.client(encoding="json") as c:
            listed = c.hello()["rules"]
        rows = documented_options()
        acting = [o for o in listed if o["implemented"]]
        self.assertEqual(sorted(rows), sorted(o["key"] for o in acting))
        for o in acting:
            values = o["values"] if o["type"] != "boolean" else [o["default"], not o["default"]]
            want = [o["default"]] + [v for v in values if v != o["default"]]
            self.assertEqual(rows[o["key"]], want, o["key"])


SCENARIOS = os.path.join(harness.TOP_SRCDIR, "tests", "scenarios")
SCENARIOS_MD = os.path.join(SCENARIOS, "README.md")
# A scenario's name as the documents cite it: the file name up to its
# two-digit number (audit5-hs-03 for audit5-hs-03-gathered-flock-....scn,
# 07 for 07-city-pennants.scn), or the whole name when it has no number.
SCENARIO_ID = r"(?:[a-z][a-z0-9]*-)*[0-9]{2}"


def scenario_ids():
    ids = set()
    for name in os.listdir(SCENARIOS):
        if name.endswith(".scn"):
            m = re.match(SCENARIO_ID + "(?=-|\\.scn$)", name)
            ids.add(m.group(0) if m else name[:-4])
    return ids


def coverage_table_cells():
    """The last cell of each row of tests/scenarios/README.md's table of
    what the scenarios cover: the scenarios that pin the row's rule."""
    with open(SCENARIOS_MD, encoding="utf-8") as f:
        table = f.read().split("## What the scenarios cover\n", 1)[1]
    return [line.strip().strip("|").split("|")[-1] for line in table.splitlines()
            if line.startswith("|") and not line.startswith("|---")]


class ScenarioCitations(unittest.TestCase):
    """A scenario renamed or removed must not leave a document pointing at
    nothing, and a new one must say in the table what it pins."""

    def test_every_scenario_cited_exists(self):
        ids = scenario_ids()
        cited = {}
        for doc in (os.path.join(harness.TOP_SRCDIR, "README.md"), PROTOCOL_MD, SCENARIOS_MD):
            with open(doc, encoding="utf-8") as f:
                for name in re.findall("`(" + SCENARIO_ID + ")`", f.read()):
                    cited.setdefault(name, doc)
        for cell in coverage_table_cells():
            for name in re.findall("(?<![\\w-])" + SCENARIO_ID + "(?![\\w-])", cell):
                cited.setdefault(name, "tests/scenarios/README.md's table")
        self.assertGreater(len(cited), 600)
        self.assertEqual({n: d for n, d in cited.items() if n not in ids}, {})

    def test_every_scenario_has_its_row(self):
        rows = " ".join(coverage_table_cells())
        named = set(re.findall("(?<![\\w-])[a-z0-9]+(?:-[a-z0-9]+)*(?![\\w-])", rows))
        self.assertEqual(sorted(scenario_ids() - named), [])


if __name__ == "__main__":
    unittest.main()

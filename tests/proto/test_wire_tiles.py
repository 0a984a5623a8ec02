"""carcd's own `tiles` method (proto/PROTOCOL.md section 4, "tiles"): what is
printed on each tile type of a choice of expansions, turned `rot` degrees,
and how many copies a game of them deals and starts with.

What it says is checked against
- an independent reading of the tile manifests (engine/tiles/*.tiles, their
  format at the top of basic.tiles), parsed and turned by this file's own
  code, not the engine's tilegen: the ids listed, their order, each
  feature with its ports, attributes, `reaches` and `borders`, the edges
  and the symbols, for many choices of expansions at all four rotations,
  and `dealt`/`start` as the manifests' counts, `start`, `remove` and `max`
  lines make them;
- real games: a fresh game's supply (`tiles_left` and the drawn tile) and
  board, and whole games played at random (the supply `history` gives
  once over, the tiles drawn, hidden and discarded, the board at the end);
- hand-written expectations for a few tiles read off the manifests;
- its errors (`invalid_params` for bad `expansions` and `rot`, the
  connection still usable after), both encodings, and `hello`'s `methods`.
"""

import collections
import glob
import json
import os
import random
import unittest

import harness
from harness import carcd
from test_contrib import CARCCTL_CMD, run

daemon, setUpModule, tearDownModule = harness.module_daemon()

TILES_DIR = os.path.join(harness.TOP_SRCDIR, "engine", "tiles")
ROTATIONS = (0, 90, 180, 270)
EDGES = ("N", "E", "S", "W")
HALVES = ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR")
PORT_ORDER = EDGES + HALVES + ("cloister", "tower", "I", "II")   # the canonical order
KINDS = ("road", "city", "field", "river", "cloister", "tower")
EDGE_KINDS = ("road", "city", "river")   # the kinds that give an edge its kind (else field)
FLAGS = {"inn": "inn", "cathedral": "cathedral", "besieged": "besieged", "princess": "princess",
         "shrine": "cult_place", "pigherd": "pig_herd"}   # manifest attribute -> wire mark
GOODS = ("wine", "grain", "cloth")
SYMBOLS = ("volcano", "dragon", "portal", "hill", "vineyard", "fair", "garden", "spring", "lake", "abbey")
RIVERS = ("river", "river2")
# The mini expansion's second set: its header (gq11.tiles) says the reference
# adds its 2 river tiles only to a game that also has River or River II, and
# PROTOCOL.md's `tiles` says they are listed only with `river` or `river2`.
RIVER_ONLY_SETS = ("gq11/river",)


# ---- an independent reading of the manifests ------------------------------

def turn(port, rot):
    """A port of the tile unturned, on the board once the tile is turned rot
    degrees clockwise: N->E->S->W, NL->EL->SL->WL, NR->ER->SR->WR; the
    centre ports (cloister, tower, I, II) stay."""
    q = rot // 90
    if port in EDGES:
        return EDGES[(EDGES.index(port) + q) % 4]
    if port in HALVES:
        return EDGES[(EDGES.index(port[0]) + q) % 4] + port[1]
    assert port in ("cloister", "tower", "I", "II"), port
    return port


def canonical(ports):
    return sorted(set(ports), key=PORT_ORDER.index)


class ManifestError(Exception):
    pass


class Description:
    def __init__(self, tid, where):
        self.id, self.where = tid, where
        self.features = []   # (kind, [ports as written], {attribute: value or True})
        self.symbols = []
        self.inner = []
        self.max = None


class TileSet:
    def __init__(self, sid, expansion):
        self.id, self.expansion = sid, expansion
        self.start, self.remove = [], []
        self.tiles = []      # (id, count) in the order of its `tile` lines


def read_manifests(directory=TILES_DIR):
    """(sets by expansion name, [TileSet...] per file, descriptions by id).

    A `tile` line followed by indented lines describes the tile; one with
    none under it only names a tile described elsewhere (River II's RI/s is
    River I's).  Every id named must be described exactly once, somewhere:
    a choice of River II without River still needs River I's description of
    the spring."""
    files, described = {}, {}
    for path in sorted(glob.glob(os.path.join(directory, "*.tiles"))):
        sets, current, tset = [], None, None
        with open(path, encoding="utf-8") as f:
            for n, raw in enumerate(f, 1):
                where = "%s:%d" % (os.path.basename(path), n)
                words = raw.split("#", 1)[0].split()
                if not words:
                    continue
                if not raw[0].isspace():
                    current = None
                    head = words[0]
                    if head == "set":
                        tset = TileSet(words[1], words[2])
                        sets.append(tset)
                    elif tset is None:
                        raise ManifestError("%s: %s before any `set`" % (where, head))
                    elif head == "start":
                        tset.start.append(words[1])
                    elif head == "remove":
                        tset.remove.append(words[1])
                    elif head == "tile":
                        tset.tiles.append((words[1], int(words[2])))
                        current = Description(words[1], where)   # kept if lines follow
                    else:
                        raise ManifestError("%s: unknown line %r" % (where, raw))
                    continue
                if current is None:
                    raise ManifestError("%s: an indented line under no tile" % where)
                if current.id not in described:
                    described[current.id] = current
                elif described[current.id] is not current:
                    raise ManifestError("%s: %s described twice (first at %s)"
                                        % (where, current.id, described[current.id].where))
                head, rest = words[0], words[1:]
                if head == "symbol":
                    current.symbols += rest
                elif head == "inner":
                    current.inner += rest
                elif head == "max":
                    current.max = int(rest[0])
                elif head == "quarters":
                    pass
                elif head in KINDS:
                    ports = [w for w in rest if w in PORT_ORDER]
                    attrs = {}
                    for w in rest:
                        if w not in PORT_ORDER:
                            k, eq, v = w.partition("=")
                            attrs[k] = v if eq else True
                    if head in ("cloister", "tower") and ports:
                        raise ManifestError("%s: a %s with ports" % (where, head))
                    current.features.append((head, ports, attrs))
                else:
                    raise ManifestError("%s: unknown feature line %r" % (where, raw))
        files[os.path.basename(path)] = sets
    by_expansion = collections.defaultdict(list)
    for sets in files.values():
        for s in sets:
            by_expansion[s.expansion].append(s)
            for tid, _ in s.tiles:
                if tid not in described:
                    raise ManifestError("set %s names %s, described nowhere" % (s.id, tid))
    return by_expansion, files, described


def expected_features(desc, rot):
    """The wire features of a described tile turned rot degrees."""
    def ports_of(feature):
        kind, ports, _ = feature
        return [kind] if kind in ("cloister", "tower") else canonical(turn(p, rot) for p in ports)

    out = []
    for feature in desc.features:
        kind, ports, attrs = feature
        ps = ports_of(feature)
        f = {"feature": kind, "at": ps[0], "ports": ps}
        for key, value in attrs.items():
            if key == "pennant":
                f["pennants"] = 1
            elif key == "pennants":
                f["pennants"] = int(value)
            elif key in FLAGS:
                f[FLAGS[key]] = True
            elif key == "goods":
                assert value in GOODS, (desc.id, value)
                f["goods"] = value
            elif key == "multi":
                f["reaches"] = canonical(turn(e, rot) for e in value.split(","))
            elif key == "borders":
                # each city named by one of its edges: the wire names it by
                # its `at`, in the order of the features (PROTOCOL.md)
                named = set()
                for edge in value.split(","):
                    cities = [i for i, c in enumerate(desc.features) if c[0] == "city" and edge in c[1]]
                    if len(cities) != 1:
                        raise ManifestError("%s: borders=%s names no one city" % (desc.id, value))
                    named.add(cities[0])
                f["borders"] = [ports_of(desc.features[i])[0] for i in sorted(named)]
            elif key == "wagon":
                pass   # not on the wire
            else:
                raise ManifestError("%s: unknown attribute %s" % (desc.id, key))
        out.append(f)
    return out


def expected_edges(desc, rot):
    """Kinds at the board's N, E, S, W: `inner` where an `inner` line names
    the side or one of its halves, else the road, city or river on it, else
    field."""
    unturned = []
    for side in EDGES:
        if any(p in (side, side + "L", side + "R") for p in desc.inner):
            unturned.append("inner")
            continue
        kinds = [k for k, ports, _ in desc.features if k in EDGE_KINDS and side in ports]
        if len(kinds) > 1:
            raise ManifestError("%s: two features on edge %s" % (desc.id, side))
        unturned.append(kinds[0] if kinds else "field")
    q = rot // 90
    return [unturned[(d - q) % 4] for d in range(4)]


BY_EXPANSION, FILES, DESCRIBED = read_manifests()


# ---- talking to the daemon ------------------------------------------------

class Case(unittest.TestCase):
    encoding = "msgpack"

    @classmethod
    def setUpClass(cls):
        with daemon["d"].client() as c:
            cls.hello = c.hello()
        cls.order = [e["name"] for e in cls.hello["expansions"]]
        cls.available = [e["name"] for e in cls.hello["expansions"] if e["available"]]

    def setUp(self):
        self.c = daemon["d"].client("unix", self.encoding)

    def tearDown(self):
        self.c.close()

    def tiles(self, expansions=None, rot=None):
        params = {}
        if expansions is not None:
            params["expansions"] = expansions
        if rot is not None:
            params["rot"] = rot
        return self.c.call("tiles", params)

    def by_id(self, result):
        ids = [t["id"] for t in result["tiles"]]
        self.assertEqual(len(ids), len(set(ids)), "an id listed twice: %s" % ids)
        return {t["id"]: t for t in result["tiles"]}

    def choices(self):
        """["base"], base with each other available expansion, all of them
        together, and a few without base (one without any standard start;
        the mini's river tiles with and without a river)."""
        out = [["base"]] + [["base", e] for e in self.available if e != "base"] + [list(self.available)]
        for extra in (["mini"], ["river", "mini"], ["river2", "mini"], ["river2"], ["cult", "hills-sheep"]):
            if all(e in self.available for e in extra):
                out.append(extra)
        return out

    def has_river(self, choice):
        return any(e in RIVERS for e in choice)

    def chosen_sets(self, choice):
        """The chosen expansions' tile sets, in hello's order of expansions
        (that of the manifests: Makefile.am's TILE_MANIFESTS lists them so,
        and each file holds the sets of one expansion)."""
        sets = []
        for name in self.order:
            if name in choice:
                sets += [s for s in BY_EXPANSION[name]
                         if s.id not in RIVER_ONLY_SETS or self.has_river(choice)]
        return sets

    def expected_ids(self, choice):
        """Each tile a chosen set names, once, in the order the manifests
        describe them (the engine numbers tile types so): the files in
        hello's order, each tile where its description is."""
        named = {tid for s in self.chosen_sets(choice) for tid, _ in s.tiles}
        described_order = []
        for name in self.order:
            for s in BY_EXPANSION[name]:
                described_order += [tid for tid, _ in s.tiles
                                    if DESCRIBED[tid].where.startswith(FILES_OF[s.id] + ":")
                                    and tid not in described_order]
        return [tid for tid in described_order if tid in named]

    def expected_counts(self, choice):
        """{id: (dealt, start)} as the manifests and PROTOCOL.md make them:
        - a tile's copies are the sum of its counts in the chosen sets, at
          most its `max`, none when a chosen set `remove`s it;
        - each chosen set's `start` tile is one of those copies
          (basic.tiles' header), taken out of the deal whether it is placed
          or left out beside a spring (PROTOCOL.md: "one BA/RCr left out
          with base");
        - a spring is never dealt (only ever a start tile), nor is the abbey
          (each seat holds its own);
        - the standard start: a spring when a chosen set starts with one (a
          river game starts at the spring), else the start tiles of the first
          chosen set that has any; none when no chosen set has a start line
          (start 0 everywhere)."""
        sets = self.chosen_sets(choice)
        copies = collections.Counter()
        for s in sets:
            for tid, n in s.tiles:
                copies[tid] += n
        removed = {tid for s in sets for tid in s.remove}
        starts = collections.Counter(tid for s in sets for tid in s.start)
        out = {}
        for tid in copies:
            d = DESCRIBED[tid]
            n = copies[tid] if d.max is None else min(copies[tid], d.max)
            if tid in removed or "spring" in d.symbols or "abbey" in d.symbols:
                n = 0
            out[tid] = [max(0, n - starts[tid]), 0]
        springs = [tid for s in sets for tid in s.start if "spring" in DESCRIBED[tid].symbols]
        if springs:
            out[springs[0]][1] = 1
        else:
            first = next((s for s in sets if s.start), None)
            for tid in first.start if first else ():
                out[tid][1] += 1
        return {tid: tuple(v) for tid, v in out.items()}


FILES_OF = {s.id: name for name, sets in FILES.items() for s in sets}


# ---- 1. against the manifests ---------------------------------------------

class AgainstManifests(Case):
    def test_every_tile_at_every_rotation(self):
        """Each tile's features (kind, ports turned, at, attributes,
        reaches, borders), edges and symbols, and the keys of each entry."""
        for choice in self.choices():
            for rot in ROTATIONS:
                with self.subTest(expansions=choice, rot=rot):
                    r = self.tiles(list(reversed(choice)), rot)
                    self.assertEqual(r["rot"], rot)
                    for t in r["tiles"]:
                        d = DESCRIBED[t["id"]]
                        self.assertEqual(set(t), {"id", "dealt", "start", "edges", "features", "symbols"}, t["id"])
                        self.assertEqual(t["features"], expected_features(d, rot), t["id"])
                        self.assertEqual(t["edges"], expected_edges(d, rot), t["id"])
                        self.assertEqual(sorted(t["symbols"]), sorted(d.symbols), t["id"])
                        self.assertEqual(len(t["symbols"]), len(set(t["symbols"])), t["id"])
                        self.assertLessEqual(set(t["symbols"]), set(SYMBOLS), t["id"])

    def test_ids_are_the_chosen_sets_tiles_in_manifest_order(self):
        for choice in self.choices():
            with self.subTest(expansions=choice):
                r = self.tiles(list(reversed(choice)))
                self.assertEqual(r["expansions"], [e for e in self.order if e in choice])
                self.assertEqual(r["rot"], 0)
                ids = [t["id"] for t in r["tiles"]]
                self.assertEqual(len(ids), len(set(ids)))
                self.assertEqual(sorted(ids), sorted(self.expected_ids(choice)))
                self.assertEqual(ids, self.expected_ids(choice))

    def test_the_minis_river_tiles_only_with_a_river(self):
        mini = {tid for s in BY_EXPANSION["mini"] if s.id in RIVER_ONLY_SETS for tid, _ in s.tiles}
        self.assertEqual(mini, {"GQ/RFI", "GQ/CICI"})
        self.assertFalse(mini & set(self.by_id(self.tiles(["base", "mini"]))))
        self.assertFalse(mini & set(self.by_id(self.tiles(["mini"]))))
        for river in RIVERS:
            self.assertLessEqual(mini, set(self.by_id(self.tiles(["base", river, "mini"]))))

    def test_dealt_and_start_as_the_manifests_count_them(self):
        for choice in self.choices():
            with self.subTest(expansions=choice):
                got = {tid: (t["dealt"], t["start"]) for tid, t in self.by_id(self.tiles(choice)).items()}
                self.assertEqual(got, self.expected_counts(choice))

    def test_rotation_is_a_turn_of_rotation_0(self):
        """Turning the daemon's own rot 0 answer by hand gives its answer at
        each rot (ports, at, reaches, borders, edges; dealt, start and
        symbols unchanged)."""
        every = list(self.available)
        base = self.tiles(every, 0)["tiles"]
        for rot in ROTATIONS[1:]:
            turned = self.tiles(every, rot)["tiles"]
            self.assertEqual([t["id"] for t in turned], [t["id"] for t in base])
            for t0, t in zip(base, turned):
                # an `at` is the first port once turned, not the old `at`
                # turned; a field's borders name its cities by their `at`
                new_at = {f["at"]: canonical(turn(p, rot) for p in f["ports"])[0] for f in t0["features"]}
                want = []
                for f in t0["features"]:
                    f = dict(f)
                    f["ports"] = canonical(turn(p, rot) for p in f["ports"])
                    f["at"] = f["ports"][0]
                    if "reaches" in f:
                        f["reaches"] = canonical(turn(p, rot) for p in f["reaches"])
                    if "borders" in f:
                        f["borders"] = [new_at[b] for b in f["borders"]]   # the cities keep their order
                    want.append(f)
                self.assertEqual(t["features"], want, t["id"])
                self.assertEqual(t["edges"], [t0["edges"][(d - rot // 90) % 4] for d in range(4)], t["id"])
                for key in ("dealt", "start", "symbols"):
                    self.assertEqual(t[key], t0[key], (t["id"], key))


# ---- 2. against real games -------------------------------------------------

class AgainstGames(Case):
    def standard_choices(self):
        return [c for c in self.choices() if "base" in c or self.has_river(c)]

    def test_a_fresh_game_holds_dealt_and_starts_with_start(self):
        """PROTOCOL.md's state: `tiles_left` is the supply less the drawn
        tile, which `tile` shows (null before a draw).  So the copies dealt
        are tiles_left, the drawn one and any discarded at the setup; the
        fresh board is the start tiles."""
        for choice in self.standard_choices():
            for seed in (1, 2):
                with self.subTest(expansions=choice, seed=seed):
                    tiles = self.by_id(self.tiles(choice))
                    g = self.c.new_game(["ann", "bob"], expansions=choice, seed=seed)
                    st = g["state"]
                    events = self.c.history(g["game"])["events"]
                    discarded = [e for e in events if e["type"] in ("tile_discarded", "tile_hidden")]
                    self.assertEqual(sum(t["dealt"] for t in tiles.values()),
                                     st["tiles_left"] + (st["tile"] is not None) + len(discarded))
                    if st["tile"] is not None:
                        self.assertGreater(tiles[st["tile"]["id"]]["dealt"], 0)
                    self.assertEqual(collections.Counter(p["tile"] for p in st["board"]),
                                     collections.Counter({tid: t["start"] for tid, t in tiles.items() if t["start"]}))

    def test_a_finished_games_supply_is_dealt(self):
        """Once over, `history` gives the supply as it was shuffled: each id
        as often as `dealt` says; and every tile drawn or hidden in the game
        came out of it, tiles_left falling by one each."""
        for choice in self.standard_choices():
            with self.subTest(expansions=choice):
                tiles = self.by_id(self.tiles(choice))
                rng = random.Random("finished %s" % choice)
                g = self.c.new_game(["ann", "bob"], expansions=choice, seed=rng.randrange(1 << 30), auth=False)
                total = sum(t["dealt"] for t in tiles.values())
                record = harness.play_random_game(lambda lm, move: self.c.apply_move(g["game"], move),
                                                  lambda: self.c.legal_moves(g["game"]), rng)
                self.assertTrue(record)
                h = self.c.history(g["game"])
                self.assertEqual(collections.Counter(h["tiles"]),
                                 collections.Counter({tid: t["dealt"] for tid, t in tiles.items() if t["dealt"]}))
                seen = [e for e in h["events"] if e["type"] in ("tile_drawn", "tile_hidden")]
                self.assertEqual(len(seen), total)
                self.assertEqual(self.c.state(g["game"])["tiles_left"], 0)

    def test_dealt_less_seen_is_tiles_left_all_game(self):
        """PROTOCOL.md: less the tiles drawn and hidden so far, dealt gives
        the tiles not seen yet; it is tiles_left at every decision."""
        every = list(self.available)
        tiles = self.by_id(self.tiles(every))
        total = sum(t["dealt"] for t in tiles.values())
        rng = random.Random("seen")
        g = self.c.new_game(["ann", "bob", "cy"], expansions=every, seed=11, auth=False)
        seen = sum(e["type"] in ("tile_drawn", "tile_hidden") for e in self.c.history(g["game"])["events"])
        checked = 0
        while True:
            st = self.c.state(g["game"])
            self.assertEqual(total - seen, st["tiles_left"], "at seq %d" % st["seq"])
            checked += 1
            lm = self.c.legal_moves(g["game"])
            if lm["phase"] == "over":
                break
            res = self.c.apply_move(g["game"], rng.choice(lm["moves"]))
            seen += sum(e["type"] in ("tile_drawn", "tile_hidden") for e in res["events"])
        self.assertGreater(checked, total)

    def test_a_tile_put_back_counts_once(self):
        """PROTOCOL.md: a tile `reshuffle` puts back and that is drawn again
        counts once.  The crossroads fits nowhere beside a city on all four
        sides: it goes under the supply, comes again after BA/Cc+, and fits
        nowhere still.  The supply given (`tiles`) stands for `dealt`."""
        supply = ["BA/RRRR", "BA/Cc+"]
        g = self.c.new_game(["ann"], auth=False, tiles=supply, rules={"unplaceable_tile": "reshuffle"},
                            start=[{"tile": "BA/Cccc+", "x": 0, "y": 0, "rot": 0}])
        events = list(self.c.history(g["game"])["events"])
        while True:
            drawn = sum(e["type"] == "tile_drawn" for e in events)
            again = sum(e["type"] == "tile_discarded" and e["why"] == "reshuffled" for e in events)
            st = self.c.state(g["game"])
            self.assertEqual(len(supply) - (drawn - again), st["tiles_left"], "at seq %d" % st["seq"])
            lm = self.c.legal_moves(g["game"])
            if lm["phase"] == "over":
                break
            events += self.c.apply_move(g["game"], lm["moves"][0])["events"]
        self.assertEqual([e["tile"] for e in events if e["type"] == "tile_drawn"], ["BA/RRRR", "BA/Cc+", "BA/RRRR"])
        self.assertEqual([e["why"] for e in events if e["type"] == "tile_discarded"], ["reshuffled", "unplaceable"])

    def test_a_whole_base_game_lays_dealt_plus_start(self):
        """A base game played to its end at random: each id's copies on the
        board at the end and discarded come to dealt + start."""
        tiles = self.by_id(self.tiles(["base"]))
        for seed in (3, 4):
            with self.subTest(seed=seed):
                rng = random.Random(seed)
                g = self.c.new_game(["ann", "bob"], seed=seed, auth=False)
                record = harness.play_random_game(lambda lm, move: self.c.apply_move(g["game"], move),
                                                  lambda: self.c.legal_moves(g["game"]), rng)
                events = [e for e in self.c.history(g["game"])["events"]]
                drawn = [e["tile"] for e in events if e["type"] == "tile_drawn"]
                self.assertEqual(len(drawn), len([m for _, m, _ in record if m["type"] == "place_tile"])
                                 + len([e for e in events if e["type"] == "tile_discarded"]))
                laid = collections.Counter(p["tile"] for p in self.c.state(g["game"])["board"])
                laid.update(e["tile"] for e in events if e["type"] == "tile_discarded")
                self.assertEqual(laid, collections.Counter({tid: t["dealt"] + t["start"] for tid, t in tiles.items()}))


# ---- 3. by hand --------------------------------------------------------------

def tile_of(result, tid):
    for t in result["tiles"]:
        if t["id"] == tid:
            return t
    raise AssertionError("%s not listed" % tid)


class ByHand(Case):
    def test_ba_cfc_pennant(self):
        # tile BA/CFc+ 2 / city W E pennant / field NL NR borders=W / field SL SR borders=W
        self.assertEqual(tile_of(self.tiles(["base"]), "BA/CFc+"), {
            "id": "BA/CFc+", "dealt": 2, "start": 0, "symbols": [],
            "edges": ["field", "city", "field", "city"],
            "features": [{"feature": "city", "at": "E", "ports": ["E", "W"], "pennants": 1},
                         {"feature": "field", "at": "NL", "ports": ["NL", "NR"], "borders": ["E"]},
                         {"feature": "field", "at": "SL", "ports": ["SL", "SR"], "borders": ["E"]}]})
        self.assertEqual(tile_of(self.tiles(["base"], 90), "BA/CFc+"), {
            "id": "BA/CFc+", "dealt": 2, "start": 0, "symbols": [],
            "edges": ["city", "field", "city", "field"],
            "features": [{"feature": "city", "at": "N", "ports": ["N", "S"], "pennants": 1},
                         {"feature": "field", "at": "EL", "ports": ["EL", "ER"], "borders": ["N"]},
                         {"feature": "field", "at": "WL", "ports": ["WL", "WR"], "borders": ["N"]}]})

    def test_the_base_start_tile(self):
        # tile BA/RCr 4, the start: one copy on the board, three dealt
        t = tile_of(self.tiles(["base"]), "BA/RCr")
        self.assertEqual((t["dealt"], t["start"]), (3, 1))
        # with a river the game starts at the spring, BA/RCr still left out
        t = tile_of(self.tiles(["base", "river"]), "BA/RCr")
        self.assertEqual((t["dealt"], t["start"]), (3, 0))

    def test_hs_city_reaching_an_edge(self):
        # city N W / city E multi=N / field SL SR borders=N,E; symbol vineyard
        hs = ["base", "hills-sheep"]
        self.assertEqual(tile_of(self.tiles(hs), "HS/CC!.v"), {
            "id": "HS/CC!.v", "dealt": 2, "start": 0, "symbols": ["vineyard"],
            "edges": ["city", "city", "field", "city"],
            "features": [{"feature": "city", "at": "N", "ports": ["N", "W"]},
                         {"feature": "city", "at": "E", "ports": ["E"], "reaches": ["N"]},
                         {"feature": "field", "at": "SL", "ports": ["SL", "SR"], "borders": ["N", "E"]}]})
        self.assertEqual(tile_of(self.tiles(hs, 90), "HS/CC!.v")["features"], [
            {"feature": "city", "at": "N", "ports": ["N", "E"]},
            {"feature": "city", "at": "S", "ports": ["S"], "reaches": ["E"]},
            {"feature": "field", "at": "WL", "ports": ["WL", "WR"], "borders": ["N", "S"]}])
        self.assertEqual(tile_of(self.tiles(hs, 270), "HS/CC!.v")["features"][1],
                         {"feature": "city", "at": "N", "ports": ["N"], "reaches": ["W"]})

    def test_tb_goods_and_an_enclosed_field(self):
        # city N W goods=cloth / city S / city E / field I borders=N,E,S: the
        # field names its cities in the order of the features
        tb = ["base", "traders-builders"]
        self.assertEqual(tile_of(self.tiles(tb), "TB/CcCC.c"), {
            "id": "TB/CcCC.c", "dealt": 1, "start": 0, "symbols": [],
            "edges": ["city", "city", "city", "city"],
            "features": [{"feature": "city", "at": "N", "ports": ["N", "W"], "goods": "cloth"},
                         {"feature": "city", "at": "S", "ports": ["S"]},
                         {"feature": "city", "at": "E", "ports": ["E"]},
                         {"feature": "field", "at": "I", "ports": ["I"], "borders": ["N", "S", "E"]}]})
        self.assertEqual(tile_of(self.tiles(tb, 180), "TB/CcCC.c")["features"], [
            {"feature": "city", "at": "E", "ports": ["E", "S"], "goods": "cloth"},
            {"feature": "city", "at": "N", "ports": ["N"]},
            {"feature": "city", "at": "W", "ports": ["W"]},
            {"feature": "field", "at": "I", "ports": ["I"], "borders": ["E", "N", "W"]}])
        self.assertEqual(tile_of(self.tiles(tb), "TB/Cc.g")["features"][0]["goods"], "grain")
        self.assertEqual(tile_of(self.tiles(tb), "TB/Cc.w")["features"][0]["goods"], "wine")

    def test_ic_cathedral(self):
        self.assertEqual(tile_of(self.tiles(["base", "inns-cathedrals"], 270), "IC/Cccc.c"), {
            "id": "IC/Cccc.c", "dealt": 2, "start": 0, "symbols": [],
            "edges": ["city", "city", "city", "city"],
            "features": [{"feature": "city", "at": "N", "ports": ["N", "E", "S", "W"], "cathedral": True}]})
        # road E W inn on a straight road
        self.assertEqual(tile_of(self.tiles(["base", "inns-cathedrals"], 90), "IC/RFr.i")["features"][0],
                         {"feature": "road", "at": "N", "ports": ["N", "S"], "inn": True})

    def test_cu_cult_place(self):
        # cloister shrine wagon=a / city N / road S wagon=a / field EL ER SL SR WL WR borders=N
        self.assertEqual(tile_of(self.tiles(["base", "cult"], 90), "CU/SCFR"), {
            "id": "CU/SCFR", "dealt": 1, "start": 0, "symbols": [],
            "edges": ["field", "city", "field", "road"],
            "features": [{"feature": "cloister", "at": "cloister", "ports": ["cloister"], "cult_place": True},
                         {"feature": "city", "at": "E", "ports": ["E"]},
                         {"feature": "road", "at": "W", "ports": ["W"]},
                         {"feature": "field", "at": "NL", "ports": ["NL", "NR", "SL", "SR", "WL", "WR"],
                          "borders": ["E"]}]})

    def test_gq_pig_herd(self):
        self.assertEqual(tile_of(self.tiles(["base", "mini"], 180), "GQ/F"), {
            "id": "GQ/F", "dealt": 1, "start": 0, "symbols": [], "edges": ["field"] * 4,
            "features": [{"feature": "field", "at": "NL", "ports": list(HALVES), "pig_herd": True}]})

    def test_cathars_besieged(self):
        # city N besieged / road E W / field EL WR borders=N / field ER SL SR WL
        self.assertEqual(tile_of(self.tiles(["base", "cathars"]), "SI.CA/RCr")["features"], [
            {"feature": "city", "at": "N", "ports": ["N"], "besieged": True},
            {"feature": "road", "at": "E", "ports": ["E", "W"]},
            {"feature": "field", "at": "EL", "ports": ["EL", "WR"], "borders": ["N"]},
            {"feature": "field", "at": "ER", "ports": ["ER", "SL", "SR", "WL"]}])

    def test_the_abbey(self):
        # tile AM/A 1 / symbol abbey / cloister: never dealt, never a start tile
        self.assertEqual(tile_of(self.tiles(["base", "abbey-mayor"], 90), "AM/A"), {
            "id": "AM/A", "dealt": 0, "start": 0, "symbols": ["abbey"], "edges": ["field"] * 4,
            "features": [{"feature": "cloister", "at": "cloister", "ports": ["cloister"]}]})
        self.assertNotIn("AM/A", self.by_id(self.tiles(["base"])))

    def test_the_spring(self):
        # tile RI/s 1 / symbol spring / field (all eight) / river E; max 1
        spring = {"id": "RI/s", "dealt": 0, "start": 1, "symbols": ["spring"],
                  "edges": ["field", "river", "field", "field"],
                  "features": [{"feature": "field", "at": "NL", "ports": list(HALVES)},
                               {"feature": "river", "at": "E", "ports": ["E"]}]}
        for choice in (["base", "river"], ["river"], ["base", "river2"], ["base", "river", "river2"]):
            with self.subTest(expansions=choice):
                self.assertEqual(tile_of(self.tiles(choice), "RI/s"), spring)
        # River II removes River I's lake; the volcano lake is the only lake
        both = self.by_id(self.tiles(["base", "river", "river2"]))
        self.assertEqual(both["RI.1/I.e"]["dealt"], 0)
        self.assertEqual(both["RI.2/I.v"]["dealt"], 1)
        self.assertEqual(sorted(both["RI.2/I.v"]["symbols"]), ["lake", "volcano"])
        self.assertEqual(self.by_id(self.tiles(["river"]))["RI.1/I.e"]["dealt"], 1)
        # the mini's second spring is never dealt nor the standard start
        mini = self.by_id(self.tiles(["base", "river", "mini"]))
        self.assertEqual((mini["GQ/RFI"]["dealt"], mini["GQ/RFI"]["start"]), (0, 0))
        self.assertEqual((mini["GQ/CICI"]["dealt"], mini["GQ/CICI"]["start"]), (1, 0))

    def test_defaults(self):
        self.assertEqual(self.tiles(), self.tiles(["base"], 0))
        # PROTOCOL.md section 2: a parameter set to nil counts as not given
        self.assertEqual(self.c.call("tiles", {"expansions": None, "rot": None}), self.tiles(["base"], 0))
        self.assertEqual(self.tiles(rot=0), self.tiles(["base"]))
        r = self.tiles()
        self.assertEqual((r["expansions"], r["rot"], len(r["tiles"])), (["base"], 0, 24))
        self.assertEqual(sum(t["dealt"] + t["start"] for t in r["tiles"]), 72)

    def test_no_standard_start(self):
        # cult alone has no start line: nothing starts, its six are dealt
        r = self.tiles(["cult"])
        self.assertEqual([(t["id"], t["dealt"], t["start"]) for t in r["tiles"]],
                         [(tid, 1, 0) for tid in ("CU/S", "CU/SC", "CU/SR", "CU/SCFR", "CU/SRFR", "CU/SRCR")])


# ---- 4, 5. errors, encodings, hello -----------------------------------------

class Errors(Case):
    BAD = [({"expansions": ["no-such-expansion"]}, "unknown"),
           ({"expansions": ["base", "no-such-expansion"]}, "unknown, beside base"),
           ({"expansions": []}, "empty"),
           ({"expansions": "base"}, "not a list"),
           ({"expansions": [3]}, "not a name"),
           ({"expansions": {"base": True}}, "a map"),
           ({"rot": 45}, "rot 45"),
           ({"rot": 360}, "rot 360"),
           ({"rot": -90}, "rot -90"),
           ({"rot": 1}, "rot 1"),
           ({"rot": "90"}, "rot a string"),
           ({"rot": True}, "rot a boolean"),
           ({"rot": 90.5}, "rot 90.5")]

    def unavailable(self):
        names = [e["name"] for e in self.hello["expansions"] if not e["available"]]
        self.assertIn("tower", names)
        return names

    def assertInvalid(self, c, params):
        with self.assertRaises(carcd.Error) as cm:
            c.call("tiles", params)
        self.assertEqual(cm.exception.code, "invalid_params", (params, cm.exception))
        self.assertTrue(cm.exception.message)
        self.assertEqual(c.ping(), {})   # the connection still works
        return cm.exception

    def test_bad_params(self):
        cases = self.BAD + [({"expansions": [name]}, "unavailable") for name in self.unavailable()] + \
            [({"expansions": ["base", "tower"]}, "unavailable beside base")]
        for encoding in ("msgpack", "json"):
            with daemon["d"].client("unix", encoding) as c:
                for params, what in cases:
                    with self.subTest(encoding=encoding, what=what, params=params):
                        self.assertInvalid(c, params)
                self.assertEqual(c.call("tiles", {"rot": 90})["rot"], 90)

    def test_messages_name_the_bad_value(self):
        self.assertIn("no-such-expansion", self.assertInvalid(self.c, {"expansions": ["no-such-expansion"]}).message)
        self.assertIn("tower", self.assertInvalid(self.c, {"expansions": ["tower"]}).message)
        self.assertIn("rot", self.assertInvalid(self.c, {"rot": 45}).message)

    def test_both_encodings_answer_alike(self):
        every = list(self.available)
        with daemon["d"].client("unix", "msgpack") as m, daemon["d"].client("tcp", "json") as j:
            for params in ({}, {"expansions": every, "rot": 270}, {"expansions": ["base", "hills-sheep"], "rot": 90}):
                with self.subTest(params=params):
                    a, b = m.call("tiles", params), j.call("tiles", params)
                    self.assertEqual(a, b)
                    self.assertTrue(a["tiles"])
            errors = []
            for c in (m, j):
                with self.assertRaises(carcd.Error) as cm:
                    c.call("tiles", {"rot": 45})
                errors.append((cm.exception.code, cm.exception.message))
            self.assertEqual(errors[0], errors[1])
            self.assertEqual(errors[0][0], "invalid_params")

    def test_json_shorthand_line(self):
        """The bare `tiles {...}` line of PROTOCOL.md's example."""
        with daemon["d"].raw("tcp") as r:
            r.send_line('tiles {"expansions": ["base"], "rot": 90}')
            resp = r.read_one("json")
            self.assertEqual(resp[:3], [1, None, None])
            self.assertEqual(resp[3], self.tiles(["base"], 90))
            first = resp[3]["tiles"][0]
            self.assertEqual(first["id"], "BA/LR")
            self.assertEqual(first["edges"], ["field", "field", "field", "road"])
            r.send_line('tiles {"rot": 45}')
            self.assertEqual(r.read_one("json")[2]["code"], "invalid_params")
            r.send_line("ping")
            self.assertEqual(r.read_one("json"), [1, None, None, {}])

    def test_tiles_is_in_hellos_methods(self):
        for encoding in ("msgpack", "json"):
            with daemon["d"].client("tcp", encoding) as c:
                self.assertIn("tiles", c.hello()["methods"])


class WhatABotWorksOut(Case):
    """What a bot that judges placements from `tiles` needs beside it
    (PROTOCOL.md section 3 and Events): how half-edges meet across a border,
    and which result carries what a placement completes."""

    def test_half_edges_meet_across_from_each_other(self):
        # BA/RFr turned 90: a road N-S between a west field and an east one.
        # Above the start, the tile's SR (the west half of its south edge)
        # meets the start's NL; below it, the tile's NL meets the start's SR.
        g = self.c.new_game(["ann"], auth=False, tiles=["BA/RFr", "BA/RFr", "BA/L"],
                            start=[{"tile": "BA/RFr", "x": 0, "y": 0, "rot": 90}])
        gid = g["game"]
        self.c.apply_move(gid, {"type": "place_tile", "tile": "BA/RFr", "x": 0, "y": -1, "rot": 90})
        self.c.apply_move(gid, {"type": "deploy", "kind": "follower", "x": 0, "y": -1, "at": "SR"})
        self.c.apply_move(gid, {"type": "place_tile", "tile": "BA/RFr", "x": 0, "y": 1, "rot": 90})
        moves = self.c.legal_moves(gid, features=True)["moves"]
        fields = {m["at"] for m in moves if m["type"] == "deploy" and m["feature"] == "field"}
        # the west farm runs from the SR of the tile above through the start
        # to the NL of the tile below, and is taken; the east one is free
        self.assertEqual(fields, {"NR"})
        with self.assertRaises(carcd.Error) as e:
            self.c.apply_move(gid, {"type": "deploy", "kind": "follower", "x": 0, "y": 1, "at": "NL"})
        self.assertEqual((e.exception.code, e.exception.data["reason"]), ("illegal_move", "feature_occupied"))

    def test_a_placement_completes_at_the_end_of_its_action_step(self):
        # BA/C turned 180 (its city S) above the start BA/RCr (its city N)
        # closes a city of two tiles: not in place_tile's result, but in the
        # result of the deploy or pass after it
        for last in ({"type": "pass"}, {"type": "deploy", "kind": "follower", "x": 0, "y": -1, "at": "S"}):
            with self.subTest(last=last["type"]):
                g = self.c.new_game(["ann"], auth=False, tiles=["BA/C", "BA/L"])
                placed = self.c.apply_move(g["game"], {"type": "place_tile", "tile": "BA/C", "x": 0, "y": -1,
                                                       "rot": 180})
                self.assertEqual([e["type"] for e in placed["events"]], ["tile_placed"])
                self.assertEqual(placed["phase"], "action")
                done = self.c.apply_move(g["game"], last)["events"]
                completed = [e for e in done if e["type"] == "feature_completed"]
                self.assertEqual([(e["feature"], e["tiles"]) for e in completed], [("city", 2)])
                scored = [(e["seat"], e["points"]) for e in done if e["type"] == "scored"]
                self.assertEqual(scored, [] if last["type"] == "pass" else [(0, 4)])


class Contrib(Case):
    """carcctl `tiles` and carcd.Client.tiles (contrib/README.md) ask the
    same and print or return the daemon's answer as it stands."""

    def test_client_tiles(self):
        self.assertEqual(self.c.tiles(), self.tiles())
        self.assertEqual(self.c.tiles(["base", "cult"], rot=270), self.tiles(["base", "cult"], 270))
        with self.assertRaises(carcd.Error) as e:
            self.c.tiles(["nope"])
        self.assertEqual(e.exception.code, "invalid_params")

    def test_carcctl_tiles(self):
        where = ["--socket", daemon["d"].unix_path, "--compact"]
        p = run(CARCCTL_CMD + where + ["tiles", "--expansions", "base,hills-sheep", "--rot", "180"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(json.loads(p.stdout), self.tiles(["base", "hills-sheep"], 180))
        p = run(CARCCTL_CMD + where + ["tiles"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(json.loads(p.stdout), self.tiles())
        p = run(CARCCTL_CMD + where + ["tiles", "--rot", "45"])
        self.assertEqual((p.returncode, p.stdout), (1, ""))
        self.assertEqual(p.stderr, "carcctl: invalid_params: `rot` is 0, 90, 180 or 270\n")
        p = run(CARCCTL_CMD + ["tiles", "--help"])
        self.assertEqual(p.returncode, 0)
        for opt in ("--expansions", "--rot"):
            self.assertIn(opt, p.stdout)


if __name__ == "__main__":
    unittest.main()

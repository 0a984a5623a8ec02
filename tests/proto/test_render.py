"""The board renderer (contrib/render.py): crafted states, every tile of the
manifests, a real game with every expansion, the errors a user can meet, and
the tiles it takes from the daemon (carcd's `tiles`) for --game."""

import glob
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import unittest
import xml.etree.ElementTree as ET

import harness

daemon, setUpModule, tearDownModule = harness.module_daemon()

RENDER = os.path.join(harness.TOP_SRCDIR, "contrib", "render.py")
TILES_DIR = os.path.join(harness.TOP_SRCDIR, "engine", "tiles")
SVG = "{http://www.w3.org/2000/svg}"
# the built carcctl, or its source (which finds carcd.py beside it)
CARCCTL_CMD = ([os.environ["CARCCTL"]] if os.environ.get("CARCCTL")
               else [harness.PYTHON, os.path.join(harness.TOP_SRCDIR, "contrib", "carcctl.in")])
TIMEOUT = 60
EXPANSIONS = ["base", "river", "river2", "mini", "inns-cathedrals", "traders-builders", "abbey-mayor",
              "king-robber", "cathars", "cult", "hills-sheep"]


def load_render():
    """render.py as a module, for its palette."""
    spec = importlib.util.spec_from_file_location("render", RENDER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PALETTE = load_render().PALETTE


def render(*args, stdin=None, env=None, cmd=None):
    return subprocess.run((cmd or [harness.PYTHON, RENDER]) + list(args), input=stdin, capture_output=True,
                          text=True, timeout=TIMEOUT, env=env)


def manifest_tile_ids():
    """Every tile id a `tile` line of the manifests names."""
    ids = set()
    for path in glob.glob(os.path.join(TILES_DIR, "*.tiles")):
        with open(path) as f:
            for line in f:
                m = re.match(r"tile\s+(\S+)", line)
                if m:
                    ids.add(m.group(1))
    return sorted(ids)


def start_state(rot=0, figures=(), names=("ann", "bob")):
    """A game just begun: the start tile alone, ann to place a BA/C."""
    return {"game": 1, "seq": 0, "phase": "tile", "seat": 0, "over": False,
            "tile": {"id": "BA/C", "drawn_by": 0}, "tiles_left": 70,
            "seats": [{"seat": i, "name": n, "score": 3 * i, "supply": {"follower": 7}, "tokens": {},
                       "prisoners": []} for i, n in enumerate(names)],
            "board": [{"x": 0, "y": 0, "tile": "BA/RCr", "rot": rot, "figures": list(figures)}],
            "neutral": {"dragon": None, "fairy": None, "count": None}}


def tile_groups(root):
    return [g for g in root.iter(SVG + "g") if g.get("class") == "tile"]


def figure_groups(root):
    return [g for g in root.iter(SVG + "g") if g.get("class") == "figure"]


def translation(g):
    m = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", g.get("transform"))
    return float(m.group(1)), float(m.group(2))


def polygon_points(el):
    return [tuple(float(v) for v in p.split(",")) for p in el.get("points").split()]


def board_lines(text):
    """The lines of the board in a text rendering: after the two header lines and the ruler."""
    return text.split("\n")[3:-1]


class RenderCase(unittest.TestCase):
    def draw(self, state, *args):
        """The rendering of a state given on stdin; it must succeed quietly."""
        p = render("-", *args, stdin=json.dumps(state))
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        return p.stdout

    def svg(self, state, *args):
        return ET.fromstring(self.draw(state, *args))

    def assertFails(self, p, status, start=""):
        """One line on stderr, `render.py: ` first, no traceback, nothing on stdout."""
        self.assertEqual(p.returncode, status, p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertNotIn("Traceback", p.stderr)
        self.assertRegex(p.stderr, r"\Arender\.py: [^\n]+\n\Z")
        self.assertTrue(p.stderr.startswith("render.py: " + start), p.stderr)


class Crafted(RenderCase):
    def test_start_tile_as_text(self):
        head = ("0 ann: 0 | 1 bob: 3\n"
                "game 1, seq 0, phase tile, seat 0 (ann) to play, tile to place BA/C, 70 tiles left\n"
                "     0\n")
        # city north, road west to east
        self.assertEqual(self.draw(start_state(0), "--format", "text"),
                         head + "   #####\n0 -------\n   .....\n")
        # a quarter turn: the city goes east, the road runs north to south
        self.assertEqual(self.draw(start_state(90), "--format", "text"),
                         head + "   ..|..\n0 .  | ##\n   ..|..\n")
        self.assertEqual(self.draw(start_state(180), "--format", "text"),
                         head + "   .....\n0 -------\n   #####\n")
        self.assertEqual(self.draw(start_state(270), "--format", "text"),
                         head + "   ..|..\n0 ## |  .\n   ..|..\n")

    def test_the_turns_tile_after_the_tile_phase_is_not_to_place(self):
        """After the tile phase the state's tile is the turn's tile, on the
        board already: no "tile to place" in the text nor the picture."""
        state = dict(start_state(0), phase="action", tile={"id": "BA/C", "drawn_by": 0})
        text = self.draw(state, "--format", "text")
        self.assertIn("phase action, seat 0 (ann) to play, 70 tiles left\n", text)
        self.assertNotIn("tile to place", text)
        svg = self.svg(state)
        self.assertEqual(svg.findall(".//{http://www.w3.org/2000/svg}g[@class='next-tile']"), [])

    def test_figures_as_text(self):
        figures = [{"id": "1.follower.1", "kind": "follower", "at": "N", "ports": ["N"], "feature": "city"},
                   {"id": "0.follower.1", "kind": "follower", "at": "SL", "ports": ["ER", "SL", "SR", "WL"],
                    "feature": "field"},
                   {"id": "0.large.1", "kind": "large", "at": "W", "ports": ["W", "E"], "feature": "road"}]
        text = self.draw(start_state(0, figures), "--format", "text")
        self.assertEqual(board_lines(text), ["   ##1##", "0 -0-----", "   ....0"])
        # on a turned tile the figures stand where their (turned) ports are
        figures = [dict(figures[0], at="E", ports=["E"])]
        self.assertEqual(board_lines(self.draw(start_state(90, figures), "--format", "text")),
                         ["   ..|..", "0 .  | 1#", "   ..|.."])

    def test_start_tile_as_svg(self):
        size = 64
        for rot, inside in ((0, lambda x, y: y <= 0.3 * size), (90, lambda x, y: x >= 0.7 * size),
                            (180, lambda x, y: y >= 0.7 * size), (270, lambda x, y: x <= 0.3 * size)):
            root = self.svg(start_state(rot))
            groups = tile_groups(root)
            self.assertEqual(len(groups), 1)
            g = groups[0]
            self.assertEqual((g.get("data-x"), g.get("data-y"), g.get("data-tile"), g.get("data-rot")),
                             ("0", "0", "BA/RCr", str(rot)))
            cities = [el for el in g.iter(SVG + "polygon") if el.get("class") == "city"]
            self.assertEqual(len(cities), 1)
            pts = polygon_points(cities[0])
            self.assertTrue(all(inside(x, y) for x, y in pts), (rot, pts))
            # the city spans its whole edge: two corners of the tile
            self.assertEqual(len([p for p in pts if p[0] in (0, size) and p[1] in (0, size)]), 2, pts)
            roads = [el for el in g.iter(SVG + "path") if el.get("class") == "road"]
            self.assertEqual(len(roads), 1)
            self.assertEqual(figure_groups(root), [])
        # the size of a tile follows --tile-size
        g = tile_groups(self.svg(start_state(0), "--tile-size", "100"))[0]
        ground = [el for el in g.iter(SVG + "rect") if el.get("class") == "ground"][0]
        self.assertEqual((ground.get("width"), ground.get("height")), ("100", "100"))
        self.assertEqual(render("-", "--tile-size", "3", stdin="{}").returncode, 2)

    def test_figures_as_svg(self):
        size = 64
        figures = [{"id": "1.follower.2", "kind": "follower", "at": "E", "ports": ["E"], "feature": "city"},
                   {"id": "0.follower.1", "kind": "follower", "at": "W", "ports": ["N", "S"], "feature": "road"},
                   {"id": "0.barn.1", "kind": "barn", "at": "nw", "ports": ["nw"], "feature": "field"}]
        root = self.svg(start_state(90, figures))
        tx, ty = translation(tile_groups(root)[0])
        figs = {g.get("data-id"): g for g in figure_groups(root)}
        self.assertEqual(sorted(figs), ["0.barn.1", "0.follower.1", "1.follower.2"])
        for fid, g in figs.items():
            self.assertEqual(g.get("data-seat"), fid[0])
            shape = [el for el in g if el.tag in (SVG + "circle", SVG + "rect")][0]
            self.assertEqual(shape.get("fill"), PALETTE[int(fid[0])])
        # the city follower stands in the east of the tile, the barn on its north-west corner
        c = figs["1.follower.2"].find(SVG + "circle")
        self.assertGreater(float(c.get("cx")) - tx, 0.6 * size)
        self.assertAlmostEqual(float(c.get("cy")) - ty, 0.5 * size, delta=1)
        r = figs["0.barn.1"].find(SVG + "rect")
        self.assertAlmostEqual(float(r.get("x")) + float(r.get("width")) / 2, tx, delta=1)
        self.assertAlmostEqual(float(r.get("y")) + float(r.get("height")) / 2, ty, delta=1)
        # the caption names each seat beside its colour
        swatches = [el.get("fill") for el in root.iter(SVG + "rect") if el.get("class") == "swatch"]
        self.assertEqual(swatches, list(PALETTE[:2]))

    def test_the_two_enclosed_fields_are_drawn_apart(self):
        """I and II touch no edge; a follower alone on either must still
        show which, and the spots turn with the tile."""
        size = 64
        spots = {}
        for rot in (0, 90):
            for at in ("I", "II"):
                state = start_state(0, [{"id": "0.follower.1", "kind": "follower", "at": at, "ports": [at],
                                         "feature": "field"}])
                state["board"][0].update(tile="AM/CCcc+", rot=rot)
                root = self.svg(state)
                tx, ty = translation(tile_groups(root)[0])
                c = figure_groups(root)[0].find(SVG + "circle")
                spots[rot, at] = (round((float(c.get("cx")) - tx) / size, 2), round((float(c.get("cy")) - ty) / size, 2))
        self.assertEqual(spots[0, "I"], (0.35, 0.35))
        self.assertEqual(spots[0, "II"], (0.65, 0.65))
        self.assertEqual(spots[90, "I"], (0.65, 0.35))   # a quarter turn clockwise
        self.assertEqual(spots[90, "II"], (0.35, 0.65))
        # a tile with I alone (IC/CCCC: four cities round a field) has it in the centre
        state = start_state(0, [{"id": "0.follower.1", "kind": "follower", "at": "I", "ports": ["I"],
                                 "feature": "field"}])
        state["board"][0].update(tile="IC/CCCC", rot=90)
        root = self.svg(state)
        tx, ty = translation(tile_groups(root)[0])
        c = figure_groups(root)[0].find(SVG + "circle")
        self.assertEqual((round((float(c.get("cx")) - tx) / size, 2), round((float(c.get("cy")) - ty) / size, 2)),
                         (0.5, 0.5))

    def test_a_field_that_touches_no_edge_shows_where_its_farmer_stands(self):
        """Cities are drawn meeting in the middle, so a field between them
        (I, II) would have no ground of its own and its farmer would stand
        on a city: each such field has a patch, over the cities, under its
        farmer."""
        size = 64
        enclosed = {"KR/CCcc": ("I", "II"), "AM/CCcc+": ("I", "II"), "AM/CCc+": ("I",), "IC/CCCC": ("I",),
                    "TB/CcCc.w": ("I",)}
        for tile, fields in enclosed.items():
            for rot in (0, 90, 180, 270):
                for at in fields:
                    with self.subTest(tile=tile, rot=rot, at=at):
                        state = start_state(0, [{"id": "0.follower.1", "kind": "follower", "at": at, "ports": [at],
                                                 "feature": "field"}])
                        state["board"][0].update(tile=tile, rot=rot)
                        root = self.svg(state)
                        group = tile_groups(root)[0]
                        tx, ty = translation(group)
                        c = figure_groups(root)[0].find(SVG + "circle")
                        farmer = (round(float(c.get("cx")) - tx, 1), round(float(c.get("cy")) - ty, 1))
                        drawn = [el for el in group.iter() if el.get("class") in ("city", "enclosed-field")]
                        patches = [(round(float(el.get("cx")), 1), round(float(el.get("cy")), 1)) for el in drawn
                                   if el.get("class") == "enclosed-field"]
                        self.assertEqual(len(patches), len(fields))
                        self.assertIn(farmer, patches)
                        self.assertEqual(drawn[-len(fields):], [el for el in drawn
                                                                if el.get("class") == "enclosed-field"])

    def test_names_are_escaped(self):
        names = ('a<b&c"d', "</text><x y='1'>&amp;")
        figures = [{"id": "1.follower.1", "kind": "follower", "at": "N", "ports": ["N"], "feature": "city"}]
        out = self.draw(start_state(0, figures, names=names))
        root = ET.fromstring(out)
        texts = ["".join(el.itertext()) for el in root.iter(SVG + "text")]
        for i, name in enumerate(names):
            self.assertTrue(any(t.startswith("%d %s: %d" % (i, name, 3 * i)) for t in texts), texts)
        self.assertIn('tile to place: BA/C, drawn by a<b&c"d', texts)
        self.assertNotIn("<x", out)
        self.assertEqual(len(tile_groups(root)), 1)
        self.assertEqual(len(figure_groups(root)), 1)
        # the text rendering prints them as they are
        self.assertIn('0 a<b&c"d: 0', self.draw(start_state(0, names=names), "--format", "text"))

    def test_bidi_controls_in_names_turn_nothing_around(self):
        """A seat name may hold bidirectional formatting characters
        (PROTOCOL.md); drawn as they are, U+202E would show the rest of the
        line reversed: the other seats' scores.  Each is drawn as U+FFFD,
        in the text header and the picture's caption alike."""
        for ch in ("\u202e", "\u2067", "\u200f", "\u061c"):
            with self.subTest(ch=ch):
                state = start_state(0, names=("a%sevil" % ch, "bob"))
                text = self.draw(state, "--format", "text")
                self.assertTrue(text.startswith("0 a\ufffdevil: 0 | 1 bob: 3\n"), text)
                svg = self.draw(state)
                self.assertNotIn(ch, svg)
                self.assertIn("a\ufffdevil", svg)

    def test_every_tile_of_the_manifests(self):
        ids = manifest_tile_ids()
        self.assertGreater(len(ids), 200)
        width = 16
        state = {"board": [{"x": i % width - 3, "y": i // width - 5, "tile": t, "rot": (90 * i) % 360,
                            "figures": []} for i, t in enumerate(ids)],
                 "seats": [{"seat": 0, "name": "solo", "score": 0}], "phase": "tile", "over": False}
        root = self.svg(state)
        groups = tile_groups(root)
        self.assertEqual(len(groups), len(ids))
        self.assertEqual(sorted(g.get("data-tile") for g in groups), ids)
        text = self.draw(state, "--format", "text")
        rows = board_lines(text)
        self.assertEqual(len(rows), 3 * ((len(ids) - 1) // width + 1))
        self.assertEqual(max(len(r) for r in rows), 3 + 7 * width)   # "-5 " then 16 blocks
        # one tile at each rotation and a figure on each port there is
        for rot in (0, 90, 180, 270):
            for t in ("AM/A", "CO/7", "RI/s", "TO/L", "CU/SCFR", "HS/CC!.v", "AM/C++"):
                state = {"board": [{"x": 0, "y": 0, "tile": t, "rot": rot, "figures": [
                    {"id": "%d.follower.%d" % (i % 6, i), "kind": "follower", "at": p, "ports": [p]}
                    for i, p in enumerate(["N", "E", "S", "W", "NL", "ER", "SR", "WL", "cloister", "I", "nw"])]}]}
                self.assertEqual(len(figure_groups(self.svg(state))), 11)
                self.assertEqual(sum(ch.isdigit() for line in board_lines(self.draw(state, "--format", "text"))
                                     for ch in line[2:]), 11)

    def test_every_hill_vineyard_and_volcano_is_marked_in_text(self):
        """--help: the centre shows "h hill, v vineyard, V volcano", and
        these before the city, road or river mark there: every tile of the
        manifests with such a symbol, at each rotation, has its letter in
        the middle of its block."""
        marked = {}
        for path in glob.glob(os.path.join(TILES_DIR, "*.tiles")):
            tile = None
            with open(path) as f:
                for line in f:
                    m = re.match(r"tile\s+(\S+)", line)
                    if m:
                        tile = m.group(1)
                    m = re.match(r"\s+symbol\s+(.*)", line)
                    if m and tile:
                        for sym, ch in (("hill", "h"), ("vineyard", "v"), ("volcano", "V")):
                            if sym in m.group(1).split():
                                marked[tile] = ch
        self.assertGreaterEqual(len([t for t, ch in marked.items() if ch == "h"]), 8)
        for rot in (0, 90, 180, 270):
            for tile, ch in sorted(marked.items()):
                with self.subTest(tile=tile, rot=rot):
                    state = {"board": [{"x": 0, "y": 0, "tile": tile, "rot": rot, "figures": []}]}
                    middle = board_lines(self.draw(state, "--format", "text"))[1]
                    self.assertEqual(middle[2 + 3], ch, middle)

    def test_bad_input(self):
        cases = [("{not json", "stdin is not JSON"),
                 ("[]", "not a carcd state"),
                 ('{"game": 1}', "not a carcd state: no `board` list"),
                 ('{"board": {}}', "not a carcd state: no `board` list"),
                 ('{"board": [{"x": 0, "y": 0, "tile": "BA/C"}]}', "not a carcd state: board entry 0 has no `rot`"),
                 ('{"board": [{"x": 0, "y": 0.5, "tile": "BA/C", "rot": 0}]}', "not a carcd state: board entry 0: x"),
                 ('{"board": [{"x": "0", "y": 0, "tile": "BA/C", "rot": 0}]}', "not a carcd state: board entry 0: x"),
                 ('{"board": [{"x": 0, "y": 0, "tile": "BA/C", "rot": 45}]}',
                  "not a carcd state: board entry 0: `rot` must be 0, 90, 180 or 270, not 45"),
                 ('{"board": [{"x": 0, "y": 0, "tile": "BA/C", "rot": 0}, {"x": 0, "y": 0, "tile": "BA/L", "rot": 0}]}',
                  "not a carcd state: board entries 0 and 1"),
                 ('{"board": [{"x": 0, "y": 0, "tile": "BA/C", "rot": 0}, '
                  '{"x": 100000000000000000000, "y": 0, "tile": "BA/L", "rot": 0}]}', "not a carcd state: the board")]
        for data, message in cases:
            for fmt in ("svg", "text"):
                with self.subTest(data=data, fmt=fmt):
                    self.assertFails(render("-", "--format", fmt, stdin=data), 2, message)
        self.assertFails(render("/nonexistent/state.json"), 2, "cannot read /nonexistent/state.json")
        self.assertFails(render("-", stdin=json.dumps({"board": [{"x": 0, "y": 0, "tile": "ZZ/9", "rot": 0}]})), 1,
                         "unknown tile 'ZZ/9' (no manifest under %s describes it)" % os.path.normpath(TILES_DIR))
        # the tile to place must be known too
        self.assertFails(render("-", stdin=json.dumps(dict(start_state(), tile={"id": "BA/Nope", "drawn_by": 0}))),
                         1, "unknown tile 'BA/Nope'")
        self.assertFails(render("-", "--tiles", "/nonexistent", stdin=json.dumps(start_state())), 1,
                         "no tile manifests (*.tiles) in /nonexistent")
        self.assertFails(render("-", "--output", "/nonexistent/board.svg", stdin=json.dumps(start_state())), 1,
                         "cannot write /nonexistent/board.svg")
        # usage: no state at all, or a file and --game both
        self.assertEqual(render().returncode, 2)
        self.assertEqual(render("x.json", "--game", "1").returncode, 2)

    def test_where_the_manifests_are_found(self):
        with tempfile.TemporaryDirectory() as d:
            state_file = os.path.join(d, "state.json")
            with open(state_file, "w") as f:
                json.dump(start_state(90), f)
            want = self.draw(start_state(90), "--format", "text")
            # installed: render.py with the manifests in tiles/ beside it
            inst = os.path.join(d, "share")
            os.makedirs(inst)
            shutil.copy(RENDER, inst)
            cmd = [harness.PYTHON, os.path.join(inst, "render.py")]
            env = {k: v for k, v in os.environ.items() if k != "CARCD_TILES"}
            p = render(state_file, "--format", "text", cmd=cmd, env=env)
            self.assertFails(p, 1, "no tile manifests found")
            self.assertIn(os.path.join(inst, "tiles"), p.stderr)
            shutil.copytree(TILES_DIR, os.path.join(inst, "tiles"))
            p = render(state_file, "--format", "text", cmd=cmd, env=env)
            self.assertEqual((p.returncode, p.stdout), (0, want), p.stderr)
            # $CARCD_TILES comes before them, --tiles before both
            empty = os.path.join(d, "empty")
            os.makedirs(empty)
            p = render(state_file, cmd=cmd, env=dict(env, CARCD_TILES=empty))
            self.assertFails(p, 1, "no tile manifests (*.tiles) in %s ($CARCD_TILES)" % empty)
            p = render(state_file, "--format", "text", "--tiles", TILES_DIR, cmd=cmd, env=dict(env, CARCD_TILES=empty))
            self.assertEqual((p.returncode, p.stdout), (0, want), p.stderr)
            # a manifest directory with only the base game does not know the river
            base = os.path.join(d, "base")
            os.makedirs(base)
            shutil.copy(os.path.join(TILES_DIR, "basic.tiles"), base)
            p = render(state_file, "--tiles", base, cmd=cmd, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(state_file, "w") as f:
                json.dump(dict(start_state(), board=[{"x": 0, "y": 0, "tile": "RI/s", "rot": 0}]), f)
            self.assertFails(render(state_file, "--tiles", base, cmd=cmd, env=env), 1, "unknown tile 'RI/s'")


class RealGame(RenderCase):
    """A game with every expansion, played to its end with random moves and drawn on the way."""

    @classmethod
    def setUpClass(cls):
        cls.d = daemon["d"]
        cls.states = []
        with cls.d.client() as c:
            g = c.new_game(["ann", "bob", "cy<&>", "dee"], expansions=EXPANSIONS, auth=False, seed=11)
            cls.game = g["game"]
            rng = harness.new_rng("test_render.RealGame")
            record = harness.play_random_game(lambda lm, move: c.apply_move(cls.game, move, seq=lm["seq"]),
                                              lambda: c.legal_moves(cls.game), rng)
            cls.moves = len(record)
            cls.final = c.state(cls.game)
        # the same game again, stopped on the way
        with cls.d.client() as c:
            g = c.new_game(["ann", "bob", "cy<&>", "dee"], expansions=EXPANSIONS, auth=False, seed=12)
            rng = harness.new_rng("test_render.RealGame.partial")
            for stop in (0, 20, 60, 120):
                while True:
                    st = c.state(g["game"])
                    if st["seq"] >= stop or st["over"]:
                        break
                    lm = c.legal_moves(g["game"])
                    c.apply_move(g["game"], rng.choice(lm["moves"]), seq=lm["seq"])
                cls.states.append(st)
        cls.states.append(cls.final)

    def check_svg(self, state, root):
        board = state["board"]
        groups = tile_groups(root)
        self.assertEqual(len(groups), len(board))
        self.assertEqual(sorted((int(g.get("data-x")), int(g.get("data-y")), g.get("data-tile"),
                                 int(g.get("data-rot"))) for g in groups),
                         sorted((t["x"], t["y"], t["tile"], t["rot"]) for t in board))
        figs = [f for t in board for f in t["figures"]]
        groups = figure_groups(root)
        self.assertEqual(len(groups), len(figs))
        self.assertEqual(sorted(g.get("data-id") for g in groups), sorted(f["id"] for f in figs))
        used = set()
        for g in groups:
            seat = int(g.get("data-seat"))
            self.assertEqual(g.get("data-id").split(".")[0], str(seat))
            shape = [el for el in g if el.tag in (SVG + "circle", SVG + "rect")][0]
            self.assertEqual(shape.get("fill"), PALETTE[seat])
            used.add(seat)
        self.assertEqual(used, {int(f["id"].split(".")[0]) for f in figs})
        captions = ["".join(el.itertext()) for el in root.iter(SVG + "text")]
        for s in state["seats"]:
            self.assertTrue(any(t.startswith("%d %s: %d" % (s["seat"], s["name"], s["score"])) for t in captions),
                            (s, captions))

    def check_text(self, state, text):
        lines = text.split("\n")
        self.assertEqual(lines[-1], "")
        self.assertTrue(all(line == line.rstrip() for line in lines))
        for s in state["seats"]:
            self.assertIn("%d %s: %d" % (s["seat"], s["name"], s["score"]), lines[0])
        self.assertIn("game over" if state["over"] else "phase %s" % state["phase"], lines[1])
        xs, ys = [t["x"] for t in state["board"]], [t["y"] for t in state["board"]]
        w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
        rows = board_lines(text)
        self.assertEqual(len(rows), 3 * h)
        margin = max(len(str(min(ys))), len(str(max(ys)))) + 1
        # the easternmost tile's east edge ends the longest line
        self.assertEqual(max(len(r) for r in rows), margin + 7 * w)
        self.assertEqual([r[:margin].strip() for r in rows[1::3]], [str(y) for y in range(min(ys), max(ys) + 1)])
        self.assertIn(str(min(xs)), lines[2])
        self.assertIn(str(max(xs)), lines[2])
        # every figure shows as its seat's digit, and no other digit is on the board
        digits = sorted(ch for r in rows for ch in r[margin:] if ch.isdigit())
        self.assertEqual(digits, sorted(f["id"].split(".")[0] for t in state["board"] for f in t["figures"]))
        # each tile's block is where its coordinates say: its middle row holds its west edge
        for t in state["board"]:
            col = margin + 7 * (t["x"] - min(xs))
            self.assertNotEqual(rows[3 * (t["y"] - min(ys)) + 1][col:col + 7].strip(), "", t)

    def test_drawn_on_the_way_and_at_the_end(self):
        self.assertTrue(self.final["over"])
        self.assertGreater(len(self.final["board"]), 50)
        self.assertTrue(any(t["figures"] for t in self.final["board"]))
        with tempfile.TemporaryDirectory() as d:
            for i, state in enumerate(self.states):
                with self.subTest(seq=state["seq"]):
                    path = os.path.join(d, "state%d.json" % i)
                    with open(path, "w") as f:
                        json.dump(state, f)
                    out = os.path.join(d, "board%d.svg" % i)
                    p = render(path, "--output", out)
                    self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))
                    self.check_svg(state, ET.parse(out).getroot())
                    p = render(path, "--format", "text")
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.check_text(state, p.stdout)

    def test_from_the_daemon(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "state.json")
            p = subprocess.run(CARCCTL_CMD + ["--address", self.d.unix_address, "state", str(self.game)],
                               capture_output=True, text=True, timeout=TIMEOUT)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(path, "w") as f:
                f.write(p.stdout)
            for fmt in ("svg", "text"):
                want = render(path, "--format", fmt)
                self.assertEqual(want.returncode, 0, want.stderr)
                for where in (["--address", self.d.unix_address],
                              ["--address", self.d.tcp_address, "--encoding", "json"]):
                    got = render("--game", str(self.game), "--format", fmt, *where)
                    self.assertEqual((got.returncode, got.stderr), (0, ""))
                    self.assertEqual(got.stdout, want.stdout)
                got = render("--game", str(self.game), "--format", fmt,
                             env=dict(os.environ, CARCD_ADDRESS=self.d.unix_address))
                self.assertEqual(got.stdout, want.stdout, got.stderr)
            with open(path) as f:
                self.assertEqual(render("-", "--format", "text", stdin=f.read()).stdout, want.stdout)

    def test_daemon_errors(self):
        p = render("--game", "987654321", "--address", self.d.unix_address)
        self.assertFails(p, 1, "no_such_game: ")
        with tempfile.TemporaryDirectory() as d:
            p = render("--game", str(self.game), "--address", "unix:" + os.path.join(d, "no.sock"))
            self.assertFails(p, 3, "cannot connect to unix:")
        p = render("--game", str(self.game), "--address", "tcp:127.0.0.1:%d" % harness.free_tcp_port())
        self.assertFails(p, 3, "cannot connect to tcp:127.0.0.1:")
        self.assertEqual(render("--game", "1", "--address", "nowhere").returncode, 2)


def without_manifests(d):
    """render.py copied alone into directory d, with no manifests beside it
    (nor in ../engine/tiles), the client found on PYTHONPATH as an installed
    one would be: its command, and an environment without $CARCD_TILES."""
    shutil.copy(RENDER, d)
    env = {k: v for k, v in os.environ.items() if k != "CARCD_TILES"}
    env["PYTHONPATH"] = os.path.join(harness.TOP_SRCDIR, "contrib", "python")
    return [harness.PYTHON, os.path.join(d, "render.py")], env


class OldCarcd:
    """A carcd from before the method `tiles`, in front of the test daemon:
    a Unix socket speaking JSON lines that passes every request on to the
    daemon but `tiles`, which it answers with the error `code`
    (unknown_method, as an older carcd does).  .asked: the methods asked."""

    def __init__(self, d, code="unknown_method"):
        self.daemon, self.code = d, code
        self.asked = []
        self.dir = tempfile.mkdtemp(prefix="carcd-old-")
        self.address = "unix:" + os.path.join(self.dir, "old.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.address[len("unix:"):])
        self.sock.listen(8)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:   # closed by __exit__
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn):
        try:
            conn.settimeout(TIMEOUT)
            with conn, conn.makefile("rwb") as f, self.daemon.client(encoding="json") as upstream:
                for line in f:
                    _, msgid, method, params = json.loads(line)
                    self.asked.append(method)
                    if method == "tiles":
                        reply = [1, msgid, {"code": self.code, "message": "no method `tiles` here"}, None]
                    else:
                        try:
                            reply = [1, msgid, None, upstream.call(method, params)]
                        except harness.carcd.Error as e:
                            reply = [1, msgid, {"code": e.code, "message": e.message}, None]
                    f.write(json.dumps(reply).encode() + b"\n")
                    f.flush()
        except (OSError, ValueError, harness.carcd.ConnectionClosed):
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sock.shutdown(socket.SHUT_RDWR)   # wakes the accept()
        self.sock.close()
        self.thread.join(TIMEOUT)
        shutil.rmtree(self.dir, ignore_errors=True)


class TilesFromTheDaemon(RenderCase):
    """With --game and neither --tiles nor $CARCD_TILES, what a tile looks
    like comes from the daemon (`tiles`): the picture must be the one the
    manifests give, byte for byte."""

    @classmethod
    def setUpClass(cls):
        cls.d = daemon["d"]
        cls.games = {}
        with cls.d.client() as c:
            for name, expansions, seed, moves in (("base", ["base"], 21, None),
                                                  ("base, on the way", ["base"], 22, 30),
                                                  ("every expansion", EXPANSIONS, 23, None),
                                                  ("hills and the abbey", ["base", "hills-sheep", "abbey-mayor"], 24,
                                                   None)):
                game = c.new_game(["ann", "bob", "cy"], expansions=expansions, auth=False, seed=seed)["game"]
                rng = harness.new_rng("test_render.TilesFromTheDaemon." + name)
                for _ in range(moves if moves is not None else 5000):
                    lm = c.legal_moves(game)
                    if lm["phase"] == "over":
                        break
                    # each seat places its abbey as soon as it may
                    abbey = [m for m in lm["moves"] if m["type"] == "place_abbey"]
                    c.apply_move(game, rng.choice(abbey or lm["moves"]), seq=lm["seq"])
                cls.games[name] = (game, c.state(game))

    def test_the_same_picture_as_from_the_manifests(self):
        # the games hold what they are meant to: figures, tiles of most sets, abbeys, hills
        for name, (game, state) in self.games.items():
            self.assertTrue(any(t["figures"] for t in state["board"]), name)
        tiles = [t["tile"] for t in self.games["hills and the abbey"][1]["board"]]
        self.assertIn("AM/A", tiles)
        self.assertTrue(any(re.search(r"\.h(\.|$)", t) for t in tiles), tiles)
        tiles = {t["tile"].split("/")[0] for t in self.games["every expansion"][1]["board"]}
        self.assertGreaterEqual(len(tiles), 8, tiles)
        with tempfile.TemporaryDirectory() as d:
            cmd, env = without_manifests(d)
            for name, (game, state) in self.games.items():
                for fmt in ("svg", "text"):
                    for where in (["--address", self.d.unix_address],
                                  ["--address", self.d.tcp_address, "--encoding", "json"]):
                        with self.subTest(game=name, fmt=fmt, where=where[1]):
                            want = render("--game", str(game), "--format", fmt, "--tiles", TILES_DIR, *where)
                            self.assertEqual((want.returncode, want.stderr), (0, ""))
                            got = render("--game", str(game), "--format", fmt, *where, cmd=cmd, env=env)
                            self.assertEqual((got.returncode, got.stderr), (0, ""))
                            self.assertEqual(got.stdout, want.stdout)
                            # the source tree's render.py, manifests beside it, takes the daemon's too
                            got = render("--game", str(game), "--format", fmt, *where, env=env)
                            self.assertEqual((got.returncode, got.stdout, got.stderr), (0, want.stdout, ""))

    def test_every_tile_the_daemon_describes(self):
        """Every tile `tiles` describes for every available expansion, at each
        rotation, with a figure on each of its features: drawn alike from
        the daemon's description and from the manifests."""
        mod = load_render()
        manifests = mod.load_manifests(TILES_DIR)
        with self.d.client() as c:
            described = mod.daemon_tiles(c, harness.carcd)
        self.assertGreater(len(described), 130)
        board = []
        for i, tid in enumerate(sorted(described)):
            for rot in (0, 90, 180, 270):
                n = len(board)
                figures = [{"id": "%d.follower.%d" % (k % 4, n), "kind": "follower", "at": p}
                           for k, p in enumerate(f.ports[0] if f.ports else f.kind for f in manifests[tid].features)]
                board.append({"x": n % 24, "y": n // 24, "tile": tid, "rot": rot, "figures": figures})
        state = {"board": board, "seats": [{"seat": 0, "name": "solo", "score": 0}], "phase": "tile",
                 "over": False, "tile": {"id": "BA/CFc+", "drawn_by": 0}}
        self.assertEqual(mod.render_svg(state, described, 64), mod.render_svg(state, manifests, 64))
        self.assertEqual(mod.render_text(state, described), mod.render_text(state, manifests))

    def test_the_sides_inside_the_city_of_carcassonne(self):
        """The wire does not list the manifests' `inner` ports (sides inside
        the City of Carcassonne, whose `count` no carcd offers yet): render.py
        tells them from the features, as every manifest has them."""
        mod = load_render()
        manifests = mod.load_manifests(TILES_DIR)
        self.assertGreaterEqual(len([t for t in manifests.values() if t.inner]), 12)
        for tid, t in sorted(manifests.items()):
            with self.subTest(tile=tid):
                self.assertEqual(sorted(mod.inner_ports(t.features, t.symbols)), sorted(t.inner))

    def test_without_manifests_at_hand(self):
        """render.py alone in a directory, no --tiles, no $CARCD_TILES: --game
        draws; a state file still needs manifests; --tiles and
        $CARCD_TILES still come first when given."""
        game, state = self.games["every expansion"]
        want = render("--game", str(game), "--format", "text", "--tiles", TILES_DIR, "--address", self.d.unix_address)
        self.assertEqual(want.returncode, 0, want.stderr)
        with tempfile.TemporaryDirectory() as d:
            cmd, env = without_manifests(d)
            self.assertFalse(glob.glob(os.path.join(d, "*", "*.tiles")))
            p = render("--game", str(game), "--format", "text", "--address", self.d.unix_address, cmd=cmd, env=env)
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, want.stdout, ""))
            # a state read from a file or stdin: the manifests, as before
            path = os.path.join(d, "state.json")
            with open(path, "w") as f:
                json.dump(state, f)
            for args, stdin in (([path], None), (["-"], json.dumps(state))):
                p = render(*args, "--format", "text", cmd=cmd, env=env, stdin=stdin)
                self.assertFails(p, 1, "no tile manifests found: looked in %s and %s;"
                                 % (os.path.normpath(os.path.join(d, "..", "engine", "tiles")),
                                    os.path.join(d, "tiles")))
            # --tiles or $CARCD_TILES: those manifests, not the daemon's tiles
            empty = os.path.join(d, "empty")
            os.makedirs(empty)
            p = render("--game", str(game), "--address", self.d.unix_address, "--tiles", empty, cmd=cmd, env=env)
            self.assertFails(p, 1, "no tile manifests (*.tiles) in %s (--tiles)" % empty)
            p = render("--game", str(game), "--address", self.d.unix_address, cmd=cmd, env=dict(env, CARCD_TILES=empty))
            self.assertFails(p, 1, "no tile manifests (*.tiles) in %s ($CARCD_TILES)" % empty)
            base = os.path.join(d, "base")
            os.makedirs(base)
            shutil.copy(os.path.join(TILES_DIR, "basic.tiles"), base)
            p = render("--game", str(game), "--address", self.d.unix_address, "--tiles", base, cmd=cmd, env=env)
            self.assertFails(p, 1, "unknown tile ")
            self.assertIn("(no manifest under %s describes it)" % base, p.stderr)
            p = render("--game", str(game), "--format", "text", "--address", self.d.unix_address, cmd=cmd,
                       env=dict(env, CARCD_TILES=TILES_DIR))
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, want.stdout, ""))

    def test_a_carcd_without_tiles(self):
        """A carcd from before `tiles` answers it `unknown_method`: render.py
        then looks for the manifests as it always did."""
        game, state = self.games["hills and the abbey"]
        want = render("--game", str(game), "--tiles", TILES_DIR, "--address", self.d.unix_address)
        self.assertEqual(want.returncode, 0, want.stderr)
        with OldCarcd(self.d) as old, tempfile.TemporaryDirectory() as d:
            # the source tree: ../engine/tiles beside render.py
            env = {k: v for k, v in os.environ.items() if k != "CARCD_TILES"}
            p = render("--game", str(game), "--address", old.address, "--encoding", "json", env=env)
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, want.stdout, ""))
            self.assertIn("tiles", old.asked)
            # alone, with no manifests at hand: it says so, as for a state file
            cmd, env = without_manifests(d)
            p = render("--game", str(game), "--address", old.address, "--encoding", "json", cmd=cmd, env=env)
            self.assertFails(p, 1, "no tile manifests found: looked in ")
            # and with $CARCD_TILES it does not ask for `tiles` at all
            del old.asked[:]
            p = render("--game", str(game), "--address", old.address, "--encoding", "json", cmd=cmd,
                       env=dict(env, CARCD_TILES=TILES_DIR))
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, want.stdout, ""))
            self.assertEqual(old.asked, ["state"])
        # any other refusal of `tiles` is the daemon's, said as such
        with OldCarcd(self.d, code="internal") as odd, tempfile.TemporaryDirectory() as d:
            cmd, env = without_manifests(d)
            p = render("--game", str(game), "--address", odd.address, "--encoding", "json", cmd=cmd, env=env)
            self.assertFails(p, 1, "internal: no method `tiles` here")


if __name__ == "__main__":
    unittest.main()

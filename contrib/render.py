#!/usr/bin/python3
"""render.py - draw the board of a carcd game, as SVG or as plain text.

  render.py [STATE.json | -]                  a state, as the `state` method returns it
  render.py --game G [--address A] [--encoding msgpack|json]
            [--format svg|text] [--output FILE] [--tiles DIR] [--tile-size PX]

The state is the public one of proto/PROTOCOL.md ("The state"): every
placed tile with its rotation and the figures on it, the seats with their
scores, the phase and the tile to place.  What a tile looks like comes,
for a state fetched with --game, from the daemon itself (its method
`tiles`), so that a game is drawn on a machine with no manifests; and
otherwise from the project's own tile manifests (engine/tiles/*.tiles),
found under --tiles DIR, $CARCD_TILES, ../engine/tiles beside this script
(a source tree) or tiles/ beside it (where `make install` puts them): for a
state read from a file or stdin, with --game when --tiles or $CARCD_TILES is
given, and from a carcd too old to have `tiles` (it answers
`unknown_method`).  Both draw a tile alike.

SVG (the default) draws each tile as a square of --tile-size pixels, one
<g class="tile" data-x data-y data-tile data-rot> each, and each figure as
a <g class="figure" data-id data-seat data-kind> in its seat's colour, under
a caption with the seats, their scores, the phase and the tile to place.
Text draws each tile as a block of 7 columns and 3 rows (see --help).

Exit status: 0 drawn; 1 a tile no manifest (or the daemon) describes, no
manifests, the output not writable or the daemon refused ("render.py: CODE:
message"); 2 bad usage or input that is no state; 3 the daemon cannot be
reached.
"""

import argparse
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = "render.py"

EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 1, 2, 3

EDGES = ("N", "E", "S", "W")
HALVES = ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR")
ROTS = (0, 90, 180, 270)
# no carcd board is wider or taller (start tiles lie within 1000 of the origin, 320 tiles in all)
MAX_SPAN = 2500
# a quarter turn clockwise
TURN = {"N": "E", "E": "S", "S": "W", "W": "N",
        "NL": "EL", "EL": "SL", "SL": "WL", "WL": "NL",
        "NR": "ER", "ER": "SR", "SR": "WR", "WR": "NR",
        "nw": "ne", "ne": "se", "se": "sw", "sw": "nw"}
HALVES_OF = {"N": ("NL", "NR"), "E": ("EL", "ER"), "S": ("SL", "SR"), "W": ("WL", "WR")}
EDGE_OF = {h: e for e, hs in HALVES_OF.items() for h in hs}

# Seat colours: seat n takes PALETTE[n % 6].
PALETTE = ("#d62828", "#1f5fbf", "#f2c230", "#1d1d1d", "#8e44ad", "#ff7eb6")
UNKNOWN_SEAT_COLOUR = "#9a9a9a"
KIND_LETTERS = {"follower": "F", "large": "L", "wagon": "W", "mayor": "M", "builder": "B",
                "pig": "P", "barn": "R", "shepherd": "S"}

# Short words for what a tile's features and symbols carry, drawn small on the tile.
FLAG_MARKS = (("inn", "inn"), ("cathedral", "cath"), ("besieged", "siege"), ("princess", "princess"),
              ("pigherd", "pigs"))
SYMBOL_MARKS = {"volcano": "volcano", "dragon": "dragon", "portal": "portal", "hill": "hill",
                "vineyard": "vineyard", "fair": "fair", "garden": "garden", "lake": "lake"}

TEXT_HELP = """\
text format (--format text):
  a line with each seat (number, name, score), a line with the phase and the
  tile to place, a ruler of x coordinates, then the board: every tile is a
  block of 7 columns and 3 rows, its y coordinate on the left; places with no
  tile are blank.  North is up, the edges of a block are its tile's edges:

       .....    top row: the north edge (its west half, middle, east half)
      W  c  E   middle row: the west edge, the centre, the east edge
       .....    bottom row: the south edge (its west half, middle, east half)

  #  city (a city reaching the middle joins its edges there)   *  pennant
  -  |  road (+ where roads bend, meet or end)    ~  river (o its spring or lake)
  .  field    :  inside the City of Carcassonne    =  abbey wall
  centre: C cloister, S shrine, A abbey, T tower, h hill, v vineyard, V volcano
       (these before the city, road or river mark there)
  0-5  a figure of that seat where it stands: on the middle of the north or
       south edge, or just inside the west or east one, for that edge's
       feature; on a half of an edge for a field (the block's corners hold the
       halves of the west and east edges); beside the centre for a cloister;
       left of the centre for a field that touches no edge (I), right of it
       for a second one (II), whatever city is drawn there; a barn on its
       corner.  A figure takes the next free cell if its own is
       taken.

where tiles come from: with --game, the daemon's own description of them
  (its method `tiles`), unless --tiles or $CARCD_TILES is given; otherwise,
  and from a carcd without `tiles`, the tile manifests (*.tiles) of --tiles
  DIR, $CARCD_TILES, ../engine/tiles or tiles/ beside this script.

exit status: 0 drawn; 1 a tile no manifest (or the daemon) describes, no
manifests, output not writable, or the daemon refused ("render.py: CODE:
message"); 2 bad usage or input that is not a state; 3 the daemon cannot be
reached.
"""


class Failure(Exception):
    """Something to tell the user in one line, and the exit status to give."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


# ---- tile manifests ------------------------------------------------------------------

class Feature:
    def __init__(self, kind, ports, attrs):
        self.kind = kind
        self.ports = ports          # in the reference orientation
        self.attrs = attrs          # name -> value (True for a bare flag)


class TileType:
    def __init__(self, tile_id):
        self.id = tile_id
        self.features = []
        self.symbols = []
        self.inner = []
        self.quarters = []
        self.described = False


def find_manifest_dir(option):
    """The directory whose *.tiles to read: --tiles, $CARCD_TILES, the source tree, the installed layout."""
    if option is not None:
        candidates, given = [option], "--tiles"
    elif os.environ.get("CARCD_TILES"):
        candidates, given = [os.environ["CARCD_TILES"]], "$CARCD_TILES"
    else:
        candidates, given = [os.path.join(HERE, "..", "engine", "tiles"), os.path.join(HERE, "tiles")], None
    for d in candidates:
        if os.path.isdir(d) and glob.glob(os.path.join(d, "*.tiles")):
            return os.path.normpath(d)
    if given:
        raise Failure("no tile manifests (*.tiles) in %s (%s)" % (candidates[0], given), EXIT_FAILED)
    raise Failure("no tile manifests found: looked in %s; give --tiles DIR or set $CARCD_TILES"
                  % " and ".join(os.path.normpath(d) for d in candidates), EXIT_FAILED)


def load_manifests(directory):
    """Every tile type described in directory/*.tiles: {id: TileType}.

    A tile described in an earlier set is only referenced later (a `tile`
    line with no lines under it): the first description counts."""
    tiles = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.tiles"))):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise Failure("cannot read %s: %s" % (path, e.strerror or e), EXIT_FAILED)
        current = None      # the TileType the indented lines describe, or None
        for raw in lines:
            text = raw.split("#", 1)[0]
            words = text.split()
            if not words:
                continue
            if not raw[:1].isspace():
                current = None
                if words[0] == "tile" and len(words) >= 2:
                    t = tiles.setdefault(words[1], TileType(words[1]))
                    current = None if t.described else t
                continue
            if current is None:
                continue
            current.described = True
            head, rest = words[0], words[1:]
            if head == "symbol":
                current.symbols.extend(rest)
            elif head == "inner":
                current.inner.extend(rest)
            elif head == "quarters":
                current.quarters.extend(rest)
            elif head == "max":
                pass
            else:
                ports, attrs = [], {}
                for w in rest:
                    if w in EDGES or w in HALVES or w in ("I", "II", "cloister", "tower"):
                        ports.append(w)
                    elif "=" in w:
                        k, _, v = w.partition("=")
                        attrs[k] = v
                    else:
                        attrs[w] = True
                current.features.append(Feature(head, ports, attrs))
    return tiles


# ---- tile geometry from the daemon ---------------------------------------------------
#
# carcd's own method `tiles` (PROTOCOL.md section 4) tells what the manifests
# say, in the wire's words.  wire_tiles() turns its answer into the TileType
# model load_manifests() makes, so that a board drawn from either is the
# same picture, byte for byte.

# the wire's marks of a feature (each `true`) and the manifest attribute each one is
WIRE_FLAGS = (("inn", "inn"), ("cathedral", "cathedral"), ("besieged", "besieged"),
              ("princess", "princess"), ("cult_place", "shrine"), ("pig_herd", "pigherd"))
# a feature that touches no edge the manifests give no port (a cloister, an
# abbey, a cult place, a tower foundation), where the wire names it by its kind
KIND_PORTS = ("cloister", "tower")


def inner_ports(features, symbols):
    """The edges and half-edges of a tile that belong to no feature: the
    manifests' `inner` (the sides inside the City of Carcassonne), which the
    wire does not list.  A whole edge when no feature touches it, else each
    half no field takes on an edge that no city takes (a city's edge has no
    fields on its halves).  The abbey's sides are walls: nothing is inner."""
    if "abbey" in symbols:
        return []
    taken = set(p for f in features for p in f.ports)
    cities = set(p for f in features if f.kind == "city" for p in f.ports)
    inner = []
    for e in EDGES:
        halves = HALVES_OF[e]
        if e not in taken and not any(h in taken for h in halves):
            inner.append(e)
        elif e not in cities:
            inner.extend(h for h in halves if h not in taken)
    return inner


def wire_feature(f):
    """A feature of the `tiles` answer as a Feature of the manifests' model:
    its kind, its ports (in the wire's order, N E S W NL NR...: the drawing
    does not depend on it) and the attributes the drawing shows."""
    kind = f["feature"]
    if not isinstance(kind, str) or not isinstance(f["ports"], list):
        raise ValueError("a feature with no kind or ports: %r" % (f,))
    ports = [p for p in f["ports"] if p not in KIND_PORTS]
    attrs = {}
    n = f.get("pennants")
    if is_int(n) and n > 0:
        if n == 1:
            attrs["pennant"] = True      # the manifests write one as `pennant`
        else:
            attrs["pennants"] = str(n)
    if isinstance(f.get("goods"), str):
        attrs["goods"] = f["goods"]
    for wire, manifest in WIRE_FLAGS:
        if f.get(wire) is True:
            attrs[manifest] = True
    # `reaches` and `borders` (the manifests' multi= and borders=) are not drawn
    return Feature(kind, ports, attrs)


def wire_tiles(answer):
    """The `tiles` answer (at rot 0: the manifests' reference orientation) as {id: TileType}.

    The wire has no `quarters` (the City of Carcassonne's quarters bound to
    CO/7, drawn as the mark "quarters"): a daemon that offers `count` would
    show that tile without it."""
    tiles = {}
    for t in answer["tiles"]:
        tid = t["id"]
        if not isinstance(tid, str) or tid in tiles:
            raise ValueError("a tile with no id, or given twice: %r" % (tid,))
        ttype = TileType(tid)
        ttype.described = True
        ttype.features = [wire_feature(f) for f in t["features"]]
        ttype.symbols = [s for s in t["symbols"] if isinstance(s, str)]
        ttype.inner = inner_ports(ttype.features, ttype.symbols)
        tiles[tid] = ttype
    return tiles


def daemon_tiles(client, carcd):
    """What every tile the daemon knows looks like, from its `tiles`; None
    when the daemon has no such method (a carcd older than it).

    One call for every expansion `hello` says is available, rather than
    for the game's own expansions (`history`'s `setup`): `hello` is a few
    hundred bytes where `history` holds every move and event of the game,
    and the answer (some 140 tile types) describes every tile a game on
    this daemon can show, whatever tile sets the game's tiles come from: a
    tile is described alike whichever expansions are asked."""
    hello = client.hello()
    names = [e.get("name") for e in hello.get("expansions") or []
             if isinstance(e, dict) and isinstance(e.get("name"), str) and e.get("available") is not False]
    try:
        answer = client.tiles(expansions=names or None, rot=0)
    except carcd.Error as e:
        if e.code == "unknown_method":
            return None
        raise
    try:
        return wire_tiles(answer)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise Failure("the `tiles` answer of carcd at %s cannot be read: %s: %s"
                      % (client.address, type(e).__name__, e), EXIT_FAILED)


def manifest_tiles(option):
    """The tile types of the manifests --tiles (option), $CARCD_TILES... name, and
    what check_tiles says of a tile none describes."""
    directory = find_manifest_dir(option)
    return load_manifests(directory), "no manifest under %s describes it" % directory


def turn(port, rot):
    for _ in range((rot // 90) % 4):
        port = TURN.get(port, port)
    return port


class Placed:
    """A tile type as it lies on the board: its features' ports turned by rot."""

    def __init__(self, ttype, rot):
        self.type = ttype
        self.rot = rot
        self.features = [Feature(f.kind, [turn(p, rot) for p in f.ports], f.attrs) for f in ttype.features]
        self.inner = set(turn(p, rot) for p in ttype.inner)
        self.symbols = list(ttype.symbols)

    def of_kind(self, *kinds):
        return [f for f in self.features if f.kind in kinds]

    def edge_kind(self, edge):
        """What lies on an edge: city, road, river, field, inner, or None (a wall)."""
        for f in self.features:
            if edge in f.ports and f.kind in ("city", "road", "river"):
                return f.kind
        halves = HALVES_OF[edge]
        if any(h in f.ports for f in self.of_kind("field") for h in halves):
            return "field"
        if edge in self.inner or any(h in self.inner for h in halves):
            return "inner"
        return None

    def half_kind(self, half):
        if any(half in f.ports for f in self.of_kind("field")):
            return "field"
        if half in self.inner or EDGE_OF[half] in self.inner:
            return "inner"
        return None

    def building(self):
        """The thing at the centre, if any: abbey, shrine, cloister."""
        for f in self.of_kind("cloister"):
            if "abbey" in self.symbols:
                return "abbey"
            return "shrine" if f.attrs.get("shrine") else "cloister"
        return None

    def marks(self):
        words = []
        for f in self.features:
            for flag, word in FLAG_MARKS:
                if f.attrs.get(flag) and word not in words:
                    words.append(word)
            goods = f.attrs.get("goods")
            if isinstance(goods, str) and goods and goods not in words:
                words.append(goods)
        for s in self.symbols:
            if s in SYMBOL_MARKS and SYMBOL_MARKS[s] not in words:
                words.append(SYMBOL_MARKS[s])
        if self.type.quarters:
            words.append("quarters")
        return words


# ---- the state -----------------------------------------------------------------------

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_state(state):
    """Raise Failure (exit 2) unless state looks like what `state` returns."""
    def bad(message):
        raise Failure("not a carcd state: " + message, EXIT_USAGE)
    if not isinstance(state, dict):
        bad("want a JSON object, not %s" % type(state).__name__)
    board = state.get("board")
    if not isinstance(board, list):
        bad("no `board` list")
    seen = {}
    for i, t in enumerate(board):
        if not isinstance(t, dict):
            bad("board entry %d is not an object" % i)
        for key in ("x", "y", "tile", "rot"):
            if key not in t:
                bad("board entry %d has no `%s`" % (i, key))
        if not is_int(t["x"]) or not is_int(t["y"]):
            bad("board entry %d: x and y must be integers, not %s, %s"
                % (i, json.dumps(t["x"]), json.dumps(t["y"])))
        if not isinstance(t["tile"], str):
            bad("board entry %d: `tile` must be a tile id" % i)
        if not is_int(t["rot"]) or t["rot"] not in ROTS:
            bad("board entry %d: `rot` must be 0, 90, 180 or 270, not %s" % (i, json.dumps(t["rot"])))
        figures = t.get("figures") or []
        if not isinstance(figures, list) or not all(isinstance(f, dict) for f in figures):
            bad("board entry %d: `figures` must be a list of objects" % i)
        if (t["x"], t["y"]) in seen:
            bad("board entries %d and %d are both at (%d, %d)" % (seen[(t["x"], t["y"])], i, t["x"], t["y"]))
        seen[(t["x"], t["y"])] = i
    if board:
        span = (max(t["x"] for t in board) - min(t["x"] for t in board) + 1,
                max(t["y"] for t in board) - min(t["y"] for t in board) + 1)
        if max(span) > MAX_SPAN:
            bad("the board spans %d by %d places, more than a carcd game can (at most %d a side)"
                % (span + (MAX_SPAN,)))
    seats = state.get("seats") or []
    if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
        bad("`seats` must be a list of objects")


def check_tiles(state, tiles, source):
    """Raise Failure (exit 1) unless tiles describes every tile of the state;
    source: what describes them ("no manifest under DIR describes it"...)."""
    ids = [t["tile"] for t in state["board"]]
    nxt = next_tile(state)
    if nxt is not None:
        ids.append(nxt[0])
    for tid in ids:
        if tid not in tiles:
            raise Failure("unknown tile %r (%s)" % (tid, source), EXIT_FAILED)


def next_tile(state):
    """(id, drawn_by) of the tile to place, or None.  The state's `tile` is
    the tile of the turn going on: to place only in the tile phase (after
    it, the turn's tile lies on the board already)."""
    t = state.get("tile")
    if state.get("phase", "tile") != "tile":
        return None
    if isinstance(t, dict) and isinstance(t.get("id"), str):
        return t["id"], t.get("drawn_by")
    return None


def figure_seat(fig):
    """The seat a figure belongs to, from its id `<seat>.<kind>.<n>`; None if it does not say."""
    fid = fig.get("id")
    if isinstance(fid, str):
        head = fid.split(".", 1)[0]
        if head.isdigit():
            return int(head)
    seat = fig.get("seat")
    return seat if is_int(seat) else None


def figure_port(fig):
    """Where a figure stands (`at`), or None when the state does not say it plainly."""
    at = fig.get("at")
    return at if isinstance(at, str) else None


def seat_colour(seat):
    return PALETTE[seat % len(PALETTE)] if is_int(seat) and seat >= 0 else UNKNOWN_SEAT_COLOUR


def seat_names(state):
    return {s.get("seat"): s.get("name") for s in (state.get("seats") or []) if is_int(s.get("seat"))}


# Bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to
# U+202E, U+2066 to U+2069), which a seat name may hold: drawn as U+FFFD,
# so that a name does not turn around the rest of its line.
SHOW_BIDI = {cp: "\ufffd" for cp in (0x61c, 0x200e, 0x200f, *range(0x202a, 0x202f), *range(0x2066, 0x206a))}


def plain(value):
    """A value from the state as text for people."""
    if isinstance(value, str):
        return value.translate(SHOW_BIDI)
    if value is None:
        return "-"
    return json.dumps(value)


def token_words(tokens):
    if not isinstance(tokens, dict):
        return []
    words = []
    for k, v in tokens.items():
        if v is True:
            words.append(str(k))
        elif is_int(v) and v > 0:
            words.append("%s %d" % (k, v))
    return words


def status_line(state):
    """The phase, whose turn it is and the tile to place, in words."""
    names = seat_names(state)
    parts = []
    if "game" in state:
        parts.append("game %s" % plain(state["game"]))
    if "seq" in state:
        parts.append("seq %s" % plain(state["seq"]))
    if state.get("over") is True:
        parts.append("game over")
    elif "phase" in state:
        parts.append("phase %s" % plain(state["phase"]))
    seat = state.get("seat")
    if is_int(seat) and not state.get("over"):
        parts.append("seat %d (%s) to play" % (seat, plain(names.get(seat, "?"))))
    nxt = next_tile(state)
    if nxt is not None:
        parts.append("tile to place %s" % nxt[0])
    if is_int(state.get("tiles_left")):
        parts.append("%d tiles left" % state["tiles_left"])
    return ", ".join(parts)


def seat_line(seat):
    words = ["%s %s: %s" % (plain(seat.get("seat")), plain(seat.get("name")), plain(seat.get("score")))]
    tokens = token_words(seat.get("tokens"))
    if tokens:
        words.append("(%s)" % ", ".join(tokens))
    return " ".join(words)


# ---- text ----------------------------------------------------------------------------

BLOCK_W, BLOCK_H = 7, 3
CENTRE = (3, 1)
# the cells of each edge; N and S also by half (the west half of N is NL, of S is SR)
EDGE_MID = {"N": (3, 0), "S": (3, 2), "W": (0, 1), "E": (6, 1)}
HALF_CELLS = {"NL": [(1, 0), (2, 0)], "NR": [(4, 0), (5, 0)], "SL": [(4, 2), (5, 2)], "SR": [(1, 2), (2, 2)],
              "EL": [(6, 0)], "ER": [(6, 2)], "WL": [(0, 2)], "WR": [(0, 0)]}
ARM = {"N": [], "S": [], "W": [(1, 1), (2, 1)], "E": [(4, 1), (5, 1)]}
CORNER_CELL = {"nw": (0, 0), "ne": (6, 0), "se": (6, 2), "sw": (0, 2)}
PENNANT_CELL = {"N": (2, 0), "E": (5, 1), "S": (4, 2), "W": (1, 1)}
FIGURE_CELL = {"N": (3, 0), "S": (3, 2), "W": (1, 1), "E": (5, 1),
               "NL": (1, 0), "NR": (5, 0), "SL": (5, 2), "SR": (1, 2),
               "EL": (6, 0), "ER": (6, 2), "WL": (0, 2), "WR": (0, 0),
               "cloister": (4, 1), "tower": (4, 1), "I": (2, 1), "II": (4, 1)}
SPARE_CELLS = [(4, 1), (2, 1), (5, 1), (1, 1), (2, 0), (4, 0), (2, 2), (4, 2)]
EDGE_CHAR = {"city": "#", "river": "~", "field": ".", "inner": ":", None: "="}
SYMBOL_CHAR = (("hill", "h"), ("vineyard", "v"), ("volcano", "V"))


def text_block(placed, figures):
    """The 3 rows of 7 characters of one tile."""
    g = [[" "] * BLOCK_W for _ in range(BLOCK_H)]

    def put(cell, ch):
        g[cell[1]][cell[0]] = ch

    # edges
    for e in EDGES:
        kind = placed.edge_kind(e)
        if kind == "road":
            mid = "|" if e in ("N", "S") else "-"
        else:
            mid = EDGE_CHAR[kind]
        put(EDGE_MID[e], mid)
        if e in ("N", "S"):
            for h in HALVES_OF[e]:
                ch = "#" if kind == "city" else EDGE_CHAR.get(placed.half_kind(h), " ")
                if kind is None and placed.half_kind(h) is None:
                    ch = "="
                for cell in HALF_CELLS[h]:
                    put(cell, ch)
    # cities: one on a single west or east edge reaches one cell in; one of
    # several edges fills the arms of each and the centre, where they join
    centre = None
    for f in placed.of_kind("city"):
        edges = [p for p in EDGES if p in f.ports]
        if len(edges) == 1:
            for cell in ARM[edges[0]][:1] if edges[0] == "W" else ARM[edges[0]][1:]:
                put(cell, "#")
        elif edges:
            for e in edges:
                for cell in ARM[e]:
                    put(cell, "#")
            centre = "#"
    # roads and rivers: arms to the centre; the centre says how they meet
    roads = []
    for kind, ch in (("road", "-"), ("river", "~")):
        for f in placed.of_kind(kind):
            edges = [p for p in EDGES if p in f.ports]
            for e in edges:
                for cell in ARM[e]:
                    put(cell, ch)
            if kind == "road":
                roads.append(sorted(edges))
    rivers = [[p for p in EDGES if p in f.ports] for f in placed.of_kind("river")]
    if rivers:
        centre = "o" if any(len(r) == 1 for r in rivers) else "~"
    elif roads == [["E", "W"]]:
        centre = "-"
    elif roads == [["N", "S"]]:
        centre = "|"
    elif roads:
        centre = "+"
    # a hill, vineyard or volcano matters to the score: its mark takes the
    # centre from a city, road or river, whose arms and edges still show
    symbol = next((ch for sym, ch in SYMBOL_CHAR if sym in placed.symbols), None)
    building = placed.building()
    if building:
        centre = {"abbey": "A", "shrine": "S", "cloister": "C"}[building]
    elif placed.of_kind("tower"):
        centre = "T"
    elif symbol:
        centre = symbol
    elif centre is None and all(placed.edge_kind(e) == "inner" for e in EDGES):
        centre = ":"
    if centre:
        put(CENTRE, centre)
    # pennants, in the city near its first edge in the order N E S W of the
    # tile as placed, where the SVG draws them: not the edge its manifest
    # names first, which the daemon's `tiles` cannot tell (it lists ports
    # in the order N E S W), so that both draw the tile alike
    for f in placed.of_kind("city"):
        edges = [p for p in EDGES if p in f.ports]
        if edges and (f.attrs.get("pennant") or f.attrs.get("pennants")):
            put(PENNANT_CELL[edges[0]], "*")
    # figures, by seat digit
    taken = set()
    for fig in figures:
        seat = figure_seat(fig)
        ch = str(seat) if seat is not None and seat < 10 else "?"
        at = figure_port(fig)
        cells = [CORNER_CELL[at]] if at in CORNER_CELL else [FIGURE_CELL.get(at, CENTRE)]
        for cell in cells + SPARE_CELLS:
            if cell not in taken:
                taken.add(cell)
                put(cell, ch)
                break
    return ["".join(row) for row in g]


def render_text(state, tiles):
    board = state["board"]
    lines = [" | ".join(seat_line(s) for s in (state.get("seats") or [])) or "no seats", status_line(state)]
    if not board:
        return "\n".join(line.rstrip() for line in lines + ["(no tile on the board)"]) + "\n"
    xs = [t["x"] for t in board]
    ys = [t["y"] for t in board]
    x0, y0 = min(xs), min(ys)
    w, h = max(xs) - x0 + 1, max(ys) - y0 + 1
    margin = max(len(str(y0)), len(str(y0 + h - 1))) + 1
    rows = {}
    for t in board:
        rows.setdefault(t["y"], []).append((t["x"], text_block(Placed(tiles[t["tile"]], t["rot"]),
                                                               t.get("figures") or [])))
    ruler = [" "] * (w * BLOCK_W + BLOCK_W)
    for i in range(w):
        label = str(x0 + i)
        start = i * BLOCK_W + 3 - len(label) // 2
        ruler[start:start + len(label)] = list(label)
    lines.append(" " * margin + "".join(ruler))
    for y in range(y0, y0 + h):
        blocks = sorted(rows.get(y, []), key=lambda b: b[0])
        for r in range(BLOCK_H):
            label = str(y) if r == 1 else ""
            parts, col = [label.rjust(margin - 1), " "], 0
            for x, block in blocks:
                parts.append(" " * ((x - x0) * BLOCK_W - col))
                parts.append(block[r])
                col = (x - x0 + 1) * BLOCK_W
            lines.append("".join(parts))
    return "\n".join(line.rstrip() for line in lines) + "\n"


# ---- SVG -----------------------------------------------------------------------------

FIELD = "#9cc66b"
ABBEY_GROUND = "#d8ccb0"
INNER_GROUND = "#c7bfae"
CITY, CITY_WALL = "#b5763a", "#6b4423"
ROAD, ROAD_EDGE = "#f4efe1", "#6d6552"
RIVER = "#3d8fd6"
PENNANT = "#2b59c3"

# where a figure stands, as fractions of the tile
FIGURE_AT = {"N": (0.5, 0.2), "E": (0.8, 0.5), "S": (0.5, 0.8), "W": (0.2, 0.5),
             "NL": (0.25, 0.15), "NR": (0.75, 0.15), "EL": (0.85, 0.25), "ER": (0.85, 0.75),
             "SL": (0.75, 0.85), "SR": (0.25, 0.85), "WL": (0.15, 0.75), "WR": (0.15, 0.25),
             "cloister": (0.5, 0.5), "tower": (0.5, 0.5),
             "nw": (0.0, 0.0), "ne": (1.0, 0.0), "se": (1.0, 1.0), "sw": (0.0, 1.0)}
# the enclosed fields touch no edge, so their ports do not turn with the tile:
# on a tile with both, they are given on the unturned tile, on opposite sides
# of the centre; a lone I stands in the centre
ENCLOSED_AT = {"I": (0.35, 0.35), "II": (0.65, 0.65)}
EDGE_MIDPOINT = {"N": (0.5, 0.0), "E": (1.0, 0.5), "S": (0.5, 1.0), "W": (0.0, 0.5)}
QUARTERS = {"N": 0, "E": 1, "S": 2, "W": 3}


def xml_text(value):
    """Text safe inside an XML element or a quoted attribute."""
    s = value if isinstance(value, str) else plain(value)
    s = "".join(c if c in "\t\n" or (" " <= c and not 0xd800 <= ord(c) <= 0xdfff and c not in "\ufffe\uffff")
                else "\ufffd" for c in s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def num(v):
    s = "%.2f" % v
    return s.rstrip("0").rstrip(".") if "." in s else s


def points(pts):
    return " ".join("%s,%s" % (num(x), num(y)) for x, y in pts)


def spin(pt, quarters, size):
    """A point of the tile turned clockwise by quarters of a turn about its centre."""
    x, y = pt
    for _ in range(quarters % 4):
        x, y = size - y, x
    return x, y


def text_colour(fill):
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


def city_polygon(edges, s):
    """The outline of a city reaching in from its edges; several edges meet in the middle."""
    if len(edges) == 1:
        shape = [(0, 0), (s, 0), (0.78 * s, 0.26 * s), (0.22 * s, 0.26 * s)]
        return [spin(p, QUARTERS[edges[0]], s) for p in shape]
    c, k = s / 2.0, 0.18 * s
    tile = {"nw": (0, 0), "ne": (s, 0), "se": (s, s), "sw": (0, s)}
    core = {"nw": (c - k, c - k), "ne": (c + k, c - k), "se": (c + k, c + k), "sw": (c - k, c + k)}
    span = {"N": ("nw", "ne"), "E": ("ne", "se"), "S": ("se", "sw"), "W": ("sw", "nw")}
    pts = []
    for e in EDGES:
        a, b = span[e]
        corners = tile if e in edges else core
        for p in (corners[a], corners[b]):
            if not pts or pts[-1] != p:
                pts.append(p)
    if len(pts) > 1 and pts[0] == pts[-1]:
        pts.pop()
    return pts


def tile_svg(placed, s):
    """The drawing of one tile, in its own coordinates (0 to s)."""
    out = []
    c = s / 2.0
    building = placed.building()
    ground = ABBEY_GROUND if building == "abbey" else FIELD
    out.append('<rect class="ground" width="%s" height="%s" fill="%s"/>' % (num(s), num(s), ground))
    # inside the City of Carcassonne: the parts of the tile that belong to no feature
    for p in sorted(placed.inner):
        if p in EDGES:
            tri = [(0, 0), (s, 0), (c, c)]
        elif p in HALVES:
            tri = [(0, 0), (c, 0), (c, c)] if p.endswith("L") else [(c, 0), (s, 0), (c, c)]
        else:
            continue
        q = QUARTERS[p[0]]
        out.append('<polygon class="inner" points="%s" fill="%s"/>'
                   % (points(spin(pt, q, s) for pt in tri), INNER_GROUND))
    wall = num(max(1.0, s / 40.0))   # the city walls' width, the patches' edge too
    # cities
    for f in placed.of_kind("city"):
        edges = [p for p in EDGES if p in f.ports]
        if not edges:
            continue
        out.append('<polygon class="city" points="%s" fill="%s" stroke="%s" stroke-width="%s"/>'
                   % (points(city_polygon(edges, s)), CITY, CITY_WALL, wall))
    # a field that touches no edge lies between cities, which are drawn
    # meeting in the middle: it shows as a patch where its farmers stand
    for f in placed.of_kind("field"):
        for at in ("I", "II"):
            if at in f.ports:
                fx, fy = figure_spot(at, placed.type, placed.rot)
                out.append('<circle class="enclosed-field" cx="%s" cy="%s" r="%s" fill="%s" stroke="%s" '
                           'stroke-width="%s"/>' % (num(fx * s), num(fy * s), num(0.16 * s), FIELD, CITY_WALL, wall))
    # rivers, then roads over them (bridges)
    for kind, colour, width, edge_colour in (("river", RIVER, 0.14, None), ("road", ROAD, 0.08, ROAD_EDGE)):
        dead_ends = 0
        for f in placed.of_kind(kind):
            edges = [p for p in EDGES if p in f.ports]
            if len(edges) == 2:
                (ax, ay), (bx, by) = (EDGE_MIDPOINT[e] for e in edges)
                d = "M%s %s Q%s %s %s %s" % (num(ax * s), num(ay * s), num(c), num(c), num(bx * s), num(by * s))
            else:
                d = " ".join("M%s %s L%s %s" % (num(EDGE_MIDPOINT[e][0] * s), num(EDGE_MIDPOINT[e][1] * s),
                                                num(c), num(c)) for e in edges)
                dead_ends += len(edges) == 1
            if not d:
                continue
            if edge_colour:
                out.append('<path class="%s-edge" d="%s" fill="none" stroke="%s" stroke-width="%s"/>'
                           % (kind, d, edge_colour, num(s * (width + 0.05))))
            out.append('<path class="%s" d="%s" fill="none" stroke="%s" stroke-width="%s"/>'
                       % (kind, d, colour, num(s * width)))
        if kind == "river" and dead_ends and not building:
            label = "lake" if "lake" in placed.symbols else "spring"
            out.append('<circle class="%s" cx="%s" cy="%s" r="%s" fill="%s"/>'
                       % (label, num(c), num(c), num(0.13 * s), colour))
        elif kind == "road" and dead_ends and not building:
            r = 0.07 * s
            out.append('<rect class="junction" x="%s" y="%s" width="%s" height="%s" fill="%s"/>'
                       % (num(c - r), num(c - r), num(2 * r), num(2 * r), ROAD_EDGE))
    # pennants
    for f in placed.of_kind("city"):
        edges = [p for p in EDGES if p in f.ports]
        n = f.attrs.get("pennants")
        n = int(n) if isinstance(n, str) and n.isdigit() else (1 if f.attrs.get("pennant") else 0)
        r = 0.06 * s
        for i in range(min(n, 3) if edges else 0):
            px, py = spin(((0.3 + 0.4 * i) * s, 0.1 * s), QUARTERS[edges[0]], s)
            shield = [(px - r, py - r), (px + r, py - r), (px + r, py + 0.2 * r), (px, py + 1.4 * r),
                      (px - r, py + 0.2 * r)]
            out.append('<polygon class="pennant" points="%s" fill="%s" stroke="#fff" stroke-width="0.8"/>'
                       % (points(shield), PENNANT))
    # the centre: tower, cloister, shrine or abbey
    if placed.of_kind("tower"):
        tx, ty = (0.72 * s, 0.28 * s) if building else (c, c)
        out.append('<circle class="tower" cx="%s" cy="%s" r="%s" fill="#8d8d8d" stroke="#444"/>'
                   % (num(tx), num(ty), num(0.14 * s)))
    if building:
        wall, roof = {"cloister": ("#efe6cf", "#b03a2e"), "abbey": ("#efe6cf", "#7a4a1e"),
                      "shrine": ("#8c8c8c", "#3f2352")}[building]
        w, top, base = 0.15 * s, c - 0.2 * s, c - 0.05 * s
        out.append('<g class="%s">' % building)
        out.append('<rect x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#333" stroke-width="0.8"/>'
                   % (num(c - 0.12 * s), num(base), num(0.24 * s), num(0.2 * s), wall))
        out.append('<polygon points="%s" fill="%s" stroke="#333" stroke-width="0.8"/>'
                   % (points([(c - w, base), (c, top), (c + w, base)]), roof))
        if building == "shrine":
            out.append('<text x="%s" y="%s" font-size="%s" text-anchor="middle" fill="#fff">S</text>'
                       % (num(c), num(c + 0.11 * s), num(0.13 * s)))
        out.append('</g>')
    if building == "abbey":
        out.append('<rect class="wall" x="1" y="1" width="%s" height="%s" fill="none" stroke="#7d7364" '
                   'stroke-width="%s"/>' % (num(s - 2), num(s - 2), num(max(2.0, s / 16.0))))
    marks = placed.marks()
    if marks:
        out.append('<text class="marks" x="%s" y="%s" font-size="%s" font-family="sans-serif" fill="#222" '
                   'stroke="#fff" stroke-width="2" stroke-opacity="0.7" paint-order="stroke">%s</text>'
                   % (num(0.04 * s), num(0.97 * s), num(max(6.0, 0.13 * s)), xml_text(" ".join(marks))))
    out.append('<rect class="outline" width="%s" height="%s" fill="none" stroke="#333" stroke-width="0.6"/>'
               % (num(s), num(s)))
    return out


def figure_spot(at, ttype, rot):
    """Where on its tile (fractions, y down) a figure standing at `at` is drawn."""
    if at not in ENCLOSED_AT or not any("II" in f.ports for f in ttype.features):
        return FIGURE_AT.get(at, (0.5, 0.5))
    x, y = ENCLOSED_AT[at]
    for _ in range(rot // 90):   # rot is checked: 0, 90, 180 or 270
        x, y = 1 - y, x   # a quarter turn clockwise
    return x, y


def figure_svg(fig, x, y, s):
    seat = figure_seat(fig)
    colour = seat_colour(seat)
    kind = fig.get("kind") if isinstance(fig.get("kind"), str) else "?"
    letter = KIND_LETTERS.get(kind, kind[:1].upper() or "?")
    r = (0.15 if kind == "large" else 0.115) * s
    title = "%s: %s on %s at %s" % (plain(fig.get("id")), kind, plain(fig.get("feature")), plain(fig.get("at")))
    sheep = fig.get("sheep")
    if isinstance(sheep, list):
        title += ", sheep %s" % (" ".join(plain(n) for n in sheep) or "none")
    out = ['<g class="figure" data-id="%s" data-seat="%s" data-kind="%s">'
           % (xml_text(fig.get("id", "")), "" if seat is None else seat, xml_text(kind)),
           '<title>%s</title>' % xml_text(title)]
    if kind == "barn":
        out.append('<rect x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#000" stroke-width="1"/>'
                   % (num(x - r), num(y - r), num(2 * r), num(2 * r), colour))
    else:
        out.append('<circle cx="%s" cy="%s" r="%s" fill="%s" stroke="#000" stroke-width="1"/>'
                   % (num(x), num(y), num(r), colour))
    out.append('<text x="%s" y="%s" font-size="%s" font-family="sans-serif" font-weight="bold" '
               'text-anchor="middle" fill="%s">%s</text>'
               % (num(x), num(y + 0.05 * s), num(0.15 * s), text_colour(colour), xml_text(letter)))
    if isinstance(sheep, list) and sheep:
        out.append('<text x="%s" y="%s" font-size="%s" font-family="sans-serif" fill="#fff" stroke="#000" '
                   'stroke-width="1.5" paint-order="stroke">%s</text>'
                   % (num(x + r), num(y - r * 0.4), num(0.13 * s), sum(n for n in sheep if is_int(n))))
    out.append('</g>')
    return out


def render_svg(state, tiles, s):
    board = state["board"]
    seats = state.get("seats") or []
    if board:
        x0, y0 = min(t["x"] for t in board), min(t["y"] for t in board)
        w = max(t["x"] for t in board) - x0 + 1
        h = max(t["y"] for t in board) - y0 + 1
    else:
        x0 = y0 = w = h = 0
    pad, line_h, font = 8, 18, 12
    char_w = font * 0.62
    caption = [("status", status_line(state), None)]
    for seat in seats:
        mark = "  \u25c0 to play" if seat.get("seat") == state.get("seat") and not state.get("over") else ""
        caption.append(("seat", seat_line(seat) + mark, seat_colour(seat.get("seat"))))
    kinds = []
    for t in board:
        for fig in (t.get("figures") or []):
            k = fig.get("kind")
            if isinstance(k, str) and k not in kinds:
                kinds.append(k)
    if kinds:
        caption.append(("kinds", "  ".join("%s %s" % (KIND_LETTERS.get(k, k[:1].upper() or "?"), k)
                                           for k in kinds), None))
    nxt = next_tile(state)
    names = seat_names(state)
    if nxt is not None:
        who = names.get(nxt[1]) if is_int(nxt[1]) else None
        caption.append(("next", "tile to place: %s%s" % (nxt[0], ", drawn by %s" % plain(who) if who is not None else ""),
                        None))
    text_w = max(len(text) * char_w + (18 if colour else 0) for _, text, colour in caption)
    preview = s + 16 if nxt is not None else 0
    cap_h = max(len(caption) * line_h + 6, preview)
    width = max(w * s, text_w + preview) + 2 * pad
    height = cap_h + h * s + 2 * pad
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s">'
           % (num(width), num(height), num(width), num(height)),
           '<title>%s</title>' % xml_text("carcd board: " + status_line(state)),
           '<rect class="background" width="%s" height="%s" fill="#f7f4ec"/>' % (num(width), num(height)),
           '<g class="caption" font-family="sans-serif" font-size="%d" fill="#111">' % font]
    for i, (cls, text, colour) in enumerate(caption):
        y = pad + i * line_h + font
        x = pad
        if colour:
            out.append('<rect class="swatch" x="%s" y="%s" width="12" height="12" fill="%s" stroke="#000"/>'
                       % (num(x), num(y - 10), colour))
            x += 18
        out.append('<text class="%s" x="%s" y="%s"%s>%s</text>'
                   % (cls, num(x), num(y), ' font-weight="bold"' if cls == "status" else "", xml_text(text)))
    out.append('</g>')
    if nxt is not None:
        out.append('<g class="next-tile" data-tile="%s" transform="translate(%s,%s)">'
                   % (xml_text(nxt[0]), num(width - pad - s), num(pad)))
        out.append('<title>%s</title>' % xml_text("tile to place: " + nxt[0]))
        out.extend(tile_svg(Placed(tiles[nxt[0]], 0), s))
        out.append('</g>')
    ox, oy = pad, pad + cap_h
    out.append('<g class="board">')
    out.append('<rect class="board-area" x="%s" y="%s" width="%s" height="%s" fill="#e9e3d3"/>'
               % (num(ox), num(oy), num(w * s), num(h * s)))
    for t in board:
        px, py = ox + (t["x"] - x0) * s, oy + (t["y"] - y0) * s
        out.append('<g class="tile" data-x="%d" data-y="%d" data-tile="%s" data-rot="%d" transform="translate(%s,%s)">'
                   % (t["x"], t["y"], xml_text(t["tile"]), t["rot"], num(px), num(py)))
        out.append('<title>%s</title>' % xml_text("%s at (%d, %d), rot %d" % (t["tile"], t["x"], t["y"], t["rot"])))
        out.extend(tile_svg(Placed(tiles[t["tile"]], t["rot"]), s))
        out.append('</g>')
    # figures over every tile (a barn stands on the corner of four); those on one spot side by side
    spots = {}
    for t in board:
        px, py = ox + (t["x"] - x0) * s, oy + (t["y"] - y0) * s
        for fig in (t.get("figures") or []):
            fx, fy = figure_spot(figure_port(fig), tiles[t["tile"]], t["rot"])
            spots.setdefault((round(px + fx * s, 2), round(py + fy * s, 2)), []).append(fig)
    out.append('<g class="figures">')
    for (x, y), figs in spots.items():
        for i, fig in enumerate(figs):
            out.extend(figure_svg(fig, x + (i - (len(figs) - 1) / 2.0) * 0.24 * s, y, s))
    out.append('</g>')
    neutral = state.get("neutral")
    if isinstance(neutral, dict):
        for name, where in neutral.items():
            if isinstance(where, dict) and is_int(where.get("x")) and is_int(where.get("y")):
                cx = ox + (where["x"] - x0 + 0.5) * s
                cy = oy + (where["y"] - y0 + 0.5) * s
                out.append('<g class="neutral" data-kind="%s"><title>%s</title>'
                           '<circle cx="%s" cy="%s" r="%s" fill="#fff" stroke="#000" stroke-width="1.5"/>'
                           '<text x="%s" y="%s" font-size="%s" text-anchor="middle">%s</text></g>'
                           % (xml_text(name), xml_text(name), num(cx), num(cy + 0.25 * s), num(0.1 * s),
                              num(cx), num(cy + 0.29 * s), num(0.12 * s), xml_text(str(name)[:1].upper())))
    out.append('</g>')
    out.append('</svg>')
    return "\n".join(out) + "\n"


# ---- input and output ----------------------------------------------------------------

def read_state_file(path):
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
            where = "stdin"
        else:
            with open(path, "rb") as f:
                data = f.read()
            where = path
    except OSError as e:
        raise Failure("cannot read %s: %s" % (path, e.strerror or e), EXIT_USAGE)
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise Failure("%s is not UTF-8 text" % where, EXIT_USAGE)
    except RecursionError:
        raise Failure("%s: the JSON is nested too deeply" % where, EXIT_USAGE)
    except ValueError as e:
        raise Failure("%s is not JSON: %s" % (where, e), EXIT_USAGE)


def client_module():
    """carcd.py, the Python client, from python/ beside this script; None when it is not there."""
    path = os.path.join(HERE, "python")
    if path not in sys.path:
        sys.path.insert(0, path)
    try:
        import carcd
    except ImportError:
        return None
    return carcd


def fetch_state(game, address, encoding, want_tiles=False):
    """(the state of game, {id: TileType} from the daemon's `tiles` or None, the daemon's address).

    The tiles only when want_tiles, and None too from a daemon that has no
    `tiles` method."""
    carcd = client_module()
    if carcd is None:
        raise Failure("cannot load the carcd client: no python/carcd.py beside %s" % HERE, EXIT_FAILED)
    try:
        with carcd.Client(address, encoding=encoding, timeout=30.0) as c:
            state = c.state(game)
            tiles = daemon_tiles(c, carcd) if want_tiles else None
            return state, tiles, c.address
    except carcd.Error as e:
        raise Failure("%s: %s" % (e.code, e.message) if e.message else str(e.code), EXIT_FAILED)
    except RuntimeError as e:   # no python3-msgpack for the msgpack encoding
        raise Failure(str(e), EXIT_FAILED)
    except (carcd.ConnectionClosed, TimeoutError, OSError) as e:
        raise Failure(str(e) or type(e).__name__, EXIT_UNREACHABLE)


def write_output(text, path):
    data = text.encode("utf-8")
    if path is None:
        try:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        except BrokenPipeError:
            # the reader went away (`render.py ... | head`): nothing more to say
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise Failure("cannot write %s: %s" % (path, e.strerror or e), EXIT_FAILED)


class Parser(argparse.ArgumentParser):
    """argparse, with its errors as one line starting `render.py: ` after the usage."""

    def error(self, message):
        self.print_usage(sys.stderr)
        print("%s: %s" % (PROG, message), file=sys.stderr)
        sys.exit(EXIT_USAGE)


def tile_size(text):
    try:
        v = int(text)
    except ValueError:
        v = 0
    if not 8 <= v <= 1024:
        raise argparse.ArgumentTypeError("want a whole number of pixels from 8 to 1024, not %r" % text)
    return v


def game_id(text):
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError("want a game id (a whole number), not %r" % text)
    return v


def parse_args(argv):
    carcd = client_module()
    default_address = carcd.DEFAULT_ADDRESS if carcd else "tcp:127.0.0.1:7878"
    p = Parser(prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
               description="Draw the board of a carcd game as SVG (default) or as text, from a state\n"
                           "(what the `state` method returns; `carcctl state G` prints it) or from a\n"
                           "running daemon.",
               epilog=TEXT_HELP)
    p.add_argument("state", nargs="?", metavar="STATE.json",
                   help="a state as JSON; '-' reads it from stdin")
    p.add_argument("--game", "-g", type=game_id, help="fetch the state of this game from the daemon")
    p.add_argument("--address", "-a", default=None,
                   help="with --game: tcp:HOST:PORT, tls:HOST:PORT or unix:PATH (default $CARCD_ADDRESS or %s)" % default_address)
    p.add_argument("--encoding", choices=("msgpack", "json"), default=None,
                   help="with --game: how to talk to the daemon (default msgpack when python3-msgpack is there)")
    p.add_argument("--format", "-f", choices=("svg", "text"), default="svg", help="what to draw (default svg)")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (default stdout)")
    p.add_argument("--tiles", metavar="DIR",
                   help="the directory of the tile manifests (*.tiles); default $CARCD_TILES, else "
                        "with --game the daemon's own tiles, else ../engine/tiles or tiles/ beside this script")
    p.add_argument("--tile-size", type=tile_size, default=64, metavar="PX",
                   help="SVG: the side of a tile in pixels (default 64)")
    a = p.parse_args(argv)
    if a.game is None and a.state is None:
        p.error("give a state file ('-' for stdin) or --game G")
    if a.game is not None and a.state is not None:
        p.error("give a state file or --game, not both")
    if a.game is None and (a.address is not None or a.encoding is not None):
        p.error("--address and --encoding are for --game")
    if a.game is not None and carcd is not None:   # without the client, fetch_state says so
        try:
            carcd.parse_address(a.address or os.environ.get("CARCD_ADDRESS") or default_address)
        except ValueError as e:
            p.error(str(e))
    return a


def main(argv=None):
    args = parse_args(argv)
    try:
        # A state from a daemon is drawn with the daemon's own tiles, unless
        # --tiles or $CARCD_TILES names manifests: so render.py draws a game
        # of a carcd on another machine, with no manifests at hand.
        from_daemon = args.game is not None and args.tiles is None and not os.environ.get("CARCD_TILES")
        tiles = None
        if not from_daemon:   # manifests first: a bad --tiles fails before the daemon is asked
            tiles, source = manifest_tiles(args.tiles)
        if args.game is not None:
            state, daemon, address = fetch_state(args.game, args.address, args.encoding, want_tiles=from_daemon)
            if daemon is not None:
                tiles, source = daemon, "carcd at %s does not describe it" % address
        else:
            state = read_state_file(args.state)
        if tiles is None:   # a carcd without `tiles`: the manifests, as before it had one
            tiles, source = manifest_tiles(args.tiles)
        check_state(state)
        check_tiles(state, tiles, source)
        if args.format == "text":
            out = render_text(state, tiles)
        else:
            out = render_svg(state, tiles, args.tile_size)
        write_output(out, args.output)
    except Failure as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        return 130
    except Exception as e:   # a state shaped in a way not foreseen: say so in one line
        print("%s: cannot draw this state: %s: %s" % (PROG, type(e).__name__, e), file=sys.stderr)
        return EXIT_FAILED
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The contract (shared design/PROTOCOL.md), read statement by statement as
an outside client's test-suite author would, against what the other
modules pin.  Pinned here, where no other module did:

- section 1: every MessagePack array marker (0x90-0x9f, 0xdc, 0xdd) as the
  first byte picks MessagePack-RPC, and any other first byte the line
  protocol (a MessagePack map, nil, 0xc1, a fixstr... are JSON lines then);
- section 3: x grows to the east, y to the south, `rot` turns clockwise
  from the reference XML's orientation (a tile with one road, on an
  asymmetric board); a river game starts at the spring RI/s at (0,0),
  rot 0, its river running east; fields that touch no edge are `I`, `II`;
- section 4.1: without `seed` the server draws one (a different one each
  game); a tile `reshuffle` puts back goes to the end of the `tiles` given;
- section 4.2: the tile under a hill is never shown before the end;
- section 6: one `scored` per seat per feature, with two followers of one
  seat in it, and with two seats tied;
- section 7: the default limits of 1024 connections and of 8 MiB of unsent
  output, with a daemon started without options (on the harness's sockets).
"""

import json
import random
import socket
import unittest

import harness
from harness import carcd, packb
from crafted import PASS, deploy, place, tile

daemon, setUpModule, tearDownModule = harness.module_daemon()

MIB = 1 << 20
NEIGHBOURS = {(0, -1), (1, 0), (0, 1), (-1, 0)}
ROTATIONS = (0, 90, 180, 270)


class Case(unittest.TestCase):
    def setUp(self):
        self.c = daemon["d"].client("unix")

    def tearDown(self):
        self.c.close()

    def placements(self, game):
        lm = self.c.legal_moves(game)
        self.assertEqual(lm["phase"], "tile", lm)
        return {(m["x"], m["y"], m["rot"]) for m in lm["moves"] if m["type"] == "place_tile"}

    def deploys(self, game, kind="follower"):
        lm = self.c.legal_moves(game)
        return {m["at"] for m in lm["moves"] if m["type"] == "deploy" and m["kind"] == kind}


# ---- section 1: the first byte picks the encoding ----------------------------------------

class FirstByte(Case):
    def test_every_array_marker_picks_messagepack(self):
        # a fixarray of n (0x90 + n), an array16, an array32: whatever the
        # first object is, the replies are MessagePack and the stream stays so
        for n in range(16):
            first = packb([0, 7, "ping", {}]) if n == 4 else packb([0] * n)
            self.assertEqual(first[0], 0x90 + n)
            with daemon["d"].raw("unix") as r:
                r.send(first)
                resp = r.read_one("msgpack")
                if n == 4:
                    self.assertEqual(resp, [1, 7, None, {}])
                else:
                    self.assertEqual((resp[0], resp[3], resp[2]["code"]), (1, None, "bad_request"), (n, resp))
                r.send(packb([0, 8, "ping", {}]))
                self.assertEqual(r.read_one("msgpack"), [1, 8, None, {}], n)
        for first in (b"\xdc\x00\x03\x00\x05\xa4ping",                   # array16 of 3: no request
                      b"\xdd\x00\x00\x00\x02\x00\x05"):                  # array32 of 2: no request
            with daemon["d"].raw("tcp") as r:
                r.send(first)
                resp = r.read_one("msgpack")
                self.assertEqual(resp[2]["code"], "bad_request", resp)
                r.send(packb([0, 9, "ping", {}]))
                self.assertEqual(r.read_one("msgpack"), [1, 9, None, {}])

    def test_any_other_first_byte_picks_the_line_protocol(self):
        # every byte that is no array marker, MessagePack's other markers
        # (maps, nil, 0xc1, strings, integers) among them: the connection
        # speaks JSON lines, so the first line is answered (or ignored, if
        # blank) as a line, and `ping` after it gets a JSON reply
        arrays = set(range(0x90, 0xa0)) | {0xdc, 0xdd}
        for b in range(256):
            if b in arrays:
                continue
            with self.subTest(first=hex(b)), daemon["d"].raw("unix" if b % 2 else "tcp") as r:
                r.send(bytes([b]) + b"\nping\n")
                got = r.read("json", 2, timeout=1.0)   # a reply that is no JSON line fails here
                self.assertTrue(got, "no reply")
                self.assertEqual(got[-1], [1, None, None, {}], got)
                for resp in got[:-1]:   # the reply to the first line, if it was no blank line
                    self.assertEqual((resp[0], resp[1], resp[3]), (1, None, None), resp)
                    self.assertIn(resp[2]["code"], ("bad_request", "unknown_method"), resp)
                self.assertEqual(len(got), 1 if b in b" \t\n\r" else 2, got)


# ---- section 3: the board's axes, rotation, the spring, ports I and II ---------------------

class Orientation(Case):
    # BA/LR in the reference XML: a cloister, and one road, on its S edge
    ROAD_SIDE = {0: (0, 1), 90: (-1, 0), 180: (0, -1), 270: (1, 0)}   # turned clockwise
    ROAD_PORT = {0: "S", 90: "W", 180: "N", 270: "E"}

    def test_x_east_y_south_and_rot_clockwise_from_the_reference(self):
        # a start tile with a road on one side only: the all-field cloister
        # BA/L fits beside it everywhere but on that side, so that side names
        # the axes and the sense of the rotation together
        for rot in ROTATIONS:
            with self.subTest(rot=rot):
                g = self.c.new_game(["ann"], auth=False, start=[tile("BA/LR", 0, 0, rot)], tiles=["BA/L"])
                self.assertEqual(g["state"]["board"], [{"x": 0, "y": 0, "tile": "BA/LR", "rot": rot, "figures": []}])
                free = NEIGHBOURS - {self.ROAD_SIDE[rot]}
                self.assertEqual(self.placements(g["game"]), {(x, y, r) for x, y in free for r in ROTATIONS})

    def test_a_placed_tiles_ports_are_turned_with_it(self):
        # BA/LR beside the standard start (BA/RCr: city N, road W-E, field S):
        # its road must meet the start's road east or west of it, or lie away
        # from the start's field south of it; then its road is named in board
        # orientation, W at (1,0) and E at (-1,0)
        g = self.c.new_game(["ann"], auth=False, tiles=["BA/LR", "BA/L"])
        want = {(1, 0, 90), (-1, 0, 270), (0, 1, 0), (0, 1, 90), (0, 1, 270)}
        self.assertEqual(self.placements(g["game"]), want)
        for x, y, rot in sorted(want):
            with self.subTest(x=x, y=y, rot=rot):
                g = self.c.new_game(["ann"], auth=False, tiles=["BA/LR", "BA/L"])
                self.c.apply_move(g["game"], place("BA/LR", x, y, rot))
                self.assertEqual(self.deploys(g["game"]), {self.ROAD_PORT[rot], "cloister", "NL"})
                res = self.c.apply_move(g["game"], deploy(x, y, self.ROAD_PORT[rot]))
                dep = [e for e in res["events"] if e["type"] == "deployed"]
                self.assertEqual([(e["feature"], e["at"], e["ports"]) for e in dep],
                                 [("road", self.ROAD_PORT[rot], [self.ROAD_PORT[rot]])])


class RiverStart(Case):
    def test_the_spring_lies_at_0_0_rot_0(self):
        # reference tiles README: with the River the spring RI/s is the start
        # tile, at (0,0), rotation 0 (its river on the E edge), instead of BA/RCr
        for expansions in (["base", "river"], ["base", "river2"], ["river"], ["base", "river", "mini"]):
            with self.subTest(expansions=expansions):
                g = self.c.new_game(["ann", "bob"], expansions=expansions, seed=7)
                self.assertEqual(g["state"]["board"], [{"x": 0, "y": 0, "tile": "RI/s", "rot": 0, "figures": []}])
                first = self.c.history(g["game"])["events"][0]
                self.assertEqual(first, {"type": "tile_placed", "seat": None, "tile": "RI/s", "x": 0, "y": 0,
                                         "rot": 0, "seq": 0})
                spots = {(x, y) for x, y, _ in self.placements(g["game"])}
                self.assertEqual(spots, {(1, 0)}, "the river runs on east of the spring")


class EnclosedFields(Case):
    def test_fields_that_touch_no_edge_are_I_and_II(self):
        # AM/CCcc+: a city N-S, a city W-E crossing it, and two enclosed
        # fields I and II; IC/CCCC: four cities and one enclosed field I
        for expansions, name, cities, fields in ((["base", "abbey-mayor"], "AM/CCcc+", {"N", "E"}, ["I", "II"]),
                                                 (["base", "inns-cathedrals"], "IC/CCCC",
                                                  {"N", "E", "S", "W"}, ["I"])):
            for rot in ROTATIONS:
                for at in fields:
                    with self.subTest(tile=name, rot=rot, at=at):
                        g = self.c.new_game(["ann"], auth=False, expansions=expansions, tiles=[name, "BA/L"])
                        self.c.apply_move(g["game"], place(name, 0, -1, rot))
                        self.assertEqual(self.deploys(g["game"]), cities | set(fields))
                        res = self.c.apply_move(g["game"], deploy(0, -1, at))
                        dep = [e for e in res["events"] if e["type"] == "deployed"]
                        self.assertEqual([(e["feature"], e["at"], e["ports"]) for e in dep], [("field", at, [at])])
                        figs = [f for t in self.c.state(g["game"])["board"] for f in t["figures"]]
                        self.assertEqual([(f["kind"], f["feature"], f["at"]) for f in figs],
                                         [("follower", "field", at)])


# ---- section 4.1: seed and tiles -----------------------------------------------------------

class Seed(Case):
    def test_without_a_seed_the_server_draws_one(self):
        # "Without it the server draws one": a seed of its own for each game,
        # revealed at the end, within 0..2^53-1 and matching the commitment
        seeds = []
        for _ in range(4):
            g = self.c.new_game(["ann"], auth=False, tiles=["BA/C"])
            harness.play_out(self.c, g["game"])
            h = self.c.history(g["game"])
            self.assertIs(type(h["seed"]), int)
            self.assertTrue(0 <= h["seed"] <= 2 ** 53 - 1, h["seed"])
            self.assertEqual(harness.seed_commitment(h["seed"], h["salt"]), g["state"]["seed_sha256"])
            seeds.append(h["seed"])
        self.assertEqual(len(set(seeds)), len(seeds), "the same seed drawn twice: %r" % seeds)


class Reshuffle(Case):
    def test_a_tile_put_back_goes_to_the_end_of_the_tiles_given(self):
        # section 4.1 `tiles`: "`reshuffle` puts it at the end once; if it
        # still fits nowhere, it is discarded".  BA/RRRR fits nowhere round an
        # all-city start ringed by BA/C: it is put back behind the three BA/C
        # and drawn again last
        tiles = ["BA/RRRR", "BA/C", "BA/C", "BA/C"]
        g = self.c.new_game(["ann"], auth=False, tiles=tiles, seed=3, rules={"unplaceable_tile": "reshuffle"},
                            start=[tile("BA/Cccc+", 0, 0)])
        harness.play_out(self.c, g["game"])
        h = self.c.history(g["game"])
        draws = [(e["type"], e["tile"], e.get("why")) for e in h["events"]
                 if e["type"] in ("tile_drawn", "tile_discarded")]
        self.assertEqual(draws, [("tile_drawn", "BA/RRRR", None), ("tile_discarded", "BA/RRRR", "reshuffled"),
                                 ("tile_drawn", "BA/C", None), ("tile_drawn", "BA/C", None),
                                 ("tile_drawn", "BA/C", None),
                                 ("tile_drawn", "BA/RRRR", None), ("tile_discarded", "BA/RRRR", "unplaceable")])
        self.assertEqual(h["tiles"], tiles)


# ---- section 6: one `scored` per seat per feature ---------------------------------------------

class OneScorePerSeat(Case):
    # a road between two cloisters that end it: BA/LR at (0,0) turned to
    # face east, at (4,0) turned to face west; three straight roads BA/RFr
    # between them, the middle one last
    START = [tile("BA/LR", 0, 0, 270), tile("BA/LR", 4, 0, 90)]
    ROAD = {(x, 0) for x in range(5)}
    # a follower at each end of the gap, then the middle road closes it:
    # with one seat both followers are its own, with two one each
    MOVES = [place("BA/RFr", 1, 0, 0), deploy(1, 0, "E"), place("BA/RFr", 3, 0, 0), deploy(3, 0, "W"),
             place("BA/RFr", 2, 0, 0), PASS]

    def completed(self, players, moves):
        g = self.c.new_game(players, auth=False, start=self.START, tiles=["BA/RFr"] * 3 + ["BA/L"], seed=1)
        events = []
        for move in moves:
            events += self.c.apply_move(g["game"], move)["events"]
        scored = [e for e in events if e["type"] == "scored"]
        for e in scored:
            self.assertEqual((e["feature"], e["final"]), ("road", False), e)
            self.assertIn((e["x"], e["y"]), self.ROAD, e)
            self.assertIn(e["at"], ("E", "W"), e)
        done = [e for e in events if e["type"] == "feature_completed"]
        self.assertEqual([(e["feature"], e["tiles"]) for e in done], [("road", 5)])
        return sorted((e["seat"], e["points"]) for e in scored), events

    def test_two_followers_of_one_seat_score_once(self):
        # section 6: "One event per seat per scored feature with its total"
        scored, events = self.completed(["ann"], self.MOVES)
        self.assertEqual(scored, [(0, 5)])
        self.assertEqual(sorted(e["figure"] for e in events if e["type"] == "returned"),
                         ["0.follower.1", "0.follower.2"])

    def test_a_tie_scores_each_seat_once(self):
        scored, _ = self.completed(["ann", "bob"], self.MOVES)
        self.assertEqual(scored, [(0, 5), (1, 5)])


# ---- section 4.2: what the state never shows ------------------------------------------------

class HiddenTile(Case):
    def test_the_tile_under_a_hill_is_never_shown_before_the_end(self):
        # the hill HS/Cc.h.1 hides the next entry, BA/Cccc+ (the only one):
        # no read of the game shows that id to anyone until the game is over
        secret = "BA/Cccc+"
        tiles = ["HS/Cc.h.1", secret, "BA/L", "BA/L"]
        g = self.c.new_game(["ann", "bob"], auth=False, expansions=["base", "hills-sheep"], tiles=tiles, seed=2)
        game = g["game"]
        hill = sorted(self.placements(game))[0]
        res = self.c.apply_move(game, place("HS/Cc.h.1", *hill))
        self.assertIn({"type": "tile_hidden", "x": hill[0], "y": hill[1]}, res["events"])
        with daemon["d"].client("tcp", "json") as other:
            reads = 0
            while True:
                st = other.state(game)
                if st["over"]:
                    break
                texts = [json.dumps(x) for x in (st, other.history(game), other.score(game), other.legal_moves(game),
                                                 other.legal_moves(game, seat=1), other.games())]
                for text in texts:
                    self.assertNotIn(secret, text, "seq %d" % st["seq"])
                reads += 1
                lm = self.c.legal_moves(game)
                self.c.apply_move(game, lm["moves"][-1], seq=lm["seq"])
            self.assertGreaterEqual(reads, 4)
            # once over, the tile order shows it in its place
            self.assertEqual(other.history(game)["tiles"], tiles)


# ---- section 7: the default limits -----------------------------------------------------------

def recv_line(sock, buf=b""):
    """One JSON line from a socket with a timeout, read with plain recv (the
    harness's select takes no descriptor past 1024, and these tests hold
    more): (message, rest, its length with the newline)."""
    while b"\n" not in buf:
        data = sock.recv(1 << 16)
        if not data:
            raise carcd.ConnectionClosed("closed")
        buf += data
    line, rest = buf.split(b"\n", 1)
    return json.loads(line), rest, len(line) + 1


def closed_without_a_word(sock, timeout):
    """Reads until the peer closes: the bytes it sent first, or None when it
    did not close within the timeout."""
    sock.settimeout(timeout)
    got = b""
    try:
        while True:
            data = sock.recv(1 << 16)
            if not data:
                return got
            got += data
    except ConnectionResetError:
        return got
    except socket.timeout:
        return None


class DefaultLimits(unittest.TestCase):
    """Daemons started without options, on the harness's own sockets."""

    def test_1024_connections_by_default(self):
        with harness.Daemon() as d, d.client("unix") as c:
            self.assertTrue(harness.wait_for(lambda: c.stats()["connections"] == 1, 5 * harness.SLOW))
            held = []

            def connect(i):
                s = socket.socket(socket.AF_UNIX if i % 2 else socket.AF_INET)
                s.settimeout(10 * harness.SLOW)
                s.connect(d.unix_path if i % 2 else ("127.0.0.1", d.port))
                return s

            def ping_all():
                for i, s in enumerate(held):
                    s.sendall(b'[0, %d, "ping", {}]\n' % i)
                for i, s in enumerate(held):
                    self.assertEqual(recv_line(s)[0], [1, i, None, {}])

            try:
                for i in range(1023):   # with c: 1024
                    held.append(connect(i))
                ping_all()
                self.assertEqual(c.stats()["connections"], 1024)
                for i in (0, 1):   # one more, over TCP and over the Unix socket
                    with connect(i) as extra:
                        try:
                            extra.sendall(b"ping\n")
                        except (BrokenPipeError, ConnectionResetError):
                            pass
                        self.assertEqual(closed_without_a_word(extra, 5 * harness.SLOW), b"",
                                         "the 1025th connection was not closed at once without a word")
                ping_all()   # every other connection is still served
                self.assertEqual(c.ping(), {})
                self.assertEqual(c.stats()["connections_refused"], 2)
                held.pop().close()   # a place freed is taken again
                self.assertTrue(harness.wait_for(lambda: c.stats()["connections"] == 1023, 5 * harness.SLOW))
                held.append(connect(1))
                ping_all()
            finally:
                for s in held:
                    s.close()
            self.assertTrue(d.alive())

    def test_a_slow_reader_is_cut_off_past_8_mib_by_default(self):
        # two watchers of the same games over JSON lines: one reads
        # everything (and counts the bytes), the other nothing.  The silent
        # one is cut off once its unsent notifications pass 8 MiB: not
        # before, and not much later (a socket buffer and a notification)
        limit = 8 * MIB
        with harness.Daemon(tcp=False) as d, d.client("unix") as player:
            games = [player.new_game(["ann", "bob"], auth=False)["game"] for _ in range(600)]
            socks = []
            for _ in range(2):
                s = socket.socket(socket.AF_UNIX)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.settimeout(20 * harness.SLOW)
                s.connect(d.unix_path)
                s.sendall(b"".join(b'[0, %d, "subscribe", {"game": %d}]\n' % (i, g) for i, g in enumerate(games)))
                socks.append(s)
            reader, silent = socks
            buf = b""
            for i in range(len(games)):
                resp, buf, _ = recv_line(reader, buf)
                self.assertEqual(resp[:3], [1, i, None])
            rng = random.Random("audit18 max output")
            sent, cut, active = 0, False, list(games)
            while active and not cut:
                ids = [player.send("legal_moves", {"game": g}) for g in active]
                lms = [player.response(i) for i in ids]
                active = [lm["game"] for lm in lms if lm["phase"] != "over"]
                ids = [player.send("apply_move", {"game": lm["game"], "move": rng.choice(lm["moves"]),
                                                  "seq": lm["seq"]})
                       for lm in lms if lm["phase"] != "over"]
                for i in ids:
                    player.response(i)
                for _ in ids:   # each move's notification, as the silent watcher was sent it too
                    note, buf, n = recv_line(reader, buf)
                    self.assertEqual(note[:2], [2, "event"])
                    sent += n
                with open(d.log_path, "rb") as f:
                    cut = b"unread, disconnected" in f.read()
            self.assertTrue(cut, "the silent watcher was never cut off (%d bytes sent)" % sent)
            self.assertGreater(sent, limit, "cut off before 8 MiB were unread")
            self.assertLess(sent, limit + MIB, "%d bytes went to a watcher before it was cut off" % sent)
            self.assertIsNotNone(closed_without_a_word(silent, 10 * harness.SLOW), "the silent watcher stays connected")
            self.assertEqual(player.ping(), {})
            for s in socks:
                s.close()


if __name__ == "__main__":
    unittest.main()

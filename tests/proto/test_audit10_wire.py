"""test_audit10_wire.py - what mutation testing of proto/*.c (round 10)
showed no other module checked, against a real daemon (proto/PROTOCOL.md
sections 2 and 5):

- the MessagePack request size limit where a string header itself
  straddles the limit (the tag inside, its length byte past it): `limit`
  and close, while the same shape one byte shorter is served;
- an extension type inside a request whose msgid is 2^32-1, or inside a
  two-element array: the error answers that msgid;
- arrays of no or one element, in both encodings: bad_request with a nil
  msgid, and the connection goes on;
- params given as an array of two maps (JSON shorthand, JSON and
  MessagePack envelopes): invalid_params;
- control characters a JSON client sent, quoted in an error message: the
  reply is still strict JSON, escaping each;
- figure ids written other than exactly as the server writes them
  ("00.follower.1", "0.follower.1x"...): invalid_params, not a figure;
- a move's coordinates at both ends of the range the daemon names
  (-32768 to 32767): the rules judge them; one past: invalid_params;
- large requests one after another: resident memory stays where it was;
- MessagePack fixarrays and fixmaps of 8 to 15 members (the upper half of
  the fix forms' 4-bit counts) in requests: read as the whole container;
- the shorthand `ping []` and `ping null` mean no params, as in an
  envelope ("an empty array or nil mean {}"; the daemon refused them);
- an integral float msgid (5.0) in a request holding an extension type is
  answered (the daemon answered such a request with a nil msgid).

Each test starts a daemon of its own."""

import json
import os
import unittest
from unittest import mock

import msgpack

import harness
from harness import Daemon, packb

EXT = msgpack.ExtType(1, b"x")


class RequestSizeLimit(harness.ReplyAsserts, unittest.TestCase):
    MAX_REQUEST = 64

    def request(self, pad):
        """[0, 1, "ping", {"a": <str8 of pad bytes>, "p": ""}] with the
        last string written as str8 (d9 00): its tag at offset 15 + pad."""
        head = b"\x94\x00\x01\xa4ping\x82\xa1a\xd9" + bytes([pad]) + b"x" * pad + b"\xa1p"
        return head + b"\xd9\x00"

    def test_a_string_header_across_the_limit_is_limit(self):
        """PROTOCOL.md section 5: "MessagePack over the size or depth limit
        ... `limit` (msgid nil), then the connection is closed".  A request
        of --max-request + 1 bytes whose last string's tag is the last byte
        within the limit and its length byte the first past it is over the
        limit; one byte less (47 bytes of padding: exactly --max-request)
        is answered."""
        with Daemon("--max-request", str(self.MAX_REQUEST), tcp=False) as d:
            fits = self.request(47)
            self.assertEqual(len(fits), self.MAX_REQUEST)
            with d.raw("unix") as r:
                r.send(fits)
                self.assertEqual(r.read_one("msgpack", timeout=3), [1, 1, None, {}])
            over = self.request(48)
            self.assertEqual(len(over), self.MAX_REQUEST + 1)
            with d.raw("unix") as r:
                r.send(over)
                resp = r.read_one("msgpack", timeout=3)
                self.assertIsNotNone(resp, "no answer")
                self.assertErrorResponse(resp, "limit", None)
                self.assertTrue(r.closed_by_peer(3), "the connection stayed open after `limit`")


class FixContainers(unittest.TestCase):
    def test_fixmaps_and_fixarrays_of_8_to_15_members(self):
        """PROTOCOL.md section 2: "Parameters the method does not know are
        ignored"; new_game `tiles` is "the supply, exactly, in order".  A
        new_game whose params map has n keys (n from 8 to 15, fixmap 0x88 -
        0x8f) and whose `tiles` has n entries (fixarray 0x98 - 0x9f) makes
        the game, with n - 1 tiles left after the first draw; the stream
        goes on."""
        with Daemon(tcp=False) as d, d.raw("unix") as r:
            for n in range(8, 16):
                params = {"players": ["ann", "bob"], "seed": 1, "tiles": ["BA/Rr"] * n}
                for k in range(n - len(params)):
                    params["x%d" % k] = k
                msg = packb([0, n, "new_game", params])
                self.assertEqual(msg[12], 0x80 | n)   # after 94 00 <n> a8 "new_game"
                r.send(msg)
                resp = r.read_one("msgpack", timeout=3)
                self.assertEqual(resp[:3], [1, n, None], resp)
                self.assertEqual(resp[3]["state"]["tiles_left"], n - 1)
                self.assertEqual(resp[3]["state"]["tile"]["id"], "BA/Rr")
            r.send(packb([0, 99, "ping", {}]))
            self.assertEqual(r.read_one("msgpack", timeout=3), [1, 99, None, {}])


class ExtensionMsgid(harness.ReplyAsserts, unittest.TestCase):
    def assertBadRequest(self, r, msgid):
        self.assertErrorResponse(r.read_one("msgpack", timeout=3), "bad_request", msgid)

    def test_an_extension_type_answers_the_readable_msgid(self):
        """PROTOCOL.md section 5: "a MessagePack object that is not a
        request envelope, or holds an extension type ... `bad_request`
        (msgid nil unless it was readable); the connection goes on", and
        section 2: "msgid: an integer 0..2^32-1 ... An error about an array
        that is no valid request (too few ... elements, a type other than
        0 ...) answers the msgid in its second element whenever that is
        one".  An extension in a request with msgid 2^32-1 (the largest),
        and a two-element array [ext, 7]: each answers its msgid."""
        with Daemon(tcp=False) as d, d.raw("unix") as r:
            r.send(packb([0, 0xffffffff, "ping", {"x": EXT}]))
            self.assertBadRequest(r, 0xffffffff)
            r.send(packb([EXT, 7]))
            self.assertBadRequest(r, 7)
            r.send(packb([0, 0x100000000, "ping", {"x": EXT}]))
            self.assertBadRequest(r, None)
            r.send(packb([0, 8, "ping", {}]))
            self.assertEqual(r.read_one("msgpack", timeout=3), [1, 8, None, {}])


class ShortArrays(harness.ReplyAsserts, unittest.TestCase):
    def test_arrays_of_zero_and_one_elements(self):
        """PROTOCOL.md section 5: "a MessagePack object that is not a
        request envelope ... `bad_request` (msgid nil unless it was
        readable); the connection goes on", and the same for "a JSON line
        that does not parse, or is not a request".  [], [0] and [7] hold no
        msgid: each is answered bad_request with a nil msgid, and the
        connection (and the daemon) go on."""
        with Daemon() as d:
            with d.raw("unix") as r:
                for arr in ([0], [7], [None], []):
                    r.send(packb(arr) if arr else b"\x90")
                    resp = r.read_one("msgpack", timeout=3)
                    self.assertIsNotNone(resp, "no answer to %r" % (arr,))
                    self.assertErrorResponse(resp, "bad_request", None)
                r.send(packb([0, 1, "ping", {}]))
                self.assertEqual(r.read_one("msgpack", timeout=3), [1, 1, None, {}])
            with d.raw("tcp") as r:
                for line in ("[0]", "[7]", "[]"):
                    r.send_line(line)
                    resp = r.read_one("json", timeout=3)
                    self.assertIsNotNone(resp, "no answer to %s" % line)
                    self.assertErrorResponse(resp, "bad_request", None)
                r.send_line("[0, 2, \"ping\", {}]")
                self.assertEqual(r.read_one("json", timeout=3), [1, 2, None, {}])


class JsonLines(harness.ReplyAsserts, unittest.TestCase):
    def test_params_array_of_more_than_one_map_is_invalid(self):
        """PROTOCOL.md section 2: "`params`: a map; or an array holding one
        map (what stock MessagePack-RPC clients send: `[{...}]`)"; the
        contract puts that in the envelope, and an envelope that is not
        valid is bad_request.  An array of two maps, as the params of a
        JSON shorthand line, of a JSON envelope and of a MessagePack
        envelope, is bad_request with the msgid; one map in an array is
        served."""
        with Daemon() as d:
            with d.raw("tcp") as r:
                r.send_line('ping [{}, {}]')
                resp = r.read_one("json", timeout=3)
                self.assertErrorResponse(resp, "bad_request", None)
                r.send_line('[0, 3, "ping", [{}, {}]]')
                resp = r.read_one("json", timeout=3)
                self.assertErrorResponse(resp, "bad_request", 3)
                r.send_line('ping [{}]')
                self.assertEqual(r.read_one("json", timeout=3), [1, None, None, {}])
            with d.raw("unix") as r:
                r.send(packb([0, 4, "ping", [{}, {}]]))
                resp = r.read_one("msgpack", timeout=3)
                self.assertErrorResponse(resp, "bad_request", 4)

    def test_an_integer_past_64_bits_is_out_of_range(self):
        """PROTOCOL.md section 2: "An integer past 64 bits (valid JSON; a
        MessagePack uint64 past int64) is out of range for every
        parameter": the message gives the range, as for any integer
        outside it, and does not say the value is no integer."""
        with Daemon() as d:
            with d.raw("tcp") as r:
                for value in ("18446744073709551616", "-9223372036854775809", "9223372036854775808"):
                    r.send_line('[0, 2, "state", {"game": %s}]' % value)
                    resp = r.read_one("json", timeout=3)
                    self.assertErrorResponse(resp, "invalid_params", 2)
                    self.assertEqual(resp[2]["message"], "parameter `game` must be from 1 to 9223372036854775807")
                r.send_line('[0, 3, "state", {"game": 1.5}]')
                self.assertEqual(r.read_one("json", timeout=3)[2]["message"], "parameter `game` must be an integer")
            with d.raw("unix") as r:
                r.send(packb([0, 4, "state", {"game": 2 ** 63}]))
                resp = r.read_one("msgpack", timeout=3)
                self.assertErrorResponse(resp, "invalid_params", 4)
                self.assertEqual(resp[2]["message"], "parameter `game` must be from 1 to 9223372036854775807")

    def test_a_deep_json_envelope_answers_its_msgid(self):
        """PROTOCOL.md section 2: an error about an array that is no valid
        request "answers the msgid in its second element whenever that is
        one"; section 5: a JSON line nesting deeper than 16 is `limit` and
        the connection goes on.  A client waiting on msgid 7 hears why,
        also past the JSON reader's own depth (3000), and for an array of
        another type ([2, 7, ...]); a msgid that is none (a string, past
        2^32-1) is answered with nil."""
        for depth in (16, 3000):
            deep = "[" * depth + "1" + "]" * depth
            with Daemon(unix=False) as d, d.raw("tcp") as r:
                for line, msgid in (('[0, 7, "ping", %s]' % deep, 7), (' [ 0 , 7.0 , "ping", {"a": %s}]' % deep, 7),
                                    ('[2, 7, "ping", %s]' % deep, 7), ('[0, "7", "ping", %s]' % deep, None),
                                    ('[0, 4294967296, "ping", %s]' % deep, None)):
                    r.send_line(line)
                    self.assertErrorResponse(r.read_one("json", timeout=3), "limit", msgid)
                r.send_line('[0, 8, "ping", {}]')
                self.assertEqual(r.read_one("json", timeout=3), [1, 8, None, {}])

    def test_control_characters_quoted_in_a_message_stay_json(self):
        """PROTOCOL.md section 1: JSON lines are "one JSON text per line";
        section 2: an error's `message` quotes what the client sent ("there
        is no tile ...").  A tile id made of each control character U+0001 -
        U+001F (sent escaped, as JSON wants) comes back in a reply that is
        strict JSON on one line, quoting the same characters."""
        with Daemon() as d, d.client("unix") as c:
            game = c.new_game(["ann"], auth=False)["game"]
            with d.raw("tcp") as r:
                for ch in range(1, 0x20):
                    tile = "x" + chr(ch) + "y"
                    r.send_line(json.dumps([0, ch, "apply_move", {"game": game, "move": {
                        "type": "place_tile", "tile": tile, "x": 1, "y": 0, "rot": 0}}]))
                    resp = r.read_one("json", timeout=3)   # json.loads: strict, no raw control characters
                    self.assertIsNotNone(resp, "no answer (or no JSON) for U+%04X" % ch)
                    self.assertEqual(resp[1], ch)
                    self.assertEqual(resp[2]["code"], "invalid_params", resp)
                    self.assertIn("`%s`" % tile, resp[2]["message"])


class MoveCoordinates(unittest.TestCase):
    def test_coordinates_at_the_ends_of_the_range(self):
        """PROTOCOL.md section 2: invalid_params is "a parameter missing, of
        the wrong type or out of range", illegal_move "the engine refuses
        the move"; the daemon's own message names the range of a move's
        coordinates: "`x` of the move must be an integer from -32768 to
        32767".  place_tile of the drawn tile at x (then y) = -32768 or
        32767 reaches the rules (illegal_move: no neighbour), -32769 and
        32768 are invalid_params; nothing changes."""
        with Daemon(tcp=False) as d, d.client("unix") as c:
            g = c.new_game(["ann"], auth=False, seed=3)
            game, tile = g["game"], g["state"]["tile"]["id"]
            for key in ("x", "y"):
                for v, code in ((-32768, "illegal_move"), (32767, "illegal_move"),
                                (-32769, "invalid_params"), (32768, "invalid_params")):
                    move = {"type": "place_tile", "tile": tile, "x": 0, "y": 0, "rot": 0}
                    move[key] = v
                    self.assertEqual(harness.code_of(c.apply_move, game, move), code, (key, v))
            self.assertEqual(c.state(game), g["state"])


class FigureIds(unittest.TestCase):
    def test_a_figure_id_is_written_exactly(self):
        """PROTOCOL.md section 3: "Figure ids are `<seat>.<kind>.<n>`
        (`"1.follower.3"`), fixed for the game"; Tokens and turns: the move
        is well formed (invalid_params) is checked before it is legal
        (illegal_move).  An `escape` naming 0.follower.1 in a base game is
        well formed and refused by the rules (no escape is open:
        illegal_move); the same figure written otherwise (a leading zero, a
        sign, blanks, trailing text, capitals) names no figure:
        invalid_params.  Nothing changes."""
        with Daemon(tcp=False) as d, d.client("unix") as c:
            g = c.new_game(["ann", "bob"], auth=False, seed=5)
            game = g["game"]
            self.assertEqual(harness.code_of(c.apply_move, game, {"type": "escape", "figure": "0.follower.1"}),
                             "illegal_move")
            self.assertEqual(harness.code_of(c.apply_move, game, {"type": "escape", "figure": "1.follower.7"}),
                             "illegal_move")
            for fid in ("00.follower.1", "0.follower.01", "+0.follower.1", " 0.follower.1", "0.follower.1 ",
                        "0.follower.1x", "0.follower.1.", "0.Follower.1", "0..1", "0.follower.", ".follower.1",
                        "0.follower.0000001", "0.follower", "0", "0-follower.1", "0 follower.1",
                        "0.follower-1"):
                self.assertEqual(harness.code_of(c.apply_move, game, {"type": "escape", "figure": fid}),
                                 "invalid_params", fid)
            self.assertEqual(c.state(game), g["state"])


class LargeRequestsMemory(unittest.TestCase):
    def test_large_requests_leave_no_memory_behind(self):
        """PROTOCOL.md section 5: a MessagePack request may be up to 1 MiB
        (`--max-request`); section 4 stats: `memory.rss`.  Served one after
        another on one connection, 60 requests of about 900 KiB each (a
        string an unknown parameter holds, which is ignored) leave the
        daemon's resident memory where one such request left it, within
        16 MiB: what a request needed is given back."""
        big = "x" * (900 << 10)
        # under AddressSanitizer freed memory waits in a quarantine (256 MiB)
        # before it is reused or given back: none for this daemon, whose
        # resident memory is the point (no effect on a plain build)
        asan = ":".join(filter(None, (os.environ.get("ASAN_OPTIONS"), "quarantine_size_mb=0")))
        # valgrind's memcheck likewise holds freed blocks back from reuse,
        # up to --freelist-vol (20 MB): the resident memory of a daemon run
        # under it grew by 16.3 MB in every run and, under load, by the full
        # 20 MB, past the bound
        wrapper = harness.WRAPPER + ["--freelist-vol=0"] if harness.WRAPPER else []
        with mock.patch.dict(os.environ, {"ASAN_OPTIONS": asan}), mock.patch.object(harness, "WRAPPER", wrapper), \
                Daemon(tcp=False) as d, d.raw("unix") as r:
            for i in range(3):
                r.send(packb([0, i, "ping", {"pad": big}]))
                self.assertEqual(r.read_one("msgpack", timeout=5), [1, i, None, {}])
            before = harness.vmrss_kib(d.proc.pid)
            for i in range(3, 63):
                r.send(packb([0, i, "ping", {"pad": big}]))
                self.assertEqual(r.read_one("msgpack", timeout=5), [1, i, None, {}])
            after = harness.vmrss_kib(d.proc.pid)
            self.assertLess(after - before, 16 << 10, "resident memory grew from %d to %d KiB" % (before, after))


class ShorthandEmptyParams(unittest.TestCase):
    def test_shorthand_params_empty_array_or_null_mean_no_params(self):
        """PROTOCOL.md section 2: "`params`: a map; or an array holding one map
        ...; an empty array or nil mean `{}`", and the JSON line shorthand is
        "`method {json params}`": `ping [{}]`, `ping []` and `ping null` are
        served as [0, 1, "ping", []] and [0, 1, "ping", null] are; `ping 5`
        and `ping [{}, {}]` are bad_request, as such an envelope is."""
        with Daemon(unix=False) as d, d.raw("tcp") as r:
            for line in ("ping [{}]", "ping []", "ping null", "ping  [ ] "):
                r.send_line(line)
                self.assertEqual(r.read_one("json", timeout=3), [1, None, None, {}], line)
            for line in ("ping 5", "ping [{}, {}]", 'ping "x"', "ping [5]"):
                r.send_line(line)
                resp = r.read_one("json", timeout=3)
                self.assertEqual(resp[2]["code"], "bad_request", (line, resp))


class FloatMsgidWithExtension(unittest.TestCase):
    def test_an_integral_float_msgid_is_answered_with_an_extension_inside(self):
        """PROTOCOL.md section 2: "Integers may also be sent as integral floats
        (`5.0`)"; "msgid: an integer 0..2^32-1, echoed in the response";
        "An error about an array that is no valid request ... answers the
        msgid in its second element whenever that is one"; section 5: an
        extension type is "bad_request (msgid nil unless it was readable)".
        [0, 5.0, "ping", {}] is answered with msgid 5, and
        [0, 5, "ping", {"x": ext}] with msgid 5, but
        so must [0, 5.0, "ping", {"x": ext}] be (the path for an envelope
        msgpack-c reads but the daemon cannot took only MessagePack integers
        as msgids); a fractional or negative float is no msgid."""
        with Daemon(tcp=False) as d, d.raw("unix") as r:
            r.send(packb([0, 5.0, "ping", {}]))
            self.assertEqual(r.read_one("msgpack", timeout=3), [1, 5, None, {}])
            r.send(packb([0, 5.0, "ping", {"x": EXT}]))
            resp = r.read_one("msgpack", timeout=3)
            self.assertEqual(resp[2]["code"], "bad_request", resp)
            self.assertEqual(resp[1], 5, resp)
            for bad in (5.5, -1.0, float(1 << 32)):
                r.send(packb([0, bad, "ping", {"x": EXT}]))
                resp = r.read_one("msgpack", timeout=3)
                self.assertEqual(resp[2]["code"], "bad_request", (bad, resp))
                self.assertIsNone(resp[1], (bad, resp))


if __name__ == "__main__":
    unittest.main()

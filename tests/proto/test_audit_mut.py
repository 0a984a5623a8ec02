"""test_audit_mut.py - what the mutation testing of proto/ and daemon/
showed no test checked (proto/PROTOCOL.md sections 4 and 5):

- --max-output: a watcher that reads nothing is cut off once more than
  --max-output bytes of notifications wait for it, not at some larger
  amount (a cut-off at twice the limit passed every other test);
- tokens and admin tokens are "32 hex digits": the same digits written in
  capitals are the same token.

Each test starts daemons of its own."""

import socket
import unittest

import harness
from harness import Daemon
import carcd  # noqa: E402  (harness puts contrib/python on the path)

LIMIT = 1 << 20   # --max-output for the slow-reader test


class MaxOutput(unittest.TestCase):
    def test_a_watcher_is_cut_off_at_max_output_not_later(self):
        """PROTOCOL.md section 5: "past --max-output unread (8 MiB by
        default) the connection is closed".  Two watchers of the same games
        over JSON lines: one reads everything (it counts the bytes), the
        other reads nothing.  When the daemon logs the cut-off, the bytes
        sent to the silent one are at most --max-output plus what the socket
        buffers took (far below --max-output / 2 here) plus a notification."""
        with Daemon("--max-output", str(LIMIT), tcp=False) as d, d.client("unix") as player:
            games = [player.new_game(["ann", "bob"], auth=False)["game"] for _ in range(200)]
            socks = []
            for _ in range(2):
                s = socket.socket(socket.AF_UNIX)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect(d.unix_path)
                s.sendall(b"".join(b'[0, %d, "subscribe", {"game": %d}]\n' % (i, g) for i, g in enumerate(games)))
                socks.append(s)
            reader, silent = socks
            reader.settimeout(10)
            buf = b""
            while buf.count(b"\n") < len(games):   # the subscribe replies
                buf += reader.recv(1 << 16)
            buf = buf.split(b"\n", len(games))[-1]
            sent, moves, cut = 0, 0, False
            rng = harness.new_rng("max output cut")
            for g in games:
                while not cut:
                    lm = player.legal_moves(g)
                    if not lm["moves"]:
                        break
                    player.apply_move(g, rng.choice(lm["moves"]))
                    moves += 1
                    while buf.count(b"\n") < 1:   # this move's notification
                        buf += reader.recv(1 << 16)
                    line, buf = buf.split(b"\n", 1)
                    sent += len(line) + 1
                    cut = "unread, disconnected" in d.log_tail(3)
                if cut:
                    break
            self.assertTrue(cut, "the silent watcher was never cut off (%d bytes, %d moves)" % (sent, moves))
            self.assertGreater(sent, LIMIT, "cut off before --max-output was unread")
            self.assertLess(sent, LIMIT + LIMIT // 2,
                            "%d bytes of notifications went to a watcher before it was cut off at --max-output %d"
                            % (sent, LIMIT))
            self.assertEqual(player.ping(), {})
            for s in socks:
                s.close()


class HexTokens(unittest.TestCase):
    def test_tokens_in_capitals_are_the_same_tokens(self):
        """PROTOCOL.md section 4, new_game: a token and the admin token are
        "32 hex digits"; A-F are the same hex digits as a-f."""
        with Daemon() as d, d.client("unix") as c:
            g = c.new_game(["ann", "bob"])
            game, seats = g["game"], g["seats"]
            for s in seats:
                self.assertRegex(s["token"], r"^[0-9a-f]{32}$")
            lm = c.legal_moves(game)
            due = lm["seat"]
            r = c.apply_move(game, lm["moves"][0], token=seats[due]["token"].upper(), seq=lm["seq"])
            self.assertEqual(r["seq"], 1)
            # a seat's token in capitals is still that seat: not_your_turn for
            # the other seat, not forbidden
            other = seats[1 - c.legal_moves(game)["seat"]]["token"].upper()
            with self.assertRaises(carcd.Error) as cm:
                c.apply_move(game, c.legal_moves(game)["moves"][0], token=other)
            self.assertEqual(cm.exception.code, "not_your_turn", cm.exception.message)
            self.assertEqual(c.close_game(game, g["admin_token"].upper()), {})
            with self.assertRaises(carcd.Error) as cm:
                c.state(game)
            self.assertEqual(cm.exception.code, "no_such_game")

if __name__ == "__main__":
    unittest.main()

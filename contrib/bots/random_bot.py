#!/usr/bin/python3
"""random_bot.py - plays Carcassonne against carcd by picking random legal moves.

Three ways to play:

  # make a game and play every seat of it (a bot-versus-bot game)
  random_bot.py --address unix:/run/carcd/carcd.sock --players 2

  # make a game for people and bots, play seat 0, print the other seats' tokens
  random_bot.py --players 2 --seat 0

  # join a game someone else made, with the token of one seat
  CARCD_TOKEN=3f9c... random_bot.py --game 7 [--seat 1]

  # (with no token and no --seat it plays every seat of an auth-false game;
  # --token T works too, but puts T where every user of the machine can
  # read it, on the command line)

A game it makes may take expansions, rule options and components:

  random_bot.py --players 6 --expansions base,river,abbey-mayor,hills-sheep \
                --rule abbey_final_round=true --component large=true

The bot is carcd.Player (contrib/python/carcd.py) with a random choice.  It
waits for its turns through `subscribe` notifications, which carry the legal
moves of each decision (`subscribe`'s `moves`; from a daemon without it the
bot asks `legal_moves` at each decision), and sends one of them at random
with `apply_move`, passing `seq` so that it never plays on a stale state.
When it does not know which seat its token holds it simply tries: `not_your_turn`
tells it the seat due is not its own.  While it waits it pings the daemon
now and then (every 60 s, or a third of the daemon's idle timeout when that
is less; --keepalive sets it), so that a long wait does not get its connection
closed as idle.  It prints the final scores as JSON and exits 0 when the game
is over; 1 when the daemon refused a request (the error on stderr), 2 on bad
usage, 3 when the daemon cannot be reached, the connection is lost or nothing
happens for --timeout seconds.  A reader of its stdout that goes away does
not stop it: it plays on and writes nothing more.
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import carcd  # noqa: E402


key_value, seconds = carcd.argparse_type(carcd.parse_key_value), carcd.argparse_type(carcd.parse_seconds)


def parse_args(argv):
    p = argparse.ArgumentParser(description="Play random legal moves against carcd until the game ends.")
    p.add_argument("--address", "-a", default=None,
                   help="tcp:HOST:PORT, tls:HOST:PORT or unix:PATH (default $CARCD_ADDRESS or %s)" % carcd.DEFAULT_ADDRESS)
    p.add_argument("--encoding", choices=("msgpack", "json"), default=None)
    p.add_argument("--game", type=int, help="join this game (needs --token unless it was made with auth false)")
    p.add_argument("--token", default=os.environ.get("CARCD_TOKEN"), help="seat token (default $CARCD_TOKEN)")
    p.add_argument("--seat", type=int, help="the seat to play (default: every seat of a game it makes)")
    p.add_argument("--players", type=int, help="seats of a game it makes, 1 to 6 (default 2)")
    p.add_argument("--expansions", help="comma-separated expansions of a game it makes (default base)")
    p.add_argument("--seed", type=int, help="game seed of a game it makes")
    p.add_argument("--rule", action="append", type=key_value, metavar="KEY=VALUE",
                   help="a rule option of a game it makes, e.g. abbey_final_round=true (repeat for more)")
    p.add_argument("--component", action="append", type=key_value, metavar="KIND=BOOL",
                   help="a component of a game it makes on or off, e.g. large=true (repeat for more)")
    p.add_argument("--rng", type=int, help="seed of the bot's own choices (default: random)")
    p.add_argument("--timeout", type=seconds, default=600.0,
                   help="give up when nothing happens for this many seconds (default 600)")
    p.add_argument("--keepalive", type=seconds,
                   help="ping the daemon after this many quiet seconds while waiting (default 60, or a third of "
                        "the daemon's idle timeout when that is less)")
    p.add_argument("--verbose", "-v", action="store_true", help="print each move on stderr")
    a = p.parse_args(argv)
    made = [o for o, v in (("--players", a.players), ("--expansions", a.expansions), ("--seed", a.seed),
                           ("--rule", a.rule), ("--component", a.component)) if v is not None]
    if a.game is not None and made:
        p.error("%s: only for a game the bot makes, not with --game" % ", ".join(made))
    if a.players is None:
        a.players = 2
    if a.game is None and not 1 <= a.players <= 6:
        p.error("--players is 1 to 6, not %d" % a.players)
    if a.game is None and a.seat is not None and not 0 <= a.seat < a.players:
        p.error("no seat %d in a %d-player game" % (a.seat, a.players))
    try:
        carcd.parse_address(a.address or os.environ.get("CARCD_ADDRESS") or carcd.DEFAULT_ADDRESS)
    except ValueError as e:
        p.error(str(e))
    return a


def emit(obj):
    """One JSON line on stdout.  A reader that went away (`random_bot.py ...
    | head -1`) does not stop the game: the bot plays on, writing nothing more."""
    try:
        print(json.dumps(obj), flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv=None):
    args = parse_args(argv)
    rng = random.Random(args.rng)
    try:
        # a response is something happening: wait for it no longer than --timeout
        with carcd.Client(args.address, encoding=args.encoding, timeout=min(60.0, args.timeout),
                          client_name="random_bot.py") as c:
            if args.game is None:
                opts = {"expansions": carcd.split_names("base" if args.expansions is None else args.expansions)}
                if args.seed is not None:
                    opts["seed"] = args.seed
                if args.rule:
                    opts["rules"] = dict(args.rule)
                if args.component:
                    opts["components"] = dict(args.component)
                g = c.new_game(["random %d" % i for i in range(args.players)], **opts)
                game = g["game"]
                seats = {s["seat"]: s["token"] for s in g["seats"]}
                if args.seat is not None:
                    others = {str(s): t for s, t in seats.items() if s != args.seat}
                    emit({"game": game, "admin_token": g["admin_token"], "tokens": others})
                    seats = {args.seat: seats[args.seat]}
            else:
                game = args.game
                seats = ({carcd.ALL_SEATS: None} if args.token is None and args.seat is None
                         else {args.seat: args.token})
                if args.seat is not None:
                    nseats = len(c.state(game)["seats"])
                    if not 0 <= args.seat < nseats:
                        print("random_bot: no seat %d in game %d, which has %d" % (args.seat, game, nseats),
                              file=sys.stderr)
                        return 2

            def say(due, move):
                print("seat %d seq %d: %s" % (due["seat"], due["seq"], json.dumps(move)), file=sys.stderr)
            # keepalive None: within the daemon's idle timeout (Player asks
            # hello), or a wait for a slow seat loses the connection
            bot = carcd.Player(c, game, seats, lambda due: rng.choice(due["moves"]),
                               on_move=say if args.verbose else None, keepalive=args.keepalive)
            score = bot.play(args.timeout)
            emit({"game": game, "moves_played": bot.moves_played, "scores": score["scores"],
                  "final": score["final"]})
    except carcd.Error as e:
        print("random_bot: %s" % e, file=sys.stderr)
        return 1
    except (carcd.ConnectionClosed, TimeoutError, OSError) as e:
        print("random_bot: %s" % e, file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

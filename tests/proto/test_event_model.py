"""Can a UI follow a game from its events alone?

A Carcassonne UI joins a game by asking `state` (shared/design/PROTOCOL.md
section 4.2) and from then on keeps its picture of the table up to date
from the events of each move (section 6; proto/PROTOCOL.md "Events").  If
an event is missing or says the wrong thing, that UI shows a board the
players are not playing on: a meeple that went home still standing in a
city, a score that lags behind, a supply that says "no followers left".

This test is such a UI.  It plays random games through the daemon: every
expansion that `hello` lists as available, and random subsets of them,
with 2 to 6 seats, random rule options and now and then a component
switched on or off.  It builds its OWN model of each game from nothing but
the game's `new_game` answer and the events each `apply_move` returns, and
after every move compares that model with what `state` says:

- the board: every tile (id, x, y, rot) in placement order, the abbeys
  too, and never a tile that went face down under a hill;
- every figure on the board: id, kind, and where it stands (x, y, at,
  ports, feature), as `deployed` (a wagon's move too) and `returned` put
  it; a shepherd's sheep as `sheep_drawn` added them;
- each seat's score (the sum of its `scored` points), its supply of
  figures (what `deployed` took and `returned` gave back, the abbey that
  `tile_placed` used) and its tokens (`token_taken`: the king and the
  robber pass from seat to seat, goods pile up);
- the tile of the turn going on (`tile_drawn` shows it; it stays once
  placed, until the next `turn`; none after the abbey, which is never
  drawn, nor in the final round) and `tiles_left`: each `tile_drawn` and
  each `tile_hidden` takes a tile from the supply, a `tile_discarded` with
  `why: "reshuffled"` puts one back under it;
- the phase, the seat due and `over` that `apply_move` answered.

The model is written from the protocol documents only, not from the
daemon's sources: it is an independent reading of the contract.  Any
disagreement fails the game with a reproduction: the new_game parameters
(with the seed, so the same tiles come), every move in order, the events
of the last move and the fields that differ.

EVENT_MODEL_GAMES sets how many games to play (default 60, some seconds);
CARCD_TEST_SEED changes the random configurations and moves;
EVENT_MODEL_VERBOSE=1 prints how many games, moves and events of each kind
the run checked.
"""

import collections
import json
import os
import random
import time
import unittest

import harness
from test_expansions import Bot

daemon, setUpModule, tearDownModule = harness.module_daemon()

# 60 games take some seconds; under valgrind (make check-valgrind) the
# daemon is some twenty times slower, and a few games do.
GAMES = int(os.environ.get("EVENT_MODEL_GAMES") or (8 if harness.WRAPPER else 60))

# Section 6 of the contract: the goods a city gives, counted in `tokens`;
# the king and the robber are held by one seat at a time, shown as true.
GOODS = ("wine", "grain", "cloth")
HELD = ("king", "robber")
# Scores that belong to no place (proto/PROTOCOL.md: x, y, at, ports nil).
PLACELESS = ("trade", "king", "robber")


class Disagreement(AssertionError):
    pass


# ---- the configurations ------------------------------------------------------------------

def random_config(rng, hello, index):
    """new_game parameters for game number index: every third game has all
    the expansions hello lists as available, the others a random subset
    (mostly with the base game, sometimes without); 2 to 6 seats; each rule
    option set to a random value of its own half of the time; one game in
    four switches a component or two on or off."""
    available = [e["name"] for e in hello["expansions"] if e["available"]]
    if index == 1:
        # Random games hardly ever discard a tile (no river tile is ever
        # left without a place): this one starts with the spring boxed in
        # by three tiles (tests/scenarios/river-16), so the river tile drawn
        # second fits nowhere and is discarded.
        boxed = [{"tile": "RI/s", "x": 0, "y": 0, "rot": 0}, {"tile": "BA/C", "x": 1, "y": -1, "rot": 0},
                 {"tile": "BA/C", "x": 2, "y": 0, "rot": 0}, {"tile": "BA/C", "x": 1, "y": 1, "rot": 180}]
        return {"players": ["p0", "p1", "p2"], "expansions": ["base", "river", "river2"], "start": boxed,
                "tiles": ["BA/C", "RI.2/II", "RI.2/I.v", "BA/RFr", "BA/L", "BA/CRr", "BA/RRR"],
                "seed": rng.randrange(2 ** 53)}
    if index % 3 == 0:
        expansions = list(available)
    else:
        others = [e for e in available if e != "base"]
        expansions = rng.sample(others, rng.randint(0, len(others)))
        if not expansions or rng.random() < 0.9:
            expansions.append("base")
        elif "river" not in expansions and "river2" not in expansions:
            # without the base game the standard start tile is not in the
            # game: only a river game (which starts at the spring) is made
            expansions.append(rng.choice(("river", "river2")))
        expansions.sort(key=available.index)
    rules = {}
    for r in hello["rules"]:
        if rng.random() < 0.5:
            continue
        if r["type"] == "integer":
            rules[r["key"]] = rng.randint(r["min"], min(r["max"], 20))
        else:
            rules[r["key"]] = rng.choice(r["values"])
    params = {"players": ["p%d" % i for i in range(rng.randint(2, 6))],
              "expansions": expansions, "rules": rules, "seed": rng.randrange(2 ** 53)}
    if rng.random() < 0.25:
        comps = [c["name"] for c in hello["components"] if c["available"]]
        params["components"] = {c: rng.random() < 0.5 for c in rng.sample(comps, rng.randint(1, 2))}
    return params


def event_key(ev, model):
    """What kind of change an event is, to count what the games showed:
    its type and the detail that matters to the model."""
    t = ev["type"]
    if t == "deployed":
        return (t, ev["kind"], "moved" if ev["figure"] in model.figures else "new")
    if t in ("returned", "tile_discarded"):
        return (t, ev["why"])
    if t == "token_taken":
        return (t, ev["token"], "from" if ev.get("from") is not None else "")
    if t == "sheep_drawn":
        return (t, "wolf" if ev["token"] == "wolf" else "sheep")
    if t == "tile_placed":
        return (t, "abbey" if ev["tile"] == "AM/A" else "tile")
    if t == "scored":
        return (t, ev["feature"])
    return (t,)


# ---- the model -----------------------------------------------------------------------------

class Model:
    """What a UI knows of one game: the new_game answer's state, then the
    events of every move applied in order."""

    def __init__(self, state):
        # The starting picture, as a UI that joins at seq 0 sees it.
        self.seq = state["seq"]
        self.phase, self.seat, self.over = state["phase"], state["seat"], state["over"]
        self.tile = dict(state["tile"]) if state["tile"] else None
        self.tiles_left = state["tiles_left"]
        self.board = [{"tile": b["tile"], "x": b["x"], "y": b["y"], "rot": b["rot"]} for b in state["board"]]
        self.where = {(b["x"], b["y"]) for b in self.board}
        self.figures = {}
        for b in state["board"]:
            for f in b["figures"]:
                self.figures[f["id"]] = dict(f, x=b["x"], y=b["y"], seat=int(f["id"].split(".")[0]))
        self.scores = [s["score"] for s in state["seats"]]
        self.supply = [dict(s["supply"]) for s in state["seats"]]
        self.tokens = [dict(s["tokens"]) for s in state["seats"]]
        # the seat whose turn the last `turn` event began; a UI that joins
        # while another seat decides (a wagon's owner, say) learns it from
        # the next `turn`
        self.turn_seat = state["seat"] if state["phase"] in ("tile", "action") else None

    def fail(self, ev, why):
        raise Disagreement("the event %s cannot be applied: %s" % (json.dumps(ev), why))

    def apply(self, result, seen=None):
        """Take in one apply_move result: its events in order, then the
        decision it announces."""
        for ev in result["events"]:
            if seen is not None:
                seen[event_key(ev, self)] += 1
            getattr(self, "on_" + ev["type"], self.on_unknown)(ev)
        self.seq = result["seq"]
        self.phase, self.seat, self.over = result["phase"], result["seat"], result["over"]
        if self.over or self.phase == "abbey_final":
            self.tile = None   # "null ... in `abbey_final` and at the end"
        elif self.phase in ("tile", "action") and self.turn_seat is not None and self.seat != self.turn_seat:
            # section 5: the player on turn decides these phases
            raise Disagreement("the seat due in phase %s is %s, the last `turn` event began seat %s's turn"
                               % (self.phase, self.seat, self.turn_seat))

    def on_unknown(self, ev):
        self.fail(ev, "section 6 lists no such event type")

    # tiles
    def on_tile_drawn(self, ev):
        # "the next player's tile": the tile to place now; one fewer in the supply
        if self.turn_seat is not None and ev["seat"] != self.turn_seat:
            self.fail(ev, "drawn for another seat than the one on turn (%s)" % self.turn_seat)
        self.tile = {"id": ev["tile"], "drawn_by": ev["seat"]}
        self.tiles_left -= 1

    def on_tile_placed(self, ev):
        # a tile (the abbey too) goes onto an empty place of the board
        if (ev["x"], ev["y"]) in self.where:
            self.fail(ev, "a tile already lies at %d,%d" % (ev["x"], ev["y"]))
        self.board.append({k: ev[k] for k in ("tile", "x", "y", "rot")})
        self.where.add((ev["x"], ev["y"]))
        if ev["tile"] == "AM/A":
            self.tile = None  # placed instead of a draw: no tile this turn
            # the abbey is placed instead of a drawn tile: supply.abbey 1 -> 0
            self.take(ev, ev["seat"], "abbey")

    def on_tile_discarded(self, ev):
        # unplaceable: gone; reshuffled: back under the supply
        if self.tile is not None and self.tile["id"] == ev["tile"]:
            self.tile = None
        if ev["why"] == "reshuffled":
            self.tiles_left += 1
        elif ev["why"] != "unplaceable":
            self.fail(ev, "why is neither unplaceable nor reshuffled")

    def on_tile_hidden(self, ev):
        # a tile of the supply goes face down under the hill at (x, y): the
        # board does not change, the supply has one fewer
        if (ev["x"], ev["y"]) not in self.where:
            self.fail(ev, "no tile at %d,%d to hide one under" % (ev["x"], ev["y"]))
        self.tiles_left -= 1

    # figures
    def take(self, ev, seat, kind):
        if self.supply[seat].get(kind, 0) <= 0:
            self.fail(ev, "seat %d has no %s left to use" % (seat, kind))
        self.supply[seat][kind] -= 1

    def on_deployed(self, ev):
        fid, seat, kind = ev["figure"], ev["seat"], ev["kind"]
        if fid.split(".")[:2] != [str(seat), kind]:
            self.fail(ev, "the figure id is not <seat>.<kind>.<n>")
        self.check_place(ev)
        old = self.figures.get(fid)
        if old is None:
            # out of the seat's supply onto the board
            self.take(ev, seat, kind)
            fig = {"id": fid, "kind": kind, "seat": seat}
            if kind == "shepherd":
                fig["sheep"] = []
        else:
            # a figure already on the board that moves keeps its id and what
            # lies beside it (none has so far: a wagon whose feature scored
            # comes home with `returned`, and its move is a new `deployed`)
            fig = old
        fig.update(x=ev["x"], y=ev["y"], at=ev["at"], ports=list(ev["ports"]), feature=ev["feature"])
        self.figures[fid] = fig

    def on_returned(self, ev):
        fig = self.figures.pop(ev["figure"], None)
        if fig is None:
            self.fail(ev, "the figure is not on the board")
        if fig["seat"] != ev["seat"]:
            self.fail(ev, "the figure belongs to seat %d" % fig["seat"])
        self.supply[ev["seat"]][fig["kind"]] = self.supply[ev["seat"]].get(fig["kind"], 0) + 1

    def on_sheep_drawn(self, ev):
        # the seat's shepherd at (x, y) gets a sheep; a wolf adds none (the
        # `returned` events that follow say what it does)
        shepherds = [f for f in self.figures.values()
                     if f["kind"] == "shepherd" and f["seat"] == ev["seat"] and (f["x"], f["y"]) == (ev["x"], ev["y"])]
        if len(shepherds) != 1:
            self.fail(ev, "seat %d has no shepherd at %d,%d" % (ev["seat"], ev["x"], ev["y"]))
        if ev["token"] != "wolf":
            shepherds[0]["sheep"] = sorted(shepherds[0]["sheep"] + [ev["token"]])

    # points and tokens
    def on_scored(self, ev):
        self.scores[ev["seat"]] += ev["points"]
        if ev["feature"] in PLACELESS:
            if (ev["x"], ev["y"], ev["at"]) != (None, None, None):
                self.fail(ev, "a %s score belongs to no place" % ev["feature"])
        else:
            self.check_place(ev)

    def check_place(self, ev):
        # a UI shows a completed or scored feature where the event says: on
        # a tile of the board, at one of the feature's ports there
        if (ev["x"], ev["y"]) not in self.where:
            self.fail(ev, "no tile at %s,%s" % (ev["x"], ev["y"]))
        if not ev["ports"] or ev["at"] != ev["ports"][0]:
            self.fail(ev, "`at` is not the first of `ports`")

    def on_token_taken(self, ev):
        seat, token = ev["seat"], ev["token"]
        if token in HELD:
            # `from` is the seat that held it before; that seat no longer has it
            if ev.get("from") is not None:
                self.tokens[ev["from"]].pop(token, None)
            self.tokens[seat][token] = True
        elif token in GOODS:
            self.tokens[seat][token] = self.tokens[seat].get(token, 0) + 1
        else:
            self.fail(ev, "no such token")

    def on_feature_completed(self, ev):
        self.check_place(ev)   # nothing on the table changes by itself

    def on_turn(self, ev):
        self.turn_seat = ev["seat"]
        self.tile = None  # until its draw

    def on_game_over(self, ev):
        if ev["scores"] != self.scores:
            self.fail(ev, "the scored events add up to %s" % self.scores)

    # what state would say
    def view(self):
        figures_at = {}
        for f in self.figures.values():
            shown = {k: f[k] for k in ("id", "kind", "at", "ports", "feature")}
            if "sheep" in f:
                shown["sheep"] = f["sheep"]
            figures_at.setdefault((f["x"], f["y"]), []).append(shown)
        return {
            "seq": self.seq, "phase": self.phase, "seat": self.seat, "over": self.over,
            "tile": self.tile, "tiles_left": self.tiles_left,
            "board": [(b["tile"], b["x"], b["y"], b["rot"]) for b in self.board],
            "figures": {xy: sorted(fs, key=lambda f: f["id"]) for xy, fs in figures_at.items()},
            "scores": self.scores, "supply": self.supply, "tokens": self.tokens,
        }


def state_view(st):
    """The same fields, read from a state."""
    figures_at = {}
    for b in st["board"]:
        if b["figures"]:
            figures_at[(b["x"], b["y"])] = sorted(b["figures"], key=lambda f: f["id"])
    return {
        "seq": st["seq"], "phase": st["phase"], "seat": st["seat"], "over": st["over"],
        "tile": st["tile"], "tiles_left": st["tiles_left"],
        "board": [(b["tile"], b["x"], b["y"], b["rot"]) for b in st["board"]],
        "figures": figures_at,
        "scores": [s["score"] for s in st["seats"]],
        "supply": [s["supply"] for s in st["seats"]],
        "tokens": [s["tokens"] for s in st["seats"]],
    }


def differences(model, st):
    """Each field where the model and the state disagree, in words."""
    mine, theirs = model.view(), state_view(st)
    out = []
    for key in ("seq", "phase", "seat", "over", "tile", "tiles_left", "scores"):
        if mine[key] != theirs[key]:
            out.append("%s: events say %s, state says %s" % (key, json.dumps(mine[key]), json.dumps(theirs[key])))
    if mine["board"] != theirs["board"]:
        a, b = set(mine["board"]), set(theirs["board"])
        if a == b:
            out.append("board: the same tiles in another order")
        for t in sorted(a - b):
            out.append("board: events placed %s %d,%d rot %d, state has not" % t)
        for t in sorted(b - a):
            out.append("board: state has %s %d,%d rot %d, no event placed it" % t)
    for xy in sorted(set(mine["figures"]) | set(theirs["figures"])):
        a, b = mine["figures"].get(xy, []), theirs["figures"].get(xy, [])
        if a != b:
            out.append("figures at %d,%d: events say %s, state says %s" % (xy + (json.dumps(a), json.dumps(b))))
    for seat, (a, b) in enumerate(zip(mine["supply"], theirs["supply"])):
        if a != b:
            out.append("seat %d supply: events say %s, state says %s" % (seat, json.dumps(a), json.dumps(b)))
    for seat, (a, b) in enumerate(zip(mine["tokens"], theirs["tokens"])):
        if a != b:
            out.append("seat %d tokens: events say %s, state says %s" % (seat, json.dumps(a), json.dumps(b)))
    for seat in st["seats"]:
        if seat["prisoners"] != []:
            out.append("seat %d prisoners: no event took any, state says %s" % (seat["seat"], seat["prisoners"]))
    if st["neutral"] != {"dragon": None, "fairy": None, "count": None}:
        out.append("neutral: no event moved one, state says %s" % json.dumps(st["neutral"]))
    return out


# ---- one game ------------------------------------------------------------------------------

class BotChoice:
    """An rng for harness.play_random_game whose choice() asks
    test_expansions' Bot, which leans towards the expansions' rarer
    decisions (cult places next to cloisters, figures on centre buildings,
    abbeys kept for the final round); legal() must show it each decision."""

    def __init__(self, seed):
        self.bot, self.lm = Bot(seed), None

    def saw(self, lm):
        self.lm = lm
        return lm

    def choice(self, moves):
        return self.bot.choose(self.lm)


class Game:
    """One random game followed by a model of its own, and by a second
    model that joins at a random move from that move's state, as a UI that
    opens a game already under way; the record for a reproduction."""

    def __init__(self, client, params, rng, seen, bot=False):
        self.c, self.params, self.rng, self.seen, self.bot = client, params, rng, seen, bot
        self.moves = []
        self.joined_at = None

    def play(self):
        c = self.c
        g = c.new_game(**self.params)
        game = g["game"]
        tokens = [s["token"] for s in g["seats"]]
        self.model = Model(g["state"])
        self.joiner = None
        join_chance = self.rng.choice((0.01, 0.003))
        self.check(self.model, c.state(game), [])

        def play(lm, move):
            self.moves.append(move)
            res = c.apply_move(game, move, token=tokens[lm["seat"]], seq=lm["seq"])
            st = c.state(game)
            for model in (self.model, self.joiner):
                if model is None:
                    continue
                try:
                    model.apply(res, self.seen if model is self.model else None)
                except Disagreement as e:
                    raise Disagreement(self.reproduction(model, res["events"], [str(e)])) from None
                self.check(model, st, res["events"])
            if self.joiner is None and not st["over"] and self.rng.random() < join_chance:
                self.joiner, self.joined_at = Model(st), len(self.moves)
            return res

        if self.bot:
            chooser = BotChoice(self.rng.randrange(1 << 30))
            legal = lambda: chooser.saw(c.legal_moves(game))  # noqa: E731
        else:
            chooser, legal = self.rng, lambda: c.legal_moves(game)  # noqa: E731
        harness.play_random_game(play, legal, chooser, max_moves=3000)
        return len(self.moves)

    def check(self, model, st, events):
        diff = differences(model, st)
        if diff:
            raise Disagreement(self.reproduction(model, events, diff))

    def reproduction(self, model, events, diff):
        who = ("a model built from the events since new_game" if model is self.model else
               "a model that joined with the state after move %d" % self.joined_at)
        return "\n".join(
            ["%s disagrees with state after move %d" % (who, len(self.moves))]
            + ["  " + d for d in diff]
            + ["new_game %s" % json.dumps(self.params),
               "events of the last move: %s" % json.dumps(events),
               "moves (each with the token of the seat legal_moves names):"]
            + ["  %d %s" % (i + 1, json.dumps(m)) for i, m in enumerate(self.moves)])


# Every event type of section 6 that the built expansions make: the games
# together must have shown each, or they did not test much.
WANT_EVENTS = {"tile_drawn", "tile_placed", "tile_discarded", "tile_hidden", "deployed", "returned",
               "feature_completed", "scored", "token_taken", "sheep_drawn", "turn", "game_over"}


class EventModel(unittest.TestCase):
    """Random games, each followed move by move by a model built from the
    events only and compared with `state`."""

    def test_events_rebuild_the_state(self):
        rng = harness.new_rng("EventModel")
        with daemon["d"].client() as c:
            hello = c.hello("event model")
            total_moves, started, failed, joined = 0, time.monotonic(), 0, 0
            seen = collections.Counter()
            for i in range(GAMES):
                params = random_config(rng, hello, i)
                game = Game(c, params, random.Random(rng.random()), seen, bot=i % 2 == 1)
                with self.subTest(game=i, seats=len(params["players"]), expansions=params["expansions"]):
                    try:
                        total_moves += game.play()
                        joined += game.joined_at is not None
                    except Disagreement as e:
                        failed += 1
                        total_moves += len(game.moves)
                        self.fail(str(e))
            if os.environ.get("EVENT_MODEL_VERBOSE"):
                print("\n%d games, %d moves, %d disagreed, %d joined by a second model, %.1f s"
                      % (GAMES, total_moves, failed, joined, time.monotonic() - started))
                for key in sorted(seen, key=str):
                    print("  seen %6d" % seen[key], *key)
            if GAMES >= 20:
                self.assertEqual(WANT_EVENTS - {key[0] for key in seen}, set(), "event types no game showed")


if __name__ == "__main__":
    unittest.main()

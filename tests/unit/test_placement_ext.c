/*
 * test_placement_ext.c - where a tile may go with the expansions, held
 * against a second model (oracle_place.c, written from RULES.md and the
 * manifest's primary tile data, never from the engine's frontier, judged
 * masks or river state).
 *
 * Seeded random games (random legal moves) with random mixes of sets
 * that bring placement rules: the River, River II and the mini
 * expansion's river tiles (RULES.md 2.2-2.4), cult places (2.10), Abbey &
 * Mayor (2.9), Hills & Sheep (2.13: a hill hides the next tile), and
 * every available set together; 2 to 6 seats; every section-6 rule drawn
 * at random (unplaceable_tile among them).  At every decision:
 *
 * - a tile to place: the engine's place_tile moves (carc_legal_moves)
 *   are exactly the model's (place, rotation) pairs;
 * - a choice of abbey (instead of drawing, and in the final round): the
 *   engine's place_abbey moves are exactly the model's holes; a turn
 *   that starts with a draw while the seat holds an abbey has no hole in
 *   the model, or draws a river tile (2.2: river tiles come before every
 *   other tile, the abbey too);
 * - a tile the engine discards (or puts back) as unplaceable fits nowhere
 *   in the model, on the board as it was when it was drawn; a tile put
 *   back comes back once at most before it is discarded;
 * - the river tiles are drawn before all others, River II's fork first
 *   and the lake last of them (2.2, 2.3), and every river tile the model
 *   counts from the manifest is drawn.
 *
 * A disagreement fails with the game's sets, seats, rules, seed, the turn,
 * the tile and the places only one side allows (and the board).
 *
 * Then river games against an adversary (test_river_adversary), who at
 * every river tile takes the placement that leaves the next tile the
 * fewest places, and against every player at once (test_river_every_way:
 * every way to place a dealt river, searched to the end in most games of
 * the River, the River II and the mini expansion's river tiles): no river
 * tile may ever be discarded.
 *
 * How the model reads RULES.md where it is uncertain (oracle_place.c):
 *
 * - 2.3's guard, "the two tiles ahead of each open river end (plus their
 *   side neighbours) are empty", is asked of the open ends of the tile
 *   placed.  Asked of every open end of the river after the placement it
 *   cannot be the rule: River II's fork soon leaves its two ends side by
 *   side, each in the other's room, and then no river tile fits anywhere
 *   (base + river2, 4 seats, seed 0x13ebaa66177a9470, the rules of game 1
 *   below: after RI/s (0,0), RI.2/III (1,0) rot 0 and RI.2/CcII+ (1,-1)
 *   rot 0 the open ends face (2,-1) and (2,0); the engine lets RI.2/IFC go
 *   to either, that reading to neither).
 * - Seed 000's "could prevent any subsequently drawn river tiles from
 *   meeting this requirement" (2.3) and 4.20's "could make a later river
 *   tile unplaceable" are judged one placement ahead: afterwards, every
 *   open end must be one that some river tile still to come can continue
 *   (edges matching, joining that end only, its own open ends with the
 *   room ahead), and while river tiles are still to come the river may not
 *   be closed.  That alone still let a branch wait for the one tile that
 *   fits its place, or a dead end close the branch that had room, and
 *   then every other river tile was discarded (about one game in five
 *   with all three river sets).  So of those placements only the ones
 *   that leave the river a free end are legal, whenever one does (the
 *   model's free end in oracle_place.c, the engine's in engine/README.md),
 *   and no river tile is ever discarded in these games.  Should the look
 *   ahead refuse every place the guard allows (a given tile order with no
 *   dead end to come, tests/scenarios/river-19, or start tiles that wall
 *   in a branch, walled_branch), the tile may go where the guard allows
 *   and every river tile still to come keeps an end it continues: refused
 *   everywhere, it would be lost for nothing.
 * - A river tile put back under the whole supply that no open end takes
 *   now is not one a placement must keep a place for (seed 000's "could
 *   prevent any subsequently drawn river tiles": no placement now keeps
 *   it out): it is left out of the river tiles counted still to come, as
 *   in audit9-mr-04 and -08, but it may still continue an end, and its
 *   shape still counts (oracle_place.h, opl_rivers; given_reshuffle).
 * - The abbey is a cloister for the cult-place rule (2.9, 4.12), so a hole
 *   next to two cult places, or next to a cult place that already has a
 *   cloister beside it, takes no abbey.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "oracle_place.h"
#include "testutil.h"

#define GAMES_PER_TEST 8
#define NTESTS 20
#define RIVER_GAMES_PER_TEST 60
#define ADVERSARY_TESTS 4
#define ADVERSARY_GAMES 70 /* 4 x 70 games: 40 of each river mix */
#define RIVER_TESTS 6
#define MAX_GAME_MOVES 8192
#define MAX_PLACES 4096

#define NWHY 12 /* OPL_W_* bits */

typedef struct stats {
	long decisions, places, river_decisions, river_places, cult_decisions, abbey_choices, holes, holes_cult_refused,
	    abbey_draw_checked, discards, river_discards, reshuffles, lakes, forks, games, refusals_named,
	    boxed_past_list; /* river decisions past 12 open ends with a tile put back at the bottom left out */
	/* places whose edges match refused by a rule beyond them: by[b] with
	 * reason b among others, only[b] with b alone */
	long by[NWHY], only[NWHY];
	long reason[CARC_RF_COUNT]; /* carc_placement_refusal's answers, by reason */
} stats;

static stats st;
static tu_events ev;
static opl_board board;
static carc_move moves[CARC_MAX_MOVES];
static opl_place model[MAX_PLACES];
static opl_place engine[MAX_PLACES];

/* ---- the game being played ------------------------------------------------------- */

typedef struct run {
	int game;
	carc_config cfg;
	int river_total;                 /* river tiles the game draws (the model's count) */
	int river_drawn, river_back, river_hidden; /* drawn events, put back, hidden under hills */
	int left[1024];                  /* per tile type: river tiles still to draw */
	int draws, land_drawn, river_before_land, lake_drawn, last_river;
	int back[1024], gone[1024];      /* per tile type: copies put back, and discarded for good */
	int final_asked[CARC_MAX_SEATS]; /* offered the abbey in the final round */
	int final_abbeys;                /* abbeys placed in the final round */
	int turn_started;                /* the last call began a turn (a `turn` event) */
	/* a given tile order (cfg.ntiles), followed draw by draw: supply[next..n)
	 * are still to draw, back[] marks a tile put back under the supply, as
	 * PROTOCOL.md says it goes: at the end of the order, a river tile too */
	struct {
		int on, next, n;
		uint16_t tile[CARC_MAX_TILES + 8];
		uint8_t back[CARC_MAX_TILES + 8];
	} supply;
} run;

static run R;
static int t_fork;
static int open_river_ends(const opl_board *b);

static void describe(const run *r, char *buf, size_t cap) { tu_describe_game(&r->cfg, r->game, buf, cap); }

/* River tiles still to draw once the tile drawn last is placed. */
static int river_left(const run *r) { return r->river_total - r->river_drawn + r->river_back - r->river_hidden; }

/* The next tile of a given order is drawn (or hidden under a hill). */
static void supply_take(run *r, int type)
{
	if (!r->supply.on) return;
	TU_ASSERT_MSG(r->supply.next < r->supply.n && r->supply.tile[r->supply.next] == type,
	              "game %d: %s drawn, not the tile the given order has next", r->game, carc_tile_id(type));
	r->supply.next++;
}

/* The tile drawn last goes back to the end of the given order
 * (`reshuffled`), a river tile too: the caller orders the river
 * (PROTOCOL.md `tiles`). */
static void supply_put_back(run *r, int type)
{
	if (!r->supply.on) return;
	int from = --r->supply.next, n = r->supply.n, to = n - 1;
	memmove(&r->supply.tile[from], &r->supply.tile[from + 1], (size_t)(to - from) * sizeof r->supply.tile[0]);
	memmove(&r->supply.back[from], &r->supply.back[from + 1], (size_t)(to - from));
	r->supply.tile[to] = (uint16_t)type;
	r->supply.back[to] = 1;
}

/* The river tiles still to draw, for the model (opl_rivers): `counted`
 * leaves out those put back under the whole supply (the run of tiles put
 * back at its bottom) that no open end takes now, where the given order
 * is followed (RULES.md 2.3, seed 000: "could prevent any subsequently
 * drawn river tiles"; no placement now is what keeps such a tile out:
 * audit9-mr-04, -08).  No dealt game here puts a river tile back. */
static opl_rivers rivers_of(const run *r)
{
	static int c[1024];
	memcpy(c, r->left, sizeof c);
	for (int i = r->supply.n - 1; r->supply.on && i >= r->supply.next && r->supply.back[i]; i--) {
		int t = r->supply.tile[i];
		if (opl_is_river(t) && !opl_river_takes_now(&board, t)) c[t]--;
	}
	return (opl_rivers){ r->left, c };
}

/* One more (+1) or one less (-1) river tile of `type` still to draw. */
static void river_count(run *r, int type, int by)
{
	if (!opl_is_river(type)) return;
	r->left[type] += by;
	TU_ASSERT_MSG(r->left[type] >= 0, "game %d: more %s drawn than the model counts in the supply", r->game,
	              carc_tile_id(type));
}

static int cmp_place(const void *a, const void *b)
{
	const opl_place *p = a, *q = b;
	if (p->y != q->y) return p->y - q->y;
	if (p->x != q->x) return p->x - q->x;
	return p->rot - q->rot;
}

static int has_place(const opl_place *list, int n, opl_place p)
{
	return bsearch(&p, list, (size_t)n, sizeof p, cmp_place) != NULL;
}

/* The set that names the river's rule in this game: River I's when it is
 * in play, else River II's (carc_placement_refused_by names a set of the
 * game). */
static const char *river_set(const carc_game *g)
{
	return carc_game_config(g)->expansions >> carc_expansion_find("river") & 1 ? "river" : "river2";
}

/* The reason carc_placement_refusal should give for tile `type` at
 * (x, y), a refusal the model explains with `why` (OPL_W_* bits; 0 for a
 * river tile: it leaves no free end where another placement does), by the
 * river's rule or (by_cult) the cult places': the first condition of
 * carc_refusal's order that fails. */
static carc_refusal expected_refusal(int type, int x, int y, unsigned why, int by_cult)
{
	static const struct {
		unsigned bit;
		carc_refusal rf;
	} order[] = {
		{ OPL_W_NOT_CONTINUING, CARC_RF_RIVER_UNJOINED }, { OPL_W_BRANCHES_MEET, CARC_RF_RIVER_JOINS },
		{ OPL_W_U_TURN, CARC_RF_RIVER_U_TURN },           { OPL_W_ROOM_OWN, CARC_RF_RIVER_ROOM },
		{ OPL_W_RIVER_ENDS, CARC_RF_RIVER_ENDS },         { OPL_W_BOXED, CARC_RF_RIVER_BOXED },
	};
	if (opl_is_river(type) && !by_cult) {
		for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
			if (why & order[k].bit) return order[k].rf;
		return CARC_RF_RIVER_NOT_FREE;
	}
	/* next to two of the other kind, else next to one that has one of the tile's kind */
	int cult = opl_building(type) == OPL_CULT, other = cult ? OPL_CLOISTER : OPL_CULT;
	if (opl_near_count(&board, x, y, other, x, y, OPL_NO_BUILDING) > 1)
		return cult ? CARC_RF_CULT_TWO_CLOISTERS : CARC_RF_CLOISTER_TWO_CULTS;
	return cult ? CARC_RF_CLOISTER_HAS_CULT : CARC_RF_CULT_HAS_CLOISTER;
}

/* carc_placement_refusal at a place the board takes: none where no rule
 * refuses (by < 0), else the reason the model gives, and the place it
 * names: the open end without room ahead, the building of the other kind
 * with one of the tile's kind beside it already. */
static void check_refusal(const run *r, const carc_game *g, int type, int x, int y, int rot, unsigned why, int by)
{
	int ax = INT16_MIN, ay = INT16_MIN;
	carc_refusal got = carc_placement_refusal(g, type, x, y, rot, &ax, &ay), want = CARC_RF_NONE;
	if (by >= 0) want = expected_refusal(type, x, y, why, !strcmp(carc_expansion(by)->name, "cult"));
	int mine = opl_building(type), other = mine == OPL_CULT ? OPL_CLOISTER : OPL_CULT;
	int at_ok = got == CARC_RF_NONE ? ax == INT16_MIN && ay == INT16_MIN : 1;
	if (got == CARC_RF_RIVER_ROOM) /* an empty place the tile's river faces */
		at_ok = abs(ax - x) + abs(ay - y) == 1 && opl_at(&board, ax, ay) < 0 &&
		        opl_edge(type, rot, ax > x ? 1 : ax < x ? 3 : ay > y ? 2 : 0) == OPL_RIVER;
	else if (got == CARC_RF_CLOISTER_HAS_CULT || got == CARC_RF_CULT_HAS_CLOISTER)
		at_ok = abs(ax - x) <= 1 && abs(ay - y) <= 1 && opl_at(&board, ax, ay) >= 0 &&
		        opl_building(board.type[opl_at(&board, ax, ay)]) == other &&
		        opl_near_count(&board, ax, ay, mine, ax, ay, OPL_NO_BUILDING) >= 1;
	else if (got != CARC_RF_NONE)
		at_ok = ax == x && ay == y;
	if (got != want || !at_ok) {
		char head[1024];
		describe(r, head, sizeof head);
		ck_abort_msg("%s; turn %u: %s at (%d,%d) rot %d: the model says %#x, so %s; the engine gives %s at (%d,%d)",
		             head, carc_game_turn(g), carc_tile_id(type), x, y, rot, why, carc_refusal_name(want),
		             carc_refusal_name(got), ax, ay);
	}
	st.reason[got]++;
}

/* The engine's placements of the drawn tile against the model's. */
static void compare_placements(const run *r, const carc_game *g, int n)
{
	int type = carc_game_drawn(g), left = river_left(r);
	const opl_rivers rv = rivers_of(r);
	if (opl_is_river(type) && memcmp(rv.left, rv.counted, 1024 * sizeof *rv.left) && open_river_ends(&board) > 12)
		st.boxed_past_list++;
	int ne = 0;
	for (int i = 0; i < n && i < CARC_MAX_MOVES; i++) {
		TU_ASSERT_MSG(moves[i].type == CARC_MV_PLACE_TILE, "a %s move beside the drawn tile's placements",
		              carc_mtype_name(moves[i].type));
		TU_EQ(moves[i].tile, type);
		TU_LT(ne, MAX_PLACES);
		engine[ne++] = (opl_place){ moves[i].x, moves[i].y, moves[i].rot };
	}
	qsort(engine, (size_t)ne, sizeof engine[0], cmp_place);
	for (int i = 1; i < ne; i++) TU_ASSERT_MSG(cmp_place(&engine[i - 1], &engine[i]), "a placement listed twice");
	int nm = opl_places(&board, type, &rv, model, MAX_PLACES);
	TU_LE(nm, MAX_PLACES);
	st.decisions++;
	st.places += nm;
	int river = opl_is_river(type), building = opl_building(type);
	if (river) {
		st.river_decisions++;
		st.river_places += nm;
	}
	if (building) st.cult_decisions++;
	/* what the rules beyond edge matching refused, for the counts */
	if (river || building)
		for (int y = board.miny - 1; y <= board.maxy + 1; y++)
			for (int x = board.minx - 1; x <= board.maxx + 1; x++)
				for (int rot = 0; rot < 4; rot++) {
					unsigned why = opl_why_not(&board, type, x, y, rot, &rv);
					if (why & (OPL_W_OCCUPIED | OPL_W_ALONE | OPL_W_EDGE)) continue;
					/* the board takes it: the engine names the expansion
					 * whose rule refuses it where the model lists no
					 * placement (for a river tile that also means: one that
					 * leaves no free end where others do), and none where
					 * it does */
					int by = carc_placement_refused_by(g, type, x, y, rot);
					const char *name = by >= 0 ? carc_expansion(by)->name : "none";
					int listed = has_place(model, nm, (opl_place){ (int16_t)x, (int16_t)y, (uint8_t)rot });
					unsigned river_why = why & ~(unsigned)(OPL_W_CULT | OPL_W_HOLE);
					int agree = listed ? by < 0
					                   : ((river_why || (!why && river)) && !strcmp(name, river_set(g))) ||
					                             ((why & OPL_W_CULT) && !strcmp(name, "cult"));
					if (!agree) {
						char head[1024];
						describe(r, head, sizeof head);
						ck_abort_msg("%s; turn %u: %s at (%d,%d) rot %d: the model says %#x (%s), the engine names %s",
						             head, carc_game_turn(g), carc_tile_id(type), x, y, rot, why,
						             listed ? "listed" : "not listed", name);
					}
					st.refusals_named += by >= 0;
					check_refusal(r, g, type, x, y, rot, why, by);
					if (!why) continue;
					for (int k = 0; k < NWHY; k++) {
						st.by[k] += why >> k & 1;
						st.only[k] += why == 1u << k;
					}
				}
	if (ne == nm && !memcmp(engine, model, (size_t)ne * sizeof engine[0])) return;

	static opl_place only_e[MAX_PLACES], only_m[MAX_PLACES];
	int oe = 0, om = 0;
	for (int i = 0; i < ne; i++)
		if (!has_place(model, nm, engine[i])) only_e[oe++] = engine[i];
	for (int i = 0; i < nm; i++)
		if (!has_place(engine, ne, model[i])) only_m[om++] = model[i];
	char head[1024], body[8192];
	describe(r, head, sizeof head);
	size_t k = 0;
	for (int i = 0; i < oe && i < 6 && k < sizeof body; i++)
		k += (size_t)snprintf(body + k, sizeof body - k, " engine-only (%d,%d) rot %d: model says %#x;", only_e[i].x,
		                      only_e[i].y, only_e[i].rot,
		                      opl_why_not(&board, type, only_e[i].x, only_e[i].y, only_e[i].rot, &rv));
	for (int i = 0; i < om && i < 6 && k < sizeof body; i++) {
		carc_move m = { .type = CARC_MV_PLACE_TILE, .x = only_m[i].x, .y = only_m[i].y, .rot = only_m[i].rot,
			        .tile = (uint16_t)type, .figure = CARC_NONE };
		k += (size_t)snprintf(body + k, sizeof body - k, " model-only (%d,%d) rot %d: engine says %s;", only_m[i].x,
		                      only_m[i].y, only_m[i].rot, carc_strerror(carc_check_move(g, &m, NULL)));
	}
	for (int i = 0; i < board.ncells && k < sizeof body; i++)
		k += (size_t)snprintf(body + k, sizeof body - k, "%s %s (%d,%d) rot %d", i ? "," : " board:",
		                      carc_tile_id(board.type[i]), board.x[i], board.y[i], board.rot[i]);
	ck_abort_msg("%s; turn %u, seat %d, tile %s (river tiles left after it %d): engine %d placements, model %d:%s", head,
	             carc_game_turn(g), carc_game_seat(g), carc_tile_id(type), left, ne, nm, body);
}

/* The engine's abbey holes (place_abbey moves) against the model's. */
static void compare_holes(const run *r, const carc_game *g, int n)
{
	int ne = 0, other = 0;
	for (int i = 0; i < n && i < CARC_MAX_MOVES; i++) {
		if (moves[i].type == CARC_MV_PLACE_ABBEY) {
			TU_LT(ne, MAX_PLACES);
			engine[ne++] = (opl_place){ moves[i].x, moves[i].y, 0 };
		} else {
			other++;
			/* instead of drawing: or draw; in the final round: or pass */
			TU_EQ(moves[i].type, carc_game_phase(g) == CARC_PH_TILE ? CARC_MV_DRAW : CARC_MV_PASS);
		}
	}
	TU_EQ(other, 1);
	qsort(engine, (size_t)ne, sizeof engine[0], cmp_place);
	int nm = opl_holes(&board, model, MAX_PLACES);
	st.abbey_choices++;
	st.holes += nm;
	int abbey = tu_tile("AM/A");
	for (int y = board.miny - 1; y <= board.maxy + 1; y++)
		for (int x = board.minx - 1; x <= board.maxx + 1; x++) {
			unsigned why = opl_abbey_why_not(&board, x, y);
			st.holes_cult_refused += why == OPL_W_CULT;
			/* a hole the cult rule refuses is named so; elsewhere no
			 * rule beyond "only into a hole" is named */
			int by = carc_placement_refused_by(g, abbey, x, y, 0);
			TU_ASSERT_MSG(why == OPL_W_CULT ? by >= 0 && !strcmp(carc_expansion(by)->name, "cult") : by < 0,
			              "the abbey at (%d,%d): the model says %#x, the engine names %d", x, y, why, by);
		}
	TU_ASSERT_MSG(carc_abbeys(g, carc_game_seat(g)) > 0, "seat %d is offered an abbey it does not hold",
	              carc_game_seat(g));
	if (ne == nm && !memcmp(engine, model, (size_t)ne * sizeof engine[0])) return;
	char head[1024], body[1024];
	describe(r, head, sizeof head);
	size_t k = 0;
	for (int i = 0; i < ne && k < sizeof body; i++)
		if (!has_place(model, nm, engine[i]))
			k += (size_t)snprintf(body + k, sizeof body - k, " engine-only (%d,%d): model says %#x;", engine[i].x,
			                      engine[i].y, opl_abbey_why_not(&board, engine[i].x, engine[i].y));
	for (int i = 0; i < nm && k < sizeof body; i++)
		if (!has_place(engine, ne, model[i]))
			k += (size_t)snprintf(body + k, sizeof body - k, " model-only (%d,%d);", model[i].x, model[i].y);
	ck_abort_msg("%s; turn %u, seat %d, phase %s: engine %d abbey holes, model %d:%s", head, carc_game_turn(g),
	             carc_game_seat(g), carc_phase_name(carc_game_phase(g)), ne, nm, body);
}

/* Takes in the events of one call, in order; the board is the one the
 * call left (no call changes the board after it draws). */
static void process(run *r, const carc_game *g)
{
	r->turn_started = 0;
	for (int i = 0; i < ev.sink.n && i < ev.sink.cap; i++) {
		const carc_event *x = &ev.ev[i];
		switch (x->type) {
		case CARC_EV_TURN:
			r->turn_started = 1;
			break;
		case CARC_EV_TILE_DRAWN: {
			int river = opl_is_river(x->tile);
			r->draws++;
			r->river_drawn += river;
			river_count(r, x->tile, -1);
			supply_take(r, x->tile);
			/* 2.2: river tiles before all others, the lake last; 2.3: the
			 * fork first.  Before the first land tile each river tile
			 * comes once: in a dealt game the river always has a place for
			 * the next river tile (2.3's guard), so none is put back (one
			 * put back would come again among the river tiles, and count
			 * twice here; dealt_river_put_back puts one back). */
			if (!river) r->land_drawn++;
			if (river && !r->land_drawn) {
				r->river_before_land++;
				r->last_river = x->tile;
				r->lake_drawn += opl_is_lake(x->tile);
			}
			if (x->tile == t_fork) {
				TU_ASSERT_MSG(r->draws == 1, "River II's fork drawn as tile %d", r->draws);
				st.forks++;
			}
			break;
		}
		case CARC_EV_TILE_DISCARDED: {
			/* it fits nowhere in the model either, on this board; and a
			 * river tile of a dealt supply always fits somewhere: every
			 * placement before it kept a place for it (2.3, 4.20) */
			int left = river_left(r);
			if (!r->cfg.ntiles && opl_is_river(x->tile)) {
				char head[1024];
				describe(r, head, sizeof head);
				ck_abort_msg("%s; turn %u: river tile %s fits nowhere: an earlier placement boxed it in", head,
				             carc_game_turn(g), carc_tile_id(x->tile));
			}
			opl_rivers rv = rivers_of(r);
			int nm = opl_places(&board, x->tile, &rv, model, MAX_PLACES);
			if (nm) {
				char head[1024];
				describe(r, head, sizeof head);
				ck_abort_msg("%s; turn %u: the engine finds no place for %s (river tiles left after it %d), the "
				             "model %d, e.g. (%d,%d) rot %d",
				             head, carc_game_turn(g), carc_tile_id(x->tile), left, nm, model[0].x, model[0].y,
				             model[0].rot);
			}
			if (r->cfg.rules[CARC_R_UNPLACEABLE_TILE] == CARC_UNPLACEABLE_DISCARD) TU_EQ(x->why, CARC_WHY_UNPLACEABLE);
			if (x->why == CARC_WHY_RESHUFFLED) {
				TU_EQ(r->cfg.rules[CARC_R_UNPLACEABLE_TILE], CARC_UNPLACEABLE_RESHUFFLE);
				r->back[x->tile]++;
				r->river_back += opl_is_river(x->tile);
				river_count(r, x->tile, +1);
				supply_put_back(r, x->tile);
				st.reshuffles++;
			} else {
				TU_EQ(x->why, CARC_WHY_UNPLACEABLE);
				st.river_discards += opl_is_river(x->tile);
				/* with reshuffle, only a tile put back once already */
				if (r->cfg.rules[CARC_R_UNPLACEABLE_TILE] == CARC_UNPLACEABLE_RESHUFFLE)
					TU_ASSERT_MSG(r->gone[x->tile]++ < r->back[x->tile], "%s discarded before it was put back",
					              carc_tile_id(x->tile));
				st.discards++;
			}
			break;
		}
		case CARC_EV_TILE_HIDDEN:
			r->river_hidden += opl_is_river(x->tile);
			river_count(r, x->tile, -1);
			supply_take(r, x->tile);
			break;
		case CARC_EV_TILE_PLACED:
			if (opl_is_lake(x->tile)) st.lakes++;
			break;
		default:
			break;
		}
	}
}

/* The board may have changed: read it again for the model. */
static void refresh(const carc_game *g) { opl_board_read(&board, g); }

/* The board as it was when the last call's events happened: the call
 * placed its tiles before any draw, so the board it left.  Events are
 * taken in after reading it. */
static void take_events(run *r, const carc_game *g)
{
	refresh(g);
	process(r, g);
}

/* Plays one game of `cfg` with every check above, to its end or, with
 * `river_only`, until the river is done (no river tile left to draw and
 * a land tile drawn). */
static void play(const carc_config *cfg, int game, uint64_t pick_seed, int river_only)
{
	run *r = &R;
	long forks = st.forks;
	memset(r, 0, sizeof *r);
	r->game = game;
	r->cfg = *cfg;
	TU_ASSERT(carc_tile_count() <= 1024);
	r->river_total = opl_river_supply(cfg->expansions, r->left);
	carc_rng pick;
	carc_rng_seed(&pick, pick_seed);
	int pass_pct = (int)carc_rng_below(&pick, 80);
	memset(&board, 0, sizeof board);

	tu_events_reset(&ev);
	carc_game *g = tu_game_new(cfg, &ev.sink);
	take_events(r, g);
	int nplayed = 0;
	while (!carc_game_over(g)) {
		TU_ASSERT_MSG(nplayed < MAX_GAME_MOVES, "no end after %d moves", nplayed);
		int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		TU_GT(n, 0);
		TU_LE(n, CARC_MAX_MOVES);
		int phase = carc_game_phase(g), seat = carc_game_seat(g);
		if (river_only && !river_left(r) && carc_game_drawn(g) >= 0 && !opl_is_river(carc_game_drawn(g))) {
			compare_placements(r, g, n);
			st.games++;
			free(g);
			return;
		}
		if (phase == CARC_PH_TILE && carc_game_drawn(g) >= 0) {
			/* a turn that began with a draw: no abbey choice was due,
			 * unless the tile was a river tile (2.2: river tiles before
			 * every other, the abbey too) */
			if (r->turn_started && carc_abbeys(g, seat) > 0 && !opl_is_river(carc_game_drawn(g))) {
				st.abbey_draw_checked++;
				int nm = opl_holes(&board, model, MAX_PLACES);
				if (nm) {
					char head[1024];
					describe(r, head, sizeof head);
					ck_abort_msg("%s; turn %u: seat %d holds an abbey and drew, the model sees %d holes, e.g. (%d,%d)",
					             head, carc_game_turn(g), seat, nm, model[0].x, model[0].y);
				}
			}
			compare_placements(r, g, n);
		} else if (phase == CARC_PH_TILE || phase == CARC_PH_ABBEY_FINAL) {
			compare_holes(r, g, n);
			if (phase == CARC_PH_ABBEY_FINAL) r->final_asked[seat] = 1;
		}
		carc_move m = moves[tu_pick(&pick, (uint32_t)n)];
		if (phase == CARC_PH_ACTION && (int)tu_pick(&pick, 100) < pass_pct) {
			carc_move pass = tu_pass();
			int p = tu_find_move(moves, n, &pass);
			if (p >= 0) m = moves[p];
		}
		if (m.type == CARC_MV_PLACE_ABBEY && phase == CARC_PH_ABBEY_FINAL) r->final_abbeys++;
		tu_events_reset(&ev);
		tu_apply_ok(g, m, &ev.sink);
		nplayed++;
		take_events(r, g);
	}
	/* the final round (abbey_final_round): a seat left holding an abbey
	 * was offered it, or the board had no hole for it */
	if (r->cfg.rules[CARC_R_ABBEY_FINAL_ROUND] && !r->final_abbeys)
		for (int s = 0; s < r->cfg.nseats; s++)
			if (carc_abbeys(g, s) > 0 && !r->final_asked[s]) {
				int nm = opl_holes(&board, model, MAX_PLACES);
				TU_ASSERT_MSG(!nm, "game %d: seat %d kept its abbey through the final round, the model sees %d holes",
				              game, s, nm);
			}
	/* 2.2-2.4: every river tile came, before the land; the lake last */
	/* (a river tile put back under the supply may end hidden under a hill) */
	TU_ASSERT_MSG(r->river_drawn - r->river_back + r->river_hidden == r->river_total,
	              "game %d: %d river tiles drawn (%d put back, %d hidden), the model counts %d", game, r->river_drawn,
	              r->river_back, r->river_hidden, r->river_total);
	TU_EQ(r->river_before_land, r->river_total);
	if (r->river_total) {
		TU_EQ(r->lake_drawn, 1);
		TU_ASSERT_MSG(opl_is_lake(r->last_river), "game %d: the last river tile is %s", game, carc_tile_id(r->last_river));
		if (r->cfg.expansions >> carc_expansion_find("river2") & 1) TU_EQ(st.forks, forks + 1);
	}
	st.games++;
	free(g);
}

/* ---- the games ------------------------------------------------------------------- */

/* The first NRIVER_MIXES are river games, played in test_rivers too. */
static const char *const mixes[][8] = {
	{ "base", "river", NULL },
	{ "base", "river2", NULL },
	{ "base", "river", "river2", NULL },
	{ "base", "river", "mini", NULL },
	{ "base", "river2", "mini", NULL },
	{ "base", "river", "river2", "mini", NULL },
	{ "base", "river", "river2", "mini", "cult", "hills-sheep", NULL },
	{ "base", "cult", NULL },
	{ "base", "abbey-mayor", NULL },
	{ "base", "cult", "abbey-mayor", NULL },
	{ "base", "hills-sheep", "cult", NULL },
	{ "base", "river", "cult", "abbey-mayor", "hills-sheep", NULL },
	{ "base", "river2", "mini", "cult", "abbey-mayor", NULL },
	{ "*" }, /* every available set */
	{ "?" }, /* a random subset of them */
};
#define NRIVER_MIXES 7
#define NMIXES ((int)(sizeof mixes / sizeof mixes[0]))

static void game_config(carc_config *cfg, int game)
{
	carc_rng rng;
	carc_rng_seed(&rng, 0x9ace5eedu + (uint64_t)game * 0x9e3779b97f4a7c15ull);
	carc_config_init(cfg);
	const char *const *mix = mixes[game % NMIXES];
	if (!strcmp(mix[0], "*")) {
		cfg->expansions = tu_all_available();
	} else if (!strcmp(mix[0], "?")) {
		uint32_t all = tu_all_available();
		do cfg->expansions = all & (uint32_t)carc_rng_next(&rng);
		while (!cfg->expansions);
		cfg->expansions |= 1u << carc_expansion_find("base");
	} else {
		cfg->expansions = tu_expansions(mix, 8);
	}
	cfg->nseats = (uint8_t)(2 + carc_rng_below(&rng, 5));
	cfg->seed = carc_rng_next(&rng);
	tu_random_rules(cfg, &rng);
}

static void print_stats(const char *what, int batch)
{
	static const char *const names[NWHY] = { "occupied", "alone", "edge", "not continuing", "branches meet", "u-turn",
		                                 "room ahead", "boxed in", "river ends", "cult", "hole" };
	if (!getenv("CARC_PLACEMENT_STATS")) return;
	fprintf(stderr,
	        "%s %d: %ld games, %ld tile decisions (%ld places); river tiles %ld decisions (%ld places), lakes %ld, forks %ld;"
	        " tiles with a building %ld; abbey choices %ld (%ld holes, %ld holes refused for cult places), draws with an"
	        " abbey held %ld; discarded %ld (river %ld), put back %ld; rule refusals named %ld; refused by (alone):",
	        what, batch, st.games, st.decisions, st.places, st.river_decisions, st.river_places, st.lakes, st.forks,
	        st.cult_decisions, st.abbey_choices, st.holes, st.holes_cult_refused, st.abbey_draw_checked, st.discards,
	        st.river_discards, st.reshuffles, st.refusals_named);
	for (int k = 3; k < NWHY - 1; k++) fprintf(stderr, " %s %ld (%ld)", names[k], st.by[k], st.only[k]);
	fprintf(stderr, "; reasons given:");
	for (int k = CARC_RF_OTHER; k < CARC_RF_COUNT; k++) fprintf(stderr, " %s %ld", carc_refusal_name(k), st.reason[k]);
	fprintf(stderr, "\n");
}

START_TEST(test_placements)
{
	t_fork = tu_tile("RI.2/III");
	memset(&st, 0, sizeof st);
	for (int game = _i * GAMES_PER_TEST; game < (_i + 1) * GAMES_PER_TEST; game++) {
		carc_config cfg;
		game_config(&cfg, game);
		play(&cfg, game, (uint64_t)game * 6151 + 29, 0);
	}
	print_stats("placements", _i);
	ck_assert_int_eq(st.games, GAMES_PER_TEST);
	ck_assert_int_eq(st.river_discards, 0); /* no river tile boxed in (2.3, 4.20) */
	ck_assert_int_ge(st.decisions, 50 * GAMES_PER_TEST);
}
END_TEST

/* River games only as far as the river goes: many more river tiles a second. */
START_TEST(test_rivers)
{
	t_fork = tu_tile("RI.2/III");
	memset(&st, 0, sizeof st);
	for (int game = _i * RIVER_GAMES_PER_TEST; game < (_i + 1) * RIVER_GAMES_PER_TEST; game++) {
		carc_config cfg;
		carc_rng rng;
		carc_rng_seed(&rng, 0x5b21fe11u + (uint64_t)game * 0x9e3779b97f4a7c15ull);
		carc_config_init(&cfg);
		cfg.expansions = tu_expansions(mixes[game % NRIVER_MIXES], 8);
		cfg.nseats = (uint8_t)(2 + carc_rng_below(&rng, 5));
		cfg.seed = carc_rng_next(&rng);
		tu_random_rules(&cfg, &rng);
		play(&cfg, 100000 + game, (uint64_t)game * 7349 + 5, 1);
	}
	print_stats("rivers", _i);
	ck_assert_int_eq(st.games, RIVER_GAMES_PER_TEST);
	ck_assert_int_eq(st.river_discards, 0); /* no river tile boxed in (2.3, 4.20) */
	ck_assert_int_ge(st.river_decisions, 10 * RIVER_GAMES_PER_TEST);
	ck_assert_int_ge(st.forks, RIVER_GAMES_PER_TEST / 2);
}
END_TEST

/* ---- an adversary on the river ----------------------------------------------------- */

/* River tiles discarded among the events of a sink. */
static int river_discards(const tu_events *e)
{
	int n = 0;
	for (int k = 0; k < e->sink.n && k < CARC_MAX_EVENTS; k++)
		n += e->ev[k].type == CARC_EV_TILE_DISCARDED && opl_is_river(e->ev[k].tile);
	return n;
}

/* Plays the game on from a placement to the next tile decision (the
 * figures' decisions by their last listed move, a pass where there is
 * one); returns the river tiles discarded on the way. */
static int to_next_tile(carc_game *g, const carc_move *m, tu_events *out)
{
	static carc_move then[CARC_MAX_MOVES];
	tu_events_reset(out);
	tu_apply_ok(g, *m, &out->sink);
	int discarded = river_discards(out);
	while (!carc_game_over(g) && carc_game_phase(g) != CARC_PH_TILE) {
		int n = carc_legal_moves(g, then, CARC_MAX_MOVES);
		tu_events_reset(out);
		tu_apply_ok(g, then[n - 1], &out->sink);
		discarded += river_discards(out);
	}
	return discarded;
}

/* RULES.md 2.3 (seed 000: no river tile "could prevent any subsequently
 * drawn river tiles" from being placed) and 4.20, against players who try
 * to box the river in: at every river tile with a choice, the placement
 * after which the next tile (the engine knows it) is discarded, or else
 * has the fewest places.  The old rules (two places ahead of each open
 * end, each end continuable by some tile) lost river tiles this way in up
 * to one game in four; no river tile may be discarded. */
START_TEST(test_river_adversary)
{
	static carc_move options[CARC_MAX_MOVES], next[CARC_MAX_MOVES];
	static tu_events seen;
	carc_game *g = malloc(carc_game_size()), *c = malloc(carc_game_size());
	ck_assert(g && c);
	carc_rng pick;
	carc_rng_seed(&pick, 0xad7e55a2u + (uint64_t)_i);
	int decisions = 0;
	for (int game = _i * ADVERSARY_GAMES; game < (_i + 1) * ADVERSARY_GAMES; game++) {
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.expansions = tu_expansions(mixes[game % NRIVER_MIXES], 8);
		cfg.nseats = (uint8_t)(2 + game % 5);
		cfg.seed = 0xad0000u + (uint64_t)game;
		ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
		int discarded = 0;
		while (!carc_game_over(g)) {
			int n = carc_legal_moves(g, options, CARC_MAX_MOVES), choice = (int)carc_rng_below(&pick, (uint32_t)n);
			if (carc_game_phase(g) == CARC_PH_TILE && options[0].type == CARC_MV_PLACE_TILE &&
			    opl_is_river(options[0].tile) && n > 1) {
				decisions++;
				int best = INT32_MAX;
				for (int k = 0; k < n; k++) {
					carc_game_clone(c, g);
					int lost = to_next_tile(c, &options[k], &seen);
					int places = carc_game_over(c) ? CARC_MAX_MOVES : carc_legal_moves(c, next, CARC_MAX_MOVES);
					int score = places - lost * CARC_MAX_MOVES; /* the adversary's: the less the better */
					if (score < best) {
						best = score;
						choice = k;
					}
				}
			}
			discarded += to_next_tile(g, &options[choice], &seen);
		}
		ck_assert_msg(!discarded, "%d river tiles discarded in game %d (sets %d, %u seats)", discarded, game,
		              game % NRIVER_MIXES, cfg.nseats);
	}
	ck_assert_int_ge(decisions, 5 * ADVERSARY_GAMES);
	free(g);
	free(c);
}
END_TEST

/* The same rule against every player at once: every way there is to
 * place the river of a dealt supply (each river tile at each place and
 * turn the engine lists, the figures' decisions as to_next_tile takes
 * them), searched depth first from the spring.  On no way may a river
 * tile be discarded.  Where the search of a game reaches EVERY_WAY_BUDGET
 * placements it stops; most games of these mixes (the River, the River
 * and the mini expansion's river tiles, the River II alone or with them:
 * a few hundred to tens of thousands of ways) are searched to the end.
 * Both rivers together fork into far more ways than a test can try: only
 * the greedy adversary above and the random games play them. */
#define EVERY_WAY_GAMES 12  /* a batch: 3 of each mix */
#define EVERY_WAY_TESTS 2
#define EVERY_WAY_BUDGET 40000
#define EVERY_WAY_DEPTH 40  /* river tiles and extra turns on one way */
#define EVERY_WAY_OPTIONS 256

typedef struct way_search {
	long placements; /* tried so far */
	int lost;        /* river tiles discarded on the first way that lost one */
	carc_game *copy[EVERY_WAY_DEPTH]; /* the game at each depth, made when first needed */
} way_search;

static void every_way(const carc_game *g, int depth, way_search *w)
{
	static carc_move options[EVERY_WAY_DEPTH][EVERY_WAY_OPTIONS];
	static tu_events seen;
	if (carc_game_over(g) || carc_game_drawn(g) < 0 || !opl_is_river(carc_game_drawn(g))) return;
	TU_LT(depth, EVERY_WAY_DEPTH);
	carc_game **copy = w->copy;
	if (!copy[depth]) copy[depth] = malloc(carc_game_size());
	TU_ASSERT(copy[depth]);
	int n = carc_legal_moves(g, options[depth], EVERY_WAY_OPTIONS);
	TU_LE(n, EVERY_WAY_OPTIONS);
	for (int k = 0; k < n && !w->lost && w->placements < EVERY_WAY_BUDGET; k++) {
		TU_EQ(options[depth][k].type, CARC_MV_PLACE_TILE);
		w->placements++;
		carc_game_clone(copy[depth], g);
		w->lost = to_next_tile(copy[depth], &options[depth][k], &seen);
		if (!w->lost) every_way(copy[depth], depth + 1, w);
	}
}

START_TEST(test_river_every_way)
{
	static const char *const way_mixes[][4] = {
		{ "base", "river", NULL },
		{ "base", "river", "mini", NULL },
		{ "base", "river2", NULL },
		{ "base", "river2", "mini", NULL },
	};
	carc_game *g = malloc(carc_game_size());
	ck_assert(g);
	static way_search w;
	int searched = 0;
	for (int game = _i * EVERY_WAY_GAMES; game < (_i + 1) * EVERY_WAY_GAMES; game++) {
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.expansions = tu_expansions(way_mixes[game % 4], 4);
		cfg.nseats = (uint8_t)(1 + game % 6);
		cfg.seed = 0xe7e2000u + (uint64_t)game;
		ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
		w.placements = 0;
		w.lost = 0;
		every_way(g, 0, &w);
		ck_assert_msg(!w.lost, "game %d (%s): a way of placing the river discards %d river tiles", game,
		              way_mixes[game % 4][1], w.lost);
		ck_assert_int_gt(w.placements, 10);
		searched += w.placements < EVERY_WAY_BUDGET;
	}
	if (getenv("CARC_PLACEMENT_STATS"))
		fprintf(stderr, "every way %d: %d of %d games searched to the end\n", _i, searched, EVERY_WAY_GAMES);
	ck_assert_int_ge(searched, EVERY_WAY_GAMES * 2 / 3);
	for (int d = 0; d < EVERY_WAY_DEPTH; d++) {
		free(w.copy[d]);
		w.copy[d] = NULL;
	}
	free(g);
}
END_TEST

/* ---- many buildings ----------------------------------------------------------------- */

/* RULES.md 2.10 names no limit to the cult-place rule.  A game's `tiles`
 * may repeat tiles, so a board can hold more cloisters and cult places
 * than the engine lists for its quick answer (cult.c: build[], then the
 * board is read).  Supplies of CROWDED_TILES tiles, about half of them
 * cloisters and cult places, with abbeys in some games: every placement
 * against the model. */
#define CROWDED_GAMES 6
#define CROWDED_TILES 240
START_TEST(test_crowded)
{
	static const char *const kinds[] = { "BA/L", "BA/LR", "CU/S", "CU/SR", "BA/RFr", "BA/Rr", "BA/CFc.1", "BA/RRRR" };
	int ids[8];
	for (int k = 0; k < 8; k++) ids[k] = tu_tile(kinds[k]);
	t_fork = tu_tile("RI.2/III");
	memset(&st, 0, sizeof st);
	for (int game = _i * CROWDED_GAMES; game < (_i + 1) * CROWDED_GAMES; game++) {
		carc_rng rng;
		carc_rng_seed(&rng, 0xc10157e5u + (uint64_t)game);
		carc_config cfg;
		carc_config_init(&cfg);
		const char *const mix[] = { "base", "cult", game % 2 ? "abbey-mayor" : NULL, NULL };
		cfg.expansions = tu_expansions(mix, 4);
		cfg.nseats = (uint8_t)(2 + game % 4);
		cfg.seed = carc_rng_next(&rng);
		for (int k = 0; k < CROWDED_TILES; k++) cfg.tiles[k] = (uint16_t)ids[carc_rng_below(&rng, 8)];
		cfg.ntiles = CROWDED_TILES;
		play(&cfg, 200000 + game, (uint64_t)game * 9973 + 11, 0);
	}
	print_stats("crowded", _i);
	ck_assert_int_eq(st.games, CROWDED_GAMES);
	/* buildings well past the 48 the engine lists, in every game */
	ck_assert_int_ge(st.cult_decisions, 80 * CROWDED_GAMES);
}
END_TEST

/* A supply of its own (PROTOCOL.md `tiles`: "Ordering the river is the
 * caller's job") with River II's fork eight times over: the river has
 * nine open ends and more, and the tile to come, RI.2/CIRI, may go only
 * at ends listed ninth and later, whose placements lie above bit 32 of
 * the river's 64-bit mask of allowed placements (4 bits an end).  Found
 * by fuzz_engine; the placements of that input, each of which must be
 * listed, then the game to its end.  Under UBSan a 32-bit bit scan of
 * that mask was caught here. */
START_TEST(test_many_river_ends)
{
	static const char *const supply[] = { "RI.2/III", "BA/Rr",     "RI.2/III",  "RI.2/III",  "RI.2/III",  "RI.2/III",
		                              "RI.2/III", "RI.2/III",  "RI.2/III",  "RI.2/RIrI", "RI.2/CIRI", "BA/Rr",
		                              "BA/LR",    "BA/C",      "BA/RFr",    "BA/CFc.1",  "IC/CcR",    "IC/RCc.i",
		                              "RI.2/III", "BA/C",      "RI.2/LIFI", "IC/RrC.i",  "BA/RFr" };
	static const int script[][3] = { /* x, y, quarter turns */
		{ 1, 0, 0 }, { 0, -1, 1 }, { 1, -1, 1 }, { 2, 0, 2 }, { 2, -1, 0 }, { 2, 1, 1 },
		{ 3, -1, 0 }, { 2, 2, 0 }, { 3, -2, 1 }, { 1, 2, 1 },
	};
	const char *const sets[] = { "base", "river2", "inns-cathedrals", NULL };
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.expansions = tu_expansions(sets, 4);
	cfg.nseats = 1;
	cfg.seed = 1889851693046890778ull;
	int n = 0;
	for (size_t i = 0; i < sizeof supply / sizeof supply[0]; i++) cfg.tiles[n++] = (uint16_t)tu_tile(supply[i]);
	while (n < 40) cfg.tiles[n++] = (uint16_t)tu_tile("BA/LR");
	cfg.ntiles = (uint16_t)n;
	carc_game *g = tu_game_new(&cfg, NULL);
	size_t k = 0;
	int played = 0;
	while (!carc_game_over(g)) {
		TU_ASSERT_MSG(played++ < MAX_GAME_MOVES, "no end after %d moves", played);
		int nm = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		TU_GT(nm, 0);
		carc_move m = moves[0];
		if (k < sizeof script / sizeof script[0] && carc_game_phase(g) == CARC_PH_TILE) {
			m = tu_place(g, script[k][0], script[k][1], script[k][2]);
			TU_ASSERT_MSG(tu_find_move(moves, nm, &m) >= 0, "placement %zu of %s at (%d,%d) turned %d is not listed", k,
			              carc_tile_id(m.tile), m.x, m.y, m.rot);
			k++;
		} else if (carc_game_phase(g) == CARC_PH_ACTION) {
			m = tu_pass();
		}
		tu_apply_ok(g, m, NULL);
	}
	ck_assert_uint_eq(k, sizeof script / sizeof script[0]);
	free(g);
}
END_TEST

/* The step to the next place toward a tile's side (opl_edge's sides:
 * N, E, S, W). */
static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };

/* Places next to a placed river edge that no tile covers: the open ends
 * of the river (a place two edges face counts once). */
static int open_river_ends(const opl_board *b)
{
	int ends[4 * CARC_MAX_TILES][2], n = 0;
	for (int i = 0; i < b->ncells; i++)
		for (int side = 0; side < 4; side++) {
			int x = b->x[i] + dx[side], y = b->y[i] + dy[side], k = 0;
			if (opl_edge(b->type[i], b->rot[i], side) != OPL_RIVER || opl_at(b, x, y) >= 0) continue;
			while (k < n && (ends[k][0] != x || ends[k][1] != y)) k++;
			if (k == n) {
				ends[n][0] = x;
				ends[n++][1] = y;
			}
		}
	return n;
}

/* Sets up game `game` of a supply of the caller's own (cfg->tiles), the
 * model's count of its river tiles and the events of its set-up in R
 * (*r); returns the game. */
static carc_game *own_supply_game(const carc_config *cfg, int game, run **r)
{
	*r = &R;
	memset(*r, 0, sizeof **r);
	(*r)->game = game;
	(*r)->cfg = *cfg;
	for (int k = 0; k < cfg->ntiles; k++)
		if (opl_is_river(cfg->tiles[k])) {
			(*r)->left[cfg->tiles[k]]++;
			(*r)->river_total++;
		}
	(*r)->supply.on = 1;
	(*r)->supply.n = cfg->ntiles;
	memcpy((*r)->supply.tile, cfg->tiles, (size_t)cfg->ntiles * sizeof cfg->tiles[0]);
	tu_events_reset(&ev);
	carc_game *g = tu_game_new(cfg, &ev.sink);
	take_events(*r, g);
	return g;
}

#define FORK_GAMES 12

/* A supply of the caller's own (PROTOCOL.md `tiles`) with River II's fork
 * 13 to 20 times over, then River II's other tiles but its lake, then
 * land: the river gets more open ends than the engine keeps a list of
 * (12, game_int.h river_open), and from then on it judges each river
 * placement from the board alone (river.c river_unlisted, which no dealt
 * supply reaches).  Every placement of every tile is still the model's,
 * under random rules and seats; and the river did get past 12 open ends
 * in most of the games. */
START_TEST(test_fork_supply)
{
	static const char *const others[] = { "RI.2/IFC", "RI.2/CIcI", "RI.2/LIFI", "RI.2/RIrI", "RI.2/CIRI",
		                              "RI.2/II",  "RI.2/CcII+", "RI.2/II+", "RI.2/RrII" };
	static const char *const land[] = { "BA/L", "BA/RCr", "BA/C", "BA/Rr", "BA/RFr", "BA/CFc.1", "BA/LR" };
	const char *const sets[] = { "base", "river2", NULL };
	t_fork = -1; /* forks come one after another here, not only first */
	memset(&st, 0, sizeof st);
	int past_list = 0;
	for (int game = 0; game < FORK_GAMES; game++) {
		carc_rng rng;
		carc_rng_seed(&rng, 0xf0a4u + (uint64_t)game * 0x9e3779b97f4a7c15ull);
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.expansions = tu_expansions(sets, 3);
		cfg.nseats = (uint8_t)(2 + carc_rng_below(&rng, 5));
		cfg.seed = carc_rng_next(&rng);
		tu_random_rules(&cfg, &rng);
		int n = 0, forks = 13 + (int)carc_rng_below(&rng, 8);
		for (int k = 0; k < forks; k++) cfg.tiles[n++] = (uint16_t)tu_tile("RI.2/III");
		for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) cfg.tiles[n++] = (uint16_t)tu_tile(others[k]);
		for (int k = 0; k < 24; k++) cfg.tiles[n++] = (uint16_t)tu_tile(land[k % 7]);
		cfg.ntiles = (uint16_t)n;

		run *r;
		carc_game *g = own_supply_game(&cfg, game, &r);
		int played = 0, most = 0;
		while (!carc_game_over(g)) {
			TU_ASSERT_MSG(played < MAX_GAME_MOVES, "no end after %d moves", played);
			int nm = carc_legal_moves(g, moves, CARC_MAX_MOVES);
			TU_GT(nm, 0);
			if (carc_game_phase(g) == CARC_PH_TILE && carc_game_drawn(g) >= 0) {
				int ends = open_river_ends(&board);
				if (ends > most) most = ends;
				compare_placements(r, g, nm);
			}
			tu_events_reset(&ev);
			tu_apply_ok(g, moves[carc_rng_below(&rng, (uint32_t)nm)], &ev.sink);
			played++;
			take_events(r, g);
		}
		past_list += most > 12;
		st.games++;
		free(g);
	}
	print_stats("forks", 0);
	ck_assert_int_eq(st.games, FORK_GAMES);
	ck_assert_int_ge(past_list, FORK_GAMES / 2);
}
END_TEST

/* A two-seat game of the sets (NULL-terminated) with the supply given,
 * seed 1; start tiles may be added to cfg before own_supply_game. */
static void given_order(carc_config *cfg, const char *const *sets, const char *const *supply, size_t n)
{
	int nsets = 0;
	while (sets[nsets]) nsets++;
	carc_config_init(cfg);
	cfg->expansions = tu_expansions(sets, nsets);
	cfg->nseats = 2;
	cfg->seed = 1;
	for (size_t k = 0; k < n; k++) cfg->tiles[k] = (uint16_t)tu_tile(supply[k]);
	cfg->ntiles = (uint16_t)n;
	memset(&st, 0, sizeof st);
}

/* The moves of the decision due in a game of given_order, listed in
 * `moves`; a placement of the drawn tile is first compared with the model. */
static int given_order_moves(const run *r, const carc_game *g, int played)
{
	TU_ASSERT_MSG(played < MAX_GAME_MOVES, "no end after %d moves", played);
	int nm = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	TU_GT(nm, 0);
	if (carc_game_phase(g) == CARC_PH_TILE && carc_game_drawn(g) >= 0) compare_placements(r, g, nm);
	return nm;
}

/* Plays m in a game of given_order and lets the model follow. */
static void given_order_play(run *r, carc_game *g, const carc_move *m)
{
	tu_events_reset(&ev);
	tu_apply_ok(g, *m, &ev.sink);
	take_events(r, g);
}

/* The move a scripted game of given_order plays: at a tile decision the
 * placement script[*k] (x, y, quarter turns), which must be listed, while
 * the script (n placements) lasts; a pass at an action decision; else the
 * first move listed (nm moves in `moves`). */
static carc_move scripted_move(const carc_game *g, int nm, const int (*script)[3], size_t n, size_t *k)
{
	if (carc_game_phase(g) == CARC_PH_TILE && *k < n) {
		carc_move m = tu_place(g, script[*k][0], script[*k][1], script[*k][2]);
		TU_ASSERT_MSG(tu_find_move(moves, nm, &m) >= 0, "placement %zu of %s is not listed", *k, carc_tile_id(m.tile));
		(*k)++;
		return m;
	}
	return carc_game_phase(g) == CARC_PH_ACTION ? tu_pass() : moves[0];
}

/* Two springs and the river's free end: the curve drawn first may turn
 * south, though the other spring's end lies ahead of it, exactly `reach`
 * + 1 steps on (the river tiles still to come + 2): none of them can get
 * that far, so that end is in nobody's way (README.md, the river), and
 * the engine lists the turn.  The model once refused it, looking at the
 * places beside that end; River I and II together meet this in about one
 * dealt game in 3,600. */
START_TEST(test_far_other_end)
{
	const char *const sets[] = { "base", "river", NULL };
	static const char *const supply[] = { "RI.1/II", "RI.1/IFI", "RI.1/I.e", "BA/L", "BA/L", "BA/L" };
	carc_config cfg;
	given_order(&cfg, sets, supply, sizeof supply / sizeof supply[0]);
	cfg.nstart = 3;
	cfg.start[0] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 1, 0, 2 }; /* its river's end: (0,0) */
	cfg.start[1] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 1, 5, 2 }; /* (0,5) */
	cfg.start[2] = (carc_start_tile){ (uint16_t)tu_tile("BA/L"), -2, 5, 0 };
	run *r;
	carc_game *g = own_supply_game(&cfg, 0, &r);
	int nm = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	carc_move south = tu_place(g, 0, 0, 3);
	TU_ASSERT_MSG(tu_find_move(moves, nm, &south) >= 0, "the curve turned south at (0,0) is not listed");
	for (int played = 0; !carc_game_over(g); played++) {
		given_order_moves(r, g, played);
		given_order_play(r, g, played ? &moves[0] : &south);
	}
	free(g);
}
END_TEST

/* A given tile order with no dead end to come (tests/scenarios/river-19):
 * after the fork and a curve of its N branch turned E beside the E
 * branch's end, the look ahead (every open end continued by some river
 * tile still to come) refuses the second curve everywhere, since the
 * curve with a road still to come fits no end beside a field.  Both the
 * engine and the model then let it go where the guard allows and the
 * last curve keeps an end: (2,-1) turned N and (2,0) turned S.  Every
 * placement is compared with the model, and no river tile is discarded. */
START_TEST(test_look_ahead_refuses_everywhere)
{
	const char *const sets[] = { "base", "river2", NULL };
	static const char *const supply[] = { "RI.2/III", "RI.2/II", "RI.2/II", "RI.2/RrII", "BA/L" };
	carc_config cfg;
	given_order(&cfg, sets, supply, sizeof supply / sizeof supply[0]);
	run *r;
	carc_game *g = own_supply_game(&cfg, 0, &r);
	int curves = 0;
	for (int played = 0; !carc_game_over(g); played++) {
		int nm = given_order_moves(r, g, played);
		if (carc_game_phase(g) == CARC_PH_TILE && carc_game_drawn(g) == tu_tile("RI.2/II") && ++curves == 2) {
			carc_move north = tu_place(g, 2, -1, 1), south = tu_place(g, 2, 0, 0);
			TU_EQ(nm, 2);
			TU_ASSERT_MSG(tu_find_move(moves, nm, &north) >= 0, "the second curve turned N at (2,-1) is not listed");
			TU_ASSERT_MSG(tu_find_move(moves, nm, &south) >= 0, "the second curve turned S at (2,0) is not listed");
		}
		given_order_play(r, g, &moves[0]);
	}
	TU_EQ(curves, 2);
	TU_EQ(st.river_discards, 0);
	TU_EQ(carc_board_count(g), 6); /* the spring and every tile of the supply */
	free(g);
}
END_TEST

/* Start tiles that wall in one branch (a second spring at (0,6), its
 * mouth (1,6) walled by three cities that no river tile fits): every
 * placement that leaves that end open fails the look ahead, so it refuses
 * every place, with dead ends still to come, and the fallback decides the
 * river; with River II's tiles in a deal's order (the fork first, the lake
 * last) every river tile but the lake was discarded before it.  Played
 * at random, every placement is the model's, and a tile is discarded only
 * where the model finds no place either (take_events). */
START_TEST(test_walled_branch)
{
	const char *const sets[] = { "base", "river2", NULL };
	static const char *const supply[] = { "RI.2/III", "RI.2/CIcI", "RI.2/II", "RI.2/LIFI", "RI.2/CcII+",
		                              "RI.2/RIrI", "RI.2/II+", "RI.2/CIRI", "RI.2/RrII", "RI.2/IFC",
		                              "RI.2/I.v", "BA/L", "BA/C", "BA/RFr" };
	int placed = 0;
	for (int game = 0; game < 20; game++) {
		carc_config cfg;
		given_order(&cfg, sets, supply, sizeof supply / sizeof supply[0]);
		cfg.nstart = 5;
		cfg.start[0] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 0, 0, 0 };
		cfg.start[1] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 0, 6, 0 };
		cfg.start[2] = (carc_start_tile){ (uint16_t)tu_tile("BA/C"), 1, 5, 2 };
		cfg.start[3] = (carc_start_tile){ (uint16_t)tu_tile("BA/C"), 2, 6, 0 };
		cfg.start[4] = (carc_start_tile){ (uint16_t)tu_tile("BA/C"), 1, 7, 2 };
		run *r;
		carc_game *g = own_supply_game(&cfg, game, &r);
		carc_rng pick;
		carc_rng_seed(&pick, 0x3a11u + (uint64_t)game);
		for (int played = 0; !carc_game_over(g); played++) {
			int nm = given_order_moves(r, g, played);
			placed += carc_game_phase(g) == CARC_PH_TILE && opl_is_river(carc_game_drawn(g));
			given_order_play(r, g, &moves[carc_rng_below(&pick, (uint32_t)nm)]);
		}
		free(g);
	}
	/* the river tiles but the lake, which the look ahead alone refused
	 * everywhere, now mostly have a place */
	TU_GT(placed, 20 * 6);
}
END_TEST

#define RESHUFFLE_GAMES 2000

/* The river tiles of River I and II, springs aside, that caller-given
 * orders below are drawn from. */
static const char *const rivers[] = { "RI.1/CICI", "RI.1/CIRI", "RI.1/CcII", "RI.1/IFI",   "RI.1/II",   "RI.1/LIRI",
	                              "RI.1/RIrI", "RI.1/RrII", "RI.2/CIRI", "RI.2/CIcI",  "RI.2/CcII+", "RI.2/IFC",
	                              "RI.2/II",   "RI.2/II+",  "RI.2/III",  "RI.2/LIFI",  "RI.2/RIrI",  "RI.2/RrII",
	                              "RI.1/I.e",  "RI.2/I.v" };
#define NRIVERS ((uint32_t)(sizeof rivers / sizeof rivers[0]))

/* Caller-given river orders (PROTOCOL.md `tiles`: ordering the river is
 * the caller's job) under `unplaceable_tile` reshuffle, with few land
 * tiles or none and lakes anywhere: river tiles that fit nowhere go back
 * to the end of the order, often two or more of them, behind the land
 * tiles given; every placement is compared with the
 * model, which follows the order draw by draw and
 * leaves out of its counts a tile put back under the whole supply that no
 * end takes now (rivers_of).  Every other game plays the order of a
 * reviewer's case: a dead end (RI.2/IFC) closes the river while such a
 * tile is still to come (audit9-mr-04), which the model, counting every
 * tile then, refused. */
START_TEST(test_given_reshuffle)
{
	static const char *const found[] = { "RI.2/IFC",  "RI.1/RrII", "RI.1/IFI", "RI.1/LIRI", "RI.2/CIcI", "RI.2/LIFI",
		                             "RI.2/II",   "RI.1/LIRI", "RI.1/RrII", "RI.1/CIRI", "RI.2/RIrI", "RI.2/III" };
	static const char *const land[] = { "BA/L", "BA/RCr" };
	const char *const sets[] = { "base", "river", "river2", NULL };
	t_fork = -1; /* a fork may come anywhere */
	long reshuffles = 0, discards = 0;
	/* games past those run, each found by a longer run of this test */
	static const int found_games[] = {
		134277, /* the fallback counted a tile put back at the bottom that no end took */
		134521, /* such a tile may still continue an end in the look ahead */
		73281,  /* and its shape still counts for the free end */
	};
	for (int i = 0; i < RESHUFFLE_GAMES + (int)(sizeof found_games / sizeof found_games[0]); i++) {
		int game = i < RESHUFFLE_GAMES ? i : found_games[i - RESHUFFLE_GAMES];
		carc_rng rng;
		carc_rng_seed(&rng, 0x5e5fu + (uint64_t)game * 0x9e3779b97f4a7c15ull);
		const char *supply[24];
		size_t n = 0;
		if (game & 1) {
			int nriver = 6 + (int)carc_rng_below(&rng, 8);
			for (int k = 0; k < nriver; k++)
				supply[n++] = carc_rng_below(&rng, 4) ? rivers[carc_rng_below(&rng, NRIVERS)] : "RI.2/III";
		} else {
			for (size_t k = 0; k < sizeof found / sizeof found[0]; k++) supply[n++] = found[k];
		}
		int nland = (int)carc_rng_below(&rng, 3);
		for (int k = 0; k < nland; k++) supply[n++] = land[k];
		carc_config cfg;
		given_order(&cfg, sets, supply, n);
		cfg.nseats = (uint8_t)(1 + carc_rng_below(&rng, 4));
		if (!(game & 1)) cfg.nseats = 3; /* the case found had three seats */
		cfg.rules[CARC_R_UNPLACEABLE_TILE] = CARC_UNPLACEABLE_RESHUFFLE;
		run *r;
		carc_game *g = own_supply_game(&cfg, game, &r);
		for (int played = 0; !carc_game_over(g); played++) {
			int nm = given_order_moves(r, g, played);
			given_order_play(r, g, &moves[carc_rng_below(&rng, (uint32_t)nm)]);
		}
		reshuffles += st.reshuffles;
		discards += st.river_discards;
		free(g);
	}
	/* tiles did go back, and some fit nowhere twice */
	ck_assert_int_ge(reshuffles, RESHUFFLE_GAMES / 2);
	ck_assert_int_ge(discards, RESHUFFLE_GAMES / 10);
}
END_TEST

/* A supply the game dealt keeps the river first under `unplaceable_tile`
 * reshuffle (RULES.md 2.2: river tiles before all others, the lake
 * last): a river tile that fits nowhere goes back under the river tiles
 * still to come, before the lake, and only when none is still to come
 * under the whole supply (river.c river_put_back).  Islands two places
 * north and south of the spring's mouth leave a curve there no room to
 * turn (2.3's guard), so a curve drawn before the river has moved on is
 * put back.  Followed from the events alone: `left` river tiles still to
 * draw (put back ones included), `bottom` of them put back under the
 * whole supply; a land tile, or the lake from among the river tiles, is
 * drawn only when every river tile but those at the bottom is out. */
START_TEST(test_dealt_river_put_back)
{
	const char *const sets[] = { "base", "river", NULL };
	int games = 0, among = 0;
	for (int seed = 0; seed < 400; seed++) {
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.expansions = tu_expansions(sets, 2);
		cfg.nseats = 2;
		cfg.seed = (uint64_t)seed;
		cfg.rules[CARC_R_UNPLACEABLE_TILE] = CARC_UNPLACEABLE_RESHUFFLE;
		cfg.nstart = 3;
		cfg.start[0] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 0, 0, 0 };
		cfg.start[1] = (carc_start_tile){ (uint16_t)tu_tile("BA/L"), 1, 2, 0 };
		cfg.start[2] = (carc_start_tile){ (uint16_t)tu_tile("BA/L"), 1, -2, 0 };
		carc_game *g = malloc(carc_game_size());
		ck_assert_ptr_nonnull(g);
		tu_events_reset(&ev);
		if (carc_game_init(g, &cfg, &ev.sink) != CARC_OK) { /* the deal's first river tile has no place */
			free(g);
			continue;
		}
		games++;
		int left = 0, bottom = 0;
		for (int t = 0; t < carc_tile_count(); t++)
			if (opl_is_river(t)) left += carc_game_dealt(g, t);
		carc_rng pick;
		carc_rng_seed(&pick, 0xd3a1u + (uint64_t)seed);
		for (int played = 0;; played++) {
			for (int i = 0; i < ev.sink.n && i < ev.sink.cap; i++) {
				const carc_event *e = &ev.ev[i];
				if (e->type != CARC_EV_TILE_DRAWN && e->type != CARC_EV_TILE_DISCARDED) continue;
				int river = opl_is_river(e->tile);
				if (e->type == CARC_EV_TILE_DRAWN && river) {
					left--;
					if (bottom > left) bottom--; /* one from the bottom */
					else if (opl_is_lake(e->tile))
						TU_ASSERT_MSG(left == bottom, "seed %d: the lake drawn with %d river tiles to come", seed,
						              left - bottom);
				} else if (e->type == CARC_EV_TILE_DRAWN) {
					TU_ASSERT_MSG(left == bottom, "seed %d: %s drawn with %d river tiles to come", seed,
					              carc_tile_id(e->tile), left - bottom);
				} else if (e->type == CARC_EV_TILE_DISCARDED && e->why == CARC_WHY_RESHUFFLED && river) {
					if (left > bottom) among++;
					else bottom++;
					left++;
				}
			}
			if (carc_game_over(g)) break;
			TU_ASSERT_MSG(played < MAX_GAME_MOVES, "seed %d: no end after %d moves", seed, played);
			int nm = carc_legal_moves(g, moves, CARC_MAX_MOVES);
			TU_GT(nm, 0);
			tu_events_reset(&ev);
			tu_apply_ok(g, moves[carc_rng_below(&pick, (uint32_t)nm)], &ev.sink);
		}
		free(g);
	}
	/* most deals are played, and curves did go back among the river tiles */
	TU_GT(games, 200);
	TU_GT(among, 20);
}
END_TEST

/* Under reshuffle, a river tile is put back, then a second river tile
 * goes to the bottom of the supply where no end takes it (so it is not
 * counted), then another copy of the first is drawn: the engine once took
 * the answers it had kept for the first (river.c peek_drawn), worked out
 * while the second still counted, and discarded the copy, which has a
 * place.  Found by a review's stress run; every placement is compared
 * with the model, and the copy must be drawn with a place. */
START_TEST(test_put_back_copy)
{
	const char *const sets[] = { "base", "river", "river2", NULL };
	static const char *const supply[] = { "RI.1/IFI",  "BA/C",     "RI.2/RrII", "BA/L",     "RI.2/RrII",
		                              "RI.2/III",  "RI.2/RrII", "BA/CFc.1", "BA/Cccc+", "RI.2/CcII+" };
	static const int script[][3] = { { -1, -3, 0 }, { -1, 0, 3 }, { -2, -3, 3 }, { -4, 0, 2 } };
	carc_config cfg;
	given_order(&cfg, sets, supply, sizeof supply / sizeof supply[0]);
	cfg.nseats = 3;
	cfg.rules[CARC_R_UNPLACEABLE_TILE] = CARC_UNPLACEABLE_RESHUFFLE;
	cfg.nstart = 4;
	cfg.start[0] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 0, 0, 3 };  /* its river's end: (0,-1) */
	cfg.start[1] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 0, -3, 2 }; /* (-1,-3) */
	cfg.start[2] = (carc_start_tile){ (uint16_t)tu_tile("BA/L"), 4, 1, 3 };
	cfg.start[3] = (carc_start_tile){ (uint16_t)tu_tile("BA/L"), -4, 1, 1 };
	run *r;
	carc_game *g = own_supply_game(&cfg, 0, &r);
	size_t k = 0;
	for (int played = 0; !carc_game_over(g); played++) {
		int nm = given_order_moves(r, g, played);
		carc_move m = scripted_move(g, nm, script, sizeof script / sizeof script[0], &k);
		given_order_play(r, g, &m);
		if (k == sizeof script / sizeof script[0] && carc_game_phase(g) == CARC_PH_TILE && st.reshuffles == 2) {
			TU_EQ(carc_game_drawn(g), tu_tile("RI.2/RrII")); /* the copy, with a place */
			TU_EQ(st.discards, 0);
			k++;
		}
	}
	TU_EQ(k, sizeof script / sizeof script[0] + 1);
	free(g);
}
END_TEST

/* A river tile with a cloister beside cult places: the river's fallback
 * and its free end are chosen among the places the cult places' rule
 * (2.10) allows too.  The engine once chose the free end first, and
 * where the cult rule refused every place with a free end the tile was
 * discarded, though it had other places (RI.1/LIRI, game 17700 of a
 * review's stress run, under `discard`).  The run's placements, every
 * listing compared with the model. */
START_TEST(test_river_beside_cult)
{
	const char *const sets[] = { "base", "river", "river2", "cult", NULL };
	static const char *const supply[] = { "RI.2/III", "CU/SRFR",  "RI.2/III", "RI.1/CICI", "CU/SR",   "RI.1/RIrI",
		                              "RI.1/LIRI", "RI.2/III", "RI.1/LIRI", "RI.2/I.v",  "RI.2/RrII" };
	static const int script[][3] = { { 1, 0, 3 },   { 2, 0, 0 },   { 1, -1, 3 }, { 0, 1, 1 }, { 1, -2, 2 },
		                         { 1, -3, 3 },  { 1, -4, 2 },  { 0, -4, 0 }, { 1, 1, 1 }, { -1, -4, 2 } };
	carc_config cfg;
	given_order(&cfg, sets, supply, sizeof supply / sizeof supply[0]);
	run *r;
	carc_game *g = own_supply_game(&cfg, 17700, &r);
	size_t k = 0;
	for (int played = 0; !carc_game_over(g); played++) {
		int nm = given_order_moves(r, g, played);
		if (carc_game_phase(g) == CARC_PH_TILE) TU_LT(k, sizeof script / sizeof script[0]); /* every tile scripted */
		carc_move m = scripted_move(g, nm, script, sizeof script / sizeof script[0], &k);
		given_order_play(r, g, &m);
	}
	TU_EQ(k, sizeof script / sizeof script[0]);
	TU_EQ(st.river_discards, 1); /* the second fork, which fits nowhere */
	free(g);
}
END_TEST

#define FORK_RESHUFFLE_GAMES 60

/* Does one of cfg's start tiles lie at (x, y)? */
static int start_at(const carc_config *cfg, int x, int y)
{
	for (int k = 0; k < cfg->nstart; k++)
		if (cfg->start[k].x == x && cfg->start[k].y == y) return 1;
	return 0;
}

/* given_reshuffle past the list of open ends (12, game_int.h river_open),
 * where the engine judges each river placement from the board alone
 * (river.c river_unlisted): 13 to 40 forks first, then other river tiles,
 * land tiles (cult places and their rule in half the games), and two to
 * four river tiles again at the bottom of the order, under
 * `unplaceable_tile` reshuffle, in every other game with the spring and
 * land tiles strewn about as start tiles for the river to find its way
 * past.  River tiles that fit nowhere go back, some under the whole
 * supply, and every placement is compared with the model.  Past the list
 * the engine once counted every tile put back at the bottom, as if an end
 * took it (takes_now), and refused places the model allows.  Batch 1
 * starts past the list: 13 to 15 springs as start tiles, then up to 14
 * forks; there the engine once looked for no free end (games 109, 145). */
START_TEST(test_fork_reshuffle)
{
	static const char *const land[] = { "BA/L", "BA/RCr", "BA/C", "BA/Rr", "CU/SR", "CU/SRFR" };
	const char *const with_cult[] = { "base", "river", "river2", "cult", NULL };
	const char *const sets[] = { "base", "river", "river2", NULL };
	/* games past those run, each found by a longer run of this test */
	static const int found_games[2][2] = { { 231, 285 }, { 109, 145 } };
	int springs = _i; /* batch 1: many springs as start tiles */
	t_fork = -1; /* forks come one after another here, not only first */
	long reshuffles = 0, boxed = 0;
	int past_list = 0, ngames = FORK_RESHUFFLE_GAMES + (int)(sizeof found_games[0] / sizeof found_games[0][0]);
	for (int i = 0; i < ngames; i++) {
		int game = i < FORK_RESHUFFLE_GAMES ? i : found_games[springs][i - FORK_RESHUFFLE_GAMES];
		carc_rng rng;
		carc_rng_seed(&rng, 0xf5e5u + (uint64_t)springs * 0x51u + (uint64_t)game * 0x9e3779b97f4a7c15ull);
		const char *supply[120];
		size_t n = 0;
		int forks = springs ? (int)carc_rng_below(&rng, 15) : 13 + (int)carc_rng_below(&rng, 28);
		for (int k = 0; k < forks; k++) supply[n++] = "RI.2/III";
		int nriver = (int)carc_rng_below(&rng, 12);
		for (int k = 0; k < nriver; k++) supply[n++] = rivers[carc_rng_below(&rng, NRIVERS)];
		int nland = (int)carc_rng_below(&rng, 30), cult = game % 4 >= 2;
		for (int k = 0; k < nland; k++) supply[n++] = land[carc_rng_below(&rng, cult ? 6 : 4)];
		int tail = 2 + (int)carc_rng_below(&rng, 3);
		for (int k = 0; k < tail; k++) supply[n++] = carc_rng_below(&rng, 2) ? "RI.2/III" : rivers[carc_rng_below(&rng, NRIVERS)];
		carc_config cfg;
		given_order(&cfg, cult ? with_cult : sets, supply, n);
		cfg.nseats = (uint8_t)(1 + carc_rng_below(&rng, 4));
		cfg.rules[CARC_R_UNPLACEABLE_TILE] = CARC_UNPLACEABLE_RESHUFFLE;
		if (springs) {
			/* 13 to 15 springs at places apart (both coordinates even),
			 * any way round, two mouths at one place at times, and land
			 * tiles between them (odd coordinates) */
			int nspr = 13 + (int)carc_rng_below(&rng, 3);
			while (cfg.nstart < 16) {
				int spring = cfg.nstart < nspr, x = 2 * ((int)carc_rng_below(&rng, 9) - 4) + !spring,
				    y = 2 * ((int)carc_rng_below(&rng, 9) - 4) + !spring;
				if (start_at(&cfg, x, y)) continue;
				const char *t = spring ? "RI/s" : land[carc_rng_below(&rng, 4)];
				cfg.start[cfg.nstart++] =
				    (carc_start_tile){ (uint16_t)tu_tile(t), (int16_t)x, (int16_t)y, (uint8_t)carc_rng_below(&rng, 4) };
				if (!spring && carc_rng_below(&rng, 2)) break;
			}
		} else if (game & 1) {
			/* the spring (its river's end (1,0)) and land tiles at places
			 * apart (both coordinates even), none in front of the mouth */
			cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 0, 0, 0 };
			int walls = 6 + (int)carc_rng_below(&rng, 10);
			while (cfg.nstart < 1 + walls) {
				int x = 2 * ((int)carc_rng_below(&rng, 9) - 4), y = 2 * ((int)carc_rng_below(&rng, 9) - 4);
				if (start_at(&cfg, x, y) || (x == 2 && y == 0)) continue;
				cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile(land[carc_rng_below(&rng, 4)]), (int16_t)x,
					                                     (int16_t)y, (uint8_t)carc_rng_below(&rng, 4) };
			}
		}
		run *r;
		carc_game *g = own_supply_game(&cfg, game, &r);
		int most = 0;
		for (int played = 0; !carc_game_over(g); played++) {
			int nm = given_order_moves(r, g, played), ends = open_river_ends(&board);
			if (ends > most) most = ends;
			given_order_play(r, g, &moves[carc_rng_below(&rng, (uint32_t)nm)]);
		}
		past_list += most > 12;
		reshuffles += st.reshuffles;
		boxed += st.boxed_past_list;
		free(g);
	}
	/* past the list in most games; with forks first, tiles went back,
	 * and some river decisions there were taken with one at the bottom
	 * left out */
	ck_assert_int_ge(past_list, ngames / 2);
	if (springs) return;
	ck_assert_int_ge(reshuffles, ngames);
	ck_assert_int_ge(boxed, 1);
}
END_TEST

/* river_beside_cult past the list of open ends: 13 springs give 13 open
 * ends, so the engine judges river placements from the board alone
 * (river.c river_unlisted).  The end at (0,0) has a cult place on each
 * side behind it, which leave a curve no room there: the curve still to
 * come continues every end but that one, so the look ahead allows the
 * straight with a cloister (RI.1/LIRI) only there, where the cult places'
 * rule refuses a cloister beside two cult places.  The fallback must be
 * chosen among the places that rule allows: the engine once looked no
 * further than the look ahead's places and discarded the straight. */
START_TEST(test_unlisted_beside_cult)
{
	const char *const sets[] = { "base", "river", "cult", NULL };
	static const char *const supply[] = { "RI.1/LIRI", "RI.1/CcII", "BA/C", "BA/Rr" };
	carc_config cfg;
	given_order(&cfg, sets, supply, sizeof supply / sizeof supply[0]);
	cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), -1, 0, 0 }; /* its end: (0,0) */
	cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("CU/S"), -1, -1, 0 };
	cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("CU/S"), -1, 1, 0 };
	for (int k = 1; k <= 12; k++) /* ends far apart, each with room all round */
		cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), (int16_t)(8 * k), 8, 0 };
	run *r;
	carc_game *g = own_supply_game(&cfg, 0, &r);
	TU_EQ(open_river_ends(&board), 13);
	int nm = given_order_moves(r, g, 0);
	TU_EQ(carc_game_drawn(g), tu_tile("RI.1/LIRI")); /* not discarded */
	TU_EQ(st.discards, 0);
	for (int i = 0; i < nm; i++) TU_ASSERT_MSG(moves[i].x != 0 || moves[i].y != 0, "the cloister listed beside two cult places");
	TU_GT(nm, 0);
	free(g);
}
END_TEST

/* Start tiles may bring two springs' mouths to one place, (1,0) here: no
 * river tile may go there (it would join the branches, RULES.md 2.3), so
 * the look ahead must not count that end as one a tile still to come
 * continues, though a straight's edges fit it.  The engine once did, and
 * allowed places the model refuses (the fork, then RI.1/IFI at (1,3)).
 * Four orders of the tiles, the first move listed each time, every
 * listing compared with the model. */
START_TEST(test_joined_mouths)
{
	const char *const sets[] = { "base", "river", "river2", NULL };
	static const char *const supplies[][4] = {
		{ "RI.2/III", "RI.1/IFI", "RI.1/IFI", "BA/L" },
		{ "RI.1/II", "RI.1/IFI", "RI.1/IFI", "BA/L" },
		{ "RI.1/IFI", "RI.1/II", "RI.1/IFI", "BA/L" },
		{ "RI.1/IFI", "RI.1/I.e", "BA/L", "BA/L" },
	};
	carc_config cfg;
	given_order(&cfg, sets, supplies[_i], 4);
	cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 0, 0, 0 }; /* its end: (1,0) */
	cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 2, 0, 2 }; /* and this one's */
	cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 0, 4, 0 };
	run *r;
	carc_game *g = own_supply_game(&cfg, _i, &r);
	for (int played = 0; !carc_game_over(g); played++) {
		given_order_moves(r, g, played);
		carc_move m = carc_game_phase(g) == CARC_PH_ACTION ? tu_pass() : moves[0];
		TU_ASSERT_MSG(m.type != CARC_MV_PLACE_TILE || m.x != 1 || m.y != 0, "a river tile listed where two ends meet");
		given_order_play(r, g, &m);
	}
	free(g);
}
END_TEST

/* carc_placement_refusal where no game asks it: the river closed while
 * river tiles are still to come (a lake drawn then would fit nowhere and
 * go, so only a caller asking about another tile sees this reason), a
 * placement no rule refuses, one the edges refuse, bad arguments. */
START_TEST(test_refusal_by_hand)
{
	const char *const sets[] = { "base", "river" };
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.nseats = 2;
	cfg.seed = 1;
	cfg.expansions = tu_expansions(sets, 2);
	carc_game *g = tu_game_new(&cfg, NULL);
	int lake = tu_tile("RI.1/I.e"), drawn = carc_game_drawn(g), at_x = 99, at_y = 99;
	ck_assert_int_ne(drawn, lake); /* the lake comes last */
	/* the spring's end is (1,0): the lake turned to face it closes the river */
	int closes = 0;
	for (int rot = 0; rot < 4; rot++) {
		int refused = carc_placement_refused_by(g, lake, 1, 0, rot);
		carc_refusal why = carc_placement_refusal(g, lake, 1, 0, rot, &at_x, &at_y);
		if (refused < 0) { /* the edges do not match */
			ck_assert_int_eq(why, CARC_RF_NONE);
			continue;
		}
		ck_assert_str_eq(carc_expansion(refused)->name, "river");
		ck_assert_int_eq(why, CARC_RF_RIVER_ENDS);
		ck_assert_int_eq(at_x, 1);
		ck_assert_int_eq(at_y, 0);
		closes++;
	}
	ck_assert_int_eq(closes, 1);
	/* a placement listed is refused by no rule; a land tile is not the river's to judge */
	int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	ck_assert_int_gt(n, 0);
	at_x = at_y = 99;
	ck_assert_int_eq(carc_placement_refusal(g, drawn, moves[0].x, moves[0].y, moves[0].rot, &at_x, &at_y), CARC_RF_NONE);
	ck_assert_int_eq(at_x, 99); /* left alone */
	ck_assert_int_eq(carc_placement_refusal(g, tu_tile("BA/L"), 1, 0, 0, NULL, NULL), CARC_RF_NONE);
	ck_assert_int_eq(carc_placement_refusal(g, lake, 1, 0, 4, NULL, NULL), CARC_RF_NONE);
	ck_assert_int_eq(carc_placement_refusal(g, -1, 1, 0, 0, NULL, NULL), CARC_RF_NONE);
	ck_assert_int_eq(carc_placement_refusal(g, carc_tile_count(), 1, 0, 0, NULL, NULL), CARC_RF_NONE);
	ck_assert_int_eq(carc_placement_refusal(NULL, lake, 1, 0, 0, NULL, NULL), CARC_RF_NONE);
	ck_assert_int_eq(carc_placement_refusal(g, lake, 0, 0, 0, NULL, NULL), CARC_RF_NONE); /* taken */
	free(g);
}
END_TEST

/* The free end past the list of open ends (a review's case): 13 springs
 * in a row at (4k,0), each facing E, its end (4k+1,0) three steps short
 * of the next spring (the last one's of a land tile), and a land tile at
 * (1,-4); a curve is drawn, then two straights.  Only the ends facing
 * the land tiles are not free, and the curve may not take a place that
 * leaves no free end: the engine, past the list, once allowed the curve
 * north at (1,0), and the last straight was lost.  Batch 1: twelve lakes
 * first close the ends (4k+1,0) from the east, so that one open end is
 * left, and the engine must still look for a free end (it once judged the
 * rest of the river as past the list).  Every listing against the model;
 * the last move listed is played, and no river tile is discarded. */
START_TEST(test_unlisted_free_end)
{
	const char *const sets[] = { "base", "river", NULL };
	const char *supply[20];
	size_t n = 0;
	int lakes = _i ? 12 : 0;
	for (int k = 0; k < lakes; k++) supply[n++] = "RI.1/I.e";
	supply[n++] = "RI.1/II";
	supply[n++] = "RI.1/IFI";
	supply[n++] = "RI.1/IFI";
	for (int k = 0; k < 3; k++) supply[n++] = "BA/L";
	carc_config cfg;
	given_order(&cfg, sets, supply, n);
	for (int k = 0; k < 13; k++) cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), (int16_t)(4 * k), 0, 0 };
	cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("BA/L"), 52, 0, 0 };
	cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("BA/L"), 1, -4, 0 };
	run *r;
	carc_game *g = own_supply_game(&cfg, _i, &r);
	TU_EQ(open_river_ends(&board), 13);
	int lake = 0;
	for (int played = 0; !carc_game_over(g); played++) {
		int nm = given_order_moves(r, g, played);
		carc_move m = moves[nm - 1];
		if (carc_game_phase(g) == CARC_PH_TILE && carc_game_drawn(g) == tu_tile("RI.1/I.e")) {
			m = tu_place(g, 4 * (12 - lake++) + 1, 0, 0); /* the end farthest east */
			TU_ASSERT_MSG(tu_find_move(moves, nm, &m) >= 0, "lake %d not listed", lake);
		} else if (carc_game_phase(g) == CARC_PH_ACTION) {
			m = tu_pass();
		}
		given_order_play(r, g, &m);
	}
	TU_EQ(st.river_discards, 0);
	TU_EQ(lake, lakes);
	free(g);
}
END_TEST

/* The river far from the first tile placed, and ends with tiles beside
 * them before the river gets there.  river.c keeps the places within 15
 * of the first tile one bit a place (river_occ) and looks at tiles
 * farther off one by one (placed_in); a start tile placed before its
 * spring gives the spring's end a neighbour at once (new_open_end).
 * Dealt games seldom if ever go there, and no other test did.  A
 * caller's order of 32 to 56 river tiles of both sets, one river (no
 * fork, no dead end), the lake last, played at random.  Batch 1 adds a
 * second spring 20 to 30 places off, any way round, with one or two land
 * tiles beside the place in front of its mouth, placed before it.  Every
 * listing against the model; in most games river placements were listed
 * 16 or more places off. */
#define FAR_GAMES 40
START_TEST(test_far_river)
{
	static const char *const land[] = { "BA/L", "BA/C", "BA/RCr", "BA/Rr" };
	const char *const sets[] = { "base", "river", "river2", NULL };
	t_fork = -1; /* forks come anywhere */
	int far_games = 0;
	for (int game = 0; game < FAR_GAMES; game++) {
		carc_rng rng;
		carc_rng_seed(&rng, 0xfa7u + (uint64_t)_i * 0x51u + (uint64_t)game * 0x9e3779b97f4a7c15ull);
		const char *supply[64];
		size_t n = 0;
		int nriver = 32 + (int)carc_rng_below(&rng, 25);
		while (n < (size_t)nriver) { /* one river: no fork, no dead end, no lake */
			const char *t = rivers[carc_rng_below(&rng, NRIVERS - 2)];
			if (strcmp(t, "RI.2/III") && strcmp(t, "RI.2/IFC")) supply[n++] = t;
		}
		supply[n++] = "RI.1/I.e";
		for (int k = 0; k < 4; k++) supply[n++] = land[k];
		carc_config cfg;
		given_order(&cfg, sets, supply, n);
		cfg.nseats = (uint8_t)(1 + carc_rng_below(&rng, 4));
		tu_random_rules(&cfg, &rng);
		cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), 0, 0, 0 };
		if (_i) {
			int r = (int)carc_rng_below(&rng, 4), flow = (r + 1) & 3; /* RI/s turned r flows E, S, W, N */
			int x = 20 + (int)carc_rng_below(&rng, 11), y = (int)carc_rng_below(&rng, 11) - 5;
			int mx = x + dx[flow], my = y + dy[flow];
			for (int side = 1; side < 4; side += 2) /* beside the mouth, left and right */
				if (side == 1 || carc_rng_below(&rng, 2))
					cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile(land[carc_rng_below(&rng, 4)]),
						                                     (int16_t)(mx + dx[(flow + side) & 3]),
						                                     (int16_t)(my + dy[(flow + side) & 3]),
						                                     (uint8_t)carc_rng_below(&rng, 4) };
			cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)tu_tile("RI/s"), (int16_t)x, (int16_t)y, (uint8_t)r };
		}
		run *r;
		carc_game *g = own_supply_game(&cfg, game, &r);
		int far = 0;
		for (int played = 0; !carc_game_over(g); played++) {
			int nm = given_order_moves(r, g, played);
			if (carc_game_phase(g) == CARC_PH_TILE && opl_is_river(carc_game_drawn(g)))
				for (int k = 0; k < nm; k++) far |= abs(moves[k].x) >= 16 || abs(moves[k].y) >= 16;
			given_order_play(r, g, &moves[carc_rng_below(&rng, (uint32_t)nm)]);
		}
		far_games += far;
		free(g);
	}
	ck_assert_int_ge(far_games, FAR_GAMES / 2);
}
END_TEST

static Suite *placement_suite(void)
{
	const struct {
		const char *name;
		const TTest *test;
		int batches;
	} cases[] = {
		{ "placements", test_placements, NTESTS },
		{ "rivers", test_rivers, RIVER_TESTS },
		{ "adversary", test_river_adversary, ADVERSARY_TESTS },
		{ "every_way", test_river_every_way, EVERY_WAY_TESTS },
		{ "crowded", test_crowded, 2 },
		{ "many_river_ends", test_many_river_ends, 1 },
		{ "fork_supply", test_fork_supply, 1 },
		{ "far_other_end", test_far_other_end, 1 },
		{ "look_ahead_refuses_everywhere", test_look_ahead_refuses_everywhere, 1 },
		{ "walled_branch", test_walled_branch, 1 },
		{ "given_reshuffle", test_given_reshuffle, 1 },
		{ "put_back_copy", test_put_back_copy, 1 },
		{ "river_beside_cult", test_river_beside_cult, 1 },
		{ "fork_reshuffle", test_fork_reshuffle, 2 },
		{ "unlisted_beside_cult", test_unlisted_beside_cult, 1 },
		{ "joined_mouths", test_joined_mouths, 4 },
		{ "unlisted_free_end", test_unlisted_free_end, 2 },
		{ "far_river", test_far_river, 2 },
		{ "refusal_by_hand", test_refusal_by_hand, 1 },
		{ "dealt_river_put_back", test_dealt_river_put_back, 1 },
	};
	Suite *s = suite_create("placement_ext");
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		TCase *tc = tcase_create(cases[k].name);
		tcase_set_timeout(tc, 20);
		tcase_add_loop_test(tc, cases[k].test, 0, cases[k].batches);
		suite_add_tcase(s, tc);
	}
	return s;
}

#ifdef TU_FUZZ
/* tests/unit/fuzz_placement_ext: the input names game n, dealt as
 * test_placements deals it (game_config), and picks its decisions
 * (tu_fuzz_game).  Every placement and abbey hole is held against the
 * model, and no river tile of the dealt supply may be discarded (2.3,
 * 4.20). */
static void play_fuzzed(int game)
{
	t_fork = tu_tile("RI.2/III");
	memset(&st, 0, sizeof st);
	carc_config cfg;
	game_config(&cfg, game);
	play(&cfg, game, (uint64_t)game * 6151 + 29, 0);
	TU_ASSERT_MSG(!st.river_discards, "game %d: %ld river tiles discarded", game, st.river_discards);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)placement_suite; /* the Check tests, not run here */
	tu_fuzz_game(data, size, play_fuzzed);
	return 0;
}
#else
int main(void)
{
	return tu_run(placement_suite());
}
#endif

/*
 * test_oracle_ext.c - the scoring of games with the expansions, held
 * against the naive model in oracle_ext.c.
 *
 * 1,200 seeded random full games (12 batches of 100, under a second in
 * all natively): base plus a random mix of the other
 * expansions the engine offers (every third game all of them), 2 to 6
 * seats, every rule option of RULES.md section 6 drawn at random (every
 * fourth game also a random set of components, its sets' tiles in play
 * or not: a figure or token apart from its tiles brings none of their
 * symbols), each
 * decision a random legal move.  The model follows the game through its
 * events (tiles placed, figures deployed and returned) and:
 *
 * - every road, city and cloister-type building it sees completed is
 *   reported once (feature_completed, with its tile count) in the turn of
 *   the placement, and no other;
 * - each completion pays exactly what the model computes: the majority by
 *   strength (large follower 2, wagon 1, mayor the city's pennants), the
 *   hill tie-break, inns, cathedrals, besieged cities, vineyards, the
 *   small-city rule; then every figure in it goes home;
 * - a cult challenge sends home only followers of an incomplete building
 *   of the other kind next to the one scored, and all of them;
 * - a barn placed in a farm with farmers pays them 3 a city (pig, pig
 *   herd, besieged city twice) and sends them home, and a tile that joins
 *   farmers to a barn's farm pays them 1 a city and sends them home;
 * - the king, the robber baron and the trade goods tokens are held by the
 *   seats the model says, after every move;
 * - final scoring pays, feature by feature and seat by seat, what the
 *   model computes: incomplete roads, cities and buildings, farms under
 *   the game's farm_scoring, barns, trade goods, king and robber;
 * - the figures stand where the model put them, after every move.
 *
 * And the decisions and turns the expansions add:
 *
 * - flocks (2.13, row 22): a shepherd deployed draws one token, a seat
 *   that chose to expand draws one; the sheep lie beside the shepherd (as
 *   carc_flock_sheep also says), a wolf sends every shepherd of that farm
 *   home; the expand-or-gather decision comes to a seat, at the end of its
 *   turn, exactly when its own tile extended the farm holding its
 *   shepherd; a gather pays every shepherd owner in the farm all the sheep
 *   there; a farm closed with shepherds is gathered by the end of the
 *   turn, and no other; shepherds left at the end score nothing;
 * - turns (2.6, 2.3): each turn goes to the next seat, but for the
 *   builder's one extra turn (a tile that extends or completes the road
 *   or city holding the placer's builder) and the volcano lake's
 *   (volcano_lake_extra_turn), neither in an extra turn (4.7: "only one
 *   extra tile per turn");
 * - wagons (2.9, 4.8): after a completion in play, each wagon it scored
 *   is asked in turn, clockwise from the seat on turn, and offered exactly
 *   the unoccupied incomplete features wagon_move allows (connected: the
 *   tile's wagon-move groups; adjacent-tiles: the 3x3 tiles); one with
 *   nowhere to go is not asked;
 * - escapes (2.11): the seat on turn is offered exactly its followers in
 *   incomplete besieged cities with a cloister-type building next to a
 *   siege tile (or any tile, escape_cloister any-tile) of the city, one a
 *   turn or one a city (escape), and asked whenever there is one;
 * - barns (2.9, 4.9): the deployment step offers exactly the corners of
 *   the tile just placed where four tiles meet with field in each corner
 *   (a corner two fields of one tile share is field: the other three
 *   tiles join them into one farm), to a seat with its barn, not into a
 *   barn's farm (barn_placement no-second-barn), and none in a game
 *   without farmers.
 *
 * A city's `multi` edges (a side it reaches beside the city of that side,
 * without joining it on its own tile) are open ends of it, and a city
 * across that side joins both (RULES.md 1.1, 2.6, 4.3).
 *
 * A barn's corner needs one field in each of the four tiles' corners
 * there: a corner where two fields of a tile meet (AM/C!+, IC/C!) has a
 * wall running into it (RULES.md 2.9, 4.9).
 *
 * Under farm_scoring per-city-4, a winner's own pig and a pig herd each
 * add 1 to a city, once, from a touching farm where the winner has a
 * farmer (RULES.md rows 10c, 12, 13; the engine reads them so too).
 *
 * ORACLE_EXT_GAME=n plays game n alone (in the first batch), to
 * reproduce a failure, ORACLE_EXT_TRACE=1 prints its moves and events;
 * CARC_PROPERTY_STATS prints what each batch did.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "oracle_ext.h"
#include "testutil.h"
#include "tiles_int.h"

#define GAMES 1200
#define GAMES_PER_TEST 100
#define MAX_GAME_MOVES 8192

typedef struct track {
	carc_config cfg;
	int game;
	ore o;
	int nseats, placer, last_cell;
	int pending[CARC_MAX_NODES], npending;
	uint8_t reported[CARC_MAX_NODES];
	/* the scoring under way: a completion (kind 1) or barn farms (kind 2) */
	int block, block_roots[16], nroots, challenge_cell, challenge_shrine;
	ore_pay want[ORE_MAX_PAY], got[ORE_MAX_PAY];
	int nwant, ngot;
	ore_pay fgot[ORE_MAX_PAY];
	int nfgot, over, game_over_events;
	/* turns (RULES.md 2.6): the seat on turn, a builder's extra turn
	 * earned by the placement, this turn is one; the abbey's final round
	 * (abbey_final_round) leaves the order of turns; the game has ended */
	int turn_seat, turns, extra_due, in_extra, final_round, ended;
	/* the final round goes round the table from the seat after the last
	 * tile's placer (final_placer; an extra turn the last tile earned does
	 * not happen); final_after: how far after it the seat asked last sat */
	int final_placer, final_after;
	/* flocks (2.13): the seat whose expand-or-gather is due; tokens a
	 * seat must draw now; the farm the move just made gathers */
	int flock_due, draw_owed[CARC_MAX_SEATS], gather_farm;
	/* wagons waiting to move (2.9): figure, seat, the segment it stood on */
	int wait_fig[CARC_MAX_SEATS], wait_seat[CARC_MAX_SEATS], wait_seg[CARC_MAX_SEATS], nwait;
	/* escapes this turn (2.11): a segment of each city left; passed; a
	 * tile placed (a turn whose draw found nothing before the end has
	 * no end of turn to escape at: the game is over) */
	int escaped[32], nescaped, escape_passed, placed;
	/* RULES.md row 16 and 1.2 (points during play are scored in step 3):
	 * the cell of the turn's tile, whose farms joined to a barn's farm
	 * score once the deployment step and the completions are over (-1
	 * none); farmers joined that scored in the move being played */
	int join_cell, joined_now;
	int move_type; /* of the move being played */
} track;

typedef struct coverage {
	int completed, paid, ties, hill_ties, inns, cathedrals, besieged, vineyards, mayors, larges, wagons;
	int challenges, barn_now, barn_joined, pigs, herds, king, robber, trade, barn_final, final_pays, flocks;
	int tiles, moves, hill_breaks;
	/* flocks: shepherds deployed, sheep drawn, wolves (on deploy, on
	 * expand), decisions, expands, gathered by choice, closed farms */
	int shepherds, sheep, wolves_deploy, wolves_expand, flock_asked, expands, gathered, closed_gathered;
	int extra_turns, extra_by_completion, extra_abbey, extra_lake, turns_checked;
	int wagon_asked, wagon_targets, wagon_moved, wagon_none;
	int escape_asked, escape_offered, escapes, escape_each_city_again;
	int barn_lists, barn_corners, barn_split;
} coverage;

static track tr;
static int trace;  /* ORACLE_EXT_TRACE=1: every move and event on stderr */
static coverage cov;
static tu_events ev;
static carc_move moves[CARC_MAX_MOVES];

/* ---- messages --------------------------------------------------------------------- */

/* The game in words, for a reproduction: seed, seats, sets, rules. */
static const char *describe(const track *t, const carc_game *g)
{
	static char buf[1024];
	int n = snprintf(buf, sizeof buf, "game %d (seed %#llx, %d seats, turn %u; sets", t->game,
	                 (unsigned long long)t->cfg.seed, t->nseats, g ? carc_game_turn(g) : 0);
	for (int i = 0; i < carc_expansion_count(); i++)
		if (t->cfg.expansions >> i & 1) n += snprintf(buf + n, sizeof buf - (size_t)n, " %s", carc_expansion(i)->name);
	if (t->cfg.components_given) {
		n += snprintf(buf + n, sizeof buf - (size_t)n, "; components");
		for (int c = 0; c < CARC_C_COUNT; c++)
			if (t->cfg.components >> c & 1) n += snprintf(buf + n, sizeof buf - (size_t)n, " %s", carc_component_name(c));
	}
	n += snprintf(buf + n, sizeof buf - (size_t)n, "; rules");
	for (int i = 0; i < CARC_R_COUNT; i++) {
		const carc_rule_desc *d = carc_rule(i);
		if (d->type == 0) n += snprintf(buf + n, sizeof buf - (size_t)n, " %s=%s", d->key, d->values[t->cfg.rules[i]]);
		else if (d->type == 1) n += snprintf(buf + n, sizeof buf - (size_t)n, " %s=%d", d->key, t->cfg.rules[i]);
	}
	snprintf(buf + n, sizeof buf - (size_t)n, ")");
	return buf;
}

static const char *where(track *t, int root)
{
	static char buf[128];
	if (root < 0) return "-";
	const ore_cell *c = &t->o.cells[t->o.segs[root].cell];
	int pennants, tiles = ore_tiles(&t->o, root, &pennants, NULL);
	snprintf(buf, sizeof buf, "%s at (%d,%d) %s, %d tiles, %d pennants", carc_fkind_name(t->o.segs[root].kind), c->x,
	         c->y, carc_tile_id(c->type), tiles, pennants);
	return buf;
}

static int pay_cmp(const void *a, const void *b)
{
	const ore_pay *x = a, *y = b;
	if (x->root != y->root) return x->root - y->root;
	if (x->sc != y->sc) return x->sc - y->sc;
	if (x->seat != y->seat) return x->seat - y->seat;
	return x->points - y->points;
}

/* The two lists of payments are the same; else a message with what each
 * has that the other does not. */
static void same_pays(track *t, const carc_game *g, const char *what, ore_pay *want, int nwant, ore_pay *got, int ngot)
{
	qsort(want, (size_t)nwant, sizeof *want, pay_cmp);
	qsort(got, (size_t)ngot, sizeof *got, pay_cmp);
	int same = nwant == ngot;
	for (int i = 0; same && i < nwant; i++) same = !pay_cmp(&want[i], &got[i]);
	if (same) return;
	static char msg[3000];
	int n = snprintf(msg, sizeof msg, "%s: %s\n  only the model's:", what, describe(t, g));
	int i = 0, j = 0;
	static ore_pay only_got[ORE_MAX_PAY];
	int nonly = 0;
	while (i < nwant || j < ngot) {
		int c = i == nwant ? 1 : j == ngot ? -1 : pay_cmp(&want[i], &got[j]);
		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			if (n < 1800)
				n += snprintf(msg + n, sizeof msg - (size_t)n, "\n    seat %d %s %d for %s", want[i].seat,
				              carc_sc_name(want[i].sc), want[i].points, where(t, want[i].root));
			i++;
		} else {
			only_got[nonly++] = got[j++];
		}
	}
	n += snprintf(msg + n, sizeof msg - (size_t)n, "\n  only the engine's:");
	for (int k = 0; k < nonly && n < 2800; k++)
		n += snprintf(msg + n, sizeof msg - (size_t)n, "\n    seat %d %s %d for %s", only_got[k].seat,
		              carc_sc_name(only_got[k].sc), only_got[k].points, where(t, only_got[k].root));
	ck_abort_msg("%s", msg);
}

/* ---- events ------------------------------------------------------------------------- */

static int seg_at(track *t, int x, int y, int port)
{
	int cell = ore_cell_at(&t->o, x, y);
	TU_ASSERT_MSG(cell >= 0, "an event names (%d,%d), where no tile lies", x, y);
	int s = ore_port_seg(&t->o, cell, port);
	TU_ASSERT_MSG(s >= 0, "an event names port %s of (%d,%d), where no feature is", carc_port_name(port), x, y);
	return s;
}

static void close_block(track *t, const carc_game *g)
{
	if (!t->block) return;
	static const char *const whats[] = { "", "a completed feature paid other points than the model's",
		                             "a farm scored by a barn paid other points than the model's",
		                             "a flock gathered paid other points than the model's",
		                             "a wolf's farm paid points" };
	const char *what = whats[t->block];
	same_pays(t, g, what, t->want, t->nwant, t->got, t->ngot);
	for (int i = 0; i < t->nroots; i++)
		for (int f = 0; f < t->o.nfigs; f++) {
			int s = t->o.fig_seg[f];
			if (s < 0 || ore_root(&t->o, s) != t->block_roots[i]) continue;
			/* a completion sends every figure home; a barn the
			 * followers; a gathered flock or a wolf the shepherds */
			int kind = t->o.fig_kind[f];
			TU_ASSERT_MSG((t->block == 2 && !ore_is_follower(kind)) || (t->block >= 3 && kind != CARC_FIG_SHEPHERD),
			              "a %s of seat %d stayed in the %s after it scored: %s", carc_figkind_name(t->o.fig_kind[f]),
			              t->o.fig_seat[f], where(t, t->block_roots[i]), describe(t, g));
		}
	/* RULES.md row 9: the followers of an incomplete building of the
	 * other kind next to the one scored are gone */
	if (t->challenge_cell >= 0) {
		const ore_cell *c = &t->o.cells[t->challenge_cell];
		for (int f = 0; f < t->o.nfigs; f++) {
			int s = t->o.fig_seg[f];
			if (s < 0 || t->o.segs[s].kind != CARC_F_CLOISTER) continue;
			const ore_cell *d = &t->o.cells[t->o.segs[s].cell];
			if (abs(d->x - c->x) > 1 || abs(d->y - c->y) > 1 || t->challenge_cell == t->o.segs[s].cell) continue;
			TU_ASSERT_MSG(ore_is_shrine(&t->o, s) == t->challenge_shrine || t->o.done[ore_root(&t->o, s)],
			              "a follower on the %s at (%d,%d) was not challenged by the %s scored at (%d,%d): %s",
			              ore_is_shrine(&t->o, s) ? "cult place" : "cloister", d->x, d->y,
			              t->challenge_shrine ? "cult place" : "cloister", c->x, c->y, describe(t, g));
		}
	}
	t->block = 0;
}

static void open_block(track *t, int kind)
{
	t->block = kind;
	t->nroots = t->nwant = t->ngot = 0;
	t->challenge_cell = -1;
}

/* What a placement by `seat` sets going for the end of its turn.
 *
 * RULES.md 2.6: "On a later turn, if the tile you place extends or
 * completes that road/city, you take one extra turn ... The extra turn
 * cannot chain ... Placing the builder does not itself trigger" (and
 * 4.7).  The builder must stand there before the tile is placed: one
 * deployed on this tile comes after this event.
 *
 * RULES.md 2.13: "whenever you place a tile that extends the farm holding
 * your shepherd, you must (after the deployment step) either expand ...
 * or gather"; "Opponents' tiles do not trigger your shepherd". */
static void placed_triggers(track *t, int seat, const int *done, int ndone)
{
	const ore_cell *c = &t->o.cells[t->last_cell];
	for (int f = 0; f < t->o.nfigs; f++) {
		int s = t->o.fig_seg[f];
		if (s < 0 || t->o.fig_seat[f] != seat || t->o.fig_kind[f] != CARC_FIG_BUILDER) continue;
		int r = ore_root(&t->o, s), hit = 0, by_completion = 0;
		for (int i = 0; i < c->nfeat; i++) hit |= ore_root(&t->o, c->seg0 + i) == r;
		for (int i = 0; i < ndone; i++) by_completion |= done[i] == r;
		if ((hit || by_completion) && !t->in_extra && !t->final_round) {
			/* an abbey completes a road or city with its walls without
			 * being part of it: "extends or completes" (2.6) */
			cov.extra_abbey += !hit;
			t->extra_due = 1;
			cov.extra_turns++;
			cov.extra_by_completion += by_completion;
		}
	}
	/* RULES.md 2.3, option volcano_lake_extra_turn: the placer of the
	 * volcano lake "immediately takes another tile"; 4.7: "only one extra
	 * tile per turn", so not in a builder's extra turn */
	unsigned sym = carc_tiletypes[c->type].symbols;
	if ((sym & CARC_SYM_VOLCANO) && (sym & CARC_SYM_LAKE) && t->cfg.rules[CARC_R_VOLCANO_LAKE_EXTRA_TURN] &&
	    !t->in_extra) {
		t->extra_due = 1;
		cov.extra_lake++;
	}
	int shep = ore_shepherd(&t->o, seat);
	if (shep >= 0) {
		int farm = ore_root(&t->o, t->o.fig_seg[shep]);
		for (int i = 0; i < c->nfeat; i++)
			if (ore_root(&t->o, c->seg0 + i) == farm) t->flock_due = seat;
	}
}

static void on_placed(track *t, const carc_game *g, const carc_event *e)
{
	int done[CARC_MAX_NODES], ndone;
	TU_LT(e->tile, carc_tile_count());
	t->last_cell = ore_place(&t->o, e->tile, e->x, e->y, e->rot, done, &ndone);
	for (int i = 0; i < ndone; i++) t->pending[t->npending++] = done[i];
	if (e->seat < 0) return; /* a start tile */
	t->placed = 1;
	t->placer = e->seat;
	placed_triggers(t, e->seat, done, ndone);
	t->join_cell = t->last_cell; /* its farms are looked at in step 3 (join_owed) */
	(void)g;
}

/* The farm of feature i of the turn's tile when it holds farmers and a
 * barn (RULES.md row 16: farmers joined to a barn's farm), else -1. */
static int joined_farm(track *t, int i)
{
	const ore_cell *c = &t->o.cells[t->join_cell];
	int s = c->seg0 + i, r = ore_root(&t->o, s);
	return t->o.segs[s].kind == CARC_F_FIELD && ore_farm_has_barn(&t->o, r) && ore_has_followers(&t->o, r) ? r : -1;
}

/* Is a farm of the turn's tile such a farm, still to score? */
static int join_owed(track *t)
{
	for (int i = 0; t->join_cell >= 0 && i < t->o.cells[t->join_cell].nfeat; i++)
		if (joined_farm(t, i) >= 0) return 1;
	return 0;
}

/* Step 3 has come to the farms of the turn's tile (row 16): each farm of
 * it with farmers and a barn pays them 1 a city and sends them home; one
 * block for all of them.  The completions of the turn were scored
 * before. */
static void join_now(track *t, const carc_game *g)
{
	TU_ASSERT_MSG(t->npending == 0, "farmers joined to a barn's farm scored before %d completed features: %s",
	              t->npending, describe(t, g));
	close_block(t, g);
	open_block(t, 2);
	for (int i = 0; i < t->o.cells[t->join_cell].nfeat; i++) {
		int r = joined_farm(t, i), k;
		if (r < 0) continue;
		for (k = 0; k < t->nroots && t->block_roots[k] != r; k++) {}
		if (k < t->nroots) continue;
		TU_LT(t->nroots, 16);
		t->block_roots[t->nroots++] = r;
		ore_pay_farm_now(&t->o, r, 1, t->want, &t->nwant);
		cov.barn_joined++;
	}
	t->join_cell = -1;
	t->joined_now = 1;
}

/* A field's points during play or a farmer sent home by a barn at farm
 * `root`, outside the barn farm being scored: the joined farms' step 3,
 * if they are owed one. */
static void join_if_owed(track *t, const carc_game *g, int root)
{
	int in_block = 0;
	for (int i = 0; i < t->nroots; i++) in_block |= t->block_roots[i] == root;
	if ((t->block != 2 || !in_block) && join_owed(t)) join_now(t, g);
}

static void on_deployed(track *t, const carc_game *g, const carc_event *e)
{
	int s = seg_at(t, e->x, e->y, e->port);
	carc_figure_info fi;
	TU_ASSERT(carc_figure_get(g, e->figure, &fi));
	TU_EQ(fi.kind, e->kind);
	TU_EQ(fi.seat, e->seat);
	TU_EQ(e->fkind, t->o.segs[s].kind);
	ore_deploy(&t->o, e->figure, e->seat, e->kind, s);
	cov.larges += e->kind == CARC_FIG_LARGE;
	cov.mayors += e->kind == CARC_FIG_MAYOR;
	cov.wagons += e->kind == CARC_FIG_WAGON;
	cov.pigs += e->kind == CARC_FIG_PIG;
	/* RULES.md 2.13: "place it in a field of the tile just placed that
	 * has no shepherd ... Then draw a token" */
	if (e->kind == CARC_FIG_SHEPHERD) {
		for (int f = 0; f < t->o.nfigs; f++)
			TU_ASSERT_MSG(f == e->figure || t->o.fig_seg[f] < 0 || t->o.fig_kind[f] != CARC_FIG_SHEPHERD ||
			                  ore_root(&t->o, t->o.fig_seg[f]) != ore_root(&t->o, s),
			              "a shepherd deployed into a farm with the shepherd of seat %d: %s", t->o.fig_seat[f],
			              describe(t, g));
		t->draw_owed[e->seat]++;
		cov.shepherds++;
	}
	/* RULES.md row 14: a barn placed in a farm with farmers: 3 a city */
	int r = ore_root(&t->o, s);
	if (e->kind == CARC_FIG_BARN && ore_has_followers(&t->o, r)) {
		open_block(t, 2);
		t->block_roots[t->nroots++] = r;
		ore_pay_farm_now(&t->o, r, 3, t->want, &t->nwant);
		cov.barn_now++;
	}
}

static void on_completed(track *t, const carc_game *g, const carc_event *e)
{
	int root = ore_root(&t->o, seg_at(t, e->x, e->y, e->port)), k;
	for (k = 0; k < t->npending && t->pending[k] != root; k++) {}
	TU_ASSERT_MSG(k < t->npending, "feature_completed for the %s, which the model did not see completed now: %s",
	              where(t, root), describe(t, g));
	t->pending[k] = t->pending[--t->npending];
	TU_ASSERT_MSG(!t->reported[root], "a feature completed twice");
	t->reported[root] = 1;
	TU_EQ(e->fkind, t->o.segs[root].kind);
	TU_EQ(e->ntiles, ore_tiles(&t->o, root, NULL, NULL));
	ore_completed_tokens(&t->o, root, t->placer);
	open_block(t, 1);
	t->block_roots[t->nroots++] = root;
	ore_pay_completed(&t->o, root, t->want, &t->nwant);
	if (t->o.segs[root].kind == CARC_F_CLOISTER && ore_shrines_on(&t->o) && ore_has_followers(&t->o, root)) {
		t->challenge_cell = t->o.segs[root].cell;
		t->challenge_shrine = ore_is_shrine(&t->o, root);
	}
	/* what this completion exercises */
	unsigned flags;
	ore_tiles(&t->o, root, NULL, &flags);
	cov.completed++;
	cov.paid += t->nwant > 0;
	cov.ties += t->nwant > 1;
	if (t->nwant) {
		cov.inns += !!(flags & CARC_TF_INN);
		cov.cathedrals += !!(flags & CARC_TF_CATHEDRAL);
		cov.besieged += !!(flags & CARC_TF_BESIEGED);
	}
	if (t->nwant && t->o.segs[root].kind == CARC_F_CLOISTER && t->want[0].points > 9) cov.vineyards++;
}

/* A flock is gathered (RULES.md row 22, 2.13): in the farm the seat on
 * the move chose to gather, or in one that is closed ("A farm that
 * becomes closed is scored at once"); every shepherd owner in it scores
 * the sheep of all, and the shepherds go home. */
static void open_flock(track *t, const carc_game *g, int farm)
{
	close_block(t, g);
	int owners = 0;
	for (int s = 0; s < t->nseats; s++) {
		int f = ore_shepherd(&t->o, s);
		owners += f >= 0 && ore_root(&t->o, t->o.fig_seg[f]) == farm;
	}
	TU_ASSERT_MSG(owners > 0, "a flock gathered in the %s, where no shepherd stands: %s", where(t, farm),
	              describe(t, g));
	if (farm == t->gather_farm) {
		t->gather_farm = -1;
		cov.gathered++;
	} else {
		TU_ASSERT_MSG(ore_farm_closed(&t->o, farm),
		              "a flock gathered in the %s, which is not closed and no one chose to gather: %s",
		              where(t, farm), describe(t, g));
		cov.closed_gathered++;
	}
	open_block(t, 3);
	t->block_roots[t->nroots++] = farm;
	ore_pay_flock(&t->o, farm, t->want, &t->nwant);
}

static void on_sheep(track *t, const carc_game *g, const carc_event *e)
{
	TU_ASSERT_MSG(e->seat >= 0 && e->seat < t->nseats && t->draw_owed[e->seat] > 0,
	              "seat %d drew a sheep token, and neither deployed its shepherd nor chose to expand: %s", e->seat,
	              describe(t, g));
	t->draw_owed[e->seat]--;
	int f = ore_shepherd(&t->o, e->seat);
	TU_ASSERT_MSG(f >= 0, "seat %d drew a token with no shepherd on the board: %s", e->seat, describe(t, g));
	const ore_cell *c = &t->o.cells[t->o.segs[t->o.fig_seg[f]].cell];
	TU_ASSERT_MSG(c->x == e->x && c->y == e->y, "seat %d's token drawn at (%d,%d), its shepherd is at (%d,%d): %s",
	              e->seat, e->x, e->y, c->x, c->y, describe(t, g));
	TU_ASSERT_MSG(e->kind >= 1 && e->kind <= CARC_WOLF, "token %d drawn", e->kind);
	if (e->kind != CARC_WOLF) {
		t->o.sheep[f][e->kind]++;
		/* no more of a kind is out than the bag holds */
		int out = 0;
		for (int g2 = 0; g2 < t->o.nfigs; g2++) out += t->o.fig_seg[g2] >= 0 ? t->o.sheep[g2][e->kind] : 0;
		TU_ASSERT_MSG(out <= carc_bag_holds(e->kind), "%d tokens of %d sheep are out: %s", out, e->kind,
		              describe(t, g));
		cov.sheep++;
		return;
	}
	/* "a wolf wipes every shepherd and token in that farm" */
	if (t->move_type == CARC_MV_FLOCK) cov.wolves_expand++;
	else cov.wolves_deploy++;
	open_block(t, 4);
	t->block_roots[t->nroots++] = ore_root(&t->o, t->o.fig_seg[f]);
}

static void on_scored(track *t, const carc_game *g, const carc_event *e)
{
	TU_ASSERT_MSG(e->seat >= 0 && e->seat < t->nseats, "scored for seat %d", e->seat);
	TU_GT(e->points, 0);
	int root = e->port < CARC_PORT_COUNT ? ore_root(&t->o, seg_at(t, e->x, e->y, e->port)) : -1;
	ore_pay p = { e->seat, e->fkind, e->points, root };
	if (e->final) {
		TU_ASSERT_MSG(t->over, "final points before the end");
		TU_LT(t->nfgot, ORE_MAX_PAY);
		t->fgot[t->nfgot++] = p;
		return;
	}
	if (e->fkind == CARC_SC_FLOCK) {
		TU_ASSERT_MSG(root >= 0, "flock points with no farm: %s", describe(t, g));
		if (t->block != 3 || t->block_roots[0] != root) open_flock(t, g, root);
		cov.flocks++;
	}
	if (e->fkind == CARC_SC_FIELD && root >= 0) join_if_owed(t, g, root);
	TU_ASSERT_MSG(t->block, "%s points for seat %d during play with nothing scoring: %s", carc_sc_name(e->fkind),
	              e->seat, describe(t, g));
	TU_LT(t->ngot, ORE_MAX_PAY);
	t->got[t->ngot++] = p;
}

static void on_returned(track *t, const carc_game *g, const carc_event *e)
{
	TU_LT(e->figure, ORE_MAX_FIGS);
	int s = t->o.fig_seg[e->figure];
	TU_ASSERT_MSG(s >= 0, "figure %d returned but not on the board: %s", e->figure, describe(t, g));
	int r = ore_root(&t->o, s), in_block = 0;
	if (e->why == CARC_WHY_FLOCK && (t->block != 3 || t->block_roots[0] != r)) open_flock(t, g, r);
	if (e->why == CARC_WHY_BARN) join_if_owed(t, g, r);
	for (int i = 0; i < t->nroots; i++) in_block |= t->block && t->block_roots[i] == r;
	switch (e->why) {
	case CARC_WHY_SCORED:
		TU_ASSERT_MSG(t->block == 1 && in_block, "a %s returned as scored from the %s, which is not scoring: %s",
		              carc_figkind_name(e->kind), where(t, r), describe(t, g));
		break;
	case CARC_WHY_BARN:
		TU_ASSERT_MSG(t->block == 2 && in_block && ore_is_follower(e->kind),
		              "a %s returned for a barn from the %s: %s", carc_figkind_name(e->kind), where(t, r),
		              describe(t, g));
		break;
	case CARC_WHY_CHALLENGE: {
		TU_ASSERT_MSG(t->block == 1 && t->challenge_cell >= 0, "a challenge with no building scored: %s",
		              describe(t, g));
		const ore_cell *c = &t->o.cells[t->challenge_cell], *d = &t->o.cells[t->o.segs[s].cell];
		TU_ASSERT_MSG(t->o.segs[s].kind == CARC_F_CLOISTER && abs(d->x - c->x) <= 1 && abs(d->y - c->y) <= 1 &&
		                  ore_is_shrine(&t->o, s) != t->challenge_shrine && !t->o.done[r],
		              "a %s on the %s challenged by the building at (%d,%d): %s", carc_figkind_name(e->kind),
		              where(t, r), c->x, c->y, describe(t, g));
		cov.challenges++;
		break;
	}
	case CARC_WHY_WOLF:
	case CARC_WHY_FLOCK:
		TU_ASSERT_MSG(t->block == (e->why == CARC_WHY_WOLF ? 4 : 3) && in_block && e->kind == CARC_FIG_SHEPHERD,
		              "a %s returned for a %s from the %s: %s", carc_figkind_name(e->kind), carc_why_name(e->why),
		              where(t, r), describe(t, g));
		break;
	default: break; /* lonely builders and pigs, escapes */
	}
	/* RULES.md 2.9: a wagon whose feature is scored during play may move
	 * on at the end of the turn */
	if (e->kind == CARC_FIG_WAGON && e->why == CARC_WHY_SCORED && !t->ended) {
		TU_LT(t->nwait, CARC_MAX_SEATS);
		t->wait_fig[t->nwait] = e->figure;
		t->wait_seat[t->nwait] = e->seat;
		t->wait_seg[t->nwait++] = s;
	}
	memset(t->o.sheep[e->figure], 0, sizeof t->o.sheep[e->figure]);
	ore_return(&t->o, e->figure);
}

/* ---- the end of a turn ----------------------------------------------------------------- */

/* The model's waiting wagon that decides now: clockwise from the seat on
 * turn (RULES.md 2.9, 4.8), the first with somewhere to go; the ones
 * before it have nowhere and go.  -1 when none is left. */
static int next_wagon(track *t, int *roots, int *nroots)
{
	for (;;) {
		int best = -1;
		for (int i = 0; i < t->nwait; i++) {
			int d = (t->wait_seat[i] - t->turn_seat + t->nseats) % t->nseats;
			if (best < 0 || d < (t->wait_seat[best] - t->turn_seat + t->nseats) % t->nseats) best = i;
		}
		if (best < 0) return -1;
		*nroots = ore_wagon_targets(&t->o, t->wait_seg[best], roots, CARC_MAX_NODES);
		if (*nroots) return best;
		cov.wagon_none++;
		t->wait_fig[best] = t->wait_fig[--t->nwait];
		t->wait_seat[best] = t->wait_seat[t->nwait];
		t->wait_seg[best] = t->wait_seg[t->nwait];
	}
}

static void drop_wagon(track *t, int i)
{
	t->nwait--;
	t->wait_fig[i] = t->wait_fig[t->nwait];
	t->wait_seat[i] = t->wait_seat[t->nwait];
	t->wait_seg[i] = t->wait_seg[t->nwait];
}

/* Escapes the seat on turn may still make this turn (RULES.md 2.11 and
 * option escape): one-per-turn: none after one; each-city: not from a
 * city left already. */
static int escapes_left(track *t, int *figs, int cap)
{
	if (t->o.escape_rule == 1 && t->nescaped) return 0;
	return ore_escapable(&t->o, t->turn_seat, t->escaped, t->nescaped, figs, cap);
}

/* What the turn that ends now owed: the flock decision, the gathering of
 * closed farms, the wagons' moves and the escapes, each asked if due. */
static void end_of_turn(track *t, const carc_game *g)
{
	static int roots[CARC_MAX_NODES], figs[ORE_MAX_FIGS];
	int nroots;
	TU_ASSERT_MSG(!join_owed(t), "farmers joined to a barn's farm by the tile at (%d,%d) did not score: %s",
	              t->o.cells[t->join_cell].x, t->o.cells[t->join_cell].y, describe(t, g));
	t->join_cell = -1;
	TU_ASSERT_MSG(t->flock_due < 0 || ore_shepherd(&t->o, t->flock_due) < 0,
	              "seat %d's tile extended the farm of its shepherd, and it was not asked to expand or gather: %s",
	              t->flock_due, describe(t, g));
	for (int s = 0; s < t->nseats; s++) {
		int f = ore_shepherd(&t->o, s);
		int closed = f < 0 ? 0 : ore_farm_closed(&t->o, ore_root(&t->o, t->o.fig_seg[f]));
		TU_ASSERT_MSG(!closed,
		              "seat %d's shepherd stands in the closed %s at the end of a turn: %s", s,
		              where(t, ore_root(&t->o, t->o.fig_seg[f])), describe(t, g));
	}
	int w = next_wagon(t, roots, &nroots);
	TU_ASSERT_MSG(w < 0, "seat %d's wagon could move to %d features and was not asked: %s", w < 0 ? -1 : t->wait_seat[w],
	              nroots, describe(t, g));
	if (!t->escape_passed && t->placed) {
		int n = escapes_left(t, figs, ORE_MAX_FIGS);
		TU_ASSERT_MSG(n == 0, "seat %d could free %d followers from besieged cities and was not asked (figure %d): %s",
		              t->turn_seat, n, n ? figs[0] : -1, describe(t, g));
	}
	t->flock_due = -1;
	t->nwait = t->nescaped = t->escape_passed = t->placed = 0;
}

static void on_turn(track *t, const carc_game *g, const carc_event *e)
{
	if (t->turns) end_of_turn(t, g);
	/* the abbey's final round: the seats that hold an abbey, in order */
	if (carc_game_phase(g) == CARC_PH_ABBEY_FINAL) {
		if (!t->final_round) {
			t->final_round = 1;
			t->final_placer = t->turn_seat;
			t->final_after = 0;
		}
		int after = (e->seat - t->final_placer + t->nseats - 1) % t->nseats + 1; /* 1 next, nseats the placer */
		TU_ASSERT_MSG(after > t->final_after,
		              "the final round asked seat %d after seat %d; it goes round from the seat after seat %d, "
		              "who placed the last tile: %s",
		              e->seat, (t->final_placer + t->final_after) % t->nseats, t->final_placer, describe(t, g));
		t->final_after = after;
	}
	if (t->turns && !t->final_round) {
		/* RULES.md 2.6: the builder's extra turn "right away", once */
		int want = t->extra_due ? t->turn_seat : (t->turn_seat + 1) % t->nseats;
		TU_ASSERT_MSG(e->seat == want, "turn %d went to seat %d, the model's is seat %d (%s): %s", t->turns + 1,
		              e->seat, want, t->extra_due ? "the builder's extra turn" : "the next seat", describe(t, g));
		cov.turns_checked++;
	}
	t->in_extra = t->extra_due;
	t->extra_due = 0;
	t->turn_seat = e->seat;
	t->turns++;
}

static void on_game_over(track *t, const carc_game *g)
{
	static ore_pay want[ORE_MAX_PAY];
	int nwant;
	TU_EQ(t->npending, 0);
	t->game_over_events++;
	ore_final(&t->o, want, &nwant);
	for (int i = 0; i < nwant; i++) {
		cov.final_pays++;
		cov.barn_final += want[i].sc == CARC_SC_BARN;
		cov.trade += want[i].sc == CARC_SC_TRADE;
		cov.king += want[i].sc == CARC_SC_KING;
		cov.robber += want[i].sc == CARC_SC_ROBBER;
	}
	same_pays(t, g, "final scoring paid other points than the model's", want, nwant, t->fgot, t->nfgot);
}

/* Every event of one call, in order. */
static void process(track *t, const carc_game *g, const tu_events *evs)
{
	TU_LE(evs->sink.n, evs->sink.cap);
	for (int i = 0; i < evs->sink.n; i++) {
		const carc_event *e = &evs->ev[i];
		if (trace)
			fprintf(stderr, "  %s seat %d (%d,%d) %s kind %d fig %d why %s pts %d%s\n", carc_etype_name(e->type), e->seat,
			        e->x, e->y, e->port < CARC_PORT_COUNT ? carc_port_name(e->port) : "-", e->kind, e->figure,
			        carc_why_name(e->why), e->points, e->final ? " final" : "");
		TU_ASSERT_MSG(t->game_over_events == 0, "an event after game_over");
		if (!t->ended && (e->type == CARC_EV_GAME_OVER || (e->type == CARC_EV_SCORED && e->final))) {
			close_block(t, g);
			end_of_turn(t, g); /* the last turn's */
			t->ended = 1;
		}
		if (e->type != CARC_EV_SCORED && e->type != CARC_EV_RETURNED && e->type != CARC_EV_TOKEN_TAKEN &&
		    e->type != CARC_EV_FEATURE_COMPLETED)
			close_block(t, g);
		switch (e->type) {
		case CARC_EV_TILE_PLACED: on_placed(t, g, e); break;
		case CARC_EV_DEPLOYED: on_deployed(t, g, e); break;
		case CARC_EV_FEATURE_COMPLETED:
			close_block(t, g);
			on_completed(t, g, e);
			break;
		case CARC_EV_SCORED: on_scored(t, g, e); break;
		case CARC_EV_RETURNED: on_returned(t, g, e); break;
		case CARC_EV_TURN:
			TU_ASSERT_MSG(t->npending == 0, "a turn began with %d completed features unreported: %s", t->npending,
			              describe(t, g));
			on_turn(t, g, e);
			break;
		case CARC_EV_SHEEP_DRAWN: on_sheep(t, g, e); break;
		case CARC_EV_GAME_OVER: on_game_over(t, g); break;
		default: break;
		}
	}
	close_block(t, g);
	for (int s = 0; s < t->nseats; s++)
		TU_ASSERT_MSG(t->draw_owed[s] == 0, "seat %d drew no token for its shepherd: %s", s, describe(t, g));
}

/* The figures stand where the model put them; the tokens are held as it says. */
static void check_state(track *t, const carc_game *g)
{
	for (int i = 0; i < carc_figure_count(g); i++) {
		carc_figure_info f;
		if (!carc_figure_get(g, i, &f)) continue;
		TU_LT(i, ORE_MAX_FIGS);
		int s = t->o.fig_seg[i];
		TU_ASSERT_MSG(f.on_board == (s >= 0), "figure %d (%s of seat %d): on the board %d, model %d: %s", i,
		              carc_figkind_name(f.kind), f.seat, f.on_board, s >= 0, describe(t, g));
		if (s < 0) continue;
		const ore_cell *c = &t->o.cells[t->o.segs[s].cell];
		TU_EQ(f.x, c->x);
		TU_EQ(f.y, c->y);
		TU_EQ(f.fkind, t->o.segs[s].kind);
	}
	for (int s = 0; s < t->nseats; s++) {
		/* the sheep beside each shepherd, against the engine's own count */
		int f = ore_shepherd(&t->o, s);
		for (int v = 1; v < CARC_WOLF; v++)
			TU_ASSERT_MSG(carc_flock_sheep(g, s, v) == (f < 0 ? 0 : t->o.sheep[f][v]),
			              "seat %d has %d tokens of %d sheep, the model %d: %s", s, carc_flock_sheep(g, s, v), v,
			              f < 0 ? 0 : t->o.sheep[f][v], describe(t, g));
		TU_ASSERT_MSG(carc_tokens(g, s, CARC_TOK_KING) == (t->o.king == s), "seat %d: king %d, model holder %d: %s",
		              s, carc_tokens(g, s, CARC_TOK_KING), t->o.king, describe(t, g));
		TU_ASSERT_MSG(carc_tokens(g, s, CARC_TOK_ROBBER) == (t->o.robber == s),
		              "seat %d: robber %d, model holder %d: %s", s, carc_tokens(g, s, CARC_TOK_ROBBER), t->o.robber,
		              describe(t, g));
		for (int k = 0; k < 3; k++)
			TU_ASSERT_MSG(carc_tokens(g, s, CARC_TOK_WINE + k) == t->o.tokens[s][k],
			              "seat %d: %d %s tokens, model %d: %s", s, carc_tokens(g, s, CARC_TOK_WINE + k),
			              carc_token_name(CARC_TOK_WINE + k), t->o.tokens[s][k], describe(t, g));
	}
}

/* ---- decisions ------------------------------------------------------------------------ */

static int int_cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Two lists of choices are the same set; else a message listing both. */
static void same_set(track *t, const carc_game *g, const char *what, int *want, int nwant, int *got, int ngot)
{
	qsort(want, (size_t)nwant, sizeof *want, int_cmp);
	qsort(got, (size_t)ngot, sizeof *got, int_cmp);
	int same = nwant == ngot;
	for (int i = 0; same && i < nwant; i++) same = want[i] == got[i];
	if (same) return;
	static char msg[2048];
	int n = snprintf(msg, sizeof msg, "%s: %s\n  model:", what, describe(t, g));
	for (int i = 0; i < nwant && n < 1000; i++) n += snprintf(msg + n, sizeof msg - (size_t)n, " %d", want[i]);
	n += snprintf(msg + n, sizeof msg - (size_t)n, "\n  engine:");
	for (int i = 0; i < ngot && n < 2000; i++) n += snprintf(msg + n, sizeof msg - (size_t)n, " %d", got[i]);
	ck_abort_msg("%s", msg);
}

/* The decision due now is the one the model expects, offering what the
 * model allows: the flock decision, a wagon's move, an escape, and in
 * the deployment step the barn's corners. */
static void check_decision(track *t, const carc_game *g, const carc_move *mv, int n)
{
	static int want[CARC_MAX_NODES], got[CARC_MAX_MOVES];
	int phase = carc_game_phase(g), seat = carc_game_seat(g), nwant = 0, ngot = 0, pass = 0;
	TU_LE(n, CARC_MAX_MOVES);
	switch (phase) {
	case CARC_PH_FLOCK: {
		int f = ore_shepherd(&t->o, seat);
		TU_ASSERT_MSG(seat == t->flock_due && seat == t->turn_seat && f >= 0,
		              "seat %d is asked to expand or gather, the model owes it to seat %d: %s", seat, t->flock_due,
		              describe(t, g));
		int closed = ore_farm_closed(&t->o, ore_root(&t->o, t->o.fig_seg[f]));
		TU_ASSERT_MSG(!closed,
		              "seat %d is asked to expand or gather in a closed farm: %s", seat, describe(t, g));
		TU_EQ(n, 2);
		TU_ASSERT(mv[0].type == CARC_MV_FLOCK && mv[1].type == CARC_MV_FLOCK && mv[0].kind != mv[1].kind);
		cov.flock_asked++;
		break;
	}
	case CARC_PH_WAGON: {
		int w = next_wagon(t, want, &nwant);
		TU_ASSERT_MSG(w >= 0 && t->wait_seat[w] == seat, "seat %d is asked to move a wagon, the model's next is seat %d: %s",
		              seat, w < 0 ? -1 : t->wait_seat[w], describe(t, g));
		for (int i = 0; i < n; i++) {
			if (mv[i].type == CARC_MV_PASS) {
				pass++;
				continue;
			}
			TU_EQ(mv[i].type, CARC_MV_MOVE_WAGON);
			int r = ore_root(&t->o, seg_at(t, mv[i].x, mv[i].y, mv[i].port)), k;
			for (k = 0; k < ngot && got[k] != r; k++) {}
			if (k == ngot) got[ngot++] = r; /* a feature may be listed on each of its tiles */
		}
		TU_EQ(pass, 1);
		same_set(t, g, "the wagon's targets (feature roots) are not the model's", want, nwant, got, ngot);
		cov.wagon_asked++;
		cov.wagon_targets += nwant;
		break;
	}
	case CARC_PH_ESCAPE:
		TU_ASSERT_MSG(seat == t->turn_seat, "seat %d is asked to escape on seat %d's turn: %s", seat, t->turn_seat,
		              describe(t, g));
		{ /* the wagons moved first: they move when their feature scores,
		   * the escape comes at the end of the turn (2.9, 2.11) */
			static int roots[CARC_MAX_NODES];
			int nroots, w = next_wagon(t, roots, &nroots);
			TU_ASSERT_MSG(w < 0, "seat %d is asked to escape before seat %d's wagon, which could move to %d features: %s",
			              seat, w < 0 ? -1 : t->wait_seat[w], nroots, describe(t, g));
		}
		nwant = escapes_left(t, want, ORE_MAX_FIGS);
		for (int i = 0; i < n; i++) {
			if (mv[i].type == CARC_MV_PASS) pass++;
			else if (mv[i].type == CARC_MV_ESCAPE) got[ngot++] = mv[i].figure;
			else ck_abort_msg("a %s move in the escape phase", carc_mtype_name(mv[i].type));
		}
		TU_EQ(pass, 1);
		same_set(t, g, "the followers offered to escape are not the model's", want, nwant, got, ngot);
		cov.escape_asked++;
		cov.escape_offered += nwant;
		break;
	case CARC_PH_ACTION: {
		/* the barn's corners on the tile just placed */
		const ore_cell *c = &t->o.cells[t->last_cell];
		unsigned split, corners = ore_barn_corners(&t->o, t->last_cell, seat, &split), listed = 0;
		for (int i = 0; i < n; i++) {
			if (mv[i].type != CARC_MV_DEPLOY || mv[i].kind != CARC_FIG_BARN) continue;
			TU_ASSERT_MSG(mv[i].x == c->x && mv[i].y == c->y && mv[i].port >= CARC_P_NW && mv[i].port <= CARC_P_SW,
			              "a barn listed at %s of (%d,%d), the tile placed is (%d,%d): %s", carc_port_name(mv[i].port),
			              mv[i].x, mv[i].y, c->x, c->y, describe(t, g));
			listed |= 1u << (mv[i].port - CARC_P_NW);
		}
		for (int k = 0; k < 4; k++) {
			if (corners >> k & 1) want[nwant++] = CARC_P_NW + k;
			if (listed >> k & 1) got[ngot++] = CARC_P_NW + k;
		}
		same_set(t, g, "the barn's corners (ports) are not the model's", want, nwant, got, ngot);
		cov.barn_lists += nwant > 0;
		cov.barn_corners += nwant;
		cov.barn_split += __builtin_popcount(split);
		break;
	}
	default: break;
	}
}

/* What the move chosen sets going, before its events. */
static void note_move(track *t, const carc_game *g, const carc_move *m)
{
	int phase = carc_game_phase(g), seat = carc_game_seat(g);
	t->move_type = m->type;
	if (phase == CARC_PH_FLOCK) {
		t->flock_due = -1;
		if (m->kind == 0) { /* expand: draw a token */
			t->draw_owed[seat]++;
			cov.expands++;
		} else { /* gather */
			t->gather_farm = ore_root(&t->o, t->o.fig_seg[ore_shepherd(&t->o, seat)]);
		}
	} else if (phase == CARC_PH_WAGON) {
		static int roots[CARC_MAX_NODES];
		int nroots, w = next_wagon(t, roots, &nroots);
		TU_GE(w, 0);
		cov.wagon_moved += m->type == CARC_MV_MOVE_WAGON;
		drop_wagon(t, w);
	} else if (phase == CARC_PH_ESCAPE) {
		if (m->type == CARC_MV_ESCAPE) {
			TU_LT(t->nescaped, 32);
			t->escaped[t->nescaped++] = t->o.fig_seg[m->figure];
			cov.escapes++;
			cov.escape_each_city_again += t->nescaped > 1;
		} else {
			t->escape_passed = 1;
		}
	}
}

/* ---- one game ------------------------------------------------------------------------- */

/* Games from CROWDED_FROM on have a crowded supply (tu_crowded_supply):
 * far more of a kind of tile than the sets hold, for the limits of the
 * engine's lists. */
#define CROWDED_FROM 1000000
#define CROWDED_GAMES 240
#define CROWDED_PER_TEST 60

static void make_config(carc_config *cfg, int game)
{
	carc_rng rng;
	carc_rng_seed(&rng, 0x0a1c1e5eedull + (uint64_t)game * 0x9e3779b97f4a7c15ull);
	tu_random_game(cfg, &rng, game);
	if (game >= CROWDED_FROM) tu_crowded_supply(cfg, &rng);
	if (game % 4 == 1) tu_random_components(cfg, &rng); /* and their sets' symbols (ore_init) */
}

static void play(int game)
{
	track *t = &tr;
	memset(t, 0, sizeof *t);
	t->game = game;
	make_config(&t->cfg, game);
	t->nseats = t->cfg.nseats;
	t->challenge_cell = t->join_cell = -1;
	t->flock_due = t->gather_farm = -1;
	ore_init(&t->o, &t->cfg);
	carc_rng pick;
	carc_rng_seed(&pick, (uint64_t)game * 104729 + 11);
	int pass_pct = (int)carc_rng_below(&pick, 25);

	tu_events_reset(&ev);
	carc_game *g = tu_game_new(&t->cfg, &ev.sink);
	process(t, g, &ev);
	check_state(t, g);
	int nplayed = 0;
	while (!carc_game_over(g)) {
		TU_ASSERT_MSG(nplayed < MAX_GAME_MOVES, "no end after %d moves", nplayed);
		int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		TU_GT(n, 0);
		int k = (int)tu_pick(&pick, (uint32_t)n);
		if (carc_game_phase(g) == CARC_PH_ACTION && (int)tu_pick(&pick, 100) < pass_pct) {
			carc_move pass = tu_pass();
			int p = tu_find_move(moves, n, &pass);
			if (p >= 0) k = p;
		}
		check_decision(t, g, moves, n);
		if (trace)
			fprintf(stderr, "move: seat %d phase %s %s (%d,%d) rot %d kind %d port %s fig %d tile %s\n", carc_game_seat(g),
			        carc_phase_name(carc_game_phase(g)), carc_mtype_name(moves[k].type), moves[k].x, moves[k].y,
			        moves[k].rot, moves[k].kind, moves[k].port < CARC_PORT_COUNT ? carc_port_name(moves[k].port) : "-",
			        moves[k].figure, moves[k].type == CARC_MV_PLACE_TILE ? carc_tile_id(moves[k].tile) : "-");
		note_move(t, g, &moves[k]);
		tu_events_reset(&ev);
		tu_apply_ok(g, moves[k], &ev.sink);
		nplayed++;
		t->over = carc_game_over(g);
		t->joined_now = 0;
		process(t, g, &ev);
		TU_ASSERT_MSG(t->gather_farm < 0, "a gather chosen, and nothing gathered: %s", describe(t, g));
		/* row 16 in step 3: not while the placement's deployment step is still to come */
		TU_ASSERT_MSG(!t->joined_now || carc_game_phase(g) != CARC_PH_ACTION || moves[k].type == CARC_MV_DEPLOY ||
		                  moves[k].type == CARC_MV_PASS,
		              "farmers joined to a barn's farm scored before the deployment step: %s", describe(t, g));
		check_state(t, g);
	}
	TU_EQ(t->game_over_events, 1);
	cov.tiles += carc_board_count(g);
	cov.hill_ties += t->o.hill_ties;
	cov.hill_breaks += t->o.hill_breaks;
	cov.moves += nplayed;
	free(g);
}

START_TEST(test_oracle_games)
{
	memset(&cov, 0, sizeof cov);
	trace = getenv("ORACLE_EXT_TRACE") && atoi(getenv("ORACLE_EXT_TRACE"));
	if (!tu_play_batch(_i, GAMES_PER_TEST, play, "ORACLE_EXT_GAME")) return; /* one game, for a reproduction */
	if (getenv("CARC_PROPERTY_STATS"))
		fprintf(stderr,
		        "batch %d: tiles %d, moves %d, completed %d (paid %d, tied %d), hill ties %d (decided %d), inns %d, cathedrals %d, besieged %d, vineyards %d,"
		        " large %d, mayors %d, wagons %d, pigs %d, challenges %d, barn now %d, barn joined %d,"
		        " final pays %d (barn %d, trade %d, king %d, robber %d), flocks %d\n"
		        "  shepherds %d, sheep %d, wolves %d+%d, flock asked %d (expand %d), gathered %d + closed %d;"
		        " turns %d, extra %d (by completion %d, lake %d, by an abbey's walls %d); wagons asked %d (targets %d, moved %d, none %d);"
		        " escapes asked %d (offered %d, escaped %d, again %d); barn lists %d (corners %d; corners refused for a tile of two fields there %d)\n",
		        _i, cov.tiles, cov.moves, cov.completed, cov.paid, cov.ties, cov.hill_ties, cov.hill_breaks, cov.inns, cov.cathedrals, cov.besieged, cov.vineyards,
		        cov.larges, cov.mayors, cov.wagons, cov.pigs, cov.challenges, cov.barn_now, cov.barn_joined,
		        cov.final_pays, cov.barn_final, cov.trade, cov.king, cov.robber, cov.flocks, cov.shepherds,
		        cov.sheep, cov.wolves_deploy, cov.wolves_expand, cov.flock_asked, cov.expands, cov.gathered,
		        cov.closed_gathered, cov.turns_checked, cov.extra_turns, cov.extra_by_completion, cov.extra_lake, cov.extra_abbey, cov.wagon_asked,
		        cov.wagon_targets, cov.wagon_moved, cov.wagon_none, cov.escape_asked, cov.escape_offered, cov.escapes,
		        cov.escape_each_city_again, cov.barn_lists, cov.barn_corners, cov.barn_split);
	/* a hundred games always go through these (about twice these
	 * numbers); cathedrals, cult challenges, hills deciding a tie and
	 * farmers joined to a barn come up a few times in most batches */
	ck_assert_int_ge(cov.completed, 20 * GAMES_PER_TEST);
	ck_assert_int_ge(cov.paid, 5 * GAMES_PER_TEST);
	ck_assert_int_ge(cov.ties, 1);
	ck_assert_int_ge(cov.hill_ties, 20);
	ck_assert_int_ge(cov.inns, 10);
	ck_assert_int_ge(cov.besieged, 5);
	ck_assert_int_ge(cov.vineyards, 3);
	ck_assert_int_ge(cov.larges + cov.mayors + cov.wagons, 3 * GAMES_PER_TEST);
	ck_assert_int_ge(cov.mayors, GAMES_PER_TEST);
	ck_assert_int_ge(cov.wagons, GAMES_PER_TEST);
	ck_assert_int_ge(cov.pigs, 20);
	ck_assert_int_ge(cov.barn_now, 10);
	ck_assert_int_ge(cov.final_pays, 20 * GAMES_PER_TEST);
	ck_assert_int_ge(cov.barn_final, 10);
	ck_assert_int_ge(cov.trade, 40);
	ck_assert_int_ge(cov.king, 30);
	ck_assert_int_ge(cov.robber, 30);
	/* and about three times these */
	ck_assert_int_ge(cov.turns_checked, 100 * GAMES_PER_TEST);
	ck_assert_int_ge(cov.flock_asked, 100);
	ck_assert_int_ge(cov.expands, 40);
	ck_assert_int_ge(cov.gathered, 40);
	ck_assert_int_ge(cov.closed_gathered, 3);
	ck_assert_int_ge(cov.wolves_deploy, 15);
	ck_assert_int_ge(cov.wolves_expand, 2);
	ck_assert_int_ge(cov.extra_turns, 6);
	ck_assert_int_ge(cov.extra_lake, 8);
	ck_assert_int_ge(cov.wagon_asked, 25);
	ck_assert_int_ge(cov.wagon_moved, 15);
	ck_assert_int_ge(cov.escape_asked, 25);
	ck_assert_int_ge(cov.escapes, 12);
	ck_assert_int_ge(cov.barn_lists, 40);
}
END_TEST

/* a batch takes a fraction of a second natively; valgrind
 * (CK_TIMEOUT_MULTIPLIER) is ~50x slower */
static void play_crowded(int game) { play(CROWDED_FROM + game); }

/* Crowded supplies: the same comparison with the model (a game to
 * reproduce is ORACLE_EXT_GAME=1000000 + its number in the games test). */
START_TEST(test_oracle_crowded)
{
	memset(&cov, 0, sizeof cov);
	if (!tu_play_batch(_i, CROWDED_PER_TEST, play_crowded, "ORACLE_EXT_CROWDED")) return;
	ck_assert_int_ge(cov.tiles, 120 * CROWDED_PER_TEST);
	ck_assert_int_ge(cov.completed, 20 * CROWDED_PER_TEST);
	ck_assert_int_ge(cov.final_pays, 10 * CROWDED_PER_TEST);
}
END_TEST

#ifdef TU_FUZZ
/* tests/unit/fuzz_oracle_ext: the input names game n, dealt as
 * make_config deals it (crowded from CROWDED_FROM on), and picks its
 * decisions (tu_fuzz_game). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)test_oracle_games; /* the Check tests, not run here */
	(void)test_oracle_crowded;
	trace = getenv("ORACLE_EXT_TRACE") && atoi(getenv("ORACLE_EXT_TRACE"));
	tu_fuzz_game(data, size, play);
	return 0;
}
#else
int main(void)
{
	return tu_run_batches2("oracle_ext", test_oracle_games, GAMES / GAMES_PER_TEST, test_oracle_crowded,
	                       CROWDED_GAMES / CROWDED_PER_TEST, 120);
}
#endif

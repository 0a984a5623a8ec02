/*
 * test_oracle_ext.c - the scoring of games with the expansions, held
 * against the naive model in oracle_ext.c.
 *
 * 1,200 seeded random full games (12 batches of 100, under a second in
 * all natively): base plus a random mix of the other
 * expansions the engine offers (every third game all of them), 2 to 6
 * seats, every rule option of RULES.md section 6 drawn at random, each
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
 * Not covered: the flock (Hills & Sheep shepherds) is only followed, not
 * scored; builders' extra turns and escapes only move figures; a city's
 * `multi` edges (a side it reaches without joining there) are not read.
 *
 * Under farm_scoring per-city-4, a winner's own pig and a pig herd each
 * add 1 to a city, once, from a touching farm where the winner has a
 * farmer (RULES.md rows 10c, 12, 13; the engine reads them so too).
 *
 * ORACLE_EXT_GAME=n plays game n alone (in the first batch), to
 * reproduce a failure; CARC_PROPERTY_STATS prints what each batch did.
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
} track;

typedef struct coverage {
	int completed, paid, ties, hill_ties, inns, cathedrals, besieged, vineyards, mayors, larges, wagons;
	int challenges, barn_now, barn_joined, pigs, herds, king, robber, trade, barn_final, final_pays, flocks;
	int tiles, moves, hill_breaks;
} coverage;

static track tr;
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
	const char *what = t->block == 1 ? "a completed feature paid other points than the model's"
	                                 : "a farm scored by a barn paid other points than the model's";
	same_pays(t, g, what, t->want, t->nwant, t->got, t->ngot);
	for (int i = 0; i < t->nroots; i++)
		for (int f = 0; f < ORE_MAX_FIGS; f++) {
			int s = t->o.fig_seg[f];
			if (s < 0 || ore_root(&t->o, s) != t->block_roots[i]) continue;
			TU_ASSERT_MSG(t->block == 2 && !ore_is_follower(t->o.fig_kind[f]),
			              "a %s of seat %d stayed in the %s after it scored: %s", carc_figkind_name(t->o.fig_kind[f]),
			              t->o.fig_seat[f], where(t, t->block_roots[i]), describe(t, g));
		}
	/* RULES.md row 9: the followers of an incomplete building of the
	 * other kind next to the one scored are gone */
	if (t->challenge_cell >= 0) {
		const ore_cell *c = &t->o.cells[t->challenge_cell];
		for (int f = 0; f < ORE_MAX_FIGS; f++) {
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

static void on_placed(track *t, const carc_game *g, const carc_event *e)
{
	int done[CARC_MAX_NODES], ndone;
	TU_LT(e->tile, carc_tile_count());
	t->last_cell = ore_place(&t->o, e->tile, e->x, e->y, e->rot, done, &ndone);
	for (int i = 0; i < ndone; i++) t->pending[t->npending++] = done[i];
	if (e->seat < 0) return; /* a start tile */
	t->placer = e->seat;
	/* RULES.md row 16: farmers joined to a barn's farm score 1 a city */
	const ore_cell *c = &t->o.cells[t->last_cell];
	for (int i = 0; i < c->nfeat; i++) {
		int s = c->seg0 + i, r = ore_root(&t->o, s), k;
		if (t->o.segs[s].kind != CARC_F_FIELD) continue;
		if (!ore_farm_has_barn(&t->o, r) || !ore_has_followers(&t->o, r)) continue;
		if (t->block != 2) open_block(t, 2);
		for (k = 0; k < t->nroots && t->block_roots[k] != r; k++) {}
		if (k < t->nroots) continue;
		TU_LT(t->nroots, 16);
		t->block_roots[t->nroots++] = r;
		ore_pay_farm_now(&t->o, r, 1, t->want, &t->nwant);
		cov.barn_joined++;
	}
	(void)g;
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
	if (e->fkind == CARC_SC_FLOCK) { /* Hills & Sheep's flock: not modelled */
		cov.flocks++;
		return;
	}
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
	default: break; /* lonely builders and pigs, escapes, wolves, flocks */
	}
	ore_return(&t->o, e->figure);
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
		TU_ASSERT_MSG(t->game_over_events == 0, "an event after game_over");
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
			break;
		case CARC_EV_GAME_OVER: on_game_over(t, g); break;
		default: break;
		}
	}
	close_block(t, g);
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

/* ---- one game ------------------------------------------------------------------------- */

static void make_config(carc_config *cfg, int game)
{
	carc_rng rng;
	carc_rng_seed(&rng, 0x0a1c1e5eedull + (uint64_t)game * 0x9e3779b97f4a7c15ull);
	carc_config_init(cfg);
	uint32_t all = tu_all_available(), base = 1u << carc_expansion_find("base");
	cfg->expansions = all;
	if (game % 3) {
		cfg->expansions = base;
		for (int i = 0; i < 32; i++)
			if ((all >> i & 1) && carc_rng_below(&rng, 2)) cfg->expansions |= 1u << i;
	}
	cfg->nseats = (uint8_t)(2 + game % 5);
	cfg->seed = carc_rng_next(&rng);
	tu_random_rules(cfg, &rng);
}

static void play(int game)
{
	track *t = &tr;
	memset(t, 0, sizeof *t);
	t->game = game;
	make_config(&t->cfg, game);
	t->nseats = t->cfg.nseats;
	t->challenge_cell = -1;
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
		int k = (int)carc_rng_below(&pick, (uint32_t)n);
		if (carc_game_phase(g) == CARC_PH_ACTION && (int)carc_rng_below(&pick, 100) < pass_pct) {
			carc_move pass = tu_pass();
			int p = tu_find_move(moves, n, &pass);
			if (p >= 0) k = p;
		}
		tu_events_reset(&ev);
		tu_apply_ok(g, moves[k], &ev.sink);
		nplayed++;
		t->over = carc_game_over(g);
		process(t, g, &ev);
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
	const char *one = getenv("ORACLE_EXT_GAME"); /* replays one game, for a reproduction */
	if (one) {
		if (_i == 0) play(atoi(one));
		return;
	}
	for (int game = _i * GAMES_PER_TEST; game < (_i + 1) * GAMES_PER_TEST; game++) play(game);
	if (getenv("CARC_PROPERTY_STATS"))
		fprintf(stderr,
		        "batch %d: tiles %d, moves %d, completed %d (paid %d, tied %d), hill ties %d (decided %d), inns %d, cathedrals %d, besieged %d, vineyards %d,"
		        " large %d, mayors %d, wagons %d, pigs %d, challenges %d, barn now %d, barn joined %d,"
		        " final pays %d (barn %d, trade %d, king %d, robber %d), flocks %d\n",
		        _i, cov.tiles, cov.moves, cov.completed, cov.paid, cov.ties, cov.hill_ties, cov.hill_breaks, cov.inns, cov.cathedrals, cov.besieged, cov.vineyards,
		        cov.larges, cov.mayors, cov.wagons, cov.pigs, cov.challenges, cov.barn_now, cov.barn_joined,
		        cov.final_pays, cov.barn_final, cov.trade, cov.king, cov.robber, cov.flocks);
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
}
END_TEST

static Suite *oracle_ext_suite(void)
{
	Suite *s = suite_create("oracle_ext");
	TCase *tc = tcase_create("games");
	/* a batch takes a fraction of a second natively; valgrind
	 * (CK_TIMEOUT_MULTIPLIER) is ~50x slower */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_oracle_games, 0, GAMES / GAMES_PER_TEST);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(oracle_ext_suite());
}

/*
 * test_property_ext.c - the property test of the expansions (issue 4):
 * 500 seeded random full games with every expansion the engine offers
 * (carc_expansion(i)->available, read at run time, so the test grows as
 * expansions land), 2 to 6 seats, every rule option of RULES.md section 6
 * drawn at random, each decision a random legal move.  After the set-up and
 * after every move:
 *
 * - the move played was listed by carc_legal_moves and passes
 *   carc_check_move; a listed move_wagon puts the wagon on the tile and
 *   port it names;
 * - figures are conserved: for every seat and figure kind, the figures on
 *   the board (carc_figure_get) plus those in supply (carc_supply_count)
 *   are the count the seat started with; a figure on the board stands on
 *   a placed tile, never on the river (RULES.md 2.2) and never on the
 *   volcano lake (2.3);
 * - the sheep are conserved (Hills & Sheep, RULES.md 2.13, table row 22):
 *   whenever the game has the shepherd, the tokens in the bag plus those
 *   beside every seat's shepherd are, kind by kind, the bag's full
 *   contents (4 of 1 sheep, 5 of 2, 5 of 3, 2 of 4, 2 wolves); without
 *   the shepherd the bag is empty.  Some games fix the first few tokens
 *   drawn (cfg.bag, a short prefix of a shuffled bag), so draws also go on
 *   from the bag after a fixed order runs out;
 * - scores never decrease, and each seat's score (in total and by kind,
 *   carc_game_score_by) is the sum of its `scored` events; `final` scores
 *   only come with the end of the game;
 * - after the volcano lake RI.2/I.v is placed nothing may be deployed on
 *   it: the turn is over at once, and its placer plays again exactly when
 *   `volcano_lake_extra_turn` is true (2.3, section 6);
 * - every game ends (one `game_over` event, no legal move, nobody to
 *   decide) within a bound on the number of moves;
 * - every tile of the supply is used: placed tiles (carc_board_count) plus
 *   tiles discarded as unplaceable = the start tiles plus the supply at the
 *   start, and every tile drawn is placed or discarded;
 * - replaying the moves from the seed gives the same carc_game_hash after
 *   every few moves and at the end.
 *
 * A second test plays smaller expansion sets and checks the river set-up
 * (RULES.md 2.2-2.4, section 6): the spring RI/s starts every river game at
 * (0,0) and the base start tile is left out; the river tiles are drawn
 * before all others, River II's fork first and exactly one lake last (with
 * both rivers, River II's volcano lake; River I's lake is removed); no
 * spring is ever drawn; the mini expansion's river tile GQ/CICI is drawn
 * only in a river game.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "game_int.h" /* the sheep bag and the flocks: g->bag, g->flock */
#include "testutil.h"

#define GAMES 500
#define GAMES_PER_TEST 25
#define MAX_GAME_MOVES 8192
#define MAX_DRAWS 1024

/* ---- what one game went through ------------------------------------------------ */

typedef struct run {
	carc_config cfg;
	int nseats;
	int start_figs[CARC_MAX_SEATS][CARC_FIG_COUNT];
	long score_sum[CARC_MAX_SEATS], sc_sum[CARC_MAX_SEATS][CARC_SC_COUNT];
	int nstart, supply0;          /* start tiles; tiles in the supply at the start */
	int placed, unplaceable, reshuffled, drawn, game_over_events;
	uint16_t draws[MAX_DRAWS];    /* tile types in the order drawn */
	int ndraws;
	int lake_x, lake_y, lake_placed;
	int abbeys;                   /* abbey tiles placed: from the seats, not the supply */
	int hidden;                   /* tiles gone face down under hills */
	int sheep_drawn;              /* sheep_drawn events */
} run;

/* What a batch went through, so that a batch that stops exercising
 * something fails. */
typedef struct coverage {
	int scored, final_scored, deploys, special_deploys, volcano_lakes, extra_turns, river_placed, discards;
	int sheep_drawn, bag_past; /* tokens drawn; games that drew on after a fixed cfg.bag ran out */
} coverage;

/* The Hills & Sheep bag at the start (RULES.md table row 22): 1-4 sheep, wolves. */
static const int bag_full[CARC_WOLF + 1] = { 0, 4, 5, 5, 2, 2 };

static run R;
static coverage cov;
static tu_events ev;
static carc_move moves[CARC_MAX_MOVES];
static carc_move played[MAX_GAME_MOVES];
static uint64_t hashes[MAX_GAME_MOVES];

static int t_spring, t_gq_spring, t_lake1, t_volcano, t_fork, t_gq_cici, t_base_start;

static void find_tiles(void)
{
	t_spring = tu_tile("RI/s");
	t_gq_spring = tu_tile("GQ/RFI");
	t_lake1 = tu_tile("RI.1/I.e");
	t_volcano = tu_tile("RI.2/I.v");
	t_fork = tu_tile("RI.2/III");
	t_gq_cici = tu_tile("GQ/CICI");
	t_base_start = tu_tile("BA/RCr");
}

static int is_river_tile(int type)
{
	for (int d = 0; d < 4; d++)
		if (!strcmp(carc_tile_edge(type, 0, d), "river")) return 1;
	return 0;
}

static int expansion_bit(const char *name)
{
	int e = carc_expansion_find(name);
	TU_ASSERT_MSG(e >= 0, "no expansion %s", name);
	return e;
}

/* ---- checks ------------------------------------------------------------------------ */

/* Takes in the events of one call. */
static void process(run *r, const carc_game *g, const tu_events *e, int init)
{
	TU_ASSERT_MSG(e->sink.n <= e->sink.cap, "a call made %d events", e->sink.n);
	for (int i = 0; i < e->sink.n; i++) {
		const carc_event *x = &e->ev[i];
		switch (x->type) {
		case CARC_EV_SCORED:
			TU_ASSERT_MSG(x->seat >= 0 && x->seat < r->nseats, "scored for seat %d", x->seat);
			TU_ASSERT_MSG(x->fkind < CARC_SC_COUNT, "scored kind %d", x->fkind);
			TU_ASSERT_MSG(!x->final || carc_game_over(g), "a final score in a call that did not end the game");
			r->score_sum[x->seat] += x->points;
			r->sc_sum[x->seat][x->fkind] += x->points;
			cov.scored++;
			cov.final_scored += x->final;
			break;
		case CARC_EV_TILE_DRAWN:
			TU_LT(r->ndraws, MAX_DRAWS);
			TU_ASSERT(x->tile < carc_tile_count());
			r->draws[r->ndraws++] = x->tile;
			r->drawn++;
			break;
		case CARC_EV_TILE_DISCARDED:
			if (x->why == CARC_WHY_RESHUFFLED) r->reshuffled++;
			else {
				TU_EQ(x->why, CARC_WHY_UNPLACEABLE);
				r->unplaceable++;
			}
			cov.discards++;
			break;
		case CARC_EV_TILE_HIDDEN:
			r->hidden++;
			break;
		case CARC_EV_SHEEP_DRAWN:
			TU_ASSERT_MSG(x->kind >= 1 && x->kind <= CARC_WOLF, "sheep_drawn token %d", x->kind);
			r->sheep_drawn++;
			cov.sheep_drawn++;
			break;
		case CARC_EV_TILE_PLACED:
			if (!init) r->placed++;
			if (!init && x->tile == carc_tile_find("AM/A")) r->abbeys++;
			if (x->tile == t_volcano) {
				r->lake_x = x->x;
				r->lake_y = x->y;
				r->lake_placed = 1;
			}
			break;
		case CARC_EV_GAME_OVER:
			r->game_over_events++;
			break;
		default:
			break;
		}
	}
}

static void check_state(const run *r, const carc_game *g, const int *prev_score)
{
	/* scores: the sum of the events, never lower than before */
	for (int s = 0; s < r->nseats; s++) {
		int sc = carc_game_score(g, s);
		TU_ASSERT_MSG(sc == r->score_sum[s], "seat %d has %d points, its scored events add up to %ld", s, sc,
		              r->score_sum[s]);
		if (prev_score) TU_ASSERT_MSG(sc >= prev_score[s], "seat %d went from %d to %d points", s, prev_score[s], sc);
		for (int k = 0; k < CARC_SC_COUNT; k++)
			TU_ASSERT_MSG(carc_game_score_by(g, s, k) == r->sc_sum[s][k], "seat %d: %d %s points, events say %ld", s,
			              carc_game_score_by(g, s, k), carc_sc_name(k), r->sc_sum[s][k]);
	}
	/* figures: on the board + in supply = what the seat started with */
	int on[CARC_MAX_SEATS][CARC_FIG_COUNT];
	memset(on, 0, sizeof on);
	int nf = carc_figure_count(g);
	for (int i = 0; i < nf; i++) {
		carc_figure_info f;
		if (!carc_figure_get(g, i, &f)) continue;
		TU_ASSERT_MSG(f.seat < r->nseats && f.kind < CARC_FIG_COUNT, "figure %d: seat %d kind %d", i, f.seat, f.kind);
		if (!f.on_board) continue;
		on[f.seat][f.kind]++;
		TU_ASSERT_MSG(carc_board_find(g, f.x, f.y) >= 0, "a %s of seat %d stands at (%d,%d), where no tile is",
		              carc_figkind_name(f.kind), f.seat, f.x, f.y);
		TU_ASSERT_MSG(f.fkind != CARC_F_RIVER, "a %s of seat %d stands on the river at (%d,%d)",
		              carc_figkind_name(f.kind), f.seat, f.x, f.y);
		TU_ASSERT_MSG(!r->lake_placed || f.x != r->lake_x || f.y != r->lake_y,
		              "a %s of seat %d stands on the volcano lake at (%d,%d)", carc_figkind_name(f.kind), f.seat, f.x,
		              f.y);
	}
	for (int s = 0; s < r->nseats; s++)
		for (int k = 0; k < CARC_FIG_COUNT; k++)
			TU_ASSERT_MSG(on[s][k] + carc_supply_count(g, s, k) == r->start_figs[s][k],
			              "seat %d %s: %d on the board + %d in supply, started with %d", s, carc_figkind_name(k),
			              on[s][k], carc_supply_count(g, s, k), r->start_figs[s][k]);
	/* sheep: in the bag + beside the shepherds = the full bag, kind by kind */
	int shepherd = g->components >> CARC_C_SHEPHERD & 1;
	for (int t = 1; t <= CARC_WOLF; t++) {
		int flocks = 0;
		for (int s = 0; s < CARC_MAX_SEATS; s++) flocks += g->flock[s][t];
		TU_ASSERT_MSG(g->bag[t] + flocks == (shepherd ? bag_full[t] : 0),
		              "token %d: %d in the bag + %d beside shepherds, the bag holds %d (shepherd %s)", t, g->bag[t],
		              flocks, bag_full[t], shepherd ? "in play" : "left out");
	}
	if (carc_game_over(g)) {
		TU_EQ(carc_game_phase(g), CARC_PH_OVER);
		TU_EQ(carc_game_seat(g), -1);
		TU_EQ(carc_game_drawn(g), -1);
		TU_EQ(carc_game_tiles_left(g), 0);
		TU_EQ(carc_legal_moves(g, moves, CARC_MAX_MOVES), 0);
	} else {
		TU_ASSERT(carc_game_seat(g) >= 0 && carc_game_seat(g) < r->nseats);
		TU_EQ(r->game_over_events, 0);
	}
}

/* ---- one game --------------------------------------------------------------------------- */

/* Plays one random game of `cfg` to its end with every check above;
 * `pick` chooses the moves.  The run is left in R. */
static void play(const carc_config *cfg, uint64_t pick_seed)
{
	run *r = &R;
	memset(r, 0, sizeof *r);
	r->cfg = *cfg;
	r->nseats = cfg->nseats;
	carc_rng pick;
	carc_rng_seed(&pick, pick_seed);
	int pass_pct = (int)carc_rng_below(&pick, 80);

	tu_events_reset(&ev);
	carc_game *g = tu_game_new(cfg, &ev.sink);
	process(r, g, &ev, 1);
	r->nstart = carc_board_count(g);
	TU_GE(r->nstart, 1);
	/* the supply at the start: what is left, what was drawn in the set-up
	 * (the tile to place and any discarded), less tiles put back */
	r->supply0 = carc_game_tiles_left(g) + r->drawn - r->reshuffled;
	for (int s = 0; s < r->nseats; s++)
		for (int k = 0; k < CARC_FIG_COUNT; k++) r->start_figs[s][k] = carc_supply_count(g, s, k);
	for (int s = 0; s < r->nseats; s++) TU_EQ(r->start_figs[s][CARC_FIG_FOLLOWER], 7);
	check_state(r, g, NULL);

	/* a turn is a placement, a deploy or pass, and a few expansion
	 * decisions at most; extra turns are turns too */
	int bound = 8 * (r->supply0 + 2);
	TU_LT(bound, MAX_GAME_MOVES);
	int nplayed = 0, prev[CARC_MAX_SEATS];
	while (!carc_game_over(g)) {
		TU_ASSERT_MSG(nplayed < bound, "no end after %d moves (supply %d)", nplayed, r->supply0);
		int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		TU_GT(n, 0);
		TU_LE(n, CARC_MAX_MOVES);
		int k = (int)carc_rng_below(&pick, (uint32_t)n);
		if (carc_game_phase(g) == CARC_PH_ACTION && (int)carc_rng_below(&pick, 100) < pass_pct) {
			carc_move pass = tu_pass();
			int p = tu_find_move(moves, n, &pass);
			if (p >= 0) k = p;
		}
		carc_move m = moves[k];
		carc_rc rc = carc_check_move(g, &m, NULL);
		TU_ASSERT_MSG(rc == CARC_OK, "a listed %s move is refused: %s", carc_mtype_name(m.type), carc_strerror(rc));
		/* another listed move, checked too */
		carc_move o = moves[carc_rng_below(&pick, (uint32_t)n)];
		rc = carc_check_move(g, &o, NULL);
		TU_ASSERT_MSG(rc == CARC_OK, "a listed %s move is refused: %s", carc_mtype_name(o.type), carc_strerror(rc));

		int seat = carc_game_seat(g);
		int lake = m.type == CARC_MV_PLACE_TILE && m.tile == t_volcano;
		if (m.type == CARC_MV_DEPLOY) {
			cov.deploys++;
			cov.special_deploys += m.kind != CARC_FIG_FOLLOWER && m.kind != CARC_FIG_LARGE;
		}
		if (m.type == CARC_MV_PLACE_TILE && is_river_tile(m.tile)) cov.river_placed++;
		for (int s = 0; s < r->nseats; s++) prev[s] = carc_game_score(g, s);
		tu_events_reset(&ev);
		tu_apply_ok(g, m, &ev.sink);
		played[nplayed] = m;
		hashes[nplayed++] = carc_game_hash(g);
		process(r, g, &ev, 0);
		check_state(r, g, prev);
		if (m.type == CARC_MV_MOVE_WAGON) {
			/* the wagon stands where the listed move puts it, even when its
			 * feature is listed on more than one tile */
			const carc_event *d = tu_events_nth(&ev, CARC_EV_DEPLOYED, 0);
			TU_ASSERT_MSG(d && d->x == m.x && d->y == m.y && d->port == m.port,
			              "move_wagon (%d,%d) %s deployed at (%d,%d) %s", m.x, m.y, carc_port_name(m.port),
			              d ? d->x : 0, d ? d->y : 0, d ? carc_port_name(d->port) : "-");
		}
		int turn_end_phase = carc_game_phase(g) == CARC_PH_ESCAPE || carc_game_phase(g) == CARC_PH_WAGON ||
		                     carc_game_phase(g) == CARC_PH_FLOCK;
		if (lake && !carc_game_over(g) && !turn_end_phase) {
			/* nothing to deploy on the volcano lake: the turn ended with
			 * the placement (unless an expansion asks something at the end
			 * of the turn, e.g. the shepherd's flock); the extra turn by the rule */
			cov.volcano_lakes++;
			TU_ASSERT_MSG(carc_game_phase(g) == CARC_PH_TILE, "after the volcano lake: phase %s, not the next draw",
			              carc_phase_name(carc_game_phase(g)));
			int want = r->cfg.rules[CARC_R_VOLCANO_LAKE_EXTRA_TURN] ? seat : (seat + 1) % r->nseats;
			TU_ASSERT_MSG(carc_game_seat(g) == want, "after seat %d's volcano lake (extra turn %s) seat %d is due", seat,
			              r->cfg.rules[CARC_R_VOLCANO_LAKE_EXTRA_TURN] ? "true" : "false", carc_game_seat(g));
			cov.extra_turns += want == seat;
		}
	}
	TU_EQ(r->game_over_events, 1);
	if (r->cfg.nbag && r->sheep_drawn > r->cfg.nbag) cov.bag_past++;

	/* every tile of the supply is placed or discarded, each drawn once
	 * more for each time it was put back */
	TU_EQ(carc_board_count(g), r->nstart + r->placed);
	TU_ASSERT_MSG(carc_board_count(g) + r->unplaceable + r->hidden == r->nstart + r->supply0 + r->abbeys,
	              "%d tiles on the board + %d discarded + %d under hills, but %d start tiles + %d in the supply + %d abbeys",
	              carc_board_count(g), r->unplaceable, r->hidden, r->nstart, r->supply0, r->abbeys);
	TU_EQ(r->drawn, r->placed - r->abbeys + r->unplaceable + r->reshuffled);

	/* the replay from the seed */
	carc_game *re = tu_game_new(cfg, NULL);
	for (int i = 0; i < nplayed; i++) {
		carc_rc rc = carc_apply(re, &played[i], NULL);
		TU_ASSERT_MSG(rc == CARC_OK, "replay: move %d refused: %s", i, carc_strerror(rc));
		if (i % 32 == 0 || i == nplayed - 1) TU_ASSERT_MSG(carc_game_hash(re) == hashes[i], "replay differs after move %d", i);
	}
	TU_ASSERT(carc_game_over(re));
	TU_ASSERT(carc_game_hash(re) == carc_game_hash(g));
	for (int s = 0; s < r->nseats; s++) TU_EQ(carc_game_score(re, s), carc_game_score(g, s));
	free(re);
	free(g);
}

/* ---- every expansion at once -------------------------------------------------------------- */

static void all_config(carc_config *cfg, int game)
{
	carc_rng rng;
	carc_rng_seed(&rng, 0x51ed2705u + (uint64_t)game * 0x9e3779b97f4a7c15ull);
	carc_config_init(cfg);
	cfg->expansions = tu_all_available();
	cfg->nseats = (uint8_t)(2 + game % 5);
	cfg->seed = carc_rng_next(&rng);
	tu_random_rules(cfg, &rng);
	/* every other game fixes its first 1-6 sheep tokens: a prefix of a
	 * shuffled full bag, so no kind comes up more often than the bag holds */
	if (game % 2) {
		uint8_t all[CARC_BAG_TOKENS];
		int n = 0;
		for (int t = 1; t <= CARC_WOLF; t++)
			for (int k = 0; k < bag_full[t]; k++) all[n++] = (uint8_t)t;
		TU_EQ(n, CARC_BAG_TOKENS);
		for (int i = n - 1; i > 0; i--) {
			int j = (int)carc_rng_below(&rng, (uint32_t)i + 1);
			uint8_t x = all[i];
			all[i] = all[j];
			all[j] = x;
		}
		cfg->nbag = (uint8_t)(1 + carc_rng_below(&rng, 6));
		memcpy(cfg->bag, all, cfg->nbag);
	}
}

START_TEST(test_all_expansions)
{
	find_tiles();
	memset(&cov, 0, sizeof cov);
	for (int game = _i * GAMES_PER_TEST; game < (_i + 1) * GAMES_PER_TEST; game++) {
		carc_config cfg;
		all_config(&cfg, game);
		play(&cfg, (uint64_t)game * 7919 + 17);
	}
	if (getenv("CARC_PROPERTY_STATS"))
		fprintf(stderr, "batch %d: scored %d (final %d), deploys %d (other kinds %d), volcano lakes %d (extra turns %d),"
		                " river tiles placed %d, discards %d, sheep drawn %d (past a fixed bag in %d games)\n",
		        _i, cov.scored, cov.final_scored, cov.deploys, cov.special_deploys, cov.volcano_lakes, cov.extra_turns,
		        cov.river_placed, cov.discards, cov.sheep_drawn, cov.bag_past);
	/* every game has a river (river and river2 are available), and plays */
	ck_assert_int_ge(cov.river_placed, 10 * GAMES_PER_TEST);
	ck_assert_int_ge(cov.volcano_lakes, GAMES_PER_TEST / 2);
	ck_assert_int_ge(cov.extra_turns, 1);
	ck_assert_int_ge(cov.scored, 20 * GAMES_PER_TEST);
	ck_assert_int_ge(cov.final_scored, 5 * GAMES_PER_TEST);
	ck_assert_int_ge(cov.deploys, 20 * GAMES_PER_TEST);
	ck_assert_int_ge(cov.sheep_drawn, GAMES_PER_TEST);
	ck_assert_int_ge(cov.bag_past, 1);
}
END_TEST

/* The rule options and seat counts all come up within the 500 games. */
START_TEST(test_option_coverage)
{
	int seats[CARC_MAX_SEATS + 1] = { 0 }, seen[CARC_R_COUNT][8];
	memset(seen, 0, sizeof seen);
	for (int game = 0; game < GAMES; game++) {
		carc_config cfg;
		all_config(&cfg, game);
		seats[cfg.nseats]++;
		for (int i = 0; i < CARC_R_COUNT; i++)
			if (cfg.rules[i] >= 0 && cfg.rules[i] < 8) seen[i][cfg.rules[i]]++;
		ck_assert_uint_eq(cfg.expansions, tu_all_available());
	}
	for (int n = 2; n <= 6; n++) ck_assert_int_ge(seats[n], GAMES / 5);
	for (int i = 0; i < CARC_R_COUNT; i++) {
		const carc_rule_desc *d = carc_rule(i);
		int nv = d->type == 1 ? 2 : 0;
		if (d->type == 0)
			while (d->values[nv]) nv++;
		for (int v = 0; v < nv && v < 8; v++) ck_assert_msg(seen[i][v] >= 10, "rule %s value %d in %d games", d->key, v, seen[i][v]);
	}
}
END_TEST

/* ---- the river set-up ------------------------------------------------------------------- */

static const char *const river_sets[][5] = {
	{ "base", "river", NULL },
	{ "base", "river2", NULL },
	{ "base", "river", "river2", NULL },
	{ "base", "river", "mini", NULL },
	{ "base", "river2", "mini", NULL },
	{ "base", "river", "river2", "mini", NULL },
	{ "base", "mini", NULL },
	{ "base", "river", "river2", "mini", "inns-cathedrals" },
};
#define NSETS ((int)(sizeof river_sets / sizeof river_sets[0]))
#define RIVER_GAMES_PER_SET 12

static int count_of(const run *r, int type)
{
	int n = 0;
	for (int i = 0; i < r->ndraws; i++) n += r->draws[i] == type;
	return n;
}

START_TEST(test_river_setup)
{
	find_tiles();
	memset(&cov, 0, sizeof cov);
	int set = _i / RIVER_GAMES_PER_SET, game = _i % RIVER_GAMES_PER_SET;
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.expansions = 0;
	int river = 0, river1 = 0, river2 = 0, mini = 0;
	for (int i = 0; i < 5 && river_sets[set][i]; i++) {
		const char *name = river_sets[set][i];
		cfg.expansions |= 1u << expansion_bit(name);
		river1 |= !strcmp(name, "river");
		river2 |= !strcmp(name, "river2");
		mini |= !strcmp(name, "mini");
	}
	river = river1 || river2;
	cfg.nseats = (uint8_t)(2 + game % 5);
	cfg.seed = 0xabcdef12345ull + (uint64_t)_i * 1000003;
	cfg.rules[CARC_R_VOLCANO_LAKE_EXTRA_TURN] = game % 2;
	/* the draw order below is the supply's: no tile is put back */
	cfg.rules[CARC_R_UNPLACEABLE_TILE] = CARC_UNPLACEABLE_DISCARD;

	carc_game *g = tu_game_new(&cfg, NULL);
	carc_placed_info p;
	TU_EQ(carc_board_count(g), 1);
	carc_board_get(g, 0, &p);
	TU_EQ(p.x, 0);
	TU_EQ(p.y, 0);
	TU_EQ(p.rot, 0);
	TU_ASSERT_MSG(p.tile == (river ? t_spring : t_base_start), "the start tile is %s", carc_tile_id(p.tile));
	free(g);

	play(&cfg, (uint64_t)_i * 104729 + 3);
	const run *r = &R;

	/* the river tiles come first, then the land */
	int nriver = 0, first_land = -1, last_river = -1;
	for (int i = 0; i < r->ndraws; i++) {
		if (is_river_tile(r->draws[i])) {
			nriver++;
			last_river = i;
		} else if (first_land < 0) {
			first_land = i;
		}
	}
	TU_ASSERT_MSG(first_land < 0 || last_river < first_land, "river tile %s drawn as draw %d, after land tile %s (draw %d)",
	              last_river >= 0 ? carc_tile_id(r->draws[last_river]) : "-", last_river,
	              first_land >= 0 ? carc_tile_id(r->draws[first_land]) : "-", first_land);
	/* springs are start tiles only */
	TU_EQ(count_of(r, t_spring), 0);
	TU_EQ(count_of(r, t_gq_spring), 0);
	/* the base start tile: one of its 4 copies leaves the supply, as the
	 * start tile or (beside a spring) out of the game */
	TU_EQ(count_of(r, t_base_start), 3);
	/* River I 11 + River II 11, less River I's lake with both; GQ/CICI
	 * only with a river */
	int want = (river1 ? 11 : 0) + (river2 ? 11 : 0) - (river1 && river2) + (river && mini);
	TU_ASSERT_MSG(nriver == want, "%d river tiles drawn, want %d", nriver, want);
	TU_EQ(count_of(r, t_gq_cici), river && mini);
	if (river) {
		TU_EQ(count_of(r, t_lake1) + count_of(r, t_volcano), 1);
		TU_EQ(count_of(r, t_volcano), river2);
		/* the lake is the last river tile; the fork the first */
		TU_ASSERT_MSG(r->draws[last_river] == (river2 ? t_volcano : t_lake1), "the last river tile is %s",
		              carc_tile_id(r->draws[last_river]));
		if (river2) TU_ASSERT_MSG(r->draws[0] == t_fork, "the first tile drawn is %s", carc_tile_id(r->draws[0]));
		else TU_ASSERT(is_river_tile(r->draws[0]));
	}
	TU_EQ(r->ndraws, r->supply0);
}
END_TEST

static Suite *property_ext_suite(void)
{
	Suite *s = suite_create("property_ext");
	TCase *tc = tcase_create("all_expansions");
	/* a batch of 25 games takes well under a second natively; valgrind
	 * (CK_TIMEOUT_MULTIPLIER) is ~50x slower */
	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, test_all_expansions, 0, GAMES / GAMES_PER_TEST);
	tcase_add_test(tc, test_option_coverage);
	suite_add_tcase(s, tc);
	TCase *rv = tcase_create("river_setup");
	tcase_set_timeout(rv, 120);
	tcase_add_loop_test(rv, test_river_setup, 0, NSETS * RIVER_GAMES_PER_SET);
	suite_add_tcase(s, rv);
	return s;
}

int main(void)
{
	return tu_run(property_ext_suite());
}

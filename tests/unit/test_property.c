/*
 * test_property.c - the property test: 2,000 seeded random full base games,
 * one to six seats, every farm_scoring, tiny_city and unplaceable_tile
 * option, with and without farmers, each decision a random legal move.
 * Every event and every state in between is held against the naive model
 * in oracle.c:
 *
 * - every legal move passes carc_check_move; every placement listed fits by
 *   the oracle (and, in every eighth game, the list is exactly the oracle's);
 *   the deploys listed are exactly those the rules allow (the tile just
 *   placed, a free connected feature, a follower in supply), and the action
 *   decision is skipped exactly when there are none;
 * - followers are conserved: on the board + in supply = 7 per seat at every
 *   step, counted through carc_figure_get / carc_supply_count, through the
 *   deployed/returned events, and by the oracle, and each figure stands
 *   where the oracle says;
 * - scores never decrease and always equal the sum of the scored events,
 *   in total and by kind;
 * - every feature the oracle sees completed is reported once, in the turn
 *   that completed it; its followers' majority is paid the right points
 *   right after the report, once, and all its followers come back; no
 *   points are paid during play otherwise; final scoring pays exactly what
 *   the oracle computes (incomplete features, farms under the game's rule),
 *   each feature once and never a completed one;
 * - every tile is used: 1 start + placed + discarded = 72, the draws are
 *   the manifest's tiles, and a discarded tile really fits nowhere;
 * - replaying the moves from the seed gives the same state hash at several
 *   midpoints and at the end.
 *
 * A second batch plays games that stretch the board along x (most tile
 * decisions take the placement farthest from the start), so that boards
 * far wider than the engine's 32 x 32 cell map torus are held against the
 * oracle too.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "oracle.h"
#include "testutil.h"
#include "tiles_int.h"

#define GAMES 2000
#define GAMES_PER_TEST 100
#define WIDE_GAMES 100
#define MAX_GAME_MOVES 512
#define FOLLOWERS 7
#define MAX_TYPES 1024 /* tile types of every set, with room to grow */

typedef struct track {
	carc_config cfg;
	orc o;
	int nseats;
	int deployed[CARC_MAX_SEATS], returned[CARC_MAX_SEATS];
	int score_sum[CARC_MAX_SEATS], sc_sum[CARC_MAX_SEATS][CARC_SC_COUNT], prev_score[CARC_MAX_SEATS];
	int final_pts[CARC_MAX_SEATS][CARC_SC_COUNT];
	uint8_t final_seen[CARC_MAX_NODES]; /* bit per seat: paid at the end for this root */
	int placed, discarded, draws[MAX_TYPES], reshuffled[MAX_TYPES];
	int pending[CARC_MAX_NODES], npending; /* completed by the oracle, not yet reported */
	uint8_t reported[CARC_MAX_NODES];
	int last_cell, turn_seat;
	/* the completion being scored: root, points, who must be paid, who was */
	int block, block_points, block_pay[CARC_MAX_SEATS], block_paid[CARC_MAX_SEATS];
	/* deploys the rules allow on the tile just placed */
	int nexpect;
	carc_move expect[CARC_TILE_MAXF];
	int over, game_over_events;
} track;

/* What a batch of games went through, so that a batch that stops
 * exercising something (no completions paid, no farms...) fails. */
typedef struct coverage {
	int completed, completed_paid, ties, returned_same_turn, final_field, final_other, discarded, reshuffled;
	int skipped_actions, full_supply_outs;
	int held_twice; /* deploy decisions on a tile that holds a feature in two segments */
	int widest;  /* board width in tiles, the largest seen */
	int folded;  /* games whose board is wider than the cell map's torus (32) */
} coverage;

static coverage cov;
static track tr;
static tu_events ev;
static carc_move moves[CARC_MAX_MOVES];
static carc_move played[MAX_GAME_MOVES];
static uint64_t hashes[MAX_GAME_MOVES];

/* ---- helpers ------------------------------------------------------------------------- */

static int seg_at(const track *t, int x, int y, int port)
{
	int cell = orc_cell_at(&t->o, x, y);
	TU_ASSERT_MSG(cell >= 0, "an event names (%d,%d), where no tile lies", x, y);
	int s = orc_port_seg(&t->o, cell, port);
	TU_ASSERT_MSG(s >= 0, "an event names port %s of (%d,%d), where no feature is", carc_port_name(port), x, y);
	return s;
}

/* First port, in canonical order, of one segment on its tile. */
static int first_port(const track *t, int seg)
{
	for (int p = 0; p < CARC_PORT_COUNT; p++)
		if (orc_port_seg(&t->o, t->o.segs[seg].cell, p) == seg) return p;
	ck_abort_msg("segment without a port");
	return -1;
}

/* Is segment i of the cell's tile part of a feature that another segment
 * there names by an earlier port?  Then a deploy into that feature is
 * listed at that segment only (its first port is the feature's). */
static int held_before(const track *t, const orc_cell *c, int i)
{
	for (int j = 0; j < c->nfeat; j++)
		if (j != i && orc_root(&t->o, c->seg0 + j) == orc_root(&t->o, c->seg0 + i) &&
		    first_port(t, c->seg0 + j) < first_port(t, c->seg0 + i))
			return 1;
	return 0;
}

static int sc_of(int fkind)
{
	switch (fkind) {
	case CARC_F_ROAD: return CARC_SC_ROAD;
	case CARC_F_CITY: return CARC_SC_CITY;
	case CARC_F_CLOISTER: return CARC_SC_CLOISTER;
	default: return CARC_SC_FIELD;
	}
}

static int in_supply(const track *t, int seat)
{
	return FOLLOWERS - t->deployed[seat] + t->returned[seat];
}

/* What the rules allow to deploy on the tile just placed (RULES.md 2.1). */
static void expect_deploys(track *t, int seat)
{
	const orc_cell *c = &t->o.cells[t->last_cell];
	int per[CARC_MAX_SEATS];
	t->nexpect = 0;
	if (in_supply(t, seat) <= 0) return;
	for (int i = 0; i < c->nfeat; i++) {
		int s = c->seg0 + i, k = t->o.segs[s].kind;
		if (!(k == CARC_F_ROAD || k == CARC_F_CITY || k == CARC_F_CLOISTER || (k == CARC_F_FIELD && t->o.farmers)))
			continue;
		if (held_before(t, c, i)) {
			cov.held_twice++;
			continue;
		}
		if (orc_followers(&t->o, orc_root(&t->o, s), per)) continue;
		t->expect[t->nexpect++] = tu_deploy(c->x, c->y, first_port(t, s));
	}
}

static void close_block(track *t)
{
	if (t->block < 0) return;
	int per[CARC_MAX_SEATS];
	for (int s = 0; s < t->nseats; s++)
		TU_ASSERT_MSG(t->block_paid[s] == t->block_pay[s], "completed %s: seat %d paid %d times, want %d",
		              carc_fkind_name(t->o.segs[t->block].kind), s, t->block_paid[s], t->block_pay[s]);
	TU_ASSERT_MSG(orc_followers(&t->o, t->block, per) == 0, "followers left in a completed %s",
	              carc_fkind_name(t->o.segs[t->block].kind));
	t->block = -1;
}

static void open_block(track *t, const carc_event *e)
{
	int root = orc_root(&t->o, seg_at(t, e->x, e->y, e->port)), k;
	for (k = 0; k < t->npending && t->pending[k] != root; k++) {}
	TU_ASSERT_MSG(k < t->npending, "feature_completed for a %s at (%d,%d) %s the oracle did not see completed now",
	              carc_fkind_name(e->fkind), e->x, e->y, carc_port_name(e->port));
	t->pending[k] = t->pending[--t->npending];
	TU_ASSERT_MSG(!t->reported[root], "a feature completed twice");
	t->reported[root] = 1;
	int pennants;
	TU_EQ(e->fkind, t->o.segs[root].kind);
	TU_EQ(e->ntiles, orc_tiles(&t->o, root, &pennants));
	int per[CARC_MAX_SEATS], top = 0;
	orc_followers(&t->o, root, per);
	for (int s = 0; s < t->nseats; s++)
		if (per[s] > top) top = per[s];
	for (int s = 0; s < t->nseats; s++) {
		t->block_pay[s] = top && per[s] == top;
		t->block_paid[s] = 0;
	}
	t->block = root;
	t->block_points = orc_points_play(&t->o, root);
	int payees = 0;
	for (int s = 0; s < t->nseats; s++) payees += t->block_pay[s];
	cov.completed++;
	cov.completed_paid += payees > 0;
	cov.ties += payees > 1;
}

static void on_scored(track *t, const carc_event *e)
{
	TU_GE(e->seat, 0);
	TU_LT(e->seat, t->nseats);
	TU_LT(e->fkind, CARC_SC_COUNT);
	TU_GT(e->points, 0); /* no event for 0 points */
	t->score_sum[e->seat] += e->points;
	t->sc_sum[e->seat][e->fkind] += e->points;
	int root = orc_root(&t->o, seg_at(t, e->x, e->y, e->port));
	if (!e->final) {
		TU_ASSERT_MSG(t->block >= 0, "points during play with no feature completed");
		TU_ASSERT_MSG(root == t->block, "points during play for another feature than the one completed");
		TU_EQ(e->fkind, sc_of(t->o.segs[root].kind));
		TU_ASSERT_MSG(t->block_pay[e->seat], "seat %d paid for a completed feature without the majority", e->seat);
		TU_EQ(e->points, t->block_points);
		t->block_paid[e->seat]++;
		return;
	}
	TU_ASSERT_MSG(t->over, "final points before the last move");
	t->final_pts[e->seat][e->fkind] += e->points;
	if (e->fkind == CARC_SC_FIELD) cov.final_field++;
	else cov.final_other++;
	int per[CARC_MAX_SEATS];
	if (e->fkind != CARC_SC_FIELD) {
		TU_EQ(sc_of(t->o.segs[root].kind), e->fkind);
		TU_ASSERT_MSG(!t->o.done[root], "a completed feature scored again at the end");
		TU_ASSERT_MSG(orc_followers(&t->o, root, per) > 0, "an empty feature scored at the end");
	} else if (t->o.farm_rule == CARC_FARM_PER_CITY_4) {
		TU_ASSERT_MSG(t->o.segs[root].kind == CARC_F_CITY && t->o.done[root], "per-city-4 farm points not at a completed city");
	} else {
		TU_ASSERT_MSG(t->o.segs[root].kind == CARC_F_FIELD && orc_followers(&t->o, root, per) > 0,
		              "farm points not at a farm with farmers");
	}
	TU_ASSERT_MSG(!(t->final_seen[root] >> e->seat & 1), "seat %d paid twice at the end for one feature", e->seat);
	t->final_seen[root] |= (uint8_t)(1u << e->seat);
}

static void on_placed(track *t, const carc_event *e)
{
	int done[CARC_MAX_NODES], ndone;
	TU_LT(e->tile, carc_tile_count());
	TU_LT(e->rot, 4);
	t->last_cell = orc_place(&t->o, e->tile, e->x, e->y, e->rot, done, &ndone);
	t->placed++;
	for (int i = 0; i < ndone; i++) t->pending[t->npending++] = done[i];
	if (e->seat >= 0) {
		TU_EQ(e->seat, t->turn_seat);
		expect_deploys(t, e->seat);
	}
}

/* Every event of one call, in order. */
static void process(track *t, const carc_game *g, const tu_events *evs)
{
	TU_LE(evs->sink.n, evs->sink.cap);
	for (int i = 0; i < evs->sink.n; i++) {
		const carc_event *e = &evs->ev[i];
		TU_LT(e->type, CARC_EV_COUNT);
		TU_ASSERT_MSG(t->game_over_events == 0, "an event after game_over");
		if (e->type != CARC_EV_SCORED && e->type != CARC_EV_RETURNED) close_block(t);
		switch (e->type) {
		case CARC_EV_TILE_DRAWN:
			TU_EQ(e->seat, t->turn_seat);
			TU_LT(e->tile, MAX_TYPES);
			t->draws[e->tile]++;
			break;
		case CARC_EV_TILE_PLACED: on_placed(t, e); break;
		case CARC_EV_TILE_DISCARDED:
			TU_ASSERT_MSG(orc_count_placements(&t->o, e->tile) == 0, "%s discarded but it fits",
			              carc_tile_id(e->tile));
			if (e->why == CARC_WHY_RESHUFFLED) {
				TU_EQ(t->cfg.rules[CARC_R_UNPLACEABLE_TILE], CARC_UNPLACEABLE_RESHUFFLE);
				t->reshuffled[e->tile]++;
				cov.reshuffled++;
			} else {
				TU_EQ(e->why, CARC_WHY_UNPLACEABLE);
				t->discarded++;
				cov.discarded++;
			}
			break;
		case CARC_EV_DEPLOYED: {
			TU_EQ(e->seat, t->turn_seat);
			TU_EQ(e->kind, CARC_FIG_FOLLOWER);
			int s = seg_at(t, e->x, e->y, e->port), per[CARC_MAX_SEATS];
			TU_ASSERT_MSG(t->o.segs[s].cell == t->last_cell, "deployed off the tile just placed");
			TU_ASSERT_MSG(orc_followers(&t->o, orc_root(&t->o, s), per) == 0, "deployed into an occupied feature");
			TU_EQ(e->fkind, t->o.segs[s].kind);
			TU_EQ(e->port, first_port(t, s));
			TU_GT(in_supply(t, e->seat), 0);
			/* PROTOCOL.md 3: a deploy takes the lowest free n of that kind */
			int lowest = 0;
			for (int n = 1; n <= FOLLOWERS && !lowest; n++) {
				int id = carc_figure_find(g, e->seat, CARC_FIG_FOLLOWER, n);
				TU_ASSERT_MSG(id >= 0 && id < ORC_MAX_FIGS, "no figure %d.follower.%d", e->seat, n);
				if (t->o.fig_seg[id] < 0) lowest = n;
			}
			carc_figure_info fi;
			TU_ASSERT(carc_figure_get(g, e->figure, &fi));
			TU_EQ(fi.n, lowest);
			orc_deploy(&t->o, e->figure, e->seat, s);
			t->deployed[e->seat]++;
			break;
		}
		case CARC_EV_FEATURE_COMPLETED: open_block(t, e); break;
		case CARC_EV_SCORED: on_scored(t, e); break;
		case CARC_EV_RETURNED: {
			TU_ASSERT_MSG(t->block >= 0, "a follower returned with no feature scored");
			TU_EQ(e->why, CARC_WHY_SCORED);
			TU_LT(e->figure, ORC_MAX_FIGS);
			int s = t->o.fig_seg[e->figure];
			TU_ASSERT_MSG(s >= 0 && orc_root(&t->o, s) == t->block, "returned a figure that is not in the feature");
			TU_EQ(e->seat, t->o.fig_seat[e->figure]);
			/* a follower deployed this turn onto the feature its tile completed */
			cov.returned_same_turn += t->o.fig_seg[e->figure] >= t->o.cells[t->last_cell].seg0;
			orc_return(&t->o, e->figure);
			t->returned[e->seat]++;
			break;
		}
		case CARC_EV_TURN:
			TU_ASSERT_MSG(t->npending == 0, "a turn began with %d completed features unreported", t->npending);
			t->turn_seat = (t->turn_seat + 1) % t->nseats;
			if (t->placed == 1) t->turn_seat = 0; /* the first turn */
			TU_EQ(e->seat, t->turn_seat);
			break;
		case CARC_EV_GAME_OVER:
			TU_EQ(t->npending, 0);
			t->game_over_events++;
			break;
		}
	}
	close_block(t);
}

/* The state agrees with the events and the oracle. */
static void check_state(const track *t, const carc_game *g)
{
	for (int s = 0; s < t->nseats; s++) {
		int board = tu_on_board(g, s), supply = carc_supply_count(g, s, CARC_FIG_FOLLOWER);
		TU_ASSERT_MSG(board + supply == FOLLOWERS, "seat %d: %d on the board + %d in supply", s, board, supply);
		TU_EQ(board, t->deployed[s] - t->returned[s]);
		int score = carc_game_score(g, s);
		TU_ASSERT_MSG(score >= t->prev_score[s], "seat %d: score went down from %d to %d", s, t->prev_score[s], score);
		TU_ASSERT_MSG(score == t->score_sum[s], "seat %d: score %d, scored events sum to %d", s, score, t->score_sum[s]);
		for (int k = 0; k < CARC_SC_COUNT; k++) TU_EQ(carc_game_score_by(g, s, k), t->sc_sum[s][k]);
	}
	for (int i = 0; i < carc_figure_count(g); i++) {
		carc_figure_info f;
		if (!carc_figure_get(g, i, &f)) continue;
		TU_LT(f.seat, t->nseats);
		TU_LT(i, ORC_MAX_FIGS);
		int s = t->o.fig_seg[i];
		TU_EQ(f.on_board, s >= 0);
		if (s < 0) continue;
		const orc_cell *c = &t->o.cells[t->o.segs[s].cell];
		TU_EQ(f.x, c->x);
		TU_EQ(f.y, c->y);
		TU_EQ(f.port, first_port(t, s));
		TU_EQ(f.fkind, t->o.segs[s].kind);
	}
	TU_EQ(carc_board_count(g), t->placed);
}

static void check_legal(track *t, const carc_game *g, int n, int full)
{
	for (int i = 0; i < n; i++) {
		int detail;
		carc_rc rc = carc_check_move(g, &moves[i], &detail);
		TU_ASSERT_MSG(rc == CARC_OK, "legal move %d refused: %s", i, carc_strerror(rc));
	}
	if (carc_game_phase(g) == CARC_PH_TILE) {
		for (int i = 0; i < n; i++) {
			unsigned bad;
			TU_EQ(moves[i].type, CARC_MV_PLACE_TILE);
			TU_ASSERT_MSG(orc_fits(&t->o, moves[i].tile, moves[i].x, moves[i].y, moves[i].rot, &bad) == CARC_OK,
			              "listed placement (%d,%d) rot %d does not fit", moves[i].x, moves[i].y, moves[i].rot);
		}
		if (full) TU_EQ(orc_count_placements(&t->o, carc_game_drawn(g)), n);
		return;
	}
	TU_EQ(carc_game_phase(g), CARC_PH_ACTION);
	TU_ASSERT_MSG(n == t->nexpect + 1, "%d action moves, the rules allow %d deploys and pass", n, t->nexpect);
	int passes = 0;
	for (int i = 0; i < n; i++) passes += moves[i].type == CARC_MV_PASS;
	TU_EQ(passes, 1);
	for (int i = 0; i < t->nexpect; i++)
		TU_ASSERT_MSG(tu_find_move(moves, n, &t->expect[i]) >= 0, "deploy at %s missing",
		              carc_port_name(t->expect[i].port));
}

static void check_end(const track *t, const carc_game *g)
{
	TU_EQ(t->game_over_events, 1);
	TU_EQ(carc_game_phase(g), CARC_PH_OVER);
	/* 1 start + placed + discarded = 72, and the draws are the manifest */
	TU_ASSERT_MSG(t->placed + t->discarded == 72, "%d placed (with the start) + %d discarded", t->placed, t->discarded);
	const carc_tileset *set = NULL;
	for (int i = 0; i < carc_ntilesets; i++)
		if (!strcmp(carc_tilesets[i].id, "basic:1")) set = &carc_tilesets[i];
	ck_assert_ptr_nonnull(set);
	for (int j = 0; j < set->nref; j++) {
		int type = set->ref[j].type, want = set->ref[j].count - (type == set->start);
		TU_ASSERT_MSG(t->draws[type] - t->reshuffled[type] == want, "%s drawn %d times, %d of them put back",
		              carc_tile_id(type), t->draws[type], t->reshuffled[type]);
	}
	/* every tile's features, in board orientation, as the oracle turns them */
	for (int c = 0; c < t->o.ncells; c++) {
		const orc_cell *oc = &t->o.cells[c];
		uint16_t ports[CARC_TILE_MAXF];
		uint8_t kinds[CARC_TILE_MAXF];
		TU_EQ(carc_tile_features(g, oc->x, oc->y, ports, kinds, CARC_TILE_MAXF), oc->nfeat);
		for (int i = 0; i < oc->nfeat; i++) {
			unsigned want = 0;
			for (int p = 0; p < CARC_PORT_COUNT; p++) want |= (unsigned)(orc_port_seg(&t->o, c, p) == oc->seg0 + i) << p;
			TU_ASSERT_MSG(ports[i] == want, "%s rot %d feature %d: ports %#x, oracle %#x", carc_tile_id(oc->type),
			              oc->rot, i, ports[i], want);
			TU_EQ(kinds[i], t->o.segs[oc->seg0 + i].kind);
		}
	}
	/* final scoring paid what the oracle computes */
	int want[CARC_MAX_SEATS][CARC_SC_COUNT];
	orc_final(&t->o, want);
	for (int s = 0; s < t->nseats; s++)
		for (int k = 0; k < CARC_SC_COUNT; k++)
			TU_ASSERT_MSG(t->final_pts[s][k] == want[s][k], "seat %d final %s: %d, oracle %d (farm rule %s)", s,
			              carc_sc_name(k), t->final_pts[s][k], want[s][k],
			              carc_rule(CARC_R_FARM_SCORING)->values[t->o.farm_rule]);
}

/* ---- one game ---------------------------------------------------------------------------- */

static void make_config(carc_config *cfg, int game)
{
	carc_config_init(cfg);
	cfg->seed = 0x9e3779b97f4a7c15ull * (uint64_t)(game + 1) ^ 0xc0ffee;
	cfg->nseats = (uint8_t)(1 + game % 6);
	cfg->rules[CARC_R_FARM_SCORING] = (game / 6) % 3;
	cfg->rules[CARC_R_TINY_CITY] = (game / 18) % 2;
	cfg->rules[CARC_R_UNPLACEABLE_TILE] = (game / 36) % 2;
	cfg->rules[CARC_R_FARMERS] = game % 13 != 7;
}

/* wide: most tile decisions take the placement farthest from x = 0. */
static void play_game(int game, int wide)
{
	track *t = &tr;
	memset(t, 0, sizeof *t);
	make_config(&t->cfg, game);
	t->nseats = t->cfg.nseats;
	t->block = -1;
	orc_init(&t->o, &t->cfg);
	carc_rng pick;
	carc_rng_seed(&pick, (uint64_t)game * 7919 + 1);
	int pass_pct = (int)carc_rng_below(&pick, 95); /* how often to pass when a deploy is possible */

	tu_events_reset(&ev);
	carc_game *g = tu_game_new(&t->cfg, &ev.sink);
	process(t, g, &ev);
	check_state(t, g);
	int nplayed = 0;
	while (!carc_game_over(g)) {
		TU_EQ(carc_game_seat(g), t->turn_seat);
		int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		TU_GT(n, 0);
		TU_LE(n, CARC_MAX_MOVES);
		check_legal(t, g, n, game % 8 == 0);
		int k = (int)carc_rng_below(&pick, (uint32_t)n);
		if (carc_game_phase(g) == CARC_PH_ACTION && (int)carc_rng_below(&pick, 100) < pass_pct) {
			carc_move pass = tu_pass();
			k = tu_find_move(moves, n, &pass);
		}
		if (wide && carc_game_phase(g) == CARC_PH_TILE && carc_rng_below(&pick, 8))
			for (int i = 0, far = -1; i < n; i++)
				if (abs(moves[i].x) > far) {
					far = abs(moves[i].x);
					k = i;
				}
		carc_move m = moves[k];
		int was_tile = m.type == CARC_MV_PLACE_TILE;
		for (int s = 0; s < t->nseats; s++) t->prev_score[s] = carc_game_score(g, s);
		tu_events_reset(&ev);
		tu_apply_ok(g, m, &ev.sink);
		TU_LT(nplayed, MAX_GAME_MOVES);
		played[nplayed] = m;
		hashes[nplayed++] = carc_game_hash(g);
		t->over = carc_game_over(g);
		process(t, g, &ev);
		check_state(t, g);
		/* the action decision is skipped exactly when nothing may be deployed */
		if (was_tile && !carc_game_over(g)) {
			int skipped = carc_game_phase(g) == CARC_PH_TILE;
			TU_ASSERT_MSG(skipped == (t->nexpect == 0), "action decision %s with %d deploys allowed",
			              skipped ? "skipped" : "kept", t->nexpect);
			cov.skipped_actions += skipped;
			cov.full_supply_outs += skipped && in_supply(t, t->turn_seat) == 0;
		}
	}
	check_end(t, g);
	int minx, maxx, miny, maxy;
	tu_board_bounds(g, &minx, &maxx, &miny, &maxy);
	if (maxx - minx + 1 > cov.widest) cov.widest = maxx - minx + 1;
	cov.folded += maxx - minx + 1 > 32;

	/* replay from the seed: the same hash after every few moves and at the end */
	carc_game *r = tu_game_new(&t->cfg, NULL);
	for (int i = 0; i < nplayed; i++) {
		carc_rc rc = carc_apply(r, &played[i], NULL);
		TU_ASSERT_MSG(rc == CARC_OK, "game %d replay: move %d refused: %s", game, i, carc_strerror(rc));
		if (i % 16 == 0 || i == nplayed - 1)
			TU_ASSERT_MSG(carc_game_hash(r) == hashes[i], "game %d replay differs after move %d", game, i);
	}
	TU_ASSERT(carc_game_hash(r) == carc_game_hash(g));
	for (int s = 0; s < t->nseats; s++) TU_EQ(carc_game_score(r, s), carc_game_score(g, s));
	free(r);
	free(g);
}

START_TEST(test_random_games)
{
	memset(&cov, 0, sizeof cov);
	for (int game = _i * GAMES_PER_TEST; game < (_i + 1) * GAMES_PER_TEST; game++) play_game(game, 0);
	if (getenv("CARC_PROPERTY_STATS"))
		fprintf(stderr,
		        "batch %d: completed %d (paid %d, tied %d), returned the turn they came %d, final field %d,"
		        " final other %d, discarded %d, reshuffled %d, action skipped %d (no follower left %d), held twice %d\n",
		        _i, cov.completed, cov.completed_paid, cov.ties, cov.returned_same_turn, cov.final_field,
		        cov.final_other, cov.discarded, cov.reshuffled, cov.skipped_actions, cov.full_supply_outs, cov.held_twice);
	/* a hundred games always go through these (about 2x these numbers);
	 * ties, discards and reshuffles happen about once a batch */
	ck_assert_int_ge(cov.completed, 500);
	ck_assert_int_ge(cov.completed_paid, 100);
	ck_assert_int_ge(cov.returned_same_turn, 20);
	ck_assert_int_ge(cov.final_field, 100);
	ck_assert_int_ge(cov.final_other, 500);
	ck_assert_int_ge(cov.full_supply_outs, 100);
	ck_assert_int_ge(cov.held_twice, 20);
}
END_TEST

/* Boards much wider than the cell map's 32 x 32 torus, where places 32
 * apart share a home slot. */
START_TEST(test_wide_boards)
{
	memset(&cov, 0, sizeof cov);
	for (int game = GAMES; game < GAMES + WIDE_GAMES; game++) play_game(game, 1);
	ck_assert_int_ge(cov.widest, 48);
	ck_assert_int_ge(cov.folded, 90);
	ck_assert_int_ge(cov.completed, 100);
}
END_TEST

/* The option mix covers every combination within the games played. */
START_TEST(test_option_coverage)
{
	int seen[CARC_MAX_SEATS + 1][3][2][2] = { { { { 0 } } } };
	for (int game = 0; game < GAMES; game++) {
		carc_config cfg;
		make_config(&cfg, game);
		seen[cfg.nseats][cfg.rules[CARC_R_FARM_SCORING]][cfg.rules[CARC_R_TINY_CITY]]
		    [cfg.rules[CARC_R_UNPLACEABLE_TILE]]++;
	}
	for (int n = 1; n <= CARC_MAX_SEATS; n++)
		for (int f = 0; f < 3; f++)
			for (int tc = 0; tc < 2; tc++)
				for (int u = 0; u < 2; u++) TU_GT(seen[n][f][tc][u], 5);
}
END_TEST

static Suite *property_suite(void)
{
	Suite *s = suite_create("property");
	TCase *tc = tcase_create("games");
	/* ~1 s a batch natively; valgrind is ~50x slower (CK_TIMEOUT_MULTIPLIER) */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_random_games, 0, GAMES / GAMES_PER_TEST);
	tcase_add_test(tc, test_wide_boards);
	tcase_add_test(tc, test_option_coverage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(property_suite());
}

/*
 * test_moves.c - what carc_apply does with moves nobody listed.
 *
 * A client may send anything: a move of the wrong phase or seat's turn, a
 * placement off by one, a deploy of a figure the seat does not hold, an
 * abbey outside a hole, a wagon move to nowhere, junk in every field.
 * Random games with every expansion, 1 to 6 seats and random rule values;
 * at every decision a few candidate moves are tried on the game itself:
 * legal moves changed in one field, and moves with every field random.
 * For each candidate:
 *
 * - carc_apply and carc_check_move give the same answer;
 * - a refused move changes nothing: the whole game state is the same,
 *   byte for byte;
 * - an accepted move is one of the legal moves listed, or names the same
 *   choice (a deploy may name its feature by any port): the game it leads
 *   to is the one that listed move leads to.  The game then goes on from
 *   there, so accepted near-misses are played too.
 *
 * And the other way round, exhaustively: at every placement, every place
 * in and around the board at every rotation is asked of carc_check_move,
 * and at every deploy every figure kind at every port of the tile just
 * placed.  The placements it accepts are exactly the ones listed; the
 * deploys it accepts lead to exactly the games the listed deploys lead to
 * (a feature may be named by any of its ports, and is listed once).  The
 * checker and the listing are separate code, so a legal move the listing
 * forgets, or lists twice, shows here.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "testutil.h"

#define GAMES 24
#define GAMES_PER_TEST 6
#define CANDIDATES 8
#define MAX_GAME_MOVES 8192

static carc_move list[CARC_MAX_MOVES];

typedef struct coverage {
	long tried, refused, accepted, near_accepted;
} coverage;

static coverage cov;

/* A legal move changed in one field, or (one time in three) a move with
 * every field random: near the board, and sometimes out of every range. */
static carc_move candidate(const carc_game *g, const carc_move *legal, int n, carc_rng *rng)
{
	carc_move m;
	if (carc_rng_below(rng, 3) == 0) {
		int c = carc_board_count(g);
		carc_placed_info p;
		TU_EQ(carc_board_get(g, (int)carc_rng_below(rng, (uint32_t)c), &p), 1);
		m = (carc_move){ .type = (uint8_t)carc_rng_below(rng, CARC_MV_COUNT + 2),
			         .rot = (uint8_t)carc_rng_below(rng, 6),
			         .kind = (uint8_t)carc_rng_below(rng, CARC_FIG_COUNT + 2),
			         .port = (uint8_t)carc_rng_below(rng, CARC_PORT_COUNT + 2),
			         .x = (int16_t)(p.x + (int)carc_rng_below(rng, 5) - 2),
			         .y = (int16_t)(p.y + (int)carc_rng_below(rng, 5) - 2),
			         .tile = carc_rng_below(rng, 4) ? (uint16_t)carc_rng_below(rng, (uint32_t)carc_tile_count())
			                                        : (uint16_t)(carc_rng_below(rng, 2) ? CARC_NONE : 0x7fff),
			         .figure = carc_rng_below(rng, 2) ? (uint16_t)carc_rng_below(rng, CARC_MAX_SEATS * 16)
			                                          : (uint16_t)CARC_NONE };
		return m;
	}
	m = legal[carc_rng_below(rng, (uint32_t)n)];
	switch (carc_rng_below(rng, 9)) {
	case 0: m.x = (int16_t)(m.x + (carc_rng_below(rng, 2) ? 1 : -1)); break;
	case 1: m.y = (int16_t)(m.y + (carc_rng_below(rng, 2) ? 1 : -1)); break;
	case 2: m.rot = (uint8_t)((m.rot + 1 + carc_rng_below(rng, 3)) % 4); break;
	case 3: m.port = (uint8_t)carc_rng_below(rng, CARC_PORT_COUNT); break;
	case 4: m.kind = (uint8_t)carc_rng_below(rng, CARC_FIG_COUNT); break;
	case 5: m.type = (uint8_t)carc_rng_below(rng, CARC_MV_COUNT); break;
	case 6: m.figure = (uint16_t)carc_rng_below(rng, (uint32_t)carc_figure_count(g)); break;
	case 7: m.tile = (uint16_t)carc_rng_below(rng, (uint32_t)carc_tile_count()); break;
	default: m.port = (uint8_t)(CARC_PORT_COUNT + carc_rng_below(rng, 200)); break;
	}
	return m;
}

/* `m` is in the list exactly, every field alike. */
static int listed_as_is(const carc_move *m, int n)
{
	for (int i = 0; i < n; i++) {
		const carc_move *l = &list[i];
		if (l->type == m->type && l->rot == m->rot && l->kind == m->kind && l->port == m->port && l->x == m->x &&
		    l->y == m->y && l->tile == m->tile && l->figure == m->figure)
			return 1;
	}
	return 0;
}

/* `after` is the game `before` leads to with one of the listed moves. */
static int same_as_a_listed_move(const carc_game *before, const carc_game *after, int n, carc_game *scratch)
{
	uint64_t want = carc_game_hash(after);
	for (int i = 0; i < n; i++) {
		carc_game_clone(scratch, before);
		if (carc_apply(scratch, &list[i], NULL) == CARC_OK && carc_game_hash(scratch) == want) return 1;
	}
	return 0;
}

static void play(int game)
{
	carc_rng rng;
	carc_rng_seed(&rng, 0x6d6f766573ull + (uint64_t)game);
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.expansions = tu_all_available();
	cfg.nseats = (uint8_t)(1 + game % CARC_MAX_SEATS);
	cfg.seed = (uint64_t)game + 1;
	tu_random_rules(&cfg, &rng);
	/* zeroed, so that the whole state can be compared byte for byte (a
	 * game leaves the room past its counts unwritten) */
	carc_game *g = calloc(1, carc_game_size());
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
	carc_game *before = malloc(carc_game_size()), *scratch = malloc(carc_game_size());
	ck_assert_ptr_nonnull(before);
	ck_assert_ptr_nonnull(scratch);
	int moves = 0;
	while (!carc_game_over(g)) {
		TU_ASSERT_MSG(++moves < MAX_GAME_MOVES, "game %d does not end", game);
		int n = carc_legal_moves(g, list, CARC_MAX_MOVES);
		TU_ASSERT_MSG(n > 0 && n <= CARC_MAX_MOVES, "game %d: %d legal moves", game, n);
		carc_game_clone(before, g);
		int played = 0;
		for (int k = 0; k < CANDIDATES && !played; k++) {
			carc_move m = candidate(g, list, n, &rng);
			int listed = listed_as_is(&m, n);
			carc_rc checked = carc_check_move(g, &m, NULL);
			carc_rc rc = carc_apply(g, &m, NULL);
			cov.tried++;
			TU_ASSERT_MSG((rc == CARC_OK) == (checked == CARC_OK),
			              "game %d: carc_check_move says %d, carc_apply %d (type %d)", game, checked, rc, m.type);
			if (rc != CARC_OK) {
				TU_ASSERT_MSG(!listed, "game %d: a listed move (type %d) refused: %d", game, m.type, rc);
				TU_ASSERT_MSG(!memcmp(g, before, carc_game_size()), "game %d: a refused move (type %d, rc %d) changed the game",
				              game, m.type, rc);
				cov.refused++;
				continue;
			}
			TU_ASSERT_MSG(listed || same_as_a_listed_move(before, g, n, scratch),
			              "game %d: an accepted move (type %d at %d,%d port %d kind %d) is no listed move", game, m.type,
			              m.x, m.y, m.port, m.kind);
			cov.accepted++;
			cov.near_accepted += !listed;
			played = 1;
		}
		if (!played) tu_apply_ok(g, list[carc_rng_below(&rng, (uint32_t)n)], NULL);
	}
	free(before);
	free(scratch);
	free(g);
}

START_TEST(test_unlisted_moves)
{
	memset(&cov, 0, sizeof cov);
	for (int game = _i * GAMES_PER_TEST; game < (_i + 1) * GAMES_PER_TEST; game++) play(game);
	/* the batch tried many moves, refused most, and played some that were
	 * listed under another port */
	TU_ASSERT_MSG(cov.refused > 1000 && cov.accepted > 100 && cov.near_accepted > 0,
	              "tried %ld, refused %ld, accepted %ld (%ld not as listed)", cov.tried, cov.refused, cov.accepted,
	              cov.near_accepted);
}
END_TEST

#define EXHAUSTIVE_GAMES 24

static struct {
	long placements, places_asked, deploys, deploys_asked;
} ex;

/* Every placement of the drawn tile carc_check_move accepts is listed,
 * and every listed placement is accepted. */
static void every_placement(const carc_game *g, int n, int game)
{
	int tile = carc_game_drawn(g);
	if (tile < 0) return;
	int minx, maxx, miny, maxy, listed = 0;
	tu_board_bounds(g, &minx, &maxx, &miny, &maxy);
	for (int i = 0; i < n; i++) listed += list[i].type == CARC_MV_PLACE_TILE;
	int accepted = 0;
	for (int x = minx - 1; x <= maxx + 1; x++)
		for (int y = miny - 1; y <= maxy + 1; y++)
			for (int r = 0; r < 4; r++) {
				carc_move m = { .type = CARC_MV_PLACE_TILE, .rot = (uint8_t)r, .x = (int16_t)x, .y = (int16_t)y,
					        .tile = (uint16_t)tile, .figure = CARC_NONE };
				int ok = carc_check_move(g, &m, NULL) == CARC_OK;
				ex.places_asked++;
				TU_ASSERT_MSG(ok == listed_as_is(&m, n), "game %d: tile %d at %d,%d turned %d is %s but %s", game, tile,
				              x, y, r, ok ? "legal" : "illegal", ok ? "not listed" : "listed");
				accepted += ok;
			}
	/* and nothing is listed twice */
	TU_ASSERT_MSG(accepted == listed, "game %d: %d placements legal, %d listed", game, accepted, listed);
	ex.placements += listed;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* What a deploy chooses: the game it leads to, and where the figure went
 * (the deployed event names the segment by its first port, a barn by its
 * corner).  The game alone would not do: a figure that scores and comes
 * back at once leaves the same game wherever it stood. */
static uint64_t deploy_choice(const carc_game *g, const carc_move *m, carc_game *scratch)
{
	static carc_event ev[CARC_MAX_EVENTS];
	carc_sink sink = { ev, 0, CARC_MAX_EVENTS };
	carc_game_clone(scratch, g);
	ck_assert_int_eq(carc_apply(scratch, m, &sink), CARC_OK);
	uint64_t where = 0;
	for (int i = 0; i < sink.n && i < sink.cap; i++)
		if (ev[i].type == CARC_EV_DEPLOYED) where = 1 + ev[i].kind + 16u * ev[i].port + 1024u * ev[i].figure;
	ck_assert_msg(where, "a deploy without a deployed event");
	return carc_game_hash(scratch) ^ where * 0x9e3779b97f4a7c15ull;
}

/* The deploys carc_check_move accepts on the tile just placed are the
 * same choices, one for one, as the deploys listed. */
static void every_deploy(const carc_game *g, int n, int game, carc_game *scratch)
{
	static uint64_t want[CARC_MAX_MOVES], got[CARC_FIG_COUNT * CARC_PORT_COUNT];
	int nwant = 0, ngot = 0;
	carc_placed_info last;
	TU_EQ(carc_board_get(g, carc_board_count(g) - 1, &last), 1);
	for (int i = 0; i < n; i++) {
		if (list[i].type != CARC_MV_DEPLOY) continue;
		want[nwant++] = deploy_choice(g, &list[i], scratch);
	}
	for (int kind = 0; kind < CARC_FIG_COUNT; kind++)
		for (int port = 0; port < CARC_PORT_COUNT; port++) {
			carc_move m = { .type = CARC_MV_DEPLOY, .kind = (uint8_t)kind, .port = (uint8_t)port, .x = last.x,
				        .y = last.y, .tile = CARC_NONE, .figure = CARC_NONE };
			ex.deploys_asked++;
			if (carc_check_move(g, &m, NULL) != CARC_OK) continue;
			uint64_t h = deploy_choice(g, &m, scratch);
			int seen = 0;
			for (int j = 0; j < ngot && !seen; j++) seen = got[j] == h;
			if (!seen) got[ngot++] = h;
		}
	qsort(want, (size_t)nwant, sizeof *want, cmp_u64);
	qsort(got, (size_t)ngot, sizeof *got, cmp_u64);
	for (int i = 1; i < nwant; i++)
		TU_ASSERT_MSG(want[i] != want[i - 1], "game %d: two listed deploys at %d,%d are one choice", game, last.x, last.y);
	TU_ASSERT_MSG(nwant == ngot && !memcmp(want, got, sizeof *want * (size_t)nwant),
	              "game %d: %d deploys listed at %d,%d, %d distinct deploys accepted", game, nwant, last.x, last.y, ngot);
	ex.deploys += nwant;
}

START_TEST(test_every_legal_move_listed)
{
	memset(&ex, 0, sizeof ex);
	carc_rng rng;
	carc_rng_seed(&rng, 0x6576657279ull);
	carc_game *g = malloc(carc_game_size()), *scratch = malloc(carc_game_size());
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(scratch);
	for (int game = 0; game < EXHAUSTIVE_GAMES; game++) {
		carc_config cfg;
		carc_config_init(&cfg);
		/* the base game, then every set, and every third game a random mix */
		if (game) cfg.expansions = tu_all_available();
		if (game % 3 == 2)
			cfg.expansions &= carc_rng_next(&rng) | 1u << carc_expansion_find("base");
		cfg.nseats = (uint8_t)(2 + game % (CARC_MAX_SEATS - 1));
		cfg.seed = 0x6c697374ull + (uint64_t)game;
		if (game > 1) tu_random_rules(&cfg, &rng);
		ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
		for (int moves = 0; !carc_game_over(g); moves++) {
			TU_ASSERT_MSG(moves < MAX_GAME_MOVES, "game %d does not end", game);
			int n = carc_legal_moves(g, list, CARC_MAX_MOVES);
			if (carc_game_phase(g) == CARC_PH_TILE) every_placement(g, n, game);
			if (carc_game_phase(g) == CARC_PH_ACTION) every_deploy(g, n, game, scratch);
			tu_apply_ok(g, list[carc_rng_below(&rng, (uint32_t)n)], NULL);
		}
	}
	free(g);
	free(scratch);
	/* the games asked many moves and found many legal ones of each kind */
	TU_ASSERT_MSG(ex.placements > 100000 && ex.deploys > 3000 && ex.places_asked > 10 * ex.placements,
	              "%ld placements of %ld asked, %ld deploys of %ld asked", ex.placements, ex.places_asked, ex.deploys,
	              ex.deploys_asked);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("moves");
	TCase *tc = tcase_create("unlisted");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_unlisted_moves, 0, GAMES / GAMES_PER_TEST);
	suite_add_tcase(s, tc);
	tc = tcase_create("exhaustive");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_every_legal_move_listed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) { return tu_run(suite()); }

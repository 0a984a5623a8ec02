/*
 * test_deploy.c - the deploy listing against the rules that judge a
 * deploy.
 *
 * The action phase lists deploys (game.c deploy_moves) without asking
 * everywhere: an expansion's deploy_special only at the features of the
 * kinds a special figure may join (special_at), for a builder or a pig only
 * at a feature where a follower stands, at a corner only on a tile with
 * three placed neighbours; feature_closed only about the feature kinds its
 * expansion declares (carc_ext.closes).  Random games with every
 * expansion, 1 to 6 seats and random rule values; at every action phase,
 * and again with the seat's supply cut down at random (no followers left,
 * the usual case late in a game, among them), this checks:
 *
 * - the deploys listed are exactly those carc_check_move accepts when
 *   tried with every figure kind at every port of the tile just placed (a
 *   feature is named once, by its first port; a corner by itself);
 * - in the listing's order: kind by kind, ascending (followers first,
 *   then builder, pig, barn, shepherd); within a kind the tile's features
 *   in order, then the corners NW NE SE SW;
 * - carc_deploy_any, asked after every placement, says yes exactly when
 *   something is listed;
 * - feature_closed shuts only features of the kinds its expansion names.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ext_int.h"
#include "testutil.h"

#define GAMES 600
#define GAMES_PER_TEST 20
#define MAX_GAME_MOVES 8192
#define VARIANTS 3 /* cut-down supplies tried at each action phase */

/* What a batch went through, so that a batch that stops exercising the
 * listing fails. */
typedef struct coverage {
	long phases, empty, listed[CARC_FIG_COUNT], closed;
} coverage;

static coverage cov;
static carc_move moves[CARC_MAX_MOVES];

/* feature_closed says yes only about features of the kinds in `closes`. */
static void check_closed(const carc_game *g)
{
	const carc_cell *c = &g->cells[g->last];
	for (int i = 0; i < carc_cell_type(g, g->last)->nfeat; i++) {
		int root = carc_feat_root(g, c->node0 + i), kind = g->nodes[root].kind;
		for (int e = 0; carc_exts[e]; e++) {
			const carc_ext *x = carc_exts[e];
			if (!(g->exts >> e & 1) || !x->feature_closed || !x->feature_closed(g, root)) continue;
			TU_ASSERT_MSG(x->closes >> kind & 1, "%s shuts a feature of kind %d, not in its closes", x->name, kind);
			cov.closed++;
		}
	}
}

/* The listing of `g` (in its action phase) against carc_check_move. */
static void check_listing(const carc_game *g)
{
	const carc_cell *c = &g->cells[g->last];
	int nfeat = carc_cell_type(g, g->last)->nfeat;
	/* accepted[kind][i]: feature i (0..nfeat-1) or corner i - nfeat; a
	 * feature the tile holds twice is its first segment's */
	unsigned char accepted[CARC_FIG_COUNT][CARC_TILE_MAXF + 4];
	memset(accepted, 0, sizeof accepted);
	for (int kind = 0; kind < CARC_FIG_COUNT; kind++)
		for (int port = 0; port < CARC_PORT_COUNT; port++) {
			carc_move m = { .type = CARC_MV_DEPLOY, .kind = (uint8_t)kind, .x = c->x, .y = c->y,
			                .port = (uint8_t)port, .tile = CARC_NONE, .figure = CARC_NONE };
			if (carc_check_move(g, &m, NULL) != CARC_OK) continue;
			int at;
			if (port >= CARC_P_NW) {
				at = nfeat + port - CARC_P_NW;
			} else {
				int node = carc_board_feature_at(g, g->last, port);
				TU_ASSERT_MSG(node >= 0, "kind %d accepted at port %d, where there is no feature", kind, port);
				at = carc_board_first_segment(g, node) - c->node0;
			}
			accepted[kind][at] = 1;
		}
	carc_move want[CARC_FIG_COUNT * (CARC_TILE_MAXF + 4)];
	int nwant = 0;
	for (int kind = 0; kind < CARC_FIG_COUNT; kind++)
		for (int at = 0; at < nfeat + 4; at++)
			if (accepted[kind][at])
				want[nwant++] = (carc_move){ .type = CARC_MV_DEPLOY, .kind = (uint8_t)kind, .x = c->x, .y = c->y,
				                             .port = (uint8_t)(at < nfeat ? carc_board_first_port(g, c->node0 + at)
				                                                         : CARC_P_NW + at - nfeat),
				                             .tile = CARC_NONE, .figure = CARC_NONE };
	int n = carc_legal_moves(g, moves, CARC_MAX_MOVES), ndeploy = 0;
	TU_ASSERT(n <= CARC_MAX_MOVES);
	for (int j = 0; j < n; j++) {
		const carc_move *m = &moves[j];
		if (m->type != CARC_MV_DEPLOY) continue;
		TU_ASSERT_MSG(ndeploy < nwant, "deploy %d (kind %d at port %d) listed, only %d accepted", ndeploy, m->kind,
		              m->port, nwant);
		const carc_move *w = &want[ndeploy++];
		TU_ASSERT_MSG(m->kind == w->kind && m->port == w->port && m->x == w->x && m->y == w->y,
		              "deploy %d: kind %d at port %d listed, kind %d at port %d accepted", ndeploy - 1, m->kind,
		              m->port, w->kind, w->port);
		cov.listed[m->kind]++;
	}
	TU_ASSERT_MSG(ndeploy == nwant, "%d deploys listed, %d accepted", ndeploy, nwant);
	TU_EQ(carc_deploy_any(g), ndeploy > 0);
	cov.empty += ndeploy == 0;
	cov.phases++;
	check_closed(g);
}

START_TEST(test_listing)
{
	carc_game *v = malloc(carc_game_size());
	ck_assert_ptr_nonnull(v);
	memset(&cov, 0, sizeof cov);
	for (int i = 0; i < GAMES_PER_TEST; i++) {
		int game = _i * GAMES_PER_TEST + i;
		carc_rng rng;
		carc_rng_seed(&rng, 0xde910 + (uint64_t)game);
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.seed = 7000 + (uint64_t)game;
		cfg.nseats = (uint8_t)(1 + carc_rng_below(&rng, 6));
		cfg.expansions = tu_all_available();
		tu_random_rules(&cfg, &rng);
		carc_game *g = tu_game_new(&cfg, NULL);
		for (int step = 0; !carc_game_over(g); step++) {
			TU_ASSERT_MSG(step < MAX_GAME_MOVES, "game %d does not end", game);
			if (carc_game_phase(g) == CARC_PH_ACTION) {
				check_listing(g);
				for (int k = 0; k < VARIANTS; k++) {
					/* the same position with some of the seat's figure
					 * kinds gone from its supply (k 0: every follower) */
					unsigned gone = k ? (unsigned)carc_rng_below(&rng, 1u << CARC_FIG_COUNT) : 0xfu;
					carc_game_clone(v, g);
					for (int kind = 0; kind < CARC_FIG_COUNT; kind++)
						if (gone >> kind & 1) v->in_supply[v->seat][kind] = 0;
					check_listing(v);
				}
			}
			int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
			TU_ASSERT(n > 0);
			TU_EQ(carc_apply(g, &moves[carc_rng_below(&rng, (uint32_t)n)], NULL), CARC_OK);
		}
		free(g);
	}
	free(v);
	/* the batch saw empty listings and every kind listed */
	TU_GT(cov.phases, 0);
	TU_GT(cov.empty, 0);
	for (int kind = 0; kind < CARC_FIG_COUNT; kind++)
		TU_ASSERT_MSG(cov.listed[kind] > 0, "no deploy of kind %d listed in batch %d", kind, _i);
}
END_TEST

int main(void) { return tu_run_batches("deploy", test_listing, GAMES / GAMES_PER_TEST, 240); }

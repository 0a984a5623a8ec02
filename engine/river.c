/*
 * river.c - the River, River II and the mini expansion's river tiles
 * (RULES.md 2.2-2.4 and 4.20).
 *
 * The spring starts the game (game.c picks it as the standard start and
 * leaves the base start tile out).  Here: the river tiles are drawn before
 * all others, a fork first and the lake last; a river tile must continue
 * the river, and every river end it leaves open must have the two places
 * ahead of it and their side neighbours empty, so the river can never be
 * boxed in, turn back on itself or meet its other branch.  The volcano
 * lake takes no figure and gives its placer another turn.
 */
#include "ext_int.h"

/* Edges of the unturned tile that carry the river. */
static unsigned river_edges(int type)
{
	uint32_t code = carc_tiletypes[type].edge_code[0];
	unsigned e = 0;
	for (int d = 0; d < 4; d++)
		if ((code >> (8 * d) & 0xff) == CARC_EK_RIVER) e |= 1u << d;
	return e;
}

static int river_judges(int type) { return river_edges(type) != 0; }

/* River tiles first (a fork before the rest, lakes last), land after;
 * within each group the shuffled order stays. */
static int river_rank(int type)
{
	unsigned e = river_edges(type);
	if (!e) return 3;
	if (carc_tiletypes[type].symbols & CARC_SYM_LAKE) return 2;
	return __builtin_popcount(e) >= 3 ? 0 : 1;
}

static void river_order(carc_game *g)
{
	uint16_t sorted[CARC_MAX_TILES];
	int n = 0;
	for (int rank = 0; rank < 4; rank++)
		for (int i = 0; i < g->nsupply; i++)
			if (river_rank(g->supply[i]) == rank) sorted[n++] = g->supply[i];
	for (int i = 0; i < n; i++) g->supply[i] = sorted[i];
}

static int river_allowed(const carc_game *g, int type, int x, int y, int rot)
{
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	unsigned e = river_edges(type);
	if (!e) return 1;
	e = (e << rot | e >> (4 - rot)) & 0xf;
	unsigned open = e;
	for (int d = 0; d < 4; d++)
		if (e >> d & 1 && carc_board_lookup(g, x + dx[d], y + dy[d]) >= 0) open &= ~(1u << d);
	if (open == e) return 0; /* it must continue the river */
	for (int d = 0; d < 4; d++) {
		if (!(open >> d & 1)) continue;
		int p = (d + 1) & 3; /* across the flow */
		for (int ahead = 1; ahead <= 2; ahead++) {
			int ax = x + ahead * dx[d], ay = y + ahead * dy[d];
			for (int side = -1; side <= 1; side++)
				if (carc_board_lookup(g, ax + side * dx[p], ay + side * dy[p]) >= 0) return 0;
		}
	}
	return 1;
}

static int volcano_lake(const carc_game *g, int cell)
{
	unsigned sym = carc_cell_type(g, cell)->symbols;
	return (sym & CARC_SYM_LAKE) && (sym & CARC_SYM_VOLCANO);
}

static int river_deploy_allowed(const carc_game *g, int cell) { return !volcano_lake(g, cell); }

static int river_extra_turn(carc_game *g)
{
	return g->last != CARC_NONE && volcano_lake(g, g->last) && g->cfg.rules[CARC_R_VOLCANO_LAKE_EXTRA_TURN];
}

const carc_ext carc_ext_river = {
	.name = "river",
	.also = "river2",
	.order_supply = river_order,
	.placement_allowed = river_allowed,
	.placement_judges = river_judges,
	.deploy_allowed = river_deploy_allowed,
	.extra_turn = river_extra_turn,
};

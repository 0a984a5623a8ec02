/*
 * traders.c - Traders & Builders (RULES.md 2.6, table rows 12, 13, 17,
 * 32; 4.6, 4.7).
 *
 * Goods: whoever places the tile that completes a city takes one token per
 * goods symbol in it, whoever owns the city; at the end the most tokens
 * of each kind score 10 (ties each).  The builder joins a road or city
 * where its owner already has a follower; a later tile of that owner that
 * extends or completes it earns one extra turn, never two in a row.  The
 * pig joins a farm where its owner has a farmer and adds 1 a city if that
 * player wins the farm; a pig herd adds 1 a city for every winner.
 * Builders and pigs never block a feature nor count for majorities, and go
 * home with their owner's last follower there.
 */
#include <stddef.h>

#include "ext_int.h"

/* g->trade_fig[s][k]: the figure slot of seat s's builder (k 0) or pig
 * (k 1); FIG_NONE without one (a seat has at most one of each). */
enum { FIG_NONE = 0xff };
_Static_assert(CARC_SPECIALS_PER_SEAT == 1, "one builder and one pig a seat: g->trade_fig holds their slots");

/* ---- tile types with a pig herd ------------------------------------------ */

static int herd_tile(uint16_t type) { return carc_tile_traits[type].flags & CARC_TT_HERD; }

/* Does the pig herd of feature `feat` of a tile of this type count?  Only
 * with the Traders & Builders tiles in play (RULES.md 2.3: "The inn, pig
 * herd and volcano only do anything if I&C, T&B and P&D are in play"):
 * this expansion is also on for its builder, pig or goods alone, and
 * those do not bring the River II or GQ11 herd to life (section 6: a
 * symbol whose component is not in play has no effect).  The GQ11 herd
 * counts only under gq11_pig_herd.  Asked only for herd tiles, when they
 * are placed and when a farm is scored. */
static int herd_counts(const carc_game *g, int type, int feat)
{
	return carc_tiletypes[type].f[feat].flags & CARC_TF_PIGHERD &&
	       carc_game_has_set(g, "traders-builders") &&
	       (g->cfg.rules[CARC_R_GQ11_PIG_HERD] == 0 || carc_tile_expansion(type) != carc_expansion_find("mini"));
}

/* ---- set-up ------------------------------------------------------------------ */

/* An extra turn earned: builder_extra_turn is asked at the end of this
 * turn (out of the extra_turn hook otherwise). */
static void builder_earned(carc_game *g)
{
	g->builder_turn = 1;
	carc_ext_hook(g, CARC_EXT_TRADERS, CARC_HOOK_EXTRA, 1);
}

static void traders_setup(carc_game *g)
{
	carc_ext_hook(g, CARC_EXT_TRADERS, CARC_HOOK_EXTRA, 0);
	/* on for the builder, pig or goods alone, without the T&B tiles: a
	 * goods symbol that comes into such a game (as a start tile) is a
	 * symbol of a set not in play and brings no token (RULES.md section 6;
	 * herd_counts likewise) */
	if (!carc_game_has_set(g, "traders-builders"))
		carc_ext_hook(g, CARC_EXT_TRADERS, CARC_HOOK_COMPLETED, 0);
	for (int s = 0; s < CARC_MAX_SEATS; s++) {
		g->trade_fig[s][0] = g->trade_fig[s][1] = FIG_NONE;
		g->build_node[s] = CARC_NONE;
		for (int j = 0; s < g->nseats && j < CARC_FIGS_PER_SEAT; j++) {
			const carc_fig *f = &g->figs[s * CARC_FIGS_PER_SEAT + j];
			if (!f->used) continue;
			int k = f->kind == CARC_FIG_BUILDER ? 0 : f->kind == CARC_FIG_PIG ? 1 : -1;
			if (k >= 0) g->trade_fig[s][k] = (uint8_t)(s * CARC_FIGS_PER_SEAT + j);
		}
	}
}

/* ---- goods ------------------------------------------------------------------- */

static void goods_completed(carc_game *g, int root, carc_sink *out)
{
	if (g->nodes[root].kind != CARC_F_CITY || !(g->components >> CARC_C_GOODS & 1)) return;
	int n = root;
	do {
		const carc_node *nd = &g->nodes[n];
		int goods = carc_cell_type(g, nd->cell)->f[nd->feat].goods;
		if (goods) carc_take_token(g, g->turn_seat, CARC_TOK_WINE + goods - CARC_GOODS_WINE, -1, out);
		n = nd->next;
	} while (n != root);
}

/* 10 for each kind of goods a seat holds the most of, ties each (row
 * 17): one score a seat, the sum of its majorities (PROTOCOL.md 6: one
 * `scored` a seat for what is scored together). */
static void goods_final(carc_game *g, carc_sink *out)
{
	int points[CARC_MAX_SEATS] = { 0 };
	for (int t = CARC_TOK_WINE; t <= CARC_TOK_CLOTH; t++) {
		int top = 0;
		for (int s = 0; s < g->nseats; s++)
			if (g->tokens[s][t] > top) top = g->tokens[s][t];
		for (int s = 0; top && s < g->nseats; s++)
			if (g->tokens[s][t] == top) points[s] += 10;
	}
	for (int s = 0; s < g->nseats; s++)
		if (points[s]) carc_add_score(g, s, CARC_SC_TRADE, points[s], -1, 1, out);
}

/* ---- builders and pigs: where they may go --------------------------------------- */

/* CARC_OK if `seat` has a follower in the feature of `root` (which holds
 * followers), else CARC_E_RULE; kept apart so that the usual refusal
 * (nobody there) costs little. */
static __attribute__((noinline)) int follower_verdict(const carc_game *g, int seat, int root)
{
	return carc_seat_in(g, seat, root) ? CARC_OK : CARC_E_RULE;
}

/* The feature segment at edge or half-edge port p (0-11) of the tile just
 * placed, or -1: carc_board_feature_at with one table for the turn.
 * edge_feat and half_feat lie next to each other in the tile type, so
 * they read as one array of the 12 unturned ports. */
_Static_assert(offsetof(carc_tiletype, half_feat) == offsetof(carc_tiletype, edge_feat) + 4,
               "half_feat follows edge_feat");
static const uint8_t unturned[4][12] = { /* [rot][board port]: port of the unturned tile */
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 },
	{ 3, 0, 1, 2, 10, 11, 4, 5, 6, 7, 8, 9 },
	{ 2, 3, 0, 1, 8, 9, 10, 11, 4, 5, 6, 7 },
	{ 1, 2, 3, 0, 6, 7, 8, 9, 10, 11, 4, 5 },
};
static int side_feature(const carc_game *g, int p)
{
	const carc_cell *c = &g->cells[g->last];
	const uint8_t *feat = (const uint8_t *)&carc_tiletypes[c->type] + offsetof(carc_tiletype, edge_feat);
	int f = feat[unturned[c->rot & 3][p]];
	return f == CARC_NOF ? -1 : c->node0 + f;
}

/* A builder or pig at segment `node` (-1: none) of the tile just placed;
 * the refusals come cheapest first, in the order of their error codes,
 * and the usual one (nobody stands in the feature) costs one root walk. */
static inline int special_at(const carc_game *g, int seat, int kind, int node, int *out_node)
{
	if (node < 0) return CARC_E_NO_FEATURE;
	*out_node = node;
	unsigned fk = g->nodes[node].kind;
	if (kind == CARC_FIG_BUILDER) {
		if (!((1u << CARC_F_ROAD | 1u << CARC_F_CITY) >> fk & 1)) return CARC_E_KIND;
	} else {
		if (fk != CARC_F_FIELD || !g->cfg.rules[CARC_R_FARMERS]) return CARC_E_KIND;
	}
	int root = carc_feat_root(g, node);
	return g->nodes[root].nfig ? follower_verdict(g, seat, root) : CARC_E_RULE;
}

/* The same at a port that is not an edge or half-edge (the centre, I, II). */
static __attribute__((noinline)) int special_inside(const carc_game *g, int seat, int kind, int port, int *out_node)
{
	return special_at(g, seat, kind, carc_board_feature_at(g, g->last, port), out_node);
}

/* A builder or pig at the feature of `port` on the tile just placed.
 * The deploy listing asks this for every road and city (builder) or field
 * (pig) of that tile while the seat holds the figure. */
static int traders_special(const carc_game *g, int seat, int kind, int port, int *out_node)
{
	if (kind != CARC_FIG_BUILDER && kind != CARC_FIG_PIG) return -1;
	/* corners hold no feature segment (tile features touch edges,
	 * half-edges, the centre or I/II), as carc_board_feature_at says */
	if (port >= CARC_P_NW) return CARC_E_NO_FEATURE;
	if (port < 0 || port >= CARC_P_CLOISTER) return special_inside(g, seat, kind, port, out_node);
	return special_at(g, seat, kind, side_feature(g, port), out_node);
}

/* carc_move_refusal: a builder or pig refused a feature where the seat on
 * turn has no follower (the one refusal of theirs a rule gives). */
static int traders_why(const carc_game *g, const carc_move *m, int *ax, int *ay)
{
	(void)ax;
	(void)ay;
	int node;
	if (m->type != CARC_MV_DEPLOY || g->phase != CARC_PH_ACTION) return CARC_RF_NONE;
	return traders_special(g, g->seat, m->kind, m->port, &node) == CARC_E_RULE ? CARC_RF_NEEDS_OWN_FOLLOWER
	                                                                           : CARC_RF_NONE;
}

/* ---- the builder's extra turn ------------------------------------------------------- */

/* Does the tile just placed extend or complete the feature of the builder
 * standing on segment `node` (whose kind the tile has)? */
static __attribute__((noinline)) void builder_extends(carc_game *g, int cell, int node)
{
	const carc_cell *c = &g->cells[cell];
	const carc_tiletype *t = &carc_tiletypes[c->type];
	int root = carc_feat_root(g, node), kind = g->nodes[root].kind;
	unsigned joined = 0; /* a segment of its road or city; every segment looked at, without a branch */
	for (int j = 0; j < t->nfeat; j++) joined |= (t->f[j].kind == kind) & (carc_feat_root(g, c->node0 + j) == root);
	if (joined) builder_earned(g);
}

/* The same for the seat's builder (at home, it earns nothing): the tile
 * extends or completes its road or city (RULES.md 2.6, 4.7).  A tile
 * with a segment of the builder's kind (that of its segment) is asked
 * whether it joins the feature, unless the feature is as large as when
 * this last looked with the builder on the same segment (features only
 * grow: then no segment joined it since, this tile's neither); one
 * without may still have completed it (an abbey's walls): a feature with
 * no open end left was completed by this placement, since one completed
 * before was scored and sent the builder home. */
static __attribute__((noinline)) void builder_check(carc_game *g, int cell, int seat)
{
	int slot = g->trade_fig[seat][0];
	if (slot == FIG_NONE) return;
	int node = g->figs[slot].node;
	if (node == CARC_NONE) return;
	const carc_node *r = &g->nodes[carc_feat_root(g, node)];
	if (carc_tile_traits[g->cells[cell].type].kinds >> g->nodes[node].kind & 1) {
		if (g->build_node[seat] == node && g->build_size[seat] == r->size) return;
		g->build_node[seat] = (uint16_t)node;
		g->build_size[seat] = r->size;
		builder_extends(g, cell, node);
	} else if (r->open == 0) {
		builder_earned(g);
	}
}

static int builder_extra_turn(carc_game *g)
{
	int earned = g->builder_turn;
	g->builder_turn = 0;
	carc_ext_hook(g, CARC_EXT_TRADERS, CARC_HOOK_EXTRA, 0);
	return earned;
}

/* ---- pigs and pig herds ---------------------------------------------------------------- */

/* Lists the counting pig herds of cell `c` in g->herds. */
static void herd_list(carc_game *g, int c)
{
	const carc_tiletype *t = carc_cell_type(g, c);
	for (int i = 0; i < t->nfeat; i++) {
		if (!herd_counts(g, g->cells[c].type, i)) continue;
		if (g->nherds < sizeof g->herds / sizeof g->herds[0]) g->herds[g->nherds++] = (uint16_t)(g->cells[c].node0 + i);
		else g->nherds = 0xff;
	}
}

/* How many counting pig herds lie in the farm of `root` (each adds 1 a
 * city: RULES.md row 13 gives no cap, unlike the inns and cathedrals of
 * rows 2 and 4, and each "counts as an additional pig").  The listed
 * herds, and those of the tile just placed that are not listed yet, in
 * case its farm is scored before traders_placed has listed them (no hook
 * does that now: the farms a tile joins to a barn's score at the end of
 * the turn, abbey_turn_end; every other tile on the board has been
 * through traders_placed); a walk over the farm when more herds were
 * placed than herds[] holds. */
static int farm_herds(const carc_game *g, int root)
{
	int n = 0;
	if (g->nherds == 0xff) {
		int at = root;
		do {
			const carc_node *nd = &g->nodes[at];
			n += herd_counts(g, g->cells[nd->cell].type, nd->feat);
			at = nd->next;
		} while (at != root);
		return n;
	}
	for (int i = 0; i < g->nherds; i++) n += carc_feat_root(g, g->herds[i]) == root;
	int c = g->last;
	if (c == CARC_NONE || !herd_tile(g->cells[c].type)) return n;
	for (int i = 0; i < carc_cell_type(g, c)->nfeat; i++) {
		int node = g->cells[c].node0 + i, listed = 0;
		if (!herd_counts(g, g->cells[c].type, i) || carc_feat_root(g, node) != root) continue;
		for (int k = 0; k < g->nherds; k++) listed |= g->herds[k] == node;
		n += !listed;
	}
	return n;
}

/* What `seat`, winning the farm of `root`, scores more a city: 1 for its
 * own pig there (row 12: one a seat), 1 for each pig herd (row 13). */
static int pig_bonus(const carc_game *g, int root, int seat)
{
	int slot = g->trade_fig[seat][1];
	root = carc_feat_root(g, root);
	int pig = !g->in_supply[seat][CARC_FIG_PIG] && slot != FIG_NONE && /* each seat has one pig: at home, it is in no farm */
	          g->figs[slot].node != CARC_NONE && carc_feat_root(g, g->figs[slot].node) == root;
	return pig + farm_herds(g, root);
}

/* ---- every placement ----------------------------------------------------------------------- */

/* A tile placed: the builder's extra turn, unless it is earned already,
 * or the builder is at home, or this is an extra turn: the extra turn
 * "cannot chain" (RULES.md 2.6, 4.7 "only one extra tile per turn"),
 * whether the builder or the volcano lake gave it. */
static inline void builder_placed(carc_game *g, int cell)
{
	if (!g->builder_turn && !g->extra && !g->in_supply[g->turn_seat][CARC_FIG_BUILDER])
		builder_check(g, cell, g->turn_seat);
}

/* The same after listing the pig herds of the tile. */
static __attribute__((noinline)) void herd_placed(carc_game *g, int cell)
{
	herd_list(g, cell);
	builder_placed(g, cell);
}

static void traders_placed(carc_game *g, int cell, carc_sink *out)
{
	(void)out;
	if (herd_tile(g->cells[cell].type)) herd_placed(g, cell);
	else builder_placed(g, cell);
}

const carc_ext carc_ext_traders = {
	.name = "traders-builders",
	.components = 1u << CARC_C_BUILDER | 1u << CARC_C_PIG | 1u << CARC_C_GOODS,
	.setup = traders_setup,
	.feature_completed = goods_completed,
	.feature_kinds = 1u << CARC_F_CITY,
	.final_scoring = goods_final,
	.deploy_special = traders_special,
	.special_kinds = 1u << CARC_FIG_BUILDER | 1u << CARC_FIG_PIG,
	.tile_placed = traders_placed,
	.extra_turn = builder_extra_turn,
	.farm_bonus = pig_bonus,
	.move_why = traders_why,
};

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
#include "ext_int.h"

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

static void goods_final(carc_game *g, carc_sink *out)
{
	for (int t = CARC_TOK_WINE; t <= CARC_TOK_CLOTH; t++) {
		int top = 0;
		for (int s = 0; s < g->nseats; s++)
			if (g->tokens[s][t] > top) top = g->tokens[s][t];
		for (int s = 0; top && s < g->nseats; s++)
			if (g->tokens[s][t] == top) carc_add_score(g, s, CARC_SC_TRADE, 10, -1, 1, out);
	}
}

/* Has `seat` a follower in the feature of `root`?  (carc_seat_in, with
 * the root's follower count first: a feature nobody stands in, the usual
 * case, answers without a look at the figures.) */
static int seat_follower_in(const carc_game *g, int seat, int root)
{
	if (!g->nodes[root].nfig) return 0;
	for (int i = seat * CARC_FIGS_PER_SEAT; i < (seat + 1) * CARC_FIGS_PER_SEAT; i++) {
		const carc_fig *f = &g->figs[i];
		if (f->used && f->node != CARC_NONE && carc_feat_root_c(g, f->node) == root && carc_is_follower(f->kind))
			return 1;
	}
	return 0;
}

/* A builder or pig at the feature of `port` on the tile just placed.
 * The deploy listing asks for every feature and corner of that tile;
 * the refusals come cheapest first, in the order of their error codes. */
static __attribute__((noinline)) int feature_special(const carc_game *g, int seat, int kind, int port, int *out_node)
{
	int node = carc_board_feature_at(g, g->last, port);
	if (node < 0) return CARC_E_NO_FEATURE;
	*out_node = node;
	int fk = g->nodes[node].kind;
	if (kind == CARC_FIG_BUILDER) {
		if (fk != CARC_F_ROAD && fk != CARC_F_CITY) return CARC_E_KIND;
	} else {
		if (fk != CARC_F_FIELD || !g->cfg.rules[CARC_R_FARMERS]) return CARC_E_KIND;
	}
	return seat_follower_in(g, seat, carc_feat_root_c(g, node)) ? CARC_OK : CARC_E_RULE;
}

static int traders_special(const carc_game *g, int seat, int kind, int port, int *out_node)
{
	if (kind != CARC_FIG_BUILDER && kind != CARC_FIG_PIG) return -1;
	/* corners hold no feature segment (tile features touch edges,
	 * half-edges, the centre or I/II), as carc_board_feature_at says */
	if (port >= CARC_P_NW) return CARC_E_NO_FEATURE;
	return feature_special(g, seat, kind, port, out_node);
}

/* A tile that extends or completes the feature of its placer's builder. */
static void builder_placed(carc_game *g, int cell, carc_sink *out)
{
	(void)out;
	if (g->builder_turn) return; /* earned already, or this is the extra turn */
	/* each seat has one builder: at home, it earns nothing */
	if (g->in_supply[g->turn_seat][CARC_FIG_BUILDER]) return;
	const carc_cell *c = &g->cells[cell];
	const carc_tiletype *t = carc_cell_type(g, cell);
	for (int i = g->turn_seat * CARC_FIGS_PER_SEAT; i < (g->turn_seat + 1) * CARC_FIGS_PER_SEAT; i++) {
		const carc_fig *f = &g->figs[i];
		if (!f->used || f->kind != CARC_FIG_BUILDER || f->node == CARC_NONE) continue;
		int root = carc_feat_root(g, f->node), kind = g->nodes[root].kind;
		for (int j = 0; j < t->nfeat && !g->builder_turn; j++) /* segments of its road or city */
			if (t->f[j].kind == kind && carc_feat_root(g, c->node0 + j) == root) g->builder_turn = 1;
		break; /* the seat's one builder */
	}
}

static int builder_extra_turn(carc_game *g)
{
	if (g->builder_turn == 1) {
		g->builder_turn = 2;
		return 1;
	}
	g->builder_turn = 0;
	return 0;
}

/* Is field segment `n` a pig herd that counts (the GQ11 one only under
 * gq11_pig_herd)? */
static int is_herd(const carc_game *g, int n)
{
	const carc_node *nd = &g->nodes[n];
	int type = g->cells[nd->cell].type;
	return carc_tiletypes[type].f[nd->feat].flags & CARC_TF_PIGHERD &&
	       (carc_tile_expansion(type) != carc_expansion_find("mini") || g->cfg.rules[CARC_R_GQ11_PIG_HERD] == 0);
}

static int pig_bonus(const carc_game *g, int root, int seat)
{
	int pig = 0, herd = 0;
	if (!g->in_supply[seat][CARC_FIG_PIG]) /* each seat has one pig: at home, it is in no farm */
		for (int i = seat * CARC_FIGS_PER_SEAT; i < (seat + 1) * CARC_FIGS_PER_SEAT; i++) {
			const carc_fig *f = &g->figs[i];
			if (f->used && f->kind == CARC_FIG_PIG && f->node != CARC_NONE && carc_feat_root_c(g, f->node) == root) pig = 1;
		}
	int n = root;
	do { /* a herd anywhere in the farm; one is enough */
		herd = is_herd(g, n);
		n = g->nodes[n].next;
	} while (!herd && n != root);
	return pig + herd;
}

const carc_ext carc_ext_traders = {
	.name = "traders-builders",
	.components = 1u << CARC_C_BUILDER | 1u << CARC_C_PIG | 1u << CARC_C_GOODS,
	.feature_completed = goods_completed,
	.final_scoring = goods_final,
	.deploy_special = traders_special,
	.special_kinds = 1u << CARC_FIG_BUILDER | 1u << CARC_FIG_PIG,
	.tile_placed = builder_placed,
	.extra_turn = builder_extra_turn,
	.farm_bonus = pig_bonus,
};

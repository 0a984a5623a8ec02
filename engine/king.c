/*
 * king.c - King & Robber Baron (RULES.md table rows 18, 19; 4.6).
 *
 * Whoever completes a city larger than every city completed before takes
 * the king; a road longer than every road before, the robber baron.  An
 * equal size leaves the token where it is.  At the end the king's holder
 * scores 1 per completed city on the board, the robber's 1 per completed
 * road, whoever owns them.
 */
#include "ext_int.h"

static void completed_counts(const carc_game *g, int *cities, int *roads);

/* The completed roads and cities on the board, kept in g->completed from
 * the first completion on: each completed feature comes through
 * king_completed once (the pending list of the turn), except those the
 * start tiles close among themselves, counted with one pass at the first
 * completion (every feature pending then comes through here too). */
static __attribute__((noinline)) void completed_start(carc_game *g)
{
	int cities, roads;
	completed_counts(g, &cities, &roads);
	for (int i = 0; i < g->npending; i++) {
		int k = g->nodes[g->pending[i]].kind;
		if (k == CARC_F_CITY) cities--;
		else if (k == CARC_F_ROAD) roads--;
	}
	g->completed[CARC_F_CITY] = (uint16_t)cities;
	g->completed[CARC_F_ROAD] = (uint16_t)roads;
	g->completed_known = 1;
}

/* A completed city (`city`) or road larger in segments than the record:
 * the record and the token go to the seat on turn when it is larger in
 * tiles too. */
static __attribute__((noinline)) void king_record(carc_game *g, int root, int city, carc_sink *out)
{
	uint16_t *best = city ? &g->king_size : &g->robber_size;
	int8_t *holder = city ? &g->king : &g->robber;
	int size = carc_feat_tiles(g, root, NULL, NULL);
	if (size <= *best) return;
	*best = (uint16_t)size;
	int seat = g->turn_seat;
	if (*holder == seat) return;
	carc_take_token(g, seat, city ? CARC_TOK_KING : CARC_TOK_ROBBER, *holder, out);
	*holder = (int8_t)seat;
}

static void king_completed(carc_game *g, int root, carc_sink *out)
{
	_Static_assert(CARC_F_ROAD == 0 && CARC_F_CITY == 1, "road and city kinds index completed[]");
	const carc_node *r = &g->nodes[root];
	unsigned kind = r->kind;
	if (kind > CARC_F_CITY) return;
	if (!g->completed_known) completed_start(g);
	g->completed[kind]++;
	int city = kind == CARC_F_CITY;
	/* a feature has at least one segment a tile: no more segments than
	 * the record, no more tiles either (and no walk to count them) */
	if (!(g->components >> (city ? CARC_C_KING : CARC_C_ROBBER) & 1) || r->size <= (city ? g->king_size : g->robber_size))
		return;
	king_record(g, root, city, out);
}

/* The completed cities and roads on the board, in one pass over the
 * nodes: the root of each completed road or city counts once. */
static void completed_counts(const carc_game *g, int *cities, int *roads)
{
	int n[2] = { 0, 0 };
	_Static_assert(CARC_F_ROAD == 0 && CARC_F_CITY == 1, "road and city kinds index n[]");
	for (int i = 0; i < g->nnodes; i++) {
		const carc_node *nd = &g->nodes[i];
		if (nd->done && nd->parent == i && nd->kind <= CARC_F_CITY) n[nd->kind]++;
	}
	*cities = n[CARC_F_CITY];
	*roads = n[CARC_F_ROAD];
}

static void king_final(carc_game *g, carc_sink *out)
{
	if (g->king < 0 && g->robber < 0) return;
	int cities = g->completed[CARC_F_CITY], roads = g->completed[CARC_F_ROAD];
	if (!g->completed_known) completed_counts(g, &cities, &roads);
	if (g->king >= 0) carc_add_score(g, g->king, CARC_SC_KING, cities, -1, 1, out);
	if (g->robber >= 0) carc_add_score(g, g->robber, CARC_SC_ROBBER, roads, -1, 1, out);
}

const carc_ext carc_ext_king = {
	.name = "king-robber",
	.components = 1u << CARC_C_KING | 1u << CARC_C_ROBBER,
	.feature_completed = king_completed,
	.feature_kinds = 1u << CARC_F_ROAD | 1u << CARC_F_CITY,
	.final_scoring = king_final,
};

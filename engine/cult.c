/*
 * cult.c - Cult places (RULES.md 2.10 "Heretics & Shrines", table row 9;
 * 4.16).
 *
 * A cult place is scored like a cloister.  No cult place may stand next
 * to (diagonals included) more than one cloister, nor a cloister next to
 * more than one cult place.  The challenge: when one of a neighbouring
 * cloister and cult place is completed and scored while the other is
 * still incomplete, the followers on the other go home with no points;
 * two completed in the same turn both score.  A completed building that
 * held no follower was not scored, so it challenges nobody.
 */
#include <string.h>

#include "ext_int.h"

/* 0 none, 1 cloister, 2 cult place: the centre building of a tile. */
static int building(int type) { return carc_tile_traits[type].building; }

/* (ax, ay) is one of the eight places around (x, y). */
static int near(int x, int y, int ax, int ay)
{
	unsigned dx = (unsigned)(ax - x + 1), dy = (unsigned)(ay - y + 1);
	return dx <= 2 && dy <= 2 && (dx != 1 || dy != 1);
}

/* g->build[] lists the first 48 buildings placed (cloisters and cult places
 * together, as placed; once a 49th is placed, g->build_full, the board is
 * read instead: board_near_ok), cloisters from the front,
 * cult places from the back: build[0 .. nbuild - ncult) are the cloisters,
 * build[48 - ncult .. 48) the cult places.  The listed buildings of kind
 * `kind` are build[*from .. *from + returned count). */
#define NBUILD ((int)(sizeof ((carc_game *)0)->build / sizeof ((carc_game *)0)->build[0]))
static int listed(const carc_game *g, int kind, int *from)
{
	*from = kind == 2 ? NBUILD - g->ncult : 0;
	return kind == 2 ? g->ncult : g->nbuild - g->ncult;
}

/* A building of the tile's kind may not stand next to two of the other
 * kind, nor next to one that already has one of the tile's kind next to
 * it (build[].nnear).  build_look says at once that neither can be the
 * case at (x, y), as it usually does; else the listed buildings of the
 * other kind whose rows reach y are looked at (build_rows, while that kind
 * has at most 32 listed; all of them otherwise).  The verdict does not
 * depend on the order they are looked at in. */
static __attribute__((noinline)) int cult_near_ok(const carc_game *g, int mine, int x, int y)
{
	int other = 3 - mine, from, seen = 0, n = listed(g, other, &from);
	if (n > 32) {
		for (int i = from; i < from + n; i++)
			if (near(x, y, g->build[i].x, g->build[i].y) && (g->build[i].nnear || seen++)) return 0;
		return 1;
	}
	for (uint32_t m = g->build_rows[other - 1][y & 15]; m; m &= m - 1) {
		int j = __builtin_ctz(m), i = other == 2 ? NBUILD - 1 - j : j;
		if (near(x, y, g->build[i].x, g->build[i].y) && (g->build[i].nnear || seen++)) return 0;
	}
	return 1;
}

/* The building at (x, y): as building(), 0 for an empty place. */
static int building_at(const carc_game *g, int x, int y)
{
	int c = carc_board_lookup(g, x, y);
	return c < 0 ? 0 : building(g->cells[c].type);
}

/* Buildings of `kind` on the eight places around (x, y). */
static int near_count(const carc_game *g, int x, int y, int kind)
{
	int n = 0;
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) n += (dx || dy) && building_at(g, x + dx, y + dy) == kind;
	return n;
}

/* Why a building of kind `mine` may not stand at the empty place (x, y),
 * read off the board (a carc_refusal): next to two of the other kind, or
 * next to one (its place in *ax, *ay) that has one of `mine` next to it
 * already; CARC_RF_NONE when it may.  Cult places are kind 2. */
static int board_why(const carc_game *g, int mine, int x, int y, int *ax, int *ay)
{
	int other = 3 - mine;
	if (near_count(g, x, y, other) > 1) return mine == 2 ? CARC_RF_CULT_TWO_CLOISTERS : CARC_RF_CLOISTER_TWO_CULTS;
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++)
			if ((dx || dy) && building_at(g, x + dx, y + dy) == other && near_count(g, x + dx, y + dy, mine)) {
				*ax = x + dx;
				*ay = y + dy;
				return mine == 2 ? CARC_RF_CLOISTER_HAS_CULT : CARC_RF_CULT_HAS_CLOISTER;
			}
	return CARC_RF_NONE;
}

/* cult_near_ok read off the board, for a game with more buildings than
 * build[] lists (g->build_full: only with tile orders that repeat
 * buildings, such as a game's `tiles`). */
static __attribute__((noinline)) int board_near_ok(const carc_game *g, int mine, int x, int y)
{
	int ax, ay;
	return board_why(g, mine, x, y, &ax, &ay) == CARC_RF_NONE;
}

static int near_ok(const carc_game *g, int mine, int x, int y)
{
	return g->build_full ? board_near_ok(g, mine, x, y) : cult_near_ok(g, mine, x, y);
}

/* Where build_look settles nothing: every place is asked. */
static const uint16_t look_all[16] = { 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
	                               0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff };

static const uint16_t *look_of(const carc_game *g, int kind)
{
	return g->build_full ? look_all : &g->build_look[16 * (kind - 1)]; /* 16 rows a kind */
}

static int cult_allowed(const carc_game *g, int type, int x, int y, int rot)
{
	(void)rot;
	int kind = building(type);
	if (!kind || !(look_of(g, kind)[(unsigned)y & 15] >> (x & 15) & 1)) return 1;
	return near_ok(g, kind, x, y);
}

/* placement_why: the rule's two conditions, read off the board. */
static int cult_why(const carc_game *g, int type, int x, int y, int rot, int *ax, int *ay)
{
	(void)rot;
	return building(type) ? board_why(g, building(type), x, y, ax, ay) : CARC_RF_NONE;
}

/* Bit 0: build_look does not settle the place of move m. */
static inline unsigned look_bit(const uint16_t *look, const carc_move *m)
{
	return (unsigned)look[m->y & 15] >> (m->x & 15);
}
/* The first of the moves [p, end) at a place that build_look does not
 * settle (end: none). */
static inline carc_move *unsettled(const uint16_t *look, carc_move *p, const carc_move *end)
{
	while (p + 1 < end && !((look_bit(look, p) | look_bit(look, p + 1)) & 1)) p += 2; /* two at a time */
	while (p < end && !(look_bit(look, p) & 1)) p++;
	return p;
}

/* cult_allowed over a listing: build_look settles most places with a bit,
 * so the moves are only read, and each place it does not settle is looked
 * at once for all its rotations (they are listed together).  The moves of
 * a refused place are cut out by moving the ones kept since down over
 * them.  No bit set for the tile's kind: every place is fine. */
static int cult_filter(const carc_game *g, int type, carc_move *moves, int n)
{
	int kind = building(type);
	if (!kind) return n;
	const uint16_t *look = look_of(g, kind);
	uint64_t rows[4];
	memcpy(rows, look, sizeof rows);
	if (!(rows[0] | rows[1] | rows[2] | rows[3])) return n;
	carc_move *p = moves, *end = moves + n, *to = moves, *from = moves; /* [from, p) kept, to go to `to` */
	while ((p = unsettled(look, p, end)) < end) {
		carc_move *at = p;
		int ok = near_ok(g, kind, at->x, at->y);
		do p++;
		while (p < end && p->x == at->x && p->y == at->y);
		if (ok) continue;
		if (to != from) memmove(to, from, (size_t)(at - from) * sizeof *to);
		to += at - from;
		from = p;
	}
	if (to != from) memmove(to, from, (size_t)(end - from) * sizeof *to);
	return (int)(to - moves + (end - from));
}

/* A cloister or cult place with a follower has been scored: the
 * followers on an incomplete neighbour of the other kind go home. */
static __attribute__((noinline)) void cult_challenge(carc_game *g, const carc_node *r, carc_sink *out)
{
	const carc_cell *c = &g->cells[r->cell];
	int other = 3 - building(c->type);
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			int n = carc_board_lookup(g, c->x + dx, c->y + dy);
			if ((!dx && !dy) || n < 0 || building(g->cells[n].type) != other) continue;
			int their = g->cells[n].node0 + carc_cell_type(g, n)->cloister;
			if (g->nodes[their].done) continue; /* completed this turn too: it scores */
			CARC_FIGS_IN(g, on_board, i)
				if (g->figs[i].node == their) carc_return_figure(g, (int)i, CARC_WHY_CHALLENGE, out);
		}
}

static void cult_scored(carc_game *g, int root, carc_sink *out)
{
	const carc_node *r = &g->nodes[root];
	if (r->kind == CARC_F_CLOISTER) cult_challenge(g, r, out); /* with a follower: it was scored */
}

/* Marks the 3x3 square around (x, y) for a listed building of kind b,
 * the j-th of its kind: build_zone, build_look where another building of
 * that kind was already marked, or everywhere if `near_other` (it has a
 * building of the other kind next to it), and build_rows. */
static void mark_square(carc_game *g, int b, int j, int x, int y, int near_other)
{
	unsigned cols = 7u << ((x - 1) & 15), rowbit = j < 32 ? 1u << j : 0, all = near_other ? 0xffff : 0;
	cols = (cols | cols >> 16) & 0xffff; /* columns x - 1, x, x + 1 (mod 16) */
	for (int dy = -1; dy <= 1; dy++) {
		int r = (y + dy) & 15;
		g->build_look[16 * (2 - b) + r] |= (uint16_t)((g->build_zone[b - 1][r] | all) & cols);
		g->build_zone[b - 1][r] |= (uint16_t)cols;
		g->build_rows[b - 1][r] |= rowbit;
	}
}

/* The same for a listed building that has just got its first building of
 * the other kind next to it. */
static void mark_near(carc_game *g, int b, int x, int y)
{
	unsigned cols = 7u << ((x - 1) & 15);
	cols = (cols | cols >> 16) & 0xffff;
	for (int dy = -1; dy <= 1; dy++) g->build_look[16 * (2 - b) + ((y + dy) & 15)] |= (uint16_t)cols;
}

/* A new building is listed with the count of listed buildings of the other
 * kind around it, each of those counts it in turn, and its 3x3 square is
 * marked in build_zone, build_look and (its rows) build_rows. */
static __attribute__((noinline)) void cult_list(carc_game *g, int b, int x, int y)
{
	int other = 3 - b, from, nnear = 0, n = listed(g, other, &from);
	if (g->build_zone[other - 1][y & 15] >> (x & 15) & 1) { /* one of the other kind may be near */
		/* those whose rows reach y, or all of that kind past 32 */
		uint64_t look = n <= 32 ? g->build_rows[other - 1][y & 15] : (1ull << n) - 1;
		for (; look; look &= look - 1) {
			int j = __builtin_ctzll(look), i = other == 2 ? NBUILD - 1 - j : from + j;
			if (near(x, y, g->build[i].x, g->build[i].y)) {
				if (!g->build[i].nnear++) mark_near(g, other, g->build[i].x, g->build[i].y);
				nnear++;
			}
		}
	}
	int j = b == 2 ? g->ncult : g->nbuild - g->ncult; /* its place among its kind */
	int slot = b == 2 ? NBUILD - 1 - j : j;
	g->build[slot] = (__typeof__(g->build[0])){ (int16_t)x, (int16_t)y, (uint8_t)b, (uint8_t)nnear };
	g->nbuild++;
	g->ncult += b == 2;
	mark_square(g, b, j, x, y, nnear);
}

/* Asked only about buildings (placed_tiles). */
static void cult_placed(carc_game *g, int cell, carc_sink *out)
{
	(void)out;
	int b = building(g->cells[cell].type);
	if (!b) return;
	if (g->nbuild < NBUILD) cult_list(g, b, g->cells[cell].x, g->cells[cell].y);
	else g->build_full = 1;
}

const carc_ext carc_ext_cult = {
	.tile_placed = cult_placed,
	.placed_tiles = CARC_TT_BUILDING,
	.name = "cult",
	.placement_allowed = cult_allowed,
	.placement_why = cult_why,
	.placement_tiles = CARC_PT_BUILDING,
	.filter_placements = cult_filter,
	.placement_any_rot = 1,
	.feature_scored = cult_scored,
};

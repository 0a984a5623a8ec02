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
 *
 * The placement rule is asked for every place and turn of every river
 * tile drawn, so it works from state kept as the game goes
 * (game_int.h): where the river tiles end in the supply (river_end, set
 * once by river_order), and, updated by river_placed after each
 * placement, the open river ends with the edges around them
 * (river_open) and the box of the placed tiles (river_box).
 */
#include <string.h>

#include "ext_int.h"

/* Edges of the unturned tile that carry the river (bit d: edge d). */
static inline unsigned river_edges(int type) { return carc_tiletypes[type].river; }

/* The same edges with the tile turned `rot` quarter turns clockwise. */
static inline unsigned river_turned(int type, int rot)
{
	unsigned e = river_edges(type);
	return (e << rot | e >> (4 - rot)) & 0xf;
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

/* One pass: land tiles slide down in place, river tiles are set aside and
 * then put in front by rank.  Records where the river tiles end
 * (g->river_end), so the rules below need not read the land tiles. */
static void river_order(carc_game *g)
{
	uint16_t river[CARC_MAX_TILES];
	int nriver = 0, nland = 0;
	for (int i = 0; i < g->nsupply; i++) {
		uint16_t t = g->supply[i];
		if (river_edges(t)) river[nriver++] = t;
		else g->supply[nland++] = t;
	}
	memmove(&g->supply[nriver], g->supply, (size_t)nland * sizeof g->supply[0]);
	int n = 0;
	for (int rank = 0; rank < 3; rank++)
		for (int i = 0; i < nriver; i++)
			if (river_rank(river[i]) == rank) g->supply[n++] = river[i];
	g->river_end = (uint16_t)nriver;
}

/* The river tiles still to draw lie in supply[lo[0]..hi[0]) and
 * supply[lo[1]..hi[1]), among land tiles.  Those not put back lie before
 * g->river_end: river_order put them there, and afterwards only carc_draw
 * moves supply entries, and only down (it takes a tile that fits nowhere
 * out of the middle and puts it back at the bottom, flagged 0x8000, once).
 * Those put back are flagged, and the flagged entries are always a run at
 * the bottom of the supply.  Without river_order (a given tile order)
 * river_end is 0 and the whole supply is read. */
typedef struct rivers {
	int lo[2], hi[2];
} rivers;

static rivers rivers_left(const carc_game *g)
{
	rivers r;
	int end = g->river_end && g->river_end < g->nsupply ? g->river_end : g->nsupply;
	r.lo[0] = g->next;
	r.hi[0] = end > g->next ? end : g->next;
	int j = g->nsupply;
	while (j > r.hi[0] && g->supply[j - 1] & 0x8000) j--;
	r.lo[1] = j;
	r.hi[1] = g->nsupply;
	return r;
}

static int any_river(const carc_game *g, const rivers *r)
{
	for (int k = 0; k < 2; k++)
		for (int i = r->lo[k]; i < r->hi[k]; i++)
			if (river_edges(g->supply[i] & 0x7fff)) return 1;
	return 0;
}

static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };

/* The board as it would be with one more tile on it. */
typedef struct vboard {
	const carc_game *g;
	int x, y, type, rot;
} vboard;

/* Outside the box of the placed tiles nothing needs looking up. */
static inline int occupied(const vboard *v, int x, int y)
{
	const int16_t *box = v->g->river_box;
	if (x == v->x && y == v->y) return 1;
	if (x < box[0] || y < box[1] || x > box[2] || y > box[3]) return 0;
	return carc_board_lookup(v->g, x, y) >= 0;
}

/* Are the two places ahead of (x, y) in direction d and their side
 * neighbours empty?  Then no river tile placed later can be boxed in by
 * a river end there.  Those six places make a rectangle; when it misses
 * the box of the placed tiles, only the new tile can be in it. */
static int room_toward(const vboard *v, int x, int y, int d)
{
	/* the rectangle from (x, y): least x and y, greatest x and y */
	static const int8_t rect[4][4] = { { -1, -2, 1, -1 }, { 1, -1, 2, 1 }, { -1, 1, 1, 2 }, { -2, -1, -1, 1 } };
	int lx = x + rect[d][0], ly = y + rect[d][1], hx = x + rect[d][2], hy = y + rect[d][3];
	if (v->x >= lx && v->x <= hx && v->y >= ly && v->y <= hy) return 0;
	const int16_t *box = v->g->river_box;
	if (hx < box[0] || lx > box[2] || hy < box[1] || ly > box[3]) return 1;
	int p = (d + 1) & 3; /* across the flow */
	for (int ahead = 1; ahead <= 2; ahead++)
		for (int side = -1; side <= 1; side++)
			if (occupied(v, x + ahead * dx[d] + side * dx[p], y + ahead * dy[d] + side * dy[p])) return 0;
	return 1;
}

/* Directions (bit d) in which a frontier place has a placed neighbour:
 * its mask bytes are 0 or 0xff, and the product gathers their low bits
 * (bit 8d lands on bit 21 + d, no two terms meet). */
static inline unsigned taken_sides(const carc_front *f)
{
	return ((f->mask & 0x01010101u) * 0x00204081u) >> 21 & 0xf;
}

/* Can a river tile still to draw continue the river at the empty place
 * f->x, f->y, whose placed neighbours (the new tile among them) show the
 * edges f->want, f->mask?  Its own open ends must leave room ahead; the
 * room toward each direction is worked out once a call. */
static int continuable(const vboard *v, const carc_front *f, const rivers *r)
{
	const carc_game *g = v->g;
	unsigned taken = taken_sides(f);
	unsigned known = 0, room = 0; /* bit d: room toward d worked out / found */
	for (int k = 0; k < 2; k++)
		for (int i = r->lo[k]; i < r->hi[k]; i++) {
			int t = g->supply[i] & 0x7fff;
			if (!river_edges(t)) continue;
			for (unsigned fits = carc_fit_mask(carc_codes(t), f); fits; fits &= fits - 1) {
				unsigned open = river_turned(t, __builtin_ctz(fits)) & ~taken;
				for (unsigned ask = open & ~known; ask; ask &= ask - 1) {
					int d = __builtin_ctz(ask);
					known |= 1u << d;
					if (room_toward(v, f->x, f->y, d)) room |= 1u << d;
					else break;
				}
				if ((open & room) == open) return 1;
			}
		}
	return 0;
}

/* Does the frontier place show a river edge of a placed neighbour?
 * (want bytes equal to CARC_EK_RIVER on a side whose mask byte is set.) */
static inline int shows_river(const carc_front *f)
{
	uint32_t z = (f->want ^ 0x01010101u * CARC_EK_RIVER) | ~f->mask; /* a zero byte: river there */
	return ((z - 0x01010101u) & ~z & 0x80808080u) != 0;
}

/* An open end of the other branch, as it is with the new tile placed:
 * continuable there? */
static int other_end_ok(const vboard *v, const carc_front *f, const rivers *r)
{
	carc_front end = *f;
	uint32_t code = carc_tiletypes[v->type].edge_code[v->rot];
	for (int d = 0; d < 4; d++) /* the new tile, if it is a neighbour */
		if (f->x + dx[d] == v->x && f->y + dy[d] == v->y) {
			int o = (d + 2) & 3;
			end.want |= (code >> (8 * o) & 0xff) << (8 * d);
			end.mask |= 0xffu << (8 * d);
		}
	return continuable(v, &end, r);
}

/* river_allowed past its first test: `here` is the listed open end the
 * tile is placed on, NULL when the list overflowed. */
static __attribute__((noinline)) int river_continues(const carc_game *g, int type, int x, int y, int rot,
                                                     const carc_front *here)
{
	vboard v = { g, x, y, type, rot };
	unsigned e = river_turned(type, rot), open;
	const int listed = here != NULL;
	if (listed) {
		open = e & ~taken_sides(here);
	} else {
		open = 0;
		for (unsigned b = e; b; b &= b - 1) {
			int d = __builtin_ctz(b);
			if (!occupied(&v, x + dx[d], y + dy[d])) open |= 1u << d;
		}
		if (open == e) return 0; /* it must continue the river */
	}
	for (unsigned b = open; b; b &= b - 1)
		if (!room_toward(&v, x, y, __builtin_ctz(b))) return 0;
	rivers r = rivers_left(g);
	if (!any_river(g, &r)) return 1;
	/* Every open end of the river afterwards, this tile's and the other
	 * branch's, must be one that a river tile still to come can continue
	 * (RULES.md 4.20: no placement that boxes in a later river tile). */
	int ends = 0;
	for (unsigned b = open; b; b &= b - 1) {
		/* The room ahead found the end's other three neighbours empty:
		 * it shows only this tile's river. */
		int d = __builtin_ctz(b), o = (d + 2) & 3;
		carc_front end = { (int16_t)(x + dx[d]), (int16_t)(y + dy[d]), (uint32_t)CARC_EK_RIVER << (8 * o),
		                   0xffu << (8 * o) };
		if (!continuable(&v, &end, &r)) return 0;
		ends++;
	}
	if (listed) {
		for (int i = 0; i < g->nriver_open; i++) {
			const carc_front *f = &g->river_open[i];
			if (f == here) continue;
			if (!other_end_ok(&v, f, &r)) return 0;
			ends++;
		}
	} else {
		for (int i = 0; i < g->nfront; i++) {
			const carc_front *f = &g->front[i];
			if (!shows_river(f) || (f->x == x && f->y == y)) continue;
			if (!other_end_ok(&v, f, &r)) return 0;
			ends++;
		}
	}
	return ends > 0; /* river tiles are still to come: the river may not end yet */
}

static int river_allowed(const carc_game *g, int type, int x, int y, int rot)
{
	const carc_front *here = NULL;
	if (g->nriver_open != 0xff) {
		/* Edges match (the hook's contract), so a river edge of the tile
		 * meets a tile exactly where the place shows a river. */
		for (int i = 0; i < g->nriver_open && !here; i++)
			if (g->river_open[i].x == x && g->river_open[i].y == y) here = &g->river_open[i];
		if (!here) return 0; /* it must continue the river */
	}
	return river_continues(g, type, x, y, rot, here);
}

/* After every placement, the start tiles' too: the box of the placed
 * tiles and the list of open river ends (g->river_open, the places of
 * g->front that show a river, with the same want and mask) follow the
 * board.  More than the list holds never happens with the sets in scope;
 * then nriver_open stays 0xff and river_allowed reads g->front. */
static void river_placed(carc_game *g, int cell, carc_sink *out)
{
	(void)out;
	const carc_cell *c = &g->cells[cell];
	int x = c->x, y = c->y;
	int16_t *box = g->river_box;
	if (g->ncells == 1) {
		box[0] = box[2] = (int16_t)x;
		box[1] = box[3] = (int16_t)y;
	} else {
		if (x < box[0]) box[0] = (int16_t)x;
		if (y < box[1]) box[1] = (int16_t)y;
		if (x > box[2]) box[2] = (int16_t)x;
		if (y > box[3]) box[3] = (int16_t)y;
	}
	int n = g->nriver_open;
	unsigned river = river_turned(c->type, c->rot);
	if (n == 0xff || (n == 0 && !river)) return;
	uint32_t code = carc_tiletypes[c->type].edge_code[c->rot];
	/* The place is taken; the ends next to it see its edges. */
	for (int i = 0; i < n;) {
		carc_front *f = &g->river_open[i];
		if (f->x == x && f->y == y) {
			*f = g->river_open[--n];
			continue;
		}
		for (int d = 0; d < 4; d++)
			if (f->x + dx[d] == x && f->y + dy[d] == y) {
				int o = (d + 2) & 3;
				f->want |= (code >> (8 * o) & 0xff) << (8 * d);
				f->mask |= 0xffu << (8 * d);
			}
		i++;
	}
	/* Its river edges that face an empty place not yet listed. */
	for (unsigned b = river; b; b &= b - 1) {
		int d = __builtin_ctz(b), px = x + dx[d], py = y + dy[d], i;
		if (carc_board_lookup(g, px, py) >= 0) continue;
		for (i = 0; i < n; i++)
			if (g->river_open[i].x == px && g->river_open[i].y == py) break;
		if (i < n) continue;
		if (n == (int)(sizeof g->river_open / sizeof g->river_open[0])) {
			g->nriver_open = 0xff;
			return;
		}
		carc_front f = { (int16_t)px, (int16_t)py, 0, 0 };
		for (int d2 = 0; d2 < 4; d2++) {
			int nb = carc_board_lookup(g, px + dx[d2], py + dy[d2]);
			if (nb < 0) continue;
			int o = (d2 + 2) & 3;
			f.want |= (carc_tiletypes[g->cells[nb].type].edge_code[g->cells[nb].rot] >> (8 * o) & 0xff) << (8 * d2);
			f.mask |= 0xffu << (8 * d2);
		}
		g->river_open[n++] = f;
	}
	g->nriver_open = (uint8_t)n;
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
	.tile_placed = river_placed,
	.deploy_allowed = river_deploy_allowed,
	.extra_turn = river_extra_turn,
};

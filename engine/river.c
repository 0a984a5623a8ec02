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
	unsigned two = e & (e - 1); /* e less its lowest edge */
	return two & (two - 1) ? 0 : 1; /* three or four river edges: a fork */
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

/* The six places ahead of (x, y) toward d, the two ahead and their side
 * neighbours, make a rectangle: least x and y, greatest x and y, from
 * (x, y). */
static const int8_t rect[4][4] = { { -1, -2, 1, -1 }, { 1, -1, 2, 1 }, { -1, 1, 1, 2 }, { -2, -1, -1, 1 } };

/* Directions (bit d) whose rectangle from a place holds the place (rx, ry)
 * away from it. */
static unsigned rect_hits(int rx, int ry)
{
	unsigned hits = 0;
	for (int d = 0; d < 4; d++)
		if (rx >= rect[d][0] && rx <= rect[d][2] && ry >= rect[d][1] && ry <= rect[d][3]) hits |= 1u << d;
	return hits;
}

/* Are the six places ahead of (x, y) toward d empty on the board as it
 * is?  Then no river tile placed later can be boxed in by a river end
 * there.  When the rectangle misses the box of the placed tiles, they
 * are. */
static int room_now(const carc_game *g, int x, int y, int d)
{
	int lx = x + rect[d][0], ly = y + rect[d][1], hx = x + rect[d][2], hy = y + rect[d][3];
	const int16_t *box = g->river_box;
	if (hx < box[0] || lx > box[2] || hy < box[1] || ly > box[3]) return 1;
	for (int py = ly; py <= hy; py++)
		for (int px = lx; px <= hx; px++)
			if (px >= box[0] && px <= box[2] && py >= box[1] && py <= box[3] && carc_board_lookup(g, px, py) >= 0)
				return 0;
	return 1;
}

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

/* room_now with the new tile on the board too. */
static int room_toward(const vboard *v, int x, int y, int d)
{
	if (rect_hits(v->x - x, v->y - y) >> d & 1) return 0;
	return room_now(v->g, x, y, d);
}

/* Directions (bit d) in which a frontier place has a placed neighbour:
 * its mask bytes are 0 or 0xff, and the product gathers their low bits
 * (bit 8d lands on bit 21 + d, no two terms meet). */
static inline unsigned taken_sides(const carc_front *f)
{
	return ((f->mask & 0x01010101u) * 0x00204081u) >> 21 & 0xf;
}

/* A river tile with one river edge (a lake, the river end in a city):
 * turned to the river of any place that shows a river on one side only,
 * it fits there and leaves no open end, so such a place can always be
 * continued while one is still to come. */
static inline int dead_end(unsigned edges) { return edges && !(edges & (edges - 1)); }

/* Can a river tile still to draw continue the river at the empty place
 * f->x, f->y, whose placed neighbours (the new tile among them) show the
 * edges f->want, f->mask?  Its own open ends must leave room ahead; the
 * room toward each direction is worked out once a call (bit d of `known`:
 * worked out already, of `room`: found). */
static int continuable(const vboard *v, const carc_front *f, const rivers *r, unsigned known, unsigned room)
{
	const carc_game *g = v->g;
	unsigned taken = taken_sides(f);
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
 * continuable there?  `known` and `room` as for continuable. */
static int other_end_ok(const vboard *v, const carc_front *f, const rivers *r, unsigned known, unsigned room)
{
	carc_front end = *f;
	uint32_t code = carc_tiletypes[v->type].edge_code[v->rot];
	for (int d = 0; d < 4; d++) /* the new tile, if it is a neighbour */
		if (f->x + dx[d] == v->x && f->y + dy[d] == v->y) {
			int o = (d + 2) & 3;
			end.want |= (code >> (8 * o) & 0xff) << (8 * d);
			end.mask |= 0xffu << (8 * d);
		}
	return continuable(v, &end, r, known, room);
}

/* The end of the new tile's river toward d: the room ahead found its
 * other three neighbours empty, so it shows only this tile's river. */
static inline carc_front new_end(int x, int y, int d)
{
	int o = (d + 2) & 3;
	return (carc_front){ (int16_t)(x + dx[d]), (int16_t)(y + dy[d]), (uint32_t)CARC_EK_RIVER << (8 * o), 0xffu << (8 * o) };
}

/* river_allowed when the list of open ends overflowed: the same rule,
 * worked out from the board and g->front. */
static __attribute__((noinline)) int river_unlisted(const carc_game *g, int type, int x, int y, int rot)
{
	vboard v = { g, x, y, type, rot };
	unsigned e = river_turned(type, rot), open = 0;
	for (unsigned b = e; b; b &= b - 1) {
		int d = __builtin_ctz(b);
		if (!occupied(&v, x + dx[d], y + dy[d])) open |= 1u << d;
	}
	if (open == e) return 0; /* it must continue the river */
	for (unsigned b = open; b; b &= b - 1)
		if (!room_toward(&v, x, y, __builtin_ctz(b))) return 0;
	rivers r = rivers_left(g);
	if (!any_river(g, &r)) return 1;
	int ends = 0;
	for (unsigned b = open; b; b &= b - 1) {
		carc_front end = new_end(x, y, __builtin_ctz(b));
		if (!continuable(&v, &end, &r, 0, 0)) return 0;
		ends++;
	}
	for (int i = 0; i < g->nfront; i++) {
		const carc_front *f = &g->front[i];
		if (!shows_river(f) || (f->x == x && f->y == y)) continue;
		if (!other_end_ok(&v, f, &r, 0, 0)) return 0;
		ends++;
	}
	return ends > 0; /* river tiles are still to come: the river may not end yet */
}

/* river_allowed for the tile placed on the listed open end `i`.  The
 * room ahead of the open ends is kept in g->river_room (the new tile
 * never lies in the rectangles of its own place); the river tiles still
 * to come are counted (river_placed), so a dead end among them settles
 * most ends at once; the rest is worked out as in continuable. */
static __attribute__((noinline)) int river_at_end(const carc_game *g, int type, int rot, int i)
{
	const carc_front *here = &g->river_open[i];
	int x = here->x, y = here->y, n = g->nriver_open;
	unsigned open = river_turned(type, rot) & ~taken_sides(here);
	if (open & ~g->river_room[i]) return 0;
	/* The river tiles still to draw: those counted at the last placement
	 * less those drawn (or hidden) since.  The entries from river_next on
	 * are only ever reordered among themselves (carc_draw puts a tile back
	 * from next - 1 >= river_next to the bottom), so those still to draw
	 * are the counted ones less those now before g->next. */
	int left = g->river_left, dead = g->river_dead;
	for (int k = g->river_next; k < g->next; k++) {
		unsigned e = river_edges(g->supply[k] & 0x7fff);
		left -= e != 0;
		dead -= dead_end(e);
	}
	if (!left) return 1;
	/* Every open end of the river afterwards, this tile's and the other
	 * branch's, must be one that a river tile still to come can continue
	 * (RULES.md 4.20: no placement that boxes in a later river tile); and
	 * while river tiles are to come, the river may not end. */
	if (!open && n == 1) return 0;
	vboard v = { g, x, y, type, rot };
	rivers r;
	int have_r = 0;
	if (!dead)
		for (unsigned b = open; b; b &= b - 1) {
			if (!have_r) r = rivers_left(g), have_r = 1;
			carc_front end = new_end(x, y, __builtin_ctz(b));
			if (!continuable(&v, &end, &r, 0, 0)) return 0;
		}
	for (int j = 0; j < n; j++) {
		if (j == i) continue;
		const carc_front *f = &g->river_open[j];
		int rx = x - f->x, ry = y - f->y, ax = rx < 0 ? -rx : rx, ay = ry < 0 ? -ry : ry;
		unsigned taken = taken_sides(f);
		if (dead && ax + ay != 1 && !(taken & (taken - 1))) continue; /* it shows one river, as before */
		if (!have_r) r = rivers_left(g), have_r = 1;
		unsigned room = g->river_room[j] & ~(ax <= 2 && ay <= 2 ? rect_hits(rx, ry) : 0);
		if (!other_end_ok(&v, f, &r, 0xf, room)) return 0;
	}
	return 1;
}

static int river_allowed(const carc_game *g, int type, int x, int y, int rot)
{
	int n = g->nriver_open;
	if (n == 0xff) return river_unlisted(g, type, x, y, rot);
	/* Edges match (the hook's contract), so a river edge of the tile
	 * meets a tile exactly where the place shows a river. */
	for (int i = 0; i < n; i++)
		if (g->river_open[i].x == x && g->river_open[i].y == y) return river_at_end(g, type, rot, i);
	return 0; /* it must continue the river */
}

/* The edges the placed neighbours of the empty place (px, py) show. */
static carc_front front_at(const carc_game *g, int px, int py)
{
	carc_front f = { (int16_t)px, (int16_t)py, 0, 0 };
	for (int d = 0; d < 4; d++) {
		int nb = carc_board_lookup(g, px + dx[d], py + dy[d]);
		if (nb < 0) continue;
		int o = (d + 2) & 3;
		f.want |= (carc_tiletypes[g->cells[nb].type].edge_code[g->cells[nb].rot] >> (8 * o) & 0xff) << (8 * d);
		f.mask |= 0xffu << (8 * d);
	}
	return f;
}

/* After every placement, the start tiles' too, until the river is closed:
 * the box of the placed tiles, the count of river tiles still to draw,
 * the last volcano lake, and the list of open river ends (g->river_open,
 * the places of g->front that show a river, with the same want and mask)
 * with the room ahead of each (g->river_room) follow the board.  More
 * than the list holds never happens with the sets in scope; then
 * nriver_open stays 0xff and river_allowed reads g->front. */
static void river_placed(carc_game *g, int cell, carc_sink *out)
{
	(void)out;
	if (g->river_closed) return;
	const carc_cell *c = &g->cells[cell];
	int x = c->x, y = c->y;
	unsigned sym = carc_tiletypes[c->type].symbols;
	if ((sym & CARC_SYM_LAKE) && (sym & CARC_SYM_VOLCANO)) g->river_lake = (uint16_t)(cell + 1);
	int16_t *box = g->river_box;
	if (g->ncells == 1) { /* the first start tile: the supply is complete, nothing drawn */
		box[0] = box[2] = (int16_t)x;
		box[1] = box[3] = (int16_t)y;
		int end = g->river_end ? g->river_end : g->nsupply, left = 0, dead = 0;
		for (int i = g->next; i < end; i++) {
			unsigned e = river_edges(g->supply[i] & 0x7fff);
			left += e != 0;
			dead += dead_end(e);
		}
		g->river_next = g->next;
		g->river_left = (uint16_t)left;
		g->river_dead = (uint16_t)dead;
	} else {
		if (x < box[0]) box[0] = (int16_t)x;
		if (y < box[1]) box[1] = (int16_t)y;
		if (x > box[2]) box[2] = (int16_t)x;
		if (y > box[3]) box[3] = (int16_t)y;
	}
	for (; g->river_next < g->next; g->river_next++) { /* drawn or hidden since */
		unsigned e = river_edges(g->supply[g->river_next] & 0x7fff);
		g->river_left -= e != 0;
		g->river_dead -= dead_end(e);
	}
	int n = g->nriver_open;
	unsigned river = river_turned(c->type, c->rot);
	if (g->turn && (!n || !g->river_left)) { /* in play, not between start tiles */
		g->river_closed = 1;
		return;
	}
	if (n == 0xff) return;
	uint32_t code = carc_tiletypes[c->type].edge_code[c->rot];
	/* The place is taken; the ends next to it see its edges, and those
	 * it is ahead of lose the room that way. */
	for (int i = 0; i < n;) {
		carc_front *f = &g->river_open[i];
		int rx = x - f->x, ry = y - f->y;
		if (!rx && !ry) {
			*f = g->river_open[--n];
			g->river_room[i] = g->river_room[n];
			continue;
		}
		if (rx >= -2 && rx <= 2 && ry >= -2 && ry <= 2) {
			g->river_room[i] &= (uint8_t)~rect_hits(rx, ry);
			for (int d = 0; d < 4; d++)
				if (rx == dx[d] && ry == dy[d]) {
					int o = (d + 2) & 3;
					f->want |= (code >> (8 * o) & 0xff) << (8 * d);
					f->mask |= 0xffu << (8 * d);
				}
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
		carc_front f = front_at(g, px, py);
		unsigned room = 0;
		for (unsigned ask = ~taken_sides(&f) & 0xf; ask; ask &= ask - 1)
			if (room_now(g, px, py, __builtin_ctz(ask))) room |= 1u << __builtin_ctz(ask);
		g->river_room[n] = (uint8_t)room;
		g->river_open[n++] = f;
	}
	g->nriver_open = (uint8_t)n;
	if (!n) g->river_closed = g->turn != 0;
}

/* The volcano lake (no figure on it, another turn for its placer) is
 * the tile just placed whenever these are asked: river_placed notes the
 * last one placed (lakes are river tiles, so none comes after the river
 * is closed). */
static int river_deploy_allowed(const carc_game *g, int cell) { return cell + 1 != g->river_lake; }

static int river_extra_turn(carc_game *g)
{
	return g->last != CARC_NONE && g->last + 1 == g->river_lake && g->cfg.rules[CARC_R_VOLCANO_LAKE_EXTRA_TURN];
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

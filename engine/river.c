/*
 * river.c - the River, River II and the mini expansion's river tiles
 * (RULES.md 2.2-2.4 and 4.20).
 *
 * The spring starts the game (game.c picks it as the standard start and
 * leaves the base start tile out).  Here: the river tiles are drawn before
 * all others, a fork first and the lake last; a river tile must continue
 * the river, and every river end it leaves open must have the two places
 * ahead of it and their side neighbours empty, so the river cannot turn
 * back on itself or meet its other branch.  That guard alone can still box
 * in a later river tile, which RULES.md forbids: so where some placement
 * of the drawn tile leaves the river a free end (an end from which any
 * river tile still to come has a place, see end_free), only those are
 * allowed (a free end reaches as far as the tiles still to come can).
 * Should the look ahead refuse every place the guard allows (a given
 * tile order with no dead end to come, or start tiles that wall in a
 * branch), the tile may go where the guard allows and every river tile
 * still to come keeps an end it continues (guard_mask): refused
 * everywhere, it would be lost for nothing.  Once an end is left that no
 * tile continues, the look ahead refuses every later place too, and the
 * rest of the river goes by that weaker rule.  The fallback and the free
 * end are chosen among the places the other judges of the tile allow too
 * (the cult places' rule, for a river tile with a cloister: allow_mask;
 * past the list of open ends, a caller's order or start tiles with more
 * than 12 of them, unlisted_mask does the same from the board).
 * Under `unplaceable_tile` reshuffle a river tile put back in a dealt
 * supply goes under the river tiles still to come, before the lake
 * (river_put_back), and counts with them; put back when no other river
 * tile was left, or in a caller's order (which the caller orders), it
 * goes to the bottom of the supply, and while it still fits nowhere it is
 * not counted: no placement now is what keeps it out.  The volcano lake
 * takes no figure and gives its placer another turn.
 *
 * The placement rule is asked for every place and turn of every river
 * tile drawn, so it works from state kept as the game goes (game_int.h):
 * where the river tiles end in the supply (river_end, set once by
 * river_order), and, updated by river_placed after each placement until
 * the river is closed: the open river ends with the edges around them and
 * what is known about each (river_open, river_room, river_alone, and
 * river_near to turn every other place away at once), the river tiles
 * still to draw (river_left, river_dead, river_forks, river_curves, and
 * after the next draw river_left1, river_dead1, river_shapes1), the placed
 * tiles near the start (river_occ), the box they all lie in (river_box)
 * and the last volcano lake (river_lake).  Once the river has no open end
 * or no river tile is left to draw, no river tile can be placed any more,
 * and every hook is one compare.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ext_int.h"

extern const carc_ext carc_ext_river;

/* Edges of the unturned tile that carry the river (bit d: edge d). */
static inline unsigned river_edges(int type) { return carc_tile_river[type] & 0xf; }

/* The same edges with the tile turned `rot` quarter turns clockwise. */
static inline unsigned river_turned(int type, int rot) { return carc_tile_river[type] >> (4 * rot) & 0xf; }

/* A river tile with one river edge (a lake, the river end in a city):
 * turned to the river of any place that shows a river on one side only,
 * it fits there and leaves no open end, so such a place can always be
 * continued while one is still to come. */
static inline int dead_end(unsigned edges) { return edges && !(edges & (edges - 1)); }

/* River edges of a fork (three or more) and of a curve (two, not
 * opposite): bit `edges` of these. */
#define FORK_EDGES 0xe880u
#define CURVE_EDGES 0x1248u

/* Where the deal puts a river tile: 0 a fork, 1 the others, 2 a lake. */
static inline int river_rank(int type)
{
	unsigned e = river_edges(type), two = e & (e - 1); /* e less its lowest edge */
	return carc_tiletypes[type].symbols & CARC_SYM_LAKE ? 2 : two & (two - 1) ? 0 : 1;
}

int carc_tile_deal_rank(int type)
{
	if (type < 0 || type >= carc_ntiletypes) return -1;
	return carc_tile_river[type] ? river_rank(type) : 3;
}

/* River tiles first (a fork before the rest, lakes last), land after;
 * within each group the shuffled order stays.  A pass over the supply
 * without a branch a tile (river tiles are few and shuffled among the
 * rest): land tiles slide down in place and river tiles are set aside;
 * then the river tiles are sorted by rank (0 forks, 1 the others, 2
 * lakes) and put in front.  Records where the river tiles end
 * (g->river_end), so the rules below need not read the land tiles. */
static void river_order(carc_game *g)
{
	/* all: the river tiles in supply order (zeroed so that no static analyser
	 * reads its branch-free writes as a read of unset entries) */
	uint16_t all[CARC_MAX_TILES] = { 0 }, river[3][CARC_MAX_TILES];
	int nall = 0, nrank[3] = { 0, 0, 0 }, nland = 0, dead = 0, curves = 0;
	for (int i = 0; i < g->nsupply; i++) {
		uint16_t t = g->supply[i];
		int is = carc_tile_river[t] != 0;
		g->supply[nland] = t; /* nland <= i: read already */
		all[nall] = t;
		nland += !is;
		nall += is;
	}
	for (int i = 0; i < nall; i++) {
		uint16_t t = all[i];
		unsigned e = river_edges(t), two = e & (e - 1); /* e less its lowest edge */
		int rank = river_rank(t);
		river[rank][nrank[rank]++] = t;
		dead += !two;
		curves += CURVE_EDGES >> e & 1;
	}
	int nriver = nrank[0] + nrank[1] + nrank[2];
	memmove(&g->supply[nriver], g->supply, (size_t)nland * sizeof g->supply[0]);
	memcpy(g->supply, river[0], (size_t)nrank[0] * sizeof g->supply[0]);
	memcpy(g->supply + nrank[0], river[1], (size_t)nrank[1] * sizeof g->supply[0]);
	memcpy(g->supply + nrank[0] + nrank[1], river[2], (size_t)nrank[2] * sizeof g->supply[0]);
	g->river_end = (uint16_t)nriver;
	g->river_left = (uint16_t)nriver; /* for river_start */
	g->river_dead = (uint16_t)dead;
	g->river_forks = (uint8_t)nrank[0];
	g->river_curves = (uint8_t)curves;
}

/* The river tiles still to draw lie in supply[lo[0]..hi[0]) and
 * supply[lo[1]..hi[1]), among land tiles.  Those river_order put there
 * lie before g->river_end, and afterwards only carc_draw moves supply
 * entries: a tile that fits nowhere goes back once, flagged CARC_PUT_BACK, to
 * where river_put_back says: among the river tiles still to come (in a
 * dealt supply, before river_end), or, when no other river tile is still
 * to come or the order is the caller's, to the bottom, where the flagged
 * entries are a run.  Without
 * river_order (a given tile order) river_end is 0 and the whole supply is
 * read. */
typedef struct rivers {
	int lo[2], hi[2];
} rivers;

/* Where the run of entries put back at the bottom of the supply begins
 * (nsupply when none lies there), not below `floor`. */
static inline int bottom_run(const carc_game *g, int floor)
{
	int j = g->nsupply;
	while (j > floor && g->supply[j - 1] & CARC_PUT_BACK) j--;
	return j;
}

static rivers rivers_left(const carc_game *g)
{
	rivers r;
	int end = g->river_end && g->river_end < g->nsupply ? g->river_end : g->nsupply;
	r.lo[0] = g->next;
	r.hi[0] = end > g->next ? end : g->next;
	r.lo[1] = bottom_run(g, r.hi[0]);
	r.hi[1] = g->nsupply;
	return r;
}

/* Is a tile put back under the supply (`unplaceable_tile` reshuffle) at
 * the bottom now?  Then river_at_end looks at what it may count
 * (boxed_put_back); the answers kept for the next draw assume not. */
static inline int put_back_last(const carc_game *g)
{
	return g->nsupply > g->next && (g->supply[g->nsupply - 1] & CARC_PUT_BACK);
}

/* Is supply[0..next) drawn (or hidden) up to one entry past the last
 * placement, and that entry the tile river_placed looked at (river_peek)?
 * Then what river_follow kept for the next draw holds, unless a tile went
 * back under the supply since: the entry there may be another copy of the
 * tile looked at (the first put back, the next drawn), and a river tile
 * put back to the bottom that no end takes is not counted, as the answers
 * kept assume (boxed_put_back), so none is trusted while one lies there. */
static inline int peek_drawn(const carc_game *g, int next)
{
	return next == g->river_next + 1 && g->supply[g->river_next] == g->river_peek && !put_back_last(g);
}

/* The river tiles still to draw and the dead ends among them, when
 * supply[0..next) is drawn (or hidden), from those counted at the last
 * placement in supply[river_next..nsupply): the entries from river_next
 * on are only ever reordered among themselves (carc_draw puts a tile back
 * from next - 1 >= river_next further down), so those still to draw are
 * the counted ones less those now before next.  Usually the one tile
 * drawn since is the one river_placed looked at (river_peek), and the
 * counts after it are kept too. */
static inline void counts_at(const carc_game *g, int next, int *left, int *dead)
{
	if (peek_drawn(g, next)) {
		*left = g->river_left1;
		*dead = g->river_dead1;
		return;
	}
	int l = g->river_left, d = g->river_dead;
	for (int k = g->river_next; k < next; k++) {
		unsigned e = river_edges(carc_entry_tile(g->supply[k]));
		l -= e != 0;
		d -= dead_end(e);
	}
	*left = l;
	*dead = d;
}

/* Is a tile placed at (x, y)?  Near the first tile the bitmap says. */
static __attribute__((noinline)) int occupied_far(const carc_game *g, int x, int y)
{
	return carc_board_lookup(g, x, y) >= 0;
}

static inline int occupied_now(const carc_game *g, int x, int y)
{
	unsigned ux = (unsigned)(x - g->river_x0), uy = (unsigned)(y - g->river_y0);
	if (ux < 32 && uy < 32) return g->river_occ[uy] >> ux & 1;
	return occupied_far(g, x, y);
}

/* The 5 x 5 places around a place: bit SQ(rx, ry) for the place rx, ry
 * away from it, set when a tile is placed there. */
#define SQ(rx, ry) (1u << (((ry) + 2) * 5 + (rx) + 2))

static __attribute__((noinline)) uint32_t around_far(const carc_game *g, int x, int y)
{
	uint32_t v = 0;
	for (int ry = -2; ry <= 2; ry++)
		for (int rx = -2; rx <= 2; rx++)
			if (occupied_now(g, x + rx, y + ry)) v |= SQ(rx, ry);
	return v;
}

static inline uint32_t around(const carc_game *g, int x, int y)
{
	unsigned ux = (unsigned)(x - 2 - g->river_x0), uy = (unsigned)(y - 2 - g->river_y0);
	if (ux > 32 - 5 || uy > 32 - 5) return around_far(g, x, y);
	const uint32_t *row = &g->river_occ[uy];
	return (row[0] >> ux & 31) | (row[1] >> ux & 31) << 5 | (row[2] >> ux & 31) << 10 | (row[3] >> ux & 31) << 15 |
	       (row[4] >> ux & 31) << 20;
}

/* The six places ahead of a place toward d, the two ahead and their side
 * neighbours: no river tile placed later can be boxed in by a river end
 * whose six places ahead are empty. */
static const uint32_t ahead[4] = {
	SQ(-1, -2) | SQ(0, -2) | SQ(1, -2) | SQ(-1, -1) | SQ(0, -1) | SQ(1, -1),
	SQ(1, -1) | SQ(2, -1) | SQ(1, 0) | SQ(2, 0) | SQ(1, 1) | SQ(2, 1),
	SQ(-1, 1) | SQ(0, 1) | SQ(1, 1) | SQ(-1, 2) | SQ(0, 2) | SQ(1, 2),
	SQ(-2, -1) | SQ(-1, -1) | SQ(-2, 0) | SQ(-1, 0) | SQ(-2, 1) | SQ(-1, 1),
};

/* The four neighbours, by direction. */
static const uint32_t beside[4] = { SQ(0, -1), SQ(1, 0), SQ(0, 1), SQ(-1, 0) };

/* Directions (bit d) with the six places ahead empty, from around(). */
static inline unsigned room_in(uint32_t v)
{
	return (unsigned)((v & ahead[0]) == 0) | (unsigned)((v & ahead[1]) == 0) << 1 |
	       (unsigned)((v & ahead[2]) == 0) << 2 | (unsigned)((v & ahead[3]) == 0) << 3;
}

/* Directions (bit d) in which the place (rx, ry) away from a place is
 * among the six ahead of it. */
static unsigned rect_hits(int rx, int ry)
{
	if (rx < -2 || rx > 2 || ry < -2 || ry > 2) return 0;
	return room_in(SQ(rx, ry)) ^ 0xf;
}

/* The board as it would be with one more tile on it. */
typedef struct vboard {
	const carc_game *g;
	int x, y, type, rot;
	/* end_free: how far from an end the river still to come can reach
	 * (the places its tiles and the room ahead of them may take) */
	int reach;
} vboard;

static inline int occupied(const vboard *v, int x, int y)
{
	return (x == v->x && y == v->y) || occupied_now(v->g, x, y);
}

/* Are the six places ahead of (x, y) toward d empty, the new tile on the
 * board too? */
static int room_toward(const vboard *v, int x, int y, int d)
{
	if (rect_hits(v->x - x, v->y - y) >> d & 1) return 0;
	return !(around(v->g, x, y) & ahead[d]);
}

/* Directions (bit d) in which a frontier place has a placed neighbour:
 * its mask bytes are 0 or 0xff, and the product gathers their low bits
 * (bit 8d lands on bit 21 + d, no two terms meet). */
static inline unsigned taken_sides(const carc_front *f)
{
	return ((f->mask & 0x01010101u) * 0x00204081u) >> 21 & 0xf;
}

/* The sides of a frontier place that show a river edge of a placed
 * neighbour (want byte CARC_EK_RIVER where the mask byte is set): 0x80 in
 * the byte of each such side. */
static inline uint32_t river_sides(const carc_front *f)
{
	uint32_t z = (f->want ^ 0x01010101u * CARC_EK_RIVER) | ~f->mask; /* a zero byte: river there */
	return ~(((z & 0x7f7f7f7fu) + 0x7f7f7f7fu) | z | 0x7f7f7f7fu);
}

static inline int shows_river(const carc_front *f) { return river_sides(f) != 0; }

/* Does the open end show a river on two sides or more?  Any river tile
 * there would join two ends of the river: its branches, which must never
 * meet (RULES.md 2.3, 4.20).  In play the room kept ahead of every end
 * keeps them apart; start tiles may bring two face to face. */
static inline int joins_ends(const carc_front *f)
{
	uint32_t r = river_sides(f);
	return (r & (r - 1)) != 0;
}

/* Can a river tile still to draw continue the river at the empty place
 * f->x, f->y, whose placed neighbours (the new tile among them) show the
 * edges f->want, f->mask?  Its own open ends must leave room ahead; the
 * room toward each direction is worked out once a call (bit d of `known`:
 * worked out already, of `room`: found).  The tiles are tried from the
 * last: lakes come last, and a lake fits most places. */
static int continuable(const vboard *v, const carc_front *f, const rivers *r, unsigned known, unsigned room)
{
	if (joins_ends(f)) return 0; /* no river tile goes where two ends meet */
	const carc_game *g = v->g;
	unsigned taken = taken_sides(f);
	for (int k = 1; k >= 0; k--)
		for (int i = r->hi[k] - 1; i >= r->lo[k]; i--) {
			int t = carc_entry_tile(g->supply[i]);
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

/* The empty place f learns the edge kind (CARC_EK_*) that the tile on its
 * side d shows it, as front_touch teaches the frontier. */
static inline void learn_side(carc_front *f, int d, unsigned kind)
{
	f->want |= kind << (8 * d);
	f->mask |= 0xffu << (8 * d);
}

/* The end f as it is with the new tile of v placed (it may be a neighbour). */
static carc_front with_new_tile(const vboard *v, carc_front end)
{
	for (int d = 0; d < 4; d++)
		if (end.x + carc_dx[d] == v->x && end.y + carc_dy[d] == v->y)
			learn_side(&end, d, carc_edge_kind(v->type, v->rot, (d + 2) & 3));
	return end;
}

/* An open end of the other branch, as it is with the new tile placed:
 * continuable there?  `known` and `room` as for continuable. */
static int other_end_ok(const vboard *v, const carc_front *f, const rivers *r, unsigned known, unsigned room)
{
	carc_front end = with_new_tile(v, *f);
	return continuable(v, &end, r, known, room);
}

/* The end of the new tile's river toward d: the room ahead found its
 * other three neighbours empty, so it shows only this tile's river. */
static inline carc_front new_end(int x, int y, int d)
{
	int o = (d + 2) & 3;
	return (carc_front){ (int16_t)(x + carc_dx[d]), (int16_t)(y + carc_dy[d]), (uint32_t)CARC_EK_RIVER << (8 * o),
	                     0xffu << (8 * o) };
}

static int takes_now(const carc_game *g, int type);

/* Is supply[s], still to come, a river tile the look ahead counts?  A
 * tile in the run put back to the bottom (from `bottom`, bottom_run) that
 * no end takes now is not counted, as in boxed_put_back, in a given order
 * too, where rivers_left reads that run with the rest. */
static int counted_at(const carc_game *g, int s, int bottom)
{
	int t = carc_entry_tile(g->supply[s]);
	return river_edges(t) && (s < bottom || takes_now(g, t));
}

/* Has every river tile still to come (as rivers_left reads them) that
 * counts (counted_at) one of the open ends ends[0..n) (the new tile of v
 * placed) to continue?  Tiles of one type have the same ends, so each
 * type is asked once (a caller's order may repeat one tile hundreds of
 * times; the river tile types in scope are fewer than `seen` holds). */
static int each_has_end(const vboard *v, const carc_front *ends, int n)
{
	const carc_game *g = v->g;
	rivers r = rivers_left(g);
	int bottom = bottom_run(g, g->next), seen[64], nseen = 0;
	for (int k = 0; k < 2; k++)
		for (int s = r.lo[k]; s < r.hi[k]; s++) {
			int e = 0, t = carc_entry_tile(g->supply[s]), i = 0;
			while (i < nseen && seen[i] != t) i++;
			if (i < nseen || !counted_at(g, s, bottom)) continue;
			rivers one = { { s, 0 }, { s + 1, 0 } }; /* this tile alone, for continuable */
			while (e < n && !continuable(v, &ends[e], &one, 0, 0)) e++;
			if (e == n) return 0;
			if (nseen < 64) seen[nseen++] = t;
		}
	return 1;
}

/* takes_now past the list of open ends: the same question asked of the
 * frontier places that show a river. */
static __attribute__((noinline)) int takes_unlisted(const carc_game *g, int type)
{
	carc_v4u code = carc_codes(type);
	for (int i = 0; i < g->nfront; i++) {
		const carc_front *f = &g->front[i];
		if (!shows_river(f) || joins_ends(f)) continue;
		unsigned taken = taken_sides(f);
		for (unsigned fits = carc_fit_mask(code, f); fits; fits &= fits - 1) {
			int rot = __builtin_ctz(fits);
			vboard v = { g, f->x, f->y, type, rot, 0 };
			unsigned open = river_turned(type, rot) & ~taken;
			while (open && room_toward(&v, f->x, f->y, __builtin_ctz(open))) open &= open - 1;
			if (!open) return 1;
		}
	}
	return 0;
}

/* Is a river tile still to come (in r) counted (counted_at)? */
static int any_counted(const carc_game *g, const rivers *r)
{
	int bottom = bottom_run(g, g->next);
	for (int k = 0; k < 2; k++)
		for (int s = r->lo[k]; s < r->hi[k]; s++)
			if (counted_at(g, s, bottom)) return 1;
	return 0;
}

/* What unlisted_at needs of the board as it is, the same for every
 * placement of one listing: the river tiles still to come, whether one
 * counts, the frontier places that show a river, and for each of these
 * whether a river tile still to come continues it (-1: not worked out
 * yet).  A tile placed more than two places from such an end, along x or
 * y, changes neither its edges nor the room ahead of it, so the answer
 * there is the board's own, and it is worked out once a listing rather
 * than once a placement (a board with many open ends asks it of every
 * end for every placement). */
typedef struct unlisted_ask {
	rivers r;
	int counted, n;
	uint16_t at[CARC_MAX_FRONTIER];
	int8_t ok[CARC_MAX_FRONTIER];
} unlisted_ask;

static void unlisted_begin(const carc_game *g, unlisted_ask *a)
{
	a->r = rivers_left(g);
	a->counted = any_counted(g, &a->r);
	a->n = 0;
	for (int i = 0; i < g->nfront; i++)
		if (shows_river(&g->front[i])) {
			a->ok[a->n] = -1;
			a->at[a->n++] = (uint16_t)i;
		}
}

/* One placement past the list of open ends, worked out from the board and
 * g->front (no set in scope makes more open ends than it holds): without
 * `fallback` the look ahead (every open end continued by some river tile
 * still to come), with it what guard_mask asks instead: every river tile
 * still to come has an end.  unlisted_mask chooses among them. */
static int unlisted_at(const carc_game *g, unlisted_ask *a, int type, int x, int y, int rot, int fallback)
{
	vboard v = { g, x, y, type, rot, 0 }; /* reach: end_free only */
	unsigned e = river_turned(type, rot), open = 0;
	for (unsigned b = e; b; b &= b - 1) {
		int d = __builtin_ctz(b);
		if (!occupied(&v, x + carc_dx[d], y + carc_dy[d])) open |= 1u << d;
	}
	if (open == e) return 0; /* it must continue the river */
	if ((e & ~open) & ((e & ~open) - 1)) return 0; /* and one end only: branches never meet */
	for (unsigned b = open; b; b &= b - 1)
		if (!room_toward(&v, x, y, __builtin_ctz(b))) return 0;
	if (!a->counted) return 1;
	carc_front list[sizeof g->front / sizeof g->front[0] + 4];
	int ends = 0, n = 0;
	for (unsigned b = open; b; b &= b - 1) {
		carc_front end = new_end(x, y, __builtin_ctz(b));
		if (fallback) list[n++] = end;
		else if (!continuable(&v, &end, &a->r, 0, 0)) return 0;
		ends++;
	}
	for (int j = 0; j < a->n; j++) {
		const carc_front *f = &g->front[a->at[j]];
		int rx = f->x - x, ry = f->y - y;
		if (!rx && !ry) continue;
		if (fallback) {
			/* only a neighbour's edges change */
			carc_front end = rx * rx + ry * ry == 1 ? with_new_tile(&v, *f) : *f;
			if (!joins_ends(&end)) list[n++] = end;
		} else if (rx < -2 || rx > 2 || ry < -2 || ry > 2) {
			if (a->ok[j] < 0) a->ok[j] = (int8_t)continuable(&v, f, &a->r, 0, 0); /* the board's own answer */
			if (!a->ok[j]) return 0;
		} else if (!other_end_ok(&v, f, &a->r, 0, 0)) {
			return 0;
		}
		ends++;
	}
	if (!ends) return 0; /* river tiles are still to come: the river may not end yet */
	return !fallback || each_has_end(&v, list, n);
}

/* river_listed past its quick answers: every open end afterwards, worked
 * out as in continuable (`dead`: a dead end is still to come). */
static __attribute__((noinline)) int river_ends_ok(const carc_game *g, int type, int rot, int i, unsigned open, int dead)
{
	const carc_front *here = &g->river_open[i];
	int x = here->x, y = here->y;
	vboard v = { g, x, y, type, rot, 0 }; /* reach: end_free only */
	rivers r = rivers_left(g);
	if (!dead)
		for (unsigned b = open; b; b &= b - 1) {
			carc_front end = new_end(x, y, __builtin_ctz(b));
			if (!continuable(&v, &end, &r, 0, 0)) return 0;
		}
	for (int j = 0; j < g->nriver_open; j++) {
		if (j == i) continue;
		const carc_front *f = &g->river_open[j];
		int rx = x - f->x, ry = y - f->y, ax = rx < 0 ? -rx : rx, ay = ry < 0 ? -ry : ry;
		unsigned taken = g->river_room[j] >> 4;
		if (dead && ax + ay != 1 && !(taken & (taken - 1))) continue; /* it shows one river, as before */
		/* its room as kept, less what the new tile takes */
		unsigned room = g->river_room[j] & 0xf & ~rect_hits(rx, ry);
		if (!other_end_ok(&v, f, &r, 0xf, room)) return 0;
	}
	return 1;
}

/* Has every river edge `e` of a tile at an open end (its river_room
 * `kept`) that faces an empty place the room ahead of it? */
static inline int room_ahead(unsigned kept, unsigned e) { return !(e & ~(kept >> 4) & ~kept); }

/* Does some listed open end take the river tile now, by its edges and
 * the room ahead of the ends it would leave (as river_at_end asks)? */
static int takes_now(const carc_game *g, int type)
{
	if (g->nriver_open == 0xff) return takes_unlisted(g, type);
	carc_v4u code = carc_codes(type);
	for (int i = 0; i < g->nriver_open; i++) {
		const carc_front *f = &g->river_open[i];
		if (joins_ends(f)) continue;
		for (unsigned fits = carc_fit_mask(code, f); fits; fits &= fits - 1)
			if (room_ahead(g->river_room[i], river_turned(type, __builtin_ctz(fits)))) return 1;
	}
	return 0;
}

/* The river tiles put back to the bottom of the supply (the flagged run
 * there, see rivers_left: those put back when no other river tile was
 * still to come, or under a last one that lay there) that no open end
 * takes now (takes_now), and the dead
 * ends among them.  A tile drawn before, which fit nowhere, that still
 * fits nowhere: a placement now cannot be what keeps it out, so the rule
 * that no placement may box in a later river tile (RULES.md 2.3, "could
 * prevent any subsequently drawn river tiles") does not count it.  With
 * start tiles around the spring's end it may never fit, and the lake must
 * still close the river before the land tiles. */
static void boxed_put_back(const carc_game *g, int *left, int *dead)
{
	int l = 0, d = 0;
	for (int i = bottom_run(g, g->next); i < g->nsupply; i++) {
		int t = carc_entry_tile(g->supply[i]);
		unsigned e = river_edges(t);
		if (!e || takes_now(g, t)) continue;
		l++;
		d += dead_end(e);
	}
	*left = l;
	*dead = d;
}

/* The river tiles still to draw after the tile drawn now, and the dead
 * ends among them, less those put back that no end takes now. */
static inline void counts_now(const carc_game *g, int *left, int *dead)
{
	counts_at(g, g->next, left, dead);
	if (*left && put_back_last(g)) {
		int boxed, boxed_dead;
		boxed_put_back(g, &boxed, &boxed_dead);
		*left -= boxed;
		*dead -= boxed_dead;
	}
}

/* The guard at the listed open end `i` for a tile whose river edges,
 * turned, are `e`: the room ahead of each end it leaves open (kept in
 * g->river_room; the new tile never lies in the rectangles of its own
 * place), and while river tiles are still to come, the river may not
 * end. */
static int river_guard(const carc_game *g, int i, unsigned e)
{
	unsigned kept = g->river_room[i];
	if (!room_ahead(kept, e)) return 0;
	if ((e & ~(kept >> 4)) || g->nriver_open != 1) return 1;
	int left, dead;
	counts_now(g, &left, &dead);
	return !left;
}

/* river_allowed at the listed open end `i`: the guard, then the look
 * ahead.  The river tiles still to come are counted, and a dead end among
 * them settles at once every end that shows one river: the new tile's own
 * (the room ahead found their other neighbours empty), and the other
 * branch's unless the new tile is next to it (g->river_alone). */
static __attribute__((noinline)) int river_at_end(const carc_game *g, int type, int rot, int i, unsigned e)
{
	if (!river_guard(g, i, e)) return 0;
	int left, dead;
	counts_now(g, &left, &dead);
	if (!left) return 1;
	/* Every open end of the river afterwards, this tile's and the other
	 * branch's, must be one that a river tile still to come can continue
	 * (RULES.md 4.20: no placement that boxes in a later river tile). */
	if (dead && g->river_alone >> i & 1) return 1;
	return river_ends_ok(g, type, rot, i, e & ~(g->river_room[i] >> 4), dead != 0);
}

/* The bit of river_near for the place (x, y): places less than 8 apart
 * across and not 8 rows apart have different bits. */
static inline unsigned near_bit(int x, int y) { return (unsigned)(x + 8 * y) & 63; }

/* The listed open end at (x, y): its index in river_open, or -1. */
static inline int open_end_at(const carc_game *g, int x, int y)
{
	for (int i = 0; i < g->nriver_open; i++)
		if (g->river_open[i].x == x && g->river_open[i].y == y) return i;
	return -1;
}

/* Bit i: river_ok[i] holds the answers at open end i for the tile drawn
 * now, which is so when it is the one river_placed expected. */
static inline unsigned fast_ends(const carc_game *g)
{
	return peek_drawn(g, g->next) ? g->river_fast : 0;
}

/* ---- a free end: no later river tile can be boxed in ---------------------------------- */

/* An open end of the river as it would be after a placement: the empty
 * place (x, y), the way the river runs into it (d, from the tile it
 * continues), and whether it is plain (no tile beside it but that one). */
typedef struct rend {
	int x, y, d, plain;
} rend;

/* Where a river laid from the end e on can go when only straights are
 * still to come (turn 0: on along e->d), or straights and curves (turn
 * d2, a perpendicular of e->d: a staircase, straight on or turning to d2
 * and back).  With a the steps from the end's place along e->d and b
 * those along d2 (across for a corridor), its tiles lie at a >= 0 and
 * b = 0 (a corridor) or b >= 0 (a staircase). */
static inline void steps(const rend *e, int d2, int x, int y, int *a, int *b)
{
	*a = (x - e->x) * carc_dx[e->d] + (y - e->y) * carc_dy[e->d];
	*b = (x - e->x) * carc_dx[d2] + (y - e->y) * carc_dy[d2];
}

/* The places the river from an end would need, with the room ahead of
 * each of its tiles, relative to the end's place: boxes of places from x0
 * to x1 and y0 to y1 (F: without end), by the way the river runs into the
 * end (d) and the side it may turn to (d + 1, then d + 3): the corridor
 * (a >= 0 and |b| <= 1 in the steps of steps()), then the staircase's
 * two (a >= 0 and b >= -1; the row behind the end's place, a = -1, from
 * b = 1 on). */
#define F (1 << 12)
static const int16_t way_boxes[4][2][3][4] = {
	{ /* N */
		{ { -1, 1, -F, 0 }, { -1, F, -F, 0 }, { 1, F, 1, 1 } },
		{ { -1, 1, -F, 0 }, { -F, 1, -F, 0 }, { -F, -1, 1, 1 } },
	},
	{ /* E */
		{ { 0, F, -1, 1 }, { 0, F, -1, F }, { -1, -1, 1, F } },
		{ { 0, F, -1, 1 }, { 0, F, -F, 1 }, { -1, -1, -F, -1 } },
	},
	{ /* S */
		{ { -1, 1, 0, F }, { -F, 1, 0, F }, { -F, -1, -1, -1 } },
		{ { -1, 1, 0, F }, { -1, F, 0, F }, { 1, F, -1, -1 } },
	},
	{ /* W */
		{ { -F, 0, -1, 1 }, { -F, 0, -F, 1 }, { 1, 1, -F, -1 } },
		{ { -F, 0, -1, 1 }, { -F, 0, -1, F }, { 1, 1, 1, F } },
	},
};
#undef F

/* Is the place a, b steps from the end (as steps() counts them) in the
 * way (way_boxes) of a river that reaches `reach` steps?  No branch: the
 * places asked are the game's, as random as its tiles. */
static inline int in_way(int a, int b, int corridor, int reach)
{
	int near = (a <= reach) & (b <= reach);
	if (corridor) return (a >= 0) & ((unsigned)(b + 1) <= 2) & near;
	return (((a >= 0) & (b >= -1)) | ((a == -1) & (b >= 1))) & near;
}

/* Is a tile placed in the box b away from the end e, within `reach` of it
 * (the boxes without end end where the river still to come ends)?  Only
 * the box of the placed tiles (river_box) is looked at: row by row in
 * river_occ when it lies there, one bit a place, else tile by tile. */
static int placed_in(const carc_game *g, const rend *e, const int16_t b[4], int reach)
{
	int bx0 = b[0] < -reach ? -reach : b[0], bx1 = b[1] > reach ? reach : b[1];
	int by0 = b[2] < -reach ? -reach : b[2], by1 = b[3] > reach ? reach : b[3];
	int x0 = e->x + bx0 > g->river_box[0] ? e->x + bx0 : g->river_box[0];
	int x1 = e->x + bx1 < g->river_box[1] ? e->x + bx1 : g->river_box[1];
	int y0 = e->y + by0 > g->river_box[2] ? e->y + by0 : g->river_box[2];
	int y1 = e->y + by1 < g->river_box[3] ? e->y + by1 : g->river_box[3];
	if (x0 > x1 || y0 > y1) return 0;
	unsigned ux0 = (unsigned)(x0 - g->river_x0), ux1 = (unsigned)(x1 - g->river_x0);
	unsigned uy0 = (unsigned)(y0 - g->river_y0), uy1 = (unsigned)(y1 - g->river_y0);
	uint32_t hit = 0;
	if ((ux0 | ux1 | uy0 | uy1) < 32) {
		uint32_t m = (~0u << ux0) & (~0u >> (31 - ux1));
		for (unsigned y = uy0; y <= uy1; y++) hit |= g->river_occ[y] & m;
		return hit != 0;
	}
	for (int k = 0; k < g->ncells; k++) {
		int x = g->cells[k].x, y = g->cells[k].y;
		hit |= (unsigned)(x >= x0) & (unsigned)(x <= x1) & (unsigned)(y >= y0) & (unsigned)(y <= y1);
	}
	return hit != 0;
}

/* Must the places the river from the end e would need, turning to `side`
 * (0: e->d + 1, 1: e->d + 3) if it is a staircase, be empty (way_boxes),
 * and are they, the new tile on the board too?  `own`: e is an end of the
 * new tile, which lies right behind it (a = -1, b = 0), out of its way. */
static int way_empty(const vboard *v, const rend *e, int side, int corridor, int own)
{
	const int16_t(*b)[4] = way_boxes[e->d][side];
	int a, s;
	if (!own) {
		steps(e, (e->d + 1 + 2 * side) & 3, v->x, v->y, &a, &s);
		if (in_way(a, s, corridor, v->reach)) return 0;
	}
	if (corridor) return !placed_in(v->g, e, b[0], v->reach);
	return !placed_in(v->g, e, b[1], v->reach) && !placed_in(v->g, e, b[2], v->reach);
}

/* Would that river put a tile on the place (x, y) or next to it? */
static inline int by_way(const rend *e, int d2, int corridor, int reach, int x, int y)
{
	int a, b;
	steps(e, d2, x, y, &a, &b);
	int near = (a <= reach) & (b <= reach);
	if (corridor) return (((a >= -1) & (b == 0)) | ((a >= 0) & ((unsigned)(b + 1) <= 2))) & near;
	return (((a >= -1) & (b >= 0)) | ((a >= 0) & (b >= -1))) & near;
}

/* Is end i free: the way ahead of it (way_empty) holds no tile, the new
 * one included, and every other end is plain, off that way (by_way) and
 * not next to another end?  Then every river tile still to come has a
 * place: a straight or a curve goes on at end i (its tile touches only
 * the tile before it and has the room ahead, and the end it leaves is
 * free again), and a dead end closes one of the other ends (`dead`: how
 * many may have to, one dead end being kept for the last draw), which
 * leaves the rest as they were.  `curves`: a curve is still to come;
 * ends[0..nown) are the new tile's. */
static int end_free(const vboard *v, const rend *ends, int n, int nown, int i, int dead, int curves)
{
	const rend *e = &ends[i];
	if (!e->plain || dead > n - 1) return 0;
	for (int j = 0; n > 2 && j < n; j++) /* two ends or fewer: no pair without i */
		for (int k = j + 1; k < n; k++)
			if (j != i && k != i && abs(ends[j].x - ends[k].x) + abs(ends[j].y - ends[k].y) <= 1) return 0;
	for (int turn = 1; turn <= 3; turn += 2) {
		int d2 = (e->d + turn) & 3, corridor = !curves, ok = 1;
		/* the other ends first, the board last: it is the longer look */
		for (int j = 0; ok && j < n; j++)
			if (j != i) ok = ends[j].plain && !by_way(e, d2, corridor, v->reach, ends[j].x, ends[j].y);
		if (ok && way_empty(v, e, turn >> 1, corridor, i < nown)) return 1;
		if (corridor) break; /* the same way either side */
	}
	return 0;
}

/* Of the river tiles still to draw after the tile drawn now (as
 * rivers_left reads them): bit 0 a fork is among them, bit 1 a curve.
 * Usually river_follow counted them (shapes_left). */
static unsigned shapes_from(const carc_game *g)
{
	rivers r = rivers_left(g);
	unsigned shapes = 0;
	for (int k = 0; k < 2; k++)
		for (int i = r.lo[k]; i < r.hi[k]; i++) {
			unsigned e = river_edges(carc_entry_tile(g->supply[i]));
			shapes |= (FORK_EDGES >> e & 1) | (CURVE_EDGES >> e & 1) << 1;
		}
	return shapes;
}

/* The same, kept by river_follow when the tile drawn now is the one
 * that was next then. */
static inline unsigned shapes_left(const carc_game *g)
{
	if (peek_drawn(g, g->next)) return g->river_shapes1;
	return shapes_from(g);
}

/* What allow_mask asks at one listed open end i, for any turn of the drawn
 * tile: the river tiles still to come, and the other ends as they would
 * be with a tile at i (it may be their neighbour).  `settled`: 1 when no
 * river tile is left to draw (nothing can be boxed in any more), 0 when
 * a fork is still to come (drawn first, so only in a given tile order:
 * no end is called free), -1 when end_free decides. */
typedef struct free_ask {
	vboard v;
	uint32_t around; /* the tiles around the open end (around()) */
	int i, settled, dead, curves, n, reach;
	uint8_t known[16]; /* by the new tile's open river edges: 1 + the answer, 0 not asked yet */
	rend ends[sizeof ((carc_game *)0)->river_open / sizeof ((carc_game *)0)->river_open[0] + 4];
} free_ask;

/* The part of a free_ask that is the same at every open end. */
static void free_begin(const carc_game *g, free_ask *a)
{
	int left, dead;
	counts_now(g, &left, &dead);
	a->settled = -1;
	if (!left) a->settled = 1;
	unsigned shapes = left ? shapes_left(g) : 0;
	if (shapes & 1) a->settled = 0;
	a->dead = dead > 0 ? dead - 1 : 0; /* one dead end may come last */
	a->curves = shapes >> 1 & 1;
	/* the tiles still to come lie less than `left` steps from the end
	 * they continue (a + b < left in steps(), the first at the end's own
	 * place), and the room ahead of the last one the two places after it,
	 * with their sides: at most left + 1 steps (in_way counts `reach`
	 * itself in).  A tile farther away is in nobody's way (a start tile
	 * apart from the river, say) */
	a->reach = left + 1;
}

/* The open end f (another than the new tile's) as a rend, with a new
 * tile at (x, y): its neighbours are the placed tiles (the mask) and the
 * new one if it is one; the river it continues comes from the first
 * placed one that shows a river, and it is plain if there is no other. */
static rend other_end(const carc_front *f, int x, int y)
{
	/* bit d: the place (rx + 1, ry + 1) of 3 x 3 is the neighbour toward d */
	static const uint8_t next_to[9] = { 0, 1, 0, 8, 0, 2, 0, 4, 0 };
	unsigned rx = (unsigned)(x - f->x + 1), ry = (unsigned)(y - f->y + 1);
	unsigned taken = taken_sides(f) | (rx <= 2 && ry <= 2 ? next_to[3 * ry + rx] : 0u);
	unsigned river = ((river_sides(f) >> 7) * 0x00204081u) >> 21 & 0xf, from = river & -river;
	return (rend){ f->x, f->y, from ? (__builtin_ctz(from) + 2) & 3 : 1, !(taken & ~from) };
}

/* The end a new tile at (x, y) leaves toward d, the tiles around its
 * place being `v` (around()): plain if none is beside the place it
 * faces, the new tile aside. */
static rend own_end(uint32_t v, int x, int y, int d)
{
	static const uint32_t beside_end[4] = {
		SQ(-1, -1) | SQ(1, -1) | SQ(0, -2), SQ(1, -1) | SQ(1, 1) | SQ(2, 0),
		SQ(-1, 1) | SQ(1, 1) | SQ(0, 2), SQ(-1, -1) | SQ(-1, 1) | SQ(-2, 0),
	};
	return (rend){ x + carc_dx[d], y + carc_dy[d], d, !(v & beside_end[d]) };
}

/* The rest, at listed open end i for the tile type: the other ends. */
static void free_at_end(const carc_game *g, free_ask *a, int type, int i)
{
	const carc_front *here = &g->river_open[i];
	a->v = (vboard){ g, here->x, here->y, type, 0, a->reach };
	a->around = around(g, here->x, here->y);
	a->i = i;
	a->n = 0;
	memset(a->known, 0, sizeof a->known);
	for (int j = 0; j < g->nriver_open; j++)
		if (j != i) a->ends[4 + a->n++] = other_end(&g->river_open[j], here->x, here->y);
}

/* Would the river have a free end (end_free) with the tile turned rot at
 * the ask's open end?  The ends then: the new tile's river edges that
 * face an empty place (tried first: the room ahead of them is known
 * empty), and the other ends. */
static int free_with(const carc_game *g, free_ask *a, int rot)
{
	if (a->settled >= 0) return a->settled;
	const carc_front *here = &g->river_open[a->i];
	a->v.rot = rot;
	unsigned open = river_turned(a->v.type, rot) & ~(g->river_room[a->i] >> 4);
	if (a->known[open]) return a->known[open] - 1; /* the same ends as a turn asked before */
	int k = 4;
	for (unsigned b = open; b; b &= b - 1) a->ends[--k] = own_end(a->around, here->x, here->y, __builtin_ctz(b));
	int n = 4 - k + a->n, free = 0;
	for (int e = 0; e < n && !free; e++) free = end_free(&a->v, a->ends + k, n, 4 - k, e, a->dead, a->curves);
	a->known[open] = (uint8_t)(1 + free);
	return free;
}

/* Do the placements `ok` (bits as in allow_mask) all leave the river the
 * same ends: are they all at one open end, with the same river edges
 * facing an empty place (a straight turned either way)?  Then free_with
 * answers the same for each of them. */
static int same_ends(const carc_game *g, int type, uint64_t ok)
{
	int i = __builtin_ctzll(ok) >> 2; /* ok: 64 bits, ends 8 and on above bit 32 */
	if (ok >> (4 * i) >> 4) return 0;
	unsigned taken = g->river_room[i] >> 4, rots = (unsigned)(ok >> (4 * i));
	unsigned open = river_turned(type, __builtin_ctz(rots)) & ~taken;
	for (rots &= rots - 1; rots; rots &= rots - 1)
		if ((river_turned(type, __builtin_ctz(rots)) & ~taken) != open) return 0;
	return 1;
}

/* With the tile turned rot at listed open end i, has every river tile
 * still to come an end it continues? */
static int each_has_place(const carc_game *g, int type, int rot, int i)
{
	const carc_front *here = &g->river_open[i];
	vboard v = { g, here->x, here->y, type, rot, 0 };
	carc_front ends[sizeof g->river_open / sizeof g->river_open[0] + 4];
	int n = 0;
	for (unsigned b = river_turned(type, rot) & ~(g->river_room[i] >> 4); b; b &= b - 1)
		ends[n++] = new_end(here->x, here->y, __builtin_ctz(b));
	for (int j = 0; j < g->nriver_open; j++) {
		carc_front end = with_new_tile(&v, g->river_open[j]);
		if (j != i && !joins_ends(&end)) ends[n++] = end;
	}
	return each_has_end(&v, ends, n);
}

/* Bit 4 i + rot: the placements allow_mask falls back on when its look
 * ahead refuses every one: those the guard allows after which every river
 * tile still to come has an end it continues.  The look ahead asks more,
 * that every open end be one some river tile still to come continues,
 * which in a given tile order with no dead end to come can refuse every
 * place though another end takes the tiles to come (a branch no tile left
 * fits, beside the other's end), and the tile drawn would be lost for
 * nothing.  A dealt supply from the standard start never comes here
 * (test_placement_ext: no river tile is ever discarded there;
 * tests/bench/digest is the same as before the fallback); start tiles that
 * wall in a branch do (test_placement_ext walled_branch). */
static uint64_t guard_mask(const carc_game *g, int type)
{
	uint64_t ok = 0;
	for (int i = 0; i < g->nriver_open; i++) {
		const carc_front *f = &g->river_open[i];
		if (joins_ends(f)) continue;
		for (unsigned fits = carc_fit_mask(carc_codes(type), f); fits; fits &= fits - 1) {
			int rot = __builtin_ctz(fits);
			if (river_guard(g, i, river_turned(type, rot)) && each_has_place(g, type, rot, i))
				ok |= (uint64_t)1 << (4 * i + rot);
		}
	}
	return ok;
}

/* The placements of `ok` (allow_mask's bits) that the other judges
 * allow too (all of them when there are none). */
static uint64_t others_allow(const carc_game *g, uint32_t judges, int type, uint64_t ok)
{
	if (!judges) return ok;
	for (uint64_t b = ok; b; b &= b - 1) {
		int bit = __builtin_ctzll(b), i = bit / 4;
		if (!carc_judges_allow(g, judges, type, g->river_open[i].x, g->river_open[i].y, bit % 4))
			ok &= ~((uint64_t)1 << bit);
	}
	return ok;
}

/* Of the placements `ok` (allow_mask's bits), those that leave the river
 * a free end, whenever one does. */
static uint64_t free_of(const carc_game *g, int type, uint64_t ok)
{
	if (!(ok & (ok - 1))) return ok; /* one placement or none: the answer, free end or not */
	if (same_ends(g, type, ok)) return ok; /* the same answer for all, free end or not */
	free_ask a;
	free_begin(g, &a);
	if (a.settled >= 0) return ok; /* every placement leaves a free end, or none does */
	uint64_t free = 0;
	for (int i = 0; i < g->nriver_open; i++) {
		unsigned rots = ok >> (4 * i) & 0xf;
		if (!rots) continue;
		free_at_end(g, &a, type, i);
		for (; rots; rots &= rots - 1) {
			int rot = __builtin_ctz(rots);
			if (free_with(g, &a, rot)) free |= (uint64_t)1 << (4 * i + rot);
		}
	}
	return free ? free : ok;
}

/* ---- past the list of open ends ---------------------------------------------------- */

/* free_with past the list of open ends: would the tile turned rot at
 * (x, y) leave the river a free end, its open ends read off the frontier
 * (the places that show a river)? */
static int free_unlisted(const carc_game *g, const free_ask *a, int type, int x, int y, int rot)
{
	rend ends[CARC_MAX_FRONTIER + 4];
	vboard v = { g, x, y, type, rot, a->reach };
	uint32_t near = around(g, x, y);
	int n = 0;
	for (unsigned b = river_turned(type, rot); b; b &= b - 1) {
		int d = __builtin_ctz(b);
		if (!occupied_now(g, x + carc_dx[d], y + carc_dy[d])) ends[n++] = own_end(near, x, y, d);
	}
	int nown = n;
	for (int j = 0; j < g->nfront; j++) {
		const carc_front *f = &g->front[j];
		if (shows_river(f) && (f->x != x || f->y != y)) ends[n++] = other_end(f, x, y);
	}
	for (int e = 0; e < n; e++)
		if (end_free(&v, ends, n, nown, e, a->dead, a->curves)) return 1;
	return 0;
}

/* free_of past the list of open ends: of the placements both[] (bits as
 * in unlisted_mask), only those that leave a free end, whenever one does. */
static void free_of_unlisted(const carc_game *g, int type, uint8_t *both)
{
	free_ask a;
	free_begin(g, &a);
	if (a.settled >= 0) return; /* every placement leaves a free end, or none does */
	uint8_t with_free[CARC_MAX_FRONTIER];
	int nfree = 0;
	for (int i = 0; i < g->nfront; i++) {
		with_free[i] = 0;
		for (unsigned b = both[i]; b; b &= b - 1)
			if (free_unlisted(g, &a, type, g->front[i].x, g->front[i].y, __builtin_ctz(b))) {
				with_free[i] |= (uint8_t)(b & -b);
				nfree++;
			}
	}
	if (nfree) memcpy(both, with_free, (size_t)g->nfront);
}

/* allow_mask past the list of open ends, worked out from the board and
 * g->front: bit rot of ok[i], the tile turned rot at front position i.
 * The look ahead's places (unlisted_at); where it allows none that the
 * other judges allow too, the fallback's among those; of those, the ones
 * that leave a free end whenever one does.  The look ahead's places that
 * the other judges alone refuse stay allowed, so the refusal is theirs.
 * `a`: unlisted_begin's, for the board as it is. */
static void unlisted_mask(const carc_game *g, unlisted_ask *a, int type, uint8_t *ok)
{
	/* each of both[0..nfront) is set below; zeroed all the same for the
	 * analyser, which cannot tell that g->nfront stays the same */
	uint8_t both[CARC_MAX_FRONTIER] = { 0 };
	uint32_t others = carc_judges_but(g, &carc_ext_river, type);
	carc_v4u code = carc_codes(type);
	int nboth = 0;
	for (int fallback = 0; fallback < 2 && !nboth; fallback++)
		for (int i = 0; i < g->nfront; i++) {
			const carc_front *f = &g->front[i];
			unsigned ahead_ok = 0, theirs = 0;
			for (unsigned fits = carc_fit_mask(code, f); fits; fits &= fits - 1) {
				int r = __builtin_ctz(fits);
				if (!unlisted_at(g, a, type, f->x, f->y, r, fallback)) continue;
				if (carc_judges_allow(g, others, type, f->x, f->y, r)) ahead_ok |= 1u << r;
				else theirs |= 1u << r;
			}
			both[i] = (uint8_t)ahead_ok;
			nboth += __builtin_popcount(ahead_ok);
			if (!fallback) ok[i] = (uint8_t)theirs;
		}
	if (nboth > 1) free_of_unlisted(g, type, both);
	for (int i = 0; i < g->nfront; i++) ok[i] |= both[i];
}

/* river_allowed past the list of open ends.  A place that neither the look
 * ahead nor the fallback allows is refused at once (most places a river
 * tile's edges fit); else all of them are worked out. */
static __attribute__((noinline)) int river_unlisted(const carc_game *g, int type, int x, int y, int rot)
{
	int i = carc_board_front_at(g, x, y);
	if (i < 0) return 0;
	unlisted_ask a;
	unlisted_begin(g, &a);
	if (!unlisted_at(g, &a, type, x, y, rot, 0) && !unlisted_at(g, &a, type, x, y, rot, 1)) return 0;
	uint8_t ok[CARC_MAX_FRONTIER];
	unlisted_mask(g, &a, type, ok); /* with what the quick test worked out */
	return ok[i] >> rot & 1;
}

/* Bit 4 i + rot: the tile type turned rot may go at listed open end i,
 * by the rules above, and of those placements only the ones that leave
 * the river a free end if any do (free_of).  The free ends are looked for
 * only where they can make a difference: among two placements or more,
 * and while river tiles are still to come (free_begin). */
static uint64_t allow_mask(const carc_game *g, int type)
{
	unsigned fast = fast_ends(g);
	uint64_t ok = 0;
	for (int i = 0; i < g->nriver_open; i++) {
		const carc_front *f = &g->river_open[i];
		if (joins_ends(f)) continue;
		/* an open end keeps the edges around it as its frontier place
		 * does: which turns fit, all four at once */
		unsigned fits = carc_fit_mask(carc_codes(type), f);
		if (fast >> i & 1) { /* river_ok's answers for all four turns at once */
			unsigned e = carc_tile_river[type], allowed = g->river_ok[i];
			fits &= (allowed >> (e & 0xf) & 1) | (allowed >> (e >> 4 & 0xf) & 1) << 1 |
			        (allowed >> (e >> 8 & 0xf) & 1) << 2 | (allowed >> (e >> 12 & 0xf) & 1) << 3;
			ok |= (uint64_t)fits << (4 * i);
			continue;
		}
		for (; fits; fits &= fits - 1) {
			int rot = __builtin_ctz(fits);
			if (river_at_end(g, type, rot, i, river_turned(type, rot))) ok |= (uint64_t)1 << (4 * i + rot);
		}
	}
	/* Other rules may judge the tile too (the cult places', for a river
	 * tile with a cloister): the fallback and the free end are chosen among
	 * the places they allow as well.  Those they alone refuse stay allowed
	 * here, so that the refusal is named theirs. */
	uint32_t others = carc_judges_but(g, &carc_ext_river, type);
	uint64_t both = others_allow(g, others, type, ok), theirs = ok & ~both;
	if (!both) both = others_allow(g, others, type, guard_mask(g, type));
	return free_of(g, type, both) | theirs;
}

/* allow_mask for the tile drawn now: when it is river_peek, river_follow
 * worked it out already (river_allow). */
static uint64_t allowed_now(const carc_game *g, int type)
{
	if (g->river_known && peek_drawn(g, g->next) && type == carc_entry_tile(g->river_peek)) return g->river_allow;
	return allow_mask(g, type);
}

/* river_allowed past its first test: at a listed open end? */
static __attribute__((noinline)) int river_listed(const carc_game *g, int type, int x, int y, int rot)
{
	if (g->nriver_open == 0xff) return river_unlisted(g, type, x, y, rot);
	int i = open_end_at(g, x, y);
	return i >= 0 && (allowed_now(g, type) >> (4 * i + rot) & 1);
}

static int river_allowed(const carc_game *g, int type, int x, int y, int rot)
{
	/* Edges match (the hook's contract), so a river edge of the tile
	 * meets a tile exactly where the place shows a river: at a listed
	 * open end. */
	if (!(g->river_near >> near_bit(x, y) & 1)) return 0; /* it must continue the river */
	return river_listed(g, type, x, y, rot);
}

/* river_allowed over a listing.  Once the river is closed river_near is
 * empty and no river tile may go anywhere.  The moves at a place are
 * listed together, so the open end a place is at is looked up once for
 * all its turns, and the answers are river_listed's. */
static int river_filter(const carc_game *g, int type, carc_move *moves, int n)
{
	uint64_t near = g->river_near;
	if (!near) return 0;
	int k = 0;
	if (g->nriver_open == 0xff) { /* worked out once for every place */
		uint8_t ok[CARC_MAX_FRONTIER];
		unlisted_ask a;
		unlisted_begin(g, &a);
		unlisted_mask(g, &a, type, ok);
		for (int i = 0; i < n; i++) {
			int at = carc_board_front_at(g, moves[i].x, moves[i].y);
			if (at >= 0 && (ok[at] >> moves[i].rot & 1)) moves[k++] = moves[i];
		}
		return k;
	}
	/* allow_mask's answers, looked up once for all the turns at a place
	 * (they are listed together); at most 4 turns at each listed open end */
	_Static_assert(4 * sizeof g->river_open / sizeof g->river_open[0] <= 64, "a bit a placement");
	uint64_t allow = allowed_now(g, type);
	if (g->nriver_open <= 2) {
		/* one open end or two (the usual): every move compared with
		 * both, without a branch (the moves kept are few and anywhere);
		 * a move is written back over itself or one dropped before */
		const carc_front *o = g->river_open;
		int last = g->nriver_open - 1; /* near: at least one */
		int x0 = o[0].x, y0 = o[0].y, x1 = o[last].x, y1 = o[last].y;
		unsigned a0 = (unsigned)allow & 0xf, a1 = (unsigned)(allow >> (4 * last)) & 0xf;
		for (int i = 0; i < n; i++) {
			carc_move m = moves[i];
			unsigned at0 = (unsigned)(m.x == x0) & (unsigned)(m.y == y0), at1 = (unsigned)(m.x == x1) & (unsigned)(m.y == y1);
			moves[k] = m;
			k += (int)(((-at0 & a0) | (-at1 & a1)) >> m.rot & 1);
		}
		return k;
	}
	int at = -1, lx = INT_MIN, ly = 0; /* the open end at the place (lx, ly) looked up last, -1 none */
	for (int i = 0; i < n; i++) {
		carc_move m = moves[i];
		if (!(near >> near_bit(m.x, m.y) & 1)) continue;
		if (m.x != lx || m.y != ly) {
			lx = m.x;
			ly = m.y;
			at = open_end_at(g, m.x, m.y);
		}
		if (at >= 0 && (allow >> (4 * at + m.rot) & 1)) moves[k++] = m;
	}
	return k;
}

/* The open end (px, py) that a river edge of the tile just placed (its
 * edges `code`, as in edge_code) faces (toward d): its edges as in
 * front[], and its room ahead and placed neighbours as in river_room. */
static void new_open_end(carc_game *g, uint32_t code, int px, int py, int d, int n)
{
	int o = (d + 2) & 3;
	carc_front f = { (int16_t)px, (int16_t)py, 0, 0 };
	learn_side(&f, o, code >> (8 * d) & 0xff);
	uint32_t v = around(g, px, py);
	unsigned taken = 1u << o;
	if (v & (beside[0] | beside[1] | beside[2] | beside[3]) & ~beside[o])
		for (int d2 = 0; d2 < 4; d2++) { /* its other neighbours */
			if (d2 == o || !(v & beside[d2])) continue;
			const carc_cell *nb = &g->cells[carc_board_lookup(g, px + carc_dx[d2], py + carc_dy[d2])];
			learn_side(&f, d2, carc_edge_kind(nb->type, nb->rot, (d2 + 2) & 3));
			taken |= 1u << d2;
		}
	g->river_room[n] = (uint8_t)((room_in(v) & ~taken) | taken << 4);
	g->river_open[n] = f;
}

/* The first placement, a start tile: the supply is complete and nothing
 * is drawn yet.  river_order has counted the river tiles when it ran. */
static void river_start(carc_game *g, int x, int y)
{
	g->river_x0 = (int16_t)(x - 16);
	g->river_y0 = (int16_t)(y - 16);
	g->river_box[0] = g->river_box[1] = (int16_t)x;
	g->river_box[2] = g->river_box[3] = (int16_t)y;
	if (!g->river_end) {
		int left = 0, dead = 0, forks = 0, curves = 0;
		for (int i = 0; i < g->nsupply; i++) {
			unsigned e = river_edges(carc_entry_tile(g->supply[i]));
			left += e != 0;
			dead += dead_end(e);
			forks += FORK_EDGES >> e & 1;
			curves += CURVE_EDGES >> e & 1;
		}
		g->river_left = (uint16_t)left;
		g->river_dead = (uint16_t)dead;
		g->river_forks = (uint8_t)forks;
		g->river_curves = (uint8_t)curves;
	}
	g->river_next = g->next;
	g->river_peek = 0xffff; /* no entry: counts_at counts */
}

/* Bit e set: the turned river edges e have no edge in b (the index). */
static const uint16_t avoiding[16] = { 0xffff, 0x5555, 0x3333, 0x1111, 0x0f0f, 0x0505, 0x0303, 0x0101,
	                               0x00ff, 0x0055, 0x0033, 0x0011, 0x000f, 0x0005, 0x0003, 0x0001 };

/* river_near, river_alone and, for the next draw if it is river_peek,
 * river_ok and river_fast, from the list of open ends (as river_at_end
 * would answer with the counts after that draw). */
static void ends_known(carc_game *g, int n)
{
	const carc_front *f = g->river_open;
	uint64_t near = 0;
	unsigned alone = 1;
	if (n > 1) {
		unsigned plain = 0, adjacent = 0; /* bit i: end i shows one river / is next to another end */
		for (int i = 0; i < n; i++) {
			unsigned taken = g->river_room[i] >> 4;
			if (!(taken & (taken - 1))) plain |= 1u << i;
			for (int j = i + 1; j < n; j++) {
				int ax = f[i].x - f[j].x, ay = f[i].y - f[j].y;
				if ((ax < 0 ? -ax : ax) + (ay < 0 ? -ay : ay) == 1) adjacent |= 1u << i | 1u << j;
			}
		}
		/* alone: not next to another end, and the others plain */
		unsigned all = (1u << n) - 1;
		alone = 0;
		for (int i = 0; i < n; i++)
			if (!(adjacent >> i & 1) && (plain | 1u << i) == all) alone |= 1u << i;
	}
	int known = g->river_peek != 0xffff && (!g->river_left1 || g->river_dead1) && !put_back_last(g);
	unsigned fast = 0;
	for (int i = 0; i < n; i++) {
		near |= (uint64_t)1 << near_bit(f[i].x, f[i].y);
		if (!known || (g->river_left1 && !(alone >> i & 1))) continue;
		unsigned kept = g->river_room[i], taken = kept >> 4;
		unsigned ok = avoiding[~taken & ~kept & 0xf]; /* every open end with room ahead */
		if (g->river_left1 && n == 1) ok &= ~avoiding[~taken & 0xf]; /* and one at least */
		g->river_ok[i] = (uint16_t)ok;
		fast |= 1u << i;
	}
	g->river_near = near;
	g->river_alone = (uint16_t)alone;
	g->river_fast = (uint16_t)fast;
}

/* 1 + the first position of front[] at a listed open end where `allow`
 * (as allow_mask gives it) lets the tile go, 0 none: where first_fit
 * finds it, as it asks river_allowed place by place.  An open end keeps
 * the edges around it as its frontier place does, so a turn allowed
 * there fits there; the cell map gives each end's position. */
static uint16_t first_listed(const carc_game *g, uint64_t allow)
{
	int first = INT_MAX;
	for (int i = 0; allow; i++, allow >>= 4) {
		int k = allow & 0xf ? carc_board_front_at(g, g->river_open[i].x, g->river_open[i].y) : -1;
		if (k >= 0 && k < first) first = k;
	}
	return first == INT_MAX ? 0 : (uint16_t)(first + 1);
}

/* river_allow for the next draw when it is river_peek and a river tile:
 * river_filter's answers at every listed open end and turn, worked out
 * once here, where the board changes, rather than by the draw (is there
 * a place?), the listing and the check of the move chosen each.  They
 * are worked out for the game as it will be then, one entry further on. */
static void allow_next(carc_game *g)
{
	g->river_known = 0;
	if (g->river_peek == 0xffff || !river_edges(carc_entry_tile(g->river_peek))) return;
	/* other judges (the cult places') may not have seen the tile placed
	 * yet: their answers count in allow_mask, so it waits for the draw */
	if (carc_judges_but(g, &carc_ext_river, carc_entry_tile(g->river_peek))) return;
	g->next++; /* as the draw will leave it */
	g->river_allow = allow_mask(g, carc_entry_tile(g->river_peek));
	g->next--;
	g->river_fit = first_listed(g, g->river_allow);
	g->river_known = 1;
}

/* river_placed while the river is open: the placed tiles near the first
 * (river_occ), the counts of river tiles still to draw, the last volcano
 * lake, and the list of open river ends (g->river_open, the places of
 * g->front that show a river, with the same want and mask) with what is
 * kept about each (g->river_room, river_alone, river_near, river_ok)
 * follow the board.  More than the list holds never happens with the sets
 * in scope; then nriver_open stays 0xff and river_allowed reads g->front. */
static __attribute__((noinline)) void river_follow(carc_game *g, int cell)
{
	const carc_cell *c = &g->cells[cell];
	int x = c->x, y = c->y;
	const carc_tiletype *t = &carc_tiletypes[c->type];
	g->river_known = 0;
	if ((t->symbols & CARC_SYM_LAKE) && (t->symbols & CARC_SYM_VOLCANO)) g->river_lake = (uint16_t)(cell + 1);
	if (g->ncells == 1) river_start(g, x, y);
	unsigned ux = (unsigned)(x - g->river_x0), uy = (unsigned)(y - g->river_y0);
	if (ux < 32 && uy < 32) g->river_occ[uy] |= 1u << ux;
	g->river_box[0] = (int16_t)(x < g->river_box[0] ? x : g->river_box[0]);
	g->river_box[1] = (int16_t)(x > g->river_box[1] ? x : g->river_box[1]);
	g->river_box[2] = (int16_t)(y < g->river_box[2] ? y : g->river_box[2]);
	g->river_box[3] = (int16_t)(y > g->river_box[3] ? y : g->river_box[3]);
	/* the tiles drawn (or hidden) since, then the next one to draw */
	int left, dead, next = g->next, forks = g->river_forks, curves = g->river_curves;
	counts_at(g, next, &left, &dead);
	for (int k = g->river_next; k < next; k++) {
		unsigned e = river_edges(carc_entry_tile(g->supply[k]));
		forks -= FORK_EDGES >> e & 1;
		curves -= CURVE_EDGES >> e & 1;
	}
	g->river_next = (uint16_t)next;
	g->river_left = (uint16_t)left;
	g->river_dead = (uint16_t)dead;
	g->river_forks = (uint8_t)forks;
	g->river_curves = (uint8_t)curves;
	g->river_peek = 0xffff; /* none: the supply is empty */
	if (next < g->nsupply) {
		unsigned e = river_edges(carc_entry_tile(g->supply[next]));
		g->river_peek = g->supply[next];
		g->river_left1 = (uint16_t)(left - (e != 0));
		g->river_dead1 = (uint16_t)(dead - dead_end(e));
		forks -= FORK_EDGES >> e & 1;
		curves -= CURVE_EDGES >> e & 1;
		g->river_shapes1 = (uint8_t)((forks > 0) | (curves > 0) << 1);
	}
	int n = g->nriver_open;
	if (g->turn && (!n || !left)) { /* in play, not between start tiles */
		g->river_closed = 1;
		g->river_near = 0;
		return;
	}
	if (n == 0xff) return;
	uint32_t code = t->edge_code[c->rot];
	unsigned river = river_turned(c->type, c->rot), empty = 0; /* river edges known to face an empty place */
	/* The place is taken; the ends next to it see its edges, and those
	 * it is ahead of lose the room that way. */
	for (int i = 0; i < n;) {
		carc_front *f = &g->river_open[i];
		int rx = x - f->x, ry = y - f->y;
		if (!rx && !ry) { /* placed on this end: its sides without a tile */
			empty = river & ~(g->river_room[i] >> 4);
			river = empty;
			if (i != --n) {
				*f = g->river_open[n];
				g->river_room[i] = g->river_room[n];
			}
			continue;
		}
		if (rx >= -2 && rx <= 2 && ry >= -2 && ry <= 2) {
			g->river_room[i] &= (uint8_t)~rect_hits(rx, ry);
			for (int d = 0; d < 4; d++)
				if (rx == carc_dx[d] && ry == carc_dy[d]) {
					learn_side(f, d, code >> (8 * ((d + 2) & 3)) & 0xff);
					g->river_room[i] |= (uint8_t)(0x10u << d);
				}
		}
		i++;
	}
	/* Its river edges that face an empty place not yet listed. */
	for (unsigned b = river; b; b &= b - 1) {
		int d = __builtin_ctz(b), px = x + carc_dx[d], py = y + carc_dy[d], i;
		if (!(empty >> d & 1) && occupied_now(g, px, py)) continue;
		for (i = 0; i < n; i++)
			if (g->river_open[i].x == px && g->river_open[i].y == py) break;
		if (i < n) continue;
		if (n == (int)(sizeof g->river_open / sizeof g->river_open[0])) {
			g->nriver_open = 0xff;
			g->river_near = ~(uint64_t)0;
			return;
		}
		new_open_end(g, code, px, py, d, n++);
	}
	g->nriver_open = (uint8_t)n;
	if (!n) {
		g->river_closed = g->turn != 0;
		g->river_near = 0;
		return;
	}
	ends_known(g, n);
	allow_next(g);
}

/* After every placement, the start tiles' too.  Once the river is closed
 * nothing is left to follow, and from the placement after the one that
 * closed it (the last lake's turn is over) no deploy is refused and no
 * extra turn given any more: the river leaves those hooks. */
static void river_placed(carc_game *g, int cell, carc_sink *out)
{
	(void)out;
	if (!g->river_closed) {
		river_follow(g, cell);
		return;
	}
	carc_ext_hook(g, CARC_EXT_RIVER, CARC_HOOK_PLACED, 0);
	carc_ext_hook(g, CARC_EXT_RIVER, CARC_HOOK_DEPLOY, 0);
	carc_ext_hook(g, CARC_EXT_RIVER, CARC_HOOK_EXTRA, 0);
}

/* The volcano lake (no figure on it, another turn for its placer) is
 * the tile just placed whenever these are asked: river_placed notes the
 * last one placed (lakes are river tiles, so none comes after the river
 * is closed). */
static int river_deploy_allowed(const carc_game *g, int cell) { return cell + 1 != g->river_lake; }

/* carc_move_refusal: a deploy on the volcano lake just placed, while the
 * river refuses deploys (the lake's turn). */
static int river_move_why(const carc_game *g, const carc_move *m, int *ax, int *ay)
{
	if (m->type != CARC_MV_DEPLOY || g->phase != CARC_PH_ACTION ||
	    !(g->hook_exts[__builtin_ctz(CARC_HOOK_DEPLOY)] >> CARC_EXT_RIVER & 1) || river_deploy_allowed(g, g->last))
		return CARC_RF_NONE;
	*ax = g->cells[g->last].x;
	*ay = g->cells[g->last].y;
	return CARC_RF_VOLCANO_LAKE;
}

/* The volcano lake's extra turn, unless this turn is an extra one
 * already: "only one extra tile per turn" (RULES.md 4.7), whether the
 * builder gave it or not. */
static int river_extra_turn(carc_game *g)
{
	return g->last + 1 == g->river_lake && g->cfg.rules[CARC_R_VOLCANO_LAKE_EXTRA_TURN] && /* CARC_NONE + 1: none */
	       !g->extra;
}

/* first_allowed: river_follow has found it (river_fit) when the tile
 * drawn is the one it looked at (peek_drawn).  Past the list of open ends
 * every placement is worked out at once (unlisted_mask), as the listing
 * does: asked place by place, as the draw would, each place the quick
 * test lets through would work them all out again. */
static int river_first(const carc_game *g, int type)
{
	if (g->nriver_open == 0xff && g->river_near) {
		uint8_t ok[CARC_MAX_FRONTIER];
		unlisted_ask a;
		unlisted_begin(g, &a);
		unlisted_mask(g, &a, type, ok);
		for (int i = 0; i < g->nfront; i++)
			if (ok[i]) return i;
		return -1;
	}
	return g->river_known && peek_drawn(g, g->next) ? g->river_fit - 1 : CARC_FIRST_UNKNOWN;
}

/* unplaceable_tile reshuffle: in a supply the game dealt (river_order
 * ran), a river tile put back is still a river tile, and river tiles come
 * before all others, the lake last (RULES.md 2.2): it goes under the
 * river tiles still to come, before a lake among them.  When none is
 * still to come, to the bottom (a river tile that fits nowhere now fits
 * nowhere later either: land tiles only fill the room ahead of the
 * river's ends; it is discarded when drawn again).  In a caller-given
 * order (river_end 0) the caller orders the river, and a tile put back
 * goes to the end of the list, a river tile too (PROTOCOL.md, `tiles`). */
static int river_put_back(const carc_game *g, int type, int to)
{
	if (!river_edges(type) || !g->river_end) return to;
	int last = -1;
	for (int i = g->next; i < g->nsupply; i++) {
		int t = carc_entry_tile(g->supply[i]);
		if (!river_edges(t)) continue;
		if (carc_tiletypes[t].symbols & CARC_SYM_LAKE) return i - 1; /* before the lake, which moves up one less */
		last = i;
	}
	return last >= 0 ? last : to; /* under the last, which moves up one */
}

/* ---- why a placement is refused ------------------------------------------------------ */

/* The turn a tile whose river edges, turned, are `e` makes, the river
 * coming in at side `in`: 0 straight on, 1 to the right, 3 to the left;
 * -1 unless it has two river edges, one of them `in`. */
static int turn_of(unsigned e, int in)
{
	if (__builtin_popcount(e) != 2 || !(e >> in & 1)) return -1;
	int out = __builtin_ctz(e & ~(1u << in));
	return (out - ((in + 2) & 3)) & 3;
}

/* placement_why: the conditions of the placement rule one by one, in
 * carc_refusal's order, each read plainly off the board; the look ahead
 * is river_at_end's own answer (the guard before it has passed), and a
 * placement it allows is refused for leaving no free end (free_of). */
static int river_why(const carc_game *g, int type, int x, int y, int rot, int *ax, int *ay)
{
	unsigned e = river_turned(type, rot), joined = 0;
	for (unsigned b = e; b; b &= b - 1) {
		int d = __builtin_ctz(b);
		if (occupied_now(g, x + carc_dx[d], y + carc_dy[d])) joined |= 1u << d;
	}
	if (!joined) return CARC_RF_RIVER_UNJOINED;
	if (joined & (joined - 1)) return CARC_RF_RIVER_JOINS;
	/* the tile it continues and the turn the river made there, coming in
	 * at its other river edge (a spring or a fork makes none) */
	int in = __builtin_ctz(joined), c = carc_board_lookup(g, x + carc_dx[in], y + carc_dy[in]);
	unsigned before = river_turned(g->cells[c].type, g->cells[c].rot), back = before & ~(1u << ((in + 2) & 3));
	int turn = turn_of(e, in);
	if (turn > 0 && dead_end(back) && turn_of(before, __builtin_ctz(back)) == turn) return CARC_RF_RIVER_U_TURN;
	vboard v = { g, x, y, type, rot, 0 };
	unsigned open = e & ~joined;
	for (unsigned b = open; b; b &= b - 1) {
		int d = __builtin_ctz(b);
		if (!room_toward(&v, x, y, d)) {
			*ax = x + carc_dx[d];
			*ay = y + carc_dy[d];
			return CARC_RF_RIVER_ROOM;
		}
	}
	if (g->nriver_open != 0xff) {
		int i = open_end_at(g, x, y), left, dead;
		if (i < 0) return CARC_RF_OTHER; /* its river meets one: listed */
		counts_now(g, &left, &dead);
		if (!open && g->nriver_open == 1 && left) return CARC_RF_RIVER_ENDS;
		return river_at_end(g, type, rot, i, e) ? CARC_RF_RIVER_NOT_FREE : CARC_RF_RIVER_BOXED;
	}
	unlisted_ask a; /* past the list: the same questions of the board */
	unlisted_begin(g, &a);
	int ends = __builtin_popcount(open);
	for (int j = 0; j < a.n; j++) ends += g->front[a.at[j]].x != x || g->front[a.at[j]].y != y;
	if (!ends && a.counted) return CARC_RF_RIVER_ENDS;
	return unlisted_at(g, &a, type, x, y, rot, 0) ? CARC_RF_RIVER_NOT_FREE : CARC_RF_RIVER_BOXED;
}

const carc_ext carc_ext_river = {
	.name = "river",
	.also = "river2",
	.order_supply = river_order,
	.put_back = river_put_back,
	.placement_allowed = river_allowed,
	.placement_why = river_why,
	.placement_tiles = CARC_PT_RIVER,
	.filter_placements = river_filter,
	.first_allowed = river_first,
	.tile_placed = river_placed,
	.deploy_allowed = river_deploy_allowed,
	.extra_turn = river_extra_turn,
	.move_why = river_move_why,
};

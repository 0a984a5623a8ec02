/*
 * board.c - where tiles lie: the cell map, the frontier of empty positions
 * next to the board, edge matching, and joining a new tile's features to
 * its neighbours'.
 *
 * The frontier keeps, for every empty position that touches the board,
 * the edge kinds its placed neighbours show it.  Finding every legal
 * (x, y, rot) of a tile is then one masked compare per position and
 * rotation, which is what lets random playouts run at tens of thousands
 * of games a second.
 */
#include <string.h>

#include "game_int.h"

static uint32_t cell_key(int x, int y)
{
	return ((uint32_t)(x + 0x4000) << 16) | (uint32_t)(y + 0x4000);
}

/* The cell map lays the board out on a 32 x 32 torus: (x, y) goes first to
 * slot 32 (x + 16) + y + 16 (mod 1024), so the places around a tile sit
 * next to its own in the map (one slot away along y, 32 along x), and
 * the board around the start tile, up to 15 places away, lies in one
 * piece in the middle of the map.  A board wider than 32 folds over
 * itself: a key whose home slot holds another goes on by a step of its
 * own (double hashing).  A step of one would walk into the slots of the
 * key's own neighbours, and on a folded board the runs of filled slots
 * would join into runs hundreds long (caller-given start tiles far apart
 * make such boards). */
_Static_assert(CARC_HASH_SIZE == 32 * 32, "the cell map is a 32 x 32 torus");
static unsigned home(uint32_t key)
{
	return ((key >> 16 << 5) + key + 32 * 16 + 16) & (CARC_HASH_SIZE - 1);
}

/* Slot of a key in the cell map, from its home slot h on: its own slot, or
 * the empty one where it would go.  The map never fills: it holds at most
 * CARC_MAX_TILES + CARC_MAX_FRONTIER keys (game_int.h).  No key is ever
 * taken out (a place of the frontier that gets a tile keeps its slot), so
 * an empty slot on a key's way ends the search. */
static inline int probe(const carc_game *g, unsigned h, uint32_t key)
{
	/* one test, not two, for the key or an empty slot (either is found
	 * about as often as the other, which two tests would have to guess):
	 * (k ^ key) * k is 0 only when one of its factors is */
#define OTHER_KEY(h) ((uint64_t)(g->hkey[h] ^ key) * g->hkey[h] != 0)
	if (__builtin_expect(OTHER_KEY(h), 0)) {
		/* odd, so the steps visit every slot of the map */
		unsigned step = (key * 0x9e3779b1u) >> 22 | 1;
		do h = (h + step) & (CARC_HASH_SIZE - 1);
		while (OTHER_KEY(h));
	}
#undef OTHER_KEY
	return (int)h;
}

static int slot(const carc_game *g, uint32_t key) { return probe(g, home(key), key); }

int carc_board_lookup(const carc_game *g, int x, int y)
{
	int s = slot(g, cell_key(x, y));
	return g->hkey[s] && g->hval[s] >= 0 ? g->hval[s] : -1;
}

/* No tile lies outside the 16-bit coordinates of moves and cells; the cell
 * map's keys tell apart every place inside them. */
static int on_map(int x, int y) { return x >= INT16_MIN && x <= INT16_MAX && y >= INT16_MIN && y <= INT16_MAX; }

/* The position in front[] of the empty place (x, y) next to the board,
 * or -1 when a tile lies there, none touches it or it is off the map. */
int carc_board_front_at(const carc_game *g, int x, int y)
{
	if (!on_map(x, y)) return -1;
	int s = slot(g, cell_key(x, y));
	return g->hkey[s] && g->hval[s] < 0 ? ~g->hval[s] : -1;
}

int carc_board_find(const carc_game *g, int x, int y) { return on_map(x, y) ? carc_board_lookup(g, x, y) : -1; }

int carc_board_fits(const carc_game *g, int type, int x, int y, int rot, int *bad_edge)
{
	int s = slot(g, cell_key(x, y));
	if (!g->hkey[s]) return CARC_E_NOT_ADJACENT;
	if (g->hval[s] >= 0) return CARC_E_OCCUPIED;
	const carc_front *f = &g->front[~g->hval[s]];
	uint32_t diff = (carc_tiletypes[type].edge_code[rot & 3] & f->mask) ^ f->want;
	if (!diff) return CARC_OK;
	if (bad_edge) {
		int d = 0;
		while (!((diff >> (8 * d)) & 0xff)) d++;
		*bad_edge = d;
	}
	return CARC_E_EDGE;
}

uint16_t carc_board_ports(const carc_game *g, int node)
{
	const carc_node *n = &g->nodes[node];
	const carc_cell *c = &g->cells[n->cell];
	return (uint16_t)carc_tfeat_ports(&carc_tiletypes[c->type].f[n->feat], c->rot);
}


static void front_remove(carc_game *g, int fi)
{
	g->nholes -= g->front[fi].mask == 0xffffffffu;
	int last = --g->nfront;
	if (fi != last) {
		g->front[fi] = g->front[last];
		g->hval[slot(g, cell_key(g->front[fi].x, g->front[fi].y))] = (int16_t)~fi;
	}
}

/* An empty neighbour learns which edge kind it must show toward the tile
 * placed on its side `side`; a place new to the frontier joins it at the
 * end.  s is where the search for its key starts in the cell map. */
static void front_touch(carc_game *g, int s, uint32_t key, int side, uint32_t kind)
{
	s = probe(g, (unsigned)s, key);
	/* a place is about as likely new as listed: chosen without a branch
	 * (listed is all ones or 0) */
	int fresh = !g->hkey[s], listed = fresh - 1, fi = (~g->hval[s] & listed) | (g->nfront & ~listed);
	carc_front *f = &g->front[fi];
	uint32_t want = f->want & (uint32_t)listed, mask = f->mask & (uint32_t)listed;
	g->hkey[s] = key;
	g->hval[s] = (int16_t)~fi;
	g->nfront = (uint16_t)(g->nfront + fresh);
	f->x = (int16_t)((key >> 16) - 0x4000);
	f->y = (int16_t)((key & 0xffff) - 0x4000);
	f->want = want | kind << (8 * side);
	f->mask = mask | 0xffu << (8 * side);
	/* the side was empty until now, so the place was no hole before */
	g->nholes += f->mask == 0xffffffffu;
}

static int bits8(unsigned v)
{
	static const uint8_t nibble[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };
	return nibble[v & 15] + nibble[v >> 4 & 15];
}

/* Open ends of a new segment: the half-edges of a field, the edges of a
 * road, city or river (for a city also the edges it reaches beside
 * another city, multi=), none for a centre building. */
static int feat_open(const carc_tfeat *f)
{
	_Static_assert(CARC_F_COUNT == 6, "a kind for each feature kind");
	static const uint8_t by_edges[CARC_F_COUNT] = { 0xff, 0xff, 0, 0, 0xff, 0 };
	static const uint8_t by_halves[CARC_F_COUNT] = { 0, 0, 0xff, 0, 0, 0 };
	return bits8(((f->edges | f->multi) & by_edges[f->kind]) | (f->halves & by_halves[f->kind]));
}

/* Joins segment a to segment b across an edge: each loses one open end.
 * Returns the root of the feature. */
static inline int connect_root(carc_game *g, int a, int b)
{
	int r = carc_feat_join(g, a, b);
	g->nodes[r].open = (int16_t)(g->nodes[r].open - 2);
	return r;
}

/* The same, returning 1 when that leaves a road or city with no open end. */
static inline unsigned connect(carc_game *g, int a, int b)
{
	carc_node *r = &g->nodes[connect_root(g, a, b)];
	return (r->open == 0) & (r->kind <= CARC_F_CITY);
}

/* A feature loses an open end (at an abbey wall, or the one end of a
 * multi= city that joins across); as connect(). */
static unsigned walled(carc_game *g, int a)
{
	carc_node *r = &g->nodes[carc_feat_root(g, a)];
	r->open--;
	return (r->open == 0) & (r->kind <= CARC_F_CITY);
}

/* A side where a city of one tile also reaches beside the city of that
 * edge (multi=, am and bm: the tiles' multi_feat there, node numbers or
 * -1; a and b their edge features, -1 for an abbey wall): the city across
 * joins it as well (a city's edge meets both), or the wall ends it.
 * Each such city loses its one open end there; the edge cities have been
 * joined or walled already.  As connect(). */
static __attribute__((noinline)) unsigned multi_side(carc_game *g, int a, int am, int b, int bm)
{
	unsigned closing = 0;
	int pairs[2][2] = { { am, b }, { bm, a } };
	for (int k = 0; k < 2; k++) {
		int m = pairs[k][0], across = pairs[k][1];
		if (m >= 0) closing |= walled(g, across < 0 ? m : carc_feat_join(g, m, across)); /* one end less */
	}
	return closing;
}

/* The eight places around a tile, in the order placements visit them:
 * N E S W, then the diagonals NE SE SW NW; for (dx, dy), how far their
 * home slots (32 dx + dy) and their keys (dx << 16 + dy) are from the
 * tile's. */
#define RING(f) { f(0, -1), f(1, 0), f(0, 1), f(-1, 0), f(1, -1), f(1, 1), f(-1, 1), f(-1, -1) }
#define RING_SLOT(dx, dy) (32 * (dx) + (dy))
#define RING_KEY(dx, dy) ((dx) * 0x10000 + (dy))
static const int16_t ring_slot[8] = RING(RING_SLOT);
static const int32_t ring_key[8] = RING(RING_KEY);

typedef int16_t v4s16 __attribute__((vector_size(8)));
typedef int32_t v4s32 __attribute__((vector_size(16)));
static inline unsigned lanes(v4s32 v) /* bit i: lane i is true */
{
#if defined(__SSE__)
	return (unsigned)__builtin_ia32_movmskps((carc_v4f)v);
#else
	return (v[0] & 1u) | (v[1] & 2u) | (v[2] & 4u) | (v[3] & 8u);
#endif
}

/* The tiles around the place whose key and home slot are given: bit d of
 * the result for a tile at ring place d, and its cell in nc[d].  Most of
 * the time every place around is at its home slot or not in the map at
 * all, and the 3 x 3 block of home slots is three runs of the map, one
 * for each of x - 1, x, x + 1: they are read and compared four slots at
 * a time, without a guess about which places are empty.  Else (a slot in
 * the block holds another key, or the block wraps around the end of the
 * map) each place is looked up on its own. */
static unsigned around(const carc_game *g, unsigned h, uint32_t key, int nc[8])
{
	/* where ring place d is in the runs: run (x + 1) * 4 + y + 1, and
	 * the ring places of the first three slots of each run */
	static const uint8_t lane[8] = { 4, 9, 6, 1, 8, 10, 2, 0 };
	static const uint8_t ring[3][8] = { { 0, 128, 8, 136, 64, 192, 72, 200 },
	                                    { 0, 1, 0, 1, 4, 5, 4, 5 },
	                                    { 0, 16, 2, 18, 32, 48, 34, 50 } };
	unsigned placed = 0, other = 1;
	int16_t val[12];
	if (h >= 33 && h + 35 <= CARC_HASH_SIZE) {
		other = 0;
#pragma GCC unroll 3
		for (int r = 0; r < 3; r++) {
			unsigned s = h + 32 * (unsigned)r - 33; /* (x + r - 1, y - 1) */
			carc_v4u keys, want = (carc_v4u){ 0, 1, 2, 3 } + (key + (uint32_t)r * 0x10000 - 0x10001);
			v4s16 v;
			__builtin_memcpy(&keys, &g->hkey[s], sizeof keys);
			__builtin_memcpy(&v, &g->hval[s], sizeof v);
			__builtin_memcpy(&val[4 * r], &v, sizeof v);
			v4s32 hit = (v4s32)(keys == want), none = (v4s32)(keys == 0);
			placed |= ring[r][lanes(hit & (__builtin_convertvector(v, v4s32) >= 0)) & 7];
			other |= lanes(~(hit | none)) & (r == 1 ? 5 : 7);
		}
	}
	if (__builtin_expect(!other, 1)) {
#pragma GCC unroll 8
		for (int d = 0; d < 8; d++) nc[d] = val[lane[d]];
		return placed;
	}
	placed = 0;
	for (int d = 0; d < 8; d++) {
		int sl = probe(g, (h + (unsigned)ring_slot[d]) & (CARC_HASH_SIZE - 1), key + (uint32_t)ring_key[d]);
		nc[d] = g->hval[sl];
		placed |= (unsigned)(g->hkey[sl] && nc[d] >= 0) << d;
	}
	return placed;
}

/* Places a tile: joins its features to the neighbours', teaches the empty
 * neighbours what they must match, and queues the cloisters it completes
 * (roads and cities are checked by the caller, which g->closing spares
 * when none was closed).  Returns the new cell. */
int carc_board_place(carc_game *g, int type, int x, int y, int rot)
{
	const carc_tiletype *t = &carc_tiletypes[type];
	if (g->ncells >= CARC_MAX_TILES || g->nnodes + t->nfeat > CARC_MAX_NODES) return -1;
	uint32_t key = cell_key(x, y);
	unsigned h = home(key);
	int s = probe(g, h, key);
	if (g->hkey[s] && g->hval[s] >= 0) return -1;
	if (g->hkey[s]) front_remove(g, ~g->hval[s]);
	int c = g->ncells++, node0 = g->nnodes;
	g->hkey[s] = key;
	g->hval[s] = (int16_t)c;
	g->cells[c] = (carc_cell){ (uint16_t)type, (int16_t)x, (int16_t)y, (uint8_t)rot, 0, (uint16_t)node0 };
	for (int i = 0; i < t->nfeat; i++) {
		int id = node0 + i;
		g->nodes[id] = (carc_node){ (uint16_t)id, (uint16_t)id, (uint16_t)c, 1,
		                            (int16_t)feat_open(&t->f[i]), (uint8_t)i, t->f[i].kind, 0, 0 };
	}
	g->nnodes = (uint16_t)(node0 + t->nfeat);

	/* a cloister whose eighth neighbour just arrived is complete */
	int nc[8];
	unsigned placed = around(g, h, key, nc);
	for (unsigned m = placed; m; m &= m - 1) {
		int n = nc[__builtin_ctz(m)];
		if (__builtin_expect(++g->cells[n].nb == 8, 0)) {
			int cl = carc_cell_type(g, n)->cloister;
			if (cl != CARC_NOF) carc_pending_add(g, g->cells[n].node0 + cl);
		}
	}
	g->cells[c].nb = (uint8_t)bits8(placed);
	if (__builtin_expect(placed == 0xff, 0) && t->cloister != CARC_NOF) carc_pending_add(g, node0 + t->cloister);

	uint32_t code = t->edge_code[rot];
	for (unsigned m = ~placed & 15; m; m &= m - 1) {
		int d = __builtin_ctz(m);
		front_touch(g, (h + (unsigned)ring_slot[d]) & (CARC_HASH_SIZE - 1), key + (uint32_t)ring_key[d],
		            (d + 2) & 3, code >> (8 * d) & 0xff);
	}
	unsigned closing = 0;
	for (unsigned m = placed & 15; m; m &= m - 1) {
		int d = __builtin_ctz(m), o = (d + 2) & 3;
		const carc_cell *n = &g->cells[nc[d]];
		const carc_tiletype *nt = &carc_tiletypes[n->type];
		int ud = (d - rot) & 3, uo = (o - n->rot) & 3; /* the unturned sides that meet */
		unsigned a = t->edge_feat[ud], b = nt->edge_feat[uo];
		if ((a | b) != CARC_NOF) closing |= connect(g, node0 + (int)a, n->node0 + (int)b);
		else if (a != b) /* an abbey wall ends the road or city there */
			closing |= walled(g, a != CARC_NOF ? node0 + (int)a : n->node0 + (int)b);
		unsigned am = t->multi_feat[ud], bm = nt->multi_feat[uo];
		if (__builtin_expect((am & bm) != CARC_NOF, 0))
			closing |= multi_side(g, a != CARC_NOF ? node0 + (int)a : -1, am != CARC_NOF ? node0 + (int)am : -1,
			                      b != CARC_NOF ? n->node0 + (int)b : -1, bm != CARC_NOF ? n->node0 + (int)bm : -1);
		/* the fields along the side, left and right half; most often
		 * one field on each tile, and then the second is joined already */
		unsigned a0 = t->half_feat[2 * ud], b0 = nt->half_feat[2 * uo + 1];
		unsigned a1 = t->half_feat[2 * ud + 1], b1 = nt->half_feat[2 * uo];
		int r = -1;
		if ((a0 | b0) != CARC_NOF) r = connect_root(g, node0 + (int)a0, n->node0 + (int)b0);
		else if (__builtin_expect(a0 != b0, 0)) /* an abbey wall bounds the field: one open end less a half */
			walled(g, a0 != CARC_NOF ? node0 + (int)a0 : n->node0 + (int)b0);
		if ((a1 | b1) == CARC_NOF) {
			if (__builtin_expect(a1 != b1, 0)) walled(g, a1 != CARC_NOF ? node0 + (int)a1 : n->node0 + (int)b1);
			continue;
		}
		if (a1 == a0 && b1 == b0) g->nodes[r].open = (int16_t)(g->nodes[r].open - 2);
		else connect(g, node0 + (int)a1, n->node0 + (int)b1);
	}
	g->closing |= (uint8_t)closing;
	return c;
}

int carc_board_count(const carc_game *g) { return g->ncells; }

int carc_board_get(const carc_game *g, int i, carc_placed_info *out)
{
	if (i < 0 || i >= g->ncells) return 0;
	const carc_cell *c = &g->cells[i];
	if (out) *out = (carc_placed_info){ c->type, c->x, c->y, c->rot };
	return 1;
}

/* The segments of cell c that belong to the feature of its segment i,
 * i included (bit j: segment j). */
static unsigned same_feature(const carc_game *g, int c, int i)
{
	const carc_tiletype *t = carc_cell_type(g, c);
	int node0 = g->cells[c].node0, root = carc_feat_root(g, node0 + i);
	unsigned m = 0;
	for (int j = 0; j < t->nfeat; j++) m |= (unsigned)(carc_feat_root(g, node0 + j) == root) << j;
	return m;
}

int carc_board_first_segment(const carc_game *g, int node)
{
	const carc_node *n = &g->nodes[node];
	unsigned parts = same_feature(g, n->cell, n->feat);
	if (!(parts & (parts - 1))) return node; /* the feature's only part on the tile */
	int node0 = g->cells[n->cell].node0, best = node0 + __builtin_ctz(parts);
	for (parts &= parts - 1; parts; parts &= parts - 1) {
		int i = node0 + __builtin_ctz(parts);
		if (carc_board_first_port(g, i) < carc_board_first_port(g, best)) best = i;
	}
	return best;
}

unsigned carc_board_later_parts(const carc_game *g, int cell)
{
	const carc_cell *c = &g->cells[cell];
	const carc_tiletype *t = &carc_tiletypes[c->type];
	const uint8_t *first = t->first_port[c->rot];
	int root[CARC_TILE_MAXF];
	unsigned later = 0;
	for (int i = 0; i < t->nfeat; i++) { /* each root found once; of two parts, the later port is marked */
		root[i] = carc_feat_root(g, c->node0 + i);
		for (int j = 0; j < i; j++)
			if (root[j] == root[i]) later |= first[j] < first[i] ? 1u << i : 1u << j;
	}
	return later;
}

uint16_t carc_feature_ports(const carc_game *g, int x, int y, int port)
{
	int c = carc_board_find(g, x, y);
	if (c < 0 || port < 0 || port >= CARC_P_NW) return 0;
	int node = carc_board_feature_at(g, c, port);
	if (node < 0) return 0;
	unsigned parts = same_feature(g, c, g->nodes[node].feat), ports = 0;
	for (; parts; parts &= parts - 1) ports |= carc_board_ports(g, g->cells[c].node0 + __builtin_ctz(parts));
	return (uint16_t)ports;
}

int carc_tile_features(const carc_game *g, int x, int y, uint16_t *ports_out, uint8_t *kinds_out, int cap)
{
	int c = carc_board_find(g, x, y);
	if (c < 0) return 0;
	const carc_tiletype *t = carc_cell_type(g, c);
	for (int i = 0; i < t->nfeat && i < cap; i++) {
		if (ports_out) ports_out[i] = carc_board_ports(g, g->cells[c].node0 + i);
		if (kinds_out) kinds_out[i] = t->f[i].kind;
	}
	return t->nfeat;
}

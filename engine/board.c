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

/* Slot of (x, y) in the cell map: its own slot, or the empty one where it
 * would go.  The map never fills: it holds at most 3 * CARC_MAX_TILES + 4. */
static int slot(const carc_game *g, uint32_t key)
{
	uint32_t h = (key * 2654435761u) >> 22;
	for (;;) {
		h &= CARC_HASH_SIZE - 1;
		if (g->hkey[h] == key || g->hkey[h] == 0) return (int)h;
		h++;
	}
}

int carc_board_lookup(const carc_game *g, int x, int y)
{
	int s = slot(g, cell_key(x, y));
	return g->hkey[s] && g->hval[s] >= 0 ? g->hval[s] : -1;
}

int carc_board_find(const carc_game *g, int x, int y) { return carc_board_lookup(g, x, y); }

/* Frontier index of (x, y), or -1 when it is placed or not next to the board. */
static int front_index(const carc_game *g, int x, int y)
{
	int s = slot(g, cell_key(x, y));
	return g->hkey[s] && g->hval[s] < 0 ? ~g->hval[s] : -1;
}

int carc_board_fits(const carc_game *g, int type, int x, int y, int rot, int *bad_edge)
{
	if (carc_board_lookup(g, x, y) >= 0) return CARC_E_OCCUPIED;
	int fi = front_index(g, x, y);
	if (fi < 0) return CARC_E_NOT_ADJACENT;
	const carc_front *f = &g->front[fi];
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
	const carc_tfeat *f = &carc_tiletypes[c->type].f[n->feat];
	int r = c->rot;
	unsigned e = ((unsigned)f->edges << r | (unsigned)f->edges >> (4 - r)) & 0xf;
	unsigned h = ((unsigned)f->halves << (2 * r) | (unsigned)f->halves >> (8 - 2 * r)) & 0xff;
	unsigned ports = e | h << 4 | (unsigned)f->other << CARC_P_I;
	if (f->kind == CARC_F_CLOISTER) ports |= 1u << CARC_P_CLOISTER;
	if (f->kind == CARC_F_TOWER) ports |= 1u << CARC_P_TOWER;
	return (uint16_t)ports;
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

/* An empty neighbour learns which edge kind it must show toward the tile. */
static void front_touch(carc_game *g, int s, int x, int y, int side, uint32_t kind)
{
	int fi;
	if (!g->hkey[s]) {
		fi = g->nfront++;
		g->hkey[s] = cell_key(x, y);
		g->hval[s] = (int16_t)~fi;
		g->front[fi] = (carc_front){ (int16_t)x, (int16_t)y, 0, 0 };
	} else {
		fi = ~g->hval[s];
	}
	g->nholes -= g->front[fi].mask == 0xffffffffu;
	g->front[fi].want |= kind << (8 * side);
	g->front[fi].mask |= 0xffu << (8 * side);
	g->nholes += g->front[fi].mask == 0xffffffffu;
}

static int bits8(unsigned v)
{
	static const uint8_t nibble[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };
	return nibble[v & 15] + nibble[v >> 4 & 15];
}

static int feat_open(const carc_tfeat *f)
{
	if (f->kind == CARC_F_FIELD) return bits8(f->halves);
	if (f->kind == CARC_F_CLOISTER || f->kind == CARC_F_TOWER) return 0;
	return bits8(f->edges);
}

/* Joins segment a to segment b across an edge: each loses one open end. */
static void connect(carc_game *g, int a, int b)
{
	carc_feat_join(g, a, b);
	g->nodes[carc_feat_root(g, a)].open -= 2;
}

/* A cloister whose eighth neighbour just arrived is complete. */
static void count_neighbour(carc_game *g, int c)
{
	if (++g->cells[c].nb < 8) return;
	int cl = carc_cell_type(g, c)->cloister;
	if (cl != CARC_NOF) carc_pending_add(g, g->cells[c].node0 + cl);
}

/* Places a tile: joins its features to the neighbours', teaches the empty
 * neighbours what they must match, and queues the cloisters it completes
 * (roads and cities are checked by the caller).  Returns the new cell. */
int carc_board_place(carc_game *g, int type, int x, int y, int rot)
{
	static const int ring_x[8] = { 0, 1, 0, -1, 1, 1, -1, -1 }, ring_y[8] = { -1, 0, 1, 0, -1, 1, 1, -1 };
	const carc_tiletype *t = &carc_tiletypes[type];
	if (g->ncells >= CARC_MAX_TILES || g->nnodes + t->nfeat > CARC_MAX_NODES) return -1;
	int s = slot(g, cell_key(x, y));
	if (g->hkey[s] && g->hval[s] >= 0) return -1;
	if (g->hkey[s]) front_remove(g, ~g->hval[s]);
	int c = g->ncells++;
	g->hkey[s] = cell_key(x, y);
	g->hval[s] = (int16_t)c;
	carc_cell *cell = &g->cells[c];
	*cell = (carc_cell){ (uint16_t)type, (int16_t)x, (int16_t)y, (uint8_t)rot, 0, g->nnodes };
	for (int i = 0; i < t->nfeat; i++) {
		int id = g->nnodes++;
		g->nodes[id] = (carc_node){ (uint16_t)id, (uint16_t)id, (uint16_t)c, 1,
		                            (int16_t)feat_open(&t->f[i]), (uint8_t)i, t->f[i].kind, 0, 0 };
	}
	uint32_t code = t->edge_code[rot];
	int nb = 0;
	for (int d = 0; d < 8; d++) { /* N E S W, then the diagonals */
		int nx = x + ring_x[d], ny = y + ring_y[d], o = (d + 2) & 3;
		int ns = slot(g, cell_key(nx, ny));
		int nc = g->hkey[ns] && g->hval[ns] >= 0 ? g->hval[ns] : -1;
		if (nc >= 0) {
			nb++;
			count_neighbour(g, nc);
		}
		if (d >= 4) continue;
		if (nc < 0) {
			front_touch(g, ns, nx, ny, o, code >> (8 * d) & 0xff);
			continue;
		}
		int a = carc_board_feature_at(g, c, d), b = carc_board_feature_at(g, nc, o);
		if (a >= 0 && b >= 0) connect(g, a, b);
		else if ((a >= 0) != (b >= 0)) /* an abbey wall ends the road or city there */
			g->nodes[carc_feat_root(g, a >= 0 ? a : b)].open--;
		for (int h = 0; h < 2; h++) {
			a = carc_board_feature_at(g, c, 4 + 2 * d + h);
			b = carc_board_feature_at(g, nc, 4 + 2 * o + (1 - h));
			if (a >= 0 && b >= 0) connect(g, a, b);
		}
	}
	g->cells[c].nb = (uint8_t)(nb - 1);
	count_neighbour(g, c);
	return c;
}

int carc_board_count(const carc_game *g) { return g->ncells; }

void carc_board_get(const carc_game *g, int i, carc_placed_info *out)
{
	const carc_cell *c = &g->cells[i];
	*out = (carc_placed_info){ c->type, c->x, c->y, c->rot };
}

int carc_tile_features(const carc_game *g, int x, int y, uint16_t *ports_out, uint8_t *kinds_out, int cap)
{
	int c = carc_board_lookup(g, x, y);
	if (c < 0) return 0;
	const carc_tiletype *t = carc_cell_type(g, c);
	for (int i = 0; i < t->nfeat && i < cap; i++) {
		if (ports_out) ports_out[i] = carc_board_ports(g, g->cells[c].node0 + i);
		if (kinds_out) kinds_out[i] = t->f[i].kind;
	}
	return t->nfeat;
}

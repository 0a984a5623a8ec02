/*
 * oracle.c - the naive second model of the base game (see oracle.h).
 */
#include <check.h>
#include <string.h>

#include "oracle.h"
#include "testutil.h"
#include "tiles_int.h"

static const int ddx[4] = { 0, 1, 0, -1 }, ddy[4] = { -1, 0, 1, 0 };

void orc_init(orc *o, const carc_config *cfg)
{
	memset(o, 0, sizeof *o);
	o->nseats = cfg->nseats;
	o->farmers = cfg->rules[CARC_R_FARMERS];
	o->farm_rule = cfg->rules[CARC_R_FARM_SCORING];
	o->tiny_rule = cfg->rules[CARC_R_TINY_CITY];
	for (int i = 0; i < ORC_MAX_FIGS; i++) o->fig_seg[i] = -1;
}

int orc_cell_at(const orc *o, int x, int y)
{
	x += ORC_SPAN / 2;
	y += ORC_SPAN / 2;
	if (x < 0 || y < 0 || x >= ORC_SPAN || y >= ORC_SPAN) return -1;
	return o->grid[y][x] - 1;
}

/* Unturned port of board port p on a tile turned r quarter turns clockwise:
 * an edge moves one place a quarter turn, a half-edge two places. */
static int unturn(int p, int r)
{
	if (p < 4) return (p - r + 4) & 3;
	if (p < 12) return 4 + ((p - 4 - 2 * r + 8) & 7);
	return p;
}

/* Feature of an unturned tile at unturned port q, or -1. */
static int feat_at(int type, int q)
{
	const carc_tiletype *t = &carc_tiletypes[type];
	for (int i = 0; i < t->nfeat; i++) {
		const carc_tfeat *f = &t->f[i];
		if (q < 4 && (f->edges >> q & 1)) return i;
		if (q >= 4 && q < 12 && (f->halves >> (q - 4) & 1)) return i;
		if (q == CARC_P_CLOISTER && f->kind == CARC_F_CLOISTER) return i;
		if (q == CARC_P_TOWER && f->kind == CARC_F_TOWER) return i;
		if (q >= CARC_P_I && (f->other >> (q - CARC_P_I) & 1)) return i;
	}
	return -1;
}

int orc_tile_feature(int type, int rot, int port) { return feat_at(type, unturn(port, rot)); }

int orc_edge_kind(int type, int rot, int side)
{
	int f = orc_tile_feature(type, rot, side);
	return f < 0 ? CARC_F_FIELD : carc_tiletypes[type].f[f].kind;
}

carc_rc orc_fits(const orc *o, int type, int x, int y, int rot, unsigned *bad_edges)
{
	*bad_edges = 0;
	if (orc_cell_at(o, x, y) >= 0) return CARC_E_OCCUPIED;
	int neighbours = 0;
	for (int d = 0; d < 4; d++) {
		int n = orc_cell_at(o, x + ddx[d], y + ddy[d]);
		if (n < 0) continue;
		neighbours++;
		const orc_cell *c = &o->cells[n];
		if (orc_edge_kind(type, rot, d) != orc_edge_kind(c->type, c->rot, (d + 2) & 3)) *bad_edges |= 1u << d;
	}
	if (!neighbours) return CARC_E_NOT_ADJACENT;
	return *bad_edges ? CARC_E_EDGE : CARC_OK;
}

int orc_count_placements(const orc *o, int type)
{
	/* marks of this call: a new stamp instead of clearing 160 KB each time
	 * (it would take 2^32 calls to wrap) */
	static uint32_t seen[ORC_SPAN][ORC_SPAN], stamp;
	int n = 0, mine[4][4];
	stamp++;
	for (int r = 0; r < 4; r++)
		for (int d = 0; d < 4; d++) mine[r][d] = orc_edge_kind(type, r, d);
	for (int i = 0; i < o->ncells; i++)
		for (int d = 0; d < 4; d++) {
			int x = o->cells[i].x + ddx[d], y = o->cells[i].y + ddy[d], want[4], have[4];
			uint32_t *mark = &seen[y + ORC_SPAN / 2][x + ORC_SPAN / 2];
			if (*mark == stamp || orc_cell_at(o, x, y) >= 0) continue;
			*mark = stamp;
			for (int e = 0; e < 4; e++) {
				int nc = orc_cell_at(o, x + ddx[e], y + ddy[e]);
				have[e] = nc >= 0;
				want[e] = nc >= 0 ? orc_edge_kind(o->cells[nc].type, o->cells[nc].rot, (e + 2) & 3) : 0;
			}
			for (int r = 0; r < 4; r++) {
				int ok = 1;
				for (int e = 0; e < 4; e++) ok &= !have[e] || mine[r][e] == want[e];
				n += ok;
			}
		}
	return n;
}

int orc_root(const orc *o, int s)
{
	while (o->segs[s].parent != s) s = o->segs[s].parent;
	return s;
}

static void join(orc *o, int a, int b)
{
	a = orc_root(o, a);
	b = orc_root(o, b);
	if (a == b) return;
	/* the older root stays root, so a root is always its feature's first segment */
	if (a < b) o->segs[b].parent = a;
	else o->segs[a].parent = b;
}

int orc_port_seg(const orc *o, int cell, int port)
{
	const orc_cell *c = &o->cells[cell];
	int f = orc_tile_feature(c->type, c->rot, port);
	return f < 0 ? -1 : c->seg0 + f;
}

unsigned orc_ports_on(const orc *o, int root, int cell)
{
	unsigned ports = 0;
	for (int p = 0; p < CARC_PORT_COUNT; p++) {
		int s = orc_port_seg(o, cell, p);
		if (s >= 0 && orc_root(o, s) == root) ports |= 1u << p;
	}
	return ports;
}

int orc_tiles(const orc *o, int root, int *pennants)
{
	static uint8_t seen[CARC_MAX_TILES];
	int tiles = 0, pen = 0;
	memset(seen, 0, sizeof seen);
	for (int s = 0; s < o->nsegs; s++) {
		if (orc_root(o, s) != root) continue;
		pen += carc_tiletypes[o->cells[o->segs[s].cell].type].f[o->segs[s].feat].pennants;
		if (!seen[o->segs[s].cell]++) tiles++;
	}
	if (pennants) *pennants = pen;
	return tiles;
}

/* A road or city is complete when every edge of every segment has a neighbour. */
static int closed(const orc *o, int root)
{
	for (int s = 0; s < o->nsegs; s++) {
		if (orc_root(o, s) != root) continue;
		const orc_cell *c = &o->cells[o->segs[s].cell];
		for (int d = 0; d < 4; d++) {
			int f = orc_tile_feature(c->type, c->rot, d);
			if (f == o->segs[s].feat && orc_cell_at(o, c->x + ddx[d], c->y + ddy[d]) < 0) return 0;
		}
	}
	return 1;
}

static int around(const orc *o, int cell)
{
	int n = 0;
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++)
			n += (dx || dy) && orc_cell_at(o, o->cells[cell].x + dx, o->cells[cell].y + dy) >= 0;
	return n;
}

static void mark_done(orc *o, int root, int *completed, int *ncompleted)
{
	if (o->done[root]) return;
	o->done[root] = 1;
	completed[(*ncompleted)++] = root;
}

int orc_place(orc *o, int type, int x, int y, int rot, int *completed, int *ncompleted)
{
	const carc_tiletype *t = &carc_tiletypes[type];
	*ncompleted = 0;
	TU_LT(o->ncells, CARC_MAX_TILES);
	TU_ASSERT_MSG(orc_cell_at(o, x, y) < 0 && x > -ORC_SPAN / 2 && y > -ORC_SPAN / 2 && x < ORC_SPAN / 2 - 1 &&
	              y < ORC_SPAN / 2 - 1, "oracle: (%d,%d) is taken or off its grid", x, y);
	if (o->ncells) {
		unsigned bad;
		carc_rc rc = orc_fits(o, type, x, y, rot, &bad);
		TU_ASSERT_MSG(rc == CARC_OK, "oracle: %s at (%d,%d) rot %d does not fit: %s", t->id, x, y, rot,
		              carc_strerror(rc));
	}
	int c = o->ncells++;
	o->cells[c] = (orc_cell){ type, x, y, rot, o->nsegs, t->nfeat };
	o->grid[y + ORC_SPAN / 2][x + ORC_SPAN / 2] = (int16_t)(c + 1);
	for (int i = 0; i < t->nfeat; i++) {
		TU_LT(o->nsegs, CARC_MAX_NODES);
		o->segs[o->nsegs] = (orc_seg){ o->nsegs, c, i, t->f[i].kind };
		o->nsegs++;
	}
	for (int d = 0; d < 4; d++) {
		int n = orc_cell_at(o, x + ddx[d], y + ddy[d]), od = (d + 2) & 3;
		if (n < 0) continue;
		int a = orc_port_seg(o, c, d), b = orc_port_seg(o, n, od);
		if (a >= 0 && b >= 0) join(o, a, b);
		/* my left half of side d meets the neighbour's right half of its side */
		for (int h = 0; h < 2; h++) {
			a = orc_port_seg(o, c, 4 + 2 * d + h);
			b = orc_port_seg(o, n, 4 + 2 * od + 1 - h);
			TU_ASSERT_MSG((a < 0) == (b < 0), "oracle: a field half-edge meets no field at (%d,%d)", x, y);
			if (a >= 0) join(o, a, b);
		}
	}
	for (int i = 0; i < t->nfeat; i++) {
		int k = t->f[i].kind, root = orc_root(o, o->cells[c].seg0 + i);
		if ((k == CARC_F_ROAD || k == CARC_F_CITY) && closed(o, root)) mark_done(o, root, completed, ncompleted);
	}
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			int n = orc_cell_at(o, x + dx, y + dy);
			if (n < 0 || around(o, n) != 8) continue;
			int s = orc_port_seg(o, n, CARC_P_CLOISTER);
			if (s >= 0) mark_done(o, orc_root(o, s), completed, ncompleted);
		}
	return c;
}

int orc_followers(const orc *o, int root, int per_seat[CARC_MAX_SEATS])
{
	int n = 0;
	memset(per_seat, 0, sizeof(int) * CARC_MAX_SEATS);
	for (int f = 0; f < ORC_MAX_FIGS; f++)
		if (o->fig_seg[f] >= 0 && orc_root(o, o->fig_seg[f]) == root) {
			per_seat[o->fig_seat[f]]++;
			n++;
		}
	return n;
}

void orc_deploy(orc *o, int fig, int seat, int seg)
{
	TU_GE(fig, 0);
	TU_LT(fig, ORC_MAX_FIGS);
	TU_ASSERT_MSG(o->fig_seg[fig] < 0, "oracle: figure %d deployed twice", fig);
	o->fig_seg[fig] = seg;
	o->fig_seat[fig] = seat;
}

void orc_return(orc *o, int fig)
{
	TU_GE(fig, 0);
	TU_LT(fig, ORC_MAX_FIGS);
	TU_ASSERT_MSG(o->fig_seg[fig] >= 0, "oracle: figure %d returned but not on the board", fig);
	o->fig_seg[fig] = -1;
}

int orc_points_play(const orc *o, int root)
{
	int pennants, tiles = orc_tiles(o, root, &pennants);
	switch (o->segs[root].kind) {
	case CARC_F_ROAD: return tiles;
	case CARC_F_CITY:
		if (tiles == 2 && o->tiny_rule == CARC_TINY_2_PER_TILE_1) return tiles + pennants;
		return 2 * (tiles + pennants);
	case CARC_F_CLOISTER: return 9;
	default: return 0;
	}
}

static void pay(const int str[CARC_MAX_SEATS], int nseats, int points, int pts[][CARC_SC_COUNT], int sc)
{
	int top = 0;
	for (int s = 0; s < nseats; s++)
		if (str[s] > top) top = str[s];
	for (int s = 0; top && s < nseats; s++)
		if (str[s] == top) pts[s][sc] += points;
}

/* Completed cities (roots) a farm borders, through every segment's borders. */
static int farm_cities(const orc *o, int farm, int *cities)
{
	int n = 0;
	for (int s = 0; s < o->nsegs; s++) {
		if (orc_root(o, s) != farm) continue;
		const orc_cell *c = &o->cells[o->segs[s].cell];
		unsigned b = carc_tiletypes[c->type].f[o->segs[s].feat].borders;
		for (int i = 0; i < 16; i++) {
			if (!(b >> i & 1)) continue;
			int city = orc_root(o, c->seg0 + i), k;
			if (!o->done[city]) continue;
			for (k = 0; k < n && cities[k] != city; k++) {}
			if (k == n) cities[n++] = city;
		}
	}
	return n;
}

void orc_final(const orc *o, int pts[CARC_MAX_SEATS][CARC_SC_COUNT])
{
	static int roots[CARC_MAX_NODES], cities[CARC_MAX_NODES], farm_cities_of[ORC_MAX_FIGS][64],
		nfc[ORC_MAX_FIGS], farm_str[ORC_MAX_FIGS][CARC_MAX_SEATS];
	int nroots = 0, nfarms = 0, str[CARC_MAX_SEATS];
	memset(pts, 0, sizeof(int) * CARC_MAX_SEATS * CARC_SC_COUNT);
	for (int f = 0; f < ORC_MAX_FIGS; f++) {
		if (o->fig_seg[f] < 0) continue;
		int r = orc_root(o, o->fig_seg[f]), k;
		for (k = 0; k < nroots && roots[k] != r; k++) {}
		if (k == nroots) roots[nroots++] = r;
	}
	for (int k = 0; k < nroots; k++) {
		int r = roots[k], pennants, tiles = orc_tiles(o, r, &pennants);
		TU_ASSERT_MSG(!o->done[r], "oracle: a follower stands in a completed feature at the end");
		orc_followers(o, r, str);
		switch (o->segs[r].kind) {
		case CARC_F_ROAD: pay(str, o->nseats, tiles, pts, CARC_SC_ROAD); break;
		case CARC_F_CITY: pay(str, o->nseats, tiles + pennants, pts, CARC_SC_CITY); break;
		case CARC_F_CLOISTER:
			pay(str, o->nseats, 1 + around(o, o->segs[r].cell), pts, CARC_SC_CLOISTER);
			break;
		case CARC_F_FIELD:
			TU_LT(nfarms, ORC_MAX_FIGS);
			nfc[nfarms] = farm_cities(o, r, cities);
			TU_LE(nfc[nfarms], 64);
			memcpy(farm_cities_of[nfarms], cities, sizeof(int) * (size_t)nfc[nfarms]);
			memcpy(farm_str[nfarms], str, sizeof str);
			nfarms++;
			break;
		}
	}
	if (!o->farmers) return;
	if (o->farm_rule != CARC_FARM_PER_CITY_4) {
		int per = o->farm_rule == CARC_FARM_PER_FARM_3 ? 3 : 4;
		for (int k = 0; k < nfarms; k++)
			pay(farm_str[k], o->nseats, per * nfc[k], pts, CARC_SC_FIELD);
		return;
	}
	/* per-city-4: every completed city that some farm with farmers touches,
	 * once, to the majority of the farmers of all those farms together */
	for (int root = 0; root < o->nsegs; root++) {
		if (orc_root(o, root) != root || !o->done[root] || o->segs[root].kind != CARC_F_CITY) continue;
		int touched = 0;
		memset(str, 0, sizeof str);
		for (int k = 0; k < nfarms; k++)
			for (int j = 0; j < nfc[k]; j++)
				if (farm_cities_of[k][j] == root) {
					touched = 1;
					for (int s = 0; s < o->nseats; s++) str[s] += farm_str[k][s];
				}
		if (touched) pay(str, o->nseats, 4, pts, CARC_SC_FIELD);
	}
}

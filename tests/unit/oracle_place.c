/*
 * oracle_place.c - the naive model of where a tile may go with the
 * expansions (see oracle_place.h).  Every rule is a plain look at the
 * neighbours of a place on the board as carc_board_get shows it; each
 * comes with the RULES.md line it is read from.
 */
#include <string.h>

#include <stdlib.h>

#include "oracle_place.h"
#include "testutil.h"
#include "tiles_int.h" /* the manifest's primary data: features, edges, symbols, sets */

static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };

/* ---- the tiles ----------------------------------------------------------------- */

/* The kind of side `s` (0 N, 1 E, 2 S, 3 W) of the unturned tile: the
 * feature that lists the edge (road, city, river), a side inside the
 * City of Carcassonne (its half-edges listed by `inner`), else field. */
static int side_kind(int type, int s)
{
	const carc_tiletype *t = &carc_tiletypes[type];
	for (int i = 0; i < t->nfeat; i++) {
		if (!(t->f[i].edges >> s & 1)) continue;
		switch (t->f[i].kind) {
		case CARC_F_ROAD: return OPL_ROAD;
		case CARC_F_CITY: return OPL_CITY;
		case CARC_F_RIVER: return OPL_RIVER;
		default: break;
		}
	}
	if (t->inner >> (2 * s) & 3) return OPL_INNER;
	return OPL_FIELD;
}

/* A tile turned rot quarter turns clockwise shows at board side d what
 * the unturned tile has at side d - rot (its north side goes east). */
int opl_edge(int type, int rot, int side) { return side_kind(type, (side - rot) & 3); }

static int river_sides(int type)
{
	int n = 0;
	for (int s = 0; s < 4; s++) n += side_kind(type, s) == OPL_RIVER;
	return n;
}

int opl_is_river(int type) { return river_sides(type) > 0; }

int opl_building(int type)
{
	const carc_tiletype *t = &carc_tiletypes[type];
	for (int i = 0; i < t->nfeat; i++)
		if (t->f[i].kind == CARC_F_CLOISTER) return t->f[i].flags & CARC_TF_SHRINE ? OPL_CULT : OPL_CLOISTER;
	return OPL_NO_BUILDING;
}

int opl_is_lake(int type) { return (carc_tiletypes[type].symbols & CARC_SYM_LAKE) != 0; }

int opl_abbey_type(void)
{
	for (int i = 0; i < carc_tile_count(); i++)
		if (carc_tiletypes[i].symbols & CARC_SYM_ABBEY) return i;
	return -1;
}

static int chosen(uint32_t expansions, const char *name)
{
	int e = carc_expansion_find(name);
	return e >= 0 && (expansions >> e & 1);
}

int opl_river_supply(uint32_t expansions, int *count)
{
	int river = chosen(expansions, "river") || chosen(expansions, "river2");
	int total = 0;
	memset(count, 0, (size_t)carc_tile_count() * sizeof *count);
	for (int i = 0; i < carc_ntilesets; i++) {
		const carc_tileset *s = &carc_tilesets[i];
		if (!chosen(expansions, s->expansion)) continue;
		for (int j = 0; j < s->nref; j++) {
			int type = s->ref[j].type, removed = 0;
			if (!opl_is_river(type) || (carc_tiletypes[type].symbols & CARC_SYM_SPRING)) continue;
			if (!river) continue; /* 2.4: the mini expansion's river tiles join a river set */
			for (int k = 0; k < carc_ntilesets; k++) {
				const carc_tileset *o = &carc_tilesets[k];
				if (!chosen(expansions, o->expansion)) continue;
				for (int r = 0; r < o->nremove; r++) removed |= o->remove[r] == type;
			}
			if (removed) continue;
			count[type] += s->ref[j].count;
			total += s->ref[j].count;
		}
	}
	return total;
}

/* ---- the board ----------------------------------------------------------------- */

int opl_at(const opl_board *b, int x, int y)
{
	unsigned ux = (unsigned)(x + OPL_SPAN / 2), uy = (unsigned)(y + OPL_SPAN / 2);
	if (ux >= OPL_SPAN || uy >= OPL_SPAN) return -1;
	return b->grid[uy][ux] - 1;
}

void opl_board_read(opl_board *b, const carc_game *g)
{
	for (int i = 0; i < b->ncells; i++) b->grid[b->y[i] + OPL_SPAN / 2][b->x[i] + OPL_SPAN / 2] = 0;
	b->ncells = carc_board_count(g);
	TU_ASSERT(b->ncells <= CARC_MAX_TILES);
	b->minx = b->maxx = b->miny = b->maxy = 0;
	for (int i = 0; i < b->ncells; i++) {
		carc_placed_info p;
		TU_ASSERT(carc_board_get(g, i, &p));
		TU_ASSERT_MSG(p.x > -OPL_SPAN / 2 + 4 && p.x < OPL_SPAN / 2 - 4 && p.y > -OPL_SPAN / 2 + 4 &&
		                  p.y < OPL_SPAN / 2 - 4,
		              "a tile at (%d,%d), off the model's board", p.x, p.y);
		TU_ASSERT_MSG(opl_at(b, p.x, p.y) < 0, "two tiles at (%d,%d)", p.x, p.y);
		b->type[i] = p.tile;
		b->rot[i] = p.rot;
		b->x[i] = p.x;
		b->y[i] = p.y;
		b->grid[p.y + OPL_SPAN / 2][p.x + OPL_SPAN / 2] = (int16_t)(i + 1);
		if (p.x < b->minx) b->minx = p.x;
		if (p.x > b->maxx) b->maxx = p.x;
		if (p.y < b->miny) b->miny = p.y;
		if (p.y > b->maxy) b->maxy = p.y;
	}
}

/* ---- the river (RULES.md 2.2-2.4, 4.20) -------------------------------------- */

/* The board with one more tile on it (the tile whose placement is
 * judged), looked at place by place. */
typedef struct vboard {
	const opl_board *b;
	int x, y, type, rot;
} vboard;

static int v_taken(const vboard *v, int x, int y) { return (x == v->x && y == v->y) || opl_at(v->b, x, y) >= 0; }

/* The kind of side `side` of the tile at (x, y); -1 when none is there. */
static int v_edge(const vboard *v, int x, int y, int side)
{
	if (x == v->x && y == v->y) return opl_edge(v->type, v->rot, side);
	int c = opl_at(v->b, x, y);
	return c < 0 ? -1 : opl_edge(v->b->type[c], v->b->rot[c], side);
}

/* 2.3: "the two tiles ahead of each open river end (plus their side
 * neighbours) are empty": for the river edge toward d of a tile at
 * (x, y), the places 1 and 2 steps that way and the places beside each. */
static int room_ahead(const vboard *v, int x, int y, int d)
{
	int sx = dy[d] ? 1 : 0, sy = dx[d] ? 1 : 0; /* across the way ahead */
	for (int k = 1; k <= 2; k++)
		for (int s = -1; s <= 1; s++)
			if (v_taken(v, x + k * dx[d] + s * sx, y + k * dy[d] + s * sy)) return 0;
	return 1;
}

/* The turn a river tile with two river sides makes, the river coming in
 * at side `in`: 0 straight on, 1 to the right, 3 to the left; -1 for a
 * tile with one river side or three. */
static int turn_of(int type, int rot, int in)
{
	int out = -1, n = 0;
	for (int d = 0; d < 4; d++)
		if (opl_edge(type, rot, d) == OPL_RIVER) {
			n++;
			if (d != in) out = d;
		}
	if (n != 2 || out < 0) return -1;
	return (out - ((in + 2) & 3)) & 3;
}

/* May a river tile still to come continue the river at the empty place
 * (px, py) of the board `v` meeting the requirement there: its edges
 * match, it joins exactly one river end (the branches never meet), and
 * its own open ends have the room ahead? */
static int continuable(const vboard *v, int px, int py, const int *river_left)
{
	for (int t = 0; t < carc_tile_count(); t++) {
		if (!river_left[t]) continue;
		for (int r = 0; r < 4; r++) {
			int ok = 1, joined = 0;
			for (int d = 0; d < 4 && ok; d++) {
				int mine = opl_edge(t, r, d), theirs = v_edge(v, px + dx[d], py + dy[d], (d + 2) & 3);
				if (theirs < 0) {
					if (mine == OPL_RIVER) ok = room_ahead(v, px, py, d);
					continue;
				}
				if (mine != theirs || mine == OPL_INNER) ok = 0;
				joined += mine == OPL_RIVER;
			}
			if (ok && joined == 1) return 1;
		}
	}
	return 0;
}

/* Does some open end of the river on v (the new tile's among them, with
 * `new_tile`) take a river tile of type `t` (continuable)? */
static int an_end_takes(const vboard *v, int new_tile, int t)
{
	static int one[1024];
	int found = 0;
	one[t] = 1;
	for (int c = new_tile ? -1 : 0; c < v->b->ncells && !found; c++) {
		int cx = c < 0 ? v->x : v->b->x[c], cy = c < 0 ? v->y : v->b->y[c];
		for (int d = 0; d < 4 && !found; d++) {
			int px = cx + dx[d], py = cy + dy[d];
			if (v_edge(v, cx, cy, d) == OPL_RIVER && !v_taken(v, px, py)) found = continuable(v, px, py, one);
		}
	}
	one[t] = 0;
	return found;
}

int opl_river_takes_now(const opl_board *b, int type)
{
	vboard v = { b, INT16_MAX, INT16_MAX, type, 0 }; /* no new tile: it lies off every board */
	return an_end_takes(&v, 0, type);
}

static unsigned river_why(const opl_board *b, int type, int x, int y, int rot, const opl_rivers *rv)
{
	unsigned why = 0;
	vboard v = { b, x, y, type, rot };
	int joined = 0, in = -1;
	/* 2.2: "Each river tile must continue the river from the open end";
	 * 2.3: "The two branches must never be connected". */
	for (int d = 0; d < 4; d++)
		if (opl_edge(type, rot, d) == OPL_RIVER && opl_at(b, x + dx[d], y + dy[d]) >= 0) {
			joined++;
			in = d;
		}
	if (!joined) why |= OPL_W_NOT_CONTINUING;
	if (joined > 1) why |= OPL_W_BRANCHES_MEET;
	/* 2.2: "No immediate 180° U-turn (two turns in the same direction in
	 * a row)": this tile's turn and the turn of the tile it continues. */
	if (joined == 1) {
		int c = opl_at(b, x + dx[in], y + dy[in]);
		int mine = turn_of(type, rot, in), back = -1, prev = -1;
		for (int d = 0; d < 4; d++)
			if (d != ((in + 2) & 3) && opl_edge(b->type[c], b->rot[c], d) == OPL_RIVER) back = d;
		if (back >= 0) prev = turn_of(b->type[c], b->rot[c], back);
		if (mine > 0 && mine == prev) why |= OPL_W_U_TURN;
	}
	/* 2.3, the engine guard: "a river tile is legal only if it connects to
	 * the river, and the two tiles ahead of each open river end (plus
	 * their side neighbours) are empty" - the open ends of the tile
	 * placed.  (Read as every open end of the river after the placement,
	 * the fork's two ends soon lie in each other's room and the river
	 * could not go on: see the report in test_placement_ext.c.) */
	for (int d = 0; d < 4; d++)
		if (opl_edge(type, rot, d) == OPL_RIVER && opl_at(b, x + dx[d], y + dy[d]) < 0 &&
		    !room_ahead(&v, x, y, d))
			why |= OPL_W_ROOM_OWN;
	/* Seed 000 (2.3): "A tile may not be placed if it could prevent any
	 * subsequently drawn river tiles from meeting this requirement"; 4.20:
	 * "do not place a river tile that could make a later river tile
	 * unplaceable".  While river tiles are still to come the river may not
	 * be closed, and every open end, this tile's and the other branch's,
	 * must be one that a river tile still to come can continue. */
	int left = 0;
	for (int t = 0; t < carc_tile_count(); t++) left += rv->counted[t];
	if (!left) return why;
	int open = 0;
	for (int c = -1; c < b->ncells; c++) {
		int cx = c < 0 ? x : b->x[c], cy = c < 0 ? y : b->y[c];
		for (int d = 0; d < 4; d++) {
			int px = cx + dx[d], py = cy + dy[d];
			if (v_edge(&v, cx, cy, d) != OPL_RIVER || v_taken(&v, px, py)) continue;
			open++;
			if (!continuable(&v, px, py, rv->left)) why |= OPL_W_BOXED;
		}
	}
	if (!open) why |= OPL_W_RIVER_ENDS;
	return why;
}

/* Seed 000's rule once more, as the engine reads it where the guard
 * above is not enough (README.md, "The river"): of the placements
 * the rules above allow, only those that leave the river a free end,
 * whenever one does.  An end (an empty place a river edge faces) is free
 * when the river could go on from it through empty places only, however
 * the tiles still to come are drawn: as a straight corridor when no curve
 * is left, else as a staircase (straight on, or turning one way and
 * back) into the quadrant on one side; every tile of it would then touch
 * only the tile before it and have its room ahead.  The other ends must
 * show one river only, lie off that way and apart from each other, and be
 * enough to take the dead ends still to come but one (kept for last).
 * The way ends where the tiles still to come can reach: `left` tiles from
 * the end (the first on the end's own place) lie less than `left` steps
 * on (along and across together), the room ahead of the last the two
 * places after it, with the places beside: nothing farther than left + 1
 * steps either way is in it, and an other end farther off is off it. */
typedef struct mend {
	int x, y, d, plain;
} mend;

/* Steps from the end e along its way (a) and toward d2 (b). */
static void way_steps(const mend *e, int d2, int x, int y, int *a, int *b)
{
	*a = (x - e->x) * dx[e->d] + (y - e->y) * dy[e->d];
	*b = (x - e->x) * dx[d2] + (y - e->y) * dy[d2];
}

static int model_end_free(const vboard *v, const mend *ends, int n, int i, int dead, int curves, int reach)
{
	const mend *e = &ends[i];
	if (!e->plain || dead > n - 1) return 0;
	for (int d2 = 0; d2 < 4; d2++) {
		if (d2 == e->d || d2 == ((e->d + 2) & 3)) continue;
		int ok = 1;
		/* every place the river would cover or need empty */
		for (int c = -1; ok && c < v->b->ncells; c++) {
			int a, bb;
			way_steps(e, d2, c < 0 ? v->x : v->b->x[c], c < 0 ? v->y : v->b->y[c], &a, &bb);
			if (a > reach || bb > reach) continue; /* beyond the way */
			if (curves) ok = !((a >= 0 && bb >= -1) || (a == -1 && bb >= 1));
			else ok = !(a >= 0 && bb >= -1 && bb <= 1);
		}
		for (int j = 0; ok && j < n; j++) {
			if (j == i) continue;
			if (!ends[j].plain) ok = 0;
			/* no tile of the river on the other end or beside it, for an
			 * end the way reaches: one farther off than `reach` steps
			 * (either way) is in nobody's way, even where a place beside
			 * it is in the way's room: the tiles still to come lie less
			 * than `left` = reach - 1 steps on, so none can be next to it,
			 * and a dead end put on it later is out of every room ahead */
			int ea, eb;
			way_steps(e, d2, ends[j].x, ends[j].y, &ea, &eb);
			for (int k = -1; ok && ea <= reach && eb <= reach && k < 4; k++) {
				int px = ends[j].x + (k < 0 ? 0 : dx[k]), py = ends[j].y + (k < 0 ? 0 : dy[k]), a, bb;
				way_steps(e, d2, px, py, &a, &bb);
				if (a >= 0 && (curves ? bb >= 0 : bb == 0) && a <= reach && bb <= reach) ok = 0;
			}
			for (int k = 0; ok && k < n; k++)
				if (k != i && k != j && abs(ends[j].x - ends[k].x) + abs(ends[j].y - ends[k].y) == 1) ok = 0;
		}
		if (ok) return 1;
	}
	return 0;
}

static int model_free_after(const opl_board *b, int type, int x, int y, int rot, const opl_rivers *rv)
{
	vboard v = { b, x, y, type, rot };
	int left = 0, dead = 0, forks = 0, curves = 0;
	for (int t = 0; t < carc_tile_count(); t++) {
		if (!rv->left[t]) continue;
		int sides = river_sides(t);
		left += rv->counted[t];
		dead += sides == 1 ? rv->counted[t] : 0;
		forks += sides == 3;
		curves += sides == 2 && (opl_edge(t, 0, 0) == OPL_RIVER) != (opl_edge(t, 0, 2) == OPL_RIVER);
	}
	if (!left) return 1;
	if (forks) return 0;
	mend ends[64];
	int n = 0;
	for (int c = -1; c < b->ncells; c++) {
		int cx = c < 0 ? x : b->x[c], cy = c < 0 ? y : b->y[c];
		for (int d = 0; d < 4; d++) {
			int px = cx + dx[d], py = cy + dy[d], seen = 0;
			if (v_edge(&v, cx, cy, d) != OPL_RIVER || v_taken(&v, px, py)) continue;
			for (int j = 0; j < n; j++) seen |= ends[j].x == px && ends[j].y == py;
			if (seen || n == 64) continue;
			int around = 0;
			for (int k = 0; k < 4; k++) around += v_taken(&v, px + dx[k], py + dy[k]);
			ends[n++] = (mend){ px, py, d, around == 1 };
		}
	}
	for (int i = 0; i < n; i++)
		if (model_end_free(&v, ends, n, i, dead > 0 ? dead - 1 : 0, curves > 0, left + 1)) return 1;
	return 0;
}

/* ---- cult places (RULES.md 2.10, 4.12) ----------------------------------------- */

int opl_near_count(const opl_board *b, int x, int y, int kind, int nx, int ny, int nkind)
{
	int n = 0;
	for (int ry = -1; ry <= 1; ry++)
		for (int rx = -1; rx <= 1; rx++) {
			if (!rx && !ry) continue;
			int px = x + rx, py = y + ry;
			if (px == nx && py == ny) {
				n += nkind == kind;
				continue;
			}
			int c = opl_at(b, px, py);
			n += c >= 0 && opl_building(b->type[c]) == kind;
		}
	return n;
}

/* 2.10: "a cult place may not be adjacent (incl. diagonal) to more than
 * one cloister/abbey, and a cloister not to more than one cult place. A
 * tile whose placement would break this is illegal." */
static unsigned cult_why(const opl_board *b, int mine, int x, int y)
{
	if (mine == OPL_NO_BUILDING) return 0;
	int other = mine == OPL_CULT ? OPL_CLOISTER : OPL_CULT;
	if (opl_near_count(b, x, y, other, x, y, mine) > 1) return OPL_W_CULT;
	for (int ry = -1; ry <= 1; ry++)
		for (int rx = -1; rx <= 1; rx++) {
			int c = opl_at(b, x + rx, y + ry);
			if ((!rx && !ry) || c < 0 || opl_building(b->type[c]) != other) continue;
			if (opl_near_count(b, x + rx, y + ry, mine, x, y, mine) > 1) return OPL_W_CULT;
		}
	return 0;
}

/* ---- placements ------------------------------------------------------------------ */

unsigned opl_why_not(const opl_board *b, int type, int x, int y, int rot, const opl_rivers *rv)
{
	if (opl_at(b, x, y) >= 0) return OPL_W_OCCUPIED;
	unsigned why = 0;
	int near = 0;
	/* 2.1: it touches a placed tile edge to edge, and every edge matches
	 * its neighbour (a river edge only a river edge, 2.2). */
	for (int d = 0; d < 4; d++) {
		int c = opl_at(b, x + dx[d], y + dy[d]);
		if (c < 0) continue;
		near++;
		int mine = opl_edge(type, rot, d), theirs = opl_edge(b->type[c], b->rot[c], (d + 2) & 3);
		if (mine != theirs || mine == OPL_INNER) why |= OPL_W_EDGE;
	}
	if (!near) why |= OPL_W_ALONE;
	if (why) return why; /* the expansions' rules are asked of places where the tile fits */
	if (opl_is_river(type)) why |= river_why(b, type, x, y, rot, rv);
	why |= cult_why(b, opl_building(type), x, y);
	return why;
}

/* The places where opl_why_not answers `why`. */
static int places_why(const opl_board *b, int type, const opl_rivers *rv, unsigned why, opl_place *out, int cap)
{
	int n = 0;
	for (int y = b->miny - 1; y <= b->maxy + 1; y++)
		for (int x = b->minx - 1; x <= b->maxx + 1; x++)
			for (int rot = 0; rot < 4; rot++)
				if (opl_why_not(b, type, x, y, rot, rv) == why) {
					if (n < cap) out[n] = (opl_place){ (int16_t)x, (int16_t)y, (uint8_t)rot };
					n++;
				}
	return n;
}

/* With the river tile turned rot at (x, y), has every river tile still to
 * come an open end it continues? */
static int each_has_place(const opl_board *b, int type, int x, int y, int rot, const opl_rivers *rv)
{
	vboard v = { b, x, y, type, rot };
	for (int t = 0; t < carc_tile_count(); t++)
		if (rv->counted[t] && !an_end_takes(&v, 1, t)) return 0;
	return 1;
}

int opl_places(const opl_board *b, int type, const opl_rivers *rv, opl_place *out, int cap)
{
	int n = places_why(b, type, rv, 0, out, cap);
	/* A river tile that the look ahead (OPL_W_BOXED: every open end
	 * continued by some tile still to come) alone refuses everywhere goes
	 * where that alone refuses it, if afterwards every river tile still to
	 * come has an end it continues: a given tile order with no dead end to
	 * come can leave a branch no tile fits while the other takes them all,
	 * and the tile drawn would be lost for nothing (README.md, "The
	 * river"). */
	if (!n && opl_is_river(type)) {
		int nb = places_why(b, type, rv, OPL_W_BOXED, out, cap);
		for (int i = 0; i < nb && i < cap; i++)
			if (each_has_place(b, type, out[i].x, out[i].y, out[i].rot, rv)) out[n++] = out[i];
	}
	if (!opl_is_river(type) || n > cap) return n;
	/* a river tile: those that leave a free end, if any do */
	int nfree = 0;
	for (int i = 0; i < n; i++)
		if (model_free_after(b, type, out[i].x, out[i].y, out[i].rot, rv)) out[nfree++] = out[i];
	return nfree ? nfree : n;
}

/* 2.9: "place your abbey in an empty space that has tiles on all 4
 * orthogonal sides (a hole). It fits whatever edges surround it." */
unsigned opl_abbey_why_not(const opl_board *b, int x, int y)
{
	if (opl_at(b, x, y) >= 0) return OPL_W_OCCUPIED;
	unsigned why = 0;
	for (int d = 0; d < 4; d++)
		if (opl_at(b, x + dx[d], y + dy[d]) < 0) why |= OPL_W_HOLE;
	return why | cult_why(b, OPL_CLOISTER, x, y); /* "a cloister in every way (... cult-place adjacency rule)" */
}

int opl_holes(const opl_board *b, opl_place *out, int cap)
{
	int n = 0;
	for (int y = b->miny - 1; y <= b->maxy + 1; y++)
		for (int x = b->minx - 1; x <= b->maxx + 1; x++)
			if (!opl_abbey_why_not(b, x, y)) {
				if (n < cap) out[n] = (opl_place){ (int16_t)x, (int16_t)y, 0 };
				n++;
			}
	return n;
}

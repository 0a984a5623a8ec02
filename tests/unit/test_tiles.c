/*
 * test_tiles.c - the compiled tile manifest (engine/tiles/basic.tiles via
 * tilegen): the base set's counts, every tile's features against an
 * independent transcription of RULES.md 3.2, the derived tables (port
 * tables, edge codes) against the features, tile ids, and the port
 * rotation helpers.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "tiles_int.h"
#include "testutil.h"

static const carc_tileset *find_set(const char *id)
{
	for (int s = 0; s < carc_ntilesets; s++)
		if (!strcmp(carc_tilesets[s].id, id)) return &carc_tilesets[s];
	return NULL;
}

/* Edge kind of side d of an unturned tile, from the feature list (and the
 * City of Carcassonne's inner half-edges, which belong to nothing). */
static int side_kind(const carc_tiletype *t, int d)
{
	if (t->inner >> (2 * d) & 3) return CARC_EK_INNER;
	for (int i = 0; i < t->nfeat; i++)
		if (t->f[i].edges >> d & 1) {
			switch (t->f[i].kind) {
			case CARC_F_ROAD: return CARC_EK_ROAD;
			case CARC_F_CITY: return CARC_EK_CITY;
			case CARC_F_RIVER: return CARC_EK_RIVER;
			default: return -1;
			}
		}
	return CARC_EK_FIELD;
}

/* ---- RULES.md 3.2, transcribed by hand ------------------------------------- */

/* Each feature as text: "city:EW+" (edges in N E S W order, + per
 * pennant), "road:S", "cloister", "field:EL WR>N" (half-edges in canonical
 * order, then the cities it borders, each as its edges, comma-separated). */
typedef struct expect_tile {
	const char *letter, *id;
	int count;
	const char *edges; /* N E S W: C city, R road, F field */
	const char *feats[9];
} expect_tile;

static const expect_tile base_tiles[] = {
	{ "A", "BA/LR", 2, "FFRF", { "cloister", "road:S", "field:NL NR EL ER SL SR WL WR>" } },
	{ "B", "BA/L", 4, "FFFF", { "cloister", "field:NL NR EL ER SL SR WL WR>" } },
	{ "C", "BA/Cccc+", 1, "CCCC", { "city:NESW+" } },
	{ "D", "BA/RCr", 4, "CRFR", { "city:N", "road:EW", "field:EL WR>N", "field:ER SL SR WL>" } },
	{ "E", "BA/C", 5, "CFFF", { "city:N", "field:EL ER SL SR WL WR>N" } },
	{ "F", "BA/CFc+", 2, "FCFC", { "city:EW+", "field:NL NR>EW", "field:SL SR>EW" } },
	{ "G", "BA/CFc.1", 1, "FCFC", { "city:EW", "field:NL NR>EW", "field:SL SR>EW" } },
	{ "H", "BA/CFC.2", 3, "CFCF", { "city:N", "city:S", "field:EL ER WL WR>N,S" } },
	{ "I", "BA/CC.2", 2, "CFFC", { "city:N", "city:W", "field:EL ER SL SR>N,W" } },
	{ "J", "BA/CRr", 3, "CRRF", { "city:N", "road:ES", "field:EL SR WL WR>N", "field:ER SL>" } },
	{ "K", "BA/RrC", 3, "CFRR", { "city:N", "road:SW", "field:EL ER SL WR>N", "field:SR WL>" } },
	{ "L", "BA/CRRR", 3, "CRRR",
	  { "city:N", "road:E", "road:S", "road:W", "field:EL WR>N", "field:ER SL>", "field:SR WL>" } },
	{ "M", "BA/Cc+", 2, "CFFC", { "city:NW+", "field:EL ER SL SR>NW" } },
	{ "N", "BA/Cc.1", 3, "CFFC", { "city:NW", "field:EL ER SL SR>NW" } },
	{ "O", "BA/CcRr+", 2, "CRRC", { "city:NW+", "road:ES", "field:EL SR>NW", "field:ER SL>" } },
	{ "P", "BA/CcRr", 3, "CRRC", { "city:NW", "road:ES", "field:EL SR>NW", "field:ER SL>" } },
	{ "Q", "BA/Ccc+", 1, "CCFC", { "city:NEW+", "field:SL SR>NEW" } },
	{ "R", "BA/Ccc", 3, "CCFC", { "city:NEW", "field:SL SR>NEW" } },
	{ "S", "BA/CccR+", 2, "CCRC", { "city:NEW+", "road:S", "field:SL>NEW", "field:SR>NEW" } },
	{ "T", "BA/CccR", 1, "CCRC", { "city:NEW", "road:S", "field:SL>NEW", "field:SR>NEW" } },
	{ "U", "BA/RFr", 8, "FRFR", { "road:EW", "field:NL NR EL WR>", "field:ER SL SR WL>" } },
	{ "V", "BA/Rr", 9, "FFRR", { "road:SW", "field:NL NR EL ER SL WR>", "field:SR WL>" } },
	{ "W", "BA/RRR", 4, "FRRR",
	  { "road:E", "road:S", "road:W", "field:NL NR EL WR>", "field:ER SL>", "field:SR WL>" } },
	{ "X", "BA/RRRR", 1, "RRRR",
	  { "road:N", "road:E", "road:S", "road:W", "field:NL WR>", "field:NR EL>", "field:ER SL>", "field:SR WL>" } },
};
#define NBASE ((int)(sizeof base_tiles / sizeof base_tiles[0]))

static void edges_text(unsigned edges, char *out)
{
	static const char nesw[] = "NESW";
	for (int d = 0; d < 4; d++)
		if (edges >> d & 1) *out++ = nesw[d];
	*out = 0;
}

static void describe(const carc_tiletype *t, int i, char *buf, size_t cap)
{
	const carc_tfeat *f = &t->f[i];
	char e[8];
	edges_text(f->edges, e);
	switch (f->kind) {
	case CARC_F_CITY:
		snprintf(buf, cap, "city:%s%s", e, f->pennants == 1 ? "+" : f->pennants ? "++" : "");
		return;
	case CARC_F_ROAD: snprintf(buf, cap, "road:%s", e); return;
	case CARC_F_CLOISTER: snprintf(buf, cap, "cloister"); return;
	case CARC_F_FIELD: break;
	default: snprintf(buf, cap, "%s:%s", carc_fkind_name(f->kind), e); return;
	}
	size_t n = (size_t)snprintf(buf, cap, "field:");
	const char *sep = "";
	for (int h = 0; h < 8; h++)
		if (f->halves >> h & 1) {
			n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, carc_port_name(CARC_NL + h));
			sep = " ";
		}
	n += (size_t)snprintf(buf + n, cap - n, ">");
	sep = "";
	for (int c = 0; c < t->nfeat; c++)
		if (f->borders >> c & 1) {
			edges_text(t->f[c].edges, e);
			n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, e);
			sep = ",";
		}
}

static int base_count(int type)
{
	const carc_tileset *s = find_set("basic:1");
	for (int j = 0; j < s->nref; j++)
		if (s->ref[j].type == type) return s->ref[j].count;
	return 0;
}

/* ---- the set ------------------------------------------------------------------ */

START_TEST(test_basic_set)
{
	const carc_tileset *s = find_set("basic:1");
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->expansion, "base");
	ck_assert_int_eq(s->nref, 24);
	int total = 0;
	for (int j = 0; j < s->nref; j++) {
		ck_assert_int_lt(s->ref[j].type, carc_ntiletypes);
		ck_assert_int_gt(s->ref[j].count, 0);
		for (int k = 0; k < j; k++) ck_assert_int_ne(s->ref[k].type, s->ref[j].type);
		total += s->ref[j].count;
	}
	ck_assert_int_eq(total, 72);
	/* the standard start tile is D = BA/RCr, one of the 72, at (0,0) unturned */
	ck_assert_int_eq(s->start, carc_tile_find("BA/RCr"));
	ck_assert_int_eq(s->start_x, 0);
	ck_assert_int_eq(s->start_y, 0);
	ck_assert_int_eq(s->start_rot, 0);
	ck_assert_int_eq(base_count(s->start), 4);
	/* the base expansion names this set and is available */
	int e = carc_expansion_find("base");
	ck_assert_int_ge(e, 0);
	ck_assert_str_eq(carc_expansion(e)->tileset, "basic:1");
	ck_assert(carc_expansion(e)->available);
}
END_TEST

START_TEST(test_basic_totals)
{
	const carc_tileset *s = find_set("basic:1");
	int edges[CARC_EK_COUNT] = { 0 }, edges_by_feat[CARC_EK_COUNT] = { 0 }, pennants = 0, cloisters = 0, tiles = 0;
	for (int j = 0; j < s->nref; j++) {
		const carc_tiletype *t = &carc_tiletypes[s->ref[j].type];
		int n = s->ref[j].count;
		tiles += n;
		for (int d = 0; d < 4; d++) {
			int k = (int)(t->edge_code[0] >> (8 * d) & 0xff);
			ck_assert_int_lt(k, CARC_EK_COUNT);
			edges[k] += n;
			edges_by_feat[side_kind(t, d)] += n;
		}
		for (int i = 0; i < t->nfeat; i++) {
			pennants += n * t->f[i].pennants;
			cloisters += n * (t->f[i].kind == CARC_F_CLOISTER);
		}
	}
	ck_assert_int_eq(tiles, 72);
	ck_assert_int_eq(edges[CARC_EK_FIELD] + edges[CARC_EK_ROAD] + edges[CARC_EK_CITY] + edges[CARC_EK_RIVER], 288);
	ck_assert_int_eq(edges[CARC_EK_FIELD], 115);
	ck_assert_int_eq(edges[CARC_EK_ROAD], 94);
	ck_assert_int_eq(edges[CARC_EK_CITY], 79);
	ck_assert_int_eq(edges[CARC_EK_RIVER], 0);
	for (int k = 0; k < CARC_EK_COUNT; k++) ck_assert_int_eq(edges_by_feat[k], edges[k]);
	ck_assert_int_eq(pennants, 10);
	ck_assert_int_eq(cloisters, 6);
}
END_TEST

/* Every tile of the set against RULES.md 3.2: id, count, edges, features. */
START_TEST(test_basic_tiles_transcribed)
{
	ck_assert_int_eq(NBASE, 24);
	for (int k = 0; k < NBASE; k++) {
		const expect_tile *x = &base_tiles[k];
		int type = carc_tile_find(x->id);
		ck_assert_msg(type >= 0, "tile %s (%s) missing", x->letter, x->id);
		ck_assert_msg(base_count(type) == x->count, "%s: %d copies, want %d", x->id, base_count(type), x->count);
		const carc_tiletype *t = &carc_tiletypes[type];
		for (int d = 0; d < 4; d++) {
			int want = x->edges[d] == 'C' ? CARC_EK_CITY : x->edges[d] == 'R' ? CARC_EK_ROAD : CARC_EK_FIELD;
			ck_assert_msg(side_kind(t, d) == want, "%s: edge %s", x->id, carc_port_name(d));
		}
		int nexp = 0;
		while (nexp < 9 && x->feats[nexp]) nexp++;
		ck_assert_msg(t->nfeat == nexp, "%s: %d features, want %d", x->id, t->nfeat, nexp);
		/* the same features, in any order, each matched once */
		int used[CARC_TILE_MAXF] = { 0 };
		for (int e = 0; e < nexp; e++) {
			int found = 0;
			for (int i = 0; i < t->nfeat && !found; i++) {
				char buf[96];
				describe(t, i, buf, sizeof buf);
				if (!used[i] && !strcmp(buf, x->feats[e])) used[i] = found = 1;
			}
			ck_assert_msg(found, "%s: no feature \"%s\"", x->id, x->feats[e]);
		}
	}
}
END_TEST

/* ---- structure of every compiled tile type -------------------------------- */

/* Every edge is claimed by at most one feature, and a road/city edge by
 * exactly one; every field half-edge belongs to exactly one field; a half
 * of a city edge to none; the port tables agree with the feature list. */
START_TEST(test_every_type_consistent)
{
	ck_assert_int_ge(carc_ntiletypes, 24);
	for (int type = 0; type < carc_ntiletypes; type++) {
		const carc_tiletype *t = &carc_tiletypes[type];
		ck_assert_int_le(t->nfeat, CARC_TILE_MAXF);
		for (int d = 0; d < 4; d++) {
			int owners = 0, owner = CARC_NOF;
			for (int i = 0; i < t->nfeat; i++)
				if (t->f[i].edges >> d & 1) {
					owners++;
					owner = i;
					ck_assert_int_ne(t->f[i].kind, CARC_F_FIELD);
				}
			ck_assert_msg(owners <= 1, "%s: edge %s claimed %d times", t->id, carc_port_name(d), owners);
			ck_assert_int_eq(t->edge_feat[d], owner);
		}
		for (int h = 0; h < 8; h++) {
			int d = h / 2, owners = 0, owner = CARC_NOF;
			for (int i = 0; i < t->nfeat; i++)
				if (t->f[i].halves >> h & 1) {
					owners++;
					owner = i;
					ck_assert_msg(t->f[i].kind == CARC_F_FIELD, "%s: half-edge on a %s", t->id,
					              carc_fkind_name(t->f[i].kind));
				}
			if (side_kind(t, d) == CARC_EK_CITY || (t->inner >> h & 1) || (t->symbols & CARC_SYM_ABBEY))
				ck_assert_msg(owners == 0, "%s: half-edge %s of a city edge in a field", t->id,
				              carc_port_name(CARC_NL + h));
			else
				ck_assert_msg(owners == 1, "%s: half-edge %s in %d fields", t->id, carc_port_name(CARC_NL + h),
				              owners);
			ck_assert_int_eq(t->half_feat[h], owner);
		}
		int cloister = CARC_NOF;
		for (int i = 0; i < t->nfeat; i++) {
			const carc_tfeat *f = &t->f[i];
			if (f->kind == CARC_F_CLOISTER) cloister = i;
			/* a field borders only cities of its own tile */
			for (int c = 0; c < 16; c++)
				if (f->borders >> c & 1) {
					ck_assert_int_eq(f->kind, CARC_F_FIELD);
					ck_assert_int_lt(c, t->nfeat);
					ck_assert_int_eq(t->f[c].kind, CARC_F_CITY);
				}
			/* every feature is reachable through some port */
			ck_assert_msg(f->edges || f->halves || f->other || f->kind == CARC_F_CLOISTER || f->kind == CARC_F_TOWER,
			              "%s: feature %d touches nothing", t->id, i);
		}
		ck_assert_int_eq(t->cloister, cloister);
		/* the edge code of each rotation is the unturned one turned: side d of
		 * the turned tile shows unturned side d - r */
		for (int r = 0; r < 4; r++)
			for (int d = 0; d < 4; d++)
				ck_assert_msg((int)(t->edge_code[r] >> (8 * d) & 0xff) == side_kind(t, (d - r + 4) & 3),
				              "%s: edge code rot %d side %s", t->id, r, carc_port_name(d));
	}
}
END_TEST

/* ---- spot checks ---------------------------------------------------------------- */

static const carc_tiletype *tile(const char *id)
{
	return &carc_tiletypes[tu_tile(id)];
}

static int count_kind(const carc_tiletype *t, int kind)
{
	int n = 0;
	for (int i = 0; i < t->nfeat; i++) n += t->f[i].kind == kind;
	return n;
}

/* H: two separate cities (N and S) and one field bordering both. */
START_TEST(test_tile_H)
{
	const carc_tiletype *t = tile("BA/CFC.2");
	ck_assert_int_eq(count_kind(t, CARC_F_CITY), 2);
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 1);
	int n = t->edge_feat[CARC_N], s = t->edge_feat[CARC_S];
	ck_assert_int_ne(n, CARC_NOF);
	ck_assert_int_ne(s, CARC_NOF);
	ck_assert_int_ne(n, s);
	ck_assert_int_eq(t->f[n].edges, 1u << CARC_N);
	ck_assert_int_eq(t->f[s].edges, 1u << CARC_S);
	int f = t->half_feat[CARC_EL - CARC_NL];
	ck_assert_int_eq(t->half_feat[CARC_WR - CARC_NL], f);
	ck_assert_int_eq(t->f[f].borders, (1u << n) | (1u << s));
}
END_TEST

/* A: the cloister's stub road does not split the field. */
START_TEST(test_tile_A)
{
	const carc_tiletype *t = tile("BA/LR");
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 1);
	ck_assert_int_eq(count_kind(t, CARC_F_ROAD), 1);
	ck_assert_int_ne(t->cloister, CARC_NOF);
	int r = t->edge_feat[CARC_S];
	ck_assert_int_eq(t->f[r].kind, CARC_F_ROAD);
	ck_assert_int_eq(t->f[r].edges, 1u << CARC_S);
	int f = t->half_feat[0];
	for (int h = 0; h < 8; h++) ck_assert_int_eq(t->half_feat[h], f);
	ck_assert_int_eq(t->f[f].halves, 0xff);
	ck_assert_int_eq(t->f[f].borders, 0);
}
END_TEST

/* D: the start tile; the field north of the road touches the city, the
 * one south of it does not. */
START_TEST(test_tile_D)
{
	const carc_tiletype *t = tile("BA/RCr");
	int road = t->edge_feat[CARC_E], city = t->edge_feat[CARC_N];
	ck_assert_int_eq(t->edge_feat[CARC_W], road);
	ck_assert_int_eq(t->f[road].kind, CARC_F_ROAD);
	ck_assert_int_eq(t->f[city].kind, CARC_F_CITY);
	ck_assert_int_eq(t->edge_feat[CARC_S], CARC_NOF);
	int north = t->half_feat[CARC_EL - CARC_NL], south = t->half_feat[CARC_SL - CARC_NL];
	ck_assert_int_ne(north, south);
	ck_assert_int_eq(t->half_feat[CARC_WR - CARC_NL], north);
	ck_assert_int_eq(t->half_feat[CARC_ER - CARC_NL], south);
	ck_assert_int_eq(t->half_feat[CARC_WL - CARC_NL], south);
	ck_assert_int_eq(t->f[north].borders, 1u << city);
	ck_assert_int_eq(t->f[south].borders, 0);
	ck_assert_int_eq(t->half_feat[0], CARC_NOF); /* NL: the city's side */
}
END_TEST

/* ---- ids ---------------------------------------------------------------------- */

START_TEST(test_ids_round_trip)
{
	ck_assert_int_eq(carc_tile_count(), carc_ntiletypes);
	for (int i = 0; i < carc_tile_count(); i++) {
		const char *id = carc_tile_id(i);
		ck_assert_ptr_nonnull(id);
		ck_assert_str_eq(id, carc_tiletypes[i].id);
		ck_assert_int_eq(carc_tile_find(id), i);
		ck_assert_int_ge(carc_tile_expansion(i), 0);
	}
	for (int k = 0; k < NBASE; k++)
		ck_assert_int_eq(carc_tile_expansion(carc_tile_find(base_tiles[k].id)), carc_expansion_find("base"));
	ck_assert_ptr_null(carc_tile_id(-1));
	ck_assert_ptr_null(carc_tile_id(carc_tile_count()));
	ck_assert_int_eq(carc_tile_find("BA/nope"), -1);
	ck_assert_int_eq(carc_tile_find(""), -1);
	ck_assert_int_eq(carc_tile_find("ba/rcr"), -1);
	ck_assert_int_eq(carc_tile_find("BA/RCr "), -1);
}
END_TEST

/* ---- ports -------------------------------------------------------------------- */

START_TEST(test_port_rotation)
{
	/* a quarter turn clockwise: N -> E, E -> S, S -> W, W -> N */
	ck_assert_int_eq(carc_port_rot(CARC_N, 1), CARC_E);
	ck_assert_int_eq(carc_port_rot(CARC_E, 1), CARC_S);
	ck_assert_int_eq(carc_port_rot(CARC_W, 1), CARC_N);
	ck_assert_int_eq(carc_port_rot(CARC_S, 2), CARC_N);
	ck_assert_int_eq(carc_port_rot(CARC_N, 3), CARC_W);
	/* the western half of N (NL) becomes the northern half of E (EL) */
	ck_assert_int_eq(carc_port_rot(CARC_NL, 1), CARC_EL);
	ck_assert_int_eq(carc_port_rot(CARC_NR, 1), CARC_ER);
	ck_assert_int_eq(carc_port_rot(CARC_WR, 1), CARC_NR);
	ck_assert_int_eq(carc_port_rot(CARC_WL, 1), CARC_NL);
	ck_assert_int_eq(carc_port_rot(CARC_NL, 2), CARC_SL);
	ck_assert_int_eq(carc_port_rot(CARC_EL, 3), CARC_NL);
	/* centre and enclosed ports do not move */
	for (int r = 0; r < 4; r++) {
		ck_assert_int_eq(carc_port_rot(CARC_P_CLOISTER, r), CARC_P_CLOISTER);
		ck_assert_int_eq(carc_port_rot(CARC_P_TOWER, r), CARC_P_TOWER);
		ck_assert_int_eq(carc_port_rot(CARC_P_I, r), CARC_P_I);
		ck_assert_int_eq(carc_port_rot(CARC_P_II, r), CARC_P_II);
	}
	for (int p = 0; p < CARC_PORT_COUNT; p++) {
		ck_assert_int_eq(carc_port_rot(p, 0), p);
		for (int r = 0; r < 4; r++) {
			ck_assert_int_eq(carc_port_unrot(carc_port_rot(p, r), r), p);
			ck_assert_int_eq(carc_port_rot(carc_port_unrot(p, r), r), p);
			/* turning stays within the port's class */
			int q = carc_port_rot(p, r);
			ck_assert_int_eq(q < 4, p < 4);
			ck_assert_int_eq(q >= 4 && q < 12, p >= 4 && p < 12);
			/* turning twice by r and s is turning by r + s */
			for (int s = 0; s < 4; s++) ck_assert_int_eq(carc_port_rot(q, s), carc_port_rot(p, (r + s) & 3));
		}
		/* a half-edge stays on its edge: its edge turns with it */
		if (p >= 4 && p < 12)
			for (int r = 0; r < 4; r++) ck_assert_int_eq((carc_port_rot(p, r) - 4) / 2, carc_port_rot((p - 4) / 2, r));
	}
}
END_TEST

/* A turned tile on the board, read back through the public API. */
START_TEST(test_turned_tile_features)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 1, (const char *const[]){ "BA/L", NULL });
	carc_game *g = tu_game_new(&cfg, NULL);
	uint16_t ports[CARC_TILE_MAXF];
	uint8_t kinds[CARC_TILE_MAXF];
	int n = carc_tile_features(g, 0, 0, ports, kinds, CARC_TILE_MAXF);
	ck_assert_int_eq(n, 4);
	unsigned want_road = 1u << CARC_N | 1u << CARC_S, want_city = 1u << CARC_E;
	/* D turned once: the field north of the road (EL WR) is now east of it (SL NR) */
	unsigned want_near = 1u << CARC_SL | 1u << CARC_NR, want_far = 1u << CARC_SR | 1u << CARC_WL | 1u << CARC_WR |
	                                                             1u << CARC_NL;
	int seen = 0;
	for (int i = 0; i < n; i++) {
		if (kinds[i] == CARC_F_ROAD) { ck_assert_uint_eq(ports[i], want_road); seen |= 1; }
		if (kinds[i] == CARC_F_CITY) { ck_assert_uint_eq(ports[i], want_city); seen |= 2; }
		if (kinds[i] == CARC_F_FIELD && ports[i] == want_near) seen |= 4;
		if (kinds[i] == CARC_F_FIELD && ports[i] == want_far) seen |= 8;
	}
	ck_assert_int_eq(seen, 15);
	ck_assert_int_eq(carc_tile_features(g, 1, 0, ports, kinds, CARC_TILE_MAXF), 0);
	free(g);
}
END_TEST

/* The table of each feature's lowest port per rotation agrees with the
 * feature's ports turned one by one. */
START_TEST(test_first_ports)
{
	for (int i = 0; i < carc_ntiletypes; i++) {
		const carc_tiletype *t = &carc_tiletypes[i];
		for (int f = 0; f < t->nfeat; f++) {
			unsigned ports = t->f[f].edges | (unsigned)t->f[f].halves << 4 | (unsigned)t->f[f].other << CARC_P_I;
			if (t->f[f].kind == CARC_F_CLOISTER) ports |= 1u << CARC_P_CLOISTER;
			if (t->f[f].kind == CARC_F_TOWER) ports |= 1u << CARC_P_TOWER;
			ck_assert_msg(ports != 0, "%s feature %d has no port", t->id, f);
			for (int r = 0; r < 4; r++) {
				unsigned turned = 0;
				for (int p = 0; p < CARC_PORT_COUNT; p++)
					if (ports >> p & 1) turned |= 1u << carc_port_rot(p, r);
				ck_assert_msg(t->first_port[r][f] == __builtin_ctz(turned), "%s feature %d rotation %d: %d, not %d",
				              t->id, f, r, t->first_port[r][f], __builtin_ctz(turned));
			}
		}
	}
	/* BA/RCr (D) turned once: its road runs N-S, so N (0) names it; its city faces E */
	int d = -1;
	for (int i = 0; i < carc_ntiletypes; i++)
		if (!strcmp(carc_tiletypes[i].id, "BA/RCr")) d = i;
	ck_assert_int_ge(d, 0);
	const carc_tiletype *t = &carc_tiletypes[d];
	for (int f = 0; f < t->nfeat; f++) {
		if (t->f[f].kind == CARC_F_ROAD) ck_assert_int_eq(t->first_port[1][f], CARC_N);
		if (t->f[f].kind == CARC_F_CITY) ck_assert_int_eq(t->first_port[1][f], CARC_E);
	}
}
END_TEST

/* carc_tile_describe gives, for every tile type at every rotation, the
 * features a placed tile shows (carc_tile_features), in the same order,
 * with the manifest's marks, and refuses what it cannot answer. */
START_TEST(test_describe_as_placed)
{
	carc_tile_feature f[CARC_TILE_MAXF];
	uint16_t ports[CARC_TILE_MAXF];
	uint8_t kinds[CARC_TILE_MAXF];
	for (int type = 0; type < carc_tile_count(); type++) {
		const carc_tiletype *t = &carc_tiletypes[type];
		for (int r = 0; r < (carc_tile_drawable(type) ? 4 : 1); r++) { /* the abbey lies at rot 0 */
			carc_config cfg;
			tu_config_fixed(&cfg, 1, t->id, r, (const char *const[]){ "BA/L", NULL });
			cfg.expansions = ~0u & ((1u << carc_expansion_count()) - 1);
			for (int e = 0; e < carc_expansion_count(); e++)
				if (!carc_expansion(e)->available) cfg.expansions &= ~(1u << e);
			carc_game *g = tu_game_new(&cfg, NULL);
			int n = carc_tile_features(g, 0, 0, ports, kinds, CARC_TILE_MAXF);
			ck_assert_int_eq(carc_tile_describe(type, r, f, CARC_TILE_MAXF), n);
			for (int i = 0; i < n; i++) {
				ck_assert_msg(f[i].ports == ports[i] && f[i].kind == kinds[i], "%s rot %d feature %d: %#x %d, placed %#x %d",
				              t->id, r, i, f[i].ports, f[i].kind, ports[i], kinds[i]);
				ck_assert_int_eq(f[i].pennants, t->f[i].pennants);
				ck_assert_int_eq(f[i].marks, t->f[i].flags);
				ck_assert_int_eq(f[i].goods, (t->f[i].goods ? CARC_TOK_WINE + t->f[i].goods - 1 : -1));
				ck_assert_uint_eq(f[i].borders, f[i].kind == CARC_F_FIELD ? t->f[i].borders : 0);
				for (unsigned b = f[i].borders; b; b &= b - 1) ck_assert_int_eq(f[__builtin_ctz(b)].kind, CARC_F_CITY);
				unsigned reach = 0;
				for (int d = 0; d < 4; d++)
					if (t->f[i].multi >> d & 1) reach |= 1u << carc_port_rot(d, r);
				ck_assert_uint_eq(f[i].reaches, reach);
			}
			free(g);
		}
		ck_assert_uint_eq(carc_tile_symbols(type), t->symbols);
	}
	ck_assert_int_eq(carc_tile_describe(-1, 0, f, CARC_TILE_MAXF), -1);
	ck_assert_int_eq(carc_tile_describe(carc_tile_count(), 0, f, CARC_TILE_MAXF), -1);
	ck_assert_int_eq(carc_tile_describe(0, 4, f, CARC_TILE_MAXF), -1);
	ck_assert_int_eq(carc_tile_describe(0, -1, f, CARC_TILE_MAXF), -1);
	ck_assert_uint_eq(carc_tile_symbols(-1), 0);
	ck_assert_uint_eq(carc_tile_symbols(carc_tile_count()), 0);
}
END_TEST

/* What a few tiles show, read off the manifests by hand. */
START_TEST(test_describe_marks)
{
	carc_tile_feature f[CARC_TILE_MAXF];
	/* HS/CC!.v: the E city also reaches the N edge; turned once, the S city reaches E */
	int n = carc_tile_describe(tu_tile("HS/CC!.v"), 0, f, CARC_TILE_MAXF), seen = 0;
	for (int i = 0; i < n; i++)
		if (f[i].ports == 1u << CARC_E) {
			ck_assert_uint_eq(f[i].reaches, 1u << CARC_N);
			seen++;
		}
	ck_assert_uint_eq(carc_tile_symbols(tu_tile("HS/CC!.v")), CARC_SYMBOL_VINEYARD);
	n = carc_tile_describe(tu_tile("HS/CC!.v"), 1, f, CARC_TILE_MAXF);
	for (int i = 0; i < n; i++)
		if (f[i].ports == 1u << CARC_S) {
			ck_assert_uint_eq(f[i].reaches, 1u << CARC_E);
			seen++;
		}
	ck_assert_int_eq(seen, 2);
	/* BA/CFc+: a city W-E with a pennant between two fields that border it */
	ck_assert_int_eq(carc_tile_describe(tu_tile("BA/CFc+"), 0, f, CARC_TILE_MAXF), 3);
	ck_assert_int_eq(f[0].kind, CARC_F_CITY);
	ck_assert_uint_eq(f[0].ports, 1u << CARC_E | 1u << CARC_W);
	ck_assert_int_eq(f[0].pennants, 1);
	ck_assert_int_eq(f[0].goods, -1);
	ck_assert_uint_eq(f[1].ports, 1u << CARC_NL | 1u << CARC_NR);
	ck_assert_uint_eq(f[1].borders, 1);
	ck_assert_uint_eq(f[2].borders, 1);
	/* a cap writes no more than asked */
	f[1].kind = 0xee;
	ck_assert_int_eq(carc_tile_describe(tu_tile("BA/CFc+"), 1, f, 1), 3);
	ck_assert_uint_eq(f[0].ports, 1u << CARC_N | 1u << CARC_S);
	ck_assert_int_eq(f[1].kind, 0xee);
	ck_assert_int_eq(carc_tile_describe(tu_tile("BA/CFc+"), 0, NULL, 0), 3);
	/* goods, a cathedral, a cult place, a pig herd, a besieged city, an abbey, a spring */
	static const struct {
		const char *id;
		int kind, marks, goods;
		uint16_t symbols;
	} want[] = {
		{ "TB/Cc.w", CARC_F_CITY, 0, CARC_TOK_WINE, 0 },
		{ "TB/Cc.g", CARC_F_CITY, 0, CARC_TOK_GRAIN, 0 },
		{ "IC/Cccc.c", CARC_F_CITY, CARC_MARK_CATHEDRAL, -1, 0 },
		{ "IC/RFr.i", CARC_F_ROAD, CARC_MARK_INN, -1, 0 },
		{ "CU/S", CARC_F_CLOISTER, CARC_MARK_CULT_PLACE, -1, 0 },
		{ "GQ/F", CARC_F_FIELD, CARC_MARK_PIG_HERD, -1, 0 },
		{ "SI.CA/C", CARC_F_CITY, CARC_MARK_BESIEGED, -1, 0 },
		{ "AM/A", CARC_F_CLOISTER, 0, -1, CARC_SYMBOL_ABBEY },
		{ "RI/s", CARC_F_RIVER, 0, -1, CARC_SYMBOL_SPRING },
		{ "RI.2/I.v", CARC_F_RIVER, 0, -1, CARC_SYMBOL_VOLCANO | CARC_SYMBOL_LAKE },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		n = carc_tile_describe(tu_tile(want[k].id), 0, f, CARC_TILE_MAXF);
		int found = 0;
		for (int i = 0; i < n; i++)
			found += f[i].kind == want[k].kind && f[i].marks == want[k].marks && f[i].goods == want[k].goods;
		ck_assert_msg(found == 1, "%s: %d features match", want[k].id, found);
		ck_assert_uint_eq(carc_tile_symbols(tu_tile(want[k].id)), want[k].symbols);
	}
}
END_TEST

static Suite *tiles_suite(void)
{
	Suite *s = suite_create("tiles");
	TCase *tc = tcase_create("manifest");
	tcase_add_test(tc, test_basic_set);
	tcase_add_test(tc, test_basic_totals);
	tcase_add_test(tc, test_basic_tiles_transcribed);
	tcase_add_test(tc, test_every_type_consistent);
	tcase_add_test(tc, test_tile_H);
	tcase_add_test(tc, test_tile_A);
	tcase_add_test(tc, test_tile_D);
	tcase_add_test(tc, test_ids_round_trip);
	suite_add_tcase(s, tc);
	tc = tcase_create("ports");
	tcase_add_test(tc, test_port_rotation);
	tcase_add_test(tc, test_turned_tile_features);
	tcase_add_test(tc, test_first_ports);
	tcase_add_test(tc, test_describe_as_placed);
	tcase_add_test(tc, test_describe_marks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(tiles_suite());
}

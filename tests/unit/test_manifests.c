/*
 * test_manifests.c - the expansion tile manifests (engine/tiles/NAME.tiles
 * other than basic.tiles, compiled by tilegen): the tile count of every
 * set (RULES.md 3.1), the symbol and attribute counts the rules quote
 * (RULES.md 2.x), the structure of every tile type (City of Carcassonne
 * inner sides included), the City block's layout, and spot checks of a few
 * tiles per set against the reference tile definitions.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "tiles_int.h"

#define HALF(h) ((h) - CARC_NL) /* half-edge port -> index 0..7 */

static const carc_tileset *find_set(const char *id)
{
	for (int s = 0; s < carc_ntilesets; s++)
		if (!strcmp(carc_tilesets[s].id, id)) return &carc_tilesets[s];
	return NULL;
}

static const carc_tileset *set(const char *id)
{
	const carc_tileset *s = find_set(id);
	ck_assert_msg(s != NULL, "no tile set %s", id);
	return s;
}

static int type_of(const char *id)
{
	int t = carc_tile_find(id);
	ck_assert_msg(t >= 0, "no tile %s", id);
	return t;
}

static const carc_tiletype *tile(const char *id) { return &carc_tiletypes[type_of(id)]; }

/* Copies of a tile type in a set, 0 when the set does not list it. */
static int copies(const carc_tileset *s, int type)
{
	for (int j = 0; j < s->nref; j++)
		if (s->ref[j].type == type) return s->ref[j].count;
	return 0;
}

/* Tiles of a set, less the abbey (each player's own tile, never drawn). */
static int set_total(const carc_tileset *s)
{
	int n = 0;
	for (int j = 0; j < s->nref; j++)
		if (!(carc_tiletypes[s->ref[j].type].symbols & CARC_SYM_ABBEY)) n += s->ref[j].count;
	return n;
}

/* Tiles of every set that belongs to an expansion. */
static int expansion_total(const char *name, int *nsets)
{
	int n = 0, k = 0;
	for (int i = 0; i < carc_ntilesets; i++)
		if (!strcmp(carc_tilesets[i].expansion, name)) {
			n += set_total(&carc_tilesets[i]);
			k++;
		}
	if (nsets) *nsets = k;
	return n;
}

static int count_kind(const carc_tiletype *t, int kind)
{
	int n = 0;
	for (int i = 0; i < t->nfeat; i++) n += t->f[i].kind == kind;
	return n;
}

static int edge_kind(const carc_tiletype *t, int d) { return (int)(t->edge_code[0] >> (8 * d) & 0xff); }

/* The feature on edge d; asserts there is one of that kind. */
static int on_edge(const carc_tiletype *t, int d, int kind)
{
	int f = t->edge_feat[d];
	ck_assert_msg(f != CARC_NOF, "%s: nothing on edge %s", t->id, carc_port_name(d));
	ck_assert_msg(t->f[f].kind == kind, "%s: edge %s is a %s", t->id, carc_port_name(d), carc_fkind_name(t->f[f].kind));
	return f;
}

static int on_half(const carc_tiletype *t, int port)
{
	int f = t->half_feat[HALF(port)];
	ck_assert_msg(f != CARC_NOF, "%s: no field on %s", t->id, carc_port_name(port));
	ck_assert_int_eq(t->f[f].kind, CARC_F_FIELD);
	return f;
}

static unsigned bit(int i) { return 1u << i; }

/* ---- sets and counts (RULES.md 3.1) ------------------------------------------- */

static const struct {
	const char *expansion, *main_set;
	int tiles, nsets;
	const char *prefix; /* every tile id of the expansion starts so */
} expected[] = {
	{ "base", "basic:1", 72, 1, "BA/" },
	{ "river", "river/1:1", 12, 1, "RI" },
	{ "river2", "river/2:1", 12, 1, "RI" },
	{ "mini", "gq11", 12, 2, "GQ/" },
	{ "inns-cathedrals", "inns-and-cathedrals:1", 18, 1, "IC/" },
	{ "traders-builders", "traders-and-builders:1", 24, 1, "TB/" },
	{ "princess-dragon", "princess-and-dragon:1", 30, 1, "DG/" },
	{ "tower", "tower:1", 18, 1, "TO/" },
	{ "abbey-mayor", "abbey-and-mayor:1", 12, 1, "AM/" },
	{ "count", "count", 12, 1, "CO/" },
	{ "king-robber", "king-and-robber:1", 5, 1, "KR/" },
	{ "cathars", "siege/cathars", 4, 1, "SI.CA/" },
	{ "cult", "cult/6", 6, 1, "CU/" },
	{ "catapult", "catapult", 12, 1, "CA/" },
	{ "hills-sheep", "hills-and-sheep:1", 18, 1, "HS/" },
};
#define NEXPECTED ((int)(sizeof expected / sizeof expected[0]))

START_TEST(test_set_tile_counts)
{
	ck_assert_int_eq(NEXPECTED, carc_expansion_count());
	for (int k = 0; k < NEXPECTED; k++) {
		int e = carc_expansion_find(expected[k].expansion);
		ck_assert_msg(e >= 0, "expansion %s unknown", expected[k].expansion);
		/* names.c's reference set is the set of that id */
		ck_assert_str_eq(carc_expansion(e)->tileset, expected[k].main_set);
		const carc_tileset *s = set(expected[k].main_set);
		ck_assert_str_eq(s->expansion, expected[k].expansion);
		int nsets, total = expansion_total(expected[k].expansion, &nsets);
		ck_assert_msg(total == expected[k].tiles, "%s: %d tiles, want %d", expected[k].expansion, total,
		              expected[k].tiles);
		ck_assert_int_eq(nsets, expected[k].nsets);
	}
	/* every set belongs to a known expansion; its tiles are distinct and
	 * carry the expansion's id prefix (the spring RI/s is River's and River
	 * II's) */
	for (int i = 0; i < carc_ntilesets; i++) {
		const carc_tileset *s = &carc_tilesets[i];
		int k = 0;
		while (k < NEXPECTED && strcmp(expected[k].expansion, s->expansion)) k++;
		ck_assert_msg(k < NEXPECTED, "set %s: expansion %s", s->id, s->expansion);
		ck_assert_int_gt(s->nref, 0);
		for (int j = 0; j < s->nref; j++) {
			ck_assert_int_lt(s->ref[j].type, carc_ntiletypes);
			ck_assert_int_gt(s->ref[j].count, 0);
			for (int m = 0; m < j; m++) ck_assert_int_ne(s->ref[m].type, s->ref[j].type);
			const char *id = carc_tiletypes[s->ref[j].type].id;
			ck_assert_msg(!strncmp(id, expected[k].prefix, strlen(expected[k].prefix)), "%s in set %s", id, s->id);
		}
	}
	/* the second-edition sets (gardens) are not in scope */
	ck_assert_ptr_null(find_set("river/1:2"));
	ck_assert_ptr_null(find_set("basic:2"));
	for (int t = 0; t < carc_ntiletypes; t++)
		ck_assert_msg(!(carc_tiletypes[t].symbols & CARC_SYM_GARDEN), "%s has a garden", carc_tiletypes[t].id);
}
END_TEST

START_TEST(test_per_set_counts)
{
	ck_assert_int_eq(set_total(set("river/1:1")), 12);
	ck_assert_int_eq(set_total(set("river/2:1")), 12);
	ck_assert_int_eq(set_total(set("gq11")), 10);
	ck_assert_int_eq(set_total(set("gq11/river")), 2);
	ck_assert_str_eq(set("gq11/river")->expansion, "mini");
	ck_assert_int_eq(set("river/1:1")->nref, 10);
	ck_assert_int_eq(set("inns-and-cathedrals:1")->nref, 17);
	ck_assert_int_eq(set("princess-and-dragon:1")->nref, 29);
	ck_assert_int_eq(set("tower:1")->nref, 17);
	ck_assert_int_eq(set("hills-and-sheep:1")->nref, 16);
	/* the base set's tile types come first: adding sets leaves their
	 * indices (and so the base-game benchmark) unchanged */
	const carc_tileset *b = set("basic:1");
	ck_assert_str_eq(carc_tilesets[0].id, "basic:1");
	ck_assert_int_eq(b->nref, 24);
	for (int j = 0; j < b->nref; j++) ck_assert_int_lt(b->ref[j].type, 24);
	for (int t = 0; t < 24; t++) ck_assert(!strncmp(carc_tiletypes[t].id, "BA/", 3));
}
END_TEST

/* Tiles (copies) of a set showing a symbol. */
static int with_symbol(const carc_tileset *s, unsigned sym)
{
	int n = 0;
	for (int j = 0; j < s->nref; j++)
		if (carc_tiletypes[s->ref[j].type].symbols & sym) n += s->ref[j].count;
	return n;
}

/* Features (times copies) of a set of a kind with all the flags given. */
static int with_flag(const carc_tileset *s, int kind, unsigned flags)
{
	int n = 0;
	for (int j = 0; j < s->nref; j++) {
		const carc_tiletype *t = &carc_tiletypes[s->ref[j].type];
		for (int i = 0; i < t->nfeat; i++)
			if (t->f[i].kind == kind && (t->f[i].flags & flags) == flags) n += s->ref[j].count;
	}
	return n;
}

static int with_goods(const carc_tileset *s, int goods)
{
	int n = 0;
	for (int j = 0; j < s->nref; j++) {
		const carc_tiletype *t = &carc_tiletypes[s->ref[j].type];
		for (int i = 0; i < t->nfeat; i++) n += (t->f[i].goods == goods) * s->ref[j].count;
	}
	return n;
}

static int with_pennants(const carc_tileset *s)
{
	int n = 0;
	for (int j = 0; j < s->nref; j++) {
		const carc_tiletype *t = &carc_tiletypes[s->ref[j].type];
		for (int i = 0; i < t->nfeat; i++) n += t->f[i].pennants * s->ref[j].count;
	}
	return n;
}

static int with_tower(const carc_tileset *s)
{
	int n = 0;
	for (int j = 0; j < s->nref; j++) n += (carc_tiletypes[s->ref[j].type].tower != CARC_NOF) * s->ref[j].count;
	return n;
}

START_TEST(test_symbol_counts)
{
	/* Princess & Dragon: 6 volcano, 12 dragon, 6 portal, 6 princess */
	const carc_tileset *pd = set("princess-and-dragon:1");
	ck_assert_int_eq(with_symbol(pd, CARC_SYM_VOLCANO), 6);
	ck_assert_int_eq(with_symbol(pd, CARC_SYM_DRAGON), 12);
	ck_assert_int_eq(with_symbol(pd, CARC_SYM_PORTAL), 6);
	ck_assert_int_eq(with_flag(pd, CARC_F_CITY, CARC_TF_PRINCESS), 6);
	/* no tile shows two of them */
	ck_assert_int_eq(with_symbol(pd, CARC_SYM_VOLCANO | CARC_SYM_DRAGON | CARC_SYM_PORTAL) +
	                 with_flag(pd, CARC_F_CITY, CARC_TF_PRINCESS), 30);
	/* Traders & Builders: goods 9 wine, 6 grain, 5 cloth */
	const carc_tileset *tb = set("traders-and-builders:1");
	ck_assert_int_eq(with_goods(tb, CARC_GOODS_WINE), 9);
	ck_assert_int_eq(with_goods(tb, CARC_GOODS_GRAIN), 6);
	ck_assert_int_eq(with_goods(tb, CARC_GOODS_CLOTH), 5);
	/* Inns & Cathedrals: 6 inns, 2 cathedrals */
	const carc_tileset *ic = set("inns-and-cathedrals:1");
	ck_assert_int_eq(with_flag(ic, CARC_F_ROAD, CARC_TF_INN), 6);
	ck_assert_int_eq(with_flag(ic, CARC_F_CITY, CARC_TF_CATHEDRAL), 2);
	ck_assert_int_eq(with_pennants(ic), 3);
	/* Hills & Sheep: 8 hill, 8 vineyard, 2 cloisters */
	const carc_tileset *hs = set("hills-and-sheep:1");
	ck_assert_int_eq(with_symbol(hs, CARC_SYM_HILL), 8);
	ck_assert_int_eq(with_symbol(hs, CARC_SYM_VINEYARD), 8);
	ck_assert_int_eq(with_flag(hs, CARC_F_CLOISTER, 0), 2);
	/* The Tower: every tile has a tower foundation */
	ck_assert_int_eq(with_tower(set("tower:1")), 18);
	/* Cathars: every tile has a besieged city; Cult: 6 cult places */
	ck_assert_int_eq(with_flag(set("siege/cathars"), CARC_F_CITY, CARC_TF_BESIEGED), 4);
	ck_assert_int_eq(with_flag(set("cult/6"), CARC_F_CLOISTER, CARC_TF_SHRINE), 6);
	/* Catapult: every tile shows a fair */
	ck_assert_int_eq(with_symbol(set("catapult"), CARC_SYM_FAIR), 12);
	/* Abbey & Mayor: pennants 2 + 1 + 1 + 1 + 1 */
	ck_assert_int_eq(with_pennants(set("abbey-and-mayor:1")), 6);
	/* River: one spring, one lake; River II: volcano lake, inn, pig herd, pennant */
	const carc_tileset *r1 = set("river/1:1"), *r2 = set("river/2:1");
	ck_assert_int_eq(with_symbol(r1, CARC_SYM_SPRING), 1);
	ck_assert_int_eq(with_symbol(r1, CARC_SYM_LAKE), 1);
	ck_assert_int_eq(with_symbol(r2, CARC_SYM_SPRING), 1);
	ck_assert_int_eq(with_symbol(r2, CARC_SYM_LAKE), 1);
	ck_assert_int_eq(with_symbol(r2, CARC_SYM_VOLCANO | CARC_SYM_LAKE), 1);
	ck_assert_int_eq(with_symbol(r2, CARC_SYM_VOLCANO), 1);
	ck_assert_int_eq(with_flag(r2, CARC_F_ROAD, CARC_TF_INN), 1);
	ck_assert_int_eq(with_flag(r2, CARC_F_FIELD, CARC_TF_PIGHERD), 1);
	ck_assert_int_eq(with_pennants(r2), 1);
	ck_assert_int_eq(with_flag(r2, CARC_F_CLOISTER, 0), 1);
	ck_assert_int_eq(with_symbol(set("gq11/river"), CARC_SYM_SPRING), 1);
	/* each mark belongs to its own expansion only */
	for (int i = 0; i < carc_ntilesets; i++) {
		const carc_tileset *s = &carc_tilesets[i];
		const char *e = s->expansion;
		if (strcmp(e, "princess-dragon"))
			ck_assert_int_eq(with_symbol(s, CARC_SYM_DRAGON | CARC_SYM_PORTAL), 0);
		if (strcmp(e, "princess-dragon") && strcmp(e, "river2")) {
			ck_assert_int_eq(with_symbol(s, CARC_SYM_VOLCANO), 0);
			ck_assert_int_eq(with_flag(s, CARC_F_CITY, CARC_TF_PRINCESS), 0);
		}
		if (strcmp(e, "hills-sheep")) ck_assert_int_eq(with_symbol(s, CARC_SYM_HILL | CARC_SYM_VINEYARD), 0);
		if (strcmp(e, "catapult")) ck_assert_int_eq(with_symbol(s, CARC_SYM_FAIR), 0);
		if (strcmp(e, "tower")) ck_assert_int_eq(with_tower(s), 0);
		if (strcmp(e, "traders-builders"))
			ck_assert_int_eq(with_goods(s, CARC_GOODS_WINE) + with_goods(s, CARC_GOODS_GRAIN) +
			                 with_goods(s, CARC_GOODS_CLOTH), 0);
		if (strcmp(e, "inns-cathedrals")) ck_assert_int_eq(with_flag(s, CARC_F_CITY, CARC_TF_CATHEDRAL), 0);
		if (strcmp(e, "inns-cathedrals") && strcmp(e, "river2"))
			ck_assert_int_eq(with_flag(s, CARC_F_ROAD, CARC_TF_INN), 0);
		if (strcmp(e, "cathars")) ck_assert_int_eq(with_flag(s, CARC_F_CITY, CARC_TF_BESIEGED), 0);
		if (strcmp(e, "cult")) ck_assert_int_eq(with_flag(s, CARC_F_CLOISTER, CARC_TF_SHRINE), 0);
		if (strcmp(e, "river") && strcmp(e, "river2") && strcmp(e, "mini"))
			ck_assert_int_eq(with_symbol(s, CARC_SYM_SPRING | CARC_SYM_LAKE), 0);
	}
}
END_TEST

/* ---- every tile type ------------------------------------------------------------ */

/* Edge kind of side d from the feature list and the inner half-edges. */
static int side_kind(const carc_tiletype *t, int d)
{
	if (t->inner >> (2 * d) & 3) return CARC_EK_INNER;
	int f = t->edge_feat[d];
	if (f == CARC_NOF) return CARC_EK_FIELD;
	switch (t->f[f].kind) {
	case CARC_F_ROAD: return CARC_EK_ROAD;
	case CARC_F_CITY: return CARC_EK_CITY;
	case CARC_F_RIVER: return CARC_EK_RIVER;
	default: return -1;
	}
}

START_TEST(test_every_type_well_formed)
{
	for (int type = 0; type < carc_ntiletypes; type++) {
		const carc_tiletype *t = &carc_tiletypes[type];
		ck_assert_int_le(t->nfeat, CARC_TILE_MAXF);
		ck_assert_int_ge(carc_tile_expansion(type), 0);
		for (int d = 0; d < 4; d++) {
			int owners = 0;
			for (int i = 0; i < t->nfeat; i++)
				if (t->f[i].edges >> d & 1) {
					owners++;
					ck_assert_int_eq(t->edge_feat[d], i);
				}
			ck_assert_msg(owners <= 1, "%s: edge %s claimed twice", t->id, carc_port_name(d));
			if (!owners) ck_assert_int_eq(t->edge_feat[d], CARC_NOF);
			int k = side_kind(t, d);
			ck_assert_msg(k >= 0, "%s: edge %s held by a %s", t->id, carc_port_name(d),
			              carc_fkind_name(t->f[t->edge_feat[d]].kind));
			if (k == CARC_EK_INNER) ck_assert_int_eq(owners, 0);
			for (int r = 0; r < 4; r++)
				ck_assert_msg((int)(t->edge_code[r] >> (8 * ((d + r) & 3)) & 0xff) == k, "%s: edge code", t->id);
		}
		for (int h = 0; h < 8; h++) {
			int d = h / 2, owners = 0;
			for (int i = 0; i < t->nfeat; i++)
				if (t->f[i].halves >> h & 1) {
					owners++;
					ck_assert_int_eq(t->f[i].kind, CARC_F_FIELD);
					ck_assert_int_eq(t->half_feat[h], i);
				}
			int want = (t->inner >> h & 1) || side_kind(t, d) == CARC_EK_CITY || (t->symbols & CARC_SYM_ABBEY) ? 0 : 1;
			ck_assert_msg(owners == want, "%s: half-edge %s in %d fields", t->id, carc_port_name(CARC_NL + h), owners);
		}
		for (int i = 0; i < t->nfeat; i++) {
			const carc_tfeat *f = &t->f[i];
			/* borders name cities of the tile, and only fields have them */
			for (int c = 0; c < 16; c++)
				if (f->borders >> c & 1) {
					ck_assert_int_eq(f->kind, CARC_F_FIELD);
					ck_assert_int_lt(c, t->nfeat);
					ck_assert_int_eq(t->f[c].kind, CARC_F_CITY);
				}
			/* an edge a city reaches without joining belongs to another city */
			for (int d = 0; d < 4; d++)
				if (f->multi >> d & 1) {
					ck_assert_int_eq(f->kind, CARC_F_CITY);
					ck_assert_int_ne(t->edge_feat[d], i);
					ck_assert_int_eq(t->f[t->edge_feat[d]].kind, CARC_F_CITY);
				}
			/* a wagon group joins at least two features of the tile */
			for (int g = 0; g < 8; g++)
				if (f->wagon >> g & 1) {
					int n = 0;
					for (int j = 0; j < t->nfeat; j++) n += t->f[j].wagon >> g & 1;
					ck_assert_msg(n >= 2, "%s: wagon group %c has one feature", t->id, 'a' + g);
				}
			ck_assert_msg(f->edges || f->halves || f->other || f->kind == CARC_F_CLOISTER || f->kind == CARC_F_TOWER,
			              "%s: feature %d touches nothing", t->id, i);
			if (f->pennants) ck_assert_int_eq(f->kind, CARC_F_CITY);
			if (f->goods) ck_assert_int_eq(f->kind, CARC_F_CITY);
			if (f->flags & CARC_TF_INN) ck_assert_int_eq(f->kind, CARC_F_ROAD);
			if (f->flags & (CARC_TF_CATHEDRAL | CARC_TF_BESIEGED | CARC_TF_PRINCESS)) ck_assert_int_eq(f->kind, CARC_F_CITY);
			if (f->flags & CARC_TF_SHRINE) ck_assert_int_eq(f->kind, CARC_F_CLOISTER);
			if (f->flags & CARC_TF_PIGHERD) ck_assert_int_eq(f->kind, CARC_F_FIELD);
		}
		ck_assert_int_le(count_kind(t, CARC_F_CLOISTER), 1);
		ck_assert_int_le(count_kind(t, CARC_F_TOWER), 1);
		ck_assert_int_le(count_kind(t, CARC_F_RIVER), 1);
		/* quarters and inner sides only in the City of Carcassonne */
		if (t->inner || t->quarters) ck_assert(!strncmp(t->id, "CO/", 3));
	}
}
END_TEST

/* ---- spot checks, set by set ---------------------------------------------------- */

START_TEST(test_river)
{
	const carc_tileset *s = set("river/1:1");
	int spring = type_of("RI/s");
	ck_assert_int_eq(s->start, spring);
	ck_assert_int_eq(s->nstarts, 1);
	ck_assert_int_eq(s->starts[0].type, spring);
	ck_assert_int_eq(s->start_x, 0);
	ck_assert_int_eq(s->start_y, 0);
	ck_assert_int_eq(s->start_rot, 0);
	ck_assert_int_eq(copies(s, spring), 1);
	/* the spring: river E, one field all round, at most one in a game */
	const carc_tiletype *t = tile("RI/s");
	ck_assert_int_eq(t->symbols, CARC_SYM_SPRING);
	ck_assert_int_eq(t->max, 1);
	ck_assert_int_eq(t->f[on_edge(t, CARC_E, CARC_F_RIVER)].edges, bit(CARC_E));
	ck_assert_int_eq(t->f[on_half(t, CARC_NL)].halves, 0xff);
	ck_assert_int_eq(edge_kind(t, CARC_E), CARC_EK_RIVER);
	ck_assert_int_eq(edge_kind(t, CARC_W), CARC_EK_FIELD);
	ck_assert_int_eq(carc_tile_expansion(spring), carc_expansion_find("river"));
	/* the lake */
	t = tile("RI.1/I.e");
	ck_assert_int_eq(t->symbols, CARC_SYM_LAKE);
	ck_assert_int_eq(count_kind(t, CARC_F_RIVER), 1);
	/* a bridge: road W-E over river N-S, not joined; four corner fields */
	t = tile("RI.1/RIrI");
	int road = on_edge(t, CARC_W, CARC_F_ROAD), river = on_edge(t, CARC_N, CARC_F_RIVER);
	ck_assert_int_eq(t->edge_feat[CARC_E], road);
	ck_assert_int_eq(t->edge_feat[CARC_S], river);
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 4);
	ck_assert_int_ne(on_half(t, CARC_NL), on_half(t, CARC_NR));
	ck_assert_int_eq(on_half(t, CARC_NL), on_half(t, CARC_WR));
	/* a road crosses the river to end at a city gate: wagon group a */
	t = tile("RI.1/CIRI");
	int city = on_edge(t, CARC_N, CARC_F_CITY);
	road = on_edge(t, CARC_S, CARC_F_ROAD);
	ck_assert_int_eq(t->f[city].wagon, 1);
	ck_assert_int_eq(t->f[road].wagon, 1);
	ck_assert_int_eq(t->f[on_half(t, CARC_EL)].borders, bit(city));
	ck_assert_int_ne(on_half(t, CARC_EL), on_half(t, CARC_WR));
	ck_assert_int_eq(t->f[on_half(t, CARC_SL)].borders, 0);
	ck_assert_int_eq(copies(s, type_of("RI.1/IFI")), 2);
	ck_assert_int_eq(copies(s, type_of("RI.1/II")), 2);
}
END_TEST

START_TEST(test_river2)
{
	const carc_tileset *s = set("river/2:1"), *r1 = set("river/1:1");
	int spring = type_of("RI/s");
	/* the spring is River I's tile, referenced */
	ck_assert_int_eq(copies(s, spring), 1);
	ck_assert_int_eq(s->start, spring);
	ck_assert_int_eq(s->start_x, 0);
	/* with River I as well, River I's lake is left out */
	ck_assert_int_eq(s->nremove, 1);
	ck_assert_int_eq(s->remove[0], type_of("RI.1/I.e"));
	ck_assert_int_eq(copies(r1, s->remove[0]), 1);
	ck_assert_int_eq(r1->nremove, 0);
	/* the fork: one river on three edges */
	const carc_tiletype *t = tile("RI.2/III");
	int river = on_edge(t, CARC_W, CARC_F_RIVER);
	ck_assert_int_eq(t->f[river].edges, bit(CARC_N) | bit(CARC_E) | bit(CARC_W));
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 3);
	/* the volcano lake, the river end in a city */
	t = tile("RI.2/I.v");
	ck_assert_int_eq(t->symbols, CARC_SYM_VOLCANO | CARC_SYM_LAKE);
	ck_assert_int_eq(t->max, 1);
	t = tile("RI.2/IFC");
	ck_assert_int_eq(t->symbols, 0);
	int city = on_edge(t, CARC_E, CARC_F_CITY);
	on_edge(t, CARC_W, CARC_F_RIVER);
	ck_assert_int_eq(t->f[on_half(t, CARC_NL)].borders, bit(city));
	ck_assert_int_eq(t->f[on_half(t, CARC_SL)].borders, bit(city));
	/* the inn, the pig herd */
	t = tile("RI.2/RIrI");
	ck_assert_int_eq(t->f[on_edge(t, CARC_W, CARC_F_ROAD)].flags, CARC_TF_INN);
	t = tile("RI.2/II+");
	ck_assert_int_eq(t->f[on_half(t, CARC_SL)].flags, CARC_TF_PIGHERD);
	ck_assert_int_eq(t->f[on_half(t, CARC_NL)].flags, 0);
	/* a city W-E joined across a river N-S */
	t = tile("RI.2/CIcI");
	city = on_edge(t, CARC_W, CARC_F_CITY);
	ck_assert_int_eq(t->edge_feat[CARC_E], city);
	ck_assert_int_eq(t->f[on_edge(t, CARC_N, CARC_F_RIVER)].edges, bit(CARC_N) | bit(CARC_S));
}
END_TEST

START_TEST(test_gq11)
{
	/* cloister on a crossroads: four wagon groups, one per road */
	const carc_tiletype *t = tile("GQ/LRRRR");
	ck_assert_int_ne(t->cloister, CARC_NOF);
	ck_assert_int_eq(t->f[t->cloister].wagon, 0xf);
	unsigned groups = 0;
	for (int d = 0; d < 4; d++) {
		int r = on_edge(t, d, CARC_F_ROAD);
		ck_assert_int_eq(t->f[r].edges, bit(d));
		ck_assert_int_eq(__builtin_popcount(t->f[r].wagon), 1);
		groups |= t->f[r].wagon;
	}
	ck_assert_int_eq(groups, 0xf);
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 4);
	/* the plain field that may be a pig herd */
	t = tile("GQ/F");
	ck_assert_int_eq(t->nfeat, 1);
	ck_assert_int_eq(t->f[0].flags, CARC_TF_PIGHERD);
	/* a field touching two cities */
	t = tile("GQ/CcCR");
	int nw = on_edge(t, CARC_N, CARC_F_CITY), e = on_edge(t, CARC_E, CARC_F_CITY);
	ck_assert_int_ne(nw, e);
	ck_assert_int_eq(t->edge_feat[CARC_W], nw);
	ck_assert_int_eq(t->f[on_half(t, CARC_SL)].borders, bit(nw) | bit(e));
	ck_assert_int_eq(t->f[on_half(t, CARC_SR)].borders, bit(nw));
	/* the river tiles: a second spring, with a road */
	const carc_tileset *r = set("gq11/river");
	ck_assert_int_eq(r->nstarts, 0);
	ck_assert_int_eq(copies(r, type_of("GQ/RFI")), 1);
	ck_assert_int_eq(copies(set("gq11"), type_of("GQ/RFI")), 0);
	t = tile("GQ/RFI");
	ck_assert_int_eq(t->symbols, CARC_SYM_SPRING);
	on_edge(t, CARC_E, CARC_F_RIVER);
	on_edge(t, CARC_W, CARC_F_ROAD);
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 2);
	ck_assert_int_eq(carc_tile_expansion(type_of("GQ/CICI")), carc_expansion_find("mini"));
}
END_TEST

START_TEST(test_inns_cathedrals)
{
	const carc_tileset *s = set("inns-and-cathedrals:1");
	ck_assert_int_eq(copies(s, type_of("IC/Cccc.c")), 2);
	const carc_tiletype *t = tile("IC/Cccc.c");
	ck_assert_int_eq(t->nfeat, 1);
	ck_assert_int_eq(t->f[0].edges, 0xf);
	ck_assert_int_eq(t->f[0].flags, CARC_TF_CATHEDRAL);
	/* four separate cities round an enclosed field */
	t = tile("IC/CCCC");
	ck_assert_int_eq(count_kind(t, CARC_F_CITY), 4);
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 1);
	unsigned cities = 0;
	for (int d = 0; d < 4; d++) cities |= bit(on_edge(t, d, CARC_F_CITY));
	for (int i = 0; i < t->nfeat; i++)
		if (t->f[i].kind == CARC_F_FIELD) {
			ck_assert_int_eq(t->f[i].halves, 0);
			ck_assert_int_eq(t->f[i].other, 1); /* port I */
			ck_assert_int_eq(t->f[i].borders, cities);
		}
	/* three roads, only the E one has the inn */
	t = tile("IC/RRR.i");
	ck_assert_int_eq(t->f[on_edge(t, CARC_E, CARC_F_ROAD)].flags, CARC_TF_INN);
	ck_assert_int_eq(t->f[on_edge(t, CARC_S, CARC_F_ROAD)].flags, 0);
	ck_assert_int_eq(t->f[on_edge(t, CARC_W, CARC_F_ROAD)].flags, 0);
	ck_assert_int_ne(t->edge_feat[CARC_S], t->edge_feat[CARC_W]);
	/* a field touching two cities */
	t = tile("IC/CCc+");
	int nw = on_edge(t, CARC_N, CARC_F_CITY), so = on_edge(t, CARC_S, CARC_F_CITY);
	ck_assert_int_eq(t->f[nw].pennants, 1);
	ck_assert_int_eq(t->f[so].pennants, 0);
	ck_assert_int_eq(t->f[on_half(t, CARC_EL)].borders, bit(nw) | bit(so));
	/* two curved roads that do not meet */
	t = tile("IC/RrRr");
	ck_assert_int_ne(on_edge(t, CARC_N, CARC_F_ROAD), on_edge(t, CARC_S, CARC_F_ROAD));
	ck_assert_int_eq(t->edge_feat[CARC_W], t->edge_feat[CARC_N]);
	ck_assert_int_eq(t->edge_feat[CARC_E], t->edge_feat[CARC_S]);
}
END_TEST

START_TEST(test_traders_builders)
{
	/* a crossing that does not join: two straight roads, four fields */
	const carc_tiletype *t = tile("TB/RRrr");
	int ns = on_edge(t, CARC_N, CARC_F_ROAD), we = on_edge(t, CARC_W, CARC_F_ROAD);
	ck_assert_int_ne(ns, we);
	ck_assert_int_eq(t->f[ns].edges, bit(CARC_N) | bit(CARC_S));
	ck_assert_int_eq(t->f[we].edges, bit(CARC_E) | bit(CARC_W));
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 4);
	/* goods and an enclosed field touching three cities */
	t = tile("TB/CcCC.c");
	int nw = on_edge(t, CARC_N, CARC_F_CITY);
	ck_assert_int_eq(t->f[nw].goods, CARC_GOODS_CLOTH);
	ck_assert_int_eq(t->f[on_edge(t, CARC_S, CARC_F_CITY)].goods, CARC_GOODS_NONE);
	ck_assert_int_eq(count_kind(t, CARC_F_CITY), 3);
	for (int i = 0; i < t->nfeat; i++)
		if (t->f[i].kind == CARC_F_FIELD) {
			ck_assert_int_eq(t->f[i].other, 1);
			ck_assert_int_eq(t->f[i].borders, bit(nw) | bit(t->edge_feat[CARC_S]) | bit(t->edge_feat[CARC_E]));
		}
	/* the "!" variant splits a field the plain tile keeps whole */
	t = tile("TB/CcRR.w");
	ck_assert_int_eq(on_half(t, CARC_SL), on_half(t, CARC_ER));
	t = tile("TB/CcRR!.c");
	ck_assert_int_ne(on_half(t, CARC_SL), on_half(t, CARC_ER));
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 4);
	/* the city is in both wagon groups, each road in one */
	nw = on_edge(t, CARC_N, CARC_F_CITY);
	ck_assert_int_eq(t->f[nw].wagon, 3);
	ck_assert_int_eq(t->f[on_edge(t, CARC_S, CARC_F_ROAD)].wagon | t->f[on_edge(t, CARC_E, CARC_F_ROAD)].wagon, 3);
	t = tile("TB/CcRC.g");
	ck_assert_int_eq(t->f[on_half(t, CARC_ER)].borders,
	                 bit(on_edge(t, CARC_N, CARC_F_CITY)) | bit(on_edge(t, CARC_S, CARC_F_CITY)));
}
END_TEST

START_TEST(test_princess_dragon)
{
	const carc_tileset *s = set("princess-and-dragon:1");
	ck_assert_int_eq(copies(s, type_of("DG/Rr.d")), 2);
	/* princess on one city only; the pennant on the other */
	const carc_tiletype *t = tile("DG/CCc+.p");
	int n = on_edge(t, CARC_N, CARC_F_CITY), es = on_edge(t, CARC_E, CARC_F_CITY);
	ck_assert_int_ne(n, es);
	ck_assert_int_eq(t->edge_feat[CARC_S], es);
	ck_assert_int_eq(t->f[n].flags, CARC_TF_PRINCESS);
	ck_assert_int_eq(t->f[n].pennants, 0);
	ck_assert_int_eq(t->f[es].flags, 0);
	ck_assert_int_eq(t->f[es].pennants, 1);
	/* a road in a tunnel under a city: they cross without joining */
	t = tile("DG/CRcr.d");
	int road = on_edge(t, CARC_N, CARC_F_ROAD), city = on_edge(t, CARC_W, CARC_F_CITY);
	ck_assert_int_eq(t->edge_feat[CARC_S], road);
	ck_assert_int_eq(t->edge_feat[CARC_E], city);
	ck_assert_int_eq(t->symbols, CARC_SYM_DRAGON);
	/* volcano with a road ending at it; portal on a junction */
	t = tile("DG/R.v");
	ck_assert_int_eq(t->symbols, CARC_SYM_VOLCANO);
	ck_assert_int_eq(t->f[on_edge(t, CARC_S, CARC_F_ROAD)].edges, bit(CARC_S));
	ck_assert_int_eq(t->f[on_half(t, CARC_SL)].halves, 0xff);
	t = tile("DG/RRR.g");
	ck_assert_int_eq(t->symbols, CARC_SYM_PORTAL);
	ck_assert_int_eq(count_kind(t, CARC_F_ROAD), 3);
	/* a field touching two cities */
	t = tile("DG/CC.v");
	ck_assert_int_eq(t->f[on_half(t, CARC_SL)].borders,
	                 bit(on_edge(t, CARC_N, CARC_F_CITY)) | bit(on_edge(t, CARC_E, CARC_F_CITY)));
}
END_TEST

START_TEST(test_tower)
{
	const carc_tileset *s = set("tower:1");
	ck_assert_int_eq(copies(s, type_of("TO/C")), 2);
	for (int j = 0; j < s->nref; j++) {
		const carc_tiletype *t = &carc_tiletypes[s->ref[j].type];
		ck_assert_int_ne(t->tower, CARC_NOF);
		ck_assert_int_eq(t->f[t->tower].kind, CARC_F_TOWER);
		ck_assert_int_eq(t->f[t->tower].edges | t->f[t->tower].halves | t->f[t->tower].other, 0);
	}
	/* tower and cloister on one tile */
	const carc_tiletype *t = tile("TO/L");
	ck_assert_int_ne(t->cloister, CARC_NOF);
	ck_assert_int_ne(t->cloister, t->tower);
	/* road N-S and city W-E cross without joining; four fields */
	t = tile("TO/CRcr");
	int road = on_edge(t, CARC_N, CARC_F_ROAD), city = on_edge(t, CARC_E, CARC_F_CITY);
	ck_assert_int_eq(t->edge_feat[CARC_S], road);
	ck_assert_int_eq(t->edge_feat[CARC_W], city);
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 4);
	for (int h = CARC_NL; h <= CARC_SR; h++)
		if (h != CARC_EL && h != CARC_ER) ck_assert_int_eq(t->f[on_half(t, h)].borders, bit(city));
	/* four roads end at the tower */
	t = tile("TO/RRRR.1");
	ck_assert_int_eq(count_kind(t, CARC_F_ROAD), 4);
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 4);
}
END_TEST

START_TEST(test_abbey_mayor)
{
	/* the abbey: a cloister behind four walls, never drawn */
	const carc_tiletype *abbey = tile("AM/A");
	ck_assert(abbey->symbols & CARC_SYM_ABBEY);
	ck_assert_int_eq(abbey->nfeat, 1);
	ck_assert_int_eq(abbey->f[abbey->cloister].kind, CARC_F_CLOISTER);
	ck_assert_int_eq(carc_tile_find("AM.A"), -1);
	const carc_tiletype *t = tile("AM/C++");
	ck_assert_int_eq(t->nfeat, 1);
	ck_assert_int_eq(t->f[0].pennants, 2);
	/* two cities that cross without joining, two enclosed fields */
	t = tile("AM/CCcc+");
	int ns = on_edge(t, CARC_N, CARC_F_CITY), we = on_edge(t, CARC_W, CARC_F_CITY);
	ck_assert_int_ne(ns, we);
	ck_assert_int_eq(t->edge_feat[CARC_S], ns);
	ck_assert_int_eq(t->edge_feat[CARC_E], we);
	ck_assert_int_eq(t->f[ns].pennants, 1);
	unsigned other = 0;
	for (int i = 0; i < t->nfeat; i++)
		if (t->f[i].kind == CARC_F_FIELD) {
			ck_assert_int_eq(t->f[i].halves, 0);
			ck_assert_int_eq(t->f[i].borders, bit(ns) | bit(we));
			other |= t->f[i].other;
		}
	ck_assert_int_eq(other, 3); /* I and II */
	/* one road with three exits */
	t = tile("AM/Rrr");
	int r = on_edge(t, CARC_N, CARC_F_ROAD);
	ck_assert_int_eq(t->f[r].edges, bit(CARC_N) | bit(CARC_E) | bit(CARC_W));
	/* two cities, two roads, two wagon groups; one field touches both cities */
	t = tile("AM/CCRR");
	int n = on_edge(t, CARC_N, CARC_F_CITY), w = on_edge(t, CARC_W, CARC_F_CITY);
	ck_assert_int_eq(t->f[n].wagon & t->f[on_edge(t, CARC_E, CARC_F_ROAD)].wagon, t->f[n].wagon);
	ck_assert_int_eq(t->f[w].wagon & t->f[on_edge(t, CARC_S, CARC_F_ROAD)].wagon, t->f[w].wagon);
	ck_assert_int_ne(t->f[n].wagon, t->f[w].wagon);
	ck_assert_int_eq(t->f[on_half(t, CARC_ER)].borders, bit(n) | bit(w));
	ck_assert_int_eq(on_half(t, CARC_ER), on_half(t, CARC_SL));
}
END_TEST

/* City block position of CO/k (1..12): x = -2..1, y = -1..1. */
static void block_pos(int k, int *x, int *y)
{
	*x = -2 + (k - 1) % 4;
	*y = -1 + (k - 1) / 4;
}

START_TEST(test_count)
{
	const carc_tileset *s = set("count");
	ck_assert_int_eq(s->nstarts, 12);
	ck_assert_int_eq(s->start, type_of("CO/1"));
	ck_assert_int_eq(s->start_x, -2);
	ck_assert_int_eq(s->start_y, -1);
	/* every tile of the set is a start tile, so none goes to the supply */
	int grid[3][4];
	for (int k = 1; k <= 12; k++) {
		char id[8];
		snprintf(id, sizeof id, "CO/%d", k);
		int type = type_of(id), x, y, found = 0;
		ck_assert_int_eq(copies(s, type), 1);
		block_pos(k, &x, &y);
		for (int i = 0; i < s->nstarts; i++)
			if (s->starts[i].type == type) {
				ck_assert_int_eq(s->starts[i].x, x);
				ck_assert_int_eq(s->starts[i].y, y);
				ck_assert_int_eq(s->starts[i].rot, 0);
				found++;
			}
		ck_assert_int_eq(found, 1);
		grid[y + 1][x + 2] = type;
	}
	/* the block fits together: an inner half-edge faces an inner one, a
	 * field half-edge a field of the neighbour; outer sides are not inner */
	for (int y = 0; y < 3; y++)
		for (int x = 0; x < 4; x++) {
			const carc_tiletype *t = &carc_tiletypes[grid[y][x]];
			static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
			for (int d = 0; d < 4; d++) {
				int nx = x + dx[d], ny = y + dy[d];
				if (nx < 0 || nx > 3 || ny < 0 || ny > 2) {
					ck_assert_msg(edge_kind(t, d) != CARC_EK_INNER, "%s: outer side %s inner", t->id, carc_port_name(d));
					continue;
				}
				const carc_tiletype *u = &carc_tiletypes[grid[ny][nx]];
				int o = (d + 2) & 3;
				ck_assert_msg(edge_kind(t, d) == CARC_EK_INNER, "%s: side %s faces %s", t->id, carc_port_name(d), u->id);
				ck_assert_int_eq(edge_kind(u, o), CARC_EK_INNER);
				for (int h = 0; h < 2; h++) {
					int a = 2 * d + h, b = 2 * o + (1 - h); /* the half-edges that touch */
					ck_assert_msg((t->inner >> a & 1) == (u->inner >> b & 1), "%s %s / %s %s", t->id,
					              carc_port_name(CARC_NL + a), u->id, carc_port_name(CARC_NL + b));
					ck_assert_int_eq(t->half_feat[a] == CARC_NOF, u->half_feat[b] == CARC_NOF);
				}
			}
		}
	/* the central tiles: no feature on CO/6; the four quarters on CO/7 */
	const carc_tiletype *t = tile("CO/6");
	ck_assert_int_eq(t->nfeat, 0);
	ck_assert_int_eq(t->inner, 0xff);
	ck_assert_int_eq(t->quarters, 0);
	t = tile("CO/7");
	ck_assert_int_eq(t->nfeat, 0);
	ck_assert_int_eq(t->inner, 0xff);
	ck_assert_int_eq(t->quarters, CARC_Q_CASTLE | CARC_Q_BLACKSMITH | CARC_Q_CATHEDRAL | CARC_Q_MARKET);
	for (int k = 1; k <= 12; k++) {
		char id[8];
		snprintf(id, sizeof id, "CO/%d", k);
		if (k != 7) ck_assert_int_eq(tile(id)->quarters, 0);
	}
	/* the outer features: three roads end at the City, two small cities */
	on_edge(tile("CO/1"), CARC_W, CARC_F_ROAD);
	on_edge(tile("CO/4"), CARC_N, CARC_F_ROAD);
	on_edge(tile("CO/11"), CARC_S, CARC_F_ROAD);
	t = tile("CO/9");
	ck_assert_int_eq(t->f[on_half(t, CARC_WL)].borders, bit(on_edge(t, CARC_S, CARC_F_CITY)));
	t = tile("CO/12");
	ck_assert_int_eq(t->f[on_half(t, CARC_SL)].borders, bit(on_edge(t, CARC_E, CARC_F_CITY)));
	/* CO/1: the field N of the W road runs on into CO/2, the one S of it into CO/5 */
	t = tile("CO/1");
	ck_assert_int_eq(on_half(t, CARC_WR), on_half(t, CARC_EL));
	ck_assert_int_eq(on_half(t, CARC_WL), on_half(t, CARC_SR));
	ck_assert_int_ne(on_half(t, CARC_WL), on_half(t, CARC_WR));
	ck_assert_int_eq(t->inner, bit(HALF(CARC_ER)) | bit(HALF(CARC_SL)));
}
END_TEST

START_TEST(test_king_robber)
{
	/* city W-E and city N-S cross without joining */
	const carc_tiletype *t = tile("KR/CCcc");
	int we = on_edge(t, CARC_W, CARC_F_CITY), ns = on_edge(t, CARC_N, CARC_F_CITY);
	ck_assert_int_ne(we, ns);
	ck_assert_int_eq(t->f[we].edges, bit(CARC_W) | bit(CARC_E));
	ck_assert_int_eq(t->f[ns].edges, bit(CARC_N) | bit(CARC_S));
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 2);
	t = tile("KR/LC");
	ck_assert_int_ne(t->cloister, CARC_NOF);
	ck_assert_int_eq(t->f[on_half(t, CARC_SL)].borders, bit(on_edge(t, CARC_N, CARC_F_CITY)));
	t = tile("KR/CcRR!");
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 4);
}
END_TEST

START_TEST(test_cathars_cult)
{
	const carc_tileset *s = set("siege/cathars");
	for (int j = 0; j < s->nref; j++) {
		const carc_tiletype *t = &carc_tiletypes[s->ref[j].type];
		ck_assert_int_eq(count_kind(t, CARC_F_CITY), 1);
		ck_assert_int_eq(t->f[on_edge(t, CARC_N, CARC_F_CITY)].flags, CARC_TF_BESIEGED);
	}
	ck_assert_ptr_null(find_set("siege/besiegers"));
	/* a cult place is a centre building like a cloister */
	s = set("cult/6");
	for (int j = 0; j < s->nref; j++) {
		const carc_tiletype *t = &carc_tiletypes[s->ref[j].type];
		ck_assert_int_ne(t->cloister, CARC_NOF);
		ck_assert_int_eq(t->f[t->cloister].flags, CARC_TF_SHRINE);
	}
	const carc_tiletype *t = tile("CU/SRCR");
	int w = on_edge(t, CARC_W, CARC_F_ROAD), e = on_edge(t, CARC_E, CARC_F_ROAD);
	ck_assert_int_ne(w, e);
	ck_assert_int_eq(t->f[t->cloister].wagon, t->f[w].wagon | t->f[e].wagon);
	ck_assert_int_eq(t->f[on_half(t, CARC_WR)].borders, bit(on_edge(t, CARC_N, CARC_F_CITY)));
	ck_assert_int_eq(t->f[on_half(t, CARC_WL)].borders, 0);
}
END_TEST

START_TEST(test_catapult)
{
	const carc_tileset *s = set("catapult");
	ck_assert_int_eq(s->nref, 12);
	for (int j = 0; j < s->nref; j++) ck_assert_int_eq(s->ref[j].count, 1);
	/* the fair ends roads that run into it ... */
	const carc_tiletype *t = tile("CA/RR");
	ck_assert_int_ne(on_edge(t, CARC_W, CARC_F_ROAD), on_edge(t, CARC_S, CARC_F_ROAD));
	t = tile("CA/RFR");
	ck_assert_int_ne(on_edge(t, CARC_N, CARC_F_ROAD), on_edge(t, CARC_S, CARC_F_ROAD));
	/* ... but a ring road round it is one road with four exits */
	t = tile("CA/Rrrr");
	ck_assert_int_eq(count_kind(t, CARC_F_ROAD), 1);
	ck_assert_int_eq(t->f[on_edge(t, CARC_N, CARC_F_ROAD)].edges, 0xf);
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 4);
	t = tile("CA/Cc+");
	ck_assert_int_eq(t->f[on_edge(t, CARC_W, CARC_F_CITY)].pennants, 1);
	t = tile("CA/CFC");
	int n = on_edge(t, CARC_N, CARC_F_CITY), so = on_edge(t, CARC_S, CARC_F_CITY);
	ck_assert_int_ne(n, so);
	ck_assert_int_eq(t->f[on_half(t, CARC_WL)].borders, bit(n) | bit(so));
	ck_assert_int_eq(t->f[on_half(t, CARC_EL)].borders, bit(n) | bit(so));
	ck_assert_int_ne(on_half(t, CARC_WL), on_half(t, CARC_EL));
}
END_TEST

START_TEST(test_hills_sheep)
{
	const carc_tileset *s = set("hills-and-sheep:1");
	ck_assert_int_eq(copies(s, type_of("HS/C!.v")), 2);
	ck_assert_int_eq(copies(s, type_of("HS/CC!.v")), 2);
	/* a city that reaches the N edge without joining the city there */
	const carc_tiletype *t = tile("HS/CC!.v");
	int nw = on_edge(t, CARC_N, CARC_F_CITY), e = on_edge(t, CARC_E, CARC_F_CITY);
	ck_assert_int_ne(nw, e);
	ck_assert_int_eq(t->f[nw].edges, bit(CARC_N) | bit(CARC_W));
	ck_assert_int_eq(t->f[e].edges, bit(CARC_E));
	ck_assert_int_eq(t->f[e].multi, bit(CARC_N));
	ck_assert_int_eq(t->f[nw].multi, 0);
	ck_assert_int_eq(t->f[on_half(t, CARC_SL)].borders, bit(nw) | bit(e));
	/* a field touching two cities; a hill; a vineyard */
	t = tile("HS/RCC.v");
	ck_assert_int_eq(t->symbols, CARC_SYM_VINEYARD);
	ck_assert_int_eq(t->f[on_half(t, CARC_SR)].borders,
	                 bit(on_edge(t, CARC_N, CARC_F_CITY)) | bit(on_edge(t, CARC_W, CARC_F_CITY)));
	t = tile("HS/CFC.h");
	ck_assert_int_eq(t->symbols, CARC_SYM_HILL);
	ck_assert_int_eq(count_kind(t, CARC_F_FIELD), 1);
	/* a cloister with a road ending at it */
	t = tile("HS/LRrR");
	ck_assert_int_ne(t->cloister, CARC_NOF);
	ck_assert_int_eq(t->f[t->cloister].wagon, t->f[on_edge(t, CARC_S, CARC_F_ROAD)].wagon);
	ck_assert_int_eq(t->f[on_edge(t, CARC_N, CARC_F_ROAD)].wagon, 0);
}
END_TEST

static Suite *manifests_suite(void)
{
	Suite *s = suite_create("manifests");
	TCase *tc = tcase_create("sets");
	tcase_add_test(tc, test_set_tile_counts);
	tcase_add_test(tc, test_per_set_counts);
	tcase_add_test(tc, test_symbol_counts);
	tcase_add_test(tc, test_every_type_well_formed);
	suite_add_tcase(s, tc);
	tc = tcase_create("tiles");
	tcase_add_test(tc, test_river);
	tcase_add_test(tc, test_river2);
	tcase_add_test(tc, test_gq11);
	tcase_add_test(tc, test_inns_cathedrals);
	tcase_add_test(tc, test_traders_builders);
	tcase_add_test(tc, test_princess_dragon);
	tcase_add_test(tc, test_tower);
	tcase_add_test(tc, test_abbey_mayor);
	tcase_add_test(tc, test_count);
	tcase_add_test(tc, test_king_robber);
	tcase_add_test(tc, test_cathars_cult);
	tcase_add_test(tc, test_catapult);
	tcase_add_test(tc, test_hills_sheep);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(manifests_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

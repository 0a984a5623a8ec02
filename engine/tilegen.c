/*
 * tilegen.c - turns the tile manifests (engine/tiles/NAME.tiles) into C tables.
 *
 * A build tool, not part of libcarc: `tilegen FILE... > tiles_data.c`.
 * It checks what a person transcribing tiles gets wrong (an edge claimed
 * by two features, a field half-edge left out, a border naming an edge
 * with no city) and stops with file:line on the first error.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "tiles_int.h"

#define MAX_TYPES 512
#define MAX_SETS 64
#define MAX_REFS 128

typedef struct gtile {
	char id[32];
	int nfeat;
	carc_tfeat f[CARC_TILE_MAXF];
	char border_src[CARC_TILE_MAXF][32]; /* borders=... text, resolved at the end */
	unsigned symbols;
	int line;
	const char *file;
} gtile;

typedef struct gset {
	char id[48], expansion[32], start_name[32];
	int start, sx, sy, srot;
	int nref;
	int ref_type[MAX_REFS], ref_count[MAX_REFS];
} gset;

static gtile types[MAX_TYPES];
static int ntypes;
static gset sets[MAX_SETS];
static int nsets;
static const char *cur_file;
static int cur_line;

static void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: ", cur_file ? cur_file : "tilegen", cur_line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static const char *const kinds[] = { "road", "city", "field", "cloister", "river", "tower", NULL };
static const char *const symbols[] = { "volcano", "dragon", "portal", "hill", "vineyard", "fair", "garden", NULL };
static const char *const goods[] = { "", "wine", "grain", "cloth", NULL };
static const struct { const char *name; unsigned flag; } flags[] = {
	{ "inn", CARC_TF_INN }, { "cathedral", CARC_TF_CATHEDRAL }, { "besieged", CARC_TF_BESIEGED },
	{ "princess", CARC_TF_PRINCESS }, { "shrine", CARC_TF_SHRINE }, { "pigherd", CARC_TF_PIGHERD },
};

static int lookup(const char *const *list, const char *s)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(list[i], s)) return i;
	return -1;
}

static int find_type(const char *id)
{
	for (int i = 0; i < ntypes; i++)
		if (!strcmp(types[i].id, id)) return i;
	return -1;
}

static int edge_of(const char *s)
{
	int p = carc_port_parse(s);
	if (p < 0 || p > CARC_W) die("'%s' is not an edge (N E S W)", s);
	return p;
}

static void parse_feature(gtile *t, char **tok, int ntok)
{
	int k = lookup(kinds, tok[0]);
	if (k < 0) die("unknown feature kind '%s'", tok[0]);
	if (t->nfeat >= CARC_TILE_MAXF) die("more than %d features on %s", CARC_TILE_MAXF, t->id);
	int fi = t->nfeat++;
	carc_tfeat *f = &t->f[fi];
	memset(f, 0, sizeof *f);
	f->kind = (uint8_t)k;
	for (int i = 1; i < ntok; i++) {
		char *a = tok[i], *eq = strchr(a, '=');
		if (eq) {
			*eq++ = 0;
			if (!strcmp(a, "pennants")) f->pennants = (uint8_t)atoi(eq);
			else if (!strcmp(a, "goods")) {
				int g = lookup(goods, eq);
				if (g <= 0) die("unknown goods '%s'", eq);
				f->goods = (uint8_t)g;
			} else if (!strcmp(a, "borders")) {
				if (k != CARC_F_FIELD) die("borders= is for fields");
				snprintf(t->border_src[fi], sizeof t->border_src[fi], "%s", eq);
			} else if (!strcmp(a, "wagon")) f->wagon = (uint8_t)eq[0];
			else if (!strcmp(a, "multi")) f->multi |= (uint8_t)(1u << edge_of(eq));
			else die("unknown attribute '%s'", a);
			continue;
		}
		if (!strcmp(a, "pennant")) { f->pennants = 1; continue; }
		size_t j;
		for (j = 0; j < sizeof flags / sizeof flags[0]; j++)
			if (!strcmp(a, flags[j].name)) { f->flags |= (uint16_t)flags[j].flag; break; }
		if (j < sizeof flags / sizeof flags[0]) continue;
		int p = carc_port_parse(a);
		if (p < 0) die("unknown port or attribute '%s'", a);
		if (p <= CARC_W) {
			if (k == CARC_F_FIELD) die("a field lists half-edges, not edge %s", a);
			f->edges |= (uint8_t)(1u << p);
		} else if (p <= CARC_WR) {
			if (k != CARC_F_FIELD) die("half-edge %s on a %s", a, tok[0]);
			f->halves |= (uint8_t)(1u << (p - CARC_NL));
		} else if (p == CARC_P_I || p == CARC_P_II) {
			f->other |= (uint8_t)(1u << (p - CARC_P_I));
		} else die("port '%s' is not written in a manifest", a);
	}
}

/* Resolves borders=, builds the port tables and checks the tile. */
static void finish_tile(const gtile *t, carc_tiletype *o)
{
	memset(o, 0, sizeof *o);
	o->id = t->id;
	o->nfeat = (uint8_t)t->nfeat;
	o->symbols = (uint16_t)t->symbols;
	memset(o->edge_feat, CARC_NOF, sizeof o->edge_feat);
	memset(o->half_feat, CARC_NOF, sizeof o->half_feat);
	o->cloister = o->tower = CARC_NOF;
	uint8_t ek[4] = { CARC_EK_FIELD, CARC_EK_FIELD, CARC_EK_FIELD, CARC_EK_FIELD };
	cur_file = t->file;
	cur_line = t->line;
	for (int i = 0; i < t->nfeat; i++) {
		const carc_tfeat *f = &t->f[i];
		o->f[i] = *f;
		for (int d = 0; d < 4; d++) {
			if (!(f->edges >> d & 1)) continue;
			if (o->edge_feat[d] != CARC_NOF) die("%s: edge %s claimed twice", t->id, carc_port_name(d));
			o->edge_feat[d] = (uint8_t)i;
			ek[d] = f->kind == CARC_F_ROAD ? CARC_EK_ROAD : f->kind == CARC_F_CITY ? CARC_EK_CITY
			        : f->kind == CARC_F_RIVER ? CARC_EK_RIVER : CARC_EK_FIELD;
		}
		for (int h = 0; h < 8; h++) {
			if (!(f->halves >> h & 1)) continue;
			if (o->half_feat[h] != CARC_NOF) die("%s: half-edge %s claimed twice", t->id, carc_port_name(CARC_NL + h));
			o->half_feat[h] = (uint8_t)i;
		}
		if (f->kind == CARC_F_CLOISTER) {
			if (o->cloister != CARC_NOF) die("%s: two centre buildings", t->id);
			o->cloister = (uint8_t)i;
		}
		if (f->kind == CARC_F_TOWER) o->tower = (uint8_t)i;
		if (t->border_src[i][0]) {
			char buf[32];
			snprintf(buf, sizeof buf, "%s", t->border_src[i]);
			for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
				int d = edge_of(s), c = -1;
				for (int j = 0; j < t->nfeat; j++)
					if (t->f[j].kind == CARC_F_CITY && (t->f[j].edges >> d & 1)) c = j;
				if (c < 0) die("%s: borders=%s names no city", t->id, s);
				o->f[i].borders |= (uint16_t)(1u << c);
			}
		}
	}
	/* A half-edge is field unless a road or river runs along it or a city
	 * covers that edge; every field half-edge must belong to a field. */
	for (int h = 0; h < 8; h++) {
		int d = h / 2;
		if (ek[d] == CARC_EK_CITY) {
			if (o->half_feat[h] != CARC_NOF) die("%s: field half-edge %s on a city edge", t->id, carc_port_name(CARC_NL + h));
		} else if (o->half_feat[h] == CARC_NOF) {
			die("%s: half-edge %s belongs to no field", t->id, carc_port_name(CARC_NL + h));
		}
	}
	for (int r = 0; r < 4; r++) {
		uint32_t code = 0;
		for (int d = 0; d < 4; d++) code |= (uint32_t)ek[(d - r + 4) & 3] << (8 * d);
		o->edge_code[r] = code;
	}
}

static void parse_file(const char *path)
{
	FILE *fp = fopen(path, "r");
	if (!fp) { perror(path); exit(1); }
	char line[512];
	gtile *t = NULL;
	gset *s = NULL;
	cur_file = path;
	cur_line = 0;
	while (fgets(line, sizeof line, fp)) {
		cur_line++;
		char *hash = strchr(line, '#');
		if (hash) *hash = 0;
		int indented = isspace((unsigned char)line[0]);
		char *tok[24];
		int ntok = 0;
		for (char *p = strtok(line, " \t\r\n"); p && ntok < 24; p = strtok(NULL, " \t\r\n")) tok[ntok++] = p;
		if (!ntok) continue;
		if (indented) {
			if (!t) die("feature line outside a new tile");
			if (!strcmp(tok[0], "symbol")) {
				for (int i = 1; i < ntok; i++) {
					int sy = lookup(symbols, tok[i]);
					if (sy < 0) die("unknown symbol '%s'", tok[i]);
					t->symbols |= 1u << sy;
				}
			} else parse_feature(t, tok, ntok);
			continue;
		}
		t = NULL;
		if (!strcmp(tok[0], "set") && ntok == 3) {
			if (nsets >= MAX_SETS) die("too many sets");
			s = &sets[nsets++];
			memset(s, 0, sizeof *s);
			snprintf(s->id, sizeof s->id, "%s", tok[1]);
			snprintf(s->expansion, sizeof s->expansion, "%s", tok[2]);
			s->start = -1;
		} else if (!strcmp(tok[0], "start") && ntok == 5) {
			if (!s) die("start before set");
			snprintf(s->start_name, sizeof s->start_name, "%s", tok[1]);
			s->sx = atoi(tok[2]);
			s->sy = atoi(tok[3]);
			s->srot = atoi(tok[4]);
		} else if (!strcmp(tok[0], "tile") && ntok == 3) {
			if (!s) die("tile before set");
			if (s->nref >= MAX_REFS) die("too many tiles in set");
			int ti = find_type(tok[1]);
			if (ti < 0) {
				if (ntypes >= MAX_TYPES) die("too many tile types");
				ti = ntypes++;
				t = &types[ti];
				memset(t, 0, sizeof *t);
				snprintf(t->id, sizeof t->id, "%s", tok[1]);
				t->line = cur_line;
				t->file = path;
			}
			s->ref_type[s->nref] = ti;
			s->ref_count[s->nref++] = atoi(tok[2]);
			if (atoi(tok[2]) <= 0) die("tile count must be positive");
		} else die("cannot read '%s'", tok[0]);
	}
	fclose(fp);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) parse_file(argv[i]);
	/* A `start` line may name a tile described further down its file. */
	for (int i = 0; i < nsets; i++) {
		if (!sets[i].start_name[0]) continue;
		sets[i].start = find_type(sets[i].start_name);
		cur_file = "start";
		if (sets[i].start < 0) die("start tile %s of %s is described nowhere", sets[i].start_name, sets[i].id);
	}
	printf("/* Generated by tilegen from engine/tiles/NAME.tiles: do not edit. */\n");
	printf("#include \"carc.h\"\n#include \"tiles_int.h\"\n\n");
	printf("const carc_tiletype carc_tiletypes[] = {\n");
	for (int i = 0; i < ntypes; i++) {
		carc_tiletype o;
		finish_tile(&types[i], &o);
		printf("  { \"%s\", %u, {%u,%u,%u,%u}, {%u,%u,%u,%u,%u,%u,%u,%u}, %u, %u, %u,\n",
		       o.id, o.nfeat, o.edge_feat[0], o.edge_feat[1], o.edge_feat[2], o.edge_feat[3],
		       o.half_feat[0], o.half_feat[1], o.half_feat[2], o.half_feat[3], o.half_feat[4],
		       o.half_feat[5], o.half_feat[6], o.half_feat[7], o.cloister, o.tower, o.symbols);
		printf("    {0x%08xu,0x%08xu,0x%08xu,0x%08xu}, {\n", (unsigned)o.edge_code[0], (unsigned)o.edge_code[1],
		       (unsigned)o.edge_code[2], (unsigned)o.edge_code[3]);
		for (int j = 0; j < o.nfeat; j++) {
			const carc_tfeat *f = &o.f[j];
			printf("      { %u, 0x%x, 0x%x, 0x%x, %u, %u, %u, 0x%x, 0x%x, 0x%x },\n", f->kind, f->edges,
			       f->halves, f->other, f->pennants, f->goods, f->wagon, f->multi, f->flags, f->borders);
		}
		printf("    } },\n");
	}
	printf("};\nconst int carc_ntiletypes = %d;\n\n", ntypes);
	for (int i = 0; i < nsets; i++) {
		printf("static const carc_tileref set%d_refs[] = {", i);
		for (int j = 0; j < sets[i].nref; j++) printf(" {%d, %d},", sets[i].ref_type[j], sets[i].ref_count[j]);
		printf(" };\n");
	}
	printf("const carc_tileset carc_tilesets[] = {\n");
	for (int i = 0; i < nsets; i++) {
		const gset *s = &sets[i];
		printf("  { \"%s\", \"%s\", %u, %d, %d, %d, %d, set%d_refs },\n", s->id, s->expansion,
		       s->start < 0 ? 0xffffu : (unsigned)s->start, s->sx, s->sy, s->srot, s->nref, i);
	}
	printf("};\nconst int carc_ntilesets = %d;\n", nsets);
	return 0;
}

/*
 * tilegen.c - turns the tile manifests (engine/tiles/NAME.tiles) into C tables.
 *
 * A build tool, not part of libcarc: `tilegen FILE... > tiles_data.c`.
 * It checks what a person transcribing tiles gets wrong (an edge claimed
 * by two features, a field half-edge left out, a border naming an edge
 * with no city, a set named for no expansion of names.c) and stops with
 * file:line on the first error.
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
#define MAX_STARTS 16
#define MAX_REMOVE 4

typedef struct gtile {
	char id[32];
	int nfeat;
	carc_tfeat f[CARC_TILE_MAXF];
	char border_src[CARC_TILE_MAXF][32]; /* borders=... text, resolved at the end */
	unsigned symbols;
	unsigned inner, quarters, max;
	int line;
	const char *file;
} gtile;

typedef struct gset {
	char id[48], expansion[32];
	int start; /* the first start line's tile, or -1 */
	int nstarts;
	char start_name[MAX_STARTS][32];
	int start_type[MAX_STARTS], sx[MAX_STARTS], sy[MAX_STARTS], srot[MAX_STARTS], start_line[MAX_STARTS];
	int nremove;
	char remove_name[MAX_REMOVE][32];
	int remove_type[MAX_REMOVE], remove_line[MAX_REMOVE];
	int nref;
	int ref_type[MAX_REFS], ref_count[MAX_REFS];
	int line;
	const char *file;
} gset;

static gtile types[MAX_TYPES];
static int ntypes;
static gset sets[MAX_SETS];
static int nsets;
static int sets_dealt[MAX_SETS], sets_adjust[MAX_SETS]; /* dealt copies and adjusted tiles of each set */
static const char *cur_file;
static int cur_line;

/* stops the build with the manifest's file and line; never returns, which
 * also tells the compiler (and static analysers) a checked pointer is set */
__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt, ...)
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
static const char *const symbols[] = { "volcano", "dragon", "portal", "hill", "vineyard", "fair", "garden",
	                               "spring", "lake", "abbey", NULL };
static const char *const quarters[] = { "castle", "blacksmith", "cathedral", "market", NULL };
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
			if (!strcmp(a, "pennants")) {
				int n = atoi(eq);
				if (k != CARC_F_CITY || n < 1 || n > 9) die("pennants=%s: 1 to 9, on a city", eq);
				f->pennants = (uint8_t)n;
			} else if (!strcmp(a, "goods")) {
				int g = lookup(goods, eq);
				if (g <= 0) die("unknown goods '%s'", eq);
				f->goods = (uint8_t)g;
			} else if (!strcmp(a, "borders")) {
				if (k != CARC_F_FIELD) die("borders= is for fields");
				snprintf(t->border_src[fi], sizeof t->border_src[fi], "%s", eq);
			} else if (!strcmp(a, "wagon")) {
				/* wagon=a or wagon=a,b,...: the groups this feature is in */
				for (const char *g = eq; *g; g += g[1] ? 2 : 1) {
					if (*g < 'a' || *g > 'h' || (g[1] && g[1] != ','))
						die("wagon=%s: groups are letters a to h, separated by commas", eq);
					f->wagon |= (uint8_t)(1u << (*g - 'a'));
				}
				if (!f->wagon) die("wagon= names no group");
			} else if (!strcmp(a, "multi")) {
				if (k != CARC_F_CITY) die("multi= is for cities");
				f->multi |= (uint8_t)(1u << edge_of(eq));
			} else die("unknown attribute '%s'", a);
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
	o->inner = (uint8_t)t->inner;
	o->quarters = (uint8_t)t->quarters;
	o->max = (uint8_t)t->max;
	memset(o->edge_feat, CARC_NOF, sizeof o->edge_feat);
	memset(o->half_feat, CARC_NOF, sizeof o->half_feat);
	memset(o->multi_feat, CARC_NOF, sizeof o->multi_feat);
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
	/* A side with an inner half-edge (inside the City of Carcassonne) is
	 * an inner side: no road, city or river crosses it, and each of its
	 * halves is either inner or in a field. */
	for (int d = 0; d < 4; d++) {
		if (!(t->inner >> (2 * d) & 3)) continue;
		if (o->edge_feat[d] != CARC_NOF) die("%s: inner side %s is claimed by a feature", t->id, carc_port_name(d));
		ek[d] = CARC_EK_INNER;
	}
	/* A half-edge is field unless a road or river runs along it or a city
	 * covers that edge; every field half-edge must belong to a field. */
	for (int h = 0; h < 8; h++) {
		int d = h / 2;
		if (t->inner >> h & 1) {
			if (o->half_feat[h] != CARC_NOF) die("%s: inner half-edge %s is in a field", t->id, carc_port_name(CARC_NL + h));
		} else if (ek[d] == CARC_EK_CITY) {
			if (o->half_feat[h] != CARC_NOF) die("%s: field half-edge %s on a city edge", t->id, carc_port_name(CARC_NL + h));
		} else if (o->half_feat[h] == CARC_NOF && !(t->symbols & CARC_SYM_ABBEY)) { /* abbey walls bound fields */
			die("%s: half-edge %s belongs to no field", t->id, carc_port_name(CARC_NL + h));
		}
	}
	/* multi=D: the city also reaches side D, which another city holds. */
	for (int i = 0; i < t->nfeat; i++)
		for (int d = 0; d < 4; d++) {
			if (!(t->f[i].multi >> d & 1)) continue;
			int c = o->edge_feat[d];
			if (c == CARC_NOF || c == i || t->f[c].kind != CARC_F_CITY)
				die("%s: multi=%s names no other city's side", t->id, carc_port_name(d));
			if (o->multi_feat[d] != CARC_NOF) die("%s: two cities multi=%s", t->id, carc_port_name(d));
			o->multi_feat[d] = (uint8_t)i;
		}
	for (int r = 0; r < 4; r++) {
		uint32_t code = 0;
		for (int d = 0; d < 4; d++) code |= (uint32_t)ek[(d - r + 4) & 3] << (8 * d);
		o->edge_code[r] = code;
	}
	for (int d = 0; d < 4; d++)
		if (ek[d] == CARC_EK_RIVER) o->river |= (uint8_t)(1u << d);
	/* The lowest port of each feature in each rotation: how moves and
	 * events name it. */
	for (int i = 0; i < o->nfeat; i++) {
		const carc_tfeat *f = &o->f[i];
		unsigned ports = f->edges | (unsigned)f->halves << 4 | (unsigned)f->other << CARC_P_I;
		if (f->kind == CARC_F_CLOISTER) ports |= 1u << CARC_P_CLOISTER;
		if (f->kind == CARC_F_TOWER) ports |= 1u << CARC_P_TOWER;
		for (int r = 0; r < 4; r++) {
			int first = ports ? CARC_PORT_COUNT : 0;
			for (int p = 0; p < CARC_PORT_COUNT; p++)
				if (ports >> p & 1 && carc_port_rot(p, r) < first) first = carc_port_rot(p, r);
			o->first_port[r][i] = (uint8_t)first;
		}
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
			} else if (!strcmp(tok[0], "inner")) {
				for (int i = 1; i < ntok; i++) {
					int p = carc_port_parse(tok[i]);
					if (p >= 0 && p <= CARC_W) t->inner |= 3u << (2 * p);
					else if (p >= CARC_NL && p <= CARC_WR) t->inner |= 1u << (p - CARC_NL);
					else die("inner: '%s' is not an edge or half-edge", tok[i]);
				}
			} else if (!strcmp(tok[0], "quarters")) {
				for (int i = 1; i < ntok; i++) {
					int q = lookup(quarters, tok[i]);
					if (q < 0) die("unknown quarter '%s'", tok[i]);
					t->quarters |= 1u << q;
				}
			} else if (!strcmp(tok[0], "max") && ntok == 2) {
				int n = atoi(tok[1]);
				if (n < 1 || n > 255) die("max must be 1 to 255");
				t->max = (unsigned)n;
			} else parse_feature(t, tok, ntok);
			continue;
		}
		t = NULL;
		if (!strcmp(tok[0], "set") && ntok == 3) {
			if (nsets >= MAX_SETS) die("too many sets");
			for (int i = 0; i < nsets; i++)
				if (!strcmp(sets[i].id, tok[1])) die("set %s twice", tok[1]);
			if (carc_expansion_find(tok[2]) < 0) die("'%s' is no expansion of names.c", tok[2]);
			s = &sets[nsets++];
			memset(s, 0, sizeof *s);
			snprintf(s->id, sizeof s->id, "%s", tok[1]);
			snprintf(s->expansion, sizeof s->expansion, "%s", tok[2]);
			s->start = -1;
			s->line = cur_line;
			s->file = path;
		} else if (!strcmp(tok[0], "start") && ntok == 5) {
			if (!s) die("start before set");
			if (s->nstarts >= MAX_STARTS) die("too many start tiles");
			int k = s->nstarts++;
			snprintf(s->start_name[k], sizeof s->start_name[k], "%s", tok[1]);
			s->sx[k] = atoi(tok[2]);
			s->sy[k] = atoi(tok[3]);
			s->srot[k] = atoi(tok[4]);
			s->start_line[k] = cur_line;
			if (s->srot[k] < 0 || s->srot[k] > 3) die("rotation must be 0 to 3");
			for (int j = 0; j < k; j++)
				if (s->sx[j] == s->sx[k] && s->sy[j] == s->sy[k]) die("two start tiles at %d,%d", s->sx[k], s->sy[k]);
		} else if (!strcmp(tok[0], "remove") && ntok == 2) {
			if (!s) die("remove before set");
			if (s->nremove >= MAX_REMOVE) die("too many removed tiles");
			s->remove_line[s->nremove] = cur_line;
			snprintf(s->remove_name[s->nremove++], sizeof s->remove_name[0], "%s", tok[1]);
		} else if (!strcmp(tok[0], "tile") && ntok == 3) {
			if (!s) die("tile before set");
			if (s->nref >= MAX_REFS) die("too many tiles in set");
			int ti = find_type(tok[1]);
			for (int j = 0; ti >= 0 && j < s->nref; j++)
				if (s->ref_type[j] == ti) die("%s twice in set %s", tok[1], s->id);
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
			if (atoi(tok[2]) <= 0 || atoi(tok[2]) > 255) die("tile count must be 1 to 255");
		} else die("cannot read '%s'", tok[0]);
	}
	fclose(fp);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) parse_file(argv[i]);
	/* A `start` line may name a tile described further down its file; a
	 * start tile is one of the set's own tiles.  A `remove` line names a
	 * tile of another set. */
	for (int i = 0; i < nsets; i++) {
		gset *s = &sets[i];
		cur_file = s->file;
		cur_line = s->line;
		if (!s->nref) die("set %s has no tiles", s->id);
		for (int k = 0; k < s->nstarts; k++) {
			cur_line = s->start_line[k];
			int ti = s->start_type[k] = find_type(s->start_name[k]);
			if (ti < 0) die("start tile %s of %s is described nowhere", s->start_name[k], s->id);
			int in_set = 0;
			for (int j = 0; j < s->nref; j++) in_set |= s->ref_type[j] == ti;
			if (!in_set) die("start tile %s is not a tile of set %s", s->start_name[k], s->id);
		}
		if (s->nstarts) s->start = s->start_type[0];
		for (int k = 0; k < s->nremove; k++) {
			cur_line = s->remove_line[k];
			int ti = s->remove_type[k] = find_type(s->remove_name[k]);
			if (ti < 0) die("removed tile %s is described nowhere", s->remove_name[k]);
			for (int j = 0; j < s->nref; j++)
				if (s->ref_type[j] == ti) die("set %s removes its own tile %s", s->id, s->remove_name[k]);
		}
	}
	/* Each expansion with sets has its reference set (names.c) among them. */
	for (int e = 0; e < carc_expansion_count(); e++) {
		const carc_expansion_desc *x = carc_expansion(e);
		int named = -1, main_set = 0;
		for (int i = 0; i < nsets; i++)
			if (!strcmp(sets[i].expansion, x->name)) {
				named = i;
				main_set |= !strcmp(sets[i].id, x->tileset);
			}
		cur_file = named >= 0 ? sets[named].file : "tilegen";
		cur_line = named >= 0 ? sets[named].line : 0;
		if (named >= 0 && !main_set) die("expansion %s has no set %s", x->name, x->tileset);
	}
	printf("/* Generated by tilegen from engine/tiles/NAME.tiles: do not edit. */\n");
	printf("#include <stddef.h>\n\n#include \"carc.h\"\n#include \"tiles_int.h\"\n\n");
	printf("const carc_tiletype carc_tiletypes[] = {\n");
	for (int i = 0; i < ntypes; i++) {
		carc_tiletype o;
		finish_tile(&types[i], &o);
		printf("  { \"%s\", %u, {%u,%u,%u,%u}, {%u,%u,%u,%u,%u,%u,%u,%u}, %u, %u, 0x%x, 0x%x, %u, 0x%x,\n",
		       o.id, o.nfeat, o.edge_feat[0], o.edge_feat[1], o.edge_feat[2], o.edge_feat[3],
		       o.half_feat[0], o.half_feat[1], o.half_feat[2], o.half_feat[3], o.half_feat[4],
		       o.half_feat[5], o.half_feat[6], o.half_feat[7], o.cloister, o.tower, o.inner, o.quarters, o.max,
		       o.symbols);
		printf("    {0x%08xu,0x%08xu,0x%08xu,0x%08xu}, {\n", (unsigned)o.edge_code[0], (unsigned)o.edge_code[1],
		       (unsigned)o.edge_code[2], (unsigned)o.edge_code[3]);
		for (int j = 0; j < o.nfeat; j++) {
			const carc_tfeat *f = &o.f[j];
			printf("      { %u, 0x%x, 0x%x, 0x%x, %u, %u, %u, 0x%x, 0x%x, 0x%x },\n", f->kind, f->edges,
			       f->halves, f->other, f->pennants, f->goods, f->wagon, f->multi, f->flags, f->borders);
		}
		printf("    }, 0x%x, {", o.river);
		for (int r = 0; r < 4; r++) {
			printf("%s{", r ? "," : "");
			for (int j = 0; j < o.nfeat; j++) printf("%s%u", j ? "," : "", o.first_port[r][j]);
			printf("}");
		}
		printf("}, {%u,%u,%u,%u} },\n", o.multi_feat[0], o.multi_feat[1], o.multi_feat[2], o.multi_feat[3]);
	}
	printf("};\nconst int carc_ntiletypes = %d;\n\n", ntypes);
	printf("const uint16_t carc_tile_river[] = {");
	for (int i = 0; i < ntypes; i++) {
		carc_tiletype o;
		finish_tile(&types[i], &o);
		unsigned e = o.river, all = 0;
		for (int r = 0; r < 4; r++) all |= carc_edges_rot(e, r) << (4 * r);
		printf("%s0x%x,", i % 16 ? " " : "\n  ", all);
	}
	printf("\n};\n\n");
	printf("const carc_tiletraits carc_tile_traits[] = {");
	for (int i = 0; i < ntypes; i++) {
		carc_tiletype o;
		finish_tile(&types[i], &o);
		unsigned building = 0, corners = 0, fkinds = 0, tflags = 0;
		if (o.cloister != CARC_NOF) building = o.f[o.cloister].flags & CARC_TF_SHRINE ? 2 : 1;
		for (int u = 0; u < 4; u++) { /* corner u lies between half-edges 2u - 1 and 2u */
			/* one field reaches the corner: a corner two fields share (a
			 * wall or a city's edge runs into it, AM/C!+, IC/C!) is no
			 * place for a barn, which stands in one field (RULES.md 2.9) */
			int a = o.half_feat[(2 * u + 7) & 7], b = o.half_feat[2 * u];
			if (a != CARC_NOF && a == b && o.f[a].kind == CARC_F_FIELD) corners |= 1u << u;
		}
		for (int j = 0; j < o.nfeat; j++) {
			fkinds |= 1u << o.f[j].kind;
			if (o.f[j].flags & CARC_TF_BESIEGED) tflags |= CARC_TT_SIEGE;
			if (o.f[j].flags & CARC_TF_PIGHERD) tflags |= CARC_TT_HERD;
		}
		if (o.symbols & CARC_SYM_HILL) tflags |= CARC_TT_HILL;
		if (building) tflags |= CARC_TT_BUILDING;
		if (o.symbols & CARC_SYM_ABBEY) tflags |= CARC_TT_ABBEY;
		if (o.symbols & CARC_SYM_SPRING) tflags |= CARC_TT_SPRING;
		if (o.max) tflags |= CARC_TT_MAX;
		printf("%s{%u,%u,0x%x,%u},", i % 8 ? " " : "\n  ", building, corners, fkinds, tflags);
	}
	printf("\n};\n\n");
	/* What a supply deals of each set.  Most tiles are dealt as the sets
	 * count them; the few a game may deal fewer copies of get a slot of
	 * counters (carc_tile_slot): the start tiles, tiles a set removes,
	 * and tiles whose maximum the sets together pass (or that could pass
	 * the 254 copies a count holds).  Springs and abbeys are never dealt. */
	static unsigned total[MAX_TYPES], slot[MAX_TYPES];
	static int never[MAX_TYPES], adjusted[MAX_TYPES];
	for (int i = 0; i < ntypes; i++) never[i] = (types[i].symbols & (CARC_SYM_SPRING | CARC_SYM_ABBEY)) != 0;
	for (int i = 0; i < nsets; i++) {
		const gset *s = &sets[i];
		for (int j = 0; j < s->nref; j++) total[s->ref_type[j]] += (unsigned)s->ref_count[j];
		if (s->start >= 0) adjusted[s->start] = 1;
		for (int k = 0; k < s->nremove; k++) adjusted[s->remove_type[k]] = 1;
	}
	unsigned nslots = 0;
	printf("const uint8_t carc_tile_slot[] = {");
	for (int i = 0; i < ntypes; i++) {
		if ((types[i].max && total[i] > types[i].max) || total[i] > 254) adjusted[i] = 1;
		adjusted[i] &= !never[i];
		slot[i] = adjusted[i] ? nslots++ : CARC_NO_SLOT;
		printf("%s%u,", i % 16 ? " " : "\n  ", slot[i]);
	}
	printf("\n};\n\n");
	cur_file = "tilegen";
	cur_line = 0;
	if (nslots > CARC_TILE_SLOTS) die("%u tiles need counters while dealt, more than CARC_TILE_SLOTS", nslots);
	for (int i = 0; i < nsets; i++) {
		const gset *s = &sets[i];
		int ndealt = 0, nadjust = 0;
		for (int j = 0; j < s->nref; j++) {
			int ti = s->ref_type[j];
			if (adjusted[ti]) nadjust++;
			else if (!never[ti]) ndealt += s->ref_count[j];
		}
		if (ndealt > 0xffff || nadjust > 0xff) die("set %s deals too many tiles", s->id);
		sets_dealt[i] = ndealt;
		sets_adjust[i] = nadjust;
		if (ndealt) {
			printf("static const uint16_t set%d_dealt[] = {", i);
			for (int j = 0; j < s->nref; j++) {
				int ti = s->ref_type[j];
				for (int k = 0; !never[ti] && !adjusted[ti] && k < s->ref_count[j]; k++) printf(" %d,", ti);
			}
			printf(" };\n");
		}
		if (nadjust) {
			printf("static const carc_tileadjust set%d_adjust[] = {", i);
			for (int j = 0, at = 0; j < s->nref; j++) {
				int ti = s->ref_type[j];
				if (adjusted[ti]) printf(" {%d, %d, %d},", at, ti, s->ref_count[j]);
				else if (!never[ti]) at += s->ref_count[j];
			}
			printf(" };\n");
		}
	}
	for (int i = 0; i < nsets; i++) {
		const gset *s = &sets[i];
		printf("static const carc_tileref set%d_refs[] = {", i);
		for (int j = 0; j < s->nref; j++) printf(" {%d, %d},", s->ref_type[j], s->ref_count[j]);
		printf(" };\n");
		if (s->nstarts) {
			printf("static const carc_tilestart set%d_starts[] = {", i);
			for (int k = 0; k < s->nstarts; k++)
				printf(" {%d, %d, %d, %d},", s->start_type[k], s->sx[k], s->sy[k], s->srot[k]);
			printf(" };\n");
		}
		if (s->nremove) {
			printf("static const uint16_t set%d_remove[] = {", i);
			for (int k = 0; k < s->nremove; k++) printf(" %d,", s->remove_type[k]);
			printf(" };\n");
		}
	}
	printf("const carc_tileset carc_tilesets[] = {\n");
	for (int i = 0; i < nsets; i++) {
		const gset *s = &sets[i];
		char starts[32] = "NULL", remove[32] = "NULL";
		if (s->nstarts) snprintf(starts, sizeof starts, "set%d_starts", i);
		if (s->nremove) snprintf(remove, sizeof remove, "set%d_remove", i);
		/* river tiles only, and no start of its own */
		int river_only = s->start < 0;
		for (int j = 0; j < s->nref; j++) {
			const gtile *t = &types[s->ref_type[j]];
			int river = 0;
			for (int k = 0; k < t->nfeat; k++) river |= t->f[k].kind == CARC_F_RIVER;
			river_only &= river;
		}
		char dealt[32] = "NULL", adjust[32] = "NULL";
		if (sets_dealt[i]) snprintf(dealt, sizeof dealt, "set%d_dealt", i);
		if (sets_adjust[i]) snprintf(adjust, sizeof adjust, "set%d_adjust", i);
		printf("  { \"%s\", \"%s\", %u, %d, %d, %d, %d, set%d_refs, %d, %s, %d, %s, %d, %d, %d, %s, %d, %s },\n",
		       s->id, s->expansion, s->start < 0 ? 0xffffu : (unsigned)s->start, s->nstarts ? s->sx[0] : 0,
		       s->nstarts ? s->sy[0] : 0, s->nstarts ? s->srot[0] : 0, s->nref, i, s->nstarts, starts, s->nremove,
		       remove, carc_expansion_find(s->expansion), river_only, sets_dealt[i], dealt, sets_adjust[i], adjust);
	}
	printf("};\nconst int carc_ntilesets = %d;\n", nsets);
	unsigned long with_set = 0; /* the expansions whose reference set is here */
	for (int e = 0; e < carc_expansion_count() && e < 32; e++)
		for (int i = 0; i < nsets; i++)
			if (!strcmp(sets[i].id, carc_expansion(e)->tileset)) with_set |= 1ul << e;
	printf("const uint32_t carc_tileset_of = 0x%lxu;\n", with_set);
	return 0;
}

/*
 * game.c - the turn as a phase machine (RULES.md 2.1).
 *
 * A turn is: draw (unplaceable tiles are discarded or put back), the
 * `tile` decision (place it), the `action` decision (deploy one figure on
 * the tile just placed, or pass), then scoring of what the placement
 * completed, and the next seat's draw.  A decision whose only move would
 * be `pass` is skipped.  After the last tile, final scoring ends the game.
 */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "ext_int.h"

/* Figures each seat starts with, and the component that brings each kind. */
static const struct {
	int count, component;
} figure_supply[CARC_FIG_COUNT] = {
	[CARC_FIG_FOLLOWER] = { 7, -1 }, /* the eighth is the score marker */
	[CARC_FIG_LARGE] = { 1, CARC_C_LARGE },
	[CARC_FIG_WAGON] = { 1, CARC_C_WAGON },
	[CARC_FIG_MAYOR] = { 1, CARC_C_MAYOR },
	[CARC_FIG_BUILDER] = { CARC_SPECIALS_PER_SEAT, CARC_C_BUILDER },
	[CARC_FIG_PIG] = { CARC_SPECIALS_PER_SEAT, CARC_C_PIG },
	[CARC_FIG_BARN] = { CARC_SPECIALS_PER_SEAT, CARC_C_BARN },
	[CARC_FIG_SHEPHERD] = { CARC_SPECIALS_PER_SEAT, CARC_C_SHEPHERD },
};

/* The features a figure may be deployed on from the supply, the usual
 * way: on the tile just placed, into a feature that holds no follower.
 * Figures with other ways (builder, pig, barn, shepherd) come through the
 * expansions' action moves. */
#define FK(k) (1u << CARC_F_##k)
#define STAND_FOLLOWER (FK(ROAD) | FK(CITY) | FK(CLOISTER) | FK(FIELD)) /* and the large follower */
#define STAND_WAGON (FK(ROAD) | FK(CITY) | FK(CLOISTER))
#define STAND_MAYOR FK(CITY)
static const unsigned stand_on[CARC_FIG_COUNT] = {
	[CARC_FIG_FOLLOWER] = STAND_FOLLOWER,
	[CARC_FIG_LARGE] = STAND_FOLLOWER,
	[CARC_FIG_WAGON] = STAND_WAGON,
	[CARC_FIG_MAYOR] = STAND_MAYOR,
};
/* The same for the followers of a mask of kinds (bit k: figure kind k,
 * followers only) together, so that the question after each placement
 * reads it at once. */
#define STAND(f) (((f) & 3 ? STAND_FOLLOWER : 0) | ((f) & 4 ? STAND_WAGON : 0) | ((f) & 8 ? STAND_MAYOR : 0))
static const uint8_t stand_on_any[16] = {
	STAND(0), STAND(1), STAND(2),  STAND(3),  STAND(4),  STAND(5),  STAND(6),  STAND(7),
	STAND(8), STAND(9), STAND(10), STAND(11), STAND(12), STAND(13), STAND(14), STAND(15),
};
_Static_assert(CARC_FIG_FOLLOWER == 0 && CARC_FIG_LARGE == 1 && CARC_FIG_WAGON == 2 && CARC_FIG_MAYOR == 3,
               "stand_on_any: the followers are the first four kinds");
#undef STAND

/* Where a special figure can go at all: the deploy listing asks its
 * expansion only at such ports (features of these kinds; AT_CORNER: the
 * four corners of the tile), and the expansion judges the rest. */
#define AT_CORNER (1u << CARC_F_COUNT)
static const unsigned special_at[CARC_FIG_COUNT] = {
	[CARC_FIG_BUILDER] = FK(ROAD) | FK(CITY),
	[CARC_FIG_PIG] = FK(FIELD),
	[CARC_FIG_BARN] = AT_CORNER,
	[CARC_FIG_SHEPHERD] = FK(FIELD),
};
#undef FK
/* A figure at a corner stands in the field there, where four tiles meet
 * (the barn, RULES.md 2.9): the tile just placed has the three others
 * among its placed neighbours and one field at both half-edges of that
 * corner (carc_tile_traits.corner_fields), in a game with fields. */
#define CORNER_NEIGHBOURS 3
/* Special figures that stand only at corners (special_at: AT_CORNER
 * alone): the barn. */
#define CORNER_KINDS (1u << CARC_FIG_BARN)
/* Special figures that stay only while their owner has a follower in the
 * feature: a builder or a pig goes home with its owner's last follower
 * there (RULES.md 2.6); a barn or a shepherd needs none.  So they are
 * deployed only into a feature where a follower stands. */
#define LONELY_KINDS (1u << CARC_FIG_BUILDER | 1u << CARC_FIG_PIG)
/* The followers: the kinds stand_on lists, as a mask. */
#define FOLLOWER_KINDS (1u << CARC_FIG_FOLLOWER | 1u << CARC_FIG_LARGE | 1u << CARC_FIG_WAGON | 1u << CARC_FIG_MAYOR)
_Static_assert(CARC_FIG_COUNT <= 32, "figure kinds fit a mask");

void carc_config_init(carc_config *cfg)
{
	if (!cfg) return;
	memset(cfg, 0, sizeof *cfg);
	cfg->nseats = 2;
	cfg->expansions = 1u << carc_expansion_find("base");
	for (int i = 0; i < CARC_R_COUNT; i++) cfg->rules[i] = carc_rule(i)->def;
}

int carc_config_start_mismatch(const carc_config *cfg)
{
	if (!cfg || cfg->nstart > CARC_MAX_START) return -1;
	for (int i = 1; i < cfg->nstart; i++) {
		const carc_start_tile *s = &cfg->start[i];
		if (s->tile >= carc_ntiletypes || s->rot > 3) continue;
		for (int j = 0; j < i; j++) {
			const carc_start_tile *t = &cfg->start[j];
			if (t->tile >= carc_ntiletypes || t->rot > 3) continue;
			/* the edges that face each other show one kind, as
			 * carc_board_fits asks of a placement */
			for (int d = 0; d < 4; d++)
				if (t->x == s->x + carc_dx[d] && t->y == s->y + carc_dy[d] &&
				    carc_edge_kind(s->tile, s->rot, d) != carc_edge_kind(t->tile, t->rot, (d + 2) & 3))
					return i;
		}
	}
	return -1;
}

size_t carc_game_size(void) { return sizeof(carc_game); }

void carc_game_clone(carc_game *dst, const carc_game *src)
{
	if (dst != src) memcpy(dst, src, sizeof *dst);
}

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* 64-bit FNV-1a over the head of the state and the live parts of its
 * arrays (the structs in them have no padding). */
uint64_t carc_game_hash(const carc_game *g)
{
	uint64_t h = fnv(0xcbf29ce484222325ull, g, offsetof(carc_game, cells));
	h = fnv(h, g->cells, g->ncells * sizeof g->cells[0]);
	h = fnv(h, g->nodes, g->nnodes * sizeof g->nodes[0]);
	h = fnv(h, g->front, g->nfront * sizeof g->front[0]);
	h = fnv(h, g->pending, g->npending * sizeof g->pending[0]);
	for (int i = 0; i < CARC_HASH_SIZE; i++)
		if (g->hkey[i]) {
			h = fnv(h, &g->hkey[i], sizeof g->hkey[i]);
			h = fnv(h, &g->hval[i], sizeof g->hval[i]);
		}
	return h;
}

int carc_tile_count(void) { return carc_ntiletypes; }
const char *carc_tile_id(int type) { return type >= 0 && type < carc_ntiletypes ? carc_tiletypes[type].id : NULL; }
int carc_tile_find(const char *id)
{
	if (!id) return -1;
	for (int i = 0; i < carc_ntiletypes; i++)
		if (!strcmp(carc_tiletypes[i].id, id)) return i;
	return -1;
}

int carc_tile_expansion(int type)
{
	for (int s = 0; s < carc_ntilesets; s++)
		for (int j = 0; j < carc_tilesets[s].nref; j++)
			if (carc_tilesets[s].ref[j].type == type) return carc_tilesets[s].expansion_index;
	return -1;
}

/* Is there a river in these expansions: a set whose start is a spring? */
static int has_river(uint32_t expansions)
{
	for (int s = 0; s < carc_ntilesets; s++)
		if ((expansions >> carc_tilesets[s].expansion_index & 1) && carc_tilesets[s].start != CARC_NONE &&
		    (carc_tiletypes[carc_tilesets[s].start].symbols & CARC_SYM_SPRING))
			return 1;
	return 0;
}

/* A set of river tiles only (carc_tileset.river_only: the mini
 * expansion's river tiles) joins a game only with a river, whose spring
 * starts it (RULES.md 2.4), as build_supply deals it. */
int carc_tile_in_expansions(int type, uint32_t expansions)
{
	for (int s = 0; s < carc_ntilesets; s++)
		if (expansions >> carc_tilesets[s].expansion_index & 1)
			for (int j = 0; j < carc_tilesets[s].nref; j++)
				if (carc_tilesets[s].ref[j].type == type &&
				    (!carc_tilesets[s].river_only || has_river(expansions)))
					return 1;
	return 0;
}

int carc_tile_drawable(int type)
{
	return type >= 0 && type < carc_ntiletypes && !(carc_tiletypes[type].symbols & CARC_SYM_ABBEY);
}

const char *carc_tile_edge(int type, int rot, int dir)
{
	static const char *const names[CARC_EK_COUNT] = { "field", "road", "city", "river", "inner" };
	if (type < 0 || type >= carc_ntiletypes || rot < 0 || rot > 3 || dir < 0 || dir > 3) return "?";
	return names[carc_edge_kind(type, rot, dir)];
}

uint16_t carc_tile_symbols(int type) { return type >= 0 && type < carc_ntiletypes ? carc_tiletypes[type].symbols : 0; }

int carc_tile_describe(int type, int rot, carc_tile_feature *out, int cap)
{
	if (type < 0 || type >= carc_ntiletypes || rot < 0 || rot > 3) return -1;
	const carc_tiletype *t = &carc_tiletypes[type];
	for (int i = 0; i < t->nfeat && i < cap; i++) {
		const carc_tfeat *f = &t->f[i];
		out[i] = (carc_tile_feature){
			.kind = f->kind,
			.pennants = f->pennants,
			.goods = (int8_t)(f->goods ? CARC_TOK_WINE + f->goods - CARC_GOODS_WINE : -1),
			.marks = (uint8_t)(f->flags & ((1u << CARC_MARK_COUNT) - 1)),
			.ports = (uint16_t)carc_tfeat_ports(f, rot),
			.reaches = (uint16_t)carc_edges_rot(f->multi, rot),
			.borders = f->kind == CARC_F_FIELD ? f->borders : 0,
		};
	}
	return t->nfeat;
}

static int set_chosen(const carc_tileset *s, uint32_t expansions) { return expansions >> s->expansion_index & 1; }

/* The standard start: a river game starts at the spring (the base start
 * tile is then left out, RULES.md section 6), any other at the start tile
 * of the first chosen set that has one. */
static const carc_tileset *standard_start(uint32_t expansions)
{
	const carc_tileset *first = NULL;
	for (int i = 0; i < carc_ntilesets; i++) {
		const carc_tileset *s = &carc_tilesets[i];
		if (!set_chosen(s, expansions) || s->start == CARC_NONE) continue;
		if (carc_tiletypes[s->start].symbols & CARC_SYM_SPRING) return s;
		if (!first) first = s;
	}
	return first;
}

/* Every tile of the chosen sets, unshuffled, less: one copy
 * of each set's start tile (placed, or left out beside a spring), springs
 * (only ever start tiles), the tiles a chosen set removes, copies past a
 * tile's maximum, and river-only sets when there is no river.  Each set's
 * list of copies (carc_tileset.dealt) holds all but the few adjusted
 * tiles, whose copies are counted here as the sets come (taken: copies
 * dealt so far, 0xff for removed; starts: start tiles not yet taken out
 * of them). */
static carc_rc deal_supply(carc_game *g, const carc_tileset *start)
{
	uint32_t ex = g->cfg.expansions;
	int river = start && carc_tile_traits[start->start].flags & CARC_TT_SPRING;
	uint8_t taken[CARC_TILE_SLOTS] = { 0 }, starts[CARC_TILE_SLOTS] = { 0 }; /* per slot (carc_tile_slot) */
	for (int i = 0; i < carc_ntilesets; i++) {
		const carc_tileset *s = &carc_tilesets[i];
		if (!set_chosen(s, ex)) continue;
		if (s->start != CARC_NONE && carc_tile_slot[s->start] != CARC_NO_SLOT) starts[carc_tile_slot[s->start]]++;
		for (int j = 0; j < s->nremove; j++)
			if (carc_tile_slot[s->remove[j]] != CARC_NO_SLOT) taken[carc_tile_slot[s->remove[j]]] = 0xff;
	}
	for (int i = 0; i < carc_ntilesets; i++) {
		const carc_tileset *s = &carc_tilesets[i];
		if (!set_chosen(s, ex) || (s->river_only && !river)) continue;
		for (int k = 0, from = 0;; k++) {
			const carc_tileadjust *a = k < s->nadjust ? &s->adjust[k] : NULL;
			int to = a ? a->at : s->ndealt, n = to - from; /* the plain copies before it */
			if (g->nsupply + n > CARC_MAX_TILES) return CARC_E_CAPACITY;
			if (n > 0) memcpy(&g->supply[g->nsupply], &s->dealt[from], (size_t)n * sizeof g->supply[0]);
			g->nsupply = (uint16_t)(g->nsupply + n);
			from = to;
			if (!a) break;
			/* the copies up to the tile's maximum (taken never passes it),
			 * less the start tiles among them */
			int slot = carc_tile_slot[a->type], max = carc_tiletypes[a->type].max;
			if (taken[slot] == 0xff) continue;
			n = a->count;
			if (max && n > max - taken[slot]) n = max - taken[slot];
			if (n > 0xff - taken[slot]) n = 0xff - taken[slot]; /* a count of 0xff reads as removed */
			if (n <= 0) continue;
			taken[slot] = (uint8_t)(taken[slot] + n);
			int in_start = starts[slot] < n ? starts[slot] : n;
			starts[slot] = (uint8_t)(starts[slot] - in_start);
			n -= in_start;
			if (g->nsupply + n > CARC_MAX_TILES) return CARC_E_CAPACITY;
			for (int c = 0; c < n; c++) g->supply[g->nsupply++] = a->type;
		}
	}
	return CARC_OK;
}

/* The supply deal_supply lists for one choice of expansions, unshuffled,
 * and the feature segments of its tiles: the same for every game of that
 * choice, so kept for the last one dealt on this thread (a program mostly
 * plays many games of one configuration). */
static _Thread_local struct {
	uint32_t expansions;
	uint16_t n;           /* 0: nothing kept yet */
	int nodes;
	uint16_t supply[CARC_MAX_TILES];
} dealt_last;

/* The supply of the chosen sets (deal_supply), shuffled (Fisher-Yates),
 * and in *nodes the feature segments of its tiles. */
static carc_rc build_supply(carc_game *g, const carc_tileset *start, carc_rng *deal, int *nodes)
{
	if (dealt_last.n && dealt_last.expansions == g->cfg.expansions) {
		memcpy(g->supply, dealt_last.supply, dealt_last.n * sizeof g->supply[0]);
		g->nsupply = dealt_last.n;
		*nodes = dealt_last.nodes;
	} else {
		carc_rc rc = deal_supply(g, start);
		if (rc != CARC_OK) return rc;
		*nodes = 0;
		for (int i = 0; i < g->nsupply; i++) *nodes += carc_tiletypes[g->supply[i]].nfeat;
		dealt_last.expansions = g->cfg.expansions;
		dealt_last.n = g->nsupply;
		dealt_last.nodes = *nodes;
		memcpy(dealt_last.supply, g->supply, g->nsupply * sizeof g->supply[0]);
	}
	for (int i = g->nsupply - 1; i > 0; i--) {
		int j = (int)carc_rng_below(deal, (uint32_t)i + 1);
		uint16_t t = g->supply[i];
		g->supply[i] = g->supply[j];
		g->supply[j] = t;
	}
	return CARC_OK;
}

/* ---- validation ----------------------------------------------------------- */

static carc_rc check_config(const carc_config *cfg)
{
	if (cfg->nseats < 1 || cfg->nseats > CARC_MAX_SEATS) return CARC_E_ARG;
	if (!cfg->expansions) return CARC_E_ARG;
	for (int e = 0; e < 32; e++)
		if (cfg->expansions >> e & 1)
			if (e >= carc_expansion_count() || !carc_expansion(e)->available || !(carc_tileset_of >> e & 1))
				return CARC_E_ARG;
	/* a component may be named alone, but only one that exists by now */
	uint32_t available = 0;
	for (int e = 0; e < carc_expansion_count(); e++)
		if (carc_expansion(e)->available) available |= carc_expansion(e)->components;
	if (cfg->components_given && (cfg->components & ~available)) return CARC_E_ARG;
	for (int i = 0; i < CARC_R_COUNT; i++) {
		const carc_rule_desc *r = carc_rule(i);
		int nvalues = 0;
		if (r->values)
			while (r->values[nvalues]) nvalues++;
		int v = cfg->rules[i];
		if ((r->type == 0 && (v < 0 || v >= nvalues)) || (r->type == 1 && v != 0 && v != 1) ||
		    (r->type == 2 && v < 0))
			return CARC_E_ARG;
	}
	if (cfg->ntiles > CARC_MAX_TILES || cfg->nstart > CARC_MAX_START) return CARC_E_ARG;
	for (int i = 0; i < cfg->ntiles; i++) {
		/* in a set of the game: the spring is in both rivers' */
		if (!carc_tile_drawable(cfg->tiles[i]) || !carc_tile_in_expansions(cfg->tiles[i], cfg->expansions))
			return CARC_E_ARG;
	}
	for (int i = 0; i < cfg->nstart; i++) {
		const carc_start_tile *s = &cfg->start[i];
		if (s->tile >= carc_ntiletypes || s->rot > 3) return CARC_E_ARG;
		if (s->x < -1000 || s->x > 1000 || s->y < -1000 || s->y > 1000) return CARC_E_ARG;
		for (int j = 0; j < i; j++)
			if (cfg->start[j].x == s->x && cfg->start[j].y == s->y) return CARC_E_ARG;
	}
	_Static_assert(CARC_BAG_DRAWS <= UINT8_MAX, "nbag counts the draws listed");
	for (int i = 0; i < cfg->nbag; i++)
		if (cfg->bag[i] < 1 || cfg->bag[i] > CARC_WOLF) return CARC_E_ARG;
	return CARC_OK;
}

/* ---- turn flow ---------------------------------------------------------------- */

static void end_game(carc_game *g, carc_sink *out)
{
	carc_score_final(g, out);
	CARC_EXT_EACH(g, CARC_HOOK_FINAL, e)
		if (e->final_scoring) e->final_scoring(g, out);
	g->over = 1;
	g->phase = CARC_PH_OVER;
	g->seat = 0xff;
	g->drawn = CARC_NONE;
	carc_emit(out, CARC_EV_GAME_OVER);
}

static unsigned placement_facts(int type);
static uint32_t placement_judged(const carc_game *g, int type);
static int judged_allowed(const carc_game *g, uint32_t judges, int type, int x, int y, int rot);
/* The drawn tile's placements are listed in 16-byte words, four moves a
 * frontier position (plain_placements), where the bytes of a move lie as
 * those words put them: on little-endian machines.  Elsewhere one by one. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PLACEMENT_WORDS 1
static int judged_filter(const carc_game *g, uint32_t judges, int type, carc_move *moves, int n);
#endif

/* The rotations whose bits a fit mask sets, ascending, then zeros (read
 * as one word, so 8-aligned), and how many they are. */
static const _Alignas(8) uint16_t fit_turns[16][4] = {
	{ 0 },       { 0 },       { 1 },          { 0, 1 },       { 2 },          { 0, 2 },    { 1, 2 },    { 0, 1, 2 },
	{ 3 },       { 0, 3 },    { 1, 3 },       { 0, 1, 3 },    { 2, 3 },       { 0, 2, 3 }, { 1, 2, 3 }, { 0, 1, 2, 3 },
};
static const uint8_t fit_count[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };

/* first_fit for a tile whose judges care about rotation (the river's):
 * they mostly refuse the places they are asked about, and the tile fits
 * at some rotations of most places, at random.  So the placements that
 * fit are gathered first, a run of positions at a time, without a branch
 * per position (each writes four slots, as position << 2 | rotation, and
 * the count goes up by how many fit), and then judged in order; a lone
 * judge is called directly. */
static __attribute__((noinline)) int first_fit_turned(const carc_game *g, int type, uint32_t judges)
{
	enum { RUN = 32 };
	/* A judge may know already where it first allows the tile (the river
	 * works it out when the board changes): nothing before that fits,
	 * and when it is the only judge that is the answer. */
	int start = 0;
	for (uint32_t j = judges & 0x7fffffffu; j; j &= j - 1) {
		const carc_ext *e = carc_exts[__builtin_ctz(j)];
		int first = e->first_allowed ? e->first_allowed(g, type) : CARC_FIRST_UNKNOWN;
		if (first == CARC_FIRST_UNKNOWN) continue;
		if (first < 0 || !(judges & 0x7fffffffu & (judges - 1))) return first;
		if (first > start) start = first;
	}
	_Static_assert(sizeof g->front / sizeof g->front[0] <= 0x4000, "a position and a rotation in 16 bits");
	carc_v4u code = carc_codes(type);
	uint32_t many = judges & 0x7fffffffu & (judges - 1);
	int (*allowed)(const carc_game *, int, int, int, int) = carc_exts[__builtin_ctz(judges)]->placement_allowed;
	uint16_t fit[4 * RUN + 3]; /* the slots past n are junk */
	for (int from = start; from < g->nfront; from += RUN) {
		int n = 0, end = from + RUN < g->nfront ? from + RUN : g->nfront;
		for (int i = from; i < end; i++) {
			unsigned fits = carc_fit_mask(code, &g->front[i]);
			uint64_t w; /* four slots: every one gets the position */
			memcpy(&w, fit_turns[fits], sizeof w);
			w |= ((uint64_t)i << 2) * 0x0001000100010001ull;
			memcpy(&fit[n], &w, sizeof w);
			n += fit_count[fits];
		}
		for (int k = 0; k < n; k++) {
			const carc_front *f = &g->front[fit[k] >> 2];
			if (many ? judged_allowed(g, judges, type, f->x, f->y, fit[k] & 3) : allowed(g, type, f->x, f->y, fit[k] & 3))
				return fit[k] >> 2;
		}
	}
	return -1;
}

/* The first frontier position where this tile may go, by the edges and
 * by every expansion's rule (`judges`: the expansions that have a say,
 * placement_judged), or -1 when there is none.  Judges that ignore the
 * rotation are asked once a position. */
static int first_fit(const carc_game *g, int type, uint32_t judges)
{
	carc_v4u code = carc_codes(type);
	if (!judges) {
		for (int i = 0; i < g->nfront; i++)
			if (carc_fit_mask(code, &g->front[i])) return i;
		return -1;
	}
	if (judges >> 31) return first_fit_turned(g, type, judges);
	for (int i = 0; i < g->nfront; i++) {
		unsigned fits = carc_fit_mask(code, &g->front[i]);
		if (fits && judged_allowed(g, judges, type, g->front[i].x, g->front[i].y, __builtin_ctz(fits))) return i;
	}
	return -1;
}

/* placement_judged for a tile drawn: the same for every tile with the same
 * facts, so worked out once a game for each (g->judged_by). */
static uint32_t draw_judged(carc_game *g, int type)
{
	uint32_t *known = &g->judged_by[placement_facts(type)];
	if (!*known) *known = 1u << 30 | placement_judged(g, type);
	return *known & ~(1u << 30);
}

/* No tile is left: a last round (the abbeys of abbey_final_round), or
 * the end. */
static void supply_out(carc_game *g, carc_sink *out)
{
	CARC_EXT_EACH(g, CARC_HOOK_END_ROUND, x)
		if (x->end_round && x->end_round(g, out)) return;
	end_game(g, out);
}

/* Draws for the seat on turn until a tile fits somewhere; when the supply
 * is empty, unplaceable tiles included, the last round or the end. */
void carc_draw(carc_game *g, carc_sink *out)
{
	for (;;) {
		if (g->next >= g->nsupply) {
			supply_out(g, out);
			return;
		}
		uint16_t entry = g->supply[g->next++], type = carc_entry_tile(entry);
		carc_event *e = carc_emit(out, CARC_EV_TILE_DRAWN);
		if (e) {
			e->seat = (int8_t)g->turn_seat;
			e->tile = type;
			e->why = carc_drawn_why(entry);
		}
		uint32_t judges = draw_judged(g, type);
		int first = first_fit(g, type, judges);
		if (first >= 0) {
			g->drawn = type;
			g->judges = judges;
			g->first_fit = (uint16_t)first;
			g->phase = CARC_PH_TILE;
			g->seat = g->turn_seat;
			return;
		}
		int back = g->cfg.rules[CARC_R_UNPLACEABLE_TILE] == CARC_UNPLACEABLE_RESHUFFLE && !(entry & CARC_PUT_BACK);
		e = carc_emit(out, CARC_EV_TILE_DISCARDED);
		if (e) {
			e->tile = type;
			e->why = back ? CARC_WHY_RESHUFFLED : CARC_WHY_UNPLACEABLE;
		}
		if (back) { /* to the bottom of the supply, once, or where an expansion puts it */
			int to = g->nsupply - 1;
			for (int i = 0; carc_exts[i]; i++)
				if (g->exts >> i & 1 && carc_exts[i]->put_back) to = carc_exts[i]->put_back(g, type, to);
			memmove(&g->supply[g->next - 1], &g->supply[g->next], (size_t)(to - (g->next - 1)) * sizeof g->supply[0]);
			g->supply[to] = (uint16_t)(type | CARC_PUT_BACK);
			g->next--;
		}
	}
}

/* The facts of a tile type that say which expansions' tile_placed see it
 * (carc_ext.placed_tiles). */
static inline unsigned placed_facts(int type)
{
	_Static_assert((CARC_TT_HILL | CARC_TT_SIEGE | CARC_TT_HERD | CARC_TT_BUILDING) < 16, "four facts index placed_for");
	return carc_tile_traits[type].flags & 15;
}

/* The tile_placed hooks of the expansions that see this tile: most tiles
 * matter only to a few of them, and mostly to the same few turn after
 * turn.  The first and the last are called from call sites of their own,
 * each of which so mostly calls the same hook as the turn before (a call
 * through a pointer is cheap when its target is the one of the last call
 * there); those between in a loop.  The mask is read once, before the
 * first, as CARC_EXT_IN does. */
static inline void placed_hooks(carc_game *g, int cell, carc_sink *out)
{
	unsigned see = g->hook_exts[__builtin_ctz(CARC_HOOK_PLACED)] & g->placed_for[placed_facts(g->cells[cell].type)];
	if (!see) return;
	carc_exts[__builtin_ctz(see)]->tile_placed(g, cell, out);
	if (!(see &= see - 1)) return;
	unsigned last = 31u - (unsigned)__builtin_clz(see);
	CARC_EXT_IN(see & ~(1u << last), h)
		h->tile_placed(g, cell, out);
	carc_exts[last]->tile_placed(g, cell, out);
}

static void begin_turn(carc_game *g, carc_sink *out);
void carc_begin_turn(carc_game *g, carc_sink *out) { begin_turn(g, out); }

static void begin_turn(carc_game *g, carc_sink *out)
{
	if (g->next >= g->nsupply) {
		supply_out(g, out);
		return;
	}
	g->turn++;
	carc_event *e = carc_emit(out, CARC_EV_TURN);
	if (e) e->seat = (int8_t)g->turn_seat;
	CARC_EXT_EACH(g, CARC_HOOK_TURN_START, x)
		if (x->turn_start(g)) { /* the seat may choose instead of drawing */
			g->phase = CARC_PH_TILE;
			g->seat = g->turn_seat;
			g->drawn = CARC_NONE;
			return;
		}
	carc_draw(g, out);
}

static void pend_if_closed(carc_game *g, int node)
{
	int k = g->nodes[node].kind;
	if (k != CARC_F_ROAD && k != CARC_F_CITY) return;
	int root = carc_feat_root(g, node);
	if (g->nodes[root].open == 0) carc_pending_add(g, root);
}

/* Roads and cities the placement closed, its own and those that end at its
 * walls (cloisters are queued by the board).  Most placements close none,
 * as the board tells (g->closing). */
static void find_completed(carc_game *g, int cell)
{
	if (!g->closing) return;
	if (cell == g->ncells - 1) g->closing = 0;
	const carc_cell *c = &g->cells[cell];
	const carc_tiletype *t = carc_cell_type(g, cell);
	for (int i = 0; i < t->nfeat; i++)
		if (t->f[i].edges) pend_if_closed(g, c->node0 + i);
	for (int d = 0; d < 4; d++) {
		int o = (d - c->rot) & 3; /* the unturned side */
		if (t->edge_feat[o] != CARC_NOF || t->half_feat[2 * o] != CARC_NOF) continue; /* no wall there */
		int n = carc_board_lookup(g, c->x + carc_dx[d], c->y + carc_dy[d]), f = n >= 0 ? carc_board_feature_at(g, n, (d + 2) & 3) : -1;
		if (f >= 0) pend_if_closed(g, f);
		if (n >= 0) { /* a city that reaches that side beside the edge's (multi=) meets the wall too */
			const carc_cell *nc = &g->cells[n];
			unsigned m = carc_cell_type(g, n)->multi_feat[(d + 2 - nc->rot) & 3];
			if (m != CARC_NOF) pend_if_closed(g, nc->node0 + (int)m);
		}
	}
}

static void score_pending(carc_game *g, carc_sink *out)
{
	for (int i = 0; i < g->npending; i++) {
		int root = g->pending[i];
		carc_event *e = carc_emit(out, CARC_EV_FEATURE_COMPLETED);
		if (e) {
			int first = carc_feat_first_node(g, root);
			const carc_cell *c = &g->cells[g->nodes[first].cell];
			e->fkind = g->nodes[root].kind;
			e->x = c->x;
			e->y = c->y;
			e->port = (uint8_t)carc_board_first_port(g, first);
			e->ntiles = (uint16_t)carc_feat_tiles(g, root, NULL, NULL);
		}
		/* the first expansion asked from a call site of its own, the others
		 * in a loop, as in placed_hooks: a city asks two (the king, then
		 * the traders), a road only the first */
		unsigned see = g->hook_exts[__builtin_ctz(CARC_HOOK_COMPLETED)] & g->feature_exts[g->nodes[root].kind];
		if (see) {
			carc_exts[__builtin_ctz(see)]->feature_completed(g, root, out);
			CARC_EXT_IN(see & (see - 1), x)
				x->feature_completed(g, root, out);
		}
		carc_score_feature(g, root, 0, out);
		see = g->hook_exts[__builtin_ctz(CARC_HOOK_SCORED)];
		if (see && g->nodes[root].nfig) { /* scored for someone */
			carc_exts[__builtin_ctz(see)]->feature_scored(g, root, out);
			CARC_EXT_IN(see & (see - 1), x)
				x->feature_scored(g, root, out);
		}
		carc_return_figures(g, root, out);
	}
	g->npending = 0;
}

/* The expansions with a turn_end hook from g->stage on, in order (g->stage
 * follows: 1 + the last one asked).  With `decide`, the first that opens
 * a decision of its own ends the round (returns 1) until its phase ends;
 * without, the decisions opened are passed and every one is asked. */
static int turn_end_hooks(carc_game *g, carc_sink *out, int decide)
{
	for (unsigned m = g->hook_exts[__builtin_ctz(CARC_HOOK_TURN_END)] >> g->stage; m; m = m >> 1) {
		unsigned skip = (unsigned)__builtin_ctz(m);
		m >>= skip;
		g->stage = (uint8_t)(g->stage + skip + 1);
		if (carc_exts[g->stage - 1]->turn_end(g, out) && decide) return 1;
	}
	return 0;
}

/* The end of the turn: each expansion in order may open a decision of its
 * own (escape, ...); when all are done the next turn begins. */
void carc_turn_continue(carc_game *g, carc_sink *out)
{
	if (turn_end_hooks(g, out, 1)) return;
	unsigned again = 0; /* every expansion with the hook fills extra_turn */
	CARC_EXT_EACH(g, CARC_HOOK_EXTRA, e)
		again |= e->extra_turn(g) != 0;
	g->last = CARC_NONE;
	g->extra = (uint8_t)again;
	if (!again) g->turn_seat = (uint8_t)(g->turn_seat + 1 < g->nseats ? g->turn_seat + 1 : 0); /* no division */
	begin_turn(g, out);
}

static void finish_turn(carc_game *g, carc_sink *out)
{
	score_pending(g, out);
	g->stage = 0;
	carc_turn_continue(g, out);
}

/* ---- figures ------------------------------------------------------------------- */

static inline int feature_closed(const carc_game *g, int root);

/* The active expansion that deploys this figure kind, if any. */
static const carc_ext *special_owner(const carc_game *g, int kind)
{
	return g->special_ext[kind] ? carc_exts[g->special_ext[kind] - 1] : NULL;
}

/* Bit k: the seat has a figure of kind k in its supply. */
static inline unsigned supply_kinds(const carc_game *g, int seat)
{
	uint64_t v; /* one byte a kind: fold each byte onto its low bit, then gather those */
	memcpy(&v, g->in_supply[seat], sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v); /* kind k in byte k from the bottom, as below */
#endif
	v |= v >> 4;
	v |= v >> 2;
	v |= v >> 1;
	return (unsigned)(((v & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56);
}
_Static_assert(CARC_FIG_COUNT == 8, "supply_kinds reads the eight kinds of a seat as one word");

/* The seat's first figure of this kind in its supply: among the slots
 * of that kind (g->kind_slots) not on the board (on_board). */
static int fig_slot_free(const carc_game *g, int seat, int kind)
{
	unsigned m = g->kind_slots[kind] & ~g->on_board[seat];
	return m ? seat * CARC_FIGS_PER_SEAT + __builtin_ctz(m) : -1;
}

int carc_supply_count(const carc_game *g, int seat, int kind)
{
	if (seat < 0 || seat >= g->nseats || kind < 0 || kind >= CARC_FIG_COUNT) return 0;
	return g->in_supply[seat][kind];
}

static int may_stand(const carc_game *g, int figkind, int fkind)
{
	if (!(stand_on[figkind] >> fkind & 1)) return 0;
	return fkind != CARC_F_FIELD || g->cfg.rules[CARC_R_FARMERS];
}

int carc_is_follower(int kind) { return kind >= 0 && kind < CARC_FIG_COUNT && (FOLLOWER_KINDS >> kind & 1); }

int carc_seat_in(const carc_game *g, int seat, int root)
{
	if (!g->nodes[root].nfig) return 0; /* no follower at all */
	for (unsigned m = g->followers_in[seat][g->nodes[root].kind]; m; m &= m - 1) { /* those in such features */
		const carc_fig *f = &g->figs[seat * CARC_FIGS_PER_SEAT + __builtin_ctz(m)];
		if (carc_feat_root(g, f->node) == root) return 1;
	}
	return 0;
}

void carc_return_figure(carc_game *g, int fig, int why, carc_sink *out)
{
	carc_fig *f = &g->figs[fig];
	if (f->node == CARC_NONE) return;
	int root = carc_feat_root(g, f->node);
	if (carc_is_follower(f->kind)) g->nodes[root].nfig--;
	else g->nspecial[g->nodes[f->node].kind]--;
	g->on_board[f->seat] &= (uint16_t)~(1u << (fig - f->seat * CARC_FIGS_PER_SEAT));
	g->followers_on[f->seat] &= g->on_board[f->seat];
	g->followers_in[f->seat][g->nodes[f->node].kind] &= g->on_board[f->seat];
	g->specials_in[f->seat][g->nodes[f->node].kind] &= g->on_board[f->seat];
	f->node = CARC_NONE;
	g->in_supply[f->seat][f->kind]++;
	carc_event *e = carc_emit(out, CARC_EV_RETURNED);
	if (e) {
		e->seat = (int8_t)f->seat;
		e->figure = (uint16_t)fig;
		e->kind = f->kind;
		e->why = (uint8_t)why;
	}
	if (!carc_is_follower(f->kind) || why == CARC_WHY_SCORED || carc_seat_in(g, f->seat, root)) return;
	int base = f->seat * CARC_FIGS_PER_SEAT;
	for (unsigned m = g->on_board[f->seat] & ~g->followers_on[f->seat]; m; m &= m - 1) {
		int i = base + __builtin_ctz(m);
		if (g->figs[i].node != CARC_NONE && (LONELY_KINDS >> g->figs[i].kind & 1) &&
		    carc_feat_root(g, g->figs[i].node) == root)
			carc_return_figure(g, i, CARC_WHY_LONELY, out);
	}
}

int carc_abbeys(const carc_game *g, int seat) { return seat >= 0 && seat < g->nseats ? g->abbeys[seat] : 0; }

int carc_tokens(const carc_game *g, int seat, int token)
{
	if (seat < 0 || seat >= g->nseats || token < 0 || token >= CARC_TOK_COUNT) return 0;
	return g->tokens[seat][token];
}

/* Gives a token to `seat`, from `from` (-1: from the box). */
void carc_take_token(carc_game *g, int seat, int token, int from, carc_sink *out)
{
	if (from >= 0) g->tokens[from][token]--;
	g->tokens[seat][token]++;
	carc_event *e = carc_emit(out, CARC_EV_TOKEN_TAKEN);
	if (e) {
		e->seat = (int8_t)seat;
		e->kind = (uint8_t)token;
		e->from = (int8_t)from;
	}
}

/* ---- legal moves ----------------------------------------------------------------- */

/* Lists *m at out[n] if there is room (no out: only counted, cap 0). */
static int push(carc_move *out, int n, int cap, const carc_move *m)
{
	if (out && n < cap) out[n] = *m;
	return n + 1;
}

/* The facts about a tile type that carc_ext.placement_tiles names. */
static unsigned placement_facts(int type)
{
	return (carc_tile_traits[type].building ? CARC_PT_BUILDING : 0u) | (carc_tile_river[type] ? CARC_PT_RIVER : 0u);
}

/* The expansions (bit i: carc_exts[i]) that judge where this tile may go,
 * beyond its edges; bit 31 set when one of them cares about rotation. */
static uint32_t placement_judged(const carc_game *g, int type)
{
	unsigned facts = placement_facts(type);
	uint32_t mask = 0;
	CARC_EXT_EACH(g, CARC_HOOK_PLACEMENT, e)
		if (!e->placement_tiles || (e->placement_tiles & facts))
			mask |= 1u << e_i | (e->placement_any_rot ? 0 : 1u << 31);
	return mask;
}

/* The first of the judges (carc_exts index) that refuses the placement,
 * or -1 when all allow it. */
static inline int judge_refusing(const carc_game *g, uint32_t judges, int type, int x, int y, int rot)
{
	for (uint32_t j = judges & 0x7fffffffu; j; j &= j - 1)
		if (!carc_exts[__builtin_ctz(j)]->placement_allowed(g, type, x, y, rot)) return __builtin_ctz(j);
	return -1;
}

static int judged_allowed(const carc_game *g, uint32_t judges, int type, int x, int y, int rot)
{
	return judge_refusing(g, judges, type, x, y, rot) < 0;
}

#ifdef PLACEMENT_WORDS
/* The placements moves[0..n) (edges matching) that every judge allows,
 * in the same order: each judge filters what the previous ones left. */
static int judged_filter(const carc_game *g, uint32_t judges, int type, carc_move *moves, int n)
{
	for (uint32_t j = judges & 0x7fffffffu; j && n; j &= j - 1) {
		const carc_ext *e = carc_exts[__builtin_ctz(j)];
		if (e->filter_placements) {
			n = e->filter_placements(g, type, moves, n);
			continue;
		}
		int k = 0;
		for (int i = 0; i < n; i++)
			if (e->placement_allowed(g, type, moves[i].x, moves[i].y, moves[i].rot)) moves[k++] = moves[i];
		n = k;
	}
	return n;
}
#endif

int carc_placement_ok(const carc_game *g, int type, int x, int y, int rot)
{
	return judged_allowed(g, placement_judged(g, type), type, x, y, rot);
}

uint32_t carc_judges_but(const carc_game *g, const carc_ext *self, int type)
{
	uint32_t judges = placement_judged(g, type) & 0x7fffffffu;
	for (uint32_t j = judges; j; j &= j - 1)
		if (carc_exts[__builtin_ctz(j)] == self) judges &= ~(1u << __builtin_ctz(j));
	return judges;
}

int carc_judges_allow(const carc_game *g, uint32_t judges, int type, int x, int y, int rot)
{
	return judged_allowed(g, judges, type, x, y, rot);
}

/* The judge (carc_exts index) that refuses tile `type` at (x, y) turned
 * rot where the board takes it (edges that match, or for the abbey a
 * hole); -1 when none does, or the board does not take it. */
static int refusing_judge(const carc_game *g, int type, int x, int y, int rot)
{
	if (!g || type < 0 || type >= carc_tile_count() || rot < 0 || rot > 3) return -1;
	int fi = carc_board_front_at(g, x, y);
	if (fi < 0 || (carc_is_abbey(g, type) ? g->front[fi].mask != 0xffffffffu || rot : carc_board_fits(g, type, x, y, rot, NULL) != CARC_OK))
		return -1;
	return judge_refusing(g, placement_judged(g, type), type, x, y, rot);
}

int carc_placement_refused_by(const carc_game *g, int type, int x, int y, int rot)
{
	int judge = refusing_judge(g, type, x, y, rot);
	if (judge < 0) return -1;
	/* rules two sets bring (the river's: river and river2) are named by the
	 * one in the game */
	const carc_ext *e = carc_exts[judge];
	return e->also && !carc_game_has_set(g, e->name) && carc_game_has_set(g, e->also) ? carc_expansion_find(e->also)
	                                                                                 : carc_expansion_find(e->name);
}

carc_refusal carc_placement_refusal(const carc_game *g, int type, int x, int y, int rot, int *at_x, int *at_y)
{
	int judge = refusing_judge(g, type, x, y, rot);
	if (judge < 0) return CARC_RF_NONE;
	const carc_ext *e = carc_exts[judge];
	int ax = x, ay = y;
	carc_refusal why = e->placement_why ? (carc_refusal)e->placement_why(g, type, x, y, rot, &ax, &ay) : CARC_RF_OTHER;
	if (why == CARC_RF_NONE) why = CARC_RF_OTHER; /* refused all the same */
	if (at_x) *at_x = ax;
	if (at_y) *at_y = ay;
	return why;
}

carc_refusal carc_move_refusal(const carc_game *g, const carc_move *m, int *at_x, int *at_y)
{
	if (!g || !m || carc_check_move(g, m, NULL) != CARC_E_RULE) return CARC_RF_NONE;
	if (m->type == CARC_MV_PLACE_TILE) return carc_placement_refusal(g, m->tile, m->x, m->y, m->rot, at_x, at_y);
	int ax = m->x, ay = m->y;
	carc_refusal why = CARC_RF_OTHER; /* refused all the same */
	CARC_EXT_IN(g->exts, e) { /* the first that answers */
		int r = why == CARC_RF_OTHER && e->move_why ? e->move_why(g, m, &ax, &ay) : CARC_RF_NONE;
		if (r > CARC_RF_OTHER && r < CARC_RF_COUNT) why = (carc_refusal)r;
		else if (why == CARC_RF_OTHER) ax = m->x, ay = m->y;
	}
	if (at_x) *at_x = ax;
	if (at_y) *at_y = ay;
	return why;
}

/* The placements of the drawn tile whose edges match (all of them legal
 * when no expansion judges it), written without a branch per rotation:
 * each frontier position stores four moves, 48 bytes in three 16-byte
 * stores, whose rotations are those that fit, in order, and the count
 * goes up by how many fit.  Slots past the count get junk. */
#ifdef PLACEMENT_WORDS
_Static_assert(sizeof(carc_move) == 12 && offsetof(carc_move, rot) == 1 && offsetof(carc_move, x) == 4 &&
               offsetof(carc_move, y) == 6 && offsetof(carc_move, tile) == 8 && offsetof(carc_move, figure) == 10 &&
               offsetof(carc_front, x) == 0 && offsetof(carc_front, y) == 2,
               "carc_move and carc_front layout");
/* Per fit mask, the first words of the four moves written (the move type
 * and the rotations that fit, in ascending order, then 0) where they fall
 * in the three stores (words 0, 3, 6 and 9 of the 12 the moves take), and
 * in word 0 of the fourth vector the bytes the moves that fit take. */
#define PT(r) (CARC_MV_PLACE_TILE | (r) << 8)
#define FW(k, w0, w1, w2, w3) { { w0, 0, 0, w1 }, { 0, 0, w2, 0 }, { 0, w3, 0, 0 }, { 12 * (k), 0, 0, 0 } }
static const carc_v4u fit_words[16][4] = {
	FW(0, 0, 0, 0, 0), FW(1, PT(0), 0, 0, 0), FW(1, PT(1), 0, 0, 0), FW(2, PT(0), PT(1), 0, 0),
	FW(1, PT(2), 0, 0, 0), FW(2, PT(0), PT(2), 0, 0), FW(2, PT(1), PT(2), 0, 0), FW(3, PT(0), PT(1), PT(2), 0),
	FW(1, PT(3), 0, 0, 0), FW(2, PT(0), PT(3), 0, 0), FW(2, PT(1), PT(3), 0, 0), FW(3, PT(0), PT(1), PT(3), 0),
	FW(2, PT(2), PT(3), 0, 0), FW(3, PT(0), PT(2), PT(3), 0), FW(3, PT(1), PT(2), PT(3), 0),
	FW(4, PT(0), PT(1), PT(2), PT(3))
};
#undef FW
#undef PT

/* Writes the four moves at frontier position f at `at`; returns the end
 * of those that are placements (`tile`: the drawn tile in word 2 with
 * CARC_NONE for the figure, the rest 0). */
static inline char *put_position(char *at, const carc_front *f, carc_v4u code, carc_v4u tile)
{
	const carc_v4u *w = fit_words[carc_fit_mask(code, f)];
	uint32_t xy;
	memcpy(&xy, f, 4);
	carc_v4u rest = tile | (carc_v4u){ 0, xy, 0, 0 };            /* a move but its first word, then 0 */
	carc_v4u rest1 = __builtin_shufflevector(rest, rest, 1, 2, 0, 1); /* from word 3 of it on */
	carc_v4u rest2 = __builtin_shufflevector(rest, rest, 2, 0, 1, 2); /* from word 2 on */
	carc_v4u s0 = rest | w[0], s1 = rest1 | w[1], s2 = rest2 | w[2];
	memcpy(at, &s0, 16);
	memcpy(at + 16, &s1, 16);
	memcpy(at + 32, &s2, 16);
	return at + w[3][0];
}

/* From g->first_fit on (nothing fits before); stops when fewer than four
 * slots are left; *fronts_done: the positions listed. */
static int plain_placements(const carc_game *g, carc_move *out, int cap, int *fronts_done)
{
	carc_v4u code = carc_codes(g->drawn);
	carc_v4u tile = { 0, 0, g->drawn | (uint32_t)CARC_NONE << 16, 0 };
	char *at = (char *)out;
	int i = g->first_fit, nfront = g->nfront;
	/* the first positions cannot reach the cap: at most four moves each */
	int sure = i + (cap >= 4 ? (cap - 4) / 4 + 1 : 0);
	for (int end = sure < nfront ? sure : nfront; i < end; i++) at = put_position(at, &g->front[i], code, tile);
	for (; i < nfront && cap - ((carc_move *)at - out) >= 4; i++) at = put_position(at, &g->front[i], code, tile);
	*fronts_done = i;
	return (int)((carc_move *)at - out);
}
#endif

/* The legal placements of the drawn tile, from the first place it fits
 * (g->first_fit).  Those its judges refuse are taken out of the plain
 * listing afterwards (judged_filter); only when the buffer is too small
 * for the plain listing (or the machine has none) are the moves found one
 * by one. */
static int tile_moves(const carc_game *g, carc_move *out, int cap)
{
	uint32_t judges = g->judges;
	int n = 0, any_rot = !(judges >> 31), from = g->first_fit;
#ifdef PLACEMENT_WORDS
	n = plain_placements(g, out, cap, &from);
	if (judges && from == g->nfront) return judged_filter(g, judges, g->drawn, out, n);
	if (judges) {
		n = 0;
		from = g->first_fit;
	}
#endif
	carc_v4u code = carc_codes(g->drawn);
	carc_move m = { .type = CARC_MV_PLACE_TILE, .tile = g->drawn, .figure = CARC_NONE };
	for (int i = from; i < g->nfront; i++) {
		const carc_front *f = &g->front[i];
		unsigned fits = carc_fit_mask(code, f);
		m.x = f->x;
		m.y = f->y;
		int verdict = -1; /* for judges that ignore rotation: asked once a position */
		while (fits) {
			int r = __builtin_ctz(fits);
			fits &= fits - 1;
			if (judges) {
				int ok = any_rot && verdict >= 0 ? verdict : judged_allowed(g, judges, g->drawn, f->x, f->y, r);
				verdict = ok;
				if (!ok) continue;
			}
			m.rot = (uint8_t)r;
			if (n < cap) out[n] = m;
			n++;
		}
	}
	return n;
}

/* May the seat on turn deploy on the tile just placed at all (no
 * expansion that fills the deploy hook says no)? */
static __attribute__((noinline)) int deploy_asked_ok(const carc_game *g)
{
	CARC_EXT_EACH(g, CARC_HOOK_DEPLOY, e)
		if (e->deploy_allowed && !e->deploy_allowed(g, g->last)) return 0;
	return 1;
}

/* The same, with the expansions asked in a call of its own only when
 * some fill the hook: the callers (deploy_any after every placement)
 * then need no frame for the loop. */
static inline int deploy_here_ok(const carc_game *g)
{
	return !g->hook_exts[__builtin_ctz(CARC_HOOK_DEPLOY)] || deploy_asked_ok(g);
}

int carc_deploy_here_ok(const carc_game *g) { return deploy_here_ok(g); }

/* The figure kinds the seat on turn holds, as followers (*followers)
 * and special figures an expansion deploys (*specials); returns the
 * feature kinds those followers may stand on. */
static inline unsigned deploy_kinds(const carc_game *g, unsigned *followers, unsigned *specials)
{
	unsigned kinds = supply_kinds(g, g->seat), on = stand_on_any[kinds & FOLLOWER_KINDS];
	*followers = kinds & FOLLOWER_KINDS;
	*specials = g->hooks & CARC_HOOK_SPECIAL ? kinds & ~FOLLOWER_KINDS : 0;
	return g->cfg.rules[CARC_R_FARMERS] ? on : on & ~(1u << CARC_F_FIELD);
}

/* The features of the tile just placed (bit i: feature i) open to
 * followers of the feature kinds `on`: no follower stands in them and no
 * expansion has shut them; those a follower stands in go to *taken.  For
 * the listing, which looks at every feature: each is judged without a
 * branch, and only those still open are asked whether an expansion shut
 * them. */
static inline unsigned open_features(const carc_game *g, unsigned on, unsigned *taken)
{
	const carc_cell *c = &g->cells[g->last];
	const carc_tiletype *t = carc_cell_type(g, g->last);
	unsigned open = 0, held = 0;
	for (int i = 0, n = t->nfeat; i < n; i++) {
		unsigned busy = g->nodes[carc_feat_root(g, c->node0 + i)].nfig != 0;
		held |= busy << i;
		open |= (~busy & (on >> t->f[i].kind) & 1) << i;
	}
	*taken |= held;
	if (g->hook_exts[__builtin_ctz(CARC_HOOK_CLOSED)])
		for (unsigned m = open; m; m &= m - 1)
			if (feature_closed(g, carc_feat_root(g, c->node0 + __builtin_ctz(m)))) open &= ~(m & -m);
	return open;
}

/* The same up to the first open feature, for deploy_any after every
 * placement: returns it alone, or 0; *taken gets those before it. */
static inline unsigned first_open_feature(const carc_game *g, unsigned on, unsigned *taken)
{
	const carc_cell *c = &g->cells[g->last];
	const carc_tiletype *t = carc_cell_type(g, g->last);
	for (int i = 0; i < t->nfeat; i++) {
		int root = carc_feat_root(g, c->node0 + i);
		if (g->nodes[root].nfig) *taken |= 1u << i;
		else if ((on >> t->f[i].kind & 1) && !feature_closed(g, root)) return 1u << i;
	}
	return 0;
}

/* The features of the tile just placed, of the kinds `kinds` (bit k:
 * carc_fkind k), in which a follower stands (bit i: feature i): each one
 * looked at without a branch, as there is no first one to stop at. */
static inline unsigned taken_scan(const carc_game *g, unsigned kinds)
{
	const carc_cell *c = &g->cells[g->last];
	const carc_tiletype *t = carc_cell_type(g, g->last);
	unsigned taken = 0;
	for (int i = 0, n = t->nfeat; i < n; i++)
		taken |= ((kinds >> t->f[i].kind) & (g->nodes[carc_feat_root(g, c->node0 + i)].nfig != 0)) << i;
	return taken;
}

/* May a figure stand at some corner of the tile just placed at all (1 or
 * 0): in a game with fields, on a tile with a field corner and
 * CORNER_NEIGHBOURS placed neighbours.  Told without a branch, as either
 * answer is common. */
static inline unsigned corners_open(const carc_game *g)
{
	const carc_cell *c = &g->cells[g->last];
	return (c->nb >= CORNER_NEIGHBOURS) & (carc_tile_traits[c->type].corner_fields != 0) &
	       (g->cfg.rules[CARC_R_FARMERS] != 0);
}

/* The corners (bit k: NW NE SE SW) of the tile just placed where a figure
 * may stand at all (corners_open): its field corners, turned as the tile
 * is. */
static inline unsigned field_corners(const carc_game *g)
{
	if (!corners_open(g)) return 0;
	const carc_cell *c = &g->cells[g->last];
	unsigned u = carc_tile_traits[c->type].corner_fields; /* corner k is corner k - rot of the unturned tile */
	return (u << c->rot | u >> (4 - c->rot)) & 15;
}

/* Deploys of the special figures `kinds` on the tile just placed, kind by
 * kind: at the first port of each feature, then at the corners NW NE SE
 * SW, where the expansion that brings them accepts (deploy_special).  It
 * is asked only where it may say yes: at the features of the kinds
 * special_at gives, for LONELY_KINDS only those a follower stands in
 * (`taken`, bit i: feature i); at the corners, only those field_corners
 * gives.  With no `out` it stops at the first.  Inlined in both callers:
 * the check after each placement is hot. */
static inline __attribute__((always_inline)) int special_moves(const carc_game *g, unsigned kinds, unsigned taken,
                                                               unsigned twice, carc_move *out, int n, int cap)
{
	const carc_cell *c = &g->cells[g->last];
	const carc_tiletype *t = carc_cell_type(g, g->last);
	const uint8_t *first_port = t->first_port[c->rot];
	carc_move m = { .type = CARC_MV_DEPLOY, .x = c->x, .y = c->y, .tile = CARC_NONE, .figure = CARC_NONE };
	/* unrolled: where each kind goes (special_at) is then known at each
	 * kind's own code, with no branch on it, and each kind asks its
	 * expansion from a call site of its own */
#pragma GCC unroll 8
	for (int kind = 0; kind < CARC_FIG_COUNT; kind++) {
		if (!(kinds >> kind & 1)) continue;
		const carc_ext *owner = special_owner(g, kind);
		if (!owner) continue;
		unsigned at = special_at[kind];
		unsigned feats = !(at & (AT_CORNER - 1)) ? 0 : LONELY_KINDS >> kind & 1 ? taken : (1u << t->nfeat) - 1;
		feats &= ~twice;
		m.kind = (uint8_t)kind;
		for (; feats; feats &= feats - 1) {
			int i = __builtin_ctz(feats), node;
			if (!(at >> t->f[i].kind & 1) || owner->deploy_special(g, g->seat, kind, first_port[i], &node) != CARC_OK)
				continue;
			m.port = first_port[i];
			n = push(out, n, cap, &m);
			if (!out) return n;
		}
		for (unsigned k = at & AT_CORNER ? field_corners(g) : 0; k; k &= k - 1) {
			int node, port = CARC_P_NW + __builtin_ctz(k);
			if (owner->deploy_special(g, g->seat, kind, port, &node) != CARC_OK) continue;
			m.port = (uint8_t)port;
			n = push(out, n, cap, &m);
			if (!out) return n;
		}
	}
	return n;
}

/* deploy_any for a seat that holds followers that may stand on features
 * of the kinds `on`. */
static __attribute__((noinline)) int deploy_any_followers(const carc_game *g, unsigned on, unsigned specials)
{
	unsigned taken = 0;
	if (first_open_feature(g, on, &taken)) return 1;
	return specials && special_moves(g, specials, taken, 0, NULL, 0, 0);
}

/* deploy_any for special figures only (`kinds`); `taken` as special_moves. */
static __attribute__((noinline)) int deploy_any_specials(const carc_game *g, unsigned kinds, unsigned taken)
{
	return special_moves(g, kinds, taken, 0, NULL, 0, 0);
}

/* deploy_any for special figures only (`kinds`) when the placement
 * joined a feature of the kinds `where` of a builder or pig it holds that
 * followers stand in: those figures are asked only if a follower stands
 * in such a feature of the tile. */
static __attribute__((noinline)) int deploy_any_lonely(const carc_game *g, unsigned kinds, unsigned where)
{
	unsigned taken = taken_scan(g, where);
	if (!taken) kinds &= ~LONELY_KINDS;
	return kinds && special_moves(g, kinds, taken, 0, NULL, 0, 0);
}

/* Is there anything to deploy on the tile just placed?  What
 * deploy_moves lists, up to the first: asked after every placement, and
 * most often answered by the first feature of the tile, or, once the
 * seat's followers are all on the board, by the few special figures it
 * still holds. */
static int deploy_any(const carc_game *g)
{
	if (!deploy_here_ok(g)) return 0;
	unsigned followers, specials;
	unsigned on = deploy_kinds(g, &followers, &specials);
	if (on) return deploy_any_followers(g, on, specials);
	specials &= ~CORNER_KINDS | -corners_open(g); /* a barn needs a corner (field_corners) */
	/* a builder or pig (LONELY_KINDS) needs a feature of its kinds where
	 * a follower stands, which only a feature the placement joined can be
	 * (g->joined_held); without one, only the other special figures are
	 * asked */
	unsigned where = (specials >> CARC_FIG_BUILDER & 1) * special_at[CARC_FIG_BUILDER] |
	                 (specials >> CARC_FIG_PIG & 1) * special_at[CARC_FIG_PIG];
	if (where & g->joined_held) return deploy_any_lonely(g, specials, where);
	specials &= ~LONELY_KINDS;
	return specials && deploy_any_specials(g, specials, 0);
}

int carc_deploy_any(const carc_game *g) { return deploy_any(g); }

/* Deploys on the tile just placed; `pass` is added by the caller.  With
 * no `out` it only says whether there is one (deploy_any).  First the
 * followers, kind by kind, into each feature of the tile that no
 * follower holds and no expansion has shut; then the special figures
 * (special_moves). */
static int deploy_moves(const carc_game *g, carc_move *out, int n, int cap)
{
	if (!out) return n + deploy_any(g);
	if (!deploy_here_ok(g)) return n;
	unsigned followers, specials, taken = 0;
	unsigned on = deploy_kinds(g, &followers, &specials);
	if (!on && !specials) return n;
	unsigned open = on || (specials & LONELY_KINDS) ? open_features(g, on, &taken) : 0;
	const carc_cell *c = &g->cells[g->last];
	const carc_tiletype *t = carc_cell_type(g, g->last);
	unsigned twice = carc_board_later_parts(g, g->last); /* such a feature is listed once */
	open &= ~twice;
	carc_move m = { .type = CARC_MV_DEPLOY, .x = c->x, .y = c->y, .tile = CARC_NONE, .figure = CARC_NONE };
	for (; open && followers; followers &= followers - 1) {
		int kind = __builtin_ctz(followers);
		unsigned where = stand_on[kind] & on;
		m.kind = (uint8_t)kind;
		for (unsigned f = open; f; f &= f - 1) {
			int i = __builtin_ctz(f);
			if (!(where >> t->f[i].kind & 1)) continue;
			m.port = t->first_port[c->rot][i];
			n = push(out, n, cap, &m);
		}
	}
	return specials ? special_moves(g, specials, taken, twice, out, n, cap) : n;
}

/* The moves expansions add to the action phase after the deploys. */
static inline int ext_action_moves(const carc_game *g, carc_move *out, int n, int cap)
{
	CARC_EXT_EACH(g, CARC_HOOK_ACTION, e)
		if (e->action_moves) n = e->action_moves(g, out, n, cap);
	return n;
}

static int action_moves(const carc_game *g, carc_move *out, int cap)
{
	int n = ext_action_moves(g, out, deploy_moves(g, out, 0, cap), cap);
	if (n == 0) return 0;
	carc_move pass = { .type = CARC_MV_PASS, .tile = CARC_NONE, .figure = CARC_NONE };
	return push(out, n, cap, &pass);
}

/* The expansion that decides the current phase, if it is not the base's. */
static const carc_ext *phase_owner(const carc_game *g)
{
	unsigned m = g->phase_exts[g->phase];
	return m ? carc_exts[__builtin_ctz(m)] : NULL;
}

/* Moves that expansions add to the tile phase (the abbey, `draw`). */
static int ext_tile_moves(const carc_game *g, carc_move *out, int n, int cap)
{
	CARC_EXT_EACH(g, CARC_HOOK_TILE_MOVES, e)
		if (e->tile_moves) n = e->tile_moves(g, out, n, cap);
	return n;
}

int carc_legal_moves(const carc_game *g, carc_move *out, int cap)
{
	carc_move none;
	if (__builtin_expect(!out, 0)) { /* only the count: internally a NULL out asks "is there a deploy" */
		out = &none;
		cap = 0;
	}
	switch (g->phase) {
	case CARC_PH_TILE: {
		int n = g->drawn != CARC_NONE ? tile_moves(g, out, cap) : 0;
		return g->hooks & CARC_HOOK_TILE_MOVES ? ext_tile_moves(g, out, n, cap) : n;
	}
	case CARC_PH_ACTION: return action_moves(g, out, cap);
	case CARC_PH_OVER: return 0;
	default: {
		const carc_ext *e = phase_owner(g);
		return e ? e->phase_moves(g, out, cap) : 0;
	}
	}
}

/* The fields of a carc_move each type reads (carc.h); the others are
 * ignored, as for the base moves, whatever they hold. */
enum { MF_ROT = 1, MF_KIND = 2, MF_PORT = 4, MF_XY = 8, MF_TILE = 16, MF_FIGURE = 32 };
static const uint8_t move_fields[CARC_MV_COUNT] = {
	[CARC_MV_PASS] = 0,
	[CARC_MV_PLACE_TILE] = MF_TILE | MF_XY | MF_ROT,
	[CARC_MV_DEPLOY] = MF_KIND | MF_XY | MF_PORT,
	[CARC_MV_ESCAPE] = MF_FIGURE,
	[CARC_MV_DRAW] = 0,
	[CARC_MV_PLACE_ABBEY] = MF_XY,
	[CARC_MV_MOVE_WAGON] = MF_XY | MF_PORT,
	[CARC_MV_FLOCK] = MF_KIND,
};

/* Two moves are the same choice (a of the listed ones, b as the caller
 * sent it): the fields b's type reads are equal, but that a feature may be
 * named by any of its ports, and the feature a wagon moves to by any tile
 * it covers (PROTOCOL.md section 3: a feature on the board is addressed by
 * any tile it covers and any port it touches there). */
static int same_move(const carc_game *g, const carc_move *a, const carc_move *b)
{
	if (a->type != b->type || b->type >= CARC_MV_COUNT) return 0;
	unsigned f = move_fields[b->type];
	if (((f & MF_FIGURE) && a->figure != b->figure) || ((f & MF_KIND) && a->kind != b->kind) ||
	    ((f & MF_TILE) && a->tile != b->tile) || ((f & MF_ROT) && a->rot != b->rot))
		return 0;
	if (!(f & MF_XY)) return 1;
	int anywhere = a->type == CARC_MV_MOVE_WAGON;
	if (!anywhere && (a->x != b->x || a->y != b->y)) return 0;
	if (!(f & MF_PORT)) return 1;
	if (a->x == b->x && a->y == b->y && a->port == b->port) return 1;
	int ca = carc_board_lookup(g, a->x, a->y), cb = carc_board_lookup(g, b->x, b->y);
	if (ca < 0 || cb < 0 || a->port >= CARC_PORT_COUNT || b->port >= CARC_PORT_COUNT) return 0;
	int fa = carc_board_feature_at(g, ca, a->port), fb = carc_board_feature_at(g, cb, b->port);
	if (fa < 0 || fb < 0) return 0;
	return anywhere ? carc_feat_root(g, fa) == carc_feat_root(g, fb) : fa == fb;
}

/* Of the moves list[0..n) (listed by carc_legal_moves, or by an
 * expansion), the one that is the choice `m` makes: the same move, with a
 * move_wagon listed on the tile m names first; for a deploy, also the
 * feature's part on that tile that is listed (a feature the tile holds in
 * two parts is listed once; expansions list no deploys). */
static int move_index(const carc_game *g, const carc_move *list, int n, const carc_move *m)
{
	int found = -1;
	for (int j = 0; j < n; j++)
		if (same_move(g, &list[j], m)) {
			if (list[j].x == m->x && list[j].y == m->y) return j;
			if (found < 0) found = j;
		}
	if (found >= 0 || m->type != CARC_MV_DEPLOY) return found;
	int c = carc_board_lookup(g, m->x, m->y), f = c >= 0 && m->port < CARC_PORT_COUNT ? carc_board_feature_at(g, c, m->port) : -1;
	if (f < 0) return -1;
	for (int j = 0; j < n; j++) {
		const carc_move *l = &list[j];
		if (l->type != m->type || l->kind != m->kind || l->x != m->x || l->y != m->y || l->port >= CARC_PORT_COUNT) continue;
		int lf = carc_board_feature_at(g, c, l->port);
		if (lf >= 0 && carc_feat_root(g, lf) == carc_feat_root(g, f)) return j;
	}
	return -1;
}

int carc_move_index(const carc_game *g, const carc_move *list, int n, const carc_move *m)
{
	if (!list || !m || n <= 0 || carc_check_move(g, m, NULL) != CARC_OK) return -1;
	return move_index(g, list, n, m);
}

/* Finds `m` among the moves one expansion lists now: in its own phase, or
 * among its additions to the tile and action phases.  Returns that
 * expansion, with the move as it lists it in *listed (if not NULL), or
 * NULL with the reason in *rc. */
/* Room for any expansion phase's listing: the most is the wagon's, one
 * move a segment of the board it may go to, and its pass (the abbey's
 * holes, the escapes and the flock's two are fewer). */
enum { EXT_LIST = CARC_MAX_NODES + 1 };

static const carc_ext *ext_move_owner(const carc_game *g, const carc_move *m, carc_rc *rc, carc_move *listed)
{
	carc_move list[EXT_LIST];
	int types = 0;
	/* those that may list a move now: the phase's own, or those that add
	 * moves to the tile or the action phase (as carc_legal_moves asks) */
	unsigned listers = g->phase_exts[g->phase];
	if (g->phase == CARC_PH_TILE) listers |= g->hook_exts[__builtin_ctz(CARC_HOOK_TILE_MOVES)];
	else if (g->phase == CARC_PH_ACTION) listers |= g->hook_exts[__builtin_ctz(CARC_HOOK_ACTION)];
	CARC_EXT_IN(listers, e) {
		int n = 0;
		if (e->phases >> g->phase & 1) n = e->phase_moves(g, list, EXT_LIST);
		else if (g->phase == CARC_PH_TILE && e->tile_moves) n = e->tile_moves(g, list, 0, EXT_LIST);
		else if (g->phase == CARC_PH_ACTION && e->action_moves && e->apply_move) n = e->action_moves(g, list, 0, EXT_LIST);
		/* a move_wagon target is listed once for each tile it may be named
		 * at, and the wagon stands on the tile of the move played: the
		 * listed move on the tile the client names, when there is one */
		if (n > EXT_LIST) n = EXT_LIST;
		int found = move_index(g, list, n, m);
		for (int j = 0; j < n && found < 0; j++) types |= list[j].type == m->type;
		if (found >= 0) {
			if (listed) *listed = list[found];
			return e;
		}
	}
	*rc = types ? CARC_E_RULE : CARC_E_PHASE;
	return NULL;
}

/* ---- checking and applying a move ----------------------------------------------- */

/* A builder, pig, barn ... : the expansion that brings it judges and
 * finds the feature segment it joins. */
static carc_rc check_special(const carc_game *g, int kind, int port, int *node)
{
	const carc_ext *e = special_owner(g, kind);
	int rc = e ? e->deploy_special(g, g->seat, kind, port, node) : -1;
	return rc >= 0 ? (carc_rc)rc : CARC_E_KIND;
}

/* Is this feature shut to new followers (a farm with a barn)?  Asked
 * only of the expansions that may shut features of its kind, and that
 * fill the hook now (none: no question at all). */
static inline int feature_closed(const carc_game *g, int root)
{
	unsigned kind = g->nodes[root].kind;
	CARC_EXT_EACH(g, CARC_HOOK_CLOSED, e)
		if ((e->closes >> kind & 1) && e->feature_closed(g, root)) return 1;
	return 0;
}

/* A deploy from the supply onto the tile just placed; *node receives the
 * feature segment it joins. */
static carc_rc check_deploy(const carc_game *g, const carc_move *m, int *node)
{
	if (m->kind >= CARC_FIG_COUNT || m->port >= CARC_PORT_COUNT) return CARC_E_ARG;
	const carc_cell *c = &g->cells[g->last];
	if (m->x != c->x || m->y != c->y) return CARC_E_NOT_TILE_JUST_PLACED;
	if (!carc_deploy_here_ok(g)) return CARC_E_RULE;
	if (!g->in_supply[g->seat][m->kind]) return CARC_E_NO_FIGURE;
	if (!carc_is_follower(m->kind)) return check_special(g, m->kind, m->port, node);
	*node = carc_board_feature_at(g, g->last, m->port);
	if (*node < 0) return CARC_E_NO_FEATURE;
	if (!may_stand(g, m->kind, g->nodes[*node].kind)) return CARC_E_KIND;
	int root = carc_feat_root(g, *node);
	if (g->nodes[root].nfig) return CARC_E_FEATURE_TAKEN;
	if (feature_closed(g, root)) return CARC_E_RULE;
	return CARC_OK;
}

/* A placement of the drawn tile in the tile phase: legal now? */
static carc_rc check_place(const carc_game *g, const carc_move *m, int *detail)
{
	if (g->drawn == CARC_NONE) return CARC_E_PHASE; /* draw (or place the abbey) first */
	if (m->tile != g->drawn) return CARC_E_TILE;
	if (m->rot > 3) return CARC_E_ARG;
	carc_rc rc = (carc_rc)carc_board_fits(g, m->tile, m->x, m->y, m->rot, detail);
	if (rc != CARC_OK) return rc;
	return judged_allowed(g, g->judges, m->tile, m->x, m->y, m->rot) ? CARC_OK : CARC_E_RULE;
}

/* A move that is neither a placement in the tile phase nor a pass or a
 * deploy in the action phase: legal only as a move an expansion lists,
 * which goes to *listed (as it lists it) with that expansion in *owner. */
static carc_rc check_other(const carc_game *g, const carc_move *m, carc_move *listed, const carc_ext **owner)
{
	if (g->phase == CARC_PH_TILE && m->type == CARC_MV_DEPLOY) return CARC_E_PHASE;
	if (m->type >= CARC_MV_COUNT) return CARC_E_ARG;
	carc_rc rc = CARC_E_PHASE;
	*owner = ext_move_owner(g, m, &rc, listed);
	if (*owner) return CARC_OK;
	/* of a type open now, but naming what no game has: as a deploy of an
	 * unknown kind */
	if (rc == CARC_E_RULE && ((m->type == CARC_MV_FLOCK && m->kind > 1) ||
	                          (m->type == CARC_MV_ESCAPE && (m->figure >= CARC_MAX_FIGS || !g->figs[m->figure].used))))
		return CARC_E_ARG;
	return rc;
}

carc_rc carc_check_move(const carc_game *g, const carc_move *m, int *detail)
{
	if (g->over) return CARC_E_OVER;
	if (g->phase == CARC_PH_TILE && m->type == CARC_MV_PLACE_TILE) return check_place(g, m, detail);
	if (g->phase == CARC_PH_ACTION && m->type == CARC_MV_PASS) return CARC_OK;
	int node;
	if (g->phase == CARC_PH_ACTION && m->type == CARC_MV_DEPLOY) return check_deploy(g, m, &node);
	const carc_ext *e;
	return check_other(g, m, NULL, &e);
}

void carc_place_tile(carc_game *g, int type, int x, int y, int rot, carc_sink *out)
{
	g->joined_held = 0;
	int cell = carc_board_place(g, type, x, y, rot);
	carc_event *e = carc_emit(out, CARC_EV_TILE_PLACED);
	if (e) {
		e->seat = (int8_t)g->seat;
		e->tile = (uint16_t)type;
		e->x = (int16_t)x;
		e->y = (int16_t)y;
		e->rot = (uint8_t)rot;
	}
	g->last = (uint16_t)cell;
	g->drawn = CARC_NONE;
	find_completed(g, cell);
	placed_hooks(g, cell, out);
	g->phase = CARC_PH_ACTION;
	/* nothing to decide (not even with an expansion's action move): the turn goes on */
	if (!deploy_any(g) && !(g->hooks & CARC_HOOK_ACTION && ext_action_moves(g, NULL, 0, 0))) finish_turn(g, out);
}

void carc_deploy(carc_game *g, int fig, int node, int at, carc_sink *out)
{
	carc_fig *f = &g->figs[fig];
	node = carc_board_first_segment(g, node);
	f->node = (uint16_t)node;
	f->at = (uint8_t)(at >= CARC_P_NW ? at : 0);
	g->in_supply[f->seat][f->kind]--;
	uint16_t bit = (uint16_t)(1u << (fig - f->seat * CARC_FIGS_PER_SEAT));
	g->on_board[f->seat] |= bit;
	if (carc_is_follower(f->kind)) {
		g->nodes[carc_feat_root(g, node)].nfig++;
		g->followers_on[f->seat] |= bit;
		g->followers_in[f->seat][g->nodes[node].kind] |= bit;
	} else {
		g->nspecial[g->nodes[node].kind]++;
		g->specials_in[f->seat][g->nodes[node].kind] |= bit;
	}
	carc_event *e = carc_emit(out, CARC_EV_DEPLOYED);
	if (e) {
		const carc_cell *c = &g->cells[g->nodes[node].cell];
		e->seat = (int8_t)f->seat;
		e->figure = (uint16_t)fig;
		e->kind = f->kind;
		e->x = c->x;
		e->y = c->y;
		e->port = (uint8_t)(f->at ? f->at : carc_board_first_port(g, node));
		e->fkind = g->nodes[node].kind;
	}
	/* only the expansion that deploys the kind is told (carc_ext.deployed):
	 * after a follower's deploy, none */
	unsigned x = g->special_ext[f->kind]; /* 1 + its index, 0 none */
	if (x && g->hook_exts[__builtin_ctz(CARC_HOOK_DEPLOYED)] >> (x - 1) & 1) carc_exts[x - 1]->deployed(g, fig, out);
}

/* A sink a call may record into (carc.h): it counts from 0 or more, with
 * room left to count CARC_MAX_EVENTS more, and has events for its cap. */
static int sink_ok(const carc_sink *out)
{
	return out->n >= 0 && out->n <= INT_MAX - CARC_MAX_EVENTS && (out->cap <= 0 || out->ev);
}

/* The move is checked where it is applied, by the checks of its kind
 * alone, which give what applying it needs: the kind of move is told
 * apart once. */
carc_rc carc_apply(carc_game *g, const carc_move *m, carc_sink *out)
{
	if (out && !sink_ok(out)) return CARC_E_ARG;
	if (g->over) return CARC_E_OVER;
	carc_rc rc;
	if (g->phase == CARC_PH_TILE && m->type == CARC_MV_PLACE_TILE) {
		if ((rc = check_place(g, m, NULL)) != CARC_OK) return rc;
		carc_place_tile(g, m->tile, m->x, m->y, m->rot, out);
	} else if (g->phase == CARC_PH_ACTION && m->type == CARC_MV_PASS) {
		finish_turn(g, out);
	} else if (g->phase == CARC_PH_ACTION && m->type == CARC_MV_DEPLOY) {
		int node;
		if ((rc = check_deploy(g, m, &node)) != CARC_OK) return rc;
		carc_deploy(g, fig_slot_free(g, g->seat, m->kind), node, m->port, out);
		finish_turn(g, out);
	} else {
		carc_move listed; /* an expansion's move as listed: the feature named on the tile the listing names it */
		const carc_ext *e;
		if ((rc = check_other(g, m, &listed, &e)) != CARC_OK) return rc;
		if (e->phases >> g->phase & 1) e->phase_apply(g, &listed, out);
		else e->apply_move(g, &listed, out);
	}
	return CARC_OK;
}

/* As if the seat due passed and the supply were empty: what this turn's
 * placement completed scores as completed, then, when a tile was placed
 * this turn (g->last), the rest of the turn's end with every decision it
 * opens passed: the turn_end hooks from the first (the deployment step is
 * due: as finish_turn) or from the one after the expansion whose decision
 * is due (g->stage).  What they score without a decision (farmers joined
 * to a barn's farm, flocks in closed farms) scores; the decisions (a
 * wagon's move, an escape, expand or gather) never come.  Then
 * everything else scores as at the end. */
void carc_end_now(carc_game *g, carc_sink *out)
{
	if (g->over || (out && !sink_ok(out))) return;
	score_pending(g, out);
	if (g->last != CARC_NONE) {
		if (g->phase == CARC_PH_ACTION) g->stage = 0;
		turn_end_hooks(g, out, 0);
	}
	end_game(g, out);
}

/* ---- setting up ------------------------------------------------------------------ */

static void place_start(carc_game *g, int type, int x, int y, int rot, carc_sink *out)
{
	int cell = carc_board_place(g, type, x, y, rot);
	placed_hooks(g, cell, NULL);
	carc_event *e = carc_emit(out, CARC_EV_TILE_PLACED);
	if (e) {
		e->tile = (uint16_t)type;
		e->x = (int16_t)x;
		e->y = (int16_t)y;
		e->rot = (uint8_t)rot;
	}
}

/* The config as a game keeps it, into a zeroed `dst`: every field, but of
 * the supply, start tiles and bag only the entries counted.  The state,
 * and so carc_game_hash, then depends on what the config says and not on
 * what else the caller's struct held (the entries of an earlier, longer
 * list; its padding). */
static void keep_config(carc_config *dst, const carc_config *src)
{
	dst->nseats = src->nseats;
	dst->expansions = src->expansions;
	dst->components = src->components;
	dst->components_given = src->components_given;
	memcpy(dst->rules, src->rules, sizeof dst->rules);
	dst->seed = src->seed;
	dst->ntiles = src->ntiles;
	memcpy(dst->tiles, src->tiles, src->ntiles * sizeof src->tiles[0]);
	dst->nstart = src->nstart;
	for (int i = 0; i < src->nstart; i++) { /* field by field: a start tile has padding */
		dst->start[i].tile = src->start[i].tile;
		dst->start[i].x = src->start[i].x;
		dst->start[i].y = src->start[i].y;
		dst->start[i].rot = src->start[i].rot;
	}
	dst->nbag = src->nbag;
	memcpy(dst->bag, src->bag, src->nbag * sizeof src->bag[0]);
}

/* Which expansions are active and which of their hooks each part of the
 * turn asks (carc_ext_hooks and the tables made from it), and the figure
 * slots of each kind: a function of the expansions and the components
 * alone. */
typedef struct ext_plan {
	uint32_t expansions, components;
	uint8_t known;
	uint32_t hooks, exts;
	uint16_t hook_exts[CARC_NHOOKS], phase_exts[CARC_PH_COUNT], placed_for[16], feature_exts[CARC_F_COUNT];
	uint8_t special_ext[CARC_FIG_COUNT];
	uint16_t kind_slots[CARC_FIG_COUNT];
} ext_plan;

static void ext_plan_make(ext_plan *p, uint32_t expansions, uint32_t components)
{
	memset(p, 0, sizeof *p);
	carc_config cfg = { .expansions = expansions };
	p->expansions = expansions;
	p->components = components;
	p->known = 1;
	p->hooks = carc_ext_hooks(&cfg, components, &p->exts, p->hook_exts);
	uint16_t every = 0, by_fact[4] = { 0 }; /* expansions whose tile_placed sees every tile, each fact's */
	for (unsigned m = p->exts; m; m &= m - 1) { /* which features and placements each expansion is asked about */
		unsigned i = (unsigned)__builtin_ctz(m);
		const carc_ext *e = carc_exts[i];
		for (unsigned k = e->feature_kinds ? e->feature_kinds : (1u << CARC_F_COUNT) - 1; k; k &= k - 1)
			p->feature_exts[__builtin_ctz(k)] |= (uint16_t)(1u << i);
		for (unsigned ph = e->phases & ((1u << CARC_PH_COUNT) - 1); ph; ph &= ph - 1)
			p->phase_exts[__builtin_ctz(ph)] |= (uint16_t)(1u << i);
		if (e->tile_placed && !e->placed_tiles) every |= (uint16_t)(1u << i);
		for (unsigned f = e->tile_placed ? e->placed_tiles & 15u : 0; f; f &= f - 1)
			by_fact[__builtin_ctz(f)] |= (uint16_t)(1u << i);
	}
	for (unsigned f = 0; f < 16; f++)
		p->placed_for[f] = (uint16_t)(every | (f & 1 ? by_fact[0] : 0) | (f & 2 ? by_fact[1] : 0) |
		                              (f & 4 ? by_fact[2] : 0) | (f & 8 ? by_fact[3] : 0));
	for (int kind = 0, slot = 0; kind < CARC_FIG_COUNT; kind++) { /* every seat's slots: the kinds of the components */
		int c = figure_supply[kind].component, n = figure_supply[kind].count;
		if (c >= 0 && !(components >> c & 1)) continue;
		p->kind_slots[kind] = (uint16_t)(((1u << n) - 1) << slot);
		slot += n;
	}
	/* who deploys each special figure: the first that judges it */
	CARC_EXT_IN(p->hook_exts[__builtin_ctz(CARC_HOOK_SPECIAL)], e)
		for (unsigned k = e->deploy_special ? e->special_kinds & ((1u << CARC_FIG_COUNT) - 1) : 0; k; k &= k - 1)
			if (!p->special_ext[__builtin_ctz(k)]) p->special_ext[__builtin_ctz(k)] = (uint8_t)(e_i + 1);
}

/* The plan of the game's expansions and components into the game, before
 * the expansions' own set-up (which may leave hooks).  The plan of the
 * last configuration set up on this thread is kept: a program mostly
 * plays many games of one configuration, and working it out looks the
 * expansions up by name. */
static void ext_plan_set(carc_game *g)
{
	static _Thread_local ext_plan last;
	if (!last.known || last.expansions != g->cfg.expansions || last.components != g->components)
		ext_plan_make(&last, g->cfg.expansions, g->components);
	g->hooks = last.hooks;
	g->exts = last.exts;
	memcpy(g->hook_exts, last.hook_exts, sizeof g->hook_exts);
	memcpy(g->phase_exts, last.phase_exts, sizeof g->phase_exts);
	memcpy(g->placed_for, last.placed_for, sizeof g->placed_for);
	memcpy(g->feature_exts, last.feature_exts, sizeof g->feature_exts);
	memcpy(g->special_ext, last.special_ext, sizeof g->special_ext);
	memcpy(g->kind_slots, last.kind_slots, sizeof g->kind_slots);
}

static carc_rc game_init(carc_game *g, const carc_config *cfg, carc_sink *out);

/* A refused set-up records no event: the start tiles placed before the
 * one that did not match are taken back out of the sink. */
carc_rc carc_game_init(carc_game *g, const carc_config *cfg, carc_sink *out)
{
	if (!g || !cfg || (out && !sink_ok(out))) return CARC_E_ARG;
	/* a config inside g (carc_game_config(g): a game set up again as it
	 * was) is copied out first: setting up wipes g */
	carc_config own;
	if ((uintptr_t)cfg < (uintptr_t)g + sizeof *g && (uintptr_t)cfg + sizeof *cfg > (uintptr_t)g) {
		own = *cfg;
		cfg = &own;
	}
	int n0 = out ? out->n : 0;
	carc_rc rc = game_init(g, cfg, out);
	if (rc != CARC_OK && out) out->n = n0;
	return rc;
}

static carc_rc game_init(carc_game *g, const carc_config *cfg, carc_sink *out)
{
	carc_rc rc = check_config(cfg);
	if (rc != CARC_OK) return rc;
	memset(g, 0, offsetof(carc_game, cells));
	memset(g->hkey, 0, sizeof g->hkey);
	memset(g->specials_in, 0, sizeof g->specials_in);
	keep_config(&g->cfg, cfg);
	g->nseats = cfg->nseats;
	g->drawn = g->last = CARC_NONE;
	/* The seed deals the supply (unless the caller gives it) and, on a
	 * stream of its own, draws what chance decides during play (the sheep
	 * bag): so a game replayed from its seed with the supply it dealt given
	 * as `tiles` draws the same tokens. */
	carc_rng deal;
	carc_rng_seed(&deal, cfg->seed);
	carc_rng_seed(&g->rng, cfg->seed ^ 0x706c617942616721ull);
	for (int i = 0; i < CARC_MAX_FIGS; i++) g->figs[i].node = CARC_NONE;
	g->components = cfg->components_given ? cfg->components : carc_default_components(cfg->expansions);
	g->king = g->robber = -1;
	ext_plan_set(g);
	for (int s = 0; s < g->nseats; s++) { /* each seat's figures in the slots of their kind (kind_slots) */
		g->abbeys[s] = g->components >> CARC_C_ABBEY & 1;
		for (int kind = 0; kind < CARC_FIG_COUNT; kind++) {
			unsigned n = 0;
			for (unsigned m = g->kind_slots[kind]; m; m &= m - 1)
				g->figs[s * CARC_FIGS_PER_SEAT + __builtin_ctz(m)] =
					(carc_fig){ CARC_NONE, (uint8_t)s, (uint8_t)kind, (uint8_t)++n, 1, 0, 0 };
			g->in_supply[s][kind] = (uint8_t)n;
		}
	}
	for (int i = 0; carc_exts[i]; i++)
		if (g->exts >> i & 1 && carc_exts[i]->setup) carc_exts[i]->setup(g);

	const carc_tileset *start_set = standard_start(cfg->expansions);
	int nodes = 0, nstart = cfg->nstart ? cfg->nstart : start_set ? start_set->nstarts : 0;
	if (cfg->ntiles) {
		memcpy(g->supply, cfg->tiles, cfg->ntiles * sizeof cfg->tiles[0]);
		g->nsupply = cfg->ntiles;
		for (int i = 0; i < g->nsupply; i++) nodes += carc_tiletypes[g->supply[i]].nfeat;
	} else {
		rc = build_supply(g, start_set, &deal, &nodes); /* order_supply only reorders: the same segments */
		if (rc != CARC_OK) return rc;
		CARC_EXT_EACH(g, CARC_HOOK_SETUP, e)
			if (e->order_supply) e->order_supply(g);
	}
	for (int i = 0; i < cfg->nstart; i++) nodes += carc_tiletypes[cfg->start[i].tile].nfeat;
	for (int i = 0; !cfg->nstart && start_set && i < start_set->nstarts; i++)
		nodes += carc_tiletypes[start_set->starts[i].type].nfeat;
	/* the board must hold every tile the game may place: carc_board_place
	 * has no room past CARC_MAX_TILES */
	int extra = 0;
	for (int i = 0; carc_exts[i]; i++)
		if (g->exts >> i & 1 && carc_exts[i]->board_extra) extra += carc_exts[i]->board_extra(g, &nodes);
	if (g->nsupply + nstart + extra > CARC_MAX_TILES || nodes > CARC_MAX_NODES) return CARC_E_CAPACITY;
	if (!nstart) return CARC_E_ARG;
	/* start tiles that touch must match like any placement */
	if (carc_config_start_mismatch(cfg) >= 0) return CARC_E_ARG;

	if (cfg->nstart)
		for (int i = 0; i < cfg->nstart; i++) {
			const carc_start_tile *st = &cfg->start[i];
			place_start(g, st->tile, st->x, st->y, st->rot, out);
		}
	else
		for (int i = 0; i < start_set->nstarts; i++) {
			const carc_tilestart *st = &start_set->starts[i];
			place_start(g, st->type, st->x, st->y, st->rot, out);
		}
	/* features the start tiles close among themselves are complete (for
	 * farms and the king), though nobody can score them */
	for (int c = 0; c < g->ncells; c++) find_completed(g, c);
	g->npending = 0;
	g->turn_seat = 0;
	begin_turn(g, out);
	return CARC_OK;
}

/* ---- reading the state ---------------------------------------------------------- */

int carc_game_phase(const carc_game *g) { return g->phase; }
int carc_game_seat(const carc_game *g) { return g->over ? -1 : g->seat; }
int carc_game_over(const carc_game *g) { return g->over; }
int carc_game_nseats(const carc_game *g) { return g->nseats; }
const carc_config *carc_game_config(const carc_game *g) { return &g->cfg; }
int carc_game_drawn(const carc_game *g) { return g->drawn == CARC_NONE ? -1 : g->drawn; }
int carc_game_turn_tile(const carc_game *g, int *seat)
{
	int t = g->drawn != CARC_NONE ? g->drawn : -1;
	/* past the tile phase of a turn, its tile is the last one placed, but
	 * for an abbey (never drawn) */
	if (t < 0 && !g->over && g->phase != CARC_PH_TILE && g->phase != CARC_PH_ABBEY_FINAL && g->ncells) {
		int type = g->cells[g->last].type;
		if (!carc_is_abbey(g, type)) t = type;
	}
	if (seat) *seat = t >= 0 ? g->turn_seat : -1;
	return t;
}
int carc_game_tiles_left(const carc_game *g) { return g->nsupply - g->next; }
int carc_game_dealt(const carc_game *g, int type)
{
	int n = 0;
	if (type < 0 || type >= carc_ntiletypes) return 0;
	for (int i = 0; i < g->nsupply; i++) n += carc_entry_tile(g->supply[i]) == type; /* put back or not */
	return n;
}
uint32_t carc_game_turn(const carc_game *g) { return g->turn; }
int carc_game_score(const carc_game *g, int seat) { return seat >= 0 && seat < g->nseats ? g->score[seat] : 0; }
int carc_game_score_by(const carc_game *g, int seat, int sc)
{
	return seat >= 0 && seat < g->nseats && sc >= 0 && sc < CARC_SC_COUNT ? g->score_by[seat][sc] : 0;
}

int carc_figure_count(const carc_game *g) { return g->nseats * CARC_FIGS_PER_SEAT; }

int carc_figure_get(const carc_game *g, int i, carc_figure_info *out)
{
	if (i < 0 || i >= CARC_MAX_FIGS || !g->figs[i].used) return 0;
	if (!out) return 1;
	const carc_fig *f = &g->figs[i];
	*out = (carc_figure_info){ f->seat, f->kind, f->n, f->node != CARC_NONE, 0, 0, 0, 0 };
	if (f->node != CARC_NONE) {
		const carc_cell *c = &g->cells[g->nodes[f->node].cell];
		out->x = c->x;
		out->y = c->y;
		out->port = (uint8_t)(f->at ? f->at : carc_board_first_port(g, f->node));
		out->fkind = g->nodes[f->node].kind;
	}
	return 1;
}

int carc_figure_find(const carc_game *g, int seat, int kind, int n)
{
	if (seat < 0 || seat >= g->nseats) return -1;
	for (int i = seat * CARC_FIGS_PER_SEAT; i < (seat + 1) * CARC_FIGS_PER_SEAT; i++)
		if (g->figs[i].used && g->figs[i].kind == kind && g->figs[i].n == n) return i;
	return -1;
}

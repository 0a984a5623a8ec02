/*
 * oracle_ext.c - the naive second model of scoring with the expansions
 * (see oracle_ext.h).  Each rule is written as RULES.md states it; the
 * section or table row is named beside it.
 */
#include <check.h>
#include <string.h>

#include "oracle.h"
#include "oracle_ext.h"
#include "testutil.h"
#include "tiles_int.h"

static const int ddx[4] = { 0, 1, 0, -1 }, ddy[4] = { -1, 0, 1, 0 };

void ore_init(ore *o, const carc_config *cfg)
{
	memset(o, 0, sizeof *o);
	uint32_t comp = cfg->components_given ? cfg->components : carc_default_components(cfg->expansions);
	o->nseats = cfg->nseats;
	o->farmers = cfg->rules[CARC_R_FARMERS];
	o->farm_rule = cfg->rules[CARC_R_FARM_SCORING];
	o->tiny_rule = cfg->rules[CARC_R_TINY_CITY];
	o->hill_rule = cfg->rules[CARC_R_HILL_TIEBREAK];
	o->gq11_herd = cfg->rules[CARC_R_GQ11_PIG_HERD] == 0; /* "pig" */
	o->goods_on = comp >> CARC_C_GOODS & 1;
	o->king_on = comp >> CARC_C_KING & 1;
	o->robber_on = comp >> CARC_C_ROBBER & 1;
	o->mini = carc_expansion_find("mini");
	/* RULES.md 2.3: "The inn, pig herd and volcano only do anything if
	 * I&C, T&B and P&D are in play"; so with cathedrals, sieges, cult
	 * places, hills and vineyards and their expansions */
#define IN_PLAY(name) (cfg->expansions >> carc_expansion_find(name) & 1)
	if (IN_PLAY("inns-cathedrals")) o->flags_on |= CARC_TF_INN | CARC_TF_CATHEDRAL;
	if (IN_PLAY("traders-builders")) o->flags_on |= CARC_TF_PIGHERD;
	if (IN_PLAY("cathars")) o->flags_on |= CARC_TF_BESIEGED;
	if (IN_PLAY("cult")) o->flags_on |= CARC_TF_SHRINE;
	o->vineyards_on = o->hills_on = IN_PLAY("hills-sheep");
#undef IN_PLAY
	o->wagon_rule = cfg->rules[CARC_R_WAGON_MOVE];          /* 0 connected, 1 adjacent-tiles */
	o->escape_rule = cfg->rules[CARC_R_ESCAPE];             /* 0 each-city, 1 one-per-turn */
	o->escape_any_tile = cfg->rules[CARC_R_ESCAPE_CLOISTER] == 1;
	o->barn_rule = cfg->rules[CARC_R_BARN_PLACEMENT];       /* 0 no-second-barn, 1 second-barn-ok */
	o->barns_on = comp >> CARC_C_BARN & 1;
	o->king = o->robber = -1;
	for (int i = 0; i < ORE_MAX_FIGS; i++) o->fig_seg[i] = -1;
	for (int s = 0; s < CARC_MAX_SEATS; s++) o->shepherd[s] = -1;
}

int ore_cell_at(const ore *o, int x, int y)
{
	x += ORE_SPAN / 2;
	y += ORE_SPAN / 2;
	if (x < 0 || y < 0 || x >= ORE_SPAN || y >= ORE_SPAN) return -1;
	return o->grid[y][x] - 1;
}

int ore_port_seg(const ore *o, int cell, int port)
{
	/* a barn's corner: the field at the first half-edge that meets there
	 * (NW: NL, NE: NR, SE: ER, SW: SR) */
	static const int corner_half[4] = { CARC_NL, CARC_NR, CARC_ER, CARC_SR };
	if (port >= CARC_P_NW && port <= CARC_P_SW) port = corner_half[port - CARC_P_NW];
	const ore_cell *c = &o->cells[cell];
	int f = orc_tile_feature(c->type, c->rot, port);
	return f < 0 ? -1 : c->seg0 + f;
}

int ore_root(ore *o, int s)
{
	while (o->segs[s].parent != s) {
		o->segs[s].parent = o->segs[o->segs[s].parent].parent;
		s = o->segs[s].parent;
	}
	return s;
}

/* Joins two features: the older root stays root, and the two rings of
 * members become one. */
static void join(ore *o, int a, int b)
{
	a = ore_root(o, a);
	b = ore_root(o, b);
	if (a == b) return;
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	o->segs[b].parent = a;
	int t = o->segs[a].next;
	o->segs[a].next = o->segs[b].next;
	o->segs[b].next = t;
}

static const carc_tfeat *feat_of(const ore *o, int seg)
{
	return &carc_tiletypes[o->cells[o->segs[seg].cell].type].f[o->segs[seg].feat];
}

int ore_is_shrine(const ore *o, int seg) { return (feat_of(o, seg)->flags & CARC_TF_SHRINE) != 0; }
int ore_shrines_on(const ore *o) { return (o->flags_on & CARC_TF_SHRINE) != 0; }

int ore_tiles(ore *o, int root, int *pennants, unsigned *flags)
{
	static uint32_t seen[CARC_MAX_TILES], stamp;
	int tiles = 0, pen = 0;
	unsigned fl = 0;
	stamp++;
	int s = root;
	do {
		const carc_tfeat *f = feat_of(o, s);
		pen += f->pennants;
		fl |= f->flags;
		if (seen[o->segs[s].cell] != stamp) {
			seen[o->segs[s].cell] = stamp;
			tiles++;
		}
		s = o->segs[s].next;
	} while (s != root);
	if (pennants) *pennants = pen;
	if (flags) *flags = fl & o->flags_on;
	return tiles;
}

/* Placed tiles among the eight around a cell. */
static int around(const ore *o, int cell)
{
	int n = 0;
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++)
			n += (dx || dy) && ore_cell_at(o, o->cells[cell].x + dx, o->cells[cell].y + dy) >= 0;
	return n;
}

/* Tiles with a vineyard among the eight around a cell (RULES.md row 21). */
static int vineyards(const ore *o, int cell)
{
	int n = 0;
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			int c = ore_cell_at(o, o->cells[cell].x + dx, o->cells[cell].y + dy);
			n += (dx || dy) && c >= 0 && (carc_tiletypes[o->cells[c].type].symbols & CARC_SYM_VINEYARD);
		}
	return n;
}

/* A road or city is complete when every edge of every segment has a
 * neighbour: a matching tile, or the abbey's walls (RULES.md 1.1, 2.9);
 * a city's edges are also those it reaches beside another city (multi). */
static int closed(ore *o, int root)
{
	int s = root;
	do {
		const ore_cell *c = &o->cells[o->segs[s].cell];
		unsigned edges = feat_of(o, s)->edges | feat_of(o, s)->multi;
		for (int q = 0; q < 4; q++)
			if ((edges >> q & 1) && ore_cell_at(o, c->x + ddx[(q + c->rot) & 3], c->y + ddy[(q + c->rot) & 3]) < 0)
				return 0;
		s = o->segs[s].next;
	} while (s != root);
	return 1;
}

static void mark_done(ore *o, int root, int *completed, int *ncompleted)
{
	if (o->done[root]) return;
	o->done[root] = 1;
	completed[(*ncompleted)++] = root;
}

int ore_place(ore *o, int type, int x, int y, int rot, int *completed, int *ncompleted)
{
	const carc_tiletype *t = &carc_tiletypes[type];
	*ncompleted = 0;
	TU_LT(o->ncells, CARC_MAX_TILES);
	TU_ASSERT_MSG(x > -ORE_SPAN / 2 + 1 && y > -ORE_SPAN / 2 + 1 && x < ORE_SPAN / 2 - 1 && y < ORE_SPAN / 2 - 1,
	              "oracle: (%d,%d) is off its grid", x, y);
	TU_ASSERT_MSG(ore_cell_at(o, x, y) < 0, "oracle: (%d,%d) is taken", x, y);
	int c = o->ncells++;
	o->cells[c] = (ore_cell){ type, x, y, rot, o->nsegs, t->nfeat };
	o->grid[y + ORE_SPAN / 2][x + ORE_SPAN / 2] = (int16_t)(c + 1);
	for (int i = 0; i < t->nfeat; i++) {
		TU_LT(o->nsegs, CARC_MAX_NODES);
		o->segs[o->nsegs] = (ore_seg){ o->nsegs, o->nsegs, c, i, t->f[i].kind };
		o->done[o->nsegs] = 0;
		o->nsegs++;
	}
	for (int d = 0; d < 4; d++) {
		int n = ore_cell_at(o, x + ddx[d], y + ddy[d]), od = (d + 2) & 3;
		if (n < 0) continue;
		int a = ore_port_seg(o, c, d), b = ore_port_seg(o, n, od);
		if (a >= 0 && b >= 0) {
			TU_ASSERT_MSG(o->segs[a].kind == o->segs[b].kind, "oracle: %s meets %s at (%d,%d) side %d",
			              carc_fkind_name(o->segs[a].kind), carc_fkind_name(o->segs[b].kind), x, y, d);
			join(o, a, b);
		}
		/* a city that reaches a side beside the city of that side (multi)
		 * joins the city across it too, on either tile */
		for (int i = 0; i < t->nfeat; i++)
			if ((t->f[i].multi >> ((d - rot + 4) & 3) & 1) && b >= 0) join(o, o->cells[c].seg0 + i, b);
		const ore_cell *nc = &o->cells[n];
		const carc_tiletype *nt = &carc_tiletypes[nc->type];
		for (int i = 0; i < nt->nfeat; i++)
			if ((nt->f[i].multi >> ((od - nc->rot + 4) & 3) & 1) && a >= 0) join(o, nc->seg0 + i, a);
		/* my left half of side d meets the neighbour's right half of its side */
		for (int h = 0; h < 2; h++) {
			a = ore_port_seg(o, c, 4 + 2 * d + h);
			b = ore_port_seg(o, n, 4 + 2 * od + 1 - h);
			if (a >= 0 && b >= 0) join(o, a, b);
		}
	}
	/* roads and cities of this tile and of the four around it (the
	 * abbey closes its neighbours' features without joining them) */
	for (int d = -1; d < 4; d++) {
		int n = d < 0 ? c : ore_cell_at(o, x + ddx[d], y + ddy[d]);
		if (n < 0) continue;
		for (int i = 0; i < o->cells[n].nfeat; i++) {
			int s = o->cells[n].seg0 + i, k = o->segs[s].kind, r = ore_root(o, s);
			if ((k == CARC_F_ROAD || k == CARC_F_CITY) && !o->done[r] && closed(o, r))
				mark_done(o, r, completed, ncompleted);
		}
	}
	/* cloisters, abbeys and cult places with all eight places around them filled */
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			int n = ore_cell_at(o, x + dx, y + dy);
			if (n < 0 || around(o, n) != 8) continue;
			int s = ore_port_seg(o, n, CARC_P_CLOISTER);
			if (s >= 0) mark_done(o, ore_root(o, s), completed, ncompleted);
		}
	return c;
}

/* ---- figures ---------------------------------------------------------------- */

int ore_is_follower(int k)
{
	return k == CARC_FIG_FOLLOWER || k == CARC_FIG_LARGE || k == CARC_FIG_WAGON || k == CARC_FIG_MAYOR;
}

void ore_deploy(ore *o, int fig, int seat, int kind, int seg)
{
	TU_GE(fig, 0);
	TU_LT(fig, ORE_MAX_FIGS);
	TU_ASSERT_MSG(o->fig_seg[fig] < 0, "oracle: figure %d deployed twice", fig);
	o->fig_seg[fig] = seg;
	o->fig_seat[fig] = seat;
	o->fig_kind[fig] = kind;
	if (fig >= o->nfigs) o->nfigs = fig + 1;
	if (kind == CARC_FIG_SHEPHERD) o->shepherd[seat] = fig;
	o->nbarns += kind == CARC_FIG_BARN;
}

void ore_return(ore *o, int fig)
{
	TU_GE(fig, 0);
	TU_LT(fig, ORE_MAX_FIGS);
	TU_ASSERT_MSG(o->fig_seg[fig] >= 0, "oracle: figure %d returned but not on the board", fig);
	o->fig_seg[fig] = -1;
	if (o->fig_kind[fig] == CARC_FIG_SHEPHERD) o->shepherd[o->fig_seat[fig]] = -1;
	o->nbarns -= o->fig_kind[fig] == CARC_FIG_BARN;
}

static int in_roots(ore *o, int seg, const int *roots, int nroots)
{
	int r = ore_root(o, seg);
	for (int i = 0; i < nroots; i++)
		if (roots[i] == r) return 1;
	return 0;
}

int ore_has_followers(ore *o, int root)
{
	for (int f = 0; f < o->nfigs; f++)
		if (o->fig_seg[f] >= 0 && ore_is_follower(o->fig_kind[f]) && ore_root(o, o->fig_seg[f]) == root) return 1;
	return 0;
}

/* Strength of each seat in the features `roots` together (RULES.md 1.1,
 * rows 29-31): a follower 1, a large follower 2, a wagon 1, a mayor the
 * pennants of its whole city; builders, pigs, barns and shepherds none. */
static void strengths(ore *o, const int *roots, int nroots, int str[CARC_MAX_SEATS])
{
	memset(str, 0, sizeof(int) * CARC_MAX_SEATS);
	for (int f = 0; f < o->nfigs; f++) {
		if (o->fig_seg[f] < 0 || !ore_is_follower(o->fig_kind[f]) || !in_roots(o, o->fig_seg[f], roots, nroots))
			continue;
		int k = o->fig_kind[f], pennants = 0;
		if (k == CARC_FIG_MAYOR) ore_tiles(o, ore_root(o, o->fig_seg[f]), &pennants, NULL);
		str[o->fig_seat[f]] += k == CARC_FIG_LARGE ? 2 : k == CARC_FIG_MAYOR ? pennants : 1;
	}
}

/* The seats that win (bit s): the most strength, all tied players alike;
 * 0 strength wins nothing.  Hills (row 23): among tied players, the only
 * one with a follower on a hill tile in the feature wins alone; if several
 * or none have one, all tied score (hill_tiebreak at-least-one); or the
 * most followers on hills win (count).  Without hill tiles on the board
 * the tie-break never changes anything, so it is always asked. */
static unsigned winners(ore *o, const int *roots, int nroots, const int str[CARC_MAX_SEATS])
{
	int top = 0;
	unsigned tied = 0;
	for (int s = 0; s < o->nseats; s++)
		if (str[s] > top) top = str[s];
	for (int s = 0; top && s < o->nseats; s++)
		if (str[s] == top) tied |= 1u << s;
	if (!(tied & (tied - 1)) || !o->hills_on) return tied;
	int hills[CARC_MAX_SEATS] = { 0 }, best = 0;
	unsigned with = 0;
	for (int f = 0; f < o->nfigs; f++) {
		int s = o->fig_seg[f];
		if (s < 0 || !ore_is_follower(o->fig_kind[f]) || !(tied >> o->fig_seat[f] & 1)) continue;
		if (!in_roots(o, s, roots, nroots)) continue;
		if (carc_tiletypes[o->cells[o->segs[s].cell].type].symbols & CARC_SYM_HILL) hills[o->fig_seat[f]]++;
	}
	unsigned win = tied;
	if (o->hill_rule == 0) {
		for (int s = 0; s < o->nseats; s++)
			if (hills[s]) with |= 1u << s;
		if (with && !(with & (with - 1))) win = with;
	} else {
		for (int s = 0; s < o->nseats; s++)
			if (hills[s] > best) best = hills[s];
		for (int s = 0; best && s < o->nseats; s++)
			if (hills[s] == best) with |= 1u << s;
		if (best) win = with;
	}
	o->hill_ties++;
	o->hill_breaks += win != tied;
	return win;
}

static void add_pay(ore_pay *pay, int *npay, int seat, int sc, int points, int root)
{
	if (points <= 0) return; /* nothing is paid, no event */
	TU_LT(*npay, ORE_MAX_PAY);
	pay[(*npay)++] = (ore_pay){ seat, sc, points, root };
}

static int sc_of(int kind)
{
	return kind == CARC_F_ROAD ? CARC_SC_ROAD : kind == CARC_F_CITY ? CARC_SC_CITY : CARC_SC_CLOISTER;
}

/* Points of a road, city or cloister-type building (RULES.md rows 1-9, 21):
 * completed in play or (final) incomplete at the end. */
static int feature_points(ore *o, int root, int final)
{
	int pennants;
	unsigned flags;
	int t = ore_tiles(o, root, &pennants, &flags);
	int inn = (flags & CARC_TF_INN) != 0, cathedral = (flags & CARC_TF_CATHEDRAL) != 0;
	int besieged = (flags & CARC_TF_BESIEGED) != 0;
	switch (o->segs[root].kind) {
	case CARC_F_ROAD:
		if (final) return inn ? 0 : t;     /* row 2: an inn road is 0 when incomplete */
		return inn ? 2 * t : t;            /* rows 1-2 */
	case CARC_F_CITY:
		if (final) return cathedral || besieged ? 0 : t + pennants; /* rows 3-6 */
		if (besieged) return (cathedral ? 2 : 1) * (t + pennants);  /* row 6 */
		if (cathedral) return 3 * (t + pennants);                   /* row 4 */
		if (t == 2 && o->tiny_rule == CARC_TINY_2_PER_TILE_1) return t + pennants; /* row 3 */
		return 2 * (t + pennants);
	case CARC_F_CLOISTER:
		if (final) return 1 + around(o, o->segs[root].cell);      /* rows 7-9, no vineyards */
		return 9 + (o->vineyards_on ? 3 * vineyards(o, o->segs[root].cell) : 0); /* rows 7-9, 21 */
	default: ck_abort_msg("oracle: points of a %s", carc_fkind_name(o->segs[root].kind));
	}
	return 0;
}

static void pay_feature(ore *o, int root, int final, ore_pay *pay, int *npay)
{
	int str[CARC_MAX_SEATS];
	strengths(o, &root, 1, str);
	unsigned win = winners(o, &root, 1, str);
	if (!win) return;
	int points = feature_points(o, root, final);
	for (int s = 0; s < o->nseats; s++)
		if (win >> s & 1) add_pay(pay, npay, s, sc_of(o->segs[root].kind), points, root);
}

void ore_pay_completed(ore *o, int root, ore_pay *pay, int *npay) { pay_feature(o, root, 0, pay, npay); }

/* ---- tokens -------------------------------------------------------------------- */

void ore_completed_tokens(ore *o, int root, int seat)
{
	int kind = o->segs[root].kind;
	if (kind != CARC_F_ROAD && kind != CARC_F_CITY) return;
	int t = ore_tiles(o, root, NULL, NULL);
	/* rows 18-19: a city (road) larger than every one completed before
	 * takes the king (robber) for the player who completed it; a tie keeps it */
	if (kind == CARC_F_CITY && t > o->king_best) {
		o->king_best = t;
		if (o->king_on) o->king = seat;
	}
	if (kind == CARC_F_ROAD && t > o->robber_best) {
		o->robber_best = t;
		if (o->robber_on) o->robber = seat;
	}
	/* row 17: whoever completes a city takes one token per goods symbol in it */
	if (kind == CARC_F_CITY && o->goods_on) {
		int s = root;
		do {
			int goods = feat_of(o, s)->goods;
			if (goods) o->tokens[seat][goods - CARC_GOODS_WINE]++;
			s = o->segs[s].next;
		} while (s != root);
	}
}

/* ---- farms ----------------------------------------------------------------------- */

/* The distinct completed cities (roots) a farm borders, through the
 * `borders` of every field segment in it (RULES.md 4.1-4.2). */
static int farm_cities(ore *o, int farm, int *cities, int cap)
{
	int n = 0, s = farm;
	do {
		const ore_cell *c = &o->cells[o->segs[s].cell];
		unsigned b = feat_of(o, s)->borders;
		for (int i = 0; i < 16; i++) {
			if (!(b >> i & 1)) continue;
			int city = ore_root(o, c->seg0 + i), k;
			if (!o->done[city]) continue;
			for (k = 0; k < n && cities[k] != city; k++) {}
			if (k == n) {
				TU_LT(n, cap);
				cities[n++] = city;
			}
		}
		s = o->segs[s].next;
	} while (s != farm);
	return n;
}

/* A besieged city counts twice for farms and barns (rows 6, 11). */
static int city_weight(ore *o, int city)
{
	unsigned flags;
	ore_tiles(o, city, NULL, &flags);
	return flags & CARC_TF_BESIEGED ? 2 : 1;
}

static int farm_worth(ore *o, int farm)
{
	int cities[256], n = farm_cities(o, farm, cities, 256), w = 0;
	for (int i = 0; i < n; i++) w += city_weight(o, cities[i]);
	return w;
}

/* Row 12: the seat's pig stands in the farm. */
static int pig_in(ore *o, int seat, int farm)
{
	for (int f = 0; f < o->nfigs; f++)
		if (o->fig_seg[f] >= 0 && o->fig_kind[f] == CARC_FIG_PIG && o->fig_seat[f] == seat &&
		    ore_root(o, o->fig_seg[f]) == farm)
			return 1;
	return 0;
}

/* Row 13: the pig herds in the farm (the mini expansion's only under
 * gq11_pig_herd pig), each adding 1 a city: the row sets no cap. */
static int herds_in(ore *o, int farm)
{
	int s = farm, n = 0;
	do {
		const ore_cell *c = &o->cells[o->segs[s].cell];
		if ((feat_of(o, s)->flags & o->flags_on & CARC_TF_PIGHERD) && (carc_tile_expansion(c->type) != o->mini || o->gq11_herd))
			n++;
		s = o->segs[s].next;
	} while (s != farm);
	return n;
}

int ore_farm_has_barn(ore *o, int farm)
{
	if (!o->nbarns) return 0;
	for (int f = 0; f < o->nfigs; f++)
		if (o->fig_seg[f] >= 0 && o->fig_kind[f] == CARC_FIG_BARN && ore_root(o, o->fig_seg[f]) == farm) return 1;
	return 0;
}

/* One farm, per farm: the farmer majority scores (per + pig + herds) for
 * each completed city, a besieged city twice (rows 10a, 11-16). */
static void pay_farm(ore *o, int farm, int per, int sc, ore_pay *pay, int *npay)
{
	int str[CARC_MAX_SEATS];
	strengths(o, &farm, 1, str);
	unsigned win = winners(o, &farm, 1, str);
	if (!win) return;
	int worth = farm_worth(o, farm), herds = herds_in(o, farm);
	for (int s = 0; s < o->nseats; s++)
		if (win >> s & 1) add_pay(pay, npay, s, sc, (per + pig_in(o, s, farm) + herds) * worth, farm);
}

void ore_pay_farm_now(ore *o, int farm, int per_city, ore_pay *pay, int *npay)
{
	pay_farm(o, farm, per_city, CARC_SC_FIELD, pay, npay);
}

/* ---- Hills & Sheep: flocks ------------------------------------------------------------ */

int ore_shepherd(const ore *o, int seat) { return o->shepherd[seat]; }

/* RULES.md row 22: a closed farm is "one that can no longer be extended":
 * every half-edge of every field segment in it faces a placed tile (or
 * an abbey, whose walls bound fields). */
int ore_farm_closed(ore *o, int farm)
{
	int s = farm;
	do {
		const ore_cell *c = &o->cells[o->segs[s].cell];
		unsigned halves = feat_of(o, s)->halves;
		for (int h = 0; h < 8; h++) {
			if (!(halves >> h & 1)) continue;
			int d = (h / 2 + c->rot) & 3; /* the board side of unturned half-edge h */
			if (ore_cell_at(o, c->x + ddx[d], c->y + ddy[d]) < 0) return 0;
		}
		s = o->segs[s].next;
	} while (s != farm);
	return 1;
}

int ore_flock_sheep(ore *o, int farm)
{
	int n = 0;
	for (int f = 0; f < o->nfigs; f++)
		if (o->fig_seg[f] >= 0 && o->fig_kind[f] == CARC_FIG_SHEPHERD && ore_root(o, o->fig_seg[f]) == farm)
			for (int v = 1; v < CARC_WOLF; v++) n += v * o->sheep[f][v];
	return n;
}

/* Row 22: "the shepherd's owner scores 1 per sheep on all sheep tokens of
 * all shepherds in that farm.  Every shepherd owner in the farm scores
 * that total." */
void ore_pay_flock(ore *o, int farm, ore_pay *pay, int *npay)
{
	int total = ore_flock_sheep(o, farm);
	for (int s = 0; s < o->nseats; s++) {
		int f = ore_shepherd(o, s);
		if (f >= 0 && ore_root(o, o->fig_seg[f]) == farm) add_pay(pay, npay, s, CARC_SC_FLOCK, total, farm);
	}
}

/* ---- decisions: wagons, escapes, barns ------------------------------------------------ */

static int wagon_can_stand(ore *o, int seg)
{
	int k = o->segs[seg].kind, r = ore_root(o, seg);
	return (k == CARC_F_ROAD || k == CARC_F_CITY || k == CARC_F_CLOISTER) && !o->done[r] && !ore_has_followers(o, r);
}

static void add_root(int *roots, int *n, int cap, int r)
{
	for (int i = 0; i < *n; i++)
		if (roots[i] == r) return;
	TU_LT(*n, cap);
	roots[(*n)++] = r;
}

/* 2.9: the abbey "is a cloister in every way (monk/wagon ...)" and its
 * walls "end roads": a road ending at an abbey is a road ending at a
 * cloister, so C1 joins the two across their tiles.  From segment s: the
 * abbeys beside the edges of a road, the roads at the walls of an abbey. */
static void wagon_abbey(ore *o, int s, int *roots, int *n, int cap)
{
	const ore_cell *c = &o->cells[o->segs[s].cell];
	int abbey = carc_tile_traits[c->type].flags & CARC_TT_ABBEY;
	for (int q = 0; q < 4; q++) {
		int nb = ore_cell_at(o, c->x + ddx[q], c->y + ddy[q]), t = -1;
		if (nb < 0) continue;
		if (abbey && o->segs[s].kind == CARC_F_CLOISTER) t = ore_port_seg(o, nb, (q + 2) & 3);
		else if (o->segs[s].kind == CARC_F_ROAD && ore_port_seg(o, o->segs[s].cell, q) == s &&
		         (carc_tile_traits[o->cells[nb].type].flags & CARC_TT_ABBEY))
			t = ore_port_seg(o, nb, CARC_P_CLOISTER);
		if (t >= 0 && o->segs[t].kind == (abbey ? CARC_F_ROAD : CARC_F_CLOISTER) && wagon_can_stand(o, t))
			add_root(roots, n, cap, ore_root(o, t));
	}
}

int ore_wagon_targets(ore *o, int seg, int *roots, int cap)
{
	int n = 0;
	if (o->wagon_rule == 0) {
		/* C1 "connected": on each tile of the scored feature, the
		 * features the tile's wagon-move groups join to it (a road on
		 * through a junction, a road ending at a city gate or cloister),
		 * and abbeys and the roads ending at their walls */
		int root = ore_root(o, seg), s = root;
		do {
			const ore_cell *c = &o->cells[o->segs[s].cell];
			const carc_tiletype *t = &carc_tiletypes[c->type];
			unsigned groups = feat_of(o, s)->wagon;
			for (int j = 0; groups && j < t->nfeat; j++)
				if (j != o->segs[s].feat && (t->f[j].wagon & groups) && wagon_can_stand(o, c->seg0 + j))
					add_root(roots, &n, cap, ore_root(o, c->seg0 + j));
			wagon_abbey(o, s, roots, &n, cap);
			s = o->segs[s].next;
		} while (s != root);
	} else {
		/* C2 "adjacent": any feature on the wagon's tile or the eight around */
		const ore_cell *w = &o->cells[o->segs[seg].cell];
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++) {
				int cell = ore_cell_at(o, w->x + dx, w->y + dy);
				for (int j = 0; cell >= 0 && j < o->cells[cell].nfeat; j++)
					if (wagon_can_stand(o, o->cells[cell].seg0 + j))
						add_root(roots, &n, cap, ore_root(o, o->cells[cell].seg0 + j));
			}
	}
	return n;
}

/* A cloister, abbey or cult place among the eight tiles around a cell. */
static int building_near(const ore *o, int cell)
{
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			int n = ore_cell_at(o, o->cells[cell].x + dx, o->cells[cell].y + dy);
			if ((dx || dy) && n >= 0 && ore_port_seg(o, n, CARC_P_CLOISTER) >= 0) return 1;
		}
	return 0;
}

/* RULES.md 2.11: a follower (knight, mayor, wagon) may leave an incomplete
 * besieged city when a cloister-type building is next to (diagonals
 * too) a siege tile of it (escape_cloister siege-tile) or any tile of it
 * (any-tile). */
static int escapable_city(ore *o, int root)
{
	unsigned flags;
	ore_tiles(o, root, NULL, &flags);
	if (o->done[root] || !(flags & CARC_TF_BESIEGED)) return 0;
	int s = root;
	do {
		if ((o->escape_any_tile || (feat_of(o, s)->flags & CARC_TF_BESIEGED)) && building_near(o, o->segs[s].cell))
			return 1;
		s = o->segs[s].next;
	} while (s != root);
	return 0;
}

int ore_escapable(ore *o, int seat, const int *skip, int nskip, int *figs, int cap)
{
	int n = 0;
	if (!(o->flags_on & CARC_TF_BESIEGED)) return 0; /* no siege tiles count */
	for (int f = 0; f < o->nfigs; f++) {
		int s = o->fig_seg[f];
		if (s < 0 || o->fig_seat[f] != seat || !ore_is_follower(o->fig_kind[f]) || o->segs[s].kind != CARC_F_CITY)
			continue;
		int r = ore_root(o, s), k;
		for (k = 0; k < nskip && ore_root(o, skip[k]) != r; k++) {}
		if (k < nskip || !escapable_city(o, r)) continue;
		TU_LT(n, cap);
		figs[n++] = f;
	}
	return n;
}

/* Is a tile's corner (board corner k: NW NE SE SW) field, that is are
 * both half-edges that meet there field?  Their segments to a[0..1]. */
static int corner_is_field(const ore *o, int cell, int k, int *a)
{
	static const int halves[4][2] = { { CARC_NL, CARC_WR }, { CARC_NR, CARC_EL }, { CARC_ER, CARC_SL }, { CARC_SR, CARC_WL } };
	for (int i = 0; i < 2; i++) {
		a[i] = ore_port_seg(o, cell, halves[k][i]);
		if (a[i] < 0 || o->segs[a[i]].kind != CARC_F_FIELD) return 0;
	}
	return 1;
}

unsigned ore_barn_corners(ore *o, int cell, int seat, unsigned *split)
{
	*split = 0;
	/* one barn a seat (2.14), and a barn never leaves the board; a game
	 * without farmers ("play without fields", section 6) has no farm for it */
	if (!o->barns_on || !o->farmers) return 0;
	for (int f = 0; f < o->nfigs; f++)
		if (o->fig_seg[f] >= 0 && o->fig_kind[f] == CARC_FIG_BARN && o->fig_seat[f] == seat) return 0;
	static const int cx[4] = { -1, 1, 1, -1 }, cy[4] = { -1, -1, 1, 1 };
	unsigned ok = 0;
	const ore_cell *c = &o->cells[cell];
	for (int k = 0; k < 4; k++) {
		/* the four tiles that meet at the corner, each with one field in
		 * its own corner there (2.9: "where 4 tiles meet and all four
		 * corners are field", the barn standing in a field; 4.9: "all
		 * four quarter-corners are field"): a corner two fields of a tile
		 * share (AM/C!+, IC/C!) has a wall running into it.  The four
		 * fields touch two by two along the sides, so they are one farm. */
		int all = 1, two = 0, farm = -1;
		for (int ay = 0; ay < 2 && all; ay++)
			for (int ax = 0; ax < 2 && all; ax++) {
				int n = ore_cell_at(o, c->x + ax * cx[k], c->y + ay * cy[k]), seg[2];
				int ox = ax ? -cx[k] : cx[k], oy = ay ? -cy[k] : cy[k], kk;
				for (kk = 0; cx[kk] != ox || cy[kk] != oy; kk++) {}
				all = n >= 0 && corner_is_field(o, n, kk, seg);
				if (all && seg[0] != seg[1]) {
					two = 1;
					all = 0;
				}
				if (all && farm < 0) farm = ore_root(o, seg[0]);
				TU_ASSERT(!all || ore_root(o, seg[0]) == farm);
			}
		if (!all) {
			*split |= (unsigned)two << k;
			continue;
		}
		/* "Not allowed in a farm that already has a barn" (barn_placement
		 * no-second-barn; second-barn-ok allows it) */
		if (o->barn_rule == 0 && ore_farm_has_barn(o, farm)) continue;
		ok |= 1u << k;
	}
	return ok;
}

/* ---- final scoring ----------------------------------------------------------------- */

#define MAX_FARMS 128
#define MAX_FARM_CITIES 256

void ore_final(ore *o, ore_pay *pay, int *npay)
{
	static int roots[ORE_MAX_FIGS], farms[MAX_FARMS], fcities[MAX_FARMS][MAX_FARM_CITIES], nfc[MAX_FARMS];
	int nroots = 0, nfarms = 0;
	*npay = 0;
	/* every feature that holds a follower, once (2.1 End) */
	for (int f = 0; f < o->nfigs; f++) {
		if (o->fig_seg[f] < 0 || !ore_is_follower(o->fig_kind[f])) continue;
		int r = ore_root(o, o->fig_seg[f]), k;
		for (k = 0; k < nroots && roots[k] != r; k++) {}
		if (k == nroots) roots[nroots++] = r;
	}
	for (int k = 0; k < nroots; k++) {
		int r = roots[k];
		if (o->segs[r].kind == CARC_F_FIELD) {
			TU_LT(nfarms, MAX_FARMS);
			farms[nfarms++] = r;
			continue;
		}
		TU_ASSERT_MSG(!o->done[r], "oracle: a follower stands in a completed %s at the end",
		              carc_fkind_name(o->segs[r].kind));
		pay_feature(o, r, 1, pay, npay);
	}
	if (o->farmers) {
		if (o->farm_rule != CARC_FARM_PER_CITY_4) {
			int per = o->farm_rule == CARC_FARM_PER_FARM_3 ? 3 : 4;
			for (int k = 0; k < nfarms; k++) pay_farm(o, farms[k], per, CARC_SC_FIELD, pay, npay);
		} else {
			/* row 10c: each completed city that a farm with farmers
			 * touches, once, to the majority of the farmers of all those
			 * farms together; 4 a city (+ the pig and herd below), twice
			 * if besieged */
			for (int k = 0; k < nfarms; k++) nfc[k] = farm_cities(o, farms[k], fcities[k], MAX_FARM_CITIES);
			static int cities[MAX_FARMS * 8];
			int ncities = 0;
			for (int k = 0; k < nfarms; k++)
				for (int j = 0; j < nfc[k]; j++) {
					int m;
					for (m = 0; m < ncities && cities[m] != fcities[k][j]; m++) {}
					if (m == ncities) {
						TU_LT(ncities, MAX_FARMS * 8);
						cities[ncities++] = fcities[k][j];
					}
				}
			for (int m = 0; m < ncities; m++) {
				int city = cities[m], touching[MAX_FARMS], nt = 0, str[CARC_MAX_SEATS];
				for (int k = 0; k < nfarms; k++)
					for (int j = 0; j < nfc[k]; j++)
						if (fcities[k][j] == city) touching[nt++] = farms[k];
				strengths(o, touching, nt, str);
				unsigned win = winners(o, touching, nt, str);
				/* rows 12, 13 read for 10c: a winner's own pig and each pig
				 * herd add 1, once a city, from a touching farm in which
				 * the winner has a farmer (the winner "scores that farm");
				 * a herd where the winner has none adds nothing */
				int w = city_weight(o, city);
				for (int s = 0; s < o->nseats; s++) {
					if (!(win >> s & 1)) continue;
					int pig = 0, herd = 0, own[CARC_MAX_SEATS];
					for (int k = 0; k < nt; k++) {
						strengths(o, &touching[k], 1, own);
						if (!own[s]) continue;
						pig |= pig_in(o, s, touching[k]);
						herd += herds_in(o, touching[k]);
					}
					add_pay(pay, npay, s, CARC_SC_FIELD, (4 + pig + herd) * w, city);
				}
			}
		}
	}
	/* row 15: every barn owner in a farm scores 4 a completed city (no pig) */
	int barn_farms[ORE_MAX_FIGS], nbf = 0;
	for (int f = 0; f < o->nfigs; f++) {
		if (o->fig_seg[f] < 0 || o->fig_kind[f] != CARC_FIG_BARN) continue;
		int r = ore_root(o, o->fig_seg[f]), k;
		for (k = 0; k < nbf && barn_farms[k] != r; k++) {}
		if (k < nbf) continue;
		barn_farms[nbf++] = r;
		int owner[CARC_MAX_SEATS] = { 0 };
		for (int b = 0; b < o->nfigs; b++)
			if (o->fig_seg[b] >= 0 && o->fig_kind[b] == CARC_FIG_BARN && ore_root(o, o->fig_seg[b]) == r)
				owner[o->fig_seat[b]] = 1;
		int worth = farm_worth(o, r);
		for (int s = 0; s < o->nseats; s++)
			if (owner[s]) add_pay(pay, npay, s, CARC_SC_BARN, 4 * worth, r);
	}
	/* row 17: the most tokens of each kind score 10, ties each, at least
	 * 1; one payment a seat, its majorities summed (PROTOCOL.md 6) */
	if (o->goods_on)
		for (int s = 0; s < o->nseats; s++) {
			int points = 0;
			for (int t = 0; t < 3; t++) {
				int top = 0;
				for (int k = 0; k < o->nseats; k++)
					if (o->tokens[k][t] > top) top = o->tokens[k][t];
				if (top && o->tokens[s][t] == top) points += 10;
			}
			if (points) add_pay(pay, npay, s, CARC_SC_TRADE, points, -1);
		}
	/* rows 18-19: the king's holder 1 per completed city, the robber's 1
	 * per completed road, whoever owns them */
	int cities = 0, roads = 0;
	for (int s = 0; s < o->nsegs; s++) {
		if (ore_root(o, s) != s || !o->done[s]) continue;
		cities += o->segs[s].kind == CARC_F_CITY;
		roads += o->segs[s].kind == CARC_F_ROAD;
	}
	if (o->king >= 0) add_pay(pay, npay, o->king, CARC_SC_KING, cities, -1);
	if (o->robber >= 0) add_pay(pay, npay, o->robber, CARC_SC_ROBBER, roads, -1);
}

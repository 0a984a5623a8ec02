/*
 * score.c - majorities and points: completed features during play, and
 * incomplete features and farms at the end (RULES.md section 1).
 */
#include <string.h>

#include "ext_int.h"

/* Strength a figure adds to its feature's majority (RULES.md 1.1). */
static int strength(const carc_game *g, const carc_fig *f, int pennants)
{
	(void)g;
	switch (f->kind) {
	case CARC_FIG_FOLLOWER: case CARC_FIG_WAGON: return 1;
	case CARC_FIG_LARGE: return 2;
	case CARC_FIG_MAYOR: return pennants;
	default: return 0; /* builders, pigs, barns, shepherds never count */
	}
}

/* Strength of every seat in a feature; returns the top strength (0 when
 * nobody can win).  Only followers have strength, and the feature counts
 * them (nfig): the look stops at the last. */
static int majority(carc_game *g, int root, int pennants, int str[CARC_MAX_SEATS])
{
	memset(str, 0, sizeof(int) * CARC_MAX_SEATS);
	unsigned left = g->nodes[root].nfig, kind = g->nodes[root].kind;
	for (unsigned s = 0; left && s < g->nseats; s++)
		for (unsigned m = g->followers_in[s][kind]; left && m; m &= m - 1) {
			const carc_fig *f = &g->figs[s * CARC_FIGS_PER_SEAT + (unsigned)__builtin_ctz(m)];
			if (carc_feat_root(g, f->node) != root) continue;
			str[s] += strength(g, f, pennants);
			left--;
		}
	int top = 0;
	for (int s = 0; s < g->nseats; s++)
		if (str[s] > top) top = str[s];
	return top;
}

/* The seats that win features `roots` together (bit s): the most
 * strength, a tie broken by the expansions that break ties (hills). */
static unsigned winners_of(carc_game *g, const uint16_t *roots, int nroots, const int str[CARC_MAX_SEATS])
{
	unsigned tied = 0;
	int top = 0;
	for (int s = 0; s < g->nseats; s++)
		if (str[s] > top) top = str[s];
	for (int s = 0; top && s < g->nseats; s++)
		if (str[s] == top) tied |= 1u << s;
	if (tied & (tied - 1))
		CARC_EXT_EACH(g, CARC_HOOK_TIEBREAK, e)
			if (e->tiebreak) tied = e->tiebreak(g, roots, nroots, tied);
	return tied;
}

static unsigned winners(carc_game *g, int root, const int str[CARC_MAX_SEATS])
{
	uint16_t r = (uint16_t)root;
	return winners_of(g, &r, 1, str);
}

void carc_add_score(carc_game *g, int seat, int sc, int points, int node, int final, carc_sink *out)
{
	if (points <= 0) return;
	g->score[seat] += points;
	g->score_by[seat][sc] += points;
	carc_event *e = carc_emit(out, CARC_EV_SCORED);
	if (!e) return;
	e->seat = (int8_t)seat;
	e->points = points;
	e->fkind = (uint8_t)sc;
	e->final = (uint8_t)final;
	e->port = CARC_PORT_COUNT; /* no place: tokens, trade goods */
	if (node < 0) return;
	const carc_cell *c = &g->cells[g->nodes[node].cell];
	e->x = c->x;
	e->y = c->y;
	e->port = (uint8_t)carc_board_first_port(g, node);
}

static void pay_majority(carc_game *g, int root, int sc, int points, int pennants, int final, carc_sink *out)
{
	int str[CARC_MAX_SEATS];
	majority(g, root, pennants, str);
	unsigned win = winners(g, root, str);
	int where = win ? carc_feat_where(g, root, out) : 0;
	for (int s = 0; s < g->nseats; s++)
		if (win >> s & 1) carc_add_score(g, s, sc, points, where, final, out);
}

/* Every figure in the feature of `root` goes home, seat by seat, in slot
 * order.  Followers are looked at only while the feature counts some
 * (nfig), and only those in features of its kind (followers_in); the
 * other figures only when some stand in a feature of that kind
 * (nspecial), and only those (specials_in).  A seat's figures are taken
 * from one mask, so the order is the slot order. */
void carc_return_figures(carc_game *g, int root, carc_sink *out)
{
	int kind = g->nodes[root].kind, specials = g->nspecial[kind] != 0;
	for (unsigned s = 0; s < g->nseats; s++) {
		if (!g->nodes[root].nfig) {
			if (!specials) return;
			for (unsigned m = g->specials_in[s][kind]; m; m &= m - 1) {
				unsigned i = s * CARC_FIGS_PER_SEAT + (unsigned)__builtin_ctz(m);
				if (g->figs[i].node != CARC_NONE && carc_feat_root(g, g->figs[i].node) == root)
					carc_return_figure(g, (int)i, CARC_WHY_SCORED, out);
			}
			continue;
		}
		unsigned mine = g->followers_in[s][kind]; /* the seat's followers in features of this kind */
		for (unsigned m = specials ? g->specials_in[s][kind] | mine : mine; m; m &= m - 1) {
			unsigned i = s * CARC_FIGS_PER_SEAT + (unsigned)__builtin_ctz(m);
			if (g->figs[i].node == CARC_NONE || carc_feat_root(g, g->figs[i].node) != root) continue;
			carc_return_figure(g, (int)i, CARC_WHY_SCORED, out);
			if (g->nodes[root].nfig) continue;
			if (!specials) return;
			/* the seat's other figures are left (bit i has left followers_on:
			 * the loop's step clears it) */
			m &= ~g->followers_on[s];
		}
	}
}

/* Scores one road, city or cloister, complete (during play) or not (at
 * the end).  The caller returns the figures afterwards.  With no follower
 * in it nobody scores: its points are not even counted (feature_points
 * only reads the game). */
void carc_score_feature(carc_game *g, int root, int final, carc_sink *out)
{
	const carc_node *r = &g->nodes[root];
	if (!r->nfig) return;
	int pennants = 0, points = 0, sc;
	uint16_t flags = 0;
	int tiles = carc_feat_tiles(g, root, &pennants, &flags);
	switch (r->kind) {
	case CARC_F_ROAD:
		sc = CARC_SC_ROAD;
		points = tiles;
		break;
	case CARC_F_CITY:
		sc = CARC_SC_CITY;
		if (final) points = tiles + pennants;
		else if (tiles == 2 && g->cfg.rules[CARC_R_TINY_CITY] == CARC_TINY_2_PER_TILE_1) points = tiles + pennants;
		else points = 2 * tiles + 2 * pennants;
		break;
	case CARC_F_CLOISTER:
		sc = CARC_SC_CLOISTER;
		points = final ? 1 + g->cells[r->cell].nb : 9;
		break;
	default:
		return;
	}
	carc_feat_info fi = { r->kind, tiles, pennants, flags, final };
	/* the first expansion asked from a call site of its own, the others
	 * in a loop (game.c placed_hooks): a city asks two (inns, then the
	 * cathars), a road or a cloister one */
	unsigned see = g->hook_exts[__builtin_ctz(CARC_HOOK_POINTS)] & g->feature_exts[r->kind];
	if (see) {
		points = carc_exts[__builtin_ctz(see)]->feature_points(g, root, &fi, points);
		CARC_EXT_IN(see & (see - 1), e)
			points = e->feature_points(g, root, &fi, points);
	}
	pay_majority(g, root, sc, points, pennants, final, out);
}

/* ---- farms ---------------------------------------------------------------- */

#define MAX_FARMS CARC_MAX_FIGS /* one farm per farmer at most */
#define CITY_WORDS (CARC_MAX_NODES / 64) /* a bit a segment: any city root */

/* A farm and the completed cities it borders, as a set of their roots:
 * however many (a game's own tile order may repeat city tiles), each once
 * (RULES.md 4.1-4.2). */
typedef struct farm {
	int root;
	int str[CARC_MAX_SEATS];
	uint64_t cities[CITY_WORDS];
} farm;

/* The cities some farm borders, in the order farm_cities first met them:
 * the order the per-city scoring takes them in, so events are stable. */
typedef struct city_list {
	int n;
	uint64_t seen[CITY_WORDS];
	uint16_t city[CARC_MAX_NODES];
} city_list;

static inline int has_city(const uint64_t *set, int city) { return set[city >> 6] >> (city & 63) & 1; }
static inline void add_city(uint64_t *set, int city) { set[city >> 6] |= 1ull << (city & 63); }

/* Fills fm->cities; adds those new to `all` (if any) to it. */
static void farm_cities(carc_game *g, farm *fm, city_list *all)
{
	memset(fm->cities, 0, sizeof fm->cities);
	int n = fm->root;
	do {
		const carc_node *nd = &g->nodes[n];
		const carc_cell *c = &g->cells[nd->cell];
		unsigned b = carc_tiletypes[c->type].f[nd->feat].borders;
		while (b) {
			int i = __builtin_ctz(b);
			b &= b - 1;
			int city = carc_feat_root(g, c->node0 + i);
			if (!g->nodes[city].done || has_city(fm->cities, city)) continue;
			add_city(fm->cities, city);
			if (all && !has_city(all->seen, city)) {
				add_city(all->seen, city);
				all->city[all->n++] = (uint16_t)city;
			}
		}
		n = nd->next;
	} while (n != fm->root);
}

/* How many completed cities a completed city counts as for farms (2 for a
 * besieged one, RULES.md row 11). */
static int city_weight(const carc_game *g, int city)
{
	int w = 1;
	CARC_EXT_EACH(g, CARC_HOOK_CITY_WEIGHT, e)
		if (e->city_weight) w *= e->city_weight(g, city);
	return w;
}

/* Pigs and pig herds: how much more a city a seat that wins a farm
 * scores. */
static int farm_bonus(const carc_game *g, int root, int seat)
{
	int more = 0;
	CARC_EXT_EACH(g, CARC_HOOK_FARM_BONUS, e)
		if (e->farm_bonus) more += e->farm_bonus(g, root, seat);
	return more;
}

/* The completed cities of a gathered farm, each counted as many times as
 * it weighs (a besieged city twice). */
static int farm_worth(const carc_game *g, const farm *fm)
{
	int worth = 0;
	for (int w = 0; w < CITY_WORDS; w++)
		for (uint64_t m = fm->cities[w]; m; m &= m - 1) worth += city_weight(g, 64 * w + __builtin_ctzll(m));
	return worth;
}

static void score_farms(carc_game *g, carc_sink *out)
{
	static const int per_farm[] = { [CARC_FARM_PER_FARM_3] = 3, [CARC_FARM_PER_FARM_4] = 4 };
	farm farms[MAX_FARMS];
	city_list all;
	all.n = 0;
	memset(all.seen, 0, sizeof all.seen);
	int nfarms = 0;
	CARC_FIGS_IN(g, on_board, i) {
		const carc_fig *f = &g->figs[i];
		if (f->node == CARC_NONE || g->nodes[f->node].kind != CARC_F_FIELD) continue;
		int root = carc_feat_root(g, f->node), k;
		for (k = 0; k < nfarms && farms[k].root != root; k++) {}
		if (k == nfarms) {
			farms[nfarms].root = root;
			memset(farms[nfarms].str, 0, sizeof farms[nfarms].str);
			farm_cities(g, &farms[nfarms], &all);
			nfarms++;
		}
		farms[k].str[f->seat] += strength(g, f, 0); /* the farm's majority (as majority() counts it) */
	}
	int rule = g->cfg.rules[CARC_R_FARM_SCORING];
	if (rule != CARC_FARM_PER_CITY_4) {
		for (int k = 0; k < nfarms; k++) {
			int where = carc_feat_where(g, farms[k].root, out), worth = farm_worth(g, &farms[k]);
			unsigned win = winners(g, farms[k].root, farms[k].str);
			for (int s = 0; s < g->nseats; s++)
				if (win >> s & 1)
					carc_add_score(g, s, CARC_SC_FIELD, (per_farm[rule] + farm_bonus(g, farms[k].root, s)) * worth,
					               where, 1, out);
		}
		return;
	}
	/* First edition: each completed city once, 4 points to the majority of
	 * the farmers in all the farms that touch it, summed per player.  Cities
	 * are taken in the order the farms name them, so events are stable.
	 * Pigs and herds (rows 10c, 12, 13; RULES.md marks this meeting of
	 * the rules uncertain): a winner's own pig adds 1 and each pig herd
	 * adds 1, each once a city, when it lies in a farm touching the city in
	 * which the winner has a farmer, as row 13's "every player who scores
	 * that farm" reads when the city, not the farm, is what scores.  A herd
	 * in a farm without the winner's farmers adds nothing, whatever else
	 * stands there. */
	for (int j = 0; j < all.n; j++) {
		int city = all.city[j];
		int str[CARC_MAX_SEATS] = { 0 }, nroots = 0;
		int bonus[CARC_MAX_SEATS] = { 0 };
		uint16_t roots[MAX_FARMS];
		for (int q = 0; q < nfarms; q++)
			if (has_city(farms[q].cities, city)) {
				roots[nroots++] = (uint16_t)farms[q].root;
				for (int s = 0; s < g->nseats; s++) {
					str[s] += farms[q].str[s];
					/* pigs and herds count where the seat has farmers; the
					 * farms are distinct, so each pig or herd once a city */
					if (farms[q].str[s]) bonus[s] += farm_bonus(g, farms[q].root, s);
				}
			}
		unsigned win = winners_of(g, roots, nroots, str);
		int where = carc_feat_where(g, city, out);
		for (int s = 0; s < g->nseats; s++)
			if (win >> s & 1)
				carc_add_score(g, s, CARC_SC_FIELD, (4 + bonus[s]) * city_weight(g, city),
				               where, 1, out);
	}
}

/* A farm scored in play (a barn placed in it or joined to it, RULES.md
 * rows 14 and 16): the farmer majority scores `per_city` (plus its pigs)
 * for each completed city it borders, and every farmer goes home. */
void carc_score_farm_now(carc_game *g, int root, int per_city, carc_sink *out)
{
	farm fm = { .root = root };
	majority(g, root, 0, fm.str);
	farm_cities(g, &fm, NULL);
	unsigned win = winners(g, root, fm.str);
	int worth = farm_worth(g, &fm), where = carc_feat_where(g, root, out);
	for (int s = 0; s < g->nseats; s++)
		if (win >> s & 1)
			carc_add_score(g, s, CARC_SC_FIELD, (per_city + farm_bonus(g, root, s)) * worth, where, 0, out);
	for (unsigned s = 0; s < g->nseats; s++) /* farmers: followers in fields */
		for (unsigned m = g->followers_in[s][CARC_F_FIELD]; m; m &= m - 1) {
			unsigned i = s * CARC_FIGS_PER_SEAT + (unsigned)__builtin_ctz(m);
			if (g->figs[i].node != CARC_NONE && carc_feat_root(g, g->figs[i].node) == root)
				carc_return_figure(g, (int)i, CARC_WHY_BARN, out);
		}
}

int carc_farm_worth(carc_game *g, int root)
{
	farm fm = { .root = root };
	farm_cities(g, &fm, NULL);
	return farm_worth(g, &fm);
}

/* End of the game: every incomplete road, city and cloister that holds a
 * follower, each once, then the farms. */
void carc_score_final(carc_game *g, carc_sink *out)
{
	uint16_t seen[CARC_MAX_FIGS];
	int nseen = 0;
	CARC_FIGS_IN(g, on_board, i) {
		const carc_fig *f = &g->figs[i];
		if (f->node == CARC_NONE) continue;
		int root = carc_feat_root(g, f->node), k;
		if (g->nodes[root].done || g->nodes[root].kind == CARC_F_FIELD) continue;
		for (k = 0; k < nseen && seen[k] != root; k++) {}
		if (k < nseen) continue;
		seen[nseen++] = (uint16_t)root;
		carc_score_feature(g, root, 1, out);
	}
	if (g->cfg.rules[CARC_R_FARMERS]) score_farms(g, out);
}

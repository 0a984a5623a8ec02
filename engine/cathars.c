/*
 * cathars.c - Cathars / Siege (RULES.md 2.11, table rows 5, 6, 11; 4.15,
 * 4.21).
 *
 * A city with a siege tile in it scores 1 a tile and pennant when
 * complete (2 with a cathedral) and nothing at the end, and counts twice
 * for every farm it borders.  At the end of a turn the player on turn may
 * free followers from besieged cities that a cloister-type building stands
 * next to: next to a siege tile of that city (escape_cloister siege-tile)
 * or next to any of its tiles (any-tile); one from each such city
 * (escape each-city) or one in all (one-per-turn).
 */
#include "ext_int.h"

/* g->siege[] lists the besieged segments (CARC_TF_BESIEGED) on the board
 * while there are at most NSIEGE of them (nsiege counts them all; past
 * NSIEGE the walks over the city decide, as without the list), and bit i
 * of g->siege_near says that a cloister-type tile stands next to the tile
 * of siege[i].  Both are set in cathars_placed (tiles never leave the
 * board), so they are read only at the end of the turn and in the escape
 * phase, when every tile_placed hook has run.  Root walks for siege[i]
 * start from g->siege_root[i], a segment of the same city nearer its
 * root. */
#define NSIEGE ((int)(sizeof ((carc_game *)0)->siege / sizeof ((carc_game *)0)->siege[0]))

/* The end of a turn has nothing to do until a besieged city may let a
 * follower escape (siege_update): out of the turn_end hook till then. */
static void cathars_setup(carc_game *g) { carc_ext_hook(g, CARC_EXT_CATHARS, CARC_HOOK_TURN_END, 0); }

static int city_flags(const carc_game *g, int root)
{
	uint16_t flags = 0;
	carc_feat_tiles(g, root, NULL, &flags);
	return flags;
}

static int cathars_points(const carc_game *g, int root, const carc_feat_info *fi, int points)
{
	(void)g;
	(void)root;
	if (fi->kind != CARC_F_CITY || !(fi->flags & CARC_TF_BESIEGED)) return points;
	if (fi->final) return 0;
	return (fi->flags & CARC_TF_CATHEDRAL ? 2 : 1) * (fi->tiles + fi->pennants);
}

/* Is the city of `root` besieged?  A siege segment of g->siege[] in it,
 * or one of the tile just placed: asked while farms are scored, and the
 * tile just placed is looked at so that the answer does not depend on
 * whether cathars_placed has seen it yet (farms joined to a barn's farm
 * score at the end of the turn, after it, but another expansion's
 * tile_placed may score a farm before it); every other tile has been
 * seen.  Past NSIEGE siege segments, the city is walked. */
static int besieged(const carc_game *g, int root)
{
	if (g->nsiege > NSIEGE) return city_flags(g, root) & CARC_TF_BESIEGED;
	for (int i = 0; i < g->nsiege; i++)
		if (carc_feat_root(g, g->siege_root[i]) == root) return 1;
	int c = g->last;
	if (c == CARC_NONE || !(carc_tile_traits[g->cells[c].type].flags & CARC_TT_SIEGE)) return 0;
	const carc_tiletype *t = carc_cell_type(g, c);
	for (int i = 0; i < t->nfeat; i++)
		if (t->f[i].flags & CARC_TF_BESIEGED && carc_feat_root(g, g->cells[c].node0 + i) == root) return 1;
	return 0;
}

static int cathars_weight(const carc_game *g, int city) { return besieged(g, carc_feat_root(g, city)) ? 2 : 1; }

static int has_cloister_near(const carc_game *g, int cell)
{
	const carc_cell *c = &g->cells[cell];
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			int n = carc_board_lookup(g, c->x + dx, c->y + dy);
			if ((dx || dy) && n >= 0 && carc_cell_type(g, n)->cloister != CARC_NOF) return 1;
		}
	return 0;
}

/* May a follower leave this (besieged, incomplete) city now? */
static int escapable(const carc_game *g, int root)
{
	const carc_node *r = &g->nodes[root];
	if (r->kind != CARC_F_CITY || r->done) return 0;
	for (int i = 0; i < g->nescaped; i++)
		if (g->escaped[i] == root) return 0;
	int any_tile = g->cfg.rules[CARC_R_ESCAPE_CLOISTER] == 1;
	if (!any_tile && g->nsiege <= NSIEGE) { /* a siege tile of this city with a cloister next to it */
		for (int i = 0; i < g->nsiege; i++)
			if (g->siege_near >> i & 1 && carc_feat_root(g, g->siege_root[i]) == root) return 1;
		return 0;
	}
	if (!(city_flags(g, root) & CARC_TF_BESIEGED)) return 0;
	int n = root;
	do {
		const carc_node *nd = &g->nodes[n];
		const carc_tfeat *f = &carc_cell_type(g, nd->cell)->f[nd->feat];
		if ((any_tile || f->flags & CARC_TF_BESIEGED) && has_cloister_near(g, nd->cell)) return 1;
		n = nd->next;
	} while (n != root);
	return 0;
}

/* The followers of the seat on turn that may leave their city: a figure
 * that may escape stands in a city and is neither builder nor pig, so it
 * is one of the seat's followers in cities (followers_in), looked at in
 * slot order. */
static int cathars_moves(const carc_game *g, carc_move *out, int cap)
{
	int n = 0, seat = g->turn_seat;
	for (unsigned m = g->followers_in[seat][CARC_F_CITY]; m; m &= m - 1) {
		int i = seat * CARC_FIGS_PER_SEAT + __builtin_ctz(m);
		if (!escapable(g, carc_feat_root(g, g->figs[i].node))) continue;
		if (n < cap) out[n] = (carc_move){ .type = CARC_MV_ESCAPE, .figure = (uint16_t)i, .tile = CARC_NONE };
		n++;
	}
	if (n && n < cap) out[n] = (carc_move){ .type = CARC_MV_PASS, .figure = CARC_NONE, .tile = CARC_NONE };
	return n ? n + 1 : 0;
}

/* Keeps g->siege[] and g->siege_near up to date with a cloister-type or
 * siege tile just placed. */
static __attribute__((noinline)) void siege_update(carc_game *g, int cell, const carc_tiletraits *traits)
{
	const carc_cell *c = &g->cells[cell];
	const carc_tiletype *t = carc_cell_type(g, cell);
	int any_tile = g->cfg.rules[CARC_R_ESCAPE_CLOISTER] == 1;
	unsigned listed = (1u << (g->nsiege < NSIEGE ? g->nsiege : NSIEGE)) - 1;
	if (traits->building) /* a cloister-type tile: the siege tiles around it without one now have one */
		for (unsigned m = listed & ~(unsigned)g->siege_near; m; m &= m - 1) {
			int i = __builtin_ctz(m);
			const carc_cell *s = &g->cells[g->nodes[g->siege[i]].cell];
			unsigned dx = (unsigned)(s->x - c->x + 1), dy = (unsigned)(s->y - c->y + 1);
			if (dx <= 2 && dy <= 2 && (dx != 1 || dy != 1)) {
				g->siege_near |= (uint8_t)(1u << i);
				g->siege_look |= (uint8_t)(1u << i);
			}
		}
	for (int i = 0; (traits->flags & CARC_TT_SIEGE) && i < t->nfeat; i++)
		if (t->f[i].flags & CARC_TF_BESIEGED) {
			if (g->nsiege < NSIEGE) {
				g->siege[g->nsiege] = g->siege_root[g->nsiege] = (uint16_t)(c->node0 + i);
				if (has_cloister_near(g, cell)) g->siege_near |= (uint8_t)(1u << g->nsiege);
				if (any_tile || g->siege_near >> g->nsiege & 1) g->siege_look |= (uint8_t)(1u << g->nsiege);
			}
			g->nsiege++;
		}
	if (g->siege_look || g->nsiege > NSIEGE) carc_ext_hook(g, CARC_EXT_CATHARS, CARC_HOOK_TURN_END, 1);
}

/* Asked only about tiles that are either (placed_tiles); a cloister-type
 * tile matters only while a listed siege tile has no cloister next to it. */
static void cathars_placed(carc_game *g, int cell, carc_sink *out)
{
	(void)out;
	const carc_tiletraits *traits = &carc_tile_traits[g->cells[cell].type];
	unsigned listed = (1u << (g->nsiege < NSIEGE ? g->nsiege : NSIEGE)) - 1;
	if ((traits->flags & CARC_TT_SIEGE) || (traits->building && g->siege_near != listed)) siege_update(g, cell, traits);
}

/* Could the seat on turn free anyone?  False only when no move can exist:
 * no incomplete besieged city holds a follower (nfig; a figure that may
 * escape is neither builder nor pig and stands in a city, so it is one),
 * in the siege-tile variant none with a siege tile that has a cloister
 * next to it (g->siege_look).  cathars_moves() then decides.  Cities
 * found complete leave g->siege_look (a complete city stays complete). */
static int escape_possible(carc_game *g)
{
	if (g->nsiege > NSIEGE) return 1;
	for (unsigned look = g->siege_look; look; look &= look - 1) {
		int i = __builtin_ctz(look);
		unsigned root = g->siege_root[i];
		if (g->nodes[root].parent != root) g->siege_root[i] = (uint16_t)(root = (unsigned)carc_feat_root(g, (int)root));
		const carc_node *r = &g->nodes[root];
		if (r->done) g->siege_look &= (uint8_t)~(1u << i);
		else if (r->nfig) return 1;
	}
	return 0;
}

/* The end of a turn with a besieged city to look at.  No city has been
 * left yet this turn. */
static __attribute__((noinline)) int escape_decide(carc_game *g)
{
	g->nescaped = 0;
	if (!escape_possible(g) || !cathars_moves(g, NULL, 0)) return 0;
	g->phase = CARC_PH_ESCAPE;
	g->seat = g->turn_seat;
	return 1;
}

/* Asked from the first siege tile that may let a follower escape on;
 * once none may, no more (siege_update asks again). */
static int cathars_turn_end(carc_game *g, carc_sink *out)
{
	(void)out;
	if (!g->siege_look && g->nsiege <= NSIEGE) {
		carc_ext_hook(g, CARC_EXT_CATHARS, CARC_HOOK_TURN_END, 0);
		return 0;
	}
	return escape_decide(g);
}

/* carc_move_refusal: why that figure may not escape now, the conditions
 * of cathars_moves and escapable one by one. */
static int cathars_why(const carc_game *g, const carc_move *m, int *ax, int *ay)
{
	(void)ax;
	(void)ay;
	if (m->type != CARC_MV_ESCAPE || g->phase != CARC_PH_ESCAPE) return CARC_RF_NONE;
	if (m->figure >= CARC_MAX_FIGS || !g->figs[m->figure].used) return CARC_RF_NONE; /* CARC_E_ARG comes first */
	const carc_fig *f = &g->figs[m->figure];
	if (f->seat != g->turn_seat) return CARC_RF_ESCAPE_NOT_YOURS;
	if (f->node == CARC_NONE || !carc_is_follower(f->kind) || g->nodes[f->node].kind != CARC_F_CITY)
		return CARC_RF_ESCAPE_NOT_IN_CITY;
	int root = carc_feat_root(g, f->node);
	if (!(city_flags(g, root) & CARC_TF_BESIEGED)) return CARC_RF_ESCAPE_NOT_BESIEGED;
	for (int i = 0; i < g->nescaped; i++)
		if (g->escaped[i] == root) return CARC_RF_ESCAPE_DONE;
	return escapable(g, root) ? CARC_RF_NONE : CARC_RF_ESCAPE_NO_CLOISTER;
}

static void cathars_apply(carc_game *g, const carc_move *m, carc_sink *out)
{
	if (m->type == CARC_MV_ESCAPE) {
		int root = carc_feat_root(g, g->figs[m->figure].node);
		carc_return_figure(g, m->figure, CARC_WHY_ESCAPE, out);
		if (g->nescaped < (int)(sizeof g->escaped / sizeof g->escaped[0])) g->escaped[g->nescaped++] = (uint16_t)root;
		if (g->cfg.rules[CARC_R_ESCAPE] == 0 && cathars_moves(g, NULL, 0)) return; /* each city: ask again */
	}
	carc_turn_continue(g, out);
}

const carc_ext carc_ext_cathars = {
	.name = "cathars",
	.setup = cathars_setup,
	.feature_points = cathars_points,
	.feature_kinds = 1u << CARC_F_CITY,
	.city_weight = cathars_weight,
	.turn_end = cathars_turn_end,
	.tile_placed = cathars_placed,
	.placed_tiles = CARC_TT_SIEGE | CARC_TT_BUILDING,
	.phases = 1u << CARC_PH_ESCAPE,
	.phase_moves = cathars_moves,
	.phase_apply = cathars_apply,
	.move_why = cathars_why,
};

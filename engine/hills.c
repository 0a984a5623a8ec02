/*
 * hills.c - Hills & Sheep (RULES.md 2.13, table rows 21, 22, 23; 4.19).
 *
 * A hill tile hides the next tile of the supply under it (never played:
 * the game is shorter).  Tied majorities go to the tied players with a
 * follower on a hill tile in the feature, if exactly one has
 * (hill_tiebreak at-least-one), or to the most followers on hills (count);
 * otherwise all tied players score.  A completed cloister scores 3 more for
 * every vineyard around it.  The shepherd joins a field of the tile just
 * placed whose farm has no shepherd and draws a token from the bag: sheep
 * stay beside it, a wolf sends it home.  When its owner places a tile that
 * extends its farm, the owner must expand (draw again; a wolf clears the
 * farm of shepherds and sheep) or gather (every shepherd owner in the farm
 * scores all its sheep; shepherds and sheep leave).  A farm that can no
 * longer grow is gathered at once.  Shepherds left at the end score 0.
 */
#include "ext_int.h"

static const uint8_t bag_start[CARC_WOLF + 1] = { 0, 4, 5, 5, 2, 2 };

int carc_bag_holds(int token) { return token >= 1 && token <= CARC_WOLF ? bag_start[token] : 0; }

/* g->shepherd[s]: the figure slot of seat s's shepherd, SHEP_NONE without
 * one (a seat has at most one). */
enum { SHEP_NONE = 0xff };
_Static_assert(CARC_SPECIALS_PER_SEAT == 1, "one shepherd a seat: g->shepherd holds its slot");

/* g->shep_node[s] before seat s's shepherd was first seen: neither a
 * segment nor CARC_NONE, so a shepherd in the supply never matches it. */
enum { SHEP_UNSEEN = 0xfffe };

/* Something for the end of the turn to do (flock_due, flock_check): until
 * then this expansion is out of the turn_end hook. */
static void flock_wake(carc_game *g) { carc_ext_hook(g, CARC_EXT_HILLS, CARC_HOOK_TURN_END, 1); }

static void hills_setup(carc_game *g)
{
	carc_ext_hook(g, CARC_EXT_HILLS, CARC_HOOK_TURN_END, 0);
	/* on for the shepherd alone, without the Hills & Sheep tiles: a hill
	 * or vineyard that comes into such a game (as a start tile) is a
	 * symbol of a set not in play and does nothing (RULES.md section 6) */
	if (!carc_game_has_set(g, "hills-sheep")) {
		carc_ext_hook(g, CARC_EXT_HILLS, CARC_HOOK_TIEBREAK, 0);
		carc_ext_hook(g, CARC_EXT_HILLS, CARC_HOOK_POINTS, 0);
	}
	for (int s = 0; s < CARC_MAX_SEATS; s++) g->shep_node[s] = SHEP_UNSEEN;
	for (int t = 0; t <= CARC_WOLF; t++) g->bag[t] = g->components >> CARC_C_SHEPHERD & 1 ? bag_start[t] : 0;
	for (int s = 0; s < CARC_MAX_SEATS; s++) {
		g->shepherd[s] = SHEP_NONE;
		for (int i = s * CARC_FIGS_PER_SEAT; s < g->nseats && i < (s + 1) * CARC_FIGS_PER_SEAT; i++)
			if (g->figs[i].used && g->figs[i].kind == CARC_FIG_SHEPHERD) g->shepherd[s] = (uint8_t)i;
		g->shep_one |= (uint8_t)((g->shepherd[s] != SHEP_NONE) << s);
	}
}

/* ---- hills ------------------------------------------------------------------ */

static int on_hill(const carc_game *g, const carc_fig *f)
{
	return carc_cell_type(g, g->nodes[f->node].cell)->symbols & CARC_SYM_HILL;
}

static int in_roots(int root, const uint16_t *roots, int nroots)
{
	for (int i = 0; i < nroots; i++)
		if (roots[i] == root) return 1;
	return 0;
}

static unsigned hills_tiebreak(const carc_game *g, const uint16_t *roots, int nroots, unsigned tied)
{
	int hills[CARC_MAX_SEATS] = { 0 }, best = 0;
	unsigned kinds = 0; /* the kinds of the features: their followers are among followers_in of those */
	for (int i = 0; i < nroots; i++) kinds |= 1u << g->nodes[roots[i]].kind;
	for (unsigned t = tied & ((1u << g->nseats) - 1); t; t &= t - 1) {
		int s = __builtin_ctz(t);
		unsigned m = 0;
		for (unsigned k = kinds; k; k &= k - 1) m |= g->followers_in[s][__builtin_ctz(k)];
		for (; m; m &= m - 1) {
			const carc_fig *f = &g->figs[s * CARC_FIGS_PER_SEAT + __builtin_ctz(m)];
			if (in_roots(carc_feat_root(g, f->node), roots, nroots) && on_hill(g, f)) hills[s]++;
		}
	}
	unsigned with = 0;
	if (g->cfg.rules[CARC_R_HILL_TIEBREAK] == 0) { /* at least one */
		for (int s = 0; s < g->nseats; s++)
			if (hills[s]) with |= 1u << s;
		return with && !(with & (with - 1)) ? with : tied;
	}
	for (int s = 0; s < g->nseats; s++)
		if (hills[s] > best) best = hills[s];
	for (int s = 0; best && s < g->nseats; s++)
		if (hills[s] == best) with |= 1u << s;
	return best ? with : tied;
}

/* ---- vineyards ------------------------------------------------------------------ */

/* A completed cloister: 3 more for each vineyard around it. */
static __attribute__((noinline)) int vineyards_around(const carc_game *g, int root, int points)
{
	const carc_cell *c = &g->cells[g->nodes[root].cell];
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			int n = carc_board_lookup(g, c->x + dx, c->y + dy);
			if ((dx || dy) && n >= 0 && carc_cell_type(g, n)->symbols & CARC_SYM_VINEYARD) points += 3;
		}
	return points;
}

static int vineyard_points(const carc_game *g, int root, const carc_feat_info *fi, int points)
{
	if (fi->kind != CARC_F_CLOISTER || fi->final) return points;
	return vineyards_around(g, root, points);
}

/* ---- shepherds ------------------------------------------------------------------- */

/* The next token from the bag: the next listed draw (cfg.bag) when the
 * bag holds that token now, else one at random; 0 when the bag is empty. */
static int draw_token(carc_game *g)
{
	int t = 0;
	if (g->bag_next < g->cfg.nbag && g->bag[g->cfg.bag[g->bag_next]]) {
		t = g->cfg.bag[g->bag_next++];
	} else {
		g->bag_next += g->bag_next < g->cfg.nbag; /* a listed draw the bag cannot give: drawn at random */
		int total = 0;
		for (int k = 1; k <= CARC_WOLF; k++) total += g->bag[k];
		if (!total) return 0;
		int r = (int)carc_rng_below(&g->rng, (uint32_t)total);
		for (t = 1; r >= g->bag[t]; t++) r -= g->bag[t];
	}
	if (g->bag[t]) g->bag[t]--;
	return t;
}

/* The shepherd of `seat` on the board, or -1. */
static inline int shepherd_of(const carc_game *g, int seat)
{
	int slot = g->shepherd[seat];
	if (slot == SHEP_NONE) return -1;
	return g->figs[slot].node != CARC_NONE ? slot : -1;
}

/* The root of the farm of shepherd `fig` of `seat`: the walk starts at
 * g->shep_farm[seat] while the shepherd still stands where that was seen
 * (a segment of the same farm: union-find sets only ever merge). */
static inline int shepherd_farm(const carc_game *g, int seat, int fig)
{
	int node = g->figs[fig].node;
	return carc_feat_root(g, g->shep_node[seat] == node ? g->shep_farm[seat] : node);
}

/* Remembers where the shepherd of `seat` stands and its farm now. */
static void shepherd_seen(carc_game *g, int seat, int fig, int root)
{
	g->shep_node[seat] = g->figs[fig].node;
	g->shep_farm[seat] = (uint16_t)root;
	g->shep_next[seat] = g->nodes[root].next;
}

/* A shepherd and its sheep leave the board; the tokens go back in the bag. */
static void shepherd_home(carc_game *g, int fig, int why, carc_sink *out)
{
	int seat = g->figs[fig].seat;
	g->shep_out &= (uint8_t)~(1u << seat);
	for (int t = 1; t <= CARC_WOLF; t++) {
		g->bag[t] += g->flock[seat][t];
		g->flock[seat][t] = 0;
	}
	carc_return_figure(g, fig, why, out);
}

/* The shepherds in a farm, as a seat mask. */
static unsigned shepherds_in(const carc_game *g, int root)
{
	unsigned m = 0;
	for (int s = 0; s < g->nseats; s++) {
		int f = shepherd_of(g, s);
		if (f >= 0 && shepherd_farm(g, s, f) == root) m |= 1u << s;
	}
	return m;
}

/* Draws a token for the shepherd of `seat`: sheep stay, a wolf clears the
 * whole farm. */
static void expand(carc_game *g, int seat, carc_sink *out)
{
	int fig = shepherd_of(g, seat), t = draw_token(g);
	if (!t) return;
	const carc_cell *c = &g->cells[g->nodes[g->figs[fig].node].cell];
	carc_event *e = carc_emit(out, CARC_EV_SHEEP_DRAWN);
	if (e) {
		e->seat = (int8_t)seat;
		e->x = c->x;
		e->y = c->y;
		e->kind = (uint8_t)t;
	}
	if (t != CARC_WOLF) {
		g->flock[seat][t]++;
		return;
	}
	g->bag[CARC_WOLF]++;
	unsigned m = shepherds_in(g, carc_feat_root(g, g->figs[fig].node));
	for (int s = 0; s < g->nseats; s++)
		if (m >> s & 1) shepherd_home(g, shepherd_of(g, s), CARC_WHY_WOLF, out);
}

int carc_flock_sheep(const carc_game *g, int seat, int sheep)
{
	return seat >= 0 && seat < g->nseats && sheep >= 1 && sheep < CARC_WOLF ? g->flock[seat][sheep] : 0;
}

/* Every shepherd owner in the farm scores all the sheep there; all leave. */
static void gather(carc_game *g, int root, carc_sink *out)
{
	unsigned m = shepherds_in(g, root);
	int sheep = 0;
	for (int s = 0; s < g->nseats; s++)
		for (int t = 1; (m >> s & 1) && t < CARC_WOLF; t++) sheep += t * g->flock[s][t];
	int where = carc_feat_where(g, root, out);
	for (int s = 0; s < g->nseats; s++)
		if (m >> s & 1) carc_add_score(g, s, CARC_SC_FLOCK, sheep, where, 0, out);
	for (int s = 0; s < g->nseats; s++)
		if (m >> s & 1) shepherd_home(g, shepherd_of(g, s), CARC_WHY_FLOCK, out);
}

/* The deploy listing asks this for every field of the tile just placed
 * while the seat holds its shepherd, at the field's first port.  A
 * seat's one shepherd is in a farm when hills.c has not sent it
 * home (shep_out), it is not in its supply, and its farm (shep_farm, seen
 * at its deploy and kept since) has the same root. */
static int shepherd_special(const carc_game *g, int seat, int kind, int port, int *node)
{
	(void)seat;
	if (kind != CARC_FIG_SHEPHERD) return -1;
	*node = carc_board_feature_at(g, g->last, port);
	if (*node < 0) return CARC_E_NO_FEATURE;
	/* a field, in a game that has them (farmers false: "play without fields") */
	if (g->nodes[*node].kind != CARC_F_FIELD || !g->cfg.rules[CARC_R_FARMERS]) return CARC_E_KIND;
	int root = carc_feat_root(g, *node);
	for (unsigned m = g->shep_out; m; m &= m - 1) {
		int s = __builtin_ctz(m);
		if (!g->in_supply[s][CARC_FIG_SHEPHERD] && carc_feat_root(g, g->shep_farm[s]) == root) return CARC_E_RULE;
	}
	return CARC_OK;
}

/* carc_move_refusal: a shepherd refused a farm where a shepherd stands,
 * named by that shepherd's tile. */
static int hills_why(const carc_game *g, const carc_move *m, int *ax, int *ay)
{
	int node;
	if (m->type != CARC_MV_DEPLOY || g->phase != CARC_PH_ACTION ||
	    shepherd_special(g, g->seat, m->kind, m->port, &node) != CARC_E_RULE)
		return CARC_RF_NONE;
	unsigned in = shepherds_in(g, carc_feat_root(g, node));
	if (in) {
		const carc_cell *c = &g->cells[g->nodes[g->figs[shepherd_of(g, __builtin_ctz(in))].node].cell];
		*ax = c->x;
		*ay = c->y;
	}
	return CARC_RF_FARM_HAS_SHEPHERD;
}

static void shepherd_deployed(carc_game *g, int fig, carc_sink *out)
{
	if (g->figs[fig].kind != CARC_FIG_SHEPHERD) return;
	int seat = g->figs[fig].seat;
	int root = carc_feat_root(g, g->figs[fig].node);
	g->shep_out |= (uint8_t)(1u << seat);
	shepherd_seen(g, seat, fig, root);
	if (!g->nodes[root].open) { /* a farm that can no longer grow: gathered at the end of the turn */
		g->flock_check = 1;
		flock_wake(g);
	}
	expand(g, seat, out);
}

/* The farm of seat's shepherd grew to root `root`: the tile extended it. */
static __attribute__((noinline)) void shepherd_grew(carc_game *g, int seat, int root)
{
	if (seat == g->turn_seat && g->phase != CARC_PH_OVER) g->flock_due |= (uint8_t)(1u << seat);
	if (!g->nodes[root].open) g->flock_check = 1;
	if (g->flock_due | g->flock_check) flock_wake(g);
	g->shep_farm[seat] = (uint16_t)root;
	g->shep_next[seat] = g->nodes[root].next;
}

/* hill_placed for the seats in `look`, whose farm something joined:
 * those whose shepherd stands on the board (its deploy saw it,
 * shepherd_deployed). */
static __attribute__((noinline)) void shepherd_farms(carc_game *g, unsigned look)
{
	for (; look; look &= look - 1) {
		int s = __builtin_ctz(look);
		if (!g->in_supply[s][CARC_FIG_SHEPHERD]) shepherd_grew(g, s, carc_feat_root(g, g->shep_farm[s]));
	}
}

static __attribute__((noinline)) void hide_tile(carc_game *g, int cell, carc_sink *out)
{
	const carc_cell *c = &g->cells[cell];
	uint16_t entry = g->supply[g->next++]; /* face down under the hill, never played */
	carc_event *e = carc_emit(out, CARC_EV_TILE_HIDDEN);
	if (e) {
		e->x = c->x;
		e->y = c->y;
		e->tile = carc_entry_tile(entry); /* for replays only: the wire keeps it secret */
		e->why = carc_drawn_why(entry);
	}
}

/* hill_placed for a hill or an abbey (CARC_TT_* `flags`). */
static __attribute__((noinline)) void hill_or_abbey(carc_game *g, int cell, unsigned flags, carc_sink *out)
{
	/* a hill drawn takes the next tile under it (RULES.md 2.13); a hill
	 * placed as a start tile was not drawn (turn 0: no turn has begun) */
	if ((flags & CARC_TT_HILL) && g->turn && g->next < g->nsupply) hide_tile(g, cell, out);
	if (g->shep_one && (flags & CARC_TT_ABBEY)) {
		g->flock_check = 1;
		flock_wake(g);
	}
}

/* After a placement, for each shepherd on the board: did the tile extend
 * the farm of the placer's (flock_due), and can that farm no longer grow
 * (flock_check)?  A farm grows, and loses open edges, when a field of the
 * tile just placed joins it: a farm whose root has the same `next` as
 * when last seen (at the previous placement or the shepherd's deploy;
 * shep_next) has joined nothing since, and is open, for every closed farm
 * with a shepherd was gathered at the end of the turn that closed it.  The one other way to lose open edges is an
 * abbey: it fits any edges, and its walls bound the fields around it
 * (RULES.md 2.9) without joining them, so after an abbey every shepherd's
 * farm is looked at.  The usual case is a few loads for each seat whose
 * shepherd is out (shep_out; shepherd_farms passes over those at home). */
static void hill_placed(carc_game *g, int cell, carc_sink *out)
{
	unsigned flags = carc_tile_traits[g->cells[cell].type].flags;
	if (flags & (CARC_TT_HILL | CARC_TT_ABBEY)) hill_or_abbey(g, cell, flags, out);
	unsigned look = 0; /* seats whose shepherd's farm may have grown */
	for (unsigned m = g->shep_out; m; m &= m - 1) {
		int s = __builtin_ctz(m);
		if (g->nodes[g->shep_farm[s]].next != g->shep_next[s]) look |= m & -m; /* seat s: its farm joined another */
	}
	if (look) shepherd_farms(g, look);
}

static int flock_moves(const carc_game *g, carc_move *out, int cap)
{
	(void)g;
	for (int k = 0; k < 2 && k < cap; k++)
		out[k] = (carc_move){ .type = CARC_MV_FLOCK, .kind = (uint8_t)k, .tile = CARC_NONE, .figure = CARC_NONE };
	return 2;
}

/* Farms that can no longer grow are gathered at once. */
static __attribute__((noinline)) void gather_closed(carc_game *g, carc_sink *out)
{
	for (int s = 0; s < g->nseats; s++) {
		int fig = shepherd_of(g, s);
		if (fig >= 0 && g->nodes[shepherd_farm(g, s, fig)].open == 0) gather(g, shepherd_farm(g, s, fig), out);
	}
}

/* The end of the turn with something to do: farms to gather, or the
 * placer's shepherd's farm extended. */
static __attribute__((noinline)) int flock_decide(carc_game *g, int due, carc_sink *out)
{
	int seat = g->turn_seat;
	if (g->flock_check) { /* a closed farm is gathered at once, asked or not */
		g->flock_check = 0;
		gather_closed(g, out);
	}
	if (due && shepherd_of(g, seat) >= 0) {
		g->phase = CARC_PH_FLOCK;
		g->seat = (uint8_t)seat;
		return 1;
	}
	return 0;
}

/* Asked only when flock_due or flock_check was set (flock_wake); both
 * are cleared here, and so this leaves the hook again. */
static int flock_turn_end(carc_game *g, carc_sink *out)
{
	carc_ext_hook(g, CARC_EXT_HILLS, CARC_HOOK_TURN_END, 0);
	if (!(g->flock_due | g->flock_check)) return 0;
	int due = g->flock_due >> g->turn_seat & 1;
	g->flock_due = 0;
	return flock_decide(g, due, out);
}

static void flock_apply(carc_game *g, const carc_move *m, carc_sink *out)
{
	int fig = shepherd_of(g, g->seat);
	if (m->kind == 0) expand(g, g->seat, out);
	else gather(g, carc_feat_root(g, g->figs[fig].node), out);
	gather_closed(g, out);
	carc_turn_continue(g, out);
}

const carc_ext carc_ext_hills = {
	.name = "hills-sheep",
	.components = 1u << CARC_C_SHEPHERD,
	.setup = hills_setup,
	.tiebreak = hills_tiebreak,
	.feature_points = vineyard_points,
	.feature_kinds = 1u << CARC_F_CLOISTER,
	.deploy_special = shepherd_special,
	.special_kinds = 1u << CARC_FIG_SHEPHERD,
	.deployed = shepherd_deployed,
	.tile_placed = hill_placed,
	.turn_end = flock_turn_end,
	.phases = 1u << CARC_PH_FLOCK,
	.phase_moves = flock_moves,
	.phase_apply = flock_apply,
	.move_why = hills_why,
};

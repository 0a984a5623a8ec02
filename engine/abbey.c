/*
 * abbey.c - Abbey & Mayor (RULES.md 2.9, table rows 8, 14-16, 30, 31;
 * 4.8, 4.9, 4.12, 4.14).
 *
 * The abbey: instead of drawing, a seat that still holds its abbey may put
 * it into a hole (an empty place with tiles on all four sides), whatever
 * the edges there; its walls end roads and close cities around it, and it
 * is a cloister in every way.  The mayor is a follower for cities whose
 * strength is the city's pennants, and the wagon a follower for roads,
 * cities and cloisters: the base rules know both from their tables.  After
 * a wagon's feature scores during play, its owner (clockwise from the
 * player on turn) may move it to an unoccupied, incomplete feature next to
 * that feature (wagon_move connected: through the tile's wagon groups,
 * and between an abbey and the roads ending at its walls; adjacent-tiles:
 * on the wagon's tile or the eight around it).  The barn
 * stands on a corner of the tile just placed where four tiles meet in
 * fields; its farm's farmers score 3 a city at once and go home, farmers of
 * a farm joined to it later score 1 a city and go home, no farmer may join
 * a farm with a barn, and at the end every barn owner scores 4 a city.
 */
#include <string.h>

#include "ext_int.h"

/* ---- the abbey ------------------------------------------------------------ */

static int abbey_tile(void)
{
	for (int i = 0; i < carc_ntiletypes; i++)
		if (carc_tile_traits[i].flags & CARC_TT_ABBEY) return i;
	return -1;
}

/* Once no seat holds an abbey, the start of a turn, the tile decision and
 * the end of the supply have nothing to ask here: this expansion leaves
 * those hooks for good. */
static void abbeys_left(carc_game *g)
{
	for (int s = 0; s < g->nseats; s++)
		if (g->abbeys[s]) return;
	carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_TURN_START, 0);
	carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_TILE_MOVES, 0);
	carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_END_ROUND, 0);
}

/* Set-up: the abbey's tile type, looked up once for the whole game.
 * Placements and farms shut to farmers matter only once there is a barn
 * (abbey_placed, barn_closed), the end of a turn only when a wagon waits
 * or farmers joined to a barn's farm are due to score (abbey_turn_end):
 * this expansion leaves those hooks until then. */
static void abbey_setup(carc_game *g)
{
	g->abbey_type = (uint16_t)abbey_tile();
	carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_PLACED, 0);
	carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_CLOSED, 0);
	carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_TURN_END, 0);
	abbeys_left(g);
}

/* Each seat's abbey goes on the board too, after any number of tiles. */
static int abbey_board_extra(const carc_game *g, int *nodes)
{
	int n = 0;
	for (int s = 0; s < g->nseats; s++) n += g->abbeys[s];
	*nodes += n * carc_tiletypes[g->abbey_type].nfeat;
	return n;
}

/* A hole the abbey may fill: tiles on all four sides, and no expansion
 * rule against a cloister there (cult places). */
static int is_hole(const carc_game *g, const carc_front *f)
{
	return f->mask == 0xffffffffu && carc_placement_ok(g, g->abbey_type, f->x, f->y, 0);
}

/* The frontier is scanned only until its g->nholes holes have been seen. */
static __attribute__((noinline)) int abbey_hole_any(const carc_game *g)
{
	const carc_front *f = g->front, *end = f + g->nfront;
	for (int left = g->nholes; left && f < end; f++)
		if (f->mask == 0xffffffffu && (left--, is_hole(g, f))) return 1;
	return 0;
}

/* RULES.md 2.2: "River tiles must all be placed before normal tiles",
 * and the abbey is one: it waits while the next tile to draw is a river
 * tile (else a hole at an open end of the river could take it and leave
 * every river tile still to come nowhere to go). */
static inline int river_next(const carc_game *g)
{
	return g->next < g->nsupply && carc_tile_river[carc_entry_tile(g->supply[g->next])];
}

/* May `seat` place its abbey now?  Most turns one of the two counts
 * answers: the seat has no abbey left, or the board has no hole. */
static inline int abbey_turn_start_for(const carc_game *g, int seat)
{
	return g->abbeys[seat] && g->nholes && !river_next(g) && abbey_hole_any(g);
}

static int abbey_turn_start(carc_game *g) { return abbey_turn_start_for(g, g->turn_seat); }

/* The holes for the abbey, then `draw`, when there is a hole. */
static __attribute__((noinline)) int abbey_holes(const carc_game *g, carc_move *out, int n, int cap)
{
	int start = n;
	const carc_front *f = g->front, *end = f + g->nfront;
	for (int left = g->nholes; left && f < end; f++) { /* until every hole has been seen */
		if (f->mask != 0xffffffffu) continue;
		left--;
		if (!is_hole(g, f)) continue;
		if (n < cap)
			out[n] = (carc_move){ .type = CARC_MV_PLACE_ABBEY, .x = f->x, .y = f->y, .tile = CARC_NONE,
			                      .figure = CARC_NONE };
		n++;
	}
	if (n > start) {
		if (n < cap) out[n] = (carc_move){ .type = CARC_MV_DRAW, .tile = CARC_NONE, .figure = CARC_NONE };
		n++;
	}
	return n;
}

/* Called on every tile decision: the usual answer (a tile is drawn, or
 * the seat's abbey is placed) costs two tests. */
static int abbey_tile_moves(const carc_game *g, carc_move *out, int n, int cap)
{
	if (g->drawn != CARC_NONE || !g->abbeys[g->seat] || !g->nholes) return n;
	return abbey_holes(g, out, n, cap);
}

/* abbey_final_round: after the last tile, each seat in turn, from the one
 * after the last tile's placer, may still place its abbey (then deploy and
 * score as in any turn); the placer is asked last.  An extra turn the last
 * tile earned (builder, volcano lake: g->extra, the turn not passed on)
 * has no tile to draw and does not happen (RULES.md 2.6: "draw, place,
 * deploy, score"), so it does not put its seat first. */
static int abbey_end_round(carc_game *g, carc_sink *out)
{
	if (!g->cfg.rules[CARC_R_ABBEY_FINAL_ROUND]) return 0;
	if (!g->final_asked) {
		g->final_asked = 1;
		g->final_from = (uint8_t)(g->extra ? (g->turn_seat + 1) % g->nseats : g->turn_seat);
	}
	while (g->final_asked <= g->nseats) {
		int s = (g->final_from + g->final_asked - 1) % g->nseats;
		g->final_asked++;
		if (!g->abbeys[s] || !abbey_turn_start_for(g, s)) continue;
		g->turn_seat = g->seat = (uint8_t)s;
		g->phase = CARC_PH_ABBEY_FINAL;
		g->drawn = CARC_NONE;
		g->turn++; /* a turn without a tile: carc_game_turn counts every `turn` event */
		carc_event *e = carc_emit(out, CARC_EV_TURN);
		if (e) e->seat = (int8_t)s;
		return 1;
	}
	return 0;
}

static int final_moves(const carc_game *g, carc_move *out, int cap)
{
	int n = abbey_tile_moves(g, out, 0, cap) - 1; /* its holes, without `draw` */
	if (n < 0) return 0;
	if (n < cap) out[n] = (carc_move){ .type = CARC_MV_PASS, .tile = CARC_NONE, .figure = CARC_NONE };
	return n + 1;
}

/* ---- the barn --------------------------------------------------------------- */

/* The two half-edges of a tile that meet at corner k (NW NE SE SW). */
static const int corner_halves[4][2] = {
	{ CARC_NL, CARC_WR }, { CARC_NR, CARC_EL }, { CARC_ER, CARC_SL }, { CARC_SR, CARC_WL }
};

/* Is one field at both half-edges of corner k of placed tile `cell`?
 * What carc_board_feature_at finds there, read from the tile type: turned
 * back by the tile's rotation, corner k is corner k - rot of the type. */
static int corner_field(const carc_game *g, int cell, int k)
{
	const carc_cell *c = &g->cells[cell];
	return carc_tile_traits[c->type].corner_fields >> ((k - c->rot) & 3) & 1;
}

/* The first barn standing in the farm of `root` (its index in
 * g->barn_fig), or -1.  Only the barns deployed so far are looked at
 * (none at all answers at once), each from the segment of its farm last
 * seen at the root (g->barn_farm).  A barn stays on its corner until the
 * end: no rule sends one home. */
static int farm_barn(const carc_game *g, int root)
{
	for (int i = 0; i < g->nbarns; i++)
		if (carc_feat_root(g, g->barn_farm[i]) == root) return i;
	return -1;
}
static int farm_has_barn(const carc_game *g, int root) { return farm_barn(g, root) >= 0; }

/* Farmers in the farm of `root`: its count of followers standing there. */
static int farm_has_farmers(const carc_game *g, int root) { return g->nodes[root].nfig != 0; }

/* A barn at corner k of the tile just placed, once its own corner is a
 * field; kept apart so that the usual quick refusals in barn_special
 * cost little.  The three other tiles around the point corner k touches,
 * as offsets from the tile and the corner of each at that point: the two
 * beside it first, then the one across. */
static const int8_t corner_others[4][3][3] = {
	{ { 0, -1, 3 }, { -1, 0, 1 }, { -1, -1, 2 } }, /* NW */
	{ { 0, -1, 2 }, { 1, 0, 0 }, { 1, -1, 3 } },   /* NE */
	{ { 1, 0, 3 }, { 0, 1, 1 }, { 1, 1, 0 } },     /* SE */
	{ { -1, 0, 2 }, { 0, 1, 0 }, { -1, 1, 1 } },   /* SW */
};
static __attribute__((noinline)) int barn_corner(const carc_game *g, int k, int *node)
{
	const carc_cell *c = &g->cells[g->last];
	int x = c->x, y = c->y;
	const int8_t(*o)[3] = corner_others[k];
	int n = carc_board_lookup(g, x + o[0][0], y + o[0][1]);
	if (n < 0 || !corner_field(g, n, o[0][2])) return CARC_E_RULE;
	n = carc_board_lookup(g, x + o[1][0], y + o[1][1]);
	if (n < 0 || !corner_field(g, n, o[1][2])) return CARC_E_RULE;
	n = carc_board_lookup(g, x + o[2][0], y + o[2][1]);
	if (n < 0 || !corner_field(g, n, o[2][2])) return CARC_E_RULE;
	*node = carc_board_feature_at(g, g->last, corner_halves[k][0]);
	if (g->cfg.rules[CARC_R_BARN_PLACEMENT] == 0 && farm_has_barn(g, carc_feat_root(g, *node))) return CARC_E_RULE;
	return CARC_OK;
}

/* The deploy listing asks this for every corner of the tile just placed
 * while the seat holds its barn. */
static int barn_special(const carc_game *g, int seat, int kind, int port, int *node)
{
	(void)seat;
	if (kind != CARC_FIG_BARN) return -1;
	if (port < CARC_P_NW || port > CARC_P_SW) return CARC_E_NO_FEATURE;
	if (!g->cfg.rules[CARC_R_FARMERS]) return CARC_E_KIND;
	int k = port - CARC_P_NW;
	/* The three other tiles around the corner are among the tile's placed
	 * neighbours; then the tile's own corner (no lookup). */
	if (g->cells[g->last].nb < 3 || !corner_field(g, g->last, k)) return CARC_E_RULE;
	return barn_corner(g, k, node);
}

/* A barn placed: it joins g->barn_fig, with its farm's root in
 * g->barn_farm; the farmers already there score 3 a city and go home. */
static void barn_deployed(carc_game *g, int fig, carc_sink *out)
{
	if (g->figs[fig].kind != CARC_FIG_BARN) return;
	int k; /* listed once: one barn slot a seat */
	for (k = 0; k < g->nbarns && g->barn_fig[k] != fig; k++) {}
	if (k == g->nbarns && k < CARC_MAX_SEATS) g->barn_fig[g->nbarns++] = (uint8_t)fig;
	if (g->nbarns == 1) {
		carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_PLACED, 1);
		carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_CLOSED, 1);
	}
	int root = carc_feat_root(g, g->figs[fig].node);
	if (k < CARC_MAX_SEATS) g->barn_farm[k] = (uint16_t)root;
	if (farm_has_farmers(g, root)) carc_score_farm_now(g, root, 3, out);
}

/* The farms of the tile's fields that hold farmers and a barn score. */
static __attribute__((noinline)) void barn_farms_joined(carc_game *g, int cell, carc_sink *out)
{
	const carc_tiletype *t = carc_cell_type(g, cell);
	for (int i = 0; i < t->nfeat; i++) {
		if (t->f[i].kind != CARC_F_FIELD) continue;
		int root = carc_feat_root(g, g->cells[cell].node0 + i);
		if (farm_has_farmers(g, root) && farm_has_barn(g, root)) carc_score_farm_now(g, root, 1, out);
	}
}

/* A tile that joins farmers to a barn's farm: they score 1 a city, with
 * the rest of the turn's scoring (RULES.md 1.2: points "during play" are
 * scored in step 3, after the deployment step), so the end of the turn is
 * asked to (abbey_turn_end).  Until then the farmers stand in the farm:
 * nobody may join them (barn_closed), but a pig may, and counts.  Only a
 * barn's farm that now holds followers can be one: while none does (the
 * usual case: one look at each barn's farm root, walked to again from the
 * old one when a placement joined the farm to a larger one) nothing is
 * due. */
static inline void barn_joined(carc_game *g, int cell)
{
	unsigned any = 0;
	for (int i = 0; i < g->nbarns; i++) {
		unsigned farm = g->barn_farm[i];
		if (g->nodes[farm].parent != farm) g->barn_farm[i] = (uint16_t)(farm = (unsigned)carc_feat_root(g, (int)farm));
		any |= g->nodes[farm].nfig;
	}
	if (!any) return;
	g->barn_join = (uint16_t)(cell + 1);
	carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_TURN_END, 1);
}

static int barn_closed(const carc_game *g, int root)
{
	return g->nbarns && g->nodes[root].kind == CARC_F_FIELD && farm_has_barn(g, root);
}

/* End: each barn owner scores 4 for every completed city of the farm.
 * The barns on the board are those of g->barn_fig (a barn never leaves
 * its corner), taken seat by seat as their slots go; a farm with several
 * barns scores once, when its first one comes up. */
static void barn_final(carc_game *g, carc_sink *out)
{
	int seat_of[CARC_MAX_SEATS], root_of[CARC_MAX_SEATS], nb = 0;
	for (int s = 0; s < g->nseats; s++)
		for (int i = 0; i < g->nbarns; i++) {
			const carc_fig *f = &g->figs[g->barn_fig[i]];
			if (f->seat != s || f->node == CARC_NONE) continue;
			seat_of[nb] = s;
			root_of[nb++] = carc_feat_root(g, f->node);
		}
	for (int i = 0; i < nb; i++) {
		int root = root_of[i], k, owner[CARC_MAX_SEATS] = { 0 };
		for (k = 0; k < i && root_of[k] != root; k++) {}
		if (k < i) continue; /* scored with an earlier barn of its farm */
		for (int j = i; j < nb; j++)
			if (root_of[j] == root) owner[seat_of[j]] = 1;
		int worth = carc_farm_worth(g, root);
		for (int s = 0; s < g->nseats; s++)
			if (owner[s]) carc_add_score(g, s, CARC_SC_BARN, 4 * worth, carc_feat_where(g, root, out), 1, out);
	}
}

/* ---- the wagon ---------------------------------------------------------------- */

/* Remembers the wagons of a feature scored in play, before they go home:
 * wagons are followers, so only those on the board in features of its
 * kind (followers_in) are looked at, seat by seat in slot order.  The end
 * of the turn then moves them. */
static void wagon_scored(carc_game *g, int root, carc_sink *out)
{
	(void)out;
	unsigned kind = g->nodes[root].kind;
	for (unsigned s = 0; s < g->nseats; s++) {
		for (unsigned m = g->followers_in[s][kind]; m; m &= m - 1) {
			unsigned i = s * CARC_FIGS_PER_SEAT + (unsigned)__builtin_ctz(m);
			const carc_fig *f = &g->figs[i];
			if (f->kind != CARC_FIG_WAGON || f->node == CARC_NONE || carc_feat_root(g, f->node) != root) continue;
			if (g->nwagons < CARC_MAX_SEATS)
				g->wagons[g->nwagons++] = (__typeof__(g->wagons[0])){ f->seat, (uint8_t)i, (uint16_t)root,
					                                               g->nodes[f->node].cell };
			if (g->nwagons == 1) carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_TURN_END, 1);
		}
	}
}

/* Why segment `node` takes no wagon whatever the reach (a carc_refusal,
 * CARC_RF_NONE when it may take one). */
static int wagon_unfit(const carc_game *g, int node, int root)
{
	int k = g->nodes[node].kind;
	if (k != CARC_F_ROAD && k != CARC_F_CITY && k != CARC_F_CLOISTER) return CARC_RF_WAGON_KIND;
	if (g->nodes[root].done) return CARC_RF_WAGON_COMPLETE;
	if (g->nodes[root].nfig) return CARC_RF_WAGON_OCCUPIED;
	return CARC_RF_NONE;
}

static int wagon_target(const carc_game *g, int node)
{
	int root = carc_feat_root(g, node);
	return wagon_unfit(g, node, root) == CARC_RF_NONE ? root : -1;
}

/* A candidate segment for the wagon, once: `cand` holds at most one
 * entry a segment of the board (`mark`, a bit a segment), so it never
 * holds more than CARC_MAX_NODES, however large the scored feature. */
typedef struct {
	uint64_t mark[CARC_MAX_NODES / 64];
	uint16_t cand[CARC_MAX_NODES];
	int n;
} wagon_cands;

static void cand_add(wagon_cands *wc, int node)
{
	uint64_t bit = 1ull << (node & 63);
	if (wc->mark[node >> 6] & bit) return;
	wc->mark[node >> 6] |= bit;
	wc->cand[wc->n++] = (uint16_t)node;
}

/* The abbey is a cloister in every way, and its walls end roads (RULES.md
 * 2.9): for wagon_move connected, a road that ends at an abbey's wall and
 * the abbey are joined across the two tiles, as a road and the cloister it
 * enters are on one tile (the abbey tile has no wagon groups).  Adds to
 * the candidates what segment s reaches so: from a road, the abbeys at the
 * sides it touches; from an abbey, the roads at its walls. */
static void abbey_links(const carc_game *g, int s, wagon_cands *wc)
{
	const carc_node *nd = &g->nodes[s];
	const carc_cell *c = &g->cells[nd->cell];
	int abbey = c->type == g->abbey_type;
	if (nd->kind != (abbey ? CARC_F_CLOISTER : CARC_F_ROAD)) return;
	for (int d = 0; d < 4; d++) {
		int nb = carc_board_lookup(g, c->x + carc_dx[d], c->y + carc_dy[d]), f = -1;
		if (nb < 0) continue;
		if (abbey) f = carc_board_feature_at(g, nb, (d + 2) & 3);
		else if (g->cells[nb].type == g->abbey_type && carc_board_feature_at(g, nd->cell, d) == s)
			f = carc_board_feature_at(g, nb, CARC_P_CLOISTER);
		if (f >= 0 && g->nodes[f].kind == (abbey ? CARC_F_ROAD : CARC_F_CLOISTER)) cand_add(wc, f);
	}
}

/* Where the first waiting wagon may go. */
static int wagon_targets(const carc_game *g, carc_move *out, int cap)
{
	const __typeof__(g->wagons[0]) *w = &g->wagons[0];
	wagon_cands wc;
	uint16_t seen[CARC_MAX_NODES], seen_cell[CARC_MAX_NODES];
	int n = 0, nseen = 0;
	memset(wc.mark, 0, sizeof wc.mark);
	wc.n = 0;
	if (g->cfg.rules[CARC_R_WAGON_MOVE] == 0) {
		/* connected: features that share a wagon group with the scored
		 * one on one of its tiles, and abbeys and the roads at their walls */
		int s = w->root;
		do {
			const carc_node *nd = &g->nodes[s];
			const carc_tiletype *t = carc_cell_type(g, nd->cell);
			unsigned groups = t->f[nd->feat].wagon;
			for (int j = 0; groups && j < t->nfeat; j++)
				if (j != nd->feat && (t->f[j].wagon & groups)) cand_add(&wc, g->cells[nd->cell].node0 + j);
			abbey_links(g, s, &wc);
			s = nd->next;
		} while (s != w->root);
	} else {
		/* adjacent tiles: any feature on the wagon's tile or the eight around it */
		const carc_cell *c = &g->cells[w->cell];
		for (int ddy = -1; ddy <= 1; ddy++)
			for (int ddx = -1; ddx <= 1; ddx++) {
				int cell = carc_board_lookup(g, c->x + ddx, c->y + ddy);
				if (cell < 0) continue;
				for (int j = 0; j < carc_cell_type(g, cell)->nfeat; j++) cand_add(&wc, g->cells[cell].node0 + j);
			}
	}
	uint16_t *cand = wc.cand;
	int ncand = wc.n;
	/* one move per target feature and tile it may be named at */
	for (int i = 0; i < ncand; i++) {
		int root = wagon_target(g, cand[i]), k, cell = g->nodes[cand[i]].cell;
		if (root < 0) continue;
		for (k = 0; k < nseen && (seen[k] != root || seen_cell[k] != cell); k++) {}
		if (k < nseen) continue;
		seen[nseen] = (uint16_t)root;
		seen_cell[nseen++] = (uint16_t)cell;
		const carc_cell *c = &g->cells[g->nodes[cand[i]].cell];
		if (n < cap)
			out[n] = (carc_move){ .type = CARC_MV_MOVE_WAGON, .x = c->x, .y = c->y,
			                      .port = (uint8_t)carc_board_first_port(g, cand[i]), .tile = CARC_NONE,
			                      .figure = CARC_NONE }; /* the wagon waiting first moves */
		n++;
	}
	return n;
}

static int wagon_moves(const carc_game *g, carc_move *out, int cap)
{
	int n = g->nwagons ? wagon_targets(g, out, cap) : 0;
	if (n && n < cap) out[n] = (carc_move){ .type = CARC_MV_PASS, .tile = CARC_NONE, .figure = CARC_NONE };
	return n ? n + 1 : 0;
}

/* Drops waiting wagons with nowhere to go; the next one decides, if any
 * (none: the end of a turn has nothing more to do here until a wagon's
 * feature scores). */
static int next_wagon(carc_game *g)
{
	while (g->nwagons && !wagon_targets(g, NULL, 0)) {
		g->nwagons--;
		for (int i = 0; i < g->nwagons; i++) g->wagons[i] = g->wagons[i + 1];
	}
	if (!g->nwagons) {
		carc_ext_hook(g, CARC_EXT_ABBEY, CARC_HOOK_TURN_END, 0);
		return 0;
	}
	g->phase = CARC_PH_WAGON;
	g->seat = g->wagons[0].seat;
	return 1;
}

/* The end of a turn, while farmers joined to a barn's farm are due to
 * score (barn_joined) or a wagon waits: the farms score first, with the
 * turn's scoring, then the wagons move. */
static int abbey_turn_end(carc_game *g, carc_sink *out)
{
	if (g->barn_join) {
		int cell = g->barn_join - 1;
		g->barn_join = 0;
		barn_farms_joined(g, cell, out);
	}
	/* clockwise from the player on turn (none waiting: next_wagon leaves
	 * the hook) */
	for (int i = 1; i < g->nwagons; i++)
		for (int j = i; j > 0; j--) {
			int a = (g->wagons[j - 1].seat - g->turn_seat + g->nseats) % g->nseats;
			int b = (g->wagons[j].seat - g->turn_seat + g->nseats) % g->nseats;
			if (a <= b) break;
			__typeof__(g->wagons[0]) t = g->wagons[j];
			g->wagons[j] = g->wagons[j - 1];
			g->wagons[j - 1] = t;
		}
	return next_wagon(g);
}

static void wagon_apply(carc_game *g, const carc_move *m, carc_sink *out)
{
	if (m->type == CARC_MV_MOVE_WAGON) {
		int cell = carc_board_lookup(g, m->x, m->y);
		carc_deploy(g, g->wagons[0].fig, carc_board_feature_at(g, cell, m->port), m->port, out);
	}
	g->nwagons--;
	for (int i = 0; i < g->nwagons; i++) g->wagons[i] = g->wagons[i + 1];
	if (!next_wagon(g)) carc_turn_continue(g, out);
}

/* ---- why a move is refused (carc_move_refusal) ---------------------------------- */

/* The tile of the first barn standing in the farm of `root`, if any. */
static void barn_tile(const carc_game *g, int root, int *ax, int *ay)
{
	int i = farm_barn(g, root);
	if (i < 0) return;
	const carc_cell *c = &g->cells[g->nodes[g->figs[g->barn_fig[i]].node].cell];
	*ax = c->x;
	*ay = c->y;
}

/* A barn at corner k of the tile just placed: the first of its
 * conditions that fails, in barn_special's order. */
static int barn_why(const carc_game *g, int k, int *ax, int *ay)
{
	if (!corner_field(g, g->last, k)) return CARC_RF_BARN_NOT_FIELD;
	const carc_cell *c = &g->cells[g->last];
	for (int i = 0; i < 3; i++) {
		const int8_t *o = corner_others[k][i];
		int n = carc_board_lookup(g, c->x + o[0], c->y + o[1]);
		if (n >= 0 && corner_field(g, n, o[2])) continue;
		*ax = c->x + o[0];
		*ay = c->y + o[1];
		return n < 0 ? CARC_RF_BARN_NO_TILE : CARC_RF_BARN_SPLIT;
	}
	int root = carc_feat_root(g, carc_board_feature_at(g, g->last, corner_halves[k][0]));
	if (g->cfg.rules[CARC_R_BARN_PLACEMENT] == 0 && farm_has_barn(g, root)) {
		barn_tile(g, root, ax, ay);
		return CARC_RF_BARN_FARM_HAS_BARN;
	}
	return CARC_RF_NONE;
}

/* Where the wagon waiting first may not go, and why. */
static int wagon_why(const carc_game *g, const carc_move *m, int *ax, int *ay)
{
	int cell = carc_board_lookup(g, m->x, m->y);
	if (cell < 0) return CARC_RF_WAGON_NO_TILE;
	int node = m->port < CARC_PORT_COUNT ? carc_board_feature_at(g, cell, m->port) : -1;
	if (node < 0) return CARC_RF_WAGON_NOTHING;
	int unfit = wagon_unfit(g, node, carc_feat_root(g, node));
	if (unfit != CARC_RF_NONE) return unfit;
	const carc_cell *w = &g->cells[g->wagons[0].cell];
	*ax = w->x;
	*ay = w->y;
	return CARC_RF_WAGON_OUT_OF_REACH;
}

static int abbey_why(const carc_game *g, const carc_move *m, int *ax, int *ay)
{
	if (m->type == CARC_MV_PLACE_ABBEY) {
		int f = carc_board_front_at(g, m->x, m->y);
		if (f < 0 || g->front[f].mask != 0xffffffffu) return CARC_RF_ABBEY_NOT_HOLE;
		return carc_placement_refusal(g, g->abbey_type, m->x, m->y, 0, ax, ay);
	}
	if (m->type == CARC_MV_MOVE_WAGON && g->phase == CARC_PH_WAGON && g->nwagons) return wagon_why(g, m, ax, ay);
	if (m->type != CARC_MV_DEPLOY || g->phase != CARC_PH_ACTION || m->port >= CARC_PORT_COUNT) return CARC_RF_NONE;
	if (m->kind == CARC_FIG_BARN)
		return m->port >= CARC_P_NW && m->port <= CARC_P_SW ? barn_why(g, m->port - CARC_P_NW, ax, ay) : CARC_RF_NONE;
	/* a follower into a farm that has a barn */
	int node = carc_board_feature_at(g, g->last, m->port);
	if (!carc_is_follower(m->kind) || node < 0) return CARC_RF_NONE;
	int root = carc_feat_root(g, node);
	if (!barn_closed(g, root)) return CARC_RF_NONE;
	barn_tile(g, root, ax, ay);
	return CARC_RF_FARM_HAS_BARN;
}

/* ---- hooks shared by the parts -------------------------------------------------- */

static void abbey_apply(carc_game *g, const carc_move *m, carc_sink *out)
{
	if (m->type == CARC_MV_DRAW) {
		carc_draw(g, out);
	} else { /* place_abbey; barn deploys are the base game's deploys */
		g->abbeys[g->seat]--;
		abbeys_left(g);
		carc_place_tile(g, g->abbey_type, m->x, m->y, 0, out);
	}
}

/* A tile placed: barns' farms joined by it, once there is a barn (asked
 * only from the first barn's deploy on, barn_deployed). */
static void abbey_placed(carc_game *g, int cell, carc_sink *out)
{
	(void)out;
	if (g->nbarns) barn_joined(g, cell);
}

static int abbey_phase_moves(const carc_game *g, carc_move *out, int cap)
{
	return g->phase == CARC_PH_WAGON ? wagon_moves(g, out, cap) : final_moves(g, out, cap);
}

static void abbey_phase_apply(carc_game *g, const carc_move *m, carc_sink *out)
{
	if (g->phase == CARC_PH_WAGON) wagon_apply(g, m, out);
	else if (m->type == CARC_MV_PASS) carc_begin_turn(g, out); /* the next seat of the final round */
	else abbey_apply(g, m, out);
}

const carc_ext carc_ext_abbey = {
	.name = "abbey-mayor",
	.components = 1u << CARC_C_ABBEY | 1u << CARC_C_BARN | 1u << CARC_C_WAGON,
	.setup = abbey_setup,
	.board_extra = abbey_board_extra,
	.turn_start = abbey_turn_start,
	.tile_moves = abbey_tile_moves,
	.deploy_special = barn_special,
	.special_kinds = 1u << CARC_FIG_BARN,
	.apply_move = abbey_apply,
	.deployed = barn_deployed,
	.tile_placed = abbey_placed,
	.feature_closed = barn_closed,
	.closes = 1u << CARC_F_FIELD,
	.final_scoring = barn_final,
	.feature_scored = wagon_scored,
	.turn_end = abbey_turn_end,
	.end_round = abbey_end_round,
	.phases = 1u << CARC_PH_WAGON | 1u << CARC_PH_ABBEY_FINAL,
	.phase_moves = abbey_phase_moves,
	.phase_apply = abbey_phase_apply,
	.move_why = abbey_why,
};

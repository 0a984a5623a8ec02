/*
 * cult.c - Cult places (RULES.md 2.10 "Heretics & Shrines", table row 9;
 * 4.16).
 *
 * A cult place is scored like a cloister.  No cult place may stand next
 * to (diagonals included) more than one cloister, nor a cloister next to
 * more than one cult place.  The challenge: when one of a neighbouring
 * cloister and cult place is completed and scored while the other is
 * still incomplete, the followers on the other go home with no points;
 * two completed in the same turn both score.  A completed building that
 * held no follower was not scored, so it challenges nobody.
 */
#include "ext_int.h"

/* 0 none, 1 cloister, 2 cult place: the centre building of a tile. */
static int building(int type)
{
	const carc_tiletype *t = &carc_tiletypes[type];
	if (t->cloister == CARC_NOF) return 0;
	return t->f[t->cloister].flags & CARC_TF_SHRINE ? 2 : 1;
}

static int cult_judges(int type) { return building(type) != 0; }

static int near(int ax, int ay, int bx, int by)
{
	return ax - bx <= 1 && bx - ax <= 1 && ay - by <= 1 && by - ay <= 1 && (ax != bx || ay != by);
}

/* Buildings of kind `want` next to (x, y), from the list of buildings. */
static int around(const carc_game *g, int x, int y, int want)
{
	int n = 0;
	for (int i = 0; i < g->nbuild; i++) n += g->build[i].kind == want && near(x, y, g->build[i].x, g->build[i].y);
	return n;
}

static int cult_allowed(const carc_game *g, int type, int x, int y, int rot)
{
	(void)rot;
	int mine = building(type), other = 3 - mine;
	if (around(g, x, y, other) > 1) return 0;
	for (int i = 0; i < g->nbuild; i++)
		if (g->build[i].kind == other && near(x, y, g->build[i].x, g->build[i].y) &&
		    around(g, g->build[i].x, g->build[i].y, mine) + 1 > 1)
			return 0;
	return 1;
}

static void cult_scored(carc_game *g, int root, carc_sink *out)
{
	const carc_node *r = &g->nodes[root];
	if (r->kind != CARC_F_CLOISTER || !r->nfig) return;
	const carc_cell *c = &g->cells[r->cell];
	int other = 3 - building(c->type);
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			int n = carc_board_lookup(g, c->x + dx, c->y + dy);
			if ((!dx && !dy) || n < 0 || building(g->cells[n].type) != other) continue;
			int their = g->cells[n].node0 + carc_cell_type(g, n)->cloister;
			if (g->nodes[their].done) continue; /* completed this turn too: it scores */
			for (int i = 0; i < g->nseats * CARC_FIGS_PER_SEAT; i++)
				if (g->figs[i].used && g->figs[i].node == their) carc_return_figure(g, i, CARC_WHY_CHALLENGE, out);
		}
}

static void cult_placed(carc_game *g, int cell, carc_sink *out)
{
	(void)out;
	int b = building(g->cells[cell].type);
	if (b && g->nbuild < (int)(sizeof g->build / sizeof g->build[0]))
		g->build[g->nbuild++] = (__typeof__(g->build[0])){ g->cells[cell].x, g->cells[cell].y, (uint8_t)b };
}

const carc_ext carc_ext_cult = {
	.tile_placed = cult_placed,
	.name = "cult",
	.placement_allowed = cult_allowed,
	.placement_judges = cult_judges,
	.placement_any_rot = 1,
	.feature_scored = cult_scored,
};

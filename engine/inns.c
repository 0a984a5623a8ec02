/*
 * inns.c - Inns & Cathedrals (RULES.md 2.5, table rows 2, 4, 29).
 *
 * An inn beside a road doubles it when complete and voids it when not; a
 * cathedral does the same to a city at 3 a tile and pennant.  Several inns
 * or cathedrals do not stack.  The large follower (strength 2) needs no
 * hook: the base deploy rules and majorities already know it.
 */
#include "ext_int.h"

static int inns_points(const carc_game *g, int root, const carc_feat_info *fi, int points)
{
	(void)g;
	(void)root;
	if (fi->kind == CARC_F_ROAD && fi->flags & CARC_TF_INN) return fi->final ? 0 : 2 * fi->tiles;
	if (fi->kind == CARC_F_CITY && fi->flags & CARC_TF_CATHEDRAL)
		return fi->final ? 0 : 3 * fi->tiles + 3 * fi->pennants;
	return points;
}

const carc_ext carc_ext_inns = {
	.name = "inns-cathedrals",
	.feature_points = inns_points,
	.feature_kinds = 1u << CARC_F_ROAD | 1u << CARC_F_CITY,
};

/*
 * ext.c - the list of expansions that hook into the turn.  The base game
 * needs none; each expansion adds its carc_ext here as it arrives.  Hooks
 * of several expansions run in this order.
 */
#include <string.h>

#include "ext_int.h"

extern const carc_ext carc_ext_river, carc_ext_inns, carc_ext_king, carc_ext_abbey, carc_ext_cathars,
	carc_ext_traders, carc_ext_cult, carc_ext_hills;

/* The wagon moves (abbey) before followers escape (cathars) at the end of a turn. */
const carc_ext *const carc_exts[] = {
	[CARC_EXT_RIVER] = &carc_ext_river, [CARC_EXT_INNS] = &carc_ext_inns, [CARC_EXT_KING] = &carc_ext_king,
	[CARC_EXT_ABBEY] = &carc_ext_abbey, [CARC_EXT_CATHARS] = &carc_ext_cathars,
	[CARC_EXT_TRADERS] = &carc_ext_traders, [CARC_EXT_CULT] = &carc_ext_cult, [CARC_EXT_HILLS] = &carc_ext_hills,
	[CARC_EXT_COUNT] = NULL
};

static int active(const carc_ext *e, uint32_t expansions, uint32_t components)
{
	int i = carc_expansion_find(e->name), j = e->also ? carc_expansion_find(e->also) : -1;
	return (i >= 0 && (expansions >> i & 1)) || (j >= 0 && (expansions >> j & 1)) || (e->components & components);
}

unsigned carc_ext_hooks(const carc_config *cfg, uint32_t components, uint32_t *on, uint16_t per_hook[CARC_HOOK_COUNT])
{
	unsigned h = 0;
	*on = 0;
	memset(per_hook, 0, CARC_HOOK_COUNT * sizeof per_hook[0]);
	for (const carc_ext *const *p = carc_exts; *p; p++) {
		const carc_ext *e = *p;
		if (!active(e, cfg->expansions, components)) continue;
		*on |= 1u << (p - carc_exts);
		unsigned mine = (e->placement_allowed ? CARC_HOOK_PLACEMENT : 0u) | (e->action_moves ? CARC_HOOK_ACTION : 0u) |
		                (e->tile_placed ? CARC_HOOK_PLACED : 0u) | (e->feature_scored ? CARC_HOOK_SCORED : 0u) |
		                (e->final_scoring ? CARC_HOOK_FINAL : 0u) | (e->feature_completed ? CARC_HOOK_COMPLETED : 0u) |
		                (e->feature_points ? CARC_HOOK_POINTS : 0u) | (e->order_supply ? CARC_HOOK_SETUP : 0u) |
		                (e->deploy_allowed ? CARC_HOOK_DEPLOY : 0u) | (e->extra_turn ? CARC_HOOK_EXTRA : 0u) |
		                (e->turn_end ? CARC_HOOK_TURN_END : 0u) | (e->city_weight ? CARC_HOOK_CITY_WEIGHT : 0u) |
		                (e->deploy_special ? CARC_HOOK_SPECIAL : 0u) | (e->farm_bonus ? CARC_HOOK_FARM_BONUS : 0u) |
		                (e->deployed ? CARC_HOOK_DEPLOYED : 0u) | (e->feature_closed ? CARC_HOOK_CLOSED : 0u) |
		                (e->turn_start ? CARC_HOOK_TURN_START : 0u) | (e->tile_moves ? CARC_HOOK_TILE_MOVES : 0u) |
		                (e->tiebreak ? CARC_HOOK_TIEBREAK : 0u) | (e->end_round ? CARC_HOOK_END_ROUND : 0u);
		h |= mine;
		for (unsigned m = mine; m; m &= m - 1) per_hook[__builtin_ctz(m)] |= (uint16_t)(1u << (p - carc_exts));
	}
	return h;
}

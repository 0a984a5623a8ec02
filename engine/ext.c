/*
 * ext.c - the list of expansions that hook into the turn.  The base game
 * needs none; each expansion adds its carc_ext here as it arrives.
 */
#include "ext_int.h"

const carc_ext *const carc_exts[] = { NULL };

int carc_ext_active(const carc_game *g, const carc_ext *e)
{
	int i = carc_expansion_find(e->name);
	return i >= 0 && (g->cfg.expansions >> i & 1);
}

unsigned carc_ext_hooks(const carc_config *cfg)
{
	unsigned h = 0;
	for (const carc_ext *const *p = carc_exts; *p; p++) {
		const carc_ext *e = *p;
		int i = carc_expansion_find(e->name);
		if (i < 0 || !(cfg->expansions >> i & 1)) continue;
		h |= (e->placement_allowed ? CARC_HOOK_PLACEMENT : 0u) | (e->action_moves ? CARC_HOOK_ACTION : 0u) |
		     (e->tile_placed ? CARC_HOOK_PLACED : 0u) | (e->feature_scored ? CARC_HOOK_SCORED : 0u) |
		     (e->final_scoring ? CARC_HOOK_FINAL : 0u);
	}
	return h;
}

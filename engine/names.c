/*
 * names.c - every name the engine shares with the outside world: result
 * codes, ports, kinds, phases, events, rule options and expansions.  The
 * wire protocol and the tile manifests use exactly these spellings.
 */
#include <string.h>

#include "carc.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *name_of(const char *const *names, int n, int i)
{
	return i >= 0 && i < n ? names[i] : "?";
}

static int index_of(const char *const *names, int n, const char *s)
{
	if (!s) return -1;
	for (int i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], s)) return i;
	return -1;
}

static const char *const rc_names[CARC_E_COUNT] = {
	[CARC_OK] = "ok",
	[CARC_E_ARG] = "a parameter is out of range",
	[CARC_E_OVER] = "the game is over",
	[CARC_E_PHASE] = "that move is not allowed in this phase",
	[CARC_E_TILE] = "that is not the tile that was drawn",
	[CARC_E_OCCUPIED] = "there is already a tile there",
	[CARC_E_NOT_ADJACENT] = "the tile must touch a placed tile edge to edge",
	[CARC_E_EDGE] = "an edge does not match its neighbour",
	[CARC_E_RULE] = "an expansion rule forbids that move",
	[CARC_E_NOT_TILE_JUST_PLACED] = "figures go on the tile just placed",
	[CARC_E_NO_FEATURE] = "there is no feature to stand on there",
	[CARC_E_FEATURE_TAKEN] = "that feature already holds a follower",
	[CARC_E_NO_FIGURE] = "no figure of that kind is left in the supply",
	[CARC_E_KIND] = "that figure may not stand on that feature",
	[CARC_E_CAPACITY] = "the game is larger than the engine's limits",
};
const char *carc_strerror(carc_rc rc) { return name_of(rc_names, CARC_E_COUNT, (int)rc); }

static const char *const ports[CARC_PORT_COUNT] = {
	"N", "E", "S", "W", "NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR", "cloister", "tower", "I", "II",
	"nw", "ne", "se", "sw"
};
const char *carc_port_name(int p) { return name_of(ports, CARC_PORT_COUNT, p); }
int carc_port_parse(const char *s) { return index_of(ports, CARC_PORT_COUNT, s); }

static const char *const fkinds[CARC_F_COUNT] = { "road", "city", "field", "cloister", "river", "tower" };
const char *carc_fkind_name(int k) { return name_of(fkinds, CARC_F_COUNT, k); }

static const char *const figkinds[CARC_FIG_COUNT] = {
	"follower", "large", "wagon", "mayor", "builder", "pig", "barn", "shepherd"
};
const char *carc_figkind_name(int k) { return name_of(figkinds, CARC_FIG_COUNT, k); }
int carc_figkind_parse(const char *s) { return index_of(figkinds, CARC_FIG_COUNT, s); }

static const char *const mtypes[CARC_MV_COUNT] = {
	"pass", "place_tile", "deploy", "escape", "draw", "place_abbey", "move_wagon", "flock"
};
const char *carc_mtype_name(int t) { return name_of(mtypes, CARC_MV_COUNT, t); }

static const char *const phases[CARC_PH_COUNT] = {
	"tile", "action", "over", "escape", "wagon", "flock", "abbey_final"
};
const char *carc_phase_name(int p) { return name_of(phases, CARC_PH_COUNT, p); }

static const char *const etypes[CARC_EV_COUNT] = {
	"tile_drawn", "tile_placed", "tile_discarded", "deployed", "returned",
	"feature_completed", "scored", "turn", "game_over", "token_taken", "tile_hidden", "sheep_drawn"
};
const char *carc_etype_name(int t) { return name_of(etypes, CARC_EV_COUNT, t); }

static const char *const whys[CARC_WHY_COUNT] = {
	"scored", "unplaceable", "reshuffled", "escape", "lonely", "challenge", "barn", "wolf", "flock"
};
const char *carc_why_name(int w) { return name_of(whys, CARC_WHY_COUNT, w); }

static const char *const scs[CARC_SC_COUNT] = {
	"road", "city", "cloister", "field", "barn", "trade", "king", "robber", "flock"
};
const char *carc_sc_name(int s) { return name_of(scs, CARC_SC_COUNT, s); }

static const char *const tokens[CARC_TOK_COUNT] = { "king", "robber", "wine", "grain", "cloth" };
const char *carc_token_name(int t) { return name_of(tokens, CARC_TOK_COUNT, t); }

static const char *const marks[CARC_MARK_COUNT] = { "inn", "cathedral", "besieged", "princess", "cult_place", "pig_herd" };
const char *carc_mark_name(int bit) { return name_of(marks, CARC_MARK_COUNT, bit); }

static const char *const symbols[CARC_SYMBOL_COUNT] = {
	"volcano", "dragon", "portal", "hill", "vineyard", "fair", "garden", "spring", "lake", "abbey"
};
const char *carc_symbol_name(int bit) { return name_of(symbols, CARC_SYMBOL_COUNT, bit); }

static const char *const refusals[CARC_RF_COUNT] = {
	"none", "other", "river_unjoined", "river_joins", "river_u_turn", "river_room", "river_ends", "river_boxed",
	"river_not_free", "cult_place_two_cloisters", "cloister_two_cult_places", "cloister_has_cult_place",
	"cult_place_has_cloister", "abbey_not_hole", "volcano_lake", "farm_has_barn", "needs_own_follower",
	"farm_has_shepherd", "barn_not_field", "barn_no_tile", "barn_split", "barn_farm_has_barn", "wagon_no_tile",
	"wagon_nothing", "wagon_kind", "wagon_complete", "wagon_occupied", "wagon_out_of_reach", "escape_not_yours",
	"escape_not_in_city", "escape_not_besieged", "escape_no_cloister", "escape_done"
};
const char *carc_refusal_name(int r) { return name_of(refusals, CARC_RF_COUNT, r); }
int carc_refusal_find(const char *s) { return index_of(refusals, CARC_RF_COUNT, s); }

static const char *const components[CARC_C_NUM] = {
	"large", "wagon", "mayor", "builder", "pig", "barn", "shepherd", "abbey", "tower", "king",
	"robber", "goods", "fairy", "dragon", "count", "catapult"
};
const char *carc_component_name(int c) { return name_of(components, CARC_C_NUM, c); }
int carc_component_find(const char *s) { return index_of(components, CARC_C_NUM, s); }

/* ---- rule options: RULES.md section 6; the default is listed ---------- */
static const char *const v_farm[] = { "per-city-4", "per-farm-3", "per-farm-4", NULL };
static const char *const v_tiny[] = { "normal", "2-per-tile-1", NULL };
static const char *const v_fairy[] = { "on-tile", "next-follower", NULL };
static const char *const v_princess[] = { "may", "must", NULL };
static const char *const v_dragon[] = { "before-scoring", "after-scoring", NULL };
static const char *const v_wagon[] = { "connected", "adjacent-tiles", NULL };
static const char *const v_barn[] = { "no-second-barn", "second-barn-ok", NULL };
static const char *const v_escape[] = { "each-city", "one-per-turn", NULL };
static const char *const v_escape_cl[] = { "siege-tile", "any-tile", NULL };
static const char *const v_coc_tiles[] = { "strict", "outer-features", NULL };
static const char *const v_coc_final[] = { "any-quarter", "market-only", NULL };
static const char *const v_tower_ex[] = { "choice", "automatic", NULL };
static const char *const v_hill[] = { "at-least-one", "count", NULL };
static const char *const v_pigherd[] = { "pig", "nothing", NULL };
static const char *const v_unplaceable[] = { "discard", "reshuffle", NULL };

enum { T_ENUM, T_BOOL, T_INT };
static const carc_rule_desc rules[CARC_R_COUNT] = {
	[CARC_R_FARM_SCORING] = { "farm_scoring", v_farm, T_ENUM, 0, 1 },
	[CARC_R_FARMERS] = { "farmers", NULL, T_BOOL, 1, 1 },
	[CARC_R_TINY_CITY] = { "tiny_city", v_tiny, T_ENUM, 0, 1 },
	[CARC_R_FAIRY_PLACEMENT] = { "fairy_placement", v_fairy, T_ENUM, 0, 0 },
	[CARC_R_PRINCESS] = { "princess", v_princess, T_ENUM, 0, 0 },
	[CARC_R_DRAGON_MOVE] = { "dragon_move", v_dragon, T_ENUM, 0, 0 },
	[CARC_R_WAGON_MOVE] = { "wagon_move", v_wagon, T_ENUM, 0, 1 },
	[CARC_R_BARN_PLACEMENT] = { "barn_placement", v_barn, T_ENUM, 0, 1 },
	[CARC_R_ESCAPE] = { "escape", v_escape, T_ENUM, 0, 1 },
	[CARC_R_ESCAPE_CLOISTER] = { "escape_cloister", v_escape_cl, T_ENUM, 0, 1 },
	[CARC_R_COC_TILES] = { "coc_tiles", v_coc_tiles, T_ENUM, 0, 0 },
	[CARC_R_COC_FINAL] = { "coc_final", v_coc_final, T_ENUM, 0, 0 },
	[CARC_R_TOWER_EXCHANGE] = { "tower_exchange", v_tower_ex, T_ENUM, 0, 0 },
	[CARC_R_HILL_TIEBREAK] = { "hill_tiebreak", v_hill, T_ENUM, 0, 1 },
	[CARC_R_GQ11_PIG_HERD] = { "gq11_pig_herd", v_pigherd, T_ENUM, 0, 1 },
	[CARC_R_ABBEY_FINAL_ROUND] = { "abbey_final_round", NULL, T_BOOL, 0, 1 },
	[CARC_R_VOLCANO_LAKE_EXTRA_TURN] = { "volcano_lake_extra_turn", NULL, T_BOOL, 1, 1 },
	[CARC_R_CATAPULT_TARGET_POINTS] = { "catapult_target_points", NULL, T_INT, 5, 0 },
	[CARC_R_CATAPULT_CATCH_POINTS] = { "catapult_catch_points", NULL, T_INT, 5, 0 },
	[CARC_R_UNPLACEABLE_TILE] = { "unplaceable_tile", v_unplaceable, T_ENUM, 0, 1 },
};

const carc_rule_desc *carc_rule(int i) { return i >= 0 && i < CARC_R_COUNT ? &rules[i] : NULL; }

int carc_rule_find(const char *key)
{
	if (!key) return -1;
	for (int i = 0; i < CARC_R_COUNT; i++)
		if (!strcmp(rules[i].key, key)) return i;
	return -1;
}

int carc_rule_value(int rule, const char *value)
{
	const carc_rule_desc *r = carc_rule(rule);
	if (!r || !r->values || !value) return -1;
	for (int i = 0; r->values[i]; i++)
		if (!strcmp(r->values[i], value)) return i;
	return -1;
}

/* ---- expansions: the names of new_game and their reference tile sets --- */
#define C(x) (1u << CARC_C_##x)
static const carc_expansion_desc expansions[] = {
	{ "base", "basic:1", 1, 0 },
	{ "river", "river/1:1", 1, 0 },
	{ "river2", "river/2:1", 1, 0 },
	{ "mini", "gq11", 1, 0 },
	{ "inns-cathedrals", "inns-and-cathedrals:1", 1, C(LARGE) },
	{ "traders-builders", "traders-and-builders:1", 1, C(BUILDER) | C(PIG) | C(GOODS) },
	{ "princess-dragon", "princess-and-dragon:1", 0, C(FAIRY) | C(DRAGON) },
	{ "tower", "tower:1", 0, C(TOWER) },
	{ "abbey-mayor", "abbey-and-mayor:1", 1, C(ABBEY) | C(MAYOR) | C(WAGON) | C(BARN) },
	{ "count", "count", 0, C(COUNT) },
	{ "king-robber", "king-and-robber:1", 1, C(KING) | C(ROBBER) },
	{ "cathars", "siege/cathars", 1, 0 },
	{ "cult", "cult/6", 1, 0 },
	{ "catapult", "catapult", 0, C(CATAPULT) },
	{ "hills-sheep", "hills-and-sheep:1", 1, C(SHEPHERD) },
};
#undef C

uint32_t carc_default_components(uint32_t expansions_mask)
{
	uint32_t c = 0;
	for (int i = 0; i < COUNT(expansions); i++)
		if (expansions_mask >> i & 1) c |= expansions[i].components;
	return c;
}
int carc_expansion_count(void) { return COUNT(expansions); }
const carc_expansion_desc *carc_expansion(int i)
{
	return i >= 0 && i < COUNT(expansions) ? &expansions[i] : NULL;
}
int carc_expansion_find(const char *name)
{
	if (!name) return -1;
	for (int i = 0; i < COUNT(expansions); i++)
		if (!strcmp(expansions[i].name, name)) return i;
	return -1;
}

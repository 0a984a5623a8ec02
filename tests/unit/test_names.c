/*
 * test_names.c - names.c: every name the engine shares with the wire and
 * the manifests (result codes, ports, kinds, phases, events, rule options,
 * expansions), their spellings from PROTOCOL.md / RULES.md section 6, and
 * that each parser inverts its printer.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "testutil.h"

START_TEST(test_strerror)
{
	ck_assert_str_eq(carc_strerror(CARC_OK), "ok");
	for (int rc = 0; rc < CARC_E_COUNT; rc++) {
		const char *s = carc_strerror((carc_rc)rc);
		ck_assert_ptr_nonnull(s);
		ck_assert_msg(strcmp(s, "?") && s[0], "result code %d has no message", rc);
		for (int j = 0; j < rc; j++) ck_assert_str_ne(carc_strerror((carc_rc)j), s);
	}
	ck_assert_str_eq(carc_strerror(CARC_E_COUNT), "?");
	ck_assert_str_eq(carc_strerror((carc_rc)-1), "?");
}
END_TEST

START_TEST(test_ports)
{
	static const char *const wire[CARC_PORT_COUNT] = {
		"N", "E", "S", "W", "NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR", "cloister", "tower", "I", "II",
		"nw", "ne", "se", "sw"
	};
	for (int p = 0; p < CARC_PORT_COUNT; p++) {
		ck_assert_str_eq(carc_port_name(p), wire[p]);
		ck_assert_int_eq(carc_port_parse(wire[p]), p);
	}
	ck_assert_int_eq(carc_port_parse("n"), -1);
	ck_assert_int_eq(carc_port_parse(""), -1);
	ck_assert_int_eq(carc_port_parse("III"), -1);
	ck_assert_str_eq(carc_port_name(CARC_PORT_COUNT), "?");
	ck_assert_str_eq(carc_port_name(-1), "?");
}
END_TEST

START_TEST(test_kind_names)
{
	static const char *const fk[] = { "road", "city", "field", "cloister", "river", "tower" };
	for (int k = 0; k < CARC_F_COUNT; k++) ck_assert_str_eq(carc_fkind_name(k), fk[k]);
	static const char *const fig[] = { "follower", "large", "wagon", "mayor", "builder", "pig", "barn", "shepherd" };
	for (int k = 0; k < CARC_FIG_COUNT; k++) {
		ck_assert_str_eq(carc_figkind_name(k), fig[k]);
		ck_assert_int_eq(carc_figkind_parse(fig[k]), k);
	}
	ck_assert_int_eq(carc_figkind_parse("dragon"), -1);
	static const char *const mv[] = { "pass",  "place_tile",  "deploy",     "escape",
		                          "draw",  "place_abbey", "move_wagon", "flock" };
	ck_assert_int_eq(sizeof mv / sizeof mv[0], CARC_MV_COUNT);
	for (int k = 0; k < CARC_MV_COUNT; k++) ck_assert_str_eq(carc_mtype_name(k), mv[k]);
	static const char *const ph[] = { "tile", "action", "over", "escape", "wagon", "flock", "abbey_final" };
	ck_assert_int_eq(sizeof ph / sizeof ph[0], CARC_PH_COUNT);
	for (int k = 0; k < CARC_PH_COUNT; k++) ck_assert_str_eq(carc_phase_name(k), ph[k]);
	static const char *const ev[] = { "tile_drawn", "tile_placed", "tile_discarded", "deployed", "returned",
		                          "feature_completed", "scored", "turn", "game_over", "token_taken",
		                          "tile_hidden", "sheep_drawn" };
	ck_assert_int_eq(sizeof ev / sizeof ev[0], CARC_EV_COUNT);
	for (int k = 0; k < CARC_EV_COUNT; k++) ck_assert_str_eq(carc_etype_name(k), ev[k]);
	static const char *const why[] = { "scored", "unplaceable", "reshuffled", "escape", "lonely",
		                           "challenge", "barn", "wolf", "flock" };
	ck_assert_int_eq(sizeof why / sizeof why[0], CARC_WHY_COUNT);
	for (int k = 0; k < CARC_WHY_COUNT; k++) ck_assert_str_eq(carc_why_name(k), why[k]);
	static const char *const sc[] = { "road", "city", "cloister", "field", "barn", "trade", "king", "robber", "flock" };
	ck_assert_int_eq(sizeof sc / sizeof sc[0], CARC_SC_COUNT);
	for (int k = 0; k < CARC_SC_COUNT; k++) ck_assert_str_eq(carc_sc_name(k), sc[k]);
	static const char *const tok[] = { "king", "robber", "wine", "grain", "cloth" };
	ck_assert_int_eq(sizeof tok / sizeof tok[0], CARC_TOK_COUNT);
	for (int k = 0; k < CARC_TOK_COUNT; k++) ck_assert_str_eq(carc_token_name(k), tok[k]);
	static const char *const rf[] = { "none", "other", "river_unjoined", "river_joins", "river_u_turn", "river_room",
		                           "river_ends", "river_boxed", "river_not_free", "cult_place_two_cloisters",
		                           "cloister_two_cult_places", "cloister_has_cult_place",
		                           "cult_place_has_cloister", "abbey_not_hole", "volcano_lake", "farm_has_barn",
		                           "needs_own_follower", "farm_has_shepherd", "barn_not_field", "barn_no_tile",
		                           "barn_split", "barn_farm_has_barn", "wagon_no_tile", "wagon_nothing",
		                           "wagon_kind", "wagon_complete", "wagon_occupied", "wagon_out_of_reach",
		                           "escape_not_yours", "escape_not_in_city", "escape_not_besieged",
		                           "escape_no_cloister", "escape_done" };
	ck_assert_int_eq(sizeof rf / sizeof rf[0], CARC_RF_COUNT);
	for (int k = 0; k < CARC_RF_COUNT; k++) {
		ck_assert_str_eq(carc_refusal_name(k), rf[k]);
		ck_assert_int_eq(carc_refusal_find(rf[k]), k);
	}
	ck_assert_str_eq(carc_refusal_name(CARC_RF_COUNT), "?");
	ck_assert_str_eq(carc_refusal_name(-1), "?");
	ck_assert_int_eq(carc_refusal_find("u-turn"), -1);
	ck_assert_int_eq(carc_refusal_find(NULL), -1);
	static const char *const comp[] = { "large", "wagon", "mayor", "builder", "pig", "barn", "shepherd", "abbey",
		                             "tower", "king", "robber", "goods", "fairy", "dragon", "count", "catapult" };
	ck_assert_int_eq(sizeof comp / sizeof comp[0], CARC_C_NUM);
	for (int k = 0; k < CARC_C_NUM; k++) {
		ck_assert_str_eq(carc_component_name(k), comp[k]);
		ck_assert_int_eq(carc_component_find(comp[k]), k);
	}
	ck_assert_int_eq(carc_component_find("follower"), -1);
	static const char *const mark[] = { "inn", "cathedral", "besieged", "princess", "cult_place", "pig_herd" };
	ck_assert_int_eq(sizeof mark / sizeof mark[0], CARC_MARK_COUNT);
	for (int k = 0; k < CARC_MARK_COUNT; k++) ck_assert_str_eq(carc_mark_name(k), mark[k]);
	ck_assert_str_eq(carc_mark_name(CARC_MARK_COUNT), "?");
	ck_assert_uint_eq(CARC_MARK_PIG_HERD, 1u << 5);
	static const char *const sym[] = { "volcano", "dragon", "portal", "hill", "vineyard",
		                           "fair", "garden", "spring", "lake", "abbey" };
	ck_assert_int_eq(sizeof sym / sizeof sym[0], CARC_SYMBOL_COUNT);
	for (int k = 0; k < CARC_SYMBOL_COUNT; k++) ck_assert_str_eq(carc_symbol_name(k), sym[k]);
	ck_assert_str_eq(carc_symbol_name(-1), "?");
	ck_assert_uint_eq(CARC_SYMBOL_ABBEY, 1u << 9);
	ck_assert_str_eq(carc_phase_name(CARC_PH_COUNT), "?");
	ck_assert_str_eq(carc_etype_name(-1), "?");
}
END_TEST

/* RULES.md section 6: every option key, its values in order, its default. */
START_TEST(test_rules_table)
{
	static const struct {
		const char *key, *values[4];
		int type, def;
	} want[] = {
		{ "farm_scoring", { "per-city-4", "per-farm-3", "per-farm-4" }, 0, 0 },
		{ "farmers", { NULL }, 1, 1 },
		{ "tiny_city", { "normal", "2-per-tile-1" }, 0, 0 },
		{ "fairy_placement", { "on-tile", "next-follower" }, 0, 0 },
		{ "princess", { "may", "must" }, 0, 0 },
		{ "dragon_move", { "before-scoring", "after-scoring" }, 0, 0 },
		{ "wagon_move", { "connected", "adjacent-tiles" }, 0, 0 },
		{ "barn_placement", { "no-second-barn", "second-barn-ok" }, 0, 0 },
		{ "escape", { "each-city", "one-per-turn" }, 0, 0 },
		{ "escape_cloister", { "siege-tile", "any-tile" }, 0, 0 },
		{ "coc_tiles", { "strict", "outer-features" }, 0, 0 },
		{ "coc_final", { "any-quarter", "market-only" }, 0, 0 },
		{ "tower_exchange", { "choice", "automatic" }, 0, 0 },
		{ "hill_tiebreak", { "at-least-one", "count" }, 0, 0 },
		{ "gq11_pig_herd", { "pig", "nothing" }, 0, 0 },
		{ "abbey_final_round", { NULL }, 1, 0 },
		{ "volcano_lake_extra_turn", { NULL }, 1, 1 },
		{ "catapult_target_points", { NULL }, 2, 5 },
		{ "catapult_catch_points", { NULL }, 2, 5 },
		{ "unplaceable_tile", { "discard", "reshuffle" }, 0, 0 },
	};
	ck_assert_int_eq((int)(sizeof want / sizeof want[0]), CARC_R_COUNT);
	for (int i = 0; i < CARC_R_COUNT; i++) {
		const carc_rule_desc *r = carc_rule(i);
		ck_assert_ptr_nonnull(r);
		ck_assert_str_eq(r->key, want[i].key);
		ck_assert_int_eq(carc_rule_find(want[i].key), i);
		ck_assert_int_eq(r->type, want[i].type);
		ck_assert_int_eq(r->def, want[i].def);
		int n = 0;
		for (; want[i].values[n]; n++) {
			ck_assert_ptr_nonnull(r->values);
			ck_assert_str_eq(r->values[n], want[i].values[n]);
			ck_assert_int_eq(carc_rule_value(i, want[i].values[n]), n);
		}
		if (n) ck_assert_ptr_null(r->values[n]);
		else ck_assert_ptr_null(r->values);
		ck_assert_int_eq(carc_rule_value(i, "no-such-value"), -1);
	}
	/* the base game's options are implemented */
	ck_assert(carc_rule(CARC_R_FARM_SCORING)->implemented);
	ck_assert(carc_rule(CARC_R_FARMERS)->implemented);
	ck_assert(carc_rule(CARC_R_TINY_CITY)->implemented);
	ck_assert(carc_rule(CARC_R_UNPLACEABLE_TILE)->implemented);
	ck_assert_ptr_null(carc_rule(-1));
	ck_assert_ptr_null(carc_rule(CARC_R_COUNT));
	ck_assert_int_eq(carc_rule_find("farm-scoring"), -1);
	ck_assert_int_eq(carc_rule_value(-1, "discard"), -1);
}
END_TEST

/* PROTOCOL.md 4.1: the expansion names and their tile sets. */
START_TEST(test_expansions)
{
	static const char *const want[][2] = {
		{ "base", "basic:1" }, { "river", "river/1:1" }, { "river2", "river/2:1" }, { "mini", "gq11" },
		{ "inns-cathedrals", "inns-and-cathedrals:1" }, { "traders-builders", "traders-and-builders:1" },
		{ "princess-dragon", "princess-and-dragon:1" }, { "tower", "tower:1" },
		{ "abbey-mayor", "abbey-and-mayor:1" }, { "count", "count" }, { "king-robber", "king-and-robber:1" },
		{ "cathars", "siege/cathars" }, { "cult", "cult/6" }, { "catapult", "catapult" },
		{ "hills-sheep", "hills-and-sheep:1" },
	};
	int n = (int)(sizeof want / sizeof want[0]);
	ck_assert_int_ge(carc_expansion_count(), n);
	for (int i = 0; i < n; i++) {
		int e = carc_expansion_find(want[i][0]);
		ck_assert_msg(e >= 0, "expansion %s unknown", want[i][0]);
		ck_assert_str_eq(carc_expansion(e)->name, want[i][0]);
		ck_assert_str_eq(carc_expansion(e)->tileset, want[i][1]);
	}
	ck_assert(carc_expansion(carc_expansion_find("base"))->available);
	ck_assert_int_eq(carc_expansion_find("Base"), -1);
	ck_assert_ptr_null(carc_expansion(-1));
	ck_assert_ptr_null(carc_expansion(carc_expansion_count()));
}
END_TEST

static Suite *names_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("names");
	tcase_add_test(tc, test_strerror);
	tcase_add_test(tc, test_ports);
	tcase_add_test(tc, test_kind_names);
	tcase_add_test(tc, test_rules_table);
	tcase_add_test(tc, test_expansions);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(names_suite());
}

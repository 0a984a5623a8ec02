/*
 * test_score.c - feature.c and score.c on small hand-built boards: features
 * merging across tiles, completion, points for roads, cities (pennants,
 * tiny_city), cloisters, farms under each farm_scoring rule, ties, and
 * followers scored and returned in the turn that completes their feature.
 * (The rule scenarios in tests/scenarios/ go through RULES.md in depth;
 * these pin down the module's mechanics, the property test the rest.)
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "testutil.h"

static tu_events ev;

/* The one `scored` event of a seat in the sink (asserts there is one). */
static const carc_event *scored_for(int seat)
{
	const carc_event *found = NULL;
	for (int i = 0; i < ev.sink.n; i++)
		if (ev.ev[i].type == CARC_EV_SCORED && ev.ev[i].seat == seat) {
			ck_assert_msg(!found, "two scored events for seat %d", seat);
			found = &ev.ev[i];
		}
	ck_assert_msg(found != NULL, "no scored event for seat %d", seat);
	return found;
}

static void apply_ev(carc_game *g, carc_move m)
{
	tu_events_reset(&ev);
	tu_apply_ok(g, m, &ev.sink);
}

/* Start D; W (three roads to a junction) east and west of it: the start's
 * road now ends at a junction on both sides: 3 tiles, 3 points. */
START_TEST(test_road_completed_by_other_seat)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, (const char *const[]){ "BA/RRR", "BA/RRR", NULL });
	carc_game *g = tu_game_new(&cfg, NULL);
	apply_ev(g, tu_place(g, 1, 0, 0));
	apply_ev(g, tu_deploy(1, 0, CARC_W));
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_FEATURE_COMPLETED), 0);
	apply_ev(g, tu_place(g, -1, 0, 0));
	/* scoring comes after the action decision, not at placement */
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_SCORED), 0);
	ck_assert_int_eq(carc_game_phase(g), CARC_PH_ACTION);
	apply_ev(g, tu_pass());
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_FEATURE_COMPLETED), 1);
	const carc_event *c = tu_events_nth(&ev, CARC_EV_FEATURE_COMPLETED, 0);
	ck_assert_int_eq(c->fkind, CARC_F_ROAD);
	ck_assert_int_eq(c->ntiles, 3);
	const carc_event *s = scored_for(0);
	ck_assert_int_eq(s->points, 3);
	ck_assert_int_eq(s->fkind, CARC_SC_ROAD);
	ck_assert_int_eq(s->final, 0);
	ck_assert(c < s);
	/* scored where it was completed: the same (x, y, at) */
	ck_assert_int_eq(s->x, c->x);
	ck_assert_int_eq(s->y, c->y);
	ck_assert_int_eq(s->port, c->port);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_RETURNED), 1);
	const carc_event *r = tu_events_nth(&ev, CARC_EV_RETURNED, 0);
	ck_assert_int_eq(r->seat, 0);
	ck_assert_int_eq(r->why, CARC_WHY_SCORED);
	ck_assert(s < r);
	ck_assert_int_eq(carc_supply_count(g, 0, CARC_FIG_FOLLOWER), 7);
	ck_assert(carc_game_over(g));
	ck_assert_int_eq(carc_game_score(g, 0), 3);
	ck_assert_int_eq(carc_game_score_by(g, 0, CARC_SC_ROAD), 3);
	ck_assert_int_eq(carc_game_score(g, 1), 0);
	/* nothing scores again at the end */
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_SCORED), 1);
	free(g);
}
END_TEST

/* Place, score, return in one turn: deploy onto the road the tile completes. */
START_TEST(test_place_score_return_same_turn)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, (const char *const[]){ "BA/RRR", "BA/RRR", "BA/L", NULL });
	carc_game *g = tu_game_new(&cfg, NULL);
	apply_ev(g, tu_place(g, 1, 0, 0));
	apply_ev(g, tu_pass());
	apply_ev(g, tu_place(g, -1, 0, 0));
	carc_move moves[16];
	int n = carc_legal_moves(g, moves, 16);
	carc_move d = tu_deploy(-1, 0, CARC_E);
	ck_assert_int_ge(tu_find_move(moves, n, &d), 0);
	apply_ev(g, d);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_DEPLOYED), 1);
	ck_assert_int_eq(scored_for(1)->points, 3);
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_RETURNED, 0)->seat, 1);
	ck_assert(tu_events_nth(&ev, CARC_EV_DEPLOYED, 0) < tu_events_nth(&ev, CARC_EV_FEATURE_COMPLETED, 0));
	ck_assert_int_eq(carc_supply_count(g, 1, CARC_FIG_FOLLOWER), 7);
	ck_assert_int_eq(tu_on_board(g, 1), 0);
	ck_assert_int_eq(carc_game_score(g, 1), 3);
	ck_assert(!carc_game_over(g));
	free(g);
}
END_TEST

/* Two roads, one follower each, joined into one: a tie, both score in full. */
START_TEST(test_joined_road_tie_final)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0,
	                (const char *const[]){ "BA/RFr", "BA/RFr", "BA/RFr", "BA/Rr", "BA/Rr", NULL });
	carc_game *g = tu_game_new(&cfg, NULL);
	apply_ev(g, tu_place(g, 1, 0, 0));
	apply_ev(g, tu_deploy(1, 0, CARC_E)); /* seat 0: the start's road */
	apply_ev(g, tu_place(g, 0, 1, 0));
	apply_ev(g, tu_deploy(0, 1, CARC_E)); /* seat 1: a road of its own, one row south */
	apply_ev(g, tu_place(g, 1, 1, 0));
	apply_ev(g, tu_pass());
	apply_ev(g, tu_place(g, 2, 0, 0)); /* V: road from the west turning south */
	apply_ev(g, tu_pass());
	apply_ev(g, tu_place(g, 2, 1, 1)); /* V turned: from the north turning west: joins both */
	if (!carc_game_over(g)) apply_ev(g, tu_pass());
	ck_assert(carc_game_over(g));
	/* D, U, V, V, U, U: six tiles, incomplete (the start's west end is open) */
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_FEATURE_COMPLETED), 0);
	for (int seat = 0; seat < 2; seat++) {
		const carc_event *s = scored_for(seat);
		ck_assert_int_eq(s->points, 6);
		ck_assert_int_eq(s->final, 1);
		ck_assert_int_eq(s->fkind, CARC_SC_ROAD);
		ck_assert_int_eq(carc_game_score(g, seat), 6);
	}
	/* one feature, so one place for both events */
	ck_assert_int_eq(scored_for(0)->x, scored_for(1)->x);
	ck_assert_int_eq(scored_for(0)->y, scored_for(1)->y);
	ck_assert_int_eq(scored_for(0)->port, scored_for(1)->port);
	free(g);
}
END_TEST

/* D's city, F (city across, pennant) turned north-south, E's city facing
 * south: 3 tiles and a pennant, 8 points; the same city left open at the
 * end: 2 tiles + 1 pennant = 3. */
START_TEST(test_city_with_pennant)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 1, "BA/RCr", 0, (const char *const[]){ "BA/CFc+", "BA/C", NULL });
	carc_game *g = tu_game_new(&cfg, NULL);
	apply_ev(g, tu_place(g, 0, -1, 1));
	apply_ev(g, tu_deploy(0, -1, CARC_N));
	apply_ev(g, tu_place(g, 0, -2, 2));
	apply_ev(g, tu_pass());
	const carc_event *c = tu_events_nth(&ev, CARC_EV_FEATURE_COMPLETED, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->fkind, CARC_F_CITY);
	ck_assert_int_eq(c->ntiles, 3);
	ck_assert_int_eq(scored_for(0)->points, 8);
	ck_assert_int_eq(scored_for(0)->fkind, CARC_SC_CITY);
	ck_assert_int_eq(carc_game_score_by(g, 0, CARC_SC_CITY), 8);
	free(g);

	tu_config_fixed(&cfg, 1, "BA/RCr", 0, (const char *const[]){ "BA/CFc+", NULL });
	g = tu_game_new(&cfg, NULL);
	apply_ev(g, tu_place(g, 0, -1, 1));
	apply_ev(g, tu_deploy(0, -1, CARC_S));
	ck_assert(carc_game_over(g));
	ck_assert_int_eq(scored_for(0)->points, 3);
	ck_assert_int_eq(scored_for(0)->final, 1);
	free(g);
}
END_TEST

/* A completed two-tile city: 4 points, or 2 under tiny_city 2-per-tile-1. */
START_TEST(test_tiny_city)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 1, "BA/RCr", 0, (const char *const[]){ "BA/C", "BA/L", NULL });
	cfg.rules[CARC_R_TINY_CITY] = _i;
	carc_game *g = tu_game_new(&cfg, NULL);
	apply_ev(g, tu_place(g, 0, -1, 2));
	apply_ev(g, tu_deploy(0, -1, CARC_S));
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_FEATURE_COMPLETED, 0)->ntiles, 2);
	ck_assert_int_eq(scored_for(0)->points, _i == CARC_TINY_2_PER_TILE_1 ? 2 : 4);
	free(g);
}
END_TEST

/* A cloister with all eight neighbours: 9, scored in the turn the last
 * neighbour arrives; one with only the start tile beside it: 1 + 1. */
START_TEST(test_cloister)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 1, "BA/RCr", 0,
	                (const char *const[]){ "BA/L", "BA/RFr", "BA/RFr", "BA/C", "BA/C", "BA/C", "BA/C", "BA/C", NULL });
	carc_game *g = tu_game_new(&cfg, NULL);
	apply_ev(g, tu_place(g, 0, 1, 0));
	apply_ev(g, tu_deploy(0, 1, CARC_P_CLOISTER));
	static const int ring[][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 1, 1, 1 }, { -1, 1, 3 }, { 0, 2, 2 }, { 1, 2, 1 } };
	for (int i = 0; i < 6; i++) {
		apply_ev(g, tu_place(g, ring[i][0], ring[i][1], ring[i][2]));
		ck_assert_int_eq(tu_events_count(&ev, CARC_EV_FEATURE_COMPLETED), 0);
		apply_ev(g, tu_pass());
		ck_assert_int_eq(tu_events_count(&ev, CARC_EV_SCORED), 0);
	}
	apply_ev(g, tu_place(g, -1, 2, 3)); /* the eighth neighbour */
	if (!carc_game_over(g)) apply_ev(g, tu_pass());
	const carc_event *c = tu_events_nth(&ev, CARC_EV_FEATURE_COMPLETED, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->fkind, CARC_F_CLOISTER);
	ck_assert_int_eq(c->x, 0);
	ck_assert_int_eq(c->y, 1);
	ck_assert_int_eq(c->port, CARC_P_CLOISTER);
	ck_assert_int_eq(scored_for(0)->points, 9);
	ck_assert_int_eq(scored_for(0)->final, 0);
	ck_assert_int_eq(scored_for(0)->fkind, CARC_SC_CLOISTER);
	ck_assert_int_eq(carc_game_score(g, 0), 9);
	free(g);

	tu_config_fixed(&cfg, 1, "BA/RCr", 0, (const char *const[]){ "BA/L", NULL });
	g = tu_game_new(&cfg, NULL);
	apply_ev(g, tu_place(g, 0, 1, 0));
	apply_ev(g, tu_deploy(0, 1, CARC_P_CLOISTER));
	ck_assert(carc_game_over(g));
	ck_assert_int_eq(scored_for(0)->points, 2);
	ck_assert_int_eq(scored_for(0)->final, 1);
	free(g);
}
END_TEST

/* A city completed with nobody in it is reported but pays nothing; two
 * different farms, one farmer each, border it: under per-city-4 the city
 * pays 4 once to the tied majority (both), per farm each farm pays. */
START_TEST(test_farms_each_rule)
{
	static const int want[3] = { [CARC_FARM_PER_CITY_4] = 4, [CARC_FARM_PER_FARM_3] = 3, [CARC_FARM_PER_FARM_4] = 4 };
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, (const char *const[]){ "BA/C", "BA/RFr", NULL });
	cfg.rules[CARC_R_FARM_SCORING] = _i;
	carc_game *g = tu_game_new(&cfg, NULL);
	apply_ev(g, tu_place(g, 0, -1, 2));
	apply_ev(g, tu_deploy(0, -1, CARC_NL)); /* seat 0: a farmer in E's field */
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_FEATURE_COMPLETED), 1);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_SCORED), 0);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_RETURNED), 0);
	apply_ev(g, tu_place(g, 1, 0, 0));
	apply_ev(g, tu_deploy(1, 0, CARC_NL)); /* seat 1: the field north of the road */
	ck_assert(carc_game_over(g));
	for (int seat = 0; seat < 2; seat++) {
		const carc_event *s = scored_for(seat);
		ck_assert_int_eq(s->points, want[_i]);
		ck_assert_int_eq(s->fkind, CARC_SC_FIELD);
		ck_assert_int_eq(s->final, 1);
		ck_assert_int_eq(carc_game_score_by(g, seat, CARC_SC_FIELD), want[_i]);
	}
	/* farmers stay on the board */
	ck_assert_int_eq(tu_on_board(g, 0), 1);
	ck_assert_int_eq(tu_on_board(g, 1), 1);
	free(g);
}
END_TEST

/* A farm may border far more completed cities than a game of the sets'
 * own tiles ever shows: a game's `tiles` may repeat a tile.  Start C (a
 * city cap, north) at (0,0); C turned 180 above it closes a two-tile
 * city; then C east of the start, C turned above that, and so on: CITIES
 * completed cities in a row, and below them, along y = 0, one farm.
 * Seat 1's farmer enters it on the third tile, at (1,0).  At the end it
 * scores every one of the cities: 4 each (per-city-4, per-farm-4) or 3
 * (per-farm-3).  Nobody stands in the cities. */
#define CITIES 150
START_TEST(test_farm_many_cities)
{
	static const char *ids[2 * CITIES];
	for (int k = 0; k < 2 * CITIES - 1; k++) ids[k] = "BA/C";
	ids[2 * CITIES - 1] = NULL;
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/C", 0, ids);
	cfg.rules[CARC_R_FARM_SCORING] = _i;
	carc_game *g = tu_game_new(&cfg, NULL);
	for (int x = 0; x < CITIES; x++)
		for (int up = x == 0; up < 2; up++) { /* (x, 0) city north, then (x, -1) city south */
			apply_ev(g, tu_place(g, x, up ? -1 : 0, up ? 2 : 0));
			if (x == 1 && !up) apply_ev(g, tu_deploy(1, 0, CARC_WL)); /* seat 1: the farm below */
			else if (!carc_game_over(g) && carc_game_phase(g) == CARC_PH_ACTION) apply_ev(g, tu_pass());
		}
	ck_assert(carc_game_over(g));
	ck_assert_int_eq(carc_game_score_by(g, 1, CARC_SC_FIELD), (_i == CARC_FARM_PER_FARM_3 ? 3 : 4) * CITIES);
	ck_assert_int_eq(carc_game_score_by(g, 0, CARC_SC_FIELD), 0);
	free(g);
}
END_TEST

static Suite *score_suite(void)
{
	Suite *s = suite_create("score");
	TCase *tc = tcase_create("features");
	tcase_add_test(tc, test_road_completed_by_other_seat);
	tcase_add_test(tc, test_place_score_return_same_turn);
	tcase_add_test(tc, test_joined_road_tie_final);
	tcase_add_test(tc, test_city_with_pennant);
	tcase_add_loop_test(tc, test_tiny_city, CARC_TINY_NORMAL, CARC_TINY_2_PER_TILE_1 + 1);
	tcase_add_test(tc, test_cloister);
	tcase_add_loop_test(tc, test_farms_each_rule, CARC_FARM_PER_CITY_4, CARC_FARM_PER_FARM_4 + 1);
	tcase_add_loop_test(tc, test_farm_many_cities, CARC_FARM_PER_CITY_4, CARC_FARM_PER_FARM_4 + 1);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(score_suite());
}

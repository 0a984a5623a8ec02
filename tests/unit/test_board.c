/*
 * test_board.c - board.c: where a tile may go.  Every legal placement
 * passes carc_check_move, every (x, y, rot) around the board gets the
 * verdict the naive oracle gives (occupied, not adjacent, edge mismatch
 * with the mismatching side in `detail`), hand-made wrong placements, the
 * unplaceable tile (discard and reshuffle), and reading the board back.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "oracle.h"
#include "testutil.h"

static orc oracle;

static void feed_oracle(orc *o, const tu_events *ev)
{
	for (int i = 0; i < ev->sink.n; i++) {
		const carc_event *e = &ev->ev[i];
		if (e->type != CARC_EV_TILE_PLACED) continue;
		int done[64], ndone;
		orc_place(o, e->tile, e->x, e->y, e->rot, done, &ndone);
	}
}

/* Every (x, y, rot) in the board's bounding box plus a margin of two:
 * carc_check_move agrees with the oracle, `detail` names a side that does
 * not match, and the OK ones are exactly the legal-move list. */
static void check_every_placement(const carc_game *g, const orc *o, const carc_move *legal, int nlegal)
{
	int minx, maxx, miny, maxy, ok = 0;
	tu_board_bounds(g, &minx, &maxx, &miny, &maxy);
	for (int y = miny - 2; y <= maxy + 2; y++)
		for (int x = minx - 2; x <= maxx + 2; x++)
			for (int r = 0; r < 4; r++) {
				carc_move m = tu_place(g, x, y, r);
				int detail = -1;
				unsigned bad;
				carc_rc want = orc_fits(o, m.tile, x, y, r, &bad), got = carc_check_move(g, &m, &detail);
				TU_ASSERT_MSG(got == want, "%s at (%d,%d) rot %d: engine says %s, oracle %s", carc_tile_id(m.tile), x,
				              y, r, carc_strerror(got), carc_strerror(want));
				if (got == CARC_E_EDGE)
					TU_ASSERT_MSG(detail >= 0 && detail < 4 && (bad >> detail & 1),
					              "%s at (%d,%d) rot %d: detail %d, mismatching sides %#x", carc_tile_id(m.tile), x,
					              y, r, detail, bad);
				int listed = tu_find_move(legal, nlegal, &m) >= 0;
				TU_ASSERT_MSG(listed == (got == CARC_OK), "(%d,%d) rot %d: listed %d, check %s", x, y, r, listed,
				              carc_strerror(got));
				ok += got == CARC_OK;
			}
	TU_EQ(ok, nlegal);
	TU_EQ(orc_count_placements(o, carc_game_drawn(g)), nlegal);
}

START_TEST(test_legal_placements_exhaustive)
{
	carc_move *moves = malloc(sizeof *moves * CARC_MAX_MOVES);
	static tu_events ev;
	ck_assert_ptr_nonnull(moves);
	carc_rng pick;
	carc_rng_seed(&pick, 0xb0a4d + (uint64_t)_i);
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.seed = 1000 + (uint64_t)_i;
	cfg.nseats = (uint8_t)(1 + _i % 6);
	orc_init(&oracle, &cfg);
	tu_events_reset(&ev);
	carc_game *g = tu_game_new(&cfg, &ev.sink);
	int decisions = 0;
	while (!carc_game_over(g)) {
		feed_oracle(&oracle, &ev);
		int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		TU_GT(n, 0);
		TU_LE(n, CARC_MAX_MOVES);
		for (int i = 0; i < n; i++) {
			int detail = -1;
			carc_rc rc = carc_check_move(g, &moves[i], &detail);
			TU_ASSERT_MSG(rc == CARC_OK, "legal move %d (%s) refused: %s", i, carc_mtype_name(moves[i].type),
			              carc_strerror(rc));
			/* no duplicates in the list */
			TU_EQ(tu_find_move(moves, i, &moves[i]), -1);
		}
		if (carc_game_phase(g) == CARC_PH_TILE) {
			for (int i = 0; i < n; i++) {
				TU_EQ(moves[i].type, CARC_MV_PLACE_TILE);
				TU_EQ(moves[i].tile, carc_game_drawn(g));
			}
			check_every_placement(g, &oracle, moves, n);
			decisions++;
		}
		carc_move m = moves[carc_rng_below(&pick, (uint32_t)n)];
		tu_events_reset(&ev);
		tu_apply_ok(g, m, &ev.sink);
	}
	TU_GE(decisions, 60);
	free(moves);
	free(g);
}
END_TEST

/* Start D at (0,0): city north, road west-east, field south. */
START_TEST(test_wrong_placements)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0,
	                (const char *const[]){ "BA/L", "BA/RFr", "BA/L", "BA/C", NULL });
	carc_game *g = tu_game_new(&cfg, NULL);
	ck_assert_int_eq(carc_game_drawn(g), tu_tile("BA/L")); /* B: cloister, all field */
	uint64_t h = carc_game_hash(g);
	int detail;
	carc_move m;

	m = tu_place(g, 0, 0, 0);
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_OCCUPIED);
	ck_assert_int_eq(carc_apply(g, &m, NULL), CARC_E_OCCUPIED);
	m = tu_place(g, 5, 5, 0);
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_NOT_ADJACENT);
	m = tu_place(g, 1, 1, 0); /* corner contact only */
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_NOT_ADJACENT);
	ck_assert_int_eq(carc_apply(g, &m, NULL), CARC_E_NOT_ADJACENT);
	m = tu_place(g, 2, 0, 0); /* one space away */
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_NOT_ADJACENT);
	/* the far corners of the coordinate range are just far away */
	static const int16_t far[][2] = { { INT16_MIN, 0 }, { 0, INT16_MIN }, { INT16_MIN, INT16_MIN }, { INT16_MAX, 0 },
		                          { 0, INT16_MAX }, { INT16_MAX, INT16_MAX }, { -16384, -16384 }, { 0, -16385 },
		                          { 1, -16385 }, { -16385, 1 } };
	for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
		m = tu_place(g, far[i][0], far[i][1], 0);
		ck_assert_msg(carc_check_move(g, &m, NULL) == CARC_E_NOT_ADJACENT, "(%d,%d)", far[i][0], far[i][1]);
		ck_assert_int_eq(carc_board_find(g, far[i][0], far[i][1]), -1);
	}
	for (int r = 0; r < 4; r++) {
		/* north of the start the tile must show a city on its south side */
		m = tu_place(g, 0, -1, r);
		detail = -1;
		ck_assert_int_eq(carc_check_move(g, &m, &detail), CARC_E_EDGE);
		ck_assert_int_eq(detail, CARC_S);
		/* east: a road on its west side */
		m = tu_place(g, 1, 0, r);
		detail = -1;
		ck_assert_int_eq(carc_check_move(g, &m, &detail), CARC_E_EDGE);
		ck_assert_int_eq(detail, CARC_W);
		m = tu_place(g, -1, 0, r);
		detail = -1;
		ck_assert_int_eq(carc_check_move(g, &m, &detail), CARC_E_EDGE);
		ck_assert_int_eq(detail, CARC_E);
		ck_assert_int_eq(carc_apply(g, &m, NULL), CARC_E_EDGE);
		/* south: field against field */
		m = tu_place(g, 0, 1, r);
		ck_assert_int_eq(carc_check_move(g, &m, &detail), CARC_OK);
	}
	/* not the drawn tile, a fifth rotation, other move types */
	m = tu_place(g, 0, 1, 0);
	m.tile = (uint16_t)tu_tile("BA/RFr");
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_TILE);
	m = tu_place(g, 0, 1, 4);
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_ARG);
	m = tu_deploy(0, 0, CARC_N);
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_PHASE);
	m = tu_pass();
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_PHASE);
	ck_assert_int_eq(carc_apply(g, &m, NULL), CARC_E_PHASE);
	ck_assert(carc_game_hash(g) == carc_game_hash(g)); /* the hash is a pure function */
	ck_assert(carc_game_hash(g) == h);                   /* nothing refused changed anything */

	tu_apply_ok(g, tu_place(g, 0, 1, 0), NULL);
	tu_apply_ok(g, tu_pass(), NULL);
	/* U (road W-E) east of the start */
	ck_assert_int_eq(carc_game_drawn(g), tu_tile("BA/RFr"));
	m = tu_place(g, 1, 0, 1); /* turned: road N-S, field to the west */
	detail = -1;
	ck_assert_int_eq(carc_check_move(g, &m, &detail), CARC_E_EDGE);
	ck_assert_int_eq(detail, CARC_W);
	tu_apply_ok(g, tu_place(g, 1, 0, 2), NULL);
	tu_apply_ok(g, tu_pass(), NULL);
	/* B again, then E = BA/C at (1,1): north is U's field, west is B's field */
	tu_apply_ok(g, tu_place(g, -1, 1, 0), NULL);
	tu_apply_ok(g, tu_pass(), NULL);
	ck_assert_int_eq(carc_game_drawn(g), tu_tile("BA/C"));
	h = carc_game_hash(g);
	static const int want[4] = { CARC_N, -1, -1, CARC_W }; /* the city faces N, E, S, W */
	for (int r = 0; r < 4; r++) {
		m = tu_place(g, 1, 1, r);
		detail = -1;
		carc_rc rc = carc_check_move(g, &m, &detail);
		if (want[r] < 0) {
			ck_assert_int_eq(rc, CARC_OK);
		} else {
			ck_assert_int_eq(rc, CARC_E_EDGE);
			ck_assert_int_eq(detail, want[r]);
		}
	}
	/* (0,-1): the only neighbour is the start's city, so only the city facing south fits */
	for (int r = 0; r < 4; r++) {
		m = tu_place(g, 0, -1, r);
		ck_assert_int_eq(carc_check_move(g, &m, NULL), r == 2 ? CARC_OK : CARC_E_EDGE);
	}
	ck_assert(carc_game_hash(g) == h);
	free(g);
}
END_TEST

/* Start C (city on every side): a road tile fits nowhere. */
START_TEST(test_unplaceable_discarded)
{
	static tu_events ev;
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/Cccc+", 0, (const char *const[]){ "BA/RFr", "BA/C", NULL });
	tu_events_reset(&ev);
	carc_game *g = tu_game_new(&cfg, &ev.sink);
	ck_assert_int_eq(carc_game_drawn(g), tu_tile("BA/C"));
	ck_assert_int_eq(carc_game_tiles_left(g), 0);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_TILE_DRAWN), 2);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_TILE_DISCARDED), 1);
	const carc_event *e = tu_events_nth(&ev, CARC_EV_TILE_DISCARDED, 0);
	ck_assert_int_eq(e->tile, tu_tile("BA/RFr"));
	ck_assert_int_eq(e->why, CARC_WHY_UNPLACEABLE);
	/* the discard comes after its draw, and the next draw after the discard */
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TILE_DRAWN, 0)->tile, tu_tile("BA/RFr"));
	ck_assert(tu_events_nth(&ev, CARC_EV_TILE_DRAWN, 0) < e && e < tu_events_nth(&ev, CARC_EV_TILE_DRAWN, 1));
	ck_assert_int_eq(carc_game_seat(g), 0); /* the same seat draws again */
	tu_apply_ok(g, tu_place(g, 0, 1, 0), NULL);
	ck_assert(carc_game_over(g) || carc_game_phase(g) == CARC_PH_ACTION);
	free(g);
}
END_TEST

START_TEST(test_unplaceable_reshuffled)
{
	static tu_events ev;
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/Cccc+", 0, (const char *const[]){ "BA/RFr", "BA/C", NULL });
	cfg.rules[CARC_R_UNPLACEABLE_TILE] = CARC_UNPLACEABLE_RESHUFFLE;
	tu_events_reset(&ev);
	carc_game *g = tu_game_new(&cfg, &ev.sink);
	ck_assert_int_eq(carc_game_drawn(g), tu_tile("BA/C"));
	ck_assert_int_eq(carc_game_tiles_left(g), 1); /* U went back under the supply */
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TILE_DISCARDED, 0)->why, CARC_WHY_RESHUFFLED);
	/* drawn as dealt: neither draw is of a tile put back */
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_TILE_DRAWN), 2);
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TILE_DRAWN, 0)->why, 0);
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TILE_DRAWN, 1)->why, 0);
	/* E south of C, city north: then U fits east of E */
	tu_apply_ok(g, tu_place(g, 0, 1, 0), NULL);
	tu_events_reset(&ev);
	tu_apply_ok(g, tu_pass(), &ev.sink);
	ck_assert_int_eq(carc_game_drawn(g), tu_tile("BA/RFr"));
	/* U comes round again, and its draw says so (the history leaves it
	 * out of the supply as dealt) */
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TILE_DRAWN, 0)->why, CARC_WHY_RESHUFFLED);
	ck_assert_int_eq(carc_game_seat(g), 1);
	ck_assert_int_eq(carc_game_tiles_left(g), 0);
	tu_apply_ok(g, tu_place(g, 1, 1, 1), NULL);
	tu_apply_ok(g, tu_pass(), NULL);
	ck_assert(carc_game_over(g));
	ck_assert_int_eq(carc_board_count(g), 3);
	free(g);
}
END_TEST

/* A tile put back once and still unplaceable is discarded for good. */
START_TEST(test_unplaceable_reshuffled_once)
{
	static tu_events ev;
	carc_config cfg;
	tu_config_fixed(&cfg, 3, "BA/Cccc+", 0, (const char *const[]){ "BA/RFr", NULL });
	cfg.rules[CARC_R_UNPLACEABLE_TILE] = CARC_UNPLACEABLE_RESHUFFLE;
	tu_events_reset(&ev);
	carc_game *g = tu_game_new(&cfg, &ev.sink);
	ck_assert(carc_game_over(g));
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_TILE_DRAWN), 2);
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TILE_DRAWN, 0)->why, 0);
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TILE_DRAWN, 1)->why, CARC_WHY_RESHUFFLED);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_TILE_DISCARDED), 2);
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TILE_DISCARDED, 0)->why, CARC_WHY_RESHUFFLED);
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TILE_DISCARDED, 1)->why, CARC_WHY_UNPLACEABLE);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_GAME_OVER), 1);
	ck_assert_int_eq(carc_board_count(g), 1);
	free(g);
}
END_TEST

START_TEST(test_board_readback)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 1, "BA/RCr", 0, (const char *const[]){ "BA/RFr", "BA/L", NULL });
	carc_game *g = tu_game_new(&cfg, NULL);
	ck_assert_int_eq(carc_board_count(g), 1);
	ck_assert_int_eq(carc_board_find(g, 0, 0), 0);
	ck_assert_int_eq(carc_board_find(g, 1, 0), -1);
	ck_assert_int_eq(carc_board_find(g, 0, 1), -1);
	tu_apply_ok(g, tu_place(g, 1, 0, 2), NULL);
	tu_apply_ok(g, tu_pass(), NULL);
	tu_apply_ok(g, tu_place(g, 0, 1, 3), NULL);
	ck_assert_int_eq(carc_board_count(g), 3);
	static const struct { const char *id; int x, y, rot; } want[] = {
		{ "BA/RCr", 0, 0, 0 }, { "BA/RFr", 1, 0, 2 }, { "BA/L", 0, 1, 3 }
	};
	for (int i = 0; i < 3; i++) {
		carc_placed_info p;
		TU_EQ(carc_board_get(g, i, &p), 1);
		ck_assert_int_eq(p.tile, tu_tile(want[i].id));
		ck_assert_int_eq(p.x, want[i].x);
		ck_assert_int_eq(p.y, want[i].y);
		ck_assert_int_eq(p.rot, want[i].rot);
		ck_assert_int_eq(carc_board_find(g, want[i].x, want[i].y), i);
	}
	ck_assert_int_eq(carc_board_find(g, 1, 1), -1);
	ck_assert_int_eq(carc_board_find(g, -1, 0), -1);
	/* a frontier space is not a tile, nor is a far one */
	ck_assert_int_eq(carc_board_find(g, 2, 0), -1);
	ck_assert_int_eq(carc_board_find(g, 900, -900), -1);
	free(g);
}
END_TEST

/* Custom start tiles: several, anywhere, turned. */
START_TEST(test_custom_starts)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, (const char *const[]){ "BA/RFr", NULL });
	cfg.nstart = 2;
	cfg.start[1] = (carc_start_tile){ (uint16_t)tu_tile("BA/Cccc+"), 3, -2, 1 };
	carc_game *g = tu_game_new(&cfg, NULL);
	ck_assert_int_eq(carc_board_count(g), 2);
	ck_assert_int_eq(carc_board_find(g, 3, -2), 1);
	carc_placed_info p;
	TU_EQ(carc_board_get(g, 1, &p), 1);
	ck_assert_int_eq(p.rot, 1);
	/* U may go next to the start tile but not next to C */
	carc_move m = tu_place(g, 3, -1, 0);
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_EDGE);
	m = tu_place(g, 1, 0, 0);
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_OK);
	free(g);
}
END_TEST

/* carc_feature_ports: a road that comes back to its own junction is one
 * feature in two parts of the junction tile once the loop closes; until
 * then, and in carc_tile_features always, each part has its own ports. */
START_TEST(test_feature_ports_two_parts)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 1, "BA/RRR", 0, (const char *const[]){ "BA/Rr", NULL });
	cfg.nstart = 3; /* the junction's E and S roads, joined by two curves round (1,1) */
	cfg.start[1] = (carc_start_tile){ (uint16_t)tu_tile("BA/Rr"), 1, 0, 0 };
	cfg.start[2] = (carc_start_tile){ (uint16_t)tu_tile("BA/Rr"), 1, 1, 1 };
	carc_game *g = tu_game_new(&cfg, NULL);
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, CARC_E), 1u << CARC_E);
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, CARC_S), 1u << CARC_S);
	tu_apply_ok(g, tu_place(g, 0, 1, 2), NULL); /* the last curve closes the loop */
	unsigned loop = 1u << CARC_E | 1u << CARC_S;
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, CARC_E), loop);
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, CARC_S), loop);
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, CARC_W), 1u << CARC_W);
	ck_assert_uint_eq(carc_feature_ports(g, 1, 1, CARC_N), 1u << CARC_N | 1u << CARC_W);
	/* a field's half-edges; the parts apart in carc_tile_features */
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, CARC_SL) >> CARC_SL & 1, 1);
	uint16_t ports[32]; /* more than any tile has parts */
	int n = carc_tile_features(g, 0, 0, ports, NULL, 32), seen = 0;
	for (int i = 0; i < n; i++) {
		ck_assert_uint_ne(ports[i], loop);
		seen += ports[i] == 1u << CARC_E || ports[i] == 1u << CARC_S;
	}
	ck_assert_int_eq(seen, 2);
	/* nothing there, or no such port */
	ck_assert_uint_eq(carc_feature_ports(g, 5, 5, CARC_E), 0);
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, CARC_P_CLOISTER), 0);
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, CARC_P_NW), 0);
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, CARC_PORT_COUNT), 0);
	ck_assert_uint_eq(carc_feature_ports(g, 0, 0, -1), 0);
	free(g);
}
END_TEST

static Suite *board_suite(void)
{
	Suite *s = suite_create("board");
	TCase *tc = tcase_create("exhaustive");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_legal_placements_exhaustive, 0, 12);
	suite_add_tcase(s, tc);
	tc = tcase_create("placement");
	tcase_add_test(tc, test_wrong_placements);
	tcase_add_test(tc, test_unplaceable_discarded);
	tcase_add_test(tc, test_unplaceable_reshuffled);
	tcase_add_test(tc, test_unplaceable_reshuffled_once);
	tcase_add_test(tc, test_board_readback);
	tcase_add_test(tc, test_custom_starts);
	tcase_add_test(tc, test_feature_ports_two_parts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(board_suite());
}

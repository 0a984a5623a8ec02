/*
 * test_game.c - game.c: the phase machine (tile -> action -> next seat, one
 * to six seats, skipped decisions, the end), deploy rules (only on the tile
 * just placed, never into an occupied connected feature, seven followers a
 * seat), refused moves changing nothing, clones, and config validation.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "testutil.h"

static carc_move moves[CARC_MAX_MOVES];

/* ---- configuration -------------------------------------------------------------- */

START_TEST(test_config_defaults)
{
	carc_config cfg;
	memset(&cfg, 0xa5, sizeof cfg);
	carc_config_init(&cfg);
	ck_assert_int_eq(cfg.nseats, 2);
	ck_assert_uint_eq(cfg.expansions, 1u << carc_expansion_find("base"));
	for (int i = 0; i < CARC_R_COUNT; i++) ck_assert_int_eq(cfg.rules[i], carc_rule(i)->def);
	ck_assert_int_eq(cfg.ntiles, 0);
	ck_assert_int_eq(cfg.nstart, 0);
	carc_game *g = tu_game_new(&cfg, NULL);
	ck_assert_int_eq(carc_game_nseats(g), 2);
	ck_assert_int_eq(carc_game_phase(g), CARC_PH_TILE);
	ck_assert_int_eq(carc_game_seat(g), 0);
	ck_assert(!carc_game_over(g));
	ck_assert_int_eq(carc_game_turn(g), 1);
	ck_assert_int_ge(carc_game_drawn(g), 0);
	ck_assert_int_eq(carc_game_tiles_left(g), 70); /* 72 - start - the one drawn */
	ck_assert_int_eq(carc_board_count(g), 1);
	carc_placed_info p;
	TU_EQ(carc_board_get(g, 0, &p), 1);
	ck_assert_int_eq(p.tile, tu_tile("BA/RCr"));
	ck_assert_int_eq(p.x, 0);
	ck_assert_int_eq(p.y, 0);
	ck_assert_int_eq(p.rot, 0);
	ck_assert(!memcmp(carc_game_config(g), &cfg, sizeof cfg));
	for (int s = 0; s < 2; s++) ck_assert_int_eq(carc_game_score(g, s), 0);
	free(g);
}
END_TEST

static carc_rc init_rc(const carc_config *cfg)
{
	carc_game *g = malloc(carc_game_size());
	ck_assert_ptr_nonnull(g);
	carc_rc rc = carc_game_init(g, cfg, NULL);
	free(g);
	return rc;
}

START_TEST(test_config_validation)
{
	carc_config cfg;
	for (int n = 0; n <= CARC_MAX_SEATS + 2; n++) {
		carc_config_init(&cfg);
		cfg.nseats = (uint8_t)n;
		ck_assert_int_eq(init_rc(&cfg), n >= 1 && n <= 6 ? CARC_OK : CARC_E_ARG);
	}
	carc_config_init(&cfg);
	cfg.nseats = 255;
	ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);

	/* expansions: none, unavailable ones, bits past the table */
	carc_config_init(&cfg);
	cfg.expansions = 0;
	ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);
	for (int e = 0; e < carc_expansion_count(); e++) {
		if (carc_expansion(e)->available) continue;
		carc_config_init(&cfg);
		cfg.expansions |= 1u << e;
		ck_assert_msg(init_rc(&cfg) == CARC_E_ARG, "unavailable expansion %s accepted", carc_expansion(e)->name);
	}
	for (int bit = carc_expansion_count(); bit < 32; bit++) {
		carc_config_init(&cfg);
		cfg.expansions |= 1u << bit;
		ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);
	}

	/* every rule: each listed value is accepted, one past the list is not */
	for (int i = 0; i < CARC_R_COUNT; i++) {
		const carc_rule_desc *r = carc_rule(i);
		int nvalues = 0;
		if (r->values)
			while (r->values[nvalues]) nvalues++;
		carc_config_init(&cfg);
		cfg.rules[i] = -1;
		ck_assert_msg(init_rc(&cfg) == CARC_E_ARG, "%s = -1 accepted", r->key);
		if (r->type == 0) {
			for (int v = 0; v < nvalues; v++) {
				cfg.rules[i] = v;
				ck_assert_msg(init_rc(&cfg) == CARC_OK, "%s = %s refused", r->key, r->values[v]);
			}
			cfg.rules[i] = nvalues;
			ck_assert_msg(init_rc(&cfg) == CARC_E_ARG, "%s = %d accepted", r->key, nvalues);
		} else if (r->type == 1) {
			cfg.rules[i] = 0;
			ck_assert_int_eq(init_rc(&cfg), CARC_OK);
			cfg.rules[i] = 1;
			ck_assert_int_eq(init_rc(&cfg), CARC_OK);
			cfg.rules[i] = 2;
			ck_assert_msg(init_rc(&cfg) == CARC_E_ARG, "boolean %s = 2 accepted", r->key);
		} else {
			cfg.rules[i] = 0;
			ck_assert_int_eq(init_rc(&cfg), CARC_OK);
			cfg.rules[i] = 17;
			ck_assert_int_eq(init_rc(&cfg), CARC_OK);
		}
	}

	/* a tile list: unknown types and too many refused */
	carc_config_init(&cfg);
	cfg.ntiles = 1;
	cfg.tiles[0] = (uint16_t)carc_tile_count();
	ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);
	cfg.tiles[0] = 0xffff;
	ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);
	cfg.ntiles = CARC_MAX_TILES + 1;
	ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);

	/* start tiles: unknown type, rotation past 3, two on one square, too many */
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, NULL);
	ck_assert_int_eq(init_rc(&cfg), CARC_OK);
	cfg.start[0].rot = 4;
	ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);
	cfg.start[0].rot = 3;
	cfg.start[0].tile = (uint16_t)carc_tile_count();
	ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, NULL);
	cfg.nstart = 2;
	cfg.start[1] = cfg.start[0];
	ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);
	cfg.start[1].x = 5;
	ck_assert_int_eq(init_rc(&cfg), CARC_OK);
	cfg.nstart = CARC_MAX_START + 1;
	ck_assert_int_eq(init_rc(&cfg), CARC_E_ARG);
}
END_TEST

/* PROTOCOL.md 4.1: `tiles` gives the supply; without `start` the standard
 * start tile begins the game as usual. */
START_TEST(test_tile_list_standard_start)
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.ntiles = 2;
	cfg.tiles[0] = (uint16_t)tu_tile("BA/L");
	cfg.tiles[1] = (uint16_t)tu_tile("BA/RRRR");
	carc_rc rc = init_rc(&cfg);
	ck_assert_msg(rc == CARC_OK, "a tile list without start tiles: %s", carc_strerror(rc));
	carc_game *g = tu_game_new(&cfg, NULL);
	ck_assert_int_eq(carc_board_count(g), 1);
	carc_placed_info p;
	TU_EQ(carc_board_get(g, 0, &p), 1);
	ck_assert_int_eq(p.tile, tu_tile("BA/RCr"));
	ck_assert_int_eq(p.x, 0);
	ck_assert_int_eq(p.y, 0);
	ck_assert_int_eq(p.rot, 0);
	ck_assert_int_eq(carc_game_drawn(g), tu_tile("BA/L")); /* in the order given */
	ck_assert_int_eq(carc_game_tiles_left(g), 1);
	free(g);
}
END_TEST

/* The board holds CARC_MAX_TILES tiles: the supply, the start tiles and
 * the seats' abbeys together.  A game that could place more is refused
 * at set-up; one that fits plays to the end, every abbey placed last. */
START_TEST(test_board_capacity)
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.expansions |= 1u << carc_expansion_find("abbey-mayor");
	cfg.rules[carc_rule_find("abbey_final_round")] = 1;
	for (int n = 0; n < CARC_MAX_TILES; n++) cfg.tiles[n] = (uint16_t)tu_tile(n % 2 ? "BA/RRRR" : "BA/L");
	int abbeys = 0;
	for (int seats = 1; seats <= CARC_MAX_SEATS; seats++) {
		cfg.nseats = (uint8_t)seats;
		int room = CARC_MAX_TILES - 1 - seats; /* the start tile, an abbey a seat */
		cfg.ntiles = (uint16_t)(room + 1);
		ck_assert_int_eq(init_rc(&cfg), CARC_E_CAPACITY);
		cfg.ntiles = (uint16_t)room;
		static tu_events ev;
		tu_events_reset(&ev);
		carc_game *g = tu_game_new(&cfg, &ev.sink);
		uint32_t turns = (uint32_t)tu_events_count(&ev, CARC_EV_TURN);
		carc_rng rng;
		carc_rng_seed(&rng, (uint64_t)seats);
		static carc_move list[CARC_MAX_MOVES];
		while (!carc_game_over(g)) {
			int n = carc_legal_moves(g, list, CARC_MAX_MOVES);
			int pick = (int)carc_rng_below(&rng, (uint32_t)n);
			/* abbeys only in the final round, when the supply has filled
			 * the board but for their room */
			int final = carc_game_phase(g) == CARC_PH_ABBEY_FINAL;
			for (int i = 0; i < n; i++)
				if ((list[i].type == CARC_MV_PLACE_ABBEY) == final) {
					if (final || list[pick].type == CARC_MV_PLACE_ABBEY) pick = i;
					break;
				}
			tu_events_reset(&ev);
			tu_apply_ok(g, list[pick], &ev.sink);
			turns += (uint32_t)tu_events_count(&ev, CARC_EV_TURN);
		}
		/* a seat's decision in the final round is a turn: carc_game_turn
		 * counts every `turn` event */
		ck_assert_uint_eq(carc_game_turn(g), turns);
		int placed = 0;
		for (int s = 0; s < seats; s++) placed += 1 - carc_abbeys(g, s);
		abbeys += placed;
		ck_assert_int_eq(carc_board_count(g), 1 + room + placed); /* no tile was left out */
		free(g);
	}
	ck_assert_int_ge(abbeys, CARC_MAX_SEATS); /* abbeys went on boards about full */
	/* without the abbey, the supply and the start tile fill the board */
	cfg.expansions &= ~(1u << carc_expansion_find("abbey-mayor"));
	cfg.ntiles = CARC_MAX_TILES;
	ck_assert_int_eq(init_rc(&cfg), CARC_E_CAPACITY);
	cfg.ntiles = CARC_MAX_TILES - 1;
	ck_assert_int_eq(init_rc(&cfg), CARC_OK);
}
END_TEST

/* ---- the phase machine ------------------------------------------------------------- */

/* Tile then action for the same seat, then the next seat's tile, round the
 * table, for every seat count; every turn draws one tile. */
START_TEST(test_phases_round_the_table)
{
	int nseats = _i;
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.nseats = (uint8_t)nseats;
	cfg.seed = 77 + (uint64_t)nseats;
	static tu_events ev;
	tu_events_reset(&ev);
	carc_game *g = tu_game_new(&cfg, &ev.sink);
	ck_assert_int_eq(carc_game_nseats(g), nseats);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_TURN), 1);
	ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TURN, 0)->seat, 0);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_TILE_PLACED), 1); /* the start tile */
	for (int s = 0; s < nseats; s++) {
		ck_assert_int_eq(carc_supply_count(g, s, CARC_FIG_FOLLOWER), 7);
		for (int k = 1; k < CARC_FIG_COUNT; k++) ck_assert_int_eq(carc_supply_count(g, s, k), 0);
	}
	ck_assert_int_eq(carc_supply_count(g, nseats, CARC_FIG_FOLLOWER), 0);
	ck_assert_int_eq(carc_supply_count(g, -1, CARC_FIG_FOLLOWER), 0);
	carc_rng pick;
	carc_rng_seed(&pick, (uint64_t)nseats);
	uint32_t turn = 1;
	int turn_seat = 0, placed = 0;
	while (!carc_game_over(g)) {
		ck_assert_uint_eq(carc_game_turn(g), turn);
		ck_assert_int_eq(carc_game_seat(g), turn_seat);
		int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		ck_assert_int_gt(n, 0);
		carc_move m = moves[carc_rng_below(&pick, (uint32_t)n)];
		if (carc_game_phase(g) == CARC_PH_TILE) {
			ck_assert_int_ge(carc_game_drawn(g), 0);
			tu_events_reset(&ev);
			tu_apply_ok(g, m, &ev.sink);
			placed++;
			if (carc_game_over(g)) break;
			if (carc_game_phase(g) == CARC_PH_ACTION) {
				/* the same seat decides what to deploy; nothing is drawn yet */
				ck_assert_int_eq(carc_game_seat(g), turn_seat);
				ck_assert_int_eq(carc_game_drawn(g), -1);
				ck_assert_int_eq(tu_events_count(&ev, CARC_EV_TURN), 0);
				n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
				ck_assert_int_ge(n, 2); /* a skipped decision is never only `pass` */
				carc_move pass = tu_pass();
				ck_assert_int_ge(tu_find_move(moves, n, &pass), 0);
				tu_events_reset(&ev);
				tu_apply_ok(g, moves[carc_rng_below(&pick, (uint32_t)n)], &ev.sink);
			}
			/* the action decision was skipped only when the seat had nothing to deploy */
			turn++;
			turn_seat = (turn_seat + 1) % nseats;
			if (carc_game_over(g)) break;
			ck_assert_int_eq(carc_game_phase(g), CARC_PH_TILE);
			ck_assert_int_eq(tu_events_count(&ev, CARC_EV_TURN), 1);
			ck_assert_int_eq(tu_events_nth(&ev, CARC_EV_TURN, 0)->seat, turn_seat);
		} else {
			ck_abort_msg("a game must start each decision loop in the tile phase");
		}
	}
	ck_assert_int_eq(carc_game_phase(g), CARC_PH_OVER);
	ck_assert_int_eq(carc_game_seat(g), -1);
	ck_assert_int_eq(carc_game_drawn(g), -1);
	ck_assert_int_eq(carc_game_tiles_left(g), 0);
	ck_assert_int_eq(carc_legal_moves(g, moves, CARC_MAX_MOVES), 0);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_GAME_OVER), 1);
	ck_assert_int_eq(carc_board_count(g), 1 + placed);
	/* after the end every move is refused and nothing changes */
	uint64_t h = carc_game_hash(g);
	carc_move m = tu_pass();
	ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_E_OVER);
	ck_assert_int_eq(carc_apply(g, &m, NULL), CARC_E_OVER);
	m = tu_place(g, 0, 1, 0);
	m.tile = 0;
	ck_assert_int_eq(carc_apply(g, &m, NULL), CARC_E_OVER);
	tu_events_reset(&ev);
	carc_end_now(g, &ev.sink); /* a no-op on an ended game */
	ck_assert_int_eq(ev.sink.n, 0);
	ck_assert(carc_game_hash(g) == h);
	free(g);
}
END_TEST

/* A move the engine refuses changes nothing and records no event. */
static void refused(carc_game *g, carc_move m, carc_rc want)
{
	static tu_events ev;
	uint64_t h = carc_game_hash(g);
	int phase = carc_game_phase(g), seat = carc_game_seat(g);
	ck_assert_int_eq(carc_check_move(g, &m, NULL), want);
	tu_events_reset(&ev);
	carc_rc rc = carc_apply(g, &m, &ev.sink);
	ck_assert_msg(rc == want, "apply: %s, want %s", carc_strerror(rc), carc_strerror(want));
	ck_assert_int_eq(ev.sink.n, 0);
	ck_assert(carc_game_hash(g) == h);
	ck_assert_int_eq(carc_game_phase(g), phase);
	ck_assert_int_eq(carc_game_seat(g), seat);
}

/* ---- deploying ---------------------------------------------------------------------- */

/* Start D; seat 0 extends its road east with U and deploys on the road;
 * seat 1 extends it west: the road is taken, the fields are not. */
START_TEST(test_deploy_rules)
{
	static tu_events ev;
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, (const char *const[]){ "BA/RFr", "BA/RFr", "BA/L", "BA/L", NULL });
	carc_game *g = tu_game_new(&cfg, NULL);
	tu_apply_ok(g, tu_place(g, 1, 0, 0), NULL);
	ck_assert_int_eq(carc_game_phase(g), CARC_PH_ACTION);
	int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	/* U: the road and two fields, or pass; all unoccupied */
	ck_assert_int_eq(n, 4);
	carc_move want = tu_deploy(1, 0, CARC_E);
	ck_assert_int_ge(tu_find_move(moves, n, &want), 0);
	want = tu_deploy(1, 0, CARC_NL);
	ck_assert_int_ge(tu_find_move(moves, n, &want), 0);
	want = tu_deploy(1, 0, CARC_ER);
	ck_assert_int_ge(tu_find_move(moves, n, &want), 0);
	/* off the tile just placed, nothing at a port, a kind not in play */
	refused(g, tu_deploy(0, 0, CARC_N), CARC_E_NOT_TILE_JUST_PLACED);
	refused(g, tu_deploy(0, 1, CARC_N), CARC_E_NOT_TILE_JUST_PLACED);
	refused(g, tu_deploy(1, 0, CARC_N), CARC_E_NO_FEATURE);  /* U's north edge is field: no edge feature */
	refused(g, tu_deploy(1, 0, CARC_P_CLOISTER), CARC_E_NO_FEATURE);
	refused(g, tu_deploy(1, 0, CARC_P_I), CARC_E_NO_FEATURE);
	carc_move m = tu_deploy(1, 0, CARC_W);
	m.kind = CARC_FIG_LARGE; /* the base game has none: judged before the feature */
	refused(g, m, CARC_E_NO_FIGURE);
	m.kind = CARC_FIG_COUNT;
	refused(g, m, CARC_E_ARG);
	m = tu_deploy(1, 0, CARC_PORT_COUNT);
	refused(g, m, CARC_E_ARG);
	m = tu_place(g, 2, 0, 0);
	m.tile = (uint16_t)tu_tile("BA/RFr");
	refused(g, m, CARC_E_PHASE);
	/* any port of the feature will do: W is the same road as E */
	tu_events_reset(&ev);
	tu_apply_ok(g, tu_deploy(1, 0, CARC_W), &ev.sink);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_DEPLOYED), 1);
	const carc_event *e = tu_events_nth(&ev, CARC_EV_DEPLOYED, 0);
	ck_assert_int_eq(e->seat, 0);
	ck_assert_int_eq(e->x, 1);
	ck_assert_int_eq(e->y, 0);
	ck_assert_int_eq(e->port, CARC_E); /* `at` is the first port of the feature on that tile */
	ck_assert_int_eq(e->fkind, CARC_F_ROAD);
	ck_assert_int_eq(e->kind, CARC_FIG_FOLLOWER);
	ck_assert_int_eq(carc_supply_count(g, 0, CARC_FIG_FOLLOWER), 6);
	ck_assert_int_eq(tu_on_board(g, 0), 1);
	/* the figure: id 0.follower.1, standing on the road of (1,0) */
	int fig = carc_figure_find(g, 0, CARC_FIG_FOLLOWER, 1);
	ck_assert_int_eq(fig, e->figure);
	carc_figure_info fi;
	ck_assert(carc_figure_get(g, fig, &fi));
	ck_assert(fi.on_board);
	ck_assert_int_eq(fi.seat, 0);
	ck_assert_int_eq(fi.n, 1);
	ck_assert_int_eq(fi.x, 1);
	ck_assert_int_eq(fi.y, 0);
	ck_assert_int_eq(fi.port, CARC_E);
	ck_assert_int_eq(fi.fkind, CARC_F_ROAD);
	ck_assert(carc_figure_get(g, carc_figure_find(g, 0, CARC_FIG_FOLLOWER, 2), &fi));
	ck_assert(!fi.on_board);

	/* seat 1: U west of the start joins the same road */
	ck_assert_int_eq(carc_game_seat(g), 1);
	tu_apply_ok(g, tu_place(g, -1, 0, 0), NULL);
	n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	ck_assert_int_eq(n, 3); /* two fields and pass */
	for (int i = 0; i < n; i++)
		ck_assert(moves[i].type == CARC_MV_PASS || (moves[i].port != CARC_E && moves[i].port != CARC_W));
	refused(g, tu_deploy(-1, 0, CARC_E), CARC_E_FEATURE_TAKEN);
	refused(g, tu_deploy(-1, 0, CARC_W), CARC_E_FEATURE_TAKEN);
	/* the field north of the road runs into the start tile's north field: free */
	tu_apply_ok(g, tu_deploy(-1, 0, CARC_NR), NULL);
	ck_assert_int_eq(carc_supply_count(g, 1, CARC_FIG_FOLLOWER), 6);

	/* seat 0: B south of the start, a farmer in its field, which is the
	 * field south of the road; seat 1: B south of U(1,0), whose field joins
	 * that same farm, so only its cloister is free */
	tu_apply_ok(g, tu_place(g, 0, 1, 0), NULL);
	tu_apply_ok(g, tu_deploy(0, 1, CARC_NL), NULL);
	tu_apply_ok(g, tu_place(g, 1, 1, 0), NULL);
	n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	ck_assert_int_eq(n, 2); /* only the cloister: B's field is seat 0's farm */
	carc_move cloister = tu_deploy(1, 1, CARC_P_CLOISTER);
	ck_assert_int_ge(tu_find_move(moves, n, &cloister), 0);
	refused(g, tu_deploy(1, 1, CARC_SL), CARC_E_FEATURE_TAKEN);
	free(g);
}
END_TEST

/* Your own follower blocks you too, and farmers=false keeps fields empty. */
START_TEST(test_deploy_own_and_no_farmers)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 1, "BA/RCr", 0, (const char *const[]){ "BA/RFr", "BA/RFr", NULL });
	cfg.rules[CARC_R_FARMERS] = 0;
	carc_game *g = tu_game_new(&cfg, NULL);
	tu_apply_ok(g, tu_place(g, 1, 0, 0), NULL);
	int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	ck_assert_int_eq(n, 2); /* the road, pass */
	carc_move road = tu_deploy(1, 0, CARC_E);
	ck_assert_int_ge(tu_find_move(moves, n, &road), 0);
	refused(g, tu_deploy(1, 0, CARC_NL), CARC_E_KIND);
	tu_apply_ok(g, tu_deploy(1, 0, CARC_E), NULL);
	ck_assert_int_eq(carc_game_seat(g), 0); /* one seat: always seat 0 */
	tu_apply_ok(g, tu_place(g, -1, 0, 0), NULL);
	/* the only feature allowed is the road, which holds seat 0's own follower:
	 * nothing to decide, so the decision is skipped and the game ends */
	ck_assert(carc_game_over(g));
	free(g);
}
END_TEST

/* Seven followers a seat: after seven deploys nothing more can be deployed. */
START_TEST(test_seven_followers)
{
	static const char *const eight_b[] = { "BA/L", "BA/L", "BA/L", "BA/L", "BA/L", "BA/L", "BA/L", "BA/L",
		                               "BA/L", NULL };
	carc_config cfg;
	tu_config_fixed(&cfg, 1, "BA/RCr", 0, eight_b);
	carc_game *g = tu_game_new(&cfg, NULL);
	/* cloisters in a row south of the start, none ever completed */
	for (int i = 0; i < 7; i++) {
		tu_apply_ok(g, tu_place(g, i, 1, 0), NULL);
		ck_assert_int_eq(carc_game_phase(g), CARC_PH_ACTION);
		tu_apply_ok(g, tu_deploy(i, 1, CARC_P_CLOISTER), NULL);
		ck_assert_int_eq(carc_supply_count(g, 0, CARC_FIG_FOLLOWER), 6 - i);
		ck_assert_int_eq(tu_on_board(g, 0), i + 1);
	}
	ck_assert_int_eq(carc_figure_find(g, 0, CARC_FIG_FOLLOWER, 7) >= 0, 1);
	ck_assert_int_eq(carc_figure_find(g, 0, CARC_FIG_FOLLOWER, 8), -1);
	/* the eighth cloister: no follower left, so no action decision */
	uint32_t turn = carc_game_turn(g);
	tu_apply_ok(g, tu_place(g, 7, 1, 0), NULL);
	ck_assert_int_eq(carc_game_phase(g), CARC_PH_TILE);
	ck_assert_uint_eq(carc_game_turn(g), turn + 1);
	ck_assert_int_eq(carc_game_seat(g), 0);
	carc_move m = tu_deploy(7, 1, CARC_P_CLOISTER);
	carc_rc rc = carc_check_move(g, &m, NULL);
	/* in the tile phase a deploy is the wrong phase; CARC_E_NO_FIGURE is for an
	 * action decision that other moves keep open (none in the base game) */
	ck_assert_int_eq(rc, CARC_E_PHASE);
	ck_assert_int_eq(carc_supply_count(g, 0, CARC_FIG_FOLLOWER), 0);
	ck_assert_int_eq(tu_on_board(g, 0), 7);
	free(g);
}
END_TEST

/* ---- refusals, clones, hashes ------------------------------------------------------- */

START_TEST(test_refused_moves_change_nothing)
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.seed = 31337;
	cfg.nseats = 3;
	carc_game *g = tu_game_new(&cfg, NULL);
	carc_rng pick;
	carc_rng_seed(&pick, 4);
	int tested = 0;
	while (!carc_game_over(g)) {
		int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		if (carc_game_phase(g) == CARC_PH_TILE) {
			refused(g, tu_place(g, 0, 0, 0), CARC_E_OCCUPIED);
			refused(g, tu_place(g, 500, 500, 0), CARC_E_NOT_ADJACENT);
			refused(g, tu_place(g, 0, 1, 7), CARC_E_ARG);
			carc_move m = moves[0];
			m.tile = (uint16_t)((m.tile + 1) % carc_tile_count());
			refused(g, m, CARC_E_TILE);
			refused(g, tu_pass(), CARC_E_PHASE);
			m.type = CARC_MV_COUNT; /* no move type: an unknown parameter */
			refused(g, m, CARC_E_ARG);
		} else {
			carc_placed_info p;
			TU_EQ(carc_board_get(g, 0, &p), 1);
			refused(g, tu_deploy(p.x, p.y, CARC_N), CARC_E_NOT_TILE_JUST_PLACED);
			carc_move m = moves[0];
			m.type = CARC_MV_PLACE_TILE;
			refused(g, m, CARC_E_PHASE);
			tested++;
		}
		tu_apply_ok(g, moves[carc_rng_below(&pick, (uint32_t)n)], NULL);
	}
	ck_assert_int_gt(tested, 10);
	free(g);
}
END_TEST

START_TEST(test_clone)
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.seed = 8;
	cfg.nseats = 4;
	carc_game *a = tu_game_new(&cfg, NULL), *b = malloc(carc_game_size()), *c = malloc(carc_game_size());
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);
	carc_rng pick;
	carc_rng_seed(&pick, 9);
	for (int i = 0; i < 40; i++) {
		int n = carc_legal_moves(a, moves, CARC_MAX_MOVES);
		tu_apply_ok(a, moves[carc_rng_below(&pick, (uint32_t)n)], NULL);
	}
	carc_game_clone(b, a);
	ck_assert(carc_game_hash(a) == carc_game_hash(b));
	ck_assert_int_eq(carc_game_phase(b), carc_game_phase(a));
	ck_assert_int_eq(carc_game_seat(b), carc_game_seat(a));
	ck_assert_int_eq(carc_board_count(b), carc_board_count(a));
	/* the clone evolves on its own: a different move makes a different state
	 * and leaves the original as it was */
	uint64_t ha = carc_game_hash(a);
	int n = carc_legal_moves(b, moves, CARC_MAX_MOVES);
	ck_assert_int_ge(n, 2);
	carc_game_clone(c, a);
	tu_apply_ok(b, moves[0], NULL);
	tu_apply_ok(c, moves[n - 1], NULL);
	ck_assert(carc_game_hash(a) == ha);
	ck_assert(carc_game_hash(b) != ha);
	ck_assert(carc_game_hash(b) != carc_game_hash(c));
	/* the same moves on the original and a clone give equal states all the way */
	tu_apply_ok(a, moves[0], NULL);
	ck_assert(carc_game_hash(a) == carc_game_hash(b));
	while (!carc_game_over(a)) {
		n = carc_legal_moves(a, moves, CARC_MAX_MOVES);
		carc_move m = moves[carc_rng_below(&pick, (uint32_t)n)];
		tu_apply_ok(a, m, NULL);
		tu_apply_ok(b, m, NULL);
		ck_assert(carc_game_hash(a) == carc_game_hash(b));
	}
	ck_assert(carc_game_over(b));
	for (int s = 0; s < 4; s++) ck_assert_int_eq(carc_game_score(a, s), carc_game_score(b, s));
	/* "if it ended now" on a clone leaves the original running */
	carc_game_clone(c, a);
	ck_assert(carc_game_hash(c) == carc_game_hash(a));
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(test_end_now_on_clone)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, (const char *const[]){ "BA/RFr", "BA/RFr", "BA/L", NULL });
	carc_game *g = tu_game_new(&cfg, NULL), *c = malloc(carc_game_size());
	ck_assert_ptr_nonnull(c);
	tu_apply_ok(g, tu_place(g, 1, 0, 0), NULL);
	tu_apply_ok(g, tu_deploy(1, 0, CARC_E), NULL); /* seat 0 on a 2-tile road */
	uint64_t h = carc_game_hash(g);
	carc_game_clone(c, g);
	static tu_events ev;
	tu_events_reset(&ev);
	carc_end_now(c, &ev.sink);
	ck_assert(carc_game_over(c));
	ck_assert_int_eq(carc_game_phase(c), CARC_PH_OVER);
	ck_assert_int_eq(carc_game_score(c, 0), 2);
	ck_assert_int_eq(carc_game_score(c, 1), 0);
	ck_assert_int_eq(tu_events_count(&ev, CARC_EV_GAME_OVER), 1);
	const carc_event *e = tu_events_nth(&ev, CARC_EV_SCORED, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->final, 1);
	ck_assert_int_eq(e->points, 2);
	ck_assert_int_eq(e->fkind, CARC_SC_ROAD);
	ck_assert(!carc_game_over(g));
	ck_assert(carc_game_hash(g) == h);
	ck_assert_int_eq(carc_game_score(g, 0), 0);
	free(g);
	free(c);
}
END_TEST

/* "If it ended now" in the middle of a turn: the road the tile just placed
 * completed (seat 0's follower on it) is complete, so it pays 3 like any
 * complete 3-tile road; it must not vanish from the figures. */
START_TEST(test_end_now_mid_turn)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, (const char *const[]){ "BA/RRR", "BA/RRR", "BA/L", NULL });
	carc_game *g = tu_game_new(&cfg, NULL), *c = malloc(carc_game_size());
	ck_assert_ptr_nonnull(c);
	tu_apply_ok(g, tu_place(g, 1, 0, 0), NULL);
	tu_apply_ok(g, tu_deploy(1, 0, CARC_W), NULL);
	tu_apply_ok(g, tu_place(g, -1, 0, 0), NULL); /* completes the road; seat 1 to deploy */
	ck_assert_int_eq(carc_game_phase(g), CARC_PH_ACTION);
	carc_game_clone(c, g);
	static tu_events ev;
	tu_events_reset(&ev);
	carc_end_now(c, &ev.sink);
	ck_assert(carc_game_over(c));
	ck_assert_msg(carc_game_score(c, 0) == 3, "if it ended now, seat 0 scores %d for its completed 3-tile road, want 3",
	              carc_game_score(c, 0));
	/* and the game played on pays the same 3 at the end of the turn */
	tu_apply_ok(g, tu_pass(), NULL);
	ck_assert_int_eq(carc_game_score(g, 0), 3);
	free(g);
	free(c);
}
END_TEST

/* Custom start tiles follow the placement rules among themselves: two
 * that touch with edges that do not match (a road against a city) are
 * refused, instead of joining a road and a city into one feature. */
START_TEST(test_custom_starts_must_match)
{
	carc_config cfg;
	tu_config_fixed(&cfg, 2, "BA/RCr", 0, (const char *const[]){ "BA/L", NULL });
	cfg.nstart = 2;
	/* D turned three times shows its city to the west, against the start's road */
	cfg.start[1] = (carc_start_tile){ (uint16_t)tu_tile("BA/RCr"), 1, 0, 3 };
	carc_rc rc = init_rc(&cfg);
	ck_assert_msg(rc != CARC_OK, "start tiles with a road against a city accepted");
	/* the same two tiles turned to match are fine */
	cfg.start[1].rot = 0;
	ck_assert_int_eq(init_rc(&cfg), CARC_OK);
}
END_TEST

/* A move list smaller than the moves: the count is still the full one and
 * only `cap` moves are written. */
START_TEST(test_small_move_list)
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.seed = 12;
	carc_game *g = tu_game_new(&cfg, NULL);
	int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	ck_assert_int_gt(n, 1);
	ck_assert_int_eq(carc_legal_moves(g, NULL, 0), n);
	carc_move few[2];
	memset(few, 0x5a, sizeof few);
	ck_assert_int_eq(carc_legal_moves(g, few, 1), n);
	ck_assert(!memcmp(&few[0], &moves[0], sizeof few[0]));
	unsigned char *guard = (unsigned char *)&few[1];
	for (size_t i = 0; i < sizeof few[1]; i++) ck_assert_uint_eq(guard[i], 0x5a);
	/* the same in the action phase */
	tu_apply_ok(g, moves[0], NULL);
	if (carc_game_phase(g) == CARC_PH_ACTION) {
		n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		ck_assert_int_eq(carc_legal_moves(g, few, 1), n);
		ck_assert(!memcmp(&few[0], &moves[0], sizeof few[0]));
	}
	free(g);
}
END_TEST

/* Every cap from 0 to past the count, in the tile phase of games some turns
 * in (larger frontiers): the count is the full one, the first cap moves are
 * those of the full list, and nothing past out[cap) is written (carc.h:
 * only out[0..cap) is scratch).  Base games, and games whose placements an
 * expansion judges beyond the edges (the river's, which turns of a river
 * tile may go where; cult places beside cloisters, whatever the turn): a
 * cap too small for the plain listing lists those moves one by one, and
 * must list the same. */
START_TEST(test_move_list_every_cap)
{
	enum { GUARD = 8 };
	static carc_move buf[CARC_MAX_MOVES + GUARD];
	static const char *const sets[][5] = {
		{ "base", NULL }, { "base", "river", "river2", "mini", NULL }, { "base", "cult", "abbey-mayor", NULL }
	};
	for (uint64_t seed = 1; seed <= 6 * 3; seed++) {
		const char *const *set = sets[seed % 3];
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.seed = seed;
		cfg.expansions = tu_expansions(set, 5);
		carc_game *g = tu_game_new(&cfg, NULL);
		for (int turn = 0; turn < (seed % 3 ? 40 : 12) && !carc_game_over(g); turn++) {
			int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
			ck_assert_int_gt(n, 0);
			for (int cap = 0; cap <= n + 5 && cap <= CARC_MAX_MOVES; cap++) {
				memset(buf, 0x5a, sizeof buf);
				ck_assert_int_eq(carc_legal_moves(g, buf, cap), n);
				int k = cap < n ? cap : n;
				ck_assert(!memcmp(buf, moves, (size_t)k * sizeof buf[0]));
				const unsigned char *guard = (const unsigned char *)&buf[cap];
				for (size_t i = 0; i < GUARD * sizeof buf[0]; i++) ck_assert_uint_eq(guard[i], 0x5a);
			}
			/* on: a placement (the first listed) and, in the action phase, a pass */
			tu_apply_ok(g, moves[0], NULL);
			if (!carc_game_over(g) && carc_game_phase(g) == CARC_PH_ACTION) {
				n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
				tu_apply_ok(g, moves[n - 1], NULL);
			}
		}
		free(g);
	}
}
END_TEST

/* A sink smaller than the events: the count goes on, the array is not overrun. */
START_TEST(test_small_sink)
{
	carc_config cfg;
	carc_config_init(&cfg);
	carc_event ev[3];
	memset(ev, 0x5a, sizeof ev);
	carc_sink sink = { ev, 0, 2 };
	carc_game *g = tu_game_new(&cfg, &sink);
	ck_assert_int_ge(sink.n, 3); /* tile_placed (start), turn, tile_drawn */
	ck_assert_int_eq(ev[0].type, CARC_EV_TILE_PLACED);
	unsigned char *guard = (unsigned char *)&ev[2];
	for (size_t i = 0; i < sizeof ev[2]; i++) ck_assert_uint_eq(guard[i], 0x5a);
	free(g);
}
END_TEST

static Suite *game_suite(void)
{
	Suite *s = suite_create("game");
	TCase *tc = tcase_create("config");
	tcase_add_test(tc, test_config_defaults);
	tcase_add_test(tc, test_config_validation);
	tcase_add_test(tc, test_tile_list_standard_start);
	tcase_add_test(tc, test_board_capacity);
	tcase_add_test(tc, test_custom_starts_must_match);
	suite_add_tcase(s, tc);
	tc = tcase_create("phases");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_phases_round_the_table, 1, CARC_MAX_SEATS + 1);
	tcase_add_test(tc, test_refused_moves_change_nothing);
	suite_add_tcase(s, tc);
	tc = tcase_create("deploy");
	tcase_add_test(tc, test_deploy_rules);
	tcase_add_test(tc, test_deploy_own_and_no_farmers);
	tcase_add_test(tc, test_seven_followers);
	suite_add_tcase(s, tc);
	tc = tcase_create("state");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_clone);
	tcase_add_test(tc, test_end_now_on_clone);
	tcase_add_test(tc, test_small_sink);
	tcase_add_test(tc, test_small_move_list);
	tcase_add_test(tc, test_move_list_every_cap);
	tcase_add_test(tc, test_end_now_mid_turn);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(game_suite());
}

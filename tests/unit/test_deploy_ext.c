/*
 * test_deploy_ext.c - which figures the rules let a seat deploy where,
 * with the expansions, held against the naive model in oracle_deploy.c.
 *
 * Seeded random full games: base plus a random mix of the other
 * expansions the engine offers (every third game all of them), 2 to 6
 * seats, every rule option of RULES.md section 6 drawn at random (so
 * farmers false in about half), and in every fourth game a random set of
 * components, from every available expansion, whether its tiles are in
 * play or not (a mayor without Abbey & Mayor's tiles, no wagon with
 * them).  Each decision is a random legal move, passing the deploy now
 * and then so that supplies last, and choosing a special figure when one
 * is listed now and then so that more of them stand about.  The model
 * follows the game through its events and the public interface only,
 * and:
 *
 * - at every action decision, the deploys listed are exactly the model's:
 *   the same (figure kind, feature of the tile just placed) pairs, a
 *   feature named by any of its ports; followers and large followers on
 *   roads, cities, cloister-type buildings and (farmers true) fields,
 *   mayors on cities, wagons anywhere but fields, each only into a
 *   feature with no follower (builders, pigs, barns, shepherds do not
 *   count), no farmer into a farm with a barn; a builder only where the
 *   seat has a follower on that road or city, a pig where it has a
 *   farmer, a shepherd into a farm with no shepherd; nothing on the river
 *   or the volcano lake; nothing of which the seat has none in supply
 *   (components off: none at all).  Barns are listed as the engine lists
 *   them (their corners are test_oracle_ext.c's);
 * - at every placement after which the engine skipped the action
 *   decision, the model allows nothing either (judged as the deployment
 *   step sees the board: after the placement's own effects, and before
 *   anything is scored, farmers joined to a barn's farm included);
 * - the model's count of each seat's supply is carc_supply_count's.
 *
 * 720 games in 12 batches, about a second natively (~25 s under
 * valgrind): some 63,000 action decisions and 42,000 skipped ones.
 * One game in four keeps its abbeys for the final round.
 *
 * With farmers false ("play without fields", RULES.md section 6) no figure
 * goes on a field: followers, pigs and barns, and shepherds too, whose
 * place is "a field of the tile just placed" (2.13).

 * DEPLOY_EXT_GAME=n plays game n alone (in the first batch), to reproduce
 * a failure; DEPLOY_EXT_TRACE=1 prints its moves; CARC_PROPERTY_STATS
 * prints what each batch went through.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "oracle_deploy.h"
#include "testutil.h"
#include "tiles_int.h"

#define GAMES 720
#define GAMES_PER_TEST 60
#define MAX_GAME_MOVES 8192
#define MAX_DEPLOYS (CARC_TILE_MAXF * CARC_FIG_COUNT)

typedef struct coverage {
	long decisions, skipped, skipped_end, placements, all_sets, farmers_off, components_off;
	long listed[CARC_FIG_COUNT];          /* deploys compared, by kind */
	long reasons[ORD_COUNT];              /* the model's verdicts, over every kind and feature judged */
	long beside_special;                  /* a follower allowed into a feature where a special figure stands */
	long no_followers;                    /* decisions of a seat with no follower left */
	long lakes, abbeys, final_abbeys;     /* volcano lakes and abbeys placed; abbeys in the final round */
	long shepherd_barn;                   /* a shepherd allowed into a farm with a barn */
	long builder_special;                 /* a builder allowed beside the seat's mayor or wagon only */
} coverage;

static coverage cov;
static int trace;
static ord model;
static tu_events ev;
static carc_move moves[CARC_MAX_MOVES];

typedef struct game_info {
	int game;
	carc_config cfg;
} game_info;

static game_info gi;

/* The game in words, for a reproduction: seed, seats, sets, components, rules. */
static const char *describe(const carc_game *g)
{
	static char buf[1400];
	const carc_config *cfg = &gi.cfg;
	int n = snprintf(buf, sizeof buf, "game %d (seed %#llx, %d seats, turn %u; sets", gi.game,
	                 (unsigned long long)cfg->seed, cfg->nseats, g ? carc_game_turn(g) : 0);
	for (int i = 0; i < carc_expansion_count(); i++)
		if (cfg->expansions >> i & 1) n += snprintf(buf + n, sizeof buf - (size_t)n, " %s", carc_expansion(i)->name);
	if (cfg->components_given) {
		n += snprintf(buf + n, sizeof buf - (size_t)n, "; components");
		for (int c = 0; c < CARC_C_NUM; c++)
			if (cfg->components >> c & 1) n += snprintf(buf + n, sizeof buf - (size_t)n, " %s", carc_component_name(c));
	}
	n += snprintf(buf + n, sizeof buf - (size_t)n, "; rules");
	for (int i = 0; i < CARC_R_COUNT; i++) {
		const carc_rule_desc *d = carc_rule(i);
		if (d->type == 0) n += snprintf(buf + n, sizeof buf - (size_t)n, " %s=%s", d->key, d->values[cfg->rules[i]]);
		else if (d->type == 1) n += snprintf(buf + n, sizeof buf - (size_t)n, " %s=%d", d->key, cfg->rules[i]);
	}
	snprintf(buf + n, sizeof buf - (size_t)n, ")");
	return buf;
}

static int deploy_cmp(const void *a, const void *b)
{
	const ord_deploy *x = a, *y = b;
	return x->seg != y->seg ? x->seg - y->seg : x->kind - y->kind;
}

/* "large on the field at port NL (model: farm with a barn)" */
static int say(char *buf, size_t size, int seat, const ord_deploy *p)
{
	ord *d = &model;
	int port = ord_first_port(d, p->seg);
	return snprintf(buf, size, "\n    %s on the %s at port %s (model: %s)", carc_figkind_name(p->kind),
	                carc_fkind_name(d->o.segs[p->seg].kind), port < 0 ? "?" : carc_port_name(port),
	                ord_reason_name(ord_judge(d, seat, p->kind, p->seg)));
}

/* The engine's deploys (got) are the model's (want); else a message with
 * what each has that the other does not. */
static void same_deploys(const carc_game *g, int seat, const char *when, ord_deploy *want, int nwant,
                         ord_deploy *got, int ngot)
{
	if (nwant) qsort(want, (size_t)nwant, sizeof *want, deploy_cmp);
	if (ngot) qsort(got, (size_t)ngot, sizeof *got, deploy_cmp); /* none: got may be NULL */
	int same = nwant == ngot;
	for (int i = 0; same && i < nwant; i++) same = !deploy_cmp(&want[i], &got[i]);
	if (same) return;
	ord *d = &model;
	const ore_cell *c = &d->o.cells[d->last_cell];
	static char msg[4096];
	int n = snprintf(msg, sizeof msg, "%s, seat %d, tile %s at (%d,%d) turned %d: %s\n  only the model allows:", when,
	                 seat, carc_tile_id(c->type), c->x, c->y, c->rot, describe(g));
	int i = 0, j = 0;
	static ord_deploy only_got[MAX_DEPLOYS];
	int nonly = 0;
	while (i < nwant || j < ngot) {
		int k = i == nwant ? 1 : j == ngot ? -1 : deploy_cmp(&want[i], &got[j]);
		if (k == 0) {
			i++;
			j++;
		} else if (k < 0) {
			if (n < 2000) n += say(msg + n, sizeof msg - (size_t)n, seat, &want[i]);
			i++;
		} else {
			only_got[nonly++] = got[j++];
		}
	}
	n += snprintf(msg + n, sizeof msg - (size_t)n, "\n  only the engine lists:");
	for (int k = 0; k < nonly && n < 3800; k++) n += say(msg + n, sizeof msg - (size_t)n, seat, &only_got[k]);
	ck_abort_msg("%s", msg);
}

/* Figures in a feature: bit k for a figure of kind k, of `seat` if it is
 * not -1. */
static unsigned kinds_in(int root, int seat)
{
	ord *d = &model;
	unsigned kinds = 0;
	for (int f = 0; f < d->o.nfigs; f++)
		if (d->o.fig_seg[f] >= 0 && (seat < 0 || d->o.fig_seat[f] == seat) && ore_root(&d->o, d->o.fig_seg[f]) == root)
			kinds |= 1u << d->o.fig_kind[f];
	return kinds;
}

/* The model's verdicts on every kind and feature of a tile just placed,
 * counted, with the cases that show a rule at work. */
static void count_reasons(int seat)
{
	ord *d = &model;
	const ore_cell *c = &d->o.cells[d->last_cell];
	unsigned sym = carc_tiletypes[c->type].symbols;
	cov.lakes += (sym & CARC_SYM_VOLCANO) != 0;
	cov.abbeys += (sym & CARC_SYM_ABBEY) != 0;
	for (int i = 0; i < c->nfeat; i++)
		for (int k = 0; k < CARC_FIG_COUNT; k++) {
			int r = ord_judge(d, seat, k, c->seg0 + i);
			cov.reasons[r]++;
			if (r != ORD_OK) continue;
			int root = ore_root(&d->o, c->seg0 + i);
			unsigned all = kinds_in(root, -1), own = kinds_in(root, seat);
			if (k == CARC_FIG_FOLLOWER || k == CARC_FIG_LARGE)
				cov.beside_special += (all & (1u << CARC_FIG_BUILDER | 1u << CARC_FIG_PIG | 1u << CARC_FIG_SHEPHERD |
				                               1u << CARC_FIG_BARN)) != 0;
			cov.shepherd_barn += k == CARC_FIG_SHEPHERD && (all >> CARC_FIG_BARN & 1);
			cov.builder_special += k == CARC_FIG_BUILDER &&
			                       !(own & (1u << CARC_FIG_FOLLOWER | 1u << CARC_FIG_LARGE));
		}
}

/* At an action decision: the engine's deploys are the model's. */
static void check_action(const carc_game *g, int n)
{
	static ord_deploy want[MAX_DEPLOYS], got[MAX_DEPLOYS];
	ord *d = &model;
	int seat = carc_game_seat(g), ngot = 0, pass = 0;
	TU_ASSERT_MSG(d->last_cell >= 0, "an action decision before any tile was placed: %s", describe(g));
	const ore_cell *c = &d->o.cells[d->last_cell];
	/* the supply the model counts is the engine's */
	for (int k = 0; k < CARC_FIG_COUNT; k++)
		TU_ASSERT_MSG(carc_supply_count(g, seat, k) == d->supply[seat][k],
		              "seat %d has %d %s in supply, the model counts %d: %s", seat, carc_supply_count(g, seat, k),
		              carc_figkind_name(k), d->supply[seat][k], describe(g));
	for (int i = 0; i < n; i++) {
		if (moves[i].type == CARC_MV_PASS) {
			pass++;
			continue;
		}
		TU_ASSERT_MSG(moves[i].type == CARC_MV_DEPLOY, "a %s move in the action phase: %s",
		              carc_mtype_name(moves[i].type), describe(g));
		TU_ASSERT_MSG(moves[i].x == c->x && moves[i].y == c->y && moves[i].kind < CARC_FIG_COUNT,
		              "a deploy listed at (%d,%d), kind %d; the tile placed is at (%d,%d): %s", moves[i].x,
		              moves[i].y, moves[i].kind, c->x, c->y, describe(g));
		int seg = ore_port_seg(&d->o, d->last_cell, moves[i].port);
		if (seg >= 0) seg = ord_first_seg(d, seg); /* a feature the tile holds twice: its first segment */
		TU_ASSERT_MSG(seg >= 0, "a deploy listed at port %s of (%d,%d), where the tile has no feature: %s",
		              carc_port_name(moves[i].port), c->x, c->y, describe(g));
		cov.listed[moves[i].kind]++;
		if (moves[i].kind == CARC_FIG_BARN) {
			/* where a barn may stand is test_oracle_ext.c's; here only
			 * that the seat has one */
			TU_ASSERT_MSG(d->supply[seat][CARC_FIG_BARN] > 0, "seat %d is offered a barn it does not have: %s", seat,
			              describe(g));
			continue;
		}
		for (int j = 0; j < ngot; j++)
			TU_ASSERT_MSG(got[j].kind != moves[i].kind || got[j].seg != seg,
			              "a %s listed twice on one feature of (%d,%d): %s", carc_figkind_name(moves[i].kind), c->x,
			              c->y, describe(g));
		TU_LT(ngot, MAX_DEPLOYS);
		got[ngot++] = (ord_deploy){ moves[i].kind, seg };
	}
	TU_EQ(pass, 1);
	TU_ASSERT_MSG(n > 1, "an action decision with nothing but pass: %s", describe(g));
	int nwant = ord_deploys(d, seat, want, MAX_DEPLOYS);
	cov.decisions++;
	cov.no_followers += d->supply[seat][CARC_FIG_FOLLOWER] == 0;
	same_deploys(g, seat, "at the action decision the deploys listed are not the model's", want, nwant, got, ngot);
}

/* Events a placement makes before its deployment step: a tile hidden
 * under a hill.  Farmers joined to a barn's farm are still there: they
 * score with the rest of the turn, in step 3 (RULES.md 1.2, row 16). */
static int before_deploy_step(const carc_event *e)
{
	return e->type == CARC_EV_TILE_HIDDEN;
}

/* Plays a move's events into the model.  After a placement, *nsnap gets
 * the model's deploys as the deployment step would see them (-1: no
 * placement). */
static void follow(const carc_game *g, ord_deploy *snap, int *nsnap, int *seat)
{
	int pending = 0;
	*nsnap = -1;
	TU_LE(ev.sink.n, ev.sink.cap);
	for (int i = 0; i < ev.sink.n; i++) {
		const carc_event *e = &ev.ev[i];
		if (pending && !before_deploy_step(e)) {
			*nsnap = ord_deploys(&model, *seat, snap, MAX_DEPLOYS);
			count_reasons(*seat);
			pending = 0;
		}
		ord_event(&model, e);
		if (e->type == CARC_EV_TILE_PLACED && e->seat >= 0) {
			pending = 1;
			*seat = e->seat;
		}
	}
	if (pending) {
		*nsnap = ord_deploys(&model, *seat, snap, MAX_DEPLOYS);
		count_reasons(*seat);
	}
	(void)g;
}

/* Games from CROWDED_FROM on have a crowded supply (tu_crowded_supply). */
#define CROWDED_FROM 1000000
#define CROWDED_GAMES 240
#define CROWDED_PER_TEST 60

static void make_config(carc_config *cfg, int game)
{
	carc_rng rng;
	carc_rng_seed(&rng, 0xde9107e47ull + (uint64_t)game * 0x9e3779b97f4a7c15ull);
	tu_random_game(cfg, &rng, game);
	if (game >= CROWDED_FROM) tu_crowded_supply(cfg, &rng);
	if (game % 4 == 1) tu_random_components(cfg, &rng);
}

static void play(int game)
{
	static ord_deploy snap[MAX_DEPLOYS];
	memset(&gi, 0, sizeof gi);
	gi.game = game;
	make_config(&gi.cfg, game);
	ord_init(&model, &gi.cfg);
	cov.all_sets += gi.cfg.expansions == tu_all_available();
	cov.farmers_off += !gi.cfg.rules[CARC_R_FARMERS];
	cov.components_off += gi.cfg.components_given;
	carc_rng pick;
	carc_rng_seed(&pick, (uint64_t)game * 7919 + 3);
	int pass_pct = (int)carc_rng_below(&pick, 40);
	/* one game in four keeps its abbeys for the final round (abbey_final_round) */
	int keep_abbeys = carc_rng_below(&pick, 4) == 0;
	/* and prefers the special figures, so that more of them stand about */
	int special_pct = (int)carc_rng_below(&pick, 60);

	tu_events_reset(&ev);
	carc_game *g = tu_game_new(&gi.cfg, &ev.sink);
	int nsnap, seat = -1;
	follow(g, snap, &nsnap, &seat);
	for (int nplayed = 0; !carc_game_over(g); nplayed++) {
		TU_ASSERT_MSG(nplayed < MAX_GAME_MOVES, "no end after %d moves: %s", nplayed, describe(g));
		int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		TU_GT(n, 0);
		TU_LE(n, CARC_MAX_MOVES);
		if (carc_game_phase(g) == CARC_PH_ACTION) check_action(g, n);
		int k = (int)tu_pick(&pick, (uint32_t)n);
		if (carc_game_phase(g) == CARC_PH_ACTION && (int)tu_pick(&pick, 100) < special_pct) {
			/* a figure other than a plain follower, when one is listed */
			for (int j = 0; j < n && (moves[k].type != CARC_MV_DEPLOY || moves[k].kind == CARC_FIG_FOLLOWER); j++)
				k = (k + 1) % n;
		}
		if (carc_game_phase(g) == CARC_PH_ACTION && (int)tu_pick(&pick, 100) < pass_pct) {
			carc_move pass = tu_pass();
			int p = tu_find_move(moves, n, &pass);
			if (p >= 0) k = p;
		}
		for (int j = 0; keep_abbeys && carc_game_phase(g) == CARC_PH_TILE && moves[k].type == CARC_MV_PLACE_ABBEY && j < n; j++)
			k = (k + 1) % n;
		carc_move m = moves[k];
		cov.final_abbeys += carc_game_phase(g) == CARC_PH_ABBEY_FINAL && m.type == CARC_MV_PLACE_ABBEY;
		if (trace)
			fprintf(stderr, "turn %u seat %d %s: %s (%d,%d) rot %d kind %s port %s tile %s\n", carc_game_turn(g),
			        carc_game_seat(g), carc_phase_name(carc_game_phase(g)), carc_mtype_name(m.type), m.x, m.y, m.rot,
			        m.type == CARC_MV_DEPLOY ? carc_figkind_name(m.kind) : "-",
			        m.type == CARC_MV_DEPLOY ? carc_port_name(m.port) : "-",
			        m.type == CARC_MV_PLACE_TILE ? carc_tile_id(m.tile) : "-");
		tu_events_reset(&ev);
		tu_apply_ok(g, m, &ev.sink);
		follow(g, snap, &nsnap, &seat);
		if (nsnap < 0) continue;
		cov.placements++;
		if (carc_game_phase(g) == CARC_PH_ACTION && carc_game_seat(g) == seat) continue; /* checked next */
		/* the engine skipped the deployment step: the rules allow nothing */
		cov.skipped++;
		cov.skipped_end += carc_game_over(g);
		same_deploys(g, seat, "the engine skipped the action decision after a placement", snap, nsnap, NULL, 0);
	}
	free(g);
}

START_TEST(test_deploy_games)
{
	memset(&cov, 0, sizeof cov);
	trace = getenv("DEPLOY_EXT_TRACE") && atoi(getenv("DEPLOY_EXT_TRACE"));
	if (!tu_play_batch(_i, GAMES_PER_TEST, play, "DEPLOY_EXT_GAME")) return; /* one game, for a reproduction */
	if (getenv("CARC_PROPERTY_STATS")) {
		fprintf(stderr,
		        "batch %d: %ld action decisions (%ld of a seat with no follower left), %ld placements, %ld skipped (%ld at the end);"
		        " games with every set %ld, farmers off %ld, components given %ld\n  listed:",
		        _i, cov.decisions, cov.no_followers, cov.placements, cov.skipped, cov.skipped_end, cov.all_sets,
		        cov.farmers_off, cov.components_off);
		for (int k = 0; k < CARC_FIG_COUNT; k++) fprintf(stderr, " %s %ld", carc_figkind_name(k), cov.listed[k]);
		fprintf(stderr, "\n  model:");
		for (int r = 0; r < ORD_COUNT; r++) fprintf(stderr, " %s %ld,", ord_reason_name(r), cov.reasons[r]);
		fprintf(stderr,
		        "  followers beside a special figure %ld, shepherds beside a barn %ld, builders beside a mayor or wagon %ld;"
		        " volcano lakes %ld, abbeys %ld (final round %ld)\n",
		        cov.beside_special, cov.shepherd_barn, cov.builder_special, cov.lakes, cov.abbeys, cov.final_abbeys);
	}
	/* sixty games always go through these (about two to four times
	 * these numbers; a barn's farm shutting out a farmer, and abbeys
	 * placed in the final round, come up a few times a batch) */
	ck_assert_int_ge(cov.decisions, 2500);
	ck_assert_int_ge(cov.skipped, 1500);
	ck_assert_int_ge(cov.skipped_end, 10);
	ck_assert_int_ge(cov.no_followers, 50);
	ck_assert_int_ge(cov.listed[CARC_FIG_FOLLOWER], 5000);
	ck_assert_int_ge(cov.listed[CARC_FIG_LARGE], 500);
	ck_assert_int_ge(cov.listed[CARC_FIG_WAGON], 400);
	ck_assert_int_ge(cov.listed[CARC_FIG_MAYOR], 400);
	ck_assert_int_ge(cov.listed[CARC_FIG_BUILDER], 50);
	ck_assert_int_ge(cov.listed[CARC_FIG_PIG], 40);
	ck_assert_int_ge(cov.listed[CARC_FIG_SHEPHERD], 500);
	ck_assert_int_ge(cov.reasons[ORD_VOLCANO], 150);
	ck_assert_int_ge(cov.reasons[ORD_NOT_HERE], 1000);
	ck_assert_int_ge(cov.reasons[ORD_NO_FIELDS], 5000);
	ck_assert_int_ge(cov.reasons[ORD_NO_FIGURE], 10000);
	ck_assert_int_ge(cov.reasons[ORD_TAKEN], 1000);
	ck_assert_int_ge(cov.reasons[ORD_BARN_FARM], 1);
	ck_assert_int_ge(cov.reasons[ORD_NO_OWN], 2000);
	ck_assert_int_ge(cov.reasons[ORD_SHEPHERD_FARM], 30);
	ck_assert_int_ge(cov.beside_special, 30);
	ck_assert_int_ge(cov.builder_special, 5);
	ck_assert_int_ge(cov.abbeys, 30);
	ck_assert_int_ge(cov.final_abbeys, 1);
	ck_assert_int_ge(cov.components_off, 10);
}
END_TEST

/* a batch takes about a tenth of a second natively; valgrind
 * (CK_TIMEOUT_MULTIPLIER) is ~50x slower */
static void play_crowded(int game) { play(CROWDED_FROM + game); }

/* Crowded supplies: every deploy decision against the model as above. */
START_TEST(test_deploy_crowded)
{
	memset(&cov, 0, sizeof cov);
	if (!tu_play_batch(_i, CROWDED_PER_TEST, play_crowded, "DEPLOY_EXT_CROWDED")) return;
	ck_assert_int_ge(cov.listed[CARC_FIG_FOLLOWER], 100 * CROWDED_PER_TEST);
}
END_TEST

#ifdef TU_FUZZ
/* tests/unit/fuzz_deploy_ext: the input names game n, dealt as
 * test_deploy_games deals it (crowded from CROWDED_FROM on), and picks
 * its decisions (tu_fuzz_game). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)test_deploy_games; /* the Check tests, not run here */
	(void)test_deploy_crowded;
	tu_fuzz_game(data, size, play);
	return 0;
}
#else
int main(void)
{
	return tu_run_batches2("deploy_ext", test_deploy_games, GAMES / GAMES_PER_TEST, test_deploy_crowded,
	                       CROWDED_GAMES / CROWDED_PER_TEST, 120);
}
#endif

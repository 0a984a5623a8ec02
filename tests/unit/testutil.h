/*
 * testutil.h - small helpers shared by the Check unit tests: games on the
 * heap, fixed tile orders, move constructors and event sinks.
 *
 * Helpers assert with ck_assert, so a failure points at the test that
 * called them (Check reports the helper's line; the test name says which).
 */
#ifndef CARC_TESTUTIL_H
#define CARC_TESTUTIL_H

#include <check.h>
#include <stddef.h>

#include "carc.h"

/*
 * Fuzz builds.  The tests that hold random games against a model can be
 * built with -DTU_FUZZ into coverage-guided fuzz targets (`make fuzz`,
 * tests/unit/fuzz_*): the input picks the game and then its decisions
 * (tu_pick), so that libFuzzer steers the games into the rare corners
 * that uniform random play seldom reaches, and the model checks every
 * one of them.  There is no Check runner there: a failed check prints
 * where and why, and aborts, which the fuzzer reports with the input.
 */
#ifdef TU_FUZZ
void tu_fuzz_failed(const char *file, int line, const char *expr, const char *msg, ...)
	__attribute__((noreturn, format(printf, 4, 5)));
#define _ck_assert_failed tu_fuzz_failed
#define _mark_point(file, line) ((void)0)
#endif

/*
 * Cheap assertions for hot loops.  A passing ck_assert_* is not free: it
 * reports its location to the Check parent through a file (one write per
 * check), which made the property test spend most of its time in the
 * kernel.  These only call into Check when they fail.
 */
#define TU_ASSERT(cond) \
	do { \
		if (!(cond)) ck_abort_msg("Assertion '%s' failed", #cond); \
	} while (0)
#define TU_ASSERT_MSG(cond, ...) \
	do { \
		if (!(cond)) ck_abort_msg(__VA_ARGS__); \
	} while (0)
#define TU_CMP(a, op, b) \
	do { \
		long long tu_a_ = (long long)(a), tu_b_ = (long long)(b); \
		if (!(tu_a_ op tu_b_)) \
			ck_abort_msg("Assertion '%s %s %s' failed: %s == %lld, %s == %lld", #a, #op, #b, #a, tu_a_, #b, tu_b_); \
	} while (0)
#define TU_EQ(a, b) TU_CMP(a, ==, b)
#define TU_NE(a, b) TU_CMP(a, !=, b)
#define TU_LT(a, b) TU_CMP(a, <, b)
#define TU_LE(a, b) TU_CMP(a, <=, b)
#define TU_GT(a, b) TU_CMP(a, >, b)
#define TU_GE(a, b) TU_CMP(a, >=, b)

/* A sink with room for every event one call can make. */
typedef struct tu_events {
	carc_event ev[CARC_MAX_EVENTS];
	carc_sink sink;
} tu_events;

void tu_events_reset(tu_events *e);
int tu_events_count(const tu_events *e, int type);
/* The i-th event of `type` in the sink, or NULL. */
const carc_event *tu_events_nth(const tu_events *e, int type, int i);

int tu_tile(const char *id); /* asserts the id exists */

/* A game with a custom start tile at (0,0) and exactly `tiles` (NULL-
 * terminated ids) as the supply, in order. */
void tu_config_fixed(carc_config *cfg, int nseats, const char *start_id, int start_rot,
                     const char *const *tiles);

/* carc_game_init into fresh heap memory; asserts CARC_OK. */
carc_game *tu_game_new(const carc_config *cfg, carc_sink *out);

carc_move tu_place(const carc_game *g, int x, int y, int rot); /* the drawn tile */
carc_move tu_deploy(int x, int y, int port);                   /* a follower */
carc_move tu_pass(void);

/* carc_apply that must succeed. */
void tu_apply_ok(carc_game *g, carc_move m, carc_sink *out);

/* Index of `m` in a legal-move list (same type, x, y, rot, tile, kind and,
 * for deploys, port), or -1. */
int tu_find_move(const carc_move *moves, int n, const carc_move *m);

/* The smallest box around every tile on the board (the start tile's (0,0)
 * always inside it). */
void tu_board_bounds(const carc_game *g, int *minx, int *maxx, int *miny, int *maxy);

/* Followers of `seat` standing on the board, read with carc_figure_get. */
int tu_on_board(const carc_game *g, int seat);

/* Every expansion the engine can play now, as a carc_config.expansions mask. */
uint32_t tu_all_available(void);
/* The expansions named (a NULL-terminated list, or `n` names when the list
 * has no NULL), as such a mask; asserts each is available. */
uint32_t tu_expansions(const char *const *names, int n);

/* A random value for every rule option (integers keep their default). */
void tu_random_rules(carc_config *cfg, carc_rng *rng);
/* A random game for the tests that hold random games against a model:
 * every available set in every third game (game % 3 == 0), else base and
 * a random half of the others; 2 + game % 5 seats; a seed and every rule
 * option drawn from `rng`. */
void tu_random_game(carc_config *cfg, carc_rng *rng, int game);

/* "game N: sets ...; S seats; seed X; rules ..." (the rule options off
 * their default) into buf, for a failure's message; returns the length
 * written, less than cap. */
size_t tu_describe_game(const carc_config *cfg, int game, char *buf, size_t cap);

/* A crowded supply for cfg (RULES.md sets no limit on how often a tile
 * may come in a game's own `tiles`): 150 to 299 tiles drawn with repeats
 * from up to 8 land types (no river edge) of cfg->expansions, so that a
 * board holds far more of a kind of tile than any set's supply. */
void tu_crowded_supply(carc_config *cfg, carc_rng *rng);
/* Gives cfg a random set of the components the available expansions
 * bring, their tiles in play or not (RULES.md section 6): a figure without
 * its set, a set without some of its figures. */
void tu_random_components(carc_config *cfg, carc_rng *rng);

/* A choice among n (n > 0) for a random game: the next two bytes of the
 * fuzz input while it lasts (tu_fuzz_game), else carc_rng_below(rng, n).
 * Outside a fuzz target there is no input, and the games are those of rng. */
uint32_t tu_pick(carc_rng *rng, uint32_t n);
/* A fuzz target's input: its first four bytes name the game, play(game)
 * plays it with the rest as the bytes of tu_pick.  An input too short to
 * name a game is skipped. */
void tu_fuzz_game(const uint8_t *data, size_t size, void (*play)(int game));

/* Runs a suite (in fork mode, Check's default) and gives main's exit code. */
int tu_run(Suite *s);
/* Plays the games of batch `batch` (per a batch) with play(), or, when
 * the variable `one_env` is set, only the game it names in batch 0 (to
 * reproduce a failure); returns 0 when it played no whole batch, so that
 * the batch's own checks are not asked of it. */
int tu_play_batch(int batch, int per, void (*play)(int game), const char *one_env);

/* Runs `test` for _i in [0, batches) as the test case "games" of a suite
 * `name`, each batch given `timeout` seconds (stretched under valgrind by
 * CK_TIMEOUT_MULTIPLIER), and gives main's exit code.  With `crowded`,
 * the test case "crowded" runs it for _i in [0, crowded_batches) too. */
int tu_run_batches(const char *name, const TTest *test, int batches, int timeout);
int tu_run_batches2(const char *name, const TTest *test, int batches, const TTest *crowded, int crowded_batches,
                    int timeout);

#endif

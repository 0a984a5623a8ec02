/*
 * slowest - the longest single engine call in games a client may set up.
 *
 * carcd answers one request at a time, so while one call into libcarc
 * runs, every other client waits.  Dealt games keep calls to
 * microseconds; this benchmark plays the worst kind of caller-given game
 * found so far: a river of many forks (`tiles` repeating one river tile)
 * from many springs (`start`), which leaves the river far more open ends
 * than a dealt game ever has, on a board wide enough to fold over the
 * engine's 32 x 32 cell map.  It plays random games (a random legal move
 * at every decision, as playouts does) and times every carc_legal_moves
 * and carc_apply.  Not a test: it asserts nothing and its figures depend
 * on the machine.
 *
 *   slowest [--games N] [--tile ID] [--count N] [--springs K] [--spacing D] [--seed X]
 *
 * The supply is --count copies of --tile (default 300 x RI.2/III, the
 * River II fork), with the expansions base, river and river2 and two
 * seats.  The start tiles are --springs springs (RI/s, at most 16), the
 * k-th at (D (k mod 4), D (k div 4)) turned k mod 4 (default D = 10).
 * It prints, as medians over the games, the time a whole game took and
 * its slowest call, and the slowest call of all the games.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "figures.h"

static void usage(void)
{
	fprintf(stderr, "usage: slowest [--games N] [--tile ID] [--count N] [--springs K] [--spacing D] [--seed X]\n");
	exit(2);
}

/* A count from the command line, lo..hi, or the usage. */
static long count_arg(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < lo || v > hi) usage();
	return v;
}

int main(int argc, char **argv)
{
	long games = 5, count = 300, springs = 16, spacing = 10;
	unsigned long long seed = 1;
	const char *tile = "RI.2/III";
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc) usage();
		if (!strcmp(argv[i], "--games")) games = count_arg(argv[++i], 1, 100000);
		else if (!strcmp(argv[i], "--tile")) tile = argv[++i];
		else if (!strcmp(argv[i], "--count")) count = count_arg(argv[++i], 1, CARC_MAX_TILES);
		else if (!strcmp(argv[i], "--springs")) springs = count_arg(argv[++i], 1, CARC_MAX_START);
		else if (!strcmp(argv[i], "--spacing")) spacing = count_arg(argv[++i], 2, 300);
		else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[++i], NULL, 0);
		else usage();
	}
	int type = carc_tile_find(tile), spring = carc_tile_find("RI/s");
	if (type < 0) {
		fprintf(stderr, "slowest: no tile %s\n", tile);
		return 2;
	}
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.expansions = 1u << carc_expansion_find("base") | 1u << carc_expansion_find("river") |
	                 1u << carc_expansion_find("river2");
	cfg.nseats = 2;
	for (long k = 0; k < count; k++) cfg.tiles[cfg.ntiles++] = (uint16_t)type;
	for (long k = 0; k < springs; k++)
		cfg.start[cfg.nstart++] = (carc_start_tile){ (uint16_t)spring, (int16_t)(spacing * (k % 4)),
		                                             (int16_t)(spacing * (k / 4)), (uint8_t)(k % 4) };

	carc_game *g = malloc(carc_game_size());
	carc_move *moves = malloc(CARC_MAX_MOVES * sizeof *moves);
	double *total = malloc((size_t)games * sizeof *total), *slow = malloc((size_t)games * sizeof *slow);
	if (!g || !moves || !total || !slow) return 1;
	double slowest = 0;
	long calls = 0, placed = 0;
	for (long i = 0; i < games; i++) {
		cfg.seed = seed + (unsigned long long)i;
		carc_rc rc = carc_game_init(g, &cfg, NULL);
		if (rc != CARC_OK) {
			fprintf(stderr, "slowest: this game cannot be set up (%s)\n", carc_strerror(rc));
			return 2;
		}
		carc_rng rng;
		carc_rng_seed(&rng, cfg.seed);
		total[i] = slow[i] = 0;
		while (!carc_game_over(g)) {
			double t0 = now();
			int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
			double t1 = now();
			if (n <= 0) {
				fprintf(stderr, "slowest: no legal move in game %ld\n", i);
				return 1;
			}
			rc = carc_apply(g, &moves[carc_rng_below(&rng, (uint32_t)n)], NULL);
			double t2 = now();
			if (rc != CARC_OK) {
				fprintf(stderr, "slowest: a listed move was refused (%s)\n", carc_strerror(rc));
				return 1;
			}
			calls += 2;
			total[i] += t2 - t0;
			if (t1 - t0 > slow[i]) slow[i] = t1 - t0;
			if (t2 - t1 > slow[i]) slow[i] = t2 - t1;
		}
		placed += carc_board_count(g);
		if (slow[i] > slowest) slowest = slow[i];
	}
	printf("games: %ld (%ld x %s, %ld springs %ld apart), calls: %ld, board tiles a game: %.1f\n", games, count, tile,
	       springs, spacing, calls, (double)placed / (double)games);
	printf("ms a game (median): %.2f\n", median(total, (int)games) * 1e3);
	printf("slowest call of a game, ms (median): %.2f\n", median(slow, (int)games) * 1e3);
	printf("slowest call of all, ms: %.2f\n", slowest * 1e3);
	free(slow);
	free(total);
	free(moves);
	free(g);
	return 0;
}

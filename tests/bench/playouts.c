/*
 * playouts - how fast libcarc plays whole random games.
 *
 * Plays N uniformly random full games (a random legal placement, then a
 * random choice among every deploy and pass) on one thread, in several
 * rounds, and prints the median rate.  Not a test: it asserts nothing and
 * its figures depend on the machine.
 *
 *   playouts [--games N] [--rounds R] [--seats S] [--expansions LIST] [--seed X]
 *            [--base-tiles N] [--vs-base G] [--split]
 *
 * --base-tiles N plays base games whose supply is the base set shuffled
 * and dealt again until it holds N tiles: a game as long as one with many
 * expansions (about 184 tiles with every set of issue 4) without their
 * rules, to tell the cost of a longer game from the cost of the rules.
 *
 * --vs-base G plays G base games (same seats) just before each round and
 * prints also the median of the rounds' ratios, games/s of the round over
 * games/s of the base games before it: on a shared machine whose speed
 * drifts, a pair measured back to back tells the cost of the expansions
 * more steadily than two runs minutes apart.
 *
 * Games of different expansions are of different lengths (a base game
 * places 72 tiles, one with every set of issue 4 about 184), so beside
 * games/s it prints the tiles that end on the board a second ("board
 * tiles/s", start tiles included), and with --vs-base that rate's ratio
 * too: what a tile of the game costs against a tile of a base game.
 *
 * It also prints how many moves the listings of a game held, placements
 * and the other moves apart (with --vs-base, the base games' too): counts,
 * the same on every machine.  Every listed move is written out, so this
 * is work that grows with the board faster than the number of tiles: a
 * game with every set of issue 4 lists about 4.7 times the placements of
 * a base game.
 *
 * --split also tells where a game's time goes, and with --vs-base the
 * same for the base games: each round's games are replayed from the moves
 * they chose, applying the moves only, then listing the placements before
 * each tile is placed as well, then listing every decision's moves as the
 * playouts do.  The differences are what listing the placements and
 * listing the other decisions cost (with few games, noise that can even
 * fall below 0); no clock is read inside a game.  It prints the three
 * parts per game (medians of the rounds) and, with --vs-base, the games/s
 * ratio to base that the rounds would have had if listing placements cost
 * nothing in either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "figures.h"

static void usage(void)
{
	fprintf(stderr, "usage: playouts [--games N] [--rounds R] [--seats S] [--expansions a,b] [--seed X] [--base-tiles N]\n"
	                "                [--vs-base G] [--split]\n");
	exit(2);
}

/* A batch of games: `games` games of cfg, seeds from `first` on; with
 * --base-tiles (nbase), each a supply of base_tiles tiles dealt from
 * base_set, which is shuffled in place. */
typedef struct batch {
	carc_config *cfg;
	long games;
	unsigned long long first;
	uint16_t *base_set;
	int nbase;
	long base_tiles;
} batch;

/* Sets up game i of the batch. */
static carc_rc start_game(carc_game *g, const batch *b, long i)
{
	carc_config *cfg = b->cfg;
	cfg->seed = b->first + (unsigned long long)i;
	if (b->nbase) { /* shuffled base sets, dealt one after another */
		carc_rng deal;
		carc_rng_seed(&deal, cfg->seed);
		for (long k = 0; k < b->base_tiles; k++) {
			if (k % b->nbase == 0)
				for (int a = b->nbase - 1; a > 0; a--) {
					int c = (int)carc_rng_below(&deal, (uint32_t)a + 1);
					uint16_t t = b->base_set[a];
					b->base_set[a] = b->base_set[c];
					b->base_set[c] = t;
				}
			cfg->tiles[k] = b->base_set[k % b->nbase];
		}
		cfg->ntiles = (uint16_t)b->base_tiles;
	}
	return carc_game_init(g, cfg, NULL);
}

/* The moves a batch's games chose, one game after another (--split). */
typedef struct record {
	carc_move *m;
	size_t n, cap;
} record;

static int record_move(record *r, const carc_move *m)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 4096;
		carc_move *p = realloc(r->m, cap * sizeof *p);
		if (!p) return -1;
		r->m = p;
		r->cap = cap;
	}
	r->m[r->n++] = *m;
	return 0;
}

/* What a batch of games did, summed over its games. */
typedef struct tally {
	long long generations; /* legal-move listings */
	long long listed[2];   /* moves those listings held: placements, the rest */
	long long tiles;       /* tiles on the boards at the end */
	long long checksum;    /* seat 0's scores */
} tally;

/* The counts that add up over rounds: the moves listed and the checksum. */
static void tally_add(tally *to, const tally *t)
{
	to->listed[0] += t->listed[0];
	to->listed[1] += t->listed[1];
	to->checksum += t->checksum;
}

/* Plays the batch's games at random; returns the seconds taken, adds what
 * they did to *t and appends the moves chosen to *rec unless it is NULL.
 * -1: a game could not be set up. */
static double play_batch(carc_game *g, carc_move *moves, const batch *b, carc_rng *pick, record *rec, tally *t)
{
	double t0 = now();
	for (long i = 0; i < b->games; i++) {
		if (start_game(g, b, i) != CARC_OK) return -1;
		while (!carc_game_over(g)) {
			int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
			t->generations++;
			t->listed[moves[0].type != CARC_MV_PLACE_TILE] += n;
			const carc_move *m = &moves[carc_rng_below(pick, (uint32_t)n)];
			if (rec && record_move(rec, m)) return -1;
			carc_apply(g, m, NULL);
		}
		t->tiles += carc_board_count(g);
		t->checksum += carc_game_score(g, 0);
	}
	return now() - t0;
}

/* What a replay of recorded games does beside applying their moves. */
enum { LIST_NOTHING, LIST_PLACEMENTS, LIST_ALL, REPLAYS };

/* Replays the batch's games from the moves in rec (base_set first set back
 * to set0, as it was when they were played), listing moves as `mode` says;
 * returns the seconds taken, or -1 when a game does not replay. */
static double replay(carc_game *g, carc_move *moves, const batch *b, const uint16_t *set0, const record *rec, int mode,
                     long long *sink)
{
	if (b->nbase) memcpy(b->base_set, set0, sizeof *set0 * (size_t)b->nbase);
	size_t k = 0;
	double t0 = now();
	for (long i = 0; i < b->games; i++) {
		if (start_game(g, b, i) != CARC_OK) return -1;
		while (!carc_game_over(g)) {
			if (mode == LIST_ALL || (mode == LIST_PLACEMENTS && carc_game_phase(g) == CARC_PH_TILE))
				*sink += carc_legal_moves(g, moves, CARC_MAX_MOVES);
			if (k == rec->n || carc_apply(g, &rec->m[k++], NULL) != CARC_OK) return -1;
		}
	}
	double t = now() - t0;
	return k == rec->n ? t : -1;
}

/* --split for one round of a batch: plays its games recording their moves,
 * then replays them in each mode; part[] gets the seconds per game of
 * applying, of listing placements and of listing the rest.  Returns 0, or
 * -1 when a game could not be set up or replayed. */
static int split_batch(carc_game *g, carc_move *moves, const batch *b, carc_rng *pick, double part[3])
{
	uint16_t set0[CARC_MAX_TILES];
	if (b->nbase) memcpy(set0, b->base_set, sizeof *set0 * (size_t)b->nbase);
	record rec = { NULL, 0, 0 };
	tally played = { 0 };
	long long sink = 0;
	double t[REPLAYS];
	int rc = play_batch(g, moves, b, pick, &rec, &played) < 0 ? -1 : 0;
	for (int mode = 0; mode < REPLAYS && !rc; mode++)
		if ((t[mode] = replay(g, moves, b, set0, &rec, mode, &sink)) < 0) rc = -1;
	free(rec.m);
	if (rc) return -1;
	part[0] = t[LIST_NOTHING] / (double)b->games;
	part[1] = (t[LIST_PLACEMENTS] - t[LIST_NOTHING]) / (double)b->games;
	part[2] = (t[LIST_ALL] - t[LIST_PLACEMENTS]) / (double)b->games;
	return 0;
}

int main(int argc, char **argv)
{
	long games = 20000, rounds = 5, seats = 2, base_tiles = 0, vs_base = 0;
	int split = 0;
	unsigned long long seed = 1;
	carc_config cfg;
	carc_config_init(&cfg);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--split")) {
			split = 1;
			continue;
		}
		if (i + 1 >= argc) usage();
		if (!strcmp(argv[i], "--games")) games = atol(argv[++i]);
		else if (!strcmp(argv[i], "--rounds")) rounds = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seats")) seats = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--base-tiles")) base_tiles = atol(argv[++i]);
		else if (!strcmp(argv[i], "--vs-base")) vs_base = atol(argv[++i]);
		else if (!strcmp(argv[i], "--expansions")) {
			cfg.expansions = 0;
			char *list = argv[++i];
			for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
				int e = carc_expansion_find(name);
				if (e < 0 || !carc_expansion(e)->available) {
					fprintf(stderr, "playouts: unknown or unavailable expansion '%s'\n", name);
					return 2;
				}
				cfg.expansions |= 1u << e;
			}
		} else usage();
	}
	if (games < 1 || rounds < 1 || seats < 1 || seats > CARC_MAX_SEATS || base_tiles < 0 || base_tiles > CARC_MAX_TILES ||
	    vs_base < 0)
		usage();
	cfg.nseats = (uint8_t)seats;
	carc_game *g = malloc(carc_game_size());
	carc_move *moves = malloc(sizeof *moves * CARC_MAX_MOVES);
	if (!g || !moves) return 1;
	/* --base-tiles: the base supply, as the tiles a base game placed after
	 * the start tile (the supply itself is secret) */
	uint16_t base_set[CARC_MAX_TILES];
	int nbase = 0;
	if (base_tiles) {
		cfg.expansions = 1u << carc_expansion_find("base");
		cfg.seed = seed;
		carc_rng any;
		carc_rng_seed(&any, seed);
		if (carc_game_init(g, &cfg, NULL) != CARC_OK) return 1;
		while (!carc_game_over(g)) {
			int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
			carc_apply(g, &moves[carc_rng_below(&any, (uint32_t)n)], NULL);
		}
		for (int c = 1; c < carc_board_count(g); c++) {
			carc_placed_info p;
			carc_board_get(g, c, &p);
			base_set[nbase++] = p.tile;
		}
		if (!nbase) {
			fprintf(stderr, "playouts: the base game placed no tile to deal from\n");
			return 1;
		}
	}

	double *rate = malloc(sizeof *rate * (size_t)rounds), *gen = malloc(sizeof *gen * (size_t)rounds);
	double *base_rate = malloc(sizeof *base_rate * (size_t)rounds), *ratio = malloc(sizeof *ratio * (size_t)rounds);
	double *tile_rate = malloc(sizeof *tile_rate * (size_t)rounds), *tile_ratio = malloc(sizeof *tile_ratio * (size_t)rounds);
	double(*part)[3] = malloc(sizeof *part * (size_t)rounds), (*base_part)[3] = malloc(sizeof *base_part * (size_t)rounds);
	if (!rate || !gen || !base_rate || !ratio || !tile_rate || !tile_ratio || !part || !base_part) return 1;
	carc_config base_cfg;
	carc_config_init(&base_cfg);
	base_cfg.nseats = cfg.nseats;
	carc_rng pick, base_pick;
	carc_rng_seed(&pick, seed ^ 0x5eed);
	carc_rng_seed(&base_pick, seed ^ 0xba5e);
	tally sum = { 0 }, base_sum = { 0 }; /* over the rounds */
	for (long r = 0; r < rounds; r++) {
		tally t = { 0 }, bt_tally = { 0 };
		double base_tile_rate = 0;
		batch base_batch = { &base_cfg, vs_base, seed + (unsigned long long)(r * vs_base), NULL, 0, 0 };
		batch the_batch = { &cfg, games, seed + (unsigned long long)(r * games), base_set, nbase, base_tiles };
		if (vs_base) {
			double bt = play_batch(g, moves, &base_batch, &base_pick, NULL, &bt_tally);
			if (bt < 0) {
				fprintf(stderr, "playouts: cannot set up a base game\n");
				return 1;
			}
			base_rate[r] = (double)vs_base / bt;
			base_tile_rate = (double)bt_tally.tiles / bt;
			tally_add(&base_sum, &bt_tally);
		}
		double dt = play_batch(g, moves, &the_batch, &pick, NULL, &t);
		if (dt < 0) {
			fprintf(stderr, "playouts: cannot set up a game\n");
			return 1;
		}
		rate[r] = (double)games / dt;
		gen[r] = (double)t.generations / dt;
		tile_rate[r] = (double)t.tiles / dt;
		tally_add(&sum, &t);
		if (vs_base) {
			ratio[r] = rate[r] / base_rate[r];
			tile_ratio[r] = tile_rate[r] / base_tile_rate;
		}
	}
	printf("games: %ld x %ld rounds, seats: %ld\n", games, rounds, seats);
	printf("games/s: %.0f\n", median(rate, (int)rounds));
	printf("legal-move generations/s: %.0f\n", median(gen, (int)rounds));
	printf("board tiles/s: %.0f\n", median(tile_rate, (int)rounds));
	/* counts, not times: what every listing of a game's decisions has to
	 * write, the same on any machine */
	static const char *listed_what[2] = { "placements", "other moves" };
	for (int k = 0; k < 2; k++) {
		printf("%s listed a game: %.1f", listed_what[k], (double)sum.listed[k] / (double)(games * rounds));
		if (vs_base) printf(" (base %.1f)", (double)base_sum.listed[k] / (double)(vs_base * rounds));
		printf("\n");
	}
	if (vs_base) {
		printf("base games/s (%ld before each round): %.0f\n", vs_base, median(base_rate, (int)rounds));
		printf("ratio to base (median of the rounds): %.3f\n", median(ratio, (int)rounds));
		printf("board tiles/s ratio to base (median of the rounds): %.3f\n", median(tile_ratio, (int)rounds));
	}
	if (split) {
		/* after the rounds above, not to slow them: the same games again */
		carc_rng_seed(&pick, seed ^ 0x5eed);
		carc_rng_seed(&base_pick, seed ^ 0xba5e);
		double *col = malloc(sizeof *col * (size_t)rounds);
		if (!col) return 1;
		for (long r = 0; r < rounds; r++) {
			batch base_batch = { &base_cfg, vs_base, seed + (unsigned long long)(r * vs_base), NULL, 0, 0 };
			batch the_batch = { &cfg, games, seed + (unsigned long long)(r * games), base_set, nbase, base_tiles };
			if ((vs_base && split_batch(g, moves, &base_batch, &base_pick, base_part[r])) ||
			    split_batch(g, moves, &the_batch, &pick, part[r])) {
				fprintf(stderr, "playouts: a game did not replay from its moves\n");
				return 1;
			}
		}
		static const char *what[3] = { "applying moves", "listing placements", "listing other decisions" };
		for (int k = 0; k < 3; k++) {
			for (long r = 0; r < rounds; r++) col[r] = part[r][k] * 1e6;
			printf("split: %s, us a game: %.2f", what[k], median(col, (int)rounds));
			if (vs_base) {
				for (long r = 0; r < rounds; r++) col[r] = base_part[r][k] * 1e6;
				printf(" (base %.2f)", median(col, (int)rounds));
			}
			printf("\n");
		}
		if (vs_base) {
			/* games/s ratios: base time over this time, all of it or
			 * without the placements listed */
			for (long r = 0; r < rounds; r++)
				col[r] = (base_part[r][0] + base_part[r][1] + base_part[r][2]) / (part[r][0] + part[r][1] + part[r][2]);
			printf("split: ratio to base of the replays (median of the rounds): %.3f\n", median(col, (int)rounds));
			for (long r = 0; r < rounds; r++)
				col[r] = (base_part[r][0] + base_part[r][2]) / (part[r][0] + part[r][2]);
			printf("split: the same if listing placements cost nothing: %.3f\n", median(col, (int)rounds));
		}
		free(col);
	}
	printf("state bytes: %zu\n", carc_game_size());
	printf("checksum: %lld\n", sum.checksum);
	free(g);
	free(moves);
	free(rate);
	free(gen);
	free(base_rate);
	free(ratio);
	free(tile_rate);
	free(tile_ratio);
	free(part);
	free(base_part);
	return 0;
}

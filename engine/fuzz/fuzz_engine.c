/*
 * fuzz_engine.c - a libFuzzer target for libcarc itself: the input is a
 * game's configuration, then its decisions.
 *
 * The first bytes fill a carc_config: the sets, seats, rule values,
 * components, seed, and sometimes a supply, start tiles and a sheep bag of
 * their own; flag bits say which fields take raw bytes (mostly out of
 * range) rather than values in range.  carc_game_init must take or refuse
 * it without harm.  Then each decision takes a byte: most pick one of the
 * listed moves, which must be accepted; some build a move from raw bytes
 * near the board, which, if refused, must leave the game byte for byte as
 * it was, and be named by a condition (carc_move_refusal) exactly when a
 * rule refuses it; some ask the read-only calls a client or a renderer uses, or end
 * a copy of the game now.  When the input runs out, the first listed move
 * is played until the game ends, so every input reaches the final scoring.
 *
 * Built by `make fuzz`, which runs it on engine/fuzz/corpus (inputs a
 * libFuzzer run found; Makefile.am says how they were picked) and on
 * random inputs.  With -DFUZZ_STANDALONE it has its own main()
 * (standalone.h): it runs the files named, such as a libFuzzer corpus or
 * a crash it saved, then -runs=N inputs of random bytes (a poor man's
 * fuzzer for gcc).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"

typedef struct input {
	const uint8_t *p;
	size_t n;
} input;

/* The next k bytes (k <= 8), little-endian; 0 past the end. */
static uint64_t take(input *in, int k)
{
	uint64_t v = 0;
	for (int i = 0; i < k && in->n; i++, in->p++, in->n--) v |= (uint64_t)*in->p << (8 * i);
	return v;
}

#define CHECK(cond)                                                                            \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "fuzz_engine: %s:%d: %s does not hold\n", __FILE__, __LINE__, #cond); \
			abort();                                                               \
		}                                                                              \
	} while (0)

static void read_config(input *in, carc_config *cfg)
{
	carc_config_init(cfg);
	unsigned raw = (unsigned)take(in, 1);
	uint32_t sets = (uint32_t)take(in, 4);
	uint32_t available = 0;
	for (int e = 0; e < carc_expansion_count(); e++)
		if (carc_expansion(e)->available) available |= 1u << e;
	cfg->expansions = raw & 1 ? sets : (sets & available) | 1u << carc_expansion_find("base");
	cfg->nseats = (uint8_t)(raw & 2 ? take(in, 1) : 1 + take(in, 1) % CARC_MAX_SEATS);
	for (int r = 0; r < CARC_R_COUNT; r++) {
		const carc_rule_desc *d = carc_rule(r);
		int nvalues = 0;
		while (d->type == 0 && d->values[nvalues]) nvalues++;
		uint32_t v = (uint32_t)take(in, raw & 4 ? 4 : 1);
		cfg->rules[r] = raw & 4 ? (int32_t)v : d->type == 0 ? (int32_t)(v % (uint32_t)nvalues)
		                                  : d->type == 1 ? (int32_t)(v & 1) : (int32_t)(v % 8);
	}
	if (raw & 8) {
		cfg->components_given = 1;
		cfg->components = (uint32_t)take(in, 4);
	}
	cfg->seed = take(in, 8);
	if (raw & 16) { /* a supply of its own, up to the board's limit and past it: tiles of
	                   the chosen sets, or (raw & 128) any numbers */
		static uint16_t ours[4096];
		int nours = 0;
		for (int t = 0; t < carc_tile_count() && nours < 4096; t++)
			if (cfg->expansions >> carc_tile_expansion(t) & 1) ours[nours++] = (uint16_t)t;
		cfg->ntiles = (uint16_t)(take(in, 2) % (CARC_MAX_TILES + 2));
		for (int i = 0; i < cfg->ntiles && i < CARC_MAX_TILES; i++) {
			uint32_t v = (uint32_t)take(in, 2);
			cfg->tiles[i] = raw & 128 || !nours ? (uint16_t)(v % (uint32_t)(carc_tile_count() + 2)) : ours[v % (uint32_t)nours];
		}
	}
	if (raw & 32) { /* start tiles of its own, near each other */
		cfg->nstart = (uint8_t)(1 + take(in, 1) % (CARC_MAX_START + 1));
		for (int i = 0; i < cfg->nstart && i < CARC_MAX_START; i++)
			cfg->start[i] = (carc_start_tile){ (uint16_t)(take(in, 2) % (uint32_t)(carc_tile_count() + 2)),
				                           (int16_t)((int)take(in, 1) % 5 - 2), (int16_t)((int)take(in, 1) % 5 - 2),
				                           (uint8_t)(take(in, 1) % 5) };
	}
	if (raw & 64) { /* a sheep bag of its own */
		cfg->nbag = (uint8_t)(take(in, 1) % 40); /* also more of a token than the bag holds */
		for (int i = 0; i < cfg->nbag; i++) cfg->bag[i] = (uint8_t)(take(in, 1) % 7);
	}
}

/* A move from raw bytes: any type and fields, placed near the board. */
static carc_move raw_move(input *in, const carc_game *g)
{
	carc_placed_info p = { 0, 0, 0, 0 };
	carc_board_get(g, (int)(take(in, 1) % (uint64_t)carc_board_count(g)), &p);
	carc_move m;
	m.type = (uint8_t)(take(in, 1) % (CARC_MV_COUNT + 1));
	m.rot = (uint8_t)(take(in, 1) % 5);
	m.kind = (uint8_t)(take(in, 1) % (CARC_FIG_COUNT + 1));
	m.port = (uint8_t)(take(in, 1) % (CARC_PORT_COUNT + 1));
	m.x = (int16_t)(p.x + (int)(take(in, 1) % 5) - 2);
	m.y = (int16_t)(p.y + (int)(take(in, 1) % 5) - 2);
	m.tile = (uint16_t)take(in, 2);
	m.figure = (uint16_t)take(in, 2);
	return m;
}

/* What a client or a renderer reads of a game: none of it may fail hard. */
static void read_all(const carc_game *g)
{
	for (int s = -1; s <= carc_game_nseats(g); s++) (void)carc_game_score(g, s);
	for (int i = 0; i < carc_board_count(g); i++) {
		carc_placed_info p;
		CHECK(carc_board_get(g, i, &p) == 1);
		uint16_t ports[32];
		uint8_t kinds[32];
		(void)carc_tile_features(g, p.x, p.y, ports, kinds, 32);
	}
	for (int f = 0; f < carc_figure_count(g) + 1; f++) {
		carc_figure_info fi;
		(void)carc_figure_get(g, f, &fi);
	}
	(void)carc_game_hash(g);
}

static carc_move list[CARC_MAX_MOVES];
static long games_played, moves_played; /* for the standalone driver's report */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static carc_game *g, *before;
	static carc_event ev[CARC_MAX_EVENTS];
	if (!g) {
		/* zeroed, so that a refused move can be seen to change no byte */
		g = calloc(1, carc_game_size());
		before = calloc(1, carc_game_size());
		CHECK(g && before);
	}
	input in = { data, size };
	carc_config cfg;
	read_config(&in, &cfg);
	carc_sink sink = { ev, 0, CARC_MAX_EVENTS };
	if (carc_game_init(g, &cfg, &sink) != CARC_OK) return 0;
	games_played++;
	for (int steps = 0; !carc_game_over(g); steps++) {
		CHECK(steps < 20000); /* every game ends */
		int n = carc_legal_moves(g, list, CARC_MAX_MOVES);
		CHECK(n > 0 && n <= CARC_MAX_MOVES); /* a game not over has a decision */
		unsigned op = in.n ? (unsigned)take(&in, 1) : 0;
		moves_played++;
		sink.n = 0;
		if (op < 208) {
			carc_move m = list[in.n ? take(&in, 2) % (uint64_t)n : 0];
			CHECK(carc_check_move(g, &m, NULL) == CARC_OK);
			CHECK(carc_apply(g, &m, &sink) == CARC_OK);
		} else if (op < 240) {
			carc_move m = raw_move(&in, g);
			carc_game_clone(before, g);
			carc_rc checked = carc_check_move(g, &m, NULL);
			/* a rule's refusal, and only one, is named, by a condition */
			int ax = INT_MIN, ay = INT_MIN;
			carc_refusal why = carc_move_refusal(g, &m, &ax, &ay);
			CHECK((why != CARC_RF_NONE) == (checked == CARC_E_RULE) && why != CARC_RF_OTHER && why < CARC_RF_COUNT);
			CHECK(why != CARC_RF_NONE || (ax == INT_MIN && ay == INT_MIN));
			CHECK(carc_move_refusal(g, &m, NULL, NULL) == why);
			int k = carc_move_index(g, list, n, &m); /* a listed move exactly when legal */
			CHECK((k >= 0) == (checked == CARC_OK) && (k < 0 || list[k].type == m.type));
			carc_rc rc = carc_apply(g, &m, &sink);
			CHECK(rc == checked);
			if (rc != CARC_OK) CHECK(!memcmp(g, before, carc_game_size()) && sink.n == 0);
		} else if (op < 248) {
			read_all(g);
		} else {
			carc_game_clone(before, g);
			carc_end_now(before, &sink);
			CHECK(carc_game_over(before));
			CHECK(carc_legal_moves(before, list, CARC_MAX_MOVES) == 0);
		}
	}
	read_all(g);
	CHECK(carc_legal_moves(g, list, CARC_MAX_MOVES) == 0);
	return 0;
}

#ifdef FUZZ_STANDALONE
#include "fuzz/standalone.h"
int main(int argc, char **argv)
{
	long files = fuzz_files(argc, argv), runs = fuzz_runs(argc, argv, files ? 0 : 1000);
	static uint8_t buf[4096];
	uint64_t x = 88172645463325252ull;
	for (long r = 0; r < runs; r++) {
		size_t n = fuzz_random_input(&x, buf, sizeof buf);
		/* raw config fields one time in eight each, so most inputs play */
		if (n > 2) buf[0] &= buf[1] & buf[2];
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("fuzz_engine: %ld files and %ld random inputs, %ld games, %ld decisions, no crash\n", files, runs, games_played,
	       moves_played);
	return 0;
}
#endif

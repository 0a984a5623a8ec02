/*
 * test_rng.c - rng.c: xoshiro256** seeded through splitmix64 against known
 * outputs, carc_rng_below's range and fairness, and the seeded shuffle of
 * a game's supply.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "oracle_place.h"
#include "testutil.h"

/*
 * Expected values were computed once, outside this code base, by a short
 * python3 transcription of the published reference C sources
 * (prng.di.unimi.it/splitmix64.c and xoshiro256starstar.c, Blackman and
 * Vigna): state[i] = the i-th splitmix64 output from the seed, then
 * xoshiro256** next().  The same script gives splitmix64's well-known
 * first output for seed 1234567, 6457827717110365317, which vouches for
 * the transcription.
 */
static const struct {
	uint64_t seed, state[4], out[6];
} known[] = {
	{ 0,
	  { 0xe220a8397b1dcdafull, 0x6e789e6aa1b965f4ull, 0x06c45d188009454full, 0xf88bb8a8724c81ecull },
	  { 0x99ec5f36cb75f2b4ull, 0xbf6e1f784956452aull, 0x1a5f849d4933e6e0ull, 0x6aa594f1262d2d2cull,
	    0xbba5ad4a1f842e59ull, 0xffef8375d9ebcacaull } },
	{ 1,
	  { 0x910a2dec89025cc1ull, 0xbeeb8da1658eec67ull, 0xf893a2eefb32555eull, 0x71c18690ee42c90bull },
	  { 0xb3f2af6d0fc710c5ull, 0x853b559647364ceaull, 0x92f89756082a4514ull, 0x642e1c7bc266a3a7ull,
	    0xb27a48e29a233673ull, 0x24c123126ffda722ull } },
	{ 0xdeadbeefcafebabeull,
	  { 0x0d7d93560d1929d2ull, 0x491dfb740e50d43full, 0x42722bf4473e5e7dull, 0xd6ca8a0790fffc45ull },
	  { 0x2299b3421aa78b66ull, 0x9af6550483e02887ull, 0xda059cb5eec5c979ull, 0xcf86bd29360fff98ull,
	    0x5cc883c940089820ull, 0xb00610aced04900full } },
};

START_TEST(test_known_outputs)
{
	for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
		carc_rng r;
		carc_rng_seed(&r, known[k].seed);
		for (int i = 0; i < 4; i++)
			ck_assert_msg(r.s[i] == known[k].state[i], "seed %#llx: state[%d] = %#llx", (unsigned long long)known[k].seed,
			              i, (unsigned long long)r.s[i]);
		for (int i = 0; i < 6; i++) {
			uint64_t v = carc_rng_next(&r);
			ck_assert_msg(v == known[k].out[i], "seed %#llx: output %d = %#llx", (unsigned long long)known[k].seed, i,
			              (unsigned long long)v);
		}
	}
}
END_TEST

/* Same python script: the first ten carc_rng_below(10) and (3) from seed 42
 * (high 32 bits of a draw, rejected below 2^32 mod n, then mod n). */
START_TEST(test_known_below)
{
	static const uint32_t ten[10] = { 8, 2, 0, 9, 5, 9, 9, 7, 6, 7 }, three[10] = { 0, 2, 0, 1, 2, 1, 2, 0, 0, 1 };
	carc_rng r;
	carc_rng_seed(&r, 42);
	for (int i = 0; i < 10; i++) ck_assert_uint_eq(carc_rng_below(&r, 10), ten[i]);
	carc_rng_seed(&r, 42);
	for (int i = 0; i < 10; i++) ck_assert_uint_eq(carc_rng_below(&r, 3), three[i]);
}
END_TEST

START_TEST(test_same_seed_same_sequence)
{
	carc_rng a, b, c;
	carc_rng_seed(&a, 0x123456789abcdefull);
	carc_rng_seed(&b, 0x123456789abcdefull);
	carc_rng_seed(&c, 0x123456789abcdeeull);
	int differ = 0;
	for (int i = 0; i < 10000; i++) {
		uint64_t x = carc_rng_next(&a), z = carc_rng_next(&c);
		ck_assert(x == carc_rng_next(&b));
		differ += x != z;
	}
	ck_assert_int_gt(differ, 9990);
	/* a copy of the state continues the same sequence (a cloned game does) */
	carc_rng d = a;
	for (int i = 0; i < 100; i++) ck_assert(carc_rng_next(&a) == carc_rng_next(&d));
}
END_TEST

START_TEST(test_below_bounds)
{
	static const uint32_t ns[] = { 1, 2, 3, 7, 10, 71, 72, 1000, 65537, 0x7fffffffu, 0x80000001u, 0xfffffffeu,
		                       0xffffffffu };
	carc_rng r;
	carc_rng_seed(&r, 7);
	for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		uint32_t max = 0;
		for (int i = 0; i < 20000; i++) {
			uint32_t v = carc_rng_below(&r, ns[k]);
			ck_assert_msg(v < ns[k], "below(%u) gave %u", ns[k], v);
			if (v > max) max = v;
		}
		if (ns[k] == 1) ck_assert_uint_eq(max, 0);
		if (ns[k] > 1 && ns[k] <= 1000) ck_assert_uint_eq(max, ns[k] - 1); /* every small range is reached */
	}
}
END_TEST

/* Pearson's chi-square over n buckets; thresholds are the 0.999 quantiles,
 * so a fair generator fails this fixed seed's check with odds ~1/1000 and,
 * being seeded, either always or never. */
static double chi_square(carc_rng *r, uint32_t n, int draws)
{
	int *count = calloc(n, sizeof *count);
	ck_assert_ptr_nonnull(count);
	for (int i = 0; i < draws; i++) count[carc_rng_below(r, n)]++;
	double e = (double)draws / n, chi = 0;
	for (uint32_t b = 0; b < n; b++) chi += (count[b] - e) * (count[b] - e) / e;
	free(count);
	return chi;
}

START_TEST(test_below_uniform)
{
	carc_rng r;
	carc_rng_seed(&r, 2024);
	ck_assert_double_lt(chi_square(&r, 6, 60000), 20.52);   /* 5 degrees of freedom */
	ck_assert_double_lt(chi_square(&r, 72, 72000), 112.4);  /* 71 */
	ck_assert_double_lt(chi_square(&r, 2, 10000), 10.83);   /* 1 */
	/* With n = 3 * 2^30 a plain v % n on 32 bits would give the lowest
	 * 2^30 values twice the weight of the rest (1/2 of the draws instead
	 * of 1/3): only the rejection keeps them at a third. */
	int low = 0, draws = 30000;
	for (int i = 0; i < draws; i++) low += carc_rng_below(&r, 0xc0000000u) < 0x40000000u;
	ck_assert_int_gt(low, draws * 31 / 100);
	ck_assert_int_lt(low, draws * 35 / 100);
}
END_TEST

/* ---- the shuffle of a game's supply ---------------------------------------- */

/* Plays a game always taking the first legal move and returns the tiles
 * drawn in order (discarded draws included). */
static int draw_order_of(uint64_t seed, int nseats, const char *const *sets, uint16_t *out, int cap)
{
	carc_config cfg;
	carc_config_init(&cfg);
	if (sets) {
		int nsets = 0;
		while (sets[nsets]) nsets++;
		cfg.expansions = tu_expansions(sets, nsets);
	}
	cfg.seed = seed;
	cfg.nseats = (uint8_t)nseats;
	static tu_events ev;
	tu_events_reset(&ev);
	carc_game *g = tu_game_new(&cfg, &ev.sink);
	carc_move *moves = malloc(sizeof *moves * CARC_MAX_MOVES);
	ck_assert_ptr_nonnull(moves);
	int n = 0;
	for (;;) {
		for (int i = 0; i < ev.sink.n; i++)
			if (ev.ev[i].type == CARC_EV_TILE_DRAWN) {
				ck_assert_int_lt(n, cap);
				out[n++] = ev.ev[i].tile;
			}
		if (carc_game_over(g)) break;
		int nm = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		ck_assert_int_gt(nm, 0);
		tu_events_reset(&ev);
		tu_apply_ok(g, moves[0], &ev.sink);
	}
	free(moves);
	free(g);
	return n;
}

static int draw_order(uint64_t seed, int nseats, uint16_t *out, int cap)
{
	return draw_order_of(seed, nseats, NULL, out, cap);
}

START_TEST(test_shuffle_determinism)
{
	uint16_t a[200], b[200], c[200];
	int na = draw_order(99, 2, a, 200), nb = draw_order(99, 2, b, 200), nc = draw_order(100, 2, c, 200);
	ck_assert_int_eq(na, nb);
	ck_assert(!memcmp(a, b, sizeof a[0] * (size_t)na));
	int same = 0;
	for (int i = 0; i < na && i < nc; i++) same += a[i] == c[i];
	ck_assert_int_lt(same, 30); /* another seed, another order */
	/* the same seed gives the same state right after set-up, another seed not */
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.seed = 5;
	carc_game *g1 = tu_game_new(&cfg, NULL), *g2 = tu_game_new(&cfg, NULL);
	ck_assert(carc_game_hash(g1) == carc_game_hash(g2));
	cfg.seed = 6;
	carc_game *g3 = tu_game_new(&cfg, NULL);
	ck_assert(carc_game_hash(g1) != carc_game_hash(g3));
	free(g1);
	free(g2);
	free(g3);
}
END_TEST

/* The draws of a full game are the 71 tiles of the set without the start
 * tile, each as often as the manifest says (none discarded twice). */
START_TEST(test_shuffle_is_a_permutation)
{
	static const struct { const char *id; int count; } counts[] = {
		{ "BA/LR", 2 }, { "BA/L", 4 }, { "BA/Cccc+", 1 }, { "BA/RCr", 3 }, { "BA/C", 5 }, { "BA/CFc+", 2 },
		{ "BA/CFc.1", 1 }, { "BA/CFC.2", 3 }, { "BA/CC.2", 2 }, { "BA/CRr", 3 }, { "BA/RrC", 3 }, { "BA/CRRR", 3 },
		{ "BA/Cc+", 2 }, { "BA/Cc.1", 3 }, { "BA/CcRr+", 2 }, { "BA/CcRr", 3 }, { "BA/Ccc+", 1 }, { "BA/Ccc", 3 },
		{ "BA/CccR+", 2 }, { "BA/CccR", 1 }, { "BA/RFr", 8 }, { "BA/Rr", 9 }, { "BA/RRR", 4 }, { "BA/RRRR", 1 },
	};
	int firsts[1024] = { 0 };
	ck_assert_int_lt(carc_tile_count(), 1024);
	for (uint64_t seed = 1; seed <= 40; seed++) {
		uint16_t d[200];
		int n = draw_order(seed, 1 + (int)(seed % 6), d, 200);
		ck_assert_int_eq(n, 71);
		for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
			int t = tu_tile(counts[k].id), c = 0;
			for (int i = 0; i < n; i++) c += d[i] == t;
			ck_assert_msg(c == counts[k].count, "seed %d: %s drawn %d times", (int)seed, counts[k].id, c);
		}
		firsts[d[0]]++;
	}
	/* 40 seeds do not all start with the same tile */
	int distinct = 0;
	for (int t = 0; t < carc_tile_count(); t++) distinct += firsts[t] > 0;
	ck_assert_int_ge(distinct, 8);
}
END_TEST

/* The river tiles are shuffled too (RULES.md 2.2: "Shuffle the other
 * river tiles face down and put the lake last"; 2.3: River II's fork
 * first): every river tile is drawn before the first land tile, the lake
 * last of them, River II's fork first, and between them the order is
 * the seed's.  Over 200 seeds each River I tile type but the lake comes
 * first (the eight types of its ten tiles, each 10% or 20% of the time),
 * none in more than 30% of the games, and the same for the tile drawn
 * right after River II's fork (nine types among its ten tiles). */
START_TEST(test_river_shuffle)
{
	static const char *const river1[] = { "base", "river", NULL }, *const river2[] = { "base", "river2", NULL };
	static const struct { const char *const *sets; const char *first, *lake; int nriver, types; } games[] = {
		{ river1, NULL, "RI.1/I.e", 11, 8 },
		{ river2, "RI.2/III", "RI.2/I.v", 11, 9 },
	};
	for (size_t k = 0; k < sizeof games / sizeof games[0]; k++) {
		int opening[1024] = { 0 }, lake = tu_tile(games[k].lake), fork = games[k].first ? tu_tile(games[k].first) : -1;
		ck_assert_int_lt(carc_tile_count(), 1024);
		for (uint64_t seed = 1; seed <= 200; seed++) {
			uint16_t d[200];
			int n = draw_order_of(seed, 2, games[k].sets, d, 200), nriver = 0;
			while (nriver < n && opl_is_river(d[nriver])) nriver++;
			ck_assert_msg(nriver == games[k].nriver, "seed %d: %d river tiles before the first land tile", (int)seed,
			              nriver);
			for (int i = nriver; i < n; i++) ck_assert_msg(!opl_is_river(d[i]), "seed %d: a river tile late", (int)seed);
			ck_assert_msg(d[nriver - 1] == lake, "seed %d: %s is the last river tile", (int)seed, carc_tile_id(d[nriver - 1]));
			if (fork >= 0) ck_assert_msg(d[0] == fork, "seed %d: %s drawn first", (int)seed, carc_tile_id(d[0]));
			opening[d[fork >= 0 ? 1 : 0]]++;
		}
		int distinct = 0, most = 0;
		for (int t = 0; t < carc_tile_count(); t++) {
			distinct += opening[t] > 0;
			if (opening[t] > most) most = opening[t];
		}
		ck_assert_int_eq(distinct, games[k].types);
		ck_assert_int_le(most, 60);
	}
}
END_TEST

static Suite *rng_suite(void)
{
	Suite *s = suite_create("rng");
	TCase *tc = tcase_create("generator");
	tcase_add_test(tc, test_known_outputs);
	tcase_add_test(tc, test_known_below);
	tcase_add_test(tc, test_same_seed_same_sequence);
	tcase_add_test(tc, test_below_bounds);
	tcase_add_test(tc, test_below_uniform);
	suite_add_tcase(s, tc);
	tc = tcase_create("shuffle");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_shuffle_determinism);
	tcase_add_test(tc, test_shuffle_is_a_permutation);
	tcase_add_test(tc, test_river_shuffle);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(rng_suite());
}

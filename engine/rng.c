/*
 * rng.c - the engine's only source of chance.
 *
 * xoshiro256** (Blackman and Vigna) seeded through splitmix64, and bounded
 * numbers by rejection, so a seed means the same shuffle on every machine
 * and every compiler: the games of a seed can be replayed anywhere.
 */
#include "carc.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void carc_rng_seed(carc_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t carc_rng_next(carc_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n), from a draw's high 32 bits: those below 2^32 mod n
 * are rejected, so no value is favoured.  n = 0 is no range:
 * 0, and nothing is drawn. */
uint32_t carc_rng_below(carc_rng *r, uint32_t n)
{
	if (n == 0) return 0;
	uint32_t limit = (uint32_t)(-n) % n; /* 2^32 mod n */
	for (;;) {
		uint32_t v = (uint32_t)(carc_rng_next(r) >> 32);
		if (v >= limit) return v % n;
	}
}

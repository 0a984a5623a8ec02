/*
 * standalone.h - the driver of a game fuzz target built without libFuzzer
 * (-DFUZZ_STANDALONE, as `make fuzz` builds them with gcc): it feeds the
 * target -runs=N inputs of pseudo-random bytes, of pseudo-random lengths
 * below the buffer's size, the same inputs on every run.  Shared by
 * engine/fuzz/fuzz_engine.c and the model tests' targets
 * (tests/unit/testutil.c).
 */
#ifndef CARC_FUZZ_STANDALONE_H
#define CARC_FUZZ_STANDALONE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -runs=N from the command line (`runs` without it); exits 2 on
 * anything else. */
static long fuzz_runs(int argc, char **argv, long runs)
{
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "-runs=", 6)) runs = atol(argv[i] + 6);
		else {
			fprintf(stderr, "usage: %s [-runs=N]\n", argv[0]);
			exit(2);
		}
	}
	return runs;
}

/* The next input into buf (cap bytes) from the xorshift state *x: its
 * length, below cap. */
static size_t fuzz_random_input(uint64_t *x, uint8_t *buf, size_t cap)
{
	size_t n = (size_t)(*x % cap);
	for (size_t i = 0; i < n; i++) {
		*x ^= *x << 13;
		*x ^= *x >> 7;
		*x ^= *x << 17;
		buf[i] = (uint8_t)*x;
	}
	return n;
}

#endif

/*
 * standalone.h - the driver of a game fuzz target built without libFuzzer
 * (-DFUZZ_STANDALONE, as `make fuzz` builds them with gcc): it runs the
 * target on the files named on the command line (a directory: each file
 * in it), such as a libFuzzer corpus or the input of a crash it saved,
 * then on -runs=N inputs of pseudo-random bytes, of pseudo-random lengths
 * below the buffer's size, the same inputs on every run.  Shared by
 * engine/fuzz/fuzz_engine.c and the model tests' targets
 * (tests/unit/testutil.c).
 */
#ifndef CARC_FUZZ_STANDALONE_H
#define CARC_FUZZ_STANDALONE_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs the target on the file at `path` (its first MiB: far more than
 * any input of these targets); returns 1, or 0 when it cannot be read. */
static int fuzz_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) return 0;
	static uint8_t data[1 << 20];
	size_t n = fread(data, 1, sizeof data, f);
	int ok = !ferror(f);
	fclose(f);
	if (ok) LLVMFuzzerTestOneInput(data, n);
	return ok;
}

/* Runs the files named on the command line (and those in the
 * directories named) and returns how many; -runs=N is for fuzz_runs.
 * Exits 2 on another option or a path it cannot read. */
static long fuzz_files(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && strncmp(argv[i], "-runs=", 6)) {
			fprintf(stderr, "usage: %s [-runs=N] [FILE|DIR]...\n", argv[0]);
			exit(2);
		}
	long n = 0;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') continue;
		DIR *d = opendir(argv[i]);
		if (!d) {
			if (!fuzz_file(argv[i])) {
				fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
				exit(2);
			}
			n++;
			continue;
		}
		for (struct dirent *e; (e = readdir(d));) {
			char path[4096];
			if (e->d_name[0] == '.') continue;
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			n += fuzz_file(path);
		}
		closedir(d);
	}
	return n;
}

/* -runs=N from the command line; without it `runs`. */
static long fuzz_runs(int argc, char **argv, long runs)
{
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "-runs=", 6)) runs = atol(argv[i] + 6);
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

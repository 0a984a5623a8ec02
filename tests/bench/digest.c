/*
 * digest.c - plays seeded random games with random set mixes, seat counts
 * and rule values, and prints one line a game: its number, a 64-bit digest
 * of every legal-move list, every event and the final scores, and the
 * number of moves played.
 *
 *     digest [GAMES]      (default 2000)
 *
 * It asserts nothing.  It is for changes that must not change any game
 * (speed work): build it before and after, run both, and compare the
 * outputs with cmp.  A difference names the first game that plays
 * differently; the same lines mean every listing (content and order),
 * every event and every score were the same.
 *
 * Every field goes into the digest by value, as the little-endian bytes
 * at the offsets it has on x86-64 (padding as 0), so a machine of another
 * byte order or word size prints the same lines for the same games:
 * tests/port/run compares i386 and s390x builds with this one that way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"

#define MAX_EVENTS 512
#define MAX_STEPS 5000

static uint64_t digest;

static void mix(const unsigned char *c, size_t n)
{
	for (size_t i = 0; i < n; i++) digest = (digest ^ c[i]) * 0x100000001b3ull; /* FNV-1a */
}

/* v's n low bytes, the least significant first. */
static void put_le(unsigned char *b, uint32_t v, int n)
{
	for (int i = 0; i < n; i++) b[i] = (unsigned char)(v >> 8 * i);
}

static void mix_int(int v)
{
	unsigned char b[4];
	put_le(b, (uint32_t)v, 4);
	mix(b, 4);
}

static void mix_moves(const carc_move *m, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned char b[12] = { m[i].type, m[i].rot, m[i].kind, m[i].port };
		put_le(b + 4, (uint16_t)m[i].x, 2);
		put_le(b + 6, (uint16_t)m[i].y, 2);
		put_le(b + 8, m[i].tile, 2);
		put_le(b + 10, m[i].figure, 2);
		mix(b, sizeof b);
	}
}

static void mix_events(const carc_event *e, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned char b[24] = { e[i].type,  (uint8_t)e[i].seat, e[i].rot,  e[i].port, e[i].fkind,
		                        e[i].why,   e[i].final,         e[i].kind, (uint8_t)e[i].from };
		put_le(b + 10, (uint16_t)e[i].x, 2);
		put_le(b + 12, (uint16_t)e[i].y, 2);
		put_le(b + 14, e[i].tile, 2);
		put_le(b + 16, e[i].figure, 2);
		put_le(b + 18, e[i].ntiles, 2);
		put_le(b + 20, (uint32_t)e[i].points, 4);
		mix(b, sizeof b);
	}
}

/* A random configuration: each available expansion in with probability 2/3,
 * 1-6 seats, and every implemented rule option at a random value. */
static void random_config(carc_config *cfg, carc_rng *r, int game)
{
	carc_config_init(cfg);
	cfg->nseats = (uint8_t)(1 + carc_rng_below(r, CARC_MAX_SEATS));
	cfg->seed = 1000 + (uint64_t)game;
	for (int e = 0; e < carc_expansion_count(); e++)
		if (carc_expansion(e)->available && carc_rng_below(r, 3)) cfg->expansions |= 1u << e;
	for (int k = 0; k < CARC_R_COUNT; k++) {
		const carc_rule_desc *d = carc_rule(k);
		if (!d->implemented) continue;
		int nvalues = d->type == 1 ? 2 : 0; /* a switch, or the named values of an option */
		if (d->type == 0)
			while (d->values[nvalues]) nvalues++;
		if (nvalues) cfg->rules[k] = (int)carc_rng_below(r, (uint32_t)nvalues);
	}
}

int main(int argc, char **argv)
{
	int games = argc > 1 ? atoi(argv[1]) : 2000;
	if (argc > 2 || games < 1) {
		fprintf(stderr, "usage: digest [GAMES]\n");
		return 2;
	}
	carc_game *g = malloc(carc_game_size());
	carc_move *moves = malloc(sizeof *moves * CARC_MAX_MOVES);
	static carc_event ev[MAX_EVENTS];
	if (!g || !moves) return 1;
	carc_rng r;
	carc_rng_seed(&r, 12345);
	for (int i = 0; i < games; i++) {
		carc_config cfg;
		random_config(&cfg, &r, i);
		carc_sink sink = { ev, 0, MAX_EVENTS };
		digest = 0xcbf29ce484222325ull;
		if (carc_game_init(g, &cfg, &sink) != CARC_OK) {
			printf("%d set-up refused\n", i);
			continue;
		}
		int steps = 0;
		while (!carc_game_over(g) && steps < MAX_STEPS) {
			int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
			mix_int(n);
			mix_moves(moves, n < CARC_MAX_MOVES ? n : CARC_MAX_MOVES);
			sink.n = 0;
			carc_apply(g, &moves[carc_rng_below(&r, (uint32_t)n)], &sink);
			mix_int(sink.n);
			mix_events(ev, sink.n < MAX_EVENTS ? sink.n : MAX_EVENTS);
			steps++;
		}
		for (int s = 0; s < cfg.nseats; s++) {
			mix_int(carc_game_score(g, s));
		}
		printf("%d %016llx %d\n", i, (unsigned long long)digest, steps);
	}
	free(moves);
	free(g);
	return 0;
}

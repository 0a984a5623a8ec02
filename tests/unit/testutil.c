/*
 * testutil.c - helpers shared by the Check unit tests (see testutil.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const uint8_t *fuzz_p;
static size_t fuzz_n;

/* The bytes tu_pick takes from now on (NULL, 0: none). */
static void tu_fuzz_input(const uint8_t *p, size_t n)
{
	fuzz_p = p;
	fuzz_n = p ? n : 0;
}

uint32_t tu_pick(carc_rng *rng, uint32_t n)
{
	if (fuzz_n < 2) return carc_rng_below(rng, n);
	uint32_t v = (uint32_t)fuzz_p[0] | (uint32_t)fuzz_p[1] << 8;
	fuzz_p += 2;
	fuzz_n -= 2;
	return v % n;
}

void tu_fuzz_game(const uint8_t *data, size_t size, void (*play)(int game))
{
	if (size < 4) return;
	uint32_t game = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
	tu_fuzz_input(data + 4, size - 4);
	play((int)(game & 0x7fffffff));
	tu_fuzz_input(NULL, 0);
}

#ifdef TU_FUZZ
void tu_fuzz_failed(const char *file, int line, const char *expr, const char *msg, ...)
{
	fprintf(stderr, "%s:%d: %s", file, line, expr);
	if (msg) {
		va_list ap;
		va_start(ap, msg);
		fputs(": ", stderr);
		vfprintf(stderr, msg, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
	abort();
}

#ifdef FUZZ_STANDALONE
#include "fuzz/standalone.h"
/* Without libFuzzer (gcc): the files named, then random inputs, each a
 * game and its first decisions; the rest of a game goes by its own seed. */
int main(int argc, char **argv)
{
	long files = fuzz_files(argc, argv), runs = fuzz_runs(argc, argv, files ? 0 : 100);
	static uint8_t buf[2048];
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (long r = 0; r < runs; r++) LLVMFuzzerTestOneInput(buf, fuzz_random_input(&x, buf, sizeof buf));
	printf("%s: %ld files and %ld random inputs, every game as its model says\n", argv[0], files, runs);
	return 0;
}
#endif
#endif

void tu_events_reset(tu_events *e)
{
	e->sink.ev = e->ev;
	e->sink.n = 0;
	e->sink.cap = CARC_MAX_EVENTS;
}

int tu_events_count(const tu_events *e, int type)
{
	int n = 0;
	TU_LE(e->sink.n, e->sink.cap);
	for (int i = 0; i < e->sink.n; i++) n += e->ev[i].type == type;
	return n;
}

const carc_event *tu_events_nth(const tu_events *e, int type, int i)
{
	for (int k = 0; k < e->sink.n && k < e->sink.cap; k++)
		if (e->ev[k].type == type && i-- == 0) return &e->ev[k];
	return NULL;
}

int tu_tile(const char *id)
{
	int t = carc_tile_find(id);
	TU_ASSERT_MSG(t >= 0, "tile %s is unknown", id);
	return t;
}

void tu_config_fixed(carc_config *cfg, int nseats, const char *start_id, int start_rot,
                     const char *const *tiles)
{
	carc_config_init(cfg);
	cfg->nseats = (uint8_t)nseats;
	cfg->nstart = 1;
	cfg->start[0] = (carc_start_tile){ (uint16_t)tu_tile(start_id), 0, 0, (uint8_t)start_rot };
	cfg->ntiles = 0;
	for (int i = 0; tiles && tiles[i]; i++) cfg->tiles[cfg->ntiles++] = (uint16_t)tu_tile(tiles[i]);
}

carc_game *tu_game_new(const carc_config *cfg, carc_sink *out)
{
	carc_game *g = malloc(carc_game_size());
	ck_assert_ptr_nonnull(g);
	carc_rc rc = carc_game_init(g, cfg, out);
	TU_ASSERT_MSG(rc == CARC_OK, "carc_game_init: %s", carc_strerror(rc));
	return g;
}

carc_move tu_place(const carc_game *g, int x, int y, int rot)
{
	carc_move m;
	memset(&m, 0, sizeof m);
	m.type = CARC_MV_PLACE_TILE;
	m.tile = (uint16_t)carc_game_drawn(g);
	m.x = (int16_t)x;
	m.y = (int16_t)y;
	m.rot = (uint8_t)rot;
	m.figure = CARC_NONE;
	return m;
}

carc_move tu_deploy(int x, int y, int port)
{
	carc_move m;
	memset(&m, 0, sizeof m);
	m.type = CARC_MV_DEPLOY;
	m.kind = CARC_FIG_FOLLOWER;
	m.x = (int16_t)x;
	m.y = (int16_t)y;
	m.port = (uint8_t)port;
	m.tile = CARC_NONE;
	m.figure = CARC_NONE;
	return m;
}

carc_move tu_pass(void)
{
	carc_move m;
	memset(&m, 0, sizeof m);
	m.type = CARC_MV_PASS;
	m.tile = CARC_NONE;
	m.figure = CARC_NONE;
	return m;
}

void tu_apply_ok(carc_game *g, carc_move m, carc_sink *out)
{
	carc_rc rc = carc_apply(g, &m, out);
	TU_ASSERT_MSG(rc == CARC_OK, "carc_apply %s at (%d,%d) rot %d port %s: %s", carc_mtype_name(m.type),
	              m.x, m.y, m.rot, carc_port_name(m.port), carc_strerror(rc));
}

void tu_board_bounds(const carc_game *g, int *minx, int *maxx, int *miny, int *maxy)
{
	*minx = *maxx = *miny = *maxy = 0;
	for (int i = 0; i < carc_board_count(g); i++) {
		carc_placed_info p;
		carc_board_get(g, i, &p);
		*minx = p.x < *minx ? p.x : *minx;
		*maxx = p.x > *maxx ? p.x : *maxx;
		*miny = p.y < *miny ? p.y : *miny;
		*maxy = p.y > *maxy ? p.y : *maxy;
	}
}

int tu_find_move(const carc_move *moves, int n, const carc_move *m)
{
	for (int i = 0; i < n; i++) {
		const carc_move *c = &moves[i];
		if (c->type != m->type) continue;
		if (c->type == CARC_MV_PLACE_TILE &&
		    (c->x != m->x || c->y != m->y || c->rot != m->rot || c->tile != m->tile))
			continue;
		if (c->type == CARC_MV_DEPLOY && (c->x != m->x || c->y != m->y || c->kind != m->kind || c->port != m->port))
			continue;
		return i;
	}
	return -1;
}

int tu_on_board(const carc_game *g, int seat)
{
	int n = 0;
	for (int i = 0; i < carc_figure_count(g); i++) {
		carc_figure_info f;
		if (carc_figure_get(g, i, &f) && f.seat == seat && f.kind == CARC_FIG_FOLLOWER) n += f.on_board;
	}
	return n;
}

uint32_t tu_all_available(void)
{
	uint32_t m = 0;
	for (int i = 0; i < carc_expansion_count(); i++)
		if (carc_expansion(i)->available) m |= 1u << i;
	return m;
}

uint32_t tu_expansions(const char *const *names, int n)
{
	uint32_t m = 0;
	for (int i = 0; i < n && names[i]; i++) {
		int e = carc_expansion_find(names[i]);
		TU_ASSERT_MSG(e >= 0 && carc_expansion(e)->available, "no expansion %s", names[i]);
		m |= 1u << e;
	}
	return m;
}

void tu_random_rules(carc_config *cfg, carc_rng *rng)
{
	for (int i = 0; i < CARC_R_COUNT; i++) {
		const carc_rule_desc *d = carc_rule(i);
		if (d->type == 0) {
			int n = 0;
			while (d->values[n]) n++;
			cfg->rules[i] = (int32_t)carc_rng_below(rng, (uint32_t)n);
		} else if (d->type == 1) {
			cfg->rules[i] = (int32_t)carc_rng_below(rng, 2);
		}
	}
}

void tu_random_game(carc_config *cfg, carc_rng *rng, int game)
{
	carc_config_init(cfg);
	uint32_t all = tu_all_available(), base = 1u << carc_expansion_find("base");
	cfg->expansions = all;
	if (game % 3) {
		cfg->expansions = base;
		for (int i = 0; i < 32; i++)
			if ((all >> i & 1) && carc_rng_below(rng, 2)) cfg->expansions |= 1u << i;
	}
	cfg->nseats = (uint8_t)(2 + game % 5);
	cfg->seed = carc_rng_next(rng);
	tu_random_rules(cfg, rng);
}

int tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

size_t tu_describe_game(const carc_config *cfg, int game, char *buf, size_t cap)
{
	size_t k = 0;
	k += (size_t)snprintf(buf + k, cap - k, "game %d: sets", game);
	for (int e = 0; e < carc_expansion_count() && k < cap; e++)
		if (cfg->expansions >> e & 1) k += (size_t)snprintf(buf + k, cap - k, " %s", carc_expansion(e)->name);
	if (k < cap)
		k += (size_t)snprintf(buf + k, cap - k, "; %d seats; seed %#llx; rules", cfg->nseats,
		                      (unsigned long long)cfg->seed);
	for (int i = 0; i < CARC_R_COUNT && k < cap; i++) {
		const carc_rule_desc *d = carc_rule(i);
		if (cfg->rules[i] == d->def) continue;
		if (d->type == 0) k += (size_t)snprintf(buf + k, cap - k, " %s=%s", d->key, d->values[cfg->rules[i]]);
		else k += (size_t)snprintf(buf + k, cap - k, " %s=%d", d->key, (int)cfg->rules[i]);
	}
	return k < cap ? k : cap - 1;
}

void tu_random_components(carc_config *cfg, carc_rng *rng)
{
	uint32_t comps = 0;
	for (int i = 0; i < carc_expansion_count(); i++)
		if (carc_expansion(i)->available) comps |= carc_expansion(i)->components;
	cfg->components_given = 1;
	cfg->components = comps & (uint32_t)carc_rng_next(rng);
}

void tu_crowded_supply(carc_config *cfg, carc_rng *rng)
{
	int pool[8], np = 0;
	for (int tries = 0; np < 8 && tries < 10000; tries++) {
		int t = (int)carc_rng_below(rng, (uint32_t)carc_tile_count()), river = 0;
		if (!carc_tile_in_expansions(t, cfg->expansions) || !carc_tile_drawable(t)) continue;
		for (int d = 0; d < 4; d++) river |= !strcmp(carc_tile_edge(t, 0, d), "river");
		if (!river) pool[np++] = t;
	}
	TU_ASSERT_MSG(np > 0, "no land tile in the expansions %#x", cfg->expansions);
	int n = 150 + (int)carc_rng_below(rng, 150);
	for (int k = 0; k < n; k++) cfg->tiles[k] = (uint16_t)pool[carc_rng_below(rng, (uint32_t)np)];
	cfg->ntiles = (uint16_t)n;
}

int tu_play_batch(int batch, int per, void (*play)(int game), const char *one_env)
{
	const char *one = getenv(one_env);
	if (one) {
		if (batch == 0) play(atoi(one));
		return 0;
	}
	for (int game = batch * per; game < (batch + 1) * per; game++) play(game);
	return 1;
}

int tu_run_batches2(const char *name, const TTest *test, int batches, const TTest *crowded, int crowded_batches,
                    int timeout)
{
	Suite *s = suite_create(name);
	const char *names[2] = { "games", "crowded" };
	const TTest *tests[2] = { test, crowded };
	int counts[2] = { batches, crowded_batches };
	for (int k = 0; k < 2 && tests[k]; k++) {
		TCase *tc = tcase_create(names[k]);
		tcase_set_timeout(tc, timeout);
		tcase_add_loop_test(tc, tests[k], 0, counts[k]);
		suite_add_tcase(s, tc);
	}
	return tu_run(s);
}

int tu_run_batches(const char *name, const TTest *test, int batches, int timeout)
{
	return tu_run_batches2(name, test, batches, NULL, 0, timeout);
}

/*
 * games.c - the game registry: each game's engine state, seats and
 * tokens, the seed commitment, its moves (history is a
 * replay, so events are never stored), and who watches it.
 *
 * Games sit in an array sorted by id.  Ids only grow, so a new game is an
 * append, a lookup a binary search, and `games` pages by id for free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "daemon.h"

void games_random(void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t k = getrandom(p, n, 0);
		if (k < 0) {
			if (errno == EINTR) continue;
			/* tokens without randomness would be guessable: refuse to run */
			log_error("getrandom: %s", strerror(errno));
			abort();
		}
		p += k;
		n -= (size_t)k;
	}
}

double games_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void games_init(games *r, size_t max)
{
	memset(r, 0, sizeof *r);
	r->max = max;
	r->next_id = 1;
}

static size_t game_bytes(const games_game *gm)
{
	return sizeof *gm + carc_game_size() + gm->movecap * sizeof(games_move) +
	       (size_t)gm->subcap * (sizeof(void *) + sizeof(uint8_t));
}

static void game_free(games *r, games_game *gm)
{
	r->bytes -= game_bytes(gm);
	r->freed_total++;
	for (int i = 0; i < gm->nseats; i++) free(gm->names[i]);
	free(gm->g);
	free(gm->moves);
	free(gm->subs);
	free(gm->subwants);
	free(gm);
}

void games_free_all(games *r)
{
	for (size_t i = 0; i < r->n; i++) game_free(r, r->v[i]);
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}

size_t games_index_after(const games *r, int64_t after)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->v[mid]->id <= after) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

games_game *games_find(games *r, int64_t id)
{
	size_t i = games_index_after(r, id - 1);
	return i < r->n && r->v[i]->id == id ? r->v[i] : NULL;
}

/* A game closed, evicted or expired: its journal file goes with it. */
static void drop(games *r, games_game *gm)
{
	journal_forget(gm);
	game_free(r, gm);
}

static void remove_at(games *r, size_t i)
{
	drop(r, r->v[i]);
	memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof r->v[0]);
	r->n--;
}

void games_close(games *r, games_game *gm)
{
	size_t i = games_index_after(r, gm->id - 1);
	if (i < r->n && r->v[i] == gm) remove_at(r, i);
}

size_t games_sweep(games *r, int (*doomed)(void *ctx, games_game *gm), void *ctx)
{
	size_t kept = 0, n = r->n;
	for (size_t i = 0; i < n; i++) {
		games_game *gm = r->v[i];
		if (!doomed(ctx, gm)) {
			r->v[kept++] = gm;
			continue;
		}
		drop(r, gm);
	}
	r->n = kept;
	return n - kept;
}

/* A full registry makes room by dropping its oldest finished game nobody
 * watches: arenas play game after game, and a finished game only matters
 * to whoever still reads its history. */
static long evictable(const games *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (carc_game_over(r->v[i]->g) && r->v[i]->nsubs == 0) return (long)i;
	return -1;
}

/* A game is dropped only for one that is made: a new_game the engine
 * refuses leaves the registry as it was. */
games_game *games_create(games *r, const carc_config *cfg, const char *const *names, int auth,
                         carc_sink *out, carc_rc *rc, int *full)
{
	*full = 0;
	*rc = CARC_OK;
	if (r->next_id > GAMES_MAX_ID) {
		*full = 2;
		return NULL;
	}
	long drop = r->n >= r->max ? evictable(r) : -1;
	if (r->n >= r->max && drop < 0) {
		*full = 1;
		return NULL;
	}
	games_game *gm = proto_xcalloc(1, sizeof *gm);
	gm->g = proto_xmalloc(carc_game_size());
	*rc = carc_game_init(gm->g, cfg, out);
	if (*rc != CARC_OK) {
		free(gm->g);
		free(gm);
		return NULL;
	}
	if (drop >= 0) {
		log_info("game %lld evicted: the registry is full", (long long)r->v[drop]->id);
		remove_at(r, (size_t)drop);
		r->evicted_total++;
	}
	gm->id = r->next_id++;
	gm->nseats = cfg->nseats;
	gm->auth = auth;
	gm->seed = cfg->seed;
	gm->created = gm->last = games_now();
	for (int i = 0; i < gm->nseats; i++) gm->names[i] = proto_xstrdup(names[i]);
	games_random(gm->token, sizeof gm->token);
	games_random(gm->admin, sizeof gm->admin);
	uint8_t salt[16];
	char hex[33];
	games_random(salt, sizeof salt);
	proto_hex(salt, sizeof salt, hex);
	games_set_salt(gm, hex);
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->v = proto_xrealloc(r->v, r->cap * sizeof r->v[0]);
	}
	r->v[r->n++] = gm;
	r->created_total++;
	r->bytes += game_bytes(gm);
	journal_created(r, gm);
	return gm;
}

void games_set_salt(games_game *gm, const char *salt)
{
	uint8_t digest[32];
	char text[64];
	snprintf(gm->salt, sizeof gm->salt, "%s", salt);
	int n = snprintf(text, sizeof text, "%llu:%s", (unsigned long long)gm->seed, gm->salt);
	proto_sha256(text, (size_t)n, digest);
	proto_hex(digest, sizeof digest, gm->seed_sha256);
}

void games_record(games *r, games_game *gm, const carc_move *m)
{
	if (gm->seq == gm->movecap) {
		r->bytes -= game_bytes(gm);
		/* a base game takes ~145 moves: two steps of growth */
		gm->movecap = gm->movecap ? 2 * gm->movecap : 96;
		gm->moves = proto_xrealloc(gm->moves, gm->movecap * sizeof gm->moves[0]);
		r->bytes += game_bytes(gm);
	}
	gm->moves[gm->seq++] = *m;
	gm->last = games_now();
	journal_moved(gm, m);
}

void games_move_get(const games_game *gm, uint32_t i, carc_move *m) { *m = gm->moves[i]; }

/* ---- subscriptions ---------------------------------------------------------- */

/* Forgets the games of a connection's list that were closed since it
 * subscribed (their ids are never given again). */
static void forget_closed(games *r, games_subs *cs)
{
	int k = 0;
	for (int i = 0; i < cs->n; i++)
		if (games_find(r, cs->ids[i])) cs->ids[k++] = cs->ids[i];
	cs->n = k;
}

int games_subscribe(games *r, games_game *gm, void *conn, games_subs *cs, unsigned wants)
{
	for (int i = 0; i < gm->nsubs; i++)
		if (gm->subs[i] == conn) { /* again: what it asks for now */
			gm->subwants[i] = (uint8_t)wants;
			return 0;
		}
	if (cs->n >= CARCD_MAX_SUBSCRIPTIONS) forget_closed(r, cs);
	if (cs->n >= CARCD_MAX_SUBSCRIPTIONS) return -1;
	if (gm->nsubs == gm->subcap) { /* the game's bytes count its list of watchers */
		r->bytes -= game_bytes(gm);
		gm->subcap = gm->subcap ? 2 * gm->subcap : 4;
		gm->subs = proto_xrealloc(gm->subs, (size_t)gm->subcap * sizeof gm->subs[0]);
		gm->subwants = proto_xrealloc(gm->subwants, (size_t)gm->subcap * sizeof gm->subwants[0]);
		r->bytes += game_bytes(gm);
	}
	gm->subwants[gm->nsubs] = (uint8_t)wants;
	gm->subs[gm->nsubs++] = conn;
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 4;
		cs->ids = proto_xrealloc(cs->ids, (size_t)cs->cap * sizeof cs->ids[0]);
	}
	cs->ids[cs->n++] = gm->id;
	return 0;
}

void games_unsubscribe(games_game *gm, const void *conn, games_subs *cs)
{
	for (int i = 0; i < gm->nsubs; i++)
		if (gm->subs[i] == conn) {
			/* keep the order: notifications go out in subscription order */
			memmove(&gm->subs[i], &gm->subs[i + 1], (size_t)(gm->nsubs - i - 1) * sizeof gm->subs[0]);
			memmove(&gm->subwants[i], &gm->subwants[i + 1], (size_t)(gm->nsubs - i - 1) * sizeof gm->subwants[0]);
			gm->nsubs--;
			break;
		}
	for (int i = 0; cs && i < cs->n; i++)
		if (cs->ids[i] == gm->id) {
			cs->ids[i] = cs->ids[--cs->n];
			break;
		}
}

void games_unsubscribe_all(games *r, const void *conn, games_subs *cs)
{
	for (int i = 0; i < cs->n; i++) {
		games_game *gm = games_find(r, cs->ids[i]);
		if (gm) games_unsubscribe(gm, conn, NULL);
	}
	free(cs->ids);
	cs->ids = NULL;
	cs->n = cs->cap = 0;
}

/* ---- tokens -------------------------------------------------------------------- */

static int unhex(const char *hex, uint8_t out[GAMES_TOKEN])
{
	if (strlen(hex) != 2 * GAMES_TOKEN) return 0;
	for (int i = 0; i < 2 * GAMES_TOKEN; i++) {
		int v = proto_hex_digit(hex[i]);
		if (v < 0) return 0;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | v : v << 4);
	}
	return 1;
}

/* No early exit: the time taken says nothing about how much matched. */
static int same(const uint8_t *a, const uint8_t *b)
{
	uint8_t d = 0;
	for (int i = 0; i < GAMES_TOKEN; i++) d |= a[i] ^ b[i];
	return d == 0;
}

int games_token_seat(const games_game *gm, const char *hex)
{
	uint8_t t[GAMES_TOKEN];
	if (!unhex(hex, t)) return -1;
	int seat = -1;
	for (int i = 0; i < gm->nseats; i++)
		if (same(t, gm->token[i])) seat = i;
	return seat;
}

int games_token_admin(const games_game *gm, const char *hex)
{
	uint8_t t[GAMES_TOKEN];
	return unhex(hex, t) && same(t, gm->admin);
}

/*
 * mc_bot.c - a Monte-Carlo bot for carcd, on libcarc.
 *
 * Plays one seat of a carcd game, every expansion carcd plays, as
 * arena.py starts a bot:
 *
 *   CARCD_TOKEN=3f9c... mc_bot --address unix:/run/carcd/carcd.sock --game 7 --seat 1
 *
 * At each of its decisions it reads the game's `history` and sets the game
 * up again in libcarc as engine/README.md ("Bots that search") says: the
 * tiles seen so far in the order they came, then those not seen yet in a
 * random order, so that it knows no more than a player at the table.  It
 * replays the moves, checks that it reached the position carcd shows (the
 * same decision and seat, and the very moves carcd lists), and then tries each legal
 * move in random playouts to the end of the game, each on a future of its
 * own, and sends the move whose playouts ended best for it on average: its
 * final score less the best of the others'.  --playouts sets how many
 * playouts a decision gets in all (1000 by default).  They are shared out
 * by sequential halving: in rounds, each dropping the worse half of the
 * moves, so that the likely best moves get most of them; --flat gives
 * every move the same number instead.
 * When its own copy of the game does not reach carcd's position (a game
 * made with a `tiles` list, which history keeps secret until the end, or a
 * tile put back under the supply that the events cannot tell apart from
 * another of its kind) it plays a random legal move instead, and says so
 * with --verbose.
 *
 * It talks MessagePack-RPC, waits for its turns through `subscribe`
 * notifications (pinging the daemon every 60 s while it waits) and passes
 * `seq` with each move, as contrib/bots/random_bot.py does.  Exit status: 0
 * when the game is over (it prints {game, moves_played, scores, final} as
 * one JSON line), 1 when carcd refused a request (the error on stderr), 2
 * on bad usage, 3 when carcd cannot be reached, the connection is lost or
 * nothing happens for --timeout seconds.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "carc.h"
#include "proto.h"

#define DEFAULT_ADDRESS "tcp:127.0.0.1:7878"
#define MAX_MESSAGE (256u << 20) /* bytes of one reply: the history of any game fits */
#define KEEPALIVE 60.0           /* seconds quiet before a ping while waiting */
#define FUTURES 8                /* futures a decision's playouts are spread over */
#define PLAYED_MAX (16 * CARC_MAX_TILES) /* moves of a game it replays (far more than any game makes) */

static int verbose;
/* what a decision's requests and replies are made of; a static, so that
 * nothing is lost to a leak checker whichever way the bot ends */
static proto_arena arena;

static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("mc_bot: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(status);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the connection ----------------------------------------------------- */

typedef struct client {
	int fd;
	uint8_t *buf;        /* bytes read and not yet taken */
	size_t have, cap;
	uint32_t msgid;
	int notified;        /* a notification came since the flag was cleared */
	double timeout;      /* seconds a wait may last with nothing happening */
} client;

/* `tcp:HOST:PORT` (HOST may be [v6]), `unix:PATH`, `HOST:PORT` or a path.
 * Not `tls:`: the bot plays beside carcd, not across the internet, so it
 * speaks no TLS, and says so rather than resolve a host named "tls". */
static int connect_to(const char *address)
{
	const char *rest = address;
	if (!strncmp(rest, "tls:", 4))
		die(2, "not an address of mc_bot's: %s (it speaks no TLS; want tcp:HOST:PORT or unix:PATH)", address);
	if (!strncmp(rest, "unix:", 5) || (strncmp(rest, "tcp:", 4) && strchr(rest, '/'))) {
		const char *path = strncmp(rest, "unix:", 5) ? rest : rest + 5;
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		if (strlen(path) >= sizeof sa.sun_path) die(2, "socket path too long: %s", path);
		memcpy(sa.sun_path, path, strlen(path) + 1);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
			die(3, "cannot connect to %s: %s", address, strerror(errno));
		return fd;
	}
	if (!strncmp(rest, "tcp:", 4)) rest += 4;
	const char *colon = strrchr(rest, ':');
	if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) || atol(colon + 1) > 65535)
		die(2, "not an address: %s (want tcp:HOST:PORT or unix:PATH)", address);
	char host[256];
	size_t hn = (size_t)(colon - rest);
	if (hn >= sizeof host) die(2, "host name too long: %s", address);
	memcpy(host, rest, hn);
	host[hn] = 0;
	char *h = host;
	if (h[0] == '[' && hn > 1 && h[hn - 1] == ']') {
		h[hn - 1] = 0;
		h++;
	}
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int rc = getaddrinfo(*h ? h : "127.0.0.1", colon + 1, &hints, &res);
	if (rc) die(3, "cannot resolve %s: %s", address, gai_strerror(rc));
	int fd = -1;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0) die(3, "cannot connect to %s: %s", address, strerror(errno));
	return fd;
}

static void send_request(client *c, proto_arena *a, const char *method, proto_val *params)
{
	proto_val *msg = pv_array(a);
	pv_push(msg, pv_int(a, 0));
	pv_push(msg, pv_int(a, ++c->msgid));
	pv_push(msg, pv_str(a, method));
	pv_push(msg, params);
	proto_buf out = { 0 };
	proto_mp_encode(msg, &out);
	for (size_t off = 0; off < out.len;) {
		ssize_t w = write(c->fd, out.p + off, out.len - off);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) die(3, "connection lost: %s", w < 0 ? strerror(errno) : "nothing written");
		off += (size_t)w;
	}
	proto_buf_free(&out);
}

/* The next whole message, waiting up to `wait` seconds for it (NULL when
 * none came by then). */
static const proto_val *next_message(client *c, proto_arena *a, double wait)
{
	double until = now() + wait;
	for (;;) {
		size_t len = 0;
		proto_guard_rc g = c->have ? proto_guard_check(c->buf, c->have, MAX_MESSAGE, &len) : PROTO_GUARD_MORE;
		if (g == PROTO_GUARD_DONE) {
			const char *why = "?";
			const proto_val *v = proto_mp_value(a, c->buf, len, &why);
			if (!v) die(3, "carcd sent what the protocol does not: %s", why);
			memmove(c->buf, c->buf + len, c->have - len);
			c->have -= len;
			return v;
		}
		if (g != PROTO_GUARD_MORE) die(3, "carcd sent what is no MessagePack message within %u bytes", MAX_MESSAGE);
		double left = until - now();
		if (left <= 0) return NULL;
		struct pollfd p = { c->fd, POLLIN, 0 };
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR) die(3, "poll: %s", strerror(errno));
		if (r <= 0) continue;
		if (c->cap - c->have < 65536) {
			c->cap = c->cap ? 2 * c->cap : 1u << 20;
			c->buf = proto_xrealloc(c->buf, c->cap);
		}
		ssize_t n = read(c->fd, c->buf + c->have, c->cap - c->have);
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0) die(3, "connection lost: %s", n < 0 ? strerror(errno) : "carcd closed it");
		c->have += (size_t)n;
	}
}

static int is_notification(const proto_val *m)
{
	return m->type == PV_ARRAY && m->n == 3 && m->u.c.first->type == PV_INT && m->u.c.first->u.i == 2;
}

/* A request and its result.  An error reply ends the bot (status 1),
 * unless its code is one of `tolerated` (space-separated): then NULL, and
 * *code gets it. */
static const proto_val *call(client *c, proto_arena *a, const char *method, proto_val *params, const char *tolerated,
                             const char **code)
{
	send_request(c, a, method, params);
	for (;;) {
		const proto_val *m = next_message(c, a, c->timeout);
		if (!m) die(3, "no reply to %s in %.0f s", method, c->timeout);
		if (is_notification(m)) {
			c->notified = 1;
			continue;
		}
		const proto_val *kind = m->type == PV_ARRAY && m->n == 4 ? m->u.c.first : NULL;
		int64_t id;
		if (!kind || !pv_to_int(kind, &id) || id != 1 || !pv_to_int(kind->next, &id) || id != c->msgid) continue;
		const proto_val *err = kind->next->next, *result = err->next;
		if (err->type == PV_NIL) return result;
		const proto_val *cv = err->type == PV_MAP ? pv_get(err, "code") : NULL, *mv = err->type == PV_MAP ? pv_get(err, "message") : NULL;
		const char *cs = cv && cv->type == PV_STR ? cv->u.s : "?";
		if (tolerated) {
			size_t n = strlen(cs);
			for (const char *t = strstr(tolerated, cs); t; t = strstr(t + 1, cs))
				if ((t == tolerated || t[-1] == ' ') && (t[n] == ' ' || !t[n])) {
					*code = cs;
					return NULL;
				}
		}
		die(1, "%s: %s: %s", method, cs, mv && mv->type == PV_STR ? mv->u.s : "");
	}
}

/* Waits until a notification comes, pinging the daemon when it has been
 * quiet KEEPALIVE seconds; gives up after c->timeout with nothing. */
static void wait_for_news(client *c, proto_arena *a)
{
	double start = now();
	while (!c->notified) {
		double left = c->timeout - (now() - start);
		if (left <= 0) die(3, "nothing happened in the game for %.0f s", c->timeout);
		const proto_val *m = next_message(c, a, left < KEEPALIVE ? left : KEEPALIVE);
		if (!m) {
			call(c, a, "ping", pv_map(a), NULL, NULL);
			continue;
		}
		if (is_notification(m)) c->notified = 1;
	}
}

/* ---- the game as a player sees it --------------------------------------- */

static int64_t int_of(const proto_val *v, const char *key)
{
	int64_t i;
	if (!pv_to_int(pv_get(v, key), &i)) die(3, "carcd's reply has no integer `%s`", key);
	return i;
}

static const char *str_of(const proto_val *v, const char *key)
{
	const proto_val *s = pv_get(v, key);
	return s && s->type == PV_STR ? s->u.s : "";
}

/* What the events of a game told every player: the tiles that left the
 * supply, in order (-1: one hidden under a hill), and the sheep drawn. */
typedef struct seen {
	int nslot, nbag;
	int16_t slot[CARC_MAX_TILES];
	uint8_t bag[CARC_BAG_DRAWS];
} seen;

/* A tile drawn again after `unplaceable_tile` `reshuffle` put it back is
 * listed once (engine/README.md); its tile_drawn looks like any other, so
 * it is taken for the one put back only when no other of its kind can be
 * left.  A wrong guess shows as a position that does not match. */
static int read_events(const proto_val *events, const carc_game *fresh, seen *s)
{
	int put_back[CARC_MAX_TILES] = { 0 }, drawn[CARC_MAX_TILES] = { 0 };
	memset(s, 0, sizeof *s);
	for (const proto_val *e = events ? events->u.c.first : NULL; e; e = e->next) {
		const char *type = str_of(e, "type");
		if (!strcmp(type, "tile_drawn")) {
			int t = carc_tile_find(str_of(e, "tile"));
			if (t < 0 || s->nslot >= CARC_MAX_TILES) return -1;
			if (put_back[t] && drawn[t] >= carc_game_dealt(fresh, t)) {
				put_back[t]--;
				continue;
			}
			drawn[t]++;
			s->slot[s->nslot++] = (int16_t)t;
		} else if (!strcmp(type, "tile_hidden")) {
			if (s->nslot >= CARC_MAX_TILES) return -1;
			s->slot[s->nslot++] = -1;
		} else if (!strcmp(type, "tile_discarded") && !strcmp(str_of(e, "why"), "reshuffled")) {
			int t = carc_tile_find(str_of(e, "tile"));
			if (t >= 0) put_back[t]++;
		} else if (!strcmp(type, "sheep_drawn") && s->nbag < CARC_BAG_DRAWS) {
			const proto_val *k = pv_get(e, "token");
			int64_t n = 0;
			s->bag[s->nbag++] = (uint8_t)(k && k->type == PV_STR ? CARC_WOLF : pv_to_int(k, &n) ? n : 0);
		}
	}
	return 0;
}

/* The game set up again with a future of its own (engine/README.md, "Bots
 * that search"), the moves replayed; 0, or -1 when it does not replay.
 * The wire's moves are read once a decision: with *nplayed < 0 they are
 * read from `moves` into played[] as they are applied, after that
 * played[] is applied as it is. */
static int rebuild(carc_game *g, const carc_config *setup, const carc_game *fresh, const seen *s, const proto_val *moves,
                   carc_move *played, int *nplayed, carc_rng *r, proto_arena *a)
{
	static carc_config cfg;
	cfg = *setup;
	cfg.seed = carc_rng_next(r);
	int unseen[CARC_MAX_TILES] = { 0 };
	for (int t = 0; t < carc_tile_count(); t++) unseen[t] = carc_game_dealt(fresh, t);
	for (int i = 0; i < s->nslot; i++)
		if (s->slot[i] >= 0 && --unseen[s->slot[i]] < 0) return -1;
	uint16_t pool[CARC_MAX_TILES];
	int npool = 0;
	for (int t = 0; t < carc_tile_count(); t++)
		for (int k = 0; k < unseen[t] && npool < CARC_MAX_TILES; k++) pool[npool++] = (uint16_t)t;
	for (int i = npool - 1; i > 0; i--) {
		int j = (int)carc_rng_below(r, (uint32_t)i + 1);
		uint16_t x = pool[i];
		pool[i] = pool[j];
		pool[j] = x;
	}
	cfg.ntiles = 0;
	for (int i = 0; i < s->nslot; i++) {
		if (s->slot[i] < 0 && !npool) return -1;
		cfg.tiles[cfg.ntiles++] = s->slot[i] >= 0 ? (uint16_t)s->slot[i] : pool[--npool];
	}
	for (int rank = 0; rank <= 3; rank++) /* river tiles first, a fork first, lakes last, then the land */
		for (int i = 0; i < npool; i++)
			if (carc_tile_deal_rank(pool[i]) == rank && cfg.ntiles < CARC_MAX_TILES) cfg.tiles[cfg.ntiles++] = pool[i];
	cfg.nbag = (uint8_t)s->nbag;
	memcpy(cfg.bag, s->bag, (size_t)s->nbag);
	if (carc_game_init(g, &cfg, NULL) != CARC_OK) return -1;
	if (*nplayed >= 0) {
		for (int i = 0; i < *nplayed; i++)
			if (carc_apply(g, &played[i], NULL) != CARC_OK) return -1;
		return 0;
	}
	int n = 0;
	for (const proto_val *m = moves ? moves->u.c.first : NULL; m; m = m->next, n++) {
		const char *why;
		const proto_val *move = pv_get(m, "move");
		if (n == PLAYED_MAX || !move || proto_move_parse(a, g, move, &played[n], &why) != PROTO_OK ||
		    carc_apply(g, &played[n], NULL) != CARC_OK)
			return -1;
	}
	*nplayed = n;
	return 0;
}

/* ---- the search --------------------------------------------------------- */

/* How a finished game went for `seat`: its score less the best other's. */
static int outcome(const carc_game *g, int seat)
{
	int best = 0, any = 0;
	for (int s = 0; s < carc_game_nseats(g); s++)
		if (s != seat && (!any++ || carc_game_score(g, s) > best)) best = carc_game_score(g, s);
	return carc_game_score(g, seat) - best;
}

/* What a decision's search did, for --verbose. */
typedef struct search {
	int moves;     /* moves it chose among */
	int rounds;    /* rounds of sharing out playouts */
	long playouts; /* playouts played */
} search;

/* Of the moves listed in futures[0] (every future lists the same), the one
 * whose random playouts end best for `seat` on average.  Sequential
 * halving (Karnin, Koren and Somekh, ICML 2013) shares the budget out in
 * ceil(log2 n) rounds: each round shares an equal part of what is left of
 * it among the moves still in, then keeps the better half by their mean
 * so far.
 * Most moves of a placement are plainly bad, so the playouts go to the few
 * that are not, where flat sharing (`flat`: one round, every move the
 * same) spends them evenly.  A move gets at least one playout a round, so
 * a budget below 2 n + ceil(log2 n) may be overspent, up to that.  Ties go
 * to the move listed first.  *done: what it did. */
static int best_move(carc_game **futures, int nfutures, const carc_move *moves, int n, int seat, long playouts,
                     int flat, carc_rng *r, carc_game *work, carc_move *list, search *done)
{
	static long long sum[CARC_MAX_MOVES]; /* up to --playouts times a margin: past 32 bits */
	static long count[CARC_MAX_MOVES];
	static int in[CARC_MAX_MOVES];
	*done = (search){ n, 0, 0 };
	if (n == 1) return 0;
	int rounds = 1;
	if (!flat)
		while (1 << rounds < n) rounds++;
	for (int i = 0; i < n; i++) {
		sum[i] = count[i] = 0;
		in[i] = i;
	}
	for (int left = n, round = 0; round < rounds && left > 1; round++) {
		long share = (playouts - done->playouts) / (rounds - round), each = share / left > 0 ? share / left : 1;
		for (int j = 0; j < left; j++) {
			int i = in[j];
			for (long k = 0; k < each; k++, count[i]++) {
				carc_game_clone(work, futures[(i + count[i]) % nfutures]);
				if (carc_apply(work, &moves[i], NULL) != CARC_OK) die(3, "libcarc refused a move it listed");
				while (!carc_game_over(work)) {
					int m = carc_legal_moves(work, list, CARC_MAX_MOVES);
					carc_apply(work, &list[carc_rng_below(r, (uint32_t)m)], NULL);
				}
				sum[i] += outcome(work, seat);
			}
		}
		done->rounds++;
		done->playouts += each * left;
		for (int j = 1; j < left; j++) { /* best mean first, ties in list order */
			int i = in[j], k = j;
			double mean = (double)sum[i] / (double)count[i];
			for (; k > 0; k--) {
				double other = (double)sum[in[k - 1]] / (double)count[in[k - 1]];
				if (mean < other || (mean == other && i > in[k - 1])) break;
				in[k] = in[k - 1];
			}
			in[k] = i;
		}
		left = (left + 1) / 2; /* --flat has played its one round */
	}
	return in[0];
}

/* ---- playing ------------------------------------------------------------ */

typedef struct bot {
	client c;
	int64_t game;
	int seat;               /* -1: whichever seat its token holds */
	unsigned not_mine;      /* bit s: the token was refused for seat s (seat -1) */
	const char *token;
	long playouts;
	int flat;               /* --flat: every move the same playouts */
	uint64_t rng_seed;      /* its choices at a decision draw from this and the game's seq alone */
	long moves_played;
	search last;            /* what the last decision's search did */
	carc_game *futures[FUTURES], *work, *fresh;
	carc_move *list, *local, *played;
} bot;

/* Two values are the same: the same MessagePack bytes. */
static int same_value(const proto_val *x, const proto_val *y)
{
	proto_buf bx = { 0 }, by = { 0 };
	proto_mp_encode(x, &bx);
	proto_mp_encode(y, &by);
	int same = bx.len == by.len && !memcmp(bx.p, by.p, bx.len);
	proto_buf_free(&bx);
	proto_buf_free(&by);
	return same;
}

/* The move to send at this decision (`due`: legal_moves' reply, `seat`
 * its decider), as a value to put in apply_move. */
static proto_val *choose(bot *b, proto_arena *a, const proto_val *due, int seat)
{
	const proto_val *wire = pv_get(due, "moves");
	int nwire = wire && wire->type == PV_ARRAY ? (int)wire->n : 0;
	if (!nwire) die(3, "carcd lists no move for the seat due");
	/* the same choice at the same position, however often it was looked
	 * at before (a move that came first, a seat that was not its own) */
	carc_rng rng;
	carc_rng_seed(&rng, b->rng_seed ^ (uint64_t)int_of(due, "seq") * 0x9e3779b97f4a7c15ull);
	proto_val *params = pv_map(a);
	pv_set_int(a, params, "game", b->game);
	const proto_val *h = call(&b->c, a, "history", params, NULL, NULL);
	const proto_val *setup = pv_get(h, "setup");
	carc_config cfg;
	const char *names[CARC_MAX_SEATS], *why = "no setup";
	seen s;
	int n = 0, ok = setup && proto_setup_parse(a, setup, &cfg, names, &why) == PROTO_OK;
	if (ok) {
		cfg.seed = 1;
		ok = carc_game_init(b->fresh, &cfg, NULL) == CARC_OK && read_events(pv_get(h, "events"), b->fresh, &s) == 0;
	}
	int nf = 0, nplayed = -1;
	for (; ok && nf < FUTURES; nf++)
		if (rebuild(b->futures[nf], &cfg, b->fresh, &s, pv_get(h, "moves"), b->played, &nplayed, &rng, a)) ok = 0;
	if (ok) { /* the same decision, and the very moves carcd lists, in its order */
		const carc_game *g = b->futures[0];
		n = carc_legal_moves(g, b->local, CARC_MAX_MOVES);
		ok = !strcmp(carc_phase_name(carc_game_phase(g)), str_of(due, "phase")) && carc_game_seat(g) == seat &&
		     n == nwire && same_value(proto_moves(a, g, b->local, n, 0), wire);
	}
	if (!ok) {
		if (verbose) fprintf(stderr, "mc_bot: game %lld: my copy of the game does not reach carcd's position; a random move\n",
		                     (long long)b->game);
		b->last = (search){ nwire, 0, 0 };
		int i = (int)carc_rng_below(&rng, (uint32_t)nwire);
		const proto_val *m = wire->u.c.first;
		while (i--) m = m->next;
		return (proto_val *)m; /* it moves to apply_move's params; nothing reads the list again */
	}
	int i = best_move(b->futures, nf, b->local, n, seat, b->playouts, b->flat, &rng, b->work, b->list, &b->last);
	return proto_move(a, b->futures[0], &b->local[i]);
}

static void play(bot *b, proto_arena *a)
{
	proto_val *p = pv_map(a);
	pv_set_int(a, p, "game", b->game);
	pv_set_bool(a, p, "decision", 1);
	call(&b->c, a, "subscribe", p, NULL, NULL);
	for (;;) {
		proto_arena_reset(a);
		b->c.notified = 0;
		p = pv_map(a);
		pv_set_int(a, p, "game", b->game);
		const proto_val *due = call(&b->c, a, "legal_moves", p, NULL, NULL);
		if (!strcmp(str_of(due, "phase"), "over")) return;
		const proto_val *sv = pv_get(due, "seat");
		int64_t seat;
		if (!pv_to_int(sv, &seat) || seat < 0 || seat >= CARC_MAX_SEATS || (b->seat >= 0 && seat != b->seat) ||
		    (b->not_mine >> seat & 1)) {
			wait_for_news(&b->c, a);
			continue;
		}
		proto_val *move = choose(b, a, due, (int)seat);
		p = pv_map(a);
		pv_set_int(a, p, "game", b->game);
		if (b->token) pv_set_str(a, p, "token", b->token);
		pv_set(p, "move", move);
		pv_set_int(a, p, "seq", int_of(due, "seq"));
		const char *code = "";
		if (!call(&b->c, a, "apply_move", p, "conflict game_over not_your_turn", &code)) {
			if (!strcmp(code, "not_your_turn")) {
				if (b->seat >= 0) die(1, "apply_move: not_your_turn: the token is not seat %d's", b->seat);
				b->not_mine |= 1u << seat;
				if (b->not_mine == (1u << CARC_MAX_SEATS) - 1) die(1, "apply_move: not_your_turn: the token is no seat's");
				wait_for_news(&b->c, a); /* not ours: wait for the seat due to move */
			}
			continue; /* the game moved on meanwhile: look again */
		}
		if (b->seat < 0) b->seat = (int)seat; /* now it is known */
		b->moves_played++;
		if (verbose)
			fprintf(stderr, "mc_bot: game %lld seq %lld: seat %lld moved (%d moves, %ld playouts in %d rounds)\n",
			        (long long)b->game, (long long)int_of(due, "seq"), (long long)seat, b->last.moves,
			        b->last.playouts, b->last.rounds);
	}
}

static void usage(void)
{
	fputs("usage: mc_bot --game G [--seat S] [--address A] [--token T] [--playouts N] [--flat] [--rng N]\n"
	      "              [--timeout S] [--verbose]\n"
	      "Plays one seat of a carcd game with Monte-Carlo playouts on libcarc.  The token comes from\n"
	      "$CARCD_TOKEN by default (--token puts it where every user of the machine can read it); the\n"
	      "address from $CARCD_ADDRESS, else " DEFAULT_ADDRESS ".  --playouts: random playouts a\n"
	      "decision gets, shared among its moves (default 1000), most to the best by sequential\n"
	      "halving, or the same to each with --flat; --timeout: seconds with nothing happening\n"
	      "before it gives up (default 600).\n",
	      stderr);
}

static long number(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		usage();
		die(2, "%s is an integer from %ld to %ld, not '%s'", opt, lo, hi, s);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "address", required_argument, NULL, 'a' }, { "game", required_argument, NULL, 'g' },
		{ "seat", required_argument, NULL, 's' },    { "token", required_argument, NULL, 't' },
		{ "playouts", required_argument, NULL, 'p' }, { "rng", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 'T' }, { "verbose", no_argument, NULL, 'v' },
		{ "flat", no_argument, NULL, 'f' },          { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static bot b;
	const char *address = getenv("CARCD_ADDRESS");
	b.game = -1;
	b.seat = -1;
	b.token = getenv("CARCD_TOKEN");
	b.playouts = 1000;
	b.c.timeout = 600;
	b.rng_seed = (uint64_t)time(NULL) * 6364136223846793005ull ^ (uint64_t)getpid();
	int o;
	while ((o = getopt_long(argc, argv, "a:vh", opts, NULL)) != -1) {
		switch (o) {
		case 'a': address = optarg; break;
		case 'g': b.game = number("--game", optarg, 1, LONG_MAX); break;
		case 's': b.seat = (int)number("--seat", optarg, 0, CARC_MAX_SEATS - 1); break;
		case 't': b.token = optarg; break;
		case 'p': b.playouts = number("--playouts", optarg, 1, 100000000); break;
		case 'r': b.rng_seed = (uint64_t)number("--rng", optarg, 0, LONG_MAX); break;
		case 'T': b.c.timeout = (double)number("--timeout", optarg, 1, 86400 * 365); break;
		case 'v': verbose = 1; break;
		case 'f': b.flat = 1; break;
		case 'h': usage(); return 0;
		default: usage(); return 2;
		}
	}
	if (optind < argc || b.game < 0) {
		usage();
		die(2, optind < argc ? "unexpected argument '%s'" : "--game is needed%s", optind < argc ? argv[optind] : "");
	}
	if (b.token && !*b.token) b.token = NULL;
	if (carc_tile_count() > CARC_MAX_TILES) die(3, "libcarc has more tile types than this bot counts"); /* per type arrays */
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < FUTURES; i++) b.futures[i] = proto_xmalloc(carc_game_size());
	b.work = proto_xmalloc(carc_game_size());
	b.fresh = proto_xmalloc(carc_game_size());
	b.list = proto_xmalloc(sizeof *b.list * CARC_MAX_MOVES);
	b.local = proto_xmalloc(sizeof *b.local * CARC_MAX_MOVES);
	b.played = proto_xmalloc(sizeof *b.played * PLAYED_MAX);
	b.c.fd = connect_to(address && *address ? address : DEFAULT_ADDRESS);
	proto_arena *a = &arena;
	proto_arena_init(a);
	play(&b, a);
	proto_arena_reset(a);
	proto_val *p = pv_map(a);
	pv_set_int(a, p, "game", b.game);
	const proto_val *sc = call(&b.c, a, "score", p, NULL, NULL);
	proto_val *out = pv_map(a);
	pv_set_int(a, out, "game", b.game);
	pv_set_int(a, out, "moves_played", b.moves_played);
	/* both read before either moves to `out` (a value is in one container) */
	proto_val *scores = (proto_val *)pv_get(sc, "scores"), *final = (proto_val *)pv_get(sc, "final");
	if (!scores || !final) die(3, "carcd's score reply has no scores or final");
	pv_set(out, "scores", scores);
	pv_set(out, "final", final);
	proto_buf line = { 0 };
	proto_json_encode(out, &line);
	proto_buf_addc(&line, '\n');
	fwrite(line.p, 1, line.len, stdout);
	fflush(stdout);
	proto_buf_free(&line);
	proto_arena_free(a);
	close(b.c.fd);
	free(b.c.buf);
	for (int i = 0; i < FUTURES; i++) free(b.futures[i]);
	free(b.work);
	free(b.fresh);
	free(b.list);
	free(b.local);
	free(b.played);
	return 0;
}

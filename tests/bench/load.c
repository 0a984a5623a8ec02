/*
 * load - how many requests a running carcd serves, how fast, and how much
 * memory a live game costs it.
 *
 * Opens C connections (MessagePack-RPC) to a daemon.  Each connection keeps
 * P games going at once, one request in flight for each, so P requests are
 * pipelined on every connection.  A game is new_game, then legal_moves and
 * a random one of its moves through apply_move (with the seat's token and
 * seq) until the game is over, then close_game, then a new game.  After S
 * seconds it stops sending, waits for what is in flight and prints
 * requests/s and the p50/p99/max latency of a request (send to response).
 *
 * With --pid, before the load it reads the daemon's VmRSS from /proc, makes
 * --games N games and holds them, reads VmRSS again and prints the growth
 * per live game; then it closes those games.
 *
 * With --rate R it sends at most R requests per second in all, to measure
 * latency below saturation (latency is measured from the actual send).
 *
 * With --notified every game is watched with `subscribe`'s `moves` (carcd's
 * own): after the first legal_moves, each move's notification brings the
 * next decision and its moves, so a move costs one request (apply_move)
 * instead of two; a move's apply_move and its notification take the
 * game's one place in flight.  `moves/s` compares the two ways.
 *
 * With --expansions LIST (names as in new_game, comma-separated) every game
 * is made with those sets, for both figures: the decisions the expansions
 * add are played as any other, from legal_moves.  A name the daemon does
 * not know makes it refuse new_game (invalid_params), and load stops there.
 *
 *   load [--connect tcp:HOST:PORT|unix:PATH] [--conns C] [--inflight P]
 *        [--seconds S] [--pid PID] [--games N] [--players N] [--rate R]
 *        [--expansions LIST] [--notified]
 *
 * Not a test: it asserts nothing, and its figures depend on the machine.
 * It exits non-zero only when it cannot talk to the daemon, or when the
 * daemon answers a request of a correct game with an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#define MAX_SEATS 6
#define MAX_EXPANSIONS 32   /* names in --expansions */
#define MAX_PACKED 96       /* a packed game id or token (a 32-hex-digit token is 34 bytes) */
#define READ_CHUNK (64 * 1024)

enum { M_NEW_GAME, M_LEGAL_MOVES, M_APPLY_MOVE, M_CLOSE_GAME, M_SUBSCRIBE, M_COUNT };
static const char *const method_name[M_COUNT] = {"new_game", "legal_moves", "apply_move", "close_game", "subscribe"};

/* A packed MessagePack value kept to be sent back verbatim. */
typedef struct packed {
	size_t len;
	char b[MAX_PACKED];
} packed;

/* One game in progress; at most one request of it is in flight.  Its next
 * request is packed into `next` as soon as it is known and goes out when
 * the rate allows (at once without --rate). */
typedef struct slot {
	int method;           /* of the request in flight or waiting, or -1 */
	int waiting;          /* `next` holds a request not yet sent */
	uint32_t msgid;
	double sent;
	msgpack_sbuffer next;
	packed game, admin, token[MAX_SEATS];
	int open;             /* the daemon holds `game`: made and not closed yet */
	int64_t game_id;      /* `game` as a number, to find the slot of a notification */
	int awaiting;         /* --notified: its move is applied, its notification not read yet */
	uint64_t rng;
} slot;

typedef struct conn {
	int fd;
	msgpack_unpacker up;
	msgpack_sbuffer out;  /* requests not yet written */
	size_t out_off;       /* bytes of out already written */
	slot *slots;
	int nslots;
	int inflight;         /* requests waiting or sent, and not answered */
} conn;

static struct {
	const char *connect;
	int conns, inflight, players;
	double seconds, rate;
	long pid, games;
	const char *expansion[MAX_EXPANSIONS]; /* --expansions, split at the commas */
	int nexpansions;
	int notified;
} opt = {"tcp:127.0.0.1:7878", 4, 16, 2, 10.0, 0, 0, 10000, {NULL}, 0, 0};

/* Latencies in nanoseconds, of every request and of each method. */
typedef struct lat {
	uint32_t *ns;
	size_t n, cap;
} lat;

static struct {
	uint64_t requests, errors, games_over, moves;
	lat all, by_method[M_COUNT];
	uint64_t err_by_code[16];
	char err_code[16][32];
	int ncodes;
} st;

static void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("load: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: small, and good enough to pick moves */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---- connecting ------------------------------------------------------------ */
static int dial(const char *addr)
{
	int fd;
	if (strncmp(addr, "unix:", 5) == 0) {
		struct sockaddr_un sun;
		memset(&sun, 0, sizeof sun);
		sun.sun_family = AF_UNIX;
		if (strlen(addr + 5) >= sizeof sun.sun_path)
			die("socket path too long: %s", addr + 5);
		strcpy(sun.sun_path, addr + 5);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0)
			die("cannot connect to %s: %s", addr, strerror(errno));
	} else {
		const char *hp = strncmp(addr, "tcp:", 4) == 0 ? addr + 4 : addr;
		char host[256];
		const char *colon = strrchr(hp, ':');
		struct addrinfo hints, *res;
		int one = 1, rc;
		if (!colon || (size_t)(colon - hp) >= sizeof host)
			die("not an address: %s (want tcp:HOST:PORT or unix:PATH)", addr);
		memcpy(host, hp, (size_t)(colon - hp));
		host[colon - hp] = '\0';
		memset(&hints, 0, sizeof hints);
		hints.ai_socktype = SOCK_STREAM;
		rc = getaddrinfo(host, colon + 1, &hints, &res);
		if (rc != 0)
			die("%s: %s", addr, gai_strerror(rc));
		fd = socket(res->ai_family, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) < 0)
			die("cannot connect to %s: %s", addr, strerror(errno));
		freeaddrinfo(res);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static void conn_init(conn *c, int nslots)
{
	int i;
	c->fd = dial(opt.connect);
	if (!msgpack_unpacker_init(&c->up, READ_CHUNK))
		die("out of memory");
	msgpack_sbuffer_init(&c->out);
	c->out_off = 0;
	c->slots = calloc((size_t)nslots, sizeof *c->slots);
	if (!c->slots)
		die("out of memory");
	for (i = 0; i < nslots; i++) {
		c->slots[i].method = -1;
		msgpack_sbuffer_init(&c->slots[i].next);
	}
	c->nslots = nslots;
	c->inflight = 0;
}

static void conn_free(conn *c)
{
	int i;
	for (i = 0; i < c->nslots; i++)
		msgpack_sbuffer_destroy(&c->slots[i].next);
	close(c->fd);
	msgpack_unpacker_destroy(&c->up);
	msgpack_sbuffer_destroy(&c->out);
	free(c->slots);
}

/* ---- MessagePack helpers ------------------------------------------------------ */
static const msgpack_object *get(const msgpack_object *map, const char *key)
{
	size_t n = strlen(key);
	uint32_t i;
	if (!map || map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (i = 0; i < map->via.map.size; i++) {
		const msgpack_object *k = &map->via.map.ptr[i].key;
		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n && memcmp(k->via.str.ptr, key, n) == 0)
			return &map->via.map.ptr[i].val;
	}
	return NULL;
}

static int as_int(const msgpack_object *o, int64_t *v)
{
	if (!o)
		return 0;
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		*v = (int64_t)o->via.u64;
	else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		*v = o->via.i64;
	else
		return 0;
	return 1;
}

static int str_is(const msgpack_object *o, const char *s)
{
	return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == strlen(s) &&
	       memcmp(o->via.str.ptr, s, o->via.str.size) == 0;
}

static void keep(packed *dst, const msgpack_object *o)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_object(&pk, *o);
	if (sb.size > sizeof dst->b)
		die("a game id or token of %zu bytes packed: more than this tool keeps", sb.size);
	memcpy(dst->b, sb.data, sb.size);
	dst->len = sb.size;
	msgpack_sbuffer_destroy(&sb);
}

static void pack_key(msgpack_packer *pk, const char *k)
{
	size_t n = strlen(k);
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, k, n);
}

static void pack_kept(msgpack_packer *pk, const char *k, const packed *v)
{
	pack_key(pk, k);
	msgpack_sbuffer_write(pk->data, v->b, v->len);
}

/* ---- requests ------------------------------------------------------------------ */
static uint32_t next_msgid = 1;

/* Starts a request of slot s: the envelope and the method; the caller packs
 * a params map of nparams members. */
static msgpack_packer begin(conn *c, slot *s, int method, uint32_t nparams)
{
	msgpack_packer pk;
	s->next.size = 0;
	msgpack_packer_init(&pk, &s->next, msgpack_sbuffer_write);
	s->method = method;
	s->waiting = 1;
	s->msgid = next_msgid++;
	if (next_msgid == 0)
		next_msgid = 1;
	c->inflight++;
	msgpack_pack_array(&pk, 4);
	msgpack_pack_int(&pk, 0);
	msgpack_pack_uint32(&pk, s->msgid);
	pack_key(&pk, method_name[method]);
	msgpack_pack_map(&pk, nparams);
	return pk;
}

static void send_new_game(conn *c, slot *s)
{
	msgpack_packer pk = begin(c, s, M_NEW_GAME, opt.nexpansions ? 2 : 1);
	char name[16];
	int i;
	pack_key(&pk, "players");
	msgpack_pack_array(&pk, (size_t)opt.players);
	for (i = 0; i < opt.players; i++) {
		snprintf(name, sizeof name, "bot%d", i);
		pack_key(&pk, name);
	}
	if (!opt.nexpansions)
		return;
	pack_key(&pk, "expansions");
	msgpack_pack_array(&pk, (size_t)opt.nexpansions);
	for (i = 0; i < opt.nexpansions; i++)
		pack_key(&pk, opt.expansion[i]);
}

static void send_legal_moves(conn *c, slot *s)
{
	msgpack_packer pk = begin(c, s, M_LEGAL_MOVES, 1);
	pack_kept(&pk, "game", &s->game);
}

static void send_subscribe(conn *c, slot *s)
{
	msgpack_packer pk = begin(c, s, M_SUBSCRIBE, 2);
	pack_kept(&pk, "game", &s->game);
	pack_key(&pk, "moves");
	msgpack_pack_true(&pk);
}

static void send_close_game(conn *c, slot *s)
{
	msgpack_packer pk = begin(c, s, M_CLOSE_GAME, 2);
	pack_kept(&pk, "game", &s->game);
	pack_kept(&pk, "admin_token", &s->admin);
}

static void send_apply_move(conn *c, slot *s, int seat, const msgpack_object *move, int64_t seq)
{
	msgpack_packer pk = begin(c, s, M_APPLY_MOVE, 4);
	pack_kept(&pk, "game", &s->game);
	pack_kept(&pk, "token", &s->token[seat]);
	pack_key(&pk, "move");
	msgpack_pack_object(&pk, *move);
	pack_key(&pk, "seq");
	msgpack_pack_int64(&pk, seq);
}

/* ---- the figures ----------------------------------------------------------------- */
static void lat_add(lat *l, uint32_t ns)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1 << 16;
		l->ns = realloc(l->ns, l->cap * sizeof *l->ns);
		if (!l->ns)
			die("out of memory");
	}
	l->ns[l->n++] = ns;
}

static void record_latency(int method, double secs)
{
	double ns = secs * 1e9;
	uint32_t v = ns > 4e9 ? 4000000000u : (uint32_t)ns;
	lat_add(&st.all, v);
	lat_add(&st.by_method[method], v);
}

/* Counts an error response by its code; returns whether the code is
 * invalid_params. */
static int record_error(const msgpack_object *err)
{
	const msgpack_object *code = get(err, "code");
	const msgpack_object *msg = get(err, "message");
	char buf[32] = "?";
	int i;
	if (code && code->type == MSGPACK_OBJECT_STR)
		snprintf(buf, sizeof buf, "%.*s", (int)code->via.str.size, code->via.str.ptr);
	if (st.errors < 5 && msg && msg->type == MSGPACK_OBJECT_STR)
		fprintf(stderr, "load: error %s: %.*s\n", buf, (int)msg->via.str.size, msg->via.str.ptr);
	st.errors++;
	for (i = 0; i < st.ncodes; i++)
		if (strcmp(st.err_code[i], buf) == 0)
			break;
	if (i == st.ncodes && st.ncodes < 16) {
		snprintf(st.err_code[i], sizeof st.err_code[i], "%s", buf);
		st.ncodes++;
	}
	if (i < st.ncodes)
		st.err_by_code[i]++;
	return strcmp(buf, "invalid_params") == 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Sorts l's latencies; one with none has no array to sort (qsort may
 * not be given NULL, even for no elements). */
static void lat_sort(lat *l)
{
	if (l->n)
		qsort(l->ns, l->n, sizeof *l->ns, cmp_u32);
}

/* The p-quantile of l, sorted, in milliseconds. */
static double percentile_ms(const lat *l, double p)
{
	size_t i;
	if (!l->n)
		return 0;
	i = (size_t)(p * (double)(l->n - 1) + 0.5);
	return l->ns[i] / 1e6;
}

static void lat_free(lat *l)
{
	free(l->ns);
	memset(l, 0, sizeof *l);
}

/* ---- what a response leads to ------------------------------------------------------- */
/* The decision due in a game (legal_moves' result, or with --notified a
 * notification: both hold phase, seat, seq and moves): while `sending`,
 * a random one of the moves, or close_game once the game is over. */
static void on_decision(conn *c, slot *s, const msgpack_object *res, int sending)
{
	const msgpack_object *v = get(res, "moves");
	int64_t seat, seq;
	if (!v || v->type != MSGPACK_OBJECT_ARRAY)
		die("a decision without moves");
	if (str_is(get(res, "phase"), "over") || v->via.array.size == 0) {
		st.games_over++;
		if (sending)
			send_close_game(c, s);
		return;
	}
	if (!as_int(get(res, "seat"), &seat) || seat < 0 || seat >= opt.players || !as_int(get(res, "seq"), &seq))
		die("a decision without seat or seq");
	if (sending)
		send_apply_move(c, s, (int)seat, &v->via.array.ptr[rng_next(&s->rng) % v->via.array.size], seq);
}

/* Records a response of slot s and, while `sending`, packs the slot's next
 * request.  After an error the slot's game is in doubt: it is closed and
 * the slot starts a new one. */
static void on_response(conn *c, slot *s, const msgpack_object *err, const msgpack_object *res, int sending)
{
	const msgpack_object *v;
	int i, method = s->method;

	st.requests++;
	s->method = -1;
	c->inflight--;
	if (method == M_CLOSE_GAME)
		s->open = 0; /* closed, or not to be closed by us after all */
	if (err->type != MSGPACK_OBJECT_NIL) {
		/* new_game refused for its parameters (--expansions) never succeeds */
		if (record_error(err) && method == M_NEW_GAME)
			die("new_game was refused (above): no game can be played");
		if (sending && (method == M_NEW_GAME || method == M_CLOSE_GAME))
			send_new_game(c, s);
		else if (sending)
			send_close_game(c, s);
		return;
	}
	switch (method) {
	case M_NEW_GAME:
		if (!(v = get(res, "game")) || !as_int(v, &s->game_id))
			die("new_game result without a game");
		keep(&s->game, v);
		if (!(v = get(res, "admin_token")))
			die("new_game result without an admin_token");
		keep(&s->admin, v);
		s->open = 1;
		v = get(res, "seats");
		if (!v || v->type != MSGPACK_OBJECT_ARRAY || v->via.array.size > MAX_SEATS)
			die("new_game result without seats");
		for (i = 0; i < (int)v->via.array.size; i++) {
			const msgpack_object *tok = get(&v->via.array.ptr[i], "token");
			if (!tok)
				die("a seat without a token");
			keep(&s->token[i], tok);
		}
		if (sending && opt.notified)
			send_subscribe(c, s);
		else if (sending)
			send_legal_moves(c, s);
		return;
	case M_SUBSCRIBE:
		if (sending)
			send_legal_moves(c, s);
		return;
	case M_LEGAL_MOVES:
		on_decision(c, s, res, sending);
		return;
	case M_APPLY_MOVE:
		st.moves++;
		if (opt.notified) { /* its notification, next, brings the decision: it holds the place */
			s->awaiting = 1;
			c->inflight++;
		} else if (sending) {
			send_legal_moves(c, s);
		}
		return;
	case M_CLOSE_GAME:
		if (sending)
			send_new_game(c, s);
		return;
	}
}

/* --notified: the notification of a slot's move, which its apply_move's
 * response came before.  Others (a game_closed of a game this tool
 * closed) are let be. */
static void on_notification(conn *c, const msgpack_object *params, int sending)
{
	int64_t game;
	int i;
	if (!as_int(get(params, "game"), &game))
		die("a notification without a game");
	for (i = 0; i < c->nslots; i++) {
		slot *s = &c->slots[i];
		if (s->awaiting && s->game_id == game) {
			s->awaiting = 0;
			c->inflight--;
			on_decision(c, s, params, sending);
			return;
		}
	}
}

static void dispatch(conn *c, const msgpack_object *msg, int sending)
{
	int i;
	uint32_t id;
	double t = now();
	if (msg->type == MSGPACK_OBJECT_ARRAY && msg->via.array.size == 3 &&
	    msg->via.array.ptr[0].type == MSGPACK_OBJECT_POSITIVE_INTEGER && msg->via.array.ptr[0].via.u64 == 2) {
		if (opt.notified)
			on_notification(c, &msg->via.array.ptr[2], sending);
		return;
	}
	if (msg->type != MSGPACK_OBJECT_ARRAY || msg->via.array.size != 4 ||
	    msg->via.array.ptr[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER || msg->via.array.ptr[0].via.u64 != 1)
		return; /* nothing carcd sends */
	if (msg->via.array.ptr[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
		record_error(&msg->via.array.ptr[2]);
		die("a response without a msgid: the daemon could not read a request");
	}
	id = (uint32_t)msg->via.array.ptr[1].via.u64;
	for (i = 0; i < c->nslots; i++) {
		slot *s = &c->slots[i];
		if (s->method >= 0 && !s->waiting && s->msgid == id) {
			record_latency(s->method, t - s->sent);
			on_response(c, s, &msg->via.array.ptr[2], &msg->via.array.ptr[3], sending);
			return;
		}
	}
	die("a response to msgid %u, which is not in flight", id);
}

/* ---- I/O ----------------------------------------------------------------------- */
static void flush_out(conn *c)
{
	while (c->out_off < c->out.size) {
		ssize_t n = write(c->fd, c->out.data + c->out_off, c->out.size - c->out_off);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EINTR)
				continue;
			die("write: %s", strerror(errno));
		}
		c->out_off += (size_t)n;
	}
	c->out.size = 0;
	c->out_off = 0;
}

static void read_in(conn *c, int sending)
{
	msgpack_unpacked msg;
	msgpack_unpack_return rc;
	for (;;) {
		ssize_t n;
		if (msgpack_unpacker_buffer_capacity(&c->up) < READ_CHUNK &&
		    !msgpack_unpacker_reserve_buffer(&c->up, READ_CHUNK))
			die("out of memory");
		n = read(c->fd, msgpack_unpacker_buffer(&c->up), msgpack_unpacker_buffer_capacity(&c->up));
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			die("read: %s", strerror(errno));
		}
		if (n == 0)
			die("the daemon closed a connection");
		msgpack_unpacker_buffer_consumed(&c->up, (size_t)n);
		if ((size_t)n < READ_CHUNK)
			break;
	}
	msgpack_unpacked_init(&msg);
	while ((rc = msgpack_unpacker_next(&c->up, &msg)) == MSGPACK_UNPACK_SUCCESS)
		dispatch(c, &msg.data, sending);
	msgpack_unpacked_destroy(&msg);
	if (rc != MSGPACK_UNPACK_CONTINUE)
		die("undecodable MessagePack from the daemon");
}

/* Moves waiting requests to their connections' output while the rate
 * allows; returns how many still wait. */
static uint64_t released;

static int release(conn *cs, int nconns, double t0)
{
	int i, j, left = 0;
	double t = now();
	double budget = opt.rate > 0 ? opt.rate * (t - t0) - (double)released : 1e18;
	for (i = 0; i < nconns; i++) {
		for (j = 0; j < cs[i].nslots; j++) {
			slot *s = &cs[i].slots[j];
			if (!s->waiting)
				continue;
			if (budget < 1) {
				left++;
				continue;
			}
			msgpack_sbuffer_write(&cs[i].out, s->next.data, s->next.size);
			s->waiting = 0;
			s->sent = t;
			budget -= 1;
			released++;
		}
	}
	return left;
}

/* Runs the connections until `until` (then stops sending and drains what
 * is in flight), or, when until is 0, until nothing is in flight. */
static void run(conn *cs, int nconns, double until)
{
	struct pollfd *pfd = calloc((size_t)nconns, sizeof *pfd);
	double t0 = now();
	int i;
	if (!pfd)
		die("out of memory");
	released = 0;
	for (;;) {
		int sending = until > 0 && now() < until;
		int waiting = release(cs, nconns, t0);
		int busy = 0;
		for (i = 0; i < nconns; i++) {
			flush_out(&cs[i]);
			pfd[i].fd = cs[i].fd;
			pfd[i].events = POLLIN | (cs[i].out.size ? POLLOUT : 0);
			busy += cs[i].inflight;
		}
		if (!busy)
			break;
		if (poll(pfd, (nfds_t)nconns, waiting ? 1 : 1000) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		for (i = 0; i < nconns; i++)
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
				read_in(&cs[i], sending);
	}
	free(pfd);
}

/* ---- memory per live game ------------------------------------------------------------ */
static long vmrss_kib(long pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;
	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	if (!(f = fopen(path, "r")))
		die("cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	fclose(f);
	return kib;
}

static void measure_memory(void)
{
	conn c;
	long before, after, made = 0, batch = 256;
	long i;
	struct held {
		packed game, admin;
	} *held = calloc((size_t)opt.games, sizeof *held);
	if (!held)
		die("out of memory");
	conn_init(&c, (int)batch);
	before = vmrss_kib(opt.pid);
	/* make the games in batches of `batch` pipelined new_game requests */
	while (made < opt.games) {
		int n = (int)(opt.games - made < batch ? opt.games - made : batch);
		for (i = 0; i < n; i++)
			send_new_game(&c, &c.slots[i]);
		run(&c, 1, 0);
		if (st.errors)
			die("new_game was refused (above): no games to measure");
		for (i = 0; i < n; i++) {
			held[made + i].game = c.slots[i].game;
			held[made + i].admin = c.slots[i].admin;
		}
		made += n;
	}
	after = vmrss_kib(opt.pid);
	printf("memory: %ld live games: VmRSS %.1f MiB -> %.1f MiB, %.1f KiB per live game\n", made,
	       before / 1024.0, after / 1024.0, (double)(after - before) / (double)made);
	/* and close them again */
	for (i = 0; i < made; i += batch) {
		int j, n = (int)(made - i < batch ? made - i : batch);
		for (j = 0; j < n; j++) {
			c.slots[j].game = held[i + j].game;
			c.slots[j].admin = held[i + j].admin;
			send_close_game(&c, &c.slots[j]);
		}
		run(&c, 1, 0);
	}
	conn_free(&c);
	free(held);
	lat_free(&st.all);
	for (i = 0; i < M_COUNT; i++)
		lat_free(&st.by_method[i]);
	memset(&st, 0, sizeof st);
}

/* ---- main ------------------------------------------------------------------------ */
static void usage(void)
{
	fprintf(stderr,
	        "usage: load [--connect tcp:HOST:PORT|unix:PATH] [--conns C] [--inflight P]\n"
	        "            [--seconds S] [--pid PID] [--games N] [--players N] [--rate R]\n"
	        "            [--expansions LIST] [--notified]\n");
	exit(2);
}

/* --expansions a,b,c: the names, split in place; the daemon judges them
 * (an unknown one makes new_game fail, which ends the run). */
static void expansions_arg(char *list)
{
	char *save = NULL, *name;
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (opt.nexpansions == MAX_EXPANSIONS) {
			fprintf(stderr, "load: --expansions: more than %d names\n", MAX_EXPANSIONS);
			exit(2);
		}
		opt.expansion[opt.nexpansions++] = name;
	}
	if (!opt.nexpansions) {
		fprintf(stderr, "load: --expansions: no name given\n");
		exit(2);
	}
}

static double num_arg(int argc, char **argv, int *i, double lo, double hi)
{
	char *end;
	double v;
	if (*i + 1 >= argc)
		usage();
	v = strtod(argv[++*i], &end);
	if (*end || v < lo || v > hi) {
		fprintf(stderr, "load: %s: %s is out of range\n", argv[*i - 1], argv[*i]);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	conn *cs;
	int i, j;
	double t0, t1;
	uint64_t seed = (uint64_t)time(NULL);

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--connect") == 0 && i + 1 < argc)
			opt.connect = argv[++i];
		else if (strcmp(argv[i], "--conns") == 0)
			opt.conns = (int)num_arg(argc, argv, &i, 1, 10000);
		else if (strcmp(argv[i], "--inflight") == 0)
			opt.inflight = (int)num_arg(argc, argv, &i, 1, 4096);
		else if (strcmp(argv[i], "--seconds") == 0)
			opt.seconds = num_arg(argc, argv, &i, 0, 86400);
		else if (strcmp(argv[i], "--pid") == 0)
			opt.pid = (long)num_arg(argc, argv, &i, 1, 1e9);
		else if (strcmp(argv[i], "--games") == 0)
			opt.games = (long)num_arg(argc, argv, &i, 1, 1e7);
		else if (strcmp(argv[i], "--players") == 0)
			opt.players = (int)num_arg(argc, argv, &i, 1, MAX_SEATS);
		else if (strcmp(argv[i], "--rate") == 0)
			opt.rate = num_arg(argc, argv, &i, 1, 1e9);
		else if (strcmp(argv[i], "--expansions") == 0 && i + 1 < argc)
			expansions_arg(argv[++i]);
		else if (strcmp(argv[i], "--notified") == 0)
			opt.notified = 1;
		else
			usage();
	}

	if (opt.notified && opt.inflight > 1024) {
		fprintf(stderr, "load: --notified: at most 1024 in flight, the games a connection may watch\n");
		exit(2);
	}
	if (opt.pid)
		measure_memory();
	if (opt.seconds <= 0)
		return 0;

	cs = calloc((size_t)opt.conns, sizeof *cs);
	if (!cs)
		die("out of memory");
	for (i = 0; i < opt.conns; i++) {
		conn_init(&cs[i], opt.inflight);
		for (j = 0; j < opt.inflight; j++) {
			cs[i].slots[j].rng = seed ^ ((uint64_t)i << 32 | (uint64_t)j);
			send_new_game(&cs[i], &cs[i].slots[j]);
		}
	}
	t0 = now();
	run(cs, opt.conns, t0 + opt.seconds);
	t1 = now();

	lat_sort(&st.all);
	for (i = 0; i < M_COUNT; i++)
		lat_sort(&st.by_method[i]); /* subscribe has none without --notified */
	printf("load: %s, %d connections x %d in flight, %d seats, %.1f s\n", opt.connect, opt.conns,
	       opt.inflight, opt.players, t1 - t0);
	printf("requests: %llu (%.0f requests/s); %llu games played to the end\n",
	       (unsigned long long)st.requests, (double)st.requests / (t1 - t0),
	       (unsigned long long)st.games_over);
	printf("moves: %llu (%.0f moves/s, %s)\n", (unsigned long long)st.moves, (double)st.moves / (t1 - t0),
	       opt.notified ? "each from a notification" : "each after a legal_moves");
	printf("latency: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", percentile_ms(&st.all, 0.50),
	       percentile_ms(&st.all, 0.99), percentile_ms(&st.all, 1.0));
	for (i = 0; i < M_COUNT; i++) {
		const lat *l = &st.by_method[i];
		printf("  %-12s %8zu requests, p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", method_name[i], l->n,
		       percentile_ms(l, 0.50), percentile_ms(l, 0.99), percentile_ms(l, 1.0));
	}
	printf("errors: %llu", (unsigned long long)st.errors);
	for (i = 0; i < st.ncodes; i++)
		printf("%s %s %llu", i ? "," : ":", st.err_code[i], (unsigned long long)st.err_by_code[i]);
	printf("\n");
	/* The games still going when the time ran out are closed, so that a
	 * daemon shared with others is left with the games it had (after the
	 * figures: these requests are not part of the load). */
	{
		uint64_t errors = st.errors;
		for (i = 0; i < opt.conns; i++)
			for (j = 0; j < cs[i].nslots; j++)
				if (cs[i].slots[j].open)
					send_close_game(&cs[i], &cs[i].slots[j]);
		run(cs, opt.conns, 0);
		if (st.errors > errors)
			printf("errors closing the games left: %llu\n", (unsigned long long)(st.errors - errors));
	}
	for (i = 0; i < opt.conns; i++)
		conn_free(&cs[i]);
	free(cs);
	lat_free(&st.all);
	for (i = 0; i < M_COUNT; i++)
		lat_free(&st.by_method[i]);
	return st.errors ? 1 : 0;
}

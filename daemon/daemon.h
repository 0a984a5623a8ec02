/*
 * daemon.h - the pieces of carcd and how they meet.
 *
 *   log.c      log_      levelled lines on stderr
 *   games.c    games_    the registry: games, seat tokens, the seed
 *                        commitment, compact move history, subscribers
 *   journal.c  journal_  --journal: each game in a file, restored at start
 *   methods.c  methods_  the method table of PROTOCOL.md section 4 and the
 *                        dispatcher both encodings reach
 *   conn.c     conn_     connections on libevent: buffering, framing,
 *                        limits, notifications out
 *   main.c               options, listeners, signals, the loop
 *
 * Everything runs on one event loop, so nothing here locks.  games.c and
 * methods.c know nothing of libevent: they can be driven from a buffer
 * (the fuzzer does), and reach connections only through server hooks.
 */
#ifndef CARCD_DAEMON_H
#define CARCD_DAEMON_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "carc.h"
#include "proto.h"

#define CARCD_NAME "carcd"

/* ---- defaults of the options (PROTOCOL.md section 7) ------------------ */
#define CARCD_MAX_CONNECTIONS 1024
#define CARCD_MAX_GAMES 100000
#define CARCD_IDLE_TIMEOUT 600          /* seconds */
#define CARCD_GAME_TIMEOUT 0            /* seconds without a move before a game is closed; 0: never */
#define CARCD_MAX_OUTPUT (8u << 20)     /* unsent bytes before a slow reader is cut off */
#define CARCD_MAX_SUBSCRIPTIONS 1024    /* games one connection may watch */

/* ---- logging -------------------------------------------------------------- */
enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };
extern int log_level;
int log_level_parse(const char *s); /* -1 when unknown */
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) do { if (log_level >= LOG_LEVEL_DEBUG) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__); } while (0)

/* ---- games ------------------------------------------------------------------ */
#define GAMES_TOKEN 16 /* bytes of a seat or admin token: 128 bits */

/* One applied move, as the engine took it (12 bytes: a base game's ~145
 * moves cost under 2 KB). */
typedef carc_move games_move;

typedef struct games_game {
	int64_t id;
	carc_game *g;                      /* carc_game_size() bytes */
	int nseats;
	int auth;
	char *names[CARC_MAX_SEATS];
	uint8_t token[CARC_MAX_SEATS][GAMES_TOKEN];
	uint8_t admin[GAMES_TOKEN];
	uint64_t seed;
	char salt[33];
	char seed_sha256[65];
	uint32_t seq;                      /* moves applied */
	games_move *moves;
	uint32_t movecap;
	void **subs;                       /* subscribed connections, in order */
	uint8_t *subwants;                 /* what each asked for beyond the contract: GAMES_WANTS_* */
	int nsubs, subcap;
	int unjournaled;                   /* its journal file could not be written */
	uint32_t jcrc;                     /* CRC of its journal file's last record */
	double created;
	double last;                       /* games_now() of its creation or last move (--game-timeout) */
} games_game;

/* subscribe's `decision`: notifications carry phase, seat and over */
#define GAMES_WANTS_DECISION 1u
/* subscribe's `state`: the decision's keys and the state, as `state` has it */
#define GAMES_WANTS_STATE 2u
/* subscribe's `moves`: the decision's keys and the legal moves of the decision due */
#define GAMES_WANTS_MOVES 4u
/* subscribe's `features` (with `moves`): the moves as legal_moves' `features` has them */
#define GAMES_WANTS_FEATURES 8u
/* the number of forms: each a combination of the bits above */
#define GAMES_FORMS 16

/* The largest game id: ids stay exact in JSON (a double's 53 bits). */
#define GAMES_MAX_ID ((1ll << 53) - 1)

typedef struct games {
	games_game **v;                    /* sorted by id: ids only grow */
	size_t n, cap, max;
	int64_t next_id;
	uint64_t created_total, evicted_total, expired_total;
	size_t bytes;                      /* memory held by games */
	uint64_t freed_total;              /* games freed (closed, evicted, expired), for the heap trim */
} games;

/* The games a connection watches, so closing it need not scan them all. */
typedef struct games_subs {
	int64_t *ids;
	int n, cap;
} games_subs;

void games_init(games *r, size_t max);
void games_free_all(games *r);
games_game *games_find(games *r, int64_t id);
/* Makes a game; NULL with *rc set when the config is refused, or with
 * *full 1 when the registry is full of games still being played, 2 when
 * every id up to GAMES_MAX_ID has been given. */
games_game *games_create(games *r, const carc_config *cfg, const char *const *names, int auth,
                         carc_sink *out, carc_rc *rc, int *full);
void games_close(games *r, games_game *gm);
/* Closes, in one pass over the registry, every game `doomed` says 1 of
 * (it is told just before the game goes); returns how many. */
size_t games_sweep(games *r, int (*doomed)(void *ctx, games_game *gm), void *ctx);
size_t games_index_after(const games *r, int64_t after); /* first index with id > after */
/* Records an applied move (seq grows). */
void games_record(games *r, games_game *gm, const carc_move *m);
/* The move recorded as number `i` (0-based), for a replay of `g`. */
void games_move_get(const games_game *gm, uint32_t i, carc_move *m);
int games_subscribe(games *r, games_game *gm, void *conn, games_subs *cs, unsigned wants); /* -1: too many */
void games_unsubscribe(games_game *gm, const void *conn, games_subs *cs);
void games_unsubscribe_all(games *r, const void *conn, games_subs *cs);
/* Which seat a hex token belongs to: -1 none.  Constant time in the token. */
int games_token_seat(const games_game *gm, const char *hex);
int games_token_admin(const games_game *gm, const char *hex);
/* Sets the salt (32 hex digits) and the seed commitment made of it. */
void games_set_salt(games_game *gm, const char *salt);
void games_random(void *buf, size_t n); /* getrandom(2); aborts if the kernel cannot */
double games_now(void);                 /* monotonic seconds */

/* ---- the journal (journal.c): off until journal_open ----------------------- */
#define JOURNAL_FDS 256 /* game files kept open, beside the connections' descriptors */
/* Makes `dir` (0700) if need be and restores every game filed there into r
 * (*scratch: a carc_game_size() buffer to try each replay on first; a
 * restored game keeps the buffer it was replayed in and leaves its own in
 * *scratch), but
 * for those whose file was last written `game_timeout` seconds ago or
 * more (when it is not 0): their files are deleted, as the sweep of
 * --game-timeout would have.  -1 when the directory cannot be made or
 * written, logged. */
int journal_open(const char *dir, games *r, carc_game **scratch, int game_timeout);
void journal_close(void);
void journal_created(games *r, games_game *gm);    /* from games_create */
void journal_moved(games_game *gm, const carc_move *m); /* from games_record */
void journal_forget(const games_game *gm);         /* a game closed or evicted */
/* Seconds since a game file was last written (`written`, its mtime), to
 * the nanosecond: in whole seconds a restored game would be up to one
 * second older than it is, and --game-timeout would close it early. */
double journal_quiet_since(struct timespec written);

/* ---- the server: what the methods see ------------------------------------------ */
typedef struct server {
	games games;
	proto_arena arena;              /* per request, reset after each */
	proto_buf wbuf;                 /* one encoded response */
	carc_game *scratch;             /* clones and replays */
	carc_event *events;             /* CARC_MAX_EVENTS */
	carc_move *moves;               /* CARC_MAX_MOVES */
	double started;
	/* limits */
	size_t max_request, max_line, max_output;
	int max_connections, idle_timeout;
	int game_timeout;               /* --game-timeout, 0: games are only closed by close_game */
	const char **ws_origins;        /* --ws-origin: the pages served over WebSocket; none: any */
	int n_ws_origins;
	/* statistics */
	uint64_t requests, errors[PROTO_E_COUNT], conns_total, conns_refused;
	int conns;
	/* how the methods reach connections (conn.c, or the fuzzer's stubs) */
	proto_enc (*conn_enc)(void *conn);
	void (*deliver)(void *conn, const uint8_t *p, size_t n);
} server;

void methods_init(server *s);
void methods_free(server *s);
/* Answers one decoded request: the response, then any notification the
 * request caused, go out through s->deliver. */
void methods_handle(server *s, void *conn, games_subs *subs, const proto_request *rq);
/* Answers a request that could not be decoded (rq may have no msgid). */
void methods_reply_error(server *s, void *conn, const proto_request *rq, proto_err code, const char *why);
/* Closes the games that have had no move for --game-timeout seconds at
 * `now` (games_now()), telling their watchers as close_game does;
 * returns how many.  Nothing when the option is 0. */
size_t methods_expire(server *s, double now);
/* Ends every subscription of a closing connection. */
void methods_conn_gone(server *s, void *conn, games_subs *subs);

/* ---- connections (conn.c) ----------------------------------------------------------- */
struct event_base;
void conn_setup(server *s, struct event_base *base);
/* Takes over an accepted socket (or closes it at once when over the
 * limit); ws: it came to a WebSocket listener. */
void conn_accept(int fd, int ws);
/* Stops reading everywhere, answers what was already read, closes each
 * connection once its replies are out, then calls `done`. */
void conn_shutdown(void (*done)(void));
void conn_free_all(void);

#endif

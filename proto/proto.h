/*
 * proto.h - the wire protocol of carcd (PROTOCOL.md, proto/PROTOCOL.md).
 *
 * Pure functions from bytes to requests and from results to bytes: nothing
 * here touches a socket, so every parser can be driven from a buffer by
 * the unit tests and the fuzzer.  Modules and their prefixes:
 *
 *   alloc.c   proto_x*      allocation that aborts on OOM; arenas; byte buffers
 *   value.c   pv_           the value tree every message is built as, once,
 *                           before it is written as MessagePack or JSON
 *   guard.c   proto_guard_  the frame guard in front of msgpack-c
 *   mpack.c   proto_mp_     MessagePack-RPC in and out
 *   json.c    proto_json_   JSON lines in and out (jansson parses)
 *   request.c proto_        envelopes, responses, errors, parameter checks
 *   game.c    proto_        state, moves, events of a game as values;
 *                           moves from values; why a move is illegal
 *   sha256.c  proto_sha256  the seed commitment
 *   ws.c      proto_ws_     WebSocket (RFC 6455): handshake and frames
 */
#ifndef CARC_PROTO_H
#define CARC_PROTO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "carc.h"

#define PROTO_VERSION 1

/* ---- limits (PROTOCOL.md section 7; the daemon may change the first two) */
#define PROTO_MAX_REQUEST (1u << 20) /* bytes of one MessagePack request */
#define PROTO_MAX_LINE (64u << 10)   /* bytes of one JSON line, without its newline */
#define PROTO_MAX_DEPTH 16           /* nesting of arrays and maps, the envelope is 1 */
#define PROTO_MAX_NAME 64            /* bytes of a player name */
#define PROTO_MAX_RULE_INT 1000      /* integer rule options are points: keep them sane */
#define PROTO_MAX_SEED ((1ll << 53) - 1) /* a game's seed: JSON-safe integers */

/* ---- error codes (PROTOCOL.md section 2) ------------------------------- */
typedef enum proto_err {
	PROTO_OK = 0,
	PROTO_E_BAD_REQUEST,
	PROTO_E_UNKNOWN_METHOD,
	PROTO_E_INVALID_PARAMS,
	PROTO_E_NO_SUCH_GAME,
	PROTO_E_FORBIDDEN,
	PROTO_E_NOT_YOUR_TURN,
	PROTO_E_ILLEGAL_MOVE,
	PROTO_E_CONFLICT,
	PROTO_E_GAME_OVER,
	PROTO_E_LIMIT,
	PROTO_E_INTERNAL,
	PROTO_E_COUNT
} proto_err;

/* The code as it is spelled on the wire ("bad_request", ...). */
const char *proto_strerror(proto_err code);

/* ---- allocation ---------------------------------------------------------- */
/* A daemon that half-fails an allocation is worse than one that restarts:
 * these abort with a message instead of returning NULL. */
void *proto_xmalloc(size_t n);
void *proto_xcalloc(size_t n, size_t size);
void *proto_xrealloc(void *p, size_t n);
char *proto_xstrdup(const char *s);

/* A bump allocator for everything one request makes; reset afterwards. */
typedef struct proto_chunk proto_chunk;
typedef struct proto_arena {
	proto_chunk *head;
	size_t used;   /* bytes taken from head */
} proto_arena;
void proto_arena_init(proto_arena *a);
void *proto_arena_alloc(proto_arena *a, size_t n);
char *proto_arena_strndup(proto_arena *a, const char *s, size_t n);
char *proto_arena_printf(proto_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3), nonnull(2)));
void proto_arena_reset(proto_arena *a); /* keeps one chunk for the next request */
void proto_arena_free(proto_arena *a);

/* A growable byte buffer. */
typedef struct proto_buf {
	uint8_t *p;
	size_t len, cap;
} proto_buf;
void proto_buf_add(proto_buf *b, const void *p, size_t n);
void proto_buf_addc(proto_buf *b, uint8_t c);
void proto_buf_reset(proto_buf *b);
void proto_buf_free(proto_buf *b);

/* ---- values -------------------------------------------------------------- */
typedef enum pv_type { PV_NIL, PV_BOOL, PV_INT, PV_FLOAT, PV_STR, PV_ARRAY, PV_MAP } pv_type;

/* A node of a message.  Containers keep their members in a list so a
 * result can be built without knowing its size first; a map member
 * carries its key.  All of it lives in an arena. */
typedef struct proto_val proto_val;
struct proto_val {
	pv_type type;
	uint32_t n;             /* bytes of a string, members of a container */
	const char *key;        /* set on members of a map */
	uint32_t klen;
	proto_val *next;        /* the next member of the same container */
	union {
		int b;
		int64_t i;
		double f;
		const char *s;      /* NUL-terminated too, but may hold NULs */
		struct {
			proto_val *first, *last;
		} c;
	} u;
};

proto_val *pv_nil(proto_arena *a);
proto_val *pv_bool(proto_arena *a, int b);
proto_val *pv_int(proto_arena *a, int64_t i);
proto_val *pv_float(proto_arena *a, double f);
proto_val *pv_str(proto_arena *a, const char *s);               /* s must outlive the value */
proto_val *pv_strn(proto_arena *a, const char *s, size_t n);   /* copies */
/* Length of the valid UTF-8 sequence at p (1..4), or 0. */
int proto_utf8_len(const uint8_t *p, size_t n);
/* Whether p[0..n) is all valid UTF-8. */
int proto_utf8_ok(const uint8_t *p, size_t n);
/* A string from a client: copied, each 0 byte made 0xff (value.c). */
char *proto_wire_strndup(proto_arena *a, const char *s, size_t n);
proto_val *pv_wire_str(proto_arena *a, const char *s, size_t n);
proto_val *pv_array(proto_arena *a);
proto_val *pv_map(proto_arena *a);
/* Appends and returns v; `key` of pv_set must outlive the value. */
proto_val *pv_push(proto_val *array, proto_val *v);
proto_val *pv_setn(proto_val *map, const char *key, size_t klen, proto_val *v);
/* Inline, so that the length of a literal key is folded at compile time:
 * results are mostly literal keys, and strlen showed in profiles. */
static inline proto_val *pv_set(proto_val *map, const char *key, proto_val *v)
{
	return pv_setn(map, key, __builtin_strlen(key), v);
}
/* Shorthands for the common members. */
static inline void pv_set_int(proto_arena *a, proto_val *map, const char *key, int64_t i) { pv_set(map, key, pv_int(a, i)); }
static inline void pv_set_str(proto_arena *a, proto_val *map, const char *key, const char *s) { pv_set(map, key, pv_str(a, s)); }
static inline void pv_set_bool(proto_arena *a, proto_val *map, const char *key, int b) { pv_set(map, key, pv_bool(a, b)); }
static inline void pv_set_nil(proto_arena *a, proto_val *map, const char *key) { pv_set(map, key, pv_nil(a)); }
/* The member `key` of a map, or NULL (also when v is not a map). */
const proto_val *pv_get(const proto_val *map, const char *key);
/* The same, but nil counts as absent (clients send nil for "not given"). */
const proto_val *pv_opt(const proto_val *map, const char *key);
int pv_is_str(const proto_val *v, const char *s);
/* Integral numbers (an integral float too, as JSON writers make them). */
int pv_to_int(const proto_val *v, int64_t *out);

/* ---- encodings ------------------------------------------------------------ */
typedef enum proto_enc { PROTO_ENC_MSGPACK, PROTO_ENC_JSON, PROTO_ENC_COUNT } proto_enc;

/* The first byte of a connection decides its encoding for good. */
proto_enc proto_enc_detect(uint8_t first);
/* Appends one message: MessagePack, or a JSON text and its newline. */
void proto_encode(const proto_val *msg, proto_enc enc, proto_buf *out);
void proto_mp_encode(const proto_val *v, proto_buf *out);
void proto_json_encode(const proto_val *v, proto_buf *out);

/* ---- the frame guard -------------------------------------------------------- */
/* msgpack-c reserves memory for what a message declares before the bytes
 * arrive, so a 5-byte message could make it reserve ~192 MiB.  The guard
 * walks the bytes first: total size, depth, each declared length against
 * the bytes that may still come, 0xc1.  It is resumable: feed it the same
 * message start with more bytes as they arrive. */
typedef enum proto_guard_rc {
	PROTO_GUARD_MORE,  /* a prefix of a valid message: wait for more bytes */
	PROTO_GUARD_DONE,  /* one complete message of *len bytes */
	PROTO_GUARD_LIMIT, /* over a limit: answer `limit` and close */
	PROTO_GUARD_BAD    /* not MessagePack: answer `bad_request` and close */
} proto_guard_rc;

typedef struct proto_guard {
	size_t max;      /* bytes a message may have */
	size_t pos;      /* bytes already walked */
	int depth;       /* open containers */
	uint64_t left[PROTO_MAX_DEPTH + 1]; /* members still due at each depth */
	const char *why; /* after LIMIT or BAD: which rule, for the error message */
} proto_guard;

void proto_guard_init(proto_guard *g, size_t max);
proto_guard_rc proto_guard_feed(proto_guard *g, const uint8_t *msg, size_t avail, size_t *len);
/* One-shot form for tests and fuzzers. */
proto_guard_rc proto_guard_check(const uint8_t *msg, size_t avail, size_t max, size_t *len);

/* ---- requests ------------------------------------------------------------------ */
typedef struct proto_request {
	int has_id;            /* 0: msgid is nil (JSON shorthand, or unreadable) */
	uint32_t msgid;
	const char *method;
	const proto_val *params; /* always a map once decoded */
} proto_request;

/* One decoded message, or why it could not be.  On error `rq->has_id`
 * tells whether the msgid was read, so the error can answer it. */
typedef struct proto_decoded {
	proto_err code;        /* PROTO_OK, PROTO_E_BAD_REQUEST or PROTO_E_INVALID_PARAMS */
	const char *why;
	int close;             /* the stream cannot go on after this */
	int skip;              /* nothing to answer (a blank line) */
} proto_decoded;

/* A complete guarded MessagePack message. */
proto_decoded proto_mp_decode(proto_arena *a, const uint8_t *p, size_t n, proto_request *rq);
/* Any one whole MessagePack message (a response or a notification, for a
 * client), guarded as a request is (proto_guard_check, with n as the
 * limit), to a value; NULL and *why when it is not one. */
proto_val *proto_mp_value(proto_arena *a, const uint8_t *p, size_t n, const char **why);
/* One JSON line without its line end: `[0, id, "method", {...}]`,
 * `method {...}` or a bare `method`. */
proto_decoded proto_json_decode(proto_arena *a, const char *line, size_t n, proto_request *rq);
/* An HTTP request line (HTTP/0.9 to 2's preface): such a client is
 * closed without an answer. */
int proto_is_http(const char *line, size_t n);
/* The envelope shared by both decoders: [0, msgid, method, params]. */
proto_decoded proto_envelope(proto_arena *a, const proto_val *env, proto_request *rq);
/* Is id a msgid (PROTOCOL.md 2: an integer from 0 to 2^32-1, an integral
 * float too)?  Then *msgid gets it. */
int proto_msgid_of(const proto_val *id, uint32_t *msgid);
/* A request's params as a map (PROTOCOL.md 2: a map, an array holding one
 * map, or an empty array or nil for {}), in an envelope and after a JSON
 * line's method alike; NULL for anything else. */
const proto_val *proto_params_of(proto_arena *a, const proto_val *params);
#define PROTO_PARAMS_SHAPE "params must be a map, or an array holding one map"

proto_val *proto_response(proto_arena *a, const proto_request *rq, proto_val *result);
proto_val *proto_error(proto_arena *a, const proto_request *rq, proto_err code, const char *message);
/* The same with `data` (NULL: none). */
proto_val *proto_error_data(proto_arena *a, const proto_request *rq, proto_err code, const char *message,
                            proto_val *data);
proto_val *proto_notification(proto_arena *a, int64_t game, uint32_t seq, proto_val *events);

/* ---- parameters ----------------------------------------------------------------- */
typedef enum proto_ptype {
	PROTO_P_INT, PROTO_P_STR, PROTO_P_BOOL, PROTO_P_MAP, PROTO_P_ARRAY, PROTO_P_ANY
} proto_ptype;

/* One entry of a method's parameter list; the list ends with a NULL name. */
typedef struct proto_param {
	const char *name;
	proto_ptype type;
	int required;
	int64_t min, max;      /* PROTO_P_INT only; both 0: any int64 */
} proto_param;

/* Checks presence, types and ranges; unknown names are ignored.  On error
 * returns PROTO_E_INVALID_PARAMS and a message in *why. */
proto_err proto_params_check(proto_arena *a, const proto_param *spec, const proto_val *params, const char **why);
const char *proto_ptype_name(proto_ptype t);

/* ---- games on the wire ------------------------------------------------------------ */
/* What the server knows of a game beyond the engine. */
typedef struct proto_game_meta {
	int64_t id;
	uint32_t seq;                  /* moves applied */
	const char *const *names;      /* one per seat */
	const char *seed_sha256;       /* 64 hex digits */
	int reveal;                    /* over: seed and salt may be shown */
	uint64_t seed;
	const char *salt;
} proto_game_meta;

proto_val *proto_state(proto_arena *a, const carc_game *g, const proto_game_meta *m);
/* A `rot` in degrees (0, 90, 180 or 270) as quarter turns, 0 to 3; -1 for
 * anything else, NULL included. */
int proto_quarter_turns(const proto_val *v);
/* The names of the ports in mask (bit p: carc_port p), in canonical order. */
proto_val *proto_ports(proto_arena *a, unsigned mask);
proto_val *proto_move(proto_arena *a, const carc_game *g, const carc_move *m);
/* The move list of the decision now due; with `features`, each deploy and
 * move_wagon also gives the kind and ports of the feature it goes to. */
proto_val *proto_moves(proto_arena *a, const carc_game *g, const carc_move *m, int n, int features);
proto_val *proto_event(proto_arena *a, const carc_game *g, const carc_event *e);
/* The events of one call, in order. */
proto_val *proto_events(proto_arena *a, const carc_game *g, const carc_event *ev, int n);
/* phase, seat (nil when none decides) and over of the decision due in g:
 * apply_move's result, and notifications to a `decision` subscriber. */
void proto_set_decision(proto_arena *a, proto_val *v, const carc_game *g);
proto_val *proto_scores(proto_arena *a, const carc_game *g);
/* A move map to an engine move.  PROTO_E_INVALID_PARAMS for a malformed
 * move, PROTO_E_ILLEGAL_MOVE for a move type this game cannot have. */
/* `g` resolves figure ids; without a game they are refused. */
proto_err proto_move_parse(proto_arena *a, const carc_game *g, const proto_val *v, carc_move *m, const char **why);
/* Why the engine refused `m`, in words a player understands. */
/* *data (when data is not NULL) gets the same as an illegal_move error's
 * `data`: {reason, x?, y?, at?}. */
const char *proto_move_explain(proto_arena *a, const carc_game *g, const carc_move *m, carc_rc rc, int detail,
                               proto_val **data);
/* What proto_move_parse's PROTO_E_ILLEGAL_MOVE means, as that data. */
#define PROTO_REASON_NOT_IN_GAME "not_in_this_game"
/* new_game's parameters, the table carcd checks its requests against. */
extern const proto_param proto_new_game_params[];
/* new_game's set-up (players, expansions, components, rules, tiles,
 * start, bag; not seed or auth) to *cfg, which it initialises first;
 * names[] gets the players' names (strings of the arena).  Checks the
 * parameters' shapes (proto_new_game_params) and every value as new_game
 * does: PROTO_E_INVALID_PARAMS and *why otherwise. */
proto_err proto_setup_parse(proto_arena *a, const proto_val *p, carc_config *cfg, const char **names, const char **why);
/* new_game's `expansions` (a list of names, each known and available) to
 * a mask of carc_expansion() bits in *out; nothing happens when v is NULL.
 * PROTO_E_INVALID_PARAMS and *why otherwise. */
proto_err proto_expansions_parse(proto_arena *a, const proto_val *v, uint32_t *out, const char **why);
/* carcd's `tiles`: each tile type of these expansions' sets turned rot
 * quarter turns, with the copies a game of them deals and puts at the
 * start (worked out in *scratch, a game's room), as proto/PROTOCOL.md
 * says.  PROTO_E_INVALID_PARAMS and *why when the engine refuses the
 * expansions. */
proto_err proto_tile_types(proto_arena *a, carc_game *scratch, uint32_t expansions, int rot, proto_val **out,
                           const char **why);
/* A player name new_game takes: 1 to PROTO_MAX_NAME bytes of UTF-8, no control characters. */
int proto_name_ok(const char *s, size_t n);
/* The components a game of this configuration has: those given, or its
 * expansions' own. */
uint32_t proto_config_components(const carc_config *cfg);

/* ---- SHA-256 (FIPS 180-4), for the seed commitment ------------------------------------ */
void proto_sha256(const void *data, size_t n, uint8_t out[32]);
/* The frame SHA-256 and SHA-1 share: the message's 64-byte blocks through
 * `block`, then its padded tail; the first `words` words of h, big-endian,
 * are the digest. */
void proto_md_hash(const void *data, size_t n, uint32_t *h, int words, void (*block)(uint32_t *h, const uint8_t *p),
                   uint8_t *out);
void proto_hex(const uint8_t *p, size_t n, char *out); /* 2n digits and a NUL */
int proto_hex_digit(char c); /* 0-15 for 0-9, a-f, A-F; -1 for anything else */

/* ---- WebSocket (RFC 6455), for pages in a browser (proto/PROTOCOL.md 1) ------------------ */
#define PROTO_WS_MAX_HEAD 8192 /* bytes of the handshake's request and headers */

/* Opcodes (RFC 6455 5.2) and the close codes carcd sends (7.4.1). */
enum { PROTO_WS_CONT = 0, PROTO_WS_TEXT = 1, PROTO_WS_BINARY = 2, PROTO_WS_CLOSE = 8, PROTO_WS_PING = 9, PROTO_WS_PONG = 10 };
enum {
	PROTO_WS_NORMAL = 1000,
	PROTO_WS_GOING_AWAY = 1001,
	PROTO_WS_PROTOCOL_ERROR = 1002,
	PROTO_WS_UNSUPPORTED = 1003, /* a message of the other encoding */
	PROTO_WS_BAD_DATA = 1007,    /* bad_request that closes */
	PROTO_WS_TOO_BIG = 1009      /* limit that closes */
};

typedef struct proto_ws_handshake {
	int status;          /* 101, or the HTTP status of the refusal */
	const char *why;     /* the refusal in words */
	const char *key;     /* Sec-WebSocket-Key, in the request */
	size_t key_len;
	const char *origin;  /* Origin, in the request; NULL when absent */
	size_t origin_len;
	char accept[29];     /* Sec-WebSocket-Accept, for 101 */
} proto_ws_handshake;

/* The request and headers up to their blank line, n bytes: fills *hs and
 * returns its status.  The origin is the caller's to judge (403). */
int proto_ws_handshake_parse(const char *req, size_t n, proto_ws_handshake *hs);
/* The length of the request and headers at p[0..n) up to and with the
 * blank line that ends them (CRLF or LF line ends), or 0 before it. */
size_t proto_ws_head_end(const char *p, size_t n);
/* The answer to *hs: 101, or the refusal with its reason as the body. */
void proto_ws_handshake_reply(const proto_ws_handshake *hs, proto_buf *out);
/* Sec-WebSocket-Accept for a key: 28 characters and a NUL. */
void proto_ws_accept(const char *key, size_t n, char out[29]);

typedef struct proto_ws_frame {
	int fin, opcode;
	uint64_t len;        /* of the payload */
	uint8_t mask[4];
	const char *why;     /* what breaks RFC 6455, when -1 */
} proto_ws_frame;

/* A client's frame header at p[0..n): its length in bytes (2 to 14) with
 * *f filled, 0 when more bytes are needed, -1 when it breaks RFC 6455
 * (f->why; the connection is closed with PROTO_WS_PROTOCOL_ERROR). */
int proto_ws_frame_head(const uint8_t *p, size_t n, proto_ws_frame *f);
/* Unmasks n payload bytes that start `at` bytes into the payload. */
void proto_ws_unmask(uint8_t *p, size_t n, const uint8_t mask[4], uint64_t at);
/* A server's frame (final, unmasked): its header, of PROTO_WS_SERVER_HEAD
 * bytes at most, returning its length; or the whole frame. */
#define PROTO_WS_SERVER_HEAD 10
size_t proto_ws_server_head(uint8_t out[PROTO_WS_SERVER_HEAD], int opcode, size_t n);
void proto_ws_frame_add(proto_buf *out, int opcode, const void *payload, size_t n);
/* A close frame: code and reason (cut to fit 125 bytes); code 0 for none. */
void proto_ws_close_add(proto_buf *out, int code, const char *why);

void proto_sha1(const void *data, size_t n, uint8_t out[20]);
void proto_base64(const uint8_t *p, size_t n, char *out); /* 4 characters each 3 bytes, padded, a NUL */

#endif

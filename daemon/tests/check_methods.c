/*
 * check_methods.c - the method table without sockets: requests go in as
 * JSON lines, replies and notifications come back through the server's
 * hooks.  Plays a whole base game with seat tokens and a watcher, checks
 * every error code a method can give, and replays the history.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

/* A fake connection: what it was sent, one JSON message per entry. */
typedef struct fake {
	json_t *got; /* array */
} fake;

static server S;
static fake A, W; /* a player, a watcher */

static proto_enc enc(void *c)
{
	(void)c;
	return PROTO_ENC_JSON;
}

static void deliver(void *c, const uint8_t *p, size_t n)
{
	fake *f = c;
	json_error_t err;
	json_t *j = json_loadb((const char *)p, n, 0, &err);
	ck_assert_msg(j != NULL, "not JSON: %.*s", (int)n, (const char *)p);
	json_array_append_new(f->got, j);
}

static void setup(void)
{
	memset(&S, 0, sizeof S);
	methods_init(&S);
	S.conn_enc = enc;
	S.deliver = deliver;
	A.got = json_array();
	W.got = json_array();
}

static void teardown(void)
{
	methods_free(&S);
	json_decref(A.got);
	json_decref(W.got);
}

static games_subs subs_a, subs_w;

/* Sends one line from `who`; returns its response (owned by who->got). */
static json_t *call(fake *who, const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	size_t before = json_array_size(who->got);
	proto_request rq;
	proto_decoded d = proto_json_decode(&S.arena, line, strlen(line), &rq);
	if (d.code) methods_reply_error(&S, who, &rq, d.code, d.why);
	else methods_handle(&S, who, who == &A ? &subs_a : &subs_w, &rq);
	proto_arena_reset(&S.arena);
	ck_assert_uint_gt(json_array_size(who->got), before);
	return json_array_get(who->got, before);
}

static json_t *result(json_t *resp)
{
	ck_assert_msg(json_is_null(json_array_get(resp, 2)), "error: %s", json_dumps(resp, 0));
	return json_array_get(resp, 3);
}

static const char *error_code(json_t *resp)
{
	json_t *e = json_array_get(resp, 2);
	ck_assert_msg(json_is_object(e), "no error: %s", json_dumps(resp, 0));
	return json_string_value(json_object_get(e, "code"));
}

START_TEST(hello_and_errors)
{
	json_t *r = result(call(&A, "hello {\"client\": \"test\"}"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "protocol")), 1);
	ck_assert_int_eq(json_array_size(json_object_get(r, "methods")), 14); /* the contract's 13 and `tiles` */
	/* carcd's own `tiles`: expansions refused as new_game refuses them, and a rot off the quarter turns */
	json_t *t = result(call(&A, "tiles {\"expansions\": [\"base\", \"river\"]}"));
	ck_assert_int_eq(json_array_size(json_object_get(t, "tiles")), 24 + 10); /* the types of base and River I, the spring among them */
	ck_assert_str_eq(error_code(call(&A, "tiles {\"rot\": 45}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "tiles {\"expansions\": [\"tower\"]}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "nosuch")), "unknown_method");
	ck_assert_str_eq(error_code(call(&A, "state {\"game\": 99}")), "no_such_game");
	ck_assert_str_eq(error_code(call(&A, "state {\"game\": \"x\"}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": []}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\"]}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"expansions\": [\"tower\"]}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"expansions\": [\"nope\"]}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"rules\": {\"nope\": 1}}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"rules\": {\"farmers\": \"yes\"}}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"rules\": {\"farm_scoring\": \"x\"}}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"seed\": -1}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"seed\": 9007199254740992}")), "invalid_params");
	/* a component whose rules do not exist yet, and one that is no component */
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"components\": {\"tower\": true}}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"components\": {\"follower\": true}}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"components\": {\"large\": 1}}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"], \"tiles\": [\"RI/x\"]}")), "invalid_params");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"\"]}")), "invalid_params");
	/* sets without a standard start tile, and no `start`: the message says what to give */
	r = call(&A, "new_game {\"players\": [\"a\"], \"expansions\": [\"cult\"]}");
	ck_assert_str_eq(error_code(r), "invalid_params");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r, 2), "message")),
	                 "`expansions`: without `base`, `river` or `river2` there is no standard start tile; add `base` or give `start`");
	/* a start entry without its rot: the message says what is missing */
	r = call(&A, "new_game {\"players\": [\"a\"], \"start\": [{\"tile\": \"BA/RCr\", \"x\": 0, \"y\": 0}]}");
	ck_assert_str_eq(error_code(r), "invalid_params");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r, 2), "message")),
	                 "start[0]: rot is missing (0, 90, 180 or 270)");
	r = result(call(&A, "new_game {\"players\": [\"a\"], \"rules\": {\"farmers\": false, \"farm_scoring\": \"per-farm-3\"},"
	                    " \"components\": {\"large\": false}, \"seed\": 9007199254740991}"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "game")), 1);
	result(call(&A, "ping"));
	r = result(call(&A, "stats"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "games")), 1);
}
END_TEST

/* The tile and coordinates of a move list entry, for picking one. */
static json_t *pick(json_t *moves, unsigned k)
{
	size_t n = json_array_size(moves);
	ck_assert_uint_gt(n, 0);
	return json_array_get(moves, k % n);
}

START_TEST(full_game)
{
	json_t *g = result(call(&A, "new_game {\"players\": [\"ann\", \"bob\"], \"seed\": 42}"));
	int game = (int)json_integer_value(json_object_get(g, "game"));
	json_t *seats = json_object_get(g, "seats");
	const char *tok[2] = { json_string_value(json_object_get(json_array_get(seats, 0), "token")),
		               json_string_value(json_object_get(json_array_get(seats, 1), "token")) };
	const char *admin = json_string_value(json_object_get(g, "admin_token"));
	const char *commit = json_string_value(json_object_get(json_object_get(g, "state"), "seed_sha256"));
	ck_assert_uint_eq(strlen(commit), 64);
	ck_assert_ptr_null(json_object_get(json_object_get(g, "state"), "seed"));
	result(call(&W, "subscribe {\"game\": %d}", game));

	ck_assert_str_eq(error_code(call(&A, "apply_move {\"game\": %d, \"move\": {\"type\": \"pass\"}}", game)), "forbidden");
	ck_assert_str_eq(error_code(call(&A, "apply_move {\"game\": %d, \"token\": \"00\", \"move\": {\"type\": \"pass\"}}", game)),
	                 "forbidden");
	ck_assert_str_eq(error_code(call(&A, "apply_move {\"game\": %d, \"token\": \"%s\", \"move\": {\"type\": \"pass\"}}", game, tok[1])),
	                 "not_your_turn");
	ck_assert_str_eq(error_code(call(&A, "apply_move {\"game\": %d, \"token\": \"%s\", \"move\": {\"type\": \"pass\"}}", game, tok[0])),
	                 "illegal_move");
	ck_assert_str_eq(error_code(call(&A, "apply_move {\"game\": %d, \"token\": \"%s\", \"seq\": 5, \"move\": {\"type\": \"pass\"}}",
	                                 game, tok[0])),
	                 "conflict");
	ck_assert_str_eq(error_code(call(&A, "apply_move {\"game\": %d, \"token\": \"%s\", \"move\": {\"type\": \"place_tile\", "
	                                 "\"tile\": \"BA/RCr\", \"x\": 9, \"y\": 9, \"rot\": 0}}", game, tok[0])),
	                 "illegal_move");

	unsigned k = 1;
	int seq = 0, notes = 0;
	for (;;) {
		json_t *lm = result(call(&A, "legal_moves {\"game\": %d}", game));
		ck_assert_int_eq(json_integer_value(json_object_get(lm, "seq")), seq);
		if (!strcmp(json_string_value(json_object_get(lm, "phase")), "over")) {
			ck_assert_uint_eq(json_array_size(json_object_get(lm, "moves")), 0);
			ck_assert(json_is_null(json_object_get(lm, "seat")));
			break;
		}
		int seat = (int)json_integer_value(json_object_get(lm, "seat"));
		/* the other seat sees no moves */
		json_t *other = result(call(&A, "legal_moves {\"game\": %d, \"seat\": %d}", game, 1 - seat));
		ck_assert_uint_eq(json_array_size(json_object_get(other, "moves")), 0);
		k = k * 1103515245u + 12345u;
		char *mv = json_dumps(pick(json_object_get(lm, "moves"), k >> 8), JSON_COMPACT);
		json_t *r = result(call(&A, "apply_move {\"game\": %d, \"token\": \"%s\", \"seq\": %d, \"move\": %s}", game, tok[seat], seq, mv));
		free(mv);
		seq++;
		ck_assert_int_eq(json_integer_value(json_object_get(r, "seq")), seq);
		/* the watcher got the same events, in order */
		json_t *note = json_array_get(W.got, json_array_size(W.got) - 1);
		ck_assert_int_eq(json_integer_value(json_array_get(note, 0)), 2);
		ck_assert(json_equal(json_object_get(json_array_get(note, 2), "events"), json_object_get(r, "events")));
		ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(note, 2), "seq")), seq);
		notes++;
	}
	ck_assert_int_gt(seq, 72);
	ck_assert_uint_eq(json_array_size(W.got), (size_t)notes + 1);
	ck_assert_str_eq(error_code(call(&A, "apply_move {\"game\": %d, \"token\": \"%s\", \"move\": {\"type\": \"pass\"}}", game, tok[0])),
	                 "game_over");

	json_t *sc = result(call(&A, "score {\"game\": %d}", game));
	ck_assert(json_is_true(json_object_get(sc, "final")));
	ck_assert(json_equal(json_object_get(sc, "scores"), json_object_get(sc, "if_ended_now")));
	json_t *st = result(call(&A, "state {\"game\": %d}", game));
	ck_assert_int_eq(json_integer_value(json_object_get(st, "seed")), 42);

	/* the commitment holds */
	char text[64];
	uint8_t d[32];
	char hex[65];
	snprintf(text, sizeof text, "42:%s", json_string_value(json_object_get(st, "salt")));
	proto_sha256(text, strlen(text), d);
	proto_hex(d, 32, hex);
	ck_assert_str_eq(hex, commit);

	/* the history replays to the same scores through a fresh game with `tiles` */
	json_t *h = result(call(&A, "history {\"game\": %d}", game));
	json_t *moves = json_object_get(h, "moves");
	ck_assert_int_eq((int)json_array_size(moves), seq);
	char *tiles = json_dumps(json_object_get(h, "tiles"), JSON_COMPACT);
	json_t *g2 = result(call(&A, "new_game {\"players\": [\"x\", \"y\"], \"auth\": false, \"tiles\": %s}", tiles));
	free(tiles);
	int game2 = (int)json_integer_value(json_object_get(g2, "game"));
	size_t i;
	json_t *e;
	json_array_foreach(moves, i, e) {
		char *mv = json_dumps(json_object_get(e, "move"), JSON_COMPACT);
		result(call(&A, "apply_move {\"game\": %d, \"move\": %s}", game2, mv));
		free(mv);
	}
	json_t *sc2 = result(call(&A, "score {\"game\": %d}", game2));
	ck_assert(json_equal(json_object_get(sc, "scores"), json_object_get(sc2, "scores")));

	json_t *gl = result(call(&A, "games"));
	ck_assert_uint_eq(json_array_size(json_object_get(gl, "games")), 2);
	ck_assert_str_eq(error_code(call(&A, "close_game {\"game\": %d, \"admin_token\": \"%s\"}", game, tok[0])), "forbidden");
	result(call(&A, "close_game {\"game\": %d, \"admin_token\": \"%s\"}", game, admin));
	json_t *last = json_array_get(W.got, json_array_size(W.got) - 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(json_array_get(last, 2), "events"), 0), "type")),
	                 "game_closed");
	ck_assert_str_eq(error_code(call(&A, "state {\"game\": %d}", game)), "no_such_game");
	games_unsubscribe_all(&S.games, &W, &subs_w);
	games_unsubscribe_all(&S.games, &A, &subs_a);
}
END_TEST

/* The params of the last message a fake connection got, which must be a
 * notification. */
static json_t *last_note(const fake *c)
{
	json_t *m = json_array_get(c->got, json_array_size(c->got) - 1);
	ck_assert_int_eq(json_integer_value(json_array_get(m, 0)), 2);
	return json_array_get(m, 2);
}

/* subscribe's `state` (carcd's own): each notification carries the decision's
 * keys and the very state `state` answers after the move, and game_closed the
 * state the game was closed in; subscribing again without it turns it off,
 * and a `state` that is no boolean is invalid_params, as `decision`'s is. */
START_TEST(state_notifications)
{
	json_t *g = result(call(&A, "new_game {\"players\": [\"ann\", \"bob\"], \"seed\": 7, \"auth\": false}"));
	int game = (int)json_integer_value(json_object_get(g, "game"));
	const char *admin = json_string_value(json_object_get(g, "admin_token"));
	ck_assert_str_eq(error_code(call(&W, "subscribe {\"game\": %d, \"state\": 1}", game)), "invalid_params");
	ck_assert_str_eq(error_code(call(&W, "subscribe {\"game\": %d, \"state\": \"yes\"}", game)), "invalid_params");
	json_t *r = result(call(&A, "hello"));
	json_t *extras = json_object_get(r, "extras");
	ck_assert_str_eq(json_string_value(json_array_get(extras, json_array_size(extras) - 1)), "subscribe.state");
	result(call(&W, "subscribe {\"game\": %d, \"state\": true}", game));
	for (int i = 0; i < 6; i++) {
		json_t *lm = result(call(&A, "legal_moves {\"game\": %d}", game));
		char *mv = json_dumps(json_array_get(json_object_get(lm, "moves"), 0), JSON_COMPACT);
		r = result(call(&A, "apply_move {\"game\": %d, \"move\": %s}", game, mv));
		free(mv);
		json_t *note = last_note(&W);
		json_t *st = result(call(&A, "state {\"game\": %d}", game));
		ck_assert_uint_eq(json_object_size(note), 7);
		ck_assert(json_equal(json_object_get(note, "state"), st));
		ck_assert(json_equal(json_object_get(note, "events"), json_object_get(r, "events")));
		ck_assert(json_equal(json_object_get(note, "phase"), json_object_get(r, "phase")));
		ck_assert(json_equal(json_object_get(note, "seat"), json_object_get(r, "seat")));
		ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(note, "state"), "seq")), i + 1);
	}
	json_t *st = json_incref(result(call(&A, "state {\"game\": %d}", game)));
	result(call(&A, "close_game {\"game\": %d, \"admin_token\": \"%s\"}", game, admin));
	json_t *note = last_note(&W);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(note, "events"), 0), "type")),
	                 "game_closed");
	ck_assert(json_equal(json_object_get(note, "state"), st));
	json_decref(st);
	/* again, without `state`: the contract's form */
	g = result(call(&A, "new_game {\"players\": [\"ann\"], \"seed\": 7, \"auth\": false}"));
	game = (int)json_integer_value(json_object_get(g, "game"));
	result(call(&W, "subscribe {\"game\": %d, \"state\": true}", game));
	result(call(&W, "subscribe {\"game\": %d}", game));
	json_t *lm = result(call(&A, "legal_moves {\"game\": %d}", game));
	char *mv = json_dumps(json_array_get(json_object_get(lm, "moves"), 0), JSON_COMPACT);
	result(call(&A, "apply_move {\"game\": %d, \"move\": %s}", game, mv));
	free(mv);
	note = last_note(&W);
	ck_assert_uint_eq(json_object_size(note), 3);
	games_unsubscribe_all(&S.games, &W, &subs_w);
	games_unsubscribe_all(&S.games, &A, &subs_a);
}
END_TEST

/* `moves` adds the legal moves of the decision due to the decision's keys
 * (`features`: in legal_moves' features form), beside `state` when asked
 * for too; two watchers of different forms on one game each get theirs
 * from one notification, and game_closed brings no moves. */
START_TEST(moves_notifications)
{
	json_t *g = result(call(&A, "new_game {\"players\": [\"ann\", \"bob\"], \"seed\": 9, \"auth\": false, "
	                            "\"expansions\": [\"base\", \"abbey-mayor\", \"traders-builders\"]}"));
	int game = (int)json_integer_value(json_object_get(g, "game"));
	const char *admin = json_string_value(json_object_get(g, "admin_token"));
	ck_assert_str_eq(error_code(call(&W, "subscribe {\"game\": %d, \"moves\": 1}", game)), "invalid_params");
	ck_assert_str_eq(error_code(call(&W, "subscribe {\"game\": %d, \"features\": true}", game)), "invalid_params");
	result(call(&W, "subscribe {\"game\": %d, \"moves\": true, \"state\": true}", game));
	result(call(&A, "subscribe {\"game\": %d, \"moves\": true, \"features\": true}", game));
	for (int i = 0; i < 12; i++) {
		json_t *lm = result(call(&A, "legal_moves {\"game\": %d}", game));
		json_t *moves = json_object_get(lm, "moves");
		char *mv = json_dumps(json_array_get(moves, json_array_size(moves) - 1), JSON_COMPACT);
		json_t *r = result(call(&A, "apply_move {\"game\": %d, \"move\": %s}", game, mv));
		free(mv);
		json_t *w = last_note(&W), *a = last_note(&A);
		ck_assert_uint_eq(json_object_size(w), 8);
		ck_assert_uint_eq(json_object_size(a), 7);
		ck_assert(json_equal(json_object_get(w, "events"), json_object_get(r, "events")));
		ck_assert(json_equal(json_object_get(a, "events"), json_object_get(r, "events")));
		ck_assert(json_equal(json_object_get(w, "seat"), json_object_get(r, "seat")));
		ck_assert(json_equal(json_object_get(w, "state"), result(call(&A, "state {\"game\": %d}", game))));
		ck_assert(json_equal(json_object_get(w, "moves"),
		                     json_object_get(result(call(&A, "legal_moves {\"game\": %d}", game)), "moves")));
		ck_assert(json_equal(json_object_get(a, "moves"),
		                     json_object_get(result(call(&A, "legal_moves {\"game\": %d, \"features\": true}", game)),
		                                     "moves")));
		ck_assert_uint_gt(json_array_size(json_object_get(a, "moves")), 0);
	}
	result(call(&A, "close_game {\"game\": %d, \"admin_token\": \"%s\"}", game, admin));
	json_t *w = last_note(&W), *a = last_note(&A);
	ck_assert_uint_eq(json_array_size(json_object_get(w, "moves")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(a, "moves")), 0);
	ck_assert(json_is_array(json_object_get(a, "moves")));
	ck_assert(json_is_object(json_object_get(w, "state")));
	games_unsubscribe_all(&S.games, &W, &subs_w);
	games_unsubscribe_all(&S.games, &A, &subs_a);
}
END_TEST

/* A full registry drops its oldest finished game, and refuses when none is. */
START_TEST(registry_full)
{
	S.games.max = 2;
	result(call(&A, "new_game {\"players\": [\"a\"], \"tiles\": [\"BA/RCr\"], \"auth\": false}"));
	json_t *lm = result(call(&A, "legal_moves {\"game\": 1}"));
	char *mv = json_dumps(json_array_get(json_object_get(lm, "moves"), 0), JSON_COMPACT);
	json_t *r = result(call(&A, "apply_move {\"game\": 1, \"move\": %s}", mv));
	free(mv);
	if (!json_is_true(json_object_get(r, "over"))) result(call(&A, "apply_move {\"game\": 1, \"move\": {\"type\": \"pass\"}}"));
	result(call(&A, "new_game {\"players\": [\"a\"]}"));
	result(call(&A, "new_game {\"players\": [\"a\"]}"));
	ck_assert_str_eq(error_code(call(&A, "state {\"game\": 1}")), "no_such_game");
	ck_assert_str_eq(error_code(call(&A, "new_game {\"players\": [\"a\"]}")), "limit");
}
END_TEST

/* --game-timeout: games whose last move is older than the timeout go in
 * one sweep, watched or not, over or not; the others stay, in order, and
 * a watcher hears game_closed as from close_game. */
START_TEST(games_time_out)
{
	json_t *r = result(call(&A, "hello"));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "limits"), "game_timeout")), 0);
	for (int i = 0; i < 5; i++) result(call(&A, "new_game {\"players\": [\"a\"], \"auth\": false}"));
	double now = games_now();
	ck_assert_uint_eq(methods_expire(&S, now + 1e6), 0); /* the option is off */
	S.game_timeout = 100;
	result(call(&W, "subscribe {\"game\": 2}"));
	result(call(&W, "subscribe {\"game\": 3}"));
	/* games 2 and 4 last moved long ago, 5 just under the timeout */
	double last[5] = { now, now - 500, now - 10, now - 101, now - 99 };
	for (int i = 0; i < 5; i++) games_find(&S.games, i + 1)->last = last[i];
	size_t heard = json_array_size(W.got);
	ck_assert_uint_eq(methods_expire(&S, now), 2);
	ck_assert_uint_eq(S.games.n, 3);
	ck_assert_int_eq(S.games.v[0]->id, 1);
	ck_assert_int_eq(S.games.v[1]->id, 3);
	ck_assert_int_eq(S.games.v[2]->id, 5);
	ck_assert_uint_eq(json_array_size(W.got), heard + 1);
	char *note = json_dumps(json_array_get(W.got, heard), JSON_COMPACT);
	ck_assert_str_eq(note, "[2,\"event\",{\"game\":2,\"seq\":0,\"events\":[{\"type\":\"game_closed\"}]}]");
	free(note);
	ck_assert_str_eq(error_code(call(&A, "state {\"game\": 4}")), "no_such_game");
	r = result(call(&A, "stats"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "games_expired")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "games")), 3);
	/* a move starts the count again */
	json_t *lm = result(call(&A, "legal_moves {\"game\": 5}"));
	char *mv = json_dumps(json_array_get(json_object_get(lm, "moves"), 0), JSON_COMPACT);
	result(call(&A, "apply_move {\"game\": 5, \"move\": %s}", mv));
	free(mv);
	ck_assert_uint_eq(methods_expire(&S, now + 95), 1); /* game 3; game 5 would have gone without its move */
	ck_assert_uint_eq(S.games.n, 2);
	ck_assert_int_eq(S.games.v[0]->id, 1);
	ck_assert_int_eq(S.games.v[1]->id, 5);
	r = result(call(&A, "hello"));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "limits"), "game_timeout")), 100);
}
END_TEST

/* A game file's age counts its mtime's nanoseconds: a file written 4.2 s
 * ago is 4.2 s old (less the coarse clock's tick), not 4 or 5, so that a
 * restored game with a 5 s --game-timeout is not closed early. */
START_TEST(file_age_to_the_nanosecond)
{
	struct timespec now, tick;
	clock_gettime(CLOCK_REALTIME, &now);
	clock_getres(CLOCK_REALTIME_COARSE, &tick);
	ck_assert(tick.tv_sec == 0 && tick.tv_nsec < 20000000); /* a tick of at most 20 ms */
	struct timespec written = { now.tv_sec - 5, now.tv_nsec + 800000000 }; /* 4.2 s ago */
	if (written.tv_nsec >= 1000000000) written.tv_sec++, written.tv_nsec -= 1000000000;
	double age = journal_quiet_since(written);
	ck_assert_msg(age > 4.17 && age < 4.25, "a file written 4.2 s ago is %.3f s old", age);
	written = now;
	written.tv_sec += 60; /* from the future (the clock was set back): no age */
	ck_assert(journal_quiet_since(written) == 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("methods");
	TCase *t = tcase_create("methods");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, hello_and_errors);
	tcase_add_test(t, full_game);
	tcase_add_test(t, state_notifications);
	tcase_add_test(t, moves_notifications);
	tcase_add_test(t, registry_full);
	tcase_add_test(t, games_time_out);
	tcase_add_test(t, file_age_to_the_nanosecond);
	suite_add_tcase(s, t);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

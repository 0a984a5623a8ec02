/*
 * methods.c - the methods of PROTOCOL.md section 4: one table, with each
 * method's name, parameter list and handler, reached by both encodings.
 * Parameter types and ranges are checked from the table before a handler
 * runs, so handlers only check what depends on the game.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

/* One request in flight. */
typedef struct method_call {
	server *s;
	proto_arena *a;
	void *conn;
	games_subs *subs;
	const proto_val *params;
	/* set by handlers: what to send the game's watchers after the response */
	games_game *notify_game;
	proto_val *notify;
	games_game *closed;     /* free after the watchers heard of it */
	proto_val *err_data;    /* set with an error: its `data` (illegal_move's reason) */
} method_call;

typedef proto_err method_exec(method_call *c, proto_val **result, const char **why);

typedef struct method {
	const char *name;
	const proto_param *params;
	method_exec *exec;
} method;

#define GAME_ID { .name = "game", .type = PROTO_P_INT, .required = 1, .min = 1, .max = INT64_MAX }
#define END { .name = NULL }

/* ---- helpers ---------------------------------------------------------------- */

static proto_err get_game(method_call *c, games_game **gm, const char **why)
{
	int64_t id = 0;
	pv_to_int(pv_get(c->params, "game"), &id);
	*gm = games_find(&c->s->games, id);
	if (*gm) return PROTO_OK;
	*why = proto_arena_printf(c->a, "there is no game %lld", (long long)id);
	return PROTO_E_NO_SUCH_GAME;
}

static proto_game_meta meta_of(const games_game *gm)
{
	proto_game_meta m = { gm->id, gm->seq, (const char *const *)gm->names, gm->seed_sha256,
		              carc_game_over(gm->g), gm->seed, gm->salt };
	return m;
}

/* The state (PROTOCOL.md 4.2): `state`'s result, new_game's `state`, and
 * a `state` watcher's notifications. */
static proto_val *state_of(proto_arena *a, const games_game *gm)
{
	proto_game_meta m = meta_of(gm);
	return proto_state(a, gm->g, &m);
}

static const char *hex_token(proto_arena *a, const uint8_t *t)
{
	char *s = proto_arena_alloc(a, 2 * GAMES_TOKEN + 1);
	proto_hex(t, GAMES_TOKEN, s);
	return s;
}

static proto_val *rule_value(proto_arena *a, int rule, int value)
{
	const carc_rule_desc *r = carc_rule(rule);
	if (r->type == 0) return pv_str(a, r->values[value]);
	if (r->type == 1) return pv_bool(a, value);
	return pv_int(a, value);
}

/* Sends a finished message to one connection in its encoding. */
static void send_to(server *s, void *conn, const proto_val *msg)
{
	proto_buf_reset(&s->wbuf);
	proto_encode(msg, s->conn_enc(conn), &s->wbuf);
	s->deliver(conn, s->wbuf.p, s->wbuf.len);
}

/* The legal moves of the decision due into s->moves: their number. */
static int list_moves(server *s, const games_game *gm)
{
	int n = carc_legal_moves(gm->g, s->moves, CARC_MAX_MOVES);
	if (n > CARC_MAX_MOVES) {
		log_error("game %lld: %d legal moves, more than the engine's limit", (long long)gm->id, n);
		n = CARC_MAX_MOVES;
	}
	return n;
}

/* A member of one map put into another as well: members are linked
 * through `next`, so each map gets its own node (what it holds is shared). */
static proto_val *member(proto_arena *a, const proto_val *v)
{
	proto_val *m = proto_arena_alloc(a, sizeof *m);
	*m = *v;
	m->next = NULL;
	return m;
}

/* A notification is encoded once per encoding and form, whatever the
 * number of watchers.  A watcher's form is what it subscribed with
 * (GAMES_WANTS_*): the contract's {game, seq, events}; with `decision`,
 * also the phase, seat and over of the game after the move; with `moves`,
 * these and the legal moves of the decision due (none once the game is
 * closed: `closed`); with `state`, these and the state that `state`
 * returns.  The params of msg get each form's keys in turn after the
 * contract's; the moves are listed at most once and the state built at
 * most once, only when a watcher wants them. */
static void publish(server *s, proto_arena *a, games_game *gm, proto_val *msg, int closed)
{
	proto_buf enc[GAMES_FORMS][PROTO_ENC_COUNT] = { { { 0 } } };
	unsigned forms = 0; /* bit w: a watcher wants form w */
	for (int i = 0; i < gm->nsubs; i++) forms |= 1u << gm->subwants[i];
	proto_val *params = msg->u.c.last, contract = *params, *decision = NULL, *moves[2] = { NULL, NULL }, *state = NULL;
	int nmoves = -1; /* the legal moves, listed into s->moves once for both forms of them */
	for (unsigned w = 0; w < GAMES_FORMS; w++) {
		if (!(forms >> w & 1)) continue;
		*params = contract;
		params->u.c.last->next = NULL;
		if (w) { /* every form beyond the contract's has the decision */
			if (!decision) proto_set_decision(a, decision = pv_map(a), gm->g);
			for (const proto_val *m = decision->u.c.first; m; m = m->next) pv_push(params, member(a, m));
		}
		if (w & GAMES_WANTS_MOVES) {
			int f = !!(w & GAMES_WANTS_FEATURES);
			if (nmoves < 0) nmoves = closed ? 0 : list_moves(s, gm);
			if (!moves[f]) moves[f] = proto_moves(a, gm->g, s->moves, nmoves, f);
			pv_set(params, "moves", member(a, moves[f]));
		}
		if (w & GAMES_WANTS_STATE) {
			if (!state) state = state_of(a, gm);
			pv_set(params, "state", member(a, state));
		}
		for (int i = 0; i < gm->nsubs; i++) {
			proto_enc e = s->conn_enc(gm->subs[i]);
			if (gm->subwants[i] == w && !enc[w][e].len) proto_encode(msg, e, &enc[w][e]);
		}
	}
	*params = contract;
	params->u.c.last->next = NULL;
	for (int i = 0; i < gm->nsubs; i++) {
		const proto_buf *b = &enc[gm->subwants[i]][s->conn_enc(gm->subs[i])];
		s->deliver(gm->subs[i], b->p, b->len);
	}
	for (int w = 0; w < GAMES_FORMS; w++)
		for (int e = 0; e < PROTO_ENC_COUNT; e++) proto_buf_free(&enc[w][e]);
}

/* ---- hello, ping, stats, games ------------------------------------------------- */

static const method methods[];

static proto_err m_hello(method_call *c, proto_val **result, const char **why)
{
	(void)why;
	proto_arena *a = c->a;
	proto_val *r = pv_map(a), *ex = pv_array(a), *co = pv_array(a), *ru = pv_array(a), *me = pv_array(a);
	pv_set_str(a, r, "server", CARCD_NAME);
	pv_set_str(a, r, "version", CARC_VERSION);
	pv_set_int(a, r, "protocol", PROTO_VERSION);
	for (int i = 0; i < carc_expansion_count(); i++) {
		const carc_expansion_desc *d = carc_expansion(i);
		proto_val *e = pv_map(a);
		pv_set_str(a, e, "name", d->name);
		pv_set_str(a, e, "tileset", d->tileset);
		pv_set_bool(a, e, "available", d->available);
		pv_push(ex, e);
	}
	uint32_t available = 0;
	for (int i = 0; i < carc_expansion_count(); i++)
		if (carc_expansion(i)->available) available |= carc_expansion(i)->components;
	for (int i = 0; i < CARC_C_NUM; i++) {
		proto_val *e = pv_map(a);
		pv_set_str(a, e, "name", carc_component_name(i));
		pv_set_bool(a, e, "available", available >> i & 1);
		pv_push(co, e);
	}
	static const char *const rule_types[] = { "enum", "boolean", "integer" };
	for (int i = 0; i < CARC_R_COUNT; i++) {
		const carc_rule_desc *d = carc_rule(i);
		proto_val *e = pv_map(a);
		pv_set_str(a, e, "key", d->key);
		pv_set_str(a, e, "type", rule_types[d->type]);
		proto_val *vs = pv_array(a);
		if (d->type == 0) {
			for (int j = 0; d->values[j]; j++) pv_push(vs, pv_str(a, d->values[j]));
		} else if (d->type == 1) { /* the default first, as an enum's */
			pv_push(vs, pv_bool(a, d->def != 0));
			pv_push(vs, pv_bool(a, d->def == 0));
		} else {
			pv_set_int(a, e, "min", 0);
			pv_set_int(a, e, "max", PROTO_MAX_RULE_INT);
		}
		if (d->type != 2) pv_set(e, "values", vs);
		pv_set(e, "default", rule_value(a, i, d->def));
		pv_set_bool(a, e, "implemented", d->implemented);
		pv_push(ru, e);
	}
	for (const method *m = methods; m->name; m++) pv_push(me, pv_str(a, m->name));
	pv_set(r, "expansions", ex);
	pv_set(r, "components", co);
	pv_set(r, "rules", ru);
	pv_set(r, "methods", me);
	proto_val *lim = pv_map(a);
	pv_set_int(a, lim, "max_request", (int64_t)c->s->max_request);
	pv_set_int(a, lim, "max_line", (int64_t)c->s->max_line);
	pv_set_int(a, lim, "max_depth", PROTO_MAX_DEPTH);
	pv_set_int(a, lim, "max_games", (int64_t)c->s->games.max);
	pv_set_int(a, lim, "idle_timeout", c->s->idle_timeout); /* seconds: a client pings within it */
	pv_set_int(a, lim, "game_timeout", c->s->game_timeout); /* seconds without a move; 0: never */
	pv_set(r, "limits", lim);
	/* parameters beyond the contract, as METHOD.PARAM: an older carcd, or
	 * another server, ignores what it does not know, so a client looks here */
	proto_val *extras = pv_array(a);
	pv_push(extras, pv_str(a, "legal_moves.features"));
	pv_push(extras, pv_str(a, "legal_moves.move"));
	pv_push(extras, pv_str(a, "subscribe.decision"));
	pv_push(extras, pv_str(a, "subscribe.features"));
	pv_push(extras, pv_str(a, "subscribe.moves"));
	pv_push(extras, pv_str(a, "subscribe.state"));
	pv_set(r, "extras", extras);
	*result = r;
	return PROTO_OK;
}

static proto_err m_ping(method_call *c, proto_val **result, const char **why)
{
	(void)why;
	*result = pv_map(c->a);
	return PROTO_OK;
}

/* Resident memory from /proc, 0 where there is none. */
static int64_t rss_bytes(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f) return 0;
	if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
	fclose(f);
	long page = sysconf(_SC_PAGESIZE); /* 4 KiB here, 64 KiB on some arm64 and ppc64 kernels */
	return (int64_t)rss * (page > 0 ? page : 4096);
}

static proto_err m_stats(method_call *c, proto_val **result, const char **why)
{
	(void)why;
	proto_arena *a = c->a;
	server *s = c->s;
	proto_val *r = pv_map(a), *errs = pv_map(a), *mem = pv_map(a);
	pv_set(r, "uptime", pv_float(a, games_now() - s->started));
	pv_set_int(a, r, "connections", s->conns);
	pv_set_int(a, r, "connections_total", (int64_t)s->conns_total);
	pv_set_int(a, r, "connections_refused", (int64_t)s->conns_refused);
	pv_set_int(a, r, "games", (int64_t)s->games.n);
	pv_set_int(a, r, "games_total", (int64_t)s->games.created_total);
	pv_set_int(a, r, "games_evicted", (int64_t)s->games.evicted_total);
	pv_set_int(a, r, "games_expired", (int64_t)s->games.expired_total);
	pv_set_int(a, r, "requests", (int64_t)s->requests);
	for (int e = 1; e < PROTO_E_COUNT; e++) pv_set_int(a, errs, proto_strerror((proto_err)e), (int64_t)s->errors[e]);
	pv_set(r, "errors", errs);
	pv_set_int(a, mem, "rss", rss_bytes());
	pv_set_int(a, mem, "games", (int64_t)s->games.bytes);
	pv_set_int(a, mem, "per_game", s->games.n ? (int64_t)(s->games.bytes / s->games.n) : 0);
	pv_set(r, "memory", mem);
	*result = r;
	return PROTO_OK;
}

static proto_val *summary(proto_arena *a, const games_game *gm)
{
	proto_val *v = pv_map(a), *names = pv_array(a);
	pv_set_int(a, v, "game", gm->id);
	for (int i = 0; i < gm->nseats; i++) pv_push(names, pv_str(a, gm->names[i]));
	pv_set(v, "players", names);
	pv_set_int(a, v, "seq", gm->seq);
	pv_set_str(a, v, "phase", carc_phase_name(carc_game_phase(gm->g)));
	int seat = carc_game_seat(gm->g);
	pv_set(v, "seat", seat < 0 ? pv_nil(a) : pv_int(a, seat));
	pv_set_bool(a, v, "over", carc_game_over(gm->g));
	pv_set_bool(a, v, "auth", gm->auth);
	pv_set_int(a, v, "watchers", gm->nsubs);
	return v;
}

static proto_err m_games(method_call *c, proto_val **result, const char **why)
{
	(void)why;
	int64_t after = 0, limit = INT64_MAX; /* without a limit, every game (PROTOCOL.md) */
	pv_to_int(pv_opt(c->params, "after"), &after);
	pv_to_int(pv_opt(c->params, "limit"), &limit);
	games *r = &c->s->games;
	proto_val *res = pv_map(c->a), *list = pv_array(c->a);
	size_t i = games_index_after(r, after);
	for (; i < r->n && (int64_t)list->n < limit; i++) pv_push(list, summary(c->a, r->v[i]));
	pv_set(res, "games", list);
	pv_set_bool(c->a, res, "more", i < r->n);
	*result = res;
	return PROTO_OK;
}

/* carcd's own: what is printed on each tile of some expansions, and how
 * many copies a game of them deals (proto/tiles.c). */
static proto_err m_tiles(method_call *c, proto_val **result, const char **why)
{
	carc_config dflt; /* new_game's default expansions: the base game */
	carc_config_init(&dflt);
	uint32_t expansions = dflt.expansions;
	proto_err rc = proto_expansions_parse(c->a, pv_opt(c->params, "expansions"), &expansions, why);
	if (rc) return rc;
	const proto_val *given = pv_opt(c->params, "rot");
	int rot = given ? proto_quarter_turns(given) : 0;
	if (rot < 0) {
		*why = "`rot` is 0, 90, 180 or 270";
		return PROTO_E_INVALID_PARAMS;
	}
	return proto_tile_types(c->a, c->s->scratch, expansions, rot, result, why);
}

/* ---- new_game ---------------------------------------------------------------------- */

#define INVALID(...) (*why = proto_arena_printf(a, __VA_ARGS__), PROTO_E_INVALID_PARAMS)

/* Whether the tile type has a river edge. */
static int river_tile(int type)
{
	for (int dir = 0; dir < 4; dir++)
		if (!strcmp(carc_tile_edge(type, 0, dir), "river")) return 1;
	return 0;
}

/* Whether a game dealt its supply (no `tiles`) from these start tiles
 * would lose river tiles before the first move: the first river tile of
 * the game's deal fits nowhere (no river end open, or no room ahead of
 * one for that tile), and is discarded at set-up.  Which tile comes first
 * is the seed's, so start tiles that crowd the spring's mouth may pass
 * with one seed and not with another.  Tried on the scratch game; returns
 * the tile discarded, or -1 (a game the engine refuses is left to the
 * caller). */
static int start_loses_river(carc_game *scratch, const carc_config *cfg)
{
	carc_event ev[64]; /* the start tiles, the turn, then the first draws */
	carc_sink sink = { ev, 0, 64 };
	if (carc_game_init(scratch, cfg, &sink) != CARC_OK) return -1;
	for (int i = 0; i < sink.n && i < 64; i++)
		if (ev[i].type == CARC_EV_TILE_DISCARDED && river_tile(ev[i].tile)) return ev[i].tile;
	return -1;
}

/* Whether a game of these expansions, given no `start`, has a start tile:
 * the engine places the standard one (the base game's, or a river set's
 * spring) and refuses a game whose sets have none.  Asked of a game of
 * them alone, in the scratch game, so that nothing else can be the cause. */
static int has_standard_start(carc_game *scratch, uint32_t expansions)
{
	carc_config probe;
	carc_config_init(&probe);
	probe.expansions = expansions;
	return carc_game_init(scratch, &probe, NULL) != CARC_E_ARG;
}

/* A game without `start` whose expansions bring no start tile: the sets
 * that would bring one are named, so the player knows what to add. */
static proto_err no_start_tile(proto_arena *a, carc_game *scratch, const char **why)
{
	uint32_t with = 0;
	int count = 0, n = 0;
	for (int e = 0; e < carc_expansion_count(); e++)
		if (carc_expansion(e)->available && has_standard_start(scratch, 1u << e)) {
			with |= 1u << e;
			count++;
		}
	char list[256] = "";
	for (int e = 0; e < carc_expansion_count(); e++) {
		if (!(with >> e & 1)) continue;
		const char *sep = n == 0 ? "" : n == count - 1 ? " or " : ", ";
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s`%s`", sep, carc_expansion(e)->name);
		n++;
	}
	return INVALID("`expansions`: without %s there is no standard start tile; add `base` or give `start`", list);
}

static proto_err m_new_game(method_call *c, proto_val **result, const char **why)
{
	proto_arena *a = c->a;
	const proto_val *p = c->params;
	carc_config cfg;
	const char *names[CARC_MAX_SEATS];
	proto_err rc = proto_setup_parse(a, p, &cfg, names, why);
	if (rc) return rc;
	int64_t seed;
	if (pv_to_int(pv_opt(p, "seed"), &seed)) {
		cfg.seed = (uint64_t)seed;
	} else {
		games_random(&cfg.seed, sizeof cfg.seed);
		cfg.seed &= (uint64_t)PROTO_MAX_SEED;
	}
	/* tried with the game's own seed: the river tiles' order is its deal */
	int lost = cfg.nstart && !cfg.ntiles ? start_loses_river(c->s->scratch, &cfg) : -1;
	if (lost >= 0)
		return INVALID("`start`: the river tiles, which come first, find no open river end to continue: the "
		               "first of this deal, %s, fits nowhere (a river game starts at the spring `RI/s`, its "
		               "mouth free and the places ahead of it empty; which river tile comes first depends on "
		               "`seed`); give the spring room, or leave `start` out",
		               carc_tile_id(lost));
	const proto_val *auth = pv_opt(p, "auth");
	carc_rc crc;
	int full;
	games_game *gm = games_create(&c->s->games, &cfg, names, !auth || auth->u.b, NULL, &crc, &full);
	if (full == 2) {
		*why = "every game id up to 2^53-1 has been given";
		return PROTO_E_LIMIT;
	}
	if (full) {
		*why = proto_arena_printf(a, "the server holds %zu game%s, its limit, each still in play or watched", c->s->games.max,
		                          c->s->games.max == 1 ? "" : "s");
		return PROTO_E_LIMIT;
	}
	int bad = !gm && crc == CARC_E_ARG ? carc_config_start_mismatch(&cfg) : -1;
	if (bad >= 0) {
		const carc_start_tile *st = &cfg.start[bad];
		return INVALID("start[%d]: %s at (%d,%d) turned %d° does not match the start tiles next to it", bad,
		               carc_tile_id(st->tile), st->x, st->y, st->rot * 90);
	}
	if (!gm && crc == CARC_E_ARG && !cfg.nstart && !has_standard_start(c->s->scratch, cfg.expansions))
		return no_start_tile(a, c->s->scratch, why);
	if (!gm) return INVALID("the engine refused this game: %s", carc_strerror(crc));
	proto_val *r = pv_map(a), *seats = pv_array(a);
	pv_set_int(a, r, "game", gm->id);
	for (int i = 0; i < gm->nseats; i++) {
		proto_val *s = pv_map(a);
		pv_set_int(a, s, "seat", i);
		pv_set_str(a, s, "name", gm->names[i]);
		pv_set_str(a, s, "token", hex_token(a, gm->token[i]));
		pv_push(seats, s);
	}
	pv_set(r, "seats", seats);
	pv_set_str(a, r, "admin_token", hex_token(a, gm->admin));
	pv_set(r, "state", state_of(a, gm));
	log_debug("game %lld: new, %d seat%s", (long long)gm->id, gm->nseats, gm->nseats == 1 ? "" : "s");
	*result = r;
	return PROTO_OK;
}

/* ---- state, legal_moves, apply_move, score --------------------------------------------- */

static proto_err m_state(method_call *c, proto_val **result, const char **why)
{
	games_game *gm;
	proto_err rc = get_game(c, &gm, why);
	if (rc) return rc;
	*result = state_of(c->a, gm);
	return PROTO_OK;
}

static proto_err check_turn(method_call *c, const games_game *gm, int seat, const char **why);

/* Is the move legal now?  Else illegal_move, and why not. */
static proto_err check_legal(method_call *c, const games_game *gm, const carc_move *m, const char **why)
{
	int detail = -1;
	carc_rc crc = carc_check_move(gm->g, m, &detail);
	if (crc == CARC_OK) return PROTO_OK;
	*why = proto_move_explain(c->a, gm->g, m, crc, detail, &c->err_data);
	return PROTO_E_ILLEGAL_MOVE;
}

/* A move from the request's `move`, parsed: an illegal_move there (a move
 * type of an expansion carcd does not play yet) has its reason too. */
static proto_err parse_move(method_call *c, const games_game *gm, const proto_val *v, carc_move *m, const char **why)
{
	proto_err rc = proto_move_parse(c->a, gm->g, v, m, why);
	if (rc == PROTO_E_ILLEGAL_MOVE) {
		c->err_data = pv_map(c->a);
		pv_set_str(c->a, c->err_data, "reason", PROTO_REASON_NOT_IN_GAME);
	}
	return rc;
}

/* legal_moves with `move` (an extra): of the n moves listed, only the one
 * `ask` is, moved to the front; or none, and in *code and *whynot what
 * apply_move would refuse it with (game_over, not_your_turn for a `seat`
 * that does not decide, illegal_move), checked in apply_move's order.  A
 * move that is not well formed is an error of the request. */
static proto_err one_move(method_call *c, const games_game *gm, const proto_val *ask, int seat, int *n,
                          proto_err *code, const char **whynot, const char **why)
{
	*code = PROTO_OK;
	if (carc_game_over(gm->g)) {
		*code = PROTO_E_GAME_OVER;
		*whynot = proto_arena_printf(c->a, "game %lld is over", (long long)gm->id);
	} else if (check_turn(c, gm, seat, whynot)) {
		*code = PROTO_E_NOT_YOUR_TURN;
	}
	if (*code) {
		*n = 0;
		return PROTO_OK;
	}
	carc_move m;
	proto_err rc = parse_move(c, gm, ask, &m, why); /* illegal_move: of an expansion not built yet */
	if (!rc) rc = check_legal(c, gm, &m, why);
	if (rc == PROTO_E_ILLEGAL_MOVE) {
		*code = rc;
		*whynot = *why;
		*n = 0;
		return PROTO_OK;
	}
	if (rc) return rc;
	int i = carc_move_index(gm->g, c->s->moves, *n, &m);
	if (i < 0) {
		log_error("game %lld: a legal move is not among the %d listed", (long long)gm->id, *n);
		*why = "the engine does not list a move it takes";
		return PROTO_E_INTERNAL;
	}
	c->s->moves[0] = c->s->moves[i];
	*n = 1;
	return PROTO_OK;
}

static proto_err m_legal_moves(method_call *c, proto_val **result, const char **why)
{
	proto_arena *a = c->a;
	games_game *gm;
	proto_err rc = get_game(c, &gm, why);
	if (rc) return rc;
	int64_t seat = -1;
	if (pv_to_int(pv_opt(c->params, "seat"), &seat) && seat >= gm->nseats)
		return INVALID("game %lld has seats 0 to %d", (long long)gm->id, gm->nseats - 1);
	int due = carc_game_seat(gm->g), n = 0;
	if (seat < 0 || seat == due) n = list_moves(c->s, gm);
	const proto_val *ask = pv_opt(c->params, "move");
	const char *whynot = NULL;
	proto_err code = PROTO_OK;
	if (ask && (rc = one_move(c, gm, ask, (int)seat, &n, &code, &whynot, why))) return rc;
	proto_val *r = pv_map(a);
	pv_set_int(a, r, "game", gm->id);
	pv_set_int(a, r, "seq", gm->seq);
	pv_set_str(a, r, "phase", carc_phase_name(carc_game_phase(gm->g)));
	pv_set(r, "seat", due < 0 ? pv_nil(a) : pv_int(a, due));
	const proto_val *features = pv_opt(c->params, "features");
	pv_set(r, "moves", proto_moves(a, gm->g, c->s->moves, n, features && features->u.b));
	if (code) {
		proto_val *w = pv_set(r, "why", pv_map(a));
		pv_set_str(a, w, "code", proto_strerror(code));
		pv_set_str(a, w, "message", whynot);
		if (code == PROTO_E_ILLEGAL_MOVE && c->err_data) pv_set(w, "data", c->err_data);
	}
	*result = r;
	return PROTO_OK;
}

/* The seat whose token the request gives (*seat; -1 in a game without
 * auth): a token of no seat of this game is forbidden. */
static proto_err token_seat(method_call *c, const games_game *gm, int *seat, const char **why)
{
	*seat = -1;
	if (!gm->auth) return PROTO_OK;
	const proto_val *t = pv_opt(c->params, "token");
	if (!t) {
		*why = "this game needs `token`, the token of the seat that must decide";
		return PROTO_E_FORBIDDEN;
	}
	if ((*seat = games_token_seat(gm, t->u.s)) < 0) {
		*why = proto_arena_printf(c->a, "that token belongs to no seat of game %lld", (long long)gm->id);
		return PROTO_E_FORBIDDEN;
	}
	return PROTO_OK;
}

/* May `seat` (token_seat's) decide now? */
static proto_err check_turn(method_call *c, const games_game *gm, int seat, const char **why)
{
	proto_arena *a = c->a;
	int due = carc_game_seat(gm->g);
	if (seat < 0 || seat == due) return PROTO_OK;
	/* in a phase of its own (a wagon, an escape, a flock) the seat due may
	 * not be the one whose turn it is */
	int phase = carc_game_phase(gm->g);
	if (phase == CARC_PH_TILE || phase == CARC_PH_ACTION)
		*why = proto_arena_printf(a, "it is the turn of seat %d (%s), not of seat %d (%s)", due, gm->names[due], seat,
		                          gm->names[seat]);
	else
		*why = proto_arena_printf(a, "seat %d (%s) must decide now (the %s phase), not seat %d (%s)", due,
		                          gm->names[due], carc_phase_name(phase), seat, gm->names[seat]);
	return PROTO_E_NOT_YOUR_TURN;
}

static proto_err m_apply_move(method_call *c, proto_val **result, const char **why)
{
	proto_arena *a = c->a;
	server *s = c->s;
	games_game *gm;
	proto_err rc = get_game(c, &gm, why);
	if (rc) return rc;
	if (carc_game_over(gm->g)) {
		*why = proto_arena_printf(a, "game %lld is over", (long long)gm->id);
		return PROTO_E_GAME_OVER;
	}
	int seat;
	if ((rc = token_seat(c, gm, &seat, why))) return rc;
	/* seq before the turn: a move sent again after it was played, be it
	 * the last of its seat's turn or not, is a conflict */
	int64_t seq;
	if (pv_to_int(pv_opt(c->params, "seq"), &seq) && seq != gm->seq) {
		*why = proto_arena_printf(a, "seq %lld is not current: game %lld is at seq %u", (long long)seq, (long long)gm->id,
		                          gm->seq);
		return PROTO_E_CONFLICT;
	}
	if ((rc = check_turn(c, gm, seat, why))) return rc;
	carc_move m;
	if ((rc = parse_move(c, gm, pv_get(c->params, "move"), &m, why))) return rc;
	if ((rc = check_legal(c, gm, &m, why))) return rc;
	carc_sink sink = { s->events, 0, CARC_MAX_EVENTS };
	carc_rc crc = carc_apply(gm->g, &m, &sink);
	if (crc != CARC_OK) { /* carc_check_move said yes a moment ago */
		log_error("game %lld: a checked move failed: %s", (long long)gm->id, carc_strerror(crc));
		*why = "the engine refused a move it had accepted";
		return PROTO_E_INTERNAL;
	}
	if (sink.n > sink.cap) {
		log_error("game %lld: %d events, more than the engine's limit", (long long)gm->id, sink.n);
		sink.n = sink.cap;
	}
	games_record(&s->games, gm, &m);
	proto_val *r = pv_map(a);
	pv_set_int(a, r, "seq", gm->seq);
	pv_set(r, "events", proto_events(a, gm->g, sink.ev, sink.n));
	proto_set_decision(a, r, gm->g);
	*result = r;
	if (gm->nsubs) {
		/* a value sits in one container only: the watchers get their own */
		c->notify_game = gm;
		c->notify = proto_notification(a, gm->id, gm->seq, proto_events(a, gm->g, sink.ev, sink.n));
	}
	if (carc_game_over(gm->g)) log_debug("game %lld: over after %u moves", (long long)gm->id, gm->seq);
	return PROTO_OK;
}

static proto_err m_score(method_call *c, proto_val **result, const char **why)
{
	proto_arena *a = c->a;
	games_game *gm;
	proto_err rc = get_game(c, &gm, why);
	if (rc) return rc;
	proto_val *r = pv_map(a), *by = pv_array(a);
	pv_set(r, "scores", proto_scores(a, gm->g));
	pv_set_bool(a, r, "final", carc_game_over(gm->g));
	for (int s = 0; s < gm->nseats; s++) {
		proto_val *e = pv_map(a), *parts = pv_map(a);
		pv_set_int(a, e, "seat", s);
		for (int k = 0; k < CARC_SC_COUNT; k++) pv_set_int(a, parts, carc_sc_name(k), carc_game_score_by(gm->g, s, k));
		pv_set(e, "by", parts);
		pv_push(by, e);
	}
	pv_set(r, "breakdown", by);
	carc_game_clone(c->s->scratch, gm->g);
	carc_end_now(c->s->scratch, NULL);
	pv_set(r, "if_ended_now", proto_scores(a, c->s->scratch));
	*result = r;
	return PROTO_OK;
}

/* ---- history ------------------------------------------------------------------------------- */

static proto_val *setup_of(proto_arena *a, const games_game *gm, const carc_config *cfg)
{
	proto_val *s = pv_map(a), *players = pv_array(a), *ex = pv_array(a), *rules = pv_map(a);
	for (int i = 0; i < gm->nseats; i++) pv_push(players, pv_str(a, gm->names[i]));
	pv_set(s, "players", players);
	for (int e = 0; e < carc_expansion_count(); e++)
		if (cfg->expansions >> e & 1) pv_push(ex, pv_str(a, carc_expansion(e)->name));
	pv_set(s, "expansions", ex);
	proto_val *co = pv_map(a);
	for (int c = 0; c < CARC_C_NUM; c++)
		if (cfg->components_given && (cfg->components ^ carc_default_components(cfg->expansions)) >> c & 1)
			pv_set_bool(a, co, carc_component_name(c), cfg->components >> c & 1);
	pv_set(s, "components", co);
	for (int r = 0; r < CARC_R_COUNT; r++) pv_set(rules, carc_rule(r)->key, rule_value(a, r, cfg->rules[r]));
	pv_set(s, "rules", rules);
	pv_set_bool(a, s, "auth", gm->auth);
	/* the supply order is secret until the end, even when it was given */
	if (cfg->ntiles && carc_game_over(gm->g)) {
		proto_val *t = pv_array(a);
		for (int i = 0; i < cfg->ntiles; i++) pv_push(t, pv_str(a, carc_tile_id(cfg->tiles[i])));
		pv_set(s, "tiles", t);
	}
	if (cfg->nbag && carc_game_over(gm->g)) { /* the bag's order, likewise */
		proto_val *t = pv_array(a);
		for (int i = 0; i < cfg->nbag; i++)
			pv_push(t, cfg->bag[i] == CARC_WOLF ? pv_str(a, "wolf") : pv_int(a, cfg->bag[i]));
		pv_set(s, "bag", t);
	}
	if (cfg->nstart) {
		proto_val *t = pv_array(a);
		for (int i = 0; i < cfg->nstart; i++) {
			proto_val *e = pv_map(a);
			pv_set_str(a, e, "tile", carc_tile_id(cfg->start[i].tile));
			pv_set_int(a, e, "x", cfg->start[i].x);
			pv_set_int(a, e, "y", cfg->start[i].y);
			pv_set_int(a, e, "rot", cfg->start[i].rot * 90);
			pv_push(t, e);
		}
		pv_set(s, "start", t);
	}
	return s;
}

/* Events of one step of the replay, each marked with the seq it led to;
 * drawn tiles and those hidden under hills (the engine names them, the
 * wire does not) are collected for the tile order: the supply as dealt,
 * so not a tile put back under the supply coming round again (wherever
 * it was put: the bottom, or among the river tiles still to come). */
static void replay_events(proto_arena *a, const carc_game *g, const carc_sink *sink, uint32_t seq, proto_val *out,
                          proto_val *drawn)
{
	int n = sink->n < sink->cap ? sink->n : sink->cap;
	for (int i = 0; i < n; i++) {
		const carc_event *e = &sink->ev[i];
		proto_val *v = proto_event(a, g, e);
		pv_set_int(a, v, "seq", seq);
		pv_push(out, v);
		if ((e->type == CARC_EV_TILE_DRAWN || e->type == CARC_EV_TILE_HIDDEN) && e->why != CARC_WHY_RESHUFFLED)
			pv_push(drawn, pv_str(a, carc_tile_id(e->tile)));
	}
}

static proto_err m_history(method_call *c, proto_val **result, const char **why)
{
	proto_arena *a = c->a;
	server *s = c->s;
	games_game *gm;
	proto_err rc = get_game(c, &gm, why);
	if (rc) return rc;
	/* the game's own copy of its config is what it was made with */
	carc_config cfg = *carc_game_config(gm->g);
	carc_game *g = s->scratch;
	carc_sink sink = { s->events, 0, CARC_MAX_EVENTS };
	proto_val *r = pv_map(a), *moves = pv_array(a), *events = pv_array(a), *drawn = pv_array(a);
	if (carc_game_init(g, &cfg, &sink) != CARC_OK) goto broken;
	replay_events(a, g, &sink, 0, events, drawn);
	for (uint32_t i = 0; i < gm->seq; i++) {
		carc_move m;
		games_move_get(gm, i, &m);
		int seat = carc_game_seat(g);
		sink.n = 0;
		if (carc_apply(g, &m, &sink) != CARC_OK) goto broken;
		proto_val *e = pv_map(a);
		pv_set_int(a, e, "seq", i + 1);
		pv_set_int(a, e, "seat", seat);
		pv_set(e, "move", proto_move(a, g, &m));
		pv_push(moves, e);
		replay_events(a, g, &sink, i + 1, events, drawn);
	}
	if (carc_game_hash(g) != carc_game_hash(gm->g)) goto broken;
	pv_set_int(a, r, "game", gm->id);
	pv_set(r, "setup", setup_of(a, gm, &cfg));
	pv_set(r, "moves", moves);
	pv_set(r, "events", events);
	if (carc_game_over(gm->g)) {
		pv_set_int(a, r, "seed", (int64_t)gm->seed);
		pv_set_str(a, r, "salt", gm->salt);
		pv_set(r, "tiles", drawn);
	}
	*result = r;
	return PROTO_OK;
broken:
	log_error("game %lld: its replay differs from the game", (long long)gm->id);
	*why = "the game's history does not replay";
	return PROTO_E_INTERNAL;
}

/* ---- close_game, subscribe, unsubscribe ---------------------------------------------------- */

/* The last notification of a game's watchers. */
static proto_val *closed_notice(proto_arena *a, const games_game *gm)
{
	proto_val *ev = pv_array(a), *e = pv_map(a);
	pv_set_str(a, e, "type", "game_closed");
	pv_push(ev, e);
	return proto_notification(a, gm->id, gm->seq, ev);
}

static proto_err m_close_game(method_call *c, proto_val **result, const char **why)
{
	games_game *gm;
	proto_err rc = get_game(c, &gm, why);
	if (rc) return rc;
	if (!games_token_admin(gm, pv_get(c->params, "admin_token")->u.s)) {
		*why = "that is not the admin token of this game";
		return PROTO_E_FORBIDDEN;
	}
	if (gm->nsubs) {
		c->notify_game = gm;
		c->notify = closed_notice(c->a, gm);
	}
	c->closed = gm;
	log_debug("game %lld: closed", (long long)gm->id);
	*result = pv_map(c->a);
	return PROTO_OK;
}

static proto_err seq_result(method_call *c, const games_game *gm, proto_val **result)
{
	*result = pv_map(c->a);
	pv_set_int(c->a, *result, "seq", gm->seq);
	return PROTO_OK;
}

static proto_err m_subscribe(method_call *c, proto_val **result, const char **why)
{
	proto_arena *a = c->a;
	/* the form is set anew each time: what is not asked for now is off */
	static const struct { const char *name; unsigned wants; } asks[] = {
		{ "decision", GAMES_WANTS_DECISION },
		/* the forms with the state or the moves have the decision's keys too */
		{ "state", GAMES_WANTS_DECISION | GAMES_WANTS_STATE },
		{ "moves", GAMES_WANTS_DECISION | GAMES_WANTS_MOVES },
		{ "features", GAMES_WANTS_FEATURES },
	};
	unsigned wants = 0;
	for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++) {
		const proto_val *v = pv_opt(c->params, asks[i].name);
		if (v && v->u.b) wants |= asks[i].wants;
	}
	if ((wants & GAMES_WANTS_FEATURES) && !(wants & GAMES_WANTS_MOVES))
		return INVALID("`features` is the form of the moves that `moves: true` asks for; there are none without it");
	games_game *gm;
	proto_err rc = get_game(c, &gm, why);
	if (rc) return rc;
	if (games_subscribe(&c->s->games, gm, c->conn, c->subs, wants) < 0) {
		*why = proto_arena_printf(c->a, "a connection may watch at most %d games", CARCD_MAX_SUBSCRIPTIONS);
		return PROTO_E_LIMIT;
	}
	return seq_result(c, gm, result);
}

static proto_err m_unsubscribe(method_call *c, proto_val **result, const char **why)
{
	games_game *gm;
	proto_err rc = get_game(c, &gm, why);
	if (rc) return rc;
	games_unsubscribe(gm, c->conn, c->subs);
	return seq_result(c, gm, result);
}

/* ---- the table ------------------------------------------------------------------------------ */

static const proto_param p_none[] = { END };
static const proto_param p_hello[] = { { .name = "client", .type = PROTO_P_STR }, END };
static const proto_param p_game[] = { GAME_ID, END };
static const proto_param p_legal_moves[] = {
	GAME_ID, { .name = "seat", .type = PROTO_P_INT, .min = 0, .max = CARC_MAX_SEATS - 1 },
	{ .name = "features", .type = PROTO_P_BOOL }, { .name = "move", .type = PROTO_P_MAP }, END
};
static const proto_param p_apply_move[] = {
	GAME_ID,
	{ .name = "token", .type = PROTO_P_STR },
	{ .name = "move", .type = PROTO_P_MAP, .required = 1 },
	{ .name = "seq", .type = PROTO_P_INT }, /* any other number than the current one is a conflict */
	END
};
static const proto_param p_games[] = {
	{ .name = "after", .type = PROTO_P_INT, .min = 0, .max = INT64_MAX },
	{ .name = "limit", .type = PROTO_P_INT, .min = 1, .max = 10000 },
	END
};
static const proto_param p_tiles[] = {
	{ .name = "expansions", .type = PROTO_P_ARRAY }, { .name = "rot", .type = PROTO_P_INT }, END
};
static const proto_param p_subscribe[] = {
	GAME_ID, { .name = "decision", .type = PROTO_P_BOOL }, { .name = "state", .type = PROTO_P_BOOL },
	{ .name = "moves", .type = PROTO_P_BOOL }, { .name = "features", .type = PROTO_P_BOOL }, END
};
static const proto_param p_close_game[] = { GAME_ID, { .name = "admin_token", .type = PROTO_P_STR, .required = 1 }, END };

static const method methods[] = {
	{ .name = "hello", .params = p_hello, .exec = m_hello },
	{ .name = "new_game", .params = proto_new_game_params, .exec = m_new_game }, /* proto/setup.c */
	{ .name = "state", .params = p_game, .exec = m_state },
	{ .name = "legal_moves", .params = p_legal_moves, .exec = m_legal_moves },
	{ .name = "apply_move", .params = p_apply_move, .exec = m_apply_move },
	{ .name = "score", .params = p_game, .exec = m_score },
	{ .name = "history", .params = p_game, .exec = m_history },
	{ .name = "games", .params = p_games, .exec = m_games },
	{ .name = "close_game", .params = p_close_game, .exec = m_close_game },
	{ .name = "subscribe", .params = p_subscribe, .exec = m_subscribe },
	{ .name = "unsubscribe", .params = p_game, .exec = m_unsubscribe },
	{ .name = "tiles", .params = p_tiles, .exec = m_tiles },
	{ .name = "stats", .params = p_none, .exec = m_stats },
	{ .name = "ping", .params = p_none, .exec = m_ping },
	{ .name = NULL }
};

/* ---- dispatch ------------------------------------------------------------------------------------ */

void methods_init(server *s)
{
	games_init(&s->games, CARCD_MAX_GAMES);
	proto_arena_init(&s->arena);
	s->scratch = proto_xmalloc(carc_game_size());
	s->events = proto_xcalloc(CARC_MAX_EVENTS, sizeof *s->events);
	s->moves = proto_xcalloc(CARC_MAX_MOVES, sizeof *s->moves);
	s->started = games_now();
	s->max_request = PROTO_MAX_REQUEST;
	s->max_line = PROTO_MAX_LINE;
	s->max_output = CARCD_MAX_OUTPUT;
	s->max_connections = CARCD_MAX_CONNECTIONS;
	s->idle_timeout = CARCD_IDLE_TIMEOUT;
	s->game_timeout = CARCD_GAME_TIMEOUT;
}

void methods_free(server *s)
{
	games_free_all(&s->games);
	proto_arena_free(&s->arena);
	proto_buf_free(&s->wbuf);
	free(s->scratch);
	free(s->events);
	free(s->moves);
}

static void reply_error(server *s, void *conn, const proto_request *rq, proto_err code, const char *why,
                        proto_val *data)
{
	s->errors[code < PROTO_E_COUNT ? code : PROTO_E_INTERNAL]++;
	send_to(s, conn, proto_error_data(&s->arena, rq, code, why, data));
}

void methods_reply_error(server *s, void *conn, const proto_request *rq, proto_err code, const char *why)
{
	reply_error(s, conn, rq, code, why, NULL);
}

void methods_handle(server *s, void *conn, games_subs *subs, const proto_request *rq)
{
	s->requests++;
	const method *m = methods;
	while (m->name && strcmp(m->name, rq->method)) m++;
	if (!m->name) {
		methods_reply_error(s, conn, rq, PROTO_E_UNKNOWN_METHOD,
		                    proto_arena_printf(&s->arena, "there is no method `%s`", rq->method));
		return;
	}
	method_call c = { s, &s->arena, conn, subs, rq->params, NULL, NULL, NULL, NULL };
	const char *why = NULL;
	proto_val *result = NULL;
	proto_err rc = proto_params_check(c.a, m->params, rq->params, &why);
	if (rc == PROTO_OK) rc = m->exec(&c, &result, &why);
	if (rc != PROTO_OK) {
		reply_error(s, conn, rq, rc, why, rc == PROTO_E_ILLEGAL_MOVE ? c.err_data : NULL);
		return;
	}
	/* the mover hears its response before the notification of its move */
	send_to(s, conn, proto_response(c.a, rq, result));
	if (c.notify) publish(s, c.a, c.notify_game, c.notify, c.closed != NULL);
	if (c.closed) games_close(&s->games, c.closed);
}

/* --game-timeout: a game nobody plays goes as close_game would close it. */
typedef struct expiry {
	server *s;
	double now;
} expiry;

static int expired(void *ctx, games_game *gm)
{
	const expiry *x = ctx;
	if (x->now - gm->last < x->s->game_timeout) return 0;
	if (gm->nsubs) {
		publish(x->s, &x->s->arena, gm, closed_notice(&x->s->arena, gm), 1);
		proto_arena_reset(&x->s->arena);
	}
	log_debug("game %lld: closed after %d s without a move", (long long)gm->id, x->s->game_timeout);
	return 1;
}

size_t methods_expire(server *s, double now)
{
	if (s->game_timeout <= 0) return 0;
	expiry x = { s, now };
	size_t n = games_sweep(&s->games, expired, &x);
	s->games.expired_total += n;
	if (n) log_info("%zu game%s closed: no move for %d s (--game-timeout)", n, n == 1 ? "" : "s", s->game_timeout);
	return n;
}

void methods_conn_gone(server *s, void *conn, games_subs *subs) { games_unsubscribe_all(&s->games, conn, subs); }

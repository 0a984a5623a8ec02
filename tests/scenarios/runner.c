/*
 * runner.c - plays the rule scenarios (the .scn files in tests/scenarios)
 * against libcarc and checks every score, discard and illegal move they expect.
 * Each scenario file is one Check test case named after the file.
 *
 * Usage: runner [FILE.scn ...]
 *   Without arguments it runs every *.scn in $SCENARIO_DIR, else in
 *   $srcdir/tests/scenarios, else in the source directory compiled in.
 *   Without arguments it also checks that each scenario of the
 *   directory's must-fail/ fails, its report saying what the file's first
 *   line, `# must-fail: TEXT`, says: one wrong expectation each, so that a
 *   runner that stopped checking something cannot pass them all (the
 *   project's directory must have it; another $SCENARIO_DIR need not).
 *   CK_RUN_CASE=NAME.scn runs one scenario; CK_FORK=no runs them in one
 *   process (for valgrind); CK_VERBOSITY picks Check's output (default:
 *   one line per scenario).
 *
 * ---- The scenario format ----------------------------------------------------
 *
 * One statement a line; blank lines and everything from a `#` are ignored.
 * Rotations are degrees clockwise (0 90 180 270), tiles are ids such as
 * BA/RCr, seats count from 0 (seat 0 begins), ports are
 * N E S W NL NR EL ER SL SR WL WR cloister tower I II in board orientation,
 * and the corners nw ne se sw (NW ... also), where barns stand.
 *
 * Setup (before the first move):
 *   name TEXT...              a title (optional)
 *   seats N                   1..6 (default 2)
 *   expansions NAME...        the expansions in play, as in new_game
 *                             (default: base), e.g.
 *                             `expansions base inns-cathedrals king-robber`;
 *                             a tile of `tiles` must belong to one of them
 *   bag TOKEN...              Hills & Sheep: the bag's tokens drawn in this
 *                             order (1 2 3 4 sheep, wolf); repeatable
 *   components NAME...        the figures and tokens in play instead of
 *                             the expansions' own (large, king, robber, ...;
 *                             no NAME: none of them)
 *   rule KEY VALUE            a RULES.md section 6 option, e.g.
 *                             `rule farm_scoring per-farm-3`, `rule farmers false`
 *   seed N                    RNG seed (irrelevant with a fixed tile order)
 *   start TILE X Y ROT        a custom start tile; repeatable.  Without any,
 *                             the standard start (BA/RCr 0 0 0 with base)
 *                             is used.
 *   tiles TILE...             the draw order; repeatable (appends).  The
 *                             game ends after the last tile.
 *
 * Moves, played in order by whichever seat must decide:
 *   place TILE X Y ROT        place the drawn tile (it must be TILE)
 *   deploy PORT [X Y] [KIND]  a figure on the feature at PORT of the tile
 *                             just placed (X Y default to that tile); KIND
 *                             is a figure kind of carc.h (follower, large,
 *                             ...; default follower)
 *   pass                      deploy nothing (or, in the escape phase, free
 *                             nobody)
 *   flock expand|gather       the shepherd owner's decision (phase flock,
 *                             Hills & Sheep); deploy KIND shepherd
 *   escape SEAT.KIND.N        free that figure from a besieged city
 *                             (Cathars; the figure as carc_figure_find(),
 *                             e.g. 0.follower.1: seat 0's first follower)
 *   draw                      draw a tile instead of placing the abbey
 *                             (Abbey & Mayor: a turn of a seat holding its
 *                             abbey while a hole exists begins undrawn)
 *   abbey X Y                 place the seat's abbey into the hole (X, Y);
 *                             a later `deploy` defaults to it
 *   wagon X Y PORT            move the waiting wagon (phase wagon) onto
 *                             the feature at PORT of the tile at (X, Y)
 * Deploy KINDs of Abbey & Mayor: mayor, wagon, barn; a barn's PORT is the
 * corner of the tile just placed: nw ne se sw.
 * A decision whose only move would be `pass` is skipped by the engine, so
 * the script does not write it.  Every move must also be in
 * carc_legal_moves().
 *
 * Expectations about the events of the latest call (the latest move, or
 * the game's set-up before the first move).  They are compared exactly:
 * an expected event that did not happen and an event that was not
 * expected (scored, tile_discarded, token_taken) both fail the scenario.
 * Order within one call does not matter.
 *   score SEAT POINTS KIND [final] [at X Y [PORT]]
 *                             a `scored` event; KIND is road, city,
 *                             cloister, field, king or robber; `final`
 *                             marks end-of-game scoring (without it the
 *                             event must be a during-play one); `at` also
 *                             compares the event's x, y (and port).  king
 *                             and robber scores have no place: they take no
 *                             `at`, and the event's port must be
 *                             CARC_PORT_COUNT; so has `trade` (trade goods,
 *                             10 a majority at the end); also `barn`
 *   discard TILE [unplaceable|reshuffled]
 *                             a `tile_discarded` event (and its reason)
 *   token SEAT king|robber|wine|grain|cloth [from SEAT]
 *                             a `token_taken` event: SEAT takes the token,
 *                             from the seat named after `from`; without
 *                             `from` the event's `from` must be -1 (nobody
 *                             held the token)
 *   hidden X Y                a `tile_hidden` event: a hill at (X, Y) took
 *                             the next tile face down (compared exactly)
 *   sheep SEAT TOKEN [at X Y] a `sheep_drawn` event: SEAT's shepherd (at X Y)
 *                             drew TOKEN 1 2 3 4 or wolf (compared exactly);
 *                             score KIND `flock` is a gathered flock
 *   returned SEAT KIND WHY    a `returned` event: a figure of KIND (follower,
 *                             builder, pig, ...) of SEAT goes home; WHY is
 *                             scored, escape, lonely, challenge or barn
 *                             (farmers sent home by a barn), wolf or flock
 *                             (shepherds).  Returns
 *                             for escape, lonely, challenge and barn are compared
 *                             exactly (an unexpected one fails); returns
 *                             after scoring need not be written, but one
 *                             that is written must happen
 * Checks of the state, made where they stand:
 *   expect-illegal MOVE CODE  MOVE (written as above) must be refused with
 *                             CODE, must not change the game and must not be
 *                             in carc_legal_moves().  CODEs: arg over phase
 *                             tile occupied not-adjacent edge rule
 *                             not-tile-just-placed no-feature feature-taken
 *                             no-figure kind capacity; rule:NAME also
 *                             names the condition of the rule that fails
 *                             (carc_move_refusal, named as
 *                             carc_refusal_name names it), and
 *                             rule:NAME@X,Y the place it names too
 *   turn SEAT                 SEAT must decide now
 *   phase NAME                the decision due is of phase NAME (tile,
 *                             action, escape, wagon, over)
 *   abbeys SEAT N             abbey tiles SEAT still holds
 *   followers SEAT N          followers SEAT has in supply now
 *   supply SEAT KIND N        figures of KIND (follower, large, ...) SEAT
 *                             has in supply now
 *   tokens SEAT TOKEN N       how many of that token (king, robber, wine,
 *                             grain, cloth) SEAT holds now
 *   total SEAT POINTS         SEAT's score now
 *   ended-now SEAT POINTS     SEAT's score if the game ended now
 *                             (carc_end_now on a copy: the daemon's
 *                             `if_ended_now`); the game goes on
 *
 * At the end of the file the game must be over, and every seat must have a
 * `total` line after the last move.  Each `total` must also equal the sum
 * of that seat's `score` lines so far (this catches slips in the
 * scenario's own arithmetic; it is reported as a scenario error).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "carc.h"

#ifndef SCENARIO_DIR
#define SCENARIO_DIR "tests/scenarios"
#endif

#define MAX_TOKENS 24
#define MAX_EXPECT 256
#define REPORT_SIZE 16384

/* ---- names ---------------------------------------------------------------- */

static const char *const port_names[CARC_PORT_COUNT] = {
	"N", "E", "S", "W", "NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR", "cloister", "tower", "I", "II",
	"nw", "ne", "se", "sw"
};

static const struct { const char *name; int sc; } score_kinds[] = {
	{ "road", CARC_SC_ROAD }, { "city", CARC_SC_CITY }, { "cloister", CARC_SC_CLOISTER }, { "field", CARC_SC_FIELD },
	{ "king", CARC_SC_KING }, { "robber", CARC_SC_ROBBER }, { "trade", CARC_SC_TRADE }, { "barn", CARC_SC_BARN },
	{ "flock", CARC_SC_FLOCK },
};

/* Scores that belong to no place on the board: their event's port is
 * CARC_PORT_COUNT, and a `score` line for them takes no `at`. */
static int placeless(int sc)
{
	return sc == CARC_SC_KING || sc == CARC_SC_ROBBER || sc == CARC_SC_TRADE;
}

static const struct { const char *name; int tok; } token_kinds[] = {
	{ "king", CARC_TOK_KING }, { "robber", CARC_TOK_ROBBER },
	{ "wine", CARC_TOK_WINE }, { "grain", CARC_TOK_GRAIN }, { "cloth", CARC_TOK_CLOTH },
};

static const struct { const char *name; carc_rc rc; } rc_names[] = {
	{ "ok", CARC_OK },
	{ "arg", CARC_E_ARG },
	{ "over", CARC_E_OVER },
	{ "phase", CARC_E_PHASE },
	{ "tile", CARC_E_TILE },
	{ "occupied", CARC_E_OCCUPIED },
	{ "not-adjacent", CARC_E_NOT_ADJACENT },
	{ "edge", CARC_E_EDGE },
	{ "rule", CARC_E_RULE },
	{ "not-tile-just-placed", CARC_E_NOT_TILE_JUST_PLACED },
	{ "no-feature", CARC_E_NO_FEATURE },
	{ "feature-taken", CARC_E_FEATURE_TAKEN },
	{ "no-figure", CARC_E_NO_FIGURE },
	{ "kind", CARC_E_KIND },
	{ "capacity", CARC_E_CAPACITY },
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Ports as written; the corners (where barns stand) also in capitals. */
static int find_port(const char *s)
{
	for (int i = 0; i < CARC_PORT_COUNT; i++)
		if (!strcmp(port_names[i], s) || (i >= CARC_P_NW && !strcasecmp(port_names[i], s))) return i;
	return -1;
}

static int find_score_kind(const char *s)
{
	for (int i = 0; i < COUNT(score_kinds); i++)
		if (!strcmp(score_kinds[i].name, s)) return score_kinds[i].sc;
	return -1;
}

static const char *score_kind_name(int sc)
{
	for (int i = 0; i < COUNT(score_kinds); i++)
		if (score_kinds[i].sc == sc) return score_kinds[i].name;
	return "?";
}

static int find_rc(const char *s)
{
	for (int i = 0; i < COUNT(rc_names); i++)
		if (!strcmp(rc_names[i].name, s)) return (int)rc_names[i].rc;
	return -1;
}

static int find_token(const char *s)
{
	for (int i = 0; i < COUNT(token_kinds); i++)
		if (!strcmp(token_kinds[i].name, s)) return token_kinds[i].tok;
	return -1;
}

static const char *token_name(int tok)
{
	for (int i = 0; i < COUNT(token_kinds); i++)
		if (token_kinds[i].tok == tok) return token_kinds[i].name;
	return "?";
}

static const char *rc_name(int rc)
{
	for (int i = 0; i < COUNT(rc_names); i++)
		if ((int)rc_names[i].rc == rc) return rc_names[i].name;
	return "?";
}

/* Hills & Sheep bag tokens: 1-4 sheep, wolf (CARC_WOLF). */
static int find_sheep(const char *s)
{
	if (!strcmp(s, "wolf")) return CARC_WOLF;
	return s[0] >= '1' && s[0] <= '4' && !s[1] ? s[0] - '0' : -1;
}

static const char *sheep_name(int tok)
{
	static const char *const names[] = { "?", "1", "2", "3", "4", "wolf" };
	return tok >= 0 && tok <= CARC_WOLF ? names[tok] : "?";
}

static const char *why_name(int why)
{
	switch (why) {
	case CARC_WHY_UNPLACEABLE: return "unplaceable";
	case CARC_WHY_RESHUFFLED: return "reshuffled";
	case CARC_WHY_SCORED: return "scored";
	case CARC_WHY_ESCAPE: return "escape";
	case CARC_WHY_LONELY: return "lonely";
	case CARC_WHY_CHALLENGE: return "challenge";
	case CARC_WHY_BARN: return "barn";
	case CARC_WHY_WOLF: return "wolf";
	case CARC_WHY_FLOCK: return "flock";
	default: return "?";
	}
}

/* Reasons of a `returned` expectation. */
static int find_return_why(const char *s)
{
	static const int whys[] = { CARC_WHY_SCORED, CARC_WHY_ESCAPE, CARC_WHY_LONELY, CARC_WHY_CHALLENGE, CARC_WHY_BARN,
	                            CARC_WHY_WOLF, CARC_WHY_FLOCK };
	for (int i = 0; i < COUNT(whys); i++)
		if (!strcmp(why_name(whys[i]), s)) return whys[i];
	return -1;
}

/* A `returned` event the scenario must expect: every reason but `scored`
 * (figures going home after their feature scored are not written). */
static int strict_return(const carc_event *e)
{
	return e->type == CARC_EV_RETURNED && e->why != CARC_WHY_SCORED;
}

/* ---- one scenario's run ----------------------------------------------------- */

enum { X_SCORE, X_DISCARD, X_TOKEN, X_RETURN, X_HIDDEN, X_SHEEP };

typedef struct expect {
	int line;
	int what;                 /* X_SCORE, X_DISCARD or X_TOKEN */
	int seat, points, sc, final;
	int has_at, x, y, port;   /* port -1: any */
	int tile, why;            /* discard; why -1: any */
	int token, from;          /* token_taken: the token, the seat it came from (-1 none) */
	int kind;                 /* returned: the figure kind (and `why`) */
	int sheep;                /* sheep: 1-4 or CARC_WOLF (seat; x y with has_at); hidden: x y */
	int matched;
} expect;

typedef struct run {
	const char *path;
	char *report;             /* REPORT_SIZE bytes */
	size_t used;
	int failures;             /* engine disagreed with the scenario */
	int errors;               /* the scenario file itself is wrong */
	int line;

	carc_config cfg;
	int nstart_given;
	carc_game *g;
	int started;
	carc_event *ev;           /* events of the latest call */
	carc_sink sink;
	char call[160];           /* the latest call, for messages */
	int call_line;

	expect exp[MAX_EXPECT];   /* expectations about the latest call */
	int nexp;

	int last_x, last_y, have_last;
	int exp_sum[CARC_MAX_SEATS];
	int total_after_last_move[CARC_MAX_SEATS];
} run;

static void say(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(run *r, const char *fmt, ...)
{
	if (r->used >= REPORT_SIZE - 1) return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(r->report + r->used, REPORT_SIZE - r->used, fmt, ap);
	va_end(ap);
	if (n > 0) r->used += (size_t)n;
	if (r->used > REPORT_SIZE - 1) r->used = REPORT_SIZE - 1;
}

/* The engine did something the scenario says it must not. */
#define FAIL(r, ...) do { (r)->failures++; say((r), "%s:%d: ", (r)->path, (r)->line); say((r), __VA_ARGS__); say((r), "\n"); } while (0)
/* The scenario file is malformed or inconsistent. */
#define ERR(r, ...) do { (r)->errors++; say((r), "%s:%d: scenario error: ", (r)->path, (r)->line); say((r), __VA_ARGS__); say((r), "\n"); } while (0)

static int parse_int(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < -100000 || v > 100000) return 0;
	*out = (int)v;
	return 1;
}

static int parse_rot(const char *s, int *out)
{
	int deg;
	if (!parse_int(s, &deg) || deg < 0 || deg % 90 || deg >= 360) return 0;
	*out = deg / 90;
	return 1;
}

static int parse_tile(run *r, const char *s, int *out)
{
	int t = carc_tile_find(s);
	if (t < 0) {
		ERR(r, "unknown tile id '%s'", s);
		return 0;
	}
	*out = t;
	return 1;
}

static void describe_event(char *buf, size_t n, const carc_event *e)
{
	if (e->type == CARC_EV_SCORED && e->port == CARC_PORT_COUNT)
		snprintf(buf, n, "score %d %d %s%s (no place)", e->seat, (int)e->points, score_kind_name(e->fkind),
		         e->final ? " final" : "");
	else if (e->type == CARC_EV_SCORED)
		snprintf(buf, n, "score %d %d %s%s at %d %d %s", e->seat, (int)e->points, score_kind_name(e->fkind),
		         e->final ? " final" : "", e->x, e->y, e->port < CARC_PORT_COUNT ? port_names[e->port] : "?");
	else if (e->type == CARC_EV_TOKEN_TAKEN && e->from >= 0)
		snprintf(buf, n, "token %d %s from %d", e->seat, token_name(e->kind), e->from);
	else if (e->type == CARC_EV_TOKEN_TAKEN)
		snprintf(buf, n, "token %d %s (from nobody)", e->seat, token_name(e->kind));
	else if (e->type == CARC_EV_TILE_HIDDEN)
		snprintf(buf, n, "hidden %d %d", e->x, e->y);
	else if (e->type == CARC_EV_SHEEP_DRAWN)
		snprintf(buf, n, "sheep %d %s at %d %d", e->seat, sheep_name(e->kind), e->x, e->y);
	else if (e->type == CARC_EV_RETURNED)
		snprintf(buf, n, "returned %d %s %s", e->seat, carc_figkind_name(e->kind), why_name(e->why));
	else
		snprintf(buf, n, "discard %s %s", carc_tile_id(e->tile) ? carc_tile_id(e->tile) : "?", why_name(e->why));
}

static void describe_expect(char *buf, size_t n, const expect *x)
{
	if (x->what == X_HIDDEN) {
		snprintf(buf, n, "hidden %d %d", x->x, x->y);
	} else if (x->what == X_SHEEP) {
		if (x->has_at) snprintf(buf, n, "sheep %d %s at %d %d", x->seat, sheep_name(x->sheep), x->x, x->y);
		else snprintf(buf, n, "sheep %d %s", x->seat, sheep_name(x->sheep));
	} else if (x->what == X_RETURN) {
		snprintf(buf, n, "returned %d %s %s", x->seat, carc_figkind_name(x->kind), why_name(x->why));
	} else if (x->what == X_TOKEN) {
		if (x->from >= 0) snprintf(buf, n, "token %d %s from %d", x->seat, token_name(x->token), x->from);
		else snprintf(buf, n, "token %d %s", x->seat, token_name(x->token));
	} else if (x->what == X_SCORE) {
		char at[64] = "";
		if (x->has_at)
			snprintf(at, sizeof at, " at %d %d%s%s", x->x, x->y, x->port >= 0 ? " " : "",
			         x->port >= 0 ? port_names[x->port] : "");
		snprintf(buf, n, "score %d %d %s%s%s", x->seat, x->points, score_kind_name(x->sc), x->final ? " final" : "", at);
	} else {
		snprintf(buf, n, "discard %s%s%s", carc_tile_id(x->tile), x->why >= 0 ? " " : "", x->why >= 0 ? why_name(x->why) : "");
	}
}

static int expect_matches(const expect *x, const carc_event *e)
{
	if (x->what == X_HIDDEN) return e->type == CARC_EV_TILE_HIDDEN && e->x == x->x && e->y == x->y;
	if (x->what == X_SHEEP)
		return e->type == CARC_EV_SHEEP_DRAWN && e->seat == x->seat && e->kind == x->sheep &&
		       (!x->has_at || (e->x == x->x && e->y == x->y));
	if (x->what == X_RETURN)
		return e->type == CARC_EV_RETURNED && e->seat == x->seat && e->kind == x->kind && e->why == x->why;
	if (x->what == X_TOKEN)
		return e->type == CARC_EV_TOKEN_TAKEN && e->seat == x->seat && e->kind == x->token && e->from == x->from;
	if (x->what == X_SCORE) {
		if (e->type != CARC_EV_SCORED) return 0;
		if (e->seat != x->seat || e->points != x->points || e->fkind != x->sc || !!e->final != x->final) return 0;
		if (placeless(x->sc) && e->port != CARC_PORT_COUNT) return 0;
		if (x->has_at && (e->x != x->x || e->y != x->y)) return 0;
		if (x->has_at && x->port >= 0 && e->port != x->port) return 0;
		return 1;
	}
	if (e->type != CARC_EV_TILE_DISCARDED) return 0;
	return e->tile == x->tile && (x->why < 0 || e->why == x->why);
}

/* 0 for an expectation that pins its event down completely, 2 for the
 * loosest: flush() matches the precise ones first. */
static int expect_spec(const expect *x)
{
	switch (x->what) {
	case X_SCORE:
		if (placeless(x->sc) || (x->has_at && x->port >= 0)) return 0;
		return x->has_at ? 1 : 2;
	case X_DISCARD:
		return x->why >= 0 ? 0 : 2;
	default: /* a token (seat, token, `from`) or a return (seat, kind, why) */
		return 0;
	}
}

/* Compares the latest call's scored and discarded events with the
 * expectations written after it, exactly, then forgets both. */
static void flush(run *r)
{
	int nev = r->sink.n < r->sink.cap ? r->sink.n : r->sink.cap, line = r->line;
	if (r->sink.n > r->sink.cap) FAIL(r, "%s (line %d) emitted %d events, more than %d", r->call, r->call_line, r->sink.n, r->sink.cap);
	int used[CARC_MAX_EVENTS] = { 0 };
	/* the most specific expectations first, so a loose one cannot take
	 * the event a precise one needs */
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < r->nexp; i++) {
			expect *x = &r->exp[i];
			if (x->matched || expect_spec(x) != pass) continue;
			for (int k = 0; k < nev; k++)
				if (!used[k] && expect_matches(x, &r->ev[k])) {
					used[k] = 1;
					x->matched = 1;
					break;
				}
		}
	char buf[160];
	for (int i = 0; i < r->nexp; i++)
		if (!r->exp[i].matched) {
			describe_expect(buf, sizeof buf, &r->exp[i]);
			r->line = r->exp[i].line;
			FAIL(r, "expected `%s` after `%s` (line %d), but it did not happen", buf, r->call, r->call_line);
		}
	for (int k = 0; k < nev; k++) {
		const carc_event *e = &r->ev[k];
		if (used[k] || (e->type != CARC_EV_SCORED && e->type != CARC_EV_TILE_DISCARDED && e->type != CARC_EV_TOKEN_TAKEN &&
		                e->type != CARC_EV_TILE_HIDDEN && e->type != CARC_EV_SHEEP_DRAWN &&
		                !strict_return(e)))
			continue;
		describe_event(buf, sizeof buf, e);
		r->line = r->call_line;
		FAIL(r, "`%s` caused unexpected `%s`", r->call, buf);
	}
	r->nexp = 0;
	r->sink.n = 0;
	r->line = line;
}

static void start_game(run *r)
{
	r->started = 1;
	r->g = malloc(carc_game_size());
	if (!r->g) {
		ERR(r, "out of memory");
		return;
	}
	snprintf(r->call, sizeof r->call, "the game set-up");
	r->call_line = r->line;
	carc_rc rc = carc_game_init(r->g, &r->cfg, &r->sink);
	if (rc != CARC_OK) {
		/* the usual cause with several start tiles: two that touch and do
		 * not match, named as carcd's new_game names them */
		int bad = rc == CARC_E_ARG ? carc_config_start_mismatch(&r->cfg) : -1;
		if (bad >= 0) {
			const carc_start_tile *st = &r->cfg.start[bad];
			FAIL(r, "carc_game_init refused the set-up: start tile %d, %s %d %d %d, does not match the start "
			        "tiles before it that it touches", bad + 1, carc_tile_id(st->tile), st->x, st->y, st->rot * 90);
		} else
			FAIL(r, "carc_game_init refused the set-up: %s (%s)", rc_name(rc), carc_strerror(rc));
		free(r->g);
		r->g = NULL;
	}
}

/* Parses a move written as in the format (tokens t[0..n-1]); returns 1. */
static int parse_move(run *r, char **t, int n, carc_move *m)
{
	memset(m, 0, sizeof *m);
	m->tile = CARC_NONE;
	m->figure = CARC_NONE;
	if (n == 5 && !strcmp(t[0], "place")) {
		int tile, x, y, rot;
		if (!parse_tile(r, t[1], &tile)) return 0;
		if (!parse_int(t[2], &x) || !parse_int(t[3], &y) || !parse_rot(t[4], &rot)) {
			ERR(r, "place wants TILE X Y ROT (ROT one of 0 90 180 270)");
			return 0;
		}
		m->type = CARC_MV_PLACE_TILE;
		m->tile = (uint16_t)tile;
		m->x = (int16_t)x;
		m->y = (int16_t)y;
		m->rot = (uint8_t)rot;
		return 1;
	}
	if (n >= 2 && n <= 5 && !strcmp(t[0], "deploy")) {
		/* deploy PORT [X Y] [KIND]: a KIND is the last word when the
		 * count of words is odd */
		int port = find_port(t[1]), x = r->last_x, y = r->last_y, kind = CARC_FIG_FOLLOWER;
		int has_xy = n >= 4, has_kind = n == 3 || n == 5;
		if (port < 0) {
			ERR(r, "unknown port '%s'", t[1]);
			return 0;
		}
		if (has_xy && (!parse_int(t[2], &x) || !parse_int(t[3], &y))) {
			ERR(r, "deploy wants PORT [X Y] [KIND]");
			return 0;
		}
		if (has_kind && (kind = carc_figkind_parse(t[n - 1])) < 0) {
			ERR(r, "unknown figure kind '%s' (follower, large, ...)", t[n - 1]);
			return 0;
		}
		if (!has_xy && !r->have_last) {
			ERR(r, "deploy without X Y before any place");
			return 0;
		}
		m->type = CARC_MV_DEPLOY;
		m->kind = (uint8_t)kind;
		m->port = (uint8_t)port;
		m->x = (int16_t)x;
		m->y = (int16_t)y;
		return 1;
	}
	if (n == 1 && !strcmp(t[0], "pass")) {
		m->type = CARC_MV_PASS;
		return 1;
	}
	if (n == 1 && !strcmp(t[0], "draw")) {
		m->type = CARC_MV_DRAW;
		return 1;
	}
	if (n == 3 && !strcmp(t[0], "abbey")) {
		int x, y;
		if (!parse_int(t[1], &x) || !parse_int(t[2], &y)) {
			ERR(r, "abbey wants X Y");
			return 0;
		}
		m->type = CARC_MV_PLACE_ABBEY;
		m->x = (int16_t)x;
		m->y = (int16_t)y;
		return 1;
	}
	if (n == 4 && !strcmp(t[0], "wagon")) {
		int x, y, port = find_port(t[3]);
		if (!parse_int(t[1], &x) || !parse_int(t[2], &y) || port < 0) {
			ERR(r, "wagon wants X Y PORT");
			return 0;
		}
		m->type = CARC_MV_MOVE_WAGON;
		m->x = (int16_t)x;
		m->y = (int16_t)y;
		m->port = (uint8_t)port;
		return 1;
	}
	if (n == 2 && !strcmp(t[0], "flock")) {
		/* flock expand|gather: the shepherd's decision (Hills & Sheep) */
		if (strcmp(t[1], "expand") && strcmp(t[1], "gather")) {
			ERR(r, "flock wants expand or gather");
			return 0;
		}
		m->type = CARC_MV_FLOCK;
		m->kind = (uint8_t)!strcmp(t[1], "gather");
		return 1;
	}
	if (n == 2 && !strcmp(t[0], "escape")) {
		/* escape SEAT.KIND.N: the figure as in carc_figure_find() */
		char id[64], *dot1, *dot2;
		int seat, kind, num, fig;
		snprintf(id, sizeof id, "%s", t[1]);
		dot1 = strchr(id, '.');
		dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
		if (!dot1 || !dot2) {
			ERR(r, "escape wants a figure SEAT.KIND.N, e.g. 0.follower.1");
			return 0;
		}
		*dot1 = *dot2 = 0;
		if (!parse_int(id, &seat) || (kind = carc_figkind_parse(dot1 + 1)) < 0 || !parse_int(dot2 + 1, &num)) {
			ERR(r, "escape wants a figure SEAT.KIND.N, e.g. 0.follower.1");
			return 0;
		}
		if (r->g && (fig = carc_figure_find(r->g, seat, kind, num)) >= 0) {
			m->type = CARC_MV_ESCAPE;
			m->figure = (uint16_t)fig;
			return 1;
		}
		ERR(r, "no figure %s in this game", t[1]);
		return 0;
	}
	ERR(r, "not a move: expected `place TILE X Y ROT`, `deploy PORT [X Y] [KIND]`, `escape SEAT.KIND.N`, `draw`, "
	       "`abbey X Y`, `wagon X Y PORT` or `pass`");
	return 0;
}

/* The feature index on the placed tile at (x, y) that touches `port`, or -1.
 * A corner (a barn's port) is no feature's: it is compared as itself. */
static int feature_of(const carc_game *g, int x, int y, int port)
{
	if (port >= CARC_P_NW) return -1;
	uint16_t ports[32];
	int nf = carc_tile_features(g, x, y, ports, NULL, 32);
	for (int i = 0; i < nf && i < 32; i++)
		if (ports[i] >> port & 1) return i;
	return -1;
}

/* A wagon's target may be named at any tile the feature covers (PROTOCOL.md
 * section 3), not only at the tile a listed move names, and a deploy at
 * either of two segments of one feature on the tile: there the runner,
 * which sees features only segment by segment, asks whether `a` plays
 * exactly as the listed `b` does (the same game after either). */
static int plays_as(const carc_game *g, const carc_move *a, const carc_move *b)
{
	static carc_game *ga, *gb;
	if (!ga) ga = malloc(carc_game_size());
	if (!gb) gb = malloc(carc_game_size());
	if (!ga || !gb) return 0;
	carc_game_clone(ga, g);
	carc_game_clone(gb, g);
	return carc_apply(ga, a, NULL) == CARC_OK && carc_apply(gb, b, NULL) == CARC_OK &&
	       carc_game_hash(ga) == carc_game_hash(gb);
}

static int same_move(const carc_game *g, const carc_move *a, const carc_move *b)
{
	if (a->type != b->type) return 0;
	switch (a->type) {
	case CARC_MV_PLACE_TILE:
		return a->tile == b->tile && a->x == b->x && a->y == b->y && a->rot == b->rot;
	case CARC_MV_DEPLOY: {
		if (a->kind != b->kind || a->x != b->x || a->y != b->y) return 0;
		if (a->port >= CARC_P_NW || b->port >= CARC_P_NW) return a->port == b->port;
		int fa = feature_of(g, a->x, a->y, a->port);
		if (fa < 0) return 0;
		/* a feature the tile holds in two segments is listed at one */
		return fa == feature_of(g, b->x, b->y, b->port) || plays_as(g, a, b);
	}
	case CARC_MV_PLACE_ABBEY:
		return a->x == b->x && a->y == b->y;
	case CARC_MV_MOVE_WAGON: {
		if (a->x != b->x || a->y != b->y) return plays_as(g, a, b);
		int fa = feature_of(g, a->x, a->y, a->port);
		return fa >= 0 && fa == feature_of(g, b->x, b->y, b->port);
	}
	case CARC_MV_FLOCK:
		return a->kind == b->kind;
	case CARC_MV_ESCAPE:
		return a->figure == b->figure;
	default:
		return 1;
	}
}

static int is_listed(const carc_game *g, const carc_move *m)
{
	static carc_move moves[CARC_MAX_MOVES];
	int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	if (n > CARC_MAX_MOVES) n = CARC_MAX_MOVES;
	for (int i = 0; i < n; i++)
		if (same_move(g, m, &moves[i])) return 1;
	return 0;
}

/* Writes the legal moves now into the report (after a move that is not
 * among them), in the scenario's own words. */
static void list_moves(run *r)
{
	static carc_move moves[CARC_MAX_MOVES];
	int n = carc_legal_moves(r->g, moves, CARC_MAX_MOVES);
	if (n > CARC_MAX_MOVES) n = CARC_MAX_MOVES;
	say(r, "    legal now (%d):", n);
	for (int i = 0; i < n && i < 40; i++) {
		const carc_move *m = &moves[i];
		const char *port = m->port < CARC_PORT_COUNT ? port_names[m->port] : "?";
		switch (m->type) {
		case CARC_MV_PLACE_TILE: say(r, " [place %s %d %d %d]", carc_tile_id(m->tile), m->x, m->y, m->rot * 90); break;
		case CARC_MV_DEPLOY: say(r, " [deploy %s %d %d %s]", port, m->x, m->y, carc_figkind_name(m->kind)); break;
		case CARC_MV_PLACE_ABBEY: say(r, " [abbey %d %d]", m->x, m->y); break;
		case CARC_MV_MOVE_WAGON: say(r, " [wagon %d %d %s]", m->x, m->y, port); break;
		case CARC_MV_FLOCK: say(r, " [flock %s]", m->kind ? "gather" : "expand"); break;
		default: say(r, " [%s]", carc_mtype_name(m->type)); break;
		}
	}
	say(r, "%s\n", n > 40 ? " ..." : "");
}

static void join_tokens(char *buf, size_t n, char **t, int nt)
{
	buf[0] = 0;
	size_t used = 0;
	for (int i = 0; i < nt && used < n; i++) {
		int k = snprintf(buf + used, n - used, "%s%s", i ? " " : "", t[i]);
		if (k > 0) used += (size_t)k;
	}
}

static void do_move(run *r, char **t, int nt)
{
	carc_move m;
	if (!parse_move(r, t, nt, &m) || !r->g) return;
	flush(r);
	join_tokens(r->call, sizeof r->call, t, nt);
	r->call_line = r->line;
	int seat = carc_game_seat(r->g);
	if (!is_listed(r->g, &m)) {
		FAIL(r, "`%s` (seat %d, phase %s) is not among carc_legal_moves()", r->call, seat,
		     carc_phase_name(carc_game_phase(r->g)));
		list_moves(r);
	}
	carc_rc rc = carc_apply(r->g, &m, &r->sink);
	if (rc != CARC_OK) {
		int drawn = carc_game_drawn(r->g);
		FAIL(r, "`%s` refused: %s (%s); seat %d, phase %s, drawn tile %s", r->call, rc_name(rc), carc_strerror(rc),
		     seat, carc_phase_name(carc_game_phase(r->g)), drawn >= 0 ? carc_tile_id(drawn) : "none");
		return;
	}
	if (m.type == CARC_MV_PLACE_TILE || m.type == CARC_MV_PLACE_ABBEY) {
		r->last_x = m.x;
		r->last_y = m.y;
		r->have_last = 1;
	}
	for (int s = 0; s < CARC_MAX_SEATS; s++) r->total_after_last_move[s] = 0;
}

static void do_illegal(run *r, char **t, int nt)
{
	carc_move m;
	if (nt < 3) {
		ERR(r, "expect-illegal wants MOVE CODE");
		return;
	}
	/* CODE, or rule:NAME or rule:NAME@X,Y for a move a rule refuses */
	char code[64];
	snprintf(code, sizeof code, "%s", t[nt - 1]);
	char *colon = strchr(code, ':'), *at = strchr(code, '@');
	int reason = -1, want_x = 0, want_y = 0;
	if (at) {
		char end = 0;
		*at = 0;
		if (!colon || sscanf(at + 1, "%d,%d%c", &want_x, &want_y, &end) != 2) {
			ERR(r, "`%s`: a place is written rule:NAME@X,Y", t[nt - 1]);
			return;
		}
	}
	if (colon) {
		*colon = 0;
		reason = carc_refusal_find(colon + 1);
		if (strcmp(code, "rule") || reason <= CARC_RF_NONE) {
			ERR(r, "unknown condition `%s` (rule:NAME, NAME as carc_refusal_name gives them)", t[nt - 1]);
			return;
		}
	}
	int want = find_rc(code);
	if (want < 0 || want == CARC_OK) {
		ERR(r, "unknown error code '%s'", t[nt - 1]);
		return;
	}
	if (!parse_move(r, t + 1, nt - 2, &m) || !r->g) return;
	flush(r);
	char text[160];
	join_tokens(text, sizeof text, t + 1, nt - 2);
	uint64_t before = carc_game_hash(r->g);
	carc_rc got = carc_check_move(r->g, &m, NULL);
	if ((int)got != want)
		FAIL(r, "carc_check_move(`%s`) gave %s (%s), expected %s", text, rc_name(got), carc_strerror(got), t[nt - 1]);
	if (is_listed(r->g, &m)) FAIL(r, "`%s` is listed by carc_legal_moves() but should be illegal", text);
	if (got == CARC_E_RULE) {
		int ax = 0, ay = 0, why = carc_move_refusal(r->g, &m, &ax, &ay);
		if (getenv("SCENARIO_SHOW_REASONS"))
			printf("%s:%d: rule:%s@%d,%d\n", r->path, r->line, carc_refusal_name(why), ax, ay);
		if (why <= CARC_RF_OTHER) FAIL(r, "`%s` is refused by a rule carc_move_refusal does not name", text);
		if (colon && why != reason)
			FAIL(r, "`%s` is refused for %s, expected rule:%s", text, carc_refusal_name(why), colon + 1);
		if (at && why == reason && (ax != want_x || ay != want_y))
			FAIL(r, "`%s` is refused for %s at (%d,%d), expected (%d,%d)", text, carc_refusal_name(why), ax, ay,
			     want_x, want_y);
	}
	carc_rc applied = carc_apply(r->g, &m, &r->sink);
	if ((int)applied != want)
		FAIL(r, "carc_apply(`%s`) gave %s, expected %s", text, rc_name(applied), t[nt - 1]);
	if (applied == CARC_OK) {
		FAIL(r, "the illegal move was played; the rest of the scenario is meaningless");
		r->errors++;
		return;
	}
	if (carc_game_hash(r->g) != before) FAIL(r, "the refused move `%s` changed the game", text);
	if (r->sink.n) FAIL(r, "the refused move `%s` emitted %d events", text, r->sink.n);
	r->sink.n = 0;
}

static void do_expect(run *r, char **t, int nt)
{
	if (r->nexp >= MAX_EXPECT) {
		ERR(r, "too many expectations after one move");
		return;
	}
	expect x = { .line = r->line, .port = -1, .why = -1, .from = -1 };
	if (!strcmp(t[0], "returned")) {
		x.what = X_RETURN;
		if (nt != 4 || !parse_int(t[1], &x.seat) || (x.kind = carc_figkind_parse(t[2])) < 0 ||
		    (x.why = find_return_why(t[3])) < 0) {
			ERR(r, "returned wants SEAT KIND scored|escape|lonely|challenge|barn|wolf|flock");
			return;
		}
		if (x.seat < 0 || x.seat >= r->cfg.nseats) {
			ERR(r, "no seat %d", x.seat);
			return;
		}
	} else if (!strcmp(t[0], "hidden")) {
		x.what = X_HIDDEN;
		if (nt != 3 || !parse_int(t[1], &x.x) || !parse_int(t[2], &x.y)) {
			ERR(r, "hidden wants X Y");
			return;
		}
	} else if (!strcmp(t[0], "sheep")) {
		x.what = X_SHEEP;
		if ((nt != 3 && nt != 6) || !parse_int(t[1], &x.seat) || (x.sheep = find_sheep(t[2])) < 0 ||
		    (nt == 6 && (strcmp(t[3], "at") || !parse_int(t[4], &x.x) || !parse_int(t[5], &x.y)))) {
			ERR(r, "sheep wants SEAT 1|2|3|4|wolf [at X Y]");
			return;
		}
		x.has_at = nt == 6;
		if (x.seat < 0 || x.seat >= r->cfg.nseats) {
			ERR(r, "no seat %d", x.seat);
			return;
		}
	} else if (!strcmp(t[0], "token")) {
		x.what = X_TOKEN;
		if ((nt != 3 && nt != 5) || !parse_int(t[1], &x.seat) || (x.token = find_token(t[2])) < 0 ||
		    (nt == 5 && (strcmp(t[3], "from") || !parse_int(t[4], &x.from)))) {
			ERR(r, "token wants SEAT king|robber|wine|grain|cloth [from SEAT]");
			return;
		}
		if (x.seat < 0 || x.seat >= r->cfg.nseats || (nt == 5 && (x.from < 0 || x.from >= r->cfg.nseats))) {
			ERR(r, "no such seat in `token`");
			return;
		}
		if (x.from == x.seat) {
			ERR(r, "a seat cannot take a token from itself");
			return;
		}
	} else if (!strcmp(t[0], "score")) {
		int i = 4;
		x.what = X_SCORE;
		if (nt < 4 || !parse_int(t[1], &x.seat) || !parse_int(t[2], &x.points) || (x.sc = find_score_kind(t[3])) < 0) {
			ERR(r, "score wants SEAT POINTS KIND [final] [at X Y [PORT]]");
			return;
		}
		if (x.seat < 0 || x.seat >= r->cfg.nseats) {
			ERR(r, "no seat %d", x.seat);
			return;
		}
		if (i < nt && !strcmp(t[i], "final")) {
			x.final = 1;
			i++;
		}
		if (i < nt && !strcmp(t[i], "at") && placeless(x.sc)) {
			ERR(r, "a %s score has no place: no `at`", score_kind_name(x.sc));
			return;
		}
		if (i < nt && !strcmp(t[i], "at")) {
			if (i + 2 >= nt || !parse_int(t[i + 1], &x.x) || !parse_int(t[i + 2], &x.y)) {
				ERR(r, "`at` wants X Y [PORT]");
				return;
			}
			x.has_at = 1;
			i += 3;
			if (i < nt) {
				if ((x.port = find_port(t[i])) < 0) {
					ERR(r, "unknown port '%s'", t[i]);
					return;
				}
				i++;
			}
		}
		if (i != nt) {
			ERR(r, "unexpected '%s' in score", t[i]);
			return;
		}
		r->exp_sum[x.seat] += x.points;
	} else {
		x.what = X_DISCARD;
		if (nt < 2 || nt > 3 || !parse_tile(r, t[1], &x.tile)) {
			if (nt < 2 || nt > 3) ERR(r, "discard wants TILE [unplaceable|reshuffled]");
			return;
		}
		if (nt == 3) {
			if (!strcmp(t[2], "unplaceable")) x.why = CARC_WHY_UNPLACEABLE;
			else if (!strcmp(t[2], "reshuffled")) x.why = CARC_WHY_RESHUFFLED;
			else {
				ERR(r, "discard reason is unplaceable or reshuffled, not '%s'", t[2]);
				return;
			}
		}
	}
	r->exp[r->nexp++] = x;
}

static void do_turn(run *r, char **t, int nt)
{
	int seat;
	if (nt != 2 || !parse_int(t[1], &seat)) {
		ERR(r, "turn wants SEAT");
		return;
	}
	int got = carc_game_seat(r->g);
	if (got != seat) FAIL(r, "seat %d must decide now (phase %s), expected seat %d", got, carc_phase_name(carc_game_phase(r->g)), seat);
}

/* phase NAME: the decision due now is of that phase (carc_phase_name's names) */
static void do_phase(run *r, char **t, int nt)
{
	int want = -1;
	for (int i = 0; nt == 2 && i < CARC_PH_COUNT; i++)
		if (!strcmp(carc_phase_name(i), t[1])) want = i;
	if (want < 0) {
		ERR(r, "phase wants one of tile action escape wagon flock abbey_final over");
		return;
	}
	int got = carc_game_phase(r->g);
	if (got != want) FAIL(r, "the phase is %s (seat %d to decide), expected %s", carc_phase_name(got), carc_game_seat(r->g), t[1]);
}

/* supply SEAT KIND N, tokens SEAT TOKEN N */
static void do_count(run *r, char **t, int nt)
{
	int seat, n, what;
	int supply = !strcmp(t[0], "supply");
	if (nt != 4 || !parse_int(t[1], &seat) || !parse_int(t[3], &n)) {
		ERR(r, "%s wants SEAT %s N", t[0], supply ? "KIND" : "TOKEN");
		return;
	}
	if (seat < 0 || seat >= r->cfg.nseats) {
		ERR(r, "no seat %d", seat);
		return;
	}
	what = supply ? carc_figkind_parse(t[2]) : find_token(t[2]);
	if (what < 0) {
		ERR(r, "unknown %s '%s'", supply ? "figure kind" : "token", t[2]);
		return;
	}
	if (!r->g) return;
	int got = supply ? carc_supply_count(r->g, seat, what) : carc_tokens(r->g, seat, what);
	if (got != n)
		FAIL(r, "seat %d has %d %s %s, expected %d", seat, got, t[2], supply ? "figures in supply" : "tokens", n);
}

static void do_state(run *r, char **t, int nt)
{
	int seat, n;
	if (nt != 3 || !parse_int(t[1], &seat) || !parse_int(t[2], &n)) {
		ERR(r, "%s wants SEAT N", t[0]);
		return;
	}
	if (seat < 0 || seat >= r->cfg.nseats) {
		ERR(r, "no seat %d", seat);
		return;
	}
	if (!r->g) return;
	if (!strcmp(t[0], "followers")) {
		int got = carc_supply_count(r->g, seat, CARC_FIG_FOLLOWER);
		if (got != n) FAIL(r, "seat %d has %d followers in supply, expected %d", seat, got, n);
		return;
	}
	if (!strcmp(t[0], "abbeys")) {
		int got = carc_abbeys(r->g, seat);
		if (got != n) FAIL(r, "seat %d holds %d abbeys, expected %d", seat, got, n);
		return;
	}
	if (!strcmp(t[0], "ended-now")) { /* carc_end_now on a copy (the daemon's if_ended_now); the game goes on */
		carc_game *copy = malloc(carc_game_size());
		if (!copy) {
			ERR(r, "out of memory");
			return;
		}
		carc_game_clone(copy, r->g);
		carc_end_now(copy, NULL);
		int got = carc_game_score(copy, seat);
		free(copy);
		if (got != n) FAIL(r, "if the game ended now seat %d would have %d points, expected %d", seat, got, n);
		return;
	}
	/* total: the scenario's own sum first, then the engine */
	if (r->exp_sum[seat] != n)
		ERR(r, "total %d for seat %d, but its score lines so far add up to %d", n, seat, r->exp_sum[seat]);
	int got = carc_game_score(r->g, seat);
	if (got != n) FAIL(r, "seat %d has %d points, expected %d", seat, got, n);
	r->total_after_last_move[seat] = 1;
}

static void do_setup(run *r, char **t, int nt)
{
	const char *k = t[0];
	if (!strcmp(k, "name")) return;
	if (!strcmp(k, "seats")) {
		int n;
		if (nt != 2 || !parse_int(t[1], &n) || n < 1 || n > CARC_MAX_SEATS) ERR(r, "seats wants 1..%d", CARC_MAX_SEATS);
		else r->cfg.nseats = (uint8_t)n;
		return;
	}
	if (!strcmp(k, "expansions")) {
		if (nt < 2) {
			ERR(r, "expansions wants NAME...");
			return;
		}
		r->cfg.expansions = 0;
		for (int i = 1; i < nt; i++) {
			int e = carc_expansion_find(t[i]);
			if (e < 0) ERR(r, "unknown expansion '%s'", t[i]);
			else r->cfg.expansions |= 1u << e;
		}
		return;
	}
	if (!strcmp(k, "components")) {
		/* `components` alone: none of the expansions' figures and tokens */
		r->cfg.components_given = 1;
		r->cfg.components = 0;
		for (int i = 1; i < nt; i++) {
			int c = carc_component_find(t[i]);
			if (c < 0) ERR(r, "unknown component '%s'", t[i]);
			else r->cfg.components |= 1u << c;
		}
		return;
	}
	if (!strcmp(k, "seed")) {
		int n;
		if (nt != 2 || !parse_int(t[1], &n)) ERR(r, "seed wants a number");
		else r->cfg.seed = (uint64_t)n;
		return;
	}
	if (!strcmp(k, "rule")) {
		if (nt != 3) {
			ERR(r, "rule wants KEY VALUE");
			return;
		}
		int i = carc_rule_find(t[1]);
		if (i < 0) {
			ERR(r, "unknown rule '%s'", t[1]);
			return;
		}
		const carc_rule_desc *d = carc_rule(i);
		int v = -1;
		if (d->type == 0) v = carc_rule_value(i, t[2]);
		else if (d->type == 1) v = !strcmp(t[2], "true") ? 1 : !strcmp(t[2], "false") ? 0 : -1;
		else if (!parse_int(t[2], &v)) v = -1;
		if (v < 0) ERR(r, "bad value '%s' for rule %s", t[2], t[1]);
		else r->cfg.rules[i] = v;
		return;
	}
	if (!strcmp(k, "start")) {
		int tile, x, y, rot;
		if (nt != 5) {
			ERR(r, "start wants TILE X Y ROT");
			return;
		}
		if (!parse_tile(r, t[1], &tile)) return;
		if (!parse_int(t[2], &x) || !parse_int(t[3], &y) || !parse_rot(t[4], &rot)) {
			ERR(r, "start wants TILE X Y ROT (ROT one of 0 90 180 270)");
			return;
		}
		if (r->cfg.nstart >= CARC_MAX_START) {
			ERR(r, "more than %d start tiles", CARC_MAX_START);
			return;
		}
		r->cfg.start[r->cfg.nstart++] = (carc_start_tile){ (uint16_t)tile, (int16_t)x, (int16_t)y, (uint8_t)rot };
		return;
	}
	if (!strcmp(k, "bag")) {
		/* bag TOKEN...: the Hills & Sheep bag drawn in this order; repeatable (appends) */
		for (int i = 1; i < nt; i++) {
			int tok = find_sheep(t[i]);
			if (tok < 0) ERR(r, "bag wants tokens 1 2 3 4 or wolf, not '%s'", t[i]);
			else if (r->cfg.nbag >= CARC_BAG_DRAWS) ERR(r, "more than %d bag draws", CARC_BAG_DRAWS);
			else r->cfg.bag[r->cfg.nbag++] = (uint8_t)tok;
		}
		return;
	}
	if (!strcmp(k, "tiles")) {
		for (int i = 1; i < nt; i++) {
			int tile;
			if (!parse_tile(r, t[i], &tile)) continue;
			if (r->cfg.ntiles >= CARC_MAX_TILES) {
				ERR(r, "more than %d tiles", CARC_MAX_TILES);
				return;
			}
			r->cfg.tiles[r->cfg.ntiles++] = (uint16_t)tile;
		}
		return;
	}
}

static int is_setup(const char *k)
{
	return !strcmp(k, "name") || !strcmp(k, "seats") || !strcmp(k, "seed") || !strcmp(k, "rule") ||
	       !strcmp(k, "start") || !strcmp(k, "tiles") || !strcmp(k, "expansions") || !strcmp(k, "components") ||
	       !strcmp(k, "bag");
}

static void statement(run *r, char **t, int nt)
{
	const char *k = t[0];
	if (is_setup(k)) {
		if (r->started) ERR(r, "`%s` after the game has started", k);
		else do_setup(r, t, nt);
		return;
	}
	int known = !strcmp(k, "place") || !strcmp(k, "deploy") || !strcmp(k, "pass") || !strcmp(k, "expect-illegal") ||
	            !strcmp(k, "draw") || !strcmp(k, "abbey") || !strcmp(k, "wagon") || !strcmp(k, "abbeys") ||
	            !strcmp(k, "score") || !strcmp(k, "discard") || !strcmp(k, "token") || !strcmp(k, "followers") ||
	            !strcmp(k, "supply") || !strcmp(k, "tokens") || !strcmp(k, "total") || !strcmp(k, "turn") ||
	            !strcmp(k, "escape") || !strcmp(k, "returned") || !strcmp(k, "phase") ||
	            !strcmp(k, "flock") || !strcmp(k, "hidden") || !strcmp(k, "sheep") || !strcmp(k, "ended-now");
	if (!known) {
		ERR(r, "unknown statement '%s'", k);
		return;
	}
	if (!r->started) {
		if (!r->cfg.ntiles) ERR(r, "no `tiles` before the first move");
		start_game(r);
	}
	if (!r->g) return;
	if (!strcmp(k, "place") || !strcmp(k, "deploy") || !strcmp(k, "pass") || !strcmp(k, "escape") || !strcmp(k, "draw") ||
	    !strcmp(k, "abbey") || !strcmp(k, "wagon") || !strcmp(k, "flock"))
		do_move(r, t, nt);
	else if (!strcmp(k, "expect-illegal")) do_illegal(r, t, nt);
	else if (!strcmp(k, "score") || !strcmp(k, "discard") || !strcmp(k, "token") || !strcmp(k, "returned") ||
	         !strcmp(k, "hidden") || !strcmp(k, "sheep"))
		do_expect(r, t, nt);
	else if (!strcmp(k, "turn")) do_turn(r, t, nt);
	else if (!strcmp(k, "phase")) do_phase(r, t, nt);
	else if (!strcmp(k, "supply") || !strcmp(k, "tokens")) do_count(r, t, nt);
	else do_state(r, t, nt);
}

/* Plays one scenario file; returns 1 when everything matched.  The
 * report (failures, one a line) goes to `report`. */
static int run_scenario(const char *path, char *report)
{
	run *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(report, REPORT_SIZE, "%s: out of memory\n", path);
		return 0;
	}
	r->path = path;
	r->report = report;
	report[0] = 0;
	carc_config_init(&r->cfg);
	r->ev = calloc(CARC_MAX_EVENTS, sizeof *r->ev);
	r->sink = (carc_sink){ r->ev, 0, CARC_MAX_EVENTS };

	FILE *f = fopen(path, "r");
	if (!f) {
		say(r, "%s: cannot open: %s\n", path, strerror(errno));
		r->errors++;
	}
	char line[1024];
	while (f && r->ev && fgets(line, sizeof line, f)) {
		r->line++;
		char *hash = strchr(line, '#');
		if (hash) *hash = 0;
		char *t[MAX_TOKENS];
		int nt = 0;
		for (char *save = NULL, *p = strtok_r(line, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
			if (nt == MAX_TOKENS) {
				ERR(r, "too many words on one line");
				break;
			}
			t[nt++] = p;
		}
		if (nt) statement(r, t, nt);
		if (r->errors > 20) break;
	}
	if (f) fclose(f);
	if (f && r->errors <= 20) {
		r->line++;
		if (!r->started) {
			if (!r->cfg.ntiles) ERR(r, "no `tiles`");
			start_game(r);
		}
		if (r->g) {
			flush(r);
			if (!carc_game_over(r->g))
				FAIL(r, "end of file but the game is not over (seat %d to decide in phase %s, %d tiles left)",
				     carc_game_seat(r->g), carc_phase_name(carc_game_phase(r->g)), carc_game_tiles_left(r->g));
			for (int s = 0; s < r->cfg.nseats; s++)
				if (!r->total_after_last_move[s]) ERR(r, "no `total %d ...` after the last move", s);
		}
	}
	int ok = !r->failures && !r->errors;
	free(r->g);
	free(r->ev);
	free(r);
	return ok;
}

/* ---- the Check suite: one test case per file ---------------------------------- */

static char **files;
static int nfiles;
/* The .scn files of must-fail/: scenarios with one wrong expectation each, which the
 * runner must report (the text of their first line, `# must-fail: TEXT`):
 * a runner that stopped checking something would pass every scenario. */
static char **must;
static int nmust;
#define MUST_FAIL "# must-fail: "

/* Check refuses (and counts as an error, losing the run with CK_FORK=no)
 * a failure message past its CK_MAX_MSG_SIZE, 4096 bytes by default: a
 * longer report goes whole to stderr, which the test log keeps, and its
 * start to Check. */
#define CHECK_MSG_ROOM 3000

START_TEST(scenario)
{
	static char report[REPORT_SIZE];
	int ok = run_scenario(files[_i], report);
	size_t len = strlen(report);
	if (!ok && len > CHECK_MSG_ROOM) {
		fprintf(stderr, "%s", report);
		ck_assert_msg(ok, "%.*s\n... (%zu bytes more: the whole report is in the test log)", CHECK_MSG_ROOM, report,
		              len - CHECK_MSG_ROOM);
	}
	ck_assert_msg(ok, "%s", report);
}
END_TEST

START_TEST(must_fail)
{
	static char report[REPORT_SIZE];
	char want[512] = "";
	FILE *f = fopen(must[_i], "r");
	ck_assert_msg(f != NULL, "cannot open %s", must[_i]);
	if (!fgets(want, sizeof want, f)) want[0] = 0;
	fclose(f);
	want[strcspn(want, "\n")] = 0;
	ck_assert_msg(!strncmp(want, MUST_FAIL, strlen(MUST_FAIL)) && want[strlen(MUST_FAIL)],
	              "%s: its first line must be `" MUST_FAIL "TEXT`, TEXT what the runner reports", must[_i]);
	const char *text = want + strlen(MUST_FAIL);
	int ok = run_scenario(must[_i], report);
	ck_assert_msg(!ok, "%s passed: the runner no longer sees `%s`", must[_i], text);
	ck_assert_msg(strstr(report, text) != NULL, "%s failed, but its report does not say `%s`:\n%.*s", must[_i], text,
	              CHECK_MSG_ROOM, report);
}
END_TEST

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_to(char ***list, int *n, const char *path)
{
	char **l = realloc(*list, (size_t)(*n + 1) * sizeof **list);
	if (!l) return 0;
	*list = l;
	l[*n] = strdup(path);
	return l[(*n)++] != NULL;
}

/* Every *.scn in dir, by name, onto list. */
static int scan_into(const char *dir, char ***list, int *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "runner: cannot read %s: %s\n", dir, strerror(errno));
		return 0;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".scn")) continue;
		size_t len = strlen(dir) + n + 2;
		char *path = malloc(len);
		int ok = path != NULL;
		if (ok) snprintf(path, len, "%s/%s", dir, e->d_name);
		ok = ok && add_to(list, count, path);
		free(path);
		if (!ok) {
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	qsort(*list, (size_t)*count, sizeof **list, by_name);
	return 1;
}

/* The scenarios of dir, and the must-fail ones of dir/must-fail, which
 * the project's own directory must have (another, $SCENARIO_DIR, may
 * not). */
static int scan_dir(const char *dir, int own)
{
	char sub[4200];
	snprintf(sub, sizeof sub, "%s/must-fail", dir);
	struct stat st;
	if (!own && stat(sub, &st) != 0) return scan_into(dir, &files, &nfiles);
	return scan_into(dir, &files, &nfiles) && scan_into(sub, &must, &nmust);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (!add_to(&files, &nfiles, argv[i])) return EXIT_FAILURE;
	} else {
		char dir[4096];
		const char *env = getenv("SCENARIO_DIR"), *srcdir = getenv("srcdir");
		if (env) snprintf(dir, sizeof dir, "%s", env);
		else if (srcdir) snprintf(dir, sizeof dir, "%s/tests/scenarios", srcdir);
		else snprintf(dir, sizeof dir, "%s", SCENARIO_DIR);
		if (!scan_dir(dir, !env)) return EXIT_FAILURE;
	}
	if (!nfiles) {
		fprintf(stderr, "runner: no scenario files found\n");
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("scenarios");
	char **names = calloc((size_t)nfiles, sizeof *names);
	if (!names) return EXIT_FAILURE;
	for (int i = 0; i < nfiles; i++) {
		const char *slash = strrchr(files[i], '/');
		names[i] = strdup(slash ? slash + 1 : files[i]);
		TCase *tc = tcase_create(names[i]);
		tcase_set_timeout(tc, 30);
		tcase_add_loop_test(tc, scenario, i, i + 1);
		suite_add_tcase(s, tc);
	}
	if (nmust) {
		TCase *tc = tcase_create("must-fail");
		tcase_set_timeout(tc, 30);
		tcase_add_loop_test(tc, must_fail, 0, nmust);
		suite_add_tcase(s, tc);
	}
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, getenv("CK_VERBOSITY") ? CK_ENV : CK_VERBOSE);
	int failed = srunner_ntests_failed(sr);
	int total = srunner_ntests_run(sr);
	srunner_free(sr);
	printf("scenarios: %d run, %d passed, %d failed (%d must-fail checks among them)\n", total, total - failed, failed,
	       nmust);
	for (int i = 0; i < nfiles; i++) {
		free(files[i]);
		free(names[i]);
	}
	for (int i = 0; i < nmust; i++) free(must[i]);
	free(files);
	free(must);
	free(names);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

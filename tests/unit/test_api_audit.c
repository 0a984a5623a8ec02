/*
 * test_api_audit.c - an audit of the public interface (carc.h) with
 * hostile arguments in unusual games, next to test_api.c and test_moves.c:
 *
 * - games of 1 and 6 seats, every available expansion, each expansion
 *   alone, custom start tiles (several, far apart, of every kind of set),
 *   custom `tiles` lists (every drawable tile type, springs among them),
 *   left-out components, and every value of every rule option;
 * - at each decision: the listing (no move twice, each one accepted by
 *   carc_check_move and carc_apply), and candidate moves of every type
 *   built from the listed ones with one field set to each of a range of
 *   values (in and out of range), every placement of the drawn tile in
 *   and around the board, every kind at every port of the tile just
 *   placed, and random bytes.  carc_check_move and carc_apply give the
 *   same code; a refused move changes nothing (every byte) and records no
 *   event; an accepted move leads to the game and the events a listed
 *   move leads to; the codes carc.h names are the ones given;
 * - carc_end_now in every phase, and every call on the game it ends;
 * - the engine's limits: a board that grows past the frontier the game
 *   has room for is refused at set-up (CARC_E_CAPACITY) or played
 *   without a write out of bounds; a wagon with 280 places to go;
 * - sinks that start past 0, a refused sink at set-up (the game stays as
 *   it was), and carc_game_config keeping the config;
 * - the per-thread set-up cache (engine/README.md): a game is the same
 *   whatever was set up before it on its thread, and on a thread of its
 *   own;
 * - carc_feature_ports at every port (the enclosed features answered, the
 *   corners not) and carc_game_turn_tile's seat when there is no tile.
 */
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static carc_game *game_alloc(void)
{
	carc_game *g = calloc(1, carc_game_size());
	ck_assert_ptr_nonnull(g);
	return g;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* The events of a sink, field by field (a carc_event has padding). */
static uint64_t events_digest(const carc_sink *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	h = fnv(h, &s->n, sizeof s->n);
	for (int i = 0; i < s->n && i < s->cap; i++) {
		const carc_event *e = &s->ev[i];
		int32_t f[] = { e->type, e->seat, e->rot, e->port, e->fkind, e->why, e->final, e->kind,
			        e->from, e->x,    e->y,  e->tile, e->figure, e->ntiles, e->points };
		h = fnv(h, f, sizeof f);
	}
	return h;
}

static int expansion(const char *name)
{
	int e = carc_expansion_find(name);
	ck_assert_int_ge(e, 0);
	return e;
}

static int same_move(const carc_move *a, const carc_move *b)
{
	return a->type == b->type && a->rot == b->rot && a->kind == b->kind && a->port == b->port && a->x == b->x &&
	       a->y == b->y && a->tile == b->tile && a->figure == b->figure;
}

static int cmp_move(const void *a, const void *b)
{
	const carc_move *x = a, *y = b;
	long long kx[] = { x->type, x->rot, x->kind, x->port, x->x, x->y, x->tile, x->figure };
	long long ky[] = { y->type, y->rot, y->kind, y->port, y->x, y->y, y->tile, y->figure };
	for (int i = 0; i < 8; i++)
		if (kx[i] != ky[i]) return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

/* ---- the audit of one decision ------------------------------------------------------------- */

typedef struct audit {
	carc_game *scratch, *scratch2, *ended;
	carc_move list[CARC_MAX_MOVES], sorted[CARC_MAX_MOVES];
	uint64_t outcome[CARC_MAX_MOVES]; /* hash of the game and events a listed move leads to, 0 unknown */
	carc_event ev[CARC_MAX_EVENTS], ev2[CARC_MAX_EVENTS];
	carc_rng rng;
	int n;
	int last_x, last_y, have_last; /* the tile placed last (from its event) */
	long tried, refused, accepted, unlisted_accepted, ended_checked;
	unsigned phases;
	const char *what; /* the game, for messages */
} audit;

static audit *audit_new(const char *what, uint64_t seed)
{
	audit *a = calloc(1, sizeof *a);
	ck_assert_ptr_nonnull(a);
	a->scratch = game_alloc();
	a->scratch2 = game_alloc();
	a->ended = game_alloc();
	carc_rng_seed(&a->rng, seed);
	a->what = what;
	return a;
}

static void audit_free(audit *a)
{
	if (getenv("AUDIT_STATS"))
		fprintf(stderr, "%s: tried %ld, refused %ld, accepted %ld (%ld not as listed), ended %ld, phases %#x\n", a->what,
		        a->tried, a->refused, a->accepted, a->unlisted_accepted, a->ended_checked, a->phases);
	free(a->scratch);
	free(a->scratch2);
	free(a->ended);
	free(a);
}

/* Game and events after `m` on a clone of g (CARC_OK asserted). */
static uint64_t play_outcome(audit *a, const carc_game *g, const carc_move *m)
{
	carc_sink s = { a->ev2, 0, CARC_MAX_EVENTS };
	carc_game_clone(a->scratch2, g);
	carc_rc rc = carc_apply(a->scratch2, m, &s);
	TU_ASSERT_MSG(rc == CARC_OK, "%s: a listed move (type %d at %d,%d) is refused by carc_apply: %s", a->what, m->type,
	              m->x, m->y, carc_strerror(rc));
	return carc_game_hash(a->scratch2) ^ events_digest(&s) * 0x9e3779b97f4a7c15ull;
}

static uint64_t listed_outcome(audit *a, const carc_game *g, int i)
{
	if (!a->outcome[i]) a->outcome[i] = play_outcome(a, g, &a->list[i]) | 1;
	return a->outcome[i];
}

/* What carc.h promises of one move, whatever its bytes. */
static void judge(audit *a, const carc_game *g, const carc_move *m)
{
	a->tried++;
	int detail = -777;
	carc_rc rc = carc_check_move(g, m, &detail);
	TU_ASSERT_MSG(rc >= CARC_OK && rc < CARC_E_COUNT, "%s: carc_check_move answers %d", a->what, rc);
	TU_EQ(carc_check_move(g, m, NULL), rc);
	if (rc == CARC_E_EDGE)
		TU_ASSERT_MSG(detail >= 0 && detail <= 3, "%s: CARC_E_EDGE with edge %d", a->what, detail);
	else
		TU_ASSERT_MSG(detail == -777, "%s: detail written (%d) for %s", a->what, detail, carc_strerror(rc));
	int phase = carc_game_phase(g);
	if (carc_game_over(g)) TU_EQ(rc, CARC_E_OVER);
	else if (m->type >= CARC_MV_COUNT) TU_EQ(rc, CARC_E_ARG);
	else if (phase == CARC_PH_TILE && m->type == CARC_MV_PLACE_TILE && carc_game_drawn(g) >= 0) {
		if (m->tile != carc_game_drawn(g)) TU_ASSERT_MSG(rc == CARC_E_TILE, "%s: a place_tile of tile %d, %d drawn: %s", a->what, m->tile, carc_game_drawn(g), carc_strerror(rc));
		else if (m->rot > 3) TU_EQ(rc, CARC_E_ARG);
	} else if (phase == CARC_PH_ACTION && m->type == CARC_MV_DEPLOY &&
	           (m->kind >= CARC_FIG_COUNT || m->port >= CARC_PORT_COUNT))
		TU_ASSERT_MSG(rc == CARC_E_ARG, "%s: deploy of kind %d at port %d: %s", a->what, m->kind, m->port, carc_strerror(rc));

	carc_sink s = { a->ev, 0, CARC_MAX_EVENTS };
	carc_game_clone(a->scratch, g);
	carc_rc arc = carc_apply(a->scratch, m, &s);
	TU_ASSERT_MSG(arc == rc,
	              "%s: phase %s, move type %d rot %d kind %d port %d at %d,%d tile %d figure %d: carc_check_move %s, "
	              "carc_apply %s",
	              a->what, carc_phase_name(phase), m->type, m->rot, m->kind, m->port, m->x, m->y, m->tile, m->figure,
	              carc_strerror(rc), carc_strerror(arc));
	if (rc != CARC_OK) {
		a->refused++;
		TU_ASSERT_MSG(!memcmp(a->scratch, g, carc_game_size()), "%s: a refused move (type %d, %s) changed the game",
		              a->what, m->type, carc_strerror(rc));
		TU_ASSERT_MSG(s.n == 0, "%s: a refused move recorded %d events", a->what, s.n);
		return;
	}
	a->accepted++;
	for (int i = 0; i < a->n; i++)
		if (same_move(m, &a->list[i])) return;
	a->unlisted_accepted++;
	/* an accepted move not listed as it is: the game and the events of a
	 * listed move of its type (the same place first) */
	uint64_t want = carc_game_hash(a->scratch) ^ events_digest(&s) * 0x9e3779b97f4a7c15ull;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < a->n; i++) {
			const carc_move *l = &a->list[i];
			if (l->type != m->type || (pass == 0) != (l->x == m->x && l->y == m->y)) continue;
			if ((listed_outcome(a, g, i) | 1) == (want | 1)) return;
		}
	ck_abort_msg("%s: phase %s, move type %d rot %d kind %d port %d at %d,%d tile %d figure %d is accepted but leads "
	             "where no listed move does",
	             a->what, carc_phase_name(phase), m->type, m->rot, m->kind, m->port, m->x, m->y, m->tile, m->figure);
}

static const int field_rot[] = { 0, 1, 2, 3, 4, 5, 7, 128, 255 };
static const int field_kind[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 64, 255 };
static const int field_dxy[] = { -1, 1, -2, 2, 1000, -1000 };
static const int field_abs[] = { INT16_MIN, INT16_MAX, -16385, -16384, 16384, 1001, -1001 };
#define N(a) ((int)(sizeof a / sizeof a[0]))

/* A move changed in one field, each field to each value of its list. */
static void mutations(audit *a, const carc_game *g, const carc_move *base)
{
	carc_move m;
	for (int t = 0; t <= CARC_MV_COUNT + 1; t++) {
		m = *base;
		m.type = (uint8_t)t;
		judge(a, g, &m);
	}
	m = *base;
	m.type = 255;
	judge(a, g, &m);
	for (int i = 0; i < N(field_rot); i++) {
		m = *base;
		m.rot = (uint8_t)field_rot[i];
		judge(a, g, &m);
	}
	for (int i = 0; i < N(field_kind); i++) {
		m = *base;
		m.kind = (uint8_t)field_kind[i];
		judge(a, g, &m);
	}
	for (int p = 0; p <= CARC_PORT_COUNT + 1; p++) {
		m = *base;
		m.port = (uint8_t)p;
		judge(a, g, &m);
	}
	m = *base;
	m.port = 255;
	judge(a, g, &m);
	for (int i = 0; i < N(field_dxy); i++) {
		m = *base;
		m.x = (int16_t)(m.x + field_dxy[i]);
		judge(a, g, &m);
		m = *base;
		m.y = (int16_t)(m.y + field_dxy[i]);
		judge(a, g, &m);
	}
	for (int i = 0; i < N(field_abs); i++) {
		m = *base;
		m.x = (int16_t)field_abs[i];
		judge(a, g, &m);
		m = *base;
		m.y = (int16_t)field_abs[i];
		judge(a, g, &m);
	}
	const int tiles[] = { 0, carc_tile_count() - 1, carc_tile_count(), CARC_NONE, 0xfffe, 0x8000, base->tile + 1 };
	for (int i = 0; i < N(tiles); i++) {
		m = *base;
		m.tile = (uint16_t)tiles[i];
		judge(a, g, &m);
	}
	int nf = carc_figure_count(g);
	const int figs[] = { 0, 1, nf - 1, nf, CARC_MAX_SEATS * 16, 255, 256, CARC_NONE, 0x8000, base->figure + 1,
		             base->figure - 1, (int)carc_rng_below(&a->rng, (uint32_t)nf) };
	for (int i = 0; i < N(figs); i++) {
		m = *base;
		m.figure = (uint16_t)figs[i];
		judge(a, g, &m);
	}
}

/* Every placement of the drawn tile at every empty place next to the
 * board and a ring of others: legal exactly when listed. */
static void every_placement(audit *a, const carc_game *g)
{
	int tile = carc_game_drawn(g);
	if (carc_game_phase(g) != CARC_PH_TILE || tile < 0) return;
	carc_move tmpl = { .type = CARC_MV_PLACE_TILE, .tile = (uint16_t)tile, .figure = CARC_NONE };
	for (int i = 0; i < a->n; i++)
		if (a->list[i].type == CARC_MV_PLACE_TILE) {
			tmpl = a->list[i];
			break;
		}
	int cells = carc_board_count(g), step = cells > 60 ? cells / 60 : 1;
	for (int c = (int)carc_rng_below(&a->rng, (uint32_t)step); c < cells; c += step) {
		carc_placed_info p;
		TU_EQ(carc_board_get(g, c, &p), 1);
		for (int dx = -2; dx <= 2; dx++)
			for (int dy = -2; dy <= 2; dy++) {
				if (abs(dx) + abs(dy) > 2) continue;
				for (int r = 0; r < 4; r++) {
					carc_move m = tmpl;
					m.x = (int16_t)(p.x + dx);
					m.y = (int16_t)(p.y + dy);
					m.rot = (uint8_t)r;
					int listed = 0;
					for (int i = 0; i < a->n && !listed; i++) listed = same_move(&m, &a->list[i]);
					carc_rc rc = carc_check_move(g, &m, NULL);
					TU_ASSERT_MSG((rc == CARC_OK) == listed, "%s: tile %s at %d,%d turned %d: %s, %s", a->what,
					              carc_tile_id(tile), m.x, m.y, r, carc_strerror(rc), listed ? "listed" : "not listed");
					if (carc_rng_below(&a->rng, 4) == 0) judge(a, g, &m);
				}
			}
	}
}

/* Every kind (and one past) at every port (and one past) of the tile
 * placed last, and of the start tile. */
static void every_deploy(audit *a, const carc_game *g)
{
	if (carc_game_phase(g) != CARC_PH_ACTION) return;
	int xs[2] = { 0, 0 }, ys[2] = { 0, 0 }, np = 1;
	if (a->have_last) {
		xs[np] = a->last_x;
		ys[np] = a->last_y;
		np++;
	}
	for (int k = 0; k < np; k++)
		for (int kind = 0; kind <= CARC_FIG_COUNT; kind++)
			for (int port = 0; port <= CARC_PORT_COUNT; port++) {
				carc_move m = { .type = CARC_MV_DEPLOY, .kind = (uint8_t)kind, .port = (uint8_t)port,
					        .x = (int16_t)xs[k], .y = (int16_t)ys[k], .tile = CARC_NONE, .figure = CARC_NONE };
				judge(a, g, &m);
			}
}

/* carc_end_now on a clone: the game is over and every call says so. */
static void check_ended(audit *a, const carc_game *g)
{
	carc_game *e = a->ended;
	carc_game_clone(e, g);
	carc_event one;
	carc_sink s = { &one, 0, 1 };
	carc_end_now(e, &s);
	TU_GE(s.n, 1);
	{ /* the same end with room for every event: as many, the same game */
		carc_sink full = { a->ev2, 0, CARC_MAX_EVENTS };
		carc_game_clone(a->scratch2, g);
		carc_end_now(a->scratch2, &full);
		TU_EQ(full.n, s.n);
		TU_LT(full.n, CARC_MAX_EVENTS);
		TU_EQ(a->ev2[full.n - 1].type, CARC_EV_GAME_OVER);
		TU_ASSERT(carc_game_hash(a->scratch2) == carc_game_hash(e));
	}
	TU_EQ(one.type, s.n == 1 ? CARC_EV_GAME_OVER : one.type);
	TU_EQ(carc_game_over(e), 1);
	TU_EQ(carc_game_phase(e), CARC_PH_OVER);
	TU_EQ(carc_game_seat(e), -1);
	TU_EQ(carc_legal_moves(e, NULL, 0), 0);
	TU_EQ(carc_legal_moves(e, a->sorted, CARC_MAX_MOVES), 0);
	for (int seat = 0; seat < carc_game_nseats(e); seat++) {
		int sum = 0;
		for (int k = 0; k < CARC_SC_COUNT; k++) sum += carc_game_score_by(e, seat, k);
		TU_EQ(sum, carc_game_score(e, seat));
		TU_GE(carc_game_score(e, seat), carc_game_score(g, seat));
	}
	/* every figure is where carc_figure_get says, on a tile of the board */
	for (int i = 0; i < carc_figure_count(e); i++) {
		carc_figure_info fi;
		if (!carc_figure_get(e, i, &fi) || !fi.on_board) continue;
		TU_GE(carc_board_find(e, fi.x, fi.y), 0);
	}
	/* a second end, and moves: nothing changes */
	uint64_t h = carc_game_hash(e);
	carc_sink s2 = { NULL, 0, 0 };
	carc_end_now(e, &s2);
	TU_EQ(s2.n, 0);
	TU_EQ(carc_game_hash(e), h);
	carc_move m = a->n ? a->list[0] : (carc_move){ 0 };
	TU_EQ(carc_check_move(e, &m, NULL), CARC_E_OVER);
	TU_EQ(carc_apply(e, &m, &s2), CARC_E_OVER);
	TU_EQ(s2.n, 0);
	TU_EQ(carc_game_hash(e), h);
	a->ended_checked++;
}

/* What carc_figure_get, carc_tile_features and the supply say agree. */
static void check_figures(audit *a, const carc_game *g)
{
	int nseats = carc_game_nseats(g);
	int on[CARC_MAX_SEATS][CARC_FIG_COUNT] = { { 0 } }, all[CARC_MAX_SEATS][CARC_FIG_COUNT] = { { 0 } };
	for (int i = 0; i < carc_figure_count(g); i++) {
		carc_figure_info fi;
		if (!carc_figure_get(g, i, &fi)) continue;
		TU_LT(fi.seat, nseats);
		TU_LT(fi.kind, CARC_FIG_COUNT);
		all[fi.seat][fi.kind]++;
		TU_EQ(carc_figure_find(g, fi.seat, fi.kind, fi.n), i);
		if (!fi.on_board) continue;
		on[fi.seat][fi.kind]++;
		uint16_t ports[32];
		uint8_t kinds[32];
		int nf = carc_tile_features(g, fi.x, fi.y, ports, kinds, 32);
		TU_ASSERT_MSG(nf > 0 && nf <= 32, "%s: figure %d on %d,%d where %d features are", a->what, i, fi.x, fi.y, nf);
		/* a barn stands at a corner (ports CARC_P_NW..SW), every other figure
		 * on a feature named by an edge port; corners have no bit in a uint16_t */
		TU_ASSERT_MSG((fi.port >= CARC_P_NW) == (fi.kind == CARC_FIG_BARN), "%s: figure %d (kind %s) at port %d",
		              a->what, i, carc_figkind_name(fi.kind), fi.port);
		int found = fi.port >= CARC_P_NW;
		for (int k = 0; k < nf && !found; k++) found = (ports[k] >> fi.port & 1) && kinds[k] == fi.fkind;
		TU_ASSERT_MSG(found, "%s: figure %d (kind %d) at %d,%d port %d (%s) is on no such feature of its tile", a->what,
		              i, fi.kind, fi.x, fi.y, fi.port, carc_fkind_name(fi.fkind));
	}
	for (int s = 0; s < nseats; s++)
		for (int k = 0; k < CARC_FIG_COUNT; k++)
			TU_ASSERT_MSG(carc_supply_count(g, s, k) == all[s][k] - on[s][k],
			              "%s: seat %d kind %s: %d in supply, %d figures of which %d on the board", a->what, s,
			              carc_figkind_name(k), carc_supply_count(g, s, k), all[s][k], on[s][k]);
	/* the features of a tile: known kinds, ports of one feature each */
	for (int c = 0; c < carc_board_count(g); c += 1 + c / 8) {
		carc_placed_info p;
		TU_EQ(carc_board_get(g, c, &p), 1);
		uint16_t ports[32];
		uint8_t kinds[32];
		int nf = carc_tile_features(g, p.x, p.y, ports, kinds, 32);
		TU_ASSERT(nf > 0 && nf <= 32);
		unsigned seen = 0;
		for (int k = 0; k < nf; k++) {
			TU_LT(kinds[k], CARC_F_COUNT);
			TU_NE(ports[k], 0);
			TU_ASSERT_MSG(!(seen & ports[k]), "%s: tile %s at %d,%d: a port in two features", a->what,
			              carc_tile_id(p.tile), p.x, p.y);
			seen |= ports[k];
		}
	}
	/* seats the game does not have, though the engine would */
	for (int s = nseats; s < CARC_MAX_SEATS; s++) {
		TU_EQ(carc_figure_find(g, s, CARC_FIG_FOLLOWER, 1), -1);
		TU_EQ(carc_supply_count(g, s, CARC_FIG_FOLLOWER), 0);
		TU_EQ(carc_flock_sheep(g, s, 1), 0);
		TU_EQ(carc_abbeys(g, s), 0);
	}
	for (int s = 0; s < nseats; s++) {
		TU_EQ(carc_flock_sheep(g, s, 0), 0);
		TU_EQ(carc_flock_sheep(g, s, CARC_WOLF), 0);
		TU_EQ(carc_flock_sheep(g, s, -1), 0);
		TU_EQ(carc_flock_sheep(g, s, INT_MAX), 0);
		for (int t = 1; t <= 4; t++) TU_ASSERT(carc_flock_sheep(g, s, t) >= 0 && carc_flock_sheep(g, s, t) <= carc_bag_holds(t));
		TU_EQ(carc_figure_find(g, s, CARC_FIG_FOLLOWER, 0), -1);
		TU_EQ(carc_figure_find(g, s, CARC_FIG_FOLLOWER, 256 + 1), -1);
		TU_EQ(carc_figure_find(g, s, CARC_FIG_COUNT, 1), -1);
		for (int t = 0; t < CARC_TOK_COUNT; t++) TU_GE(carc_tokens(g, s, t), 0);
	}
}

/* One decision: the listing, then the candidates. */
static void audit_decision(audit *a, const carc_game *g, int deep)
{
	uint64_t h0 = carc_game_hash(g);
	carc_game *before = a->ended; /* the bytes, kept in a spare game */
	memcpy(before, g, carc_game_size());
	a->phases |= 1u << carc_game_phase(g);
	int n = a->n = carc_legal_moves(g, a->list, CARC_MAX_MOVES);
	TU_ASSERT_MSG(n > 0 && n <= CARC_MAX_MOVES, "%s: %d legal moves in phase %s", a->what, n,
	              carc_phase_name(carc_game_phase(g)));
	TU_EQ(carc_legal_moves(g, NULL, 0), n);
	TU_EQ(carc_legal_moves(g, NULL, 1), n);
	memset(a->outcome, 0, sizeof a->outcome[0] * (size_t)n);
	/* no move twice */
	memcpy(a->sorted, a->list, sizeof a->list[0] * (size_t)n);
	qsort(a->sorted, (size_t)n, sizeof a->sorted[0], cmp_move);
	for (int i = 1; i < n; i++)
		TU_ASSERT_MSG(!same_move(&a->sorted[i], &a->sorted[i - 1]), "%s: move type %d at %d,%d listed twice", a->what,
		              a->sorted[i].type, a->sorted[i].x, a->sorted[i].y);
	/* a buffer of one holds the first */
	carc_move one[1];
	TU_EQ(carc_legal_moves(g, one, 1), n);
	TU_ASSERT(same_move(one, &a->list[0]));
	if (deep) { /* buffers of exactly cap moves (on the heap: a write past them is caught) */
		const int caps[] = { 1, 2, 3, 5, n / 2, n - 1, n };
		for (int c = 0; c < N(caps); c++) {
			if (caps[c] < 1) continue;
			carc_move *b = malloc(sizeof *b * (size_t)caps[c]);
			ck_assert_ptr_nonnull(b);
			TU_EQ(carc_legal_moves(g, b, caps[c]), n);
			for (int i = 0; i < caps[c] && i < n; i++) TU_ASSERT_MSG(same_move(&b[i], &a->list[i]), "%s: move %d of %d differs with cap %d", a->what, i, n, caps[c]);
			free(b);
		}
	}
	for (int i = 0; i < n; i++) {
		const carc_move *l = &a->list[i];
		TU_LT(l->type, CARC_MV_COUNT);
		if (l->type == CARC_MV_DEPLOY) { /* on a tile of the board, at a port of one of its features */
			TU_LT(l->kind, CARC_FIG_COUNT);
			TU_LT(l->port, CARC_PORT_COUNT);
			uint16_t ports[32];
			int nf = carc_tile_features(g, l->x, l->y, ports, NULL, 32), found = l->port >= 16;
			TU_ASSERT_MSG(nf > 0, "%s: a deploy listed at %d,%d where no tile is", a->what, l->x, l->y);
			for (int k = 0; k < nf && k < 32 && !found; k++) found = ports[k] >> l->port & 1;
			TU_ASSERT_MSG(found, "%s: a deploy listed at %d,%d port %s, a port of no feature", a->what, l->x, l->y,
			              carc_port_name(l->port));
		}
		if (l->type == CARC_MV_PLACE_TILE) {
			TU_EQ(l->tile, carc_game_drawn(g));
			TU_LE(l->rot, 3);
			TU_EQ(carc_board_find(g, l->x, l->y), -1);
		}
		carc_rc rc = carc_check_move(g, l, NULL);
		TU_ASSERT_MSG(rc == CARC_OK, "%s: listed move %d (type %d at %d,%d) refused: %s", a->what, i, a->list[i].type,
		              a->list[i].x, a->list[i].y, carc_strerror(rc));
	}
	if (deep) {
		for (int k = 0; k < 6; k++) listed_outcome(a, g, (int)carc_rng_below(&a->rng, (uint32_t)n));
		/* one move of each type listed, and two more */
		int seen = 0;
		for (int i = 0; i < n; i++)
			if (!(seen >> a->list[i].type & 1)) {
				seen |= 1 << a->list[i].type;
				mutations(a, g, &a->list[i]);
			}
		for (int k = 0; k < 2; k++) mutations(a, g, &a->list[carc_rng_below(&a->rng, (uint32_t)n)]);
		every_placement(a, g);
		every_deploy(a, g);
		/* moves of every type with nothing in them, and random bytes */
		for (int t = 0; t <= CARC_MV_COUNT; t++) {
			carc_move m = { .type = (uint8_t)t };
			judge(a, g, &m);
			m.tile = m.figure = CARC_NONE;
			judge(a, g, &m);
		}
		for (int k = 0; k < 16; k++) {
			carc_move m;
			uint64_t r1 = carc_rng_next(&a->rng), r2 = carc_rng_next(&a->rng);
			memcpy(&m, &r1, 8);
			memcpy((char *)&m + 8, &r2, sizeof m - 8);
			m.type = (uint8_t)(m.type % (CARC_MV_COUNT + 1));
			judge(a, g, &m);
		}
		check_figures(a, g);
	} else {
		carc_move m = a->list[carc_rng_below(&a->rng, (uint32_t)n)];
		judge(a, g, &m);
		m.port = (uint8_t)carc_rng_below(&a->rng, CARC_PORT_COUNT + 2);
		judge(a, g, &m);
		m.figure = (uint16_t)carc_rng_below(&a->rng, 0x10000);
		judge(a, g, &m);
	}
	TU_ASSERT_MSG(carc_game_hash(g) == h0 && !memcmp(before, g, carc_game_size()), "%s: the audit changed the game",
	              a->what);
	if (deep || carc_game_phase(g) > CARC_PH_ACTION) check_ended(a, g);
}

/* After the end: nothing listed, every move E_OVER, nothing changes. */
static void audit_over(audit *a, carc_game *g)
{
	a->phases |= 1u << carc_game_phase(g);
	TU_EQ(carc_game_phase(g), CARC_PH_OVER);
	TU_EQ(carc_game_seat(g), -1);
	TU_EQ(carc_legal_moves(g, NULL, 0), 0);
	a->n = 0;
	carc_move base = { .type = CARC_MV_PASS, .tile = CARC_NONE, .figure = CARC_NONE };
	mutations(a, g, &base);
	base.type = CARC_MV_PLACE_TILE;
	base.x = 1;
	mutations(a, g, &base);
	uint64_t h = carc_game_hash(g);
	carc_sink s = { NULL, 0, 0 };
	carc_end_now(g, &s);
	TU_EQ(s.n, 0);
	TU_EQ(carc_game_hash(g), h);
	check_figures(a, g);
}

/* Plays `cfg` to its end: random listed moves (an accepted candidate is
 * never played: the game goes on from a listed move), the audit at every
 * decision (deep at one in `every`, and in the expansions' own phases). */
static audit *audit_game(const carc_config *cfg, const char *what, int every)
{
	audit *a = audit_new(what, cfg->seed ^ 0x61756469ull);
	carc_game *g = game_alloc();
	carc_sink s = { a->ev, 0, CARC_MAX_EVENTS };
	carc_rc rc = carc_game_init(g, cfg, &s);
	TU_ASSERT_MSG(rc == CARC_OK, "%s: carc_game_init: %s", what, carc_strerror(rc));
	for (int step = 0; !carc_game_over(g); step++) {
		TU_ASSERT_MSG(step < 4000, "%s: the game does not end", what);
		int deep = step % every == 0 || carc_game_phase(g) > CARC_PH_ACTION;
		audit_decision(a, g, deep);
		int pick = (int)carc_rng_below(&a->rng, (uint32_t)a->n);
		/* keep abbeys, mostly, for the final round */
		if (carc_game_phase(g) == CARC_PH_TILE && a->list[pick].type == CARC_MV_PLACE_ABBEY && carc_rng_below(&a->rng, 6))
			for (int i = 0; i < a->n; i++)
				if (a->list[i].type != CARC_MV_PLACE_ABBEY) pick = i;
		carc_sink es = { a->ev, 0, CARC_MAX_EVENTS };
		carc_move m = a->list[pick];
		rc = carc_apply(g, &m, &es);
		TU_ASSERT_MSG(rc == CARC_OK, "%s: a listed move refused: %s", what, carc_strerror(rc));
		TU_ASSERT_MSG(es.n < CARC_MAX_EVENTS, "%s: %d events in one call", what, es.n);
		for (int i = 0; i < es.n; i++)
			if (a->ev[i].type == CARC_EV_TILE_PLACED) {
				a->last_x = a->ev[i].x;
				a->last_y = a->ev[i].y;
				a->have_last = 1;
			}
	}
	audit_over(a, g);
	free(g);
	return a;
}

static void base_config(carc_config *cfg, uint64_t seed)
{
	carc_config_init(cfg);
	cfg->expansions = tu_all_available();
	cfg->seed = seed;
}

/* ---- games --------------------------------------------------------------------------------- */

START_TEST(test_one_seat_everything)
{
	carc_config cfg;
	carc_rng r;
	carc_rng_seed(&r, 101);
	base_config(&cfg, 7001);
	cfg.nseats = 1;
	tu_random_rules(&cfg, &r);
	cfg.rules[CARC_R_ABBEY_FINAL_ROUND] = 1;
	audit *a = audit_game(&cfg, "1 seat, every expansion", 4);
	TU_GT(a->refused, 10000);
	TU_GT(a->accepted, 100);
	TU_GT(a->ended_checked, 10);
	audit_free(a);
}
END_TEST

START_TEST(test_six_seats_components)
{
	/* six seats; every component, then a random half of them, then none */
	for (int k = 0; k < 3; k++) {
		carc_config cfg;
		carc_rng r;
		carc_rng_seed(&r, 202 + (uint64_t)k);
		base_config(&cfg, 7100 + (uint64_t)k);
		cfg.nseats = CARC_MAX_SEATS;
		tu_random_rules(&cfg, &r);
		cfg.rules[CARC_R_ABBEY_FINAL_ROUND] = 1;
		cfg.components_given = 1;
		cfg.components = carc_default_components(cfg.expansions);
		if (k == 1) cfg.components &= (uint32_t)carc_rng_next(&r);
		if (k == 2) cfg.components = 0;
		audit *a = audit_game(&cfg, k == 0 ? "6 seats, every component" : k == 1 ? "6 seats, some components" : "6 seats, no components", 6);
		TU_GT(a->refused, 10000);
		audit_free(a);
	}
}
END_TEST

/* Start tiles of several sets, far apart and at the edges of their range. */
START_TEST(test_custom_starts)
{
	static const char *const sets[][8] = {
		{ "BA/RCr", "RI/s", "BA/L", "IC/CCCC", NULL },
		{ "BA/C", "BA/L", NULL },
		{ "RI/s", "RI/s", NULL },
	};
	static const int16_t where[][2] = { { 0, 0 }, { 1000, -1000 }, { -1000, 1000 }, { 1000, 1000 }, { -1000, -1000 } };
	for (int k = 0; k < N(sets); k++) {
		carc_config cfg;
		base_config(&cfg, 7200 + (uint64_t)k);
		cfg.nseats = (uint8_t)(2 + k);
		for (int i = 0; sets[k][i]; i++) {
			int t = carc_tile_find(sets[k][i]);
			ck_assert_msg(t >= 0, "no tile %s", sets[k][i]);
			cfg.start[i] = (carc_start_tile){ (uint16_t)t, where[i][0], where[i][1], (uint8_t)(i & 3) };
			cfg.nstart = (uint8_t)(i + 1);
		}
		audit *a = audit_game(&cfg, "custom start tiles", 8);
		TU_GT(a->refused, 1000);
		audit_free(a);
	}
}
END_TEST

/* A barn at each of the four corners of the tile just placed: the listing
 * offers each corner once, and the deployed event and carc_figure_get
 * report the corner the move named, NW as much as the others. */
START_TEST(test_barn_at_each_corner)
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.expansions = tu_expansions((const char *const[]){ "base", "abbey-mayor" }, 2);
	cfg.seed = 7250;
	int cloister = tu_tile("BA/L");
	for (int i = 0, y = -1; y <= 1; y++)
		for (int x = -1; x <= 1; x++)
			if (x || y) cfg.start[i++] = (carc_start_tile){ (uint16_t)cloister, (int16_t)x, (int16_t)y, 0 };
	cfg.nstart = 8;
	cfg.ntiles = 2;
	cfg.tiles[0] = cfg.tiles[1] = (uint16_t)cloister;
	carc_game *g = tu_game_new(&cfg, NULL);
	static carc_move moves[CARC_MAX_MOVES];
	/* with abbeys in hand the seat first chooses to draw (PROTOCOL.md `draw`) */
	int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	int draw = tu_find_move(moves, n, &(carc_move){ .type = CARC_MV_DRAW });
	TU_GE(draw, 0);
	tu_apply_ok(g, moves[draw], NULL);
	tu_apply_ok(g, tu_place(g, 0, 0, 0), NULL);
	n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
	unsigned corners = 0;
	for (int i = 0; i < n; i++)
		if (moves[i].type == CARC_MV_DEPLOY && moves[i].kind == CARC_FIG_BARN) {
			TU_GE(moves[i].port, CARC_P_NW);
			TU_LE(moves[i].port, CARC_P_SW);
			TU_ASSERT_MSG(!(corners >> (moves[i].port - CARC_P_NW) & 1), "corner %d listed twice", moves[i].port);
			corners |= 1u << (moves[i].port - CARC_P_NW);
		}
	TU_EQ(corners, 0xf);
	carc_game *h = game_alloc();
	static tu_events ev;
	for (int port = CARC_P_NW; port <= CARC_P_SW; port++) {
		carc_game_clone(h, g);
		carc_move m = tu_deploy(0, 0, port);
		m.kind = CARC_FIG_BARN;
		tu_events_reset(&ev);
		tu_apply_ok(h, m, &ev.sink);
		const carc_event *d = tu_events_nth(&ev, CARC_EV_DEPLOYED, 0);
		TU_ASSERT(d != NULL);
		TU_EQ(d->kind, CARC_FIG_BARN);
		TU_EQ(d->port, port);
		TU_EQ(d->fkind, CARC_F_FIELD);
		carc_figure_info fi;
		TU_EQ(carc_figure_get(h, d->figure, &fi), 1);
		TU_EQ(fi.on_board, 1);
		TU_EQ(fi.x, 0);
		TU_EQ(fi.y, 0);
		TU_EQ(fi.port, port);
	}
	free(h);
	free(g);
}
END_TEST

/* A supply of every drawable tile type of every set, once, springs too. */
START_TEST(test_every_tile_type_once)
{
	carc_config cfg;
	base_config(&cfg, 7300);
	cfg.nseats = 3;
	for (int t = 0; t < carc_tile_count() && cfg.ntiles < CARC_MAX_TILES - 20; t++)
		if (carc_tile_drawable(t) && carc_tile_in_expansions(t, cfg.expansions)) cfg.tiles[cfg.ntiles++] = (uint16_t)t;
	TU_GT(cfg.ntiles, 50);
	audit *a = audit_game(&cfg, "every tile type once", 8);
	TU_GT(a->refused, 1000);
	audit_free(a);
}
END_TEST

/* Each available expansion alone (carc_config: at least one). */
START_TEST(test_each_expansion_alone)
{
	for (int e = 0; e < carc_expansion_count(); e++) {
		if (!carc_expansion(e)->available) continue;
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.expansions = 1u << e;
		cfg.seed = 7400 + (uint64_t)e;
		carc_game *g = game_alloc();
		carc_rc rc = carc_game_init(g, &cfg, NULL);
		free(g);
		/* a set with no standard start tile of its own: given one of its tiles */
		if (rc == CARC_E_ARG) {
			int t = 0;
			while (t < carc_tile_count() && !(carc_tile_expansion(t) == e && carc_tile_drawable(t))) t++;
			TU_LT(t, carc_tile_count());
			cfg.nstart = 1;
			cfg.start[0] = (carc_start_tile){ (uint16_t)t, 0, 0, 0 };
			g = game_alloc();
			rc = carc_game_init(g, &cfg, NULL);
			free(g);
		}
		TU_ASSERT_MSG(rc == CARC_OK, "%s alone: %s", carc_expansion(e)->name, carc_strerror(rc));
		audit *a = audit_game(&cfg, carc_expansion(e)->name, 12);
		audit_free(a);
	}
}
END_TEST

/* Every value of every rule option, in short games with every set. */
START_TEST(test_every_rule_value)
{
	int games = 0;
	for (int rule = 0; rule < CARC_R_COUNT; rule++) {
		const carc_rule_desc *d = carc_rule(rule);
		int nv = 0;
		int32_t values[8];
		if (d->type == 0)
			while (d->values[nv]) values[nv] = nv, nv++;
		else if (d->type == 1)
			values[nv++] = 0, values[nv++] = 1;
		else
			values[nv++] = 0, values[nv++] = INT32_MAX;
		for (int v = 0; v < nv; v++) {
			if (values[v] == d->def) continue;
			carc_config cfg;
			carc_rng r;
			carc_rng_seed(&r, 303 + (uint64_t)rule * 16 + (uint64_t)v);
			base_config(&cfg, 7500 + (uint64_t)games);
			cfg.nseats = (uint8_t)(1 + games % CARC_MAX_SEATS);
			cfg.rules[rule] = values[v];
			tu_crowded_supply(&cfg, &r);
			cfg.ntiles = 30; /* short */
			audit *a = audit_game(&cfg, d->key, 5);
			audit_free(a);
			games++;
		}
	}
	TU_GT(games, CARC_R_COUNT);
}
END_TEST

/* A tile type in the sets of several expansions (carc_tile_in_expansions;
 * carc_tile_expansion names the first only), such as the spring of both
 * rivers, may be listed in `tiles` in a game with any one of them:
 * carc_config.tiles holds "tile types of the chosen expansions", and
 * carc_tile_drawable says a `tiles` list may hold a spring. */
START_TEST(test_shared_tiles)
{
	carc_game *g = game_alloc();
	int shared = 0;
	for (int t = 0; t < carc_tile_count(); t++) {
		if (!carc_tile_drawable(t)) continue;
		for (int e = 0; e < carc_expansion_count(); e++) {
			if (!carc_expansion(e)->available || !carc_tile_in_expansions(t, 1u << e)) continue;
			carc_config cfg;
			carc_config_init(&cfg);
			cfg.expansions |= 1u << e;
			cfg.ntiles = 2;
			cfg.tiles[0] = (uint16_t)tu_tile("BA/L");
			cfg.tiles[1] = (uint16_t)t;
			shared += carc_tile_expansion(t) != e;
			carc_rc rc = carc_game_init(g, &cfg, NULL);
			TU_ASSERT_MSG(rc == CARC_OK, "tile %s (of %s) in `tiles` with base and %s: %s", carc_tile_id(t),
			              carc_expansion(carc_tile_expansion(t))->name, carc_expansion(e)->name, carc_strerror(rc));
		}
	}
	TU_GT(shared, 0);
	free(g);
}
END_TEST

/* Random set-ups: a random mix of sets, 1 to 6 seats, random rules and
 * components, up to 16 start tiles of any known type (near each other or
 * far apart), a random or crowded supply and a random bag.  Set-up gives
 * CARC_OK, CARC_E_ARG (start tiles that touch and do not match) or
 * CARC_E_CAPACITY; the games it sets up are audited. */
#define RANDOM_SETUPS 40
START_TEST(test_random_setups)
{
	int played = 0, from = getenv("AUDIT_SETUPS_FROM") ? atoi(getenv("AUDIT_SETUPS_FROM")) : 0;
	int count = getenv("AUDIT_SETUPS") ? atoi(getenv("AUDIT_SETUPS")) : RANDOM_SETUPS; /* to explore more */
	carc_game *g = game_alloc();
	for (int k = from; k < from + count; k++) {
		carc_rng r;
		carc_rng_seed(&r, 0x5e7u + (uint64_t)k);
		carc_config cfg;
		carc_config_init(&cfg);
		uint32_t all = tu_all_available();
		cfg.expansions = all & ((uint32_t)carc_rng_next(&r) | 1u << expansion("base"));
		if (k % 4 == 0) cfg.expansions = all;
		cfg.nseats = (uint8_t)(1 + carc_rng_below(&r, CARC_MAX_SEATS));
		cfg.seed = carc_rng_next(&r);
		tu_random_rules(&cfg, &r);
		if (carc_rng_below(&r, 2)) {
			cfg.components_given = 1;
			cfg.components = carc_default_components(cfg.expansions) & (uint32_t)carc_rng_next(&r);
		}
		/* start tiles: any tile type of the chosen sets */
		int ns = (int)carc_rng_below(&r, CARC_MAX_START + 1), far = (int)carc_rng_below(&r, 2);
		for (int i = 0; i < ns; i++) {
			int t;
			do t = (int)carc_rng_below(&r, (uint32_t)carc_tile_count());
			while (!carc_tile_in_expansions(t, cfg.expansions));
			int x, y, clash;
			do {
				x = far ? (int)carc_rng_below(&r, 2001) - 1000 : (int)carc_rng_below(&r, 9) - 4;
				y = far ? (int)carc_rng_below(&r, 2001) - 1000 : (int)carc_rng_below(&r, 9) - 4;
				clash = 0;
				for (int j = 0; j < i; j++) clash |= cfg.start[j].x == x && cfg.start[j].y == y;
			} while (clash);
			cfg.start[i] = (carc_start_tile){ (uint16_t)t, (int16_t)x, (int16_t)y, (uint8_t)carc_rng_below(&r, 4) };
		}
		cfg.nstart = (uint8_t)ns;
		switch (carc_rng_below(&r, 3)) {
		case 0: break; /* the sets' supply */
		case 1: tu_crowded_supply(&cfg, &r); break;
		default: /* any drawable tile of the sets, river tiles and springs too */
			cfg.ntiles = (uint16_t)(1 + carc_rng_below(&r, 120));
			for (int i = 0; i < cfg.ntiles; i++) {
				int t;
				do t = (int)carc_rng_below(&r, (uint32_t)carc_tile_count());
				while (!carc_tile_drawable(t) || !carc_tile_in_expansions(t, cfg.expansions) ||
				       !(cfg.expansions >> carc_tile_expansion(t) & 1)); /* see test_shared_tiles */
				cfg.tiles[i] = (uint16_t)t;
			}
		}
		if (carc_rng_below(&r, 2)) { /* a bag drawn in a random order */
			uint8_t bag[CARC_BAG_TOKENS];
			int nb = 0;
			for (int t = 1; t <= CARC_WOLF; t++)
				for (int c = 0; c < carc_bag_holds(t); c++) bag[nb++] = (uint8_t)t;
			TU_EQ(nb, CARC_BAG_TOKENS);
			for (int i = nb - 1; i > 0; i--) {
				int j = (int)carc_rng_below(&r, (uint32_t)i + 1);
				uint8_t tmp = bag[i];
				bag[i] = bag[j];
				bag[j] = tmp;
			}
			cfg.nbag = (uint8_t)(1 + carc_rng_below(&r, CARC_BAG_TOKENS));
			memcpy(cfg.bag, bag, cfg.nbag);
		}
		carc_rc rc = carc_game_init(g, &cfg, NULL);
		TU_ASSERT_MSG(rc == CARC_OK || rc == CARC_E_ARG || rc == CARC_E_CAPACITY, "set-up %d: %s", k, carc_strerror(rc));
		if (rc == CARC_E_ARG) /* only start tiles that touch and do not match */
			TU_ASSERT_MSG(ns > 1 && !far, "set-up %d refused: %s", k, carc_strerror(rc));
		if (rc != CARC_OK) continue;
		char what[64];
		snprintf(what, sizeof what, "random set-up %d", k);
		audit *a = audit_game(&cfg, what, 10);
		audit_free(a);
		played++;
	}
	TU_GT(played, count / 2);
	free(g);
}
END_TEST

/* ---- the engine's limits ------------------------------------------------------------------- */

/* Start tiles far apart, each growing into a line: every placed tile has
 * three new empty places around it, so the frontier holds 2 per tile and
 * 2 per start tile more.  With more than two start tiles and a full
 * board that passes the 2 * CARC_MAX_TILES + 4 places the engine keeps
 * (game_int.h CARC_MAX_FRONTIER).  carc.h: CARC_E_CAPACITY for a game
 * past the engine's limits, and never a write out of bounds. */
static void lines(int nstart)
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.nseats = 1;
	int cloister = tu_tile("BA/L"); /* fields all round: fits next to itself */
	cfg.nstart = (uint8_t)nstart;
	for (int i = 0; i < nstart; i++) cfg.start[i] = (carc_start_tile){ (uint16_t)cloister, 0, (int16_t)(3 * i), 0 };
	cfg.ntiles = (uint16_t)(CARC_MAX_TILES - nstart);
	for (int i = 0; i < cfg.ntiles; i++) cfg.tiles[i] = (uint16_t)cloister;
	carc_game *g = game_alloc();
	carc_rc rc = carc_game_init(g, &cfg, NULL);
	if (rc == CARC_E_CAPACITY) {
		free(g);
		return;
	}
	TU_EQ(rc, CARC_OK);
	int len[CARC_MAX_START], line = 0, placed = 0;
	for (int i = 0; i < nstart; i++) len[i] = 1;
	static carc_move mv[CARC_MAX_MOVES];
	while (!carc_game_over(g)) {
		int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
		TU_GT(n, 0);
		if (carc_game_phase(g) == CARC_PH_TILE) {
			carc_move m = { .type = CARC_MV_PLACE_TILE, .x = (int16_t)len[line], .y = (int16_t)(3 * line),
				        .tile = (uint16_t)carc_game_drawn(g), .figure = CARC_NONE };
			rc = carc_apply(g, &m, NULL);
			TU_ASSERT_MSG(rc == CARC_OK, "%d lines: tile %d at %d,%d: %s", nstart, placed, m.x, m.y, carc_strerror(rc));
			len[line]++;
			line = (line + 1) % nstart;
			placed++;
			/* every tile is still found where it lies */
			for (int i = 0; i < carc_board_count(g); i++) {
				carc_placed_info p;
				TU_EQ(carc_board_get(g, i, &p), 1);
				TU_ASSERT_MSG(carc_board_find(g, p.x, p.y) == i, "%d lines, %d tiles: the tile at %d,%d is lost", nstart,
				              carc_board_count(g), p.x, p.y);
			}
		} else {
			int k = 0;
			for (int i = 0; i < n; i++)
				if (mv[i].type == CARC_MV_PASS) k = i;
			TU_EQ(carc_apply(g, &mv[k], NULL), CARC_OK);
		}
	}
	TU_EQ(carc_board_count(g), CARC_MAX_TILES);
	free(g);
}

START_TEST(test_frontier_two_lines) { lines(2); }
END_TEST
START_TEST(test_frontier_three_lines) { lines(3); }
END_TEST
START_TEST(test_frontier_sixteen_lines) { lines(CARC_MAX_START); }
END_TEST

/* A supply at the limits: CARC_E_CAPACITY or a game that plays. */
START_TEST(test_capacity)
{
	carc_game *g = game_alloc();
	carc_config cfg;
	/* the standard start and CARC_MAX_TILES more: past the board */
	carc_config_init(&cfg);
	cfg.ntiles = CARC_MAX_TILES;
	for (int i = 0; i < CARC_MAX_TILES; i++) cfg.tiles[i] = (uint16_t)tu_tile("BA/L");
	TU_EQ(carc_game_init(g, &cfg, NULL), CARC_E_CAPACITY);
	cfg.ntiles = CARC_MAX_TILES - 1;
	TU_EQ(carc_game_init(g, &cfg, NULL), CARC_OK);
	/* the tile with the most segments, as often as the board holds */
	int most = -1, nmost = 0;
	{
		carc_config one;
		carc_config_init(&one);
		one.expansions = tu_all_available();
		for (int t = 0; t < carc_tile_count(); t++) {
			if (!carc_tile_drawable(t) || !carc_tile_in_expansions(t, one.expansions)) continue;
			one.nstart = 1;
			one.start[0] = (carc_start_tile){ (uint16_t)t, 0, 0, 0 };
			one.ntiles = 1;
			one.tiles[0] = (uint16_t)tu_tile("BA/L");
			if (carc_game_init(g, &one, NULL) != CARC_OK) continue;
			int nf = carc_tile_features(g, 0, 0, NULL, NULL, 0);
			if (nf > nmost) nmost = nf, most = t;
		}
	}
	TU_GE(most, 0);
	/* as many of them as the engine takes, with six seats and their abbeys:
	 * past that CARC_E_CAPACITY, up to it a game that plays */
	carc_config_init(&cfg);
	/* (not the rivers: their spring, the start then, has no road for it) */
	cfg.expansions = tu_all_available() & ~(1u << expansion("river") | 1u << expansion("river2"));
	cfg.nseats = CARC_MAX_SEATS;
	cfg.seed = 77;
	cfg.rules[CARC_R_ABBEY_FINAL_ROUND] = 1;
	carc_rc rc = CARC_E_CAPACITY;
	for (cfg.ntiles = CARC_MAX_TILES - 1 - CARC_MAX_SEATS; cfg.ntiles > 0; cfg.ntiles--) {
		for (int i = 0; i < cfg.ntiles; i++) cfg.tiles[i] = (uint16_t)most;
		rc = carc_game_init(g, &cfg, NULL);
		TU_ASSERT_MSG(rc == CARC_OK || rc == CARC_E_CAPACITY, "%d of %s: %s", cfg.ntiles, carc_tile_id(most),
		              carc_strerror(rc));
		if (rc == CARC_OK) break;
	}
	TU_GT(cfg.ntiles, 100);
	audit *a = audit_game(&cfg, "the most segments the engine takes", 25);
	TU_GT(a->accepted, 100);
	audit_free(a);
	free(g);
}
END_TEST

/* ---- set-up, sinks and the config ------------------------------------------------------------ */

/* A refused sink: "the game and the sink stay as they were". */
START_TEST(test_init_refused_sink_keeps_game)
{
	carc_config cfg, other;
	base_config(&cfg, 1);
	base_config(&other, 2);
	other.nseats = 5;
	carc_game *g = game_alloc(), *copy = game_alloc();
	TU_EQ(carc_game_init(g, &cfg, NULL), CARC_OK);
	memcpy(copy, g, carc_game_size());
	carc_event ev[2];
	carc_sink bad[] = { { ev, -1, 2 }, { NULL, 0, 1 }, { ev, INT_MAX - CARC_MAX_EVENTS + 1, 2 }, { ev, INT_MIN, 2 } };
	for (int i = 0; i < N(bad); i++) {
		carc_sink s = bad[i];
		TU_EQ(carc_game_init(g, &other, &s), CARC_E_ARG);
		TU_EQ(s.n, bad[i].n);
		TU_ASSERT_MSG(!memcmp(copy, g, carc_game_size()), "a refused sink %d: the game changed", i);
	}
	/* the largest count a sink may start from is accepted and goes on */
	carc_sink s = { ev, INT_MAX - CARC_MAX_EVENTS, 2 };
	TU_EQ(carc_game_init(g, &cfg, &s), CARC_OK);
	TU_GT(s.n, INT_MAX - CARC_MAX_EVENTS);
	free(copy);
	free(g);
}
END_TEST

/* A sink that starts at n > 0: only ev[n..cap) is written. */
START_TEST(test_sink_offset)
{
	carc_config cfg;
	base_config(&cfg, 3);
	carc_game *g = game_alloc();
	carc_sink all = { NULL, 0, 0 };
	TU_EQ(carc_game_init(g, &cfg, &all), CARC_OK);
	TU_GE(all.n, 3);
	for (int start = 0; start <= all.n + 1; start++) {
		carc_event ev[64], canary;
		memset(ev, 0xa7, sizeof ev);
		memset(&canary, 0xa7, sizeof canary);
		carc_sink s = { ev, start, 3 };
		TU_EQ(carc_game_init(g, &cfg, &s), CARC_OK);
		TU_EQ(s.n, start + all.n);
		for (int i = 0; i < 64; i++) {
			int written = i >= start && i < 3;
			TU_ASSERT_MSG(!memcmp(&ev[i], &canary, sizeof canary) == !written, "start %d: event %d %s", start, i,
			              written ? "not written" : "written");
		}
	}
	free(g);
}
END_TEST

/* A set-up refused at its second start tile (it touches the first and
 * does not match) records nothing: the first start tile's tile_placed is
 * taken back out of the sink. */
START_TEST(test_init_refused_records_nothing)
{
	carc_config cfg;
	carc_config_init(&cfg);
	int c = tu_tile("BA/C"); /* city N, fields elsewhere */
	cfg.nstart = 2;
	cfg.start[0] = (carc_start_tile){ (uint16_t)c, 0, 0, 0 };
	cfg.start[1] = (carc_start_tile){ (uint16_t)c, 0, -1, 0 }; /* its S field on the first's N city */
	carc_game *g = game_alloc();
	carc_event ev[16];
	carc_sink s = { ev, 2, 16 };
	TU_EQ(carc_game_init(g, &cfg, &s), CARC_E_ARG);
	TU_EQ(s.n, 2);
	cfg.start[1].rot = 2; /* city S on city N: they match */
	TU_EQ(carc_game_init(g, &cfg, &s), CARC_OK);
	TU_GE(s.n, 4);
	TU_EQ(ev[2].type, CARC_EV_TILE_PLACED);
	free(g);
}
END_TEST

/* carc_game_config: the fields and the counted entries, as given. */
START_TEST(test_game_config_kept)
{
	carc_config cfg;
	carc_rng r;
	carc_rng_seed(&r, 9);
	base_config(&cfg, 0xfedcba9876543210ull);
	cfg.nseats = 4;
	tu_random_rules(&cfg, &r);
	tu_crowded_supply(&cfg, &r);
	cfg.nbag = 3;
	cfg.bag[0] = 2;
	cfg.bag[1] = CARC_WOLF;
	cfg.bag[2] = 4;
	cfg.nstart = 2;
	cfg.start[0] = (carc_start_tile){ (uint16_t)tu_tile("BA/RCr"), 0, 0, 0 };
	cfg.start[1] = (carc_start_tile){ (uint16_t)tu_tile("BA/L"), 5, -7, 3 };
	cfg.components_given = 1;
	cfg.components = carc_default_components(cfg.expansions) & ~(1u << CARC_C_PIG);
	carc_game *g = game_alloc();
	TU_EQ(carc_game_init(g, &cfg, NULL), CARC_OK);
	const carc_config *k = carc_game_config(g);
	ck_assert_ptr_nonnull(k);
	TU_EQ(k->nseats, cfg.nseats);
	TU_EQ(k->expansions, cfg.expansions);
	TU_EQ(k->components, cfg.components);
	TU_EQ(k->components_given, 1);
	TU_ASSERT(!memcmp(k->rules, cfg.rules, sizeof cfg.rules));
	TU_ASSERT(k->seed == cfg.seed);
	TU_EQ(k->ntiles, cfg.ntiles);
	TU_ASSERT(!memcmp(k->tiles, cfg.tiles, cfg.ntiles * sizeof cfg.tiles[0]));
	TU_EQ(k->nstart, 2);
	for (int i = 0; i < 2; i++) {
		TU_EQ(k->start[i].tile, cfg.start[i].tile);
		TU_EQ(k->start[i].x, cfg.start[i].x);
		TU_EQ(k->start[i].y, cfg.start[i].y);
		TU_EQ(k->start[i].rot, cfg.start[i].rot);
	}
	TU_EQ(k->nbag, 3);
	TU_ASSERT(!memcmp(k->bag, cfg.bag, 3));
	/* the game the kept config sets up is the same game */
	carc_config copy = *k;
	carc_game *g2 = game_alloc();
	TU_EQ(carc_game_init(g2, &copy, NULL), CARC_OK);
	TU_ASSERT(carc_game_hash(g2) == carc_game_hash(g));
	TU_ASSERT(!memcmp(g2, g, carc_game_size()));
	free(g2);
	free(g);
}
END_TEST

/* carc_config_init gives what carc.h says: base, 2 seats, the defaults. */
START_TEST(test_config_defaults)
{
	carc_config cfg;
	memset(&cfg, 0x5c, sizeof cfg);
	carc_config_init(&cfg);
	TU_EQ(cfg.nseats, 2);
	TU_EQ(cfg.expansions, 1u << expansion("base"));
	TU_EQ(cfg.components_given, 0);
	TU_EQ(cfg.ntiles, 0);
	TU_EQ(cfg.nstart, 0);
	TU_EQ(cfg.nbag, 0);
	for (int i = 0; i < CARC_R_COUNT; i++) TU_EQ(cfg.rules[i], carc_rule(i)->def);
	/* names and parsers round trip */
	for (int i = 0; i < CARC_R_COUNT; i++) {
		TU_EQ(carc_rule_find(carc_rule(i)->key), i);
		for (int v = 0; carc_rule(i)->values && carc_rule(i)->values[v]; v++)
			TU_EQ(carc_rule_value(i, carc_rule(i)->values[v]), v);
	}
	for (int e = 0; e < carc_expansion_count(); e++) TU_EQ(carc_expansion_find(carc_expansion(e)->name), e);
	for (int c = 0; c < CARC_C_NUM; c++)
		if (c != CARC_C_COUNT || strcmp(carc_component_name(c), "?")) TU_EQ(carc_component_find(carc_component_name(c)), c);
	for (int p = 0; p < CARC_PORT_COUNT; p++) TU_EQ(carc_port_parse(carc_port_name(p)), p);
	for (int k = 0; k < CARC_FIG_COUNT; k++) TU_EQ(carc_figkind_parse(carc_figkind_name(k)), k);
	/* start tiles that touch and do not match are refused */
	carc_game *g = game_alloc();
	cfg.nstart = 2;
	cfg.start[0] = (carc_start_tile){ (uint16_t)tu_tile("BA/Cccc+"), 0, 0, 0 }; /* city all round */
	cfg.start[1] = (carc_start_tile){ (uint16_t)tu_tile("BA/L"), 1, 0, 0 };    /* fields all round */
	TU_EQ(carc_game_init(g, &cfg, NULL), CARC_E_ARG);
	cfg.start[1].x = 2;
	TU_EQ(carc_game_init(g, &cfg, NULL), CARC_OK);
	free(g);
}
END_TEST

/* ---- the set-up cache ----------------------------------------------------------------------- */

/* Configurations that share expansions or components or neither: the
 * cache keeps the plan and the supply of the last one set up. */
#define CACHE_CONFIGS 6
static void cache_config(carc_config *cfg, int i)
{
	base_config(cfg, 0x5eed0000u + (uint64_t)i);
	static const char *const hs[] = { "base", "hills-sheep" }, *const am[] = { "base", "abbey-mayor", "river" };
	switch (i) {
	case 0: cfg->expansions = 1u << expansion("base"); break;
	case 1: cfg->expansions = tu_all_available(); cfg->nseats = 6; break;
	case 2: /* as 1, fewer components: another plan, the same supply */
		cfg->expansions = tu_all_available();
		cfg->nseats = 3;
		cfg->components_given = 1;
		cfg->components = carc_default_components(cfg->expansions) & ~(1u << CARC_C_LARGE | 1u << CARC_C_BARN);
		break;
	case 3: cfg->expansions = tu_expansions(hs, 2); cfg->nseats = 4; break;
	case 4: cfg->expansions = tu_expansions(am, 3); cfg->nseats = 5; break;
	default: /* as 4, its own supply */
		cfg->expansions = tu_expansions(am, 3);
		cfg->ntiles = 3;
		cfg->tiles[0] = cfg->tiles[1] = cfg->tiles[2] = (uint16_t)tu_tile("BA/L");
		break;
	}
}

/* The game of configuration i after `moves` random moves: its hash. */
static uint64_t cache_game(int i, int moves)
{
	carc_config cfg;
	cache_config(&cfg, i);
	carc_game *g = game_alloc();
	ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
	carc_move *mv = malloc(CARC_MAX_MOVES * sizeof *mv);
	ck_assert_ptr_nonnull(mv);
	carc_rng r;
	carc_rng_seed(&r, (uint64_t)i);
	for (int k = 0; k < moves && !carc_game_over(g); k++) {
		int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(carc_apply(g, &mv[carc_rng_below(&r, (uint32_t)n)], NULL), CARC_OK);
	}
	uint64_t h = carc_game_hash(g);
	free(mv);
	free(g);
	return h;
}

typedef struct { int config; uint64_t hash[2]; } cache_job;

static void *cache_thread(void *arg)
{
	cache_job *j = arg;
	j->hash[0] = cache_game(j->config, 0);
	j->hash[1] = cache_game(j->config, 60);
	return NULL;
}

START_TEST(test_setup_cache_per_thread)
{
	/* each configuration alone on a fresh thread: nothing cached before it;
	 * all at once, so several threads set up games together */
	cache_job jobs[CACHE_CONFIGS];
	pthread_t th[CACHE_CONFIGS];
	for (int i = 0; i < CACHE_CONFIGS; i++) {
		jobs[i].config = i;
		ck_assert_int_eq(pthread_create(&th[i], NULL, cache_thread, &jobs[i]), 0);
	}
	for (int i = 0; i < CACHE_CONFIGS; i++) ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	/* here, each after each other one: the same games */
	for (int a = 0; a < CACHE_CONFIGS; a++)
		for (int b = 0; b < CACHE_CONFIGS; b++) {
			(void)cache_game(a, 0);
			ck_assert_msg(cache_game(b, 0) == jobs[b].hash[0], "config %d set up after %d differs", b, a);
			ck_assert_msg(cache_game(b, 60) == jobs[b].hash[1], "config %d played after %d differs", b, a);
		}
}
END_TEST

/* carc_feature_ports answers at the edges, half-edges, the centre and the
 * enclosed features (what carc_tile_features lists), never at a corner;
 * carc_game_turn_tile gives -1 in *seat when there is no tile. */
START_TEST(test_feature_ports_every_port)
{
	carc_config cfg;
	base_config(&cfg, 77);
	cfg.expansions = tu_all_available();
	cfg.nseats = 3;
	carc_move *mv = malloc(CARC_MAX_MOVES * sizeof *mv);
	ck_assert_ptr_nonnull(mv);
	long enclosed = 0, before_draw = 0;
	for (int game = 0; game < 6; game++) {
		cfg.seed = 77u + (uint64_t)game;
		carc_game *g = game_alloc();
		ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
		carc_rng r;
		carc_rng_seed(&r, (uint64_t)game);
		while (!carc_game_over(g)) {
			int seat = 1234, t = carc_game_turn_tile(g, &seat);
			if (t < 0) {
				ck_assert_int_eq(seat, -1);
				before_draw++;
			} else {
				ck_assert_int_ge(seat, 0);
				ck_assert_int_lt(seat, cfg.nseats);
			}
			int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
			ck_assert_int_eq(carc_apply(g, &mv[carc_rng_below(&r, (uint32_t)n)], NULL), CARC_OK);
		}
		int seat = 1234;
		ck_assert_int_eq(carc_game_turn_tile(g, &seat), -1);
		ck_assert_int_eq(seat, -1);
		for (int i = 0; i < carc_board_count(g); i++) {
			carc_placed_info pi;
			ck_assert_int_eq(carc_board_get(g, i, &pi), 1);
			uint16_t ports[64];
			int nf = carc_tile_features(g, pi.x, pi.y, ports, NULL, 64);
			ck_assert_int_gt(nf, 0);
			ck_assert_int_le(nf, 64);
			for (int p = 0; p < CARC_PORT_COUNT; p++) {
				unsigned part = 0;
				for (int f = 0; f < nf; f++)
					if (ports[f] >> p & 1) part = ports[f];
				uint16_t whole = carc_feature_ports(g, pi.x, pi.y, p);
				if (p >= CARC_P_NW) {
					ck_assert_int_eq(whole, 0);
					continue;
				}
				/* the whole feature holds the part, and nothing when no part */
				ck_assert_uint_eq(whole & part, part);
				if (!part) ck_assert_int_eq(whole, 0);
				if (part && (p == CARC_P_I || p == CARC_P_II)) enclosed++;
			}
		}
		free(g);
	}
	ck_assert_int_gt(enclosed, 0);
	ck_assert_int_gt(before_draw, 0);
	free(mv);
}
END_TEST

/* ---- what a bot author met (a walk through carc.h and engine/README.md) ------------------- */

/* carc_game_init from the config the game holds: the same game from its
 * start (it wiped the config it was copying, and said CARC_E_ARG). */
START_TEST(test_init_from_own_config)
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.expansions = tu_all_available();
	cfg.nseats = 3;
	cfg.seed = 77;
	carc_game *g = game_alloc(), *fresh = game_alloc();
	carc_move *mv = malloc(sizeof *mv * CARC_MAX_MOVES);
	ck_assert_int_eq(carc_game_init(fresh, &cfg, NULL), CARC_OK);
	ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
	for (int i = 0; i < 40 && !carc_game_over(g); i++) {
		ck_assert_int_gt(carc_legal_moves(g, mv, CARC_MAX_MOVES), 0);
		ck_assert_int_eq(carc_apply(g, &mv[0], NULL), CARC_OK);
	}
	ck_assert_int_eq(carc_game_init(g, carc_game_config(g), NULL), CARC_OK);
	ck_assert_uint_eq(carc_game_hash(g), carc_game_hash(fresh));
	ck_assert_int_eq(carc_game_nseats(g), 3);
	free(mv);
	free(fresh);
	free(g);
}
END_TEST

/* carc.h, carc_move: a move is read by the fields its type uses.  Every
 * listed move, its other fields filled with junk, is legal and plays as
 * listed, in every phase of random games with every set. */
START_TEST(test_moves_read_by_their_fields)
{
	enum { ROT = 1, KIND = 2, PORT = 4, XY = 8, TILE = 16, FIGURE = 32 };
	static const uint8_t reads[CARC_MV_COUNT] = {
		[CARC_MV_PASS] = 0,           [CARC_MV_PLACE_TILE] = TILE | XY | ROT, [CARC_MV_DEPLOY] = KIND | XY | PORT,
		[CARC_MV_ESCAPE] = FIGURE,    [CARC_MV_DRAW] = 0,                   [CARC_MV_PLACE_ABBEY] = XY,
		[CARC_MV_MOVE_WAGON] = XY | PORT, [CARC_MV_FLOCK] = KIND,
	};
	carc_game *g = game_alloc(), *a = game_alloc(), *b = game_alloc();
	carc_move *mv = malloc(sizeof *mv * CARC_MAX_MOVES);
	carc_rng rng;
	carc_rng_seed(&rng, 4242);
	unsigned types = 0;
	long junked = 0;
	for (int game = 0; game < 60; game++) {
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.expansions = tu_all_available();
		cfg.nseats = (uint8_t)(1 + game % 6);
		cfg.seed = (uint64_t)game * 7919u;
		ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
		while (!carc_game_over(g)) {
			int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
			ck_assert_int_gt(n, 0);
			for (int i = 0; i < n; i++) {
				carc_move m = mv[i];
				unsigned f = reads[m.type];
				if (!(f & ROT)) m.rot = (uint8_t)carc_rng_below(&rng, 256);
				if (!(f & KIND)) m.kind = (uint8_t)carc_rng_below(&rng, 256);
				if (!(f & PORT)) m.port = (uint8_t)carc_rng_below(&rng, 256);
				if (!(f & XY)) {
					m.x = (int16_t)carc_rng_below(&rng, 65536);
					m.y = (int16_t)carc_rng_below(&rng, 65536);
				}
				if (!(f & TILE)) m.tile = (uint16_t)carc_rng_below(&rng, 65536);
				if (!(f & FIGURE)) m.figure = (uint16_t)carc_rng_below(&rng, 65536);
				if (f == (ROT | KIND | PORT | XY | TILE | FIGURE)) continue;
				ck_assert_msg(carc_check_move(g, &m, NULL) == CARC_OK, "game %d: a %s with junk in the fields it does not read",
				              game, carc_mtype_name(m.type));
				carc_game_clone(a, g);
				carc_game_clone(b, g);
				ck_assert_int_eq(carc_apply(a, &m, NULL), CARC_OK);
				ck_assert_int_eq(carc_apply(b, &mv[i], NULL), CARC_OK);
				ck_assert_uint_eq(carc_game_hash(a), carc_game_hash(b));
				types |= 1u << m.type;
				junked++;
			}
			ck_assert_int_eq(carc_apply(g, &mv[carc_rng_below(&rng, (uint32_t)n)], NULL), CARC_OK);
		}
	}
	/* every type was met: pass, place_tile, deploy, escape, draw, place_abbey, move_wagon, flock */
	ck_assert_uint_eq(types, (1u << CARC_MV_COUNT) - 1);
	ck_assert_int_gt(junked, 0);
	free(mv);
	free(b);
	free(a);
	free(g);
}
END_TEST

/* carc_placement_refused_by names a set of the game: the river's rule in
 * a River II game is River II's (it named River I). */
START_TEST(test_refused_by_names_a_set_in_the_game)
{
	static const char *const sets[][2] = { { "base", "river2" }, { "base", "river" } };
	for (int k = 0; k < 2; k++) {
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.expansions = tu_expansions(sets[k], 2);
		int refused = 0;
		for (uint64_t seed = 1; seed <= 20; seed++) {
			cfg.seed = seed;
			carc_game *g = tu_game_new(&cfg, NULL);
			int t = carc_game_drawn(g);
			for (int x = -3; x <= 3; x++)
				for (int y = -3; y <= 3; y++)
					for (int r = 0; r < 4; r++) {
						carc_move m = { .type = CARC_MV_PLACE_TILE, .rot = (uint8_t)r, .x = (int16_t)x,
							        .y = (int16_t)y, .tile = (uint16_t)t };
						if (carc_check_move(g, &m, NULL) != CARC_E_RULE) continue;
						ck_assert_int_eq(carc_placement_refused_by(g, t, x, y, r), expansion(sets[k][1]));
						refused++;
					}
			free(g);
		}
		ck_assert_int_gt(refused, 0);
	}
}
END_TEST

/* RULES.md 2.9, 4.8 (wagon_move connected): the wagon may go to any
 * unoccupied, incomplete feature connected to the one scored, however
 * many there are.  A custom supply builds a city of two rows of BA/CccR
 * (city with a road at its gate), 2k tiles long, with the wagon on it;
 * closing it leaves 2k free, incomplete gate roads (each ends at an empty
 * place): 280, past the 128 the wagon's listing once held and the 256
 * moves carc_check_move once looked through.  Every one is listed and
 * accepted, and so is the pass after them. */
START_TEST(test_wagon_with_280_targets)
{
	enum { K = 140 };
	int gate = carc_tile_find("BA/CccR"), plain = carc_tile_find("BA/C");
	struct { int t, x, y, r; } plan[2 * K + 4];
	int n = 0;
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.expansions |= 1u << expansion("abbey-mayor");
	cfg.nseats = 1;
	cfg.nstart = 1;
	cfg.start[0] = (carc_start_tile){ (uint16_t)gate, 0, 0, 2 }; /* (0,0), city N */
	plan[n++] = (__typeof__(plan[0])){ gate, 0, 1, 0 };           /* city S */
	for (int x = 1; x < K; x++) {
		plan[n++] = (__typeof__(plan[0])){ gate, x, 0, 2 };
		plan[n++] = (__typeof__(plan[0])){ gate, x, 1, 0 };
	}
	plan[n++] = (__typeof__(plan[0])){ plain, -1, 0, 1 }; /* the four ends close it */
	plan[n++] = (__typeof__(plan[0])){ plain, -1, 1, 1 };
	plan[n++] = (__typeof__(plan[0])){ plain, K, 0, 3 };
	plan[n++] = (__typeof__(plan[0])){ plain, K, 1, 3 };
	for (int i = 0; i < n; i++) cfg.tiles[i] = (uint16_t)plan[i].t;
	cfg.ntiles = (uint16_t)n;
	carc_game *g = tu_game_new(&cfg, NULL);
	for (int i = 0; i < n && carc_game_phase(g) != CARC_PH_WAGON; i++) {
		carc_move m = { .type = CARC_MV_PLACE_TILE, .tile = (uint16_t)plan[i].t, .x = (int16_t)plan[i].x,
			        .y = (int16_t)plan[i].y, .rot = (uint8_t)plan[i].r };
		ck_assert_int_eq(carc_apply(g, &m, NULL), CARC_OK);
		if (carc_game_phase(g) != CARC_PH_ACTION) continue;
		carc_move d = { .type = CARC_MV_DEPLOY, .kind = CARC_FIG_WAGON, .x = 0, .y = 1, .port = CARC_N };
		carc_move p = { .type = CARC_MV_PASS };
		ck_assert_int_eq(carc_apply(g, i == 0 ? &d : &p, NULL), CARC_OK);
	}
	ck_assert_int_eq(carc_game_phase(g), CARC_PH_WAGON);
	static carc_move mv[CARC_MAX_MOVES];
	int nm = carc_legal_moves(g, mv, CARC_MAX_MOVES), targets = 0;
	for (int i = 0; i < nm; i++) targets += mv[i].type == CARC_MV_MOVE_WAGON;
	ck_assert_int_eq(targets, 2 * K);
	for (int x = 0; x < K; x++)
		for (int y = 0; y <= 1; y++) {
			carc_move w = { .type = CARC_MV_MOVE_WAGON, .x = (int16_t)x, .y = (int16_t)y,
				        .port = (uint8_t)(y ? CARC_S : CARC_N), .tile = CARC_NONE, .figure = CARC_NONE };
			ck_assert_msg(carc_check_move(g, &w, NULL) == CARC_OK, "the gate road at (%d,%d) refused", x, y);
		}
	ck_assert_int_eq(mv[nm - 1].type, CARC_MV_PASS);
	ck_assert_int_eq(carc_check_move(g, &mv[nm - 1], NULL), CARC_OK);
	ck_assert_int_eq(carc_apply(g, &mv[nm - 1], NULL), CARC_OK); /* the wagon stays home */
	free(g);
}
END_TEST

/* engine/README.md, bots that search: a game set up with the tiles seen so
 * far (in the order they left the supply; a hidden one replaced by a tile
 * still to come), another order of the rest and the tokens drawn so far
 * reaches, by the same moves, the same position:
 * the same decision, scores, tiles left and legal moves.  The future is
 * read from a clone played to the end, as a bot would guess it. */
START_TEST(test_search_on_another_future)
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.expansions = tu_all_available();
	carc_game *g = game_alloc(), *h = game_alloc(), *end = game_alloc();
	carc_move *mv = malloc(sizeof *mv * CARC_MAX_MOVES), *m2 = malloc(sizeof *m2 * CARC_MAX_MOVES);
	carc_move *played = malloc(sizeof *played * 4096);
	carc_event *ev = malloc(sizeof *ev * CARC_MAX_EVENTS);
	uint16_t seen[CARC_MAX_TILES], future[CARC_MAX_TILES];
	uint8_t tokens[CARC_BAG_DRAWS];
	carc_rng rng;
	carc_rng_seed(&rng, 99);
	int compared = 0, guessed = 0, beyond = 0;
	for (int game = 0; game < 120; game++) {
		cfg.seed = 1000u + (uint64_t)game;
		cfg.nseats = (uint8_t)(2 + game % 5);
		int nseen = 0, ntok = 0, nplayed = 0, nfuture = 0;
		carc_sink s = { ev, 0, CARC_MAX_EVENTS };
		ck_assert_int_eq(carc_game_init(g, &cfg, &s), CARC_OK);
		int stop = 20 + (int)carc_rng_below(&rng, 300);
		int hidden[CARC_MAX_TILES], nhidden = 0;
		for (;;) {
			for (int i = 0; i < s.n; i++) {
				if (ev[i].type == CARC_EV_TILE_HIDDEN) hidden[nhidden++] = nseen;
				if (ev[i].type == CARC_EV_TILE_DRAWN || ev[i].type == CARC_EV_TILE_HIDDEN) seen[nseen++] = ev[i].tile;
				if (ev[i].type == CARC_EV_SHEEP_DRAWN && ntok < CARC_BAG_DRAWS) tokens[ntok++] = ev[i].kind;
			}
			s.n = 0;
			if (carc_game_over(g) || nplayed == stop) break;
			int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
			played[nplayed] = mv[carc_rng_below(&rng, (uint32_t)n)];
			ck_assert_int_eq(carc_apply(g, &played[nplayed++], &s), CARC_OK);
		}
		if (carc_game_over(g)) continue;
		/* the rest of the supply, in the order it would come */
		carc_game_clone(end, g);
		while (!carc_game_over(end)) {
			ck_assert_int_gt(carc_legal_moves(end, mv, CARC_MAX_MOVES), 0);
			ck_assert_int_eq(carc_apply(end, &mv[0], &s), CARC_OK);
			for (int i = 0; i < s.n; i++)
				if (ev[i].type == CARC_EV_TILE_DRAWN || ev[i].type == CARC_EV_TILE_HIDDEN) future[nfuture++] = ev[i].tile;
			s.n = 0;
		}
		carc_config other = *carc_game_config(g);
		other.seed = 31337u + (uint64_t)game;
		memcpy(other.tiles, seen, sizeof *seen * (size_t)nseen);
		for (int i = 0; i < nfuture; i++) other.tiles[nseen + i] = future[nfuture - 1 - i];
		/* a tile hidden under a hill was never seen: another tile not
		 * seen yet takes its place there, and it goes among the rest */
		int swapped = 0;
		for (int i = 0; i < nhidden && i < nfuture; i++) {
			uint16_t *a = &other.tiles[hidden[i]], *b = &other.tiles[nseen + i], t = *a;
			swapped += *a != *b;
			*a = *b;
			*b = t;
		}
		other.ntiles = (uint16_t)(nseen + nfuture);
		/* the draws so far, also those of tokens that went back to the
		 * bag and came again (more of a token than the bag holds) */
		int of[CARC_WOLF + 1] = { 0 }, fits = ntok <= CARC_BAG_TOKENS;
		for (int i = 0; i < ntok; i++)
			if (++of[tokens[i]] > carc_bag_holds(tokens[i])) fits = 0;
		ck_assert_int_le(ntok, CARC_BAG_DRAWS);
		beyond += !fits;
		other.nbag = (uint8_t)ntok;
		memcpy(other.bag, tokens, (size_t)ntok);
		ck_assert_int_eq(carc_game_init(h, &other, NULL), CARC_OK);
		for (int i = 0; i < nplayed; i++) ck_assert_int_eq(carc_apply(h, &played[i], NULL), CARC_OK);
		ck_assert_int_eq(carc_game_phase(h), carc_game_phase(g));
		ck_assert_int_eq(carc_game_seat(h), carc_game_seat(g));
		ck_assert_int_eq(carc_game_drawn(h), carc_game_drawn(g));
		ck_assert_int_eq(carc_game_tiles_left(h), carc_game_tiles_left(g));
		for (int p = 0; p < cfg.nseats; p++) ck_assert_int_eq(carc_game_score(h, p), carc_game_score(g, p));
		int n1 = carc_legal_moves(g, mv, CARC_MAX_MOVES), n2 = carc_legal_moves(h, m2, CARC_MAX_MOVES);
		ck_assert_int_eq(n1, n2);
		for (int i = 0; i < n1; i++) ck_assert(same_move(&mv[i], &m2[i]));
		compared++;
		guessed += swapped > 0;
	}
	ck_assert_int_ge(compared, 40);
	ck_assert_int_gt(guessed, 0);
	ck_assert_int_gt(beyond, 0); /* games whose draws the bag alone could not list */
	free(ev);
	free(played);
	free(m2);
	free(mv);
	free(end);
	free(h);
	free(g);
}
END_TEST

/* carc_move_index agrees with carc_check_move: each listed move is found
 * at its own place; a move named otherwise (another port, another tile of
 * a wagon's feature, another rotation or place, another kind) is found
 * exactly when it is legal, and then as a listed move of its type, on the
 * feature it names.  A list that is not the decision's finds nothing. */
START_TEST(test_move_index)
{
	static carc_move mv[CARC_MAX_MOVES];
	carc_rng r;
	carc_rng_seed(&r, 5151);
	long found = 0, refused = 0;
	carc_game *a = malloc(carc_game_size()), *b = malloc(carc_game_size());
	ck_assert(a && b);
	for (int game = 0; game < 24; game++) {
		carc_config cfg;
		tu_random_game(&cfg, &r, game);
		if (game % 2 == 0) cfg.expansions = tu_all_available();
		carc_game *g = tu_game_new(&cfg, NULL);
		while (!carc_game_over(g)) {
			int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
			ck_assert_int_gt(n, 0);
			for (int i = 0; i < n; i++) ck_assert_int_eq(carc_move_index(g, mv, n, &mv[i]), i);
			for (int i = 0; i < n; i++) {
				/* named otherwise: every deploy and wagon move, a few placements */
				if (mv[i].type == CARC_MV_PLACE_TILE && carc_rng_below(&r, (uint32_t)n) >= 3) continue;
				for (int t = 0; t < 6; t++) {
					int v = (int)carc_rng_below(&r, CARC_PORT_COUNT + 8);
					carc_move m = mv[i];
					if (v < CARC_PORT_COUNT) m.port = (uint8_t)v;
					else if (v < CARC_PORT_COUNT + 4) m.rot = (uint8_t)((m.rot + v) & 3), m.kind = (uint8_t)((m.kind + v) % CARC_FIG_COUNT);
					else m.x = (int16_t)(m.x + (v & 1 ? 1 - (v & 2) : 0)), m.y = (int16_t)(m.y + (v & 1 ? 0 : 1 - (v & 2)));
					int k = carc_move_index(g, mv, n, &m), legal = carc_check_move(g, &m, NULL) == CARC_OK;
					ck_assert_msg((k >= 0) == legal, "game %d: a %s move found at %d, checked %d", game,
					              carc_mtype_name(m.type), k, legal);
					if (k < 0) {
						refused++;
						continue;
					}
					found++;
					/* the same choice: played, each gives the same game (a
					 * deploy into the other part of a feature the tile holds
					 * in two goes to the part listed) */
					carc_game_clone(a, g);
					carc_game_clone(b, g);
					ck_assert_int_eq(carc_apply(a, &m, NULL), CARC_OK);
					ck_assert_int_eq(carc_apply(b, &mv[k], NULL), CARC_OK);
					ck_assert_msg(carc_game_hash(a) == carc_game_hash(b), "game %d: a %s move plays otherwise than the one listed",
					              game, carc_mtype_name(m.type));
				}
			}
			if (n > 1 && mv[0].type == CARC_MV_PLACE_TILE) ck_assert_int_eq(carc_move_index(g, mv + 1, n - 1, &mv[0]), -1);
			ck_assert_int_eq(carc_move_index(g, mv, 0, &mv[0]), -1);
			ck_assert_int_eq(carc_move_index(g, NULL, n, &mv[0]), -1);
			ck_assert_int_eq(carc_move_index(g, mv, n, NULL), -1);
			ck_assert_int_eq(carc_apply(g, &mv[carc_rng_below(&r, (uint32_t)n)], NULL), CARC_OK);
		}
		free(g);
	}
	ck_assert_int_gt(found, 0);
	ck_assert_int_gt(refused, 0);
	/* a farm on both sides of a road that ends on the tile just placed:
	 * listed once, at its first part; named by the other, it is the move
	 * listed, and plays as it */
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.nstart = 1;
	cfg.start[0] = (carc_start_tile){ (uint16_t)tu_tile("BA/LR"), 0, 0, 3 };
	cfg.ntiles = 2;
	cfg.tiles[0] = (uint16_t)tu_tile("BA/RFr");
	cfg.tiles[1] = (uint16_t)tu_tile("BA/C");
	carc_game *g = tu_game_new(&cfg, NULL);
	tu_apply_ok(g, (carc_move){ .type = CARC_MV_PLACE_TILE, .tile = cfg.tiles[0], .x = 1, .y = 0, .rot = 0 }, NULL);
	int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
	carc_move sl = { .type = CARC_MV_DEPLOY, .kind = CARC_FIG_FOLLOWER, .x = 1, .y = 0,
	                 .port = (uint8_t)carc_port_parse("SL") };
	int k = carc_move_index(g, mv, n, &sl);
	ck_assert_int_ge(k, 0);
	ck_assert_int_ne(mv[k].port, sl.port);
	uint16_t seg[16]; /* SL and the listed port lie on two segments of the tile */
	int nseg = carc_tile_features(g, 1, 0, seg, NULL, 16), on_sl = -1, on_listed = -1;
	for (int i = 0; i < nseg; i++) {
		if (seg[i] >> sl.port & 1) on_sl = i;
		if (seg[i] >> mv[k].port & 1) on_listed = i;
	}
	ck_assert(on_sl >= 0 && on_listed >= 0 && on_sl != on_listed);
	carc_game_clone(a, g);
	carc_game_clone(b, g);
	ck_assert_int_eq(carc_apply(a, &sl, NULL), CARC_OK);
	ck_assert_int_eq(carc_apply(b, &mv[k], NULL), CARC_OK);
	ck_assert(carc_game_hash(a) == carc_game_hash(b));
	free(g);
	free(a);
	free(b);
	/* a list of an earlier decision does not make a move of this one legal */
	carc_config_init(&cfg);
	cfg.seed = 3;
	g = tu_game_new(&cfg, NULL);
	ck_assert_int_gt(carc_legal_moves(g, mv, CARC_MAX_MOVES), 0);
	ck_assert_int_eq(carc_apply(g, &mv[0], NULL), CARC_OK);
	ck_assert_int_eq(carc_game_phase(g), CARC_PH_ACTION);
	n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
	int pass = n - 1;
	ck_assert_int_eq(mv[pass].type, CARC_MV_PASS);
	ck_assert_int_eq(carc_move_index(g, mv, n, &mv[pass]), pass);
	ck_assert_int_eq(carc_apply(g, &mv[pass], NULL), CARC_OK);
	ck_assert_int_eq(carc_game_phase(g), CARC_PH_TILE);
	ck_assert_int_eq(carc_move_index(g, mv, n, &mv[pass]), -1);
	free(g);
}
END_TEST

static Suite *audit_suite(void)
{
	Suite *s = suite_create("api_audit");
	TCase *tc = tcase_create("setup");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_init_refused_sink_keeps_game);
	tcase_add_test(tc, test_sink_offset);
	tcase_add_test(tc, test_init_refused_records_nothing);
	tcase_add_test(tc, test_game_config_kept);
	tcase_add_test(tc, test_config_defaults);
	tcase_add_test(tc, test_shared_tiles);
	tcase_add_test(tc, test_setup_cache_per_thread);
	tcase_add_test(tc, test_feature_ports_every_port);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_capacity);
	tcase_add_test(tc, test_frontier_two_lines);
	tcase_add_test(tc, test_frontier_three_lines);
	tcase_add_test(tc, test_frontier_sixteen_lines);
	tcase_add_test(tc, test_wagon_with_280_targets);
	suite_add_tcase(s, tc);
	tc = tcase_create("index");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_move_index);
	suite_add_tcase(s, tc);
	tc = tcase_create("games");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_one_seat_everything);
	tcase_add_test(tc, test_six_seats_components);
	tcase_add_test(tc, test_custom_starts);
	tcase_add_test(tc, test_barn_at_each_corner);
	tcase_add_test(tc, test_every_tile_type_once);
	tcase_add_test(tc, test_each_expansion_alone);
	tcase_add_test(tc, test_every_rule_value);
	tcase_add_test(tc, test_random_setups);
	tcase_add_test(tc, test_init_from_own_config);
	tcase_add_test(tc, test_moves_read_by_their_fields);
	tcase_add_test(tc, test_refused_by_names_a_set_in_the_game);
	tcase_add_test(tc, test_search_on_another_future);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) { return tu_run(audit_suite()); }

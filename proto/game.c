/*
 * game.c - a game on the wire: the public state (PROTOCOL.md 4.2), moves
 * (section 5), events (section 6) and scores as values; moves read back
 * from values; and why a move is illegal, in words a player understands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
static const char *const side_names[4] = { "north", "east", "south", "west" };

/* Move types of PROTOCOL.md section 5 that expansions bring; the engine
 * does not play them yet, so they are illegal rather than malformed. */
static const char *const later_moves[] = {
	"ransom", "tower_piece", "move_fairy", "remove_knight", "capture",
	"exchange", "move_dragon", "leave_city", "enter_city", "move_count",
	"catapult", "catapult_result", NULL
};

static char *figure_id(proto_arena *a, const carc_figure_info *f)
{
	return proto_arena_printf(a, "%d.%s.%d", f->seat, carc_figkind_name(f->kind), f->n);
}

static proto_val *figure_id_val(proto_arena *a, const carc_game *g, int slot)
{
	carc_figure_info f;
	if (slot == CARC_NONE || !carc_figure_get(g, slot, &f)) return pv_nil(a);
	return pv_str(a, figure_id(a, &f));
}

static proto_val *seat_val(proto_arena *a, int seat) { return seat < 0 ? pv_nil(a) : pv_int(a, seat); }

static void set_seat_figure(proto_arena *a, proto_val *v, const carc_game *g, const carc_event *e)
{
	pv_set(v, "seat", seat_val(a, e->seat));
	pv_set(v, "figure", figure_id_val(a, g, e->figure));
}

static proto_val *tile_val(proto_arena *a, int type)
{
	const char *id = carc_tile_id(type);
	return id ? pv_str(a, id) : pv_nil(a);
}

/* Members shared by moves, events and the board: a tile where it lies,
 * and a point of a feature. */
static void set_tile_at(proto_arena *a, proto_val *v, int tile, int x, int y, int rot)
{
	pv_set(v, "tile", tile_val(a, tile));
	pv_set_int(a, v, "x", x);
	pv_set_int(a, v, "y", y);
	pv_set_int(a, v, "rot", rot * 90);
}

static void set_port_at(proto_arena *a, proto_val *v, int x, int y, int port)
{
	pv_set_int(a, v, "x", x);
	pv_set_int(a, v, "y", y);
	pv_set_str(a, v, "at", carc_port_name(port));
}

proto_val *proto_ports(proto_arena *a, unsigned mask)
{
	proto_val *list = pv_array(a);
	for (int p = 0; p < CARC_PORT_COUNT; p++)
		if (mask >> p & 1) pv_push(list, pv_str(a, carc_port_name(p)));
	return list;
}

int proto_quarter_turns(const proto_val *v)
{
	int64_t deg;
	if (!pv_to_int(v, &deg) || deg < 0 || deg > 270 || deg % 90) return -1;
	return (int)(deg / 90);
}

static void set_port_list(proto_arena *a, proto_val *v, unsigned mask) { pv_set(v, "ports", proto_ports(a, mask)); }

/* `ports`: every port on the tile at (x, y) of the part of a feature
 * touching `port` there, in canonical order (a corner is a port of its
 * own): where a figure stands. */
static void set_ports(proto_arena *a, proto_val *v, const carc_game *g, int x, int y, int port)
{
	uint16_t ports[32]; /* more than any tile has features */
	int n = port < CARC_P_NW ? carc_tile_features(g, x, y, ports, NULL, 32) : 0;
	unsigned mask = 1u << port;
	for (int i = 0; i < n && i < 32; i++)
		if (ports[i] >> port & 1) mask = ports[i];
	set_port_list(a, v, mask);
}

/* Where a figure stands (PROTOCOL.md section 3): x, y, `at` (the first
 * port of its part) and `ports`.  A part's ports never change, so neither
 * does the name the figure was given. */
static void set_feature_at(proto_arena *a, proto_val *v, const carc_game *g, int x, int y, int port)
{
	set_port_at(a, v, x, y, port);
	set_ports(a, v, g, x, y, port);
}

/* A feature completed or scored, as the server names a feature
 * (PROTOCOL.md section 3): x, y, `at` (its first port on that tile) and
 * `ports` (all of them: both parts of a feature the tile holds twice). */
static void set_whole_feature_at(proto_arena *a, proto_val *v, const carc_game *g, int x, int y, int port)
{
	unsigned mask = carc_feature_ports(g, x, y, port);
	if (!(mask >> port & 1)) mask = 1u << port; /* a corner: a port of its own */
	set_port_at(a, v, x, y, __builtin_ctz(mask));
	set_port_list(a, v, mask);
}

proto_val *proto_scores(proto_arena *a, const carc_game *g)
{
	proto_val *s = pv_array(a);
	for (int i = 0; i < carc_game_nseats(g); i++) pv_push(s, pv_int(a, carc_game_score(g, i)));
	return s;
}

/* ---- state -------------------------------------------------------------------- */

static proto_val *seat_state(proto_arena *a, const carc_game *g, int seat, const char *name)
{
	proto_val *s = pv_map(a), *supply = pv_map(a);
	pv_set_int(a, s, "seat", seat);
	pv_set_str(a, s, "name", name);
	pv_set_int(a, s, "score", carc_game_score(g, seat));
	/* every kind the seat has in this game, even when all are out */
	int has[CARC_FIG_COUNT] = { 0 };
	carc_figure_info f;
	for (int i = 0; i < carc_figure_count(g); i++)
		if (carc_figure_get(g, i, &f) && f.seat == seat) has[f.kind] = 1;
	for (int k = 0; k < CARC_FIG_COUNT; k++)
		if (has[k]) pv_set_int(a, supply, carc_figkind_name(k), carc_supply_count(g, seat, k));
	/* the abbey, whether its expansion or `components` brought it: shown
	 * while the game has it, 0 once placed */
	const carc_config *cfg = carc_game_config(g);
	uint32_t components = cfg->components_given ? cfg->components : carc_default_components(cfg->expansions);
	if (components >> CARC_C_ABBEY & 1) pv_set_int(a, supply, "abbey", carc_abbeys(g, seat));
	pv_set(s, "supply", supply);
	proto_val *tokens = pv_map(a);
	for (int t = 0; t < CARC_TOK_COUNT; t++) {
		int n = carc_tokens(g, seat, t);
		if (!n) continue;
		if (t == CARC_TOK_KING || t == CARC_TOK_ROBBER) pv_set_bool(a, tokens, carc_token_name(t), 1);
		else pv_set_int(a, tokens, carc_token_name(t), n);
	}
	pv_set(s, "tokens", tokens);
	pv_set(s, "prisoners", pv_array(a));
	return s;
}

proto_val *proto_state(proto_arena *a, const carc_game *g, const proto_game_meta *m)
{
	proto_val *st = pv_map(a);
	int over = carc_game_over(g);
	pv_set_int(a, st, "game", m->id);
	pv_set_int(a, st, "seq", m->seq);
	pv_set_str(a, st, "phase", carc_phase_name(carc_game_phase(g)));
	pv_set(st, "seat", seat_val(a, carc_game_seat(g)));
	pv_set_bool(a, st, "over", over);
	pv_set_str(a, st, "seed_sha256", m->seed_sha256);
	if (m->reveal) {
		pv_set_int(a, st, "seed", (int64_t)m->seed);
		pv_set_str(a, st, "salt", m->salt);
	}
	int drawer, drawn = carc_game_turn_tile(g, &drawer);
	if (drawn >= 0) {
		proto_val *t = pv_map(a);
		pv_set(t, "id", tile_val(a, drawn));
		pv_set(t, "drawn_by", seat_val(a, drawer));
		pv_set(st, "tile", t);
	} else {
		pv_set_nil(a, st, "tile");
	}
	pv_set_int(a, st, "tiles_left", carc_game_tiles_left(g));
	proto_val *seats = pv_array(a);
	for (int s = 0; s < carc_game_nseats(g); s++) pv_push(seats, seat_state(a, g, s, m->names[s]));
	pv_set(st, "seats", seats);

	/* figures on the board, gathered once, then handed to their tiles */
	int nfig = carc_figure_count(g), non = 0;
	carc_figure_info *on = proto_arena_alloc(a, sizeof *on * (size_t)(nfig ? nfig : 1));
	for (int i = 0; i < nfig; i++)
		if (carc_figure_get(g, i, &on[non]) && on[non].on_board) non++;
	proto_val *board = pv_array(a);
	for (int i = 0; i < carc_board_count(g); i++) {
		carc_placed_info p;
		carc_board_get(g, i, &p);
		proto_val *t = pv_map(a), *figs = pv_array(a);
		set_tile_at(a, t, p.tile, p.x, p.y, p.rot);
		for (int j = 0; j < non; j++) {
			if (on[j].x != p.x || on[j].y != p.y) continue;
			proto_val *f = pv_map(a);
			pv_set_str(a, f, "id", figure_id(a, &on[j]));
			pv_set_str(a, f, "kind", carc_figkind_name(on[j].kind));
			pv_set_str(a, f, "at", carc_port_name(on[j].port));
			set_ports(a, f, g, p.x, p.y, on[j].port);
			pv_set_str(a, f, "feature", carc_fkind_name(on[j].fkind));
			if (on[j].kind == CARC_FIG_SHEPHERD) { /* its flock, as tokens 1-4 in ascending order */
				proto_val *sheep = pv_array(a);
				for (int tok = 1; tok < CARC_WOLF; tok++)
					for (int k = carc_flock_sheep(g, on[j].seat, tok); k > 0; k--) pv_push(sheep, pv_int(a, tok));
				pv_set(f, "sheep", sheep);
			}
			pv_push(figs, f);
		}
		pv_set(t, "figures", figs);
		pv_push(board, t);
	}
	pv_set(st, "board", board);
	proto_val *neutral = pv_map(a);
	pv_set_nil(a, neutral, "dragon");
	pv_set_nil(a, neutral, "fairy");
	pv_set_nil(a, neutral, "count");
	pv_set(st, "neutral", neutral);
	return st;
}

/* ---- moves ------------------------------------------------------------------------ */

proto_val *proto_move(proto_arena *a, const carc_game *g, const carc_move *m)
{
	proto_val *v = pv_map(a);
	pv_set_str(a, v, "type", carc_mtype_name(m->type));
	switch (m->type) {
	case CARC_MV_PLACE_TILE: set_tile_at(a, v, m->tile, m->x, m->y, m->rot); break;
	case CARC_MV_DEPLOY:
		pv_set_str(a, v, "kind", carc_figkind_name(m->kind));
		set_port_at(a, v, m->x, m->y, m->port);
		break;
	case CARC_MV_ESCAPE: pv_set(v, "figure", figure_id_val(a, g, m->figure)); break;
	case CARC_MV_PLACE_ABBEY:
		pv_set_int(a, v, "x", m->x);
		pv_set_int(a, v, "y", m->y);
		break;
	case CARC_MV_MOVE_WAGON: set_port_at(a, v, m->x, m->y, m->port); break;
	case CARC_MV_FLOCK: pv_set_str(a, v, "choice", m->kind ? "gather" : "expand"); break;
	default: break;
	}
	return v;
}

static int kind_at(const carc_game *g, int x, int y, int port);

/* legal_moves' `features`: a deploy or move_wagon also names the feature
 * it goes to as section 3 names one, with `feature` (its kind) and `ports`
 * (of its part on that tile, where the figure will stand): what its
 * `deployed` event will say.  A barn's corner is a field's. */
static void name_feature(proto_arena *a, proto_val *v, const carc_game *g, const carc_move *m)
{
	if (m->type != CARC_MV_DEPLOY && m->type != CARC_MV_MOVE_WAGON) return;
	int kind = m->port < CARC_P_NW ? kind_at(g, m->x, m->y, m->port) : CARC_F_FIELD;
	if (kind >= 0) pv_set_str(a, v, "feature", carc_fkind_name(kind));
	else pv_set_nil(a, v, "feature");
	set_ports(a, v, g, m->x, m->y, m->port);
}

proto_val *proto_moves(proto_arena *a, const carc_game *g, const carc_move *m, int n, int features)
{
	proto_val *v = pv_array(a);
	for (int i = 0; i < n; i++) {
		proto_val *mv = pv_push(v, proto_move(a, g, &m[i]));
		if (features) name_feature(a, mv, g, &m[i]);
	}
	return v;
}

static proto_err bad_move(proto_arena *a, const char **why, const char *fmt, const char *arg)
{
	*why = proto_arena_printf(a, fmt, arg);
	return PROTO_E_INVALID_PARAMS;
}

/* An integer member of a move within int16, the engine's coordinates. */
static proto_err coord(proto_arena *a, const proto_val *v, const char *key, int16_t *out, const char **why)
{
	int64_t i;
	const proto_val *m = pv_opt(v, key);
	if (!m) return bad_move(a, why, "the move needs `%s`", key);
	if (!pv_to_int(m, &i) || i < -32768 || i > 32767)
		return bad_move(a, why, "`%s` of the move must be an integer from -32768 to 32767", key);
	*out = (int16_t)i;
	return PROTO_OK;
}

static const char *str_member(const proto_val *v, const char *key)
{
	const proto_val *m = pv_opt(v, key);
	return m && m->type == PV_STR ? m->u.s : NULL;
}

/* A number of a figure id as the server writes it: decimal digits, no
 * sign, no space, no leading zero; advances *p past it.  -1 if not one. */
static int id_number(const char **p)
{
	const char *s = *p;
	int v = 0, len = 0;
	while (s[len] >= '0' && s[len] <= '9' && len < 6) v = v * 10 + (s[len++] - '0');
	if (!len || (s[0] == '0' && len > 1) || (s[len] >= '0' && s[len] <= '9')) return -1;
	*p = s + len;
	return v;
}

/* A figure id `<seat>.<kind>.<n>` exactly as ids are written (PROTOCOL.md
 * section 3): "00.follower.1" or " 0.follower.1" names no figure. */
static int parse_figure_id(const char *id, int *seat, char kind[16], int *n)
{
	const char *p = id;
	int k = 0;
	if ((*seat = id_number(&p)) < 0 || *p++ != '.') return 0;
	while (*p >= 'a' && *p <= 'z' && k < 15) kind[k++] = *p++;
	kind[k] = 0;
	if (!k || *p++ != '.') return 0;
	return (*n = id_number(&p)) >= 0 && !*p;
}

/* A figure id "<seat>.<kind>.<n>" of this game. */
static proto_err figure_member(proto_arena *a, const carc_game *g, const proto_val *v, uint16_t *fig, const char **why)
{
	const char *id = str_member(v, "figure");
	if (!id) return bad_move(a, why, "%s", "the move needs `figure`, a figure id such as \"0.follower.1\"");
	int seat, n, f = -1;
	char kind[16];
	if (g && parse_figure_id(id, &seat, kind, &n) && carc_figkind_parse(kind) >= 0)
		f = carc_figure_find(g, seat, carc_figkind_parse(kind), n);
	if (f < 0) return bad_move(a, why, "there is no figure `%s` in this game", id);
	*fig = (uint16_t)f;
	return PROTO_OK;
}

proto_err proto_move_parse(proto_arena *a, const carc_game *g, const proto_val *v, carc_move *m, const char **why)
{
	memset(m, 0, sizeof *m);
	m->tile = CARC_NONE;
	m->figure = CARC_NONE;
	if (!v || v->type != PV_MAP) return bad_move(a, why, "%s", "the move must be a map with a `type`");
	const char *type = str_member(v, "type");
	if (!type) return bad_move(a, why, "%s", "the move needs a `type` string");
	proto_err rc;
	if (!strcmp(type, "pass")) {
		m->type = CARC_MV_PASS;
	} else if (!strcmp(type, "place_tile")) {
		m->type = CARC_MV_PLACE_TILE;
		const char *tile = str_member(v, "tile");
		if (!tile) return bad_move(a, why, "%s", "place_tile needs `tile`, a tile id");
		int t = carc_tile_find(tile);
		if (t < 0) return bad_move(a, why, "there is no tile `%s`", tile);
		m->tile = (uint16_t)t;
		if ((rc = coord(a, v, "x", &m->x, why)) || (rc = coord(a, v, "y", &m->y, why))) return rc;
		int rot = proto_quarter_turns(pv_opt(v, "rot"));
		if (rot < 0) return bad_move(a, why, "%s", "`rot` must be 0, 90, 180 or 270");
		m->rot = (uint8_t)rot;
	} else if (!strcmp(type, "deploy")) {
		m->type = CARC_MV_DEPLOY;
		const char *kind = str_member(v, "kind"), *at = str_member(v, "at");
		int k = kind ? carc_figkind_parse(kind) : -1, p = at ? carc_port_parse(at) : -1;
		if (!kind) return bad_move(a, why, "%s", "deploy needs `kind`, a figure kind such as \"follower\"");
		if (k < 0) return bad_move(a, why, "there is no figure kind `%s` (\"follower\", \"large\", \"builder\"...)", kind);
		if (!at) return bad_move(a, why, "%s", "deploy needs `at`, a port such as \"N\", \"NL\" or \"cloister\"");
		if (p < 0) return bad_move(a, why, "there is no port `%s` (\"N\", \"NL\", \"cloister\"...)", at);
		m->kind = (uint8_t)k;
		m->port = (uint8_t)p;
		if ((rc = coord(a, v, "x", &m->x, why)) || (rc = coord(a, v, "y", &m->y, why))) return rc;
	} else if (!strcmp(type, "draw")) {
		m->type = CARC_MV_DRAW;
	} else if (!strcmp(type, "place_abbey")) {
		m->type = CARC_MV_PLACE_ABBEY;
		if ((rc = coord(a, v, "x", &m->x, why)) || (rc = coord(a, v, "y", &m->y, why))) return rc;
	} else if (!strcmp(type, "move_wagon")) {
		m->type = CARC_MV_MOVE_WAGON;
		const char *at = str_member(v, "at");
		int p = at ? carc_port_parse(at) : -1;
		if (p < 0) return bad_move(a, why, "%s", "move_wagon needs `at`, a port such as \"N\" or \"cloister\"");
		m->port = (uint8_t)p;
		if ((rc = coord(a, v, "x", &m->x, why)) || (rc = coord(a, v, "y", &m->y, why))) return rc;
	} else if (!strcmp(type, "flock")) {
		m->type = CARC_MV_FLOCK;
		const char *choice = str_member(v, "choice");
		if (!choice || (strcmp(choice, "expand") && strcmp(choice, "gather")))
			return bad_move(a, why, "%s", "flock needs `choice`: \"expand\" or \"gather\"");
		m->kind = !strcmp(choice, "gather");
	} else if (!strcmp(type, "escape")) {
		m->type = CARC_MV_ESCAPE;
		if ((rc = figure_member(a, g, v, &m->figure, why))) return rc;
	} else {
		for (int i = 0; later_moves[i]; i++)
			if (!strcmp(type, later_moves[i])) {
				*why = proto_arena_printf(a, "%s moves belong to an expansion this game does not have", type);
				return PROTO_E_ILLEGAL_MOVE;
			}
		return bad_move(a, why, "unknown move type `%s`", type);
	}
	return PROTO_OK;
}

/* ---- why a move is illegal ------------------------------------------------------------ */

/* The feature kind at board port `port` of the tile at (x, y), -1 if none. */
static int kind_at(const carc_game *g, int x, int y, int port)
{
	uint16_t ports[32];
	uint8_t kinds[32];
	int n = carc_tile_features(g, x, y, ports, kinds, 32);
	for (int i = 0; i < n && i < 32; i++)
		if (ports[i] >> port & 1) return kinds[i];
	return -1;
}

static const char *explain_edge(proto_arena *a, const carc_game *g, const carc_move *m, int side)
{
	if (side < 0 || side > 3) return carc_strerror(CARC_E_EDGE);
	int nx = m->x + dx[side], ny = m->y + dy[side];
	int b = carc_board_find(g, nx, ny);
	if (b < 0) return carc_strerror(CARC_E_EDGE);
	carc_placed_info p;
	if (!carc_board_get(g, b, &p)) return carc_strerror(CARC_E_EDGE);
	const char *turned = m->rot ? proto_arena_printf(a, " turned %d°", m->rot * 90) : "";
	return proto_arena_printf(a, "the %s edge of %s%s (%s) does not match the %s of the tile to the %s (%s at %d,%d)",
	                          side_names[side], carc_tile_id(m->tile), turned, carc_tile_edge(m->tile, m->rot, side),
	                          carc_tile_edge(p.tile, p.rot, (side + 2) & 3), side_names[side], carc_tile_id(p.tile),
	                          nx, ny);
}

/* The move types the decision due takes, as "a, b or c". */
static const char *open_types(proto_arena *a, const carc_game *g)
{
	carc_move *list = proto_arena_alloc(a, sizeof *list * CARC_MAX_MOVES);
	int n = carc_legal_moves(g, list, CARC_MAX_MOVES);
	unsigned types = 0;
	for (int i = 0; i < n && i < CARC_MAX_MOVES; i++) types |= 1u << list[i].type;
	const char *out = "no move";
	int k = 0;
	for (int t = 0; t < CARC_MV_COUNT; t++) {
		if (!(types >> t & 1)) continue;
		unsigned rest = types >> (t + 1);
		out = k++ == 0 ? carc_mtype_name(t)
		               : proto_arena_printf(a, "%s%s%s", out, rest ? ", " : " or ", carc_mtype_name(t));
	}
	return out;
}

/* "abbey" or "cloister": the building placed at (x, y). */
static const char *cloister_at(const carc_game *g, int x, int y)
{
	carc_placed_info p = { 0, 0, 0, 0 };
	carc_board_get(g, carc_board_find(g, x, y), &p);
	return p.tile == carc_tile_find("AM/A") ? "abbey" : "cloister";
}

/* The condition of a rule that refuses a move (carc_move_refusal's
 * reason `rf`, naming the place ax, ay), in words: a clause that follows
 * what the move may not do. */
static const char *rule_words(proto_arena *a, const carc_game *g, const carc_move *m, int rf, int ax, int ay)
{
	int k = m->type == CARC_MV_MOVE_WAGON || m->type == CARC_MV_DEPLOY ? kind_at(g, m->x, m->y, m->port) : -1;
	const char *what = k < 0 ? "feature" : carc_fkind_name(k);
	switch (rf) {
	case CARC_RF_RIVER_UNJOINED:
		return "a river tile must continue the river from an open end, and its river meets none here";
	case CARC_RF_RIVER_JOINS:
		return "its river would join two ends of the river, and the river's branches must never meet";
	case CARC_RF_RIVER_U_TURN:
		return "it would turn the river the same way as the tile it continues, a U-turn";
	case CARC_RF_RIVER_ROOM:
		return proto_arena_printf(a, "its river would run on into (%d,%d), and that place, the one beyond it "
		                             "and the places beside those two must all be empty, so that the river cannot "
		                             "turn back on itself or meet its other branch", ax, ay);
	case CARC_RF_RIVER_ENDS: return "it would close the river while river tiles are still to come";
	case CARC_RF_RIVER_BOXED:
		return "it would leave the river an open end that none of the river tiles still to come can continue";
	case CARC_RF_RIVER_NOT_FREE:
		return "another placement leaves the river a free end, from which the river tiles still to come can always "
		       "go on, and this one does not";
	case CARC_RF_CULT_TWO_CLOISTERS:
		return "a cult place may not be next to (diagonals count) more than one cloister or abbey, and this one "
		       "would be next to two";
	case CARC_RF_CLOISTER_TWO_CULTS:
		return "a cloister or abbey may not be next to (diagonals count) more than one cult place, and this one "
		       "would be next to two";
	case CARC_RF_CLOISTER_HAS_CULT:
		return proto_arena_printf(a, "the %s at (%d,%d) has a cult place next to it (diagonals count) already, and "
		                             "a cloister or abbey may not be next to more than one", cloister_at(g, ax, ay),
		                          ax, ay);
	case CARC_RF_CULT_HAS_CLOISTER:
		return proto_arena_printf(a, "the cult place at (%d,%d) has a cloister or abbey next to it (diagonals "
		                             "count) already, and a cult place may not be next to more than one", ax, ay);
	case CARC_RF_ABBEY_NOT_HOLE:
		return "it goes only into a hole, an empty place with a tile on each of its four sides";
	case CARC_RF_VOLCANO_LAKE: return "no figure may stand on the volcano lake";
	case CARC_RF_FARM_HAS_BARN:
		return proto_arena_printf(a, "no more farmers may join a farm that has a barn, and the barn at (%d,%d) "
		                             "stands in this one", ax, ay);
	case CARC_RF_NEEDS_OWN_FOLLOWER:
		return proto_arena_printf(a, "a %s joins only a feature where you have a follower, and you have none in "
		                             "this %s", carc_figkind_name(m->kind), k == CARC_F_FIELD ? "farm" : what);
	case CARC_RF_FARM_HAS_SHEPHERD:
		return proto_arena_printf(a, "a shepherd goes only into a farm where no shepherd stands, and the shepherd "
		                             "at (%d,%d) stands in this one", ax, ay);
	case CARC_RF_BARN_NOT_FIELD:
		return "a barn goes on a corner where four tiles meet in one field, and that corner of this tile is not "
		       "one field";
	case CARC_RF_BARN_NO_TILE:
		return proto_arena_printf(a, "a barn goes on a corner where four tiles meet in one field, and (%d,%d) has "
		                             "no tile", ax, ay);
	case CARC_RF_BARN_SPLIT:
		return proto_arena_printf(a, "a barn goes on a corner where four tiles meet in one field, and the corner "
		                             "of the tile at (%d,%d) there is not one field", ax, ay);
	case CARC_RF_BARN_FARM_HAS_BARN:
		return proto_arena_printf(a, "that farm has a barn already, at (%d,%d), and a farm takes one barn "
		                             "(barn_placement no-second-barn)", ax, ay);
	case CARC_RF_WAGON_NO_TILE: return "no tile is there";
	case CARC_RF_WAGON_NOTHING: return proto_arena_printf(a, "that tile has nothing at %s", carc_port_name(m->port));
	case CARC_RF_WAGON_KIND:
		return proto_arena_printf(a, "a wagon goes only onto a road, city or cloister, never a %s", what);
	case CARC_RF_WAGON_COMPLETE: return proto_arena_printf(a, "that %s is complete", what);
	case CARC_RF_WAGON_OCCUPIED: return proto_arena_printf(a, "a follower stands in that %s already", what);
	case CARC_RF_WAGON_OUT_OF_REACH: /* RULES.md 2.9: C1 connected, C2 the 3 x 3 tiles */
		return carc_game_config(g)->rules[CARC_R_WAGON_MOVE] == 0
		               ? proto_arena_printf(a, "that %s is not connected to the feature just scored (wagon_move "
		                                       "connected: a road going on through a junction, a road ending at a "
		                                       "city or cloister, the cloister a road enters)", what)
		               : proto_arena_printf(a, "that %s is not on the wagon's tile (%d,%d) or one of the eight "
		                                       "around it (wagon_move adjacent-tiles)", what, ax, ay);
	case CARC_RF_ESCAPE_NOT_YOURS: return "it is not yours, and only the seat on turn frees followers";
	case CARC_RF_ESCAPE_NOT_IN_CITY:
		return "only a follower standing in a city escapes (not a builder or pig, nor a figure in the supply)";
	case CARC_RF_ESCAPE_NOT_BESIEGED:
		return "its city is not besieged: followers escape only from a city with a siege tile";
	case CARC_RF_ESCAPE_NO_CLOISTER:
		return carc_game_config(g)->rules[CARC_R_ESCAPE_CLOISTER] == 0
		               ? "no cloister, abbey or cult place stands next to a siege tile of its city (escape_cloister "
		                 "siege-tile)"
		               : "no cloister, abbey or cult place stands next to a tile of its city (escape_cloister "
		                 "any-tile)";
	case CARC_RF_ESCAPE_DONE:
		return "a follower has escaped from that city this turn already, and escape each-city frees one a city";
	default: return "a rule of the expansion in play forbids it";
	}
}

/* The refusals whose place is not the move's own: data gets x and y. */
static int names_place(int rf)
{
	switch (rf) {
	case CARC_RF_RIVER_ROOM:
	case CARC_RF_CLOISTER_HAS_CULT:
	case CARC_RF_CULT_HAS_CLOISTER:
	case CARC_RF_FARM_HAS_BARN:
	case CARC_RF_FARM_HAS_SHEPHERD:
	case CARC_RF_BARN_NO_TILE:
	case CARC_RF_BARN_SPLIT:
	case CARC_RF_BARN_FARM_HAS_BARN:
	case CARC_RF_WAGON_OUT_OF_REACH: return 1;
	default: return 0;
	}
}

/* Why a placement of tile `type` at (x, y) turned rot is refused by a
 * rule, in words (the abbey's too, at rot 0). */
static const char *placement_rule(proto_arena *a, const carc_game *g, int type, int x, int y, int rot)
{
	int ax = x, ay = y, rf = carc_placement_refusal(g, type, x, y, rot, &ax, &ay);
	carc_move m = { .type = CARC_MV_PLACE_TILE, .x = (int16_t)x, .y = (int16_t)y, .tile = (uint16_t)type };
	return rule_words(a, g, &m, rf, ax, ay);
}

uint32_t proto_config_components(const carc_config *cfg)
{
	return cfg->components_given ? cfg->components : carc_default_components(cfg->expansions);
}

/* What a move type needs that this game has not at all (so that it is
 * never open, whatever the phase), in words; NULL when it has it. */
static const char *absent_for(const carc_game *g, int type)
{
	const carc_config *cfg = carc_game_config(g);
	uint32_t has = proto_config_components(cfg);
	switch (type) {
	case CARC_MV_DRAW:
	case CARC_MV_PLACE_ABBEY: return has >> CARC_C_ABBEY & 1 ? NULL : "abbey (Abbey & Mayor, or the `abbey` component)";
	case CARC_MV_MOVE_WAGON: return has >> CARC_C_WAGON & 1 ? NULL : "wagon (Abbey & Mayor, or the `wagon` component)";
	case CARC_MV_FLOCK: return has >> CARC_C_SHEPHERD & 1 ? NULL : "shepherd (Hills & Sheep, or the `shepherd` component)";
	case CARC_MV_ESCAPE:
		return cfg->expansions >> carc_expansion_find("cathars") & 1 ? NULL : "besieged cities (the cathars expansion)";
	}
	return NULL;
}

/* Why the seat on turn, whose tile `drawn` is drawn, was not offered its
 * abbey this turn (RULES.md 2.9: instead of drawing, into a hole, once a
 * game, not while the river is laid). */
static const char *no_abbey_now(proto_arena *a, const carc_game *g, int drawn)
{
	if (carc_abbeys(g, carc_game_seat(g)) <= 0) return "your abbey is on the board already";
	if (carc_tile_deal_rank(drawn) < 3) return "the abbey waits until the river is laid";
	int abbey = carc_tile_find("AM/A"), nholes = 0, hx = 0, hy = 0;
	for (int i = 0; i < carc_board_count(g); i++) {
		carc_placed_info p;
		if (!carc_board_get(g, i, &p)) continue;
		for (int d = 0; d < 4; d++) {
			int x = p.x + dx[d], y = p.y + dy[d], sides = 0;
			if (carc_board_find(g, x, y) >= 0) continue;
			for (int e = 0; e < 4; e++) sides += carc_board_find(g, x + dx[e], y + dy[e]) >= 0;
			if (sides < 4) continue;
			if (carc_placement_refused_by(g, abbey, x, y, 0) < 0) /* one hole takes it */
				return "the abbey is played instead of drawing, when the turn begins, and this turn's tile is "
				       "drawn";
			if (!nholes++) {
				hx = x;
				hy = y;
			}
		}
	}
	if (!nholes) return "there is no hole for it, an empty place with a tile on each of its four sides";
	return proto_arena_printf(a, "no hole takes it: at (%d,%d), %s", hx, hy, placement_rule(a, g, abbey, hx, hy, 0));
}

/* proto_move_explain's words; a refusal by a rule is carc_move_refusal's
 * `rf`, naming the place ax, ay. */
static const char *explain(proto_arena *a, const carc_game *g, const carc_move *m, carc_rc rc, int detail, int rf,
                           int ax, int ay)
{
	int drawn = carc_game_drawn(g);
	carc_placed_info last = { 0, 0, 0, 0 };
	if (carc_board_count(g) > 0) carc_board_get(g, carc_board_count(g) - 1, &last);
	switch (rc) {
	case CARC_E_PHASE: {
		const char *now;
		if (carc_game_phase(g) == CARC_PH_TILE && drawn >= 0)
			now = proto_arena_printf(a, "first place the tile you drew (%s) with a place_tile move", carc_tile_id(drawn));
		else if (carc_game_phase(g) == CARC_PH_ACTION)
			now = "the tile is already placed: deploy a figure on it or pass";
		else
			now = proto_arena_printf(a, "%s %s move is not open now: the %s decision takes %s",
			                         strchr("aeiou", carc_mtype_name(m->type)[0]) ? "an" : "a", carc_mtype_name(m->type),
			                         carc_phase_name(carc_game_phase(g)), open_types(a, g));
		/* a move this game never takes says so too */
		const char *absent = absent_for(g, m->type);
		if (absent) return proto_arena_printf(a, "%s; and this game has no %s at all", now, absent);
		if (m->type == CARC_MV_PLACE_ABBEY && carc_game_phase(g) == CARC_PH_TILE && drawn >= 0)
			return proto_arena_printf(a, "%s: %s", now, no_abbey_now(a, g, drawn));
		return now;
	}
	case CARC_E_TILE:
		return proto_arena_printf(a, "you drew %s, not %s", drawn >= 0 ? carc_tile_id(drawn) : "no tile",
		                          carc_tile_id(m->tile));
	case CARC_E_OCCUPIED: {
		carc_placed_info p = { 0, 0, 0, 0 };
		int b = carc_board_find(g, m->x, m->y);
		if (b >= 0) carc_board_get(g, b, &p);
		return proto_arena_printf(a, "there is already a tile at (%d,%d): %s", m->x, m->y,
		                          b >= 0 ? carc_tile_id(p.tile) : "?");
	}
	case CARC_E_NOT_ADJACENT:
		return proto_arena_printf(a, "(%d,%d) does not touch a placed tile edge to edge", m->x, m->y);
	case CARC_E_EDGE: return explain_edge(a, g, m, detail);
	case CARC_E_NOT_TILE_JUST_PLACED:
		return proto_arena_printf(a, "figures go on the tile just placed, at (%d,%d), not (%d,%d)", last.x, last.y,
		                          m->x, m->y);
	case CARC_E_NO_FEATURE:
		if (m->kind == CARC_FIG_BARN && m->port < CARC_P_NW) /* a port of a feature, not a corner */
			return proto_arena_printf(a, "a barn goes on a corner of the tile (nw, ne, se or sw), not at %s",
			                          carc_port_name(m->port));
		if (m->port <= CARC_W) { /* a field is named by the edge's halves */
			int l = CARC_NL + 2 * m->port, kl = kind_at(g, m->x, m->y, l), kr = kind_at(g, m->x, m->y, l + 1);
			if (kl >= 0 || kr >= 0)
				return proto_arena_printf(a, "the tile at (%d,%d) has nothing to stand on at %s itself: a field is "
				                             "named by a half of the edge, %s or %s", m->x, m->y,
				                          carc_port_name(m->port), carc_port_name(l), carc_port_name(l + 1));
		}
		return proto_arena_printf(a, "the tile at (%d,%d) has nothing to stand on at %s", m->x, m->y,
		                          carc_port_name(m->port));
	case CARC_E_FEATURE_TAKEN: {
		int k = kind_at(g, m->x, m->y, m->port);
		const char *what = k < 0 ? "feature" : carc_fkind_name(k);
		return proto_arena_printf(a, "the %s at %s of (%d,%d) is already occupied: a follower stands on the connected %s",
		                          what, carc_port_name(m->port), m->x, m->y, what);
	}
	case CARC_E_NO_FIGURE:
		if (carc_figure_find(g, carc_game_seat(g), m->kind, 1) < 0)
			return proto_arena_printf(a, "there are no %s figures in this game", carc_figkind_name(m->kind));
		return proto_arena_printf(a, "you have no %s left in your supply", carc_figkind_name(m->kind));
	case CARC_E_RULE: {
		const char *why = rule_words(a, g, m, rf, ax, ay);
		switch (m->type) {
		case CARC_MV_PLACE_TILE:
			return proto_arena_printf(a, "%s may not go at (%d,%d) turned %d°: %s", carc_tile_id(m->tile), m->x, m->y,
			                          m->rot * 90, why);
		case CARC_MV_PLACE_ABBEY: return proto_arena_printf(a, "the abbey may not go at (%d,%d): %s", m->x, m->y, why);
		case CARC_MV_MOVE_WAGON:
			return proto_arena_printf(a, "the wagon may not move to %s of (%d,%d): %s", carc_port_name(m->port), m->x,
			                          m->y, why);
		case CARC_MV_ESCAPE: return proto_arena_printf(a, "that figure may not escape now: %s", why);
		case CARC_MV_DEPLOY:
			return proto_arena_printf(a, "a %s may not stand at %s of (%d,%d): %s",
			                          m->kind == CARC_FIG_LARGE ? "large follower" : carc_figkind_name(m->kind),
			                          carc_port_name(m->port), m->x, m->y, why);
		default: return proto_arena_printf(a, "that %s move is not one of the moves open now", carc_mtype_name(m->type));
		}
	}
	case CARC_E_KIND: {
		int farmers = carc_game_config(g)->rules[CARC_R_FARMERS];
		if (m->kind == CARC_FIG_BARN && !farmers)
			return "a barn stands in a field, and this game is played without farmers: no barns either";
		int k = kind_at(g, m->x, m->y, m->port);
		return proto_arena_printf(a, "a %s may not stand on a %s%s",
		                          m->kind == CARC_FIG_LARGE ? "large follower" : carc_figkind_name(m->kind),
		                          k < 0 ? "feature" : carc_fkind_name(k),
		                          k == CARC_F_FIELD && !farmers ? " (this game is played without farmers)" : "");
	}
	default: return carc_strerror(rc);
	}
}

/* An illegal move's reason as data (PROTOCOL.md, "Why a move is
 * illegal"): {reason} and, where the reason is about a place other than
 * the move's own, x and y (an edge: the neighbour's, and `at` its edge);
 * rf, ax, ay as explain() takes them. */
static proto_val *move_reason(proto_arena *a, const carc_game *g, const carc_move *m, carc_rc rc, int detail, int rf,
                              int ax, int ay)
{
	proto_val *v = pv_map(a);
	const char *reason = "other";
	int x = 0, y = 0, place = 0, at = -1;
	switch (rc) {
	case CARC_E_PHASE: reason = absent_for(g, m->type) ? PROTO_REASON_NOT_IN_GAME : "not_open_now"; break;
	case CARC_E_TILE: reason = "not_the_drawn_tile"; break;
	case CARC_E_OCCUPIED: reason = "place_taken"; break;
	case CARC_E_NOT_ADJACENT: reason = "not_adjacent"; break;
	case CARC_E_EDGE:
		reason = "edge_mismatch";
		if (detail >= 0 && detail <= 3 && carc_board_find(g, m->x + dx[detail], m->y + dy[detail]) >= 0) {
			x = m->x + dx[detail];
			y = m->y + dy[detail];
			place = 1;
			at = (detail + 2) & 3;
		}
		break;
	case CARC_E_NOT_TILE_JUST_PLACED: {
		carc_placed_info last = { 0, 0, 0, 0 };
		place = carc_board_count(g) > 0 && carc_board_get(g, carc_board_count(g) - 1, &last);
		x = last.x;
		y = last.y;
		reason = "not_tile_just_placed";
		break;
	}
	case CARC_E_NO_FEATURE: reason = "nothing_there"; break;
	case CARC_E_FEATURE_TAKEN: reason = "feature_occupied"; break;
	case CARC_E_NO_FIGURE:
		reason = carc_figure_find(g, carc_game_seat(g), m->kind, 1) < 0 ? PROTO_REASON_NOT_IN_GAME : "no_figure_left";
		break;
	case CARC_E_KIND: reason = "figure_kind"; break;
	case CARC_E_RULE:
		reason = carc_refusal_name(rf);
		place = names_place(rf);
		x = ax;
		y = ay;
		break;
	default: break;
	}
	pv_set_str(a, v, "reason", reason);
	if (place) {
		pv_set_int(a, v, "x", x);
		pv_set_int(a, v, "y", y);
	}
	if (at >= 0) pv_set_str(a, v, "at", carc_port_name(at));
	return v;
}

const char *proto_move_explain(proto_arena *a, const carc_game *g, const carc_move *m, carc_rc rc, int detail,
                               proto_val **data)
{
	int ax = m->x, ay = m->y, rf = rc == CARC_E_RULE ? carc_move_refusal(g, m, &ax, &ay) : CARC_RF_NONE;
	if (data) *data = move_reason(a, g, m, rc, detail, rf, ax, ay);
	return explain(a, g, m, rc, detail, rf, ax, ay);
}

/* ---- events ---------------------------------------------------------------------------- */

proto_val *proto_event(proto_arena *a, const carc_game *g, const carc_event *e)
{
	proto_val *v = pv_map(a);
	pv_set_str(a, v, "type", carc_etype_name(e->type));
	switch (e->type) {
	case CARC_EV_TILE_DRAWN:
		pv_set(v, "seat", seat_val(a, e->seat));
		pv_set(v, "tile", tile_val(a, e->tile));
		break;
	case CARC_EV_TILE_PLACED:
		pv_set(v, "seat", seat_val(a, e->seat)); /* nil for a start tile */
		set_tile_at(a, v, e->tile, e->x, e->y, e->rot);
		break;
	case CARC_EV_TILE_DISCARDED:
		pv_set(v, "tile", tile_val(a, e->tile));
		pv_set_str(a, v, "why", carc_why_name(e->why));
		break;
	case CARC_EV_DEPLOYED:
		set_seat_figure(a, v, g, e);
		pv_set_str(a, v, "kind", carc_figkind_name(e->kind));
		set_feature_at(a, v, g, e->x, e->y, e->port);
		pv_set_str(a, v, "feature", carc_fkind_name(e->fkind));
		break;
	case CARC_EV_RETURNED:
		set_seat_figure(a, v, g, e);
		pv_set_str(a, v, "why", carc_why_name(e->why));
		break;
	case CARC_EV_FEATURE_COMPLETED:
		pv_set_str(a, v, "feature", carc_fkind_name(e->fkind));
		set_whole_feature_at(a, v, g, e->x, e->y, e->port);
		pv_set_int(a, v, "tiles", e->ntiles);
		break;
	case CARC_EV_SCORED:
		pv_set(v, "seat", seat_val(a, e->seat));
		pv_set_int(a, v, "points", e->points);
		pv_set_str(a, v, "feature", carc_sc_name(e->fkind));
		if (e->port < CARC_PORT_COUNT) {
			set_whole_feature_at(a, v, g, e->x, e->y, e->port);
		} else { /* goods, the king and the robber belong to no place */
			pv_set_nil(a, v, "x");
			pv_set_nil(a, v, "y");
			pv_set_nil(a, v, "at");
			pv_set_nil(a, v, "ports");
		}
		pv_set_bool(a, v, "final", e->final);
		break;
	case CARC_EV_TOKEN_TAKEN:
		pv_set(v, "seat", seat_val(a, e->seat));
		pv_set_str(a, v, "token", carc_token_name(e->kind));
		if (e->from >= 0) pv_set_int(a, v, "from", e->from);
		break;
	case CARC_EV_TURN: pv_set(v, "seat", seat_val(a, e->seat)); break;
	case CARC_EV_TILE_HIDDEN:
		pv_set_int(a, v, "x", e->x);
		pv_set_int(a, v, "y", e->y);
		break;
	case CARC_EV_SHEEP_DRAWN:
		pv_set(v, "seat", seat_val(a, e->seat));
		pv_set_int(a, v, "x", e->x);
		pv_set_int(a, v, "y", e->y);
		if (e->kind == CARC_WOLF) pv_set_str(a, v, "token", "wolf");
		else pv_set_int(a, v, "token", e->kind);
		break;
	case CARC_EV_GAME_OVER: pv_set(v, "scores", proto_scores(a, g)); break;
	default: break;
	}
	return v;
}

proto_val *proto_events(proto_arena *a, const carc_game *g, const carc_event *ev, int n)
{
	proto_val *v = pv_array(a);
	for (int i = 0; i < n; i++)
		pv_push(v, proto_event(a, g, &ev[i]));
	return v;
}

void proto_set_decision(proto_arena *a, proto_val *v, const carc_game *g)
{
	pv_set_str(a, v, "phase", carc_phase_name(carc_game_phase(g)));
	pv_set(v, "seat", seat_val(a, carc_game_seat(g)));
	pv_set_bool(a, v, "over", carc_game_over(g));
}

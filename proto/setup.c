/*
 * setup.c - a game's set-up on the wire (PROTOCOL.md section 4, new_game:
 * players, expansions, components, rules, tiles, start, bag) to an engine
 * configuration.  carcd reads new_game with it, and a client that rebuilds
 * a game from `history`'s `setup` (contrib/bots/mc_bot.c) reads the same
 * map the same way.
 */
#include <stdio.h>
#include <string.h>

#include "proto.h"

/* A player name: 1 to PROTO_MAX_NAME bytes of UTF-8 (no surrogates, no
 * overlong forms) with no control character, C0, DEL or C1 (U+0080 to
 * U+009F, written c2 80 to c2 9f).  The daemon's journal checks the names
 * it reads back with it too. */
int proto_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > PROTO_MAX_NAME) return 0;
	const uint8_t *p = (const uint8_t *)s;
	for (size_t i = 0; i < n;) {
		int len = proto_utf8_len(p + i, n - i);
		if (!len || p[i] < 0x20 || p[i] == 0x7f || (p[i] == 0xc2 && p[i + 1] < 0xa0)) return 0;
		i += (size_t)len;
	}
	return 1;
}

static int valid_name(const proto_val *v) { return v->type == PV_STR && proto_name_ok(v->u.s, v->n); }

#define INVALID(...) (*why = proto_arena_printf(a, __VA_ARGS__), PROTO_E_INVALID_PARAMS)

static proto_err parse_players(proto_arena *a, const proto_val *v, carc_config *cfg, const char **names, const char **why)
{
	if (v->n < 1 || v->n > CARC_MAX_SEATS) return INVALID("`players` lists 1 to %d names", CARC_MAX_SEATS);
	int i = 0;
	for (const proto_val *p = v->u.c.first; p; p = p->next, i++) {
		if (!valid_name(p))
			return INVALID("player %d: a name is a string of 1 to %d bytes of UTF-8 without control characters", i,
			               PROTO_MAX_NAME);
		names[i] = p->u.s;
	}
	cfg->nseats = (uint8_t)v->n;
	return PROTO_OK;
}

proto_err proto_expansions_parse(proto_arena *a, const proto_val *v, uint32_t *out, const char **why)
{
	if (!v) return PROTO_OK;
	if (v->type != PV_ARRAY || v->n == 0) return INVALID("`expansions` names at least one, e.g. [\"base\"]");
	uint32_t mask = 0;
	for (const proto_val *e = v->u.c.first; e; e = e->next) {
		if (e->type != PV_STR) return INVALID("`expansions` is a list of names");
		int i = carc_expansion_find(e->u.s);
		if (i < 0) return INVALID("unknown expansion `%s`", e->u.s);
		if (!carc_expansion(i)->available) return INVALID("expansion `%s` is not available yet", e->u.s);
		mask |= 1u << i;
	}
	*out = mask;
	return PROTO_OK;
}

/* For a map of names (components, rule options): each known name's last
 * entry goes to last[] by its index (a name given twice: the last counts,
 * in both encodings, as the JSON reader keeps only the last).  Returns the
 * first entry with an unknown name, or NULL. */
static const proto_val *last_entries(const proto_val *v, int (*find)(const char *), const proto_val **last)
{
	for (const proto_val *m = v ? v->u.c.first : NULL; m; m = m->next) {
		int i = strlen(m->key) == m->klen ? find(m->key) : -1;
		if (i < 0) return m;
		last[i] = m;
	}
	return NULL;
}

/* Components start as those of the chosen expansions; the map switches
 * single ones on or off.  One whose rules are not built yet is refused. */
static proto_err parse_components(proto_arena *a, const proto_val *v, carc_config *cfg, const char **why)
{
	uint32_t available = 0;
	for (int i = 0; i < carc_expansion_count(); i++)
		if (carc_expansion(i)->available) available |= carc_expansion(i)->components;
	cfg->components = carc_default_components(cfg->expansions);
	cfg->components_given = 1;
	const proto_val *last[CARC_C_NUM] = { NULL }, *unknown = last_entries(v, carc_component_find, last);
	if (unknown) return INVALID("unknown component `%s`", unknown->key);
	for (const proto_val *m = v ? v->u.c.first : NULL; m; m = m->next) {
		int c = carc_component_find(m->key);
		if (last[c] != m) continue; /* given again later */
		if (m->type != PV_BOOL) return INVALID("component `%s` must be true or false", m->key);
		if (m->u.b && !(available >> c & 1)) return INVALID("component `%s` is not available yet", m->key);
		if (m->u.b) cfg->components |= 1u << c;
		else cfg->components &= ~(1u << c);
	}
	return PROTO_OK;
}

static proto_err parse_rules(proto_arena *a, const proto_val *v, carc_config *cfg, const char **why)
{
	const proto_val *last[CARC_R_COUNT] = { NULL }, *unknown = last_entries(v, carc_rule_find, last);
	if (unknown) return INVALID("unknown rule option `%s`", unknown->key);
	for (const proto_val *m = v ? v->u.c.first : NULL; m; m = m->next) {
		int r = carc_rule_find(m->key);
		if (last[r] != m) continue; /* given again later */
		const carc_rule_desc *d = carc_rule(r);
		int64_t i;
		if (d->type == 0) {
			int value = m->type == PV_STR ? carc_rule_value(r, m->u.s) : -1;
			if (value < 0) {
				char list[256] = "";
				for (int j = 0; d->values[j]; j++)
					snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", j ? ", " : "", d->values[j]);
				return INVALID("rule `%s` is one of %s", m->key, list);
			}
			cfg->rules[r] = value;
		} else if (d->type == 1) {
			if (m->type != PV_BOOL) return INVALID("rule `%s` is true or false", m->key);
			cfg->rules[r] = m->u.b;
		} else {
			if (!pv_to_int(m, &i) || i < 0 || i > PROTO_MAX_RULE_INT)
				return INVALID("rule `%s` is an integer from 0 to %d", m->key, PROTO_MAX_RULE_INT);
			cfg->rules[r] = (int32_t)i;
		}
	}
	return PROTO_OK;
}

static proto_err tile_of(proto_arena *a, const proto_val *v, const carc_config *cfg, const char *what, uint16_t *out,
                         const char **why)
{
	if (!v || v->type != PV_STR) return INVALID("%s: a tile id such as \"BA/RCr\"", what);
	int t = carc_tile_find(v->u.s);
	if (t < 0) return INVALID("%s: there is no tile `%s`", what, v->u.s);
	int e = carc_tile_expansion(t);
	if (e >= 0 && (cfg->expansions >> e & 1) && !carc_tile_in_expansions(t, cfg->expansions))
		return INVALID("%s: tile `%s` of `%s` joins only a game with a river (`river` or `river2`)", what, v->u.s,
		               carc_expansion(e)->name);
	if (e < 0 || !carc_tile_in_expansions(t, cfg->expansions)) /* the spring is River II's too */
		return INVALID("%s: tile `%s` belongs to `%s`, which this game does not have", what, v->u.s,
		               e < 0 ? "?" : carc_expansion(e)->name);
	*out = (uint16_t)t;
	return PROTO_OK;
}

static proto_err parse_tiles(proto_arena *a, const proto_val *v, carc_config *cfg, const char **why)
{
	if (!v) return PROTO_OK;
	if (v->n == 0 || v->n > CARC_MAX_TILES) return INVALID("`tiles` lists 1 to %d tile ids", CARC_MAX_TILES);
	int i = 0;
	for (const proto_val *t = v->u.c.first; t; t = t->next, i++) {
		proto_err rc = tile_of(a, t, cfg, proto_arena_printf(a, "tiles[%d]", i), &cfg->tiles[i], why);
		if (rc) return rc;
		if (!carc_tile_drawable(cfg->tiles[i]))
			return INVALID("tiles[%d]: `%s` is never drawn: each seat holds its own abbey", i, t->u.s);
	}
	cfg->ntiles = (uint16_t)v->n;
	return PROTO_OK;
}

static proto_err parse_start(proto_arena *a, const proto_val *v, carc_config *cfg, const char **why)
{
	if (!v) return PROTO_OK;
	if (v->n == 0 || v->n > CARC_MAX_START) return INVALID("`start` lists 1 to %d tiles", CARC_MAX_START);
	int i = 0;
	for (const proto_val *s = v->u.c.first; s; s = s->next, i++) {
		const char *what = proto_arena_printf(a, "start[%d]", i);
		if (s->type != PV_MAP) return INVALID("%s: a map {tile, x, y, rot}", what);
		carc_start_tile *st = &cfg->start[i];
		proto_err rc = tile_of(a, pv_get(s, "tile"), cfg, what, &st->tile, why);
		if (rc) return rc;
		int64_t x, y;
		if (!pv_to_int(pv_get(s, "x"), &x) || !pv_to_int(pv_get(s, "y"), &y) || x < -1000 || x > 1000 || y < -1000 ||
		    y > 1000)
			return INVALID("%s: x and y are integers from -1000 to 1000", what);
		const proto_val *rv = pv_get(s, "rot");
		if (!rv) return INVALID("%s: rot is missing (0, 90, 180 or 270)", what);
		int rot = proto_quarter_turns(rv);
		if (rot < 0) return INVALID("%s: rot is 0, 90, 180 or 270", what);
		for (int j = 0; j < i; j++)
			if (cfg->start[j].x == x && cfg->start[j].y == y) return INVALID("%s: two start tiles at (%d,%d)", what, (int)x, (int)y);
		st->x = (int16_t)x;
		st->y = (int16_t)y;
		/* the abbey has no rotation: it lies at rot 0, as place_abbey puts it */
		st->rot = (uint8_t)(carc_tile_drawable(st->tile) ? rot : 0);
	}
	cfg->nstart = (uint8_t)v->n;
	return PROTO_OK;
}

/* Hills & Sheep tokens in the order they will be drawn: 1-4 sheep or "wolf";
 * no more of a kind than the bag holds (carc_bag_holds), the order of the
 * bag as it is filled (the engine also takes the longer draws of a game
 * whose tokens went back to the bag, for a bot's replay; the wire keeps to
 * what PROTOCOL.md says).  A game with the
 * shepherd takes it, whether Hills & Sheep brings the shepherd or the
 * `shepherd` component does; one without has no bag. */
static proto_err parse_bag(proto_arena *a, const proto_val *v, carc_config *cfg, const char **why)
{
	int used[CARC_WOLF + 1] = { 0 };
	if (!v) return PROTO_OK;
	if (!(proto_config_components(cfg) >> CARC_C_SHEPHERD & 1))
		return INVALID("%s", "`bag` needs the shepherd (the hills-sheep expansion or the `shepherd` component)");
	if (v->n > CARC_BAG_TOKENS) return INVALID("`bag` holds at most %d tokens", CARC_BAG_TOKENS);
	for (const proto_val *t = v->u.c.first; t; t = t->next) {
		int64_t n = 0;
		int k = t->type == PV_STR && !strcmp(t->u.s, "wolf") ? CARC_WOLF : pv_to_int(t, &n) && n >= 1 && n <= 4 ? (int)n : -1;
		if (k < 0) return INVALID("%s", "`bag` entries are 1, 2, 3, 4 (sheep) or \"wolf\"");
		if (++used[k] > carc_bag_holds(k)) {
			int most = carc_bag_holds(k);
			if (k == CARC_WOLF) return INVALID("`bag`: the bag holds only %d wolves", most);
			return INVALID("`bag`: the bag holds only %d tokens of %d sheep", most, k);
		}
		cfg->bag[cfg->nbag++] = (uint8_t)k;
	}
	return PROTO_OK;
}

const proto_param proto_new_game_params[] = {
	{ .name = "players", .type = PROTO_P_ARRAY, .required = 1 },
	{ .name = "expansions", .type = PROTO_P_ARRAY },
	{ .name = "components", .type = PROTO_P_MAP },
	{ .name = "rules", .type = PROTO_P_MAP },
	{ .name = "seed", .type = PROTO_P_INT, .min = 0, .max = PROTO_MAX_SEED },
	{ .name = "tiles", .type = PROTO_P_ARRAY },
	{ .name = "start", .type = PROTO_P_ARRAY },
	{ .name = "bag", .type = PROTO_P_ARRAY },
	{ .name = "auth", .type = PROTO_P_BOOL },
	{ .name = NULL }
};

proto_err proto_setup_parse(proto_arena *a, const proto_val *p, carc_config *cfg, const char **names, const char **why)
{
	proto_err rc;
	carc_config_init(cfg);
	/* carcd's dispatch has checked the shapes already; a client reading a
	 * set-up nobody checked (history's) gets the same refusal, not a crash */
	if (!p || p->type != PV_MAP) return INVALID("%s", "a set-up is a map");
	if ((rc = proto_params_check(a, proto_new_game_params, p, why))) return rc;
	/* expansions first: the tiles and start tiles are judged against them */
	if ((rc = parse_players(a, pv_get(p, "players"), cfg, names, why)) ||
	    (rc = proto_expansions_parse(a, pv_opt(p, "expansions"), &cfg->expansions, why)) ||
	    (rc = parse_components(a, pv_opt(p, "components"), cfg, why)) ||
	    (rc = parse_rules(a, pv_opt(p, "rules"), cfg, why)) || (rc = parse_tiles(a, pv_opt(p, "tiles"), cfg, why)) ||
	    (rc = parse_start(a, pv_opt(p, "start"), cfg, why)))
		return rc;
	return parse_bag(a, pv_opt(p, "bag"), cfg, why);
}

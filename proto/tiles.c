/*
 * tiles.c - tile types on the wire (carcd's `tiles`, proto/PROTOCOL.md):
 * what is printed on each tile of a choice of expansions, and how many
 * copies of it a game of that choice deals, so that a client can draw a
 * tile, weigh where it could go, and count the tiles still to come
 * without the manifests.
 */
#include "proto.h"

static proto_val *feature_val(proto_arena *a, const carc_tile_feature *f, const carc_tile_feature *all)
{
	proto_val *v = pv_map(a);
	pv_set_str(a, v, "feature", carc_fkind_name(f->kind));
	pv_set_str(a, v, "at", carc_port_name(__builtin_ctz(f->ports)));
	pv_set(v, "ports", proto_ports(a, f->ports));
	if (f->pennants) pv_set_int(a, v, "pennants", f->pennants);
	if (f->goods >= 0) pv_set_str(a, v, "goods", carc_token_name(f->goods));
	for (int b = 0; b < CARC_MARK_COUNT; b++)
		if (f->marks >> b & 1) pv_set_bool(a, v, carc_mark_name(b), 1);
	if (f->reaches) pv_set(v, "reaches", proto_ports(a, f->reaches));
	if (f->borders) { /* each city by the name the server gives a feature: its `at` */
		proto_val *cities = pv_array(a);
		for (unsigned m = f->borders; m; m &= m - 1)
			pv_push(cities, pv_str(a, carc_port_name(__builtin_ctz(all[__builtin_ctz(m)].ports))));
		pv_set(v, "borders", cities);
	}
	return v;
}

static proto_val *tile_type_val(proto_arena *a, int type, int rot, int dealt, int start)
{
	proto_val *v = pv_map(a), *edges = pv_array(a), *features = pv_array(a), *symbols = pv_array(a);
	carc_tile_feature f[32]; /* more than any tile has */
	int n = carc_tile_describe(type, rot, f, 32);
	pv_set_str(a, v, "id", carc_tile_id(type));
	pv_set_int(a, v, "dealt", dealt);
	pv_set_int(a, v, "start", start);
	for (int d = 0; d < 4; d++) pv_push(edges, pv_str(a, carc_tile_edge(type, rot, d)));
	pv_set(v, "edges", edges);
	for (int i = 0; i < n && i < 32; i++) pv_push(features, feature_val(a, &f[i], f));
	pv_set(v, "features", features);
	uint16_t sym = carc_tile_symbols(type);
	for (int b = 0; b < CARC_SYMBOL_COUNT; b++)
		if (sym >> b & 1) pv_push(symbols, pv_str(a, carc_symbol_name(b)));
	pv_set(v, "symbols", symbols);
	return v;
}

proto_err proto_tile_types(proto_arena *a, carc_game *scratch, uint32_t expansions, int rot, proto_val **out,
                           const char **why)
{
	/* the copies dealt are those of a game of these expansions: one with
	 * no standard start tile (no base, say) is dealt the same with any
	 * start tile given, so one of its own stands in */
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.nseats = 1;
	cfg.expansions = expansions;
	carc_rc rc = carc_game_init(scratch, &cfg, NULL);
	int standard = rc == CARC_OK;
	for (int t = 0; rc == CARC_E_ARG && t < carc_tile_count(); t++)
		if (carc_tile_drawable(t) && carc_tile_in_expansions(t, expansions)) {
			cfg.nstart = 1;
			cfg.start[0] = (carc_start_tile){ .tile = (uint16_t)t };
			rc = carc_game_init(scratch, &cfg, NULL);
		}
	if (rc != CARC_OK) {
		*why = proto_arena_printf(a, "the engine refused these expansions: %s", carc_strerror(rc));
		return PROTO_E_INVALID_PARAMS;
	}
	proto_val *r = pv_map(a), *names = pv_array(a), *list = pv_array(a);
	for (int e = 0; e < carc_expansion_count(); e++)
		if (expansions >> e & 1) pv_push(names, pv_str(a, carc_expansion(e)->name));
	pv_set(r, "expansions", names);
	pv_set_int(a, r, "rot", rot * 90);
	for (int t = 0; t < carc_tile_count(); t++) {
		if (!carc_tile_in_expansions(t, expansions)) continue;
		int start = 0;
		carc_placed_info p;
		for (int i = 0; standard && carc_board_get(scratch, i, &p); i++) start += p.tile == t;
		pv_push(list, tile_type_val(a, t, rot, carc_game_dealt(scratch, t), start));
	}
	pv_set(r, "tiles", list);
	*out = r;
	return PROTO_OK;
}

/*
 * oracle_deploy.c - the naive model of the deploys the rules allow (see
 * oracle_deploy.h).  Each rule is written as RULES.md states it; the
 * section is named beside it.
 */
#include <check.h>
#include <string.h>

#include "oracle.h"
#include "oracle_deploy.h"
#include "testutil.h"
#include "tiles_int.h"

const char *ord_reason_name(int r)
{
	static const char *const names[ORD_COUNT] = { "allowed",         "volcano lake",        "river or tower",
		                                      "wrong feature kind", "farmers false",       "none in supply",
		                                      "follower there",    "farm with a barn",    "no own follower there",
		                                      "farm with a shepherd", "barn, not judged" };
	return r >= 0 && r < ORD_COUNT ? names[r] : "?";
}

/* The component that brings each special figure (section 6, "Components"). */
static int component_of(int kind)
{
	switch (kind) {
	case CARC_FIG_LARGE: return CARC_C_LARGE;
	case CARC_FIG_WAGON: return CARC_C_WAGON;
	case CARC_FIG_MAYOR: return CARC_C_MAYOR;
	case CARC_FIG_BUILDER: return CARC_C_BUILDER;
	case CARC_FIG_PIG: return CARC_C_PIG;
	case CARC_FIG_BARN: return CARC_C_BARN;
	case CARC_FIG_SHEPHERD: return CARC_C_SHEPHERD;
	default: return -1;
	}
}

void ord_init(ord *d, const carc_config *cfg)
{
	memset(d, 0, sizeof *d);
	ore_init(&d->o, cfg);
	d->nseats = cfg->nseats;
	d->farmers = cfg->rules[CARC_R_FARMERS];
	d->last_cell = -1;
	uint32_t comp = cfg->components_given ? cfg->components : carc_default_components(cfg->expansions);
	for (int s = 0; s < d->nseats; s++)
		for (int k = 0; k < CARC_FIG_COUNT; k++) {
			/* 2.1 and 2.14: "8 followers (1 is the score marker -> 7 in
			 * play)"; one large follower, wagon, mayor, pig, builder,
			 * barn, shepherd each, when its component is in play */
			int c = component_of(k);
			d->supply[s][k] = k == CARC_FIG_FOLLOWER ? 7 : (int)(comp >> c & 1);
		}
}

static int seg_at(ord *d, int x, int y, int port)
{
	int cell = ore_cell_at(&d->o, x, y);
	TU_ASSERT_MSG(cell >= 0, "deploy model: an event names (%d,%d), where no tile lies", x, y);
	int s = ore_port_seg(&d->o, cell, port);
	TU_ASSERT_MSG(s >= 0, "deploy model: an event names port %s of (%d,%d), where no feature is",
	              carc_port_name(port), x, y);
	return s;
}

void ord_event(ord *d, const carc_event *e)
{
	int done[CARC_MAX_NODES], ndone;
	switch (e->type) {
	case CARC_EV_TILE_PLACED: {
		TU_LT(e->tile, carc_tile_count());
		int cell = ore_place(&d->o, e->tile, e->x, e->y, e->rot, done, &ndone);
		if (e->seat >= 0) d->last_cell = cell; /* start tiles have no placer */
		break;
	}
	case CARC_EV_DEPLOYED:
		TU_ASSERT_MSG(e->seat >= 0 && e->seat < d->nseats && e->kind < CARC_FIG_COUNT, "deployed: seat %d kind %d",
		              e->seat, e->kind);
		TU_ASSERT_MSG(d->supply[e->seat][e->kind] > 0, "seat %d deployed a %s, and the model's supply has none",
		              e->seat, carc_figkind_name(e->kind));
		d->supply[e->seat][e->kind]--;
		ore_deploy(&d->o, e->figure, e->seat, e->kind, seg_at(d, e->x, e->y, e->port));
		break;
	case CARC_EV_RETURNED:
		TU_ASSERT_MSG(e->seat >= 0 && e->seat < d->nseats && e->kind < CARC_FIG_COUNT, "returned: seat %d kind %d",
		              e->seat, e->kind);
		d->supply[e->seat][e->kind]++;
		ore_return(&d->o, e->figure);
		break;
	default: break;
	}
}

/* Does `seat` have a figure of a kind in `kinds` (bits) in the feature? */
static int seat_has(ord *d, int seat, unsigned kinds, int root)
{
	for (int f = 0; f < d->o.nfigs; f++)
		if (d->o.fig_seg[f] >= 0 && d->o.fig_seat[f] == seat && (kinds >> d->o.fig_kind[f] & 1) &&
		    ore_root(&d->o, d->o.fig_seg[f]) == root)
			return 1;
	return 0;
}

/* A figure of a kind in `kinds`, anyone's, in the feature. */
static int anyone_has(ord *d, unsigned kinds, int root)
{
	for (int s = 0; s < d->nseats; s++)
		if (seat_has(d, s, kinds, root)) return 1;
	return 0;
}

#define BIT(k) (1u << (k))
/* 1.1: "Normal follower ... large follower ... mayor ... wagon"; builders,
 * pigs, barns and shepherds "are not followers". */
#define FOLLOWERS (BIT(CARC_FIG_FOLLOWER) | BIT(CARC_FIG_LARGE) | BIT(CARC_FIG_WAGON) | BIT(CARC_FIG_MAYOR))

int ord_judge(ord *d, int seat, int kind, int seg)
{
	const ore_cell *c = &d->o.cells[d->o.segs[seg].cell];
	const carc_tiletype *t = &carc_tiletypes[c->type];
	int fk = d->o.segs[seg].kind, root = ore_root(&d->o, seg);
	/* 2.3: the volcano lake's "placer may not deploy a follower on it";
	 * 2.7: on a volcano "the placer may not deploy a figure on that tile" */
	if (t->symbols & CARC_SYM_VOLCANO) return ORD_VOLCANO;
	/* 2.2: "Followers may be placed on the non-river features of river
	 * tiles, never on the river"; 2.8: a follower goes on a tower only by
	 * the tower's own move, never on a bare foundation */
	if (fk == CARC_F_RIVER || fk == CARC_F_TOWER) return ORD_NOT_HERE;
	if (kind == CARC_FIG_BARN) return ORD_NOT_JUDGED;
	switch (kind) {
	case CARC_FIG_FOLLOWER:
	case CARC_FIG_LARGE:
		/* 2.1: "Cloisters take monks; fields take farmers"; 2.5: the large
		 * follower is "deployed like a normal follower" (farms too) */
		break;
	case CARC_FIG_MAYOR: /* 2.9: "a follower for cities only" */
		if (fk != CARC_F_CITY) return ORD_KIND;
		break;
	case CARC_FIG_WAGON: /* 2.9: "roads, cities, cloisters/abbeys/cult places (not fields, ...)" */
		if (fk == CARC_F_FIELD) return ORD_KIND;
		break;
	case CARC_FIG_BUILDER: /* 2.6: "onto the road or city segment" */
		if (fk != CARC_F_ROAD && fk != CARC_F_CITY) return ORD_KIND;
		break;
	case CARC_FIG_PIG: /* 2.6: "onto a field segment" */
	case CARC_FIG_SHEPHERD: /* 2.13: "in a field of the tile just placed" */
		if (fk != CARC_F_FIELD) return ORD_KIND;
		break;
	default: return ORD_KIND;
	}
	/* section 6: farmers false is "play without fields"; read as no
	 * figure on a field at all (oracle_ext reads barns so too) */
	if (fk == CARC_F_FIELD && !d->farmers) return ORD_NO_FIELDS;
	/* 2.1: "deploy one follower from your supply"; 2.14 */
	if (d->supply[seat][kind] <= 0) return ORD_NO_FIGURE;
	switch (kind) {
	case CARC_FIG_FOLLOWER:
	case CARC_FIG_LARGE:
	case CARC_FIG_MAYOR:
	case CARC_FIG_WAGON:
		/* 2.1: "only if the whole connected feature (however far it
		 * extends) has no follower in it yet, yours included"; special
		 * figures are no followers (1.1) and do not count */
		if (anyone_has(d, FOLLOWERS, root)) return ORD_TAKEN;
		/* 2.9: "No farmer may later be deployed into a farm with a barn" */
		if (fk == CARC_F_FIELD && anyone_has(d, BIT(CARC_FIG_BARN), root)) return ORD_BARN_FARM;
		return ORD_OK;
	case CARC_FIG_BUILDER:
		/* 2.6: "where you already have a follower" */
		return seat_has(d, seat, FOLLOWERS, root) ? ORD_OK : ORD_NO_OWN;
	case CARC_FIG_PIG:
		/* 2.6: "where you already have a farmer" */
		return seat_has(d, seat, FOLLOWERS, root) ? ORD_OK : ORD_NO_OWN;
	case CARC_FIG_SHEPHERD:
		/* 2.13: "in a field ... that has no shepherd (farmers may be
		 * present)" */
		return anyone_has(d, BIT(CARC_FIG_SHEPHERD), root) ? ORD_SHEPHERD_FARM : ORD_OK;
	}
	return ORD_KIND;
}

int ord_deploys(ord *d, int seat, ord_deploy *out, int cap)
{
	int n = 0;
	if (d->last_cell < 0) return 0;
	const ore_cell *c = &d->o.cells[d->last_cell];
	for (int i = 0; i < c->nfeat; i++)
		for (int k = 0; k < CARC_FIG_COUNT; k++) {
			if (ord_first_seg(d, c->seg0 + i) != c->seg0 + i || ord_judge(d, seat, k, c->seg0 + i) != ORD_OK) continue;
			TU_LT(n, cap);
			out[n++] = (ord_deploy){ k, c->seg0 + i };
		}
	return n;
}

int ord_first_seg(ord *d, int seg)
{
	const ore_cell *c = &d->o.cells[d->o.segs[seg].cell];
	int root = ore_root(&d->o, seg), best = seg;
	for (int i = 0; i < c->nfeat; i++)
		if (ore_root(&d->o, c->seg0 + i) == root && ord_first_port(d, c->seg0 + i) < ord_first_port(d, best))
			best = c->seg0 + i;
	return best;
}

int ord_first_port(const ord *d, int seg)
{
	for (int p = 0; p < CARC_P_NW; p++)
		if (ore_port_seg(&d->o, d->o.segs[seg].cell, p) == seg) return p;
	return -1;
}

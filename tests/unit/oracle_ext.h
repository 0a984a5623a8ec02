/*
 * oracle_ext.h - a second, deliberately naive model of scoring with the
 * expansions, that test_oracle_ext.c holds the engine against.
 *
 * Like oracle.c for the base game it is written from RULES.md and the
 * manifest's primary data only: each feature's kind, edges, half-edges,
 * pennants, goods, flags (inn, cathedral, besieged, shrine, pig herd), the
 * fields' bordering cities and the tile symbols (hill, vineyard).  Nothing
 * of the engine's derived state is read: features are found by joining the
 * segments that face each other across placed edges, completion by looking
 * for a neighbour at every edge, majorities by adding up the figures the
 * events put on the board.  Covered: roads, cities and cloister-type
 * buildings (cloister, abbey, cult place) completed in play and left
 * incomplete at the end, with inns, cathedrals, besieged cities, vineyards,
 * large followers, mayors, wagons and the hill tie-break; King and Robber
 * Baron; trade goods; farms under every farm_scoring rule with pigs, pig
 * herds and besieged cities; barns in play and at the end; flocks (closed
 * farms, what a gather pays).  And the choices the rules give: where a
 * wagon may move, who may escape a besieged city, where a barn may stand.
 */
#ifndef CARC_ORACLE_EXT_H
#define CARC_ORACLE_EXT_H

#include <stdint.h>

#include "carc.h"

#define ORE_SPAN 256      /* board coordinates -128..127 on both axes */
#define ORE_MAX_FIGS 256  /* engine figure ids seen in events */
#define ORE_MAX_PAY 1024  /* payments one scoring may make */

typedef struct ore_cell {
	int type, x, y, rot, seg0, nfeat;
} ore_cell;

typedef struct ore_seg {
	int parent, next, cell, feat, kind;
} ore_seg;

/* One payment: `points` of kind `sc` to `seat` for the feature whose
 * root is `root` (-1: tokens, no place). */
typedef struct ore_pay {
	int seat, sc, points, root;
} ore_pay;

typedef struct ore {
	int nseats, farmers, farm_rule, tiny_rule, hill_rule, gq11_herd;
	int goods_on, king_on, robber_on;
	/* RULES.md 2.3: a tile's inn, pig herd, ... only does anything when
	 * its expansion is in play; bit CARC_TF_*: the flags that count */
	unsigned flags_on;
	int vineyards_on, hills_on;
	int mini; /* carc_expansion_find("mini") */
	int ncells, nsegs;
	ore_cell cells[CARC_MAX_TILES];
	ore_seg segs[CARC_MAX_NODES];
	uint8_t done[CARC_MAX_NODES];        /* by root: the feature is complete */
	int16_t grid[ORE_SPAN][ORE_SPAN];    /* cell index + 1, 0 when empty */
	int fig_seg[ORE_MAX_FIGS];           /* segment a figure stands on, -1 in supply */
	int fig_seat[ORE_MAX_FIGS], fig_kind[ORE_MAX_FIGS];
	int nfigs;                           /* figure ids seen so far: 0..nfigs-1 */
	int shepherd[CARC_MAX_SEATS];        /* a seat's shepherd on the board, -1 */
	int nbarns;                          /* barns on the board */
	/* King and Robber Baron: the holder (-1 none) and the record size */
	int king, robber, king_best, robber_best;
	int tokens[CARC_MAX_SEATS][3];       /* wine, grain, cloth */
	int hill_ties, hill_breaks;          /* ties seen with hills in play; those the hills decided */
	/* section 6 options of the decisions the model lists */
	int wagon_rule, escape_rule, escape_any_tile, barn_rule, barns_on;
	int sheep[ORE_MAX_FIGS][CARC_WOLF];  /* a shepherd's sheep tokens by value (1-4) */
} ore;

void ore_init(ore *o, const carc_config *cfg);
int ore_cell_at(const ore *o, int x, int y); /* cell index or -1 */

/* Places a tile (start tiles, the abbey, any placement the engine made)
 * and writes the roots of the roads, cities and cloister-type buildings
 * it completed to completed[] (*ncompleted of them). */
int ore_place(ore *o, int type, int x, int y, int rot, int *completed, int *ncompleted);

/* The segment at a board port of a cell (a corner port: the field there),
 * or -1. */
int ore_port_seg(const ore *o, int cell, int port);
int ore_root(ore *o, int seg);
/* Distinct tiles of a feature; its pennants and the OR of its flags. */
int ore_tiles(ore *o, int root, int *pennants, unsigned *flags);
/* Is this cloister-type segment a cult place? */
int ore_is_shrine(const ore *o, int seg);
/* Are cult places in play (their challenge, RULES.md row 9)? */
int ore_shrines_on(const ore *o);

void ore_deploy(ore *o, int fig, int seat, int kind, int seg);
void ore_return(ore *o, int fig);
int ore_is_follower(int figkind);

/* What completing `root` in play pays (majority, hill tie-break), added
 * to pay[] (*npay entries). */
void ore_pay_completed(ore *o, int root, ore_pay *pay, int *npay);
/* A farm scored in play by a barn: `per_city` (3 when the barn is placed,
 * 1 when farmers are joined to a barn's farm) plus pigs and pig herds,
 * for each completed city, a besieged one twice. */
void ore_pay_farm_now(ore *o, int farm, int per_city, ore_pay *pay, int *npay);
/* Does a barn stand in this farm?  Do followers? */
int ore_farm_has_barn(ore *o, int farm);
int ore_has_followers(ore *o, int root);

/* The king, the robber and trade goods when a feature is completed by
 * `seat` (the placer). */
void ore_completed_tokens(ore *o, int root, int seat);

/* ---- Hills & Sheep (RULES.md 2.13, row 22) ---- */
/* The shepherd of `seat` on the board (figure id), or -1. */
int ore_shepherd(const ore *o, int seat);
/* A farm is closed (1) when no field half-edge of it faces an empty
 * place, else open (0). */
int ore_farm_closed(ore *o, int farm);
/* The sheep beside every shepherd in the farm, added up. */
int ore_flock_sheep(ore *o, int farm);
/* Gathering a farm: every shepherd owner in it scores all its sheep. */
void ore_pay_flock(ore *o, int farm, ore_pay *pay, int *npay);

/* ---- decisions ---- */
/* Where a wagon that stood on `seg` when its feature scored may go
 * (RULES.md 2.9, rows 31, 4.8): the roots of the unoccupied, incomplete
 * features the game's wagon_move allows; returns how many. */
int ore_wagon_targets(ore *o, int seg, int *roots, int cap);
/* The followers of `seat` that may escape a besieged city now (RULES.md
 * 2.11): figure ids; cities in skip[] (escaped from this turn) left out. */
int ore_escapable(ore *o, int seat, const int *skip, int nskip, int *figs, int cap);
/* The corners (bit k: port CARC_P_NW + k) of `cell` where `seat` may put
 * its barn (RULES.md 2.9, 4.9).  *split: corners left out only because a
 * tile there has two fields meeting in its corner. */
unsigned ore_barn_corners(ore *o, int cell, int seat, unsigned *split);

/* Everything final scoring pays. */
void ore_final(ore *o, ore_pay *pay, int *npay);

#endif

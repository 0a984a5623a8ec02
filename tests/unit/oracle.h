/*
 * oracle.h - a second, deliberately naive model of the base game that the
 * tests hold the engine against.
 *
 * It is written from RULES.md and the manifest's primary data only (each
 * feature's kind, edges, half-edges, pennants and bordering cities), not
 * from the engine's derived tables (edge codes, port tables, frontier,
 * union-find counters).  It is slow and obvious on purpose: edge matching
 * by looking at the neighbours, completion by checking that every edge of
 * every segment has a neighbour, majorities by counting followers.
 */
#ifndef CARC_ORACLE_H
#define CARC_ORACLE_H

#include <stdint.h>

#include "carc.h"

#define ORC_SPAN 200     /* board coordinates -100..99 on both axes */
#define ORC_MAX_FIGS 256 /* engine figure ids seen in events */

typedef struct orc_cell {
	int type, x, y, rot, seg0, nfeat;
} orc_cell;

typedef struct orc_seg {
	int parent, cell, feat, kind;
} orc_seg;

typedef struct orc {
	int nseats, farmers, farm_rule, tiny_rule;
	int ncells, nsegs;
	orc_cell cells[CARC_MAX_TILES];
	orc_seg segs[CARC_MAX_NODES];
	uint8_t done[CARC_MAX_NODES];      /* by segment: its feature was completed */
	int16_t grid[ORC_SPAN][ORC_SPAN];  /* cell index + 1, 0 when empty */
	int fig_seg[ORC_MAX_FIGS];         /* segment a figure stands on, -1 in supply */
	int fig_seat[ORC_MAX_FIGS];
} orc;

void orc_init(orc *o, const carc_config *cfg);
int orc_cell_at(const orc *o, int x, int y);                 /* cell index or -1 */

/* Board-orientation edge kind of a tile type turned rot: CARC_F_ROAD,
 * CARC_F_CITY, or CARC_F_FIELD for a field (or empty) edge. */
int orc_edge_kind(int type, int rot, int side);

/* carc_check_move's verdict for a placement: CARC_OK, CARC_E_OCCUPIED,
 * CARC_E_NOT_ADJACENT or CARC_E_EDGE; *bad_edges gets a bit per board
 * side that does not match. */
carc_rc orc_fits(const orc *o, int type, int x, int y, int rot, unsigned *bad_edges);
/* Every legal (x, y, rot) of a type; returns the count. */
int orc_count_placements(const orc *o, int type);

/* Places a tile (asserts that it fits or that it is a start tile) and
 * returns its cell.  Fills done[] for what the placement completed and
 * writes those features' roots to completed[] (*ncompleted of them). */
int orc_place(orc *o, int type, int x, int y, int rot, int *completed, int *ncompleted);

/* The feature (index in the manifest's list) of a tile of `type` turned
 * `rot` quarter turns clockwise at board port `port`, or -1: read from the
 * manifest's edges, half-edges and centre, as every naive model does. */
int orc_tile_feature(int type, int rot, int port);
int orc_port_seg(const orc *o, int cell, int port);          /* board port -> segment, -1 */
int orc_root(const orc *o, int seg);
int orc_tiles(const orc *o, int root, int *pennants);        /* distinct tiles of a feature */
/* Ports (bit p) of the segments of `root` on `cell`, board orientation. */
unsigned orc_ports_on(const orc *o, int root, int cell);
/* Followers per seat in a feature; returns how many there are in all. */
int orc_followers(const orc *o, int root, int per_seat[CARC_MAX_SEATS]);

void orc_deploy(orc *o, int fig, int seat, int seg);
void orc_return(orc *o, int fig);

/* Points the majority of a completed feature gets during play. */
int orc_points_play(const orc *o, int root);
/* What final scoring pays each seat, by CARC_SC_* kind. */
void orc_final(const orc *o, int pts[CARC_MAX_SEATS][CARC_SC_COUNT]);

#endif

/*
 * oracle_place.h - a second, deliberately naive model of where a drawn
 * tile may go with the expansions, that test_placement_ext.c holds the
 * engine's listing against.
 *
 * Written from RULES.md (2.1 edge matching, 2.2-2.4 the rivers, 2.9 the
 * abbey, 2.10 cult places, 4.12 and 4.20) and the manifest's primary
 * per-tile data only: each feature's kind and edges, the centre building
 * and its `shrine` mark, the spring, lake and abbey symbols.  It never
 * reads the engine's derived structures (edge codes, river edge tables,
 * tile traits, the frontier, judged masks, the river state): the board
 * is read through carc_board_get, and what it needs to know about the
 * supply (how many river tiles are still to come) the caller counts from
 * the events.  Slow and obvious on purpose: every empty place in a box
 * around the board, every rotation, the neighbours looked at one by one.
 */
#ifndef CARC_ORACLE_PLACE_H
#define CARC_ORACLE_PLACE_H

#include <stdint.h>

#include "carc.h"

#define OPL_SPAN 256 /* board coordinates -128..127 on both axes */

/* Edge kinds, from the features on an edge of the unturned tile. */
enum { OPL_FIELD, OPL_ROAD, OPL_CITY, OPL_RIVER, OPL_INNER };

/* Centre buildings (RULES.md 2.10: a cult place is a `shrine`; 2.9: the
 * abbey is a cloister in every way). */
enum { OPL_NO_BUILDING, OPL_CLOISTER, OPL_CULT };

/* Why the model refuses a place (bits), for counts and messages. */
enum {
	OPL_W_OCCUPIED = 1 << 0,
	OPL_W_ALONE = 1 << 1,         /* no placed tile edge to edge */
	OPL_W_EDGE = 1 << 2,          /* an edge does not match */
	OPL_W_NOT_CONTINUING = 1 << 3,/* a river tile that continues no open river end */
	OPL_W_BRANCHES_MEET = 1 << 4, /* a river tile joining two open ends */
	OPL_W_U_TURN = 1 << 5,        /* two turns the same way in a row */
	OPL_W_ROOM_OWN = 1 << 6,      /* an open end of the new tile without room ahead */
	OPL_W_BOXED = 1 << 7,         /* an open end afterwards that no river tile still to come can continue */
	OPL_W_RIVER_ENDS = 1 << 8,    /* the river closed while river tiles are still to come */
	OPL_W_CULT = 1 << 9,          /* a cult place next to two cloisters, or the reverse */
	OPL_W_HOLE = 1 << 10          /* the abbey: not a hole */
};

typedef struct opl_board {
	int ncells;
	int16_t grid[OPL_SPAN][OPL_SPAN]; /* cell index + 1, 0 when empty */
	uint16_t type[CARC_MAX_TILES];
	uint8_t rot[CARC_MAX_TILES];
	int16_t x[CARC_MAX_TILES], y[CARC_MAX_TILES];
	int minx, maxx, miny, maxy;
} opl_board;

typedef struct opl_place {
	int16_t x, y;
	uint8_t rot;
} opl_place;

/* Primary tile data, as the model reads it. */
int opl_edge(int type, int rot, int side);  /* OPL_FIELD.. at board side `side` of the tile turned rot */
int opl_is_river(int type);                 /* any river edge */
int opl_building(int type);                 /* OPL_NO_BUILDING, OPL_CLOISTER, OPL_CULT */
int opl_is_lake(int type);
int opl_abbey_type(void);                   /* the abbey tile (symbol abbey), -1 none */
/* The river tiles a game with these expansions draws (RULES.md 2.2-2.4),
 * count[type] for each of the carc_tile_count() types; returns the sum:
 * every river tile of the chosen sets but the springs (the start tile),
 * less the tiles a chosen set removes (River II's lake rule), the mini
 * expansion's only when the game has a river. */
int opl_river_supply(uint32_t expansions, int *count);

void opl_board_read(opl_board *b, const carc_game *g);
int opl_at(const opl_board *b, int x, int y); /* cell index, -1 when empty */
/* Buildings of `kind` on the eight places around (x, y), the new
 * building `nkind` at (nx, ny) counted too ((x, y) itself: none). */
int opl_near_count(const opl_board *b, int x, int y, int kind, int nx, int ny, int nkind);

/* The river tiles still to draw after the tile drawn now, by tile type
 * (the caller counts them from the events): left[t] every one, counted[t]
 * those a placement must not box in.  A tile put back under the whole
 * supply that no open end takes now (opl_river_takes_now) is left out of
 * `counted`, as seed 000 reads in 2.3 ("could prevent any subsequently
 * drawn river tiles"): no placement now is what keeps it out.  It may
 * still continue an end, and its shape still counts. */
typedef struct opl_rivers {
	const int *left, *counted;
} opl_rivers;

/* 0 when `type` turned rot may go at (x, y), else OPL_W_* bits: those of
 * edge matching (occupied, alone, edge), else every expansion rule that
 * refuses the place. */
unsigned opl_why_not(const opl_board *b, int type, int x, int y, int rot, const opl_rivers *rv);
/* Every legal placement, in the order y, x, rot ascending; returns the count. */
int opl_places(const opl_board *b, int type, const opl_rivers *rv, opl_place *out, int cap);
/* Does some open end of the river on the board take the river tile
 * `type` now: its edges match there, it joins that end only, and its own
 * open ends have the room ahead? */
int opl_river_takes_now(const opl_board *b, int type);
/* The holes the abbey may fill (RULES.md 2.9: tiles on all four sides;
 * 2.10 and 4.12: it counts as a cloister next to cult places), in the
 * order y, x; returns the count. */
unsigned opl_abbey_why_not(const opl_board *b, int x, int y);
int opl_holes(const opl_board *b, opl_place *out, int cap);

#endif

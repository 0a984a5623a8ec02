/*
 * tiles_int.h - the compiled tile manifest.
 *
 * engine/tiles/NAME.tiles are the project's own declarative manifests; the
 * build turns them into tiles_data.c with tilegen (engine/tilegen.c), so the
 * library carries constant tables and parses nothing at run time.
 * Everything here is in the reference orientation (rotation 0).
 */
#ifndef CARC_TILES_INT_H
#define CARC_TILES_INT_H

#include <stdint.h>

#include "carc.h"

#define CARC_TILE_MAXF 12 /* features on one tile; the busiest in scope has 9 */
#define CARC_NOF 0xff     /* "no feature" in the port tables */

/* Edge kinds, for matching neighbours.  CARC_EK_INNER is a side inside the
 * City of Carcassonne block (a side with a half-edge listed by `inner`): it
 * only ever faces another tile of the block, never a supply tile. */
enum { CARC_EK_FIELD, CARC_EK_ROAD, CARC_EK_CITY, CARC_EK_RIVER, CARC_EK_INNER, CARC_EK_COUNT };

/* Feature attributes: the public marks (carc_tile_describe copies them). */
enum {
	CARC_TF_INN = CARC_MARK_INN,
	CARC_TF_CATHEDRAL = CARC_MARK_CATHEDRAL,
	CARC_TF_BESIEGED = CARC_MARK_BESIEGED,
	CARC_TF_PRINCESS = CARC_MARK_PRINCESS,
	CARC_TF_SHRINE = CARC_MARK_CULT_PLACE,
	CARC_TF_PIGHERD = CARC_MARK_PIG_HERD
};

/* Symbols printed on a tile: the public ones (carc_tile_symbols). */
enum {
	CARC_SYM_VOLCANO = CARC_SYMBOL_VOLCANO,
	CARC_SYM_DRAGON = CARC_SYMBOL_DRAGON,
	CARC_SYM_PORTAL = CARC_SYMBOL_PORTAL,
	CARC_SYM_HILL = CARC_SYMBOL_HILL,
	CARC_SYM_VINEYARD = CARC_SYMBOL_VINEYARD,
	CARC_SYM_FAIR = CARC_SYMBOL_FAIR,
	CARC_SYM_GARDEN = CARC_SYMBOL_GARDEN,
	CARC_SYM_SPRING = CARC_SYMBOL_SPRING, /* a river spring (the river start tile) */
	CARC_SYM_LAKE = CARC_SYMBOL_LAKE,     /* a river lake: the river tile placed last */
	CARC_SYM_ABBEY = CARC_SYMBOL_ABBEY    /* a player's abbey: never drawn, its walls face anything */
};

/* Quarters of the City of Carcassonne (Count), bound to one tile of the block. */
enum {
	CARC_Q_CASTLE = 1 << 0,     /* followers go to cities */
	CARC_Q_BLACKSMITH = 1 << 1, /* to roads */
	CARC_Q_CATHEDRAL = 1 << 2,  /* to cloisters */
	CARC_Q_MARKET = 1 << 3      /* to farms */
};

/* Trade goods on a city. */
enum { CARC_GOODS_NONE, CARC_GOODS_WINE, CARC_GOODS_GRAIN, CARC_GOODS_CLOTH };

typedef struct carc_tfeat {
	uint8_t kind;      /* carc_fkind */
	uint8_t edges;     /* bit d: edge d (N E S W) */
	uint8_t halves;    /* bit h: half-edge h (NL NR EL ER SL SR WL WR) */
	uint8_t other;     /* bit 0 I, bit 1 II (features that touch no edge) */
	uint8_t pennants;
	uint8_t goods;
	uint8_t wagon;     /* wagon-move groups: bit g = group 'a' + g; 0 for none */
	uint8_t multi;     /* edges a city reaches without joining there */
	uint16_t flags;    /* CARC_TF_* */
	uint16_t borders;  /* fields: bit i = feature i (a city) touches it */
} carc_tfeat;

typedef struct carc_tiletype {
	const char *id;
	uint8_t nfeat;
	uint8_t edge_feat[4];      /* feature on edge d, or CARC_NOF */
	uint8_t half_feat[8];      /* field on half-edge h, or CARC_NOF */
	uint8_t cloister;          /* the centre building, or CARC_NOF */
	uint8_t tower;             /* the tower foundation, or CARC_NOF */
	uint8_t inner;             /* bit h: half-edge h lies inside the City of
	                              Carcassonne and belongs to no feature */
	uint8_t quarters;          /* CARC_Q_* quarters bound to this tile */
	uint8_t max;               /* copies in one game at most, whatever sets
	                              share the tile; 0 for no limit */
	uint16_t symbols;          /* CARC_SYM_* */
	uint32_t edge_code[4];     /* edge kinds packed 8 bits a side, per rotation */
	carc_tfeat f[CARC_TILE_MAXF];
	uint8_t river;             /* bit d: edge d carries a river (the river
	                              rules ask it for every placement) */
	uint8_t first_port[4][CARC_TILE_MAXF]; /* per rotation: the lowest port
	                              (carc_port) of each feature */
	uint8_t multi_feat[4];     /* the city that also reaches edge d without
	                              joining edge_feat[d] there (multi=), or
	                              CARC_NOF: a city across joins both */
} carc_tiletype;

typedef struct carc_tileref {
	uint16_t type;
	uint8_t count;
} carc_tileref;

typedef struct carc_tilestart {
	uint16_t type;
	int16_t x, y;
	uint8_t rot;
} carc_tilestart;

/* A tile of a set that a game may deal fewer copies of than the set
 * counts (carc_tileset.adjust): a start tile, a tile another set
 * removes, or a tile whose maximum the sets together pass. */
typedef struct carc_tileadjust {
	uint16_t at;               /* its copies go before dealt[at] */
	uint16_t type;
	uint8_t count;             /* copies the set counts */
} carc_tileadjust;

typedef struct carc_tileset {
	const char *id;
	const char *expansion;     /* expansion name the set belongs to */
	uint16_t start;            /* standard start tile (the first `start`
	                              line), or CARC_NONE */
	int16_t start_x, start_y;
	uint8_t start_rot;
	uint16_t nref;
	const carc_tileref *ref;
	uint16_t nstarts;          /* every `start` line, in order: one tile */
	const carc_tilestart *starts; /* for most sets, 12 for the City block */
	uint16_t nremove;          /* tiles of other sets left out of a game */
	const uint16_t *remove;    /* that has this set (River II's lake rule) */
	uint8_t expansion_index;   /* carc_expansion() index of `expansion` */
	uint8_t river_only;        /* river tiles only and no start: dealt only
	                              in a game with a river (RULES.md 2.4) */
	uint16_t ndealt;           /* the copies of its tiles a supply deals,
	                              in the set's order, counts expanded: */
	const uint16_t *dealt;     /* no spring or abbey, and no adjusted tile */
	uint8_t nadjust;           /* the adjusted tiles (carc_tile_slot), in */
	const carc_tileadjust *adjust; /* order, with their place in dealt */
} carc_tileset;

extern const carc_tiletype carc_tiletypes[];
extern const int carc_ntiletypes;
/* Per tile type, the edges that carry a river (carc_tiletype.river) for
 * each rotation r: bits 4r..4r+3, bit 4r + d for edge d of the tile turned
 * r quarter turns clockwise.  A small table, so the river rules, asked
 * for every tile drawn, read it without reaching into carc_tiletypes. */
extern const uint16_t carc_tile_river[];
/* Per tile type, facts the expansion rules ask at every placement, in a
 * small table for the same reason (carc_tile_traits[type]). */
typedef struct carc_tiletraits {
	uint8_t building;      /* the centre building: 0 none, 1 cloister, 2 cult place (shrine) */
	uint8_t corner_fields; /* bit u: both half-edges at corner u (NW NE SE SW) of the unturned tile are one field */
	uint8_t kinds;         /* bit k: the tile has a feature of kind k (carc_fkind) */
	uint8_t flags;         /* CARC_TT_* */
} carc_tiletraits;
enum {
	CARC_TT_HILL = 1 << 0,  /* a hill (CARC_SYM_HILL) */
	CARC_TT_SIEGE = 1 << 1, /* a besieged city segment (CARC_TF_BESIEGED) */
	CARC_TT_HERD = 1 << 2,  /* a field with a pig herd (CARC_TF_PIGHERD) */
	CARC_TT_BUILDING = 1 << 3, /* a centre building: building is not 0 */
	CARC_TT_ABBEY = 1 << 4, /* a player's abbey (CARC_SYM_ABBEY) */
	CARC_TT_SPRING = 1 << 5, /* a river spring (CARC_SYM_SPRING) */
	CARC_TT_MAX = 1 << 6    /* the tile type has a maximum (carc_tiletype.max is not 0) */
};
extern const carc_tiletraits carc_tile_traits[];
/* Per tile type, its counters among the adjusted tiles (carc_tileadjust)
 * while a supply is dealt, or CARC_NO_SLOT for a tile every chosen set
 * deals all its copies of; fewer than CARC_TILE_SLOTS are used. */
#define CARC_TILE_SLOTS 16
#define CARC_NO_SLOT 0xff
extern const uint8_t carc_tile_slot[];
extern const carc_tileset carc_tilesets[];
/* Bit e: expansion e (carc_expansion) has its reference set (its
 * `tileset`) among carc_tilesets. */
extern const uint32_t carc_tileset_of;
extern const int carc_ntilesets;

/* Rotation helpers: a port at board position p of a tile turned r quarter
 * turns clockwise is port carc_port_unrot(p, r) of the unturned tile. */
static inline int carc_port_rot(int p, int r)
{
	if (p < 4) return (p + r) & 3;
	if (p < 12) return 4 + ((p - 4 + 2 * r) & 7);
	return p;
}
static inline int carc_port_unrot(int p, int r) { return carc_port_rot(p, (4 - r) & 3); }

/* Edges (bit d: edge d, N E S W) of a tile turned r quarter turns clockwise. */
static inline unsigned carc_edges_rot(unsigned edges, int r) { return (edges << r | edges >> (4 - r)) & 0xf; }

/* The ports (bit p: carc_port p) of feature f of a tile turned r quarter
 * turns clockwise. */
static inline unsigned carc_tfeat_ports(const carc_tfeat *f, int r)
{
	unsigned e = carc_edges_rot(f->edges, r);
	unsigned h = ((unsigned)f->halves << (2 * r) | (unsigned)f->halves >> (8 - 2 * r)) & 0xff;
	unsigned ports = e | h << CARC_NL | (unsigned)f->other << CARC_P_I;
	if (f->kind == CARC_F_CLOISTER) ports |= 1u << CARC_P_CLOISTER;
	if (f->kind == CARC_F_TOWER) ports |= 1u << CARC_P_TOWER;
	return ports;
}

#endif

/*
 * carc.h - libcarc, the Carcassonne rules engine: the public interface.
 *
 * The engine knows nothing of sockets, files or allocators.  A game is one
 * plain value of carc_game_size() bytes that the caller allocates; cloning
 * it is a memcpy, and carc_game_hash() fingerprints it for tests.  Every
 * call returns a carc_rc and fills structs the caller provides.
 *
 * Board conventions (shared with the wire protocol): x grows to the east,
 * y to the south, the start tile is at (0,0); rotations are quarter turns
 * clockwise (0..3 here, 0/90/180/270 degrees on the wire).
 *
 * Bad arguments: every seat, index, kind, port, rotation, tile type, cap,
 * name and config field is checked; one out of range gets the answer its
 * comment gives (an error code, 0, -1, NULL or "?"), never a read or a
 * write out of bounds.  Out-pointers may be NULL where a comment says so.
 * The objects a call works on are never NULL: a game (one carc_game_init
 * set up), a move, a generator (carc_game_init alone answers CARC_E_ARG
 * to a NULL game or config).  Read-only calls and refused calls leave a
 * game as it was.
 */
#ifndef CARC_H
#define CARC_H

#include <stddef.h>
#include <stdint.h>

/* C linkage: C++ bots and tools include this header as it is */
#ifdef __cplusplus
extern "C" {
#endif

#define CARC_VERSION "0.1.0"

/* ---- limits (each sized for every tile set in scope at once) ---------- */
#define CARC_MAX_SEATS 6
#define CARC_MAX_TILES 320   /* tiles on one board; all sets in scope sum to ~290 */
#define CARC_MAX_NODES 2048  /* feature segments on one board (~4 a tile) */
/* A sink this large is never filled by one call: the most is the final
 * scoring of a full board, each scored feature, farm and city (first-
 * edition farms score per city: at most 160 on 320 tiles) paying up to 6
 * tied seats; under 2,500 events.  Final scoring takes no figure off the
 * board (no `returned` event): the figures stay where the game left them. */
#define CARC_MAX_EVENTS 4096
#define CARC_MAX_MOVES 4096  /* legal moves of one decision, worst case */
#define CARC_MAX_START 16    /* custom start tiles */
#define CARC_NONE 0xffff
#define CARC_BAG_TOKENS 18   /* Hills & Sheep: 4x1, 5x2, 5x3, 2x4 sheep and 2 wolves */
#define CARC_BAG_DRAWS 255   /* carc_config.bag: draws listed (tokens go back and come again) */
#define CARC_WOLF 5
/* How many of `token` (1-4 sheep, CARC_WOLF) the full Hills & Sheep bag holds;
 * 0 for anything else. */
int carc_bag_holds(int token);

/* ---- result codes ------------------------------------------------------ */
typedef enum carc_rc {
	CARC_OK = 0,
	CARC_E_ARG,          /* a parameter is out of range or unknown */
	CARC_E_OVER,         /* the game has ended */
	CARC_E_PHASE,        /* this move type is not allowed in this phase */
	CARC_E_TILE,         /* not the tile that was drawn */
	CARC_E_OCCUPIED,     /* a tile is already there */
	CARC_E_NOT_ADJACENT, /* the tile touches no placed tile edge to edge */
	CARC_E_EDGE,         /* an edge does not match its neighbour */
	CARC_E_RULE,         /* an expansion rule forbids the move (a placement, a deploy, a wagon, escape or flock move) */
	CARC_E_NOT_TILE_JUST_PLACED, /* a deploy off the tile just placed */
	CARC_E_NO_FEATURE,   /* nothing to deploy on at that port */
	CARC_E_FEATURE_TAKEN,/* the connected feature already holds a follower */
	CARC_E_NO_FIGURE,    /* no figure of that kind left in supply */
	CARC_E_KIND,         /* that figure may not stand on that feature */
	CARC_E_CAPACITY,     /* a fixed engine limit would be exceeded */
	CARC_E_COUNT
} carc_rc;

const char *carc_strerror(carc_rc rc); /* "?" for a code not listed above */

/* ---- ports: where on a tile a feature is touched ----------------------- */
/* Ports are in board orientation: a move's, an event's and a figure's
 * port is where the feature lies on the board, the tile's rotation
 * applied.  Roads and cities touch edges, fields half-edges (L and R as
 * seen from the tile's centre looking out: NL is the western half of the
 * north edge), so a field is never named by an edge, nor a road by a
 * half-edge. */
enum {
	CARC_N, CARC_E, CARC_S, CARC_W,                 /* edges 0..3 */
	CARC_NL, CARC_NR, CARC_EL, CARC_ER,             /* field half-edges 4..11 */
	CARC_SL, CARC_SR, CARC_WL, CARC_WR,
	CARC_P_CLOISTER,                                /* centre building 12 */
	CARC_P_TOWER,                                   /* 13 */
	CARC_P_I, CARC_P_II,                            /* enclosed features 14, 15 */
	CARC_P_NW, CARC_P_NE, CARC_P_SE, CARC_P_SW,     /* corners, where barns stand 16..19 */
	CARC_PORT_COUNT
};
const char *carc_port_name(int port); /* "?" when out of range, as every *_name(int) */
int carc_port_parse(const char *s); /* -1 when unknown or NULL, as every parser and *_find */

/* ---- feature kinds ----------------------------------------------------- */
typedef enum carc_fkind {
	CARC_F_ROAD, CARC_F_CITY, CARC_F_FIELD, CARC_F_CLOISTER, CARC_F_RIVER,
	CARC_F_TOWER, CARC_F_COUNT
} carc_fkind;
const char *carc_fkind_name(int kind);

/* ---- figures ----------------------------------------------------------- */
typedef enum carc_figkind {
	CARC_FIG_FOLLOWER, CARC_FIG_LARGE, CARC_FIG_WAGON, CARC_FIG_MAYOR,
	CARC_FIG_BUILDER, CARC_FIG_PIG, CARC_FIG_BARN, CARC_FIG_SHEPHERD,
	CARC_FIG_COUNT
} carc_figkind;
const char *carc_figkind_name(int kind);
int carc_figkind_parse(const char *s); /* -1 when unknown or NULL */

/* ---- rule options (RULES.md section 6); the first value is the default.
 * carc_rule(i) lists each with its values and default; proto/PROTOCOL.md,
 * "Rule options", says what each value changes. -------------------------- */
typedef enum { CARC_FARM_PER_CITY_4, CARC_FARM_PER_FARM_3, CARC_FARM_PER_FARM_4 } carc_farm_rule;
typedef enum { CARC_TINY_NORMAL, CARC_TINY_2_PER_TILE_1 } carc_tiny_rule;
typedef enum { CARC_UNPLACEABLE_DISCARD, CARC_UNPLACEABLE_RESHUFFLE } carc_unplaceable_rule;

typedef struct carc_rule_desc {
	const char *key;
	const char *const *values; /* NULL-terminated; NULL for booleans/integers */
	int type;                  /* 0 enum, 1 boolean, 2 integer */
	int def;                   /* default value (index, 0/1 or integer) */
	int implemented;           /* 0: accepted but has no effect until its expansion exists */
} carc_rule_desc;

enum {
	CARC_R_FARM_SCORING, CARC_R_FARMERS, CARC_R_TINY_CITY, CARC_R_FAIRY_PLACEMENT,
	CARC_R_PRINCESS, CARC_R_DRAGON_MOVE, CARC_R_WAGON_MOVE, CARC_R_BARN_PLACEMENT,
	CARC_R_ESCAPE, CARC_R_ESCAPE_CLOISTER, CARC_R_COC_TILES, CARC_R_COC_FINAL,
	CARC_R_TOWER_EXCHANGE, CARC_R_HILL_TIEBREAK, CARC_R_GQ11_PIG_HERD,
	CARC_R_ABBEY_FINAL_ROUND, CARC_R_VOLCANO_LAKE_EXTRA_TURN,
	CARC_R_CATAPULT_TARGET_POINTS, CARC_R_CATAPULT_CATCH_POINTS,
	CARC_R_UNPLACEABLE_TILE, CARC_R_COUNT
};
const carc_rule_desc *carc_rule(int i); /* NULL when i is not in [0, CARC_R_COUNT) */
int carc_rule_find(const char *key);   /* -1 when unknown or NULL */
/* value by name for enum rules; -1 when the rule is unknown or no enum,
 * or the value unknown or NULL */
int carc_rule_value(int rule, const char *value);

/* ---- expansions and tiles ---------------------------------------------- */
/* ---- components: figures and tokens a game may leave out ---------------- */
typedef enum carc_component {
	CARC_C_LARGE, CARC_C_WAGON, CARC_C_MAYOR, CARC_C_BUILDER, CARC_C_PIG, CARC_C_BARN,
	CARC_C_SHEPHERD, CARC_C_ABBEY, CARC_C_TOWER, CARC_C_KING, CARC_C_ROBBER, CARC_C_GOODS,
	CARC_C_FAIRY, CARC_C_DRAGON, CARC_C_COUNT, CARC_C_CATAPULT, CARC_C_NUM
} carc_component; /* CARC_C_COUNT is the Count's figure; CARC_C_NUM counts the components */
const char *carc_component_name(int c);
int carc_component_find(const char *name); /* -1 when unknown or NULL */

typedef struct carc_expansion_desc {
	const char *name;    /* as in new_game: "base", "river", ... */
	const char *tileset; /* reference tile set id */
	int available;       /* 0: named by the protocol, rules not yet built */
	uint32_t components; /* bit c: the expansion brings component c */
} carc_expansion_desc;
int carc_expansion_count(void);
const carc_expansion_desc *carc_expansion(int i); /* NULL when i is not in [0, count) */
int carc_expansion_find(const char *name); /* -1 when unknown or NULL */
/* The components a game with these expansions has unless it says
 * otherwise (bits of no expansion are ignored). */
uint32_t carc_default_components(uint32_t expansions);

int carc_tile_count(void);               /* tile types known to the engine */
const char *carc_tile_id(int type);     /* NULL for an unknown type */
int carc_tile_find(const char *id);      /* -1 when unknown or NULL */
int carc_tile_expansion(int type);       /* the expansion a tile type belongs to; -1 for an unknown type */
/* Is the tile type in the tile set of one of these expansions (bit i:
 * carc_expansion(i))?  The spring is in both rivers' sets; the mini
 * expansion's river tiles count only with a river among them. */
int carc_tile_in_expansions(int type, uint32_t expansions);
/* May the tile type be in a supply, so be listed in carc_config.tiles?
 * 0 for an unknown type and the abbey (each seat holds its own, RULES.md
 * 2.9).  A dealt supply holds no spring either (a start tile), but a
 * `tiles` list may: it is drawn as a river tile with one river edge. */
int carc_tile_drawable(int type);
/* Where a dealt supply puts tiles of this type, from the top: 0 a river
 * fork, 1 another river tile, 2 a lake (placed last of the river), 3 a
 * tile of land; -1 for an unknown type.  A deal shuffles the tiles, then
 * puts them in this order, keeping the shuffle within each rank; a
 * `tiles` list is played as given. */
int carc_tile_deal_rank(int type);
/* What a tile turned `rot` quarter turns shows at board edge `dir` (0 N,
 * 1 E, 2 S, 3 W): "field", "road", "city", "river" or "inner" (a side inside
 * the City of Carcassonne); "?" when type, rot (0..3) or dir (0..3) is
 * out of range.  For messages such as "the north edge ... does not match". */
const char *carc_tile_edge(int type, int rot, int dir);

/* ---- what is printed on a tile type --------------------------------------
 * For a client that draws tiles or weighs the tiles still to come without
 * reading the manifests (engine/tiles/NAME.tiles), and for carcd's `tiles`.
 * Marks on one feature (carc_tile_feature.marks): */
enum {
	CARC_MARK_INN = 1 << 0,        /* a road with an inn (Inns & Cathedrals) */
	CARC_MARK_CATHEDRAL = 1 << 1,  /* a city with a cathedral */
	CARC_MARK_BESIEGED = 1 << 2,   /* a besieged city segment (Cathars) */
	CARC_MARK_PRINCESS = 1 << 3,   /* a city segment with the princess */
	CARC_MARK_CULT_PLACE = 1 << 4, /* a centre building (CARC_F_CLOISTER) that is a cult place,
	                                  which the rules do not take for a cloister */
	CARC_MARK_PIG_HERD = 1 << 5    /* a field with a pig herd (the mini expansion) */
};
enum { CARC_MARK_COUNT = 6 }; /* the marks' bits */
/* "inn", "cathedral", "besieged", "princess", "cult_place", "pig_herd"
 * for bits 0 to 5 (not the mask); "?" for any other. */
const char *carc_mark_name(int bit);
/* Symbols printed on a tile type beside its features (carc_tile_symbols): */
enum {
	CARC_SYMBOL_VOLCANO = 1 << 0,
	CARC_SYMBOL_DRAGON = 1 << 1,
	CARC_SYMBOL_PORTAL = 1 << 2,
	CARC_SYMBOL_HILL = 1 << 3,     /* Hills & Sheep: a tile goes under it */
	CARC_SYMBOL_VINEYARD = 1 << 4, /* Hills & Sheep: +3 to a cloister beside it */
	CARC_SYMBOL_FAIR = 1 << 5,
	CARC_SYMBOL_GARDEN = 1 << 6,
	CARC_SYMBOL_SPRING = 1 << 7,   /* a river spring: only ever a start tile */
	CARC_SYMBOL_LAKE = 1 << 8,     /* a lake: placed last of its river */
	CARC_SYMBOL_ABBEY = 1 << 9     /* a player's abbey: never drawn, walls on every side */
};
enum { CARC_SYMBOL_COUNT = 10 }; /* the symbols' bits */
/* "volcano", "dragon", "portal", "hill", "vineyard", "fair", "garden",
 * "spring", "lake", "abbey" for bits 0 to 9; "?" for any other. */
const char *carc_symbol_name(int bit);
uint16_t carc_tile_symbols(int type); /* CARC_SYMBOL_* bits; 0 for an unknown type */

typedef struct carc_tile_feature {
	uint8_t kind;      /* carc_fkind */
	uint8_t pennants;  /* a city segment's pennants */
	int8_t goods;      /* a city segment's trade good, CARC_TOK_WINE, _GRAIN or _CLOTH; -1 for none */
	uint8_t marks;     /* CARC_MARK_* */
	uint16_t ports;    /* bit p: port p, as for a placed tile (carc_tile_features) */
	uint16_t reaches;  /* a city: edges (bit d) it also reaches without joining
	                      the feature there, turned as `ports` (HS/CC!.v's E city
	                      reaches N); 0 for every other */
	uint16_t borders;  /* a field: bit i for each city i of this list it touches */
} carc_tile_feature;
/* The features printed on a tile type turned `rot` quarter turns clockwise
 * (0..3), in the order carc_tile_features gives them once the tile is
 * placed: returns how many there are, and writes the first `cap` (none for
 * a cap of 0 or less); -1 for an unknown type or a rot out of range. */
int carc_tile_describe(int type, int rot, carc_tile_feature *out, int cap);

/* ---- a game's configuration -------------------------------------------- */
typedef struct carc_start_tile {
	uint16_t tile;  /* tile type */
	int16_t x, y;
	uint8_t rot;
} carc_start_tile;

/* carc_game_init refuses with CARC_E_ARG a config whose fields leave the
 * ranges given here.  A game keeps the fields and the counted entries of
 * the lists, nothing else (game.c keep_config copies them one by one). */
typedef struct carc_config {
	uint8_t nseats;                     /* 1..CARC_MAX_SEATS */
	uint32_t expansions;                /* bit i = carc_expansion(i); at least one, each available;
	                                       base or a river brings the start tile: the others alone
	                                       need `start` */
	uint32_t components;                /* bit c = carc_component c, when components_given; only
	                                       those an available expansion brings */
	uint8_t components_given;           /* 0: the chosen expansions' components; any other
	                                       value: `components` as given */
	int32_t rules[CARC_R_COUNT];        /* enum: a value's index; boolean: 0 or 1; integer: >= 0
	                                       (carcd takes 0 to 1000) */
	uint64_t seed;                      /* deals the supply; on a stream of its own, the sheep drawn */
	uint16_t ntiles;                    /* >0: the supply is exactly tiles[] in order; <= CARC_MAX_TILES */
	uint16_t tiles[CARC_MAX_TILES];     /* tile types of the chosen expansions */
	uint8_t nstart;                     /* >0: these instead of the standard start; <= CARC_MAX_START */
	carc_start_tile start[CARC_MAX_START]; /* known tile types, rot 0..3, x and y in -1000..1000,
	                                       two never at one place; they come on top of the supply,
	                                       which is dealt as without them (carc_game_dealt); in a
	                                       river game with no open river end among them the river
	                                       tiles, drawn first, fit nowhere (carcd refuses that) */
	uint8_t nbag;                       /* >0: the Hills & Sheep draws, in order: draw i takes bag[i]
	                                       when the bag holds one then, else draws at random as
	                                       without a list; past nbag, at random.  A list of no token
	                                       more often than the bag holds it (4, 5, 5, 2 sheep, 2
	                                       wolves) is always drawn as listed; a longer one is the
	                                       draws of a game, whose tokens went back to the bag.  A
	                                       game without the shepherd keeps the list and never draws
	                                       (carcd refuses a bag there) */
	uint8_t bag[CARC_BAG_DRAWS];        /* 1-4 sheep, CARC_WOLF */
} carc_config;

/* Defaults: base game, 2 seats, every rule at its default (carc_rule).  A
 * NULL cfg is left alone. */
void carc_config_init(carc_config *cfg);
/* The first of cfg's start tiles (its index in cfg->start) that touches
 * one listed before it and does not match it edge for edge, as a placement
 * must; -1 when they all match.  carc_game_init refuses a config with such
 * a tile (CARC_E_ARG): this names it.  Tiles outside carc_config's ranges
 * are not compared (carc_game_init refuses those anyway); -1 for NULL. */
int carc_config_start_mismatch(const carc_config *cfg);

/* ---- moves -------------------------------------------------------------- */
typedef enum carc_mtype {
	CARC_MV_PASS, CARC_MV_PLACE_TILE, CARC_MV_DEPLOY, CARC_MV_ESCAPE, CARC_MV_DRAW, CARC_MV_PLACE_ABBEY,
	CARC_MV_MOVE_WAGON, CARC_MV_FLOCK, CARC_MV_COUNT
} carc_mtype;
const char *carc_mtype_name(int type);

/* A move is read by the fields its type uses, and the others are ignored
 * whatever they hold (carc_legal_moves writes 0 or CARC_NONE in them):
 * pass and draw none; place_tile tile, x, y, rot; deploy kind, x, y, port;
 * place_abbey x, y; move_wagon x, y, port; escape figure; flock kind. */
typedef struct carc_move {
	uint8_t type;    /* carc_mtype */
	uint8_t rot;     /* quarter turns clockwise (place_tile) */
	uint8_t kind;    /* figure kind (deploy); flock: 0 expand, 1 gather */
	uint8_t port;    /* any port of the feature (deploy, move_wagon) */
	int16_t x, y;
	uint16_t tile;   /* tile type (place_tile) */
	uint16_t figure; /* figure index (escape: the follower that leaves) */
} carc_move;

/* ---- phases -------------------------------------------------------------- */
typedef enum carc_phase {
	CARC_PH_TILE, CARC_PH_ACTION, CARC_PH_OVER, CARC_PH_ESCAPE, CARC_PH_WAGON, CARC_PH_FLOCK, CARC_PH_ABBEY_FINAL,
	CARC_PH_COUNT
} carc_phase;
const char *carc_phase_name(int phase);

/* ---- events ---------------------------------------------------------------- */
typedef enum carc_etype {
	CARC_EV_TILE_DRAWN, CARC_EV_TILE_PLACED, CARC_EV_TILE_DISCARDED,
	CARC_EV_DEPLOYED, CARC_EV_RETURNED, CARC_EV_FEATURE_COMPLETED,
	CARC_EV_SCORED, CARC_EV_TURN, CARC_EV_GAME_OVER, CARC_EV_TOKEN_TAKEN, CARC_EV_TILE_HIDDEN,
	CARC_EV_SHEEP_DRAWN, CARC_EV_COUNT
} carc_etype;
const char *carc_etype_name(int type);

/* Reasons in `returned` and `tile_discarded` events.  A `tile_drawn` or
 * `tile_hidden` event has CARC_WHY_RESHUFFLED when the tile is one that
 * was put back under the supply (`unplaceable_tile` reshuffle) coming
 * round again, else 0: the supply as dealt is the tiles drawn or hidden
 * less those (the history's tile order). */
enum {
	CARC_WHY_SCORED, CARC_WHY_UNPLACEABLE, CARC_WHY_RESHUFFLED, CARC_WHY_ESCAPE, CARC_WHY_LONELY, CARC_WHY_CHALLENGE,
	CARC_WHY_BARN, CARC_WHY_WOLF, CARC_WHY_FLOCK, CARC_WHY_COUNT
};
const char *carc_why_name(int why);

/* What a score is for (the `by` breakdown and the `feature` of `scored`). */
enum {
	CARC_SC_ROAD, CARC_SC_CITY, CARC_SC_CLOISTER, CARC_SC_FIELD, CARC_SC_BARN, CARC_SC_TRADE,
	CARC_SC_KING, CARC_SC_ROBBER, CARC_SC_FLOCK, CARC_SC_COUNT
};

/* Tokens a seat can hold (`token_taken` events, the state's `tokens`). */
enum { CARC_TOK_KING, CARC_TOK_ROBBER, CARC_TOK_WINE, CARC_TOK_GRAIN, CARC_TOK_CLOTH, CARC_TOK_COUNT };
const char *carc_token_name(int token);
const char *carc_sc_name(int sc);

/* An event, as the wire gives it (proto/PROTOCOL.md, Events), with these
 * fields filled (the others 0, seat -1, tile and figure CARC_NONE):
 *   tile_drawn       seat, tile, why (CARC_WHY_RESHUFFLED or 0)
 *   tile_placed      seat (-1 for a start tile), tile, x, y, rot (quarter turns clockwise)
 *   tile_discarded   tile, why
 *   tile_hidden      x, y (where the hill lies), tile (the hidden one), why
 *   deployed         seat, figure (carc_figure_get's index), kind, x, y, port, fkind (carc_fkind)
 *   returned         seat, figure, kind, why
 *   feature_completed  x, y, port, fkind, ntiles
 *   scored           seat, points, fkind (CARC_SC_*), final, and x, y, port
 *                    (port CARC_PORT_COUNT: goods, king and robber, which lie nowhere)
 *   token_taken      seat, kind (CARC_TOK_*), from
 *   sheep_drawn      seat, x, y (the shepherd's tile), kind (1-4 sheep, CARC_WOLF)
 *   turn             seat;  game_over  nothing (read the scores from the game) */
typedef struct carc_event {
	uint8_t type;    /* carc_etype */
	int8_t seat;     /* -1 when none */
	uint8_t rot;
	uint8_t port;    /* `at` of a feature: its first port in canonical order
	                  * (deployed: a barn's corner); CARC_PORT_COUNT for a
	                  * score with no place (tokens) */
	uint8_t fkind;   /* scored: CARC_SC_*; feature_completed/deployed: carc_fkind */
	uint8_t why;
	uint8_t final;   /* scored at the end of the game */
	uint8_t kind;    /* figure kind; token_taken: the token; sheep_drawn: 1-4 sheep, 5 wolf */
	int8_t from;     /* token_taken: the seat it was taken from, -1 none */
	int16_t x, y;
	uint16_t tile;    /* tile_hidden: the tile under the hill, for replays (the wire keeps it secret) */
	uint16_t figure;  /* deployed, returned: the figure, as carc_figure_get numbers them */
	uint16_t ntiles; /* feature_completed: tiles in the feature */
	int32_t points;  /* scored */
} carc_event;

/* Where a call writes its events.  Each event goes to ev[n], then n
 * grows: events at n >= `cap` are counted in `n` but not stored; pass
 * NULL to a call to record nothing.  `n` goes on from where it is (set it
 * to 0 for a fresh record, and ev[0..n) is left alone); `ev` holds `cap` events
 * (it may be NULL when cap <= 0: then events are only counted).  A sink
 * with n < 0, n > INT_MAX - CARC_MAX_EVENTS, or cap > 0 and no ev is
 * refused: carc_game_init and carc_apply answer CARC_E_ARG, carc_end_now
 * does nothing, and the game and the sink stay as they were. */
typedef struct carc_sink {
	carc_event *ev;
	int n, cap;
} carc_sink;

/* ---- the game ------------------------------------------------------------ */
typedef struct carc_game carc_game;

/* carc_game_size() bytes, aligned as malloc aligns; no undo: a bot that
 * searches plays on copies (carc_game_clone). */
size_t carc_game_size(void);
/* Sets up a game in `g` (carc_game_size() bytes): shuffles the supply with
 * cfg->seed, places the start tiles and draws the first tile.  Custom start
 * tiles that touch must match.  CARC_E_ARG for a NULL g or cfg, a config
 * out of its ranges (carc_config), no start tile or a refused sink;
 * CARC_E_CAPACITY for a game past the engine's limits.  On an error `g`
 * holds no game (what it held may have been overwritten).  cfg may be
 * carc_game_config(g): the same game set up again from its start. */
carc_rc carc_game_init(carc_game *g, const carc_config *cfg, carc_sink *out);
void carc_game_clone(carc_game *dst, const carc_game *src); /* dst may be src: then nothing happens */
/* A fingerprint of the whole value: the secret supply order, the
 * generator and internal caches included.  Equal for the same config and
 * moves (a replay) within one build on one machine: it hashes the value's
 * bytes, whose order and layout differ between machines (byte order,
 * alignment), so compare hashes of one build only; the games themselves
 * replay alike everywhere.  Not a key of the position on the board,
 * which other moves or another deal may reach with another hash. */
uint64_t carc_game_hash(const carc_game *g);

/* Who must decide now and in which phase; -1 seat when the game is over. */
int carc_game_phase(const carc_game *g);
int carc_game_seat(const carc_game *g);
int carc_game_over(const carc_game *g);
int carc_game_nseats(const carc_game *g);
const carc_config *carc_game_config(const carc_game *g);
int carc_game_drawn(const carc_game *g);      /* tile type to place, or -1 */
/* The tile drawn in the turn going on: to place (the tile phase) or placed
 * already (the later decisions of that turn), with the seat whose turn it
 * is in *seat (may be NULL); -1 (and -1 in *seat) when there is none:
 * before the draw, when the abbey was placed instead, in the final round
 * and at the end. */
int carc_game_turn_tile(const carc_game *g, int *seat);
int carc_game_tiles_left(const carc_game *g); /* undrawn tiles in the supply */
/* How many tiles of `type` the game's supply was dealt, drawn since or
 * not: the tile sets less what set-up takes out (one base start tile, with
 * a river too, the springs, River I's lake beside River II's), or the
 * `tiles` list; start tiles and abbeys are not in it.  0 for an unknown
 * type.  Less the tiles drawn and hidden so far (without re-draws:
 * CARC_WHY_RESHUFFLED), what is left is the tiles not seen yet, which a
 * bot that must not know their order deals again (engine/README.md). */
int carc_game_dealt(const carc_game *g, int type);
int carc_game_score(const carc_game *g, int seat);             /* 0 for an unknown seat */
int carc_game_score_by(const carc_game *g, int seat, int sc); /* 0 for an unknown seat or CARC_SC_* */
uint32_t carc_game_turn(const carc_game *g);  /* turns begun so far */

/* Every legal move of the decision now due; returns the count (may exceed
 * cap: then only the first cap are written).  0 once the game is over.  The
 * whole of out[0..cap) is scratch: slots past the count may be overwritten.
 * With a cap of 0 or less, or a NULL out, nothing is written and the count
 * is still returned.  A choice is listed once: a deploy into a feature the
 * tile just placed holds in two parts (a farm on both sides of a road that
 * ends nearby) at its first part only. */
int carc_legal_moves(const carc_game *g, carc_move *out, int cap);
/* Which expansion's rule keeps tile `type` from (x, y) turned rot, where
 * the board takes it (an empty place whose edges match; for the abbey,
 * its tile type at rot 0, a hole): the index of the first expansion
 * (carc_expansion) whose rule refuses it (a rule two sets share, the
 * river's, is named by the one in the game); -1 when none does, and for a
 * place the board does not take.  What carcd tells a refused move. */
int carc_placement_refused_by(const carc_game *g, int type, int x, int y, int rot);
/* Which condition of that rule refuses it (carc_placement_refusal). */
typedef enum carc_refusal {
	CARC_RF_NONE,           /* no rule of an expansion refuses it */
	CARC_RF_OTHER,          /* a rule with no finer account (none in scope) */
	CARC_RF_RIVER_UNJOINED, /* its river meets no open end of the river */
	CARC_RF_RIVER_JOINS,    /* its river would join two ends: the branches must never meet */
	CARC_RF_RIVER_U_TURN,   /* it turns the way the tile it continues turns: a U-turn */
	CARC_RF_RIVER_ROOM,     /* an end it leaves open lacks room: the empty place next to it
	                           that its river runs into (at), the place beyond that, and the
	                           places beside those two must all be empty */
	CARC_RF_RIVER_ENDS,     /* it closes the river while river tiles are still to come (a tile
	                           only this refuses fits nowhere when drawn and is discarded: only
	                           a caller asking about a tile not drawn meets it) */
	CARC_RF_RIVER_BOXED,    /* it leaves an open end that no river tile still to come continues */
	CARC_RF_RIVER_NOT_FREE, /* it leaves the river no free end, where another placement does */
	CARC_RF_CULT_TWO_CLOISTERS, /* a cult place next to two cloisters or abbeys (diagonals count) */
	CARC_RF_CLOISTER_TWO_CULTS, /* a cloister or abbey next to two cult places */
	CARC_RF_CLOISTER_HAS_CULT,  /* a cult place next to a cloister or abbey (at) that has a cult
	                               place next to it already */
	CARC_RF_CULT_HAS_CLOISTER,  /* a cloister or abbey next to a cult place (at) that has a
	                               cloister or abbey next to it already */
	/* the other moves (carc_move_refusal) */
	CARC_RF_ABBEY_NOT_HOLE,     /* the abbey goes only into a hole: an empty place with a tile
	                               on each of its four sides */
	CARC_RF_VOLCANO_LAKE,       /* no figure goes on the volcano lake just placed (not met in
	                               play: with no expansion in scope adding action moves, the
	                               lake's turn ends at its placement, and a deploy then is
	                               CARC_E_PHASE) */
	CARC_RF_FARM_HAS_BARN,      /* no follower joins a farm with a barn (at: the barn's tile) */
	CARC_RF_NEEDS_OWN_FOLLOWER, /* a builder or pig joins only a feature where the seat has a
	                               follower */
	CARC_RF_FARM_HAS_SHEPHERD,  /* a shepherd goes only into a farm with no shepherd (at: the
	                               shepherd's tile) */
	CARC_RF_BARN_NOT_FIELD,     /* the barn's corner of the tile just placed is not a field */
	CARC_RF_BARN_NO_TILE,       /* four tiles must meet at the barn's corner, and (at) is empty */
	CARC_RF_BARN_SPLIT,         /* the tile at (at) is no field at the barn's corner: one field
	                               must cover the four corners that meet there */
	CARC_RF_BARN_FARM_HAS_BARN, /* barn_placement no-second-barn: the farm has a barn (at: its
	                               tile) */
	CARC_RF_WAGON_NO_TILE,      /* the wagon's target: no tile at (x, y) */
	CARC_RF_WAGON_NOTHING,      /* nothing is at that port of the tile */
	CARC_RF_WAGON_KIND,         /* a field or a river there: a wagon goes onto a road, city or
	                               cloister only */
	CARC_RF_WAGON_COMPLETE,     /* that feature is complete */
	CARC_RF_WAGON_OCCUPIED,     /* a follower stands in that feature */
	CARC_RF_WAGON_OUT_OF_REACH, /* beyond the wagon's reach under wagon_move: not connected to the
	                               feature just scored, or not on the wagon's tile or one of the
	                               eight around it (at: the wagon's tile) */
	CARC_RF_ESCAPE_NOT_YOURS,   /* that figure belongs to another seat */
	CARC_RF_ESCAPE_NOT_IN_CITY, /* that figure is no follower standing in a city (in the supply,
	                               elsewhere, or a builder or pig) */
	CARC_RF_ESCAPE_NOT_BESIEGED, /* its city is not besieged (no siege tile) */
	CARC_RF_ESCAPE_NO_CLOISTER, /* no cloister, abbey or cult place is next to a tile of its city
	                               that escape_cloister counts (siege-tile: a siege tile; any-tile:
	                               any) */
	CARC_RF_ESCAPE_DONE,        /* a follower has escaped from this city this turn already (escape
	                               each-city: one a city) */
	CARC_RF_COUNT
} carc_refusal;
/* "none", "other", "river_unjoined", "river_joins", "river_u_turn",
 * "river_room", "river_ends", "river_boxed", "river_not_free",
 * "cult_place_two_cloisters", "cloister_two_cult_places",
 * "cloister_has_cult_place", "cult_place_has_cloister", "abbey_not_hole",
 * "volcano_lake", "farm_has_barn", "needs_own_follower",
 * "farm_has_shepherd", "barn_not_field", "barn_no_tile", "barn_split",
 * "barn_farm_has_barn", "wagon_no_tile", "wagon_nothing", "wagon_kind",
 * "wagon_complete", "wagon_occupied", "wagon_out_of_reach",
 * "escape_not_yours", "escape_not_in_city", "escape_not_besieged",
 * "escape_no_cloister", "escape_done". */
const char *carc_refusal_name(int refusal);
int carc_refusal_find(const char *s); /* -1 when unknown or NULL */
/* Why a rule of an expansion keeps tile `type` from (x, y) turned rot
 * (carc_placement_refused_by names the expansion): one condition of it,
 * the first of the order above that fails; CARC_RF_NONE where
 * carc_placement_refused_by answers -1.  *at_x, *at_y (either may be NULL)
 * receive the place the reason names: the open end for
 * CARC_RF_RIVER_ROOM, the building for CARC_RF_CLOISTER_HAS_CULT and
 * CARC_RF_CULT_HAS_CLOISTER, else (x, y) itself; with CARC_RF_NONE they
 * are left alone.  Both functions answer for any tile type and in any
 * phase, of the board as it is; the river's look ahead counts as still to
 * come the river tiles after the one drawn, whichever tile is asked
 * about.  What carcd tells a refused move, in words. */
carc_refusal carc_placement_refusal(const carc_game *g, int type, int x, int y, int rot, int *at_x, int *at_y);
/* The same for any move that carc_check_move answers CARC_E_RULE: for a
 * place_tile, carc_placement_refusal's answer; for a place_abbey,
 * CARC_RF_ABBEY_NOT_HOLE off a hole, else carc_placement_refusal's answer
 * for the abbey's tile (a cult places' reason); else which condition of
 * the rule of a figure or of an expansion's move fails, from
 * CARC_RF_VOLCANO_LAKE on (CARC_RF_OTHER when none of them, which no move
 * in scope is known to get).  CARC_RF_NONE for a move carc_check_move
 * does not answer CARC_E_RULE.  *at_x, *at_y (either may be NULL) receive
 * the place the reason names (the comments above say which), else the
 * move's x, y; with CARC_RF_NONE they are left alone.  `m` may be NULL
 * (CARC_RF_NONE). */
carc_refusal carc_move_refusal(const carc_game *g, const carc_move *m, int *at_x, int *at_y);
/* Why `m` is illegal now (CARC_OK if it is legal).  `detail` (may be NULL)
 * receives, for CARC_E_EDGE, the side of the tile placed (0 N, 1 E, 2 S,
 * 3 W, on the board) whose edge does not match, the first in that order
 * when several do not, and is left alone otherwise.  Any bytes in `m` are answered: CARC_E_OVER on a game that is
 * over; CARC_E_ARG for an unknown type, a place_tile of the drawn tile with
 * rot > 3, a deploy (in the action phase) of an unknown kind or at an
 * unknown port, an escape (when escapes are open) of a figure the game
 * does not have, a flock (when open) of a kind other than 0 and 1; else the first reason found, CARC_E_TILE for a tile that is
 * not the one drawn (known or not).  A legal move is one listed, in the
 * fields its type reads (carc_move), but for how it names a feature: by
 * any of its ports on the tile listed, and for move_wagon by any port of
 * any tile the feature covers; carc_apply then plays it as listed (a
 * move_wagon as listed on the tile it names, when the feature is listed
 * there, else as listed first).  `m` is never NULL. */
carc_rc carc_check_move(const carc_game *g, const carc_move *m, int *detail);
/* Which of list[0..n), the moves carc_legal_moves listed for the decision
 * due now, is the choice `m` makes (as carc_check_move reads m): its
 * index, or -1 when m is illegal now or not in the list (a list of an
 * earlier decision may hold a move of this one's: pass the current list).
 * A move_wagon is found as listed on the tile m names, if it is listed
 * there; a deploy into a feature the tile holds in two parts, which is
 * listed once at its first part, also by the other part's ports, and
 * carc_apply plays it as listed.  For a client that wants a move in the
 * one form the listing gives it. */
int carc_move_index(const carc_game *g, const carc_move *list, int n, const carc_move *m);
/* Plays `m` for the seat that must decide; returns what carc_check_move
 * does, or CARC_E_ARG for a refused sink.  On an error nothing changes and
 * no event is recorded. */
carc_rc carc_apply(carc_game *g, const carc_move *m, carc_sink *out);
/* Ends the game now, as if the seat due passed and the supply were empty:
 * what this turn's placement completed scores as completed, and the end
 * of the turn scores what it scores without a decision (farmers joined to
 * a barn's farm, a flock in a closed farm; a wagon's move, an escape or
 * a flock's expand-or-gather are passed too); every other feature and
 * farm scores as at the end.  Used on a clone for "if it ended now".
 * Does nothing on a game that is over, or with a refused sink. */
void carc_end_now(carc_game *g, carc_sink *out);

/* ---- the board, for renderers and the wire -------------------------------- */
typedef struct carc_placed_info {
	uint16_t tile;
	int16_t x, y;
	uint8_t rot;
} carc_placed_info;
int carc_board_count(const carc_game *g);
/* Tile i (0 <= i < carc_board_count) into *out (which may be NULL); returns
 * 1, or 0 for an index past the board, and then writes nothing. */
int carc_board_get(const carc_game *g, int i, carc_placed_info *out);
int carc_board_find(const carc_game *g, int x, int y); /* index, or -1 for any place with no tile */

typedef struct carc_figure_info {
	uint8_t seat, kind, n; /* id "<seat>.<kind>.<n>"; n counts from 1 in each seat and kind */
	uint8_t on_board;
	int16_t x, y;
	uint8_t port;          /* first port of the part of its feature it stands on (a tile
	                        * may hold a feature in two parts); a barn: its corner */
	uint8_t fkind;         /* carc_fkind of that feature */
} carc_figure_info;
int carc_figure_count(const carc_game *g);
/* Figure i into *out (which may be NULL); returns 1, or 0 when there is no
 * such figure (i outside [0, carc_figure_count), or a slot of a figure
 * this game does not have), and then writes nothing. */
int carc_figure_get(const carc_game *g, int i, carc_figure_info *out);
/* The index of figure "<seat>.<kind>.<n>" (n from 1); -1 when none (any bad argument). */
int carc_figure_find(const carc_game *g, int seat, int kind, int n);
/* Figures of a kind a seat has in supply; 0 for an unknown seat or kind. */
int carc_supply_count(const carc_game *g, int seat, int kind);
/* How many of a token a seat holds (king and robber: 0 or 1); 0 for an
 * unknown seat or token. */
int carc_tokens(const carc_game *g, int seat, int token);
/* Abbey tiles a seat still holds (Abbey & Mayor); 0 for an unknown seat. */
int carc_abbeys(const carc_game *g, int seat);
/* Sheep tokens of `sheep` (1-4) beside a seat's shepherd (Hills & Sheep:
 * public, they lie by the figure); 0 for an unknown seat or token. */
int carc_flock_sheep(const carc_game *g, int seat, int sheep);

/* Features of a placed tile, in board orientation (for the wire's `ports`):
 * returns how many it has, 0 when no tile is at (x, y).  Entry i is the
 * feature's ports (bit p: port p) and its carc_fkind; the first `cap` are
 * written (none for a cap of 0 or less), into each array that is not NULL.
 * An edge is a port of one feature only, and one tile has more at an
 * edge: Hills & Sheep's HS/CC!.v, whose E city also reaches the N edge
 * beside the N-W city, and joins the city across that edge, while its
 * ports show only E (turned with the tile).  A caller that works out a
 * city's open edges from ports alone misses that one. */
int carc_tile_features(const carc_game *g, int x, int y, uint16_t *ports_out,
                       uint8_t *kinds_out, int cap);
/* The ports on the tile at (x, y) of the whole feature that touches `port`
 * there (bit p: port p): where a tile holds two parts of one feature (a
 * farm that runs round a road's end, a road that comes back to its own
 * junction), both parts' ports once they have met; carc_tile_features
 * gives each part's alone.  0 when no tile is at (x, y), no feature
 * touches `port` there, or `port` is not an edge, a half-edge, the centre
 * (CARC_P_CLOISTER, CARC_P_TOWER) or an enclosed feature (CARC_P_I,
 * CARC_P_II): corners (barns) are not answered. */
uint16_t carc_feature_ports(const carc_game *g, int x, int y, int port);

/* ---- randomness ---------------------------------------------------------- */
/* xoshiro256** seeded through splitmix64: the same seed gives the same
 * numbers on every machine. */
typedef struct carc_rng { uint64_t s[4]; } carc_rng;
void carc_rng_seed(carc_rng *r, uint64_t seed);
uint64_t carc_rng_next(carc_rng *r);
/* Uniform in [0, n); 0 for n = 0, and then nothing is drawn.  `r` is never NULL. */
uint32_t carc_rng_below(carc_rng *r, uint32_t n);

#ifdef __cplusplus
}
#endif

#endif

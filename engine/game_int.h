/*
 * game_int.h - the game state and the engine's internal interfaces.
 *
 * The state is one flat struct of fixed arrays and 16-bit indices, never
 * pointers, so a memcpy clones it.  carc_game_hash() reads the scalar head
 * and the live part of each array, all written deterministically, so two
 * replays of the same moves hash alike.
 */
#ifndef CARC_GAME_INT_H
#define CARC_GAME_INT_H

#include "carc.h"
#include "tiles_int.h"

/* The frontier: the empty places next to a tile.  A connected board of n
 * tiles has at most 2 n + 2; each start tile may begin a board of its own
 * (every later tile touches one), so k of them make at most 2 n + 2 k. */
#define CARC_MAX_FRONTIER (2 * CARC_MAX_TILES + 2 * CARC_MAX_START + 4)
#define CARC_HASH_SIZE 1024          /* cells: placed tiles plus the frontier */
_Static_assert(CARC_MAX_TILES + CARC_MAX_FRONTIER < CARC_HASH_SIZE, "the cell map never fills");
#define CARC_FIGS_PER_SEAT 16        /* 7 followers plus one of each special figure */
#define CARC_MAX_PENDING 64          /* features completed by one placement */
#define CARC_MAX_FIGS (CARC_MAX_SEATS * CARC_FIGS_PER_SEAT)
#define CARC_SPECIALS_PER_SEAT 1     /* builders, pigs, barns, shepherds: one of each a seat */
_Static_assert(CARC_FIGS_PER_SEAT <= 16, "a seat's figure slots fit a 16-bit mask");
#define CARC_NHOOKS 20               /* expansion hooks (ext_int.h CARC_HOOK_*) */

/* A placed tile. */
typedef struct carc_cell {
	uint16_t type;
	int16_t x, y;
	uint8_t rot;
	uint8_t nb;        /* placed tiles among its 8 neighbours */
	uint16_t node0;    /* its first feature node; feature i is node0 + i */
} carc_cell;

/* One feature segment of a placed tile; the union-find roots carry the
 * data of the whole connected feature. */
typedef struct carc_node {
	uint16_t parent;
	uint16_t next;     /* circular list of every segment of the feature */
	uint16_t cell;     /* the placed tile */
	uint16_t size;     /* root: segments in the feature */
	int16_t open;      /* root: edges not yet joined to a neighbour */
	uint8_t feat;      /* feature index in the tile type */
	uint8_t kind;      /* carc_fkind */
	uint8_t nfig;      /* root: followers standing in the feature */
	uint8_t done;      /* root: completed */
} carc_node;

/* An empty position next to the board with the edges it must match. */
typedef struct carc_front {
	int16_t x, y;
	uint32_t want, mask; /* edge kinds (8 bits a side) of the placed neighbours */
} carc_front;

typedef struct carc_fig {
	uint16_t node;     /* feature node it stands on, CARC_NONE in the supply */
	uint8_t seat, kind, n, used; /* used: this slot exists in this game */
	uint8_t at, pad;   /* a barn's corner port (0 for others) */
} carc_fig;

struct carc_game {
	carc_config cfg;
	carc_rng rng;
	uint8_t phase;
	uint8_t seat;         /* who must decide */
	uint8_t turn_seat;    /* whose turn it is */
	uint8_t extra;        /* this turn is an extra one (a builder's, the volcano lake's) */
	uint8_t nseats;
	uint8_t over;
	uint32_t hooks;       /* CARC_HOOK_* bits: which hooks an active expansion fills */
	uint8_t stage;        /* end of the turn: the next expansion to ask */
	uint32_t exts;        /* bit i: carc_exts[i] is active in this game */
	uint16_t hook_exts[CARC_NHOOKS]; /* per hook bit: the active expansions that fill it (an expansion
	                                    may leave a hook it has no use for, for good: river.c, or until
	                                    it has: abbey.c) */
	uint16_t phase_exts[CARC_PH_COUNT]; /* per phase: the active expansions that decide it (carc_ext.phases) */
	uint16_t placed_for[16]; /* per tile facts (the first four CARC_TT_*): the active expansions whose
	                            tile_placed sees such a tile (carc_ext.placed_tiles) */
	uint16_t feature_exts[CARC_F_COUNT]; /* per feature kind: the active expansions asked about such a
	                                        feature (carc_ext.feature_kinds) */
	uint8_t special_ext[CARC_FIG_COUNT]; /* 1 + the carc_exts index that deploys a special figure kind, 0 none */
	uint16_t drawn;       /* tile type to place, CARC_NONE if none */
	uint16_t first_fit;   /* the first position of front[] where `drawn` may go (set at each draw
	                         with `drawn`; front[] stays as it is until the tile is placed) */
	uint32_t judges;      /* the expansions that judge where `drawn` may go (game.c placement_judged);
	                         set at each draw, meaningful only while `drawn` is a tile */
	uint32_t judged_by[4]; /* per CARC_PT_* facts of a tile type (game.c placement_facts): 1 << 30 with
	                         the judges placement_judged gives such a tile, set at the first draw
	                         of one (no expansion leaves the placement hook); 0 before */
	uint16_t last;        /* cell placed this turn, CARC_NONE if none */
	uint32_t turn;
	uint16_t nsupply, next; /* supply[next..nsupply) are still to draw */
	uint16_t supply[CARC_MAX_TILES + 8];
	uint16_t ncells, nnodes, nfront, npending;
	uint16_t nholes;      /* frontier positions with tiles on all four sides */
	uint8_t joined_held;  /* bit k: the placement being made joined a feature of kind k (carc_fkind) that
	                         followers stand in (set by carc_feat_join, cleared by carc_place_tile): the
	                         tile's own segments start with none, so a feature of another kind on the
	                         tile just placed holds no follower */
	uint8_t closing;      /* set by carc_board_place when a placement leaves a road or city
	                         with no open end; cleared once game.c find_completed has looked
	                         at the newest tile (until then it looks at every tile it is given) */
	carc_fig figs[CARC_MAX_FIGS];
	uint8_t in_supply[CARC_MAX_SEATS][CARC_FIG_COUNT]; /* figures not on the board */
	uint16_t on_board[CARC_MAX_SEATS];  /* bit i: figs[s * CARC_FIGS_PER_SEAT + i] stands on the board */
	uint16_t followers_on[CARC_MAX_SEATS]; /* the same, followers only (they have strength) */
	uint16_t followers_in[CARC_MAX_SEATS][CARC_F_COUNT]; /* followers_on by the kind of feature they stand in */
	uint16_t kind_slots[CARC_FIG_COUNT]; /* bit i: slot i of a seat holds a figure of that kind (the same slots
	                                        for every seat) */
	uint8_t nspecial[CARC_F_COUNT]; /* figures on the board that are not followers (builders, pigs, ...),
	                                   by the kind of feature they stand in */
	uint32_t components;  /* in effect: the given ones or the expansions' */
	uint8_t tokens[CARC_MAX_SEATS][CARC_TOK_COUNT];
	/* expansion state, each part owned by one expansion file */
	uint16_t river_end;               /* river: set by river_order at set-up (0 when it did not run):
	                                     no river tile at supply[river_end..) but those put back (CARC_PUT_BACK) */
	uint8_t nriver_open;              /* river: entries of river_open, 0xff once more were needed */
	uint8_t river_closed;             /* river: set by a placement in play that leaves no open river end
	                                     or no river tile to draw: no river tile can be placed any more,
	                                     and river.c does nothing */
	carc_front river_open[12];        /* river: the empty places a placed river edge faces, as in front[] */
	uint8_t river_room[12];           /* river: per river_open entry, bit d: no tile in the six places
	                                     ahead of it toward d (river.c ahead[]), on the board as is (0 for
	                                     a side with a tile); bit 4 + d: a tile is next to it toward d */
	uint16_t river_alone;             /* river: bit i: every other listed end shows one river only and
	                                     is not next to river_open[i] */
	uint16_t river_fast;              /* river: bit i: river_ok[i] holds the answers at river_open[i]
	                                     for the next draw, if that is river_peek */
	uint16_t river_ok[12];            /* river: bit e: a tile whose turned river edges are e may go
	                                     at river_open[i] (set only with river_fast bit i) */
	uint16_t river_lake;              /* river: 1 + the cell of the last volcano lake placed, 0 none */
	uint64_t river_near;              /* river: bit (x + 8 y) & 63 set for each listed open end
	                                     (all bits once the list overflowed): a place without its bit
	                                     is no open end */
	uint16_t river_next;              /* river: g->next at the last placement */
	uint16_t river_left, river_dead;  /* river: river tiles in supply[river_next..nsupply), and of them
	                                     dead ends (one river edge: lakes, the city end) */
	uint16_t river_peek;              /* river: supply[river_next] then (0xffff: none), the next draw */
	uint16_t river_left1, river_dead1; /* river: river_left and river_dead less river_peek's tile */
	uint8_t river_shapes1;            /* river: of the river tiles after river_peek, bit 0 a fork, bit 1 a curve */
	uint8_t river_known;              /* river: river_allow holds the answers for the next draw, if that
	                                     is river_peek (a river tile) */
	uint8_t river_forks, river_curves; /* river: of river_left, the forks and the curves */
	uint64_t river_allow;             /* river: bit 4 i + rot: river_peek turned rot may go at river_open[i],
	                                     by every rule of river.c (set only with river_known) */
	uint16_t river_fit;               /* river: 1 + the first position of front[] where river_peek may go,
	                                     0 none (set only with river_known): game.c first_fit's answer */
	int16_t river_x0, river_y0;       /* river: the corner of river_occ, 16 places W and N of the first tile */
	int16_t river_box[4];             /* river: the least and greatest x, then y, of the placed tiles */
	uint32_t river_occ[32];           /* river: bit x - river_x0 of [y - river_y0]: a tile is placed there
	                                     (kept until the river is closed; places outside: board lookup) */
	int8_t king, robber;              /* king-robber: holder seats, -1 none */
	uint16_t king_size, robber_size;  /* largest completed city / longest road */
	uint8_t completed_known;          /* king-robber: completed[] holds; set at the first completion */
	uint16_t completed[2];            /* king-robber: completed roads, cities on the board (by kind) */
	uint8_t builder_turn;             /* traders: the builder earned an extra turn this turn */
	uint8_t trade_fig[CARC_MAX_SEATS][2]; /* traders: each seat's builder and pig slot, set at set-up
	                                     (0xff none) */
	uint16_t build_node[CARC_MAX_SEATS]; /* traders: the segment each seat's builder stood on when
	                                     builder_check last looked (CARC_NONE: never), */
	uint16_t build_size[CARC_MAX_SEATS]; /* and the size of its feature after that placement */
	uint8_t nherds;                   /* traders: counting pig herd segments listed in herds[], 0xff when
	                                     more were placed (then farms are walked) */
	uint16_t herds[4];
	uint8_t abbeys[CARC_MAX_SEATS];   /* abbey: abbey tiles still held */
	uint8_t final_asked;              /* abbey: 1 + seats asked in the final round, 0 before it */
	uint8_t final_from;               /* abbey: the seat the final round starts with */
	uint16_t abbey_type;              /* abbey: the abbey's tile type, found at set-up */
	uint8_t nbarns;                   /* abbey: barns deployed so far */
	uint8_t barn_fig[CARC_MAX_SEATS]; /* abbey: their figure slots, in deploy order (one barn a seat) */
	uint16_t barn_farm[CARC_MAX_SEATS]; /* abbey: a segment of barn_fig[i]'s farm at or near the root: the
	                                     root at its deploy, moved to the root again by abbey_placed */
	uint16_t barn_join;               /* abbey: 1 + the cell of this turn's tile when it joined farmers to
	                                     a barn's farm (scored at the turn's end), 0 none */
	uint8_t bag[CARC_WOLF + 1];       /* hills: tokens in the bag by kind, 1-4 sheep, wolf */
	uint8_t bag_next;                 /* hills: next entry of cfg.bag to draw */
	uint8_t flock[CARC_MAX_SEATS][CARC_WOLF + 1]; /* hills: tokens beside each seat's shepherd */
	uint8_t flock_due;                /* hills: bit s: seat s extended its shepherd's farm */
	uint8_t flock_check;              /* hills: a shepherd may stand in a farm that can no longer grow
	                                     (this turn's tile closed a farm, or a shepherd was deployed);
	                                     only then does the turn's end look (gather_closed) */
	uint8_t shepherd[CARC_MAX_SEATS]; /* hills: each seat's shepherd figure slot, set at set-up */
	uint8_t shep_one;                 /* hills: bit s: seat s has a shepherd (set-up) */
	uint8_t shep_out;                 /* hills: bit s: seat s's shepherd was deployed and has not been sent
	                                     home by hills.c since (it may be on the board) */
	uint16_t shep_node[CARC_MAX_SEATS]; /* hills: the segment seat s's shepherd stood on when seen (its deploy), */
	uint16_t shep_farm[CARC_MAX_SEATS]; /* a segment of its farm at or near the root (walks start there;
	                                     moved to the root when a placement grows the farm), */
	uint16_t shep_next[CARC_MAX_SEATS]; /* and the `next` of that root then: every join of two features
	                                     changes the `next` of both roots (carc_feat_join), so while it
	                                     holds, nothing has joined the farm */
	uint8_t nwagons;                  /* abbey: wagons whose feature just scored */
	struct { uint8_t seat, fig; uint16_t root, cell; } wagons[CARC_MAX_SEATS];
	uint8_t nbuild;                   /* cult: cloisters and cult places listed in build[] */
	uint8_t ncult;                    /* cult: of them, cult places (at the back of build[]) */
	uint8_t build_full;               /* cult: a building was placed with build[] full: the lists no
	                                     longer tell, the board is read (never with the sets' own tiles) */
	struct {
		int16_t x, y;
		uint8_t kind;                 /* 1 cloister, 2 cult place */
		uint8_t nnear;                /* listed buildings of the other kind around it */
	} build[48]; /* cult.c: cloisters from the front, cult places from the back; all sets in scope: 25, abbeys 6 */
	uint16_t build_zone[2][16];       /* cult: bit x & 15 of [kind - 1][y & 15] clear: no listed building
	                                     of that kind stands at or around (x, y) (set: one may, aliased) */
	uint16_t build_look[32];          /* cult: bit x & 15 of [16 * (kind - 1) + (y & 15)] set: two or
	                                     more listed buildings of the other kind, or one with a building
	                                     of this kind near it, may stand at or around (x, y) (aliased as
	                                     build_zone); clear: a building of this kind may go there */
	uint32_t build_rows[2][16];       /* cult: bit j of [kind - 1][r]: the j-th listed building of that
	                                     kind (j < 32) stands in row r - 1, r or r + 1 (mod 16) */
	uint8_t nescaped;                 /* cathars: besieged cities left this turn */
	uint8_t siege_near;               /* cathars: bit i: a cloister-type tile is next to siege[i]'s tile */
	uint8_t siege_look;               /* cathars: bit i: siege[i]'s city may let a follower escape: its tile
	                                     has a cloister-type neighbour (any tile: always) and the city was
	                                     not seen complete at a turn's end since */
	uint16_t nsiege;                  /* cathars: besieged segments (siege tiles) on the board */
	uint16_t siege[8];                /* cathars: their nodes, while nsiege <= 8 (all sets in scope: 4) */
	uint16_t siege_root[8];           /* cathars: a segment of siege[i]'s city at or near its root: siege[i]
	                                     when listed, moved to the root when a turn's end looks at it */
	uint16_t escaped[CARC_FIGS_PER_SEAT]; /* cathars: the cities left this turn (one escape a figure at most) */
	int32_t score[CARC_MAX_SEATS];
	int32_t score_by[CARC_MAX_SEATS][CARC_SC_COUNT];
	/* Below: arrays whose live part is given by the counts above.  Set-up
	 * zeroes only what is above `cells` and the cell map's keys. */
	carc_cell cells[CARC_MAX_TILES];
	carc_node nodes[CARC_MAX_NODES];
	carc_front front[CARC_MAX_FRONTIER];
	uint16_t pending[CARC_MAX_PENDING]; /* completed features to score this turn */
	/* open-addressed cell map: key (x,y) -> cell index or ~frontier index; laid
	 * out as a torus over the board, so a place's neighbours are near its
	 * slot (board.c home()) */
	uint32_t hkey[CARC_HASH_SIZE];
	int16_t hval[CARC_HASH_SIZE];
	/* on_board less followers_on by the kind of feature they stand in (as
	 * followers_in): set from the figures, so left out of the hash; kept
	 * here, below the arrays, not to move them (set-up zeroes it) */
	uint16_t specials_in[CARC_MAX_SEATS][CARC_F_COUNT];
};

/* The four rotations of a tile tested against one frontier position at
 * once: bit r of the result is set when rotation r matches every placed
 * neighbour.  GCC and clang vector extensions; on x86 one movemask turns
 * the comparison into the bits. */
/* GCC warns that a vector passed or returned without SSE (-m32 on i386)
 * has another ABI than with it.  Every engine function that takes or
 * returns one is static (these two, and game.c's put_position), never
 * called across a library's boundary, and carc.h has no vector type: that
 * ABI is nobody's concern, so the warning is off in every engine file
 * that includes this header (an exported function with a vector argument
 * would need it back on). */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef uint32_t carc_v4u __attribute__((vector_size(16)));
typedef float carc_v4f __attribute__((vector_size(16)));
static inline unsigned carc_fit_mask(carc_v4u code, const carc_front *f)
{
	carc_v4u eq = (code & f->mask) == f->want;
#if defined(__SSE__)
	return (unsigned)__builtin_ia32_movmskps((carc_v4f)eq);
#else
	return (eq[0] & 1u) | (eq[1] & 2u) | (eq[2] & 4u) | (eq[3] & 8u);
#endif
}
static inline carc_v4u carc_codes(int type)
{
	carc_v4u v;
	__builtin_memcpy(&v, carc_tiletypes[type].edge_code, sizeof v);
	return v;
}

/* A supply entry put back under the supply (a drawn tile that fitted
 * nowhere, `unplaceable_tile` reshuffle): it goes back once only, and
 * when it comes round again its tile_drawn or tile_hidden event says so. */
#define CARC_PUT_BACK 0x8000u
static inline uint8_t carc_drawn_why(uint16_t entry)
{
	return entry & CARC_PUT_BACK ? CARC_WHY_RESHUFFLED : 0;
}
/* The tile type of a supply entry, put back or not. */
static inline uint16_t carc_entry_tile(uint16_t entry) { return (uint16_t)(entry & ~CARC_PUT_BACK); }

/* Is this tile type the abbey of a game with the abbey component (it is
 * never drawn: each seat holds its own)? */
static inline int carc_is_abbey(const carc_game *g, int type)
{
	return (g->components >> CARC_C_ABBEY & 1) && type == g->abbey_type;
}

/* ---- emitting events ---- */
static inline carc_event *carc_emit(carc_sink *out, int type)
{
	if (!out) return NULL;
	carc_event *e = out->n < out->cap ? &out->ev[out->n] : NULL;
	out->n++;
	if (e) {
		static const carc_event blank = { .seat = -1, .tile = CARC_NONE, .figure = CARC_NONE };
		*e = blank;
		e->type = (uint8_t)type;
	}
	return e;
}

static inline const carc_tiletype *carc_cell_type(const carc_game *g, int c)
{
	return &carc_tiletypes[g->cells[c].type];
}

/* Queues a feature the current placement completed, once. */
static inline void carc_pending_add(carc_game *g, int root)
{
	if (g->nodes[root].done || g->npending >= CARC_MAX_PENDING) return;
	g->nodes[root].done = 1;
	g->pending[g->npending++] = (uint16_t)root;
}

/* The place across side d (CARC_N, CARC_E, CARC_S, CARC_W) of (x, y) is
 * (x + carc_dx[d], y + carc_dy[d]). */
static const int carc_dx[4] = { 0, 1, 0, -1 }, carc_dy[4] = { -1, 0, 1, 0 };

/* The edge kind (CARC_EK_*) that tile `type` turned `rot` shows toward
 * side d: byte d of its edge_code.  Two tiles side by side match where
 * each shows the other the same kind. */
static inline unsigned carc_edge_kind(int type, int rot, int d)
{
	return carc_tiletypes[type].edge_code[rot] >> (8 * d) & 0xff;
}

/* board.c */
/* The feature node of a placed tile at a port (carc_port), or -1. */
static inline int carc_board_feature_at(const carc_game *g, int cell, int port)
{
	const carc_cell *c = &g->cells[cell];
	const carc_tiletype *t = &carc_tiletypes[c->type];
	int p = carc_port_unrot(port, c->rot), f = CARC_NOF;
	if (p < 4) f = t->edge_feat[p];
	else if (p < 12) f = t->half_feat[p - 4];
	else if (p == CARC_P_CLOISTER) f = t->cloister;
	else if (p == CARC_P_TOWER) f = t->tower;
	else
		for (int i = 0; i < t->nfeat; i++)
			if (t->f[i].other >> (p - CARC_P_I) & 1) f = i;
	return f == CARC_NOF ? -1 : c->node0 + f;
}
int carc_board_lookup(const carc_game *g, int x, int y);   /* cell index, or -1 */
int carc_board_front_at(const carc_game *g, int x, int y); /* frontier position (front[]), or -1 */
int carc_board_fits(const carc_game *g, int type, int x, int y, int rot, int *bad_edge);
int carc_board_place(carc_game *g, int type, int x, int y, int rot); /* new cell index, or -1 */
/* The lowest port of a feature segment on its tile: how moves and events name it. */
static inline int carc_board_first_port(const carc_game *g, int node)
{
	const carc_node *n = &g->nodes[node];
	const carc_cell *c = &g->cells[n->cell];
	return carc_tiletypes[c->type].first_port[c->rot][n->feat];
}
uint16_t carc_board_ports(const carc_game *g, int node);
/* A tile may hold two segments of one feature (a farm that runs round a
 * road's end, a road that comes back to its own junction).  The first
 * segment on its tile of the feature a segment belongs to, the one whose
 * first port comes first in canonical order (board orientation), so that
 * its name is the feature's there: the one a deploy is listed at, and
 * where a figure stands whichever segment its move named, so that every
 * name of one choice plays the same game. */
int carc_board_first_segment(const carc_game *g, int node);
/* The segments of cell `cell` that are not the first segment of their
 * feature on the tile, in the same sense (bit i: segment i): on the tile
 * just placed, the parts a deploy is not listed at.  Each root is found
 * once, for a whole deploy listing. */
unsigned carc_board_later_parts(const carc_game *g, int cell);

/* feature.c */
/* The root of a node's feature.  Every segment points at its root
 * itself (carc_feat_join relabels the smaller feature it takes in), so
 * this is one load: it is asked many times a turn, a join is rarer. */
static inline int carc_feat_root(const carc_game *g, int n) { return g->nodes[n].parent; }
/* Joins two segments' features into one; returns its root, which is the
 * root of the larger (of a's on a tie). */
static inline int carc_feat_join(carc_game *g, int a, int b)
{
	a = carc_feat_root(g, a);
	b = carc_feat_root(g, b);
	if (a == b) return a;
	if (g->nodes[a].size < g->nodes[b].size) { int t = a; a = b; b = t; }
	carc_node *ra = &g->nodes[a], *rb = &g->nodes[b];
	int n = b;
	do { /* b's segments now point at a */
		g->nodes[n].parent = (uint16_t)a;
		n = g->nodes[n].next;
	} while (n != b);
	ra->size = (uint16_t)(ra->size + rb->size);
	ra->open = (int16_t)(ra->open + rb->open);
	ra->nfig = (uint8_t)(ra->nfig + rb->nfig);
	g->joined_held |= (uint8_t)((ra->nfig != 0) << ra->kind);
	uint16_t t = ra->next; /* splice the two member cycles into one */
	ra->next = rb->next;
	rb->next = t;
	return a;
}

/* Runs the statement for each figure slot `i` whose bit is set in
 * g->mask[seat] (on_board or followers_on), seat by seat, in slot order;
 * the masks are read before the statement runs, so it may return figures. */
#define CARC_FIGS_IN(g, mask, i) \
	for (unsigned i##_s = 0, i##_m, i; i##_s < (g)->nseats; i##_s++) \
		for (i##_m = (g)->mask[i##_s]; i##_m && (i = i##_s * CARC_FIGS_PER_SEAT + (unsigned)__builtin_ctz(i##_m), 1); \
		     i##_m &= i##_m - 1)
int carc_feat_tiles(const carc_game *g, int root, int *pennants, uint16_t *flags);
int carc_feat_first_node(const carc_game *g, int root);
/* The segment that events name a feature by (carc_feat_first_node), for
 * carc_add_score: read only for an event, so with no sink to record
 * events into, 0 and no walk over the feature. */
static inline int carc_feat_where(const carc_game *g, int root, const carc_sink *out)
{
	return out ? carc_feat_first_node(g, root) : 0;
}

/* What scoring knows of a feature before majorities are counted. */
typedef struct carc_feat_info {
	int kind;        /* carc_fkind */
	int tiles;       /* distinct tiles */
	int pennants;
	unsigned flags;  /* CARC_TF_* of any of its segments */
	int final;       /* scored at the end, incomplete */
} carc_feat_info;

/* score.c */
void carc_score_feature(carc_game *g, int root, int final, carc_sink *out);
void carc_score_final(carc_game *g, carc_sink *out);
void carc_return_figures(carc_game *g, int root, carc_sink *out);
void carc_add_score(carc_game *g, int seat, int sc, int points, int node, int final, carc_sink *out);
void carc_score_farm_now(carc_game *g, int root, int per_city, carc_sink *out);
int carc_farm_worth(carc_game *g, int root);
/* game.c */
void carc_take_token(carc_game *g, int seat, int token, int from, carc_sink *out);

#endif

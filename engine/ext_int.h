/*
 * ext_int.h - how an expansion reaches the turn.
 *
 * Each expansion is one file that fills a carc_ext and is listed in
 * carc_exts[] (ext.c).  The base rules in game.c call these hooks at fixed
 * points of the turn and never test for an expansion themselves; a hook
 * left NULL costs nothing.
 */
#ifndef CARC_EXT_INT_H
#define CARC_EXT_INT_H

#include "game_int.h"

#define CARC_FIRST_UNKNOWN (-2) /* carc_ext.first_allowed: not known */

typedef struct carc_ext {
	const char *name;         /* the expansion name of new_game */
	const char *also;         /* a second expansion that brings the same rules, or NULL */
	uint32_t components;      /* also active when one of these is in play without the expansion */
	/* Set-up, after the figures and before the supply. */
	void (*setup)(carc_game *g);
	/* Set-up: reorder the shuffled supply (not a given tile order). */
	void (*order_supply)(carc_game *g);
	/* Set-up: how many tiles this expansion may put on the board besides
	 * the supply and the start tiles (the seats' abbeys); their feature
	 * segments are added to *nodes.  A game the board could not hold is
	 * refused. */
	int (*board_extra)(const carc_game *g, int *nodes);
	/* unplaceable_tile reshuffle: the tile drawn last, supply[next - 1],
	 * fits nowhere and goes back; where to?  `to` is the bottom of the
	 * supply (nsupply - 1), or where an expansion asked before put it;
	 * the answer is an index from next - 1 to nsupply - 1 of the supply as
	 * it will be once the tile is out of it (the entries from next to the
	 * answer move up one). */
	int (*put_back)(const carc_game *g, int type, int to);
	/* May this tile go there?  Edge matching has already passed.  With
	 * placement_tiles set, only asked about the tiles it names. */
	int (*placement_allowed)(const carc_game *g, int type, int x, int y, int rot);
	uint8_t placement_tiles;  /* the tiles it judges: those with one of these CARC_PT_* facts
	                             (game.c placement_facts); 0: every tile */
	int placement_any_rot;    /* its verdict is the same for every rotation */
	/* Why placement_allowed refuses the placement (a carc_refusal; the
	 * place it names in *ax, *ay, never NULL); asked only of a refused one,
	 * off the hot path: plain code, which test_placement_ext holds to the
	 * model's reasons.  NULL: CARC_RF_OTHER. */
	int (*placement_why)(const carc_game *g, int type, int x, int y, int rot, int *ax, int *ay);
	/* Why a move other than a placement of the drawn tile is refused by
	 * a rule of this expansion (carc_check_move answers CARC_E_RULE): a
	 * carc_refusal, with the place it names in *ax, *ay (never NULL; the
	 * move's x, y on entry); CARC_RF_NONE when the move is none of its
	 * business.  Asked of each expansion in play in turn, off the hot
	 * path; NULL: never its business. */
	int (*move_why)(const carc_game *g, const carc_move *m, int *ax, int *ay);
	/* placement_allowed over a whole listing: moves[0..n) are placements
	 * of `type` whose edges match (positions in frontier order, each with
	 * its rotations ascending); drops those placement_allowed refuses,
	 * keeping the order of the rest, and returns how many are left.  Its
	 * verdicts must be placement_allowed's, move for move.  Left NULL,
	 * placement_allowed is asked for each move. */
	int (*filter_placements)(const carc_game *g, int type, carc_move *moves, int n);
	/* For the tile just drawn, when this expansion already knows it: the
	 * first position of front[] where it allows the tile at some rotation
	 * that fits (it refuses every position before), -1 when it allows it
	 * nowhere; or CARC_FIRST_UNKNOWN.  Asked by the draw (game.c first_fit)
	 * for tiles whose judges care about rotation; may be left NULL. */
	int (*first_allowed)(const carc_game *g, int type);
	/* More moves for the action phase, after the base deploys; returns the new count. */
	int (*action_moves)(const carc_game *g, carc_move *out, int n, int cap);
	/* A tile has been placed (before anyone deploys). */
	void (*tile_placed)(carc_game *g, int cell, carc_sink *out);
	/* The tiles tile_placed is asked about: those with one of these facts
	 * (CARC_TT_*: hill, siege, herd or building); 0: every tile. */
	uint8_t placed_tiles;
	/* A feature was completed by the seat on turn, before it is scored. */
	void (*feature_completed)(carc_game *g, int root, carc_sink *out);
	/* The points of a road, city or cloister before majorities: returns
	 * `points` changed or not. */
	int (*feature_points)(const carc_game *g, int root, const carc_feat_info *fi, int points);
	/* The kinds of feature (bit k: carc_fkind k) feature_completed and
	 * feature_points are asked about; 0: every kind. */
	uint8_t feature_kinds;
	/* A completed feature with followers in it has been scored, its
	 * figures not yet returned. */
	void (*feature_scored)(carc_game *g, int root, carc_sink *out);
	/* A deploy of a figure kind the base rules do not place (builder,
	 * pig, barn, ...) at `port` of the tile just placed: CARC_OK with the
	 * feature segment in *node, an error code, or -1 when the kind is not
	 * this expansion's.  Such figures never block a feature nor count for
	 * its majority. */
	int (*deploy_special)(const carc_game *g, int seat, int kind, int port, int *node);
	uint32_t special_kinds;   /* bit k: deploy_special judges figure kind k */
	/* A figure this expansion deploys (deploy_special, and it is the first
	 * active one that judges the kind) has just been deployed (slot `fig`). */
	void (*deployed)(carc_game *g, int fig, carc_sink *out);
	/* No follower may be deployed into this feature (a farm with a barn).
	 * Asked only about features of the kinds in `closes` (bit k: carc_fkind
	 * k), which an expansion that fills it sets. */
	int (*feature_closed)(const carc_game *g, int root);
	uint32_t closes;
	/* Start of a turn, before the draw: returns 1 to let the seat choose
	 * (tile_moves) instead of drawing at once. */
	int (*turn_start)(carc_game *g);
	/* The supply is empty: returns 1 to open a last decision before final
	 * scoring (the abbey's final round); asked again after each turn. */
	int (*end_round)(carc_game *g, carc_sink *out);
	/* More moves for the tile phase (the abbey); returns the new count. */
	int (*tile_moves)(const carc_game *g, carc_move *out, int n, int cap);
	/* Applies a move this expansion listed in the tile or action phase. */
	void (*apply_move)(carc_game *g, const carc_move *m, carc_sink *out);
	/* May the seat on turn deploy on the tile just placed? */
	int (*deploy_allowed)(const carc_game *g, int cell);
	/* After the turn's scoring: returns 1 when it opened a decision of its
	 * own phase; its phase_apply calls carc_turn_continue() when done.
	 * What it scores without a decision comes first: carc_end_now asks
	 * every such hook in turn and never takes up the decisions opened. */
	int (*turn_end)(carc_game *g, carc_sink *out);
	/* The phases (bit p) this expansion decides, their moves and their
	 * effect.  A move reaches phase_apply only if phase_moves lists it. */
	uint32_t phases;
	int (*phase_moves)(const carc_game *g, carc_move *out, int cap);
	void (*phase_apply)(carc_game *g, const carc_move *m, carc_sink *out);
	/* The turn is over: does the same seat take another? */
	int (*extra_turn)(carc_game *g);
	/* Seats tied for the most strength (bit s) in the features `roots`
	 * (one, or every farm of a city under per-city-4): returns those that
	 * win (the hill tie-break). */
	unsigned (*tiebreak)(const carc_game *g, const uint16_t *roots, int nroots, unsigned tied);
	/* How much more `seat` scores per city when it wins farm `root` (its
	 * own pig, the pig herds there: 1 each).  Under per-city-4 a city sums
	 * it over the farms that touch it where the winner has a farmer. */
	int (*farm_bonus)(const carc_game *g, int root, int seat);
	/* How many completed cities a completed city counts as for farms. */
	int (*city_weight)(const carc_game *g, int city_root);
	/* Final scoring, after the base game's. */
	void (*final_scoring)(carc_game *g, carc_sink *out);
} carc_ext;

enum {
	CARC_HOOK_PLACEMENT = 1 << 0, CARC_HOOK_ACTION = 1 << 1, CARC_HOOK_PLACED = 1 << 2,
	CARC_HOOK_SCORED = 1 << 3, CARC_HOOK_FINAL = 1 << 4, CARC_HOOK_COMPLETED = 1 << 5,
	CARC_HOOK_POINTS = 1 << 6, CARC_HOOK_SETUP = 1 << 7, CARC_HOOK_DEPLOY = 1 << 8, CARC_HOOK_EXTRA = 1 << 9,
	CARC_HOOK_TURN_END = 1 << 10, CARC_HOOK_CITY_WEIGHT = 1 << 11, CARC_HOOK_SPECIAL = 1 << 12,
	CARC_HOOK_FARM_BONUS = 1 << 13, CARC_HOOK_DEPLOYED = 1 << 14, CARC_HOOK_CLOSED = 1 << 15,
	CARC_HOOK_TURN_START = 1 << 16, CARC_HOOK_TILE_MOVES = 1 << 17, CARC_HOOK_TIEBREAK = 1 << 18,
	CARC_HOOK_END_ROUND = 1 << 19, /* the last: CARC_NHOOKS hooks */
	CARC_HOOK_COUNT = CARC_NHOOKS
};

/* Facts about a tile type that say which expansions judge its placements
 * (carc_ext.placement_tiles). */
enum {
	CARC_PT_BUILDING = 1 << 0, /* a centre building: cloister or cult place (carc_tile_traits) */
	CARC_PT_RIVER = 1 << 1     /* a river edge (carc_tile_river) */
};

/* Expansions with hooks, NULL-terminated, in this order (their index in
 * carc_exts, and their bit in g->exts and g->hook_exts). */
extern const carc_ext *const carc_exts[];
enum {
	CARC_EXT_RIVER, CARC_EXT_INNS, CARC_EXT_KING, CARC_EXT_ABBEY, CARC_EXT_CATHARS, CARC_EXT_TRADERS,
	CARC_EXT_CULT, CARC_EXT_HILLS, CARC_EXT_COUNT
};

/* The hooks the game's expansions fill (CARC_HOOK_* bits) and which
 * expansions are active (bit i: carc_exts[i]), worked out once at set-up;
 * per_hook[h] gets the active expansions that fill hook 1 << h, so that a
 * hook costs one step per expansion that has it and nothing otherwise. */
unsigned carc_ext_hooks(const carc_config *cfg, uint32_t components, uint32_t *active,
                        uint16_t per_hook[CARC_HOOK_COUNT]);

/* Expansion `ext` (CARC_EXT_*) leaves a hook it has no use for now
 * (CARC_HOOK_*), or, with `on`, comes back to it (g->hook_exts). */
/* Is the expansion `name` (as in new_game) among the game's sets?  Its
 * tiles, and so its symbols, are in play (an ext is also on for one of its
 * components alone). */
static inline int carc_game_has_set(const carc_game *g, const char *name)
{
	int e = carc_expansion_find(name);
	return e >= 0 && (g->cfg.expansions >> e & 1);
}

static inline void carc_ext_hook(carc_game *g, unsigned ext, unsigned hook, int on)
{
	uint16_t *m = &g->hook_exts[__builtin_ctz(hook)];
	*m = (uint16_t)(on ? *m | 1u << ext : *m & ~(1u << ext));
}

/* Runs the statement for each expansion of the mask (bit i: carc_exts[i]),
 * in the order of carc_exts; e##_i is its index there.  The mask is read
 * once, before the first. */
#define CARC_EXT_IN(mask, e) \
	for (unsigned e##_m = (mask), e##_i; e##_m && (e##_i = (unsigned)__builtin_ctz(e##_m), 1); e##_m &= e##_m - 1) \
		for (const carc_ext *e = carc_exts[e##_i]; e; e = NULL)
/* The same for each active expansion that fills `hook`. */
#define CARC_EXT_EACH(g, hook, e) CARC_EXT_IN((g)->hook_exts[__builtin_ctz(hook)], e)

/* game.c: places a tile for the seat on turn (the abbey: no edge check) and
 * goes on to the action phase. */
void carc_place_tile(carc_game *g, int type, int x, int y, int rot, carc_sink *out);
/* game.c: draws the tile for the seat on turn (ends the game when none is left). */
void carc_draw(carc_game *g, carc_sink *out);
/* game.c: deploys figure `fig` onto segment `node` (at: the port shown). */
void carc_deploy(carc_game *g, int fig, int node, int at, carc_sink *out);
/* game.c: do the expansions' placement rules allow this tile there? */
int carc_placement_ok(const carc_game *g, int type, int x, int y, int rot);
/* The expansions other than `self` that judge where this tile may go
 * (bit i: carc_exts[i]), and whether all of `judges` allow a placement:
 * for an expansion whose own rule chooses among the places the others
 * leave (the river's free end). */
uint32_t carc_judges_but(const carc_game *g, const carc_ext *self, int type);
int carc_judges_allow(const carc_game *g, uint32_t judges, int type, int x, int y, int rot);
/* game.c: the next turn begins (or the game ends when nothing is left). */
void carc_begin_turn(carc_game *g, carc_sink *out);
/* game.c: resumes the end of the turn after an expansion's decision. */
void carc_turn_continue(carc_game *g, carc_sink *out);
/* game.c: may the seat on turn deploy on the tile just placed at all? */
int carc_deploy_here_ok(const carc_game *g);
/* game.c: has the seat on turn anything to deploy on the tile just placed
 * (the question after a placement: no, and the turn goes on at once)? */
int carc_deploy_any(const carc_game *g);
/* game.c: is this a follower (blocks a feature, counts for majorities)? */
int carc_is_follower(int kind);
/* game.c: does `seat` have a follower in the feature of `root`? */
int carc_seat_in(const carc_game *g, int seat, int root);
/* game.c: a figure goes back to its owner's supply; a builder or pig left
 * without its owner's follower in the feature follows it (why lonely). */
void carc_return_figure(carc_game *g, int fig, int why, carc_sink *out);

#endif

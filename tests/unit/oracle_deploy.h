/*
 * oracle_deploy.h - a second, deliberately naive model of which figures
 * the rules let a seat deploy where, on the tile just placed, with the
 * expansions; test_deploy_ext.c holds the engine's action decision
 * against it.
 *
 * Written from RULES.md (1.1, 2.1-2.3, 2.5, 2.6, 2.9, 2.13, 2.14, 4, 6)
 * and the manifest's primary per-feature data (each feature's kind, its
 * ports, the tile's symbols), not from the engine's state: the board,
 * its features and the figures on them are oracle_ext's model (ore),
 * built from the events; the figures in each seat's supply are counted
 * here from the components of the game and the deployed and returned
 * events.  Every (figure kind, feature of the tile) pair is judged by
 * the rules one after the other, and the first rule that forbids it is
 * the answer.
 *
 * Barns are not judged here (where a barn may stand is oracle_ext's
 * ore_barn_corners, held against the engine by test_oracle_ext.c).
 */
#ifndef CARC_ORACLE_DEPLOY_H
#define CARC_ORACLE_DEPLOY_H

#include "carc.h"
#include "oracle_ext.h"

/* The model's verdict on one figure kind on one feature of the tile. */
enum {
	ORD_OK,            /* the rules allow it */
	ORD_VOLCANO,       /* the volcano lake: no figure on it (2.3, 2.7) */
	ORD_NOT_HERE,      /* the river, a tower foundation: never a figure (2.2, 2.8) */
	ORD_KIND,          /* the figure may not stand on this kind of feature */
	ORD_NO_FIELDS,     /* farmers false: nothing on fields (section 6) */
	ORD_NO_FIGURE,     /* none of that kind in the seat's supply */
	ORD_TAKEN,         /* a follower already stands in the connected feature (2.1) */
	ORD_BARN_FARM,     /* no farmer into a farm with a barn (2.9) */
	ORD_NO_OWN,        /* builder / pig: the seat has no follower / farmer there (2.6) */
	ORD_SHEPHERD_FARM, /* the farm already has a shepherd (2.13) */
	ORD_NOT_JUDGED,    /* a barn: left to oracle_ext */
	ORD_COUNT
};
const char *ord_reason_name(int reason);

typedef struct ord {
	ore o;                                      /* board, features, figures on the board */
	int nseats, farmers;
	int supply[CARC_MAX_SEATS][CARC_FIG_COUNT]; /* figures of each kind not on the board */
	int last_cell;                              /* the tile a seat placed last (ore cell), -1 */
} ord;

/* One deploy: a figure kind on a feature (ore segment) of the tile. */
typedef struct ord_deploy {
	int kind, seg;
} ord_deploy;

/* The supply at the start (2.14): 7 followers (the eighth keeps the
 * score), and one of each special figure whose component is in play. */
void ord_init(ord *d, const carc_config *cfg);
/* Follows one event: tiles placed, figures deployed and returned. */
void ord_event(ord *d, const carc_event *e);
/* Why `seat` may or may not deploy a `kind` on segment `seg` (ORD_*). */
int ord_judge(ord *d, int seat, int kind, int seg);
/* Every deploy the rules allow `seat` on the tile placed last (barns left
 * out), one a feature: a feature the tile holds in two segments at its
 * first (ord_first_seg); returns the count. */
int ord_deploys(ord *d, int seat, ord_deploy *out, int cap);
/* The segment of seg's cell that belongs to seg's feature and has the
 * lowest first port there (seg itself when it is the feature's only one). */
int ord_first_seg(ord *d, int seg);
/* The lowest board port at which a segment of a cell lies. */
int ord_first_port(const ord *d, int seg);

#endif

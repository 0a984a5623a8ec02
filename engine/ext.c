/*
 * ext.c - the list of expansions that hook into the turn.  The base game
 * needs none; each expansion adds its carc_ext here as it arrives.
 */
#include "ext_int.h"

const carc_ext *const carc_exts[] = { NULL };

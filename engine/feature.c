/*
 * feature.c - connected features: union-find over the segments of placed
 * tiles, with each feature's segments also kept on a circular list so
 * that scoring can visit them (and count each tile once).
 */
#include <string.h>

#include "game_int.h"

/* Distinct tiles of a feature; also its pennants and attribute flags. */
int carc_feat_tiles(const carc_game *g, int root, int *pennants, uint16_t *flags)
{
	uint64_t seen[(CARC_MAX_TILES + 63) / 64];
	memset(seen, 0, sizeof seen);
	int tiles = 0, pen = 0;
	uint16_t fl = 0;
	int n = root;
	do {
		const carc_node *nd = &g->nodes[n];
		const carc_tfeat *f = &carc_cell_type(g, nd->cell)->f[nd->feat];
		pen += f->pennants;
		fl |= f->flags;
		if (!(seen[nd->cell / 64] >> (nd->cell % 64) & 1)) {
			seen[nd->cell / 64] |= 1ull << (nd->cell % 64);
			tiles++;
		}
		n = nd->next;
	} while (n != root);
	if (pennants) *pennants = pen;
	if (flags) *flags = fl;
	return tiles;
}

/* The segment placed first: a feature's stable "where". */
int carc_feat_first_node(const carc_game *g, int root)
{
	int best = root, n = root;
	do {
		if (n < best) best = n;
		n = g->nodes[n].next;
	} while (n != root);
	return best;
}

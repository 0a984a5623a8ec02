/*
 * guard.c - the frame guard: walks MessagePack bytes before msgpack-c sees
 * them.  msgpack-c trusts declared lengths (a 5-byte array header claiming
 * 4 billion members makes it reserve gigabytes) and recurses without
 * bound; here every declared length is judged against the bytes a message
 * may still have, depth is bounded, and 0xc1 is refused.  The walk is
 * resumable, so a message that arrives in pieces is walked once.
 */
#include "proto.h"

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++) v = v << 8 | p[i];
	return v;
}

static proto_guard_rc fail(proto_guard *g, proto_guard_rc rc, const char *why)
{
	g->why = why;
	return rc;
}

void proto_guard_init(proto_guard *g, size_t max)
{
	g->why = NULL;
	g->max = max;
	g->pos = 0;
	g->depth = 0;
}

/* Header bytes after the tag, and what the header declares: `len` payload
 * bytes of a string, binary or extension, or `count` members. */
typedef struct token {
	int head;       /* bytes after the tag byte that hold the length */
	int fixed;      /* payload bytes that need no length (numbers, ext type) */
	int container;  /* 1 array, 2 map */
	int bad;
} token;

static token classify(uint8_t t)
{
	token k = { 0, 0, 0, 0 };
	if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) return k;
	if (t <= 0x8f) { k.container = 2; return k; } /* fixmap */
	if (t <= 0x9f) { k.container = 1; return k; } /* fixarray */
	if (t <= 0xbf) return k; /* fixstr: length in the tag */
	switch (t) {
	case 0xc4: case 0xd9: k.head = 1; break;                 /* bin8, str8 */
	case 0xc5: case 0xda: k.head = 2; break;                 /* bin16, str16 */
	case 0xc6: case 0xdb: k.head = 4; break;                 /* bin32, str32 */
	case 0xc7: k.head = 1; k.fixed = 1; break;               /* ext8 */
	case 0xc8: k.head = 2; k.fixed = 1; break;               /* ext16 */
	case 0xc9: k.head = 4; k.fixed = 1; break;               /* ext32 */
	case 0xca: k.fixed = 4; break;                           /* float32 */
	case 0xcb: k.fixed = 8; break;                           /* float64 */
	case 0xcc: case 0xd0: k.fixed = 1; break;
	case 0xcd: case 0xd1: k.fixed = 2; break;
	case 0xce: case 0xd2: k.fixed = 4; break;
	case 0xcf: case 0xd3: k.fixed = 8; break;
	case 0xd4: k.fixed = 2; break;                           /* fixext1..16: type + data */
	case 0xd5: k.fixed = 3; break;
	case 0xd6: k.fixed = 5; break;
	case 0xd7: k.fixed = 9; break;
	case 0xd8: k.fixed = 17; break;
	case 0xdc: k.head = 2; k.container = 1; break;
	case 0xdd: k.head = 4; k.container = 1; break;
	case 0xde: k.head = 2; k.container = 2; break;
	case 0xdf: k.head = 4; k.container = 2; break;
	default: k.bad = 1; break;                               /* 0xc1 */
	}
	return k;
}

/* Why a message is refused: it is over the limit as a whole (what it
 * declares no longer fits after what came before), or one value alone
 * declares more than the limit. */
#define WHOLE "the message is larger than the request size limit"
#define DECLARED(what) "a declared " what " length is larger than the request size limit on its own"

proto_guard_rc proto_guard_feed(proto_guard *g, const uint8_t *msg, size_t avail, size_t *len)
{
	while (g->pos < avail) {
		if (g->pos >= g->max) return fail(g, PROTO_GUARD_LIMIT, WHOLE);
		uint8_t t = msg[g->pos];
		token k = classify(t);
		if (k.bad) return fail(g, PROTO_GUARD_BAD, "byte 0xc1 is not MessagePack");
		size_t head = 1 + (size_t)k.head;
		if (g->max - g->pos < head) return fail(g, PROTO_GUARD_LIMIT, WHOLE);
		if (avail - g->pos < head) return PROTO_GUARD_MORE;
		uint64_t declared = k.head ? be(msg + g->pos + 1, k.head) : 0;
		if (!k.head && !k.container && t >= 0xa0 && t <= 0xbf) declared = t & 0x1f;
		if (!k.head && k.container) declared = t & 0x0f;
		/* what may still follow within the limit */
		uint64_t room = g->max - g->pos - head;
		if (k.container) {
			uint64_t members = declared * (uint64_t)k.container;
			/* each member takes at least one byte */
			if (members > room)
				return fail(g, PROTO_GUARD_LIMIT, members + head > g->max ? DECLARED("array or map") : WHOLE);
			if (g->depth + 1 > PROTO_MAX_DEPTH) return fail(g, PROTO_GUARD_LIMIT, "arrays and maps nest deeper than 16");
			g->pos += head;
			if (members) {
				g->left[++g->depth] = members;
				continue;
			}
		} else {
			uint64_t payload = declared + (uint64_t)k.fixed;
			if (payload > room)
				return fail(g, PROTO_GUARD_LIMIT, payload + head > g->max ? DECLARED("string, binary or extension") : WHOLE);
			if (avail - g->pos - head < payload) return PROTO_GUARD_MORE;
			g->pos += head + payload;
		}
		/* an element is complete: close every container it completes */
		for (;;) {
			if (g->depth == 0) {
				*len = g->pos;
				return PROTO_GUARD_DONE;
			}
			if (--g->left[g->depth]) break;
			g->depth--;
		}
	}
	if (g->pos >= g->max) return fail(g, PROTO_GUARD_LIMIT, WHOLE);
	return PROTO_GUARD_MORE;
}

proto_guard_rc proto_guard_check(const uint8_t *msg, size_t avail, size_t max, size_t *len)
{
	proto_guard g;
	proto_guard_init(&g, max);
	return proto_guard_feed(&g, msg, avail, len);
}


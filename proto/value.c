/*
 * value.c - the value tree: every message is built once as proto_vals and
 * then written as MessagePack or JSON, so a result is never written twice.
 */
#include <string.h>

#include "proto.h"

static proto_val *make(proto_arena *a, pv_type t)
{
	proto_val *v = proto_arena_alloc(a, sizeof *v);
	memset(v, 0, sizeof *v);
	v->type = t;
	return v;
}

proto_val *pv_nil(proto_arena *a) { return make(a, PV_NIL); }

proto_val *pv_bool(proto_arena *a, int b)
{
	proto_val *v = make(a, PV_BOOL);
	v->u.b = !!b;
	return v;
}

proto_val *pv_int(proto_arena *a, int64_t i)
{
	proto_val *v = make(a, PV_INT);
	v->u.i = i;
	return v;
}

proto_val *pv_float(proto_arena *a, double f)
{
	proto_val *v = make(a, PV_FLOAT);
	v->u.f = f;
	return v;
}

proto_val *pv_str(proto_arena *a, const char *s)
{
	proto_val *v = make(a, PV_STR);
	v->u.s = s;
	v->n = (uint32_t)strlen(s);
	return v;
}

proto_val *pv_strn(proto_arena *a, const char *s, size_t n)
{
	proto_val *v = make(a, PV_STR);
	v->u.s = proto_arena_strndup(a, s, n);
	v->n = (uint32_t)n;
	return v;
}

/* Strings read off the wire may hold 0 bytes, but the server reads names,
 * ids and tokens as C strings, where "base\0junk" would pass for "base".
 * Each 0 byte becomes 0xff (never valid UTF-8), so the string matches
 * nothing the protocol names and gets the answer any unknown string gets. */
static char *unzero(char *c, size_t n)
{
	for (char *z = memchr(c, 0, n); z; z = memchr(z, 0, n - (size_t)(z - c))) *z = (char)0xff;
	return c;
}

char *proto_wire_strndup(proto_arena *a, const char *s, size_t n) { return unzero(proto_arena_strndup(a, s, n), n); }

proto_val *pv_wire_str(proto_arena *a, const char *s, size_t n)
{
	proto_val *v = pv_strn(a, s, n);
	v->u.s = unzero((char *)v->u.s, n); /* pv_strn's own copy */
	return v;
}

proto_val *pv_array(proto_arena *a) { return make(a, PV_ARRAY); }
proto_val *pv_map(proto_arena *a) { return make(a, PV_MAP); }

proto_val *pv_push(proto_val *c, proto_val *v)
{
	v->next = NULL;
	if (c->u.c.last) c->u.c.last->next = v;
	else c->u.c.first = v;
	c->u.c.last = v;
	c->n++;
	return v;
}

proto_val *pv_setn(proto_val *map, const char *key, size_t klen, proto_val *v)
{
	v->key = key;
	v->klen = (uint32_t)klen;
	return pv_push(map, v);
}


const proto_val *pv_get(const proto_val *map, const char *key)
{
	if (!map || map->type != PV_MAP) return NULL;
	/* a key given twice: the last counts, in both encodings (the JSON
	 * reader keeps only the last; so do most) */
	size_t n = strlen(key);
	const proto_val *last = NULL;
	for (const proto_val *v = map->u.c.first; v; v = v->next)
		if (v->klen == n && !memcmp(v->key, key, n)) last = v;
	return last;
}

const proto_val *pv_opt(const proto_val *map, const char *key)
{
	const proto_val *v = pv_get(map, key);
	return v && v->type != PV_NIL ? v : NULL;
}

int pv_is_str(const proto_val *v, const char *s)
{
	return v && v->type == PV_STR && v->n == strlen(s) && !memcmp(v->u.s, s, v->n);
}

int pv_to_int(const proto_val *v, int64_t *out)
{
	if (!v) return 0;
	if (v->type == PV_INT) {
		*out = v->u.i;
		return 1;
	}
	/* 2^63 is exact as a double; anything from it up does not fit (and
	 * NaN fails both compares) */
	if (v->type == PV_FLOAT && v->u.f > -9223372036854775808.0 && v->u.f < 9223372036854775808.0 &&
	    (double)(int64_t)v->u.f == v->u.f) {
		*out = (int64_t)v->u.f;
		return 1;
	}
	return 0;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0. */
int proto_utf8_len(const uint8_t *p, size_t n)
{
	uint8_t c = p[0];
	int len;
	uint32_t cp;
	if (c < 0x80) return 1;
	if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
	else return 0;
	if (n < (size_t)len) return 0;
	for (int i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80) return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

int proto_utf8_ok(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		int len = proto_utf8_len(p + i, n - i);
		if (!len) return 0;
		i += (size_t)len;
	}
	return 1;
}

/*
 * mpack.c - MessagePack-RPC: a guarded message to a request through
 * msgpack-c, and a value tree to MessagePack bytes.
 */
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* msgpack-c objects to values.  The guard has bounded the depth, so the
 * recursion is bounded too.  Returns NULL for what the protocol never
 * uses (extension types) or cannot address (non-string map keys). */
static proto_val *from_object(proto_arena *a, const msgpack_object *o, const char **why)
{
	switch (o->type) {
	case MSGPACK_OBJECT_NIL: return pv_nil(a);
	case MSGPACK_OBJECT_BOOLEAN: return pv_bool(a, o->via.boolean);
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		/* past int64 no parameter can be in range; keep it as a number */
		if (o->via.u64 > INT64_MAX) return pv_float(a, (double)o->via.u64);
		return pv_int(a, (int64_t)o->via.u64);
	case MSGPACK_OBJECT_NEGATIVE_INTEGER: return pv_int(a, o->via.i64);
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64: return pv_float(a, o->via.f64);
	case MSGPACK_OBJECT_STR: return pv_wire_str(a, o->via.str.ptr, o->via.str.size);
	/* old clients send strings as binary */
	case MSGPACK_OBJECT_BIN: return pv_wire_str(a, o->via.bin.ptr, o->via.bin.size);
	case MSGPACK_OBJECT_ARRAY: {
		proto_val *v = pv_array(a);
		for (uint32_t i = 0; i < o->via.array.size; i++) {
			proto_val *m = from_object(a, &o->via.array.ptr[i], why);
			if (!m) return NULL;
			pv_push(v, m);
		}
		return v;
	}
	case MSGPACK_OBJECT_MAP: {
		proto_val *v = pv_map(a);
		for (uint32_t i = 0; i < o->via.map.size; i++) {
			const msgpack_object_kv *kv = &o->via.map.ptr[i];
			const char *k;
			uint32_t kn;
			if (kv->key.type == MSGPACK_OBJECT_STR) {
				k = kv->key.via.str.ptr;
				kn = kv->key.via.str.size;
			} else if (kv->key.type == MSGPACK_OBJECT_BIN) {
				k = kv->key.via.bin.ptr;
				kn = kv->key.via.bin.size;
			} else {
				*why = "map keys must be strings";
				return NULL;
			}
			proto_val *m = from_object(a, &kv->val, why);
			if (!m) return NULL;
			pv_setn(v, proto_wire_strndup(a, k, kn), kn, m);
		}
		return v;
	}
	default:
		*why = "MessagePack extension types are not part of this protocol";
		return NULL;
	}
}

/* msgpack-c's reading of a guarded message into *obj, in *zone (which
 * the caller destroys). */
static msgpack_unpack_return unpack(msgpack_zone *zone, const uint8_t *p, size_t n, msgpack_object *obj)
{
	size_t off = 0;
	if (!msgpack_zone_init(zone, 2048)) {
		fprintf(stderr, "carcd: out of memory (msgpack zone)\n");
		abort();
	}
	return msgpack_unpack((const char *)p, n, &off, zone, obj);
}

proto_decoded proto_mp_decode(proto_arena *a, const uint8_t *p, size_t n, proto_request *rq)
{
	proto_decoded d = { PROTO_OK, NULL, 0, 0 };
	memset(rq, 0, sizeof *rq);
	msgpack_zone zone;
	msgpack_object obj;
	msgpack_unpack_return r = unpack(&zone, p, n, &obj);
	if (r != MSGPACK_UNPACK_SUCCESS && r != MSGPACK_UNPACK_EXTRA_BYTES) {
		/* the guard passed it, so this is msgpack-c seeing something it
		 * will not decode; the stream is lost */
		d.code = PROTO_E_BAD_REQUEST;
		d.why = "the MessagePack message cannot be decoded";
		d.close = 1;
	} else {
		const char *why = "not a request";
		proto_val *env = from_object(a, &obj, &why);
		if (!env) {
			d.code = PROTO_E_BAD_REQUEST;
			d.why = why;
			/* an envelope with something unreadable inside: its msgid,
			 * when that is readable, is answered */
			const msgpack_object *id = obj.type == MSGPACK_OBJECT_ARRAY && obj.via.array.size >= 2
			                               ? &obj.via.array.ptr[1]
			                               : NULL;
			const char *ignored;
			const proto_val *idv = id ? from_object(a, id, &ignored) : NULL;
			rq->has_id = idv && proto_msgid_of(idv, &rq->msgid); /* as proto_envelope reads it */
		} else {
			d = proto_envelope(a, env, rq);
		}
	}
	msgpack_zone_destroy(&zone);
	return d;
}

proto_val *proto_mp_value(proto_arena *a, const uint8_t *p, size_t n, const char **why)
{
	size_t len;
	if (proto_guard_check(p, n, n, &len) != PROTO_GUARD_DONE || len != n) {
		*why = "not one whole MessagePack message within the limits";
		return NULL;
	}
	msgpack_zone zone;
	msgpack_object obj;
	proto_val *v = NULL;
	if (unpack(&zone, p, n, &obj) == MSGPACK_UNPACK_SUCCESS) v = from_object(a, &obj, why);
	else *why = "the MessagePack message cannot be decoded";
	msgpack_zone_destroy(&zone);
	return v;
}

/* ---- writing -------------------------------------------------------------- */

/* Our own writer rather than msgpack_packer: the packer's write callback
 * per token cost a third of the daemon's time under load.  Each token
 * reserves its bytes once; integers take their shortest form. */

static uint8_t *room(proto_buf *b, size_t n)
{
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap - b->len < n) cap *= 2;
		b->p = proto_xrealloc(b->p, cap);
		b->cap = cap;
	}
	return b->p + b->len;
}

static size_t put_be(uint8_t *p, uint8_t tag, uint64_t v, int bytes)
{
	p[0] = tag;
	for (int i = 0; i < bytes; i++) p[1 + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	return 1 + (size_t)bytes;
}

static void put_int(proto_buf *b, int64_t i)
{
	uint8_t *p = room(b, 9);
	size_t n;
	if (i >= 0) {
		uint64_t u = (uint64_t)i;
		if (u < 128) p[0] = (uint8_t)u, n = 1;
		else if (u <= UINT8_MAX) n = put_be(p, 0xcc, u, 1);
		else if (u <= UINT16_MAX) n = put_be(p, 0xcd, u, 2);
		else if (u <= UINT32_MAX) n = put_be(p, 0xce, u, 4);
		else n = put_be(p, 0xcf, u, 8);
	} else {
		if (i >= -32) p[0] = (uint8_t)(int8_t)i, n = 1;
		else if (i >= INT8_MIN) n = put_be(p, 0xd0, (uint64_t)i, 1);
		else if (i >= INT16_MIN) n = put_be(p, 0xd1, (uint64_t)i, 2);
		else if (i >= INT32_MIN) n = put_be(p, 0xd2, (uint64_t)i, 4);
		else n = put_be(p, 0xd3, (uint64_t)i, 8);
	}
	b->len += n;
}

static void put_raw_str(proto_buf *b, const char *s, uint32_t n)
{
	uint8_t *p = room(b, 5 + (size_t)n);
	size_t h;
	if (n < 32) p[0] = (uint8_t)(0xa0 | n), h = 1;
	else if (n <= UINT8_MAX) h = put_be(p, 0xd9, n, 1);
	else if (n <= UINT16_MAX) h = put_be(p, 0xda, n, 2);
	else h = put_be(p, 0xdb, n, 4);
	if (n) memcpy(p + h, s, n);
	b->len += h + n;
}

/* Any byte of p[0..n) past ASCII?  Read eight bytes a load (the last
 * load overlapping the one before), or two overlapping four-byte loads
 * under eight, not byte by byte: nearly every string a reply holds is a
 * short key or name of the protocol. */
static inline int beyond_ascii(const uint8_t *p, uint32_t n)
{
	uint64_t any = 0, w;
	uint32_t a, b;
	if (n >= 8) {
		for (uint32_t i = 0; i + 8 <= n; i += 8) {
			memcpy(&w, p + i, 8);
			any |= w;
		}
		memcpy(&w, p + n - 8, 8);
		any |= w;
	} else if (n >= 4) {
		memcpy(&a, p, 4);
		memcpy(&b, p + n - 4, 4);
		any = a | b;
	} else if (n) {
		any = p[0] | p[n / 2] | p[n - 1];
	}
	return (any & 0x8080808080808080ull) != 0;
}

/* The rare string with bytes past ASCII: each that is no part of valid
 * UTF-8 becomes U+FFFD. */
static __attribute__((noinline)) void put_fixed_str(proto_buf *b, const uint8_t *p, uint32_t n)
{
	proto_buf fixed = { 0 };
	for (uint32_t i = 0; i < n;) {
		int len = proto_utf8_len(p + i, n - i);
		if (len) proto_buf_add(&fixed, p + i, (size_t)len);
		else proto_buf_add(&fixed, "\xef\xbf\xbd", 3);
		i += len ? (uint32_t)len : 1;
	}
	put_raw_str(b, (const char *)fixed.p, (uint32_t)fixed.len);
	proto_buf_free(&fixed);
}

/* A MessagePack str holds UTF-8: bytes that are not (a client may send
 * any, and error messages quote what it sent) become U+FFFD. */
static inline void put_str(proto_buf *b, const char *s, uint32_t n)
{
	if (beyond_ascii((const uint8_t *)s, n)) put_fixed_str(b, (const uint8_t *)s, n);
	else put_raw_str(b, s, n);
}

static void put_container(proto_buf *b, uint32_t n, int map)
{
	uint8_t *p = room(b, 5);
	if (n < 16) p[0] = (uint8_t)((map ? 0x80 : 0x90) | n), b->len += 1;
	else if (n <= UINT16_MAX) b->len += put_be(p, map ? 0xde : 0xdc, n, 2);
	else b->len += put_be(p, map ? 0xdf : 0xdd, n, 4);
}

static void pack(proto_buf *b, const proto_val *v)
{
	switch (v->type) {
	case PV_NIL: *room(b, 1) = 0xc0, b->len++; break;
	case PV_BOOL: *room(b, 1) = v->u.b ? 0xc3 : 0xc2, b->len++; break;
	case PV_INT: put_int(b, v->u.i); break;
	case PV_FLOAT: {
		uint64_t bits;
		memcpy(&bits, &v->u.f, sizeof bits);
		b->len += put_be(room(b, 9), 0xcb, bits, 8);
		break;
	}
	case PV_STR: put_str(b, v->u.s, v->n); break;
	case PV_ARRAY:
		put_container(b, v->n, 0);
		for (const proto_val *m = v->u.c.first; m; m = m->next) pack(b, m);
		break;
	case PV_MAP:
		put_container(b, v->n, 1);
		for (const proto_val *m = v->u.c.first; m; m = m->next) {
			put_str(b, m->key, m->klen);
			pack(b, m);
		}
		break;
	}
}

void proto_mp_encode(const proto_val *v, proto_buf *out) { pack(out, v); }

/*
 * check_proto.c - unit tests of the wire layer: the frame guard against
 * hostile MessagePack, both decoders, the writers, SHA-256 against the
 * FIPS 180-4 vectors, and WebSocket's handshake and frames (SHA-1 and
 * base64 included).  No sockets: proto/ is bytes in, bytes out.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define MAX (1u << 20)

static proto_guard_rc guard(const void *p, size_t n, size_t *len)
{
	*len = 0;
	return proto_guard_check(p, n, MAX, len);
}

/* ---- frame guard ---------------------------------------------------------------- */

START_TEST(guard_complete)
{
	/* [0, 1, "ping", {}] */
	static const uint8_t m[] = { 0x94, 0x00, 0x01, 0xa4, 'p', 'i', 'n', 'g', 0x80 };
	size_t len;
	ck_assert_int_eq(guard(m, sizeof m, &len), PROTO_GUARD_DONE);
	ck_assert_uint_eq(len, sizeof m);
	/* a second message behind it is not part of this one */
	uint8_t two[2 * sizeof m];
	memcpy(two, m, sizeof m);
	memcpy(two + sizeof m, m, sizeof m);
	ck_assert_int_eq(guard(two, sizeof two, &len), PROTO_GUARD_DONE);
	ck_assert_uint_eq(len, sizeof m);
}
END_TEST

START_TEST(guard_truncated)
{
	static const uint8_t m[] = { 0x94, 0x00, 0x01, 0xa4, 'p', 'i', 'n', 'g', 0x80 };
	size_t len;
	for (size_t n = 0; n < sizeof m; n++) ck_assert_int_eq(guard(m, n, &len), PROTO_GUARD_MORE);
	/* a str32 header cut in the middle */
	static const uint8_t s[] = { 0x91, 0xdb, 0x00, 0x00 };
	ck_assert_int_eq(guard(s, sizeof s, &len), PROTO_GUARD_MORE);
}
END_TEST

START_TEST(guard_resumes)
{
	static const uint8_t m[] = { 0x94, 0x00, 0x01, 0xa4, 'p', 'i', 'n', 'g', 0x81, 0xa1, 'a', 0xcd, 0x01, 0x02 };
	proto_guard g;
	proto_guard_init(&g, MAX);
	size_t len = 0;
	for (size_t n = 1; n < sizeof m; n++) ck_assert_int_eq(proto_guard_feed(&g, m, n, &len), PROTO_GUARD_MORE);
	ck_assert_int_eq(proto_guard_feed(&g, m, sizeof m, &len), PROTO_GUARD_DONE);
	ck_assert_uint_eq(len, sizeof m);
}
END_TEST

START_TEST(guard_four_billion)
{
	/* 5 bytes declaring 4 billion members: refused before any arrives */
	static const uint8_t a[] = { 0xdd, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t m[] = { 0xdf, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t s[] = { 0x91, 0xdb, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t b[] = { 0x91, 0xc6, 0x7f, 0xff, 0xff, 0xff };
	static const uint8_t e[] = { 0x91, 0xc9, 0x00, 0x10, 0x00, 0x00 };
	size_t len;
	ck_assert_int_eq(guard(a, sizeof a, &len), PROTO_GUARD_LIMIT);
	ck_assert_int_eq(guard(m, sizeof m, &len), PROTO_GUARD_LIMIT);
	ck_assert_int_eq(guard(s, sizeof s, &len), PROTO_GUARD_LIMIT);
	ck_assert_int_eq(guard(b, sizeof b, &len), PROTO_GUARD_LIMIT);
	ck_assert_int_eq(guard(e, sizeof e, &len), PROTO_GUARD_LIMIT);
	/* just under the limit is only waiting */
	uint8_t ok[] = { 0xdc, 0x00, 0x10 };
	ck_assert_int_eq(guard(ok, sizeof ok, &len), PROTO_GUARD_MORE);
}
END_TEST

START_TEST(guard_depth)
{
	uint8_t deep[1000];
	memset(deep, 0x91, sizeof deep);
	size_t len;
	ck_assert_int_eq(guard(deep, sizeof deep, &len), PROTO_GUARD_LIMIT);
	/* 16 levels are allowed, 17 are not */
	uint8_t d16[17], d17[18];
	memset(d16, 0x91, 16);
	d16[16] = 0xc0;
	memset(d17, 0x91, 17);
	d17[17] = 0xc0;
	ck_assert_int_eq(guard(d16, sizeof d16, &len), PROTO_GUARD_DONE);
	ck_assert_int_eq(guard(d17, sizeof d17, &len), PROTO_GUARD_LIMIT);
	/* maps count too */
	uint8_t m17[40];
	size_t n = 0;
	for (int i = 0; i < 17; i++) {
		m17[n++] = 0x81;
		m17[n++] = 0xa0;
	}
	m17[n++] = 0xc0;
	ck_assert_int_eq(guard(m17, n, &len), PROTO_GUARD_LIMIT);
}
END_TEST

START_TEST(guard_c1)
{
	static const uint8_t a[] = { 0xc1 };
	static const uint8_t b[] = { 0x94, 0x00, 0xc1 };
	size_t len;
	ck_assert_int_eq(guard(a, sizeof a, &len), PROTO_GUARD_BAD);
	ck_assert_int_eq(guard(b, sizeof b, &len), PROTO_GUARD_BAD);
}
END_TEST

START_TEST(guard_oversize)
{
	/* a string over the limit, declared honestly, and bytes beyond it */
	size_t n = MAX + 16, len;
	uint8_t *m = calloc(1, n);
	m[0] = 0x91;
	m[1] = 0xdb;
	m[2] = 0x00, m[3] = 0x10, m[4] = 0x00, m[5] = 0x00; /* exactly 1 MiB of string */
	ck_assert_int_eq(guard(m, n, &len), PROTO_GUARD_LIMIT);
	/* many small members past the limit */
	m[0] = 0xdd;
	m[1] = 0x00, m[2] = 0x0f, m[3] = 0xff, m[4] = 0xf0; /* ~1M nils fit ... */
	memset(m + 5, 0xc0, n - 5);
	ck_assert_int_eq(guard(m, n, &len), PROTO_GUARD_DONE);
	m[1] = 0x00, m[2] = 0x10, m[3] = 0x00, m[4] = 0x00; /* ... 2^20 nils and the header do not */
	ck_assert_int_eq(guard(m, n, &len), PROTO_GUARD_LIMIT);
	free(m);
	/* a small limit */
	static const uint8_t s[] = { 0x94, 0x00, 0x01, 0xa4, 'p', 'i', 'n', 'g', 0x80 };
	ck_assert_int_eq(proto_guard_check(s, sizeof s, 8, &len), PROTO_GUARD_LIMIT);
	ck_assert_int_eq(proto_guard_check(s, sizeof s, 9, &len), PROTO_GUARD_DONE);
}
END_TEST

START_TEST(guard_every_type)
{
	/* one member of each type inside an array */
	static const uint8_t m[] = {
		0xdc, 0x00, 0x14,
		0x05, 0xe0, 0xc0, 0xc2, 0xc3,
		0xcc, 1, 0xcd, 1, 2, 0xce, 1, 2, 3, 4, 0xcf, 1, 2, 3, 4, 5, 6, 7, 8,
		0xd0, 1, 0xd1, 1, 2, 0xd2, 1, 2, 3, 4, 0xd3, 1, 2, 3, 4, 5, 6, 7, 8,
		0xca, 0, 0, 0, 0, 0xcb, 0, 0, 0, 0, 0, 0, 0, 0,
		0xc4, 1, 'x', 0xd9, 1, 'y', 0xd4, 1, 2, 0xc7, 1, 5, 'z', 0xde, 0x00, 0x00,
	};
	size_t len;
	ck_assert_int_eq(guard(m, sizeof m, &len), PROTO_GUARD_DONE);
	ck_assert_uint_eq(len, sizeof m);
}
END_TEST

/* Extension types are refused later, as not part of the protocol, but the
 * guard must frame them exactly, so that the connection goes on with the
 * next message. */
START_TEST(guard_extension_sizes)
{
	static const uint8_t exts[][24] = {
		{ 3, 0xd4, 1, 0 },
		{ 4, 0xd5, 1, 0, 0 },
		{ 6, 0xd6, 1, 0, 0, 0, 0 },
		{ 10, 0xd7, 1, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 18, 0xd8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 5, 0xc7, 2, 1, 0, 0 },
		{ 6, 0xc8, 0, 2, 1, 0, 0 },
		{ 8, 0xc9, 0, 0, 0, 2, 1, 0, 0 },
	};
	for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		/* [ext, nil] followed by a byte of the next message */
		uint8_t m[32];
		size_t n = exts[i][0], len;
		m[0] = 0x92;
		memcpy(m + 1, exts[i] + 1, n);
		m[1 + n] = 0xc0;
		m[2 + n] = 0x94;
		ck_assert_int_eq(guard(m, n + 3, &len), PROTO_GUARD_DONE);
		ck_assert_uint_eq(len, n + 2);
		/* one byte short is only waiting */
		ck_assert_int_eq(guard(m, n + 1, &len), PROTO_GUARD_MORE);
	}
}
END_TEST

/* Declared lengths are judged against the room left under the limit, at
 * the exact boundary: what could still fit waits, what cannot is refused
 * before its bytes arrive. */
START_TEST(guard_declared_at_the_limit)
{
	size_t len;
	/* array32 header (5 bytes) under a limit of 64: 59 members may fit */
	static const uint8_t a59[] = { 0xdd, 0, 0, 0, 59 }, a60[] = { 0xdd, 0, 0, 0, 60 };
	ck_assert_int_eq(proto_guard_check(a59, sizeof a59, 64, &len), PROTO_GUARD_MORE);
	ck_assert_int_eq(proto_guard_check(a60, sizeof a60, 64, &len), PROTO_GUARD_LIMIT);
	/* a map's members are its keys and values: 29 pairs fit in 59, 30 do not */
	static const uint8_t m29[] = { 0xdf, 0, 0, 0, 29 }, m30[] = { 0xdf, 0, 0, 0, 30 };
	ck_assert_int_eq(proto_guard_check(m29, sizeof m29, 64, &len), PROTO_GUARD_MORE);
	ck_assert_int_eq(proto_guard_check(m30, sizeof m30, 64, &len), PROTO_GUARD_LIMIT);
	/* array16 inside an array: room counts from where it stands */
	static const uint8_t in59[] = { 0x92, 0xc0, 0xdc, 0, 59 }, in60[] = { 0x92, 0xc0, 0xdc, 0, 60 };
	ck_assert_int_eq(proto_guard_check(in59, sizeof in59, 64, &len), PROTO_GUARD_MORE);
	ck_assert_int_eq(proto_guard_check(in60, sizeof in60, 64, &len), PROTO_GUARD_LIMIT);
	/* 59 nils in the array: exactly the limit, and complete */
	uint8_t full[64];
	memcpy(full, a59, sizeof a59);
	memset(full + 5, 0xc0, 59);
	ck_assert_int_eq(proto_guard_check(full, sizeof full, 64, &len), PROTO_GUARD_DONE);
	ck_assert_uint_eq(len, 64);
}
END_TEST

/* The reason names what is too large: one value declaring more than the
 * whole limit, or small values that no longer fit after what came before. */
START_TEST(guard_says_what_is_too_large)
{
	size_t len;
	proto_guard g;
	/* an array16 of 40 str8 of 1 byte: 3 bytes each, past the limit of 64 */
	uint8_t msg[3 + 40 * 3];
	msg[0] = 0xdc, msg[1] = 0, msg[2] = 40;
	for (int i = 0; i < 40; i++) msg[3 + 3 * i] = 0xd9, msg[4 + 3 * i] = 1, msg[5 + 3 * i] = 'x';
	proto_guard_init(&g, 64);
	ck_assert_int_eq(proto_guard_feed(&g, msg, sizeof msg, &len), PROTO_GUARD_LIMIT);
	ck_assert_str_eq(g.why, "the message is larger than the request size limit");
	/* one str32 declaring 100 bytes, or an array32 of 100 members, alone */
	static const uint8_t s100[] = { 0xdb, 0, 0, 0, 100 }, a100[] = { 0xdd, 0, 0, 0, 100 };
	proto_guard_init(&g, 64);
	ck_assert_int_eq(proto_guard_feed(&g, s100, sizeof s100, &len), PROTO_GUARD_LIMIT);
	ck_assert_str_eq(g.why, "a declared string, binary or extension length is larger than the request size limit on its own");
	proto_guard_init(&g, 64);
	ck_assert_int_eq(proto_guard_feed(&g, a100, sizeof a100, &len), PROTO_GUARD_LIMIT);
	ck_assert_str_eq(g.why, "a declared array or map length is larger than the request size limit on its own");
	/* a str8 of 63: with its 2-byte header, more than 64 on its own */
	static const uint8_t s63[] = { 0xd9, 63 };
	proto_guard_init(&g, 64);
	ck_assert_int_eq(proto_guard_feed(&g, s63, sizeof s63, &len), PROTO_GUARD_LIMIT);
	ck_assert_str_eq(g.why, "a declared string, binary or extension length is larger than the request size limit on its own");
	/* a str8 of 50 after 21 bytes: fits the limit alone, not where it stands */
	uint8_t late[23];
	late[0] = 0x92, late[1] = 0xc4, late[2] = 18; /* bin8 of 18 bytes: 21 bytes with the array's */
	memset(late + 3, 'y', 18);
	late[21] = 0xd9, late[22] = 50;
	proto_guard_init(&g, 64);
	ck_assert_int_eq(proto_guard_feed(&g, late, 23, &len), PROTO_GUARD_LIMIT);
	ck_assert_str_eq(g.why, "the message is larger than the request size limit");
}
END_TEST

/* A message that has used up the limit and is still not complete cannot
 * become a request: refused at once, not after one more byte. */
START_TEST(guard_full_but_unfinished)
{
	uint8_t m[64];
	size_t len;
	m[0] = 0x92; /* two members; the first a str8 of 61 bytes fills the limit */
	m[1] = 0xd9;
	m[2] = 61;
	memset(m + 3, 'x', 61);
	ck_assert_int_eq(proto_guard_check(m, sizeof m, 64, &len), PROTO_GUARD_LIMIT);
	ck_assert_int_eq(proto_guard_check(m, sizeof m - 1, 64, &len), PROTO_GUARD_MORE);
	/* resumed: the same answer when the last byte comes on its own */
	proto_guard g;
	proto_guard_init(&g, 64);
	ck_assert_int_eq(proto_guard_feed(&g, m, sizeof m - 1, &len), PROTO_GUARD_MORE);
	ck_assert_int_eq(proto_guard_feed(&g, m, sizeof m, &len), PROTO_GUARD_LIMIT);
}
END_TEST

/* ---- decoding ------------------------------------------------------------------- */

START_TEST(mp_request)
{
	proto_arena a;
	proto_arena_init(&a);
	proto_request rq;
	/* [0, 7, "state", [{"game": 3}]]: params as stock RPC clients send them */
	static const uint8_t m[] = { 0x94, 0x00, 0x07, 0xa5, 's', 't', 'a', 't', 'e', 0x91, 0x81, 0xa4, 'g', 'a', 'm', 'e', 0x03 };
	proto_decoded d = proto_mp_decode(&a, m, sizeof m, &rq);
	ck_assert_int_eq(d.code, PROTO_OK);
	ck_assert(rq.has_id);
	ck_assert_uint_eq(rq.msgid, 7);
	ck_assert_str_eq(rq.method, "state");
	int64_t g;
	ck_assert(pv_to_int(pv_get(rq.params, "game"), &g));
	ck_assert_int_eq(g, 3);
	/* a map, not an envelope: bad_request, but the stream goes on */
	static const uint8_t notenv[] = { 0x81, 0xa1, 'a', 0x01 };
	d = proto_mp_decode(&a, notenv, sizeof notenv, &rq);
	ck_assert_int_eq(d.code, PROTO_E_BAD_REQUEST);
	ck_assert(!d.close);
	/* params neither a map nor an array holding one: no valid envelope
	 * (shared PROTOCOL.md 2), bad_request with the msgid */
	static const uint8_t badp[] = { 0x94, 0x00, 0x09, 0xa4, 'p', 'i', 'n', 'g', 0x05 };
	d = proto_mp_decode(&a, badp, sizeof badp, &rq);
	ck_assert_int_eq(d.code, PROTO_E_BAD_REQUEST);
	ck_assert(rq.has_id);
	ck_assert_uint_eq(rq.msgid, 9);
	/* a response sent to the server */
	static const uint8_t resp[] = { 0x94, 0x01, 0x09, 0xc0, 0xc0 };
	d = proto_mp_decode(&a, resp, sizeof resp, &rq);
	ck_assert_int_eq(d.code, PROTO_E_BAD_REQUEST);
	/* integer map keys */
	static const uint8_t ikey[] = { 0x94, 0x00, 0x01, 0xa4, 'p', 'i', 'n', 'g', 0x81, 0x01, 0x02 };
	d = proto_mp_decode(&a, ikey, sizeof ikey, &rq);
	ck_assert_int_eq(d.code, PROTO_E_BAD_REQUEST);
	proto_arena_free(&a);
}
END_TEST

static proto_decoded json(proto_arena *a, const char *line, proto_request *rq)
{
	return proto_json_decode(a, line, strlen(line), rq);
}

START_TEST(json_forms)
{
	proto_arena a;
	proto_arena_init(&a);
	proto_request rq;
	proto_decoded d = json(&a, "ping", &rq);
	ck_assert_int_eq(d.code, PROTO_OK);
	ck_assert_str_eq(rq.method, "ping");
	ck_assert(!rq.has_id);
	ck_assert_int_eq(rq.params->type, PV_MAP);
	d = json(&a, "  state {\"game\": 12}\r", &rq);
	ck_assert_int_eq(d.code, PROTO_OK);
	ck_assert_str_eq(rq.method, "state");
	int64_t g;
	ck_assert(pv_to_int(pv_get(rq.params, "game"), &g) && g == 12);
	d = json(&a, "[0, 42, \"legal_moves\", {\"game\": 1, \"seat\": 0}]", &rq);
	ck_assert_int_eq(d.code, PROTO_OK);
	ck_assert(rq.has_id && rq.msgid == 42);
	ck_assert_str_eq(rq.method, "legal_moves");
	d = json(&a, "[0, 43, \"ping\", [{}]]", &rq);
	ck_assert_int_eq(d.code, PROTO_OK);
	d = json(&a, "score [{\"game\": 2}]", &rq);
	ck_assert_int_eq(d.code, PROTO_OK);
	d = json(&a, "", &rq);
	ck_assert(d.skip);
	d = json(&a, "   \r", &rq);
	ck_assert(d.skip);
	proto_arena_free(&a);
}
END_TEST

START_TEST(json_bad)
{
	proto_arena a;
	proto_arena_init(&a);
	proto_request rq;
	ck_assert_int_eq(json(&a, "state {\"game\": }", &rq).code, PROTO_E_BAD_REQUEST);
	ck_assert_int_eq(json(&a, "{\"method\": \"ping\"}", &rq).code, PROTO_E_BAD_REQUEST);
	ck_assert_int_eq(json(&a, "[0, 1, \"ping\"", &rq).code, PROTO_E_BAD_REQUEST);
	ck_assert_int_eq(json(&a, "[0, -1, \"ping\", {}]", &rq).code, PROTO_E_BAD_REQUEST);
	ck_assert_int_eq(json(&a, "[0, 1, 5, {}]", &rq).code, PROTO_E_BAD_REQUEST);
	ck_assert_int_eq(json(&a, "state 5", &rq).code, PROTO_E_BAD_REQUEST);
	ck_assert_int_eq(json(&a, "sta-te {}", &rq).code, PROTO_E_BAD_REQUEST);
	/* the msgid survives a bad method */
	proto_decoded d = json(&a, "[0, 77, null, {}]", &rq);
	ck_assert_int_eq(d.code, PROTO_E_BAD_REQUEST);
	ck_assert(rq.has_id && rq.msgid == 77);
	/* 17 levels of nesting */
	ck_assert_int_eq(json(&a, "x [[1]]", &rq).code, PROTO_E_BAD_REQUEST);
	ck_assert_int_eq(json(&a, "x [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]", &rq).code, PROTO_E_LIMIT);
	ck_assert_int_eq(json(&a, "[0,1,\"x\",[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]", &rq).code, PROTO_E_LIMIT);
	ck_assert(rq.has_id && rq.msgid == 1); /* still answered to its msgid */
	/* the column of a bad JSON error counts from the start of the line
	 * (characters, as the client wrote them), whatever comes before the
	 * JSON: a method name, spaces */
	static const struct {
		const char *line, *col;
	} cols[] = {
		{ "ping {} x", "column 9:" },
		{ "  [0,1,\"ping\",{} x]", "column 18:" },
		{ "ping   {\"a\": \"\xc3\xa9\xc3\xa9\" x}", "column 19:" },
		{ "state {\"game\": 1e400}", "column 20:" }, /* past a double: unreadable */
	};
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		d = json(&a, cols[i].line, &rq);
		ck_assert_int_eq(d.code, PROTO_E_BAD_REQUEST);
		ck_assert_msg(strstr(d.why, cols[i].col), "%s: %s", cols[i].line, d.why);
	}
	ck_assert(proto_is_http("GET / HTTP/1.1", 14));
	ck_assert(proto_is_http("POST /rpc HTTP/1.0", 18));
	ck_assert(!proto_is_http("GET", 3));
	ck_assert(proto_is_http("PRI * HTTP/2.0", 14)); /* HTTP/2's preface */
	ck_assert(proto_is_http("GET /", 5));            /* HTTP/0.9 */
	ck_assert(proto_is_http("GET /index.html", 15));
	ck_assert(!proto_is_http("GET {}", 6));
	ck_assert(!proto_is_http("ping", 4));
	/* any method: WebDAV's, or one made up */
	ck_assert(proto_is_http("PROPFIND /dav HTTP/1.1", 22));
	ck_assert(proto_is_http("BREW /pot HTTP/1.1", 18));
	ck_assert(proto_is_http("M-SEARCH * HTTP/1.1", 19));
	ck_assert(proto_is_http("X /y HTTP/2", 11));
	/* a carcd line stays one, " HTTP/" in its JSON or not */
	ck_assert(!proto_is_http("new_game {\"players\":[\"a HTTP/1.1\"]}", 35));
	ck_assert(!proto_is_http("ping {} HTTP/1.1x", 17));
	ck_assert(!proto_is_http("ping  HTTP/1.1", 14));
	ck_assert(!proto_is_http("BREW /pot HTTP/", 15));
	ck_assert(!proto_is_http("BREW /pot HTTP/1.", 17));
	ck_assert(!proto_is_http("POST /rpc", 9)); /* only GET was HTTP/0.9 */
	ck_assert(!proto_is_http(" / HTTP/1.1", 11));
	proto_arena_free(&a);
}
END_TEST

/* The string `key` of the params of the request in `line`, which must
 * decode. */
static const char *json_param(proto_arena *a, const char *line, const char *key)
{
	proto_request rq;
	proto_decoded d = json(a, line, &rq);
	ck_assert_msg(d.code == PROTO_OK, "%s: %s", line, d.why ? d.why : "");
	const proto_val *v = pv_get(rq.params, key);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->type, PV_STR);
	return v->u.s;
}

/* JSON allows a \u escape of a lone surrogate (what JSON.stringify writes
 * for a JavaScript string cut inside an emoji); jansson refuses it, so it
 * reads as U+FFFD, as a UTF-8 encoder writes such a string.  Pairs, other
 * escapes and an escaped backslash before `u` are left as they are. */
START_TEST(json_lone_surrogates)
{
	proto_arena a;
	proto_arena_init(&a);
	proto_request rq;
	ck_assert_str_eq(json_param(&a, "[0, 7, \"hello\", {\"client\": \"a\\ud800b\"}]", "client"), "a\xef\xbf\xbd" "b");
	ck_assert_str_eq(json_param(&a, "hello {\"client\": \"\\uDC00\"}", "client"), "\xef\xbf\xbd");
	ck_assert_str_eq(json_param(&a, "hello {\"client\": \"\\ud83d\\ude00\\ud83d\"}", "client"),
	                 "\xf0\x9f\x98\x80\xef\xbf\xbd"); /* a pair, then half of one */
	ck_assert_str_eq(json_param(&a, "hello {\"client\": \"\\ud800\\u0041\"}", "client"), "\xef\xbf\xbd" "A");
	ck_assert_str_eq(json_param(&a, "hello {\"client\": \"\\\\ud800\", \"x\": \"\\udfff\"}", "client"), "\\ud800");
	ck_assert_str_eq(json_param(&a, "hello {\"client\": \"\\\"\\ud800\"}", "client"), "\"\xef\xbf\xbd");
	/* still refused: a bad escape, and a surrogate outside a string */
	ck_assert_int_eq(json(&a, "hello {\"client\": \"\\ud80\"}", &rq).code, PROTO_E_BAD_REQUEST);
	ck_assert_int_eq(json(&a, "hello {\\ud800: 1}", &rq).code, PROTO_E_BAD_REQUEST);
	/* with an integer past 64 bits too: both mended, the integer then refused as a parameter */
	proto_decoded d = json(&a, "[0, 8, \"state\", {\"game\": 99999999999999999999, \"c\": \"\\ud800\"}]", &rq);
	ck_assert_int_eq(d.code, PROTO_OK);
	ck_assert(rq.has_id && rq.msgid == 8);
	proto_arena_free(&a);
}
END_TEST

/* ---- writing ---------------------------------------------------------------------- */

static char *to_json(proto_arena *a, const proto_val *v)
{
	proto_buf b = { 0 };
	proto_json_encode(v, &b);
	char *s = proto_arena_strndup(a, (const char *)b.p, b.len);
	proto_buf_free(&b);
	return s;
}

/* proto_setup_parse on set-ups nobody checked (a client reading history's
 * setup): a shape new_game's table would refuse is invalid_params, not a
 * crash; a good one gives the game new_game would make. */
START_TEST(setup_shapes)
{
	proto_arena a;
	proto_arena_init(&a);
	proto_request rq;
	carc_config cfg;
	const char *names[CARC_MAX_SEATS], *why = NULL;
	static const char *const bad[] = {
		"x {}",                                   "x {\"players\": \"ann\"}",
		"x {\"players\": null}",                  "x {\"players\": [\"a\"], \"expansions\": \"base\"}",
		"x {\"players\": [\"a\"], \"rules\": [1]}", "x {\"players\": [\"a\"], \"components\": 5}",
		"x {\"players\": [\"a\"], \"tiles\": {}}",  "x {\"players\": [\"a\"], \"start\": 1}",
		"x {\"players\": [\"a\"], \"bag\": \"wolf\"}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_int_eq(json(&a, bad[i], &rq).code, PROTO_OK);
		ck_assert_msg(proto_setup_parse(&a, rq.params, &cfg, names, &why) == PROTO_E_INVALID_PARAMS, "%s", bad[i]);
	}
	ck_assert_int_eq(proto_setup_parse(&a, NULL, &cfg, names, &why), PROTO_E_INVALID_PARAMS);
	ck_assert_int_eq(json(&a, "x {\"players\": [\"ann\", \"bob\"], \"expansions\": [\"base\", \"river\"], "
	                          "\"rules\": {\"farmers\": false}}",
	                      &rq).code,
	                 PROTO_OK);
	ck_assert_int_eq(proto_setup_parse(&a, rq.params, &cfg, names, &why), PROTO_OK);
	ck_assert_int_eq(cfg.nseats, 2);
	ck_assert_str_eq(names[1], "bob");
	ck_assert_uint_eq(cfg.expansions, 1u << carc_expansion_find("base") | 1u << carc_expansion_find("river"));
	ck_assert_int_eq(cfg.rules[CARC_R_FARMERS], 0);
	proto_arena_free(&a);
}
END_TEST

/* proto_mp_value reads one whole message of any kind, and nothing else. */
START_TEST(mp_value)
{
	proto_arena a;
	proto_arena_init(&a);
	const char *why = NULL;
	static const uint8_t resp[] = { 0x94, 0x01, 0x09, 0xc0, 0x81, 0xa1, 'n', 0x05 }; /* [1, 9, nil, {n: 5}] */
	const proto_val *v = proto_mp_value(&a, resp, sizeof resp, &why);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->type, PV_ARRAY);
	int64_t n;
	ck_assert(pv_to_int(pv_get(v->u.c.last, "n"), &n) && n == 5);
	ck_assert_ptr_null(proto_mp_value(&a, resp, sizeof resp - 1, &why)); /* cut short */
	ck_assert_ptr_null(proto_mp_value(&a, resp, 4, &why));
	static const uint8_t two[] = { 0x01, 0x02 };                       /* two messages */
	ck_assert_ptr_null(proto_mp_value(&a, two, sizeof two, &why));
	static const uint8_t ext[] = { 0xd4, 0x01, 0x00 };                 /* an extension type */
	ck_assert_ptr_null(proto_mp_value(&a, ext, sizeof ext, &why));
	ck_assert_ptr_nonnull(why);
	proto_arena_free(&a);
}
END_TEST

START_TEST(writers)
{
	proto_arena a;
	proto_arena_init(&a);
	proto_val *m = pv_map(&a), *arr = pv_array(&a);
	pv_set_int(&a, m, "n", -5);
	pv_set_str(&a, m, "s", "a\"b\\c\n\x01");
	pv_set_bool(&a, m, "t", 1);
	pv_set_nil(&a, m, "z");
	pv_push(arr, pv_int(&a, 1));
	pv_push(arr, pv_float(&a, 0.5));
	pv_push(arr, pv_strn(&a, "\xff\xc3\xa9", 3)); /* a stray byte, then é */
	pv_set(m, "a", arr);
	ck_assert_str_eq(to_json(&a, m), "{\"n\":-5,\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"t\":true,\"z\":null,\"a\":[1,0.5,\"\\ufffd\xc3\xa9\"]}");
	/* MessagePack round trip through the decoder */
	proto_val *env = pv_array(&a);
	pv_push(env, pv_int(&a, 0));
	pv_push(env, pv_int(&a, 4000000000));
	pv_push(env, pv_str(&a, "x"));
	pv_push(env, m);
	proto_buf b = { 0 };
	proto_mp_encode(env, &b);
	size_t len;
	ck_assert_int_eq(proto_guard_check(b.p, b.len, MAX, &len), PROTO_GUARD_DONE);
	ck_assert_uint_eq(len, b.len);
	proto_request rq;
	ck_assert_int_eq(proto_mp_decode(&a, b.p, b.len, &rq).code, PROTO_OK);
	ck_assert_uint_eq(rq.msgid, 4000000000u);
	ck_assert(pv_is_str(pv_get(rq.params, "s"), "a\"b\\c\n\x01"));
	proto_buf_free(&b);
	/* an error response answers the msgid */
	proto_val *e = proto_error(&a, &rq, PROTO_E_NOT_YOUR_TURN, "wait");
	ck_assert_str_eq(to_json(&a, e), "[1,4000000000,{\"code\":\"not_your_turn\",\"message\":\"wait\"},null]");
	proto_arena_free(&a);
}
END_TEST

/* Strings in replies are UTF-8 in both encodings: every byte that is no
 * part of a valid UTF-8 sequence (surrogates, overlong forms, code points
 * past U+10FFFF, lone bytes) is written as U+FFFD; valid sequences at the
 * edges of those ranges are kept. */
START_TEST(writers_utf8)
{
	static const struct {
		const char *in, *json;
	} cases[] = {
		{ "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd" },        /* U+D800, a surrogate */
		{ "\xed\xbf\xbf", "\\ufffd\\ufffd\\ufffd" },        /* U+DFFF */
		{ "\xc0\x80", "\\ufffd\\ufffd" },                   /* overlong NUL */
		{ "\xc1\xbf", "\\ufffd\\ufffd" },                   /* overlong U+007F */
		{ "\xe0\x9f\xbf", "\\ufffd\\ufffd\\ufffd" },        /* overlong U+07FF */
		{ "\xf0\x8f\xbf\xbf", "\\ufffd\\ufffd\\ufffd\\ufffd" }, /* overlong U+FFFF */
		{ "\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd" }, /* U+110000 */
		{ "\xf5\x80\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd" },
		{ "\xe2\x82", "\\ufffd\\ufffd" },                   /* cut short */
		{ "\xc2\x80", "\xc2\x80" },                           /* U+0080 */
		{ "\xe0\xa0\x80", "\xe0\xa0\x80" },                    /* U+0800 */
		{ "\xed\x9f\xbf", "\xed\x9f\xbf" },                    /* U+D7FF */
		{ "\xee\x80\x80", "\xee\x80\x80" },                    /* U+E000 */
		{ "\xf0\x90\x80\x80", "\xf0\x90\x80\x80" },             /* U+10000 */
		{ "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },             /* U+10FFFF */
	};
	proto_arena a;
	proto_arena_init(&a);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *in = proto_arena_printf(&a, "<%s>", cases[i].in);
		ck_assert_str_eq(to_json(&a, pv_str(&a, in)), proto_arena_printf(&a, "\"<%s>\"", cases[i].json));
		/* MessagePack: the same text, U+FFFD as its UTF-8 bytes */
		char *want = proto_arena_printf(&a, "<%s>", cases[i].json);
		char *fffd;
		while ((fffd = strstr(want, "\\ufffd"))) {
			memcpy(fffd, "\xef\xbf\xbd", 3);
			memmove(fffd + 3, fffd + 6, strlen(fffd + 6) + 1);
		}
		proto_buf b = { 0 };
		proto_mp_encode(pv_str(&a, in), &b);
		ck_assert_uint_eq(b.p[0], 0xa0 | strlen(want));
		ck_assert_uint_eq(b.len, 1 + strlen(want));
		ck_assert(!memcmp(b.p + 1, want, strlen(want)));
		proto_buf_free(&b);
	}
	proto_arena_free(&a);
}
END_TEST

/* Every size class of the MessagePack writer, read back by msgpack-c. */
START_TEST(mp_writer_sizes)
{
	proto_arena a;
	proto_arena_init(&a);
	static const int64_t ints[] = { 0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295ll, 4294967296ll, INT64_MAX,
		                        -1, -32, -33, -128, -129, -32768, -32769, -2147483648ll, -2147483649ll, INT64_MIN };
	static const size_t lens[] = { 0, 31, 32, 255, 256, 65535, 65536 };
	proto_val *params = pv_map(&a), *iv = pv_array(&a), *sv = pv_array(&a), *big = pv_map(&a);
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) pv_push(iv, pv_int(&a, ints[i]));
	char *text = proto_arena_alloc(&a, 65536);
	memset(text, 'q', 65536);
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) pv_push(sv, pv_strn(&a, text, lens[i]));
	for (int i = 0; i < 70000; i++) pv_setn(big, proto_arena_printf(&a, "k%d", i), strlen(proto_arena_printf(&a, "k%d", i)), pv_float(&a, i / 2.0));
	pv_set(params, "ints", iv);
	pv_set(params, "strs", sv);
	pv_set(params, "big", big);
	pv_set_bool(&a, params, "f", 0);
	proto_val *env = pv_array(&a);
	pv_push(env, pv_int(&a, 0));
	pv_push(env, pv_int(&a, 1));
	pv_push(env, pv_str(&a, "m"));
	pv_push(env, params);
	proto_buf b = { 0 };
	proto_mp_encode(env, &b);
	size_t len;
	ck_assert_int_eq(proto_guard_check(b.p, b.len, 64u << 20, &len), PROTO_GUARD_DONE);
	ck_assert_uint_eq(len, b.len);
	proto_request rq;
	ck_assert_int_eq(proto_mp_decode(&a, b.p, b.len, &rq).code, PROTO_OK);
	const proto_val *v = pv_get(rq.params, "ints")->u.c.first;
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++, v = v->next) {
		if (ints[i] >= 0 && v->type == PV_FLOAT) continue; /* past INT64_MAX only */
		ck_assert_int_eq(v->u.i, ints[i]);
	}
	v = pv_get(rq.params, "strs")->u.c.first;
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++, v = v->next) ck_assert_uint_eq(v->n, lens[i]);
	ck_assert_uint_eq(pv_get(rq.params, "big")->n, 70000);
	ck_assert(pv_get(pv_get(rq.params, "big"), "k69999")->u.f == 69999 / 2.0);
	proto_buf_free(&b);
	proto_arena_free(&a);
}
END_TEST

/* Each integer, string and container in its shortest MessagePack form
 * (the spec's "should"; the writer's comment promises it): the boundary
 * values of each size class, byte for byte. */
START_TEST(mp_writer_shortest)
{
	static const struct {
		int64_t i;
		size_t n;
		uint8_t tag;
	} ints[] = {
		{ 0, 1, 0x00 }, { 127, 1, 0x7f }, { 128, 2, 0xcc }, { 255, 2, 0xcc }, { 256, 3, 0xcd },
		{ 65535, 3, 0xcd }, { 65536, 5, 0xce }, { 4294967295ll, 5, 0xce }, { 4294967296ll, 9, 0xcf },
		{ -1, 1, 0xff }, { -32, 1, 0xe0 }, { -33, 2, 0xd0 }, { -128, 2, 0xd0 }, { -129, 3, 0xd1 },
		{ -32768, 3, 0xd1 }, { -32769, 5, 0xd2 }, { -2147483648ll, 5, 0xd2 }, { -2147483649ll, 9, 0xd3 },
	};
	static const struct {
		uint32_t n;
		size_t head;
		uint8_t tag;
	} strs[] = { { 0, 1, 0xa0 }, { 31, 1, 0xbf }, { 32, 2, 0xd9 }, { 255, 2, 0xd9 }, { 256, 3, 0xda },
		     { 65535, 3, 0xda }, { 65536, 5, 0xdb } },
	  arrays[] = { { 0, 1, 0x90 }, { 15, 1, 0x9f }, { 16, 3, 0xdc }, { 65535, 3, 0xdc }, { 65536, 5, 0xdd } };
	proto_arena a;
	proto_arena_init(&a);
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		proto_buf b = { 0 };
		proto_mp_encode(pv_int(&a, ints[i].i), &b);
		ck_assert_msg(b.len == ints[i].n && b.p[0] == ints[i].tag, "%lld: %zu bytes, tag %02x",
		              (long long)ints[i].i, b.len, b.p[0]);
		proto_buf_free(&b);
	}
	char *text = proto_arena_alloc(&a, 65536);
	memset(text, 'q', 65536);
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
		proto_buf b = { 0 };
		proto_mp_encode(pv_strn(&a, text, strs[i].n), &b);
		ck_assert_msg(b.len == strs[i].head + strs[i].n && b.p[0] == strs[i].tag, "string of %u: %zu bytes, tag %02x",
		              strs[i].n, b.len, b.p[0]);
		proto_buf_free(&b);
	}
	for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
		for (int map = 0; map < 2; map++) {
			proto_val *c = map ? pv_map(&a) : pv_array(&a);
			for (uint32_t k = 0; k < arrays[i].n; k++) {
				if (map) pv_setn(c, "", 0, pv_nil(&a));
				else pv_push(c, pv_nil(&a));
			}
			proto_buf b = { 0 };
			proto_mp_encode(c, &b);
			uint8_t tag = map ? (uint8_t)(arrays[i].tag == 0x90 || arrays[i].tag == 0x9f ? arrays[i].tag - 0x10
			                                                                             : arrays[i].tag + 2)
			                  : arrays[i].tag;
			ck_assert_msg(b.len == arrays[i].head + (size_t)arrays[i].n * (map ? 2 : 1) && b.p[0] == tag,
			              "%s of %u: %zu bytes, tag %02x", map ? "map" : "array", arrays[i].n, b.len, b.p[0]);
			proto_buf_free(&b);
		}
	}
	proto_arena_free(&a);
}
END_TEST

/* A stray byte anywhere in a short or long string, at every length the
 * writer's ASCII scan reads differently (under 4, 4 to 7, 8 and up, the
 * tail after the last whole eight): U+FFFD in MessagePack, \ufffd in JSON. */
START_TEST(writers_utf8_every_position)
{
	proto_arena a;
	proto_arena_init(&a);
	for (size_t n = 1; n <= 24; n++) {
		for (size_t at = 0; at < n; at++) {
			char in[32], want[40], as[32];
			memset(as, 'a', sizeof as);
			memset(in, 'a', n);
			in[at] = (char)0xff;
			memset(want, 'a', n + 2);
			memcpy(want + at, "\xef\xbf\xbd", 3);
			proto_buf b = { 0 };
			proto_mp_encode(pv_strn(&a, in, n), &b);
			ck_assert_msg(b.len == 1 + n + 2 && b.p[0] == (0xa0 | (n + 2)) && !memcmp(b.p + 1, want, n + 2),
			              "MessagePack: 0xff at %zu of %zu bytes", at, n);
			proto_buf_free(&b);
			char *json = proto_arena_printf(&a, "\"%.*s\\ufffd%.*s\"", (int)at, as, (int)(n - at - 1), as);
			ck_assert_str_eq(to_json(&a, pv_strn(&a, in, n)), json);
		}
	}
	proto_arena_free(&a);
}
END_TEST

START_TEST(params)
{
	proto_arena a;
	proto_arena_init(&a);
	static const proto_param spec[] = {
		{ .name = "game", .type = PROTO_P_INT, .required = 1, .min = 1, .max = 100 },
		{ .name = "token", .type = PROTO_P_STR },
		{ .name = NULL },
	};
	proto_request rq;
	const char *why = NULL;
	json(&a, "x {\"game\": 5, \"other\": 1}", &rq);
	ck_assert_int_eq(proto_params_check(&a, spec, rq.params, &why), PROTO_OK);
	json(&a, "x {\"game\": 5.0, \"token\": null}", &rq);
	ck_assert_int_eq(proto_params_check(&a, spec, rq.params, &why), PROTO_OK);
	json(&a, "x {}", &rq);
	ck_assert_int_eq(proto_params_check(&a, spec, rq.params, &why), PROTO_E_INVALID_PARAMS);
	ck_assert_str_eq(why, "missing parameter `game` (integer)");
	json(&a, "x {\"game\": \"5\"}", &rq);
	ck_assert_int_eq(proto_params_check(&a, spec, rq.params, &why), PROTO_E_INVALID_PARAMS);
	json(&a, "x {\"game\": 500}", &rq);
	ck_assert_int_eq(proto_params_check(&a, spec, rq.params, &why), PROTO_E_INVALID_PARAMS);
	json(&a, "x {\"game\": 5.5}", &rq);
	ck_assert_int_eq(proto_params_check(&a, spec, rq.params, &why), PROTO_E_INVALID_PARAMS);
	json(&a, "x {\"game\": 5, \"token\": true}", &rq);
	ck_assert_int_eq(proto_params_check(&a, spec, rq.params, &why), PROTO_E_INVALID_PARAMS);
	proto_arena_free(&a);
}
END_TEST

/* ---- moves --------------------------------------------------------------------------- */

START_TEST(moves)
{
	proto_arena a;
	proto_arena_init(&a);
	proto_request rq;
	const char *why;
	carc_move m;
	json(&a, "x {\"type\": \"place_tile\", \"tile\": \"BA/RCr\", \"x\": 1, \"y\": -2, \"rot\": 270, \"extra\": 1}", &rq);
	ck_assert_int_eq(proto_move_parse(&a, NULL, rq.params, &m, &why), PROTO_OK);
	ck_assert_int_eq(m.type, CARC_MV_PLACE_TILE);
	ck_assert_int_eq(m.rot, 3);
	ck_assert_int_eq(m.y, -2);
	ck_assert_str_eq(to_json(&a, proto_move(&a, NULL, &m)), "{\"type\":\"place_tile\",\"tile\":\"BA/RCr\",\"x\":1,\"y\":-2,\"rot\":270}");
	json(&a, "x {\"type\": \"deploy\", \"kind\": \"follower\", \"x\": 0, \"y\": 0, \"at\": \"NL\"}", &rq);
	ck_assert_int_eq(proto_move_parse(&a, NULL, rq.params, &m, &why), PROTO_OK);
	ck_assert_str_eq(to_json(&a, proto_move(&a, NULL, &m)), "{\"type\":\"deploy\",\"kind\":\"follower\",\"x\":0,\"y\":0,\"at\":\"NL\"}");
	json(&a, "x {\"type\": \"pass\"}", &rq);
	ck_assert_int_eq(proto_move_parse(&a, NULL, rq.params, &m, &why), PROTO_OK);
	json(&a, "x {\"type\": \"place_tile\", \"tile\": \"BA/RCr\", \"x\": 1, \"y\": 0, \"rot\": 45}", &rq);
	ck_assert_int_eq(proto_move_parse(&a, NULL, rq.params, &m, &why), PROTO_E_INVALID_PARAMS);
	json(&a, "x {\"type\": \"place_tile\", \"tile\": \"XX/no\", \"x\": 1, \"y\": 0, \"rot\": 0}", &rq);
	ck_assert_int_eq(proto_move_parse(&a, NULL, rq.params, &m, &why), PROTO_E_INVALID_PARAMS);
	json(&a, "x {\"type\": \"deploy\", \"kind\": \"follower\", \"x\": 0, \"y\": 0, \"at\": \"middle\"}", &rq);
	ck_assert_int_eq(proto_move_parse(&a, NULL, rq.params, &m, &why), PROTO_E_INVALID_PARAMS);
	json(&a, "x {\"type\": \"move_dragon\", \"x\": 0, \"y\": 0}", &rq);
	ck_assert_int_eq(proto_move_parse(&a, NULL, rq.params, &m, &why), PROTO_E_ILLEGAL_MOVE);
	json(&a, "x {\"type\": \"fly\"}", &rq);
	ck_assert_int_eq(proto_move_parse(&a, NULL, rq.params, &m, &why), PROTO_E_INVALID_PARAMS);
	proto_arena_free(&a);
}
END_TEST

/* Every legal move survives the trip to the wire and back; an illegal
 * placement is explained edge by edge. */
START_TEST(moves_round_trip)
{
	proto_arena a;
	proto_arena_init(&a);
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.seed = 7;
	carc_game *g = malloc(carc_game_size());
	ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
	static carc_move list[CARC_MAX_MOVES];
	for (int turn = 0; turn < 40 && !carc_game_over(g); turn++) {
		int n = carc_legal_moves(g, list, CARC_MAX_MOVES);
		ck_assert_int_gt(n, 0);
		for (int i = 0; i < n; i++) {
			proto_buf b = { 0 };
			proto_json_encode(proto_move(&a, g, &list[i]), &b);
			proto_request rq;
			char *line = proto_arena_printf(&a, "x %.*s", (int)b.len, (const char *)b.p);
			proto_buf_free(&b);
			ck_assert_int_eq(json(&a, line, &rq).code, PROTO_OK);
			carc_move m;
			const char *why;
			ck_assert_int_eq(proto_move_parse(&a, g, rq.params, &m, &why), PROTO_OK);
			ck_assert_int_eq(carc_check_move(g, &m, NULL), CARC_OK);
		}
		ck_assert_int_eq(carc_apply(g, &list[(unsigned)turn * 7919u % (unsigned)n], NULL), CARC_OK);
		proto_arena_reset(&a);
	}
	free(g);
	proto_arena_free(&a);
}
END_TEST

/* The value of "key":"..." in a JSON object, or "" (the writers put no
 * space after the colon and escape no quote in these names). */
static const char *json_str(proto_arena *a, const char *j, const char *key)
{
	char *pat = proto_arena_printf(a, "\"%s\":\"", key);
	const char *p = strstr(j, pat);
	if (!p) return "";
	p += strlen(pat);
	return proto_arena_strndup(a, p, strcspn(p, "\""));
}

static int among(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list)) return 1;
	return 0;
}

/* Games with the sets of issue 4 (every one, then random mixes, 1 to 6
 * seats): each legal move goes to the wire and back unchanged and is
 * accepted; every move and event type is one PROTOCOL.md §5-6 names for
 * these sets, and over all the games each of them shows up. */
START_TEST(expansion_moves_round_trip)
{
	static const char *const sets[] = { "river", "river2", "mini", "inns-cathedrals", "traders-builders",
		                            "abbey-mayor", "king-robber", "cathars", "cult", "hills-sheep", NULL };
	static const char *const move_types[] = { "place_tile", "deploy", "pass", "draw", "place_abbey",
		                                  "move_wagon", "flock", "escape", NULL };
	static const char *const event_types[] = { "tile_drawn", "tile_placed", "tile_discarded", "tile_hidden",
		                                   "deployed", "returned", "feature_completed", "scored",
		                                   "token_taken", "sheep_drawn", "turn", "game_over", NULL };
	/* what every set of issue 4 together must have shown by the end */
	static const char *const must[] = { "move:draw", "move:place_abbey", "move:move_wagon", "move:flock",
		"move:escape", "kind:large", "kind:wagon", "kind:mayor", "kind:builder", "kind:pig", "kind:barn",
		"kind:shepherd", "event:tile_hidden", "event:token_taken", "event:sheep_drawn", "why:barn",
		"why:wolf", "why:flock", "why:escape", "feature:barn", "feature:trade", "feature:king",
		"feature:robber", "feature:flock", NULL };
	char seen[64][32];
	int nseen = 0;
	proto_arena a;
	proto_arena_init(&a);
	carc_game *g = malloc(carc_game_size());
	static carc_move list[CARC_MAX_MOVES];
	static carc_event ev[1024];
	uint32_t base = 1u << carc_expansion_find("base"), all = base;
	for (int i = 0; sets[i]; i++) {
		ck_assert_int_ge(carc_expansion_find(sets[i]), 0);
		all |= 1u << carc_expansion_find(sets[i]);
	}
	carc_rng rng;
	carc_rng_seed(&rng, 4);
	for (int game = 0; game < 40; game++) {
		carc_config cfg;
		carc_config_init(&cfg);
		cfg.seed = (uint64_t)game + 1;
		cfg.nseats = (uint8_t)(1 + game % 6);
		cfg.expansions = game < 16 ? all : base | ((uint32_t)carc_rng_next(&rng) & all);
		ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
		while (!carc_game_over(g)) {
			int n = carc_legal_moves(g, list, CARC_MAX_MOVES);
			ck_assert_int_gt(n, 0);
			for (int i = 0; i < n; i++) {
				/* placements are the base game's (moves_round_trip): a few suffice */
				if (list[i].type == CARC_MV_PLACE_TILE && i % (n / 4 + 1)) continue;
				char *j = to_json(&a, proto_move(&a, g, &list[i]));
				const char *marks[2] = { proto_arena_printf(&a, "move:%s", json_str(&a, j, "type")),
					                 proto_arena_printf(&a, "kind:%s", json_str(&a, j, "kind")) };
				ck_assert_msg(among(json_str(&a, j, "type"), move_types), "move %s", j);
				for (int k = 0; k < 2; k++) {
					int s = 0;
					while (s < nseen && strcmp(seen[s], marks[k])) s++;
					if (s == nseen && nseen < 64) snprintf(seen[nseen++], sizeof seen[0], "%s", marks[k]);
				}
				proto_request rq;
				ck_assert_int_eq(json(&a, proto_arena_printf(&a, "x %s", j), &rq).code, PROTO_OK);
				carc_move m;
				const char *why;
				ck_assert_msg(proto_move_parse(&a, g, rq.params, &m, &why) == PROTO_OK, "%s: %s", j, why);
				ck_assert_msg(carc_check_move(g, &m, NULL) == CARC_OK, "%s refused", j);
				ck_assert_str_eq(to_json(&a, proto_move(&a, g, &m)), j);
			}
			carc_sink sink = { ev, 0, (int)(sizeof ev / sizeof ev[0]) };
			ck_assert_int_eq(carc_apply(g, &list[carc_rng_below(&rng, (uint32_t)n)], &sink), CARC_OK);
			ck_assert_int_le(sink.n, sink.cap);
			for (int e = 0; e < sink.n; e++) {
				char *j = to_json(&a, proto_event(&a, g, &ev[e]));
				const char *type = json_str(&a, j, "type");
				ck_assert_msg(among(type, event_types), "event %s", j);
				const char *marks[3] = { proto_arena_printf(&a, "event:%s", type),
					                 proto_arena_printf(&a, "why:%s", json_str(&a, j, "why")),
					                 proto_arena_printf(&a, "feature:%s", json_str(&a, j, "feature")) };
				for (int k = 0; k < 3; k++) {
					int s = 0;
					while (s < nseen && strcmp(seen[s], marks[k])) s++;
					if (s == nseen && nseen < 64) snprintf(seen[nseen++], sizeof seen[0], "%s", marks[k]);
				}
			}
			proto_arena_reset(&a);
		}
	}
	for (int i = 0; must[i]; i++) {
		int s = 0;
		while (s < nseen && strcmp(seen[s], must[i])) s++;
		ck_assert_msg(s < nseen, "no %s in any game", must[i]);
	}
	free(g);
	proto_arena_free(&a);
}
END_TEST

START_TEST(explain_edge)
{
	proto_arena a;
	proto_arena_init(&a);
	carc_config cfg;
	carc_config_init(&cfg);
	/* start BA/RCr: city to the north, road east-west; then a full city tile */
	cfg.nstart = 1;
	cfg.start[0] = (carc_start_tile){ (uint16_t)carc_tile_find("BA/RCr"), 0, 0, 0 };
	cfg.ntiles = 2;
	cfg.tiles[0] = cfg.tiles[1] = (uint16_t)carc_tile_find("BA/Cccc+");
	carc_game *g = malloc(carc_game_size());
	ck_assert_int_eq(carc_game_init(g, &cfg, NULL), CARC_OK);
	carc_move m = { .type = CARC_MV_PLACE_TILE, .tile = cfg.tiles[0], .x = 1, .y = 0, .figure = CARC_NONE };
	int detail = -1;
	carc_rc rc = carc_check_move(g, &m, &detail);
	ck_assert_int_eq(rc, CARC_E_EDGE);
	const char *why = proto_move_explain(&a, g, &m, rc, detail, NULL);
	ck_assert_msg(strstr(why, "west edge of BA/Cccc+ (city) does not match the road of the tile to the west"), "%s", why);
	m.y = -1, m.x = 0;
	ck_assert_int_eq(carc_check_move(g, &m, &detail), CARC_OK);
	m.x = 5;
	ck_assert_str_eq(proto_move_explain(&a, g, &m, carc_check_move(g, &m, &detail), detail, NULL),
	                 "(5,-1) does not touch a placed tile edge to edge");
	/* deploys on the tile just placed: wrong tile, wrong figure, taken feature */
	m.x = 0;
	ck_assert_int_eq(carc_apply(g, &m, NULL), CARC_OK);
	carc_move d = { .type = CARC_MV_DEPLOY, .kind = CARC_FIG_FOLLOWER, .x = 0, .y = 0, .port = CARC_N,
		        .tile = CARC_NONE, .figure = CARC_NONE };
	ck_assert_str_eq(proto_move_explain(&a, g, &d, carc_check_move(g, &d, &detail), detail, NULL),
	                 "figures go on the tile just placed, at (0,-1), not (0,0)");
	d.y = -1;
	d.kind = CARC_FIG_LARGE;
	ck_assert_str_eq(proto_move_explain(&a, g, &d, carc_check_move(g, &d, &detail), detail, NULL),
	                 "there are no large figures in this game");
	d.kind = CARC_FIG_FOLLOWER;
	ck_assert_int_eq(carc_check_move(g, &d, &detail), CARC_OK);
	carc_move place = { .type = CARC_MV_PLACE_TILE, .tile = cfg.tiles[0], .x = 1, .y = 0, .figure = CARC_NONE };
	ck_assert_str_eq(proto_move_explain(&a, g, &place, carc_check_move(g, &place, &detail), detail, NULL),
	                 "the tile is already placed: deploy a figure on it or pass");
	/* a move of a piece this game has not at all says so, in any phase */
	carc_move wagon = { .type = CARC_MV_MOVE_WAGON, .x = 1, .y = 0, .tile = CARC_NONE, .figure = CARC_NONE };
	ck_assert_str_eq(proto_move_explain(&a, g, &wagon, carc_check_move(g, &wagon, &detail), detail, NULL),
	                 "the tile is already placed: deploy a figure on it or pass; and this game has no wagon "
	                 "(Abbey & Mayor, or the `wagon` component) at all");
	carc_move drawing = { .type = CARC_MV_DRAW, .tile = CARC_NONE, .figure = CARC_NONE };
	ck_assert_str_eq(proto_move_explain(&a, g, &drawing, carc_check_move(g, &drawing, &detail), detail, NULL),
	                 "the tile is already placed: deploy a figure on it or pass; and this game has no abbey "
	                 "(Abbey & Mayor, or the `abbey` component) at all");
	free(g);
	proto_arena_free(&a);
}
END_TEST

/* ---- SHA-256 (FIPS 180-4 examples) ------------------------------------------------------- */

/* A digest of p[0..n) in hex, by SHA-256 or (with 20 bytes) SHA-1. */
static const char *digest_hex(void (*f)(const void *, size_t, uint8_t *), size_t bytes, const void *p, size_t n)
{
	static char hex[65];
	uint8_t d[32];
	f(p, n, d);
	proto_hex(d, bytes, hex);
	return hex;
}

static const char *sha(const void *p, size_t n) { return digest_hex(proto_sha256, 32, p, n); }
static const char *sha1_hex(const void *p, size_t n) { return digest_hex(proto_sha1, 20, p, n); }

/* FIPS 180's examples (the empty message, "abc", the 448- and 896-bit
 * messages, a million 'a'), then runs of 'a' around the padding: 55, 56,
 * 63, 64 and 65 bytes. */
static void fips_vectors(const char *(*hex)(const void *, size_t), const char *const want[10])
{
	const char *s448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	const char *s896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	ck_assert_str_eq(hex("", 0), want[0]);
	ck_assert_str_eq(hex("abc", 3), want[1]);
	ck_assert_str_eq(hex(s448, strlen(s448)), want[2]);
	ck_assert_str_eq(hex(s896, strlen(s896)), want[3]);
	char *million = malloc(1000000);
	ck_assert_ptr_nonnull(million);
	memset(million, 'a', 1000000);
	ck_assert_str_eq(hex(million, 1000000), want[4]);
	free(million);
	static const size_t runs[] = { 55, 56, 63, 64, 65 };
	char buf[65];
	memset(buf, 'a', sizeof buf);
	for (int i = 0; i < 5; i++) ck_assert_str_eq(hex(buf, runs[i]), want[5 + i]);
}

START_TEST(sha256_vectors)
{
	static const char *const want[10] = {
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
		"cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
		"9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
		"b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
		"7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
		"ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
		"635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0",
	};
	fips_vectors(sha, want);
}
END_TEST

/* ---- WebSocket (RFC 6455) ------------------------------------------------------------- */

START_TEST(ws_sha1_vectors)
{
	static const char *const want[10] = {
		"da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"a9993e364706816aba3e25717850c26c9cd0d89d",
		"84983e441c3bd26ebaae4aa1f95129e5e54670f1",
		"a49b2446a02c645bf419f995b67091253a04a259",
		"34aa973cd4c4daa4f61eeb2bdbad27316534016f",
		"c1c8bbdc22796e28c0e15163d20899b65621d65a",
		"c2db330f6083854c99d4b5bfb6e8f29f201be699",
		"03f09f5b158a7a8cdad920bddc29b81c18a551f5",
		"0098ba824b5c16427bd7a1122a5a442a25ec644d",
		"11655326c708d70319be2610e8a57d9a5b959d3b",
	};
	fips_vectors(sha1_hex, want);
}
END_TEST

static const char *b64(const void *p, size_t n)
{
	static char out[64];
	memset(out, 'X', sizeof out);
	proto_base64(p, n, out);
	return out;
}

START_TEST(ws_base64)
{
	/* bytes 0xf9.. use the alphabet's last two characters, + and / */
	static const uint8_t hi[] = { 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe };
	static const char *const want[] = { "", "+Q==", "+fo=", "+fr7", "+fr7/A==", "+fr7/P0=", "+fr7/P3+" };
	for (size_t n = 0; n <= 6; n++) ck_assert_str_eq(b64(hi, n), want[n]);
	/* RFC 4648 section 10 */
	ck_assert_str_eq(b64("", 0), "");
	ck_assert_str_eq(b64("f", 1), "Zg==");
	ck_assert_str_eq(b64("fo", 2), "Zm8=");
	ck_assert_str_eq(b64("foo", 3), "Zm9v");
	ck_assert_str_eq(b64("foob", 4), "Zm9vYg==");
	ck_assert_str_eq(b64("fooba", 5), "Zm9vYmE=");
	ck_assert_str_eq(b64("foobar", 6), "Zm9vYmFy");
	/* every byte value in each of the three positions */
	static const uint8_t zero[3] = { 0 };
	ck_assert_str_eq(b64(zero, 3), "AAAA");
	static const uint8_t ones[3] = { 0xff, 0xff, 0xff };
	ck_assert_str_eq(b64(ones, 3), "////");
}
END_TEST

START_TEST(ws_accept_example)
{
	/* RFC 6455 section 1.3 */
	char out[29];
	memset(out, 'X', sizeof out);
	proto_ws_accept("dGhlIHNhbXBsZSBub25jZQ==", 24, out);
	ck_assert_str_eq(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}
END_TEST

#define WS_GET "GET /chat HTTP/1.1\r\n"
#define WS_HOST "Host: server.example.com\r\n"
#define WS_UP "Upgrade: websocket\r\n"
#define WS_CONN "Connection: Upgrade\r\n"
#define WS_KEY "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
#define WS_VER "Sec-WebSocket-Version: 13\r\n"
#define WS_ACCEPT "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

/* The request with no NUL behind it: in a buffer of its own size (for a
 * sanitizer), then with junk behind it (for a parser reading past n). */
static int hs_parse(const char *req, proto_ws_handshake *hs)
{
	static char copy[2048];
	size_t n = strlen(req);
	ck_assert_uint_lt(n, sizeof copy);
	char *exact = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(exact);
	memcpy(exact, req, n);
	int exact_rc = proto_ws_handshake_parse(exact, n, hs);
	free(exact);
	memcpy(copy, req, n);
	memset(copy + n, 'Z', sizeof copy - n);
	int rc = proto_ws_handshake_parse(copy, n, hs);
	ck_assert_int_eq(rc, exact_rc);
	ck_assert_int_eq(rc, hs->status);
	if (rc != 101) ck_assert_ptr_nonnull(hs->why);
	if (hs->key) ck_assert(hs->key >= copy && hs->key + hs->key_len <= copy + n);
	if (hs->origin) ck_assert(hs->origin >= copy && hs->origin + hs->origin_len <= copy + n);
	return rc;
}

START_TEST(ws_handshake_good)
{
	proto_ws_handshake hs;
	/* RFC 6455 section 1.3 */
	ck_assert_int_eq(hs_parse(WS_GET WS_HOST WS_UP WS_CONN WS_KEY "Origin: http://example.com\r\n"
	                          "Sec-WebSocket-Protocol: chat, superchat\r\n" WS_VER "\r\n",
	                          &hs),
	                 101);
	ck_assert_str_eq(hs.accept, WS_ACCEPT);
	ck_assert_ptr_nonnull(hs.origin);
	ck_assert_uint_eq(hs.origin_len, 18);
	ck_assert(!memcmp(hs.origin, "http://example.com", 18));
	ck_assert_uint_eq(hs.key_len, 24);
	ck_assert(!memcmp(hs.key, "dGhlIHNhbXBsZSBub25jZQ==", 24));
	/* no Origin: a program, not a page */
	ck_assert_int_eq(hs_parse(WS_GET WS_HOST WS_UP WS_CONN WS_KEY WS_VER "\r\n", &hs), 101);
	ck_assert_ptr_null(hs.origin);
	ck_assert_str_eq(hs.accept, WS_ACCEPT);
	/* header names and the tokens in any case, values with blanks around them */
	ck_assert_int_eq(hs_parse("GET / HTTP/1.1\r\nupgrade: WebSocket\r\nCONNECTION: UPGRADE\r\n"
	                          "sec-websocket-key:dGhlIHNhbXBsZSBub25jZQ==  \r\nSEC-WEBSOCKET-VERSION:\t13\r\n"
	                          "oRiGiN:   https://a.example:8443 \r\n\r\n",
	                          &hs),
	                 101);
	ck_assert_str_eq(hs.accept, WS_ACCEPT);
	ck_assert_uint_eq(hs.origin_len, 22);
	ck_assert(!memcmp(hs.origin, "https://a.example:8443", 22));
	/* Connection lists several tokens, as Firefox sends it */
	ck_assert_int_eq(hs_parse(WS_GET WS_HOST WS_UP "Connection: keep-alive, Upgrade\r\n" WS_KEY WS_VER "\r\n", &hs), 101);
	ck_assert_int_eq(hs_parse(WS_GET WS_UP "Connection: Upgrade,keep-alive\r\n" WS_KEY WS_VER "\r\n", &hs), 101);
	ck_assert_int_eq(hs_parse(WS_GET "Upgrade: foo, websocket\r\n" WS_CONN WS_KEY WS_VER "\r\n", &hs), 101);
	/* LF-only line ends */
	ck_assert_int_eq(hs_parse("GET / HTTP/1.1\nHost: x\nUpgrade: websocket\nConnection: Upgrade\n"
	                          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\nSec-WebSocket-Version: 13\n\n",
	                          &hs),
	                 101);
	ck_assert_str_eq(hs.accept, WS_ACCEPT);
	/* another key, another accept (python3: base64(sha1(key + GUID))) */
	ck_assert_int_eq(hs_parse(WS_GET WS_UP WS_CONN "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n" WS_VER "\r\n", &hs), 101);
	char acc[29];
	proto_ws_accept("AAAAAAAAAAAAAAAAAAAAAA==", 24, acc);
	ck_assert_str_eq(hs.accept, acc);
	ck_assert_str_ne(hs.accept, WS_ACCEPT);
	/* whatever follows the blank line is not the handshake's */
	ck_assert_int_eq(hs_parse(WS_GET WS_UP WS_CONN WS_KEY WS_VER "\r\nnot a header\r\n", &hs), 101);
}
END_TEST

/* A refusal with its status, the why naming `what` when given. */
static void refused(const char *req, int status, const char *what)
{
	proto_ws_handshake hs;
	int rc = hs_parse(req, &hs);
	if (rc != status) ck_abort_msg("%d instead of %d for:\n%s", rc, status, req);
	if (what && !strstr(hs.why, what)) ck_abort_msg("\"%s\" does not name %s, for:\n%s", hs.why, what, req);
}

START_TEST(ws_handshake_refused)
{
	/* the request line */
	refused("POST /chat HTTP/1.1\r\n" WS_UP WS_CONN WS_KEY WS_VER "\r\n", 400, "GET");
	refused("GET /chat HTTP/1.0\r\n" WS_UP WS_CONN WS_KEY WS_VER "\r\n", 400, NULL);
	refused("GET /chat HTTP/2.0\r\n" WS_UP WS_CONN WS_KEY WS_VER "\r\n", 400, NULL);
	refused("GET /chat\r\n" WS_UP WS_CONN WS_KEY WS_VER "\r\n", 400, NULL);
	refused("GET   HTTP/1.1\r\n" WS_UP WS_CONN WS_KEY WS_VER "\r\n", 400, NULL);
	refused("get /chat HTTP/1.1\r\n" WS_UP WS_CONN WS_KEY WS_VER "\r\n", 400, NULL);
	refused("GET/chat HTTP/1.1\r\n" WS_UP WS_CONN WS_KEY WS_VER "\r\n", 400, NULL);
	refused("GET /chat HTTP/1.1 \r\n" WS_UP WS_CONN WS_KEY WS_VER "\r\n", 400, NULL);
	refused("", 400, NULL);
	refused("GET", 400, NULL);
	/* the headers it needs */
	refused(WS_GET WS_HOST WS_CONN WS_KEY WS_VER "\r\n", 400, "Upgrade");
	refused(WS_GET WS_HOST "Upgrade: h2c\r\n" WS_CONN WS_KEY WS_VER "\r\n", 400, "Upgrade");
	refused(WS_GET WS_HOST WS_UP WS_KEY WS_VER "\r\n", 400, "Connection");
	refused(WS_GET WS_HOST WS_UP "Connection: keep-alive\r\n" WS_KEY WS_VER "\r\n", 400, "Connection");
	refused(WS_GET WS_HOST WS_UP "Connection: Upgrades\r\n" WS_KEY WS_VER "\r\n", 400, "Connection");
	refused(WS_GET WS_HOST WS_UP "Connection: Upgrad\r\n" WS_KEY WS_VER "\r\n", 400, "Connection");
	refused(WS_GET WS_HOST "Upgrade: websock\r\n" WS_CONN WS_KEY WS_VER "\r\n", 400, "Upgrade");
	refused(WS_GET WS_HOST "Upgrade: websocket2\r\n" WS_CONN WS_KEY WS_VER "\r\n", 400, "Upgrade");
	refused(WS_GET WS_HOST WS_UP WS_CONN WS_KEY "Sec-WebSocket-Version: 8\r\n\r\n", 426, NULL);
	refused(WS_GET WS_HOST WS_UP WS_CONN WS_KEY "Sec-WebSocket-Version: 130\r\n\r\n", 426, NULL);
	refused(WS_GET WS_HOST WS_UP WS_CONN WS_KEY "Sec-WebSocket-Version: 13, 8\r\n\r\n", 426, NULL);
	refused(WS_GET WS_HOST WS_UP WS_CONN WS_KEY "\r\n", 400, "Sec-WebSocket-Version");
	refused(WS_GET WS_HOST WS_UP WS_CONN WS_VER "\r\n", 400, "Sec-WebSocket-Key");
	/* keys that are not 16 bytes of base64: 15, 17 and 18 bytes, none,
	 * unpadded, 16 bytes by the count but not base64, bad characters and
	 * padding, a key and more */
	static const char *const bad_keys[] = {
		"AAAAAAAAAAAAAAAAAAAA", /* 15 bytes */
		"AAAAAAAAAAAAAAAAAAAAAAA=", /* 17 bytes */
		"AAAAAAAAAAAAAAAAAAAAAAAA", /* 18 bytes */
		"",
		"dGhlIHNhbXBsZSBub25jZQ",
		"AAAAAAAAAAAAAAAAAAAAAAAA==",
		"AAAAAAAAAAAAAAAAAAAAAAA==",
		"dGhlIHNhbXBsZSBub25jZ-==",
		"dGhlIHNhbXBs_SBub25jZQ==",
		"dGhlIHNhbXBs ZSBub25jZQ=",
		"dGhlIHNhbXBsZSBub25jZ=Q=",
		"dGhlIHNhbXBsZSBub25jZQ=A",
		"dGhlIHNhbXBsZSBub25j=Q==",
		"dGhlIHNhbXBsZSBub25jZ===",
		"========================",
		"dGhlIHNhbXBsZSBub25jZQ==dGhl",
	};
	for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
		char req[512];
		snprintf(req, sizeof req, WS_GET WS_UP WS_CONN "Sec-WebSocket-Key: %s\r\n" WS_VER "\r\n", bad_keys[i]);
		refused(req, 400, "Sec-WebSocket-Key");
	}
	/* a NUL inside the key */
	{
		static const char req[] = WS_GET WS_UP WS_CONN "Sec-WebSocket-Key: dGhlIHNhbXBs\0SBub25jZQ==\r\n" WS_VER "\r\n";
		proto_ws_handshake hs;
		ck_assert_int_eq(proto_ws_handshake_parse(req, sizeof req - 1, &hs), 400);
	}
	/* a NUL behind a token is no part of it */
	{
		static const char req[] = WS_GET "Upgrade: websocket\r\nConnection: Upgrade\0\r\n" WS_KEY WS_VER "\r\n";
		proto_ws_handshake hs;
		ck_assert_int_eq(proto_ws_handshake_parse(req, sizeof req - 1, &hs), 400);
	}
	/* a header line without a name and a colon */
	refused(WS_GET WS_UP WS_CONN "Upgrade websocket\r\n" WS_KEY WS_VER "\r\n", 400, "colon");
	refused(WS_GET WS_UP WS_CONN ": websocket\r\n" WS_KEY WS_VER "\r\n", 400, "colon");
}
END_TEST

/* The answer's text, with its Content-Length checked against the body. */
static char *reply_text(const proto_ws_handshake *hs)
{
	static char text[1024];
	proto_buf b = { 0 };
	proto_ws_handshake_reply(hs, &b);
	ck_assert_uint_lt(b.len, sizeof text);
	memcpy(text, b.p, b.len);
	text[b.len] = 0;
	ck_assert_uint_eq(strlen(text), b.len); /* no NUL inside */
	proto_buf_free(&b);
	char *end = strstr(text, "\r\n\r\n");
	ck_assert_ptr_nonnull(end);
	const char *body = end + 4;
	const char *cl = strstr(text, "\r\nContent-Length: ");
	if (hs->status == 101) {
		ck_assert_ptr_null(cl);
		ck_assert_str_eq(body, "");
	} else {
		ck_assert_ptr_nonnull(cl);
		ck_assert(cl < end);
		ck_assert_ptr_null(strstr(cl + 1, "\r\nContent-Length:")); /* only one */
		ck_assert_uint_eq(strtoul(cl + 18, NULL, 10), strlen(body));
		ck_assert_uint_gt(strlen(body), 0);
		ck_assert_ptr_nonnull(strstr(text, "\r\nConnection: close\r\n"));
	}
	return text;
}

START_TEST(ws_handshake_replies)
{
	proto_ws_handshake hs;
	ck_assert_int_eq(hs_parse(WS_GET WS_HOST WS_UP WS_CONN WS_KEY WS_VER "\r\n", &hs), 101);
	const char *t = reply_text(&hs);
	ck_assert_str_eq(t, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
	                    "Sec-WebSocket-Accept: " WS_ACCEPT "\r\n\r\n");

	ck_assert_int_eq(hs_parse(WS_GET WS_HOST WS_UP WS_CONN WS_KEY "Sec-WebSocket-Version: 8\r\n\r\n", &hs), 426);
	t = reply_text(&hs);
	ck_assert_msg(!strncmp(t, "HTTP/1.1 426 Upgrade Required\r\n", 31), "%s", t);
	ck_assert_ptr_nonnull(strstr(t, "\r\nSec-WebSocket-Version: 13\r\n"));
	ck_assert_ptr_nonnull(strstr(t, hs.why));

	ck_assert_int_eq(hs_parse(WS_GET WS_HOST WS_CONN WS_KEY WS_VER "\r\n", &hs), 400);
	t = reply_text(&hs);
	ck_assert_msg(!strncmp(t, "HTTP/1.1 400 Bad Request\r\n", 26), "%s", t);
	ck_assert_ptr_null(strstr(t, "Sec-WebSocket-Version"));
	ck_assert_ptr_null(strstr(t, "Sec-WebSocket-Accept"));
	char want[256];
	snprintf(want, sizeof want, "\r\n\r\n%s\n", hs.why);
	ck_assert_ptr_nonnull(strstr(t, want));

	/* the statuses the daemon sets itself */
	memset(&hs, 0, sizeof hs);
	hs.status = 403;
	hs.why = "this page's Origin is not one carcd serves (--ws-origin)";
	t = reply_text(&hs);
	ck_assert_msg(!strncmp(t, "HTTP/1.1 403 Forbidden\r\n", 24), "%s", t);
	hs.status = 431;
	hs.why = "the request and its headers are over 8192 bytes";
	t = reply_text(&hs);
	ck_assert_msg(!strncmp(t, "HTTP/1.1 431 Request Header Fields Too Large\r\n", 46), "%s", t);
	/* no why: the reason is the body */
	hs.status = 400;
	hs.why = NULL;
	t = reply_text(&hs);
	ck_assert_ptr_nonnull(strstr(t, "\r\n\r\nBad Request\n"));
}
END_TEST

/* A valid header: every shorter prefix needs more; with it whole, or
 * with more bytes behind it, it is read. */
static void frame_ok(const uint8_t *p, size_t head, int fin, int opcode, uint64_t len)
{
	proto_ws_frame f;
	uint8_t buf[32];
	/* each prefix with junk behind it: a reader that looks past n sees
	 * a length that breaks the rules, or a different one */
	for (int junk = 0; junk < 256; junk += 255)
		for (size_t n = 0; n < head; n++) {
			memset(buf, junk, sizeof buf);
			memcpy(buf, p, n);
			if (proto_ws_frame_head(buf, n, &f) != 0) ck_abort_msg("a %zu-byte prefix of a %zu-byte header is not 0", n, head);
		}
	memcpy(buf, p, head);
	memset(buf + head, 0xa5, sizeof buf - head);
	for (size_t n = head; n <= sizeof buf; n += sizeof buf - head) {
		ck_assert_int_eq(proto_ws_frame_head(buf, n, &f), (int)head);
		ck_assert_int_eq(f.fin, fin);
		ck_assert_int_eq(f.opcode, opcode);
		ck_assert_uint_eq(f.len, len);
		ck_assert(!memcmp(f.mask, p + head - 4, 4));
	}
}

static void frame_bad(const uint8_t *p, size_t n)
{
	proto_ws_frame f;
	int rc = proto_ws_frame_head(p, n, &f);
	if (rc != -1) ck_abort_msg("%d for a bad header beginning %02x %02x", rc, p[0], p[1]);
	ck_assert_ptr_nonnull(f.why);
	ck_assert_uint_gt(strlen(f.why), 0);
}

START_TEST(ws_frame_head)
{
	/* RFC 6455 5.7: a masked "Hello" */
	static const uint8_t hello[] = { 0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58 };
	frame_ok(hello, 6, 1, PROTO_WS_TEXT, 5);
	uint8_t pay[5];
	memcpy(pay, hello + 6, 5);
	proto_ws_unmask(pay, 5, hello + 2, 0);
	ck_assert(!memcmp(pay, "Hello", 5));
	/* 7-bit, 16-bit and 64-bit lengths; control frames up to 125 bytes,
	 * in the longer forms too */
	static const struct {
		uint8_t head[14];
		size_t n;
		int fin, opcode;
		uint64_t len;
	} heads[] = {
		/* 7-bit lengths: 0 and 125 */
		{ { 0x82, 0x80, 1, 2, 3, 4 }, 6, 1, PROTO_WS_BINARY, 0 },
		{ { 0x02, 0xfd, 1, 2, 3, 4 }, 6, 0, PROTO_WS_BINARY, 125 },
		/* 16-bit lengths */
		{ { 0x81, 0xfe, 0x00, 0x7e, 9, 8, 7, 6 }, 8, 1, PROTO_WS_TEXT, 126 },
		{ { 0x00, 0xfe, 0xff, 0xff, 0xde, 0xad, 0xbe, 0xef }, 8, 0, PROTO_WS_CONT, 65535 },
		/* 64-bit lengths */
		{ { 0x82, 0xff, 0, 0, 0, 0, 0, 1, 0, 0, 0xaa, 0xbb, 0xcc, 0xdd }, 14, 1, PROTO_WS_BINARY, 65536 },
		{ { 0x80, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 1, 0, 0, 1 }, 14, 1, PROTO_WS_CONT, 0x7ffffffffffffffeull },
		{ { 0x01, 0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 1, 2, 3, 4 }, 14, 0, PROTO_WS_TEXT, 0x0102030405060708ull },
		/* control frames up to 125 bytes, in the 16-bit form too */
		{ { 0x89, 0x80, 1, 2, 3, 4 }, 6, 1, PROTO_WS_PING, 0 },
		{ { 0x8a, 0xfd, 1, 2, 3, 4 }, 6, 1, PROTO_WS_PONG, 125 },
		{ { 0x88, 0xfe, 0x00, 0x7d, 1, 2, 3, 4 }, 8, 1, PROTO_WS_CLOSE, 125 },
		{ { 0x89, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x05, 1, 2, 3, 4 }, 14, 1, PROTO_WS_PING, 5 },
	};
	for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
		frame_ok(heads[i].head, heads[i].n, heads[i].fin, heads[i].opcode, heads[i].len);

	/* refused: unmasked */
	static const uint8_t unmasked[] = { 0x81, 0x05, 'H', 'e', 'l', 'l', 'o' };
	frame_bad(unmasked, sizeof unmasked);
	static const uint8_t unmasked0[] = { 0x88, 0x00 };
	frame_bad(unmasked0, sizeof unmasked0);
	/* reserved bits, each alone */
	for (int rsv = 0x10; rsv <= 0x40; rsv <<= 1) {
		uint8_t h[] = { (uint8_t)(0x81 | rsv), 0x80, 1, 2, 3, 4 };
		frame_bad(h, sizeof h);
	}
	/* unknown opcodes, final or not */
	for (int op = 3; op <= 15; op++) {
		if (op >= 8 && op <= 10) continue;
		uint8_t h[] = { (uint8_t)(0x80 | op), 0x80, 1, 2, 3, 4 };
		frame_bad(h, sizeof h);
		h[0] = (uint8_t)op;
		frame_bad(h, sizeof h);
	}
	/* a control frame of 126 bytes, each length form */
	static const uint8_t ping126[] = { 0x89, 0xfe, 0x00, 0x7e, 1, 2, 3, 4 };
	frame_bad(ping126, sizeof ping126);
	static const uint8_t close126[] = { 0x88, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x7e, 1, 2, 3, 4 };
	frame_bad(close126, sizeof close126);
	static const uint8_t pong64k[] = { 0x8a, 0xfe, 0xff, 0xff, 1, 2, 3, 4 };
	frame_bad(pong64k, sizeof pong64k);
	/* fragmented control frames */
	static const uint8_t fping[] = { 0x09, 0x80, 1, 2, 3, 4 };
	frame_bad(fping, sizeof fping);
	static const uint8_t fclose[] = { 0x08, 0x82, 1, 2, 3, 4 };
	frame_bad(fclose, sizeof fclose);
	/* a 64-bit length with its top bit set */
	static const uint8_t top[] = { 0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4 };
	frame_bad(top, sizeof top);
	static const uint8_t top2[] = { 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4 };
	frame_bad(top2, sizeof top2);
}
END_TEST

START_TEST(ws_unmask_offsets)
{
	static const uint8_t mask[4] = { 0x37, 0xfa, 0x21, 0x3d };
	uint8_t src[61], whole[61], parts[61];
	for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 29 + 7);
	memcpy(whole, src, sizeof src);
	proto_ws_unmask(whole, sizeof whole, mask, 0);
	for (size_t i = 0; i < sizeof src; i++) ck_assert_uint_eq(whole[i], src[i] ^ mask[i % 4]);
	/* in two pieces split anywhere, and in three */
	for (size_t k = 0; k <= sizeof src; k++) {
		memcpy(parts, src, sizeof src);
		proto_ws_unmask(parts, k, mask, 0);
		proto_ws_unmask(parts + k, sizeof src - k, mask, k);
		ck_assert_msg(!memcmp(parts, whole, sizeof whole), "split at %zu", k);
		for (size_t j = k; j <= sizeof src; j += 3) {
			memcpy(parts, src, sizeof src);
			proto_ws_unmask(parts, k, mask, 0);
			proto_ws_unmask(parts + k, j - k, mask, k);
			proto_ws_unmask(parts + j, sizeof src - j, mask, j);
			ck_assert_msg(!memcmp(parts, whole, sizeof whole), "split at %zu and %zu", k, j);
		}
	}
	/* an offset past 4 GiB into a long payload */
	memcpy(parts, src, sizeof src);
	proto_ws_unmask(parts + 1, sizeof src - 1, mask, (1ull << 32) + 1);
	proto_ws_unmask(parts, 1, mask, 0);
	ck_assert(!memcmp(parts, whole, sizeof whole));
	/* twice is nothing */
	proto_ws_unmask(parts, sizeof parts, mask, 0);
	ck_assert(!memcmp(parts, src, sizeof src));
}
END_TEST

START_TEST(ws_server_frames)
{
	static const size_t sizes[] = { 0, 1, 125, 126, 127, 65535, 65536, 70000 };
	uint8_t *payload = malloc(70000);
	ck_assert_ptr_nonnull(payload);
	for (size_t i = 0; i < 70000; i++) payload[i] = (uint8_t)(i * 7 + i / 251);
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		size_t n = sizes[s];
		size_t want = n < 126 ? 2 : n < 65536 ? 4 : 10;
		int opcode = s & 1 ? PROTO_WS_BINARY : PROTO_WS_TEXT;
		uint8_t head[PROTO_WS_SERVER_HEAD + 4];
		memset(head, 0xee, sizeof head);
		ck_assert_uint_eq(proto_ws_server_head(head, opcode, n), want);
		ck_assert_uint_eq(head[want], 0xee); /* nothing written past it */
		ck_assert_uint_eq(head[0], 0x80 | opcode); /* final, no RSV bits */
		if (n < 126) {
			ck_assert_uint_eq(head[1], n); /* unmasked */
		} else if (n < 65536) {
			ck_assert_uint_eq(head[1], 126);
			ck_assert_uint_eq((size_t)head[2] << 8 | head[3], n);
		} else {
			ck_assert_uint_eq(head[1], 127);
			uint64_t len = 0;
			for (int i = 2; i < 10; i++) len = len << 8 | head[i];
			ck_assert_uint_eq(len, n);
		}
		/* as a client would send it (masked with zeros), the header reads back */
		uint8_t masked[PROTO_WS_SERVER_HEAD + 4] = { 0 };
		memcpy(masked, head, want);
		masked[1] |= 0x80;
		proto_ws_frame f;
		ck_assert_int_eq(proto_ws_frame_head(masked, want + 4, &f), (int)want + 4);
		ck_assert_uint_eq(f.len, n);
		ck_assert_int_eq(f.opcode, opcode);
		ck_assert_int_eq(f.fin, 1);
		/* the whole frame: the same header, then the payload */
		proto_buf b = { 0 };
		proto_ws_frame_add(&b, opcode, n ? payload : NULL, n);
		ck_assert_uint_eq(b.len, want + n);
		ck_assert(!memcmp(b.p, head, want));
		ck_assert(!n || !memcmp(b.p + want, payload, n));
		proto_buf_free(&b);
	}
	/* a pong carries the ping's payload */
	proto_buf b = { 0 };
	proto_ws_frame_add(&b, PROTO_WS_PONG, "abc", 3);
	ck_assert_uint_eq(b.len, 5);
	ck_assert(!memcmp(b.p, "\x8a\x03" "abc", 5));
	proto_buf_free(&b);
	free(payload);
}
END_TEST

/* What a peer's close reason must be: UTF-8 throughout. */
START_TEST(utf8_ok)
{
	ck_assert(proto_utf8_ok((const uint8_t *)"", 0));
	ck_assert(proto_utf8_ok((const uint8_t *)"bye", 3));
	ck_assert(proto_utf8_ok((const uint8_t *)"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb2", 14));
	ck_assert(!proto_utf8_ok((const uint8_t *)"\xff\xfe", 2));
	ck_assert(!proto_utf8_ok((const uint8_t *)"caf\xc3", 4));           /* cut inside a character */
	ck_assert(!proto_utf8_ok((const uint8_t *)"\xc0\xaf", 2));         /* overlong */
	ck_assert(!proto_utf8_ok((const uint8_t *)"\xed\xa0\x80", 3));     /* a surrogate */
	ck_assert(!proto_utf8_ok((const uint8_t *)"ok\x80", 3));            /* a lone continuation */
}
END_TEST

START_TEST(ws_head_end)
{
	static const struct {
		const char *text;
		size_t end;
	} cases[] = {
		{ "GET / HTTP/1.1\r\nHost: x\r\n\r\nrest", 27 },
		{ "GET / HTTP/1.1\nHost: x\n\nrest", 24 },
		{ "GET / HTTP/1.1\r\nHost: x\n\r\n", 26 },
		{ "GET / HTTP/1.1\r\nHost: x\r\n\r", 0 },
		{ "GET / HTTP/1.1\r\nHost: x\r\n", 0 },
		{ "GET / HTTP/1.1\r\n", 0 },
		{ "", 0 },
		{ "\n\n", 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_uint_eq(proto_ws_head_end(cases[i].text, strlen(cases[i].text)), cases[i].end);
	/* the end must lie inside the bytes given */
	const char *t = "GET / HTTP/1.1\r\n\r\n";
	for (size_t n = 0; n < strlen(t); n++) ck_assert_uint_eq(proto_ws_head_end(t, n), 0);
	ck_assert_uint_eq(proto_ws_head_end(t, strlen(t)), strlen(t));
}
END_TEST

START_TEST(ws_close_frames)
{
	proto_buf b = { 0 };
	proto_ws_close_add(&b, PROTO_WS_NORMAL, "bye");
	ck_assert_uint_eq(b.len, 7);
	ck_assert(!memcmp(b.p, "\x88\x05\x03\xe8" "bye", 7));
	proto_buf_reset(&b);
	proto_ws_close_add(&b, PROTO_WS_PROTOCOL_ERROR, NULL);
	ck_assert_uint_eq(b.len, 4);
	ck_assert(!memcmp(b.p, "\x88\x02\x03\xea", 4));
	proto_buf_reset(&b);
	proto_ws_close_add(&b, PROTO_WS_TOO_BIG, "");
	ck_assert_uint_eq(b.len, 4);
	ck_assert(!memcmp(b.p, "\x88\x02\x03\xf1", 4));
	proto_buf_reset(&b);
	/* a reason over 123 bytes is cut so that the payload is 125 */
	char why[301];
	for (int i = 0; i < 300; i++) why[i] = (char)('a' + i % 26);
	why[300] = 0;
	for (size_t wn = 122; wn <= 300; wn++) {
		char saved = why[wn];
		why[wn] = 0;
		proto_ws_close_add(&b, 4000, why);
		size_t pay = wn < 123 ? wn + 2 : 125;
		ck_assert_uint_eq(b.len, 2 + pay);
		ck_assert_uint_eq(b.p[0], 0x88);
		ck_assert_uint_eq(b.p[1], pay);
		ck_assert_uint_eq(b.p[2], 4000 >> 8);
		ck_assert_uint_eq(b.p[3], 4000 & 255);
		ck_assert(!memcmp(b.p + 4, why, pay - 2));
		why[wn] = saved;
		proto_buf_reset(&b);
	}
	/* a reason of two-byte characters is cut before one that would not fit
	 * whole: the payload stays UTF-8 (62 x U+00E9 is 124 bytes) */
	char accents[125];
	for (int i = 0; i < 62; i++) accents[2 * i] = (char)0xc3, accents[2 * i + 1] = (char)0xa9;
	accents[124] = 0;
	proto_ws_close_add(&b, 1000, accents);
	ck_assert_uint_eq(b.p[1], 124);
	ck_assert(!memcmp(b.p + 4, accents, 122));
	proto_buf_reset(&b);
	/* code 0: no payload at all (not even with a reason) */
	proto_ws_close_add(&b, 0, NULL);
	ck_assert_uint_eq(b.len, 2);
	ck_assert(!memcmp(b.p, "\x88\x00", 2));
	proto_buf_reset(&b);
	proto_ws_close_add(&b, 0, "ignored");
	ck_assert_uint_eq(b.len, 2);
	ck_assert(!memcmp(b.p, "\x88\x00", 2));
	proto_buf_free(&b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("proto");
	TCase *t = tcase_create("guard");
	tcase_add_test(t, guard_complete);
	tcase_add_test(t, guard_truncated);
	tcase_add_test(t, guard_resumes);
	tcase_add_test(t, guard_four_billion);
	tcase_add_test(t, guard_depth);
	tcase_add_test(t, guard_c1);
	tcase_add_test(t, guard_oversize);
	tcase_add_test(t, guard_every_type);
	tcase_add_test(t, guard_extension_sizes);
	tcase_add_test(t, guard_declared_at_the_limit);
	tcase_add_test(t, guard_says_what_is_too_large);
	tcase_add_test(t, guard_full_but_unfinished);
	suite_add_tcase(s, t);
	t = tcase_create("codec");
	tcase_add_test(t, mp_request);
	tcase_add_test(t, json_forms);
	tcase_add_test(t, json_bad);
	tcase_add_test(t, json_lone_surrogates);
	tcase_add_test(t, writers);
	tcase_add_test(t, writers_utf8);
	tcase_add_test(t, mp_writer_sizes);
	tcase_add_test(t, mp_writer_shortest);
	tcase_add_test(t, writers_utf8_every_position);
	tcase_add_test(t, params);
	tcase_add_test(t, setup_shapes);
	tcase_add_test(t, mp_value);
	suite_add_tcase(s, t);
	t = tcase_create("game");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, moves);
	tcase_add_test(t, moves_round_trip);
	tcase_add_test(t, expansion_moves_round_trip);
	tcase_add_test(t, explain_edge);
	suite_add_tcase(s, t);
	t = tcase_create("sha256");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, sha256_vectors);
	suite_add_tcase(s, t);
	t = tcase_create("websocket");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, ws_sha1_vectors);
	tcase_add_test(t, ws_base64);
	tcase_add_test(t, ws_accept_example);
	tcase_add_test(t, ws_handshake_good);
	tcase_add_test(t, ws_handshake_refused);
	tcase_add_test(t, ws_handshake_replies);
	tcase_add_test(t, ws_frame_head);
	tcase_add_test(t, ws_unmask_offsets);
	tcase_add_test(t, ws_server_frames);
	tcase_add_test(t, ws_close_frames);
	tcase_add_test(t, ws_head_end);
	tcase_add_test(t, utf8_ok);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

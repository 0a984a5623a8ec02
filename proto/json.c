/*
 * json.c - the line protocol: one JSON message per line, for people with
 * nc or socat, shell scripts and jq.  jansson parses; the writer is our
 * own, so it can emit straight from a value tree and never fails on bytes
 * a MessagePack client put in a string.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"

/* depth: how deep j is, counted in arrays and objects (the envelope is 1)
 * as MessagePack's guard counts them: scalars do not count. */
static proto_val *from_json(proto_arena *a, json_t *j, int depth, proto_decoded *d)
{
	if (depth > PROTO_MAX_DEPTH && (json_is_array(j) || json_is_object(j))) {
		d->code = PROTO_E_LIMIT;
		d->why = "arrays and objects nest deeper than 16";
		return NULL;
	}
	switch (json_typeof(j)) {
	case JSON_NULL: return pv_nil(a);
	case JSON_TRUE: return pv_bool(a, 1);
	case JSON_FALSE: return pv_bool(a, 0);
	case JSON_INTEGER: return pv_int(a, json_integer_value(j));
	case JSON_REAL: return pv_float(a, json_real_value(j));
	case JSON_STRING: return pv_wire_str(a, json_string_value(j), json_string_length(j));
	case JSON_ARRAY: {
		proto_val *v = pv_array(a);
		size_t i;
		json_t *m;
		json_array_foreach(j, i, m) {
			proto_val *x = from_json(a, m, depth + 1, d);
			if (!x) return NULL;
			pv_push(v, x);
		}
		return v;
	}
	case JSON_OBJECT: {
		proto_val *v = pv_map(a);
		const char *k;
		json_t *m;
		size_t kn;
		json_object_keylen_foreach(j, k, kn, m) {
			proto_val *x = from_json(a, m, depth + 1, d);
			if (!x) return NULL;
			pv_setn(v, proto_wire_strndup(a, k, kn), kn, x);
		}
		return v;
	}
	}
	d->code = PROTO_E_BAD_REQUEST;
	d->why = "unexpected JSON value";
	return NULL;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* The end of the JSON number at s[i] (i itself when there is none). */
static size_t number_end(const char *s, size_t n, size_t i)
{
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == 'e' || s[i] == 'E'))
		i++;
	return i;
}

/* An array nesting too deep to be read (past 16, or past jansson's own
 * 2048) still names its msgid when it starts `[number, msgid,`: that goes
 * to *rq, so that the client waiting on it hears why (PROTOCOL.md 2). */
static void msgid_of_deep(proto_arena *a, const char *s, size_t n, proto_request *rq)
{
	size_t i = 0, from, to;
	while (i < n && is_space(s[i])) i++;
	if (i == n || s[i++] != '[') return;
	while (i < n && is_space(s[i])) i++;
	from = i;
	if ((i = number_end(s, n, from)) == from) return; /* the type: a number, or no request */
	while (i < n && is_space(s[i])) i++;
	if (i == n || s[i++] != ',') return;
	while (i < n && is_space(s[i])) i++;
	from = i;
	if ((to = number_end(s, n, from)) == from) return;
	json_error_t err;
	json_t *id = json_loadb(s + from, to - from, JSON_DECODE_ANY, &err);
	proto_decoded ignored = { PROTO_OK, NULL, 0, 0 };
	proto_val *v = id ? from_json(a, id, 2, &ignored) : NULL;
	if (v) rq->has_id = proto_msgid_of(v, &rq->msgid);
	json_decref(id);
}

static int hex4(const char *s, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int d = proto_hex_digit(s[i]);
		if (d < 0) return 0;
		*v = *v << 4 | (unsigned)d;
	}
	return 1;
}

/* A copy of the JSON text with each \u escape of a lone surrogate (a high
 * one not followed by a low one, or a low one alone) written \ufffd, the
 * replacement character, as a UTF-8 encoder writes a string that holds
 * one (a JavaScript string cut in the middle of an emoji, which
 * JSON.stringify escapes so); NULL when the text has none.  Same length,
 * so jansson's columns still hold. */
static char *lone_surrogates_replaced(proto_arena *a, const char *s, size_t n)
{
	char *out = NULL;
	int in_string = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"') {
			in_string = !in_string;
			continue;
		}
		if (!in_string || s[i] != '\\' || i + 1 >= n) continue;
		unsigned v, low;
		if (s[i + 1] != 'u' || i + 6 > n || !hex4(s + i + 2, &v)) {
			i++; /* \" \\ and the others: the next character is escaped */
			continue;
		}
		if (v >= 0xd800 && v <= 0xdbff && i + 12 <= n && s[i + 6] == '\\' && s[i + 7] == 'u' && hex4(s + i + 8, &low) &&
		    low >= 0xdc00 && low <= 0xdfff) {
			i += 11; /* a pair */
			continue;
		}
		if (v >= 0xd800 && v <= 0xdfff) {
			if (!out) {
				out = proto_arena_alloc(a, n);
				memcpy(out, s, n);
			}
			memcpy(out + i + 2, "fffd", 4);
		}
		i += 5;
	}
	return out;
}

/* Parses one JSON text: a whole envelope (depth 1; rq gets its msgid when
 * it is too deep), or the params of a shorthand (depth 2, where they sit
 * in an envelope; rq NULL).  `col0`: the characters of the line before
 * the text, which a bad JSON error's column counts in. */
static proto_val *parse(proto_arena *a, const char *s, size_t n, int col0, int depth, proto_decoded *d,
                        proto_request *rq)
{
	json_error_t err;
	size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL;
	json_t *j = json_loadb(s, n, flags, &err);
	for (int again = 0; !j && again < 2; again++) {
		const char *fixed;
		if (json_error_code(&err) == json_error_numeric_overflow && !(flags & JSON_DECODE_INT_AS_REAL))
			/* valid JSON with an integer past 64 bits: read its numbers as
			 * reals, so that the parameter is refused as out of range
			 * (invalid_params), as MessagePack's would be */
			flags |= JSON_DECODE_INT_AS_REAL;
		else if (!strncmp(err.text, "invalid Unicode", 15) && (fixed = lone_surrogates_replaced(a, s, n)))
			s = fixed; /* JSON allows a lone surrogate escape; jansson does not */
		else
			break;
		j = json_loadb(s, n, flags, &err);
	}
	if (!j && json_error_code(&err) == json_error_stack_overflow) {
		/* jansson gives up past its own depth (2048); that is nesting
		 * deeper than 16 as much as 17 is, so the same answer */
		d->code = PROTO_E_LIMIT;
		d->why = "arrays and objects nest deeper than 16";
		if (rq) msgid_of_deep(a, s, n, rq);
		return NULL;
	}
	if (!j) {
		d->code = PROTO_E_BAD_REQUEST;
		d->why = proto_arena_printf(a, "bad JSON at column %d: %s", col0 + err.column, err.text);
		return NULL;
	}
	proto_val *v = from_json(a, j, depth, d);
	if (!v && rq && d->code == PROTO_E_LIMIT) msgid_of_deep(a, s, n, rq);
	json_decref(j);
	return v;
}

static int is_method_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

proto_decoded proto_json_decode(proto_arena *a, const char *line, size_t n, proto_request *rq)
{
	proto_decoded d = { PROTO_OK, NULL, 0, 0 };
	memset(rq, 0, sizeof *rq);
	const char *start = line; /* what the line has before the JSON is ASCII: a column a byte */
	while (n && is_space(line[n - 1])) n--;
	while (n && is_space(*line)) line++, n--;
	if (!n) {
		d.skip = 1;
		return d;
	}
	if (*line == '[') {
		proto_val *env = parse(a, line, n, (int)(line - start), 1, &d, rq);
		return env ? proto_envelope(a, env, rq) : d;
	}
	size_t m = 0;
	while (m < n && is_method_char(line[m])) m++;
	/* a method name starts with a letter; a bare JSON literal is no request */
	int literal = (m == 4 && (!memcmp(line, "null", 4) || !memcmp(line, "true", 4))) || (m == 5 && !memcmp(line, "false", 5));
	int letter = (line[0] >= 'a' && line[0] <= 'z') || (line[0] >= 'A' && line[0] <= 'Z');
	if (!m || !letter || literal || (m < n && !is_space(line[m]))) {
		d.code = PROTO_E_BAD_REQUEST;
		d.why = "a line is `method {params}`, a bare `method`, or a JSON array [0, msgid, method, params]";
		return d;
	}
	rq->method = proto_arena_strndup(a, line, m);
	while (m < n && is_space(line[m])) m++;
	if (m == n) {
		rq->params = pv_map(a);
		return d;
	}
	proto_val *params = parse(a, line + m, n - m, (int)(line + m - start), 2, &d, NULL);
	if (!params) return d;
	/* as in an envelope: an object, an array holding one, [] or null */
	rq->params = proto_params_of(a, params);
	if (!rq->params) {
		d.code = PROTO_E_BAD_REQUEST;
		d.why = PROTO_PARAMS_SHAPE;
	}
	return d;
}

/* An HTTP method: a token of RFC 9110's characters. */
static size_t http_token(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && (isalnum((unsigned char)s[k]) || (s[k] && strchr("!#$%&'*+-.^_`|~", s[k])))) k++;
	return k;
}

/* A request line of any method, `METHOD TARGET HTTP/1.1` (HTTP/2's
 * preface `PRI * HTTP/2.0` too), or HTTP/0.9's `GET /path`.  No carcd
 * line is either: a method is followed by JSON, which neither a `/` nor a
 * word and ` HTTP/` after it are. */
int proto_is_http(const char *line, size_t n)
{
	size_t k = http_token(line, n);
	if (!k || k >= n || line[k] != ' ') return 0;
	if (k == 3 && !memcmp(line, "GET", 3) && k + 1 < n && line[k + 1] == '/') return 1;
	size_t t = k + 1; /* the target: no space, no control byte */
	while (t < n && (unsigned char)line[t] > ' ' && line[t] != 0x7f) t++;
	if (t == k + 1 || n - t < 7 || memcmp(line + t, " HTTP/", 6)) return 0;
	const char *v = line + t + 6, *end = line + n; /* HTTP/1.1, HTTP/2 */
	if (!isdigit((unsigned char)*v++)) return 0;
	if (v < end && *v == '.') {
		v++;
		if (v == end || !isdigit((unsigned char)*v++)) return 0;
	}
	return v == end;
}

/* ---- writing -------------------------------------------------------------- */

/* A JSON string; bytes that are not UTF-8 (a MessagePack client may send
 * any) become U+FFFD, so every line we write is valid JSON. */
static void put_string(proto_buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = (const uint8_t *)s;
	proto_buf_addc(out, '"');
	size_t i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\') run++;
		if (run > i) { /* plain ASCII in one go: the common case */
			proto_buf_add(out, p + i, run - i);
			i = run;
			continue;
		}
		uint8_t c = p[i];
		if (c == '"' || c == '\\') {
			proto_buf_addc(out, '\\');
			proto_buf_addc(out, c);
			i++;
		} else if (c < 0x20) {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			if (c == '\n') proto_buf_add(out, "\\n", 2);
			else if (c == '\t') proto_buf_add(out, "\\t", 2);
			else if (c == '\r') proto_buf_add(out, "\\r", 2);
			else proto_buf_add(out, e, 6);
			i++;
		} else {
			int len = proto_utf8_len(p + i, n - i);
			if (len) {
				proto_buf_add(out, p + i, (size_t)len);
				i += (size_t)len;
			} else {
				proto_buf_add(out, "\\ufffd", 6);
				i++;
			}
		}
	}
	proto_buf_addc(out, '"');
}

static void put(proto_buf *out, const proto_val *v)
{
	char num[32];
	int k;
	switch (v->type) {
	case PV_NIL: proto_buf_add(out, "null", 4); break;
	case PV_BOOL:
		if (v->u.b) proto_buf_add(out, "true", 4);
		else proto_buf_add(out, "false", 5);
		break;
	case PV_INT:
		k = snprintf(num, sizeof num, "%lld", (long long)v->u.i);
		proto_buf_add(out, num, (size_t)k);
		break;
	case PV_FLOAT:
		if (v->u.f != v->u.f || v->u.f - v->u.f != 0) { /* NaN or infinite: JSON has neither */
			proto_buf_add(out, "null", 4);
			break;
		}
		k = snprintf(num, sizeof num, "%.17g", v->u.f);
		proto_buf_add(out, num, (size_t)k);
		break;
	case PV_STR: put_string(out, v->u.s, v->n); break;
	case PV_ARRAY:
		proto_buf_addc(out, '[');
		for (const proto_val *m = v->u.c.first; m; m = m->next) {
			put(out, m);
			if (m->next) proto_buf_addc(out, ',');
		}
		proto_buf_addc(out, ']');
		break;
	case PV_MAP:
		proto_buf_addc(out, '{');
		for (const proto_val *m = v->u.c.first; m; m = m->next) {
			put_string(out, m->key, m->klen);
			proto_buf_addc(out, ':');
			put(out, m);
			if (m->next) proto_buf_addc(out, ',');
		}
		proto_buf_addc(out, '}');
		break;
	}
}

void proto_json_encode(const proto_val *v, proto_buf *out) { put(out, v); }

/*
 * ws.c - WebSocket (RFC 6455) for pages in a browser, which cannot open a
 * plain socket: the opening handshake, the frame header, the server's
 * frames.  The daemon keeps the state of a connection; everything here
 * works on bytes, so the unit tests and the fuzzer drive it from buffers.
 *
 * Inside the frames the messages are the same as on a plain socket: text
 * messages are JSON lines, binary messages a stream of MessagePack.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "proto.h"

/* ---- SHA-1 (FIPS 180-4): only the handshake's Sec-WebSocket-Accept uses it -------- */

static uint32_t rol(uint32_t x, int n) { return x << n | x >> (32 - n); }

static void sha1_block(uint32_t *h, const uint8_t *p)
{
	uint32_t w[80];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20) f = (b & c) | (~b & d), k = 0x5a827999;
		else if (i < 40) f = b ^ c ^ d, k = 0x6ed9eba1;
		else if (i < 60) f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
		else f = b ^ c ^ d, k = 0xca62c1d6;
		uint32_t t = rol(a, 5) + f + e + k + w[i];
		e = d, d = c, c = rol(b, 30), b = a, a = t;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void proto_sha1(const void *data, size_t n, uint8_t out[20])
{
	uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	proto_md_hash(data, n, h, 5, sha1_block, out);
}

/* ---- base64 (RFC 4648, with padding) -------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void proto_base64(const uint8_t *p, size_t n, char *out)
{
	for (; n >= 3; p += 3, n -= 3, out += 4) {
		out[0] = b64[p[0] >> 2];
		out[1] = b64[(p[0] & 3) << 4 | p[1] >> 4];
		out[2] = b64[(p[1] & 15) << 2 | p[2] >> 6];
		out[3] = b64[p[2] & 63];
	}
	if (n) {
		out[0] = b64[p[0] >> 2];
		out[1] = b64[(p[0] & 3) << 4 | (n > 1 ? p[1] >> 4 : 0)];
		out[2] = n > 1 ? b64[(p[1] & 15) << 2] : '=';
		out[3] = '=';
		out += 4;
	}
	*out = 0;
}

/* The bytes a base64 text of n characters stands for, or -1 when it is
 * not base64 (padded to a multiple of 4, no other bytes). */
static long base64_len(const char *s, size_t n)
{
	if (n % 4) return -1;
	size_t pad = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '=' && i >= n - 2 && (i == n - 1 || s[n - 1] == '=')) pad++;
		else if (pad || !s[i] || !strchr(b64, s[i])) return -1;
	}
	return (long)(n / 4 * 3 - pad);
}

/* ---- the opening handshake ------------------------------------------------------------- */

/* Appended to the client's key before SHA-1 (RFC 6455 section 1.3). */
static const char ws_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

void proto_ws_accept(const char *key, size_t n, char out[29])
{
	char buf[128];
	if (n > sizeof buf - sizeof ws_guid) n = sizeof buf - sizeof ws_guid;
	memcpy(buf, key, n);
	memcpy(buf + n, ws_guid, sizeof ws_guid - 1);
	uint8_t d[20];
	proto_sha1(buf, n + sizeof ws_guid - 1, d);
	proto_base64(d, sizeof d, out);
}

/* s[0..n) without blanks at either end. */
static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t')) (*s)++, (*n)--;
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t')) (*n)--;
}

static int same_ci(const char *a, size_t n, const char *b) { return n == strlen(b) && !strncasecmp(a, b, n); }

/* Whether a comma-separated header value holds the token (any case). */
static int has_token(const char *v, size_t n, const char *token)
{
	while (n) {
		const char *comma = memchr(v, ',', n);
		size_t len = comma ? (size_t)(comma - v) : n;
		const char *t = v;
		size_t tn = len;
		trim(&t, &tn);
		if (same_ci(t, tn, token)) return 1;
		if (!comma) break;
		v += len + 1;
		n -= len + 1;
	}
	return 0;
}

static int refuse(proto_ws_handshake *hs, int status, const char *why)
{
	hs->status = status;
	hs->why = why;
	return status;
}

int proto_ws_handshake_parse(const char *req, size_t n, proto_ws_handshake *hs)
{
	memset(hs, 0, sizeof *hs);
	/* the request line: GET TARGET HTTP/1.1 (or a later 1.x) */
	const char *eol = memchr(req, '\n', n);
	size_t ln = eol ? (size_t)(eol - req) : n;
	if (ln && req[ln - 1] == '\r') ln--;
	if (ln < 14 || memcmp(req, "GET ", 4))
		return refuse(hs, 400, "a WebSocket begins with `GET PATH HTTP/1.1`");
	const char *sp = memchr(req + 4, ' ', ln - 4);
	if (!sp || sp == req + 4 || (size_t)(req + ln - sp) != 9 || memcmp(sp, " HTTP/1.", 8) || !isdigit((unsigned char)sp[8]) ||
	    sp[8] == '0')
		return refuse(hs, 400, "a WebSocket begins with `GET PATH HTTP/1.1`");
	int upgrade = 0, connection = 0, version = 0;
	const char *p = eol ? eol + 1 : req + n, *end = req + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *line = p;
		p = nl ? nl + 1 : end;
		if (len && line[len - 1] == '\r') len--;
		if (!len) break; /* the blank line that ends the header block */
		const char *colon = memchr(line, ':', len);
		if (!colon || colon == line) return refuse(hs, 400, "a header line without a name and a colon");
		const char *name = line, *v = colon + 1;
		size_t nn = (size_t)(colon - line), vn = len - nn - 1;
		trim(&v, &vn);
		if (same_ci(name, nn, "upgrade")) upgrade |= has_token(v, vn, "websocket");
		else if (same_ci(name, nn, "connection")) connection |= has_token(v, vn, "upgrade");
		else if (same_ci(name, nn, "sec-websocket-version")) version = vn == 2 && !memcmp(v, "13", 2) ? 1 : -1;
		else if (same_ci(name, nn, "sec-websocket-key")) hs->key = v, hs->key_len = vn;
		else if (same_ci(name, nn, "origin")) hs->origin = v, hs->origin_len = vn;
	}
	if (!upgrade) return refuse(hs, 400, "no `Upgrade: websocket` header: this port speaks WebSocket only");
	if (!connection) return refuse(hs, 400, "no `Connection: Upgrade` header");
	if (version < 0) return refuse(hs, 426, "carcd speaks WebSocket version 13 only");
	if (!version) return refuse(hs, 400, "no `Sec-WebSocket-Version: 13` header");
	if (!hs->key) return refuse(hs, 400, "no `Sec-WebSocket-Key` header");
	if (base64_len(hs->key, hs->key_len) != 16) return refuse(hs, 400, "`Sec-WebSocket-Key` is not 16 bytes in base64");
	proto_ws_accept(hs->key, hs->key_len, hs->accept);
	hs->status = 101;
	return 101;
}

void proto_ws_handshake_reply(const proto_ws_handshake *hs, proto_buf *out)
{
	char head[256];
	int n;
	if (hs->status == 101) {
		n = snprintf(head, sizeof head,
		             "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		             "Sec-WebSocket-Accept: %s\r\n\r\n",
		             hs->accept);
		proto_buf_add(out, head, (size_t)n);
		return;
	}
	const char *reason = hs->status == 403   ? "Forbidden"
	                     : hs->status == 426 ? "Upgrade Required"
	                     : hs->status == 431 ? "Request Header Fields Too Large"
	                                         : "Bad Request";
	const char *why = hs->why ? hs->why : reason;
	n = snprintf(head, sizeof head,
	             "HTTP/1.1 %d %s\r\n%sContent-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
	             "Connection: close\r\n\r\n",
	             hs->status, reason, hs->status == 426 ? "Sec-WebSocket-Version: 13\r\n" : "", strlen(why) + 1);
	proto_buf_add(out, head, (size_t)n);
	proto_buf_add(out, why, strlen(why));
	proto_buf_addc(out, '\n');
}

size_t proto_ws_head_end(const char *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (p[i] != '\n') continue;
		if (p[i + 1] == '\n') return i + 2;
		if (p[i + 1] == '\r' && i + 2 < n && p[i + 2] == '\n') return i + 3;
	}
	return 0;
}

/* ---- frames ---------------------------------------------------------------------------- */

static int frame_error(proto_ws_frame *f, const char *why)
{
	f->why = why;
	return -1;
}

int proto_ws_frame_head(const uint8_t *p, size_t n, proto_ws_frame *f)
{
	memset(f, 0, sizeof *f);
	if (n < 2) return 0;
	f->fin = p[0] >> 7;
	f->opcode = p[0] & 15;
	if (p[0] & 0x70) return frame_error(f, "reserved bits set (carcd takes no extension)");
	if (f->opcode != PROTO_WS_CONT && f->opcode != PROTO_WS_TEXT && f->opcode != PROTO_WS_BINARY &&
	    f->opcode != PROTO_WS_CLOSE && f->opcode != PROTO_WS_PING && f->opcode != PROTO_WS_PONG)
		return frame_error(f, "unknown opcode");
	if (!(p[1] & 0x80)) return frame_error(f, "a client's frame must be masked");
	uint64_t len = p[1] & 127;
	size_t head = 2;
	if (len == 126) {
		if (n < 4) return 0;
		len = (uint64_t)p[2] << 8 | p[3];
		head = 4;
	} else if (len == 127) {
		if (n < 10) return 0;
		if (p[2] & 0x80) return frame_error(f, "a length with its top bit set");
		len = 0;
		for (int i = 2; i < 10; i++) len = len << 8 | p[i];
		head = 10;
	}
	if (f->opcode >= PROTO_WS_CLOSE && (len > 125 || !f->fin))
		return frame_error(f, len > 125 ? "a control frame over 125 bytes" : "a fragmented control frame");
	if (n < head + 4) return 0;
	memcpy(f->mask, p + head, 4);
	f->len = len;
	return (int)(head + 4);
}

void proto_ws_unmask(uint8_t *p, size_t n, const uint8_t mask[4], uint64_t at)
{
	for (size_t i = 0; i < n; i++) p[i] ^= mask[(at + i) & 3];
}

size_t proto_ws_server_head(uint8_t out[PROTO_WS_SERVER_HEAD], int opcode, size_t n)
{
	out[0] = (uint8_t)(0x80 | opcode);
	if (n < 126) {
		out[1] = (uint8_t)n;
		return 2;
	}
	if (n < 65536) {
		out[1] = 126;
		out[2] = (uint8_t)(n >> 8);
		out[3] = (uint8_t)n;
		return 4;
	}
	out[1] = 127;
	for (int i = 0; i < 8; i++) out[2 + i] = (uint8_t)((uint64_t)n >> (56 - 8 * i));
	return 10;
}

void proto_ws_frame_add(proto_buf *out, int opcode, const void *payload, size_t n)
{
	uint8_t head[PROTO_WS_SERVER_HEAD];
	proto_buf_add(out, head, proto_ws_server_head(head, opcode, n));
	if (n) proto_buf_add(out, payload, n);
}

void proto_ws_close_add(proto_buf *out, int code, const char *why)
{
	uint8_t body[125];
	size_t n = 0;
	if (code) {
		body[0] = (uint8_t)(code >> 8);
		body[1] = (uint8_t)code;
		n = 2;
		size_t wn = why ? strlen(why) : 0;
		if (wn > sizeof body - 2) { /* cut at a character: the reason is UTF-8 */
			wn = sizeof body - 2;
			while (wn && ((uint8_t)why[wn] & 0xc0) == 0x80) wn--;
		}
		if (wn) memcpy(body + 2, why, wn);
		n += wn;
	}
	proto_ws_frame_add(out, PROTO_WS_CLOSE, body, n);
}

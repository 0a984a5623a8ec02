/*
 * fuzz_proto.c - a libFuzzer target for the wire: the first byte picks the
 * encoding as on a socket; the rest runs through the frame guard, the
 * decoders and the whole method table (games included), exactly as
 * conn.c drives them, only from a buffer.
 *
 * An input that begins with "GET " is a WebSocket connection instead: its
 * header block goes through the handshake, and after a 101 the bytes are
 * a client's frames, read as conn.c's pull_ws reads them; the payloads of
 * the data messages are then served as a plain connection's bytes (text
 * messages as lines, binary ones as a MessagePack stream).
 *
 * Built by `make fuzz`.  With -DFUZZ_STANDALONE it has its own main(): it
 * runs each file named, and with a directory and -runs=N it also runs N
 * random mutations of the files in it (a poor man's fuzzer for gcc).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

static server srv;
static int fake_conn;
static games_subs subs;
static int ws_mode; /* the connection speaks WebSocket: replies go out as frames */

static proto_enc enc_of(void *c)
{
	(void)c;
	return (proto_enc)fake_conn;
}

/* A server's frame in b[0..n): final, unmasked, of the opcode, its length
 * in the shortest form, the payload p[0..pn) behind it. */
static void check_server_frame(const uint8_t *b, size_t n, int opcode, const uint8_t *p, size_t pn)
{
	if (n < 2 || b[0] != (0x80 | opcode) || (b[1] & 0x80)) abort();
	uint64_t len = b[1];
	size_t head = 2;
	if (len == 126) {
		head = 4;
		if (n < head) abort();
		len = (uint64_t)b[2] << 8 | b[3];
		if (len < 126) abort();
	} else if (len == 127) {
		head = 10;
		if (n < head || (b[2] & 0x80)) abort();
		len = 0;
		for (int i = 2; i < 10; i++) len = len << 8 | b[i];
		if (len < 65536) abort();
	}
	if (len != pn || head + pn != n || (pn && memcmp(b + head, p, pn))) abort();
}

static void deliver(void *c, const uint8_t *p, size_t n)
{
	(void)c;
	/* every reply must be one well-formed message of its encoding */
	if (fake_conn == PROTO_ENC_MSGPACK) {
		size_t len;
		if (proto_guard_check(p, n, (size_t)1 << 30, &len) != PROTO_GUARD_DONE || len != n) abort();
	} else if (!n || p[n - 1] != '\n' || memchr(p, '\n', n - 1)) {
		abort();
	}
	if (ws_mode) {
		/* as conn.c's deliver_hook: one frame a message, a line without its newline */
		static proto_buf b;
		int text = fake_conn == PROTO_ENC_JSON;
		size_t pn = text ? n - 1 : n;
		proto_buf_reset(&b);
		proto_ws_frame_add(&b, text ? PROTO_WS_TEXT : PROTO_WS_BINARY, p, pn);
		check_server_frame(b.p, b.len, text ? PROTO_WS_TEXT : PROTO_WS_BINARY, p, pn);
	}
}

/* A connection's bytes, served as conn.c's step() serves them: MessagePack
 * through the guard, or JSON lines.  Over WebSocket a last line without its
 * newline is a message that never ended, and is lost. */
static void serve(const uint8_t *data, size_t size)
{
	size_t off = 0;
	while (off < size) {
		proto_request rq;
		proto_decoded d;
		if (fake_conn == PROTO_ENC_MSGPACK) {
			size_t len = 0;
			proto_guard_rc rc = proto_guard_check(data + off, size - off, 4096, &len);
			if (rc != PROTO_GUARD_DONE) break;
			d = proto_mp_decode(&srv.arena, data + off, len, &rq);
			off += len;
		} else {
			const uint8_t *nl = memchr(data + off, '\n', size - off);
			if (!nl && ws_mode) break;
			size_t n = nl ? (size_t)(nl - (data + off)) : size - off;
			proto_is_http((const char *)data + off, n);
			/* conn.c takes a \r before the newline off (plain connections
			 * are fed as they always were here) */
			size_t ln = ws_mode && n && data[off + n - 1] == '\r' ? n - 1 : n;
			d = proto_json_decode(&srv.arena, (const char *)data + off, ln, &rq);
			off += n + 1;
		}
		if (d.code) methods_reply_error(&srv, &fake_conn, &rq, d.code, d.why);
		else if (!d.skip) methods_handle(&srv, &fake_conn, &subs, &rq);
		proto_arena_reset(&srv.arena);
		if (d.close) break;
		/* --game-timeout 1: now and then, as if the games had been
		 * left alone long enough, while their watchers still watch */
		if (off <= size && (data[off - 1] & 7) == 7) methods_expire(&srv, games_now() + 2);
	}
}

/* ---- WebSocket ------------------------------------------------------------------ */

/* The first `what` in p[0..n), or NULL (memmem is a GNU extension). */
static const uint8_t *find(const uint8_t *p, size_t n, const char *what)
{
	size_t wn = strlen(what);
	for (size_t i = 0; i + wn <= n; i++)
		if (!memcmp(p + i, what, wn)) return p + i;
	return NULL;
}

/* The handshake's reply, as conn.c sends it, checked. */
static void ws_reply(const proto_ws_handshake *hs)
{
	static proto_buf b;
	proto_buf_reset(&b);
	proto_ws_handshake_reply(hs, &b);
	char start[16];
	int sn = snprintf(start, sizeof start, "HTTP/1.1 %d ", hs->status);
	if (b.len < (size_t)sn + 4 || memcmp(b.p, start, (size_t)sn)) abort();
	const uint8_t *end = find(b.p, b.len, "\r\n\r\n");
	if (!end) abort();
	size_t body = b.len - (size_t)(end + 4 - b.p);
	if (hs->status == 101) {
		if (body || !find(b.p, b.len, hs->accept)) abort();
	} else {
		const uint8_t *cl = find(b.p, b.len, "\r\nContent-Length: ");
		if (!cl || cl > end || strtoul((const char *)cl + 18, NULL, 10) != body) abort();
	}
}

/* The bytes after the header block: a client's frames, read as pull_ws
 * reads them into the connection's buffer `stream`.  The server's frames
 * (pongs, the close) are made too, into `out`.  Returns the encoding the
 * first data message fixed, or -1 when none came. */
static int ws_frames(uint8_t *p, size_t size, proto_buf *stream, proto_buf *out)
{
	int enc = -1, msg = 0; /* msg: the opcode of the data message being read, or 0 */
	size_t pos = 0;
	while (pos < size) {
		proto_ws_frame f;
		int head = proto_ws_frame_head(p + pos, size - pos, &f);
		if (head < 0) {
			if (!f.why) abort();
			proto_ws_close_add(out, PROTO_WS_PROTOCOL_ERROR, f.why);
			break;
		}
		if (!head) break; /* the connection ends inside a header */
		if (head < 6 || head > 14 || f.opcode > PROTO_WS_PONG || (f.len >> 63)) abort();
		/* a header read whole needs more bytes when cut anywhere */
		for (int k = 0; k < head; k++) {
			proto_ws_frame g;
			if (proto_ws_frame_head(p + pos, (size_t)k, &g)) abort();
		}
		pos += (size_t)head;
		size_t avail = size - pos;
		if (f.opcode >= PROTO_WS_CLOSE) {
			if (f.len > 125 || !f.fin) abort();
			size_t n = (size_t)f.len;
			if (avail < n) break; /* conn.c waits for a control frame whole */
			proto_ws_unmask(p + pos, n, f.mask, 0);
			const uint8_t *cp = p + pos;
			pos += n;
			if (f.opcode == PROTO_WS_PING) {
				size_t at = out->len;
				proto_ws_frame_add(out, PROTO_WS_PONG, cp, n);
				check_server_frame(out->p + at, out->len - at, PROTO_WS_PONG, cp, n);
			} else if (f.opcode == PROTO_WS_CLOSE) {
				/* as ws_control: the codes a peer may send (RFC 6455 7.4) */
				int code = n >= 2 ? cp[0] << 8 | cp[1] : PROTO_WS_NORMAL;
				if (n == 1 || code < 1000 || code >= 5000 ||
				    (code < 3000 && (code > 1014 || code == 1004 || code == 1005 || code == 1006)))
					proto_ws_close_add(out, PROTO_WS_PROTOCOL_ERROR, "a close frame with a bad code");
				else
					proto_ws_close_add(out, code, NULL);
				break; /* the requests already in are served, nothing more is read */
			}
			continue;
		}
		if (f.opcode == PROTO_WS_CONT ? !msg : msg) {
			proto_ws_close_add(out, PROTO_WS_PROTOCOL_ERROR,
			                   msg ? "a new message inside a fragmented one" : "a continuation with no message begun");
			break;
		}
		if (f.opcode != PROTO_WS_CONT) {
			int e = f.opcode == PROTO_WS_TEXT ? PROTO_ENC_JSON : PROTO_ENC_MSGPACK;
			if (enc >= 0 && enc != e) {
				proto_ws_close_add(out, PROTO_WS_UNSUPPORTED, "a message of the other encoding");
				break;
			}
			enc = e;
			msg = f.opcode;
		}
		size_t n = f.len < avail ? (size_t)f.len : avail;
		/* in two reads, as a frame may arrive in pieces: the mask goes on
		 * from where the first stopped */
		size_t split = n / 3 + (n & 1);
		proto_ws_unmask(p + pos, split, f.mask, 0);
		proto_ws_unmask(p + pos + split, n - split, f.mask, split);
		proto_buf_add(stream, p + pos, n);
		pos += n;
		if (n < f.len) break; /* the connection ends inside the frame */
		if (f.fin) {
			if (msg == PROTO_WS_TEXT) proto_buf_addc(stream, '\n');
			msg = 0;
		}
	}
	return enc;
}

static void ws_connection(const uint8_t *data, size_t size)
{
	/* the header block, up to its blank line, in a buffer of its own size */
	size_t lim = size < PROTO_WS_MAX_HEAD ? size : PROTO_WS_MAX_HEAD;
	size_t end = proto_ws_head_end((const char *)data, lim);
	size_t hn = end ? end : lim;
	char *head = proto_xmalloc(hn);
	memcpy(head, data, hn);
	proto_ws_handshake hs;
	/* without its blank line conn.c refuses the block unread; it is
	 * parsed here all the same (the parser takes any bytes) */
	int status = proto_ws_handshake_parse(head, hn, &hs);
	if (status != hs.status) abort();
	if (status == 101) {
		if (strlen(hs.accept) != 28 || !hs.key || hs.key_len != 24) abort();
	} else if (!hs.why || (status != 400 && status != 426)) {
		abort();
	}
	if (hs.key && (hs.key < head || hs.key + hs.key_len > head + hn)) abort();
	if (hs.origin && (hs.origin < head || hs.origin + hs.origin_len > head + hn)) abort();
	ws_reply(&hs);
	free(head);
	if (!end || status != 101) return;

	/* the frames, from a copy (unmasking writes) */
	size_t rest = size - hn;
	uint8_t *frames = proto_xmalloc(rest ? rest : 1);
	memcpy(frames, data + hn, rest);
	static proto_buf stream, out;
	proto_buf_reset(&stream);
	proto_buf_reset(&out);
	int enc = ws_frames(frames, rest, &stream, &out);
	free(frames);
	if (enc < 0 || !stream.len) return;
	/* the payloads, in a buffer of their own size */
	uint8_t *bytes = proto_xmalloc(stream.len);
	memcpy(bytes, stream.p, stream.len);
	fake_conn = enc;
	ws_mode = 1;
	serve(bytes, stream.len);
	ws_mode = 0;
	free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready) {
		methods_init(&srv);
		srv.games.max = 64;
		srv.game_timeout = 1;
		srv.conn_enc = enc_of;
		srv.deliver = deliver;
		ready = 1;
	}
	if (!size) return 0;
	if (size >= 4 && !memcmp(data, "GET ", 4)) {
		fake_conn = PROTO_ENC_JSON; /* as enc_hook, before the first message */
		ws_connection(data, size);
	} else {
		fake_conn = proto_enc_detect(data[0]);
		serve(data, size);
	}
	/* keep the registry small between inputs */
	if (srv.games.n > 32) {
		games_unsubscribe_all(&srv.games, &fake_conn, &subs);
		games_free_all(&srv.games);
	}
	return 0;
}

#ifdef FUZZ_STANDALONE
static size_t read_file(const char *path, uint8_t **out)
{
	FILE *f = fopen(path, "rb");
	if (!f) return 0;
	size_t cap = 4096, n = 0;
	uint8_t *p = proto_xmalloc(cap);
	size_t k;
	while ((k = fread(p + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) p = proto_xrealloc(p, cap *= 2);
	}
	fclose(f);
	*out = p;
	return n;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Flips, inserts, deletes and splices bytes: enough to walk the guard's
 * and the decoders' edges from a corpus of real requests. */
static size_t mutate(uint8_t *p, size_t n, size_t cap)
{
	int steps = 1 + (int)(next() % 4);
	for (int s = 0; s < steps; s++) {
		size_t at = n ? next() % n : 0;
		switch (next() % 5) {
		case 0: if (n) p[at] ^= (uint8_t)(1u << (next() % 8)); break;
		case 1: if (n) p[at] = (uint8_t)next(); break;
		case 2: if (n < cap) { memmove(p + at + 1, p + at, n - at); p[at] = (uint8_t)next(); n++; } break;
		case 3: if (n) { memmove(p + at, p + at + 1, n - at - 1); n--; } break;
		case 4: if (n) p[at] = "\x00\xc1\xdd\xdf\xdb\xff\x7f\x80\x90\xc0\n[{\""[next() % 14]; break;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	long runs = 0;
	int nfiles = 0;
	static uint8_t *files[4096];
	static size_t sizes[4096];
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "-runs=", 6)) {
			runs = atol(argv[i] + 6);
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			if (nfiles < 4096 && (sizes[nfiles] = read_file(argv[i], &files[nfiles])) > 0) nfiles++;
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d)) && nfiles < 4096) {
			if (e->d_name[0] == '.') continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			if ((sizes[nfiles] = read_file(path, &files[nfiles])) > 0) nfiles++;
		}
		closedir(d);
	}
	for (int i = 0; i < nfiles; i++) LLVMFuzzerTestOneInput(files[i], sizes[i]);
	static uint8_t buf[1 << 16];
	for (long r = 0; r < runs && nfiles; r++) {
		int i = (int)(next() % (uint64_t)nfiles);
		size_t n = sizes[i] < sizeof buf / 2 ? sizes[i] : sizeof buf / 2;
		memcpy(buf, files[i], n);
		n = mutate(buf, n, sizeof buf);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("fuzz_proto: %d files, %ld mutations, no crash\n", nfiles, runs);
	for (int i = 0; i < nfiles; i++) free(files[i]);
	games_free_all(&srv.games);
	methods_free(&srv);
	return 0;
}
#endif

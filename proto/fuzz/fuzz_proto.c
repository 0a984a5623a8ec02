/*
 * fuzz_proto.c - a libFuzzer target for the wire: the first byte picks the
 * encoding as on a socket; the rest runs through the frame guard, the
 * decoders and the whole method table (games included), exactly as
 * conn.c drives them, only from a buffer.
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

static proto_enc enc_of(void *c)
{
	(void)c;
	return (proto_enc)fake_conn;
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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	static games_subs subs;
	if (!ready) {
		methods_init(&srv);
		srv.games.max = 64;
		srv.game_timeout = 1;
		srv.conn_enc = enc_of;
		srv.deliver = deliver;
		ready = 1;
	}
	if (!size) return 0;
	fake_conn = proto_enc_detect(data[0]);
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
			size_t n = nl ? (size_t)(nl - (data + off)) : size - off;
			proto_is_http((const char *)data + off, n);
			d = proto_json_decode(&srv.arena, (const char *)data + off, n, &rq);
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

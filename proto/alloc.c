/*
 * alloc.c - memory for the wire and the daemon: allocation that aborts on
 * OOM, the per-request arena, and byte buffers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* A request's values live in chunks; most requests fit the first. */
#define ARENA_CHUNK (16u << 10)

struct proto_chunk {
	proto_chunk *next;
	size_t size;
	max_align_t data[];
};

static void out_of_memory(size_t n)
{
	fprintf(stderr, "carcd: out of memory (%zu bytes)\n", n);
	abort();
}

void *proto_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) out_of_memory(n);
	return p;
}

void *proto_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) out_of_memory(n * size);
	return p;
}

void *proto_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) out_of_memory(n);
	return q;
}

char *proto_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(proto_xmalloc(n), s, n);
}

/* ---- arena ----------------------------------------------------------------- */

void proto_arena_init(proto_arena *a)
{
	a->head = NULL;
	a->used = 0;
}

void *proto_arena_alloc(proto_arena *a, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!a->head || a->head->size - a->used < n) {
		size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		proto_chunk *c = proto_xmalloc(sizeof *c + size);
		c->size = size;
		c->next = a->head;
		a->head = c;
		a->used = 0;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += n;
	return p;
}

char *proto_arena_strndup(proto_arena *a, const char *s, size_t n)
{
	char *p = proto_arena_alloc(a, n + 1);
	if (n) memcpy(p, s, n); /* msgpack-c gives NULL for an empty string */
	p[n] = 0;
	return p;
}

char *proto_arena_printf(proto_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) n = 0;
	char *p = proto_arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* Keeps the oldest chunk (a standard-size one, unless a huge value came
 * first): the next request reuses it without a malloc. */
void proto_arena_reset(proto_arena *a)
{
	proto_chunk *c = a->head;
	if (!c) return;
	while (c->next) {
		proto_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = c;
	a->used = 0;
}

void proto_arena_free(proto_arena *a)
{
	proto_arena_reset(a);
	free(a->head);
	a->head = NULL;
}

/* ---- byte buffers ------------------------------------------------------------ */

static void buf_reserve(proto_buf *b, size_t n)
{
	if (b->cap - b->len >= n) return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < n) cap *= 2;
	b->p = proto_xrealloc(b->p, cap);
	b->cap = cap;
}

void proto_buf_add(proto_buf *b, const void *p, size_t n)
{
	if (!n) return;
	buf_reserve(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void proto_buf_addc(proto_buf *b, uint8_t c)
{
	buf_reserve(b, 1);
	b->p[b->len++] = c;
}

void proto_buf_reset(proto_buf *b) { b->len = 0; }

void proto_buf_free(proto_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

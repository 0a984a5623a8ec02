/*
 * conn.c - one connection: bytes in, requests out to the methods, replies
 * and notifications back, on libevent bufferevents.
 *
 * The first byte picks the encoding for good.  Input is pulled from the
 * bufferevent into a buffer of our own, so the frame guard and the line
 * splitter see contiguous bytes and resume where they stopped; a bounded
 * number of requests is served per turn of the loop, and a client that
 * does not read its replies stops being served (its output is paused) or,
 * past the output limit, is cut off, without slowing anyone else.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon.h"

/* Requests served per turn of the loop before others get theirs. */
#define REQUESTS_PER_TURN 32
/* Replies waiting past this pause a connection's requests until it reads
 * (or past half the server's output limit, if that is less), and it is
 * served again below a quarter of that.  Replies are never what cuts a
 * connection off: the pause bounds them.  Notifications still go out to a
 * paused connection, up to the output limit. */
#define OUTPUT_PAUSE (1u << 20)
/* libevent stops reading a socket whose input holds this much. */
#define INPUT_HIGH (256u << 10)
/* An input buffer this large is given back once empty. */
#define INPUT_KEEP (64u << 10)
/* A connection closed for bad input keeps reading (and dropping) what the
 * client is still sending for this long, so that its error reply is read
 * rather than lost to a reset. */
#define LINGER_SECONDS 2
/* Connections refused at the limit are logged at most this often (s). */
#define REFUSED_WARN_EVERY 60.0

typedef struct conn conn;
struct conn {
	struct bufferevent *bev;
	struct event *work;     /* more requests to serve, or the end */
	struct event *idle;
	int enc;                /* proto_enc; -1 before the first byte */
	proto_buf in;
	size_t off;             /* in.p[off..len) is not yet consumed */
	proto_guard guard;      /* MessagePack: the message at `off` */
	size_t scan;            /* JSON: bytes after `off` known to hold no newline */
	int skipping;           /* JSON: the rest of an over-long line is dropped */
	int eof;                /* the peer will send nothing more */
	int closing;            /* serve nothing more; close once the output is out */
	int dead;               /* close at once */
	int paused;             /* waiting for the peer to read its replies */
	int answering;          /* in a request of its own: output is its reply */
	int lingering;          /* replies out and our side shut: dropping input until EOF */
	games_subs subs;
	double last;            /* last request or notification */
	conn *prev, *next;
	char peer[64];
};

static server *srv;
static struct event_base *base;
static conn *conns;
static int shutting_down;
static void (*shutdown_done)(void);

static void conn_process(conn *c);

/* ---- life and death -------------------------------------------------------------- */

static void conn_free(conn *c)
{
	methods_conn_gone(srv, c, &c->subs);
	if (c->prev) c->prev->next = c->next;
	else conns = c->next;
	if (c->next) c->next->prev = c->prev;
	bufferevent_free(c->bev);
	event_free(c->work);
	event_free(c->idle);
	proto_buf_free(&c->in);
	log_debug("%s: closed", c->peer);
	free(c);
	srv->conns--;
	if (shutting_down && !conns && shutdown_done) shutdown_done();
}

/* Frees come from the loop, never from inside a call that still holds
 * the connection (a notification loop, a read callback). */
static void conn_kill(conn *c)
{
	c->dead = 1;
	c->closing = 1;
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	event_active(c->work, EV_TIMEOUT, 0);
}

static size_t out_len(conn *c) { return evbuffer_get_length(bufferevent_get_output(c->bev)); }

static size_t output_pause(void) { return srv->max_output / 2 < OUTPUT_PAUSE ? srv->max_output / 2 : OUTPUT_PAUSE; }
static size_t output_resume(void) { return output_pause() / 4; }

/* Bytes the peer sent that carcd has not read: in our buffer or still in
 * the socket's. */
static int input_pending(conn *c)
{
	int queued = 0;
	return evbuffer_get_length(bufferevent_get_input(c->bev)) ||
	       (ioctl(bufferevent_getfd(c->bev), FIONREAD, &queued) == 0 && queued > 0);
}

/* The replies are out.  A peer that has not finished sending would get
 * a reset from close() that can destroy the replies still in flight to
 * it, so we shut our side and drop its bytes until it is done.  At a
 * stop, only a peer with bytes carcd never read is waited for (requests
 * pipelined past what was served); the others are closed at once. */
static void conn_linger(conn *c)
{
	if (c->eof || c->dead || (shutting_down && !input_pending(c))) {
		conn_kill(c);
		return;
	}
	c->lingering = 1;
	shutdown(bufferevent_getfd(c->bev), SHUT_WR);
	bufferevent_disable(c->bev, EV_WRITE);
	struct evbuffer *input = bufferevent_get_input(c->bev);
	evbuffer_drain(input, evbuffer_get_length(input));
	bufferevent_enable(c->bev, EV_READ);
	struct timeval tv = { LINGER_SECONDS, 0 };
	evtimer_add(c->idle, &tv);
}

/* Serve nothing more; go once the replies are written. */
static void conn_finish(conn *c)
{
	c->closing = 1;
	/* nothing comes after the last reply: its games stop counting it as a
	 * watcher now, not when the peer is done */
	methods_conn_gone(srv, c, &c->subs);
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
	if (!out_len(c)) conn_linger(c);
}

static void work_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	conn *c = arg;
	if (c->dead) conn_free(c);
	else conn_process(c);
}

static void idle_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	conn *c = arg;
	if (c->lingering) {
		conn_kill(c);
		return;
	}
	double quiet = games_now() - c->last;
	if (quiet >= srv->idle_timeout) {
		log_debug("%s: idle for %d s, closed", c->peer, srv->idle_timeout);
		conn_kill(c);
		return;
	}
	double left = srv->idle_timeout - quiet;
	struct timeval tv = { (time_t)left, (suseconds_t)((left - (double)(time_t)left) * 1e6) };
	evtimer_add(c->idle, &tv);
}

/* ---- output ---------------------------------------------------------------------- */

static proto_enc enc_hook(void *conn_)
{
	conn *c = conn_;
	return c->enc < 0 ? PROTO_ENC_JSON : (proto_enc)c->enc;
}

static void deliver_hook(void *conn_, const uint8_t *p, size_t n)
{
	conn *c = conn_;
	if (c->dead) return;
	/* the limit is on notifications left unread (replies are bounded by
	 * the pause): one larger than it, to a peer that has read everything
	 * before, goes out */
	size_t unread = out_len(c);
	evbuffer_add(bufferevent_get_output(c->bev), p, n);
	c->last = games_now();
	if (!c->answering && unread && out_len(c) > srv->max_output) {
		log_warn("%s: more than %zu bytes unread, disconnected", c->peer, srv->max_output);
		conn_kill(c);
	}
}

static void write_cb(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn *c = arg;
	if (c->closing) {
		if (!out_len(c) && !c->lingering) conn_linger(c);
	} else if (c->paused && out_len(c) <= output_resume()) {
		c->paused = 0;
		conn_process(c);
	}
}

static void fatal(conn *c, proto_err code, const char *why)
{
	log_debug("%s: %s: %s; closing", c->peer, proto_strerror(code), why);
	methods_reply_error(srv, c, NULL, code, why);
	conn_finish(c);
}

/* ---- input ----------------------------------------------------------------------- */

/* Moves what libevent read into our buffer, up to one request past the
 * limits: past that the guard or the line splitter has refused it.
 * Returns the bytes moved. */
static size_t pull(conn *c)
{
	struct evbuffer *input = bufferevent_get_input(c->bev);
	size_t have = evbuffer_get_length(input);
	if (!have) return 0;
	size_t cap = (srv->max_request > srv->max_line + 2 ? srv->max_request : srv->max_line + 2) + 1;
	size_t pending = c->in.len - c->off;
	if (pending >= cap) return 0;
	if (c->off) { /* the guard and the line scan count from `off`: both survive this */
		memmove(c->in.p, c->in.p + c->off, pending);
		c->in.len = pending;
		c->off = 0;
	}
	size_t n = have < cap - pending ? have : cap - pending;
	if (c->in.cap - c->in.len < n) {
		size_t want = c->in.cap ? c->in.cap : 4096;
		while (want - c->in.len < n) want *= 2;
		c->in.p = proto_xrealloc(c->in.p, want);
		c->in.cap = want;
	}
	int got = evbuffer_remove(input, c->in.p + c->in.len, n);
	if (got <= 0) return 0;
	c->in.len += (size_t)got;
	return (size_t)got;
}

static void handle(conn *c, const proto_request *rq, proto_decoded d)
{
	c->answering = 1;
	if (d.code != PROTO_OK) {
		methods_reply_error(srv, c, rq, d.code, d.why);
		if (d.close) conn_finish(c);
	} else {
		methods_handle(srv, c, &c->subs, rq);
	}
	c->answering = 0;
}

/* A line's length without the \r that may end it (\r\n line ends, or a
 * last line cut before its \n). */
static size_t without_cr(const char *line, size_t n)
{
	return n && line[n - 1] == '\r' ? n - 1 : n;
}

/* Serves one line; 0 for a blank one, which is no request. */
static int json_line(conn *c, const char *line, size_t n)
{
	if (proto_is_http(line, n)) {
		/* a browser or a probe: nothing here speaks HTTP */
		log_debug("%s: HTTP request, closed", c->peer);
		conn_finish(c);
		return 1;
	}
	proto_request rq;
	proto_decoded d = proto_json_decode(&srv->arena, line, n, &rq);
	if (d.skip) return 0;
	handle(c, &rq, d);
	return 1;
}

/* STEP_BLANK: a blank line, read and ignored; it takes a share of the
 * turn, as a request does, but is no activity (--idle-timeout). */
enum { STEP_MORE, STEP_SERVED, STEP_DROPPED, STEP_BLANK };

/* Serves at most one request from the buffer. */
static int step(conn *c)
{
	uint8_t *p = c->in.p + c->off;
	size_t avail = c->in.len - c->off;
	if (!avail) return STEP_MORE;
	if (c->enc < 0) c->enc = proto_enc_detect(p[0]);
	if (c->enc == PROTO_ENC_MSGPACK) {
		size_t len = 0;
		switch (proto_guard_feed(&c->guard, p, avail, &len)) {
		case PROTO_GUARD_MORE: return STEP_MORE;
		case PROTO_GUARD_LIMIT: fatal(c, PROTO_E_LIMIT, c->guard.why); return STEP_SERVED;
		case PROTO_GUARD_BAD: fatal(c, PROTO_E_BAD_REQUEST, c->guard.why); return STEP_SERVED;
		case PROTO_GUARD_DONE: break;
		}
		proto_request rq;
		proto_decoded d = proto_mp_decode(&srv->arena, p, len, &rq);
		c->off += len;
		proto_guard_init(&c->guard, srv->max_request);
		handle(c, &rq, d);
		return STEP_SERVED;
	}
	uint8_t *nl = memchr(p + c->scan, '\n', avail - c->scan);
	if (!nl) {
		if (c->skipping) {
			c->off = c->in.len;
			c->scan = 0;
			return STEP_MORE;
		}
		/* a line may end in \r\n: one byte of slack before it is too long */
		if (avail > srv->max_line + 1) {
			methods_reply_error(srv, c, NULL, PROTO_E_LIMIT,
			                    proto_arena_printf(&srv->arena, "a line is at most %zu bytes; the rest of it is skipped", srv->max_line));
			c->skipping = 1;
			c->off = c->in.len;
			c->scan = 0;
			return STEP_SERVED;
		}
		c->scan = avail;
		return STEP_MORE;
	}
	size_t n = (size_t)(nl - p);
	c->off += n + 1;
	c->scan = 0;
	if (c->skipping) {
		c->skipping = 0;
		return STEP_DROPPED;
	}
	n = without_cr((const char *)p, n);
	if (n > srv->max_line) {
		methods_reply_error(srv, c, NULL, PROTO_E_LIMIT,
		                    proto_arena_printf(&srv->arena, "a line is at most %zu bytes", srv->max_line));
		return STEP_SERVED;
	}
	return json_line(c, (const char *)p, n) ? STEP_SERVED : STEP_BLANK;
}

/* The peer has shut its writing side and every whole request is served:
 * what is left is a truncated message (MessagePack) or a last line
 * without its newline (JSON). */
static void at_eof(conn *c)
{
	size_t left = c->in.len - c->off;
	if (left && !shutting_down) {
		if (c->enc == PROTO_ENC_MSGPACK) {
			fatal(c, PROTO_E_BAD_REQUEST, "the connection ended inside a message");
			return;
		}
		if (!c->skipping) {
			const char *line = (const char *)c->in.p + c->off;
			left = without_cr(line, left);
			if (left > srv->max_line)
				methods_reply_error(srv, c, NULL, PROTO_E_LIMIT, "the last line is over the line limit");
			else
				json_line(c, line, left);
			proto_arena_reset(&srv->arena);
		}
	}
	c->off = c->in.len;
	if (!c->closing) conn_finish(c);
}

static void conn_process(conn *c)
{
	int budget = shutting_down ? -1 : REQUESTS_PER_TURN;
	while (!c->closing) {
		/* also while shutting down: every request read is answered, and
		 * the peer must read the answers for the rest to come (one that
		 * never does is closed as idle, --idle-timeout) */
		if (out_len(c) > output_pause()) {
			/* write_cb brings us back when the peer has read */
			c->paused = 1;
			bufferevent_setwatermark(c->bev, EV_WRITE, output_resume(), 0);
			break;
		}
		if (budget == 0) {
			event_active(c->work, EV_TIMEOUT, 0);
			break;
		}
		pull(c);
		int r = step(c);
		proto_arena_reset(&srv->arena);
		if (r == STEP_SERVED || r == STEP_BLANK) {
			budget--;
			if (r == STEP_SERVED) c->last = games_now();
		} else if (r == STEP_MORE) {
			if (pull(c)) continue;
			if (c->eof || shutting_down) at_eof(c);
			break;
		}
	}
	/* give a large buffer back once it is empty */
	if (c->off == c->in.len) {
		c->off = c->in.len = 0;
		if (c->in.cap > INPUT_KEEP) proto_buf_free(&c->in);
	}
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	conn *c = arg;
	if (c->lingering) {
		struct evbuffer *input = bufferevent_get_input(bev);
		evbuffer_drain(input, evbuffer_get_length(input));
	} else if (!c->closing) {
		conn_process(c);
	}
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	conn *c = arg;
	if (what & BEV_EVENT_ERROR) {
		log_debug("%s: %s", c->peer, evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		conn_kill(c);
	} else if (what & BEV_EVENT_EOF) {
		c->eof = 1;
		if (c->lingering) conn_kill(c);
		else if (!c->closing) conn_process(c);
	}
}

/* ---- accepting ------------------------------------------------------------------- */

static void peer_name(int fd, char *out, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	snprintf(out, n, "fd %d", fd);
	if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0) return;
	char host[48];
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		evutil_inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
		snprintf(out, n, "%s:%d", host, ntohs(in->sin_port));
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *in = (struct sockaddr_in6 *)&ss;
		evutil_inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
		snprintf(out, n, "[%s]:%d", host, ntohs(in->sin6_port));
	} else if (ss.ss_family == AF_UNIX) {
		snprintf(out, n, "unix fd %d", fd);
	}
}

void conn_setup(server *s, struct event_base *b)
{
	srv = s;
	base = b;
	s->conn_enc = enc_hook;
	s->deliver = deliver_hook;
}

void conn_accept(int fd)
{
	if (shutting_down || srv->conns >= srv->max_connections) {
		/* closed at once: everyone already in is served as before */
		srv->conns_refused++;
		/* an operator must hear of it, but a flood must not flood the log */
		static double last_warned = -REFUSED_WARN_EVERY;
		static unsigned long unreported;
		unreported++;
		if (!shutting_down && games_now() - last_warned >= REFUSED_WARN_EVERY) {
			log_warn("connection refused: %d connections open, the --max-connections limit (%lu refused since the last warning)",
			         srv->conns, unreported);
			last_warned = games_now();
			unreported = 0;
		}
		close(fd);
		return;
	}
	evutil_make_socket_nonblocking(fd);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* fails harmlessly on Unix sockets */
	conn *c = proto_xcalloc(1, sizeof *c);
	c->enc = -1;
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		log_error("bufferevent_socket_new failed");
		close(fd);
		free(c);
		return;
	}
	c->work = event_new(base, -1, 0, work_cb, c);
	c->idle = evtimer_new(base, idle_cb, c);
	if (!c->work || !c->idle) {
		log_error("out of memory for a connection");
		abort();
	}
	proto_guard_init(&c->guard, srv->max_request);
	peer_name(fd, c->peer, sizeof c->peer);
	c->last = games_now();
	bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0, INPUT_HIGH);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	struct timeval tv = { srv->idle_timeout, 0 };
	evtimer_add(c->idle, &tv);
	c->next = conns;
	if (conns) conns->prev = c;
	conns = c;
	srv->conns++;
	srv->conns_total++;
	log_debug("%s: connected", c->peer);
}

void conn_shutdown(void (*done)(void))
{
	shutting_down = 1;
	shutdown_done = done;
	if (!conns) {
		done();
		return;
	}
	for (conn *c = conns; c; c = c->next)
		if (!c->closing) {
			bufferevent_disable(c->bev, EV_READ);
			/* serve what has been read, without the per-turn bound */
			event_active(c->work, EV_TIMEOUT, 0);
		}
}

void conn_free_all(void)
{
	shutdown_done = NULL;
	while (conns) conn_free(conns);
}

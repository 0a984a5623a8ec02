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
 *
 * A connection to a WebSocket listener first answers the handshake, then
 * takes the payloads of its data frames into the same buffer (a newline
 * after each text message), so the same line splitter and frame guard
 * serve it; each reply goes out as one frame.
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

/* A WebSocket connection's stages; 0 is a plain connection. */
enum { WS_HANDSHAKE = 1, WS_OPEN, WS_CLOSED /* our close frame is out */ };

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
	int ws;                 /* WS_*, or 0 */
	int ws_msg;             /* the opcode of the data message being read, or 0 between messages */
	int ws_fin;             /* the frame being read is its message's last */
	uint64_t ws_left;       /* payload bytes of that frame not yet read */
	uint64_t ws_at;         /* and read (for the mask) */
	uint8_t ws_mask[4];
	int ws_ending;          /* no frame is read any more: the requests in, then our close frame */
	int ws_code;            /* the close code to send: the peer's, or why carcd closes */
	const char *ws_why;     /* and its reason */
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

static void ws_send(conn *c, int opcode, const void *p, size_t n);

/* Serve nothing more; go once the replies (and a WebSocket's close frame)
 * are written. */
static void conn_finish(conn *c)
{
	if (c->ws == WS_OPEN) {
		int code = c->ws_code ? c->ws_code : shutting_down ? PROTO_WS_GOING_AWAY : PROTO_WS_NORMAL;
		proto_buf b = { 0 };
		proto_ws_close_add(&b, code, c->ws_why);
		evbuffer_add(bufferevent_get_output(c->bev), b.p, b.len);
		proto_buf_free(&b);
		c->ws = WS_CLOSED;
	}
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
		if (c->ws == WS_OPEN && !c->closing && !c->ws_ending) {
			/* a page cannot see a dropped socket's reason: it gets a
			 * close frame that says it, and LINGER_SECONDS to read it */
			log_debug("%s: idle for %d s, closing", c->peer, srv->idle_timeout);
			c->ws_code = PROTO_WS_NORMAL;
			c->ws_why = "idle too long (--idle-timeout)";
			conn_finish(c);
			struct timeval tv = { LINGER_SECONDS, 0 };
			if (!c->lingering && !c->dead) evtimer_add(c->idle, &tv);
			return;
		}
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
	if (c->ws) {
		if (c->ws != WS_OPEN) return; /* nothing follows a close frame */
		/* one message a frame; a line's newline is the frame's end */
		if (c->enc == PROTO_ENC_MSGPACK) ws_send(c, PROTO_WS_BINARY, p, n);
		else ws_send(c, PROTO_WS_TEXT, p, n && p[n - 1] == '\n' ? n - 1 : n);
	} else {
		evbuffer_add(bufferevent_get_output(c->bev), p, n);
	}
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

/* An error that ends the connection, after its reply: over WebSocket the
 * close frame says which (section 5's limit or bad_request). */
static void finish_for(conn *c, proto_err code)
{
	c->ws_code = code == PROTO_E_LIMIT ? PROTO_WS_TOO_BIG : PROTO_WS_BAD_DATA;
	c->ws_why = proto_strerror(code);
	conn_finish(c);
}

static void fatal(conn *c, proto_err code, const char *why)
{
	log_debug("%s: %s: %s; closing", c->peer, proto_strerror(code), why);
	methods_reply_error(srv, c, NULL, code, why);
	finish_for(c, code);
}

/* ---- input ----------------------------------------------------------------------- */

/* Our buffer holds at most one request past the limits: past that the
 * guard or the line splitter has refused it. */
static size_t in_cap(void) { return (srv->max_request > srv->max_line + 2 ? srv->max_request : srv->max_line + 2) + 1; }

/* Bytes our buffer takes now (up to `want`), made room for at its end. */
static size_t in_room(conn *c, size_t want)
{
	size_t pending = c->in.len - c->off;
	if (pending >= in_cap()) return 0;
	if (c->off) { /* the guard and the line scan count from `off`: both survive this */
		memmove(c->in.p, c->in.p + c->off, pending);
		c->in.len = pending;
		c->off = 0;
	}
	size_t n = want < in_cap() - pending ? want : in_cap() - pending;
	if (c->in.cap - c->in.len < n) {
		size_t grow = c->in.cap ? c->in.cap : 4096;
		while (grow - c->in.len < n) grow *= 2;
		c->in.p = proto_xrealloc(c->in.p, grow);
		c->in.cap = grow;
	}
	return n;
}

static size_t pull_ws(conn *c);

/* Moves what libevent read into our buffer, up to in_cap(); returns the
 * bytes moved. */
static size_t pull(conn *c)
{
	if (c->ws) return pull_ws(c);
	struct evbuffer *input = bufferevent_get_input(c->bev);
	size_t have = evbuffer_get_length(input);
	size_t n = have ? in_room(c, have) : 0;
	if (!n) return 0;
	int got = evbuffer_remove(input, c->in.p + c->in.len, n);
	if (got <= 0) return 0;
	c->in.len += (size_t)got;
	return (size_t)got;
}

/* ---- WebSocket ------------------------------------------------------------------- */

static void ws_send(conn *c, int opcode, const void *p, size_t n)
{
	uint8_t head[PROTO_WS_SERVER_HEAD];
	struct evbuffer *out = bufferevent_get_output(c->bev);
	evbuffer_add(out, head, proto_ws_server_head(head, opcode, n));
	evbuffer_add(out, p, n);
}

/* No frame is read any more (a close frame came, or one that breaks the
 * rules); the requests already in are served, as at the end of a plain
 * connection, then our close frame goes with this code. */
static void ws_end(conn *c, int code, const char *why)
{
	if (why) log_debug("%s: WebSocket: %s; closing", c->peer, why);
	c->ws_code = code;
	c->ws_why = why;
	c->ws_ending = 1;
	bufferevent_disable(c->bev, EV_READ);
}

static int origin_ok(const proto_ws_handshake *hs)
{
	if (!srv->n_ws_origins || !hs->origin) return 1;
	for (int i = 0; i < srv->n_ws_origins; i++)
		if (strlen(srv->ws_origins[i]) == hs->origin_len && !memcmp(srv->ws_origins[i], hs->origin, hs->origin_len))
			return 1;
	return 0;
}

/* The opening handshake, once its header block is in: 1 when the
 * connection is open.  Bytes that cannot begin a GET are refused at once,
 * not after a wait for a header block that never comes. */
static int ws_handshake(conn *c)
{
	struct evbuffer *input = bufferevent_get_input(c->bev);
	size_t have = evbuffer_get_length(input);
	size_t look = have < PROTO_WS_MAX_HEAD ? have : PROTO_WS_MAX_HEAD;
	const char *p = look ? (const char *)evbuffer_pullup(input, (ev_ssize_t)look) : "";
	size_t end = proto_ws_head_end(p, look);
	proto_ws_handshake hs = { 0 };
	if (!have && c->eof) { /* gone without a word */
		c->ws = WS_CLOSED;
		conn_finish(c);
		return 0;
	}
	if (memcmp(p, "GET ", look < 4 ? look : 4)) {
		hs.status = 400;
		hs.why = "this port speaks WebSocket only: a connection begins with `GET PATH HTTP/1.1`";
	} else if (end) {
		if (proto_ws_handshake_parse(p, end, &hs) == 101 && !origin_ok(&hs)) {
			hs.status = 403;
			hs.why = "this page's Origin is not one carcd serves (--ws-origin)";
		}
	} else if (have < PROTO_WS_MAX_HEAD && !c->eof) {
		return 0; /* more to come */
	} else {
		hs.status = have < PROTO_WS_MAX_HEAD ? 400 : 431;
		hs.why = hs.status == 431 ? "the request and its headers are over 8192 bytes" : "the request ended inside its headers";
	}
	proto_buf b = { 0 };
	proto_ws_handshake_reply(&hs, &b);
	evbuffer_add(bufferevent_get_output(c->bev), b.p, b.len);
	proto_buf_free(&b);
	if (hs.status == 101) {
		evbuffer_drain(input, end); /* hs points into it no more */
		c->ws = WS_OPEN;
		log_debug("%s: WebSocket open", c->peer);
		return 1;
	}
	char origin[96] = "";
	if (hs.status == 403) { /* which page: printable bytes only, it is the client's text */
		size_t n = hs.origin_len < sizeof origin - 12 ? hs.origin_len : sizeof origin - 12;
		memcpy(origin, " (Origin: ", 10);
		for (size_t i = 0; i < n; i++) origin[10 + i] = hs.origin[i] > ' ' && hs.origin[i] < 0x7f ? hs.origin[i] : '?';
		memcpy(origin + 10 + n, ")", 2);
	}
	log_debug("%s: WebSocket handshake refused, %d: %s%s", c->peer, hs.status, hs.why, origin);
	c->ws = WS_CLOSED; /* it never opened: no close frame */
	conn_finish(c);
	return 0;
}

/* The end of a data message: a text message is a line, and its newline
 * goes in even past the buffer's bound (one byte a message: pull_ws
 * reads no frame while the buffer is full). */
static size_t ws_message_end(conn *c)
{
	int text = c->ws_msg == PROTO_WS_TEXT;
	c->ws_msg = 0;
	if (text) proto_buf_addc(&c->in, '\n');
	return (size_t)text;
}

/* A control frame, whole in p[0..n). */
static void ws_control(conn *c, int opcode, const uint8_t *p, size_t n)
{
	if (opcode == PROTO_WS_PING) {
		ws_send(c, PROTO_WS_PONG, p, n);
	} else if (opcode == PROTO_WS_CLOSE) {
		int code = n >= 2 ? p[0] << 8 | p[1] : PROTO_WS_NORMAL;
		/* codes a peer may send (RFC 6455 7.4) */
		if (n == 1 || code < 1000 || code >= 5000 || (code < 3000 && (code > 1014 || code == 1004 || code == 1005 || code == 1006)))
			ws_end(c, PROTO_WS_PROTOCOL_ERROR, "a close frame with a bad code");
		else if (!proto_utf8_ok(p + 2, n > 2 ? n - 2 : 0))
			ws_end(c, PROTO_WS_BAD_DATA, "a close reason that is not UTF-8");
		else
			ws_end(c, code, NULL); /* answered with the peer's code */
	}
}

/* Moves the payloads of whole or partial data frames into our buffer,
 * and answers control frames.  Returns the bytes moved. */
static size_t pull_ws(conn *c)
{
	struct evbuffer *input = bufferevent_get_input(c->bev);
	size_t moved = 0;
	if (c->ws == WS_HANDSHAKE && !ws_handshake(c)) return 0;
	while (c->ws == WS_OPEN && !c->closing && !c->ws_ending) {
		size_t have = evbuffer_get_length(input);
		if (c->in.len - c->off >= in_cap()) break; /* the line splitter or the guard first */
		if (c->ws_left) { /* a data frame's payload */
			size_t n = have < c->ws_left ? have : (size_t)c->ws_left;
			n = n ? in_room(c, n) : 0;
			if (!n) break;
			int got = evbuffer_remove(input, c->in.p + c->in.len, n);
			if (got <= 0) break;
			proto_ws_unmask(c->in.p + c->in.len, (size_t)got, c->ws_mask, c->ws_at);
			c->in.len += (size_t)got;
			c->ws_at += (uint64_t)got;
			c->ws_left -= (uint64_t)got;
			moved += (size_t)got;
			if (!c->ws_left && c->ws_fin) moved += ws_message_end(c);
			continue;
		}
		uint8_t frame[14 + 125];
		proto_ws_frame f;
		ev_ssize_t got = evbuffer_copyout(input, frame, sizeof frame);
		int head = got > 0 ? proto_ws_frame_head(frame, (size_t)got, &f) : 0;
		if (head < 0) {
			ws_end(c, PROTO_WS_PROTOCOL_ERROR, f.why);
			break;
		}
		if (!head) break;
		if (f.opcode >= PROTO_WS_CLOSE) {
			if ((size_t)got < (size_t)head + f.len) break;
			evbuffer_drain(input, (size_t)head + f.len);
			proto_ws_unmask(frame + head, (size_t)f.len, f.mask, 0);
			ws_control(c, f.opcode, frame + head, (size_t)f.len);
			continue;
		}
		if (f.opcode == PROTO_WS_CONT ? !c->ws_msg : c->ws_msg) {
			ws_end(c, PROTO_WS_PROTOCOL_ERROR,
			        c->ws_msg ? "a new message inside a fragmented one" : "a continuation with no message begun");
			break;
		}
		if (f.opcode != PROTO_WS_CONT) {
			int enc = f.opcode == PROTO_WS_TEXT ? PROTO_ENC_JSON : PROTO_ENC_MSGPACK;
			if (c->enc >= 0 && c->enc != enc) {
				ws_end(c, PROTO_WS_UNSUPPORTED,
				        enc == PROTO_ENC_JSON ? "a text message on a MessagePack connection"
				                              : "a binary message on a JSON connection");
				break;
			}
			c->enc = enc;
			c->ws_msg = f.opcode;
		}
		evbuffer_drain(input, (size_t)head);
		c->ws_left = f.len;
		c->ws_at = 0;
		c->ws_fin = f.fin;
		memcpy(c->ws_mask, f.mask, 4);
		if (!f.len && f.fin) moved += ws_message_end(c);
	}
	return moved;
}

static void handle(conn *c, const proto_request *rq, proto_decoded d)
{
	c->answering = 1;
	if (d.code != PROTO_OK) {
		methods_reply_error(srv, c, rq, d.code, d.why);
		if (d.close) finish_for(c, d.code);
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
	if (!c->ws && proto_is_http(line, n)) {
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
	/* after a WebSocket frame that broke the rules nothing more is read */
	if (left && !shutting_down && !(c->ws && c->ws_why)) {
		if (c->enc == PROTO_ENC_MSGPACK) {
			fatal(c, PROTO_E_BAD_REQUEST, "the connection ended inside a message");
			return;
		}
		/* over WebSocket, a text message that never ended is lost */
		if (!c->skipping && !c->ws) {
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
		if (c->closing) break; /* a WebSocket handshake refused */
		int r = step(c);
		proto_arena_reset(&srv->arena);
		if (r == STEP_SERVED || r == STEP_BLANK) {
			budget--;
			if (r == STEP_SERVED) c->last = games_now();
		} else if (r == STEP_MORE) {
			if (pull(c)) continue;
			if (c->eof || c->ws_ending || shutting_down) at_eof(c);
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

void conn_accept(int fd, int ws)
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
	c->ws = ws ? WS_HANDSHAKE : 0;
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

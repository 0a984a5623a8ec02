/*
 * main.c - carcd: options, listeners (TCP, Unix, systemd socket
 * activation), signals, and the one event loop everything runs on.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "daemon.h"

#define MAX_LISTENERS 32
#define DEFAULT_LISTEN "tcp:127.0.0.1:7878"
#define SD_LISTEN_FDS_START 3 /* sd_listen_fds(3): passed sockets start here */
/* After accept() fails for want of descriptors, the listener rests this
 * long instead of waking the loop on every pending connection. */
#define ACCEPT_PAUSE_MS 500
/* --ws-origin options at most. */
#define MAX_WS_ORIGINS 64
/* How long SIGTERM waits for replies to drain before it gives up. */
#define SHUTDOWN_GRACE 10

typedef struct listener {
	struct evconnlistener *lev;
	struct event *resume;
	dev_t dev; /* the socket file made at unix_path: removed at the end only if still there */
	ino_t ino;
	int ws;    /* speaks WebSocket (ws:HOST:PORT, or a systemd socket named ws) */
	char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char name[160];
} listener;

static server srv;
static struct event_base *base;
static listener listeners[MAX_LISTENERS];
static int nlisteners;

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcd [options]\n"
	        "The Carcassonne rules daemon: MessagePack-RPC and JSON lines on one socket.\n\n"
	        "  -l, --listen ADDR         tcp:HOST:PORT, unix:PATH, or ws:HOST:PORT for WebSocket; repeatable\n"
	        "                            (default " DEFAULT_LISTEN ", or the sockets systemd passes in LISTEN_FDS)\n"
	        "      --ws-origin ORIGIN    serve WebSocket pages of this origin only; repeatable (default: any)\n"
	        "      --max-connections N   connections served at once (default %d)\n"
	        "      --max-games N         games held at once (default %d)\n"
	        "      --idle-timeout S      close connections quiet for S seconds (default %d)\n"
	        "      --game-timeout S      close games that have had no move for S seconds (default 0: never)\n"
	        "      --max-request BYTES   largest MessagePack request (default %u)\n"
	        "      --max-line BYTES      longest JSON line (default %u)\n"
	        "      --max-output BYTES    unread output that cuts a slow reader off (default %u)\n"
	        "      --log-level LEVEL     error, warn, info or debug (default info)\n"
	        "      --journal DIR         keep each game in a file in DIR and restore them at start\n"
	        "  -h, --help                this text\n"
	        "  -V, --version             the version\n",
	        CARCD_MAX_CONNECTIONS, CARCD_MAX_GAMES, CARCD_IDLE_TIMEOUT, PROTO_MAX_REQUEST, PROTO_MAX_LINE,
	        CARCD_MAX_OUTPUT);
}

static void close_listeners(void);

/* Cannot start: say why, take back the Unix sockets already made, exit 1. */
static void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	log_error("%s", msg);
	close_listeners();
	exit(1);
}

/* A bad option or value: one line starting `carcd: `, the usage, exit 2
 * (PROTOCOL.md section 6). */
static void __attribute__((format(printf, 1, 2), noreturn)) bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("carcd: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage(stderr);
	exit(2);
}

/* A plain decimal integer from min to max: digits only (strtol alone
 * would also take blanks and a sign in front). */
static long long number(const char *opt, const char *s, long long min, long long max)
{
	char *end;
	errno = 0;
	long long v = *s >= '0' && *s <= '9' ? strtoll(s, &end, 10) : (end = (char *)s, 0);
	if (errno || *end || end == s || v < min || v > max)
		bad_usage("--%s wants an integer from %lld to %lld, not `%s`", opt, min, max, s);
	return v;
}

/* --max-output's top: 2^40, or what a size_t holds where that is less (a
 * 32-bit machine). */
#define MAX_OUTPUT_TOP ((long long)((uint64_t)SIZE_MAX < 1ull << 40 ? (uint64_t)SIZE_MAX : 1ull << 40))

/* ---- listeners -------------------------------------------------------------------- */

static void accept_cb(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *sa, int len, void *arg)
{
	(void)lev, (void)sa, (void)len;
	const listener *l = arg;
	conn_accept(fd, l && l->ws);
}

static void resume_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	listener *l = arg;
	evconnlistener_enable(l->lev);
}

/* Without this a listener out of descriptors (EMFILE) is woken again and
 * again by the connection it cannot accept: the loop would spin.  The
 * warning comes at most once a minute, with the pauses since the last. */
static void accept_error_cb(struct evconnlistener *lev, void *arg)
{
	listener *l = arg;
	int err = EVUTIL_SOCKET_ERROR();
	static double last_warned = -60;
	static unsigned long pauses;
	pauses++;
	if (games_now() - last_warned >= 60) {
		log_warn("%s: accept: %s; pausing %d ms (%lu time%s since the last such line)", l->name,
		         evutil_socket_error_to_string(err), ACCEPT_PAUSE_MS, pauses, pauses == 1 ? "" : "s");
		last_warned = games_now();
		pauses = 0;
	}
	evconnlistener_disable(lev);
	struct timeval tv = { 0, ACCEPT_PAUSE_MS * 1000 };
	evtimer_add(l->resume, &tv);
}

static listener *add_listener(struct evconnlistener *lev, const char *name, int ws)
{
	if (!lev) die("cannot listen on %s", name);
	if (nlisteners == MAX_LISTENERS) die("too many listeners (%s)", name);
	listener *l = &listeners[nlisteners++];
	l->lev = lev;
	l->ws = ws;
	l->resume = evtimer_new(base, resume_cb, l);
	snprintf(l->name, sizeof l->name, "%s", name);
	evconnlistener_set_error_cb(lev, accept_error_cb);
	/* the error callback reaches the listener through the arg */
	evconnlistener_set_cb(lev, accept_cb, l);
	return l;
}

static const unsigned listen_flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_REUSEABLE;

/* "tcp:HOST:PORT" or "unix:PATH" for the address a socket is bound to
 * (`inet` is the scheme for an IP socket: "tcp", or "ws"): port 0 picks
 * a free port, and tests read the one it picked in the log. */
static void sock_name(int fd, const char *inet, char *name, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	char addr[64] = "?";
	memset(&ss, 0, sizeof ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		snprintf(name, n, "fd %d", fd);
	} else if (ss.ss_family == AF_INET6) {
		evutil_inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof addr);
		snprintf(name, n, "%s:[%s]:%d", inet, addr, ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	} else if (ss.ss_family == AF_INET) {
		evutil_inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof addr);
		snprintf(name, n, "%s:%s:%d", inet, addr, ntohs(((struct sockaddr_in *)&ss)->sin_port));
	} else if (ss.ss_family == AF_UNIX) {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;
		size_t plen = len > offsetof(struct sockaddr_un, sun_path) ? len - offsetof(struct sockaddr_un, sun_path) : 0;
		if (plen && un->sun_path[0]) snprintf(name, n, "unix:%.*s", (int)strnlen(un->sun_path, plen), un->sun_path);
		else snprintf(name, n, "unix socket fd %d", fd);
	} else {
		snprintf(name, n, "fd %d", fd);
	}
}

/* PORT is a decimal number from 0 to 65535, leading zeros or not
 * (getaddrinfo would take 70000 for 4464 and a service name for what
 * /etc/services says).  Returns the number, or -1. */
static long port_number(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || strspn(s, "0123456789") != n) return -1;
	s += strspn(s, "0");
	long port = strlen(s) > 5 ? -1 : atol(s);
	return port > 65535 ? -1 : port;
}

/* tcp:HOST:PORT, or ws:HOST:PORT (scheme "ws") for WebSocket. */
static void listen_tcp(const char *scheme, const char *spec)
{
	int ws = !strcmp(scheme, "ws");
	char host[256];
	const char *port;
	size_t hlen;
	if (spec[0] == '[') { /* [::1]:7878 */
		const char *close = strchr(spec, ']');
		hlen = close ? (size_t)(close - spec - 1) : 0;
		/* brackets are for an IPv6 address, which has colons */
		if (!close || close[1] != ':' || !memchr(spec + 1, ':', hlen))
			die("bad address `%s:%s` (want %s:[IPV6]:PORT)", scheme, spec, scheme);
		if (hlen >= sizeof host) die("bad address `%s:%s` (the host is too long)", scheme, spec);
		memcpy(host, spec + 1, hlen);
		port = close + 2;
	} else {
		const char *colon = strrchr(spec, ':');
		if (!colon) die("bad address `%s:%s` (want %s:HOST:PORT)", scheme, spec, scheme);
		hlen = (size_t)(colon - spec);
		if (hlen >= sizeof host) die("bad address `%s:%s` (the host is too long)", scheme, spec);
		memcpy(host, spec, hlen);
		port = colon + 1;
	}
	host[hlen] = 0;
	if (!hlen) die("bad address `%s:%s` (want %s:HOST:PORT)", scheme, spec, scheme);
	long pnum = port_number(port);
	if (pnum < 0) die("bad address `%s:%s` (the port is a number from 0 to 65535)", scheme, spec);
	char pstr[24];
	snprintf(pstr, sizeof pstr, "%ld", pnum);
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV, .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	int rc = getaddrinfo(host, pstr, &hints, &ai);
	if (rc) die("cannot listen on %s:%s: %s", scheme, spec, gai_strerror(rc));
	/* HOST naming several addresses (localhost): the first one */
	struct evconnlistener *lev = evconnlistener_new_bind(base, accept_cb, NULL, listen_flags, 511, ai->ai_addr, (int)ai->ai_addrlen);
	int err = errno;
	freeaddrinfo(ai);
	if (!lev) die("cannot listen on %s:%s: %s", scheme, spec, strerror(err));
	char name[128];
	sock_name(evconnlistener_get_fd(lev), scheme, name, sizeof name);
	add_listener(lev, name, ws);
	log_info("listening on %s", name);
}

/* A socket file at PATH is either a daemon's that still listens (we must
 * not take it over: it would be cut off from new clients, and would lose
 * the file when we stop) or one left by a daemon that was killed: NULL,
 * or why it may be in use.  Only a refused stream connect tells that
 * nobody is there; a datagram socket (/dev/log), one we may not connect
 * to or any other doubt leaves the file alone. */
static const char *unix_in_use(const struct sockaddr_un *sun)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0); /* never wait on a full backlog */
	if (fd < 0) return strerror(errno);
	int rc = connect(fd, (const struct sockaddr *)sun, sizeof *sun);
	int err = errno;
	close(fd);
	if (rc < 0 && err == ECONNREFUSED) return NULL;
	/* connected, or EAGAIN: somebody listens (backlog full) */
	if (rc == 0 || err == EAGAIN) return "a daemon (this one, if it is named twice) already listens on it";
	if (err == EPROTOTYPE) return "another program's socket (not a stream socket) is there";
	static char why[160];
	snprintf(why, sizeof why, "a socket is there that may be in use (connecting to it: %s)", strerror(err));
	return why;
}

static void listen_unix(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	if (!path[0]) die("%s", "bad address `unix:` (want unix:PATH)");
	if (strlen(path) >= sizeof sun.sun_path)
		die("cannot listen on unix:%s: the path is %zu bytes, a Unix socket path at most %zu", path, strlen(path),
		    sizeof sun.sun_path - 1);
	memcpy(sun.sun_path, path, strlen(path) + 1);
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) die("cannot listen on unix:%s: the file exists and is not a socket", path);
		const char *busy = unix_in_use(&sun);
		if (busy) die("cannot listen on unix:%s: %s", path, busy);
		/* left by a daemon that did not stop cleanly: it would make bind fail */
		if (unlink(path)) die("cannot listen on unix:%s: cannot remove the stale socket file there: %s", path, strerror(errno));
		log_info("unix:%s: removed a stale socket file", path);
	}
	struct evconnlistener *lev = evconnlistener_new_bind(base, accept_cb, NULL, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC,
	                                                     511, (struct sockaddr *)&sun, (int)sizeof sun);
	if (!lev) die("cannot listen on unix:%s: %s", path, strerror(errno));
	char name[128];
	snprintf(name, sizeof name, "unix:%s", path);
	listener *l = add_listener(lev, name, 0);
	snprintf(l->unix_path, sizeof l->unix_path, "%s", path);
	if (lstat(path, &st) == 0) l->dev = st.st_dev, l->ino = st.st_ino;
	log_info("listening on %s", name);
}

static void listen_on(const char *spec)
{
	if (!strncmp(spec, "tcp:", 4)) listen_tcp("tcp", spec + 4);
	else if (!strncmp(spec, "ws:", 3)) listen_tcp("ws", spec + 3);
	else if (!strncmp(spec, "unix:", 5)) listen_unix(spec + 5);
	else die("bad address `%s` (want tcp:HOST:PORT, unix:PATH or ws:HOST:PORT)", spec);
}

/* An origin as browsers send it (RFC 6454): scheme://host[:port] in
 * lower case with no path, or "null" (file: pages, sandboxed frames).
 * Anything else could never match, and a page would be refused for a
 * typo in the unit. */
static int origin_shape(const char *s)
{
	if (!strcmp(s, "null")) return 1;
	const char *sep = strstr(s, "://");
	if (!sep || sep == s || !sep[3]) return 0;
	for (const char *p = s; *p; p++) {
		if (p >= sep && p < sep + 3) continue;
		if (*p <= ' ' || *p >= 0x7f || (*p >= 'A' && *p <= 'Z') || *p == '/' || *p == '?' || *p == '#') return 0;
	}
	return 1;
}

/* A non-empty string of decimal digits. */
static int all_digits(const char *s)
{
	if (!*s) return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9') return 0;
	return 1;
}

/* sd_listen_fds(3) without libsystemd: the sockets are ours when
 * LISTEN_PID names us; the variables are dropped so children do not
 * take them for theirs.  Each must be a listening stream socket: anything
 * else is a mistake in the unit (ListenDatagram=, Accept=yes) or in
 * whatever started us, and is refused rather than served badly. */
static int listen_systemd(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	char *end;
	errno = 0;
	/* digits only: strtol would also take blanks and a sign in front */
	if (!pid || !fds || !all_digits(pid) || strtol(pid, &end, 10) != (long)getpid() || errno) return 0;
	errno = 0;
	long n = all_digits(fds) ? strtol(fds, &end, 10) : -1;
	if (errno || n < 0 || n > MAX_LISTENERS)
		die("LISTEN_FDS=%s: want a number of sockets from 0 to %d", fds, MAX_LISTENERS);
	/* FileDescriptorName=ws makes a socket a WebSocket listener */
	const char *names = getenv("LISTEN_FDNAMES");
	int ws[MAX_LISTENERS] = { 0 };
	for (int i = 0; names && *names && i < n; i++) {
		size_t len = strcspn(names, ":");
		ws[i] = len == 2 && !memcmp(names, "ws", 2);
		names += len + (names[len] == ':');
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + n; fd++) {
		int type = 0, listening = 0;
		socklen_t tl = sizeof type, ll = sizeof listening;
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
			die("LISTEN_FDS=%ld: fd %d is not a socket (%s)", n, fd, strerror(errno));
		if (type != SOCK_STREAM || getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &ll) < 0 || !listening)
			die("LISTEN_FDS=%ld: fd %d is not a listening stream socket", n, fd);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		evutil_make_socket_nonblocking(fd);
		char addr[128], name[160];
		sock_name(fd, "tcp", addr, sizeof addr);
		int is_ws = ws[fd - SD_LISTEN_FDS_START];
		snprintf(name, sizeof name, "%s%s (systemd fd %d)", is_ws ? "WebSocket on " : "", addr, fd);
		/* backlog 0: the socket is already listening */
		add_listener(evconnlistener_new(base, accept_cb, NULL, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd), name, is_ws);
		log_info("listening on %s", name);
	}
	return (int)n;
}

static void close_listeners(void)
{
	for (int i = 0; i < nlisteners; i++) {
		if (!listeners[i].lev) continue;
		evconnlistener_free(listeners[i].lev);
		event_free(listeners[i].resume);
		listeners[i].lev = NULL;
		/* our file only: one removed meanwhile may now be another daemon's */
		struct stat st;
		if (listeners[i].unix_path[0] && !lstat(listeners[i].unix_path, &st) && st.st_dev == listeners[i].dev &&
		    st.st_ino == listeners[i].ino)
			unlink(listeners[i].unix_path);
	}
}

/* The usual soft limit of 1024 descriptors is below --max-connections
 * plus listeners and stdio: take what the hard limit allows. */
static void raise_fd_limit(int want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= (rlim_t)want) return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= (rlim_t)want ? (rlim_t)want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) log_warn("cannot raise the descriptor limit: %s", strerror(errno));
	if (rl.rlim_cur < (rlim_t)want)
		log_warn("%lu file descriptors for %d connections: some will be refused", (unsigned long)rl.rlim_cur, want - 64);
}

/* ---- games nobody plays (--game-timeout) ---------------------------------------- */

/* How often the games are looked over: a tenth of the timeout, between
 * 1 and 60 seconds, so a game goes at most that long after its time. */
static int sweep_every(int timeout) { return timeout >= 600 ? 60 : timeout >= 10 ? timeout / 10 : 1; }

static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	methods_expire(&srv, games_now());
}

/* ---- giving memory back ------------------------------------------------------------------ */

/* Once a minute, when games were freed or connections closed since the
 * last look, the heap's free memory goes back to the system: glibc keeps
 * it otherwise wherever the top of the heap is held, and RSS stays at
 * its high-water mark after a burst of games or of watchers' buffers. */
#define TRIM_EVERY 60
static void trim_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
#ifdef __GLIBC__
	static uint64_t freed, closed;
	uint64_t closed_now = srv.conns_total - (uint64_t)srv.conns;
	if (srv.games.freed_total == freed && closed_now == closed) return;
	freed = srv.games.freed_total;
	closed = closed_now;
	malloc_trim(0);
#endif
}

/* ---- signals -------------------------------------------------------------------------- */

static void all_closed(void) { event_base_loopexit(base, NULL); }

static void grace_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	log_warn("replies not drained after %d s; exiting", SHUTDOWN_GRACE);
	event_base_loopexit(base, NULL);
}

static const char *signal_name(int sig)
{
	return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : sig == SIGUSR1 ? "SIGUSR1" :
	       sig == SIGUSR2 ? "SIGUSR2" : "a signal";
}

/* SIGTERM, SIGINT: stop accepting, write out the replies, exit 0.  A
 * second one while the replies drain (Ctrl-C pressed twice) exits at once. */
static void signal_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)what, (void)arg;
	static int once;
	if (once++) {
		log_warn("%s again: exiting without waiting for the replies", signal_name((int)sig));
		event_base_loopbreak(base);
		return;
	}
	log_info("%s: no new connections; finishing replies", signal_name((int)sig));
	close_listeners();
	struct timeval tv = { SHUTDOWN_GRACE, 0 };
	event_base_once(base, -1, EV_TIMEOUT, grace_cb, NULL, &tv);
	conn_shutdown(all_closed);
}

/* SIGHUP, SIGUSR1 and SIGUSR2 would end the process (and every game) by
 * default: a closed terminal, or a `kill -HUP` or `-USR1` meant as
 * "reload" or "reopen the logs", must not do that.  carcd has no
 * configuration file and logs to stderr, so there is nothing to reload
 * or reopen. */
static void hup_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)what, (void)arg;
	log_info("%s: nothing to reload (options are only read at start); ignored", signal_name((int)sig));
}

/* The signals carcd handles, and how. */
static const struct {
	int sig;
	event_callback_fn cb;
} handled[] = { { SIGTERM, signal_cb }, { SIGINT, signal_cb }, { SIGHUP, hup_cb }, { SIGUSR1, hup_cb }, { SIGUSR2, hup_cb } };
#define NHANDLED ((int)(sizeof handled / sizeof handled[0]))

/* The handled signals are held back (blocked) until their handlers are
 * in and again once the loop has ended: one that comes while the journal
 * is restored waits for them, one that comes while carcd frees its games
 * at the end is dropped with the process, which exits 0. */
static void hold_signals(int how)
{
	sigset_t set;
	sigemptyset(&set);
	for (int i = 0; i < NHANDLED; i++) sigaddset(&set, handled[i].sig);
	sigprocmask(how, &set, NULL);
}

static void libevent_log(int severity, const char *msg)
{
	int level = severity == EVENT_LOG_ERR ? LOG_LEVEL_ERROR : severity == EVENT_LOG_WARN ? LOG_LEVEL_WARN : LOG_LEVEL_DEBUG;
	log_msg(level, "libevent: %s", msg);
}

int main(int argc, char **argv)
{
	enum { O_MAX_CONN = 256, O_MAX_GAMES, O_IDLE, O_MAX_REQUEST, O_MAX_LINE, O_MAX_OUTPUT, O_LOG_LEVEL, O_JOURNAL,
	       O_GAME_TIMEOUT, O_WS_ORIGIN };
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "max-connections", required_argument, NULL, O_MAX_CONN },
		{ "max-games", required_argument, NULL, O_MAX_GAMES },
		{ "idle-timeout", required_argument, NULL, O_IDLE },
		{ "game-timeout", required_argument, NULL, O_GAME_TIMEOUT },
		{ "max-request", required_argument, NULL, O_MAX_REQUEST },
		{ "max-line", required_argument, NULL, O_MAX_LINE },
		{ "max-output", required_argument, NULL, O_MAX_OUTPUT },
		{ "log-level", required_argument, NULL, O_LOG_LEVEL },
		{ "journal", required_argument, NULL, O_JOURNAL },
		{ "ws-origin", required_argument, NULL, O_WS_ORIGIN },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *specs[MAX_LISTENERS], *journal = NULL;
	static const char *ws_origins[MAX_WS_ORIGINS];
	srv.ws_origins = ws_origins;
	int nspecs = 0, c, at = optind;
	hold_signals(SIG_BLOCK);
	methods_init(&srv);
	opterr = 0; /* getopt's own messages start with argv[0]: ours say `carcd: ` */
	for (; (c = getopt_long(argc, argv, ":l:hV", opts, NULL)) != -1; at = optind) {
		switch (c) {
		case 'l':
			if (nspecs == MAX_LISTENERS) bad_usage("at most %d --listen options", MAX_LISTENERS);
			specs[nspecs++] = optarg;
			break;
		case O_MAX_CONN: srv.max_connections = (int)number("max-connections", optarg, 1, 1 << 20); break;
		case O_MAX_GAMES: srv.games.max = (size_t)number("max-games", optarg, 1, 100000000); break;
		case O_IDLE: srv.idle_timeout = (int)number("idle-timeout", optarg, 1, 1 << 30); break;
		case O_GAME_TIMEOUT: srv.game_timeout = (int)number("game-timeout", optarg, 0, 1 << 30); break;
		case O_MAX_REQUEST: srv.max_request = (size_t)number("max-request", optarg, 64, 1 << 30); break;
		case O_MAX_LINE: srv.max_line = (size_t)number("max-line", optarg, 64, 1 << 30); break;
		case O_MAX_OUTPUT: srv.max_output = (size_t)number("max-output", optarg, 4096, MAX_OUTPUT_TOP); break;
		case O_LOG_LEVEL:
			if ((log_level = log_level_parse(optarg)) < 0) bad_usage("--log-level is error, warn, info or debug");
			break;
		case O_JOURNAL:
			if (!*optarg) bad_usage("--journal wants a directory");
			journal = optarg;
			break;
		case O_WS_ORIGIN:
			if (!origin_shape(optarg))
				bad_usage("--ws-origin `%s`: want an origin as a browser sends it: scheme://host[:port] in lower case, "
				          "no path (or null)",
				          optarg);
			if (srv.n_ws_origins == MAX_WS_ORIGINS) bad_usage("at most %d --ws-origin options", MAX_WS_ORIGINS);
			ws_origins[srv.n_ws_origins++] = optarg;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("carcd %s (protocol %d)\n", CARC_VERSION, PROTO_VERSION); return 0;
		case ':': bad_usage("%s wants a value", argv[optind - 1]);
		default: /* '?': optopt is the letter of a short option, and also
		            * of a long one given a value it takes none of; the
		            * argument is argv[at], where this call began, unless
		            * it began on one getopt moved (then argv[optind - 1]) */
			if (at >= argc || argv[at][0] != '-') at = optind - 1;
			if (!strncmp(argv[at], "--", 2)) bad_usage("unknown, ambiguous or misused option %s", argv[at]);
			bad_usage("unknown option -%c", optopt);
		}
	}
	if (optind < argc) bad_usage("unexpected argument `%s` (addresses go after --listen)", argv[optind]);
	raise_fd_limit(srv.max_connections + 64 + (journal ? JOURNAL_FDS : 0));
	/* a peer that hangs up must cost an EPIPE, not the process */
	signal(SIGPIPE, SIG_IGN);
	event_set_log_callback(libevent_log);
	base = event_base_new();
	if (!base) die("%s", "cannot make an event base");
	conn_setup(&srv, base);
	/* games come back before anyone can ask for them */
	if (journal && journal_open(journal, &srv.games, &srv.scratch, srv.game_timeout))
		die("cannot keep a journal in %s", journal);
	struct event *sweep = NULL;
	if (srv.game_timeout) {
		struct timeval every = { sweep_every(srv.game_timeout), 0 };
		sweep = event_new(base, -1, EV_PERSIST, sweep_cb, NULL);
		if (!sweep || event_add(sweep, &every)) die("%s", "cannot set the --game-timeout timer");
	}
	struct event *trim = event_new(base, -1, EV_PERSIST, trim_cb, NULL);
	if (!trim || event_add(trim, &(struct timeval){ TRIM_EVERY, 0 })) die("%s", "cannot set the heap trim timer");
	int activated = listen_systemd();
	/* judged before any --listen binds, so that no socket file is left */
	if (activated + nspecs > MAX_LISTENERS)
		die("too many listeners: %d from systemd and %d --listen, at most %d in all", activated, nspecs, MAX_LISTENERS);
	for (int i = 0; i < nspecs; i++) listen_on(specs[i]);
	if (!activated && !nspecs) listen_on(DEFAULT_LISTEN);
	int any_ws = 0;
	for (int i = 0; i < nlisteners; i++) any_ws |= listeners[i].ws;
	if (srv.n_ws_origins && !any_ws) log_warn("--ws-origin is given, but no listener speaks WebSocket (ws:HOST:PORT)");
	struct event *sigs[NHANDLED];
	for (int i = 0; i < NHANDLED; i++) {
		sigs[i] = evsignal_new(base, handled[i].sig, handled[i].cb, NULL);
		if (!sigs[i] || evsignal_add(sigs[i], NULL)) die("cannot handle signal %d", handled[i].sig);
	}
	log_info("carcd %s ready (protocol %d, %d connection%s, %zu game%s at most)", CARC_VERSION, PROTO_VERSION,
	         srv.max_connections, srv.max_connections == 1 ? "" : "s", srv.games.max, srv.games.max == 1 ? "" : "s");
	hold_signals(SIG_UNBLOCK);
	event_base_dispatch(base);
	hold_signals(SIG_BLOCK);
	close_listeners();
	conn_free_all();
	for (int i = 0; i < NHANDLED; i++) event_free(sigs[i]);
	if (sweep) event_free(sweep);
	event_free(trim);
	event_base_free(base);
	methods_free(&srv);
	journal_close();
	log_info("stopped");
	return 0;
}

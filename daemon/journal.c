/*
 * journal.c - games that outlive a restart (--journal DIR).
 *
 * An arena halfway through a long match, or a UI server with games in
 * play, should not lose them when carcd is restarted or crashes.  A game
 * is its setup and its moves (the engine is deterministic), so each game
 * held gets a file DIR/<id>.game: a header with everything new_game
 * decided (the configuration with the seed, the names, the seat and
 * admin tokens, the salt), written once, then each applied move appended
 * as the engine's 12-byte move.  A game closed or evicted loses its file;
 * DIR/next-id keeps the next game id, so that ids are never reused across
 * restarts either.  At start carcd replays every file and serves the games
 * as they were, tokens and all.
 *
 * A move is written before its reply goes out, with write(2) and no
 * fsync: what a client was told survives carcd being killed, not the
 * machine losing power.  The files hold the seat tokens: the directory is
 * made 0700 and the files 0600.  They are read by the carcd build that
 * wrote them (a fingerprint of the version, the tile types and the rule
 * options guards that); a file that cannot be read or replayed is renamed
 * <id>.game.broken and the others are still restored.  A failed write
 * (a full disk) costs that game its file and a logged error; the game
 * goes on in memory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

#define JOURNAL_MAGIC "carcdJ1\n"
#define JOURNAL_MAX_MOVES (1u << 20) /* far above any game (the board holds 320 tiles) */

/* Everything new_game decided, in the journal's own layout. */
typedef struct journal_head {
	char magic[8];
	uint32_t fingerprint;
	uint8_t nseats, auth, pad[2];
	int64_t id;
	uint8_t token[CARC_MAX_SEATS][GAMES_TOKEN];
	uint8_t admin[GAMES_TOKEN];
	char salt[33];
	char names[CARC_MAX_SEATS][PROTO_MAX_NAME + 1];
	carc_config cfg;
} journal_head;

static char *jdir;     /* NULL: no journal */
static int next_fd = -1;
static int restoring;  /* replaying: nothing is written */

/* The files of the games that moved last stay open: a move is then one
 * write(2), not an open, a write and a close (about 1.5 against 5 us).
 * Slot id % JOURNAL_FDS holds the game's id and descriptor, or id 0. */
static struct {
	int64_t id;
	int fd;
} open_files[JOURNAL_FDS];

static void close_slot(int64_t id)
{
	size_t i = (size_t)id % JOURNAL_FDS;
	if (open_files[i].id != id || !id) return;
	close(open_files[i].fd);
	open_files[i].id = 0;
}

/* The open file of game `id`, or -1 (errno set). */
static int file_of(int64_t id, const char *path)
{
	size_t i = (size_t)id % JOURNAL_FDS;
	if (open_files[i].id == id) return open_files[i].fd;
	close_slot(open_files[i].id);
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd >= 0) open_files[i].id = id, open_files[i].fd = fd;
	return fd;
}

/* FNV-1a over what a file's meaning depends on: a carcd whose version,
 * tile types, rule options or record layouts differ reads none of it. */
static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
	return h;
}

static uint32_t fingerprint(void)
{
	uint32_t h = fnv(2166136261u, CARC_VERSION, sizeof CARC_VERSION);
	size_t sizes[2] = { sizeof(journal_head), sizeof(carc_move) };
	h = fnv(h, sizes, sizeof sizes);
	for (int t = 0; t < carc_tile_count(); t++) h = fnv(h, carc_tile_id(t), strlen(carc_tile_id(t)) + 1);
	for (int i = 0; i < CARC_R_COUNT; i++) h = fnv(h, carc_rule(i)->key, strlen(carc_rule(i)->key) + 1);
	return h;
}

static void path_of(char *buf, size_t n, int64_t id, const char *suffix)
{
	snprintf(buf, n, "%s/%lld.game%s", jdir, (long long)id, suffix);
}

/* write(2) all of it, or -1 */
static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR) continue;
		if (k <= 0) return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A game whose file could not be written goes on in memory only. */
static void lose(games_game *gm, const char *what)
{
	char path[4096];
	log_error("journal: game %lld: cannot %s: %s; the game goes on without its file (a restart ends it)",
	          (long long)gm->id, what, strerror(errno));
	gm->unjournaled = 1;
	close_slot(gm->id);
	path_of(path, sizeof path, gm->id, "");
	unlink(path);
}

static void save_next_id(int64_t next)
{
	char text[24];
	int n = snprintf(text, sizeof text, "%020lld\n", (long long)next);
	if (pwrite(next_fd, text, (size_t)n, 0) != n) log_error("journal: cannot write next-id: %s", strerror(errno));
}

void journal_created(games *r, games_game *gm)
{
	if (!jdir || restoring) return;
	save_next_id(r->next_id);
	journal_head h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, JOURNAL_MAGIC, sizeof h.magic);
	h.fingerprint = fingerprint();
	h.nseats = (uint8_t)gm->nseats;
	h.auth = (uint8_t)gm->auth;
	h.id = gm->id;
	memcpy(h.token, gm->token, sizeof h.token);
	memcpy(h.admin, gm->admin, sizeof h.admin);
	memcpy(h.salt, gm->salt, sizeof h.salt);
	for (int i = 0; i < gm->nseats; i++) snprintf(h.names[i], sizeof h.names[i], "%s", gm->names[i]);
	h.cfg = *carc_game_config(gm->g);
	/* made whole under another name, then renamed: a file is never half a header */
	char tmp[4096], path[4096];
	path_of(tmp, sizeof tmp, gm->id, ".new");
	path_of(path, sizeof path, gm->id, "");
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) return lose(gm, "create its file");
	int bad = write_all(fd, &h, sizeof h);
	if (close(fd) || bad || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		errno = e;
		lose(gm, "write its file");
	}
}

void journal_moved(games_game *gm, const carc_move *m)
{
	if (!jdir || restoring || gm->unjournaled) return;
	char path[4096];
	path_of(path, sizeof path, gm->id, "");
	int fd = file_of(gm->id, path);
	if (fd < 0) return lose(gm, "open its file");
	if (write_all(fd, m, sizeof *m)) lose(gm, "append a move");
}

void journal_forget(const games_game *gm)
{
	if (!jdir) return;
	close_slot(gm->id);
	char path[4096];
	path_of(path, sizeof path, gm->id, "");
	if (unlink(path) && errno != ENOENT && !gm->unjournaled)
		log_error("journal: game %lld: cannot remove %s: %s", (long long)gm->id, path, strerror(errno));
}

/* ---- at start ------------------------------------------------------------------- */

/* Sets the broken file aside, with why. */
static void broken(int64_t id, const char *why)
{
	char path[4096], aside[4096];
	path_of(path, sizeof path, id, "");
	path_of(aside, sizeof aside, id, ".broken");
	log_error("journal: %s: %s; the game is not restored (the file is renamed %s)", path, why, aside);
	if (rename(path, aside)) log_error("journal: cannot rename %s: %s", path, strerror(errno));
}

/* Reads a whole file; NULL on failure. */
static uint8_t *slurp(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return NULL;
	struct stat st;
	size_t cap = sizeof(journal_head) + (size_t)JOURNAL_MAX_MOVES * sizeof(carc_move);
	if (fstat(fd, &st) || (size_t)st.st_size > cap) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	uint8_t *buf = proto_xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
		if (k < 0 && errno == EINTR) continue;
		if (k <= 0) break;
		got += (size_t)k;
	}
	close(fd);
	*n = got;
	return buf;
}

/* Restores one game from its file; 1 restored, 0 set aside, -1 left
 * where it is (the registry is full). */
static int restore(games *r, int64_t id, carc_game *scratch)
{
	char path[4096];
	path_of(path, sizeof path, id, "");
	size_t n = 0;
	uint8_t *buf = slurp(path, &n);
	if (!buf) {
		broken(id, strerror(errno));
		return 0;
	}
	journal_head h;
	int ok = 0;
	const char *why = "shorter than a game's header";
	if (n >= sizeof h) {
		memcpy(&h, buf, sizeof h);
		if (memcmp(h.magic, JOURNAL_MAGIC, sizeof h.magic)) why = "not a carcd game file";
		else if (h.fingerprint != fingerprint()) why = "written by another carcd build (version, tiles or rules differ)";
		else if (h.id != id) why = "its header names another game";
		else if (h.nseats < 1 || h.nseats > CARC_MAX_SEATS || h.nseats != h.cfg.nseats || h.auth > 1 ||
		         h.salt[32] != '\0')
			why = "its header is damaged";
		else ok = 1;
	}
	const char *names[CARC_MAX_SEATS];
	for (int i = 0; ok && i < h.nseats; i++) {
		h.names[i][PROTO_MAX_NAME] = '\0';
		names[i] = h.names[i];
		if (!methods_name_ok(names[i], strlen(names[i]))) ok = 0, why = "its header is damaged";
	}
	/* the engine must take the setup and every move: replayed on the
	 * scratch game first, so that a file that fails changes nothing */
	size_t nmoves = ok ? (n - sizeof h) / sizeof(carc_move) : 0;
	if (ok && carc_game_init(scratch, &h.cfg, NULL) != CARC_OK) ok = 0, why = "the engine refuses its setup";
	for (size_t i = 0; ok && i < nmoves; i++) {
		carc_move m;
		memcpy(&m, buf + sizeof h + i * sizeof m, sizeof m);
		if (carc_apply(scratch, &m, NULL) != CARC_OK) {
			ok = 0;
			why = "a move in it is not legal where it stands";
		}
	}
	if (!ok) {
		free(buf);
		broken(id, why);
		return 0;
	}
	/* a move cut short by a crash was never answered: it is dropped */
	if ((n - sizeof h) % sizeof(carc_move) && truncate(path, (off_t)(sizeof h + nmoves * sizeof(carc_move))))
		log_error("journal: cannot cut the torn move off %s: %s", path, strerror(errno));
	carc_rc rc;
	int full;
	int64_t next = r->next_id;
	r->next_id = id;
	games_game *gm = games_create(r, &h.cfg, names, h.auth, NULL, &rc, &full);
	r->next_id = next > id ? next : id + 1;
	if (!gm) {
		free(buf);
		log_error("journal: game %lld not restored: %s; its file stays for a restart with a higher --max-games",
		          (long long)id, full ? "--max-games games in play are restored already" : carc_strerror(rc));
		return -1;
	}
	memcpy(gm->token, h.token, sizeof gm->token);
	memcpy(gm->admin, h.admin, sizeof gm->admin);
	games_set_salt(gm, h.salt);
	for (size_t i = 0; i < nmoves; i++) {
		carc_move m;
		memcpy(&m, buf + sizeof h + i * sizeof m, sizeof m);
		carc_apply(gm->g, &m, NULL); /* as on the scratch game */
		games_record(r, gm, &m);
	}
	free(buf);
	return 1;
}

static int by_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The game ids that have files in the directory, ascending. */
static int64_t *game_files(DIR *d, size_t *n)
{
	int64_t *ids = NULL;
	size_t cap = 0;
	*n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		errno = 0;
		long long id = strtoll(e->d_name, &end, 10);
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || errno || strcmp(end, ".game")) continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			ids = proto_xrealloc(ids, cap * sizeof *ids);
		}
		ids[(*n)++] = id;
	}
	if (*n) qsort(ids, *n, sizeof *ids, by_id);
	return ids;
}

int journal_open(const char *dir, games *r, carc_game *scratch)
{
	if (mkdir(dir, 0700) && errno != EEXIST) {
		log_error("journal: cannot make %s: %s", dir, strerror(errno));
		return -1;
	}
	DIR *d = opendir(dir);
	if (!d) {
		log_error("journal: cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	jdir = proto_xstrdup(dir);
	char path[4096];
	snprintf(path, sizeof path, "%s/next-id", dir);
	next_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (next_fd < 0 || access(dir, W_OK)) {
		log_error("journal: cannot write in %s: %s", dir, strerror(errno));
		closedir(d);
		journal_close();
		return -1;
	}
	/* two daemons on one journal would delete each other's games */
	if (flock(next_fd, LOCK_EX | LOCK_NB)) {
		log_error("journal: %s is in use by another carcd (%s)", dir, strerror(errno));
		closedir(d);
		journal_close();
		return -1;
	}
	char text[32] = { 0 };
	if (pread(next_fd, text, sizeof text - 1, 0) > 0) {
		long long next = strtoll(text, NULL, 10);
		if (next > r->next_id) r->next_id = next;
	}
	size_t n;
	int64_t *ids = game_files(d, &n);
	closedir(d);
	size_t restored = 0, aside = 0, left = 0;
	restoring = 1;
	for (size_t i = 0; i < n; i++) {
		int k = restore(r, ids[i], scratch);
		restored += k > 0;
		aside += k == 0;
		left += k < 0;
	}
	restoring = 0;
	free(ids);
	save_next_id(r->next_id);
	log_info("journal: %s: %zu games restored%s", dir, restored,
	         aside || left ? " (others failed: see the errors above)" : "");
	return 0;
}

void journal_close(void)
{
	for (size_t i = 0; i < JOURNAL_FDS; i++) close_slot(open_files[i].id);
	if (next_fd >= 0) close(next_fd);
	next_fd = -1;
	free(jdir);
	jdir = NULL;
}

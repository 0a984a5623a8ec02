/*
 * journal.c - games that outlive a restart (--journal DIR).
 *
 * An arena halfway through a long match, or a UI server with games in
 * play, should not lose them when carcd is restarted or crashes.  A game
 * is its setup and its moves (the engine is deterministic), so each game
 * held gets a file DIR/<id>.game: a header with everything new_game
 * decided (the configuration with the seed, the names, the seat and
 * admin tokens, the salt, and a hash of the state it dealt), written
 * once, then each applied move appended as the engine's 12-byte move and
 * a CRC-32 chained from the header's.  A game closed or evicted loses its
 * file; DIR/next-id keeps the next game id, so that ids are never reused
 * across restarts either.  At start carcd replays every file and serves
 * the games as they were, tokens and all.
 *
 * A move is written before its reply goes out, with write(2) and no
 * fsync: what a client was told survives carcd being killed, not the
 * machine losing power.  The files hold the seat tokens: the directory
 * must belong to carcd's user and be closed to group and others (it is made 0700),
 * the files are 0600, and no file is reached through a symbolic link.  A
 * file is set aside as <id>.game.broken, and the other games restored,
 * when it cannot be read, is not a regular file, fails its checksums,
 * comes from a carcd that deals or rules differently or from another
 * kind of machine (the fingerprint of the version, tile types, rule
 * options and layout, and the hash of the state the setup deals), or
 * holds a move the engine refuses; an earlier file set aside under that
 * name is kept (the new one is <id>.game.broken.1, ...).
 * A failed write (a full disk) costs that game its file and a logged
 * error; the game goes on in memory.  A file that should go and cannot
 * be removed (a game gone on without it, or closed) is marked with an
 * empty <id>.game.gone beside it, so that no restart serves the game as
 * it stood before.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

#define JOURNAL_MAGIC "carcdJ2\n"
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
	uint64_t dealt;  /* carc_game_hash of the state new_game made */
	uint32_t crc;    /* CRC-32 of the header with this field 0 */
	uint32_t pad2;
} journal_head;

/* A move as the file holds it: the move, then the CRC-32 of its bytes
 * carried on from the previous record's (the header's for the first). */
typedef struct journal_rec {
	carc_move m;
	uint32_t crc;
} journal_rec;

static char *jdir;     /* NULL: no journal */
static uint32_t build; /* fingerprint(), worked out once at journal_open */
static int dir_fd = -1, next_fd = -1;
static int restoring;  /* replaying: nothing is written */

/* The files of the games that moved last stay open: a move is then one
 * write(2), not an open, a write and a close (about 1.5 against 5 us).
 * Slot id % JOURNAL_FDS holds the game's id and descriptor, or id 0. */
static struct {
	int64_t id;
	int fd;
} open_files[JOURNAL_FDS];

static uint32_t crc32(uint32_t crc, const void *p, size_t n)
{
	static uint32_t table[256];
	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	const uint8_t *b = p;
	crc = ~crc;
	for (size_t i = 0; i < n; i++) crc = table[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static uint32_t head_crc(journal_head h)
{
	h.crc = 0;
	return crc32(0, &h, sizeof h);
}

/* FNV-1a over what a file's meaning depends on: a carcd whose version,
 * tile types, rule options or record layouts differ reads none of it. */
static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
	return h;
}

/* What a file's build must share with this one: the version, the tile
 * types and rule options, and the machine's layout.  The files hold raw
 * structs in the machine's byte order, so the sizes go in as their own
 * bytes: another byte order or word size (s390x, i386) gives another
 * fingerprint too. */
static uint32_t fingerprint(void)
{
	uint32_t h = fnv(2166136261u, CARC_VERSION, sizeof CARC_VERSION);
	size_t sizes[2] = { sizeof(journal_head), sizeof(journal_rec) };
	h = fnv(h, sizes, sizeof sizes);
	for (int t = 0; t < carc_tile_count(); t++) h = fnv(h, carc_tile_id(t), strlen(carc_tile_id(t)) + 1);
	for (int i = 0; i < CARC_R_COUNT; i++) h = fnv(h, carc_rule(i)->key, strlen(carc_rule(i)->key) + 1);
	return h;
}

/* A game's file name in the directory, with a suffix. */
static void name_of(char *buf, size_t n, int64_t id, const char *suffix)
{
	snprintf(buf, n, "%lld.game%s", (long long)id, suffix);
}

static void close_slot(int64_t id)
{
	size_t i = (size_t)id % JOURNAL_FDS;
	if (open_files[i].id != id || !id) return;
	close(open_files[i].fd);
	open_files[i].id = 0;
}

static void close_slots(void)
{
	for (size_t i = 0; i < JOURNAL_FDS; i++) close_slot(open_files[i].id);
}

/* openat(2) in the directory, never through a symbolic link; out of
 * descriptors, the kept-open files are closed and it tries once more. */
static int open_in(const char *name, int flags)
{
	int fd = openat(dir_fd, name, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		close_slots();
		fd = openat(dir_fd, name, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	return fd;
}

/* The open file of game `id`, or -1 (errno set). */
static int file_of(int64_t id)
{
	size_t i = (size_t)id % JOURNAL_FDS;
	if (open_files[i].id == id) return open_files[i].fd;
	close_slot(open_files[i].id);
	char name[64];
	name_of(name, sizeof name, id, "");
	int fd = open_in(name, O_WRONLY | O_APPEND);
	if (fd >= 0) open_files[i].id = id, open_files[i].fd = fd;
	return fd;
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

/* Deletes the file of game `id`, which no restart may serve: 0, or -1
 * with an error line.  A file that cannot be removed (an immutable file,
 * a directory carcd may no longer write) is marked with <id>.game.gone,
 * which the next start reads as "remove, do not restore", or else
 * emptied, which the next start sets aside. */
static int remove_file(int64_t id)
{
	char name[64], gone[64];
	name_of(name, sizeof name, id, "");
	if (!unlinkat(dir_fd, name, 0) || errno == ENOENT) return 0;
	int e = errno;
	name_of(gone, sizeof gone, id, ".gone");
	int fd = open_in(gone, O_WRONLY | O_CREAT), emptied = -1;
	if (fd < 0 && (emptied = open_in(name, O_WRONLY | O_TRUNC)) >= 0) close(emptied);
	if (fd >= 0) close(fd);
	log_error("journal: game %lld: cannot remove %s/%s: %s; %s", (long long)id, jdir, name, strerror(e),
	          fd >= 0        ? "marked with a .gone file, so that no restart restores it"
	          : emptied >= 0 ? "emptied it, so that no restart restores it"
	                         : "nor mark or empty it: a restart restores the game as the file left it, unless it is "
	                           "deleted first");
	return -1;
}

/* A game whose file could not be written goes on in memory only: its
 * file, which would now restore another game, goes. */
static void lose(games_game *gm, const char *what)
{
	log_error("journal: game %lld: cannot %s: %s; the game goes on without its file (a restart ends it)",
	          (long long)gm->id, what, strerror(errno));
	gm->unjournaled = 1;
	close_slot(gm->id);
	remove_file(gm->id);
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
	h.fingerprint = build;
	h.nseats = (uint8_t)gm->nseats;
	h.auth = (uint8_t)gm->auth;
	h.id = gm->id;
	memcpy(h.token, gm->token, sizeof h.token);
	memcpy(h.admin, gm->admin, sizeof h.admin);
	memcpy(h.salt, gm->salt, sizeof h.salt);
	for (int i = 0; i < gm->nseats; i++) snprintf(h.names[i], sizeof h.names[i], "%s", gm->names[i]);
	h.cfg = *carc_game_config(gm->g);
	h.dealt = carc_game_hash(gm->g);
	h.crc = gm->jcrc = head_crc(h);
	/* made whole under another name, then renamed: a file is never half a header */
	char tmp[64], name[64];
	name_of(tmp, sizeof tmp, gm->id, ".new");
	name_of(name, sizeof name, gm->id, "");
	unlinkat(dir_fd, tmp, 0);
	int fd = open_in(tmp, O_WRONLY | O_CREAT | O_EXCL);
	if (fd < 0) return lose(gm, "create its file");
	int bad = write_all(fd, &h, sizeof h);
	if (close(fd) || bad || renameat(dir_fd, tmp, dir_fd, name)) {
		int e = errno;
		unlinkat(dir_fd, tmp, 0);
		errno = e;
		lose(gm, "write its file");
	}
}

void journal_moved(games_game *gm, const carc_move *m)
{
	if (!jdir || restoring || gm->unjournaled) return;
	journal_rec rec;
	memset(&rec, 0, sizeof rec);
	rec.m = *m;
	rec.crc = gm->jcrc = crc32(gm->jcrc, &rec.m, sizeof rec.m);
	int fd = file_of(gm->id);
	if (fd < 0) return lose(gm, "open its file");
	if (write_all(fd, &rec, sizeof rec)) lose(gm, "append a move");
}

void journal_forget(const games_game *gm)
{
	if (!jdir) return;
	close_slot(gm->id);
	if (!gm->unjournaled) return (void)remove_file(gm->id);
	char name[64]; /* lose() tried already, and said so */
	name_of(name, sizeof name, gm->id, "");
	unlinkat(dir_fd, name, 0);
}

/* ---- at start ------------------------------------------------------------------- */

/* Sets the broken file aside, with why: as <id>.game.broken, or, when
 * an earlier one holds that name, .broken.1 to .broken.999 (carcd alone
 * writes in the directory: a name found free stays free); with all of
 * them taken it stays where it is. */
static void broken(int64_t id, const char *why)
{
	char name[64], aside[80];
	struct stat st;
	name_of(name, sizeof name, id, "");
	int k = 0;
	do {
		int n = snprintf(aside, sizeof aside, "%s.broken", name);
		if (k) snprintf(aside + n, sizeof aside - (size_t)n, ".%d", k);
	} while (!fstatat(dir_fd, aside, &st, AT_SYMLINK_NOFOLLOW) && ++k < 1000);
	if (k == 1000) {
		log_error("journal: %s/%s: %s; the game is not restored (the file stays: %s.broken to .broken.999 are taken)",
		          jdir, name, why, name);
		return;
	}
	log_error("journal: %s/%s: %s; the game is not restored (the file is renamed %s)", jdir, name, why, aside);
	if (renameat(dir_fd, name, dir_fd, aside)) log_error("journal: cannot rename %s/%s: %s", jdir, name, strerror(errno));
}

/* Reads a whole regular file, and when it was last written; NULL with
 * *why on failure. */
static uint8_t *slurp(int64_t id, size_t *n, struct timespec *mtime, const char **why)
{
	char name[64];
	name_of(name, sizeof name, id, "");
	/* O_NONBLOCK: a FIFO planted under the name must not stall the start */
	int fd = open_in(name, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		*why = errno == ELOOP ? "a symbolic link, not a file" : strerror(errno);
		return NULL;
	}
	struct stat st;
	size_t cap = sizeof(journal_head) + (size_t)JOURNAL_MAX_MOVES * sizeof(journal_rec);
	*why = NULL;
	if (fstat(fd, &st)) *why = strerror(errno);
	else if (!S_ISREG(st.st_mode)) *why = "not a regular file";
	else if ((size_t)st.st_size > cap) *why = "longer than any game";
	if (*why) {
		close(fd);
		return NULL;
	}
	*mtime = st.st_mtim;
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

static int salt_ok(const char *s)
{
	for (int i = 0; i < 32; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
	return s[32] == '\0';
}

/* What is wrong with a file's header, or NULL. */
static const char *head_fault(const journal_head *h, int64_t id, const char **names)
{
	if (memcmp(h->magic, JOURNAL_MAGIC, sizeof h->magic)) return "not a carcd game file";
	if (h->fingerprint != build) return "written by another carcd build (version, tiles or rules differ) or another kind of machine (byte order, word size)";
	if (h->crc != head_crc(*h)) return "its header fails its checksum";
	if (h->id != id) return "its header names another game";
	if (h->nseats < 1 || h->nseats > CARC_MAX_SEATS || h->nseats != h->cfg.nseats || h->auth > 1 || !salt_ok(h->salt))
		return "its header is damaged";
	for (int i = 0; i < h->nseats; i++) {
		names[i] = h->names[i];
		if (memchr(names[i], '\0', PROTO_MAX_NAME + 1) == NULL || !proto_name_ok(names[i], strlen(names[i])))
			return "its header is damaged";
	}
	return NULL;
}

/* Nothing but zero bytes. */
static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i]) return 0;
	return 1;
}

/* Replays the file's setup and *nrecs moves on g: NULL, or what is
 * wrong.  *crc gets the last record's CRC.  Records that are all zero
 * bytes from one on to the end are moves whose data never reached the
 * disk (the size did: a power loss): *nrecs drops to the moves before. */
static const char *replay(carc_game *g, const journal_head *h, const uint8_t *recs, size_t *nrecs, uint32_t *crc)
{
	if (carc_game_init(g, &h->cfg, NULL) != CARC_OK) return "the engine refuses its setup";
	if (carc_game_hash(g) != h->dealt) return "this carcd deals its setup differently";
	*crc = h->crc;
	for (size_t i = 0; i < *nrecs; i++) {
		journal_rec rec;
		memcpy(&rec, recs + i * sizeof rec, sizeof rec);
		uint32_t next = crc32(*crc, &rec.m, sizeof rec.m);
		if (rec.crc != next && all_zero(recs + i * sizeof rec, (*nrecs - i) * sizeof rec)) {
			*nrecs = i;
			break;
		}
		*crc = next;
		if (rec.crc != *crc) return "a move in it fails its checksum";
		if (carc_apply(g, &rec.m, NULL) != CARC_OK) return "a move in it is not legal where it stands";
	}
	return NULL;
}

/* What became of a game's file at start (GONE: marked .gone, not read). */
enum { SET_ASIDE, RESTORED, LEFT, EXPIRED, GONE };

/* The kernel stamps files from its coarse clock, which lags the time by
 * up to a tick: that much is taken off, so that a game is never taken for
 * older than it is. */
double journal_quiet_since(struct timespec written)
{
	struct timespec now, tick = { 0, 0 };
	clock_gettime(CLOCK_REALTIME, &now);
#ifdef CLOCK_REALTIME_COARSE
	clock_getres(CLOCK_REALTIME_COARSE, &tick);
#endif
	double quiet = difftime(now.tv_sec, written.tv_sec) + (double)(now.tv_nsec - written.tv_nsec) / 1e9 -
	               ((double)tick.tv_sec + (double)tick.tv_nsec / 1e9);
	return quiet < 0 ? 0 : quiet;
}

/* Restores one game from its file: RESTORED; SET_ASIDE (broken); LEFT
 * where it is (the registry is full); EXPIRED, its file deleted (its
 * last move is `timeout` seconds old or more, timeout > 0). */
static int restore(games *r, int64_t id, carc_game **scratch, int timeout)
{
	size_t n = 0;
	const char *why = NULL, *names[CARC_MAX_SEATS];
	struct timespec written = { 0, 0 };
	uint8_t *buf = slurp(id, &n, &written, &why);
	if (!buf) {
		broken(id, why);
		return SET_ASIDE;
	}
	journal_head h;
	size_t nrecs = 0, whole = 0;
	uint32_t crc = 0;
	why = "shorter than a game's header";
	if (n >= sizeof h) {
		memcpy(&h, buf, sizeof h);
		nrecs = whole = (n - sizeof h) / sizeof(journal_rec);
		/* replayed on the scratch game first, so that a file that fails changes nothing */
		if (!(why = head_fault(&h, id, names))) why = replay(*scratch, &h, buf + sizeof h, &nrecs, &crc);
	}
	if (why) {
		free(buf);
		broken(id, why);
		return SET_ASIDE;
	}
	/* --game-timeout counts from the last move, however long carcd was down */
	double quiet = journal_quiet_since(written);
	if (timeout > 0 && quiet >= timeout) {
		free(buf);
		log_debug("journal: game %lld: closed, no move for %d s (--game-timeout)", (long long)id, timeout);
		remove_file(id);
		r->expired_total++;
		return EXPIRED;
	}
	if (r->n >= r->max) { /* never a game evicted for one restored */
		free(buf);
		log_error("journal: game %lld not restored: --max-games games are restored already; its file stays for a "
		          "restart with a higher --max-games",
		          (long long)id);
		return LEFT;
	}
	/* a move cut short by a crash was never answered: it is dropped;
	 * moves a power loss left as zero bytes too, with a line.  The file
	 * keeps the time of its last move (--game-timeout counts from it). */
	size_t keep = sizeof h + nrecs * sizeof(journal_rec); /* the bytes of the moves replayed */
	if (nrecs == whole && n != keep)
		log_debug("journal: game %lld: a move cut short by a crash (never answered) is dropped", (long long)id);
	if (nrecs < whole)
		log_warn("journal: game %lld: its last %zu move%s zero bytes on disk (the machine lost power?): it is "
		         "restored at move %zu",
		         (long long)id, whole - nrecs, whole - nrecs == 1 ? " is" : "s are", nrecs);
	int cut = 0; /* or errno: the file keeps what it cannot lose, and so cannot take more */
	if (n != keep) {
		char name[64];
		name_of(name, sizeof name, id, "");
		int fd = open_in(name, O_WRONLY);
		if (fd < 0 || ftruncate(fd, (off_t)keep)) cut = errno;
		else if (futimens(fd, (const struct timespec[2]){ { 0, UTIME_OMIT }, written }))
			log_error("journal: %s/%s: cannot keep the time of its last move: %s", jdir, name, strerror(errno));
		if (fd >= 0) close(fd);
	}
	carc_rc rc;
	int full;
	r->next_id = id;
	games_game *gm = games_create(r, &h.cfg, names, h.auth, NULL, &rc, &full);
	r->next_id = id + 1;
	if (!gm) { /* the scratch replay took the same setup */
		free(buf);
		log_error("journal: game %lld not restored: %s", (long long)id, carc_strerror(rc));
		return LEFT;
	}
	memcpy(gm->token, h.token, sizeof gm->token);
	memcpy(gm->admin, h.admin, sizeof gm->admin);
	games_set_salt(gm, h.salt);
	/* the replay's end, not replayed twice: the scratch game becomes the
	 * game's, and the game's own buffer the scratch for the next.  Not a
	 * copy: that would write every page of the state, where a game
	 * touches only those it uses, and RSS after a restore would be all
	 * of memory.games (PROTOCOL.md 6, Memory) */
	carc_game *replayed = *scratch;
	*scratch = gm->g;
	gm->g = replayed;
	for (size_t i = 0; i < nrecs; i++) {
		journal_rec rec;
		memcpy(&rec, buf + sizeof h + i * sizeof rec, sizeof rec);
		games_record(r, gm, &rec.m);
	}
	gm->jcrc = crc;
	gm->last = games_now() - quiet;
	free(buf);
	if (cut) {
		errno = cut;
		lose(gm, "cut what no move wrote off its file");
	}
	return RESTORED;
}

static int by_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* A list of game ids. */
typedef struct id_list {
	int64_t *v;
	size_t n, cap;
} id_list;

static void id_add(id_list *l, int64_t id)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = proto_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = id;
}

/* The game ids that have files in the directory, and those marked
 * <id>.game.gone, each ascending; the half-made files of a new_game that
 * a crash cut short (never answered) are removed on the way.  Returns 0,
 * or the errno of a directory that could not be read to its end (a
 * 32-bit readdir without large-file support fails on 64-bit inode
 * numbers and offsets): that is not an empty one. */
static int game_files(DIR *d, id_list *ids, id_list *gone)
{
	for (;;) {
		errno = 0;
		struct dirent *e = readdir(d);
		if (!e) {
			if (errno) return errno;
			break;
		}
		char *end;
		errno = 0;
		long long id = strtoll(e->d_name, &end, 10);
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || errno || id > GAMES_MAX_ID) continue;
		if (!strcmp(end, ".game.new")) unlinkat(dir_fd, e->d_name, 0);
		else if (!strcmp(end, ".game")) id_add(ids, id);
		else if (!strcmp(end, ".game.gone")) id_add(gone, id);
	}
	if (ids->n) qsort(ids->v, ids->n, sizeof *ids->v, by_id);
	if (gone->n) qsort(gone->v, gone->n, sizeof *gone->v, by_id);
	return 0;
}

/* The file of a game marked gone goes now, and then its mark: 1 when
 * the file is gone, 0 when it stays (an error line). */
static int clear_gone(int64_t id)
{
	char gone[64];
	if (remove_file(id)) return 0;
	name_of(gone, sizeof gone, id, ".gone");
	unlinkat(dir_fd, gone, 0);
	return 1;
}

/* Why the directory cannot hold the journal, or NULL. */
static const char *dir_fault(const char *dir)
{
	static char why[256];
	struct stat st;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(why, sizeof why, "cannot make %s: %s", dir, strerror(errno));
		return why;
	}
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		snprintf(why, sizeof why, "cannot open %s: %s", dir, strerror(errno));
		return why;
	}
	/* the files hold every seat's token: nobody else may read or plant them */
	if (fstat(dir_fd, &st)) {
		snprintf(why, sizeof why, "cannot stat %s: %s", dir, strerror(errno));
		return why;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, sizeof why, "%s belongs to uid %u: it must belong to carcd's user (uid %u)", dir,
		         (unsigned)st.st_uid, (unsigned)geteuid());
		return why;
	}
	if (st.st_mode & 077) {
		snprintf(why, sizeof why, "%s has mode %04o: it must be closed to group and others (mode 0700)", dir,
		         (unsigned)(st.st_mode & 07777));
		return why;
	}
	if (faccessat(dir_fd, ".", W_OK, AT_EACCESS)) {
		snprintf(why, sizeof why, "cannot write in %s: %s", dir, strerror(errno));
		return why;
	}
	next_fd = openat(dir_fd, "next-id", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (next_fd < 0) { /* the file the operator has to look at, named */
		snprintf(why, sizeof why, "cannot open %s/next-id: %s", dir,
		         errno == ELOOP ? "it is a symbolic link, which carcd does not follow" : strerror(errno));
		return why;
	}
	if (fstat(next_fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, sizeof why, "%s/next-id is not a regular file", dir);
		return why;
	}
	/* two daemons on one journal would delete each other's games; the
	 * lock is the directory's own, which no file removed in it undoes
	 * (where directories take none, NFS, next-id's) */
	if (flock(dir_fd, LOCK_EX | LOCK_NB) && (errno == EWOULDBLOCK || flock(next_fd, LOCK_EX | LOCK_NB))) {
		snprintf(why, sizeof why, "%s is in use by another carcd (%s)", dir, strerror(errno));
		return why;
	}
	return NULL;
}

int journal_open(const char *dir, games *r, carc_game **scratch, int game_timeout)
{
	const char *why = dir_fault(dir);
	DIR *d = NULL;
	if (!why) { /* its own descriptor: closedir closes it */
		int fd = dup(dir_fd);
		d = fd < 0 ? NULL : fdopendir(fd);
		if (!d && fd >= 0) close(fd);
	}
	if (why || !d) {
		log_error("journal: %s", why ? why : "cannot read the directory");
		journal_close();
		return -1;
	}
	jdir = proto_xstrdup(dir);
	build = fingerprint();
	id_list ids = { 0 }, gone = { 0 };
	int unread = game_files(d, &ids, &gone);
	closedir(d);
	if (unread) { /* starting with none of its games would lose them all */
		log_error("journal: cannot read %s: %s", dir, strerror(unread));
		free(ids.v);
		free(gone.v);
		journal_close();
		return -1;
	}
	/* next-id: empty in a new journal; otherwise digits and a newline */
	char text[32] = { 0 };
	ssize_t got = pread(next_fd, text, sizeof text - 1, 0);
	char *end = text;
	errno = 0;
	long long next_read = got > 0 ? strtoll(text, &end, 10) : 0;
	if (got > 0 && (errno || end == text || (*end && *end != '\n') || next_read < 1 || next_read > GAMES_MAX_ID + 1))
		log_error("journal: %s/next-id is damaged; ids of games closed or set aside before may be given again", dir);
	else if (got > 0 && next_read > r->next_id)
		r->next_id = next_read;
	else if (got <= 0 && (ids.n || gone.n))
		log_error("journal: %s/next-id is missing or empty; ids of games closed or set aside before may be given again",
		          dir);
	size_t done[5] = { 0 }, g = 0, marked = 0;
	int64_t next = r->next_id;
	restoring = 1;
	for (size_t i = 0; i < ids.n; i++) {
		int64_t id = ids.v[i];
		while (g < gone.n && gone.v[g] < id) g++;
		/* a file marked gone: its game went on without it, or was closed */
		int k = g < gone.n && gone.v[g] == id ? GONE : restore(r, id, scratch, game_timeout);
		if (k == GONE) marked += clear_gone(id);
		done[k]++;
		if (k != SET_ASIDE && id >= next) next = id + 1; /* a broken file's name is no game's id */
	}
	restoring = 0;
	for (size_t i = 0; i < gone.n; i++) { /* a mark's id was given; one whose file went since goes too */
		char name[64];
		if (gone.v[i] >= next) next = gone.v[i] + 1;
		name_of(name, sizeof name, gone.v[i], ".gone");
		if (!ids.n || !bsearch(&gone.v[i], ids.v, ids.n, sizeof *ids.v, by_id)) unlinkat(dir_fd, name, 0);
	}
	r->next_id = next;
	free(ids.v);
	free(gone.v);
	save_next_id(r->next_id);
	char expired[80] = "", removed[80] = "";
	if (done[EXPIRED])
		snprintf(expired, sizeof expired, ", %zu closed for want of moves (--game-timeout)", done[EXPIRED]);
	if (marked) snprintf(removed, sizeof removed, ", %zu file%s marked .gone removed", marked, marked == 1 ? "" : "s");
	log_info("journal: %s: %zu game%s restored%s%s%s", dir, done[RESTORED], done[RESTORED] == 1 ? "" : "s", expired,
	         removed, done[SET_ASIDE] + done[LEFT] + done[GONE] > marked ? " (others not: see the errors above)" : "");
	return 0;
}

void journal_close(void)
{
	close_slots();
	if (next_fd >= 0) close(next_fd);
	if (dir_fd >= 0) close(dir_fd);
	next_fd = dir_fd = -1;
	free(jdir);
	jdir = NULL;
}

/*
 * log.c - levelled log lines on stderr, stamped with the local time and
 * its UTC offset.  When stderr is the journal (JOURNAL_STREAM names it)
 * the journal stamps the time, so we do not; there each line starts with
 * its syslog priority (sd-daemon(3)), so that `journalctl -p err` finds
 * carcd's errors.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include "daemon.h"

int log_level = LOG_LEVEL_INFO;

static const char *const level_names[] = { "error", "warn", "info", "debug" };
static const char *const journal_priority[] = { "<3>", "<4>", "<6>", "<7>" }; /* err, warning, info, debug */

int log_level_parse(const char *s)
{
	for (int i = 0; i <= LOG_LEVEL_DEBUG; i++)
		if (!strcmp(s, level_names[i])) return i;
	return -1;
}

/* systemd.exec(5): JOURNAL_STREAM is "DEVICE:INODE" of the journal's
 * stream; it is inherited by whatever the service starts (a shell in a
 * terminal run as a user service has it), so it only counts when stderr
 * is that very stream. */
static int stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(2, &st) < 0) return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_msg(int level, const char *fmt, ...)
{
	static int journal = -1;
	if (level > log_level) return;
	if (journal < 0) journal = stderr_is_journal();
	char line[1024];
	size_t n = 0;
	if (!journal) {
		struct timeval tv;
		struct tm tm;
		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		n = strftime(line, sizeof line, "%Y-%m-%d %H:%M:%S", &tm);
		n += (size_t)snprintf(line + n, sizeof line - n, ".%03d", (int)(tv.tv_usec / 1000));
		n += strftime(line + n, sizeof line - n, "%z ", &tm);
	}
	n += (size_t)snprintf(line + n, sizeof line - n, "%s%s: ", journal ? journal_priority[level] : "", level_names[level]);
	va_list ap;
	va_start(ap, fmt);
	/* the prefix is a few dozen bytes: there is always room after it */
	vsnprintf(line + n, sizeof line - n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

/* jobsink.c: events.jsonl as the supervisor writes it, on a disk that may
 * fill (jobsink.h). */
#include "calops.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/text.h"
#include "job/jobevent.h"
#include "job/jobsink.h"
#include "proto/event.h"

/* A stalled notice leaves this much of the tail to the gap and the end. */
#define SINK_LAST_WORDS	1024u

struct job_wait {
	struct job_wait	*next;
	uint64_t	 gap;		/* a gap here (lines lost), or 0 */
	double		 ts, until;	/* a gap: since and until */
	bool		 cut, from_stderr;
	size_t		 len;
	char		 line[];
};

/*
 * Room for n more bytes and keep more after them: allocated ahead, or free
 * as far as the file system says.  0, or -1 with errno.
 */
static int
sink_room(struct job_sink *k, size_t n, size_t keep)
{
	off_t need = k->size + (off_t)n + (off_t)keep, want;
	unsigned long long avail;

	/* A file-size limit is the end of the disk, as far as we go. */
	if (k->limit > 0 && need > k->limit) {
		errno = EFBIG;
		return -1;
	}
	if (k->ahead) {
		if (need <= k->allocated)
			return 0;
		want = (need + JOB_SINK_GROW - 1) / JOB_SINK_GROW *
		    JOB_SINK_GROW;
		/* From the end: what lies before it is written already. */
		if (fallocate(k->fd, FALLOC_FL_KEEP_SIZE, k->size,
		    want - k->size) == 0) {
			k->allocated = want;
			return 0;
		}
		if (fallocate(k->fd, FALLOC_FL_KEEP_SIZE, k->size,
		    need - k->size) == 0) {
			k->allocated = need;
			return 0;
		}
		if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG ||
		    errno == EIO || errno == EINTR)
			return -1;
		k->ahead = false;	/* not on this file system */
	}
	/* Without allocation ahead: the free space, as near as it is known. */
	if (keep == 0 || fileio_free_bytes(k->fd, NULL, &avail) != 0)
		return 0;
	if (avail >= (unsigned long long)n + keep)
		return 0;
	errno = ENOSPC;
	return -1;
}

int
jobsink_open(struct job_sink *k, int dirfd, const char *name, char *err,
    size_t errlen)
{
	struct rlimit rl;
	struct stat st;

	memset(k, 0, sizeof *k);
	k->fd = openat(dirfd, name, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (k->fd == -1 || fstat(k->fd, &st) == -1) {
		errbuf_set(err, errlen, "cannot open '%s': %s", name,
		    strerror(errno));
		if (k->fd != -1)
			close(k->fd);
		k->fd = -1;
		return -1;
	}
	k->size = k->allocated = st.st_size;
	k->ahead = true;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		k->limit = (off_t)rl.rlim_cur;
	if (sink_room(k, 0, JOB_SINK_TAIL) != 0) {
		errbuf_set(err, errlen, "cannot reserve %u KiB for '%s': %s",
		    JOB_SINK_TAIL >> 10, name, strerror(errno));
		close(k->fd);
		k->fd = -1;
		return -1;
	}
	return 0;
}

/*
 * The last whole line among the last span bytes of fd, a file of size
 * bytes, read into buf (span + 1 bytes): its start, NUL-terminated without
 * its LF, its length in *len and where the whole lines end in *whole (less
 * than size after a torn line).  NULL when there is none.
 */
static char *
last_line(int fd, off_t size, char *buf, size_t span, size_t *len,
    off_t *whole)
{
	off_t off = size > (off_t)span ? size - (off_t)span : 0;
	char *nl, *start;
	ssize_t n;

	n = size > 0 ? pread(fd, buf, (size_t)(size - off), off) : 0;
	if (n <= 0 || (nl = memrchr(buf, '\n', (size_t)n)) == NULL)
		return NULL;
	*nl = '\0';
	start = memrchr(buf, '\n', (size_t)(nl - buf));
	start = start != NULL ? start + 1 : buf;
	*len = (size_t)(nl - start);
	*whole = off + (nl + 1 - buf);
	return start;
}

int
jobsink_resume(struct job_sink *k, int dirfd, const char *name,
    char *err, size_t errlen)
{
	size_t span = 2 * JOB_EVENT_MAX, len;
	char *buf, why[128], *line;
	bool is_end = false;
	off_t whole;

	if (jobsink_open(k, dirfd, name, err, errlen) != 0)
		return -1;
	if (k->size == 0)
		return 0;
	buf = xmalloc(span + 1);
	line = last_line(k->fd, k->size, buf, span, &len, &whole);
	if (line != NULL && whole < k->size && ftruncate(k->fd, whole) == 0)
		k->size = whole;		/* a torn line */
	if (line != NULL && jobevent_check(line, len, &k->seq, &is_end, why,
	    sizeof why) != 0)
		line = NULL;
	free(buf);
	if (line == NULL) {
		errbuf_set(err, errlen, "'%s' does not end with an event", name);
		jobsink_close(k);
		return -1;
	}
	return is_end ? 1 : 0;
}

static void
wait_free(struct job_sink *k)
{
	struct job_wait *w;

	while ((w = k->head) != NULL) {
		k->head = w->next;
		free(w);
	}
	k->tail = NULL;
	k->waiting = k->wait_bytes = 0;
}

/* Lines still waiting can no longer be written in their place: counted
 * in the gap to come. */
static void
wait_abandon(struct job_sink *k)
{
	struct job_wait *w;
	double since, until;
	uint64_t n;

	for (w = k->head; w != NULL; w = w->next) {
		n = w->gap > 0 ? w->gap : 1;
		since = w->ts;
		until = w->gap > 0 ? w->until : w->ts;
		if (k->dropped == 0 || since < k->dropped_since)
			k->dropped_since = since;
		if (k->dropped == 0 || until > k->dropped_until)
			k->dropped_until = until;
		k->dropped += n;
		if (w->gap == 0)
			k->lost++;
	}
	wait_free(k);
}

void
jobsink_close(struct job_sink *k)
{
	wait_abandon(k);
	if (k->fd != -1 && k->ahead && k->allocated > k->size) {
		/* Punched where it can be (tmpfs, XFS, Btrfs); ext4 gives
		 * blocks past the end back on a truncate to the same size. */
		(void)fallocate(k->fd, FALLOC_FL_PUNCH_HOLE |
		    FALLOC_FL_KEEP_SIZE, k->size, k->allocated - k->size);
		(void)!ftruncate(k->fd, k->size);
	}
	if (k->fd != -1)
		close(k->fd);
	k->fd = -1;
}

/* One numbered event, whole or not at all, leaving keep bytes of the
 * tail; 0, or -1 with errno. */
static int
sink_write(struct job_sink *k, const char *ev, size_t len, size_t keep)
{
	size_t done = 0;
	ssize_t n;
	int saved;

	if (sink_room(k, len, keep) != 0)
		return -1;
	while (done < len) {
		n = write(k->fd, ev + done, len - done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n == 0 ? EIO : errno;
			if (done > 0)
				(void)!ftruncate(k->fd, k->size);
			errno = saved;
			return -1;
		}
		done += (size_t)n;
	}
	k->size += (off_t)len;
	k->seq++;
	return 0;
}

/* An event of ours, made with the next number; fields stolen. */
static int
sink_own(struct job_sink *k, const char *type, json_t *fields, size_t keep)
{
	size_t n;
	char *ev;
	int rc, saved;

	ev = jobevent_make(k->seq + 1, jobevent_now(), type, fields, &n);
	rc = sink_write(k, ev, n, keep);
	saved = errno;
	free(ev);
	errno = saved;
	return rc;
}

static int
sink_tool_line(struct job_sink *k, double ts, const char *line, size_t len,
    bool cut, bool from_stderr)
{
	size_t n;
	char *ev;
	int rc, saved;

	ev = jobevent_from_line(k->seq + 1, ts, line, len, cut, from_stderr,
	    &n);
	rc = sink_write(k, ev, n, JOB_SINK_TAIL);
	saved = errno;
	free(ev);
	errno = saved;
	if (rc == 0)
		k->said_stalled = false;
	return rc;
}

static int
sink_gap(struct job_sink *k, uint64_t lost, double since, double until,
    size_t keep)
{
	return sink_own(k, "gap", json_pack("{s:I,s:f,s:f}", "lost",
	    (json_int_t)lost, "since", since, "until", until), keep);
}

/* The lines dropped so far, as a gap event; 0 when there are none. */
static int
sink_dropped(struct job_sink *k, size_t keep)
{
	if (k->dropped == 0)
		return 0;
	if (sink_gap(k, k->dropped, k->dropped_since, k->dropped_until,
	    keep) != 0)
		return -1;
	k->dropped = 0;
	return 0;
}

/* A write failed with errno: stalled, and the file's last line says so
 * (when the tail leaves room for it). */
static void
sink_stalled(struct job_sink *k, double ts)
{
	const char *reason;
	char *msg;

	if (k->stalled_since == 0) {
		k->stalled_since = ts;
		k->stalled_errno = errno;
	}
	if (k->said_stalled)
		return;
	reason = k->stalled_errno == ENOSPC || k->stalled_errno == EDQUOT ?
	    "disk full" : k->stalled_errno == EFBIG ? "file size limit" :
	    strerror(k->stalled_errno);
	msg = xasprintf("cannot append to events.jsonl: %s; new lines wait "
	    "in memory (up to %u MiB), then are counted as lost",
	    strerror(k->stalled_errno), JOB_SINK_WAIT_MAX >> 20);
	/* strerror() speaks the supervisor's locale, which may not be
	 * UTF-8: "s" would lose the whole event, text_json keeps it. */
	if (sink_own(k, "stalled", json_pack("{s:f,s:o,s:o}", "since",
	    k->stalled_since, "reason", text_json(reason), "msg",
	    text_json(msg)),
	    SINK_LAST_WORDS) == 0)
		k->said_stalled = true;
	free(msg);
}

/* Space again, everything written: say for how long it was not. */
static void
sink_resumed(struct job_sink *k)
{
	char *msg;

	msg = xasprintf("events.jsonl written again after %.1f s: %llu lines "
	    "waited, %llu were lost in all", jobevent_now() - k->stalled_since,
	    (unsigned long long)k->waited, (unsigned long long)k->lost);
	if (sink_own(k, "resumed", json_pack("{s:f,s:I,s:I,s:s}", "since",
	    k->stalled_since, "waited", (json_int_t)k->waited, "lost",
	    (json_int_t)k->lost, "msg", msg), JOB_SINK_TAIL) == 0) {
		k->stalled_since = 0;
		k->said_stalled = false;
	}
	free(msg);
}

/* Queue a line (or count it dropped past the bound); always 1. */
static int
wait_line(struct job_sink *k, double ts, const char *line, size_t len,
    bool cut, bool from_stderr)
{
	size_t cost = sizeof(struct job_wait) + len;
	struct job_wait *w;

	if (k->dropped > 0)
		cost += sizeof(struct job_wait);
	if (k->wait_bytes + cost > JOB_SINK_WAIT_MAX) {
		if (k->dropped++ == 0)
			k->dropped_since = ts;
		k->dropped_until = ts;
		k->lost++;
		return 1;
	}
	if (k->dropped > 0) {
		/* The lost lines sit between those before and this one. */
		w = xcalloc(1, sizeof *w);
		w->gap = k->dropped;
		w->ts = k->dropped_since;
		w->until = k->dropped_until;
		k->dropped = 0;
		if (k->tail != NULL)
			k->tail->next = w;
		else
			k->head = w;
		k->tail = w;
	}
	w = xmalloc(sizeof *w + len);
	memset(w, 0, sizeof *w);
	w->ts = ts;
	w->cut = cut;
	w->from_stderr = from_stderr;
	w->len = len;
	memcpy(w->line, line, len);
	if (k->tail != NULL)
		k->tail->next = w;
	else
		k->head = w;
	k->tail = w;
	k->waiting++;
	k->waited++;
	k->wait_bytes += cost;
	return 1;
}

int
jobsink_line(struct job_sink *k, const char *line, size_t len, bool cut,
    bool from_stderr)
{
	double ts = jobevent_now();

	if (k->head == NULL && k->stalled_since == 0) {
		if (sink_dropped(k, JOB_SINK_TAIL) == 0 &&
		    sink_tool_line(k, ts, line, len, cut, from_stderr) == 0)
			return 0;
		sink_stalled(k, ts);
	}
	return wait_line(k, ts, line, len, cut, from_stderr);
}

int
jobsink_flush(struct job_sink *k)
{
	struct job_wait *w;
	int rc;

	if (k->stalled_since == 0 && k->head == NULL && k->dropped == 0)
		return 0;
	while ((w = k->head) != NULL) {
		if (w->gap > 0)
			rc = sink_gap(k, w->gap, w->ts, w->until,
			    JOB_SINK_TAIL);
		else
			rc = sink_tool_line(k, w->ts, w->line, w->len, w->cut,
			    w->from_stderr);
		if (rc != 0) {
			sink_stalled(k, jobevent_now());
			return 1;
		}
		if (w->gap == 0) {
			k->waiting--;
			k->wait_bytes -= sizeof *w + w->len;
		} else
			k->wait_bytes -= sizeof *w;
		if ((k->head = w->next) == NULL)
			k->tail = NULL;
		free(w);
	}
	if (sink_dropped(k, JOB_SINK_TAIL) != 0) {
		sink_stalled(k, jobevent_now());
		return 1;
	}
	if (k->stalled_since != 0)
		sink_resumed(k);
	return k->stalled_since != 0;
}

int
jobsink_event(struct job_sink *k, const char *type, json_t *fields)
{
	(void)jobsink_flush(k);
	wait_abandon(k);
	/* From the tail: these are the last words, they must be written. */
	(void)sink_dropped(k, 0);
	return sink_own(k, type, fields, 0);
}

static bool
is_type(json_t *o, const char *type)
{
	const char *t = json_string_value(json_object_get(o, "type"));

	return t != NULL && strcmp(t, type) == 0;
}

double
jobsink_stalled_since(const char *path, char *why, size_t whylen)
{
	char buf[JOB_SINK_TAIL + 1], *line;
	json_t *o = NULL, *s;
	double since = 0;
	struct stat st;
	off_t whole;
	size_t len;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return 0;
	/* The very last line: a stalled event followed by nothing. */
	if (fstat(fd, &st) == 0 && (line = last_line(fd, st.st_size, buf,
	    JOB_SINK_TAIL, &len, &whole)) != NULL && whole == st.st_size &&
	    (o = json_loadb(line, len, 0, NULL)) != NULL &&
	    is_type(o, "stalled") && json_is_number(s = json_object_get(o,
	    "since")) && json_number_value(s) > 0 &&
	    json_number_value(s) < EVENT_TS_MAX) {
		since = json_number_value(s);
		s = json_object_get(o, "reason");
		errbuf_set(why, whylen, "%s", json_is_string(s) ?
		    json_string_value(s) : "cannot write");
	}
	json_decref(o);
	close(fd);
	return since;
}

/* The last whole line of fd (size bytes) read within span bytes of its end,
 * as an event: its seq, or 0. */
static uint64_t
last_seq_within(int fd, off_t size, size_t span)
{
	char *buf = xmalloc(span + 1), *line, why[64];
	uint64_t seq = 0;
	bool is_end;
	off_t whole;
	size_t len;

	if ((line = last_line(fd, size, buf, span, &len, &whole)) == NULL ||
	    jobevent_check(line, len, &seq, &is_end, why, sizeof why) != 0)
		seq = 0;
	free(buf);
	return seq;
}

uint64_t
jobsink_last_seq(const char *path)
{
	uint64_t seq = 0;
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return 0;
	/* Most events are short: a page first, then the longest there is. */
	if (fstat(fd, &st) == 0 && (seq = last_seq_within(fd, st.st_size,
	    4096)) == 0)
		seq = last_seq_within(fd, st.st_size, 2 * JOB_EVENT_MAX);
	close(fd);
	return seq;
}

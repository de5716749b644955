/* labmirror.c: a job's mirror (labmirror.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/lines.h"
#include "base/statedir.h"
#include "lab/labmirror.h"
#include "proto/event.h"

/* Free space a failed mirror waits for before it is tried again. */
#define MIRROR_ROOM	(4ull * EVENT_LINE_MAX)
/* Held lines written at once from this many bytes. */
#define MIRROR_HOLD	(64u * 1024)

void
labmirror_init(struct labmirror *m, char *path)
{
	memset(m, 0, sizeof *m);
	m->path = path;
	m->fd = -1;
	/* Past the hold, an event of the longest size: never refused. */
	buf_init(&m->pend, MIRROR_HOLD + EVENT_LINE_MAX + 1);
}

static void
close_fd(struct labmirror *m)
{
	if (m->fd != -1)
		close(m->fd);
	m->fd = -1;
}

void
labmirror_close(struct labmirror *m)
{
	char err[512];

	/* Not written: the file ends on a whole line all the same, and the
	 * follow at the next start fetches the rest from the host. */
	if (labmirror_flush(m, err, sizeof err) != 0)
		buf_reset(&m->pend);
	close_fd(m);
}

void
labmirror_release(struct labmirror *m)
{
	labmirror_replay_close(m);
	labmirror_close(m);
	buf_release(&m->pend);
	free(m->path);
	free(m->refused);
	m->path = m->refused = NULL;
}

/*
 * The mirror's file, opened with flags as the state's files are
 * (statedir.h); -1 with err and errno.  A refusal (EACCES: a link, not a
 * regular file, another user's, writable by others) says the path and the
 * fix, and is kept in m->refused; any other failure says the path.
 */
static int
open_mirror(struct labmirror *m, int flags, char *err, size_t errlen)
{
	int fd, e;

	if ((fd = statedir_open_path(m->path, flags, 0600, err,
	    errlen)) != -1)
		return fd;
	e = errno;
	if (e == EACCES) {
		free(m->refused);
		m->refused = xstrdup(err);
	} else
		errbuf_set(err, errlen, "cannot open '%s': %s", m->path,
		    strerror(e));
	errno = e;
	return -1;
}

int
labmirror_open(struct labmirror *m, char *err, size_t errlen)
{
	struct stat st;

	if (m->fd != -1)
		return 0;
	if (m->path == NULL) {
		errbuf_set(err, errlen, "no state folder for the mirror");
		return -1;
	}
	if ((m->fd = open_mirror(m, O_WRONLY | O_APPEND | O_CREAT, err,
	    errlen)) == -1)
		return -1;
	if (fstat(m->fd, &st) != 0) {
		errbuf_set(err, errlen, "cannot open '%s': %s", m->path,
		    strerror(errno));
		close_fd(m);
		return -1;
	}
	m->size = st.st_size;
	return 0;
}

int
labmirror_append(struct labmirror *m, const char *line, size_t len,
    char *err, size_t errlen)
{
	if (m->failed)
		return 0;
	if (buf_add(&m->pend, line, len) != 0 || buf_addc(&m->pend,
	    '\n') != 0) {
		/* Longer than any event, which the follow refuses: never. */
		errbuf_set(err, errlen, "an event of %zu bytes for '%s'", len,
		    m->path != NULL ? m->path : "the mirror");
		buf_reset(&m->pend);
		m->failed = true;
		return -1;
	}
	return m->pend.len >= MIRROR_HOLD ? labmirror_flush(m, err, errlen) : 0;
}

int
labmirror_flush(struct labmirror *m, char *err, size_t errlen)
{
	int e;

	if (m->pend.len == 0)
		return 0;
	if (m->failed) {
		buf_reset(&m->pend);
		return 0;
	}
	if (m->fd == -1 && labmirror_open(m, err, errlen) != 0) {
		buf_reset(&m->pend);
		m->failed = true;
		return -1;
	}
	errno = 0;
	if (fileio_write_full(m->fd, m->pend.data, m->pend.len) == 0) {
		m->size += (off_t)m->pend.len;
		buf_reset(&m->pend);
		return 0;
	}
	/* No space, most likely: what went in is cut off again. */
	e = errno;
	buf_reset(&m->pend);
	if (ftruncate(m->fd, m->size) != 0)
		errbuf_set(err, errlen, "%s: cannot append to '%s', nor cut "
		    "it back: %s", e != 0 ? strerror(e) : "short write",
		    m->path, strerror(errno));
	else
		/* The reason first: a narrow status line clips the path. */
		errbuf_set(err, errlen, "%s: cannot append to '%s'",
		    e != 0 ? strerror(e) : "short write", m->path);
	close_fd(m);
	m->failed = true;
	return -1;
}

bool
labmirror_has_room(const struct labmirror *m)
{
	unsigned long long avail;
	char *dir, *slash;
	bool room;

	if (m->path == NULL)
		return false;
	dir = xstrdup(m->path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	/* Room for a few of the longest events, as near as it is known. */
	room = fileio_free_bytes(-1, dir, &avail) != 0 || avail >= MIRROR_ROOM;
	free(dir);
	return room;
}

int
labmirror_replay_open(struct labmirror *m, double *mtime, char *err,
    size_t errlen)
{
	struct stat st;
	int fd;

	if (m->path == NULL) {
		errno = ENOENT;
		return -1;
	}
	if ((fd = open_mirror(m, O_RDWR, err, errlen)) == -1) {
		/* What cannot be read is not taken for none: following the
		 * job from its start would append it all again. */
		if (errno != ENOENT && m->refused == NULL)
			m->refused = xstrdup(err);
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		errbuf_set(err, errlen, "cannot read '%s': %s", m->path,
		    strerror(errno));
		free(m->refused);
		m->refused = xstrdup(err);
		close(fd);
		return -1;
	}
	*mtime = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
	/* A line longer than any event (a corrupt file) is cut by the
	 * reader and reported bad, never held whole. */
	m->replay = xcalloc(1, sizeof *m->replay);
	lines_open_fd(m->replay, fd, EVENT_LINE_MAX);
	m->replay_rc = 0;
	return 0;
}

void
labmirror_replay_close(struct labmirror *m)
{
	if (m->replay == NULL)
		return;
	lines_close(m->replay);
	free(m->replay);
	m->replay = NULL;
}

int
labmirror_replay_next(struct labmirror *m, const char **line, size_t *len,
    bool *bad)
{
	bool cut;

	if (m->replay == NULL)
		return 0;
	/* A last line without its LF was cut by a crash: it ends the
	 * replay, and labmirror_replay_end() cuts it off. */
	if ((m->replay_rc = lines_next(m->replay, line, len, &cut)) <= 0 ||
	    !m->replay->lf)
		return 0;
	*bad = cut || memchr(*line, '\0', *len) != NULL;
	return 1;
}

int
labmirror_replay_end(struct labmirror *m, bool keep_file, char *err,
    size_t errlen)
{
	struct lines *r = m->replay;
	int rc = 0;

	if (r == NULL)
		return 0;
	if (m->replay_rc == -1) {
		errbuf_set(err, errlen, "cannot read '%s': %s", m->path,
		    strerror(errno));
		rc = -1;
	} else if (!keep_file && m->replay_rc == 1 &&
	    ftruncate(r->fd, (off_t)r->whole) != 0) {
		errbuf_set(err, errlen, "cannot cut '%s': %s", m->path,
		    strerror(errno));
		m->failed = true;
		rc = -1;
	}
	m->size = (off_t)r->whole;
	labmirror_replay_close(m);
	return rc;
}

/* The bytes before end in fd, want of them at most (fewer at the start of
 * the file), into buf; their count, or -1.  *at is where they start. */
static ssize_t
read_before(int fd, off_t end, size_t want, char *buf, off_t *at)
{
	*at = end > (off_t)want ? end - (off_t)want : 0;
	return pread(fd, buf, (size_t)(end - *at), *at) == end - *at ?
	    (ssize_t)(end - *at) : -1;
}

/*
 * The end of a mirror of size bytes: *whole is where its last whole line
 * ends (a line after it was cut by a crash), *seq that line's seq and
 * *type its type.  False when the last line is not an event (a corrupt
 * file): *seq is then -1.  An empty mirror ends at seq 0.
 */
static bool
mirror_tail(int fd, off_t size, off_t *whole, int64_t *seq,
    enum event_type *type)
{
	/* A line the console wrote is at most an event and its LF: a cut one
	 * is shorter, the whole one before it no longer.  Most are far
	 * shorter: a small read first, as every mirror is read at start. */
	const size_t wants[] = { 4096, EVENT_LINE_MAX + 2 };
	char *buf = xmalloc(wants[1]), *nl = NULL, *line = NULL;
	struct event ev;
	bool ok = false;
	ssize_t n;
	size_t i;
	off_t at = 0;

	*whole = size;
	*seq = -1;
	*type = EVENT_LOG;
	/* Where the last whole line ends. */
	for (i = 0; i < nitems(wants) && nl == NULL; i++) {
		if ((n = read_before(fd, size, wants[i], buf, &at)) < 0)
			goto out;
		nl = memrchr(buf, '\n', (size_t)n);
		if (at == 0)
			break;
	}
	if (nl == NULL) {
		/* No LF at all is an empty mirror (or one cut line) when the
		 * file is that short; longer, it is not a mirror. */
		if (at == 0) {
			*whole = 0;
			*seq = 0;
			ok = true;
		}
		goto out;
	}
	*whole = at + (nl - buf) + 1;
	/* That line, read whole with the LF before it. */
	for (i = 0; i < nitems(wants) && line == NULL; i++) {
		if ((n = read_before(fd, *whole, wants[i], buf, &at)) < 0)
			goto out;
		nl = buf + n - 1;
		if ((line = memrchr(buf, '\n', (size_t)(nl - buf))) != NULL)
			line++;
		else if (at == 0)
			line = buf;
	}
	if (line == NULL)
		goto out;	/* longer than any event */
	if (memchr(line, '\0', (size_t)(nl - line)) == NULL &&
	    event_parse(line, (size_t)(nl - line), &ev) == EVENT_OK) {
		*seq = ev.seq;
		*type = ev.type;
		ok = true;
	}
out:
	free(buf);
	return ok;
}

bool
labmirror_ended(const char *path)
{
	enum event_type type;
	struct stat st;
	int64_t seq;
	off_t whole;
	bool ended;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return false;
	ended = fstat(fd, &st) == 0 && mirror_tail(fd, st.st_size, &whole,
	    &seq, &type) && type == EVENT_END;
	close(fd);
	return ended;
}

int
labmirror_adopt(struct labmirror *m, char *err, size_t errlen)
{
	enum event_type type;
	struct stat st;
	int64_t seq;
	off_t whole;
	bool bad = false;
	int fd;

	if (m->path == NULL) {
		m->seq = m->size = 0;
		return 0;
	}
	if ((fd = open_mirror(m, O_RDWR, err, errlen)) == -1 &&
	    errno != ENOENT)
		m->failed = bad = true;
	else if (fd == -1)
		m->seq = m->size = 0;
	else if (fstat(fd, &st) != 0 || !mirror_tail(fd, st.st_size, &whole,
	    &seq, &type)) {
		errbuf_set(err, errlen, "'%s' does not end in an event: it is "
		    "not written any more", m->path);
		m->failed = bad = true;
	} else if (whole < st.st_size && ftruncate(fd, whole) != 0) {
		errbuf_set(err, errlen, "cannot cut '%s': %s", m->path,
		    strerror(errno));
		m->failed = bad = true;
	} else {
		m->size = whole;
		m->seq = seq;
	}
	if (fd != -1)
		close(fd);
	return bad ? -1 : 0;
}

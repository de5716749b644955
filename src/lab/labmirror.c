/*
 * labmirror.c: a job's mirror in the lab model (labmodel_int.h), the file
 * $XDG_STATE_HOME/calops/streams/<host>/<job>.jsonl every event is appended
 * to before it is applied: appending (cut back to its last whole line when
 * a write fails), the replay a chunk at a time when the console starts,
 * where it ends (its last whole line and seq), and taking over one another
 * console wrote.
 */
#include "calops.h"

#include <sys/stat.h>
#include <sys/uio.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/lines.h"
#include "lab/labmodel_int.h"
#include "proto/event.h"

int
labmirror_open(struct ljob_int *j, char *err, size_t errlen)
{
	struct stat st;

	if (j->mirror_fd != -1)
		return 0;
	j->mirror_fd = open(j->mirror_path, O_WRONLY | O_APPEND | O_CREAT |
	    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (j->mirror_fd == -1 || fstat(j->mirror_fd, &st) != 0) {
		errbuf_set(err, errlen, "cannot open '%s': %s",
		    j->mirror_path, strerror(errno));
		if (j->mirror_fd != -1)
			close(j->mirror_fd);
		j->mirror_fd = -1;
		return -1;
	}
	j->mirror_size = st.st_size;
	return 0;
}

/*
 * Append one event to the mirror.  A write that fails or falls short is
 * undone (the file cut back to its last whole line) and the mirror is
 * written no more: the event is still applied, and a console started again
 * resumes at the mirror's end and fetches what it lacks from the host.
 */
void
labmirror_append(struct ljob_int *j, const char *line, size_t len)
{
	struct iovec iov[2] = { { (void *)line, len }, { "\n", 1 } };
	char err[256];
	ssize_t n;

	if (j->mirror_failed)
		return;
	if (j->mirror_fd == -1 && labmirror_open(j, err, sizeof err) != 0) {
		labmodel_warn(j->lm, "%s", err);
		j->mirror_failed = true;
		return;
	}
	if ((n = writev(j->mirror_fd, iov, 2)) == (ssize_t)(len + 1)) {
		j->mirror_size += (off_t)n;
		return;
	}
	labmodel_warn(j->lm, "cannot append to '%s': %s", j->mirror_path,
	    n < 0 ? strerror(errno) : "short write");
	if (ftruncate(j->mirror_fd, j->mirror_size) != 0)
		labmodel_warn(j->lm, "cannot cut '%s' back: %s", j->mirror_path,
		    strerror(errno));
	close(j->mirror_fd);
	j->mirror_fd = -1;
	j->mirror_failed = true;
}

int
labmirror_replay_open(struct ljob_int *j)
{
	struct stat st;
	int fd;

	fd = open(j->mirror_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	j->pub.last_recv = (double)st.st_mtim.tv_sec +
	    (double)st.st_mtim.tv_nsec / 1e9;
	/* A line longer than any event (a corrupt file) is cut by the
	 * reader and counted bad here, never held whole. */
	j->replay = xcalloc(1, sizeof *j->replay);
	lines_open_fd(j->replay, fd, EVENT_LINE_MAX);
	return 0;
}

void
labmirror_replay_close(struct ljob_int *j)
{
	lines_close(j->replay);
	free(j->replay);
	j->replay = NULL;
}

bool
labmirror_replay_step(struct ljob_int *j, size_t *budget, bool keep_file)
{
	struct lines *r = j->replay;
	struct event ev;
	const char *line;
	size_t len;
	bool cut;
	int rc = 0;

	if (r == NULL)
		return true;
	for (; *budget > 0; (*budget)--) {
		if ((rc = lines_next(r, &line, &len, &cut)) <= 0 || !r->lf)
			break;
		if (cut || memchr(line, '\0', len) != NULL ||
		    event_parse(line, len, &ev) != EVENT_OK ||
		    ev.seq <= j->pub.last_seq) {
			j->pub.bad_lines++;
			continue;
		}
		labstream_apply(j, &ev, line, len);
	}
	if (*budget == 0)
		return false;
	/* At the end: a last line cut by a crash (no LF) goes, so that
	 * appending starts on a whole line; a read error keeps the file. */
	if (rc == -1)
		labmodel_warn(j->lm, "cannot read '%s': %s", j->mirror_path,
		    strerror(errno));
	else if (!keep_file && rc == 1 &&
	    ftruncate(r->fd, (off_t)r->whole) != 0) {
		/* Appending after the cut line would merge it with the next
		 * event: written no more (the next start fetches the rest). */
		labmodel_warn(j->lm, "cannot cut '%s': %s", j->mirror_path,
		    strerror(errno));
		j->mirror_failed = true;
	}
	j->mirror_size = (off_t)r->whole;
	j->mirror_seq = j->pub.last_seq;
	labmirror_replay_close(j);
	j->pub.replaying = false;
	return true;
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

void
labmirror_adopt(struct ljob_int *j)
{
	enum event_type type;
	struct stat st;
	int64_t seq;
	off_t whole;
	int fd;

	if ((fd = open(j->mirror_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) ==
	    -1 && errno != ENOENT) {
		labmodel_warn(j->lm, "cannot open '%s': %s", j->mirror_path,
		    strerror(errno));
		j->mirror_failed = true;
	} else if (fd == -1)
		j->mirror_seq = j->mirror_size = 0;
	else if (fstat(fd, &st) != 0 || !mirror_tail(fd, st.st_size, &whole,
	    &seq, &type)) {
		labmodel_warn(j->lm, "'%s' does not end in an event: it is not "
		    "written any more", j->mirror_path);
		j->mirror_failed = true;
	} else if (whole < st.st_size && ftruncate(fd, whole) != 0) {
		labmodel_warn(j->lm, "cannot cut '%s': %s", j->mirror_path,
		    strerror(errno));
		j->mirror_failed = true;
	} else {
		j->mirror_size = whole;
		j->mirror_seq = seq;
	}
	if (fd != -1)
		close(fd);
}

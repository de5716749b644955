/* jobreader.c: events.jsonl read as it grows, from any seq on
 * (jobreader.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "job/jobevent.h"
#include "job/jobreader.h"

#define READ_CHUNK	(64u << 10)
/* smaller files are read from the start */
#define SEEK_MIN_SIZE	(1u << 20)
#define SEEK_WINDOW	(256u << 10)	/* bisection stops at this much */

int
jobreader_open(struct job_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	return r->fd == -1 ? -1 : 0;
}

void
jobreader_close(struct job_reader *r)
{
	if (r->fd != -1)
		close(r->fd);
	free(r->buf);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

/* A complete line in the buffer (1), an over-long one dropped (2), or 0. */
static int
reader_take(struct job_reader *r, const char **line, size_t *len)
{
	char *p, *nl;

	while (r->start < r->len) {
		p = r->buf + r->start;
		if ((nl = memchr(p, '\n', r->len - r->start)) == NULL)
			break;
		r->start += (size_t)(nl - p) + 1;
		if (r->skipping) {
			r->skipping = false;
			continue;
		}
		*nl = '\0';
		r->lineno++;
		*line = p;
		*len = (size_t)(nl - p);
		return 1;
	}
	if (r->skipping)
		r->start = r->len = 0;
	else if (r->len - r->start > JOB_READ_MAX) {
		r->skipping = true;
		r->start = r->len = 0;
		r->lineno++;
		return 2;
	}
	return 0;
}

/*
 * At the end of the file with part of a line read: forget that part and
 * read it again from where it began next time.  Its writer may cut it back
 * (a torn line, on a file system that cannot allocate ahead) and write
 * another line there, which must be read whole, never glued to the torn
 * bytes.  A line is written in one write(2), so this is rare and short.
 */
static void
reader_unread(struct job_reader *r)
{
	size_t partial = r->len - r->start;

	if (partial > 0 && lseek(r->fd, -(off_t)partial, SEEK_CUR) != -1)
		r->len = r->start;
}

int
jobreader_next(struct job_reader *r, const char **line, size_t *len)
{
	ssize_t n;
	int rc;

	for (;;) {
		if ((rc = reader_take(r, line, len)) != 0)
			return rc;
		if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, r->len - r->start);
			r->len -= r->start;
			r->start = 0;
		}
		if (r->alloc - r->len < READ_CHUNK) {
			r->alloc = r->len + READ_CHUNK;
			r->buf = xrealloc(r->buf, r->alloc);
		}
		n = read(r->fd, r->buf + r->len, r->alloc - r->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == 0 && !r->skipping)
			reader_unread(r);
		if (n <= 0)
			return n == 0 ? 0 : -1;
		r->len += (size_t)n;
	}
}

/* The first whole line after offset off (at off itself when it is 0): its
 * start and seq.  -1 when there is none or it is not an event. */
static int
probe(struct job_reader *r, off_t off, char *buf, off_t *at, uint64_t *seq)
{
	char err[128], *p, *end;
	bool is_end;
	ssize_t n;

	n = pread(r->fd, buf, 2 * JOB_EVENT_MAX, off);
	if (n <= 0)
		return -1;
	p = buf;
	if (off > 0) {
		if ((p = memchr(buf, '\n', (size_t)n)) == NULL)
			return -1;
		p++;
	}
	if ((end = memchr(p, '\n', (size_t)(buf + n - p))) == NULL)
		return -1;
	*at = off + (p - buf);
	return jobevent_check(p, (size_t)(end - p), seq, &is_end, err,
	    sizeof err);
}

void
jobreader_seek(struct job_reader *r, uint64_t from)
{
	off_t lo = 0, hi, mid, at;
	uint64_t lo_seq = 0, seq;
	struct stat st;
	char *buf;

	if (from <= 1 || fstat(r->fd, &st) == -1 || st.st_size < SEEK_MIN_SIZE)
		return;
	buf = xmalloc(2 * JOB_EVENT_MAX);
	hi = st.st_size;
	while (hi - lo > SEEK_WINDOW) {
		mid = lo + (hi - lo) / 2;
		if (probe(r, mid, buf, &at, &seq) != 0)
			break;
		if (seq < from && at < hi) {
			lo = at;
			lo_seq = seq;
		} else
			hi = mid;
	}
	free(buf);
	if (lo == 0 || lseek(r->fd, lo, SEEK_SET) == -1)
		return;
	r->start = r->len = 0;
	r->skipping = false;
	r->lineno = (size_t)lo_seq - 1;
}

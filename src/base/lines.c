/* lines.c: bounded line reading (see lines.h). */
#include "calops.h"

#include <fcntl.h>
#include <unistd.h>

#include "base/lines.h"

#define LINES_READ_SIZE (1u << 20)

void
lines_open_fd(struct lines *l, int fd, size_t cap)
{
	memset(l, 0, sizeof *l);
	l->fd = fd;
	l->size = LINES_READ_SIZE;
	l->cap = cap == 0 ? LINES_DEFAULT_CAP : cap;
}

int
lines_open(struct lines *l, const char *path, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return -1;
	lines_open_fd(l, fd, cap);
	return 0;
}

void
lines_close(struct lines *l)
{
	if (l->fd != -1)
		close(l->fd);
	free(l->buf);
	free(l->line);
	memset(l, 0, sizeof *l);
	l->fd = -1;
}

static int
refill(struct lines *l)
{
	ssize_t n;

	/* The buffer is made at the first read: a reader opened and not yet
	 * read (the console's queued replays) costs no memory. */
	if (l->buf == NULL)
		l->buf = xmalloc(l->size);
	l->base += l->end;
	l->start = l->end = 0;
	do
		n = read(l->fd, l->buf, l->size);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	if (n == 0)
		l->eof = true;
	l->end = (size_t)n;
	return 0;
}

/*
 * Keep up to the cap of a line that spans reads, plus one byte: a CR that
 * ends a line of exactly the cap is dropped, not a reason to cut.  The rest
 * is dropped.
 */
static void
keep(struct lines *l, size_t *have, const char *p, size_t n, bool *cut)
{
	size_t room = l->cap + 1 - *have;

	if (n > room) {
		*cut = true;
		n = room;
	}
	if (*have + n + 1 > l->line_alloc) {
		l->line_alloc = *have + n + 1 < 4096 ? 4096 :
		    (*have + n + 1) * 2;
		if (l->line_alloc > l->cap + 2)
			l->line_alloc = l->cap + 2;
		l->line = xrealloc(l->line, l->line_alloc);
	}
	if (n != 0)
		memcpy(l->line + *have, p, n);
	*have += n;
}

int
lines_next(struct lines *l, const char **line, size_t *len, bool *cut)
{
	size_t have = 0, n = 0;
	bool spanning = false;
	char *nl, *p;

	*cut = false;
	l->lf = true;
	for (;;) {
		if (l->start == l->end) {
			if (!l->eof && refill(l) == -1)
				return -1;
			if (l->eof) {
				if (!spanning)
					return 0;
				l->lf = false;
				break;
			}
		}
		p = l->buf + l->start;
		nl = memchr(p, '\n', l->end - l->start);
		if (nl != NULL && !spanning) {
			n = (size_t)(nl - p);
			if (n > 0 && p[n - 1] == '\r')
				n--;
		}
		if (nl != NULL && !spanning && n <= l->cap) {
			/* The fast path: the whole line is in the buffer. */
			l->start += (size_t)(nl - p) + 1;
			l->whole = l->base + l->start;
			p[n] = '\0';
			l->lineno++;
			*line = p;
			*len = n;
			return 1;
		}
		spanning = true;
		if (nl != NULL) {
			keep(l, &have, p, (size_t)(nl - p), cut);
			l->start += (size_t)(nl - p) + 1;
			l->whole = l->base + l->start;
			break;
		}
		keep(l, &have, p, l->end - l->start, cut);
		l->start = l->end;
	}
	if (l->line == NULL)
		l->line = xmalloc(l->line_alloc = 1);
	if (have > 0 && l->line[have - 1] == '\r' && !*cut)
		have--;
	if (have > l->cap) {
		have = l->cap;
		*cut = true;
	}
	l->line[have] = '\0';
	l->lineno++;
	*line = l->line;
	*len = have;
	return 1;
}

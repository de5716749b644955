/*
 * lines.h: read a file line by line without ever holding more than one line
 * (up to a cap) in memory: JSON Lines artifacts can be many GB (a 24 h soak
 * at 200 requests/s is 17 M lines) and a hostile file can hold a line of many
 * MB.  A line longer than the cap is reported as cut (its first `cap` bytes
 * are returned) and the rest of it is skipped, so reading goes on.
 *
 * Line ends are LF; a CR before it is dropped.  The last line may lack its
 * LF (l->lf says whether the line returned had one), and l->whole is where
 * the whole lines read so far end: a file appended a line at a time can be
 * cut back there when its last line was cut short by a crash.  A struct
 * lines is owned by the caller; lines_close releases it.
 */
#ifndef CALOPS_LINES_H
#define CALOPS_LINES_H

#include "calops.h"

#define LINES_DEFAULT_CAP (1u << 20)

struct lines {
	int	 fd;
	char	*buf;		/* read buffer */
	size_t	 size, start, end;
	char	*line;		/* the assembled line when it spans reads */
	size_t	 line_alloc;
	size_t	 cap;
	size_t	 lineno;	/* of the line last returned, 1-based */
	bool	 eof;
	bool	 lf;		/* the line last returned ended with a LF */
	uint64_t base;		/* file offset of buf[0] */
	uint64_t whole;		/* file offset just past the last LF read */
};

/* Returns 0, or -1 with errno set. */
int	lines_open(struct lines *l, const char *path, size_t cap);
/* The same on an open fd, read from its current offset (counted as 0);
 * lines_close closes it. */
void	lines_open_fd(struct lines *l, int fd, size_t cap);
/*
 * Next line in *line (len bytes, NUL-terminated, borrowed until the next
 * call).  Returns 1 for a line, 0 at the end, -1 on a read error (errno).
 * *cut is set when the line was longer than the cap.
 */
int	lines_next(struct lines *l, const char **line, size_t *len, bool *cut);
void	lines_close(struct lines *l);

#endif

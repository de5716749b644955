/*
 * jobreader.h: a job's events.jsonl read back, by `calops tail` and the
 * tests: whole lines only, as the file grows, from any seq on.  A struct
 * job_reader is its caller's: jobreader_open() readies it and
 * jobreader_close() releases it.
 */
#ifndef CALOPS_JOBREADER_H
#define CALOPS_JOBREADER_H

#include "calops.h"

/* a longer line in events.jsonl is corrupt */
#define JOB_READ_MAX	(1u << 20)

/*
 * Reads events.jsonl as it grows: only complete lines (a last line still
 * being written waits for its LF); a line over JOB_READ_MAX is skipped.
 */
struct job_reader {
	int		 fd;
	char		*buf;
	size_t		 start, len, alloc;
	size_t		 lineno;	/* of the line last returned */
	bool		 skipping;	/* inside an over-long line */
};

int	 jobreader_open(struct job_reader *r, const char *path);
void	 jobreader_close(struct job_reader *r);
/*
 * Move to the last line whose seq is below from, by bisection when the file
 * is large (its seqs increase); line numbers then count from that seq.
 */
void	 jobreader_seek(struct job_reader *r, uint64_t from);
/* 1 with a line (borrowed until the next call, NUL-terminated, no LF), 2
 * when an over-long line was skipped, 0 when no complete line is there yet,
 * -1 on a read error (errno). */
int	 jobreader_next(struct job_reader *r, const char **line,
	    size_t *len);

#endif

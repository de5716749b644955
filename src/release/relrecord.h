/*
 * relrecord.h: one audit record of 08-release/audit.jsonl (share/doc/
 * release.md §3): the bytes its signature covers, the line, and reading a
 * line back.  Checking a record against the log is relaudit.h's.
 */
#ifndef CALOPS_RELRECORD_H
#define CALOPS_RELRECORD_H

#include "calops.h"

struct relrecord {
	long long	 seq;
	double		 ts;
	char		*actor;
	char		*key_id;
	char		*action;	/* promote, rollback, refused */
	long		 from, to;	/* -1: null */
	char		*reason;
	char		 prev_sha256[65];
	char		*sig;		/* relrecord_parse() only */
};

/* The bytes a record's signature covers: its first nine members as one
 * compact object (a new string). */
char	*relrecord_signed_bytes(const struct relrecord *r);
/* The whole line, sig last, no newline (a new string). */
char	*relrecord_line(const struct relrecord *r, const char *sig_b64);
/* Read a line back; 0, or -1 with err.  relrecord_free() after. */
int	 relrecord_parse(const char *line, size_t len, struct relrecord *r,
	    char *err, size_t errlen);
void	 relrecord_free(struct relrecord *r);

#endif

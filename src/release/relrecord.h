/*
 * relrecord.h: one audit record of 08-release/audit.jsonl (share/doc/
 * release.md §3): the bytes its signature covers, the line, and reading a
 * line back.  Checking a record against the log is relaudit.h's.
 */
#ifndef CALOPS_RELRECORD_H
#define CALOPS_RELRECORD_H

#include "calops.h"

#include <jansson.h>

/*
 * A record's chip_step (release.md §3, v3): what a promote (or a rollback
 * asked for one) ran on a chip before the switch, or why it ran none.  A
 * record of v2 has none (RELCHIP_NONE), and stays valid.
 */
enum relchip_kind {
	RELCHIP_NONE,
	RELCHIP_RAN,		/* {host, chip, job, golden_sha256, result} */
	RELCHIP_SKIPPED,	/* {skipped: REASON} */
};

struct relchip {
	enum relchip_kind kind;
	char		*host;		/* RAN: the lab host's name */
	long		 chip;		/* RAN: the chip */
	char		*job;		/* RAN: the lab job's id */
	char		 golden_sha256[65];	/* RAN: of its result file */
	char		*skipped;	/* SKIPPED: the approver's reason */
};

struct relrecord {
	long long	 seq;
	double		 ts;
	char		*actor;
	char		*key_id;
	char		*action;	/* promote, rollback, refused */
	long		 from, to;	/* -1: null */
	char		*reason;
	struct relchip	 chip;		/* between reason and prev_sha256 */
	char		 prev_sha256[65];
	char		*sig;		/* relrecord_parse() only */
};

/* chip_step as a JSON object (new), NULL for RELCHIP_NONE. */
json_t	*relrecord_chip_json(const struct relchip *c);
/* Read chip_step back from v (borrowed); 0, or -1 with err when it is not
 * one of the two forms, members in order and nothing else.  c is
 * relrecord_chip_free()d by the caller either way. */
int	 relrecord_chip_parse(const json_t *v, struct relchip *c, char *err,
	    size_t errlen);
void	 relrecord_chip_free(struct relchip *c);

/* The bytes a record's signature covers: every member but sig (nine, ten
 * with chip_step) as one compact object (a new string). */
char	*relrecord_signed_bytes(const struct relrecord *r);
/* The whole line, sig last, no newline (a new string). */
char	*relrecord_line(const struct relrecord *r, const char *sig_b64);
/* Read a line back; 0, or -1 with err.  relrecord_free() after. */
int	 relrecord_parse(const char *line, size_t len, struct relrecord *r,
	    char *err, size_t errlen);
void	 relrecord_free(struct relrecord *r);

#endif

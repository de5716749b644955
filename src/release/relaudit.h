/*
 * relaudit.h: the verification of a release's audit log (release.md §3):
 * its hash chain and its signatures.  (Promote and rollback build on it.)
 */
#ifndef CALOPS_RELAUDIT_H
#define CALOPS_RELAUDIT_H

#include "calops.h"

#include "release/keyring.h"

struct audit_state {
	size_t		 records;
	/* -1: no promote/rollback yet */
	long long	 last_switch_to;
	double		 last_switch_ts;	/* its ts; 0 with none */
	long long	 last_switch_from;	/* its from; -1: null */
	/* Its chip_step (v3): none (a v2 record, a rollback), ran, or
	 * skipped with the approver's reason (truncated here; "" else). */
	int		 last_switch_chip;	/* enum relchip_kind */
	char		 last_switch_skipped[256];
	char		 last_switch_job[64];	/* its chip step's job, or "" */
	char		 last_line_sha256[65];
	/* The first broken link, when verification fails. */
	size_t		 bad_line;		/* 1-based, 0 when intact */
	char		 problem[256];
};

/*
 * Walk audit.jsonl (len bytes): every record compact JSON with seq from 1,
 * prev_sha256 the SHA-256 of the previous line's bytes (64 zeros first),
 * action promote|rollback|refused, a chip_step after reason in a promote
 * or rollback of v3 (relrecord.h), and sig an Ed25519 signature by the
 * trusted key named key_id over the line up to ',"sig":' followed by '}'.
 * Returns 0 when intact, -1 with out->bad_line and out->problem set.
 */
int	 relaudit_verify(const char *data, size_t len,
	    const struct keyring *kr,
	    struct audit_state *out);
/*
 * What verified before (relcache.h): the first records lines of the log,
 * bytes bytes whose SHA-256 is sha256.
 */
struct relaudit_known {
	size_t	records;	/* 0: nothing known */
	size_t	bytes;
	char	sha256[65];
};
/*
 * The same, but when the log still begins with the bytes known describes
 * (NULL: nothing known), they are not parsed or checked again: only the
 * records after them are, their form, place and signatures, as above.
 */
int	 relaudit_verify_known(const char *data, size_t len,
	    const struct keyring *kr, const struct relaudit_known *known,
	    struct audit_state *out);
/*
 * Check one more record, line (len bytes, no newline), against the log st
 * describes: its seq, prev_sha256, members and signature.  0 with st
 * advanced past it; -1 with st->bad_line and st->problem.
 */
int	 relaudit_verify_next(const char *line, size_t len,
	    const struct keyring *kr, struct audit_state *st);

#endif

/*
 * relpending.h: a promote in progress (share/doc/release.md §2, "a promote
 * cut short"): 08-release/promote-pending.json, written under the release
 * lock and made durable before the chip step's job starts, removed once
 * the promote's record (or its refusal) is on the audit log.  A promote
 * killed in between (SIGKILL, a crash, a console killed) leaves it: then
 * the status says so, a new promote is refused, and `calops release
 * recover` stops the job and signs the refusal.
 *
 * It names the generation, the job, its host and chip, and the approver's
 * key_id and actor: never key material or a passphrase.
 */
#ifndef CALOPS_RELPENDING_H
#define CALOPS_RELPENDING_H

#include "calops.h"

#include <jansson.h>

#define RELPENDING_FILE	"promote-pending.json"

struct relpending {
	long	 generation;
	char	 action[16];	/* "promote", or "rollback" (--chip-step) */
	char	 job[64];
	char	 host[128];
	long	 chip;
	char	 key_id[128];
	char	 actor[256];
	char	 by[64];	/* "calops release promote", "a console" */
	char	 lab[1024];	/* the lab file's path, or "" */
	double	 since;		/* Unix seconds */
};

/* Write p as 08-release/promote-pending.json of the folder open as dirfd,
 * durably (a temporary file fsynced, renamed, the folder fsynced).  0, or
 * -1 with err. */
int	 relpending_write(int dirfd, const struct relpending *p, char *err,
	    size_t errlen);
/* Read it: 1 with *p, 0 when there is none, -1 when it cannot be read or
 * does not parse (why in err; the promote is still taken as cut short). */
int	 relpending_read(int dirfd, struct relpending *p, char *err,
	    size_t errlen);
/* Remove it and fsync the folder; 0 (also when there was none), or -1
 * with err. */
int	 relpending_clear(int dirfd, char *err, size_t errlen);

/* What the status says of it (release.md §6's "interrupted"). */
json_t	*relpending_json(const struct relpending *p);
/* The words: "the promote to generation N was cut short during its chip
 * step (job J on H, chip C; approved with key K by B, T)". */
void	 relpending_words(const struct relpending *p, char *buf, size_t len);

#endif

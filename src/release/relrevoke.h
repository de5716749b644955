/*
 * relrevoke.h: revoking a generation (share/doc/release.md §4):
 * revocations.json and its signature written again with one more entry,
 * signed by the approver's key.  Two files cannot be renamed at once: each
 * is written beside under a ".new" name and fsynced, then the manifest and
 * then its signature are renamed over the old ones; a crash between the two
 * renames is completed by relrevoke_finish(), which every acting command
 * calls under the release lock.  Nothing goes to the audit log.
 */
#ifndef CALOPS_RELREVOKE_H
#define CALOPS_RELREVOKE_H

#include "calops.h"

#include "release/relstate.h"

/*
 * Revoke generation n for reason, signed with key (relkey.h), the lock
 * held.  0 when done (st read again), 1 when refused (msg why: no such
 * generation, the current one, an existing revocations.json that does not
 * verify), -1 when a write failed (the old pair left as it was).
 */
int	relrevoke_write(struct relstate *st, const void *key, long n,
	    const char *reason, char *msg, size_t msglen);

/* Complete or undo a revocation a crash cut; 1 when something was done
 * (msg says what), 0 when nothing was to do, -1 on an error. */
int	relrevoke_finish(struct relstate *st, char *msg, size_t msglen);

#endif

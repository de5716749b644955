/*
 * relcache.h: what this user's calops has already verified of a release's
 * audit log (share/doc/release.md §3), so that a rollback does not check
 * every signature of a long log again (issue 31: the whole command within
 * 20 ms).
 *
 * An entry says: the first N records of the log of that 08-release/
 * folder, B bytes whose SHA-256 is S, verify with a keyring whose keys
 * hash to KEYS.  While the log still begins with those bytes, for today's
 * trusted keys, checking them again would say the same: only the records
 * after them are checked (relaudit_verify_known()).  Entries live in this
 * user's cache, as the hash cache does ($XDG_CACHE_HOME/calops/
 * audit-verified/), never in the workspace, whose writers are the ones
 * the signatures are checked against.
 */
#ifndef CALOPS_RELCACHE_H
#define CALOPS_RELCACHE_H

#include "calops.h"

#include "release/keyring.h"
#include "release/relaudit.h"

/* What is known of the log of the 08-release/ folder open as dirfd, for
 * the keys of kr; k->records is 0 when nothing is. */
void	relcache_get(int dirfd, const struct keyring *kr,
	    struct relaudit_known *k);
/* Remember that the log's first records records, its first bytes bytes of
 * data, verify with kr.  Best effort: a cache that cannot be written costs
 * the next command the whole check, nothing else. */
void	relcache_put(int dirfd, const struct keyring *kr, size_t records,
	    const char *data, size_t bytes);

#endif

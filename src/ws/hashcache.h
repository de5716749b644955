/*
 * hashcache.h: the table of known digests behind a hasher (private to
 * hash.c; tests include it too).
 *
 * A table maps a file version, named by (device, inode, size, mtime ns,
 * ctime ns), to the SHA-256 of its bytes.  It serves two purposes: the
 * hasher's memo for its own lifetime, and the persistent cache between runs.
 * Only entries put with `persist` (and those read from the file) are saved;
 * the others live as long as the table.
 *
 * The file is a header { "CALOPSHC", u32 version, u32 entry size, u64
 * count, u64 zero }, `count` fixed-size entries { key, sha256, u32 day last
 * used, u32 zero }, sorted by a hash of the key, and the HMAC-SHA256 of all
 * that; integers are in native byte order.  Reading it costs one read() and
 * one HMAC: entries are found by binary search, not loaded into a table, so
 * a large cache does not slow a small check down.
 *
 * A cache that anyone else could write would let a tampered file pass for
 * the one hashed before, so it trusts nothing it finds (workspace.md §1):
 * its folder and the file are opened as the state is (statedir.h: no link
 * followed, the user's own, writable by nobody else), and the file is used
 * only when its HMAC verifies under the user's key, HASHCACHE_KEY in the
 * state folder: 32 random bytes made on first use, trusted only when it is
 * the user's own and neither group nor others may read it.  Anything else
 * is not used, as a whole, and said (hashcache_problem()); a file of
 * another version is replaced without a word.  Saving keeps the
 * HASHCACHE_MAX most recently used entries and replaces the file
 * atomically (temporary file, fsync, rename), merging what another process
 * saved meanwhile, in a folder that passes and over a file that does.
 *
 * A struct hashcache is owned by its creator and used by one thread.
 */
#ifndef CALOPS_HASHCACHE_H
#define CALOPS_HASHCACHE_H

#include "calops.h"

#define HASHCACHE_MAX	(1u << 20)
#define HASHCACHE_MDLEN	32
#define HASHCACHE_KEY	"hashcache.key"	/* in the state folder */

struct hashcache_key {
	uint64_t	dev;
	uint64_t	ino;
	uint64_t	size;
	int64_t		mtime_ns;
	int64_t		ctime_ns;
};

struct hashcache;

struct hashcache	*hashcache_new(void);
void			 hashcache_free(struct hashcache *c);

/* Use the cache file at path (replacing any read before).  Returns the
 * number of entries it holds; 0 when it is absent, refused, unreadable,
 * damaged or not authenticated, with hashcache_problem() saying why. */
size_t	 hashcache_load(struct hashcache *c, const char *path);
/* Why the last load used nothing ("refusing the hash cache folder …",
 * "ignoring the hash cache '…': …"), or "" (a missing file is no problem);
 * borrowed. */
const char *hashcache_problem(const struct hashcache *c);

/* Look a key up; on a hit copy the digest to md and return true. */
bool	 hashcache_get(struct hashcache *c, const struct hashcache_key *k,
	    unsigned char md[HASHCACHE_MDLEN]);
void	 hashcache_put(struct hashcache *c, const struct hashcache_key *k,
	    const unsigned char md[HASHCACHE_MDLEN], bool persist);

/* Write the persistent entries to path if anything changed since it was
 * read.  Returns 0, or -1 with a message in err. */
int	 hashcache_save(struct hashcache *c, const char *path, char *err,
	    size_t errlen);

/* The default cache file, $XDG_CACHE_HOME/calops/hashes or
 * ~/.cache/calops/hashes; a new string, or NULL when neither is known. */
char	*hashcache_default_path(void);

#endif

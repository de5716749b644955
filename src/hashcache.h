/*
 * hashcache.h: the table of known digests behind a hasher (private to
 * hash.c; tests include it too).
 *
 * A table maps a file version, named by (device, inode, size, mtime ns,
 * ctime ns), to the SHA-256 of its bytes.  It serves two purposes: the
 * hasher's memo for its own lifetime, and the persistent cache between runs.
 * Only entries put with `persist` (and those loaded from disk) are saved;
 * the others live as long as the table.
 *
 * The file holds a header { "CALOPSHC", u32 version, u32 entry size, u64
 * count }, `count` fixed-size entries, and the SHA-256 of everything before
 * it; integers are in native byte order.  A file that fails any check
 * (magic, version, size, count, checksum) is ignored as a whole: it is only
 * a cache.  Saving keeps the HASHCACHE_MAX most recently used entries and
 * replaces the file atomically (temporary file, fsync, rename).
 *
 * A struct hashcache is owned by its creator and used by one thread.
 */
#ifndef CALOPS_HASHCACHE_H
#define CALOPS_HASHCACHE_H

#include "calops.h"

#include <openssl/evp.h>

#define HASHCACHE_MAX	(1u << 20)
#define HASHCACHE_MDLEN	32

struct hashcache_key {
	uint64_t	dev;
	uint64_t	ino;
	uint64_t	size;
	int64_t		mtime_ns;
	int64_t		ctime_ns;
};

struct hashcache;

/* md is SHA-256 (for the file checksum), borrowed for the table's life. */
struct hashcache	*hashcache_new(const EVP_MD *md);
void			 hashcache_free(struct hashcache *c);

/* Merge the entries of the cache file at path into c (entries already in c
 * win).  Returns the number of entries read; 0 when the file is absent,
 * unreadable, corrupt or truncated. */
size_t	 hashcache_load(struct hashcache *c, const char *path);

/* Look a key up; on a hit copy the digest to md and return true. */
bool	 hashcache_get(struct hashcache *c, const struct hashcache_key *k,
	    unsigned char md[HASHCACHE_MDLEN]);
void	 hashcache_put(struct hashcache *c, const struct hashcache_key *k,
	    const unsigned char md[HASHCACHE_MDLEN], bool persist);
size_t	 hashcache_count(const struct hashcache *c);

/* Write the persistent entries to path if anything changed since it was
 * loaded, merging what another process saved there meanwhile.  Returns 0,
 * or -1 with a message in err. */
int	 hashcache_save(struct hashcache *c, const char *path, char *err,
	    size_t errlen);

/* The default cache file, $XDG_CACHE_HOME/calops/hashes or
 * ~/.cache/calops/hashes; a new string, or NULL when neither is known. */
char	*hashcache_default_path(void);

#endif

/*
 * hash_int.h: what hash.c (files, the thread pool, the cache) and
 * hashtree.c (walking a folder) share.  Not a public contract: only those
 * two files include it.
 */
#ifndef CALOPS_HASH_INT_H
#define CALOPS_HASH_INT_H

#include <sys/stat.h>

#include <openssl/evp.h>

#include "ws/hash.h"
#include "ws/hashcache.h"

#define MAX_WALKERS	16		/* threads listing one tree */

enum { CACHE_NONE, CACHE_MEMO, CACHE_PERSIST };

struct hasher {
	struct hashcache	*table;
	char			*cache_path;	/* NULL: no persistent cache */
	bool			 loaded;	/* cache_path was read */
	int			 threads;
	void			(*progress)(void *, uint64_t, uint64_t);
	void			*progress_arg;
};

/* One file to hash, and what came of it. */
struct job {
	int			 dirfd;		/* AT_FDCWD or a tree's root */
	const char		*path;
	/* a tree's file: no link followed anywhere on its path */
	bool			 nolinks;
	/* non-NULL: path is this workspace's, opened beneath it */
	const struct workspace	*ws;
	uint64_t		 size;		/* from stat: sets the order */
	struct hash_result	*res;
	struct hashcache_key	 key;
	unsigned char		 md[HASHCACHE_MDLEN];
	int			 cache;		/* CACHE_* */
};

/* The SHA-256 digest, fetched once. */
const EVP_MD	*hash_sha256_md(void);
void		 hash_md_hex(const unsigned char *md,
		    char hex[HASH_HEX_LEN + 1]);
void		 hash_stat_key(const struct stat *st, struct hashcache_key *k);
/* Answer from the memo or the cache; true on a hit. */
bool		 hash_lookup(struct hasher *h, const struct hashcache_key *k,
		    struct hash_result *res);
/* Hash the jobs that missed (in parallel), then remember what they gave;
 * progress is reported from done0 of total bytes. */
void		 hash_run_jobs(struct hasher *h, struct job **todo, size_t n,
		    uint64_t done0, uint64_t total);

#endif

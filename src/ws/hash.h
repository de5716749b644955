/*
 * hash.h: SHA-256 of files and trees, streaming, parallel and cached.
 *
 * Files are never read whole into memory: they are hashed through a buffer
 * of a fixed size (256 KiB a thread, whatever the file's size) with
 * OpenSSL's EVP interface (the digest fetched once).  hash_files()
 * spreads files across a pool of threads (one per online core by default),
 * and a persistent cache keyed by (device, inode, size, mtime ns, ctime ns)
 * makes re-hashing an unchanged file cost one stat() (a workspace's file:
 * an open beneath the workspace and its fstat()).  The cache trusts
 * nothing it finds (hashcache.h); one it does not use is said once, on
 * stderr.  Within one hasher the results are also memoised, so two gates
 * asking for the same file hash it once.
 *
 * A struct hasher is created by hash_new() and owned by its caller.  It is
 * not itself thread-safe: one thread of control calls into it.
 *
 * Hex digests are lowercase, 64 characters, NUL-terminated (HASH_HEX_LEN+1).
 * The tree hash of a folder is hashtree.h's.
 */
#ifndef CALOPS_HASH_H
#define CALOPS_HASH_H

#include "calops.h"

#include <sys/types.h>

#define HASH_HEX_LEN 64

struct hasher;
struct workspace;

struct hasher_opts {
	/* false: --no-cache, every byte is read */
	bool		 use_cache;
	/* NULL: $XDG_CACHE_HOME/calops/hashes */
	const char	*cache_path;
	int		 threads;	/* 0: the number of online cores */
	/* Called from the caller's thread between files with bytes done so
	 * far and the total (0 when unknown); may be NULL. */
	void		(*progress)(void *arg, uint64_t done, uint64_t total);
	void		*progress_arg;
};

struct hash_result {
	char	 hex[HASH_HEX_LEN + 1];	/* empty string on error */
	uint64_t size;
	int	 err;			/* 0, or the errno of the failure */
};

struct hasher	*hash_new(const struct hasher_opts *opts);
/* Saves the cache (atomically: temp file + rename) and frees everything. */
void		 hash_free(struct hasher *h);

/* Hash one file; returns 0, or -1 with res->err set. */
int	 hash_file(struct hasher *h, const char *path, struct hash_result *res);
/* Hash n files in parallel; res[i] is for paths[i].  Returns the number of
 * files that failed. */
size_t	 hash_files(struct hasher *h, size_t n, const char *const *paths,
	    struct hash_result *res);
/*
 * The same for files of the workspace ws named by workspace-relative
 * paths: each is opened beneath the workspace (workspace_openat()), and
 * the cache is asked about the file that open finds, never about where a
 * path stat()ed before leads.  A file that leads outside fails with EXDEV.
 */
size_t	 hash_ws_files(struct hasher *h, const struct workspace *ws, size_t n,
	    const char *const *rels, struct hash_result *res);

/* What a file of this st_mode is, for messages: "a FIFO", "a socket",
 * "a character device"... (a static string). */
const char *hash_file_kind(mode_t mode);

/* SHA-256 of a memory block, as hex. */
void	 hash_bytes(const void *data, size_t len, char hex[HASH_HEX_LEN + 1]);
/* True when s is exactly 64 lowercase hex digits. */
bool	 hash_is_hex(const char *s);

#endif

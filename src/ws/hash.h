/*
 * hash.h: SHA-256 of files and trees, streaming, parallel and cached.
 *
 * Files are never read whole into memory: they are hashed in large windows
 * with OpenSSL's EVP interface (the digest fetched once).  hash_files()
 * spreads files across a pool of threads (one per online core by default),
 * and a persistent cache keyed by (device, inode, size, mtime ns, ctime ns)
 * makes re-hashing an unchanged file cost one stat().  Within one hasher the
 * results are also memoised, so two gates asking for the same file hash it
 * once.
 *
 * A struct hasher is created by hash_new() and owned by its caller.  It is
 * not itself thread-safe: one thread of control calls into it.
 *
 * Hex digests are lowercase, 64 characters, NUL-terminated (HASH_HEX_LEN+1).
 */
#ifndef CALOPS_HASH_H
#define CALOPS_HASH_H

#include "calops.h"

#include <sys/types.h>

#define HASH_HEX_LEN 64

struct hasher;

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

/* One regular file of a tree, path relative to the tree's root. */
struct tree_entry {
	char			*path;
	struct hash_result	 hash;
};

/* A symbolic link met while walking a tree, with where it points. */
struct tree_link {
	char	*path;		/* relative to the tree's root */
	char	*target;	/* readlink() text */
	/* resolves outside `within`, or dangles out of it */
	bool	 outside;
};

struct tree {
	struct tree_entry	*files;	/* sorted bytewise by path */
	size_t			 nfiles;
	struct tree_link	*links;
	size_t			 nlinks;
	char			 hex[HASH_HEX_LEN + 1];	/* the tree hash */
	char			 err[256];	/* first error, "" when none */
};

/*
 * Walk dir (not following symbolic links, like find -type f), hash every
 * regular file in parallel and compute the tree hash: SHA-256 of the lines
 * "<sha256>  <path>\n" sorted bytewise by path.  Symbolic links are listed in
 * tree->links, flagged when they lead outside `within` (an absolute, real
 * path; NULL: outside dir).  Returns 0, or -1 with tree->err set (a file that
 * cannot be read, a directory that cannot be listed).
 */
int	 hashtree_hash(struct hasher *h, const char *dir, const char *within,
	    struct tree *tree);
void	 hashtree_release(struct tree *tree);

/* SHA-256 of a memory block, as hex. */
void	 hash_bytes(const void *data, size_t len, char hex[HASH_HEX_LEN + 1]);
/* True when s is exactly 64 lowercase hex digits. */
bool	 hash_is_hex(const char *s);

#endif

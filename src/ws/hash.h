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
 */
#ifndef CALOPS_HASH_H
#define CALOPS_HASH_H

#include "calops.h"

#include <sys/types.h>

#define HASH_HEX_LEN 64

struct buf;
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
 * "<sha256>  <path>\n" sorted bytewise by path, written by hashtree_line().
 * Symbolic links are listed in tree->links, flagged when they lead outside
 * `within` (an absolute, real path; NULL: outside dir).  Returns 0, or -1
 * with tree->err set (a file that cannot be read, a directory that cannot be
 * listed, or an entry that is neither a regular file, a folder nor a link:
 * a FIFO, a socket or a device, which is never opened).
 */
int	 hashtree_hash(struct hasher *h, const char *dir, const char *within,
	    struct tree *tree);
/* The same from dirfd, the folder already open (borrowed; dir names it in
 * messages and judges links): nothing is then opened but beneath dirfd, no
 * link followed on the way (workspace_openat_nolinks()). */
int	 hashtree_hash_at(struct hasher *h, int dirfd, const char *dir,
	    const char *within, struct tree *tree);
void	 hashtree_release(struct tree *tree);

/*
 * Append to b one line of a canonical listing, "<hex>  <path><suffix>\n",
 * written as sha256sum writes it: when the path holds a backslash, LF or
 * CR, these are written \\, \n and \r and the line starts with a
 * backslash, so that every line is one line and no two paths give the same
 * line.  This is the form the tree hash digests (workspace.md §1).
 *
 * With `visible` the line is for a terminal: every other byte of the path
 * that must not reach one raw is written \xHH and makes the line start with
 * a backslash as well -- C0 and C1 controls, DEL, the bidi controls, U+FEFF,
 * U+2028, U+2029 (text_cp_unsafe()) and bytes that are not UTF-8.  The
 * escapes still never make two paths alike, since a backslash is always
 * written \\.  The suffix is appended as it is.  Returns 0, or -1 (and
 * appends nothing) when b's cap would be passed.
 */
int	 hashtree_line(struct buf *b, const char *hex, const char *path,
	    const char *suffix, bool visible);
/*
 * Read one line of a listing (its LF taken off) in place, as sha256sum -c
 * does: a line that starts with a backslash has its path unescaped (\\,
 * \n and \r; any other escape is an error).  On success *hex and *path
 * point into line and NULL is returned; otherwise why the line is not one
 * (a static string).
 */
const char *hashtree_parse_line(char *line, char **hex, char **path);

/* What a file of this st_mode is, for messages: "a FIFO", "a socket",
 * "a character device"... (a static string). */
const char *hash_file_kind(mode_t mode);

/* SHA-256 of a memory block, as hex. */
void	 hash_bytes(const void *data, size_t len, char hex[HASH_HEX_LEN + 1]);
/* True when s is exactly 64 lowercase hex digits. */
bool	 hash_is_hex(const char *s);

#endif

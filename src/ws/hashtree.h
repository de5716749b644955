/*
 * hashtree.h: the tree hash of a folder (workspace.md §1): every regular
 * file hashed through a hasher (hash.h), the SHA-256 of their sorted
 * listing, and that listing's lines written and read as sha256sum writes
 * and reads them.  A struct tree is its caller's, filled by
 * hashtree_hash() and released by hashtree_release().
 */
#ifndef CALOPS_HASHTREE_H
#define CALOPS_HASHTREE_H

#include "calops.h"

#include "ws/hash.h"

struct buf;

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

#endif

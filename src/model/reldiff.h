/*
 * reldiff.h: what differs between two release manifests, field by field
 * (share/doc/release.md §1), for the Release screen and its approval: a
 * scalar that changed (a hash, a compat entry, llama.cpp's commit), an
 * object's members flattened into dotted names ("compiler.oci_digest"),
 * items of a list of strings added or removed (known limitations,
 * disabled features), and reports by path (added, removed, or their hash
 * changed), the reports last.  `generation` and `previous_generation`
 * are left out: they always differ and the screen says them already.
 *
 * Manifests are the host's words: the values are copied as they are, and
 * the screen sanitises them when it draws them.
 */
#ifndef CALOPS_RELDIFF_H
#define CALOPS_RELDIFF_H

#include "calops.h"

#include <jansson.h>

enum reldiff_kind {
	RD_CHANGED,		/* field: from → to */
	RD_ADDED,		/* field: + to */
	RD_REMOVED,		/* field: - from */
};

struct reldiff_line {
	enum reldiff_kind	 kind;
	char			*field;
	char			*from, *to;	/* NULL where none */
};

/* The lines, and how many fields were the same. */
struct reldiff {
	struct reldiff_line	*v;
	size_t			 n, alloc;
	size_t			 same;
};

/* What changes going from manifest a to manifest b (either may be NULL or
 * not an object: every field of the other is then added or removed). */
void	 reldiff_make(struct reldiff *d, const json_t *a, const json_t *b);
void	 reldiff_release(struct reldiff *d);

#endif

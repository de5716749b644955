/*
 * pathcomp.h: Tab in a prompt that asks for a file (the release
 * approver's key): the path typed so far completed as a shell does, from
 * the console's own machine's folders.
 */
#ifndef CALOPS_PATHCOMP_H
#define CALOPS_PATHCOMP_H

#include "calops.h"

/* What pathcomp_complete() found. */
struct pathcomp {
	size_t	 n;		/* entries of the folder that match */
	/* Several: their names, sorted, through the sanitiser, blank
	 * separated, cut with "…" when they do not fit. */
	char	 list[160];
};

/* Complete path (NUL-ended, in a buffer of size bytes) in place: its last
 * part becomes the longest prefix the matching entries of its folder share,
 * and a '/' follows a unique folder.  "~" and "~/" stand for $HOME in the
 * listing only: path keeps them.  A name starting with '.' matches only
 * when the typed part does.  0 and *pc, or -1 with err (the folder cannot
 * be read, or the completion would not fit): path is then unchanged. */
int	 pathcomp_complete(char *path, size_t size, struct pathcomp *pc,
	    char *err, size_t errlen);

#endif

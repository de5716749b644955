/*
 * cmdline.h: an exact shell command drawn over as many rows as it needs,
 * for the operator to approve before it runs (a fault, a gate's job, a
 * soak): it must be seen whole, its last words name the chip and the
 * scenario.  Rows read back as a shell reads them: a row that goes on ends
 * in a backslash ("--calbin \" then "path" is "--calbin path"); one that
 * breaks inside single quotes closes them first and the next row opens
 * them again ("'/srv/lab '\" then "'data/pkg'" is the one word "/srv/lab
 * data/pkg").  The command is quoted as labcmd_join_argv() quotes (outside
 * quotes a backslash takes the next byte as it is), and drawn through the
 * sanitiser.
 */
#ifndef CALOPS_CMDLINE_H
#define CALOPS_CMDLINE_H

#include "calops.h"

#include "views/core/theme.h"

/* The command s over rows [y, end) from column x, width w, in role r; the
 * row after it.  With paint false nothing is drawn: the row it would end
 * at, to know how many rows it needs. */
int	cmdline_draw(int y, int end, int x, int w, enum role r, const char *s,
	    bool paint);

#endif

/*
 * finding.h: findings, the unit of every gate's verdict (workspace.md §2).
 *
 * A finding is {check, severity, message, path, where}: the check id
 * ("G0.files.hash"), how bad it is, a message in git's style, the
 * workspace-relative file it is about ("" when none) and the position in it
 * (a JSON pointer, "line:col" or "row N"; "" when not known).  A struct
 * findings owns its array and every string in it.
 */
#ifndef CALOPS_FINDING_H
#define CALOPS_FINDING_H

#include "calops.h"

enum severity {
	SEV_ERROR,
	SEV_BLOCKED,
	SEV_STALE,
	SEV_WARN,
	SEV_INFO,
};

struct finding {
	char		*check;
	enum severity	 severity;
	char		*message;
	char		*path;
	char		*where;
};

struct findings {
	struct finding	*v;
	size_t		 n, alloc;
};

const char	*finding_severity_name(enum severity s);
int		 finding_severity_parse(const char *name, enum severity *out);

void	 finding_add(struct findings *f, enum severity sev, const char *check,
	    const char *path, const char *where, const char *fmt, ...)
	    PRINTFLIKE(6, 7);
void	 finding_addv(struct findings *f, enum severity sev, const char *check,
	    const char *path, const char *where, const char *fmt, va_list ap)
	    PRINTFLIKE(6, 0);
void	 finding_list_release(struct findings *f);

/* True when check equals id or is a sub-id of it ("G0.files.hash" under
 * "G0.files"). */
bool	 finding_check_covers(const char *id, const char *check);

#endif

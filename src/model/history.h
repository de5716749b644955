/*
 * history.h: a small history of evaluations per workspace, so the console
 * can say what changed since a gate was last green.  One JSON line per
 * evaluation that differs from the one before, in
 * $XDG_STATE_HOME/calops/history/<sha256 of the workspace's real path, or
 * of ssh://HOST/PATH>.jsonl,
 * at most `keep` lines: {"ts", "gates": {"G0": {"status", "inputs"}, …}}.
 * The folder is not used when it is a symbolic link, another user's or
 * writable by others, and the file is never read through a link
 * (base/statedir.h).
 *
 * Losing the history loses only that hint: every error here is returned
 * and the caller shows it, never more.
 */
#ifndef CALOPS_HISTORY_H
#define CALOPS_HISTORY_H

#include "calops.h"

#include <jansson.h>

/* The history file of a workspace (a new string), or NULL with err: a
 * local one by its real path, one on an SSH host (host not NULL) by
 * "ssh://HOST" and its path as the lab file gives it. */
char	*history_path(const char *workspace, const char *host, char *err,
	    size_t errlen);

/* Append an entry ({"G0": {"status", "inputs"}, …} is borrowed) unless it
 * equals the last one; keep at most `keep` entries.  0, or -1 with err. */
int	 history_append(const char *path, json_t *gates, int64_t ts, int keep,
	    char *err, size_t errlen);

/* The gate's record {"status", "inputs"} and its ts in the newest entry
 * where it passed, or NULL (new reference). */
json_t	*history_last_pass(const char *path, const char *gate, int64_t *ts);

/*
 * What differs between two input lists ([{path, present, sha256, size,
 * mtime_ns}]): an array of {"path", "change": "changed"|"added"|"removed",
 * "from", "to"} (hashes when known, else sizes); new reference.
 */
json_t	*history_diff(json_t *then, json_t *now);

#endif

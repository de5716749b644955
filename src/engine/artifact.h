/*
 * artifact.h: the artifacts a gate reads, loaded once per evaluation and
 * shared (gate.h): a gate's own documents, another gate's as an input (a
 * missing one skips the check that needs it), raw bytes, hashes and hashed
 * trees, paths named inside an artifact, JSON Lines a record at a time,
 * and the inputs noted for "what changed since it was last green".
 *
 * Everything handed out is borrowed from the evaluation and lives until
 * gate_eval_release().
 */
#ifndef CALOPS_ARTIFACT_H
#define CALOPS_ARTIFACT_H

#include "calops.h"

#include <sys/stat.h>

#include <jansson.h>

#include "base/doc.h"
#include "engine/finding.h"
#include "engine/gate.h"
#include "ws/hash.h"
#include "ws/workspace.h"

/* Note that the gate read rel (hex may be NULL or "": then rel's size and
 * mtime are taken); repeated notes of one path are kept once. */
void	 artifact_note_input(struct gate_result *gr, const char *rel,
	    const char *hex);

/* An artifact loaded for this evaluation: its document and where from. */
struct artifact {
	char		*rel;		/* workspace-relative path */
	enum ws_status	 status;
	bool		 parsed;	/* doc is valid */
	struct doc	 doc;
	char		 msg[320];	/* why it could not be read or parsed */
	char		 where[32];
	size_t		 size;
	char		*data;		/* raw bytes, for non-document reads */
	char		 hex[HASH_HEX_LEN + 1];	/* of data, "" when unread */
};

/* The artifact rel, read (and parsed when asked) once per evaluation, with
 * no finding reported: callers judge its status themselves. */
struct artifact *artifact_eval(struct eval *ev, const char *rel, bool parse);

/*
 * Load a JSON (.json) or YAML (.yaml/.yml) artifact the gate owns.  Returns
 * it when parsed; NULL when absent (no finding) or broken (a G<n>.parse or
 * G<n>.path error is reported).
 */
const struct artifact *artifact_doc(struct gate_result *gr, const char *rel);
/* The same for an artifact a check needs: when it is absent, report `check`
 * at severity sev with the message given; NULL then too. */
const struct artifact *artifact_doc_needed(struct gate_result *gr,
	    const char *rel,
	    const char *check, enum severity sev, const char *fmt, ...)
	    PRINTFLIKE(5, 6);
const struct artifact *artifact_raw_needed(struct gate_result *gr,
	    const char *rel,
	    const char *check, enum severity sev, const char *fmt, ...)
	    PRINTFLIKE(5, 6);
/* Load another gate's artifact; NULL when it is missing or unreadable, and
 * then `check` is reported skipped (a warning naming the missing input). */
const struct artifact *artifact_input(struct gate_result *gr, const char *rel,
	    const char *check);
/* Does rel exist inside the workspace?  A path leading outside is reported
 * as G<n>.path and answers false; st may be NULL. */
bool	 artifact_exists(struct gate_result *gr, const char *rel,
	    struct stat *st);
/* Raw bytes of a small artifact (at most DOC_MAX_BYTES) the gate owns. */
const struct artifact *artifact_raw(struct gate_result *gr, const char *rel);
/* SHA-256 of a workspace file; 0, or -1 with a message in err. */
int	 artifact_hash(struct gate_result *gr, const char *rel,
	    char hex[HASH_HEX_LEN + 1], char *err, size_t errlen);
/* The hashed tree of a workspace folder (memoised); NULL with err set. */
const struct tree *artifact_tree(struct gate_result *gr, const char *rel,
	    char *err, size_t errlen);
/* Resolve a path named in artifact `from` (see workspace_join); a bad path is a
 * G<n>.path error at (from, where).  0 ok, 1 content URI, -1 bad. */
int	 artifact_join(struct gate_result *gr, const char *from,
	    const char *where,
	    const char *ref, char **rel);

/* Call fn for each line of a JSON Lines artifact the gate owns; lines that
 * are not JSON objects are G<n>.parse errors at "line:col".  Returns the
 * number of lines passed to fn, or -1 when the file is absent/unreadable
 * (unreadable is reported). */
typedef void	(*jsonl_fn)(struct gate_result *gr, json_t *obj, size_t line,
		    void *arg);
long	 artifact_jsonl(struct gate_result *gr, const char *rel, jsonl_fn fn,
	    void *arg);
/* The same over another gate's JSON Lines artifact: bad lines are not
 * passed to fn (their gate reports them) but skip `check` with a warning at
 * the first, as a missing file does: part of the input is unreadable. */
long	 artifact_jsonl_input(struct gate_result *gr, const char *rel,
	    const char *check, jsonl_fn fn, void *arg);
/* "LINE:COL" of member `key`'s value in the record a jsonl_fn was called
 * for (its first occurrence as a key), else "LINE:1". */
void	 artifact_jsonl_where(const struct gate_result *gr, size_t line,
	    const char *key, char *where, size_t len);

#endif

/*
 * gate.h: the gate table, the evaluation of a workspace, and the helpers
 * every gate file (src/gates/gNN_*.c) uses to read artifacts and report.
 *
 * An evaluation (struct eval) opens a workspace, runs the gates G0..G10 in
 * order, each into its struct gate_result, and derives each gate's status by
 * the rules of workspace.md §2.  Artifacts are loaded once per evaluation
 * and shared: a gate that needs another gate's artifact asks for it with
 * artifact_input(), which never reports a parse error of that artifact (the
 * owning gate does) but notes the skipped check as a warning.
 *
 * Everything handed out by artifact_doc(), artifact_input(),
 * artifact_tree() is borrowed from the evaluation and lives until
 * gate_eval_release().
 */
#ifndef CALOPS_GATE_H
#define CALOPS_GATE_H

#include "calops.h"

#include <jansson.h>

#include "base/doc.h"
#include "engine/finding.h"
#include "ws/hash.h"
#include "vocab/gateid.h"
#include "ws/workspace.h"

#define GATE_MAX_PER_CHECK 100	/* findings kept per check id, then a summary */

enum gate_status {
	GS_PENDING,
	GS_FAIL,
	GS_BLOCKED,
	GS_STALE,
	GS_PASS,
	GS_RUNNING,	/* the console's own: a job for the gate is in flight */
};

struct eval;
struct gate_result;

/* A check's verdict (workspace.md §6): it holds only when it was judged. */
enum check_verdict {
	CV_HELD,
	CV_FAILED,
	CV_NOT_JUDGED,
};

struct gate_def {
	const char	*id;		/* "G0" */
	const char	*name;		/* "Model intake" */
	const char	*role;		/* owner role: "model" */
	const char	*failback;	/* runbook §15 */
	const char	*primary;	/* the ★ artifact, workspace-relative */
	void		(*eval)(struct eval *, struct gate_result *);
	const char *const *checks;	/* its check ids (§3), NULL-ended */
};

extern const struct gate_def gate_table[GATE_COUNT];

/* An artifact a gate read, for "what changed since it was last green":
 * its hash when the gate had the bytes anyway, else its size and mtime. */
struct gate_input {
	char		*rel;
	bool		 present;
	char		 hex[HASH_HEX_LEN + 1];	/* "" when not hashed */
	uint64_t	 size;
	int64_t		 mtime_ns;
};

struct gate_result {
	const struct gate_def	*def;
	int			 index;
	enum gate_status	 status;
	struct findings		 findings;
	char			*owner;		/* from owners.yaml, or NULL */
	char			*due;
	size_t			 suppressed[5];	/* per severity, past the cap */
	/* check id -> findings so far */
	json_t			*check_counts;
	/* check id -> MARK_* bits: was its input present and read? */
	json_t			*marks;
	struct gate_input	*inputs;	/* what it read, in order */
	size_t			 ninputs;
	struct eval		*ev;
	/* The JSON Lines record a jsonl_fn is called for, so that it can say
	 * the column of a bad member (artifact_jsonl_where). */
	const char		*record;
	size_t			 record_len;
};

/* Facts of the G0 manifest that other gates use; a field is only valid when
 * its flag says so (the manifest may be absent or broken). */
struct source_facts {
	bool		 have_tokenizer;
	const char	*tokenizer_sha256;
	bool		 have_vocab;
	json_int_t	 vocab_size;
	bool		 have_targets;
	json_int_t	 max_context, max_batch, max_chips;
	bool		 all_chips_one;
	bool		 have_sla;
	double		 ttft_ms_p99, tpot_ms_p99, success_rate_min;
	const char	*model_id;
};

struct artifact;

struct eval_opts {
	bool		 no_cache;	/* hash every byte, trust no cache */
	const char	*cache_path;	/* NULL: the default */
	int		 threads;	/* 0: one per core */
	/* Hashing progress, as for struct hasher_opts; may be NULL. */
	void		(*progress)(void *arg, uint64_t done, uint64_t total);
	void		*progress_arg;
};

struct eval {
	struct workspace	 ws;
	struct hasher		*hasher;
	struct gate_result	 gates[GATE_COUNT];
	struct findings		 project;	/* BLOCKED_COMPILER findings */
	struct source_facts	 src;
	/* Each artifact and tree is allocated on its own, so that a pointer
	 * handed out stays valid while more are loaded. */
	struct artifact		**artifacts;	/* loaded once, shared */
	size_t			 nartifacts;
	struct tree		**trees;	/* hashed folders, memoised */
	char			**tree_paths;
	size_t			 ntrees;
	json_t			*scratch;	/* owns values gates share */
};

/* Open the workspace and evaluate every gate; returns 0, or -1 with err set
 * when the workspace cannot be read at all. */
int	 gate_eval_run(struct eval *ev, const char *path,
	    const struct eval_opts *o,
	    char *err, size_t errlen);
void	 gate_eval_release(struct eval *ev);
/* "pass", "fail", …; and the project status ("G3", "BLOCKED_COMPILER",
 * "RELEASED") as a new string. */
const char	*gate_status_name(enum gate_status s);
char		*gate_eval_project_status(const struct eval *ev);
/* The gate by id ("G7"), or NULL. */
const struct gate_result *gate_eval(const struct eval *ev, const char *id);

/* ---- for gate files ---- */

/* Note that the gate read rel (hex may be NULL or "": then rel's size and
 * mtime are taken); repeated notes of one path are kept once. */
void	 artifact_note_input(struct gate_result *gr, const char *rel,
	    const char *hex);

/* The checks named (a NULL-ended list) were judged: the artifact or field
 * each looks at was present and read.  A check never marked is not judged,
 * so "no finding" alone never makes it hold (workspace.md §6). */
void	 gate_judged(struct gate_result *gr, const char *check, ...)
	    __attribute__((sentinel));
/* Skip check with a warning naming what is missing (workspace.md §2); a
 * skipped check is not judged, whatever else marked it. */
void	 gate_skip(struct gate_result *gr, const char *check, const char *path,
	    const char *where, const char *fmt, ...) PRINTFLIKE(5, 6);
/* The index in gate_table of the gate check belongs to ("G10.audit" -> 10,
 * "G2.*" -> 2), or -1. */
int	 gate_index_of_check(const char *check);
/* Does a finding (its check id and severity) of gate gate_id fail check:
 * an error, blocked or stale one (with strict, a warning too) carrying
 * check or a sub-id, any such one for "G<n>.*", or a G<n>.parse or
 * G<n>.path error?  (workspace.md §6; the console asks it too.) */
bool	 gate_finding_fails(const char *gate_id, const char *check,
	    const char *fcheck, enum severity sev, bool strict);
/*
 * The verdict on check: failed when an error, blocked or stale finding
 * carries it or a sub-id (with strict, a warning too), or a G<n>.parse or
 * G<n>.path error of its gate; else not judged unless it was judged and not
 * skipped.  "G2.*" stands for every check of the gate and every finding,
 * the owner's included.
 */
enum check_verdict gate_check_verdict(const struct gate_result *gr,
	    const char *check, bool strict);
/* "held", "failed", "not_judged". */
const char	*gate_verdict_name(enum check_verdict v);

/* Report a finding of this gate; past GATE_MAX_PER_CHECK findings of one
 * check they are counted, not kept, and summarised at the end. */
void	 gate_add(struct gate_result *gr, enum severity sev, const char *check,
	    const char *path, const char *where, const char *fmt, ...)
	    PRINTFLIKE(6, 7);

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

/* Typed members of a JSON object at pointer `ptr` in artifact a.  Each
 * reports an error for check when the member is missing or mistyped and
 * then returns NULL/false. */
json_t		*query_member(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key);
const char	*query_str(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key);
bool		 query_int(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key, json_int_t *out);
bool		 query_num(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key, double *out);
bool		 query_bool(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key, bool *out);
json_t		*query_array(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key);
json_t		*query_object(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key);
/* A finding at a JSON pointer of an artifact (where from doc_where). */
void		 query_gate_at(struct gate_result *gr, enum severity sev,
		    const char *check, const struct artifact *a,
		    const char *ptr,
		    const char *fmt, ...) PRINTFLIKE(6, 7);
/* A rule of check over every member of list (an array or an object at
 * ptr, NULL when absent): is the list empty?  Then nothing was judged
 * (workspace.md §6, v3) and check is skipped with a warning at ptr,
 * "nothing to judge: <fmt>". */
bool		 query_empty(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *list, const char *ptr,
		    const char *fmt, ...) PRINTFLIKE(6, 7);

/* The gate files' entry points, in gate_table order. */
void	g00_source(struct eval *, struct gate_result *);
void	g01_reference(struct eval *, struct gate_result *);
void	g02_onnx(struct eval *, struct gate_result *);
void	g03_opsupport(struct eval *, struct gate_result *);
void	g04_quant(struct eval *, struct gate_result *);
void	g05_compile(struct eval *, struct gate_result *);
void	g06_package(struct eval *, struct gate_result *);
void	g07_runner(struct eval *, struct gate_result *);
void	g08_adapter(struct eval *, struct gate_result *);
void	g09_serving(struct eval *, struct gate_result *);
void	g10_release(struct eval *, struct gate_result *);

/* Helpers shared by gate files. */
bool	 gate_is_sha256_hex(const char *s);
/* Is rel a script that holds a command: a line neither blank nor only a
 * comment (v2: a compile.sh of comments alone is as empty as a missing one)?
 * False when it is absent or unreadable; one too big to read is taken as
 * holding one. */
bool	 gate_script_has_command(struct eval *ev, const char *rel);
/* The list "1 16 17 …" capped at max context m, as G7/G9 need: pairs
 * (a, b) with a + b > m become (a, m - a); duplicates collapse. */
size_t	 gate_capped_pairs(const json_int_t *as, size_t na,
	    const json_int_t *bs,
	    size_t nb, json_int_t m, json_int_t (*out)[2]);

/* `key` of a's root must equal today's tree hash of 05-calbin/package;
 * a mismatch is `stale` under check (G7.bound, G8.bound). */
void	 g07_runner_calbin_bound(struct gate_result *gr,
	    const struct artifact *a,
	    const char *key, const char *check);

#endif

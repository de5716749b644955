/*
 * gate.h: the gate table, the evaluation of a workspace, and the helpers
 * every gate file (src/gates/gNN_*.c) uses to report (artifact.h reads
 * artifacts, query.h their members).
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
#include "metrics/soakstats.h"
#include "vocab/gateid.h"
#include "ws/hash.h"
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
	/* Keep each soak run's TTFT, TPOT and RSS samples (struct soak_run):
	 * the decision record draws them. */
	bool		 soak_series;
};

/*
 * What G9 made of one soak run (g09_serving.c), kept in the evaluation so
 * that the decision record says the figures G9 judged by, not figures of
 * its own.  The series are the samples in the order they were read, kept
 * only when eval_opts.soak_series asks.
 */
struct soak_run {
	char		*name;		/* its folder under 07-serving/soak/ */
	const char	*outcome;	/* "completed", "failed", "killed",
					 * "running" or "bad" */
	bool		 stats;		/* the figures below were computed */
	bool		 passing;	/* checking it added no error */
	double		 t0, t1;	/* its metric events' span; t1 < t0
					 * when it has none */
	double		 success_rate, ttft_p50, ttft_p99, tpot_p50, tpot_p99;
	bool		 have_rss, have_dev;
	struct leak_verdict rss_leak, dev_leak;
	struct series	 ttft, tpot, rss;
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
	bool			 soak_series;	/* eval_opts' */
	struct soak_run		*soak;		/* G9's runs, in name order */
	size_t			 nsoak;
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

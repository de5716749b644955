/*
 * hostcmd.h: the console's one client of a host's calops (protocol.md
 * §1): every command line sent to a host is built here, and the output
 * of every command whose output is read as data is parsed here, into
 * types.  The model, the lab code, the views, the headless commands and
 * remote/ssh.c's version probe all go through it; nothing else spells a
 * host command line.
 *
 * The builders append to s (base/strv.h, to free with strv_free) the
 * command and its options, then "--", then the operands that come from
 * data (a job id, a workspace, a file in it), so that none is taken for
 * an option.  A job id may be "--follow": without the "--", `tail
 * --follow --from 1 --follow` is a usage error, and `kill --jobs` names
 * another jobs folder.  The headless commands read their options with
 * getopt_long, which ends them at "--".
 *
 * run: `run --id ID [--cwd WS] [--gate Gn] [--actor WHO] -- ARGV…` (the
 * id, folder, gate and actor are their options' own arguments, the job's
 * command after the "--"); tail: `tail --from N [--follow] -- ID`, or a
 * part of the run with `--until M` in place of --follow, or the seq of the
 * first (--last: last) event there with a text: `tail --find TEXT [--last]
 * --from N [--until M] -- ID`; kill:
 * `kill -- ID`; jobs: `jobs --json [--running]` (no operand); check:
 * `check --stream -- WS`; watch: `watch -- WS`; cat: `cat --from N --lines
 * M -- WS PATH`, or with --line-of POINTER; release: `release WHAT --json
 * -- WS`, and apply's `release apply --hold N --json --actor WHO -- WS`;
 * report: `report --write [--force] -- WS` (the decision record);
 * ls: `ls --json -- WS PATH` (PATH "." for the workspace's root);
 * version: `version --json` (no operand).
 *
 * Two are a lab job's own command, given to `run` after its "--", the
 * host's calops program in front and the caller's words after: G5's
 * reproducibility run, `repro-build WS [--again] --` and the compile
 * command; a release's chip step, `release chip-step --generation N --chip
 * C -- WS` and the runner's argv.
 *
 * The parsers read what a host printed, which is as untrusted as the
 * host: a document that is not JSON, not of its schema, or has a member
 * of the wrong type is refused whole, with a message that says where
 * (the line and column, or the job's index and the member), never taken
 * in part.  Strings they hand out are as the host wrote them: sanitise
 * (base/text.h) before showing.  `check --stream` and `tail` print
 * protocol events, read by proto/event.h and the models that fold them.
 */
#ifndef CALOPS_HOSTCMD_H
#define CALOPS_HOSTCMD_H

#include "calops.h"

#include <jansson.h>

#include "base/strv.h"

/* The protocol this calops speaks (`version --json`'s "protocol", and
 * protocol.md §3's v). */
#define HOSTCMD_PROTOCOL	1

/* What `run` is told beside the job's command: its id, the folder it
 * runs in (its workspace; NULL: wherever the host's calops starts), the
 * gate whose one job per workspace it is (-1: none; needs cwd), and who
 * starts it (NULL: the host says user@host). */
struct hostcmd_run_opts {
	const char	*id, *cwd, *actor;
	int		 gate;
};

void	 hostcmd_run(struct strv *s, const struct hostcmd_run_opts *o,
	    char *const *argv);
void	 hostcmd_tail(struct strv *s, const char *id, int64_t from,
	    bool follow);
void	 hostcmd_tail_range(struct strv *s, const char *id, int64_t from,
	    int64_t until);
void	 hostcmd_tail_find(struct strv *s, const char *id, const char *text,
	    int64_t from, int64_t until, bool last);
void	 hostcmd_kill(struct strv *s, const char *id);
void	 hostcmd_jobs(struct strv *s, bool running);
/* `jobs --json --since CURSOR`: what changed since the list that gave
 * cursor ("0": every job), with the next cursor (protocol.md §1). */
void	 hostcmd_jobs_since(struct strv *s, const char *cursor);
/* The exit status of a calops that does not know an option (a usage
 * error): a host whose calops predates `jobs --since` answers it so. */
#define HOSTCMD_USAGE	2
void	 hostcmd_check(struct strv *s, const char *ws);
void	 hostcmd_watch(struct strv *s, const char *ws);
void	 hostcmd_cat(struct strv *s, const char *ws, const char *path,
	    long from, long lines);
void	 hostcmd_cat_line_of(struct strv *s, const char *ws,
	    const char *path, const char *pointer);
void	 hostcmd_release(struct strv *s, const char *what, const char *ws);
void	 hostcmd_release_apply(struct strv *s, const char *ws, long hold,
	    const char *actor);
void	 hostcmd_report(struct strv *s, const char *ws, bool force);
void	 hostcmd_version(struct strv *s);
void	 hostcmd_ls(struct strv *s, const char *ws, const char *path);
void	 hostcmd_repro_build(struct strv *s, const char *ws, bool again);
void	 hostcmd_chip_step(struct strv *s, long generation, int chip,
	    const char *ws);

#define HOSTCMD_CURSOR_MAX	64

/* `run --gate`'s exit status when another job of the gate runs in the
 * workspace (its stderr names it and who started it). */
#define HOSTCMD_RUN_REFUSED	3

/* Whether a line `run --id ID` printed on stdout says it started job id
 * (it prints the id, alone, once the job runs). */
bool	 hostcmd_run_started(const char *line, size_t len, const char *id);
/* Whether a line `run --id ID` printed on stderr says a job of that id is
 * there already (job.c: "job 'ID' already exists"), so it started none. */
bool	 hostcmd_run_exists(const char *line, size_t len);
/* Whether a line `report --write` printed on stderr, exiting 1, says the
 * record is there already (cmd_report.c), which --force writes over. */
bool	 hostcmd_report_exists(const char *line, size_t len);

/*
 * One job of `jobs --json` (share/doc/json.md §3): the members of its
 * job.json with the state `jobs` found, or a corrupt folder's id, state
 * "corrupt" and reason.  id and state are always there; the others are
 * what the entry gave, or the default noted.  record is the entry whole
 * (a reference the job holds), for a screen that shows every member.
 */
struct hostcmd_job {
	char	 *id, *state;
	char	**argv;		/* NULL-terminated; argc 0 when not given */
	size_t	  argc;
	char	 *cwd;		/* NULL when not given */
	char	 *reason;	/* NULL when not given (a corrupt one's) */
	double	  age;		/* seconds since it started; 0 */
	int	  exit_code;	/* -1: null or not given */
	int	  sig;		/* 0: null or not given */
	/* running, but its supervisor cannot write its events */
	bool	  degraded;
	/* the seq of its last event when listed: how far a reader catching
	 * up goes (0: not given, by a calops from before it was) */
	int64_t	  last_seq;
	json_t	 *record;
};

/* A host's job list, as its calops-jobs/v1 gave it; owns its jobs.  An
 * answer to `--since` gives the next cursor (else NULL), and whether it is
 * every job of the host (full: the cursor was 0, or ahead of its clock). */
struct hostcmd_jobs {
	struct hostcmd_job *v;
	size_t		    n;
	char		   *cursor;
	bool		    full;
};

/* What `jobs --json` printed (len bytes) into jobs; 0, or -1 with err
 * (not JSON: its line and column; not calops-jobs/v1; job N's member of
 * the wrong type; a cursor that is not a string of at most
 * HOSTCMD_CURSOR_MAX bytes) and jobs empty.  hostcmd_jobs_release() frees
 * them. */
int	 hostcmd_jobs_parse(const char *out, size_t len,
	    struct hostcmd_jobs *jobs, char *err, size_t errlen);
void	 hostcmd_jobs_release(struct hostcmd_jobs *jobs);
/* An entry's last_seq (borrowed entry, as hostcmd_job.record): 0 when it
 * is absent (a host whose calops does not say: unknown) or not an integer
 * from 1. */
int64_t	 hostcmd_job_last_seq(const json_t *entry);

/* What `version --json` says: the calops there and its protocol. */
struct hostcmd_version {
	char		version[64];	/* as the host wrote it, cut */
	long long	protocol;
};

/* What `version --json` printed into v; 0, or -1 with err (not JSON, no
 * "version" string, no integer "protocol"). */
int	 hostcmd_version_parse(const char *out, size_t len,
	    struct hostcmd_version *v, char *err, size_t errlen);

/* What `release WHAT --json` printed (WHAT status or audit) into *doc (a
 * new reference); 0, or -1 with err (not JSON, not an object, not of the
 * schema calops-release-WHAT/v1) and *doc NULL. */
int	 hostcmd_release_parse(const char *out, size_t len, const char *what,
	    json_t **doc, char *err, size_t errlen);

/*
 * One line of `release apply --json` (share/doc/release.md §5): the lock
 * held, hashing progress, the verdict on the generation held, the result.
 * Read as leniently as the console always has: a member missing or of
 * another type takes the default noted.
 */
enum hostcmd_apply_type {
	HOSTCMD_APPLY_OTHER,	/* not an event of apply's */
	HOSTCMD_APPLY_HELD,
	HOSTCMD_APPLY_PROGRESS,
	HOSTCMD_APPLY_VERIFIED,
	HOSTCMD_APPLY_RESULT,
};

struct hostcmd_apply {
	enum hostcmd_apply_type type;
	/* held: where `current` points (-1: none), the audit log's next
	 * seq (0) and its last line's SHA-256 ("" unless 64 characters);
	 * who may sign (NULL unless an array; a reference the event
	 * holds). */
	long		 current;
	long long	 next_seq;
	char		 head[65];
	json_t		*trusted_keys;
	/* held: whether it takes the chip step's line (marks: true) */
	bool		 marks;
	/* progress: bytes hashed of how many (0) */
	uint64_t	 done, total;
	/* verified: whether it verifies, its bindings were checked, why
	 * not, and the verdict's words ("") */
	bool		 verifies, bound;
	char		 problem[512], words[512];
	/* result: ok, refused, locked, …("error"), and its message ("") */
	char		 result[16];
	char		 message[768];
};

/* One line of apply's stdout into ev; -1 when it is not a JSON object
 * (not an event: ignored).  hostcmd_apply_release() frees its keys. */
int	 hostcmd_apply_parse(const char *line, size_t len,
	    struct hostcmd_apply *ev);
void	 hostcmd_apply_release(struct hostcmd_apply *ev);

/* What one line of `watch` says (protocol.md §1, calops watch). */
enum hostcmd_watch_event {
	HOSTCMD_WATCH_OTHER,	/* not an event, or one of no interest */
	HOSTCMD_WATCH_WATCHING,	/* every change from now on will be told */
	HOSTCMD_WATCH_CHANGED,	/* the workspace changed */
};

enum hostcmd_watch_event hostcmd_watch_parse(const char *line, size_t len);

/*
 * A fault scenario's result file as `cat` printed it
 * (06-runtime/faults/<scenario>.json, workspace.md §3 G7): the scenario,
 * the chip it ran on, and what the runner said.  Read strictly: a member
 * missing or of the wrong type refuses the file, naming the member (the
 * gate fails such a file too), so that a broken file is never read as a
 * result.
 */
struct hostcmd_fault {
	char		scenario[64];	/* as the file says, cut */
	int		chip;
	bool		structured, aborted, recovered;
	char		error_code[64];	/* "" when unstructured; cut */
	double		recover_ms;
};

/* What `cat` printed of a fault result file (len bytes) into f; 0, or -1
 * with err (not JSON: its line and column; a member missing or wrong). */
int	 hostcmd_fault_parse(const char *out, size_t len,
	    struct hostcmd_fault *f, char *err, size_t errlen);

/* The line number `cat --line-of` printed, or the seq `tail --find` did
 * (its one line, without the newline); 0, or -1 with err when it is not a
 * number from 1 on. */
int	 hostcmd_line_of_parse(const char *out, size_t len, long *line,
	    char *err, size_t errlen);

/*
 * What `ls --json` printed (protocol.md §1, calops ls): what PATH is and,
 * for a folder, its entries as the host read them, sorted by name, each
 * its own type (a symbolic link not followed), size and mtime, and how
 * many more the host did not list (past HOSTCMD_LS_MAX).  A name is one
 * component (never "", ".", ".." nor holding a '/'), as the host wrote it:
 * sanitise it before showing it.  opaque: the name on disk is not UTF-8 and
 * name is its escaped text (base/text.h), which opens nothing.
 */
#define HOSTCMD_LS_MAX	5000

enum hostcmd_ls_type {
	HOSTCMD_LS_FILE,
	HOSTCMD_LS_FOLDER,
	HOSTCMD_LS_LINK,
	HOSTCMD_LS_OTHER,
};

struct hostcmd_ls_entry {
	char			*name;
	enum hostcmd_ls_type	 type;
	long long		 size;		/* bytes */
	long long		 mtime;		/* seconds since the epoch */
	bool			 opaque;
};

struct hostcmd_ls {
	char			*path;		/* as the host says it */
	enum hostcmd_ls_type	 type;		/* what PATH is */
	struct hostcmd_ls_entry	*v;		/* a folder's; else none */
	size_t			 n;
	long long		 more;		/* not listed */
};

/* What `ls --json` printed (len bytes) into ls; 0, or -1 with err (not
 * JSON: its line and column; not calops-ls/v1; entry N's member missing or
 * wrong; more than HOSTCMD_LS_MAX entries) and ls empty.
 * hostcmd_ls_release() frees it. */
int	 hostcmd_ls_parse(const char *out, size_t len, struct hostcmd_ls *ls,
	    char *err, size_t errlen);
void	 hostcmd_ls_release(struct hostcmd_ls *ls);
/* "file", "folder", "link", "other": the protocol's words. */
const char *hostcmd_ls_type_name(enum hostcmd_ls_type t);

#endif

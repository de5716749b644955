/*
 * labmodel_int.h: the lab model's own state, shared by the four files it
 * is made of and by no other module: labmodel.c (the owner: hosts,
 * starting jobs, and it starts the replay and the sharing), labstream.c (a
 * job's stream: following it, mirroring and applying its events),
 * labreplay.c (reading the mirrors back at start), labshare.c (two
 * consoles on one state folder) and labpoll.c (the jobs it did not
 * start).  The job's command (labcmd.h) and its
 * mirror file (labmirror.h) are leaves with headers of their own: they are
 * given what they need and return what went wrong.  What labmodel.c
 * offers the other three is here; what each of them offers is in its own
 * header (labstream.h, labreplay.h, labshare.h).
 */
#ifndef CALOPS_LABMODEL_INT_H
#define CALOPS_LABMODEL_INT_H

#include "calops.h"

#include <stdio.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/strv.h"
#include "lab/labmirror.h"
#include "lab/labmodel.h"
#include "metrics/metrics.h"

struct follow;
struct rstream;
struct lshare;

struct lhost {
	const struct lab_host	*h;		/* borrowed from the lab */
	struct labmodel		*lm;
	struct transport	*t;		/* NULL: not reachable */
	char			 err[256];	/* why not */
	/* the last question the owner was told of (an SSH host's unknown
	 * key or passphrase), so it is told once */
	unsigned		 asked;		/* ask_seq told to the owner */
	bool			 writable;	/* protected, and --write */
	/* Its workspaces in the lab file's order (paths borrowed from the
	 * lab; the first is where a job runs when none is named), and each
	 * as jobs record it (labmodel_ws_key): a local one resolved, so that
	 * two spellings of one folder are one workspace. */
	const char		**ws;
	char			**ws_key;
	size_t			  nws;
	/* Its `jobs --json` answering (labpoll.c), or NULL; what it printed
	 * so far, whether some was dropped, and whether a list that could
	 * not be read was said (once, until one can be). */
	struct rstream		 *list;
	struct buf		  list_out;
	bool			  list_cut, list_said;
	unsigned		  lists;	/* asked for so far */
	/* The cursor its last `jobs --since` gave (NULL: every job next),
	 * and whether its calops lacks --since (polled as before, until it
	 * is up again); whether the list running asked --since. */
	char			 *cursor;
	bool			  no_since, asked_since;
	/* Its clock when its jobs were first listed (NAN: not yet): a job
	 * that ended before is history, after it news (labpoll.h); the
	 * jobs told ended, and the lost ones the first list found. */
	double			  first_list;
	struct strv		  told;
	/* Its fault and G7 jobs as its lists gave them (calops-jobs/v1
	 * entries, a reference each), its newest LABPOLL_FAULT_JOBS by
	 * start, whatever their age (labpoll_fault_jobs). */
	json_t			**fjobs;
	size_t			  nfjobs;
	bool			  up;		/* as its last change said */
};

struct ljob_int {
	struct ljob		 pub;	/* first: ljob pointers cast back */
	struct labmodel		*lm;
	/* following the stream, or NULL */
	struct follow		*follow;
	/* its bad lines already counted */
	uint64_t		 follow_bad;
	struct rstream		*run;	/* `calops run` answering, or NULL */
	bool			 run_printed;	/* it printed the job id */
	/* `calops run --id ID -- …`, kept until it answered: a launch the
	 * connection lost is made again when the host is up (relaunch);
	 * the id makes it start the job once at most */
	struct strv		 run_argv;
	bool			 relaunch;
	/* its stream broke because its host is not up: followed again when
	 * it is (labstream_host_up), with no retry counted */
	bool			 wait_host;
	char			 run_err[200];	/* its last stderr line */
	/* Its mirror (labmirror.h).  mirror.seq equals pub.last_seq while
	 * this console writes it; a console that watched another's jobs and
	 * then took over may have applied events the mirror lacks (or lack
	 * some the mirror has): its follow starts at the lower of the two. */
	struct labmirror	 mirror;
	char			*meta_path;	/* its record, or NULL */
	long			 retry_timer;	/* -1: none */
	int			 retries;
	/* a mirror write or the outcome failed: tried again
	 * (labstream.c keep_retry()), or -1 */
	long			 keep_timer;
	/* result events seen (G7 suite) */
	unsigned		 results;
	bool			 ended;		/* its end event was applied */
	/* its mirror had no end at start */
	bool			 unfinished;
	/* catching up: a job list's last_seq is how far (labstream.h) */
	bool			 catching;
	/* in the action log (its record says) */
	bool			 outcome_logged;
	/* The SLA its alerts judge by, recorded with the job when it started
	 * so that a replay gives the same journal (NAN: not known then). */
	double			 sla[3];
	bool			 own_sla;
	/* The warn hook said its store refused series (once a job). */
	bool			 dropped_said;
	/* ... that an event held more than the console keeps (once). */
	bool			 capped_said;
	/* ... that its mirror is refused, so it is not followed (once). */
	bool			 refused_said;
};

struct labmodel {
	struct loop		*loop;
	const struct lab	*lab;		/* borrowed */
	char			*self, *selfdir;
	struct labmodel_cb	 cb;
	struct lhost		*hosts;
	size_t			 nhosts;
	struct ljob_int		**jobs;		/* newest first */
	size_t			 njobs;
	struct lfault		*faults;
	size_t			 nfaults;
	/* ttft p99, tpot p99, success min */
	double			 sla[3];
	/* the mirrors' folder, or NULL */
	char			*streams;
	long			 replay_timer;	/* -1: none */
	/* the mirrors' lines held this turn written next turn (-1: none) */
	long			 flush_timer;
	long			 poll_timer;	/* the next job list (-1) */
	int			 lock_fd;	/* streams/.lock, or -1 */
	bool			 observer;	/* another console holds it */
	struct lshare		*share;	/* while observer (labshare.c) */
	/* Every soak's metric store counts its series here: the console's
	 * cap, METRICS_CONSOLE_SERIES (metrics.h). */
	struct mquota		 series;
};

/* labmodel.c */
/* How a job records the workspace ws of host h (a new string, or NULL when
 * ws is): its real path on a local host, else ws as the lab file gives it. */
char		*labmodel_ws_key(const struct lhost *h, const char *ws);
struct lhost	*labmodel_host_at(const struct labmodel *lm, const char *name);
void		 labmodel_changed(struct labmodel *lm);
void		 labmodel_warn(struct labmodel *lm, const char *fmt, ...)
		    PRINTFLIKE(2, 3);
void		 labmodel_add_fault(struct labmodel *lm,
	    const struct lfault *f);
/* Where a job's mirror and record go: <streams>/<host>/<id>.{jsonl,json}. */
char		*labmodel_job_path(const struct labmodel *lm, const char *host,
		    const char *id, const char *ext);

void		 labmodel_job_setup(struct labmodel *lm, struct ljob_int *j,
		    bool samples);
/* Make a host's mirror folder (and the streams folder), or find it, and
 * trust neither unless it is the user's alone (statedir.h); 0, or -1 with
 * err. */
int		 labmodel_host_dir(const struct labmodel *lm, const char *host,
		    char *err, size_t errlen);
/* Write a new job's record and open its mirror; 0, or -1 with err and no
 * record left (the caller frees the job). */
int		 labmodel_job_record(struct ljob_int *j, char *err,
		    size_t errlen);
/* Put a job first; past LAB_JOBS_MAX the oldest ended one goes. */
void		 labmodel_job_insert(struct labmodel *lm, struct ljob_int *j);

#endif

/*
 * labmodel_int.h: what labmodel.c (hosts, commands, starting jobs) and
 * labstream.c (a job's stream: its mirror, replay, follow and the events
 * applied to the model) share.  Not for other modules.
 */
#ifndef CALOPS_LABMODEL_INT_H
#define CALOPS_LABMODEL_INT_H

#include "calops.h"

#include <stdio.h>

#include "lab/labmodel.h"

struct follow;
struct lines;
struct rstream;
struct lshare;

struct lhost {
	const struct lab_host	*h;		/* borrowed from the lab */
	struct transport	*t;		/* NULL: not reachable */
	char			 err[256];	/* why not */
	const char		*ws;		/* its first workspace, or NULL */
};

struct ljob_int {
	struct ljob		 pub;		/* first: ljob pointers cast back */
	struct labmodel		*lm;
	struct follow		*follow;	/* following the stream, or NULL */
	uint64_t		 follow_bad;	/* its bad lines already counted */
	struct rstream		*run;		/* `calops run` answering, or NULL */
	bool			 run_printed;	/* it printed the job id */
	char			 run_err[200];	/* its last stderr line */
	int			 mirror_fd;	/* open for appending, or -1 */
	off_t			 mirror_size;	/* bytes of whole lines in it */
	/* The last seq in the mirror.  Equal to pub.last_seq while this
	 * console writes it; a console that watched another's jobs and then
	 * took over may have applied events the mirror lacks (or lack some
	 * the mirror has): its follow starts at the lower of the two. */
	int64_t			 mirror_seq;
	bool			 mirror_failed;	/* no longer written: said once */
	char			*mirror_path, *meta_path;
	struct lines		*replay;	/* the mirror being replayed */
	long			 retry_timer;	/* -1: none */
	int			 retries;
	unsigned		 results;	/* result events seen (G7 suite) */
	bool			 ended;		/* its end event was applied */
	bool			 unfinished;	/* its mirror had no end at start */
	bool			 outcome_logged; /* in the action log (its record says) */
	/* The SLA its alerts judge by, recorded with the job when it started
	 * so that a replay gives the same journal (NAN: not known then). */
	double			 sla[3];
	bool			 own_sla;
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
	double			 sla[3];	/* ttft p99, tpot p99, success min */
	char			*streams;	/* the mirrors' folder, or NULL */
	long			 replay_timer;	/* -1: none */
	int			 lock_fd;	/* streams/.lock, or -1 */
	bool			 observer;	/* another console holds it */
	struct lshare		*share;		/* while observer (labshare.c) */
};

/* labmodel.c */
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
/* Put a job first; past LAB_JOBS_MAX the oldest ended one goes. */
void		 labmodel_job_insert(struct labmodel *lm, struct ljob_int *j);

/* labcmd.c: a job's argv (what `calops run --` gets) and its label. */
struct strv {
	char	**v;
	size_t	  n, cap;
};
struct buf;
void		 labcmd_strv_add(struct strv *s, char *owned);
void		 labcmd_strv_free(struct strv *s);
int		 labcmd_build_job(struct labmodel *lm,
	    const struct ljob_spec *spec,
		    struct strv *argv, char *label, size_t labellen, char *err,
		    size_t errlen);
/* argv as a person would type it: words quoted for sh where needed. */
void		 labcmd_join_argv(char *const *argv, struct buf *b);

/* labreplay.c */
void		 labreplay_init(struct labmodel *lm);
/* Replay the mirrors of jobs not replayed yet, a chunk per loop turn. */
void		 labreplay_schedule(struct labmodel *lm);
/* Every job record in a host's mirror folder into *v (grown), but those
 * whose id skip() says to leave (NULL: none). */
void		 labreplay_scan_host(struct labmodel *lm, const char *host,
		    bool (*skip)(struct labmodel *, const char *id),
		    struct ljob_int ***v, size_t *n);

/* labshare.c: two consoles on one state folder.  The first holds the
 * lock and follows the jobs; another watches: it follows the same
 * streams without writing, sees the jobs the first starts, and takes over
 * when the first quits. */
void		 labshare_start(struct labmodel *lm);
void		 labshare_stop(struct labmodel *lm);

/* labstream.c */
/* Follow a job's stream from its last seq + 1 (mirroring and applying). */
void		 labstream_follow(struct ljob_int *j);
/* One event, in seq order, into the model. */
struct event;
void		 labstream_apply(struct ljob_int *j, const struct event *ev,
		    const char *line, size_t len);
/* This console now writes the mirror another one wrote (labmirror_adopt)
 * and follows the job again where the mirror lacks events (they are
 * mirrored, not applied twice). */
void		 labstream_take_over(struct ljob_int *j);
/* Append the job's action (outcome NULL: its start) to the action log. */
void		 labstream_log_action(const struct ljob_int *j,
	    const char *outcome);
/* Stop following, close files, free the job. */
void		 labstream_job_free(struct ljob_int *j);
/* The record written beside the mirror, and read back at start. */
char		*labstream_meta_json(const struct ljob_int *j);
struct ljob_int	*labstream_job_from_meta(struct labmodel *lm, const char *path,
		    char *err, size_t errlen);

/* labmirror.c */
/* Open the mirror for appending (made when missing); 0 or -1 with err. */
int		 labmirror_open(struct ljob_int *j, char *err, size_t errlen);
/* Append one event; a write that fails or falls short is undone and the
 * mirror written no more (it says so through the warn hook). */
void		 labmirror_append(struct ljob_int *j, const char *line,
		    size_t len);
/* Open a job's mirror for the replay (O_NOFOLLOW); -1 with errno.  With
 * last_recv set to when it was last written. */
int		 labmirror_replay_open(struct ljob_int *j);
/* Apply up to *budget lines of the mirror (the lines read are taken off
 * *budget); true when it is all applied, the file then cut after its last
 * whole line unless keep_file. */
bool		 labmirror_replay_step(struct ljob_int *j, size_t *budget,
		    bool keep_file);
void		 labmirror_replay_close(struct ljob_int *j);
/* Whether the mirror at path ends with the job's end event. */
bool		 labmirror_ended(const char *path);
/* A mirror another console wrote, now this one's: a last line a crash
 * left is cut off, mirror_size and mirror_seq say where it ends, and a
 * mirror that cannot be read to its end is written no more. */
void		 labmirror_adopt(struct ljob_int *j);

#endif

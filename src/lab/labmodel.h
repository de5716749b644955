/*
 * labmodel.h: the console's model of the lab (share/doc/architecture.md,
 * "An event from a host to a screen"): the hosts of the lab file with a transport each, the jobs the
 * console started on them, every such job's event stream followed through
 * follow.c, and what the streams say: progress, results, a metric store per
 * soak, the fault results per chip, the alerts of a soak.
 *
 * Nothing lost, nothing twice.  Each followed stream is mirrored, event by
 * event, in $XDG_STATE_HOME/calops/streams/<host>/<job>.jsonl (appended a
 * whole line at a time, before the event is applied), beside <job>.json,
 * the job's record as the console started it (kind, gate, chip, scenario,
 * command).  A console started again replays every mirror into a fresh
 * model, then resumes each unfinished stream at the mirror's last seq + 1
 * (follow.h: the consumer's durable position): every event applied once.
 * A mirror line that is cut or broken (a crash mid-write) is dropped and the
 * stream resumed from the last whole line.
 *
 * One console writes a state folder's mirrors: the one holding the flock
 * on streams/.lock.  Another one watches (labmodel_watching): it follows
 * the same streams without writing, sees the jobs the first starts, starts
 * none, and takes over the mirrors when the first quits (labshare.c).
 *
 * Jobs run as durable jobs (`calops run`), so they outlive the console; the
 * model shows at most LAB_JOBS_MAX of them, the newest.  The runner is the
 * lab file's (`runner:`, argv split on blanks); on a local host a runner
 * named without a slash that sits beside this calops binary (the bundled
 * simulator, calrt-sim) is run from there.
 *
 * Ownership: struct labmodel is made by labmodel_new() and freed by
 * labmodel_free(); it borrows the loop and the lab (which must outlive it).
 * struct ljob and struct lfault pointers are borrowed and valid only until
 * the model next changes (an event arrives, a job starts: an ended job past
 * LAB_JOBS_MAX is freed then, and the fault array moves): look them up
 * again in each callback or draw, never keep them.
 */
#ifndef CALOPS_LABMODEL_H
#define CALOPS_LABMODEL_H

#include "calops.h"

#include "lab/labcmd.h"
#include "loop/loop.h"
#include "remote/lab.h"

#define LAB_JOBS_MAX	64	/* jobs kept in the model, newest first */
#define LAB_FAULTS_MAX	4096	/* fault results kept, oldest dropped */
#define LAB_SOAKS_LOADED 4	/* soaks whose samples are kept, newest first */

struct metrics;
struct alerts;
struct chipstep;
struct transport;
struct labmodel;

enum ljob_state {
	LJ_STARTING,		/* `calops run` has not answered yet */
	LJ_RUNNING,
	LJ_DONE,		/* end with exit 0 */
	LJ_FAILED,		/* end with another exit code */
	LJ_KILLED,		/* end with a signal */
	LJ_BROKEN,		/* could not start, or the stream broke: err */
	/* Started before this console, its end not in the mirror: live, for
	 * all the console knows, but running only once its host says so (a
	 * live event); what the mirror had is being replayed meanwhile. */
	LJ_CATCHING_UP,
};

struct ljob {
	char		*host, *id;	/* id NULL while LJ_STARTING */
	/* The workspace it ran on, as labmodel_ws_key() gives it (NULL in a
	 * record from before it was kept); here: one of this lab's, so its
	 * gate, soak and fault results are this console's to show (every job
	 * of a host is still listed, and still disturbed by a new one). */
	char		*workspace;
	bool		 here;
	enum ljob_kind	 kind;
	int		 gate;	/* -1, or the gate it produces evidence for */
	int		 chip;		/* LJOB_FAULT: the target, else -1 */
	char		*scenario;	/* LJOB_FAULT, else NULL */
	int		*chips;		/* LJOB_SOAK: the chips it runs on */
	size_t		 nchips;
	double		 target_s;	/* LJOB_SOAK: the duration asked */
	/* the command line, for people (sanitise) */
	char		*command;
	/* who started it, as its host's job.json says (`run --actor`;
	 * untrusted), or NULL when not known */
	char		*actor;
	char		*label;		/* "soak 24h · chips 0-3", "fault kv-full · chip 2" */
	double		 started;	/* wall clock, Unix seconds */
	enum ljob_state	 state;
	int		 exit_code;	/* -1: none */
	int		 sig;		/* 0: none */
	char		 err[512];	/* LJ_BROKEN: why */

	/* From the stream. */
	int64_t		 last_seq;
	/* wall clock of the last event (NAN: none) */
	double		 last_recv;
	/* of the samples (tool time; NAN) */
	double		 first_ts, last_ts;
	char		 phase[32];	/* the last progress event's */
	double		 done, total;	/* its done/total (total 0: unknown) */
	char		 result[8];	/* "", pass, fail, error */
	uint64_t	 events;
	/* lines of the stream that were not events */
	uint64_t	 bad_lines;
	/* metric events with more values or labels than the console keeps
	 * (event.h): shown in part, mirrored whole */
	uint64_t	 capped;
	/* lines the host's supervisor could not store (gap events) */
	uint64_t	 lost_lines;
	/* since when it cannot write the job's events (0: it can), and why
	 * ("disk full"; untrusted) */
	double		 stalled_since;
	char		 stalled_why[32];
	bool		 replaying;	/* applied from the mirror, not live */
	/* Catching up: how far the host's events of it went when its host
	 * last listed it (`calops jobs --json`'s last_seq, protocol.md
	 * §4): last_seq of catchup_seq is the progress, and the job is
	 * CATCHING_UP until its stream reaches it.  0: caught up, not
	 * catching up, or not known (a host whose calops does not say:
	 * running from its first live event, as before). */
	int64_t		 catchup_seq;

	/* LJOB_CHIPSTEP: its stream as chipstep.h reads it (owned), once
	 * an event came; else NULL. */
	struct chipstep	*chipstep;

	/* LJOB_SOAK: its samples and alert journal; NULL for other kinds and
	 * for a soak older than the newest LAB_SOAKS_LOADED that has ended. */
	struct metrics	*metrics;
	struct alerts	*alerts;
};

/* One fault result (a `fault` event of protocol.md §3). */
struct lfault {
	char		*host, *job;
	char		*scenario;
	int		 chip;
	char		*error_code;	/* "" when unstructured */
	bool		 structured, aborted, recovered;
	double		 recover_ms;
	double		 ts;		/* the event's ts */
	double		 job_started;	/* its job's start (jobevent_now) */
};

/*
 * A job of a host that ended, as the host's job list says (labpoll.h):
 * whoever started it (this console, another, a script, `calops run` by
 * hand), a lab job or not, told once, in the first list after its end.
 * Strings are borrowed for the call; the host's (sanitise them).
 */
struct ljob_end {
	const char	*host, *id;
	const char	*state;		/* done, failed, killed or lost */
	int		 exit_code;	/* -1: none */
	int		 sig;		/* 0: none */
	/* when, on the host's clock (Unix seconds; NAN: lost, or not
	 * said) */
	double		 ended;
	const char	*actor;		/* who started it, or NULL */
	const char	*command;	/* its argv, joined by blanks */
};

/* What the model tells its owner; any hook may be NULL. */
struct labmodel_cb {
	/* Something shown changed (mark dirty). */
	void	(*changed)(struct labmodel *, void *arg);
	/* A job ended live (not during a replay): re-evaluate the board. */
	void	(*ended)(struct labmodel *, const struct ljob *, void *arg);
	/* Something went wrong that is not fatal (a corrupt job record, a
	 * mirror that cannot be written): say it (never on stderr, which is
	 * the console's screen). */
	void	(*warn)(struct labmodel *, const char *msg, void *arg);
	/* An SSH host asks the operator something (transport_status()'s
	 * ask: accept an unknown host key, a passphrase), said once each
	 * time it asks.  NULL: nobody can answer, and the transports never
	 * ask (an encrypted key is skipped, an unknown key refused). */
	void	(*ask)(struct labmodel *, const char *host, void *arg);
	void	*arg;
	/* Each event of a live stream as it is applied, with the time the
	 * host wrote it (the event's ts): the console's benchmark measures
	 * its lag with it (views/app/bench.c). */
	void	(*applied)(struct labmodel *, const struct ljob *, double ts,
		    void *arg);
	/* A job of a host ended (above), whether the model holds it or
	 * not.  With this hook a console that watches another's mirrors
	 * polls the hosts too (it takes nothing in). */
	void	(*host_ended)(struct labmodel *, const struct ljob_end *,
		    void *arg);
};

/*
 * A model of lab's hosts driven through loop; self is this calops binary
 * (NULL: /proc/self/exe).  SSH hosts start connecting at once (ssh.c);
 * their jobs' streams wait in the transport until the host is up, and are
 * followed again from their mirrors' ends whenever it comes back.
 * Replays the mirrors and resumes the unfinished streams.  NULL with err.
 */
struct labmodel	*labmodel_new(struct loop *l, const struct lab *lab,
		    const char *self, const struct labmodel_cb *cb,
		    char *err, size_t errlen);
void		 labmodel_free(struct labmodel *lm);
/* From the loop's before-sleep hook, before painting: every host's
 * transport hands out what it holds (transport_before_sleep), and the
 * events of this turn are written to their mirrors. */
void		 labmodel_before_sleep(struct labmodel *lm);

const struct lab *labmodel_lab(const struct labmodel *lm);
/* The transport of a host, or NULL when it is not reachable (err why). */
struct transport *labmodel_transport(struct labmodel *lm, const char *host,
		    char *err, size_t errlen);
/* The workspace of a host (the lab file's first on it), or NULL. */
const char	*labmodel_workspace(const struct labmodel *lm,
		    const char *host);
/* The workspace ws names on host, as the lab file gives its path (a local
 * one however spelt: lab_find_workspace), or NULL when host has no such
 * workspace; ws NULL: the host's first. */
const char	*labmodel_host_workspace(const struct labmodel *lm,
		    const char *host, const char *ws);
/* Whether jobs can run on a host: reachable, with a workspace. */
bool		 labmodel_host_usable(const struct labmodel *lm,
		    const char *host);
/* The first usable host, or NULL. */
const char	*labmodel_default_host(const struct labmodel *lm);
/* A protected host (lab.h) takes jobs only once allowed (--write HOST):
 * 0, or -1 with err when the lab has no such host. */
int		 labmodel_allow_write(struct labmodel *lm, const char *host,
		    char *err, size_t errlen);
/* Whether jobs on host are refused: protected and not allowed. */
bool		 labmodel_host_protected(const struct labmodel *lm,
		    const char *host);

/*
 * The exact command a spec (labcmd.h) runs as a durable job (what `calops
 * run --` is given: the argv joined by spaces, shell-quoted where needed,
 * as ljob.command and the action log have it) into buf; 0, or -1 with err
 * (no such host, no workspace on it, no such gate job).
 */
int		 labmodel_command(const struct labmodel *lm,
		    const struct ljob_spec *spec, char *buf, size_t len,
		    char *err, size_t errlen);
/* What a spec's job is in words ("G7 golden + 8 faults · chip 0", as
 * ljob.label and the action log have it; on a host with several
 * workspaces its folder's name after " · ") into buf; 0, or -1 with err. */
int		 labmodel_label(const struct labmodel *lm,
		    const struct ljob_spec *spec, char *buf, size_t len,
		    char *err, size_t errlen);
/* The chips a spec's job would run on, up to max into out: how many (0
 * when the host is not in the lab file). */
size_t		 labmodel_spec_chips(const struct labmodel *lm,
		    const struct ljob_spec *spec, int *out, size_t max);
/* The job id on host, or NULL when this model does not know it (a job
 * started by hand, or one past LAB_JOBS_MAX). */
const struct ljob *labmodel_find(const struct labmodel *lm, const char *host,
		    const char *id);
/* Whether a gate index has a lab job: G7 and G9 the runner's, the others
 * when the lab file's gates: map gives them a command. */
bool		 labmodel_gate_has_job(const struct labmodel *lm, int gate);

/*
 * Start a job; it shows as LJ_STARTING at once.  The action is appended to
 * the action log (actionlog.h), and its outcome when it ends.  Returns the
 * job (borrowed), or NULL with err.
 */
const struct ljob *labmodel_start(struct labmodel *lm,
		    const struct ljob_spec *spec, char *err, size_t errlen);

/* Jobs, newest first. */
size_t		 labmodel_njobs(const struct labmodel *lm);
struct ljob	*labmodel_job(const struct labmodel *lm, size_t i);
/* The newest job of a kind that is running, else the newest of the kind;
 * host NULL: any host.  NULL when none. */
struct ljob	*labmodel_latest(const struct labmodel *lm, enum ljob_kind k,
		    const char *host);
/* The running (or starting) job for a gate on host (NULL: any) in its
 * workspace ws (labmodel_host_workspace; NULL: any), or NULL.  A gate's
 * job runs in a workspace of its host (ljob_spec): one at a time for a
 * gate in a workspace, any number in several. */
const struct ljob *labmodel_gate_job(const struct labmodel *lm, int gate,
		    const char *host, const char *ws);
/* Whether a job is still going (starting or running). */
bool		 labmodel_job_live(const struct ljob *j);
const char	*labmodel_job_state_name(enum ljob_state s);
/* Whether j catches up with its host's events, and then how far in words
 * into buf ("catching up: 81200 of 177142 events (45%)", or "catching up:
 * 812 events" while its host has not said how far: ljob.catchup_seq) and
 * in whole per cent into *pct (-1: not known; 99 at most while short, so
 * that 100 says caught up). */
bool		 labmodel_job_catchup(const struct ljob *j, char *buf,
		    size_t len, int *pct);

/* Fault results (i < labmodel_nfaults) in the order their jobs started,
 * then in the order each job reported them: the same live and after a
 * restart, whatever order the mirrors are replayed in. */
size_t		 labmodel_nfaults(const struct labmodel *lm);
const struct lfault *labmodel_fault(const struct labmodel *lm, size_t i);
/* The live jobs on host that use chip (a soak on it, a fault on it), for the
 * "this would disturb" warning: up to max into out, returns how many. */
size_t		 labmodel_jobs_on_chip(const struct labmodel *lm,
		    const char *host, int chip, const struct ljob **out,
		    size_t max);

/* The G0 SLA the alerts and graphs use (from the board evaluation);
 * NAN for a value not known. */
void		 labmodel_set_sla(struct labmodel *lm, double ttft_ms_p99,
		    double tpot_ms_p99, double success_rate_min);
void		 labmodel_sla(const struct labmodel *lm, double *ttft_ms_p99,
		    double *tpot_ms_p99, double *success_rate_min);

/* Whether another console follows this lab's jobs: this one watches them
 * live, starts nothing, and takes over when the other quits (the warn hook
 * says so, and changed is called). */
bool		 labmodel_watching(const struct labmodel *lm);
/* Why this console cannot start jobs now (it is watching), or NULL. */
const char	*labmodel_start_refused(const struct labmodel *lm);


#endif

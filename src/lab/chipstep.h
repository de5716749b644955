/*
 * chipstep.h: a release's chip step seen from the approver's side (share/
 * doc/release.md §6): the lab job `calops release chip-step` (labcmd.h's
 * LJOB_CHIPSTEP) on a host of the lab, its event stream read into what the
 * signed promote record needs (the result file's SHA-256) or what the
 * refusal says (a golden that failed, a job cut short), and the check that
 * golden ran the generation's own package (its tree hash).
 *
 * chipstep_event() reads one line of the job's stream, for the console,
 * which follows the job through its lab model, as for chipstep_run(), the
 * headless promote's own small loop: start the job on the host through its
 * transport (local or SSH), follow it to its end, stop it when asked (a
 * signal, the time given) and say how it ended.
 */
#ifndef CALOPS_CHIPSTEP_H
#define CALOPS_CHIPSTEP_H

#include "calops.h"

#include "job/jobstore.h"
#include "remote/lab.h"

struct chipstep {
	char		 job[JOB_ID_MAX + 1];	/* "" until it started */
	uint64_t	 events;		/* lines of its stream read */
	/* The last progress event: inspect, golden (its cases), done. */
	char		 phase[32];
	double		 done, total;
	/* The chip_step event, once said. */
	bool		 said;
	bool		 passed;		/* every golden case matched */
	char		 golden[256];		/* the result, ws-relative */
	char		 golden_sha256[65];
	char		 calbin_tree[65];	/* the package golden ran */
	/* The end event: the job's state (done, failed, killed). */
	bool		 ended;
	char		 state[16];
	int		 exit_code, sig;
	char		 last_error[256];	/* the last error or warning */
	/* Why it was not followed to its end (stopped, the link lost), or
	 * "": it is then cut short, whatever else it said. */
	char		 cut[256];
	/* Set by chipstep_judge(): whether it passed, and why not. */
	bool		 ok;
	char		 problem[512];
};

/* Fresh, before the first event. */
void	 chipstep_init(struct chipstep *cs);
/* Apply one line of the job's stream (borrowed; the host's text, never
 * trusted: kept only as safe text). */
void	 chipstep_event(struct chipstep *cs, const char *line, size_t len);
/*
 * Once the job ended (or could not be followed to its end: cs->cut):
 * whether the chip step passed for a generation whose manifest binds the
 * package tree hash tree (NULL: not compared).  Sets cs->ok and
 * cs->problem, the refusal's reason.
 */
bool	 chipstep_judge(struct chipstep *cs, const char *tree);

/* Called once the job is started (its id in cs->job), and at each event. */
typedef void (*chipstep_progress_fn)(const struct chipstep *cs, void *arg);

/*
 * Run the chip step of generation gen on chip of lab host h, in its
 * workspace ws (a path the lab file gives on h), as job id job (made by
 * the caller, jobstore_id_generate(), so that the promote's marker names
 * it before it starts: relpending.h), and follow it to its end: the
 * headless promote's (cmd_release.c).  SIGINT and SIGTERM, and
 * timeout_s passing, stop the job (`calops kill` there), which ends it cut
 * short.  0 once it ended (or was cut short: cs says how); -1 with err when
 * it could not be started at all (cs->job then "").  config: an ssh config
 * file instead of ~/.ssh/config (NULL: the user's).
 */
int	 chipstep_run(const struct lab *lab, const struct lab_host *h,
	    const char *ws, long gen, int chip, const char *job,
	    const char *config, long timeout_s, chipstep_progress_fn fn,
	    void *arg, struct chipstep *cs, char *err, size_t errlen);
/*
 * Stop job on lab host h (`calops kill` there) if it still runs, for a
 * promote cut short (`calops release recover`): 0 once the kill ran there,
 * -1 with err when the host cannot be reached or the kill failed.
 */
int	 chipstep_stop(const struct lab *lab, const struct lab_host *h,
	    const char *job, const char *config, char *err, size_t errlen);

#endif

/*
 * labrun_driver.c: a test helper for tests/jobs/jobcwd_test.sh, a console
 * without a screen: it loads lab file LAB into the lab model (its state
 * folder is $XDG_STATE_HOME's), starts on HOST one job of each KIND as the
 * console's confirmations do (labmodel_start), waits until each has been
 * answered by the host's `calops run` (running, ended or broken), and
 * prints one line per job: its id, then the workspace the model says it
 * runs in (the one the confirmation shows).  Exit status 0 when every job
 * started, 1 when one did not (said on stderr), 2 on a usage or lab file
 * error.
 *
 *	labrun_driver CALOPS LAB HOST KIND...
 *	labrun_driver CALOPS LAB HOST --learn N
 *	labrun_driver CALOPS LAB HOST --catchup N
 *	labrun_driver CALOPS LAB HOST --ended N
 *
 * With --ended it starts nothing: it prints "listed" once the host's jobs
 * have been listed the first time (what ended before is history, never
 * told), then a line for each job of the host that the lab model's poll
 * tells ended (labmodel_cb's host_ended),
 * "ended", its id, state, exit code, then how long after its end (its
 * record's, on this machine's clock for a local host) it was told, in ms,
 * flushed at once, until N were told.
 *
 * With --learn it starts nothing: it waits until the model holds N jobs of
 * HOST that have ended, learnt from the host's job list as a console with
 * an empty state folder learns of jobs it did not start (labpoll.h), and
 * prints one line per job: id, label, state, last seq, then the time in ms
 * from the start until the first job was known.
 *
 * --catchup N is --learn N that says besides how each job caught up with
 * its host's events: a line `catchup ID STATE WORDS` before the loop
 * sleeps, whenever the words the Soak and Jobs screens show of it
 * (labmodel_job_catchup) give another per cent than they last did.
 *
 * KIND: g7 (G7's golden and faults), g9 (the soak, 30 s), gN (another
 * gate's command from the lab file), fault, golden, chip-step.
 */
#include "calops.h"

#include <math.h>
#include <signal.h>

#include "job/jobevent.h"
#include "lab/labmodel.h"
#include "lab/labmodel_int.h"
#include "loop/child.h"
#include "loop/loop.h"
#include "remote/lab.h"

#define DRIVER_TIMEOUT_MS	60000

static void
on_signal(struct loop *l, int sig, void *arg)
{
	(void)arg;
	if (sig == SIGCHLD)
		child_reap(l);
}

static void
on_timeout(struct loop *l, void *arg)
{
	*(bool *)arg = true;
	loop_stop(l);
}

/* What a KIND word starts; -1 when it is none. */
static int
spec_of(const char *word, const char *host, struct ljob_spec *spec)
{
	memset(spec, 0, sizeof *spec);
	spec->host = host;
	spec->chip = 0;
	spec->gate = -1;
	if (strcmp(word, "fault") == 0) {
		spec->kind = LJOB_FAULT;
		spec->scenario = "kv-full";
	} else if (strcmp(word, "golden") == 0)
		spec->kind = LJOB_GOLDEN;
	else if (strcmp(word, "chip-step") == 0) {
		spec->kind = LJOB_CHIPSTEP;
		spec->generation = 1;
	} else if (word[0] == 'g' && word[1] >= '0' && word[1] <= '9') {
		spec->kind = LJOB_GATE;
		spec->gate = (int)strtol(word + 1, NULL, 10);
		spec->duration_s = 30;
	} else
		return -1;
	return 0;
}

static size_t	learn = 0;	/* --learn N */
static struct loop *lm_loop;	/* --ended's */
static size_t	ended_want, ended_told;
static double	t0, known_ms = -1;

/* --catchup: each job's per cent last said (-2: never), by id. */
static bool	catchup;
static struct {
	char	id[80];
	int	pct;
} pcts[LAB_JOBS_MAX];
static size_t	npcts;

/* Say a job's catch-up when its per cent is not the one last said. */
static void
say_catchup(const struct ljob *j)
{
	char words[128];
	size_t k;
	int pct;

	if (j->id == NULL || !labmodel_job_catchup(j, words, sizeof words,
	    &pct))
		return;
	for (k = 0; k < npcts && strcmp(pcts[k].id, j->id) != 0; k++)
		;
	if (k == npcts) {
		if (npcts == LAB_JOBS_MAX)
			return;
		snprintf(pcts[npcts].id, sizeof pcts[npcts].id, "%s", j->id);
		pcts[npcts++].pct = -2;
	}
	if (pcts[k].pct == pct)
		return;
	pcts[k].pct = pct;
	printf("catchup\t%s\t%s\t%s\n", j->id,
	    labmodel_job_state_name(j->state), words);
}

/* Whether --learn's N jobs have ended (noting when the first was known). */
static bool
learnt(struct labmodel *lm)
{
	const struct ljob *j;
	size_t i, n = 0;

	if (labmodel_njobs(lm) > 0 && known_ms < 0)
		known_ms = (jobevent_now() - t0) * 1000;
	for (i = 0; i < labmodel_njobs(lm); i++) {
		j = labmodel_job(lm, i);
		if (catchup)
			say_catchup(j);
		n += j->state == LJ_DONE || j->state == LJ_FAILED ||
		    j->state == LJ_KILLED;
	}
	return n >= learn;
}

/* Whether every job started has been answered. */
static bool
all_answered(struct labmodel *lm)
{
	size_t i;

	for (i = 0; i < labmodel_njobs(lm); i++)
		if (labmodel_job(lm, i)->state == LJ_STARTING)
			return false;
	return true;
}

/* --ended: "listed" once, when the first list of the host came. */
static void
say_listed(struct labmodel *lm)
{
	static bool said;

	if (said || lm->nhosts == 0 || isnan(lm->hosts[0].first_list))
		return;
	said = true;
	printf("listed\n");
	fflush(stdout);
}

static void
before_sleep(struct loop *l, void *arg)
{
	if (ended_want > 0)
		say_listed(arg);
	labmodel_before_sleep(arg);
	if (ended_want == 0 && (learn > 0 ? learnt(arg) :
	    all_answered(arg)))
		loop_stop(l);
}

/* --ended: each job the poll tells ended, said at once. */
static void
host_ended(struct labmodel *lm, const struct ljob_end *e, void *arg)
{
	(void)lm;
	(void)arg;
	printf("ended\t%s\t%s\t%d\t%.0f\n", e->id, e->state, e->exit_code,
	    (jobevent_now() - e->ended) * 1000);
	fflush(stdout);
	if (++ended_told >= ended_want)
		loop_stop(lm_loop);
}

/* --learn N: wait, then say what was learnt. */
static int
learn_main(struct loop *l, struct labmodel *lm, size_t n, struct lab *lab)
{
	const struct ljob *j;
	bool timed_out = false;
	size_t k;

	learn = n > 0 ? n : 1;
	loop_add_timer(l, DRIVER_TIMEOUT_MS, on_timeout, &timed_out);
	loop_run(l);
	for (k = 0; k < labmodel_njobs(lm); k++) {
		j = labmodel_job(lm, k);
		printf("%s\t%s\t%s\t%lld\n", j->id, j->label,
		    labmodel_job_state_name(j->state), (long long)j->last_seq);
	}
	printf("known\t%.0f\n", known_ms);
	labmodel_free(lm);
	lab_release(lab);
	loop_free(l);
	return timed_out ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct labmodel_cb cb = { 0 };
	struct ljob_spec spec;
	struct labmodel *lm;
	const struct ljob *j;
	struct loop *l;
	struct lab lab;
	char err[1024];
	bool timed_out = false;
	int i, rc = 0;
	size_t k;

	if (argc < 5) {
		fprintf(stderr, "usage: labrun_driver CALOPS LAB HOST "
		    "KIND...\n");
		return 2;
	}
	if (lab_load(&lab, argv[2], err, sizeof err) != 0) {
		fprintf(stderr, "labrun_driver: %s\n", err);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	l = loop_new();
	if (argc == 6 && strcmp(argv[4], "--ended") == 0) {
		cb.host_ended = host_ended;
		ended_want = strtoul(argv[5], NULL, 10);
		lm_loop = l;
	}
	loop_watch_signal(l, SIGCHLD, on_signal, NULL);
	if ((lm = labmodel_new(l, &lab, argv[1], &cb, err, sizeof err)) ==
	    NULL) {
		fprintf(stderr, "labrun_driver: %s\n", err);
		return 2;
	}
	loop_set_before_sleep(l, before_sleep, lm);
	t0 = jobevent_now();
	catchup = argc == 6 && strcmp(argv[4], "--catchup") == 0;
	if (argc == 6 && (catchup || strcmp(argv[4], "--learn") == 0))
		return learn_main(l, lm, strtoul(argv[5], NULL, 10), &lab);
	if (ended_want > 0) {
		loop_add_timer(l, DRIVER_TIMEOUT_MS, on_timeout, &timed_out);
		loop_run(l);
		labmodel_free(lm);
		lab_release(&lab);
		loop_free(l);
		return timed_out ? 1 : 0;
	}
	for (i = 4; i < argc; i++) {
		if (spec_of(argv[i], argv[3], &spec) != 0) {
			fprintf(stderr, "labrun_driver: no kind '%s'\n",
			    argv[i]);
			return 2;
		}
		if (labmodel_start(lm, &spec, err, sizeof err) == NULL) {
			fprintf(stderr, "labrun_driver: %s: %s\n", argv[i],
			    err);
			rc = 1;
		}
	}
	loop_add_timer(l, DRIVER_TIMEOUT_MS, on_timeout, &timed_out);
	loop_run(l);
	for (k = 0; k < labmodel_njobs(lm); k++) {
		j = labmodel_job(lm, k);
		if (j->state == LJ_STARTING || j->id == NULL ||
		    (j->state == LJ_BROKEN && j->last_seq == 0)) {
			fprintf(stderr, "labrun_driver: %s did not start: "
			    "%s\n", j->label, timed_out ? "timed out" :
			    j->err);
			rc = 1;
			continue;
		}
		printf("%s\t%s\n", j->id, labmodel_host_workspace(lm, j->host,
		    NULL));
	}
	labmodel_free(lm);
	lab_release(&lab);
	loop_free(l);
	return rc;
}

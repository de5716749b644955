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
 *
 * KIND: g7 (G7's golden and faults), g9 (the soak, 30 s), gN (another
 * gate's command from the lab file), fault, golden, chip-step.
 */
#include "calops.h"

#include <signal.h>

#include "lab/labmodel.h"
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

static void
before_sleep(struct loop *l, void *arg)
{
	labmodel_before_sleep(arg);
	if (all_answered(arg))
		loop_stop(l);
}

int
main(int argc, char **argv)
{
	const struct labmodel_cb cb = { 0 };
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
	loop_watch_signal(l, SIGCHLD, on_signal, NULL);
	if ((lm = labmodel_new(l, &lab, argv[1], &cb, err, sizeof err)) ==
	    NULL) {
		fprintf(stderr, "labrun_driver: %s\n", err);
		return 2;
	}
	loop_set_before_sleep(l, before_sleep, lm);
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

/*
 * test_labresume.c: nothing lost when the console's mirror cannot be
 * written, with the real calops binary (argv[1]) running a durable job and
 * `calops tail` feeding the lab model.  The first model's mirror hits a
 * file-size limit after a few dozen events (as a full disk would): it says
 * so, applies the events anyway and writes the mirror no more; it is
 * stopped while the job still runs, well past where the mirror ends.  A
 * second model, the limit lifted, replays what the mirror kept and resumes
 * at its end: it applies all 302 events once, and the mirror ends up the
 * same bytes as the job's own events.jsonl.
 *
 *	test_labresume CALOPS_BINARY
 */
#include "calops.h"

#include <sys/resource.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "jobfixture.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "remote/lab.h"

#define JOB	"resume1"
#define NLINES	300

static const char *calops;
static char tmpdir[] = "/tmp/calops-labresume.XXXXXX";
static int nwarn;
static char warned[512];

static void
on_warn(struct labmodel *lm, const char *msg, void *arg)
{
	(void)lm;
	(void)arg;
	if (nwarn++ == 0)
		snprintf(warned, sizeof warned, "%s", msg);
}

/* A model of one local host run until the job ends (or ms). */
static struct labmodel *
run_model(struct loop *l, struct lab *lab, long ms)
{
	const struct labmodel_cb cb = { .warn = on_warn };
	struct labmodel *lm;
	char err[512];

	lm = labmodel_new(l, lab, calops, &cb, err, sizeof err);
	assert_non_null(lm);
	loop_add_timer(l, 50, jobfix_until_ended, lm);
	loop_add_timer(l, ms, jobfix_stop, NULL);
	loop_run(l);
	return lm;
}

static void
test_resume_after_failed_writes(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	const char *meta = "{\"v\":1,\"id\":\"" JOB "\",\"host\":\"local\","
	    "\"kind\":\"golden\",\"gate\":7,\"chip\":-1,\"chips\":[0],"
	    "\"target_s\":0,\"command\":\"sh\",\"label\":\"lines\","
	    "\"started\":1}";
	char err[512], *dir, *meta_path, *mirror, *events, *a, *b, script[128];
	struct rlimit small = { 4096, RLIM_INFINITY };
	struct rlimit big = { RLIM_INFINITY, RLIM_INFINITY };
	struct labmodel *lm;
	struct loop *l;
	struct lab lab;
	struct ljob *j;
	size_t alen, blen;

	(void)state;
	/* The job, started as an earlier console would have. */
	snprintf(script, sizeof script, "i=0; while [ $i -lt %d ]; do echo "
	    "line $i; i=$((i+1)); sleep 0.01; done", NLINES);
	jobfix_run(calops, JOB, script);
	dir = xasprintf("%s/calops/streams/local", tmpdir);
	assert_int_equal(fileio_make_dirs(dir, 0700, err, sizeof err), 0);
	free(dir);
	meta_path = xasprintf("%s/calops/streams/local/" JOB ".json", tmpdir);
	assert_int_equal(fileio_replace(meta_path, meta, strlen(meta), 0600,
	    false, err, sizeof err), 0);
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);

	/* A disk that fills up: the mirror stops at 4 KiB. */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	l = loop_new();
	loop_watch_signal(l, SIGCHLD, jobfix_reap, NULL);
	lm = run_model(l, &lab, 1500);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &big), 0);
	j = labmodel_job(lm, 0);
	assert_non_null(j);
	assert_int_equal(j->state, LJ_RUNNING);
	assert_true(j->events > 60 && j->events < NLINES);
	assert_true(nwarn >= 1);
	assert_non_null(strstr(warned, "cannot append"));
	labmodel_free(lm);
	loop_free(l);

	mirror = xasprintf("%s/calops/streams/local/" JOB ".jsonl", tmpdir);
	events = xasprintf("%s/jobs/" JOB "/events.jsonl", tmpdir);
	a = jobfix_slurp(mirror, &alen);
	b = jobfix_slurp(events, &blen);
	assert_true(alen > 0 && alen <= 4096);
	assert_memory_equal(a, b, alen);	/* a prefix of whole lines */
	assert_int_equal(a[alen - 1], '\n');
	free(a);

	/* Started again: the rest comes from the host, each event once. */
	l = loop_new();
	loop_watch_signal(l, SIGCHLD, jobfix_reap, NULL);
	lm = run_model(l, &lab, 30000);
	j = labmodel_job(lm, 0);
	assert_int_equal(j->state, LJ_DONE);
	assert_int_equal(j->events, NLINES + 2);
	assert_int_equal(j->last_seq, NLINES + 2);
	assert_int_equal(j->bad_lines, 0);
	labmodel_free(lm);
	loop_free(l);
	free(b);
	b = jobfix_slurp(events, &blen);
	a = jobfix_slurp(mirror, &alen);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, blen);
	free(a);
	free(b);
	free(mirror);
	free(events);
	free(meta_path);
	lab_release(&lab);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resume_after_failed_writes),
	};

	calops = jobfix_main_args(argc, argv, tmpdir);
	return cmocka_run_group_tests(tests, jobfix_group_setup,
	    jobfix_group_teardown);
}

/*
 * test_labrunner.c: a lab file's runner: given as a YAML list is a command
 * prefix (lab.md, protocol.md §5), with the real calops binary (argv[1])
 * running each job.  The runner's command (golden) and its options come
 * after the whole list, as the runner itself sees them; a runner that
 * cannot be started (exit 127) or refuses its command line (exit 2) before
 * reporting anything is said with the exact command the job ran.
 *
 *	test_labrunner CALOPS_BINARY
 */
#include "calops.h"

#include <sys/stat.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "jobfixture.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "remote/lab.h"

static const char *calops;
static char tmpdir[] = "/tmp/calops-labrunner.XXXXXX";
static char warned[1024];

static void
on_warn(struct labmodel *lm, const char *msg, void *arg)
{
	(void)lm;
	(void)arg;
	snprintf(warned, sizeof warned, "%s", msg);
}

/* Every 20 ms: stop once the job has ended. */
static void
check(struct loop *l, void *arg)
{
	struct labmodel *lm = arg;
	struct ljob *j = labmodel_job(lm, 0);

	if (j != NULL && !labmodel_job_live(j)) {
		loop_stop(l);
		return;
	}
	loop_add_timer(l, 20, check, lm);
}

/*
 * A golden run on the local host with runner: as the YAML list items
 * (one "  - item" line each), run to its end; the model is returned with
 * the lab it holds on to.
 */
static struct labmodel *
run_golden(struct loop *l, struct lab *lab, const char *items)
{
	const struct labmodel_cb cb = { .warn = on_warn };
	const struct ljob_spec spec = { .host = "local", .kind = LJOB_GOLDEN };
	struct labmodel *lm;
	char err[512], *text;

	text = xasprintf("hosts:\n  - {name: local, transport: local}\n"
	    "workspaces:\n  - {host: local, path: %s/ws}\nrunner:\n%s",
	    tmpdir, items);
	if (lab_parse(lab, text, strlen(text), "lab.yaml", err,
	    sizeof err) != 0)
		fail_msg("%s", err);
	free(text);
	warned[0] = '\0';
	lm = labmodel_new(l, lab, calops, &cb, err, sizeof err);
	assert_non_null(lm);
	if (labmodel_start(lm, &spec, err, sizeof err) == NULL)
		fail_msg("start: %s", err);
	loop_add_timer(l, 20, check, lm);
	loop_add_timer(l, 60000, jobfix_stop, NULL);
	loop_run(l);
	return lm;
}

static void
test_list_runner(void **state)
{
	struct labmodel *lm;
	struct ljob *j;
	struct loop *l;
	struct lab lab;
	char *ws, *path, *mirror, *want;
	size_t len;

	(void)state;
	ws = xasprintf("%s/ws", tmpdir);
	assert_int_equal(mkdir(ws, 0700), 0);
	l = loop_new();
	loop_watch_signal(l, SIGCHLD, jobfix_reap, NULL);

	/* A prefix of three words: the command comes after all of them. */
	lm = run_golden(l, &lab, "  - /bin/sh\n  - -c\n"
	    "  - 'echo \"args: $0 $*\"; echo \"{\\\"type\\\": \\\"result\\\", "
	    "\\\"status\\\": \\\"pass\\\"}\"'\n  - lab-runner\n");
	j = labmodel_job(lm, 0);
	assert_int_equal(j->state, LJ_DONE);
	path = xasprintf("%s/calops/streams/local/%s.jsonl", tmpdir, j->id);
	mirror = jobfix_slurp(path, &len);
	want = xasprintf("args: lab-runner golden --calbin %s/05-calbin/"
	    "package --chips 0", ws);
	if (strstr(mirror, want) == NULL)
		fail_msg("'%s' not in the job's events: %s", want, mirror);
	assert_string_equal(warned, "");
	free(want);
	free(mirror);
	free(path);
	labmodel_free(lm);
	lab_release(&lab);

	/* A runner that cannot be started: the supervisor's exit 127. */
	lm = run_golden(l, &lab, "  - /nonexistent/calops-runner\n"
	    "  - --log-dir\n  - /var/log/calrt run\n");
	j = labmodel_job(lm, 0);
	assert_int_equal(j->state, LJ_FAILED);
	want = xasprintf("golden · chip 0 on local: the runner could not be "
	    "started before it reported anything (exit 127); it ran: "
	    "/nonexistent/calops-runner --log-dir '/var/log/calrt run' golden "
	    "--calbin %s/05-calbin/package --chips 0", ws);
	assert_string_equal(warned, want);
	assert_string_equal(j->err, "the runner could not be started "
	    "(exit 127)");
	free(want);
	labmodel_free(lm);
	lab_release(&lab);

	/* One that refuses its command line, as `python3 stress sim.py`
	 * made python do. */
	lm = run_golden(l, &lab, "  - /bin/sh\n  - -c\n"
	    "  - 'echo \"usage: runner COMMAND\" >&2; exit 2'\n  - r\n");
	j = labmodel_job(lm, 0);
	assert_int_equal(j->state, LJ_FAILED);
	assert_non_null(strstr(warned, "the runner exited before it reported "
	    "anything (exit 2); it ran: /bin/sh -c 'echo \"usage: runner "
	    "COMMAND\" >&2; exit 2' r golden --calbin "));
	labmodel_free(lm);
	lab_release(&lab);
	loop_free(l);
	free(ws);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_runner),
	};

	calops = jobfix_main_args(argc, argv, tmpdir);
	return cmocka_run_group_tests(tests, jobfix_group_setup,
	    jobfix_group_teardown);
}

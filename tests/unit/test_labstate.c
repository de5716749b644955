/*
 * test_labstate.c: the console's stream mirrors trust nothing they find in
 * the state folder (base/statedir.h).  A symbolic link planted as a host's
 * mirror folder, holding a forged job record, is refused: the model loads
 * no job from it, says why, and starts no job there (nothing is written
 * through the link); a streams folder others may write is refused the
 * same way.  Each message names the folder and the fix.
 *
 *	test_labstate CALOPS_BINARY
 */
#include "calops.h"

#include <sys/stat.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "jobfixture.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "remote/lab.h"

static const char *calops;
static char tmpdir[] = "/tmp/calops-labstate.XXXXXX";
static char warned[1024];

static void
on_warn(struct labmodel *lm, const char *msg, void *arg)
{
	(void)lm;
	(void)arg;
	snprintf(warned, sizeof warned, "%s", msg);
}

/* A model of one local host whose workspace is the test's folder. */
static struct labmodel *
model(struct loop *l, struct lab *lab)
{
	const struct labmodel_cb cb = { .warn = on_warn };
	struct labmodel *lm;
	char err[512], *text;

	text = xasprintf("hosts:\n  - {name: local, transport: local}\n"
	    "workspaces:\n  - {host: local, path: %s}\n", tmpdir);
	assert_int_equal(lab_parse(lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	free(text);
	warned[0] = '\0';
	lm = labmodel_new(l, lab, calops, &cb, err, sizeof err);
	assert_non_null(lm);
	return lm;
}

/* Starting a golden run must be refused with each of the words. */
static void
start_refused(struct labmodel *lm, const char *const *words)
{
	const struct ljob_spec spec = { .host = "local", .kind = LJOB_GOLDEN };
	char err[1024];
	size_t i;

	assert_null(labmodel_start(lm, &spec, err, sizeof err));
	for (i = 0; words[i] != NULL; i++)
		if (strstr(err, words[i]) == NULL)
			fail_msg("'%s' not in: %s", words[i], err);
}

static void
test_planted_mirror_folder(void **state)
{
	const char *meta = "{\"v\":1,\"id\":\"forged1\",\"host\":\"local\","
	    "\"kind\":\"golden\",\"gate\":7,\"chip\":-1,\"chips\":[0],"
	    "\"target_s\":0,\"command\":\"sh\",\"label\":\"forged\","
	    "\"started\":1}";
	char err[512], *streams, *host, *elsewhere, *rec;
	struct labmodel *lm;
	struct loop *l = loop_new();
	struct lab lab;
	struct stat st;

	(void)state;
	streams = xasprintf("%s/calops/streams", tmpdir);
	host = xasprintf("%s/local", streams);
	elsewhere = xasprintf("%s/elsewhere", tmpdir);
	rec = xasprintf("%s/forged1.json", elsewhere);
	assert_int_equal(fileio_make_dirs(streams, 0700, err, sizeof err), 0);
	assert_int_equal(mkdir(elsewhere, 0700), 0);
	assert_int_equal(fileio_replace(rec, meta, strlen(meta), 0600, false,
	    err, sizeof err), 0);
	assert_int_equal(symlink(elsewhere, host), 0);

	lm = model(l, &lab);
	assert_int_equal(labmodel_njobs(lm), 0);
	assert_non_null(strstr(warned, "refusing the host's mirror folder"));
	assert_non_null(strstr(warned, "is a symbolic link"));
	start_refused(lm, (const char *const[]){ "refusing the host's "
	    "mirror folder '", "/calops/streams/local': it is a symbolic "
	    "link", "rm '", NULL });
	labmodel_free(lm);
	lab_release(&lab);
	/* Nothing but the forged record there. */
	assert_int_equal(lstat(rec, &st), 0);
	free(rec);
	rec = xasprintf("%s/.lock", elsewhere);
	assert_int_equal(lstat(rec, &st), -1);

	/* A streams folder anyone may write. */
	assert_int_equal(unlink(host), 0);
	assert_int_equal(chmod(streams, 0777), 0);
	lm = model(l, &lab);
	assert_non_null(strstr(warned, "/calops/streams': it is writable"));
	start_refused(lm, (const char *const[]){ "writable by its group and "
	    "others (mode 0777); run: chmod go-w '", NULL });
	labmodel_free(lm);
	lab_release(&lab);
	assert_int_equal(chmod(streams, 0700), 0);
	loop_free(l);
	free(rec);
	free(elsewhere);
	free(host);
	free(streams);
}

/* Every 50 ms: stop once no job is live. */
static void
check(struct loop *l, void *arg)
{
	struct labmodel *lm = arg;
	size_t i;

	for (i = 0; i < labmodel_njobs(lm); i++)
		if (labmodel_job_live(labmodel_job(lm, i)) ||
		    labmodel_job(lm, i)->replaying)
			break;
	if (labmodel_njobs(lm) > 0 && i == labmodel_njobs(lm)) {
		loop_stop(l);
		return;
	}
	loop_add_timer(l, 50, check, lm);
}

/*
 * A symbolic link planted as a job's mirror file (issue 27, item 9): the
 * job is not followed without a mirror.  It shows an error state that
 * says the path and the fix, as the state folder's refusals do, the status
 * line says it too, no event of it is applied, and nothing is written
 * through the link.
 */
static void
test_planted_mirror_file(void **state)
{
	const char *meta = "{\"v\":1,\"id\":\"planted1\",\"host\":\"local\","
	    "\"kind\":\"golden\",\"gate\":7,\"chip\":-1,\"chips\":[0],"
	    "\"target_s\":0,\"command\":\"sh\",\"label\":\"planted\","
	    "\"started\":1}";
	const char *const words[] = { "not followed without a mirror: "
	    "refusing '", "/calops/streams/local/planted1.jsonl': it is a "
	    "symbolic link (to '", "/victim'), and calops follows none in its "
	    "state; remove it: rm '", NULL };
	char err[512], *dir, *rec, *link, *victim, *text;
	struct labmodel *lm;
	struct loop *l = loop_new();
	struct lab lab;
	const struct ljob *j;
	size_t i, len;

	(void)state;
	jobfix_run(calops, "planted1", "echo one; echo two");
	dir = xasprintf("%s/calops/streams/local", tmpdir);
	assert_int_equal(fileio_make_dirs(dir, 0700, err, sizeof err), 0);
	rec = xasprintf("%s/planted1.json", dir);
	link = xasprintf("%s/planted1.jsonl", dir);
	victim = xasprintf("%s/victim", tmpdir);
	assert_int_equal(fileio_replace(rec, meta, strlen(meta), 0600, false,
	    err, sizeof err), 0);
	assert_int_equal(fileio_replace(victim, "precious\n", 9, 0600, false,
	    err, sizeof err), 0);
	assert_int_equal(symlink(victim, link), 0);

	loop_watch_signal(l, SIGCHLD, jobfix_reap, NULL);
	lm = model(l, &lab);
	loop_add_timer(l, 50, check, lm);
	loop_add_timer(l, 20000, jobfix_stop, NULL);
	loop_run(l);
	j = labmodel_find(lm, "local", "planted1");
	assert_non_null(j);
	assert_int_equal(j->state, LJ_BROKEN);
	assert_int_equal(j->events, 0);
	for (i = 0; words[i] != NULL; i++) {
		if (strstr(j->err, words[i]) == NULL)
			fail_msg("'%s' not in the job's error: %s", words[i],
			    j->err);
		if (strstr(warned, words[i]) == NULL)
			fail_msg("'%s' not said: %s", words[i], warned);
	}
	labmodel_free(lm);
	lab_release(&lab);
	loop_free(l);
	text = jobfix_slurp(victim, &len);
	assert_string_equal(text, "precious\n");
	free(text);
	free(victim);
	free(link);
	free(rec);
	free(dir);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_planted_mirror_folder),
		cmocka_unit_test(test_planted_mirror_file),
	};

	calops = jobfix_main_args(argc, argv, tmpdir);
	return cmocka_run_group_tests(tests, jobfix_group_setup,
	    jobfix_group_teardown);
}

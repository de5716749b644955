/*
 * test_labshare.c: two consoles on one state folder, with the real calops
 * binary (argv[1]) running durable jobs and `calops tail` feeding both lab
 * models (one loop, as two consoles would each have theirs).
 *
 * The first model holds the lock and follows a long job.  The second one
 * watches: it follows the same job live without writing, and sees a job
 * started after it (its record appears in the streams folder), again
 * without writing a mirror for it.  The first model is then stopped (its
 * console quit) while the long job still runs (it waits for a file the
 * test makes afterwards) and after the short one has ended.  The second
 * takes over: both jobs end with every event applied once, both mirrors
 * are the same bytes as the jobs' own events.jsonl (the short job's made
 * whole from the host, the long job's first lines written by the first
 * model), and each outcome is in the action log once.
 *
 * Then the race of a record written just before a console went, its job
 * not made yet: at a takeover, and at a console's own restart.
 *
 *	test_labshare CALOPS_BINARY
 */
#include "calops.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "job/jobevent.h"
#include "jobfixture.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "remote/lab.h"

#define LONG_JOB	"share1"
#define LONG_LINES	300
#define SHORT_JOB	"share2"
#define SHORT_LINES	40
#define LATE_JOB	"share3"
#define RESTART_JOB	"share4"
#define GONE_JOB	"share5"

static const char *calops;
static char tmpdir[] = "/tmp/calops-labshare.XXXXXX";
static char warned[8][512];
static int nwarn;

static void
on_warn(struct labmodel *lm, const char *msg, void *arg)
{
	(void)lm;
	(void)arg;
	if (nwarn < (int)nitems(warned))
		snprintf(warned[nwarn], sizeof warned[0], "%s", msg);
	nwarn++;
}

static bool
warned_of(const char *s)
{
	int i;

	for (i = 0; i < nwarn && i < (int)nitems(warned); i++)
		if (strstr(warned[i], s) != NULL)
			return true;
	return false;
}

static void
run_for(struct loop *l, long ms)
{
	loop_add_timer(l, ms, jobfix_stop, NULL);
	loop_run(l);
}

struct until {
	bool		(*holds)(struct labmodel *, const char *);
	struct labmodel	*lm;
	const char	*id;
	bool		  done;
};

static void
until_check(struct loop *l, void *arg)
{
	struct until *u = arg;

	if (u->holds(u->lm, u->id)) {
		u->done = true;
		loop_stop(l);
		return;
	}
	loop_add_timer(l, 20, until_check, u);
}

/* Run the loop until holds(lm, id), checked every 20 ms; at most 30 s. */
static bool
run_until(struct loop *l, bool (*holds)(struct labmodel *, const char *),
    struct labmodel *lm, const char *id)
{
	struct until u = { holds, lm, id, false };
	long t = loop_add_timer(l, 30000, jobfix_stop, NULL);

	loop_add_timer(l, 0, until_check, &u);
	loop_run(l);
	if (u.done)
		loop_del_timer(l, t);
	return u.done;
}

static struct ljob *
job_of(struct labmodel *lm, const char *id)
{
	struct ljob *j;
	size_t i;

	for (i = 0; (j = labmodel_job(lm, i)) != NULL; i++)
		if (strcmp(j->id, id) == 0)
			return j;
	return NULL;
}

/* A job's record, as a console writes it before the job starts. */
static void
write_record(const char *id)
{
	char *meta, *path, err[256];

	meta = xasprintf("{\"v\":1,\"id\":\"%s\",\"host\":\"local\","
	    "\"kind\":\"golden\",\"gate\":7,\"chip\":-1,\"chips\":[0],"
	    "\"target_s\":0,\"command\":\"sh\",\"label\":\"lines %s\","
	    "\"started\":%.3f}", id, id, jobevent_now());
	path = xasprintf("%s/calops/streams/local/%s.json", tmpdir, id);
	assert_int_equal(fileio_replace(path, meta, strlen(meta), 0600, false,
	    err, sizeof err), 0);
	free(path);
	free(meta);
}

/* A durable job printing n lines (half of them, then the rest once the
 * file go exists, when go is set). */
static void
run_job(const char *id, int n, const char *go)
{
	char script[512];

	snprintf(script, sizeof script, "i=0; while [ $i -lt %d ]; do echo "
	    "line $i; i=$((i+1)); [ $i = %d ] && while [ ! -e '%s' ]; do "
	    "sleep 0.01; done; sleep 0.01; done", n, go != NULL ? n / 2 : -1,
	    go != NULL ? go : "");
	jobfix_run(calops, id, script);
}

/* Both, as a console starts a job: the record first. */
static void
start_job(const char *id, int n, const char *go)
{
	write_record(id);
	run_job(id, n, go);
}

static char *
mirror_of(const char *id)
{
	return xasprintf("%s/calops/streams/local/%s.jsonl", tmpdir, id);
}

static char *
events_of(const char *id)
{
	return xasprintf("%s/jobs/%s/events.jsonl", tmpdir, id);
}

/* Whether a job's mirror is its events.jsonl, byte for byte. */
static bool
mirror_whole(const char *id)
{
	char *m = mirror_of(id), *e = events_of(id), *a = NULL, *b = NULL;
	struct stat sm, se;
	size_t alen, blen;
	bool same = false;

	if (stat(m, &sm) == 0 && stat(e, &se) == 0 &&
	    sm.st_size == se.st_size) {
		a = jobfix_slurp(m, &alen);
		b = jobfix_slurp(e, &blen);
		same = alen == blen && memcmp(a, b, alen) == 0;
	}
	free(a);
	free(b);
	free(m);
	free(e);
	return same;
}

/* What run_until() waits for. */
static bool
halfway(struct labmodel *lm, const char *id)
{
	struct ljob *j = job_of(lm, id);

	return j != NULL && j->events > LONG_LINES / 2;
}

static bool
ended(struct labmodel *lm, const char *id)
{
	struct ljob *j = job_of(lm, id);

	return j != NULL && !labmodel_job_live(j);
}

static bool
ended_mirrored(struct labmodel *lm, const char *id)
{
	return ended(lm, id) && mirror_whole(id);
}

/* The lab of the tests: one local host. */
static void
parse_lab(struct lab *lab)
{
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	char err[512];

	assert_int_equal(lab_parse(lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
}

/* A loop that reaps the children the models start. */
static struct loop *
new_loop(void)
{
	struct loop *l = loop_new();

	loop_watch_signal(l, SIGCHLD, jobfix_reap, NULL);
	return l;
}

/* A console's lab model, its warnings kept for warned_of(). */
static struct labmodel *
new_model(struct loop *l, struct lab *lab)
{
	const struct labmodel_cb cb = { .warn = on_warn };
	struct labmodel *lm;
	char err[512];

	lm = labmodel_new(l, lab, calops, &cb, err, sizeof err);
	assert_non_null(lm);
	return lm;
}

/* Lines of the action log naming job id with an outcome. */
static int
outcomes_of(const char *id)
{
	char *path = xasprintf("%s/calops/actions.jsonl", tmpdir), *text, *p,
	    *nl, *want = xasprintf("\"job\":\"%s\"", id);
	size_t len;
	int n = 0;

	text = jobfix_slurp(path, &len);
	for (p = text; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		*nl = '\0';
		n += strstr(p, want) != NULL && strstr(p, "\"outcome\"") != NULL;
	}
	free(text);
	free(want);
	free(path);
	return n;
}

static void
test_watch_then_take_over(void **state)
{
	struct labmodel *owner, *watcher;
	struct ljob *j;
	struct lab lab;
	struct loop *l;
	struct stat st;
	char err[512], *dir, *path, *go;
	int fd;

	(void)state;
	dir = xasprintf("%s/calops/streams/local", tmpdir);
	assert_int_equal(fileio_make_dirs(dir, 0700, err, sizeof err), 0);
	free(dir);
	parse_lab(&lab);
	go = xasprintf("%s/go", tmpdir);
	start_job(LONG_JOB, LONG_LINES, go);

	l = new_loop();
	owner = new_model(l, &lab);
	assert_false(labmodel_watching(owner));
	watcher = new_model(l, &lab);
	assert_true(labmodel_watching(watcher));
	assert_true(warned_of("another calops console follows these jobs"));

	/* Watching: the long job live in both, and nothing to start. */
	assert_true(run_until(l, halfway, watcher, LONG_JOB));
	assert_true(run_until(l, halfway, owner, LONG_JOB));
	assert_null(labmodel_start(watcher, &(struct ljob_spec){ .host =
	    "local", .kind = LJOB_GOLDEN }, err, sizeof err));
	assert_non_null(strstr(err, "another calops console"));

	/* A job the owner starts shows up in the watcher, not mirrored. */
	start_job(SHORT_JOB, SHORT_LINES, NULL);
	assert_true(run_until(l, ended, watcher, SHORT_JOB));
	j = job_of(watcher, SHORT_JOB);
	assert_int_equal(j->state, LJ_DONE);
	assert_int_equal(j->events, SHORT_LINES + 2);
	path = mirror_of(SHORT_JOB);
	assert_int_equal(stat(path, &st), -1);
	free(path);
	assert_true(labmodel_job_live(job_of(owner, LONG_JOB)));
	assert_true(labmodel_job_live(job_of(watcher, LONG_JOB)));

	/* The owner quits mid-job: the watcher takes over, and the job goes
	 * on to its end. */
	labmodel_free(owner);
	run_for(l, 200);
	assert_false(labmodel_watching(watcher));
	assert_true(warned_of("this one follows the lab's jobs now"));
	assert_true(labmodel_job_live(job_of(watcher, LONG_JOB)));
	fd = open(go, O_WRONLY | O_CREAT, 0600);
	assert_true(fd != -1);
	close(fd);
	assert_true(run_until(l, ended_mirrored, watcher, LONG_JOB));
	assert_true(run_until(l, ended_mirrored, watcher, SHORT_JOB));
	j = job_of(watcher, LONG_JOB);
	assert_int_equal(j->state, LJ_DONE);
	assert_int_equal(j->events, LONG_LINES + 2);
	assert_int_equal(j->last_seq, LONG_LINES + 2);
	assert_int_equal(j->bad_lines, 0);
	j = job_of(watcher, SHORT_JOB);
	assert_int_equal(j->events, SHORT_LINES + 2);
	assert_int_equal(j->bad_lines, 0);
	assert_true(mirror_whole(LONG_JOB));
	assert_true(mirror_whole(SHORT_JOB));
	assert_int_equal(outcomes_of(LONG_JOB), 1);
	assert_int_equal(outcomes_of(SHORT_JOB), 1);
	labmodel_free(watcher);
	loop_free(l);
	lab_release(&lab);
	free(go);
}

/* The lock of the console that writes, held by the test (another
 * console, as far as a lab model can tell); close the fd to let go. */
static int
hold_lock(void)
{
	char *path = xasprintf("%s/calops/streams/.lock", tmpdir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	assert_true(fd != -1 && flock(fd, LOCK_EX) == 0);
	free(path);
	return fd;
}

/*
 * The other console wrote a job's record and quit before the host knew
 * the job (its `calops run` still on the way).  Taking over, this one
 * must wait for the job, not drop its record: it follows the job once it
 * starts, and mirrors all of it.
 */
static void
test_take_over_before_the_job_starts(void **state)
{
	char *path;
	struct labmodel *lm;
	struct ljob *j;
	struct lab lab;
	struct loop *l;
	int lockfd;

	(void)state;
	parse_lab(&lab);
	/* The other console: the lock, and a record. */
	lockfd = hold_lock();
	write_record(LATE_JOB);

	l = new_loop();
	lm = new_model(l, &lab);
	assert_true(labmodel_watching(lm));
	run_for(l, 300);
	close(lockfd);		/* it quits */
	run_for(l, 1500);
	assert_false(labmodel_watching(lm));
	j = job_of(lm, LATE_JOB);
	assert_non_null(j);
	assert_int_equal(j->events, 0);
	assert_int_not_equal(j->state, LJ_BROKEN);
	path = xasprintf("%s/calops/streams/local/%s.json", tmpdir, LATE_JOB);
	assert_int_equal(access(path, F_OK), 0);

	/* Its `calops run` gets there. */
	run_job(LATE_JOB, SHORT_LINES, NULL);
	assert_true(run_until(l, ended_mirrored, lm, LATE_JOB));
	j = job_of(lm, LATE_JOB);
	assert_int_equal(j->state, LJ_DONE);
	assert_int_equal(j->events, SHORT_LINES + 2);
	assert_int_equal(outcomes_of(LATE_JOB), 1);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	free(path);
}

/*
 * The same race without a second console: a console killed between
 * writing a record and its `calops run` making the job, and started again
 * at once.  The job is waited for, not dropped, and mirrored whole once it
 * starts.
 */
static void
test_restart_before_the_job_starts(void **state)
{
	struct labmodel *lm;
	struct ljob *j;
	struct lab lab;
	struct loop *l;
	char *path;

	(void)state;
	parse_lab(&lab);
	write_record(RESTART_JOB);
	l = new_loop();
	lm = new_model(l, &lab);
	assert_false(labmodel_watching(lm));
	run_for(l, 1500);
	j = job_of(lm, RESTART_JOB);
	assert_non_null(j);
	assert_int_not_equal(j->state, LJ_BROKEN);
	path = xasprintf("%s/calops/streams/local/%s.json", tmpdir,
	    RESTART_JOB);
	assert_int_equal(access(path, F_OK), 0);
	free(path);
	run_job(RESTART_JOB, SHORT_LINES, NULL);
	assert_true(run_until(l, ended_mirrored, lm, RESTART_JOB));
	j = job_of(lm, RESTART_JOB);
	assert_int_equal(j->state, LJ_DONE);
	assert_int_equal(j->events, SHORT_LINES + 2);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
}

/*
 * The console that writes removed the files of an ended job the watching
 * one still shows (it keeps only the newest).  Taking over, the watcher
 * must not write them again: no record, no mirror fetched anew from the
 * host, no second outcome.
 */
static void
test_take_over_after_files_went(void **state)
{
	char *record, *mirror;
	struct labmodel *lm;
	struct lab lab;
	struct loop *l;
	int lockfd;

	(void)state;
	parse_lab(&lab);
	lockfd = hold_lock();
	start_job(GONE_JOB, SHORT_LINES, NULL);
	l = new_loop();
	lm = new_model(l, &lab);
	assert_true(labmodel_watching(lm));
	assert_true(run_until(l, ended, lm, GONE_JOB));

	record = xasprintf("%s/calops/streams/local/%s.json", tmpdir,
	    GONE_JOB);
	mirror = mirror_of(GONE_JOB);
	assert_int_equal(unlink(record), 0);
	close(lockfd);
	run_for(l, 1500);
	assert_false(labmodel_watching(lm));
	assert_int_equal(job_of(lm, GONE_JOB)->state, LJ_DONE);
	assert_int_equal(access(record, F_OK), -1);
	assert_int_equal(access(mirror, F_OK), -1);
	assert_int_equal(outcomes_of(GONE_JOB), 0);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	free(record);
	free(mirror);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watch_then_take_over),
		cmocka_unit_test(test_take_over_before_the_job_starts),
		cmocka_unit_test(test_restart_before_the_job_starts),
		cmocka_unit_test(test_take_over_after_files_went),
	};

	calops = jobfix_main_args(argc, argv, tmpdir);
	return cmocka_run_group_tests(tests, jobfix_group_setup,
	    jobfix_group_teardown);
}

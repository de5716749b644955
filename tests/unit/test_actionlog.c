/*
 * test_actionlog.c: the action log (actionlog.c).  Records are appended one
 * JSON line each under $XDG_STATE_HOME with private modes; the reader walks
 * back from the end, joins each action's outcome by job id, and skips a cut
 * last line, garbage and a 10 MB line; two processes appending at once
 * leave every line whole.  An outcome is logged once, whatever is retried
 * after a full disk; a planted link or a folder others may write is
 * refused.
 */
#include "calops.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "lab/actionlog.h"

struct fixture {
	char	*base;		/* a temp folder: XDG_STATE_HOME */
	char	*path;		/* base/calops/actions.jsonl */
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char err[256], *p;

	f->base = xstrdup("/tmp/calops-test-actionlog.XXXXXX");
	assert_non_null(mkdtemp(f->base));
	setenv("XDG_STATE_HOME", f->base, 1);
	f->path = xasprintf("%s/calops/actions.jsonl", f->base);
	p = actionlog_path(err, sizeof err);
	assert_non_null(p);
	assert_string_equal(p, f->path);
	free(p);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	fileio_remove_tree(f->base);
	free(f->base);
	free(f->path);
	free(f);
	return 0;
}

static void
act(const char *job, const char *what, int chip, const char *cmd)
{
	struct action_rec r = { 1790000000.5, "local", chip, job, what, cmd,
	    NULL };
	char err[256];

	if (actionlog_append(&r, err, sizeof err) != 0)
		fail_msg("append: %s", err);
}

static void
outcome(const char *job, const char *what)
{
	struct action_rec r = { 1790000060.25, "local", -1, job, NULL, NULL,
	    what };
	char err[256];

	if (actionlog_append(&r, err, sizeof err) != 0)
		fail_msg("append: %s", err);
}

static void
load(struct action_list *l, size_t max)
{
	char err[256];

	if (actionlog_load(NULL, max, l, err, sizeof err) != 0)
		fail_msg("load: %s", err);
}

/* Append raw bytes to the log, as a crash or a stranger would. */
static void
raw(const struct fixture *f, const char *s, size_t len)
{
	char *dir = xasprintf("%s/calops", f->base);
	int fd;

	(void)mkdir(dir, 0700);
	free(dir);
	fd = open(f->path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, len), (ssize_t)len);
	close(fd);
}

static void
append_and_join(void **state)
{
	struct fixture *f = *state;
	struct action_list l;
	struct action_rec nostart = { 1790000100, "lab3", 2, NULL,
	    "fault kv-full", "calops run -- x", "not started: no runner" };
	struct stat st;
	char err[256], *dir;

	(void)f;
	load(&l, 10);
	assert_int_equal(l.n, 0);	/* no file yet */
	actionlog_list_release(&l);
	act("j1", "fault wait-timeout", 0, "calops run -- calrt-sim fault");
	act("j2", "soak 24h", -1, "calops run -- calrt-sim stress");
	outcome("j1", "done exit 0");
	assert_int_equal(actionlog_append(&nostart, err, sizeof err), 0);
	load(&l, 10);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.skipped, 0);
	assert_null(l.v[0].job);
	assert_string_equal(l.v[0].outcome, "not started: no runner");
	assert_string_equal(l.v[0].host, "lab3");
	assert_int_equal(l.v[0].chip, 2);
	assert_string_equal(l.v[1].job, "j2");
	assert_null(l.v[1].outcome);
	assert_int_equal(l.v[1].chip, -1);
	assert_string_equal(l.v[2].job, "j1");
	assert_string_equal(l.v[2].what, "fault wait-timeout");
	assert_string_equal(l.v[2].command, "calops run -- calrt-sim fault");
	assert_string_equal(l.v[2].outcome, "done exit 0");
	assert_true(l.v[2].outcome_ts == 1790000060.25);
	assert_true(l.v[2].ts == 1790000000.5);
	assert_true(l.v[2].user != NULL && l.v[2].user[0] != '\0');
	actionlog_list_release(&l);
	/* Only the newest asked for. */
	load(&l, 1);
	assert_int_equal(l.n, 1);
	assert_null(l.v[0].job);
	actionlog_list_release(&l);
	/* Private: the folder 0700, the file 0600. */
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	dir = xasprintf("%s/calops", f->base);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	free(dir);
}

static void
strings_are_stored_raw(void **state)
{
	struct action_list l;
	char *big = xmalloc(200001);

	(void)state;
	act("e1", "fault x", 1, "echo \x1b[31mred\x1b[0m\ttab\nnl");
	act("e2", "fault y", 1, "bad \xff\xfe bytes");
	memset(big, 'c', 200000);
	big[200000] = '\0';
	act("e3", "fault z", 1, big);
	load(&l, 10);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[2].command, "echo \x1b[31mred\x1b[0m\ttab\nnl");
	assert_string_equal(l.v[1].command, "bad \\xff\\xfe bytes");
	/* A huge command is cut so the line fits. */
	assert_true(strlen(l.v[0].command) > 1000);
	assert_true(strlen(l.v[0].command) < ACTIONLOG_LINE_MAX);
	assert_int_equal(l.v[0].command[0], 'c');
	actionlog_list_release(&l);
	free(big);
}

static void
cut_last_line_and_garbage(void **state)
{
	struct fixture *f = *state;
	struct action_list l;
	static const char junk[] = "hello\n[1,2]\n{}\n\xff\xfe\n\n"
	    "{\"ts\":1,\"job\":\"g1\"}\n";

	act("g1", "fault a", 0, "c1");
	raw(f, junk, sizeof junk - 1);
	act("g2", "fault b", 1, "c2");
	raw(f, "{\"ts\":17900", 11);	/* a crash mid-line */
	load(&l, 10);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.skipped, 6);
	assert_string_equal(l.v[0].job, "g2");
	assert_string_equal(l.v[1].job, "g1");
	actionlog_list_release(&l);
	/* The next record starts on a line of its own. */
	outcome("g2", "failed exit 1");
	load(&l, 10);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.skipped, 6);
	assert_string_equal(l.v[0].outcome, "failed exit 1");
	actionlog_list_release(&l);
}

static void
a_ten_megabyte_line_is_skipped(void **state)
{
	struct fixture *f = *state;
	struct action_list l;
	size_t n = 10u << 20;
	char *huge = xmalloc(n + 1);

	act("h1", "fault a", 0, "c1");
	memset(huge, '{', n);
	huge[n] = '\n';
	raw(f, huge, n + 1);
	act("h2", "fault b", 1, "c2");
	outcome("h1", "done exit 0");
	load(&l, 10);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.skipped, 1);
	assert_string_equal(l.v[1].job, "h1");
	assert_string_equal(l.v[1].outcome, "done exit 0");
	actionlog_list_release(&l);
	free(huge);
}

static void
only_the_tail_is_read(void **state)
{
	struct fixture *f = *state;
	struct action_list l;
	char line[200], *all = xmalloc(200u * 50000);
	size_t n = 0;
	int i, len;

	for (i = 0; i < 50000; i++) {
		len = snprintf(line, sizeof line, "{\"ts\":%d,\"job\":\"t%d\","
		    "\"what\":\"fault a\",\"command\":\"c\"}\n", i, i);
		memcpy(all + n, line, (size_t)len);
		n += (size_t)len;
	}
	raw(f, all, n);
	free(all);
	load(&l, 3);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].job, "t49999");
	assert_string_equal(l.v[2].job, "t49997");
	actionlog_list_release(&l);
}

/* Each child appends n records with a command of 3000 copies of c. */
static void
child_appends(char c, int n)
{
	char cmd[3001], job[32];
	int i;

	memset(cmd, c, 3000);
	cmd[3000] = '\0';
	for (i = 0; i < n; i++) {
		snprintf(job, sizeof job, "%c%d", c, i);
		act(job, "fault kv-full", i % 8, cmd);
	}
	_exit(0);
}

static void
concurrent_appends_stay_whole(void **state)
{
	struct action_list l;
	pid_t p[2];
	size_t i, j, a = 0;
	int st, k;

	(void)state;
	for (k = 0; k < 2; k++)
		if ((p[k] = fork()) == 0)
			child_appends(k == 0 ? 'a' : 'b', 2000);
	for (k = 0; k < 2; k++) {
		assert_int_equal(waitpid(p[k], &st, 0), p[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	load(&l, 10000);
	assert_int_equal(l.n, 4000);
	assert_int_equal(l.skipped, 0);
	for (i = 0; i < l.n; i++) {
		assert_int_equal(strlen(l.v[i].command), 3000);
		for (j = 0; j < 3000; j++)
			if (l.v[i].command[j] != l.v[i].job[0])
				fail_msg("record %zu is mixed", i);
		a += l.v[i].job[0] == 'a';
	}
	assert_int_equal(a, 2000);
	actionlog_list_release(&l);
}

static off_t
size_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/* How many lines of the log are an outcome record of job. */
static int
outcomes_of(const struct fixture *f, const char *job)
{
	char line[1024], *want = xasprintf("\"job\":\"%s\",\"outcome\"", job);
	FILE *fp = fopen(f->path, "r");
	int n = 0;

	assert_non_null(fp);
	while (fgets(line, sizeof line, fp) != NULL)
		n += strstr(line, want) != NULL;
	fclose(fp);
	free(want);
	return n;
}

/*
 * A full disk: the outcome record fits but for its line feed, so the write
 * fails (RLIMIT_FSIZE stands for the disk).  The failed append is undone,
 * and neither its retry nor a replay after a restart logs the outcome a
 * second time; another job's outcome of the same words is its own.
 */
static void
outcome_once_after_full_disk(void **state)
{
	struct fixture *f = *state;
	struct action_rec r = { 1790000060.25, "local", -1, "f1", NULL, NULL,
	    "failed exit 2" };
	struct rlimit old, lim;
	struct action_list l;
	char err[256], *scratch, *log;
	off_t before, len;

	/* The record's length, from a log of its own. */
	scratch = xasprintf("%s/scratch", f->base);
	log = xasprintf("%s/calops/actions.jsonl", scratch);
	setenv("XDG_STATE_HOME", scratch, 1);
	assert_int_equal(actionlog_append(&r, err, sizeof err), 0);
	len = size_of(log);
	free(log);
	setenv("XDG_STATE_HOME", f->base, 1);
	act("f1", "fault kv-full", 0, "calrt-sim fault");
	before = size_of(f->path);
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)(before + len - 1);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	err[0] = '\0';
	assert_int_equal(actionlog_append(&r, err, sizeof err), -1);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_non_null(strstr(err, "cannot append to"));
	assert_int_equal(size_of(f->path), before);
	/* The retry writes it; the replay finds it there. */
	assert_int_equal(actionlog_append(&r, err, sizeof err), 0);
	assert_int_equal(actionlog_append(&r, err, sizeof err), 0);
	assert_int_equal(outcomes_of(f, "f1"), 1);
	act("f2", "fault kv-full", 1, "calrt-sim fault");
	r.job = "f2";
	assert_int_equal(actionlog_append(&r, err, sizeof err), 0);
	assert_int_equal(outcomes_of(f, "f2"), 1);
	load(&l, 10);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.skipped, 0);
	assert_string_equal(l.v[1].outcome, "failed exit 2");
	actionlog_list_release(&l);
	fileio_remove_tree(scratch);
	free(scratch);
}

/* A link planted as the log or as the state folder, and a state folder
 * others may write, are refused with the fix; nothing is written. */
static void
planted_links_are_refused(void **state)
{
	struct fixture *f = *state;
	struct action_rec r = { 1790000000, "local", -1, "p1", "fault a",
	    "c", NULL };
	char err[512], *dir = xasprintf("%s/calops", f->base);
	char *target = xasprintf("%s/target", f->base);
	char *moved = xasprintf("%s/moved", f->base);
	struct action_list l;

	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(symlink(target, f->path), 0);
	assert_int_equal(actionlog_append(&r, err, sizeof err), -1);
	assert_non_null(strstr(err, "is a symbolic link"));
	assert_non_null(strstr(err, "rm '"));
	assert_int_equal(access(target, F_OK), -1);
	assert_int_equal(actionlog_load(NULL, 10, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, "is a symbolic link"));
	actionlog_list_release(&l);
	assert_int_equal(unlink(f->path), 0);
	/* The state folder itself a link. */
	assert_int_equal(rename(dir, moved), 0);
	assert_int_equal(symlink(moved, dir), 0);
	assert_int_equal(actionlog_append(&r, err, sizeof err), -1);
	assert_non_null(strstr(err, "refusing the state folder"));
	assert_int_equal(unlink(dir), 0);
	assert_int_equal(rename(moved, dir), 0);
	/* Writable by others. */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(actionlog_append(&r, err, sizeof err), -1);
	assert_non_null(strstr(err, "writable by its group and others "
	    "(mode 0777); run: chmod go-w '"));
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(actionlog_append(&r, err, sizeof err), 0);
	free(dir);
	free(target);
	free(moved);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(append_and_join, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(strings_are_stored_raw, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(cut_last_line_and_garbage,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(a_ten_megabyte_line_is_skipped,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(only_the_tail_is_read, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(concurrent_appends_stay_whole,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(outcome_once_after_full_disk,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(planted_links_are_refused,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

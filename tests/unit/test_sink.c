/*
 * test_sink.c: the supervisor's sink (jobsink.c) when the disk will not
 * take a line: lines wait in order and are written when it will, a bound
 * past which they are counted in a gap event, the stalled and resumed
 * notices, and the last words (gap, end) when it never will.
 *
 * The disk is made to refuse with RLIMIT_FSIZE, which fails a write past a
 * size as a full disk would (EFBIG, or a short write at the limit), and
 * needs no privilege; tests/jobs/diskfull.sh does it on a real full file
 * system.
 */
#include "calops.h"

#include <sys/resource.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "job/jobevent.h"
#include "job/jobreader.h"
#include "job/jobsink.h"

#define BIG	60000	/* bytes of a big line: 139 of them fill the wait */

struct fixture {
	char		*dir;
	int		 dfd;
	struct job_sink	 k;
	char		*big;
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char err[256];

	signal(SIGXFSZ, SIG_IGN);
	f->dir = xstrdup("/tmp/calops-test-sink.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->dfd = open(f->dir, O_RDONLY | O_DIRECTORY);
	assert_int_not_equal(f->dfd, -1);
	assert_int_equal(jobsink_open(&f->k, f->dfd, "events.jsonl", err,
	    sizeof err), 0);
	f->big = xmalloc(BIG);
	memset(f->big, 'x', BIG);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd[] = { "rm", "-rf", f->dir, NULL };
	struct rlimit rl;
	pid_t pid;

	getrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_FSIZE, &rl);
	jobsink_close(&f->k);
	close(f->dfd);
	if ((pid = fork()) == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	free(f->dir);
	free(f->big);
	free(f);
	return 0;
}

/* The disk takes bytes more than the file holds (RLIM_INFINITY: all). */
static void
disk_takes(struct fixture *f, rlim_t bytes)
{
	struct rlimit rl;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &rl), 0);
	rl.rlim_cur = bytes == RLIM_INFINITY ? rl.rlim_max :
	    (rlim_t)f->k.size + bytes;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

/* events.jsonl as it is, each line checked for its seq (1, 2, 3, ...). */
static json_t *
read_events(struct fixture *f)
{
	char *path = xasprintf("%s/events.jsonl", f->dir), err[128];
	json_t *all = json_array(), *o;
	struct job_reader r;
	const char *line;
	uint64_t seq;
	size_t len;
	bool end;

	assert_int_equal(jobreader_open(&r, path), 0);
	while (jobreader_next(&r, &line, &len) == 1) {
		assert_int_equal(jobevent_check(line, len, &seq, &end, err,
		    sizeof err), 0);
		assert_int_equal(seq, json_array_size(all) + 1);
		assert_non_null(o = json_loadb(line, len, 0, NULL));
		json_array_append_new(all, o);
	}
	jobreader_close(&r);
	free(path);
	return all;
}

static const char *
type_of(json_t *all, size_t i)
{
	return json_string_value(json_object_get(json_array_get(all, i),
	    "type"));
}

static const char *
msg_of(json_t *all, size_t i)
{
	return json_string_value(json_object_get(json_array_get(all, i),
	    "msg"));
}

static json_int_t
int_of(json_t *all, size_t i, const char *key)
{
	return json_integer_value(json_object_get(json_array_get(all, i),
	    key));
}

/* Lines that find no space wait, and are written in order when it comes
 * back, after a note that says the file was stalled and for how long. */
static void
test_lines_wait(void **state)
{
	struct fixture *f = *state;
	char name[16];
	json_t *all;
	int i;

	assert_int_equal(jobsink_event(&f->k, "hello", NULL), 0);
	assert_int_equal(jobsink_line(&f->k, "a", 1, false, false), 0);
	disk_takes(f, 0);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof name, "w%d", i);
		assert_int_equal(jobsink_line(&f->k, name, strlen(name),
		    false, false), 1);
	}
	assert_int_equal(f->k.waiting, 3);
	assert_true(f->k.stalled_since > 0);
	assert_int_equal(jobsink_flush(&f->k), 1);
	disk_takes(f, RLIM_INFINITY);
	assert_int_equal(jobsink_flush(&f->k), 0);
	assert_int_equal(f->k.waiting, 0);
	assert_true(f->k.stalled_since == 0);
	assert_int_equal(jobsink_line(&f->k, "b", 1, false, false), 0);
	assert_int_equal(jobsink_event(&f->k, "end", NULL), 0);

	all = read_events(f);
	assert_int_equal(json_array_size(all), 8);
	assert_string_equal(msg_of(all, 1), "a");
	assert_string_equal(msg_of(all, 2), "w0");
	assert_string_equal(msg_of(all, 3), "w1");
	assert_string_equal(msg_of(all, 4), "w2");
	assert_string_equal(type_of(all, 5), "resumed");
	assert_int_equal(int_of(all, 5, "waited"), 3);
	assert_int_equal(int_of(all, 5, "lost"), 0);
	assert_string_equal(msg_of(all, 6), "b");
	assert_string_equal(type_of(all, 7), "end");
	assert_int_equal(f->k.lost, 0);
	json_decref(all);
}

/*
 * Past the bound lines are dropped and counted; the gap that says so is
 * numbered where they were lost: after the lines that waited, before a
 * line that came once some space was back.
 */
static void
test_bound_and_gap(void **state)
{
	struct fixture *f = *state;
	size_t accepted, i, n = 0;
	json_t *all, *gap;

	assert_int_equal(jobsink_event(&f->k, "hello", NULL), 0);
	disk_takes(f, 0);
	while (f->k.lost == 0) {
		assert_int_equal(jobsink_line(&f->k, f->big, BIG, false,
		    false), 1);
		n++;
	}
	accepted = f->k.waiting;
	assert_int_equal(accepted, n - 1);
	assert_true(accepted * BIG <= JOB_SINK_WAIT_MAX);
	for (i = 0; i < 9; i++)
		(void)jobsink_line(&f->k, f->big, BIG, false, false);
	assert_int_equal(f->k.lost, 10);
	/* Room for two lines and a half: two go, the third waits again. */
	disk_takes(f, 2 * (BIG + 200) + BIG / 2);
	assert_int_equal(jobsink_flush(&f->k), 1);
	assert_int_equal(f->k.waiting, accepted - 2);
	assert_int_equal(jobsink_line(&f->k, "after", 5, false, false),
	    1);
	disk_takes(f, RLIM_INFINITY);
	assert_int_equal(jobsink_flush(&f->k), 0);
	assert_int_equal(jobsink_event(&f->k, "end", NULL), 0);

	all = read_events(f);
	/*
	 * hello, two lines, the note that the rest wait (there was room for
	 * it), the rest, the gap, "after", resumed, end.
	 */
	assert_int_equal(json_array_size(all), 1 + accepted + 5);
	assert_string_equal(type_of(all, 3), "stalled");
	assert_true(json_is_number(json_object_get(json_array_get(all, 3),
	    "since")));
	json_array_remove(all, 3);
	for (i = 1; i <= accepted; i++) {
		assert_string_equal(type_of(all, i), "log");
		assert_int_equal(strlen(msg_of(all, i)), BIG);
	}
	gap = json_array_get(all, accepted + 1);
	assert_string_equal(type_of(all, accepted + 1), "gap");
	assert_int_equal(json_integer_value(json_object_get(gap, "lost")), 10);
	assert_true(json_number_value(json_object_get(gap, "since")) <=
	    json_number_value(json_object_get(gap, "until")));
	assert_string_equal(msg_of(all, accepted + 2), "after");
	assert_string_equal(type_of(all, accepted + 3), "resumed");
	assert_int_equal(int_of(all, accepted + 3, "lost"), 10);
	assert_int_equal(int_of(all, accepted + 3, "waited"), accepted + 1);
	/* Every line written or counted. */
	assert_int_equal(accepted + 1 + 10, n + 9 + 1);
	json_decref(all);
}

/* The end comes while the disk is still full: what waits is counted in a
 * gap written before the end, and the end is written. */
static void
test_end_while_full(void **state)
{
	struct fixture *f = *state;
	json_t *all;
	size_t last;

	assert_int_equal(jobsink_event(&f->k, "hello", NULL), 0);
	disk_takes(f, 0);
	assert_int_equal(jobsink_line(&f->k, f->big, BIG, false, false),
	    1);
	assert_int_equal(jobsink_line(&f->k, f->big, BIG, false, false),
	    1);
	/* Room for the last words only. */
	disk_takes(f, 2048);
	assert_int_equal(jobsink_event(&f->k, "end", json_pack("{s:i}",
	    "exit_code", 0)), 0);
	assert_int_equal(f->k.lost, 2);
	assert_int_equal(f->k.waiting, 0);

	all = read_events(f);
	last = json_array_size(all) - 1;
	assert_string_equal(type_of(all, last), "end");
	assert_string_equal(type_of(all, last - 1), "gap");
	assert_int_equal(int_of(all, last - 1, "lost"), 2);
	json_decref(all);
}

/* While it lasts, the file's last line says it is stalled. */
static void
test_stalled_notice(void **state)
{
	struct fixture *f = *state;
	char *path = xasprintf("%s/events.jsonl", f->dir), why[256] = "";

	assert_int_equal(jobsink_event(&f->k, "hello", NULL), 0);
	assert_true(jobsink_stalled_since(path, why, sizeof why) == 0);
	/* Room for the notice, not for the line. */
	disk_takes(f, 400);
	assert_int_equal(jobsink_line(&f->k, f->big, BIG, false, false),
	    1);
	assert_true(jobsink_stalled_since(path, why, sizeof why) ==
	    f->k.stalled_since);
	/* RLIMIT_FSIZE says EFBIG; a full disk says "disk full". */
	assert_string_equal(why, "file size limit");
	disk_takes(f, RLIM_INFINITY);
	assert_int_equal(jobsink_flush(&f->k), 0);
	assert_true(jobsink_stalled_since(path, why, sizeof why) == 0);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lines_wait, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bound_and_gap, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_end_while_full, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_stalled_notice, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

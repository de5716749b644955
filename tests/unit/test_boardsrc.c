/*
 * test_boardsrc.c: a workspace's board source (src/model/boardsrc.c), the
 * one the console's board and the Workspaces rows read, driven by the
 * loop as the console drives it, with no terminal: `calops check
 * --stream` run both ways, as a child of this program and through the
 * local host's transport, on the complete example workspace (a board, and
 * its history kept); an evaluation asked for while one runs running once
 * more after; a host's calops that is not there (exit 127), killed, or
 * silent, each said the same way both ways (the console said "ended
 * without a result" for 127 where the Workspaces rows said "calops is not
 * on the host"); and a change in a watched workspace evaluating it again.
 *
 * A fake calops (a shell script in the test's folder) stands for a broken
 * host, by $BOARDSRC_FAKE; otherwise it runs the real one ($CALOPS_BIN).
 */
#include "calops.h"

#include <sys/stat.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "jobfixture.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "model/boardsrc.h"
#include "model/history.h"
#include "remote/lab.h"

#define TIMEOUT_MS	30000

static char tmpdir[] = "/tmp/calops-boardsrc.XXXXXX";
static char *fake, *example;

static const char fake_text[] =
    "#!/bin/sh\n"
    "case \"$BOARDSRC_FAKE\" in\n"
    "127) echo 'calops: command not found' >&2; exit 127 ;;\n"
    "kill) kill -KILL $$ ;;\n"
    "quiet) exit 1 ;;\n"
    "*) exec \"$CALOPS_BIN\" \"$@\" ;;\n"
    "esac\n";

/* One source under test, its loop and lab, and what it told. */
struct fix {
	struct loop	*l;
	struct lab	 lab;
	struct labmodel	*lm;
	struct boardsrc	*src;
	int		 began, ended, changed, watch, said_eval, said_other;
	char		 said[512];
	int		 want;		/* stop at this many ends, idle */
	bool		 timed_out;
};

static void
on_changed(struct boardsrc *s, int what, void *arg)
{
	struct fix *f = arg;

	f->began += (what & BOARDSRC_BEGAN) != 0;
	f->changed += (what & BOARD_CHANGED) != 0;
	f->watch += (what & BOARDSRC_WATCH) != 0;
	if (what & BOARDSRC_ENDED) {
		f->ended++;
		/* One asked for meanwhile starts after this hook. */
		if (f->ended >= f->want && boardsrc_idle(s))
			loop_stop(f->l);
	}
}

static void
on_said(struct boardsrc *s, bool eval, const char *msg, void *arg)
{
	struct fix *f = arg;

	(void)s;
	if (eval)
		f->said_eval++;
	else
		f->said_other++;
	snprintf(f->said, sizeof f->said, "%s", msg);
}

static void
before_sleep(struct loop *l, void *arg)
{
	(void)l;
	labmodel_before_sleep(arg);
}

static void
timeout(struct loop *l, void *arg)
{
	((struct fix *)arg)->timed_out = true;
	loop_stop(l);
}

/* A lab of one local host, "here"; its transport runs calops (the fake's
 * path or the real one). */
static void
fix_init(struct fix *f, const char *calops)
{
	static const char text[] = "hosts:\n  - {name: here, transport: local}\n";
	const struct labmodel_cb cb = { 0 };
	char err[512];

	memset(f, 0, sizeof *f);
	f->l = loop_new();
	assert_int_equal(loop_watch_signal(f->l, SIGCHLD, jobfix_reap, NULL),
	    0);
	assert_int_equal(lab_parse(&f->lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	f->lm = labmodel_new(f->l, &f->lab, calops, &cb, err, sizeof err);
	if (f->lm == NULL)
		fail_msg("%s", err);
	loop_set_before_sleep(f->l, before_sleep, f->lm);
}

/* The source of ws on "here": a child of self, or (self NULL) through
 * the host's transport. */
static void
fix_source(struct fix *f, const char *ws, const char *self, bool watch,
    int history)
{
	const struct boardsrc_opts o = { .host = "here", .ws = ws,
	    .self = self, .watch = watch, .debounce_ms = 50,
	    .history = history };
	const struct boardsrc_cb cb = { on_changed, on_said, f };

	f->src = boardsrc_new(f->l, f->lm, &o, &cb);
}

/* Run the loop until want evaluations have ended and none waits. */
static void
fix_run(struct fix *f, int want)
{
	long t;

	f->want = want;
	if (f->ended >= want && boardsrc_idle(f->src))
		return;
	t = loop_add_timer(f->l, TIMEOUT_MS, timeout, f);
	loop_run(f->l);
	loop_del_timer(f->l, t);
	assert_false(f->timed_out);
}

static void
fix_free(struct fix *f)
{
	boardsrc_free(f->src);
	labmodel_free(f->lm);
	lab_release(&f->lab);
	loop_free(f->l);
}

/* calops check on the example, both ways: a board, its history kept. */
static void
test_board(void **state)
{
	const char *self[] = { getenv("CALOPS_BIN"), NULL };
	const struct board *b;
	struct fix f;
	char err[256], *path, *text;
	size_t i, len;

	(void)state;
	for (i = 0; i < nitems(self); i++) {
		fix_init(&f, getenv("CALOPS_BIN"));
		fix_source(&f, example, self[i], false, 5);
		assert_true(boardsrc_idle(f.src));
		boardsrc_evaluate(f.src);
		assert_true(boardsrc_evaluating(f.src));
		assert_false(boardsrc_idle(f.src));
		fix_run(&f, 1);
		b = boardsrc_board(f.src);
		assert_true(b->now.valid);
		assert_null(b->error);
		assert_string_equal(b->now.gates[0].id, "G0");
		assert_int_equal(f.began, 1);
		assert_int_equal(f.ended, 1);
		assert_int_equal(f.changed, 1);
		assert_false(boardsrc_evaluating(f.src));
		assert_true(boardsrc_valid_ms(f.src) > 0);
		assert_true(boardsrc_done_ms(f.src) >=
		    boardsrc_valid_ms(f.src));
		fix_free(&f);
	}
	/* Kept once: the second evaluation was the same. */
	assert_non_null(path = history_path(example, NULL, err, sizeof err));
	text = jobfix_slurp(path, &len);
	assert_non_null(strstr(text, "\"G0\""));
	assert_null(strstr(strstr(text, "\"ts\"") + 1, "\"ts\""));
	free(text);
	free(path);
}

/* Asked again while one runs: it runs once more, after. */
static void
test_again(void **state)
{
	struct fix f;

	(void)state;
	fix_init(&f, getenv("CALOPS_BIN"));
	fix_source(&f, example, getenv("CALOPS_BIN"), false, 0);
	boardsrc_evaluate(f.src);
	boardsrc_evaluate(f.src);
	boardsrc_evaluate(f.src);
	assert_int_equal(f.began, 1);
	fix_run(&f, 2);
	assert_int_equal(f.began, 2);
	assert_int_equal(f.ended, 2);
	assert_true(boardsrc_board(f.src)->now.valid);
	fix_free(&f);
}

/* What a broken calops makes of the board, either way it runs. */
static void
broken(const char *how, const char *expect, bool stderr_said)
{
	const char *self[] = { fake, NULL };
	const struct board *b;
	struct fix f;
	size_t i;

	setenv("BOARDSRC_FAKE", how, 1);
	for (i = 0; i < nitems(self); i++) {
		fix_init(&f, fake);
		fix_source(&f, example, self[i], false, 0);
		boardsrc_evaluate(f.src);
		fix_run(&f, 1);
		b = boardsrc_board(f.src);
		if (b->error == NULL || strcmp(b->error, expect) != 0)
			fail_msg("%s, %s: '%s', not '%s'", how, self[i] != NULL ?
			    "child" : "transport", b->error != NULL ? b->error :
			    "no error", expect);
		assert_false(b->now.valid);
		assert_int_equal(f.said_eval, stderr_said ? 1 : 0);
		if (stderr_said)
			assert_string_equal(f.said, "calops: command not found");
		fix_free(&f);
	}
	unsetenv("BOARDSRC_FAKE");
}

static void
test_broken(void **state)
{
	(void)state;
	broken("127", "calops is not on the host", true);
	broken("kill", "the evaluation was killed", false);
	broken("quiet", "the evaluation ended without a result", false);
}

/* A watched workspace evaluated again once a change has been quiet. */
static void
test_watch(void **state)
{
	char *ws = xasprintf("%s/ws", tmpdir), *file, how[128], err[256];
	struct fix f;

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	setenv("BOARDSRC_FAKE", "quiet", 1);
	fix_init(&f, fake);
	fix_source(&f, ws, fake, true, 0);
	boardsrc_watch_text(f.src, how, sizeof how);
	assert_string_equal(how, "not watching");
	boardsrc_start(f.src);
	fix_run(&f, 1);
	boardsrc_watch_text(f.src, how, sizeof how);
	assert_string_not_equal(how, "not watching");
	assert_int_equal(f.began, 1);
	file = xasprintf("%s/new.txt", ws);
	assert_int_equal(fileio_replace(file, "x\n", 2, 0600, false, err,
	    sizeof err), 0);
	fix_run(&f, 2);
	assert_int_equal(f.began, 2);
	assert_string_equal(boardsrc_board(f.src)->error,
	    "the evaluation ended without a result");
	fix_free(&f);
	unsetenv("BOARDSRC_FAKE");
	free(file);
	free(ws);
}

static int
setup(void **state)
{
	char err[256];

	(void)state;
	if (getenv("CALOPS_BIN") == NULL || getenv("CALOPS_SOURCE_DIR") ==
	    NULL) {
		fprintf(stderr, "test_boardsrc: CALOPS_BIN and "
		    "CALOPS_SOURCE_DIR are not set (ctest sets them)\n");
		return -1;
	}
	assert_non_null(mkdtemp(tmpdir));
	setenv("XDG_STATE_HOME", tmpdir, 1);
	setenv("XDG_CACHE_HOME", tmpdir, 1);
	fake = xasprintf("%s/fake-calops", tmpdir);
	if (fileio_replace(fake, fake_text, strlen(fake_text), 0700, false,
	    err, sizeof err) != 0)
		return -1;
	example = xasprintf("%s/share/examples/complete",
	    getenv("CALOPS_SOURCE_DIR"));
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	fileio_remove_tree(tmpdir);
	free(fake);
	free(example);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_board),
		cmocka_unit_test(test_again),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_watch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

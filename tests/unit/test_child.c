/*
 * test_child.c: child processes in the event loop (child.c), driven as the
 * console drives them: loop_run, SIGCHLD through loop_watch_signal calling
 * child_reap, the loop stopped from done().  Lines of stdout and stderr
 * arrive apart and in order, a 10 MB line is cut and reading goes on, a
 * last line without its newline arrives, done() comes once and last with
 * the exit status, signals and missing programs are reported, and an
 * abandoned child says nothing more.
 */
#include "calops.h"

#include <sys/wait.h>

#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "loop/child.h"
#include "loop/loop.h"

struct line {
	char	*s;
	size_t	 len;
	bool	 err, cut;
};

struct run {
	struct loop	*l;
	struct child	*c;
	pid_t		 pid;
	struct line	*lines;
	size_t		 n, alloc;
	int		 ndone, status;
	size_t		 lines_at_done;
	int		 kill_at_first;	/* a signal to send on the first line */
	bool		 abandon_at_first;
	bool		 timed_out;
	int		*pending;	/* children still running, or NULL */
};

static void
on_line(struct child *c, const char *s, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct run *r = arg;
	struct line *ln;

	assert_ptr_equal(c, r->c);
	assert_int_equal(r->ndone, 0);
	if (r->n == r->alloc) {
		r->alloc = r->alloc == 0 ? 64 : r->alloc * 2;
		r->lines = xreallocarray(r->lines, r->alloc, sizeof *r->lines);
	}
	ln = &r->lines[r->n++];
	ln->s = xstrndup(s, len);
	ln->len = len;
	ln->err = from_stderr;
	ln->cut = cut;
	if (r->n == 1 && r->kill_at_first != 0)
		child_signal(c, r->kill_at_first);
	if (r->n == 1 && r->abandon_at_first)
		child_abandon(c);
}

static void
on_done(struct child *c, int status, void *arg)
{
	struct run *r = arg;

	assert_ptr_equal(c, r->c);
	r->ndone++;
	r->status = status;
	r->lines_at_done = r->n;
	if (r->pending == NULL || --*r->pending == 0)
		loop_stop(r->l);
}

static const struct child_ops ops = { on_line, on_done };

static void
on_sigchld(struct loop *l, int sig, void *arg)
{
	(void)sig;
	(void)arg;
	child_reap(l);
}

static void
on_timeout(struct loop *l, void *arg)
{
	struct run *r = arg;

	r->timed_out = true;
	loop_stop(l);
}

static void
on_stop(struct loop *l, void *arg)
{
	(void)arg;
	loop_stop(l);
}

static struct loop *
new_loop(void)
{
	struct loop *l = loop_new();

	assert_int_equal(loop_watch_signal(l, SIGCHLD, on_sigchld, NULL), 0);
	return l;
}

static void
start(struct run *r, struct loop *l, const char *script)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	char err[256];

	r->l = l;
	r->c = child_start(l, argv, &ops, r, err, sizeof err);
	if (r->c == NULL)
		fail_msg("child_start: %s", err);
	r->pid = child_pid(r->c);
	assert_true(r->pid > 0);
}

/* Run one shell script to the end (at most 20 s). */
static void
run_script(struct run *r, const char *script)
{
	struct loop *l = new_loop();
	long t;

	start(r, l, script);
	t = loop_add_timer(l, 20000, on_timeout, r);
	loop_run(l);
	loop_del_timer(l, t);
	if (r->timed_out)
		fail_msg("'%s' did not finish", script);
	loop_free(l);
}

static void
run_free(struct run *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->lines[i].s);
	free(r->lines);
	memset(r, 0, sizeof *r);
}

/* The i-th line of one stream. */
static const struct line *
nth(const struct run *r, bool err, size_t i)
{
	size_t k;

	for (k = 0; k < r->n; k++)
		if (r->lines[k].err == err && i-- == 0)
			return &r->lines[k];
	return NULL;
}

static size_t
count(const struct run *r, bool err)
{
	size_t k, n = 0;

	for (k = 0; k < r->n; k++)
		n += r->lines[k].err == err;
	return n;
}

static void
assert_line(const struct run *r, bool err, size_t i, const char *want)
{
	const struct line *ln = nth(r, err, i);

	if (ln == NULL)
		fail_msg("%s line %zu missing, wanted '%s'", err ? "stderr" :
		    "stdout", i, want);
	if (ln->len != strlen(want) || memcmp(ln->s, want, ln->len) != 0)
		fail_msg("%s line %zu: '%s', wanted '%s'", err ? "stderr" :
		    "stdout", i, ln->s, want);
	assert_false(ln->cut);
}

static size_t
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	assert_non_null(d);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/*
 * stdin as a pipe (child_start_input): 2,000 lines of 100 bytes, more than
 * a pipe holds, given in two parts while the child echoes them, the second
 * ending the input; every line comes back once and in order, the child
 * sees its end (cat ends), and nothing more can be given.  A child started
 * without input refuses any.
 */
static void
test_input(void **state)
{
	struct loop *l = new_loop();
	char *argv[] = { "/bin/cat", NULL };
	char err[256], want[128];
	struct run r = { 0 };
	struct buf b = BUF_INIT;
	size_t i, half;
	long t;

	(void)state;
	buf_init(&b, 1u << 20);
	for (i = 0; i < 2000; i++) {
		snprintf(want, sizeof want, "%04zu %094d\n", i, 0);
		assert_int_equal(buf_add(&b, want, strlen(want)), 0);
	}
	r.l = l;
	r.c = child_start_input(l, argv, &ops, &r, err, sizeof err);
	if (r.c == NULL)
		fail_msg("child_start_input: %s", err);
	half = b.len / 2 + 17;		/* mid-line: the pipe joins them */
	assert_int_equal(child_input(r.c, b.data, half, false, err,
	    sizeof err), 0);
	assert_int_equal(child_input(r.c, b.data + half, b.len - half, true,
	    err, sizeof err), 0);
	assert_int_equal(child_input(r.c, "x", 1, false, err, sizeof err), -1);
	assert_non_null(strstr(err, "closed"));
	t = loop_add_timer(l, 20000, on_timeout, &r);
	loop_run(l);
	loop_del_timer(l, t);
	assert_false(r.timed_out);
	assert_int_equal(r.ndone, 1);
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	assert_int_equal(count(&r, false), 2000);
	for (i = 0; i < 2000; i++) {
		snprintf(want, sizeof want, "%04zu %094d", i, 0);
		assert_line(&r, false, i, want);
	}
	run_free(&r);
	buf_release(&b);

	r.l = l;
	argv[0] = "/bin/true";
	r.c = child_start(l, argv, &ops, &r, err, sizeof err);
	assert_non_null(r.c);
	assert_int_equal(child_input(r.c, "x", 1, true, err, sizeof err), -1);
	loop_run(l);
	assert_int_equal(r.ndone, 1);
	run_free(&r);
	loop_free(l);
}

/* Lines of stdout and stderr arrive apart, each stream in order; done()
 * once, after every line, with the exit status. */
static void
test_order(void **state)
{
	struct run r = { 0 };
	char want[32];
	size_t i, fds = open_fds();

	(void)state;
	run_script(&r, "i=1; while [ $i -le 500 ]; do echo out$i; "
	    "echo err$i >&2; i=$((i+1)); done; exit 3");
	assert_int_equal(r.ndone, 1);
	assert_true(WIFEXITED(r.status));
	assert_int_equal(WEXITSTATUS(r.status), 3);
	assert_int_equal(count(&r, false), 500);
	assert_int_equal(count(&r, true), 500);
	assert_int_equal(r.lines_at_done, 1000);
	for (i = 0; i < 500; i++) {
		snprintf(want, sizeof want, "out%zu", i + 1);
		assert_line(&r, false, i, want);
		snprintf(want, sizeof want, "err%zu", i + 1);
		assert_line(&r, true, i, want);
	}
	run_free(&r);
	/* the pipes are closed again */
	assert_int_equal(open_fds(), fds);
}

/* Much output from a child that exits at once: done() waits for it all. */
static void
test_drain_before_done(void **state)
{
	struct run r = { 0 };

	(void)state;
	run_script(&r, "seq 1 200000");
	assert_int_equal(r.ndone, 1);
	assert_int_equal(r.lines_at_done, 200000);
	assert_line(&r, false, 0, "1");
	assert_line(&r, false, 199999, "200000");
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	run_free(&r);

	/* the child exits, a grandchild still holds its stdout: done() waits
	 * for the end of the output */
	run_script(&r, "(sleep 0.3; echo late; echo late-err >&2) & "
	    "echo early");
	assert_int_equal(r.ndone, 1);
	assert_int_equal(r.lines_at_done, 3);
	assert_line(&r, false, 0, "early");
	assert_line(&r, false, 1, "late");
	assert_line(&r, true, 0, "late-err");
	run_free(&r);
}

static void
assert_cut(const struct run *r, bool err, size_t i)
{
	const struct line *ln = nth(r, err, i);
	size_t k;

	assert_non_null(ln);
	assert_true(ln->cut);
	assert_int_equal(ln->len, CHILD_LINE_MAX);
	for (k = 0; k < ln->len; k++)
		if (ln->s[k] != 'x')
			fail_msg("byte %zu of the cut line is %#x", k,
			    (unsigned char)ln->s[k]);
}

/* A 10 MB line is cut at CHILD_LINE_MAX and flagged; the next lines come
 * whole.  A line of exactly the cap is not cut, one byte more is. */
static void
test_long_line(void **state)
{
	struct run r = { 0 };
	const struct line *ln;

	(void)state;
	run_script(&r, "head -c 10485760 /dev/zero | tr '\\000' x; echo; "
	    "echo after; head -c 10485760 /dev/zero | tr '\\000' x >&2; "
	    "echo >&2; echo after-err >&2; printf 'tail\\n'");
	assert_int_equal(r.ndone, 1);
	assert_int_equal(count(&r, false), 3);
	assert_int_equal(count(&r, true), 2);
	assert_cut(&r, false, 0);
	assert_line(&r, false, 1, "after");
	assert_line(&r, false, 2, "tail");
	assert_cut(&r, true, 0);
	assert_line(&r, true, 1, "after-err");
	run_free(&r);

	run_script(&r, "head -c 65536 /dev/zero | tr '\\000' x; echo; "
	    "head -c 65537 /dev/zero | tr '\\000' x; echo; "
	    "head -c 70000 /dev/zero | tr '\\000' x");
	assert_int_equal(CHILD_LINE_MAX, 65536);
	assert_int_equal(count(&r, false), 3);
	ln = nth(&r, false, 0);
	assert_false(ln->cut);
	assert_int_equal(ln->len, 65536);
	assert_cut(&r, false, 1);
	assert_cut(&r, false, 2);	/* the last line, cut, no newline */
	run_free(&r);
}

/* The last line arrives without its newline; empty lines arrive too. */
static void
test_last_line(void **state)
{
	struct run r = { 0 };

	(void)state;
	run_script(&r, "printf 'a\\n\\nb'; printf 'e' >&2");
	assert_int_equal(count(&r, false), 3);
	assert_line(&r, false, 0, "a");
	assert_line(&r, false, 1, "");
	assert_line(&r, false, 2, "b");
	assert_int_equal(count(&r, true), 1);
	assert_line(&r, true, 0, "e");
	assert_int_equal(r.lines_at_done, 4);
	run_free(&r);

	/* no output at all: only done() */
	run_script(&r, "exit 0");
	assert_int_equal(r.n, 0);
	assert_int_equal(r.ndone, 1);
	run_free(&r);
}

/* A child killed by a signal, from outside and by child_signal. */
static void
test_signalled(void **state)
{
	struct run r = { 0 };

	(void)state;
	run_script(&r, "echo before; kill -KILL $$; echo after");
	assert_int_equal(r.ndone, 1);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGKILL);
	assert_int_equal(r.n, 1);
	assert_line(&r, false, 0, "before");
	run_free(&r);

	r.kill_at_first = SIGTERM;
	run_script(&r, "echo started; exec sleep 30");
	assert_int_equal(r.ndone, 1);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGTERM);
	run_free(&r);
}

/* Several children at once: SIGCHLDs merge, each child still gets its own
 * status. */
static void
test_many(void **state)
{
	struct loop *l = new_loop();
	struct run r[5];
	char script[64];
	int pending = (int)nitems(r);
	size_t i;

	(void)state;
	memset(r, 0, sizeof r);
	for (i = 0; i < nitems(r); i++) {
		snprintf(script, sizeof script, "echo child%zu; exit %zu", i,
		    i + 10);
		r[i].pending = &pending;
		start(&r[i], l, script);
	}
	loop_add_timer(l, 20000, on_timeout, &r[0]);
	loop_run(l);
	assert_false(r[0].timed_out);
	for (i = 0; i < nitems(r); i++) {
		snprintf(script, sizeof script, "child%zu", i);
		assert_int_equal(r[i].ndone, 1);
		assert_true(WIFEXITED(r[i].status));
		assert_int_equal(WEXITSTATUS(r[i].status), (int)i + 10);
		assert_int_equal(r[i].n, 1);
		assert_line(&r[i], false, 0, script);
		run_free(&r[i]);
	}
	loop_free(l);
}

/* A program that is not there: NULL and a message naming it, no fd
 * left open, no child left behind. */
static void
test_missing(void **state)
{
	struct loop *l = new_loop();
	char *argv[] = { "calops-no-such-program", NULL };
	char *argv2[] = { "/nonexistent/calops-prog", "x", NULL };
	char err[256] = "";
	size_t fds = open_fds();

	(void)state;
	assert_null(child_start(l, argv, &ops, NULL, err, sizeof err));
	assert_non_null(strstr(err, "cannot run 'calops-no-such-program'"));
	assert_non_null(strstr(err, strerror(ENOENT)));
	err[0] = '\0';
	assert_null(child_start(l, argv2, &ops, NULL, err, sizeof err));
	assert_non_null(strstr(err, "'/nonexistent/calops-prog'"));
	assert_int_equal(open_fds(), fds);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	loop_free(l);
}

/* After child_abandon nothing is called, and the child is still reaped. */
static void
test_abandon(void **state)
{
	struct loop *l = new_loop();
	struct run r = { 0 };
	size_t fds = open_fds();

	(void)state;
	start(&r, l, "echo a; echo b >&2; exec sleep 30");
	child_abandon(r.c);
	loop_add_timer(l, 300, on_timeout, &r);
	loop_run(l);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.ndone, 0);
	assert_int_equal(waitpid(r.pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(open_fds(), fds);
	run_free(&r);

	/* abandoned from its first line: no more lines, no done() */
	r.abandon_at_first = true;
	start(&r, l, "echo one; echo two; sleep 0.1; echo three; "
	    "echo err >&2; exec sleep 30");
	loop_add_timer(l, 500, on_timeout, &r);
	loop_run(l);
	assert_int_equal(r.n, 1);
	assert_line(&r, false, 0, "one");
	assert_int_equal(r.ndone, 0);
	assert_int_equal(waitpid(r.pid, NULL, WNOHANG), -1);
	assert_int_equal(open_fds(), fds);
	run_free(&r);
	loop_free(l);
}

/* The loop's self-pipe is made once per process, by the first watch:
 * make it before any test counts open fds. */
static int
group_setup(void **state)
{
	(void)state;
	loop_free(new_loop());
	return 0;
}

struct flood {
	struct child	*c;
	size_t		 lines;
	/* most lines in one iteration */
	size_t		 at_hook, burst;
	int64_t		 t0, abandoned_at;
	bool		 gave_up;
};

static void
flood_line(struct child *c, const char *s, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct flood *f = arg;
	struct timespec t0, t;

	(void)s;
	(void)len;
	(void)from_stderr;
	(void)cut;
	f->lines++;
	if (loop_now_ms() - f->t0 > 3000) {	/* starved: give up */
		f->gave_up = true;
		child_abandon(c);
		return;
	}
	/* a slow consumer: 20 µs a line */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec <
	    20000);
}

static void
flood_abandon(struct loop *l, void *arg)
{
	struct flood *f = arg;

	(void)l;
	f->abandoned_at = loop_now_ms() - f->t0;
	if (!f->gave_up)
		child_abandon(f->c);
}

static void
flood_hook(struct loop *l, void *arg)
{
	struct flood *f = arg;

	(void)l;
	if (f->lines - f->at_hook > f->burst)
		f->burst = f->lines - f->at_hook;
	f->at_hook = f->lines;
}

static const struct child_ops flood_ops = { flood_line, NULL };

/* A child that floods its output faster than it is consumed does not
 * starve the loop: its timers still fire on time, and it can be
 * abandoned. */
static void
test_flood(void **state)
{
	struct loop *l = new_loop();
	char line[1000];
	char *argv[] = { "yes", line, NULL };
	struct flood f = { 0 };
	char err[256];
	pid_t pid;

	(void)state;
	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	alarm(60);
	f.c = child_start(l, argv, &flood_ops, &f, err, sizeof err);
	if (f.c == NULL)
		fail_msg("child_start: %s", err);
	pid = child_pid(f.c);
	f.t0 = loop_now_ms();
	loop_set_before_sleep(l, flood_hook, &f);
	loop_add_timer(l, 200, flood_abandon, &f);
	loop_add_timer(l, 600, on_stop, NULL);
	loop_run(l);
	alarm(0);
	flood_hook(l, &f);	/* the last iteration's lines */
	if (f.abandoned_at < 200 || f.abandoned_at > 1000)
		fail_msg("a timer due at 200 ms fired at %lld ms",
		    (long long)f.abandoned_at);
	/* about 1 MiB of output (1000-byte lines) per wakeup, no more */
	if (f.burst > 1200)
		fail_msg("%zu lines in one iteration", f.burst);
	assert_true(f.lines > 0);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	loop_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_input),
		cmocka_unit_test(test_drain_before_done),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_last_line),
		cmocka_unit_test(test_signalled),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_abandon),
		cmocka_unit_test(test_flood),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}

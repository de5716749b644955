/*
 * test_linewin.c: the window on a host's long run of lines that the remote
 * file viewer and the job log keep (views/linewin.c).  Lines join after or
 * before those held, or in their place; no more than keep are held, the
 * ones at the other end from where the reader went going (by the tenth
 * when lines come one at a time); every item let go is released once.  A
 * fetch runs a real command through the local transport on a real loop:
 * what it prints joins where it was told, and a failing one changes
 * nothing and says why.
 */
#include "calops.h"

#include <setjmp.h>
#include <signal.h>

#include <cmocka.h>

#include "loop/child.h"
#include "loop/loop.h"
#include "remote/local.h"
#include "remote/transport.h"
#include "views/linewin.h"

static size_t released;

static void
release_item(void *item)
{
	(void)item;
	released++;
}

static void
no_line(struct linewin *w, const char *line, size_t len, bool cut, void *arg)
{
	char num[32];
	long n;

	(void)cut;
	(void)arg;
	snprintf(num, sizeof num, "%.*s", (int)(len < 31 ? len : 31), line);
	n = strtol(num, NULL, 10);
	linewin_push(w, &n);
}

struct done {
	struct loop	*loop;
	bool		 called;
	char		 err[300];
	enum linewin_where where;
	size_t		 added, dropped;
};

static void
on_done(struct linewin *w, const char *err, enum linewin_where where,
    size_t added, size_t dropped, void *arg)
{
	struct done *d = arg;

	(void)w;
	d->called = true;
	snprintf(d->err, sizeof d->err, "%s", err != NULL ? err : "");
	d->where = where;
	d->added = added;
	d->dropped = dropped;
	loop_stop(d->loop);
}

static const struct linewin_ops ops = { no_line, on_done, release_item };

static long
at(const struct linewin *w, size_t i)
{
	return *(long *)linewin_item(w, i);
}

/* Add the numbers from..to (inclusive). */
static size_t
add_range(struct linewin *w, long from, long to, bool before)
{
	long v[4096];
	size_t k = 0;

	for (; from <= to; from++)
		v[k++] = from;
	return linewin_add(w, v, k, before);
}

/* After, before, and the far end going when more than keep are held. */
static void
test_add_keeps_a_window(void **state)
{
	struct linewin w;

	(void)state;
	released = 0;
	linewin_init(&w, sizeof(long), 100, &ops, NULL);
	assert_int_equal(add_range(&w, 51, 100, false), 0);
	assert_int_equal(add_range(&w, 1, 50, true), 0);
	assert_int_equal(w.n, 100);
	assert_int_equal(at(&w, 0), 1);
	assert_int_equal(at(&w, 99), 100);
	/* On past the end: the oldest go. */
	assert_int_equal(add_range(&w, 101, 130, false), 30);
	assert_int_equal(w.n, 100);
	assert_int_equal(at(&w, 0), 31);
	assert_int_equal(at(&w, 99), 130);
	/* Back before the start: the newest go. */
	assert_int_equal(add_range(&w, 1, 30, true), 30);
	assert_int_equal(at(&w, 0), 1);
	assert_int_equal(at(&w, 99), 100);
	assert_int_equal(released, 60);
	linewin_release(&w);
	assert_int_equal(released, 160);
}

/* Lines one at a time (a log followed) move the window by the tenth. */
static void
test_one_at_a_time_drops_a_tenth(void **state)
{
	struct linewin w;
	long i;

	(void)state;
	released = 0;
	linewin_init(&w, sizeof(long), 100, &ops, NULL);
	add_range(&w, 1, 100, false);
	assert_int_equal(add_range(&w, 101, 101, false), 11);
	assert_int_equal(w.n, 90);
	assert_int_equal(at(&w, 0), 12);
	for (i = 102; i <= 111; i++)
		assert_int_equal(add_range(&w, i, i, false), 0);
	assert_int_equal(w.n, 100);
	assert_int_equal(at(&w, 99), 111);
	linewin_release(&w);
	assert_int_equal(released, 111);
}

static void
reap(struct loop *l, int sig, void *arg)
{
	(void)sig;
	(void)arg;
	child_reap(l);
}

/* Run sh -c script through the local transport into w, where told. */
static void
fetch_sh(struct linewin *w, struct done *d, const char *script,
    enum linewin_where where)
{
	char *argv[] = { "-c", (char *)script, NULL };
	struct transport *t;
	struct loop *l;

	l = loop_new();
	loop_watch_signal(l, SIGCHLD, reap, NULL);
	t = local_transport_new(l, "here", "/bin/sh");
	memset(d, 0, sizeof *d);
	d->loop = l;
	w->arg = d;
	assert_int_equal(transport_connect(t, d->err, sizeof d->err), 0);
	assert_int_equal(linewin_fetch(w, t, "here", argv, where), 0);
	assert_true(linewin_busy(w));
	/* A second one waits for the first. */
	assert_int_equal(linewin_fetch(w, t, "here", argv, where), -1);
	loop_run(l);
	assert_true(d->called);
	assert_false(linewin_busy(w));
	transport_close(t);
	loop_free(l);
}

static void
test_fetch_joins_where_told(void **state)
{
	struct linewin w;
	struct done d;

	(void)state;
	released = 0;
	linewin_init(&w, sizeof(long), 10, &ops, NULL);
	fetch_sh(&w, &d, "seq 21 30", LINEWIN_AFTER);
	assert_string_equal(d.err, "");
	assert_int_equal(d.added, 10);
	assert_int_equal(w.printed, 10);
	fetch_sh(&w, &d, "seq 16 20", LINEWIN_BEFORE);
	assert_int_equal(d.dropped, 5);
	assert_int_equal(at(&w, 0), 16);
	assert_int_equal(at(&w, 9), 25);
	/* A jump: in place of all held. */
	fetch_sh(&w, &d, "seq 1 3", LINEWIN_INSTEAD);
	assert_int_equal(d.where, LINEWIN_INSTEAD);
	assert_int_equal(d.dropped, 10);
	assert_int_equal(w.n, 3);
	assert_int_equal(at(&w, 0), 1);
	/* A failure changes nothing held, and says why (its stderr). */
	fetch_sh(&w, &d, "seq 4 9; echo no such file >&2; exit 1",
	    LINEWIN_AFTER);
	assert_non_null(strstr(d.err, "here: no such file"));
	assert_int_equal(w.n, 3);
	assert_int_equal(at(&w, 2), 3);
	linewin_release(&w);
	/* 10 + 5 + 3 + 6 fetched, each let go once */
	assert_int_equal(released, 24);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_keeps_a_window),
		cmocka_unit_test(test_one_at_a_time_drops_a_tenth),
		cmocka_unit_test(test_fetch_joins_where_told),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

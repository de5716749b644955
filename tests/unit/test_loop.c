/*
 * test_loop.c: the event loop (loop.c).  Timers fire in the order they are
 * due, once each, and a timer armed by a timer waits for the next
 * iteration; fds dispatch on POLLIN and may be removed from inside a
 * callback; signals arrive through the self-pipe; the before-sleep hook
 * runs every iteration; loop_stop ends loop_run; an idle loop sleeps in
 * poll() rather than spinning; and a paced loop reads a stream in batches.
 */
#include "calops.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop/loop.h"

/* What the callbacks saw. */
struct seen {
	int	 order[32];
	size_t	 n;
	size_t	 hooks;		/* before-sleep calls */
	int	 sigs[8];
	size_t	 nsigs;
	int	 fds[8];
	size_t	 nfds;
	long	 victim;	/* a timer to delete, or an fd */
	int	 victim_fd;
	int	 rearm;		/* times a timer re-arms itself */
	size_t	 hooks_at[32];	/* hooks seen when each timer fired */
};

struct tag {
	struct seen	*s;
	int		 id;
};

static void
msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static void
on_timer(struct loop *l, void *arg)
{
	struct tag *t = arg;

	(void)l;
	t->s->hooks_at[t->s->n] = t->s->hooks;
	t->s->order[t->s->n++] = t->id;
}

static void
on_stop(struct loop *l, void *arg)
{
	(void)arg;
	loop_stop(l);
}

static void
count_hook(struct loop *l, void *arg)
{
	struct seen *s = arg;

	(void)l;
	s->hooks++;
}

static void
assert_order(const struct seen *s, const int *want, size_t n)
{
	size_t i;

	if (s->n != n)
		fail_msg("%zu timers fired, wanted %zu", s->n, n);
	for (i = 0; i < n; i++)
		if (s->order[i] != want[i])
			fail_msg("timer %zu: got %d, wanted %d", i, s->order[i],
			    want[i]);
}

/* Timers armed out of order fire by due time, each once. */
static void
test_timer_order(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };
	struct tag t[4] = { { &s, 30 }, { &s, 10 }, { &s, 20 }, { &s, 40 } };
	static const int want[] = { 10, 20, 30, 40 };
	size_t i;

	(void)state;
	for (i = 0; i < nitems(t); i++)
		loop_add_timer(l, t[i].id, on_timer, &t[i]);
	loop_add_timer(l, 80, on_stop, NULL);
	loop_run(l);
	assert_order(&s, want, nitems(want));
	loop_free(l);
}

/* Timers that are all overdue when the loop looks still fire by due time,
 * and timers due at the same moment fire in the order they were armed. */
static void
test_timer_order_overdue(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };
	struct tag t[6] = { { &s, 3 }, { &s, 2 }, { &s, 1 }, { &s, 4 },
	    { &s, 5 }, { &s, 6 } };
	static const int want[] = { 1, 2, 3, 4, 5, 6 };

	(void)state;
	loop_add_timer(l, 30, on_timer, &t[0]);
	loop_add_timer(l, 20, on_timer, &t[1]);
	loop_add_timer(l, 10, on_timer, &t[2]);
	loop_add_timer(l, 40, on_timer, &t[3]);
	loop_add_timer(l, 40, on_timer, &t[4]);
	loop_add_timer(l, 40, on_timer, &t[5]);
	loop_add_timer(l, 60, on_stop, NULL);
	msleep(50);		/* every timer but the stop is overdue */
	loop_run(l);
	assert_order(&s, want, nitems(want));
	loop_free(l);
}

/* Three timers with no delay, armed in order, fire in that order. */
static void
test_timer_order_ties(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };
	struct tag t[5];
	static const int want[] = { 0, 1, 2, 3, 4 };
	size_t i;

	(void)state;
	for (i = 0; i < nitems(t); i++) {
		t[i].s = &s;
		t[i].id = (int)i;
		loop_add_timer(l, 0, on_timer, &t[i]);
	}
	loop_add_timer(l, 20, on_stop, NULL);
	loop_run(l);
	assert_order(&s, want, nitems(want));
	loop_free(l);
}

static void
on_del_victim(struct loop *l, void *arg)
{
	struct seen *s = arg;

	loop_del_timer(l, s->victim);
	assert_false(loop_timer_armed(l, s->victim));
	s->order[s->n++] = -1;
}

/* A deleted timer never fires, whether deleted before the loop runs or
 * by another timer; a fired timer is no longer armed. */
static void
test_timer_del(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };
	struct tag a = { &s, 1 }, b = { &s, 2 }, c = { &s, 3 };
	static const int want[] = { -1, 3 };
	long ia, ib, ic;

	(void)state;
	ia = loop_add_timer(l, 5, on_timer, &a);
	assert_true(ia > 0);
	assert_true(loop_timer_armed(l, ia));
	loop_del_timer(l, ia);
	assert_false(loop_timer_armed(l, ia));
	loop_del_timer(l, ia);		/* twice is harmless */
	loop_del_timer(l, 12345);	/* so is an unknown id */
	ib = loop_add_timer(l, 30, on_timer, &b);
	ic = loop_add_timer(l, 20, on_timer, &c);
	assert_true(ib != ic && ib > 0 && ic > 0);
	s.victim = ib;
	loop_add_timer(l, 10, on_del_victim, &s);
	loop_add_timer(l, 60, on_stop, NULL);
	loop_run(l);
	assert_order(&s, want, nitems(want));
	assert_false(loop_timer_armed(l, ic));
	assert_false(loop_timer_armed(l, ib));
	loop_free(l);
}

static void
on_rearm(struct loop *l, void *arg)
{
	struct seen *s = arg;

	s->hooks_at[s->n % nitems(s->hooks_at)] = s->hooks;
	s->n++;
	if (s->rearm-- > 0)
		loop_add_timer(l, 0, on_rearm, s);
	else
		loop_stop(l);
}

/* A timer armed by a timer with no delay runs in the next iteration, not
 * in the same pass: the loop still polls its fds and paints in between. */
static void
test_timer_rearm(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };

	(void)state;
	s.rearm = 20;
	loop_set_before_sleep(l, count_hook, &s);
	loop_add_timer(l, 0, on_rearm, &s);
	loop_run(l);
	assert_int_equal(s.n, 21);
	/* each firing after the first saw one more paint */
	assert_true(s.hooks >= 20);
	assert_int_equal(s.hooks_at[1], s.hooks_at[0] + 1);
	assert_int_equal(s.hooks_at[20], s.hooks_at[0] + 20);
	loop_free(l);
}

static void
on_readable(struct loop *l, int fd, short revents, void *arg)
{
	struct seen *s = arg;
	char b[16];

	assert_true(revents & POLLIN);
	assert_true(read(fd, b, sizeof b) > 0);
	s->fds[s->nfds++ % nitems(s->fds)] = fd;
	if (s->victim_fd != -1)
		loop_del_fd(l, s->victim_fd);
	if (s->nfds >= (size_t)s->rearm)
		loop_stop(l);
}

static void
make_pipe(int p[2])
{
	assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
}

static void
close_pipe(int p[2])
{
	close(p[0]);
	close(p[1]);
}

/* A readable fd dispatches with POLLIN; a quiet one does not. */
static void
test_fd_pollin(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };
	int a[2], b[2];

	(void)state;
	make_pipe(a);
	make_pipe(b);
	s.victim_fd = -1;
	s.rearm = 1;
	loop_add_fd(l, a[0], POLLIN, on_readable, &s);
	loop_add_fd(l, b[0], POLLIN, on_readable, &s);
	assert_int_equal(write(b[1], "x", 1), 1);
	loop_add_timer(l, 1000, on_stop, NULL);	/* a safety net */
	loop_run(l);
	assert_int_equal(s.nfds, 1);
	assert_int_equal(s.fds[0], b[0]);
	/* a second watch of the same fd replaces the first */
	loop_add_fd(l, b[0], POLLIN, on_readable, &s);
	assert_int_equal(write(b[1], "y", 1), 1);
	s.rearm = 2;
	loop_run(l);
	assert_int_equal(s.nfds, 2);
	loop_free(l);
	close_pipe(a);
	close_pipe(b);
}

static void
on_readable_del_self(struct loop *l, int fd, short revents, void *arg)
{
	struct seen *s = arg;

	(void)revents;
	s->fds[s->nfds++ % nitems(s->fds)] = fd;
	loop_del_fd(l, fd);		/* without reading: no second call */
}

/* loop_del_fd from a callback: of another ready fd (it is not called in
 * the same iteration) and of its own (never called again). */
static void
test_fd_del_in_callback(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };
	int a[2], b[2], c[2];

	(void)state;
	make_pipe(a);
	make_pipe(b);
	make_pipe(c);
	/* a and b are both ready; a, watched first, removes b */
	s.rearm = 100;
	s.victim_fd = -1;
	loop_add_fd(l, a[0], POLLIN, on_readable, &s);
	loop_add_fd(l, b[0], POLLIN, on_readable, &s);
	assert_int_equal(write(a[1], "a", 1), 1);
	assert_int_equal(write(b[1], "b", 1), 1);
	s.victim_fd = b[0];
	loop_add_timer(l, 100, on_stop, NULL);
	loop_run(l);
	assert_int_equal(s.nfds, 1);
	assert_int_equal(s.fds[0], a[0]);
	/* b still has its byte, but is no longer watched */
	s.nfds = 0;
	s.victim_fd = -1;
	assert_int_equal(write(a[1], "a", 1), 1);
	loop_add_timer(l, 50, on_stop, NULL);
	loop_run(l);
	assert_int_equal(s.nfds, 1);
	assert_int_equal(s.fds[0], a[0]);

	/* c removes itself: called once though its data stays unread */
	loop_del_fd(l, a[0]);
	s.nfds = 0;
	loop_add_fd(l, c[0], POLLIN, on_readable_del_self, &s);
	assert_int_equal(write(c[1], "c", 1), 1);
	loop_add_timer(l, 50, on_stop, NULL);
	loop_run(l);
	assert_int_equal(s.nfds, 1);
	assert_int_equal(s.fds[0], c[0]);
	/* and it can be watched again */
	loop_add_fd(l, c[0], POLLIN, on_readable_del_self, &s);
	loop_add_timer(l, 50, on_stop, NULL);
	loop_run(l);
	assert_int_equal(s.nfds, 2);
	loop_free(l);
	close_pipe(a);
	close_pipe(b);
	close_pipe(c);
}

static void
on_signal(struct loop *l, int sig, void *arg)
{
	struct seen *s = arg;

	s->sigs[s->nsigs++ % nitems(s->sigs)] = sig;
	if (s->nsigs >= 2)
		loop_stop(l);
}

static void
raise_usr(struct loop *l, void *arg)
{
	(void)l;
	(void)arg;
	raise(SIGUSR2);
}

/* Signals reach their callbacks through the self-pipe, from the loop. */
static void
test_signal(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };

	(void)state;
	assert_int_equal(loop_watch_signal(l, SIGUSR1, on_signal, &s), 0);
	assert_int_equal(loop_watch_signal(l, SIGUSR2, on_signal, &s), 0);
	/* raised before the loop runs: it waits in the pipe */
	assert_int_equal(raise(SIGUSR1), 0);
	assert_int_equal(s.nsigs, 0);
	loop_add_timer(l, 20, raise_usr, NULL);
	loop_add_timer(l, 2000, on_stop, NULL);	/* a safety net */
	loop_run(l);
	assert_int_equal(s.nsigs, 2);
	assert_int_equal(s.sigs[0], SIGUSR1);
	assert_int_equal(s.sigs[1], SIGUSR2);
	loop_free(l);
}

static void
stop_at_5(struct loop *l, void *arg)
{
	struct seen *s = arg;

	if (++s->hooks == 5)
		loop_stop(l);
	else
		loop_no_sleep(l);
}

/* The before-sleep hook runs once per iteration; loop_stop from it ends
 * the loop, which can run again; loop_no_sleep keeps it from sleeping. */
static void
test_before_sleep_and_stop(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };
	int64_t t0;

	(void)state;
	loop_set_before_sleep(l, stop_at_5, &s);
	t0 = loop_now_ms();
	loop_run(l);		/* no fds, no timers: only no_sleep wakes it */
	assert_int_equal(s.hooks, 5);
	assert_true(loop_now_ms() - t0 < 1000);
	s.hooks = 0;
	loop_run(l);
	assert_int_equal(s.hooks, 5);

	/* with the hook counting and a stop timer: iterations are few */
	s.hooks = 0;
	loop_set_before_sleep(l, count_hook, &s);
	loop_add_timer(l, 10, on_stop, NULL);
	loop_run(l);
	assert_true(s.hooks >= 1 && s.hooks <= 3);
	loop_free(l);
}

/* An idle loop sleeps: over 200 ms with a quiet pipe and the signal pipe
 * watched it paints a handful of times, not thousands. */
static void
test_idle_timer(void **state)
{
	struct loop *l = loop_new();
	struct seen s = { 0 };
	int p[2];
	int64_t t0, dt;

	(void)state;
	make_pipe(p);
	s.victim_fd = -1;
	assert_int_equal(loop_watch_signal(l, SIGUSR1, on_signal, &s), 0);
	loop_add_fd(l, p[0], POLLIN, on_readable, &s);
	loop_set_before_sleep(l, count_hook, &s);
	loop_add_timer(l, 200, on_stop, NULL);
	t0 = loop_now_ms();
	loop_run(l);
	dt = loop_now_ms() - t0;
	assert_true(dt >= 199 && dt < 2000);
	if (s.hooks > 5)
		fail_msg("%zu iterations in 200 ms: the loop spins", s.hooks);
	loop_free(l);
	close_pipe(p);
}

struct idle_thread {
	struct loop	*l;
	struct seen	 s;
};

static void *
run_thread(void *arg)
{
	struct idle_thread *t = arg;

	loop_run(t->l);
	return NULL;
}

/* With no timer at all, the loop blocks in poll() until an fd wakes it. */
static void
test_idle_no_timer(void **state)
{
	struct idle_thread t = { 0 };
	pthread_t th;
	int p[2];

	(void)state;
	make_pipe(p);
	t.l = loop_new();
	t.s.victim_fd = -1;
	t.s.rearm = 1;
	loop_add_fd(t.l, p[0], POLLIN, on_readable, &t.s);
	loop_set_before_sleep(t.l, count_hook, &t.s);
	assert_int_equal(pthread_create(&th, NULL, run_thread, &t), 0);
	msleep(200);
	assert_int_equal(write(p[1], "w", 1), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(t.s.nfds, 1);
	if (t.s.hooks > 2)
		fail_msg("%zu iterations while idle: the loop spins",
		    t.s.hooks);
	loop_free(t.l);
	close_pipe(p);
}

/* A byte every 5 ms, 40 times, into the pipe arg. */
static void *
trickle(void *arg)
{
	int fd = *(int *)arg, i;

	for (i = 0; i < 40; i++) {
		assert_int_equal(write(fd, "x", 1), 1);
		msleep(5);
	}
	return NULL;
}

struct paced {
	size_t	 wakeups, bytes;
};

static void
on_paced(struct loop *l, int fd, short revents, void *arg)
{
	struct paced *p = arg;
	char b[64];
	ssize_t n;

	(void)revents;
	p->wakeups++;
	while ((n = read(fd, b, sizeof b)) > 0)
		p->bytes += (size_t)n;
	if (p->bytes >= 40)
		loop_stop(l);
}

/* Paced at 100 ms, a stream written every 5 ms is read in batches: no
 * more wakeups than the time it took holds 100 ms, not one a write. */
static void
test_pace(void **state)
{
	struct loop *l = loop_new();
	struct paced p = { 0, 0 };
	pthread_t t;
	int64_t began, took;
	int a[2];

	(void)state;
	make_pipe(a);
	loop_set_pace(l, 100);
	loop_add_fd(l, a[0], POLLIN, on_paced, &p);
	began = loop_now_ms();
	assert_int_equal(pthread_create(&t, NULL, trickle, &a[1]), 0);
	loop_run(l);
	took = loop_now_ms() - began;
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(p.bytes, 40);
	assert_true(p.wakeups <= (size_t)(took / 100) + 2);
	loop_free(l);
	close_pipe(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timer_order),
		cmocka_unit_test(test_timer_order_overdue),
		cmocka_unit_test(test_timer_order_ties),
		cmocka_unit_test(test_timer_del),
		cmocka_unit_test(test_timer_rearm),
		cmocka_unit_test(test_fd_pollin),
		cmocka_unit_test(test_fd_del_in_callback),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_before_sleep_and_stop),
		cmocka_unit_test(test_idle_timer),
		cmocka_unit_test(test_idle_no_timer),
		cmocka_unit_test(test_pace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_transport.c: the readiness promise of transport.h, on a fake
 * transport.  Lines held inside a transport make no fd readable, so a loop
 * that only polled would sleep on them for good: transport_before_sleep()
 * must hand them out and keep the loop awake until none is left, and must
 * poll the transport's connection for what events() asks now.
 *
 * No assertion waits for a time.  The loop below has no fd and no timer
 * but a safety timer of a minute: if it slept on held data, that timer
 * would end it with lines still held, and the test would fail.
 */
#include "calops.h"

#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop/loop.h"
#include "remote/transport.h"

#define SAFETY_MS	60000

/* A fake connection: lines it "read" earlier, handed out one per
 * deliver(), as a transport that keeps the console answering keys would;
 * and a pipe standing for its socket. */
struct fake {
	struct transport	 t;
	size_t			 held;		/* lines not handed out */
	size_t			 delivered;
	size_t			 deliveries;	/* deliver() calls */
	int			 sock[2];
	short			 want;		/* what events() returns */
	short			 got;	/* seen by the socket callback */
	bool			 safety_fired;
};

static int
fake_events(struct transport *t, short *events)
{
	struct fake *f = t->data;

	*events = f->want;
	return f->sock[1];
}

static size_t
fake_pending(struct transport *t)
{
	struct fake *f = t->data;

	return f->held * 10;	/* ten bytes a line */
}

static void
fake_deliver(struct transport *t)
{
	struct fake *f = t->data;

	f->deliveries++;
	if (f->held > 0) {
		f->held--;
		f->delivered++;
	}
	if (f->held == 0 && f->want == 0)
		loop_stop(t->loop);
}

static const struct transport_ops fake_ops = {
	.name = "fake",
	.events = fake_events,
	.pending = fake_pending,
	.deliver = fake_deliver,
};

static void
before_sleep(struct loop *l, void *arg)
{
	(void)l;
	transport_before_sleep(arg);
}

static void
safety(struct loop *l, void *arg)
{
	struct fake *f = arg;

	f->safety_fired = true;
	loop_stop(l);
}

static void
sock_ready(struct loop *l, int fd, short revents, void *arg)
{
	struct fake *f = arg;

	(void)fd;
	f->got |= revents;
	f->want = 0;
	if (f->held == 0)
		loop_stop(l);
}

static void
fake_setup(struct fake *f, size_t held)
{
	memset(f, 0, sizeof *f);
	f->t.ops = &fake_ops;
	f->t.loop = loop_new();
	f->t.data = f;
	f->held = held;
	assert_int_equal(pipe(f->sock), 0);
	/* The transport adds its connection's fd, waiting for nothing yet. */
	loop_add_fd(f->t.loop, f->sock[1], 0, sock_ready, f);
	loop_set_before_sleep(f->t.loop, before_sleep, &f->t);
	loop_add_timer(f->t.loop, SAFETY_MS, safety, f);
}

static void
fake_teardown(struct fake *f)
{
	loop_free(f->t.loop);
	close(f->sock[0]);
	close(f->sock[1]);
}

/* Held data is handed out with no fd ready, and the loop does not sleep
 * until all of it is. */
static void
test_held_lines_are_delivered(void **state)
{
	struct fake f;

	(void)state;
	fake_setup(&f, 1000);
	loop_run(f.t.loop);
	assert_false(f.safety_fired);
	assert_int_equal(f.held, 0);
	assert_int_equal(f.delivered, 1000);
	/* deliver() is called only while something is held */
	assert_int_equal(f.deliveries, 1000);
	fake_teardown(&f);
}

/* What events() asks is what the loop polls the connection for: POLLOUT
 * on a pipe's write end is ready at once. */
static void
test_events_are_polled(void **state)
{
	struct fake f;

	(void)state;
	fake_setup(&f, 3);
	f.want = POLLOUT;
	loop_run(f.t.loop);
	assert_false(f.safety_fired);
	assert_true(f.got & POLLOUT);
	assert_int_equal(f.delivered, 3);
	fake_teardown(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_lines_are_delivered),
		cmocka_unit_test(test_events_are_polled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

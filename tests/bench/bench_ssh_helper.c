/*
 * bench_ssh_helper.c: the SSH transport's side of tests/bench/bench_ssh.sh.
 *
 *	bench_ssh_helper LAB HOST ARG...
 *
 * Connects to HOST of the lab file LAB with calops' own SSH transport
 * (remote/ssh.c, libssh2, on the one poll loop, as the console does), runs
 * `calops ARG...` there once the host is up, and reads its output to the
 * end, lines handed over as the console gets them.  Prints one line:
 * "connect_ms=… run_ms=… bytes=… lines=… cut=… status=…", run_ms from the
 * command's start to its end (bytes counting each line's newline).
 */
#include "calops.h"

#include <signal.h>
#include <time.h>

#include "loop/loop.h"
#include "remote/lab.h"
#include "remote/ssh.h"
#include "remote/transport.h"

struct bench {
	struct loop		*loop;
	struct transport	*t;
	char			**argv;
	struct rstream		*rs;
	int64_t			 t0, up, end;
	uint64_t		 bytes, lines, cut;
	int			 status;
	char			 err[512];
};

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
on_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct bench *b = arg;

	(void)rs;
	(void)line;
	if (from_stderr) {
		snprintf(b->err, sizeof b->err, "%.*s", (int)(len > 400 ? 400 :
		    len), line);
		return;
	}
	b->bytes += len + 1;
	b->lines++;
	b->cut += cut;
}

static void
on_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct bench *b = arg;

	(void)rs;
	b->end = now_ns();
	b->status = ex->err != NULL ? -1 : ex->code;
	if (ex->err != NULL)
		snprintf(b->err, sizeof b->err, "%s", ex->err);
	b->rs = NULL;
	loop_stop(b->loop);
}

static const struct rstream_cb cb = { on_line, on_done };

static void
changed(struct transport *t, void *arg)
{
	struct bench *b = arg;
	struct transport_status st;

	transport_status(t, &st);
	if (st.state == TRANSPORT_REFUSED) {
		snprintf(b->err, sizeof b->err, "%s", st.error);
		loop_stop(b->loop);
		return;
	}
	if (st.state != TRANSPORT_UP || b->up != 0)
		return;
	b->up = now_ns();
	b->rs = transport_exec(t, b->argv, &cb, b, b->err, sizeof b->err);
	if (b->rs == NULL)
		loop_stop(b->loop);
}

static void
before_sleep(struct loop *l, void *arg)
{
	(void)l;
	transport_before_sleep(((struct bench *)arg)->t);
}

int
main(int argc, char **argv)
{
	struct bench b = { .status = -1 };
	const struct lab_host *h;
	struct lab lab;

	if (argc < 4) {
		fprintf(stderr, "usage: bench_ssh_helper LAB HOST ARG...\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (lab_load(&lab, argv[1], b.err, sizeof b.err) != 0 ||
	    (h = lab_host(&lab, argv[2])) == NULL) {
		fprintf(stderr, "bench_ssh_helper: %s\n", b.err[0] != '\0' ?
		    b.err : "no such host");
		return 2;
	}
	b.loop = loop_new();
	b.argv = argv + 3;
	b.t0 = now_ns();
	b.t = ssh_transport_new(b.loop, h, lab.path, NULL, b.err,
	    sizeof b.err);
	if (b.t == NULL) {
		fprintf(stderr, "bench_ssh_helper: %s\n", b.err);
		return 2;
	}
	b.t->changed = changed;
	b.t->changed_arg = &b;
	loop_set_before_sleep(b.loop, before_sleep, &b);
	loop_run(b.loop);
	if (b.end == 0) {
		fprintf(stderr, "bench_ssh_helper: %s\n", b.err);
		return 1;
	}
	printf("connect_ms=%.1f run_ms=%.1f bytes=%llu lines=%llu cut=%llu "
	    "status=%d\n", (double)(b.up - b.t0) / 1e6,
	    (double)(b.end - b.up) / 1e6, (unsigned long long)b.bytes,
	    (unsigned long long)b.lines, (unsigned long long)b.cut, b.status);
	transport_close(b.t);
	loop_free(b.loop);
	lab_release(&lab);
	return b.status == 0 ? 0 : 1;
}

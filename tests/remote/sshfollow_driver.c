/*
 * sshfollow_driver.c: a job's events caught up over SSH as the console
 * catches them up, for tests/remote/compress_test.sh and
 * tests/bench/bench_vpn.sh.
 *
 *	sshfollow_driver LAB HOST ID OUT [SSH_CONFIG]
 *
 * Connects to HOST of the lab file LAB with calops' own SSH transport
 * (remote/ssh.c, on the one poll loop) and follows job ID from its first
 * event with follow.c: `calops tail ID --from 1 --follow` on the host, the
 * stream the lab model (src/lab/labstream.c) follows for the Soak screen
 * and the job log.  Each event's line goes to OUT (/dev/null: nowhere)
 * with its newline, until the end event.  SSH_CONFIG is read as
 * --ssh-config FILE is.  Prints one line: "connect_ms=… run_ms=… bytes=…
 * events=… wire=… comp_cs=… comp_sc=…", run_ms from the follow's start to
 * the end event, wire the bytes the kernel took in on the session's
 * socket (TCP_INFO: what crossed the link, handshake and all), comp_* the
 * compression the handshake agreed on.  Exit 0 once
 * the end event is handed over, 1 when the stream broke, 2 on a usage or
 * start error.
 */
#include "calops.h"

#include <sys/socket.h>

#include <netinet/in.h>

#include <linux/tcp.h>

#include <signal.h>

#include "lab/follow.h"
#include "loop/loop.h"
#include "remote/lab.h"
#include "remote/ssh.h"
#include "remote/transport.h"

struct drv {
	struct loop		*loop;
	struct transport	*t;
	const char		*job;
	FILE			*out;
	struct follow		*f;
	int64_t			 t0, up, end;
	uint64_t		 bytes, events;
	bool			 finished;
	char			 err[512];
};

static void
on_event(struct follow *f, const struct event *ev, const char *line,
    size_t len, void *arg)
{
	struct drv *d = arg;

	(void)f;
	(void)ev;
	if (fwrite(line, 1, len, d->out) != len || putc('\n', d->out) == EOF)
		fatal("cannot write the output: %s", strerror(errno));
	d->bytes += len + 1;
	d->events++;
}

static void
on_done(struct follow *f, bool finished, const char *err, void *arg)
{
	struct drv *d = arg;

	(void)f;
	d->end = loop_now_ms();
	d->finished = finished;
	d->f = NULL;
	if (!finished)
		snprintf(d->err, sizeof d->err, "%s", err);
	loop_stop(d->loop);
}

static const struct follow_ops drv_ops = {
	.event = on_event,
	.done = on_done,
};

/* Up: follow the job; refused: the end. */
static void
changed(struct transport *t, void *arg)
{
	struct drv *d = arg;
	struct transport_status st;

	transport_status(t, &st);
	if (st.state == TRANSPORT_REFUSED) {
		snprintf(d->err, sizeof d->err, "%s", st.error);
		loop_stop(d->loop);
		return;
	}
	if (st.state != TRANSPORT_UP || d->up != 0)
		return;
	d->up = loop_now_ms();
	d->f = follow_start(t, d->job, 1, &drv_ops, d, d->err, sizeof d->err);
	if (d->f == NULL)
		loop_stop(d->loop);
}

/* The bytes received on t's socket, or 0 when it has none. */
static unsigned long long
wire_bytes(struct transport *t)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	short events;
	int fd = t->ops->events(t, &events);

	memset(&ti, 0, sizeof ti);
	if (fd == -1 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == -1)
		return 0;
	return (unsigned long long)ti.tcpi_bytes_received;
}

static void
before_sleep(struct loop *l, void *arg)
{
	(void)l;
	transport_before_sleep(((struct drv *)arg)->t);
}

int
main(int argc, char **argv)
{
	struct drv d = { .job = NULL };
	struct transport_status st;
	const struct lab_host *h;
	unsigned long long wire;
	struct lab lab;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: sshfollow_driver LAB HOST ID OUT "
		    "[SSH_CONFIG]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (lab_load(&lab, argv[1], d.err, sizeof d.err) != 0 ||
	    (h = lab_host(&lab, argv[2])) == NULL) {
		fprintf(stderr, "sshfollow_driver: %s\n", d.err[0] != '\0' ?
		    d.err : "no such host");
		return 2;
	}
	if ((d.out = fopen(argv[4], "w")) == NULL) {
		fprintf(stderr, "sshfollow_driver: cannot open '%s': %s\n",
		    argv[4], strerror(errno));
		return 2;
	}
	d.job = argv[3];
	d.loop = loop_new();
	d.t0 = loop_now_ms();
	d.t = ssh_transport_new(d.loop, h, lab.path, argc == 6 ? argv[5] :
	    NULL, d.err, sizeof d.err);
	if (d.t == NULL) {
		fprintf(stderr, "sshfollow_driver: %s\n", d.err);
		return 2;
	}
	d.t->changed = changed;
	d.t->changed_arg = &d;
	loop_set_before_sleep(d.loop, before_sleep, &d);
	loop_run(d.loop);
	transport_status(d.t, &st);
	wire = wire_bytes(d.t);
	if (d.f != NULL)
		follow_stop(d.f);
	if (fclose(d.out) != 0 && d.finished) {
		snprintf(d.err, sizeof d.err, "cannot write '%s'", argv[4]);
		d.finished = false;
	}
	if (!d.finished)
		fprintf(stderr, "sshfollow_driver: %s\n", d.err);
	else
		printf("connect_ms=%lld run_ms=%lld bytes=%llu events=%llu "
		    "wire=%llu comp_cs=%s comp_sc=%s\n", (long long)(d.up -
		    d.t0), (long long)(d.end - d.up),
		    (unsigned long long)d.bytes,
		    (unsigned long long)d.events, wire, st.comp_cs,
		    st.comp_sc);
	transport_close(d.t);
	loop_free(d.loop);
	lab_release(&lab);
	return d.finished ? 0 : 1;
}

/*
 * follow_driver.c: a test helper for tests/jobs/follow_test.sh, a consumer
 * of follow.c as the console is one.  It follows job ID on the local host
 * and appends the seq of each event it is handed to OUTFILE, one line each
 * in one write(2); OUTFILE is its durable "display", so on start it resumes
 * after the highest seq there, as follow.h says every consumer does (the
 * console's is its mirror of the stream).  Exit status 0 once the end
 * event is handed over, 1 when the stream broke, 2 on a usage or start
 * error.
 *
 *	follow_driver CALOPS_BINARY ID OUTFILE
 */
#include "calops.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "lab/follow.h"
#include "loop/child.h"
#include "loop/loop.h"
#include "remote/local.h"
#include "remote/transport.h"

static int	 out_fd = -1;
static int	 status = 1;

/* The highest seq already in the output file: what was shown. */
static int64_t
shown(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v, max = 0;

	if (f == NULL)
		return 0;
	while (fscanf(f, "%lld", &v) == 1)
		if (v > max)
			max = v;
	fclose(f);
	return max;
}

static void
on_event(struct follow *f, const struct event *ev, const char *line,
    size_t len, void *arg)
{
	char buf[32];
	int n;

	(void)f;
	(void)line;
	(void)len;
	(void)arg;
	n = snprintf(buf, sizeof buf, "%lld\n", (long long)ev->seq);
	if (write(out_fd, buf, (size_t)n) != n)
		fatal("cannot write the output: %s", strerror(errno));
}

static void
on_done(struct follow *f, bool finished, const char *err, void *arg)
{
	const struct follow_stats *st = follow_stats(f);
	struct loop *l = arg;

	fprintf(stderr, "follow_driver: %s: delivered %llu, duplicates %llu, "
	    "gaps %llu, bad %llu, last %lld\n", finished ? "finished" : err,
	    (unsigned long long)st->delivered,
	    (unsigned long long)st->duplicates, (unsigned long long)st->gaps,
	    (unsigned long long)st->bad, (long long)st->last_seq);
	status = finished ? 0 : 1;
	loop_stop(l);
}

static const struct follow_ops driver_ops = {
	.event = on_event,
	.done = on_done,
};

static void
on_signal(struct loop *l, int sig, void *arg)
{
	(void)arg;
	if (sig == SIGCHLD)
		child_reap(l);
}

int
main(int argc, char **argv)
{
	struct transport *t;
	struct loop *l;
	char err[512];

	if (argc != 4) {
		fprintf(stderr, "usage: follow_driver CALOPS_BINARY ID "
		    "OUTFILE\n");
		return 2;
	}
	out_fd = open(argv[3], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0644);
	if (out_fd == -1) {
		fprintf(stderr, "follow_driver: cannot open '%s': %s\n",
		    argv[3], strerror(errno));
		return 2;
	}
	l = loop_new();
	loop_watch_signal(l, SIGCHLD, on_signal, NULL);
	t = local_transport_new(l, "local", argv[1]);
	if (transport_connect(t, err, sizeof err) != 0 ||
	    follow_start(t, argv[2], shown(argv[3]) + 1, &driver_ops, l,
	    err, sizeof err) == NULL) {
		fprintf(stderr, "follow_driver: %s\n", err);
		return 2;
	}
	loop_run(l);
	transport_close(t);
	loop_free(l);
	close(out_fd);
	return status;
}

/* local.c: the local transport, commands as children (see transport.h). */
#include "calops.h"

#include <sys/wait.h>

#include <unistd.h>

#include "loop/child.h"
#include "remote/local.h"
#include "remote/transport.h"

#define LOCAL_ARGS_MAX	64

struct local {
	char	*program;
	int64_t	 since;		/* made: up from then on */
};

struct local_stream {
	/* first: transport_rstream_cancel casts */
	struct rstream		 base;
	struct child		*c;
	const struct rstream_cb	*cb;
	void			*arg;
};

static void
local_line(struct child *c, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct local_stream *ls = arg;

	(void)c;
	if (ls->cb->line != NULL)
		ls->cb->line(&ls->base, line, len, from_stderr, cut, ls->arg);
}

/* child.c frees the child after this returns; the stream goes with it. */
static void
local_done(struct child *c, int status, void *arg)
{
	struct local_stream *ls = arg;
	struct rstream_exit ex = { .code = -1, .sig = 0, .err = NULL };

	(void)c;
	if (WIFEXITED(status))
		ex.code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		ex.sig = WTERMSIG(status);
	if (ls->cb->done != NULL)
		ls->cb->done(&ls->base, &ex, ls->arg);
	free(ls);
}

static const struct child_ops local_child_ops = {
	.line = local_line,
	.done = local_done,
};

static int
local_connect(struct transport *t, char *err, size_t errlen)
{
	(void)t;
	(void)err;
	(void)errlen;
	return 0;
}

static struct rstream *
start(struct transport *t, char *const argv[], const struct rstream_cb *cb,
    void *arg, bool with_input, char *err, size_t errlen)
{
	struct local *lo = t->data;
	struct local_stream *ls;
	char *args[LOCAL_ARGS_MAX + 2];
	size_t n;

	args[0] = lo->program;
	for (n = 0; argv[n] != NULL; n++) {
		if (n == LOCAL_ARGS_MAX) {
			errbuf_set(err, errlen, "too many arguments");
			return NULL;
		}
		args[n + 1] = argv[n];
	}
	args[n + 1] = NULL;
	ls = xcalloc(1, sizeof *ls);
	ls->base.t = t;
	ls->cb = cb;
	ls->arg = arg;
	ls->c = (with_input ? child_start_input : child_start)(t->loop, args,
	    &local_child_ops, ls, err, errlen);
	if (ls->c == NULL) {
		free(ls);
		return NULL;
	}
	return &ls->base;
}

static struct rstream *
local_exec(struct transport *t, char *const argv[], const struct rstream_cb *cb,
    void *arg, char *err, size_t errlen)
{
	return start(t, argv, cb, arg, false, err, errlen);
}

static struct rstream *
local_exec_input(struct transport *t, char *const argv[],
    const struct rstream_cb *cb, void *arg, char *err, size_t errlen)
{
	return start(t, argv, cb, arg, true, err, errlen);
}

static int
local_input(struct rstream *rs, const void *data, size_t len, bool eof,
    char *err, size_t errlen)
{
	struct local_stream *ls = (struct local_stream *)rs;

	return child_input(ls->c, data, len, eof, err, errlen);
}

/* An abandoned child calls nothing back, so the stream can go now. */
static void
local_cancel(struct rstream *rs)
{
	struct local_stream *ls = (struct local_stream *)rs;

	child_abandon(ls->c);
	free(ls);
}

static int
local_events(struct transport *t, short *events)
{
	(void)t;
	*events = 0;
	return -1;
}

static size_t
local_pending(struct transport *t)
{
	(void)t;
	return 0;
}

static void
local_close(struct transport *t)
{
	struct local *lo = t->data;

	free(lo->program);
	free(lo);
	free(t->host);
	free(t);
}

/* Always up: since it was made. */
static void
local_status(struct transport *t, struct transport_status *st)
{
	struct local *lo = t->data;

	memset(st, 0, sizeof *st);
	st->state = TRANSPORT_UP;
	st->since_ms = lo->since;
	st->rtt_us = -1;
}

static const struct transport_ops local_ops = {
	.name = "local",
	.connect = local_connect,
	.exec = local_exec,
	.exec_input = local_exec_input,
	.input = local_input,
	.cancel = local_cancel,
	.events = local_events,
	.pending = local_pending,
	.close = local_close,
	.status = local_status,
};

/* This program, so that the console runs its own headless side. */
static char *
self_path(void)
{
	char buf[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return xstrdup("calops");
	buf[n] = '\0';
	return xstrdup(buf);
}

struct transport *
local_transport_new(struct loop *l, const char *host, const char *program)
{
	struct transport *t = xcalloc(1, sizeof *t);
	struct local *lo = xcalloc(1, sizeof *lo);

	lo->program = program != NULL ? xstrdup(program) : self_path();
	lo->since = loop_now_ms();
	t->ops = &local_ops;
	t->loop = l;
	t->host = xstrdup(host);
	t->data = lo;
	return t;
}

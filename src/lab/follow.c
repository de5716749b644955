/* follow.c: resumable job streams (see follow.h). */
#include "calops.h"

#include "lab/follow.h"
#include "proto/event.h"
#include "remote/transport.h"

struct follow {
	struct transport	*t;
	struct rstream		*rs;
	char			*job;
	const struct follow_ops	*ops;
	void			*arg;
	struct follow_stats	 st;
	bool			 finished;
	bool			 busy;		/* inside ops->event */
	bool			 stopped;	/* follow_stop() from there */
	/* the tail's last stderr line */
	char			 lasterr[256];
};

static void
free_follow(struct follow *f)
{
	free(f->job);
	free(f);
}

/* One event line: in order, or dropped and counted. */
static void
take_event(struct follow *f, const char *line, size_t len)
{
	struct event ev;

	if (event_parse(line, len, &ev) != EVENT_OK) {
		f->st.bad++;
		return;
	}
	if (ev.seq <= f->st.last_seq) {
		f->st.duplicates++;
		return;
	}
	if (ev.seq > f->st.last_seq + 1) {
		f->st.gaps++;
		f->st.missing += (uint64_t)(ev.seq - f->st.last_seq - 1);
	}
	f->busy = true;
	f->ops->event(f, &ev, line, len, f->arg);
	f->busy = false;
	f->st.last_seq = ev.seq;
	f->st.delivered++;
	f->finished = ev.type == EVENT_END;
	if (f->stopped)
		free_follow(f);
}

static void
on_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct follow *f = arg;

	(void)rs;
	if (from_stderr) {
		errbuf_set(f->lasterr, sizeof f->lasterr, "%.*s",
		    (int)(len > 200 ? 200 : len), line);
		return;
	}
	if (cut || f->finished) {
		f->st.bad += cut;
		return;
	}
	take_event(f, line, len);
}

static void
on_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct follow *f = arg;
	char why[512];

	(void)rs;
	f->rs = NULL;
	if (f->finished)
		f->ops->done(f, true, NULL, f->arg);
	else {
		if (ex->err != NULL)
			errbuf_set(why, sizeof why, "%s", ex->err);
		else if (ex->sig != 0)
			errbuf_set(why, sizeof why, "tail killed by signal %d",
			    ex->sig);
		else
			errbuf_set(why, sizeof why, "tail exited with status "
			    "%d before the end%s%s", ex->code,
			    f->lasterr[0] != '\0' ? ": " : "", f->lasterr);
		f->ops->done(f, false, why, f->arg);
	}
	free_follow(f);
}

static const struct rstream_cb follow_cb = {
	.line = on_line,
	.done = on_done,
};

struct follow *
follow_start(struct transport *t, const char *job,
    int64_t from_seq, const struct follow_ops *ops, void *arg, char *err,
    size_t errlen)
{
	char from[32], *argv[] = { "tail", NULL, "--from", from, "--follow",
	    NULL };
	struct follow *f;

	if (from_seq < 1)
		from_seq = 1;
	f = xcalloc(1, sizeof *f);
	f->t = t;
	f->job = xstrdup(job);
	f->ops = ops;
	f->arg = arg;
	f->st.last_seq = from_seq - 1;
	snprintf(from, sizeof from, "%lld", (long long)from_seq);
	argv[1] = f->job;
	if ((f->rs = transport_exec(t, argv, &follow_cb, f, err,
	    errlen)) == NULL) {
		free_follow(f);
		return NULL;
	}
	return f;
}

void
follow_stop(struct follow *f)
{
	if (f->rs != NULL)
		transport_rstream_cancel(f->rs);
	f->rs = NULL;
	if (f->busy) {
		f->stopped = true;	/* take_event frees it on return */
		return;
	}
	free_follow(f);
}

const struct follow_stats *
follow_stats(const struct follow *f)
{
	return &f->st;
}

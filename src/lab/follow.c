/* follow.c: resumable job streams (see follow.h). */
#include "calops.h"

#include "lab/follow.h"
#include "proto/event.h"
#include "proto/hostcmd.h"
#include "remote/transport.h"

struct follow {
	struct transport	*t;
	struct rstream		*rs;
	const struct follow_ops	*ops;
	void			*arg;
	struct follow_stats	 st;
	bool			 busy;		/* inside ops->event */
	bool			 stopped;	/* follow_stop() from there */
	/* the tail's last stderr line */
	char			 lasterr[256];
};

static void
free_follow(struct follow *f)
{
	free(f);
}

enum follow_verdict
follow_judge(struct follow_stats *st, const char *line, size_t len, bool cut,
    struct event *ev)
{
	if (cut) {
		/* Longer than any event: the rest never came. */
		memset(ev, 0, sizeof *ev);
		errbuf_set(ev->err, sizeof ev->err, "a line of more than %u "
		    "bytes, cut by its reader", EVENT_LINE_MAX);
		st->bad++;
		return FOLLOW_BAD;
	}
	if (event_parse(line, len, ev) != EVENT_OK) {
		st->bad++;
		return FOLLOW_BAD;
	}
	if (st->ended) {
		st->late++;
		return FOLLOW_LATE;
	}
	if (ev->seq <= st->last_seq) {
		st->duplicates++;
		return FOLLOW_REPEAT;
	}
	if (ev->seq > st->last_seq + 1) {
		st->gaps++;
		st->missing += (uint64_t)(ev->seq - st->last_seq - 1);
	}
	st->last_seq = ev->seq;
	st->delivered++;
	st->ended = ev->type == EVENT_END;
	return FOLLOW_TAKE;
}

static void
on_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct follow *f = arg;
	struct event ev;

	(void)rs;
	if (from_stderr) {
		errbuf_set(f->lasterr, sizeof f->lasterr, "%.*s",
		    (int)(len > 200 ? 200 : len), line);
		return;
	}
	if (follow_judge(&f->st, line, len, cut, &ev) != FOLLOW_TAKE)
		return;
	f->busy = true;
	f->ops->event(f, &ev, line, len, f->arg);
	f->busy = false;
	if (f->stopped)
		free_follow(f);
}

static void
on_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct follow *f = arg;
	char why[512];

	(void)rs;
	f->rs = NULL;
	if (f->st.ended)
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
	struct strv argv = { NULL, 0, 0 };
	struct follow *f;

	if (from_seq < 1)
		from_seq = 1;
	f = xcalloc(1, sizeof *f);
	f->t = t;
	f->ops = ops;
	f->arg = arg;
	f->st.last_seq = from_seq - 1;
	hostcmd_tail(&argv, job, from_seq, true);
	f->rs = transport_exec(t, argv.v, &follow_cb, f, err, errlen);
	strv_free(&argv);
	if (f->rs == NULL) {
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

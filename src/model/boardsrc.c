/*
 * boardsrc.c: a workspace's board, from a local child or a host's stream,
 * watched, debounced and kept in its history (boardsrc.h).
 */
#include "calops.h"

#include <sys/wait.h>

#include <stdarg.h>

#include "lab/labmodel.h"
#include "loop/child.h"
#include "loop/loop.h"
#include "loop/watch.h"
#include "loop/watchloop.h"
#include "model/boardsrc.h"
#include "model/history.h"
#include "proto/hostcmd.h"
#include "remote/lab.h"
#include "remote/transport.h"

struct boardsrc {
	struct loop	*loop;
	struct labmodel	*lm;
	struct boardsrc_cb cb;
	char		*host, *ws;
	char		*self;		/* the child's program, or NULL */
	bool		 local;		/* host is this machine */
	bool		 watch_wanted;
	int		 debounce_ms, history;
	struct board	 board;
	/* The evaluation: a child or a host's stream, at most one. */
	struct child	*child;
	struct rstream	*rs;
	bool		 again;		/* asked for while one runs */
	/* the last broke with its link, or could not start on the host:
	 * again once it is up */
	bool		 lost;
	int64_t		 done_ms, valid_ms;
	/* The watch, once started: here, or `calops watch` on the host. */
	bool		 watching;
	struct watchloop *watch;
	struct rstream	*rwatch;
	bool		 rwatch_live;	/* it said it is watching */
	/* The host's state's since_ms when it started: not again until the
	 * host has come up anew. */
	int64_t		 rwatch_since;
	long		 debounce_timer;
};

static void
tell(struct boardsrc *s, int what)
{
	if (what != 0 && s->cb.changed != NULL)
		s->cb.changed(s, what, s->cb.arg);
}

static void PRINTFLIKE(3, 4)
say(struct boardsrc *s, bool eval, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (s->cb.said == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	s->cb.said(s, eval, msg, s->cb.arg);
}

/* Remember this evaluation, so a red gate can say what changed since it
 * was last green. */
static void
record_history(struct boardsrc *s)
{
	const struct board_eval *e = &s->board.now;
	json_t *gates = json_object();
	char err[256], *path;
	size_t i;

	for (i = 0; i < GATE_COUNT; i++)
		json_object_set_new(gates, e->gates[i].id, json_pack("{s:s,s:O}",
		    "status", gate_status_name(e->gates[i].status), "inputs",
		    e->gates[i].inputs != NULL ? e->gates[i].inputs :
		    json_array()));
	if ((path = history_path(s->ws, s->local ? NULL : s->host, err,
	    sizeof err)) == NULL || history_append(path, gates,
	    e->finished_at, s->history, err, sizeof err) != 0)
		say(s, false, "history not kept: %s", err);
	free(path);
	json_decref(gates);
}

/* ---- the evaluation ---- */

/* A line of `calops check --stream`, from the child or from the host. */
static void
take(struct boardsrc *s, const char *line, size_t len, bool from_stderr,
    bool cut)
{
	int r;

	if (from_stderr || cut) {
		if (len > 0)
			say(s, true, "%.*s", (int)(len > 200 ? 200 : len), line);
		return;
	}
	r = boardmodel_event(&s->board, line, len);
	if (r & BOARD_CHANGED) {
		s->valid_ms = loop_now_ms();
		if (s->history > 0 && s->board.now.valid &&
		    s->board.error == NULL)
			record_history(s);
	}
	tell(s, r);
}

/* The check ended: with an error of its link (err; lost: the link went),
 * or by a signal (sig) or with an exit status (code). */
static void
ended(struct boardsrc *s, const char *err, bool lost, int sig, int code)
{
	char why[400];

	s->done_ms = loop_now_ms();
	s->lost = lost;
	if (lost)
		s->again = false;	/* the host's return evaluates it */
	if (err != NULL) {
		snprintf(why, sizeof why, "evaluation on %s broken: %s",
		    s->host, err);
		boardmodel_fail(&s->board, why);
	} else if (s->board.running)
		boardmodel_fail(&s->board, sig != 0 ?
		    "the evaluation was killed" : code == 127 ?
		    "calops is not on the host" :
		    "the evaluation ended without a result");
	if (s->watch != NULL && !watch_root_ok(watchloop_watch(s->watch)))
		boardmodel_fail(&s->board,
		    "the workspace is gone or unreadable");
	tell(s, BOARDSRC_ENDED);
	if (s->again) {
		s->again = false;
		boardsrc_evaluate(s);
	}
}

static void
child_line(struct child *c, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	(void)c;
	take(arg, line, len, from_stderr, cut);
}

static void
child_done(struct child *c, int status, void *arg)
{
	struct boardsrc *s = arg;

	(void)c;
	s->child = NULL;
	ended(s, NULL, false, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static const struct child_ops child_ops = { child_line, child_done };

static void
host_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	(void)rs;
	take(arg, line, len, from_stderr, cut);
}

static void
host_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct boardsrc *s = arg;

	(void)rs;
	s->rs = NULL;
	ended(s, ex->err, ex->err != NULL && ex->lost, ex->sig, ex->code);
}

static const struct rstream_cb host_cb = { host_line, host_done };

/* Start the check: a child of self, or through the host's transport (it
 * waits there while the host connects).  0, or -1 with err. */
static int
start(struct boardsrc *s, char *err, size_t errlen)
{
	struct strv argv = { NULL, 0, 0 };
	struct transport *t;

	if (s->self != NULL) {
		strv_add(&argv, xstrdup(s->self));
		hostcmd_check(&argv, s->ws);
		s->child = child_start(s->loop, argv.v, &child_ops, s, err,
		    errlen);
	} else {
		hostcmd_check(&argv, s->ws);
		if ((t = labmodel_transport(s->lm, s->host, err, errlen)) !=
		    NULL)
			s->rs = transport_exec(t, argv.v, &host_cb, s, err,
			    errlen);
	}
	strv_free(&argv);
	return s->child != NULL || s->rs != NULL ? 0 : -1;
}

void
boardsrc_evaluate(struct boardsrc *s)
{
	char err[256];

	if (boardsrc_evaluating(s)) {
		s->again = true;
		return;
	}
	s->lost = false;
	boardmodel_begin(&s->board);
	if (start(s, err, sizeof err) != 0) {
		s->done_ms = loop_now_ms();
		s->lost = s->self == NULL;
		boardmodel_fail(&s->board, err);
	} else if (s->watch != NULL) {
		/* This evaluation reads every change made until now: one the
		 * watch has not told yet (a job's files, seen by its next
		 * poll) must not evaluate once more. */
		watch_rebase(watchloop_watch(s->watch));
		if (s->debounce_timer != 0)
			loop_del_timer(s->loop, s->debounce_timer);
		s->debounce_timer = 0;
	}
	tell(s, BOARDSRC_BEGAN);
}

/* ---- the watch ---- */

static void
debounced(struct loop *l, void *arg)
{
	struct boardsrc *s = arg;

	(void)l;
	s->debounce_timer = 0;
	boardsrc_evaluate(s);
}

/* The workspace changed: evaluate once it has been quiet a while. */
static void
changed(void *arg)
{
	struct boardsrc *s = arg;

	if (s->debounce_timer != 0)
		loop_del_timer(s->loop, s->debounce_timer);
	s->debounce_timer = loop_add_timer(s->loop, s->debounce_ms, debounced,
	    s);
}

/* A line of the host's `calops watch`: a change, evaluated once quiet. */
static void
rwatch_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	struct boardsrc *s = arg;

	(void)rs;
	(void)cut;
	if (from_stderr) {
		if (len > 0)
			say(s, false, "%s: %.*s", s->host, (int)(len > 160 ?
			    160 : len), line);
		return;
	}
	switch (hostcmd_watch_parse(line, len)) {
	case HOSTCMD_WATCH_CHANGED:
		changed(s);
		break;
	case HOSTCMD_WATCH_WATCHING:
		/* In place from now on: what changed before it was, since
		 * the evaluation under way or done began, is read again. */
		s->rwatch_live = true;
		tell(s, BOARDSRC_WATCH);
		boardsrc_evaluate(s);
		break;
	case HOSTCMD_WATCH_OTHER:
		break;
	}
}

static void
rwatch_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct boardsrc *s = arg;

	(void)rs;
	s->rwatch = NULL;
	s->rwatch_live = false;
	if (ex->err == NULL && ex->code != 0)
		say(s, false, "%s: not watching for changes (calops watch "
		    "exit %d)", s->host, ex->code);
	tell(s, BOARDSRC_WATCH);
}

static const struct rstream_cb rwatch_cb = { rwatch_line, rwatch_done };

static void
watch_remote(struct boardsrc *s)
{
	struct strv argv = { NULL, 0, 0 };
	struct transport_status st;
	struct transport *t;
	char err[256];

	if (s->rwatch != NULL || (t = labmodel_transport(s->lm, s->host, err,
	    sizeof err)) == NULL)
		return;
	transport_status(t, &st);
	s->rwatch_since = st.since_ms;
	hostcmd_watch(&argv, s->ws);
	if ((s->rwatch = transport_exec(t, argv.v, &rwatch_cb, s, err,
	    sizeof err)) == NULL)
		say(s, false, "not watching for changes: %s", err);
	strv_free(&argv);
	tell(s, BOARDSRC_WATCH);
}

static void
watch_start(struct boardsrc *s)
{
	char err[256];

	s->watching = true;
	if (!s->local) {
		watch_remote(s);
		return;
	}
	s->watch = watchloop_new(s->loop, s->ws, changed, s, err, sizeof err);
	if (s->watch == NULL)
		say(s, false, "not watching for changes: %s", err);
}

void
boardsrc_host_changed(struct boardsrc *s)
{
	struct transport_status st;
	struct transport *t;
	char err[256];

	/* Cheap unless the host is waited for. */
	if (s->self != NULL || (!s->lost && (!s->watching || s->local ||
	    s->rwatch != NULL)))
		return;
	if ((t = labmodel_transport(s->lm, s->host, err, sizeof err)) ==
	    NULL || !transport_up(t))
		return;
	/* Back up after a break, it is watched again and evaluated again
	 * (what changed meanwhile was not seen).  A watch that ended on a
	 * connection still up (the workspace went, calops there failed)
	 * starts again only with a new connection, not on every change of
	 * the lab. */
	transport_status(t, &st);
	if (s->watching && !s->local && s->rwatch == NULL &&
	    st.since_ms != s->rwatch_since) {
		watch_remote(s);
		if (s->rs == NULL)
			boardsrc_evaluate(s);
	} else if (s->lost && s->rs == NULL)
		boardsrc_evaluate(s);
}

/* ---- the source ---- */

struct boardsrc *
boardsrc_new(struct loop *l, struct labmodel *lm,
    const struct boardsrc_opts *opts, const struct boardsrc_cb *cb)
{
	const struct lab_host *h = lab_host(labmodel_lab(lm), opts->host);
	struct boardsrc *s = xcalloc(1, sizeof *s);

	s->loop = l;
	s->lm = lm;
	if (cb != NULL)
		s->cb = *cb;
	s->host = xstrdup(opts->host);
	s->ws = xstrdup(opts->ws);
	s->local = h != NULL && h->transport == LAB_LOCAL;
	if (s->local && opts->self != NULL)
		s->self = xstrdup(opts->self);
	s->watch_wanted = opts->watch;
	s->debounce_ms = opts->debounce_ms;
	s->history = opts->history;
	boardmodel_init(&s->board);
	return s;
}

void
boardsrc_free(struct boardsrc *s)
{
	if (s == NULL)
		return;
	if (s->child != NULL)
		child_abandon(s->child);
	if (s->rs != NULL)
		transport_rstream_cancel(s->rs);
	if (s->rwatch != NULL)
		transport_rstream_cancel(s->rwatch);
	watchloop_free(s->watch);
	if (s->debounce_timer != 0)
		loop_del_timer(s->loop, s->debounce_timer);
	boardmodel_release(&s->board);
	free(s->host);
	free(s->ws);
	free(s->self);
	free(s);
}

void
boardsrc_start(struct boardsrc *s)
{
	if (s->watch_wanted && !s->watching)
		watch_start(s);
	boardsrc_evaluate(s);
}

const struct board *
boardsrc_board(const struct boardsrc *s)
{
	return &s->board;
}

bool
boardsrc_evaluating(const struct boardsrc *s)
{
	return s->child != NULL || s->rs != NULL;
}

bool
boardsrc_idle(const struct boardsrc *s)
{
	return !s->board.running && !s->again;
}

int64_t
boardsrc_done_ms(const struct boardsrc *s)
{
	return s->done_ms;
}

int64_t
boardsrc_valid_ms(const struct boardsrc *s)
{
	return s->valid_ms;
}

void
boardsrc_watch_text(const struct boardsrc *s, char *buf, size_t len)
{
	if (s->watch != NULL)
		snprintf(buf, len, "%s",
		    watch_describe(watchloop_watch(s->watch)));
	else if (s->rwatch != NULL)
		snprintf(buf, len, "%s%s", s->rwatch_live ? "watched on " :
		    "starting a watch on ", s->host);
	else
		snprintf(buf, len, "not watching");
}

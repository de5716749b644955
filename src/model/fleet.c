/*
 * fleet.c: every workspace of the lab, each evaluated on its own host
 * (fleet.h).
 */
#include "calops.h"

#include "lab/labmodel.h"
#include "loop/loop.h"
#include "model/fleet.h"
#include "proto/hostcmd.h"
#include "remote/lab.h"
#include "remote/transport.h"

struct fleet {
	struct labmodel	*lm;
	struct fleet_ws	*ws;
	size_t		 nws;
	void		(*changed)(void *);
	void		*arg;
};

static void
told(struct fleet *f)
{
	if (f->changed != NULL)
		f->changed(f->arg);
}

static void
check_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	struct fleet_ws *w = arg;

	(void)rs;
	/* Its complaints are its own business: the board says what failed,
	 * and a row has no room for a log. */
	if (from_stderr || cut)
		return;
	if (boardmodel_event(&w->board, line, len) & BOARD_CHANGED) {
		w->valid_ms = loop_now_ms();
		told(w->fleet);
	}
}

static void
check_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct fleet_ws *w = arg;
	char why[400];

	(void)rs;
	w->rs = NULL;
	w->done_ms = loop_now_ms();
	w->lost = ex->lost;
	if (w->lost)
		w->again = false;	/* the host's return evaluates it */
	if (ex->err != NULL) {
		snprintf(why, sizeof why, "%s", ex->err);
		boardmodel_fail(&w->board, why);
	} else if (w->board.running)
		boardmodel_fail(&w->board, ex->sig != 0 ?
		    "the evaluation was killed" : ex->code == 127 ?
		    "calops is not on the host" :
		    "the evaluation ended without a result");
	told(w->fleet);
	if (w->again && !w->lost) {
		w->again = false;
		fleet_evaluate(w->fleet, (size_t)(w - w->fleet->ws));
	}
}

static const struct rstream_cb check_cb = { check_line, check_done };

struct fleet *
fleet_new(struct labmodel *lm, void (*changed)(void *), void *arg)
{
	const struct lab *lab = labmodel_lab(lm);
	struct fleet *f = xcalloc(1, sizeof *f);
	size_t i;

	f->lm = lm;
	f->changed = changed;
	f->arg = arg;
	f->nws = lab->nworkspaces;
	f->ws = xcalloc(f->nws > 0 ? f->nws : 1, sizeof *f->ws);
	for (i = 0; i < f->nws; i++) {
		f->ws[i].fleet = f;
		f->ws[i].host = lab->workspaces[i].host;
		f->ws[i].path = lab->workspaces[i].path;
		boardmodel_init(&f->ws[i].board);
	}
	return f;
}

void
fleet_free(struct fleet *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nws; i++) {
		if (f->ws[i].rs != NULL)
			transport_rstream_cancel(f->ws[i].rs);
		boardmodel_release(&f->ws[i].board);
	}
	free(f->ws);
	free(f);
}

size_t
fleet_count(const struct fleet *f)
{
	return f->nws;
}

const struct fleet_ws *
fleet_at(const struct fleet *f, size_t i)
{
	return i < f->nws ? &f->ws[i] : NULL;
}

void
fleet_evaluate(struct fleet *f, size_t i)
{
	struct strv argv = { NULL, 0, 0 };
	struct fleet_ws *w;
	struct transport *t;
	char err[300];

	if (i >= f->nws)
		return;
	w = &f->ws[i];
	if (w->rs != NULL) {
		w->again = true;
		return;
	}
	w->lost = false;
	boardmodel_begin(&w->board);
	/* An SSH host that is not up yet keeps it queued until it is. */
	hostcmd_check(&argv, w->path);
	if ((t = labmodel_transport(f->lm, w->host, err, sizeof err)) ==
	    NULL || (w->rs = transport_exec(t, argv.v, &check_cb, w, err,
	    sizeof err)) == NULL) {
		w->done_ms = loop_now_ms();
		boardmodel_fail(&w->board, err);
	}
	strv_free(&argv);
	told(f);
}

void
fleet_refresh(struct fleet *f, int64_t max_age_ms)
{
	int64_t now = loop_now_ms();
	size_t i;

	for (i = 0; i < f->nws; i++)
		if (f->ws[i].rs == NULL && (f->ws[i].done_ms == 0 ||
		    max_age_ms == 0 || now - f->ws[i].done_ms > max_age_ms))
			fleet_evaluate(f, i);
}

void
fleet_hosts_changed(struct fleet *f)
{
	struct transport *t;
	char err[300];
	size_t i;

	for (i = 0; i < f->nws; i++) {
		if (!f->ws[i].lost || f->ws[i].rs != NULL)
			continue;
		t = labmodel_transport(f->lm, f->ws[i].host, err, sizeof err);
		if (t != NULL && transport_up(t))
			fleet_evaluate(f, i);
	}
}

int
fleet_first_open_gate(const struct board_eval *ev)
{
	int g;

	for (g = 0; g < GATE_COUNT; g++)
		if (ev->gates[g].status != GS_PASS)
			return g;
	return -1;
}

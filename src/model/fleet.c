/*
 * fleet.c: every workspace of the lab, each evaluated on its own host
 * (fleet.h).
 */
#include "calops.h"

#include "lab/labmodel.h"
#include "loop/loop.h"
#include "model/fleet.h"
#include "remote/lab.h"

struct fleet {
	struct fleet_ws	*ws;
	size_t		 nws;
	void		(*changed)(void *);
	void		*arg;
};

/* A row's board began, changed or ended (its progress is not shown). */
static void
src_changed(struct boardsrc *s, int what, void *arg)
{
	struct fleet *f = arg;

	(void)s;
	if ((what & ~BOARD_PROGRESS) != 0 && f->changed != NULL)
		f->changed(f->arg);
}

struct fleet *
fleet_new(struct loop *l, struct labmodel *lm, void (*changed)(void *),
    void *arg)
{
	const struct lab *lab = labmodel_lab(lm);
	struct fleet *f = xcalloc(1, sizeof *f);
	/* Its complaints are its own business: the board says what failed,
	 * and a row has no room for a log. */
	const struct boardsrc_cb cb = { src_changed, NULL, f };
	struct boardsrc_opts o = { 0 };
	size_t i;

	f->changed = changed;
	f->arg = arg;
	f->nws = lab->nworkspaces;
	f->ws = xcalloc(f->nws > 0 ? f->nws : 1, sizeof *f->ws);
	for (i = 0; i < f->nws; i++) {
		f->ws[i].host = lab->workspaces[i].host;
		f->ws[i].path = lab->workspaces[i].path;
		o.host = f->ws[i].host;
		o.ws = f->ws[i].path;
		f->ws[i].src = boardsrc_new(l, lm, &o, &cb);
	}
	return f;
}

void
fleet_free(struct fleet *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nws; i++)
		boardsrc_free(f->ws[i].src);
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
	if (i < f->nws)
		boardsrc_evaluate(f->ws[i].src);
}

void
fleet_refresh(struct fleet *f, int64_t max_age_ms)
{
	int64_t now = loop_now_ms(), done;
	size_t i;

	for (i = 0; i < f->nws; i++) {
		done = boardsrc_done_ms(f->ws[i].src);
		if (!boardsrc_evaluating(f->ws[i].src) && (done == 0 ||
		    max_age_ms == 0 || now - done > max_age_ms))
			fleet_evaluate(f, i);
	}
}

void
fleet_hosts_changed(struct fleet *f)
{
	size_t i;

	for (i = 0; i < f->nws; i++)
		boardsrc_host_changed(f->ws[i].src);
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

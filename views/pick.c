/*
 * pick.c: which host, or which chip, a job runs on (pick.h): a screen over
 * the picker of views/core/picker.h, its rows made again from the lab
 * model at every draw, so that a host coming up or a job starting on a
 * chip shows while the operator chooses.
 */
#include "calops.h"

#include "lab/labmodel.h"
#include "remote/transport.h"
#include "views/app/app.h"
#include "views/core/picker.h"
#include "views/core/ui.h"
#include "views/pick.h"

#define PICK_ON_CHIP	4	/* running jobs named on a chip's row */

struct pick {
	struct app	*app;
	bool		 chips;		/* a chip of host, not a host */
	bool		 all;		/* an "all chips" row first */
	char		 host[128];	/* the chips' host */
	char		 what[160];
	char		 def_host[128];
	int		 def_chip;
	struct picker	 picker;
	pick_fn		 fn;
	void		*arg;
	bool		 told;		/* fn was called */
};

/* What pick_host() and pick_chip() push. */
struct pick_req {
	bool		 chips, all;
	const char	*what, *host;
	int		 chip;
	pick_fn		 fn;
	void		*arg;
};

/* A host's state in words into buf, and why jobs cannot run there into
 * why ("" when they can). */
static void
host_state(struct app *a, const struct lab_host *h, char *buf, size_t len,
    char *why, size_t whylen, int *role)
{
	struct labmodel *lm = app_labmodel(a);
	struct transport_status st;
	struct transport *t;
	char err[256];
	size_t i, busy = 0;

	why[0] = '\0';
	*role = ROLE_FAIL;
	if ((t = labmodel_transport(lm, h->name, err, sizeof err)) == NULL) {
		snprintf(buf, len, "not reachable: %s", err);
		snprintf(why, whylen, "host '%s' is not reachable: %s",
		    h->name, err);
		return;
	}
	transport_status(t, &st);
	for (i = 0; i < labmodel_njobs(lm); i++)
		busy += labmodel_job_live(labmodel_job(lm, i)) &&
		    strcmp(labmodel_job(lm, i)->host, h->name) == 0;
	*role = transport_state_up(st.state) ? ROLE_PASS :
	    transport_state_down(st.state) ? ROLE_FAIL : ROLE_WARN;
	if (st.rtt_us >= 0 && transport_state_up(st.state))
		snprintf(buf, len, "%s %.1fms", transport_state_name(st.state),
		    (double)st.rtt_us / 1000);
	else
		snprintf(buf, len, "%s", transport_state_name(st.state));
	snprintf(buf + strlen(buf), len - strlen(buf), " %s %zu job%s "
	    "running", ui_glyph("·", "-"), busy, busy == 1 ? "" : "s");
	if (labmodel_workspace(lm, h->name) == NULL) {
		*role = ROLE_DIM;
		snprintf(buf + strlen(buf), len - strlen(buf), " %s no "
		    "workspace", ui_glyph("·", "-"));
		snprintf(why, whylen, "the lab file names no workspace on host "
		    "'%s'", h->name);
	} else if (labmodel_host_protected(lm, h->name)) {
		*role = ROLE_WARN;
		snprintf(buf + strlen(buf), len - strlen(buf), " %s protected",
		    ui_glyph("·", "-"));
		snprintf(why, whylen, "host '%s' is protected: jobs run there "
		    "only from a console started with --write %s", h->name,
		    h->name);
	}
}

static void
fill_hosts(struct pick *p)
{
	const struct lab *lab = labmodel_lab(app_labmodel(p->app));
	char state[384], why[512];
	size_t i;
	int role;

	for (i = 0; i < lab->nhosts; i++) {
		host_state(p->app, &lab->hosts[i], state, sizeof state, why,
		    sizeof why, &role);
		picker_add(&p->picker, lab->hosts[i].name, role,
		    why[0] != '\0' ? why : NULL, "%s", state);
		if (strcmp(lab->hosts[i].name, p->def_host) == 0)
			picker_default(&p->picker);
	}
}

/* A chip's row: "idle", or the jobs running on it with their ids. */
static void
add_chip(struct pick *p, int chip)
{
	const struct ljob *js[PICK_ON_CHIP];
	char name[32], state[512];
	size_t i, n;
	int off = 0;

	n = labmodel_jobs_on_chip(app_labmodel(p->app), p->host, chip, js,
	    nitems(js));
	state[0] = '\0';
	for (i = 0; i < n && i < nitems(js); i++)
		off += snprintf(state + off, sizeof state - (size_t)off,
		    "%s%s (job %s)", i > 0 ? ", " : "", js[i]->label,
		    js[i]->id != NULL ? js[i]->id : "starting");
	if (n > nitems(js))
		snprintf(state + off, sizeof state - (size_t)off, " and %zu "
		    "more", n - nitems(js));
	snprintf(name, sizeof name, "chip %d", chip);
	picker_add(&p->picker, name, n > 0 ? ROLE_RUNNING : ROLE_PASS, NULL,
	    "%s%s", n > 0 ? "busy: " : "idle", state);
	if (chip == p->def_chip)
		picker_default(&p->picker);
}

static void
fill_chips(struct pick *p)
{
	const struct lab_host *h = lab_host(labmodel_lab(app_labmodel(p->app)),
	    p->host);
	char text[256];
	size_t i;

	if (h == NULL)
		return;
	if (p->all) {
		labcmd_chips_text(h->chips, h->nchips, text, sizeof text);
		picker_add(&p->picker, "all chips", ROLE_NORMAL, NULL,
		    "%s", h->nchips > 0 ? text : "0");
		if (p->def_chip < 0)
			picker_default(&p->picker);
	}
	for (i = 0; i < h->nchips; i++)
		add_chip(p, h->chips[i]);
	if (h->nchips == 0)
		add_chip(p, 0);		/* as the runner is given it */
}

static void
fill(struct pick *p)
{
	picker_clear(&p->picker);
	if (p->chips)
		fill_chips(p);
	else
		fill_hosts(p);
	picker_done(&p->picker);
}

/* The chip a row of the chip list stands for: -1 for "all chips". */
static int
row_chip(const struct pick *p, size_t i)
{
	const struct lab_host *h = lab_host(labmodel_lab(app_labmodel(p->app)),
	    p->host);

	if (p->all && i-- == 0)
		return -1;
	return h != NULL && i < h->nchips ? h->chips[i] : 0;
}

static void *
pick_open(struct app *a, const void *arg)
{
	const struct pick_req *req = arg;
	struct pick *p = xcalloc(1, sizeof *p);

	p->app = a;
	p->chips = req->chips;
	p->all = req->all;
	p->fn = req->fn;
	p->arg = req->arg;
	p->def_chip = req->chip;
	snprintf(p->what, sizeof p->what, "%s", req->what);
	if (req->chips)
		snprintf(p->host, sizeof p->host, "%s", req->host);
	else if (req->host != NULL)
		snprintf(p->def_host, sizeof p->def_host, "%s", req->host);
	fill(p);
	return p;
}

/* Closed unanswered (Esc, q, another tab): the asker hears so. */
static void
pick_close(void *data)
{
	struct pick *p = data;

	if (!p->told && p->fn != NULL)
		p->fn(p->app, NULL, -1, p->arg);
	picker_release(&p->picker);
	free(p);
}

static void
pick_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct pick *p = data;
	int y = top;

	(void)a;
	fill(p);
	ui_fill(stdscr, y, 0, ROLE_HEADER);
	/* Through the sanitiser: the host is the lab file's. */
	if (p->chips) {
		char q[384];

		snprintf(q, sizeof q, "Run %s on which chip of %s?", p->what,
		    p->host);
		ui_put(stdscr, y++, 1, cols - 2, ROLE_HEADER, q, false);
	} else
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_HEADER, "Run %s on "
		    "which host?", p->what);
	if (y < top + rows)
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_DIM, "Up/Down move, "
		    "Enter or a double click chooses, Esc cancels; the "
		    "confirmation comes next");
	y++;
	if (y < top + rows)
		picker_draw(&p->picker, y, top + rows - y, 0, cols);
}

/* Take the selection: the screen closes, then the asker is told. */
static int
choose(struct app *a, struct pick *p, enum picker_result r)
{
	const struct picker_item *it = picker_selected(&p->picker);
	pick_fn fn = p->fn;
	void *arg = p->arg;
	char host[128];
	int chip = -1;

	if (r == PICKER_CANCEL)
		return R_POP;
	if (r == PICKER_REFUSED && it != NULL) {
		app_message(a, true, "%s", it->refused);
		return R_REDRAW;
	}
	if (r != PICKER_CHOSEN || it == NULL)
		return r == PICKER_NONE ? R_NONE : R_REDRAW;
	if (p->chips) {
		snprintf(host, sizeof host, "%s", p->host);
		chip = row_chip(p, picker_index(&p->picker));
	} else
		snprintf(host, sizeof host, "%s", it->name);
	p->told = true;
	app_close(a, p);
	fn(a, host, chip, arg);
	return R_REDRAW;
}

static int
pick_action(struct app *a, void *data, enum action act)
{
	struct pick *p = data;

	return choose(a, p, picker_action(&p->picker, act));
}

static int
pick_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct pick *p = data;

	return choose(a, p, picker_click(&p->picker, y, x, twice));
}

static void
pick_status(struct app *a, void *data, char *buf, size_t len)
{
	struct pick *p = data;
	const struct picker_item *it = picker_selected(&p->picker);

	(void)a;
	/* Through the sanitiser when drawn: a host's name. */
	if (it != NULL)
		snprintf(buf, len, "Enter: choose %s  Esc: cancel", it->name);
	else
		snprintf(buf, len, "Esc: cancel");
}

const struct view_ops pick_view = {
	.title = "Pick",
	.open = pick_open,
	.close = pick_close,
	.draw = pick_draw,
	.action = pick_action,
	.click = pick_click,
	.status = pick_status,
};

void
pick_host(struct app *a, const char *what, const char *def, pick_fn fn,
    void *arg)
{
	const struct lab *lab = labmodel_lab(app_labmodel(a));
	struct pick_req req = { false, false, what, def, -1, fn, arg };

	if (lab->nhosts == 1 && labmodel_host_usable(app_labmodel(a),
	    lab->hosts[0].name) && !labmodel_host_protected(app_labmodel(a),
	    lab->hosts[0].name)) {
		fn(a, lab->hosts[0].name, -1, arg);
		return;
	}
	app_push(a, &pick_view, &req);
}

void
pick_chip(struct app *a, const char *what, const char *host, int def,
    bool all, pick_fn fn, void *arg)
{
	const struct lab_host *h = lab_host(labmodel_lab(app_labmodel(a)),
	    host);
	struct pick_req req = { true, all, what, host, def, fn, arg };

	if (h == NULL) {
		app_message(a, true, "no host '%.64s' in the lab file", host);
		return;
	}
	if (h->nchips <= 1) {
		fn(a, host, all ? -1 : h->nchips > 0 ? h->chips[0] : 0, arg);
		return;
	}
	app_push(a, &pick_view, &req);
}

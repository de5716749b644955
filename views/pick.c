/*
 * pick.c: which host, or which chip, a job runs on (pick.h): a screen over
 * the picker of views/core/picker.h, its rows made again from the lab
 * model at every draw, so that a host coming up or a job starting on a
 * chip shows while the operator chooses.  For a soak, any of the chips:
 * each row marked or not, Space toggling the selected one ("all chips"
 * every one), Enter taking those marked.
 */
#include "calops.h"

#include "lab/labmodel.h"
#include "remote/transport.h"
#include "views/app/app.h"
#include "views/core/picker.h"
#include "views/core/ui.h"
#include "views/pick.h"

#define PICK_ON_CHIP	4	/* running jobs named on a chip's row */
#define PICK_CHIPS_MAX	256	/* chips a multiple choice takes */

struct pick {
	struct app	*app;
	bool		 chips;		/* a chip of host, not a host */
	bool		 multi;		/* any of its chips, marked */
	bool		 view;		/* a host to show, not to run on */
	bool		*marked;	/* multi: by the host's chip index */
	size_t		 nmarked;	/* the host's chips (1 with none) */
	char		 host[128];	/* the chips' host */
	char		 what[160];
	char		 def_host[128];
	int		 def_chip;
	struct picker	 picker;
	pick_fn		 fn;
	pick_chips_fn	 mfn;		/* multi's */
	void		*arg;
	bool		 told;		/* fn was called */
};

/* What pick_host(), pick_host_view(), pick_chip() and pick_chips() push. */
struct pick_req {
	bool		 chips, multi, view;
	const char	*what, *host;
	int		 chip;
	pick_fn		 fn;
	pick_chips_fn	 mfn;
	void		*arg;
};

/* A host's state in words into buf, and why jobs cannot run there into
 * why ("" when they can). */
static void
host_state(struct app *a, const struct lab_host *h, bool view, char *buf,
    size_t len, char *why, size_t whylen, int *role)
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
		/* Shown, it is only looked at. */
		if (!view)
			snprintf(why, whylen, "host '%s' is protected: jobs run "
			    "there only from a console started with --write "
			    "%s", h->name, h->name);
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
		host_state(p->app, &lab->hosts[i], p->view, state,
		    sizeof state, why, sizeof why, &role);
		picker_add(&p->picker, lab->hosts[i].name, role,
		    why[0] != '\0' ? why : NULL, "%s", state);
		if (strcmp(lab->hosts[i].name, p->def_host) == 0)
			picker_default(&p->picker);
	}
}

/* "[x] " for a marked chip of a multiple choice, "[ ] " for one not,
 * "" for one choice. */
static const char *
mark_text(const struct pick *p, size_t i)
{
	if (!p->multi)
		return "";
	return i < p->nmarked && p->marked[i] ? "[x] " : "[ ] ";
}

/* A chip's row (the host's i-th): "idle", or the jobs running on it with
 * their ids. */
static void
add_chip(struct pick *p, size_t idx, int chip)
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
	    "%s%s%s", mark_text(p, idx), n > 0 ? "busy: " : "idle", state);
	if (chip == p->def_chip)
		picker_default(&p->picker);
}

static void
fill_chips(struct pick *p)
{
	const struct lab_host *h = lab_host(labmodel_lab(app_labmodel(p->app)),
	    p->host);
	char text[256];
	size_t i, n = 0;

	if (h == NULL)
		return;
	if (p->multi) {
		for (i = 0; i < p->nmarked; i++)
			n += p->marked[i];
		labcmd_chips_text(h->chips, h->nchips, text, sizeof text);
		picker_add(&p->picker, "all chips", ROLE_NORMAL, NULL,
		    "%s %s (Space: every one, or none)", n == p->nmarked ?
		    "[x]" : n == 0 ? "[ ]" : "[-]", h->nchips > 0 ? text :
		    "0");
	}
	for (i = 0; i < h->nchips; i++)
		add_chip(p, i, h->chips[i]);
	if (h->nchips == 0)
		add_chip(p, 0, 0);	/* as the runner is given it */
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

/* The host's chip at index i (chip 0 on a host that names none). */
static int
chip_at(const struct pick *p, size_t i)
{
	const struct lab_host *h = lab_host(labmodel_lab(app_labmodel(p->app)),
	    p->host);

	return h != NULL && i < h->nchips ? h->chips[i] : 0;
}

/* The host's chip index of a row of the chip list: SIZE_MAX for "all
 * chips". */
static size_t
row_index(const struct pick *p, size_t row)
{
	if (p->multi && row-- == 0)
		return SIZE_MAX;
	return row;
}

/* Space: the selected chip marked or not; on "all chips", every one, or
 * none when every one was. */
static void
toggle(struct pick *p)
{
	size_t i, k = row_index(p, picker_index(&p->picker)), n = 0;

	if (picker_selected(&p->picker) == NULL)
		return;
	if (k < p->nmarked) {
		p->marked[k] = !p->marked[k];
		return;
	}
	for (i = 0; i < p->nmarked; i++)
		n += p->marked[i];
	for (i = 0; i < p->nmarked; i++)
		p->marked[i] = n < p->nmarked;
}

static void *
pick_open(struct app *a, const void *arg)
{
	const struct pick_req *req = arg;
	struct pick *p = xcalloc(1, sizeof *p);

	const struct lab_host *h;
	size_t i;

	p->app = a;
	p->chips = req->chips;
	p->multi = req->multi;
	p->view = req->view;
	p->fn = req->fn;
	p->mfn = req->mfn;
	p->arg = req->arg;
	p->def_chip = req->chip;
	snprintf(p->what, sizeof p->what, "%s", req->what);
	if (req->chips)
		snprintf(p->host, sizeof p->host, "%s", req->host);
	else if (req->host != NULL)
		snprintf(p->def_host, sizeof p->def_host, "%s", req->host);
	if (p->multi) {
		/* Every chip marked first, as a soak has always taken. */
		h = lab_host(labmodel_lab(app_labmodel(a)), p->host);
		p->nmarked = h != NULL && h->nchips > 0 ? h->nchips : 1;
		p->marked = xcalloc(p->nmarked, sizeof *p->marked);
		for (i = 0; i < p->nmarked; i++)
			p->marked[i] = true;
	}
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
	if (!p->told && p->mfn != NULL)
		p->mfn(p->app, NULL, NULL, 0, p->arg);
	picker_release(&p->picker);
	free(p->marked);
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

		snprintf(q, sizeof q, "Run %s on which chip%s of %s?", p->what,
		    p->multi ? "s" : "", p->host);
		ui_put(stdscr, y++, 1, cols - 2, ROLE_HEADER, q, false);
	} else
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_HEADER, p->view ?
		    "Show %s of which host?" : "Run %s on which host?",
		    p->what);
	if (y < top + rows && p->multi)
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_DIM, "Up/Down move, "
		    "Space marks or unmarks, Enter takes the chips marked, "
		    "Esc cancels; the confirmation comes next");
	else if (y < top + rows)
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_DIM, "Up/Down move, "
		    "Enter or a double click chooses, Esc cancels%s",
		    p->view ? "" : "; the confirmation comes next");
	y++;
	if (y < top + rows)
		picker_draw(&p->picker, y, top + rows - y, 0, cols);
}

/* Multi: take the chips marked (none: said); the screen closes, then the
 * asker is told. */
static int
choose_marked(struct app *a, struct pick *p)
{
	pick_chips_fn fn = p->mfn;
	void *arg = p->arg;
	int chips[PICK_CHIPS_MAX];
	char host[128];
	size_t i, n = 0;

	for (i = 0; i < p->nmarked && n < nitems(chips); i++)
		if (p->marked[i])
			chips[n++] = chip_at(p, i);
	if (n == 0) {
		app_message(a, true, "no chip marked: Space marks the one "
		    "selected");
		return R_REDRAW;
	}
	snprintf(host, sizeof host, "%s", p->host);
	p->told = true;
	app_close(a, p);
	fn(a, host, chips, n, arg);
	return R_REDRAW;
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
	if (p->multi)
		return choose_marked(a, p);
	if (p->chips) {
		snprintf(host, sizeof host, "%s", p->host);
		chip = chip_at(p, picker_index(&p->picker));
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

	if (act == ACT_MARK && p->multi) {
		toggle(p);
		return R_REDRAW;
	}
	if (act == ACT_MARK)	/* Space, as on every other screen */
		act = ACT_PAGE_DOWN;
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
	if (p->multi)
		snprintf(buf, len, "Space: mark %s  Enter: the chips marked  "
		    "Esc: cancel", it != NULL ? it->name : "");
	else if (it != NULL)
		snprintf(buf, len, "Enter: choose %s  Esc: cancel", it->name);
	else
		snprintf(buf, len, "Esc: cancel");
}

static const struct keybinding pick_keys[] = {
	{ ' ', ACT_MARK, "Space" },
	{ 0, ACT_NONE, NULL },
};

const struct view_ops pick_view = {
	.title = "Pick",
	.keys = pick_keys,
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
	struct pick_req req = { .what = what, .host = def, .chip = -1,
	    .fn = fn, .arg = arg };

	if (lab->nhosts == 1 && labmodel_host_usable(app_labmodel(a),
	    lab->hosts[0].name) && !labmodel_host_protected(app_labmodel(a),
	    lab->hosts[0].name)) {
		fn(a, lab->hosts[0].name, -1, arg);
		return;
	}
	app_push(a, &pick_view, &req);
}

void
pick_host_view(struct app *a, const char *what, const char *def,
    pick_fn fn, void *arg)
{
	struct pick_req req = { .view = true, .what = what, .host = def,
	    .chip = -1, .fn = fn, .arg = arg };

	app_push(a, &pick_view, &req);
}

void
pick_chip(struct app *a, const char *what, const char *host, int def,
    pick_fn fn, void *arg)
{
	const struct lab_host *h = lab_host(labmodel_lab(app_labmodel(a)),
	    host);
	struct pick_req req = { .chips = true, .what = what, .host = host,
	    .chip = def, .fn = fn, .arg = arg };

	if (h == NULL) {
		app_message(a, true, "no host '%.64s' in the lab file", host);
		return;
	}
	if (h->nchips <= 1) {
		fn(a, host, h->nchips > 0 ? h->chips[0] : 0, arg);
		return;
	}
	app_push(a, &pick_view, &req);
}

void
pick_chips(struct app *a, const char *what, const char *host,
    pick_chips_fn fn, void *arg)
{
	const struct lab_host *h = lab_host(labmodel_lab(app_labmodel(a)),
	    host);
	struct pick_req req = { .chips = true, .multi = true, .what = what,
	    .host = host, .chip = -1, .mfn = fn, .arg = arg };
	int only;

	if (h == NULL) {
		app_message(a, true, "no host '%.64s' in the lab file", host);
		return;
	}
	if (h->nchips <= 1) {
		only = h->nchips > 0 ? h->chips[0] : 0;
		fn(a, host, &only, 1, arg);
		return;
	}
	app_push(a, &pick_view, &req);
}

int
pick_idle_chip(struct app *a, const char *host)
{
	const struct lab_host *h = lab_host(labmodel_lab(app_labmodel(a)),
	    host);
	const struct ljob *js[1];
	size_t i;

	for (i = 0; h != NULL && i < h->nchips; i++)
		if (labmodel_jobs_on_chip(app_labmodel(a), host, h->chips[i],
		    js, nitems(js)) == 0)
			return h->chips[i];
	return h != NULL && h->nchips > 0 ? h->chips[0] : 0;
}

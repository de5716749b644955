/*
 * faults.c: the fault scenarios of runbook §11.3 on the chips of one host
 * (README.md, the Faults screen).  A grid of the eight scenarios × the
 * host's chips, each cell the latest result (or the job running it), the
 * chips folded per scenario beside it (faultfold.h); below, the selected
 * cell: its exact command, the live jobs a trigger would disturb and
 * every past result; and the action log (actionpane.h), which A shows or
 * hides.
 *
 * t (or Enter) triggers the selected scenario on a chip picked from the
 * host's (pick.h; the selected one first) once the chip id has been typed
 * in the status bar (with a running job on that chip, its id or the word
 * disturb: confirm.h's rule); anything else cancels, and --readonly
 * refuses.  H picks the host shown (pick.h, with the states of every
 * host; the one shown first).
 *
 * Where the cells come from (lab.md, "Where each screen's truth comes
 * from"): the host's own result files, 06-runtime/faults/<S>.json in its
 * workspace (faultfiles.h: the newest result of each scenario there,
 * whoever ran it), each matched to the job of the host that wrote it (who
 * started it, when it ended, how): one of the host's fault and G7 jobs the
 * lab model's poll keeps (labpoll_fault_jobs: its newest
 * LABPOLL_FAULT_JOBS, whatever their age); where a file has no word for a
 * chip, the results this console followed as events.  A file its job
 * contradicts is shown as such (≠), never as passed.  The files are read
 * when the screen opens, on R, on H, and every FAULTS_POLL_MS while it is
 * on top; the lab model's changes (a job's end among them) redraw it.
 */
#include "calops.h"

#include <math.h>

#include "base/buf.h"
#include "base/text.h"
#include "model/faultfiles.h"
#include "model/faultfold.h"
#include "lab/labpoll.h"
#include "proto/scenario.h"
#include "views/actionpane.h"
#include "views/app/app.h"
#include "views/confirm.h"
#include "views/core/cmdline.h"
#include "views/core/ui.h"
#include "views/labrun.h"
#include "views/pick.h"

#define NAME_W		16	/* the scenario column */
#define CELL_LONG	18	/* "✔ recovered 5.0s" and a gap */
#define CELL_SHORT	11	/* "✔ 5.0s" and a gap */
#define SUMMARY_MIN	16	/* the folded line beside the grid, if room */
#define GRID_ROWS	(2 + SCENARIO_COUNT)
#define DISTURB_MAX	8	/* live jobs named in the warning */
#define FAULTS_POLL_MS	5000	/* the host's files read again */

struct faults_view {
	struct app		*app;
	size_t			 host;		/* index into the lab's hosts */
	int			*chips;		/* the host's chips */
	size_t			 nchips;
	struct fold_state	*cells;		/* [scenario * nchips + chip] */
	struct fold_src		 src;		/* the model's, as last drawn */
	struct faultfiles	*files;		/* the host's result files */
	long			 timer;
	size_t			 sc, ch;	/* the selected cell */
	size_t			 ch_first;	/* the first chip shown */
	size_t			 hist_top;	/* history rows scrolled past */
	int			 nvis;		/* chip columns shown */
	/* the first scenario row drawn */
	int			 grid_y;
	int			 cell_w;	/* a chip column's width */
	struct actionpane	 actions;
	bool			 asking;	/* a trigger awaits the id */
	bool			 weighed;	/* the question asked for a
						   running job's id */
	struct {
		char	 host[128];
		int	 chip;
		size_t	 sc;
	} trig;
};

static const char *
host_name(struct faults_view *v)
{
	const struct lab *lab = labmodel_lab(app_labmodel(v->app));

	return v->host < lab->nhosts ? lab->hosts[v->host].name : "";
}

/* What triggering the selected cell would start. */
static void
cell_spec(struct faults_view *v, struct ljob_spec *spec)
{
	memset(spec, 0, sizeof *spec);
	spec->host = host_name(v);
	spec->workspace = labrun_workspace(v->app, spec->host);
	spec->kind = LJOB_FAULT;
	spec->chip = v->chips[v->ch];
	spec->scenario = scenario_table[v->sc].name;
}

/* Show host i: its chips (chip 0 when the lab file names none). */
static void
set_host(struct faults_view *v, size_t i)
{
	const struct lab *lab = labmodel_lab(app_labmodel(v->app));
	const struct lab_host *h = i < lab->nhosts ? &lab->hosts[i] : NULL;

	v->host = i;
	free(v->chips);
	v->nchips = h != NULL && h->nchips > 0 ? h->nchips : 1;
	v->chips = xcalloc(v->nchips, sizeof *v->chips);
	if (h != NULL && h->nchips > 0)
		memcpy(v->chips, h->chips, h->nchips * sizeof *v->chips);
	v->cells = xreallocarray(v->cells, SCENARIO_COUNT * v->nchips,
	    sizeof *v->cells);
	v->ch = v->ch_first = v->hist_top = 0;
}

/* Read the shown host's result files again. */
static void
load(struct faults_view *v)
{
	const char *ws = labmodel_host_workspace(app_labmodel(v->app),
	    host_name(v), labrun_workspace(v->app, host_name(v)));

	if (ws != NULL && faultfiles_pending(v->files) == 0)
		faultfiles_load(v->files, host_name(v), ws);
}

static struct fold_state *
cell_at(struct faults_view *v, size_t s, size_t c)
{
	return &v->cells[s * v->nchips + c];
}

/* The host's result files, each with the job that wrote it (among the
 * host's fault jobs the lab model keeps), for the grid. */
static void
files_src(struct faults_view *v)
{
	const char *ws = faultfiles_ws(v->files);
	json_t *const *records;
	struct fold_file *f;
	size_t i, n, nr;

	v->src.files = NULL;
	v->src.nfiles = 0;
	if (faultfiles_host(v->files) == NULL ||
	    strcmp(faultfiles_host(v->files), host_name(v)) != 0)
		return;
	records = labpoll_fault_jobs(app_labmodel(v->app), host_name(v), &nr);
	f = faultfiles_files(v->files, &n);
	for (i = 0; i < n; i++)
		faultfold_file_job(&f[i], ws, records, nr);
	v->src.files = f;
	v->src.nfiles = n;
}

/* Every cell from the model and the host's files (their pointers live
 * until the next callbacks, so this runs before each use). */
static void
compute(struct faults_view *v)
{
	faultfold_src_load(&v->src, app_labmodel(v->app));
	files_src(v);
	faultfold_grid(&v->src, host_name(v), v->chips, v->nchips, v->cells);
}

/* The glyph and role of an outcome (never colour alone). */
static const char *
outcome_glyph(enum fold_outcome o, enum role *r)
{
	static const struct {
		const char	*utf8, *ascii;
		enum role	 role;
	} t[] = {
		{ "·", "-", ROLE_DIM }, { "▷", ">", ROLE_PENDING },
		{ "▶", ">", ROLE_RUNNING }, { "✔", "+", ROLE_PASS },
	};

	*r = o < nitems(t) ? t[o].role : ROLE_FAIL;
	if (o == FO_DISAGREES)
		return ui_glyph("≠", "!");
	return o < nitems(t) ? ui_glyph(t[o].utf8, t[o].ascii) :
	    ui_glyph("✘", "x");
}

/* A cell: its glyph and words ("✔ recovered 5.0s", "✘ exit 1"). */
static void
cell_text(const struct fold_state *c, bool lng, char *buf, size_t len,
    enum role *r)
{
	const char *g = outcome_glyph(c->o, r);
	char w[64];

	snprintf(buf, len, "%s %s", g, faultfold_cell_words(c, lng, w,
	    sizeof w));
}

/* The folded line of scenario s into buf. */
static void
fold_line(struct faults_view *v, size_t s, char *buf, size_t len)
{
	char sep[8];

	snprintf(sep, sizeof sep, " %s ", ui_glyph("·", "|"));
	faultfold_format_row(cell_at(v, s, 0), v->chips, v->nchips, sep, buf,
	    len);
}

static void
draw_grid(struct faults_view *v, int top, int cols)
{
	int avail = cols - 1 - NAME_W, x, sw, k, cw;
	bool lng = (int)v->nchips * CELL_LONG + SUMMARY_MIN <= avail;
	char buf[512], chips[256];
	const char *ws;
	enum role r;
	size_t s, c;

	cw = lng ? CELL_LONG : CELL_SHORT;
	v->grid_y = top + 2;
	v->cell_w = cw;
	v->nvis = avail / cw < 1 ? 1 : avail / cw;
	if (v->nvis > (int)v->nchips)
		v->nvis = (int)v->nchips;
	if (v->ch < v->ch_first)
		v->ch_first = v->ch;
	if (v->ch >= v->ch_first + (size_t)v->nvis)
		v->ch_first = v->ch - (size_t)v->nvis + 1;
	sw = avail - v->nvis * cw;
	faultfold_ranges(v->chips, v->nchips, chips, sizeof chips);
	ws = labmodel_host_workspace(app_labmodel(v->app), host_name(v),
	    labrun_workspace(v->app, host_name(v)));
	snprintf(buf, sizeof buf, "host %s %s chips %s %s %s", host_name(v),
	    ui_glyph("·", "-"), chips, ui_glyph("·", "-"), ws != NULL ? ws :
	    "no workspace on this host");
	ui_put(stdscr, top, 1, cols - 2, ROLE_NORMAL, buf, true);
	ui_fill(stdscr, top + 1, 0, ROLE_HEADER);
	ui_putf(stdscr, top + 1, 1, NAME_W - 1, ROLE_HEADER, "SCENARIO");
	for (k = 0; k < v->nvis; k++)
		ui_putf(stdscr, top + 1, 1 + NAME_W + k * cw,
		    cw - 1, ROLE_HEADER, "chip %d",
		    v->chips[v->ch_first + (size_t)k]);
	if (sw >= SUMMARY_MIN)
		ui_putf(stdscr, top + 1, 1 + NAME_W + v->nvis * cw,
		    sw - 1, ROLE_HEADER, "ALL CHIPS%s", v->nvis <
		    (int)v->nchips ? " (scroll: Left/Right)" : "");
	for (s = 0; s < SCENARIO_COUNT; s++) {
		ui_putf(stdscr, top + 2 + (int)s, 1, NAME_W - 1, s == v->sc ?
		    ROLE_KEY : ROLE_NORMAL, "%s", scenario_table[s].name);
		for (k = 0; k < v->nvis; k++) {
			c = v->ch_first + (size_t)k;
			cell_text(cell_at(v, s, c), lng, buf, sizeof buf, &r);
			x = 1 + NAME_W + k * cw;
			ui_put(stdscr, top + 2 + (int)s, x, cw - 1,
			    s == v->sc && c == v->ch ? ROLE_SELECTION : r, buf,
			    true);
		}
		if (sw < SUMMARY_MIN)
			continue;
		fold_line(v, s, buf, sizeof buf);
		ui_put(stdscr, top + 2 + (int)s, 1 + NAME_W + v->nvis *
		    cw, sw - 1, ROLE_DIM, buf, false);
	}
}

/* "this would disturb soak 24h · chips 0-3 (job …)" into buf, or "". */
static void
disturb_text(struct faults_view *v, int chip, char *buf, size_t len)
{
	const struct ljob *js[DISTURB_MAX];
	size_t n, i, off;

	buf[0] = '\0';
	n = labmodel_jobs_on_chip(app_labmodel(v->app), host_name(v), chip, js,
	    nitems(js));
	if (n == 0)
		return;
	off = (size_t)snprintf(buf, len, "this would disturb");
	for (i = 0; i < n && i < nitems(js) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s %s (job %s)",
		    i > 0 ? ";" : "", js[i]->label, js[i]->id != NULL ?
		    js[i]->id : "starting");
	if (n > nitems(js) && off < len)
		snprintf(buf + off, len - off, " and %zu more",
		    n - nitems(js));
}

/* What a trigger on chip must be answered with while jobs run there
 * (confirm.h), into buf; how many jobs those are. */
static size_t
disturb_want(struct faults_view *v, int chip, char *buf, size_t len)
{
	const struct ljob *js[DISTURB_MAX];
	size_t n;

	n = labmodel_jobs_on_chip(app_labmodel(v->app), host_name(v), chip, js,
	    nitems(js));
	if (n > 0)
		confirm_disturb_want(js, n > nitems(js) ? nitems(js) : n, buf,
		    len);
	return n;
}

/* Whether answer triggers on the chip as things stand now: with jobs
 * running there, their id or "disturb"; with none, the chip id (or
 * "disturb", when that is what was asked).  Why not into why. */
static bool
trigger_ok(struct faults_view *v, const char *answer, char *why, size_t len)
{
	const struct ljob *js[DISTURB_MAX];
	char id[16];
	size_t n;

	n = labmodel_jobs_on_chip(app_labmodel(v->app), v->trig.host,
	    v->trig.chip, js, nitems(js));
	if (n > 0)
		return confirm_disturb_ok(js, n > nitems(js) ? nitems(js) : n,
		    answer, why, len);
	snprintf(id, sizeof id, "%d", v->trig.chip);
	if (answer != NULL && (strcmp(answer, id) == 0 ||
	    (v->weighed && strcmp(answer, "disturb") == 0)))
		return true;
	snprintf(why, len, "'%s' is not the chip id %d", answer != NULL ?
	    answer : "", v->trig.chip);
	return false;
}

/* One line of the history: a result, or what a job that left none did. */
static void
hist_line(const struct fold_entry *h, char *buf, size_t len, enum role *r)
{
	const struct lfault *f = h->f;
	enum fold_outcome o;
	char when[32], t[32];

	if (f == NULL) {
		actionpane_when(h->j->started, when, sizeof when);
		o = labmodel_job_live(h->j) ? FO_RUNNING : FO_NO_RESULT;
		snprintf(buf, len, "%s %s %-16s %-36s job %s", when,
		    outcome_glyph(o, r), labmodel_job_state_name(h->j->state),
		    o == FO_RUNNING ? "" : h->j->err[0] != '\0' ? h->j->err :
		    "no result", h->j->id != NULL ? h->j->id : "-");
		if (h->j->state == LJ_BROKEN)
			*r = ROLE_ERROR;
		return;
	}
	actionpane_when(f->ts, when, sizeof when);
	o = faultfold_classify(f->scenario, f->structured, f->error_code,
	    f->aborted, f->recovered);
	faultfold_ms(f->recover_ms, t, sizeof t);
	snprintf(buf, len, "%s %s %-16s %-22s %-13s %6s  job %s", when,
	    outcome_glyph(o, r), faultfold_word(o), f->structured ?
	    f->error_code : "(unstructured)", f->aborted ? "aborted" :
	    f->recovered ? "recovered" : "not recovered", t, f->job);
}

/* When, on the host's clock, into buf ("-" when not said). */
static void
host_when(double t, char *buf, size_t len)
{
	if (isnan(t))
		snprintf(buf, len, "-");
	else
		actionpane_when(t, buf, len);
}

/* Why the selected cell has no file: the file is another chip's, or there
 * is none (or it cannot be read), into buf. */
static void
no_file_line(struct faults_view *v, char *buf, size_t len)
{
	const char *sc = scenario_table[v->sc].name;
	size_t i;

	for (i = 0; i < v->src.nfiles; i++)
		if (strcmp(v->src.files[i].r.scenario, sc) == 0) {
			snprintf(buf, len, "06-runtime/faults/%s.json is chip "
			    "%d's, the newest result there", sc,
			    v->src.files[i].r.chip);
			return;
		}
	snprintf(buf, len, "06-runtime/faults/%s.json: %s", sc,
	    faultfiles_why(v->files, v->sc));
}

/* What the host's result file says of the selected cell, with the job that
 * wrote it (who, how it ended, when), or why there is none. */
static void
file_line(struct faults_view *v, const struct fold_state *c, char *buf,
    size_t len, enum role *r)
{
	const struct fold_file *f = c->file;
	enum fold_outcome o;
	char when[32], t[32], code[24] = "";
	bool dis;

	*r = ROLE_DIM;
	if (f == NULL) {
		no_file_line(v, buf, len);
		return;
	}
	o = faultfold_classify(f->r.scenario, f->r.structured, f->r.error_code,
	    f->r.aborted, f->r.recovered);
	dis = faultfold_file_disagrees(f);
	faultfold_ms(f->r.recover_ms, t, sizeof t);
	host_when(isnan(f->ended) ? f->started : f->ended, when, sizeof when);
	if (f->exit_code >= 0)
		snprintf(code, sizeof code, " exit %d", f->exit_code);
	snprintf(buf, len, "%s %s%s%s %s; job %s by %s, %s%s at %s%s",
	    outcome_glyph(dis ? FO_DISAGREES : o, r), faultfold_word(o),
	    o == FO_RECOVERED ? " in " : "", o == FO_RECOVERED ? t : "",
	    f->r.structured ? f->r.error_code : "(unstructured)", f->job[0] != '\0' ? f->job :
	    "(not in its job list)", f->actor[0] != '\0' ? f->actor :
	    "(not said)", f->state[0] != '\0' ? f->state : "?", code, when,
	    dis ? ": the job and its result disagree" : "");
}

/* The exact command a trigger of the selected cell runs, or why none can. */
static void
cell_command(struct faults_view *v, const struct ljob_spec *spec, char *buf,
    size_t len)
{
	char err[256];

	if (labmodel_command(app_labmodel(v->app), spec, buf, len, err,
	    sizeof err) != 0)
		snprintf(buf, len, "cannot run here: %s", err);
}

/* The rows the detail cannot do without: its header, the command whole,
 * the chips, the job it would disturb, the question and the history's
 * heading.  The action log gives way to them. */
static int
detail_need(struct faults_view *v, int cols)
{
	struct ljob_spec spec;
	char buf[4096], disturb[512];

	cell_spec(v, &spec);
	cell_command(v, &spec, buf, sizeof buf);
	disturb_text(v, spec.chip, disturb, sizeof disturb);
	return 1 + cmdline_draw(0, INT_MAX, 10, cols - 11, ROLE_NORMAL, buf,
	    false) + 1 + (disturb[0] != '\0') + v->asking + 2;
}

/* The selected cell: what a trigger runs, what it disturbs, its past. */
static void
draw_detail(struct faults_view *v, int top, int rows, int cols)
{
	struct ljob_spec spec;
	const char *want = faultfold_expected_code(scenario_table[v->sc].name);
	char buf[4096], disturb[512];
	struct fold_entry *h;
	enum role r;
	size_t n, i;
	int y = top, end = top + rows, keep;

	cell_spec(v, &spec);
	ui_fill(stdscr, y, 0, ROLE_HEADER);
	snprintf(buf, sizeof buf, "%s on %s:%d %s expects %s", spec.scenario,
	    spec.host, spec.chip, ui_glyph("·", "-"), want != NULL ? want :
	    "?");
	ui_put(stdscr, y++, 1, cols - 2, ROLE_HEADER, buf, false);
	/* The command is what the operator approves: it takes every row it
	 * needs, short of the rows naming the chips, the job it would
	 * disturb and the question; only the history gives way. */
	disturb_text(v, spec.chip, disturb, sizeof disturb);
	keep = 1 + (disturb[0] != '\0') + v->asking;
	if (y < end) {
		cell_command(v, &spec, buf, sizeof buf);
		ui_putf(stdscr, y, 1, 9, ROLE_DIM, "command");
		y = cmdline_draw(y, end - y > keep ? end - keep : y + 1, 10,
		    cols - 11, v->asking ? ROLE_WARN : ROLE_NORMAL, buf, true);
	}
	if (y < end) {
		fold_line(v, v->sc, buf, sizeof buf);
		ui_putf(stdscr, y, 1, 9, ROLE_DIM, "chips");
		ui_put(stdscr, y++, 10, cols - 11, ROLE_NORMAL, buf, false);
	}
	if (y < end && disturb[0] != '\0') {
		ui_putf(stdscr, y, 1, 2, ROLE_WARN, "%s", ui_glyph("⚠", "!"));
		ui_put(stdscr, y++, 3, cols - 4, ROLE_WARN, disturb, false);
	}
	if (y < end && v->asking && disturb[0] != '\0') {
		disturb_want(v, v->trig.chip, buf, sizeof buf);
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_WARN, "to trigger it "
		    "anyway, type %s in the status bar", buf);
	} else if (y < end && v->asking) {
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_WARN, "type the chip id "
		    "(%d) in the status bar to trigger; anything else cancels",
		    v->trig.chip);
	}
	if (y < end) {
		file_line(v, cell_at(v, v->sc, v->ch), buf, sizeof buf, &r);
		ui_putf(stdscr, y, 1, 9, ROLE_DIM, "on host");
		ui_put(stdscr, y++, 10, cols - 11, r, buf, false);
	}
	h = faultfold_history(&v->src, spec.host, spec.scenario, spec.chip,
	    &n);
	if (y < end)
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_DIM, "history on chip "
		    "%d (%zu, newest first%s)", spec.chip, n, n > 0 ?
		    "; PgUp/PgDn scroll" : "");
	if (v->hist_top >= n)
		v->hist_top = n > 0 ? n - 1 : 0;
	for (i = v->hist_top; i < n && y < end; i++) {
		hist_line(&h[i], buf, sizeof buf, &r);
		ui_put(stdscr, y++, 2, cols - 3, r, buf, false);
	}
	if (n == 0 && y < end)
		ui_putf(stdscr, y, 2, cols - 3, ROLE_DIM, "never run on this "
		    "chip%s", app_readonly(v->app) ? "" : " (t triggers it)");
	free(h);
}

/* Every FAULTS_POLL_MS, only while on top: draw() arms it again. */
static void
tick(struct loop *l, void *arg)
{
	struct faults_view *v = arg;

	(void)l;
	v->timer = 0;
	if (app_on_top(v->app, v))
		load(v);
}

static void
faults_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct faults_view *v = data;
	int y = top + GRID_ROWS, left = rows - GRID_ROWS, act, need;

	v->app = a;
	if (v->timer == 0)
		v->timer = loop_add_timer(app_loop(a), FAULTS_POLL_MS, tick, v);
	compute(v);
	draw_grid(v, top, cols);
	if (left <= 0)
		return;
	act = actionpane_height(&v->actions, left);
	/* The action log gives way to what the operator approves; a log of
	 * fewer than three rows (its header and two) is not shown. */
	if (act > 0 && left - act < (need = detail_need(v, cols)))
		act = left - need >= 3 ? left - need : 0;
	draw_detail(v, y, left - act, cols);
	if (act > 0)
		actionpane_draw(&v->actions, y + left - act, act, cols);
}

static void
trigger_answer(struct app *a, const char *answer, void *arg)
{
	struct faults_view *v = arg;
	struct ljob_spec spec = { 0 };
	const struct ljob *j;
	const char *sc = scenario_table[v->trig.sc].name;
	char why[400], err[256];

	v->asking = false;
	if (!trigger_ok(v, answer, why, sizeof why)) {
		app_message(a, false, "trigger cancelled: %s", why);
		return;
	}
	spec.host = v->trig.host;
	spec.workspace = labrun_workspace(a, spec.host);
	spec.kind = LJOB_FAULT;
	spec.chip = v->trig.chip;
	spec.scenario = sc;
	if ((j = labmodel_start(app_labmodel(a), &spec, err,
	    sizeof err)) == NULL) {
		app_message(a, true, "cannot trigger %s on %s:%d: %s", sc,
		    v->trig.host, v->trig.chip, err);
		return;
	}
	app_message(a, false, "triggered %s on %s:%d: %s", sc, j->host,
	    v->trig.chip, j->command);
	actionpane_reload(&v->actions);
}

/* Ask for the chip id, after checking the trigger could run at all. */
static void
ask_trigger(struct app *a, struct faults_view *v)
{
	struct ljob_spec spec;
	char q[384], cmd[4096], err[256], want[160], *host;

	cell_spec(v, &spec);
	if (labmodel_transport(app_labmodel(a), spec.host, err,
	    sizeof err) == NULL ||
	    labmodel_command(app_labmodel(a), &spec, cmd, sizeof cmd, err,
	    sizeof err) != 0) {
		app_message(a, true, "cannot trigger %s here: %s",
		    spec.scenario, err);
		return;
	}
	snprintf(v->trig.host, sizeof v->trig.host, "%s", spec.host);
	v->trig.chip = spec.chip;
	v->trig.sc = v->sc;
	v->asking = true;
	/* The question is drawn as the program's own text: no raw host. */
	host = text_sanitize(spec.host, strlen(spec.host), 24);
	/* A running job it would disturb weighs more than an idle chip. */
	v->weighed = disturb_want(v, spec.chip, want, sizeof want) > 0;
	if (v->weighed)
		snprintf(q, sizeof q, "%s on %s:%d would disturb a running job: "
		    "type %s to trigger it anyway: ", spec.scenario, host,
		    spec.chip, want);
	else
		snprintf(q, sizeof q, "type the chip id (%d) to trigger %s on "
		    "%s:%d: ", spec.chip, spec.scenario, host, spec.chip);
	free(host);
	prompt_ask(a, q, trigger_answer, v);
}

/* The chip picked for the trigger: its column is selected, then the
 * chip id (or more) is asked. */
static void
chip_picked(struct app *a, const char *host, int chip, void *arg)
{
	struct faults_view *v = arg;
	size_t i;

	if (host == NULL || strcmp(host, host_name(v)) != 0)
		return;
	for (i = 0; i < v->nchips; i++)
		if (v->chips[i] == chip)
			v->ch = i;
	if (v->chips[v->ch] == chip)
		ask_trigger(a, v);
}

/* t: the chip picked (pick.h; the selected column's first), then asked
 * for as every trigger is. */
static int
trigger(struct app *a, struct faults_view *v)
{
	char what[96];

	if (app_readonly(a)) {
		app_message(a, true, "read-only: faults cannot be triggered");
		return R_REDRAW;
	}
	if (labmodel_start_refused(app_labmodel(a)) != NULL) {
		app_message(a, true, "%s", labmodel_start_refused(app_labmodel(a)));
		return R_REDRAW;
	}
	snprintf(what, sizeof what, "fault %s", scenario_table[v->sc].name);
	pick_chip(a, what, host_name(v), v->chips[v->ch], chip_picked, v);
	return R_REDRAW;
}

/* The host picked to be shown: its cells, files and jobs. */
static void
host_picked(struct app *a, const char *host, int chip, void *arg)
{
	struct faults_view *v = arg;
	const struct lab *lab = labmodel_lab(app_labmodel(a));
	size_t i;

	(void)chip;
	for (i = 0; host != NULL && i < lab->nhosts; i++)
		if (strcmp(lab->hosts[i].name, host) == 0 && i != v->host) {
			set_host(v, i);
			load(v);
		}
}

/* H: the host shown, picked from the lab's with their states (pick.h);
 * one that cannot run faults (no workspace, not reachable) is refused
 * there, saying why. */
static int
pick_shown(struct app *a, struct faults_view *v)
{
	pick_host_view(a, "the faults", host_name(v), host_picked, v);
	return R_REDRAW;
}

static int
faults_action(struct app *a, void *data, enum action act)
{
	struct faults_view *v = data;

	v->app = a;
	switch (act) {
	case ACT_UP:
	case ACT_DOWN:
		if (act == ACT_UP ? v->sc == 0 : v->sc + 1 == SCENARIO_COUNT)
			return R_NONE;
		v->sc = act == ACT_UP ? v->sc - 1 : v->sc + 1;
		v->hist_top = 0;
		return R_REDRAW;
	case ACT_LEFT:
	case ACT_RIGHT:
		if (act == ACT_LEFT ? v->ch == 0 : v->ch + 1 == v->nchips)
			return R_NONE;
		v->ch = act == ACT_LEFT ? v->ch - 1 : v->ch + 1;
		v->hist_top = 0;
		return R_REDRAW;
	case ACT_HOME:
	case ACT_END:
		v->sc = act == ACT_HOME ? 0 : SCENARIO_COUNT - 1;
		v->hist_top = 0;
		return R_REDRAW;
	case ACT_PAGE_UP:
		v->hist_top = v->hist_top > 5 ? v->hist_top - 5 : 0;
		return R_REDRAW;
	case ACT_PAGE_DOWN:
		v->hist_top += 5;	/* clamped when drawn */
		return R_REDRAW;
	case ACT_ENTER:
	case ACT_TRIGGER:
		return trigger(a, v);
	case ACT_HOST:
		return pick_shown(a, v);
	case ACT_ACTIONS:
		actionpane_toggle(&v->actions);
		return R_REDRAW;
	case ACT_REFRESH:
		actionpane_reload(&v->actions);
		load(v);
		app_message(a, false, "read the action log and the host's "
		    "result files again");
		return R_REDRAW;
	default:
		return R_NONE;
	}
}

/* A click on a cell selects it, one elsewhere on a scenario's row (its
 * name, the chips folded) that scenario on the chip selected; a double
 * click triggers it.  Where the grid was drawn decides, columns as well as
 * rows. */
static int
faults_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct faults_view *v = data;
	int s = y - v->grid_y, k = x - 1 - NAME_W;

	if (s < 0 || s >= SCENARIO_COUNT || x < 1)
		return R_NONE;
	if (k >= 0 && (k /= v->cell_w > 0 ? v->cell_w : 1) < v->nvis)
		v->ch = v->ch_first + (size_t)k;
	v->sc = (size_t)s;
	v->hist_top = 0;
	return twice ? faults_action(a, data, ACT_TRIGGER) : R_REDRAW;
}

static void
faults_status(struct app *a, void *data, char *buf, size_t len)
{
	struct faults_view *v = data;

	snprintf(buf, len, "%s %s chip %d %s %sH: host  A: action log  "
	    "Left/Right: chip", scenario_table[v->sc].name, ui_glyph("·", "-"),
	    v->chips[v->ch], ui_glyph("·", "-"), app_readonly(a) ? "" :
	    "t: trigger  ");
}

/* A file was read: what the cells say may change. */
static void
redraw(void *arg)
{
	struct faults_view *v = arg;

	app_redraw(v->app);
}

static void *
faults_open(struct app *a, const void *arg)
{
	struct faults_view *v = xcalloc(1, sizeof *v);
	const struct lab *lab = labmodel_lab(app_labmodel(a));
	const char *def = labrun_default_host(a);
	size_t i, host = 0;

	(void)arg;
	v->app = a;
	for (i = 0; def != NULL && i < lab->nhosts; i++)
		if (strcmp(lab->hosts[i].name, def) == 0)
			host = i;
	set_host(v, host);
	actionpane_init(&v->actions, app_labmodel(a));
	v->files = faultfiles_new(app_labmodel(a), redraw, v);
	load(v);
	return v;
}

static void
faults_close(void *data)
{
	struct faults_view *v = data;

	if (v->timer != 0)
		loop_del_timer(app_loop(v->app), v->timer);
	faultfiles_free(v->files);
	actionpane_release(&v->actions);
	faultfold_src_release(&v->src);
	free(v->chips);
	free(v->cells);
	free(v);
}

static const struct keybinding faults_keys[] = {
	{ 't', ACT_TRIGGER, "t" },
	{ 'H', ACT_HOST, "H" },
	{ 'A', ACT_ACTIONS, "A" },
	{ 0, ACT_NONE, NULL },
};

const struct view_ops faults_view = {
	.title = "Faults",
	.keys = faults_keys,
	.open = faults_open,
	.close = faults_close,
	.draw = faults_draw,
	.action = faults_action,
	.click = faults_click,
	.status = faults_status,
};

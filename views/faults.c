/*
 * faults.c: the fault scenarios of runbook §11.3 on the chips of one host
 * (issue 4 §7).  A grid of the eight scenarios × the host's chips, each
 * cell the latest result (or the job running it), the chips folded per
 * scenario beside it (faultfold.h); below, the selected cell: its exact
 * command, the live jobs a trigger would disturb and every past result;
 * and the action log (actionlog.h), which A shows or hides.
 *
 * t (or Enter) triggers the selected scenario on the selected chip once the
 * chip id has been typed in the status bar; anything else cancels, and
 * --readonly refuses.  H moves to the next reachable host.  The screen is
 * redrawn when the lab model says something changed, so it needs no timer:
 * it shows times, not ages.
 */
#include "calops.h"

#include <math.h>
#include <time.h>

#include "actionlog.h"
#include "app.h"
#include "faultfold.h"
#include "text.h"
#include "ui.h"

#define NAME_W		16	/* the scenario column */
#define CELL_LONG	18	/* "✔ recovered 5.0s" and a gap */
#define CELL_SHORT	11	/* "✔ 5.0s" and a gap */
#define SUMMARY_MIN	16	/* the folded line beside the grid, if room */
#define GRID_ROWS	(2 + LAB_NSCENARIOS)
#define ACTIONS_MAX	200	/* actions read for the pane */
#define DISTURB_MAX	8	/* live jobs named in the warning */

struct cell {
	const struct lfault	*last;	/* the newest result, or NULL */
	const struct ljob	*live;	/* a job on it now, or NULL */
	enum fold_outcome	 o;
};

/* One line of a cell's history: a result, or a job that left none. */
struct hist {
	double			 ts;
	const struct lfault	*f;
	const struct ljob	*j;
};

struct faults_view {
	struct app		*app;
	size_t			 host;		/* index into the lab's hosts */
	int			*chips;		/* the host's chips */
	size_t			 nchips;
	struct cell		*cells;		/* [scenario * nchips + chip] */
	size_t			 sc, ch;	/* the selected cell */
	size_t			 ch_first;	/* the first chip shown */
	size_t			 hist_top;	/* history rows scrolled past */
	int			 nvis;		/* chip columns shown */
	bool			 show_actions;
	struct action_list	 actions;
	char			 actions_err[256];
	uint64_t		 actions_sig;	/* of the jobs when read */
	bool			 asking;	/* a trigger awaits the id */
	struct {
		char	 host[128];
		int	 chip;
		size_t	 sc;
	} trig;
};

static const char *
host_name(struct faults_view *v)
{
	const struct lab *lab = labmodel_lab(v->app->labm);

	return v->host < lab->nhosts ? lab->hosts[v->host].name : "";
}

/* What triggering the selected cell would start. */
static void
cell_spec(struct faults_view *v, struct ljob_spec *spec)
{
	memset(spec, 0, sizeof *spec);
	spec->host = host_name(v);
	spec->kind = LJOB_FAULT;
	spec->chip = v->chips[v->ch];
	spec->scenario = lab_scenarios[v->sc];
}

/* Show host i: its chips (chip 0 when the lab file names none). */
static void
set_host(struct faults_view *v, size_t i)
{
	const struct lab *lab = labmodel_lab(v->app->labm);
	const struct lab_host *h = i < lab->nhosts ? &lab->hosts[i] : NULL;

	v->host = i;
	free(v->chips);
	v->nchips = h != NULL && h->nchips > 0 ? h->nchips : 1;
	v->chips = xcalloc(v->nchips, sizeof *v->chips);
	if (h != NULL && h->nchips > 0)
		memcpy(v->chips, h->chips, h->nchips * sizeof *v->chips);
	v->cells = xreallocarray(v->cells, LAB_NSCENARIOS * v->nchips,
	    sizeof *v->cells);
	v->ch = v->ch_first = v->hist_top = 0;
}

static int
scenario_index(const char *s)
{
	int i;

	for (i = 0; s != NULL && i < LAB_NSCENARIOS; i++)
		if (strcmp(s, lab_scenarios[i]) == 0)
			return i;
	return -1;
}

static int
chip_index(const struct faults_view *v, int chip)
{
	size_t i;

	for (i = 0; i < v->nchips; i++)
		if (v->chips[i] == chip)
			return (int)i;
	return -1;
}

static struct cell *
cell_at(struct faults_view *v, size_t s, size_t c)
{
	return &v->cells[s * v->nchips + c];
}

/* A live G7 job runs every scenario on its first chip; a cell it has
 * already answered shows that answer. */
static void
mark_gate_job(struct faults_view *v, const struct ljob *j)
{
	struct cell *c;
	int ci;
	size_t s;

	if (j->nchips == 0 || (ci = chip_index(v, j->chips[0])) < 0)
		return;
	for (s = 0; s < LAB_NSCENARIOS; s++) {
		c = cell_at(v, s, (size_t)ci);
		if (c->live == NULL && (c->last == NULL || j->id == NULL ||
		    strcmp(c->last->job, j->id) != 0))
			c->live = j;
	}
}

/* Every cell from the model (its pointers live until the next callbacks,
 * so this runs before each use). */
static void
compute(struct faults_view *v)
{
	struct labmodel *lm = v->app->labm;
	const char *host = host_name(v);
	const struct lfault *f;
	const struct ljob *j;
	struct cell *c;
	size_t i;
	int s, ci;

	memset(v->cells, 0, LAB_NSCENARIOS * v->nchips * sizeof *v->cells);
	for (i = 0; i < labmodel_nfaults(lm); i++) {
		f = labmodel_fault(lm, i);
		if (strcmp(f->host, host) == 0 &&
		    (s = scenario_index(f->scenario)) >= 0 &&
		    (ci = chip_index(v, f->chip)) >= 0)
			cell_at(v, (size_t)s, (size_t)ci)->last = f;
	}
	for (i = 0; i < labmodel_njobs(lm); i++) {
		j = labmodel_job(lm, i);
		if (!ljob_live(j) || strcmp(j->host, host) != 0)
			continue;
		if (j->kind == LJOB_GATE && j->gate == 7)
			mark_gate_job(v, j);
		if (j->kind != LJOB_FAULT ||
		    (s = scenario_index(j->scenario)) < 0 ||
		    (ci = chip_index(v, j->chip)) < 0)
			continue;
		c = cell_at(v, (size_t)s, (size_t)ci);
		if (c->live == NULL || c->live->kind != LJOB_FAULT)
			c->live = j;
	}
	for (i = 0; i < LAB_NSCENARIOS * v->nchips; i++) {
		c = &v->cells[i];
		f = c->last;
		if (c->live != NULL)
			c->o = c->live->state == LJ_STARTING ? FO_PENDING :
			    FO_RUNNING;
		else if (f != NULL)
			c->o = faultfold_classify(f->scenario, f->structured,
			    f->error_code, f->aborted, f->recovered);
		else
			c->o = FO_NEVER;
	}
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
	return o < nitems(t) ? ui_glyph(t[o].utf8, t[o].ascii) :
	    ui_glyph("✘", "x");
}

static void
format_secs(double ms, char *buf, size_t len)
{
	if (!isfinite(ms) || ms < 0)
		snprintf(buf, len, "-");
	else if (ms < 1000)
		snprintf(buf, len, "%.0fms", ms);
	else if (ms < 100000)
		snprintf(buf, len, "%.1fs", ms / 1000);
	else
		snprintf(buf, len, "%.0fs", ms / 1000);
}

/* A cell's words, long ("✔ recovered 5.0s") or short ("✔ 5.0s"). */
static void
cell_text(const struct cell *c, bool lng, char *buf, size_t len, enum role *r)
{
	static const char *const shorts[FO_COUNT] = {
		"never", "starting", "running", "", "no recov", "bad code",
		"unstruct", "aborted",
	};
	const char *g = outcome_glyph(c->o, r);
	char t[32] = "";

	if (c->o == FO_RECOVERED)
		format_secs(c->last->recover_ms, t, sizeof t);
	if (lng)
		snprintf(buf, len, "%s %s%s%s", g, faultfold_word(c->o),
		    t[0] != '\0' ? " " : "", t);
	else
		snprintf(buf, len, "%s %s", g, c->o == FO_RECOVERED ? t :
		    shorts[c->o]);
}

/* The folded line of scenario s into buf. */
static void
fold_line(struct faults_view *v, size_t s, char *buf, size_t len)
{
	struct fold_cell *fc = xcalloc(v->nchips, sizeof *fc);
	const struct cell *c;
	size_t i;
	char sep[8];

	for (i = 0; i < v->nchips; i++) {
		c = cell_at(v, s, i);
		fc[i].chip = v->chips[i];
		fc[i].outcome = c->o;
		fc[i].recover_ms = c->last != NULL ? c->last->recover_ms : NAN;
	}
	snprintf(sep, sizeof sep, " %s ", ui_glyph("·", "|"));
	faultfold_format(fc, v->nchips, sep, buf, len);
	free(fc);
}

static void
draw_grid(struct faults_view *v, int top, int cols)
{
	int avail = cols - 1 - NAME_W, x, sw, k, cw;
	bool lng = (int)v->nchips * CELL_LONG + SUMMARY_MIN <= avail;
	char buf[512], chips[256];
	enum role r;
	size_t s, c;

	cw = lng ? CELL_LONG : CELL_SHORT;
	v->nvis = avail / cw < 1 ? 1 : avail / cw;
	if (v->nvis > (int)v->nchips)
		v->nvis = (int)v->nchips;
	if (v->ch < v->ch_first)
		v->ch_first = v->ch;
	if (v->ch >= v->ch_first + (size_t)v->nvis)
		v->ch_first = v->ch - (size_t)v->nvis + 1;
	sw = avail - v->nvis * cw;
	faultfold_ranges(v->chips, v->nchips, chips, sizeof chips);
	snprintf(buf, sizeof buf, "host %s %s chips %s %s %s", host_name(v),
	    ui_glyph("·", "-"), chips, ui_glyph("·", "-"),
	    labmodel_workspace(v->app->labm, host_name(v)) != NULL ?
	    labmodel_workspace(v->app->labm, host_name(v)) :
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
	for (s = 0; s < LAB_NSCENARIOS; s++) {
		ui_putf(stdscr, top + 2 + (int)s, 1, NAME_W - 1, s == v->sc ?
		    ROLE_KEY : ROLE_NORMAL, "%s", lab_scenarios[s]);
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
	n = labmodel_jobs_on_chip(v->app->labm, host_name(v), chip, js,
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

static int
hist_cmp(const void *a, const void *b)
{
	const struct hist *x = a, *y = b;

	return (x->ts < y->ts) - (x->ts > y->ts);
}

/* The selected cell's past, newest first: its results, and its jobs that
 * ended without one (a broken or killed run).  *n set; a new array. */
static struct hist *
history(struct faults_view *v, size_t *np)
{
	struct labmodel *lm = v->app->labm;
	const char *host = host_name(v), *sc = lab_scenarios[v->sc];
	int chip = v->chips[v->ch];
	const struct lfault *f;
	const struct ljob *j;
	struct hist *h;
	size_t i, k, n = 0;

	h = xcalloc(labmodel_nfaults(lm) + labmodel_njobs(lm) + 1, sizeof *h);
	for (i = 0; i < labmodel_nfaults(lm); i++) {
		f = labmodel_fault(lm, i);
		if (f->chip == chip && strcmp(f->host, host) == 0 &&
		    strcmp(f->scenario, sc) == 0)
			h[n++] = (struct hist){ f->ts, f, NULL };
	}
	for (i = 0; i < labmodel_njobs(lm); i++) {
		j = labmodel_job(lm, i);
		if (j->kind != LJOB_FAULT || j->chip != chip ||
		    j->scenario == NULL || strcmp(j->host, host) != 0 ||
		    strcmp(j->scenario, sc) != 0)
			continue;
		for (k = 0; k < n && (h[k].f == NULL || j->id == NULL ||
		    strcmp(h[k].f->job, j->id) != 0); k++)
			;
		if (k == n)
			h[n++] = (struct hist){ j->started, NULL, j };
	}
	qsort(h, n, sizeof *h, hist_cmp);
	*np = n;
	return h;
}

static void
format_when(double ts, char *buf, size_t len)
{
	struct tm tm;
	time_t t = (time_t)ts;

	if (!isfinite(ts) || localtime_r(&t, &tm) == NULL)
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%m-%d %H:%M:%S", &tm);
}

static void
hist_line(const struct hist *h, char *buf, size_t len, enum role *r)
{
	const struct lfault *f = h->f;
	enum fold_outcome o;
	char when[32], t[32];

	format_when(h->ts, when, sizeof when);
	if (f == NULL) {
		o = ljob_live(h->j) ? FO_RUNNING : FO_ABORTED;
		snprintf(buf, len, "%s %s %-16s %-36s job %s", when,
		    outcome_glyph(o, r), ljob_state_name(h->j->state),
		    o == FO_RUNNING ? "" : h->j->err[0] != '\0' ? h->j->err :
		    "no result", h->j->id != NULL ? h->j->id : "-");
		if (h->j->state == LJ_BROKEN)
			*r = ROLE_ERROR;
		return;
	}
	o = faultfold_classify(f->scenario, f->structured, f->error_code,
	    f->aborted, f->recovered);
	format_secs(f->recover_ms, t, sizeof t);
	snprintf(buf, len, "%s %s %-16s %-22s %-13s %6s  job %s", when,
	    outcome_glyph(o, r), faultfold_word(o), f->structured ?
	    f->error_code : "(unstructured)", f->aborted ? "aborted" :
	    f->recovered ? "recovered" : "not recovered", t, f->job);
}

/* Untrusted text over rows [y, end) from column x, width w: the exact
 * command must be seen whole, its last words name the chip and scenario.
 * Returns the row after it. */
static int
draw_wrapped(int y, int end, int x, int w, enum role r, const char *s)
{
	char *clean = text_sanitize_str(s), *p = clean, *part;
	size_t n, k;

	while (y < end && *p != '\0' && w > 0) {
		/* The last row takes the rest, clipped with an ellipsis. */
		n = y + 1 == end ? strlen(p) : ui_fit(p, w);
		if (n == 0)
			break;
		/* Between words when one ends in the second half. */
		for (k = n; p[n] != '\0' && k > n / 2 && p[k] != ' '; k--)
			;
		if (p[n] != '\0' && k > n / 2)
			n = k;
		part = xstrndup(p, n);
		ui_put(stdscr, y++, x, w, r, part, false);
		free(part);
		p += n;
		if (*p == ' ')
			p++;
	}
	free(clean);
	return y;
}

/* The selected cell: what a trigger runs, what it disturbs, its past. */
static void
draw_detail(struct faults_view *v, int top, int rows, int cols)
{
	struct ljob_spec spec;
	const char *want = faultfold_expected_code(lab_scenarios[v->sc]);
	char buf[4096], err[256];
	struct hist *h;
	enum role r;
	size_t n, i;
	int y = top, end = top + rows;

	cell_spec(v, &spec);
	ui_fill(stdscr, y, 0, ROLE_HEADER);
	snprintf(buf, sizeof buf, "%s on %s:%d %s expects %s", spec.scenario,
	    spec.host, spec.chip, ui_glyph("·", "-"), want != NULL ? want :
	    "?");
	ui_put(stdscr, y++, 1, cols - 2, ROLE_HEADER, buf, false);
	if (y < end) {
		if (labmodel_command(v->app->labm, &spec, buf, sizeof buf, err,
		    sizeof err) != 0)
			snprintf(buf, sizeof buf, "cannot run here: %s", err);
		ui_putf(stdscr, y, 1, 9, ROLE_DIM, "command");
		y = draw_wrapped(y, end - y > 4 ? y + 3 : end, 10, cols - 11,
		    v->asking ? ROLE_WARN : ROLE_NORMAL, buf);
	}
	if (y < end) {
		fold_line(v, v->sc, buf, sizeof buf);
		ui_putf(stdscr, y, 1, 9, ROLE_DIM, "chips");
		ui_put(stdscr, y++, 10, cols - 11, ROLE_NORMAL, buf, false);
	}
	disturb_text(v, spec.chip, buf, sizeof buf);
	if (y < end && buf[0] != '\0') {
		ui_putf(stdscr, y, 1, 2, ROLE_WARN, "%s", ui_glyph("⚠", "!"));
		ui_put(stdscr, y++, 3, cols - 4, ROLE_WARN, buf, false);
	}
	if (y < end && v->asking) {
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_WARN, "type the chip id "
		    "(%d) in the status bar to trigger; anything else cancels",
		    v->trig.chip);
	}
	h = history(v, &n);
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
		    "chip%s", v->app->readonly ? "" : " (t triggers it)");
	free(h);
}

/* A cheap fingerprint of the jobs: a start or an end changes it, and
 * both append to the action log. */
static uint64_t
jobs_sig(struct labmodel *lm)
{
	uint64_t sig = labmodel_njobs(lm);
	const struct ljob *j;
	size_t i;

	for (i = 0; i < labmodel_njobs(lm); i++) {
		j = labmodel_job(lm, i);
		sig = sig * 33 + (uint64_t)j->state;
		sig = sig * 33 + (uint64_t)(int64_t)j->started;
	}
	return sig;
}

static void
load_actions(struct faults_view *v)
{
	actionlog_list_release(&v->actions);
	v->actions_err[0] = '\0';
	actionlog_load(NULL, ACTIONS_MAX, &v->actions, v->actions_err,
	    sizeof v->actions_err);
	v->actions_sig = jobs_sig(v->app->labm);
}

/* An action's outcome: the log's, else "running" while its job is. */
static const char *
action_outcome(struct faults_view *v, const struct action_entry *e)
{
	const struct ljob *j;
	size_t i;

	if (e->outcome != NULL)
		return e->outcome;
	for (i = 0; e->job != NULL && i < labmodel_njobs(v->app->labm); i++) {
		j = labmodel_job(v->app->labm, i);
		if (j->id != NULL && strcmp(j->id, e->job) == 0 &&
		    e->host != NULL && strcmp(j->host, e->host) == 0)
			return ljob_live(j) ? "running" : ljob_state_name(
			    j->state);
	}
	return "no outcome yet";
}

static void
draw_actions(struct faults_view *v, int top, int rows, int cols)
{
	const struct action_entry *e;
	char buf[512], when[32], where[160];
	bool wide = cols >= 110;
	size_t i;
	int y = top;

	if (jobs_sig(v->app->labm) != v->actions_sig)
		load_actions(v);
	ui_fill(stdscr, y, 0, ROLE_HEADER);
	snprintf(buf, sizeof buf, "ACTION LOG (newest first; A hides)");
	if (v->actions.skipped > 0)
		snprintf(buf, sizeof buf, "ACTION LOG (newest first; A hides; "
		    "%zu unreadable lines skipped)", v->actions.skipped);
	if (v->actions_err[0] != '\0')
		snprintf(buf, sizeof buf, "ACTION LOG: %s", v->actions_err);
	ui_put(stdscr, y++, 1, cols - 2, ROLE_HEADER, buf, false);
	if (v->actions.n == 0 && y < top + rows)
		ui_putf(stdscr, y, 2, cols - 3, ROLE_DIM, "no action yet");
	/* Who, when, where, what and how it went; the command after them,
	 * or on a row of its own when the screen is narrow. */
	for (i = 0; i < v->actions.n && y < top + rows; i++, y++) {
		e = &v->actions.v[i];
		format_when(e->ts, when, sizeof when);
		if (e->chip >= 0)
			snprintf(where, sizeof where, "%s:%d", e->host != NULL ?
			    e->host : "-", e->chip);
		else
			snprintf(where, sizeof where, "%s", e->host != NULL ?
			    e->host : "-");
		ui_putf(stdscr, y, 2, 14, ROLE_DIM, "%s", when);
		ui_put(stdscr, y, 17, 8, ROLE_NORMAL, e->user != NULL ?
		    e->user : "?", false);
		ui_put(stdscr, y, 26, 12, ROLE_NORMAL, where, false);
		snprintf(buf, sizeof buf, "%s %s", ui_glyph("→", "->"),
		    action_outcome(v, e));
		ui_put(stdscr, y, wide ? 68 : 39, wide ? 26 : cols - 40, e->outcome
		    == NULL ? ROLE_RUNNING : ROLE_NORMAL, buf, false);
		if (!wide && ++y >= top + rows)
			break;
		ui_put(stdscr, y, wide ? 39 : 17, 28, ROLE_NORMAL, e->what,
		    false);
		ui_put(stdscr, y, wide ? 95 : 46, wide ? cols - 96 : cols - 47,
		    ROLE_DIM, e->command != NULL ? e->command : "", false);
	}
}

static void
faults_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct faults_view *v = data;
	int y = top + GRID_ROWS, left = rows - GRID_ROWS, act = 0;

	v->app = a;
	compute(v);
	draw_grid(v, top, cols);
	if (left <= 0)
		return;
	if (v->show_actions)
		act = left >= 14 ? left * 2 / 5 : left >= 8 ? 4 : 0;
	draw_detail(v, y, left - act, cols);
	if (act > 0)
		draw_actions(v, y + left - act, act, cols);
}

static void
trigger_answer(struct app *a, const char *answer, void *arg)
{
	struct faults_view *v = arg;
	struct ljob_spec spec = { 0 };
	const struct ljob *j;
	const char *sc = lab_scenarios[v->trig.sc];
	char id[16], err[256];

	v->asking = false;
	snprintf(id, sizeof id, "%d", v->trig.chip);
	if (answer == NULL || strcmp(answer, id) != 0) {
		app_message(a, false, "trigger cancelled: '%s' is not the chip "
		    "id %d", answer != NULL ? answer : "", v->trig.chip);
		return;
	}
	spec.host = v->trig.host;
	spec.kind = LJOB_FAULT;
	spec.chip = v->trig.chip;
	spec.scenario = sc;
	if ((j = labmodel_start(a->labm, &spec, err, sizeof err)) == NULL) {
		app_message(a, true, "cannot trigger %s on %s:%d: %s", sc,
		    v->trig.host, v->trig.chip, err);
		return;
	}
	app_message(a, false, "triggered %s on %s:%d: %s", sc, j->host,
	    v->trig.chip, j->command);
	load_actions(v);
}

/* Ask for the chip id, after checking the trigger could run at all. */
static int
trigger(struct app *a, struct faults_view *v)
{
	struct ljob_spec spec;
	char q[128], cmd[4096], err[256], *host;

	if (a->readonly) {
		app_message(a, true, "read-only: faults cannot be triggered");
		return R_REDRAW;
	}
	cell_spec(v, &spec);
	if (labmodel_transport(a->labm, spec.host, err, sizeof err) == NULL ||
	    labmodel_command(a->labm, &spec, cmd, sizeof cmd, err,
	    sizeof err) != 0) {
		app_message(a, true, "cannot trigger %s here: %s",
		    spec.scenario, err);
		return R_REDRAW;
	}
	snprintf(v->trig.host, sizeof v->trig.host, "%s", spec.host);
	v->trig.chip = spec.chip;
	v->trig.sc = v->sc;
	v->asking = true;
	/* The question is drawn as the program's own text: no raw host. */
	host = text_sanitize(spec.host, strlen(spec.host), 24);
	snprintf(q, sizeof q, "type the chip id (%d) to trigger %s on %s:%d: ",
	    spec.chip, spec.scenario, host, spec.chip);
	free(host);
	app_ask(a, q, trigger_answer, v);
	return R_REDRAW;
}

/* H: the next host whose transport is up. */
static int
next_host(struct app *a, struct faults_view *v)
{
	const struct lab *lab = labmodel_lab(a->labm);
	char err[256];
	size_t k, i;

	for (k = 1; k <= lab->nhosts; k++) {
		i = (v->host + k) % lab->nhosts;
		if (labmodel_transport(a->labm, lab->hosts[i].name, err,
		    sizeof err) == NULL)
			continue;
		if (i == v->host) {
			app_message(a, false, "%s is the only reachable host",
			    lab->hosts[i].name);
			return R_REDRAW;
		}
		set_host(v, i);
		return R_REDRAW;
	}
	app_message(a, true, "no reachable host");
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
		if (act == ACT_UP ? v->sc == 0 : v->sc + 1 == LAB_NSCENARIOS)
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
		v->sc = act == ACT_HOME ? 0 : LAB_NSCENARIOS - 1;
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
		return next_host(a, v);
	case ACT_ACTIONS:
		v->show_actions = !v->show_actions;
		if (v->show_actions)
			load_actions(v);
		return R_REDRAW;
	case ACT_REFRESH:
		load_actions(v);
		app_message(a, false, "read the action log again");
		return R_REDRAW;
	default:
		return R_NONE;
	}
}

/* A click on a cell selects it; a double click triggers it. */
static int
faults_click(struct app *a, void *data, int row, bool twice)
{
	struct faults_view *v = data;
	int s = row - 2;

	if (s < 0 || s >= LAB_NSCENARIOS)
		return R_NONE;
	v->sc = (size_t)s;
	v->hist_top = 0;
	return twice ? faults_action(a, data, ACT_TRIGGER) : R_REDRAW;
}

static void
faults_status(struct app *a, void *data, char *buf, size_t len)
{
	struct faults_view *v = data;

	snprintf(buf, len, "%s %s chip %d %s %sH: host  A: action log  "
	    "Left/Right: chip", lab_scenarios[v->sc], ui_glyph("·", "-"),
	    v->chips[v->ch], ui_glyph("·", "-"), a->readonly ? "" :
	    "t: trigger  ");
}

static void *
faults_open(struct app *a, const void *arg)
{
	struct faults_view *v = xcalloc(1, sizeof *v);
	const struct lab *lab = labmodel_lab(a->labm);
	const char *def = labmodel_default_host(a->labm);
	size_t i, host = 0;

	(void)arg;
	v->app = a;
	for (i = 0; def != NULL && i < lab->nhosts; i++)
		if (strcmp(lab->hosts[i].name, def) == 0)
			host = i;
	set_host(v, host);
	v->show_actions = true;
	load_actions(v);
	return v;
}

static void
faults_close(void *data)
{
	struct faults_view *v = data;

	actionlog_list_release(&v->actions);
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
	.name = "faults",
	.title = "Faults",
	.keys = faults_keys,
	.open = faults_open,
	.close = faults_close,
	.draw = faults_draw,
	.action = faults_action,
	.click = faults_click,
	.status = faults_status,
};

/*
 * soaklist.c: which soak the Soak screen shows (soak.c, "Which soak"), each
 * soak remembered as it was last looked at, and the screen's list of the
 * lab's soaks (README.md, the Soak screen), shown in its place while the
 * lab holds more than one soak and none has been chosen: every soak the
 * lab model holds, running or recent, whoever started it (labpoll.h), a
 * row each with its host, job id, who started it, state, chips, elapsed
 * time and start, newest first.  Enter (or a double click) watches the one
 * selected; q or Esc from the soak watched comes back here.  A soak on
 * screen stays there when another one starts: listed at the next visit.
 *
 * The rows are made again from the model at every draw (a soak starting
 * on another console shows while the list is read), so the selection is
 * kept by the soak's "host/id", not by its place.  Every string from a
 * host (its id, who started it) goes through the sanitiser: the column
 * model draws each cell through it (list.c).
 */
#include "calops.h"

#include <math.h>

#include "lab/labcmd.h"
#include "views/app/app.h"
#include "views/core/glyph.h"
#include "views/core/ui.h"
#include "views/soak_int.h"
#include "views/soakpane.h"

/* ---- which soak ---- */

/*
 * How each soak was last looked at (chip, window, zoom, cursor, the alert
 * journal), kept for as long as the console runs: leaving the screen and
 * coming back finds it as it was left.  The oldest of SOAK_REMEMBER soaks
 * is forgotten first.
 */
#define SOAK_REMEMBER	16

static struct remembered {
	char	 job[160];		/* "host/id"; "" for a free slot */
	int	 chip;
	size_t	 win, zoom;
	double	 cursor;
	bool	 pane;
	uint64_t used;			/* when kept: the oldest goes */
} remembered[SOAK_REMEMBER];
static uint64_t remembered_clock;

void
soaklist_remember(const struct soak *v)
{
	struct remembered *r = &remembered[0];
	size_t i;

	if (v->job == NULL)
		return;
	for (i = 0; i < nitems(remembered); i++) {
		if (strcmp(remembered[i].job, v->job) == 0) {
			r = &remembered[i];
			break;
		}
		if (remembered[i].used < r->used)
			r = &remembered[i];
	}
	snprintf(r->job, sizeof r->job, "%s", v->job);
	r->chip = v->chip;
	r->win = v->win;
	r->zoom = v->zoom;
	r->cursor = v->cursor;
	r->pane = v->pane;
	r->used = ++remembered_clock;
}

/* The view of job key as it was left, or the defaults. */
static void
recall(struct soak *v, const char *key)
{
	size_t i;

	v->chip = -1;
	v->win = 0;
	v->zoom = SOAK_ZOOM_DEFAULT;
	v->cursor = NAN;
	v->pane = false;
	for (i = 0; i < nitems(remembered); i++)
		if (strcmp(remembered[i].job, key) == 0) {
			v->chip = remembered[i].chip;
			v->win = remembered[i].win;
			v->zoom = remembered[i].zoom;
			v->cursor = remembered[i].cursor;
			v->pane = remembered[i].pane;
			return;
		}
}

/* The soak whose key ("host/id") is key in the model, or NULL. */
static struct ljob *
find_soak(struct soak *v, const char *key)
{
	struct labmodel *lm = app_labmodel(v->app);
	struct ljob *j;
	size_t i;
	char *k;
	bool same;

	for (i = 0; key != NULL && i < labmodel_njobs(lm); i++) {
		if ((j = labmodel_job(lm, i))->kind != LJOB_SOAK)
			continue;
		k = soaklist_key(j);
		same = strcmp(k, key) == 0;
		free(k);
		if (same)
			return j;
	}
	return NULL;
}

struct ljob *
soaklist_current(struct soak *v)
{
	struct ljob *j = find_soak(v, v->pin);
	char *key;

	if (j == NULL)
		j = labmodel_latest(app_labmodel(v->app), LJOB_SOAK, NULL);
	if (j == NULL)
		return NULL;
	key = soaklist_key(j);
	if (v->job == NULL || strcmp(key, v->job) != 0) {
		soaklist_remember(v);
		free(v->job);
		v->job = key;
		recall(v, key);
	} else
		free(key);
	soak_find_chips(v, j);
	return j;
}

size_t
soaklist_at(struct soak *v, size_t *at, struct ljob **out, size_t max)
{
	struct ljob *shown = soaklist_current(v);
	size_t n = soaklist_soaks(v, out, max);

	for (*at = 0; *at < n && out[*at] != shown; (*at)++)
		;
	if (*at == n)
		*at = 0;
	return n;
}

int
soaklist_next(struct app *a, struct soak *v)
{
	struct ljob *js[LAB_JOBS_MAX];
	size_t at, n = soaklist_at(v, &at, js, nitems(js));

	if (n < 2) {
		app_message(a, false, "%s", n == 0 ? "no soak on the lab" :
		    "the only soak on the lab");
		return R_REDRAW;
	}
	free(v->pin);
	v->pin = soaklist_key(js[(at + 1) % n]);
	v->chosen = true;
	return R_REDRAW;
}

int
soaklist_back(struct soak *v)
{
	struct ljob *js[2];

	if (v->drilled || soaklist_soaks(v, js, nitems(js)) < 2)
		return R_NONE;
	soaklist_remember(v);
	v->chosen = false;
	/* The list selects the soak just watched. */
	free(v->list_sel);
	v->list_sel = NULL;
	return R_REDRAW;
}

/* ---- the list ---- */

enum {
	COL_HOST, COL_JOB, COL_BY, COL_STATE, COL_CHIPS, COL_ELAPSED,
	COL_STARTED,
};

/* What a k9s user reads first comes first: where, which, whose. */
static const struct list_col soak_cols[] = {
	[COL_HOST] = { "HOST", 20, 4, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_JOB] = { "JOB", 24, 8, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_BY] = { "BY", 24, 2, LIST_LEFT, ROLE_NORMAL, LIST_REST, -1 },
	[COL_STATE] = { "STATE", 0, 9, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_CHIPS] = { "CHIPS", 16, 5, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_ELAPSED] = { "ELAPSED", 0, 9, LIST_RIGHT, ROLE_NORMAL, 0, -1 },
	[COL_STARTED] = { "STARTED", 0, 8, LIST_LEFT, ROLE_DIM, LIST_GROW,
	    -1 },
};

char *
soaklist_key(const struct ljob *j)
{
	return xasprintf("%s/%s", j->host, j->id != NULL ? j->id : "");
}

size_t
soaklist_soaks(struct soak *v, struct ljob **out, size_t max)
{
	struct labmodel *lm = app_labmodel(v->app);
	struct ljob *j;
	size_t i, n = 0;

	for (i = 0; lm != NULL && i < labmodel_njobs(lm) && n < max; i++)
		if ((j = labmodel_job(lm, i))->kind == LJOB_SOAK && j->here)
			out[n++] = j;
	return n;
}

bool
soaklist_showing(struct soak *v)
{
	struct ljob *js[2];

	return !v->chosen && soaklist_soaks(v, js, nitems(js)) > 1;
}

static const char *
soak_cell(const void *arg, size_t rec, size_t col, char *buf, size_t len,
    enum role *role)
{
	const struct soak *v = arg;
	const struct ljob *j = v->rows[rec];
	const char *g;
	char e[32], t[32];

	switch (col) {
	case COL_HOST:
		return j->host;
	case COL_JOB:
		return j->id != NULL ? j->id : "starting";
	case COL_BY:
		return j->actor != NULL ? j->actor : "-";
	case COL_STATE:
		g = glyph_job(labmodel_job_state_name(j->state), role);
		snprintf(buf, len, "%s %s", g, labmodel_job_state_name(
		    j->state));
		return buf;
	case COL_CHIPS:
		labcmd_chips_text(j->chips, j->nchips, buf, len);
		return j->nchips > 0 ? buf : "-";
	case COL_ELAPSED:
		/* In tool time, as the soak's own header says it. */
		graph_fmt_dur(isnan(j->first_ts) ? 0 : j->last_ts - j->first_ts,
		    e, sizeof e);
		graph_fmt_dur(j->target_s > 0 ? j->target_s : 86400, t,
		    sizeof t);
		snprintf(buf, len, "%s/%s", e, t);
		return buf;
	default:
		graph_fmt_clock(j->started, true, buf, len);
		return buf;
	}
}

static bool
row_matches(size_t i, void *arg)
{
	const struct soak *v = arg;
	const struct ljob *j = v->rows[i];

	return app_filter_match(v->app, j->host) || (j->id != NULL &&
	    app_filter_match(v->app, j->id)) || (j->actor != NULL &&
	    app_filter_match(v->app, j->actor)) || app_filter_match(v->app,
	    labmodel_job_state_name(j->state)) || (j->label != NULL &&
	    app_filter_match(v->app, j->label));
}

/* The rows from the model, the selection on the soak it was on (at first
 * the one last watched, else the newest). */
static void
rebuild(struct soak *v)
{
	const char *keep = v->list_sel != NULL ? v->list_sel : v->job;
	size_t i;
	char *k;

	v->nrows = soaklist_soaks(v, v->rows, nitems(v->rows));
	list_rebuild(&v->soaks, v->nrows, row_matches, v);
	for (i = 0; keep != NULL && i < v->soaks.nmap; i++) {
		k = soaklist_key(v->rows[v->soaks.map[i]]);
		if (strcmp(k, keep) == 0)
			v->soaks.sel = i;
		free(k);
	}
}

/* The selection moved: kept by key for the next rebuild. */
static void
keep_selected(struct soak *v)
{
	size_t i = list_selected(&v->soaks);

	free(v->list_sel);
	v->list_sel = i != SIZE_MAX ? soaklist_key(v->rows[i]) : NULL;
}

void
soaklist_draw(struct soak *v, int top, int rows, int cols)
{
	rebuild(v);
	ui_fill(stdscr, top, 0, ROLE_NORMAL);
	ui_putf(stdscr, top, 1, cols - 2, ROLE_HEADER, "%zu soaks on the "
	    "lab, running or recent, whoever started them", v->nrows);
	list_draw_cols(&v->soaks, top + 1, rows - 1, 0, cols, soak_cols,
	    nitems(soak_cols), -1, soak_cell, v, "no soak matches the filter");
	keep_selected(v);
}

/* Enter: the soak selected is watched. */
static int
choose(struct soak *v)
{
	size_t i = list_selected(&v->soaks);

	if (i == SIZE_MAX)
		return R_NONE;
	free(v->pin);
	v->pin = soaklist_key(v->rows[i]);
	v->chosen = true;
	return R_REDRAW;
}

/* s starts a soak, which is then watched (the newest running); ! watches
 * the newest running. */
int
soaklist_action(struct app *a, struct soak *v, enum action act)
{
	if (act == ACT_RUN || act == ACT_NEWEST_ALERT) {
		free(v->pin);
		v->pin = NULL;
		v->chosen = true;
		return act == ACT_RUN ? soakpane_ask_start(a) : R_NONE;
	}
	rebuild(v);
	if (act == ACT_ENTER)
		return choose(v);
	if (!list_action(&v->soaks, act))
		return R_NONE;
	keep_selected(v);
	return R_REDRAW;
}

int
soaklist_click(struct soak *v, int y, int x, bool twice)
{
	size_t before = list_selected(&v->soaks);

	rebuild(v);
	if (!list_click(&v->soaks, y, x))
		return R_NONE;
	keep_selected(v);
	/* A double click takes the soak it selected, not another. */
	return twice && list_selected(&v->soaks) == before ? choose(v) :
	    R_REDRAW;
}

void
soaklist_status(struct soak *v, char *buf, size_t len)
{
	snprintf(buf, len, "%zu of %zu soaks  Enter: watch  s start",
	    v->soaks.nmap, v->nrows);
}

/*
 * alerts.c: `:alerts` (and `!` while one is ongoing), the alert journal of
 * the state folder as `calops alerts --journal` lists it (share/doc/
 * alerts.md §5): every alert the lab's rules raised, newest first, with
 * its start, its end or "ongoing", its duration, the min/avg/max of its
 * value, its severity and subject, what became of its hook; above them,
 * who sends (§6: this console, or `calops alerts`, pid N).  The selected
 * alert is shown whole below the list; Enter gives it the screen.
 */
#include "calops.h"

#include <math.h>
#include <time.h>

#include "alert/alertjournal.h"
#include "model/alertsend.h"
#include "views/app/app.h"
#include "views/core/list.h"
#include "views/core/ui.h"

#define ALERTS_PANE	7	/* rows of the selected alert, at most */

struct alerts_view {
	struct list	 list;
	struct app	*app;
	bool		 whole;		/* Enter: the selected one, whole */
};

enum {
	COL_START, COL_END, COL_DUR, COL_SEV, COL_RULE, COL_SUBJECT,
	COL_MIN, COL_AVG, COL_MAX, COL_HOOK, COL_SUMMARY,
};

static const struct list_col alert_cols[] = {
	[COL_START] = { "START (UTC)", 0, 8, LIST_LEFT, ROLE_DIM, 0, -1 },
	[COL_END] = { "END", 0, 7, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_DUR] = { "FOR", 0, 3, LIST_RIGHT, ROLE_NORMAL, 0, -1 },
	[COL_SEV] = { "SEV", 0, 4, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_RULE] = { "RULE", 24, 6, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_SUBJECT] = { "SUBJECT", 32, 8, LIST_LEFT, ROLE_NORMAL,
	    LIST_REST, -1 },
	[COL_MIN] = { "MIN", 0, 3, LIST_RIGHT, ROLE_DIM, LIST_LAST, -1 },
	[COL_AVG] = { "AVG", 0, 3, LIST_RIGHT, ROLE_DIM, LIST_LAST, -1 },
	[COL_MAX] = { "MAX", 0, 3, LIST_RIGHT, ROLE_NORMAL, LIST_LAST, -1 },
	[COL_HOOK] = { "HOOK", 0, 4, LIST_LEFT, ROLE_DIM, 0, -1 },
	[COL_SUMMARY] = { "SUMMARY", 0, 10, LIST_LEFT, ROLE_NORMAL,
	    LIST_GROW | LIST_HSCROLL, -1 },
};

static const struct alertjournal *
journal(const struct app *a)
{
	struct alertsend *s = app_alerts(a);

	return s != NULL ? alertsend_journal(s) : NULL;
}

/* Shown row r's entry: the newest first. */
static const struct alertentry *
entry(const struct app *a, size_t r)
{
	const struct alertjournal *j = journal(a);

	return j != NULL && r < j->n ? &j->e[j->n - 1 - r] : NULL;
}

static bool
alert_match(size_t r, void *arg)
{
	struct app *a = arg;
	const struct alertentry *e = entry(a, r);
	char *subj;
	bool m;

	if (e == NULL)
		return false;
	subj = alertjournal_subject(e);
	m = app_filter_match(a, e->rule) || app_filter_match(a,
	    e->severity) || app_filter_match(a, subj) ||
	    app_filter_match(a, e->summary);
	free(subj);
	return m;
}

static void
alerts_refresh(struct app *a, void *data)
{
	struct alerts_view *v = data;
	const struct alertjournal *j = journal(a);

	v->app = a;
	list_rebuild(&v->list, j != NULL ? j->n : 0, alert_match, a);
}

static void *
alerts_open(struct app *a, const void *arg)
{
	struct alerts_view *v = xcalloc(1, sizeof *v);

	(void)arg;
	alerts_refresh(a, v);
	return v;
}

static void
alerts_close(void *data)
{
	struct alerts_view *v = data;

	list_release(&v->list);
	free(v);
}

/* "12-06 14:01:05" in UTC, or what for NAN. */
static const char *
when(char *buf, size_t len, double t, const char *what, bool year)
{
	time_t s = (time_t)floor(t);
	struct tm tm;

	if (isnan(t) || gmtime_r(&s, &tm) == NULL)
		snprintf(buf, len, "%s", what);
	else
		strftime(buf, len, year ? "%Y-%m-%d %H:%M:%S" :
		    "%m-%d %H:%M:%S", &tm);
	return buf;
}

static const char *
num(char *buf, size_t len, double v)
{
	if (isnan(v))
		return NULL;
	snprintf(buf, len, "%.4g", v);
	return buf;
}

static enum role
severity_role(const char *sev)
{
	if (sev != NULL && strcmp(sev, "critical") == 0)
		return ROLE_FAIL;
	if (sev != NULL && strcmp(sev, "warning") == 0)
		return ROLE_WARN;
	return ROLE_INFO;
}

static const char *
alert_cell(const void *arg, size_t rec, size_t col, char *buf, size_t len,
    enum role *role)
{
	const struct alerts_view *v = arg;
	const struct alertentry *e = entry(v->app, rec);
	char *s;

	if (e == NULL)
		return NULL;
	switch (col) {
	case COL_START:
		return when(buf, len, e->start, "?", false);
	case COL_END:
		if (isnan(e->end))
			*role = ROLE_FAIL;
		return when(buf, len, e->end, "ongoing", false);
	case COL_DUR:
		alertjournal_duration(buf, len, (isnan(e->end) ?
		    (double)time(NULL) : e->end) - e->start);
		return buf;
	case COL_SEV:
		*role = severity_role(e->severity);
		return e->severity;
	case COL_RULE:
		return e->rule;
	case COL_SUBJECT:
		s = alertjournal_subject(e);
		snprintf(buf, len, "%s", s);
		free(s);
		return buf;
	case COL_MIN:
		return num(buf, len, e->vmin);
	case COL_AVG:
		return num(buf, len, e->vavg);
	case COL_MAX:
		return num(buf, len, e->vmax);
	case COL_HOOK:
		alertjournal_hook_state(e, buf, len);
		if (e->gave_up || (e->failures > 0 && strcmp(buf, "sent") != 0))
			*role = ROLE_ERROR;
		return buf;
	default:
		return e->summary;
	}
}

/* A value for the detail: "-" when there is none. */
static const char *
num_or_dash(char *buf, size_t len, double v)
{
	const char *s = num(buf, len, v);

	return s != NULL ? s : "-";
}

/* The selected alert's lines, label and value; n of them. */
static size_t
detail(const struct alertentry *e, char lines[][300], size_t max)
{
	char t0[32], t1[32], dur[32], hook[32], v[5][32], *subj;
	size_t n = 0;

	subj = alertjournal_subject(e);
	alertjournal_hook_state(e, hook, sizeof hook);
	alertjournal_duration(dur, sizeof dur, (isnan(e->end) ?
	    (double)time(NULL) : e->end) - e->start);
	snprintf(lines[n++], 300, "%s  %s  %s  id %s", e->rule != NULL ?
	    e->rule : "?", e->severity != NULL ? e->severity : "?",
	    e->kind != NULL ? e->kind : "?", e->id);
	snprintf(lines[n++], 300, "on       %s", subj);
	snprintf(lines[n++], 300, "from     %s UTC to %s, %s",
	    when(t0, sizeof t0, e->start, "?", true), isnan(e->end) ?
	    "now (ongoing)" : when(t1, sizeof t1, e->end, "?", true), dur);
	snprintf(lines[n++], 300, "value    %s (threshold %s), min %s avg "
	    "%s max %s", num_or_dash(v[0], 32, e->value),
	    num_or_dash(v[1], 32, e->threshold), num_or_dash(v[2], 32,
	    e->vmin), num_or_dash(v[3], 32, e->vavg), num_or_dash(v[4], 32,
	    e->vmax));
	snprintf(lines[n++], 300, "hook     %s%s%s", hook,
	    e->hook_error != NULL ? ": " : "", e->hook_error != NULL ?
	    e->hook_error : "");
	snprintf(lines[n++], 300, "summary  %s", e->summary != NULL ?
	    e->summary : "");
	free(subj);
	return n < max ? n : max;
}

/* The selected alert, whole, in rows [y, y + rows). */
static void
draw_selected(const struct alerts_view *v, int y, int rows, int cols)
{
	const struct alertentry *e;
	char lines[6][300];
	size_t i = list_selected(&v->list), n, k;

	if (i == SIZE_MAX || rows < 2 || (e = entry(v->app, i)) == NULL)
		return;
	ui_fill(stdscr, y, 0, ROLE_BORDER);
	ui_putf(stdscr, y, 1, cols - 2, ROLE_BORDER, "alert %zu of %zu",
	    v->list.sel + 1, v->list.nmap);
	n = detail(e, lines, nitems(lines));
	for (k = 0; k < n && (int)k + 1 < rows; k++)
		ui_put(stdscr, y + 1 + (int)k, 1, cols - 2, k == 0 ?
		    severity_role(e->severity) : ROLE_NORMAL, lines[k], false);
}

static void
alerts_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct alerts_view *v = data;
	struct alertsend *s = app_alerts(a);
	int pane = rows > 3 * ALERTS_PANE ? ALERTS_PANE : 4;
	char who[200];

	v->app = a;
	if (s != NULL)
		alertsend_who(s, who, sizeof who);
	else
		snprintf(who, sizeof who, "no alert journal: the state's "
		    "alerts folder was refused (:messages says why)");
	ui_put(stdscr, top, 1, cols - 2, s != NULL && alertsend_sending(s) ?
	    ROLE_INFO : ROLE_DIM, who, false);
	if (v->whole && list_selected(&v->list) != SIZE_MAX) {
		draw_selected(v, top + 1, rows - 1, cols);
		return;
	}
	list_draw_cols(&v->list, top + 1, rows - 1 - pane, 0, cols, alert_cols,
	    nitems(alert_cols), -1, alert_cell, v, "no alert in the journal "
	    "(share/doc/alerts.md: alerts: in the lab file)");
	draw_selected(v, top + rows - pane, pane, cols);
}

/* The newest ongoing alert selected (`!`). */
static int
newest_ongoing(struct alerts_view *v)
{
	const struct alertentry *e;
	size_t r;

	for (r = 0; r < v->list.nmap; r++)
		if ((e = entry(v->app, v->list.map[r])) != NULL &&
		    isnan(e->end)) {
			list_select_row(&v->list, r);
			return R_REDRAW;
		}
	return R_NONE;
}

static int
alerts_action(struct app *a, void *data, enum action act)
{
	struct alerts_view *v = data;

	v->app = a;
	switch (act) {
	case ACT_ENTER:
		v->whole = !v->whole && list_selected(&v->list) != SIZE_MAX;
		return R_REDRAW;
	case ACT_BACK:
	case ACT_ESCAPE:
		if (!v->whole)
			return R_NONE;
		v->whole = false;
		return R_REDRAW;
	case ACT_NEWEST_ALERT:
		v->whole = false;
		return newest_ongoing(v);
	default:
		return list_action(&v->list, act) ? R_REDRAW : R_NONE;
	}
}

static int
alerts_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct alerts_view *v = data;

	if (!list_click(&v->list, y, x))
		return R_NONE;
	return twice ? alerts_action(a, data, ACT_ENTER) : R_REDRAW;
}

static void
alerts_status(struct app *a, void *data, char *buf, size_t len)
{
	struct alerts_view *v = data;
	const struct alertjournal *j = journal(a);
	const char *dot = ui_glyph("·", "-");
	size_t i, ongoing = 0;

	for (i = 0; j != NULL && i < j->n; i++)
		ongoing += isnan(j->e[i].end);
	snprintf(buf, len, "%zu alert%s, %zu ongoing %s Enter: %s %s q: close",
	    v->list.nmap, v->list.nmap == 1 ? "" : "s", ongoing, dot,
	    v->whole ? "the list" : "the alert whole", dot);
}

static const struct view_note alerts_notes[] = {
	{ "END", "when the alert resolved, or ongoing" },
	{ "FOR", "how long it held, to now while ongoing" },
	{ "MIN AVG MAX", "its value over the breach (ms, bytes, rate)" },
	{ "HOOK", "what became of the team's command for its present state: "
	    "sent, waiting, failed xN (retried), gave up" },
	{ "sends", "one process sends a state folder's alerts: the one "
	    "holding its journal, this console or calops alerts; the other "
	    "shows the journal and takes over when it ends" },
	{ NULL, NULL },
};

const struct view_ops alerts_view = {
	.title = "Alerts",
	.notes = alerts_notes,
	.open = alerts_open,
	.close = alerts_close,
	.draw = alerts_draw,
	.action = alerts_action,
	.update = alerts_refresh,
	.click = alerts_click,
	.status = alerts_status,
};

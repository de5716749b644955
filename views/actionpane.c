/* actionpane.c: the action log as a pane below a screen (actionpane.h). */
#include "calops.h"

#include <math.h>
#include <time.h>

#include "views/actionpane.h"
#include "views/core/ui.h"

#define ACTIONS_MAX	200	/* actions read for the pane */
#define WIDE_COLS	110	/* an action on one row from this width */

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

void
actionpane_reload(struct actionpane *p)
{
	actionlog_list_release(&p->list);
	p->err[0] = '\0';
	actionlog_load(NULL, ACTIONS_MAX, &p->list, p->err, sizeof p->err);
	p->sig = jobs_sig(p->lm);
}

void
actionpane_init(struct actionpane *p, struct labmodel *lm)
{
	memset(p, 0, sizeof *p);
	p->lm = lm;
	p->shown = true;
	actionpane_reload(p);
}

void
actionpane_release(struct actionpane *p)
{
	actionlog_list_release(&p->list);
}

void
actionpane_toggle(struct actionpane *p)
{
	p->shown = !p->shown;
	if (p->shown)
		actionpane_reload(p);
}

/* Two fifths of a tall screen's rest, four rows of a short one (80x24). */
int
actionpane_height(const struct actionpane *p, int rows)
{
	if (!p->shown)
		return 0;
	return rows >= 14 ? rows * 2 / 5 : rows >= 8 ? 4 : 0;
}

void
actionpane_when(double ts, char *buf, size_t len)
{
	struct tm tm;
	time_t t;

	/* A time a file or a host gives may be anything: out of time_t's
	 * range, converting it is undefined. */
	if (!isfinite(ts) || ts < -1e15 || ts > 1e15) {
		snprintf(buf, len, "-");
		return;
	}
	t = (time_t)ts;
	if (localtime_r(&t, &tm) == NULL)
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%m-%d %H:%M:%S", &tm);
}

/* An action's outcome: the log's, else "running" while its job is. */
static const char *
outcome(struct actionpane *p, const struct action_entry *e)
{
	const struct ljob *j;
	size_t i;

	if (e->outcome != NULL)
		return e->outcome;
	for (i = 0; e->job != NULL && i < labmodel_njobs(p->lm); i++) {
		j = labmodel_job(p->lm, i);
		if (j->id != NULL && strcmp(j->id, e->job) == 0 &&
		    e->host != NULL && strcmp(j->host, e->host) == 0)
			return labmodel_job_live(j)
			    ? "running"
			    : labmodel_job_state_name(j->state);
	}
	return "no outcome yet";
}

/* The header row: what the pane is, or why the log cannot be read. */
static void
draw_header(struct actionpane *p, int y, int cols)
{
	char buf[512];

	ui_fill(stdscr, y, 0, ROLE_HEADER);
	snprintf(buf, sizeof buf, "ACTION LOG (newest first; A hides)");
	if (p->list.skipped > 0)
		snprintf(buf, sizeof buf, "ACTION LOG (newest first; A hides; "
		    "%zu unreadable lines skipped)", p->list.skipped);
	if (p->err[0] != '\0')
		snprintf(buf, sizeof buf, "ACTION LOG: %s", p->err);
	ui_put(stdscr, y, 1, cols - 2, ROLE_HEADER, buf, false);
}

/* Who, when, where, what and how it went; the command after them, or on a
 * row of its own when the screen is narrow.  Every field but the time is
 * the log's, so drawn through the sanitiser. */
void
actionpane_draw(struct actionpane *p, int top, int rows, int cols)
{
	const struct action_entry *e;
	char buf[512], when[32], where[160];
	bool wide = cols >= WIDE_COLS;
	size_t i;
	int y = top;

	if (jobs_sig(p->lm) != p->sig)
		actionpane_reload(p);
	draw_header(p, y++, cols);
	if (p->list.n == 0 && y < top + rows)
		ui_putf(stdscr, y, 2, cols - 3, ROLE_DIM, "no action yet");
	for (i = 0; i < p->list.n && y < top + rows; i++, y++) {
		e = &p->list.v[i];
		actionpane_when(e->ts, when, sizeof when);
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
		    outcome(p, e));
		ui_put(stdscr, y, wide ? 68 : 39, wide ? 26 : cols - 40,
		    e->outcome == NULL ? ROLE_RUNNING : ROLE_NORMAL, buf,
		    false);
		if (!wide && ++y >= top + rows)
			break;
		ui_put(stdscr, y, wide ? 39 : 17, 28, ROLE_NORMAL, e->what,
		    false);
		ui_put(stdscr, y, wide ? 95 : 46, wide ? cols - 96 : cols - 47,
		    ROLE_DIM, e->command != NULL ? e->command : "", false);
	}
}

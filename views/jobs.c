/*
 * jobs.c: the Jobs screen: the durable jobs of every host of the lab,
 * listed and merged newest first by the job list (src/model/joblist.h), in
 * columns (list.h) with who started each (BY, job.json's actor: the first
 * left out on a narrow terminal); a host that cannot be reached is one dim
 * row above them saying why.  The hosts
 * are listed when the view opens, on R (the app hands ACT_REFRESH to the
 * view first), and every JOBS_REFRESH_MS while it is on screen (no timer
 * otherwise: an idle console on another tab stays idle); Enter opens a
 * job's log (joblog.c), or a soak's job in the Soak screen (s too), which
 * the lab model follows from its host when this console did not start it
 * (labpoll.h); d describes it (describe.c), K kills a running job on its
 * host once its id has been typed.
 */
#include "calops.h"

#include "base/text.h"
#include "job/jobevent.h"
#include "job/jobstore.h"
#include "lab/labmodel.h"
#include "lab/labpoll.h"
#include "model/joblist.h"
#include "views/app/app.h"
#include "views/core/glyph.h"
#include "views/core/list.h"
#include "views/core/ui.h"

#define JOBS_REFRESH_MS	2000

struct jobs_view {
	struct app	*app;
	struct joblist	*jl;		/* the model: hosts, rows, the kill */
	struct list	 list;
	long		 timer;
	char		*kill_id;	/* the job the kill question is about */
	const char	*kill_host;	/* its host, borrowed from the lab */
	char		*sel_id;	/* the selected job's, as rows move */
	const char	*sel_host;
	int		 sort;		/* a column of sort_names */
};

static const char *const sort_names[] = { "newest", "state", "host",
    "what" };

/* What a row shows in its last column: a label in words, else the
 * command. */
static const char *
row_what(const struct jobs_view *v, const struct joblist_row *r)
{
	const struct ljob *lj = r->id[0] != '\0' ?
	    labmodel_find(app_labmodel(v->app), r->host, r->id) : NULL;

	return lj != NULL && lj->label != NULL ? lj->label : r->cmd;
}

static int
cmp_row(size_t x, size_t y, void *arg)
{
	const struct jobs_view *v = arg;
	const struct joblist_row *a = joblist_row(v->jl, x);
	const struct joblist_row *b = joblist_row(v->jl, y);
	int ra, rb;

	switch (v->sort) {
	case 1:	/* running first */
		ra = strcmp(a->state, "running") != 0;
		rb = strcmp(b->state, "running") != 0;
		return ra != rb ? ra - rb : strcmp(a->state, b->state);
	case 2:
		return strcmp(a->host, b->host);
	case 3:
		return strcmp(row_what(v, a), row_what(v, b));
	default:
		return 0;
	}
}

static bool
row_matches(size_t i, void *arg)
{
	const struct jobs_view *v = arg;
	const struct joblist_row *r = joblist_row(v->jl, i);

	/* What the row shows: its label too. */
	return app_filter_match(v->app, r->host) ||
	    app_filter_match(v->app, r->id) ||
	    app_filter_match(v->app, r->state) ||
	    app_filter_match(v->app, r->cmd) ||
	    app_filter_match(v->app, row_what(v, r));
}

static void
jobs_update(struct app *a, void *data)
{
	struct jobs_view *v = data;

	v->app = a;
	list_rebuild(&v->list, joblist_nrows(v->jl), row_matches, v);
	if (v->sort != 0)
		list_sort(&v->list, cmp_row, v);
}

/* A host's rows are about to move: remember the selected job. */
static void
rows_replacing(struct joblist *jl, void *arg)
{
	struct jobs_view *v = arg;
	size_t i;

	if ((i = list_selected(&v->list)) != SIZE_MAX) {
		v->sel_host = joblist_row(jl, i)->host;
		v->sel_id = xstrdup(joblist_row(jl, i)->id);
	}
}

/* They moved: the selection stays on its job. */
static void
rows_replaced(struct joblist *jl, void *arg)
{
	struct jobs_view *v = arg;
	const struct joblist_row *r;
	size_t i;

	jobs_update(v->app, v);
	for (i = 0; v->sel_id != NULL && i < v->list.nmap; i++) {
		r = joblist_row(jl, v->list.map[i]);
		if (r->host == v->sel_host && strcmp(r->id, v->sel_id) == 0)
			v->list.sel = i;
	}
	free(v->sel_id);
	v->sel_id = NULL;
	v->sel_host = NULL;
}

static void
rows_changed(struct joblist *jl, void *arg)
{
	struct jobs_view *v = arg;

	(void)jl;
	app_redraw(v->app);
}

/* Every JOBS_REFRESH_MS, only while on top: draw() arms it again. */
static void
tick(struct loop *l, void *arg)
{
	struct jobs_view *v = arg;

	(void)l;
	v->timer = 0;
	if (app_on_top(v->app, v))
		joblist_reload(v->jl);
}

/* The kill ended: say how, and list the jobs again to show it. */
static void
killed(struct joblist *jl, const char *host, const char *id, bool ok,
    const char *err, void *arg)
{
	struct jobs_view *v = arg;

	if (ok)
		app_message(v->app, false, "killed job %s on %s", id, host);
	else
		app_message(v->app, true, "cannot kill job %s: %s", id, err);
	joblist_reload(jl);
}

static void *
jobs_open(struct app *a, const void *arg)
{
	struct jobs_view *v = xcalloc(1, sizeof *v);
	struct joblist_cb cb = { rows_replacing, rows_replaced, killed,
	    rows_changed, NULL };

	(void)arg;
	v->app = a;
	cb.arg = v;
	v->jl = joblist_new(app_labmodel(a), &cb);
	joblist_reload(v->jl);
	return v;
}

static void
jobs_close(void *data)
{
	struct jobs_view *v = data;

	if (v->timer != 0)
		loop_del_timer(app_loop(v->app), v->timer);
	joblist_free(v->jl);
	list_release(&v->list);
	free(v->kill_id);
	free(v->sel_id);
	free(v);
}

enum { COL_ID, COL_STATE, COL_AGE, COL_EXIT, COL_HOST, COL_BY, COL_WHAT };

/* The id whole at 80 columns (it is typed to kill); who started a job is
 * the first left out when the room is short, the command line having more
 * to say. */
static const struct list_col job_cols[] = {
	[COL_ID] = { "ID", 24, 22, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_STATE] = { "STATE", 0, 9, LIST_LEFT, ROLE_NORMAL, 0, 1 },
	[COL_AGE] = { "AGE", 0, 7, LIST_RIGHT, ROLE_NORMAL, 0, -1 },
	[COL_EXIT] = { "EXIT", 0, 4, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_HOST] = { "HOST", 16, 4, LIST_LEFT, ROLE_NORMAL, 0, 2 },
	[COL_BY] = { "BY", 20, 8, LIST_LEFT, ROLE_NORMAL, LIST_DROP, -1 },
	[COL_WHAT] = { "WHAT", 0, 24, LIST_LEFT, ROLE_NORMAL,
	    LIST_GROW | LIST_LAST, 3 },
};

/* How long ago it started, counting on while it runs. */
static const char *
cell_age(const struct joblist_row *r, char *buf, size_t len)
{
	if (strcmp(r->state, "corrupt") == 0)
		return "-";
	jobstore_format_age(r->age + (r->state[0] == 'r' ? jobevent_now() -
	    r->fetched : 0), buf, len);
	return buf;
}

/* A job the console started is said in words, as the action log says it;
 * another one by its command; first, how far the console has caught up
 * with its events, while it does. */
static const char *
cell_what(const struct jobs_view *v, const struct joblist_row *r, char *buf,
    size_t len, enum role *role)
{
	const struct ljob *lj = r->id[0] != '\0' ?
	    labmodel_find(app_labmodel(v->app), r->host, r->id) : NULL;
	char cu[96];
	int pct;

	if (lj == NULL || !labmodel_job_catchup(lj, cu, sizeof cu, &pct))
		return row_what(v, r);
	*role = ROLE_PENDING;
	snprintf(buf, len, "%s · %s", cu, row_what(v, r));
	return buf;
}

static const char *
job_cell(const void *arg, size_t rec, size_t col, char *buf, size_t len,
    enum role *role)
{
	const struct jobs_view *v = arg;
	const struct joblist_row *r = joblist_row(v->jl, rec);
	const char *s;

	switch (col) {
	case COL_ID:
		return r->id;
	case COL_STATE:
		s = r->degraded ? "degraded" : r->state;
		snprintf(buf, len, "%s %s", glyph_job(s, role), s);
		return buf;
	case COL_AGE:
		return cell_age(r, buf, len);
	case COL_EXIT:
		if (r->exit_code >= 0)
			snprintf(buf, len, "%d", r->exit_code);
		else if (r->sig > 0)
			snprintf(buf, len, "sig %d", r->sig);
		else
			return "-";
		return buf;
	case COL_HOST:
		return r->host;
	case COL_BY:
		/* Who started it, as its job.json says (untrusted). */
		s = json_string_value(json_object_get(r->record, "actor"));
		return s != NULL ? s : "-";
	default:
		return cell_what(v, r, buf, len, role);
	}
}

static void
jobs_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct jobs_view *v = data;
	bool loaded = false;
	const char *down;
	size_t i;
	char *s;
	int y;

	if (v->timer == 0)
		v->timer = loop_add_timer(app_loop(a), JOBS_REFRESH_MS, tick,
		    v);
	/* The hosts not reachable first, where scrolling cannot hide them. */
	for (i = 0, y = top; i < joblist_nhosts(v->jl); i++) {
		down = joblist_host_down(v->jl, i);
		loaded |= joblist_host_loaded(v->jl, i) || down[0] != '\0';
		if (down[0] == '\0' || y >= top + rows - 3)
			continue;
		s = xasprintf("host %s: %s", joblist_host(v->jl, i), down);
		ui_put(stdscr, y++, 1, cols - 2, ROLE_DIM, s, false);
		free(s);
	}
	list_draw_cols(&v->list, y, top + rows - 1 - y, 0, cols, job_cols,
	    nitems(job_cols), v->sort, job_cell, v, !loaded ?
	    "listing the jobs…" : joblist_nrows(v->jl) == 0 ?
	    "no jobs on any host (calops run -- CMD starts one)" :
	    "no job matches the filter");
	/* The bottom line: why the first host that failed to list failed. */
	for (i = 0; i < joblist_nhosts(v->jl) &&
	    joblist_host_err(v->jl, i)[0] == '\0'; i++)
		;
	if (i < joblist_nhosts(v->jl)) {
		s = xasprintf("%s: %s", joblist_host(v->jl, i),
		    joblist_host_err(v->jl, i));
		ui_fill(stdscr, top + rows - 1, 0, ROLE_ERROR);
		ui_put(stdscr, top + rows - 1, 1, cols - 2, ROLE_ERROR, s,
		    false);
		free(s);
	}
}

/* The id typed: `calops kill ID` on the job's host when it is the job's. */
static void
kill_answer(struct app *a, const char *answer, void *arg)
{
	struct jobs_view *v = arg;
	char err[256];

	if (answer == NULL || strcmp(answer, v->kill_id) != 0) {
		app_message(a, false, "kill cancelled: '%s' is not the job's id",
		    answer != NULL ? answer : "");
		return;
	}
	if (!joblist_kill(v->jl, v->kill_host, v->kill_id, err, sizeof err))
		app_message(a, true, "cannot kill job %s: %s", v->kill_id,
		    err);
	else
		app_message(a, false, "killing job %s on %s…", v->kill_id,
		    v->kill_host);
}

static int
ask_kill(struct app *a, struct jobs_view *v)
{
	size_t i = list_selected(&v->list);
	const struct joblist_row *r;
	char q[128], *id;

	if (app_readonly(a)) {
		app_message(a, true, "read-only: jobs cannot be killed");
		return R_REDRAW;
	}
	if (i == SIZE_MAX)
		return R_NONE;
	r = joblist_row(v->jl, i);
	if (strcmp(r->state, "running") != 0) {
		app_message(a, true, "job %s is not running", r->id);
		return R_REDRAW;
	}
	if (joblist_killing(v->jl)) {
		app_message(a, true, "a kill is under way");
		return R_REDRAW;
	}
	free(v->kill_id);
	v->kill_id = xstrdup(r->id);
	v->kill_host = r->host;
	/* The question is drawn as trusted text: the id came from the host. */
	id = text_sanitize_str(r->id);
	snprintf(q, sizeof q, "kill job %s on %s? type its id: ", id, r->host);
	free(id);
	prompt_ask(a, q, kill_answer, v);
	return R_REDRAW;
}

/* A soak's job, whoever started it, in the Soak screen: followed from its
 * host's first event when this console does not follow it yet. */
static int
open_soak(struct app *a, const struct joblist_row *r)
{
	const struct ljob *j;
	char err[300], *key;

	if ((j = labpoll_take_entry(app_labmodel(a), r->host, r->record,
	    r->age + (jobevent_now() - r->fetched), err, sizeof err)) ==
	    NULL) {
		app_message(a, true, "cannot follow soak %s: %s", r->id, err);
		return R_REDRAW;
	}
	key = xasprintf("%s/%s", j->host, j->id);
	app_push(a, &soak_view, key);
	free(key);
	return R_REDRAW;
}

static int
jobs_action(struct app *a, void *data, enum action act)
{
	struct jobs_view *v = data;
	const struct joblist_row *r;
	enum ljob_kind kind;
	const char *job[2];
	size_t i;

	switch (act) {
	case ACT_REFRESH:
		joblist_reload(v->jl);
		app_message(a, false, "listing the jobs again");
		return R_REDRAW;
	case ACT_KILL:
		return ask_kill(a, v);
	case ACT_SORT:
	case ACT_SORT_BACK:
		v->sort = list_sort_step(v->sort,
		    (int)nitems(sort_names), act);
		jobs_update(a, v);
		app_message(a, false, "sorted by %s", sort_names[v->sort]);
		return R_REDRAW;
	case ACT_DESCRIBE:
		if ((i = list_selected(&v->list)) == SIZE_MAX)
			return R_NONE;
		/* The row, copied as the description opens. */
		app_push(a, &describe_view, joblist_row(v->jl, i));
		return R_REDRAW;
	case ACT_SOAK:
	case ACT_ENTER:
		if ((i = list_selected(&v->list)) == SIZE_MAX)
			return R_NONE;
		r = joblist_row(v->jl, i);
		if (labpoll_entry_kind(r->record, &kind) && kind == LJOB_SOAK)
			return open_soak(a, r);
		if (act == ACT_SOAK) {
			app_message(a, true, "job %s is not a soak", r->id);
			return R_REDRAW;
		}
		if (strcmp(r->state, "corrupt") == 0) {
			app_message(a, true, "job %s is corrupt: no log",
			    r->id);
			return R_REDRAW;
		}
		/* The log's argument: { host, id }, copied as it opens. */
		job[0] = r->host;
		job[1] = r->id;
		app_push(a, &joblog_view, job);
		return R_REDRAW;
	default:
		return list_action(&v->list, act) ? R_REDRAW : R_NONE;
	}
}

static int
jobs_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct jobs_view *v = data;
	int c;

	/* A click on a sortable title sorts by that column. */
	if ((c = list_header_click(&v->list, y, x)) >= 0) {
		if (job_cols[c].sort < 0)
			return R_NONE;
		v->sort = job_cols[c].sort;
		jobs_update(a, v);
		app_message(a, false, "sorted by %s", sort_names[v->sort]);
		return R_REDRAW;
	}
	if (!list_click(&v->list, y, x))
		return R_NONE;
	return twice ? jobs_action(a, data, ACT_ENTER) : R_REDRAW;
}

static void
jobs_status(struct app *a, void *data, char *buf, size_t len)
{
	struct jobs_view *v = data;
	const char *dot = ui_glyph("·", "-");
	size_t i, running = 0, down = 0;
	char hosts[64] = "";

	for (i = 0; i < joblist_nrows(v->jl); i++)
		running += strcmp(joblist_row(v->jl, i)->state, "running") == 0;
	for (i = 0; i < joblist_nhosts(v->jl); i++)
		down += joblist_host_down(v->jl, i)[0] != '\0';
	if (down > 0)
		snprintf(hosts, sizeof hosts, " %s %zu host%s not reachable",
		    dot, down, down > 1 ? "s" : "");
	if (v->sort != 0)
		snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts),
		    " %s sorted by %s", dot, sort_names[v->sort]);
	snprintf(buf, len, "%zu of %zu jobs, %zu running%s %s Enter: log  "
	    "d: describe%s",
	    v->list.nmap, joblist_nrows(v->jl), running, hosts, dot,
	    app_readonly(a) ? "" : "  K: kill");
}

static const struct keybinding jobs_keys[] = {
	{ 'K', ACT_KILL, "K" },
	{ 'd', ACT_DESCRIBE, "d" },
	{ 's', ACT_SOAK, "s" },
	{ '>', ACT_SORT, ">" },
	{ '<', ACT_SORT_BACK, "<" },
	{ 0, ACT_NONE, NULL },
};

/* The help's words for what the screen shows. */
static const struct view_note jobs_notes[] = {
	{ "BY", "who started the job (its job.json's actor), - when its" },
	{ "", "host does not say; left out first when narrow (d: whole)" },
	{ "catching up", "the console replays the job's events from its host" },
	{ NULL, NULL },
};

/* Back from a job's log: list the jobs again, not what was listed before
 * it opened. */
static void
jobs_resume(struct app *a, void *data)
{
	struct jobs_view *v = data;

	(void)a;
	joblist_reload(v->jl);
}

const struct view_ops jobs_view = {
	.title = "Jobs",
	.keys = jobs_keys,
	.notes = jobs_notes,
	.open = jobs_open,
	.close = jobs_close,
	.draw = jobs_draw,
	.action = jobs_action,
	.update = jobs_update,
	.resume = jobs_resume,
	.click = jobs_click,
	.status = jobs_status,
};

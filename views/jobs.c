/*
 * jobs.c: the durable jobs of the local host (protocol.md §2): `calops jobs
 * --json` through the local transport when the view opens, on R (the app
 * hands ACT_REFRESH to the view first), and every
 * JOBS_REFRESH_MS while it is on screen (no timer otherwise: an idle
 * console on another tab stays idle); Enter opens a job's log (joblog.c),
 * K kills a running job once its id has been typed.
 */
#include "calops.h"

#include <time.h>

#include "app.h"
#include "buf.h"
#include "list.h"
#include "transport.h"
#include "ui.h"

#define JOBS_REFRESH_MS	2000
#define JOBS_OUT_MAX	(8u << 20)	/* of `jobs --json` output */

struct job_row {
	char	*id, *state, *cmd;
	double	 age;
	int	 exit_code;		/* -1: none */
	int	 sig;			/* 0: none */
};

struct jobs_view {
	struct app	*app;
	struct transport *t;
	struct job_row	*rows;
	size_t		 nrows;
	double		 fetched;	/* when rows' ages were true */
	bool		 loaded;
	struct list	 list;
	struct rstream	*rs;		/* `jobs --json`, or NULL */
	struct buf	 out;
	bool		 out_cut;
	char		 err[256];
	long		 timer;
	struct rstream	*kill_rs;	/* `kill ID`, or NULL */
	char		*kill_id;
	char		 kill_msg[256];
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The glyph and role of a job state (never colour alone). */
static const char *
state_glyph(const char *s, enum role *r)
{
	static const struct {
		const char *name, *utf8, *ascii;
		enum role role;
	} t[] = {
		{ "running", "▶", ">", ROLE_RUNNING },
		{ "done", "✔", "+", ROLE_PASS },
		{ "failed", "✘", "x", ROLE_FAIL },
		{ "killed", "⊘", "#", ROLE_BLOCKED },
		{ "lost", "?", "?", ROLE_STALE },
		{ "corrupt", "!", "!", ROLE_ERROR },
	};
	size_t i;

	for (i = 0; i < nitems(t); i++)
		if (strcmp(s, t[i].name) == 0) {
			*r = t[i].role;
			return ui_glyph(t[i].utf8, t[i].ascii);
		}
	*r = ROLE_DIM;
	return "?";
}

static void
rows_free(struct job_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].id);
		free(rows[i].state);
		free(rows[i].cmd);
	}
	free(rows);
}

static bool
row_matches(size_t i, void *arg)
{
	struct jobs_view *v = arg;
	const struct job_row *r = &v->rows[i];

	return app_filter_match(v->app, r->id) ||
	    app_filter_match(v->app, r->state) ||
	    app_filter_match(v->app, r->cmd);
}

static void
jobs_update(struct app *a, void *data)
{
	struct jobs_view *v = data;

	v->app = a;
	list_rebuild(&v->list, v->nrows, row_matches, v);
}

static char *
json_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return xstrdup(s != NULL ? s : "");
}

/* One job of `jobs --json` into a row. */
static void
row_from_json(struct job_row *r, json_t *o)
{
	json_t *argv = json_object_get(o, "argv"), *m;
	struct buf b = BUF_INIT;
	size_t i;

	r->id = json_str(o, "id");
	r->state = json_str(o, "state");
	r->age = json_number_value(json_object_get(o, "age"));
	m = json_object_get(o, "exit_code");
	r->exit_code = json_is_integer(m) ? (int)json_integer_value(m) : -1;
	m = json_object_get(o, "signal");
	r->sig = json_is_integer(m) ? (int)json_integer_value(m) : 0;
	buf_add(&b, "", 0);
	json_array_foreach(argv, i, m)
		buf_addf(&b, "%s%s", i > 0 ? " " : "",
		    json_string_value(m) != NULL ? json_string_value(m) : "?");
	if (json_object_get(o, "reason") != NULL)
		buf_addf(&b, "(%s)", json_string_value(json_object_get(o,
		    "reason")) != NULL ? json_string_value(json_object_get(o,
		    "reason")) : "?");
	r->cmd = buf_detach(&b, NULL);
}

/* The whole output read: the list is replaced, or err says why not. */
static void
parse_jobs(struct jobs_view *v)
{
	json_error_t je;
	json_t *doc, *jobs, *o;
	struct job_row *rows;
	size_t i, n;

	doc = json_loadb(v->out.data != NULL ? v->out.data : "", v->out.len, 0,
	    &je);
	jobs = json_object_get(doc, "jobs");
	if (v->out_cut || !json_is_array(jobs) || strcmp(json_string_value(
	    json_object_get(doc, "schema")) != NULL ? json_string_value(
	    json_object_get(doc, "schema")) : "", "calops-jobs/v1") != 0) {
		snprintf(v->err, sizeof v->err, "cannot read the job list: %s",
		    v->out_cut ? "too long" : doc == NULL ? je.text :
		    "not calops-jobs/v1");
		json_decref(doc);
		return;
	}
	n = json_array_size(jobs);
	rows = xcalloc(n + 1, sizeof *rows);
	json_array_foreach(jobs, i, o)
		row_from_json(&rows[i], o);
	json_decref(doc);
	rows_free(v->rows, v->nrows);
	v->rows = rows;
	v->nrows = n;
	v->fetched = now_s();
	v->loaded = true;
	v->err[0] = '\0';
	jobs_update(v->app, v);
}

static void
list_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct jobs_view *v = arg;

	(void)rs;
	(void)cut;
	if (from_stderr) {
		snprintf(v->err, sizeof v->err, "%.*s", (int)(len > 200 ? 200 :
		    len), line);
		return;
	}
	if (v->out.len + len + 1 > JOBS_OUT_MAX) {
		v->out_cut = true;
		return;
	}
	buf_add(&v->out, line, len);
	buf_add(&v->out, "\n", 1);
}

static void
list_done(struct rstream *rs, const struct rstream_exit *e, void *arg)
{
	struct jobs_view *v = arg;

	(void)rs;
	v->rs = NULL;
	if (e->code == 0)
		parse_jobs(v);
	else if (v->err[0] == '\0')
		snprintf(v->err, sizeof v->err, "calops jobs failed: %s",
		    e->err != NULL ? e->err : "exit status not 0");
	buf_release(&v->out);
	v->out_cut = false;
	v->app->dirty = true;
}

static const struct rstream_cb list_cb = { list_line, list_done };

static void
reload(struct jobs_view *v)
{
	char *argv[] = { "jobs", "--json", NULL }, err[256];

	if (v->rs != NULL)
		return;
	buf_release(&v->out);
	v->out_cut = false;
	if ((v->rs = transport_exec(v->t, argv, &list_cb, v, err,
	    sizeof err)) == NULL)
		snprintf(v->err, sizeof v->err, "%s", err);
}

/* Every JOBS_REFRESH_MS, only while on top: draw() arms it again. */
static void
tick(struct loop *l, void *arg)
{
	struct jobs_view *v = arg;

	(void)l;
	v->timer = 0;
	if (v->app->depth > 0 && v->app->stack[v->app->depth - 1].data == v)
		reload(v);
}

static void *
jobs_open(struct app *a, const void *arg)
{
	struct jobs_view *v = xcalloc(1, sizeof *v);
	char err[256];

	(void)arg;
	v->app = a;
	v->t = transport_local_new(a->loop, "local", NULL);
	if (transport_connect(v->t, err, sizeof err) != 0)
		snprintf(v->err, sizeof v->err, "%s", err);
	reload(v);
	return v;
}

static void
jobs_close(void *data)
{
	struct jobs_view *v = data;

	if (v->timer != 0)
		loop_del_timer(v->app->loop, v->timer);
	if (v->rs != NULL)
		rstream_cancel(v->rs);
	if (v->kill_rs != NULL)
		rstream_cancel(v->kill_rs);
	transport_close(v->t);
	buf_release(&v->out);
	rows_free(v->rows, v->nrows);
	list_release(&v->list);
	free(v->kill_id);
	free(v);
}

static void
format_age(double s, char *buf, size_t len)
{
	long t = s > 0 ? (long)s : 0;

	if (t < 60)
		snprintf(buf, len, "%lds", t);
	else if (t < 3600)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else if (t < 86400)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else
		snprintf(buf, len, "%ldd%02ldh", t / 86400, t / 3600 % 24);
}

static void
draw_row(struct jobs_view *v, const struct job_row *r, int y, int cols,
    bool sel)
{
	enum role base = sel ? ROLE_SELECTION : ROLE_NORMAL, sr;
	const char *g = state_glyph(r->state, &sr);
	char age[32], ex[32];

	if (sel)
		ui_fill(stdscr, y, 0, ROLE_SELECTION);
	ui_put(stdscr, y, 1, 24, base, r->id, true);
	ui_putf(stdscr, y, 26, 10, sel ? base : sr, "%s %s", g, r->state);
	if (strcmp(r->state, "corrupt") == 0)
		snprintf(age, sizeof age, "-");
	else
		format_age(r->age + (r->state[0] == 'r' ? now_s() - v->fetched :
		    0), age, sizeof age);
	if (r->exit_code >= 0)
		snprintf(ex, sizeof ex, "%d", r->exit_code);
	else if (r->sig > 0)
		snprintf(ex, sizeof ex, "sig %d", r->sig);
	else
		snprintf(ex, sizeof ex, "-");
	ui_putf(stdscr, y, 37, 8, base, "%7s", age);
	ui_putf(stdscr, y, 46, 6, base, "%-6s", ex);
	ui_put(stdscr, y, 53, cols - 54, base, r->cmd, false);
}

static void
jobs_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct jobs_view *v = data;
	size_t i;
	int y;

	if (v->timer == 0)
		v->timer = loop_add_timer(a->loop, JOBS_REFRESH_MS, tick, v);
	ui_fill(stdscr, top, 0, ROLE_HEADER);
	ui_putf(stdscr, top, 1, cols - 2, ROLE_HEADER, "%-24s %-10s %7s  %-6s "
	    "%s", "ID", "STATE", "AGE", "EXIT", "COMMAND");
	list_scroll(&v->list, rows - 2);
	for (i = v->list.top, y = top + 1; i < v->list.nmap &&
	    y < top + rows - 1; i++, y++)
		draw_row(v, &v->rows[v->list.map[i]], y, cols,
		    i == v->list.sel);
	if (v->list.nmap == 0)
		ui_putf(stdscr, top + 2, 2, cols - 4, ROLE_DIM, "%s",
		    !v->loaded ? "listing the jobs…" : v->nrows == 0 ?
		    "no jobs on this host (calops run -- CMD starts one)" :
		    "no job matches the filter");
	if (v->err[0] != '\0') {
		ui_fill(stdscr, top + rows - 1, 0, ROLE_ERROR);
		ui_put(stdscr, top + rows - 1, 1, cols - 2, ROLE_ERROR, v->err,
		    false);
	}
}

static void
kill_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct jobs_view *v = arg;

	(void)rs;
	(void)cut;
	if (from_stderr && len > 0)
		snprintf(v->kill_msg, sizeof v->kill_msg, "%.*s", (int)(len >
		    200 ? 200 : len), line);
}

static void
kill_done(struct rstream *rs, const struct rstream_exit *e, void *arg)
{
	struct jobs_view *v = arg;

	(void)rs;
	v->kill_rs = NULL;
	if (e->code == 0)
		app_message(v->app, false, "killed job %s", v->kill_id);
	else
		app_message(v->app, true, "cannot kill job %s: %s", v->kill_id,
		    v->kill_msg[0] != '\0' ? v->kill_msg : e->err != NULL ?
		    e->err : "calops kill failed");
	reload(v);
}

static const struct rstream_cb kill_cb = { kill_line, kill_done };

static void
kill_answer(struct app *a, const char *answer, void *arg)
{
	struct jobs_view *v = arg;
	char *argv[] = { "kill", v->kill_id, NULL }, err[256];

	if (answer == NULL || strcmp(answer, v->kill_id) != 0) {
		app_message(a, false, "kill cancelled: '%s' is not the job's id",
		    answer != NULL ? answer : "");
		return;
	}
	v->kill_msg[0] = '\0';
	if ((v->kill_rs = transport_exec(v->t, argv, &kill_cb, v, err,
	    sizeof err)) == NULL)
		app_message(a, true, "cannot kill job %s: %s", v->kill_id, err);
	else
		app_message(a, false, "killing job %s…", v->kill_id);
}

static int
ask_kill(struct app *a, struct jobs_view *v)
{
	size_t i = list_selected(&v->list);
	char q[128];

	if (a->readonly) {
		app_message(a, true, "read-only: jobs cannot be killed");
		return R_REDRAW;
	}
	if (i == SIZE_MAX)
		return R_NONE;
	if (strcmp(v->rows[i].state, "running") != 0) {
		app_message(a, true, "job %s is not running", v->rows[i].id);
		return R_REDRAW;
	}
	if (v->kill_rs != NULL) {
		app_message(a, true, "a kill is under way");
		return R_REDRAW;
	}
	free(v->kill_id);
	v->kill_id = xstrdup(v->rows[i].id);
	snprintf(q, sizeof q, "kill job %s? type its id: ",
	    v->kill_id);
	app_ask(a, q, kill_answer, v);
	return R_REDRAW;
}

static int
jobs_action(struct app *a, void *data, enum action act)
{
	struct jobs_view *v = data;
	size_t i;

	switch (act) {
	case ACT_REFRESH:
		reload(v);
		app_message(a, false, "listing the jobs again");
		return R_REDRAW;
	case ACT_KILL:
		return ask_kill(a, v);
	case ACT_ENTER:
		if ((i = list_selected(&v->list)) == SIZE_MAX)
			return R_NONE;
		if (strcmp(v->rows[i].state, "corrupt") == 0) {
			app_message(a, true, "job %s is corrupt: no log",
			    v->rows[i].id);
			return R_REDRAW;
		}
		app_push(a, &joblog_view, v->rows[i].id);
		return R_REDRAW;
	default:
		return list_move(&v->list, act, a->rows - 4) ? R_REDRAW : R_NONE;
	}
}

static int
jobs_click(struct app *a, void *data, int row, bool twice)
{
	struct jobs_view *v = data;

	if (row < 1 || !list_select_row(&v->list, (size_t)row - 1))
		return R_NONE;
	return twice ? jobs_action(a, data, ACT_ENTER) : R_REDRAW;
}

static void
jobs_status(struct app *a, void *data, char *buf, size_t len)
{
	struct jobs_view *v = data;
	size_t i, running = 0;

	for (i = 0; i < v->nrows; i++)
		running += strcmp(v->rows[i].state, "running") == 0;
	snprintf(buf, len, "%zu of %zu jobs, %zu running %s Enter: log%s",
	    v->list.nmap, v->nrows, running, ui_glyph("·", "-"),
	    a->readonly ? "" : "  K: kill");
}

static const struct keybinding jobs_keys[] = {
	{ 'K', ACT_KILL, "K" },
	{ 0, ACT_NONE, NULL },
};

const struct view_ops jobs_view = {
	.name = "jobs",
	.title = "Jobs",
	.keys = jobs_keys,
	.open = jobs_open,
	.close = jobs_close,
	.draw = jobs_draw,
	.action = jobs_action,
	.update = jobs_update,
	.click = jobs_click,
	.status = jobs_status,
};

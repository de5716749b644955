/*
 * jobs.c: the durable jobs of every host of the lab (protocol.md §2, §4):
 * one `calops jobs --json` per reachable host, all at once, each through
 * the lab model's transport for that host (borrowed: the view never makes
 * or closes one), merged newest first; a host that cannot be reached is
 * one dim row above them saying why.  The hosts are listed when the view
 * opens, on R (the app hands ACT_REFRESH to the view first), and every
 * JOBS_REFRESH_MS while it is on screen (no timer otherwise: an idle
 * console on another tab stays idle); Enter opens a job's log (joblog.c),
 * K kills a running job on its host once its id has been typed.
 */
#include "calops.h"

#include "app.h"
#include "buf.h"
#include "labmodel.h"
#include "list.h"
#include "text.h"
#include "transport.h"
#include "ui.h"

#define JOBS_REFRESH_MS	2000
#define JOBS_OUT_MAX	(8u << 20)	/* of `jobs --json` output */

struct job_row {
	const char *host;		/* borrowed from the lab */
	char	*id, *state, *cmd;
	double	 age;
	double	 fetched;		/* when age was true (console clock) */
	int	 exit_code;		/* -1: none */
	int	 sig;			/* 0: none */
};

/* `calops ARGS` run on one host: its output (capped) and why it failed. */
struct hcmd {
	struct jobs_view *v;
	const char	*host;		/* borrowed from the lab */
	const char	*what;		/* "calops jobs", for messages */
	struct rstream	*rs;		/* NULL: not running */
	struct buf	 out;
	bool		 cut;
	char		 err[256];	/* its last stderr line, or why not */
	void		(*done)(struct hcmd *, bool ok);
};

/* One host of the lab: the listing (first, so that its done hook finds
 * the host) and the rows it gave last. */
struct host_jobs {
	struct hcmd	 list;
	struct job_row	*rows;
	size_t		 nrows;
	bool		 loaded;
	char		 down[256];	/* why it is not reachable, or "" */
};

struct jobs_view {
	struct app	*app;
	struct host_jobs *hosts;	/* one per host of the lab */
	size_t		 nhosts;
	int		 hostw;		/* the HOST column: the longest name */
	const struct job_row **rows;	/* every host's, merged newest first */
	size_t		 nrows;
	struct list	 list;
	int		 ndown;		/* rows of hosts not reachable, drawn */
	long		 timer;
	struct hcmd	 kill;		/* `kill ID` */
	char		*kill_id;
};

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
	const struct job_row *r = v->rows[i];

	return app_filter_match(v->app, r->host) ||
	    app_filter_match(v->app, r->id) ||
	    app_filter_match(v->app, r->state) ||
	    app_filter_match(v->app, r->cmd);
}

/* Newest first across the hosts, by when each job started on the
 * console's clock (a host's own clock may differ); corrupt ones last. */
static int
row_cmp(const void *pa, const void *pb)
{
	const struct job_row *a = *(const struct job_row *const *)pa;
	const struct job_row *b = *(const struct job_row *const *)pb;
	double sa = a->fetched - a->age, sb = b->fetched - b->age;
	bool ca = strcmp(a->state, "corrupt") == 0;
	int c;

	if (ca != (strcmp(b->state, "corrupt") == 0))
		return ca ? 1 : -1;
	if (!ca && sa != sb)
		return sa > sb ? -1 : 1;
	if ((c = strcmp(a->host, b->host)) != 0)
		return c;
	return strcmp(a->id, b->id);
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
	if ((m = json_object_get(o, "reason")) != NULL)
		buf_addf(&b, "(%s)", json_string_value(m) != NULL ?
		    json_string_value(m) : "?");
	r->cmd = buf_detach(&b, NULL);
}

/* Host h's rows become rows (n of them) and every host's are merged
 * again; the selection stays on its job. */
static void
set_rows(struct host_jobs *h, struct job_row *rows, size_t n)
{
	struct jobs_view *v = h->list.v;
	const struct job_row *r;
	const char *host = NULL;
	char *id = NULL;
	size_t i, k, total = 0;

	if ((i = list_selected(&v->list)) != SIZE_MAX) {
		host = v->rows[i]->host;
		id = xstrdup(v->rows[i]->id);
	}
	rows_free(h->rows, h->nrows);
	h->rows = rows;
	h->nrows = n;
	h->loaded = true;
	for (k = 0; k < v->nhosts; k++)
		total += v->hosts[k].nrows;
	v->rows = xreallocarray(v->rows, total + 1, sizeof *v->rows);
	v->nrows = 0;
	for (k = 0; k < v->nhosts; k++)
		for (i = 0; i < v->hosts[k].nrows; i++)
			v->rows[v->nrows++] = &v->hosts[k].rows[i];
	qsort(v->rows, v->nrows, sizeof *v->rows, row_cmp);
	jobs_update(v->app, v);
	for (i = 0; id != NULL && i < v->list.nmap; i++) {
		r = v->rows[v->list.map[i]];
		if (r->host == host && strcmp(r->id, id) == 0)
			v->list.sel = i;
	}
	free(id);
}

/* The listing ended: the host's rows are replaced, or its err says why
 * not. */
static void
list_done(struct hcmd *c, bool ok)
{
	struct host_jobs *h = (struct host_jobs *)c;
	json_error_t je;
	json_t *doc, *jobs, *o;
	struct job_row *rows;
	const char *schema;
	size_t i, n;

	if (!ok)
		return;
	doc = json_loadb(c->out.data != NULL ? c->out.data : "", c->out.len, 0,
	    &je);
	jobs = json_object_get(doc, "jobs");
	schema = json_string_value(json_object_get(doc, "schema"));
	if (c->cut || !json_is_array(jobs) || schema == NULL ||
	    strcmp(schema, "calops-jobs/v1") != 0) {
		snprintf(c->err, sizeof c->err, "cannot read the job list: %s",
		    c->cut ? "too long" : doc == NULL ? je.text :
		    "not calops-jobs/v1");
		json_decref(doc);
		return;
	}
	n = json_array_size(jobs);
	rows = xcalloc(n + 1, sizeof *rows);
	json_array_foreach(jobs, i, o) {
		row_from_json(&rows[i], o);
		rows[i].host = c->host;
		rows[i].fetched = labmodel_now();
	}
	json_decref(doc);
	c->err[0] = '\0';
	set_rows(h, rows, n);
}

static void
hcmd_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct hcmd *c = arg;

	(void)rs;
	(void)cut;
	if (from_stderr) {
		if (len > 0)
			snprintf(c->err, sizeof c->err, "%.*s",
			    (int)(len > 200 ? 200 : len), line);
		return;
	}
	if (c->out.len + len + 1 > JOBS_OUT_MAX) {
		c->cut = true;
		return;
	}
	buf_add(&c->out, line, len);
	buf_add(&c->out, "\n", 1);
}

static void
hcmd_end(struct rstream *rs, const struct rstream_exit *e, void *arg)
{
	struct hcmd *c = arg;

	(void)rs;
	c->rs = NULL;
	if (e->code != 0 && c->err[0] == '\0')
		snprintf(c->err, sizeof c->err, "%s failed: %s", c->what,
		    e->err != NULL ? e->err : "exit status not 0");
	c->done(c, e->code == 0);
	buf_release(&c->out);
	c->cut = false;
	c->v->app->dirty = true;
}

static const struct rstream_cb hcmd_cb = { hcmd_line, hcmd_end };

/* Run `calops ARGV` on c's host through the lab model's transport; false
 * with c->err saying why when it cannot start. */
static bool
hcmd_start(struct hcmd *c, char *const argv[])
{
	struct transport *t;

	buf_release(&c->out);
	c->cut = false;
	if ((t = labmodel_transport(c->v->app->labm, c->host, c->err,
	    sizeof c->err)) == NULL)
		return false;
	return (c->rs = transport_exec(t, argv, &hcmd_cb, c, c->err,
	    sizeof c->err)) != NULL;
}

/* List the jobs of every host not being listed already. */
static void
reload(struct jobs_view *v)
{
	char *argv[] = { "jobs", "--json", NULL };
	struct host_jobs *h;
	size_t i;

	for (i = 0; i < v->nhosts; i++) {
		h = &v->hosts[i];
		if (labmodel_transport(v->app->labm, h->list.host, h->down,
		    sizeof h->down) == NULL)
			continue;
		h->down[0] = '\0';
		if (h->list.rs == NULL)
			hcmd_start(&h->list, argv);
	}
	v->app->dirty = true;
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

static void
kill_done(struct hcmd *c, bool ok)
{
	struct jobs_view *v = c->v;

	if (ok)
		app_message(v->app, false, "killed job %s on %s", v->kill_id,
		    c->host);
	else
		app_message(v->app, true, "cannot kill job %s: %s", v->kill_id,
		    c->err);
	reload(v);
}

static void *
jobs_open(struct app *a, const void *arg)
{
	struct jobs_view *v = xcalloc(1, sizeof *v);
	const struct lab *lab = labmodel_lab(a->labm);
	struct hcmd *c;
	size_t i, n;

	(void)arg;
	v->app = a;
	v->hosts = xcalloc(lab->nhosts + 1, sizeof *v->hosts);
	v->nhosts = lab->nhosts;
	v->hostw = 4;
	for (i = 0; i < v->nhosts; i++) {
		/* Names are ASCII (lab.h): bytes are columns; at most 16. */
		n = strlen(lab->hosts[i].name);
		if ((int)n > v->hostw)
			v->hostw = n < 16 ? (int)n : 16;
		c = &v->hosts[i].list;
		c->v = v;
		c->host = lab->hosts[i].name;
		c->what = "calops jobs";
		c->done = list_done;
	}
	v->kill.v = v;
	v->kill.what = "calops kill";
	v->kill.done = kill_done;
	reload(v);
	return v;
}

static void
hcmd_release(struct hcmd *c)
{
	if (c->rs != NULL)
		rstream_cancel(c->rs);
	buf_release(&c->out);
}

static void
jobs_close(void *data)
{
	struct jobs_view *v = data;
	size_t i;

	if (v->timer != 0)
		loop_del_timer(v->app->loop, v->timer);
	for (i = 0; i < v->nhosts; i++) {
		hcmd_release(&v->hosts[i].list);
		rows_free(v->hosts[i].rows, v->hosts[i].nrows);
	}
	hcmd_release(&v->kill);
	free(v->hosts);
	free(v->rows);
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
	char age[32], ex[32], *s;

	if (sel)
		ui_fill(stdscr, y, 0, ROLE_SELECTION);
	ui_put(stdscr, y, 1, 24, base, r->id, true);
	s = xasprintf("%s %s", g, r->state);
	ui_put(stdscr, y, 26, 9, sel ? base : sr, s, true);
	free(s);
	if (strcmp(r->state, "corrupt") == 0)
		snprintf(age, sizeof age, "-");
	else
		format_age(r->age + (r->state[0] == 'r' ? labmodel_now() -
		    r->fetched : 0), age, sizeof age);
	if (r->exit_code >= 0)
		snprintf(ex, sizeof ex, "%d", r->exit_code);
	else if (r->sig > 0)
		snprintf(ex, sizeof ex, "sig %d", r->sig);
	else
		snprintf(ex, sizeof ex, "-");
	ui_putf(stdscr, y, 36, 7, base, "%7s", age);
	ui_putf(stdscr, y, 44, 6, base, "%-6s", ex);
	ui_put(stdscr, y, 51, v->hostw, base, r->host, true);
	ui_put(stdscr, y, 52 + v->hostw, cols - 53 - v->hostw, base, r->cmd,
	    false);
}

static void
jobs_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct jobs_view *v = data;
	bool loaded = false;
	size_t i;
	char *s;
	int y;

	if (v->timer == 0)
		v->timer = loop_add_timer(a->loop, JOBS_REFRESH_MS, tick, v);
	ui_fill(stdscr, top, 0, ROLE_HEADER);
	ui_putf(stdscr, top, 1, cols - 2, ROLE_HEADER, "%-24s %-9s %7s %-6s "
	    "%-*s %s", "ID", "STATE", "AGE", "EXIT", v->hostw, "HOST",
	    "COMMAND");
	/* The hosts not reachable first, where scrolling cannot hide them. */
	for (i = 0, y = top + 1; i < v->nhosts; i++) {
		loaded |= v->hosts[i].loaded || v->hosts[i].down[0] != '\0';
		if (v->hosts[i].down[0] == '\0' || y >= top + rows - 2)
			continue;
		s = xasprintf("host %s: %s", v->hosts[i].list.host,
		    v->hosts[i].down);
		ui_put(stdscr, y++, 1, cols - 2, ROLE_DIM, s, false);
		free(s);
	}
	v->ndown = y - top - 1;
	list_scroll(&v->list, rows - 2 - v->ndown);
	for (i = v->list.top; i < v->list.nmap && y < top + rows - 1; i++, y++)
		draw_row(v, v->rows[v->list.map[i]], y, cols, i == v->list.sel);
	if (v->list.nmap == 0)
		ui_putf(stdscr, y + 1, 2, cols - 4, ROLE_DIM, "%s",
		    !loaded ? "listing the jobs…" : v->nrows == 0 ?
		    "no jobs on any host (calops run -- CMD starts one)" :
		    "no job matches the filter");
	/* The bottom line: why the first host that failed to list failed. */
	for (i = 0; i < v->nhosts && v->hosts[i].list.err[0] == '\0'; i++)
		;
	if (i < v->nhosts) {
		s = xasprintf("%s: %s", v->hosts[i].list.host,
		    v->hosts[i].list.err);
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
	char *argv[] = { "kill", v->kill_id, NULL };

	if (answer == NULL || strcmp(answer, v->kill_id) != 0) {
		app_message(a, false, "kill cancelled: '%s' is not the job's id",
		    answer != NULL ? answer : "");
		return;
	}
	v->kill.err[0] = '\0';
	if (!hcmd_start(&v->kill, argv))
		app_message(a, true, "cannot kill job %s: %s", v->kill_id,
		    v->kill.err);
	else
		app_message(a, false, "killing job %s on %s…", v->kill_id,
		    v->kill.host);
}

static int
ask_kill(struct app *a, struct jobs_view *v)
{
	size_t i = list_selected(&v->list);
	const struct job_row *r;
	char q[128], *id;

	if (a->readonly) {
		app_message(a, true, "read-only: jobs cannot be killed");
		return R_REDRAW;
	}
	if (i == SIZE_MAX)
		return R_NONE;
	r = v->rows[i];
	if (strcmp(r->state, "running") != 0) {
		app_message(a, true, "job %s is not running", r->id);
		return R_REDRAW;
	}
	if (v->kill.rs != NULL) {
		app_message(a, true, "a kill is under way");
		return R_REDRAW;
	}
	free(v->kill_id);
	v->kill_id = xstrdup(r->id);
	v->kill.host = r->host;
	/* The question is drawn as trusted text: the id came from the host. */
	id = text_sanitize_str(r->id);
	snprintf(q, sizeof q, "kill job %s on %s? type its id: ", id, r->host);
	free(id);
	app_ask(a, q, kill_answer, v);
	return R_REDRAW;
}

static int
jobs_action(struct app *a, void *data, enum action act)
{
	struct jobs_view *v = data;
	const struct job_row *r;
	const char *job[2];
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
		r = v->rows[i];
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
		return list_move(&v->list, act, a->rows - 4) ? R_REDRAW : R_NONE;
	}
}

static int
jobs_click(struct app *a, void *data, int row, bool twice)
{
	struct jobs_view *v = data;

	if (row < 1 + v->ndown || !list_select_row(&v->list, (size_t)(row -
	    1 - v->ndown)))
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

	for (i = 0; i < v->nrows; i++)
		running += strcmp(v->rows[i]->state, "running") == 0;
	for (i = 0; i < v->nhosts; i++)
		down += v->hosts[i].down[0] != '\0';
	if (down > 0)
		snprintf(hosts, sizeof hosts, " %s %zu host%s not reachable",
		    dot, down, down > 1 ? "s" : "");
	snprintf(buf, len, "%zu of %zu jobs, %zu running%s %s Enter: log%s",
	    v->list.nmap, v->nrows, running, hosts, dot, a->readonly ? "" :
	    "  K: kill");
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

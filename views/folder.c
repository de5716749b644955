/*
 * folder.c: a folder of the workspace, for `o` on a finding that names
 * one (a soak run's folder, 06-runtime/faults/): its entries with their
 * type, size and modification time, folders first, each group by name.
 * Enter or o opens the selected file (in $EDITOR or $PAGER here, in the
 * pager screen on an SSH host) or goes into the selected folder; h,
 * Backspace or Left go up, never above the workspace's root.  The entries
 * come from `calops ls --json` through the transport of the workspace's
 * host, this machine's included (protocol.md §1), which opens the folder
 * beneath the workspace and refuses a way out of it; every name came from
 * there and is drawn through the sanitiser.  On an SSH host, `o` on a
 * finding asks what its path is first: a file there goes on to the pager
 * in place of this screen.
 */
#include "calops.h"

#include <time.h>

#include "base/buf.h"
#include "lab/labmodel.h"
#include "proto/hostcmd.h"
#include "remote/transport.h"
#include "views/app/app.h"
#include "views/core/list.h"
#include "views/core/ui.h"
#include "views/folder.h"

#define FOLDER_OUT_MAX	(8u << 20)	/* bytes of a listing kept */

struct folder {
	struct app		*app;
	char			*rel;		/* the folder shown; "" the root */
	char			*where;		/* the finding's position */
	bool			 probe;		/* the first answer may be a
						   file: opened in our place */
	struct hostcmd_ls	 ls;		/* rel's entries */
	size_t			*order;		/* folders first, by name */
	struct list		 list;
	/* The listing asked for: its path, and whom to select in it. */
	struct rstream		*rs;
	char			*asked;
	char			*select;
	struct buf		 out;
	bool			 cut;
	char			 err[300];
};

static const struct list_col folder_cols[] = {
	{ "NAME", 0, 8, LIST_LEFT, ROLE_NORMAL, LIST_GROW, -1 },
	{ "TYPE", 6, 6, LIST_LEFT, ROLE_DIM, 0, -1 },
	{ "SIZE", 10, 5, LIST_RIGHT, ROLE_NORMAL, 0, -1 },
	{ "MODIFIED", 16, 16, LIST_LEFT, ROLE_DIM, 0, -1 },
};

/* rel joined with name: a path of the workspace. */
static char *
join(const char *rel, const char *name)
{
	return rel[0] == '\0' ? xstrdup(name) : xasprintf("%s/%s", rel,
	    name);
}

/* "12 B", "3.4 KiB", ... */
static void
size_text(long long n, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	size_t u = 0;

	if (n < 1024) {
		snprintf(buf, len, "%lld B", n);
		return;
	}
	for (v /= 1024; v >= 1024 && u + 1 < nitems(unit); u++)
		v /= 1024;
	snprintf(buf, len, "%.1f %s", v, unit[u]);
}

static const char *
cell(const void *arg, size_t rec, size_t col, char *buf, size_t len,
    enum role *role)
{
	const struct folder *v = arg;
	const struct hostcmd_ls_entry *e = &v->ls.v[v->order[rec]];
	struct tm tm;
	time_t t;

	switch (col) {
	case 0:
		if (e->opaque)
			*role = ROLE_DIM;
		else if (e->type == HOSTCMD_LS_FOLDER)
			*role = ROLE_KEY;
		/* Drawn through the sanitiser: the host's name. */
		snprintf(buf, len, "%s%s", e->name, e->type ==
		    HOSTCMD_LS_FOLDER ? "/" : "");
		return buf;
	case 1:
		return hostcmd_ls_type_name(e->type);
	case 2:
		size_text(e->size, buf, len);
		return buf;
	default:
		t = (time_t)e->mtime;
		if (localtime_r(&t, &tm) == NULL)
			return NULL;
		strftime(buf, len, "%Y-%m-%d %H:%M", &tm);
		return buf;
	}
}

/* Folders first, then by name (as the host sorted them). */
static int
order_cmp(const void *a, const void *b, void *arg)
{
	const struct folder *v = arg;
	const struct hostcmd_ls_entry *x = &v->ls.v[*(const size_t *)a];
	const struct hostcmd_ls_entry *y = &v->ls.v[*(const size_t *)b];
	bool xd = x->type == HOSTCMD_LS_FOLDER, yd = y->type ==
	    HOSTCMD_LS_FOLDER;

	if (xd != yd)
		return xd ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A new listing of path shown: its rows, the selection on select. */
static void
show(struct folder *v, char *path, struct hostcmd_ls *ls)
{
	size_t i;

	hostcmd_ls_release(&v->ls);
	v->ls = *ls;
	free(v->rel);
	v->rel = path;
	free(v->order);
	v->order = xcalloc(v->ls.n + 1, sizeof *v->order);
	for (i = 0; i < v->ls.n; i++)
		v->order[i] = i;
	qsort_r(v->order, v->ls.n, sizeof *v->order, order_cmp, v);
	v->list.sel = v->list.top = 0;
	list_rebuild(&v->list, v->ls.n, NULL, NULL);
	for (i = 0; v->select != NULL && i < v->ls.n; i++)
		if (strcmp(v->ls.v[v->order[i]].name, v->select) == 0)
			(void)list_select_row(&v->list, i);
}

static void
ls_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct folder *v = arg;

	(void)rs;
	if (from_stderr) {
		/* The last one says why (drawn through the sanitiser). */
		if (len > 0)
			snprintf(v->err, sizeof v->err, "%.*s", (int)(len >
			    200 ? 200 : len), line);
		return;
	}
	if (cut || buf_add(&v->out, line, len) != 0 ||
	    buf_addc(&v->out, '\n') != 0)
		v->cut = true;
}

/* A file asked for: opened in its place (the pager, or $EDITOR here);
 * the first answer of a probe closes this screen first. */
static void
open_file(struct folder *v, const char *path)
{
	struct app *a = v->app;
	char *rel = xstrdup(path), *where = v->where != NULL &&
	    v->probe ? xstrdup(v->where) : NULL;

	if (v->probe)
		app_close(a, v);	/* v is freed */
	app_open_regular(a, rel, where);
	free(rel);
	free(where);
}

static void
ls_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct folder *v = arg;
	struct hostcmd_ls ls;
	char why[256];
	char *path = v->asked;

	(void)rs;
	v->rs = NULL;
	v->asked = NULL;
	/* A host whose calops has no ls (older than this one): a finding's
	 * path goes to the pager as it always did, which says what cat
	 * finds there. */
	if (v->probe && ex->err == NULL && ex->code != 0) {
		buf_release(&v->out);
		open_file(v, path);	/* v is freed */
		free(path);
		return;
	}
	if (ex->err != NULL || ex->code != 0) {
		if (v->err[0] == '\0')
			snprintf(v->err, sizeof v->err, "cannot list '%s': %s",
			    path, ex->err != NULL ? ex->err : "calops ls failed");
	} else if (v->cut)
		snprintf(v->err, sizeof v->err, "the listing of '%s' is longer "
		    "than the %u MiB kept", path, FOLDER_OUT_MAX >> 20);
	else if (hostcmd_ls_parse(v->out.data, v->out.len, &ls, why,
	    sizeof why) != 0)
		snprintf(v->err, sizeof v->err, "the host's listing of '%s': "
		    "%s", path, why);
	else if (ls.type == HOSTCMD_LS_FOLDER) {
		show(v, path, &ls);
		path = NULL;
		v->probe = false;
	} else if (ls.type == HOSTCMD_LS_FILE) {
		hostcmd_ls_release(&ls);
		buf_release(&v->out);
		open_file(v, path);	/* v may be freed */
		free(path);
		return;
	} else {
		snprintf(v->err, sizeof v->err, "'%s' is a %s: neither a file "
		    "nor a folder", path, hostcmd_ls_type_name(ls.type));
		hostcmd_ls_release(&ls);
	}
	free(path);
	buf_release(&v->out);
	app_redraw(v->app);
}

static const struct rstream_cb ls_cb = { ls_line, ls_done };

/* Ask what path is (rel of the workspace, "" its root), select then
 * selected in it when a folder; the one listing asked for at a time. */
static void
list_path(struct folder *v, const char *path, const char *select)
{
	struct app *a = v->app;
	struct strv argv = { NULL, 0, 0 };
	struct transport *t;

	if (v->rs != NULL)
		return;
	v->err[0] = '\0';
	v->cut = false;
	buf_init(&v->out, FOLDER_OUT_MAX);
	free(v->select);
	v->select = select != NULL ? xstrdup(select) : NULL;
	hostcmd_ls(&argv, app_workspace(a), path);
	if ((t = labmodel_transport(app_labmodel(a),
	    app_workspace_lab_host(a), v->err, sizeof v->err)) != NULL &&
	    (v->rs = transport_exec(t, argv.v, &ls_cb, v, v->err,
	    sizeof v->err)) != NULL)
		v->asked = xstrdup(path);
	strv_free(&argv);
}

static void *
folder_open(struct app *a, const void *arg)
{
	const struct folder_arg *fa = arg;
	struct folder *v = xcalloc(1, sizeof *v);

	v->app = a;
	v->rel = xstrdup("");
	v->probe = fa->probe;
	v->where = fa->where != NULL ? xstrdup(fa->where) : NULL;
	list_path(v, fa->rel, NULL);
	return v;
}

static void
folder_close(void *data)
{
	struct folder *v = data;

	if (v->rs != NULL)
		transport_rstream_cancel(v->rs);
	buf_release(&v->out);
	hostcmd_ls_release(&v->ls);
	list_release(&v->list);
	free(v->order);
	free(v->rel);
	free(v->where);
	free(v->asked);
	free(v->select);
	free(v);
}

static void
folder_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct folder *v = data;
	const char *host = app_workspace_lab_host(a);
	char *head;

	/* The workspace's path last: it may be long. */
	head = xasprintf("folder: %s/ on %s, in %s", v->rel[0] != '\0' ?
	    v->rel : ".", host != NULL ? host : "this machine",
	    app_workspace(a));
	ui_fill(stdscr, top, 0, ROLE_HEADER);
	ui_put(stdscr, top, 1, cols - 2, ROLE_HEADER, head, true);
	free(head);
	if (v->err[0] != '\0')
		ui_put(stdscr, top + 1, 1, cols - 2, ROLE_ERROR, v->err, true);
	else if (v->rs != NULL)
		ui_put(stdscr, top + 1, 1, cols - 2, ROLE_DIM, "listing …",
		    false);
	else if (v->ls.more > 0)
		ui_putf(stdscr, top + 1, 1, cols - 2, ROLE_WARN, "%zu entries "
		    "and %lld more not listed (the host lists %d at most)",
		    v->ls.n, v->ls.more, HOSTCMD_LS_MAX);
	else
		ui_putf(stdscr, top + 1, 1, cols - 2, ROLE_DIM, "%zu entr%s",
		    v->ls.n, v->ls.n == 1 ? "y" : "ies");
	list_draw_cols(&v->list, top + 2, rows - 2, 0, cols, folder_cols,
	    nitems(folder_cols), -1, cell, v, v->probe ? NULL :
	    "an empty folder");
}

/* Enter, o: into the selected folder, or the selected file opened; a
 * link is asked about as its target is (the host follows it inside). */
static int
enter(struct folder *v)
{
	size_t i = list_selected(&v->list);
	const struct hostcmd_ls_entry *e;
	char *path;

	if (i == SIZE_MAX || v->rs != NULL)
		return R_NONE;
	e = &v->ls.v[v->order[i]];
	if (e->opaque) {
		app_message(v->app, true, "its name is not UTF-8: it cannot "
		    "be opened from here");
		return R_REDRAW;
	}
	path = join(v->rel, e->name);
	if (e->type == HOSTCMD_LS_FILE)
		open_file(v, path);
	else if (e->type == HOSTCMD_LS_OTHER)
		app_message(v->app, true, "cannot open '%s': neither a file "
		    "nor a folder", path);
	else
		list_path(v, path, NULL);
	free(path);
	return R_REDRAW;
}

/* h, Backspace: the folder above, the one left selected; never above the
 * workspace's root. */
static int
parent(struct folder *v)
{
	char *up, *slash;

	if (v->rs != NULL)
		return R_NONE;
	if (v->rel[0] == '\0') {
		app_message(v->app, false, "the workspace's root: nothing "
		    "above it is shown");
		return R_REDRAW;
	}
	up = xstrdup(v->rel);
	slash = strrchr(up, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		up[0] = '\0';
	list_path(v, up, slash != NULL ? slash + 1 : v->rel);
	free(up);
	return R_REDRAW;
}

static int
folder_action(struct app *a, void *data, enum action act)
{
	struct folder *v = data;

	(void)a;
	switch (act) {
	case ACT_ENTER:
	case ACT_OPEN:
		return enter(v);
	case ACT_PARENT:
	case ACT_LEFT:
		return parent(v);
	case ACT_REFRESH:
		list_path(v, v->rel, NULL);
		return R_REDRAW;
	default:
		return list_action(&v->list, act) ? R_REDRAW : R_NONE;
	}
}

static int
folder_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct folder *v = data;

	if (!list_click(&v->list, y, x))
		return R_NONE;
	return twice ? folder_action(a, data, ACT_ENTER) : R_REDRAW;
}

static void
folder_status(struct app *a, void *data, char *buf, size_t len)
{
	(void)a;
	(void)data;
	snprintf(buf, len, "Enter o: open  h Backspace: up  R: list again");
}

/* h and Left (the global "left") go up too. */
static const struct keybinding folder_keys[] = {
	{ 'o', ACT_OPEN, "o" },
	{ KEY_BACKSPACE, ACT_PARENT, "Backspace" },
	{ 127, ACT_PARENT, NULL },
	{ KEY_CTRL('h'), ACT_PARENT, NULL },
	{ 0, ACT_NONE, NULL },
};

const struct view_ops folder_view = {
	.title = "Folder",
	.keys = folder_keys,
	.open = folder_open,
	.close = folder_close,
	.draw = folder_draw,
	.action = folder_action,
	.click = folder_click,
	.status = folder_status,
};

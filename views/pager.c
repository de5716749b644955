/*
 * pager.c: a file of a workspace on an SSH host, read-only, for `o` on a
 * finding there: its lines fetched through the host's transport with
 * `calops cat WS PATH --from N --lines K` (the host judges the path as the
 * gates do: nothing outside the workspace), PAGER_CHUNK at a time, the
 * cursor on the line the finding names (for a JSON pointer, the line
 * `calops cat --line-of` finds it on there first), near the top of the
 * screen.  Moving past the last line fetched fetches the next lines, past
 * the first the ones before, into the window the job log keeps of a run
 * too (linewin.c), PAGER_KEEP lines at most.  Every line came
 * from the host and is drawn through the sanitiser, cut at the screen's
 * width.
 */
#include "calops.h"

#include "lab/labmodel.h"
#include "proto/hostcmd.h"
#include "remote/transport.h"
#include "views/app/app.h"
#include "views/core/textpane.h"
#include "views/core/ui.h"
#include "views/linewin.h"
#include "views/pager.h"

#define PAGER_CHUNK	2000	/* lines a fetch asks for */
#define PAGER_BEFORE	200	/* lines shown above the finding's */
#define PAGER_KEEP	(20 * PAGER_CHUNK)	/* at most in memory */

struct pager {
	struct app	*app;
	char		*host, *ws, *rel;
	long		 target;	/* the finding's line, or 0 */
	char		*pointer;	/* to be found first, or NULL */
	struct rstream	*locate;	/* finding it, or NULL */
	char		 located[32];
	long		 first;		/* the number of the first line held */
	struct linewin	 win;		/* the lines held, char * each */
	bool		 at_end;	/* the file ends after the last held */
	long		 from, asked;	/* the fetch running or last */
	char		 err[300];
	struct textpane	 pane;
	bool		 placed;
	bool		 to_top;	/* placed: bring it near the top */
};

static void	fetch(struct pager *p, long from, long count);

static char *
line_at(const struct pager *p, size_t i)
{
	return *(char **)linewin_item(&p->win, i);
}

static void
pager_refresh(struct pager *p)
{
	size_t i;
	bool was;
	long ln;

	textpane_clear(&p->pane);
	for (i = 0; i < p->win.n; i++) {
		ln = p->first + (long)i;
		textpane_add(&p->pane, ln == p->target ? ROLE_HEADER :
		    ROLE_NORMAL, ln == p->target ? 0 : -1, "%6ld  %s", ln,
		    line_at(p, i));
	}
	was = p->placed;
	textpane_done(&p->pane, &p->placed);
	p->to_top = p->placed && !was;
}

static void
fetch_line(struct linewin *w, const char *line, size_t len, bool cut,
    void *arg)
{
	char *s;

	(void)arg;
	s = cut ? xasprintf("%.*s%s", (int)len, line, ui_glyph("…", "...")) :
	    xstrndup(line, len);
	linewin_push(w, &s);
}

/* The lines fetched joined those held (linewin.c): number them, and keep
 * the selection on its line. */
static void
fetch_done(struct linewin *w, const char *err, enum linewin_where where,
    size_t added, size_t dropped, void *arg)
{
	struct pager *p = arg;
	size_t sel = list_selected(&p->pane.list);

	if (err != NULL) {
		snprintf(p->err, sizeof p->err, "%s", err);
		app_redraw(p->app);
		return;
	}
	if (where == LINEWIN_BEFORE) {
		p->first = p->from;
		if (dropped > 0)
			p->at_end = false;
		if (sel != SIZE_MAX)
			sel += added;
	} else {
		if (p->first == 0)	/* the first fetch */
			p->first = p->from;
		p->first += (long)dropped;
		p->at_end = w->printed < (size_t)p->asked;
		if (sel != SIZE_MAX)
			sel = sel >= dropped ? sel - dropped : 0;
	}
	pager_refresh(p);
	if (sel != SIZE_MAX && sel < w->n)
		(void)list_select_row(&p->pane.list, sel);
	app_redraw(p->app);
}

static void
free_line(void *item)
{
	free(*(char **)item);
}

static const struct linewin_ops fetch_ops = { fetch_line, fetch_done,
    free_line };

static void
locate_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	struct pager *p = arg;

	(void)rs;
	(void)cut;
	if (!from_stderr)
		snprintf(p->located, sizeof p->located, "%.*s",
		    (int)(len < 31 ? len : 31), line);
}

/* Where the pointer is, or line 1 when it names nothing (said). */
static void
locate_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct pager *p = arg;
	char why[80];
	long line;

	(void)rs;
	p->locate = NULL;
	if (ex->err == NULL && ex->code == 0 && hostcmd_line_of_parse(
	    p->located, strlen(p->located), &line, why, sizeof why) == 0)
		p->target = line;
	fetch(p, p->target > PAGER_BEFORE ? p->target - PAGER_BEFORE : 1,
	    PAGER_CHUNK);
	if (p->target == 0)
		snprintf(p->err, sizeof p->err, "#%s names nothing in the "
		    "file there: from its first line", p->pointer);
	app_redraw(p->app);
}

static const struct rstream_cb locate_cb = { locate_line, locate_done };

static void
fetch(struct pager *p, long from, long count)
{
	struct strv argv = { NULL, 0, 0 };
	struct transport *t;

	if (linewin_busy(&p->win))
		return;
	p->from = from;
	p->asked = count;
	p->err[0] = '\0';
	hostcmd_cat(&argv, p->ws, p->rel, from, count);
	if ((t = labmodel_transport(app_labmodel(p->app), p->host, p->err,
	    sizeof p->err)) != NULL && linewin_fetch(&p->win, t, p->host,
	    argv.v, p->first > 0 && from < p->first ? LINEWIN_BEFORE :
	    LINEWIN_AFTER) != 0)
		snprintf(p->err, sizeof p->err, "%s", p->win.err);
	strv_free(&argv);
}

static void *
pager_open(struct app *a, const void *arg)
{
	const struct pager_arg *pa = arg;
	struct pager *p = xcalloc(1, sizeof *p);

	p->app = a;
	p->host = xstrdup(pa->host);
	p->ws = xstrdup(pa->ws);
	p->rel = xstrdup(pa->rel);
	p->target = pa->line;
	linewin_init(&p->win, sizeof(char *), PAGER_KEEP, &fetch_ops, p);
	if (pa->pointer != NULL && p->target == 0) {
		struct strv argv = { NULL, 0, 0 };
		struct transport *t;

		p->pointer = xstrdup(pa->pointer);
		hostcmd_cat_line_of(&argv, p->ws, p->rel, p->pointer);
		if ((t = labmodel_transport(app_labmodel(a), p->host, p->err,
		    sizeof p->err)) != NULL)
			p->locate = transport_exec(t, argv.v, &locate_cb, p,
			    p->err, sizeof p->err);
		strv_free(&argv);
		if (p->locate != NULL)
			return p;
	}
	fetch(p, p->target > PAGER_BEFORE ? p->target - PAGER_BEFORE : 1,
	    PAGER_CHUNK);
	return p;
}

static void
pager_close(void *data)
{
	struct pager *p = data;

	if (p->locate != NULL)
		transport_rstream_cancel(p->locate);
	free(p->pointer);
	linewin_release(&p->win);
	textpane_release(&p->pane);
	free(p->host);
	free(p->ws);
	free(p->rel);
	free(p);
}

static void
pager_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct pager *p = data;
	size_t sel;
	char *head;

	(void)a;
	/* The workspace's path last: it may be long. */
	head = xasprintf("read-only: %s on %s, in %s", p->rel, p->host,
	    p->ws);
	ui_put(stdscr, top, 1, cols - 2, ROLE_HEADER, head, true);
	free(head);
	if (p->err[0] != '\0')
		ui_put(stdscr, top + 1, 1, cols - 2, ROLE_ERROR, p->err, true);
	else if (p->locate != NULL)
		ui_putf(stdscr, top + 1, 1, cols - 2, ROLE_DIM, "finding "
		    "where the finding points");
	else if (linewin_busy(&p->win))
		ui_putf(stdscr, top + 1, 1, cols - 2, ROLE_DIM, "fetching "
		    "lines from %ld%s", p->from, p->win.n == 0 ? "" : "…");
	else if ((sel = list_selected(&p->pane.list)) != SIZE_MAX)
		ui_putf(stdscr, top + 1, 1, cols - 2, ROLE_DIM, "line %ld %s "
		    "lines %ld-%ld%s", p->first + (long)sel, ui_glyph("·", "-"),
		    p->first, p->first + (long)p->win.n - 1, p->at_end ?
		    ", the end of the file" : "");
	/* Context above the finding's line, the rest of the screen below. */
	if (p->to_top && (sel = list_selected(&p->pane.list)) != SIZE_MAX) {
		p->pane.list.top = sel > 3 ? sel - 3 : 0;
		p->to_top = false;
	}
	if (textpane_draw(&p->pane, top + 2, rows - 2, cols)) {
		pager_refresh(p);
		textpane_draw(&p->pane, top + 2, rows - 2, cols);
	}
}

static int
pager_action(struct app *a, void *data, enum action act)
{
	struct pager *p = data;
	size_t sel = list_selected(&p->pane.list);
	bool moved;

	(void)a;
	if (act == ACT_LEFT)
		return R_POP;
	moved = list_action(&p->pane.list, act);
	/* At an edge of what is held, with more beyond it: fetch it. */
	if (!moved && p->win.n > 0 && sel == p->win.n - 1 && !p->at_end &&
	    (act == ACT_DOWN || act == ACT_PAGE_DOWN || act == ACT_END))
		fetch(p, p->first + (long)p->win.n, PAGER_CHUNK);
	else if (!moved && p->win.n > 0 && sel == 0 && p->first > 1 &&
	    (act == ACT_UP || act == ACT_PAGE_UP || act == ACT_HOME))
		/* the lines before, and none held twice */
		fetch(p, p->first > PAGER_CHUNK ? p->first - PAGER_CHUNK : 1,
		    p->first > PAGER_CHUNK ? PAGER_CHUNK : p->first - 1);
	else
		return moved ? R_REDRAW : R_NONE;
	return R_REDRAW;
}

static int
pager_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct pager *p = data;

	(void)a;
	(void)twice;
	return list_click(&p->pane.list, y, x) ? R_REDRAW : R_NONE;
}

const struct view_ops pager_view = {
	.title = "File",
	.open = pager_open,
	.close = pager_close,
	.draw = pager_draw,
	.action = pager_action,
	.click = pager_click,
};

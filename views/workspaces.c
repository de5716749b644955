/*
 * workspaces.c: the Workspaces screen: every workspace of the lab, local
 * and remote, one row each -- its host, its path, the project's status,
 * the eleven gates as a strip of glyphs, and the first gate that is not
 * green with its owner -- so that a lead with six models in flight sees
 * all six at once.  Enter opens the selected workspace's board (the
 * console's board, tickets and findings then show it); R evaluates every
 * workspace again now.
 *
 * The boards come from fleet.h: each workspace evaluated on its own host
 * (`calops check --stream` there, as the console's own board is), kept in
 * the console across screens, evaluated again when this screen opens on a
 * board older than WS_MAX_AGE_MS and, while it is on top, as boards age
 * past that.  A board whose host is not up is shown with its age.  The
 * workspace the console shows (▸) is the exception: its row is the
 * console's own board, the one the Board screen draws, never an older
 * copy.
 */
#include "calops.h"

#include "base/text.h"
#include "lab/labmodel.h"
#include "model/fleet.h"
#include "remote/lab.h"
#include "remote/transport.h"
#include "views/app/app.h"
#include "views/core/glyph.h"
#include "views/core/graph.h"
#include "views/core/list.h"
#include "views/core/ui.h"

#define WS_TICK_MS	1000
#define WS_MAX_AGE_MS	60000	/* a board older is evaluated again */

struct workspaces_view {
	struct app	*app;
	struct list	 list;
	long		 timer;
};

static const struct fleet_ws *
ws_at(struct app *a, size_t i)
{
	return fleet_at(app_fleet(a), i);
}

/* Whether w is the workspace the console's board shows. */
static bool
is_current(struct app *a, const struct fleet_ws *w)
{
	const char *host = app_workspace_lab_host(a);

	return host != NULL && strcmp(host, w->host) == 0 &&
	    strcmp(app_workspace(a), w->path) == 0;
}

/* The board a row shows: for the workspace the console shows, the
 * console's own, evaluated and watched live (the fleet's copy of it may
 * be minutes older); for the others the fleet's. */
static const struct boardsrc *
ws_src(struct app *a, const struct fleet_ws *w)
{
	return is_current(a, w) ? app_boardsrc(a) : w->src;
}

static bool
host_up(struct app *a, const struct fleet_ws *w)
{
	struct transport *t;
	char err[256];

	t = labmodel_transport(app_labmodel(a), w->host, err, sizeof err);
	return t != NULL && transport_up(t);
}

static bool
ws_matches(size_t i, void *arg)
{
	struct app *a = arg;
	const struct fleet_ws *w = ws_at(a, i);
	const struct board_eval *ev = &boardsrc_board(ws_src(a, w))->now;
	int g = ev->valid ? fleet_first_open_gate(ev) : -1;

	return app_filter_match(a, w->host) || app_filter_match(a, w->path) ||
	    (ev->valid && (app_filter_match(a, ev->model_id) ||
	    app_filter_match(a, ev->project_status) || (g >= 0 &&
	    app_filter_match(a, ev->gates[g].owner))));
}

static void
workspaces_refresh(struct app *a, void *data)
{
	struct workspaces_view *v = data;

	v->app = a;
	list_rebuild(&v->list, fleet_count(app_fleet(a)),
	    app_filter(a)[0] != '\0' ? ws_matches : NULL, a);
}

static void *
workspaces_open(struct app *a, const void *arg)
{
	struct workspaces_view *v = xcalloc(1, sizeof *v);

	(void)arg;
	fleet_refresh(app_fleet(a), WS_MAX_AGE_MS);
	workspaces_refresh(a, v);
	return v;
}

static void
workspaces_close(void *data)
{
	struct workspaces_view *v = data;

	if (v->timer != 0)
		loop_del_timer(app_loop(v->app), v->timer);
	list_release(&v->list);
	free(v);
}

/* Ages tick and old boards go again, only while the screen is seen. */
static void
tick(struct loop *l, void *arg)
{
	struct workspaces_view *v = arg;

	(void)l;
	v->timer = 0;
	if (!app_on_top(v->app, v))
		return;
	fleet_refresh(app_fleet(v->app), WS_MAX_AGE_MS);
	app_redraw(v->app);
}

/* The last width columns of s (made safe), with an ellipsis in front when
 * it is cut: a path's end says more than its start. */
static void
put_tail(int y, int x, int width, enum role r, const char *s)
{
	char *safe = text_sanitize_str(s), *p = safe, *q;
	const char *dots = ui_glyph("…", "~");

	if (ui_width(safe) > width && width > 1) {
		while (*p != '\0' && ui_width(p) > width - 1) {
			/* one character on, not one byte */
			for (q = p + 1; ((unsigned char)*q & 0xc0) == 0x80; q++)
				;
			p = q;
		}
		x += ui_put(stdscr, y, x, 1, r, dots, false);
		width--;
	}
	ui_put(stdscr, y, x, width, r, p, true);
	free(safe);
}

struct cols {
	int host, path, status, owner;
};

static void
layout(int cols, struct cols *c)
{
	c->host = cols >= 120 ? 14 : 10;
	c->status = 16;
	c->owner = cols >= 120 ? 16 : 10;
	/* mark, gates, the gate's id, the age and the blanks between */
	c->path = cols - 2 - c->host - c->status - GATE_COUNT - 4 - c->owner -
	    6 - 7;
	if (c->path < 8)
		c->path = 8;
}

struct ws_draw {
	struct app	*a;
	struct cols	 c;
};

/* How old a board is, as the screens say durations; "…" while the first
 * evaluation runs. */
static void
age_text(const struct boardsrc *src, char *buf, size_t len)
{
	int64_t valid = boardsrc_valid_ms(src);

	if (valid == 0)
		snprintf(buf, len, "%s", boardsrc_evaluating(src) ?
		    ui_glyph("…", "..") : "-");
	else
		graph_fmt_dur((double)(loop_now_ms() - valid) / 1000, buf,
		    len);
}

static void
draw_ws(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	const struct ws_draw *d = arg;
	const struct cols *c = &d->c;
	const struct fleet_ws *w = ws_at(d->a, rec);
	const struct boardsrc *src = ws_src(d->a, w);
	const struct board *b = boardsrc_board(src);
	const struct board_eval *ev = &b->now;
	enum role base = sel ? ROLE_SELECTION : ROLE_NORMAL;
	bool busy = boardsrc_evaluating(src);
	int64_t valid = boardsrc_valid_ms(src);
	char age[16];
	int g, open;

	(void)cols;
	ui_put(stdscr, y, x, 1, sel ? base : ROLE_HEADER,
	    is_current(d->a, w) ? ui_glyph("▸", ">") : " ", true);
	x += 2;
	ui_put(stdscr, y, x, c->host, base, w->host, true);
	x += c->host + 1;
	put_tail(y, x, c->path, base, w->path);
	x += c->path + 1;
	if (!ev->valid) {
		ui_put(stdscr, y, x, c->status, sel ? base : busy ?
		    ROLE_DIM : ROLE_FAIL, busy ? "evaluating" : "no board",
		    true);
		x += c->status + 1 + GATE_COUNT + 1 + 4 + c->owner + 2;
	} else {
		ui_put(stdscr, y, x, c->status, sel ? base :
		    strcmp(ev->project_status, "RELEASED") == 0 ? ROLE_PASS :
		    ROLE_WARN, ev->project_status, true);
		x += c->status + 1;
		for (g = 0; g < GATE_COUNT; g++)
			ui_put(stdscr, y, x + g, 1, sel ? base :
			    (enum role)glyph_status_role(ev->gates[g].status),
			    glyph_status(ev->gates[g].status), false);
		x += GATE_COUNT + 1;
		open = fleet_first_open_gate(ev);
		ui_put(stdscr, y, x, 4, base, open >= 0 ?
		    ev->gates[open].id : "-", true);
		x += 4 + 1;
		ui_put(stdscr, y, x, c->owner, base, open >= 0 &&
		    ev->gates[open].owner != NULL ? ev->gates[open].owner :
		    "-", true);
		x += c->owner + 1;
	}
	age_text(src, age, sizeof age);
	/* A board whose host is away, or that failed since, or is old, is
	 * not news. */
	ui_putf(stdscr, y, x, 6, sel ? base : !host_up(d->a, w) ||
	    b->error != NULL || (valid != 0 && loop_now_ms() - valid >
	    WS_MAX_AGE_MS * 2) ? ROLE_WARN : ROLE_DIM, "%6s", age);
}

static void
workspaces_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct workspaces_view *v = data;
	struct ws_draw d = { .a = a };
	const struct fleet_ws *w;
	const struct board_eval *ev;
	const struct board *b;
	char header[200], *line;
	size_t i;
	int g, y;

	v->app = a;
	if (v->timer == 0)
		v->timer = loop_add_timer(app_loop(a), WS_TICK_MS, tick, v);
	layout(cols, &d.c);
	snprintf(header, sizeof header, " %-*s %-*s %-*s %-*s %-4s %-*s %6s",
	    d.c.host, "HOST", d.c.path, "WORKSPACE", d.c.status, "STATUS",
	    GATE_COUNT, "G0-G10", "NEXT", d.c.owner, "OWNER", "AGE");
	list_draw(&v->list, top, rows - 3, 0, cols, header, draw_ws, &d,
	    "the lab names no workspace");
	if ((i = list_selected(&v->list)) == SIZE_MAX)
		return;
	/* The selected workspace in full: where, what, and why not. */
	w = ws_at(a, i);
	b = boardsrc_board(ws_src(a, w));
	ev = &b->now;
	y = top + rows - 2;
	line = xasprintf("%s:%s%s%s%s", w->host, w->path, ev->valid ?
	    "  model " : "", ev->valid ? ev->model_id : "", host_up(a, w) ?
	    "" : "  (its host is not up: the board is as it was)");
	ui_put(stdscr, y, 1, cols - 2, ROLE_HEADER, line, false);
	free(line);
	if (b->error != NULL) {
		ui_put(stdscr, y + 1, 1, cols - 2, ROLE_FAIL, b->error, false);
		return;
	}
	if (!ev->valid || (g = fleet_first_open_gate(ev)) < 0)
		return;
	line = xasprintf("%s %s: %s, owner %s%s%s%s%s", ev->gates[g].id,
	    ev->gates[g].name != NULL ? ev->gates[g].name : "",
	    gate_status_name(ev->gates[g].status), ev->gates[g].owner !=
	    NULL ? ev->gates[g].owner : "none", ev->gates[g].due != NULL ?
	    ", due " : "", ev->gates[g].due != NULL ? ev->gates[g].due : "",
	    ev->gates[g].failback != NULL ? ", failback " : "",
	    ev->gates[g].failback != NULL ? ev->gates[g].failback : "");
	ui_put(stdscr, y + 1, 1, cols - 2, ROLE_DIM, line, false);
	free(line);
}

static int
workspaces_action(struct app *a, void *data, enum action act)
{
	struct workspaces_view *v = data;
	const struct fleet_ws *w;
	size_t i;

	switch (act) {
	case ACT_REFRESH:
		/* The status line counts them as they run. */
		fleet_refresh(app_fleet(a), 0);
		return R_REDRAW;
	case ACT_ENTER:
		if ((i = list_selected(&v->list)) == SIZE_MAX)
			return R_NONE;
		w = ws_at(a, i);
		/* The board shows it from now on: the screen goes. */
		app_open_workspace(a, w->host, w->path);
		return R_REDRAW;
	default:
		return list_action(&v->list, act) ? R_REDRAW : R_NONE;
	}
}

static int
workspaces_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct workspaces_view *v = data;

	if (!list_click(&v->list, y, x))
		return R_NONE;
	return twice ? workspaces_action(a, data, ACT_ENTER) : R_REDRAW;
}

static void
workspaces_status(struct app *a, void *data, char *buf, size_t len)
{
	const struct fleet *f = app_fleet(a);
	const struct fleet_ws *w;
	const struct board *b;
	size_t i, released = 0, evaluating = 0, failed = 0;

	(void)data;
	for (i = 0; (w = fleet_at(f, i)) != NULL; i++) {
		b = boardsrc_board(ws_src(a, w));
		evaluating += boardsrc_evaluating(ws_src(a, w));
		failed += b->error != NULL;
		released += b->now.valid &&
		    strcmp(b->now.project_status, "RELEASED") == 0;
	}
	snprintf(buf, len, "%zu workspaces, %zu released", fleet_count(f),
	    released);
	if (evaluating > 0)
		snprintf(buf + strlen(buf), len - strlen(buf), " · %zu "
		    "evaluating", evaluating);
	if (failed > 0)
		snprintf(buf + strlen(buf), len - strlen(buf), " · %zu "
		    "without a fresh board", failed);
}

static const struct view_note workspaces_notes[] = {
	{ "▸", "the workspace the board, tickets and findings show" },
	{ "STATUS", "the project's: the first gate that is not pass, a "
	    "missing vendor deliverable, or RELEASED" },
	{ "G0-G10", "each gate's status, as on the board" },
	{ "NEXT", "the first gate that is not green, and its owner" },
	{ "AGE", "how old the board is (evaluated on its host)" },
	{ NULL, NULL },
};

const struct view_ops workspaces_view = {
	.title = "Workspaces",
	.notes = workspaces_notes,
	.open = workspaces_open,
	.close = workspaces_close,
	.draw = workspaces_draw,
	.action = workspaces_action,
	.update = workspaces_refresh,
	.click = workspaces_click,
	.status = workspaces_status,
};

/* tickets.c: M01-M13 with progress derived from evidence, never typed. */
#include "calops.h"

#include "views/app/app.h"
#include "views/core/glyph.h"
#include "views/core/list.h"
#include "views/core/ui.h"

struct tickets_view {
	struct list	 list;
	struct app	*app;
	int		 sort;		/* a column of sort_names */
};

static const char *const sort_names[] = { "ticket", "progress", "state",
    "estimate", "owner" };

static int
cmp_ticket(size_t x, size_t y, void *arg)
{
	const struct tickets_view *v = arg;
	const struct board_ticket *t = app_board(v->app)->now.tickets;
	const char *a, *b;

	switch (v->sort) {
	case 1:	/* least done first */
		return (t[x].progress > t[y].progress) -
		    (t[x].progress < t[y].progress);
	case 2:
		a = t[x].state, b = t[y].state;
		break;
	case 3:	/* the longest first; none last */
		return (t[x].estimate_days < t[y].estimate_days) -
		    (t[x].estimate_days > t[y].estimate_days);
	case 4:
		a = t[x].owner, b = t[y].owner;
		break;
	default:
		return 0;
	}
	if (a == NULL || b == NULL)
		return (a == NULL) - (b == NULL);
	return strcmp(a, b);
}

static bool
ticket_matches(size_t i, void *arg)
{
	struct app *a = arg;
	const struct board_ticket *t = &app_board(a)->now.tickets[i];

	return app_filter_match(a, t->id) || app_filter_match(a, t->title) ||
	    app_filter_match(a, t->owner) || app_filter_match(a, t->state) ||
	    (t->claimed_done_without_evidence &&
	    app_filter_match(a, "claimed done, evidence missing"));
}

static void
tickets_refresh(struct app *a, void *data)
{
	struct tickets_view *v = data;

	v->app = a;
	list_rebuild(&v->list, app_board(a)->now.valid ?
	    app_board(a)->now.ntickets : 0, app_filter(a)[0] != '\0' ?
	    ticket_matches : NULL, a);
	if (v->sort != 0)
		list_sort(&v->list, cmp_ticket, v);
}

static void *
tickets_open(struct app *a, const void *arg)
{
	struct tickets_view *v = xcalloc(1, sizeof *v);

	(void)arg;
	tickets_refresh(a, v);
	return v;
}

static void
tickets_close(void *data)
{
	struct tickets_view *v = data;

	list_release(&v->list);
	free(v);
}

/* The progress bar: filled cells, then empty ones, then the percentage. */
static void
draw_bar(int y, int x, int width, double progress, bool sel)
{
	int filled = (int)(progress * width + 0.5), i;

	wattrset(stdscr, ui_attr(sel ? ROLE_SELECTION : progress >= 1 ?
	    ROLE_PASS : ROLE_PROGRESS));
	wmove(stdscr, y, x);
	for (i = 0; i < width; i++)
		waddstr(stdscr, i < filled ? ui_glyph("█", "#") :
		    ui_glyph("░", "."));
	wattrset(stdscr, ui_attr(ROLE_NORMAL));
}

/* The checks behind a ticket, "G0.schema ✔ G0.files ✘ G9.soak ○ …"; in
 * full, a check with nothing to judge says so in words. */
static void
checks_text(const struct board_ticket *t, bool full, char *buf, size_t len)
{
	const char *name, *glyph;
	enum role r;
	json_t *v;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach(t->checks, name, v) {
		int n;

		glyph = glyph_verdict(json_string_value(v), &r);
		n = snprintf(buf + off, len - off, "%s%s %s%s",
		    off > 0 ? "  " : "", name, glyph, full && r == ROLE_DIM ?
		    " not judged" : "");

		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
}

static void
draw_ticket(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	const struct tickets_view *v = arg;
	const struct board_ticket *t = &app_board(v->app)->now.tickets[rec];
	enum role base = sel ? ROLE_SELECTION : ROLE_NORMAL;
	bool claim = t->claimed_done_without_evidence;
	char checks[512];
	int w;

	x += 1;
	x += ui_putf(stdscr, y, x, 4, base, "%-4s", t->id) + 1;
	ui_put(stdscr, y, x, 24, base, t->title, true);
	x += 25;
	draw_bar(y, x, 10, t->progress, sel);
	x += 11;
	ui_putf(stdscr, y, x, 5, base, "%3.0f%%", t->progress * 100);
	x += 6;
	ui_put(stdscr, y, x, 7, base, t->state != NULL ? t->state : "-", true);
	x += 8;
	if (t->estimate_days >= 0)
		ui_putf(stdscr, y, x, 5, base, "%4.1fd", t->estimate_days);
	x += 6;
	/* A claim without evidence matters more than the owner: on a narrow
	 * terminal it takes the owner's place. */
	w = cols >= 120 ? 24 : cols - x - 2;
	if (!claim || cols >= 120) {
		ui_put(stdscr, y, x, w, base, t->owner != NULL ? t->owner : "-",
		    true);
		x += w + 1;
	}
	if (claim)
		x += ui_putf(stdscr, y, x, cols - x - 1, sel ? base : ROLE_FAIL,
		    "%s claimed done, evidence missing", ui_glyph("⚠", "!")) + 2;
	if (cols - x > 10) {
		checks_text(t, false, checks, sizeof checks);
		ui_put(stdscr, y, x, cols - x - 1, sel ? base : ROLE_DIM,
		    checks, false);
	}
}

static void
tickets_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct tickets_view *v = data;
	const struct board_ticket *t;
	char checks[512], header[128];
	size_t i;
	int x, y;

	v->app = a;
	snprintf(header, sizeof header, "%-4s %-24s %-10s %5s %-7s %5s %s",
	    "ID", "TICKET", "PROGRESS", "", "STATE", "EST", "OWNER");
	list_draw(&v->list, top, rows - 2, 0, cols, header, draw_ticket, v,
	    NULL);
	/* The selected ticket's claim and checks in full, at the bottom. */
	if ((i = list_selected(&v->list)) != SIZE_MAX) {
		t = &app_board(a)->now.tickets[i];
		y = top + rows - 1;
		checks_text(t, true, checks, sizeof checks);
		x = 2 + ui_putf(stdscr, y, 1, cols - 2, ROLE_HEADER, "%s checks:",
		    t->id);
		if (t->claimed_done_without_evidence)
			x += 2 + ui_putf(stdscr, y, x, cols - x - 1, ROLE_FAIL,
			    "%s claimed done, evidence missing",
			    ui_glyph("⚠", "!"));
		if (x < cols - 1)
			ui_put(stdscr, y, x, cols - x - 1, ROLE_NORMAL, checks,
			    false);
	}
}

static int
tickets_action(struct app *a, void *data, enum action act)
{
	struct tickets_view *v = data;
	size_t i;

	if (act == ACT_SORT || act == ACT_SORT_BACK) {
		v->sort = list_sort_step(v->sort,
		    (int)nitems(sort_names), act);
		tickets_refresh(a, v);
		app_message(a, false, "sorted by %s", sort_names[v->sort]);
		return R_REDRAW;
	}
	if (act == ACT_ENTER || act == ACT_RIGHT || act == ACT_WHY) {
		if ((i = list_selected(&v->list)) == SIZE_MAX)
			return R_NONE;
		app_push(a, &ticket_view, &i);
		return R_REDRAW;
	}
	return list_action(&v->list, act) ? R_REDRAW : R_NONE;
}

static int
tickets_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct tickets_view *v = data;

	if (!list_click(&v->list, y, x))
		return R_NONE;
	return twice ? tickets_action(a, data, ACT_ENTER) : R_REDRAW;
}

static void
tickets_status(struct app *a, void *data, char *buf, size_t len)
{
	const struct tickets_view *v = data;
	size_t i, done = 0, claimed = 0;
	char sorted[48] = "";

	if (v->sort != 0)
		snprintf(sorted, sizeof sorted, " %s sorted by %s",
		    ui_glyph("·", "-"), sort_names[v->sort]);
	for (i = 0; i < app_board(a)->now.ntickets; i++) {
		done += app_board(a)->now.tickets[i].progress >= 1;
		claimed +=
		    app_board(a)->now.tickets[i].claimed_done_without_evidence;
	}
	snprintf(buf, len, "%zu of %zu tickets have their evidence %s %zu "
	    "claimed done without it%s", done, app_board(a)->now.ntickets,
	    ui_glyph("·", "-"), claimed, sorted);
}

static const struct keybinding tickets_keys[] = {
	{ '>', ACT_SORT, ">" },
	{ '<', ACT_SORT_BACK, "<" },
	{ 0, ACT_NONE, NULL },
};

const struct view_ops tickets_view = {
	.title = "Tickets",
	.keys = tickets_keys,
	.open = tickets_open,
	.close = tickets_close,
	.draw = tickets_draw,
	.action = tickets_action,
	.update = tickets_refresh,
	.click = tickets_click,
	.status = tickets_status,
};

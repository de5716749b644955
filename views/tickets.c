/* tickets.c: M01-M13 with progress derived from evidence, never typed. */
#include "calops.h"

#include "views/app/app.h"
#include "views/core/glyph.h"
#include "views/core/list.h"
#include "views/core/ui.h"

enum { COL_ID, COL_TICKET, COL_BAR, COL_PCT, COL_STATE, COL_EST, COL_OWNER,
    COL_CLAIM, COL_CHECKS, COL_N };

/* The title and the owner take the room there is once the numbers have
 * theirs; the checks what is left after them.  A claim without evidence is
 * shown whole or not at all: its minimum is set as it is drawn. */
static const struct list_col ticket_cols[] = {
	[COL_ID] = { "ID", 0, 4, LIST_LEFT, ROLE_NORMAL, 0, 0 },
	[COL_TICKET] = { "TICKET", 0, 20, LIST_LEFT, ROLE_NORMAL, LIST_REST,
	    -1 },
	[COL_BAR] = { "PROGRESS", 10, 10, LIST_LEFT, ROLE_PROGRESS, 0, 1 },
	[COL_PCT] = { "", 0, 4, LIST_RIGHT, ROLE_NORMAL, 0, 1 },
	[COL_STATE] = { "STATE", 0, 7, LIST_LEFT, ROLE_NORMAL, 0, 2 },
	[COL_EST] = { "EST", 0, 5, LIST_RIGHT, ROLE_NORMAL, 0, 3 },
	[COL_OWNER] = { "OWNER", 0, 16, LIST_LEFT, ROLE_NORMAL, LIST_REST,
	    4 },
	[COL_CLAIM] = { "", 0, 0, LIST_LEFT, ROLE_FAIL, 0, -1 },
	[COL_CHECKS] = { "", 0, 20, LIST_LEFT, ROLE_DIM,
	    LIST_GROW | LIST_LAST, -1 },
};

struct tickets_view {
	struct list	 list;
	struct app	*app;
	int		 sort;		/* a column of sort_names */
	bool		 narrow;	/* a claim takes the owner's place */
	struct list_col	 cols[COL_N];	/* ticket_cols, the claim's min set */
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

/* The progress bar: filled cells, then empty ones. */
static const char *
cell_bar(double progress, char *buf, size_t len, enum role *role)
{
	int filled = (int)(progress * 10 + 0.5), i, n;
	size_t off = 0;

	*role = progress >= 1 ? ROLE_PASS : ROLE_PROGRESS;
	buf[0] = '\0';
	for (i = 0; i < 10; i++) {
		n = snprintf(buf + off, len - off, "%s", i < filled ?
		    ui_glyph("█", "#") : ui_glyph("░", "."));
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
	return buf;
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

static const char *
claim_text(char *buf, size_t len)
{
	snprintf(buf, len, "%s claimed done, evidence missing",
	    ui_glyph("⚠", "!"));
	return buf;
}

static const char *
ticket_cell(const void *arg, size_t rec, size_t col, char *buf, size_t len,
    enum role *role)
{
	const struct tickets_view *v = arg;
	const struct board_ticket *t = &app_board(v->app)->now.tickets[rec];
	bool claim = t->claimed_done_without_evidence;

	switch (col) {
	case COL_ID:
		return t->id;
	case COL_TICKET:
		return t->title;
	case COL_BAR:
		return cell_bar(t->progress, buf, len, role);
	case COL_PCT:
		snprintf(buf, len, "%3.0f%%", t->progress * 100);
		return buf;
	case COL_STATE:
		return t->state != NULL ? t->state : "-";
	case COL_EST:
		if (t->estimate_days < 0)
			return NULL;
		snprintf(buf, len, "%4.1fd", t->estimate_days);
		return buf;
	case COL_OWNER:
		/* A claim without evidence matters more than the owner: on a
		 * narrow terminal it takes the owner's place. */
		if (claim && v->narrow) {
			*role = ROLE_FAIL;
			return claim_text(buf, len);
		}
		return t->owner != NULL ? t->owner : "-";
	case COL_CLAIM:
		return claim && !v->narrow ? claim_text(buf, len) : NULL;
	default:
		checks_text(t, false, buf, len);
		return buf;
	}
}

/* The claim column's minimum: the claim's width when a ticket shown makes
 * it and the screen has room for it beside the owner, else none (left
 * out). */
static int
claim_width(const struct tickets_view *v)
{
	char buf[64];
	size_t i;

	if (v->narrow)
		return 0;
	for (i = 0; i < v->list.nmap; i++)
		if (app_board(v->app)->now.tickets[v->list.map[i]]
		    .claimed_done_without_evidence)
			return ui_width(claim_text(buf, sizeof buf));
	return 0;
}

static void
tickets_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct tickets_view *v = data;
	const struct board_ticket *t;
	char checks[512];
	size_t i;
	int x, y;

	v->app = a;
	v->narrow = cols < 120;
	memcpy(v->cols, ticket_cols, sizeof v->cols);
	v->cols[COL_CLAIM].min = claim_width(v);
	/* The natural order is the tickets': no title marked for it. */
	list_draw_cols(&v->list, top, rows - 2, 0, cols, v->cols, COL_N,
	    v->sort != 0 ? v->sort : -1, ticket_cell, v, NULL);
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
	int c;

	/* A click on a sortable title sorts by that column. */
	if ((c = list_header_click(&v->list, y, x)) >= 0) {
		if (ticket_cols[c].sort < 0)
			return R_NONE;
		v->sort = ticket_cols[c].sort;
		tickets_refresh(a, v);
		app_message(a, false, "sorted by %s", sort_names[v->sort]);
		return R_REDRAW;
	}
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

/* board.c: the gate board, G0-G10 at a glance; Enter drills into a gate. */
#include "calops.h"

#include "views/app/app.h"
#include "views/core/glyph.h"
#include "views/core/list.h"
#include "views/core/ui.h"
#include "views/labrun.h"
#include "vocab/gateid.h"

struct board_view {
	struct list	 list;
	int		 sort;		/* a column of sort_names */
	struct app	*app;
};

static const char *const sort_names[] = { "gate", "status", "owner", "due",
    "findings" };

/* Worst first: what needs eyes. */
static int
status_rank(enum gate_status s)
{
	static const int rank[] = { [GS_FAIL] = 0, [GS_BLOCKED] = 1,
	    [GS_STALE] = 2, [GS_RUNNING] = 3, [GS_PENDING] = 4, [GS_PASS] = 5 };

	return (size_t)s < nitems(rank) ? rank[s] : 9;
}

/* An absent text sorts last. */
static int
cmp_text(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a == NULL) - (b == NULL);
	return strcmp(a, b);
}

static int
cmp_gate(size_t x, size_t y, void *arg)
{
	const struct board_view *b = arg;
	const struct board_gate *g = app_board(b->app)->now.gates;

	switch (b->sort) {
	case 1:
		return status_rank(g[x].status) - status_rank(g[y].status);
	case 2:
		return cmp_text(g[x].owner, g[y].owner);
	case 3:
		return cmp_text(g[x].due, g[y].due);
	case 4:	/* most errors, then most findings of any kind, first */
		if (g[x].counts[SEV_ERROR] != g[y].counts[SEV_ERROR])
			return g[x].counts[SEV_ERROR] > g[y].counts[SEV_ERROR] ?
			    -1 : 1;
		return (int)(g[y].counts[SEV_BLOCKED] + g[y].counts[SEV_STALE] +
		    g[y].counts[SEV_WARN]) - (int)(g[x].counts[SEV_BLOCKED] +
		    g[x].counts[SEV_STALE] + g[x].counts[SEV_WARN]);
	default:
		return 0;
	}
}

static bool
gate_matches(size_t i, void *arg)
{
	struct app *a = arg;
	const struct board_gate *g = &app_board(a)->now.gates[i];

	return app_filter_match(a, g->id) || app_filter_match(a, g->name) ||
	    app_filter_match(a, g->owner) ||
	    app_filter_match(a, gate_status_name(g->status));
}

static void
board_refresh(struct app *a, void *data)
{
	struct board_view *b = data;

	b->app = a;
	list_rebuild(&b->list, app_board(a)->now.valid ? GATE_COUNT : 0,
	    app_filter(a)[0] != '\0' ? gate_matches : NULL, a);
	if (b->sort != 0)
		list_sort(&b->list, cmp_gate, b);
}

static void *
board_open(struct app *a, const void *arg)
{
	struct board_view *b = xcalloc(1, sizeof *b);

	(void)arg;
	board_refresh(a, b);
	return b;
}

static void
board_close(void *data)
{
	struct board_view *b = data;

	list_release(&b->list);
	free(b);
}

/* The columns; the status is wider while a gate's lab job shows its
 * progress there; the name grows first, then the owner, as wide as the
 * longest one when there is room, then the failback. */
enum { COL_GATE, COL_STATUS, COL_NAME, COL_OWNER, COL_DUE, COL_COUNTS,
    COL_FAILBACK };

static const struct list_col gate_cols[] = {
	[COL_GATE] = { "GATE", 0, 4, LIST_LEFT, ROLE_NORMAL, 0, 0 },
	[COL_STATUS] = { "STATUS", 0, 10, LIST_LEFT, ROLE_NORMAL, 0, 1 },
	[COL_NAME] = { "NAME", 32, 12, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[COL_OWNER] = { "OWNER", 0, 12, LIST_LEFT, ROLE_NORMAL, LIST_REST,
	    2 },
	[COL_DUE] = { "DUE", 0, 10, LIST_LEFT, ROLE_NORMAL, 0, 3 },
	[COL_COUNTS] = { "FINDINGS", 0, 15, LIST_LEFT, ROLE_NORMAL, 0, 4 },
	[COL_FAILBACK] = { "FAILBACK", 0, 12, LIST_LEFT, ROLE_DIM,
	    LIST_GROW | LIST_LAST, -1 },
};

/* What a row is drawn from. */
struct board_draw {
	struct app	*a;
	bool		 narrow;	/* a running status in short */
};

static const char *
gate_cell(const void *arg, size_t gate, size_t col, char *buf, size_t len,
    enum role *role)
{
	const struct board_draw *d = arg;
	const struct board_gate *g = &app_board(d->a)->now.gates[gate];

	switch (col) {
	case COL_GATE:
		return g->id;
	case COL_STATUS:
		/* A gate whose lab job runs says so: its evidence is being
		 * made. */
		if (labrun_gate_status(d->a, (int)gate, buf, len, d->narrow)) {
			*role = ROLE_RUNNING;
			return buf;
		}
		*role = (enum role)glyph_status_role(g->status);
		snprintf(buf, len, "%s %s", glyph_status(g->status),
		    gate_status_name(g->status));
		return buf;
	case COL_NAME:
		return g->name;
	case COL_OWNER:
		if (g->owner == NULL)
			*role = ROLE_ERROR;
		return g->owner != NULL ? g->owner : "(no owner)";
	case COL_DUE:
		return g->due != NULL ? g->due : "-";
	case COL_COUNTS:
		if (g->counts[SEV_ERROR] > 0)
			*role = ROLE_ERROR;
		snprintf(buf, len, "%zuE %zuB %zuS %zuW", g->counts[SEV_ERROR],
		    g->counts[SEV_BLOCKED], g->counts[SEV_STALE],
		    g->counts[SEV_WARN]);
		return buf;
	default:
		if (g->status == GS_PASS || g->status == GS_PENDING)
			return NULL;
		snprintf(buf, len, "%s %s", ui_glyph("↩", "<-"), g->failback);
		return buf;
	}
}

static void
board_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct board_view *b = data;
	const struct board *bd = app_board(a);
	struct board_draw d = { a, cols < 100 };
	char empty[64];

	if (bd->now.valid)
		snprintf(empty, sizeof empty, "no gate matches the filter");
	else
		snprintf(empty, sizeof empty, "%s%s", bd->running ?
		    "evaluating the workspace" : "no evaluation yet",
		    bd->running ? ui_glyph("…", "...") : "");
	list_draw_cols(&b->list, top, rows, 0, cols, gate_cols,
	    nitems(gate_cols), b->sort != 0 ? b->sort : -1, gate_cell, &d,
	    empty);
}

static int
board_action(struct app *a, void *data, enum action act)
{
	struct board_view *b = data;
	size_t g;

	if (act == ACT_ENTER || act == ACT_WHY || act == ACT_RIGHT) {
		if ((g = list_selected(&b->list)) == SIZE_MAX)
			return R_NONE;
		app_push(a, &gate_view, &g);
		return R_REDRAW;
	}
	if (act == ACT_RUN || act == ACT_RUN_AGAIN) {
		if ((g = list_selected(&b->list)) == SIZE_MAX)
			return R_REDRAW;
		if (act == ACT_RUN)
			labrun_gate(a, (int)g);
		else
			labrun_gate_again(a, (int)g);
		return R_REDRAW;
	}
	if (act == ACT_SORT || act == ACT_SORT_BACK) {
		b->sort = list_sort_step(b->sort,
		    (int)nitems(sort_names), act);
		board_refresh(a, b);
		app_message(a, false, "sorted by %s", sort_names[b->sort]);
		return R_REDRAW;
	}
	return list_action(&b->list, act) ? R_REDRAW : R_NONE;
}

static int
board_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct board_view *b = data;
	int c;

	/* A click on a sortable title sorts by that column. */
	if ((c = list_header_click(&b->list, y, x)) >= 0) {
		if (gate_cols[c].sort < 0)
			return R_NONE;
		b->sort = gate_cols[c].sort;
		board_refresh(a, b);
		app_message(a, false, "sorted by %s", sort_names[b->sort]);
		return R_REDRAW;
	}
	if (!list_click(&b->list, y, x))
		return R_NONE;
	return twice ? board_action(a, data, ACT_ENTER) : R_REDRAW;
}

static void
board_status(struct app *a, void *data, char *buf, size_t len)
{
	const struct board_view *b = data;
	size_t i, pass = 0;
	char sorted[48] = "";

	if (!app_board(a)->now.valid)
		return;
	for (i = 0; i < GATE_COUNT; i++)
		pass += app_board(a)->now.gates[i].status == GS_PASS;
	if (b->sort != 0)
		snprintf(sorted, sizeof sorted, " %s sorted by %s",
		    ui_glyph("·", "-"), sort_names[b->sort]);
	snprintf(buf, len, "%zu of %d gates pass%s %s Enter: why %s r: run "
	    "the gate's lab job", pass, GATE_COUNT, sorted, ui_glyph("·", "-"),
	    ui_glyph("·", "-"));
}

static const struct keybinding board_keys[] = {
	{ 'w', ACT_WHY, "w" },
	{ 'r', ACT_RUN, "r" },
	{ 'a', ACT_RUN_AGAIN, "a" },
	{ '>', ACT_SORT, ">" },
	{ '<', ACT_SORT_BACK, "<" },
	{ 0, ACT_NONE, NULL },
};

const struct view_ops board_view = {
	.title = "Board",
	.keys = board_keys,
	.open = board_open,
	.close = board_close,
	.draw = board_draw,
	.action = board_action,
	.update = board_refresh,
	.click = board_click,
	.status = board_status,
};

/* findings.c: every finding of every gate: sort, filter, open the artifact. */
#include "calops.h"

#include "base/text.h"
#include "views/app/app.h"
#include "views/core/glyph.h"
#include "views/core/list.h"
#include "views/core/ui.h"

enum sort_key { SORT_GATE, SORT_SEVERITY, SORT_FILE, SORT_CHECK, SORT_N };

static const char *const sort_names[SORT_N] = { "gate", "severity", "file",
    "check" };

struct findings_view {
	struct list	 list;
	size_t		*order;		/* findings in the sort order */
	size_t		 norder;
	enum sort_key	 sort;
	/* -1: all, else this severity and the more severe ones */
	int		 min_sev;
	struct app	*app;
};

struct sort_ctx {
	const struct board_eval	*eval;
	enum sort_key		 by;
};

static int
cmp_str(const char *a, const char *b)
{
	return strcmp(a != NULL ? a : "", b != NULL ? b : "");
}

static int
cmp_order(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *ctx = arg;
	const struct board_finding *a =
	    &ctx->eval->findings[*(const size_t *)x];
	const struct board_finding *b =
	    &ctx->eval->findings[*(const size_t *)y];
	int c = 0;

	switch (ctx->by) {
	case SORT_SEVERITY:
		c = (int)a->severity - (int)b->severity;
		break;
	case SORT_FILE:
		c = cmp_str(a->path, b->path);
		break;
	case SORT_CHECK:
		c = cmp_str(a->check, b->check);
		break;
	default:
		break;
	}
	if (c == 0)
		c = a->gate - b->gate;
	if (c == 0)
		c = (*(const size_t *)x > *(const size_t *)y) -
		    (*(const size_t *)x < *(const size_t *)y);
	return c;
}

static const char *
gate_owner(const struct app *a, int gate)
{
	return gate >= 0 ? app_board(a)->now.gates[gate].owner : NULL;
}

static bool
finding_matches(size_t i, void *arg)
{
	struct findings_view *v = arg;
	struct app *a = v->app;
	const struct board_finding *f =
	    &app_board(a)->now.findings[v->order[i]];

	/* SEV_ERROR is 0: "and up" is a lower number. */
	if (v->min_sev >= 0 && (int)f->severity > v->min_sev)
		return false;
	if (app_filter(a)[0] == '\0')
		return true;
	return app_filter_match(a, f->check) || app_filter_match(a,
	    f->message) || app_filter_match(a, f->path) ||
	    app_filter_match(a, finding_severity_name(f->severity)) ||
	    app_filter_match(a, gate_owner(a, f->gate)) ||
	    (f->gate >= 0 && app_filter_match(a, gate_table[f->gate].id));
}

static void
findings_refresh(struct app *a, void *data)
{
	struct findings_view *v = data;
	const struct board_eval *e = &app_board(a)->now;
	struct sort_ctx ctx = { e, v->sort };
	size_t i;

	v->app = a;
	v->order = xreallocarray(v->order, e->nfindings + 1, sizeof *v->order);
	v->norder = e->nfindings;
	for (i = 0; i < e->nfindings; i++)
		v->order[i] = i;
	qsort_r(v->order, v->norder, sizeof *v->order, cmp_order, &ctx);
	list_rebuild(&v->list, v->norder, finding_matches, v);
}

static void *
findings_open(struct app *a, const void *arg)
{
	struct findings_view *v = xcalloc(1, sizeof *v);

	(void)arg;
	v->min_sev = -1;
	findings_refresh(a, v);
	return v;
}

static void
findings_close(void *data)
{
	struct findings_view *v = data;

	list_release(&v->list);
	free(v->order);
	free(v);
}

/* The columns; FILE:POSITION is cut from the front (a path's end says
 * most), and h and l scroll it and the message. */
enum { COL_GATE, COL_LEVEL, COL_CHECK, COL_WHERE, COL_MESSAGE };

static const struct list_col finding_cols[] = {
	[COL_GATE] = { "GATE", 0, 4, LIST_LEFT, ROLE_NORMAL, 0, SORT_GATE },
	[COL_LEVEL] = { "LEVEL", 0, 7, LIST_LEFT, ROLE_NORMAL, 0,
	    SORT_SEVERITY },
	[COL_CHECK] = { "CHECK", 32, 10, LIST_LEFT, ROLE_NORMAL, 0,
	    SORT_CHECK },
	[COL_WHERE] = { "FILE:POSITION", 0, 14, LIST_TAIL, ROLE_DIM,
	    LIST_HSCROLL, SORT_FILE },
	[COL_MESSAGE] = { "MESSAGE", 0, 12, LIST_LEFT, ROLE_NORMAL,
	    LIST_GROW | LIST_HSCROLL, -1 },
};

static const char *
finding_cell(const void *arg, size_t rec, size_t col, char *buf, size_t len,
    enum role *role)
{
	const struct findings_view *v = arg;
	const struct board_finding *f =
	    &app_board(v->app)->now.findings[v->order[rec]];

	switch (col) {
	case COL_GATE:
		return f->gate >= 0 ? gate_table[f->gate].id : "proj";
	case COL_LEVEL:
		*role = (enum role)glyph_severity_role(f->severity);
		return finding_severity_name(f->severity);
	case COL_CHECK:
		return f->check;
	case COL_WHERE:
		return boardmodel_finding_where(f, buf, len);
	default:
		return f->message;
	}
}

static void
findings_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct findings_view *v = data;
	const struct board_finding *f;
	size_t i;

	v->app = a;
	list_draw_cols(&v->list, top, rows - 3, 0, cols, finding_cols,
	    nitems(finding_cols), v->sort != SORT_GATE ? (int)v->sort : -1,
	    finding_cell, v,
	    app_board(a)->now.nfindings == 0 ? "no findings" :
	    "no finding matches the filter");
	/* The whole message of the selected finding, on up to two rows,
	 * broken after a blank (never inside a character); the last is
	 * clipped. */
	if ((i = list_selected(&v->list)) != SIZE_MAX) {
		char *clean;
		const char *m;
		size_t n;
		int row, w = cols - 2;

		f = &app_board(a)->now.findings[v->order[i]];
		char where[512], *head;

		ui_fill(stdscr, top + rows - 3, 0, ROLE_BORDER);
		/* Through the sanitiser: the path is the workspace's. */
		head = xasprintf("%s  %s", f->check, boardmodel_finding_where(f, where,
		    sizeof where));
		ui_put(stdscr, top + rows - 3, 1, cols - 2, ROLE_BORDER, head,
		    false);
		free(head);
		clean = text_sanitize_str(f->message);
		for (row = 0, m = clean; row < 2 && *m != '\0'; row++) {
			char *part;

			n = row == 1 ? strlen(m) : ui_fit_words(m, w);
			part = xstrndup(m, n);
			ui_put(stdscr, top + rows - 2 + row, 1, w, ROLE_NORMAL,
			    part, false);
			m += n;
			free(part);
		}
		free(clean);
	}
}

/* The selected finding as text or Markdown, for y and Y: what it is, where,
 * whose gate, and the whole message; the workspace's words through the
 * sanitiser (one line each). */
static char *
finding_copy_text(const struct app *a, const struct board_finding *f,
    bool md)
{
	char where[512], *check, *place, *msg, *owner, *s;
	const char *gate = f->gate >= 0 ? gate_table[f->gate].id : "proj";
	const char *ow = gate_owner(a, f->gate);

	boardmodel_finding_where(f, where, sizeof where);
	check = text_sanitize_doc(f->check, strlen(f->check));
	place = text_sanitize_doc(where, strlen(where));
	msg = text_sanitize_doc(f->message, strlen(f->message));
	owner = text_sanitize_doc(ow != NULL ? ow : "no owner",
	    ow != NULL ? strlen(ow) : 8);
	if (md)
		s = xasprintf("**%s %s** `%s` in `%s` (owner: %s)\n\n> %s\n",
		    gate, finding_severity_name(f->severity), check, place,
		    owner, msg);
	else
		s = xasprintf("%s %s %s %s\nowner: %s\n%s\n", gate,
		    finding_severity_name(f->severity), check, place, owner,
		    msg);
	free(check);
	free(place);
	free(msg);
	free(owner);
	return s;
}

static int
findings_action(struct app *a, void *data, enum action act)
{
	struct findings_view *v = data;
	const struct board_finding *f;
	size_t i;

	switch (act) {
	case ACT_SORT:
	case ACT_SORT_BACK:
		v->sort = (enum sort_key)list_sort_step((int)v->sort, SORT_N,
		    act);
		findings_refresh(a, v);
		app_message(a, false, "sorted by %s", sort_names[v->sort]);
		return R_REDRAW;
	case ACT_LEVEL:
		/* As a job's log's levels: all, then warn and up, … up to
		 * errors alone, then all again. */
		v->min_sev = v->min_sev < 0 ? SEV_WARN : v->min_sev - 1;
		findings_refresh(a, v);
		if (v->min_sev < 0)
			app_message(a, false, "showing every severity");
		else
			app_message(a, false, "showing %s%s",
			    finding_severity_name(v->min_sev),
			    v->min_sev > SEV_ERROR ? " and up" : "");
		return R_REDRAW;
	case ACT_COPY:
	case ACT_COPY_MD: {
		char *text;

		if ((i = list_selected(&v->list)) == SIZE_MAX)
			return R_NONE;
		f = &app_board(a)->now.findings[v->order[i]];
		text = finding_copy_text(a, f, act == ACT_COPY_MD);
		app_copy(a, "the finding", act == ACT_COPY_MD ? "finding.md" :
		    "finding.txt", text);
		free(text);
		return R_REDRAW;
	}
	case ACT_OPEN:
	case ACT_ENTER:
		if ((i = list_selected(&v->list)) == SIZE_MAX)
			return R_NONE;
		f = &app_board(a)->now.findings[v->order[i]];
		app_open_file(a, f->path, f->where);
		return R_REDRAW;
	default:
		return list_action(&v->list, act) ? R_REDRAW : R_NONE;
	}
}

static int
findings_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct findings_view *v = data;
	int c;

	/* A click on a sortable title sorts by that column. */
	if ((c = list_header_click(&v->list, y, x)) >= 0) {
		if (finding_cols[c].sort < 0)
			return R_NONE;
		v->sort = (enum sort_key)finding_cols[c].sort;
		findings_refresh(a, v);
		app_message(a, false, "sorted by %s", sort_names[v->sort]);
		return R_REDRAW;
	}
	if (!list_click(&v->list, y, x))
		return R_NONE;
	return twice ? findings_action(a, data, ACT_OPEN) : R_REDRAW;
}

static void
findings_status(struct app *a, void *data, char *buf, size_t len)
{
	struct findings_view *v = data;
	const char *dot = ui_glyph("·", "-");
	char scroll[32];

	(void)a;
	snprintf(scroll, sizeof scroll, " %s h l: scroll", dot);
	snprintf(buf, len,
	    "%zu of %zu findings %s sorted by %s (s) %s %s%s (v) "
	    "%s o: open%s",
	    v->list.nmap, v->norder, dot, sort_names[v->sort], dot,
	    v->min_sev < 0 ? "all severities" :
	    finding_severity_name(v->min_sev), v->min_sev > SEV_ERROR ?
	    " and up" : "", dot, v->list.hmax > 0 ? scroll : "");
}

static const struct keybinding findings_keys[] = {
	{ 'o', ACT_OPEN, "o" },
	{ 's', ACT_SORT, "s" },
	{ '>', ACT_SORT, ">" },
	{ '<', ACT_SORT_BACK, "<" },
	{ 'v', ACT_LEVEL, "v" },
	{ 'y', ACT_COPY, "y" },
	{ 'Y', ACT_COPY_MD, "Y" },
	{ 'e', ACT_LEVEL, NULL },	/* the key it had first */
	{ 0, ACT_NONE, NULL },
};

const struct view_ops findings_view = {
	.title = "Findings",
	.keys = findings_keys,
	.open = findings_open,
	.close = findings_close,
	.draw = findings_draw,
	.action = findings_action,
	.update = findings_refresh,
	.click = findings_click,
	.status = findings_status,
};

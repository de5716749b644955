/*
 * messages.c: `:messages`, every status-bar message of this session, whole
 * (the bar shows one line, cut to the room beside the marks): a lock's
 * holder, a refused key's path, why a host or a job said no.  Oldest first,
 * the newest selected; the selected one is wrapped below the list.
 */
#include "calops.h"

#include <time.h>

#include "base/text.h"
#include "views/app/app.h"
#include "views/core/list.h"
#include "views/core/ui.h"

#define MESSAGES_PANE 4		/* rows of the selected message, at most */

struct messages_view {
	struct list	 list;
	struct app	*app;
};

enum { COL_TIME, COL_MESSAGE };

static const struct list_col message_cols[] = {
	[COL_TIME] = { "TIME", 0, 8, LIST_LEFT, ROLE_DIM, 0, -1 },
	[COL_MESSAGE] = { "MESSAGE", 0, 20, LIST_LEFT, ROLE_NORMAL,
	    LIST_GROW | LIST_HSCROLL, -1 },
};

static void
messages_refresh(struct app *a, void *data)
{
	struct messages_view *v = data;
	bool last = v->list.nmap == 0 || v->list.sel + 1 == v->list.nmap;

	v->app = a;
	list_rebuild(&v->list, app_history(a), NULL, NULL);
	/* On the newest, it stays on the newest. */
	if (last)
		list_move(&v->list, ACT_END, v->list.height);
}

static void *
messages_open(struct app *a, const void *arg)
{
	struct messages_view *v = xcalloc(1, sizeof *v);

	(void)arg;
	messages_refresh(a, v);
	return v;
}

static void
messages_close(void *data)
{
	struct messages_view *v = data;

	list_release(&v->list);
	free(v);
}

static const char *
message_cell(const void *arg, size_t rec, size_t col, char *buf, size_t len,
    enum role *role)
{
	const struct messages_view *v = arg;
	const char *text;
	struct tm tm;
	time_t at;
	bool error;

	text = app_history_at(v->app, rec, &at, &error);
	if (col == COL_MESSAGE) {
		if (error)
			*role = ROLE_ERROR;
		return text;
	}
	localtime_r(&at, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
	return buf;
}

/* The selected message, whole, over the pane's rows, broken after a blank
 * where it can; the last row is clipped. */
static void
draw_selected(const struct messages_view *v, int y, int rows, int cols)
{
	size_t i = list_selected(&v->list), n;
	char *clean, *part;
	const char *m;
	bool error;
	int row;

	if (i == SIZE_MAX || rows < 2)
		return;
	ui_fill(stdscr, y, 0, ROLE_BORDER);
	ui_putf(stdscr, y, 1, cols - 2, ROLE_BORDER, "message %zu of %zu",
	    i + 1, v->list.nmap);
	clean = text_sanitize_str(app_history_at(v->app, i, NULL, &error));
	for (row = 1, m = clean; row < rows && *m != '\0'; row++) {
		n = row + 1 == rows ? strlen(m) : ui_fit_words(m, cols - 2);
		part = xstrndup(m, n);
		ui_put(stdscr, y + row, 1, cols - 2, error ? ROLE_ERROR :
		    ROLE_NORMAL, part, false);
		free(part);
		m += n;
	}
	free(clean);
}

static void
messages_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct messages_view *v = data;
	int pane = rows > 3 * MESSAGES_PANE ? MESSAGES_PANE + 1 : 3;

	v->app = a;
	list_draw_cols(&v->list, top, rows - pane, 0, cols, message_cols,
	    nitems(message_cols), -1, message_cell, v,
	    "no message yet this session");
	draw_selected(v, top + rows - pane, pane, cols);
}

static int
messages_action(struct app *a, void *data, enum action act)
{
	struct messages_view *v = data;

	(void)a;
	return list_action(&v->list, act) ? R_REDRAW : R_NONE;
}

static int
messages_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct messages_view *v = data;

	(void)a;
	(void)twice;
	return list_click(&v->list, y, x) ? R_REDRAW : R_NONE;
}

static void
messages_status(struct app *a, void *data, char *buf, size_t len)
{
	struct messages_view *v = data;
	const char *dot = ui_glyph("·", "-");
	bool cut = v->list.hmax > 0;

	(void)a;
	snprintf(buf, len, "%zu message%s (the last %d kept) %s q: close%s%s%s",
	    v->list.nmap, v->list.nmap == 1 ? "" : "s", APP_HISTORY_KEPT, dot,
	    cut ? " " : "", cut ? dot : "", cut ? " h l: scroll" : "");
}

const struct view_ops messages_view = {
	.title = "Messages",
	.open = messages_open,
	.close = messages_close,
	.draw = messages_draw,
	.action = messages_action,
	.update = messages_refresh,
	.click = messages_click,
	.status = messages_status,
};

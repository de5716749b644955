/* help.c: the help screen, generated from the key tables (action.h). */
#include "calops.h"

#include "views/app/app.h"
#include "views/core/list.h"
#include "views/core/ui.h"

struct help_line {
	char		*keys;		/* "j Down" */
	const char	*text;
	bool		 heading;
};

struct help {
	struct help_line	*lines;
	size_t			 n;
	struct list		 list;
};

static void
add(struct help *h, char *keys, const char *text, bool heading)
{
	h->lines = xreallocarray(h->lines, h->n + 1, sizeof *h->lines);
	h->lines[h->n].keys = keys;
	h->lines[h->n].text = text;
	h->lines[h->n].heading = heading;
	h->n++;
}

/* One line per action of a table, with every key bound to it. */
static void
add_table(struct help *h, const struct keybinding *t)
{
	const struct keybinding *k;

	for (k = t; k->key != 0; k++)
		if (action_first(t, k))
			add(h, action_keynames(k, " "),
			    action_info[k->action].help, false);
}

/* One line per screen of the registry: its digit if it is a tab, and the
 * command that opens it. */
static void
add_screens(struct help *h)
{
	const struct view_entry *e;
	size_t k, tab = 0;

	add(h, xstrdup("Screens"), "", true);
	for (k = 0; k < view_count; k++) {
		e = &view_registry[k];
		if (e->kind == VIEW_DRILL)
			continue;
		if (e->kind == VIEW_TAB)
			add(h, xasprintf("%zu :%s", ++tab, e->name), e->help,
			    false);
		else
			add(h, xasprintf(":%s", e->name), e->help, false);
	}
}

static void *
help_open(struct app *a, const void *arg)
{
	const struct view_ops *from = arg;
	struct help *h = xcalloc(1, sizeof *h);
	const struct view_note *n;

	(void)a;
	if (from != NULL && from->keys != NULL) {
		add(h, xasprintf("%s", from->title), "keys of this screen", true);
		add_table(h, from->keys);
	}
	if (from != NULL && from->notes != NULL) {
		add(h, xasprintf("What the %s screen shows", from->title), "",
		    true);
		for (n = from->notes; n->term != NULL; n++)
			add(h, xstrdup(n->term), n->text, false);
	}
	add(h, xstrdup("Everywhere"), "", true);
	add_table(h, action_global_keys);
	add_screens(h);
	add(h, xstrdup("Mouse"), "", true);
	add(h, xstrdup("click"), "select a line (double-click opens it); on a "
	    "tab, that tab; with / or : open, close it first", false);
	add(h, xstrdup("wheel"), "scroll", false);
	list_rebuild(&h->list, h->n, NULL, NULL);
	return h;
}

static void
help_close(void *data)
{
	struct help *h = data;
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->lines[i].keys);
	free(h->lines);
	list_release(&h->list);
	free(h);
}

static void
help_row(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	const struct help_line *l = &((const struct help *)arg)->lines[rec];

	if (l->heading) {
		ui_put(stdscr, y, x + 1, cols - 2, sel ? ROLE_SELECTION :
		    ROLE_TITLE, l->keys, false);
		return;
	}
	ui_put(stdscr, y, x + 3, 18, sel ? ROLE_SELECTION : ROLE_KEY, l->keys,
	    true);
	ui_put(stdscr, y, x + 22, cols - 23, sel ? ROLE_SELECTION :
	    ROLE_NORMAL, l->text, false);
}

static void
help_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct help *h = data;
	char header[64];

	(void)a;
	snprintf(header, sizeof header, "Help %s q to close",
	    ui_glyph("—", "-"));
	list_draw(&h->list, top, rows, 0, cols, header, help_row, h, NULL);
}

static int
help_action(struct app *a, void *data, enum action act)
{
	struct help *h = data;

	(void)a;
	if (act == ACT_HELP)
		return R_POP;
	return list_action(&h->list, act) ? R_REDRAW : R_NONE;
}

static int
help_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct help *h = data;

	(void)a;
	(void)twice;
	return list_click(&h->list, y, x) ? R_REDRAW : R_NONE;
}

const struct view_ops help_view = {
	.title = "Help",
	.open = help_open,
	.close = help_close,
	.draw = help_draw,
	.action = help_action,
	.click = help_click,
};

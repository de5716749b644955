/* picker.c: a list of choices with their states (picker.h). */
#include "calops.h"

#include <stdarg.h>

#include "views/core/picker.h"
#include "views/core/ui.h"

#define PICK_NAME_MIN	8	/* the name column, at least */
#define PICK_NAME_MAX	32	/* and at most, the state taking the rest */

static void
items_free(struct picker *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->items[i].name);
		free(p->items[i].state);
		free(p->items[i].refused);
	}
	p->n = 0;
}

/* The selection is kept by name over picker_clear() and picker_done():
 * the rows are made again from the model, maybe in another order. */
void
picker_clear(struct picker *p)
{
	const struct picker_item *it = picker_selected(p);

	free(p->keep);
	p->keep = it != NULL ? xstrdup(it->name) : NULL;
	items_free(p);
	p->def = SIZE_MAX;
}

void
picker_release(struct picker *p)
{
	items_free(p);
	free(p->items);
	free(p->keep);
	list_release(&p->list);
	memset(p, 0, sizeof *p);
}

void
picker_add(struct picker *p, const char *name, int role, const char *refused,
    const char *fmt, ...)
{
	struct picker_item *it;
	va_list ap;

	if (p->n == p->alloc) {
		p->alloc = p->alloc > 0 ? p->alloc * 2 : 8;
		p->items = xreallocarray(p->items, p->alloc, sizeof *p->items);
	}
	it = &p->items[p->n++];
	it->name = xstrdup(name);
	it->role = role;
	it->refused = refused != NULL ? xstrdup(refused) : NULL;
	va_start(ap, fmt);
	it->state = xvasprintf(fmt, ap);
	va_end(ap);
}

void
picker_default(struct picker *p)
{
	if (p->n > 0)
		p->def = p->n - 1;
}

void
picker_done(struct picker *p)
{
	size_t i;

	list_rebuild(&p->list, p->n, NULL, NULL);
	if (!p->placed) {
		if (p->def < p->list.nmap)
			p->list.sel = p->def;
		p->placed = p->n > 0;
		return;
	}
	for (i = 0; p->keep != NULL && i < p->list.nmap; i++)
		if (strcmp(p->items[p->list.map[i]].name, p->keep) == 0)
			p->list.sel = i;
}

struct row_arg {
	const struct picker	*p;
	int			 name_w;
};

static void
draw_row(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	const struct row_arg *ra = arg;
	const struct picker_item *it = &ra->p->items[rec];
	enum role name_role = sel ? ROLE_SELECTION : it->refused != NULL ?
	    ROLE_DIM : ROLE_NORMAL;

	ui_putf(stdscr, y, x + 1, 2, sel ? ROLE_SELECTION : ROLE_NORMAL, "%s",
	    sel ? ui_glyph("▸", ">") : " ");
	/* Through the sanitiser: a host's name is the lab file's. */
	ui_put(stdscr, y, x + 3, ra->name_w, name_role, it->name, false);
	if (cols - ra->name_w - 5 > 0)
		ui_put(stdscr, y, x + 4 + ra->name_w, cols - ra->name_w - 5,
		    sel ? ROLE_SELECTION : (enum role)it->role, it->state,
		    false);
}

void
picker_draw(struct picker *p, int top, int rows, int x, int cols)
{
	struct row_arg ra = { p, PICK_NAME_MIN };
	char header[64];
	size_t i;
	int w;

	for (i = 0; i < p->n; i++)
		if ((w = ui_width(p->items[i].name)) > ra.name_w)
			ra.name_w = w < PICK_NAME_MAX ? w : PICK_NAME_MAX;
	if (ra.name_w > cols / 2)
		ra.name_w = cols / 2;
	snprintf(header, sizeof header, "  %-*s state", ra.name_w, "");
	list_draw(&p->list, top, rows, x, cols, header, draw_row, &ra,
	    "nothing to choose from");
}

/* Enter: the selection, or why it cannot be taken. */
static enum picker_result
take(const struct picker *p)
{
	const struct picker_item *it = picker_selected(p);

	if (it == NULL)
		return PICKER_MOVED;
	return it->refused != NULL ? PICKER_REFUSED : PICKER_CHOSEN;
}

enum picker_result
picker_action(struct picker *p, enum action a)
{
	switch (a) {
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN:
	case ACT_HOME:
	case ACT_END:
		(void)list_action(&p->list, a);
		return PICKER_MOVED;
	case ACT_ENTER:
		return take(p);
	case ACT_BACK:
	case ACT_ESCAPE:
		return PICKER_CANCEL;
	default:
		return PICKER_NONE;
	}
}

enum picker_result
picker_click(struct picker *p, int y, int x, bool twice)
{
	size_t before = picker_index(p);

	if (!list_click(&p->list, y, x))
		return PICKER_NONE;
	/* A double click takes the choice it selected, not another. */
	return twice && picker_index(p) == before ? take(p) : PICKER_MOVED;
}

const struct picker_item *
picker_selected(const struct picker *p)
{
	size_t i = picker_index(p);

	return i < p->n ? &p->items[i] : NULL;
}

size_t
picker_index(const struct picker *p)
{
	return list_selected(&p->list);
}

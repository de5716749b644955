/* list.c: the list engine: rows, selection, scrolling, clicks (list.h). */
#include "calops.h"

#include "views/core/list.h"
#include "views/core/ui.h"

void
list_release(struct list *l)
{
	free(l->map);
	memset(l, 0, sizeof *l);
}

size_t
list_selected(const struct list *l)
{
	return l->sel < l->nmap ? l->map[l->sel] : SIZE_MAX;
}

void
list_rebuild(struct list *l, size_t n, bool (*match)(size_t, void *),
    void *arg)
{
	size_t keep = list_selected(l), i;

	if (n > l->alloc) {
		l->alloc = n;
		l->map = xreallocarray(l->map, l->alloc, sizeof *l->map);
	}
	l->nmap = 0;
	for (i = 0; i < n; i++)
		if (match == NULL || match(i, arg))
			l->map[l->nmap++] = i;
	/* the same record, else the next one shown, else the last */
	l->sel = keep != SIZE_MAX ? l->nmap : 0;
	for (i = 0; keep != SIZE_MAX && i < l->nmap; i++) {
		if (l->map[i] >= keep) {
			l->sel = i;
			break;
		}
	}
	if (l->nmap > 0 && l->sel >= l->nmap)
		l->sel = l->nmap - 1;
	if (l->top > l->sel)
		l->top = l->sel;
}

void
list_scroll(struct list *l, int rows)
{
	size_t h = rows > 0 ? (size_t)rows : 1;

	if (l->sel < l->top)
		l->top = l->sel;
	else if (l->sel >= l->top + h)
		l->top = l->sel - h + 1;
	if (l->nmap <= h)
		l->top = 0;
	else if (l->top > l->nmap - h)
		l->top = l->nmap - h;
}

bool
list_move(struct list *l, enum action a, int rows)
{
	size_t old = l->sel, page = rows > 1 ? (size_t)rows - 1 : 1;

	if (l->nmap == 0)
		return false;
	switch (a) {
	case ACT_UP:
		if (l->sel > 0)
			l->sel--;
		break;
	case ACT_DOWN:
		if (l->sel + 1 < l->nmap)
			l->sel++;
		break;
	case ACT_PAGE_UP:
		l->sel = l->sel > page ? l->sel - page : 0;
		break;
	case ACT_PAGE_DOWN:
		l->sel = l->sel + page < l->nmap ? l->sel + page : l->nmap - 1;
		break;
	case ACT_HOME:
		l->sel = 0;
		break;
	case ACT_END:
		l->sel = l->nmap - 1;
		break;
	default:
		return false;
	}
	list_scroll(l, rows);
	return l->sel != old;
}

bool
list_select_row(struct list *l, size_t row)
{
	if (l->top >= l->nmap || row >= l->nmap - l->top)
		return false;
	l->sel = l->top + row;
	return true;
}

struct sort_ctx {
	int	(*cmp)(size_t, size_t, void *);
	void	*arg;
};

static int
sort_cmp(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int r = c->cmp(a, b, c->arg);

	return r != 0 ? r : (a > b) - (a < b);
}

int
list_sort_step(int cur, int n, enum action a)
{
	return (cur + (a == ACT_SORT ? 1 : n - 1)) % n;
}

void
list_sort(struct list *l, int (*cmp)(size_t, size_t, void *), void *arg)
{
	struct sort_ctx c = { cmp, arg };
	size_t keep = list_selected(l), i;

	if (l->nmap < 2)
		return;
	qsort_r(l->map, l->nmap, sizeof *l->map, sort_cmp, &c);
	for (i = 0; keep != SIZE_MAX && i < l->nmap; i++)
		if (l->map[i] == keep)
			l->sel = i;
}

void
list_draw_header(int y, int x, int cols, const char *header)
{
	ui_fill(stdscr, y, x, ROLE_HEADER);
	/* Through the sanitiser: a header may name a job id from a host. */
	ui_put(stdscr, y, x + 1, cols - 2, ROLE_HEADER, header, false);
}

void
list_draw(struct list *l, int top, int rows, int x, int cols,
    const char *header, list_row_fn row, const void *arg,
    const char *empty)
{
	size_t i;
	int y;

	if (header != NULL && rows > 0) {
		list_draw_header(top, x, cols, header);
		top++;
		rows--;
	}
	list_place(l, top, x, rows, cols);
	if (l->height == 0)
		return;
	list_scroll(l, l->height);
	for (i = l->top, y = top; i < l->nmap && y < top + rows; i++, y++) {
		if (i == l->sel)
			ui_fill(stdscr, y, x, ROLE_SELECTION);
		row(arg, l->map[i], y, x, cols, i == l->sel);
	}
	/* A blank row first, when there is room for one. */
	if (l->nmap == 0 && empty != NULL)
		ui_putf(stdscr, rows > 1 ? top + 1 : top, x + 2, cols - 4,
		    ROLE_DIM, "%s", empty);
}

void
list_place(struct list *l, int y, int x, int rows, int cols)
{
	l->y = y;
	l->x = x;
	l->height = rows > 0 ? rows : 0;
	l->width = cols > 0 ? cols : 0;
}

bool
list_action(struct list *l, enum action a)
{
	return list_move(l, a, l->height);
}

bool
list_click(struct list *l, int y, int x)
{
	if (y < l->y || y >= l->y + l->height || x < l->x ||
	    x >= l->x + l->width)
		return false;
	return list_select_row(l, (size_t)(y - l->y));
}

/* list.c: the list engine: rows, selection, scrolling, clicks (list.h). */
#include "calops.h"

#include "base/text.h"
#include "views/core/list.h"
#include "views/core/ui.h"

#define LIST_HSTEP	8	/* cells one h or l scrolls */
#define LIST_MEASURE_MAX 4096	/* records measured for the widths */

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

/* h and l scroll the LIST_HSCROLL columns' cut cells. */
static bool
list_hscroll(struct list *l, enum action a)
{
	int old = l->hoff;

	if (a == ACT_RIGHT)
		l->hoff = l->hoff + LIST_HSTEP < l->hmax ? l->hoff +
		    LIST_HSTEP : l->hmax;
	else
		l->hoff = l->hoff > LIST_HSTEP ? l->hoff - LIST_HSTEP : 0;
	return l->hoff != old;
}

bool
list_action(struct list *l, enum action a)
{
	if (a == ACT_LEFT || a == ACT_RIGHT)
		return list_hscroll(l, a);
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

/* The water level: share spare out among the columns below what they want,
 * the narrow ones filled first; returns what is left. */
static int
cols_share(const int *want, size_t n, int *w, int spare)
{
	size_t i, k;
	int add, share;

	while (spare > 0) {
		for (i = 0, k = 0; i < n; i++)
			k += w[i] > 0 && w[i] < want[i];
		if (k == 0)
			break;
		share = spare / (int)k > 0 ? spare / (int)k : 1;
		for (i = 0; i < n && spare > 0; i++) {
			if (w[i] == 0 || w[i] >= want[i])
				continue;
			add = want[i] - w[i] < share ? want[i] - w[i] : share;
			w[i] += add;
			spare -= add;
		}
	}
	return spare;
}

/* The round of list_cols_fit() a column starts to grow in. */
static int
round_of(int flags)
{
	return flags & LIST_LAST ? 2 : flags & LIST_REST ? 1 : 0;
}

void
list_cols_fit(const struct list_col *c, const int *want, size_t n, int cols,
    int *w)
{
	int capped[LIST_COLS_MAX] = { 0 }, first[LIST_COLS_MAX] = { 0 };
	int used = 0, spare, round, drop;
	size_t i, k;

	for (i = 0; i < n && i < LIST_COLS_MAX; i++) {
		w[i] = 0;
		capped[i] = c[i].width > 0 && want[i] > c[i].width ?
		    c[i].width : want[i];
		if (capped[i] < c[i].min)
			capped[i] = c[i].min;
	}
	/* The minimums, in order: the LIST_DROP columns' after the others'.
	 * A blank before each column shown. */
	for (drop = 0; drop < 2; drop++)
		for (k = 0; k < i; k++) {
			if (!(c[k].flags & LIST_DROP) != !drop ||
			    c[k].min <= 0 || used + 1 + c[k].min > cols)
				continue;
			w[k] = c[k].min;
			used += 1 + c[k].min;
		}
	/* Three rounds: LIST_REST columns wait at their minimum for the
	 * first, LIST_LAST ones for the first two. */
	spare = cols - used;
	for (round = 0; round < 3; round++) {
		for (k = 0; k < i; k++)
			first[k] = round_of(c[k].flags) > round ? w[k] :
			    capped[k];
		spare = cols_share(first, i, w, spare);
	}
	for (i = 0; i < n && i < LIST_COLS_MAX && spare > 0; i++)
		if (w[i] > 0 && (c[i].flags & LIST_GROW)) {
			w[i] += spare;
			break;
		}
}

/* What list_draw_cols() hands its row drawer. */
struct cols_draw {
	struct list		*l;
	list_cell_fn		 cell;
	const void		*arg;
};

/* One cell, clipped to its column, aligned, scrolled when it may be. */
static void
cols_cell(const struct list *l, size_t i, int y, enum role r,
    const char *s)
{
	const struct list_col *c = &l->cols[i];
	int x = l->colx[i], w = l->colw[i], tw;
	char *clean;
	const char *from;

	clean = text_sanitize_str(s != NULL ? s : "");
	tw = ui_width(clean);
	if ((c->flags & LIST_HSCROLL) && l->hoff > 0 && tw > w) {
		from = clean + ui_fit(clean, l->hoff < tw - w ? l->hoff :
		    tw - w + 1);
		x += ui_putf(stdscr, y, x, 1, r, "%s", ui_glyph("…", "<"));
		ui_put(stdscr, y, x, w - 1, r, from, false);
	} else if (c->align == LIST_RIGHT && tw < w)
		ui_put(stdscr, y, x + w - tw, tw, r, clean, false);
	else if (c->align == LIST_TAIL && tw > w)
		ui_put_tail(stdscr, y, x, w, r, clean);
	else
		ui_put(stdscr, y, x, w, r, clean, false);
	free(clean);
}

static void
cols_row(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	const struct cols_draw *d = arg;
	char buf[512];
	const char *s;
	enum role r;
	size_t i;

	(void)x;
	(void)cols;
	for (i = 0; i < d->l->ncols; i++) {
		if (d->l->colw[i] == 0)
			continue;
		r = d->l->cols[i].role;
		buf[0] = '\0';
		s = d->cell(d->arg, rec, i, buf, sizeof buf, &r);
		cols_cell(d->l, i, y, sel ? ROLE_SELECTION : r, s);
	}
}

/* What each column's widest cell takes, over the records shown (the first
 * LIST_MEASURE_MAX of them: a long list is not measured on every frame). */
static void
cols_measure(const struct list *l, const struct list_col *c, size_t n,
    int sort, list_cell_fn cell, const void *arg, int *want)
{
	char buf[512], *clean;
	const char *s;
	enum role r;
	size_t i, k;
	int tw;

	/* The sorted column's title has room for its mark after it. */
	for (k = 0; k < n; k++)
		want[k] = ui_width(c[k].title) + (sort >= 0 &&
		    c[k].sort == sort);
	for (i = 0; i < l->nmap && i < LIST_MEASURE_MAX; i++)
		for (k = 0; k < n; k++) {
			buf[0] = '\0';
			s = cell(arg, l->map[i], k, buf, sizeof buf, &r);
			if (s == NULL)
				continue;
			clean = text_sanitize_str(s);
			tw = ui_width(clean);
			free(clean);
			if (tw > want[k])
				want[k] = tw;
		}
}

/* The header: each title over its column, the sort column's marked. */
static void
cols_header(struct list *l, int y, int x, int sort)
{
	const char *mark = ui_glyph("▾", "v");
	size_t i;
	int w;

	ui_fill(stdscr, y, x, ROLE_HEADER);
	for (i = 0; i < l->ncols; i++) {
		if ((w = l->colw[i]) == 0)
			continue;
		if (l->cols[i].sort >= 0 && l->cols[i].sort == sort)
			ui_putf(stdscr, y, l->colx[i], w, ROLE_HEADER, "%s%s",
			    l->cols[i].title, mark);
		else
			ui_putf(stdscr, y, l->colx[i] + (l->cols[i].align ==
			    LIST_RIGHT ? w - ui_width(l->cols[i].title) : 0),
			    w, ROLE_HEADER, "%s", l->cols[i].title);
	}
	l->header_y = y;
}

void
list_draw_cols(struct list *l, int top, int rows, int x, int cols,
    const struct list_col *c, size_t n, int sort, list_cell_fn cell,
    const void *arg, const char *empty)
{
	struct cols_draw d = { l, cell, arg };
	int want[LIST_COLS_MAX] = { 0 }, over = 0, cx = x + 1;
	size_t i;

	if (n > LIST_COLS_MAX)
		fatal("list: %zu columns, at most %d", n, LIST_COLS_MAX);
	l->cols = c;
	l->ncols = n;
	cols_measure(l, c, n, sort, cell, arg, want);
	list_cols_fit(c, want, n, cols - 1, l->colw);
	for (i = 0; i < n; i++) {
		l->colx[i] = cx;
		cx += l->colw[i] > 0 ? l->colw[i] + 1 : 0;
		/* One more than it is cut by: the "…" it scrolls behind. */
		if ((c[i].flags & LIST_HSCROLL) && l->colw[i] > 0 &&
		    want[i] - l->colw[i] + 1 > over)
			over = want[i] - l->colw[i] + 1;
	}
	l->hmax = over;
	if (l->hoff > l->hmax)
		l->hoff = l->hmax;
	l->header_y = -1;
	if (rows > 0) {
		cols_header(l, top, x, sort);
		top++;
		rows--;
	}
	list_draw(l, top, rows, x, cols, NULL, cols_row, &d, empty);
}

int
list_header_click(const struct list *l, int y, int x)
{
	size_t i;

	if (l->header_y < 0 || y != l->header_y)
		return -1;
	for (i = 0; i < l->ncols; i++)
		if (l->colw[i] > 0 && x >= l->colx[i] &&
		    x < l->colx[i] + l->colw[i] + 1)
			return (int)i;
	return -1;
}

/*
 * test_list.c: the generic list engine (views/core/list.c), with no terminal.
 * Rebuilding with and without a filter keeps the selection on the same
 * record when it can, and near it when it cannot; moves clamp; scrolling
 * keeps the selection in a window of any height, 1 included; a click
 * outside the rows selects nothing.  Drawn on a virtual screen (ncurses on
 * /dev/null), the engine puts the header and the rows where it was told,
 * and pages and hit-tests from where it drew them, whatever sits above.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>

#include <curses.h>
#include <stdio.h>

#include "views/core/list.h"

static bool
even(size_t i, void *arg)
{
	(void)arg;
	return i % 2 == 0;
}

static bool
below(size_t i, void *arg)
{
	return i < *(size_t *)arg;
}

static bool
none(size_t i, void *arg)
{
	(void)i;
	(void)arg;
	return false;
}

/* Put the selection on record rec, which must be shown. */
static void
select_record(struct list *l, size_t rec)
{
	size_t i;

	for (i = 0; i < l->nmap; i++) {
		if (l->map[i] == rec) {
			l->sel = i;
			list_scroll(l, 5);
			return;
		}
	}
	fail_msg("record %zu is not shown", rec);
}

static void
test_rebuild(void **state)
{
	struct list l = { 0 };
	size_t i, lim;

	(void)state;
	assert_int_equal(list_selected(&l), SIZE_MAX);
	list_rebuild(&l, 0, NULL, NULL);
	assert_int_equal(l.nmap, 0);
	assert_int_equal(list_selected(&l), SIZE_MAX);

	list_rebuild(&l, 10, NULL, NULL);
	assert_int_equal(l.nmap, 10);
	for (i = 0; i < 10; i++)
		assert_int_equal(l.map[i], i);
	assert_int_equal(list_selected(&l), 0);

	/* the selected record stays selected through filters */
	select_record(&l, 4);
	list_rebuild(&l, 10, even, NULL);
	assert_int_equal(l.nmap, 5);
	assert_int_equal(list_selected(&l), 4);
	assert_int_equal(l.sel, 2);
	list_rebuild(&l, 10, NULL, NULL);
	assert_int_equal(list_selected(&l), 4);
	assert_int_equal(l.sel, 4);

	/* filtered out: the next record shown */
	select_record(&l, 5);
	list_rebuild(&l, 10, even, NULL);
	assert_int_equal(list_selected(&l), 6);
	/* none after it: the last one shown, not the first */
	list_rebuild(&l, 10, NULL, NULL);
	select_record(&l, 9);
	lim = 5;
	list_rebuild(&l, 10, below, &lim);
	assert_int_equal(l.nmap, 5);
	assert_int_equal(list_selected(&l), 4);
	/* fewer records than before: the last one */
	list_rebuild(&l, 20, NULL, NULL);
	select_record(&l, 17);
	list_rebuild(&l, 8, NULL, NULL);
	assert_int_equal(list_selected(&l), 7);
	assert_true(l.top <= l.sel);
	/* more records than before: the same one */
	list_rebuild(&l, 1000, NULL, NULL);
	assert_int_equal(list_selected(&l), 7);

	/* nothing matches: no selection; then all again */
	list_rebuild(&l, 10, none, NULL);
	assert_int_equal(l.nmap, 0);
	assert_int_equal(list_selected(&l), SIZE_MAX);
	assert_int_equal(l.top, 0);
	list_rebuild(&l, 10, NULL, NULL);
	assert_int_equal(l.nmap, 10);
	assert_true(list_selected(&l) < 10);
	list_release(&l);
	assert_null(l.map);
	assert_int_equal(l.nmap, 0);
	list_release(&l);
}

static void
test_move(void **state)
{
	struct list l = { 0 };

	(void)state;
	/* empty: nothing moves */
	list_rebuild(&l, 0, NULL, NULL);
	assert_false(list_move(&l, ACT_DOWN, 10));
	assert_false(list_move(&l, ACT_END, 10));
	assert_int_equal(list_selected(&l), SIZE_MAX);

	list_rebuild(&l, 20, NULL, NULL);
	assert_false(list_move(&l, ACT_UP, 5));
	assert_false(list_move(&l, ACT_PAGE_UP, 5));
	assert_false(list_move(&l, ACT_HOME, 5));
	assert_int_equal(l.sel, 0);
	assert_true(list_move(&l, ACT_DOWN, 5));
	assert_int_equal(l.sel, 1);
	assert_true(list_move(&l, ACT_PAGE_DOWN, 5));	/* a page is rows-1 */
	assert_int_equal(l.sel, 5);
	assert_true(list_move(&l, ACT_PAGE_DOWN, 5));
	assert_true(list_move(&l, ACT_PAGE_DOWN, 5));
	assert_true(list_move(&l, ACT_PAGE_DOWN, 5));
	assert_int_equal(l.sel, 17);
	assert_true(list_move(&l, ACT_PAGE_DOWN, 5));
	assert_int_equal(l.sel, 19);
	assert_false(list_move(&l, ACT_PAGE_DOWN, 5));
	assert_false(list_move(&l, ACT_DOWN, 5));
	assert_false(list_move(&l, ACT_END, 5));
	assert_int_equal(l.sel, 19);
	assert_true(list_move(&l, ACT_UP, 5));
	assert_int_equal(l.sel, 18);
	assert_true(list_move(&l, ACT_PAGE_UP, 5));
	assert_int_equal(l.sel, 14);
	assert_true(list_move(&l, ACT_HOME, 5));
	assert_int_equal(l.sel, 0);
	assert_true(list_move(&l, ACT_END, 5));
	assert_int_equal(l.sel, 19);
	assert_true(list_move(&l, ACT_PAGE_UP, 100));
	assert_int_equal(l.sel, 0);
	assert_true(list_move(&l, ACT_PAGE_DOWN, 100));
	assert_int_equal(l.sel, 19);
	/* tiny and silly windows still move by one */
	assert_true(list_move(&l, ACT_PAGE_UP, 1));
	assert_int_equal(l.sel, 18);
	assert_true(list_move(&l, ACT_PAGE_UP, 0));
	assert_int_equal(l.sel, 17);
	assert_true(list_move(&l, ACT_PAGE_DOWN, -3));
	assert_int_equal(l.sel, 18);
	/* not a move */
	assert_false(list_move(&l, ACT_ENTER, 5));
	assert_false(list_move(&l, ACT_NONE, 5));
	assert_false(list_move(&l, ACT_QUIT, 5));
	assert_int_equal(l.sel, 18);

	/* one record */
	list_rebuild(&l, 1, NULL, NULL);
	assert_int_equal(l.sel, 0);
	assert_false(list_move(&l, ACT_DOWN, 1));
	assert_false(list_move(&l, ACT_PAGE_DOWN, 1));
	assert_false(list_move(&l, ACT_END, 1));
	assert_false(list_move(&l, ACT_UP, 1));
	list_release(&l);
}

/* The selection is in the window, the window within the rows. */
static void
assert_visible(const struct list *l, int rows)
{
	size_t h = rows > 0 ? (size_t)rows : 1;

	if (l->nmap == 0)
		return;
	if (l->sel < l->top || l->sel >= l->top + h)
		fail_msg("rows %d: selection %zu outside [%zu, %zu)", rows,
		    l->sel, l->top, l->top + h);
	if (l->nmap > h && l->top > l->nmap - h)
		fail_msg("rows %d: top %zu past the last page of %zu", rows,
		    l->top, l->nmap);
	if (l->nmap <= h && l->top != 0)
		fail_msg("rows %d: top %zu though all %zu rows fit", rows,
		    l->top, l->nmap);
}

static void
test_scroll(void **state)
{
	static const int heights[] = { -1, 0, 1, 2, 3, 7, 24, 50, 51, 200 };
	static const enum action moves[] = { ACT_DOWN, ACT_PAGE_DOWN, ACT_UP,
	    ACT_END, ACT_PAGE_UP, ACT_HOME, ACT_DOWN, ACT_DOWN, ACT_PAGE_DOWN };
	static const size_t sizes[] = { 1, 2, 3, 50, 51, 300 };
	struct list l = { 0 };
	size_t h, k, m, s, step = 0;

	(void)state;
	for (s = 0; s < nitems(sizes); s++) {
		list_rebuild(&l, sizes[s], NULL, NULL);
		for (h = 0; h < nitems(heights); h++) {
			for (k = 0; k < 200; k++) {
				m = (k * 7 + step++) % nitems(moves);
				list_move(&l, moves[m], heights[h]);
				assert_visible(&l, heights[h]);
			}
			/* the window changes height under the selection */
			list_scroll(&l, heights[(h + 1) % nitems(heights)]);
			assert_visible(&l, heights[(h + 1) % nitems(heights)]);
		}
	}

	/* height 1: the window is the selected row */
	list_rebuild(&l, 10, NULL, NULL);
	list_move(&l, ACT_HOME, 1);
	for (k = 0; k < 9; k++) {
		assert_true(list_move(&l, ACT_DOWN, 1));
		assert_int_equal(l.top, l.sel);
	}
	/* after a rebuild that shrinks the list, scrolling mends top */
	l.top = 8;
	l.sel = 9;
	list_rebuild(&l, 4, NULL, NULL);
	list_scroll(&l, 3);
	assert_visible(&l, 3);
	assert_int_equal(l.sel, 3);
	assert_int_equal(l.top, 1);
	list_release(&l);
}

static void
test_select_row(void **state)
{
	struct list l = { 0 };

	(void)state;
	assert_false(list_select_row(&l, 0));
	list_rebuild(&l, 30, NULL, NULL);
	assert_true(list_select_row(&l, 0));
	assert_int_equal(l.sel, 0);
	assert_true(list_select_row(&l, 29));
	assert_int_equal(l.sel, 29);
	assert_false(list_select_row(&l, 30));
	assert_false(list_select_row(&l, SIZE_MAX));
	assert_int_equal(l.sel, 29);
	/* rows count from the top of the window */
	list_move(&l, ACT_END, 10);
	assert_int_equal(l.top, 20);
	assert_true(list_select_row(&l, 3));
	assert_int_equal(l.sel, 23);
	assert_true(list_select_row(&l, 9));
	assert_int_equal(l.sel, 29);
	assert_false(list_select_row(&l, 10));
	assert_false(list_select_row(&l, SIZE_MAX));
	assert_false(list_select_row(&l, SIZE_MAX - 19));
	assert_false(list_select_row(&l, SIZE_MAX - 10));
	assert_int_equal(l.sel, 29);
	list_release(&l);
}

/* The rows row() was asked to draw: where, and which record. */
struct drawn {
	int	 y[64];
	size_t	 rec[64];
	int	 n, sel_y;
};

static void
record_row(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	struct drawn *d = (struct drawn *)(uintptr_t)arg;

	(void)x;
	(void)cols;
	d->y[d->n] = y;
	d->rec[d->n++] = rec;
	if (sel)
		d->sel_y = y;
	mvprintw(y, x + 1, "record %zu", rec);
}

static SCREEN *
virtual_screen(FILE **in, FILE **out)
{
	SCREEN *s;

	*in = fopen("/dev/null", "r");
	*out = fopen("/dev/null", "w");
	assert_non_null(*in);
	assert_non_null(*out);
	s = newterm("xterm-256color", *out, *in);
	assert_non_null(s);
	set_term(s);
	resizeterm(24, 80);
	return s;
}

static void
row_text(int y, char *buf, int len)
{
	assert_int_not_equal(mvinnstr(y, 0, buf, len - 1), ERR);
}

static void
test_draw(void **state)
{
	struct list l = { 0 };
	struct drawn d;
	FILE *in, *out;
	SCREEN *s = virtual_screen(&in, &out);
	char buf[81];
	int i;

	(void)state;
	list_rebuild(&l, 30, NULL, NULL);
	/* A banner takes row 1: the list starts on row 2, its header there,
	 * ten rows in all. */
	memset(&d, 0, sizeof d);
	list_draw(&l, 2, 10, 0, 80, "HEADER", record_row, &d, NULL);
	row_text(2, buf, sizeof buf);
	assert_non_null(strstr(buf, "HEADER"));
	assert_int_equal(l.y, 3);
	assert_int_equal(l.height, 9);
	assert_int_equal(d.n, 9);
	for (i = 0; i < d.n; i++) {
		assert_int_equal(d.y[i], 3 + i);
		assert_int_equal(d.rec[i], (size_t)i);
	}
	assert_int_equal(d.sel_y, 3);
	/* A page is what was drawn, less one row kept in sight. */
	assert_true(list_action(&l, ACT_PAGE_DOWN));
	assert_int_equal(list_selected(&l), 8);
	assert_true(list_action(&l, ACT_PAGE_DOWN));
	assert_int_equal(list_selected(&l), 16);
	memset(&d, 0, sizeof d);
	list_draw(&l, 2, 10, 0, 80, "HEADER", record_row, &d, NULL);
	assert_int_equal(d.rec[0], 8);		/* scrolled: 16 is the last */
	assert_int_equal(d.sel_y, 3 + 8);
	/* A click hits the row drawn there, not the one a fixed offset
	 * would guess; the header and below the rows hit nothing. */
	assert_true(list_click(&l, 3 + 2, 10));
	assert_int_equal(list_selected(&l), 10);
	assert_false(list_click(&l, 2, 10));
	assert_false(list_click(&l, 12, 10));
	assert_false(list_click(&l, 1, 10));
	assert_false(list_click(&l, 5, 80));
	assert_false(list_click(&l, 5, -1));
	assert_int_equal(list_selected(&l), 10);
	/* Fewer records than rows: a click under the last hits nothing. */
	list_rebuild(&l, 3, NULL, NULL);
	memset(&d, 0, sizeof d);
	list_draw(&l, 2, 10, 0, 80, "HEADER", record_row, &d, NULL);
	assert_int_equal(d.n, 3);
	assert_false(list_click(&l, 3 + 3, 10));
	assert_true(list_click(&l, 3, 10));
	assert_int_equal(list_selected(&l), 0);
	/* No record: the empty text under a blank row; no click lands. */
	list_rebuild(&l, 0, NULL, NULL);
	erase();
	list_draw(&l, 2, 10, 0, 80, "HEADER", record_row, &d, "nothing here");
	row_text(4, buf, sizeof buf);
	assert_non_null(strstr(buf, "nothing here"));
	assert_false(list_click(&l, 3, 10));
	assert_false(list_action(&l, ACT_DOWN));
	/* No header: the records start on the first row given. */
	list_rebuild(&l, 5, NULL, NULL);
	memset(&d, 0, sizeof d);
	list_draw(&l, 7, 3, 0, 80, NULL, record_row, &d, NULL);
	assert_int_equal(d.y[0], 7);
	assert_int_equal(d.n, 3);
	assert_int_equal(l.height, 3);
	list_release(&l);
	endwin();
	delscreen(s);
	fclose(in);
	fclose(out);
}

/* The column widths: minimums first, then the space there is shared
 * towards what each needs, narrow ones filled first, LIST_REST last, the
 * rest to LIST_GROW; a minimum that does not fit leaves its column out. */
static void
test_cols_fit(void **state)
{
	static const struct list_col c[] = {
		{ "ID", 0, 4, LIST_LEFT, ROLE_NORMAL, 0, -1 },
		{ "NAME", 20, 8, LIST_LEFT, ROLE_NORMAL, 0, -1 },
		{ "OWNER", 0, 8, LIST_LEFT, ROLE_NORMAL, 0, -1 },
		{ "MORE", 0, 10, LIST_LEFT, ROLE_NORMAL, LIST_GROW | LIST_REST,
		    -1 },
	};
	int want[] = { 3, 30, 40, 12 }, w[4];

	(void)state;
	/* Room for all: each as it needs (NAME capped at 20), the rest to
	 * MORE. */
	list_cols_fit(c, want, 4, 159, w);
	assert_int_equal(w[0], 4);
	assert_int_equal(w[1], 20);
	assert_int_equal(w[2], 40);
	assert_int_equal(w[3], 159 - 4 - 4 - 20 - 40);
	/* 60 cells: MORE (10) stays at its minimum; NAME and OWNER share
	 * the 26 left, NAME stopping at its 20, OWNER taking the rest. */
	list_cols_fit(c, want, 4, 60, w);
	assert_int_equal(w[0], 4);
	assert_int_equal(w[3], 10);
	assert_int_equal(w[1], 20);
	assert_int_equal(w[2], 22);
	assert_int_equal(4 + w[0] + w[1] + w[2] + w[3], 60);
	/* 30 cells: MORE's minimum does not fit and it is left out. */
	list_cols_fit(c, want, 4, 30, w);
	assert_int_equal(w[3], 0);
	assert_int_equal(3 + w[0] + w[1] + w[2], 30);
	/* A narrow column is filled before a wide one is grown. */
	want[1] = 10;
	list_cols_fit(c, want, 4, 40, w);
	assert_int_equal(w[1], 10);
	assert_int_equal(w[2], 40 - 4 - 4 - 10 - 10 - 8 + 8);
	/* Nothing fits: every column out, nothing drawn past the edge. */
	list_cols_fit(c, want, 4, 3, w);
	assert_int_equal(w[0] + w[1] + w[2] + w[3], 0);
}

/* Rounds: a LIST_REST column grows before a LIST_LAST one, whatever their
 * order in the table. */
static void
test_cols_rounds(void **state)
{
	static const struct list_col c[] = {
		{ "A", 0, 4, LIST_LEFT, ROLE_NORMAL, 0, -1 },
		{ "LAST", 0, 4, LIST_LEFT, ROLE_NORMAL, LIST_LAST, -1 },
		{ "REST", 0, 4, LIST_LEFT, ROLE_NORMAL, LIST_REST, -1 },
	};
	int want[] = { 6, 10, 10 }, w[3];

	(void)state;
	/* 3 blanks and 12 of minimums; 10 to share: A's 2, REST's 6, then
	 * LAST's 2. */
	list_cols_fit(c, want, 3, 25, w);
	assert_int_equal(w[0], 6);
	assert_int_equal(w[2], 10);
	assert_int_equal(w[1], 6);
}

/* A LIST_DROP column is the first left out, wherever it stands; with
 * room, it is shown as any other. */
static void
test_cols_drop(void **state)
{
	static const struct list_col c[] = {
		{ "ID", 0, 10, LIST_LEFT, ROLE_NORMAL, 0, -1 },
		{ "BY", 12, 6, LIST_LEFT, ROLE_NORMAL, LIST_DROP, -1 },
		{ "WHAT", 0, 20, LIST_LEFT, ROLE_NORMAL, LIST_GROW, -1 },
	};
	int want[] = { 10, 12, 40 }, w[3];

	(void)state;
	/* 3 blanks and 36 of minimums do not fit in 35: BY goes, not WHAT
	 * after it. */
	list_cols_fit(c, want, 3, 35, w);
	assert_int_equal(w[1], 0);
	assert_int_equal(w[0], 10);
	assert_int_equal(w[2], 35 - 2 - 10);
	/* In 39 every minimum fits: BY shown. */
	list_cols_fit(c, want, 3, 39, w);
	assert_int_equal(w[0], 10);
	assert_int_equal(w[1], 6);
	assert_int_equal(w[2], 20);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rebuild),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_scroll),
		cmocka_unit_test(test_select_row),
		cmocka_unit_test(test_draw),
		cmocka_unit_test(test_cols_fit),
		cmocka_unit_test(test_cols_rounds),
		cmocka_unit_test(test_cols_drop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

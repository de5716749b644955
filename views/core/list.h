/*
 * list.h: the list engine most screens are made of (tig's view.c, tmux's
 * mode-tree).  It owns which records are shown (after the filter), which
 * one is selected and which is at the top; it draws the header row and the
 * rows, fills the selected one, and remembers where it drew them, so that
 * paging and clicks follow the geometry on the screen, whatever banner or
 * pane sits above or below.  A screen supplies "record → row" and its own
 * actions.
 */
#ifndef CALOPS_LIST_H
#define CALOPS_LIST_H

#include "calops.h"

#include "views/core/action.h"

/* Draw record rec on row y, columns [x, x + cols) of stdscr; sel: it is the
 * selected one (its row is already filled with the selection colour). */
typedef void (*list_row_fn)(const void *arg, size_t rec, int y, int x, int cols,
    bool sel);

struct list {
	size_t	*map;		/* shown row -> record index */
	size_t	 nmap, alloc;
	size_t	 sel;		/* selected row */
	size_t	 top;		/* first row in the window */
	/* Where the last list_draw() put the records, in screen cells. */
	int	 y, x;		/* the first record row's top-left cell */
	int	 height, width;	/* record rows, and their width */
};

void	list_release(struct list *l);
/* Rebuild the rows from n records, keeping those match() accepts (all when
 * match is NULL); the selection stays on the same record when it can, else
 * moves to the next record shown, else to the last. */
void	list_rebuild(struct list *l, size_t n, bool (*match)(size_t, void *),
	    void *arg);
/*
 * Draw the list in rows [top, top + rows) and columns [x, x + cols): the
 * header (none when NULL) on the first row, then a window of
 * records kept around the selection, each by row(); `empty` (none when
 * NULL) dimmed under the header when no record is shown.  The geometry is
 * kept for list_action() and list_click().
 */
void	list_draw(struct list *l, int top, int rows, int x, int cols,
	    const char *header, list_row_fn row, const void *arg,
	    const char *empty);
/* Order the rows shown by cmp (records a and b; ties keep record order),
 * the selection staying on its record. */
void	list_sort(struct list *l, int (*cmp)(size_t a, size_t b, void *arg),
	    void *arg);
/* The sort column after cur of n for ACT_SORT, before it for
 * ACT_SORT_BACK, wrapping around. */
int	list_sort_step(int cur, int n, enum action a);
/* The header row alone, for a screen that puts lines of its own between it
 * and the records (list_draw() with no header after them). */
void	list_draw_header(int y, int x, int cols, const char *header);
/* Where a screen that draws its own rows (a log's wrapped lines) put them,
 * for list_action() and list_click(). */
void	list_place(struct list *l, int y, int x, int rows, int cols);
/* A movement action for the window last drawn; true if the selection
 * moved. */
bool	list_action(struct list *l, enum action a);
/* A click at screen cell (y, x): selects the record drawn there; false when
 * the click is not on a record row. */
bool	list_click(struct list *l, int y, int x);
/* The same as list_action() for a window of `rows` lines. */
bool	list_move(struct list *l, enum action a, int rows);
/* Keep the selection visible in a window of `rows` lines. */
void	list_scroll(struct list *l, int rows);
/* Select shown row `row` of the window; false when out of range. */
bool	list_select_row(struct list *l, size_t row);
/* The selected record, or SIZE_MAX when nothing is shown. */
size_t	list_selected(const struct list *l);

#endif

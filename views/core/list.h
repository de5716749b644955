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
#include "views/core/theme.h"

/* Draw record rec on row y, columns [x, x + cols) of stdscr; sel: it is the
 * selected one (its row is already filled with the selection colour). */
typedef void (*list_row_fn)(const void *arg, size_t rec, int y, int x, int cols,
    bool sel);

/*
 * Columns as data (tig's view_column, htop's field table): a screen whose
 * rows are cells describes them once, and the engine lays out the header and
 * the cells from that one table, marks the sort column and maps a click on
 * the header back to it.  Widths use the space there is: each column shown
 * gets its minimum, then the rest is shared out towards what its widest
 * cell needs (never past `width` when that is set), the narrow ones filled
 * first, the LIST_REST ones after the others and the LIST_LAST ones after
 * those; what is still left goes to the LIST_GROW column.  A column whose
 * minimum does not fit is left out, the last ones first, and the LIST_DROP
 * ones before any other: they get their minimum only once every other
 * column has its own (a column worth having, but not at the cost of one
 * that says more).
 */
enum list_align {
	LIST_LEFT,
	LIST_RIGHT,
	LIST_TAIL,		/* left, but cut from the front: a path */
};

#define LIST_GROW	0x1	/* takes the space no column needs */
#define LIST_HSCROLL	0x2	/* h and l scroll its cut cells */
#define LIST_REST	0x4	/* grows only once the others have theirs */
#define LIST_LAST	0x8	/* … and once the LIST_REST ones have theirs */
#define LIST_DROP	0x10	/* the first left out when the room is short */
#define LIST_COLS_MAX	12

struct list_col {
	const char	*title;
	int		 width;	/* at most this wide; 0: as wide as its cells */
	int		 min;	/* narrower than this it is left out */
	enum list_align	 align;
	enum role	 role;	/* its cells' role off the selection */
	int		 flags;	/* LIST_GROW, LIST_HSCROLL, … */
	int		 sort;	/* the screen's sort key it is, -1: none */
};

/* The text of record rec's column col, borrowed until the next call (buf
 * of len is there to format it in), NULL for an empty cell; *role may be
 * set to colour this cell other than its column does. */
typedef const char *(*list_cell_fn)(const void *arg, size_t rec, size_t col,
    char *buf, size_t len, enum role *role);

struct list {
	size_t	*map;		/* shown row -> record index */
	size_t	 nmap, alloc;
	size_t	 sel;		/* selected row */
	size_t	 top;		/* first row in the window */
	/* Where the last list_draw() put the records, in screen cells. */
	int	 y, x;		/* the first record row's top-left cell */
	int	 height, width;	/* record rows, and their width */
	/* Where the last list_draw_cols() put its columns; colw 0: left
	 * out. */
	const struct list_col *cols;
	size_t	 ncols;
	int	 colx[LIST_COLS_MAX], colw[LIST_COLS_MAX];
	int	 header_y;	/* -1: no header drawn */
	int	 hoff, hmax;	/* horizontal scroll, and how far it goes */
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
/*
 * Widths for n columns in cols cells (a blank before each): w[i] of column
 * i, 0 when it is left out; want[i] is what its widest cell (or its title)
 * takes.  Pure: the unit tests call it.
 */
void	list_cols_fit(const struct list_col *c, const int *want, size_t n,
	    int cols, int *w);
/*
 * list_draw() for a screen of columns: measures every record's cells,
 * lays them out (list_cols_fit), draws the header with the column sorted
 * by marked (sort: a list_col's sort key, -1: none, as in the natural
 * order) and the rows cell by cell.
 */
void	list_draw_cols(struct list *l, int top, int rows, int x, int cols,
	    const struct list_col *c, size_t n, int sort, list_cell_fn cell,
	    const void *arg, const char *empty);
/* The column whose header title is at screen cell (y, x), or -1. */
int	list_header_click(const struct list *l, int y, int x);

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

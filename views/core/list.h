/*
 * list.h: the generic list engine most views are made of (tig's view.c,
 * tmux's mode-tree): which records are shown (after the filter), which one
 * is selected, and which is at the top of the window.  A view supplies
 * "record → line"; the engine does moving, paging and scrolling.
 */
#ifndef CALOPS_LIST_H
#define CALOPS_LIST_H

#include "calops.h"

#include "views/core/action.h"

struct list {
	size_t	*map;		/* shown row -> record index */
	size_t	 nmap, alloc;
	size_t	 sel;		/* selected row */
	size_t	 top;		/* first row in the window */
};

void	list_release(struct list *l);
/* Rebuild the rows from n records, keeping those match() accepts (all when
 * match is NULL); the selection stays on the same record when it can, else
 * moves to the next record shown, else to the last. */
void	list_rebuild(struct list *l, size_t n, bool (*match)(size_t, void *),
	    void *arg);
/* Apply a movement action for a window of `rows` lines; true if it moved. */
bool	list_move(struct list *l, enum action a, int rows);
/* Keep the selection visible in a window of `rows` lines. */
void	list_scroll(struct list *l, int rows);
/* Select shown row `row` (a mouse click); false when out of range. */
bool	list_select_row(struct list *l, size_t row);
/* The selected record, or SIZE_MAX when nothing is shown. */
size_t	list_selected(const struct list *l);

#endif

/*
 * view.h: one screen behind one small interface.  A view is a const struct
 * view_ops (one per file in views/) and its data; views sit on a stack (a
 * drill-down or the help screen is a push).  Handlers change state and
 * return a reaction; they never draw or sleep: the app paints once per loop
 * iteration by calling the top view's draw().
 *
 * Adding a view touches its own file and the registry in view.c.
 */
#ifndef CALOPS_VIEW_H
#define CALOPS_VIEW_H

#include "calops.h"

#include <curses.h>

#include "views/core/action.h"

struct app;

enum reaction {
	R_NONE = 0,
	R_REDRAW = 1,
	R_POP = 2,
	R_QUIT = 4,
};

struct view_ops {
	const char		*name;		/* :name, and in the tab bar */
	const char		*title;
	const struct keybinding	*keys;		/* its own keys, or NULL */
	/* Make the view's data; arg is the opener's (a gate index, …). */
	void	*(*open)(struct app *, const void *arg);
	void	 (*close)(void *data);
	/* Paint rows [top, top + rows) of stdscr. */
	void	 (*draw)(struct app *, void *data, int top, int rows, int cols);
	int	 (*action)(struct app *, void *data, enum action a);
	/* The board was re-evaluated or the filter changed. */
	void	 (*update)(struct app *, void *data);
	/* A mouse click on row `row` of the view's area (0-based); may be
	 * NULL. */
	int	 (*click)(struct app *, void *data, int row, bool twice);
	/* One line for the status bar (counts, sort order) into buf; may be
	 * NULL. */
	void	 (*status)(struct app *, void *data, char *buf, size_t len);
};

struct view {
	const struct view_ops	*ops;
	void			*data;
};

/* The top-level screens, in Tab and digit order. */
extern const struct view_ops *const view_tabs[];
extern const size_t view_ntabs;
extern const struct view_ops board_view, tickets_view, findings_view,
    help_view, gate_view, jobs_view, joblog_view, faults_view,
    soak_view;

/* The view called name (":findings"), or NULL. */
const struct view_ops	*view_by_name(const char *name);

#endif

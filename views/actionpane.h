/*
 * actionpane.h: the action log (actionlog.h) as a pane at the foot of a
 * screen: every action triggered from any console of this user, newest
 * first, each with when, who, where, what, how it went and the exact
 * command.  The faults screen shows it; any screen may, as it needs only
 * the lab model.
 *
 * The log is read when the pane is made, when it is shown again, when asked
 * (actionpane_reload) and, when drawn, if a job has started or ended since
 * (each appends to the log): so it needs no timer.  An action whose outcome
 * is not logged yet says its job's state from the model ("running").
 *
 * Ownership: struct actionpane is its screen's (inside the view's data),
 * made by actionpane_init() and emptied by actionpane_release().  It
 * borrows the lab model, which outlives every view.
 */
#ifndef CALOPS_ACTIONPANE_H
#define CALOPS_ACTIONPANE_H

#include "calops.h"

#include "lab/actionlog.h"
#include "lab/labmodel.h"

struct actionpane {
	struct labmodel		*lm;		/* borrowed */
	bool			 shown;
	struct action_list	 list;
	/* why the log could not be read */
	char			 err[256];
	uint64_t		 sig;		/* the jobs when it was read */
};

/* Shown, and the log read. */
void	actionpane_init(struct actionpane *p, struct labmodel *lm);
void	actionpane_release(struct actionpane *p);
/* Read the log again. */
void	actionpane_reload(struct actionpane *p);
/* Show or hide the pane; shown again, it reads the log again. */
void	actionpane_toggle(struct actionpane *p);
/* The rows the pane takes of the rows a screen has left below its own
 * content: none when hidden or when too few are left. */
int	actionpane_height(const struct actionpane *p, int rows);
/* Paint rows [top, top + rows) of stdscr. */
void	actionpane_draw(struct actionpane *p, int top, int rows, int cols);

/* A wall-clock time as the pane shows it, "03-14 09:26:53", into buf, so a
 * screen showing times beside it shows them alike. */
void	actionpane_when(double ts, char *buf, size_t len);

#endif

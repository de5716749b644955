/*
 * soakpane.h: the Soak screen's panes, drawn for soak.c (soak_int.h): the
 * header rows, the alert journal and its keys, and the screen before any
 * soak has run.
 */
#ifndef CALOPS_SOAKPANE_H
#define CALOPS_SOAKPANE_H

#include "calops.h"

#include "views/core/action.h"
#include "views/soak_int.h"

/* The three header rows from y: state and elapsed time, freshness and
 * what is shown, the leak verdicts. */
void		 soakpane_draw_header(struct soak *v, const struct ljob *j,
	    int y,
		    int cols);
/* The alert journal in rows from y. */
void		 soakpane_draw_pane(struct soak *v, const struct ljob *j, int y,
		    int rows, int cols);
/* The journal's keys (A, a) and movement in it: a reaction. */
int		 soakpane_action(struct app *a, struct soak *v,
		    const struct ljob *j, enum action act);
/* The screen while the lab's hosts list no soak; the s key. */
void		 soakpane_draw_none(struct app *a, int top, int cols);
int		 soakpane_ask_start(struct app *a);

#endif

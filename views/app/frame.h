/*
 * frame.h: the console's frame (frame.c): the title line and its tabs,
 * the status bar, and when a frame is painted.
 */
#ifndef CALOPS_FRAME_H
#define CALOPS_FRAME_H

#include <stdbool.h>

struct app;

/* The tab drawn at column x of the title line, or -1 (frame.c). */
int	 frame_tab_at(const struct app *a, int x);
/* Mark dirty, paint once: the frame and the top view, if anything changed
 * (frame.c; called before every sleep). */
void	 frame_paint(struct app *a);
/* Whether to paint now: at once for the operator's keys, clicks and
 * resizes; else at most one frame per FRAME_MIN_MS while data streams in
 * (a timer brings the loop back for the next).  frame.c. */
bool	 frame_due(struct app *a);

#endif

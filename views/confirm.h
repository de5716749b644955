/*
 * confirm.h: the one rule for a job that can disturb a chip (confirm.c):
 * a screen that shows what it will run and disturb, and a typed answer
 * before anything starts.
 */
#ifndef CALOPS_CONFIRM_H
#define CALOPS_CONFIRM_H

#include "calops.h"

#include "lab/labmodel.h"

struct app;

/* Show what spec would start, and start it once the operator has typed
 * its chips; said in the status bar at once when it cannot start at all
 * (read-only, another console writes, no such host or workspace). */
void	confirm_ask(struct app *a, const struct ljob_spec *spec);

#endif

/*
 * reportrun.h: `:report` (reportrun.c), the release decision record
 * written from the console: `calops report --write` run where the
 * workspace is, the status bar saying where it went.
 */
#ifndef CALOPS_REPORTRUN_H
#define CALOPS_REPORTRUN_H

struct app;

/* Write it, asking first when a decision.md is there already. */
void	 reportrun_start(struct app *a);
/* Stop one that runs, quietly: the console is going. */
void	 reportrun_stop(struct app *a);

#endif

/*
 * pick.h: the screen that asks which lab host, or which chip of a host, a
 * job runs on (pick.c, over views/core/picker.h): every host of the lab
 * file with its connection state, or every chip of one host with what
 * runs on it, the selection starting on a default (the board's host), Up
 * and Down to move, Enter or a double click to take one, a click
 * to select, Esc or q to cancel.  What is chosen is then confirmed as
 * before (confirm.h): the picker chooses, the confirmation confirms.
 */
#ifndef CALOPS_PICK_H
#define CALOPS_PICK_H

#include "calops.h"

struct app;

/* Told what was chosen: the host (borrowed, for the call), and the chip
 * (pick_chip; -1 from pick_host), or NULL when the choice was cancelled
 * (Esc, q, the screen closed).  The picker's screen is closed by then. */
typedef void (*pick_fn)(struct app *, const char *host, int chip, void *arg);
/* The same for pick_chips(): the chips marked, n of them (borrowed, for
 * the call; n > 0), or host NULL (chips NULL, n 0) when cancelled. */
typedef void (*pick_chips_fn)(struct app *, const char *host,
    const int *chips, size_t n, void *arg);

/* Ask which host of the lab a job runs on, what (the job in words, "G9's
 * job") in the question; def (NULL: none) selected first.  A host with no
 * workspace, not reachable or protected is shown and refused, saying why.
 * When the lab has one host only and it can run jobs, fn is told at once,
 * with no screen. */
void	pick_host(struct app *a, const char *what, const char *def,
	    pick_fn fn, void *arg);
/* The same for a host whose what ("the faults") a screen shows: "Show
 * WHAT of which host?"; a protected host is taken (nothing runs by being
 * looked at), and the picker shows even for one host. */
void	pick_host_view(struct app *a, const char *what, const char *def,
	    pick_fn fn, void *arg);
/* The same for a chip of host (one of the lab file's chips: chip 0 when
 * it names none), each with the running jobs on it or "idle"; def selected
 * first (-1: the first).  A host with one chip tells fn at once. */
void	pick_chip(struct app *a, const char *what, const char *host, int def,
	    pick_fn fn, void *arg);
/* Any of the chips of host, for a job that runs on several (a soak): every
 * chip marked first, Space marks or unmarks the selected one (on the first
 * row, "all chips", every one or none), Enter takes those marked.  A host
 * with one chip tells fn at once. */
void	pick_chips(struct app *a, const char *what, const char *host,
	    pick_chips_fn fn, void *arg);
/* The first chip of host no live job uses (labmodel_jobs_on_chip), else
 * its first: what a job on one chip suggests. */
int	pick_idle_chip(struct app *a, const char *host);

#endif

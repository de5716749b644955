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

/* Ask which host of the lab a job runs on, what (the job in words, "G9's
 * job") in the question; def (NULL: none) selected first.  A host with no
 * workspace, not reachable or protected is shown and refused, saying why.
 * When the lab has one host only and it can run jobs, fn is told at once,
 * with no screen. */
void	pick_host(struct app *a, const char *what, const char *def,
	    pick_fn fn, void *arg);
/* The same for a chip of host (one of the lab file's chips: chip 0 when
 * it names none), each with the running jobs on it or "idle"; def selected
 * first (-1: the first).  all: a first row "all chips" (told as chip -1)
 * for a job that can take every chip (a soak).  A host with one chip
 * tells fn at once (-1 when all). */
void	pick_chip(struct app *a, const char *what, const char *host, int def,
	    bool all, pick_fn fn, void *arg);

#endif

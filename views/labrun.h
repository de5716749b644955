/*
 * labrun.h: starting a gate's lab job from the console (README.md, the
 * Board), for the board and the gate screen alike: which host, a
 * confirmation, then labmodel_start().
 */
#ifndef CALOPS_LABRUN_H
#define CALOPS_LABRUN_H

#include "calops.h"

struct app;

/* Ask, then run gate's job (G7: golden + faults, G9: the 24 h soak) on a
 * host: the only one, or the one picked (pick.h), the board's selected
 * first.  Refused read-only. */
void	labrun_gate(struct app *a, int gate);
/* G5 only: one more build added to those builds.json lists (a third on
 * demand), asked and confirmed as labrun_gate asks. */
void	labrun_gate_again(struct app *a, int gate);
/* "▶ running 45%" (narrow: "▶ run 45%") for a gate whose job is live on
 * the board's host, into buf; false when none. */
bool	labrun_gate_status(struct app *a, int gate, char *buf, size_t len,
	    bool narrow);
/* The host whose jobs the board's gates show: the lab host the board's
 * workspace is on (app_workspace_lab_host); NULL: any host. */
const char *labrun_board_host(const struct app *a);
/* The host a soak starts on and the Faults screen opens on: the board's
 * when jobs can run there, else the lab's first that can; NULL: none. */
const char *labrun_default_host(const struct app *a);
/* The workspace a job on host runs in (ljob_spec.workspace): the board's
 * when it is on that host, as the lab file gives its path; else NULL, the
 * host's first in the lab file. */
const char *labrun_workspace(const struct app *a, const char *host);

#endif

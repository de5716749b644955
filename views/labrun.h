/*
 * labrun.h: starting a gate's lab job from the console (issue 4 §4), for
 * the board and the gate screen alike: which host, a confirmation, then
 * labmodel_start().
 */
#ifndef CALOPS_LABRUN_H
#define CALOPS_LABRUN_H

#include "calops.h"

struct app;

/* Ask, then run gate's job (G7: golden + faults, G9: the 24 h soak) on a
 * host: the only reachable one, or the one typed.  Refused read-only. */
void	labrun_gate(struct app *a, int gate);
/* G5 only: one more build added to those builds.json lists (a third on
 * demand), asked and confirmed as labrun_gate asks. */
void	labrun_gate_again(struct app *a, int gate);
/* "▶ running 45%" (narrow: "▶ run 45%") for a gate whose job is live on
 * the board's host, into buf; false when none. */
bool	labrun_gate_status(struct app *a, int gate, char *buf, size_t len,
	    bool narrow);
/* The host whose jobs the board's gates show: the SSH host of the
 * workspace, or the local host whose workspace it is; NULL: any host (the
 * board's workspace is no host's). */
const char *labrun_board_host(struct app *a);

#endif

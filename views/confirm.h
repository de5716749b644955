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
/* The rule for a job that would disturb the running jobs js[0..n), n > 0
 * (the Faults screen's trigger follows it too): the operator types the
 * word "disturb", or, when that job is one whose id is known, its id.
 * Whether answer does; why not, in words, into why.  What to type, in
 * words ("its job id (ID) or the word disturb"), into buf. */
bool	confirm_disturb_ok(const struct ljob *const *js, size_t n,
	    const char *answer, char *why, size_t len);
void	confirm_disturb_want(const struct ljob *const *js, size_t n,
	    char *buf, size_t len);
/* The same, then told what became of it: the job started (borrowed, for
 * the call), or NULL when it was not (a wrong answer, Esc, a refusal).
 * -1, not told, when the question could not even be asked (said). */
typedef void (*confirm_done_fn)(struct app *, const struct ljob *, void *);
int	confirm_ask_then(struct app *a, const struct ljob_spec *spec,
	    confirm_done_fn done, void *arg);

#endif

/*
 * labadopt.h: following a soak this console did not start (lab.md §6): one
 * another console, a script or a person started on a host of the lab,
 * known from the host's `calops jobs` (its job.json: argv, started).  It
 * joins the lab model as if it had been started here: its record and
 * mirror are written (so a console started again replays it and resumes
 * it), and its events are followed from the host's first, caught up, then
 * live; the Soak screen shows it like any other.
 *
 * Only a soak: the runner's `stress` command as labcmd.c builds it (its
 * --duration, --chips and --calbin say its target, chips and workspace);
 * its record's actor, when the host writes one, who started it (the
 * label says "· by WHO").
 */
#ifndef CALOPS_LABADOPT_H
#define CALOPS_LABADOPT_H

#include "calops.h"

#include <jansson.h>

struct labmodel;
struct ljob;

/* Whether a calops-jobs/v1 entry (borrowed) is a soak's: its argv runs
 * the runner's stress command. */
bool		 labadopt_is_soak(json_t *record);

/*
 * Follow the soak of job record (a calops-jobs/v1 entry, borrowed) on
 * host: the job the model holds already, or a new one, catching up from
 * its first event.  NULL with err (not a soak, no such host, no id, its
 * mirror folder refused, this console only watches another's).
 */
const struct ljob *labadopt_soak(struct labmodel *lm, const char *host,
		    json_t *record, char *err, size_t errlen);

#endif

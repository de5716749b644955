/*
 * tickets.h: the tickets M01..M13 and their progress (workspace.md §6).
 *
 * Progress is the share of a ticket's definition-of-done checks that hold,
 * derived from the gates' verdicts (a check holds only when it was judged),
 * never from the `state` someone typed in
 * tickets.yaml; a ticket claimed done with a check failing is flagged.
 */
#ifndef CALOPS_TICKETS_H
#define CALOPS_TICKETS_H

#include "engine/gate.h"

#define TICKET_COUNT 13
#define TICKET_MAX_CHECKS 6

struct ticket_def {
	const char	*id;
	const char	*title;
	/* "G0.schema": that check and its sub-ids; "G2.*": every finding of
	 * the gate; a trailing "!": warnings count against it too. */
	const char	*checks[TICKET_MAX_CHECKS];
};

extern const struct ticket_def tickets_table[TICKET_COUNT];

struct ticket {
	const struct ticket_def	*def;
	char		*owner;		/* from tickets.yaml, or NULL */
	double		 estimate_days;	/* < 0 when not given */
	char		*state;		/* todo doing done blocked, or NULL */
	size_t		 holding, total;
	enum check_verdict verdict[TICKET_MAX_CHECKS];
	double		 progress;	/* holding / total */
	bool		 claimed_done_without_evidence;
	char		*problem;	/* a tickets.yaml problem, or NULL */
	char		*problem_where;
};

/* Derive every ticket from an evaluation (tickets.yaml read through it). */
void	tickets_derive(struct eval *ev, struct ticket out[TICKET_COUNT]);
void	tickets_release(struct ticket t[TICKET_COUNT]);

/* The verdict on one of a ticket's check specs ("G0.files", "G2.*",
 * "G5.manifest!"), and whether it holds.  (Exposed for tests.) */
enum check_verdict tickets_check_verdict(const struct eval *ev,
	    const char *spec);
bool	tickets_check_holds(const struct eval *ev, const char *spec);

#endif

/*
 * owners.h: owners.yaml (workspace.md §5).  Each gate has exactly one owner
 * naming a person or team, never a generic vendor label (runbook §2); a
 * problem is a finding of that gate, G<n>.owner.
 */
#ifndef CALOPS_OWNERS_H
#define CALOPS_OWNERS_H

#include "engine/artifact.h"
#include "engine/gate.h"

struct owners {
	const struct artifact	*file;	/* borrowed from the evaluation */
	json_t			*gates;	/* borrowed: the `gates` mapping */
	char			 problem[400];	/* a whole-file problem */
	char			 where[32];
};

void	owners_load(struct owners *o, struct eval *ev);
/* Sets gr->owner and gr->due, and reports G<n>.owner problems. */
void	owners_check(const struct owners *o, struct gate_result *gr);
void	owners_release(struct owners *o);

#endif

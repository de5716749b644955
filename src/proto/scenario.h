/*
 * scenario.h: the runbook's eight fault scenarios (§11.3), the one table of
 * them.  A runner is asked for one by name (`fault --scenario NAME`), G7
 * requires a result for each, the console's G7 job runs them all in this
 * order and the Faults screen shows them in this order; each names the
 * error code a runner must report for it (share/doc/workspace.md, G7.faults).
 */
#ifndef CALOPS_SCENARIO_H
#define CALOPS_SCENARIO_H

#include "calops.h"

#define SCENARIO_COUNT	8

struct scenario {
	const char	*name;		/* "missing-tensor" */
	const char	*code;		/* "CALRT_E_TENSOR_MISSING" */
};

extern const struct scenario scenario_table[SCENARIO_COUNT];

/* The scenario called name, or NULL (also for a NULL name). */
const struct scenario *scenario_find(const char *name);
/* Every name, in order, each followed by one blank but the last; a new
 * string owned by the caller. */
char	*scenario_names(void);

#endif

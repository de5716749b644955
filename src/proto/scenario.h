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

/* Each scenario's index in scenario_table, for tables that say more about
 * each one (the simulator's: how it is injected and recovered). */
enum scenario_index {
	SCENARIO_MISSING_TENSOR,
	SCENARIO_BAD_CSR,
	SCENARIO_OOB_SLICE,
	SCENARIO_KV_FULL,
	SCENARIO_SUBMIT_BUSY,
	SCENARIO_WAIT_TIMEOUT,
	SCENARIO_CCU_EXCEPTION,
	SCENARIO_RESET_WARMUP,
};

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

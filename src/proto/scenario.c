/* scenario.c: the runbook's fault scenarios (scenario.h). */
#include "calops.h"

#include "proto/scenario.h"

const struct scenario scenario_table[SCENARIO_COUNT] = {
	[SCENARIO_MISSING_TENSOR] = { "missing-tensor",
	    "CALRT_E_TENSOR_MISSING" },
	[SCENARIO_BAD_CSR] = { "bad-csr", "CALRT_E_CSR_INVALID" },
	[SCENARIO_OOB_SLICE] = { "oob-slice", "CALRT_E_SLICE_OOB" },
	[SCENARIO_KV_FULL] = { "kv-full", "CALRT_E_KV_FULL" },
	[SCENARIO_SUBMIT_BUSY] = { "submit-busy", "CALRT_E_SUBMIT_BUSY" },
	[SCENARIO_WAIT_TIMEOUT] = { "wait-timeout", "CALRT_E_WAIT_TIMEOUT" },
	[SCENARIO_CCU_EXCEPTION] = { "ccu-exception",
	    "CALRT_E_CCU_EXCEPTION" },
	[SCENARIO_RESET_WARMUP] = { "reset-warmup", "CALRT_E_DEVICE_RESET" },
};

const struct scenario *
scenario_find(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < SCENARIO_COUNT; i++)
		if (strcmp(scenario_table[i].name, name) == 0)
			return &scenario_table[i];
	return NULL;
}

char *
scenario_names(void)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < SCENARIO_COUNT; i++) {
		t = xasprintf("%s%s%s", s, i > 0 ? " " : "",
		    scenario_table[i].name);
		free(s);
		s = t;
	}
	return s;
}

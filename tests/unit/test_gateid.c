/*
 * test_gateid.c: the one table of the gates' ids and job kinds
 * (vocab/gateid.c) and the fault scenarios' (proto/scenario.c): each
 * index is its gate, the engine's gate table names the gates alike, every
 * kind of job but a plain tool has its one gate, the runner's are G7 and
 * G9, and ids parse only as written.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>

#include "engine/gate.h"
#include "proto/scenario.h"
#include "vocab/gateid.h"

static void
test_ids(void **state)
{
	char want[8];
	int g;

	(void)state;
	for (g = 0; g < GATE_COUNT; g++) {
		snprintf(want, sizeof want, "G%d", g);
		assert_string_equal(gateid_table[g].id, want);
		/* The engine's table is in the same order, under the same
		 * ids. */
		assert_string_equal(gate_table[g].id, want);
		assert_int_equal(gateid_index(want), g);
	}
	assert_int_equal(gateid_index("G10"), GATE_COUNT - 1);
	assert_int_equal(gateid_index("G11"), -1);
	assert_int_equal(gateid_index("G01"), -1);
	assert_int_equal(gateid_index("g6"), -1);
	assert_int_equal(gateid_index("G"), -1);
	assert_int_equal(gateid_index("G6x"), -1);
	assert_int_equal(gateid_index(" G6"), -1);
	assert_int_equal(gateid_index(""), -1);
	assert_int_equal(gateid_index(NULL), -1);
}

static void
test_jobs(void **state)
{
	static const enum gatejob kinds[] = { GATEJOB_CHIP_TOOL,
	    GATEJOB_REPRO, GATEJOB_SUITE, GATEJOB_SOAK };
	size_t k;
	int g, n;

	(void)state;
	/* Each kind but a plain tool is one gate's. */
	for (k = 0; k < nitems(kinds); k++) {
		for (g = 0, n = 0; g < GATE_COUNT; g++)
			n += gateid_job(g) == kinds[k];
		assert_int_equal(n, 1);
		assert_int_equal(gateid_job(gateid_of(kinds[k])), kinds[k]);
	}
	assert_int_equal(gateid_of(GATEJOB_TOOL), -1);
	/* The runbook's: the runner's are G7 (golden and the faults) and G9
	 * (the soak), G5's is the compile twice, G8's serves from a chip. */
	assert_int_equal(gateid_of(GATEJOB_SUITE), gateid_index("G7"));
	assert_int_equal(gateid_of(GATEJOB_SOAK), gateid_index("G9"));
	assert_int_equal(gateid_of(GATEJOB_REPRO), gateid_index("G5"));
	assert_int_equal(gateid_of(GATEJOB_CHIP_TOOL), gateid_index("G8"));
	for (g = 0, n = 0; g < GATE_COUNT; g++)
		n += gateid_runner(g);
	assert_int_equal(n, 2);
	assert_true(gateid_runner(gateid_index("G7")));
	assert_true(gateid_runner(gateid_index("G9")));
	/* Not an index: no job of its own, never the runner's. */
	assert_false(gateid_runner(-1));
	assert_false(gateid_runner(GATE_COUNT));
	assert_int_equal(gateid_job(-1), GATEJOB_TOOL);
	assert_int_equal(gateid_job(GATE_COUNT), GATEJOB_TOOL);
}

static void
test_scenarios(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < SCENARIO_COUNT; i++) {
		assert_non_null(scenario_table[i].name);
		assert_non_null(scenario_table[i].code);
		assert_ptr_equal(scenario_find(scenario_table[i].name),
		    &scenario_table[i]);
		for (j = 0; j < i; j++) {
			assert_string_not_equal(scenario_table[i].name,
			    scenario_table[j].name);
			assert_string_not_equal(scenario_table[i].code,
			    scenario_table[j].code);
		}
	}
	/* The indexes other tables are keyed by name their own entries. */
	assert_string_equal(scenario_table[SCENARIO_MISSING_TENSOR].name,
	    "missing-tensor");
	assert_string_equal(scenario_table[SCENARIO_KV_FULL].name, "kv-full");
	assert_string_equal(scenario_table[SCENARIO_RESET_WARMUP].name,
	    "reset-warmup");
	assert_int_equal(SCENARIO_RESET_WARMUP, SCENARIO_COUNT - 1);
	assert_null(scenario_find("no-such"));
	assert_null(scenario_find(NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_scenarios),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

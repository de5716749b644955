/*
 * test_faultfold.c: fault results per chip folded into one line
 * (faultfold.c): each result is classified by the worst thing it says,
 * chips of one outcome become ranges, groups come in the order of their
 * lowest chip, and recovery times that jitter still fold.
 */
#include "calops.h"

#include <math.h>
#include <setjmp.h>

#include <cmocka.h>

#include "faultfold.h"

static void
expected_codes_are_the_runbooks(void **state)
{
	(void)state;
	assert_string_equal(faultfold_expected_code("wait-timeout"),
	    "CALRT_E_WAIT_TIMEOUT");
	assert_string_equal(faultfold_expected_code("reset-warmup"),
	    "CALRT_E_DEVICE_RESET");
	assert_string_equal(faultfold_expected_code("missing-tensor"),
	    "CALRT_E_TENSOR_MISSING");
	assert_null(faultfold_expected_code("no-such"));
	assert_null(faultfold_expected_code(NULL));
}

static void
classify_takes_the_worst(void **state)
{
	(void)state;
	assert_int_equal(faultfold_classify("kv-full", true,
	    "CALRT_E_KV_FULL", false, true), FO_RECOVERED);
	assert_int_equal(faultfold_classify("kv-full", true,
	    "CALRT_E_KV_FULL", false, false), FO_NOT_RECOVERED);
	assert_int_equal(faultfold_classify("kv-full", true,
	    "CALRT_E_SUBMIT_BUSY", false, true), FO_CODE_MISMATCH);
	assert_int_equal(faultfold_classify("kv-full", true, NULL, false,
	    true), FO_CODE_MISMATCH);
	assert_int_equal(faultfold_classify("kv-full", false, "", false,
	    true), FO_UNSTRUCTURED);
	assert_int_equal(faultfold_classify("kv-full", false, "", true,
	    false), FO_ABORTED);
	/* A scenario the table does not know cannot mismatch. */
	assert_int_equal(faultfold_classify("new-one", true, "X", false,
	    true), FO_RECOVERED);
	assert_false(faultfold_failed(FO_RECOVERED));
	assert_false(faultfold_failed(FO_RUNNING));
	assert_false(faultfold_failed(FO_NEVER));
	assert_true(faultfold_failed(FO_ABORTED));
	assert_true(faultfold_failed(FO_CODE_MISMATCH));
	assert_string_equal(faultfold_word(FO_NOT_RECOVERED), "not recovered");
	assert_string_equal(faultfold_word(FO_COUNT), "?");
}

static void
ranges_sort_and_merge(void **state)
{
	int a[] = { 7, 0, 1, 2, 4, 5, 6 }, b[] = { 3 }, c[] = { 5, 5, 6, 9 };
	char buf[64];

	(void)state;
	assert_string_equal(faultfold_ranges(a, nitems(a), buf, sizeof buf),
	    "0-2,4-7");
	assert_string_equal(faultfold_ranges(b, 1, buf, sizeof buf), "3");
	assert_string_equal(faultfold_ranges(c, nitems(c), buf, sizeof buf),
	    "5-6,9");
	assert_string_equal(faultfold_ranges(a, 0, buf, sizeof buf), "");
	/* Cut to fit, always terminated. */
	assert_string_equal(faultfold_ranges(a, nitems(a), buf, 4), "0-2");
}

static void
the_issue_example_folds(void **state)
{
	struct fold_cell c[8];
	char buf[256];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		c[i].chip = i;
		c[i].outcome = i == 3 ? FO_ABORTED : FO_RECOVERED;
		c[i].recover_ms = i == 3 ? NAN : 5012;
	}
	assert_string_equal(faultfold_format(c, 8, " · ", buf, sizeof buf),
	    "chip[0-2,4-7] recovered 5.0 s · chip3 aborted");
}

static void
jittered_times_show_a_range(void **state)
{
	struct fold_cell c[] = {
		{ 1, FO_RECOVERED, 4990 }, { 0, FO_RECOVERED, 5040 },
		{ 2, FO_RECOVERED, 5400 }, { 3, FO_RECOVERED, 4611 },
	};
	char buf[256];

	(void)state;
	assert_string_equal(faultfold_format(c, nitems(c), " | ", buf,
	    sizeof buf), "chip[0-3] recovered 4.6-5.4 s");
	c[2].recover_ms = 5012;
	c[3].recover_ms = 5020;
	assert_string_equal(faultfold_format(c, nitems(c), " | ", buf,
	    sizeof buf), "chip[0-3] recovered 5.0 s");
	/* Under a second: milliseconds. */
	c[0].recover_ms = 3.9;
	c[1].recover_ms = c[2].recover_ms = c[3].recover_ms = 4.2;
	assert_string_equal(faultfold_format(c, nitems(c), " | ", buf,
	    sizeof buf), "chip[0-3] recovered 4 ms");
	c[3].recover_ms = 12;
	assert_string_equal(faultfold_format(c, nitems(c), " | ", buf,
	    sizeof buf), "chip[0-3] recovered 4-12 ms");
}

static void
every_outcome_has_its_group(void **state)
{
	struct fold_cell c[] = {
		{ 0, FO_NEVER, NAN }, { 1, FO_RUNNING, NAN },
		{ 2, FO_PENDING, NAN }, { 3, FO_UNSTRUCTURED, NAN },
		{ 4, FO_CODE_MISMATCH, NAN }, { 5, FO_NOT_RECOVERED, 15000 },
		{ 6, FO_NEVER, NAN }, { 7, FO_NEVER, NAN },
	};
	char buf[512];

	(void)state;
	assert_string_equal(faultfold_format(c, nitems(c), " · ", buf,
	    sizeof buf), "chip[0,6-7] never run · chip1 running · "
	    "chip2 pending · chip3 unstructured · chip4 wrong error code · "
	    "chip5 not recovered");
}

static void
small_buffers_and_nothing(void **state)
{
	struct fold_cell c[] = { { 0, FO_ABORTED, NAN }, { 1, FO_NEVER, NAN } };
	char buf[10];

	(void)state;
	assert_string_equal(faultfold_format(c, 0, " · ", buf, sizeof buf), "");
	faultfold_format(c, nitems(c), " · ", buf, sizeof buf);
	assert_int_equal(strlen(buf), sizeof buf - 1);
	assert_memory_equal(buf, "chip0 abo", 9);
	/* A recovered chip with no time says so without one. */
	c[0].outcome = FO_RECOVERED;
	assert_string_equal(faultfold_format(c, 1, " · ", buf, sizeof buf),
	    "chip0 rec");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expected_codes_are_the_runbooks),
		cmocka_unit_test(classify_takes_the_worst),
		cmocka_unit_test(ranges_sort_and_merge),
		cmocka_unit_test(the_issue_example_folds),
		cmocka_unit_test(jittered_times_show_a_range),
		cmocka_unit_test(every_outcome_has_its_group),
		cmocka_unit_test(small_buffers_and_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

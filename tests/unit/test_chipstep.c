/*
 * test_chipstep.c: a release's chip step read from its job's stream
 * (src/lab/chipstep.c, share/doc/release.md §6): the chip_step event, the
 * end, and the judgement that signs a promote or refuses it: golden passed
 * on the package the generation binds, or why not (failed, another
 * package, killed, cut short, no result).
 */
#include "calops.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "lab/chipstep.h"

#define TREE "2fd1dc2236a5b7d598662c561b51d4963517304f2bf2a608b29344ae858d43cd"
#define SUM "6caf5c2e11186ccde58ddc83990b54abc6e30c8695496be3588be40aebfc92cb"

static void
feed(struct chipstep *cs, const char *line)
{
	chipstep_event(cs, line, strlen(line));
}

/* A job's stream as `calops release chip-step` writes it. */
static void
stream(struct chipstep *cs, bool passed, const char *tree, const char *end)
{
	char line[512];

	chipstep_init(cs);
	snprintf(cs->job, sizeof cs->job, "20261206-101500-a1b2c3");
	feed(cs, "{\"v\":1,\"seq\":1,\"type\":\"hello\"}");
	feed(cs, "{\"v\":1,\"seq\":2,\"type\":\"progress\",\"phase\":"
	    "\"golden\",\"done\":3,\"total\":16}");
	feed(cs, "{\"v\":1,\"seq\":3,\"type\":\"log\",\"level\":\"error\","
	    "\"msg\":\"prefill 16 decode 32: greedy diverges\"}");
	snprintf(line, sizeof line, "{\"v\":1,\"seq\":4,\"type\":\"chip_step\","
	    "\"golden\":\"08-release/chip-steps/3-x/golden.json\","
	    "\"golden_sha256\":\"%s\",\"calbin_tree_sha256\":\"%s\","
	    "\"passed\":%s,\"cases\":16,\"failed\":%d,\"problem\":%s}", SUM,
	    tree, passed ? "true" : "false", passed ? 0 : 1, passed ? "null" :
	    "\"1 of 16 golden cases do not match\"");
	feed(cs, line);
	if (end != NULL)
		feed(cs, end);
}

static void
test_passed(void **state)
{
	struct chipstep cs;

	(void)state;
	stream(&cs, true, TREE, "{\"v\":1,\"seq\":5,\"type\":\"end\","
	    "\"state\":\"done\",\"exit_code\":0}");
	assert_string_equal(cs.phase, "golden");
	assert_true(cs.done == 3 && cs.total == 16);
	assert_true(cs.said && cs.passed && cs.ended);
	assert_string_equal(cs.golden_sha256, SUM);
	assert_true(chipstep_judge(&cs, TREE));
	assert_string_equal(cs.problem, "");
	/* No tree to compare: the job's word alone. */
	assert_true(chipstep_judge(&cs, NULL));
}

static void
test_refused(void **state)
{
	struct chipstep cs;

	(void)state;
	/* A case that does not match. */
	stream(&cs, false, TREE, "{\"type\":\"end\",\"state\":\"failed\","
	    "\"exit_code\":1}");
	assert_false(chipstep_judge(&cs, TREE));
	assert_non_null(strstr(cs.problem, "golden failed on the chip (job "
	    "20261206-101500-a1b2c3): 1 of 16 golden cases do not match"));
	/* Another package than the generation binds. */
	stream(&cs, true, SUM, "{\"type\":\"end\",\"state\":\"done\","
	    "\"exit_code\":0}");
	assert_false(chipstep_judge(&cs, TREE));
	assert_non_null(strstr(cs.problem, "another package"));
	/* Killed mid-golden, and a stream that stopped before its end. */
	stream(&cs, true, TREE, "{\"type\":\"end\",\"state\":\"killed\","
	    "\"signal\":15}");
	assert_false(chipstep_judge(&cs, TREE));
	assert_non_null(strstr(cs.problem, "cut short: it was killed during "
	    "golden"));
	stream(&cs, true, TREE, NULL);
	assert_false(chipstep_judge(&cs, TREE));
	assert_non_null(strstr(cs.problem, "did not end"));
	/* Stopped by the approver: cut short, whatever else it said. */
	stream(&cs, true, TREE, "{\"type\":\"end\",\"state\":\"done\","
	    "\"exit_code\":0}");
	snprintf(cs.cut, sizeof cs.cut, "terminated (SIGTERM)");
	assert_false(chipstep_judge(&cs, TREE));
	assert_non_null(strstr(cs.problem, "was cut short: terminated"));
	/* A runner that could not start: no chip_step event at all. */
	chipstep_init(&cs);
	feed(&cs, "{\"type\":\"log\",\"level\":\"warn\",\"msg\":\"calops: "
	    "cannot run 'calrt_runner': No such file or directory\"}");
	feed(&cs, "{\"type\":\"end\",\"state\":\"failed\",\"exit_code\":1}");
	assert_false(chipstep_judge(&cs, TREE));
	assert_non_null(strstr(cs.problem, "failed: calops: cannot run "
	    "'calrt_runner'"));
}

/* The host's text is untrusted: kept as safe text, and a hash that is
 * not one is no hash. */
static void
test_hostile(void **state)
{
	struct chipstep cs;

	(void)state;
	chipstep_init(&cs);
	feed(&cs, "{\"type\":\"chip_step\",\"golden_sha256\":\"\\u001b[2J\","
	    "\"passed\":true,\"golden\":\"a\\u001b]0;x\\u0007b\"}");
	feed(&cs, "{\"type\":\"end\",\"state\":\"done\",\"exit_code\":0}");
	feed(&cs, "not json at all");
	assert_null(strchr(cs.golden, '\x1b'));
	assert_string_equal(cs.golden_sha256, "");
	assert_false(chipstep_judge(&cs, NULL));
	assert_non_null(strstr(cs.problem, "names no result hash"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passed),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

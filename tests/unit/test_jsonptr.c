/* test_jsonptr.c: a JSON pointer to the line its value begins on. */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>

#include "base/jsonptr.h"

static const char doc[] =
    "{\n"					/* 1 */
    "  \"validator\": {\"name\": \"v\", \"args\": [\"--x\"]},\n"	/* 2 */
    "  \"odd \\\"}]\": \"{[\\\"\",\n"		/* 3 */
    "  \"a/b\": 1, \"m~n\": 2, \"caf\\u00e9\": 3,\n"	/* 4 */
    "  \"findings\": [\n"			/* 5 */
    "    {\n"					/* 6 */
    "      \"code\": \"W-ALIGN-004\"\n"		/* 7 */
    "    },\n"					/* 8 */
    "    {\n"					/* 9 */
    "      \"level\": \"WARN\",\n"		/* 10 */
    "      \"code\": \"W-MASK-002\"\n"		/* 11 */
    "    }\n"					/* 12 */
    "  ],\n"					/* 13 */
    "  \"summary\": {\"ERROR\": 0,\n"		/* 14 */
    "    \"WARN\": 2}\n"			/* 15 */
    "}\n";

static void
test_lines(void **state)
{
	static const struct {
		const char	*ptr;
		long		 line;
	} cases[] = {
		{ "", 1 }, { "/validator", 2 }, { "/validator/args/0", 2 },
		{ "/findings", 5 }, { "/findings/0", 6 },
		{ "/findings/1", 9 }, { "/findings/1/code", 11 },
		{ "/summary/WARN", 15 }, { "/a~1b", 4 }, { "/m~0n", 4 },
		{ "/caf\xc3\xa9", 4 }, { "/odd \"}]", 3 },
		/* nothing there */
		{ "/findings/2", 0 }, { "/findings/01", 0 },
		{ "/findings/-", 0 }, { "/findings/x", 0 }, { "/nope", 0 },
		{ "/summary/WARN/x", 0 }, { "findings", 0 }, { "/a/b", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < nitems(cases); i++)
		if (jsonptr_line(doc, strlen(doc), cases[i].ptr) !=
		    cases[i].line)
			fail_msg("'%s': line %ld, not %ld", cases[i].ptr,
			    jsonptr_line(doc, strlen(doc), cases[i].ptr),
			    cases[i].line);
}

/* Cut anywhere, the text never makes it read past its end or find what
 * is not there; whole up to the value, it still finds it. */
static void
test_truncated(void **state)
{
	size_t n;
	long line;

	(void)state;
	for (n = 0; n < sizeof doc - 1; n++) {
		line = jsonptr_line(doc, n, "/findings/1/code");
		assert_true(line == 0 || line == 11);
		if (n > (size_t)(strstr(doc, "\"W-MASK") - doc))
			assert_int_equal(line, 11);
	}
	assert_int_equal(jsonptr_line("[[[[", 4, "/0/0/0/0"), 0);
	assert_int_equal(jsonptr_line("\"just a string\"", 15, "/0"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_evtext.c: the words the job log shows of an event and `calops tail
 * --find` looks in (proto/evtext.h): each type's message or summary, a
 * log line's level (one it does not know as info), the mark of a cut
 * line, and values that are not numbers flagged, never 0.
 */
#include "calops.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "base/buf.h"
#include "proto/evtext.h"

/* The words of event text (JSON) are want. */
static void
words_are(const char *text, const char *want)
{
	struct buf b = BUF_INIT;
	json_t *o = json_loads(text, 0, NULL);

	assert_non_null(o);
	buf_add(&b, "", 0);
	evtext_words(o, json_string_value(json_object_get(o, "type")), NULL,
	    &b);
	if (strcmp(b.data, want) != 0)
		fail_msg("%s: '%s', not '%s'", text, b.data, want);
	buf_release(&b);
	json_decref(o);
}

static void
test_words(void **state)
{
	(void)state;
	words_are("{\"type\":\"log\",\"level\":\"warn\",\"msg\":\"oops\"}",
	    "log warn oops");
	words_are("{\"type\":\"log\",\"level\":\"loud\",\"msg\":\"x\"}",
	    "log info x");
	words_are("{\"type\":\"log\",\"msg\":\"x\",\"truncated\":true}",
	    "log info [cut at 64 KiB] x");
	words_are("{\"type\":\"fault\",\"scenario\":\"kv-full\"}",
	    "fault kv-full");
	words_are("{\"type\":\"end\",\"exit_code\":3}", "end exit 3");
	words_are("{\"type\":\"end\",\"signal\":15}", "end signal 15");
	words_are("{\"type\":\"progress\",\"phase\":\"decode\",\"done\":40,"
	    "\"total\":100,\"unit\":\"tokens\"}",
	    "progress decode 40/100 tokens");
	words_are("{\"type\":\"metric\",\"chip\":1,\"values\":{\"ttft_ms\":"
	    "12.5,\"x\":\"abc\"}}",
	    "metric chip 1 ttft_ms=12.5 x=\"abc\"(not a number)");
	words_are("{\"type\":\"metric\",\"values\":{\"a\":1,\"b\":2,\"c\":3,"
	    "\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9}}",
	    "metric a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 (+1 more)");
	words_are("{\"type\":\"result\",\"status\":\"pass\"}", "result pass");
	words_are("{\"type\":\"gap\",\"lost\":1}", "gap 1 line lost on the "
	    "host");
	words_are("{\"type\":\"hello\",\"tool\":\"calrt-sim\",\"version\":"
	    "\"0.3\",\"host\":\"lab3\"}",
	    "hello job started by calrt-sim 0.3 on lab3");
	words_are("{\"type\":\"stalled\",\"msg\":\"disk full\"}",
	    "stalled disk full");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_event.c: metric event lines (event.c): the fast path and jansson on
 * every field type, escapes, numbers, and bad lines (truncated, wrong
 * types, missing fields, a 10 MB line, invalid UTF-8).  Every line goes
 * through both paths: where the fast one answers, jansson must agree.
 */
#include "calops.h"

#include <math.h>
#include <setjmp.h>

#include <cmocka.h>

#include "proto/event.h"
#include "proto/eventfast.h"

static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static bool
events_equal(const struct event *a, const struct event *b)
{
	size_t i;

	if (a->has != b->has || a->type != b->type ||
	    strcmp(a->type_name, b->type_name) != 0 || a->seq != b->seq ||
	    !same_double(a->ts, b->ts) || a->chip != b->chip ||
	    a->nvalues != b->nvalues || a->nlabels != b->nlabels ||
	    a->values_not_kept != b->values_not_kept ||
	    a->labels_not_kept != b->labels_not_kept)
		return false;
	for (i = 0; i < a->nvalues; i++)
		if (strcmp(a->values[i].name, b->values[i].name) != 0 ||
		    !same_double(a->values[i].v, b->values[i].v))
			return false;
	for (i = 0; i < a->nlabels; i++)
		if (strcmp(a->labels[i].name, b->labels[i].name) != 0 ||
		    strcmp(a->labels[i].value, b->labels[i].value) != 0)
			return false;
	return true;
}

/*
 * Both paths on len bytes; the fast path's answer must be jansson's.
 * Returns event_parse()'s result, the event in *ev; *fast says whether
 * the fast path answered.
 */
static int
parse2(const char *line, size_t len, struct event *ev, bool *fast)
{
	static struct event f, j;
	int rf, rj;

	rf = eventfast_parse(line, len, &f);
	rj = event_parse_jansson(line, len, &j);
	assert_true(rj == EVENT_OK || rj == EVENT_ERROR);
	if (rj == EVENT_ERROR && j.err[0] == '\0')
		fail_msg("jansson error without a message: '%.*s'", (int)len,
		    line);
	if (rf != EVENT_FALLBACK) {
		if (rf != rj)
			fail_msg("fast %d, jansson %d (%s / %s): '%.*s'", rf, rj,
			    f.err, j.err, (int)(len < 200 ? len : 200), line);
		if (rf == EVENT_OK && !events_equal(&f, &j))
			fail_msg("fast and jansson events differ: '%.*s'",
			    (int)len, line);
	}
	assert_int_equal(event_parse(line, len, ev), rj);
	if (fast != NULL)
		*fast = rf != EVENT_FALLBACK;
	return rj;
}

static int
parse(const char *line, struct event *ev, bool *fast)
{
	return parse2(line, strlen(line), ev, fast);
}

#define PREFIX	"{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\"metric\","

/* A line the fast path must take and accept. */
static void
ok_fast(const char *line, struct event *ev)
{
	bool fast;

	if (parse(line, ev, &fast) != EVENT_OK)
		fail_msg("'%s': %s", line, ev->err);
	if (!fast)
		fail_msg("'%s' fell back", line);
}

/* A line that parses (on whichever path). */
static void
ok_any(const char *line, struct event *ev)
{
	if (parse(line, ev, NULL) != EVENT_OK)
		fail_msg("'%s': %s", line, ev->err);
}

/* A string literal with a NUL in it, which must be refused. */
#define bad2(lit) do {							\
	struct event ev_;						\
									\
	assert_int_equal(parse2(lit, sizeof(lit) - 1, &ev_, NULL),	\
	    EVENT_ERROR);						\
} while (0)

/* A line that must be refused, with a message containing want. */
static void
bad(const char *line, const char *want)
{
	struct event ev;

	if (parse(line, &ev, NULL) != EVENT_ERROR)
		fail_msg("'%s' parsed", line);
	if (want != NULL && strstr(ev.err, want) == NULL)
		fail_msg("'%s': '%s' does not say '%s'", line, ev.err, want);
}

static void
test_metric(void **state)
{
	struct event ev;
	const struct event_value *v;

	(void)state;
	ok_fast("{\"v\":1,\"seq\":12,\"ts\":1.5e9,\"type\":\"metric\","
	    "\"chip\":3,\"values\":{\"ttft_ms\":12.5,\"tpot_ms\":3,"
	    "\"request_ok\":true},\"labels\":{\"model\":\"m7\"}}", &ev);
	assert_int_equal(ev.has, EVENT_HAS_V | EVENT_HAS_SEQ | EVENT_HAS_TS |
	    EVENT_HAS_TYPE | EVENT_HAS_CHIP | EVENT_HAS_VALUES |
	    EVENT_HAS_LABELS);
	assert_int_equal(ev.type, EVENT_METRIC);
	assert_string_equal(ev.type_name, "metric");
	assert_int_equal(ev.seq, 12);
	assert_true(ev.ts == 1.5e9);
	assert_int_equal(ev.chip, 3);
	assert_int_equal(ev.nvalues, 3);
	assert_string_equal(ev.values[0].name, "ttft_ms");
	assert_true(ev.values[0].v == 12.5);
	assert_true(ev.values[1].v == 3);
	assert_true(ev.values[2].v == 1);
	assert_int_equal(ev.nlabels, 1);
	assert_string_equal(ev.labels[0].name, "model");
	assert_string_equal(ev.labels[0].value, "m7");
	assert_non_null(v = event_value(&ev, "tpot_ms"));
	assert_true(v->v == 3);
	assert_null(event_value(&ev, "rss_bytes"));
	/* Blanks anywhere JSON allows them; keys in any order. */
	ok_fast(" \t{ \"values\" : { \"a\" : -0.5 , \"b\":false } ,\r\n"
	    "\"type\":\"metric\", \"ts\" : 7 , \"seq\":0,\"v\":1 }\n ", &ev);
	assert_int_equal(ev.nvalues, 2);
	assert_true(ev.values[0].v == -0.5);
	assert_true(ev.values[1].v == 0);
	assert_true(ev.ts == 7);
	assert_false(ev.has & EVENT_HAS_CHIP);
	/* Empty values and labels are fine. */
	ok_fast(PREFIX "\"values\":{},\"labels\":{}}", &ev);
	assert_int_equal(ev.nvalues, 0);
	/* Unknown fields of any scalar type are ignored. */
	ok_fast(PREFIX "\"values\":{\"x\":1},\"host\":\"h\",\"n\":null,"
	    "\"f\":1.5,\"b\":true,\"i\":-3}", &ev);
	assert_int_equal(ev.nvalues, 1);
}

static void
test_other_types(void **state)
{
	struct event ev;

	(void)state;
	ok_fast("{\"v\":1,\"seq\":2,\"ts\":3.25,\"type\":\"log\","
	    "\"level\":\"info\",\"msg\":\"hello \\\"world\\\"\"}", &ev);
	assert_int_equal(ev.type, EVENT_LOG);
	assert_int_equal(ev.nvalues, 0);
	ok_fast("{\"v\":1,\"seq\":3,\"ts\":4,\"type\":\"end\",\"exit_code\":0}",
	    &ev);
	assert_int_equal(ev.type, EVENT_END);
	/* hello has an argv array: jansson's to read. */
	ok_any("{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\"hello\",\"tool\":\"t\","
	    "\"argv\":[\"a\",\"b\"],\"host\":\"h\"}", &ev);
	assert_int_equal(ev.type, EVENT_HELLO);
	/* Unknown types are kept as OTHER with their name. */
	ok_fast("{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\"newthing\"}", &ev);
	assert_int_equal(ev.type, EVENT_OTHER);
	assert_string_equal(ev.type_name, "newthing");
	ok_fast("{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\""
	    "a-type-name-longer-than-thirty-two-bytes\"}", &ev);
	assert_int_equal(ev.type, EVENT_OTHER);
	assert_string_equal(ev.type_name, "");
	/* Out of order is the caller's business. */
	ok_fast("{\"v\":1,\"seq\":9,\"ts\":100,\"type\":\"log\"}", &ev);
	ok_fast("{\"v\":1,\"seq\":3,\"ts\":50,\"type\":\"log\"}", &ev);
	assert_int_equal(ev.seq, 3);
}

/* Escapes, \u, surrogate pairs and raw UTF-8, in keys and values. */
static void
test_strings(void **state)
{
	struct event ev;

	(void)state;
	ok_fast(PREFIX "\"values\":{\"a\\u0062c\":1,\"\\t\\n\\\"\\\\\\/\":2},"
	    "\"labels\":{\"k\":\"\\u00e9\\u4e2d\\ud83d\\ude00\\b\\f\\r\"}}",
	    &ev);
	assert_string_equal(ev.values[0].name, "abc");
	assert_string_equal(ev.values[1].name, "\t\n\"\\/");
	assert_string_equal(ev.labels[0].value,
	    "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\b\f\r");
	ok_fast(PREFIX "\"values\":{\"\xc3\xa9t\xc3\xa9\":1,"
	    "\"\xf0\x9f\x98\x80\":2},\"labels\":{\"\xe4\xb8\xad\":\"\\u00E9\"}}",
	    &ev);
	assert_string_equal(ev.values[0].name, "\xc3\xa9t\xc3\xa9");
	assert_string_equal(ev.labels[0].value, "\xc3\xa9");
	/* A known key spelt with escapes is that key. */
	ok_fast("{\"\\u0076\":1,\"seq\":1,\"ts\":1,\"typ\\u0065\":\"metric\","
	    "\"values\":{\"x\":1}}", &ev);
	assert_int_equal(ev.type, EVENT_METRIC);
	/* Broken escapes and surrogates: errors, on both paths. */
	bad(PREFIX "\"values\":{\"a\":1},\"m\":\"\\x\"}", "invalid JSON");
	bad(PREFIX "\"values\":{\"a\":1},\"m\":\"\\u12\"}", "invalid JSON");
	bad(PREFIX "\"values\":{\"a\":1},\"m\":\"\\ud800\"}", "invalid JSON");
	bad(PREFIX "\"values\":{\"a\":1},\"m\":\"\\ud800\\u0041\"}", NULL);
	bad(PREFIX "\"values\":{\"a\":1},\"m\":\"\\udc00\"}", NULL);
	bad(PREFIX "\"values\":{\"a\":1},\"m\":\"\\u0000\"}", NULL);
	bad(PREFIX "\"values\":{\"a\\u0000b\":1}}", NULL);
	bad(PREFIX "\"values\":{\"a\":1},\"m\":\"tab\there\"}", NULL);
}

/* Invalid UTF-8 anywhere is refused, as jansson refuses it. */
static void
test_utf8(void **state)
{
	static const char *const seqs[] = {
		"\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xc3", "\xc3\x28",
		"\xe0\x80\xaf", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf",
		"\xef\xbf", "\xf0\x80\x80\xaf", "\xf0\x8f\xbf\xbf",
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xfe", "\xff",
	};
	char line[256];
	size_t i;

	(void)state;
	for (i = 0; i < nitems(seqs); i++) {
		snprintf(line, sizeof line, PREFIX "\"values\":{\"a\":1},"
		    "\"m\":\"x%sy\"}", seqs[i]);
		bad(line, NULL);
		snprintf(line, sizeof line, PREFIX "\"values\":{\"a%s\":1}}",
		    seqs[i]);
		bad(line, NULL);
		snprintf(line, sizeof line, PREFIX "\"values\":{\"a\":1}}%s",
		    seqs[i]);
		bad(line, NULL);
	}
}

/* Numbers: the same doubles as strtod, integers as strtoll. */
static void
test_numbers(void **state)
{
	static const char *const nums[] = {
		"0", "-0", "1", "-1", "0.0", "-0.0", "0.1", "0.2", "0.3",
		"1e0", "1E2", "1e+2", "1e-2", "1.5e300", "-1.5e-300",
		"123456789012345678", "999999999999999999",
		"1000000000000000000", "9223372036854775807",
		"-9223372036854775808", "9007199254740992.0",
		"9007199254740993.0", "9007199254740993", "0.30000000000000004",
		"1.7976931348623157e308", "2.2250738585072014e-308",
		"2.2250738585072011e-308", "4.9e-324", "5e-324", "1e-400",
		"1e23", "8.5e22", "1e22", "123456789.123456789",
		"0.000000000000000000000000000001", "1.00000000000000011102230246251565404236316680908203125",
		"12345678901234567890e-5", "1e0000000000000000000005",
		"0.1e-0", "3.14159", "2.718281828459045", "1700000000.123456",
	};
	char line[256], *end;
	struct event ev;
	size_t i;
	bool fast;

	(void)state;
	for (i = 0; i < nitems(nums); i++) {
		snprintf(line, sizeof line, PREFIX "\"values\":{\"x\":%s}}",
		    nums[i]);
		if (parse(line, &ev, &fast) != EVENT_OK)
			fail_msg("%s: %s", nums[i], ev.err);
		if (!fast)
			fail_msg("%s fell back", nums[i]);
		if (strpbrk(nums[i], ".eE") != NULL)
			assert_true(same_double(ev.values[0].v,
			    strtod(nums[i], &end)));
		else
			assert_true(same_double(ev.values[0].v,
			    (double)strtoll(nums[i], &end, 10)));
	}
	/* Out of jansson's range: errors on both paths. */
	bad(PREFIX "\"values\":{\"x\":9223372036854775808}}", "too big");
	bad(PREFIX "\"values\":{\"x\":-9223372036854775809}}", "too big");
	bad(PREFIX "\"values\":{\"x\":1e400}}", "overflow");
	bad(PREFIX "\"values\":{\"x\":-1e309}}", "overflow");
	/* Not JSON numbers. */
	bad(PREFIX "\"values\":{\"x\":01}}", NULL);
	bad(PREFIX "\"values\":{\"x\":1.}}", NULL);
	bad(PREFIX "\"values\":{\"x\":.5}}", NULL);
	bad(PREFIX "\"values\":{\"x\":+1}}", NULL);
	bad(PREFIX "\"values\":{\"x\":1e}}", NULL);
	bad(PREFIX "\"values\":{\"x\":1e+}}", NULL);
	bad(PREFIX "\"values\":{\"x\":-}}", NULL);
	bad(PREFIX "\"values\":{\"x\":NaN}}", NULL);
	bad(PREFIX "\"values\":{\"x\":Infinity}}", NULL);
	bad(PREFIX "\"values\":{\"x\":0x10}}", NULL);
	bad(PREFIX "\"values\":{\"x\":1.5.5}}", NULL);
}

/* Random doubles written the ways tools write them: fast equals strtod. */
static void
test_numbers_random(void **state)
{
	static const char *const fmts[] = { "%.17g", "%.15g", "%.6f", "%.3f",
	    "%g", "%.10e", "%.1f" };
	uint64_t x = 88172645463325252ULL, bits;
	char num[512], line[768];
	struct event ev;
	double d;
	int i;
	bool fast;

	(void)state;
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (i % 3 == 0) {
			bits = x;
			memcpy(&d, &bits, sizeof d);
			if (!isfinite(d))
				continue;
		} else	/* latencies, timestamps, byte counts */
			d = (double)(x % 100000000) /
			    pow(10, (double)(x >> 60));
		snprintf(num, sizeof num, fmts[(x >> 40) % nitems(fmts)], d);
		snprintf(line, sizeof line, PREFIX "\"values\":{\"x\":%s}}",
		    num);
		if (parse(line, &ev, &fast) != EVENT_OK)
			fail_msg("%s: %s", num, ev.err);
		if (!fast && strlen(num) < 64)
			fail_msg("%s fell back", num);
		if (strpbrk(num, ".eE") != NULL &&
		    !same_double(ev.values[0].v, strtod(num, NULL)))
			fail_msg("%s: %.17g", num, ev.values[0].v);
	}
}

/* What the fast path leaves to jansson, and what jansson then says. */
static void
test_fallback(void **state)
{
	static const char *const lines[] = {
		/* arrays, deeper objects */
		PREFIX "\"values\":{\"a\":1},\"artifacts\":[\"x\"]}",
		PREFIX "\"values\":{\"a\":1},\"summary\":{\"n\":{\"m\":1}}}",
		/* duplicate keys: jansson keeps the last */
		PREFIX "\"values\":{\"a\":1,\"a\":2}}",
		PREFIX "\"values\":{\"a\":1},\"values\":{\"b\":2}}",
		"{\"v\":1,\"seq\":\"x\",\"seq\":1,\"ts\":1,\"type\":\"log\"}",
		/* null in values, a non-string label */
		PREFIX "\"values\":{\"a\":null,\"b\":2}}",
		PREFIX "\"values\":{\"a\":1},\"labels\":{\"n\":8,\"k\":\"v\"}}",
	};
	struct event ev;
	size_t i;

	(void)state;
	for (i = 0; i < nitems(lines); i++) {
		assert_int_equal(eventfast_parse(lines[i], strlen(lines[i]),
		    &ev), EVENT_FALLBACK);
		ok_any(lines[i], &ev);
	}
	ok_any(PREFIX "\"values\":{\"a\":1,\"a\":2}}", &ev);
	assert_int_equal(ev.nvalues, 1);
	assert_true(ev.values[0].v == 2);
	ok_any(PREFIX "\"values\":{\"a\":null,\"b\":2}}", &ev);
	assert_int_equal(ev.nvalues, 1);
	assert_string_equal(ev.values[0].name, "b");
	ok_any(PREFIX "\"values\":{\"a\":1},\"labels\":{\"n\":8,\"k\":\"v\"}}",
	    &ev);
	assert_int_equal(ev.nlabels, 1);
	assert_string_equal(ev.labels[0].name, "k");
}

static void
test_wrong_types(void **state)
{
	(void)state;
	bad("{\"v\":1,\"seq\":\"12\",\"ts\":1,\"type\":\"log\"}", "'seq'");
	bad("{\"v\":1,\"seq\":-1,\"ts\":1,\"type\":\"log\"}", "'seq'");
	bad("{\"v\":1,\"seq\":1.0,\"ts\":1,\"type\":\"log\"}", "'seq'");
	bad("{\"v\":1,\"seq\":1,\"ts\":\"now\",\"type\":\"log\"}", "'ts'");
	bad("{\"v\":1,\"seq\":1,\"ts\":null,\"type\":\"log\"}", "'ts'");
	/* A ts that is not a time would stretch every time axis. */
	bad("{\"v\":1,\"seq\":1,\"ts\":1e300,\"type\":\"log\"}", "'ts'");
	bad("{\"v\":1,\"seq\":1,\"ts\":-1e300,\"type\":\"log\"}", "'ts'");
	bad("{\"v\":1,\"seq\":1,\"ts\":-1,\"type\":\"log\"}", "'ts'");
	bad("{\"v\":1,\"seq\":1,\"ts\":4102444800,\"type\":\"log\"}",
	    "from 1970 to 2100");
	bad("{\"v\":2,\"seq\":1,\"ts\":1,\"type\":\"log\"}", "'v'");
	bad("{\"v\":\"1\",\"seq\":1,\"ts\":1,\"type\":\"log\"}", "'v'");
	bad("{\"v\":1.0,\"seq\":1,\"ts\":1,\"type\":\"log\"}", "'v'");
	bad("{\"v\":1,\"seq\":1,\"ts\":1,\"type\":7}", "'type'");
	bad("{\"v\":1,\"seq\":1,\"ts\":1,\"type\":[\"log\"]}", "'type'");
	bad(PREFIX "\"chip\":-1,\"values\":{\"a\":1}}", "'chip'");
	bad(PREFIX "\"chip\":4096,\"values\":{\"a\":1}}", "'chip'");
	bad(PREFIX "\"chip\":1.5,\"values\":{\"a\":1}}", "'chip'");
	bad(PREFIX "\"chip\":\"0\",\"values\":{\"a\":1}}", "'chip'");
	bad(PREFIX "\"values\":5}", "'values' is not an object");
	bad(PREFIX "\"values\":[1,2]}", "'values' is not an object");
	bad(PREFIX "\"values\":{\"a\":\"12.5\"}}", "not a number");
	bad(PREFIX "\"values\":{\"a\":[1]}}", "not a number");
	bad(PREFIX "\"values\":{\"a\":{\"b\":1}}}", "not a number");
	bad(PREFIX "\"values\":{\"a\":1},\"labels\":\"x\"}",
	    "'labels' is not an object");
	bad("[1,2,3]", "not a JSON object");
	bad("\"metric\"", "invalid JSON");
	bad("42", "invalid JSON");
}

static void
test_missing(void **state)
{
	(void)state;
	bad("{\"seq\":1,\"ts\":1,\"type\":\"log\"}", "missing 'v'");
	bad("{\"v\":1,\"ts\":1,\"type\":\"log\"}", "missing 'seq'");
	bad("{\"v\":1,\"seq\":1,\"type\":\"log\"}", "missing 'ts'");
	bad("{\"v\":1,\"seq\":1,\"ts\":1}", "missing 'type'");
	bad("{}", "missing");
	bad("{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\"metric\"}",
	    "without 'values'");
}

/* Every proper prefix of a good line is an error on both paths. */
static void
test_truncated(void **state)
{
	static const char line[] = "{\"v\":1,\"seq\":12,\"ts\":1.5e9,"
	    "\"type\":\"metric\",\"chip\":0,\"values\":{\"ttft_ms\":12.5,"
	    "\"ok\":true,\"n\":null},\"labels\":{\"k\":\"\\u00e9\\ud83d\\ude00"
	    "\xc3\xa9\"},\"x\":false}";
	struct event ev;
	size_t n;

	(void)state;
	for (n = 0; n < sizeof line - 1; n++)
		if (parse2(line, n, &ev, NULL) != EVENT_ERROR)
			fail_msg("prefix of %zu bytes parsed", n);
	assert_int_equal(parse2(line, sizeof line - 1, &ev, NULL), EVENT_OK);
	/* Trailing bytes after the object. */
	bad(PREFIX "\"values\":{\"a\":1}} x", NULL);
	bad(PREFIX "\"values\":{\"a\":1}}}", NULL);
	bad(PREFIX "\"values\":{\"a\":1},}", NULL);
	bad(PREFIX "\"values\":{\"a\":1,}}", NULL);
	bad2(PREFIX "\"values\":{\"a\":1}}\0");
	bad2(PREFIX "\"values\":{\"a\":1\0}}");	/* jansson alone takes it */
	bad2(PREFIX "\"values\":{\"a\":true\0}}");
	bad2(PREFIX "\"values\":{\"a\":1},\"m\":\"a\0b\"}");
	bad("", NULL);
	bad("   ", NULL);
}

/* Append to a buffer of cap bytes at *len (the tests' own lines fit). */
static void PRINTFLIKE(4, 5)
put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < cap - *len);
	*len += (size_t)n;
}

/* Limits: line length, names, how many values and labels. */
static void
test_limits(void **state)
{
	static const char small[] = PREFIX "\"values\":{\"a\":1}}";
	static const char head[] = PREFIX "\"values\":{\"a\":1},\"m\":\"";
	struct event ev;
	size_t n, i, len, cap = 4096;
	char *line;

	(void)state;
	/* A 10 MB line is refused at once, on both paths. */
	n = 10u << 20;
	line = xmalloc(n + 1);
	memset(line, ' ', n);
	memcpy(line, head, sizeof head - 1);
	line[n - 2] = '"';
	line[n - 1] = '}';
	line[n] = '\0';
	assert_int_equal(parse2(line, n, &ev, NULL), EVENT_ERROR);
	assert_non_null(strstr(ev.err, "longer than"));
	/* Exactly EVENT_LINE_MAX is fine. */
	memset(line, ' ', EVENT_LINE_MAX + 1);
	memcpy(line, small, sizeof small - 1);
	assert_int_equal(parse2(line, EVENT_LINE_MAX, &ev, NULL), EVENT_OK);
	assert_int_equal(parse2(line, EVENT_LINE_MAX + 1, &ev, NULL),
	    EVENT_ERROR);
	/* 64 values are kept; the 65th and 67th of a valid event are
	 * counted, never an error (issue 27: a runner's 67 values). */
	for (n = 64; n <= 67; n++) {
		len = 0;
		put(line, cap, &len, "%s", PREFIX "\"values\":{");
		for (i = 0; i < n; i++)
			put(line, cap, &len, "%s\"m%zu\":%zu", i ? "," : "", i, i);
		put(line, cap, &len, "}}");
		ok_any(line, &ev);
		assert_int_equal(ev.nvalues, 64);
		assert_int_equal(ev.values_not_kept, n - 64);
		assert_string_equal(ev.values[63].name, "m63");
	}
	/* 16 labels are kept, a 17th counted. */
	for (n = 16; n <= 17; n++) {
		len = 0;
		put(line, cap, &len, "%s", PREFIX "\"values\":{},\"labels\":{");
		for (i = 0; i < n; i++)
			put(line, cap, &len, "%s\"l%zu\":\"v\"", i ? "," : "", i);
		put(line, cap, &len, "}}");
		ok_any(line, &ev);
		assert_int_equal(ev.nlabels, 16);
		assert_int_equal(ev.labels_not_kept, n - 16);
	}
	/* A name of 64 bytes is kept, one of 65 (or none) counted; a label
	 * value of 128 kept, 129 counted. */
	snprintf(line, cap, PREFIX "\"values\":{\"%064d\":1}}", 0);
	ok_fast(line, &ev);
	assert_int_equal(strlen(ev.values[0].name), 64);
	assert_int_equal(ev.values_not_kept, 0);
	snprintf(line, cap, PREFIX "\"values\":{\"%065d\":1,\"a\":2}}", 0);
	ok_any(line, &ev);
	assert_int_equal(ev.nvalues, 1);
	assert_string_equal(ev.values[0].name, "a");
	assert_int_equal(ev.values_not_kept, 1);
	ok_any(PREFIX "\"values\":{\"\":1}}", &ev);
	assert_int_equal(ev.nvalues, 0);
	assert_int_equal(ev.values_not_kept, 1);
	snprintf(line, cap, PREFIX "\"values\":{},\"labels\":{\"k\":"
	    "\"%0128d\"}}", 0);
	ok_fast(line, &ev);
	assert_int_equal(strlen(ev.labels[0].value), 128);
	snprintf(line, cap, PREFIX "\"values\":{},\"labels\":{\"k\":"
	    "\"%0129d\",\"%065d\":\"v\"}}", 0, 0);
	ok_any(line, &ev);
	assert_int_equal(ev.nlabels, 0);
	assert_int_equal(ev.labels_not_kept, 2);
	/* A cap is no licence: a value that is not a number still is not. */
	snprintf(line, cap, PREFIX "\"values\":{\"%065d\":\"x\"}}", 0);
	bad(line, "is not a number");
	free(line);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric),
		cmocka_unit_test(test_other_types),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_numbers_random),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

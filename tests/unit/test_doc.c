/*
 * test_doc.c: YAML and JSON into one tree (doc.c): the YAML 1.2 core schema,
 * positions, and every kind of bad input ending in an error with a position
 * rather than a crash, a hang or a silent pass.
 */
#include "calops.h"

#include <regex.h>
#include <setjmp.h>
#include <time.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/doc.h"

/* Seconds on the monotonic clock. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool
is_line_col(const char *where)
{
	regex_t re;
	bool ok;

	assert_int_equal(regcomp(&re, "^[1-9][0-9]*:[1-9][0-9]*$",
	    REG_EXTENDED | REG_NOSUB), 0);
	ok = regexec(&re, where, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

static int
parse(bool yaml, const char *s, size_t len, struct doc *d,
    struct doc_error *e)
{
	memset(e, 0, sizeof *e);
	return yaml ? doc_parse_yaml(d, s, len, e) :
	    doc_parse_json(d, s, len, e);
}

/* A bad document: an error with a message, a line:col position, and (when
 * given) that exact position and a message containing `what`. */
struct bad {
	const char	*text;
	size_t		 len;		/* 0: strlen(text) */
	const char	*where;		/* NULL: any line:col */
	const char	*what;		/* NULL: any message */
};

#define BAD(t, w, m)	{ t, sizeof(t) - 1, w, m }

static void
check_bad(bool yaml, const struct bad *cases, size_t n)
{
	struct doc d;
	struct doc_error e;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct bad *c = &cases[i];

		if (parse(yaml, c->text, c->len, &d, &e) != -1)
			fail_msg("case %zu parsed: %s", i, c->text);
		assert_null(d.root);
		if (e.msg[0] == '\0')
			fail_msg("case %zu: no message", i);
		if (!is_line_col(e.where))
			fail_msg("case %zu: where '%s' (%s)", i, e.where, e.msg);
		if (c->where != NULL && strcmp(c->where, e.where) != 0)
			fail_msg("case %zu: where '%s', wanted '%s' (%s)", i,
			    e.where, c->where, e.msg);
		if (c->what != NULL && strstr(e.msg, c->what) == NULL)
			fail_msg("case %zu: message '%s' lacks '%s'", i, e.msg,
			    c->what);
	}
}

/* Parse `v: <scalar>` and return the value (borrowed from d). */
static json_t *
yaml_value(struct doc *d, const char *scalar)
{
	struct doc_error e;
	char *text = xasprintf("v: %s\n", scalar);

	if (parse(true, text, strlen(text), d, &e) != 0)
		fail_msg("'%s': %s at %s", scalar, e.msg, e.where);
	free(text);
	assert_true(json_is_object(d->root));
	return json_object_get(d->root, "v");
}

static void
test_json_types(void **state)
{
	static const char text[] = "{\"i\": -3, \"r\": 1.5, \"s\": \"x\", "
	    "\"n\": null, \"t\": true, \"f\": false, \"a\": [1, {\"k\": 2}], "
	    "\"big\": 9223372036854775807}";
	struct doc d;
	struct doc_error e;
	char where[64];

	(void)state;
	assert_int_equal(parse(false, text, strlen(text), &d, &e), 0);
	assert_int_equal(d.kind, DOC_JSON);
	assert_int_equal(json_integer_value(json_object_get(d.root, "i")), -3);
	assert_true(json_is_real(json_object_get(d.root, "r")));
	assert_string_equal(json_string_value(json_object_get(d.root, "s")),
	    "x");
	assert_true(json_is_null(json_object_get(d.root, "n")));
	assert_true(json_is_true(json_object_get(d.root, "t")));
	assert_true(json_is_false(json_object_get(d.root, "f")));
	assert_int_equal(json_integer_value(json_object_get(d.root, "big")),
	    INT64_MAX);
	/* JSON findings carry the pointer itself. */
	assert_string_equal(doc_where(&d, "/a/1/k", where, sizeof where),
	    "/a/1/k");
	assert_string_equal(doc_where(&d, "", where, sizeof where), "/");
	doc_release(&d);
	assert_null(d.root);
}

static void
test_yaml_core_schema(void **state)
{
	static const struct {
		const char	*in;
		json_int_t	 i;
	} ints[] = {
		{ "0", 0 }, { "42", 42 }, { "-17", -17 }, { "+5", 5 },
		{ "007", 7 }, { "0x1f", 31 }, { "0xFF", 255 }, { "0o17", 15 },
		{ "9223372036854775807", INT64_MAX },
		{ "-9223372036854775808", INT64_MIN },
	};
	static const struct {
		const char	*in;
		double		 r;
	} reals[] = {
		{ "1.5", 1.5 }, { "-2.5e3", -2500 }, { ".5", 0.5 }, { "5.", 5 },
		{ "1e5", 1e5 }, { "+1.0", 1 }, { "1E-2", 0.01 }, { "1e-999", 0 },
	};
	/* Not numbers, booleans or null in the 1.2 core schema. */
	static const char *const strings[] = {
		"-0x1", "+0x1", "0x", "0o", "0o8", "0b101", "0xg", "1_000",
		"12:30", "yes", "no", "on", "off", "y", "tRUE", "nULL",
		"2001-01-01", "2001-12-14t21:59:43.10-05:00", "+", ".", "-x",
		"1e", "1e+", "e5", "1.2.3", "0x1p3", "inf", "nan", "+.nan",
		"-.NaN", "..5", "5..", "1 2",
	};
	/* Quoted or tagged: always strings. */
	static const struct {
		const char	*in, *out;
	} quoted[] = {
		{ "'5'", "5" }, { "\"true\"", "true" }, { "'null'", "null" },
		{ "\"~\"", "~" }, { "!!str 5", "5" }, { "! 12", "12" },
		{ "\"0x1f\"", "0x1f" }, { "''", "" }, { "|\n  12\n", "12\n" },
	};
	static const char *const nulls[] = { "~", "null", "Null", "NULL", "" };
	static const char *const trues[] = { "true", "True", "TRUE" };
	static const char *const falses[] = { "false", "False", "FALSE" };
	struct doc d;
	json_t *v;
	size_t i;

	(void)state;
	for (i = 0; i < nitems(ints); i++) {
		v = yaml_value(&d, ints[i].in);
		if (!json_is_integer(v) || json_integer_value(v) != ints[i].i)
			fail_msg("'%s' is not the integer %lld", ints[i].in,
			    (long long)ints[i].i);
		doc_release(&d);
	}
	for (i = 0; i < nitems(reals); i++) {
		v = yaml_value(&d, reals[i].in);
		if (!json_is_real(v) || json_real_value(v) != reals[i].r)
			fail_msg("'%s' is not the real %g", reals[i].in,
			    reals[i].r);
		doc_release(&d);
	}
	for (i = 0; i < nitems(strings); i++) {
		v = yaml_value(&d, strings[i]);
		if (!json_is_string(v) ||
		    strcmp(json_string_value(v), strings[i]) != 0)
			fail_msg("'%s' is not a string", strings[i]);
		doc_release(&d);
	}
	for (i = 0; i < nitems(quoted); i++) {
		v = yaml_value(&d, quoted[i].in);
		if (!json_is_string(v) ||
		    strcmp(json_string_value(v), quoted[i].out) != 0)
			fail_msg("%s is not the string '%s'", quoted[i].in,
			    quoted[i].out);
		doc_release(&d);
	}
	for (i = 0; i < nitems(nulls); i++) {
		v = yaml_value(&d, nulls[i]);
		if (!json_is_null(v))
			fail_msg("'%s' is not null", nulls[i]);
		doc_release(&d);
	}
	for (i = 0; i < nitems(trues); i++) {
		v = yaml_value(&d, trues[i]);	/* json_is_* use it twice */
		assert_true(json_is_true(v));
		doc_release(&d);
		v = yaml_value(&d, falses[i]);
		assert_true(json_is_false(v));
		doc_release(&d);
	}
}

/* Explicit core-schema tags decide the type, quoted or not (workspace.md
 * §1: `opset: !!int "17"` is the integer 17); a value the tag does not fit
 * is an error at its position. */
static void
test_yaml_tags(void **state)
{
	static const struct bad bad[] = {
		BAD("v: !!int \"17.0\"", "1:4", "not a valid !!int"),
		BAD("v: !!int abc", "1:4", "!!int"),
		BAD("v: !!int '1e3'", "1:4", "!!int"),
		BAD("v: !!float \"x\"", "1:4", "!!float"),
		BAD("v: !!bool \"yes\"", "1:4", "!!bool"),
		BAD("v: !!null 0", "1:4", "!!null"),
		BAD("v: !!binary aGk=", "1:4", "core schema"),
		BAD("v: !!timestamp 2001-12-14", "1:4", "core schema"),
		BAD("v: !local x", "1:4", "core schema"),
		BAD("v: !!map [1]", "1:4", "does not fit a sequence"),
		BAD("v: !!seq {a: 1}", "1:4", "does not fit a mapping"),
		BAD("!!int 1: x", "1:1", "mapping key"),
		/* merge keys are YAML 1.1 */
		BAD("a: &a {x: 1}\nb:\n  <<: *a\n", "3:3", "merge keys"),
		BAD("{<<: {x: 1}}", "1:2", "merge keys"),
	};
	static const struct {
		const char	*in;
		json_type	 type;
		const char	*text;	/* the value as JSON */
	} ok[] = {
		{ "!!int \"17\"", JSON_INTEGER, "17" },
		{ "!!int '0x1f'", JSON_INTEGER, "31" },
		{ "!!int 17", JSON_INTEGER, "17" },
		{ "!!int \"-0\"", JSON_INTEGER, "0" },
		{ "!!float \"1\"", JSON_REAL, "1.0" },
		{ "!!float '2.5'", JSON_REAL, "2.5" },
		{ "!!bool \"true\"", JSON_TRUE, "true" },
		{ "!!bool 'False'", JSON_FALSE, "false" },
		{ "!!null ''", JSON_NULL, "null" },
		{ "!!null ~", JSON_NULL, "null" },
		{ "!!str 17", JSON_STRING, "\"17\"" },
		{ "!!str true", JSON_STRING, "\"true\"" },
		{ "!<tag:yaml.org,2002:int> '5'", JSON_INTEGER, "5" },
		{ "!!seq [1]", JSON_ARRAY, "[1]" },
		{ "!!map {a: 1}", JSON_OBJECT, "{\"a\":1}" },
	};
	struct doc d;
	json_t *v;
	char *text;
	size_t i;

	(void)state;
	check_bad(true, bad, nitems(bad));
	for (i = 0; i < nitems(ok); i++) {
		v = yaml_value(&d, ok[i].in);
		text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		if (json_typeof(v) != ok[i].type ||
		    strcmp(text, ok[i].text) != 0)
			fail_msg("%s gave %s, wanted %s", ok[i].in, text,
			    ok[i].text);
		free(text);
		doc_release(&d);
	}
	/* A quoted "<<" is an ordinary key. */
	v = yaml_value(&d, "{\"<<\": 1}");
	assert_int_equal(json_integer_value(json_object_get(v, "<<")), 1);
	doc_release(&d);
}

/* A leading UTF-8 byte order mark is ignored, in JSON as in YAML. */
static void
test_bom(void **state)
{
	static const char json[] = "\xef\xbb\xbf{\"a\": 1}";
	static const char yaml[] = "\xef\xbb\xbf" "a: 1\n";
	struct doc_error e;
	struct doc d;

	(void)state;
	assert_int_equal(parse(false, json, sizeof json - 1, &d, &e), 0);
	assert_int_equal(json_integer_value(json_object_get(d.root, "a")), 1);
	doc_release(&d);
	assert_int_equal(parse(true, yaml, sizeof yaml - 1, &d, &e), 0);
	assert_int_equal(json_integer_value(json_object_get(d.root, "a")), 1);
	doc_release(&d);
	/* Only at the start: inside, it is no JSON. */
	assert_int_equal(parse(false, "{\"a\": \xef\xbb\xbf" "1}", 12, &d,
	    &e), -1);
}

static void
test_yaml_structure(void **state)
{
	static const char text[] =
	    "# a comment\n"
	    "name: calops\n"
	    "list: [1, two, {k: v}]\n"
	    "nested:\n"
	    "  - a: 1\n"
	    "    b: [x]\n"
	    "  - plain text\n"
	    "base: &base {x: 1, y: 2}\n"
	    "use: *base\n"
	    "'quoted key': \"\\u00e9\\t\"\n"
	    "\"1\": one\n";
	struct doc d;
	struct doc_error e;
	json_t *r;

	(void)state;
	assert_int_equal(parse(true, text, strlen(text), &d, &e), 0);
	assert_int_equal(d.kind, DOC_YAML);
	r = d.root;
	assert_string_equal(json_string_value(json_object_get(r, "name")),
	    "calops");
	assert_int_equal(json_array_size(json_object_get(r, "list")), 3);
	assert_string_equal(
	    json_string_value(json_object_get(
		json_array_get(json_object_get(r, "list"), 2), "k")),
	    "v");
	assert_int_equal(
	    json_integer_value(json_object_get(
		json_array_get(json_object_get(r, "nested"), 0), "a")),
	    1);
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(r, "nested"), 1)),
	    "plain text");
	assert_true(json_equal(json_object_get(r, "base"),
	    json_object_get(r, "use")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r,
	    "use"), "y")), 2);
	assert_string_equal(json_string_value(json_object_get(r,
	    "quoted key")), "\xc3\xa9\t");
	/* Keys are strings whatever they look like. */
	assert_string_equal(json_string_value(json_object_get(r, "1")), "one");
	doc_release(&d);
}

static void
test_yaml_positions(void **state)
{
	static const char text[] =
	    "a:\n"			/* 1 */
	    "  b: [1, 2]\n"		/* 2 */
	    "  c: x\n"			/* 3 */
	    "d:\n"			/* 4 */
	    "  - k: v\n"		/* 5 */
	    "x/y~z: 1\n"		/* 6 */
	    "anchor: &n 5\n"		/* 7 */
	    "alias: *n\n";		/* 8 */
	static const struct {
		const char	*ptr, *where;
	} cases[] = {
		{ "", "1:1" },
		{ "/a", "2:3" },
		{ "/a/b", "2:6" },
		{ "/a/b/0", "2:7" },
		{ "/a/b/1", "2:10" },
		{ "/a/c", "3:6" },
		{ "/d", "5:3" },
		{ "/d/0", "5:5" },
		{ "/d/0/k", "5:8" },
		{ "/x~1y~0z", "6:8" },
		{ "/anchor", "7:9" },
		{ "/alias", "8:8" },
		{ "/nowhere", "/nowhere" },	/* unknown: the pointer */
		{ "/a/b/2", "/a/b/2" },
	};
	struct doc d;
	struct doc_error e;
	char where[64];
	size_t i;

	(void)state;
	assert_int_equal(parse(true, text, strlen(text), &d, &e), 0);
	for (i = 0; i < nitems(cases); i++)
		if (strcmp(doc_where(&d, cases[i].ptr, where, sizeof where),
		    cases[i].where) != 0)
			fail_msg("'%s' is at %s, wanted %s", cases[i].ptr, where,
			    cases[i].where);
	doc_release(&d);

	/* A scalar root has a position too; NULL documents give pointers. */
	assert_int_equal(parse(true, "\n\n   hello\n", 11, &d, &e), 0);
	assert_string_equal(doc_where(&d, "", where, sizeof where), "3:4");
	doc_release(&d);
	assert_string_equal(doc_where(NULL, "/p", where, sizeof where), "/p");
	/* A short buffer is cut, not overrun. */
	assert_int_equal(parse(true, text, strlen(text), &d, &e), 0);
	assert_string_equal(doc_where(&d, "/a/b/1", where, 3), "2:");
	doc_release(&d);
}

static void
test_pointers(void **state)
{
	char *p;

	(void)state;
	p = doc_ptr_key("", "a");
	assert_string_equal(p, "/a");
	free(p);
	p = doc_ptr_key("/", "a");
	assert_string_equal(p, "/a");
	free(p);
	p = doc_ptr_key("/x", "a/b~c");
	assert_string_equal(p, "/x/a~1b~0c");
	free(p);
	p = doc_ptr_key("/x", "");
	assert_string_equal(p, "/x/");
	free(p);
	p = doc_ptr_index("", 0);
	assert_string_equal(p, "/0");
	free(p);
	p = doc_ptr_index("/", 3);
	assert_string_equal(p, "/3");
	free(p);
	p = doc_ptr_index("/a/b", 12);
	assert_string_equal(p, "/a/b/12");
	free(p);
}

static void
test_json_bad(void **state)
{
	static const struct bad cases[] = {
		/* truncated */
		BAD("{\"a\": [1, 2", "1:11", NULL),
		BAD("{\"a\":", "1:5", NULL),
		BAD("[", "1:1", NULL),
		BAD("{\"a\": \"unterminated", NULL, NULL),
		BAD("{\"a\":\n  [1,\n   2,\n   x]}", "4:4", "invalid token"),
		BAD("{\"a\" 1}", "1:6", NULL),
		BAD("{\"a\":1} x", "1:9", "end of file expected"),
		/* roots that are not an object or array */
		BAD("\"str\"", NULL, NULL),
		BAD("5", "1:1", NULL),
		BAD("null", NULL, NULL),
		/* empty */
		BAD("", "1:1", NULL),
		BAD("   \n", NULL, NULL),
		/* duplicate keys, also nested */
		BAD("{\"a\":1,\"a\":2}", "1:10", "duplicate"),
		BAD("{\"o\":{\"k\":1,\"k\":1}}", NULL, "duplicate"),
		/* invalid UTF-8 in a key, in a value, overlong, surrogate */
		BAD("{\"\xff\":1}", "1:2", NULL),
		BAD("{\"a\":\"\xc3\"}", NULL, NULL),
		BAD("{\"a\":\"\xc0\xaf\"}", NULL, NULL),
		BAD("{\"a\":\"\xed\xa0\x80\"}", NULL, NULL),
		BAD("{\"a\":\"\\ud800\"}", NULL, NULL),
		/* numbers that do not fit */
		BAD("[99999999999999999999]", "1:21", "too big integer"),
		BAD("[-99999999999999999999]", NULL, "too big"),
		BAD("[1e999]", "1:6", "overflow"),
		BAD("[-1e999]", NULL, "overflow"),
		/* NUL bytes, raw and escaped */
		BAD("{\"a\":\0}", NULL, NULL),
		BAD("{\"a\":\"x\0\"}", NULL, NULL),
		BAD("{\"a\":\"\\u0000\"}", NULL, NULL),
		BAD("\0", NULL, NULL),
		/* not JSON */
		BAD("{'a': 1}", NULL, NULL),
		BAD("{\"a\": 1,}", NULL, NULL),
		BAD("[NaN]", NULL, NULL),
		BAD("a: 1\n", NULL, NULL),
	};

	(void)state;
	check_bad(false, cases, nitems(cases));
}

static void
test_json_deep(void **state)
{
	const size_t n = 100000;
	char *s = xmalloc(n);
	struct doc d;
	struct doc_error e;
	double t0;

	(void)state;
	memset(s, '[', n);
	t0 = now();
	assert_int_equal(parse(false, s, n, &d, &e), -1);
	assert_true(now() - t0 < 1.0);
	assert_true(is_line_col(e.where));
	assert_non_null(strstr(e.msg, "depth"));
	/* The same depth, balanced, is refused just the same. */
	s = xrealloc(s, 2 * n);
	memset(s + n, ']', n);
	assert_int_equal(parse(false, s, 2 * n, &d, &e), -1);
	free(s);
}

static void
test_too_big(void **state)
{
	size_t n = (size_t)DOC_MAX_BYTES + 1;
	char *s = xmalloc(n);
	struct doc d;
	struct doc_error e;

	(void)state;
	memset(s, ' ', n);
	s[0] = '[';
	s[n - 1] = ']';
	assert_int_equal(parse(false, s, n, &d, &e), -1);
	assert_non_null(strstr(e.msg, "larger than"));
	assert_null(d.root);
	assert_int_equal(parse(true, s, n, &d, &e), -1);
	assert_non_null(strstr(e.msg, "larger than"));
	assert_null(d.root);
	assert_null(d.pos);
	/* At the limit it is read. */
	assert_int_equal(parse(false, s, n - 1, &d, &e), -1);	/* no ']' */
	s[n - 2] = ']';
	assert_int_equal(parse(false, s, n - 1, &d, &e), 0);
	doc_release(&d);
	free(s);
}

static void
test_yaml_empty(void **state)
{
	static const char *const empties[] = { "", "# only a comment\n", "---\n",
	    "--- ~\n", "\n\n\n", "---\n...\n" };
	struct doc d;
	struct doc_error e;
	size_t i;

	(void)state;
	for (i = 0; i < nitems(empties); i++) {
		if (parse(true, empties[i], strlen(empties[i]), &d, &e) != 0)
			fail_msg("'%s': %s", empties[i], e.msg);
		assert_true(json_is_null(d.root));
		doc_release(&d);
	}
	/* An empty JSON file is an error (checked in test_json_bad). */
}

static void
test_yaml_roots(void **state)
{
	struct doc d;
	struct doc_error e;

	(void)state;
	/* Any root type reads; the gate that wants an object says so. */
	assert_int_equal(parse(true, "5\n", 2, &d, &e), 0);
	assert_int_equal(json_integer_value(d.root), 5);
	doc_release(&d);
	assert_int_equal(parse(true, "- a\n- b\n", 8, &d, &e), 0);
	assert_int_equal(json_array_size(d.root), 2);
	doc_release(&d);
	assert_int_equal(parse(true, "just text\n", 10, &d, &e), 0);
	assert_string_equal(json_string_value(d.root), "just text");
	doc_release(&d);
	/* JSON roots must be objects or arrays (test_json_bad). */
	assert_int_equal(parse(false, "[]", 2, &d, &e), 0);
	assert_true(json_is_array(d.root));
	doc_release(&d);
}

static void
test_yaml_bad(void **state)
{
	static const struct bad cases[] = {
		/* truncated */
		BAD("a: [1, 2", "2:1", NULL),
		BAD("a: \"abc", "1:8", NULL),
		BAD("a: {b: 1", "2:1", NULL),
		BAD("a:\n  - 1\n  - [", NULL, NULL),
		BAD("- a\n b: c", "2:3", NULL),
		BAD("a: b: c", "1:5", NULL),
		BAD("[a, b]]", NULL, NULL),
		BAD("a:\n\t- 1", "2:1", NULL),
		BAD("*", "1:2", NULL),
		BAD("%YAML 3.0\n--- 1", "1:1", NULL),
		/* invalid UTF-8: key, value, comment, later line, overlong,
		 * surrogate, beyond U+10FFFF, a lone continuation byte */
		BAD("\xff: 1", "1:1", "UTF-8"),
		BAD("a: \xc3\x28", "1:5", "UTF-8"),
		BAD("a: 1 # \xe2\x82\n", "1:9", "UTF-8"),
		BAD("a: 1\nbb: 2 # ok\n# \xe2\x82\n", "3:4", "UTF-8"),
		BAD("a: \xc0\xaf", "1:4", NULL),
		BAD("a: \xed\xa0\x80", "1:4", NULL),
		BAD("a: \xf4\x90\x80\x80", "1:4", NULL),
		BAD("a: \x80", "1:4", NULL),
		BAD("a: \xc3\xa9\xc3", "1:5", NULL),
		BAD("a: \"\\ud800\"", NULL, NULL),
		/* duplicate keys, block and flow, at the second key */
		BAD("a: 1\na: 2", "2:1", "duplicate key 'a'"),
		BAD("{a: 1, a: 2}", "1:8", "duplicate"),
		BAD("a: 1\n\"a\": [1, 2]\n", "2:1", "duplicate"),
		BAD("o:\n  k: 1\n  x: 2\n  k: {z: 1}\n", "4:3", "duplicate"),
		/* numbers that do not fit */
		BAD("a: 99999999999999999999", "1:4", "out of range"),
		BAD("a: -99999999999999999999", "1:4", "out of range"),
		BAD("a: 9223372036854775808", "1:4", "out of range"),
		BAD("a: 0x10000000000000000", "1:4", "out of range"),
		BAD("a: 0o7777777777777777777777", "1:4", "out of range"),
		BAD("a: 1e999", "1:4", "out of range"),
		BAD("a: -1e999", "1:4", "out of range"),
		BAD("[1, .inf]", "1:5", "non-finite"),
		BAD("a: -.Inf", NULL, "non-finite"),
		BAD("a: +.INF", NULL, "non-finite"),
		BAD("a: .NaN", NULL, "non-finite"),
		BAD("a: .NAN", NULL, "non-finite"),
		/* aliases: recursive, undefined, as a key */
		BAD("a: &a [*a]", "1:8", "alias"),
		BAD("a: &a {b: *a}", NULL, "alias"),
		BAD("a: *nope", "1:4", "alias"),
		BAD("a: &k 1\n*k : 2", "2:1", "alias"),
		BAD("{*x : 1}", NULL, NULL),
		/* keys that are not scalars */
		BAD("? [a]\n: 1", "1:3", "mapping keys must be scalars"),
		BAD("{[a]: 1}", "1:2", "scalars"),
		BAD("{a: 1}: 2", "1:1", "scalars"),
		BAD("? {k: v}\n: 1", NULL, "scalars"),
		/* more than one document */
		BAD("a: 1\n---\nb: 2", "2:1", "more than one document"),
		BAD("--- 1\n--- 2", "2:1", "more than one document"),
		BAD("---\n...\n---\n", "3:1", "more than one document"),
		BAD("a: 1\n...\nb: 2\n", NULL, NULL),
		/* NUL bytes, raw and escaped, in keys and values */
		BAD("a: 1\n\0b: 2", "2:1", NULL),
		BAD("a: x\0y", "1:5", NULL),
		BAD("\0", "1:1", NULL),
		BAD("a: \"x\\0y\"", "1:4", "NUL"),
		BAD("\"\\0\": 1", "1:1", "NUL"),
		BAD("\"k\\0\": 1", "1:1", "NUL"),
		/* other control characters */
		BAD("a: \x1b[2J", "1:4", NULL),
	};

	(void)state;
	check_bad(true, cases, nitems(cases));
}

/* Nesting one deeper than allowed, flow and block style. */
static void
test_yaml_deep(void **state)
{
	struct doc d;
	struct doc_error e;
	char *s, *p;
	size_t i, n;
	double t0;

	(void)state;
	/* Exactly DOC_MAX_DEPTH levels read. */
	s = xmalloc(2 * DOC_MAX_DEPTH + 1);
	memset(s, '[', DOC_MAX_DEPTH);
	memset(s + DOC_MAX_DEPTH, ']', DOC_MAX_DEPTH);
	assert_int_equal(parse(true, s, 2 * DOC_MAX_DEPTH, &d, &e), 0);
	doc_release(&d);
	/* One more does not. */
	s = xrealloc(s, 2 * DOC_MAX_DEPTH + 3);
	memset(s, '[', DOC_MAX_DEPTH + 1);
	memset(s + DOC_MAX_DEPTH + 1, ']', DOC_MAX_DEPTH + 1);
	assert_int_equal(parse(true, s, 2 * DOC_MAX_DEPTH + 2, &d, &e), -1);
	assert_non_null(strstr(e.msg, "nesting"));
	assert_string_equal(e.where, "1:65");
	free(s);

	/* Block style: "- " once more on each line. */
	n = DOC_MAX_DEPTH + 1;
	s = p = xmalloc(n * (2 * n + 2) + 1);
	for (i = 0; i < n; i++) {
		memset(p, ' ', 2 * i);
		p += 2 * i;
		memcpy(p, "-\n", 2);
		p += 2;
	}
	assert_int_equal(parse(true, s, (size_t)(p - s), &d, &e), -1);
	assert_non_null(strstr(e.msg, "nesting"));
	assert_true(is_line_col(e.where));
	free(s);

	/* 100 000 '[' and 100 000 "- " fail at once. */
	n = 100000;
	s = xmalloc(2 * n);
	memset(s, '[', n);
	t0 = now();
	assert_int_equal(parse(true, s, n, &d, &e), -1);
	assert_true(is_line_col(e.where));
	for (i = 0; i < n; i++)
		memcpy(s + 2 * i, "- ", 2);
	assert_int_equal(parse(true, s, 2 * n, &d, &e), -1);
	assert_true(is_line_col(e.where));
	memset(s, '{', n);
	assert_int_equal(parse(true, s, n, &d, &e), -1);
	assert_true(now() - t0 < 1.0);
	free(s);
}

static void
test_yaml_alias_bomb(void **state)
{
	static const char laughs[] =
	    "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
	    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
	    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
	    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
	    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
	    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
	    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
	    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
	struct buf wide = BUF_INIT;
	struct doc d;
	struct doc_error e;
	double t0;
	size_t i;

	(void)state;
	t0 = now();
	assert_int_equal(parse(true, laughs, strlen(laughs), &d, &e), -1);
	assert_true(now() - t0 < 1.0);
	assert_non_null(strstr(e.msg, "alias"));
	assert_true(is_line_col(e.where));
	assert_null(d.root);

	/* Many aliases of one big node: the budget counts nodes, not
	 * aliases. */
	buf_adds(&wide, "big: &b [");
	for (i = 0; i < 20000; i++)
		buf_adds(&wide, i ? ",1" : "1");
	buf_adds(&wide, "]\nuse: [");
	for (i = 0; i < 10; i++)
		buf_adds(&wide, i ? ",*b" : "*b");
	buf_adds(&wide, "]\n");
	t0 = now();
	assert_int_equal(parse(true, wide.data, wide.len, &d, &e), -1);
	assert_true(now() - t0 < 1.0);
	assert_non_null(strstr(e.msg, "alias"));
	buf_release(&wide);

	/* Ordinary use of anchors stays well inside the budget. */
	assert_int_equal(parse(true, "x: &x {a: 1}\ny: *x\nz: [*x, *x]\n", 31,
	    &d, &e), 0);
	assert_int_equal(json_array_size(json_object_get(d.root, "z")), 2);
	doc_release(&d);
	/* An anchored key may be aliased as a value (a string). */
	assert_int_equal(parse(true, "&k key: 1\nb: *k\n", 16, &d, &e), 0);
	assert_string_equal(json_string_value(json_object_get(d.root, "b")),
	    "key");
	doc_release(&d);
}

/* jansson allocates through xmalloc() (jsoninit.c, as src/main.c does), so
 * that running out of memory inside it is fatal(), not a NULL an unchecked
 * json_object_set_new() drops. */
static void
test_json_alloc(void **state)
{
	json_malloc_t m;
	json_free_t f;
	json_t *o;

	(void)state;
	json_get_alloc_funcs(&m, &f);
	assert_ptr_equal(m, xmalloc);
	assert_ptr_equal(f, free);
	o = json_object();
	assert_int_equal(json_object_set_new(o, "k", json_string("v")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "k")), "v");
	json_decref(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_types),
		cmocka_unit_test(test_yaml_core_schema),
		cmocka_unit_test(test_yaml_tags),
		cmocka_unit_test(test_bom),
		cmocka_unit_test(test_yaml_structure),
		cmocka_unit_test(test_yaml_positions),
		cmocka_unit_test(test_pointers),
		cmocka_unit_test(test_json_bad),
		cmocka_unit_test(test_json_deep),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_yaml_empty),
		cmocka_unit_test(test_yaml_roots),
		cmocka_unit_test(test_yaml_bad),
		cmocka_unit_test(test_yaml_deep),
		cmocka_unit_test(test_yaml_alias_bomb),
		cmocka_unit_test(test_json_alloc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

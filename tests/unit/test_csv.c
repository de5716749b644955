/*
 * test_csv.c: the RFC 4180 reader (csv.c): quoting, record ends, line
 * numbers across quoted line breaks, and malformed tables.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>

#include "base/csv.h"

/* One table as expected: rows of fields separated by '|', each row with
 * the line it starts on. */
struct want_row {
	size_t		 line;
	const char	*fields[6];
};

static void
check_table(const char *text, size_t len, const struct want_row *w,
    size_t nrows)
{
	struct csv c;
	char err[128];
	size_t errline = 0, i, j, n;

	if (csv_parse(&c, text, len, err, sizeof err, &errline) != 0)
		fail_msg("'%s': %s at line %zu", text, err, errline);
	if (c.nrows != nrows)
		fail_msg("'%s': %zu rows, wanted %zu", text, c.nrows, nrows);
	for (i = 0; i < nrows; i++) {
		for (n = 0; n < nitems(w[i].fields) && w[i].fields[n] != NULL;
		    n++)
			;
		if (c.rows[i].nfields != n)
			fail_msg("'%s' row %zu: %zu fields, wanted %zu", text, i,
			    c.rows[i].nfields, n);
		for (j = 0; j < n; j++) {
			const char *got = c.rows[i].fields[j];

			if (strcmp(got, w[i].fields[j]) != 0)
				fail_msg("'%s' row %zu field %zu: '%s', wanted "
				    "'%s'", text, i, j, got, w[i].fields[j]);
		}
		if (c.rows[i].line != w[i].line)
			fail_msg("'%s' row %zu: line %zu, wanted %zu", text, i,
			    c.rows[i].line, w[i].line);
	}
	csv_release(&c);
	assert_null(c.rows);
	assert_int_equal(c.nrows, 0);
}

#define TABLE(s, w) check_table(s, sizeof(s) - 1, w, nitems(w))

static void
check_error(const char *text, size_t len, size_t line, const char *what)
{
	struct csv c;
	char err[128] = "";
	size_t errline = 0;

	if (csv_parse(&c, text, len, err, sizeof err, &errline) != -1)
		fail_msg("'%s' parsed", text);
	assert_null(c.rows);
	assert_int_equal(c.nrows, 0);
	if (errline != line)
		fail_msg("'%s': error at line %zu, wanted %zu (%s)", text,
		    errline, line, err);
	if (strstr(err, what) == NULL)
		fail_msg("'%s': '%s' lacks '%s'", text, err, what);
}

#define ERROR(s, l, w) check_error(s, sizeof(s) - 1, l, w)

static void
test_plain(void **state)
{
	static const struct want_row two[] = {
		{ 1, { "a", "b", "c" } },
		{ 2, { "1", "2", "3" } },
	};
	static const struct want_row spaces[] = {
		{ 1, { " a ", "b c", "" } },
	};

	(void)state;
	TABLE("a,b,c\n1,2,3\n", two);
	TABLE("a,b,c\n1,2,3", two);		/* no final line end */
	TABLE("a,b,c\r\n1,2,3\r\n", two);	/* CRLF */
	TABLE("a,b,c\r\n1,2,3", two);
	TABLE("a,b,c\n1,2,3\r\n", two);		/* mixed */
	TABLE("a,b,c\r\n1,2,3\r", two);		/* a CR at the very end */
	TABLE(" a ,b c,\n", spaces);		/* blanks are data */
}

static void
test_quoted(void **state)
{
	static const struct want_row q[] = {
		{ 1, { "a,b", "c\"d", "", "\"", "x" } },
	};
	static const struct want_row ends[] = {
		{ 1, { "a", "b" } },
		{ 2, { "c" } },
	};

	(void)state;
	TABLE("\"a,b\",\"c\"\"d\",\"\",\"\"\"\",x\n", q);
	TABLE("\"a,b\",\"c\"\"d\",\"\",\"\"\"\",x", q);
	TABLE("\"a,b\",\"c\"\"d\",\"\",\"\"\"\",\"x\"\r\n", q);
	/* A quoted last field before CRLF, LF, a final CR and the end. */
	TABLE("\"a\",\"b\"\r\n\"c\"\r\n", ends);
	TABLE("\"a\",\"b\"\n\"c\"\n", ends);
	TABLE("\"a\",\"b\"\n\"c\"\r", ends);
	TABLE("\"a\",\"b\"\n\"c\"", ends);
}

static void
test_embedded_newlines(void **state)
{
	static const struct want_row w[] = {
		{ 1, { "h1", "h2" } },
		{ 2, { "line1\nline2", "x" } },
		{ 4, { "next", "row" } },
		{ 5, { "a\r\nb\n\nc", "" } },
		{ 9, { "last" } },
	};

	(void)state;
	TABLE("h1,h2\n\"line1\nline2\",x\nnext,row\n"
	    "\"a\r\nb\n\nc\",\nlast\n", w);
}

static void
test_trailing_comma_and_empties(void **state)
{
	static const struct want_row trail[] = {
		{ 1, { "a", "b", "" } },
		{ 2, { "", "" } },
	};
	static const struct want_row one[] = {
		{ 1, { "", "" } },
	};
	static const struct want_row blank[] = {
		{ 1, { "a" } },
		{ 2, { "" } },	/* a blank line: one empty field */
		{ 3, { "b" } },
	};
	static const struct want_row lone_cr[] = {
		{ 1, { "a\rb", "c" } },	/* a CR not before LF is data */
	};
	struct csv c;
	char err[64];
	size_t line = 0;

	(void)state;
	TABLE("a,b,\n,\n", trail);
	TABLE("a,b,\r\n,", trail);
	TABLE(",", one);
	TABLE(",\r\n", one);
	TABLE("a\n\nb\n", blank);
	TABLE("a\r\n\r\nb", blank);
	TABLE("a\rb,c\n", lone_cr);

	/* An empty file has no rows; a lone line end one empty field. */
	assert_int_equal(csv_parse(&c, "", 0, err, sizeof err, &line), 0);
	assert_int_equal(c.nrows, 0);
	csv_release(&c);
	assert_int_equal(csv_parse(&c, "\n", 1, err, sizeof err, &line), 0);
	assert_int_equal(c.nrows, 1);
	assert_int_equal(c.rows[0].nfields, 1);
	assert_string_equal(c.rows[0].fields[0], "");
	csv_release(&c);
}

static void
test_errors(void **state)
{
	(void)state;
	/* unterminated quotes: at the line the field starts on */
	ERROR("a,\"bc\nd\n", 1, "unterminated");
	ERROR("x\ny,\"z", 2, "unterminated");
	ERROR("\"", 1, "unterminated");
	ERROR("\"a\nb\nc\",x\n\"unterminated", 4, "unterminated");
	ERROR("\"\"\"", 1, "unterminated");
	/* text after a closing quote: at the line of the quote */
	ERROR("\"a\"b,c\n", 1, "after a closing quote");
	ERROR("x\n\"a\" ,b", 2, "after a closing quote");
	ERROR("\"a\"\rb", 1, "after a closing quote");
	ERROR("\"a\nb\"x", 2, "after a closing quote");
	ERROR("\"a\"\"", 1, "unterminated");
	/* bare quotes inside unquoted fields */
	ERROR("a\"b,c", 1, "quote inside an unquoted field");
	ERROR("ok\nab\"", 2, "quote inside");
	ERROR(" \"a\"", 1, "quote inside");
	/* NUL bytes would cut a field short unseen */
	ERROR("a\0b,c\n", 1, "NUL");
	ERROR("a\n\"x\0\"\n", 2, "NUL");
}

static void
test_long_field(void **state)
{
	const size_t max = 1u << 20;	/* CSV_MAX_FIELD */
	struct csv c;
	char err[128], *s;
	size_t line = 0;

	(void)state;
	s = xmalloc(max + 16);
	memcpy(s, "h\n", 2);
	memset(s + 2, 'x', max);
	assert_int_equal(csv_parse(&c, s, max + 2, err, sizeof err, &line), 0);
	assert_int_equal(strlen(c.rows[1].fields[0]), max);
	csv_release(&c);
	s[max + 2] = 'y';
	assert_int_equal(csv_parse(&c, s, max + 3, err, sizeof err, &line), -1);
	assert_non_null(strstr(err, "longer than"));
	assert_int_equal(line, 2);
	/* Quoted, too. */
	s[2] = '"';
	s[max + 2] = '"';
	assert_int_equal(csv_parse(&c, s, max + 3, err, sizeof err, &line), 0);
	csv_release(&c);
	s[max + 2] = 'x';
	s[max + 3] = '"';	/* exactly the maximum */
	assert_int_equal(csv_parse(&c, s, max + 4, err, sizeof err, &line), 0);
	csv_release(&c);
	s[max + 3] = 'x';
	s[max + 4] = '"';
	assert_int_equal(csv_parse(&c, s, max + 5, err, sizeof err, &line), -1);
	assert_non_null(strstr(err, "longer than"));
	free(s);
}

/* Many rows of many fields: counts and line numbers hold. */
static void
test_many_rows(void **state)
{
	const size_t n = 20000;
	struct csv c;
	char err[64], *s;
	size_t line = 0, used = 0, i, cap = n * 40;

	(void)state;
	s = xmalloc(cap);
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(s + used, cap - used,
		    i % 2 ? "%zu,\"q\nq\",,x\r\n" : "%zu,b,c,d\n", i);
	assert_int_equal(csv_parse(&c, s, used, err, sizeof err, &line), 0);
	assert_int_equal(c.nrows, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(c.rows[i].nfields, 4);
		assert_int_equal(strtoul(c.rows[i].fields[0], NULL, 10), i);
		assert_int_equal(c.rows[i].line, 1 + i + i / 2);
	}
	csv_release(&c);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_quoted),
		cmocka_unit_test(test_embedded_newlines),
		cmocka_unit_test(test_trailing_comma_and_empties),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_field),
		cmocka_unit_test(test_many_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

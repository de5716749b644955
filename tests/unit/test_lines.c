/*
 * test_lines.c: bounded line reading (lines.c): line ends, the cap, and
 * lines that span reads, checked against a plain model of the contract for
 * every small buffer size and cap.
 */
#include "calops.h"

#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/lines.h"

/* A temporary file holding len bytes; the path is owned by the caller. */
static char *
tmpfile_with(const void *data, size_t len)
{
	char *path = xstrdup("/tmp/calops-test-lines.XXXXXX");
	const char *p = data;
	ssize_t n;
	int fd;

	assert_int_not_equal(fd = mkstemp(path), -1);
	while (len > 0) {
		assert_true((n = write(fd, p, len)) > 0);
		p += n;
		len -= (size_t)n;
	}
	assert_int_equal(close(fd), 0);
	return path;
}

static void
drop(char *path)
{
	unlink(path);
	free(path);
}

/* One expected line. */
struct want {
	const char	*text;
	size_t		 len;
	bool		 cut;
};

/* Read the file at path with a read size of `size` (0: the default) and
 * the cap, and compare with the n lines wanted. */
static void
expect(const char *path, size_t size, size_t cap, const struct want *w,
    size_t n)
{
	struct lines l;
	const char *line;
	size_t len, i;
	bool cut;
	int rc;

	assert_int_equal(lines_open(&l, path, cap), 0);
	if (size != 0)
		l.size = size;	/* smaller reads than the buffer holds */
	for (i = 0; i < n; i++) {
		rc = lines_next(&l, &line, &len, &cut);
		if (rc != 1)
			fail_msg("line %zu: rc %d (size %zu cap %zu)", i + 1, rc,
			    size, cap);
		if (len != w[i].len || memcmp(line, w[i].text, len) != 0 ||
		    line[len] != '\0' || cut != w[i].cut)
			fail_msg("line %zu: got %zu bytes '%.*s'%s, wanted %zu "
			    "'%.*s'%s (size %zu cap %zu)", i + 1, len,
			    (int)(len < 40 ? len : 40), line, cut ? " cut" : "",
			    w[i].len, (int)(w[i].len < 40 ? w[i].len : 40),
			    w[i].text, w[i].cut ? " cut" : "", size, cap);
		assert_int_equal(l.lineno, i + 1);
	}
	assert_int_equal(lines_next(&l, &line, &len, &cut), 0);
	assert_int_equal(lines_next(&l, &line, &len, &cut), 0);
	lines_close(&l);
	assert_int_equal(l.fd, -1);
}

#define W(s)	{ s, sizeof(s) - 1, false }
#define CHECK(s, w) check_text(s, sizeof(s) - 1, w, nitems(w))

static void
check_text(const char *data, size_t len, const struct want *w, size_t n)
{
	char *path = tmpfile_with(data, len);

	expect(path, 0, 0, w, n);
	drop(path);
}

static void
test_basic(void **state)
{
	static const struct want two[] = { W("a"), W("bc") };
	static const struct want empties[] = { W(""), W(""), W("x"), W("") };
	static const struct want one_empty[] = { W("") };
	static const struct want inner_cr[] = { W("a\rb"), W("\r\r"), W("c") };
	static const struct want nul[] = { { "a\0b", 3, false }, W("c") };

	(void)state;
	CHECK("a\nbc\n", two);
	CHECK("a\nbc", two);		/* no final newline */
	CHECK("a\r\nbc\r\n", two);	/* CRLF */
	CHECK("a\r\nbc", two);
	CHECK("a\nbc\r", two);		/* a CR at the very end */
	CHECK("\n\nx\n\n", empties);	/* empty lines */
	CHECK("\r\n\nx\n\r\n", empties);
	check_text("", 0, NULL, 0);		/* empty file */
	CHECK("\n", one_empty);
	/* Only the CR right before the LF goes. */
	CHECK("a\rb\n\r\r\r\nc", inner_cr);
	CHECK("a\0b\nc\n", nul);
}

static void
test_open_errors(void **state)
{
	struct lines l;

	(void)state;
	errno = 0;
	assert_int_equal(lines_open(&l, "/nonexistent/calops/lines", 0), -1);
	assert_int_equal(errno, ENOENT);
	/* A directory opens but cannot be read. */
	{
		const char *line;
		size_t len;
		bool cut;

		assert_int_equal(lines_open(&l, "/tmp", 0), 0);
		assert_int_equal(lines_next(&l, &line, &len, &cut), -1);
		assert_int_equal(errno, EISDIR);
		lines_close(&l);
	}
}

/* A 10 MB line is cut at the cap, and the lines after it are still read. */
static void
test_huge_line(void **state)
{
	const size_t big = 10u << 20;
	size_t len;
	char *data, *path, *p;
	struct want w[4];

	(void)state;
	data = xmalloc(big + 64);
	p = data;
	memcpy(p, "short\n", 6);
	p += 6;
	memset(p, 'x', big);
	p[0] = 'A';
	p[LINES_DEFAULT_CAP - 1] = 'Z';
	p += big;
	memcpy(p, "\r\nafter\nlast", 12);
	p += 12;
	len = (size_t)(p - data);
	path = tmpfile_with(data, len);

	w[0] = (struct want)W("short");
	w[1].text = data + 6;
	w[1].len = LINES_DEFAULT_CAP;
	w[1].cut = true;
	w[2] = (struct want)W("after");
	w[3] = (struct want)W("last");
	expect(path, 0, 0, w, 4);
	/* The same with a small cap and small reads. */
	w[1].len = 1000;
	expect(path, 4096, 1000, w, 4);
	/* A cap bigger than the line: all of it. */
	w[1].len = big;
	w[1].cut = false;
	expect(path, 0, big, w, 4);
	w[1].len = big - 1;
	w[1].cut = true;
	expect(path, 0, big - 1, w, 4);
	drop(path);
	free(data);
}

/* 200 000 short lines, each with its number. */
static void
test_many_lines(void **state)
{
	const size_t n = 200000;
	struct lines l;
	const char *line;
	char *data, *path, want[32];
	size_t len, i, used = 0;
	bool cut;

	(void)state;
	data = xmalloc(n * 8);
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(data + used, n * 8 - used, "%zu\n", i);
	path = tmpfile_with(data, used);
	assert_int_equal(lines_open(&l, path, 16), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(lines_next(&l, &line, &len, &cut), 1);
		snprintf(want, sizeof want, "%zu", i);
		assert_string_equal(line, want);
		assert_false(cut);
	}
	assert_int_equal(lines_next(&l, &line, &len, &cut), 0);
	assert_int_equal(l.lineno, n);
	lines_close(&l);
	drop(path);
	free(data);
}

/*
 * The contract as a model: lines end at LF, one CR before the end is
 * dropped, a last line may lack its LF, and a line longer than the cap is
 * its first `cap` bytes, marked cut.
 */
static size_t
model(const char *d, size_t len, size_t cap, struct want *w)
{
	size_t i = 0, n = 0, end, l;

	while (i < len) {
		const char *nl = memchr(d + i, '\n', len - i);

		end = nl != NULL ? (size_t)(nl - d) : len;
		l = end - i;
		if (l > 0 && d[i + l - 1] == '\r')
			l--;
		w[n].text = d + i;
		w[n].cut = l > cap;
		w[n].len = l > cap ? cap : l;
		n++;
		i = end + 1;
	}
	return n;
}

/*
 * Lines across read boundaries: every read size from 1 to 19 and cap from
 * 1 to 12 against the model, over texts made to put LFs, CRs and long
 * lines at and around every boundary.
 */
static void
test_boundaries(void **state)
{
	static const char alphabet[] = "ab\r\n";
	struct want w[128];
	char text[96], *path;
	unsigned seed = 12345;
	size_t round, len, n, size, cap, i;

	(void)state;
	for (round = 0; round < 150; round++) {
		len = round < 20 ? round : 20 + (seed >> 16) % 70;
		for (i = 0; i < len; i++) {
			seed = seed * 1103515245 + 12345;
			/* mostly letters, so that some lines are long */
			text[i] = (seed >> 16) % 8 < 5 ? 'x' :
			    alphabet[(seed >> 16) % 4];
		}
		n = model(text, len, SIZE_MAX, w);
		assert_true(n <= nitems(w));
		path = tmpfile_with(text, len);
		for (cap = 1; cap <= 12; cap++) {
			n = model(text, len, cap, w);
			for (size = 1; size <= 19; size++)
				expect(path, size, cap, w, n);
		}
		drop(path);
	}
}

/* The cases named: a cut line whose LF (or CR LF) is the first byte of the
 * next read or the last of this one, and a line of exactly the cap. */
static void
test_cut_at_boundary(void **state)
{
	static const struct {
		const char	*text;
		size_t		 size, cap;
		struct want	 w[3];
	} cases[] = {
		{ "abcdefgh\nij\n", 8, 4, { { "abcd", 4, true }, W("ij") } },
		{ "abcdefg\nij\n", 8, 4, { { "abcd", 4, true }, W("ij") } },
		{ "abcdefgh\r\nij\n", 8, 4, { { "abcd", 4, true }, W("ij") } },
		{ "abcdefg\r\nij\n", 8, 4, { { "abcd", 4, true }, W("ij") } },
		{ "abcdefghijklmnop\nq", 8, 4,
		    { { "abcd", 4, true }, W("q") } },
		{ "abcdefghijklmnopq\nr", 8, 4,
		    { { "abcd", 4, true }, W("r") } },
		/* exactly the cap: not cut, with or without CR, any boundary */
		{ "abcd\nef\n", 8, 4, { W("abcd"), W("ef") } },
		{ "abcd\r\nef\n", 8, 4, { W("abcd"), W("ef") } },
		{ "abcd\r\nef\n", 4, 4, { W("abcd"), W("ef") } },
		{ "abcd\r\nef\n", 5, 4, { W("abcd"), W("ef") } },
		{ "abcd\r\nef\n", 3, 4, { W("abcd"), W("ef") } },
		{ "xyabcd\r\nef\n", 2, 4, { { "xyab", 4, true }, W("ef") } },
		{ "abcd\r", 2, 4, { W("abcd") } },
		/* one more than the cap, the extra byte a CR not at the end */
		{ "abcd\rx\nef\n", 5, 4, { { "abcd", 4, true }, W("ef") } },
		{ "abcd\r\r\nef\n", 5, 4, { { "abcd", 4, true }, W("ef") } },
	};
	char *path;
	size_t i, n;

	(void)state;
	for (i = 0; i < nitems(cases); i++) {
		path = tmpfile_with(cases[i].text, strlen(cases[i].text));
		for (n = 0; n < 3 && cases[i].w[n].text != NULL; n++)
			;
		expect(path, cases[i].size, cases[i].cap, cases[i].w, n);
		drop(path);
	}
}

/* Where the whole lines end, and whether the last had its LF, at every
 * read size: what the console needs to cut a mirror after a crash. */
static void
test_whole_offsets(void **state)
{
	static const char data[] = "one\ntwo two\n\nthree\nhalf a li";
	static const size_t ends[] = { 4, 12, 13, 19, 19 };
	static const bool lfs[] = { true, true, true, true, false };
	static const size_t sizes[] = { 0, 1, 2, 3, 5, 7 };
	char *path = tmpfile_with(data, sizeof data - 1);
	struct lines l;
	const char *line;
	size_t len, i, k;
	bool cut;

	(void)state;
	for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		assert_int_equal(lines_open(&l, path, 0), 0);
		if (sizes[k] != 0)
			l.size = sizes[k];
		assert_int_equal(l.whole, 0);
		for (i = 0; i < 5; i++) {
			assert_int_equal(lines_next(&l, &line, &len, &cut), 1);
			assert_int_equal(l.whole, ends[i]);
			assert_int_equal(l.lf, lfs[i]);
		}
		assert_string_equal(line, "half a li");
		assert_int_equal(lines_next(&l, &line, &len, &cut), 0);
		assert_int_equal(l.whole, 19);
		lines_close(&l);
	}
	drop(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_huge_line),
		cmocka_unit_test(test_many_lines),
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_cut_at_boundary),
		cmocka_unit_test(test_whole_offsets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_text.c: THE sanitiser (text.c).  Terminal escapes, controls, bidi
 * overrides and bad UTF-8 come out visible and inert; clipping counts
 * terminal columns and never passes the width.  stderr, once guarded, says
 * each message on one line with everything in it visible.
 */
#include "calops.h"

#include <locale.h>
#include <setjmp.h>
#include <unistd.h>
#include <wchar.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/text.h"

struct exact {
	const char	*in;
	size_t		 width;
	const char	*out;
};

#define ELL "\xe2\x80\xa6"	/* U+2026 … */

static void
check_exact(const struct exact *cases, size_t n)
{
	char *out;
	size_t i;

	for (i = 0; i < n; i++) {
		out = text_sanitize(cases[i].in, strlen(cases[i].in),
		    cases[i].width);
		if (strcmp(out, cases[i].out) != 0)
			fail_msg("case %zu (width %zu): got '%s', wanted '%s'", i,
			    cases[i].width, out, cases[i].out);
		free(out);
	}
}

/* The same in both locales: everything here is ASCII on the way out. */
static const struct exact controls[] = {
	/* OSC 52 sets the clipboard; ESC [2J clears the screen */
	{ "\x1b]52;c;aGVsbG8=\x07", 0, "^[]52;c;aGVsbG8=^G" },
	{ "\x1b]52;c;aGVsbG8=\x1b\\", 0, "^[]52;c;aGVsbG8=^[\\" },
	{ "\x1b[2J\x1b[H", 0, "^[[2J^[[H" },
	{ "ok\x1b[31mred", 0, "ok^[[31mred" },
	/* cursor movers */
	{ "abc\rXY", 0, "abc^MXY" },
	{ "abc\b\b\bXYZ", 0, "abc^H^H^HXYZ" },
	{ "line\nnext", 0, "line^Jnext" },
	{ "\v\f\a", 0, "^K^L^G" },
	{ "x\x7fy", 0, "x^?y" },
	{ "\x01\x1f", 0, "^A^_" },
	/* tabs to the next multiple of eight */
	{ "\tx", 0, "        x" },
	{ "ab\tc", 0, "ab      c" },
	{ "1234567\tx", 0, "1234567 x" },
	{ "12345678\tx", 0, "12345678        x" },
	{ "\x1b\tx", 0, "^[      x" },		/* ^[ takes two columns */
	/* C1 controls as UTF-8 and as raw bytes (8-bit CSI) */
	{ "\xc2\x85", 0, "<U+0085>" },
	{ "\xc2\x9b" "2J", 0, "<U+009B>2J" },
	{ "\xc2\x80\xc2\x9f", 0, "<U+0080><U+009F>" },
	{ "\x9b" "2J", 0, "\\x9b2J" },
	{ "\x85", 0, "\\x85" },
	/* bidi overrides and isolates, marks, BOM, separators */
	{ "abc\xe2\x80\xae" "def", 0, "abc<U+202E>def" },
	{ "\xe2\x81\xa6x\xe2\x81\xa9", 0, "<U+2066>x<U+2069>" },
	{ "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 0,
	    "<U+202A><U+202B><U+202C><U+202D>" },
	{ "\xe2\x81\xa7\xe2\x81\xa8", 0, "<U+2067><U+2068>" },
	{ "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 0, "<U+200E><U+200F><U+061C>" },
	{ "\xef\xbb\xbfx", 0, "<U+FEFF>x" },
	{ "\xe2\x80\xa8\xe2\x80\xa9", 0, "<U+2028><U+2029>" },
	/* invalid UTF-8 byte by byte */
	{ "\xff\xfe", 0, "\\xff\\xfe" },
	{ "a\x80z", 0, "a\\x80z" },
	{ "\xc3", 0, "\\xc3" },			/* truncated */
	{ "\xe4\xb8", 0, "\\xe4\\xb8" },
	{ "\xc3(", 0, "\\xc3(" },
	{ "\xc0\xaf", 0, "\\xc0\\xaf" },		/* overlong '/' */
	{ "\xc1\xbf", 0, "\\xc1\\xbf" },
	{ "\xe0\x80\xaf", 0, "\\xe0\\x80\\xaf" },
	{ "\xf0\x80\x80\xaf", 0, "\\xf0\\x80\\x80\\xaf" },
	{ "\xed\xa0\x80", 0, "\\xed\\xa0\\x80" },	/* surrogates */
	{ "\xed\xbf\xbf", 0, "\\xed\\xbf\\xbf" },
	{ "\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80" },	/* > U+10FFFF */
	{ "\xf5\x80\x80\x80", 0, "\\xf5\\x80\\x80\\x80" },
	{ "\xc0\x80", 0, "\\xc0\\x80" },		/* overlong NUL */
	/* plain text is untouched */
	{ "", 0, "" },
	{ "hello, world", 0, "hello, world" },
	{ "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", 0,
	    "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./" },
};

static void
test_controls_c(void **state)
{
	(void)state;
	assert_non_null(setlocale(LC_ALL, "C"));
	check_exact(controls, nitems(controls));
}

static void
test_controls_utf8(void **state)
{
	(void)state;
	assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
	check_exact(controls, nitems(controls));
	assert_non_null(setlocale(LC_ALL, "C"));
}

static void
test_nul(void **state)
{
	char *out;

	(void)state;
	out = text_sanitize("a\0b", 3, 0);
	assert_string_equal(out, "a^@b");
	free(out);
	out = text_sanitize_str("plain\ttab");
	assert_string_equal(out, "plain   tab");
	free(out);
}

static void
test_utf8_locale(void **state)
{
	static const struct exact cases[] = {
		{ "caf\xc3\xa9", 0, "caf\xc3\xa9" },
		{ "\xe4\xb8\xad\xe6\x96\x87", 0, "\xe4\xb8\xad\xe6\x96\x87" },
		{ "e\xcc\x81", 0, "e\xcc\x81" },		/* combining */
		{ "\xf0\x9f\x98\x80", 0, "\xf0\x9f\x98\x80" },
		{ "\xf4\x8f\xbf\xbf", 0, "<U+10FFFF>" },	/* no width */
		{ "\xef\xbf\xbe", 0, "<U+FFFE>" },
		/* clipping with the ellipsis, which takes the last column */
		{ "hello", 5, "hello" },
		{ "hello", 6, "hello" },
		{ "hello world", 5, "hell" ELL },
		{ "hello world", 2, "h" ELL },
		{ "ab", 1, ELL },
		{ "a", 1, "a" },
		{ "", 1, "" },
		/* the last character is two bytes */
		{ "caf\xc3\xa9", 4, "caf\xc3\xa9" },
		{ "caf\xc3\xa9!", 4, "caf" ELL },
		/* wide CJK: two columns each, never half of one */
		{ "\xe4\xb8\xad\xe6\x96\x87", 4, "\xe4\xb8\xad\xe6\x96\x87" },
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 4, "\xe4\xb8\xad" ELL },
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 5,
		    "\xe4\xb8\xad\xe6\x96\x87" ELL },
		{ "a\xe4\xb8\xad" "b", 3, "a" ELL },
		{ "a\xe4\xb8\xad" "b", 4, "a\xe4\xb8\xad" "b" },
		{ "\xe4\xb8\xad", 1, ELL },
		{ "\xe4\xb8\xad", 2, "\xe4\xb8\xad" },
		{ "ab\xe4\xb8\xad", 3, "ab" ELL },
		{ "e\xcc\x81", 1, "e\xcc\x81" },
		/* made-visible pieces are not split either */
		{ "ab\x1b[2J", 3, "ab" ELL },
		{ "ab\x1b", 4, "ab^[" },
		{ "\xff", 4, "\\xff" },
		{ "\xff", 3, ELL },
		{ "x\xe2\x80\xae", 8, "x" ELL },
		{ "\tx", 4, "   " ELL },
		{ "\tx", 9, "        x" },
		{ "a\tb", 8, "a      " ELL },
	};

	(void)state;
	assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
	check_exact(cases, nitems(cases));
	assert_non_null(setlocale(LC_ALL, "C"));
}

static void
test_c_locale(void **state)
{
	static const struct exact cases[] = {
		/* outside UTF-8 locales each code point is one '?' */
		{ "caf\xc3\xa9", 0, "caf?" },
		{ "\xe4\xb8\xad\xe6\x96\x87", 0, "??" },
		{ "\xf0\x9f\x98\x80!", 0, "?!" },
		{ "hello world", 5, "hell~" },
		{ "hello", 5, "hello" },
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 2, "?~" },
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 3, "???" },
		{ "ab", 1, "~" },
		{ "\xc2\x85z", 3, "~" },
		{ "\xc2\x85", 8, "<U+0085>" },
		{ "\xe2\x80\xae!", 8, "~" },
	};

	(void)state;
	assert_non_null(setlocale(LC_ALL, "C"));
	check_exact(cases, nitems(cases));
}

/* Random bytes: nothing below 0x20 nor 0x7f comes out, the output is valid
 * UTF-8, and it never takes more columns than allowed. */
static void
test_random(void **state)
{
	unsigned char in[64];
	unsigned seed = 7;
	size_t round, i, len, width;
	wchar_t wide[1024];
	char *out;
	int cols;

	(void)state;
	assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
	for (round = 0; round < 20000; round++) {
		len = round % nitems(in);
		for (i = 0; i < len; i++) {
			seed = seed * 1103515245 + 12345;
			in[i] = (unsigned char)(seed >> 16);
			if (round % 3 == 0 && in[i] >= 0x80 && i + 1 < len)
				/* more CJK-ish */
				in[i] = i % 2 ? 0xe4 : 0xb8;
		}
		width = round % 17;
		out = text_sanitize((const char *)in, len, width);
		for (i = 0; out[i] != '\0'; i++)
			if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
				fail_msg("round %zu: control byte in output", round);
		assert_true(text_utf8_valid(out, strlen(out)));
		if (width != 0) {
			assert_true(mbstowcs(wide, out, nitems(wide)) <
			    nitems(wide));
			cols = wcswidth(wide, nitems(wide));
			if (cols < 0 || (size_t)cols > width)
				fail_msg("round %zu: %d columns for width %zu: '%s'",
				    round, cols, width, out);
		}
		free(out);
	}
	assert_non_null(setlocale(LC_ALL, "C"));
}

static void
test_utf8_valid(void **state)
{
	static const struct {
		const char	*s;
		size_t		 len;
		bool		 valid;
	} cases[] = {
		{ "", 0, true },
		{ "abc", 3, true },
		{ "caf\xc3\xa9", 5, true },
		{ "\xe4\xb8\xad", 3, true },
		{ "\xf0\x9f\x98\x80", 4, true },
		{ "\xf4\x8f\xbf\xbf", 4, true },		/* U+10FFFF */
		{ "\xef\xbf\xbf", 3, true },		/* U+FFFF */
		{ "\xee\x80\x80", 3, true },		/* U+E000 */
		{ "\x7f", 1, true },
		{ "a\0b", 3, false },			/* NUL */
		{ "\xc0\x80", 2, false },		/* overlong */
		{ "\xc1\xbf", 2, false },
		{ "\xe0\x80\x80", 3, false },
		{ "\xe0\x9f\xbf", 3, false },
		{ "\xf0\x80\x80\x80", 4, false },
		{ "\xf0\x8f\xbf\xbf", 4, false },
		{ "\xed\xa0\x80", 3, false },		/* surrogates */
		{ "\xed\xbf\xbf", 3, false },
		{ "\xf4\x90\x80\x80", 4, false },	/* > U+10FFFF */
		{ "\xf5\x80\x80\x80", 4, false },
		{ "\xf8\x88\x80\x80\x80", 5, false },
		{ "\xfe", 1, false },
		{ "\xff", 1, false },
		{ "\x80", 1, false },			/* lone continuation */
		{ "\xe4\xb8", 2, false },		/* truncated */
		{ "\xe4\xb8(", 3, false },
		{ "\xf0\x9f\x98", 3, false },
		{ "ab\xc3", 3, false },
	};
	uint32_t cp = 0;
	size_t i;

	(void)state;
	for (i = 0; i < nitems(cases); i++)
		if (text_utf8_valid(cases[i].s, cases[i].len) != cases[i].valid)
			fail_msg("case %zu: text_utf8_valid is %d", i,
			    !cases[i].valid);
	assert_int_equal(
	    text_utf8_decode((const unsigned char *)"", 0, &cp), 0);
	assert_int_equal(
	    text_utf8_decode((const unsigned char *)"A", 1, &cp), 1);
	assert_int_equal(cp, 'A');
	assert_int_equal(
	    text_utf8_decode((const unsigned char *)"\xc3\xa9", 2, &cp), 2);
	assert_int_equal(cp, 0xe9);
	assert_int_equal(
	    text_utf8_decode((const unsigned char *)"\xe4\xb8\xad", 3, &cp), 3);
	assert_int_equal(cp, 0x4e2d);
	assert_int_equal(
	    text_utf8_decode((const unsigned char *)"\xf4\x8f\xbf\xbf", 4, &cp),
	    4);
	assert_int_equal(cp, 0x10ffff);
	/* The length given is respected, even inside a longer string. */
	assert_int_equal(
	    text_utf8_decode((const unsigned char *)"\xe4\xb8\xad", 2, &cp), 0);
}

/* JSON text with its invisible controls escaped: the same value, and no
 * byte of them left for a terminal to act on. */
static void
test_json_harden(void **state)
{
	const char in[] = "{\"m\":\"a\xe2\x80\xae b\xc2\x85" "c\x7f"
	    "\xe2\x81\xa6 \xef\xbb\xbf \xe4\xb8\xad\xff\"}";
	json_t *a, *b;
	size_t n;
	char *out;

	(void)state;
	assert_null(text_json_harden("{\"m\":\"caf\xc3\xa9 \xe4\xb8\xad\"}",
	    17, &n));
	out = text_json_harden(in, strlen(in), &n);
	assert_non_null(out);
	assert_int_equal(strlen(out), n);
	assert_string_equal(out, "{\"m\":\"a\\u202e b\\u0085c\\u007f"
	    "\\u2066 \\ufeff \xe4\xb8\xad\xff\"}");
	/* The same value once read (the stray 0xff aside, kept as it was). */
	a = json_loads("{\"m\":\"a\xe2\x80\xae b\xc2\x85" "c\x7f"
	    "\xe2\x81\xa6 \xef\xbb\xbf \xe4\xb8\xad\"}", 0, NULL);
	out[n - 3] = '"';
	out[n - 2] = '}';
	out[n - 1] = '\0';
	b = json_loads(out, 0, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	free(out);
}

/* DEL or a C1 control at every offset of a long ASCII line (the scan goes
 * eight bytes at a time): found and escaped wherever it is. */
static void
test_json_harden_offsets(void **state)
{
	static const char *const bad[] = { "\x7f", "\xc2\x9b" };
	char line[80], want[96];
	size_t i, k, n, blen;
	char *out;

	(void)state;
	for (k = 0; k < nitems(bad); k++)
		for (i = 0; i + 1 < 60; i++) {
			blen = strlen(bad[k]);
			memset(line, 'a', 60);
			memcpy(line + i, bad[k], blen);
			memset(want, 'a', sizeof want);
			memcpy(want + i, k == 0 ? "\\u007f" : "\\u009b", 6);
			out = text_json_harden(line, 60, &n);
			assert_non_null(out);
			assert_int_equal(n, 60 - blen + 6);
			assert_memory_equal(out, want, n);
			free(out);
		}
	memset(line, 'a', 60);
	assert_null(text_json_harden(line, 60, &n));
}

/* A message quoting OSC 52, CSI 2J, a line feed, C1 CSI, a stray byte and
 * a tab comes out on one line, all of it visible; a usage text keeps its
 * lines. */
static void
test_guard_stderr(void **state)
{
	FILE *saved = stderr, *guard;
	char got[512];
	int p[2], fd2;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_true((fd2 = dup(2)) != -1);
	assert_int_equal(dup2(p[1], 2), 2);
	assert_int_equal(text_guard_stderr(), 0);
	fprintf(stderr, "calops: no job '%s'\n", "x\x1b]52;c;SGk=\a\x1b[2J\ny"
	    "\xc2\x9b\xff\xc3\xa9\t.");
	fputs("usage: calops x\n\n  -h  help\n", stderr);
	guard = stderr;
	stderr = saved;
	fclose(guard);
	assert_int_equal(dup2(fd2, 2), 2);
	close(fd2);
	close(p[1]);
	n = read(p[0], got, sizeof got - 1);
	close(p[0]);
	assert_true(n > 0);
	got[n] = '\0';
	assert_string_equal(got, "calops: no job 'x^[]52;c;SGk=^G^[[2J^Jy"
	    "<U+009B>\\xff\xc3\xa9\t.'\nusage: calops x\n\n  -h  help\n");
}

/* text_json_plain: plain JSON is judged valid, anything else is not (then
 * jansson decides), and whatever it judges valid, jansson loads. */
static void
test_json_plain(void **state)
{
	static const char *const yes[] = {
		"{}", "[]", " {\"a\":1} \n", "[1,-2,0.5,-0.25,true,false,null]",
		"{\"v\":1,\"seq\":12,\"ts\":1796228378.1490002,\"type\":"
		"\"log\",\"line\":\"a \\\"q\\\" \\\\ \\/ \\b\\f\\n\\r\\t "
		"\\u00e9 \\u20ac caf\xc3\xa9 \xf0\x9f\x98\x80\"}",
		"{\"a\":{\"b\":[[],{}]},\"c\":\"\"}",
		"[123456789012345678]", "[123456789012345678.000000000000001]",
	};
	static const char *const no[] = {
		"", " ", "1", "\"s\"", "true", "{", "[", "}", "{]", "[}",
		"{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[,1]", "{a:1}",
		"{\"a\":1}x", "{\"a\":1}{}", "[01]", "[-]", "[1.]", "[.5]",
		"[1e5]", "[1E-2]", "[1234567890123456789]",
		"[1234567890123456789.5]", "[tru]", "[nul]",
		"[\"\\x\"]", "[\"\\u12\"]", "[\"\\u0000\"]", "[\"\\ud83d\"]",
		"[\"a\tb\"]", "[\"\x1b[2J\"]", "[\"\xff\"]", "[\"\xc0\xaf\"]",
		"[\"\xed\xa0\x80\"]", "[\"open", "{\"a\":1 \"b\":2}",
		"[1 2]", "[[[[", "[]]",
	};
	char deep[200];
	size_t i;
	json_t *o;

	(void)state;
	for (i = 0; i < nitems(yes); i++) {
		assert_true(text_json_plain(yes[i], strlen(yes[i])));
		o = json_loadb(yes[i], strlen(yes[i]), 0, NULL);
		assert_non_null(o);
		json_decref(o);
	}
	for (i = 0; i < nitems(no); i++)
		assert_false(text_json_plain(no[i], strlen(no[i])));
	/* a NUL inside is not plain */
	assert_false(text_json_plain("[\"a\0b\"]", 7));
	/* 64 levels are plain, 65 are left to jansson */
	memset(deep, '[', 64);
	memset(deep + 64, ']', 64);
	assert_true(text_json_plain(deep, 128));
	memset(deep, '[', 65);
	memset(deep + 65, ']', 65);
	assert_false(text_json_plain(deep, 130));
}

/* Every byte of an event line changed to every value: whenever
 * text_json_plain says valid, jansson agrees. */
static void
test_json_plain_mutations(void **state)
{
	static const char event[] = "{\"v\":1,\"seq\":7,\"ts\":1.5,\"type\":"
	    "\"log\",\"line\":\"x\\u00e9\xc3\xa9 a line of text long enough "
	    "for words\",\"n\":[1,{\"a\":null}]}";
	char line[sizeof event];
	size_t i, plain = 0;
	json_t *o;
	int c;

	(void)state;
	for (i = 0; i < sizeof event - 1; i++)
		for (c = 0; c < 256; c++) {
			memcpy(line, event, sizeof event);
			line[i] = (char)c;
			if (!text_json_plain(line, sizeof event - 1))
				continue;
			plain++;
			o = json_loadb(line, sizeof event - 1, 0, NULL);
			if (o == NULL)
				fail_msg("plain but not JSON: byte %zu = %d", i,
				    c);
			json_decref(o);
		}
	/* at least the unchanged ones */
	assert_true(plain > sizeof event);
}

/* One plain line, or why not, at which byte. */
static void
test_plain_line(void **state)
{
	static const struct {
		const char *s, *why;
	} cases[] = {
		{ "Mei Chen", NULL },
		{ "陈美 (release)", NULL },
		{ "", NULL },
		{ "a\tb", "U+0009, a control character, at byte 2" },
		{ "a\nb", "U+000A, a control character, at byte 2" },
		{ "x\x1b[31m", "U+001B, a control character, at byte 2" },
		{ "x\x7f", "U+007F, a control character, at byte 2" },
		{ "x\xc2\x9b", "U+009B, a control character, at byte 2" },
		{ "ab\xe2\x80\xae", "U+202E, a bidirectional control, at byte 3" },
		{ "\xe2\x81\xa6x", "U+2066, a bidirectional control, at byte 1" },
		{ "\xef\xbb\xbfx", "U+FEFF, an invisible format character, at "
		    "byte 1" },
		{ "\xe2\x80\xa8", "U+2028, an invisible format character, at "
		    "byte 1" },
		{ "ok\xff", "a byte that is not UTF-8 at byte 3" },
		{ "\xc0\xaf", "a byte that is not UTF-8 at byte 1" },
	};
	char why[96];
	size_t i;

	(void)state;
	for (i = 0; i < nitems(cases); i++) {
		why[0] = '\0';
		assert_int_equal(text_plain_line(cases[i].s, why, sizeof why),
		    cases[i].why == NULL);
		if (cases[i].why != NULL)
			assert_string_equal(why, cases[i].why);
	}
	assert_false(text_plain_line("\x01", NULL, 0));
}

/* The document form (the decision record's): the same bytes in both
 * locales, one line, every code point a terminal must not get shown. */
static void
test_sanitize_doc(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "caf\xc3\xa9 \xe4\xb8\xad", "caf\xc3\xa9 \xe4\xb8\xad" },
		{ "a\tb", "a b" },
		{ "two\nlines\r", "two^Jlines^M" },
		{ "\x1b]52;c;QQ==\x07", "^[]52;c;QQ==^G" },
		{ "\x1b[31mred\x7f", "^[[31mred^?" },
		{ "\xc2\x9b" "2J", "<U+009B>2J" },
		{ "\xe2\x80\xae!", "<U+202E>!" },
		{ "ok\xff", "ok\\xff" },
		{ "<script>&", "<script>&" },
		{ "", "" },
	};
	const char *locales[] = { "C", "C.UTF-8" };
	size_t i, k;
	char *out;

	(void)state;
	for (k = 0; k < nitems(locales); k++) {
		assert_non_null(setlocale(LC_ALL, locales[k]));
		for (i = 0; i < nitems(cases); i++) {
			out = text_sanitize_doc(cases[i].in,
			    strlen(cases[i].in));
			assert_string_equal(out, cases[i].out);
			free(out);
		}
	}
	/* A NUL inside the length is a control like any other. */
	out = text_sanitize_doc("a\0b", 3);
	assert_string_equal(out, "a^@b");
	free(out);
	assert_non_null(setlocale(LC_ALL, "C"));
}

/* A string that is not UTF-8 kept in JSON: only its bad bytes (and NUL)
 * rewritten, as \xHH, the same bytes in every locale; what is valid, a
 * control or a tab included, is JSON's to escape as it would be anyway. */
static void
test_json_keeps(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "caf\xc3\xa9\xff", "\"caf\xc3\xa9\\\\xff\"" },
		{ "a\tb\n\x1b[1m\xfe", "\"a\\tb\\n\\u001B[1m\\\\xfe\"" },
		{ "\xe2\x80\xae\xc3", "\"\xe2\x80\xae\\\\xc3\"" },
		{ "\xed\xa0\x80", "\"\\\\xed\\\\xa0\\\\x80\"" },
		{ "", "\"\"" },
	};
	const char *locales[] = { "C", "C.UTF-8" };
	size_t i, k;
	char *out;
	json_t *v;

	(void)state;
	for (k = 0; k < nitems(locales); k++) {
		assert_non_null(setlocale(LC_ALL, locales[k]));
		for (i = 0; i < nitems(cases); i++) {
			assert_non_null(v = text_json(cases[i].in));
			out = json_dumps(v, JSON_ENCODE_ANY);
			assert_string_equal(out, cases[i].out);
			free(out);
			json_decref(v);
		}
	}
	assert_true(json_is_null(v = text_json(NULL)));
	json_decref(v);
	/* A NUL inside the length, and a sequence cut at the end. */
	out = text_utf8_escape("a\0b\xc3\xa9\xe2\x80", 7);
	assert_string_equal(out, "a\\x00b\xc3\xa9\\xe2\\x80");
	free(out);
	assert_non_null(setlocale(LC_ALL, "C"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls_c),
		cmocka_unit_test(test_controls_utf8),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_utf8_locale),
		cmocka_unit_test(test_c_locale),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_utf8_valid),
		cmocka_unit_test(test_json_harden),
		cmocka_unit_test(test_json_harden_offsets),
		cmocka_unit_test(test_guard_stderr),
		cmocka_unit_test(test_json_plain),
		cmocka_unit_test(test_json_plain_mutations),
		cmocka_unit_test(test_plain_line),
		cmocka_unit_test(test_sanitize_doc),
		cmocka_unit_test(test_json_keeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

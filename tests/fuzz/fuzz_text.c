/*
 * fuzz_text.c: the sanitiser on anything, in a UTF-8 and in the C locale.
 * What comes out holds no control byte (< 0x20, 0x7f), is valid UTF-8 (only
 * ASCII in the C locale) and never takes more columns than asked.  The
 * first input byte picks the width (0: none) and the locale.
 */
#include "calops.h"

#include <locale.h>
#include <wchar.h>

#include "base/text.h"

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static locale_t utf8, c_locale;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	utf8 = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (utf8 == (locale_t)0 || c_locale == (locale_t)0)
		abort();
	return 0;
}

/* The columns a sanitised string takes in the current locale. */
static size_t
columns(const char *s)
{
	mbstate_t mb;
	wchar_t wc;
	size_t n, cols = 0;
	int w;

	memset(&mb, 0, sizeof mb);
	while (*s != '\0') {
		n = mbrtowc(&wc, s, MB_CUR_MAX, &mb);
		if (n == 0 || n > MB_CUR_MAX)
			abort();
		if ((w = wcwidth(wc)) < 0)
			abort();
		cols += (size_t)w;
		s += n;
	}
	return cols;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t width, i;
	bool in_utf8;
	char *out;

	if (size < 1)
		return 0;
	in_utf8 = (data[0] & 0x80) == 0;
	width = data[0] & 0x3f;
	uselocale(in_utf8 ? utf8 : c_locale);
	out = text_sanitize((const char *)data + 1, size - 1, width);
	for (i = 0; out[i] != '\0'; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f ||
		    (!in_utf8 && (unsigned char)out[i] >= 0x80))
			abort();
	if (!text_utf8_valid(out, i))
		abort();
	if (width != 0 && columns(out) > width)
		abort();
	free(out);
	uselocale(LC_GLOBAL_LOCALE);
	return 0;
}

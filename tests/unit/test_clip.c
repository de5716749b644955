/* test_clip.c: y's OSC 52 sequence and the terminals sent one
 * (views/core/clip.c). */
#include "calops.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "views/core/clip.h"

/* Base64 with each padding length, the sequence's frame around it. */
static void
test_osc52(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "", "\033]52;c;\a" },
		{ "f", "\033]52;c;Zg==\a" },
		{ "fo", "\033]52;c;Zm8=\a" },
		{ "foo", "\033]52;c;Zm9v\a" },
		{ "G3 error\n", "\033]52;c;RzMgZXJyb3IK\a" },
		{ "\xc3\xa9\xff", "\033]52;c;w6n/\a" },
	};
	size_t i;
	char *s;

	(void)state;
	for (i = 0; i < nitems(t); i++) {
		s = clip_osc52(t[i].in);
		assert_string_equal(s, t[i].out);
		free(s);
	}
}

static void
test_terminal_takes(void **state)
{
	(void)state;
	assert_true(clip_terminal_takes("xterm-256color"));
	assert_true(clip_terminal_takes("tmux-256color"));
	assert_true(clip_terminal_takes("screen"));
	assert_false(clip_terminal_takes("dumb"));
	assert_false(clip_terminal_takes("linux"));
	assert_false(clip_terminal_takes(""));
	assert_false(clip_terminal_takes(NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_osc52),
		cmocka_unit_test(test_terminal_takes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

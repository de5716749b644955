/*
 * test_docs.c: the docs stay in step with the code: every key the console
 * binds is in the man page, with the words of its action.
 */
#include "calops.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "views/core/action.h"

/* The man page with roff escapes and font changes removed. */
static char *
man_text(void)
{
	const char *src = getenv("CALOPS_SOURCE_DIR");
	char *path = xasprintf("%s/share/man/calops.1", src != NULL ? src :
	    ".");
	FILE *f = fopen(path, "r");
	char *out, *w;
	long n;
	int c;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	out = w = xmalloc((size_t)n + 1);
	while ((c = fgetc(f)) != EOF) {
		if (c == '\\') {
			c = fgetc(f);
			if (c == 'f' || c == '(') {	/* \fB, \(en */
				(void)fgetc(f);
				if (c == '(')
					(void)fgetc(f);
				continue;
			}
			if (c == EOF)
				break;
		}
		*w++ = (char)c;
	}
	*w = '\0';
	fclose(f);
	free(path);
	return out;
}

static void
every_key_is_in_the_man_page(void **state)
{
	const struct keybinding *k;
	char *man = man_text();

	(void)state;
	for (k = action_global_keys; k->key != 0; k++) {
		if (k->keyname == NULL)
			continue;
		if (strstr(man, k->keyname) == NULL)
			fail_msg("key '%s' (%s) is not in calops.1", k->keyname,
			    action_info[k->action].name);
	}
	free(man);
}

static void
every_action_has_help(void **state)
{
	const struct keybinding *k;

	(void)state;
	for (k = action_global_keys; k->key != 0; k++)
		assert_true(action_info[k->action].help[0] != '\0');
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_key_is_in_the_man_page),
		cmocka_unit_test(every_action_has_help),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

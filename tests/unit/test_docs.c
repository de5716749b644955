/*
 * test_docs.c: the docs stay in step with the code: calops(1), as it is in
 * share/man, lists every screen of the registry with how it is reached,
 * every key of each screen's table and of the global one with the words of
 * its action, and every ':' command (share/gendocs.sh writes that part;
 * ctest's docs_generated checks it is what the program prints).
 */
#include "calops.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "views/app/app.h"
#include "views/core/action.h"
#include "views/view.h"

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

/* The part of man from the line after the one starting with from to the
 * line starting with to (NULL: the end), a new string; fails when from is
 * not there. */
static char *
section(const char *man, const char *from, const char *to)
{
	const char *s = strstr(man, from), *e;

	if (s == NULL)
		fail_msg("no '%s' in calops.1", from);
	s = strchr(s, '\n') + 1;
	e = to != NULL ? strstr(s, to) : NULL;
	return xstrndup(s, e != NULL ? (size_t)(e - s) : strlen(s));
}

/* Every key of table t, quoted as the man page's tags have it, with its
 * action's words on the line after the tag; where names the table. */
static void
keys_in(const char *text, const struct keybinding *t, const char *where)
{
	const struct keybinding *k;
	char *q, *h;

	for (k = t; k->key != 0; k++) {
		if (k->keyname == NULL)
			continue;
		q = xasprintf("\"%s\"", k->keyname);
		h = xasprintf("\n%s\n", action_info[k->action].help);
		if (strstr(text, q) == NULL)
			fail_msg("key '%s' (%s) of %s is not in calops.1",
			    k->keyname, action_info[k->action].name, where);
		if (strstr(text, h) == NULL)
			fail_msg("'%s' (key %s of %s) is not in calops.1",
			    action_info[k->action].help, k->keyname, where);
		free(q);
		free(h);
	}
}

/* Each screen of the registry in its order, titled, with how it is reached
 * and its own keys before the next screen's. */
static void
every_screen_and_its_keys(void **state)
{
	char *man = man_text(), *part, *at, *next, *item, *want;
	size_t i, tab = 0;

	(void)state;
	part = section(man, ".SS Screens", ".SS ");
	at = part;
	for (i = 0; i < view_count; i++) {
		const struct view_entry *e = &view_registry[i];

		want = xasprintf("\n%s:\n%s\n", e->ops->title, e->help);
		if ((at = strstr(at, want)) == NULL)
			fail_msg("screen %s ('%s') is not in calops.1, or not "
			    "in the registry's order", e->name, e->help);
		free(want);
		want = i + 1 < view_count ? xasprintf("\n%s:\n",
		    view_registry[i + 1].ops->title) : NULL;
		next = want != NULL ? strstr(at + 1, want) : NULL;
		free(want);
		item = xstrndup(at, next != NULL ? (size_t)(next - at) :
		    strlen(at));
		if (e->ops->keys != NULL)
			keys_in(item, e->ops->keys, e->name);
		free(item);
		/* The tag before the title says how it is reached. */
		want = e->kind == VIEW_TAB ? xasprintf(".BR \"%zu\" \" or "
		    "\" \":%s\"\n", ++tab, e->name) : e->kind ==
		    VIEW_COMMAND ? xasprintf(".B \":%s\"\n", e->name) :
		    xstrdup("(from another screen)\n");
		if (at - part < (ptrdiff_t)strlen(want) ||
		    strncmp(at + 1 - strlen(want), want, strlen(want)) != 0)
			fail_msg("calops.1 does not say '%s' opens %s", want,
			    e->name);
		free(want);
	}
	free(part);
	free(man);
}

static void
every_global_key(void **state)
{
	char *man = man_text(), *part;

	(void)state;
	part = section(man, ".SS \"Keys of every screen\"", ".SS ");
	keys_in(part, action_global_keys, "every screen");
	free(part);
	free(man);
}

/* Every ':' command with its operand and its words. */
static void
every_command(void **state)
{
	const struct prompt_command *c;
	char *man = man_text(), *part, *tag, *h;

	(void)state;
	part = section(man, ".SS \"The command line\"", ".SS ");
	for (c = prompt_commands; c->name != NULL; c++) {
		tag = c->args != NULL ? xasprintf(".BI \":%s \" \"%s\"\n",
		    c->name, c->args) : xasprintf(".B \":%s\"\n", c->name);
		h = xasprintf("%s%s\n", tag, c->help);
		if (strstr(part, h) == NULL)
			fail_msg("command ':%s' is not in calops.1 as '%s'",
			    c->name, h);
		free(tag);
		free(h);
	}
	free(part);
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
		cmocka_unit_test(every_screen_and_its_keys),
		cmocka_unit_test(every_global_key),
		cmocka_unit_test(every_command),
		cmocka_unit_test(every_action_has_help),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

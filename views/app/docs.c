/* docs.c: --help's and calops(1)'s lists, from the tables (docs.h). */
#include "calops.h"

#include "views/app/app.h"
#include "views/app/docs.h"
#include "views/view.h"

void
docs_usage(struct buf *b)
{
	const struct prompt_command *c;
	const struct view_entry *e;
	size_t k, tab = 0;
	char *word;

	buf_adds(b, "Screens (Tab and S-Tab, their digit, or :NAME; ? in the "
	    "console lists the\nkeys of each):\n");
	for (k = 0; k < view_count; k++) {
		e = &view_registry[k];
		if (e->kind == VIEW_TAB)
			buf_addf(b, "  %zu :%-11s %s\n", ++tab, e->name,
			    e->help);
		else if (e->kind == VIEW_COMMAND)
			buf_addf(b, "    :%-11s %s\n", e->name, e->help);
	}
	buf_adds(b, "Commands after ':' besides a screen's name:\n");
	for (c = prompt_commands; c->name != NULL; c++) {
		word = xasprintf("%s%s%s", c->name, c->args != NULL ? " " : "",
		    c->args != NULL ? c->args : "");
		buf_addf(b, "    :%-16s %s\n", word, c->help);
		free(word);
	}
}

/* s for roff: a backslash and a minus escaped, a quote too inside a quoted
 * macro argument (quoted), and a leading dot or quote made text. */
static void
roff(struct buf *b, const char *s, bool quoted)
{
	if (!quoted && (*s == '.' || *s == '\''))
		buf_adds(b, "\\&");
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			buf_adds(b, "\\e");
		else if (*s == '-')
			buf_adds(b, "\\-");
		else if (*s == '"' && quoted)
			buf_adds(b, "\\(dq");
		else
			buf_addc(b, *s);
	}
}

/* A .TP tag of words in bold, sep between them in roman: ".BR "Up" ", "
 * "k"", or ".B "w"" for one. */
static void
tag(struct buf *b, char *const words[], size_t n, const char *sep)
{
	size_t i;

	buf_adds(b, n > 1 ? ".TP\n.BR" : ".TP\n.B");
	for (i = 0; i < n; i++) {
		buf_adds(b, " \"");
		roff(b, words[i], true);
		buf_addc(b, '"');
		if (i + 1 < n)
			buf_addf(b, " \"%s\"", sep);
	}
	buf_addc(b, '\n');
}

/* A line of text (a help string), ended. */
static void
text(struct buf *b, const char *s)
{
	roff(b, s, false);
	buf_addc(b, '\n');
}

/* Every action of a key table: its keys, then what it does. */
static void
keys(struct buf *b, const struct keybinding *t)
{
	const struct keybinding *k;
	char *names, *words[16], *save;
	size_t n;

	for (k = t; k->key != 0; k++) {
		if (!action_first(t, k))
			continue;
		names = action_keynames(k, " ");
		n = 0;
		for (words[n] = strtok_r(names, " ", &save);
		    words[n] != NULL && n + 1 < nitems(words);
		    words[n] = strtok_r(NULL, " ", &save))
			n++;
		tag(b, words, n, ", ");
		text(b, action_info[k->action].help);
		free(names);
	}
}

/* One screen of the registry: how it is reached, what it shows, its own
 * keys. */
static void
screen(struct buf *b, const struct view_entry *e, size_t tab)
{
	char *words[2], *digit = NULL, *cmd = NULL;
	size_t n = 0;

	if (e->kind == VIEW_TAB)
		words[n++] = digit = xasprintf("%zu", tab);
	if (e->kind != VIEW_DRILL)
		words[n++] = cmd = xasprintf(":%s", e->name);
	if (n > 0)
		tag(b, words, n, " or ");
	else
		buf_adds(b, ".TP\n(from another screen)\n");
	buf_addf(b, "\\fB%s\\fR:\n", e->ops->title);
	text(b, e->help);
	if (e->ops->keys != NULL) {
		buf_adds(b, ".RS\n");
		keys(b, e->ops->keys);
		buf_adds(b, ".RE\n");
	}
	free(digit);
	free(cmd);
}

void
docs_man(struct buf *b)
{
	const struct prompt_command *c;
	size_t k, tab = 0;

	buf_adds(b, ".SS Screens\n"
	    "Tab and S\\-Tab go to the next and the previous tab, a digit to "
	    "the tab of that\nnumber, and\n.BI : NAME\n"
	    "to the screen of that name; the others open from another "
	    "screen.\nBeside each, the keys it has of its own.\n");
	for (k = 0; k < view_count; k++)
		screen(b, &view_registry[k],
		    view_registry[k].kind == VIEW_TAB ? ++tab : 0);
	buf_adds(b, ".SS \"Keys of every screen\"\n");
	keys(b, action_global_keys);
	buf_adds(b, ".SS \"The command line\"\n"
	    "After\n.BR : ,\na screen's name (Screens, above) or one of these; "
	    "Tab completes them.\n");
	for (c = prompt_commands; c->name != NULL; c++) {
		buf_addf(b, ".TP\n.%s \":", c->args != NULL ? "BI" : "B");
		roff(b, c->name, true);
		if (c->args != NULL) {
			buf_adds(b, " \" \"");
			roff(b, c->args, true);
		}
		buf_adds(b, "\"\n");
		text(b, c->help);
	}
}

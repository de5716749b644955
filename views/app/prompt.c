/*
 * prompt.c: the status bar's prompt: the live filter after '/', the command
 * line after ':' with Tab completion, and the answers prompt_ask() waits for.
 */
#include "calops.h"

#include <curses.h>

#include "lab/labmodel.h"
#include "remote/transport.h"
#include "views/app/app_int.h"
#include "views/app/prompt.h"
#include "views/app/reportrun.h"
#include "views/core/pathcomp.h"
#include "views/core/ui.h"

const struct prompt_command prompt_commands[] = {
	{ "theme", "[NAME]", "switch to theme NAME; alone, say which is "
	    "shown" },
	{ "refresh", NULL, "evaluate the workspace again now" },
	{ "reconnect", "[HOST]", "connect again now to HOST, else to every "
	    "host not up" },
	{ "report", NULL, "write the release decision record into "
	    "08-release/decision.md (asks before writing over one)" },
	{ "q", NULL, "quit calops" },
	{ "quit", NULL, "quit calops" },
	{ NULL, NULL, NULL },
};

/* The i-th word ':' completes: every screen :name opens, then
 * prompt_commands[]; NULL past the end. */
static const char *
command_word(size_t i)
{
	size_t k;

	for (k = 0; k < view_count; k++)
		if (view_registry[k].kind != VIEW_DRILL && i-- == 0)
			return view_registry[k].name;
	for (k = 0; prompt_commands[k].name != NULL; k++)
		if (i-- == 0)
			return prompt_commands[k].name;
	return NULL;
}

/* Tab completion for ':': the command, or a theme name after ":theme ".
 * Several matches: as far as they agree, and the list beside the prompt. */
static void
complete(struct app *a)
{
	char **names = NULL, *word, list[192] = "";
	const char *match = NULL;
	size_t i, n = 0, hits = 0, off = 0, common = 0, len;

	if (strncmp(a->input, "theme ", 6) == 0) {
		names = theme_list(&n);
		off = 6;
	}
	word = a->input + off;
	len = strlen(word);
	for (i = 0; off ? i < n : command_word(i) != NULL; i++) {
		const char *c = off ? names[i] : command_word(i);

		if (strncmp(c, word, len) != 0)
			continue;
		if (match == NULL)
			common = strlen(c);
		else
			while (common > len && strncmp(c, match, common) != 0)
				common--;
		match = c;
		hits++;
		snprintf(list + strlen(list), sizeof list - strlen(list), " %s",
		    c);
	}
	if (hits == 1)
		a->input_len = off + (size_t)snprintf(word,
		    sizeof a->input - off, "%s%s", match, off ? "" : " ");
	else if (hits > 1) {
		a->input_len = off + (size_t)snprintf(word,
		    sizeof a->input - off, "%.*s", (int)common, match);
		app_message(a, false, "%zu matches:%s", hits, list);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void
set_theme(struct app *a, const char *name)
{
	struct theme t;
	char err[512];

	if (theme_load(&t, name, err, sizeof err) != 0) {
		app_message(a, true, "%s", err);
		return;
	}
	theme_release(&a->theme);
	a->theme = t;
	ui_apply_theme(&a->theme);
	app_message(a, false, "theme %s", a->theme.name);
	a->relayout = true;
}

/* :reconnect HOST, or every host that is not up: connect again now,
 * refused ones included (the operator acts). */
static void
reconnect(struct app *a, const char *host)
{
	const struct lab *lab = labmodel_lab(a->labm);
	struct transport_status st;
	struct transport *t;
	char err[256];
	size_t i, n = 0;

	while (*host == ' ')
		host++;
	for (i = 0; i < lab->nhosts; i++) {
		if (*host != '\0' && strcmp(host, lab->hosts[i].name) != 0)
			continue;
		if ((t = labmodel_transport(a->labm, lab->hosts[i].name, err,
		    sizeof err)) == NULL)
			continue;
		transport_status(t, &st);
		if (!transport_state_down(st.state))
			continue;
		transport_reconnect(t);
		n++;
	}
	if (*host != '\0' && lab_host(lab, host) == NULL)
		app_message(a, true, "no host '%s' in the lab file", host);
	else if (n == 0)
		app_message(a, false, "%s", *host != '\0' ? "that host is up or "
		    "connecting already" : "every host is up or connecting");
	else
		app_message(a, false, "connecting again to %zu host%s", n,
		    n == 1 ? "" : "s");
}

static void
quit_answer(struct app *a, const char *answer, void *arg)
{
	(void)arg;
	if (answer != NULL && (strcmp(answer, "y") == 0 ||
	    strcmp(answer, "yes") == 0))
		loop_stop(a->loop);
	else
		app_message(a, false, "not quitting");
}

int
prompt_quit(struct app *a)
{
	const char *why;
	size_t i, n = 0;
	char q[160];

	/* A chip step running under the release lock: quitting would cut it
	 * short with no refusal signed (release.md §6). */
	if ((why = app_holding(a)) != NULL) {
		app_message(a, true, "%s", why);
		return R_REDRAW;
	}
	for (i = 0; a->labm != NULL && i < labmodel_njobs(a->labm); i++)
		n += labmodel_job_live(labmodel_job(a->labm, i));
	if (n == 0)
		return R_QUIT;
	snprintf(q, sizeof q, "%zu job%s stream%s here (%s on running "
	    "without this console): quit? type y: ", n, n == 1 ? "" : "s",
	    n == 1 ? "s" : "", n == 1 ? "it goes" : "they go");
	prompt_ask(a, q, quit_answer, NULL);
	return R_REDRAW;
}

static int
run_command(struct app *a, const char *line)
{
	const struct view_ops *v;
	char cmd[sizeof a->input];
	size_t n;

	while (*line == ' ')
		line++;
	/* Tab completion leaves a blank after the word: it ends nothing. */
	for (n = strlen(line); n > 0 && line[n - 1] == ' '; n--)
		;
	snprintf(cmd, sizeof cmd, "%.*s", (int)n, line);
	if (strcmp(cmd, "q") == 0 || strcmp(cmd, "quit") == 0)
		return prompt_quit(a);
	if (strncmp(cmd, "theme", 5) == 0 && (cmd[5] == ' ' || cmd[5] == '\0')) {
		if (cmd[5] == '\0')
			app_message(a, false, "theme %s", ui_theme_name());
		else
			set_theme(a, cmd + 6);
	} else if (strcmp(cmd, "refresh") == 0)
		app_evaluate(a);
	else if (strcmp(cmd, "report") == 0)
		reportrun_start(a);
	else if (strncmp(cmd, "reconnect", 9) == 0 &&
	    (cmd[9] == ' ' || cmd[9] == '\0'))
		reconnect(a, cmd + 9);
	else if ((v = view_by_name(cmd)) != NULL &&
	    view_entry(v)->kind == VIEW_TAB)
		app_switch_tab(a, v);
	else if (v != NULL)
		app_push(a, v, NULL);
	else if (cmd[0] != '\0')
		app_message(a, true, "unknown command ':%s' (Tab completes)", cmd);
	return R_REDRAW;
}

void
prompt_ask(struct app *a, const char *question, prompt_answer_fn fn,
    void *arg)
{
	/* Keys typed before the question showed were meant for the screen
	 * under it: none of them may become part of the answer. */
	if (a->headless == NULL)
		flushinp();
	snprintf(a->ask, sizeof a->ask, "%s", question);
	a->ask_secret = false;
	a->ask_path = false;
	a->ask_fn = fn;
	a->ask_arg = arg;
	a->input[0] = '\0';
	a->input_len = 0;
	a->mode = MODE_ASK;
	a->dirty = true;
}

void
prompt_ask_secret(struct app *a, const char *question,
    prompt_answer_fn fn, void *arg)
{
	prompt_ask(a, question, fn, arg);
	a->ask_secret = true;
}

void
prompt_ask_path(struct app *a, const char *question, prompt_answer_fn fn,
    void *arg)
{
	prompt_ask(a, question, fn, arg);
	a->ask_path = true;
}

void
prompt_ask_later(struct app *a, const char *question,
    prompt_answer_fn fn, void *arg)
{
	if (a->mode == MODE_NORMAL) {
		prompt_ask(a, question, fn, arg);
		return;
	}
	snprintf(a->later_q, sizeof a->later_q, "%s", question);
	a->later_fn = fn;
	a->later_arg = arg;
}

void
prompt_withdraw(struct app *a, void *arg)
{
	if (a->later_fn != NULL && a->later_arg == arg)
		a->later_fn = NULL;
	if (a->mode != MODE_ASK || a->ask_arg != arg || a->ask_fn == NULL)
		return;
	explicit_bzero(a->input, sizeof a->input);
	a->input_len = 0;
	a->ask_secret = false;
	a->ask_fn = NULL;
	a->mode = MODE_NORMAL;
	a->dirty = true;
	app_ask_next(a);
}

/* The answer to prompt_ask(), or NULL: cancelled (prompt_key then puts
 * the next question a host waits with).  fn gets a copy: it may ask the
 * next question at once, which empties the line (and a secret one must be
 * secret from its start, whatever the one before was); a secret answer is
 * wiped from the line before fn runs, and from the copy after. */
static void
answer(struct app *a, const char *text)
{
	prompt_answer_fn fn = a->ask_fn;
	void *arg = a->ask_arg;
	bool secret = a->ask_secret;
	char copy[sizeof a->input];

	a->mode = MODE_NORMAL;
	a->ask_fn = NULL;
	a->ask_secret = false;
	if (text != NULL)
		snprintf(copy, sizeof copy, "%s", text);
	if (secret) {
		explicit_bzero(a->input, sizeof a->input);
		a->input_len = 0;
	}
	if (fn != NULL)
		fn(a, text != NULL ? copy : NULL, arg);
	explicit_bzero(copy, sizeof copy);
}

/* Tab in a question for a file: the path typed so far completed; several
 * matches are listed beside the prompt. */
static void
complete_path(struct app *a)
{
	struct pathcomp pc;
	char err[300];

	if (pathcomp_complete(a->input, sizeof a->input, &pc, err,
	    sizeof err) == -1) {
		app_message(a, true, "%s", err);
		return;
	}
	a->input_len = strlen(a->input);
	if (pc.n == 0)
		app_message(a, true, "no match");
	else if (pc.n > 1)
		app_message(a, false, "%zu matches: %s", pc.n, pc.list);
}

/* Tab in a question the top screen asked (its data is the question's
 * argument): that screen shows more; the answer typed so far stays.  A
 * question for a file completes its path instead. */
static void
ask_tab(struct app *a)
{
	struct view *v;

	if (a->ask_path) {
		complete_path(a);
		return;
	}
	if (a->depth == 0)
		return;
	v = &a->stack[a->depth - 1];
	if (v->ops->ask_tab != NULL && v->data == a->ask_arg)
		v->ops->ask_tab(a, v->data);
}

/* A key while the prompt is open; a filter applies as it is typed. */
static int
prompt_key1(struct app *a, int key)
{
	bool filtering = a->mode == MODE_FILTER;

	if (key == 27 || key == KEY_CTRL('c') || key == KEY_CTRL('g')) {
		if (filtering) {
			a->filter[0] = '\0';
			app_refresh_views(a);
		}
		if (a->mode == MODE_ASK) {
			answer(a, NULL);	/* may ask the next */
			return R_REDRAW;
		}
		a->mode = MODE_NORMAL;
		return R_REDRAW;
	}
	if (key == '\r' || key == '\n' || key == KEY_ENTER) {
		if (a->mode == MODE_ASK) {
			answer(a, a->input);
			return R_REDRAW;
		}
		a->mode = MODE_NORMAL;
		return filtering ? R_REDRAW : run_command(a, a->input);
	}
	if (key == KEY_BACKSPACE || key == 127 || key == KEY_CTRL('h')) {
		if (a->input_len == 0 && a->mode == MODE_ASK) {
			answer(a, NULL);
			return R_REDRAW;
		}
		if (a->input_len == 0)
			a->mode = MODE_NORMAL;
		/* Drop one UTF-8 character, not one byte. */
		while (a->input_len > 0 && ((unsigned char)
		    a->input[--a->input_len] & 0xc0) == 0x80)
			;
		a->input[a->input_len] = '\0';
	} else if (key == KEY_CTRL('u')) {
		a->input_len = 0;
		a->input[0] = '\0';
	} else if (key == '\t' && a->mode == MODE_COMMAND)
		complete(a);
	else if (key == '\t' && a->mode == MODE_ASK)
		ask_tab(a);
	else if (key >= 0x20 && key < 0x100 && key != 0x7f &&
	    a->input_len + 1 < sizeof a->input) {
		a->input[a->input_len++] = (char)key;
		a->input[a->input_len] = '\0';
	}
	if (filtering) {
		snprintf(a->filter, sizeof a->filter, "%s", a->input);
		app_refresh_views(a);
	}
	return R_REDRAW;
}

int
prompt_key(struct app *a, int key)
{
	int r = prompt_key1(a, key);

	/* A host that asked while the line was taken asks now. */
	if (a->mode == MODE_NORMAL)
		app_ask_next(a);
	return r;
}

bool
prompt_click(struct app *a)
{
	if (a->mode == MODE_ASK) {
		app_message(a, false, "answer first (Esc cancels)");
		return false;
	}
	/* The filter applies as it is typed: closing the line keeps it. */
	a->mode = MODE_NORMAL;
	app_ask_next(a);	/* a host's question waiting: it is first */
	return a->mode == MODE_NORMAL;
}

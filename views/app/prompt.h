/*
 * prompt.h: the console's prompt (prompt.c): the filter line, the command
 * line, the questions, and quitting.  The screens ask their questions
 * here (app.h includes it); the keys and clicks are app.c's to hand over.
 */
#ifndef CALOPS_PROMPT_H
#define CALOPS_PROMPT_H

#include "calops.h"

struct app;

/* What prompt_ask() calls with the answer typed, or NULL when it was
 * cancelled (Esc, ^C); arg is prompt_ask()'s. */
typedef void (*prompt_answer_fn)(struct app *, const char *answer,
    void *arg);

/* The commands after ':' that are not a screen's name (view.h has those),
 * NULL-ended: what ':' completes, and what --help and calops(1) list
 * (docs.h).  args is how its operand is written ("NAME", "[HOST]"), or
 * NULL when it takes none. */
struct prompt_command {
	const char	*name;
	const char	*args;
	const char	*help;
};
extern const struct prompt_command prompt_commands[];
/* Ask a question in the status bar; fn gets the answer (see
 * prompt_answer_fn).  Every key goes to the prompt until then, so the
 * asking view is still there when fn runs (unless the console quits: fn is
 * not called). */
void	 prompt_ask(struct app *a, const char *question,
	    prompt_answer_fn fn, void *arg);
/* The same for a secret (a passphrase): nothing typed is shown, and the
 * answer is wiped from the prompt once fn returns (fn wipes its own
 * copies). */
void	 prompt_ask_secret(struct app *a, const char *question,
	    prompt_answer_fn fn, void *arg);
/* The same for a file of this machine (a key): Tab completes the path
 * typed as a shell does (views/core/pathcomp.h), several matches listed in
 * the status bar. */
void	 prompt_ask_path(struct app *a, const char *question,
	    prompt_answer_fn fn, void *arg);
/* The same when the status bar's line is free: at once, or once the
 * question, filter or command being typed there is done (one waits at a
 * time: a second replaces it).  For a question a screen's own events
 * raise, so that it never takes the line from under the operator's
 * typing, a passphrase least of all. */
void	 prompt_ask_later(struct app *a, const char *question,
	    prompt_answer_fn fn, void *arg);
/* Forget arg's question, open or waiting: it closes unanswered (fn is not
 * called), what was typed wiped. */
void	 prompt_withdraw(struct app *a, void *arg);
/* A key while the prompt is open (prompt.c); returns a reaction. */
int	 prompt_key(struct app *a, int key);
/* A click while the prompt is open (prompt.c): the filter line closes as
 * Enter would (the filter stays), the command line as Esc would, and true
 * is returned, the click to act on the screen; a question is not answered
 * by a click: it stays, and false is returned. */
bool	 prompt_click(struct app *a);
/* q on the first screen, Q, :q: quit, or while jobs stream to this console
 * (lazygit's confirmOnQuit) ask first, y quits (prompt.c). */
int	 prompt_quit(struct app *a);

#endif

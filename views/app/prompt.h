/*
 * prompt.h: the console's prompt (prompt.c): the filter line, the command
 * line, the questions, and quitting.
 */
#ifndef CALOPS_PROMPT_H
#define CALOPS_PROMPT_H

#include <stdbool.h>

struct app;

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

/*
 * headless.h: the console with no terminal (tig's test mode).  ncurses
 * draws into a virtual screen of the size asked for, the keys and clicks
 * come from a script, and the screen is written out as text, so that what
 * a screen shows can be checked whole against a golden copy:
 *
 *   calops --headless COLSxROWS --script FILE [PATH]
 *
 * The script has one step per line ('#' starts a comment):
 *
 *   wait board          until the workspace has been evaluated
 *   wait text TEXT      until TEXT is on the screen
 *   wait gone TEXT      until it is not
 *   key NAME...         keys by the help screen's names (Enter, Esc, Tab,
 *                       Up, PgDn, ^L, …) or single characters
 *   type TEXT           each character of TEXT as a key
 *   click ROW COL       a click on that cell (0-based); dclick: a double one
 *   click on TEXT       on the first cell of TEXT where it first shows
 *   click on TEXT under COLTEXT
 *                       on TEXT's row, in the column where COLTEXT starts
 *   resize COLS ROWS    the virtual terminal takes that size
 *   dump FILE           the screen as text into FILE ("-": standard output),
 *                       each row after a mark: '>' where it shows the
 *                       selection, else a blank
 *
 * A step runs when the loop is about to sleep and the step before it is
 * done: a wait holds the script until the console, driven by its own
 * events, gets there.  The script ends the console when it ends.  A wait
 * that still holds after the guard (`timeout SECONDS`, 60 by default) ends
 * it with status 3, the step and the screen on standard error: a guard
 * against a hang, not a measure of time.
 */
#ifndef CALOPS_HEADLESS_H
#define CALOPS_HEADLESS_H

#include "calops.h"

struct app;
struct headless;

/* Read the script at path; NULL with err ("FILE:LINE: what is wrong"). */
struct headless	*headless_load(const char *path, char *err, size_t errlen);
void		 headless_free(struct headless *h);
/* "COLSxROWS" into its numbers; -1 when it is not a size of at least
 * 20x5 and at most 1000x1000. */
int		 headless_parse_size(const char *s, int *cols, int *rows);
/* Arm the guard; then, before each sleep, run what can run.  The console
 * stops when the script is done or stuck; headless_status() says how it
 * ended: 0 done, 2 a step failed (a file not written), 3 stuck. */
void		 headless_start(struct headless *h, struct app *a);
void		 headless_run(struct headless *h, struct app *a);
int		 headless_status(const struct headless *h);

#endif

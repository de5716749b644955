/*
 * ui.h: ncurses set-up and tear-down, roles turned into attributes, and the
 * drawing primitives every view uses.  Every string drawn through ui_put()
 * goes through the sanitiser (text.c) first: ncurses alone is not enough,
 * waddch moves the cursor on tab, CR, newline and backspace.
 *
 * The terminal is restored on exit, on fatal(), on a crash signal and around
 * Ctrl-Z; ui_suspend()/ui_resume() hand it to $EDITOR or $PAGER and back.
 */
#ifndef CALOPS_UI_H
#define CALOPS_UI_H

#include "calops.h"

#include <curses.h>

#include "views/core/theme.h"

#define UI_MIN_COLS 80
#define UI_MIN_ROWS 24
#define UI_ESCDELAY_MS 100	/* how long a lone Esc waits for its rest */

struct ui_opts {
	bool	ascii;		/* no UTF-8 box drawing or glyphs */
	bool	mouse;
	bool	no_colour;	/* NO_COLOR or a monochrome choice */
	/* Both > 0: no terminal, a virtual screen of that size that nothing
	 * is written to (headless.h). */
	int	cols, rows;
};

/* Returns 0, or -1 with err set (no terminal, …). */
int	 ui_init(const struct ui_opts *o, const struct theme *t, char *err,
	    size_t errlen);
void	 ui_end(void);
void	 ui_suspend(void);
void	 ui_resume(void);
/* Switch themes at run time (colour pairs are re-made). */
void	 ui_apply_theme(const struct theme *t);
const char *ui_theme_name(void);

attr_t	 ui_attr(enum role r);
bool	 ui_utf8(void);
/* A glyph, or its ASCII fallback. */
const char *ui_glyph(const char *utf8, const char *ascii);

/*
 * Draw untrusted text at (y, x) in at most width columns with a role's
 * attributes, sanitised and clipped with an ellipsis; pads with blanks to
 * width when pad is set.  Returns the columns used.
 */
int	 ui_put(WINDOW *w, int y, int x, int width, enum role r, const char *s,
	    bool pad);
/* The same, cut from the front ("…/models/qwen"): for a path, whose end
 * says most.  No padding. */
int	 ui_put_tail(WINDOW *w, int y, int x, int width, enum role r,
	    const char *s);
/* How many bytes of s, already sanitised, fit in width columns: where to
 * break it over rows without cutting a character. */
size_t	 ui_fit(const char *s, int width);
/* The same, for text wrapped over rows: when the line must break, it
 * breaks after a blank in its second half when there is one, so that a
 * word is not cut in two. */
size_t	 ui_fit_words(const char *s, int width);
/* The columns s, already sanitised, takes on the screen. */
int	 ui_width(const char *s);
/* Trusted text from the program itself (labels, numbers): no sanitising
 * needed, but clipped the same way. */
int	 ui_putf(WINDOW *w, int y, int x, int width, enum role r,
	    const char *fmt, ...) PRINTFLIKE(6, 7);
/* Fill a row from x to the right edge with a role's blank. */
void	 ui_fill(WINDOW *w, int y, int x, enum role r);

#endif

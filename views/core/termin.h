/*
 * termin.h: what the terminal sends, read as keys and clicks.  ncurses
 * decodes the keys its terminfo entry names, and mouse reports only in the
 * one format that entry's kmous names: with TERM=screen or tmux-256color
 * (kmous=\E[M) an SGR report (\E[<0;10;12M) comes out of getch() byte by
 * byte, and each byte would be a key ('2' the Tickets tab).  Every getch()
 * value goes through termin_feed() instead: a sequence that begins with Esc
 * is held until it is whole, a mouse report in the SGR (1006), urxvt (1015)
 * or X10 format becomes a click or a wheel step, and any other sequence
 * ncurses did not know is dropped, never typed.  A lone Esc is the Esc key
 * once getch() has nothing more (ncurses waited ESCDELAY for its rest);
 * Esc and a key at once is an Alt key, which means nothing here.  A
 * sequence begun whose rest has not come TERMIN_WAIT_MS later is dropped
 * (termin_expire).  No terminal here: the caller passes the time.
 */
#ifndef CALOPS_TERMIN_H
#define CALOPS_TERMIN_H

#include "calops.h"

#define TERMIN_WAIT_MS	500	/* for the rest of a sequence begun */
#define TERMIN_HELD	32	/* bytes of one sequence kept */

enum termin_kind {
	TERMIN_KEY,		/* key: a curses key code or a byte */
	TERMIN_CLICK,		/* y, x (0-based cell), twice */
	TERMIN_WHEEL,		/* wheel: -1 up, 1 down */
};

struct termin_event {
	enum termin_kind kind;
	int		 key;
	int		 y, x;
	bool		 twice;		/* the second click on that cell */
	int		 wheel;
};

struct termin {
	int		 held[TERMIN_HELD];	/* the sequence begun */
	size_t		 nheld;
	bool		 overlong;	/* more than held keeps: dropped */
	bool		 pressed;	/* button 1 is down */
	int		 press_y, press_x;
	int64_t		 click_ms;	/* the last click, for a double */
	int		 click_y, click_x;
	int		 double_ms;
};

/* Ready to read; two clicks on one cell within double_ms are a double. */
void	termin_init(struct termin *t, int double_ms);
/* One value of getch() (not ERR) at now_ms: true with *ev filled when it
 * completes an event, false while a sequence is held or was dropped. */
bool	termin_feed(struct termin *t, int key, int64_t now_ms,
	    struct termin_event *ev);
/* getch() has nothing more: true with the Esc key in *ev when a lone Esc
 * is held. */
bool	termin_idle(struct termin *t, struct termin_event *ev);
/* Whether a sequence is held, waiting for its rest. */
bool	termin_pending(const struct termin *t);
/* Its rest did not come in time: drop what is held. */
void	termin_expire(struct termin *t);

#endif

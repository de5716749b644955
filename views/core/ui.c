/* ui.c: ncurses, roles and the drawing primitives (see ui.h). */
#include "calops.h"

#include <langinfo.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include <wchar.h>

#include "base/text.h"
#include "views/core/ui.h"

static bool active;
static SCREEN *virtual;		/* the headless screen, or NULL */
static FILE *virtual_in, *virtual_out;
static bool utf8;
static bool no_colour;
static attr_t role_attr[ROLE_COUNT];
static char theme_name[64];
static bool sgr_asked;		/* 1006 is ours to turn off */

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
    SIGABRT };

bool
ui_utf8(void)
{
	return utf8;
}

const char *
ui_glyph(const char *u, const char *ascii)
{
	return utf8 ? u : ascii;
}

attr_t
ui_attr(enum role r)
{
	return role_attr[r];
}

const char *
ui_theme_name(void)
{
	return theme_name;
}

static attr_t
attrs_of(unsigned a)
{
	attr_t r = A_NORMAL;

	if (a & THEME_BOLD)
		r |= A_BOLD;
	if (a & THEME_DIM)
		r |= A_DIM;
	if (a & THEME_REVERSE)
		r |= A_REVERSE;
	if (a & THEME_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & THEME_ITALIC)
		r |= A_ITALIC;
	return r;
}

void
ui_apply_theme(const struct theme *t)
{
	const struct role_style *s;
	bool many = COLORS >= 256;
	int r;

	snprintf(theme_name, sizeof theme_name, "%s", t->name);
	for (r = 0; r < ROLE_COUNT; r++) {
		s = &t->roles[r];
		role_attr[r] = attrs_of(s->attrs);
		if (no_colour || !has_colors()) {
			/* A band of background colour (the selection, the
			 * bars) would vanish with the colours: reverse video
			 * instead. */
			if (s->bg8 != t->roles[ROLE_NORMAL].bg8 ||
			    s->bg256 != t->roles[ROLE_NORMAL].bg256)
				role_attr[r] |= A_REVERSE;
			continue;
		}
		init_pair((short)(r + 1), many ? s->fg256 : s->fg8,
		    many ? s->bg256 : s->bg8);
		role_attr[r] |= COLOR_PAIR(r + 1);
	}
	if (!no_colour && has_colors())
		bkgdset(' ' | role_attr[ROLE_NORMAL]);
}

#define SGR_ON	"\033[?1006h"
#define SGR_OFF	"\033[?1006l"

/*
 * ncurses asks for SGR mouse reports (1006) only where its terminfo's kmous
 * is \E[<; where it is \E[M (screen, tmux-256color) it asks for X10 reports,
 * which cannot say a column past 223.  Ask for SGR there too: the terminal
 * sends it if it knows it (termin.c reads it), X10 otherwise (ncurses reads
 * that).  Turned off with ncurses's mouse modes, on again with them.
 */
static void
sgr_mouse(bool on)
{
	/* Straight to the terminal: the mode does not mind what ncurses
	 * still holds to write. */
	if (sgr_asked) {
		fputs(on ? SGR_ON : SGR_OFF, stdout);
		fflush(stdout);
	}
}

static void
sgr_mouse_start(void)
{
	const char *km = tigetstr("kmous");

	sgr_asked = virtual == NULL && km != NULL && km != (char *)-1 &&
	    strcmp(km, "\033[M") == 0;
	sgr_mouse(true);
}

/* A crash must not leave the terminal raw: restore it, then die as asked. */
static void
crash_handler(int sig)
{
	if (active)
		endwin();
	if (sgr_asked)
		(void)!write(STDOUT_FILENO, SGR_OFF, strlen(SGR_OFF));
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
fatal_cleanup(void)
{
	ui_end();
}

/* The headless screen: a terminal type every Debian has, its output
 * thrown away, its size set. */
static int
virtual_open(int cols, int rows, char *err, size_t errlen)
{
	if ((virtual_in = fopen("/dev/null", "r")) == NULL ||
	    (virtual_out = fopen("/dev/null", "w")) == NULL ||
	    (virtual = newterm("xterm-256color", virtual_out,
	    virtual_in)) == NULL) {
		errbuf_set(err, errlen, "cannot make a virtual screen "
		    "(terminfo 'xterm-256color')");
		if (virtual_in != NULL)
			fclose(virtual_in);
		if (virtual_out != NULL)
			fclose(virtual_out);
		virtual_in = virtual_out = NULL;
		return -1;
	}
	set_term(virtual);
	resizeterm(rows, cols);
	return 0;
}

int
ui_init(const struct ui_opts *o, const struct theme *t, char *err,
    size_t errlen)
{
	const char *cs = nl_langinfo(CODESET);
	size_t i;

	if (o->cols <= 0 && (!isatty(STDIN_FILENO) ||
	    !isatty(STDOUT_FILENO))) {
		errbuf_set(err, errlen, "the console needs a terminal "
		    "(use 'calops check' or --plain for text output)");
		return -1;
	}
	utf8 = !o->ascii && cs != NULL && strcmp(cs, "UTF-8") == 0;
	text_ascii_ellipsis(!utf8);
	no_colour = o->no_colour;
	if (o->cols > 0 && virtual_open(o->cols, o->rows, err, errlen) != 0)
		return -1;
	if (o->cols <= 0 && initscr() == NULL) {
		errbuf_set(err, errlen, "cannot initialise the terminal");
		return -1;
	}
	active = true;
	fatal_set_cleanup(fatal_cleanup);
	for (i = 0; i < nitems(crash_signals); i++)
		signal(crash_signals[i], crash_handler);
	raw();			/* Ctrl-Z and Ctrl-C come as keys: see app.c */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	intrflush(stdscr, FALSE);
	curs_set(0);
	/* Over SSH an escape sequence may be split between packets: wait
	 * long enough for its rest that an arrow key never reads as Esc
	 * (ESCDELAY in the environment, in ms, decides instead). */
	if (getenv("ESCDELAY") == NULL)
		set_escdelay(UI_ESCDELAY_MS);
	if (!no_colour && has_colors()) {
		start_color();
		use_default_colors();
	}
	if (o->mouse) {
		mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED |
		    BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
		sgr_mouse_start();
	}
	ui_apply_theme(t);
	return 0;
}

void
ui_end(void)
{
	if (!active)
		return;
	active = false;
	curs_set(1);
	sgr_mouse(false);
	sgr_asked = false;
	endwin();
	if (virtual != NULL) {
		delscreen(virtual);
		fclose(virtual_in);
		fclose(virtual_out);
		virtual = NULL;
	}
}

void
ui_suspend(void)
{
	if (active) {
		def_prog_mode();
		sgr_mouse(false);
		endwin();
	}
}

void
ui_resume(void)
{
	if (active) {
		reset_prog_mode();
		sgr_mouse(true);
		clearok(curscr, TRUE);
		refresh();
	}
}

/* Columns of a sanitised string (which holds only printable text). */
static int
text_cols(const char *s)
{
	mbstate_t mb;
	wchar_t wc;
	size_t n;
	int cols = 0, w;

	memset(&mb, 0, sizeof mb);
	while (*s != '\0') {
		n = mbrtowc(&wc, s, MB_CUR_MAX, &mb);
		if (n == 0 || n == (size_t)-1 || n == (size_t)-2) {
			s++;
			cols++;
			memset(&mb, 0, sizeof mb);
			continue;
		}
		w = wcwidth(wc);
		cols += w > 0 ? w : 0;
		s += n;
	}
	return cols;
}

/* Bytes of sanitised text that fit in width columns, like text_cols. */
/* How many bytes of s fit in width columns; their columns into *used. */
static size_t
fit(const char *s, int width, int *used)
{
	mbstate_t mb;
	wchar_t wc;
	size_t n, off = 0;
	int cols = 0, w;

	memset(&mb, 0, sizeof mb);
	while (s[off] != '\0') {
		n = mbrtowc(&wc, s + off, MB_CUR_MAX, &mb);
		if (n == 0 || n == (size_t)-1 || n == (size_t)-2) {
			n = 1;
			w = 1;
			memset(&mb, 0, sizeof mb);
		} else
			w = wcwidth(wc) > 0 ? wcwidth(wc) : 0;
		if (cols + w > width)
			break;
		cols += w;
		off += n;
	}
	*used = cols;
	return off;
}

size_t
ui_fit(const char *s, int width)
{
	int used;

	return fit(s, width, &used);
}

size_t
ui_fit_words(const char *s, int width)
{
	size_t n = ui_fit(s, width), k;

	if (s[n] == '\0')
		return n;
	for (k = n; k > n / 2 && s[k - 1] != ' '; k--)
		;
	return k > n / 2 ? k : n;
}

int
ui_width(const char *s)
{
	int used;

	(void)fit(s, INT_MAX, &used);
	return used;
}

int
ui_put(WINDOW *w, int y, int x, int width, enum role r, const char *s,
    bool pad)
{
	char *clean;
	int cols;

	if (width <= 0)
		return 0;
	clean = text_sanitize(s != NULL ? s : "", s != NULL ? strlen(s) : 0,
	    (size_t)width);
	cols = text_cols(clean);
	wattrset(w, role_attr[r]);
	mvwaddstr(w, y, x, clean);
	for (; pad && cols < width; cols++)
		waddch(w, ' ');
	wattrset(w, role_attr[ROLE_NORMAL]);
	free(clean);
	return cols;
}

/* Bytes of the first character of s (at least one). */
static size_t
char_len(const char *s)
{
	mbstate_t mb;
	size_t n;

	memset(&mb, 0, sizeof mb);
	n = mbrtowc(NULL, s, MB_CUR_MAX, &mb);
	return n == 0 || n == (size_t)-1 || n == (size_t)-2 ? 1 : n;
}

int
ui_put_tail(WINDOW *w, int y, int x, int width, enum role r, const char *s)
{
	char *clean, *p;
	int cols;

	if (width <= 0)
		return 0;
	clean = text_sanitize_str(s != NULL ? s : "");
	p = clean;
	/* Dropped from the front, a character at a time, until the rest and
	 * the ellipsis fit. */
	if ((cols = text_cols(p)) > width) {
		while (*p != '\0' && cols + 1 > width) {
			p += char_len(p);
			cols = text_cols(p);
		}
		cols++;
	}
	wattrset(w, role_attr[r]);
	wmove(w, y, x);
	if (p != clean)
		waddstr(w, ui_glyph("…", "~"));
	waddstr(w, p);
	wattrset(w, role_attr[ROLE_NORMAL]);
	free(clean);
	return cols;
}

int
ui_putf(WINDOW *w, int y, int x, int width, enum role r, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	n = ui_put(w, y, x, width, r, s, false);
	free(s);
	return n;
}

void
ui_fill(WINDOW *w, int y, int x, enum role r)
{
	int cols = getmaxx(w);

	wattrset(w, role_attr[r]);
	wmove(w, y, x);
	for (; x < cols; x++)
		waddch(w, ' ');
	wattrset(w, role_attr[ROLE_NORMAL]);
}

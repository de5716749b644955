/* headless.c: the console on a virtual screen, driven by a script. */
#include "calops.h"

#include <curses.h>
#include <errno.h>
#include <wchar.h>

#include "base/lines.h"
#include "views/app/app_int.h"
#include "views/app/frame.h"
#include "views/app/headless.h"
#include "views/core/ui.h"

#define HEADLESS_GUARD_S	60
#define HEADLESS_MAX_STEPS	4096
#define HEADLESS_MAX_LINE	1024

enum step_kind {
	STEP_WAIT_BOARD,
	STEP_WAIT_TEXT,
	STEP_WAIT_GONE,
	STEP_KEYS,		/* keys[] */
	STEP_CLICK,
	STEP_DCLICK,
	STEP_RESIZE,
	STEP_DUMP,
	STEP_TIMEOUT,
};

struct step {
	enum step_kind	 kind;
	size_t		 line;
	char		*text;		/* wait text, dump file, key words,
					 * a click's row text */
	char		*under;		/* a click's column text, or NULL */
	int		*keys;
	size_t		 nkeys;
	int		 a, b;		/* row and column; cols and rows; s */
};

struct headless {
	char		*path;
	struct step	*steps;
	size_t		 n, next;
	int		 status;
	long		 guard;		/* the loop's timer, or 0 */
	long		 guard_s;
	struct app	*app;
};

/* The key a word names: one character, or a name as the help screen
 * shows it (action.c's global table), or -1. */
static int
key_named(const char *w)
{
	const struct keybinding *k;

	if (w[0] != '\0' && w[1] == '\0')
		return (unsigned char)w[0];
	if (strcmp(w, "BSpace") == 0)
		return KEY_BACKSPACE;
	for (k = action_global_keys; k->key != 0; k++)
		if (k->keyname != NULL && strcmp(k->keyname, w) == 0)
			return k->key;
	return -1;
}

static int
parse_keys(struct step *s, char *words, char *err, size_t errlen)
{
	char *w, *save = NULL;
	int key;

	for (w = strtok_r(words, " \t", &save); w != NULL;
	    w = strtok_r(NULL, " \t", &save)) {
		if ((key = key_named(w)) < 0) {
			errbuf_set(err, errlen, "no key is called '%s' (the "
			    "help screen's names, or one character)", w);
			return -1;
		}
		s->keys = xreallocarray(s->keys, s->nkeys + 1,
		    sizeof *s->keys);
		s->keys[s->nkeys++] = key;
	}
	if (s->nkeys == 0) {
		errbuf_set(err, errlen, "'key' needs at least one key");
		return -1;
	}
	return 0;
}

/* One number in [lo, hi], the whole of arg. */
static int
parse_one(const char *arg, int lo, int hi, int *v)
{
	long x;
	char *end;

	errno = 0;
	x = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || x < lo || x > hi)
		return -1;
	*v = (int)x;
	return 0;
}

/* Two numbers in [lo, hi], "A B" or "AxB". */
static int
parse_two(const char *arg, int lo, int hi, int *a, int *b)
{
	long x, y;
	char *end;

	errno = 0;
	x = strtol(arg, &end, 10);
	if (end == arg || (*end != ' ' && *end != 'x'))
		return -1;
	arg = end + 1;
	y = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || x < lo || x > hi ||
	    y < lo || y > hi)
		return -1;
	*a = (int)x;
	*b = (int)y;
	return 0;
}

int
headless_parse_size(const char *s, int *cols, int *rows)
{
	if (strchr(s, ' ') != NULL || parse_two(s, 1, 1000, cols, rows) != 0)
		return -1;
	return *cols >= 20 && *rows >= 5 ? 0 : -1;
}

/* One line of the script into s; -1 with err. */
static int
parse_step(struct step *s, char *line, char *err, size_t errlen)
{
	char *arg = line + strcspn(line, " \t"), *under;

	if (*arg != '\0')
		*arg++ = '\0';
	arg += strspn(arg, " \t");
	if (strcmp(line, "wait") == 0 && strcmp(arg, "board") == 0)
		s->kind = STEP_WAIT_BOARD;
	else if (strcmp(line, "wait") == 0 && strncmp(arg, "text ", 5) == 0) {
		s->kind = STEP_WAIT_TEXT;
		s->text = xstrdup(arg + 5);
	} else if (strcmp(line, "wait") == 0 &&
	    strncmp(arg, "gone ", 5) == 0) {
		s->kind = STEP_WAIT_GONE;
		s->text = xstrdup(arg + 5);
	} else if (strcmp(line, "key") == 0) {
		s->kind = STEP_KEYS;
		s->text = xstrdup(arg);
		return parse_keys(s, arg, err, errlen);
	} else if (strcmp(line, "type") == 0 && *arg != '\0') {
		s->kind = STEP_KEYS;
		s->text = xstrdup(arg);
		for (; *arg != '\0'; arg++) {
			s->keys = xreallocarray(s->keys, s->nkeys + 1,
			    sizeof *s->keys);
			s->keys[s->nkeys++] = (unsigned char)*arg;
		}
	} else if ((strcmp(line, "click") == 0 ||
	    strcmp(line, "dclick") == 0) && (parse_two(arg, 0, 999, &s->a,
	    &s->b) == 0 || (strncmp(arg, "on ", 3) == 0 && arg[3] != '\0'))) {
		s->kind = line[0] == 'd' ? STEP_DCLICK : STEP_CLICK;
		if (strncmp(arg, "on ", 3) == 0) {
			s->text = xstrdup(arg + 3);
			if ((under = strstr(s->text, " under ")) != NULL) {
				*under = '\0';
				s->under = xstrdup(under + 7);
			}
		}
	}
	else if (strcmp(line, "resize") == 0 &&
	    headless_parse_size(arg, &s->a, &s->b) == 0)
		s->kind = STEP_RESIZE;
	else if (strcmp(line, "dump") == 0 && *arg != '\0') {
		s->kind = STEP_DUMP;
		s->text = xstrdup(arg);
	} else if (strcmp(line, "timeout") == 0 &&
	    parse_one(arg, 1, 3600, &s->a) == 0)
		s->kind = STEP_TIMEOUT;
	else {
		errbuf_set(err, errlen, "cannot read the step '%s%s%s'", line,
		    *arg != '\0' ? " " : "", arg);
		return -1;
	}
	return 0;
}

struct headless *
headless_load(const char *path, char *err, size_t errlen)
{
	struct headless *h = xcalloc(1, sizeof *h);
	struct lines in;
	const char *line;
	char *copy, why[256];
	size_t len;
	bool cut;
	int r;

	h->path = xstrdup(path);
	h->guard_s = HEADLESS_GUARD_S;
	if (lines_open(&in, path, HEADLESS_MAX_LINE) != 0) {
		errbuf_set(err, errlen, "cannot read '%s': %s", path,
		    strerror(errno));
		headless_free(h);
		return NULL;
	}
	while ((r = lines_next(&in, &line, &len, &cut)) == 1) {
		line += strspn(line, " \t");
		if (*line == '\0' || *line == '#')
			continue;
		if (cut || h->n == HEADLESS_MAX_STEPS) {
			errbuf_set(err, errlen, "%s:%zu: %s", path, in.lineno,
			    cut ? "line too long" : "too many steps");
			goto fail;
		}
		h->steps = xreallocarray(h->steps, h->n + 1, sizeof *h->steps);
		memset(&h->steps[h->n], 0, sizeof h->steps[h->n]);
		h->steps[h->n].line = in.lineno;
		copy = xstrdup(line);
		copy[strcspn(copy, "\r")] = '\0';
		r = parse_step(&h->steps[h->n++], copy, why, sizeof why);
		free(copy);
		if (r != 0) {
			errbuf_set(err, errlen, "%s:%zu: %s", path, in.lineno,
			    why);
			goto fail;
		}
	}
	if (r < 0) {
		errbuf_set(err, errlen, "cannot read '%s': %s", path,
		    strerror(errno));
		goto fail;
	}
	lines_close(&in);
	return h;
fail:
	lines_close(&in);
	headless_free(h);
	return NULL;
}

void
headless_free(struct headless *h)
{
	size_t i;

	if (h == NULL)
		return;
	if (h->guard != 0 && h->app != NULL)
		loop_del_timer(h->app->loop, h->guard);
	for (i = 0; i < h->n; i++) {
		free(h->steps[i].text);
		free(h->steps[i].under);
		free(h->steps[i].keys);
	}
	free(h->steps);
	free(h->path);
	free(h);
}

int
headless_status(const struct headless *h)
{
	return h->status;
}

/* Row y of the virtual screen as UTF-8, trailing blanks cut. */
static void
screen_row(int y, char *buf, size_t len)
{
	wchar_t w[HEADLESS_MAX_LINE];
	mbstate_t mb;
	size_t off = 0, n;
	int i, cols = COLS < HEADLESS_MAX_LINE ? COLS : HEADLESS_MAX_LINE - 1;
	char mbs[MB_LEN_MAX];

	buf[0] = '\0';
	if (mvwinnwstr(stdscr, y, 0, w, cols) == ERR)
		return;
	memset(&mb, 0, sizeof mb);
	for (i = 0; w[i] != L'\0'; i++) {
		if ((n = wcrtomb(mbs, w[i], &mb)) == (size_t)-1) {
			mbs[0] = '?';
			n = 1;
			memset(&mb, 0, sizeof mb);
		}
		if (off + n >= len)
			break;
		memcpy(buf + off, mbs, n);
		off += n;
	}
	while (off > 0 && buf[off - 1] == ' ')
		off--;
	buf[off] = '\0';
}

/* Where text first shows on the screen: its row, and the column of its
 * first character; false when it does not. */
static bool
find(const char *text, int *y, int *x)
{
	char row[HEADLESS_MAX_LINE * MB_LEN_MAX], *at;
	wchar_t w[HEADLESS_MAX_LINE];
	size_t n;

	for (*y = 0; *y < LINES; (*y)++) {
		screen_row(*y, row, sizeof row);
		if ((at = strstr(row, text)) == NULL)
			continue;
		*at = '\0';
		n = mbstowcs(w, row, nitems(w) - 1);
		*x = n == (size_t)-1 ? (int)strlen(row) : wcswidth(w, n);
		return true;
	}
	return false;
}

static bool
on_screen(const char *text)
{
	int y, x;

	return find(text, &y, &x);
}

/* Whether row y shows the selection anywhere (the selection colour, or
 * reverse video without colours): a dump marks it, so that a golden copy
 * says which line a key or a click selected. */
static bool
row_selected(int y)
{
	attr_t want = ui_attr(ROLE_SELECTION) & (A_COLOR | A_REVERSE);
	chtype ch;
	int x;

	if (want == 0)
		return false;
	for (x = 0; x < COLS; x++) {
		ch = mvwinch(stdscr, y, x);
		if ((ch & (A_COLOR | A_REVERSE)) == want)
			return true;
	}
	return false;
}

/* The screen as text, a row a line, each after a mark: '>' where the row
 * shows the selection, else a blank (none on an empty row). */
static int
dump(FILE *f)
{
	char row[HEADLESS_MAX_LINE * MB_LEN_MAX];
	bool sel;
	int y;

	for (y = 0; y < LINES; y++) {
		screen_row(y, row, sizeof row);
		sel = row_selected(y);
		/* No blank at the end of a line: an empty row is empty. */
		if (fprintf(f, "%s%s\n", sel ? ">" : row[0] != '\0' ? " " : "",
		    row) < 0)
			return -1;
	}
	return fflush(f);
}

/* Whether a wait step holds now. */
static bool
holds(const struct step *s, const struct app *a)
{
	switch (s->kind) {
	case STEP_WAIT_BOARD:
		return boardsrc_idle(a->src) && (app_board(a)->now.valid ||
		    app_board(a)->error != NULL);
	case STEP_WAIT_TEXT:
		return on_screen(s->text);
	case STEP_WAIT_GONE:
		return !on_screen(s->text);
	default:
		return true;
	}
}

static const char *
step_name(const struct step *s)
{
	static const char *const names[] = { "wait board", "wait text",
	    "wait gone", "key", "click", "dclick", "resize", "dump",
	    "timeout" };

	return names[s->kind];
}

/* The guard: a wait that never came true ends the console, saying
 * which. */
static void
guard_fired(struct loop *l, void *arg)
{
	struct headless *h = arg;
	const struct step *s = &h->steps[h->next];

	h->guard = 0;
	fprintf(stderr, "calops: %s:%zu: '%s%s%s' still waits after %lds; "
	    "the screen:\n", h->path, s->line, step_name(s),
	    s->text != NULL ? " " : "", s->text != NULL ? s->text : "",
	    h->guard_s);
	dump(stderr);
	h->status = 3;
	loop_stop(l);
}

static void
arm(struct headless *h)
{
	if (h->guard != 0)
		loop_del_timer(h->app->loop, h->guard);
	h->guard = loop_add_timer(h->app->loop, h->guard_s * 1000,
	    guard_fired, h);
}

void
headless_start(struct headless *h, struct app *a)
{
	h->app = a;
	arm(h);
}

/* Do one action step; -1 when it failed (the status says how). */
static int
act(struct headless *h, struct app *a, const struct step *s)
{
	FILE *f;
	size_t i;
	int y, x, uy;

	switch (s->kind) {
	case STEP_KEYS:
		for (i = 0; i < s->nkeys && a->depth > 0; i++) {
			app_key(a, s->keys[i]);
			frame_paint(a);
		}
		return 0;
	case STEP_CLICK:
	case STEP_DCLICK:
		if (s->text != NULL && (!find(s->text, &y, &x) ||
		    (s->under != NULL && !find(s->under, &uy, &x)))) {
			fprintf(stderr, "calops: %s:%zu: no '%s' on the screen "
			    "to click\n", h->path, s->line, s->under != NULL &&
			    find(s->text, &y, &x) ? s->under : s->text);
			h->status = 2;
			return -1;
		}
		app_click(a, s->text != NULL ? y : s->a, s->text != NULL ? x :
		    s->b, s->kind == STEP_DCLICK);
		return 0;
	case STEP_RESIZE:
		resizeterm(s->b, s->a);
		app_key(a, KEY_RESIZE);
		return 0;
	case STEP_TIMEOUT:
		h->guard_s = s->a;
		return 0;
	case STEP_DUMP:
		a->dirty = true;
		frame_paint(a);
		f = strcmp(s->text, "-") == 0 ? stdout : fopen(s->text, "w");
		if (f == NULL || dump(f) != 0 || (f != stdout &&
		    fclose(f) != 0)) {
			fprintf(stderr, "calops: %s:%zu: cannot write '%s': "
			    "%s\n", h->path, s->line, s->text,
			    strerror(errno));
			h->status = 2;
			return -1;
		}
		return 0;
	default:
		return 0;
	}
}

void
headless_run(struct headless *h, struct app *a)
{
	const struct step *s;

	while (h->next < h->n && a->depth > 0) {
		s = &h->steps[h->next];
		frame_paint(a);
		if (!holds(s, a))
			return;
		if (act(h, a, s) != 0)
			break;
		h->next++;
		arm(h);
	}
	loop_stop(a->loop);
}

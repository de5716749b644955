/*
 * frame.c: what is around every screen: the title line with the tab bar,
 * the banners under it (BLOCKED_COMPILER, the demo, an evaluation error),
 * the status bar with the prompt, progress and messages; and the one paint
 * per loop iteration that draws them and the top view.
 */
#include "calops.h"

#include <math.h>
#include <time.h>

#include "alert/alertjournal.h"
#include "base/text.h"
#include "lab/labmodel.h"
#include "model/alertsend.h"
#include "remote/transport.h"
#include "views/app/app_int.h"
#include "views/app/bench.h"
#include "views/app/frame.h"
#include "views/core/ui.h"
#include "views/soak.h"

#define WHERE_PATH_MIN	8	/* columns the title's host leaves its path */

/* Tab i's label: "[5 Soak ⚠3]" on, " 5 Soak ⚠3 " off with titles, " 5⚠3 "
 * by digits; the badge is the count of the soaks' open alerts, on the
 * Soak tab. */
static int
tab_label(const struct app *a, size_t i, bool on, bool title, char *buf,
    size_t len)
{
	char badge[32] = "";

	/* The soaks' own: the journal's are the Alerts screen's. */
	if (view_tab(i) == &soak_view && a->alerts_open > a->journal_open)
		snprintf(badge, sizeof badge, "%s%s%zu", title ? " " : "",
		    ui_glyph("⚠", "!"), a->alerts_open - a->journal_open);
	snprintf(buf, len, "%s%zu%s%s%s%s", on ? "[" : " ", i + 1,
	    title ? " " : "", title ? view_tab(i)->title : "", badge,
	    on ? "]" : " ");
	return ui_width(buf);
}

/* The columns of the tab bar with the other tabs by their digit. */
static int
tabs_digits_width(const struct app *a)
{
	char label[48];
	int digits = 0;
	size_t i;
	bool on;

	for (i = 0; i < view_ntabs(); i++) {
		on = a->stack[0].ops == view_tab(i);
		digits += tab_label(a, i, on, on, label, sizeof label);
	}
	return digits;
}

/* The tab bar, right-aligned after column x: every tab with its title;
 * when they do not all fit, the others by their digit only; when even that
 * does not fit, only the current one (it must never be the one left out). */
static void
draw_tabs(struct app *a, int x)
{
	char label[48];
	int w, full = 0, digits = tabs_digits_width(a), lw;
	size_t i;
	bool on, titles, others;

	for (i = 0; i < view_ntabs(); i++)
		full += tab_label(a, i, false, true, label, sizeof label);
	titles = x + 1 + full <= a->cols;
	others = titles || x + 1 + digits <= a->cols;
	memset(a->tab_x1, 0, sizeof a->tab_x1);
	for (i = view_ntabs(), w = a->cols; i-- > 0;) {
		on = a->stack[0].ops == view_tab(i);
		if (!on && !others)
			continue;
		lw = tab_label(a, i, on, on || titles, label, sizeof label);
		w -= lw;
		if (w <= x + 1)
			break;
		if (i < nitems(a->tab_x1)) {
			a->tab_x0[i] = w;
			a->tab_x1[i] = w + lw;
		}
		ui_putf(stdscr, 0, w, lw, on ? ROLE_SELECTION : ROLE_TITLE,
		    "%s", label);
	}
}

int
frame_tab_at(const struct app *a, int x)
{
	size_t i;

	for (i = 0; i < nitems(a->tab_x1) && i < view_ntabs(); i++)
		if (x >= a->tab_x0[i] && x < a->tab_x1[i])
			return (int)i;
	return -1;
}

static void
draw_title(struct app *a)
{
	const struct board_eval *e = &app_board(a)->now;
	const struct board_gate *g = NULL;
	size_t i, pass = 0, tab = view_tab_index(a->stack[0].ops);
	char cur[48], status[160], *where;
	int x, room, room_status, rest, n;

	/* The current tab is never left out: the title gives way to it. */
	room = room_status = a->cols - 2 - tab_label(a, tab, true, true, cur,
	    sizeof cur);
	ui_fill(stdscr, 0, 0, ROLE_TITLE);
	x = ui_putf(stdscr, 0, 0, a->cols, ROLE_TITLE, " calops  ");
	/* Which workspace, as host:path (the path alone with no lab file):
	 * two consoles on two copies of a model look alike otherwise.  The
	 * path is cut from the front, where it says least; the host stays
	 * whole while it leaves the path a few columns. */
	where = a->ws_lab_host != NULL ? xasprintf("%s:", a->ws_lab_host) :
	    NULL;
	status[0] = '\0';
	if (e->valid) {
		for (i = 0; i < GATE_COUNT; i++) {
			pass += e->gates[i].status == GS_PASS;
			if (e->project_status != NULL &&
			    strcmp(e->project_status, e->gates[i].id) == 0)
				g = &e->gates[i];
		}
		/* "G7" alone says little: the gate the project is at, by
		 * name, and how far the board is. */
		if (g != NULL)
			snprintf(status, sizeof status, "  at %s %s %s %zu/%d "
			    "pass", g->id, g->name, ui_glyph("·", "-"), pass,
			    GATE_COUNT);
		else
			snprintf(status, sizeof status, "  %s %s %zu/%d pass",
			    e->project_status != NULL ? e->project_status : "?",
			    ui_glyph("·", "-"), pass, GATE_COUNT);
	}
	/* Where the project stands comes first: the workspace and the model
	 * id take what it leaves, each at most its share of the line, and
	 * leave the other tabs their digits when the line has room for all
	 * of it (the current tab alone otherwise). */
	if (a->cols - 2 - tabs_digits_width(a) - x - ui_width(status) >= 24)
		room = a->cols - 2 - tabs_digits_width(a);
	rest = (room - x - ui_width(status)) / 2;
	rest = rest < 0 ? 0 : rest < a->cols / 6 ? rest : a->cols / 6;
	n = ui_width(a->ws);
	if (where != NULL && ui_width(where) + (n < WHERE_PATH_MIN ? n :
	    WHERE_PATH_MIN) <= rest) {
		n = ui_put(stdscr, 0, x, rest, ROLE_TITLE, where, false);
		x += n;
		rest -= n;
	}
	x += ui_put_tail(stdscr, 0, x, rest, ROLE_TITLE, a->ws);
	free(where);
	rest = room - x - ui_width(status);
	if (e->valid && e->model_id != NULL && rest > 0)
		x += ui_putf(stdscr, 0, x, rest < a->cols / 5 ? rest :
		    a->cols / 5, ROLE_TITLE, "  %s", e->model_id);
	if (status[0] != '\0')
		x += ui_putf(stdscr, 0, x, room_status - x, ROLE_TITLE, "%s",
		    status);
	draw_tabs(a, x);
}

/* Banners under the title; returns how many rows they took. */
static int
draw_banners(struct app *a)
{
	const struct board *b = app_board(a);
	int row = 1;

	if (b->now.valid && b->now.project_status != NULL &&
	    strcmp(b->now.project_status, "BLOCKED_COMPILER") == 0) {
		ui_fill(stdscr, row, 0, ROLE_BANNER);
		ui_putf(stdscr, row++, 1, a->cols - 2, ROLE_BANNER, "%s "
		    "BLOCKED_COMPILER %s no launch date may be promised",
		    ui_glyph("⊘", "#"), ui_glyph("—", "-"));
	}
	if (b->error != NULL) {
		ui_fill(stdscr, row, 0, ROLE_ERROR);
		ui_put(stdscr, row++, 1, a->cols - 2, ROLE_ERROR, b->error,
		    false);
	}
	if (a->demo && row < 3) {
		ui_fill(stdscr, row, 0, ROLE_DIM);
		ui_putf(stdscr, row++, 1, a->cols - 2, ROLE_DIM, "demo lab: a "
		    "private copy of the example, the simulator as runner %s "
		    "r on G7/G9 runs a job %s your own: 'calops PATH'",
		    ui_glyph("—", "-"), ui_glyph("·", "-"));
	}
	return row - 1;
}

/*
 * The protected hosts (lab.h): "lab3 protected " while jobs there are
 * refused, "writes lab3 " once --write allowed them; the first one named,
 * and how many more.
 */
static void
protected_mark(struct app *a, char *buf, size_t len)
{
	const struct lab *lab = a->labm != NULL ? labmodel_lab(a->labm) :
	    NULL;
	const char *first[2] = { NULL, NULL };
	size_t i, n[2] = { 0, 0 };
	int k, off = 0;

	buf[0] = '\0';
	for (i = 0; lab != NULL && i < lab->nhosts; i++) {
		if (!lab->hosts[i].protected)
			continue;
		k = labmodel_host_protected(a->labm, lab->hosts[i].name);
		if (n[k]++ == 0)
			first[k] = lab->hosts[i].name;
	}
	if (n[1] > 0)
		off = snprintf(buf, len, "%s%s protected ", first[1], n[1] > 1 ?
		    "+" : "");
	if (n[0] > 0 && off >= 0 && (size_t)off < len)
		snprintf(buf + off, len - (size_t)off, "writes %s%s ", first[0],
		    n[0] > 1 ? "+" : "");
}

/* The board of a workspace on an SSH host that is not up is not live:
 * "host1 reconnecting: board of 14:02 " (protocol.md §6). */
static void
remote_mark(struct app *a, char *buf, size_t len)
{
	struct transport_status st;
	struct transport *t;
	char err[64], when[16] = "none yet";
	struct tm tm;
	time_t at;

	if (a->ws_host == NULL || len == 0 || (t = labmodel_transport(a->labm,
	    a->ws_host, err, sizeof err)) == NULL)
		return;
	transport_status(t, &st);
	if (st.state == TRANSPORT_UP)
		return;
	at = (time_t)app_board(a)->now.finished_at;
	if (app_board(a)->now.valid && at > 0 && localtime_r(&at, &tm) != NULL)
		strftime(when, sizeof when, "%H:%M:%S", &tm);
	snprintf(buf, len, "%s %s: board of %s ", a->ws_host,
	    transport_state_name(st.state), when);
}

#define QUESTION_ROWS	3	/* at most, above the answer's line */

/* A long question over the rows above row y: each of its parts (a newline
 * in it ends one: where the question wants a break) wrapped at blanks, as
 * many rows as it needs up to QUESTION_ROWS, the last one cut with an
 * ellipsis past that. */
static void
draw_question(struct app *a, int y)
{
	char *rows[QUESTION_ROWS], *part, *safe, *copy = xstrdup(a->ask);
	char *next = copy;
	const char *p;
	size_t fit;
	int n = 0, i;

	while (n < QUESTION_ROWS && n < y && (part = strsep(&next, "\n")) !=
	    NULL) {
		safe = text_sanitize_str(part);
		for (p = safe; n < QUESTION_ROWS && n < y && *p != '\0';
		    n++) {
			while (*p == ' ')
				p++;
			fit = ui_fit_words(p, a->cols);
			/* the last row takes the rest, cut by ui_put */
			if (fit == 0 || n == QUESTION_ROWS - 1 || n == y - 1)
				fit = strlen(p);
			rows[n] = xstrndup(p, fit);
			p += fit;
		}
		free(safe);
	}
	for (i = 0; i < n; i++) {
		ui_fill(stdscr, y - n + i, 0, ROLE_STATUSBAR);
		ui_put(stdscr, y - n + i, 0, a->cols, ROLE_STATUSBAR, rows[i],
		    false);
		free(rows[i]);
	}
	free(copy);
}

/* The message in room columns; one cut short says where it is whole. */
static int
draw_message(struct app *a, int y, int room)
{
	static const char more[] = " (:messages)";
	enum role r = a->message_error ? ROLE_ERROR : ROLE_STATUSBAR;
	char *clean = text_sanitize_str(a->message);
	int w = ui_width(clean), x;

	free(clean);
	if (w <= room || room < 40)
		return ui_put(stdscr, y, 1, room, r, a->message, false);
	x = ui_put(stdscr, y, 1, room - (int)strlen(more), r, a->message,
	    false);
	return x + ui_putf(stdscr, y, 1 + x, (int)strlen(more),
	    ROLE_STATUSBAR, "%s", more);
}

static void
draw_status(struct app *a)
{
	struct view *v = &a->stack[a->depth - 1];
	const struct board *b = app_board(a);
	int y = a->rows - 1, x = 0, room, fw = 0, rw;
	char right[400], marks[256], prot[160], s[256] = "", how[128];
	char alerts[64] = "";
	/* Another console follows the lab's jobs: this one only watches. */
	bool watching = a->labm != NULL && labmodel_watching(a->labm);

	ui_fill(stdscr, y, 0, ROLE_STATUSBAR);
	/* A question may name a host, a job or a chip from a lab host.  One
	 * too long for the bar (a host key's fingerprint must be read whole,
	 * and what to type after it) takes the lines above it, wrapped at
	 * blanks, the answer typed below it. */
	if (a->mode == MODE_ASK && (strchr(a->ask, '\n') != NULL ||
	    ui_width(a->ask) > a->cols - 16) && y > 0) {
		draw_question(a, y);
		x = 0;
	} else if (a->mode == MODE_ASK)
		x = ui_put(stdscr, y, 0, a->cols - 16, ROLE_STATUSBAR, a->ask,
		    false);
	if (a->mode != MODE_NORMAL) {
		if (a->mode != MODE_ASK)
			x = ui_putf(stdscr, y, 0, 1, ROLE_STATUSBAR, "%c",
			    a->mode == MODE_FILTER ? '/' : ':');
		/* A secret shows nothing, not even its length. */
		if (!a->ask_secret)
			x += ui_put(stdscr, y, x, a->cols - 2, ROLE_STATUSBAR,
			    a->input, false);
		/* What Tab found, beside the input. */
		if (a->message[0] != '\0' && a->cols - x - 3 > 0)
			ui_put(stdscr, y, x + 2, a->cols - x - 3,
			    a->message_error ? ROLE_ERROR : ROLE_STATUSBAR,
			    a->message, false);
		curs_set(1);
		move(y, x);
		return;
	}
	curs_set(0);
	/* The marks of what this console may do stay through an evaluation;
	 * the progress takes the watcher's place. */
	protected_mark(a, prot, sizeof prot);
	remote_mark(a, prot + strlen(prot), sizeof prot - strlen(prot));
	if (a->alerts_open > 0)
		snprintf(alerts, sizeof alerts, "%s %zu open alert%s (! shows) %s",
		    ui_glyph("⚠", "!"), a->alerts_open, a->alerts_open == 1 ?
		    "" : "s", ui_glyph("· ", "- "));
	snprintf(marks, sizeof marks, "%s%s%s%s%s%s%s", alerts,
	    a->readonly ? "read-only " : "",
	    a->readonly ? ui_glyph("· ", "- ") : "",
	    watching ? "jobs watched " : "",
	    watching ? ui_glyph("· ", "- ") : "", prot,
	    prot[0] != '\0' ? ui_glyph("· ", "- ") : "");
	if (b->running) {
		static const char *const spin[] = { "|", "/", "-", "\\" };

		if (b->progress_total > 0)
			snprintf(right, sizeof right, "%s%s evaluating %3.0f%% ",
			    marks, spin[a->spinner % 4], 100.0 *
			    (double)b->progress_done /
			    (double)b->progress_total);
		else
			snprintf(right, sizeof right, "%s%s evaluating ", marks,
			    spin[a->spinner % 4]);
	} else {
		boardsrc_watch_text(a->src, how, sizeof how);
		snprintf(right, sizeof right, "%s%s ? help ", marks, how);
	}
	rw = ui_width(right);
	/* An applied filter is always shown: it takes its room first. */
	room = a->cols - 2 - rw;
	if (a->filter[0] != '\0') {
		fw = (int)strlen("filter: ") + (int)strlen(a->filter);
		if (fw > room / 2)
			fw = room / 2;
		room -= fw + 1;
	}
	if (a->message[0] != '\0')
		x = draw_message(a, y, room);
	else if (v->ops->status != NULL) {
		v->ops->status(a, v->data, s, sizeof s);
		x = ui_put(stdscr, y, 1, room, ROLE_STATUSBAR, s, false);
	}
	if (a->filter[0] != '\0')
		x += ui_putf(stdscr, y, x + 2, fw, ROLE_MATCH, "filter: %s",
		    a->filter);
	x = a->cols - rw > x ? a->cols - rw : x;
	ui_putf(stdscr, y, x, a->cols - x, ROLE_STATUSBAR, "%s", right);
}

/* The frame timer: the loop runs before_sleep again, which paints. */
static void
frame_slot(struct loop *l, void *arg)
{
	struct app *a = arg;

	(void)l;
	a->frame_timer = 0;
}

bool
frame_due(struct app *a)
{
	int64_t now = loop_now_ms(), wait;

	if (!a->dirty)
		return false;
	wait = FRAME_MIN_MS - (now - a->painted_ms);
	if (a->keyed || wait <= 0)
		return true;
	/* A soak at demo speed changes the model hundreds of times a
	 * second: over SSH every frame is bytes on the link. */
	if (a->frame_timer == 0)
		a->frame_timer = loop_add_timer(a->loop, wait, frame_slot, a);
	return false;
}

/* The open alerts every screen shows; the bell when one opened since the
 * last frame, if the config asks for it. */
static void
alerts_seen(struct app *a)
{
	const struct alertjournal *j = a->alerts != NULL ?
	    alertsend_journal(a->alerts) : NULL;
	struct soak_alert_count c;
	size_t i;

	soak_alerts(a->labm, &c);
	/* The lab's rules' alerts (the journal's ongoing) count with the
	 * soaks' own; those the journal ever held count as opened. */
	a->journal_open = 0;
	for (i = 0; j != NULL && i < j->n; i++)
		a->journal_open += isnan(j->e[i].end);
	c.open += a->journal_open;
	c.opened += j != NULL ? j->n + j->dropped : 0;
	if (c.opened > a->alerts_opened && c.open > 0 &&
	    a->config.alert_bell)
		beep();
	a->alerts_opened = c.opened;
	a->alerts_open = c.open;
}

void
frame_paint(struct app *a)
{
	struct view *v;
	int banner;
	int64_t t0;

	if (!a->dirty || a->depth == 0)
		return;
	t0 = bench_active() ? bench_now() : 0;
	alerts_seen(a);
	a->dirty = false;
	a->keyed = false;
	a->painted_ms = loop_now_ms();
	getmaxyx(stdscr, a->rows, a->cols);
	if (a->relayout) {
		clearok(curscr, TRUE);
		a->relayout = false;
	}
	erase();
	if (a->cols < UI_MIN_COLS || a->rows < UI_MIN_ROWS) {
		/* What it needs first: a tiny terminal cuts the line. */
		ui_putf(stdscr, 0, 0, a->cols, ROLE_ERROR, "needs %dx%d %s "
		    "terminal too small (%dx%d)", UI_MIN_COLS, UI_MIN_ROWS,
		    ui_glyph("·", "-"), a->cols, a->rows);
		refresh();
		return;
	}
	v = &a->stack[a->depth - 1];
	draw_title(a);
	banner = draw_banners(a);
	v->ops->draw(a, v->data, 1 + banner, a->rows - 2 - banner, a->cols);
	draw_status(a);
	if (bench_active())
		bench_refresh(a, t0);
	else
		refresh();
}

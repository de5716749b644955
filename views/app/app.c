/* app.c: the console: its loop, the view stack, keys and clicks, the
 * questions hosts ask; the board comes from a board source (boardsrc.h). */
#include "calops.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "base/text.h"
#include "loop/child.h"
#include "model/alertsend.h"
#include "model/boardsrc.h"
#include "model/fleet.h"
#include "remote/transport.h"
#include "views/app/app_int.h"
#include "views/app/bench.h"
#include "views/app/frame.h"
#include "views/app/prompt.h"
#include "views/app/reportrun.h"
#include "views/core/clip.h"
#include "views/core/ui.h"
#include "views/folder.h"
#include "views/pager.h"
#include "ws/workspace.h"

#define SPINNER_MS 120

/* ---- the board's source ---- */

static void
board_changed(struct boardsrc *src, int what, void *arg)
{
	struct app *a = arg;
	const struct board *b = boardsrc_board(src);

	/* What the last evaluation said is stale now. */
	if ((what & BOARDSRC_BEGAN) && a->message_eval)
		a->message[0] = '\0';
	if ((what & BOARD_CHANGED) && b->now.valid)
		labmodel_set_sla(a->labm, b->now.sla_ttft_ms_p99,
		    b->now.sla_tpot_ms_p99, b->now.sla_success_rate_min);
	if (what & BOARD_CHANGED)
		app_refresh_views(a);
	a->dirty = true;
}

/* The evaluation's complaints, the watch's, the history's: the status
 * line's, until the next evaluation for the evaluation's own. */
static void
board_said(struct boardsrc *src, bool eval, const char *msg, void *arg)
{
	struct app *a = arg;

	(void)src;
	app_message(a, true, "%s", msg);
	a->message_eval = eval;
}

/* The board of the workspace a->ws on a->ws_lab_host: on this machine a
 * child of this program, else `calops check` on the host; watched, its
 * evaluations kept in the history. */
static struct boardsrc *
board_source(struct app *a)
{
	const struct boardsrc_opts o = { .host = a->ws_lab_host,
	    .ws = a->ws, .self = a->self, .watch = true,
	    .debounce_ms = a->config.refresh_debounce_ms,
	    .history = a->config.history };
	const struct boardsrc_cb cb = { board_changed, board_said, a };

	return boardsrc_new(a->loop, a->labm, &o, &cb);
}

/* Evaluate in a child or on the host, never in the UI's thread of
 * control. */
void
app_evaluate(struct app *a)
{
	/* The lab model speaks while it opens, before the board is made. */
	if (a->src != NULL)
		boardsrc_evaluate(a->src);
}

/* ---- views and the stack ---- */

void
app_push(struct app *a, const struct view_ops *ops, const void *arg)
{
	if (a->depth == APP_STACK_MAX)
		return;
	a->stack[a->depth].ops = ops;
	a->stack[a->depth].data = ops->open(a, arg);
	a->depth++;
	a->dirty = true;
}

static void
pop(struct app *a)
{
	struct view *v = &a->stack[--a->depth];

	v->ops->close(v->data);
	a->dirty = true;
}

/* Close the top screen; the one under it is told it is on top again. */
static void
back(struct app *a)
{
	struct view *v;

	pop(a);
	v = &a->stack[a->depth - 1];
	if (v->ops->resume != NULL)
		v->ops->resume(a, v->data);
}

void
app_close(struct app *a, const void *data)
{
	if (a->depth > 1 && a->stack[a->depth - 1].data == data)
		back(a);
}

/* Why a screen on the stack holds what must not be dropped (view.h:
 * holding), or NULL. */
const char *
app_holding(const struct app *a)
{
	const char *why;
	int i;

	for (i = 0; i < a->depth; i++) {
		if (a->stack[i].ops->holding != NULL && (why =
		    a->stack[i].ops->holding(a->stack[i].data)) != NULL)
			return why;
	}
	return NULL;
}

/* Switch the root screen (Tab, digits, :board), closing what was above. */
void
app_switch_tab(struct app *a, const struct view_ops *ops)
{
	const char *why;

	/* A screen that holds what must not be dropped keeps the console on
	 * it, saying why. */
	if ((why = app_holding(a)) != NULL) {
		app_message(a, true, "%s", why);
		return;
	}
	while (a->depth > 0)
		pop(a);
	a->filter[0] = '\0';
	app_push(a, ops, NULL);
}

static size_t
tab_index(const struct app *a)
{
	size_t i = view_tab_index(a->stack[0].ops);

	return i != SIZE_MAX ? i : 0;
}

void
app_next_tab(struct app *a)
{
	app_switch_tab(a, view_tab((tab_index(a) + 1) % view_ntabs()));
}

/* Keep a message whole for `:messages`; the same one again only moves its
 * time (a sort key pressed five times is one message). */
static void
history_add(struct app *a, char *text, bool error)
{
	struct app_said *s;

	if (a->nhistory > 0) {
		s = &a->history[(a->nhistory - 1) % APP_HISTORY_KEPT];
		if (s->error == error && strcmp(s->text, text) == 0) {
			s->at = time(NULL);
			free(text);
			return;
		}
	}
	s = &a->history[a->nhistory++ % APP_HISTORY_KEPT];
	free(s->text);
	s->text = text;
	s->at = time(NULL);
	s->error = error;
}

void
app_message(struct app *a, bool error, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	snprintf(a->message, sizeof a->message, "%s", text);
	history_add(a, text, error);
	a->message_error = error;
	a->message_eval = false;
	a->dirty = true;
}

void
app_copy(struct app *a, const char *what, const char *name,
    const char *text)
{
	char err[512], *path, *seq;
	bool osc = a->headless == NULL && strlen(text) <= CLIP_OSC52_MAX &&
	    clip_terminal_takes(getenv("TERM"));

	if (osc) {
		/* Between two frames: it moves no cursor and draws nothing. */
		seq = clip_osc52(text);
		fputs(seq, stdout);
		fflush(stdout);
		free(seq);
	}
	if (clip_save(name, text, &path, err, sizeof err) != 0) {
		if (osc)
			app_message(a, true, "copied %s to the clipboard (OSC "
			    "52), not to a file: %s", what, err);
		else
			app_message(a, true, "%s is not copied: %s", what, err);
		return;
	}
	app_message(a, false, "copied %s: %s%s", what, osc ?
	    "OSC 52 and " : "", path);
	free(path);
}

size_t
app_history(const struct app *a)
{
	return a->nhistory < APP_HISTORY_KEPT ? a->nhistory : APP_HISTORY_KEPT;
}

const char *
app_history_at(const struct app *a, size_t i, time_t *at, bool *error)
{
	const struct app_said *s;

	if (i >= app_history(a))
		return NULL;
	s = &a->history[(a->nhistory - app_history(a) + i) % APP_HISTORY_KEPT];
	if (at != NULL)
		*at = s->at;
	if (error != NULL)
		*error = s->error;
	return s->text;
}

const struct board *
app_board(const struct app *a)
{
	return boardsrc_board(a->src);
}

const struct boardsrc *
app_boardsrc(const struct app *a)
{
	return a->src;
}

struct labmodel *
app_labmodel(const struct app *a)
{
	return a->labm;
}

struct alertsend *
app_alerts(const struct app *a)
{
	return a->alerts;
}

struct loop *
app_loop(const struct app *a)
{
	return a->loop;
}

const char *
app_workspace(const struct app *a)
{
	return a->ws;
}

const char *
app_workspace_host(const struct app *a)
{
	return a->ws_host;
}

const char *
app_workspace_lab_host(const struct app *a)
{
	return a->ws_lab_host;
}

static void
fleet_changed(void *arg)
{
	struct app *a = arg;

	a->dirty = true;
	/* A filter may match what a new board says. */
	if (a->filter[0] != '\0')
		app_refresh_views(a);
}

struct fleet *
app_fleet(struct app *a)
{
	if (a->fleet == NULL)
		a->fleet = fleet_new(a->loop, a->labm, fleet_changed, a);
	return a->fleet;
}

void
app_open_workspace(struct app *a, const char *host, const char *path)
{
	const struct lab_host *h = lab_host(&a->lab, host);

	if (h == NULL)
		return;
	/* Nothing of the workspace shown until now goes on. */
	boardsrc_free(a->src);
	free(a->ws);
	a->ws = xstrdup(path);
	a->ws_host = h->transport == LAB_LOCAL ? NULL : h->name;
	a->ws_lab_host = h->name;
	a->src = board_source(a);
	app_switch_tab(a, view_tab(0));
	boardsrc_start(a->src);
	app_message(a, false, "the board shows %s:%s now", h->name, path);
}

const char *
app_filter(const struct app *a)
{
	return a->filter;
}

const struct config *
app_config(const struct app *a)
{
	return &a->config;
}

void
app_reevaluate(struct app *a)
{
	app_evaluate(a);
}

bool
app_readonly(const struct app *a)
{
	return a->readonly;
}

void
app_redraw(struct app *a)
{
	a->dirty = true;
}

bool
app_on_top(const struct app *a, const void *data)
{
	return a->depth > 0 && a->stack[a->depth - 1].data == data;
}

bool
app_filter_match(const struct app *a, const char *s)
{
	return a->filter[0] == '\0' || (s != NULL && strcasestr(s,
	    a->filter) != NULL);
}

/* The filter changed, or the board: every view on the stack updates. */
void
app_refresh_views(struct app *a)
{
	int i;

	for (i = 0; i < a->depth; i++)
		if (a->stack[i].ops->update != NULL)
			a->stack[i].ops->update(a, a->stack[i].data);
}

/* ---- opening an artifact ---- */

/* The line a JSON pointer names in rel of the workspace, or 0. */
static long
json_pointer_line(struct app *a, const char *rel, const char *pointer)
{
	struct workspace ws;
	char err[256];
	long line;

	if (workspace_open(&ws, a->ws, err, sizeof err) != 0)
		return 0;
	line = workspace_pointer_line(&ws, rel, pointer, err, sizeof err);
	workspace_close(&ws);
	return line;
}

/* The folder screen (folder.c) on rel: listed, or, with probe, opened as
 * a file at where when it is one. */
static void
open_folder(struct app *a, const char *rel, const char *where, bool probe)
{
	struct folder_arg fa = { rel, where, probe };

	app_push(a, &folder_view, &fa);
}

void
app_open_file(struct app *a, const char *rel, const char *where)
{
	struct stat st;
	char *path;
	bool dir;

	if (rel == NULL || rel[0] == '\0' || strstr(rel, "..") != NULL) {
		app_message(a, true, "this finding names no file");
		return;
	}
	/* On the host, its calops says whether it is a folder (listed) or a
	 * file (paged): one question, asked there. */
	if (a->ws_host != NULL) {
		open_folder(a, rel, where, true);
		return;
	}
	path = xasprintf("%s/%s", a->ws, rel);
	dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	free(path);
	if (dir)
		open_folder(a, rel, NULL, false);
	else
		app_open_regular(a, rel, where);
}

void
app_open_regular(struct app *a, const char *rel, const char *where)
{
	const char *editor = getenv("VISUAL"), *pager = getenv("PAGER"), *what;
	char *path, line[32] = "", *argv[4];
	struct stat st;
	long ln = 0;
	pid_t pid;
	int status, i = 0;

	/* A position is "LINE:COL", "row N" in a CSV file (the header is
	 * row 1, one record a line), or a JSON pointer (below). */
	if (where != NULL && strncmp(where, "row ", 4) == 0)
		where += 4;
	if (where != NULL && isdigit((unsigned char)where[0]))
		ln = strtol(where, NULL, 10);
	if (a->ws_host != NULL) {
		/* On the host: its lines fetched into a pager screen (a JSON
		 * pointer looked for there). */
		struct pager_arg pa = { a->ws_host, a->ws, rel,
		    ln > 0 ? ln : 0, where != NULL && where[0] == '/' ?
		    where : NULL };

		app_push(a, &pager_view, &pa);
		return;
	}
	/* A JSON pointer ("/findings/1"): the line its value is on. */
	if (where != NULL && where[0] == '/')
		ln = json_pointer_line(a, rel, where);
	/* Headless, there is no terminal to hand to an editor. */
	if (a->headless != NULL) {
		app_message(a, true, "no terminal to open '%s' on", rel);
		return;
	}
	path = xasprintf("%s/%s", a->ws, rel);
	/* Say what is there, when it is no file: most often nothing yet. */
	if (stat(path, &st) != 0)
		what = errno == ENOENT || errno == ENOTDIR ?
		    "it does not exist" : strerror(errno);
	else if (!S_ISREG(st.st_mode))
		what = S_ISDIR(st.st_mode) ? "it is a folder" :
		    "not a regular file";
	else
		what = NULL;
	if (what != NULL) {
		app_message(a, true, "cannot open '%s': %s", rel, what);
		free(path);
		return;
	}
	if (editor == NULL || editor[0] == '\0')
		editor = getenv("EDITOR");
	if (ln > 0)
		snprintf(line, sizeof line, "+%ld", ln);
	argv[i++] = (char *)(editor != NULL && editor[0] != '\0' ? editor :
	    pager != NULL && pager[0] != '\0' ? pager : "less");
	if (line[0] != '\0')
		argv[i++] = line;
	argv[i++] = path;
	argv[i] = NULL;
	ui_suspend();
	if ((pid = fork()) == 0) {
		signal(SIGINT, SIG_DFL);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
			;
	ui_resume();
	if (pid < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 127))
		app_message(a, true, "cannot run '%s'", argv[0]);
	free(path);
	a->dirty = true;
}

/* ---- keys ---- */

static void
suspend(struct app *a)
{
	ui_suspend();
	signal(SIGTSTP, SIG_DFL);
	kill(0, SIGTSTP);
	/* Here again after fg. */
	ui_resume();
	a->relayout = true;
}

static int
normal_key(struct app *a, int key)
{
	struct view *v = &a->stack[a->depth - 1];
	enum action act = action_for_key(v->ops->keys, key);
	size_t t;
	int r;

	switch (act) {
	case ACT_QUIT:
		/* ^C is the way out that never asks, but for what a screen
		 * holds (a chip step under the release lock, release.md §7):
		 * quitting would cut it short with no refusal signed. */
		if (key == KEY_CTRL('c') && app_holding(a) == NULL)
			return R_QUIT;
		return prompt_quit(a);
	case ACT_HELP:
		/* ? on the help screen closes it. */
		if (v->ops == &help_view)
			return R_POP;
		app_push(a, &help_view, v->ops);
		return R_REDRAW;
	case ACT_FILTER:
	case ACT_COMMAND:
		a->mode = act == ACT_FILTER ? MODE_FILTER : MODE_COMMAND;
		snprintf(a->input, sizeof a->input, "%s", act == ACT_FILTER ?
		    a->filter : "");
		a->input_len = strlen(a->input);
		return R_REDRAW;
	case ACT_NEXT_VIEW:
	case ACT_PREV_VIEW:
		t = tab_index(a);
		t = act == ACT_NEXT_VIEW ? (t + 1) % view_ntabs() :
		    (t + view_ntabs() - 1) % view_ntabs();
		app_switch_tab(a, view_tab(t));
		return R_REDRAW;
	case ACT_VIEW_TAB:
		/* The digits are bound to this action (action.c). */
		if (key >= '1' && (size_t)(key - '1') < view_ntabs())
			app_switch_tab(a, view_tab((size_t)(key - '1')));
		return R_REDRAW;
	case ACT_REDRAW:
		a->relayout = true;
		return R_REDRAW;
	case ACT_REFRESH:
		/* A screen with its own data (the jobs) refreshes that. */
		if ((r = v->ops->action(a, v->data, act)) != R_NONE)
			return r;
		app_evaluate(a);
		app_message(a, false, "evaluating the workspace again");
		return R_REDRAW;
	case ACT_SUSPEND:
		suspend(a);
		return R_REDRAW;
	case ACT_NEWEST_ALERT:
		/* From any screen: the Alerts screen finds the journal's
		 * newest ongoing one; with none, the Soak screen its own. */
		if (a->journal_open > 0) {
			if (v->ops != &alerts_view)
				app_push(a, &alerts_view, NULL);
			v = &a->stack[a->depth - 1];
			return v->ops->action(a, v->data, act) | R_REDRAW;
		}
		app_switch_tab(a, &soak_view);
		v = &a->stack[0];
		return v->ops->action(a, v->data, act) | R_REDRAW;
	default:
		break;
	}
	r = v->ops->action(a, v->data, act);
	if (r == R_NONE && (act == ACT_BACK || act == ACT_ESCAPE)) {
		if (a->filter[0] != '\0') {
			a->filter[0] = '\0';
			app_refresh_views(a);
			return R_REDRAW;
		}
		if (a->depth > 1)
			return R_POP;
		/* Esc backs out and never quits: pressed once too often, or
		 * the start of an Alt key, it must not end a 24 h watch. */
		if (act == ACT_ESCAPE) {
			app_message(a, false, "q, :q or ^C quits");
			return R_REDRAW;
		}
		/* A tab is closed as a screen is: back to the first. */
		if (tab_index(a) != 0) {
			app_switch_tab(a, view_tab(0));
			app_message(a, false, "q again quits");
			return R_REDRAW;
		}
		return prompt_quit(a);
	}
	return r;
}

/* A click at screen cell (y, x): on a tab of the title line, that tab;
 * else not the status bar; the view knows what it drew between them,
 * whatever the banners took.  An open line closes first (prompt_click). */
static int
click(struct app *a, int y, int x, bool twice)
{
	struct view *v = &a->stack[a->depth - 1];
	int t;

	if (a->mode != MODE_NORMAL && !prompt_click(a))
		return R_REDRAW;
	if (y == 0 && (t = frame_tab_at(a, x)) >= 0) {
		app_switch_tab(a, view_tab((size_t)t));
		return R_REDRAW;
	}
	if (v->ops->click == NULL || y < 1 || y >= a->rows - 1)
		return R_REDRAW;
	return v->ops->click(a, v->data, y, x, twice) | R_REDRAW;
}

/* The wheel: three lines up (dir < 0) or down on the top screen. */
static int
wheel(struct app *a, int dir)
{
	struct view *v = &a->stack[a->depth - 1];
	int r = R_NONE, i;

	for (i = 0; i < 3; i++)
		r |= v->ops->action(a, v->data, dir < 0 ? ACT_UP : ACT_DOWN);
	return r;
}

/* A report ncurses decoded (its terminfo's format). */
static int
mouse(struct app *a)
{
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return R_NONE;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED))
		return wheel(a, (ev.bstate & BUTTON4_PRESSED) ? -1 : 1);
	return click(a, ev.y, ev.x, (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0);
}

static void
resize(struct app *a)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	a->relayout = true;
	a->dirty = a->keyed = true;
}

static void
react(struct app *a, int r)
{
	if (r & R_POP && a->depth > 1)
		back(a);
	if (r & R_QUIT)
		loop_stop(a->loop);
	if (r != R_NONE)
		a->dirty = true;
}

/* A sequence begun (termin.h) had no rest in time: dropped, not typed. */
static void
termin_expired(struct loop *l, void *arg)
{
	struct app *a = arg;

	(void)l;
	a->termin_timer = 0;
	termin_expire(&a->termin);
}

static void
tty_event(struct app *a, const struct termin_event *ev)
{
	if (ev->kind == TERMIN_KEY)
		app_key(a, ev->key);
	else if (ev->kind == TERMIN_CLICK)
		app_click(a, ev->y, ev->x, ev->twice);
	else {
		a->keyed = true;
		react(a, wheel(a, ev->wheel));
	}
}

/* Every byte and key through termin.h: a mouse report ncurses does not
 * read, or any sequence it does not know, is never typed. */
static void
tty_readable(struct loop *l, int fd, short revents, void *arg)
{
	struct app *a = arg;
	struct termin_event ev;
	int key;

	(void)fd;
	(void)revents;
	while (a->depth > 0 && (key = getch()) != ERR)
		if (termin_feed(&a->termin, key, loop_now_ms(), &ev))
			tty_event(a, &ev);
	if (a->depth > 0 && termin_idle(&a->termin, &ev))
		tty_event(a, &ev);
	if (termin_pending(&a->termin) && a->termin_timer == 0)
		a->termin_timer = loop_add_timer(l, TERMIN_WAIT_MS,
		    termin_expired, a);
	else if (!termin_pending(&a->termin) && a->termin_timer != 0) {
		loop_del_timer(l, a->termin_timer);
		a->termin_timer = 0;
	}
}

void
app_key(struct app *a, int key)
{
	a->message[0] = '\0';
	a->keyed = true;
	if (key == KEY_RESIZE) {
		/* ncurses has resized already: resizeterm queues this key, so
		 * resizing again here would never end. */
		a->relayout = true;
		a->dirty = true;
	} else if (key == KEY_MOUSE)
		react(a, mouse(a));
	else if (a->mode != MODE_NORMAL)
		react(a, prompt_key(a, key));
	else
		react(a, normal_key(a, key));
}

void
app_click(struct app *a, int y, int x, bool twice)
{
	a->message[0] = '\0';
	a->keyed = true;
	react(a, click(a, y, x, twice));
}

static void
spin(struct loop *l, void *arg)
{
	struct app *a = arg;

	a->spinner_timer = 0;
	if (!app_board(a)->running)
		return;
	a->spinner++;
	a->dirty = true;
	a->spinner_timer = loop_add_timer(l, SPINNER_MS, spin, a);
}

static void
before_sleep(struct loop *l, void *arg)
{
	struct app *a = arg;

	/* What a transport holds changes the model: hand it out first, so
	 * this paint shows it. */
	if (a->labm != NULL)
		labmodel_before_sleep(a->labm);
	/* The spinner ticks only while an evaluation runs: idle is idle. */
	if (app_board(a)->running && a->spinner_timer == 0)
		a->spinner_timer = loop_add_timer(l, SPINNER_MS, spin, a);
	if (frame_due(a))
		frame_paint(a);
	if (a->headless != NULL)
		headless_run(a->headless, a);
}

/* ---- signals ---- */

static void
on_signal(struct loop *l, int sig, void *arg)
{
	struct app *a = arg;

	if (sig == SIGCHLD)
		child_reap(l);
	else if (sig == SIGWINCH)
		resize(a);
	else if (sig == SIGCONT) {
		a->relayout = true;
		a->dirty = a->keyed = true;
	} else
		loop_stop(l);
}

/* ---- the lab ---- */

static void
lab_changed(struct labmodel *lm, void *arg)
{
	struct app *a = arg;

	(void)lm;
	a->dirty = true;
	if (a->fleet != NULL)
		fleet_hosts_changed(a->fleet);
	if (a->src != NULL)
		boardsrc_host_changed(a->src);
	if (a->alerts != NULL)
		alertsend_lab_changed(a->alerts);
}

/* A job ended: what it wrote is evidence, so evaluate again now (the
 * watcher would, after its debounce; this says why). */
static void
lab_ended(struct labmodel *lm, const struct ljob *j, void *arg)
{
	struct app *a = arg;

	(void)lm;
	app_message(a, j->state != LJ_DONE, "%s on %s: %s", j->label, j->host,
	    labmodel_job_state_name(j->state));
	if (a->alerts != NULL)
		alertsend_job_ended(a->alerts, j);
	app_evaluate(a);
}

/* A job of a host ended, held or not: the alert rules' (job.failed). */
static void
lab_host_ended(struct labmodel *lm, const struct ljob_end *e, void *arg)
{
	struct app *a = arg;

	(void)lm;
	if (a->alerts != NULL)
		alertsend_host_ended(a->alerts, e);
}

static void
lab_applied(struct labmodel *lm, const struct ljob *j, double ts, void *arg)
{
	(void)lm;
	(void)j;
	(void)arg;
	bench_lag_event(ts);
}

static void
lab_warn(struct labmodel *lm, const char *msg, void *arg)
{
	(void)lm;
	app_message(arg, true, "%s", msg);
}

/* ---- the questions lab hosts ask ---- */

/* The passphrase typed for a host's identity (NULL: skip that key): the
 * transport keeps its own copy until that key's authentication returns;
 * the prompt's is wiped when this returns (prompt.c). */
static void
passphrase_answer(struct app *a, const char *answer, void *arg)
{
	char *host = arg, err[256];
	struct transport *t;

	if ((t = labmodel_transport(a->labm, host, err, sizeof err)) != NULL)
		transport_passphrase(t, answer);
	if (answer == NULL)
		app_message(a, false, "%s: that key skipped", host);
	free(host);
}

/* "yes" trusts the host key a host was refused over; anything else
 * writes nothing. */
static void
hostkey_answer(struct app *a, const char *answer, void *arg)
{
	char *host = arg, err[512];
	struct transport *t;

	if (answer == NULL || strcmp(answer, "yes") != 0)
		app_message(a, false, "the host key of %s is not trusted: "
		    "nothing written (a on the Hosts screen asks again)", host);
	else if ((t = labmodel_transport(a->labm, host, err,
	    sizeof err)) == NULL || transport_accept_key(t, err,
	    sizeof err) != 0)
		app_message(a, true, "%s", err);
	else
		app_message(a, false, "the host key of %s is in known_hosts "
		    "now; connecting", host);
	free(host);
}

/* Put host's question now; false when it asks nothing (any more). */
static bool
ask_now(struct app *a, const char *host)
{
	struct transport_status st;
	struct transport *t;
	char err[256], *q;

	if ((t = labmodel_transport(a->labm, host, err, sizeof err)) == NULL)
		return false;
	transport_status(t, &st);
	switch (st.ask) {
	case TRANSPORT_ASK_PASSPHRASE:
		q = xasprintf("%s (Esc skips this key): ", st.ask_text);
		prompt_ask_secret(a, q, passphrase_answer, xstrdup(host));
		break;
	case TRANSPORT_ASK_KEY:
		q = xasprintf("%s\nTrust it from now on? Type yes: ",
		    st.ask_text);
		prompt_ask(a, q, hostkey_answer, xstrdup(host));
		break;
	default:
		return false;
	}
	free(q);
	return true;
}

void
app_ask_host(struct app *a, const char *host)
{
	size_t i;

	for (i = 0; i < a->nhost_asks; i++)
		if (strcmp(a->host_asks[i], host) == 0)
			return;
	if (a->nhost_asks == nitems(a->host_asks))
		return;		/* each host asks again on a */
	a->host_asks[a->nhost_asks++] = xstrdup(host);
	app_ask_next(a);
}

void
app_ask_next(struct app *a)
{
	prompt_answer_fn fn = a->later_fn;
	char *host;

	/* A screen's question first: it was raised before the line was
	 * free, and its screen waits on it. */
	if (a->mode == MODE_NORMAL && fn != NULL) {
		a->later_fn = NULL;
		prompt_ask(a, a->later_q, fn, a->later_arg);
		a->dirty = true;
	}
	while (a->mode == MODE_NORMAL && a->nhost_asks > 0) {
		host = a->host_asks[0];
		memmove(a->host_asks, a->host_asks + 1, --a->nhost_asks *
		    sizeof *a->host_asks);
		if (ask_now(a, host))
			a->dirty = true;
		free(host);
	}
}

static void
lab_ask(struct labmodel *lm, const char *host, void *arg)
{
	(void)lm;
	app_ask_host(arg, host);
}

/*
 * The lab behind the console: the lab file when path is one (its first
 * workspace on a local host is the board's), else a lab of one local host
 * holding the workspace path, with the bundled simulator as its runner.
 */
static int
lab_open(struct app *a, const char *path, char *err, size_t errlen)
{
	struct labmodel_cb cb = { lab_changed, lab_ended, lab_warn,
	    lab_ask, a, NULL, NULL };
	struct stat st;
	size_t i;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		if (lab_load(&a->lab, path, err, errlen) != 0)
			return -1;
		for (i = 0; i < a->lab.nworkspaces && a->ws == NULL; i++) {
			const struct lab_host *h = lab_host(&a->lab,
			    a->lab.workspaces[i].host);

			if (h != NULL && h->transport == LAB_LOCAL) {
				a->ws = xstrdup(a->lab.workspaces[i].path);
				a->ws_lab_host = h->name;
			}
		}
		/* None here: the first one, on its SSH host. */
		if (a->ws == NULL && a->lab.nworkspaces > 0) {
			a->ws = xstrdup(a->lab.workspaces[0].path);
			a->ws_host = lab_host(&a->lab,
			    a->lab.workspaces[0].host)->name;
			a->ws_lab_host = a->ws_host;
		}
		if (a->ws == NULL) {
			errbuf_set(err, errlen, "'%s' names no workspace",
			    path);
			return -1;
		}
	} else {
		memset(&a->lab, 0, sizeof a->lab);
		a->lab.hosts = xcalloc(1, sizeof *a->lab.hosts);
		a->lab.hosts[0].name = xstrdup("local");
		a->lab.hosts[0].transport = LAB_LOCAL;
		a->lab.nhosts = 1;
		a->lab.workspaces = xcalloc(1, sizeof *a->lab.workspaces);
		a->lab.workspaces[0].host = xstrdup("local");
		a->lab.workspaces[0].path = xstrdup(path);
		a->lab.nworkspaces = 1;
		a->ws = xstrdup(path);
		a->ws_lab_host = a->lab.hosts[0].name;
	}
	/* The config's alert rules under the lab file's (alerts.md §1). */
	if (a->config.path != NULL && lab_merge_config(&a->lab,
	    a->config.path, err, errlen) != 0)
		return -1;
	if (bench_lag_init())
		cb.applied = lab_applied;
	/* The lab has alert rules, which this console may come to judge:
	 * every host's ended jobs too (labmodel.h host_ended). */
	if (a->lab.alert_hook.argv != NULL)
		cb.host_ended = lab_host_ended;
	a->labm = labmodel_new(a->loop, &a->lab, a->self, &cb, err, errlen);
	return a->labm != NULL ? 0 : -1;
}

/* What the hook or the sender says: a hook's failure, who sends now. */
static void
alerts_say(const char *msg, void *arg)
{
	app_message(arg, strstr(msg, "sends alerts") == NULL &&
	    strstr(msg, "alerts sent by") == NULL, "%s", msg);
}

static void
alerts_changed(void *arg)
{
	struct app *a = arg;

	a->dirty = true;
	app_refresh_views(a);
}

/* The lab's alert rules and the state's journal: this console sends while
 * it holds the journal, else shows what the sender wrote (alerts.md §6).
 * A refused alerts folder is said, and the console goes on without. */
static void
alerts_open(struct app *a)
{
	char err[512];

	if ((a->alerts = alertsend_new(a->loop, a->labm, &a->lab, "console",
	    alerts_say, alerts_changed, a, err, sizeof err)) == NULL)
		app_message(a, true, "%s", err);
}

/* ---- start and end ---- */

static int
app_setup(struct app *a, const struct app_opts *o, char *err, size_t errlen)
{
	const char *theme;
	struct ui_opts uo;
	size_t i;

	memset(a, 0, sizeof *a);
	a->demo = o->demo;
	a->readonly = o->readonly;
	if ((a->self = realpath("/proc/self/exe", NULL)) == NULL)
		a->self = xstrdup("calops");
	if (config_load(&a->config, o->config_path, err, errlen) != 0)
		return -1;
	theme = o->theme != NULL ? o->theme : a->config.theme;
	if (theme_load(&a->theme, theme, err, errlen) != 0)
		return -1;
	uo.ascii = o->ascii || a->config.ascii;
	uo.mouse = a->config.mouse;
	uo.no_colour = o->colour >= 0 ? o->colour == 0 :
	    theme_colour_disabled();
	uo.cols = o->cols;
	uo.rows = o->rows;
	if (o->script != NULL && (a->headless = headless_load(o->script, err,
	    errlen)) == NULL)
		return -1;
	if (ui_init(&uo, &a->theme, err, errlen) != 0)
		return -1;
	termin_init(&a->termin, mouseinterval(-1));
	a->loop = loop_new();
	/* A command that ends before it has read all its input (a lab
	 * host's calops given a release record) is an error of that write,
	 * not the console's end. */
	signal(SIGPIPE, SIG_IGN);
	/* Headless, the keys come from the script and the size is its. */
	if (a->headless == NULL) {
		loop_add_fd(a->loop, STDIN_FILENO, POLLIN, tty_readable, a);
		loop_watch_signal(a->loop, SIGWINCH, on_signal, a);
	}
	loop_watch_signal(a->loop, SIGCHLD, on_signal, a);
	loop_watch_signal(a->loop, SIGCONT, on_signal, a);
	loop_watch_signal(a->loop, SIGTERM, on_signal, a);
	loop_watch_signal(a->loop, SIGHUP, on_signal, a);
	loop_set_before_sleep(a->loop, before_sleep, a);
	if (lab_open(a, o->path, err, errlen) != 0)
		return -1;
	a->src = board_source(a);
	alerts_open(a);
	for (i = 0; i < o->nwrite; i++)
		if (labmodel_allow_write(a->labm, o->write[i], err,
		    errlen) != 0)
			return -1;
	return 0;
}

static void
app_teardown(struct app *a)
{
	size_t i;

	while (a->depth > 0)
		pop(a);
	boardsrc_free(a->src);
	reportrun_stop(a);
	fleet_free(a->fleet);
	bench_lag_write();
	ui_end();
	explicit_bzero(a->input, sizeof a->input);	/* a secret typed */
	while (a->nhost_asks > 0)
		free(a->host_asks[--a->nhost_asks]);
	headless_free(a->headless);
	alertsend_free(a->alerts);
	labmodel_free(a->labm);
	lab_release(&a->lab);
	loop_free(a->loop);
	theme_release(&a->theme);
	config_release(&a->config);
	for (i = 0; i < APP_HISTORY_KEPT; i++)
		free(a->history[i].text);
	free(a->self);
	free(a->ws);
}

int
app_main(const struct app_opts *o)
{
	struct app a;
	char err[512];
	int status;

	if (app_setup(&a, o, err, sizeof err) != 0) {
		ui_end();
		fprintf(stderr, "calops: %s\n", err);
		headless_free(a.headless);
		theme_release(&a.theme);
		config_release(&a.config);
		boardsrc_free(a.src);
		labmodel_free(a.labm);
		lab_release(&a.lab);
		free(a.self);
		free(a.ws);
		return 2;
	}
	bench_init();
	app_push(&a, view_tab(0), NULL);
	boardsrc_start(a.src);
	a.dirty = true;
	if (a.headless != NULL)
		headless_start(a.headless, &a);
	loop_run(a.loop);
	status = a.headless != NULL ? headless_status(a.headless) : 0;
	app_teardown(&a);
	return status;
}

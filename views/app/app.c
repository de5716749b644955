/* app.c: the console: loop, evaluation child, watcher, prompt, frame. */
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
#include "model/fleet.h"
#include "model/history.h"
#include "remote/transport.h"
#include "views/app/app_int.h"
#include "views/app/reportrun.h"
#include "views/app/bench.h"
#include "views/core/ui.h"
#include "views/pager.h"
#include "ws/workspace.h"

#define SPINNER_MS 120

/* ---- the evaluation child ---- */

/* Remember this evaluation, so a red gate can say what changed since it
 * was last green. */
static void
record_history(struct app *a)
{
	const struct board_eval *e = &a->board.now;
	json_t *gates = json_object();
	char err[256], *path;
	size_t i;

	for (i = 0; i < GATE_COUNT; i++)
		json_object_set_new(gates, e->gates[i].id, json_pack("{s:s,s:O}",
		    "status", gate_status_name(e->gates[i].status), "inputs",
		    e->gates[i].inputs != NULL ? e->gates[i].inputs :
		    json_array()));
	if ((path = history_path(a->ws, a->ws_host, err, sizeof err)) == NULL ||
	    history_append(path, gates, e->finished_at, a->config.history, err,
	    sizeof err) != 0)
		app_message(a, true, "history not kept: %s", err);
	free(path);
	json_decref(gates);
}

/* A line of `calops check --stream`, from the child or from the host. */
static void
eval_take(struct app *a, const char *line, size_t len, bool from_stderr,
    bool cut)
{
	int r;

	if (from_stderr || cut) {
		if (len > 0) {
			app_message(a, true, "%.*s", (int)(len > 200 ? 200 :
			    len), line);
			a->message_eval = true;
		}
		return;
	}
	r = boardmodel_event(&a->board, line, len);
	if ((r & BOARD_CHANGED) && a->board.now.valid && a->board.error == NULL)
		record_history(a);
	if ((r & BOARD_CHANGED) && a->board.now.valid && a->labm != NULL)
		labmodel_set_sla(a->labm, a->board.now.sla_ttft_ms_p99,
		    a->board.now.sla_tpot_ms_p99,
		    a->board.now.sla_success_rate_min);
	if (r & BOARD_CHANGED) {
		size_t i;

		for (i = 0; i < (size_t)a->depth; i++)
			if (a->stack[i].ops->update != NULL)
				a->stack[i].ops->update(a, a->stack[i].data);
	}
	if (r != 0)
		a->dirty = true;
}

static void
eval_line(struct child *c, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	(void)c;
	eval_take(arg, line, len, from_stderr, cut);
}

static void
eval_done(struct child *c, int status, void *arg)
{
	struct app *a = arg;

	(void)c;
	a->eval = NULL;
	if (a->board.running) {
		boardmodel_fail(&a->board, WIFSIGNALED(status) ?
		    "the evaluation was killed" :
		    "the evaluation ended without a result");
	}
	if (a->watch != NULL && !watch_root_ok(watchloop_watch(a->watch)))
		boardmodel_fail(
		    &a->board, "the workspace is gone or unreadable");
	a->dirty = true;
	if (a->eval_again) {
		a->eval_again = false;
		app_evaluate(a);
	}
}

static const struct child_ops eval_ops = { eval_line, eval_done };

/* ---- a workspace on an SSH host ---- */

static void
reval_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	(void)rs;
	eval_take(arg, line, len, from_stderr, cut);
}

/* The host's check ended; a link lost meanwhile is said, and the board
 * evaluated again once the host is back (lab_changed). */
static void
reval_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct app *a = arg;
	char why[400];

	(void)rs;
	a->reval = NULL;
	if (ex->err != NULL) {
		/* Lost with the link: again once the host is back.  Any
		 * other failure waits for the next change. */
		a->reval_failed = ex->lost;
		snprintf(why, sizeof why, "evaluation on %s broken: %s",
		    a->ws_host, ex->err);
		boardmodel_fail(&a->board, why);
	} else if (a->board.running)
		boardmodel_fail(&a->board, ex->sig != 0 ?
		    "the evaluation was killed" :
		    "the evaluation ended without a result");
	a->dirty = true;
	if (a->eval_again && ex->err == NULL) {
		a->eval_again = false;
		app_evaluate(a);
	}
}

static const struct rstream_cb reval_cb = { reval_line, reval_done };

/* `calops check --stream` on the workspace's host: the same events as the
 * local child's, through the host's transport (it waits there while the
 * host connects). */
static void
evaluate_remote(struct app *a)
{
	struct strv argv = { NULL, 0, 0 };
	struct transport *t;
	char err[256];

	if (a->reval != NULL) {
		a->eval_again = true;
		return;
	}
	if (a->message_eval)
		a->message[0] = '\0';
	a->reval_failed = false;
	boardmodel_begin(&a->board);
	labcmd_host_check(&argv, a->ws);
	if ((t = labmodel_transport(a->labm, a->ws_host, err,
	    sizeof err)) == NULL ||
	    (a->reval = transport_exec(t, argv.v, &reval_cb, a, err,
	    sizeof err)) == NULL) {
		a->reval_failed = true;
		boardmodel_fail(&a->board, err);
	}
	labcmd_strv_free(&argv);
	a->dirty = true;
}

static void	changed(void *arg);

/* A line of the host's `calops watch`: a change, evaluated once quiet. */
static void
rwatch_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	struct app *a = arg;

	(void)rs;
	(void)cut;
	if (from_stderr) {
		if (len > 0)
			app_message(a, true, "%s: %.*s", a->ws_host,
			    (int)(len > 160 ? 160 : len), line);
		return;
	}
	if (memmem(line, len, "\"changed\"", 9) != NULL)
		changed(a);
	else if (memmem(line, len, "\"watching\"", 10) != NULL) {
		/* In place from now on: what changed before it was, since
		 * the evaluation under way or done began, is read again. */
		a->rwatch_live = true;
		app_evaluate(a);
	}
}

static void
rwatch_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct app *a = arg;

	(void)rs;
	a->rwatch = NULL;
	a->rwatch_live = false;
	if (ex->err == NULL && ex->code != 0)
		app_message(a, true, "%s: not watching for changes (calops "
		    "watch exit %d)", a->ws_host, ex->code);
}

static const struct rstream_cb rwatch_cb = { rwatch_line, rwatch_done };

static void
watch_remote(struct app *a)
{
	struct strv argv = { NULL, 0, 0 };
	struct transport_status st;
	struct transport *t;
	char err[256];

	if (a->rwatch != NULL ||
	    (t = labmodel_transport(a->labm, a->ws_host, err,
	    sizeof err)) == NULL)
		return;
	transport_status(t, &st);
	a->rwatch_since = st.since_ms;
	labcmd_host_watch(&argv, a->ws);
	if ((a->rwatch = transport_exec(t, argv.v, &rwatch_cb, a, err,
	    sizeof err)) == NULL)
		app_message(a, true, "not watching for changes: %s", err);
	labcmd_strv_free(&argv);
}

/* The workspace's host changed state: back up after a break, it is
 * watched again and evaluated again (what changed meanwhile was not
 * seen).  A watch that ended on a connection still up (the workspace
 * went, calops there failed) starts again only with a new connection, not
 * on every change of the lab. */
static void
remote_ws_host_changed(struct app *a)
{
	struct transport_status st;
	struct transport *t;
	char err[256];

	if (a->ws_host == NULL || (t = labmodel_transport(a->labm,
	    a->ws_host, err, sizeof err)) == NULL || !transport_up(t))
		return;
	transport_status(t, &st);
	if (a->rwatch == NULL && st.since_ms != a->rwatch_since) {
		watch_remote(a);
		if (a->reval == NULL)
			app_evaluate(a);
	} else if (a->reval_failed && a->reval == NULL)
		app_evaluate(a);
}

/* Evaluate in a child, never in the UI's thread of control. */
void
app_evaluate(struct app *a)
{
	char *argv[] = { a->self, "check", "--stream", "--", a->ws, NULL };
	char err[256];

	if (a->ws_host != NULL) {
		evaluate_remote(a);
		return;
	}
	if (a->eval != NULL) {
		a->eval_again = true;
		return;
	}
	/* What the last evaluation said is stale now. */
	if (a->message_eval)
		a->message[0] = '\0';
	boardmodel_begin(&a->board);
	a->eval = child_start(a->loop, argv, &eval_ops, a, err, sizeof err);
	if (a->eval == NULL)
		boardmodel_fail(&a->board, err);
	/* This evaluation reads every change made until now: one the watcher
	 * has not told yet (a job's files, seen by its next poll) must not
	 * evaluate once more. */
	if (a->eval != NULL && a->watch != NULL) {
		watch_rebase(watchloop_watch(a->watch));
		if (a->debounce_timer != 0)
			loop_del_timer(a->loop, a->debounce_timer);
		a->debounce_timer = 0;
	}
	a->dirty = true;
}

/* ---- watching the workspace ---- */

static void
debounced(struct loop *l, void *arg)
{
	struct app *a = arg;

	(void)l;
	a->debounce_timer = 0;
	app_evaluate(a);
}

/* The workspace changed: evaluate once it has been quiet a while. */
static void
changed(void *arg)
{
	struct app *a = arg;

	if (a->debounce_timer != 0)
		loop_del_timer(a->loop, a->debounce_timer);
	a->debounce_timer = loop_add_timer(a->loop,
	    a->config.refresh_debounce_ms, debounced, a);
}

static void
watch_start(struct app *a)
{
	char err[256];

	if (a->ws_host != NULL) {
		watch_remote(a);
		return;
	}
	a->watch = watchloop_new(a->loop, a->ws, changed, a, err,
	    sizeof err);
	if (a->watch == NULL)
		app_message(a, true, "not watching for changes: %s", err);
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

/* Switch the root screen (Tab, digits, :board), closing what was above. */
void
app_switch_tab(struct app *a, const struct view_ops *ops)
{
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

void
app_message(struct app *a, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->message, sizeof a->message, fmt, ap);
	va_end(ap);
	a->message_error = error;
	a->message_eval = false;
	a->dirty = true;
}

const struct board *
app_board(const struct app *a)
{
	return &a->board;
}

struct labmodel *
app_labmodel(const struct app *a)
{
	return a->labm;
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

/* Stop evaluating and watching the workspace the board shows. */
static void
ws_stop(struct app *a)
{
	if (a->eval != NULL)
		child_abandon(a->eval);
	if (a->reval != NULL)
		transport_rstream_cancel(a->reval);
	if (a->rwatch != NULL)
		transport_rstream_cancel(a->rwatch);
	a->eval = NULL;
	a->reval = a->rwatch = NULL;
	a->rwatch_live = a->reval_failed = a->eval_again = false;
	a->rwatch_since = 0;
	watchloop_free(a->watch);
	a->watch = NULL;
	if (a->debounce_timer != 0)
		loop_del_timer(a->loop, a->debounce_timer);
	a->debounce_timer = 0;
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
		a->fleet = fleet_new(a->labm, fleet_changed, a);
	return a->fleet;
}

void
app_open_workspace(struct app *a, const char *host, const char *path)
{
	const struct lab_host *h = lab_host(&a->lab, host);

	if (h == NULL)
		return;
	/* Nothing of the workspace shown until now goes on. */
	ws_stop(a);
	free(a->ws);
	a->ws = xstrdup(path);
	a->ws_host = h->transport == LAB_LOCAL ? NULL : h->name;
	a->ws_lab_host = h->name;
	boardmodel_release(&a->board);
	boardmodel_init(&a->board);
	app_switch_tab(a, view_tab(0));
	watch_start(a);
	app_evaluate(a);
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

const char *
app_status_glyph(enum gate_status s)
{
	switch (s) {
	case GS_PASS: return ui_glyph("✔", "+");
	case GS_FAIL: return ui_glyph("✘", "x");
	case GS_BLOCKED: return ui_glyph("⊘", "#");
	case GS_STALE: return ui_glyph("≈", "~");
	case GS_RUNNING: return ui_glyph("▶", ">");
	default: return ui_glyph("·", ".");
	}
}

const char *
app_finding_where(const struct board_finding *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", f->path, f->where[0] == '\0' ? "" :
	    f->where[0] == '/' ? "#" : ":", f->where);
	return buf;
}

const char *
app_job_glyph(const char *s, enum role *r)
{
	static const struct {
		const char *name, *utf8, *ascii;
		enum role role;
	} t[] = {
		{ "starting", "…", ".", ROLE_PENDING },
		{ "running", "▶", ">", ROLE_RUNNING },
		/* running, its events stalled on the host (disk full) */
		{ "degraded", "▶", ">", ROLE_ERROR },
		{ "catching up", "⟳", "~", ROLE_PENDING },
		{ "done", "✔", "+", ROLE_PASS },
		{ "failed", "✘", "x", ROLE_FAIL },
		/* Not ⊘: that is a blocked gate's, and only that. */
		{ "killed", "■", "k", ROLE_BLOCKED },
		{ "lost", "?", "?", ROLE_STALE },
		{ "corrupt", "!", "!", ROLE_ERROR },
		{ "broken", "!", "!", ROLE_ERROR },
	};
	size_t i;

	for (i = 0; i < nitems(t); i++)
		if (strcmp(s, t[i].name) == 0) {
			*r = t[i].role;
			return ui_glyph(t[i].utf8, t[i].ascii);
		}
	*r = ROLE_DIM;
	return "?";
}

int
app_status_role(enum gate_status s)
{
	static const int roles[] = { ROLE_PENDING, ROLE_FAIL, ROLE_BLOCKED,
	    ROLE_STALE, ROLE_PASS, ROLE_RUNNING };

	return roles[s];
}

const char *
app_verdict_glyph(const char *verdict, enum role *r)
{
	if (verdict != NULL && strcmp(verdict, "held") == 0) {
		*r = ROLE_PASS;
		return ui_glyph("✔", "+");
	}
	if (verdict != NULL && strcmp(verdict, "failed") == 0) {
		*r = ROLE_FAIL;
		return ui_glyph("✘", "x");
	}
	*r = ROLE_DIM;
	return ui_glyph("○", "?");
}

int
app_severity_role(enum severity s)
{
	static const int roles[] = { ROLE_ERROR, ROLE_BLOCKED, ROLE_STALE,
	    ROLE_WARN, ROLE_INFO };

	return roles[s];
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

void
app_open_file(struct app *a, const char *rel, const char *where)
{
	const char *editor = getenv("VISUAL"), *pager = getenv("PAGER"), *what;
	char *path, line[32] = "", *argv[4];
	struct stat st;
	long ln = 0;
	pid_t pid;
	int status, i = 0;

	if (rel == NULL || rel[0] == '\0' || strstr(rel, "..") != NULL) {
		app_message(a, true, "this finding names no file");
		return;
	}
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
		return R_QUIT;
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
		return R_QUIT;
	}
	return r;
}

/* A click at screen cell (y, x): not the title or the status bar; the view
 * knows what it drew between them, whatever the banners took. */
static int
click(struct app *a, int y, int x, bool twice)
{
	struct view *v = &a->stack[a->depth - 1];

	if (v->ops->click == NULL || y < 1 || y >= a->rows - 1)
		return R_NONE;
	return v->ops->click(a, v->data, y, x, twice);
}

static int
mouse(struct app *a)
{
	struct view *v = &a->stack[a->depth - 1];
	MEVENT ev;
	int r = R_NONE, i;

	if (getmouse(&ev) != OK)
		return R_NONE;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		for (i = 0; i < 3; i++)
			r |= v->ops->action(a, v->data,
			    (ev.bstate & BUTTON4_PRESSED) ? ACT_UP : ACT_DOWN);
		return r;
	}
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

static void
tty_readable(struct loop *l, int fd, short revents, void *arg)
{
	struct app *a = arg;
	int key, next;

	(void)l;
	(void)fd;
	(void)revents;
	while ((key = getch()) != ERR) {
		/* An Alt key comes as Esc and the key at once (a lone Esc
		 * waits ESCDELAY for more): neither is meant as typed.  Two
		 * Escs are two. */
		if (key == 27 && a->mode == MODE_NORMAL &&
		    (next = getch()) != ERR) {
			if (next != 27)
				continue;
			ungetch(next);
		}
		app_key(a, key);
		if (a->depth == 0)
			break;
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
	if (!a->board.running)
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
	if (a->board.running && a->spinner_timer == 0)
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
	/* Cheap unless the workspace's host is being waited for. */
	if (a->ws_host != NULL && (a->rwatch == NULL || a->reval_failed))
		remote_ws_host_changed(a);
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
	app_evaluate(a);
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
	app_answer_fn fn = a->later_fn;
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
	    lab_ask, a, NULL };
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
	if (bench_lag_init())
		cb.applied = lab_applied;
	a->labm = labmodel_new(a->loop, &a->lab, a->self, &cb, err, errlen);
	return a->labm != NULL ? 0 : -1;
}

/* ---- start and end ---- */

static int
app_setup(struct app *a, const struct app_opts *o, char *err, size_t errlen)
{
	const char *theme;
	struct ui_opts uo;
	size_t i;

	memset(a, 0, sizeof *a);
	boardmodel_init(&a->board);
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
	for (i = 0; i < o->nwrite; i++)
		if (labmodel_allow_write(a->labm, o->write[i], err,
		    errlen) != 0)
			return -1;
	return 0;
}

static void
app_teardown(struct app *a)
{
	while (a->depth > 0)
		pop(a);
	ws_stop(a);
	reportrun_stop(a);
	fleet_free(a->fleet);
	bench_lag_write();
	ui_end();
	explicit_bzero(a->input, sizeof a->input);	/* a secret typed */
	while (a->nhost_asks > 0)
		free(a->host_asks[--a->nhost_asks]);
	headless_free(a->headless);
	labmodel_free(a->labm);
	lab_release(&a->lab);
	loop_free(a->loop);
	boardmodel_release(&a->board);
	theme_release(&a->theme);
	config_release(&a->config);
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
		labmodel_free(a.labm);
		lab_release(&a.lab);
		free(a.self);
		free(a.ws);
		return 2;
	}
	bench_init();
	app_push(&a, view_tab(0), NULL);
	watch_start(&a);
	app_evaluate(&a);
	a.dirty = true;
	if (a.headless != NULL)
		headless_start(a.headless, &a);
	loop_run(a.loop);
	status = a.headless != NULL ? headless_status(a.headless) : 0;
	app_teardown(&a);
	return status;
}

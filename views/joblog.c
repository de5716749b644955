/*
 * joblog.c: one job's events (share/doc/protocol.md §3), pushed by the jobs
 * view with { host, id } (two strings, copied): `calops tail --from 1
 * --follow -- ID` through the lab model's transport for the job's host
 * (borrowed, never closed here), each event one line (time, type, level,
 * message; a summary for the other types).
 *
 * A line is shown only when the follower's rule takes it (follow_judge(),
 * the one the mirror is written by): a line that is no event is a
 * "refused" line saying why, never its text; a repeated seq, one going
 * back and anything after the end are dropped and counted in the status
 * line.  So the log never shows what the mirror refused.
 *
 * F follows the end, v cycles the levels shown, w wraps.  Here / searches,
 * as in less and tig, rather than narrowing: the lines matching are marked,
 * the selection jumps to the next one, and n / N go to the next and the
 * previous match, so a match is seen in its context.
 *
 * A soak's run is 100,000s of events: at most JOBLOG_MAX lines are held
 * (linewin.c, the window the remote file viewer keeps too), the newest
 * while following.  Going up past the first line held pages the events
 * before it in from the host (`calops tail --from N --until M`,
 * JOBLOG_CHUNK at a time), g or Home jumps to the run's first event; the
 * newest lines held then go, the live ones wait on the host, and going
 * down past the last line held, or G, End, F, pages them back.  The
 * status line says what is being paged in, and from which event the lines
 * held start.
 *
 * tail rather than follow.c: a viewer shows the whole log each time it is
 * opened, from the first event, and keeps no position.
 */
#include "calops.h"

#include <time.h>

#include "base/buf.h"
#include "base/text.h"
#include "lab/follow.h"
#include "lab/labmodel.h"
#include "proto/event.h"
#include "proto/evtext.h"
#include "proto/hostcmd.h"
#include "remote/transport.h"
#include "views/app/app.h"
#include "views/core/list.h"
#include "views/core/ui.h"
#include "views/linewin.h"
#include "views/soak.h"

#define JOBLOG_MAX	10000	/* lines held */
#define JOBLOG_CHUNK	2000	/* events a page asks for */
#define JOBLOG_TEXT_MAX	2048	/* bytes of one line kept */

enum level { LV_DEBUG, LV_INFO, LV_WARN, LV_ERROR };

static const char *const level_names[] = { "debug", "info", "warn", "error" };

struct log_line {
	char		*text;
	enum level	 level;
	int64_t		 seq;	/* of its event, or the one before; 0: none */
	bool		 aside;	/* no event's: it came after seq */
};

/* Events of the run the host looks in: from..until (0: to the end), the
 * last match or the first. */
struct find_range {
	int64_t		 from, until;
	bool		 last;
};

struct joblog {
	struct app	*app;
	char		*host, *id;
	struct rstream	*rs;
	/* what the follower's rule took and refused (follow_judge) */
	struct follow_stats taken;
	struct linewin	 win;		/* the lines held, log_line each */
	bool		 cut;		/* the newest went: on the host */
	/* the page being fetched: its rule, its day, what it asks for */
	struct follow_stats paged;
	char		 pday[16];
	int64_t		 pfrom, puntil;
	int64_t		 want;		/* the seq a page is for, or 0 */
	/* the search on the host: where, what it said */
	struct rstream	*finding;
	struct find_range find[2];
	int		 nfind, find_at, find_dir;
	char		 found[32];
	struct list	 list;
	bool		 follow, wrap;
	bool		 stale;		/* lines came since the rows */
	enum level	 min_level;
	char		 state[160];	/* how the stream ended */
	char		 search[256];	/* the search last jumped to */
	char		 day[16];	/* of the last line with a time */
};

static int64_t	held_seq(const struct joblog *, bool);
static void	page(struct joblog *, int64_t, int64_t, enum linewin_where);
static const struct rstream_cb find_cb;
static void	to_found(struct joblog *);

static struct log_line *
line_at(const struct joblog *v, size_t i)
{
	return linewin_item(&v->win, i);
}

static bool
line_matches(size_t i, void *arg)
{
	struct joblog *v = arg;

	return line_at(v, i)->level >= v->min_level;
}

static void
rebuild(struct joblog *v)
{
	v->stale = false;
	list_rebuild(&v->list, v->win.n, line_matches, v);
	if (v->follow && v->list.nmap > 0)
		v->list.sel = v->list.nmap - 1;
}

/* The next (dir 1) or previous (-1) shown line matching the search from
 * the selection (here: itself included), wrapping around among those held
 * when wrap; false when none does. */
static bool
held_jump(struct joblog *v, int dir, bool here, bool wrap)
{
	size_t i, n = v->list.nmap, k, sel = v->list.sel;

	if (app_filter(v->app)[0] == '\0' || n == 0)
		return false;
	for (k = here ? 0 : 1; k <= n; k++) {
		if (!wrap && (dir > 0 ? sel + k >= n : k > sel))
			return false;
		i = (sel + (dir > 0 ? k : n - k % n)) % n;
		if (app_filter_match(v->app,
		    line_at(v, v->list.map[i])->text)) {
			v->list.sel = i;
			v->follow = false;
			return true;
		}
	}
	return false;
}

/* Where to look on the host, in order, for the next match in direction
 * dir past the lines held: the events beyond them that way, then (round
 * the run) those beyond the other end.  The number of ranges. */
static int
find_ranges(struct joblog *v, int dir, struct find_range r[2])
{
	int64_t first = held_seq(v, false), last = held_seq(v, true);
	struct find_range older = { 1, first - 1, dir < 0 };
	struct find_range newer = { last + 1, 0, dir < 0 };
	int k = 0;

	if (dir > 0 && v->cut)
		r[k++] = newer;
	if (first > 1)
		r[k++] = older;
	if (dir < 0 && v->cut)
		r[k++] = newer;
	return k;
}

/* Ask the host for the next range's match; false when none is left. */
static bool
find_next_range(struct joblog *v)
{
	struct strv argv = { NULL, 0, 0 };
	struct find_range *r;
	struct transport *t;
	char err[256];

	if (v->find_at >= v->nfind)
		return false;
	r = &v->find[v->find_at++];
	v->found[0] = '\0';
	hostcmd_tail_find(&argv, v->id, v->search, r->from, r->until, r->last);
	if ((t = labmodel_transport(app_labmodel(v->app), v->host, err,
	    sizeof err)) == NULL || (v->finding = transport_exec(t, argv.v,
	    &find_cb, v, err, sizeof err)) == NULL)
		app_message(v->app, true, "cannot search the run: %s", err);
	strv_free(&argv);
	return v->finding != NULL;
}

/*
 * The next or previous match: among the lines held, else in the rest of
 * the run, asked of the host (the lines around the event it names are
 * paged in), else round the lines held.  False when nothing matches (or
 * is being looked for).
 */
static bool
search_jump(struct joblog *v, int dir, bool here)
{
	if (v->finding != NULL)
		return true;
	if (held_jump(v, dir, here, false))
		return true;
	v->nfind = find_ranges(v, dir, v->find);
	v->find_at = 0;
	v->find_dir = dir;
	if (app_filter(v->app)[0] != '\0' && find_next_range(v))
		return true;
	return held_jump(v, dir, here, true);
}

static void
joblog_update(struct app *a, void *data)
{
	struct joblog *v = data;

	v->app = a;
	rebuild(v);
	/* A new search starts at the selection (a match on it counts). */
	if (strcmp(app_filter(a), v->search) != 0) {
		snprintf(v->search, sizeof v->search, "%s", app_filter(a));
		/* What the host looks for is the search typed so far. */
		if (v->finding != NULL)
			transport_rstream_cancel(v->finding);
		v->finding = NULL;
		if (v->list.nmap > 0 && app_filter(a)[0] != '\0') {
			if (!search_jump(v, 1, true))
				app_message(a, true, "no line matches '%s'",
				    app_filter(a));
		}
	}
}

static enum level
level_of(const char *s)
{
	size_t i;

	for (i = 0; s != NULL && i < nitems(level_names); i++)
		if (strcmp(s, level_names[i]) == 0)
			return (enum level)i;
	return LV_INFO;
}

/* A metric's value as it came: a number in the unit the Soak screen draws
 * the metric in (when it draws it), else as evtext writes it (a tool that
 * sent "abc" for a latency as it is, flagged: never 0). */
static void
add_value(struct buf *b, const char *metric, const json_t *v)
{
	enum graph_unit u = metric != NULL ? soak_unit(metric) : GU_NONE;
	char num[32];

	if (json_is_number(v) && u != GU_NONE) {
		graph_format(json_number_value(v), u, num, sizeof num);
		buf_adds(b, num);
	} else
		evtext_value(b, metric, v);
}

/* The selection stays on its line when k lines went before it (or on the
 * first held), until the rows are made again. */
static void
shift_selection(struct joblog *v, size_t k, bool up)
{
	size_t *rec;

	if (v->list.sel >= v->list.nmap)
		return;
	rec = &v->list.map[v->list.sel];
	*rec = up ? *rec + k : *rec >= k ? *rec - k : 0;
}

/*
 * A line of the log: into the page being fetched (paging), else after
 * those held, unless the newest went (they are paged back from the host).
 * The oldest held go when too many are.
 */
static void
add_line(struct joblog *v, bool paging, char *text, enum level lv,
    int64_t seq, bool aside)
{
	struct log_line l = { text, lv, seq, aside };
	size_t cut;

	if (!paging && v->cut) {
		free(text);
		return;
	}
	if (strlen(text) > JOBLOG_TEXT_MAX) {
		for (cut = JOBLOG_TEXT_MAX; cut > 0 &&
		    ((unsigned char)text[cut] & 0xc0) == 0x80; cut--)
			;
		text[cut] = '\0';
	}
	if (paging)
		linewin_push(&v->win, &l);
	else
		shift_selection(v, linewin_add(&v->win, &l, 1, false), false);
}

/*
 * A line of tail's standard error (its own word, shown as it is), or one
 * the follower's rule refused as no event: said with why, its text not
 * shown (the mirror does not hold it either).
 */
static void
aside_line(struct joblog *v, bool paging, const char *what, const char *text,
    size_t len)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%-8s %-8s %-5s %.*s", "--:--:--", what, "warn",
	    (int)(len > JOBLOG_TEXT_MAX ? JOBLOG_TEXT_MAX : len), text);
	add_line(v, paging, buf_detach(&b, NULL), LV_WARN, paging ?
	    v->paged.last_seq : v->taken.last_seq, true);
	v->stale = true;
	app_redraw(v->app);
}

/* One event line into one line of text, when the follower's rule takes
 * it (follow.h): of the live stream (st: taken), or of a page (paged). */
static void
take_line(struct joblog *v, bool paging, const char *line, size_t len,
    bool cut)
{
	struct follow_stats *st = paging ? &v->paged : &v->taken;
	char *vday = paging ? v->pday : v->day;
	struct buf b = BUF_INIT;
	struct event ev;
	json_t *o = NULL;
	const char *type, *lvs;
	enum level lv = LV_INFO;
	char when[16] = "--:--:--", day[16], *why;
	struct tm tm;
	time_t t;
	double ts;

	switch (follow_judge(st, line, len, cut, &ev)) {
	case FOLLOW_TAKE:
		break;
	case FOLLOW_BAD:
		why = xasprintf("not an event, not kept: %s", ev.err);
		aside_line(v, paging, "refused", why, strlen(why));
		free(why);
		return;
	default:
		app_redraw(v->app);	/* the status line counts it */
		return;
	}
	if ((o = json_loadb(line, len, 0, NULL)) == NULL ||
	    (type = json_string_value(json_object_get(o, "type"))) == NULL) {
		json_decref(o);		/* never: the rule parsed it */
		return;
	}
	ts = json_number_value(json_object_get(o, "ts"));
	if (ts >= 0 && ts < EVENT_TS_MAX && (t = (time_t)ts,
	    localtime_r(&t, &tm) != NULL)) {
		strftime(when, sizeof when, "%H:%M:%S", &tm);
		/* The date once, and again where the log crosses midnight. */
		strftime(day, sizeof day, "%Y-%m-%d", &tm);
		if (strcmp(day, vday) != 0) {
			snprintf(vday, sizeof v->day, "%s", day);
			add_line(v, paging, xasprintf("%-8s %-8s %-5s %s", "",
			    "date", "", day), LV_INFO, ev.seq, false);
		}
	}
	lvs = json_string_value(json_object_get(o, "level"));
	if (strcmp(type, "log") == 0)
		lv = level_of(lvs);
	else if (strcmp(type, "end") == 0 || strcmp(type, "fault") == 0)
		lv = LV_WARN;
	else if (strcmp(type, "gap") == 0 || strcmp(type, "stalled") == 0)
		lv = LV_ERROR;
	else if (strcmp(type, "resumed") == 0)
		lv = LV_WARN;
	buf_addf(&b, "%-8s %-8.8s %-5s ", when, type, strcmp(type, "log") == 0 ?
	    level_names[lv] : "");
	/* The words `tail --find` looks in on the host (evtext.h). */
	evtext_message(o, type, add_value, &b);
	json_decref(o);
	add_line(v, paging, buf_detach(&b, NULL), lv, ev.seq, false);
	/* The rows are made again once per frame, not once per line: a
	 * soak's log is read back at 100,000s of lines. */
	v->stale = true;
	app_redraw(v->app);
}

static void
event_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct joblog *v = arg;

	(void)rs;
	if (from_stderr)
		aside_line(v, false, "stderr", line, len);
	else
		take_line(v, false, line, len, cut);
}

static void
tail_done(struct rstream *rs, const struct rstream_exit *e, void *arg)
{
	struct joblog *v = arg;

	(void)rs;
	v->rs = NULL;
	if (v->taken.ended)
		snprintf(v->state, sizeof v->state, "ended");
	else if (e->code == 3)
		snprintf(v->state, sizeof v->state, "lost: its supervisor is "
		    "gone");
	else
		snprintf(v->state, sizeof v->state, "the log stopped: %.100s",
		    e->err != NULL ? e->err : e->sig > 0 ? "tail was killed" :
		    "tail failed");
	app_redraw(v->app);
}

static const struct rstream_cb tail_cb = { event_line, tail_done };

/* The seq of the first (last) event held, 0 when none is: a first line
 * that is an aside came after its seq's event, which is not held. */
static int64_t
held_seq(const struct joblog *v, bool last)
{
	const struct log_line *l;

	if (v->win.n == 0)
		return 0;
	l = line_at(v, last ? v->win.n - 1 : 0);
	return l->seq + (!last && l->aside ? 1 : 0);
}

static void
page_line(struct linewin *w, const char *line, size_t len, bool cut,
    void *arg)
{
	(void)w;
	take_line(arg, true, line, len, cut);
}

/* A page came: the selection stays on its line (a jump goes to the first
 * or last), and the newest are back once the page reaches the live ones. */
static void
paged(struct linewin *w, const char *err, enum linewin_where where,
    size_t added, size_t dropped, void *arg)
{
	struct joblog *v = arg;

	if (err != NULL) {
		app_message(v->app, true, "cannot page the log in: %s", err);
		app_redraw(v->app);
		return;
	}
	if (where == LINEWIN_BEFORE)
		shift_selection(v, added, true);
	else if (where == LINEWIN_AFTER)
		shift_selection(v, dropped, false);
	v->cut = held_seq(v, true) < v->taken.last_seq;
	rebuild(v);
	if (where == LINEWIN_INSTEAD)
		v->list.sel = v->follow && v->list.nmap > 0 ?
		    v->list.nmap - 1 : 0;
	if (where == LINEWIN_INSTEAD && !v->follow)
		v->list.top = 0;
	if (v->want > 0)
		to_found(v);
	/* Following, the live lines that came meanwhile are paged too. */
	if (v->cut && v->follow && w->n > 0)
		page(v, held_seq(v, true) + 1, held_seq(v, true) + JOBLOG_CHUNK,
		    LINEWIN_AFTER);
	app_redraw(v->app);
}

/* The line of the event the host found, paged in: selected. */
static void
to_found(struct joblog *v)
{
	size_t i;

	for (i = 0; i < v->list.nmap; i++) {
		if (line_at(v, v->list.map[i])->seq == v->want &&
		    app_filter_match(v->app, line_at(v, v->list.map[i])->text))
			break;
	}
	/* Its message had the text, its line does not (it was cut): the
	 * first line of its event. */
	if (i == v->list.nmap)
		for (i = 0; i < v->list.nmap &&
		    line_at(v, v->list.map[i])->seq < v->want; i++)
			;
	v->list.sel = i < v->list.nmap ? i : 0;
	v->want = 0;
}

static void
find_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct joblog *v = arg;

	(void)rs;
	(void)cut;
	if (!from_stderr && v->found[0] == '\0')
		snprintf(v->found, sizeof v->found, "%.*s",
		    (int)(len < 31 ? len : 31), line);
}

/* The host said where the next match is (paged in around it), or that
 * none is in that range: the next range, else round the lines held. */
static void
find_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct joblog *v = arg;
	char why[80];
	long seq;

	(void)rs;
	v->finding = NULL;
	if (ex->err != NULL || ex->code != 0)
		app_message(v->app, true, "cannot search the run: %s",
		    ex->err != NULL ? ex->err : "tail --find failed");
	else if (v->found[0] != '\0' && hostcmd_line_of_parse(v->found,
	    strlen(v->found), &seq, why, sizeof why) != 0)
		app_message(v->app, true, "cannot search the run: %s", why);
	else if (v->found[0] != '\0') {
		v->follow = false;
		v->want = seq;
		page(v, seq > JOBLOG_CHUNK / 2 ? seq - JOBLOG_CHUNK / 2 : 1,
		    (seq > JOBLOG_CHUNK / 2 ? seq - JOBLOG_CHUNK / 2 : 1) +
		    JOBLOG_CHUNK - 1, LINEWIN_INSTEAD);
	} else if (!find_next_range(v) &&
	    !held_jump(v, v->find_dir, false, true))
		app_message(v->app, true, "no line matches '%s'", v->search);
	app_redraw(v->app);
}

static const struct rstream_cb find_cb = { find_line, find_done };

static void
release_line(void *item)
{
	free(((struct log_line *)item)->text);
}

static const struct linewin_ops page_ops = { page_line, paged, release_line };

/* Fetch the events from..until of the run from the host, put where told. */
static void
page(struct joblog *v, int64_t from, int64_t until, enum linewin_where where)
{
	struct strv argv = { NULL, 0, 0 };
	struct transport *t;
	char err[256];

	if (linewin_busy(&v->win) || until < from)
		return;
	memset(&v->paged, 0, sizeof v->paged);
	v->paged.last_seq = from - 1;
	v->pday[0] = '\0';
	v->pfrom = from;
	v->puntil = until;
	hostcmd_tail_range(&argv, v->id, from, until);
	if ((t = labmodel_transport(app_labmodel(v->app), v->host, err,
	    sizeof err)) == NULL)
		app_message(v->app, true, "cannot page the log in: %s", err);
	else if (linewin_fetch(&v->win, t, v->host, argv.v, where) != 0)
		app_message(v->app, true, "cannot page the log in: %s",
		    v->win.err);
	strv_free(&argv);
}

static void *
joblog_open(struct app *a, const void *arg)
{
	struct joblog *v = xcalloc(1, sizeof *v);
	const char *const *job = arg;
	struct strv argv = { NULL, 0, 0 };
	char err[256];
	struct transport *t;

	v->app = a;
	v->host = xstrdup(job[0]);
	v->id = xstrdup(job[1]);
	v->follow = true;
	v->min_level = LV_DEBUG;
	linewin_init(&v->win, sizeof(struct log_line), JOBLOG_MAX, &page_ops,
	    v);
	snprintf(v->state, sizeof v->state, "following");
	hostcmd_tail(&argv, v->id, 1, true);
	if ((t = labmodel_transport(app_labmodel(a), v->host, err,
	    sizeof err)) == NULL || (v->rs = transport_exec(t, argv.v,
	    &tail_cb, v, err, sizeof err)) == NULL)
		snprintf(v->state, sizeof v->state, "cannot read the log: %.100s",
		    err);
	strv_free(&argv);
	return v;
}

static void
joblog_close(void *data)
{
	struct joblog *v = data;

	if (v->rs != NULL)
		transport_rstream_cancel(v->rs);
	if (v->finding != NULL)
		transport_rstream_cancel(v->finding);
	linewin_release(&v->win);
	list_release(&v->list);
	free(v->host);
	free(v->id);
	free(v);
}

/* The rows line i takes at width w. */
static int
line_rows(const struct joblog *v, const char *clean, int w)
{
	size_t n, left = strlen(clean);
	int rows = 0;

	if (!v->wrap)
		return 1;
	do {
		n = ui_fit(clean, w);
		if (n == 0)
			n = left;
		clean += n;
		left -= n;
		rows++;
	} while (left > 0);
	return rows;
}

/* Draw one line from row y, wrapped when asked; returns the rows used. */
static int
draw_line(struct joblog *v, const struct log_line *l, int y, int end,
    int cols, bool sel)
{
	static const enum role roles[] = { ROLE_DIM, ROLE_NORMAL, ROLE_WARN,
	    ROLE_ERROR };
	enum role r = sel ? ROLE_SELECTION : roles[l->level];
	bool match = app_filter(v->app)[0] != '\0' &&
	    app_filter_match(v->app, l->text);
	char *clean, *part;
	const char *m;
	size_t n;
	int rows = 0;

	if (!v->wrap) {
		if (sel)
			ui_fill(stdscr, y, 0, ROLE_SELECTION);
		if (match)
			ui_putf(stdscr, y, 0, 1, sel ? r : ROLE_RUNNING, "%s",
			    ui_glyph("▸", ">"));
		ui_put(stdscr, y, 1, cols - 2, r, l->text, false);
		return 1;
	}
	clean = text_sanitize_str(l->text);
	m = clean;
	do {
		if ((n = ui_fit(m, cols - 2)) == 0)
			n = strlen(m);
		part = xstrndup(m, n);
		if (sel)
			ui_fill(stdscr, y + rows, 0, ROLE_SELECTION);
		if (match && rows == 0)
			ui_putf(stdscr, y, 0, 1, sel ? r : ROLE_RUNNING, "%s",
			    ui_glyph("▸", ">"));
		ui_put(stdscr, y + rows, 1, cols - 2, r, part, false);
		free(part);
		m += n;
		rows++;
	} while (*m != '\0' && y + rows < end);
	free(clean);
	return rows;
}

/* Wrapped, a line may take several rows: move the top down until the
 * selected line fits whole. */
static void
scroll_wrapped(struct joblog *v, int rows, int cols)
{
	size_t i;
	int used;
	char *clean;

	for (;;) {
		for (i = v->list.top, used = 0; i <= v->list.sel &&
		    i < v->list.nmap; i++) {
			clean = text_sanitize_str(
			    line_at(v, v->list.map[i])->text);
			used += line_rows(v, clean, cols - 2);
			free(clean);
		}
		if (used <= rows || v->list.top >= v->list.sel)
			return;
		v->list.top++;
	}
}

static void
joblog_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct joblog *v = data;
	size_t i;
	int y, body = rows - 1;
	char *head;

	(void)a;
	if (v->stale)
		rebuild(v);
	/* Through the sanitiser: the id came from the host. */
	head = xasprintf("job %s on %s %s %-8s %-8s %-5s %s", v->id, v->host,
	    ui_glyph("—", "-"), "TIME", "TYPE", "LEVEL", "MESSAGE");
	list_draw_header(top, 0, cols, head);
	free(head);
	if (v->follow && v->list.nmap > 0)
		v->list.sel = v->list.nmap - 1;
	/* A wrapped line takes several rows: this screen draws its own. */
	list_place(&v->list, top + 1, 0, body, cols);
	list_scroll(&v->list, body);
	if (v->wrap)
		scroll_wrapped(v, body, cols);
	for (i = v->list.top, y = top + 1; i < v->list.nmap &&
	    y < top + 1 + body; i++)
		y += draw_line(v, line_at(v, v->list.map[i]), y,
		    top + 1 + body, cols, i == v->list.sel);
	if (v->list.nmap == 0)
		ui_putf(stdscr, top + 2, 2, cols - 4, ROLE_DIM, "%s",
		    v->win.n == 0 ? "no events yet" :
		    "no line has the level shown");
}

/* To the newest events, following them: paged back when they went. */
static void
to_end(struct joblog *v)
{
	int64_t last = v->taken.last_seq;

	v->follow = true;
	if (v->cut)
		page(v, last > JOBLOG_CHUNK ? last - JOBLOG_CHUNK + 1 : 1,
		    last, LINEWIN_INSTEAD);
}

/*
 * A move; past the first line held the events before it are paged in
 * from the host, g and Home go to the run's first, and past the last held
 * (when the newest went) the ones after it.
 */
static int
step(struct joblog *v, enum action act)
{
	int64_t first = held_seq(v, false), last = held_seq(v, true);

	if (act == ACT_HOME && first > 1) {
		v->follow = false;
		page(v, 1, JOBLOG_CHUNK, LINEWIN_INSTEAD);
		return R_REDRAW;
	}
	if (act == ACT_END && v->cut) {
		to_end(v);
		return R_REDRAW;
	}
	if (list_action(&v->list, act)) {
		/* At the bottom, the log is followed again. */
		v->follow = !v->cut && v->list.sel + 1 == v->list.nmap;
		return R_REDRAW;
	}
	if (first > 1 && (act == ACT_UP || act == ACT_PAGE_UP)) {
		v->follow = false;
		page(v, first > JOBLOG_CHUNK ? first - JOBLOG_CHUNK : 1,
		    first - 1, LINEWIN_BEFORE);
	} else if (v->cut && (act == ACT_DOWN || act == ACT_PAGE_DOWN))
		page(v, last + 1, last + JOBLOG_CHUNK, LINEWIN_AFTER);
	else
		return R_NONE;
	return R_REDRAW;
}

static int
joblog_action(struct app *a, void *data, enum action act)
{
	struct joblog *v = data;

	if (v->stale)
		rebuild(v);
	switch (act) {
	case ACT_FOLLOW:
		if (!v->follow) {
			to_end(v);
			app_message(a, false, "follow on");
			return R_REDRAW;
		}
		v->follow = false;
		app_message(a, false, "follow %s", v->follow ? "on" : "off");
		return R_REDRAW;
	case ACT_WRAP:
		v->wrap = !v->wrap;
		app_message(a, false, "wrap %s", v->wrap ? "on" : "off");
		return R_REDRAW;
	case ACT_LEVEL:
		v->min_level = (v->min_level + 1) % nitems(level_names);
		if (v->min_level == LV_DEBUG)
			app_message(a, false, "showing every level");
		else
			app_message(a, false, "showing %s and up",
			    level_names[v->min_level]);
		rebuild(v);
		return R_REDRAW;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		if (app_filter(a)[0] == '\0') {
			app_message(a, true, "no search: / first");
			return R_REDRAW;
		}
		if (!search_jump(v, act == ACT_SEARCH_NEXT ? 1 : -1, false))
			app_message(a, true, "no line matches '%s'",
			    app_filter(a));
		return R_REDRAW;
	case ACT_ENTER:
		return R_NONE;
	default:
		return step(v, act);
	}
}

static void
joblog_status(struct app *a, void *data, char *buf, size_t len)
{
	struct joblog *v = data;
	const char *dot = ui_glyph("·", "-");
	char held[96] = "", refused[64] = "";
	uint64_t nref = v->taken.bad + v->taken.duplicates + v->taken.late;
	int64_t first = held_seq(v, false), last = held_seq(v, true);

	(void)a;
	/* The lines held are a part of the run: which, and what is next. */
	if (v->finding != NULL)
		snprintf(held, sizeof held, " %s searching the run on %s%s",
		    dot, v->host, ui_glyph("…", "..."));
	else if (linewin_busy(&v->win))
		snprintf(held, sizeof held, " %s paging in events %lld-%lld%s",
		    dot, (long long)v->pfrom, (long long)v->puntil,
		    ui_glyph("…", "..."));
	else if (first > 1 || v->cut)
		snprintf(held, sizeof held, " (events %lld-%lld of %lld)",
		    (long long)first, (long long)last,
		    (long long)v->taken.last_seq);
	/* What the mirror would not keep either: not shown, counted. */
	if (nref > 0)
		snprintf(refused, sizeof refused, " %s %llu refused", dot,
		    (unsigned long long)nref);
	snprintf(buf, len, "%zu of %zu lines%s%s %s %s %s follow %s (F) %s %s "
	    "(v) %s wrap %s (w)", v->list.nmap, v->win.n, held, refused, dot,
	    v->state, dot, v->follow ? "on" : "off", dot, v->min_level ==
	    LV_DEBUG ? "all levels" : level_names[v->min_level], dot, v->wrap ?
	    "on" : "off");
}

static const struct keybinding joblog_keys[] = {
	{ 'F', ACT_FOLLOW, "F" },
	{ 'n', ACT_SEARCH_NEXT, "n" },
	{ 'N', ACT_SEARCH_PREV, "N" },
	{ 'v', ACT_LEVEL, "v" },
	{ 'w', ACT_WRAP, "w" },
	{ 0, ACT_NONE, NULL },
};

const struct view_ops joblog_view = {
	.title = "Job log",
	.keys = joblog_keys,
	.open = joblog_open,
	.close = joblog_close,
	.draw = joblog_draw,
	.action = joblog_action,
	.update = joblog_update,
	.status = joblog_status,
};

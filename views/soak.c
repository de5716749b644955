/*
 * soak.c: the live soak (README.md, the Soak screen): a soak job's
 * metrics as a grid of graphs (graph.c) with the G0 SLA drawn on the
 * latencies and the success rate, a time cursor shared by every graph, the
 * keys and the timer.  The header rows (state, elapsed time and ETA,
 * freshness, the G9 leak rule judged live), the alert journal (alerts.h)
 * and starting a soak are soakpane.c's.
 *
 * Which soak.  Every soak of the lab, whoever started it: the lab model
 * learns of each host's jobs itself (labpoll.h: every running one and those
 * of the last day, caught up from the host's events, then live) and this
 * screen shows what it holds, listing no host's jobs of its own.  With
 * more than one and none chosen, it lists them (soaklist.c: host, id, who
 * started it, state), Enter watching one, q or Esc coming back to the
 * list.  It shows the one asked for (Enter or s on the Jobs screen pushes
 * it with its "host/id"; Enter on the list, n steps to the next), else the
 * newest running, else the newest.
 *
 * Two clocks.  Samples carry tool time, which the simulator runs thousands
 * of times faster than the wall: graphs, elapsed time and the cursor are in
 * tool time, and a live job's "now" is its last sample's ts plus the wall
 * time since its last event, so a stream gone quiet shows a growing gap.
 * While its host is not up or replays what it held (soakpane_link), "now"
 * stays at the last event: the windows do not slide, the headlines hold
 * their values and say for how long, and no ETA is guessed.
 * Freshness is the wall clock's (soakpane.c).  A 1 s timer redraws while
 * the view is on top and its job is live, and only then: an idle console
 * stays idle.
 */
#include "calops.h"

#include <math.h>

#include "job/jobevent.h"
#include "metrics/alerts.h"
#include "metrics/metrics.h"
#include "metrics/metricsview.h"
#include "views/app/app.h"
#include "views/core/ui.h"
#include "views/soak_int.h"
#include "views/soakpane.h"

#define SOAK_TICK_MS	1000
#define SOAK_GRAPH_MIN	4	/* rows of a graph: its title and 3 of plot */
#define SOAK_GRAPH_W	38	/* columns a graph wants at least */

static const double zooms[] = { 60, 300, 600, 1800, 3600, 10800, 21600,
    43200, 86400 };

static const struct {
	enum mwin	 w;
	const char	*name;
} windows[] = {
	{ MWIN_1M, "1 min" }, { MWIN_10M, "10 min" }, { MWIN_1H, "1 h" },
	{ MWIN_RUN, "whole run" },
};

enum agg { AGG_MAX, AGG_SUM, AGG_LAT, AGG_RATE };

/* The graphs, most wanted first: a small terminal shows the first ones. */
static const struct gdef {
	const char	*title;
	const char	*metric;	/* what is graphed */
	const char	*raw;		/* latencies: the samples behind it */
	enum graph_unit	 unit;
	enum graph_mode	 mode;
	int		 sla;		/* labmodel_sla()'s index, or -1 */
	enum agg	 agg;		/* the headline, merged over chips */
	const char	*capacity;	/* the metric it is used against */
} gdefs[] = {
	{ "TTFT", "ttft_ms" ALERT_P99, "ttft_ms", GU_MS, GRAPH_BAND, 0,
	    AGG_LAT, NULL },
	{ "TPOT", "tpot_ms" ALERT_P99, "tpot_ms", GU_MS, GRAPH_BAND, 1,
	    AGG_LAT, NULL },
	{ "success", "request_ok", NULL, GU_RATIO, GRAPH_MEAN, 2, AGG_RATE,
	    NULL },
	{ "RSS", "rss_bytes", NULL, GU_BYTES, GRAPH_BAND, -1, AGG_MAX, NULL },
	{ "device mem", "device_mem_bytes", NULL, GU_BYTES, GRAPH_BAND, -1,
	    AGG_MAX, NULL },
	{ "KV used", "kv_used", NULL, GU_COUNT, GRAPH_BAND, -1, AGG_MAX,
	    "kv_capacity" },
	{ "temp", "temp_c", NULL, GU_CELSIUS, GRAPH_BAND, -1, AGG_MAX, NULL },
	{ "errors", "errors", NULL, GU_COUNT, GRAPH_BAND, -1, AGG_SUM, NULL },
	{ "power", "power_w", NULL, GU_WATTS, GRAPH_BAND, -1, AGG_MAX, NULL },
	{ "pool used", "pool_used", NULL, GU_COUNT, GRAPH_BAND, -1, AGG_MAX,
	    "pool_capacity" },
};

/* ---- what every screen shows of the soaks ---- */

void
soak_alerts(struct labmodel *lm, struct soak_alert_count *c)
{
	const struct ljob *j;
	size_t i;

	memset(c, 0, sizeof *c);
	for (i = 0; lm != NULL && i < labmodel_njobs(lm); i++) {
		j = labmodel_job(lm, i);
		if (j->alerts == NULL)
			continue;
		c->open += alerts_nopen(j->alerts);
		c->opened += alerts_count(j->alerts) +
		    alerts_dropped(j->alerts);
	}
}

/* ---- time, and what soakpane.c reads ---- */

/* The job's "now" in tool time (see the top of the file). */
double
soak_job_now(const struct soak *v, const struct ljob *j)
{
	if (isnan(j->last_ts))
		return NAN;
	if (!labmodel_job_live(j) || isnan(j->last_recv) ||
	    v->link != SOAK_LINK_LIVE)
		return j->last_ts;
	return j->last_ts + fmax(0, jobevent_now() - j->last_recv);
}

/* Where the graphs end: now, or with the cursor set a quarter of the span
 * after it, so that it sits at three quarters of every graph (further
 * right near now) with what came after it in view. */
static double
soak_view_end(const struct soak *v, const struct ljob *j)
{
	double now = soak_job_now(v, j);

	return isnan(v->cursor) ? now : fmin(now, v->cursor + zooms[v->zoom] /
	    4);
}

double
soak_zoom(const struct soak *v)
{
	return zooms[v->zoom];
}

/* The headlines' window: the one chosen while the run is live; once it
 * has ended, the whole run, as G9 judges it. */
static enum mwin
shown_window(const struct soak *v, const struct ljob *j)
{
	return labmodel_job_live(j) ? windows[v->win].w : MWIN_RUN;
}

const char *
soak_window_name(const struct soak *v, const struct ljob *j)
{
	return labmodel_job_live(j) ? windows[v->win].name : "whole run";
}

/* The character column of the cursor in a plot pw wide, or -1. */
static int
cursor_column(const struct soak *v, const struct ljob *j, int pw)
{
	double end = soak_view_end(v, j), span = zooms[v->zoom], f;

	if (isnan(v->cursor) || !isfinite(end) || pw < 1)
		return -1;
	f = (v->cursor - (end - span)) / span;
	return f < 0 || f > 1 ? -1 : (int)fmin(f * pw, pw - 1);
}

/* An alert's unit: the graph's that watches its metric. */
enum graph_unit
soak_unit(const char *metric)
{
	size_t i;

	for (i = 0; i < nitems(gdefs); i++)
		if (strcmp(metric, gdefs[i].raw != NULL ? gdefs[i].raw :
		    gdefs[i].metric) == 0)
			return gdefs[i].unit;
	return GU_NONE;
}

/* ---- series ---- */

static int
cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a <
	    *(const int *)b);
}

void
soak_find_chips(struct soak *v, const struct ljob *j)
{
	size_t i, k, n;
	int c;

	v->nchips = 0;
	for (i = 0; i < j->nchips && v->nchips < SOAK_CHIPS_MAX; i++)
		v->chips[v->nchips++] = j->chips[i];
	n = j->metrics != NULL ? metrics_count(j->metrics) : 0;
	for (i = 0; i < n && v->nchips < SOAK_CHIPS_MAX; i++) {
		if ((c = metricsview_series_chip(
			 metrics_series(j->metrics, i))) < 0)
			continue;
		for (k = 0; k < v->nchips && v->chips[k] != c; k++)
			;
		if (k == v->nchips)
			v->chips[v->nchips++] = c;
	}
	qsort(v->chips, v->nchips, sizeof *v->chips, cmp_int);
	if (v->chip >= (int)v->nchips)
		v->chip = -1;
}

/* The series of a metric for the chip shown into v->sel.  A percentile
 * series has its own merged one (chip MCHIP_NONE). */
size_t
soak_select(struct soak *v, const struct ljob *j, const char *name,
    bool derived)
{
	int chip = v->chip >= 0 ? v->chips[v->chip] : derived ? MCHIP_NONE :
	    MCHIP_ANY;
	size_t n;

	if (j->metrics == NULL)
		return 0;
	n = metrics_select(j->metrics, j->host, chip, name, v->sel,
	    SOAK_SERIES_MAX);
	return n < SOAK_SERIES_MAX ? n : SOAK_SERIES_MAX;
}

/* ---- the whole run, as G9 judges it ---- */

int
soak_run_verdict(struct soak *v, const struct ljob *j, char *why, size_t len)
{
	static const char *const leaky[] = { "rss_bytes", "device_mem_bytes" };
	struct leak_verdict lv;
	double sla[3], x[3];
	int chip = v->chip, verdict = 1;
	size_t i, k, n;

	why[0] = '\0';
	labmodel_sla(app_labmodel(v->app), &sla[0], &sla[1], &sla[2]);
	v->chip = -1;	/* merged over every chip, whatever is shown */
	for (k = 0; k < 2; k++) {
		n = soak_select(v, j, gdefs[k].raw, false);
		metricsview_merge_window(v->sel, n, MWIN_RUN, &v->sk);
		x[k] = n > 0 ? sketch_quantile(&v->sk, 0.99) : NAN;
	}
	n = soak_select(v, j, gdefs[2].metric, false);
	x[2] = metricsview_mean(v->sel, n, MWIN_RUN, soak_job_now(v, j));
	for (k = 0; k < 3 && verdict != 0; k++) {
		if (isnan(sla[k]) || isnan(x[k]))
			verdict = -1;
		else if (k == 2 ? x[k] < sla[k] : x[k] > sla[k]) {
			snprintf(why, len, "%s %s SLA", gdefs[k].title,
			    k == 2 ? "under" : "over");
			verdict = 0;
		}
	}
	for (k = 0; k < nitems(leaky) && verdict != 0; k++) {
		n = soak_select(v, j, leaky[k], false);
		for (i = 0; i < n && verdict != 0; i++) {
			metrics_series_leak(v->sel[i], &lv);
			if (lv.evaluated && lv.growing) {
				snprintf(why, len, "%s leaks", k == 0 ? "RSS" :
				    "device mem");
				verdict = 0;
			}
		}
	}
	v->chip = chip;
	/* A run that failed or was killed is no evidence either. */
	if (verdict != 0 && (j->state == LJ_FAILED || j->state == LJ_KILLED ||
	    j->state == LJ_BROKEN)) {
		snprintf(why, len, "run %s", labmodel_job_state_name(j->state));
		verdict = 0;
	}
	return verdict;
}

/* ---- one graph ---- */

/* The sum, or the largest, of the series' last samples; NAN for none. */
static double
lasts(struct mseries *const *s, size_t n, bool sum)
{
	struct mcell tot;
	double x = sum ? 0 : -INFINITY;
	size_t i;

	for (i = 0; i < n; i++) {
		metricsview_series_totals(s[i], &tot);
		x = sum ? x + tot.last : fmax(x, tot.last);
	}
	return n > 0 ? x : NAN;
}

/* The headline of a graph: its value into *x and val, that value's age
 * into age; at is the cursor's column when the cursor is set.  1 when it
 * breaches the SLA, 0 when not, -1 when either is unknown. */
static int
headline(struct soak *v, const struct ljob *j, const struct gdef *d,
    size_t n, const struct mcell *at, double sla, double *x, char *val,
    size_t vlen, char *age, size_t alen)
{
	double now = soak_job_now(v, j), last = -INFINITY;
	enum mwin w = shown_window(v, j);
	char a[16], b[16];
	size_t i;

	*x = NAN;
	age[0] = '\0';
	for (i = 0; i < n; i++)
		last = fmax(last, metricsview_series_last_ts(v->sel[i]));
	/* How old the newest sample is, while the run is live; with its host
	 * away or replaying, how long the value has been held. */
	if (isnan(v->cursor) && labmodel_job_live(j) && v->link !=
	    SOAK_LINK_LIVE) {
		graph_fmt_dur(fmax(jobevent_now() - (isnan(j->last_recv) ?
		    j->started : j->last_recv), 0), a, sizeof a);
		snprintf(age, alen, "held %s", a);
	} else if (isnan(v->cursor) && labmodel_job_live(j) &&
	    isfinite(last) && isfinite(now)) {
		graph_fmt_dur(now - last, a, sizeof a);
		snprintf(age, alen, "%s ago", a);
	}
	if (!isnan(v->cursor)) {
		/* What the cursor's column holds. */
		if (at == NULL || at->count == 0)
			*x = NAN;
		else
			*x = d->mode == GRAPH_MEAN ? at->sum /
			    (double)at->count : d->agg == AGG_MAX ? at->max :
			    at->last;
		graph_format(*x, d->unit, a, sizeof a);
		snprintf(val, vlen, "%s%s", d->agg == AGG_LAT ? "p99 " : "", a);
		snprintf(age, alen, "at cursor");
	} else if (d->agg == AGG_LAT) {
		n = soak_select(v, j, d->raw, false);
		metricsview_merge_window(v->sel, n, w, &v->sk);
		*x = sketch_quantile(&v->sk, 0.99);
		graph_format(*x, d->unit, a, sizeof a);
		graph_format(sketch_quantile(&v->sk, 0.50), d->unit, b,
		    sizeof b);
		snprintf(val, vlen, "p99 %s p50 %s", a, b);
	} else if (d->agg == AGG_RATE) {
		*x = metricsview_mean(v->sel, n, w, now);
		graph_format(*x, d->unit, val, vlen);
	} else {
		*x = lasts(v->sel, n, d->agg == AGG_SUM);
		graph_format(*x, d->unit, a, sizeof a);
		snprintf(val, vlen, "%s%s", n > 1 ? d->agg == AGG_SUM ?
		    "sum " : "max " : "", a);
	}
	if (isnan(sla) || isnan(*x))
		return -1;
	return d->sla == 2 ? *x < sla : *x > sla;
}

/* Which of the ncols columns over (end - span, end] an alert on metric
 * (the chip's, or any chip's when merged) was open in: a crossing in none
 * of them was a dip too brief to alert. */
static void
alerted_columns(const struct soak *v, const struct ljob *j,
    const char *metric, double end, double span, unsigned char *out,
    size_t ncols)
{
	const struct alert *al;
	double t0 = end - span, cw = span / (double)ncols, a, b;
	size_t i, k, first, last;

	memset(out, 0, ncols);
	for (i = 0; j->alerts != NULL && i < alerts_count(j->alerts); i++) {
		al = alerts_get(j->alerts, i);
		if (strcmp(al->metric, metric) != 0 || (v->chip >= 0 &&
		    al->chip != ALERT_MERGED && al->chip != v->chips[v->chip]))
			continue;
		a = (al->start - t0) / cw;
		b = ((isnan(al->end) ? end : al->end) - t0) / cw;
		if (b < 0 || a >= (double)ncols)
			continue;
		first = a < 0 ? 0 : (size_t)a;
		last = b >= (double)ncols ? ncols - 1 : (size_t)b;
		for (k = first; k <= last; k++)
			out[k] = 1;
	}
}

static void
draw_graph(struct soak *v, const struct ljob *j, const struct gdef *d,
    int y, int x, int h, int w, const double *sla)
{
	int pw = w - GRAPH_AXIS - 1, e = x + w - 1, tx = x, cc;
	size_t ncols = (size_t)(pw > 0 ? pw : 1) * graph_dots_x(!ui_utf8()), n;
	struct mcell *cols = xcalloc(ncols, sizeof *cols);
	unsigned char *alerted = NULL;
	double lim = d->sla >= 0 ? sla[d->sla] : NAN, end = soak_view_end(v, j);
	double cap = NAN, val_x;
	struct graph_spec g = { 0 };
	char val[64], age[32], t[16];
	const struct mcell *at = NULL;
	int breach;

	n = soak_select(v, j, d->metric, d->raw != NULL);
	graph_columns(v->sel, n, j->last_ts, end, zooms[v->zoom], cols, ncols);
	if (d->mode == GRAPH_BAND)
		graph_hold(cols, ncols, graph_hold_gap(v->sel, n, j->last_ts -
		    j->first_ts, zooms[v->zoom] / (double)ncols));
	if ((cc = cursor_column(v, j, pw)) >= 0)
		at = &cols[(size_t)cc * (size_t)graph_dots_x(!ui_utf8())];
	breach = headline(v, j, d, n, at, lim, &val_x, val, sizeof val, age,
	    sizeof age);
	if (d->capacity != NULL)
		cap = lasts(v->sel, soak_select(v, j, d->capacity, false),
		    false);
	tx += ui_putf(stdscr, y, tx, e - tx, ROLE_HEADER, "%s ", d->title);
	tx += ui_putf(stdscr, y, tx, e - tx, ROLE_NORMAL, "%s ", val);
	if (isfinite(cap) && cap > 0) {
		/* Used against what there is: the capacity the stream gave. */
		graph_format(cap, d->unit, t, sizeof t);
		tx += ui_putf(stdscr, y, tx, e - tx, ROLE_NORMAL, "of %s ", t);
		if (isfinite(val_x))
			tx += ui_putf(stdscr, y, tx, e - tx, ROLE_NORMAL,
			    "(%.0f%%) ", 100 * val_x / cap);
		lim = cap;
	}
	if (strcmp(d->metric, "errors") == 0 && isnan(v->cursor)) {
		/* The resets' count, which has no graph of its own. */
		graph_format(lasts(v->sel, soak_select(v, j, "resets", false),
		    true), GU_COUNT, t, sizeof t);
		tx += ui_putf(stdscr, y, tx, e - tx, ROLE_NORMAL, "resets %s ",
		    t);
	}
	/* The SLA's verdict before the sample's age: clipped on a narrow
	 * terminal, the age goes first. */
	if (d->sla >= 0 && !isnan(lim)) {
		graph_format(lim, d->unit, t, sizeof t);
		tx += ui_putf(stdscr, y, tx, e - tx, breach > 0 ? ROLE_FAIL :
		    ROLE_DIM, "%s SLA %s ", breach > 0 ? ui_glyph("✘", "x") :
		    breach == 0 ? ui_glyph("✔", "+") : "?", t);
		/* A crossing no alert covered is drawn as a brief dip. */
		alerted = xmalloc(ncols);
		alerted_columns(v, j, d->raw != NULL ? d->raw : d->metric, end,
		    zooms[v->zoom], alerted, ncols);
	}
	ui_putf(stdscr, y, tx, e - tx, ROLE_DIM, "%s", age);
	g.mode = d->mode;
	g.unit = d->unit;
	g.threshold = lim;
	g.below = d->sla == 2;
	g.ascii = !ui_utf8();
	g.alerted = alerted;
	g.has_cursor = cc >= 0;
	g.cursor = cc;
	graph_range(cols, ncols, g.mode, lim, &g.lo, &g.hi);
	if (d->unit == GU_RATIO && g.hi > 1 && g.lo < 1)
		g.hi = 1;
	graph_draw(stdscr, y + 1, x, h - 1, w - 1, &g, cols, ncols);
	free(alerted);
	free(cols);
}

/* ---- the view ---- */

static void
tick(struct loop *l, void *arg)
{
	struct soak *v = arg;

	(void)l;
	v->timer = 0;
	if (app_on_top(v->app, v))
		app_redraw(v->app);
}

static void *
soak_open(struct app *a, const void *arg)
{
	struct soak *v = xcalloc(1, sizeof *v);

	v->app = a;
	v->pin = arg != NULL ? xstrdup(arg) : NULL;
	v->chosen = v->drilled = arg != NULL;
	v->chip = -1;
	v->zoom = SOAK_ZOOM_DEFAULT;
	v->cursor = NAN;
	sketch_init(&v->sk);
	return v;
}

static void
soak_close(void *data)
{
	struct soak *v = data;

	if (v->timer != 0)
		loop_del_timer(app_loop(v->app), v->timer);
	free(v->pin);
	soaklist_remember(v);
	sketch_release(&v->sk);
	list_release(&v->alerts);
	list_release(&v->soaks);
	free(v->list_sel);
	free(v->job);
	free(v);
}

/* The graph grid: as many graphs as fit at SOAK_GRAPH_MIN rows or more. */
static void
draw_grid(struct soak *v, const struct ljob *j, int top, int rows, int cols)
{
	int gc = cols / SOAK_GRAPH_W, gr, gh, gw, i, shown, ay, rl, cc, cx, rx;
	double sla[3], end;
	char left[16], clock[16], right[24], cur[24];

	gc = gc < 1 ? 1 : gc > 3 ? 3 : gc;
	gr = ((int)nitems(gdefs) + gc - 1) / gc;
	if (rows - 1 < gr * SOAK_GRAPH_MIN)
		gr = (rows - 1) / SOAK_GRAPH_MIN;
	if (gr < 1)
		return;
	gh = (rows - 1) / gr;
	gw = cols / gc;
	shown = gr * gc < (int)nitems(gdefs) ? gr * gc : (int)nitems(gdefs);
	labmodel_sla(app_labmodel(v->app), &sla[0], &sla[1], &sla[2]);
	for (i = 0; i < shown; i++)
		draw_graph(v, j, &gdefs[i], top + i / gc * gh, i % gc * gw, gh,
		    gw, sla);
	/* The shared time axis under each column of graphs: the times at its
	 * two ends, and the cursor's under its rule. */
	ay = top + gr * gh;
	end = soak_view_end(v, j);
	graph_fmt_clock(end - zooms[v->zoom], true, left, sizeof left);
	graph_fmt_clock(end, true, clock, sizeof clock);
	snprintf(right, sizeof right, "%s%s", clock, !isnan(v->cursor) ? "" :
	    labmodel_job_live(j) ? " now" : " end");
	rl = (int)strlen(right);
	cc = cursor_column(v, j, gw - GRAPH_AXIS - 1);
	if (cc >= 0) {
		graph_fmt_clock(v->cursor, true, clock, sizeof clock);
		snprintf(cur, sizeof cur, "%s%s", ui_glyph("▲", "^"), clock);
	}
	for (i = 0; i < gc; i++) {
		/* The cursor's label starts at its rule, or ends there when
		 * the rule is near the right end; it wins over the end's. */
		cx = i * gw + GRAPH_AXIS + cc;
		rx = (i + 1) * gw - 1 - rl;
		if (cc >= 0 && cx + 10 > rx)
			cx -= 8;
		ui_putf(stdscr, ay, i * gw + GRAPH_AXIS, 9, ROLE_DIM, "%s",
		    left);
		if (cc < 0 || cx + 10 <= rx)
			ui_putf(stdscr, ay, rx, rl, ROLE_DIM, "%s", right);
		if (cc >= 0 && cx + 10 > rx)
			ui_putf(stdscr, ay, cx, 9, ROLE_WARN, "%s%s", clock,
			    ui_glyph("▲", "^"));
		else if (cc >= 0)
			ui_putf(stdscr, ay, cx, 9, ROLE_WARN, "%s", cur);
	}
	if (shown < (int)nitems(gdefs) && cc < 0)
		ui_putf(stdscr, ay, GRAPH_AXIS + 10, gw - GRAPH_AXIS - 12 - rl,
		    ROLE_DIM, "+%d more", (int)nitems(gdefs) - shown);
}

static void
soak_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct soak *v = data;
	struct ljob *j;
	int pane;

	if (soaklist_showing(v)) {
		soaklist_draw(v, top, rows, cols);
		return;
	}
	if ((j = soaklist_current(v)) == NULL) {
		soakpane_draw_none(a, top, cols);
		return;
	}
	/* The soak on screen stays there: one that appears after it is
	 * listed at the next visit, never drawn over it. */
	v->chosen = true;
	if (labmodel_job_live(j) && v->timer == 0)
		v->timer = loop_add_timer(app_loop(a), SOAK_TICK_MS, tick, v);
	/* The windows slide with the clock only while the host is heard:
	 * away, the headlines hold what the last event left. */
	v->link = soakpane_link(v, j);
	if (j->metrics != NULL && isfinite(soak_job_now(v, j)))
		metrics_tick(j->metrics, soak_job_now(v, j));
	soakpane_draw_header(v, j, top, cols);
	pane = v->pane ? rows / 3 > 3 ? rows / 3 : 3 : 0;
	draw_grid(v, j, top + 3, rows - 3 - pane, cols);
	if (pane > 0)
		soakpane_draw_pane(v, j, top + rows - pane, pane, cols);
}

/* Step the cursor by a quarter of the zoom, never before the run. */
static int
step(struct soak *v, const struct ljob *j, int dir)
{
	double now = soak_job_now(v, j), at, first = j->first_ts;

	if (isnan(now))
		return R_NONE;
	at = (isnan(v->cursor) ? now : v->cursor) + dir * zooms[v->zoom] / 4;
	if (!isnan(first) && at < first + 1)
		at = fmin(first + 1, now);
	v->cursor = at >= now ? NAN : at;
	return R_REDRAW;
}

static int
soak_action(struct app *a, void *data, enum action act)
{
	struct soak *v = data;
	struct ljob *j;
	int r;

	/* The list's keys; q and Esc back out of it as of any screen. */
	if (soaklist_showing(v) && ((r = soaklist_action(a, v, act)) !=
	    R_NONE || act == ACT_BACK || act == ACT_ESCAPE))
		return r;
	j = soaklist_current(v);
	if (act == ACT_RUN)
		return soakpane_ask_start(a);
	/* The journal closes first, then the soak, for the list. */
	if (j != NULL && (act == ACT_BACK || act == ACT_ESCAPE))
		return (r = soakpane_action(a, v, j, act)) != R_NONE ? r :
		    soaklist_back(v);
	if (j == NULL && act == ACT_NEWEST_ALERT)
		app_message(a, false, "no soak on the lab's hosts");
	if (j == NULL)
		return R_NONE;
	switch (act) {
	case ACT_NEXT_SOAK:
		return soaklist_next(a, v);
	case ACT_CHIP:
		v->chip = v->chip + 1 >= (int)v->nchips ? -1 : v->chip + 1;
		return R_REDRAW;
	case ACT_WINDOW:
		if (!labmodel_job_live(j)) {
			app_message(a, false, "the run has ended: the headlines "
			    "are over the whole run, as G9 judges it");
			return R_REDRAW;
		}
		v->win = (v->win + 1) % nitems(windows);
		return R_REDRAW;
	case ACT_ZOOM_IN:
		v->zoom -= v->zoom > 0;
		return R_REDRAW;
	case ACT_ZOOM_OUT:
		v->zoom += v->zoom + 1 < nitems(zooms);
		return R_REDRAW;
	case ACT_LEFT:
		return step(v, j, -1);
	case ACT_RIGHT:
		return step(v, j, 1);
	case ACT_LIVE:
	case ACT_END:
		v->cursor = NAN;
		return R_REDRAW;
	default:
		return soakpane_action(a, v, j, act);
	}
}

static void
soak_status(struct app *a, void *data, char *buf, size_t len)
{
	struct soak *v = data;
	struct ljob *js[LAB_JOBS_MAX];
	size_t at, n;
	char which[64] = "";

	if (soaklist_showing(v)) {
		soaklist_status(v, buf, len);
		return;
	}
	n = soaklist_at(v, &at, js, nitems(js));
	if (n > 1)
		snprintf(which, sizeof which, "soak %zu/%zu n next%s  ", at + 1,
		    n, v->drilled ? "" : "  q list");
	snprintf(buf, len, "%sc chip  w window  +/- zoom  %s/%s cursor  L live"
	    "  A alerts  a ack%s", which, ui_glyph("←", "Left"),
	    ui_glyph("→", "Right"), app_readonly(a) ? "" : "  s start");
}

static const struct keybinding soak_keys[] = {
	{ 'c', ACT_CHIP, "c" },
	{ 'w', ACT_WINDOW, "w" },
	{ '+', ACT_ZOOM_IN, "+" }, { '=', ACT_ZOOM_IN, NULL },
	{ '-', ACT_ZOOM_OUT, "-" },
	{ 'L', ACT_LIVE, "L" },
	{ 'a', ACT_ACK, "a" },
	{ 'A', ACT_ALERTS, "A" },
	{ 's', ACT_RUN, "s" },
	{ 'n', ACT_NEXT_SOAK, "n" },
	{ 0, ACT_NONE, NULL },
};

/* A click in the alerts journal selects the alert drawn there. */
static int
soak_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct soak *v = data;

	(void)a;
	if (soaklist_showing(v))
		return soaklist_click(v, y, x, twice);
	return v->pane && list_click(&v->alerts, y, x) ? R_REDRAW : R_NONE;
}

/* The help's words for what the screen shows. */
static const struct view_note soak_notes[] = {
	{ "headlines", "atop each graph: p99 p50, rate or last value" },
	{ "  over (w)", "the window they are over: 1 min to the whole run" },
	{ "graphs (+ -)", "the span each graph covers: the zoom, 1 min-24 h" },
	{ "cursor (<- ->)", "a time: a rule on every graph, values there" },
	{ "  live (L)", "no cursor: the graphs end now and follow the run" },
	{ "3s ago", "how old a graph's newest sample is" },
	{ "held 2m", "host away or catching up: the value as last heard" },
	{ "SLA line", "G0's SLA; the headline's mark: held or broken" },
	{ "red, #", "beyond the SLA while an alert was open" },
	{ "yellow, !", "beyond it too briefly to alert (a brief dip)" },
	{ "of 16k (21%)", "KV or pool used against the capacity it sent" },
	{ "1h 8h 24h", "G9's evidence: reached by a run that holds (✔ +)," },
	{ "", "by one that breaks the SLA or leaks (✘ x), not yet (·)" },
	{ "ended", "headlines over the whole run, as G9 judges it" },
	{ "merged/4", "every chip merged, or one chip (c)" },
	{ "by alice", "who started the soak (its job's actor)" },
	{ "list (q, Esc)", "the lab's soaks, with more than one: host, job," },
	{ "", "who started it (BY), state; Enter watches one" },
	{ NULL, NULL },
};

const struct view_ops soak_view = {
	.title = "Soak",
	.keys = soak_keys,
	.notes = soak_notes,
	.open = soak_open,
	.close = soak_close,
	.draw = soak_draw,
	.action = soak_action,
	.status = soak_status,
	.click = soak_click,
};

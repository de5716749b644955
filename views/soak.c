/*
 * soak.c: the live soak (issue 4 §6): the newest soak job's metrics as a
 * grid of graphs (graph.c) with the G0 SLA drawn on the latencies and the
 * success rate, a time cursor shared by every graph, the keys and the
 * timer.  The header rows (state, elapsed time and ETA, freshness, the G9
 * leak rule judged live), the alert journal (alerts.h) and starting a soak
 * are soakpane.c's.
 *
 * Two clocks.  Samples carry tool time, which the simulator runs thousands
 * of times faster than the wall: graphs, elapsed time and the cursor are in
 * tool time, and a live job's "now" is its last sample's ts plus the wall
 * time since its last event, so a stream gone quiet shows a growing gap.
 * Freshness is the wall clock's (soakpane.c).  A 1 s timer redraws while
 * the view is on top and its job is live, and only then: an idle console
 * stays idle.
 */
#include "calops.h"

#include <math.h>

#include "job/job.h"
#include "metrics/alerts.h"
#include "metrics/metrics.h"
#include "views/app/app.h"
#include "views/core/ui.h"
#include "views/soak_int.h"

#define SOAK_TICK_MS	1000
#define SOAK_GRAPH_MIN	4	/* rows of a graph: its title and 3 of plot */
#define SOAK_GRAPH_W	38	/* columns a graph wants at least */

static const double zooms[] = { 60, 300, 600, 1800, 3600, 10800, 21600,
    43200, 86400 };
#define ZOOM_DEFAULT	2

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
} gdefs[] = {
	{ "TTFT", "ttft_ms" ALERT_P99, "ttft_ms", GU_MS, GRAPH_BAND, 0,
	    AGG_LAT },
	{ "TPOT", "tpot_ms" ALERT_P99, "tpot_ms", GU_MS, GRAPH_BAND, 1,
	    AGG_LAT },
	{ "success", "request_ok", NULL, GU_RATIO, GRAPH_MEAN, 2, AGG_RATE },
	{ "RSS", "rss_bytes", NULL, GU_BYTES, GRAPH_BAND, -1, AGG_MAX },
	{ "device mem", "device_mem_bytes", NULL, GU_BYTES, GRAPH_BAND, -1,
	    AGG_MAX },
	{ "KV used", "kv_used", NULL, GU_COUNT, GRAPH_BAND, -1, AGG_MAX },
	{ "temp", "temp_c", NULL, GU_CELSIUS, GRAPH_BAND, -1, AGG_MAX },
	{ "errors", "errors", NULL, GU_COUNT, GRAPH_BAND, -1, AGG_SUM },
	{ "power", "power_w", NULL, GU_WATTS, GRAPH_BAND, -1, AGG_MAX },
	{ "pool used", "pool_used", NULL, GU_COUNT, GRAPH_BAND, -1, AGG_MAX },
};

/* ---- time, and what soakpane.c reads ---- */

/* The job's "now" in tool time (see the top of the file). */
double
soak_job_now(const struct ljob *j)
{
	if (isnan(j->last_ts))
		return NAN;
	if (!labmodel_job_live(j) || isnan(j->last_recv))
		return j->last_ts;
	return j->last_ts + fmax(0, jobevent_now() - j->last_recv);
}

/* Where the graphs end: the cursor, or now. */
static double
view_end(const struct soak *v, const struct ljob *j)
{
	return isnan(v->cursor) ? soak_job_now(j) : v->cursor;
}

double
soak_zoom(const struct soak *v)
{
	return zooms[v->zoom];
}

const char *
soak_window_name(const struct soak *v)
{
	return windows[v->win].name;
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

/* The job's chips, from the job or else from its series. */
static void
find_chips(struct soak *v, const struct ljob *j)
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

/* The last column that has a sample, or NULL. */
static const struct mcell *
last_col(const struct mcell *cols, size_t n)
{
	while (n > 0 && cols[n - 1].count == 0)
		n--;
	return n > 0 ? &cols[n - 1] : NULL;
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

/* The headline of a graph: its value into val and that value's age into
 * age; 1 when it breaches the SLA, 0 when not, -1 when either is unknown. */
static int
headline(struct soak *v, const struct ljob *j, const struct gdef *d,
    size_t n, const struct mcell *cols, size_t ncols, double sla, char *val,
    size_t vlen, char *age, size_t alen)
{
	const struct mcell *c = last_col(cols, ncols);
	double now = soak_job_now(j), x = NAN, last = -INFINITY;
	char a[16], b[16];
	size_t i;

	age[0] = '\0';
	for (i = 0; i < n; i++)
		last = fmax(last, metricsview_series_last_ts(v->sel[i]));
	if (isnan(v->cursor) && isfinite(last) && isfinite(now))
		graph_fmt_dur(now - last, age, alen);
	if (!isnan(v->cursor)) {
		/* Rewound: what the cursor's column holds. */
		x = c == NULL ? NAN : d->mode == GRAPH_MEAN ? c->sum /
		    (double)c->count : d->agg == AGG_MAX ? c->max : c->last;
		graph_format(x, d->unit, a, sizeof a);
		snprintf(val, vlen, "%s%s", d->agg == AGG_LAT ? "p99 " : "", a);
		snprintf(age, alen, "at cursor");
	} else if (d->agg == AGG_LAT) {
		n = soak_select(v, j, d->raw, false);
		metricsview_merge_window(v->sel, n, windows[v->win].w, &v->sk);
		x = sketch_quantile(&v->sk, 0.99);
		graph_format(x, d->unit, a, sizeof a);
		graph_format(sketch_quantile(&v->sk, 0.50), d->unit, b,
		    sizeof b);
		snprintf(val, vlen, "p99 %s p50 %s", a, b);
	} else if (d->agg == AGG_RATE) {
		x = metricsview_mean(v->sel, n, windows[v->win].w, now);
		graph_format(x, d->unit, val, vlen);
	} else {
		x = lasts(v->sel, n, d->agg == AGG_SUM);
		graph_format(x, d->unit, a, sizeof a);
		snprintf(val, vlen, "%s%s", n > 1 ? d->agg == AGG_SUM ?
		    "sum " : "max " : "", a);
	}
	if (isnan(sla) || isnan(x))
		return -1;
	return d->sla == 2 ? x < sla : x > sla;
}

static void
draw_graph(struct soak *v, const struct ljob *j, const struct gdef *d,
    int y, int x, int h, int w, const double *sla)
{
	int pw = w - GRAPH_AXIS - 1, e = x + w - 1, tx = x;
	size_t ncols = (size_t)(pw > 0 ? pw : 1) * graph_dots_x(!ui_utf8()), n;
	struct mcell *cols = xcalloc(ncols, sizeof *cols);
	double lim = d->sla >= 0 ? sla[d->sla] : NAN;
	struct graph_spec g = { 0 };
	char val[64], age[32], t[16];
	int breach;

	n = soak_select(v, j, d->metric, d->raw != NULL);
	graph_columns(v->sel, n, j->last_ts, view_end(v, j), zooms[v->zoom],
	    cols, ncols);
	if (d->mode == GRAPH_BAND)
		graph_hold(cols, ncols, graph_hold_gap(v->sel, n, j->last_ts -
		    j->first_ts, zooms[v->zoom] / (double)ncols));
	breach = headline(v, j, d, n, cols, ncols, lim, val, sizeof val, age,
	    sizeof age);
	tx += ui_putf(stdscr, y, tx, e - tx, ROLE_HEADER, "%s ", d->title);
	tx += ui_putf(stdscr, y, tx, e - tx, ROLE_NORMAL, "%s ", val);
	if (strcmp(d->metric, "errors") == 0 && isnan(v->cursor)) {
		/* The resets' count, which has no graph of its own. */
		graph_format(lasts(v->sel, soak_select(v, j, "resets", false),
		    true), GU_COUNT, t, sizeof t);
		tx += ui_putf(stdscr, y, tx, e - tx, ROLE_NORMAL, "resets %s ",
		    t);
	}
	tx += ui_putf(stdscr, y, tx, e - tx, ROLE_DIM, "%s ", age);
	if (!isnan(lim)) {
		graph_format(lim, d->unit, t, sizeof t);
		ui_putf(stdscr, y, tx, e - tx, breach > 0 ? ROLE_FAIL :
		    ROLE_DIM, "%s SLA %s", breach > 0 ? ui_glyph("✘", "x") :
		    breach == 0 ? ui_glyph("✔", "+") : "?", t);
	}
	g.mode = d->mode;
	g.unit = d->unit;
	g.threshold = lim;
	g.below = d->sla == 2;
	g.ascii = !ui_utf8();
	graph_range(cols, ncols, g.mode, lim, &g.lo, &g.hi);
	if (d->unit == GU_RATIO && g.hi > 1 && g.lo < 1)
		g.hi = 1;
	graph_draw(stdscr, y + 1, x, h - 1, w - 1, &g, cols, ncols);
	free(cols);
}

/* ---- the view ---- */

/*
 * How each soak was last looked at (chip, window, zoom, cursor, the alert
 * journal), kept for as long as the console runs: leaving the screen and
 * coming back finds it as it was left.  The oldest of SOAK_REMEMBER soaks
 * is forgotten first.
 */
#define SOAK_REMEMBER	16

static struct remembered {
	char	 job[160];		/* "host/id"; "" for a free slot */
	int	 chip;
	size_t	 win, zoom;
	double	 cursor;
	bool	 pane;
	uint64_t used;			/* when kept: the oldest goes */
} remembered[SOAK_REMEMBER];
static uint64_t remembered_clock;

static void
remember(const struct soak *v)
{
	struct remembered *r = &remembered[0];
	size_t i;

	if (v->job == NULL)
		return;
	for (i = 0; i < nitems(remembered); i++) {
		if (strcmp(remembered[i].job, v->job) == 0) {
			r = &remembered[i];
			break;
		}
		if (remembered[i].used < r->used)
			r = &remembered[i];
	}
	snprintf(r->job, sizeof r->job, "%s", v->job);
	r->chip = v->chip;
	r->win = v->win;
	r->zoom = v->zoom;
	r->cursor = v->cursor;
	r->pane = v->pane;
	r->used = ++remembered_clock;
}

/* The view of job key as it was left, or the defaults. */
static void
recall(struct soak *v, const char *key)
{
	size_t i;

	v->chip = -1;
	v->win = 0;
	v->zoom = ZOOM_DEFAULT;
	v->cursor = NAN;
	v->pane = false;
	for (i = 0; i < nitems(remembered); i++)
		if (strcmp(remembered[i].job, key) == 0) {
			v->chip = remembered[i].chip;
			v->win = remembered[i].win;
			v->zoom = remembered[i].zoom;
			v->cursor = remembered[i].cursor;
			v->pane = remembered[i].pane;
			return;
		}
}

static struct ljob *
current(struct soak *v)
{
	struct ljob *j = labmodel_latest(app_labmodel(v->app), LJOB_SOAK, NULL);
	char *key;

	if (j == NULL)
		return NULL;
	key = xasprintf("%s/%s", j->host, j->id != NULL ? j->id : "");
	if (v->job == NULL || strcmp(key, v->job) != 0) {
		remember(v);
		free(v->job);
		v->job = key;
		recall(v, key);
	} else
		free(key);
	find_chips(v, j);
	return j;
}

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

	(void)arg;
	v->app = a;
	v->chip = -1;
	v->zoom = ZOOM_DEFAULT;
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
	remember(v);
	sketch_release(&v->sk);
	list_release(&v->alerts);
	free(v->job);
	free(v);
}

/* The graph grid: as many graphs as fit at SOAK_GRAPH_MIN rows or more. */
static void
draw_grid(struct soak *v, const struct ljob *j, int top, int rows, int cols)
{
	int gc = cols / SOAK_GRAPH_W, gr, gh, gw, i, shown, ay, el;
	double sla[3];
	char span[16], end[32];

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
	/* The shared time axis, under each column of graphs. */
	ay = top + gr * gh;
	graph_fmt_dur(zooms[v->zoom], span, sizeof span);
	if (isnan(v->cursor))
		snprintf(end, sizeof end, "now");
	else
		graph_fmt_hms(soak_job_now(j) - v->cursor, '-', end,
		    sizeof end);
	el = (int)strlen(end);
	for (i = 0; i < gc; i++) {
		ui_putf(stdscr, ay, i * gw + GRAPH_AXIS, 12, ROLE_DIM, "-%s",
		    span);
		ui_putf(stdscr, ay, (i + 1) * gw - 1 - el, el,
		    isnan(v->cursor) ? ROLE_DIM : ROLE_WARN, "%s", end);
	}
	if (shown < (int)nitems(gdefs))
		ui_putf(stdscr, ay, GRAPH_AXIS + 14, gw - GRAPH_AXIS - 16 - el,
		    ROLE_DIM, "+%d more graphs", (int)nitems(gdefs) - shown);
}

static void
soak_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct soak *v = data;
	struct ljob *j = current(v);
	int pane;

	if (j == NULL) {
		soakpane_draw_none(a, top, cols);
		return;
	}
	if (labmodel_job_live(j) && v->timer == 0)
		v->timer = loop_add_timer(app_loop(a), SOAK_TICK_MS, tick, v);
	if (j->metrics != NULL && isfinite(soak_job_now(j)))
		metrics_tick(j->metrics, soak_job_now(j));
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
	double now = soak_job_now(j), at, first = j->first_ts;

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
	struct ljob *j = current(v);

	if (act == ACT_RUN)
		return soakpane_ask_start(a);
	if (j == NULL)
		return R_NONE;
	switch (act) {
	case ACT_CHIP:
		v->chip = v->chip + 1 >= (int)v->nchips ? -1 : v->chip + 1;
		return R_REDRAW;
	case ACT_WINDOW:
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
	(void)data;
	snprintf(buf, len, "c chip  w window  +/- zoom  %s/%s cursor  L live  "
	    "A alerts  a ack%s", ui_glyph("←", "Left"), ui_glyph("→", "Right"),
	    app_readonly(a) ? "" : "  s start");
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
	{ 0, ACT_NONE, NULL },
};

/* A click in the alerts journal selects the alert drawn there. */
static int
soak_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct soak *v = data;

	(void)a;
	(void)twice;
	return v->pane && list_click(&v->alerts, y, x) ? R_REDRAW : R_NONE;
}

const struct view_ops soak_view = {
	.title = "Soak",
	.keys = soak_keys,
	.open = soak_open,
	.close = soak_close,
	.draw = soak_draw,
	.action = soak_action,
	.status = soak_status,
	.click = soak_click,
};

/*
 * soak.c: the live soak (issue 4 §6): the newest soak job's metrics as a
 * grid of graphs (graph.c) with the G0 SLA drawn on the latencies and the
 * success rate, the G9 leak rule judged live, elapsed time against the
 * 1 h / 8 h / 24 h marks with an ETA, freshness by the wall clock, a time
 * cursor shared by every graph, and the alert journal (alerts.h).
 *
 * Two clocks.  Samples carry tool time, which the simulator runs thousands
 * of times faster than the wall: graphs, elapsed time and the cursor are in
 * tool time, and a live job's "now" is its last sample's ts plus the wall
 * time since its last event, so a stream gone quiet shows a growing gap.
 * Freshness is the wall clock's: STALE after SOAK_STALE_S without an event,
 * LOST after SOAK_LOST_S.  A 1 s timer redraws while the view is on top and
 * its job is live, and only then: an idle console stays idle.
 */
#include "calops.h"

#include <math.h>
#include <time.h>

#include "alerts.h"
#include "app.h"
#include "graph.h"
#include "labmodel.h"
#include "list.h"
#include "metrics.h"
#include "sketch.h"
#include "ui.h"

#define SOAK_TICK_MS	1000
#define SOAK_STALE_S	30.0
#define SOAK_LOST_S	120.0
#define SOAK_GRAPH_MIN	4	/* rows of a graph: its title and 3 of plot */
#define SOAK_GRAPH_W	38	/* columns a graph wants at least */
#define SOAK_CHIPS_MAX	64
#define SOAK_SERIES_MAX	256

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

struct soak {
	struct app	*app;
	char		*job;		/* "host/id" of the job shown */
	int		 chip;		/* -1 merged, else an index in chips */
	int		 chips[SOAK_CHIPS_MAX];
	size_t		 nchips;
	size_t		 win;		/* index in windows */
	size_t		 zoom;		/* index in zooms */
	double		 cursor;	/* tool time, NAN: live */
	bool		 pane;		/* the alert journal shown */
	struct list	 alerts;
	long		 timer;
	struct sketch	 sk;
	struct mseries	*sel[SOAK_SERIES_MAX];
};

/* ---- time ---- */

/* The job's "now" in tool time (see the top of the file). */
static double
job_now(const struct ljob *j)
{
	if (isnan(j->last_ts))
		return NAN;
	if (!ljob_live(j) || isnan(j->last_recv))
		return j->last_ts;
	return j->last_ts + fmax(0, labmodel_now() - j->last_recv);
}

/* Where the graphs end: the cursor, or now. */
static double
view_end(const struct soak *v, const struct ljob *j)
{
	return isnan(v->cursor) ? job_now(j) : v->cursor;
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
		if ((c = mseries_chip(metrics_series(j->metrics, i))) < 0)
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
static size_t
select_series(struct soak *v, const struct ljob *j, const char *name,
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

/* ---- the header ---- */

static const char *
state_glyph(enum ljob_state s, enum role *r)
{
	static const struct {
		const char *utf8, *ascii;
		enum role role;
	} t[] = {
		[LJ_STARTING] = { "…", ".", ROLE_PENDING },
		[LJ_RUNNING] = { "▶", ">", ROLE_RUNNING },
		[LJ_DONE] = { "✔", "+", ROLE_PASS },
		[LJ_FAILED] = { "✘", "x", ROLE_FAIL },
		[LJ_KILLED] = { "⊘", "#", ROLE_BLOCKED },
		[LJ_BROKEN] = { "!", "!", ROLE_ERROR },
	};

	*r = t[s].role;
	return ui_glyph(t[s].utf8, t[s].ascii);
}

/* Elapsed against the marks, and when the target will be reached. */
static int
draw_elapsed(const struct ljob *j, int y, int x, int w)
{
	static const double marks[] = { 3600, 8 * 3600, 86400 };
	double el = isnan(j->first_ts) ? 0 : j->last_ts - j->first_ts, rate;
	double target = j->target_s > 0 ? j->target_s : 86400;
	char e[32], t[32], c[32], in[32];
	size_t i;
	int x0 = x;

	graph_fmt_dur(el, e, sizeof e);
	graph_fmt_dur(target, t, sizeof t);
	x += ui_putf(stdscr, y, x, w - (x - x0), ROLE_NORMAL, "%s/%s ", e, t);
	for (i = 0; i < nitems(marks); i++) {
		graph_fmt_dur(marks[i], c, sizeof c);
		x += ui_putf(stdscr, y, x, w - (x - x0), el >= marks[i] ?
		    ROLE_PASS : ROLE_DIM, "%s%s ", c, el >= marks[i] ?
		    ui_glyph("✔", "+") : ui_glyph("·", "-"));
	}
	if (!ljob_live(j) || !(el > 0) || el >= target)
		return x - x0;
	/* Tool seconds per wall second so far (the simulator's scale). */
	rate = el / fmax(j->last_recv - j->started, 1e-3);
	if (!(rate > 0))
		return x - x0;
	graph_fmt_clock(j->last_recv + (target - el) / rate, (target - el) /
	    rate < 3600, c, sizeof c);
	graph_fmt_dur((target - el) / rate, in, sizeof in);
	return x - x0 + ui_putf(stdscr, y, x, w - (x - x0), ROLE_NORMAL,
	    "ETA %s (%s)", c, in);
}

/* live 2s, STALE 40s, LOST since 14:02 (wall clock), or how it ended. */
static void
freshness(const struct ljob *j, char *buf, size_t len, enum role *r)
{
	double age = labmodel_now() - j->last_recv;
	char c[32];

	if (!ljob_live(j)) {
		*r = ROLE_DIM;
		graph_fmt_clock(isnan(j->last_recv) ? j->started : j->last_recv,
		    false, c, sizeof c);
		snprintf(buf, len, "ended %s", c);
	} else if (isnan(j->last_recv)) {
		*r = ROLE_PENDING;
		snprintf(buf, len, "no event yet");
	} else if (age < SOAK_STALE_S) {
		*r = ROLE_PASS;
		snprintf(buf, len, "live %.0fs", fmax(age, 0));
	} else if (age < SOAK_LOST_S) {
		*r = ROLE_STALE;
		snprintf(buf, len, "STALE %.0fs", age);
	} else {
		*r = ROLE_ERROR;
		graph_fmt_clock(j->last_recv, false, c, sizeof c);
		snprintf(buf, len, "LOST since %s", c);
	}
}

static void
draw_header(struct soak *v, const struct ljob *j, int y, int cols)
{
	char f[64], cur[32], chip[32], z[16];
	enum role r;
	const char *g = state_glyph(j->state, &r);
	int x = 1;

	ui_fill(stdscr, y, 0, ROLE_NORMAL);
	ui_fill(stdscr, y + 1, 0, ROLE_NORMAL);
	x += ui_putf(stdscr, y, x, cols - x, r, "%s %s", g,
	    ljob_state_name(j->state));
	x += ui_putf(stdscr, y, x, cols - x, ROLE_NORMAL, "  ");
	x += ui_put(stdscr, y, x, 40, ROLE_HEADER, j->label != NULL ?
	    j->label : "soak", false);
	x += ui_putf(stdscr, y, x, cols - x, ROLE_DIM, " @");
	x += ui_put(stdscr, y, x, 20, ROLE_DIM, j->host, false);
	x += 2;
	draw_elapsed(j, y, x, cols - x);
	if (j->state == LJ_BROKEN && j->err[0] != '\0')
		ui_put(stdscr, y + 1, 1, cols - 2, ROLE_ERROR, j->err, false);

	freshness(j, f, sizeof f, &r);
	x = 1 + ui_putf(stdscr, y + 1, 1, cols - 2, r, "%s", f);
	if (v->chip < 0)
		snprintf(chip, sizeof chip, "merged/%zu", v->nchips);
	else
		snprintf(chip, sizeof chip, "chip %d/%zu", v->chips[v->chip],
		    v->nchips);
	if (isnan(v->cursor))
		snprintf(cur, sizeof cur, "LIVE");
	else
		graph_fmt_hms(job_now(j) - v->cursor, '-', cur, sizeof cur);
	graph_fmt_dur(zooms[v->zoom], z, sizeof z);
	x += ui_putf(stdscr, y + 1, x, cols - x, ROLE_NORMAL,
	    "  window %s  %s  zoom %s  ", windows[v->win].name,
	    chip, z);
	x += ui_putf(stdscr, y + 1, x, cols - x, isnan(v->cursor) ? ROLE_PASS :
	    ROLE_WARN, "%s", cur);
	if (j->alerts != NULL && alerts_count(j->alerts) > 0)
		ui_putf(stdscr, y + 1, x, cols - x,
		    alerts_nopen(j->alerts) > 0 ? ROLE_FAIL : ROLE_DIM, "  alerts %zu open %zu unacked",
		    alerts_nopen(j->alerts), alerts_nunacked(j->alerts));
}

/* ---- one graph ---- */

/* The headline of a graph: its value into val and that value's age into
 * age; 1 when it breaches the SLA, 0 when not, -1 when either is unknown. */
static int
headline(struct soak *v, const struct ljob *j, const struct gdef *d,
    size_t n, const struct mcell *cols, size_t ncols, double sla, char *val,
    size_t vlen, char *age, size_t alen)
{
	const struct mcell *c = last_col(cols, ncols);
	double now = job_now(j), x = NAN, last = -INFINITY;
	char a[16], b[16];
	struct mcell tot;
	size_t i;

	age[0] = '\0';
	for (i = 0; i < n; i++)
		last = fmax(last, mseries_last_ts(v->sel[i]));
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
		n = select_series(v, j, d->raw, false);
		metrics_merge_window(v->sel, n, windows[v->win].w, &v->sk);
		x = sketch_quantile(&v->sk, 0.99);
		graph_format(x, d->unit, a, sizeof a);
		graph_format(sketch_quantile(&v->sk, 0.50), d->unit, b,
		    sizeof b);
		snprintf(val, vlen, "p99 %s p50 %s", a, b);
	} else if (d->agg == AGG_RATE) {
		x = metrics_mean(v->sel, n, windows[v->win].w, now);
		graph_format(x, d->unit, val, vlen);
	} else {
		x = d->agg == AGG_SUM ? 0 : -INFINITY;
		for (i = 0; i < n; i++) {
			mseries_totals(v->sel[i], &tot);
			x = d->agg == AGG_SUM ? x + tot.last :
			    fmax(x, tot.last);
		}
		graph_format(n > 0 ? x : NAN, d->unit, a, sizeof a);
		snprintf(val, vlen, "%s%s", n > 1 ? d->agg == AGG_SUM ?
		    "sum " : "max " : "", a);
	}
	if (isnan(sla) || isnan(x))
		return -1;
	return d->sla == 2 ? x < sla : x > sla;
}

/* Gap columns a gauge may hold across: its sample interval and a half,
 * estimated from the run so far. */
static size_t
hold_cols(struct mseries *const *s, size_t n, const struct ljob *j,
    double colsec)
{
	struct mcell tot;
	uint64_t count = 0;
	double every;
	size_t i;

	for (i = 0; i < n; i++) {
		mseries_totals(s[i], &tot);
		count += tot.count;
	}
	if (n == 0 || count <= n || !(j->last_ts > j->first_ts))
		return 0;
	every = (j->last_ts - j->first_ts) / ((double)count / (double)n - 1);
	return every > 1e9 ? 0 : (size_t)ceil(1.5 * every / colsec);
}

/* The sum of the resets' lasts, shown beside the errors. */
static void
resets(struct soak *v, const struct ljob *j, char *buf, size_t len)
{
	size_t i, n = select_series(v, j, "resets", false);
	struct mcell tot;
	double sum = 0;

	for (i = 0; i < n; i++) {
		mseries_totals(v->sel[i], &tot);
		sum += tot.last;
	}
	graph_format(n > 0 ? sum : NAN, GU_COUNT, buf, len);
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

	n = select_series(v, j, d->metric, d->raw != NULL);
	graph_columns(v->sel, n, j->last_ts, view_end(v, j), zooms[v->zoom],
	    cols, ncols);
	if (d->mode == GRAPH_BAND)
		graph_hold(cols, ncols, hold_cols(v->sel, n, j,
		    zooms[v->zoom] / (double)ncols));
	breach = headline(v, j, d, n, cols, ncols, lim, val, sizeof val, age,
	    sizeof age);
	tx += ui_putf(stdscr, y, tx, e - tx, ROLE_HEADER, "%s ", d->title);
	tx += ui_putf(stdscr, y, tx, e - tx, ROLE_NORMAL, "%s ", val);
	if (strcmp(d->metric, "errors") == 0 && isnan(v->cursor)) {
		resets(v, j, t, sizeof t);
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

/* ---- the leak rule, the alerts ---- */

/* The leak verdict of a memory metric: the chip's, or merged the worst
 * chip's (the one growing, else the largest growth). */
static int
leak_text(struct soak *v, const struct ljob *j, const char *name, char *buf,
    size_t len)
{
	struct leak_verdict lv, worst = { 0 };
	int wchip = -1, role;
	size_t i, n = select_series(v, j, name, false);
	char g[16];

	for (i = 0; i < n; i++) {
		mseries_leak(v->sel[i], &lv);
		if (!lv.evaluated)
			continue;
		if (!worst.evaluated || (lv.growing && !worst.growing) ||
		    (lv.growing == worst.growing && lv.growth > worst.growth)) {
			worst = lv;
			wchip = mseries_chip(v->sel[i]);
		}
	}
	if (!worst.evaluated) {
		snprintf(buf, len, "not judged yet (12 windows of samples)");
		return ROLE_DIM;
	}
	graph_format(fabs(worst.growth), GU_BYTES, g, sizeof g);
	snprintf(buf, len, "%s %s%s %+.1f%% %s", worst.growing ? "growing" :
	    "flat", worst.growth < 0 ? "-" : "+", g, 100 * worst.growth /
	    worst.medians[0], worst.growing ? ui_glyph("✘ G9.leak", "x G9.leak") :
	    ui_glyph("✔ ok", "+ ok"));
	role = worst.growing ? ROLE_FAIL : ROLE_PASS;
	if (v->chip < 0 && n > 1 && wchip >= 0 && worst.growing)
		snprintf(buf + strlen(buf), len - strlen(buf), " chip %d", wchip);
	/* The alerts wait for an hour of run (alerts.h): say so. */
	if (!(j->last_ts - j->first_ts >= ALERT_LEAK_MIN_S))
		snprintf(buf + strlen(buf), len - strlen(buf), " (early)");
	return role;
}

static void
draw_leak(struct soak *v, const struct ljob *j, int y, int cols)
{
	char t[128];
	int x = 1, r;

	ui_fill(stdscr, y, 0, ROLE_NORMAL);
	x += ui_putf(stdscr, y, x, cols - x, ROLE_HEADER, "leak  rss ");
	r = leak_text(v, j, "rss_bytes", t, sizeof t);
	x += ui_put(stdscr, y, x, cols - x, r, t, false);
	x += ui_putf(stdscr, y, x, cols - x, ROLE_HEADER, "  device ");
	r = leak_text(v, j, "device_mem_bytes", t, sizeof t);
	ui_put(stdscr, y, x, cols - x, r, t, false);
}

static void
draw_alert(const struct ljob *j, const struct alert *al, int y, int cols,
    bool sel)
{
	char s[32], e[32], w[16], t[16], chip[16];
	enum graph_unit u = GU_NONE;
	size_t i;
	enum role r = sel ? ROLE_SELECTION : isnan(al->end) ? ROLE_FAIL :
	    ROLE_NORMAL;

	for (i = 0; i < nitems(gdefs); i++)
		if (strcmp(al->metric, gdefs[i].raw != NULL ? gdefs[i].raw :
		    gdefs[i].metric) == 0)
			u = gdefs[i].unit;
	graph_fmt_hms(al->start - j->first_ts, '+', s, sizeof s);
	if (isnan(al->end))
		snprintf(e, sizeof e, "open");
	else
		graph_fmt_hms(al->end - j->first_ts, '+', e, sizeof e);
	graph_format(al->worst, u, w, sizeof w);
	graph_format(al->threshold, u, t, sizeof t);
	if (al->chip == ALERT_MERGED)
		snprintf(chip, sizeof chip, "merged");
	else
		snprintf(chip, sizeof chip, "chip %d", al->chip);
	if (sel)
		ui_fill(stdscr, y, 0, ROLE_SELECTION);
	ui_putf(stdscr, y, 1, cols - 2, r, "%s %-21s %-7s %s%s%-9s worst %s%s%s"
	    "  %s", isnan(al->end) ? ui_glyph("✘", "x") : ui_glyph("·", "-"),
	    al->rule, chip, s, ui_glyph("→", ">"), e, w, al->below ? "<" : ">",
	    t, al->acked ? "acked" : "unacked");
}

static void
draw_pane(struct soak *v, const struct ljob *j, int y, int rows, int cols)
{
	size_t n = j->alerts != NULL ? alerts_count(j->alerts) : 0, i;
	int r;

	list_rebuild(&v->alerts, n, NULL, NULL);
	ui_fill(stdscr, y, 0, ROLE_HEADER);
	ui_putf(stdscr, y, 1, cols - 2, ROLE_HEADER, "ALERTS  "
	    "%zu, %zu open, %zu unacked%s   Up/Down select  a ack  A hide", n,
	    n > 0 ? alerts_nopen(j->alerts) : 0, n > 0 ?
	    alerts_nunacked(j->alerts) : 0, j->alerts != NULL &&
	    alerts_dropped(j->alerts) > 0 ? " (journal full: later ones "
	    "counted only)" : "");
	if (n == 0) {
		ui_putf(stdscr, y + 1, 2, cols - 4, ROLE_DIM, "no alert: SLA "
		    "and leak rules fire after %.0fs over the line",
		    ALERT_OPEN_S);
		return;
	}
	list_scroll(&v->alerts, rows - 1);
	for (i = v->alerts.top, r = 1; i < v->alerts.nmap && r < rows;
	    i++, r++)
		draw_alert(j, alerts_get(j->alerts, v->alerts.map[i]), y + r,
		    cols, i == v->alerts.sel);
}

/* ---- the view ---- */

static struct ljob *
current(struct soak *v)
{
	struct ljob *j = labmodel_latest(v->app->labm, LJOB_SOAK, NULL);
	char *key;

	if (j == NULL)
		return NULL;
	key = xasprintf("%s/%s", j->host, j->id != NULL ? j->id : "");
	if (v->job == NULL || strcmp(key, v->job) != 0) {
		free(v->job);
		v->job = key;
		v->cursor = NAN;
		v->chip = -1;
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
	if (v->app->depth > 0 && v->app->stack[v->app->depth - 1].data == v)
		v->app->dirty = true;
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
		loop_del_timer(v->app->loop, v->timer);
	sketch_release(&v->sk);
	list_release(&v->alerts);
	free(v->job);
	free(v);
}

static void
draw_none(struct app *a, int top, int cols)
{
	const char *host = a->labm != NULL ?
	    labmodel_default_host(a->labm) : NULL;

	ui_putf(stdscr, top + 1, 2, cols - 4, ROLE_NORMAL, "No soak has run "
	    "from this console yet.");
	if (a->readonly)
		ui_putf(stdscr, top + 2, 2, cols - 4, ROLE_DIM, "read-only: a "
		    "soak cannot be started here");
	else if (host == NULL)
		ui_putf(stdscr, top + 2, 2, cols - 4, ROLE_DIM, "no host with a "
		    "workspace to run one on (see the lab file)");
	else
		ui_putf(stdscr, top + 2, 2, cols - 4, ROLE_NORMAL, "s: start "
		    "one on %s (1h, 8h or 24h)", host);
}

/* The graph grid: as many graphs as fit at SOAK_GRAPH_MIN rows or more. */
static void
draw_grid(struct soak *v, const struct ljob *j, int top, int rows, int cols)
{
	int gc = cols / SOAK_GRAPH_W, gr, gh, gw, i, shown;
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
	labmodel_sla(v->app->labm, &sla[0], &sla[1], &sla[2]);
	for (i = 0; i < shown; i++)
		draw_graph(v, j, &gdefs[i], top + i / gc * gh, i % gc * gw, gh,
		    gw, sla);
	/* The shared time axis, under each column of graphs. */
	graph_fmt_dur(zooms[v->zoom], span, sizeof span);
	if (isnan(v->cursor))
		snprintf(end, sizeof end, "now");
	else
		graph_fmt_hms(job_now(j) - v->cursor, '-', end, sizeof end);
	for (i = 0; i < gc; i++) {
		ui_putf(stdscr, top + gr * gh, i * gw + GRAPH_AXIS, 12, ROLE_DIM,
		    "-%s", span);
		ui_putf(stdscr, top + gr * gh, (i + 1) * gw - 1 - (int)strlen(end),
		    (int)strlen(end), isnan(v->cursor) ? ROLE_DIM : ROLE_WARN,
		    "%s", end);
	}
	if (shown < (int)nitems(gdefs))
		ui_putf(stdscr, top + gr * gh, GRAPH_AXIS + 14, gw - GRAPH_AXIS -
		    16 - (int)strlen(end), ROLE_DIM, "+%d more graphs",
		    (int)nitems(gdefs) - shown);
}

static void
soak_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct soak *v = data;
	struct ljob *j = current(v);
	int pane;

	if (j == NULL) {
		draw_none(a, top, cols);
		return;
	}
	if (ljob_live(j) && v->timer == 0)
		v->timer = loop_add_timer(a->loop, SOAK_TICK_MS, tick, v);
	if (j->metrics != NULL && isfinite(job_now(j)))
		metrics_tick(j->metrics, job_now(j));
	draw_header(v, j, top, cols);
	draw_leak(v, j, top + 2, cols);
	pane = v->pane ? rows / 3 > 3 ? rows / 3 : 3 : 0;
	draw_grid(v, j, top + 3, rows - 3 - pane, cols);
	if (pane > 0)
		draw_pane(v, j, top + rows - pane, pane, cols);
}

/* The duration typed after s: 1h, 8h, 24h (or N with s, m, h). */
static void
start_answer(struct app *a, const char *answer, void *arg)
{
	struct ljob_spec spec = { 0 };
	char err[256], unit = 'h';
	double d;

	(void)arg;
	if (answer == NULL)
		return;
	if (sscanf(answer, "%lf%c", &d, &unit) < 1 || !(d > 0) ||
	    strchr("smh", unit) == NULL) {
		app_message(a, true, "'%s' is not a duration (1h, 8h, 24h)",
		    answer);
		return;
	}
	spec.host = labmodel_default_host(a->labm);
	spec.kind = LJOB_SOAK;
	spec.gate = -1;
	spec.chip = -1;
	spec.duration_s = d * (unit == 'h' ? 3600 : unit == 'm' ? 60 : 1);
	if (labmodel_start(a->labm, &spec, err, sizeof err) == NULL)
		app_message(a, true, "cannot start the soak: %s", err);
	else
		app_message(a, false, "soak of %s started on %s", answer,
		    spec.host);
}

static int
ask_start(struct app *a)
{
	const struct ljob *j = labmodel_latest(a->labm, LJOB_SOAK, NULL);

	if (a->readonly) {
		app_message(a, true, "read-only: a soak cannot be started");
		return R_REDRAW;
	}
	if (labmodel_default_host(a->labm) == NULL) {
		app_message(a, true, "no host with a workspace to run a soak on");
		return R_REDRAW;
	}
	if (j != NULL && ljob_live(j)) {
		app_message(a, true, "a soak is already running on %s", j->host);
		return R_REDRAW;
	}
	app_ask(a, "soak for how long? 1h, 8h or 24h: ", start_answer, NULL);
	return R_REDRAW;
}

static int
ack(struct app *a, struct soak *v, struct ljob *j)
{
	size_t i = list_selected(&v->alerts);
	char err[256];

	if (!v->pane || i == SIZE_MAX || j->alerts == NULL) {
		app_message(a, true, "no alert selected (A shows the journal)");
		return R_REDRAW;
	}
	if (alerts_ack(j->alerts, i, err, sizeof err) != 0)
		app_message(a, true, "cannot acknowledge: %s", err);
	return R_REDRAW;
}

/* Step the cursor by a quarter of the zoom, never before the run. */
static int
step(struct soak *v, const struct ljob *j, int dir)
{
	double now = job_now(j), at, first = j->first_ts;

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
		return ask_start(a);
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
	case ACT_ALERTS:
		/* Opened on the newest alert, at the bottom as in a log. */
		if ((v->pane = !v->pane) && j->alerts != NULL) {
			list_rebuild(&v->alerts, alerts_count(j->alerts), NULL,
			    NULL);
			list_move(&v->alerts, ACT_END, 1);
		}
		return R_REDRAW;
	case ACT_ACK:
		return ack(a, v, j);
	default:
		if (v->pane)
			return list_move(&v->alerts, act, a->rows / 3 - 1) ?
			    R_REDRAW : R_NONE;
		return R_NONE;
	}
}

static void
soak_status(struct app *a, void *data, char *buf, size_t len)
{
	(void)data;
	snprintf(buf, len, "c chip  w window  +/- zoom  %s/%s cursor  L live  "
	    "A alerts  a ack%s", ui_glyph("←", "Left"), ui_glyph("→", "Right"),
	    a->readonly ? "" : "  s start");
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

const struct view_ops soak_view = {
	.name = "soak",
	.title = "Soak",
	.keys = soak_keys,
	.open = soak_open,
	.close = soak_close,
	.draw = soak_draw,
	.action = soak_action,
	.status = soak_status,
};

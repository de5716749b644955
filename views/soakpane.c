/*
 * soakpane.c: the soak view's words around its graphs (soak.c draws the
 * graphs): the three header rows (state, elapsed time against the 1 h /
 * 8 h / 24 h marks with an ETA while the host is live; freshness by the
 * wall clock and the host's connection, the stream's bad lines, the
 * samples its store did not keep, the alerts, window, chip, zoom and
 * cursor; the G9 leak verdicts), the alert journal pane and its
 * keys (A, a), and starting a soak: the screen before any soak and the s
 * key.
 *
 * Every string from a host (the job's label, the host's name, the job's
 * error) goes through ui_put() and so through the sanitiser; ui_putf() only
 * formats the program's own words and numbers.
 */
#include "calops.h"

#include <inttypes.h>
#include <math.h>

#include "base/text.h"
#include "job/jobevent.h"
#include "metrics/alerts.h"
#include "metrics/metrics.h"
#include "metrics/metricsview.h"
#include "remote/transport.h"
#include "views/app/app.h"
#include "views/confirm.h"
#include "views/core/glyph.h"
#include "views/core/ui.h"
#include "views/labrun.h"
#include "views/pick.h"
#include "views/soak_int.h"
#include "views/soakpane.h"

#define SOAK_STALE_S	30.0	/* wall seconds without an event: STALE */
#define SOAK_LABEL_W	40	/* columns the job's label may take */
#define SOAK_HOST_W	20	/* and the host's name */

/* ---- the first row: the job and its time ---- */

/*
 * Elapsed against the marks, and when the target will be reached.  A mark
 * is G9's evidence of that length (1 h development, 8 h candidate, 24 h
 * release): ✔ once reached by a run that holds the SLA and the leak rule
 * over the whole run so far, ✘ when reached by one that does not (a failed
 * 1 h soak is no 1 h evidence), · not reached yet.
 */
static int
draw_elapsed(struct soak *v, const struct ljob *j, int y, int x, int w)
{
	static const double marks[] = { 3600, 8 * 3600, 86400 };
	double el = isnan(j->first_ts) ? 0 : j->last_ts - j->first_ts, rate;
	double target = j->target_s > 0 ? j->target_s : 86400;
	char e[32], t[32], c[32], in[32], why[96];
	int x0 = x, verdict = soak_run_verdict(v, j, why, sizeof why);
	enum soak_link link;
	size_t i;

	graph_fmt_dur(el, e, sizeof e);
	graph_fmt_dur(target, t, sizeof t);
	x += ui_putf(stdscr, y, x, w - (x - x0), ROLE_NORMAL, "%s/%s ", e, t);
	for (i = 0; i < nitems(marks); i++) {
		graph_fmt_dur(marks[i], c, sizeof c);
		x += ui_putf(stdscr, y, x, w - (x - x0), el < marks[i] ?
		    ROLE_DIM : verdict == 0 ? ROLE_FAIL : verdict > 0 ?
		    ROLE_PASS : ROLE_DIM, "%s%s ", c, el < marks[i] ?
		    ui_glyph("·", "-") : verdict == 0 ? ui_glyph("✘", "x") :
		    verdict > 0 ? ui_glyph("✔", "+") : "?");
	}
	if (verdict == 0 && el >= marks[0])
		x += ui_putf(stdscr, y, x, w - (x - x0), ROLE_FAIL, "(%s) ",
		    why);
	if (!labmodel_job_live(j) || !(el > 0) || el >= target)
		return x - x0;
	/* A rate measured before the host went away says nothing of when
	 * the run ends now (protocol.md §6): no guess while not live. */
	if ((link = soakpane_link(v, j)) != SOAK_LINK_LIVE)
		return x - x0 + ui_putf(stdscr, y, x, w - (x - x0), ROLE_DIM,
		    "ETA unknown (%s)", link == SOAK_LINK_DOWN ? "host not up" :
		    "catching up");
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

/* The label, the host and who started the soak are the lab's words:
 * sanitised, and each within its share of the row so that the time after
 * them still shows. */
static void
draw_job(struct soak *v, const struct ljob *j, int y, int cols)
{
	enum role r;
	const char *g = glyph_job(labmodel_job_state_name(j->state), &r);
	int x = 1;

	x += ui_putf(stdscr, y, x, cols - x, r, "%s %s", g,
	    labmodel_job_state_name(j->state));
	x += ui_putf(stdscr, y, x, cols - x, ROLE_NORMAL, "  ");
	x += ui_put(stdscr, y, x, cols - x < SOAK_LABEL_W ? cols - x :
	    SOAK_LABEL_W, ROLE_HEADER, j->label != NULL ? j->label : "soak",
	    false);
	x += ui_putf(stdscr, y, x, cols - x, ROLE_DIM, " @");
	x += ui_put(stdscr, y, x, cols - x < SOAK_HOST_W ? cols - x :
	    SOAK_HOST_W, ROLE_DIM, j->host, false);
	/* Who started it, as its host's job.json says (untrusted). */
	if (j->actor != NULL) {
		x += ui_putf(stdscr, y, x, cols - x, ROLE_DIM, " by ");
		x += ui_put(stdscr, y, x, cols - x < SOAK_HOST_W ? cols - x :
		    SOAK_HOST_W, ROLE_DIM, j->actor, false);
	}
	x += 2;
	draw_elapsed(v, j, y, x, cols - x);
}

/* ---- the second row: freshness, faults, what is shown ---- */

/* The wall clock (jobevent_now) when the host's connection came into the
 * state it is in. */
static double
host_since(const struct transport_status *st)
{
	return jobevent_now() - (double)(loop_now_ms() - st->since_ms) / 1000;
}

enum soak_link
soakpane_link(struct soak *v, const struct ljob *j)
{
	struct transport_status st;
	struct transport *t;
	char err[64];

	if (!labmodel_job_live(j))
		return SOAK_LINK_LIVE;
	if (j->state == LJ_CATCHING_UP || j->replaying)
		return SOAK_LINK_CATCHING_UP;
	t = labmodel_transport(app_labmodel(v->app), j->host, err, sizeof err);
	if (t == NULL)
		return SOAK_LINK_DOWN;
	transport_status(t, &st);
	if (st.state != TRANSPORT_UP)
		return SOAK_LINK_DOWN;
	/* Back, and nothing of the job heard since: its host replays what
	 * it held while away. */
	if (!isnan(j->last_recv) && j->last_recv < host_since(&st))
		return SOAK_LINK_CATCHING_UP;
	return SOAK_LINK_LIVE;
}

/* "figures as of 14:02 (3m10s old)" into buf, for a stream not live. */
static void
figures_age(const struct ljob *j, char *buf, size_t len)
{
	double at = isnan(j->last_recv) ? j->started : j->last_recv;
	char c[32], d[32];

	graph_fmt_clock(at, false, c, sizeof c);
	graph_fmt_dur(fmax(jobevent_now() - at, 0), d, sizeof d);
	snprintf(buf, len, "figures as of %s (%s old)", c, d);
}

/*
 * live 2s, quiet 40s, catching up, the host not up, or how it ended
 * (protocol.md §6: nothing from a host that is away looks live).  Lost is
 * the host's word, never a guess from the clock: a long quiet says how
 * long, and a job its host no longer has is broken with the host's reason.
 */
static void
freshness(struct soak *v, const struct ljob *j, char *buf, size_t len,
    enum role *r)
{
	double age = jobevent_now() - j->last_recv;
	enum soak_link link = soakpane_link(v, j);
	struct transport_status st;
	struct transport *t;
	char c[32], *why, err[64], fig[96];
	size_t n;
	int pct;

	t = labmodel_transport(app_labmodel(v->app), j->host, err, sizeof err);
	if (t != NULL)
		transport_status(t, &st);
	figures_age(j, fig, sizeof fig);
	if (link == SOAK_LINK_DOWN && t != NULL) {
		*r = st.state == TRANSPORT_STALE ? ROLE_STALE : ROLE_ERROR;
		snprintf(buf, len, "host %s %s %llds: %s", j->host,
		    transport_state_name(st.state),
		    (long long)((loop_now_ms() - st.since_ms) / 1000), fig);
	} else if (link == SOAK_LINK_CATCHING_UP) {
		*r = ROLE_PENDING;
		/* How far, when its host's job list said (labrun.h). */
		if (labmodel_job_catchup(j, buf, len, &pct) && pct >= 0) {
			n = strlen(buf);
			snprintf(buf + n, len - n, "; %s", fig);
		} else
			snprintf(buf, len, "catching up: %" PRIu64 " events, "
			    "to seq %" PRId64 "; %s", j->events, j->last_seq,
			    fig);
	} else if (!labmodel_job_live(j)) {
		*r = j->state == LJ_BROKEN ? ROLE_ERROR : ROLE_DIM;
		graph_fmt_clock(isnan(j->last_recv) ? j->started : j->last_recv,
		    false, c, sizeof c);
		snprintf(buf, len, "%s %s", j->state == LJ_BROKEN ? "broken" :
		    "ended", c);
	} else if (j->stalled_since > 0) {
		/* Its samples wait on the host, or are lost (a gap). */
		*r = ROLE_ERROR;
		graph_fmt_clock(j->stalled_since, false, c, sizeof c);
		why = text_sanitize_str(j->stalled_why);
		snprintf(buf, len, "degraded: %s since %s", why, c);
		free(why);
	} else if (isnan(j->last_recv)) {
		*r = ROLE_PENDING;
		snprintf(buf, len, "no event yet");
	} else if (age < SOAK_STALE_S) {
		*r = ROLE_PASS;
		snprintf(buf, len, "live %.0fs", fmax(age, 0));
	} else {
		*r = ROLE_STALE;
		graph_fmt_dur(age, c, sizeof c);
		snprintf(buf, len, "quiet %s: %s", c, fig);
	}
}

/* What could hide a fault comes first (bad stream lines, samples not
 * kept, the alerts, the error of a broken job), so that 80 columns clip
 * only the view's own settings at the end. */
static int
draw_faults(const struct ljob *j, int y, int x, int cols)
{
	struct mdropped d;
	int x0 = x;

	if (j->bad_lines > 0)
		x += ui_putf(stdscr, y, x, cols - x, ROLE_ERROR, "  %" PRIu64
		    " bad line%s", j->bad_lines, j->bad_lines == 1 ? "" : "s");
	/* Valid events with more than the console keeps (event.h): their
	 * mirror holds them whole, this screen the values that fit. */
	if (j->capped > 0)
		x += ui_putf(stdscr, y, x, cols - x, ROLE_WARN, "  %" PRIu64
		    " event%s shown in part", j->capped, j->capped == 1 ? "" :
		    "s");
	/* Lines the host could not store (gap events): holes in the graphs
	 * that are losses, not quiet. */
	if (j->lost_lines > 0)
		x += ui_putf(stdscr, y, x, cols - x, ROLE_ERROR, "  %" PRIu64
		    " line%s lost on the host", j->lost_lines,
		    j->lost_lines == 1 ? "" : "s");
	/* Samples of series past the store's cap (metrics.h). */
	if (j->metrics != NULL && (metrics_dropped(j->metrics, &d),
	    d.samples > 0))
		x += ui_putf(stdscr, y, x, cols - x, ROLE_ERROR, "  not kept: %"
		    PRIu64 " samples of %zu%s new series (cap %zu%s)",
		    d.samples, d.series, d.more ? "+" : "", d.cap,
		    d.quota ? " in all jobs" : "");
	if (j->alerts != NULL && alerts_count(j->alerts) > 0)
		x += ui_putf(stdscr, y, x, cols - x, alerts_nopen(j->alerts) >
		    0 ? ROLE_FAIL : ROLE_DIM, "  alerts %zu open %zu unacked",
		    alerts_nopen(j->alerts), alerts_nunacked(j->alerts));
	if (j->state == LJ_BROKEN && j->err[0] != '\0') {
		x += ui_putf(stdscr, y, x, cols - x, ROLE_NORMAL, "  ");
		x += ui_put(stdscr, y, x, cols - x, ROLE_ERROR, j->err, false);
	}
	return x - x0;
}

/* Freshness, the faults, then what is shown, each said for what it is: the
 * window the headlines are over, the span the graphs cover (the zoom), the
 * chip, and the cursor (live, at the end of a run that ended, or how far
 * back it is). */
static void
draw_shown(struct soak *v, const struct ljob *j, int y, int cols)
{
	char f[160], cur[32], chip[32], z[16];
	enum role r;
	int x = 1;

	freshness(v, j, f, sizeof f, &r);
	x += ui_putf(stdscr, y, x, cols - x, r, "%s", f);
	x += draw_faults(j, y, x, cols);
	if (v->chip < 0)
		snprintf(chip, sizeof chip, "merged/%zu", v->nchips);
	else
		snprintf(chip, sizeof chip, "chip %d/%zu", v->chips[v->chip],
		    v->nchips);
	if (isnan(v->cursor))
		snprintf(cur, sizeof cur, "%s", labmodel_job_live(j) ? "live" :
		    "at end");
	else
		graph_fmt_hms(soak_job_now(v, j) - v->cursor, '-', cur,
		    sizeof cur);
	graph_fmt_dur(soak_zoom(v), z, sizeof z);
	x += ui_putf(stdscr, y, x, cols - x, ROLE_NORMAL,
	    "  headlines: %s  graphs: %s  cursor: ", soak_window_name(v, j), z);
	x += ui_putf(stdscr, y, x, cols - x, isnan(v->cursor) ?
	    labmodel_job_live(j) ? ROLE_PASS : ROLE_DIM : ROLE_WARN, "%s", cur);
	ui_putf(stdscr, y, x, cols - x, ROLE_NORMAL, "  %s", chip);
}

/* ---- the third row: the leak rule ---- */

/* The leak verdict of a memory metric: the chip's, or merged the worst
 * chip's (the one growing, else the largest growth). */
static int
leak_text(struct soak *v, const struct ljob *j, const char *name, char *buf,
    size_t len)
{
	struct leak_verdict lv, worst = { 0 };
	int wchip = -1;
	size_t i, n = soak_select(v, j, name, false);
	char g[16], line[16], pct[32] = "";

	for (i = 0; i < n; i++) {
		metrics_series_leak(v->sel[i], &lv);
		if (!lv.evaluated)
			continue;
		if (!worst.evaluated || (lv.growing && !worst.growing) ||
		    (lv.growing == worst.growing && lv.growth > worst.growth)) {
			worst = lv;
			wchip = metricsview_series_chip(v->sel[i]);
		}
	}
	if (!worst.evaluated) {
		snprintf(buf, len, "not judged yet (12 windows of samples)");
		return ROLE_DIM;
	}
	graph_format(fabs(worst.growth), GU_BYTES, g, sizeof g);
	graph_format(worst.threshold, GU_BYTES, line, sizeof line);
	/* A first median of 0 has no percentage: say none rather than inf. */
	if (worst.medians[0] > 0)
		snprintf(pct, sizeof pct, " %+.1f%%", 100 * worst.growth /
		    worst.medians[0]);
	/* The rule in words (soakstats.h): "flat +9.2%" alone reads as a
	 * contradiction when the medians fell somewhere on the way. */
	snprintf(buf, len, "%s %s%s%s %s (%s +%s line%s)", worst.growing ?
	    "growing" : "flat", worst.growth < 0 ? "-" : "+", g, pct,
	    worst.growing ? ui_glyph("✘ G9.leak", "x G9.leak") :
	    ui_glyph("✔ ok", "+ ok"), worst.growth > worst.threshold ?
	    "past its" : "under its", line, worst.growing ? "" :
	    worst.growth > worst.threshold ? ", not rising throughout" : "");
	if (v->chip < 0 && n > 1 && wchip >= 0 && worst.growing)
		snprintf(buf + strlen(buf), len - strlen(buf), " chip %d",
		    wchip);
	/* The alerts wait for an hour of run (alerts.h): say that the rule
	 * cannot fire yet, and for how long, rather than look quiet. */
	if (!(j->last_ts - j->first_ts >= ALERT_LEAK_MIN_S))
		snprintf(buf + strlen(buf), len - strlen(buf), " (no alert "
		    "before %.0f min of run)", ALERT_LEAK_MIN_S / 60);
	return worst.growing ? ROLE_FAIL : ROLE_PASS;
}

static void
draw_leak(struct soak *v, const struct ljob *j, int y, int cols)
{
	char t[128];
	int x = 1, r;

	x += ui_putf(stdscr, y, x, cols - x, ROLE_HEADER, "leak  rss ");
	r = leak_text(v, j, "rss_bytes", t, sizeof t);
	x += ui_put(stdscr, y, x, cols - x, r, t, false);
	x += ui_putf(stdscr, y, x, cols - x, ROLE_HEADER, "  device ");
	r = leak_text(v, j, "device_mem_bytes", t, sizeof t);
	ui_put(stdscr, y, x, cols - x, r, t, false);
}

void
soakpane_draw_header(struct soak *v, const struct ljob *j, int y, int cols)
{
	ui_fill(stdscr, y, 0, ROLE_NORMAL);
	ui_fill(stdscr, y + 1, 0, ROLE_NORMAL);
	ui_fill(stdscr, y + 2, 0, ROLE_NORMAL);
	draw_job(v, j, y, cols);
	draw_shown(v, j, y + 1, cols);
	draw_leak(v, j, y + 2, cols);
}

/* ---- the alert journal ---- */

/* One alert: its acknowledgement before the values; an SLA rule's fits in
 * 80 columns whole (a leak rule's longer name pushes the rest along). */
static void
draw_alert(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	const struct ljob *j = arg;
	const struct alert *al = alerts_get(j->alerts, rec);
	char s[32], e[32], w[32], t[32], chip[16];
	enum graph_unit u = soak_unit(al->metric);
	enum role r = sel ? ROLE_SELECTION : isnan(al->end) ? ROLE_FAIL :
	    ROLE_NORMAL;

	graph_fmt_hms(al->start - j->first_ts, '+', s, sizeof s);
	if (isnan(al->end))
		snprintf(e, sizeof e, "open");
	else
		graph_fmt_hms(al->end - j->first_ts, '+', e, sizeof e);
	graph_format_pair(al->worst, al->threshold, u, w, t, sizeof w);
	if (al->chip == ALERT_MERGED)
		snprintf(chip, sizeof chip, "merged");
	else
		snprintf(chip, sizeof chip, "chip %d", al->chip);
	/* The line in words: "under 99.5%", not "<99.5%". */
	ui_putf(stdscr, y, x + 1, cols - 1, r, "%s %-16s %-7s %s%s%-9s %-7s "
	    "worst %s %s %s", isnan(al->end) ? ui_glyph("✘", "x") :
	    ui_glyph("·", "-"), al->rule, chip, s, ui_glyph("→", ">"), e,
	    al->acked ? "acked" : "unacked", w, al->below ? "under" : "over",
	    t);
}

void
soakpane_draw_pane(struct soak *v, const struct ljob *j, int y, int rows,
    int cols)
{
	size_t n = j->alerts != NULL ? alerts_count(j->alerts) : 0;
	char header[256], empty[128];

	list_rebuild(&v->alerts, n, NULL, NULL);
	snprintf(header, sizeof header, "ALERTS  %zu, %zu open, %zu unacked%s"
	    "   Up/Down select  a ack  A hide", n, n > 0 ?
	    alerts_nopen(j->alerts) : 0, n > 0 ?
	    alerts_nunacked(j->alerts) : 0, j->alerts != NULL &&
	    alerts_dropped(j->alerts) > 0 ? " (journal full: later ones "
	    "counted only)" : "");
	snprintf(empty, sizeof empty, "no alert: SLA and leak rules fire "
	    "after %.0fs over the line", ALERT_OPEN_S);
	list_draw(&v->alerts, y, rows, 0, cols, header, draw_alert, j, empty);
}

/* ! from any screen: the journal shown, on the newest alert still open
 * (else the newest). */
static int
newest_alert(struct app *a, struct soak *v, const struct ljob *j)
{
	size_t n = j->alerts != NULL ? alerts_count(j->alerts) : 0, i;

	for (i = n; i > 0 && !isnan(alerts_get(j->alerts, i - 1)->end); i--)
		;
	if (i == 0)
		app_message(a, false, "no open alert in this soak's journal");
	v->pane = true;
	list_rebuild(&v->alerts, n, NULL, NULL);
	list_move(&v->alerts, ACT_END, 1);
	for (; i > 0 && i < n; n--)
		list_move(&v->alerts, ACT_UP, 1);
	return R_REDRAW;
}

/* The journal's keys: A shows or hides it, opened on the newest alert (at
 * the bottom, as in a log); a acknowledges the selected one; the movement
 * keys move in it while it is shown. */
int
soakpane_action(struct app *a, struct soak *v, const struct ljob *j,
    enum action act)
{
	size_t i = list_selected(&v->alerts);
	char err[256];

	switch (act) {
	case ACT_NEWEST_ALERT:
		return newest_alert(a, v, j);
	case ACT_ALERTS:
		if ((v->pane = !v->pane) && j->alerts != NULL) {
			list_rebuild(&v->alerts, alerts_count(j->alerts), NULL,
			    NULL);
			list_move(&v->alerts, ACT_END, 1);
		}
		return R_REDRAW;
	case ACT_ESCAPE:
		/* Esc closes the journal before it leaves the screen. */
		if (!v->pane)
			return R_NONE;
		v->pane = false;
		return R_REDRAW;
	case ACT_ACK:
		if (!v->pane || i == SIZE_MAX || j->alerts == NULL)
			app_message(a, true, "no alert selected (A shows the "
			    "journal)");
		else if (alerts_ack(j->alerts, i, err, sizeof err) != 0)
			app_message(a, true, "cannot acknowledge: %s", err);
		return R_REDRAW;
	default:
		if (v->pane && list_action(&v->alerts, act))
			return R_REDRAW;
		return R_NONE;
	}
}

/* ---- starting a soak ---- */

/* Why no soak can be started from here, or NULL: the screen before any
 * soak and the s key say the same. */
static const char *
start_blocked(const struct app *a)
{
	struct labmodel *lm = app_labmodel(a);

	if (app_readonly(a))
		return "read-only: a soak cannot be started here";
	if (lm != NULL && labmodel_start_refused(lm) != NULL)
		return labmodel_start_refused(lm);
	if (lm == NULL || labrun_default_host(a) == NULL)
		return "no host with a workspace to run a soak on (see the lab "
		    "file)";
	return NULL;
}

void
soakpane_draw_none(struct app *a, int top, int cols)
{
	const char *why = start_blocked(a);
	int x = 2;

	ui_putf(stdscr, top + 1, 2, cols - 4, ROLE_NORMAL, "No soak running "
	    "or recent on the lab's hosts (listed every 10 s).");
	if (why != NULL) {
		ui_putf(stdscr, top + 2, 2, cols - 4, ROLE_DIM, "%s", why);
		return;
	}
	/* The host's name is the lab file's: through the sanitiser. */
	x += ui_putf(stdscr, top + 2, x, cols - 2 - x, ROLE_NORMAL,
	    "s: start one on ");
	x += ui_put(stdscr, top + 2, x, cols - 2 - x, ROLE_NORMAL,
	    labrun_default_host(a), false);
	ui_putf(stdscr, top + 2, x, cols - 2 - x, ROLE_NORMAL,
	    " (1h, 8h or 24h)");
}

/* Where the soak asked for runs (picked before its duration is asked):
 * one question at a time, so no allocation. */
static struct {
	char	 host[128];
	int	 chips[64];	/* those picked (pick_chips) */
	size_t	 nchips;
} starting;

/* The duration typed after s: 1h, 8h, 24h (or N with s, m, h). */
static void
start_answer(struct app *a, const char *answer, void *arg)
{
	struct ljob_spec spec = { 0 };
	char unit = 'h';
	const char *why;
	double d;

	(void)arg;
	if (answer == NULL)
		return;
	if (sscanf(answer, "%lf%c", &d, &unit) < 1 || !(d > 0) ||
	    !isfinite(d * 3600) || strchr("smh", unit) == NULL) {
		app_message(a, true, "'%s' is not a duration (1h, 8h, 24h)",
		    answer);
		return;
	}
	/* The host may have gone while the question was asked. */
	if ((why = start_blocked(a)) != NULL) {
		app_message(a, true, "%s", why);
		return;
	}
	spec.host = starting.host;
	spec.workspace = labrun_workspace(a, spec.host);
	spec.kind = LJOB_SOAK;
	spec.gate = -1;
	spec.chip = -1;
	spec.chips = starting.chips;
	spec.nchips = starting.nchips;
	spec.duration_s = d * (unit == 'h' ? 3600 : unit == 'm' ? 60 : 1);
	/* What it runs and disturbs first, and the typed chips. */
	confirm_ask(a, &spec);
}

/* The chips picked (any of them): its duration is asked next. */
static void
chips_picked(struct app *a, const char *host, const int *chips, size_t n,
    void *arg)
{
	(void)arg;
	if (host == NULL)
		return;
	starting.nchips = n < nitems(starting.chips) ? n :
	    nitems(starting.chips);
	memcpy(starting.chips, chips, starting.nchips * sizeof *chips);
	prompt_ask(a, "soak for how long? 1h, 8h or 24h: ", start_answer, NULL);
}

static void
host_picked(struct app *a, const char *host, int chip, void *arg)
{
	(void)chip;
	(void)arg;
	if (host == NULL)
		return;
	snprintf(starting.host, sizeof starting.host, "%s", host);
	pick_chips(a, "a soak", starting.host, chips_picked, NULL);
}

/* The s key: one soak at a time, on the host and chips picked (pick.h;
 * the board's host and every chip first), its duration asked in the
 * status bar. */
int
soakpane_ask_start(struct app *a)
{
	const char *why = start_blocked(a);
	const struct ljob *j;

	if (why != NULL) {
		app_message(a, true, "%s", why);
		return R_REDRAW;
	}
	j = labmodel_latest(app_labmodel(a), LJOB_SOAK, NULL);
	if (j != NULL && labmodel_job_live(j)) {
		app_message(a, true, "a soak is already running on %s",
		    j->host);
		return R_REDRAW;
	}
	pick_host(a, "a soak", labrun_default_host(a), host_picked, NULL);
	return R_REDRAW;
}

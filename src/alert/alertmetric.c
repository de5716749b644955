/* alertmetric.c: the metric kinds judged over a soak's store (see
 * alertmetric.h). */
#include "calops.h"

#include <math.h>

#include "alert/alerteval.h"
#include "alert/alertmetric.h"
#include "metrics/alerts.h"
#include "metrics/metrics.h"
#include "metrics/metricsview.h"
#include "metrics/sketch.h"
#include "metrics/soakstats.h"

#define RATE_CELLS	61	/* one minute of 1 s cells and now's */
#define SELECT_MAX	4096	/* METRICS_CONSOLE_SERIES */

/* A memory series followed by the leak kind: when it first showed. */
struct leakseries {
	struct mseries	*s;
	double		 first;
	double		 next;		/* not judged before */
	double		 clear;		/* judged clear since (NAN: growing) */
};

struct alertmetric {
	struct sketch		 merged;
	struct mseries		**sel;
	struct leakseries	*leaks;
	size_t			 nleaks;
	size_t			 nseries;	/* metrics_count when scanned */
	double			 next_eval;
	struct mcell		 cells[RATE_CELLS];
};

struct alertmetric *
alertmetric_new(void)
{
	struct alertmetric *am = xcalloc(1, sizeof *am);

	sketch_init(&am->merged);
	am->sel = xreallocarray(NULL, SELECT_MAX, sizeof *am->sel);
	am->next_eval = -INFINITY;
	return am;
}

void
alertmetric_free(struct alertmetric *am)
{
	if (am == NULL)
		return;
	sketch_release(&am->merged);
	free(am->sel);
	free(am->leaks);
	free(am);
}

/* The subject of a judgement of s: per series (chip and metric) for the
 * leak and rate kinds, merged over the job's chips for the SLA's. */
static void
subject_of(struct alert_subject *subj, const struct mseries *s, bool series,
    const char *job)
{
	int chip = series ? metricsview_series_chip(s) : ALERT_NONE;

	subj->host = metricsview_series_host(s);
	subj->chip = chip < 0 ? ALERT_NONE : chip;
	subj->job = job;
	subj->workspace = NULL;
	subj->gate = ALERT_NONE;
	subj->metric = series ? metricsview_series_name(s) : NULL;
}

/* The memory series that appeared since the last scan. */
static void
scan(struct alertmetric *am, struct metrics *m, double ts)
{
	size_t i, n = metrics_count(m);
	struct mseries *s;
	const char *name;

	for (i = am->nseries; i < n; i++) {
		s = metrics_series(m, i);
		name = metricsview_series_name(s);
		if (strcmp(name, "rss_bytes") != 0 &&
		    strcmp(name, "device_mem_bytes") != 0)
			continue;
		am->leaks = xreallocarray(am->leaks, am->nleaks + 1,
		    sizeof *am->leaks);
		am->leaks[am->nleaks++] = (struct leakseries){ s, ts,
		    -INFINITY, NAN };
	}
	am->nseries = n;
}

/*
 * Whether l's clear verdict at ts has held long enough to be told.  The
 * rule's verdict on a steady leak dips clear for a while whenever noise
 * puts one window's median under the one before (a spell lasts until the
 * windows move on, about one of them wide): such a dip does not resolve
 * the leak, to fire it again anew a moment later.  A clear spell resolves
 * it once it has lasted a window of the rule (the series' span past its
 * first 10 %, over LEAK_WINDOWS), and at least ALERT_CLEAR_S as the Soak
 * screen's alerts (metrics/alerts.h); *at is then its first judgement.
 */
static bool
leak_clear_held(struct leakseries *l, bool growing, double ts, double *at)
{
	double hold = fmax(ALERT_CLEAR_S, (ts - l->first) * 0.9 /
	    LEAK_WINDOWS);

	if (growing) {
		l->clear = NAN;
		*at = ts;
		return true;
	}
	if (isnan(l->clear))
		l->clear = ts;
	*at = l->clear;
	return ts - l->clear >= hold;
}

/* G9's leak rule on each memory series that has spanned long enough. */
static void
judge_leaks(struct alertmetric *am, struct alerteval *ae, const char *job,
    double ts)
{
	struct alert_subject subj;
	struct leak_verdict lv;
	struct leakseries *l;
	char what[128];
	bool growing;
	double at;
	size_t i;

	for (i = 0; i < am->nleaks; i++) {
		l = &am->leaks[i];
		if (ts < l->next || ts - l->first < ALERT_LEAK_MIN_S)
			continue;
		l->next = ts + ALERT_LEAK_EVAL_S;
		metrics_series_leak(l->s, &lv);
		growing = soakstats_leak_still_growing(&lv);
		if (!lv.evaluated || !leak_clear_held(l, growing, ts, &at))
			continue;
		subject_of(&subj, l->s, true, job);
		snprintf(what, sizeof what, "%s grew %.0f bytes",
		    metricsview_series_name(l->s), lv.growth);
		alerteval_cond(ae, ALERT_LEAK, &subj, growing, lv.growth,
		    what, at);
	}
}

/* A latency's P99 over the 1 min window, merged over every chip. */
static void
judge_latency(struct alertmetric *am, struct alerteval *ae, struct metrics *m,
    enum alert_kind kind, const char *job, double sla, double ts)
{
	const char *name = kind == ALERT_SLA_TTFT ? "ttft_ms" : "tpot_ms";
	struct alert_subject subj;
	char what[96];
	size_t n;
	double v;

	n = metrics_select(m, NULL, MCHIP_ANY, name, am->sel, SELECT_MAX);
	if (n == 0)
		return;
	n = n > SELECT_MAX ? SELECT_MAX : n;
	metricsview_merge_window(am->sel, n, MWIN_1M, &am->merged);
	if (sketch_count(&am->merged) == 0)
		return;
	v = sketch_quantile(&am->merged, 0.99);
	subject_of(&subj, am->sel[0], false, job);
	snprintf(what, sizeof what, "%s P99 %.1f ms over 1 min",
	    kind == ALERT_SLA_TTFT ? "TTFT" : "TPOT", v);
	alerteval_value(ae, kind, &subj, v, sla, what, ts);
}

static void
judge_success(struct alertmetric *am, struct alerteval *ae, struct metrics *m,
    const char *job, double sla, double ts)
{
	struct alert_subject subj;
	char what[96];
	size_t n;
	double v;

	n = metrics_select(m, NULL, MCHIP_ANY, "request_ok", am->sel,
	    SELECT_MAX);
	if (n == 0)
		return;
	n = n > SELECT_MAX ? SELECT_MAX : n;
	v = metricsview_mean(am->sel, n, MWIN_10M, ts);
	subject_of(&subj, am->sel[0], false, job);
	snprintf(what, sizeof what, "success rate %.4f over 10 min", v);
	alerteval_value(ae, ALERT_SLA_SUCCESS, &subj, v, sla, what, ts);
}

/* A counter's rise over the last minute of 1 s cells (NAN: no sample);
 * a fall (the runner restarted) counts from its lowest. */
static double
rise(struct alertmetric *am, struct mseries *s, double ts)
{
	size_t i, first = RATE_CELLS, last = 0;

	metricsview_history(&s, 1, MLEVEL_1S, ts, am->cells, RATE_CELLS);
	for (i = 0; i < RATE_CELLS; i++)
		if (am->cells[i].count > 0) {
			first = first == RATE_CELLS ? i : first;
			last = i;
		}
	if (first == RATE_CELLS)
		return NAN;
	return fmax(0, am->cells[last].max - am->cells[first].min);
}

/* errors and resets per minute, per chip. */
static void
judge_rates(struct alertmetric *am, struct alerteval *ae, struct metrics *m,
    enum alert_kind kind, const char *job, double ts)
{
	const char *name = kind == ALERT_ERRORS ? "errors" : "resets";
	struct alert_subject subj;
	struct mseries **sel;
	char what[96];
	size_t i, n;
	double v;

	n = metrics_select(m, NULL, MCHIP_ANY, name, am->sel, SELECT_MAX);
	n = n > SELECT_MAX ? SELECT_MAX : n;
	/* rise() reuses am->cells, not am->sel: the selection holds. */
	sel = am->sel;
	for (i = 0; i < n; i++) {
		if (isnan(v = rise(am, sel[i], ts)))
			continue;
		subject_of(&subj, sel[i], true, job);
		snprintf(what, sizeof what, "%.0f %s in the last minute", v,
		    name);
		alerteval_value(ae, kind, &subj, v, NAN, what, ts);
	}
}

void
alertmetric_judge(struct alertmetric *am, struct alerteval *ae,
    struct metrics *m, const char *job, const struct alertsla *sla,
    double ts)
{
	if (!isfinite(ts))
		return;
	if (metrics_count(m) != am->nseries)
		scan(am, m, ts);
	judge_leaks(am, ae, job, ts);
	if (ts < am->next_eval)
		return;
	am->next_eval = floor(ts / ALERT_EVAL_S) * ALERT_EVAL_S + ALERT_EVAL_S;
	metrics_tick(m, ts);
	judge_latency(am, ae, m, ALERT_SLA_TTFT, job, sla->ttft_ms_p99, ts);
	judge_latency(am, ae, m, ALERT_SLA_TPOT, job, sla->tpot_ms_p99, ts);
	judge_success(am, ae, m, job, sla->success_rate_min, ts);
	judge_rates(am, ae, m, ALERT_ERRORS, job, ts);
	judge_rates(am, ae, m, ALERT_RESETS, job, ts);
}

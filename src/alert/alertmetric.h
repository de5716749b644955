/*
 * alertmetric.h: the metric kinds of the alert rules judged over a soak's
 * store (share/doc/alerts.md), from the same sketches, windows and leak
 * rule the Soak screen shows (src/metrics): the TTFT and TPOT P99 over the
 * 1 min window and the success rate over 10 min, merged over every chip;
 * G9's leak rule per memory series (rss_bytes, device_mem_bytes) once the
 * series spans ALERT_LEAK_MIN_S, as a live verdict (still growing over the
 * latter half of the windows: soakstats.h); and the errors and resets
 * counters' rise over the last minute, per chip.  Time is the samples'
 * (tool time), as on the Soak screen, so a soak run faster than life
 * alerts as fast.
 *
 * The SLA kinds are judged at most once per ALERT_EVAL_S of tool time, a
 * leak at most once per ALERT_LEAK_EVAL_S (metrics/alerts.h); a leak's
 * clear verdict is told only once it has held for a window of the rule
 * (at least ALERT_CLEAR_S), its first judgement the resolution's end: a
 * steady leak's verdict dips clear on noise (alerts.md, §2).
 *
 * Ownership: struct alertmetric is the caller's (alertmetric_new and
 * _free), one per store; it keeps no pointer to the evaluator.  It keeps
 * pointers to m's series, so one alertmetric follows one store.
 */
#ifndef CALOPS_ALERTMETRIC_H
#define CALOPS_ALERTMETRIC_H

#include "calops.h"

struct alerteval;
struct metrics;

/* The workspace's SLA (G9's serving.yaml), NAN where unknown. */
struct alertsla {
	double	ttft_ms_p99;
	double	tpot_ms_p99;
	double	success_rate_min;
};

struct alertmetric;

struct alertmetric *alertmetric_new(void);
void		 alertmetric_free(struct alertmetric *am);
/* After samples were added to m up to tool time ts: judge the metric
 * kinds into ae, the subject's job being job (may be NULL). */
void		 alertmetric_judge(struct alertmetric *am, struct alerteval *ae,
		    struct metrics *m, const char *job,
		    const struct alertsla *sla, double ts);

#endif

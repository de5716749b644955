/*
 * alerts.h: the alert journal of a soak (the Soak screen, README.md): SLA
 * and leak alerts that fire on crossings held for a minimum duration, each
 * with start, end, worst value and an acknowledgement.  Pure model: no
 * ncurses, no I/O but the acknowledgement file.
 *
 * CONTRACT (labmodel.c calls exactly these; the rest is alerts.c's to shape):
 *   alerts_new(ack_path)   ack_path: where acknowledgements persist (may be
 *                          NULL: in memory only); replaying a stream must give
 *                          the same alerts in the same order, so an ack is
 *                          keyed by the alert's rule, chip and start (below)
 *   alerts_set_sla(a, ttft_ms_p99, tpot_ms_p99, success_rate_min)  NAN: unknown
 *   alerts_observe(a, m, ts)   after each metric event applied to m, ts the
 *                          event's (tool) time; evaluates at most once per
 *                          second of tool time
 *   alerts_finish(a, ts)   the stream ended: close what is open at ts
 *   alerts_free(a)
 *
 * The rules.  Time is the samples' (tool time), so a replay at any speed
 * gives the same journal.
 *   sla.ttft_p99      the P99 of ttft_ms over the 1 min window, merged over
 *                     every chip, above the SLA's ttft_ms_p99
 *   sla.tpot_p99      the same for tpot_ms and tpot_ms_p99
 *   sla.success_rate  the mean of request_ok over 10 min, merged over every
 *                     chip, below success_rate_min: over 1 min a healthy
 *                     run at 2 requests/s and 0.1 % errors dips below a
 *                     99.5 % SLA for a minute after every single failure
 *   leak.rss_bytes, leak.device_mem_bytes
 *                     the leak rule (soakstats.h, workspace.md G9) says
 *                     growing, judged per series, that is per chip: a leak
 *                     is a chip's (or its process's) and merging chips would
 *                     hide one leaking chip among flat ones.  Its value is
 *                     the growth (last - first window median, bytes), its
 *                     threshold the rule's.  Judged only once the series
 *                     spans ALERT_LEAK_MIN_S: the rule is made for runs of
 *                     hours, and on the first minutes of a run it takes the
 *                     runtime's warm-up (memory that grows, then holds) for
 *                     a leak; and an hour in, memory that held exactly flat
 *                     after its warm-up still reads as growing, so a live
 *                     verdict is soakstats_leak_still_growing().
 * The SLA rules are evaluated once per ALERT_EVAL_S of tool time (a replay
 * feeds millions of events), after moving m's windows to ts
 * (metrics_tick), so a chip gone quiet does not hold old samples; a leak
 * rule only when its series has a new sample, and at most once per
 * ALERT_LEAK_EVAL_S.
 *
 * The store keeps no percentile history, and the soak view graphs P50 and
 * P99 over time: so at each SLA evaluation alerts_observe() also adds to m
 * the P50 and P99 of the 1 min windows of ttft_ms and tpot_ms as series of
 * their own, ALERT_P50/ALERT_P99 appended to the name ("ttft_ms_p99"), one
 * per chip and one merged over every chip (chip MCHIP_NONE, on the host of
 * the first series).  They are plain series (history, min/max, gaps) and,
 * being made from the stream alone, the same on a replay.
 *
 * A rule whose value is unknown (no sample in the window, the SLA not
 * known) leaves its state as it is; a leak rule that cannot judge yet
 * counts as clear.
 *
 * An alert opens when its rule has breached at every evaluation for
 * ALERT_OPEN_S, with start at the first of them, and closes when the rule
 * has held clear for ALERT_CLEAR_S, with end at the first clear evaluation:
 * a breach shorter than ALERT_OPEN_S never shows, and a clear spell shorter
 * than ALERT_CLEAR_S does not split an alert in two.  worst is the highest
 * value over the alert (the lowest for the success rate).  The journal
 * keeps at most ALERTS_MAX alerts; later ones are counted, not kept.
 *
 * Acknowledgements are lines appended to ack_path, "ORDINAL RULE CHIP
 * START WALLTIME" (chip -1: merged or host-wide; START the alert's, tool
 * time to the millisecond), read back by alerts_new() and applied to an
 * alert when it opens with the same rule, chip and start.  The start
 * rather than the ordinal is the key: a replay gives the same alerts only
 * under the same SLA, and when the SLA becomes known at a different point
 * of a replay (the board is evaluated while the mirrors are read) the
 * ordinals shift but an alert that exists in both keeps its start; the
 * ordinal stays in the line for people.
 *
 * Ownership: struct alerts is made by alerts_new() and freed by
 * alerts_free(); it keeps no pointer to m between calls.  A struct alert
 * from alerts_get() is borrowed and valid until the next call that is not
 * a read (observe, finish, ack, free).
 */
#ifndef CALOPS_ALERTS_H
#define CALOPS_ALERTS_H

#include "calops.h"

#define ALERT_OPEN_S		60.0	/* a breach held this long opens */
#define ALERT_CLEAR_S		60.0	/* clear this long closes */
#define ALERT_EVAL_S		1.0	/* SLA rules: once per this tool time */
#define ALERT_LEAK_EVAL_S	10.0	/* leak rules: at most this often */
#define ALERT_LEAK_MIN_S	3600.0	/* and not before the run spans this */
#define ALERTS_MAX		4096
#define ALERT_MERGED		(-1)	/* chip: merged, or host-wide */
#define ALERT_ACKS_MAX		(1u << 20)	/* bytes of ack_path read */
#define ALERT_P50		"_p50"	/* suffixes of the percentile series */
#define ALERT_P99		"_p99"

struct metrics;
struct alerts;

struct alert {
	const char	*rule;		/* "sla.ttft_p99", … (static storage) */
	const char	*metric;	/* the metric it watches: "ttft_ms", … */
	int		 chip;		/* ALERT_MERGED, or the chip */
	size_t		 ordinal;	/* its place in the journal, from 0 */
	double		 start, end;	/* tool time; end NAN while open */
	double		 worst;
	double		 threshold;
	bool		 below;		/* breach is below threshold */
	bool		 acked;
};

struct alerts	*alerts_new(const char *ack_path);
void		 alerts_free(struct alerts *a);
void		 alerts_set_sla(struct alerts *a, double ttft_ms_p99,
		    double tpot_ms_p99, double success_rate_min);
void		 alerts_observe(struct alerts *a, struct metrics *m, double ts);
void		 alerts_finish(struct alerts *a, double ts);

/* The journal in opening order: i < alerts_count(a). */
size_t		 alerts_count(const struct alerts *a);
const struct alert *alerts_get(const struct alerts *a, size_t i);
/* Alerts still open, and alerts not acknowledged. */
size_t		 alerts_nopen(const struct alerts *a);
size_t		 alerts_nunacked(const struct alerts *a);
/* Alerts that opened after the journal was full. */
size_t		 alerts_dropped(const struct alerts *a);
/*
 * Acknowledge alert i: appended to ack_path first, so an ack that could not
 * be kept is not shown as kept.  0 (also when it already was), or -1 with
 * err (i out of range, the file cannot be written).
 */
int		 alerts_ack(struct alerts *a, size_t i, char *err,
		    size_t errlen);

#endif

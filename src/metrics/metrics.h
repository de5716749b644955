/*
 * metrics.h: the live metric store behind the soak view: one series per
 * (host, chip, metric name), fed from metric events (protocol.md §3), with
 * memory that stays flat however long the run and however fast the samples.
 *
 * Every series keeps history at three resolutions, each a ring of cells
 * {count, sum, min, max, last}: MLEVEL_1S (1 s x 120, for the 1 min view),
 * MLEVEL_10S (10 s x 384, for 10 min and 1 h) and MLEVEL_5M (300 s x 300,
 * for 24 h).  A cell nobody wrote is a gap (count 0, the rest NAN), so a
 * graph can show it rather than join across it.  A graph column wider than
 * a cell folds its cells: the min of their mins and the max of their maxes,
 * so a one-sample spike survives any zoom.
 *
 * Latencies (ttft_ms, tpot_ms) also keep sketches (sketch.h): one for the
 * whole run and one for each sliding window, 1 min, 10 min and 1 h.  A
 * window is a ring of 7 slot sketches of a sixth of its width (10 s, 100 s,
 * 600 s) and their running sum: a sample goes into its slot and the sum,
 * and when a slot leaves the ring it is subtracted from the sum, exactly.
 * A window thus covers the current slot and the 6 before it: at least its
 * width, at most 7/6 of it (Prometheus summaries' age buckets, finer).  Its
 * min, max and sum are recomputed from the slots.  Means over a window
 * (request_ok's success rate) come from the history cells on the same rule:
 * the current cell and the width's worth before it.
 *
 * The leak rule: rss_bytes and device_mem_bytes keep, for it, up to
 * MLEAK_SAMPLES raw samples: when full, every other one is dropped and only
 * every 2nd (4th, ...) sample is kept from then on, so the kept ones stay
 * evenly spread over the run.  The leak rule (soakstats.h, workspace.md G9)
 * runs on them unchanged: exact while the run has at most MLEAK_SAMPLES
 * samples (34 min at 1 Hz), and afterwards the same rule over a uniform
 * subsample of 1,024 to 2,048 samples, whose window medians are medians of
 * 75 to 150 samples instead of thousands: the same verdict unless a run
 * sits on the rule's edge (a growth within noise of the threshold, or
 * medians that dip by less than their noise); test_metrics.c holds it to
 * the exact rule on flat, noisy, leaking, step and sawtooth runs.  The
 * bucketed history was the other choice; it cannot give a median, and the
 * 1 % sketch error is as large as the rule's 1 % threshold.
 *
 * So a series costs its cells (31 KiB); a latency adds 25 sketches, 21
 * slots of 512 bytes and 4 sums of 1 KiB for a usual spread (sketch.h),
 * and a memory metric its 32 KiB of leak samples: about 48 KiB a latency
 * series, whatever the rate and however long the run.
 *
 * And however many series: the runner chooses the names it prints, and
 * one that prints a new name a sample (a request id, a timestamp) would
 * make a series each.  So a store keeps at most METRICS_JOB_SERIES series
 * (metrics_new(0), a job's: the simulator's soak makes 17 a chip), and the
 * stores that share a quota (struct mquota: the console's, over every job
 * it loads) at most METRICS_CONSOLE_SERIES together: 32 MiB a job and 128
 * MiB a console of plain series (more where they are latencies or memory
 * metrics), whatever names the runners print.  A series is keyed by host,
 * chip and name, never by labels: labels make no series, and chips come
 * under the same caps.  A sample of a new series past a cap is not stored:
 * it costs the two lookups that find it new, and it is counted, with the
 * distinct series among such samples up to METRICS_DROPPED_SERIES
 * (metrics_dropped), so that the owner can say what was not kept.  The
 * last quarter of either cap is kept for the names the console knows
 * (protocol.md §3: ttft_ms ... resets, and their _p99), so that a runner
 * printing junk names first cannot starve the soak's own: 256 series of a
 * job's 1,024, 12 names on 21 chips.
 *
 * Time is the samples' own ts.  Sliding windows move on when a sample of
 * their series arrives or when the owner calls metrics_tick(), which the
 * console does once a second so that a host gone quiet shows its windows
 * emptying.  Samples may come out of order: one still inside a window's or
 * a level's ring counts there; an older one counts only in the totals and
 * the coarser rings that still hold it.
 *
 * Ownership: struct metrics is opaque, made by metrics_new() and freed by
 * metrics_free(); series pointers are borrowed from it and stay valid until
 * metrics_free().  Merged views (metricsview.h) take arrays of series, so a
 * view merges any
 * selection (the chips of a host, all hosts): sketches merge exactly,
 * cells by count, sum, min and max.
 */
#ifndef CALOPS_METRICS_H
#define CALOPS_METRICS_H

#include "calops.h"

#include "metrics/sketch.h"
#include "metrics/soakstats.h"
#include "proto/event.h"

#define METRICS_JOB_SERIES	1024	/* a store's cap: metrics_new(0) */
#define METRICS_CONSOLE_SERIES	4096	/* the console's, over its stores */
#define METRICS_DROPPED_SERIES	1024	/* refused series counted apart */
#define METRICS_HOST_MAX	255	/* bytes of a host name */
#define MLEAK_SAMPLES		2048
#define MCHIP_NONE		(-1)	/* a host-wide series (no chip) */

enum mwin {
	MWIN_1M,
	MWIN_10M,
	MWIN_1H,
	MWIN_RUN,
};
#define MWIN_COUNT 4

enum mlevel {
	MLEVEL_1S,
	MLEVEL_10S,
	MLEVEL_5M,
};
#define MLEVEL_COUNT 3

/* One cell of history, or one folded graph column; count 0 is a gap. */
struct mcell {
	uint64_t	 count;
	double		 sum;
	double		 min, max;
	double		 last;	/* merged series: the mean of their lasts */
};

struct metrics;
struct mseries;

/* max_series 0 means METRICS_JOB_SERIES. */
struct metrics	*metrics_new(size_t max_series);
void		 metrics_free(struct metrics *m);

/*
 * A cap on series over several stores: each counts the series it makes
 * into used, and those it frees out of it.  The owner keeps it (zeroed,
 * then max set); it must outlive the stores that share it.
 */
struct mquota {
	size_t		 max;
	size_t		 used;
};
/* Count m's series, those it holds and those to come, against q. */
void	metrics_set_quota(struct metrics *m, struct mquota *q);

/*
 * What a store did not keep: samples of a new series that came past its
 * own cap or its quota's.  series counts them apart up to
 * METRICS_DROPPED_SERIES (by their 64-bit key hash), and more says that
 * others came after; cap is the cap that refused the first (0: none yet).
 */
struct mdropped {
	uint64_t	 samples;
	size_t		 series;
	bool		 more;
	size_t		 cap;
	bool		 quota;		/* cap is the quota's */
};
void	metrics_dropped(const struct metrics *m, struct mdropped *out);

/*
 * One sample.  0, or -1 with a message in err (which may be NULL): a ts not
 * in [0, 1e12], a value that is not finite, a negative latency, a name too
 * long or empty, a new series past a cap (counted: metrics_dropped).
 */
int	metrics_add(struct metrics *m, const char *host, int chip,
	    const char *name, double ts, double v, char *err, size_t errlen);
/* Every value of a metric event (chip MCHIP_NONE when it has none); 0, or
 * -1 with the first error (the other values are still added). */
int	metrics_add_event(struct metrics *m, const char *host,
	    const struct event *ev, char *err, size_t errlen);
/* Move every series' sliding windows to now. */
void	metrics_tick(struct metrics *m, double now);

/* The series, or NULL. */
struct mseries	*metrics_find(const struct metrics *m, const char *host,
		    int chip, const char *name);
/* Series in creation order, i < metrics_count(m). */
size_t		 metrics_count(const struct metrics *m);
struct mseries	*metrics_series(const struct metrics *m, size_t i);
/*
 * Up to max series of `name` on `host` (NULL: every host) and `chip`
 * (MCHIP_ANY: every chip) into out; returns how many matched in all.
 */
#define MCHIP_ANY	(-2)
size_t	metrics_select(const struct metrics *m, const char *host, int chip,
	    const char *name, struct mseries **out, size_t max);
/* Bytes held by the store, the structures and every sketch's buckets. */
size_t	metrics_memory(const struct metrics *m);

/*
 * The leak rule over what s kept (soakstats.h); not evaluated for a series
 * other than rss_bytes and device_mem_bytes.  Cached until the next sample.
 */
void	metrics_series_leak(struct mseries *s, struct leak_verdict *out);

/* A level's cell width in seconds and its number of cells. */
unsigned metrics_level_res(enum mlevel l);
unsigned metrics_level_cells(enum mlevel l);
/* A window's width in seconds (0 for MWIN_RUN). */
unsigned metrics_window_width(enum mwin w);

#endif

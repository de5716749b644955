/*
 * metrics_int.h: what metrics.c (the store, feeding the series) and
 * metricsview.c (reading them, merged views) share: the tables and the
 * series' layout.  Not a public contract: only those two files include it.
 */
#ifndef CALOPS_METRICS_INT_H
#define CALOPS_METRICS_INT_H

#include "metrics/metrics.h"

#define TS_MAX		1e12
#define WIN_SLOTS	7	/* the current slot and the 6 before it */
#define NLAT_WIN	3	/* the sliding windows; MWIN_RUN is apart */

/* History levels: cell width and cells (metrics.h). */
struct mlevel_def {
	unsigned	res;
	unsigned	ncells;
};
extern const struct mlevel_def metrics_levels[MLEVEL_COUNT];
#define NCELLS_ALL	(120 + 384 + 300)

/* Sliding windows: width, and their slots' width (a sixth of it). */
struct mwindow_def {
	unsigned	width;
	unsigned	slot;
};
extern const struct mwindow_def metrics_windows[NLAT_WIN];

/*
 * Rings keep key k at index k % n; `at` is cur % n, so that the samples of
 * the current cell or slot, nearly all of them, cost no division.
 */
struct ring {
	int64_t		 cur;	/* key of the newest cell, -1 before any */
	uint32_t	 at;
	struct mcell	*cells;
};

struct window {
	int64_t		 cur;	/* key of the current slot, -1 before any */
	uint32_t	 at;
	struct sketch	 sum;	/* the live slots together */
	struct sketch	 slot[WIN_SLOTS];
};

struct latency {
	struct window	 w[NLAT_WIN];
	struct sketch	 run;
};

/* Leak-rule samples: every stride-th sample, and the latest one. */
struct leak {
	double		 ts[MLEAK_SAMPLES], v[MLEAK_SAMPLES];
	uint32_t	 n;
	uint64_t	 stride, seen;
	bool		 has_tail, fresh;
	double		 tail_ts, tail_v;
	struct leak_verdict verdict;
};

struct mseries {
	uint64_t	 hash;
	int		 chip;
	const char	*host, *name;
	uint64_t	 count;
	double		 sum, min, max, last, last_ts;
	struct ring	 level[MLEVEL_COUNT];
	struct mcell	*cells;		/* every level's, one block */
	struct latency	*lat;		/* latencies only */
	struct leak	*leak;		/* rss_bytes, device_mem_bytes only */
	char		 names[];	/* host NUL name NUL */
};

struct metrics {
	struct mseries	**table;	/* open addressing, power of 2 */
	size_t		  tsize;
	struct mseries	**list;		/* creation order */
	size_t		  n, alloc, max;
	struct mquota	 *quota;	/* borrowed, or NULL */
	/* Refused series: their key hashes (0: empty), made at the first. */
	uint64_t	 *refused;
	struct mdropped	  dropped;
};

#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

/* The index of key k in a ring of n whose newest key cur is at `at`. */
static inline uint32_t
ring_index(int64_t cur, uint32_t at, uint32_t n, int64_t k)
{
	uint32_t back = (uint32_t)(cur - k);	/* cur - n < k <= cur */

	return back <= at ? at - back : at + n - back;
}

#endif

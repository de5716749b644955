/*
 * soakstats.h: the exact statistics of a soak run that G9 judges by
 * (workspace.md G9): nearest-rank percentiles over all samples, and the
 * memory-leak rule of runbook §13.3.  Pure functions over arrays; the live
 * console uses sketches instead, and these are their reference.
 */
#ifndef CALOPS_SOAKSTATS_H
#define CALOPS_SOAKSTATS_H

#include "calops.h"

#define LEAK_WINDOWS 12

/* A growable array of (ts, value) samples, owned by whoever declared it. */
struct series {
	double	*ts;
	double	*v;
	size_t	 n, alloc;
};

void	soakstats_series_add(struct series *s, double ts, double v);
void	soakstats_series_release(struct series *s);
/* Append every sample of from to to, in from's order. */
void	soakstats_series_append(struct series *to, const struct series *from);

/* The ⌈p·n⌉-th smallest of v (sorted in place); NAN when n == 0. */
double	soakstats_nearest_rank(double *v, size_t n, double p);
/* The same value, selected in O(n) on average rather than sorted for:
 * v is left in an unspecified order. */
double	soakstats_nearest_rank_select(double *v, size_t n, double p);

struct leak_verdict {
	bool	evaluated;		/* enough samples to judge */
	bool	growing;		/* the rule's error */
	double	medians[LEAK_WINDOWS];
	double	growth;			/* last - first median */
	double	threshold;		/* max(1 % of first, 1 MiB) */
};

/*
 * The leak rule: drop the first 10 % of the run's time span, cut the rest
 * into 12 equal windows, take each window's median (nearest rank); growth
 * when the medians never decrease and the last exceeds the first by more
 * than max(1 % of the first, 1 MiB).  s need not be sorted by time; it is
 * left in an unspecified order.
 */
void	soakstats_leak_rule(struct series *s, struct leak_verdict *out);
/*
 * Whether a verdict of the rule, judged live on a run still going, is a
 * leak: the rule says growing, and the medians grew by more than its
 * threshold over the latter half of its windows too.  Early in a run the
 * first 10 % left out is shorter than the runtime's warm-up (memory that
 * grows, then holds, as the KV pool and caches fill): the rule alone takes
 * a warm-up followed by a flat line for a leak, as equal medians never
 * decrease, until the run spans some ten times the warm-up.  Memory that
 * has stopped growing has not grown over the latter half.  A real leak is
 * told once it has grown past the threshold in half the span.
 */
bool	soakstats_leak_still_growing(const struct leak_verdict *v);

#endif

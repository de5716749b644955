/* soakstats.c: exact soak statistics, the reference G9 judges by. */
#include "calops.h"

#include <math.h>

#include "metrics/soakstats.h"

void
soakstats_series_add(struct series *s, double ts, double v)
{
	if (s->n == s->alloc) {
		s->alloc = s->alloc == 0 ? 1024 : s->alloc * 2;
		s->ts = xreallocarray(s->ts, s->alloc, sizeof *s->ts);
		s->v = xreallocarray(s->v, s->alloc, sizeof *s->v);
	}
	s->ts[s->n] = ts;
	s->v[s->n] = v;
	s->n++;
}

void
soakstats_series_release(struct series *s)
{
	free(s->ts);
	free(s->v);
	memset(s, 0, sizeof *s);
}

void
soakstats_series_append(struct series *to, const struct series *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		soakstats_series_add(to, from->ts[i], from->v[i]);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The nearest rank of p in n values, from 1. */
static size_t
rank_of(size_t n, double p)
{
	size_t k = (size_t)ceil(p * (double)n - 1e-9);

	return k < 1 ? 1 : k > n ? n : k;
}

double
soakstats_nearest_rank(double *v, size_t n, double p)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return v[rank_of(n, p) - 1];
}

static double
median3(double a, double b, double c)
{
	if (a > b)
		return b > c ? b : a > c ? c : a;
	return a > c ? a : b > c ? c : b;
}

static void
swap_double(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/*
 * The (k+1)-th smallest of v[0..n), k < n, the value nearest_rank's sort
 * would put at v[k], in O(n) on average: Hoare's select with three-way
 * partitions (runs of equal samples end it at once) and a median of three
 * for pivot; a range that does not shrink fast enough is sorted instead,
 * so O(n log n) at worst.  v is left in an unspecified order.
 */
static double
kth_smallest(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n, lt, gt, i, rounds = 8;
	double p;

	for (i = n; i > 1; i >>= 1)
		rounds += 2;
	while (hi - lo > 1) {
		if (rounds-- == 0) {
			qsort(v + lo, hi - lo, sizeof *v, cmp_double);
			return v[k];
		}
		p = median3(v[lo], v[lo + (hi - lo) / 2], v[hi - 1]);
		for (lt = i = lo, gt = hi; i < gt;) {
			if (v[i] < p)
				swap_double(&v[lt++], &v[i++]);
			else if (v[i] > p)
				swap_double(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return p;
	}
	return v[k];
}

double
soakstats_nearest_rank_select(double *v, size_t n, double p)
{
	return n == 0 ? NAN : kth_smallest(v, n, rank_of(n, p) - 1);
}

void
soakstats_leak_rule(struct series *s, struct leak_verdict *out)
{
	double t0 = INFINITY, t1 = -INFINITY, start, width, *win;
	size_t i, w, counts[LEAK_WINDOWS] = { 0 }, *fill;
	bool rising = true;

	memset(out, 0, sizeof *out);
	for (i = 0; i < s->n; i++) {
		t0 = fmin(t0, s->ts[i]);
		t1 = fmax(t1, s->ts[i]);
	}
	if (s->n < LEAK_WINDOWS || !(t1 > t0))
		return;
	start = t0 + (t1 - t0) * 0.10;
	width = (t1 - start) / LEAK_WINDOWS;
	/* Bucket the samples by window: count, then place. */
	for (i = 0; i < s->n; i++) {
		if (s->ts[i] < start)
			continue;
		w = (size_t)((s->ts[i] - start) / width);
		counts[w < LEAK_WINDOWS ? w : LEAK_WINDOWS - 1]++;
	}
	for (w = 0; w < LEAK_WINDOWS; w++)
		if (counts[w] == 0)
			return;	/* a gap: not enough evidence to judge */
	win = xreallocarray(NULL, s->n, sizeof *win);
	fill = xcalloc(LEAK_WINDOWS + 1, sizeof *fill);
	for (w = 1; w <= LEAK_WINDOWS; w++)
		fill[w] = fill[w - 1] + counts[w - 1];
	for (i = 0; i < s->n; i++) {
		if (s->ts[i] < start)
			continue;
		w = (size_t)((s->ts[i] - start) / width);
		w = w < LEAK_WINDOWS ? w : LEAK_WINDOWS - 1;
		win[fill[w]++] = s->v[i];
	}
	for (w = 0; w < LEAK_WINDOWS; w++) {
		size_t from = fill[w] - counts[w];

		/* The nearest rank's median, selected: the rule runs
		 * as a soak's samples come, 1,440 times a day a series. */
		out->medians[w] = soakstats_nearest_rank_select(win + from,
		    counts[w], 0.5);
		if (w > 0 && out->medians[w] < out->medians[w - 1])
			rising = false;
	}
	out->evaluated = true;
	out->growth = out->medians[LEAK_WINDOWS - 1] - out->medians[0];
	out->threshold = fmax(0.01 * out->medians[0], 1048576.0);
	out->growing = rising && out->growth > out->threshold;
	free(fill);
	free(win);
}

bool
soakstats_leak_still_growing(const struct leak_verdict *v)
{
	return v->evaluated && v->growing &&
	    v->medians[LEAK_WINDOWS - 1] - v->medians[LEAK_WINDOWS / 2] >
	    v->threshold;
}

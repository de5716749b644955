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

double
soakstats_nearest_rank(double *v, size_t n, double p)
{
	size_t k;

	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	k = (size_t)ceil(p * (double)n - 1e-9);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
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

		out->medians[w] = soakstats_nearest_rank(
		    win + from, counts[w], 0.5);
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

/* metricsview.c: reading the metric store: a series' fields, windows,
 * means, history and graph columns, merged over any set of series
 * (metrics.h). */
#include "calops.h"

#include <math.h>

#include "metrics/metrics.h"
#include "metrics/metrics_int.h"
#include "metrics/metricsview.h"

/* The cell of key k, or NULL for a gap. */
static const struct mcell *
ring_get(const struct ring *r, unsigned n, int64_t k)
{
	const struct mcell *c;

	if (r->cur < 0 || k > r->cur || k <= r->cur - n || k < 0)
		return NULL;
	c = &r->cells[ring_index(r->cur, r->at, n, k)];
	return c->count == 0 ? NULL : c;
}

const char *
metricsview_series_host(const struct mseries *s)
{
	return s->host;
}

int
metricsview_series_chip(const struct mseries *s)
{
	return s->chip;
}

const char *
metricsview_series_name(const struct mseries *s)
{
	return s->name;
}

double
metricsview_series_last_ts(const struct mseries *s)
{
	return s->last_ts;
}

void
metricsview_series_totals(const struct mseries *s, struct mcell *out)
{
	out->count = s->count;
	out->sum = s->sum;
	out->min = s->count == 0 ? NAN : s->min;
	out->max = s->count == 0 ? NAN : s->max;
	out->last = s->last;
}

const struct sketch *
metricsview_series_window(const struct mseries *s, enum mwin w)
{
	if (s->lat == NULL)
		return NULL;
	return w == MWIN_RUN ? &s->lat->run : &s->lat->w[w].sum;
}

/* ---- Merged views ---- */

void
metricsview_merge_window(struct mseries *const *s, size_t n, enum mwin w,
    struct sketch *out)
{
	const struct sketch *k;
	size_t i;

	sketch_reset(out);
	for (i = 0; i < n; i++)
		if ((k = metricsview_series_window(s[i], w)) != NULL)
			sketch_merge(out, k);
}

double
metricsview_mean(struct mseries *const *s, size_t n, enum mwin w, double now)
{
	enum mlevel l = w == MWIN_1M ? MLEVEL_1S : MLEVEL_10S;
	const struct mcell *c;
	int64_t k, from, to;
	uint64_t count = 0;
	double sum = 0;
	size_t i;

	for (i = 0; i < n && w == MWIN_RUN; i++) {
		count += s[i]->count;
		sum += s[i]->sum;
	}
	if (w != MWIN_RUN && now >= 0 && now <= TS_MAX) {
		to = (int64_t)(now / metrics_levels[l].res);
		from = to - metrics_windows[w].width / metrics_levels[l].res;
		for (i = 0; i < n; i++)
			for (k = from; k <= to; k++)
				if ((c = ring_get(&s[i]->level[l],
				    metrics_levels[l].ncells, k)) != NULL) {
					count += c->count;
					sum += c->sum;
				}
	}
	return count == 0 ? NAN : sum / (double)count;
}

void
metricsview_cell_gap(struct mcell *c)
{
	c->count = 0;
	c->sum = 0;
	c->min = c->max = c->last = NAN;
}

/* Fold one series' cells [a, b] into acc; its last goes to *last. */
static bool
fold_series(const struct mseries *s, enum mlevel l, int64_t a, int64_t b,
    struct mcell *acc, double *last)
{
	const struct mcell *c;
	bool any = false;
	int64_t k;

	for (k = a; k <= b; k++) {
		if ((c = ring_get(&s->level[l], metrics_levels[l].ncells, k)) ==
		    NULL)
			continue;
		if (acc->count == 0) {
			acc->min = c->min;
			acc->max = c->max;
		}
		acc->count += c->count;
		acc->sum += c->sum;
		acc->min = fmin(acc->min, c->min);
		acc->max = fmax(acc->max, c->max);
		*last = c->last;
		any = true;
	}
	return any;
}

/*
 * Columns over the m cells of level l that end with key `to`: column i
 * folds cells [i * m / ncols, (i + 1) * m / ncols), at least one.
 */
static void
fold(struct mseries *const *s, size_t n, enum mlevel l, int64_t to,
    int64_t m, struct mcell *out, size_t ncols)
{
	int64_t first = to - m + 1, a, b;
	double last = NAN, lastsum;
	size_t c, i, nlast;

	for (c = 0; c < ncols; c++) {
		a = first + (int64_t)c * m / (int64_t)ncols;
		b = first + ((int64_t)c + 1) * m / (int64_t)ncols - 1;
		if (b < a)
			b = a;
		metricsview_cell_gap(&out[c]);
		lastsum = 0;
		nlast = 0;
		for (i = 0; i < n; i++)
			if (fold_series(s[i], l, a, b, &out[c], &last)) {
				lastsum += last;
				nlast++;
			}
		if (nlast > 0)
			out[c].last = lastsum / (double)nlast;
	}
}

void
metricsview_history(struct mseries *const *s, size_t n, enum mlevel l,
    double now, struct mcell *out, size_t ncells)
{
	size_t i;

	if (!(now >= 0 && now <= TS_MAX)) {
		for (i = 0; i < ncells; i++)
			metricsview_cell_gap(&out[i]);
		return;
	}
	fold(s, n, l, (int64_t)(now / metrics_levels[l].res), (int64_t)ncells,
	    out, ncells);
}

enum mlevel
metricsview_graph(struct mseries *const *s, size_t n, double now, double span,
    struct mcell *out, size_t ncols)
{
	enum mlevel l;
	double cells;
	size_t i;

	if (!(span >= 1 && span <= TS_MAX))
		span = 1;
	for (l = 0; l < MLEVEL_COUNT - 1; l++)
		if ((double)metrics_levels[l].res * metrics_levels[l].ncells >=
		    span + metrics_levels[l].res)
			break;
	cells = ceil(span / metrics_levels[l].res);
	if (cells > metrics_levels[l].ncells)
		cells = metrics_levels[l].ncells;
	if (cells < 1)
		cells = 1;
	if (!(now >= 0 && now <= TS_MAX) || ncols == 0) {
		for (i = 0; i < ncols; i++)
			metricsview_cell_gap(&out[i]);
		return l;
	}
	fold(s, n, l, (int64_t)(now / metrics_levels[l].res), (int64_t)cells,
	    out, ncols);
	return l;
}

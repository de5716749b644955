/*
 * metricsview.h: what a screen reads of a metric store (metrics.h): a
 * series' name, host, chip, freshness and totals, a window's sketch, and n
 * series merged: a window's percentiles, a mean, a level's history, graph
 * columns over a span.  Everything is computed from what the store keeps;
 * nothing here changes it.  Pointers returned are borrowed from the store.
 */
#ifndef CALOPS_METRICSVIEW_H
#define CALOPS_METRICSVIEW_H

#include "calops.h"

#include "metrics/metrics.h"
#include "metrics/sketch.h"

/* Make c a gap: no samples. */
void	metricsview_cell_gap(struct mcell *c);

const char	*metricsview_series_host(const struct mseries *s);
int		 metricsview_series_chip(const struct mseries *s);
const char	*metricsview_series_name(const struct mseries *s);
/* Freshness: the latest sample ts (NAN before any). */
double		 metricsview_series_last_ts(const struct mseries *s);
/* The whole run: count, sum, min, max, and the last value that arrived. */
void		 metricsview_series_totals(const struct mseries *s,
	    struct mcell *out);
/* The sketch of a window (borrowed), or NULL if s is not a latency. */
const struct sketch *metricsview_series_window(const struct mseries *s,
	    enum mwin w);
/* The exact merge of n series' window sketches into out (initialised). */
void	metricsview_merge_window(struct mseries *const *s, size_t n,
	    enum mwin w,
	    struct sketch *out);
/*
 * The mean of n series' samples over a window (MWIN_RUN: the whole run),
 * counted from the cells at now; NAN with no samples.  For request_ok this
 * is the success rate.
 */
double	metricsview_mean(struct mseries *const *s, size_t n, enum mwin w,
	    double now);
/*
 * The last ncells cells of a level, the last one holding now, merged over
 * n series.  out[ncells - 1] is now's cell.
 */
void	metricsview_history(struct mseries *const *s, size_t n, enum mlevel l,
	    double now, struct mcell *out, size_t ncells);
/*
 * ncols graph columns over (now - span, now], from the finest level that
 * holds the span (else the coarsest), cells folded into columns; returns
 * the level used.
 */
enum mlevel metricsview_graph(struct mseries *const *s, size_t n, double now,
	    double span, struct mcell *out, size_t ncols);

#endif

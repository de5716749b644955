/*
 * graph.h: small time graphs for the soak view: graph columns (struct
 * mcell, metrics.h) drawn as braille dots, two columns and four levels a
 * character (U+2800), or in ASCII one column and one level a character
 * when the terminal cannot show braille.
 *
 * Each column is drawn as its band, min to max, so a one-sample spike that
 * a zoomed-out column folded in still shows (GRAPH_BAND); or as its mean,
 * sum / count, joined to the column before it (GRAPH_MEAN: a success rate,
 * where min and max are only 0 and 1).  A column with no sample (count 0)
 * is a gap and drawn blank: the line is never joined across it.  An
 * optional threshold (the SLA) is a dashed row; a column that crosses it
 * is drawn with the breach ink from the threshold outwards, and in ASCII
 * with '#', so a breach shows without colour.  When the caller tells which
 * columns an alert covered, a crossing no alert covered (a dip too brief
 * to alert) has an ink of its own, '!' in ASCII.  An optional cursor is a
 * vertical rule through the plot where nothing else is drawn.  The y axis
 * at the left labels the top, the bottom and the threshold in the
 * metric's unit.
 *
 * graph_fold(), graph_range(), graph_render() and graph_format() are pure
 * (no terminal), for tests; graph_draw() puts a graph on a curses window
 * with the theme's roles.  Every buffer is the caller's.
 */
#ifndef CALOPS_GRAPH_H
#define CALOPS_GRAPH_H

#include "calops.h"

#include <curses.h>

#include "metrics/metrics.h"

#define GRAPH_AXIS	7	/* columns of the y axis: 6 of label, 1 rule */
#define GRAPH_GLYPH_MAX	8	/* bytes of a glyph and its NUL */

enum graph_unit {
	GU_NONE,		/* a plain number */
	GU_COUNT,		/* a count: 1234, 12k, 3.4M */
	GU_MS,			/* milliseconds */
	GU_BYTES,		/* bytes, in binary multiples */
	GU_RATIO,		/* 0..1 shown as a percentage */
	GU_CELSIUS,
	GU_WATTS,
};

enum graph_mode {
	GRAPH_BAND,		/* min..max of each column */
	GRAPH_MEAN,		/* the mean of each column, joined */
};

/* What a character cell of the plot is drawn as: its role in the view. */
enum graph_ink {
	GINK_BLANK,		/* nothing (a gap, or no data there) */
	GINK_DATA,
	GINK_BREACH,		/* data beyond the threshold */
	GINK_LINE,		/* the threshold alone */
	GINK_DIP,		/* beyond it, where no alert was open */
	GINK_CURSOR,		/* the time cursor's rule */
};

struct graph_glyph {
	char		 s[GRAPH_GLYPH_MAX];	/* UTF-8, or one ASCII byte */
	enum graph_ink	 ink;
};

struct graph_spec {
	enum graph_mode	 mode;
	enum graph_unit	 unit;
	double		 lo, hi;	/* the y range (graph_range) */
	double		 threshold;	/* NAN: none */
	bool		 below;		/* a breach is below the threshold */
	bool		 ascii;
	/* Per column: an alert was open then (nonzero), or not.  NULL: no
	 * column is told apart, every crossing is a breach. */
	const unsigned char *alerted;
	bool		 has_cursor;	/* draw the cursor's rule at ... */
	int		 cursor;	/* ... this character column */
};

/* Data columns a character holds across (2, 1 in ASCII) and levels up
 * (4, 1 in ASCII). */
int	 graph_dots_x(bool ascii);
int	 graph_dots_y(bool ascii);

/*
 * The finest history level (metrics.h) whose ring still holds the cells of
 * (end - span, end] while its newest cell is newest's: metricsview_graph()
 * chooses by span alone, which a cursor far back would leave with gaps.
 */
enum mlevel graph_level(double newest, double end, double span);
/* ncols columns of n series over (end - span, end] from graph_level()'s
 * level, merged over the series and folded as graph_fold() does. */
void	 graph_columns(struct mseries *const *s, size_t n, double newest,
	    double end, double span, struct mcell *cols, size_t ncols);

/*
 * Fold ncells consecutive cells (oldest first) into ncols columns: column
 * i takes cells [i * ncells / ncols, (i + 1) * ncells / ncols), at least
 * one: count and sum added, min of mins, max of maxes, the last cell's
 * last.  Cells with count 0 are gaps; a column of gaps is a gap.
 */
void	 graph_fold(const struct mcell *cells, size_t ncells,
	    struct mcell *cols, size_t ncols);

/*
 * Hold a gauge across the gaps between its samples: a run of at most
 * maxgap gap columns after a column with data takes that column's value,
 * at the right end too (the next sample is not due yet).  A metric sampled
 * once a minute has not gone quiet between its samples; a longer run stays
 * a gap.  maxgap 0 holds nothing.
 */
void	 graph_hold(struct mcell *cols, size_t ncols, size_t maxgap);
/*
 * The maxgap for graph_hold() of a gauge: its sample interval and a half
 * in columns of colsec seconds, the interval estimated from the samples n
 * series took over span seconds of run.  0 (hold nothing) when there are
 * too few samples to tell, or no series.
 */
size_t	 graph_hold_gap(struct mseries *const *s, size_t n, double span,
	    double colsec);

/*
 * The y range of spec's mode over the columns and the threshold (when not
 * NAN), with a small margin, never below 0 when the data are not, and
 * never empty (a flat line is centred).  No data at all: 0..1.
 */
void	 graph_range(const struct mcell *cols, size_t ncols,
	    enum graph_mode mode, double threshold, double *lo, double *hi);

/*
 * The plot of ncols columns in rows x width characters: out[r * width + c],
 * row 0 at the top.  Column i goes to character i / graph_dots_x(); columns
 * beyond width * graph_dots_x() are not drawn, missing ones are blank.
 */
void	 graph_render(const struct graph_spec *g, const struct mcell *cols,
	    size_t ncols, struct graph_glyph *out, int rows, int width);

/* A value in a unit, at most 6 columns ("1.21Gi", "450ms", "99.9%");
 * "-" for NAN. */
void	 graph_format(double v, enum graph_unit u, char *buf, size_t len);
/* a and b as graph_format() says them, with more digits where it takes
 * them for two values that differ to read apart (99.46% and 99.5%, not
 * 99.5% twice); each into a buffer of len. */
void	 graph_format_pair(double a, double b, enum graph_unit u, char *ba,
	    char *bb, size_t len);

/* Time for axes and headers: a duration, compact ("45s", "12m30s",
 * "3h12m", "2d04h"); a signed offset ("-01:02:03"); a wall-clock time,
 * local ("14:02", with secs "14:02:07"; "-" for NAN). */
void	 graph_fmt_dur(double s, char *buf, size_t len);
void	 graph_fmt_hms(double s, char sign, char *buf, size_t len);
void	 graph_fmt_clock(double wall, bool secs, char *buf, size_t len);

/*
 * Draw the y axis and the plot of the columns in rows x width at (y, x)
 * of w: the plot takes width - GRAPH_AXIS characters, so
 * (width - GRAPH_AXIS) * graph_dots_x() columns fill it.  Nothing is drawn
 * under 2 rows or GRAPH_AXIS + 2 columns.
 */
void	 graph_draw(WINDOW *w, int y, int x, int rows, int width,
	    const struct graph_spec *g, const struct mcell *cols, size_t ncols);

#endif

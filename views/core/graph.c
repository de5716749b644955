/* graph.c: braille and ASCII time graphs (see graph.h). */
#include "calops.h"

#include <math.h>
#include <time.h>

#include "metrics/metricsview.h"
#include "views/core/graph.h"
#include "views/core/ui.h"

/* The braille bit of dot (x, y) of a character, y 0 at the top. */
static const unsigned char braille_bit[2][4] = {
	{ 0x01, 0x02, 0x04, 0x40 },
	{ 0x08, 0x10, 0x20, 0x80 },
};

int
graph_dots_x(bool ascii)
{
	return ascii ? 1 : 2;
}

int
graph_dots_y(bool ascii)
{
	return ascii ? 1 : 4;
}

enum mlevel
graph_level(double newest, double end, double span)
{
	enum mlevel l;
	double res;

	if (!(newest >= end))
		newest = end;
	for (l = MLEVEL_1S; l < MLEVEL_5M; l++) {
		res = metrics_level_res(l);
		if (res * metrics_level_cells(l) >= newest - (end - span) + res)
			break;
	}
	return l;
}

void
graph_columns(struct mseries *const *s, size_t n, double newest, double end,
    double span, struct mcell *cols, size_t ncols)
{
	enum mlevel l = graph_level(newest, end, span);
	struct mcell *cells;
	size_t m = (size_t)ceil(fmax(span, 1) / metrics_level_res(l));

	if (m > metrics_level_cells(l))
		m = metrics_level_cells(l);
	cells = xcalloc(m, sizeof *cells);
	metricsview_history(s, n, l, end, cells, m);
	graph_fold(cells, m, cols, ncols);
	free(cells);
}

void
graph_fold(const struct mcell *cells, size_t ncells, struct mcell *cols,
    size_t ncols)
{
	const struct mcell *c;
	size_t i, a, b, k;

	for (i = 0; i < ncols; i++) {
		metricsview_cell_gap(&cols[i]);
		if (ncells == 0)
			continue;
		a = i * ncells / ncols;
		b = (i + 1) * ncells / ncols;
		if (b <= a)
			b = a + 1;
		for (k = a; k < b && k < ncells; k++) {
			c = &cells[k];
			if (c->count == 0)
				continue;
			if (cols[i].count == 0) {
				cols[i].min = c->min;
				cols[i].max = c->max;
			}
			cols[i].count += c->count;
			cols[i].sum += c->sum;
			cols[i].min = fmin(cols[i].min, c->min);
			cols[i].max = fmax(cols[i].max, c->max);
			cols[i].last = c->last;
		}
	}
}

void
graph_hold(struct mcell *cols, size_t ncols, size_t maxgap)
{
	size_t i = 0, a, k;

	while (i < ncols) {
		if (cols[i].count != 0 || i == 0 || cols[i - 1].count == 0) {
			i++;
			continue;
		}
		for (a = i; i < ncols && cols[i].count == 0; i++)
			;
		if (i - a <= maxgap)
			for (k = a; k < i; k++)
				cols[k] = cols[a - 1];
	}
}

size_t
graph_hold_gap(struct mseries *const *s, size_t n, double span,
    double colsec)
{
	struct mcell tot;
	uint64_t count = 0;
	double every;
	size_t i;

	for (i = 0; i < n; i++) {
		metricsview_series_totals(s[i], &tot);
		count += tot.count;
	}
	if (n == 0 || count <= n || !(span > 0) || !(colsec > 0))
		return 0;
	every = span / ((double)count / (double)n - 1);
	return every > 1e9 ? 0 : (size_t)fmin(ceil(1.5 * every / colsec), 1e9);
}

/* What a column shows: its band, or its mean twice; false for a gap. */
static bool
column_span(const struct mcell *c, enum graph_mode mode, double *lo,
    double *hi)
{
	if (c->count == 0)
		return false;
	if (mode == GRAPH_MEAN)
		*lo = *hi = c->sum / (double)c->count;
	else {
		*lo = c->min;
		*hi = c->max;
	}
	return isfinite(*lo) && isfinite(*hi);
}

void
graph_range(const struct mcell *cols, size_t ncols, enum graph_mode mode,
    double threshold, double *lo, double *hi)
{
	double a = INFINITY, b = -INFINITY, x, y, pad;
	size_t i;

	for (i = 0; i < ncols; i++)
		if (column_span(&cols[i], mode, &x, &y)) {
			a = fmin(a, x);
			b = fmax(b, y);
		}
	if (a > b) {
		*lo = 0;
		*hi = 1;
		return;
	}
	if (isfinite(threshold)) {
		a = fmin(a, threshold);
		b = fmax(b, threshold);
	}
	pad = (b - a) * 0.05;
	if (pad == 0)
		pad = fabs(a) > 0 ? fabs(a) * 0.05 : 0.5;
	*lo = a >= 0 && a - pad < 0 ? 0 : a - pad;
	*hi = b + pad;
}

/* The level (0 at the bottom) of v among h. */
static int
level(const struct graph_spec *g, double v, int h)
{
	double f = (v - g->lo) / (g->hi - g->lo) * h;
	int l;

	if (!(f > 0))
		return 0;
	l = f >= h ? h - 1 : (int)f;
	return l;
}

/* A character cell being built: bits of its dots, and what they are. */
struct cellbuild {
	unsigned	 bits, line;	/* data dots, threshold dots */
	bool		 breach, dip;	/* beyond it with an alert, without */
	int		 span;		/* ASCII: 1 one level, 2 more */
};

/* Set the dots of column i over levels [l0, l1]. */
static void
put_column(const struct graph_spec *g, struct cellbuild *cb, int rows,
    int width, size_t i, int l0, int l1, int lt, bool breach, bool dip)
{
	int dx = graph_dots_x(g->ascii), dy = graph_dots_y(g->ascii);
	int h = rows * dy, c = (int)(i / (size_t)dx), sub = (int)(i %
	    (size_t)dx), l, t;
	struct cellbuild *k;

	if (c >= width)
		return;
	for (l = l0; l <= l1; l++) {
		t = h - 1 - l;
		k = &cb[(t / dy) * width + c];
		k->bits |= g->ascii ? 1u : braille_bit[sub][t % dy];
		k->span = g->ascii && l0 != l1 ? 2 : k->span > 0 ? k->span : 1;
		if ((breach || dip) && (g->below ? l <= lt : l >= lt)) {
			k->breach |= breach;
			k->dip |= dip;
		}
	}
}

/* The threshold's dashed row: the first dot column of every character. */
static void
put_line(const struct graph_spec *g, struct cellbuild *cb, int rows,
    int width, int lt)
{
	int dy = graph_dots_y(g->ascii), t = rows * dy - 1 - lt, c;

	for (c = 0; c < width; c++)
		cb[(t / dy) * width + c].line |= g->ascii ? 1u :
		    braille_bit[0][t % dy];
}

static void
glyph_of(const struct graph_spec *g, const struct cellbuild *k,
    struct graph_glyph *out)
{
	unsigned bits = k->bits != 0 ? k->bits | k->line : k->line;

	out->ink = k->breach ? GINK_BREACH : k->dip ? GINK_DIP : k->bits != 0 ?
	    GINK_DATA : k->line != 0 ? GINK_LINE : GINK_BLANK;
	if (out->ink == GINK_BLANK)
		snprintf(out->s, sizeof out->s, " ");
	else if (g->ascii)
		snprintf(out->s, sizeof out->s, "%c", k->breach ? '#' :
		    k->dip ? '!' : k->bits == 0 ? '-' : k->span > 1 ? '|' :
		    '*');
	else {
		/* U+2800 + bits in UTF-8: E2, A0 + top two bits, 80 + rest. */
		out->s[0] = (char)0xe2;
		out->s[1] = (char)(0xa0 | bits >> 6);
		out->s[2] = (char)(0x80 | (bits & 0x3f));
		out->s[3] = '\0';
	}
}

void
graph_render(const struct graph_spec *g, const struct mcell *cols,
    size_t ncols, struct graph_glyph *out, int rows, int width)
{
	int h = rows * graph_dots_y(g->ascii), lt = -1, l0, l1, prev = -1, i;
	bool has_line = isfinite(g->threshold), breach, dip;
	struct cellbuild *cb;
	double a, b;
	size_t n;

	if (rows <= 0 || width <= 0)
		return;
	cb = xcalloc((size_t)rows * (size_t)width, sizeof *cb);
	if (has_line && g->threshold >= g->lo && g->threshold <= g->hi) {
		lt = level(g, g->threshold, h);
		put_line(g, cb, rows, width, lt);
	}
	n = (size_t)width * (size_t)graph_dots_x(g->ascii);
	for (i = 0; (size_t)i < ncols && (size_t)i < n; i++) {
		if (!column_span(&cols[i], g->mode, &a, &b)) {
			prev = -1;
			continue;
		}
		l0 = level(g, a, h);
		l1 = level(g, b, h);
		if (g->mode == GRAPH_MEAN && prev >= 0) {
			l0 = prev < l0 ? prev + 1 > l0 ? l0 : prev + 1 : l0;
			l1 = prev > l1 ? prev - 1 < l1 ? l1 : prev - 1 : l1;
		}
		prev = level(g, b, h);
		breach = has_line && (g->below ? a < g->threshold :
		    b > g->threshold);
		/* A crossing no alert covered: a dip too brief to alert. */
		dip = breach && g->alerted != NULL && !g->alerted[i];
		put_column(g, cb, rows, width, (size_t)i, l0, l1,
		    lt >= 0 ? lt : g->below ? h - 1 : 0, breach && !dip, dip);
	}
	for (i = 0; i < rows * width; i++)
		glyph_of(g, &cb[i], &out[i]);
	/* The cursor's rule, where nothing else is drawn. */
	for (i = 0; g->has_cursor && g->cursor >= 0 && g->cursor < width &&
	    i < rows; i++) {
		struct graph_glyph *o = &out[i * width + g->cursor];

		if (o->ink != GINK_BLANK && o->ink != GINK_LINE)
			continue;
		o->ink = GINK_CURSOR;
		snprintf(o->s, sizeof o->s, "%s", g->ascii ? "|" : "│");
	}
	free(cb);
}

/* A number with a k/M/G-style multiple of base, in at most 6 columns. */
static void
scaled(double v, double base, const char *const *suffix, size_t nsuffix,
    char *buf, size_t len)
{
	size_t i = 0;

	while (fabs(v) >= 999.5 && i + 1 < nsuffix) {
		v /= base;
		i++;
	}
	if (i == 0 || fabs(v) >= 99.95)
		snprintf(buf, len, "%.0f%s", v, suffix[i]);
	else if (fabs(v) >= 9.995)
		snprintf(buf, len, "%.1f%s", v, suffix[i]);
	else
		snprintf(buf, len, "%.2f%s", v, suffix[i]);
}

void
graph_format(double v, enum graph_unit u, char *buf, size_t len)
{
	static const char *const si[] = { "", "k", "M", "G", "T" };
	static const char *const bin[] = { "B", "Ki", "Mi", "Gi", "Ti" };

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	switch (u) {
	case GU_COUNT:
		scaled(v, 1000, si, nitems(si), buf, len);
		break;
	case GU_MS:
		if (fabs(v) >= 9999.5)
			snprintf(buf, len, "%.0fs", v / 1000);
		else if (fabs(v) >= 999.5)
			snprintf(buf, len, "%.1fs", v / 1000);
		else
			snprintf(buf, len, fabs(v) < 9.95 ? "%.1fms" : "%.0fms",
			    v);
		break;
	case GU_BYTES:
		scaled(v, 1024, bin, nitems(bin), buf, len);
		break;
	case GU_RATIO:
		snprintf(buf, len, v >= 0.9995 && v <= 1 ? "%.0f%%" : "%.1f%%",
		    v * 100);
		break;
	case GU_CELSIUS:
		snprintf(buf, len, "%.1fC", v);
		break;
	case GU_WATTS:
		snprintf(buf, len, fabs(v) < 999.5 ? "%.1fW" : "%.0fW", v);
		break;
	default:
		snprintf(buf, len, "%.4g", v);
		break;
	}
}

/* v with d decimals in graph_format()'s scale for u ("99.46%", "1.549s");
 * bytes and counts whole, unscaled. */
static void
format_decimals(double v, double big, enum graph_unit u, int d, char *buf,
    size_t len)
{
	switch (u) {
	case GU_RATIO:
		snprintf(buf, len, "%.*f%%", d, v * 100);
		break;
	case GU_MS:
		if (big >= 999.5)
			snprintf(buf, len, "%.*fs", d, v / 1000);
		else
			snprintf(buf, len, "%.*fms", d, v);
		break;
	case GU_CELSIUS:
		snprintf(buf, len, "%.*fC", d, v);
		break;
	case GU_WATTS:
		snprintf(buf, len, "%.*fW", d, v);
		break;
	default:
		snprintf(buf, len, "%.*f", d - 2, v);
		break;
	}
}

void
graph_format_pair(double a, double b, enum graph_unit u, char *ba, char *bb,
    size_t len)
{
	double big = fmax(fabs(a), fabs(b));
	int d;

	graph_format(a, u, ba, len);
	graph_format(b, u, bb, len);
	for (d = 2; strcmp(ba, bb) == 0 && a != b && isfinite(a) &&
	    isfinite(b) && d <= 12; d++) {
		format_decimals(a, big, u, d, ba, len);
		format_decimals(b, big, u, d, bb, len);
	}
}

void
graph_fmt_dur(double s, char *buf, size_t len)
{
	long t = isfinite(s) && s > 0 && s < 1e12 ? (long)(s + 0.5) : 0;

	if (t < 60)
		snprintf(buf, len, "%lds", t);
	else if (t < 3600)
		snprintf(buf, len, t % 60 ? "%ldm%02lds" : "%ldm", t / 60,
		    t % 60);
	else if (t < 2 * 86400)
		snprintf(buf, len, t / 60 % 60 ? "%ldh%02ldm" : "%ldh",
		    t / 3600, t / 60 % 60);
	else
		snprintf(buf, len, "%ldd%02ldh", t / 86400, t / 3600 % 24);
}

void
graph_fmt_hms(double s, char sign, char *buf, size_t len)
{
	long t = s > 0 && s < 1e9 ? (long)(s + 0.5) : 0;

	snprintf(buf, len, "%c%02ld:%02ld:%02ld", sign, t / 3600, t / 60 % 60,
	    t % 60);
}

void
graph_fmt_clock(double wall, bool secs, char *buf, size_t len)
{
	time_t t = (time_t)(isfinite(wall) ? wall : 0);
	struct tm tm;

	if (!isfinite(wall) || localtime_r(&t, &tm) == NULL)
		snprintf(buf, len, "-");
	else
		strftime(buf, len, secs ? "%H:%M:%S" : "%H:%M", &tm);
}

static enum role
ink_role(enum graph_ink ink)
{
	switch (ink) {
	case GINK_BREACH:
		return ROLE_FAIL;
	case GINK_LINE:
	case GINK_DIP:
	case GINK_CURSOR:
		return ROLE_WARN;
	case GINK_DATA:
		return ROLE_INFO;
	default:
		return ROLE_NORMAL;
	}
}

/* One plot row, a run of same-ink glyphs at a time. */
static void
draw_row(WINDOW *w, int y, int x, const struct graph_glyph *row, int width)
{
	char run[GRAPH_GLYPH_MAX * 256];
	size_t used;
	int c, start;

	for (c = 0; c < width; ) {
		start = c;
		used = 0;
		while (c < width && row[c].ink == row[start].ink &&
		    c - start < 256) {
			used += (size_t)snprintf(run + used, sizeof run - used,
			    "%s", row[c].s);
			c++;
		}
		ui_put(w, y, x + start, c - start, ink_role(row[start].ink),
		    run, false);
	}
}

/* The y axis: top and bottom labels, the threshold's on its row. */
static void
draw_axis(WINDOW *w, int y, int x, int rows, const struct graph_spec *g)
{
	int h = rows * graph_dots_y(g->ascii), r, rt = -1;
	const char *rule = ui_glyph("┤", "|");
	char lab[16];

	if (isfinite(g->threshold) && g->threshold >= g->lo &&
	    g->threshold <= g->hi)
		rt = rows - 1 - level(g, g->threshold, h) /
		    graph_dots_y(g->ascii);
	for (r = 0; r < rows; r++) {
		lab[0] = '\0';
		if (r == 0)
			graph_format(g->hi, g->unit, lab, sizeof lab);
		else if (r == rows - 1)
			graph_format(g->lo, g->unit, lab, sizeof lab);
		else if (r == rt)
			graph_format(g->threshold, g->unit, lab, sizeof lab);
		ui_putf(w, y + r, x, GRAPH_AXIS - 1, r == rt && r > 0 &&
		    r < rows - 1 ? ROLE_WARN : ROLE_DIM, "%*s", GRAPH_AXIS - 1,
		    lab);
		ui_put(w, y + r, x + GRAPH_AXIS - 1, 1, ROLE_BORDER, rule,
		    false);
	}
}

void
graph_draw(WINDOW *w, int y, int x, int rows, int width,
    const struct graph_spec *g, const struct mcell *cols, size_t ncols)
{
	struct graph_glyph *out;
	int pw = width - GRAPH_AXIS, r;

	if (rows < 2 || pw < 2)
		return;
	out = xcalloc((size_t)rows * (size_t)pw, sizeof *out);
	graph_render(g, cols, ncols, out, rows, pw);
	draw_axis(w, y, x, rows, g);
	for (r = 0; r < rows; r++)
		draw_row(w, y + r, x + GRAPH_AXIS, &out[r * pw], pw);
	free(out);
}

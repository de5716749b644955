/*
 * test_graph.c: the soak view's graphs (views/core/graph.c) with no terminal:
 * columns folded from cells keep a spike, gaps stay blank and are not
 * joined across, the threshold is a row of its own and a crossing column
 * is drawn as a breach, a gauge holds across the gaps between its
 * samples, braille dots land where they should, the ASCII fallback is
 * plain ASCII, and values print in their units.
 */
#include "calops.h"

#include <math.h>
#include <setjmp.h>

#include <cmocka.h>

#include "views/core/graph.h"

static void
cell(struct mcell *c, double v)
{
	c->count = 1;
	c->sum = c->min = c->max = c->last = v;
}

static void
hole(struct mcell *c)
{
	c->count = 0;
	c->sum = 0;
	c->min = c->max = c->last = NAN;
}

static struct graph_spec
spec(bool ascii, enum graph_mode mode, double lo, double hi, double thr)
{
	struct graph_spec g = { 0 };

	g.mode = mode;
	g.unit = GU_NONE;
	g.lo = lo;
	g.hi = hi;
	g.threshold = thr;
	g.ascii = ascii;
	return g;
}

/* 600 cells into 60 columns: the spike survives, counts add up, and a
 * column of gaps is a gap. */
static void
test_fold(void **state)
{
	struct mcell cells[600], cols[60];
	uint64_t total = 0;
	size_t i;

	(void)state;
	for (i = 0; i < 600; i++)
		cell(&cells[i], 10 + (double)(i % 3));
	cells[377].max = cells[377].last = 1000;
	for (i = 100; i < 120; i++)
		hole(&cells[i]);
	graph_fold(cells, 600, cols, 60);
	for (i = 0; i < 60; i++) {
		total += cols[i].count;
		if (i == 10 || i == 11) {
			assert_int_equal(cols[i].count, 0);
			assert_true(isnan(cols[i].max));
			continue;
		}
		assert_int_equal(cols[i].count, 10);
		assert_true(cols[i].min == 10);
		assert_true(cols[i].max == (i == 37 ? 1000 : 12));
	}
	assert_int_equal(total, 580);
	assert_true(cols[37].last == 10 + 379 % 3);

	/* Fewer cells than columns: each cell spreads over columns. */
	graph_fold(cells, 3, cols, 6);
	for (i = 0; i < 6; i++)
		assert_true(cols[i].max == 10 + (double)(i / 2));
}

/* The spike is drawn to the top row in band mode, in ASCII and braille. */
static void
test_spike(void **state)
{
	struct mcell cols[20];
	struct graph_glyph out[4 * 20];
	struct graph_spec g;
	double lo, hi;
	size_t i;

	(void)state;
	for (i = 0; i < 20; i++)
		cell(&cols[i], 10);
	cols[7].max = 100;
	graph_range(cols, 20, GRAPH_BAND, NAN, &lo, &hi);
	assert_true(lo <= 10 && lo >= 0 && hi >= 100 && hi < 110);
	g = spec(true, GRAPH_BAND, lo, hi, NAN);
	graph_render(&g, cols, 20, out, 4, 20);
	for (i = 0; i < 20; i++) {
		assert_string_equal(out[i].s, i == 7 ? "|" : " ");
		assert_string_equal(out[3 * 20 + i].s, i == 7 ? "|" : "*");
		assert_int_equal(out[3 * 20 + i].ink, GINK_DATA);
	}
	/* Braille: two columns a character, the spike's character tall. */
	g.ascii = false;
	graph_render(&g, cols, 20, out, 4, 10);
	assert_int_equal(out[0 * 10 + 3].ink, GINK_DATA);	/* column 7 */
	assert_string_equal(out[0 * 10 + 3].s, "\xe2\xa2\xb8");	/* U+28B8 */
	assert_int_equal(out[0 * 10 + 2].ink, GINK_BLANK);
	assert_string_equal(out[0 * 10 + 2].s, " ");
}

/* Gaps are blank, and the mean line is not joined across them. */
static void
test_gaps(void **state)
{
	struct mcell cols[8];
	struct graph_glyph out[4 * 8];
	struct graph_spec g;
	int r, c;

	(void)state;
	cell(&cols[0], 0);
	cell(&cols[1], 0);
	hole(&cols[2]);
	hole(&cols[3]);
	cell(&cols[4], 1);
	cell(&cols[5], 0);	/* joined to 4: a vertical run */
	hole(&cols[6]);
	hole(&cols[7]);
	g = spec(true, GRAPH_MEAN, 0, 1, NAN);
	graph_render(&g, cols, 8, out, 4, 8);
	for (r = 0; r < 4; r++) {
		for (c = 2; c < 8; c += c == 3 ? 3 : 1) {
			assert_string_equal(out[r * 8 + c].s, " ");
			assert_int_equal(out[r * 8 + c].ink, GINK_BLANK);
		}
		/* Column 4 is its own dot: nothing joins it to column 1. */
		assert_string_equal(out[r * 8 + 4].s, r == 0 ? "*" : " ");
		assert_int_equal(out[r * 8 + 5].ink, r == 0 ? GINK_BLANK :
		    GINK_DATA);
	}
	assert_string_equal(out[3 * 8 + 0].s, "*");
	assert_string_equal(out[3 * 8 + 5].s, "|");

	/* A graph of nothing: blank, and a range that is not empty. */
	{
		double lo, hi;

		graph_range(&cols[2], 2, GRAPH_BAND, NAN, &lo, &hi);
		assert_true(lo == 0 && hi == 1);
		graph_range(&cols[0], 2, GRAPH_BAND, NAN, &lo, &hi);
		assert_true(lo < 0 || hi > 0);
		assert_true(lo <= 0 && hi > lo);
	}
}

/* A gauge is held across the gaps between its samples, not across a
 * longer silence, and to the right end while its next sample is due. */
static void
test_hold(void **state)
{
	struct mcell cols[16];
	size_t i;

	(void)state;
	for (i = 0; i < 16; i++)
		hole(&cols[i]);
	cell(&cols[1], 5);
	cols[1].max = 7;
	cell(&cols[4], 6);	/* 2 gaps before: held */
	cell(&cols[10], 8);	/* 5 gaps before: a gap */
	graph_hold(cols, 14, 3);	/* and 3 after it, held */
	assert_int_equal(cols[0].count, 0);
	for (i = 2; i < 4; i++) {
		assert_int_equal(cols[i].count, 1);
		assert_true(cols[i].min == 5 && cols[i].max == 7);
	}
	for (i = 5; i < 10; i++)
		assert_int_equal(cols[i].count, 0);
	for (i = 11; i < 14; i++)
		assert_true(cols[i].last == 8);
	/* 5 at the end: more than 3 */
	for (i = 0; i < 16; i++)
		hole(&cols[i]);
	cell(&cols[10], 8);
	graph_hold(cols, 16, 3);
	for (i = 11; i < 16; i++)
		assert_int_equal(cols[i].count, 0);
	graph_hold(cols, 16, 0);
	assert_int_equal(cols[11].count, 0);
}

/* A gauge sampled once a minute holds across a minute and a half of
 * columns; too few samples, no series or no span hold nothing. */
static void
test_hold_gap(void **state)
{
	struct metrics *m = metrics_new(0);
	struct mseries *s[2];
	int i, chip;

	(void)state;
	for (chip = 0; chip < 2; chip++)
		assert_int_equal(metrics_add(m, "h", chip, "rss_bytes", 1000,
		    1, NULL, 0), 0);
	assert_int_equal(metrics_select(m, "h", MCHIP_ANY, "rss_bytes", s, 2),
	    2);
	assert_int_equal(graph_hold_gap(s, 2, 600, 10), 0);	/* 1 each */
	for (i = 1; i <= 10; i++)
		for (chip = 0; chip < 2; chip++)
			assert_int_equal(metrics_add(m, "h", chip, "rss_bytes",
			    1000 + 60 * i, 1, NULL, 0), 0);
	/* 11 samples a series over 600 s: one every 60 s, 9 columns of 10 s */
	assert_int_equal(graph_hold_gap(s, 2, 600, 10), 9);
	assert_int_equal(graph_hold_gap(s, 1, 600, 10), 9);
	assert_int_equal(graph_hold_gap(s, 0, 600, 10), 0);
	assert_int_equal(graph_hold_gap(s, 2, 0, 10), 0);
	assert_int_equal(graph_hold_gap(s, 2, NAN, 10), 0);
	assert_int_equal(graph_hold_gap(s, 2, 600, 0), 0);
	metrics_free(m);
}

/* The threshold is a dashed row; crossing columns are breaches. */
static void
test_threshold(void **state)
{
	struct mcell cols[10];
	struct graph_glyph out[4 * 10];
	struct graph_spec g;
	double lo, hi;
	int c;

	(void)state;
	for (c = 0; c < 10; c++)
		cell(&cols[c], 20);
	cols[6].max = 90;
	hole(&cols[8]);
	graph_range(cols, 10, GRAPH_BAND, 150, &lo, &hi);
	assert_true(hi >= 150);
	g = spec(true, GRAPH_BAND, 0, 100, 50);	/* level 2 of 4: row 1 */
	graph_render(&g, cols, 10, out, 4, 10);
	for (c = 0; c < 10; c++) {
		if (c == 6)
			continue;
		assert_string_equal(out[1 * 10 + c].s, "-");
		assert_int_equal(out[1 * 10 + c].ink, GINK_LINE);
		assert_int_equal(out[0 * 10 + c].ink, GINK_BLANK);
		assert_int_equal(out[3 * 10 + c].ink, c == 8 ? GINK_BLANK :
		    GINK_DATA);
	}
	/* Column 6 crosses: '#' from the threshold up, data below it. */
	assert_string_equal(out[0 * 10 + 6].s, "#");
	assert_string_equal(out[1 * 10 + 6].s, "#");
	assert_int_equal(out[1 * 10 + 6].ink, GINK_BREACH);
	assert_int_equal(out[2 * 10 + 6].ink, GINK_DATA);
	assert_int_equal(out[3 * 10 + 6].ink, GINK_DATA);

	/* A success rate breaches below; the mean line joins down to it. */
	for (c = 0; c < 10; c++)
		cell(&cols[c], c == 3 ? 0.82 : 1.0);
	g = spec(true, GRAPH_MEAN, 0.8, 1.0, 0.86);	/* level 1: row 2 */
	g.below = true;
	graph_render(&g, cols, 10, out, 4, 10);
	for (c = 0; c < 10; c++) {
		assert_int_equal(out[0 * 10 + c].ink, c == 3 ? GINK_BLANK :
		    GINK_DATA);
		assert_int_equal(out[2 * 10 + c].ink, c == 3 ? GINK_BREACH :
		    c == 4 ? GINK_DATA : GINK_LINE);
		assert_int_equal(out[3 * 10 + c].ink, c == 3 ? GINK_BREACH :
		    GINK_BLANK);
	}
	assert_int_equal(out[1 * 10 + 3].ink, GINK_DATA);

	/* Braille: the dashed line is the left dot column only. */
	for (c = 0; c < 10; c++)
		cell(&cols[c], 0);
	g = spec(false, GRAPH_BAND, 0, 100, 99);	/* level 15: row 0 */
	graph_render(&g, cols, 0, out, 4, 5);
	for (c = 0; c < 5; c++) {
		assert_string_equal(out[c].s, "\xe2\xa0\x81");	/* U+2801 */
		assert_int_equal(out[c].ink, GINK_LINE);
	}
}

/* A crossing an alert covered is a breach; one no alert covered is a
 * brief dip, with its own ink and '!' in ASCII.  The cursor is a rule
 * through the plot where nothing else is drawn. */
static void
test_dips_and_cursor(void **state)
{
	static const unsigned char alerted[10] = { 0, 0, 0, 0, 0, 0, 1, 1, 0,
	    0 };
	struct mcell cols[10];
	struct graph_glyph out[4 * 10];
	struct graph_spec g;
	int c, r;

	(void)state;
	for (c = 0; c < 10; c++)
		cell(&cols[c], 20);
	cols[2].max = 90;	/* brief: no alert then */
	cols[6].max = 90;	/* under an alert */
	g = spec(true, GRAPH_BAND, 0, 100, 50);
	g.alerted = alerted;
	graph_render(&g, cols, 10, out, 4, 10);
	assert_string_equal(out[0 * 10 + 2].s, "!");
	assert_int_equal(out[0 * 10 + 2].ink, GINK_DIP);
	assert_int_equal(out[1 * 10 + 2].ink, GINK_DIP);
	assert_int_equal(out[2 * 10 + 2].ink, GINK_DATA);
	assert_string_equal(out[0 * 10 + 6].s, "#");
	assert_int_equal(out[0 * 10 + 6].ink, GINK_BREACH);
	/* Without the alerts' columns every crossing is a breach. */
	g.alerted = NULL;
	graph_render(&g, cols, 10, out, 4, 10);
	assert_int_equal(out[0 * 10 + 2].ink, GINK_BREACH);

	/* The cursor at column 4: the rule where the plot is blank or the
	 * threshold, the data left alone. */
	g.has_cursor = true;
	g.cursor = 4;
	graph_render(&g, cols, 10, out, 4, 10);
	for (r = 0; r < 4; r++) {
		if (r == 3) {
			assert_int_equal(out[r * 10 + 4].ink, GINK_DATA);
			continue;
		}
		assert_int_equal(out[r * 10 + 4].ink, GINK_CURSOR);
		assert_string_equal(out[r * 10 + 4].s, "|");
	}
	assert_int_equal(out[0 * 10 + 5].ink, GINK_BLANK);
	/* Out of the plot: no rule at all. */
	g.cursor = 10;
	graph_render(&g, cols, 10, out, 4, 10);
	for (c = 0; c < 40; c++)
		assert_int_not_equal(out[c].ink, GINK_CURSOR);
	g.ascii = false;
	g.cursor = 0;
	graph_render(&g, cols, 10, out, 4, 10);
	assert_string_equal(out[0].s, "│");
}

/* Braille dots at the bottom, one character for two columns; ASCII glyphs
 * are one printable byte. */
static void
test_braille_ascii(void **state)
{
	struct mcell cols[6];
	struct graph_glyph out[3 * 6];
	struct graph_spec g;
	int i;

	(void)state;
	for (i = 0; i < 6; i++)
		cell(&cols[i], i < 2 ? 0 : i < 4 ? 50 : 100);
	g = spec(false, GRAPH_BAND, 0, 100, NAN);
	graph_render(&g, cols, 6, out, 3, 3);
	assert_string_equal(out[2 * 3 + 0].s, "\xe2\xa3\x80");	/* ⣀ */
	assert_string_equal(out[0 * 3 + 2].s, "\xe2\xa0\x89");	/* ⠉ */
	assert_int_equal(out[1 * 3 + 1].ink, GINK_DATA);
	assert_int_equal(out[0 * 3 + 0].ink, GINK_BLANK);

	g.ascii = true;
	g.threshold = 75;
	graph_render(&g, cols, 6, out, 3, 6);
	for (i = 0; i < 3 * 6; i++) {
		assert_int_equal(strlen(out[i].s), 1);
		assert_non_null(strchr(" *|-#", out[i].s[0]));
	}
	assert_int_equal(graph_dots_x(true), 1);
	assert_int_equal(graph_dots_y(false), 4);
}

/* A cursor far back takes the level that still holds it, not the finest
 * for the span. */
static void
test_level(void **state)
{
	double now = 1700000000;

	(void)state;
	assert_int_equal(graph_level(now, now, 60), MLEVEL_1S);
	assert_int_equal(graph_level(now, now, 600), MLEVEL_10S);
	assert_int_equal(graph_level(now, now, 3600), MLEVEL_10S);
	assert_int_equal(graph_level(now, now, 86400), MLEVEL_5M);
	assert_int_equal(graph_level(now, now - 30, 60), MLEVEL_1S);
	assert_int_equal(graph_level(now, now - 1800, 60), MLEVEL_10S);
	assert_int_equal(graph_level(now, now - 7200, 60), MLEVEL_5M);
	/* the cursor beyond the newest sample (a quiet stream) */
	assert_int_equal(graph_level(now - 500, now, 60), MLEVEL_1S);
}

static void
test_format(void **state)
{
	static const struct {
		double v;
		enum graph_unit u;
		const char *want;
	} t[] = {
		{ 1.3e9, GU_BYTES, "1.21Gi" }, { 512.0 * 1048576, GU_BYTES,
		    "512Mi" }, { 100, GU_BYTES, "100B" },
		{ 450, GU_MS, "450ms" }, { 4.5, GU_MS, "4.5ms" },
		{ 1500, GU_MS, "1.5s" }, { 45000, GU_MS, "45s" },
		{ 0.999, GU_RATIO, "99.9%" }, { 1, GU_RATIO, "100%" },
		{ 61.24, GU_CELSIUS, "61.2C" }, { 38.04, GU_WATTS, "38.0W" },
		{ 12, GU_COUNT, "12" }, { 12345, GU_COUNT, "12.3k" },
		{ NAN, GU_MS, "-" },
	};
	static const struct {
		double s;
		const char *want;
	} d[] = {
		{ 45, "45s" }, { 750, "12m30s" }, { 600, "10m" },
		{ 11520, "3h12m" }, { 86400, "24h" }, { 190800, "2d05h" },
		{ NAN, "0s" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < nitems(t); i++) {
		graph_format(t[i].v, t[i].u, buf, sizeof buf);
		assert_string_equal(buf, t[i].want);
		assert_true(strlen(buf) <= GRAPH_AXIS - 1);
	}
	for (i = 0; i < nitems(d); i++) {
		graph_fmt_dur(d[i].s, buf, sizeof buf);
		assert_string_equal(buf, d[i].want);
	}
	graph_fmt_hms(3723, '-', buf, sizeof buf);
	assert_string_equal(buf, "-01:02:03");
}

/* A worst value and its line read apart when they differ (issue 30 (11):
 * "worst 99.5%<99.5%"), as few digits as that takes; equal ones alike. */
static void
test_format_pair(void **state)
{
	static const struct {
		double a, b;
		enum graph_unit u;
		const char *wa, *wb;
	} t[] = {
		{ 0.9946, 0.995, GU_RATIO, "99.46%", "99.50%" },
		{ 0.99499, 0.995, GU_RATIO, "99.499%", "99.500%" },
		{ 0.99, 0.995, GU_RATIO, "99.0%", "99.5%" },
		{ 0.995, 0.995, GU_RATIO, "99.5%", "99.5%" },
		{ 1549, 1500, GU_MS, "1.55s", "1.50s" },
		{ 60.04, 60.01, GU_MS, "60.04ms", "60.01ms" },
		{ 11000, 1500, GU_MS, "11s", "1.5s" },
		{ 90493542, 90490000, GU_BYTES, "90493542", "90490000" },
	};
	char a[32], b[32];
	size_t i;

	(void)state;
	for (i = 0; i < nitems(t); i++) {
		graph_format_pair(t[i].a, t[i].b, t[i].u, a, b, sizeof a);
		assert_string_equal(a, t[i].wa);
		assert_string_equal(b, t[i].wb);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_spike),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_hold_gap),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_dips_and_cursor),
		cmocka_unit_test(test_braille_ascii),
		cmocka_unit_test(test_level),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_pair),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_metrics.c: the live metric store (metrics.c): history rings that roll
 * over and mark gaps, zoomed-out columns that keep a spike, sliding windows
 * that expire exactly, merged views across chips, the leak rule against
 * soakstats.c's, memory that stays flat over a simulated 24 h soak, and
 * the caps on series, a store's and a quota's over several stores.
 */
#include "calops.h"

#include <inttypes.h>
#include <math.h>
#include <setjmp.h>

#include <cmocka.h>

#include "metrics/metrics.h"
#include "metrics/metricsview.h"
#include "metrics/sketch.h"
#include "metrics/soakstats.h"
#include "proto/event.h"

#define T0	1699999800.0	/* a run starts here (a multiple of 600) */

static uint64_t rng_state;

static uint64_t
rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ z >> 27) * 0x94d049bb133111ebULL;
	return z ^ z >> 31;
}

static double
unif(void)
{
	return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

static void
add(struct metrics *m, const char *host, int chip, const char *name,
    double ts, double v)
{
	char err[256];

	if (metrics_add(m, host, chip, name, ts, v, err, sizeof err) != 0)
		fail_msg("metrics_add %s %g %g: %s", name, ts, v, err);
}

/* Cells roll over at each resolution; what fell off the ring is a gap. */
static void
test_history(void **state)
{
	struct metrics *m = metrics_new(0);
	struct mcell out[130];
	struct mseries *s;
	int t, k;

	(void)state;
	for (t = 1000; t < 1300; t++)
		for (k = 0; k < 4; k++)
			add(m, "h", 0, "temp_c", t + k / 4.0, t + k);
	assert_non_null(s = metrics_find(m, "h", 0, "temp_c"));
	assert_null(metrics_find(m, "h", 1, "temp_c"));
	assert_null(metrics_find(m, "g", 0, "temp_c"));
	metricsview_history(&s, 1, MLEVEL_1S, 1299.9, out, 120);
	assert_int_equal(out[119].count, 4);
	assert_true(out[119].min == 1299 && out[119].max == 1302);
	assert_true(out[119].last == 1302 && out[119].sum == 4 * 1299 + 6);
	assert_int_equal(out[0].count, 4);
	assert_true(out[0].min == 1180);
	/* 130 cells back: the first 10 rolled off the 120-cell ring. */
	metricsview_history(&s, 1, MLEVEL_1S, 1299.9, out, 130);
	for (k = 0; k < 10; k++) {
		assert_int_equal(out[k].count, 0);
		assert_true(isnan(out[k].min) && isnan(out[k].last));
	}
	assert_true(out[10].min == 1180);
	/* 10 s cells hold 40 samples. */
	metricsview_history(&s, 1, MLEVEL_10S, 1299, out, 31);
	assert_int_equal(out[30].count, 40);
	assert_true(out[30].min == 1290 && out[30].max == 1302);
	assert_int_equal(out[0].count, 0);	/* 990-999: before the run */
	assert_int_equal(out[1].count, 40);
	/* 300 s cells: 900-1199 holds 1000-1199, 1200-1499 the rest. */
	metricsview_history(&s, 1, MLEVEL_5M, 1299, out, 2);
	assert_int_equal(out[0].count, 800);
	assert_int_equal(out[1].count, 400);
	assert_true(out[0].min == 1000 && out[0].max == 1202);
	/* Later than the last sample: the newest cells are gaps. */
	metricsview_history(&s, 1, MLEVEL_1S, 1309.5, out, 20);
	for (k = 0; k < 10; k++)
		assert_int_equal(out[k].count, 4);
	for (k = 10; k < 20; k++)
		assert_int_equal(out[k].count, 0);
	/* A sample far later clears the whole ring. */
	add(m, "h", 0, "temp_c", 5000, 1);
	metricsview_history(&s, 1, MLEVEL_1S, 5000, out, 120);
	for (k = 0; k < 119; k++)
		assert_int_equal(out[k].count, 0);
	assert_int_equal(out[119].count, 1);
	metrics_free(m);
}

/* Nothing for 100 s: the cells of that stretch are gaps, not zeros. */
static void
test_gaps(void **state)
{
	struct metrics *m = metrics_new(0);
	struct mcell out[120], cols[30];
	struct mseries *s;
	int t;

	(void)state;
	for (t = 0; t < 300; t++)
		if (t < 100 || t >= 200)
			add(m, "h", MCHIP_NONE, "power_w", T0 + t, 100 + t % 3);
	s = metrics_find(m, "h", MCHIP_NONE, "power_w");
	metricsview_history(&s, 1, MLEVEL_1S, T0 + 299, out, 120);
	for (t = 0; t < 120; t++)
		assert_int_equal(out[t].count, t < 20 ? 0 : 1);
	metricsview_history(&s, 1, MLEVEL_10S, T0 + 299, out, 30);
	for (t = 0; t < 30; t++) {
		assert_int_equal(out[t].count, t >= 10 && t < 20 ? 0 : 10);
		assert_true((out[t].count == 0) == isnan(out[t].max));
	}
	/* A 5 min graph of 30 columns: the same gap. */
	assert_int_equal(metricsview_graph(&s, 1, T0 + 299, 300, cols, 30),
	    MLEVEL_10S);
	for (t = 0; t < 30; t++)
		assert_int_equal(cols[t].count == 0, t >= 10 && t < 20);
	metrics_free(m);
}

/* One spike in a day of flat samples survives every zoom level. */
static void
test_spike(void **state)
{
	struct metrics *m = metrics_new(0);
	struct mcell cols[200];
	struct mseries *s;
	double spike = T0 + 50000.5, now;
	size_t c, hits, ncols[] = { 48, 7, 60, 200 };
	int t, i;

	(void)state;
	for (t = 0; t < 86400; t++) {
		add(m, "h", 0, "ttft_ms", T0 + t, 10);
		if (T0 + t + 1 > spike && T0 + t <= spike)
			add(m, "h", 0, "ttft_ms", spike, 1000);
	}
	s = metrics_find(m, "h", 0, "ttft_ms");
	for (i = 0; i < 4; i++) {
		assert_int_equal(
		    metricsview_graph(&s, 1, T0 + 86399, 86400, cols, ncols[i]),
		    MLEVEL_5M);
		for (c = 0, hits = 0; c < ncols[i]; c++) {
			assert_true(cols[c].min == 10);
			hits += cols[c].max == 1000;
			assert_true(cols[c].max == 10 || cols[c].max == 1000);
		}
		/* 200 columns over 288 cells: each cell in one column. */
		assert_int_equal(hits, 1);
	}
	metrics_free(m);
	/* 2 h with a spike 36 min ago: the 1 h graph from 10 s cells. */
	m = metrics_new(0);
	for (t = 0; t < 7200; t++)
		add(m, "h", 0, "ttft_ms", T0 + t, t == 5000 ? 1000 : 10);
	s = metrics_find(m, "h", 0, "ttft_ms");
	now = T0 + 7199;
	assert_int_equal(metricsview_graph(&s, 1, now, 3600, cols, 60),
	    MLEVEL_10S);
	for (c = 0, hits = 0; c < 60; c++)
		hits += cols[c].max == 1000;
	assert_int_equal(hits, 1);
	/* 10 min ago the 1 s cells are gone: the 1 min graph cannot see it. */
	assert_int_equal(
	    metricsview_graph(&s, 1, now, 60, cols, 60), MLEVEL_1S);
	for (c = 0; c < 60; c++)
		assert_true(cols[c].max == 10);
	metrics_free(m);
	/* 1 min of 1 s cells over 120 columns: each cell shows twice. */
	m = metrics_new(0);
	for (t = 0; t < 120; t++)
		add(m, "h", 0, "temp_c", T0 + t, t == 100 ? 95 : 40);
	s = metrics_find(m, "h", 0, "temp_c");
	assert_int_equal(metricsview_graph(&s, 1, T0 + 119, 60, cols, 120),
	    MLEVEL_1S);
	for (c = 0, hits = 0; c < 120; c++)
		hits += cols[c].max == 95;
	assert_int_equal(hits, 2);	/* 60 cells over 120 columns */
	metrics_free(m);
}

/* The sketch of the samples whose slot is in [cur - 6, cur]. */
static void
reference(const double *ts, const double *v, size_t n, unsigned slot,
    double now, struct sketch *out)
{
	int64_t cur = (int64_t)(now / slot), k;
	size_t i;

	sketch_reset(out);
	for (i = 0; i < n; i++) {
		k = (int64_t)(ts[i] / slot);
		if (k >= cur - 6 && k <= cur)
			sketch_add(out, v[i]);
	}
}

/* Exact nearest rank over the same samples, for the 1 % check. */
static double
exact_p(const double *ts, const double *v, size_t n, unsigned slot,
    double now, double p)
{
	int64_t cur = slot == 0 ? 0 : (int64_t)(now / slot), k;
	double *w = xreallocarray(NULL, n + 1, sizeof *w), r;
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		k = slot == 0 ? cur : (int64_t)(ts[i] / slot);
		if (k >= cur - 6 && k <= cur)
			w[m++] = v[i];
	}
	r = soakstats_nearest_rank(w, m, p);
	free(w);
	return r;
}

/* Windows hold exactly their slots' samples as time goes, late ones too. */
static void
test_windows(void **state)
{
	struct metrics *m = metrics_new(0);
	struct sketch ref;
	const struct sketch *w;
	struct mseries *s;
	double *ts, *v, t = T0, next = T0 + 97, want, got;
	size_t n = 0, cap = 200000;
	enum mwin win;

	(void)state;
	ts = xreallocarray(NULL, cap, sizeof *ts);
	v = xreallocarray(NULL, cap, sizeof *v);
	sketch_init(&ref);
	rng_state = 21;
	while (n < cap - 2) {
		t += -log(unif()) * 0.05;
		ts[n] = t;
		v[n] = exp(log(280) + 0.5 * normal());
		add(m, "h", 2, "ttft_ms", ts[n], v[n]);
		n++;
		if (n % 5000 == 0) {	/* a late one, still in the windows */
			ts[n] = t - 30;
			v[n] = 5000;
			add(m, "h", 2, "ttft_ms", ts[n], v[n]);
			n++;
		}
		if (t < next)
			continue;
		next += 97;
		s = metrics_find(m, "h", 2, "ttft_ms");
		metrics_tick(m, t);
		for (win = MWIN_1M; win <= MWIN_1H; win++) {
			w = metricsview_series_window(s, win);
			reference(ts, v, n, metrics_window_width(win) / 6, t,
			    &ref);
			if (!sketch_equal(w, &ref))
				fail_msg("window %d at %.1f: %ju samples, "
				    "reference %ju", win, t - T0,
				    (uintmax_t)w->count, (uintmax_t)ref.count);
			want = exact_p(ts, v, n, metrics_window_width(win) / 6,
			    t, 0.99);
			got = sketch_quantile(w, 0.99);
			assert_true(fabs(got - want) <= 0.01 * want);
		}
	}
	s = metrics_find(m, "h", 2, "ttft_ms");
	w = metricsview_series_window(s, MWIN_RUN);
	assert_int_equal(sketch_count(w), n);
	want = exact_p(ts, v, n, 0, 0, 0.5);
	assert_true(fabs(sketch_quantile(w, 0.5) - want) <= 0.01 * want);
	/* One older than every window: only the run counts it. */
	add(m, "h", 2, "ttft_ms", t - 5000, 1);
	for (win = MWIN_1M; win <= MWIN_1H; win++) {
		reference(ts, v, n, metrics_window_width(win) / 6, t, &ref);
		assert_true(
		    sketch_equal(metricsview_series_window(s, win), &ref));
	}
	assert_int_equal(sketch_count(w), n + 1);
	/* A quiet host: the windows empty slot by slot, the run stays. */
	metrics_tick(m, t + 65);
	assert_true(sketch_count(metricsview_series_window(s, MWIN_1M)) <
	    sketch_count(metricsview_series_window(s, MWIN_10M)));
	metrics_tick(m, t + 71);
	assert_int_equal(
	    sketch_count(metricsview_series_window(s, MWIN_1M)), 0);
	assert_true(isnan(
	    sketch_quantile(metricsview_series_window(s, MWIN_1M), 0.99)));
	metrics_tick(m, t + 4201);
	for (win = MWIN_1M; win <= MWIN_1H; win++)
		assert_int_equal(
		    sketch_count(metricsview_series_window(s, win)), 0);
	assert_int_equal(sketch_count(w), n + 1);
	assert_true(metricsview_series_last_ts(s) == t);
	sketch_release(&ref);
	free(ts);
	free(v);
	metrics_free(m);
}

/* request_ok's mean over a window is the success rate of its cells. */
static void
test_success_rate(void **state)
{
	struct metrics *m = metrics_new(0);
	static const enum mwin wins[] = { MWIN_1M, MWIN_10M, MWIN_1H };
	static const unsigned res[] = { 1, 10, 10 };
	struct mseries *s;
	double *ts, *v, now, sum, got;
	size_t n = 0, i, cnt, w;
	int64_t k, cur;

	(void)state;
	ts = xreallocarray(NULL, 7200 * 5, sizeof *ts);
	v = xreallocarray(NULL, 7200 * 5, sizeof *v);
	rng_state = 5;
	for (i = 0; i < 7200 * 5; i++) {
		ts[n] = T0 + i / 5.0;
		/* worse in the second hour's last 20 minutes */
		v[n] = unif() < (i > 5 * 6000 ? 0.9 : 0.999) ? 1 : 0;
		add(m, "h", 0, "request_ok", ts[n], v[n]);
		n++;
	}
	s = metrics_find(m, "h", 0, "request_ok");
	now = ts[n - 1];
	for (w = 0; w < nitems(wins); w++) {
		cur = (int64_t)(now / res[w]);
		sum = 0;
		cnt = 0;
		for (i = 0; i < n; i++) {
			k = (int64_t)(ts[i] / res[w]);
			if (k >= cur - (int64_t)(metrics_window_width(wins[w]) /
			    res[w]) && k <= cur) {
				sum += v[i];
				cnt++;
			}
		}
		got = metricsview_mean(&s, 1, wins[w], now);
		assert_true(fabs(got - sum / (double)cnt) < 1e-12);
	}
	for (i = 0, sum = 0; i < n; i++)
		sum += v[i];
	assert_true(
	    fabs(metricsview_mean(&s, 1, MWIN_RUN, now) - sum / n) < 1e-12);
	assert_true(metricsview_mean(&s, 1, MWIN_1M, now) < 0.95);
	assert_true(isnan(metricsview_mean(&s, 1, MWIN_1M, now + 3600)));
	free(ts);
	free(v);
	metrics_free(m);
}

/* Eight chips merged: exactly the sketch and the cells of all samples. */
static void
test_merge_chips(void **state)
{
	struct metrics *m = metrics_new(0);
	struct mseries *sel[16];
	struct sketch merged, ref;
	struct mcell out[60], one[60];
	double *ts, *v, now = 0, last[8], lastsum;
	size_t n = 0, i, c;
	int chip;
	enum mwin win;

	(void)state;
	ts = xreallocarray(NULL, 8 * 12000, sizeof *ts);
	v = xreallocarray(NULL, 8 * 12000, sizeof *v);
	rng_state = 8;
	for (i = 0; i < 12000; i++)
		for (chip = 0; chip < 8; chip++) {
			ts[n] = T0 + i * 0.1 + chip * 0.01;
			v[n] = exp(log(30 + chip * 5) + 0.3 * normal());
			add(m, "h", chip, "tpot_ms", ts[n], v[n]);
			last[chip] = v[n];
			now = ts[n];
			n++;
		}
	add(m, "other", 0, "tpot_ms", now, 1);
	assert_int_equal(metrics_select(m, "h", MCHIP_ANY, "tpot_ms", sel, 16),
	    8);
	assert_int_equal(metrics_select(m, NULL, MCHIP_ANY, "tpot_ms", sel, 16),
	    9);
	assert_int_equal(metrics_select(m, NULL, 0, "tpot_ms", sel, 16), 2);
	assert_int_equal(metrics_select(m, "h", MCHIP_ANY, "tpot_ms", sel, 4),
	    8);
	metrics_select(m, "h", MCHIP_ANY, "tpot_ms", sel, 16);
	sketch_init(&merged);
	sketch_init(&ref);
	metrics_tick(m, now);
	for (win = MWIN_1M; win <= MWIN_1H; win++) {
		metricsview_merge_window(sel, 8, win, &merged);
		reference(ts, v, n, metrics_window_width(win) / 6, now, &ref);
		assert_true(sketch_equal(&merged, &ref));
	}
	metricsview_merge_window(sel, 8, MWIN_RUN, &merged);
	assert_int_equal(sketch_count(&merged), n);
	/* Cells: counts and sums add, min of mins, max of maxes. */
	metricsview_history(sel, 8, MLEVEL_10S, now, out, 60);
	for (c = 0; c < 60; c++) {
		uint64_t count = 0;
		double lo = INFINITY, hi = -INFINITY;

		for (i = 0; i < 8; i++) {
			metricsview_history(
			    &sel[i], 1, MLEVEL_10S, now, one, 60);
			count += one[c].count;
			if (one[c].count > 0) {
				lo = fmin(lo, one[c].min);
				hi = fmax(hi, one[c].max);
			}
		}
		assert_int_equal(out[c].count, count);
		if (count > 0)
			assert_true(out[c].min == lo && out[c].max == hi);
	}
	for (i = 0, lastsum = 0; i < 8; i++)
		lastsum += last[i];
	assert_true(fabs(out[59].last - lastsum / 8) < 1e-9);
	sketch_release(&merged);
	sketch_release(&ref);
	free(ts);
	free(v);
	metrics_free(m);
}

enum leak_kind { FLAT, NOISY, LEAKING, STEP, STEP_BACK, SAWTOOTH };

static const char *const leak_names[] = {
	"flat", "noisy", "leaking", "step", "step back", "sawtooth",
};

#define GIB	1073741824.0
#define MIB	1048576.0

static double
memory_at(enum leak_kind k, double f)
{
	switch (k) {
	case FLAT:
		return 8 * GIB;
	case NOISY:
		return 8 * GIB + 64 * MIB * normal();
	case LEAKING:	/* 400 MiB a day under 16 MiB of noise */
		return 8 * GIB + 400 * MIB * f + 16 * MIB * normal();
	case STEP:
		return 8 * GIB + (f >= 0.6 ? 512 * MIB : 0);
	case STEP_BACK:
		return 8 * GIB + (f >= 0.4 && f < 0.8 ? 512 * MIB : 0);
	case SAWTOOTH:	/* a cache that fills and is dropped every 2 h */
		return 8 * GIB + 256 * MIB * fmod(f * 12, 1);
	}
	return 0;
}

/*
 * The same samples through the store and through soakstats_leak_rule:
 * identical up to MLEAK_SAMPLES samples, the same verdict and medians
 * within `tol` of the exact ones past it.
 */
static void
leak_case(enum leak_kind k, size_t n, double dt, double tol)
{
	struct metrics *m = metrics_new(0);
	struct leak_verdict want, got;
	struct series ref = { NULL, NULL, 0, 0 };
	struct mseries *s;
	double v;
	size_t i;

	rng_state = 1000 + k;
	for (i = 0; i < n; i++) {
		v = memory_at(k, (double)i / n);
		soakstats_series_add(&ref, T0 + i * dt, v);
		add(m, "h", 0, "device_mem_bytes", T0 + i * dt, v);
	}
	soakstats_leak_rule(&ref, &want);
	s = metrics_find(m, "h", 0, "device_mem_bytes");
	metrics_series_leak(s, &got);
	if (got.evaluated != want.evaluated || got.growing != want.growing)
		fail_msg("%s, %zu samples: growing %d, exact rule %d",
		    leak_names[k], n, got.growing, want.growing);
	for (i = 0; i < LEAK_WINDOWS; i++)
		if (fabs(got.medians[i] - want.medians[i]) >
		    tol * want.medians[i])
			fail_msg("%s, %zu samples: window %zu median %.0f, "
			    "exact %.0f", leak_names[k], n, i, got.medians[i],
			    want.medians[i]);
	if (tol == 0)
		assert_true(got.growth == want.growth &&
		    got.threshold == want.threshold);
	/* Cached, and still right after one more sample. */
	metrics_series_leak(s, &got);
	assert_int_equal(got.growing, want.growing);
	soakstats_series_release(&ref);
	metrics_free(m);
}

static void
test_leak(void **state)
{
	static const bool growing[] = { false, false, true, true, false,
	    false };
	struct metrics *m;
	struct leak_verdict lv;
	enum leak_kind k;

	(void)state;
	for (k = FLAT; k <= SAWTOOTH; k++) {
		/* 30 min at 1 Hz: within MLEAK_SAMPLES, exactly the rule. */
		leak_case(k, 1800, 1, 0);
		/* 24 h at 1 Hz, 4 Hz: a subsample, the same verdict. */
		leak_case(k, 86400, 1, 0.005);
		leak_case(k, 4 * 86400, 0.25, 0.005);
	}
	for (k = FLAT; k <= SAWTOOTH; k++) {
		struct series ref = { NULL, NULL, 0, 0 };
		size_t i;

		rng_state = 1000 + k;
		for (i = 0; i < 86400; i++)
			soakstats_series_add(
			    &ref, T0 + i, memory_at(k, i / 86400.0));
		soakstats_leak_rule(&ref, &lv);
		if (lv.growing != growing[k])
			fail_msg("%s: the exact rule says %d", leak_names[k],
			    lv.growing);
		soakstats_series_release(&ref);
	}
	/* Other metrics have no verdict; too few samples, none either. */
	m = metrics_new(0);
	add(m, "h", 0, "temp_c", T0, 1);
	add(m, "h", 0, "rss_bytes", T0, 1);
	metrics_series_leak(metrics_find(m, "h", 0, "temp_c"), &lv);
	assert_false(lv.evaluated);
	metrics_series_leak(metrics_find(m, "h", 0, "rss_bytes"), &lv);
	assert_false(lv.evaluated);
	metrics_free(m);
}

/*
 * A 24 h soak at 200 requests/s: the bytes held after the first hour
 * (every ring has been round once by then, but for the 1 h window's
 * seventh slot, which has just started) are those held every hour after,
 * to the byte.
 */
static void
test_memory_flat(void **state)
{
	struct metrics *m = metrics_new(0);
	size_t mem1 = 0, mem;
	double t;
	int64_t i, n = (int64_t)86400 * 200, hour = 200 * 3600;
	int checked = 0;

	(void)state;
	rng_state = 77;
	for (i = 0; i < n; i++) {
		t = T0 + i / 200.0;
		add(m, "h", 0, "ttft_ms", t, exp(log(280) + 0.4 * normal()));
		add(m, "h", 0, "tpot_ms", t, exp(log(32) + 0.3 * normal()));
		add(m, "h", 0, "request_ok", t, unif() < 0.999);
		if (i % 200 == 0) {
			add(m, "h", MCHIP_NONE, "rss_bytes", t, 4 * GIB);
			add(m, "h", 0, "device_mem_bytes", t, 12 * GIB);
			add(m, "h", 0, "kv_used", t, (double)(i % 4096));
		}
		if (i == hour)
			mem1 = metrics_memory(m);
		if (i % hour != 0 || i <= hour)
			continue;
		mem = metrics_memory(m);
		if (mem != mem1)
			fail_msg("after %jd h: %zu bytes, after 1 h %zu",
			    (intmax_t)(i / hour), mem, mem1);
		checked++;
	}
	mem = metrics_memory(m);
	if (mem != mem1)
		fail_msg("after 24 h: %zu bytes, after 1 h %zu", mem, mem1);
	assert_int_equal(checked, 22);
	assert_int_equal(metrics_count(m), 6);
	/* About 32 KiB of cells a series, plus sketches and leak samples. */
	assert_true(mem1 < 6 * 40 * 1024 + 2 * 40 * 1024);
	print_message("memory after 1 h and after 24 h: %zu bytes\n", mem1);
	metrics_free(m);
}

/* Bad samples are refused with a message; the store's cap holds. */
static void
test_errors(void **state)
{
	struct metrics *m = metrics_new(2);
	struct event ev;
	struct mcell tot;
	char err[256], name[80];
	static const char line[] = "{\"v\":1,\"seq\":1,\"ts\":1700000000.5,"
	    "\"type\":\"metric\",\"chip\":1,\"values\":{\"ttft_ms\":12.5,"
	    "\"temp_c\":60}}";

	(void)state;
	assert_int_equal(metrics_add(m, "h", 0, "temp_c", -1, 1, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(metrics_add(m, "h", 0, "temp_c", NAN, 1, err,
	    sizeof err), -1);
	assert_int_equal(metrics_add(m, "h", 0, "temp_c", 1, NAN, err,
	    sizeof err), -1);
	assert_int_equal(metrics_add(m, "h", 0, "temp_c", 1, INFINITY, NULL,
	    0), -1);
	assert_int_equal(metrics_add(m, "h", 0, "ttft_ms", 1, -1, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "negative"));
	assert_int_equal(metrics_add(m, "h", 0, "", 1, 1, err, sizeof err), -1);
	memset(name, 'x', 65);
	name[65] = '\0';
	assert_int_equal(metrics_add(m, "h", 0, name, 1, 1, err, sizeof err),
	    -1);
	assert_int_equal(metrics_add(m, "h", -3, "temp_c", 1, 1, err,
	    sizeof err), -1);
	assert_int_equal(metrics_count(m), 0);
	/* A metric event: both values, chip 1; then the cap of 2 series. */
	assert_int_equal(event_parse(line, sizeof line - 1, &ev), EVENT_OK);
	assert_int_equal(metrics_add_event(m, "h", &ev, err, sizeof err), 0);
	assert_int_equal(metrics_count(m), 2);
	metricsview_series_totals(metrics_find(m, "h", 1, "temp_c"), &tot);
	assert_true(tot.count == 1 && tot.last == 60 && tot.min == 60);
	assert_true(metricsview_series_last_ts(
			metrics_find(m, "h", 1, "ttft_ms")) == 1700000000.5);
	assert_string_equal(metricsview_series_host(metrics_series(m, 0)), "h");
	assert_int_equal(metricsview_series_chip(metrics_series(m, 0)), 1);
	assert_string_equal(
	    metricsview_series_name(metrics_series(m, 1)), "temp_c");
	assert_null(metricsview_series_window(metrics_series(m, 1), MWIN_1M));
	assert_int_equal(metrics_add(m, "h", 2, "temp_c", 1, 1, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "past the cap of 2 series"));
	/* Negative values are fine where they make sense. */
	assert_int_equal(metrics_add(m, "h", 1, "temp_c", 2, -5, err,
	    sizeof err), 0);
	ev.type = EVENT_LOG;
	assert_int_equal(metrics_add_event(m, "h", &ev, err, sizeof err), -1);
	metrics_free(m);
}

/* Many series: the table grows, lookups find each one again. */
static void
test_many_series(void **state)
{
	struct metrics *m = metrics_new(0);
	char host[32];
	int h, c;

	(void)state;
	for (h = 0; h < 64; h++)
		for (c = 0; c < 8; c++) {
			snprintf(host, sizeof host, "lab-%02d", h);
			add(m, host, c, "ttft_ms", T0, h * 8 + c + 1);
			add(m, host, c, "tpot_ms", T0, 1);
		}
	assert_int_equal(metrics_count(m), 1024);
	for (h = 0; h < 64; h++)
		for (c = 0; c < 8; c++) {
			struct mseries *s;
			struct mcell tot;

			snprintf(host, sizeof host, "lab-%02d", h);
			assert_non_null(s = metrics_find(m, host, c, "ttft_ms"));
			metricsview_series_totals(s, &tot);
			assert_true(tot.last == h * 8 + c + 1);
		}
	metrics_free(m);
}

/*
 * A store keeps at most its cap of series: a sample of a new series past
 * it is refused and counted, with its series counted apart; the series
 * kept still take samples.  The default cap holds against a runner that
 * prints a new name a sample, and the store's memory stays flat then.
 */
static void
test_series_cap(void **state)
{
	struct metrics *m = metrics_new(4);
	struct mdropped d;
	struct mcell tot;
	char err[256], name[32];
	size_t mem1 = 0;
	int i;

	(void)state;
	metrics_dropped(m, &d);
	assert_true(d.samples == 0 && d.series == 0 && d.cap == 0);
	/* A quarter of the cap (1 of 4) is the known names'. */
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof name, "m%d", i);
		add(m, "h", 0, name, T0, i);
	}
	assert_int_equal(metrics_add(m, "h", 0, "m3", T0, 1, err, sizeof err),
	    -1);
	assert_string_equal(err, "'m3': a new series past the cap of 4 "
	    "series (a quarter kept for the names calops knows): not kept");
	add(m, "h", 0, "temp_c", T0, 60);
	assert_int_equal(metrics_add(m, "h", 0, "ttft_ms", T0, 1, err,
	    sizeof err), -1);
	assert_string_equal(err, "'ttft_ms': a new series past the cap of 4 "
	    "series: not kept");
	/* Another chip or host is another series: refused the same. */
	assert_int_equal(metrics_add(m, "h", 1, "m0", T0, 1, NULL, 0), -1);
	assert_int_equal(metrics_add(m, "g", 0, "m0", T0, 1, NULL, 0), -1);
	assert_int_equal(metrics_add(m, "h", 0, "m3", T0 + 1, 1, NULL, 0), -1);
	add(m, "h", 0, "m2", T0 + 1, 7);
	assert_int_equal(metrics_count(m), 4);
	assert_null(metrics_find(m, "h", 0, "m3"));
	metricsview_series_totals(metrics_find(m, "h", 0, "m2"), &tot);
	assert_true(tot.count == 2 && tot.last == 7);
	metrics_dropped(m, &d);
	assert_int_equal(d.samples, 5);
	assert_int_equal(d.series, 4);
	assert_false(d.more);
	assert_int_equal(d.cap, 4);
	assert_false(d.quota);
	metrics_free(m);

	/* The default cap, against 300,000 new names: three quarters of
	 * 1,024 kept, the rest counted, the refused series apart up to
	 * METRICS_DROPPED_SERIES; the soak's own names still find room. */
	m = metrics_new(0);
	for (i = 0; i < 300000; i++) {
		snprintf(name, sizeof name, "junk_%d", i);
		if (metrics_add(m, "h", 0, name, T0 + i / 1000.0, i, NULL,
		    0) != (i < METRICS_JOB_SERIES * 3 / 4 ? 0 : -1))
			fail_msg("sample %d of '%s'", i, name);
		if (i == 2 * METRICS_JOB_SERIES)
			mem1 = metrics_memory(m);
	}
	assert_int_equal(metrics_count(m), METRICS_JOB_SERIES * 3 / 4);
	metrics_dropped(m, &d);
	assert_int_equal(d.samples, 300000 - METRICS_JOB_SERIES * 3 / 4);
	assert_int_equal(d.series, METRICS_DROPPED_SERIES);
	assert_true(d.more);
	assert_int_equal(d.cap, METRICS_JOB_SERIES);
	assert_int_equal(metrics_memory(m), mem1);
	assert_true(mem1 < (size_t)METRICS_JOB_SERIES * 33 * 1024);
	for (i = 0; i < METRICS_JOB_SERIES / 4; i++)
		add(m, "h", i, "temp_c", T0 + 300, 60);
	assert_int_equal(metrics_add(m, "h", i, "temp_c", T0 + 300, 60, NULL,
	    0), -1);
	assert_int_equal(metrics_count(m), METRICS_JOB_SERIES);
	print_message("%zu series kept, %" PRIu64 " samples refused: %zu "
	    "bytes\n", metrics_count(m), d.samples, mem1);
	metrics_free(m);
}

/*
 * Stores that share a quota hold at most its max together, each also
 * under its own cap; a store freed gives its series back to the quota.
 */
static void
test_series_quota(void **state)
{
	struct mquota q = { .max = 6 };
	struct metrics *a = metrics_new(4), *b = metrics_new(4);
	struct mdropped d;
	char err[256], name[32];
	int i;

	(void)state;
	add(a, "h", 0, "temp_c", T0, 1);
	metrics_set_quota(a, &q);	/* its series so far count */
	metrics_set_quota(b, &q);
	assert_int_equal(q.used, 1);
	add(a, "h", 0, "power_w", T0, 1);
	add(a, "h", 0, "errors", T0, 1);
	add(a, "h", 0, "resets", T0, 1);
	assert_int_equal(metrics_add(a, "h", 0, "kv_used", T0, 1, NULL, 0), -1);
	add(b, "h", 0, "temp_c", T0, 1);
	add(b, "h", 0, "power_w", T0, 1);
	assert_int_equal(q.used, 6);
	/* b is under its own cap of 4, but the quota is spent. */
	assert_int_equal(metrics_add(b, "h", 0, "errors", T0, 1, err, sizeof err),
	    -1);
	assert_string_equal(err, "'errors': a new series past the cap of 6 "
	    "series of all jobs: not kept");
	add(b, "h", 0, "power_w", T0 + 1, 2);		/* a kept one goes on */
	metrics_dropped(a, &d);
	assert_true(d.samples == 1 && d.cap == 4 && !d.quota);
	metrics_dropped(b, &d);
	assert_true(d.samples == 1 && d.series == 1 && d.cap == 6 && d.quota);
	metrics_free(a);
	assert_int_equal(q.used, 2);
	add(b, "h", 0, "errors", T0 + 2, 1);
	add(b, "h", 0, "resets", T0 + 2, 1);
	assert_int_equal(metrics_add(b, "h", 0, "kv_used", T0, 1, err,
	    sizeof err), -1);
	assert_string_equal(err, "'kv_used': a new series past the cap of 4 "
	    "series: not kept");
	assert_int_equal(q.used, 4);
	metrics_set_quota(b, NULL);
	assert_int_equal(q.used, 0);
	/* A quarter of the quota is the known names' too: of 8, junk takes
	 * 6, temp_c and power_w the last 2. */
	metrics_free(b);
	b = metrics_new(100);
	q.max = 8;
	metrics_set_quota(b, &q);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof name, "junk_%d", i);
		add(b, "h", 1, name, T0, 1);
	}
	assert_int_equal(metrics_add(b, "h", 1, "junk_6", T0, 1, err,
	    sizeof err), -1);
	assert_string_equal(err, "'junk_6': a new series past the cap of 8 "
	    "series of all jobs (a quarter kept for the names calops knows): "
	    "not kept");
	add(b, "h", 1, "temp_c", T0, 1);
	add(b, "h", 1, "power_w", T0, 1);
	assert_int_equal(q.used, 8);
	metrics_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_spike),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_success_rate),
		cmocka_unit_test(test_merge_chips),
		cmocka_unit_test(test_leak),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_many_series),
		cmocka_unit_test(test_series_cap),
		cmocka_unit_test(test_series_quota),
		cmocka_unit_test(test_memory_flat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

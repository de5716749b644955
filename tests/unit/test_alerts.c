/*
 * test_alerts.c: the alert journal (src/metrics/alerts.c) fed as labmodel
 * feeds it, a metric sample then alerts_observe(): a breach shorter than
 * the minimum does not fire, a long one fires once with its start, end and
 * worst, a flapping rule neither fires on short spells nor splits a long
 * alert, an ack persists and comes back on a replay into a fresh journal,
 * and the leak rule fires on a leaking chip and not on flat or noisy ones,
 * nor on a warm-up.
 */
#include "calops.h"

#include <math.h>
#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "metrics/alerts.h"
#include "metrics/metrics.h"
#include "metrics/metricsview.h"

#define T0	1700000000.0
#define HOST	"local"

static uint64_t rng_state;

static double
unif(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ z >> 27) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

static void
add(struct metrics *m, int chip, const char *name, double ts, double v)
{
	char err[256];

	if (metrics_add(m, HOST, chip, name, ts, v, err, sizeof err) != 0)
		fail_msg("metrics_add %s %g %g: %s", name, ts, v, err);
}

/* Requests at 10 Hz over [t0, t1) on two chips, ttft from fn(ts), each
 * followed by alerts_observe() as labmodel does. */
static void
requests(struct alerts *a, struct metrics *m, double t0, double t1,
    double (*fn)(double))
{
	double ts;
	long i;

	for (i = 0; (ts = t0 + (double)i * 0.1) < t1; i++) {
		add(m, (int)(i % 2), "ttft_ms", ts, fn(ts));
		add(m, (int)(i % 2), "request_ok", ts, 1);
		alerts_observe(a, m, ts);
	}
}

static double
flat100(double ts)
{
	(void)ts;
	return 100;
}

/* 100 ms, and 500 ms over [T0 + 300, T0 + 420). */
static double
burst(double ts)
{
	return ts >= T0 + 300 && ts < T0 + 420 ? 500 : 100;
}

static void
test_short_breach(void **state)
{
	struct metrics *m = metrics_new(0);
	struct alerts *a = alerts_new(NULL);

	(void)state;
	alerts_set_sla(a, 300, NAN, NAN);
	requests(a, m, T0, T0 + 100, flat100);
	/* The SLA tightened for 50 s: a breach shorter than ALERT_OPEN_S. */
	alerts_set_sla(a, 50, NAN, NAN);
	requests(a, m, T0 + 100, T0 + 150, flat100);
	alerts_set_sla(a, 300, NAN, NAN);
	requests(a, m, T0 + 150, T0 + 400, flat100);
	alerts_finish(a, T0 + 400);
	assert_int_equal(alerts_count(a), 0);
	alerts_free(a);
	metrics_free(m);
}

/* Requests at 2 Hz over [t0, t1) on one chip; fails(i) says which fail. */
static void
outcomes(struct alerts *a, struct metrics *m, double t0, double t1,
    bool (*fails)(long))
{
	double ts;
	long i;

	for (i = 0; (ts = t0 + (double)i * 0.5) < t1; i++) {
		add(m, 0, "request_ok", ts, fails(i) ? 0 : 1);
		alerts_observe(a, m, ts);
	}
}

/* One request in a thousand fails: a healthy run. */
static bool
rare(long i)
{
	return i % 1000 == 999;
}

/* One in ten: a sustained breach of a 99.5 % SLA. */
static bool
tenth(long i)
{
	return i % 10 == 0;
}

/* A single failure must not fire the success rate (over 1 min it would
 * dip below 99.5 % for a whole minute); ten percent for 15 min fires it
 * once, with the worst rate seen. */
static void
test_success_rate(void **state)
{
	struct metrics *m = metrics_new(0);
	struct alerts *a = alerts_new(NULL);
	const struct alert *al;

	(void)state;
	alerts_set_sla(a, NAN, NAN, 0.995);
	outcomes(a, m, T0, T0 + 7200, rare);
	assert_int_equal(alerts_count(a), 0);
	outcomes(a, m, T0 + 7200, T0 + 8100, tenth);
	outcomes(a, m, T0 + 8100, T0 + 10800, rare);
	alerts_finish(a, T0 + 10800);
	assert_int_equal(alerts_count(a), 1);
	al = alerts_get(a, 0);
	assert_string_equal(al->rule, "sla.success_rate");
	assert_true(al->worst < 0.93 && al->worst > 0.88);
	assert_false(isnan(al->end));
	alerts_free(a);
	metrics_free(m);
}

static void
test_long_breach(void **state)
{
	struct metrics *m = metrics_new(0);
	struct alerts *a = alerts_new(NULL);
	const struct alert *al;
	struct mseries *p99;
	struct mcell tot;

	(void)state;
	alerts_set_sla(a, 300, NAN, 0.99);
	requests(a, m, T0, T0 + 900, burst);
	assert_int_equal(alerts_count(a), 1);
	assert_int_equal(alerts_nopen(a), 0);
	al = alerts_get(a, 0);
	assert_string_equal(al->rule, "sla.ttft_p99");
	assert_string_equal(al->metric, "ttft_ms");
	assert_int_equal(al->chip, ALERT_MERGED);
	assert_int_equal(al->ordinal, 0);
	assert_false(al->below);
	assert_false(al->acked);
	/* It starts with the burst and ends once the burst has left the
	 * 1 min window (60 to 70 s). */
	assert_true(al->start >= T0 + 300 && al->start <= T0 + 302);
	assert_true(al->end >= T0 + 420 + 59 && al->end <= T0 + 420 + 72);
	assert_true(fabs(al->worst - 500) <= 5);
	assert_true(al->threshold == 300);
	assert_null(alerts_get(a, 1));

	/* The percentiles went into the store, merged and per chip. */
	p99 = metrics_find(m, HOST, MCHIP_NONE, "ttft_ms" ALERT_P99);
	assert_non_null(p99);
	metricsview_series_totals(p99, &tot);
	assert_true(tot.count >= 890 && tot.count <= 901);
	assert_true(fabs(tot.max - 500) <= 5);
	assert_true(fabs(tot.last - 100) <= 1);
	assert_non_null(metrics_find(m, HOST, 1, "ttft_ms" ALERT_P50));
	alerts_free(a);
	metrics_free(m);
}

/* Breaches by the SLA alone: latencies flat at 100, the SLA at 50 over
 * each span of on[] and 300 otherwise. */
static struct alerts *
toggled(struct metrics *m, const double (*on)[2], size_t n, double end,
    const char *ack_path)
{
	struct alerts *a = alerts_new(ack_path);
	double t = T0;
	size_t i;

	alerts_set_sla(a, 300, NAN, NAN);
	for (i = 0; i < n; i++) {
		requests(a, m, t, T0 + on[i][0], flat100);
		alerts_set_sla(a, 50, NAN, NAN);
		requests(a, m, T0 + on[i][0], T0 + on[i][1], flat100);
		alerts_set_sla(a, 300, NAN, NAN);
		t = T0 + on[i][1];
	}
	requests(a, m, t, T0 + end, flat100);
	alerts_finish(a, T0 + end);
	return a;
}

static void
test_flapping(void **state)
{
	/* Spells of 50 s apart by 20 s: none is long enough. */
	static const double shortspells[][2] = {
		{ 100, 150 }, { 170, 220 }, { 240, 290 }, { 310, 360 },
	};
	/* 90 s, clear 30 s, 90 s: one alert; clear 100 s closes it, and
	 * a later 70 s spell is a second one, open at the end. */
	static const double longspells[][2] = {
		{ 100, 190 }, { 220, 310 }, { 410, 480 }, { 600, 700 },
	};
	struct metrics *m = metrics_new(0);
	struct alerts *a;
	const struct alert *al;

	(void)state;
	a = toggled(m, shortspells, nitems(shortspells), 500, NULL);
	assert_int_equal(alerts_count(a), 0);
	alerts_free(a);
	metrics_free(m);

	m = metrics_new(0);
	a = toggled(m, longspells, nitems(longspells), 730, NULL);
	assert_int_equal(alerts_count(a), 3);
	al = alerts_get(a, 0);
	assert_true(fabs(al->start - (T0 + 100)) <= 1);
	assert_true(fabs(al->end - (T0 + 310)) <= 1);
	assert_true(fabs(al->worst - 100) <= 1);
	assert_true(al->threshold == 50);
	al = alerts_get(a, 1);
	assert_int_equal(al->ordinal, 1);
	assert_true(fabs(al->start - (T0 + 410)) <= 1);
	assert_true(fabs(al->end - (T0 + 480)) <= 1);
	/* Still open when the stream ended: closed there. */
	al = alerts_get(a, 2);
	assert_true(fabs(al->start - (T0 + 600)) <= 1);
	assert_true(fabs(al->end - (T0 + 700)) <= 1);
	alerts_free(a);
	metrics_free(m);
}

static void
test_ack_replay(void **state)
{
	static const double spells[][2] = { { 100, 200 }, { 400, 500 } };
	char dir[] = "/tmp/test_alerts.XXXXXX", err[256], line[256];
	struct metrics *m;
	struct alerts *a;
	char *path;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/acks", dir);
	m = metrics_new(0);
	a = toggled(m, spells, nitems(spells), 700, path);
	assert_int_equal(alerts_count(a), 2);
	assert_int_equal(alerts_nunacked(a), 2);
	assert_int_equal(alerts_ack(a, 1, err, sizeof err), 0);
	assert_int_equal(alerts_ack(a, 1, err, sizeof err), 0);
	assert_int_equal(alerts_ack(a, 2, err, sizeof err), -1);
	assert_true(alerts_get(a, 1)->acked);
	assert_false(alerts_get(a, 0)->acked);
	assert_int_equal(alerts_nunacked(a), 1);
	alerts_free(a);
	metrics_free(m);

	/* One line, for the second alert only. */
	assert_non_null(f = fopen(path, "r"));
	assert_non_null(fgets(line, sizeof line, f));
	assert_int_equal(strncmp(line, "1 sla.ttft_p99 -1 ", 18), 0);
	assert_null(fgets(line, sizeof line, f));
	fclose(f);

	/* The same stream into a fresh journal: the same alerts, the ack on
	 * the second. */
	m = metrics_new(0);
	a = toggled(m, spells, nitems(spells), 700, path);
	assert_int_equal(alerts_count(a), 2);
	assert_false(alerts_get(a, 0)->acked);
	assert_true(alerts_get(a, 1)->acked);
	alerts_free(a);
	metrics_free(m);

	/* The SLA known only from t = 300 on: the first alert is not there,
	 * the second comes first, and its ack follows it. */
	m = metrics_new(0);
	a = alerts_new(path);
	requests(a, m, T0, T0 + 300, flat100);
	alerts_set_sla(a, 300, NAN, NAN);
	requests(a, m, T0 + 300, T0 + 400, flat100);
	alerts_set_sla(a, 50, NAN, NAN);
	requests(a, m, T0 + 400, T0 + 500, flat100);
	alerts_set_sla(a, 300, NAN, NAN);
	requests(a, m, T0 + 500, T0 + 700, flat100);
	assert_int_equal(alerts_count(a), 1);
	assert_int_equal(alerts_get(a, 0)->ordinal, 0);
	assert_true(alerts_get(a, 0)->acked);
	alerts_free(a);
	metrics_free(m);

	/* An ack that cannot be written is refused, and not shown as kept. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	m = metrics_new(0);
	a = toggled(m, spells, nitems(spells), 700, path);
	assert_int_equal(alerts_ack(a, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot open"));
	assert_false(alerts_get(a, 0)->acked);
	alerts_free(a);
	metrics_free(m);
	free(path);
}

/* rss_bytes every 60 s for hours on three chips: chip 0 leaks `rate`
 * bytes an hour, chip 1 is flat and noisy, chip 2 noisier still; every
 * chip warms up by `warm` bytes over the first 30 min. */
static struct alerts *
memory_run(struct metrics *m, double hours, double rate, double warm)
{
	struct alerts *a = alerts_new(NULL);
	double ts, h, noise[3] = { 2.5e6, 2.5e6, 8e6 };
	int chip;
	long i;

	rng_state = 42;
	alerts_set_sla(a, 300, NAN, NAN);
	for (i = 0; (ts = T0 + (double)i * 60) <= T0 + hours * 3600; i++) {
		h = (ts - T0) / 3600;
		for (chip = 0; chip < 3; chip++) {
			add(m, chip, "rss_bytes", ts, 1.3e9 + (chip == 0 ?
			    rate * h : 0) + noise[chip] * normal() +
			    warm * fmin(1, h * 2));
			add(m, chip, "device_mem_bytes", ts, 3.15e9 + 9e5 *
			    normal());
			alerts_observe(a, m, ts);
		}
	}
	alerts_finish(a, T0 + hours * 3600);
	return a;
}

static void
test_leak(void **state)
{
	struct metrics *m = metrics_new(0);
	struct alerts *a;
	const struct alert *al;
	size_t i, n0 = 0;

	(void)state;
	a = memory_run(m, 8, 50e6, 0);
	assert_true(alerts_count(a) >= 1);
	for (i = 0; i < alerts_count(a); i++) {
		al = alerts_get(a, i);
		assert_string_equal(al->rule, "leak.rss_bytes");
		assert_int_equal(al->chip, 0);
		assert_false(isnan(al->end));
		assert_true(al->worst > al->threshold);
		assert_true(al->threshold >= 1.3e7 * 0.99);
		n0++;
	}
	/* It ends open: closed at the end of the stream, and its worst is
	 * about the growth over the judged 90 % of the run. */
	al = alerts_get(a, alerts_count(a) - 1);
	assert_true(al->end == T0 + 8 * 3600);
	assert_true(al->worst > 0.8 * 50e6 * 8 * 0.9 * 11 / 12);
	assert_true(n0 <= 5);	/* it may flap while the evidence is thin */
	alerts_free(a);
	metrics_free(m);

	m = metrics_new(0);
	a = memory_run(m, 8, 0, 0);
	assert_int_equal(alerts_count(a), 0);
	alerts_free(a);
	metrics_free(m);

	/* A warm-up is not a leak: the rule waits for an hour of run. */
	m = metrics_new(0);
	a = memory_run(m, 8, 0, 180e6);
	assert_int_equal(alerts_count(a), 0);
	alerts_free(a);
	metrics_free(m);

	/* Nor one that then holds exactly flat (device memory, allocated
	 * once), though equal medians never decrease: by the rule alone it
	 * is a leak until the run spans some ten times its warm-up. */
	m = metrics_new(0);
	a = alerts_new(NULL);
	for (i = 0; i <= 8 * 60; i++) {
		add(m, 0, "device_mem_bytes", T0 + (double)i * 60, 3.15e9 +
		    9.6e7 * fmin(1, (double)i / 30));
		alerts_observe(a, m, T0 + (double)i * 60);
	}
	alerts_finish(a, T0 + 8 * 3600);
	assert_int_equal(alerts_count(a), 0);
	alerts_free(a);
	metrics_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_breach),
		cmocka_unit_test(test_long_breach),
		cmocka_unit_test(test_success_rate),
		cmocka_unit_test(test_flapping),
		cmocka_unit_test(test_ack_replay),
		cmocka_unit_test(test_leak),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_sketch.c: the DDSketch-style sketch (sketch.c) against exact
 * nearest-rank percentiles (soakstats.c) on uniform, log-normal, bimodal
 * and heavy-tailed data; merge and subtraction bucket for bucket; collapse
 * past SKETCH_MAX_BUCKETS; widening counts; refused values.
 */
#include "calops.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>

#include <cmocka.h>

#include "metrics/sketch.h"
#include "metrics/soakstats.h"

#define N	200000

/* splitmix64: a small deterministic generator for the data sets. */
static uint64_t rng_state;

static uint64_t
rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ z >> 27) * 0x94d049bb133111ebULL;
	return z ^ z >> 31;
}

/* Uniform in (0, 1). */
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

enum shape { UNIFORM, LOGNORMAL, BIMODAL, PARETO, TINY_AND_HUGE };

static const char *const shape_names[] = {
	"uniform", "log-normal", "bimodal", "pareto", "tiny and huge",
};

static double
draw(enum shape s)
{
	switch (s) {
	case UNIFORM:
		return 1 + 999 * unif();
	case LOGNORMAL:		/* TTFT-like: median 280 ms, long right tail */
		return exp(log(280) + 0.6 * normal());
	case BIMODAL:		/* cache hits and misses */
		return unif() < 0.7 ? fabs(30 + 3 * normal()) :
		    fabs(900 + 50 * normal());
	case PARETO:		/* heavy tail, alpha 1.2 */
		return 10 / pow(unif(), 1 / 1.2);
	case TINY_AND_HUGE:	/* 17 decades: all of them within 2048 keys */
		return exp(log(1e-6) + unif() * (log(1e11) - log(1e-6)));
	}
	return 0;
}

static double *
data(enum shape s, size_t n, uint64_t seed)
{
	double *v = xreallocarray(NULL, n, sizeof *v);
	size_t i;

	rng_state = seed;
	for (i = 0; i < n; i++)
		v[i] = draw(s);
	return v;
}

/* soakstats_nearest_rank() on an array already sorted, without sorting it
 * again. */
static double
ranked(const double *sorted, size_t n, double p)
{
	size_t k = (size_t)ceil(p * (double)n - 1e-9);

	k = k < 1 ? 1 : k > n ? n : k;
	return sorted[k - 1];
}

static void
check_close(const char *what, double p, double got, double want)
{
	if (!(fabs(got - want) <= SKETCH_ALPHA * want + 1e-12))
		fail_msg("%s p=%g: sketch %.17g, exact %.17g, error %.4f %%",
		    what, p, got, want, 100 * fabs(got - want) / want);
}

/* Every shape: P50, P99, P99.9 and a sweep of others within 1 %. */
static void
test_accuracy(void **state)
{
	static const double ps[] = { 0.5, 0.99, 0.999, 0, 0.001, 0.01, 0.1,
	    0.25, 0.75, 0.9, 0.95, 0.9999, 1 };
	struct sketch s;
	enum shape sh;
	double *v, *sorted, want;
	size_t i;

	(void)state;
	for (sh = UNIFORM; sh <= TINY_AND_HUGE; sh++) {
		v = data(sh, N, 42 + sh);
		sketch_init(&s);
		for (i = 0; i < N; i++)
			assert_int_equal(sketch_add(&s, v[i]), 0);
		assert_int_equal(sketch_count(&s), N);
		sorted = xreallocarray(NULL, N, sizeof *sorted);
		memcpy(sorted, v, N * sizeof *v);
		for (i = 0; i < nitems(ps); i++) {
			want = soakstats_nearest_rank(sorted, N, ps[i]);
			assert_true(want == ranked(sorted, N, ps[i]));
			check_close(shape_names[sh], ps[i],
			    sketch_quantile(&s, ps[i]), want);
		}
		/* The ends are exact. */
		assert_true(sketch_quantile(&s, 0) == sorted[0]);
		assert_true(sketch_quantile(&s, 1) == sorted[N - 1]);
		assert_true(sketch_min(&s) == sorted[0]);
		assert_true(sketch_max(&s) == sorted[N - 1]);
		free(sorted);
		free(v);
		sketch_release(&s);
	}
}

/* Every rank of a small set, so the nearest-rank convention is checked. */
static void
test_nearest_rank(void **state)
{
	struct sketch s;
	double v[37], sorted[37], want;
	size_t i, n;

	(void)state;
	rng_state = 7;
	for (n = 1; n <= nitems(v); n++) {
		sketch_init(&s);
		for (i = 0; i < n; i++) {
			v[i] = draw(BIMODAL);
			sketch_add(&s, v[i]);
		}
		for (i = 0; i <= 1000; i++) {
			memcpy(sorted, v, n * sizeof *v);
			want = soakstats_nearest_rank(sorted, n, i / 1000.0);
			check_close("small", i / 1000.0,
			    sketch_quantile(&s, i / 1000.0), want);
		}
		sketch_release(&s);
	}
}

/* The nearest rank selected is the one sorted for, whatever the values:
 * every rank of sets with runs of equal values, sorted, reversed, one
 * value, and of random ones. */
static void
test_rank_select(void **state)
{
	double v[300], a[300], b[300];
	size_t i, n, r, shape;

	(void)state;
	rng_state = 11;
	for (n = 1; n <= nitems(v); n += n < 40 ? 1 : 37)
		for (shape = 0; shape < 5; shape++) {
			for (i = 0; i < n; i++)
				v[i] = shape == 0 ? draw(BIMODAL) :
				    shape == 1 ? floor(draw(BIMODAL) / 50) :
				    shape == 2 ? (double)i : shape == 3 ?
				    (double)(n - i) : 7.0;
			for (r = 0; r <= 100; r++) {
				memcpy(a, v, n * sizeof *v);
				memcpy(b, v, n * sizeof *v);
				assert_true(soakstats_nearest_rank_select(a, n,
				    r / 100.0) == soakstats_nearest_rank(b, n,
				    r / 100.0));
			}
		}
	assert_true(isnan(soakstats_nearest_rank_select(v, 0, 0.5)));
}

/* Each key's value stands within alpha of every value the key takes. */
static void
test_mapping(void **state)
{
	double v, r;
	int32_t k;
	int i;

	(void)state;
	rng_state = 3;
	for (i = 0; i < 1000000; i++) {
		v = exp(log(SKETCH_MIN_VALUE) + unif() * (700 -
		    log(SKETCH_MIN_VALUE)));
		k = sketch_key(v);
		r = sketch_key_value(k);
		if (!(fabs(r - v) <= SKETCH_ALPHA * v * (1 + 1e-12)))
			fail_msg("v %.17g key %d stands for %.17g", v, k, r);
	}
	/* Adjacent keys are gamma apart. */
	assert_true(fabs(sketch_key_value(101) / sketch_key_value(100) -
	    (1 + SKETCH_ALPHA) / (1 - SKETCH_ALPHA)) < 1e-12);
}

static void
fill(struct sketch *s, const double *v, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		assert_int_equal(sketch_add(s, v[i]), 0);
}

/* Merging the parts gives the sketch of the whole, bucket for bucket. */
static void
test_merge(void **state)
{
	struct sketch whole, part[8], merged;
	enum shape sh;
	double *v;
	size_t i;

	(void)state;
	for (sh = UNIFORM; sh <= TINY_AND_HUGE; sh++) {
		v = data(sh, N, 100 + sh);
		sketch_init(&whole);
		sketch_init(&merged);
		fill(&whole, v, 0, N);
		for (i = 0; i < 8; i++) {
			sketch_init(&part[i]);
			fill(&part[i], v, i * N / 8, (i + 1) * N / 8);
		}
		for (i = 0; i < 8; i++)
			sketch_merge(&merged, &part[7 - i]);
		assert_true(sketch_equal(&merged, &whole));
		assert_true(fabs(sketch_sum(&merged) - sketch_sum(&whole)) <=
		    1e-9 * sketch_sum(&whole));
		for (i = 0; i <= 100; i++)
			assert_true(sketch_quantile(&merged, i / 100.0) ==
			    sketch_quantile(&whole, i / 100.0));
		/* A copy is equal too. */
		sketch_copy(&part[0], &whole);
		assert_true(sketch_equal(&part[0], &whole));
		for (i = 0; i < 8; i++)
			sketch_release(&part[i]);
		sketch_release(&whole);
		sketch_release(&merged);
		free(v);
	}
}

/* Subtraction gives back what was merged in, bucket for bucket. */
static void
test_subtract(void **state)
{
	struct sketch a, b, c, other;
	double *v;
	int32_t k;
	size_t i;

	(void)state;
	v = data(LOGNORMAL, N, 5);
	sketch_init(&a);
	sketch_init(&b);
	sketch_init(&c);
	sketch_init(&other);
	fill(&a, v, 0, N / 2);
	fill(&b, v, N / 2, N);
	sketch_add(&b, 0);	/* a zero too */
	sketch_copy(&c, &a);
	sketch_merge(&c, &b);
	assert_int_equal(sketch_subtract(&c, &b), 0);
	assert_int_equal(sketch_count(&c), sketch_count(&a));
	assert_int_equal(c.zero, a.zero);
	assert_int_equal(c.lo, a.lo);
	assert_int_equal(c.hi, a.hi);
	for (k = a.lo - 5; k <= a.hi + 5; k++)
		assert_int_equal(sketch_bucket(&c, k), sketch_bucket(&a, k));
	/* min and max come back within alpha; quantiles within 1 %. */
	check_close("min", 0, sketch_min(&c), sketch_min(&a));
	check_close("max", 1, sketch_max(&c), sketch_max(&a));
	for (i = 1; i < 100; i++)
		check_close("after subtract", i / 100.0,
		    sketch_quantile(&c, i / 100.0),
		    sketch_quantile(&a, i / 100.0));
	/* Subtracting all leaves it empty; what was never in it is refused. */
	assert_int_equal(sketch_subtract(&c, &a), 0);
	assert_int_equal(sketch_count(&c), 0);
	assert_true(isnan(sketch_quantile(&c, 0.5)));
	sketch_add(&other, 1e6);
	sketch_copy(&c, &a);
	assert_int_equal(sketch_subtract(&c, &other), -1);
	assert_true(sketch_equal(&c, &a));
	assert_int_equal(sketch_subtract(&c, &b), -1);	/* more than in it */
	assert_true(sketch_equal(&c, &a));
	sketch_release(&a);
	sketch_release(&b);
	sketch_release(&c);
	sketch_release(&other);
	free(v);
}

/*
 * Values over more than SKETCH_MAX_BUCKETS keys: the lowest collapse, the
 * rest keep the 1 % bound, collapse commutes with merge and subtraction.
 */
static void
test_collapse(void **state)
{
	struct sketch s, a, b, m;
	double *v, *sorted, want, got, floor_value;
	size_t i;

	(void)state;
	rng_state = 11;
	v = xreallocarray(NULL, N, sizeof *v);
	for (i = 0; i < N; i++)	/* 1e-6 to 1e30: 41 decades */
		v[i] = exp(log(1e-6) + unif() * (log(1e30) - log(1e-6)));
	sketch_init(&s);
	fill(&s, v, 0, N);
	assert_true(s.hi - s.lo + 1 <= SKETCH_MAX_BUCKETS);
	assert_true(s.alloc <= SKETCH_MAX_BUCKETS);
	assert_int_equal(s.hi - s.lo + 1, SKETCH_MAX_BUCKETS);
	assert_int_equal(sketch_count(&s), N);
	floor_value = exp((double)(s.lo - 1) * log((1 + SKETCH_ALPHA) /
	    (1 - SKETCH_ALPHA)));
	sorted = xreallocarray(NULL, N, sizeof *sorted);
	memcpy(sorted, v, N * sizeof *v);
	soakstats_nearest_rank(sorted, N, 0.5);
	for (i = 1; i < 1000; i++) {
		want = ranked(sorted, N, i / 1000.0);
		got = sketch_quantile(&s, i / 1000.0);
		if (want > floor_value * 1.0001)
			check_close("kept", i / 1000.0, got, want);
		else	/* collapsed: overestimated, never under */
			assert_true(got >= want);
	}
	/* Merge of collapsed parts is the collapsed whole. */
	sketch_init(&a);
	sketch_init(&b);
	sketch_init(&m);
	fill(&a, v, 0, N / 3);
	fill(&b, v, N / 3, N);
	sketch_merge(&m, &b);
	sketch_merge(&m, &a);
	assert_true(sketch_equal(&m, &s));
	/* The low part alone spans less, yet subtracts exactly. */
	sketch_reset(&a);
	for (i = 0; i < N; i++)
		if (v[i] < 1e-3)
			sketch_add(&a, v[i]);
	assert_true(a.hi - a.lo + 1 < SKETCH_MAX_BUCKETS);
	sketch_copy(&m, &s);
	assert_int_equal(sketch_subtract(&m, &a), 0);
	assert_int_equal(sketch_count(&m), N - sketch_count(&a));
	sketch_merge(&m, &a);
	assert_int_equal(m.lo, s.lo);
	assert_int_equal(m.hi, s.hi);
	for (i = 0; i < SKETCH_MAX_BUCKETS; i++)
		assert_int_equal(sketch_bucket(&m, s.lo + (int32_t)i),
		    sketch_bucket(&s, s.lo + (int32_t)i));
	assert_int_equal(sketch_count(&m), N);
	free(sorted);
	free(v);
	sketch_release(&s);
	sketch_release(&a);
	sketch_release(&b);
	sketch_release(&m);
}

/* Counts widen from 16 to 32 and 64 bits without losing any. */
static void
test_widen(void **state)
{
	struct sketch s, t;

	(void)state;
	sketch_init(&s);
	sketch_init(&t);
	sketch_add_n(&s, 12.5, 60000);
	assert_int_equal(s.width, 2);
	sketch_add_n(&s, 12.5, 6000);
	assert_int_equal(s.width, 4);
	sketch_add_n(&s, 3, 1);
	sketch_add_n(&s, 12.5, 5000000000ULL);
	assert_int_equal(s.width, 8);
	assert_int_equal(sketch_bucket(&s, sketch_key(12.5)), 5000066000ULL);
	assert_int_equal(sketch_count(&s), 5000066001ULL);
	assert_true(sketch_quantile(&s, 0) == 3);
	check_close("wide", 0.5, sketch_quantile(&s, 0.5), 12.5);
	sketch_add(&t, 12.5);
	assert_int_equal(sketch_subtract(&s, &t), 0);
	assert_int_equal(sketch_bucket(&s, sketch_key(12.5)), 5000065999ULL);
	/* Merging into a narrow sketch widens it. */
	sketch_reset(&t);
	sketch_merge(&t, &s);
	assert_true(sketch_equal(&t, &s));
	sketch_release(&s);
	sketch_release(&t);
}

/* Zeros are counted apart; negative, NaN and infinite values refused. */
static void
test_edges(void **state)
{
	struct sketch s;

	(void)state;
	sketch_init(&s);
	assert_true(isnan(sketch_quantile(&s, 0.5)));
	assert_true(isnan(sketch_min(&s)));
	assert_int_equal(sketch_add(&s, -1), -1);
	assert_int_equal(sketch_add(&s, NAN), -1);
	assert_int_equal(sketch_add(&s, INFINITY), -1);
	assert_int_equal(sketch_count(&s), 0);
	assert_int_equal(sketch_add(&s, 0), 0);
	assert_int_equal(sketch_add(&s, 1e-12), 0);
	assert_int_equal(sketch_add(&s, 0), 0);
	assert_int_equal(s.zero, 3);
	assert_true(sketch_quantile(&s, 0.5) == 0);
	assert_true(sketch_quantile(&s, 1) == 1e-12);
	assert_int_equal(sketch_add(&s, 5), 0);
	assert_int_equal(sketch_add(&s, 1e15), 0);
	assert_true(sketch_quantile(&s, 1) == 1e15);
	check_close("five", 0.8, sketch_quantile(&s, 0.8), 5);
	assert_true(sketch_quantile(&s, 0.6) == 0);
	assert_true(isnan(sketch_quantile(&s, NAN)));
	sketch_reset(&s);
	assert_int_equal(sketch_count(&s), 0);
	assert_int_equal(sketch_add(&s, 7), 0);
	assert_true(sketch_quantile(&s, 0.5) == 7);
	/* The largest double has a key and a value (clamped to max). */
	assert_int_equal(sketch_add(&s, DBL_MAX), 0);
	assert_int_equal(sketch_add(&s, DBL_MAX), 0);
	assert_true(sketch_quantile(&s, 0.7) == DBL_MAX);
	sketch_release(&s);
}

/* A window's worth of churn: add, subtract, reset; memory stays put. */
static void
test_ring_churn(void **state)
{
	struct sketch slot[7], sum, ref;
	size_t t, i, mem = 0;
	double v;

	(void)state;
	sketch_init(&sum);
	sketch_init(&ref);
	for (i = 0; i < 7; i++)
		sketch_init(&slot[i]);
	rng_state = 9;
	for (t = 0; t < 400; t++) {
		struct sketch *s = &slot[t % 7];

		if (sketch_count(s) > 0) {
			assert_int_equal(sketch_subtract(&sum, s), 0);
			sketch_reset(s);
		}
		for (i = 0; i < 500; i++) {
			v = draw(LOGNORMAL);
			sketch_add(s, v);
			sketch_add(&sum, v);
		}
		sketch_reset(&ref);
		for (i = 0; i < 7; i++)
			sketch_merge(&ref, &slot[i]);
		assert_int_equal(sketch_count(&sum), sketch_count(&ref));
		assert_int_equal(sum.lo, ref.lo);
		assert_int_equal(sum.hi, ref.hi);
		for (i = 0; i < (size_t)(ref.hi - ref.lo + 1); i++)
			assert_int_equal(
			    sketch_bucket(&sum, ref.lo + (int32_t)i),
			    sketch_bucket(&ref, ref.lo + (int32_t)i));
		if (t == 100)
			for (i = 0, mem = 0; i < 7; i++)
				mem += sketch_memory(&slot[i]);
	}
	for (i = 0, t = 0; i < 7; i++)
		t += sketch_memory(&slot[i]);
	assert_true(t <= mem + 7 * 64 * 2);
	for (i = 0; i < 7; i++)
		sketch_release(&slot[i]);
	sketch_release(&sum);
	sketch_release(&ref);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accuracy),
		cmocka_unit_test(test_nearest_rank),
		cmocka_unit_test(test_rank_select),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_subtract),
		cmocka_unit_test(test_collapse),
		cmocka_unit_test(test_widen),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_ring_churn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

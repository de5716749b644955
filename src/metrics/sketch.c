/* sketch.c: a DDSketch-style quantile sketch (sketch.h). */
#include "calops.h"

#include <math.h>

#include "metrics/sketch.h"

/* ln(gamma) = log1p(alpha) - log1p(-alpha) for alpha = 0.01. */
#define LN_GAMMA	0.020000666706669525
#define EMPTY_LO	INT32_MAX
#define EMPTY_HI	INT32_MIN
#define NO_TOP		INT32_MIN
/*
 * Buckets are allocated in chunks of 256 (a factor of 166 between the
 * lowest and the highest value), which holds a latency distribution's whole
 * spread at once: a sketch's memory is set by its first samples, and the
 * rare new extreme of a long run does not move it.  Wider spreads take more
 * chunks as they show up, up to SKETCH_MAX_BUCKETS.
 */
#define CHUNK		256

static bool
has_buckets(const struct sketch *s)
{
	return s->lo <= s->hi;
}

static uint64_t
get(const struct sketch *s, int32_t key)
{
	uint32_t i = (uint32_t)(key - s->offset);

	switch (s->width) {
	case 2:
		return ((const uint16_t *)s->counts)[i];
	case 4:
		return ((const uint32_t *)s->counts)[i];
	default:
		return ((const uint64_t *)s->counts)[i];
	}
}

static void
put(struct sketch *s, int32_t key, uint64_t c)
{
	uint32_t i = (uint32_t)(key - s->offset);

	switch (s->width) {
	case 2:
		((uint16_t *)s->counts)[i] = (uint16_t)c;
		break;
	case 4:
		((uint32_t *)s->counts)[i] = (uint32_t)c;
		break;
	default:
		((uint64_t *)s->counts)[i] = c;
		break;
	}
}

/* The lowest key kept apart: everything below collapses into it. */
static int64_t
floor_key(const struct sketch *s)
{
	if (s->top == NO_TOP)
		return INT64_MIN;
	return (int64_t)s->top - (SKETCH_MAX_BUCKETS - 1);
}

static int32_t
clamp_key(const struct sketch *s, int32_t key)
{
	int64_t f = floor_key(s);

	return key < f ? (int32_t)f : key;
}

void
sketch_init_width(struct sketch *s, unsigned bytes)
{
	memset(s, 0, sizeof *s);
	s->min = INFINITY;
	s->max = -INFINITY;
	s->lo = EMPTY_LO;
	s->hi = EMPTY_HI;
	s->top = NO_TOP;
	s->width = bytes >= 8 ? 8 : bytes >= 4 ? 4 : 2;
}

void
sketch_init(struct sketch *s)
{
	sketch_init_width(s, 2);
}

void
sketch_release(struct sketch *s)
{
	free(s->counts);
	sketch_init(s);
}

void
sketch_reset(struct sketch *s)
{
	if (s->counts != NULL)
		memset(s->counts, 0, (size_t)s->alloc * s->width);
	s->count = s->zero = 0;
	s->sum = 0;
	s->min = INFINITY;
	s->max = -INFINITY;
	s->lo = EMPTY_LO;
	s->hi = EMPTY_HI;
	s->top = NO_TOP;
}

/*
 * Make the array cover keys [a, b] (which include the keys in use), growing
 * it in chunks up to the cap and centring the keys in it.
 */
static void
reshape(struct sketch *s, int32_t a, int32_t b)
{
	uint32_t need = (uint32_t)(b - a) + 1, alloc = s->alloc;
	int32_t off;
	char *nc;

	if (s->counts != NULL && a >= s->offset &&
	    (int64_t)b < (int64_t)s->offset + s->alloc)
		return;
	if (need > alloc) {
		alloc = (need + CHUNK - 1) / CHUNK * CHUNK;
		if (alloc > SKETCH_MAX_BUCKETS)
			alloc = SKETCH_MAX_BUCKETS;
	}
	off = a - (int32_t)((alloc - need) / 2);
	nc = xcalloc(alloc, s->width);
	if (has_buckets(s))
		memcpy(nc + (size_t)(s->lo - off) * s->width,
		    (char *)s->counts + (size_t)(s->lo - s->offset) * s->width,
		    (size_t)(s->hi - s->lo + 1) * s->width);
	free(s->counts);
	s->counts = nc;
	s->alloc = alloc;
	s->offset = off;
}

/* Widen the counts so that one of them can hold c. */
static void
widen(struct sketch *s, uint64_t c)
{
	struct sketch w = *s;
	int32_t k;

	w.width = c > UINT32_MAX ? 8 : 4;
	if (w.width <= s->width)
		fatal("sketch: cannot widen %u-byte counts", s->width);
	w.counts = xcalloc(s->alloc, w.width);
	if (has_buckets(s))
		for (k = s->lo; k <= s->hi; k++)
			put(&w, k, get(s, k));
	free(s->counts);
	*s = w;
}

/* Add n to the count of a key already inside the array. */
static void
bump(struct sketch *s, int32_t key, uint64_t n)
{
	uint32_t i = (uint32_t)(key - s->offset);
	uint64_t c;

	switch (s->width) {
	case 2:
		if ((c = ((uint16_t *)s->counts)[i] + n) <= UINT16_MAX) {
			((uint16_t *)s->counts)[i] = (uint16_t)c;
			return;
		}
		break;
	case 4:
		if ((c = ((uint32_t *)s->counts)[i] + n) <= UINT32_MAX) {
			((uint32_t *)s->counts)[i] = (uint32_t)c;
			return;
		}
		break;
	default:
		((uint64_t *)s->counts)[i] += n;
		return;
	}
	widen(s, c);
	put(s, key, c);
}

/* Add n to a key, the array grown or recentred as needed. */
static void
store_add(struct sketch *s, int32_t key, uint64_t n)
{
	if (!has_buckets(s)) {
		reshape(s, key, key);
		s->lo = s->hi = key;
	} else if (key < s->lo || key > s->hi) {
		reshape(s, key < s->lo ? key : s->lo,
		    key > s->hi ? key : s->hi);
		if (key < s->lo)
			s->lo = key;
		if (key > s->hi)
			s->hi = key;
	}
	bump(s, key, n);
}

/* Raise the highest key seen, collapsing what falls below the new floor. */
static void
raise_top(struct sketch *s, int32_t top)
{
	uint64_t total = 0;
	int64_t f;
	int32_t k, last;

	if (top <= s->top)
		return;
	s->top = top;
	f = floor_key(s);
	if (!has_buckets(s) || s->lo >= f)
		return;
	last = s->hi < f ? s->hi : (int32_t)f - 1;
	for (k = s->lo; k <= last; k++) {
		total += get(s, k);
		put(s, k, 0);
	}
	if (s->hi < f) {
		s->lo = EMPTY_LO;
		s->hi = EMPTY_HI;
	} else
		s->lo = (int32_t)f;
	store_add(s, (int32_t)f, total);
}

int32_t
sketch_key(double v)
{
	return (int32_t)ceil(log(v) / LN_GAMMA);
}

double
sketch_key_value(int32_t key)
{
	return exp((double)(key - 1) * LN_GAMMA) * (1 + SKETCH_ALPHA);
}

int
sketch_prepare(double v, struct sketch_value *out)
{
	if (!(v >= 0) || isinf(v))
		return -1;
	out->v = v;
	out->zero = v < SKETCH_MIN_VALUE;
	out->key = out->zero ? 0 : sketch_key(v);
	return 0;
}

void
sketch_add_prepared(struct sketch *s, const struct sketch_value *sv,
    uint64_t n)
{
	if (n == 0)
		return;
	s->count += n;
	s->sum += sv->v * (double)n;
	if (sv->v < s->min)
		s->min = sv->v;
	if (sv->v > s->max)
		s->max = sv->v;
	if (sv->zero) {
		s->zero += n;
		return;
	}
	raise_top(s, sv->key);
	store_add(s, clamp_key(s, sv->key), n);
}

int
sketch_add_n(struct sketch *s, double v, uint64_t n)
{
	struct sketch_value sv;

	if (sketch_prepare(v, &sv) != 0)
		return -1;
	sketch_add_prepared(s, &sv, n);
	return 0;
}

int
sketch_add(struct sketch *s, double v)
{
	return sketch_add_n(s, v, 1);
}

void
sketch_merge(struct sketch *dst, const struct sketch *src)
{
	int32_t k, a;
	uint64_t c;

	if (src == dst)
		fatal("sketch_merge: a sketch merged into itself");
	dst->count += src->count;
	dst->zero += src->zero;
	dst->sum += src->sum;
	dst->min = fmin(dst->min, src->min);
	dst->max = fmax(dst->max, src->max);
	if (src->top != NO_TOP)
		raise_top(dst, src->top);
	if (!has_buckets(src))
		return;
	/* One reshape for the whole range, then bucket by bucket. */
	a = clamp_key(dst, src->lo);
	if (has_buckets(dst))
		reshape(dst, a < dst->lo ? a : dst->lo,
		    src->hi > dst->hi ? src->hi : dst->hi);
	else
		reshape(dst, a, src->hi);
	for (k = src->lo; k <= src->hi; k++)
		if ((c = get(src, k)) != 0)
			store_add(dst, clamp_key(dst, k), c);
}

/*
 * Whether every bucket of src is in dst: keys at or below dst's floor all
 * land in the floor bucket, so their counts are added up first.
 */
static bool
contains(const struct sketch *dst, const struct sketch *src)
{
	uint64_t below = 0, c;
	int64_t f = floor_key(dst);
	int32_t k;

	if (src->count > dst->count || src->zero > dst->zero)
		return false;
	if (!has_buckets(src))
		return true;
	if (!has_buckets(dst))
		return false;
	for (k = src->lo; k <= src->hi; k++) {
		if ((c = get(src, k)) == 0)
			continue;
		if (k <= f)
			below += c;
		else if (k < dst->lo || k > dst->hi || get(dst, k) < c)
			return false;
	}
	return below == 0 || (f >= dst->lo && f <= dst->hi &&
	    get(dst, (int32_t)f) >= below);
}

/* After a subtraction: the bounds that are still true within alpha. */
static void
subtract_bounds(struct sketch *s)
{
	double lo, hi, omin = s->min, omax = s->max;

	if (s->count == 0) {
		s->sum = 0;
		s->min = INFINITY;
		s->max = -INFINITY;
		return;
	}
	lo = s->zero > 0 ? omin : sketch_key_value(s->lo);
	hi = has_buckets(s) ? sketch_key_value(s->hi) : SKETCH_MIN_VALUE;
	s->min = fmax(omin, lo);
	s->max = fmin(omax, hi);
	if (s->min > s->max) {
		/* One bucket left and an old bound past its value: trust it. */
		if (s->min == omin)
			s->max = s->min;
		else
			s->min = s->max;
	}
}

int
sketch_subtract(struct sketch *dst, const struct sketch *src)
{
	int32_t k;
	uint64_t c;

	if (src == dst || !contains(dst, src))
		return -1;
	dst->count -= src->count;
	dst->zero -= src->zero;
	dst->sum -= src->sum;
	if (has_buckets(src))
		for (k = src->lo; k <= src->hi; k++)
			if ((c = get(src, k)) != 0) {
				int32_t d = clamp_key(dst, k);

				put(dst, d, get(dst, d) - c);
			}
	while (has_buckets(dst) && get(dst, dst->lo) == 0) {
		if (dst->lo == dst->hi) {
			dst->lo = EMPTY_LO;
			dst->hi = EMPTY_HI;
		} else
			dst->lo++;
	}
	while (has_buckets(dst) && get(dst, dst->hi) == 0)
		dst->hi--;
	subtract_bounds(dst);
	return 0;
}

void
sketch_copy(struct sketch *dst, const struct sketch *src)
{
	if (dst == src)
		return;
	sketch_reset(dst);
	sketch_merge(dst, src);
}

double
sketch_quantile(const struct sketch *s, double p)
{
	uint64_t k, cum;
	int32_t key;
	double v;

	if (s->count == 0 || isnan(p))
		return NAN;
	p = p < 0 ? 0 : p > 1 ? 1 : p;
	/* The same rank as soakstats_nearest_rank() in soakstats.c. */
	k = (uint64_t)ceil(p * (double)s->count - 1e-9);
	if (k < 1)
		k = 1;
	if (k > s->count)
		k = s->count;
	if (k == 1)
		return s->min;
	if (k == s->count)
		return s->max;
	if (k <= s->zero)
		return s->min;
	cum = s->zero;
	for (key = s->lo; key < s->hi; key++) {
		cum += get(s, key);
		if (cum >= k)
			break;
	}
	v = sketch_key_value(key);
	return v < s->min ? s->min : v > s->max ? s->max : v;
}

uint64_t
sketch_count(const struct sketch *s)
{
	return s->count;
}

double
sketch_min(const struct sketch *s)
{
	return s->count == 0 ? NAN : s->min;
}

double
sketch_max(const struct sketch *s)
{
	return s->count == 0 ? NAN : s->max;
}

double
sketch_sum(const struct sketch *s)
{
	return s->sum;
}

uint64_t
sketch_bucket(const struct sketch *s, int32_t key)
{
	if (!has_buckets(s) || key < s->lo || key > s->hi)
		return 0;
	return get(s, key);
}

bool
sketch_equal(const struct sketch *a, const struct sketch *b)
{
	int32_t k;

	if (a->count != b->count || a->zero != b->zero ||
	    has_buckets(a) != has_buckets(b))
		return false;
	if (a->count != 0 && (a->min != b->min || a->max != b->max))
		return false;
	if (!has_buckets(a))
		return true;
	if (a->lo != b->lo || a->hi != b->hi)
		return false;
	for (k = a->lo; k <= a->hi; k++)
		if (get(a, k) != get(b, k))
			return false;
	return true;
}

size_t
sketch_memory(const struct sketch *s)
{
	return s->counts == NULL ? 0 : (size_t)s->alloc * s->width;
}

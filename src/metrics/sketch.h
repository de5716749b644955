/*
 * sketch.h: a DDSketch-style quantile sketch for latencies: bounded memory,
 * relative error at most SKETCH_ALPHA (1 %), exact merge and subtraction.
 *
 * A value v >= SKETCH_MIN_VALUE goes to the bucket with key
 * k = ceil(log_gamma(v)), gamma = (1 + alpha) / (1 - alpha), which holds
 * (gamma^(k-1), gamma^k]; the bucket stands for gamma^(k-1) * (1 + alpha),
 * within alpha of every value in it.  Values in [0, SKETCH_MIN_VALUE) are
 * counted apart as zeros.  Negative values, NaN and infinities are refused:
 * latencies are never negative, and a mirrored store would double the memory
 * of every sketch to cover a case that does not arise.
 *
 * The buckets live in a dense array of counts covering the keys in use.  It
 * never spans more than SKETCH_MAX_BUCKETS keys (a ratio of gamma^2048, about
 * 6e17, between the largest value and the smallest kept apart): beyond that
 * the lowest buckets collapse into the lowest kept one, whose key is the
 * highest key ever added minus SKETCH_MAX_BUCKETS - 1.  Quantiles that fall
 * in a collapsed bucket are overestimated (they read as that bucket); all
 * others keep the 1 % bound.  The collapse depends only on the highest key
 * ever seen, so it commutes with merging.
 *
 * Buckets are allocated 256 at a time, a factor of 166 between the lowest
 * and the highest value, which holds a latency distribution's whole spread:
 * a sketch's memory is set by its first samples, not by the rare extreme of
 * a long run.  Counts start 16 bits wide and widen (32, 64) when a bucket
 * needs it: a slot of a sliding window costs 512 bytes.
 *
 * Quantiles follow soakstats.h: the ceil(p * n)-th smallest value, read as
 * its bucket's value and clamped to [min, max]; the first and the n-th are
 * min and max exactly.  A struct sketch is owned by whoever declared it:
 * sketch_init() before use, sketch_release() frees its buckets.  Its fields
 * may be read; only this module writes them.
 */
#ifndef CALOPS_SKETCH_H
#define CALOPS_SKETCH_H

#include "calops.h"

#define SKETCH_ALPHA		0.01
#define SKETCH_MAX_BUCKETS	2048
#define SKETCH_MIN_VALUE	1e-9

struct sketch {
	uint64_t	 count;		/* values added, zeros included */
	uint64_t	 zero;		/* values below SKETCH_MIN_VALUE */
	double		 sum;
	double		 min, max;	/* +inf and -inf when empty */
	int32_t		 lo, hi;	/* lowest, highest non-empty key */
	int32_t		 top;		/* highest key ever added */
	int32_t		 offset;	/* key of counts[0] */
	uint32_t	 alloc;		/* buckets allocated */
	uint8_t		 width;		/* bytes a count: 2, 4 or 8 */
	void		*counts;
};

/*
 * A value ready to go into several sketches with one logarithm: the metric
 * store adds each latency to seven of them.
 */
struct sketch_value {
	double		 v;
	int32_t		 key;
	bool		 zero;
};

void	 sketch_init(struct sketch *s);
/* As sketch_init, with counts at least `bytes` (2, 4 or 8) wide from the
 * start: for a sketch that will hold many values, so it never widens. */
void	 sketch_init_width(struct sketch *s, unsigned bytes);
void	 sketch_release(struct sketch *s);
/* Empty the sketch, keeping its memory (a ring slot is reused). */
void	 sketch_reset(struct sketch *s);
/* Make dst (initialised) an exact copy of src. */
void	 sketch_copy(struct sketch *dst, const struct sketch *src);

/* 0, or -1 (and nothing added) for a negative, NaN or infinite v. */
int	 sketch_add(struct sketch *s, double v);
int	 sketch_add_n(struct sketch *s, double v, uint64_t n);
int	 sketch_prepare(double v, struct sketch_value *out);
void	 sketch_add_prepared(struct sketch *s, const struct sketch_value *sv,
	     uint64_t n);

/*
 * Add src into dst: bucket for bucket, so the result equals the sketch of
 * both sets of values (sum aside, which is a floating-point sum).
 */
void	 sketch_merge(struct sketch *dst, const struct sketch *src);
/*
 * Take src (a sketch merged into dst before) out of dst: counts exactly, so
 * merge then subtract gives back dst's buckets.  min and max cannot be
 * subtracted: they become the nearest of the old bounds and the values of
 * the lowest and highest buckets left, within alpha of the truth (the metric
 * store sets them exactly from its slots).  -1, dst untouched, when src holds
 * anything dst does not.
 */
int	 sketch_subtract(struct sketch *dst, const struct sketch *src);

/* The ceil(p * n)-th smallest value, within alpha; NAN when empty. */
double	 sketch_quantile(const struct sketch *s, double p);
uint64_t sketch_count(const struct sketch *s);
double	 sketch_min(const struct sketch *s);
double	 sketch_max(const struct sketch *s);
double	 sketch_sum(const struct sketch *s);

/* Same count, zeros, buckets, min and max (not sum, nor memory layout). */
bool	 sketch_equal(const struct sketch *a, const struct sketch *b);
/* The count in the bucket of key (tests look bucket by bucket). */
uint64_t sketch_bucket(const struct sketch *s, int32_t key);
/* The key a value goes to, and the value a key stands for. */
int32_t	 sketch_key(double v);
double	 sketch_key_value(int32_t key);
/* Bytes of bucket storage held (the struct itself aside). */
size_t	 sketch_memory(const struct sketch *s);

#endif

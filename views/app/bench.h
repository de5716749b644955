/*
 * bench.h: a hook for tests/bench/bench_console.sh, off unless
 * CALOPS_BENCH_FRAMES and CALOPS_BENCH_OUT are set (read once at start):
 * then the console times its own paints (see bench.c).
 */
#ifndef CALOPS_BENCH_H
#define CALOPS_BENCH_H

#include "calops.h"

struct app;

void	 bench_init(void);
bool	 bench_active(void);
/* Monotonic nanoseconds. */
int64_t	 bench_now(void);
/* Instead of refresh() while benchmarking: the same work, timed from t0. */
void	 bench_refresh(struct app *a, int64_t t0);

#endif

/*
 * bench.h: hooks for the benchmarks, off unless their variables are set
 * (read once at start).  CALOPS_BENCH_FRAMES and CALOPS_BENCH_OUT: the
 * console times its own paints (tests/bench/bench_console.sh);
 * CALOPS_BENCH_LAG: it writes when each live event of a lab job was
 * applied beside when its host wrote it (tests/bench/bench_ssh.sh).
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
/* Whether CALOPS_BENCH_LAG names a file (then the hook is on); an event
 * written at ts (Unix seconds, the host's) applied now; and, at the end,
 * one "ts applied" line per event to that file. */
bool	 bench_lag_init(void);
void	 bench_lag_event(double ts);
void	 bench_lag_write(void);

#endif

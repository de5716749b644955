/*
 * bench.c: the console's benchmark hook (tests/bench/bench_console.sh).
 *
 * CALOPS_BENCH_FRAMES=N: 200 ms after the first complete board is on
 * screen, paint N frames back to back, cycling the tabs by pressing Tab,
 * time each paint (erase, draw, refresh, including the write to the
 * terminal) and count the cells that differ from the screen before it
 * (untimed); 200 ms later write "start_ns end_ns cells" and one
 * "paint_ns changed" line per frame to $CALOPS_BENCH_OUT and quit.
 * CALOPS_BENCH_FULL=1 forces a full repaint (clearok) every frame.  The
 * environment is read once at start: unset, the hook costs one NULL test
 * per paint.
 */
#include "calops.h"

#include <time.h>

#include "views/app/app_int.h"
#include "views/app/bench.h"
#include "views/app/frame.h"

struct bench {
	int		 frames, done;
	bool		 full, started;
	const char	*out;
	int64_t		 start, end, *ns;
	long		*changed;
};
static struct bench *bench;

#define LAG_MAX	(4u << 20)	/* events kept: 64 MiB at most */

struct lag {
	const char	*out;
	double		*v;		/* ts, applied, ts, applied, … */
	size_t		 n, alloc;	/* doubles */
};
static struct lag *lag;

bool
bench_active(void)
{
	return bench != NULL;
}

int64_t
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Cells of newscr (the frame about to go out) unlike curscr (the screen). */
static long
bench_diff(void)
{
	cchar_t n, c;
	int y, x, cy, cx, ny, nx;
	long d = 0;

	getyx(curscr, cy, cx);
	getyx(newscr, ny, nx);
	for (y = 0; y < LINES; y++)
		for (x = 0; x < COLS; x++) {
			mvwin_wch(newscr, y, x, &n);
			mvwin_wch(curscr, y, x, &c);
			d += memcmp(&n, &c, sizeof n) != 0;
		}
	wmove(curscr, cy, cx);
	wmove(newscr, ny, nx);
	return d;
}

static void
bench_quit(struct loop *l, void *arg)
{
	FILE *f = fopen(bench->out, "w");
	int i;

	(void)arg;
	if (f != NULL) {
		fprintf(f, "%lld %lld %d\n", (long long)bench->start,
		    (long long)bench->end, LINES * COLS);
		for (i = 0; i < bench->done; i++)
			fprintf(f, "%lld %ld\n", (long long)bench->ns[i],
			    bench->changed[i]);
		fclose(f);
	}
	free(bench->ns);
	free(bench->changed);
	loop_stop(l);
}

/* Press Tab and ask for its frame at once: a key is painted at once, where
 * a change the console made itself waits for FRAME_MIN_MS (frame_due()),
 * and the frames must come back to back. */
static void
bench_next(struct loop *l, void *arg)
{
	struct app *a = arg;

	if (!bench->started)
		bench->start = bench_now();
	bench->started = true;
	app_key(a, '\t');
	loop_no_sleep(l);
}

void
bench_refresh(struct app *a, int64_t t0)
{
	int64_t t1, t2;
	long d;

	if (!bench->started || bench->done == bench->frames) {
		refresh();
		if (!bench->started && bench->ns == NULL &&
		    app_board(a)->now.valid && !app_board(a)->running) {
			bench->ns = xcalloc((size_t)bench->frames,
			    sizeof *bench->ns);
			bench->changed = xcalloc((size_t)bench->frames,
			    sizeof *bench->changed);
			loop_add_timer(a->loop, 200, bench_next, a);
		}
		return;
	}
	wnoutrefresh(stdscr);
	t1 = bench_now();
	d = bench_diff();
	if (bench->full)
		clearok(curscr, TRUE);
	t2 = bench_now();
	doupdate();
	bench->ns[bench->done] = (t1 - t0) + (bench_now() - t2);
	bench->changed[bench->done++] = d;
	if (bench->done < bench->frames)
		bench_next(a->loop, a);
	else {
		bench->end = bench_now();
		loop_add_timer(a->loop, 200, bench_quit, a);
	}
}

void
bench_init(void)
{
	const char *n = getenv("CALOPS_BENCH_FRAMES"), *o;

	if (n == NULL || (o = getenv("CALOPS_BENCH_OUT")) == NULL)
		return;
	bench = xcalloc(1, sizeof *bench);
	bench->frames = (int)strtol(n, NULL, 10);
	if (bench->frames < 1)
		bench->frames = 1;
	bench->out = o;
	bench->full = getenv("CALOPS_BENCH_FULL") != NULL;
}

bool
bench_lag_init(void)
{
	const char *o = getenv("CALOPS_BENCH_LAG");

	if (o == NULL || *o == '\0')
		return false;
	lag = xcalloc(1, sizeof *lag);
	lag->out = o;
	return true;
}

void
bench_lag_event(double ts)
{
	struct timespec now;

	if (lag == NULL || lag->n >= 2 * LAG_MAX)
		return;
	if (lag->n + 2 > lag->alloc) {
		lag->alloc = lag->alloc == 0 ? 65536 : 2 * lag->alloc;
		lag->v = xreallocarray(lag->v, lag->alloc, sizeof *lag->v);
	}
	clock_gettime(CLOCK_REALTIME, &now);
	lag->v[lag->n++] = ts;
	lag->v[lag->n++] = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

void
bench_lag_write(void)
{
	FILE *f;
	size_t i;

	if (lag == NULL)
		return;
	if ((f = fopen(lag->out, "w")) != NULL) {
		for (i = 0; i + 1 < lag->n; i += 2)
			fprintf(f, "%.6f %.6f\n", lag->v[i], lag->v[i + 1]);
		fclose(f);
	}
	free(lag->v);
	free(lag);
	lag = NULL;
}

/*
 * bench_metrics.c: the measuring half of bench_metrics.sh.
 *
 *	bench_metrics gen FILE LINES	write a soak's metrics.jsonl
 *	bench_metrics ingest FILE	parse every line and feed the store
 *	bench_metrics parse FILE	parse only
 *	bench_metrics accuracy		sketch vs exact percentiles
 *	bench_metrics rss [RATE]	1,024 latency series through 24 h
 *
 * ingest and parse print "<metric events> <fallbacks> <errors> <seconds>";
 * the others print their own tables.  Not part of ctest.
 */
#include "calops.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/lines.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "metrics/metrics.h"
#include "metrics/sketch.h"
#include "metrics/soakstats.h"
#include "proto/event.h"
#include "proto/eventfast.h"
#include "remote/lab.h"

#define T0	1700000000.0

static uint64_t rng_state = 42;

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

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A soak at 200 requests/s over 8 chips: one metric event a request
 * (ttft_ms, tpot_ms, request_ok), a resource event in 100 with labels, a
 * log line in 1000: what `calops run` records from a serving soak.
 */
static int
gen(const char *path, long lines)
{
	FILE *f = fopen(path, "w");
	double ts, drift = 0;
	long i;

	if (f == NULL) {
		perror(path);
		return 1;
	}
	for (i = 0; i < lines; i++) {
		ts = T0 + i / 200.0;
		if (i % 1000 == 999)
			fprintf(f, "{\"v\":1,\"seq\":%ld,\"ts\":%.6f,\"type\":"
			    "\"log\",\"level\":\"info\",\"msg\":\"request %ld "
			    "done in %.1f ms\"}\n", i + 1, ts, i, 300 * unif());
		else if (i % 100 == 50) {
			drift += 4096 * unif();
			fprintf(f, "{\"v\":1,\"seq\":%ld,\"ts\":%.6f,\"type\":"
			    "\"metric\",\"chip\":%ld,\"values\":{\"rss_bytes\":"
			    "%.0f,\"device_mem_bytes\":%.0f,\"kv_used\":%ld,"
			    "\"kv_capacity\":65536,\"temp_c\":%.1f,\"power_w\":"
			    "%.2f},\"labels\":{\"model\":\"m7-int8\"}}\n", i + 1,
			    ts, i % 8, 8589934592.0 + drift, 12884901888.0 +
			    drift, i % 65536, 55 + 10 * unif(),
			    150 + 50 * unif());
		} else
			fprintf(f, "{\"v\":1,\"seq\":%ld,\"ts\":%.6f,\"type\":"
			    "\"metric\",\"chip\":%ld,\"values\":{\"ttft_ms\":%.3f,"
			    "\"tpot_ms\":%.3f,\"request_ok\":%d}}\n", i + 1, ts,
			    i % 8, exp(log(280) + 0.5 * normal()),
			    exp(log(32) + 0.3 * normal()), unif() < 0.998);
	}
	if (fclose(f) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}

/* Read, parse and (with m) store every line; one result line. */
static int
ingest(const char *path, bool store)
{
	struct metrics *m = store ? metrics_new(0) : NULL;
	static struct event ev;
	struct lines l;
	const char *line;
	size_t len, nmetric = 0, nfallback = 0, nerr = 0;
	double t0, t1;
	bool cut;
	int rc, prc;

	t0 = now_seconds();
	if (lines_open(&l, path, EVENT_LINE_MAX + 1) != 0) {
		perror(path);
		return 1;
	}
	while ((rc = lines_next(&l, &line, &len, &cut)) == 1) {
		/* event_parse(), the fallbacks counted. */
		if ((prc = eventfast_parse(line, len, &ev)) == EVENT_FALLBACK) {
			nfallback++;
			prc = event_parse_jansson(line, len, &ev);
		}
		if (prc != EVENT_OK) {
			nerr++;
			continue;
		}
		if (ev.type != EVENT_METRIC)
			continue;
		nmetric++;
		if (m != NULL && metrics_add_event(m, "lab-01", &ev, NULL, 0) != 0)
			nerr++;
	}
	lines_close(&l);
	t1 = now_seconds();
	if (rc != 0) {
		perror(path);
		return 1;
	}
	printf("%zu %zu %zu %.6f\n", nmetric, nfallback, nerr, t1 - t0);
	metrics_free(m);
	return 0;
}

static void
accuracy_row(const char *name, double (*draw)(void), size_t n)
{
	static const double ps[] = { 0.5, 0.99, 0.999 };
	struct sketch s;
	double *v = xreallocarray(NULL, n, sizeof *v), exact, got;
	size_t i;

	sketch_init(&s);
	for (i = 0; i < n; i++) {
		v[i] = draw();
		sketch_add(&s, v[i]);
	}
	for (i = 0; i < nitems(ps); i++) {
		exact = soakstats_nearest_rank(v, n, ps[i]);
		got = sketch_quantile(&s, ps[i]);
		printf("    %-34s P%-5g %12.4f %12.4f %8.4f %%\n", name,
		    ps[i] * 100, exact, got, 100 * fabs(got - exact) / exact);
	}
	sketch_release(&s);
	free(v);
}

static double
draw_skewed(void)
{
	return exp(log(280) + 1.0 * normal());
}

static double
draw_bimodal(void)
{
	return unif() < 0.8 ? exp(log(25) + 0.2 * normal()) :
	    exp(log(2500) + 0.3 * normal());
}

static double
draw_pareto(void)
{
	return 10 / pow(unif(), 1 / 1.1);
}

static int
accuracy(void)
{
	printf("    %-34s %-6s %12s %12s %10s\n", "data (1,000,000 values)", "",
	    "exact", "sketch", "error");
	accuracy_row("skewed: log-normal sigma 1", draw_skewed, 1000000);
	accuracy_row("bimodal: 25 ms x 0.8, 2.5 s x 0.2", draw_bimodal,
	    1000000);
	accuracy_row("heavy tail: Pareto alpha 1.1", draw_pareto, 1000000);
	return 0;
}

/* A /proc/self/status field in KiB. */
static long
status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t n = strlen(field);
	long v = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/*
 * 64 hosts x 8 chips x (ttft_ms, tpot_ms) for 24 simulated hours, `rate`
 * requests/s a chip, the store ticked every simulated second as the
 * console does; RSS after 1 h, 12 h and 24 h.
 */
static int
rss(int rate)
{
	static const int marks[] = { 3600, 12 * 3600, 24 * 3600 };
	static double table[65536], table2[65536];
	struct metrics *m = metrics_new(0);
	char hosts[64][16];
	double t0 = now_seconds(), ts;
	int sec, h, c, r, k = 0;
	size_t i;

	for (i = 0; i < nitems(table); i++) {
		table[i] = exp(log(280) + 0.5 * normal());
		table2[i] = exp(log(32) + 0.3 * normal());
	}
	for (h = 0; h < 64; h++)
		snprintf(hosts[h], sizeof hosts[h], "lab-%02d", h);
	printf("    %-12s %10s %10s %12s %8s\n", "simulated", "VmRSS", "VmHWM",
	    "store bytes", "wall");
	printf("    %-12s %7ld KiB %7ld KiB %12s %7.1fs\n", "start",
	    status_kib("VmRSS"), status_kib("VmHWM"), "-", 0.0);
	for (sec = 0; sec < 86400; sec++) {
		for (h = 0; h < 64; h++)
			for (c = 0; c < 8; c++)
				for (r = 0; r < rate; r++) {
					ts = T0 + sec + (r + c / 8.0) / rate;
					i = rng_next() & 0xffff;
					metrics_add(m, hosts[h], c, "ttft_ms", ts,
					    table[i], NULL, 0);
					metrics_add(m, hosts[h], c, "tpot_ms", ts,
					    table2[i], NULL, 0);
				}
		metrics_tick(m, T0 + sec + 1);
		if (k < (int)nitems(marks) && sec + 1 == marks[k]) {
			printf("    %-12s %7ld KiB %7ld KiB %12zu %7.1fs\n",
			    k == 0 ? "1 h" : k == 1 ? "12 h" : "24 h",
			    status_kib("VmRSS"), status_kib("VmHWM"),
			    metrics_memory(m), now_seconds() - t0);
			fflush(stdout);
			k++;
		}
	}
	printf("    series %zu, samples %.0f\n", metrics_count(m),
	    2.0 * 64 * 8 * rate * 86400);
	metrics_free(m);
	return 0;
}

/* Stop the loop once the job is replayed. */
static void
replayed(struct loop *l, void *arg)
{
	struct labmodel *lm = arg;
	struct ljob *j = labmodel_job(lm, 0);

	if (j == NULL || !j->replaying) {
		loop_stop(l);
		return;
	}
	loop_add_timer(l, 1, replayed, lm);
}

/*
 * What a console started again does with a soak's mirror: FILE becomes the
 * mirror of a soak job in a fresh state folder (STATE), and the lab model
 * replays it: read, parse, the metric store, the alert journal.  Prints
 * the events applied and the bad lines.
 */
static int
replay(const char *file, const char *state)
{
	static const char meta[] = "{\"v\":1,\"id\":\"bench\",\"host\":"
	    "\"local\",\"kind\":\"soak\",\"gate\":9,\"chip\":-1,\"chips\":"
	    "[0,1,2,3],\"target_s\":86400,\"command\":\"bench\",\"label\":"
	    "\"bench\",\"started\":1,\"sla\":{\"ttft_ms_p99\":1500,"
	    "\"tpot_ms_p99\":60,\"success_rate_min\":0.995}}";
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	struct labmodel *lm;
	struct loop *l;
	struct lab lab;
	struct ljob *j;
	char err[512], *dir, *path;

	setenv("XDG_STATE_HOME", state, 1);
	dir = xasprintf("%s/calops/streams/local", state);
	path = xasprintf("%s/bench.json", dir);
	if (fileio_make_dirs(dir, 0700, err, sizeof err) != 0 ||
	    fileio_replace(path, meta, strlen(meta), 0600, false, err,
	    sizeof err) != 0) {
		fprintf(stderr, "bench_metrics: %s\n", err);
		return 1;
	}
	free(path);
	path = xasprintf("%s/bench.jsonl", dir);
	if (link(file, path) != 0) {
		fprintf(stderr, "bench_metrics: cannot link '%s': %s\n", path,
		    strerror(errno));
		return 1;
	}
	if (lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err) != 0) {
		fprintf(stderr, "bench_metrics: %s\n", err);
		return 1;
	}
	l = loop_new();
	/* No runner on this machine: the model's follow after the replay
	 * fails, which is not measured. */
	lm = labmodel_new(l, &lab, "/nonexistent/calops", NULL, err,
	    sizeof err);
	loop_add_timer(l, 1, replayed, lm);
	loop_run(l);
	j = labmodel_job(lm, 0);
	printf("%llu %llu\n", (unsigned long long)j->events,
	    (unsigned long long)j->bad_lines);
	labmodel_free(lm);
	lab_release(&lab);
	loop_free(l);
	free(path);
	free(dir);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "gen") == 0)
		return gen(argv[2], strtol(argv[3], NULL, 10));
	if (argc == 3 && strcmp(argv[1], "ingest") == 0)
		return ingest(argv[2], true);
	if (argc == 3 && strcmp(argv[1], "parse") == 0)
		return ingest(argv[2], false);
	if (argc == 2 && strcmp(argv[1], "accuracy") == 0)
		return accuracy();
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "rss") == 0)
		return rss(argc == 3 ? (int)strtol(argv[2], NULL, 10) : 2);
	if (argc == 4 && strcmp(argv[1], "replay") == 0)
		return replay(argv[2], argv[3]);
	fprintf(stderr, "usage: bench_metrics gen FILE LINES | ingest FILE | "
	    "parse FILE | accuracy | rss [RATE] | replay FILE STATE\n");
	return 2;
}

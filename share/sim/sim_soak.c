/* sim_soak.c: `stress`, a soak run (runbook §13.3) into soak/<run>/. */
#include "calops.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics/soakstats.h"
#include "sim_common.h"
#include "ws/hashtree.h"

/* The memory pool's blocks per chip: pool_used is reported against it. */
#define SIM_POOL_BLOCKS	96

#define SOAK_REL	"07-serving/soak"
/* At 16 bytes per request this caps the kept latencies at 256 MiB. */
#define MAX_REQUESTS	16e6

/* One chip's character and counters. */
struct chip {
	int	id;
	double	ttft_f, tpot_f, temp_off, rss_off, dev_off;
	long	errors, resets;
};

/*
 * A run in progress.  Events stream to stdout and metrics.jsonl as they
 * happen; what is kept is what the summary needs: the latencies of every
 * successful request (nearest rank needs them all: 16 bytes a request, 2.8
 * MB for 24 h at 2 req/s) and the memory samples for the leak rule (32
 * bytes per chip per --interval, 46 KB a chip for 24 h at 60 s).
 */
struct soak {
	struct sim	*s;
	const char	*run;
	struct rng	 mix, lat, err, mem, env;
	struct chip	 chips[SIM_MAX_CHIPS];
	double		 mean_prompt, end;
	json_int_t	 kv_capacity;
	double		*ttft, *tpot;
	size_t		 nlat, alat;
	size_t		 requests, ok;
	struct series	 rss, dev;
};

/* ---- the load ---- */

static int
int_list(json_t *v, json_int_t lo, json_int_t hi, size_t max, json_int_t *out,
    size_t *n)
{
	json_t *x;
	size_t i;

	if (!json_is_array(v) || json_array_size(v) == 0 ||
	    json_array_size(v) > max)
		return -1;
	json_array_foreach(v, i, x) {
		if (!json_is_integer(x) || json_integer_value(x) < lo ||
		    json_integer_value(x) > hi)
			return -1;
		out[i] = json_integer_value(x);
	}
	*n = json_array_size(v);
	return 0;
}

/* One key of --matrix; the command line wins over the file. */
static int
matrix_key(struct sim *s, const char *key, json_t *v)
{
	json_int_t chips[SIM_MAX_CHIPS];
	size_t i, n;

	if (strcmp(key, "rate") == 0) {
		if (!json_is_number(v) || json_number_value(v) <= 0)
			return -1;
		if (!s->o.have_rate)
			s->o.rate = json_number_value(v);
	} else if (strcmp(key, "chips") == 0) {
		if (int_list(v, 0, 1023, SIM_MAX_CHIPS, chips, &n) == -1)
			return -1;
		for (i = 0; !s->o.have_chips && i < n; i++)
			s->o.chips[i] = (int)chips[i];
		if (!s->o.have_chips)
			s->o.nchips = n;
	} else if (strcmp(key, "prompt_tokens") == 0)
		return int_list(v, 1, 1 << 24, SIM_MAX_PROMPTS,
		    s->o.prompt_tokens, &s->o.nprompt);
	else if (strcmp(key, "output_tokens") == 0 ||
	    strcmp(key, "concurrency") == 0) {
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			return -1;
		*(key[0] == 'o' ? &s->o.output_tokens : &s->o.concurrency) =
		    json_integer_value(v);
	} else
		sim_log(s, "warn", "matrix '%s': key '%s' ignored", s->o.matrix,
		    key);
	return 0;
}

static int
load_matrix(struct sim *s, char *err, size_t len)
{
	const char *key;
	struct doc d;
	json_t *v;
	int rc = 0;

	if (s->o.matrix == NULL)
		return 0;
	if (sim_read_doc(s->o.matrix, true, &d, err, len) == -1)
		return -1;
	if (!json_is_object(d.root)) {
		errbuf_set(err, len, "matrix '%s' is not a mapping", s->o.matrix);
		rc = -1;
	}
	json_object_foreach(d.root, key, v) {
		if (rc == 0 && matrix_key(s, key, v) == -1) {
			errbuf_set(err, len, "matrix '%s': bad value for '%s' "
			    "(rate: number > 0; chips, prompt_tokens: lists of "
			    "integers; output_tokens, concurrency: integers >= 1)",
			    s->o.matrix, key);
			rc = -1;
		}
	}
	doc_release(&d);
	return rc;
}

/* ---- the simulation ---- */

static void
soak_init(struct soak *k, struct sim *s, const char *run)
{
	struct rng cr;
	size_t i;

	memset(k, 0, sizeof *k);
	k->s = s;
	k->run = run;
	rng_init(&k->mix, s->o.seed, "soak/mix");
	rng_init(&k->lat, s->o.seed, "soak/latency");
	rng_init(&k->err, s->o.seed, "soak/errors");
	rng_init(&k->mem, s->o.seed, "soak/memory");
	rng_init(&k->env, s->o.seed, "soak/environment");
	rng_init(&cr, s->o.seed, "soak/chips");
	for (i = 0; i < s->o.nchips; i++) {
		k->chips[i].id = s->o.chips[i];
		k->chips[i].ttft_f = fmin(fmax(1 + 0.04 * rng_gauss(&cr), 0.9),
		    1.1);
		k->chips[i].tpot_f = fmin(fmax(1 + 0.02 * rng_gauss(&cr), 0.95),
		    1.05);
		k->chips[i].temp_off = fmin(fmax(2.0 * rng_gauss(&cr), -4), 4);
		k->chips[i].rss_off = 4e6 * rng_gauss(&cr);
		k->chips[i].dev_off = 2e6 * rng_gauss(&cr);
	}
	for (i = 0; i < s->o.nprompt; i++)
		k->mean_prompt += (double)s->o.prompt_tokens[i] /
		    (double)s->o.nprompt;
	k->kv_capacity = s->have_context ? 2 * s->max_context : 16384;
	k->end = s->t0 + s->o.duration_s;
}

static void
keep_latency(struct soak *k, double ttft, double tpot)
{
	if (k->nlat == k->alat) {
		k->alat = k->alat == 0 ? 4096 : k->alat * 2;
		k->ttft = xreallocarray(k->ttft, k->alat, sizeof *k->ttft);
		k->tpot = xreallocarray(k->tpot, k->alat, sizeof *k->tpot);
	}
	k->ttft[k->nlat] = ttft;
	k->tpot[k->nlat++] = tpot;
}

/*
 * One request, at the current time.  Latencies are log-normal around the
 * medians, longer for longer prompts, with a queueing tail; every draw is
 * made whether or not the request fails, so --error-rate changes nothing
 * else.
 */
static void
request(struct soak *k)
{
	struct sim *s = k->s;
	struct chip *c = &k->chips[rng_u64(&k->mix) % s->o.nchips];
	double plen = (double)s->o.prompt_tokens[rng_u64(&k->mix) %
	    s->o.nprompt];
	double ttft, tpot, tail, queued, slow, extra, fail, which;
	json_t *ev, *values;

	ttft = s->o.ttft_ms * c->ttft_f *
	    (0.55 + 0.45 * plen / k->mean_prompt) *
	    exp(0.22 * rng_gauss(&k->lat));
	tail = rng_uniform(&k->lat);
	queued = rng_exp(&k->lat);
	if (tail < 0.012)
		ttft += s->o.ttft_ms * (0.3 + 0.5 * queued);
	tpot = s->o.tpot_ms * c->tpot_f * exp(0.045 * rng_gauss(&k->lat));
	slow = rng_uniform(&k->lat);
	extra = rng_uniform(&k->lat);
	if (slow < 0.02)
		tpot += 0.12 * s->o.tpot_ms * extra;
	ttft = round(ttft * 10) / 10;
	tpot = round(tpot * 100) / 100;
	fail = rng_uniform(&k->err);
	which = rng_uniform(&k->err);
	k->requests++;
	ev = sim_event(s, "metric");
	json_object_set_new(ev, "chip", json_integer(c->id));
	if (fail >= s->o.error_rate) {
		k->ok++;
		keep_latency(k, ttft, tpot);
		values = json_pack("{sfsfsi}", "ttft_ms", ttft, "tpot_ms", tpot,
		    "request_ok", 1);
		json_object_set_new(ev, "values", values);
	} else {
		/* A failed request produced no token: no latency to report. */
		c->errors++;
		c->resets += which >= 0.9;
		json_object_set_new(ev, "values", json_pack("{si}", "request_ok",
		    0));
		json_object_set_new(ev, "labels", json_pack("{ss}", "error",
		    which < 0.6 ? "CALRT_E_WAIT_TIMEOUT" : which < 0.9 ?
		    "CALRT_E_SUBMIT_BUSY" : "CALRT_E_DEVICE_RESET"));
	}
	sim_emit(s, ev);
}

/* The resource samples of every chip, at the current time. */
static void
sample(struct soak *k)
{
	struct sim *s = k->s;
	double h = (s->now - s->t0) / 3600.0, rss, dev, temp, power, warm;
	struct chip *c;
	json_t *ev;
	size_t i;

	warm = fmin(1.0, (s->now - s->t0) / fmax(s->o.duration_s * 0.02, 1.0));
	for (i = 0; i < s->o.nchips; i++) {
		c = &k->chips[i];
		rss = 1.30e9 + 1.8e8 * warm + c->rss_off +
		    ((s->o.leak_in & LEAK_RSS) ? s->o.leak_rate * h : 0) +
		    2.5e6 * rng_gauss(&k->mem);
		dev = 3.15e9 + 9.6e7 * warm + c->dev_off +
		    ((s->o.leak_in & LEAK_DEVICE) ? s->o.leak_rate * h : 0) +
		    9e5 * rng_gauss(&k->mem);
		temp = 58.0 + c->temp_off + 4.0 * warm +
		    1.2 * sin(2 * M_PI * h / 24.0) + s->o.temp_drift * h +
		    0.6 * rng_gauss(&k->env);
		power = 36.0 + 2.0 * warm + 3.0 * rng_uniform(&k->env) +
		    0.1 * (temp - 60.0);
		soakstats_series_add(&k->rss, s->now, round(rss));
		soakstats_series_add(&k->dev, s->now, round(dev));
		ev = sim_event(s, "metric");
		json_object_set_new(ev, "chip", json_integer(c->id));
		json_object_set_new(ev, "values",
		    json_pack("{sIsIsIsIsIsIsfsfsIsI}", "rss_bytes",
			(json_int_t)round(rss), "device_mem_bytes",
			(json_int_t)round(dev), "kv_used",
			(json_int_t)(900 + 2600 * rng_uniform(&k->env)),
			"kv_capacity", k->kv_capacity, "pool_used",
			(json_int_t)(40 + 24 * rng_uniform(&k->env)),
			"pool_capacity", (json_int_t)SIM_POOL_BLOCKS, "temp_c",
			round(temp * 10) / 10, "power_w",
			round(power * 10) / 10, "errors", (json_int_t)c->errors,
			"resets", (json_int_t)c->resets));
		sim_emit(s, ev);
	}
}

/* Requests arrive as a Poisson process; resources are sampled every
 * --interval, at the start and at the very end, so the run's span is its
 * duration.  Returns false when a signal stopped it. */
static bool
play(struct soak *k)
{
	struct sim *s = k->s;
	double tick = s->t0, next;
	unsigned long n = 0;

	next = s->t0 + rng_exp(&k->mix) / s->o.rate;
	for (;;) {
		if (next < tick && next < k->end) {
			if (!sim_wait_until(s, next))
				return false;
			request(k);
			next += rng_exp(&k->mix) / s->o.rate;
			continue;
		}
		if (!sim_wait_until(s, tick))
			return false;
		sample(k);
		sim_progress(s, "soak", tick - s->t0, s->o.duration_s, "s");
		if (tick >= k->end)
			return true;
		n++;
		tick = fmin(s->t0 + (double)n * s->o.interval_s, k->end);
	}
}

/* ---- the summary ---- */

static json_t *
leak_json(struct series *sr, const char *name, json_t *reasons)
{
	struct leak_verdict lv;
	char *why;

	soakstats_leak_rule(sr, &lv);
	if (lv.evaluated && lv.growing) {
		why = xasprintf("%s grows %.1f MiB (threshold %.1f MiB)", name,
		    lv.growth / 1048576.0, lv.threshold / 1048576.0);
		json_array_append_new(reasons, json_string(why));
		free(why);
	}
	return json_pack("{sbsbsIsI}", "evaluated", lv.evaluated, "growing",
	    lv.growing, "growth_bytes", (json_int_t)lv.growth,
	    "threshold_bytes", (json_int_t)lv.threshold);
}

static void
reason(json_t *reasons, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	json_array_append_new(reasons, json_string(msg));
	free(msg);
}

/* Nearest-rank percentiles and the success rate, as G9 computes them. */
static void
add_stats(struct soak *k, json_t *o, json_t *reasons)
{
	struct sim *s = k->s;
	double ok = k->requests > 0 ? (double)k->ok / (double)k->requests : 0;
	double t50, t99, p50, p99;

	json_object_set_new(o, "requests", json_integer((json_int_t)k->requests));
	json_object_set_new(o, "failed", json_integer((json_int_t)(k->requests -
	    k->ok)));
	json_object_set_new(o, "success_rate", json_real(round(ok * 1e6) / 1e6));
	if (k->nlat == 0) {
		reason(reasons, "no successful request");
		return;
	}
	t50 = soakstats_nearest_rank(k->ttft, k->nlat, 0.50);
	t99 = soakstats_nearest_rank(k->ttft, k->nlat, 0.99);
	p50 = soakstats_nearest_rank(k->tpot, k->nlat, 0.50);
	p99 = soakstats_nearest_rank(k->tpot, k->nlat, 0.99);
	json_object_set_new(o, "ttft_ms_p50", json_real(t50));
	json_object_set_new(o, "ttft_ms_p99", json_real(t99));
	json_object_set_new(o, "tpot_ms_p50", json_real(p50));
	json_object_set_new(o, "tpot_ms_p99", json_real(p99));
	if (!s->have_sla)
		return;
	if (ok < s->sla_ok)
		reason(reasons, "success rate %.4f is under the SLA's %.4f", ok,
		    s->sla_ok);
	if (t99 > s->sla_ttft)
		reason(reasons, "TTFT P99 %.1f ms breaks the SLA's %.1f ms", t99,
		    s->sla_ttft);
	if (p99 > s->sla_tpot)
		reason(reasons, "TPOT P99 %.2f ms breaks the SLA's %.1f ms", p99,
		    s->sla_tpot);
}

static json_t *
workload_json(const struct sim *s)
{
	json_t *w = json_object(), *p = json_array();
	size_t i;

	json_object_set_new(w, "concurrency", json_integer(s->o.concurrency));
	for (i = 0; i < s->o.nprompt; i++)
		json_array_append_new(p, json_integer(s->o.prompt_tokens[i]));
	json_object_set_new(w, "prompt_tokens", p);
	json_object_set_new(w, "output_tokens", json_integer(s->o.output_tokens));
	json_object_set_new(w, "rate_rps", json_real(s->o.rate));
	return w;
}

/* summary.json, shaped as the example workspaces' (plus a few extras). */
static json_t *
summary_json(struct soak *k, const char *tree, bool stopped)
{
	struct sim *s = k->s;
	json_t *o = json_object(), *reasons = json_array(), *chips, *mem;
	size_t i;

	json_object_set_new(o, "run", json_string(k->run));
	json_object_set_new(o, "tool", json_string(SIM_TOOL " " CALOPS_VERSION));
	json_object_set_new(o, "calbin_tree_sha256", json_string(tree));
	json_object_set_new(o, "workload", workload_json(s));
	chips = json_array();
	for (i = 0; i < s->o.nchips; i++)
		json_array_append_new(chips, json_integer(s->o.chips[i]));
	json_object_set_new(o, "chips", chips);
	json_object_set_new(o, "started_ts", json_real(s->t0));
	json_object_set_new(o, "ended_ts", json_real(round(s->now * 1e3) / 1e3));
	json_object_set_new(o, "duration_s", json_real(round((s->now - s->t0) *
	    1e3) / 1e3));
	add_stats(k, o, reasons);
	mem = json_object();
	json_object_set_new(mem, "rss_bytes", leak_json(&k->rss, "rss_bytes",
	    reasons));
	json_object_set_new(mem, "device_mem_bytes", leak_json(&k->dev,
	    "device_mem_bytes", reasons));
	json_object_set_new(o, "memory", mem);
	if (s->have_sla)
		json_object_set(o, "sla", s->sla);
	else
		reason(reasons, "no SLA in G0 to judge by");
	json_object_set_new(o, "verdict", json_string(json_array_size(reasons) ==
	    0 ? "pass" : s->have_sla ? "fail" : "unknown"));
	json_object_set_new(o, "reasons", reasons);
	json_object_set_new(o, "seed", json_integer((json_int_t)s->o.seed));
	/* Only a completed run is evidence (workspace.md, G9's outcome). */
	json_object_set_new(o, "outcome", json_string(stopped ? "killed" :
	    "completed"));
	if (stopped)
		json_object_set_new(o, "interrupted", json_true());
	return o;
}

/* ---- the run folder ---- */

/* The default name: the UTC day and the planned span, as the examples have
 * them (2026-09-21-24h), then the job's id when a calops job runs it
 * (2026-09-21-24h-20260921-101500-a1b2c3): a second soak of the day is a
 * folder of its own, never the first one's. */
static char *
run_name(const struct sim *s)
{
	const char *job = getenv("CALOPS_JOB");
	double d = s->o.duration_s;
	char day[32], span[48];

	sim_iso(s->t0, day, sizeof day);
	day[10] = '\0';
	if (fmod(d, 3600) == 0)
		snprintf(span, sizeof span, "%.0fh", d / 3600);
	else if (fmod(d, 60) == 0)
		snprintf(span, sizeof span, "%.0fm", d / 60);
	else
		snprintf(span, sizeof span, "%.0fs", ceil(d));
	/* A job id is [A-Za-z0-9._-], not hidden (protocol.md §2). */
	if (job != NULL && job[0] != '\0' && job[0] != '.' &&
	    strlen(job) <= 64 && strspn(job, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == strlen(job))
		return xasprintf("%s-%s-%s", day, span, job);
	return xasprintf("%s-%s", day, span);
}

static bool
valid_name(const char *name)
{
	return name[0] != '\0' && name[0] != '.' && strchr(name, '/') == NULL &&
	    strlen(name) <= 200;
}

/* Paths of a run: built in a hidden folder, renamed into place when it
 * ends, never over another run's folder. */
struct paths {
	char	*soak, *partial, *final, *metrics;
};

static void
paths_init(struct paths *p, const struct sim *s, const char *run)
{
	p->soak = xasprintf("%s/%s", s->ws, SOAK_REL);
	p->partial = xasprintf("%s/.%s.partial", p->soak, run);
	p->final = xasprintf("%s/%s", p->soak, run);
	p->metrics = xasprintf("%s/metrics.jsonl", p->partial);
}

static void
paths_release(struct paths *p)
{
	free(p->soak);
	free(p->partial);
	free(p->final);
	free(p->metrics);
}

/* A fresh hidden folder with metrics.jsonl open as the event tee; a run
 * folder of that name already there is another run's evidence: refused. */
static int
open_partial(struct sim *s, const struct paths *p, char *err, size_t len)
{
	struct stat st;

	if (lstat(p->final, &st) == 0) {
		errbuf_set(err, len, "run folder '%s' exists: a run never writes "
		    "into another's (name this one with --run)", p->final);
		return -1;
	}
	if (sim_mkdirs(p->soak, err, len) == -1 ||
	    sim_rm_flat(p->partial, err, len) == -1)
		return -1;
	if (mkdir(p->partial, 0777) == -1) {
		errbuf_set(err, len, "cannot create '%s': %s", p->partial,
		    strerror(errno));
		return -1;
	}
	if ((s->tee = fopen(p->metrics, "we")) == NULL) {
		errbuf_set(err, len, "cannot create '%s': %s", p->metrics,
		    strerror(errno));
		return -1;
	}
	return 0;
}

static int
close_tee(struct sim *s, const struct paths *p, char *err, size_t len)
{
	bool bad = s->tee_failed || fflush(s->tee) == EOF ||
	    fsync(fileno(s->tee)) == -1;

	if (fclose(s->tee) == EOF)
		bad = true;
	s->tee = NULL;
	if (bad)
		errbuf_set(err, len, "cannot write '%s': %s", p->metrics,
		    strerror(errno));
	return bad ? -1 : 0;
}

/* The finished run into its folder, never over one that came meanwhile:
 * that one is left alone and this run stays in its hidden folder. */
static int
swap_in(const struct paths *p, char *err, size_t len)
{
	int rc = renameat2(AT_FDCWD, p->partial, AT_FDCWD, p->final,
	    RENAME_NOREPLACE);

	/* Where the file system has no RENAME_NOREPLACE, rename(2) still
	 * refuses to replace a folder that holds files, as a run's does. */
	if (rc == -1 && errno == EINVAL)
		rc = rename(p->partial, p->final);
	if (rc == -1) {
		errbuf_set(err, len, "cannot rename '%s' to '%s': %s%s",
		    p->partial, p->final, strerror(errno), errno == EEXIST ?
		    " (another run made it meanwhile: this one is kept where "
		    "it is)" : "");
		return -1;
	}
	return 0;
}

/* ---- the command ---- */

static int
finish(struct soak *k, const struct paths *p, const char *tree, bool stopped)
{
	static const char *const keys[] = { "duration_s", "requests",
	    "success_rate", "ttft_ms_p99", "tpot_ms_p99", "verdict", "reasons" };
	struct sim *s = k->s;
	json_t *sum = summary_json(k, tree, stopped), *brief, *v;
	char err[512], *path = xasprintf("%s/summary.json", p->partial);
	const char *verdict;
	size_t i;
	int rc;

	if (sim_write_json(path, sum, err, sizeof err) == -1) {
		free(path);
		json_decref(sum);
		return sim_fail(s, "%s", err);
	}
	free(path);
	verdict = json_string_value(json_object_get(sum, "verdict"));
	brief = json_object();
	json_object_set_new(brief, "run", json_string(k->run));
	json_object_set_new(brief, "run_dir", json_sprintf("%s/%s", SOAK_REL,
	    k->run));
	for (i = 0; i < nitems(keys); i++)
		if ((v = json_object_get(sum, keys[i])) != NULL)
			json_object_set(brief, keys[i], v);
	rc = sim_result(s, stopped ? "error" : strcmp(verdict, "pass") == 0 ?
	    "pass" : "fail", brief, json_pack("[ss]", "summary.json",
	    "metrics.jsonl"));
	json_decref(sum);
	if (close_tee(s, p, err, sizeof err) == -1 ||
	    swap_in(p, err, sizeof err) == -1) {
		sim_log(s, "error", "%s", err);
		return 2;
	}
	return rc;
}

static int
soak(struct sim *s, const char *run, const struct paths *p)
{
	char err[512];
	struct soak *k;
	struct tree t;
	bool done;
	int rc;

	if (sim_tree_hash(s, &t, err, sizeof err) == -1 ||
	    load_matrix(s, err, sizeof err) == -1) {
		hashtree_release(&t);
		return sim_fail(s, "%s", err);
	}
	if (s->o.rate * s->o.duration_s > MAX_REQUESTS) {
		hashtree_release(&t);
		return sim_fail(s, "%.0f requests are too many to keep for exact "
		    "percentiles (at most %.0f): lower --rate or --duration",
		    s->o.rate * s->o.duration_s, MAX_REQUESTS);
	}
	if (s->source_msg[0] != '\0')
		sim_log(s, "warn", "%s", s->source_msg);
	k = xmalloc(sizeof *k);
	soak_init(k, s, run);
	sim_log(s, "info", "soak '%s': %.0f s on %zu chip(s) at %g req/s, seed "
	    "%llu, calbin tree %.12s…", run, s->o.duration_s, s->o.nchips,
	    s->o.rate, (unsigned long long)s->o.seed, t.hex);
	done = play(k);
	if (!done)
		sim_log(s, "warn", "stopped by a signal at %.0f s of %.0f s",
		    s->now - s->t0, s->o.duration_s);
	rc = finish(k, p, t.hex, !done);
	free(k->ttft);
	free(k->tpot);
	soakstats_series_release(&k->rss);
	soakstats_series_release(&k->dev);
	free(k);
	hashtree_release(&t);
	return rc;
}

int
sim_stress(struct sim *s)
{
	char err[512], *run;
	struct paths p;
	int rc;

	run = s->o.run != NULL ? xstrdup(s->o.run) : run_name(s);
	if (!valid_name(run)) {
		rc = sim_fail(s, "bad run name '%s': a folder name, not hidden",
		    run);
		free(run);
		return rc;
	}
	paths_init(&p, s, run);
	if (open_partial(s, &p, err, sizeof err) == -1)
		rc = sim_fail(s, "%s", err);
	else if ((rc = soak(s, run, &p)) == 2 && s->tee != NULL) {
		/* Failed before the run was complete: leave nothing behind. */
		fclose(s->tee);
		s->tee = NULL;
		sim_rm_flat(p.partial, err, sizeof err);
	}
	paths_release(&p);
	free(run);
	return rc;
}

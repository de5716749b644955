/* g09_serving.c: G9, service conformance, load and soak (runbook §13). */
#include "calops.h"

#include <dirent.h>
#include <math.h>
#include <unistd.h>

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"
#include "metrics/soakstats.h"

#define API "07-serving/conformance/api-matrix.json"
#define PERF "06-runtime/performance/perf-matrix.json"
#define SOAK "07-serving/soak"
#define DAY_S 86400.0

static void
check_api(struct gate_result *gr)
{
	static const char *const needed[] = { "stream", "non_stream", "greedy",
	    "sampling", "stop_token", "stop_string", "logprobs", "cancel",
	    "deadline", "overlong_reject", "concurrent_slots", "shutdown" };
	static const char *const undeclarable[] = { "kv_state",
	    "prompt_sharing" };
	const struct artifact *a = artifact_doc(gr, API);
	json_t *features, *f;
	const char *name;
	size_t i;
	char *ptr;

	if (a == NULL ||
	    (features = query_object(
		 gr, "G9.api", a, a->doc.root, "", "features")) == NULL)
		return;
	gate_judged(gr, "G9.api", NULL);
	for (i = 0; i < nitems(needed); i++)
		if (json_object_get(features, needed[i]) == NULL)
			query_gate_at(gr, SEV_ERROR, "G9.api", a, "/features",
			    "feature '%s' is not in the matrix", needed[i]);
	json_object_foreach(features, name, f) {
		ptr = doc_ptr_key("/features", name);
		if (!json_is_boolean(json_object_get(f, "declared")) ||
		    !json_is_boolean(json_object_get(f, "passed")))
			query_gate_at(gr, SEV_ERROR, "G9.api", a, ptr,
			    "'%s' needs boolean 'declared' and 'passed'", name);
		else if (json_is_true(json_object_get(f, "declared")) &&
		    !json_is_true(json_object_get(f, "passed")))
			query_gate_at(gr, SEV_ERROR, "G9.api", a, ptr,
			    "'%s' is declared but did not pass", name);
		free(ptr);
	}
	for (i = 0; i < nitems(undeclarable); i++) {
		f = json_object_get(features, undeclarable[i]);
		if (json_is_true(json_object_get(f, "declared"))) {
			ptr = doc_ptr_key("/features", undeclarable[i]);
			query_gate_at(gr, SEV_ERROR, "G9.api", a, ptr,
			    "'%s' is declared "
			    "but not implemented (runbook §13.1)",
			    undeclarable[i]);
			free(ptr);
		}
	}
}

static bool
has_cell(json_t *cells, json_int_t prompt, json_int_t output, json_int_t conc)
{
	json_t *c;
	size_t i;

	json_array_foreach(cells, i, c)
		if (json_integer_value(json_object_get(c, "prompt")) == prompt &&
		    json_integer_value(json_object_get(c, "output")) == output &&
		    json_integer_value(json_object_get(c, "concurrency")) == conc)
			return true;
	return false;
}

static void
check_perf(struct eval *ev, struct gate_result *gr)
{
	static const char *const nums[] = { "ttft_ms_p50", "ttft_ms_p99",
	    "tpot_ms_p50", "tpot_ms_p99", "ok_rate" };
	json_int_t prompts[] = { 1, 16, 128, 512, 2048, 4096, 0 },
	    outputs[] = { 1, 32, 256 }, conc[] = { 1, 2, 4, 8 },
	    pairs[nitems(prompts) * nitems(outputs)][2], v;
	const struct artifact *a;
	json_t *cells, *c;
	size_t i, k, n;
	char *ptr;
	double d;

	if ((a = artifact_doc_needed(gr, PERF, "G9.perf", SEV_ERROR,
	    "perf-matrix.json is missing")) == NULL)
		return;
	if ((cells = query_array(gr, "G9.perf", a, a->doc.root, "", "cells")) ==
	    NULL)
		return;
	json_array_foreach(cells, i, c) {
		ptr = doc_ptr_index("/cells", i);
		query_int(gr, "G9.perf", a, c, ptr, "prompt", &v);
		query_int(gr, "G9.perf", a, c, ptr, "output", &v);
		query_int(gr, "G9.perf", a, c, ptr, "concurrency", &v);
		for (k = 0; k < nitems(nums); k++)
			query_num(gr, "G9.perf", a, c, ptr, nums[k], &d);
		free(ptr);
	}
	if (!ev->src.have_targets) {
		gate_skip(gr, "G9.perf", "00-source/source-manifest.json",
		    "/targets/context", "coverage check skipped: G0's targets are "
		    "missing or invalid");
		return;
	}
	prompts[6] = ev->src.max_context - 1;
	n = gate_capped_pairs(prompts, nitems(prompts), outputs,
	    nitems(outputs), ev->src.max_context, pairs);
	for (i = 0; i < n; i++)
		for (k = 0; k < nitems(conc); k++)
			if (!has_cell(cells, pairs[i][0], pairs[i][1], conc[k]))
				query_gate_at(gr, SEV_ERROR, "G9.perf", a,
				    "/cells",
				    "no cell for prompt %lld output %lld "
				    "concurrency %lld",
				    (long long)pairs[i][0],
				    (long long)pairs[i][1], (long long)conc[k]);
}

/* The samples of one soak run, from its metric events. */
struct soak {
	struct series	ttft, tpot, ok, rss, dev;
	double		t0, t1;
	const char	*rel;
};

/* One sample the rules read: a finite number when present (workspace.md,
 * G9: a corrupt sample is corrupt evidence, an error, never dropped). */
static void
sample(struct gate_result *gr, struct soak *s, json_t *values, size_t line,
    const char *key, double t, struct series *into)
{
	json_t *v = json_object_get(values, key);
	char where[48];

	if (v == NULL)
		return;
	if (json_is_number(v) && isfinite(json_number_value(v))) {
		soakstats_series_add(into, t, json_number_value(v));
		return;
	}
	artifact_jsonl_where(gr, line, key, where, sizeof where);
	gate_add(gr, SEV_ERROR, "G9.parse", s->rel, where,
	    "sample '%s' is not a number: corrupt evidence", key);
}

static void
metric_line(struct gate_result *gr, json_t *o, size_t line, void *arg)
{
	struct soak *s = arg;
	json_t *values, *ts;
	char where[48];
	double t;

	/* Every protocol event has a type; a line without one is corrupt,
	 * not another kind of event. */
	if (!json_is_string(json_object_get(o, "type"))) {
		artifact_jsonl_where(gr, line, "type", where, sizeof where);
		gate_add(gr, SEV_ERROR, "G9.parse", s->rel, where,
		    "event without a string 'type'");
		return;
	}
	if (strcmp(json_string_value(json_object_get(o, "type")), "metric") != 0)
		return;
	values = json_object_get(o, "values");
	ts = json_object_get(o, "ts");
	if (!json_is_object(values) || !json_is_number(ts)) {
		artifact_jsonl_where(gr, line, json_is_number(ts) ? "values" :
		    "ts", where, sizeof where);
		gate_add(gr, SEV_ERROR, "G9.parse", s->rel, where,
		    "metric event without a numeric 'ts' and a 'values' object");
		return;
	}
	t = json_number_value(ts);
	s->t0 = fmin(s->t0, t);
	s->t1 = fmax(s->t1, t);
	sample(gr, s, values, line, "ttft_ms", t, &s->ttft);
	sample(gr, s, values, line, "tpot_ms", t, &s->tpot);
	sample(gr, s, values, line, "request_ok", t, &s->ok);
	sample(gr, s, values, line, "rss_bytes", t, &s->rss);
	sample(gr, s, values, line, "device_mem_bytes", t, &s->dev);
}

/* How a run ended, as its summary says (workspace.md, G9): only a completed
 * run is evidence.  A summary without `outcome` predates it: completed. */
enum outcome {
	OUTCOME_COMPLETED,
	OUTCOME_FAILED,
	OUTCOME_KILLED,
	OUTCOME_RUNNING,
	OUTCOME_BAD,
};

static enum outcome
run_outcome(struct gate_result *gr, const struct artifact *sum)
{
	static const char *const names[] = { "completed", "failed", "killed",
	    "running" };
	json_t *v;
	size_t i;

	if (sum == NULL || !json_is_object(sum->doc.root) ||
	    (v = json_object_get(sum->doc.root, "outcome")) == NULL)
		return OUTCOME_COMPLETED;
	for (i = 0; json_is_string(v) && i < nitems(names); i++)
		if (strcmp(json_string_value(v), names[i]) == 0)
			return (enum outcome)i;
	query_gate_at(gr, SEV_ERROR, "G9.soak", sum, "/outcome", "outcome "
	    "must be one of completed, failed, killed or running");
	return OUTCOME_BAD;
}

/* The info finding that says why a run that did not complete is no
 * evidence, with how far it got. */
static void
no_evidence(struct gate_result *gr, const struct soak *s, const char *run,
    enum outcome o)
{
	static const char *const said[] = { "completed after", "failed after",
	    "was killed after", "is still running at", "has a bad outcome at" };
	char span[32];

	if (s->t1 >= s->t0)
		snprintf(span, sizeof span, "%.1f h", (s->t1 - s->t0) / 3600.0);
	else
		snprintf(span, sizeof span, "no sample");
	gate_add(gr, SEV_INFO, "G9.duration", s->rel, "", "run '%s' %s %s: no "
	    "evidence", run, said[o], span);
}

static double
mean(const struct series *s)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		sum += s->v[i];
	return s->n > 0 ? sum / (double)s->n : NAN;
}

/* A summary value must agree with the samples within 2 %. */
static void
agree(struct gate_result *gr, const struct artifact *sum, const char *key,
    double computed)
{
	char *ptr = doc_ptr_key("", key);
	double claimed;

	if (query_num(gr, "G9.soak", sum, sum->doc.root, "", key, &claimed) &&
	    fabs(claimed - computed) > 0.02 * fabs(computed) + 1e-12)
		query_gate_at(gr, SEV_ERROR, "G9.soak", sum, ptr,
		    "summary says %s %g, the samples give %g", key, claimed,
		    computed);
	free(ptr);
}

static void
check_leak(struct gate_result *gr, const char *rel, struct series *s,
    const char *name, struct leak_verdict *out)
{
	struct leak_verdict lv;

	if (s->n == 0)
		return;
	soakstats_leak_rule(s, &lv);
	*out = lv;
	/* Too short a run is not judged, but it does not make a longer run
	 * unjudged either: a warning, not a skip. */
	if (!lv.evaluated) {
		gate_add(gr, SEV_WARN, "G9.leak", rel, "", "%s: too few samples "
		    "to judge growth over 12 windows", name);
		return;
	}
	gate_judged(gr, "G9.leak", NULL);
	if (lv.growing)
		gate_add(gr, SEV_ERROR, "G9.leak", rel, "", "%s grows: window "
		    "medians never decrease and rise %.0f bytes (%.2f MiB), over "
		    "the %.0f-byte threshold", name, lv.growth,
		    lv.growth / 1048576.0, lv.threshold);
}

/* A new record of run in the evaluation, for the decision record; valid
 * until the next one. */
static struct soak_run *
run_record(struct eval *ev, const char *run)
{
	struct soak_run *r;

	ev->soak = xreallocarray(ev->soak, ev->nsoak + 1, sizeof *ev->soak);
	r = &ev->soak[ev->nsoak++];
	memset(r, 0, sizeof *r);
	r->name = xstrdup(run);
	r->t0 = INFINITY;
	r->t1 = -INFINITY;
	return r;
}

/* One run: compute, compare with its summary and the SLA.  Returns its
 * duration when it passes, or -1. */
static double
check_run(struct eval *ev, struct gate_result *gr, const char *run)
{
	static const char *const outcomes[] = { "completed", "failed",
	    "killed", "running", "bad" };
	struct soak s = { .t0 = INFINITY, .t1 = -INFINITY };
	char *metrics = xasprintf("%s/%s/metrics.jsonl", SOAK, run);
	char *summary = xasprintf("%s/%s/summary.json", SOAK, run);
	const struct artifact *sum;
	size_t errors_before = gr->findings.n, i;
	double ok, ttft50, ttft99, tpot50, tpot99, dur = -1;
	struct soak_run *r = run_record(ev, run);
	enum outcome outcome;
	bool failed = false;

	s.rel = metrics;
	/* The outcome first: a run cut short is read for what it holds (a
	 * corrupt file is an error wherever it is) but judged by nothing. */
	sum = artifact_doc(gr, summary);
	outcome = run_outcome(gr, sum);
	r->outcome = outcomes[outcome];
	if (artifact_jsonl(gr, metrics, metric_line, &s) < 0) {
		gate_add(gr, SEV_ERROR, "G9.soak", metrics, "",
		    "soak run '%s' has no metrics.jsonl", run);
		goto out;
	}
	if (ev->soak_series) {
		soakstats_series_append(&r->ttft, &s.ttft);
		soakstats_series_append(&r->tpot, &s.tpot);
		soakstats_series_append(&r->rss, &s.rss);
	}
	if (outcome != OUTCOME_COMPLETED) {
		no_evidence(gr, &s, run, outcome);
		failed = true;
		goto out;
	}
	if (s.ttft.n == 0 || s.tpot.n == 0 || s.ok.n == 0) {
		gate_add(gr, SEV_ERROR, "G9.soak", metrics, "", "soak run '%s' has "
		    "no ttft_ms, tpot_ms or request_ok samples", run);
		goto out;
	}
	r->stats = true;
	r->success_rate = ok = mean(&s.ok);
	r->ttft_p50 = ttft50 = soakstats_nearest_rank(s.ttft.v, s.ttft.n, 0.50);
	r->ttft_p99 = ttft99 = soakstats_nearest_rank(s.ttft.v, s.ttft.n, 0.99);
	r->tpot_p50 = tpot50 = soakstats_nearest_rank(s.tpot.v, s.tpot.n, 0.50);
	r->tpot_p99 = tpot99 = soakstats_nearest_rank(s.tpot.v, s.tpot.n, 0.99);
	if (sum == NULL)
		gate_add(gr, SEV_ERROR, "G9.soak", summary, "",
		    "soak run '%s' has no readable summary.json", run);
	else {
		agree(gr, sum, "success_rate", ok);
		agree(gr, sum, "ttft_ms_p50", ttft50);
		agree(gr, sum, "ttft_ms_p99", ttft99);
		agree(gr, sum, "tpot_ms_p50", tpot50);
		agree(gr, sum, "tpot_ms_p99", tpot99);
	}
	if (!ev->src.have_sla)
		gate_skip(gr, "G9.soak", "00-source/source-manifest.json",
		    "/targets/sla", "SLA check skipped: G0's SLA is missing");
	else {
		gate_judged(gr, "G9.soak", NULL);
		if (ok < ev->src.success_rate_min)
			gate_add(gr, SEV_ERROR, "G9.soak", metrics, "", "%s: success "
			    "rate %.4f is under the SLA's %.4f", run, ok,
			    ev->src.success_rate_min);
		if (ttft99 > ev->src.ttft_ms_p99)
			gate_add(gr, SEV_ERROR, "G9.soak", metrics, "", "%s: TTFT "
			    "P99 %.1f ms breaks the SLA's %.1f ms", run, ttft99,
			    ev->src.ttft_ms_p99);
		if (tpot99 > ev->src.tpot_ms_p99)
			gate_add(gr, SEV_ERROR, "G9.soak", metrics, "", "%s: TPOT "
			    "P99 %.1f ms breaks the SLA's %.1f ms", run, tpot99,
			    ev->src.tpot_ms_p99);
	}
	r->have_rss = s.rss.n > 0;
	r->have_dev = s.dev.n > 0;
	check_leak(gr, metrics, &s.rss, "rss_bytes", &r->rss_leak);
	check_leak(gr, metrics, &s.dev, "device_mem_bytes", &r->dev_leak);
out:
	for (i = errors_before; i < gr->findings.n; i++)
		if (gr->findings.v[i].severity == SEV_ERROR)
			failed = true;
	if (!failed && s.t1 >= s.t0)
		dur = s.t1 - s.t0;
	r->passing = !failed;
	r->t0 = s.t0;
	r->t1 = s.t1;
	soakstats_series_release(&s.ttft);
	soakstats_series_release(&s.tpot);
	soakstats_series_release(&s.ok);
	soakstats_series_release(&s.rss);
	soakstats_series_release(&s.dev);
	free(metrics);
	free(summary);
	return dur;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The run folders under soak/, sorted; NULL when soak/ is unreadable. */
static char **
list_runs(struct gate_result *gr, size_t *n)
{
	char **runs = NULL, *rel, msg[320];
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int fd;

	*n = 0;
	if (!artifact_exists(gr, SOAK, &st) || !S_ISDIR(st.st_mode))
		return NULL;
	/* Listed from the folder opened beneath the workspace. */
	if (workspace_open_fd(&gr->ev->ws, SOAK, S_IFDIR, &fd, &st, msg,
	    sizeof msg) == WS_OK && (d = fdopendir(fd)) == NULL) {
		snprintf(msg, sizeof msg, "cannot read '%s': %s", SOAK,
		    strerror(errno));
		close(fd);
	}
	if (d == NULL) {
		/* Unreadable is not "no soak run": say it. */
		gate_add(gr, SEV_ERROR, "G9.parse", SOAK, "", "%s", msg);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		rel = xasprintf("%s/%s", SOAK, de->d_name);
		if (artifact_exists(gr, rel, &st) && S_ISDIR(st.st_mode)) {
			runs = xreallocarray(runs, *n + 1, sizeof *runs);
			runs[(*n)++] = xstrdup(de->d_name);
		}
		free(rel);
	}
	closedir(d);
	if (*n > 0)
		qsort(runs, *n, sizeof *runs, cmp_str);
	return runs;
}

static void
check_soaks(struct eval *ev, struct gate_result *gr)
{
	double best = -1, dur;
	char **runs, best_run[256] = "";
	size_t n, i;

	runs = list_runs(gr, &n);
	for (i = 0; i < n; i++) {
		dur = check_run(ev, gr, runs[i]);
		if (dur > best) {
			best = dur;
			snprintf(best_run, sizeof best_run, "%s", runs[i]);
		}
		free(runs[i]);
	}
	free(runs);
	if (n == 0)
		gate_add(gr, SEV_ERROR, "G9.duration", SOAK, "",
		    "no soak run: a passing 24 h soak is required");
	else if (best < DAY_S)
		gate_add(gr, SEV_ERROR, "G9.duration", SOAK, "",
		    "no passing soak of 24 h yet");
	if (best >= 0)
		gate_add(gr, SEV_INFO, "G9.duration", SOAK, "", "longest passing "
		    "soak: '%s', %.1f h (%s evidence)", best_run, best / 3600.0,
		    best >= DAY_S ? "release" : best >= 8 * 3600.0 ? "candidate" :
		    best >= 3600.0 ? "development" : "no");
}

void
g09_serving(struct eval *ev, struct gate_result *gr)
{
	/* Missing, these fail their checks ("no soak run" is G9.duration's:
	 * G9.soak and G9.leak are then not judged). */
	gate_judged(gr, "G9.perf", "G9.duration", NULL);
	check_api(gr);
	check_perf(ev, gr);
	check_soaks(ev, gr);
}

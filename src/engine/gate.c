/* gate.c: the gate table, the evaluation loop and the status rules. */
#include "calops.h"

#include <sys/stat.h>

#include "base/text.h"
#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/owners.h"
#include "engine/project.h"
#include "ws/hashtree.h"

/* The check ids of workspace.md §3, gate by gate: `check --json` gives a
 * verdict for each of them. */
static const char *const g0_checks[] = { "G0.schema", "G0.model_id",
    "G0.license", "G0.files", "G0.files.hash", "G0.architecture",
    "G0.tokenizer", "G0.targets", "G0.sla", "G0.complexity", NULL };
static const char *const g1_checks[] = { "G1.env", "G1.prompts",
    "G1.coverage", "G1.outputs", "G1.repro", "G1.tokenizer", "G1.golden",
    NULL };
static const char *const g2_checks[] = { "G2.config", "G2.checker",
    "G2.external_data", "G2.op_inventory", "G2.greedy", "G2.tolerance",
    "G2.profiles", "G2.bound", NULL };
static const char *const g3_checks[] = { "G3.csv", "G3.unsupported",
    "G3.fallback", "G3.row_owner", "G3.coverage", NULL };
static const char *const g4_checks[] = { "G4.config", "G4.calibration",
    "G4.disjoint", "G4.quality", "G4.layers", NULL };
static const char *const g5_checks[] = { "G5.manifest", "G5.config",
    "G5.bound", "G5.script", "G5.builds", NULL };
static const char *const g6_checks[] = { "G6.errors", "G6.repro",
    "G6.hashes", "G6.single_chip", "G6.bound", NULL };
static const char *const g7_checks[] = { "G7.golden", "G7.faults",
    "G7.bound", NULL };
static const char *const g8_checks[] = { "G8.manifest", "G8.limits",
    "G8.conformance", "G8.bound", NULL };
static const char *const g9_checks[] = { "G9.api", "G9.perf", "G9.soak",
    "G9.leak", "G9.duration", NULL };
static const char *const g10_checks[] = { "G10.signature", "G10.current",
    "G10.bindings", "G10.rollback", "G10.audit", "G10.revoked",
    "G10.decision", "G10.upstream", NULL };

const struct gate_def gate_table[GATE_COUNT] = {
	{ "G0", "Model intake", "model", "stop or change the model",
	    "00-source/source-manifest.json", g00_source, g0_checks },
	{ "G1", "Reference baseline", "model", "fix environment/tokenizer",
	    "01-reference/outputs.jsonl", g01_reference, g1_checks },
	{ "G2", "ONNX export", "export", "exporter/model wrapper",
	    "02-onnx/onnx-report.json", g02_onnx, g2_checks },
	{ "G3", "Op support gap", "compiler", "vendor/lowering",
	    "02-onnx/op-support.csv", g03_opsupport, g3_checks },
	{ "G4", "Quantization", "quant", "quant config/calibration",
	    "03-quant/quant-report.json", g04_quant, g4_checks },
	{ "G5", "Reproducible compile", "compiler", "compiler/vendor",
	    "04-compiler/builds.json", g05_compile, g5_checks },
	{ "G6", "Static package validation", "runtime", "packer/compiler",
	    "05-calbin/validation.json", g06_package, g6_checks },
	{ "G7", "Runtime runner", "runtime", "runtime/calbin",
	    "06-runtime/correctness/golden.json", g07_runner, g7_checks },
	{ "G8", "llama.cpp adapter", "runtime", "adapter",
	    "07-serving/service-manifest.json", g08_adapter, g8_checks },
	{ "G9", "Service, load and soak", "serving",
	    "scheduler/adapter/calbin",
	    "07-serving/conformance/api-matrix.json", g09_serving,
	    g9_checks },
	{ "G10", "Release", "release", "the gate that failed",
	    "08-release/generations", g10_release, g10_checks },
};

static const char *const status_names[] = {
	[GS_PENDING] = "pending",
	[GS_FAIL] = "fail",
	[GS_BLOCKED] = "blocked",
	[GS_STALE] = "stale",
	[GS_PASS] = "pass",
	[GS_RUNNING] = "running",
};

const char *
gate_status_name(enum gate_status s)
{
	return status_names[s];
}

const struct gate_result *
gate_eval(const struct eval *ev, const char *id)
{
	size_t i;

	for (i = 0; i < GATE_COUNT; i++)
		if (strcasecmp(ev->gates[i].def->id, id) == 0)
			return &ev->gates[i];
	return NULL;
}

char *
gate_eval_project_status(const struct eval *ev)
{
	size_t i;

	if (ev->project.n > 0)
		return xstrdup("BLOCKED_COMPILER");
	for (i = 0; i < GATE_COUNT; i++)
		if (ev->gates[i].status != GS_PASS)
			return xstrdup(ev->gates[i].def->id);
	return xstrdup("RELEASED");
}

/* Count one more finding of `check` in this gate; returns the count.  A
 * hash, not a scan: a corrupt 17 M-line file reports on every line. */
static json_int_t
count_check(struct gate_result *gr, const char *check)
{
	json_t *n;

	if (gr->check_counts == NULL)
		gr->check_counts = json_object();
	if ((n = json_object_get(gr->check_counts, check)) == NULL) {
		json_object_set_new(gr->check_counts, check, json_integer(1));
		return 1;
	}
	json_integer_set(n, json_integer_value(n) + 1);
	return json_integer_value(n);
}

void
gate_add(struct gate_result *gr, enum severity sev, const char *check,
    const char *path, const char *where, const char *fmt, ...)
{
	va_list ap;

	if (count_check(gr, check) > GATE_MAX_PER_CHECK) {
		gr->suppressed[sev]++;
		return;
	}
	va_start(ap, fmt);
	finding_addv(&gr->findings, sev, check, path, where, fmt, ap);
	va_end(ap);
}

#define MARK_JUDGED	1
#define MARK_SKIPPED	2

static void
mark(struct gate_result *gr, const char *check, json_int_t bit)
{
	json_t *v;

	if (gr->marks == NULL)
		gr->marks = json_object();
	if ((v = json_object_get(gr->marks, check)) == NULL)
		json_object_set_new(gr->marks, check, json_integer(bit));
	else
		json_integer_set(v, json_integer_value(v) | bit);
}

void
gate_judged(struct gate_result *gr, const char *check, ...)
{
	va_list ap;

	va_start(ap, check);
	for (; check != NULL; check = va_arg(ap, const char *))
		mark(gr, check, MARK_JUDGED);
	va_end(ap);
}

void
gate_skip(struct gate_result *gr, const char *check, const char *path,
    const char *where, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	mark(gr, check, MARK_SKIPPED);
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	gate_add(gr, SEV_WARN, check, path, where, "%s", msg);
	free(msg);
}

int
gate_index_of_check(const char *check)
{
	size_t n = strcspn(check, "."), i;

	for (i = 0; i < GATE_COUNT; i++)
		if (strlen(gate_table[i].id) == n &&
		    strncmp(gate_table[i].id, check, n) == 0)
			return (int)i;
	return -1;
}

bool
gate_finding_fails(const char *gate_id, const char *check, const char *fcheck,
    enum severity sev, bool strict)
{
	size_t n = strlen(gate_id);

	if (sev != SEV_ERROR && sev != SEV_BLOCKED && sev != SEV_STALE &&
	    !(strict && sev == SEV_WARN))
		return false;
	if (strcmp(check + n, ".*") == 0 || finding_check_covers(check, fcheck))
		return true;
	/* The gate's parse and path errors fail every check of it. */
	return sev == SEV_ERROR && strncmp(fcheck, gate_id, n) == 0 &&
	    (finding_check_covers(".parse", fcheck + n) ||
	    finding_check_covers(".path", fcheck + n));
}

static bool
check_failed(const struct gate_result *gr, const char *check, bool strict)
{
	size_t i;

	for (i = 0; i < gr->findings.n; i++)
		if (gate_finding_fails(gr->def->id, check,
		    gr->findings.v[i].check, gr->findings.v[i].severity,
		    strict))
			return true;
	return false;
}

/* Judged, and neither it nor a sub-id skipped. */
static bool
check_judged(const struct gate_result *gr, const char *check)
{
	const char *id;
	json_t *v;

	if (gr->status == GS_PENDING || gr->marks == NULL)
		return false;
	v = json_object_get(gr->marks, check);
	if (v == NULL || !(json_integer_value(v) & MARK_JUDGED))
		return false;
	json_object_foreach(gr->marks, id, v)
		if ((json_integer_value(v) & MARK_SKIPPED) &&
		    finding_check_covers(check, id))
			return false;
	return true;
}

enum check_verdict
gate_check_verdict(const struct gate_result *gr, const char *check,
    bool strict)
{
	size_t i;

	if (check_failed(gr, check, strict))
		return CV_FAILED;
	if (strcmp(check + strlen(gr->def->id), ".*") != 0)
		return check_judged(gr, check) ? CV_HELD : CV_NOT_JUDGED;
	for (i = 0; gr->def->checks[i] != NULL; i++)
		if (!check_judged(gr, gr->def->checks[i]))
			return CV_NOT_JUDGED;
	return CV_HELD;
}

const char *
gate_verdict_name(enum check_verdict v)
{
	return v == CV_HELD ? "held" : v == CV_FAILED ? "failed" :
	    "not_judged";
}

/* Findings past the per-check cap still count: one summary per severity. */
static void
add_suppressed(struct gate_result *gr)
{
	char *check;
	int s;

	for (s = SEV_ERROR; s <= SEV_INFO; s++) {
		if (gr->suppressed[s] == 0)
			continue;
		check = xasprintf("%s.more", gr->def->id);
		finding_add(&gr->findings, (enum severity)s, check, "", "",
		    "%zu more %s findings not listed (over %d for one check)",
		    gr->suppressed[s], finding_severity_name((enum severity)s),
		    GATE_MAX_PER_CHECK);
		free(check);
	}
}

static enum gate_status
derive_status(const struct gate_result *gr, bool pending)
{
	bool sev[5] = { false };
	size_t i;

	if (pending)
		return GS_PENDING;
	for (i = 0; i < gr->findings.n; i++)
		sev[gr->findings.v[i].severity] = true;
	if (sev[SEV_ERROR])
		return GS_FAIL;
	if (sev[SEV_BLOCKED])
		return GS_BLOCKED;
	if (sev[SEV_STALE])
		return GS_STALE;
	return GS_PASS;
}

static void
run_gate(struct eval *ev, int i, const struct owners *own)
{
	struct gate_result *gr = &ev->gates[i];
	char msg[320];
	struct stat st;
	bool pending;

	gr->def = &gate_table[i];
	gr->index = i;
	gr->ev = ev;
	owners_check(own, gr);
	pending = workspace_locate(&ev->ws, gr->def->primary, &st, msg,
		      sizeof msg) == WS_ABSENT;
	if (!pending)
		gr->def->eval(ev, gr);
	add_suppressed(gr);
	gr->status = derive_status(gr, pending);
}

int
gate_eval_run(struct eval *ev, const char *path, const struct eval_opts *o,
    char *err, size_t errlen)
{
	struct hasher_opts ho = { 0 };
	struct owners own;
	int i;

	memset(ev, 0, sizeof *ev);
	if (workspace_open(&ev->ws, path, err, errlen) != 0)
		return -1;
	ho.use_cache = !o->no_cache;
	ho.cache_path = o->cache_path;
	ho.threads = o->threads;
	ho.progress = o->progress;
	ho.progress_arg = o->progress_arg;
	ev->hasher = hash_new(&ho);
	ev->scratch = json_array();
	ev->soak_series = o->soak_series;
	owners_load(&own, ev);
	for (i = 0; i < GATE_COUNT; i++)
		run_gate(ev, i, &own);
	owners_release(&own);
	project_vendor_check(ev);
	return 0;
}

void
gate_eval_release(struct eval *ev)
{
	size_t i, k;

	for (i = 0; i < GATE_COUNT; i++) {
		finding_list_release(&ev->gates[i].findings);
		json_decref(ev->gates[i].check_counts);
		json_decref(ev->gates[i].marks);
		for (k = 0; k < ev->gates[i].ninputs; k++)
			free(ev->gates[i].inputs[k].rel);
		free(ev->gates[i].inputs);
		free(ev->gates[i].owner);
		free(ev->gates[i].due);
	}
	finding_list_release(&ev->project);
	for (i = 0; i < ev->nartifacts; i++) {
		free(ev->artifacts[i]->rel);
		free(ev->artifacts[i]->data);
		doc_release(&ev->artifacts[i]->doc);
		free(ev->artifacts[i]);
	}
	free(ev->artifacts);
	for (i = 0; i < ev->ntrees; i++) {
		hashtree_release(ev->trees[i]);
		free(ev->trees[i]);
		free(ev->tree_paths[i]);
	}
	free(ev->trees);
	free(ev->tree_paths);
	json_decref(ev->scratch);
	for (i = 0; i < ev->nsoak; i++) {
		free(ev->soak[i].name);
		soakstats_series_release(&ev->soak[i].ttft);
		soakstats_series_release(&ev->soak[i].tpot);
		soakstats_series_release(&ev->soak[i].rss);
	}
	free(ev->soak);
	if (ev->hasher != NULL)
		hash_free(ev->hasher);
	workspace_close(&ev->ws);
	memset(ev, 0, sizeof *ev);
}

bool
gate_script_has_command(struct eval *ev, const char *rel)
{
	struct artifact *a = artifact_eval(ev, rel, false);
	size_t i;

	if (a->status == WS_TOO_BIG)
		return true;
	if (a->status != WS_OK)
		return false;
	for (i = text_bom_len(a->data, a->size); i < a->size; i++) {
		i += strspn(a->data + i, " \t\r\f\v");
		if (i < a->size && a->data[i] != '\n' && a->data[i] != '#')
			return true;
		while (i < a->size && a->data[i] != '\n')
			i++;
	}
	return false;
}

bool
gate_is_sha256_hex(const char *s)
{
	return s != NULL && hash_is_hex(s);
}

size_t
gate_capped_pairs(const json_int_t *as, size_t na, const json_int_t *bs,
    size_t nb, json_int_t m, json_int_t (*out)[2])
{
	size_t i, j, k, n = 0;
	json_int_t a, b;

	for (i = 0; i < na; i++) {
		for (j = 0; j < nb; j++) {
			a = as[i];
			b = bs[j];
			if (a + b > m)
				b = m - a;
			if (b < 1 && a + bs[j] > m)
				/* no room left to decode at all */
				continue;
			for (k = 0; k < n; k++)
				if (out[k][0] == a && out[k][1] == b)
					break;
			if (k == n) {
				out[n][0] = a;
				out[n][1] = b;
				n++;
			}
		}
	}
	return n;
}

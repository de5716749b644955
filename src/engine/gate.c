/* gate.c: the gate table, the evaluation loop and the status rules. */
#include "calops.h"

#include <sys/stat.h>

#include "engine/gate.h"
#include "engine/owners.h"
#include "engine/project.h"

const struct gate_def gate_table[GATE_COUNT] = {
	{ "G0", "Model intake", "model", "stop or change the model",
	    "00-source/source-manifest.json", g00_source },
	{ "G1", "Reference baseline", "model", "fix environment/tokenizer",
	    "01-reference/outputs.jsonl", g01_reference },
	{ "G2", "ONNX export", "export", "exporter/model wrapper",
	    "02-onnx/onnx-report.json", g02_onnx },
	{ "G3", "Op support gap", "compiler", "vendor/lowering",
	    "02-onnx/op-support.csv", g03_opsupport },
	{ "G4", "Quantization", "quant", "quant config/calibration",
	    "03-quant/quant-report.json", g04_quant },
	{ "G5", "Reproducible compile", "compiler", "compiler/vendor",
	    "04-compiler/builds.json", g05_compile },
	{ "G6", "Static package validation", "runtime", "packer/compiler",
	    "05-calbin/validation.json", g06_package },
	{ "G7", "Runtime runner", "runtime", "runtime/calbin",
	    "06-runtime/correctness/golden.json", g07_runner },
	{ "G8", "llama.cpp adapter", "runtime", "adapter",
	    "07-serving/service-manifest.json", g08_adapter },
	{ "G9", "Service, load and soak", "serving",
	    "scheduler/adapter/calbin",
	    "07-serving/conformance/api-matrix.json", g09_serving },
	{ "G10", "Release", "release", "the gate that failed",
	    "08-release/generations", g10_release },
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
	if (ev->hasher != NULL)
		hash_free(ev->hasher);
	workspace_close(&ev->ws);
	memset(ev, 0, sizeof *ev);
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

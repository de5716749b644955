/*
 * sim_onnx.c: `onnx-check`, a stand-in for the ONNX checks of runbook §6.3
 * (python -m onnx.checker, then compare_reference_onnx.py against the
 * reference), for G2's lab job: it writes 02-onnx/onnx-report.json in the
 * shape G2 reads (workspace.md G2).
 *
 * What it can know it measures: the model's SHA-256 and the external data
 * file's size and SHA-256 (model.onnx.data, when the export config says
 * external_data: true), the opset and the shape profiles from the export
 * config, the reference's greedy outputs (the float32 records of
 * 01-reference/outputs.jsonl that generated something, and that file's
 * SHA-256).  Having no ONNX runtime, it reports the checker as ok, every
 * greedy output matched, every profile consistent and tensor errors drawn
 * under their tolerances -- unless --greedy-mismatch N says that N greedy
 * outputs differ, which G2.greedy refuses.
 *
 * op-inventory.json (list_onnx_ops.py) is not written: it is read from the
 * graph, and the simulator has none.
 */
#include "calops.h"

#include <sys/stat.h>

#include "sim_common.h"

#define EXPORT_CONFIG	"02-onnx/export-config.yaml"
#define MODEL		"02-onnx/model.onnx"
#define MODEL_DATA	"02-onnx/model.onnx.data"
#define REFERENCE	"01-reference/outputs.jsonl"
#define REPORT		"02-onnx/onnx-report.json"

static int
count_greedy(void *arg, json_t *rec, size_t lineno)
{
	json_int_t *n = arg;
	const char *dtype = json_string_value(json_object_get(rec, "dtype"));
	json_t *gen = json_object_get(rec, "generated_token_ids");

	(void)lineno;
	if (dtype != NULL && strcmp(dtype, "float32") == 0 &&
	    json_array_size(gen) > 0)
		(*n)++;
	return 0;
}

/* The sequence lengths a profile is checked at: its
 * valid_sequence_lengths, else powers up to its past_sequence_max. */
static json_t *
profile_entries(struct rng *r, const json_t *p, json_int_t max_context)
{
	static const json_int_t steps[] = { 1, 16, 128, 1024 };
	const json_t *lens = json_object_get(p, "valid_sequence_lengths");
	const json_t *past = json_object_get(p, "past_sequence_max");
	json_t *out = json_array(), *v;
	json_int_t max;
	size_t i;

	if (json_is_array(lens)) {
		json_array_foreach(lens, i, v)
			if (json_is_integer(v))
				json_array_append_new(out, json_pack("{s:O, s:b, "
				    "s:f}", "seq_len", v, "consistent", 1,
				    "max_abs_err", 1e-5 + rng_uniform(r) * 1e-5));
		return out;
	}
	max = json_is_integer(past) ? json_integer_value(past) :
	    max_context - 1;
	for (i = 0; i < nitems(steps) && steps[i] < max; i++)
		json_array_append_new(out, json_pack("{s:I, s:I, s:b, s:f}",
		    "seq_len", steps[i], "past_len", steps[i], "consistent", 1,
		    "max_abs_err", 1e-5 + rng_uniform(r) * 1e-5));
	json_array_append_new(out, json_pack("{s:I, s:I, s:b, s:f}", "seq_len",
	    max, "past_len", max, "consistent", 1, "max_abs_err", 1e-5 +
	    rng_uniform(r) * 1e-5));
	return out;
}

/* The export config's profiles (a mapping of names, or a list of names or
 * of objects with a name), each checked. */
static json_t *
profiles_report(struct sim *s, struct rng *r, const json_t *profiles)
{
	json_t *out = json_object(), *p, *name;
	json_int_t m = s->have_context ? s->max_context : 8192;
	const char *key;
	size_t i;

	if (json_is_object(profiles))
		json_object_foreach((json_t *)profiles, key, p)
			json_object_set_new(out, key, profile_entries(r, p, m));
	else
		json_array_foreach(profiles, i, p) {
			name = json_is_string(p) ? p :
			    json_object_get(p, "name");
			if (json_is_string(name))
				json_object_set_new(out,
				    json_string_value(name),
				    profile_entries(r, p, m));
		}
	return out;
}

/* The tensors compared with the reference, and their tolerances. */
static json_t *
tensors_report(struct rng *r)
{
	static const struct {
		const char	*name, *dtype;
		double		 tol;
	} t[] = {
		{ "logits", "float32", 1e-4 },
		{ "logits", "bfloat16", 0.03 },
		{ "/model/layers.0/self_attn/o_proj/output", "float32", 1e-5 },
		{ "/model/layers.27/mlp/down_proj/output", "float32", 5e-5 },
		{ "present.27.key", "bfloat16", 0.0078 },
	};
	json_t *out = json_array();
	size_t i;

	for (i = 0; i < nitems(t); i++)
		json_array_append_new(out, json_pack("{s:s, s:s, s:f, s:f}",
		    "name", t[i].name, "dtype", t[i].dtype, "max_abs_err",
		    t[i].tol * (0.2 + 0.6 * rng_uniform(r)), "tol", t[i].tol));
	return out;
}

int
sim_onnx_check(struct sim *s)
{
	char err[512], model[HASH_HEX_LEN + 1], data[HASH_HEX_LEN + 1];
	char ref[HASH_HEX_LEN + 1], when[32], *path, *rel;
	json_t *report, *files, *opset, *ext;
	json_int_t total = 0, mismatched = (json_int_t)s->o.mismatches;
	struct stat st;
	struct rng r;
	struct doc d;
	int rc;

	if (sim_ws_doc(s, EXPORT_CONFIG, true, &d, err, sizeof err) == -1)
		return sim_fail(s, "%s", err);
	opset = json_object_get(d.root, "opset");
	if (!json_is_integer(opset)) {
		doc_release(&d);
		return sim_fail(s, "%s: 'opset' is not an integer: the vendor's "
		    "opset is not confirmed", EXPORT_CONFIG);
	}
	if (sim_ws_sha256(s, MODEL, model, err, sizeof err) == -1) {
		doc_release(&d);
		return sim_fail(s, "onnx.checker: %s", err);
	}
	sim_log(s, "info", "onnx.checker %s: ok (opset %" JSON_INTEGER_FORMAT
	    ", sha256 %.12s...)", MODEL, json_integer_value(opset), model);
	files = json_array();
	ext = json_object_get(d.root, "external_data");
	path = xasprintf("%s/%s", s->ws, MODEL_DATA);
	if (json_is_true(ext)) {
		rc = stat(path, &st);
		if (rc == -1)
			errbuf_set(err, sizeof err, "%s: %s", MODEL_DATA,
			    strerror(errno));
		if (rc == -1 || sim_ws_sha256(s, MODEL_DATA, data, err,
		    sizeof err) == -1) {
			free(path);
			json_decref(files);
			doc_release(&d);
			return sim_fail(s, "external data: %s", err);
		}
		json_array_append_new(files, json_pack("{s:s, s:I, s:s}", "path",
		    "model.onnx.data", "bytes", (json_int_t)st.st_size,
		    "sha256", data));
	}
	free(path);
	if (sim_ws_sha256(s, REFERENCE, ref, err, sizeof err) == -1 ||
	    sim_ws_jsonl(s, REFERENCE, count_greedy, &total, err,
	    sizeof err) == -1) {
		json_decref(files);
		doc_release(&d);
		return sim_fail(s, "the reference (G1's job first): %s", err);
	}
	if (mismatched > total)
		mismatched = total;
	rng_init(&r, s->o.seed, "onnx-check");
	sim_iso(s->now, when, sizeof when);
	report = json_pack("{s:s, s:s, s:O, s:s, s:s, s:{s:o}, "
	    "s:{s:s, s:s, s:I, s:I}, s:o, s:s}",
	    "schema", "calculet-onnx-report/v1", "model_sha256", model,
	    "opset", opset, "checker", "ok", "shape_inference", "ok",
	    "external_data", "files", files,
	    "greedy", "reference_sha256", ref, "dtype", "float32", "total",
	    total, "matched", total - mismatched,
	    "tensors", tensors_report(&r),
	    "generated", when);
	/* No profiles in the config: none checked, and G2 judges none. */
	if (json_object_get(d.root, "profiles") != NULL &&
	    json_object_set_new(report, "profiles", profiles_report(s, &r,
	    json_object_get(d.root, "profiles"))) == 0 &&
	    json_object_size(json_object_get(report, "profiles")) == 0) {
		json_decref(report);
		doc_release(&d);
		return sim_fail(s, "%s: 'profiles' names no profile (a mapping "
		    "of names, or a list of names or of objects with a name)",
		    EXPORT_CONFIG);
	}
	doc_release(&d);
	sim_log(s, mismatched > 0 ? "error" : "info", "compare_reference_onnx: "
	    "greedy %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT
	    " matched", total - mismatched, total);
	path = s->o.output != NULL ? xstrdup(s->o.output) :
	    xasprintf("%s/%s", s->ws, REPORT);
	rc = sim_write_json(path, report, err, sizeof err);
	json_decref(report);
	if (rc != 0) {
		free(path);
		return sim_fail(s, "%s", err);
	}
	rel = sim_relpath(s, path);
	rc = sim_result(s, mismatched > 0 ? "fail" : "pass", json_pack(
	    "{s:I, s:I}", "greedy_total", total, "greedy_matched", total -
	    mismatched), json_pack("[s]", rel));
	free(rel);
	free(path);
	return rc;
}

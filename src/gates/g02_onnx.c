/* g02_onnx.c: G2, the ONNX export (runbook §6). */
#include "calops.h"

#include <sys/stat.h>

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"

#define CONFIG "02-onnx/export-config.yaml"
#define REPORT "02-onnx/onnx-report.json"
#define INVENTORY "02-onnx/op-inventory.json"

/* The export config: returned once it was read as a mapping. */
static const struct artifact *
check_config(struct gate_result *gr)
{
	const struct artifact *a;
	const char *s;
	json_t *opset;

	if ((a = artifact_doc_needed(gr, CONFIG, "G2.config", SEV_ERROR,
	    "export-config.yaml is missing")) == NULL)
		return NULL;
	if (!json_is_object(a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G2.config", a, "", "not a mapping");
		return NULL;
	}
	if ((s = query_str(gr, "G2.config", a, a->doc.root, "", "schema")) !=
		NULL &&
	    strcmp(s, "calculet-onnx-export/v1") != 0)
		query_gate_at(gr, SEV_ERROR, "G2.config", a, "/schema",
		    "schema is '%s', not 'calculet-onnx-export/v1'", s);
	opset = json_object_get(a->doc.root, "opset");
	if (json_is_string(opset) &&
	    strcmp(json_string_value(opset), "VENDOR_CONFIRMED") == 0)
		query_gate_at(gr, SEV_BLOCKED, "G2.config", a, "/opset",
		    "opset is VENDOR_CONFIRMED: the vendor's opset matrix is "
		    "missing");
	else if (!json_is_integer(opset))
		query_gate_at(gr, SEV_ERROR, "G2.config", a, "/opset",
		    "'opset' must be an integer");
	return a;
}

static void
check_external_data(struct gate_result *gr, const struct artifact *a,
    json_t *root)
{
	json_t *ext, *files, *e;
	const char *path;
	json_int_t bytes;
	struct stat st;
	char *ptr, *rel;
	size_t i;

	/* An empty list is judged: the checker read the graph and it names
	 * no external data (a small model keeps its weights inside), as
	 * previous_generation: null is for G10.rollback (workspace.md §6). */
	if ((ext = query_object(gr, "G2.external_data", a, root, "",
		 "external_data")) == NULL ||
	    (files = query_array(gr, "G2.external_data", a, ext,
		 "/external_data", "files")) == NULL)
		return;
	json_array_foreach(files, i, e) {
		ptr = doc_ptr_index("/external_data/files", i);
		path = query_str(gr, "G2.external_data", a, e, ptr, "path");
		if (query_int(
			gr, "G2.external_data", a, e, ptr, "bytes", &bytes) &&
		    path != NULL &&
		    artifact_join(gr, REPORT, ptr, path, &rel) == 0) {
			if (!artifact_exists(gr, rel, &st))
				query_gate_at(gr, SEV_ERROR, "G2.external_data",
				    a, ptr, "external data '%s' is missing",
				    rel);
			else if ((json_int_t)st.st_size != bytes)
				query_gate_at(gr, SEV_ERROR, "G2.external_data",
				    a, ptr,
				    "'%s' has %lld bytes, the report says %lld",
				    rel, (long long)st.st_size,
				    (long long)bytes);
			free(rel);
		}
		if (!gate_is_sha256_hex(
			json_string_value(json_object_get(e, "sha256"))))
			query_gate_at(gr, SEV_ERROR, "G2.external_data", a, ptr,
			    "'sha256' is missing or not hex");
		free(ptr);
	}
}

static void
check_inventory(struct gate_result *gr)
{
	const struct artifact *a;
	json_int_t opset, count;
	const char *domain;
	json_t *e;
	size_t i;
	char *ptr;

	if ((a = artifact_doc_needed(gr, INVENTORY, "G2.op_inventory",
		 SEV_ERROR, "op-inventory.json is missing")) == NULL)
		return;
	if (!json_is_array(a->doc.root)) {
		query_gate_at(gr, SEV_ERROR, "G2.op_inventory", a, "",
		    "must be an array of {op_type, domain, opset, count}");
		return;
	}
	if (query_empty(gr, "G2.op_inventory", a, a->doc.root, "",
	    "op-inventory.json lists no operator"))
		return;
	json_array_foreach(a->doc.root, i, e) {
		ptr = doc_ptr_index("", i);
		query_str(gr, "G2.op_inventory", a, e, ptr, "op_type");
		domain = query_str(gr, "G2.op_inventory", a, e, ptr, "domain");
		if (domain != NULL && domain[0] == '\0')
			query_gate_at(gr, SEV_ERROR, "G2.op_inventory", a, ptr,
			    "'domain' is empty (use ai.onnx for the default)");
		query_int(gr, "G2.op_inventory", a, e, ptr, "opset", &opset);
		query_int(gr, "G2.op_inventory", a, e, ptr, "count", &count);
		free(ptr);
	}
}

static void
check_greedy(struct gate_result *gr, const struct artifact *a, json_t *root)
{
	json_t *g = query_object(gr, "G2.greedy", a, root, "", "greedy");
	json_int_t total, matched;

	if (g == NULL ||
	    !query_int(gr, "G2.greedy", a, g, "/greedy", "total", &total) ||
	    !query_int(gr, "G2.greedy", a, g, "/greedy", "matched", &matched))
		return;
	if (total < 100)
		query_gate_at(gr, SEV_ERROR, "G2.greedy", a, "/greedy/total",
		    "only %lld greedy samples, at least 100 are needed",
		    (long long)total);
	if (matched != total)
		query_gate_at(gr, SEV_ERROR, "G2.greedy", a, "/greedy/matched",
		    "%lld of %lld greedy samples match", (long long)matched,
		    (long long)total);
}

static void
check_tolerance(struct gate_result *gr, const struct artifact *a, json_t *root)
{
	json_t *tensors = query_array(
	    gr, "G2.tolerance", a, root, "", "tensors");
	json_t *e;
	double err, tol;
	size_t i;
	char *ptr;

	if (tensors == NULL || query_empty(gr, "G2.tolerance", a, tensors,
	    "/tensors", "the report lists no tensor"))
		return;
	json_array_foreach(tensors, i, e) {
		ptr = doc_ptr_index("/tensors", i);
		if (query_num(
			gr, "G2.tolerance", a, e, ptr, "max_abs_err", &err) &&
		    query_num(gr, "G2.tolerance", a, e, ptr, "tol", &tol) &&
		    !(err <= tol)) {
			const char *name = json_string_value(json_object_get(e,
			    "name"));

			query_gate_at(gr, SEV_ERROR, "G2.tolerance", a, ptr,
			    "tensor '%s': max_abs_err %g exceeds tol %g",
			    name != NULL ? name : "?", err, tol);
		}
		free(ptr);
	}
}

/* The profile's valid_sequence_lengths (cptr: the profile in the config)
 * each have a report entry; a length that is not an integer is never
 * passed over unseen. */
static void
check_lengths(struct gate_result *gr, const struct artifact *a,
    json_t *entries, const char *name, const struct artifact *cfg,
    json_t *spec, const char *cptr)
{
	char *lptr = doc_ptr_key(cptr, "valid_sequence_lengths"), *p;
	char *rptr = doc_ptr_key("/profiles", name);
	json_t *lengths, *l, *e;
	size_t i, j;
	bool found;

	lengths = json_is_object(spec) ? json_object_get(spec,
	    "valid_sequence_lengths") : NULL;
	if (lengths != NULL && !json_is_null(lengths) &&
	    !json_is_array(lengths))
		query_gate_at(gr, SEV_ERROR, "G2.profiles", cfg, lptr,
		    "'valid_sequence_lengths' must be a list of integers");
	json_array_foreach(lengths, i, l) {
		if (!json_is_integer(l)) {
			p = doc_ptr_index(lptr, i);
			query_gate_at(gr, SEV_ERROR, "G2.parse", cfg, p,
			    "profile '%s': a sequence length is not an integer",
			    name);
			free(p);
			continue;
		}
		found = false;
		json_array_foreach(entries, j, e)
			found |= json_equal(json_object_get(e, "seq_len"), l);
		if (!found)
			query_gate_at(gr, SEV_ERROR, "G2.profiles", a, rptr,
			    "profile '%s' has no entry for sequence length %lld",
			    name, (long long)json_integer_value(l));
	}
	free(rptr);
	free(lptr);
}

/* One profile of the export config against the report's entries. */
static void
check_profile(struct gate_result *gr, const struct artifact *a, json_t *rprof,
    const char *name, const struct artifact *cfg, json_t *spec,
    const char *cptr)
{
	json_t *entries = json_object_get(rprof, name), *e;
	char *ptr = doc_ptr_key("/profiles", name);
	size_t i;

	if (!json_is_array(entries) || json_array_size(entries) == 0) {
		query_gate_at(gr, SEV_ERROR, "G2.profiles", a, "/profiles",
		    "profile '%s' of the export config has no report entry", name);
		goto out;
	}
	json_array_foreach(entries, i, e) {
		if (!json_is_integer(json_object_get(e, "seq_len")) ||
		    !json_is_true(json_object_get(e, "consistent"))) {
			char *p = doc_ptr_index(ptr, i);

			query_gate_at(gr, SEV_ERROR, "G2.profiles", a, p,
			    "profile '%s' entry is not {seq_len, consistent: true}",
			    name);
			free(p);
		}
	}
	check_lengths(gr, a, entries, name, cfg, spec, cptr);
out:
	free(ptr);
}

/*
 * Every profile the export config names (a mapping of names, or a list of
 * names or of {name, …}) against the report.  None named, nothing is
 * judged (workspace.md §6, v3); a list member that names none is corrupt
 * config, a G2.parse error rather than a profile passed over.
 */
static void
check_profiles(struct gate_result *gr, const struct artifact *a, json_t *root,
    const struct artifact *cfg)
{
	json_t *rprof = json_object_get(root, "profiles"), *spec, *list;
	const char *name;
	char *cptr;
	size_t i;

	list = json_object_get(cfg->doc.root, "profiles");
	if (list != NULL && !json_is_null(list) && !json_is_object(list) &&
	    !json_is_array(list)) {
		query_gate_at(gr, SEV_ERROR, "G2.profiles", cfg, "/profiles",
		    "'profiles' must be a mapping or a list of profiles");
		return;
	}
	if (query_empty(gr, "G2.profiles", cfg, list, "/profiles",
	    "the export config names no profile"))
		return;
	if (!json_is_object(rprof)) {
		query_gate_at(gr, SEV_ERROR, "G2.profiles", a, "",
		    "'profiles' is missing or not an object");
		return;
	}
	json_object_foreach(list, name, spec) {
		cptr = doc_ptr_key("/profiles", name);
		check_profile(gr, a, rprof, name, cfg, spec, cptr);
		free(cptr);
	}
	json_array_foreach(list, i, spec) {
		name = json_is_string(spec) ? json_string_value(spec) :
		    json_string_value(json_object_get(spec, "name"));
		cptr = doc_ptr_index("/profiles", i);
		if (name != NULL)
			check_profile(gr, a, rprof, name, cfg, spec, cptr);
		else
			query_gate_at(gr, SEV_ERROR, "G2.parse", cfg, cptr,
			    "a profile is neither a name nor a mapping with a "
			    "string 'name'");
		free(cptr);
	}
}

static void
check_bound(struct gate_result *gr, const struct artifact *a, json_t *root)
{
	char hex[HASH_HEX_LEN + 1], msg[320];
	const char *want;

	if ((want = query_str(gr, "G2.bound", a, root, "", "model_sha256")) ==
	    NULL)
		return;
	if (artifact_hash(gr, "02-onnx/model.onnx", hex, msg, sizeof msg) != 0)
		query_gate_at(gr, SEV_STALE, "G2.bound", a, "/model_sha256",
		    "the report is bound to a model.onnx that is gone: %s", msg);
	else if (strcmp(hex, want) != 0)
		query_gate_at(gr, SEV_STALE, "G2.bound", a, "/model_sha256",
		    "model.onnx changed since this report (now %.12s…, report "
		    "%.12s…): re-run the export checks", hex, want);
}

void
g02_onnx(struct eval *ev, struct gate_result *gr)
{
	const struct artifact *a, *cfg;
	const char *s;

	(void)ev;
	/* Missing, the config and the inventory fail their own checks. */
	gate_judged(gr, "G2.config", "G2.op_inventory", NULL);
	cfg = check_config(gr);
	check_inventory(gr);
	if ((a = artifact_doc(gr, REPORT)) == NULL)
		return;
	if (!json_is_object(a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G2.parse", a, "", "not a JSON object");
		return;
	}
	gate_judged(gr, "G2.checker", "G2.external_data", "G2.greedy",
	    "G2.tolerance", "G2.bound", NULL);
	if (cfg != NULL)
		gate_judged(gr, "G2.profiles", NULL);
	if ((s = query_str(gr, "G2.checker", a, a->doc.root, "", "checker")) !=
	    NULL && strcmp(s, "ok") != 0)
		query_gate_at(gr, SEV_ERROR, "G2.checker", a, "/checker",
		    "the ONNX checker said '%s'", s);
	check_external_data(gr, a, a->doc.root);
	check_greedy(gr, a, a->doc.root);
	check_tolerance(gr, a, a->doc.root);
	if (cfg != NULL)
		check_profiles(gr, a, a->doc.root, cfg);
	check_bound(gr, a, a->doc.root);
}

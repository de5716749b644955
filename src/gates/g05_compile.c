/* g05_compile.c: G5, the reproducible compile (runbook §9). */
#include "calops.h"

#include <sys/stat.h>

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"

#define MANIFEST "04-compiler/compiler-manifest.json"
#define CONFIG "04-compiler/compile-config.yaml"
#define BUILDS "04-compiler/builds.json"

static bool
nonempty_str(struct gate_result *gr, const struct artifact *a, json_t *obj,
    const char *ptr, const char *key)
{
	const char *s = query_str(gr, "G5.manifest", a, obj, ptr, key);
	char *p;

	if (s != NULL && s[0] == '\0') {
		p = doc_ptr_key(ptr, key);
		query_gate_at(
		    gr, SEV_ERROR, "G5.manifest", a, p, "'%s' is empty", key);
		free(p);
		return false;
	}
	return s != NULL;
}

static void
check_versioned(struct gate_result *gr, const struct artifact *a, json_t *root,
    const char *key)
{
	json_t *o = query_object(gr, "G5.manifest", a, root, "", key);
	char *ptr = doc_ptr_key("", key), *sp;

	if (o != NULL) {
		nonempty_str(gr, a, o, ptr, "version");
		if (!gate_is_sha256_hex(
			json_string_value(json_object_get(o, "sha256")))) {
			sp = doc_ptr_key(ptr, "sha256");
			query_gate_at(gr, SEV_ERROR, "G5.manifest", a, sp,
			    "'%s.sha256' is missing or not hex", key);
			free(sp);
		}
	}
	free(ptr);
}

/* The SBOM is optional for the gate but part of M06's definition of done. */
static void
check_sbom(struct gate_result *gr, const struct artifact *a, json_t *root)
{
	const char *sbom = json_string_value(json_object_get(root, "sbom"));
	char *rel = NULL;

	if (sbom == NULL) {
		query_gate_at(gr, SEV_WARN, "G5.manifest.sbom", a, "",
		    "no 'sbom' path: the compiler container's SBOM is not linked");
		return;
	}
	if (artifact_join(gr, MANIFEST, "/sbom", sbom, &rel) == 0 &&
	    !artifact_exists(gr, rel, NULL))
		query_gate_at(gr, SEV_WARN, "G5.manifest.sbom", a, "/sbom",
		    "the SBOM '%s' is missing", rel);
	free(rel);
}

static void
check_manifest(struct gate_result *gr)
{
	static const char *const strs[] = { "calcc_commit", "tvm_commit",
	    "license_id" };
	const struct artifact *a;
	const char *s;
	json_t *root, *host;
	size_t i;

	if ((a = artifact_doc_needed(gr, MANIFEST, "G5.manifest", SEV_BLOCKED,
	    "the vendor's compiler manifest is not delivered")) == NULL)
		return;
	if (!json_is_object(root = a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G5.parse", a, "", "not a JSON object");
		return;
	}
	if ((s = query_str(gr, "G5.manifest", a, root, "", "schema")) != NULL &&
	    strcmp(s, "calculet-compiler/v1") != 0)
		query_gate_at(gr, SEV_ERROR, "G5.manifest", a, "/schema",
		    "schema is '%s', not 'calculet-compiler/v1'", s);
	if ((s = query_str(gr, "G5.manifest", a, root, "", "oci_digest")) !=
		NULL &&
	    (strncmp(s, "sha256:", 7) != 0 || !gate_is_sha256_hex(s + 7)))
		query_gate_at(gr, SEV_ERROR, "G5.manifest", a, "/oci_digest",
		    "'oci_digest' is not sha256:<64 hex>");
	for (i = 0; i < nitems(strs); i++)
		nonempty_str(gr, a, root, "", strs[i]);
	check_versioned(gr, a, root, "oplib");
	check_versioned(gr, a, root, "kernels");
	if ((host = query_object(gr, "G5.manifest", a, root, "", "host")) !=
	    NULL)
		nonempty_str(gr, a, host, "/host", "arch");
	check_sbom(gr, a, root);
}

static void
check_config(struct gate_result *gr)
{
	static const char *const paths[] = { "model", "quant_config", "output" };
	const struct artifact *a;
	char hex[HASH_HEX_LEN + 1], msg[320], *rel, *ptr;
	const char *s;
	json_t *v;
	size_t i;

	if ((a = artifact_doc_needed(gr, CONFIG, "G5.config", SEV_BLOCKED,
	    "the compile config is not delivered")) == NULL)
		return;
	if (!json_is_object(a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G5.config", a, "", "not a mapping");
		return;
	}
	for (i = 0; i < nitems(paths); i++) {
		v = json_object_get(a->doc.root, paths[i]);
		s = json_string_value(v);
		ptr = doc_ptr_key("", paths[i]);
		/* A path that is not a string would escape the path check. */
		if (s == NULL && v != NULL && !json_is_null(v))
			query_gate_at(gr, SEV_ERROR, "G5.config", a, ptr,
			    "'%s' must be a path (a string)", paths[i]);
		if (s != NULL && artifact_join(gr, CONFIG, ptr, s, &rel) == 0)
			free(rel);
		free(ptr);
	}
	s = json_string_value(json_object_get(a->doc.root, "onnx_sha256"));
	if (s == NULL || strcmp(s, "REQUIRED") == 0 || !gate_is_sha256_hex(s)) {
		query_gate_at(gr, SEV_ERROR, "G5.config", a, "/onnx_sha256",
		    "'onnx_sha256' is not set to the ONNX model's hash");
		return;
	}
	if (artifact_hash(gr, "02-onnx/model.onnx", hex, msg, sizeof msg) != 0) {
		gate_skip(gr, "G5.bound", "02-onnx/model.onnx", "",
		    "check skipped: its input is missing or unreadable (%s)", msg);
		return;
	}
	gate_judged(gr, "G5.bound", NULL);
	if (strcmp(hex, s) != 0)
		query_gate_at(gr, SEV_STALE, "G5.bound", a, "/onnx_sha256",
		    "model.onnx changed since this compile config (now %.12s…, "
		    "config %.12s…): recompile", hex, s);
}

static void
check_build(struct gate_result *gr, const struct artifact *a, json_t *b,
    size_t i, const char *first)
{
	char *ptr = doc_ptr_index("", i), *rel;
	const char *tree, *log, *why;
	json_int_t code;

	query_member(gr, "G5.builds", a, b, ptr, "id");
	if (query_int(gr, "G5.builds", a, b, ptr, "exit_code", &code) &&
	    code != 0)
		query_gate_at(gr, SEV_ERROR, "G5.builds", a, ptr,
		    "build exited with %lld", (long long)code);
	tree = query_str(gr, "G5.builds", a, b, ptr, "output_tree_sha256");
	if (tree != NULL && !gate_is_sha256_hex(tree))
		query_gate_at(gr, SEV_ERROR, "G5.builds", a, ptr,
		    "'output_tree_sha256' is not hex");
	if ((log = query_str(gr, "G5.builds", a, b, ptr, "log")) != NULL &&
	    artifact_join(gr, BUILDS, ptr, log, &rel) == 0) {
		if (!artifact_exists(gr, rel, NULL))
			query_gate_at(gr, SEV_ERROR, "G5.builds", a, ptr,
			    "build log '%s' is missing", rel);
		free(rel);
	}
	if (first != NULL && tree != NULL && strcmp(tree, first) != 0) {
		why = json_string_value(json_object_get(b,
		    "nondeterminism_explained"));
		if (why == NULL || why[0] == '\0' ||
		    !json_is_true(json_object_get(b, "golden_equivalent")))
			query_gate_at(gr, SEV_ERROR, "G5.builds", a, ptr,
			    "output differs from the first build with no "
			    "nondeterminism_explained and golden_equivalent: true");
	}
	free(ptr);
}

static void
check_builds(struct gate_result *gr)
{
	const struct artifact *a = artifact_doc(gr, BUILDS);
	const char *first = NULL;
	json_t *b;
	size_t i;

	if (a == NULL)
		return;
	if (!json_is_array(a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G5.builds", a, "", "must be an array");
		return;
	}
	if (json_array_size(a->doc.root) < 2)
		query_gate_at(gr, SEV_ERROR, "G5.builds", a, "",
		    "%zu build(s): reproducibility needs at least two",
		    json_array_size(a->doc.root));
	json_array_foreach(a->doc.root, i, b) {
		check_build(gr, a, b, i, first);
		if (i == 0)
			first = json_string_value(json_object_get(b,
			    "output_tree_sha256"));
	}
}

void
g05_compile(struct eval *ev, struct gate_result *gr)
{
	struct stat st;

	/* Missing or empty, each of these is a finding of its own check. */
	gate_judged(gr, "G5.manifest", "G5.config", "G5.script", "G5.builds",
	    NULL);
	check_manifest(gr);
	check_config(gr);
	/* Empty, or comments alone, counts as missing, as for the vendor
	 * deliverable (§4). */
	if (!artifact_exists(gr, "04-compiler/compile.sh", &st) ||
	    !gate_script_has_command(ev, "04-compiler/compile.sh"))
		gate_add(gr, SEV_BLOCKED, "G5.script", "04-compiler/compile.sh", "",
		    "compile.sh is missing, empty or only comments: the vendor's "
		    "real compile command is not delivered (runbook §17)");
	check_builds(gr);
}

/* project.c: BLOCKED_COMPILER and the vendor deliverables (see project.h). */
#include "calops.h"

#include "engine/artifact.h"
#include "engine/project.h"

static void
blocked(struct eval *ev, const char *id, const char *path, const char *where,
    const char *why)
{
	finding_add(&ev->project, SEV_BLOCKED, id, path, where,
	    "vendor deliverable missing: %s", why);
}

/* The parsed document at rel, or NULL with *why saying what is missing. */
static json_t *
vendor_doc(struct eval *ev, const char *rel, const char **why)
{
	struct artifact *a = artifact_eval(ev, rel, true);

	if (a->status == WS_ABSENT || (a->status == WS_OK && a->size == 0))
		*why = "absent or empty";
	else if (a->status != WS_OK || !a->parsed)
		*why = "unreadable";
	else if (!json_is_object(a->doc.root))
		*why = "not a mapping";
	else
		return a->doc.root;
	return NULL;
}

static bool
nonempty_file(struct eval *ev, const char *rel)
{
	struct artifact *a = artifact_eval(ev, rel, false);

	return a->status == WS_OK && a->size > 0;
}

void
project_vendor_check(struct eval *ev)
{
	const char *why = NULL, *s;
	json_t *root, *v;
	char *msg;

	root = vendor_doc(ev, "04-compiler/compiler-manifest.json", &why);
	s = root != NULL ? json_string_value(json_object_get(root, "oci_digest")) :
	    NULL;
	if (root != NULL && (s == NULL || strncmp(s, "sha256:", 7) != 0 ||
	    !gate_is_sha256_hex(s + 7)))
		why = "no 'oci_digest' of the form sha256:<64 hex>";
	if (root == NULL || why != NULL) {
		msg = xasprintf("compiler container (%s)", why);
		blocked(ev, "vendor.compiler_oci",
		    "04-compiler/compiler-manifest.json", "/oci_digest", msg);
		free(msg);
	}

	if (!gate_script_has_command(ev, "04-compiler/compile.sh"))
		blocked(ev, "vendor.compile_command", "04-compiler/compile.sh", "",
		    "the vendor's compile command (compile.sh absent, empty or "
		    "only comments)");
	else if (!nonempty_file(ev, "04-compiler/compile-config.yaml"))
		blocked(ev, "vendor.compile_command",
		    "04-compiler/compile-config.yaml", "",
		    "the compile config (compile-config.yaml absent or empty)");

	why = NULL;
	root = vendor_doc(ev, "02-onnx/export-config.yaml", &why);
	v = root != NULL ? json_object_get(root, "opset") : NULL;
	if (root != NULL && !json_is_integer(v))
		why = v != NULL && json_is_string(v) ?
		    "opset is still a placeholder" : "no integer 'opset'";
	if (root == NULL || why != NULL) {
		msg = xasprintf("the vendor opset matrix (%s)", why);
		blocked(ev, "vendor.opset_matrix", "02-onnx/export-config.yaml",
		    "/opset", msg);
		free(msg);
	}

	why = NULL;
	root = vendor_doc(ev, "03-quant/quant-config.yaml", &why);
	s = root != NULL ? json_string_value(json_object_get(root, "method")) :
	    NULL;
	if (root != NULL && (s == NULL || s[0] == '\0'))
		why = "no 'method'";
	else if (root != NULL && strcmp(s, "VENDOR_TOOL_METHOD") == 0)
		why = "method is still the placeholder VENDOR_TOOL_METHOD";
	if (root == NULL || why != NULL) {
		msg = xasprintf("the vendor quantization tool (%s)", why);
		blocked(ev, "vendor.quant_tool", "03-quant/quant-config.yaml",
		    "/method", msg);
		free(msg);
	}
}

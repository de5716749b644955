/*
 * test_reldiff.c: two release manifests field by field (reldiff.c), as
 * the Release screen shows them: a changed hash, nested members under
 * dotted names, limitations and features added and removed item by item,
 * reports by path, the generation numbers left out, the same fields
 * counted, and a missing manifest.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>

#include "model/reldiff.h"

static json_t *
parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (j == NULL)
		fail_msg("bad fixture: %s", e.text);
	return j;
}

static const struct reldiff_line *
find(const struct reldiff *d, enum reldiff_kind kind, const char *field,
    const char *value)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct reldiff_line *l = &d->v[i];
		const char *v = kind == RD_REMOVED ? l->from : l->to;

		if (l->kind == kind && strcmp(l->field, field) == 0 &&
		    (value == NULL || (v != NULL && strcmp(v, value) == 0)))
			return l;
	}
	return NULL;
}

static void
test_fields(void **state)
{
	json_t *a = parse("{\"generation\": 1, \"previous_generation\": null,"
	    "\"onnx_sha256\": \"aa\", \"tokenizer_sha256\": \"tt\","
	    "\"compiler\": {\"oci_digest\": \"sha256:1\", \"tvm_commit\": \"v\"},"
	    "\"compat\": {\"runtime\": \"calrt 1.9.2\"},"
	    "\"known_limitations\": [\"batch 1 only\", \"ctx 4096\"],"
	    "\"disabled_features\": [\"kv_state\"],"
	    "\"reports\": [{\"path\": \"r/a.json\", \"sha256\": \"01\"},"
	    "  {\"path\": \"r/b.json\", \"sha256\": \"02\"}],"
	    "\"observation_window_h\": 72}");
	json_t *b = parse("{\"generation\": 2, \"previous_generation\": 1,"
	    "\"onnx_sha256\": \"bb\", \"tokenizer_sha256\": \"tt\","
	    "\"compiler\": {\"oci_digest\": \"sha256:2\", \"tvm_commit\": \"v\"},"
	    "\"compat\": {\"runtime\": \"calrt 1.9.3\", \"chip\": \"KS1\"},"
	    "\"known_limitations\": [\"batch 1 only\", \"ctx 8192\"],"
	    "\"disabled_features\": [],"
	    "\"reports\": [{\"path\": \"r/a.json\", \"sha256\": \"03\"},"
	    "  {\"path\": \"r/c.json\", \"sha256\": \"04\"}],"
	    "\"observation_window_h\": 72}");
	const struct reldiff_line *l;
	struct reldiff d;
	size_t i;

	(void)state;
	reldiff_make(&d, a, b);
	assert_non_null(l = find(&d, RD_CHANGED, "onnx_sha256", "bb"));
	assert_string_equal(l->from, "aa");
	assert_non_null(find(&d, RD_CHANGED, "compiler.oci_digest",
	    "sha256:2"));
	assert_non_null(find(&d, RD_CHANGED, "compat.runtime",
	    "calrt 1.9.3"));
	assert_non_null(find(&d, RD_ADDED, "compat.chip", "KS1"));
	assert_non_null(find(&d, RD_REMOVED, "known_limitations",
	    "ctx 4096"));
	assert_non_null(find(&d, RD_ADDED, "known_limitations", "ctx 8192"));
	assert_null(find(&d, RD_ADDED, "known_limitations", "batch 1 only"));
	assert_non_null(find(&d, RD_REMOVED, "disabled_features",
	    "kv_state"));
	assert_non_null(l = find(&d, RD_CHANGED, "reports r/a.json", "03"));
	assert_string_equal(l->from, "01");
	assert_non_null(find(&d, RD_REMOVED, "reports r/b.json", "02"));
	assert_non_null(find(&d, RD_ADDED, "reports r/c.json", "04"));
	for (i = 0; i < d.n; i++) {
		assert_string_not_equal(d.v[i].field, "generation");
		assert_string_not_equal(d.v[i].field, "previous_generation");
		assert_string_not_equal(d.v[i].field, "tokenizer_sha256");
	}
	assert_int_equal(d.n, 10);
	/* tokenizer, tvm_commit, observation_window_h */
	assert_int_equal(d.same, 3);
	reldiff_release(&d);
	/* The same manifest: nothing differs. */
	reldiff_make(&d, a, a);
	assert_int_equal(d.n, 0);
	assert_true(d.same > 5);
	reldiff_release(&d);
	/* No manifest on one side: every field is added. */
	reldiff_make(&d, NULL, b);
	assert_non_null(find(&d, RD_ADDED, "onnx_sha256", "bb"));
	assert_non_null(find(&d, RD_ADDED, "compiler.oci_digest",
	    "sha256:2"));
	assert_int_equal(d.same, 0);
	reldiff_release(&d);
	json_decref(a);
	json_decref(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

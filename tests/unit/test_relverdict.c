/*
 * test_relverdict.c: one verdict per generation (relverdict.c): the rule,
 * its words and its JSON, and a manifest's bindings judged against
 * today's values that the test gives (a table of files and members), in
 * G10's order and words.  The commands and G10 on real workspaces are in
 * tests/release/release_test.sh and test_gates_b.c.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>

#include "release/relverdict.h"

/* 64 hex digits of one kind. */
#define H8(c)	c c c c c c c c
#define H(c)	H8(c) H8(c) H8(c) H8(c) H8(c) H8(c) H8(c) H8(c)
#define HA	H("a")
#define HB	H("b")
#define HC	H("c")

/* Today's values: {rel: hex} for files and trees, {rel: {k1: v}} for
 * members, and the report paths that lead outside. */
struct fake {
	json_t		*files;
	json_t		*members;
	const char	*outside;	/* a path join refuses, or NULL */
	const char	*uri;		/* a content URI, or NULL */
};

static const char *
fake_file(void *arg, const char *rel, char hex[HASH_HEX_LEN + 1])
{
	struct fake *f = arg;
	const char *s = json_string_value(json_object_get(f->files, rel));

	if (s == NULL)
		return NULL;
	snprintf(hex, HASH_HEX_LEN + 1, "%s", s);
	return hex;
}

static const char *
fake_member(void *arg, const char *rel, const char *k1, const char *k2)
{
	struct fake *f = arg;
	json_t *v = json_object_get(json_object_get(f->members, rel), k1);

	return json_string_value(k2 != NULL ? json_object_get(v, k2) : v);
}

/* As workspace_join() would for a manifest in generations/N/. */
static int
fake_join(void *arg, const char *ptr, const char *path, char **rel,
    char *err, size_t errlen)
{
	struct fake *f = arg;

	(void)ptr;
	if (f->uri != NULL && strcmp(path, f->uri) == 0)
		return 1;
	if (f->outside != NULL && strcmp(path, f->outside) == 0) {
		snprintf(err, errlen, "'%s' leads outside the workspace", path);
		return -1;
	}
	*rel = xstrdup(strncmp(path, "../../../", 9) == 0 ? path + 9 : path);
	return 0;
}

static const struct relverdict_today fake_ops = {
	.file = fake_file,
	.tree = fake_file,
	.member = fake_member,
	.join = fake_join,
};

/* A manifest bound to today's artifacts, and today's values. */
static json_t *
manifest(struct fake *f)
{
	f->files = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}",
	    "02-onnx/model.onnx", HA, "03-quant/quant-config.yaml", HA,
	    "03-quant/calibration-manifest.jsonl", HA, "05-calbin/package", HA,
	    "07-serving/soak/r/summary.json", HA, "06-runtime/perf.json", HA);
	f->members = json_pack("{s:{s:{s:s}}, s:{s:s}}",
	    "00-source/source-manifest.json", "tokenizer", "sha256", HA,
	    "04-compiler/compiler-manifest.json", "oci_digest", "sha256:x");
	f->outside = f->uri = NULL;
	return json_pack("{s:i, s:s, s:s, s:s, s:s, s:{s:s}, s:s, "
	    "s:[{s:s, s:s}, {s:s, s:s}]}", "generation", 3,
	    "tokenizer_sha256", HA, "onnx_sha256", HA, "quant_config_sha256", HA,
	    "calibration_manifest_sha256", HA, "compiler", "oci_digest",
	    "sha256:x", "calbin_tree_sha256", HA, "reports",
	    "path", "../../../07-serving/soak/r/summary.json", "sha256", HA,
	    "path", "../../../06-runtime/perf.json", "sha256", HA);
}

static void
fake_release(struct fake *f, json_t *m)
{
	json_decref(f->files);
	json_decref(f->members);
	json_decref(m);
}

static void
words_are(const struct relverdict *v, const char *want)
{
	char words[1024];

	relverdict_words(v, words, sizeof words);
	assert_string_equal(words, want);
}

/* The candidate, signed and not revoked: it verifies when its bindings
 * match, and a bound report that changed is said by name, first. */
static void
test_candidate(void **state)
{
	struct relverdict v;
	struct fake f;
	json_t *m = manifest(&f);

	(void)state;
	assert_int_equal(strlen(HA), HASH_HEX_LEN);
	relverdict_init(&v, 3, true);
	relverdict_signature(&v, RV_SIG_OK, "mei.chen", NULL);
	relverdict_bindings(&v, m, &fake_ops, &f);
	relverdict_judge(&v);
	assert_true(v.verifies);
	assert_int_equal(v.bind, RV_BIND_MATCH);
	assert_string_equal(v.problem, "");
	words_are(&v, "verifies: signed by a trusted key; not revoked; "
	    "bindings match today's artifacts");

	json_object_set_new(f.files, "07-serving/soak/r/summary.json",
	    json_string(HB));
	relverdict_bindings(&v, m, &fake_ops, &f);
	relverdict_judge(&v);
	assert_false(v.verifies);
	assert_int_equal(v.bind, RV_BIND_CHANGED);
	assert_int_equal(v.nchanges, 1);
	assert_int_equal(v.changes[0].kind, RVC_CHANGED);
	assert_string_equal(v.changes[0].what, "07-serving/soak/r/summary.json");
	assert_string_equal(v.changes[0].ptr, "/reports/0");
	/* G10's words, the verdict's problem. */
	assert_string_equal(v.problem, "07-serving/soak/r/summary.json changed "
	    "since generation 3 was signed (now bbbbbbbbbbbb…, bound "
	    "aaaaaaaaaaaa…)");
	words_are(&v, "does not verify: bindings changed: "
	    "07-serving/soak/r/summary.json; signed by a trusted key; not "
	    "revoked");
	relverdict_release(&v);
	fake_release(&f, m);
}

/* Every way a binding does not hold, in G10's order; the words name three
 * and count the rest. */
static void
test_bindings(void **state)
{
	struct relverdict v;
	struct fake f;
	json_t *m = manifest(&f);

	(void)state;
	relverdict_init(&v, 3, true);
	relverdict_signature(&v, RV_SIG_OK, "mei.chen", NULL);
	json_object_del(m, "onnx_sha256");
	json_object_del(f.files, "03-quant/quant-config.yaml");
	json_object_set_new(f.files, "05-calbin/package", json_string(HC));
	json_object_set_new(json_object_get(f.members,
	    "04-compiler/compiler-manifest.json"), "oci_digest",
	    json_string("sha256:y"));
	f.outside = "../../../06-runtime/perf.json";
	relverdict_bindings(&v, m, &fake_ops, &f);
	relverdict_judge(&v);
	assert_false(v.verifies);
	assert_int_equal(v.nchanges, 5);
	assert_string_equal(v.changes[0].message, "the manifest binds no "
	    "02-onnx/model.onnx");
	assert_int_equal(v.changes[0].kind, RVC_UNBOUND);
	assert_string_equal(v.changes[1].message, "03-quant/quant-config.yaml "
	    "is bound but no longer exists");
	assert_int_equal(v.changes[1].kind, RVC_GONE);
	assert_string_equal(v.changes[2].what, "the compiler container "
	    "(oci_digest)");
	assert_string_equal(v.changes[3].what, "the calbin package tree");
	assert_int_equal(v.changes[4].kind, RVC_BAD_PATH);
	assert_string_equal(v.changes[4].ptr, "/reports/1");
	assert_string_equal(v.problem, "the manifest binds no "
	    "02-onnx/model.onnx (and more bindings that do not hold)");
	words_are(&v, "does not verify: bindings changed: 02-onnx/model.onnx, "
	    "03-quant/quant-config.yaml, the compiler container (oci_digest) "
	    "and 2 more; signed by a trusted key; not revoked");

	/* A content URI binds no file here; no 'reports' array binds none. */
	fake_release(&f, m);
	m = manifest(&f);
	f.uri = "cas://sha256/aa";
	json_object_set_new(json_array_get(json_object_get(m, "reports"), 1),
	    "path", json_string(f.uri));
	relverdict_bindings(&v, m, &fake_ops, &f);
	assert_int_equal(v.bind, RV_BIND_MATCH);
	json_object_set_new(m, "reports", json_string("see the wiki"));
	relverdict_bindings(&v, m, &fake_ops, &f);
	assert_int_equal(v.nchanges, 1);
	assert_string_equal(v.changes[0].message, "the manifest binds no "
	    "reports (no 'reports' array)");
	relverdict_release(&v);
	fake_release(&f, m);
}

/* Signature and revocation come first, and the candidate's bindings are
 * part of it: left unchecked, it does not verify (fail closed). */
static void
test_rule(void **state)
{
	struct relverdict v;

	(void)state;
	relverdict_init(&v, 1, false);
	relverdict_signature(&v, RV_SIG_OK, "sven", NULL);
	relverdict_judge(&v);
	assert_true(v.verifies);
	words_are(&v, "verifies: signed by a trusted key; not revoked; "
	    "bindings not checked (not the candidate)");

	relverdict_revocation(&v, RV_REV_YES, "generation 1 is revoked");
	relverdict_judge(&v);
	assert_false(v.verifies);
	assert_string_equal(v.problem, "generation 1 is revoked");
	words_are(&v, "does not verify: revoked; signed by a trusted key; "
	    "bindings not checked (not the candidate)");

	relverdict_init(&v, 3, true);
	relverdict_signature(&v, RV_SIG_UNTRUSTED, NULL, "generation 3's "
	    "manifest has no signature that verifies with a trusted key");
	relverdict_judge(&v);
	assert_false(v.verifies);
	assert_string_equal(v.signer, "");
	words_are(&v, "does not verify: not signed by a trusted key; not "
	    "revoked; bindings not checked");

	relverdict_signature(&v, RV_SIG_OK, "mei.chen", NULL);
	relverdict_judge(&v);
	assert_false(v.verifies);
	words_are(&v, "does not verify: bindings not checked; signed by a "
	    "trusted key; not revoked");

	relverdict_revocation(&v, RV_REV_UNKNOWN, "revocations.json has no "
	    "signature that verifies");
	relverdict_judge(&v);
	assert_string_equal(v.problem, "revocations.json has no signature "
	    "that verifies");
	words_are(&v, "does not verify: revocations untrusted; signed by a "
	    "trusted key; bindings not checked");

	relverdict_revocation(&v, RV_REV_NO, NULL);
	relverdict_not_judged(&v, "its bindings cannot be checked: no such "
	    "folder");
	relverdict_judge(&v);
	assert_false(v.verifies);
	assert_string_equal(v.problem, "its bindings cannot be checked: no "
	    "such folder");
	words_are(&v, "does not verify: bindings not judged; signed by a "
	    "trusted key; not revoked");

	relverdict_init(&v, 4, false);
	relverdict_signature(&v, RV_SIG_UNREADABLE, NULL, "generations/4/"
	    "release-manifest.json is missing");
	relverdict_judge(&v);
	words_are(&v, "does not verify: no manifest to verify; not revoked; "
	    "bindings not checked (not the candidate)");
	relverdict_release(&v);
}

/* The JSON the status, verify and apply --hold carry; a copy of the
 * bindings (apply --hold's, reused) says the same. */
static void
test_json(void **state)
{
	struct relverdict v, w;
	struct fake f;
	json_t *m = manifest(&f), *j, *c;

	(void)state;
	relverdict_init(&v, 3, true);
	relverdict_signature(&v, RV_SIG_OK, "mei.chen", NULL);
	json_object_set_new(f.files, "02-onnx/model.onnx", json_string(HB));
	relverdict_bindings(&v, m, &fake_ops, &f);
	v.cached = true;
	relverdict_judge(&v);
	j = relverdict_json(&v);
	assert_false(json_is_true(json_object_get(j, "verifies")));
	assert_true(json_is_true(json_object_get(j, "candidate")));
	assert_string_equal(json_string_value(json_object_get(j, "signature")),
	    "ok");
	assert_string_equal(json_string_value(json_object_get(j, "signer")),
	    "mei.chen");
	assert_string_equal(json_string_value(json_object_get(j, "revoked")),
	    "no");
	assert_string_equal(json_string_value(json_object_get(j, "bindings")),
	    "changed");
	assert_true(json_is_true(json_object_get(j, "cache")));
	c = json_array_get(json_object_get(j, "changed"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "what")),
	    "02-onnx/model.onnx");
	assert_string_equal(json_string_value(json_object_get(c, "how")),
	    "changed");
	assert_string_equal(json_string_value(json_object_get(c, "pointer")),
	    "/onnx_sha256");
	assert_string_equal(json_string_value(json_object_get(j, "problem")),
	    v.problem);
	assert_string_equal(json_string_value(json_object_get(j, "words")),
	    "does not verify: bindings changed: 02-onnx/model.onnx; signed "
	    "by a trusted key; not revoked");

	relverdict_init(&w, 3, true);
	relverdict_signature(&w, RV_SIG_OK, "mei.chen", NULL);
	relverdict_copy_bindings(&w, &v);
	relverdict_judge(&w);
	json_decref(j);
	j = relverdict_json(&w);
	c = relverdict_json(&v);
	assert_true(json_equal(j, c));
	json_decref(c);
	json_decref(j);

	relverdict_release(&v);
	relverdict_init(&v, 2, false);
	relverdict_judge(&v);
	j = relverdict_json(&v);
	assert_true(json_is_null(json_object_get(j, "signer")));
	assert_true(json_is_null(json_object_get(j, "cache")));
	assert_string_equal(json_string_value(json_object_get(j, "bindings")),
	    "not_checked");
	json_decref(j);
	relverdict_release(&w);
	relverdict_release(&v);
	fake_release(&f, m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_candidate),
		cmocka_unit_test(test_bindings),
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_gates_b.c: the gate engine on generated workspaces, part two: G6-G10,
 * G<n>.owner/parse/path for every gate, ticket progress (workspace.md §6)
 * and `calops check` end to end (§8).
 */
#include "calops.h"

#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "ws/hash.h"
#include "ws/hashtree.h"
#include "wsfixture.h"

#define VALIDATION "05-calbin/validation.json"
#define LISTING "05-calbin/file-sha256.txt"
#define PACKAGE "05-calbin/package"
#define GOLDEN "06-runtime/correctness/golden.json"
#define KVFULL "06-runtime/faults/kv-full.json"
#define PERF "06-runtime/performance/perf-matrix.json"
#define SERVICE "07-serving/service-manifest.json"
#define CONFORMANCE "07-serving/conformance/runner-vs-server.json"
#define API "07-serving/conformance/api-matrix.json"
#define SOAK "07-serving/soak"
#define RUN24 "07-serving/soak/2026-09-21-24h"
#define SOURCE "00-source/source-manifest.json"
#define GEN1 "08-release/generations/1/release-manifest.json"
#define GEN2 "08-release/generations/2/release-manifest.json"
#define GEN3 "08-release/generations/3/release-manifest.json"
#define CURRENT "08-release/current"
#define AUDIT "08-release/audit.jsonl"
#define KEYS "08-release/trusted-keys"

#define ZEROS "0000000000000000000000000000000000000000000000000000000000000000"

/* Rewrite file-sha256.txt from today's package/ with the real tree walk;
 * returns the tree hash (into hex). */
static void
relist_package(struct wsfix *w, char hex[HASH_HEX_LEN + 1])
{
	struct hasher_opts o = { .use_cache = false, .threads = 1 };
	struct hasher *h = hash_new(&o);
	char *dir = ws_path(w, PACKAGE);
	struct buf text = BUF_INIT;
	struct tree t;
	size_t i;

	memset(&t, 0, sizeof t);
	assert_int_equal(hashtree_hash(h, dir, NULL, &t), 0);
	buf_adds(&text, "");
	for (i = 0; i < t.nfiles; i++)
		assert_int_equal(hashtree_line(&text, t.files[i].hash.hex,
		    t.files[i].path, "", false), 0);
	ws_write_str(w, LISTING, text.data);
	memcpy(hex, t.hex, HASH_HEX_LEN + 1);
	buf_release(&text);
	free(dir);
	hashtree_release(&t);
	hash_free(h);
}

/* ---- G6 ---- */

static void
g6_errors(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* The validator's own WARNs surface as warnings; the gate passes. */
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_PASS);
	expect_finding_msg(ev, "G6", "G6.errors", SEV_WARN, "W-ALIGN-004");
	expect_finding_msg(ev, "G6", "G6.errors", SEV_WARN, "W-MASK-002");

	ws_json_set(w, VALIDATION, "/findings/-", json_pack("{s:s,s:s,s:s,s:s}",
	    "level", "ERROR", "code", "E-CSR-001", "file", "csr/layout.json",
	    "message", "bad CSR layout"));
	ws_json_set(w, VALIDATION, "/summary/ERROR", json_integer(1));
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding_msg(ev, "G6", "G6.errors", SEV_ERROR, "E-CSR-001");
	expect_finding_msg(ev, "G6", "G6.errors", SEV_ERROR, "1 error");

	ws_reset(w, "summary disagrees with the findings");
	ws_json_set(w, VALIDATION, "/summary/WARN", json_integer(3));
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding_msg(ev, "G6", "G6.errors", SEV_ERROR, "summary says 3");

	ws_reset(w, "unknown level");
	ws_json_set(w, VALIDATION, "/findings/0/level", json_string("FATAL"));
	ev = ws_eval(w);
	expect_finding(ev, "G6", "G6.errors", SEV_ERROR);

	ws_reset(w, "no summary");
	ws_json_set(w, VALIDATION, "/summary", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G6", "G6.errors", SEV_ERROR);
}

static void
g6_repro(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, VALIDATION, "/findings/-", json_pack("{s:s,s:s,s:s,s:s}",
	    "level", "BLOCKED_REPRODUCIBILITY", "code", "B-REPRO-001", "file",
	    "calbin.json", "message", "no replay build to compare with"));
	ws_json_set(w, VALIDATION, "/summary/BLOCKED_REPRODUCIBILITY",
	    json_integer(1));
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_BLOCKED);
	expect_finding_msg(ev, "G6", "G6.repro", SEV_BLOCKED, "B-REPRO-001");
	expect_no_finding(ev, "G6", "G6.errors");

	ws_reset(w, "summary only");
	ws_json_set(w, VALIDATION, "/summary/BLOCKED_REPRODUCIBILITY",
	    json_integer(2));
	ev = ws_eval(w);
	expect_finding(ev, "G6", "G6.repro", SEV_BLOCKED);
	expect_finding(ev, "G6", "G6.errors", SEV_ERROR);	/* 2 vs 0 */
	expect_status(ev, "G6", GS_FAIL);
}

static void
g6_hashes(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_append(w, PACKAGE "/csr/layout.json", " ");
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_ERROR, "csr/layout.json");
	expect_finding(ev, "G6", "G6.bound", SEV_STALE);

	ws_reset(w, "an unlisted file");
	ws_write_str(w, PACKAGE "/extra.bin", "x");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_ERROR, "not listed");

	ws_reset(w, "a listed file that is not there");
	ws_append(w, LISTING, ZEROS "  ghost.bin\n");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_ERROR, "ghost.bin");

	ws_reset(w, "listed twice");
	ws_append(w, LISTING, "46d8da7f1a5f88718a6265b8487093ddf6e0ba8114d79cd8"
	    "8998d77ed899a67b  calbin.json\n");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_ERROR, "twice");

	ws_reset(w, "a malformed line");
	ws_append(w, LISTING, "hello\n");
	ev = ws_eval(w);
	expect_finding(ev, "G6", "G6.hashes", SEV_ERROR);

	ws_reset(w, "a line dropped");
	ws_delete_lines(w, LISTING, 3, 1);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_ERROR, "not listed");

	ws_reset(w, "no listing");
	ws_remove(w, LISTING);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_ERROR, "missing");

	ws_reset(w, "no package");
	ws_remove(w, PACKAGE);
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding(ev, "G6", "G6.hashes", SEV_ERROR);
	/* G7 and G8 skip their bound check without the package. */
	expect_finding(ev, "G7", "G7.bound", SEV_WARN);
	expect_finding(ev, "G8", "G8.bound", SEV_WARN);
}

/* Names holding LF, backslash or an escape sequence are listed as
 * sha256sum lists them; what is neither file nor folder fails G6. */
static void
g6_hostile_names(void **state)
{
	struct wsfix *w = *state;
	char hex[HASH_HEX_LEN + 1];
	struct eval *ev;

	ws_write_str(w, PACKAGE "/lf\nname", "1");
	ws_write_str(w, PACKAGE "/back\\slash", "2");
	ws_write_str(w, PACKAGE "/osc\x1b]52;c;aGk=\x07", "3");
	relist_package(w, hex);
	ws_json_set(w, VALIDATION, "/package_tree_sha256", json_string(hex));
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_PASS);
	expect_no_finding(ev, "G6", "G6.hashes");

	ws_replace(w, LISTING, "lf\\nname", "lf\\tname");
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_ERROR,
	    "an escape other than");
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_ERROR,
	    "of package/ is not listed");

	ws_reset(w, "a FIFO in package/");
	ws_mkfifo(w, PACKAGE "/chip0/fifo");
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_ERROR,
	    "/chip0/fifo': not a regular file: a FIFO");
	expect_finding(ev, "G7", "G7.bound", SEV_WARN);
}

static void
g6_bound(void **state)
{
	struct wsfix *w = *state;
	char hex[HASH_HEX_LEN + 1];
	struct eval *ev;

	/* A rebuilt package with a correct listing, validated earlier. */
	ws_append(w, PACKAGE "/csr/layout.json", " ");
	relist_package(w, hex);
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_STALE);
	expect_finding(ev, "G6", "G6.bound", SEV_STALE);
	expect_no_finding(ev, "G6", "G6.hashes");
	expect_status(ev, "G7", GS_STALE);
	expect_finding(ev, "G7", "G7.bound", SEV_STALE);
	expect_status(ev, "G8", GS_STALE);
	expect_finding(ev, "G8", "G8.bound", SEV_STALE);
	expect_finding(ev, "G10", "G10.bindings", SEV_STALE);

	/* Validated again: holds. */
	ws_json_set(w, VALIDATION, "/package_tree_sha256", json_string(hex));
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_PASS);
	expect_no_finding(ev, "G6", "G6.bound");
}

static void
g6_single_chip(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, VALIDATION, "/chip_nums", json_integer(2));
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding(ev, "G6", "G6.single_chip", SEV_ERROR);

	ws_reset(w, "a two-chip target allows two");
	ws_json_set(w, VALIDATION, "/chip_nums", json_integer(2));
	ws_json_set(w, SOURCE, "/targets/chips", json_pack("[i,i]", 1, 2));
	ev = ws_eval(w);
	expect_no_finding(ev, "G6", "G6.single_chip");
	expect_status(ev, "G6", GS_PASS);

	ws_reset(w, "chip_nums missing");
	ws_json_set(w, VALIDATION, "/chip_nums", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G6", "G6.single_chip", SEV_ERROR);
}

/* An empty package with an empty listing: the listing rule, over every
 * file of package/, judged nothing (workspace.md §6, v3). */
static void
g6_hashes_empty_package(void **state)
{
	struct wsfix *w = *state;
	const struct gate_result *gr;
	struct eval *ev;

	ws_remove(w, PACKAGE);
	ws_mkdir(w, PACKAGE);
	ws_write_str(w, LISTING, "");
	ev = ws_eval(w);
	gr = gate_of(ev, "G6");
	expect_no_finding(ev, "G6", "G6.hashes");
	expect_finding_msg(ev, "G6", "G6.hashes", SEV_WARN,
	    "nothing to judge");
	assert_int_equal(gate_check_verdict(gr, "G6.hashes", false),
	    CV_NOT_JUDGED);
	assert_int_equal(gate_check_verdict(gr, "G6.errors", false), CV_HELD);
}

static void
g6_parse_and_path(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_symlink(w, "/etc/passwd", PACKAGE "/passwd");
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding_msg(ev, "G6", "G6.path", SEV_ERROR, "passwd");
	expect_no_finding(ev, "G6", "G6.hashes");	/* a link is no file */

	ws_reset(w, "a link inside the workspace");
	ws_symlink(w, "../../00-source/hf-config/LICENSE", PACKAGE "/LICENSE");
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_PASS);
	expect_no_finding(ev, "G6", "G6.path");

	/* A loop and a dangling link stay in: each is said as it is. */
	ws_reset(w, "a symlink loop and a dangling link");
	ws_symlink(w, "loop-b", PACKAGE "/loop-a");
	ws_symlink(w, "loop-a", PACKAGE "/loop-b");
	ws_symlink(w, "nothere", PACKAGE "/dangling");
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding_msg(ev, "G6", "G6.path", SEV_ERROR,
	    "'loop-a' -> 'loop-b' is a symlink loop");
	expect_finding_msg(ev, "G6", "G6.path", SEV_ERROR,
	    "'dangling' -> 'nothere' dangles");

	ws_reset(w, "bad JSON");
	ws_write_str(w, VALIDATION, "{\"summary\": {\"ERROR\": 0}");
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding(ev, "G6", "G6.parse", SEV_ERROR);

	ws_reset(w, "the listing is a folder");
	ws_mkdir(w, LISTING);
	ev = ws_eval(w);
	expect_status(ev, "G6", GS_FAIL);
	expect_finding(ev, "G6", "G6.parse", SEV_ERROR);
}

/* ---- G7 ---- */

static void
g7_golden(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, GOLDEN, "/cases/15", NULL);	/* (M-1, 1) */
	ev = ws_eval(w);
	expect_status(ev, "G7", GS_FAIL);
	expect_finding_msg(ev, "G7", "G7.golden", SEV_ERROR,
	    "prefill 8191 decode 1");

	ws_reset(w, "a mismatch");
	ws_json_set(w, GOLDEN, "/cases/4/kv_len_match", json_false());
	ev = ws_eval(w);
	expect_finding_msg(ev, "G7", "G7.golden", SEV_ERROR, "kv_len_match");

	ws_reset(w, "reuse_seq");
	ws_json_set(w, GOLDEN, "/reuse_seq", json_false());
	ev = ws_eval(w);
	expect_finding(ev, "G7", "G7.golden", SEV_ERROR);

	ws_reset(w, "interleave missing");
	ws_json_set(w, GOLDEN, "/interleave", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G7", "G7.golden", SEV_ERROR);

	ws_reset(w, "a smaller context needs other cases");
	ws_json_set(w, SOURCE, "/targets/context", json_pack("[i]", 4096));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G7", "G7.golden", SEV_ERROR,
	    "prefill 4095 decode 1");
}

static void
g7_faults(void **state)
{
	static const char *const keys[] = { "/structured_error", "/aborted",
	    "/recovered" };
	struct wsfix *w = *state;
	struct eval *ev;
	size_t i;

	ws_remove(w, KVFULL);
	ev = ws_eval(w);
	expect_status(ev, "G7", GS_FAIL);
	expect_finding_msg(ev, "G7", "G7.faults", SEV_ERROR, "kv-full");

	for (i = 0; i < nitems(keys); i++) {
		ws_reset(w, keys[i]);
		ws_json_set(w, KVFULL, keys[i], json_boolean(i == 1));
		ev = ws_eval(w);
		expect_status(ev, "G7", GS_FAIL);
		expect_finding(ev, "G7", "G7.faults", SEV_ERROR);
	}

	ws_reset(w, "the wrong scenario");
	ws_json_set(w, KVFULL, "/scenario", json_string("bad-csr"));
	ev = ws_eval(w);
	expect_finding(ev, "G7", "G7.faults", SEV_ERROR);

	ws_reset(w, "error_code missing");
	ws_json_set(w, KVFULL, "/error_code", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G7", "G7.faults", SEV_ERROR);

	ws_reset(w, "recover_ms a string");
	ws_json_set(w, KVFULL, "/recover_ms", json_string("9 ms"));
	ev = ws_eval(w);
	expect_finding(ev, "G7", "G7.faults", SEV_ERROR);
}

static void
g7_bound_parse_path(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, GOLDEN, "/calbin_tree_sha256", json_string(ZEROS));
	ev = ws_eval(w);
	expect_status(ev, "G7", GS_STALE);
	expect_finding(ev, "G7", "G7.bound", SEV_STALE);
	expect_no_finding(ev, "G7", "G7.golden");

	ws_reset(w, "bad fault JSON");
	ws_write_str(w, KVFULL, "{\"scenario\": ");
	ev = ws_eval(w);
	expect_status(ev, "G7", GS_FAIL);
	expect_finding(ev, "G7", "G7.parse", SEV_ERROR);

	ws_reset(w, "golden not an object");
	ws_write_str(w, GOLDEN, "[]");
	ev = ws_eval(w);
	expect_finding(ev, "G7", "G7.parse", SEV_ERROR);

	ws_reset(w, "a fault file outside");
	ws_symlink(w, "/etc/passwd", KVFULL);
	ev = ws_eval(w);
	expect_status(ev, "G7", GS_FAIL);
	expect_finding(ev, "G7", "G7.path", SEV_ERROR);
}

/* ---- G8 ---- */

static void
g8_manifest(void **state)
{
	static const char *const gone[] = { "/submodels/decode/logits",
	    "/submodels/prefill_ids", "/csr/total", "/limits/batch",
	    "/generation", "/csr" };
	struct wsfix *w = *state;
	struct eval *ev;
	size_t i;

	for (i = 0; i < nitems(gone); i++) {
		ws_reset(w, gone[i]);
		ws_json_set(w, SERVICE, gone[i], NULL);
		ev = ws_eval(w);
		expect_status(ev, "G8", GS_FAIL);
		expect_finding(ev, "G8", "G8.manifest", SEV_ERROR);
	}
	ws_reset(w, "generation a string");
	ws_json_set(w, SERVICE, "/generation", json_string("2"));
	ev = ws_eval(w);
	expect_finding(ev, "G8", "G8.manifest", SEV_ERROR);
}

static void
g8_limits(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SERVICE, "/limits/vocab", json_integer(151937));
	ev = ws_eval(w);
	expect_status(ev, "G8", GS_FAIL);
	expect_finding_msg(ev, "G8", "G8.limits", SEV_ERROR, "151937");

	ws_reset(w, "context past the targets");
	ws_json_set(w, SERVICE, "/limits/context", json_integer(16384));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G8", "G8.limits", SEV_ERROR, "16384");

	ws_reset(w, "a smaller context holds");
	ws_json_set(w, SERVICE, "/limits/context", json_integer(4096));
	ev = ws_eval(w);
	expect_status(ev, "G8", GS_PASS);
	expect_no_finding(ev, "G8", "G8.limits");
}

static void
g8_conformance(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, CONFORMANCE, "/token_match", json_integer(117));
	ev = ws_eval(w);
	expect_status(ev, "G8", GS_FAIL);
	expect_finding_msg(ev, "G8", "G8.conformance", SEV_ERROR, "117 of 118");

	ws_reset(w, "no cases");
	ws_json_set(w, CONFORMANCE, "/cases", json_integer(0));
	ws_json_set(w, CONFORMANCE, "/token_match", json_integer(0));
	ev = ws_eval(w);
	expect_finding(ev, "G8", "G8.conformance", SEV_ERROR);

	ws_reset(w, "logits past tol");
	ws_json_set(w, CONFORMANCE, "/logits_max_abs_err", json_real(0.002));
	ev = ws_eval(w);
	expect_finding(ev, "G8", "G8.conformance", SEV_ERROR);

	ws_reset(w, "missing");
	ws_remove(w, CONFORMANCE);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G8", "G8.conformance", SEV_ERROR, "missing");
}

static void
g8_bound_parse_path(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SERVICE, "/calbin_sha256", json_string(ZEROS));
	ev = ws_eval(w);
	expect_status(ev, "G8", GS_STALE);
	expect_finding(ev, "G8", "G8.bound", SEV_STALE);

	ws_reset(w, "bound hash missing");
	ws_json_set(w, SERVICE, "/calbin_sha256", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G8", "G8.bound", SEV_ERROR);

	ws_reset(w, "bad conformance JSON");
	ws_write_str(w, CONFORMANCE, "{,}");
	ev = ws_eval(w);
	expect_status(ev, "G8", GS_FAIL);
	expect_finding(ev, "G8", "G8.parse", SEV_ERROR);

	ws_reset(w, "manifest outside");
	ws_symlink(w, "/etc/passwd", SERVICE);
	ev = ws_eval(w);
	expect_status(ev, "G8", GS_FAIL);
	expect_finding(ev, "G8", "G8.path", SEV_ERROR);
}

/* ---- G9 ---- */

static void
g9_api(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, API, "/features/logprobs", NULL);
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding_msg(ev, "G9", "G9.api", SEV_ERROR, "logprobs");

	ws_reset(w, "declared, did not pass");
	ws_json_set(w, API, "/features/cancel/passed", json_false());
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.api", SEV_ERROR, "cancel");

	ws_reset(w, "kv_state declared");
	ws_json_set(w, API, "/features/kv_state/declared", json_true());
	ws_json_set(w, API, "/features/kv_state/passed", json_true());
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.api", SEV_ERROR, "kv_state");

	ws_reset(w, "prompt_sharing declared");
	ws_json_set(w, API, "/features/prompt_sharing/declared", json_true());
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.api", SEV_ERROR, "prompt_sharing");

	ws_reset(w, "not declared, not passed: holds");
	ws_json_set(w, API, "/features/logprobs/declared", json_false());
	ws_json_set(w, API, "/features/logprobs/passed", json_false());
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_PASS);
	expect_no_finding(ev, "G9", "G9.api");

	ws_reset(w, "declared a string");
	ws_json_set(w, API, "/features/stream/declared", json_string("yes"));
	ev = ws_eval(w);
	expect_finding(ev, "G9", "G9.api", SEV_ERROR);
}

static void
g9_perf(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, PERF, "/cells/75", NULL);
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding_msg(ev, "G9", "G9.perf", SEV_ERROR, "no cell");

	ws_reset(w, "a value missing");
	ws_json_set(w, PERF, "/cells/3/tpot_ms_p99", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G9", "G9.perf", SEV_ERROR);

	ws_reset(w, "missing");
	ws_remove(w, PERF);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.perf", SEV_ERROR, "missing");
}

static const struct soakspec good_run = {
	.t0 = 1790000000.0, .span = 90000.0, .requests = 400,
	.ttft_base = 100.0, .tpot_base = 30.0, .failures = 0,
	.mem_samples = 240, .rss_growth = 0.0,
};

static void
g9_soak_summary(void **state)
{
	struct wsfix *w = *state;
	struct soaksum sum;
	struct eval *ev;

	/* Replace the release soak by one written here: it holds. */
	ws_remove(w, RUN24);
	ws_write_soak(w, "2026-09-21-24h", &good_run, &sum);
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_PASS);
	expect_no_finding(ev, "G9", "G9");
	expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO, "25.0 h");

	/* 1.5 % off: within 2 %, holds. */
	ws_json_set(w, RUN24 "/summary.json", "/ttft_ms_p99",
	    json_real(sum.ttft_p99 * 1.015));
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_PASS);
	expect_no_finding(ev, "G9", "G9.soak");

	/* 3 % off: an error, and the run no longer counts. */
	ws_json_set(w, RUN24 "/summary.json", "/ttft_ms_p99",
	    json_real(sum.ttft_p99 * 1.03));
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "ttft_ms_p99");
	expect_finding(ev, "G9", "G9.duration", SEV_ERROR);

	ws_json_set(w, RUN24 "/summary.json", "/ttft_ms_p99",
	    json_real(sum.ttft_p99));
	ws_json_set(w, RUN24 "/summary.json", "/success_rate", json_real(0.97));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "success_rate");

	ws_reset(w, "the generated summaries agree");
	ws_json_set(w, RUN24 "/summary.json", "/tpot_ms_p50", json_real(40.0));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "tpot_ms_p50");

	ws_reset(w, "summary missing");
	ws_remove(w, RUN24 "/summary.json");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "summary.json");

	ws_reset(w, "metrics missing");
	ws_remove(w, RUN24 "/metrics.jsonl");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "metrics.jsonl");
}

static void
g9_soak_sla(void **state)
{
	struct wsfix *w = *state;
	struct soakspec slow = good_run;
	struct soaksum sum;
	struct eval *ev;

	/* The generated soaks run at TPOT P99 ~36 ms: an SLA of 30 breaks. */
	ws_json_set(w, SOURCE, "/targets/sla/tpot_ms_p99", json_integer(30));
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_PASS);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "TPOT");

	ws_reset(w, "success rate");
	ws_json_set(w, SOURCE, "/targets/sla/success_rate_min", json_real(1.0));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "success rate");

	ws_reset(w, "a slow run, honestly summarised");
	slow.ttft_base = 1450.0;	/* P99 1548 ms > 1500 */
	ws_write_soak(w, "2026-09-25-25h", &slow, &sum);
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "TTFT");
	expect_no_severity(ev, "G9", "G9.soak", SEV_WARN);
	/* The 24 h run still passes on its own. */
	expect_no_finding(ev, "G9", "G9.duration");

	ws_reset(w, "failed requests");
	slow = good_run;
	slow.failures = 4;		/* 0.99 < 0.995 */
	ws_write_soak(w, "2026-09-25-25h", &slow, &sum);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "success rate");
	expect_no_severity(ev, "G9", "G9.soak", SEV_WARN);
}

static void
g9_leak(void **state)
{
	struct wsfix *w = *state;
	struct soakspec leak = good_run;
	struct soaksum sum;
	struct eval *ev;

	ws_remove(w, RUN24);
	leak.rss_growth = 2.0e6;	/* 480 MB over the run */
	ws_write_soak(w, "2026-09-21-24h", &leak, &sum);
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding_msg(ev, "G9", "G9.leak", SEV_ERROR, "rss_bytes");
	expect_no_finding(ev, "G9", "G9.soak");
	/* A leaking run is no passing run: only the 8 h one is left. */
	expect_finding(ev, "G9", "G9.duration", SEV_ERROR);
	expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO, "2026-09-03-8h");

	ws_reset(w, "growth under 1 MiB holds");
	ws_remove(w, RUN24);
	leak.rss_growth = 2000.0;	/* 480 kB */
	ws_write_soak(w, "2026-09-21-24h", &leak, &sum);
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_PASS);
	expect_no_finding(ev, "G9", "G9.leak");
}

static void
g9_duration(void **state)
{
	struct wsfix *w = *state;
	struct soakspec shortrun = good_run;
	struct soaksum sum;
	struct eval *ev;

	ws_remove(w, RUN24);
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding(ev, "G9", "G9.duration", SEV_ERROR);
	expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO, "2026-09-03-8h");
	expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO, "candidate");
	expect_no_finding(ev, "G9", "G9.soak");

	/* Only the 1 h run: development evidence. */
	ws_remove(w, SOAK "/2026-09-03-8h");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO, "development");

	/* 23 h 59 min is not 24 h. */
	shortrun.span = 86340.0;
	ws_write_soak(w, "2026-09-30-24h", &shortrun, &sum);
	ev = ws_eval(w);
	expect_finding(ev, "G9", "G9.duration", SEV_ERROR);
	expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO, "2026-09-30-24h");

	/* Exactly 24 h is. */
	ws_remove(w, SOAK "/2026-09-30-24h");
	shortrun.span = 86400.0;
	ws_write_soak(w, "2026-09-30-24h", &shortrun, &sum);
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_PASS);
	expect_no_finding(ev, "G9", "G9.duration");

	ws_reset(w, "no soak at all");
	ws_remove(w, SOAK);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.duration", SEV_ERROR, "no soak run");
}

static void
g9_parse_and_path(void **state)
{
	struct wsfix *w = *state;
	const struct finding *f;
	struct eval *ev;

	ws_append(w, RUN24 "/metrics.jsonl", "{\"type\": \"metric\", \n");
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	f = find_finding(ev, "G9", "G9.parse", SEV_ERROR);
	assert_non_null(f);
	assert_string_equal(f->path, RUN24 "/metrics.jsonl");
	assert_true(strncmp(f->where, "1733:", 5) == 0);

	ws_reset(w, "a metric event without ts");
	ws_append(w, RUN24 "/metrics.jsonl",
	    "{\"type\":\"metric\",\"values\":{\"ttft_ms\":1}}\n");
	ev = ws_eval(w);
	expect_finding(ev, "G9", "G9.parse", SEV_ERROR);

	ws_reset(w, "other event types are ignored");
	ws_append(w, RUN24 "/metrics.jsonl",
	    "{\"type\":\"log\",\"level\":\"info\",\"msg\":\"bye\"}\n");
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_PASS);

	ws_reset(w, "bad API matrix");
	ws_write_str(w, API, "{\"features\": }");
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding(ev, "G9", "G9.parse", SEV_ERROR);

	ws_reset(w, "a soak run folder outside");
	ws_symlink(w, "/tmp", SOAK "/2026-10-01-elsewhere");
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding(ev, "G9", "G9.path", SEV_ERROR);

	ws_reset(w, "summary is a FIFO");
	ws_mkfifo(w, RUN24 "/summary.json");
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding(ev, "G9", "G9.parse", SEV_ERROR);
}

/* ---- G10 ---- */

static void
g10_signature(void **state)
{
	struct wsfix *w = *state;
	EVP_PKEY *other;
	char *pem;
	struct eval *ev;

	/* One byte of the manifest changed after signing. */
	ws_replace(w, GEN2, "\"observation_window_h\": 72",
	    "\"observation_window_h\": 73");
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding(ev, "G10", "G10.signature", SEV_ERROR);
	expect_finding(ev, "G10", "G10.current", SEV_ERROR);
	expect_no_finding(ev, "G10", "G10.bindings");

	/* Signed again by the release owner: holds. */
	ws_sign(w, GEN2, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_PASS);

	/* Signed by a key nobody trusts. */
	other = untrusted_key();
	ws_sign(w, GEN2, other);
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding(ev, "G10", "G10.signature", SEV_ERROR);

	/* Trusting that key makes it hold. */
	pem = pubkey_pem(other);
	ws_write_str(w, KEYS "/deputy2.pub", pem);
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_PASS);
	expect_no_finding(ev, "G10", "G10.signature");
	free(pem);
	EVP_PKEY_free(other);

	ws_reset(w, "no signature");
	ws_remove(w, GEN2 ".sig");
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.signature", SEV_ERROR);

	ws_reset(w, "a garbage signature");
	ws_write_str(w, GEN2 ".sig", "bm90IGEgc2lnbmF0dXJl\n");
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.signature", SEV_ERROR);

	ws_reset(w, "no trusted keys");
	ws_remove(w, KEYS);
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.signature", SEV_ERROR);

	ws_reset(w, "a trusted key that is no key");
	ws_write_str(w, KEYS "/broken.pub", "-----BEGIN PUBLIC KEY-----\n");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.signature", SEV_ERROR, "broken");

	ws_reset(w, "a generation folder without a manifest");
	ws_mkdir(w, "08-release/generations/3");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.signature", SEV_ERROR, "3");
}

static void
g10_new_generation(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* Generation 3, signed, bound to today's artifacts: it holds, even
	 * before it is promoted. */
	ws_new_generation(w, 3, 2, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_PASS);
	expect_no_finding(ev, "G10", "G10");

	/* Promoted: current -> 3 and the audit record. */
	ws_symlink(w, "generations/3", CURRENT);
	ws_audit_append(w, release_key(), "mei.chen", "promote", 2, 3);
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_PASS);

	/* Rolled back to 1 (the pilot): signature only, so it holds. */
	ws_symlink(w, "generations/1", CURRENT);
	ws_audit_append(w, release_key(), "mei.chen", "rollback", 3, 1);
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_PASS);
	expect_no_finding(ev, "G10", "G10.current");
	expect_no_finding(ev, "G10", "G10.audit");
}

static void
g10_bindings(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* Generation 3 properly signed but bound to another ONNX: stale. */
	ws_new_generation(w, 3, 2, NULL);
	ws_json_set(w, GEN3, "/onnx_sha256", json_string(ZEROS));
	ws_sign(w, GEN3, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_STALE);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE, "model.onnx");
	expect_no_finding(ev, "G10", "G10.signature");

	ws_reset(w, "a bound report changed");
	ws_append(w, KVFULL, "\n");
	ev = ws_eval(w);
	expect_status(ev, "G7", GS_PASS);
	expect_status(ev, "G10", GS_STALE);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE, "kv-full");

	ws_reset(w, "model.onnx changed");
	ws_append(w, "02-onnx/model.onnx", "x");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE, "model.onnx");
	expect_status(ev, "G10", GS_FAIL);	/* G2 is stale upstream */
	expect_finding(ev, "G10", "G10.upstream", SEV_ERROR);

	ws_reset(w, "the quant config changed");
	ws_append(w, "03-quant/quant-config.yaml", "# reviewed\n");
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_STALE);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE, "quant-conf");

	ws_reset(w, "another compiler container");
	ws_json_set(w, "04-compiler/compiler-manifest.json", "/oci_digest",
	    json_string("sha256:" ZEROS));
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_PASS);
	expect_status(ev, "G10", GS_STALE);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE, "oci_digest");

	ws_reset(w, "a bound report gone");
	ws_remove(w, RUN24 "/summary.json");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE,
	    "no longer exists");

	/* G0's manifest there but unparsable, or a FIFO: the tokenizer is not
	 * "gone", its manifest cannot be read (issue 27). */
	ws_reset(w, "G0's manifest unparsable");
	ws_write_str(w, "00-source/source-manifest.json", "{\"tokenizer\": ");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE,
	    "the tokenizer (G0 manifest) is bound but cannot be read today: "
	    "'00-source/source-manifest.json' cannot be read");
	assert_null(strstr(find_finding(ev, "G10", "G10.bindings",
	    SEV_STALE)->message, "no longer exists"));
	ws_reset(w, "G0's manifest a FIFO");
	ws_remove(w, "00-source/source-manifest.json");
	ws_mkfifo(w, "00-source/source-manifest.json");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE,
	    "the tokenizer (G0 manifest) is bound but cannot be read today");
	ws_reset(w, "a bound report a FIFO");
	ws_remove(w, RUN24 "/summary.json");
	ws_mkfifo(w, RUN24 "/summary.json");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE,
	    "summary.json is bound but cannot be read today");

	ws_reset(w, "a candidate that binds no reports");
	ws_new_generation(w, 3, 2, NULL);
	ws_json_set(w, GEN3, "/reports", json_string("see the wiki"));
	ws_sign(w, GEN3, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_STALE);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE, "no reports");

	ws_reset(w, "a candidate that binds no ONNX");
	ws_new_generation(w, 3, 2, NULL);
	ws_json_set(w, GEN3, "/onnx_sha256", NULL);
	ws_sign(w, GEN3, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_STALE);
	expect_finding_msg(ev, "G10", "G10.bindings", SEV_STALE, "binds no");

	ws_reset(w, "a report path that leaves the workspace");
	ws_new_generation(w, 3, 2, NULL);
	ws_json_set(w, GEN3, "/reports/0/path",
	    json_string("../../../../etc/passwd"));
	ws_sign(w, GEN3, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding(ev, "G10", "G10.path", SEV_ERROR);
}

/*
 * 08-release itself a link out of the workspace: `current` is read on the
 * folder opened beneath the workspace, so the outside link's text is never
 * read nor quoted (it was, read by its path).
 */
static void
g10_current_release_outside(struct wsfix *w)
{
	char *rel = ws_path(w, "08-release"), *out = xasprintf("%s-out", w->dir);
	char *cur = xasprintf("%s/current", out);
	struct eval *ev;

	ws_reset(w, "08-release leads outside");
	assert_int_equal(rename(rel, out), 0);
	assert_int_equal(unlink(cur), 0);
	assert_int_equal(symlink("generations/77", cur), 0);
	assert_int_equal(symlink(out, rel), 0);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR,
	    "'current' cannot be read: ");
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR,
	    "outside the workspace");
	ws_rmtree(out);
	free(cur);
	free(out);
	free(rel);
}

static void
g10_current(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_remove(w, CURRENT);
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR, "missing");
	expect_no_finding(ev, "G10", "G10.audit");	/* current says it */

	ws_reset(w, "dangling");
	ws_symlink(w, "generations/9", CURRENT);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR, "resolve");
	expect_no_finding(ev, "G10", "G10.audit");

	ws_reset(w, "a loop");
	ws_symlink(w, "current", CURRENT);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR,
	    "is a symlink loop");

	/* Not "does not resolve": it resolves, outside (issue 27). */
	ws_reset(w, "outside");
	ws_symlink(w, "/tmp", CURRENT);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR,
	    "-> '/tmp' leads outside the workspace");

	ws_reset(w, "an unverified generation");
	ws_new_generation(w, 3, 2, NULL);
	ws_symlink(w, "generations/3", CURRENT);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR, "verify");
	expect_finding(ev, "G10", "G10.signature", SEV_ERROR);

	ws_reset(w, "generation 1 no longer verifies");
	ws_append(w, GEN1, " ");
	ws_symlink(w, "generations/1", CURRENT);
	ws_audit_append(w, release_key(), "mei.chen", "rollback", 2, 1);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR, "verify");
	expect_finding(ev, "G10", "G10.rollback", SEV_ERROR);
	expect_no_finding(ev, "G10", "G10.audit");

	ws_reset(w, "not a link");
	ws_remove(w, CURRENT);
	ws_mkdir(w, CURRENT);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR, "symbolic");

	ws_reset(w, "a FIFO");
	ws_mkfifo(w, CURRENT);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.current", SEV_ERROR, "symbolic");

	g10_current_release_outside(w);

	ws_reset(w, "not a generation");
	ws_symlink(w, "trusted-keys", CURRENT);
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.current", SEV_ERROR);

	ws_reset(w, "outside");
	ws_symlink(w, "/etc", CURRENT);
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.current", SEV_ERROR);
	expect_finding(ev, "G10", "G10.path", SEV_ERROR);
}

static void
g10_rollback(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_new_generation(w, 3, 7, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding_msg(ev, "G10", "G10.rollback", SEV_ERROR, "7");

	ws_new_generation(w, 3, -1, release_key());
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.rollback", SEV_ERROR);

	ws_new_generation(w, 3, 3, release_key());
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.rollback", SEV_ERROR);

	/* Any earlier signed generation will do. */
	ws_new_generation(w, 3, 1, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_PASS);
	expect_no_finding(ev, "G10", "G10.rollback");

	ws_reset(w, "the target does not parse");
	ws_write_str(w, GEN1, "{");
	ws_sign(w, GEN1, release_key());
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.rollback", SEV_ERROR, "parse");
}

static void
g10_audit(void **state)
{
	struct wsfix *w = *state;
	EVP_PKEY *other;
	struct eval *ev;

	/* A line edited. */
	ws_replace(w, AUDIT, "deputy approval", "deputy approval!");
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding_msg(ev, "G10", "G10.audit", SEV_ERROR, "record 1");

	/* A record appended properly holds; removing one from the middle
	 * breaks the chain. */
	ws_reset(w, "a line removed from the middle");
	ws_audit_append(w, release_key(), "mei.chen", "refused", 2, 3);
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_PASS);
	ws_delete_lines(w, AUDIT, 2, 1);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.audit", SEV_ERROR, "record 2");

	ws_reset(w, "the last line cut");
	{
		size_t len;
		char *data = ws_slurp(w, AUDIT, &len);

		ws_write_file(w, AUDIT, data, len - 20);
		free(data);
	}
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.audit", SEV_ERROR, "cut");

	ws_reset(w, "the last newline cut");
	{
		size_t len;
		char *data = ws_slurp(w, AUDIT, &len);

		ws_write_file(w, AUDIT, data, len - 1);
		free(data);
	}
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.audit", SEV_ERROR);

	ws_reset(w, "the last record removed");
	ws_delete_lines(w, AUDIT, 2, 1);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.audit", SEV_ERROR, "current");

	ws_reset(w, "a record signed by an untrusted key");
	other = untrusted_key();
	ws_audit_append(w, other, "mallory", "refused", 2, 3);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.audit", SEV_ERROR, "record 3");
	ws_reset(w, "an untrusted key under a trusted name");
	ws_audit_append(w, other, "mei.chen", "promote", 2, 2);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.audit", SEV_ERROR, "mei.chen");
	EVP_PKEY_free(other);

	ws_reset(w, "the last switch is not current");
	ws_symlink(w, "generations/1", CURRENT);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.audit", SEV_ERROR, "current");
	expect_no_finding(ev, "G10", "G10.current");

	ws_reset(w, "missing");
	ws_remove(w, AUDIT);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.audit", SEV_ERROR, "missing");
}

static void
g10_decision_upstream(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_remove(w, "08-release/decision.md");
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding(ev, "G10", "G10.decision", SEV_ERROR);

	ws_reset(w, "G4 blocked upstream");
	ws_replace(w, "03-quant/quant-config.yaml",
	    "method: calq.smoothquant_w8a8", "method: VENDOR_TOOL_METHOD");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.upstream", SEV_ERROR,
	    "G4 is blocked");
	expect_status(ev, "G10", GS_FAIL);
}

static size_t
count_findings(const struct eval *ev, const char *gate, const char *check)
{
	const struct gate_result *gr = gate_of(ev, gate);
	size_t i, n = 0;

	for (i = 0; i < gr->findings.n; i++)
		n += strcmp(gr->findings.v[i].check, check) == 0;
	return n;
}

static void
g10_parse_path_pending(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* The candidate is also current and the rollback target's
	 * successor: its parse error is reported once. */
	ws_write_str(w, GEN2, "{\"generation\": 2");
	ws_sign(w, GEN2, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	assert_int_equal(count_findings(ev, "G10", "G10.parse"), 1);
	expect_no_finding(ev, "G10", "G10.current");

	/* A candidate that is not JSON. */
	ws_write_str(w, GEN3, "{\"generation\": 3,");
	ws_sign(w, GEN3, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding(ev, "G10", "G10.parse", SEV_ERROR);

	/* Signed JSON that is not an object: never a silent pass. */
	ws_write_str(w, GEN3, "[]\n");
	ws_sign(w, GEN3, release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding(ev, "G10", "G10.parse", SEV_ERROR);

	ws_reset(w, "a trusted key outside");
	ws_symlink(w, "/etc/passwd", KEYS "/evil.pub");
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_FAIL);
	expect_finding(ev, "G10", "G10.path", SEV_ERROR);

	ws_reset(w, "the audit log outside");
	ws_symlink(w, "/etc/passwd", AUDIT);
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.path", SEV_ERROR);

	ws_reset(w, "no generations: pending");
	ws_remove(w, "08-release/generations");
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_PENDING);
	expect_project(ev, "G10", NULL);
}

/* ---- G<n>.owner, G<n>.parse, G<n>.path for every gate ---- */

static void
owners_every_gate(void **state)
{
	static const char *const generic[] = { "vendor", "Vendor Support",
	    "  VENDOR  ", "厂商支持" };
	struct wsfix *w = *state;
	const struct gate_result *gr;
	char *yaml, *line;
	struct eval *ev;
	size_t i, k;

	for (k = 0; k < nitems(generic); k++) {
		yaml = xstrdup("gates:\n");
		for (i = 0; i < GATE_COUNT; i++) {
			line = xasprintf("%s  %s: {owner: \"%s\", due: "
			    "2026-09-30}\n", yaml, gate_table[i].id,
			    generic[k]);
			free(yaml);
			yaml = line;
		}
		ws_reset(w, generic[k]);
		ws_write_str(w, "owners.yaml", yaml);
		free(yaml);
		ev = ws_eval(w);
		for (i = 0; i < GATE_COUNT; i++) {
			gr = &ev->gates[i];
			line = xasprintf("%s.owner", gr->def->id);
			expect_finding(ev, gr->def->id, line, SEV_ERROR);
			expect_status(ev, gr->def->id, GS_FAIL);
			assert_null(gr->owner);
			free(line);
		}
	}

	ws_reset(w, "one gate without an entry");
	ws_delete_lines(w, "owners.yaml", 10, 1);	/* G7 */
	ev = ws_eval(w);
	expect_status(ev, "G7", GS_FAIL);
	expect_finding(ev, "G7", "G7.owner", SEV_ERROR);
	expect_status(ev, "G6", GS_PASS);
	expect_no_finding(ev, "G6", "G6.owner");

	ws_reset(w, "an empty owner");
	ws_replace(w, "owners.yaml", "\"Hao Zhang (serving team)\"", "\"\"");
	ev = ws_eval(w);
	expect_finding(ev, "G9", "G9.owner", SEV_ERROR);

	ws_reset(w, "no owner member");
	ws_replace(w, "owners.yaml", "owner: \"Ana Li (model team)\", ", "");
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.owner", SEV_ERROR);

	ws_reset(w, "due is no date: a warning");
	ws_replace(w, "owners.yaml", "due: 2026-08-19", "due: next week");
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.owner", SEV_WARN);
	expect_status(ev, "G2", GS_PASS);

	ws_reset(w, "owners.yaml missing");
	ws_remove(w, "owners.yaml");
	ev = ws_eval(w);
	for (i = 0; i < GATE_COUNT; i++) {
		line = xasprintf("%s.owner", gate_table[i].id);
		expect_finding(ev, gate_table[i].id, line, SEV_ERROR);
		free(line);
	}

	ws_reset(w, "owners.yaml broken");
	ws_write_str(w, "owners.yaml", "gates: [\n");
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.owner", SEV_ERROR);
	expect_status(ev, "G3", GS_FAIL);
}

/* One broken artifact per gate: (gate, file, bad content, another check
 * of the gate that a parse error takes down too). */
static const struct {
	const char	*gate;
	const char	*rel;
	const char	*text;
	const char	*other;
} broken[GATE_COUNT] = {
	{ "G0", SOURCE, "{\"schema\": ", "G0.license" },
	{ "G1", "01-reference/outputs.jsonl", "{\"sample_id\": 1,}\n",
	    "G1.golden" },
	{ "G2", "02-onnx/onnx-report.json", "{]", "G2.config" },
	{ "G3", "02-onnx/op-support.csv", "node_name,\"op_type\n",
	    "G3.row_owner" },
	{ "G4", "03-quant/quant-report.json", "nul", "G4.config" },
	{ "G5", "04-compiler/builds.json", "[{}", "G5.script" },
	{ "G6", VALIDATION, "{\"findings\": [}", "G6.hashes" },
	{ "G7", GOLDEN, "\xff\xfe", "G7.faults" },
	{ "G8", SERVICE, "{\"generation\": 2, \"generation\": 3}",
	    "G8.conformance" },
	{ "G9", API, "", "G9.perf" },
	{ "G10", GEN2, "{\"generation\": 2", "G10.decision" },
};

static void
parse_every_gate(void **state)
{
	struct wsfix *w = *state;
	const struct finding *f;
	struct eval *ev;
	char *check;
	size_t i;

	for (i = 0; i < nitems(broken); i++) {
		ws_reset(w, broken[i].rel);
		ws_write_str(w, broken[i].rel, broken[i].text);
		ev = ws_eval(w);
		check = xasprintf("%s.parse", broken[i].gate);
		expect_status(ev, broken[i].gate, GS_FAIL);
		expect_finding(ev, broken[i].gate, check, SEV_ERROR);
		f = find_finding(ev, broken[i].gate, check, SEV_ERROR);
		assert_string_equal(f->path, broken[i].rel);
		/* A parse error counts against every check of the gate. */
		expect_no_finding(ev, broken[i].gate, broken[i].other);
		assert_false(tickets_check_holds(ev, broken[i].other));
		free(check);
	}
}

static void
path_every_gate(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;
	char *check;
	size_t i;

	for (i = 0; i < nitems(broken); i++) {
		const char *rel = strcmp(broken[i].gate, "G10") == 0 ? AUDIT :
		    broken[i].rel;

		ws_reset(w, rel);
		ws_symlink(w, "/etc/passwd", rel);
		ev = ws_eval(w);
		check = xasprintf("%s.path", broken[i].gate);
		expect_status(ev, broken[i].gate, GS_FAIL);
		expect_finding(ev, broken[i].gate, check, SEV_ERROR);
		free(check);
	}
}

/*
 * Every path field of every gate, written "lnk/../x" where lnk is a link to
 * a folder outside the workspace: the file system goes up from the link's
 * target, so the path leaves the workspace, though by name it stays inside
 * (and a file x is there, inside, to be wrongly found).  workspace.md §1.
 */
static const struct {
	const char	*gate;
	const char	*rel;		/* the artifact naming the path */
	const char	*pointer;	/* JSON; NULL: the YAML `model` */
} path_fields[] = {
	{ "G0", SOURCE, "/files/0/path" },
	{ "G2", "02-onnx/onnx-report.json", "/external_data/files/0/path" },
	{ "G5", "04-compiler/builds.json", "/0/log" },
	{ "G5", "04-compiler/compiler-manifest.json", "/sbom" },
	{ "G5", "04-compiler/compile-config.yaml", NULL },
	{ "G10", GEN2, "/reports/0/path" },
};

static void
path_dotdot_after_link_every_field(void **state)
{
	struct wsfix *w = *state;
	char *outside = xasprintf("%s.outside", w->dir), *sub, *dir, *p;
	struct eval *ev;
	size_t i;

	sub = xasprintf("%s/d", outside);
	if (mkdir(outside, 0755) == -1 || mkdir(sub, 0755) == -1)
		fail_msg("cannot make %s: %s", sub, strerror(errno));
	p = xasprintf("%s/x", outside);
	assert_int_equal(close(open(p, O_WRONLY | O_CREAT, 0644)), 0);
	free(p);
	for (i = 0; i < nitems(path_fields); i++) {
		ws_reset(w, path_fields[i].rel);
		dir = xstrndup(path_fields[i].rel,
		    (size_t)(strrchr(path_fields[i].rel, '/') -
		    path_fields[i].rel));
		p = xasprintf("%s/lnk", dir);
		ws_symlink(w, sub, p);
		free(p);
		p = xasprintf("%s/x", dir);
		ws_write_str(w, p, "inside, by name\n");
		free(p);
		if (path_fields[i].pointer != NULL)
			ws_json_set(w, path_fields[i].rel,
			    path_fields[i].pointer, json_string("lnk/../x"));
		else
			ws_replace(w, path_fields[i].rel,
			    "model: ../02-onnx/model.onnx", "model: lnk/../x");
		if (strcmp(path_fields[i].gate, "G10") == 0)
			ws_sign(w, GEN2, release_key());
		ev = ws_eval(w);
		p = xasprintf("%s.path", path_fields[i].gate);
		expect_finding_msg(ev, path_fields[i].gate, p, SEV_ERROR,
		    "through the symbolic link");
		free(p);
		free(dir);
	}
	ws_rmtree(outside);
	free(outside);
	free(sub);
}

/* ---- tickets (§6) ---- */

static void
expect_progress(const struct wsfix *w, const char *id, double progress,
    bool claimed)
{
	const struct ticket *t = ticket_by_id(w, id);

	if (fabs(t->progress - progress) > 1e-9 ||
	    t->claimed_done_without_evidence != claimed) {
		print_error("%s: progress %.3f (%zu/%zu), claimed %d; expected "
		    "%.3f, claimed %d\n", id, t->progress, t->holding, t->total,
		    t->claimed_done_without_evidence, progress, claimed);
		fail();
	}
}

static void
tickets_complete(void **state)
{
	struct wsfix *w = *state;
	size_t i;

	ws_tickets(w);
	for (i = 0; i < TICKET_COUNT; i++) {
		expect_progress(w, tickets_table[i].id, 1.0, false);
		assert_string_equal(w->tickets[i].state, "done");
		assert_null(w->tickets[i].problem);
		assert_non_null(w->tickets[i].owner);
	}
}

static void
tickets_follow_checks(void **state)
{
	struct wsfix *w = *state;

	/* G1.golden fails: M02 loses one of four. */
	ws_remove(w, "01-reference/tensor-golden/index.json");
	ws_tickets(w);
	expect_progress(w, "M02", 0.75, true);
	expect_progress(w, "M01", 1.0, false);

	/* A G1.parse error counts against every check of G1. */
	ws_reset(w, "G1.parse");
	ws_append(w, "01-reference/prompts.jsonl", "oops\n");
	ws_tickets(w);
	expect_progress(w, "M02", 0.0, true);

	/* G0.path counts against every G0 check. */
	ws_reset(w, "G0.path");
	ws_json_set(w, SOURCE, "/files/0/path", json_string("/etc/passwd"));
	ws_tickets(w);
	expect_progress(w, "M01", 0.0, true);

	/* G3.coverage fails: M04 two of three. */
	ws_reset(w, "G3.coverage");
	ws_delete_lines(w, "02-onnx/op-support.csv", 22, 1);
	ws_tickets(w);
	expect_progress(w, "M04", 2.0 / 3.0, true);

	/* G9.perf: M12 half; M11 and M10 untouched. */
	ws_reset(w, "G9.perf");
	ws_json_set(w, PERF, "/cells/0", NULL);
	ws_tickets(w);
	expect_progress(w, "M12", 0.5, true);
	expect_progress(w, "M11", 1.0, false);
	expect_progress(w, "M10", 1.0, false);

	/* G9.duration belongs to M10. */
	ws_reset(w, "G9.duration");
	ws_remove(w, RUN24);
	ws_tickets(w);
	expect_progress(w, "M10", 0.5, true);
	expect_progress(w, "M12", 1.0, false);

	/* A stale G10.bindings is no check of M13. */
	ws_reset(w, "G10.bindings");
	ws_append(w, KVFULL, "\n");
	ws_tickets(w);
	expect_progress(w, "M13", 1.0, false);
	ws_remove(w, AUDIT);
	ws_tickets(w);
	expect_progress(w, "M13", 2.0 / 3.0, true);
}

static void
tickets_all_checks_count_owner(void **state)
{
	struct wsfix *w = *state;

	ws_replace(w, "owners.yaml", "\"Priya Raman (export team)\"", "vendor");
	ws_replace(w, "owners.yaml", "\"Lucía Moreno (runtime team)\"",
	    "\"Vendor support\"");
	ws_replace(w, "owners.yaml", "G5: {owner: \"Kenji Watanabe (compiler "
	    "team)\"", "G5: {owner: \"厂商支持\"");
	ws_tickets(w);
	expect_progress(w, "M03", 0.0, true);		/* all G2 checks */
	expect_progress(w, "M10", 0.5, true);	/* G8.*, G9.duration */
	/* M06/M07 name single checks: G5.owner is none of them. */
	expect_progress(w, "M06", 1.0, false);
	expect_progress(w, "M07", 1.0, false);
}

static void
tickets_sbom_counts_for_m06(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, "04-compiler/compiler-manifest.json", "/sbom", NULL);
	ws_tickets(w);
	ev = &w->ev;
	expect_status(ev, "G5", GS_PASS);
	expect_finding(ev, "G5", "G5.manifest.sbom", SEV_WARN);
	expect_progress(w, "M06", 0.0, true);
	expect_progress(w, "M07", 1.0, false);
}

static void
tickets_pending_and_state(void **state)
{
	struct wsfix *w = *state;
	const struct ticket *t;

	/* G6 pending: none of its checks hold, though nothing fails. */
	ws_remove(w, VALIDATION);
	ws_tickets(w);
	expect_status(&w->ev, "G6", GS_PENDING);
	expect_progress(w, "M08", 0.0, true);

	/* Progress never comes from `state`. */
	ws_reset(w, "states say todo");
	ws_replace_all(w, "tickets.yaml", "state: done", "state: todo");
	ws_tickets(w);
	expect_progress(w, "M01", 1.0, false);
	expect_progress(w, "M13", 1.0, false);
	assert_string_equal(ticket_by_id(w, "M13")->state, "todo");

	ws_reset(w, "no tickets.yaml");
	ws_remove(w, "tickets.yaml");
	ws_tickets(w);
	t = ticket_by_id(w, "M01");
	assert_non_null(t->problem);
	assert_null(t->state);
	expect_progress(w, "M05", 1.0, false);

	ws_reset(w, "an unknown state");
	ws_replace(w, "tickets.yaml", "estimate_days: 6, state: done",
	    "estimate_days: 6, state: finished");
	ws_tickets(w);
	t = ticket_by_id(w, "M03");
	assert_non_null(t->problem);
	assert_non_null(strstr(t->problem, "finished"));
	expect_progress(w, "M03", 1.0, false);
}

static void
tickets_midproject(void **state)
{
	struct wsfix *w = *state;

	ws_tickets(w);
	expect_progress(w, "M01", 1.0, false);
	expect_progress(w, "M02", 1.0, false);
	expect_progress(w, "M03", 0.0, false);	/* G2 stale, doing */
	expect_progress(w, "M04", 1.0, false);	/* not G3.unsupported */
	expect_progress(w, "M05", 1.0, false);
	expect_progress(w, "M06", 1.0, false);
	expect_progress(w, "M07", 2.0 / 3.0, true);	/* compile.sh */
	expect_progress(w, "M08", 0.0, false);	/* pending, blocked */
	expect_progress(w, "M13", 0.0, false);

	/* Claiming M10 done changes nothing but the flag. */
	ws_replace(w, "tickets.yaml", "estimate_days: 10, state: todo",
	    "estimate_days: 10, state: done");
	ws_tickets(w);
	expect_progress(w, "M10", 0.0, true);
}

/* ---- calops check, end to end ---- */

static json_t *
parse_json(const char *text)
{
	json_error_t je;
	json_t *o = json_loads(text, 0, &je);

	if (o == NULL)
		fail_msg("not JSON (%s): %.200s", je.text, text);
	return o;
}

static void
cli_exit_codes(void **state)
{
	const char *a_complete[] = { tpl.complete, NULL };
	const char *a_mid[] = { tpl.midproject, NULL };
	const char *a_file[] = { tpl.key_pem, NULL };
	const char *a_none[] = { "/nonexistent/calops-ws", NULL };
	const char *a_opt[] = { "--bogus", tpl.complete, NULL };
	const char *a_gate[] = { "--gate", "G11", tpl.complete, NULL };
	const char *a_two[] = { tpl.complete, tpl.midproject, NULL };
	const char *a_noarg[] = { NULL };
	char *out;

	(void)state;
	assert_int_equal(run_calops(a_complete, &out), 0);
	assert_non_null(strstr(out, "RELEASED"));
	free(out);
	assert_int_equal(run_calops(a_mid, &out), 1);
	assert_non_null(strstr(out, "BLOCKED_COMPILER"));
	free(out);
	assert_int_equal(run_calops(a_file, &out), 2);
	free(out);
	assert_int_equal(run_calops(a_none, &out), 2);
	free(out);
	assert_int_equal(run_calops(a_opt, &out), 2);
	free(out);
	assert_int_equal(run_calops(a_gate, &out), 2);
	free(out);
	assert_int_equal(run_calops(a_two, &out), 2);
	free(out);
	assert_int_equal(run_calops(a_noarg, &out), 2);
	free(out);
}

static void
cli_json(void **state)
{
	const char *a_complete[] = { "--json", tpl.complete, NULL };
	const char *a_mid[] = { "--json", tpl.midproject, NULL };
	json_t *o, *gates, *g;
	char *out;
	size_t i;

	(void)state;
	assert_int_equal(run_calops(a_complete, &out), 0);
	o = parse_json(out);
	assert_string_equal(json_string_value(json_object_get(o, "schema")),
	    "calops-check/v1");
	assert_string_equal(json_string_value(json_object_get(o,
	    "project_status")), "RELEASED");
	assert_string_equal(json_string_value(json_object_get(o, "model_id")),
	    "qwen/qwen3-1.7b@23b33374eab73d2a1c0b3dcc5619b483cd045418");
	gates = json_object_get(o, "gates");
	assert_int_equal(json_array_size(gates), GATE_COUNT);
	json_array_foreach(gates, i, g) {
		assert_string_equal(json_string_value(json_object_get(g, "id")),
		    gate_table[i].id);
		assert_string_equal(json_string_value(json_object_get(g,
		    "status")), "pass");
		assert_true(json_is_string(json_object_get(g, "owner")));
		assert_true(json_is_string(json_object_get(g, "failback")));
		assert_true(json_is_array(json_object_get(g, "findings")));
	}
	assert_int_equal(json_array_size(json_object_get(o, "tickets")),
	    TICKET_COUNT);
	assert_int_equal(json_array_size(json_object_get(o,
	    "project_findings")), 0);
	json_decref(o);
	free(out);

	assert_int_equal(run_calops(a_mid, &out), 1);
	o = parse_json(out);
	assert_string_equal(json_string_value(json_object_get(o,
	    "project_status")), "BLOCKED_COMPILER");
	g = json_array_get(json_object_get(o, "project_findings"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "check")),
	    "vendor.compile_command");
	assert_string_equal(json_string_value(json_object_get(g, "severity")),
	    "blocked");
	g = json_array_get(json_object_get(o, "gates"), 3);
	assert_string_equal(json_string_value(json_object_get(g, "status")),
	    "fail");
	g = json_array_get(json_object_get(g, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "check")),
	    "G3.unsupported");
	assert_string_equal(json_string_value(json_object_get(g, "where")),
	    "row 23");
	g = json_array_get(json_object_get(o, "tickets"), 6);
	assert_string_equal(json_string_value(json_object_get(g, "id")), "M07");
	assert_true(json_is_true(json_object_get(g,
	    "claimed_done_without_evidence")));
	json_decref(o);
	free(out);
}

static void
cli_gate_filter(void **state)
{
	const char *a_g2[] = { "--json", "--gate", "G2", tpl.midproject, NULL };
	const char *a_g01[] = { "--gate", "G0,G1", tpl.midproject, NULL };
	const char *a_g0g1[] = { "--gate", "g0", "--gate", "G1", "--json",
	    tpl.midproject, NULL };
	json_t *o, *gates;
	char *out;

	(void)state;
	assert_int_equal(run_calops(a_g2, &out), 1);
	o = parse_json(out);
	gates = json_object_get(o, "gates");
	assert_int_equal(json_array_size(gates), 1);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(gates, 0), "status")),
	    "stale");
	json_decref(o);
	free(out);

	assert_int_equal(run_calops(a_g01, &out), 0);
	free(out);
	assert_int_equal(run_calops(a_g0g1, &out), 0);
	o = parse_json(out);
	assert_int_equal(json_array_size(json_object_get(o, "gates")), 2);
	json_decref(o);
	free(out);
}

static void
cli_stream(void **state)
{
	const char *a_mid[] = { "--stream", tpl.midproject, NULL };
	const char *a_g0[] = { "--stream", "--gate", "G0", tpl.midproject,
	    NULL };
	char *out, *line, *save = NULL;
	json_int_t seq = 0;
	size_t findings = 0, results = 0, inputs = 0;
	const char *type;
	json_t *o, *last = NULL;

	(void)state;
	assert_int_equal(run_calops(a_mid, &out), 1);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		o = parse_json(line);
		assert_int_equal(json_integer_value(json_object_get(o, "v")),
		    1);
		assert_int_equal(json_integer_value(json_object_get(o, "seq")),
		    ++seq);
		assert_true(json_is_number(json_object_get(o, "ts")));
		type = json_string_value(json_object_get(o, "type"));
		assert_non_null(type);
		assert_int_equal(results, 0);	/* nothing after result */
		if (strcmp(type, "finding") == 0) {
			findings++;
			assert_non_null(json_string_value(json_object_get(o,
			    "gate")));
			assert_non_null(json_string_value(json_object_get(o,
			    "check")));
			assert_non_null(json_string_value(json_object_get(o,
			    "severity")));
		} else if (strcmp(type, "input") == 0) {
			inputs++;
			assert_non_null(json_string_value(json_object_get(o,
			    "gate")));
			assert_non_null(json_string_value(json_object_get(o,
			    "path")));
		} else if (strcmp(type, "result") == 0)
			results++;
		else
			assert_string_equal(type, "progress");
		json_decref(last);
		last = o;
	}
	assert_int_equal(results, 1);
	assert_true(findings >= 4);	/* project, G2, G3, G5 */
	assert_true(inputs >= 5);	/* what G0..G5 read */
	assert_string_equal(json_string_value(json_object_get(last, "status")),
	    "fail");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(last, "summary"), "schema")),
	    "calops-check/v1");
	json_decref(last);
	free(out);

	assert_int_equal(run_calops(a_g0, &out), 0);
	assert_non_null(strstr(out, "\"type\":\"result\""));
	assert_non_null(strstr(out, "\"status\":\"pass\""));
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		WS_TEST(g6_errors),
		WS_TEST(g6_repro),
		WS_TEST(g6_hashes),
		WS_TEST(g6_hostile_names),
		WS_TEST(g6_bound),
		WS_TEST(g6_single_chip),
		WS_TEST(g6_hashes_empty_package),
		WS_TEST(g6_parse_and_path),
		WS_TEST(g7_golden),
		WS_TEST(g7_faults),
		WS_TEST(g7_bound_parse_path),
		WS_TEST(g8_manifest),
		WS_TEST(g8_limits),
		WS_TEST(g8_conformance),
		WS_TEST(g8_bound_parse_path),
		WS_TEST(g9_api),
		WS_TEST(g9_perf),
		WS_TEST(g9_soak_summary),
		WS_TEST(g9_soak_sla),
		WS_TEST(g9_leak),
		WS_TEST(g9_duration),
		WS_TEST(g9_parse_and_path),
		WS_TEST(g10_signature),
		WS_TEST(g10_new_generation),
		WS_TEST(g10_bindings),
		WS_TEST(g10_current),
		WS_TEST(g10_rollback),
		WS_TEST(g10_audit),
		WS_TEST(g10_decision_upstream),
		WS_TEST(g10_parse_path_pending),
		WS_TEST(owners_every_gate),
		WS_TEST(parse_every_gate),
		WS_TEST(path_every_gate),
		WS_TEST(path_dotdot_after_link_every_field),
		WS_TEST(tickets_complete),
		WS_TEST(tickets_follow_checks),
		WS_TEST(tickets_all_checks_count_owner),
		WS_TEST(tickets_sbom_counts_for_m06),
		WS_TEST(tickets_pending_and_state),
		MID_TEST(tickets_midproject),
		cmocka_unit_test(cli_exit_codes),
		cmocka_unit_test(cli_json),
		cmocka_unit_test(cli_gate_filter),
		cmocka_unit_test(cli_stream),
	};

	return cmocka_run_group_tests_name("gates_b", tests,
	    fixture_group_setup, fixture_group_teardown);
}

/*
 * test_gates_a.c: the gate engine on generated workspaces, part one: the
 * complete workspace, G0-G5, status precedence (workspace.md §2) and the
 * project status (§4).  Each test copies a template, changes it and checks
 * the gate's status and the finding's check id and severity.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>

#include "wsfixture.h"

#define SOURCE "00-source/source-manifest.json"
#define PROMPTS "01-reference/prompts.jsonl"
#define OUTPUTS "01-reference/outputs.jsonl"
#define RERUN "01-reference/outputs.rerun.jsonl"
#define GOLDEN_INDEX "01-reference/tensor-golden/index.json"
#define EXPORT_CONFIG "02-onnx/export-config.yaml"
#define REPORT "02-onnx/onnx-report.json"
#define INVENTORY "02-onnx/op-inventory.json"
#define OPSUPPORT "02-onnx/op-support.csv"
#define QCONFIG "03-quant/quant-config.yaml"
#define CALIB "03-quant/calibration-manifest.jsonl"
#define QREPORT "03-quant/quant-report.json"
#define CMANIFEST "04-compiler/compiler-manifest.json"
#define CCONFIG "04-compiler/compile-config.yaml"
#define BUILDS "04-compiler/builds.json"
#define SCRIPT "04-compiler/compile.sh"

#define ZEROS "0000000000000000000000000000000000000000000000000000000000000000"


/* ---- the complete workspace: every check holds ---- */

static void
complete_every_check_holds(void **state)
{
	static const char *const per_gate[] = { "owner", "parse", "path" };
	struct eval *ev = ws_eval(*state);
	const struct gate_result *gr;
	char *id;
	size_t i, k;
	int g;

	for (i = 0; i < ws_nspec_checks; i++) {
		g = gate_index_of_check(ws_spec_checks[i]);
		assert_true(g >= 0);
		expect_no_finding(ev, gate_table[g].id, ws_spec_checks[i]);
	}
	for (i = 0; i < GATE_COUNT; i++) {
		gr = &ev->gates[i];
		expect_status(ev, gr->def->id, GS_PASS);
		for (k = 0; k < nitems(per_gate); k++) {
			id = xasprintf("%s.%s", gr->def->id, per_gate[k]);
			expect_no_finding(ev, gr->def->id, id);
			free(id);
		}
		/* No skipped check either: the only warnings are the
		 * validator's own WARN findings. */
		for (k = 0; k < gr->findings.n; k++)
			if (gr->findings.v[k].severity == SEV_WARN)
				assert_string_equal(gr->findings.v[k].check,
				    "G6.errors");
		assert_non_null(gr->owner);
	}
	expect_finding(ev, "G6", "G6.errors", SEV_WARN);
	expect_finding_msg(ev, "G0", "G0.complexity", SEV_INFO, "complexity 0");
	expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO, "2026-09-21-24h");
	expect_project(ev, "RELEASED", NULL);
	assert_string_equal(ev->src.model_id,
	    "qwen/qwen3-1.7b@23b33374eab73d2a1c0b3dcc5619b483cd045418");
}

static void
midproject_as_documented(void **state)
{
	struct eval *ev = ws_eval(*state);
	static const char *const pending[] = { "G6", "G7", "G8", "G9", "G10" };
	size_t i;

	expect_status(ev, "G0", GS_PASS);
	expect_status(ev, "G1", GS_PASS);
	expect_status(ev, "G2", GS_STALE);
	expect_finding(ev, "G2", "G2.bound", SEV_STALE);
	expect_status(ev, "G3", GS_FAIL);
	expect_finding_msg(ev, "G3", "G3.unsupported", SEV_ERROR, "CALC-1187");
	expect_status(ev, "G4", GS_PASS);
	expect_status(ev, "G5", GS_BLOCKED);
	expect_finding(ev, "G5", "G5.script", SEV_BLOCKED);
	for (i = 0; i < nitems(pending); i++)
		expect_status(ev, pending[i], GS_PENDING);
	expect_project(ev, "BLOCKED_COMPILER", "vendor.compile_command");
	assert_int_equal(ev->project.n, 1);
}

/* ---- G0 ---- */

static void
g0_schema(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SOURCE, "/schema",
	    json_string("calculet-model-source/v2"));
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.schema", SEV_ERROR);

	ws_json_set(w, SOURCE, "/schema", NULL);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G0", "G0.schema", SEV_ERROR, "missing");

	ws_json_set(w, SOURCE, "/schema", json_integer(1));
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.schema", SEV_ERROR);
}

static void
g0_model_id(void **state)
{
	static const char *const bad[] = { "qwen/qwen3-1.7b@", "qwen3-1.7b@abc",
	    "qwen/qwen3-1.7b", "/qwen3@abc", "qwen/@abc", "qwen/a b@c",
	    "qwen/x/y@abc", "qwen/x@a@b", "" };
	struct wsfix *w = *state;
	struct eval *ev;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		ws_reset(w, bad[i]);
		ws_json_set(w, SOURCE, "/model_id", json_string(bad[i]));
		ev = ws_eval(w);
		expect_status(ev, "G0", GS_FAIL);
		expect_finding(ev, "G0", "G0.model_id", SEV_ERROR);
		assert_null(ev->src.model_id);
	}
	ws_reset(w, "org/name@rev");
	ws_json_set(w, SOURCE, "/model_id", json_string("org/name@r1"));
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_PASS);
	expect_no_finding(ev, "G0", "G0.model_id");
	assert_string_equal(ev->src.model_id, "org/name@r1");
}

static void
g0_license(void **state)
{
	static const char *const bad[] = { "SPDX-ID", "Apache 2.0", "",
	    "GPL/MIT" };
	static const char *const good[] = { "MIT", "Apache-2.0",
	    "GPL-2.0+", "LicenseRef.x" };
	struct wsfix *w = *state;
	struct eval *ev;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		ws_reset(w, bad[i]);
		ws_json_set(w, SOURCE, "/license", json_string(bad[i]));
		ev = ws_eval(w);
		expect_status(ev, "G0", GS_FAIL);
		expect_finding(ev, "G0", "G0.license", SEV_ERROR);
	}
	for (i = 0; i < nitems(good); i++) {
		ws_reset(w, good[i]);
		ws_json_set(w, SOURCE, "/license", json_string(good[i]));
		ev = ws_eval(w);
		expect_status(ev, "G0", GS_PASS);
		expect_no_finding(ev, "G0", "G0.license");
	}
}

static void
g0_files_entries(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SOURCE, "/files/0/bytes", json_integer(-1));
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding_msg(ev, "G0", "G0.files", SEV_ERROR, "negative");

	ws_reset(w, "uppercase sha256");
	ws_json_set(w, SOURCE, "/files/1/sha256", json_string("4F48A56AC0D48CBA"
	    "43DE6C27C24490680FCF6E7350A2114E648191871D1BB38C"));
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.files", SEV_ERROR);

	ws_reset(w, "bytes as a string");
	ws_json_set(w, SOURCE, "/files/0/bytes", json_string("231"));
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.files", SEV_ERROR);

	ws_reset(w, "files not an array");
	ws_json_set(w, SOURCE, "/files", json_object());
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.files", SEV_ERROR);

	/* A path listed again passed silently (issue 27): an error at its
	 * second place, with how many times, once however many. */
	ws_reset(w, "a file listed twice");
	{
		json_t *m = ws_json_load(w, SOURCE);

		ws_json_set(w, SOURCE, "/files/-", json_incref(json_at(m,
		    "/files/0")));
		json_decref(m);
	}
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding_msg(ev, "G0", "G0.files", SEV_ERROR, "is listed twice "
	    "(first at /files/0)");
	ws_reset(w, "a file listed 2000 times");
	{
		json_t *m = ws_json_load(w, SOURCE), *files, *first;
		size_t i, n = 0;

		files = json_object_get(m, "files");
		first = json_array_get(files, 0);
		for (i = 0; i < 1999; i++)
			json_array_append(files, first);
		ws_json_write(w, SOURCE, m);
		json_decref(m);
		ev = ws_eval(w);
		expect_finding_msg(ev, "G0", "G0.files", SEV_ERROR,
		    "is listed 2000 times");
		for (i = 0; i < gate_of(ev, "G0")->findings.n; i++)
			n += strstr(gate_of(ev, "G0")->findings.v[i].message,
			    "is listed") != NULL;
		assert_int_equal(n, 1);
	}
}

static void
g0_files_hash(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;
	char *data;
	size_t len;

	/* Same size, one byte changed. */
	data = ws_slurp(w, "00-source/weights/model-00002-of-00002.safetensors",
	    &len);
	data[len / 2] ^= 0x55;
	ws_write_file(w, "00-source/weights/model-00002-of-00002.safetensors",
	    data, len);
	free(data);
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding_msg(ev, "G0", "G0.files.hash", SEV_ERROR, "sha256");
	/* G0.files covers G0.files.hash. */
	assert_false(tickets_check_holds(ev, "G0.files"));
	assert_true(tickets_check_holds(ev, "G0.schema"));

	ws_reset(w, "size differs");
	ws_append(w, "00-source/hf-config/LICENSE", "appended\n");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G0", "G0.files.hash", SEV_ERROR, "bytes");

	ws_reset(w, "bytes in the manifest differ");
	ws_json_set(w, SOURCE, "/files/0/bytes", json_integer(232));
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.files.hash", SEV_ERROR);
}

static void
g0_files_absent_is_info(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_remove(w, "00-source/weights/model-00001-of-00002.safetensors");
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_PASS);
	expect_finding_msg(ev, "G0", "G0.files.hash", SEV_INFO,
	    "model-00001-of-00002.safetensors");
	expect_no_finding(ev, "G0", "G0.files");
}

static void
g0_files_not_regular(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* A FIFO where a listed file is expected: an error, not a hang. */
	ws_mkfifo(w, "00-source/hf-config/config.json");
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.files.hash", SEV_ERROR);

	ws_reset(w, "a folder");
	ws_mkdir(w, "00-source/hf-config/LICENSE");
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.files.hash", SEV_ERROR);
}

static void
g0_path(void **state)
{
	static const char *const bad[] = { "/etc/passwd", "../../etc/passwd",
	    "hf-config/../../../x", "" };
	struct wsfix *w = *state;
	struct eval *ev;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		ws_reset(w, bad[i]);
		ws_json_set(w, SOURCE, "/files/0/path", json_string(bad[i]));
		ev = ws_eval(w);
		expect_status(ev, "G0", GS_FAIL);
		expect_finding(ev, "G0", "G0.path", SEV_ERROR);
	}

	ws_reset(w, "a listed file is a link to /etc/passwd");
	ws_symlink(w, "/etc/passwd", "00-source/hf-config/LICENSE");
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.path", SEV_ERROR);

	ws_reset(w, "a dangling link that leads outside");
	ws_symlink(w, "/nonexistent/calops-test",
	    "00-source/hf-config/LICENSE");
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.path", SEV_ERROR);

	ws_reset(w, "a relative link that climbs out");
	ws_symlink(w, "../../../../../../../../etc/passwd",
	    "00-source/hf-config/LICENSE");
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.path", SEV_ERROR);

	ws_reset(w, "the manifest itself is a link outside");
	ws_symlink(w, "/etc/passwd", SOURCE);
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.path", SEV_ERROR);
}

static void
g0_path_link_inside_holds(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;
	char *data;
	size_t len;

	data = ws_slurp(w, "00-source/hf-config/LICENSE", &len);
	ws_write_file(w, "00-source/LICENSE.real", data, len);
	free(data);
	ws_symlink(w, "../LICENSE.real", "00-source/hf-config/LICENSE");
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_PASS);
	expect_no_finding(ev, "G0", "G0.path");
	expect_no_finding(ev, "G0", "G0.files");
}

static void
g0_architecture(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SOURCE, "/architecture/kv_heads", json_integer(6));
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding_msg(ev, "G0", "G0.architecture", SEV_ERROR, "multiple");

	ws_reset(w, "layers 0");
	ws_json_set(w, SOURCE, "/architecture/layers", json_integer(0));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G0", "G0.architecture", SEV_ERROR, "positive");

	ws_reset(w, "hidden a string");
	ws_json_set(w, SOURCE, "/architecture/hidden", json_string("2048"));
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.architecture", SEV_ERROR);

	ws_reset(w, "head_dim missing");
	ws_json_set(w, SOURCE, "/architecture/head_dim", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.architecture", SEV_ERROR);

	ws_reset(w, "no architecture");
	ws_json_set(w, SOURCE, "/architecture", NULL);
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.architecture", SEV_ERROR);
}

static void
g0_tokenizer(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SOURCE, "/tokenizer/vocab_size", json_integer(0));
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.tokenizer", SEV_ERROR);
	assert_false(ev->src.have_vocab);

	ws_reset(w, "sha256 not hex");
	ws_json_set(w, SOURCE, "/tokenizer/sha256", json_string("abc"));
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.tokenizer", SEV_ERROR);
	assert_false(ev->src.have_tokenizer);
	/* Gates that need the tokenizer hash skip with a warning. */
	expect_finding(ev, "G1", "G1.tokenizer", SEV_WARN);
	expect_finding(ev, "G4", "G4.calibration", SEV_WARN);
}

static void
g0_targets(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SOURCE, "/targets/context", json_array());
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding_msg(ev, "G0", "G0.targets", SEV_ERROR, "empty");
	assert_false(ev->src.have_targets);
	/* G7/G9 coverage and G6.single_chip need the targets. */
	expect_finding(ev, "G7", "G7.golden", SEV_WARN);
	expect_finding(ev, "G9", "G9.perf", SEV_WARN);

	ws_reset(w, "batch [0]");
	ws_json_set(w, SOURCE, "/targets/batch", json_pack("[i]", 0));
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.targets", SEV_ERROR);

	ws_reset(w, "chips missing");
	ws_json_set(w, SOURCE, "/targets/chips", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.targets", SEV_ERROR);
	expect_finding(ev, "G6", "G6.single_chip", SEV_WARN);

	ws_reset(w, "context of strings");
	ws_json_set(w, SOURCE, "/targets/context", json_pack("[s]", "8K"));
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.targets", SEV_ERROR);
}

static void
g0_sla(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SOURCE, "/targets/sla", NULL);
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.sla", SEV_ERROR);
	expect_no_finding(ev, "G0", "G0.targets");
	assert_false(ev->src.have_sla);
	expect_finding(ev, "G9", "G9.soak", SEV_WARN);

	ws_reset(w, "ttft a string");
	ws_json_set(w, SOURCE, "/targets/sla/ttft_ms_p99", json_string("1.5s"));
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.sla", SEV_ERROR);

	ws_reset(w, "success_rate_min missing");
	ws_json_set(w, SOURCE, "/targets/sla/success_rate_min", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.sla", SEV_ERROR);

	ws_reset(w, "no targets at all");
	ws_json_set(w, SOURCE, "/targets", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.sla", SEV_ERROR);
	expect_finding(ev, "G0", "G0.targets", SEV_ERROR);

	ws_reset(w, "real numbers hold");
	ws_json_set(w, SOURCE, "/targets/sla/ttft_ms_p99", json_real(1499.5));
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_PASS);
	expect_no_finding(ev, "G0", "G0.sla");
}

static void
g0_complexity(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* moe 3 + sliding window 1 = 4 > 3: a warning, the gate passes. */
	ws_json_set(w, SOURCE, "/architecture/kind", json_string("moe"));
	ws_json_set(w, SOURCE, "/architecture/attention",
	    json_string("sliding_window"));
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_PASS);
	expect_finding_msg(ev, "G0", "G0.complexity", SEV_WARN, "complexity 4");

	/* Exactly 3 is not over the line. */
	ws_reset(w, "moe alone");
	ws_json_set(w, SOURCE, "/architecture/kind", json_string("moe"));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G0", "G0.complexity", SEV_INFO, "complexity 3");
	expect_no_severity(ev, "G0", "G0.complexity", SEV_WARN);

	/* Context 40961 (3) + batch 1 on 2 chips (1) = 4. */
	ws_reset(w, "context and chips");
	ws_json_set(w, SOURCE, "/targets/context", json_pack("[i]", 40961));
	ws_json_set(w, SOURCE, "/targets/chips", json_pack("[i,i]", 1, 2));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G0", "G0.complexity", SEV_WARN, "complexity 4");

	ws_reset(w, "unknown kind");
	ws_json_set(w, SOURCE, "/architecture/kind", json_string("spiky"));
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding_msg(ev, "G0", "G0.complexity", SEV_ERROR, "spiky");

	ws_reset(w, "defaults");
	ws_json_set(w, SOURCE, "/architecture/kind", NULL);
	ws_json_set(w, SOURCE, "/architecture/attention", NULL);
	ws_json_set(w, SOURCE, "/architecture/activation_norm", NULL);
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_PASS);
	expect_finding_msg(ev, "G0", "G0.complexity", SEV_INFO, "complexity 0");
}

static void
g0_parse(void **state)
{
	struct wsfix *w = *state;
	const struct finding *f;
	struct eval *ev;

	ws_write_str(w, SOURCE, "{\n  \"schema\": "
	    "\"calculet-model-source/v1\",\n  \"model_id\": \n");
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.parse", SEV_ERROR);
	f = find_finding(ev, "G0", "G0.parse", SEV_ERROR);
	assert_string_equal(f->path, SOURCE);
	assert_non_null(strchr(f->where, ':'));	/* line:col */

	ws_reset(w, "an array");
	ws_write_str(w, SOURCE, "[]\n");
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.parse", SEV_ERROR);

	ws_reset(w, "a folder");
	ws_mkdir(w, SOURCE);
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.parse", SEV_ERROR);

	ws_reset(w, "a FIFO");
	ws_mkfifo(w, SOURCE);
	ev = ws_eval(w);
	expect_status(ev, "G0", GS_FAIL);
	expect_finding(ev, "G0", "G0.parse", SEV_ERROR);

	ws_reset(w, "duplicate key");
	ws_write_str(w, SOURCE, "{\"schema\": \"a\", \"schema\": \"b\"}\n");
	ev = ws_eval(w);
	expect_finding(ev, "G0", "G0.parse", SEV_ERROR);
}

/* ---- G1 ---- */

static void
g1_env(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_remove(w, "01-reference/environment.lock");
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	expect_finding_msg(ev, "G1", "G1.env", SEV_ERROR, "missing");

	ws_reset(w, "empty");
	ws_write_str(w, "01-reference/environment.lock", "");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G1", "G1.env", SEV_ERROR, "empty");

	ws_reset(w, "a folder");
	ws_mkdir(w, "01-reference/environment.lock");
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	expect_finding(ev, "G1", "G1.env", SEV_ERROR);
	expect_finding(ev, "G1", "G1.parse", SEV_ERROR);
}

static void
g1_prompts(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* 120 prompts; drop 30 multilingual ones: 90 < 100. */
	ws_delete_lines(w, PROMPTS, 20, 30);
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	expect_finding_msg(ev, "G1", "G1.prompts", SEV_ERROR, "90 prompts");
	expect_no_finding(ev, "G1", "G1.coverage");

	ws_reset(w, "duplicate sample_id");
	ws_jsonl_set(w, PROMPTS, 5, "/sample_id", json_string("empty-001"));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G1", "G1.prompts", SEV_ERROR, "repeats");

	ws_reset(w, "mask length");
	ws_jsonl_set(w, PROMPTS, 3, "/attention_mask/0", NULL);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G1", "G1.prompts", SEV_ERROR, "attention_mask");

	ws_reset(w, "sha256 of the text");
	ws_jsonl_set(w, PROMPTS, 2, "/text", json_string("edited"));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G1", "G1.prompts", SEV_ERROR, "text");

	ws_reset(w, "sha256 missing");
	ws_jsonl_set(w, PROMPTS, 119, "/sha256", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.prompts", SEV_ERROR);

	ws_reset(w, "expected_token_ids missing");
	ws_jsonl_set(w, PROMPTS, 7, "/expected_token_ids", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.prompts", SEV_ERROR);

	ws_reset(w, "token_ids of strings");
	ws_jsonl_set(w, PROMPTS, 8, "/token_ids/0", json_string("1"));
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.prompts", SEV_ERROR);

	ws_reset(w, "file missing");
	ws_remove(w, PROMPTS);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G1", "G1.prompts", SEV_ERROR, "missing");
}

static void
g1_coverage(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	assert_int_equal(ws_replace_all(w, PROMPTS, "\"category\":\"overlong\"",
	    "\"category\":\"long\""), 2);
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	expect_finding_msg(ev, "G1", "G1.coverage", SEV_ERROR, "overlong");
	expect_no_finding(ev, "G1", "G1.prompts");
}

static void
g1_outputs(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_delete_lines(w, OUTPUTS, 130, 1);	/* one bfloat16 record */
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	expect_finding_msg(ev, "G1", "G1.outputs", SEV_ERROR, "bfloat16");

	ws_reset(w, "a second record");
	ws_jsonl_set(w, OUTPUTS, 2, "/sample_id", json_string("empty-001"));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G1", "G1.outputs", SEV_ERROR, "second record");

	ws_reset(w, "logits_sha256 missing");
	ws_jsonl_set(w, OUTPUTS, 9, "/logits_sha256", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.outputs", SEV_ERROR);

	ws_reset(w, "generated_token_ids not an array");
	ws_jsonl_set(w, OUTPUTS, 9, "/generated_token_ids", json_string("x"));
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.outputs", SEV_ERROR);
}

static void
g1_repro(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_jsonl_set(w, RERUN, 17, "/logits_sha256", json_string(ZEROS));
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	expect_finding(ev, "G1", "G1.repro", SEV_ERROR);
	expect_no_finding(ev, "G1", "G1.outputs");

	ws_reset(w, "tokens differ");
	ws_jsonl_set(w, RERUN, 3, "/generated_token_ids/0", json_integer(7));
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.repro", SEV_ERROR);

	ws_reset(w, "a record absent");
	ws_delete_lines(w, RERUN, 200, 1);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G1", "G1.repro", SEV_ERROR, "absent");

	ws_reset(w, "no rerun");
	ws_remove(w, RERUN);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G1", "G1.repro", SEV_ERROR, "missing");
}

static void
g1_tokenizer(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_jsonl_set(w, OUTPUTS, 11, "/tokenizer_sha256", json_string(ZEROS));
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	expect_finding(ev, "G1", "G1.tokenizer", SEV_ERROR);
	expect_no_finding(ev, "G1", "G1.outputs");
	expect_no_finding(ev, "G1", "G1.repro");
}

static void
g1_golden(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_write_str(w, GOLDEN_INDEX, "[]\n");
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	expect_finding(ev, "G1", "G1.golden", SEV_ERROR);

	ws_reset(w, "missing");
	ws_remove(w, GOLDEN_INDEX);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G1", "G1.golden", SEV_ERROR, "missing");

	ws_reset(w, "no mean");
	ws_json_set(w, GOLDEN_INDEX, "/3/mean", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.golden", SEV_ERROR);

	ws_reset(w, "bad sha256");
	ws_json_set(w, GOLDEN_INDEX, "/0/sha256", json_string("nope"));
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.golden", SEV_ERROR);
}

static void
g1_parse_and_path(void **state)
{
	struct wsfix *w = *state;
	const struct finding *f;
	struct eval *ev;

	ws_append(w, OUTPUTS, "{\"sample_id\": \n");
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	f = find_finding(ev, "G1", "G1.parse", SEV_ERROR);
	assert_non_null(f);
	assert_string_equal(f->path, OUTPUTS);
	assert_true(strncmp(f->where, "241:", 4) == 0);

	ws_reset(w, "not an object");
	ws_append(w, PROMPTS, "[1, 2]\n");
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.parse", SEV_ERROR);

	ws_reset(w, "prompts lead outside");
	ws_symlink(w, "/etc/passwd", PROMPTS);
	ev = ws_eval(w);
	expect_status(ev, "G1", GS_FAIL);
	expect_finding(ev, "G1", "G1.path", SEV_ERROR);

	ws_reset(w, "golden index lead outside");
	ws_symlink(w, "/etc/hostname", GOLDEN_INDEX);
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.path", SEV_ERROR);
}

/* ---- G2 ---- */

static void
g2_config(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_replace(w, EXPORT_CONFIG, "schema: calculet-onnx-export/v1",
	    "schema: calculet-onnx-export/v0");
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding(ev, "G2", "G2.config", SEV_ERROR);

	ws_reset(w, "opset placeholder");
	ws_replace(w, EXPORT_CONFIG, "opset: 17", "opset: VENDOR_CONFIRMED");
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_BLOCKED);
	expect_finding(ev, "G2", "G2.config", SEV_BLOCKED);
	expect_no_severity(ev, "G2", "G2.config", SEV_ERROR);

	ws_reset(w, "opset a string");
	ws_replace(w, EXPORT_CONFIG, "opset: 17", "opset: \"17\"");
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.config", SEV_ERROR);

	ws_reset(w, "missing");
	ws_remove(w, EXPORT_CONFIG);
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding(ev, "G2", "G2.config", SEV_ERROR);
}

static void
g2_checker(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, REPORT, "/checker", json_string("failed: bad graph"));
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding(ev, "G2", "G2.checker", SEV_ERROR);

	ws_reset(w, "missing");
	ws_json_set(w, REPORT, "/checker", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.checker", SEV_ERROR);
}

static void
g2_external_data(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, REPORT, "/external_data/files/0/bytes",
	    json_integer(196609));
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding(ev, "G2", "G2.external_data", SEV_ERROR);

	ws_reset(w, "data file gone");
	ws_remove(w, "02-onnx/model.onnx.data");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G2", "G2.external_data", SEV_ERROR, "missing");

	ws_reset(w, "sha256 not hex");
	ws_json_set(w, REPORT, "/external_data/files/0/sha256",
	    json_string("x"));
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.external_data", SEV_ERROR);

	ws_reset(w, "no external_data");
	ws_json_set(w, REPORT, "/external_data", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.external_data", SEV_ERROR);

	ws_reset(w, "path outside");
	ws_json_set(w, REPORT, "/external_data/files/0/path",
	    json_string("../../model.onnx.data"));
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding(ev, "G2", "G2.path", SEV_ERROR);

	ws_reset(w, "absolute path");
	ws_json_set(w, REPORT, "/external_data/files/0/path",
	    json_string("/etc/passwd"));
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.path", SEV_ERROR);

	ws_reset(w, "data is a link outside");
	ws_symlink(w, "/etc/passwd", "02-onnx/model.onnx.data");
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.path", SEV_ERROR);
}

static void
g2_op_inventory(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, INVENTORY, "/2/domain", json_string(""));
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding_msg(ev, "G2", "G2.op_inventory", SEV_ERROR, "empty");

	ws_reset(w, "opset a string");
	ws_json_set(w, INVENTORY, "/0/opset", json_string("17"));
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.op_inventory", SEV_ERROR);

	ws_reset(w, "not an array");
	ws_write_str(w, INVENTORY, "{}\n");
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.op_inventory", SEV_ERROR);

	ws_reset(w, "missing");
	ws_remove(w, INVENTORY);
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.op_inventory", SEV_ERROR);
	/* G3.coverage cannot run without it. */
	expect_finding(ev, "G3", "G3.coverage", SEV_WARN);
	expect_status(ev, "G3", GS_PASS);

	ws_reset(w, "a FIFO");
	ws_mkfifo(w, INVENTORY);
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding(ev, "G2", "G2.parse", SEV_ERROR);
}

static void
g2_greedy(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, REPORT, "/greedy/matched", json_integer(117));
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding_msg(ev, "G2", "G2.greedy", SEV_ERROR, "117 of 118");

	ws_reset(w, "too few");
	ws_json_set(w, REPORT, "/greedy/total", json_integer(99));
	ws_json_set(w, REPORT, "/greedy/matched", json_integer(99));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G2", "G2.greedy", SEV_ERROR, "at least 100");

	ws_reset(w, "exactly 100");
	ws_json_set(w, REPORT, "/greedy/total", json_integer(100));
	ws_json_set(w, REPORT, "/greedy/matched", json_integer(100));
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_PASS);
	expect_no_finding(ev, "G2", "G2.greedy");
}

static void
g2_tolerance(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, REPORT, "/tensors/1/max_abs_err", json_real(0.031));
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding(ev, "G2", "G2.tolerance", SEV_ERROR);

	ws_reset(w, "equal to tol holds");
	ws_json_set(w, REPORT, "/tensors/1/max_abs_err", json_real(0.03));
	ev = ws_eval(w);
	expect_no_finding(ev, "G2", "G2.tolerance");

	ws_reset(w, "tol missing");
	ws_json_set(w, REPORT, "/tensors/0/tol", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.tolerance", SEV_ERROR);
}

static void
g2_profiles(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, REPORT, "/profiles/decode", NULL);
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding_msg(ev, "G2", "G2.profiles", SEV_ERROR, "decode");

	ws_reset(w, "a valid length without an entry");
	ws_json_set(w, REPORT, "/profiles/prefill/2", NULL);	/* 17 */
	ev = ws_eval(w);
	expect_finding_msg(ev, "G2", "G2.profiles", SEV_ERROR, "17");

	ws_reset(w, "inconsistent");
	ws_json_set(w, REPORT, "/profiles/decode/4/consistent", json_false());
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.profiles", SEV_ERROR);

	ws_reset(w, "no profiles in the report");
	ws_json_set(w, REPORT, "/profiles", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.profiles", SEV_ERROR);
}

static void
g2_bound(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_append(w, "02-onnx/model.onnx", "re-exported");
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_STALE);
	expect_finding(ev, "G2", "G2.bound", SEV_STALE);
	expect_no_severity(ev, "G2", "G2", SEV_ERROR);

	ws_reset(w, "model.onnx gone");
	ws_remove(w, "02-onnx/model.onnx");
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_STALE);
	expect_finding(ev, "G2", "G2.bound", SEV_STALE);

	ws_reset(w, "the report names another hash");
	ws_json_set(w, REPORT, "/model_sha256", json_string(ZEROS));
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_STALE);
	expect_finding(ev, "G2", "G2.bound", SEV_STALE);
}

static void
g2_parse(void **state)
{
	struct wsfix *w = *state;
	const struct finding *f;
	struct eval *ev;

	ws_write_str(w, REPORT, "{\"checker\": \"ok\",");
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding(ev, "G2", "G2.parse", SEV_ERROR);

	ws_reset(w, "bad YAML");
	ws_append(w, EXPORT_CONFIG, "opset: [unclosed\n");
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	f = find_finding(ev, "G2", "G2.parse", SEV_ERROR);
	assert_non_null(f);
	assert_string_equal(f->path, EXPORT_CONFIG);
	assert_non_null(strchr(f->where, ':'));

	ws_reset(w, "duplicate YAML key");
	ws_append(w, EXPORT_CONFIG, "opset: 18\n");
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.parse", SEV_ERROR);
}

/* ---- G3 ---- */

#define WHERE_ROW "C4,cpu_fallback,,host: 0.021 ms/step measured " \
	"(0.06% of TPOT at S=8192); once per step,Daniel Okafor (runtime team),"

static void
g3_csv(void **state)
{
	struct wsfix *w = *state;
	const struct finding *f;
	struct eval *ev;

	ws_replace(w, OPSUPPORT, "node_name,op_type", "node,op_type");
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_FAIL);
	f = find_finding(ev, "G3", "G3.csv", SEV_ERROR);
	assert_non_null(f);
	assert_string_equal(f->where, "row 1");

	ws_reset(w, "support C9");
	ws_replace(w, OPSUPPORT, "int64,none,C0,direct,calk_cast",
	    "int64,none,C9,direct,calk_cast");
	ev = ws_eval(w);
	f = find_finding(ev, "G3", "G3.csv", SEV_ERROR);
	assert_non_null(f);
	assert_string_equal(f->where, "row 22");

	ws_reset(w, "unknown lowering");
	ws_replace(w, OPSUPPORT, "C0,direct,calk_cast", "C0,magic,calk_cast");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G3", "G3.csv", SEV_ERROR, "magic");

	ws_reset(w, "a short row");
	ws_replace(w, OPSUPPORT, "calk_cast,,,", "calk_cast,,");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G3", "G3.csv", SEV_ERROR, "fields");

	ws_reset(w, "empty table");
	ws_write_str(w, OPSUPPORT, "");
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_FAIL);
	expect_finding(ev, "G3", "G3.csv", SEV_ERROR);
}

static void
g3_csv_variants_hold(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* `support` for `support(C0-C4)`, CRLF line ends, a blank line. */
	ws_replace(w, OPSUPPORT, "support(C0-C4)", "support");
	ws_replace_all(w, OPSUPPORT, "\n", "\r\n");
	ws_append(w, OPSUPPORT, "\r\n");
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_PASS);
	expect_no_finding(ev, "G3", "G3");
}

static void
g3_unsupported(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_replace(w, OPSUPPORT, "C0,direct,calk_cast,,,",
	    "C4,unsupported,,,Kenji Watanabe (compiler team),CALC-42");
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_FAIL);
	expect_finding_msg(ev, "G3", "G3.unsupported", SEV_ERROR, "CALC-42");
	expect_finding_msg(ev, "G3", "G3.unsupported", SEV_ERROR,
	    "/model/position_ids/Cast");
	expect_no_finding(ev, "G3", "G3.row_owner");
	expect_no_finding(ev, "G3", "G3.csv");
}

static void
g3_fallback(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_replace(w, OPSUPPORT, WHERE_ROW,
	    "C4,cpu_fallback,,,Daniel Okafor (runtime team),");
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_FAIL);
	expect_finding_msg(ev, "G3", "G3.fallback", SEV_ERROR, "Where");
	expect_no_finding(ev, "G3", "G3.row_owner");
}

static void
g3_row_owner(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_replace(w, OPSUPPORT, "Daniel Okafor (runtime team),", ",");
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_FAIL);
	expect_finding(ev, "G3", "G3.row_owner", SEV_ERROR);
	expect_no_finding(ev, "G3", "G3.fallback");

	ws_reset(w, "custom without owner");
	ws_replace(w, OPSUPPORT,
	    "(oplib 3.2.0),,Kenji Watanabe (compiler team),",
	    "(oplib 3.2.0),,,");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G3", "G3.row_owner", SEV_ERROR, "custom");
}

static void
g3_coverage(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_delete_lines(w, OPSUPPORT, 22, 1);	/* the Cast row */
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_FAIL);
	expect_finding_msg(ev, "G3", "G3.coverage", SEV_ERROR, "'Cast'");
}

static void
g3_parse_and_path(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_append(w, OPSUPPORT, "\"unterminated,Cast,ai.onnx\n");
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_FAIL);
	expect_finding(ev, "G3", "G3.parse", SEV_ERROR);

	ws_reset(w, "a link outside");
	ws_symlink(w, "/etc/passwd", OPSUPPORT);
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_FAIL);
	expect_finding(ev, "G3", "G3.path", SEV_ERROR);
}

/* ---- G4 ---- */

static void
g4_config(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_replace(w, QCONFIG, "calculet-quant/v1", "calculet-quant/v9");
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	expect_finding(ev, "G4", "G4.config", SEV_ERROR);

	ws_reset(w, "placeholder method");
	ws_replace(w, QCONFIG, "method: calq.smoothquant_w8a8",
	    "method: VENDOR_TOOL_METHOD");
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_BLOCKED);
	expect_finding(ev, "G4", "G4.config", SEV_BLOCKED);

	ws_reset(w, "missing");
	ws_remove(w, QCONFIG);
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	expect_finding(ev, "G4", "G4.config", SEV_ERROR);

	ws_reset(w, "no method");
	ws_replace(w, QCONFIG, "method: calq.smoothquant_w8a8\n", "");
	ev = ws_eval(w);
	expect_finding(ev, "G4", "G4.config", SEV_ERROR);
}

static void
g4_calibration(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_jsonl_set(w, CALIB, 3, "/license_review", json_string("pending"));
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	expect_finding_msg(ev, "G4", "G4.calibration", SEV_ERROR, "pending");

	ws_reset(w, "another tokenizer");
	ws_jsonl_set(w, CALIB, 4, "/tokenizer_sha256", json_string(ZEROS));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G4", "G4.calibration", SEV_ERROR, "tokenizer");

	ws_reset(w, "domain missing");
	ws_jsonl_set(w, CALIB, 5, "/domain", NULL);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G4", "G4.calibration", SEV_ERROR, "domain");

	ws_reset(w, "token_count a string");
	ws_jsonl_set(w, CALIB, 6, "/token_count", json_string("12"));
	ev = ws_eval(w);
	expect_finding(ev, "G4", "G4.calibration", SEV_ERROR);

	ws_reset(w, "missing");
	ws_remove(w, CALIB);
	ev = ws_eval(w);
	expect_finding(ev, "G4", "G4.calibration", SEV_ERROR);

	ws_reset(w, "empty");
	ws_write_file(w, CALIB, "", 0);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G4", "G4.calibration", SEV_ERROR, "empty");

	ws_reset(w, "bad line");
	ws_append(w, CALIB, "not json\n");
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	expect_finding(ev, "G4", "G4.parse", SEV_ERROR);
}

static void
g4_disjoint(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;
	json_t *prompt;
	char *data, *line;
	int n;

	/* Calibration sample 2 is prompt 5's text. */
	data = ws_slurp(w, PROMPTS, NULL);
	for (line = data, n = 1; n < 5; n++)
		line = strchr(line, '\n') + 1;
	*strchr(line, '\n') = '\0';
	prompt = json_loads(line, 0, NULL);
	assert_non_null(prompt);
	ws_jsonl_set(w, CALIB, 2, "/sha256",
	    json_copy(json_object_get(prompt, "sha256")));
	json_decref(prompt);
	free(data);
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	expect_finding(ev, "G4", "G4.disjoint", SEV_ERROR);
	expect_no_finding(ev, "G4", "G4.calibration");

	ws_reset(w, "without prompts the check is skipped");
	ws_remove(w, PROMPTS);
	ev = ws_eval(w);
	expect_finding(ev, "G4", "G4.disjoint", SEV_WARN);
	expect_status(ev, "G4", GS_PASS);
}

static void
g4_quality(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* mmlu: baseline 0.6218, max_drop 0.015. */
	ws_json_set(w, QREPORT, "/quality/1/value", json_real(0.6));
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	expect_finding_msg(ev, "G4", "G4.quality", SEV_ERROR, "mmlu");

	ws_reset(w, "perplexity up");
	ws_json_set(w, QREPORT, "/quality/0/value", json_real(17.3));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G4", "G4.quality", SEV_ERROR, "wikitext2_ppl");

	ws_reset(w, "perplexity down holds");
	ws_json_set(w, QREPORT, "/quality/0/value", json_real(12.0));
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_PASS);
	expect_no_finding(ev, "G4", "G4.quality");

	ws_reset(w, "defaults to higher is better");
	ws_json_set(w, QREPORT, "/quality/2/value", json_real(0.6));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G4", "G4.quality", SEV_ERROR, "ceval");

	ws_reset(w, "higher_is_better not a boolean");
	ws_json_set(w, QREPORT, "/quality/1/higher_is_better",
	    json_string("yes"));
	ev = ws_eval(w);
	expect_finding(ev, "G4", "G4.quality", SEV_ERROR);
}

static void
g4_layers(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, QREPORT, "/layer_errors", json_array());
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	expect_finding(ev, "G4", "G4.layers", SEV_ERROR);

	ws_reset(w, "missing");
	ws_json_set(w, QREPORT, "/layer_errors", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G4", "G4.layers", SEV_ERROR);
}

static void
g4_parse_and_path(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_write_str(w, QREPORT, "{\"quality\": [}");
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	expect_finding(ev, "G4", "G4.parse", SEV_ERROR);

	ws_reset(w, "a link outside");
	ws_symlink(w, "/etc/passwd", QREPORT);
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	expect_finding(ev, "G4", "G4.path", SEV_ERROR);
}

/* ---- G5 ---- */

static void
g5_manifest(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, CMANIFEST, "/oci_digest", json_string("sha256:abc"));
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_FAIL);
	expect_finding(ev, "G5", "G5.manifest", SEV_ERROR);

	ws_reset(w, "schema");
	ws_json_set(w, CMANIFEST, "/schema",
	    json_string("calculet-compiler/v0"));
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.manifest", SEV_ERROR);

	ws_reset(w, "empty calcc_commit");
	ws_json_set(w, CMANIFEST, "/calcc_commit", json_string(""));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G5", "G5.manifest", SEV_ERROR, "empty");

	ws_reset(w, "oplib sha256");
	ws_json_set(w, CMANIFEST, "/oplib/sha256", json_string("0"));
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.manifest", SEV_ERROR);

	ws_reset(w, "kernels version missing");
	ws_json_set(w, CMANIFEST, "/kernels/version", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.manifest", SEV_ERROR);

	ws_reset(w, "host.arch");
	ws_json_set(w, CMANIFEST, "/host/arch", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.manifest", SEV_ERROR);

	ws_reset(w, "license_id");
	ws_json_set(w, CMANIFEST, "/license_id", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.manifest", SEV_ERROR);

	ws_reset(w, "missing: blocked");
	ws_remove(w, CMANIFEST);
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_BLOCKED);
	expect_finding(ev, "G5", "G5.manifest", SEV_BLOCKED);
}

static void
g5_manifest_sbom(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, CMANIFEST, "/sbom", NULL);
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_PASS);
	expect_finding(ev, "G5", "G5.manifest.sbom", SEV_WARN);
	expect_no_finding(ev, "G5", "G5.manifest");

	ws_reset(w, "the SBOM file is gone");
	ws_remove(w, "04-compiler/sbom/calcc-2.8.0.spdx.json");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_PASS);
	expect_finding_msg(ev, "G5", "G5.manifest.sbom", SEV_WARN, "missing");

	ws_reset(w, "an absolute SBOM path");
	ws_json_set(w, CMANIFEST, "/sbom", json_string("/etc/passwd"));
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_FAIL);
	expect_finding(ev, "G5", "G5.path", SEV_ERROR);

	ws_reset(w, "a content URI is not resolved");
	ws_json_set(w, CMANIFEST, "/sbom",
	    json_string("oci://registry.example/sbom@sha256:" ZEROS));
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_PASS);
	expect_no_severity(ev, "G5", "G5.manifest.sbom", SEV_WARN);
}

static void
g5_config_and_bound(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_replace(w, CCONFIG, "onnx_sha256: \"",
	    "onnx_sha256: \"REQUIRED\"\n#");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_FAIL);
	expect_finding(ev, "G5", "G5.config", SEV_ERROR);
	expect_no_finding(ev, "G5", "G5.bound");

	ws_reset(w, "another onnx hash: stale");
	ws_flip_hex(w, CCONFIG, "onnx_sha256: \"");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_STALE);
	expect_finding(ev, "G5", "G5.bound", SEV_STALE);
	expect_no_finding(ev, "G5", "G5.config");

	ws_reset(w, "model.onnx re-exported");
	ws_append(w, "02-onnx/model.onnx", "x");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_STALE);
	expect_finding(ev, "G5", "G5.bound", SEV_STALE);

	ws_reset(w, "model.onnx gone: skipped");
	ws_remove(w, "02-onnx/model.onnx");
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.bound", SEV_WARN);
	expect_status(ev, "G5", GS_PASS);

	ws_reset(w, "config missing");
	ws_remove(w, CCONFIG);
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_BLOCKED);
	expect_finding(ev, "G5", "G5.config", SEV_BLOCKED);

	ws_reset(w, "model path outside");
	ws_replace(w, CCONFIG, "model: ../02-onnx/model.onnx",
	    "model: ../../02-onnx/model.onnx");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_FAIL);
	expect_finding(ev, "G5", "G5.path", SEV_ERROR);

	ws_reset(w, "output absolute");
	ws_replace(w, CCONFIG, "output: ../05-calbin/package", "output: /tmp");
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.path", SEV_ERROR);
}

static void
g5_script(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_remove(w, SCRIPT);
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_BLOCKED);
	expect_finding(ev, "G5", "G5.script", SEV_BLOCKED);
	expect_project(ev, "BLOCKED_COMPILER", "vendor.compile_command");

	ws_reset(w, "empty");
	ws_write_file(w, SCRIPT, "", 0);
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_BLOCKED);
	expect_finding(ev, "G5", "G5.script", SEV_BLOCKED);

	ws_reset(w, "a link outside");
	ws_symlink(w, "/bin/sh", SCRIPT);
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.path", SEV_ERROR);
}

static void
g5_builds(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, BUILDS, "/1", NULL);
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_FAIL);
	expect_finding_msg(ev, "G5", "G5.builds", SEV_ERROR, "at least two");

	ws_reset(w, "exit code");
	ws_json_set(w, BUILDS, "/1/exit_code", json_integer(2));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G5", "G5.builds", SEV_ERROR, "exited with 2");

	ws_reset(w, "log missing");
	ws_remove(w, "04-compiler/logs/build-2.log");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G5", "G5.builds", SEV_ERROR, "build-2.log");

	ws_reset(w, "unexplained difference");
	ws_json_set(w, BUILDS, "/1/output_tree_sha256", json_string(ZEROS));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G5", "G5.builds", SEV_ERROR, "differs");

	ws_reset(w, "explained but not golden-equivalent");
	ws_json_set(w, BUILDS, "/1/output_tree_sha256", json_string(ZEROS));
	ws_json_set(w, BUILDS, "/1/nondeterminism_explained",
	    json_string("timestamp in a section header"));
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.builds", SEV_ERROR);

	ws_reset(w, "explained and golden-equivalent: holds");
	ws_json_set(w, BUILDS, "/1/output_tree_sha256", json_string(ZEROS));
	ws_json_set(w, BUILDS, "/1/nondeterminism_explained",
	    json_string("timestamp in a section header"));
	ws_json_set(w, BUILDS, "/1/golden_equivalent", json_true());
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_PASS);
	expect_no_finding(ev, "G5", "G5.builds");

	ws_reset(w, "log path outside");
	ws_json_set(w, BUILDS, "/0/log", json_string("../../../etc/passwd"));
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_FAIL);
	expect_finding(ev, "G5", "G5.path", SEV_ERROR);

	ws_reset(w, "log is a link outside");
	ws_symlink(w, "/etc/passwd", "04-compiler/logs/build-1.log");
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.path", SEV_ERROR);
}

static void
g5_parse(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_write_str(w, BUILDS, "[{\"id\": 1,]");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_FAIL);
	expect_finding(ev, "G5", "G5.parse", SEV_ERROR);

	ws_reset(w, "manifest");
	ws_write_str(w, CMANIFEST, "{");
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.parse", SEV_ERROR);
	expect_project(ev, "BLOCKED_COMPILER", "vendor.compiler_oci");

	ws_reset(w, "compile config");
	ws_write_str(w, CCONFIG, "model: [\n");
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.parse", SEV_ERROR);
}

/* ---- the evaluation itself ---- */

static void
eval_unreadable_workspace(void **state)
{
	struct eval_opts o = { .no_cache = true };
	struct wsfix *w = *state;
	struct eval ev;
	char err[256], *file = ws_path(w, "owners.yaml"), *none;

	assert_int_equal(gate_eval_run(&ev, file, &o, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a directory"));
	none = ws_path(w, "no-such-folder");
	assert_int_equal(gate_eval_run(&ev, none, &o, err, sizeof err), -1);
	free(none);
	free(file);
}

static void
findings_capped_not_lost(void **state)
{
	struct wsfix *w = *state;
	const struct gate_result *gr;
	struct eval *ev;
	size_t i, n = 0;

	for (i = 0; i < 150; i++)
		ws_append(w, CALIB, "not json\n");
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_FAIL);
	gr = gate_of(ev, "G4");
	for (i = 0; i < gr->findings.n; i++)
		n += strcmp(gr->findings.v[i].check, "G4.parse") == 0;
	assert_int_equal(n, GATE_MAX_PER_CHECK);
	expect_finding_msg(ev, "G4", "G4.more", SEV_ERROR, "50 more error");
}

/* ---- status precedence (§2) ---- */

static void
status_pending_beats_everything(void **state)
{
	struct wsfix *w = *state;
	const struct gate_result *gr;
	struct eval *ev;
	size_t i;

	/* G4's primary absent, its other files broken. */
	ws_remove(w, QREPORT);
	ws_write_str(w, QCONFIG, "schema: [\n");
	ws_append(w, CALIB, "garbage\n");
	ws_symlink(w, "/etc/passwd", "03-quant/extra.json");
	ev = ws_eval(w);
	expect_status(ev, "G4", GS_PENDING);
	gr = gate_of(ev, "G4");
	for (i = 0; i < gr->findings.n; i++)
		assert_true(
		    finding_check_covers("G4.owner", gr->findings.v[i].check));
	assert_false(tickets_check_holds(ev, "G4.quality"));
	assert_false(tickets_check_holds(ev, "G4.*"));

	/* Even a broken owner entry does not make a pending gate fail. */
	ws_reset(w, "pending with an owner problem");
	ws_remove(w, BUILDS);
	ws_remove(w, SCRIPT);
	ws_replace(w, "owners.yaml", "G5: {owner: \"Kenji Watanabe (compiler "
	    "team)\"", "G5: {owner: \"vendor\"");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_PENDING);
	expect_no_finding(ev, "G5", "G5.script");
	/* The project is still marked for the missing compile.sh. */
	expect_project(ev, "BLOCKED_COMPILER", "vendor.compile_command");
}

static void
status_fail_blocked_stale(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* fail > blocked > stale, on G5. */
	ws_remove(w, SCRIPT);
	ws_flip_hex(w, CCONFIG, "onnx_sha256: \"");
	ws_json_set(w, BUILDS, "/0/exit_code", json_integer(1));
	ev = ws_eval(w);
	expect_finding(ev, "G5", "G5.script", SEV_BLOCKED);
	expect_finding(ev, "G5", "G5.bound", SEV_STALE);
	expect_finding(ev, "G5", "G5.builds", SEV_ERROR);
	expect_status(ev, "G5", GS_FAIL);

	ws_json_set(w, BUILDS, "/0/exit_code", json_integer(0));
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_BLOCKED);

	ws_write_str(w, SCRIPT, "#!/bin/sh\nexec calcc \"$@\"\n");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_STALE);

	ws_flip_hex(w, CCONFIG, "onnx_sha256: \"");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_PASS);

	/* And on G2: blocked beats stale. */
	ws_replace(w, EXPORT_CONFIG, "opset: 17", "opset: VENDOR_CONFIRMED");
	ws_append(w, "02-onnx/model.onnx", "x");
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.bound", SEV_STALE);
	expect_status(ev, "G2", GS_BLOCKED);
	/* Warnings and infos alone never change a status. */
	expect_status(ev, "G0", GS_PASS);
}

/* ---- the project status (§4) ---- */

struct vendor_case {
	const char	*label;
	const char	*id;
	void		(*mutate)(struct wsfix *);
};

static void oci_missing(struct wsfix *w) { ws_remove(w, CMANIFEST); }
static void oci_empty(struct wsfix *w) { ws_write_str(w, CMANIFEST, ""); }
static void
oci_placeholder(struct wsfix *w)
{
	ws_json_set(w, CMANIFEST, "/oci_digest", json_string("REQUIRED"));
}
static void
oci_malformed(struct wsfix *w)
{
	ws_json_set(w, CMANIFEST, "/oci_digest", json_string("sha256:BE467F93"
	    "D5551C27AA4785708E032FD7D530992D0F2E9B18A4F08300CFC76E80"));
}
static void
oci_absent(struct wsfix *w)
{
	ws_json_set(w, CMANIFEST, "/oci_digest", NULL);
}
static void cmd_missing(struct wsfix *w) { ws_remove(w, SCRIPT); }
static void cmd_empty(struct wsfix *w) { ws_write_str(w, SCRIPT, ""); }
static void ccfg_missing(struct wsfix *w) { ws_remove(w, CCONFIG); }
static void ccfg_empty(struct wsfix *w) { ws_write_str(w, CCONFIG, ""); }
static void opset_missing(struct wsfix *w) { ws_remove(w, EXPORT_CONFIG); }
static void opset_empty(struct wsfix *w) { ws_write_str(w, EXPORT_CONFIG, ""); }
static void
opset_placeholder(struct wsfix *w)
{
	ws_replace(w, EXPORT_CONFIG, "opset: 17", "opset: VENDOR_CONFIRMED");
}
static void
opset_absent(struct wsfix *w)
{
	ws_replace(w, EXPORT_CONFIG, "opset: 17\n", "");
}
static void quant_missing(struct wsfix *w) { ws_remove(w, QCONFIG); }
static void quant_empty(struct wsfix *w) { ws_write_str(w, QCONFIG, ""); }
static void
quant_placeholder(struct wsfix *w)
{
	ws_replace(w, QCONFIG, "method: calq.smoothquant_w8a8",
	    "method: VENDOR_TOOL_METHOD");
}
static void
quant_absent(struct wsfix *w)
{
	ws_replace(w, QCONFIG, "method: calq.smoothquant_w8a8\n", "");
}

static const struct vendor_case vendor_cases[] = {
	{ "compiler manifest missing", "vendor.compiler_oci", oci_missing },
	{ "compiler manifest empty", "vendor.compiler_oci", oci_empty },
	{ "oci_digest placeholder", "vendor.compiler_oci", oci_placeholder },
	{ "oci_digest malformed", "vendor.compiler_oci", oci_malformed },
	{ "oci_digest absent", "vendor.compiler_oci", oci_absent },
	{ "compile.sh missing", "vendor.compile_command", cmd_missing },
	{ "compile.sh empty", "vendor.compile_command", cmd_empty },
	{ "compile config missing", "vendor.compile_command", ccfg_missing },
	{ "compile config empty", "vendor.compile_command", ccfg_empty },
	{ "export config missing", "vendor.opset_matrix", opset_missing },
	{ "export config empty", "vendor.opset_matrix", opset_empty },
	{ "opset placeholder", "vendor.opset_matrix", opset_placeholder },
	{ "opset absent", "vendor.opset_matrix", opset_absent },
	{ "quant config missing", "vendor.quant_tool", quant_missing },
	{ "quant config empty", "vendor.quant_tool", quant_empty },
	{ "method placeholder", "vendor.quant_tool", quant_placeholder },
	{ "method absent", "vendor.quant_tool", quant_absent },
};

static void
project_blocked_compiler(void **state)
{
	struct wsfix *w = *state;
	const struct vendor_case *c;
	struct eval *ev;
	size_t i, k;

	for (i = 0; i < nitems(vendor_cases); i++) {
		c = &vendor_cases[i];
		ws_reset(w, c->label);
		c->mutate(w);
		ev = ws_eval(w);
		expect_project(ev, "BLOCKED_COMPILER", c->id);
		/* Exactly the one deliverable, shaped like a finding. */
		assert_int_equal(ev->project.n, 1);
		assert_int_equal(ev->project.v[0].severity, SEV_BLOCKED);
		assert_true(ev->project.v[0].path[0] != '\0');
		for (k = 0; k < GATE_COUNT; k++)
			if (strcmp(ev->gates[k].def->id, "G10") != 0)
				assert_int_not_equal(ev->gates[k].status,
				    GS_PENDING);
	}

	/* Two at once: both named, still BLOCKED_COMPILER. */
	ws_reset(w, "two deliverables");
	oci_malformed(w);
	quant_placeholder(w);
	ev = ws_eval(w);
	expect_project(ev, "BLOCKED_COMPILER", "vendor.compiler_oci");
	expect_project(ev, "BLOCKED_COMPILER", "vendor.quant_tool");
	assert_int_equal(ev->project.n, 2);
}

static void
project_first_gate_not_passing(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_replace(w, OPSUPPORT, "C0,direct,calk_cast,,,",
	    "C4,unsupported,,,Kenji Watanabe (compiler team),CALC-42");
	ws_remove(w, "06-runtime/faults/kv-full.json");
	ev = ws_eval(w);
	expect_status(ev, "G3", GS_FAIL);
	expect_status(ev, "G7", GS_FAIL);
	expect_project(ev, "G3", NULL);
	expect_finding_msg(ev, "G10", "G10.upstream", SEV_ERROR, "G3 is fail");

	ws_reset(w, "only G9 stale or failing");
	ws_json_set(w, "07-serving/conformance/api-matrix.json",
	    "/features/cancel/passed", json_false());
	ev = ws_eval(w);
	expect_project(ev, "G9", NULL);
	expect_finding_msg(ev, "G10", "G10.upstream", SEV_ERROR, "G9");

	ws_reset(w, "a stale gate counts as not passing");
	ws_append(w, "02-onnx/model.onnx", "x");
	ev = ws_eval(w);
	expect_project(ev, "G2", NULL);
}

/* ---- readings a parser could choose (workspace.md v2, §1 and §2) ---- */

static void
readings_tags_and_integers(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* An explicit tag decides: the quoted "17" is the integer 17, and no
	 * "still a placeholder" vendor finding marks the project. */
	ws_replace(w, EXPORT_CONFIG, "opset: 17", "opset: !!int \"17\"");
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_PASS);
	expect_project(ev, "RELEASED", NULL);

	ws_reset(w, "!!str 17 is a string");
	ws_replace(w, EXPORT_CONFIG, "opset: 17", "opset: !!str 17");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G2", "G2.config", SEV_ERROR, "integer");
	expect_project(ev, "BLOCKED_COMPILER", "vendor.opset_matrix");

	ws_reset(w, "a tag that does not fit");
	ws_replace(w, EXPORT_CONFIG, "opset: 17", "opset: !!int \"seventeen\"");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G2", "G2.parse", SEV_ERROR, "!!int");
	assert_string_equal(find_finding(ev, "G2", "G2.parse",
	    SEV_ERROR)->where, "3:8");

	/* Integer fields take integers only. */
	ws_reset(w, "opset 17.0");
	ws_replace(w, EXPORT_CONFIG, "opset: 17", "opset: 17.0");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G2", "G2.config", SEV_ERROR, "integer");
	ws_reset(w, "layers 28.0");
	ws_json_set(w, SOURCE, "/architecture/layers", json_real(28.0));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G0", "G0.architecture", SEV_ERROR,
	    "'layers' must be an integer");
	ws_reset(w, "layers 1e3");
	ws_replace(w, SOURCE, "\"layers\": 28", "\"layers\": 1e3");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G0", "G0.architecture", SEV_ERROR,
	    "'layers' must be an integer");

	/* Merge keys are YAML 1.1: an error with its position. */
	ws_reset(w, "merge key");
	ws_append(w, EXPORT_CONFIG, "extra:\n  <<: {a: 1}\n");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G2", "G2.parse", SEV_ERROR, "merge keys");

	/* A duplicate key is an error at the second one, JSON as YAML. */
	ws_reset(w, "duplicate JSON key");
	ws_replace(w, SOURCE, "\"schema\"", "\"license\": \"MIT\", \"schema\"");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G0", "G0.parse", SEV_ERROR, "duplicate");
}

static void
readings_bom_and_empty_script(void **state)
{
	static const char *const texts[] = { SOURCE, PROMPTS, OPSUPPORT,
	    EXPORT_CONFIG, "05-calbin/file-sha256.txt", "owners.yaml" };
	struct wsfix *w = *state;
	struct eval *ev;
	char *old, *new;
	size_t i, len;

	/* A leading BOM is ignored in every kind of text artifact. */
	for (i = 0; i < nitems(texts); i++) {
		old = ws_slurp(w, texts[i], &len);
		new = xmalloc(len + 3);
		memcpy(new, "\xef\xbb\xbf", 3);
		memcpy(new + 3, old, len);
		ws_write_file(w, texts[i], new, len + 3);
		free(old);
		free(new);
	}
	ev = ws_eval(w);
	expect_project(ev, "RELEASED", NULL);

	/* compile.sh of a shebang, comments and blank lines is empty. */
	ws_reset(w, "comments only");
	ws_write_str(w, SCRIPT, "#!/bin/sh\n# the vendor's command goes here\n"
	    "\n   \t\n  # later\n");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G5", "G5.script", SEV_BLOCKED, "only comments");
	expect_project(ev, "BLOCKED_COMPILER", "vendor.compile_command");
	ws_reset(w, "one command");
	ws_write_str(w, SCRIPT, "# build\n  calcc --config c.yaml\n");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_PASS);
}

/* ---- nothing to judge (workspace.md §6, v3) ---- */

/* An empty list judged nothing: the check is not judged, a warning says
 * why, and the gate's status is untouched. */
static void
expect_nothing_judged(const struct eval *ev, const char *gate,
    const char *check)
{
	expect_verdict(ev, check, CV_NOT_JUDGED);
	expect_finding_msg(ev, gate, check, SEV_WARN, "nothing to judge");
}

static void
empty_g0_files(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SOURCE, "/files", json_array());
	ws_tickets(w);
	ev = &w->ev;
	expect_status(ev, "G0", GS_PASS);
	expect_nothing_judged(ev, "G0", "G0.files");
	assert_true(ticket_by_id(w, "M01")->progress < 1.0);
}

static void
empty_g1_lists(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* No prompt: no output is paired with one. */
	ws_write_str(w, PROMPTS, "");
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.prompts", SEV_ERROR);
	expect_nothing_judged(ev, "G1", "G1.outputs");

	/* No output record: the re-run and the tokenizer compare nothing. */
	ws_reset(w, "no output record");
	ws_write_str(w, OUTPUTS, "\n");
	ev = ws_eval(w);
	expect_nothing_judged(ev, "G1", "G1.repro");
	expect_nothing_judged(ev, "G1", "G1.tokenizer");
	expect_verdict(ev, "G1.outputs", CV_FAILED);
}

static void
empty_g2_profiles(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* The known case: no profile named, M03 used to be 100 %. */
	ws_write_str(w, EXPORT_CONFIG, "schema: calculet-onnx-export/v1\n"
	    "opset: 17\n");
	ws_tickets(w);
	ev = &w->ev;
	expect_status(ev, "G2", GS_PASS);
	expect_nothing_judged(ev, "G2", "G2.profiles");
	assert_string_equal(find_finding(ev, "G2", "G2.profiles",
	    SEV_WARN)->path, EXPORT_CONFIG);
	assert_true(ticket_by_id(w, "M03")->progress < 1.0);
	assert_int_equal(ticket_by_id(w, "M03")->holding, 0);

	ws_reset(w, "an empty mapping");
	ws_write_str(w, EXPORT_CONFIG, "schema: calculet-onnx-export/v1\n"
	    "opset: 17\nprofiles: {}\n");
	ev = ws_eval(w);
	expect_nothing_judged(ev, "G2", "G2.profiles");

	ws_reset(w, "an empty list");
	ws_write_str(w, EXPORT_CONFIG, "schema: calculet-onnx-export/v1\n"
	    "opset: 17\nprofiles: []\n");
	ev = ws_eval(w);
	expect_nothing_judged(ev, "G2", "G2.profiles");

	/* Not a mapping or a list: an error, not nothing. */
	ws_reset(w, "profiles a number");
	ws_write_str(w, EXPORT_CONFIG, "schema: calculet-onnx-export/v1\n"
	    "opset: 17\nprofiles: 17\n");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G2", "G2.profiles", SEV_ERROR, "mapping");
	expect_verdict(ev, "G2.profiles", CV_FAILED);
}

static void
empty_g2_report_lists(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, REPORT, "/external_data/files", json_array());
	ws_json_set(w, REPORT, "/tensors", json_array());
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_PASS);
	/* No external data is a fact the checker judged: held. */
	expect_verdict(ev, "G2.external_data", CV_HELD);
	expect_nothing_judged(ev, "G2", "G2.tolerance");
	expect_verdict(ev, "G2.greedy", CV_HELD);

	/* No operator: the inventory and G3's coverage judge nothing. */
	ws_reset(w, "an empty inventory");
	ws_write_str(w, INVENTORY, "[]\n");
	ev = ws_eval(w);
	expect_nothing_judged(ev, "G2", "G2.op_inventory");
	expect_nothing_judged(ev, "G3", "G3.coverage");
	expect_status(ev, "G3", GS_PASS);
}

static void
empty_g3_table(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;
	static const char *const rules[] = { "G3.csv", "G3.unsupported",
	    "G3.fallback", "G3.row_owner" };
	size_t i;

	ws_write_str(w, OPSUPPORT, "node_name,op_type,domain,opset,"
	    "input_shapes,dtypes,quant,support(C0-C4),lowering,kernel,"
	    "fallback,owner,blocking_issue\r\n");
	ev = ws_eval(w);
	for (i = 0; i < nitems(rules); i++)
		expect_nothing_judged(ev, "G3", rules[i]);
	/* The inventory's operators have no row: that is judged, and fails. */
	expect_verdict(ev, "G3.coverage", CV_FAILED);
}

static void
empty_g4_quality(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, QREPORT, "/quality", json_array());
	ws_tickets(w);
	ev = &w->ev;
	expect_status(ev, "G4", GS_PASS);
	expect_nothing_judged(ev, "G4", "G4.quality");
	assert_true(ticket_by_id(w, "M05")->progress < 1.0);

	/* A prompt corpus of no prompts: nothing is disjoint from it. */
	ws_reset(w, "no prompt");
	ws_write_str(w, PROMPTS, "\n");
	ev = ws_eval(w);
	expect_nothing_judged(ev, "G4", "G4.disjoint");
}

/* ---- corrupt evidence is a finding ---- */

static void
corrupt_g2_profile_members(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* A list member that names no profile was passed over unseen. */
	ws_write_str(w, EXPORT_CONFIG, "schema: calculet-onnx-export/v1\n"
	    "opset: 17\nprofiles:\n  - prefill\n  - 42\n");
	ev = ws_eval(w);
	expect_status(ev, "G2", GS_FAIL);
	expect_finding_msg(ev, "G2", "G2.parse", SEV_ERROR, "neither a name");
	assert_string_equal(find_finding(ev, "G2", "G2.parse",
	    SEV_ERROR)->where, "5:5");
	expect_verdict(ev, "G2.profiles", CV_FAILED);

	/* A sequence length that is not an integer, likewise. */
	ws_reset(w, "a length that is a string");
	ws_replace(w, EXPORT_CONFIG, "[1, 16, 17,", "[1, \"16\", 17,");
	ev = ws_eval(w);
	expect_finding_msg(ev, "G2", "G2.parse", SEV_ERROR, "not an integer");
	assert_string_equal(find_finding(ev, "G2", "G2.parse",
	    SEV_ERROR)->where, "11:33");
}

static void
corrupt_g3_inventory_entry(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* An entry without an op_type: G2 fails it, G3 cannot judge it. */
	ws_json_set(w, INVENTORY, "/1/op_type", NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G2", "G2.op_inventory", SEV_ERROR);
	expect_verdict(ev, "G3.coverage", CV_NOT_JUDGED);
	expect_finding_msg(ev, "G3", "G3.coverage", SEV_WARN, "op_type");

	ws_reset(w, "an inventory that is not an array");
	ws_write_str(w, INVENTORY, "{\"op_type\": \"Gather\"}\n");
	ev = ws_eval(w);
	expect_verdict(ev, "G3.coverage", CV_NOT_JUDGED);
	expect_finding_msg(ev, "G3", "G3.coverage", SEV_WARN, "not an array");
}

static void
corrupt_g4_inputs(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;
	const struct finding *f;

	/* A line of prompts.jsonl G4 cannot read: G1 reports it, and G4's
	 * disjointness, judged on the rest, is not held. */
	ws_append(w, PROMPTS, "{\"sample_id\": \"x\", oops}\n");
	ev = ws_eval(w);
	expect_finding(ev, "G1", "G1.parse", SEV_ERROR);
	expect_verdict(ev, "G4.disjoint", CV_NOT_JUDGED);
	f = find_finding(ev, "G4", "G4.disjoint", SEV_WARN);
	assert_non_null(f);
	assert_string_equal(f->path, PROMPTS);
	assert_string_equal(f->where, "121:23");
	expect_no_finding(ev, "G4", "G4.parse");

	/* A prompt with no sha256: nothing to compare it by. */
	ws_reset(w, "a prompt without sha256");
	ws_jsonl_set(w, PROMPTS, 7, "/sha256", NULL);
	ev = ws_eval(w);
	expect_verdict(ev, "G4.disjoint", CV_NOT_JUDGED);
	assert_string_equal(find_finding(ev, "G4", "G4.disjoint",
	    SEV_WARN)->where, "7:1");

	/* A calibration sha256 that is not a string was neither missing
	 * nor compared. */
	ws_reset(w, "a calibration sha256 that is a number");
	ws_jsonl_set(w, CALIB, 3, "/sha256", json_integer(42));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G4", "G4.calibration", SEV_ERROR,
	    "not a string");
	expect_verdict(ev, "G4.disjoint", CV_NOT_JUDGED);
}

static void
corrupt_g5_config_path(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_replace(w, CCONFIG, "model: ../02-onnx/model.onnx", "model: [a]");
	ev = ws_eval(w);
	expect_status(ev, "G5", GS_FAIL);
	expect_finding_msg(ev, "G5", "G5.config", SEV_ERROR, "'model'");
	assert_string_equal(find_finding(ev, "G5", "G5.config",
	    SEV_ERROR)->where, "1:8");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		WS_TEST(complete_every_check_holds),
		MID_TEST(midproject_as_documented),
		WS_TEST(g0_schema),
		WS_TEST(g0_model_id),
		WS_TEST(g0_license),
		WS_TEST(g0_files_entries),
		WS_TEST(g0_files_hash),
		WS_TEST(g0_files_absent_is_info),
		WS_TEST(g0_files_not_regular),
		WS_TEST(g0_path),
		WS_TEST(g0_path_link_inside_holds),
		WS_TEST(g0_architecture),
		WS_TEST(g0_tokenizer),
		WS_TEST(g0_targets),
		WS_TEST(g0_sla),
		WS_TEST(g0_complexity),
		WS_TEST(g0_parse),
		WS_TEST(g1_env),
		WS_TEST(g1_prompts),
		WS_TEST(g1_coverage),
		WS_TEST(g1_outputs),
		WS_TEST(g1_repro),
		WS_TEST(g1_tokenizer),
		WS_TEST(g1_golden),
		WS_TEST(g1_parse_and_path),
		WS_TEST(g2_config),
		WS_TEST(g2_checker),
		WS_TEST(g2_external_data),
		WS_TEST(g2_op_inventory),
		WS_TEST(g2_greedy),
		WS_TEST(g2_tolerance),
		WS_TEST(g2_profiles),
		WS_TEST(g2_bound),
		WS_TEST(g2_parse),
		WS_TEST(g3_csv),
		WS_TEST(g3_csv_variants_hold),
		WS_TEST(g3_unsupported),
		WS_TEST(g3_fallback),
		WS_TEST(g3_row_owner),
		WS_TEST(g3_coverage),
		WS_TEST(g3_parse_and_path),
		WS_TEST(g4_config),
		WS_TEST(g4_calibration),
		WS_TEST(g4_disjoint),
		WS_TEST(g4_quality),
		WS_TEST(g4_layers),
		WS_TEST(g4_parse_and_path),
		WS_TEST(g5_manifest),
		WS_TEST(g5_manifest_sbom),
		WS_TEST(g5_config_and_bound),
		WS_TEST(g5_script),
		WS_TEST(g5_builds),
		WS_TEST(g5_parse),
		WS_TEST(eval_unreadable_workspace),
		WS_TEST(findings_capped_not_lost),
		WS_TEST(status_pending_beats_everything),
		WS_TEST(status_fail_blocked_stale),
		WS_TEST(project_blocked_compiler),
		WS_TEST(project_first_gate_not_passing),
		WS_TEST(readings_tags_and_integers),
		WS_TEST(readings_bom_and_empty_script),
		WS_TEST(empty_g0_files),
		WS_TEST(empty_g1_lists),
		WS_TEST(empty_g2_profiles),
		WS_TEST(empty_g2_report_lists),
		WS_TEST(empty_g3_table),
		WS_TEST(empty_g4_quality),
		WS_TEST(corrupt_g2_profile_members),
		WS_TEST(corrupt_g3_inventory_entry),
		WS_TEST(corrupt_g4_inputs),
		WS_TEST(corrupt_g5_config_path),
	};

	return cmocka_run_group_tests_name("gates_a", tests,
	    fixture_group_setup, fixture_group_teardown);
}

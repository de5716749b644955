/*
 * test_verdicts.c: a check holds only when it was judged (workspace.md §6,
 * v2).  Every check id of §3 has a verdict in `check --json`; each one, with
 * nothing to judge, is `not_judged` and never counts toward a ticket; every
 * ticket, with nothing to judge, is at 0 %.  Also G10.revoked and the
 * candidate that skips revoked generations (release.md §4).
 */
#include "calops.h"

#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/report.h"
#include "wsfixture.h"

#define SOURCE "00-source/source-manifest.json"
#define REVOCATIONS "08-release/revocations.json"
#define GEN2 "08-release/generations/2/release-manifest.json"
#define GEN3 "08-release/generations/3/release-manifest.json"


/* Each ticket naming check (or its gate's ".*") does not count it, on
 * the tickets derived last (ws_tickets: an evaluation hashes every byte). */
static void
expect_not_counted(struct wsfix *w, const char *check)
{
	const struct ticket *t;
	size_t i, k, n = strcspn(check, ".");

	assert_true(w->have_tickets);
	for (i = 0; i < TICKET_COUNT; i++) {
		t = &w->tickets[i];
		for (k = 0; k < t->total; k++) {
			const char *spec = t->def->checks[k];
			size_t len = strcspn(spec, "!");

			/* A sub-id not judged leaves its parent alone. */
			if ((strncmp(spec, check, len) != 0 ||
				check[len] != '\0') &&
			    !(strncmp(spec, check, n + 1) == 0 &&
				strcmp(spec + n, ".*") == 0))
				continue;
			if (t->verdict[k] == CV_HELD) {
				print_error("%s counts %s as held\n",
				    t->def->id, spec);
				fail();
			}
			assert_true(t->holding < t->total);
		}
	}
}

/* ---- every check id has a verdict ---- */

static void
every_check_id_listed(void **state)
{
	size_t i, k, g, n = 0;
	bool found;

	(void)state;
	for (i = 0; i < GATE_COUNT; i++)
		for (k = 0; gate_table[i].checks[k] != NULL; k++, n++) {
			assert_true(strncmp(gate_table[i].checks[k],
			    gate_table[i].id, strlen(gate_table[i].id)) == 0);
			assert_int_equal(gate_table[i].checks[k][
			    strlen(gate_table[i].id)], '.');
		}
	assert_int_equal(n, ws_nspec_checks);
	for (i = 0; i < ws_nspec_checks; i++) {
		found = false;
		for (g = 0; g < GATE_COUNT; g++)
			for (k = 0; gate_table[g].checks[k] != NULL; k++)
				found |= strcmp(gate_table[g].checks[k],
				    ws_spec_checks[i]) == 0;
		if (!found)
			fail_msg("%s has no verdict", ws_spec_checks[i]);
	}
}

static void
complete_every_verdict_held(void **state)
{
	struct wsfix *w = *state;
	json_t *report, *gates, *g, *checks;
	struct gate_filter all = { { false }, 0 };
	size_t i, k;

	ws_tickets(w);
	for (i = 0; i < ws_nspec_checks; i++)
		expect_verdict(&w->ev, ws_spec_checks[i], CV_HELD);
	report = report_json(&w->ev, w->tickets, &all, false);
	gates = json_object_get(report, "gates");
	assert_int_equal(json_array_size(gates), GATE_COUNT);
	json_array_foreach(gates, i, g) {
		checks = json_object_get(g, "checks");
		assert_true(json_is_object(checks));
		for (k = 0; gate_table[i].checks[k] != NULL; k++)
			assert_string_equal(json_string_value(json_object_get(
			    checks, gate_table[i].checks[k])), "held");
		assert_int_equal(json_object_size(checks), k);
	}
	/* Tickets name the check, not the spec's "!" for M06. */
	g = json_array_get(json_object_get(report, "tickets"), 5);
	assert_string_equal(json_string_value(json_object_get(json_object_get(g,
	    "checks"), "G5.manifest")), "held");
	json_decref(report);
}

/* ---- each check id with nothing to judge ---- */

/* The gate's primary artifact gone: the gate is pending, none of its
 * checks is judged, though no finding fails one. */
static void
pending_gate_judges_nothing(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;
	size_t i, k;

	for (i = 0; i < GATE_COUNT; i++) {
		ws_reset(w, gate_table[i].id);
		ws_remove(w, gate_table[i].primary);
		ws_tickets(w);
		ev = &w->ev;
		expect_status(ev, gate_table[i].id, GS_PENDING);
		for (k = 0; gate_table[i].checks[k] != NULL; k++) {
			expect_verdict(ev, gate_table[i].checks[k],
			    CV_NOT_JUDGED);
			expect_not_counted(w, gate_table[i].checks[k]);
		}
	}
}

/* An input other than the primary artifact gone: the check is not judged
 * (and the check that owns the input fails, when there is one). */
struct nothing_case {
	const char	*label;
	const char	*remove[2];	/* files or folders to remove */
	const char	*pointer;	/* or a member of the G0 manifest */
	const char	*not_judged[5];
	const char	*failed;	/* the check the loss is told by */
};

static const struct nothing_case nothing[] = {
	{ "no listed source file is here", { "00-source/weights",
	    "00-source/hf-config" }, NULL,
	    { "G0.files.hash" }, NULL },
	{ "G0 targets incomplete", { NULL }, "/targets/batch",
	    { "G0.complexity" }, "G0.targets" },
	{ "no prompts", { "01-reference/prompts.jsonl" }, NULL,
	    { "G1.coverage", "G1.outputs", "G4.disjoint" }, "G1.prompts" },
	{ "no G0 tokenizer hash", { NULL }, "/tokenizer/sha256",
	    { "G1.tokenizer", "G4.calibration" }, "G0.tokenizer" },
	{ "no export config", { "02-onnx/export-config.yaml" }, NULL,
	    { "G2.profiles" }, "G2.config" },
	{ "no op inventory", { "02-onnx/op-inventory.json" }, NULL,
	    { "G3.coverage" }, "G2.op_inventory" },
	{ "no model.onnx", { "02-onnx/model.onnx" }, NULL, { "G5.bound" },
	    "G2.bound" },
	{ "no G0 context", { NULL }, "/targets/context",
	    { "G6.single_chip", "G7.golden", "G8.limits", "G9.perf" },
	    "G0.targets" },
	{ "no package", { "05-calbin/package" }, NULL,
	    { "G6.bound", "G7.bound", "G8.bound" }, "G6.hashes" },
	{ "no soak run", { "07-serving/soak" }, NULL, { "G9.soak", "G9.leak" },
	    "G9.duration" },
	{ "candidate without a manifest", { GEN2 }, NULL,
	    { "G10.bindings", "G10.rollback" }, "G10.signature" },
};

static void
input_missing_judges_nothing(void **state)
{
	struct wsfix *w = *state;
	const struct nothing_case *c;
	struct eval *ev;
	size_t i, k;

	for (i = 0; i < nitems(nothing); i++) {
		c = &nothing[i];
		ws_reset(w, c->label);
		for (k = 0; k < nitems(c->remove) && c->remove[k]; k++)
			ws_remove(w, c->remove[k]);
		if (c->pointer != NULL)
			ws_json_set(w, SOURCE, c->pointer, NULL);
		ws_tickets(w);
		ev = &w->ev;
		for (k = 0; k < nitems(c->not_judged) && c->not_judged[k];
		    k++) {
			expect_verdict(ev, c->not_judged[k], CV_NOT_JUDGED);
			expect_not_counted(w, c->not_judged[k]);
		}
		if (c->failed != NULL)
			expect_verdict(ev, c->failed, CV_FAILED);
	}
}

static void
no_soak_is_no_evidence(void **state)
{
	struct wsfix *w = *state;
	const struct ticket *t;

	/* The fresh demo: G9 fails with "no soak run", and M12 is not at
	 * 100 % (G9.perf judged, G9.soak not). */
	ws_remove(w, "07-serving/soak");
	ws_tickets(w);
	expect_status(&w->ev, "G9", GS_FAIL);
	t = ticket_by_id(w, "M12");
	assert_int_equal(t->holding, 1);
	assert_int_equal(t->total, 2);
	assert_int_equal(t->verdict[0], CV_HELD);
	assert_int_equal(t->verdict[1], CV_NOT_JUDGED);
	assert_true(t->claimed_done_without_evidence);
}

/* A skipped check is not judged even though the rest of it ran. */
static void
skipped_is_not_judged(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	ws_json_set(w, SOURCE, "/targets/sla", NULL);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_WARN, "skipped");
	expect_verdict(ev, "G9.soak", CV_NOT_JUDGED);
	expect_verdict(ev, "G9.leak", CV_HELD);
	expect_verdict(ev, "G0.sla", CV_FAILED);
}

/* A field present with the value the rule allows is judged. */
static void
allowed_values_are_judged(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;

	/* Generation 1 names no previous generation: nothing to roll back
	 * to is what the rule allows there. */
	ws_remove(w, "08-release/generations/2");
	ev = ws_eval(w);
	expect_verdict(ev, "G10.rollback", CV_HELD);
	/* No revocations.json: nothing is revoked. */
	expect_verdict(ev, "G10.revoked", CV_HELD);

	/* The export config names no profile: an empty list is no such
	 * value, the rule over its members judged nothing (v3). */
	ws_reset(w, "no profiles");
	ws_write_str(w, "02-onnx/export-config.yaml",
	    "schema: calculet-onnx-export/v1\nopset: 17\n");
	ev = ws_eval(w);
	expect_verdict(ev, "G2.profiles", CV_NOT_JUDGED);
}

/* ---- every ticket, with nothing to judge ---- */

static void
every_ticket_needs_evidence(void **state)
{
	struct wsfix *w = *state;
	const struct ticket *t;
	const char *primary;
	char *abs;
	size_t i, k;
	int g;

	for (i = 0; i < TICKET_COUNT; i++) {
		ws_reset(w, tickets_table[i].id);
		/* Take away the primary artifact of every gate it names. */
		for (k = 0; k < TICKET_MAX_CHECKS &&
		    tickets_table[i].checks[k] != NULL; k++) {
			g = gate_index_of_check(tickets_table[i].checks[k]);
			assert_true(g >= 0);
			primary = gate_table[g].primary;
			abs = ws_path(w, primary);
			if (access(abs, F_OK) == 0)	/* M01: G0 five times */
				ws_remove(w, primary);
			free(abs);
		}
		ws_tickets(w);
		t = ticket_by_id(w, tickets_table[i].id);
		assert_int_equal(t->holding, 0);
		assert_true(t->progress == 0.0);
		for (k = 0; k < t->total; k++)
			assert_int_equal(t->verdict[k], CV_NOT_JUDGED);
		/* tickets.yaml says done: the claim has no evidence. */
		assert_true(t->claimed_done_without_evidence);
	}
}

/* ---- G10.revoked (release.md §4) ---- */

static void
write_revocations(struct wsfix *w, const char *generations, EVP_PKEY *k)
{
	char *text = xasprintf("{\"schema\": \"calops-revocations/v1\", "
	    "\"revoked\": [%s]}\n", generations);

	ws_write_str(w, REVOCATIONS, text);
	if (k != NULL)
		ws_sign(w, REVOCATIONS, k);
	free(text);
}

static void
revoked_generations(void **state)
{
	struct wsfix *w = *state;
	struct eval *ev;
	EVP_PKEY *other;

	/* A newer generation 3 that was never signed, revoked: the
	 * candidate is 2 again, and the gate passes as before. */
	ws_new_generation(w, 3, 2, NULL);
	ev = ws_eval(w);
	expect_finding(ev, "G10", "G10.signature", SEV_ERROR);
	write_revocations(w, "{\"generation\": 3, \"reason\": \"bad KV\", "
	    "\"ts\": 1790000000}", release_key());
	ev = ws_eval(w);
	expect_status(ev, "G10", GS_PASS);
	expect_verdict(ev, "G10.revoked", CV_HELD);

	/* current -> 2, and 2 revoked. */
	ws_reset(w, "current revoked");
	write_revocations(w, "{\"generation\": 2, \"reason\": \"leak\", "
	    "\"ts\": 1790000000}", release_key());
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.revoked", SEV_ERROR, "revoked");
	expect_verdict(ev, "G10.revoked", CV_FAILED);
	/* G10.current asks only whether its signature verifies: it does. */
	expect_verdict(ev, "G10.current", CV_HELD);

	/* Unsigned, or signed by a key not trusted: no revocation in it is
	 * trusted, and G10.revoked fails. */
	ws_reset(w, "unsigned");
	write_revocations(w, "{\"generation\": 2, \"reason\": \"x\", "
	    "\"ts\": 1}", NULL);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.revoked", SEV_ERROR, "trusted");
	expect_verdict(ev, "G10.signature", CV_HELD);

	ws_reset(w, "untrusted signer");
	other = untrusted_key();
	write_revocations(w, "{\"generation\": 2, \"reason\": \"x\", "
	    "\"ts\": 1}", other);
	EVP_PKEY_free(other);
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.revoked", SEV_ERROR, "trusted");

	/* Every generation revoked: nothing to release. */
	ws_reset(w, "all revoked");
	write_revocations(w, "{\"generation\": 1, \"reason\": \"x\", "
	    "\"ts\": 1}, {\"generation\": 2, \"reason\": \"y\", \"ts\": 2}",
	    release_key());
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.signature", SEV_ERROR, "revoked");

	/* A revocation whose generation is no integer is told where. */
	ws_reset(w, "bad entry");
	write_revocations(w, "{\"generation\": \"2\"}", release_key());
	ev = ws_eval(w);
	expect_finding_msg(ev, "G10", "G10.revoked", SEV_ERROR, "integer");
	assert_string_equal(find_finding(ev, "G10", "G10.revoked",
	    SEV_ERROR)->path, REVOCATIONS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_check_id_listed),
		WS_TEST(complete_every_verdict_held),
		WS_TEST(pending_gate_judges_nothing),
		WS_TEST(input_missing_judges_nothing),
		WS_TEST(no_soak_is_no_evidence),
		WS_TEST(skipped_is_not_judged),
		WS_TEST(allowed_values_are_judged),
		WS_TEST(every_ticket_needs_evidence),
		WS_TEST(revoked_generations),
	};

	return cmocka_run_group_tests(tests, fixture_group_setup,
	    fixture_group_teardown);
}

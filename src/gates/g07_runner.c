/* g07_runner.c: G7, the runtime runner: golden, faults (runbook §11). */
#include "calops.h"

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"
#include "proto/scenario.h"
#include "ws/hashtree.h"

#define GOLDEN "06-runtime/correctness/golden.json"

static bool
case_has(json_t *cases, json_int_t prefill, json_int_t decode)
{
	json_t *c;
	size_t i;

	json_array_foreach(cases, i, c)
		if (json_integer_value(json_object_get(c, "prefill_len")) ==
		    prefill &&
		    json_integer_value(json_object_get(c, "decode_len")) == decode)
			return true;
	return false;
}

static void
check_cases(struct eval *ev, struct gate_result *gr, const struct artifact *a,
    json_t *cases)
{
	static const char *const matches[] = { "logits_match", "greedy_match",
	    "kv_len_match" };
	json_int_t prefill[] = { 1, 16, 17, 128, 1024, 0 }, decode[] = { 1, 32,
	    256 }, pairs[nitems(prefill) * nitems(decode)][2], p, d;
	size_t i, k, n;
	json_t *c;
	char *ptr;

	json_array_foreach(cases, i, c) {
		ptr = doc_ptr_index("/cases", i);
		query_int(gr, "G7.golden", a, c, ptr, "prefill_len", &p);
		query_int(gr, "G7.golden", a, c, ptr, "decode_len", &d);
		for (k = 0; k < nitems(matches); k++)
			if (!json_is_true(json_object_get(c, matches[k])))
				query_gate_at(gr, SEV_ERROR, "G7.golden", a,
				    ptr,
				    "case prefill %lld decode %lld: %s is not true",
				    (long long)json_integer_value(
					json_object_get(c, "prefill_len")),
				    (long long)json_integer_value(
					json_object_get(c, "decode_len")),
				    matches[k]);
		free(ptr);
	}
	if (!ev->src.have_targets) {
		gate_skip(gr, "G7.golden", "00-source/source-manifest.json",
		    "/targets/context", "coverage check skipped: G0's targets are "
		    "missing or invalid");
		return;
	}
	prefill[5] = ev->src.max_context - 1;
	n = gate_capped_pairs(prefill, nitems(prefill), decode, nitems(decode),
	    ev->src.max_context, pairs);
	for (k = 0; k < n; k++)
		if (!case_has(cases, pairs[k][0], pairs[k][1]))
			query_gate_at(gr, SEV_ERROR, "G7.golden", a, "/cases",
			    "no case for prefill %lld decode %lld",
			    (long long)pairs[k][0], (long long)pairs[k][1]);
}

static void
check_fault(struct gate_result *gr, const char *scenario)
{
	char *rel = xasprintf("06-runtime/faults/%s.json", scenario);
	const struct artifact *a;
	const char *s;
	json_t *root;
	double ms;
	bool b;

	if ((a = artifact_doc_needed(gr, rel, "G7.faults", SEV_ERROR,
	    "fault scenario '%s' has no result", scenario)) == NULL)
		goto out;
	root = a->doc.root;
	if ((s = query_str(gr, "G7.faults", a, root, "", "scenario")) != NULL &&
	    strcmp(s, scenario) != 0)
		query_gate_at(gr, SEV_ERROR, "G7.faults", a, "/scenario",
		    "scenario is '%s' in the file for '%s'", s, scenario);
	if (query_bool(gr, "G7.faults", a, root, "", "structured_error", &b) &&
	    !b)
		query_gate_at(gr, SEV_ERROR, "G7.faults", a,
		    "/structured_error",
		    "%s: the runner gave no structured error", scenario);
	query_str(gr, "G7.faults", a, root, "", "error_code");
	if (query_bool(gr, "G7.faults", a, root, "", "aborted", &b) && b)
		query_gate_at(gr, SEV_ERROR, "G7.faults", a, "/aborted",
		    "%s: the runner aborted", scenario);
	if (query_bool(gr, "G7.faults", a, root, "", "recovered", &b) && !b)
		query_gate_at(gr, SEV_ERROR, "G7.faults", a, "/recovered",
		    "%s: the runner did not recover", scenario);
	query_num(gr, "G7.faults", a, root, "", "recover_ms", &ms);
out:
	free(rel);
}

/* Evidence bound to a package: is it today's package?  Shared by G7, G8. */
void
g07_runner_calbin_bound(struct gate_result *gr, const struct artifact *a,
    const char *key, const char *check)
{
	const char *want = query_str(gr, check, a, a->doc.root, "", key);
	const struct tree *t;
	char msg[320], *ptr;

	if (want == NULL)
		return;
	if ((t = artifact_tree(gr, "05-calbin/package", msg, sizeof msg)) ==
	    NULL) {
		gate_skip(gr, check, "05-calbin/package", "",
		    "check skipped: its input is missing or unreadable (%s)", msg);
		return;
	}
	gate_judged(gr, check, NULL);
	if (strcmp(t->hex, want) != 0) {
		ptr = doc_ptr_key("", key);
		query_gate_at(gr, SEV_STALE, check, a, ptr,
		    "the calbin package changed since this evidence (tree now "
		    "%.12s…, evidence %.12s…)", t->hex, want);
		free(ptr);
	}
}

void
g07_runner(struct eval *ev, struct gate_result *gr)
{
	const struct artifact *a = artifact_doc(gr, GOLDEN);
	json_t *cases;
	size_t i;
	bool b;

	if (a != NULL && !json_is_object(a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G7.parse", a, "", "not a JSON object");
		a = NULL;
	}
	/* A scenario without its result file fails G7.faults. */
	gate_judged(gr, "G7.faults", NULL);
	if (a != NULL) {
		gate_judged(gr, "G7.golden", NULL);
		if ((cases = query_array(gr, "G7.golden", a, a->doc.root, "",
		    "cases")) != NULL)
			check_cases(ev, gr, a, cases);
		if (query_bool(
			gr, "G7.golden", a, a->doc.root, "", "reuse_seq", &b) &&
		    !b)
			query_gate_at(gr, SEV_ERROR, "G7.golden", a,
			    "/reuse_seq", "sequence reuse is not verified");
		if (query_bool(gr, "G7.golden", a, a->doc.root, "",
			"interleave", &b) &&
		    !b)
			query_gate_at(gr, SEV_ERROR, "G7.golden", a,
			    "/interleave",
			    "interleaved sequences are not verified");
		g07_runner_calbin_bound(
		    gr, a, "calbin_tree_sha256", "G7.bound");
	}
	for (i = 0; i < SCENARIO_COUNT; i++)
		check_fault(gr, scenario_table[i].name);
}

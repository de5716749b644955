/*
 * sim_conformance.c: `conformance`, a stand-in for the adapter conformance
 * of runbook §12.3, for G8's lab job: the same token ids through the
 * runner and through the llama.cpp server on the package, logits and
 * greedy tokens compared, then the server's HTTP tokenization against the
 * reference's.  It writes 07-serving/conformance/runner-vs-server.json in
 * the shape G8.conformance reads (workspace.md G8): the package's tree
 * hash, one case per prompt of 01-reference/prompts.jsonl that expects
 * tokens, how many matched, the largest logits error and its tolerance.
 *
 * It opens the package on --chips' first chip, as the adapter would serve
 * from it; every case matches unless --token-mismatch N says that N do
 * not, which G8.conformance refuses.
 */
#include "calops.h"

#include "sim_common.h"
#include "ws/hashtree.h"

#define PROMPTS		"01-reference/prompts.jsonl"
#define REPORT		"07-serving/conformance/runner-vs-server.json"
#define LOGITS_TOL	0.001

static int
count_cases(void *arg, json_t *p, size_t lineno)
{
	json_int_t *n = arg;

	(void)lineno;
	if (json_array_size(json_object_get(p, "expected_token_ids")) > 0)
		(*n)++;
	return 0;
}

int
sim_conformance(struct sim *s)
{
	json_int_t cases = 0, bad = (json_int_t)s->o.mismatches;
	char err[512], *path, *rel;
	json_t *report;
	struct tree t;
	struct rng r;
	double worst;
	int rc;

	sim_log(s, "info", "CreateVDevice: chip %d; llama.cpp server with the "
	    "calculet backend on %s", s->o.chips[0], s->calbin);
	if (sim_tree_hash(s, &t, err, sizeof err) == -1) {
		hashtree_release(&t);
		return sim_fail(s, "%s", err);
	}
	if (sim_ws_jsonl(s, PROMPTS, count_cases, &cases, err,
	    sizeof err) == -1) {
		hashtree_release(&t);
		return sim_fail(s, "%s", err);
	}
	if (cases == 0) {
		hashtree_release(&t);
		return sim_fail(s, "%s has no prompt with expected tokens: "
		    "nothing to compare", PROMPTS);
	}
	if (bad > cases)
		bad = cases;
	rng_init(&r, s->o.seed, "conformance");
	worst = LOGITS_TOL * (0.1 + 0.5 * rng_uniform(&r));
	sim_progress(s, "runner-vs-server", (double)cases, (double)cases,
	    "cases");
	sim_log(s, bad > 0 ? "error" : "info", "runner vs server: %"
	    JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT " cases give the "
	    "same tokens; logits max abs err %.6f (tol %g)", cases - bad, cases,
	    worst, LOGITS_TOL);
	report = json_pack("{s:s, s:I, s:I, s:f, s:f, s:{s:I, s:I}}",
	    "calbin_tree_sha256", t.hex, "cases", cases, "token_match",
	    cases - bad, "logits_max_abs_err", worst, "tol", LOGITS_TOL,
	    "http_tokenization", "cases", cases, "token_ids_match", cases);
	hashtree_release(&t);
	path = s->o.output != NULL ? xstrdup(s->o.output) :
	    xasprintf("%s/%s", s->ws, REPORT);
	if (sim_mkparent(path, err, sizeof err) == -1 ||
	    sim_write_evidence(path, report, err, sizeof err) == -1) {
		json_decref(report);
		free(path);
		return sim_fail(s, "%s", err);
	}
	json_decref(report);
	rel = sim_relpath(s, path);
	rc = sim_result(s, bad > 0 ? "fail" : "pass", json_pack("{s:I, s:I}",
	    "cases", cases, "token_match", cases - bad), json_pack("[s]", rel));
	free(rel);
	free(path);
	return rc;
}

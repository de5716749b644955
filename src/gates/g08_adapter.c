/* g08_adapter.c: G8, the llama.cpp adapter (runbook §12). */
#include "calops.h"

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"

#define MANIFEST "07-serving/service-manifest.json"
#define CONFORMANCE "07-serving/conformance/runner-vs-server.json"

static void
check_submodel(struct gate_result *gr, const struct artifact *a, json_t *subs,
    const char *name)
{
	static const char *const keys[] = { "exact_name", "input0", "position",
	    "logits" };
	json_t *m = query_object(
	    gr, "G8.manifest", a, subs, "/submodels", name);
	char *ptr = doc_ptr_key("/submodels", name);
	size_t i;

	for (i = 0; m != NULL && i < nitems(keys); i++)
		query_str(gr, "G8.manifest", a, m, ptr, keys[i]);
	free(ptr);
}

static void
check_limits(struct eval *ev, struct gate_result *gr, const struct artifact *a,
    json_t *root)
{
	json_t *limits = query_object(gr, "G8.manifest", a, root, "", "limits");
	json_int_t batch, context, vocab;
	bool have_ctx, have_vocab;

	if (limits == NULL)
		return;
	query_int(gr, "G8.manifest", a, limits, "/limits", "batch", &batch);
	have_ctx = query_int(gr, "G8.manifest", a, limits, "/limits", "context",
	    &context);
	have_vocab = query_int(gr, "G8.manifest", a, limits, "/limits", "vocab",
	    &vocab);
	if (have_ctx && have_vocab)
		gate_judged(gr, "G8.limits", NULL);
	if (have_vocab && !ev->src.have_vocab)
		gate_skip(gr, "G8.limits", "00-source/source-manifest.json",
		    "/tokenizer/vocab_size", "vocabulary check skipped: G0's "
		    "vocab_size is missing or invalid");
	else if (have_vocab && vocab != ev->src.vocab_size)
		query_gate_at(gr, SEV_ERROR, "G8.limits", a, "/limits/vocab",
		    "vocab %lld is not the tokenizer's %lld", (long long)vocab,
		    (long long)ev->src.vocab_size);
	if (have_ctx && !ev->src.have_targets)
		gate_skip(gr, "G8.limits", "00-source/source-manifest.json",
		    "/targets/context", "context check skipped: G0's targets are "
		    "missing or invalid");
	else if (have_ctx && context > ev->src.max_context)
		query_gate_at(gr, SEV_ERROR, "G8.limits", a, "/limits/context",
		    "context %lld exceeds the largest target context %lld",
		    (long long)context, (long long)ev->src.max_context);
}

static void
check_conformance(struct gate_result *gr)
{
	const struct artifact *a;
	json_int_t cases, match;
	double err, tol;
	json_t *root;

	if ((a = artifact_doc_needed(gr, CONFORMANCE, "G8.conformance",
		 SEV_ERROR, "runner-vs-server.json is missing")) == NULL)
		return;
	root = a->doc.root;
	if (query_int(gr, "G8.conformance", a, root, "", "cases", &cases) &&
	    cases < 1)
		query_gate_at(gr, SEV_ERROR, "G8.conformance", a, "/cases",
		    "no conformance case was run");
	if (query_int(
		gr, "G8.conformance", a, root, "", "token_match", &match) &&
	    json_is_integer(json_object_get(root, "cases")) && match != cases)
		query_gate_at(gr, SEV_ERROR, "G8.conformance", a,
		    "/token_match",
		    "%lld of %lld cases match the runner's tokens",
		    (long long)match, (long long)cases);
	if (query_num(gr, "G8.conformance", a, root, "", "logits_max_abs_err",
		&err) &&
	    query_num(gr, "G8.conformance", a, root, "", "tol", &tol) &&
	    !(err <= tol))
		query_gate_at(gr, SEV_ERROR, "G8.conformance", a,
		    "/logits_max_abs_err",
		    "logits differ by %g, more than tol %g", err, tol);
}

void
g08_adapter(struct eval *ev, struct gate_result *gr)
{
	const struct artifact *a = artifact_doc(gr, MANIFEST);
	json_int_t gen;
	json_t *root, *subs, *csr;

	gate_judged(gr, "G8.conformance", NULL);	/* missing: an error */
	check_conformance(gr);
	if (a == NULL)
		return;
	if (!json_is_object(root = a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G8.parse", a, "", "not a JSON object");
		return;
	}
	gate_judged(gr, "G8.manifest", NULL);
	query_int(gr, "G8.manifest", a, root, "", "generation", &gen);
	if ((subs = query_object(
		 gr, "G8.manifest", a, root, "", "submodels")) != NULL) {
		check_submodel(gr, a, subs, "prefill_ids");
		check_submodel(gr, a, subs, "decode");
	}
	if ((csr = query_object(gr, "G8.manifest", a, root, "", "csr")) !=
	    NULL) {
		/* Runbook §12.1: the CSR slots the adapter writes, by name. */
		query_str(gr, "G8.manifest", a, csr, "/csr", "cur");
		query_str(gr, "G8.manifest", a, csr, "/csr", "total");
	}
	check_limits(ev, gr, a, root);
	g07_runner_calbin_bound(gr, a, "calbin_sha256", "G8.bound");
}

/* g04_quant.c: G4, quantization (runbook §8). */
#include "calops.h"

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"

#define CONFIG "03-quant/quant-config.yaml"
#define CALIB "03-quant/calibration-manifest.jsonl"
#define REPORT "03-quant/quant-report.json"
#define PROMPTS "01-reference/prompts.jsonl"

struct calib {
	const char	*tokenizer;	/* G0's, or NULL when unknown */
	json_t		*hashes;	/* calibration sha256 -> line */
	json_t		*overlap;	/* sha256 of prompts met in hashes */
	size_t		 nosha;		/* calibration lines with no sha256 */
	size_t		 prompts;	/* reference prompts compared */
	size_t		 unhashed;	/* ... not, for want of a sha256 */
	size_t		 unhashed_line;	/* the first of those */
};

static void
check_config(struct gate_result *gr)
{
	const struct artifact *a;
	const char *s;

	if ((a = artifact_doc_needed(gr, CONFIG, "G4.config", SEV_ERROR,
	    "quant-config.yaml is missing")) == NULL)
		return;
	if (!json_is_object(a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G4.config", a, "", "not a mapping");
		return;
	}
	if ((s = query_str(gr, "G4.config", a, a->doc.root, "", "schema")) !=
		NULL &&
	    strcmp(s, "calculet-quant/v1") != 0)
		query_gate_at(gr, SEV_ERROR, "G4.config", a, "/schema",
		    "schema is '%s', not 'calculet-quant/v1'", s);
	if ((s = query_str(gr, "G4.config", a, a->doc.root, "", "method")) !=
		NULL &&
	    strcmp(s, "VENDOR_TOOL_METHOD") == 0)
		query_gate_at(gr, SEV_BLOCKED, "G4.config", a, "/method",
		    "method is VENDOR_TOOL_METHOD: the vendor's quantization tool "
		    "is not delivered");
}

static void
calib_line(struct gate_result *gr, json_t *o, size_t line, void *arg)
{
	static const char *const keys[] = { "sha256", "domain", "token_count",
	    "tokenizer_sha256", "license_review" };
	struct calib *c = arg;
	const char *sha, *tok, *lic;
	char where[32];
	size_t i;

	snprintf(where, sizeof where, "%zu:1", line);
	for (i = 0; i < nitems(keys); i++)
		if (json_object_get(o, keys[i]) == NULL)
			gate_add(gr, SEV_ERROR, "G4.calibration", CALIB, where,
			    "'%s' is missing", keys[i]);
	if ((sha = json_string_value(json_object_get(o, "sha256"))) != NULL)
		json_object_set_new(c->hashes, sha,
		    json_integer((json_int_t)line));
	else
		c->nosha++;
	if (sha == NULL && json_object_get(o, "sha256") != NULL)
		gate_add(gr, SEV_ERROR, "G4.calibration", CALIB, where,
		    "'sha256' is not a string");
	if (json_object_get(o, "token_count") != NULL &&
	    !json_is_integer(json_object_get(o, "token_count")))
		gate_add(gr, SEV_ERROR, "G4.calibration", CALIB, where,
		    "'token_count' is not an integer");
	lic = json_string_value(json_object_get(o, "license_review"));
	if (lic != NULL && strcmp(lic, "approved") != 0)
		gate_add(gr, SEV_ERROR, "G4.calibration", CALIB, where,
		    "license_review is '%s', not 'approved'", lic);
	tok = json_string_value(json_object_get(o, "tokenizer_sha256"));
	if (tok != NULL && c->tokenizer != NULL &&
	    strcmp(tok, c->tokenizer) != 0)
		gate_add(gr, SEV_ERROR, "G4.calibration", CALIB, where,
		    "tokenizer_sha256 %.12s… is not G0's tokenizer %.12s…", tok,
		    c->tokenizer);
}

/* A prompt of the reference set: is it also a calibration sample? */
static void
prompt_line(struct gate_result *gr, json_t *o, size_t line, void *arg)
{
	struct calib *c = arg;
	const char *sha = json_string_value(json_object_get(o, "sha256"));
	json_t *at;
	char where[32];

	if (sha == NULL) {	/* G1.prompts reports it */
		if (c->unhashed++ == 0)
			c->unhashed_line = line;
		return;
	}
	c->prompts++;
	if ((at = json_object_get(c->hashes, sha)) == NULL ||
	    json_object_get(c->overlap, sha) != NULL)
		return;
	json_object_set_new(c->overlap, sha, json_true());
	snprintf(where, sizeof where, "%lld:1", (long long)json_integer_value(at));
	gate_add(gr, SEV_ERROR, "G4.disjoint", CALIB, where,
	    "calibration sample %.12s… is also a reference prompt: calibration "
	    "and evaluation data must be disjoint", sha);
}

/*
 * G4.disjoint compares every calibration hash with every prompt's: judged
 * only when both sides had one (workspace.md §6, v3), and not when a prompt
 * could not be compared (G1 reports it: part of the input is unreadable).
 */
static void
check_disjoint(struct gate_result *gr, struct calib *c)
{
	char where[32];

	if (artifact_jsonl_input(gr, PROMPTS, "G4.disjoint", prompt_line,
	    c) < 0)
		return;
	snprintf(where, sizeof where, "%zu:1", c->unhashed_line);
	if (c->unhashed > 0)
		gate_skip(gr, "G4.disjoint", PROMPTS, where, "check skipped: "
		    "%zu prompt(s) of its input '%s' have no sha256 to compare",
		    c->unhashed, PROMPTS);
	else if (c->prompts == 0)
		gate_skip(gr, "G4.disjoint", PROMPTS, "", "nothing to judge: "
		    "'%s' holds no prompt", PROMPTS);
	else if (c->nosha > 0)
		gate_skip(gr, "G4.disjoint", CALIB, "", "check skipped: %zu "
		    "calibration line(s) have no sha256 to compare",
		    c->nosha);
	else
		gate_judged(gr, "G4.disjoint", NULL);
}

static void
check_quality(struct gate_result *gr, const struct artifact *a, json_t *root)
{
	json_t *q = query_array(gr, "G4.quality", a, root, "", "quality"), *e,
	       *hib;
	double base, value, drop, loss;
	const char *metric;
	size_t i;
	char *ptr;
	bool ok, higher;

	if (q == NULL || query_empty(gr, "G4.quality", a, q, "/quality",
	    "the report lists no quality metric"))
		return;
	json_array_foreach(q, i, e) {
		ptr = doc_ptr_index("/quality", i);
		metric = query_str(gr, "G4.quality", a, e, ptr, "metric");
		ok = query_num(gr, "G4.quality", a, e, ptr, "baseline", &base);
		ok &= query_num(gr, "G4.quality", a, e, ptr, "value", &value);
		ok &= query_num(gr, "G4.quality", a, e, ptr, "max_drop", &drop);
		hib = json_object_get(e, "higher_is_better");
		higher = hib == NULL || json_is_null(hib) || json_is_true(hib);
		if (hib != NULL && !json_is_boolean(hib) &&
		    !json_is_null(hib)) {
			query_gate_at(gr, SEV_ERROR, "G4.quality", a, ptr,
			    "'higher_is_better' must be true or false");
			ok = false;
		}
		loss = higher ? base - value : value - base;
		if (ok && !(loss <= drop))
			query_gate_at(gr, SEV_ERROR, "G4.quality", a, ptr,
			    "%s lost %g (baseline %g, now %g), more than max_drop %g",
			    metric != NULL ? metric : "metric", loss, base, value,
			    drop);
		free(ptr);
	}
}

void
g04_quant(struct eval *ev, struct gate_result *gr)
{
	struct calib c = { NULL, json_object(), json_object(), 0, 0, 0, 0 };
	const struct artifact *a;
	json_t *layers;
	long n;

	gate_judged(gr, "G4.config", NULL);	/* missing: an error */
	check_config(gr);
	if (ev->src.have_tokenizer)
		c.tokenizer = ev->src.tokenizer_sha256;
	else
		gate_skip(gr, "G4.calibration",
		    "00-source/source-manifest.json", "/tokenizer/sha256",
		    "tokenizer check skipped: G0's tokenizer hash is missing or "
		    "invalid");
	n = artifact_jsonl(gr, CALIB, calib_line, &c);
	if (n <= 0)
		gate_add(gr, SEV_ERROR, "G4.calibration", CALIB, "",
		    "calibration-manifest.jsonl is %s", n < 0 ? "missing" :
		    "empty: no calibration sample is recorded");
	else {
		gate_judged(gr, "G4.calibration", NULL);
		check_disjoint(gr, &c);
	}
	json_decref(c.hashes);
	json_decref(c.overlap);
	if ((a = artifact_doc(gr, REPORT)) == NULL)
		return;
	if (!json_is_object(a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G4.parse", a, "", "not a JSON object");
		return;
	}
	gate_judged(gr, "G4.quality", "G4.layers", NULL);
	check_quality(gr, a, a->doc.root);
	layers = query_array(
	    gr, "G4.layers", a, a->doc.root, "", "layer_errors");
	if (layers != NULL && json_array_size(layers) == 0)
		query_gate_at(gr, SEV_ERROR, "G4.layers", a, "/layer_errors",
		    "layer_errors is empty: per-layer error is unreported");
}

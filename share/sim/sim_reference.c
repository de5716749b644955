/*
 * sim_reference.c: `reference`, a stand-in for the reference harness of
 * runbook §5.1 (generate_reference.py: the source model on the reference
 * machine, greedy, logits dumped), for G1's lab job.
 *
 * It runs every prompt of 01-reference/prompts.jsonl in float32 and in
 * bfloat16, twice with the same seed, and writes the first run to
 * outputs.jsonl and the second to outputs.rerun.jsonl, in the shape G1
 * reads (workspace.md G1): per record the sample, the dtype, the generated
 * token ids, the finish reason, the logits' SHA-256 and the SHA-256 of the
 * tokenizer asset it loaded (G0's tokenizer.file, hashed here, not copied
 * from G0).  Having no model, it "generates" each prompt's
 * expected_token_ids, and its logits' hash is that of filler keyed by
 * dtype and sample (the example generator's), the same on every run.
 * --nondeterministic makes the second run's logits differ for one sample
 * in eight, as an unpinned kernel would: G1.repro
 * refuses that, and so does this command's result (it compares its runs).
 *
 * The tensor dump (tensor-golden/) is not written: it is a separate
 * --dump-tensors run of the harness, and G1.golden keeps the one there.
 */
#include "calops.h"

#include "base/buf.h"
#include "base/fileio.h"
#include "sim_common.h"

#define PROMPTS		"01-reference/prompts.jsonl"
#define OUTPUTS		"01-reference/outputs.jsonl"
#define RERUN		"01-reference/outputs.rerun.jsonl"

struct ref_run {
	struct sim	*s;
	const char	*tokenizer;	/* hex */
	char		 run[2][40];	/* the two runs' names */
	struct buf	 out[2];	/* the two files being made */
	size_t		 prompts, differ;
	char		*first_differ;
};

/* The logits' SHA-256 of a sample, as the example generator writes it:
 * the hash of 256 filler bytes, or of nothing when nothing was generated. */
static void
logits_hash(const char *dtype, const char *sample, const char *nonce,
    bool empty, char hex[HASH_HEX_LEN + 1])
{
	unsigned char b[256];
	char *label;

	if (empty) {
		hash_bytes("", 0, hex);
		return;
	}
	label = nonce != NULL ? xasprintf("logits/%s/%s/%s", dtype, sample,
	    nonce) : xasprintf("logits/%s/%s", dtype, sample);
	sim_fake_bytes(label, b, sizeof b);
	hash_bytes(b, sizeof b, hex);
	free(label);
}

static int
append_line(struct buf *b, json_t *o)
{
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	int rc;

	if (text == NULL)
		return -1;
	rc = buf_adds(b, text) == 0 && buf_addc(b, '\n') == 0 ? 0 : -1;
	free(text);
	return rc;
}

static int
run_prompt(void *arg, json_t *p, size_t lineno)
{
	static const char *const dtypes[] = { "float32", "bfloat16" };
	struct ref_run *r = arg;
	json_t *sid = json_object_get(p, "sample_id");
	json_t *ids = json_object_get(p, "token_ids");
	json_t *gen = json_object_get(p, "expected_token_ids");
	json_t *rec;
	const char *expect = json_string_value(json_object_get(p, "expect"));
	const char *finish;
	char hex[HASH_HEX_LEN + 1], *name, *nonce;
	size_t d, k;

	(void)lineno;
	if (sim_stopping)
		return 1;
	if (!(json_is_string(sid) || json_is_integer(sid)) ||
	    !json_is_array(ids) || !json_is_array(gen)) {
		json_object_set_new(p, "_error", json_string("a prompt needs "
		    "sample_id, token_ids and expected_token_ids"));
		return -1;
	}
	name = json_is_string(sid) ? xstrdup(json_string_value(sid)) :
	    xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(sid));
	if (expect != NULL && strcmp(expect, "reject_overlong") == 0)
		finish = "rejected_overlong";
	else if (r->s->have_context && (json_int_t)(json_array_size(ids) +
	    json_array_size(gen)) >= r->s->max_context)
		finish = "length";
	else
		finish = "stop";
	for (d = 0; d < nitems(dtypes); d++)
		for (k = 0; k < 2; k++) {
			/* The second run of one sample in eight, in bf16. */
			nonce = r->s->o.nondeterministic && k == 1 && d == 1 &&
			    r->prompts % 8 == 0 ? xasprintf("%llu",
			    (unsigned long long)r->s->o.seed) : NULL;
			logits_hash(dtypes[d], name, nonce,
			    json_array_size(gen) == 0, hex);
			if (nonce != NULL && r->differ++ == 0)
				r->first_differ = xstrdup(name);
			free(nonce);
			rec = json_pack("{s:O, s:s, s:O, s:s, s:s, s:s, s:s}",
			    "sample_id", sid, "dtype", dtypes[d],
			    "generated_token_ids", gen, "finish_reason", finish,
			    "logits_sha256", hex, "tokenizer_sha256",
			    r->tokenizer, "run", r->run[k]);
			if (append_line(&r->out[k], rec) == -1) {
				json_decref(rec);
				free(name);
				json_object_set_new(p, "_error", json_string(
				    "the outputs are too large"));
				return -1;
			}
			json_decref(rec);
		}
	free(name);
	r->prompts++;
	if (r->prompts % 32 == 0)
		sim_progress(r->s, "reference", (double)r->prompts, 0,
		    "prompts");
	return 0;
}

/* G0's tokenizer asset, hashed as the harness loads it. */
static int
tokenizer_hash(struct sim *s, char hex[HASH_HEX_LEN + 1], char *err,
    size_t len)
{
	const json_t *file;
	char *rel;
	int rc;

	if (s->source == NULL) {
		errbuf_set(err, len, "%s", s->source_msg);
		return -1;
	}
	file = json_object_get(json_object_get(s->source, "tokenizer"),
	    "file");
	if (!json_is_string(file)) {
		errbuf_set(err, len, "%s: no tokenizer.file: which tokenizer?",
		    SOURCE_MANIFEST);
		return -1;
	}
	rel = xasprintf("00-source/%s", json_string_value(file));
	rc = sim_ws_sha256(s, rel, hex, err, len);
	free(rel);
	return rc;
}

int
sim_reference(struct sim *s)
{
	struct ref_run r;
	char err[512], tok[HASH_HEX_LEN + 1], day[32], *path;
	int rc, k;

	memset(&r, 0, sizeof r);
	r.s = s;
	if (tokenizer_hash(s, tok, err, sizeof err) == -1)
		return sim_fail(s, "%s", err);
	r.tokenizer = tok;
	sim_iso(s->now, day, sizeof day);
	day[10] = '\0';
	for (k = 0; k < 2; k++) {
		snprintf(r.run[k], sizeof r.run[k], "ref-%s-%c", day, 'a' + k);
		buf_init(&r.out[k], SIM_JSONL_MAX);
	}
	sim_log(s, "info", "reference harness: %s, tokenizer %.12s..., seed "
	    "%llu", PROMPTS, tok, (unsigned long long)s->o.seed);
	rc = sim_ws_jsonl(s, PROMPTS, run_prompt, &r, err, sizeof err);
	if (rc == 0 && r.prompts == 0) {
		errbuf_set(err, sizeof err, "%s has no prompts", PROMPTS);
		rc = -1;
	}
	if (rc == 1) {
		errbuf_set(err, sizeof err, "stopped by a signal after %zu "
		    "prompts: nothing written", r.prompts);
		rc = -1;
	}
	for (k = 0; rc == 0 && k < 2; k++) {
		path = xasprintf("%s/%s", s->ws, k == 0 ? OUTPUTS : RERUN);
		rc = fileio_replace(path, r.out[k].data, r.out[k].len, 0644,
		    true, err, sizeof err);
		free(path);
	}
	for (k = 0; k < 2; k++)
		buf_release(&r.out[k]);
	if (rc != 0) {
		free(r.first_differ);
		return sim_fail(s, "%s", err);
	}
	sim_progress(s, "reference", (double)r.prompts, (double)r.prompts,
	    "prompts");
	if (r.differ > 0)
		sim_log(s, "error", "the rerun differs from the first run in "
		    "%zu records, first '%s' (bfloat16)", r.differ,
		    r.first_differ);
	rc = sim_result(s, r.differ > 0 ? "fail" : "pass", json_pack(
	    "{s:I, s:I, s:I}", "prompts", (json_int_t)r.prompts, "records",
	    (json_int_t)r.prompts * 2, "rerun_differs", (json_int_t)r.differ),
	    json_pack("[s, s]", OUTPUTS, RERUN));
	free(r.first_differ);
	return rc;
}

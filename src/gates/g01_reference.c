/* g01_reference.c: G1, the reference baseline (runbook §5). */
#include "calops.h"

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"

#define PROMPTS "01-reference/prompts.jsonl"
#define OUTPUTS "01-reference/outputs.jsonl"
#define RERUN "01-reference/outputs.rerun.jsonl"
#define MIN_PROMPTS 100

static const char *const categories[] = {
	"empty", "special_tokens", "multilingual", "code", "numbers",
	"repetition", "near_max_context", "overlong",
};
static const char *const dtypes[] = { "float32", "bfloat16" };

struct prompts {
	json_t	*ids;		/* sample_id -> line */
	json_t	*cats;		/* category -> count */
};

struct outputs {
	const char	*rel;
	const char	*check;		/* G1.outputs or G1.repro */
	json_t		*records;	/* "sample_id\x1fdtype" -> record */
	const char	*tokenizer;	/* G0's, or NULL */
	bool		 check_tokenizer;
	size_t		 bad_tokenizer;
};

static void
line_error(struct gate_result *gr, const char *check, const char *rel,
    size_t line, const char *fmt, ...) PRINTFLIKE(5, 6);

static void
line_error(struct gate_result *gr, const char *check, const char *rel,
    size_t line, const char *fmt, ...)
{
	char where[32], *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	snprintf(where, sizeof where, "%zu:1", line);
	gate_add(gr, SEV_ERROR, check, rel, where, "%s", msg);
	free(msg);
}

/* sample_id as a key: strings as they are, integers in decimal. */
static char *
sample_key(json_t *v)
{
	if (json_is_string(v) && json_string_length(v) > 0)
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	return NULL;
}

static bool
int_array(json_t *v)
{
	json_t *x;
	size_t i;

	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, x)
		if (!json_is_integer(x))
			return false;
	return true;
}

static void
prompt_line(struct gate_result *gr, json_t *o, size_t line, void *arg)
{
	static const char *const arrays[] = { "token_ids", "attention_mask",
	    "position_ids" };
	struct prompts *p = arg;
	const char *cat, *sha, *text;
	char *id, hex[HASH_HEX_LEN + 1];
	size_t i, len = 0;
	json_t *v;

	if ((id = sample_key(json_object_get(o, "sample_id"))) == NULL)
		line_error(gr, "G1.prompts", PROMPTS, line,
		    "'sample_id' is missing or not a string");
	else if (json_object_get(p->ids, id) != NULL)
		line_error(gr, "G1.prompts", PROMPTS, line,
		    "sample_id '%s' repeats line %lld", id,
		    (long long)json_integer_value(json_object_get(p->ids, id)));
	else
		json_object_set_new(p->ids, id, json_integer((json_int_t)line));
	free(id);
	if ((cat = json_string_value(json_object_get(o, "category"))) == NULL)
		line_error(gr, "G1.prompts", PROMPTS, line,
		    "'category' is missing or not a string");
	else
		json_object_set_new(p->cats, cat, json_true());
	for (i = 0; i < nitems(arrays); i++) {
		v = json_object_get(o, arrays[i]);
		if (!int_array(v))
			line_error(gr, "G1.prompts", PROMPTS, line,
			    "'%s' is not an array of integers", arrays[i]);
		else if (i > 0 && json_array_size(v) != len)
			line_error(gr, "G1.prompts", PROMPTS, line,
			    "'%s' has %zu entries, token_ids has %zu", arrays[i],
			    json_array_size(v), len);
		else
			len = json_array_size(v);
	}
	if (!json_is_array(json_object_get(o, "expected_token_ids")))
		line_error(gr, "G1.prompts", PROMPTS, line,
		    "'expected_token_ids' is missing or not an array");
	v = json_object_get(o, "text");
	if (v != NULL && !json_is_string(v) && !json_is_null(v))
		line_error(gr, "G1.prompts", PROMPTS, line,
		    "'text' is not a string");
	sha = json_string_value(json_object_get(o, "sha256"));
	if (sha == NULL || !gate_is_sha256_hex(sha)) {
		line_error(gr, "G1.prompts", PROMPTS, line,
		    "'sha256' (of the prompt's UTF-8 text) is missing or not hex");
	} else if ((text = json_string_value(v)) != NULL) {
		hash_bytes(text, json_string_length(v), hex);
		if (strcmp(hex, sha) != 0)
			line_error(gr, "G1.prompts", PROMPTS, line,
			    "'sha256' does not match the prompt's text");
	}
}

static void
output_line(struct gate_result *gr, json_t *o, size_t line, void *arg)
{
	struct outputs *out = arg;
	const char *dtype, *tok, *lsha;
	char *id, *key;

	id = sample_key(json_object_get(o, "sample_id"));
	dtype = json_string_value(json_object_get(o, "dtype"));
	if (id == NULL || dtype == NULL) {
		line_error(gr, out->check, out->rel, line,
		    "'sample_id' or 'dtype' is missing");
		free(id);
		return;
	}
	key = xasprintf("%s\x1f%s", id, dtype);
	if (json_object_get(out->records, key) != NULL)
		line_error(gr, out->check, out->rel, line,
		    "a second record for sample '%s' in %s", id, dtype);
	else
		json_object_set(out->records, key, o);
	if (!int_array(json_object_get(o, "generated_token_ids")))
		line_error(gr, out->check, out->rel, line,
		    "'generated_token_ids' is not an array of integers");
	lsha = json_string_value(json_object_get(o, "logits_sha256"));
	if (!gate_is_sha256_hex(lsha))
		line_error(gr, out->check, out->rel, line,
		    "'logits_sha256' is missing or not hex");
	tok = json_string_value(json_object_get(o, "tokenizer_sha256"));
	if (!gate_is_sha256_hex(tok))
		line_error(gr, out->check, out->rel, line,
		    "'tokenizer_sha256' is missing or not hex");
	else if (out->check_tokenizer && out->tokenizer != NULL &&
	    strcmp(tok, out->tokenizer) != 0)
		line_error(gr, "G1.tokenizer", out->rel, line,
		    "tokenizer_sha256 %.12s… is not G0's tokenizer %.12s…", tok,
		    out->tokenizer);
	free(key);
	free(id);
}

/* Every prompt has an output in both dtypes. */
static void
check_pairs(struct gate_result *gr, const struct prompts *p,
    const struct outputs *out, const char *check)
{
	const char *id;
	size_t i, missing = 0;
	char *key, first[160] = "";
	json_t *v;

	json_object_foreach(p->ids, id, v) {
		for (i = 0; i < nitems(dtypes); i++) {
			key = xasprintf("%s\x1f%s", id, dtypes[i]);
			if (json_object_get(out->records, key) == NULL &&
			    missing++ == 0)
				snprintf(first, sizeof first, "'%s' in %s", id,
				    dtypes[i]);
			free(key);
		}
	}
	if (missing > 0)
		gate_add(gr, SEV_ERROR, check, out->rel, "",
		    "%zu (sample, dtype) records missing, first %s", missing,
		    first);
}

static void
check_repro(struct gate_result *gr, const struct outputs *ref,
    const struct outputs *rerun)
{
	const char *key;
	json_t *a, *b;
	size_t differ = 0;
	char first[160] = "";

	json_object_foreach(ref->records, key, a) {
		b = json_object_get(rerun->records, key);
		if (b != NULL && json_equal(json_object_get(a,
		    "generated_token_ids"), json_object_get(b,
		    "generated_token_ids")) && json_equal(json_object_get(a,
		    "logits_sha256"), json_object_get(b, "logits_sha256")))
			continue;
		if (differ++ == 0)
			snprintf(first, sizeof first, "%s%s", key,
			    b == NULL ? " (absent)" : "");
	}
	if (differ > 0) {
		char *p = strchr(first, '\x1f');

		if (p != NULL)
			*p = ' ';
		gate_add(gr, SEV_ERROR, "G1.repro", RERUN, "",
		    "%zu records differ from outputs.jsonl on re-run, first %s",
		    differ, first);
	}
}

static void
check_golden(struct gate_result *gr)
{
	static const char *const keys[] = { "min", "max", "mean" };
	const struct artifact *a;
	json_t *e;
	size_t i, k;
	char *ptr;
	double d;

	if ((a = artifact_doc_needed(gr,
		 "01-reference/tensor-golden/index.json", "G1.golden",
		 SEV_ERROR, "tensor golden index is missing")) == NULL)
		return;
	if (!json_is_array(a->doc.root) || json_array_size(a->doc.root) == 0) {
		query_gate_at(gr, SEV_ERROR, "G1.golden", a, "",
		    "must be a non-empty array");
		return;
	}
	json_array_foreach(a->doc.root, i, e) {
		ptr = doc_ptr_index("", i);
		query_str(gr, "G1.golden", a, e, ptr, "name");
		if (gate_is_sha256_hex(json_string_value(
			json_object_get(e, "sha256"))) == false)
			query_gate_at(gr, SEV_ERROR, "G1.golden", a, ptr,
			    "'sha256' is missing or not hex");
		for (k = 0; k < nitems(keys); k++)
			query_num(gr, "G1.golden", a, e, ptr, keys[k], &d);
		free(ptr);
	}
}

void
g01_reference(struct eval *ev, struct gate_result *gr)
{
	struct prompts p = { json_object(), json_object() };
	struct outputs out = { OUTPUTS, "G1.outputs", json_object(), NULL, true, 0 };
	struct outputs rerun = { RERUN, "G1.repro", json_object(), NULL, false, 0 };
	const struct artifact *env;
	long n;
	size_t i;

	/* Missing, each of these is an error of its own check. */
	gate_judged(gr, "G1.env", "G1.prompts", "G1.repro", "G1.golden", NULL);
	env = artifact_raw(gr, "01-reference/environment.lock");
	if (env == NULL || env->size == 0)
		gate_add(gr, SEV_ERROR, "G1.env", "01-reference/environment.lock",
		    "", "environment.lock is %s", env == NULL ? "missing" : "empty");
	n = artifact_jsonl(gr, PROMPTS, prompt_line, &p);
	if (n < 0)
		gate_add(gr, SEV_ERROR, "G1.prompts", PROMPTS, "",
		    "prompts.jsonl is missing");
	else if (n < MIN_PROMPTS)
		gate_add(gr, SEV_ERROR, "G1.prompts", PROMPTS, "",
		    "%ld prompts, at least %d are needed", n, MIN_PROMPTS);
	if (n >= 0)
		gate_judged(gr, "G1.coverage", NULL);
	for (i = 0; i < nitems(categories); i++)
		if (n >= 0 && json_object_get(p.cats, categories[i]) == NULL)
			gate_add(gr, SEV_ERROR, "G1.coverage", PROMPTS, "",
			    "no prompt of category '%s'", categories[i]);
	if (ev->src.have_tokenizer)
		out.tokenizer = ev->src.tokenizer_sha256;
	else
		gate_skip(gr, "G1.tokenizer",
		    "00-source/source-manifest.json", "/tokenizer/sha256",
		    "check skipped: G0's tokenizer hash is missing or invalid");
	/* A rule over every prompt or every record holds only when there was
	 * one (workspace.md §6, v3). */
	if (artifact_jsonl(gr, OUTPUTS, output_line, &out) >= 0) {
		if (json_object_size(out.records) > 0)
			gate_judged(gr, "G1.tokenizer", NULL);
		else if (out.tokenizer != NULL)	/* else skipped above */
			gate_skip(gr, "G1.tokenizer", OUTPUTS, "", "nothing to "
			    "judge: outputs.jsonl holds no record");
		/* One record per prompt: judged only against the prompts. */
		if (n >= 0 && json_object_size(p.ids) == 0)
			gate_skip(gr, "G1.outputs", PROMPTS, "", "nothing to "
			    "judge: prompts.jsonl holds no prompt to pair");
		else if (n >= 0) {
			check_pairs(gr, &p, &out, "G1.outputs");
			gate_judged(gr, "G1.outputs", NULL);
		}
	}
	if (artifact_jsonl(gr, RERUN, output_line, &rerun) < 0)
		gate_add(gr, SEV_ERROR, "G1.repro", RERUN, "",
		    "outputs.rerun.jsonl is missing: reproducibility is unproven");
	else if (json_object_size(out.records) == 0)
		gate_skip(gr, "G1.repro", OUTPUTS, "", "nothing to judge: "
		    "outputs.jsonl holds no record to compare the re-run with");
	else
		check_repro(gr, &out, &rerun);
	check_golden(gr);
	json_decref(p.ids);
	json_decref(p.cats);
	json_decref(out.records);
	json_decref(rerun.records);
}

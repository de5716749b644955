/* g00_source.c: G0, model intake (workspace.md §3 G0, runbook §4). */
#include "calops.h"

#include <sys/stat.h>

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"

#define MANIFEST "00-source/source-manifest.json"

/* <org>/<name>@<revision>, none of them empty, no blanks. */
static bool
valid_model_id(const char *s)
{
	const char *slash = strchr(s, '/'), *at = strchr(s, '@');

	if (s[0] == '\0' || strpbrk(s, " \t\r\n") != NULL)
		return false;
	return slash != NULL && at != NULL && slash > s && at > slash + 1 &&
	    at[1] != '\0' && strchr(slash + 1, '/') == NULL &&
	    strchr(at + 1, '@') == NULL;
}

static bool
valid_spdx(const char *s)
{
	return s[0] != '\0' && strcmp(s, "SPDX-ID") != 0 &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789.+-") == strlen(s);
}

/* One file entry: what to hash, if anything. */
struct pending_file {
	char		*rel;
	size_t		 index;
	json_int_t	 bytes;
	const char	*sha256;
};

static void
check_file_entry(struct gate_result *gr, const struct artifact *a, json_t *e,
    size_t i, struct pending_file *out, size_t *nout)
{
	char *ptr = doc_ptr_index("/files", i), *rel = NULL;
	const char *path, *sha;
	json_int_t bytes = 0;
	bool ok = true;

	path = query_str(gr, "G0.files", a, e, ptr, "path");
	ok &= query_int(gr, "G0.files", a, e, ptr, "bytes", &bytes);
	sha = query_str(gr, "G0.files", a, e, ptr, "sha256");
	if (ok && bytes < 0) {
		query_gate_at(
		    gr, SEV_ERROR, "G0.files", a, ptr, "'bytes' is negative");
		ok = false;
	}
	if (sha != NULL && !gate_is_sha256_hex(sha)) {
		query_gate_at(gr, SEV_ERROR, "G0.files", a, ptr,
		    "'sha256' is not 64 lowercase hex digits");
		ok = false;
	}
	if (path != NULL && artifact_join(gr, MANIFEST, ptr, path, &rel) == 0 &&
	    ok && sha != NULL) {
		struct stat st;
		char msg[320];
		enum ws_status ws;

		ws = workspace_locate(&gr->ev->ws, rel, &st, msg, sizeof msg);
		if (ws == WS_OK) {
			out[*nout].rel = rel;
			out[*nout].index = i;
			out[*nout].bytes = bytes;
			out[*nout].sha256 = sha;
			(*nout)++;
			rel = NULL;
		} else if (ws == WS_ABSENT)
			query_gate_at(gr, SEV_INFO, "G0.files.hash", a, ptr,
			    "'%s' is not present here (referenced only)", path);
		else
			query_gate_at(gr, SEV_ERROR,
			    ws == WS_OUTSIDE ? "G0.path" : "G0.files.hash", a,
			    ptr, "%s", msg);
	}
	free(rel);
	free(ptr);
}

/*
 * A file is listed once: each path listed again is one error, at its
 * second place, with how many times (a path listed 500,000 times passed
 * silently).  The later places are dropped from pf, which is compacted;
 * returns how many are left.
 */
static size_t
drop_listed_twice(struct gate_result *gr, const struct artifact *a,
    struct pending_file *pf, size_t n)
{
	json_t *seen = json_object(), *s;
	const char *rel;
	size_t i, kept = 0;
	json_int_t times;
	char *ptr, count[32];

	for (i = 0; i < n; i++) {
		if ((s = json_object_get(seen, pf[i].rel)) == NULL) {
			json_object_set_new(seen, pf[i].rel, json_pack("[II]",
			    (json_int_t)pf[i].index, (json_int_t)1));
			pf[kept++] = pf[i];
			continue;
		}
		if (json_integer_value(json_array_get(s, 1)) == 1)
			json_array_append_new(s, json_integer(
			    (json_int_t)pf[i].index));
		json_array_set_new(s, 1, json_integer(
		    json_integer_value(json_array_get(s, 1)) + 1));
		free(pf[i].rel);
	}
	json_object_foreach(seen, rel, s) {
		if (json_array_size(s) < 3)
			continue;
		ptr = doc_ptr_index("/files", (size_t)json_integer_value(
		    json_array_get(s, 2)));
		times = json_integer_value(json_array_get(s, 1));
		snprintf(count, sizeof count, "%lld times", (long long)times);
		query_gate_at(gr, SEV_ERROR, "G0.files", a, ptr, "'%s' is listed "
		    "%s (first at /files/%lld): a file is listed once", rel,
		    times == 2 ? "twice" : count,
		    (long long)json_integer_value(json_array_get(s, 0)));
		free(ptr);
	}
	json_decref(seen);
	return kept;
}

/* G0.files and G0.files.hash: every present listed file hashed in parallel. */
static void
check_files(struct gate_result *gr, const struct artifact *a, json_t *root)
{
	struct pending_file *pf;
	struct hash_result *res;
	const char **paths;
	json_t *files, *e;
	size_t i, n = 0;
	char *ptr;

	if ((files = query_array(gr, "G0.files", a, root, "", "files")) == NULL)
		return;
	if (query_empty(gr, "G0.files", a, files, "/files",
	    "'files' lists no source file"))
		return;
	pf = xcalloc(json_array_size(files) + 1, sizeof *pf);
	json_array_foreach(files, i, e)
		check_file_entry(gr, a, e, i, pf, &n);
	n = drop_listed_twice(gr, a, pf, n);
	paths = xcalloc(n + 1, sizeof *paths);
	res = xcalloc(n + 1, sizeof *res);
	for (i = 0; i < n; i++)
		paths[i] = pf[i].rel;
	/* Each opened beneath the workspace (not by a path located above). */
	hash_ws_files(gr->ev->hasher, &gr->ev->ws, n, paths, res);
	if (n > 0)	/* else every listed file is elsewhere: nothing here */
		gate_judged(gr, "G0.files.hash", NULL);
	for (i = 0; i < n; i++) {
		ptr = doc_ptr_index("/files", pf[i].index);
		artifact_note_input(
		    gr, pf[i].rel, res[i].err == 0 ? res[i].hex : NULL);
		if (res[i].err != 0)
			query_gate_at(gr, SEV_ERROR, "G0.files.hash", a, ptr,
			    "cannot read '%s': %s", pf[i].rel,
			    res[i].err == EXDEV ? "it changed while it was "
			    "opened" : strerror(res[i].err));
		else if ((json_int_t)res[i].size != pf[i].bytes)
			query_gate_at(gr, SEV_ERROR, "G0.files.hash", a, ptr,
			    "'%s' has %llu bytes, the manifest says %lld",
			    pf[i].rel, (unsigned long long)res[i].size,
			    (long long)pf[i].bytes);
		else if (strcmp(res[i].hex, pf[i].sha256) != 0)
			query_gate_at(gr, SEV_ERROR, "G0.files.hash", a, ptr,
			    "'%s' has sha256 %.12s…, the manifest says %.12s…",
			    pf[i].rel, res[i].hex, pf[i].sha256);
		free(ptr);
		free(pf[i].rel);
	}
	free(paths);
	free(res);
	free(pf);
}

static void
check_architecture(struct gate_result *gr, const struct artifact *a,
    json_t *arch)
{
	static const char *const keys[] = {
		"layers", "hidden", "q_heads", "kv_heads", "head_dim",
	};
	json_int_t v[nitems(keys)];
	bool all = true;
	size_t i;

	for (i = 0; i < nitems(keys); i++) {
		if (!query_int(gr, "G0.architecture", a, arch, "/architecture",
		    keys[i], &v[i])) {
			all = false;
			continue;
		}
		if (v[i] <= 0) {
			query_gate_at(gr, SEV_ERROR, "G0.architecture", a,
			    "/architecture", "'%s' must be positive", keys[i]);
			all = false;
		}
	}
	if (all && v[2] % v[3] != 0)
		query_gate_at(gr, SEV_ERROR, "G0.architecture", a,
		    "/architecture",
		    "q_heads %lld is not a multiple of kv_heads %lld",
		    (long long)v[2], (long long)v[3]);
}

static void
check_tokenizer(struct eval *ev, struct gate_result *gr,
    const struct artifact *a, json_t *root)
{
	json_t *tok = query_object(
	    gr, "G0.tokenizer", a, root, "", "tokenizer");
	json_int_t vocab;
	const char *sha;

	if (tok == NULL)
		return;
	if (query_int(gr, "G0.tokenizer", a, tok, "/tokenizer", "vocab_size",
	    &vocab)) {
		if (vocab > 0) {
			ev->src.have_vocab = true;
			ev->src.vocab_size = vocab;
		} else
			query_gate_at(gr, SEV_ERROR, "G0.tokenizer", a,
			    "/tokenizer/vocab_size", "'vocab_size' must be positive");
	}
	if ((sha = query_str(gr, "G0.tokenizer", a, tok, "/tokenizer",
	    "sha256")) != NULL) {
		if (gate_is_sha256_hex(sha)) {
			ev->src.have_tokenizer = true;
			ev->src.tokenizer_sha256 = sha;
		} else
			query_gate_at(gr, SEV_ERROR, "G0.tokenizer", a,
			    "/tokenizer/sha256",
			    "'sha256' is not 64 lowercase hex digits");
	}
}

/* A non-empty list of positive integers; its maximum in *max. */
static bool
int_list(struct gate_result *gr, const struct artifact *a, json_t *targets,
    const char *key, json_int_t *max, bool *all_one)
{
	json_t *list, *v;
	char *ptr;
	size_t i;
	bool ok = true;

	if ((list = query_array(gr, "G0.targets", a, targets, "/targets",
	    key)) == NULL)
		return false;
	ptr = doc_ptr_key("/targets", key);
	if (json_array_size(list) == 0) {
		query_gate_at(
		    gr, SEV_ERROR, "G0.targets", a, ptr, "'%s' is empty", key);
		ok = false;
	}
	*max = 0;
	if (all_one != NULL)
		*all_one = true;
	json_array_foreach(list, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) <= 0) {
			char *p = doc_ptr_index(ptr, i);

			query_gate_at(gr, SEV_ERROR, "G0.targets", a, p,
			    "'%s' must hold positive integers", key);
			free(p);
			ok = false;
			continue;
		}
		if (json_integer_value(v) > *max)
			*max = json_integer_value(v);
		if (all_one != NULL && json_integer_value(v) != 1)
			*all_one = false;
	}
	free(ptr);
	return ok;
}

static void
check_targets(struct eval *ev, struct gate_result *gr, const struct artifact *a,
    json_t *root)
{
	json_t *t = query_object(gr, "G0.targets", a, root, "", "targets"),
	       *sla;
	bool ok = true;

	if (t == NULL) {
		query_gate_at(gr, SEV_ERROR, "G0.sla", a, "",
		    "no targets, so no product SLA (runbook §4.3)");
		return;
	}
	ok &= int_list(gr, a, t, "context", &ev->src.max_context, NULL);
	ok &= int_list(gr, a, t, "batch", &ev->src.max_batch, NULL);
	ok &= int_list(gr, a, t, "chips", &ev->src.max_chips,
	    &ev->src.all_chips_one);
	ev->src.have_targets = ok;
	if ((sla = query_object(gr, "G0.sla", a, t, "/targets", "sla")) == NULL)
		return;
	ok = query_num(gr, "G0.sla", a, sla, "/targets/sla", "ttft_ms_p99",
	    &ev->src.ttft_ms_p99);
	ok &= query_num(gr, "G0.sla", a, sla, "/targets/sla", "tpot_ms_p99",
	    &ev->src.tpot_ms_p99);
	ok &= query_num(gr, "G0.sla", a, sla, "/targets/sla",
	    "success_rate_min", &ev->src.success_rate_min);
	ev->src.have_sla = ok;
}

/* The score of one categorical input, -1 when the value is unknown. */
static int
score_of(json_t *obj, const char *key, const char *const *names,
    const int *scores, size_t n, const char **value)
{
	json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	size_t i;

	*value = names[0];
	if (v == NULL || json_is_null(v))
		return scores[0];
	if (!json_is_string(v))
		return -1;
	*value = json_string_value(v);
	for (i = 0; i < n; i++)
		if (strcmp(*value, names[i]) == 0)
			return scores[i];
	return -1;
}

/* G0.complexity: runbook §4.2's score, warn above 3. */
static void
check_complexity(struct eval *ev, struct gate_result *gr,
    const struct artifact *a, json_t *arch)
{
	static const char *const kinds[] = { "dense", "variant", "moe",
	    "multimodal", "custom" };
	static const int kind_s[] = { 0, 1, 3, 3, 3 };
	static const char *const atts[] = { "mha", "gqa", "sliding_window",
	    "new_mask", "latent" };
	static const int att_s[] = { 0, 0, 1, 3, 3 };
	static const char *const norms[] = { "supported", "param_change",
	    "custom" };
	static const int norm_s[] = { 0, 1, 3 };
	const char *kv, *av, *nv;
	int k, at, no, ctx, dep, total;
	char where[64];

	k = score_of(arch, "kind", kinds, kind_s, nitems(kinds), &kv);
	at = score_of(arch, "attention", atts, att_s, nitems(atts), &av);
	no = score_of(arch, "activation_norm", norms, norm_s, nitems(norms), &nv);
	if (k < 0 || at < 0 || no < 0) {
		query_gate_at(gr, SEV_ERROR, "G0.complexity", a,
		    "/architecture", "unknown %s '%s'",
		    k < 0	 ? "kind"
			: at < 0 ? "attention"
				 : "activation_norm",
		    k < 0	 ? kv
			: at < 0 ? av
				 : nv);
		return;
	}
	if (!ev->src.have_targets) {
		gate_skip(gr, "G0.complexity", a->rel, doc_where(&a->doc,
		    "/targets", where, sizeof where),
		    "check skipped: the targets are incomplete");
		return;
	}
	gate_judged(gr, "G0.complexity", NULL);
	ctx = ev->src.max_context <= 8192 ? 0 :
	    ev->src.max_context <= 40960 ? 1 : 3;
	if (ev->src.max_batch == 1 && ev->src.max_chips == 1)
		dep = 0;
	else if (ev->src.max_batch == 1 && ev->src.max_chips == 2)
		dep = 1;
	else
		dep = 3;
	total = k + at + no + ctx + dep;
	query_gate_at(gr, total > 3 ? SEV_WARN : SEV_INFO, "G0.complexity", a,
	    "/architecture", "complexity %d%s (kind %s %d, attention %s %d, "
	    "activation/norm %s %d, context %lld %d, deployment batch %lld "
	    "chips %lld %d)", total, total > 3 ? " > 3: split the port into "
	    "phases (runbook §1)" : "", kv, k, av, at, nv, no,
	    (long long)ev->src.max_context, ctx, (long long)ev->src.max_batch,
	    (long long)ev->src.max_chips, dep);
}

void
g00_source(struct eval *ev, struct gate_result *gr)
{
	const struct artifact *a = artifact_doc(gr, MANIFEST);
	const char *s;
	json_t *root, *arch;

	if (a == NULL)
		return;
	root = a->doc.root;
	if (!json_is_object(root)) {
		query_gate_at(gr, SEV_ERROR, "G0.parse", a, "",
		    "the manifest is not "
		    "a JSON object");
		return;
	}
	/* Each of these fields is required: present, it is judged; absent,
	 * its check fails. */
	gate_judged(gr, "G0.schema", "G0.model_id", "G0.license", "G0.files",
	    "G0.architecture", "G0.tokenizer", "G0.targets", "G0.sla", NULL);
	if ((s = query_str(gr, "G0.schema", a, root, "", "schema")) != NULL &&
	    strcmp(s, "calculet-model-source/v1") != 0)
		query_gate_at(gr, SEV_ERROR, "G0.schema", a, "/schema",
		    "schema is '%s', not 'calculet-model-source/v1'", s);
	if ((s = query_str(gr, "G0.model_id", a, root, "", "model_id")) !=
	    NULL) {
		if (valid_model_id(s))
			ev->src.model_id = s;
		else
			query_gate_at(gr, SEV_ERROR, "G0.model_id", a,
			    "/model_id", "'%s' is not <org>/<name>@<revision>",
			    s);
	}
	if ((s = query_str(gr, "G0.license", a, root, "", "license")) != NULL &&
	    !valid_spdx(s))
		query_gate_at(gr, SEV_ERROR, "G0.license", a, "/license",
		    "'%s' is not an SPDX license id", s);
	check_files(gr, a, root);
	arch = query_object(gr, "G0.architecture", a, root, "", "architecture");
	if (arch != NULL)
		check_architecture(gr, a, arch);
	check_tokenizer(ev, gr, a, root);
	check_targets(ev, gr, a, root);
	check_complexity(ev, gr, a, arch);
}

/* relverdict.c: one verdict per generation (relverdict.h). */
#include "calops.h"

#include "base/text.h"
#include "release/relverdict.h"

/* How many changed bindings the words name before "and N more". */
#define WORDS_NAMED	3

void
relverdict_init(struct relverdict *v, long n, bool candidate)
{
	memset(v, 0, sizeof *v);
	v->n = n;
	v->candidate = candidate;
	v->sig = RV_SIG_UNTRUSTED;
	v->rev = RV_REV_NO;
	v->bind = RV_BIND_NOT_CHECKED;
}

static void
release_changes(struct relverdict *v)
{
	size_t i;

	for (i = 0; i < v->nchanges; i++) {
		free(v->changes[i].what);
		free(v->changes[i].ptr);
		free(v->changes[i].message);
	}
	free(v->changes);
	v->changes = NULL;
	v->nchanges = v->more = 0;
}

void
relverdict_release(struct relverdict *v)
{
	release_changes(v);
	memset(v, 0, sizeof *v);
}

void
relverdict_signature(struct relverdict *v, enum relverdict_sig sig,
    const char *signer, const char *why)
{
	v->sig = sig;
	snprintf(v->signer, sizeof v->signer, "%s", sig == RV_SIG_OK &&
	    signer != NULL ? signer : "");
	snprintf(v->sig_why, sizeof v->sig_why, "%s", sig == RV_SIG_OK ||
	    why == NULL ? "" : why);
}

void
relverdict_revocation(struct relverdict *v, enum relverdict_rev rev,
    const char *why)
{
	v->rev = rev;
	snprintf(v->rev_why, sizeof v->rev_why, "%s", rev == RV_REV_NO ||
	    why == NULL ? "" : why);
}

void
relverdict_not_judged(struct relverdict *v, const char *why)
{
	release_changes(v);
	v->bind = RV_BIND_NOT_JUDGED;
	snprintf(v->bind_why, sizeof v->bind_why, "%s", why);
}

void
relverdict_copy_bindings(struct relverdict *dst, const struct relverdict *src)
{
	size_t i;

	release_changes(dst);
	dst->bind = src->bind;
	dst->cached = src->cached;
	dst->more = src->more;
	memcpy(dst->bind_why, src->bind_why, sizeof dst->bind_why);
	if (src->nchanges > 0)
		dst->changes = xreallocarray(NULL, src->nchanges,
		    sizeof *dst->changes);
	for (i = 0; i < src->nchanges; i++) {
		dst->changes[i].kind = src->changes[i].kind;
		dst->changes[i].what = xstrdup(src->changes[i].what);
		dst->changes[i].ptr = xstrdup(src->changes[i].ptr);
		dst->changes[i].message = xstrdup(src->changes[i].message);
	}
	dst->nchanges = src->nchanges;
}

/* ---- the bindings ---- */

static void PRINTFLIKE(5, 6)
add_change(struct relverdict *v, enum relverdict_kind kind, const char *what,
    const char *ptr, const char *fmt, ...)
{
	struct relverdict_change *c;
	va_list ap;

	v->bind = RV_BIND_CHANGED;
	if (v->nchanges >= RELVERDICT_CHANGES_MAX) {
		v->more++;
		return;
	}
	v->changes = xreallocarray(v->changes, v->nchanges + 1,
	    sizeof *v->changes);
	c = &v->changes[v->nchanges++];
	c->kind = kind;
	c->what = xstrdup(what);
	c->ptr = xstrdup(ptr);
	va_start(ap, fmt);
	c->message = xvasprintf(fmt, ap);
	va_end(ap);
}

/* A bound hash against today's value; today NULL: the artifact is gone,
 * or cannot be read, as why says (NULL or "": gone). */
static void
bind(struct relverdict *v, const char *ptr, const char *bound,
    const char *today, const char *what, const char *why)
{
	if (bound == NULL)
		add_change(v, RVC_UNBOUND, what, ptr, "the manifest binds no %s",
		    what);
	else if (today == NULL && why != NULL && why[0] != '\0')
		add_change(v, RVC_GONE, what, ptr, "%s is bound but cannot be "
		    "read today: %s", what, why);
	else if (today == NULL)
		add_change(v, RVC_GONE, what, ptr, "%s is bound but no longer "
		    "exists", what);
	else if (strcmp(bound, today) != 0)
		add_change(v, RVC_CHANGED, what, ptr, "%s changed since "
		    "generation %ld was signed (now %.12s…, bound %.12s…)",
		    what, v->n, today, bound);
}

/* Why the lookup just made found nothing, or NULL. */
static const char *
why(const struct relverdict_today *t, void *arg)
{
	return t->why != NULL ? t->why(arg) : NULL;
}

static const char *
member(const json_t *o, const char *k1, const char *k2)
{
	const json_t *m = json_object_get(o, k1);

	return json_string_value(k2 != NULL ? json_object_get(m, k2) : m);
}

static void
bind_reports(struct relverdict *v, const json_t *m,
    const struct relverdict_today *t, void *arg)
{
	const json_t *reports = json_object_get(m, "reports"), *r;
	char hex[HASH_HEX_LEN + 1], ptr[48], err[320], *rel;
	const char *path;
	size_t i;

	if (!json_is_array(reports)) {
		add_change(v, RVC_UNBOUND, "reports", "/reports", "the manifest "
		    "binds no reports (no 'reports' array)");
		return;
	}
	json_array_foreach(reports, i, r) {
		snprintf(ptr, sizeof ptr, "/reports/%zu", i);
		if ((path = member(r, "path", NULL)) == NULL) {
			add_change(v, RVC_UNBOUND, ptr, ptr, "report entry has "
			    "no path");
			continue;
		}
		err[0] = '\0';
		switch (t->join(arg, ptr, path, &rel, err, sizeof err)) {
		case 0:
			bind(v, ptr, member(r, "sha256", NULL),
			    t->file(arg, rel, hex), rel, why(t, arg));
			free(rel);
			break;
		case 1:		/* a content URI: no file of this workspace */
			break;
		default:
			add_change(v, RVC_BAD_PATH, path, ptr, "%s", err[0] !=
			    '\0' ? err : "the report's path leads outside the "
			    "workspace");
		}
	}
}

void
relverdict_bindings(struct relverdict *v, const json_t *m,
    const struct relverdict_today *t, void *arg)
{
	char hex[HASH_HEX_LEN + 1];
	const char *today;

	release_changes(v);
	v->bind = RV_BIND_MATCH;
	v->bind_why[0] = '\0';
	/* Each asked for, then bound with why it was not found, if so. */
	today = t->member(arg, "00-source/source-manifest.json", "tokenizer",
	    "sha256");
	bind(v, "/tokenizer_sha256", member(m, "tokenizer_sha256", NULL), today,
	    "the tokenizer (G0 manifest)", why(t, arg));
	today = t->file(arg, "02-onnx/model.onnx", hex);
	bind(v, "/onnx_sha256", member(m, "onnx_sha256", NULL), today,
	    "02-onnx/model.onnx", why(t, arg));
	today = t->file(arg, "03-quant/quant-config.yaml", hex);
	bind(v, "/quant_config_sha256", member(m, "quant_config_sha256", NULL),
	    today, "03-quant/quant-config.yaml", why(t, arg));
	today = t->file(arg, "03-quant/calibration-manifest.jsonl", hex);
	bind(v, "/calibration_manifest_sha256", member(m,
	    "calibration_manifest_sha256", NULL), today,
	    "03-quant/calibration-manifest.jsonl", why(t, arg));
	today = t->member(arg, "04-compiler/compiler-manifest.json",
	    "oci_digest", NULL);
	bind(v, "/compiler/oci_digest", member(m, "compiler", "oci_digest"),
	    today, "the compiler container (oci_digest)", why(t, arg));
	today = t->tree(arg, "05-calbin/package", hex);
	bind(v, "/calbin_tree_sha256", member(m, "calbin_tree_sha256", NULL),
	    today, "the calbin package tree", why(t, arg));
	bind_reports(v, m, t, arg);
}

/* ---- the rule and its words ---- */

void
relverdict_judge(struct relverdict *v)
{
	v->verifies = false;
	if (v->sig != RV_SIG_OK)
		snprintf(v->problem, sizeof v->problem, "%s", v->sig_why[0] !=
		    '\0' ? v->sig_why : "its manifest is not signed by a "
		    "trusted key");
	else if (v->rev != RV_REV_NO)
		snprintf(v->problem, sizeof v->problem, "%s", v->rev_why[0] !=
		    '\0' ? v->rev_why : "it is revoked, or that is not known");
	else if (v->bind == RV_BIND_CHANGED && v->nchanges > 0)
		snprintf(v->problem, sizeof v->problem, "%s%s",
		    v->changes[0].message, v->nchanges + v->more == 1 ? "" :
		    " (and more bindings that do not hold)");
	else if (v->bind == RV_BIND_CHANGED)
		snprintf(v->problem, sizeof v->problem, "its bindings do not "
		    "hold");
	else if (v->bind == RV_BIND_NOT_JUDGED)
		snprintf(v->problem, sizeof v->problem, "%s", v->bind_why);
	else if (v->bind == RV_BIND_NOT_CHECKED && v->candidate)
		/* Fail closed: the candidate's bindings are part of it. */
		snprintf(v->problem, sizeof v->problem, "generation %ld is the "
		    "candidate and its bindings were not checked", v->n);
	else {
		v->problem[0] = '\0';
		v->verifies = true;
	}
}

static const char *
sig_words(const struct relverdict *v)
{
	return v->sig == RV_SIG_OK ? "signed by a trusted key" :
	    v->sig == RV_SIG_UNTRUSTED ? "not signed by a trusted key" :
	    "no manifest to verify";
}

static const char *
rev_words(const struct relverdict *v)
{
	return v->rev == RV_REV_NO ? "not revoked" : v->rev == RV_REV_YES ?
	    "revoked" : "revocations untrusted";
}

/* The bindings' words, naming the first few that do not hold. */
static void
bind_words(const struct relverdict *v, char *buf, size_t len)
{
	size_t i, off, named = v->nchanges < WORDS_NAMED ? v->nchanges :
	    WORDS_NAMED;

	switch (v->bind) {
	case RV_BIND_MATCH:
		snprintf(buf, len, "bindings match today's artifacts");
		return;
	case RV_BIND_NOT_JUDGED:
		snprintf(buf, len, "bindings not judged");
		return;
	case RV_BIND_NOT_CHECKED:
		snprintf(buf, len, "bindings not checked%s", v->candidate ?
		    "" : " (not the candidate)");
		return;
	case RV_BIND_CHANGED:
		break;
	}
	snprintf(buf, len, "bindings changed:");
	for (i = 0; i < named; i++) {
		off = strlen(buf);
		snprintf(buf + off, len - off, "%s %s", i > 0 ? "," : "",
		    v->changes[i].what);
	}
	if (v->nchanges + v->more > named) {
		off = strlen(buf);
		snprintf(buf + off, len - off, " and %zu more",
		    v->nchanges + v->more - named);
	}
}

void
relverdict_words(const struct relverdict *v, char *buf, size_t len)
{
	char parts[3][400];
	bool fails[3];
	size_t off;
	int pass, i;

	snprintf(parts[0], sizeof parts[0], "%s", sig_words(v));
	snprintf(parts[1], sizeof parts[1], "%s", rev_words(v));
	bind_words(v, parts[2], sizeof parts[2]);
	fails[0] = v->sig != RV_SIG_OK;
	fails[1] = v->rev != RV_REV_NO;
	/* The candidate's bindings left unchecked fail it only when nothing
	 * before them did (then they were not worth hashing). */
	fails[2] = v->bind == RV_BIND_CHANGED ||
	    v->bind == RV_BIND_NOT_JUDGED ||
	    (v->bind == RV_BIND_NOT_CHECKED && v->candidate && !fails[0] &&
	    !fails[1]);
	snprintf(buf, len, "%s:", v->verifies ? "verifies" :
	    "does not verify");
	/* What fails first: a narrow cell keeps the reason. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < 3; i++) {
			if (fails[i] != (pass == 0))
				continue;
			off = strlen(buf);
			snprintf(buf + off, len - off, "%s %s",
			    buf[off - 1] == ':' ? "" : ";", parts[i]);
		}
}

static const char *const sig_names[] = {
	[RV_SIG_OK] = "ok", [RV_SIG_UNTRUSTED] = "untrusted",
	[RV_SIG_UNREADABLE] = "unreadable",
};
static const char *const rev_names[] = {
	[RV_REV_NO] = "no", [RV_REV_YES] = "yes", [RV_REV_UNKNOWN] = "unknown",
};
static const char *const bind_names[] = {
	[RV_BIND_NOT_CHECKED] = "not_checked", [RV_BIND_MATCH] = "match",
	[RV_BIND_CHANGED] = "changed", [RV_BIND_NOT_JUDGED] = "not_judged",
};
static const char *const kind_names[] = {
	[RVC_CHANGED] = "changed", [RVC_GONE] = "gone",
	[RVC_UNBOUND] = "unbound", [RVC_BAD_PATH] = "bad_path",
};

json_t *
relverdict_json(const struct relverdict *v)
{
	json_t *o, *changed = json_array();
	char words[1024];
	size_t i;

	for (i = 0; i < v->nchanges; i++)
		json_array_append_new(changed, json_pack("{s:o, s:s, s:o, "
		    "s:o}", "what", text_json(v->changes[i].what), "how",
		    kind_names[v->changes[i].kind], "pointer",
		    text_json(v->changes[i].ptr), "message",
		    text_json(v->changes[i].message)));
	relverdict_words(v, words, sizeof words);
	o = json_pack("{s:b, s:b, s:s, s:o, s:s, s:s, s:o, s:o, s:I, s:o, "
	    "s:o}", "verifies", v->verifies, "candidate", v->candidate,
	    "signature", sig_names[v->sig], "signer", v->signer[0] != '\0' ?
	    text_json(v->signer) : json_null(), "revoked", rev_names[v->rev],
	    "bindings", bind_names[v->bind], "cache",
	    v->bind == RV_BIND_MATCH || v->bind == RV_BIND_CHANGED ?
	    json_boolean(v->cached) : json_null(), "changed", changed,
	    "more_changed", (json_int_t)v->more, "problem",
	    v->problem[0] != '\0' ? text_json(v->problem) : json_null(),
	    "words", text_json(words));
	return o;
}

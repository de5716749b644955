/* sim_golden.c: `golden`, the minimum golden sequence (runbook §11.2). */
#include "calops.h"

#include <math.h>

#include "base/doc.h"
#include "engine/gate.h"
#include "sim_common.h"
#include "ws/hashtree.h"

#define GOLDEN_REL	"06-runtime/correctness/golden.json"
#define LOGITS_TOL	0.02

struct gcase {
	json_int_t	prefill, decode;
};

struct golden {
	struct gcase	c[SIM_MAX_CASES];
	size_t		n;
};

/* The runbook's lists, capped at M (workspace.md G7). */
static void
default_cases(const struct sim *s, struct golden *g)
{
	json_int_t prefill[] = { 1, 16, 17, 128, 1024, s->max_context - 1 },
	    decode[] = { 1, 32, 256 },
	    pairs[nitems(prefill) * nitems(decode)][2];
	size_t i;

	g->n = gate_capped_pairs(prefill, nitems(prefill), decode,
	    nitems(decode), s->max_context, pairs);
	for (i = 0; i < g->n; i++) {
		g->c[i].prefill = pairs[i][0];
		g->c[i].decode = pairs[i][1];
	}
}

static int
add_case(struct golden *g, json_t *c, char *err, size_t len)
{
	json_t *p = json_object_get(c, "prefill_len"),
	    *d = json_object_get(c, "decode_len");

	if (!json_is_integer(p) || !json_is_integer(d) ||
	    json_integer_value(p) < 1 || json_integer_value(d) < 1) {
		errbuf_set(err, len, "a case needs integers prefill_len >= 1 and "
		    "decode_len >= 1");
		return -1;
	}
	if (g->n == SIM_MAX_CASES) {
		errbuf_set(err, len, "more than %d cases", SIM_MAX_CASES);
		return -1;
	}
	g->c[g->n].prefill = json_integer_value(p);
	g->c[g->n++].decode = json_integer_value(d);
	return 0;
}

/* Two lists crossed as the runbook does, capped when M is known. */
static int
cross_cases(const struct sim *s, struct golden *g, json_t *pl, json_t *dl,
    char *err, size_t len)
{
	json_int_t p, d;
	json_t *pv, *dv;
	size_t i, k;

	json_array_foreach(pl, i, pv) {
		json_array_foreach(dl, k, dv) {
			if (!json_is_integer(pv) || !json_is_integer(dv) ||
			    (p = json_integer_value(pv)) < 1 ||
			    (d = json_integer_value(dv)) < 1) {
				errbuf_set(err, len, "prefill and decode must be "
				    "lists of integers >= 1");
				return -1;
			}
			if (s->have_context && p + d > s->max_context)
				d = s->max_context - p;
			if (d < 1) {
				errbuf_set(err, len, "prefill %lld leaves no room "
				    "to decode", (long long)p);
				return -1;
			}
			if (g->n == SIM_MAX_CASES) {
				errbuf_set(err, len, "more than %d cases",
				    SIM_MAX_CASES);
				return -1;
			}
			g->c[g->n].prefill = p;
			g->c[g->n++].decode = d;
		}
	}
	return 0;
}

/*
 * --case FILE: one case {prefill_len, decode_len}, a list of them (bare or
 * as "cases"), or the runbook's form {prefill: [...], decode: [...]}.
 */
static int
file_cases(const struct sim *s, struct golden *g, char *err, size_t len)
{
	json_t *root, *list, *c;
	char why[256] = "";
	struct doc d;
	size_t i;
	int rc = 0;

	if (sim_read_doc(s->o.case_path, false, &d, err, len) == -1)
		return -1;
	root = d.root;
	list = json_is_array(root) ? root : json_object_get(root, "cases");
	if (json_is_array(list)) {
		json_array_foreach(list, i, c)
			if (rc == 0)
				rc = add_case(g, c, why, sizeof why);
	} else if (json_is_array(json_object_get(root, "prefill")) &&
	    json_is_array(json_object_get(root, "decode")))
		rc = cross_cases(s, g, json_object_get(root, "prefill"),
		    json_object_get(root, "decode"), why, sizeof why);
	else
		rc = add_case(g, root, why, sizeof why);
	doc_release(&d);
	if (rc == 0 && g->n == 0) {
		snprintf(why, sizeof why, "no cases");
		rc = -1;
	}
	if (rc == -1)
		errbuf_set(err, len, "case '%s': %s", s->o.case_path, why);
	return rc;
}

/* Run one case: prefill, decode, then compare with the reference. */
static json_t *
run_case(struct sim *s, struct rng *r, const struct gcase *c, bool *ok)
{
	double p = (double)c->prefill, prefill_ms, decode_ms, err;
	bool diverge = s->o.have_mismatch && s->o.mismatch[0] == c->prefill &&
	    s->o.mismatch[1] == c->decode;
	bool fits = !s->have_context ||
	    c->prefill + c->decode <= s->max_context;
	json_t *o;

	prefill_ms = (18.0 + 0.19 * p + 0.0000061 * p * p) * s->o.ttft_ms /
	    280.0;
	decode_ms = (double)c->decode * s->o.tpot_ms *
	    (1.0 + 0.02 * rng_gauss(r));
	sim_advance_ms(s, prefill_ms);
	sim_advance_ms(s, fmax(decode_ms, 0.0));
	err = round((0.002 + 0.004 * rng_uniform(r)) * 1e5) / 1e5;
	if (diverge)
		err = round((0.21 + 0.1 * rng_uniform(r)) * 1e5) / 1e5;
	*ok = !diverge && fits;
	o = json_object();
	json_object_set_new(o, "prefill_len", json_integer(c->prefill));
	json_object_set_new(o, "decode_len", json_integer(c->decode));
	json_object_set_new(o, "logits_match", json_boolean(!diverge && fits));
	json_object_set_new(o, "greedy_match", json_boolean(!diverge && fits));
	json_object_set_new(o, "kv_len_match", json_boolean(fits));
	json_object_set_new(o, "kv_len", json_integer(fits ? c->prefill +
	    c->decode : s->max_context));
	json_object_set_new(o, "logits_max_abs_err", json_real(err));
	json_object_set_new(o, "tol", json_real(LOGITS_TOL));
	if (!fits)
		sim_log(s, "error", "prefill %lld decode %lld: CALRT_E_KV_FULL at "
		    "kv_len %lld (max_seq %lld)", (long long)c->prefill,
		    (long long)c->decode, (long long)s->max_context,
		    (long long)s->max_context);
	else
		sim_log(s, diverge ? "error" : "info", "prefill %lld decode %lld: "
		    "logits max |err| %.5f (tol %.2f), greedy %s, kv_len %lld",
		    (long long)c->prefill, (long long)c->decode, err,
		    LOGITS_TOL,
		    diverge ? "diverges" : "matches",
		    (long long)(c->prefill + c->decode));
	return o;
}

/* Steps 4 and 5 of §11.2: reuse a freed sequence id; interleave two. */
static void
reuse_and_interleave(struct sim *s)
{
	sim_advance_ms(s, 40);
	sim_log(s, "info", "seq 0 freed: KV length 0, buffers back in the pool; "
	    "seq id 0 reused for prefill 17 decode 32: identical logits");
	sim_advance_ms(s, 18.0 + 0.19 * 17 + 32 * s->o.tpot_ms);
	sim_log(s, "info", "seq 0 and seq 1 interleaved (prefill 128 and 1024, "
	    "decode 32 each, alternating steps): no cross-talk");
	sim_advance_ms(s, 2 * (18.0 + 0.19 * 1024 + 32 * s->o.tpot_ms));
}

static json_t *
golden_doc(struct sim *s, const char *tree, json_t *cases)
{
	json_t *o = json_object();
	char when[32];

	sim_iso(s->now, when, sizeof when);
	json_object_set_new(o, "runner", json_string(SIM_TOOL " "
	    CALOPS_VERSION));
	json_object_set_new(o, "calbin_tree_sha256", json_string(tree));
	if (s->have_context)
		json_object_set_new(o, "max_context", json_integer(s->max_context));
	json_object_set_new(o, "cases", cases);
	json_object_set_new(o, "reuse_seq", json_true());
	json_object_set_new(o, "interleave", json_true());
	json_object_set_new(o, "generated", json_string(when));
	return o;
}

/* The cases to run: --case, else the runbook's at M; -1 with err set. */
static int
load_cases(const struct sim *s, struct golden *g, char *err, size_t len)
{
	if (s->o.case_path != NULL)
		return file_cases(s, g, err, len);
	if (!s->have_context) {
		errbuf_set(err, len, "G0's targets.context is missing or "
		    "unreadable, so the cases cannot be sized (give --case)%s%s",
		    s->source_msg[0] != '\0' ? ": " : "", s->source_msg);
		return -1;
	}
	default_cases(s, g);
	return 0;
}

/* Write golden.json and say so in the result event. */
static int
finish(struct sim *s, json_t *doc, size_t n, size_t matched, const char *tree)
{
	char err[512], *out, *rel;
	json_t *summary, *arts;
	int rc;

	out = s->o.output != NULL ? xstrdup(s->o.output) :
	    xasprintf("%s/%s", s->ws, GOLDEN_REL);
	rel = sim_relpath(s, out);
	if (sim_mkparent(out, err, sizeof err) == -1 ||
	    sim_write_evidence(out, doc, err, sizeof err) == -1)
		rc = sim_fail(s, "%s", err);
	else {
		summary = json_pack("{sIsIsIss}", "cases", (json_int_t)n,
		    "matched", (json_int_t)matched, "failed",
		    (json_int_t)(n - matched), "calbin_tree_sha256", tree);
		arts = json_pack("[s]", rel);
		rc = sim_result(s, matched == n ? "pass" : "fail", summary, arts);
	}
	free(rel);
	free(out);
	return rc;
}

int
sim_golden(struct sim *s)
{
	struct golden *g = xcalloc(1, sizeof *g);
	json_t *cases, *doc;
	size_t i, matched = 0;
	char err[512];
	struct tree t;
	struct rng r;
	bool ok;
	int rc;

	if (load_cases(s, g, err, sizeof err) == -1) {
		free(g);
		return sim_fail(s, "%s", err);
	}
	if (sim_tree_hash(s, &t, err, sizeof err) == -1) {
		hashtree_release(&t);
		free(g);
		return sim_fail(s, "%s", err);
	}
	sim_log(s, "info", "CreateVDevice chip %d; CreateCalbin tree %.12s…; "
	    "%zu cases", s->o.chips[0], t.hex, g->n);
	rng_init(&r, s->o.seed, "golden");
	cases = json_array();
	for (i = 0; i < g->n && !sim_stopping; i++) {
		json_array_append_new(cases, run_case(s, &r, &g->c[i], &ok));
		matched += ok;
		sim_progress(s, "golden", (double)i + 1, (double)g->n, "case");
	}
	if (!sim_stopping)
		reuse_and_interleave(s);
	doc = golden_doc(s, t.hex, cases);
	if (sim_stopping)
		rc = sim_fail(s, "stopped by a signal after %zu of %zu cases; "
		    "nothing written", i, g->n);
	else
		rc = finish(s, doc, g->n, matched, t.hex);
	json_decref(doc);
	hashtree_release(&t);
	free(g);
	return rc;
}

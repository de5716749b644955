/* g10_release.c: G10, the signed release and its rollback (runbook §14). */
#include "calops.h"

#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"
#include "gates/g10_release.h"
#include "release/keyring.h"
#include "release/relaudit.h"
#include "release/relrecord.h"
#include "release/relstate.h"
#include "release/relverdict.h"
#include "ws/hashtree.h"

#define REL "08-release"
#define GENS "08-release/generations"
#define KEYS "08-release/trusted-keys"
#define REVOCATIONS "08-release/revocations.json"

/* The generations revocations.json revokes, once its signature verified. */
struct revoked {
	long		*v;
	size_t		 n;
};

/* A generation's manifest: its exact bytes, parsed, and whether it verifies. */
struct generation {
	long		 n;
	char		*rel;	/* .../generations/N/release-manifest.json */
	const struct artifact *raw;
	struct doc	 doc;
	bool		 parsed;
	const char	*signer;	/* key that verified it, or NULL */
};

static void
load_keys(struct gate_result *gr, struct keyring *kr)
{
	const struct artifact *a;
	struct dirent *de;
	char *abs, *rel, *name, msg[320];
	size_t n;
	DIR *d;

	abs = workspace_abs(&gr->ev->ws, KEYS);
	d = artifact_exists(gr, KEYS, NULL) ? opendir(abs) : NULL;
	free(abs);
	if (d == NULL) {
		gate_add(gr, SEV_ERROR, "G10.signature", KEYS, "",
		    "no trusted-keys folder: nothing can verify a release");
		return;
	}
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n <= 4 || strcmp(de->d_name + n - 4, ".pub") != 0)
			continue;
		rel = xasprintf("%s/%s", KEYS, de->d_name);
		name = xstrndup(de->d_name, n - 4);
		if ((a = artifact_raw(gr, rel)) != NULL &&
		    keyring_add_pem(kr, name, a->data, a->size, msg,
		    sizeof msg) != 0)
			gate_add(gr, SEV_ERROR, "G10.signature", rel, "", "%s", msg);
		free(name);
		free(rel);
	}
	closedir(d);
}

/* Generation numbers present, ascending. */
static long *
list_generations(struct gate_result *gr, size_t *n)
{
	char *abs = workspace_abs(&gr->ev->ws, GENS), *end;
	struct dirent *de;
	long *v = NULL, x, t;
	size_t i, j;
	DIR *d;

	*n = 0;
	d = opendir(abs);
	free(abs);
	if (d == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		errno = 0;
		x = strtol(de->d_name, &end, 10);
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    *end != '\0' || errno != 0)
			continue;
		v = xreallocarray(v, *n + 1, sizeof *v);
		v[(*n)++] = x;
	}
	closedir(d);
	for (i = 1; i < *n; i++)	/* few entries: insertion sort */
		for (j = i; j > 0 && v[j - 1] > v[j]; j--)
			t = v[j], v[j] = v[j - 1], v[j - 1] = t;
	return v;
}

/* Load generation n; only the candidate's parse problems are G10.parse
 * findings (report), the others' are told by the check that needs them. */
static void
load_generation(struct gate_result *gr, const struct keyring *kr, long n,
    struct generation *g, bool report)
{
	struct doc_error de;
	const struct artifact *sig;
	char *sigrel;

	memset(g, 0, sizeof *g);
	g->n = n;
	g->rel = xasprintf("%s/%ld/release-manifest.json", GENS, n);
	sigrel = xasprintf("%s.sig", g->rel);
	if ((g->raw = artifact_raw(gr, g->rel)) != NULL) {
		if (doc_parse_json(&g->doc, g->raw->data, g->raw->size,
		    &de) != 0) {
			if (report)
				gate_add(gr, SEV_ERROR, "G10.parse", g->rel,
				    de.where, "cannot parse '%s': %s", g->rel,
				    de.msg);
		} else if (!(g->parsed = json_is_object(g->doc.root)) && report)
			gate_add(gr, SEV_ERROR, "G10.parse", g->rel, "",
			    "'%s' is not a JSON object", g->rel);
		sig = artifact_raw(gr, sigrel);
		if (sig != NULL)
			g->signer = keyring_verify(kr, NULL, g->raw->data,
			    g->raw->size, sig->data, sig->size);
	}
	free(sigrel);
}

static void
release_generation(struct generation *g)
{
	doc_release(&g->doc);
	free(g->rel);
}

/* The candidate's signature: a part of its verdict, and a finding when it
 * does not hold, in the verdict's words. */
static void
check_signature(struct gate_result *gr, const struct generation *cand,
    struct relverdict *v)
{
	char why[128];

	if (cand->raw == NULL) {
		snprintf(why, sizeof why, "candidate generation %ld has no "
		    "release manifest", cand->n);
		relverdict_signature(v, RV_SIG_UNREADABLE, NULL, why);
	} else if (cand->signer == NULL) {
		snprintf(why, sizeof why, "generation %ld's manifest has no "
		    "signature that verifies with a trusted key", cand->n);
		relverdict_signature(v, RV_SIG_UNTRUSTED, NULL, why);
	} else
		relverdict_signature(v, RV_SIG_OK, cand->signer, NULL);
	if (v->sig != RV_SIG_OK)
		gate_add(gr, SEV_ERROR, "G10.signature", cand->rel, "", "%s",
		    v->sig_why);
}

/*
 * Read current's link text into target, on the folder 08-release opened
 * beneath the workspace (workspace.md §1) rather than by a path that a
 * folder on the way swapped for a link would take out of it.  Its length,
 * or -1 (reported).
 */
static ssize_t
read_current(struct gate_result *gr, char *target, size_t size)
{
	char why[256];
	struct stat st;
	enum ws_status ws;
	ssize_t len = -1;
	int dfd;

	ws = workspace_open_fd(&gr->ev->ws, REL, S_IFDIR, &dfd, &st, why,
	    sizeof why);
	if (ws == WS_ABSENT)
		gate_add(gr, SEV_ERROR, "G10.current", REL "/current", "",
		    "'current' is missing: nothing is live");
	else if (ws != WS_OK)
		gate_add(gr, SEV_ERROR, "G10.current", REL "/current", "",
		    "'current' cannot be read: %s", why);
	else if (fstatat(dfd, "current", &st, AT_SYMLINK_NOFOLLOW) == -1)
		gate_add(gr, SEV_ERROR, "G10.current", REL "/current", "",
		    "'current' is %s", errno == ENOENT ?
		    "missing: nothing is live" : strerror(errno));
	else if (!S_ISLNK(st.st_mode))
		gate_add(gr, SEV_ERROR, "G10.current", REL "/current", "",
		    "'current' is not a symbolic link");
	else if ((len = readlinkat(dfd, "current", target, size - 1)) == -1)
		gate_add(gr, SEV_ERROR, "G10.current", REL "/current", "",
		    "cannot read 'current': %s", strerror(errno));
	if (dfd != -1)
		close(dfd);
	return len;
}

/* Where `current` points: a generation number, or -1 (reported). */
static long
check_current(struct gate_result *gr, const struct keyring *kr)
{
	char target[PATH_MAX], why[256], *end, *base;
	struct generation g;
	struct stat st;
	enum ws_status ws;
	ssize_t len;
	long n;

	if ((len = read_current(gr, target, sizeof target)) < 0)
		return -1;
	target[len] = '\0';
	if (!artifact_exists(gr, REL "/current", NULL)) {
		/* A loop is said as one, as everywhere in the workspace. */
		ws = workspace_locate(&gr->ev->ws, REL "/current", &st, why,
		    sizeof why);
		gate_add(gr, SEV_ERROR, "G10.current", REL "/current", "",
		    "'current' -> '%s' %s", target, ws == WS_LOOP ? "is a "
		    "symlink loop (or a chain of links too deep to follow)" :
		    ws == WS_OUTSIDE ? "leads outside the workspace" :
		    "does not resolve");
		return -1;
	}
	while (len > 1 && target[len - 1] == '/')
		target[--len] = '\0';
	base = strrchr(target, '/') != NULL ? strrchr(target, '/') + 1 : target;
	errno = 0;
	n = strtol(base, &end, 10);
	if (*end != '\0' || n < 1 || errno != 0 || strstr(target,
	    "generations/") == NULL) {
		gate_add(gr, SEV_ERROR, "G10.current", REL "/current", "",
		    "'current' -> '%s' is not a generation", target);
		return -1;
	}
	load_generation(gr, kr, n, &g, false);
	if (g.signer == NULL)
		gate_add(gr, SEV_ERROR, "G10.current", REL "/current", "",
		    "'current' points to generation %ld, which does not verify", n);
	release_generation(&g);
	return n;
}

/* Today's values as G10 reads them, for relverdict_bindings(). */
struct today {
	struct gate_result	*gr;
	const char		*manifest;	/* workspace-relative */
	/* Why the last lookup found nothing when the artifact is there but
	 * cannot be read (a parse error, a FIFO): "" when it is gone. */
	char			 why[400];
};

/* What the last lookup of rel found nothing for: msg when rel is there
 * (it could not be read), nothing when it is gone. */
static void
today_failed(struct today *t, const char *rel, const char *msg)
{
	t->why[0] = '\0';
	if (artifact_exists(t->gr, rel, NULL))
		snprintf(t->why, sizeof t->why, "%s", msg);
}

static const char *
today_file(void *arg, const char *rel, char hex[HASH_HEX_LEN + 1])
{
	struct today *t = arg;
	char msg[320];

	t->why[0] = '\0';
	if (artifact_hash(t->gr, rel, hex, msg, sizeof msg) != 0) {
		today_failed(t, rel, msg);
		return NULL;
	}
	return hex;
}

static const char *
today_tree(void *arg, const char *rel, char hex[HASH_HEX_LEN + 1])
{
	struct today *t = arg;
	const struct tree *tr;
	char msg[320];

	t->why[0] = '\0';
	if ((tr = artifact_tree(t->gr, rel, msg, sizeof msg)) == NULL) {
		today_failed(t, rel, msg);
		return NULL;
	}
	snprintf(hex, HASH_HEX_LEN + 1, "%s", tr->hex);
	return hex;
}

static const char *
today_member(void *arg, const char *rel, const char *k1, const char *k2)
{
	struct today *t = arg;
	struct artifact *a = artifact_eval(t->gr->ev, rel, true);
	json_t *v;

	t->why[0] = '\0';
	if (!a->parsed) {
		/* G0's manifest broken or a FIFO is not a tokenizer gone. */
		if (a->status != WS_ABSENT)
			snprintf(t->why, sizeof t->why, "'%s' cannot be read: %s",
			    rel, a->msg[0] != '\0' ? a->msg : "not a document");
		return NULL;
	}
	v = json_object_get(a->doc.root, k1);
	if (k2 != NULL)
		v = json_object_get(v, k2);
	return json_string_value(v);
}

/* A path that leads outside is a G10.path error, said by artifact_join()
 * at the report's entry; its words are the verdict's too. */
static int
today_join(void *arg, const char *ptr, const char *path, char **rel,
    char *err, size_t errlen)
{
	struct today *t = arg;
	size_t before = t->gr->findings.n;
	int rc;

	rc = artifact_join(t->gr, t->manifest, ptr, path, rel);
	if (rc == -1 && t->gr->findings.n > before)
		errbuf_set(err, errlen, "%s",
		    t->gr->findings.v[t->gr->findings.n - 1].message);
	return rc;
}

static const char *
today_why(void *arg)
{
	return ((struct today *)arg)->why;
}

static const struct relverdict_today today_ops = {
	.file = today_file,
	.tree = today_tree,
	.member = today_member,
	.join = today_join,
	.why = today_why,
};

/* The candidate's bindings: a part of its verdict, and a finding at the
 * binding for each that does not hold. */
static void
check_bindings(struct gate_result *gr, const struct generation *c,
    struct relverdict *v)
{
	struct today t = { gr, c->rel, "" };
	const struct relverdict_change *ch;
	char where[64];
	size_t i;

	relverdict_bindings(v, c->doc.root, &today_ops, &t);
	for (i = 0; i < v->nchanges; i++) {
		ch = &v->changes[i];
		if (ch->kind == RVC_BAD_PATH)
			continue;	/* a G10.path error already */
		doc_where(&c->doc, ch->ptr, where, sizeof where);
		gate_add(gr, SEV_STALE, "G10.bindings", c->rel, where, "%s",
		    ch->message);
	}
	if (v->more > 0)
		gate_add(gr, SEV_STALE, "G10.bindings", c->rel, "", "%zu more "
		    "bindings do not hold", v->more);
}

int
g10_release_bindings(struct eval *ev, long n, const json_t *manifest,
    struct relverdict *v)
{
	struct gate_result scratch;
	struct today t = { &scratch, NULL, "" };
	char *rel = xasprintf("%s/%ld/release-manifest.json", GENS, n);

	/* A result of G10's own, whose findings (a path that leads outside,
	 * said in the verdict too) are dropped. */
	memset(&scratch, 0, sizeof scratch);
	scratch.def = &gate_table[GATE_COUNT - 1];
	scratch.index = GATE_COUNT - 1;
	scratch.ev = ev;
	t.manifest = rel;
	relverdict_bindings(v, manifest, &today_ops, &t);
	finding_list_release(&scratch.findings);
	json_decref(scratch.check_counts);
	json_decref(scratch.marks);
	while (scratch.ninputs > 0)
		free(scratch.inputs[--scratch.ninputs].rel);
	free(scratch.inputs);
	free(rel);
	return 0;
}

static void
check_rollback(struct gate_result *gr, const struct keyring *kr,
    const struct generation *c, const long *gens, size_t ngens)
{
	json_t *prev = json_object_get(c->doc.root, "previous_generation");
	struct generation p;
	bool exists = false;
	size_t i;

	if (c->n < 2)
		return;
	if (!json_is_integer(prev)) {
		gate_add(gr, SEV_ERROR, "G10.rollback", c->rel,
		    "/previous_generation", "generation %ld names no "
		    "previous_generation to roll back to", c->n);
		return;
	}
	for (i = 0; i < ngens; i++)
		exists |= gens[i] == json_integer_value(prev);
	if (!exists || json_integer_value(prev) >= c->n) {
		gate_add(gr, SEV_ERROR, "G10.rollback", c->rel,
		    "/previous_generation", "previous_generation %lld does not "
		    "exist", (long long)json_integer_value(prev));
		return;
	}
	load_generation(gr, kr, (long)json_integer_value(prev), &p, false);
	if (!p.parsed || p.signer == NULL)
		gate_add(gr, SEV_ERROR, "G10.rollback", p.rel, "",
		    "rollback target generation %ld does not %s", p.n,
		    p.parsed ? "verify" : "parse");
	release_generation(&p);
}

/* current's manifest's observation_window_h, or NAN. */
static double
window_of(struct gate_result *gr, long current)
{
	char rel[96];
	const struct artifact *a;
	json_t *doc, *w;
	double h = NAN;

	snprintf(rel, sizeof rel, GENS "/%ld/release-manifest.json", current);
	if ((a = artifact_raw(gr, rel)) == NULL)
		return NAN;
	doc = json_loadb(a->data, a->size, 0, NULL);
	if (json_is_number(w = json_object_get(doc, "observation_window_h")))
		h = json_number_value(w);
	json_decref(doc);
	return h;
}

/*
 * What the last switch's record says beyond where it went (release.md
 * §6): a promote made without a chip step, in the approver's words; and
 * while current is inside its observation window, the generation it
 * replaced must still be there for a rollback.
 */
static void
check_last_switch(struct gate_result *gr, const struct audit_state *st,
    long current, const long *gens, size_t ngens)
{
	double h, until;
	char when[32];
	size_t i;

	if (st->last_switch_chip == RELCHIP_SKIPPED)
		gate_add(gr, SEV_WARN, "G10.audit", REL "/audit.jsonl", "",
		    "generation %ld was promoted without a chip step: \"%s\"",
		    current, st->last_switch_skipped);
	h = window_of(gr, current);
	if (st->last_switch_from < 1 || isnan(h) || h <= 0)
		return;
	until = st->last_switch_ts + h * 3600;
	if ((double)time(NULL) >= until)
		return;
	for (i = 0; i < ngens && gens[i] != st->last_switch_from; i++)
		;
	if (i < ngens)
		return;
	relstate_iso(until, when, sizeof when);
	gate_add(gr, SEV_ERROR, "G10.rollback", GENS, "",
	    "generation %lld is missing, but it is kept until %s: generation "
	    "%ld's observation window (%g h) is not over, and a rollback goes "
	    "to it", st->last_switch_from, when, current, h);
}

static void
check_audit(struct gate_result *gr, const struct keyring *kr, long current,
    const long *gens, size_t ngens)
{
	const struct artifact *a = artifact_raw(gr, REL "/audit.jsonl");
	struct audit_state st;
	char where[32];

	if (a == NULL) {
		gate_add(gr, SEV_ERROR, "G10.audit", REL "/audit.jsonl", "",
		    "audit.jsonl is missing");
		return;
	}
	if (relaudit_verify(a->data, a->size, kr, &st) != 0) {
		snprintf(where, sizeof where, "%zu:1", st.bad_line);
		gate_add(gr, SEV_ERROR, "G10.audit", a->rel, where,
		    "audit chain broken at record %zu: %s", st.bad_line,
		    st.problem);
	} else if (current >= 1 && st.last_switch_to != current)
		gate_add(gr, SEV_ERROR, "G10.audit", a->rel, "",
		    "the last promote/rollback went to %lld but 'current' is "
		    "generation %ld: the log was cut or 'current' moved outside "
		    "calops", st.last_switch_to, current);
	else if (current >= 1)
		check_last_switch(gr, &st, current, gens, ngens);
}

static bool
is_revoked(const struct revoked *r, long n)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i] == n)
			return true;
	return false;
}

/* revocations.json (release.md §4): trusted only when its signature
 * verifies.  Absent, nothing is revoked, and G10.revoked holds. */
static void
load_revocations(struct gate_result *gr, const struct keyring *kr,
    struct revoked *r)
{
	const struct artifact *a, *sig;
	json_t *list, *e;
	const char *s;
	json_int_t n;
	size_t i;
	char *ptr;

	memset(r, 0, sizeof *r);
	if ((a = artifact_doc(gr, REVOCATIONS)) == NULL)
		return;		/* absent, or a G10.parse error */
	sig = artifact_raw(gr, REVOCATIONS ".sig");
	if (sig == NULL || keyring_verify(kr, NULL, a->data, a->size,
	    sig->data, sig->size) == NULL) {
		gate_add(gr, SEV_ERROR, "G10.revoked", REVOCATIONS, "",
		    "revocations.json has no signature that verifies with a "
		    "trusted key: no revocation in it is trusted");
		return;
	}
	if ((s = query_str(gr, "G10.revoked", a, a->doc.root, "", "schema")) !=
	    NULL && strcmp(s, "calops-revocations/v1") != 0)
		query_gate_at(gr, SEV_ERROR, "G10.revoked", a, "/schema",
		    "schema is '%s', not 'calops-revocations/v1'", s);
	if ((list = query_array(gr, "G10.revoked", a, a->doc.root, "",
	    "revoked")) == NULL)
		return;
	json_array_foreach(list, i, e) {
		ptr = doc_ptr_index("/revoked", i);
		if (query_int(gr, "G10.revoked", a, e, ptr, "generation", &n)) {
			r->v = xreallocarray(r->v, r->n + 1, sizeof *r->v);
			r->v[r->n++] = (long)n;
		}
		free(ptr);
	}
}

static void
check_upstream(struct eval *ev, struct gate_result *gr)
{
	size_t i;

	for (i = 0; i < GATE_COUNT - 1; i++) {
		if (ev->gates[i].status != GS_PASS) {
			gate_add(gr, SEV_ERROR, "G10.upstream", "", "",
			    "%s is %s: no release until every gate passes",
			    ev->gates[i].def->id,
			    gate_status_name(ev->gates[i].status));
			return;
		}
	}
}

void
g10_release(struct eval *ev, struct gate_result *gr)
{
	struct keyring kr = { NULL, 0 };
	struct generation cand;
	struct relverdict v;
	struct revoked rev;
	long *gens, current;
	size_t n, c;

	/* Each of these is an error when its input is missing, and an absent
	 * revocations.json revokes nothing: all judged once the gate runs. */
	gate_judged(gr, "G10.signature", "G10.current", "G10.audit",
	    "G10.revoked", "G10.decision", "G10.upstream", NULL);
	load_keys(gr, &kr);
	load_revocations(gr, &kr, &rev);
	gens = list_generations(gr, &n);
	/* The candidate: the highest generation not revoked. */
	for (c = n; c > 0 && is_revoked(&rev, gens[c - 1]); c--)
		continue;
	if (n == 0)
		gate_add(gr, SEV_ERROR, "G10.signature", GENS, "",
		    "no generation to release");
	else if (c == 0)
		gate_add(gr, SEV_ERROR, "G10.signature", REVOCATIONS, "",
		    "every generation is revoked: nothing to release");
	else {
		/* The candidate's verdict (relverdict.h), judged part by part
		 * as the release commands judge it: each part that does not
		 * hold is a finding of G10.signature or G10.bindings, in the
		 * verdict's words. */
		load_generation(gr, &kr, gens[c - 1], &cand, true);
		relverdict_init(&v, cand.n, true);
		check_signature(gr, &cand, &v);
		if (cand.parsed) {
			gate_judged(gr, "G10.bindings", "G10.rollback", NULL);
			check_bindings(gr, &cand, &v);
			check_rollback(gr, &kr, &cand, gens, c);
		}
		relverdict_release(&v);
		release_generation(&cand);
	}
	current = check_current(gr, &kr);
	if (current >= 1 && is_revoked(&rev, current))
		gate_add(gr, SEV_ERROR, "G10.revoked", REL "/current", "",
		    "'current' points to generation %ld, which is revoked: roll "
		    "back or forward to one that is not", current);
	free(rev.v);
	check_audit(gr, &kr, current, gens, n);
	if (!artifact_exists(gr, REL "/decision.md", NULL))
		gate_add(gr, SEV_ERROR, "G10.decision", REL "/decision.md", "",
		    "decision.md is missing: the release decision is unrecorded");
	check_upstream(ev, gr);
	free(gens);
	keyring_release(&kr);
}

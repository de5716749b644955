/* relaudit.c: the audit log's verification (relaudit.h). */
#include "calops.h"

#include <pthread.h>
#include <unistd.h>

#include <jansson.h>

#include "release/relaudit.h"
#include "release/relrecord.h"
#include "ws/hash.h"

#define ZERO_HASH "0000000000000000000000000000000000000000000000000000000000000000"

static const char *const audit_members[] = { "seq", "ts", "actor", "key_id",
    "action", "from", "to", "reason", "prev_sha256", "sig" };
/* Where v3's chip_step goes when a record has it: after reason. */
#define CHIP_STEP_AT	8

static int
bad(struct audit_state *st, size_t line, const char *fmt, ...)
    PRINTFLIKE(3, 4);

static int
bad(struct audit_state *st, size_t line, const char *fmt, ...)
{
	va_list ap;

	st->bad_line = line;
	va_start(ap, fmt);
	vsnprintf(st->problem, sizeof st->problem, fmt, ap);
	va_end(ap);
	return -1;
}

/* The members in release.md's order, and nothing else: the ten of v2, or
 * those with chip_step after reason (v3). */
static bool
members_in_order(json_t *o)
{
	bool chip = json_object_get(o, "chip_step") != NULL;
	const char *key;
	json_t *v;
	size_t i = 0, at = 0;

	if (json_object_size(o) != nitems(audit_members) + chip)
		return false;
	json_object_foreach(o, key, v) {
		(void)v;
		if (chip && at++ == CHIP_STEP_AT) {
			if (strcmp(key, "chip_step") != 0)
				return false;
			continue;
		}
		if (strcmp(key, audit_members[i++]) != 0)
			return false;
	}
	return true;
}

/* The members' types: from null before the first switch, to null only in
 * a refusal that named no target. */
static bool
types_ok(json_t *o, const char *action)
{
	json_t *from = json_object_get(o, "from"), *to = json_object_get(o, "to");

	return json_is_number(json_object_get(o, "ts")) &&
	    json_is_string(json_object_get(o, "actor")) &&
	    json_is_string(json_object_get(o, "key_id")) &&
	    json_is_string(json_object_get(o, "reason")) &&
	    json_is_string(json_object_get(o, "sig")) &&
	    (json_is_null(from) || json_is_integer(from)) &&
	    (json_is_integer(to) ||
	    (json_is_null(to) && strcmp(action, "refused") == 0));
}

/* A record whose form and place in the chain hold, its signature still to
 * be checked (so that a long log's signatures can be checked at once on
 * every CPU), and what it leaves the state as once it does. */
struct pending {
	char		*signed_bytes;
	char		*sig;
	char		*key_id;
	bool		 verified;
	bool		 is_switch;
	enum relchip_kind chip;
	char		*skipped;	/* chip_step's skipped, or NULL */
	char		*job;		/* chip_step's job, or NULL */
	long long	 to, from;
	double		 ts;
	char		 hash[65];	/* of its line */
};

static void
pending_release(struct pending *p)
{
	free(p->signed_bytes);
	free(p->sig);
	free(p->key_id);
	free(p->skipped);
	free(p->job);
	memset(p, 0, sizeof *p);
}

/*
 * Check one record's form and its place after st (line NUL-terminated, len
 * bytes); 0 with *p filled in (its signature not yet checked), or -1 said
 * in st.
 */
static int
record_form(const char *line, size_t len, size_t lineno,
    struct audit_state *st, struct pending *p)
{
	const char *action = NULL, *sig, *key_id;
	struct relchip chip = { 0 };
	char why[128];
	json_error_t je;
	size_t tail;
	json_t *o;
	int rc = 0;

	o = json_loadb(line, len, JSON_PRESERVE_ORDER | JSON_REJECT_DUPLICATES,
	    &je);
	if (o == NULL || !json_is_object(o)) {
		json_decref(o);
		return bad(st, lineno, "not a JSON object");
	}
	if (!members_in_order(o))
		rc = bad(st, lineno, "members are not seq,ts,actor,key_id,action,"
		    "from,to,reason,[chip_step,]prev_sha256,sig");
	else if (json_integer_value(json_object_get(o, "seq")) !=
	    (json_int_t)st->records + 1)
		rc = bad(st, lineno, "seq is not %zu", st->records + 1);
	else if (!json_is_string(json_object_get(o, "prev_sha256")) ||
	    strcmp(json_string_value(json_object_get(o, "prev_sha256")),
	    st->last_line_sha256) != 0)
		rc = bad(st, lineno, "prev_sha256 does not match the previous "
		    "line: the log was edited or cut");
	else if ((action = json_string_value(json_object_get(o, "action"))) ==
	    NULL || (strcmp(action, "promote") != 0 &&
	    strcmp(action, "rollback") != 0 && strcmp(action, "refused") != 0))
		rc = bad(st, lineno, "action is not promote, rollback or refused");
	else if (!types_ok(o, action))
		rc = bad(st, lineno, "a member has the wrong type");
	else if (json_object_get(o, "chip_step") != NULL &&
	    strcmp(action, "refused") == 0)
		rc = bad(st, lineno, "a refused record has no chip_step");
	else if (json_object_get(o, "chip_step") != NULL &&
	    relrecord_chip_parse(json_object_get(o, "chip_step"), &chip, why,
	    sizeof why) != 0)
		rc = bad(st, lineno, "%s", why);
	if (rc != 0)
		goto out;
	sig = json_string_value(json_object_get(o, "sig"));
	key_id = json_string_value(json_object_get(o, "key_id"));

	/*
	 * The signed bytes end where the last member begins, so the line must
	 * end in exactly ',"sig":"<sig>"}' (compact, nothing escaped).
	 */
	tail = strlen(",\"sig\":\"") + strlen(sig) + strlen("\"}");
	if (len < tail || strncmp(line + len - tail, ",\"sig\":\"", 8) != 0 ||
	    strncmp(line + len - tail + 8, sig, strlen(sig)) != 0 ||
	    strcmp(line + len - 2, "\"}") != 0) {
		rc = bad(st, lineno, "the record does not end in its signature");
		goto out;
	}
	memset(p, 0, sizeof *p);
	p->signed_bytes = xasprintf("%.*s}", (int)(len - tail), line);
	p->sig = xstrdup(sig);
	p->key_id = xstrdup(key_id);
	if ((p->is_switch = strcmp(action, "refused") != 0)) {
		p->to = json_is_integer(json_object_get(o, "to")) ?
		    json_integer_value(json_object_get(o, "to")) : -1;
		p->ts = json_number_value(json_object_get(o, "ts"));
		p->from = json_is_integer(json_object_get(o, "from")) ?
		    json_integer_value(json_object_get(o, "from")) : -1;
		p->chip = chip.kind;
		if (chip.skipped != NULL)
			p->skipped = xstrdup(chip.skipped);
		if (chip.job != NULL)
			p->job = xstrdup(chip.job);
	}
	hash_bytes(line, len, p->hash);
out:
	relrecord_chip_free(&chip);
	json_decref(o);
	return rc;
}

static bool
pending_verify(const struct pending *p, const struct keyring *kr)
{
	return keyring_verify(kr, p->key_id, p->signed_bytes,
	    strlen(p->signed_bytes), p->sig, strlen(p->sig)) != NULL;
}

/* st past a record whose signature verified. */
static void
advance(struct audit_state *st, const struct pending *p)
{
	memcpy(st->last_line_sha256, p->hash, sizeof st->last_line_sha256);
	st->records++;
	if (p->is_switch) {
		st->last_switch_to = p->to;
		st->last_switch_ts = p->ts;
		st->last_switch_from = p->from;
		st->last_switch_chip = p->chip;
		snprintf(st->last_switch_skipped,
		    sizeof st->last_switch_skipped, "%s", p->skipped != NULL ?
		    p->skipped : "");
		snprintf(st->last_switch_job, sizeof st->last_switch_job, "%s",
		    p->job != NULL ? p->job : "");
	}
}

/* Check one record whole; line is NUL-terminated, len bytes. */
static int
record(const char *line, size_t len, size_t lineno, const struct keyring *kr,
    struct audit_state *st)
{
	struct pending p;

	if (record_form(line, len, lineno, st, &p) != 0)
		return -1;
	if (!pending_verify(&p, kr)) {
		bad(st, lineno, "signature does not verify with trusted key "
		    "'%s'", p.key_id);
		pending_release(&p);
		return -1;
	}
	advance(st, &p);
	pending_release(&p);
	return 0;
}

/* ---- every signature of a log at once ---- */

/* Below this many records one thread checks them all: a thread costs more
 * than the few signatures it would take. */
#define PARALLEL_MIN	32
#define THREADS_MAX	8

struct sigwork {
	struct pending		*v;
	size_t			 n, first, step;
	const struct keyring	*kr;
};

static void *
sigwork_run(void *arg)
{
	struct sigwork *w = arg;
	size_t i;

	for (i = w->first; i < w->n; i += w->step)
		w->v[i].verified = pending_verify(&w->v[i], w->kr);
	return NULL;
}

/* Check the signatures of v[0..n), on as many CPUs as there are. */
static void
verify_all(struct pending *v, size_t n, const struct keyring *kr)
{
	struct sigwork w[THREADS_MAX];
	pthread_t th[THREADS_MAX];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t t, nt = cpus > 1 ? (size_t)cpus : 1;
	bool started[THREADS_MAX] = { false };

	if (nt > THREADS_MAX)
		nt = THREADS_MAX;
	if (n < PARALLEL_MIN || nt == 1)
		nt = 1;
	for (t = 0; t < nt; t++) {
		w[t] = (struct sigwork){ v, n, t, nt, kr };
		/* The first share is this thread's; a thread that cannot
		 * start leaves its share to this one too. */
		if (t > 0)
			started[t] = pthread_create(&th[t], NULL, sigwork_run,
			    &w[t]) == 0;
	}
	sigwork_run(&w[0]);
	for (t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		else
			sigwork_run(&w[t]);
	}
}

/*
 * Two passes: every record's form and place in the chain, in order, up to
 * the first that is wrong; then their signatures, at once; the first
 * broken link is the earlier of the two.
 */
int
relaudit_verify(const char *data, size_t len, const struct keyring *kr,
    struct audit_state *st)
{
	return relaudit_verify_known(data, len, kr, NULL, st);
}

/* What a switch record (line, len bytes, its form checked before) leaves
 * the state as: its to, from, ts and chip step.  false when it is a
 * refusal, which leaves it as it was. */
static bool
switch_of(const char *line, size_t len, struct audit_state *st)
{
	struct relchip chip = { 0 };
	const char *action;
	char why[128];
	json_t *o = json_loadb(line, len, 0, NULL), *v;

	action = json_string_value(json_object_get(o, "action"));
	if (action == NULL || strcmp(action, "refused") == 0) {
		json_decref(o);
		return false;
	}
	st->last_switch_to = json_is_integer(v = json_object_get(o, "to")) ?
	    json_integer_value(v) : -1;
	st->last_switch_from = json_is_integer(v = json_object_get(o,
	    "from")) ? json_integer_value(v) : -1;
	st->last_switch_ts = json_number_value(json_object_get(o, "ts"));
	if ((v = json_object_get(o, "chip_step")) != NULL &&
	    relrecord_chip_parse(v, &chip, why, sizeof why) == 0) {
		st->last_switch_chip = chip.kind;
		snprintf(st->last_switch_skipped,
		    sizeof st->last_switch_skipped, "%s", chip.skipped !=
		    NULL ? chip.skipped : "");
		snprintf(st->last_switch_job, sizeof st->last_switch_job, "%s",
		    chip.job != NULL ? chip.job : "");
	}
	relrecord_chip_free(&chip);
	json_decref(o);
	return true;
}

/*
 * The state after the first k->records lines of data, which verified
 * before (relcache.h), when those k->bytes bytes still hash to k->sha256:
 * then nothing in them is parsed or checked again but the last switch
 * record, for what it says.  false (st untouched) when they do not.
 */
static bool
known_prefix(const char *data, size_t len, const struct relaudit_known *k,
    struct audit_state *st)
{
	const char *p, *end, *last;
	char hex[65];
	size_t lines = 0;

	if (k == NULL || k->records == 0 || k->bytes == 0 || k->bytes > len ||
	    data[k->bytes - 1] != '\n')
		return false;
	for (p = data, end = data + k->bytes; p < end && (p = memchr(p, '\n',
	    (size_t)(end - p))) != NULL; p++)
		lines++;
	hash_bytes(data, k->bytes, hex);
	if (lines != k->records || strcmp(hex, k->sha256) != 0)
		return false;
	st->records = k->records;
	/* Its lines, from the last back to the last switch. */
	for (end = data + k->bytes - 1; end > data; end = last - 1) {
		for (last = end; last > data && last[-1] != '\n'; last--)
			;
		if (end == data + k->bytes - 1)
			hash_bytes(last, (size_t)(end - last),
			    st->last_line_sha256);
		if (switch_of(last, (size_t)(end - last), st) || last == data)
			break;
	}
	return true;
}

int
relaudit_verify_known(const char *data, size_t len, const struct keyring *kr,
    const struct relaudit_known *known, struct audit_state *st)
{
	struct audit_state form, base;
	struct pending *v = NULL;
	size_t start = 0, end, lineno, n = 0, alloc = 0, i;
	char *line;
	int rc = 0;

	memset(&base, 0, sizeof base);
	base.last_switch_to = base.last_switch_from = -1;
	memcpy(base.last_line_sha256, ZERO_HASH, sizeof base.last_line_sha256);
	/* What verified before is not checked again: only what follows. */
	if (known_prefix(data, len, known, &base))
		start = known->bytes;
	form = base;
	lineno = base.records;
	while (start < len && rc == 0) {
		const char *nl = memchr(data + start, '\n', len - start);

		lineno++;
		if (nl == NULL) {
			rc = bad(&form, lineno, "the last record has no "
			    "newline: the log was cut");
			break;
		}
		end = (size_t)(nl - data);
		if (n == alloc) {
			alloc = alloc == 0 ? 64 : alloc * 2;
			v = xreallocarray(v, alloc, sizeof *v);
		}
		line = xstrndup(data + start, end - start);
		if (strlen(line) != end - start)
			rc = bad(&form, lineno, "a NUL byte inside a record");
		else if ((rc = record_form(line, end - start, lineno, &form,
		    &v[n])) == 0) {
			/* Its place holds: the next is checked after it. */
			memcpy(form.last_line_sha256, v[n].hash,
			    sizeof form.last_line_sha256);
			form.records++;
			n++;
		}
		free(line);
		start = end + 1;
	}
	verify_all(v, n, kr);
	*st = base;
	for (i = 0; i < n && v[i].verified; i++)
		advance(st, &v[i]);
	if (i < n)
		rc = bad(st, base.records + i + 1, "signature does not verify "
		    "with trusted key '%s'", v[i].key_id);
	else if (rc != 0)
		rc = bad(st, form.bad_line, "%s", form.problem);
	for (i = 0; i < n; i++)
		pending_release(&v[i]);
	free(v);
	return rc;
}

int
relaudit_verify_next(const char *line, size_t len,
    const struct keyring *kr, struct audit_state *st)
{
	char *copy;
	int rc;

	if (memchr(line, '\0', len) != NULL || memchr(line, '\n', len) != NULL)
		return bad(st, st->records + 1, "a record is one line of text");
	copy = xstrndup(line, len);
	if ((rc = record(copy, len, st->records + 1, kr, st)) == 0) {
		st->bad_line = 0;
		st->problem[0] = '\0';
	}
	free(copy);
	return rc;
}

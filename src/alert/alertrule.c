/* alertrule.c: the alert rules of a lab (see alertrule.h). */
#include "calops.h"

#include <ctype.h>
#include <math.h>

#include "alert/alerthook.h"
#include "alert/alertrule.h"
#include "base/doc.h"
#include "base/docfile.h"

/*
 * The kinds, and the rule each one makes by default: soak-minded, so that
 * a one-minute breach of the SLA speaks (the Soak screen's ALERT_OPEN_S),
 * a link that drops for a keepalive or two does not, and nothing repeats
 * more than once in ten minutes.  gate.changed is not a default: on a
 * working day it says every edit.
 */
static const struct kind_def {
	const char		*name;
	enum alert_severity	 severity;
	double			 for_s, repeat_s;
	double			 threshold;
	bool			 below, event, deflt;
} kinds[ALERT_KIND_COUNT] = {
	[ALERT_SLA_TTFT] = { "sla.ttft_p99", ALERT_CRITICAL, 60, 600, NAN,
	    false, false, true },
	[ALERT_SLA_TPOT] = { "sla.tpot_p99", ALERT_CRITICAL, 60, 600, NAN,
	    false, false, true },
	[ALERT_SLA_SUCCESS] = { "sla.success_rate", ALERT_CRITICAL, 60, 600,
	    NAN, true, false, true },
	[ALERT_LEAK] = { "leak", ALERT_CRITICAL, 0, 600, NAN, false, false,
	    true },
	[ALERT_ERRORS] = { "errors.rate", ALERT_WARNING, 60, 600, 10, false,
	    false, true },
	[ALERT_RESETS] = { "resets.rate", ALERT_WARNING, 0, 600, 1, false,
	    false, true },
	[ALERT_JOB] = { "job.failed", ALERT_WARNING, 0, 0, NAN, false, true,
	    true },
	[ALERT_HOST] = { "host.down", ALERT_CRITICAL, 120, 600, NAN, false,
	    false, true },
	[ALERT_DISK] = { "disk.full", ALERT_CRITICAL, 0, 600, NAN, false,
	    false, true },
	[ALERT_GATE_RED] = { "gate.red", ALERT_WARNING, 0, 0, NAN, false,
	    false, true },
	[ALERT_GATE_CHANGED] = { "gate.changed", ALERT_INFO, 0, 0, NAN, false,
	    true, false },
};

static const char *const severities[] = {
	[ALERT_CRITICAL] = "critical",
	[ALERT_WARNING] = "warning",
	[ALERT_INFO] = "info",
};

static const char *const rule_keys[] = { "name", "kind", "severity", "for",
    "repeat", "threshold" };

/* What a parse needs at hand for its messages. */
struct ruleparse {
	const struct doc	*d;
	const char		*source;
	char			*err;
	size_t			 errlen;
};

#define RERR(p, ptr, ...) \
	docfile_error((p)->err, (p)->errlen, (p)->source, (p)->d, (ptr), \
	    __VA_ARGS__)

const char *
alertrule_kind_name(enum alert_kind k)
{
	return kinds[k].name;
}

const char *
alertrule_severity_name(enum alert_severity s)
{
	return severities[s];
}

bool
alertrule_kind_event(enum alert_kind k)
{
	return kinds[k].event;
}

bool
alertrule_kind_tool_time(enum alert_kind k)
{
	return k <= ALERT_RESETS;
}

bool
alertrule_kind_below(enum alert_kind k)
{
	return kinds[k].below;
}

double
alertrule_kind_threshold(enum alert_kind k)
{
	return kinds[k].threshold;
}

static void
rule_init(struct alertrule *r, enum alert_kind k)
{
	r->name = xstrdup(kinds[k].name);
	r->kind = k;
	r->severity = kinds[k].severity;
	r->for_s = kinds[k].for_s;
	r->repeat_s = kinds[k].repeat_s;
	r->threshold = kinds[k].threshold;
}

void
alertrule_defaults(struct alertconf *conf)
{
	int k;

	alertrule_release(conf);
	conf->rules = xcalloc(ALERT_KIND_COUNT, sizeof *conf->rules);
	for (k = 0; k < ALERT_KIND_COUNT; k++)
		if (kinds[k].deflt)
			rule_init(&conf->rules[conf->nrules++], k);
}

/* A rule's name: what a receiver groups by, so plain and short. */
static bool
name_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > ALERTRULE_NAME_MAX || strlen(s) != len)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("._-", s[i]) ==
		    NULL)
			return false;
	return true;
}

/* A string member that must be one of names[n]: its index into *out. */
static int
get_enum(struct ruleparse *p, json_t *obj, const char *ptr, const char *key,
    const char *const *names, size_t n, int *out)
{
	json_t *v = json_object_get(obj, key);
	char *kp = doc_ptr_key(ptr, key);
	size_t i;

	for (i = 0; json_is_string(v) && i < n; i++)
		if (names[i] != NULL && strcmp(json_string_value(v), names[i])
		    == 0)
			break;
	if (!json_is_string(v) || i == n) {
		if (json_is_string(v))
			RERR(p, kp, "unknown %s '%s'", key,
			    json_string_value(v));
		else
			RERR(p, kp, "'%s' must be a string, not %s", key,
			    docfile_kind_name(v));
		free(kp);
		return -1;
	}
	free(kp);
	*out = (int)i;
	return 0;
}

/* A number member in [lo, hi] into *out, left alone when absent. */
static int
get_number(struct ruleparse *p, json_t *obj, const char *ptr, const char *key,
    double lo, double hi, double *out)
{
	json_t *v = json_object_get(obj, key);
	char *kp;
	double x;

	if (v == NULL)
		return 0;
	kp = doc_ptr_key(ptr, key);
	x = json_number_value(v);
	if (!json_is_number(v) || !isfinite(x) || x < lo || x > hi) {
		if (json_is_number(v))
			RERR(p, kp, "'%s' must be from %g to %g, not %g", key,
			    lo, hi, x);
		else
			RERR(p, kp, "'%s' must be a number, not %s", key,
			    docfile_kind_name(v));
		free(kp);
		return -1;
	}
	free(kp);
	*out = x;
	return 0;
}

/* The name: member, or the kind's name; unique among rules[0 .. n). */
static int
rule_name(struct ruleparse *p, json_t *obj, const char *ptr,
    struct alertconf *conf, struct alertrule *r)
{
	json_t *v = json_object_get(obj, "name");
	char *kp = doc_ptr_key(ptr, v != NULL ? "name" : "kind");
	size_t i;
	int rc = -1;

	if (v != NULL && (!json_is_string(v) || !name_ok(json_string_value(v),
	    json_string_length(v))))
		RERR(p, kp, "'name' must be 1 to %d of A-Z a-z 0-9 . _ -",
		    ALERTRULE_NAME_MAX);
	else {
		free(r->name);
		r->name = xstrdup(v != NULL ? json_string_value(v) :
		    kinds[r->kind].name);
		for (i = 0; i < conf->nrules && strcmp(conf->rules[i].name,
		    r->name) != 0; i++)
			;
		if (i < conf->nrules)
			RERR(p, kp, "a rule named '%s' is given twice%s",
			    r->name, v == NULL ? ": give each one a 'name'" :
			    "");
		else
			rc = 0;
	}
	free(kp);
	return rc;
}

static int
parse_rule(struct ruleparse *p, struct alertconf *conf, json_t *obj,
    const char *ptr)
{
	struct alertrule *r = &conf->rules[conf->nrules];
	const char *names[ALERT_KIND_COUNT];
	int k, sev = 0;

	if (!json_is_object(obj)) {
		RERR(p, ptr, "a rule must be a mapping, not %s",
		    docfile_kind_name(obj));
		return -1;
	}
	for (k = 0; k < ALERT_KIND_COUNT; k++)
		names[k] = kinds[k].name;
	if (docfile_check_keys(p->err, p->errlen, p->source, p->d, obj, ptr,
	    rule_keys, nitems(rule_keys)) != 0)
		return -1;
	if (json_object_get(obj, "kind") == NULL) {
		RERR(p, ptr, "a rule needs a 'kind'");
		return -1;
	}
	if (get_enum(p, obj, ptr, "kind", names, nitems(names), &k) != 0)
		return -1;
	rule_init(r, k);
	if (rule_name(p, obj, ptr, conf, r) != 0 ||
	    (json_object_get(obj, "severity") != NULL && get_enum(p, obj, ptr,
	    "severity", severities, nitems(severities), &sev) != 0) ||
	    get_number(p, obj, ptr, "for", 0, ALERTRULE_FOR_MAX, &r->for_s) !=
	    0 || get_number(p, obj, ptr, "repeat", 0, ALERTRULE_FOR_MAX,
	    &r->repeat_s) != 0 || get_number(p, obj, ptr, "threshold",
	    -1e300, 1e300, &r->threshold) != 0) {
		free(r->name);
		return -1;
	}
	if (json_object_get(obj, "severity") != NULL)
		r->severity = sev;
	conf->nrules++;
	return 0;
}

static void
timing_defaults(struct alertconf *conf)
{
	conf->timeout_s = ALERTHOOK_TIMEOUT_MS / 1000.0;
	conf->backoff_s = ALERTHOOK_BACKOFF_MS / 1000.0;
	conf->tries = ALERTHOOK_TRIES;
}

int
alertrule_parse_timing(struct alertconf *conf, const struct doc *d,
    const char *source, json_t *v, const char *ptr, char *err, size_t errlen)
{
	struct ruleparse p = { d, source, err, errlen };
	double tries = conf->tries;

	conf->timing_given |= (json_object_get(v, "timeout") != NULL ?
	    ALERTCONF_TIMEOUT : 0) | (json_object_get(v, "backoff") != NULL ?
	    ALERTCONF_BACKOFF : 0) | (json_object_get(v, "tries") != NULL ?
	    ALERTCONF_TRIES : 0);
	if (get_number(&p, v, ptr, "timeout", 1, ALERTRULE_TIMEOUT_MAX,
	    &conf->timeout_s) != 0 || get_number(&p, v, ptr, "backoff", 0.1,
	    ALERTHOOK_BACKOFF_MAX_MS / 1000.0, &conf->backoff_s) != 0 ||
	    get_number(&p, v, ptr, "tries", 1, ALERTRULE_TRIES_MAX, &tries) !=
	    0)
		return -1;
	if (tries != floor(tries)) {
		char *kp = doc_ptr_key(ptr, "tries");

		RERR(&p, kp, "'tries' must be a whole number, not %g", tries);
		free(kp);
		return -1;
	}
	conf->tries = (unsigned)tries;
	return 0;
}

int
alertrule_parse(struct alertconf *conf, const struct doc *d,
    const char *source, json_t *v, const char *ptr, char *err, size_t errlen)
{
	struct ruleparse p = { d, source, err, errlen };
	json_t *obj;
	char *ip;
	size_t i;
	int rc = 0;

	memset(conf, 0, sizeof *conf);
	if (v == NULL) {
		alertrule_defaults(conf);
		timing_defaults(conf);
		return 0;
	}
	timing_defaults(conf);
	conf->rules_given = true;
	if (!json_is_array(v) || json_array_size(v) > ALERTRULE_MAX) {
		if (json_is_array(v))
			RERR(&p, ptr, "at most %d rules", ALERTRULE_MAX);
		else
			RERR(&p, ptr, "'rules' must be a list, not %s",
			    docfile_kind_name(v));
		return -1;
	}
	conf->rules = xcalloc(json_array_size(v) + 1, sizeof *conf->rules);
	json_array_foreach(v, i, obj) {
		ip = doc_ptr_index(ptr, i);
		rc = parse_rule(&p, conf, obj, ip);
		free(ip);
		if (rc != 0)
			break;
	}
	if (rc != 0)
		alertrule_release(conf);
	return rc;
}

void
alertrule_release(struct alertconf *conf)
{
	size_t i;

	for (i = 0; i < conf->nrules; i++)
		free(conf->rules[i].name);
	free(conf->rules);
	memset(conf, 0, sizeof *conf);
}

/* under's timing where over gave none. */
static void
merge_timing(struct alertconf *over, const struct alertconf *under)
{
	unsigned take = under->timing_given & ~over->timing_given;

	if (take & ALERTCONF_TIMEOUT)
		over->timeout_s = under->timeout_s;
	if (take & ALERTCONF_BACKOFF)
		over->backoff_s = under->backoff_s;
	if (take & ALERTCONF_TRIES)
		over->tries = under->tries;
	over->timing_given |= take;
}

void
alertrule_merge(struct alertconf *over, struct alertconf *under)
{
	size_t i;

	merge_timing(over, under);
	if (under->rules_given && !over->rules_given) {
		/* over's rules are the defaults: under's say more. */
		for (i = 0; i < over->nrules; i++)
			free(over->rules[i].name);
		free(over->rules);
		over->rules = under->rules;
		over->nrules = under->nrules;
		under->rules = NULL;
		under->nrules = 0;
	} else if (under->rules_given) {
		over->rules = xreallocarray(over->rules, over->nrules +
		    under->nrules + 1, sizeof *over->rules);
		for (i = 0; i < under->nrules; i++) {
			if (alertrule_find(over, under->rules[i].name) != NULL)
				continue;
			over->rules[over->nrules++] = under->rules[i];
			under->rules[i].name = NULL;
		}
	}
	alertrule_release(under);
}

const struct alertrule *
alertrule_find(const struct alertconf *conf, const char *name)
{
	size_t i;

	for (i = 0; i < conf->nrules; i++)
		if (strcmp(conf->rules[i].name, name) == 0)
			return &conf->rules[i];
	return NULL;
}

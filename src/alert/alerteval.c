/* alerteval.c: the rules of a lab judged over time (see alerteval.h). */
#include "calops.h"

#include <math.h>

#include "alert/alerteval.h"
#include "alert/alertrule.h"
#include "base/buf.h"

/* One rule on one subject and where its breach stands. */
struct tracker {
	size_t		 rule;		/* into conf->rules */
	char		*host, *job, *workspace, *metric;
	int		 chip, gate;
	double		 since;		/* breaching since (NAN: clear) */
	double		 last_fire;	/* the last firing's start (NAN) */
	bool		 firing;
	double		 value, threshold;
	double		 vmin, vmax, vsum;
	uint64_t	 n;
	char		*what;
};

struct alerteval {
	const struct alertconf	*conf;
	struct tracker		*t;
	size_t			 nt, talloc;
	struct alertnote	*q;	/* notes not taken, oldest first */
	size_t			 nq, qhead, qalloc;
};

struct alerteval *
alerteval_new(const struct alertconf *conf)
{
	struct alerteval *ae = xcalloc(1, sizeof *ae);

	ae->conf = conf;
	return ae;
}

void
alerteval_note_release(struct alertnote *n)
{
	free(n->id);
	free(n->host);
	free(n->job);
	free(n->workspace);
	free(n->metric);
	free(n->summary);
	memset(n, 0, sizeof *n);
}

void
alerteval_free(struct alerteval *ae)
{
	size_t i;

	if (ae == NULL)
		return;
	for (i = 0; i < ae->nt; i++) {
		free(ae->t[i].host);
		free(ae->t[i].job);
		free(ae->t[i].workspace);
		free(ae->t[i].metric);
		free(ae->t[i].what);
	}
	for (i = ae->qhead; i < ae->nq; i++)
		alerteval_note_release(&ae->q[i]);
	free(ae->t);
	free(ae->q);
	free(ae);
}

static bool
str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static char *
str_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* FNV-1a, 64 bits: the id needs to be stable, not secret. */
static uint64_t
fnv(uint64_t h, const char *s)
{
	if (s == NULL)
		s = "";
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ 0x1f) * 0x100000001b3ULL;
}

void
alerteval_id(const char *rule, const struct alert_subject *subj,
    double start, char *buf, size_t len)
{
	char num[64];
	uint64_t h = 0xcbf29ce484222325ULL;

	h = fnv(h, rule);
	h = fnv(h, subj->host);
	h = fnv(h, subj->job);
	h = fnv(h, subj->workspace);
	h = fnv(h, subj->metric);
	snprintf(num, sizeof num, "%d %d %.0f", subj->chip, subj->gate,
	    floor(start * 1000 + 0.5));
	h = fnv(h, num);
	snprintf(buf, len, "%016llx", (unsigned long long)h);
}

static void
tracker_subject(const struct tracker *t, struct alert_subject *s)
{
	s->host = t->host;
	s->chip = t->chip;
	s->job = t->job;
	s->workspace = t->workspace;
	s->gate = t->gate;
	s->metric = t->metric;
}

/* rule's tracker on subj, made when missing (NULL past the cap). */
static struct tracker *
tracker_get(struct alerteval *ae, size_t rule,
    const struct alert_subject *subj)
{
	struct tracker *t;
	size_t i;

	for (i = 0; i < ae->nt; i++) {
		t = &ae->t[i];
		if (t->rule == rule && t->chip == subj->chip &&
		    t->gate == subj->gate && str_eq(t->host, subj->host) &&
		    str_eq(t->job, subj->job) &&
		    str_eq(t->workspace, subj->workspace) &&
		    str_eq(t->metric, subj->metric))
			return t;
	}
	if (ae->nt == ALERTEVAL_TRACKERS_MAX)
		return NULL;
	if (ae->nt == ae->talloc) {
		ae->talloc = ae->talloc == 0 ? 16 : ae->talloc * 2;
		ae->t = xreallocarray(ae->t, ae->talloc, sizeof *ae->t);
	}
	t = &ae->t[ae->nt++];
	memset(t, 0, sizeof *t);
	t->rule = rule;
	t->host = str_dup(subj->host);
	t->job = str_dup(subj->job);
	t->workspace = str_dup(subj->workspace);
	t->metric = str_dup(subj->metric);
	t->chip = subj->chip;
	t->gate = subj->gate;
	t->since = t->last_fire = t->value = t->threshold = NAN;
	return t;
}

/* Who it is about, for the summary: " on lab3 chip 1, job 17". */
static void
subject_text(struct buf *b, const struct tracker *t)
{
	if (t->host != NULL)
		buf_addf(b, " on %s", t->host);
	if (t->chip != ALERT_NONE)
		buf_addf(b, " chip %d", t->chip);
	if (t->workspace != NULL)
		buf_addf(b, "%s %s", t->host != NULL ? "," : " in", t->workspace);
	if (t->gate != ALERT_NONE)
		buf_addf(b, " G%d", t->gate);
	if (t->job != NULL)
		buf_addf(b, ", job %s", t->job);
}

static char *
summary(const struct alerteval *ae, const struct tracker *t,
    enum alert_state st)
{
	const struct alertrule *r = &ae->conf->rules[t->rule];
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s %s: ", r->name, st == ALERT_FIRING ? "firing" :
	    "resolved");
	if (t->what != NULL)
		buf_adds(&b, t->what);
	else
		buf_addf(&b, "%s %g", alertrule_kind_name(r->kind), t->value);
	if (!isnan(t->threshold))
		buf_addf(&b, " (threshold %g)", t->threshold);
	subject_text(&b, t);
	return buf_detach(&b, NULL);
}

/* A note of t's alert in state st at ts onto the queue. */
static void
note(struct alerteval *ae, struct tracker *t, enum alert_state st, double ts)
{
	struct alert_subject s;
	struct alertnote *n;
	char id[32];

	if (ae->qhead > 0 && ae->qhead == ae->nq)
		ae->qhead = ae->nq = 0;
	if (ae->nq == ae->qalloc) {
		ae->qalloc = ae->qalloc == 0 ? 8 : ae->qalloc * 2;
		ae->q = xreallocarray(ae->q, ae->qalloc, sizeof *ae->q);
	}
	n = &ae->q[ae->nq++];
	memset(n, 0, sizeof *n);
	tracker_subject(t, &s);
	alerteval_id(ae->conf->rules[t->rule].name, &s, t->since, id,
	    sizeof id);
	n->id = xstrdup(id);
	n->rule = &ae->conf->rules[t->rule];
	n->state = st;
	n->host = str_dup(t->host);
	n->job = str_dup(t->job);
	n->workspace = str_dup(t->workspace);
	n->metric = str_dup(t->metric);
	n->chip = t->chip;
	n->gate = t->gate;
	n->start = t->since;
	n->end = st == ALERT_RESOLVED || alertrule_kind_event(
	    ae->conf->rules[t->rule].kind) ? ts : NAN;
	n->value = t->value;
	n->threshold = t->threshold;
	n->vmin = t->n > 0 ? t->vmin : NAN;
	n->vmax = t->n > 0 ? t->vmax : NAN;
	n->vavg = t->n > 0 ? t->vsum / (double)t->n : NAN;
	n->summary = summary(ae, t, st);
}

static void
tracker_sample(struct tracker *t, double v, const char *what)
{
	t->value = v;
	if (what != NULL || t->what != NULL) {
		free(t->what);
		t->what = str_dup(what);
	}
	if (isnan(v))
		return;
	if (t->n == 0 || v < t->vmin)
		t->vmin = v;
	if (t->n == 0 || v > t->vmax)
		t->vmax = v;
	t->vsum += v;
	t->n++;
}

/* A breach held for: and past repeat: fires. */
static void
try_fire(struct alerteval *ae, struct tracker *t, double ts)
{
	const struct alertrule *r = &ae->conf->rules[t->rule];

	if (t->firing || isnan(t->since) || ts - t->since < r->for_s ||
	    (!isnan(t->last_fire) && ts - t->last_fire < r->repeat_s))
		return;
	t->firing = true;
	t->last_fire = ts;
	note(ae, t, ALERT_FIRING, ts);
}

/* One judgement of t at ts (the state machine of alerteval.h). */
static void
judge(struct alerteval *ae, struct tracker *t, bool breach, double v,
    const char *what, double ts)
{
	if (breach) {
		if (isnan(t->since)) {
			t->since = ts;
			t->n = 0;
			t->vsum = 0;
		}
		tracker_sample(t, v, what);
		try_fire(ae, t, ts);
		return;
	}
	t->value = v;
	if (t->firing) {
		free(t->what);
		t->what = str_dup(what);
		note(ae, t, ALERT_RESOLVED, ts);
	}
	t->firing = false;
	t->since = NAN;
}

void
alerteval_value(struct alerteval *ae, enum alert_kind kind,
    const struct alert_subject *subj, double v, double deflt,
    const char *what, double ts)
{
	const struct alertrule *r;
	struct tracker *t;
	double lim;
	size_t i;

	if (isnan(v) || !isfinite(ts))
		return;
	for (i = 0; i < ae->conf->nrules; i++) {
		r = &ae->conf->rules[i];
		lim = isnan(r->threshold) ? deflt : r->threshold;
		if (r->kind != kind || isnan(lim) ||
		    (t = tracker_get(ae, i, subj)) == NULL)
			continue;
		t->threshold = lim;
		judge(ae, t, alertrule_kind_below(kind) ? v < lim : v > lim,
		    v, what, ts);
	}
}

void
alerteval_cond(struct alerteval *ae, enum alert_kind kind,
    const struct alert_subject *subj, bool breach, double v,
    const char *what, double ts)
{
	struct tracker *t;
	size_t i;

	if (!isfinite(ts))
		return;
	for (i = 0; i < ae->conf->nrules; i++)
		if (ae->conf->rules[i].kind == kind &&
		    (t = tracker_get(ae, i, subj)) != NULL)
			judge(ae, t, breach, v, what, ts);
}

void
alerteval_event(struct alerteval *ae, enum alert_kind kind,
    const struct alert_subject *subj, double v, const char *what, double ts)
{
	struct tracker *t;
	size_t i;

	if (!isfinite(ts))
		return;
	for (i = 0; i < ae->conf->nrules; i++) {
		if (ae->conf->rules[i].kind != kind ||
		    (t = tracker_get(ae, i, subj)) == NULL)
			continue;
		t->since = ts;
		t->n = 0;
		t->vsum = 0;
		tracker_sample(t, v, what);
		try_fire(ae, t, ts);
		t->firing = false;
		t->since = NAN;
	}
}

void
alerteval_tick(struct alerteval *ae, double ts)
{
	size_t i;

	for (i = 0; i < ae->nt; i++)
		if (!alertrule_kind_tool_time(
		    ae->conf->rules[ae->t[i].rule].kind))
			try_fire(ae, &ae->t[i], ts);
}

int
alerteval_restore(struct alerteval *ae, const char *rule,
    const struct alert_subject *subj, double start, double last)
{
	struct tracker *t;
	size_t i;

	for (i = 0; i < ae->conf->nrules; i++)
		if (strcmp(ae->conf->rules[i].name, rule) == 0)
			break;
	if (i == ae->conf->nrules || alertrule_kind_event(
	    ae->conf->rules[i].kind) || (t = tracker_get(ae, i, subj)) == NULL)
		return -1;
	t->since = start;
	t->last_fire = isnan(last) ? start : last;
	t->firing = true;
	return 0;
}

bool
alerteval_next(struct alerteval *ae, struct alertnote *out)
{
	if (ae->qhead == ae->nq)
		return false;
	*out = ae->q[ae->qhead++];
	return true;
}

size_t
alerteval_nfiring(const struct alerteval *ae)
{
	size_t i, n = 0;

	for (i = 0; i < ae->nt; i++)
		n += ae->t[i].firing;
	return n;
}

/* alerts.c: the alert journal of a soak (see alerts.h). */
#include "calops.h"

#include <fcntl.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "metrics/alerts.h"
#include "metrics/metrics.h"
#include "metrics/metricsview.h"
#include "metrics/sketch.h"
#include "metrics/soakstats.h"

enum rule_id {
	RULE_TTFT,
	RULE_TPOT,
	RULE_SUCCESS,
	RULE_LEAK_RSS,
	RULE_LEAK_DEV,
	RULE_COUNT
};

static const struct rule_def {
	const char	*name, *metric;
	bool		 below;		/* breach below the threshold */
	bool		 leak;
} rules[RULE_COUNT] = {
	[RULE_TTFT] = { "sla.ttft_p99", "ttft_ms", false, false },
	[RULE_TPOT] = { "sla.tpot_p99", "tpot_ms", false, false },
	[RULE_SUCCESS] = { "sla.success_rate", "request_ok", true, false },
	[RULE_LEAK_RSS] = { "leak.rss_bytes", "rss_bytes", false, true },
	[RULE_LEAK_DEV] = { "leak.device_mem_bytes", "device_mem_bytes", false,
	    true },
};

/* One rule on one chip (or merged) and where its crossing stands. */
struct tracker {
	enum rule_id	 rule;
	int		 chip;
	struct mseries	*s;		/* leak rules: the series judged */
	uint64_t	 seen;		/* its sample count when last judged */
	double		 first;		/* leak rules: when it appeared */
	double		 next;		/* leak rules: not judged before */
	double		 since;		/* breaching since (NAN: not) */
	double		 worst;		/* over the breach, while pending */
	double		 clear;		/* open and clear since (NAN: not) */
	size_t		 open;		/* the open alert, or SIZE_MAX */
};

struct ack_key {
	enum rule_id	 rule;
	int		 chip;
	double		 start;
};

struct alerts {
	char		*ack_path;
	struct ack_key	*acks;
	size_t		 nacks;
	double		 sla[3];	/* ttft p99, tpot p99, success min */
	struct alert	*list;
	size_t		 n, alloc, dropped, ordinals;
	struct tracker	*t;
	size_t		 nt;
	size_t		 nseries;	/* metrics_count() when last scanned */
	struct mseries	**sel[3];	/* ttft, tpot, request_ok series */
	size_t		 nsel[3];
	double		 next_eval;
	struct sketch	 merged;
};

/* Starts are printed to the millisecond: equal within half of one. */
static bool
ack_known(const struct alerts *a, enum rule_id r, int chip, double start)
{
	size_t i;

	for (i = 0; i < a->nacks; i++)
		if (a->acks[i].rule == r && a->acks[i].chip == chip &&
		    fabs(a->acks[i].start - start) < 5e-4)
			return true;
	return false;
}

static void
ack_remember(struct alerts *a, enum rule_id r, int chip, double start)
{
	if (ack_known(a, r, chip, start))
		return;
	a->acks = xreallocarray(a->acks, a->nacks + 1, sizeof *a->acks);
	a->acks[a->nacks].rule = r;
	a->acks[a->nacks].chip = chip;
	a->acks[a->nacks].start = start;
	a->nacks++;
}

/* One ack line; a line that does not parse is someone else's and ignored. */
static void
ack_parse(struct alerts *a, const char *line)
{
	char name[64];
	unsigned long ord;
	double start;
	int chip, r;

	if (sscanf(line, "%lu %63s %d %lf", &ord, name, &chip, &start) != 4 ||
	    !isfinite(start))
		return;
	for (r = 0; r < RULE_COUNT; r++)
		if (strcmp(name, rules[r].name) == 0)
			ack_remember(a, r, chip, start);
}

/* Read the acks kept so far; a missing file is none. */
static void
ack_load(struct alerts *a)
{
	char *data, *p, *nl;
	ssize_t got;
	size_t len = 0;
	int fd;

	if ((fd = open(a->ack_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return;
	data = xmalloc(ALERT_ACKS_MAX + 1);
	while (len < ALERT_ACKS_MAX && (got = read(fd, data + len,
	    ALERT_ACKS_MAX - len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	data[len] = '\0';
	for (p = data; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		ack_parse(a, p);
	}
	free(data);
}

struct alerts *
alerts_new(const char *ack_path)
{
	struct alerts *a = xcalloc(1, sizeof *a);

	a->sla[0] = a->sla[1] = a->sla[2] = NAN;
	a->next_eval = -INFINITY;
	sketch_init(&a->merged);
	if (ack_path != NULL) {
		a->ack_path = xstrdup(ack_path);
		ack_load(a);
	}
	return a;
}

void
alerts_free(struct alerts *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < nitems(a->sel); i++)
		free(a->sel[i]);
	sketch_release(&a->merged);
	free(a->t);
	free(a->list);
	free(a->acks);
	free(a->ack_path);
	free(a);
}

void
alerts_set_sla(struct alerts *a, double ttft_ms_p99, double tpot_ms_p99,
    double success_rate_min)
{
	a->sla[0] = ttft_ms_p99;
	a->sla[1] = tpot_ms_p99;
	a->sla[2] = success_rate_min;
}

static struct tracker *
tracker_add(struct alerts *a, enum rule_id r, int chip, struct mseries *s)
{
	struct tracker *t;

	a->t = xreallocarray(a->t, a->nt + 1, sizeof *a->t);
	t = &a->t[a->nt++];
	memset(t, 0, sizeof *t);
	t->rule = r;
	t->chip = chip;
	t->s = s;
	t->next = -INFINITY;
	t->since = t->worst = t->clear = NAN;
	t->open = SIZE_MAX;
	return t;
}

/* New series appeared: select the SLA rules' series again and give each
 * new memory series its leak tracker. */
static void
scan(struct alerts *a, struct metrics *m, double ts)
{
	size_t i, j, n = metrics_count(m);
	struct mseries *s;
	enum rule_id r;

	for (i = 0; i < 3; i++) {
		free(a->sel[i]);
		a->sel[i] = xreallocarray(NULL, n + 1, sizeof *a->sel[i]);
		a->nsel[i] = metrics_select(m, NULL, MCHIP_ANY,
		    rules[i].metric, a->sel[i], n);
	}
	for (i = a->nseries; i < n; i++) {
		s = metrics_series(m, i);
		for (r = RULE_LEAK_RSS; r < RULE_COUNT; r++)
			if (strcmp(metricsview_series_name(s),
				rules[r].metric) == 0)
				break;
		if (r == RULE_COUNT)
			continue;
		for (j = 0; j < a->nt && a->t[j].s != s; j++)
			;
		if (j == a->nt)
			tracker_add(a, r,
			    metricsview_series_chip(s) < 0
				? ALERT_MERGED
				: metricsview_series_chip(s),
			    s)
			    ->first = ts;
	}
	a->nseries = n;
}

static bool
worse(const struct tracker *t, double v, double than)
{
	if (isnan(than))
		return true;
	return rules[t->rule].below ? v < than : v > than;
}

/* A breach held long enough: into the journal (or counted when full). */
static void
open_alert(struct alerts *a, struct tracker *t, double threshold)
{
	struct alert *al;
	size_t ord = a->ordinals++;

	if (a->n == ALERTS_MAX) {
		a->dropped++;
		t->open = SIZE_MAX - 1;	/* open, but not kept */
		return;
	}
	if (a->n == a->alloc) {
		a->alloc = a->alloc == 0 ? 16 : a->alloc * 2;
		a->list = xreallocarray(a->list, a->alloc, sizeof *a->list);
	}
	al = &a->list[a->n];
	al->rule = rules[t->rule].name;
	al->metric = rules[t->rule].metric;
	al->chip = t->chip;
	al->ordinal = ord;
	al->start = t->since;
	al->end = NAN;
	al->worst = t->worst;
	al->threshold = threshold;
	al->below = rules[t->rule].below;
	al->acked = ack_known(a, t->rule, t->chip, t->since);
	t->open = a->n++;
}

static void
close_alert(struct alerts *a, struct tracker *t, double end)
{
	if (t->open < a->n)
		a->list[t->open].end = end;
	t->open = SIZE_MAX;
	t->since = t->worst = t->clear = NAN;
}

/*
 * One evaluation of a tracker at ts: v its value (NAN: unknown, nothing
 * changes), breach whether v crosses.  The state machine of alerts.h.
 */
static void
step(struct alerts *a, struct tracker *t, double ts, double v, bool breach,
    double threshold)
{
	if (isnan(v))
		return;
	if (breach) {
		t->clear = NAN;
		if (isnan(t->since))
			t->since = ts;
		if (worse(t, v, t->worst))
			t->worst = v;
		if (t->open < a->n && worse(t, v, a->list[t->open].worst))
			a->list[t->open].worst = v;
		if (t->open == SIZE_MAX && ts - t->since >= ALERT_OPEN_S)
			open_alert(a, t, threshold);
		return;
	}
	if (t->open == SIZE_MAX) {
		t->since = t->worst = NAN;
		return;
	}
	if (isnan(t->clear))
		t->clear = ts;
	if (ts - t->clear >= ALERT_CLEAR_S)
		close_alert(a, t, t->clear);
}

static struct tracker *
sla_tracker(struct alerts *a, enum rule_id r)
{
	size_t i;

	for (i = 0; i < a->nt; i++)
		if (a->t[i].rule == r)
			return &a->t[i];
	return tracker_add(a, r, ALERT_MERGED, NULL);
}

/* The P50 and P99 of a 1 min window (NAN when empty) as the series name
 * plus ALERT_P50 and ALERT_P99 on host and chip. */
static void
record(struct metrics *m, const char *host, int chip, const char *name,
    double ts, const struct sketch *k)
{
	char n50[64], n99[64];

	if (k == NULL || sketch_count(k) == 0)
		return;
	snprintf(n50, sizeof n50, "%s" ALERT_P50, name);
	snprintf(n99, sizeof n99, "%s" ALERT_P99, name);
	(void)metrics_add(m, host, chip, n50, ts, sketch_quantile(k, 0.50),
	    NULL, 0);
	(void)metrics_add(m, host, chip, n99, ts, sketch_quantile(k, 0.99),
	    NULL, 0);
}

/* A latency rule's value, its percentiles recorded on the way. */
static double
latency_p99(struct alerts *a, struct metrics *m, enum rule_id r, double ts)
{
	struct mseries *s;
	size_t i;

	for (i = 0; i < a->nsel[r]; i++) {
		s = a->sel[r][i];
		if (metricsview_series_chip(s) >= 0)
			record(m, metricsview_series_host(s),
			    metricsview_series_chip(s), rules[r].metric, ts,
			    metricsview_series_window(s, MWIN_1M));
	}
	metricsview_merge_window(a->sel[r], a->nsel[r], MWIN_1M, &a->merged);
	record(m, metricsview_series_host(a->sel[r][0]), MCHIP_NONE,
	    rules[r].metric, ts, &a->merged);
	return sketch_quantile(&a->merged, 0.99);
}

/* The SLA rules over the 1 min window, merged over every chip. */
static void
eval_sla(struct alerts *a, struct metrics *m, double ts)
{
	struct tracker *t;
	double v, lim;
	enum rule_id r;

	metrics_tick(m, ts);
	for (r = RULE_TTFT; r <= RULE_SUCCESS; r++) {
		if (a->nsel[r] == 0)
			continue;
		if (r == RULE_SUCCESS)
			v = metricsview_mean(
			    a->sel[r], a->nsel[r], MWIN_10M, ts);
		else
			v = latency_p99(a, m, r, ts);
		if (isnan(lim = a->sla[r]))
			continue;
		t = sla_tracker(a, r);
		step(a, t, ts, v, rules[r].below ? v < lim : v > lim, lim);
	}
}

/* A leak tracker whose series has new samples, judged at most every
 * ALERT_LEAK_EVAL_S. */
static void
eval_leak(struct alerts *a, struct tracker *t, double ts)
{
	struct leak_verdict lv;
	struct mcell tot;

	metricsview_series_totals(t->s, &tot);
	if (tot.count == t->seen || ts < t->next)
		return;
	t->seen = tot.count;
	t->next = ts + ALERT_LEAK_EVAL_S;
	metrics_series_leak(t->s, &lv);
	if (!lv.evaluated || ts - t->first < ALERT_LEAK_MIN_S)
		step(a, t, ts, 0, false, NAN);
	else
		step(a, t, ts, lv.growth, soakstats_leak_still_growing(&lv),
		    lv.threshold);
}

void
alerts_observe(struct alerts *a, struct metrics *m, double ts)
{
	size_t i;

	if (!isfinite(ts))
		return;
	if (metrics_count(m) != a->nseries)
		scan(a, m, ts);
	for (i = 0; i < a->nt; i++)
		if (a->t[i].s != NULL)
			eval_leak(a, &a->t[i], ts);
	if (ts < a->next_eval)
		return;
	a->next_eval = floor(ts / ALERT_EVAL_S) * ALERT_EVAL_S + ALERT_EVAL_S;
	eval_sla(a, m, ts);
}

void
alerts_finish(struct alerts *a, double ts)
{
	struct tracker *t;
	size_t i;

	for (i = 0; i < a->nt; i++) {
		t = &a->t[i];
		if (t->open != SIZE_MAX)
			close_alert(a, t, isnan(t->clear) ? ts : t->clear);
		t->since = t->worst = t->clear = NAN;
	}
}

size_t
alerts_count(const struct alerts *a)
{
	return a->n;
}

const struct alert *
alerts_get(const struct alerts *a, size_t i)
{
	return i < a->n ? &a->list[i] : NULL;
}

size_t
alerts_nopen(const struct alerts *a)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++)
		n += isnan(a->list[i].end);
	return n;
}

size_t
alerts_nunacked(const struct alerts *a)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++)
		n += !a->list[i].acked;
	return n;
}

size_t
alerts_dropped(const struct alerts *a)
{
	return a->dropped;
}

static enum rule_id
rule_of(const struct alert *al)
{
	enum rule_id r;

	for (r = 0; r < RULE_COUNT - 1; r++)
		if (al->rule == rules[r].name)
			break;
	return r;
}

int
alerts_ack(struct alerts *a, size_t i, char *err, size_t errlen)
{
	struct alert *al;
	char line[128];
	int fd, len, rc;

	if (i >= a->n) {
		errbuf_set(err, errlen, "no alert %zu", i);
		return -1;
	}
	al = &a->list[i];
	if (al->acked)
		return 0;
	if (a->ack_path != NULL) {
		len = snprintf(line, sizeof line, "%zu %s %d %.3f %.0f\n",
		    al->ordinal, al->rule, al->chip, al->start,
		    (double)time(NULL));
		if ((fd = open(a->ack_path, O_WRONLY | O_APPEND | O_CREAT |
		    O_CLOEXEC, 0600)) == -1) {
			errbuf_set(err, errlen, "cannot open '%s': %s",
			    a->ack_path, strerror(errno));
			return -1;
		}
		rc = fileio_write_full(fd, line, (size_t)len);
		if (close(fd) != 0)
			rc = -1;
		if (rc != 0) {
			errbuf_set(err, errlen, "cannot write '%s': %s",
			    a->ack_path, strerror(errno));
			return -1;
		}
	}
	ack_remember(a, rule_of(al), al->chip, al->start);
	al->acked = true;
	return 0;
}

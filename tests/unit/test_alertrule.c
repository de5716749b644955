/*
 * test_alertrule.c: the alert rules of a lab file (src/alert/alertrule.c)
 * and their judgement over time (alerteval.c, alertmetric.c): a lab with
 * only a hook has every default rule, a bad rule is refused with its
 * position; a breach fires once after for:, resolves once with the same
 * id and min/avg/max over it, comes back no sooner than repeat:; a host
 * down fires on a tick alone; an event fires at once; an alert restored
 * after a restart is not fired again but resolves; and a soak store whose
 * TTFT P99 crosses the SLA fires sla.ttft_p99 once, and a steady leak
 * whose verdict dips clear for a moment stays one alert; the journal folds an
 * alert's lines into one entry, survives its reopening, skips a line that
 * is not an alert and cuts a torn last one.
 */
#include "calops.h"

#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "alert/alerteval.h"
#include "alert/alertjournal.h"
#include "alert/alertmetric.h"
#include "alert/alertrule.h"
#include "base/fileio.h"
#include "metrics/metrics.h"
#include "remote/lab.h"

#define T0	1700000000.0

static int
parse(struct lab *lab, const char *text, char *err, size_t errlen)
{
	return lab_parse(lab, text, strlen(text), "lab.yaml", err, errlen);
}

static void
test_defaults(void **state)
{
	struct lab lab;
	char err[512];

	(void)state;
	assert_int_equal(parse(&lab, "hosts: [{name: local, transport: "
	    "local}]\nalerts:\n  hook: [curl, -s, --data-binary, \"@-\", "
	    "http://127.0.0.1:9/]\n", err, sizeof err), 0);
	assert_int_equal(lab.alert_hook.argc, 5);
	assert_string_equal(lab.alert_hook.argv[3], "@-");
	assert_non_null(alertrule_find(&lab.alerts, "sla.ttft_p99"));
	assert_non_null(alertrule_find(&lab.alerts, "leak"));
	assert_non_null(alertrule_find(&lab.alerts, "host.down"));
	assert_null(alertrule_find(&lab.alerts, "gate.changed"));
	assert_int_equal(lab.alerts.nrules, ALERT_KIND_COUNT - 1);
	lab_release(&lab);
	assert_int_equal(parse(&lab, "hosts: []\n", err, sizeof err), 0);
	assert_null(lab.alert_hook.argv);
	assert_int_equal(lab.alerts.nrules, 0);
	lab_release(&lab);
}

static void
test_rules(void **state)
{
	const struct alertrule *r;
	struct lab lab;
	char err[512];

	(void)state;
	assert_int_equal(parse(&lab, "alerts:\n  hook: notify-team --now\n"
	    "  rules:\n    - {kind: sla.ttft_p99, for: 30, threshold: 250}\n"
	    "    - {name: lab-gone, kind: host.down, severity: warning, "
	    "repeat: 5}\n", err, sizeof err), 0);
	assert_int_equal(lab.alerts.nrules, 2);
	r = alertrule_find(&lab.alerts, "sla.ttft_p99");
	assert_non_null(r);
	assert_true(r->for_s == 30 && r->threshold == 250);
	r = alertrule_find(&lab.alerts, "lab-gone");
	assert_non_null(r);
	assert_int_equal(r->kind, ALERT_HOST);
	assert_int_equal(r->severity, ALERT_WARNING);
	assert_true(r->for_s == 120 && r->repeat_s == 5);
	lab_release(&lab);
}

static void
expect_error(const char *text, const char *want)
{
	struct lab lab;
	char err[512];

	assert_int_equal(parse(&lab, text, err, sizeof err), -1);
	if (strstr(err, want) == NULL)
		fail_msg("'%s' does not hold '%s'", err, want);
	lab_release(&lab);
}

static void
test_errors(void **state)
{
	(void)state;
	expect_error("alerts:\n  rules: []\n", "lab.yaml:2:3: 'alerts' needs "
	    "a 'hook'");
	expect_error("alerts:\n  hook: [x]\n  rules:\n    - {kind: sla.ttfb}\n",
	    "lab.yaml:4:14: unknown kind 'sla.ttfb'");
	expect_error("alerts:\n  hook: [x]\n  rules:\n    - {kind: leak, "
	    "for: -1}\n", "lab.yaml:4:25: 'for' must be from 0 to");
	expect_error("alerts:\n  hook: [x]\n  rules:\n    - {kind: leak, "
	    "fro: 1}\n", "unknown key 'fro'");
	expect_error("alerts:\n  hook: [x]\n  rules:\n    - {kind: leak}\n"
	    "    - {kind: leak}\n", "a rule named 'leak' is given twice");
	expect_error("alerts:\n  hook: [x]\n  rules:\n    - {kind: leak, "
	    "severity: loud}\n", "unknown severity 'loud'");
	expect_error("alerts:\n  hook: \"\"\n", "'hook' must name a program");
	expect_error("alerts:\n  hook: [x]\n  timeout: 0\n",
	    "lab.yaml:3:12: 'timeout' must be from 1 to 3600, not 0");
	expect_error("alerts:\n  hook: [x]\n  backoff: fast\n",
	    "lab.yaml:3:12: 'backoff' must be a number, not a string");
	expect_error("alerts:\n  hook: [x]\n  tries: 2.5\n",
	    "lab.yaml:3:10: 'tries' must be a whole number, not 2.5");
}

/* The hook's timing: the defaults, and what alerts: says. */
static void
test_timing(void **state)
{
	struct lab lab;
	char err[512];

	(void)state;
	assert_int_equal(parse(&lab, "alerts:\n  hook: [x]\n", err,
	    sizeof err), 0);
	assert_true(lab.alerts.timeout_s == 30 && lab.alerts.backoff_s == 2);
	assert_int_equal(lab.alerts.tries, 10);
	lab_release(&lab);
	assert_int_equal(parse(&lab, "alerts:\n  hook: [x]\n  timeout: 5\n"
	    "  backoff: 0.5\n  tries: 3\n  rules: [{kind: leak}]\n", err,
	    sizeof err), 0);
	assert_true(lab.alerts.timeout_s == 5 && lab.alerts.backoff_s == 0.5);
	assert_int_equal(lab.alerts.tries, 3);
	assert_int_equal(lab.alerts.nrules, 1);
	lab_release(&lab);
}

/* A config file holding text, its path into path (PATH_MAX). */
static void
config_file(char *path, const char *text)
{
	FILE *f;
	int fd;

	snprintf(path, PATH_MAX, "%s/calops-alertrule.XXXXXX", P_tmpdir);
	fd = mkstemp(path);
	assert_true(fd != -1);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The config's alerts: under the lab file's, the lab file winning. */
static void
test_config_merge(void **state)
{
	const struct alertrule *r;
	char path[PATH_MAX], err[512], want[PATH_MAX + 64];
	struct lab lab;

	(void)state;
	config_file(path, "theme: light\nalerts:\n  hook: [y]\n  timeout: 7\n"
	    "  rules:\n    - {kind: leak, for: 99}\n    - {kind: host.down}\n");
	/* No alerts: in the lab file: the config's whole. */
	assert_int_equal(parse(&lab, "hosts: []\n", err, sizeof err), 0);
	assert_int_equal(lab_merge_config(&lab, path, err, sizeof err), 0);
	assert_string_equal(lab.alert_hook.argv[0], "y");
	assert_int_equal(lab.alerts.nrules, 2);
	assert_true(lab.alerts.timeout_s == 7);
	lab_release(&lab);
	/* The lab file's hook, rule and timing win; the config's other rule
	 * is added. */
	assert_int_equal(parse(&lab, "alerts:\n  hook: [x]\n  tries: 2\n"
	    "  rules:\n    - {kind: leak, for: 5}\n", err, sizeof err), 0);
	assert_int_equal(lab_merge_config(&lab, path, err, sizeof err), 0);
	assert_string_equal(lab.alert_hook.argv[0], "x");
	assert_int_equal(lab.alerts.nrules, 2);
	r = alertrule_find(&lab.alerts, "leak");
	assert_non_null(r);
	assert_true(r->for_s == 5);
	assert_non_null(alertrule_find(&lab.alerts, "host.down"));
	assert_true(lab.alerts.timeout_s == 7 && lab.alerts.tries == 2);
	lab_release(&lab);
	/* The lab file gives no rules: the config's replace the defaults. */
	assert_int_equal(parse(&lab, "alerts:\n  hook: [x]\n", err,
	    sizeof err), 0);
	assert_int_equal(lab_merge_config(&lab, path, err, sizeof err), 0);
	assert_int_equal(lab.alerts.nrules, 2);
	assert_null(alertrule_find(&lab.alerts, "sla.ttft_p99"));
	lab_release(&lab);
	unlink(path);
	/* Its errors at its own FILE:LINE:COL. */
	config_file(path, "alerts:\n  backoff: 0\n");
	assert_int_equal(parse(&lab, "hosts: []\n", err, sizeof err), 0);
	assert_int_equal(lab_merge_config(&lab, path, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:2:12: 'backoff' must be from 0.1",
	    path);
	if (strstr(err, want) == NULL)
		fail_msg("'%s' does not hold '%s'", err, want);
	lab_release(&lab);
	unlink(path);
	/* A missing config file is none. */
	assert_int_equal(parse(&lab, "hosts: []\n", err, sizeof err), 0);
	assert_int_equal(lab_merge_config(&lab, path, err, sizeof err), 0);
	assert_null(lab.alert_hook.argv);
	lab_release(&lab);
}

/* The lab's rules from text, for the evaluator tests. */
static void
rules(struct alertconf *conf, const char *yaml)
{
	struct lab lab;
	char err[512];

	assert_int_equal(parse(&lab, yaml, err, sizeof err), 0);
	*conf = lab.alerts;
	memset(&lab.alerts, 0, sizeof lab.alerts);
	lab_release(&lab);
}

static const struct alert_subject lab3 = { "lab3", ALERT_NONE, "17", NULL,
    ALERT_NONE, NULL };

static void
test_for_repeat(void **state)
{
	struct alertconf conf;
	struct alerteval *ae;
	struct alertnote n, r;
	double t;

	(void)state;
	rules(&conf, "alerts:\n  hook: [x]\n  rules:\n    - {kind: "
	    "sla.ttft_p99, for: 60, repeat: 600}\n");
	ae = alerteval_new(&conf);
	/* A breach of 30 s does not fire. */
	for (t = 0; t < 30; t++)
		alerteval_value(ae, ALERT_SLA_TTFT, &lab3, 300, 250, NULL,
		    T0 + t);
	alerteval_value(ae, ALERT_SLA_TTFT, &lab3, 200, 250, NULL, T0 + 30);
	assert_false(alerteval_next(ae, &n));
	/* One of 60 s fires once, at 60 s, and starts at its start. */
	for (t = 100; t <= 200; t++)
		alerteval_value(ae, ALERT_SLA_TTFT, &lab3, t < 150 ? 300 : 400,
		    250, NULL, T0 + t);
	assert_true(alerteval_next(ae, &n));
	assert_int_equal(n.state, ALERT_FIRING);
	assert_true(n.start == T0 + 100 && isnan(n.end));
	assert_true(n.threshold == 250 && n.value == 400);
	assert_non_null(strstr(n.summary, "on lab3, job 17"));
	assert_false(alerteval_next(ae, &r));
	assert_int_equal(alerteval_nfiring(ae), 1);
	alerteval_value(ae, ALERT_SLA_TTFT, &lab3, 100, 250, NULL, T0 + 201);
	assert_true(alerteval_next(ae, &r));
	assert_int_equal(r.state, ALERT_RESOLVED);
	assert_string_equal(r.id, n.id);
	assert_true(r.end == T0 + 201);
	assert_true(r.vmin == 300 && r.vmax == 400);
	assert_true(fabs(r.vavg - (50 * 300 + 51 * 400) / 101.0) < 1e-9);
	alerteval_note_release(&n);
	alerteval_note_release(&r);
	/* Back at once: held until 600 s after the last firing. */
	for (t = 300; t <= 760; t++)
		alerteval_value(ae, ALERT_SLA_TTFT, &lab3, 300, 250, NULL,
		    T0 + t);
	assert_true(alerteval_next(ae, &n));
	assert_true(n.start == T0 + 300);
	alerteval_note_release(&n);
	assert_false(alerteval_next(ae, &n));
	alerteval_free(ae);
	alertrule_release(&conf);
}

static void
test_host_tick_event(void **state)
{
	struct alert_subject job = { "lab3", ALERT_NONE, "18", "/w", 9,
	    NULL };
	struct alertconf conf;
	struct alerteval *ae;
	struct alertnote n;

	(void)state;
	rules(&conf, "alerts:\n  hook: [x]\n");
	ae = alerteval_new(&conf);
	alerteval_cond(ae, ALERT_HOST, &lab3, true, 0, "disconnected", T0);
	alerteval_tick(ae, T0 + 119);
	assert_false(alerteval_next(ae, &n));
	alerteval_tick(ae, T0 + 120);
	assert_true(alerteval_next(ae, &n));
	assert_string_equal(n.rule->name, "host.down");
	assert_int_equal(n.rule->severity, ALERT_CRITICAL);
	assert_non_null(strstr(n.summary, "disconnected"));
	alerteval_note_release(&n);
	alerteval_tick(ae, T0 + 500);
	assert_false(alerteval_next(ae, &n));
	alerteval_cond(ae, ALERT_HOST, &lab3, false, 0, "connected", T0 + 501);
	assert_true(alerteval_next(ae, &n));
	assert_int_equal(n.state, ALERT_RESOLVED);
	alerteval_note_release(&n);
	/* A job's end fires at once, once, and is over. */
	alerteval_event(ae, ALERT_JOB, &job, 1, "job 18 failed", T0 + 600);
	assert_true(alerteval_next(ae, &n));
	assert_int_equal(n.state, ALERT_FIRING);
	assert_true(n.end == n.start);
	assert_int_equal(n.gate, 9);
	alerteval_note_release(&n);
	assert_int_equal(alerteval_nfiring(ae), 0);
	alerteval_free(ae);
	alertrule_release(&conf);
}

/* A chip's two memory series are two subjects: one leaking while the
 * other holds neither resolves the other's alert nor shares its id. */
static void
test_metric_subject(void **state)
{
	struct alert_subject rss = { "lab3", 1, "17", NULL, ALERT_NONE,
	    "rss_bytes" }, dev = rss;
	struct alertconf conf;
	struct alerteval *ae;
	struct alertnote n;
	double t;

	(void)state;
	dev.metric = "device_mem_bytes";
	rules(&conf, "alerts:\n  hook: [x]\n  rules:\n    - {kind: leak, "
	    "threshold: 0}\n");
	ae = alerteval_new(&conf);
	for (t = 0; t < 100; t += 10) {
		alerteval_value(ae, ALERT_LEAK, &rss, 5e7, NAN, NULL, T0 + t);
		alerteval_value(ae, ALERT_LEAK, &dev, -1e5, NAN, NULL, T0 + t);
	}
	assert_true(alerteval_next(ae, &n));
	assert_int_equal(n.state, ALERT_FIRING);
	assert_string_equal(n.metric, "rss_bytes");
	alerteval_note_release(&n);
	assert_false(alerteval_next(ae, &n));
	assert_int_equal(alerteval_nfiring(ae), 1);
	alerteval_free(ae);
	alertrule_release(&conf);
}

/* A restart: the alert left firing is neither fired again nor lost. */
static void
test_restore(void **state)
{
	struct alertconf conf;
	struct alerteval *ae;
	struct alertnote n;
	char id[32];

	(void)state;
	rules(&conf, "alerts:\n  hook: [x]\n");
	ae = alerteval_new(&conf);
	assert_int_equal(alerteval_restore(ae, "host.down", &lab3, T0, T0 +
	    120), 0);
	assert_int_equal(alerteval_restore(ae, "gone", &lab3, T0, NAN), -1);
	alerteval_cond(ae, ALERT_HOST, &lab3, true, 0, NULL, T0 + 900);
	alerteval_tick(ae, T0 + 1000);
	assert_false(alerteval_next(ae, &n));
	alerteval_cond(ae, ALERT_HOST, &lab3, false, 0, NULL, T0 + 1001);
	assert_true(alerteval_next(ae, &n));
	assert_int_equal(n.state, ALERT_RESOLVED);
	alerteval_id("host.down", &lab3, T0, id, sizeof id);
	assert_string_equal(n.id, id);
	assert_int_equal(strlen(id), 16);
	alerteval_note_release(&n);
	alerteval_free(ae);
	alertrule_release(&conf);
}

/* TTFT samples on two chips whose P99 crosses a 250 ms SLA at 10 min. */
static void
test_metric_sla(void **state)
{
	struct alertsla sla = { 250, NAN, NAN };
	struct alertmetric *am;
	struct alertconf conf;
	struct alerteval *ae;
	struct metrics *m;
	struct alertnote n;
	int s, fired = 0, resolved = 0;
	double ts;

	(void)state;
	rules(&conf, "alerts:\n  hook: [x]\n");
	ae = alerteval_new(&conf);
	am = alertmetric_new();
	m = metrics_new(0);
	for (s = 0; s < 2400; s++) {
		ts = T0 + s * 0.5;
		assert_int_equal(metrics_add(m, "lab3", s % 2, "ttft_ms", ts,
		    s >= 1200 && s < 1800 ? 400 : 120 + s % 7, NULL, 0), 0);
		alertmetric_judge(am, ae, m, "17", &sla, ts);
		while (alerteval_next(ae, &n)) {
			assert_string_equal(n.rule->name, "sla.ttft_p99");
			assert_string_equal(n.host, "lab3");
			if (n.state == ALERT_FIRING) {
				fired++;
				/* for: 60 past the first second over */
				assert_true(ts >= T0 + 660 && ts < T0 + 662);
			} else
				resolved++;
			alerteval_note_release(&n);
		}
	}
	assert_int_equal(fired, 1);
	assert_int_equal(resolved, 1);
	metrics_free(m);
	alertmetric_free(am);
	alerteval_free(ae);
	alertrule_release(&conf);
}

/*
 * Two soaks with the same TTFT, each judged by its own workspace's SLA
 * (alertwatch.c gives each soak the G0 SLA of the workspace it ran on):
 * 400 ms breaks a 300 ms SLA, not a 500 ms one; only the first fires.
 */
static void
test_metric_sla_own(void **state)
{
	const struct alertsla strict = { 300, NAN, NAN }, lax = { 500, NAN,
	    NAN };
	struct alertmetric *am[2];
	struct alertconf conf;
	struct alerteval *ae;
	struct metrics *m[2];
	struct alertnote n;
	int s, k, fired = 0;
	double ts;

	(void)state;
	rules(&conf, "alerts:\n  hook: [x]\n");
	ae = alerteval_new(&conf);
	for (k = 0; k < 2; k++) {
		am[k] = alertmetric_new();
		m[k] = metrics_new(0);
	}
	for (s = 0; s < 1200; s++) {
		ts = T0 + s * 0.5;
		for (k = 0; k < 2; k++) {
			assert_int_equal(metrics_add(m[k], "lab3", 0,
			    "ttft_ms", ts, 400 + s % 7, NULL, 0), 0);
			alertmetric_judge(am[k], ae, m[k], k == 0 ? "17" :
			    "18", k == 0 ? &strict : &lax, ts);
		}
		while (alerteval_next(ae, &n)) {
			assert_string_equal(n.rule->name, "sla.ttft_p99");
			assert_int_equal(n.state, ALERT_FIRING);
			assert_string_equal(n.job, "17");
			assert_true(n.threshold == 300);
			fired++;
			alerteval_note_release(&n);
		}
	}
	assert_int_equal(fired, 1);
	for (k = 0; k < 2; k++) {
		metrics_free(m[k]);
		alertmetric_free(am[k]);
	}
	alerteval_free(ae);
	alertrule_release(&conf);
}

/* Feed chip 0's rss_bytes v at ts to am, counting the leak's notes. */
static void
leak_sample(struct alertmetric *am, struct alerteval *ae, struct metrics *m,
    double ts, double v, int count[2], double *end)
{
	struct alertsla sla = { NAN, NAN, NAN };
	struct alertnote n;

	assert_int_equal(metrics_add(m, "lab3", 0, "rss_bytes", ts, v, NULL,
	    0), 0);
	alertmetric_judge(am, ae, m, "17", &sla, ts);
	while (alerteval_next(ae, &n)) {
		assert_string_equal(n.rule->name, "leak");
		count[n.state == ALERT_RESOLVED]++;
		if (n.state == ALERT_RESOLVED)
			*end = n.end;
		alerteval_note_release(&n);
	}
}

/*
 * A steady leak whose last window's median dips under the one before for
 * a moment (a burst of low samples, then high ones: the rule says clear
 * for some 30 s) stays one alert, neither resolved nor fired again; memory
 * that falls for good resolves it once, ended at the first clear verdict.
 */
static void
test_metric_leak_dip(void **state)
{
	struct alertmetric *am;
	struct alertconf conf;
	struct alerteval *ae;
	struct metrics *m;
	int count[2] = { 0, 0 };
	double t, end = NAN;

	(void)state;
	rules(&conf, "alerts:\n  hook: [x]\n  rules:\n    - {kind: leak}\n");
	ae = alerteval_new(&conf);
	am = alertmetric_new();
	m = metrics_new(0);
	for (t = 0; t < 7200; t += 10)
		leak_sample(am, ae, m, T0 + t, 1e8 + 1e4 * t, count, &end);
	assert_int_equal(count[0], 1);
	for (; t < 7230; t += 0.5)
		leak_sample(am, ae, m, T0 + t, 1e8, count, &end);
	for (; t < 7260; t += 0.25)
		leak_sample(am, ae, m, T0 + t, 1e8 + 1e4 * t, count, &end);
	for (; t < 9000; t += 10)
		leak_sample(am, ae, m, T0 + t, 1e8 + 1e4 * t, count, &end);
	assert_int_equal(count[0], 1);
	assert_int_equal(count[1], 0);
	for (; t < 12600; t += 10)
		leak_sample(am, ae, m, T0 + t, 1e8, count, &end);
	assert_int_equal(count[0], 1);
	assert_int_equal(count[1], 1);
	assert_true(end > T0 + 9000 && end < T0 + 9600);
	metrics_free(m);
	alertmetric_free(am);
	alerteval_free(ae);
	alertrule_release(&conf);
}

/*
 * A runtime's warm-up: memory that grows for the first half hour, then
 * holds, exactly flat (device memory, allocated once).  The rule alone
 * says growing from the first hour (the 10 % it leaves out is shorter than
 * the warm-up, and equal medians never decrease) until the run spans some
 * ten times the warm-up; judged live it is no leak, and nothing fires.  The
 * same memory leaking after its warm-up fires once.
 */
static void
test_metric_leak_warmup(void **state)
{
	struct alertmetric *am;
	struct alertconf conf;
	struct alerteval *ae;
	struct metrics *m;
	int count[2] = { 0, 0 };
	double t, end = NAN;

	(void)state;
	rules(&conf, "alerts:\n  hook: [x]\n  rules:\n    - {kind: leak}\n");
	ae = alerteval_new(&conf);
	am = alertmetric_new();
	m = metrics_new(0);
	for (t = 0; t < 6 * 3600; t += 10)
		leak_sample(am, ae, m, T0 + t, 3.15e9 + 9.6e7 *
		    fmin(1.0, t / 1800), count, &end);
	assert_int_equal(count[0], 0);
	assert_int_equal(count[1], 0);
	metrics_free(m);
	alertmetric_free(am);
	am = alertmetric_new();
	m = metrics_new(0);
	for (t = 0; t < 4 * 3600; t += 10)
		leak_sample(am, ae, m, T0 + t, 3.15e9 + 9.6e7 *
		    fmin(1.0, t / 1800) + 5e7 * t / 3600, count, &end);
	assert_int_equal(count[0], 1);
	assert_int_equal(count[1], 0);
	metrics_free(m);
	alertmetric_free(am);
	alerteval_free(ae);
	alertrule_release(&conf);
}

/* The state folder in a fresh temporary folder. */
static char *
state_home(void)
{
	char tmpl[] = "/tmp/test_alertrule.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(setenv("XDG_STATE_HOME", tmpl, 1), 0);
	return xstrdup(tmpl);
}

static void
append(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void
test_journal(void **state)
{
	char *home = state_home(), *path, err[512], last;
	const struct alertentry *e;
	struct alertjournal j;
	struct alertconf conf;
	struct alerteval *ae;
	struct alertnote n;
	double t;
	int fd;

	(void)state;
	assert_int_equal(alertjournal_open(&j, false, err, sizeof err), 0);
	assert_int_equal(j.n, 0);
	alertjournal_close(&j);
	rules(&conf, "alerts:\n  hook: [x]\n  rules:\n    - {kind: leak, "
	    "threshold: 10}\n");
	ae = alerteval_new(&conf);
	assert_int_equal(alertjournal_open(&j, true, err, sizeof err), 0);
	for (t = 0; t <= 3; t++)
		alerteval_value(ae, ALERT_LEAK, &lab3, t < 3 ? 20 + t : 5, NAN,
		    "rss grew\033]52;x", T0 + t);
	while (alerteval_next(ae, &n)) {
		assert_int_equal(alertjournal_note(&j, &n, T0, err, sizeof err),
		    0);
		alerteval_note_release(&n);
	}
	assert_int_equal(j.n, 1);
	path = xstrdup(j.path);
	alertjournal_close(&j);
	append(path, "not json\n{\"id\": \"x\", \"state\": \"fir");
	assert_int_equal(alertjournal_open(&j, true, err, sizeof err), 0);
	assert_int_equal(j.n, 1);
	assert_int_equal(j.bad, 1);
	e = &j.e[0];
	assert_string_equal(e->rule, "leak");
	assert_string_equal(e->host, "lab3");
	assert_true(e->start == T0 && e->end == T0 + 3);
	assert_true(e->vmin == 20 && e->vmax == 22 && e->vavg == 21);
	assert_non_null(alertjournal_find(&j, e->id));
	alertjournal_close(&j);
	/* The torn line was cut: the file ends with a whole line. */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_true(lseek(fd, -1, SEEK_END) > 0);
	assert_int_equal(read(fd, &last, 1), 1);
	assert_int_equal(last, '\n');
	close(fd);
	fileio_remove_tree(home);
	free(path);
	free(home);
	alerteval_free(ae);
	alertrule_release(&conf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_config_merge),
		cmocka_unit_test(test_for_repeat),
		cmocka_unit_test(test_host_tick_event),
		cmocka_unit_test(test_metric_subject),
		cmocka_unit_test(test_restore),
		cmocka_unit_test(test_metric_sla),
		cmocka_unit_test(test_metric_sla_own),
		cmocka_unit_test(test_metric_leak_dip),
		cmocka_unit_test(test_metric_leak_warmup),
		cmocka_unit_test(test_journal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_alertwatch.c: what a headless watch of the lab's alerts
 * (src/model/alertwatch.c) takes from the lab and the journal, without a
 * loop run: the SLA a soak is judged by (alertwatch_sla_of: its own
 * workspace's, however it is spelt, the host's first when its record
 * names none, none when the lab does not know it, two hosts' workspaces
 * of one path apart), and the gates' baseline a new sender starts from
 * (alertjournal_baseline written and read back, an old journal without
 * one, a line of the wrong shape, a gate.changed journaled after it).
 */
#include "calops.h"

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
#include "engine/gate.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "metrics/metrics.h"
#include "model/alertwatch.h"
#include "remote/lab.h"

#define T0	1700000000.0

static char home[] = "/tmp/test_alertwatch.XXXXXX";

/*
 * The threshold of the sla.ttft_p99 alert a soak of host's workspace ws
 * with a TTFT P99 of about 400 ms fires, judged as alertwatch.c judges it
 * (alertwatch_sla_of, then alertmetric_judge); NAN when none fires.
 */
static double
judged_by(const struct lab *lab, const struct labmodel *lm,
    const struct alertsla *sla, const char *host, const char *ws)
{
	struct alertmetric *am = alertmetric_new();
	struct alerteval *ae = alerteval_new(&lab->alerts);
	struct metrics *m = metrics_new(0);
	double threshold = NAN, ts;
	struct alertnote n;
	int s;

	for (s = 0; s < 600; s++) {
		ts = T0 + s * 0.5;
		assert_int_equal(metrics_add(m, host, 0, "ttft_ms", ts,
		    400 + s % 7, NULL, 0), 0);
		alertmetric_judge(am, ae, m, "17", alertwatch_sla_of(lm, sla,
		    host, ws), ts);
		while (alerteval_next(ae, &n)) {
			assert_string_equal(n.rule->name, "sla.ttft_p99");
			assert_true(isnan(threshold));	/* once */
			threshold = n.threshold;
			alerteval_note_release(&n);
		}
	}
	metrics_free(m);
	alerteval_free(ae);
	alertmetric_free(am);
	return threshold;
}

/*
 * Workspaces one and two on host a, and one's path on host b too, each
 * with its own SLA: a soak is judged by its own workspace's.
 */
static void
test_sla_of(void **state)
{
	const struct labmodel_cb cb = { 0 };
	const struct alertsla sla[3] = { { 300, NAN, NAN },
	    { 350, NAN, NAN }, { 380, NAN, NAN } };
	char err[512], *one, *two, *text, *dotted, *elsewhere;
	struct labmodel *lm;
	struct loop *l;
	struct lab lab;

	(void)state;
	one = xasprintf("%s/one", home);
	two = xasprintf("%s/two", home);
	assert_int_equal(mkdir(one, 0700), 0);
	assert_int_equal(mkdir(two, 0700), 0);
	text = xasprintf("hosts:\n  - {name: a, transport: local}\n"
	    "  - {name: b, transport: local}\nworkspaces:\n"
	    "  - {host: a, path: %s}\n  - {host: a, path: %s}\n"
	    "  - {host: b, path: %s}\nalerts:\n  hook: [x]\n  rules:\n"
	    "    - {kind: sla.ttft_p99, for: 0}\n", one, two, one);
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	l = loop_new();
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);

	assert_ptr_equal(alertwatch_sla_of(lm, sla, "a", one), &sla[0]);
	assert_ptr_equal(alertwatch_sla_of(lm, sla, "a", two), &sla[1]);
	/* The same path on another host is that host's workspace. */
	assert_ptr_equal(alertwatch_sla_of(lm, sla, "b", one), &sla[2]);
	assert_true(judged_by(&lab, lm, sla, "a", one) == 300);
	assert_true(judged_by(&lab, lm, sla, "a", two) == 350);
	assert_true(judged_by(&lab, lm, sla, "b", one) == 380);
	/* A local workspace however its record spells it. */
	dotted = xasprintf("%s/../two/", one);
	assert_ptr_equal(alertwatch_sla_of(lm, sla, "a", dotted), &sla[1]);
	/* A record that names no workspace: its host's first. */
	assert_ptr_equal(alertwatch_sla_of(lm, sla, "b", NULL), &sla[2]);
	assert_true(judged_by(&lab, lm, sla, "a", NULL) == 300);
	/* Not the lab's: a folder it does not list, a workspace of another
	 * host only, a host it does not have; not judged with no threshold. */
	elsewhere = xasprintf("%s/elsewhere", home);
	assert_true(isnan(alertwatch_sla_of(lm, sla, "a",
	    elsewhere)->ttft_ms_p99));
	assert_true(isnan(alertwatch_sla_of(lm, sla, "b",
	    two)->ttft_ms_p99));
	assert_true(isnan(alertwatch_sla_of(lm, sla, "c",
	    one)->ttft_ms_p99));
	assert_true(isnan(judged_by(&lab, lm, sla, "a", elsewhere)));
	assert_true(isnan(judged_by(&lab, lm, sla, "b", two)));
	assert_true(isnan(judged_by(&lab, lm, sla, "c", one)));

	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	free(elsewhere);
	free(dotted);
	free(text);
	free(two);
	free(one);
}

/* A gate.changed of G3 on lab3's /w at start t, to status st, journaled. */
static void
journal_changed(struct alertjournal *j, const struct alertconf *conf,
    double t, enum gate_status st)
{
	const struct alert_subject s = { "lab3", ALERT_NONE, NULL, "/w", 3,
	    NULL };
	struct alerteval *ae = alerteval_new(conf);
	struct alertnote n;
	char err[512];

	alerteval_event(ae, ALERT_GATE_CHANGED, &s, st, "G3 changed", t);
	assert_true(alerteval_next(ae, &n));
	assert_int_equal(alertjournal_note(j, &n, t, err, sizeof err), 0);
	alerteval_note_release(&n);
	alerteval_free(ae);
}

/*
 * Baselines written and read back, the last of a workspace winning; an
 * old journal reads with none; a gate.changed journaled after a workspace's
 * baseline gives its gate's status, one before it does not.
 */
static void
test_baseline(void **state)
{
	const char *first[] = { "pass", "fail", NULL, "stale" };
	const char *second[] = { "pass", "pass", "pending", "stale" };
	const char *bad = "{\"baseline\": \"pass\", \"host\": \"lab3\", "
	    "\"workspace\": \"/w\"}\n{\"baseline\": [], \"host\": 3}\n";
	const struct alertbaseline *b;
	struct alertjournal j;
	struct alertconf conf;
	int status[GATE_COUNT];
	char err[512], *path;
	struct lab lab;

	(void)state;
	path = xasprintf("%s/journal.jsonl", home);
	assert_int_equal(lab_parse(&lab, "alerts:\n  hook: [x]\n  rules:\n"
	    "    - {kind: gate.changed}\n", strlen("alerts:\n  hook: [x]\n"
	    "  rules:\n    - {kind: gate.changed}\n"), "lab.yaml", err,
	    sizeof err), 0);
	conf = lab.alerts;
	/* An old journal: alerts, no baseline; every workspace unknown. */
	assert_int_equal(alertjournal_open_path(&j, path, true, err,
	    sizeof err), 0);
	journal_changed(&j, &conf, T0, GS_FAIL);
	assert_null(alertjournal_find_baseline(&j, "lab3", "/w"));
	alertwatch_baseline(&j, "lab3", "/x", status);
	assert_int_equal(status[3], -1);
	assert_int_equal(status[0], -1);
	/* With no baseline, the gate.changed says what it went to. */
	alertwatch_baseline(&j, "lab3", "/w", status);
	assert_int_equal(status[3], GS_FAIL);
	assert_int_equal(status[1], -1);

	assert_int_equal(alertjournal_baseline(&j, "lab3", "/w", first, 4,
	    T0 + 1, err, sizeof err), 0);
	assert_int_equal(alertjournal_baseline(&j, "lab4", "/w", second, 4,
	    T0 + 1, err, sizeof err), 0);
	assert_int_equal(alertjournal_baseline(&j, "lab3", "/w", second, 4,
	    T0 + 2, err, sizeof err), 0);
	/* Two lines of the wrong shape, as another program might write. */
	assert_int_equal(fileio_write_full(j.fd, bad, strlen(bad)), 0);
	alertjournal_close(&j);

	assert_int_equal(alertjournal_open_path(&j, path, true, err,
	    sizeof err), 0);
	assert_int_equal(j.n, 1);
	assert_int_equal(j.bad, 2);
	assert_int_equal(j.nbase, 2);
	b = alertjournal_find_baseline(&j, "lab3", "/w");
	assert_non_null(b);
	assert_int_equal(b->nstatus, 4);
	assert_string_equal(b->status[1], "pass");
	assert_string_equal(b->status[2], "pending");
	assert_true(b->t == T0 + 2);
	assert_int_equal(b->seq, 1);
	/* The gate.changed before the baseline is behind it. */
	alertwatch_baseline(&j, "lab3", "/w", status);
	assert_int_equal(status[0], GS_PASS);
	assert_int_equal(status[1], GS_PASS);
	assert_int_equal(status[2], GS_PENDING);
	assert_int_equal(status[3], GS_STALE);
	assert_int_equal(status[4], -1);
	assert_int_equal(status[GATE_COUNT - 1], -1);
	/* One after it: a sender that ended before its next baseline. */
	journal_changed(&j, &conf, T0 + 3, GS_BLOCKED);
	alertwatch_baseline(&j, "lab3", "/w", status);
	assert_int_equal(status[3], GS_BLOCKED);
	assert_int_equal(status[1], GS_PASS);
	alertwatch_baseline(&j, "lab4", "/w", status);
	assert_int_equal(status[3], GS_STALE);
	/* Read again from the file, the same. */
	assert_int_equal(alertjournal_reload(&j, false, err, sizeof err), 0);
	assert_int_equal(j.nbase, 2);
	alertwatch_baseline(&j, "lab3", "/w", status);
	assert_int_equal(status[3], GS_BLOCKED);
	alertjournal_close(&j);
	lab_release(&lab);
	free(path);
}

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(home) == NULL)
		return -1;
	return setenv("XDG_STATE_HOME", home, 1);
}

static int
teardown(void **state)
{
	(void)state;
	fileio_remove_tree(home);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sla_of),
		cmocka_unit_test(test_baseline),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

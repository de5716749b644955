/*
 * test_labkeep.c: the console's mirror keeps every event its host has,
 * byte for byte; only what it shows is capped, and said to be (issue 27,
 * items 5 and 6).
 *
 * With the real calops binary (argv[1]): a soak's tool prints metric
 * events past what a struct event keeps -- 67 values, a value named with
 * 65 bytes, a label value of 129 bytes, 17 labels -- which are valid
 * events.  The lab model follows the job to its end: its mirror equals the
 * job's events.jsonl, no line is bad, the capped events are counted and
 * the status line says the console shows them in part.  A model started
 * again replays the mirror to the same counts (said by the Soak screen's
 * count, not again on the status line).
 *
 * Then the one rule (follow_judge) on its own, as a lying host's stream
 * meets it: a repeat, a seq going back, a chip out of range, a line that is
 * no event, a line cut short, a gap and a line after the end; and the
 * replay of a mirror holding them takes what the follower takes.
 *
 *	test_labkeep CALOPS_BINARY
 */
#include "calops.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "jobfixture.h"
#include "lab/follow.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "proto/event.h"
#include "remote/lab.h"

#define JOB	"keep1"

static const char *calops;
static char tmpdir[] = "/tmp/calops-labkeep.XXXXXX";
static char warned[2048];

static void
on_warn(struct labmodel *lm, const char *msg, void *arg)
{
	(void)lm;
	(void)arg;
	snprintf(warned + strlen(warned), sizeof warned - strlen(warned),
	    "%s\n", msg);
}

/* A model of one local host, run until its first job ends (or 30 s). */
static struct labmodel *
run_model(struct loop *l, struct lab *lab)
{
	const struct labmodel_cb cb = { .warn = on_warn };
	struct labmodel *lm;
	char err[512];

	warned[0] = '\0';
	lm = labmodel_new(l, lab, calops, &cb, err, sizeof err);
	assert_non_null(lm);
	loop_add_timer(l, 50, jobfix_until_ended, lm);
	loop_add_timer(l, 30000, jobfix_stop, NULL);
	loop_run(l);
	return lm;
}

/* A job record in the streams folder, as the console that started job id
 * of kind on host local leaves it. */
static void
keep_record(const char *dir, const char *id, const char *kind)
{
	char err[512], *path, *meta;

	path = xasprintf("%s/calops/streams/local", dir);
	assert_int_equal(fileio_make_dirs(path, 0700, err, sizeof err), 0);
	free(path);
	path = xasprintf("%s/calops/streams/local/%s.json", dir, id);
	meta = xasprintf("{\"v\":1,\"id\":\"%s\",\"host\":\"local\","
	    "\"kind\":\"%s\",\"gate\":9,\"chip\":-1,\"chips\":[0],"
	    "\"target_s\":3600,\"command\":\"sh\",\"label\":\"keep\","
	    "\"started\":1}", id, kind);
	assert_int_equal(fileio_replace(path, meta, strlen(meta), 0600, false,
	    err, sizeof err), 0);
	free(meta);
	free(path);
}

static void
test_mirror_keeps_every_event(void **state)
{
	/* The tool's lines: each becomes one event past a cap. */
	const char *script =
	    "v='\"m0\":0'; i=1; while [ $i -lt 67 ]; do "
	    "v=\"$v,\\\"m$i\\\":$i\"; i=$((i+1)); done; "
	    "printf '{\"type\":\"metric\",\"chip\":0,\"values\":{%s}}\\n' "
	    "\"$v\"; "
	    "n=$(printf '%065d' 0); "
	    "printf '{\"type\":\"metric\",\"values\":{\"%s\":1,\"ok\":2}}\\n' "
	    "\"$n\"; "
	    "l=$(printf '%0129d' 0); "
	    "printf '{\"type\":\"metric\",\"values\":{\"a\":1},\"labels\":"
	    "{\"k\":\"%s\"}}\\n' \"$l\"; "
	    "v='\"l0\":\"x\"'; i=1; while [ $i -lt 17 ]; do "
	    "v=\"$v,\\\"l$i\\\":\\\"x\\\"\"; i=$((i+1)); done; "
	    "printf '{\"type\":\"metric\",\"values\":{\"a\":1},\"labels\":"
	    "{%s}}\\n' \"$v\"; echo done";
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	char err[512], *mirror, *events, *a, *b;
	struct labmodel *lm;
	struct loop *l;
	struct lab lab;
	struct ljob *j;
	size_t alen, blen;
	int pass;

	(void)state;
	jobfix_run(calops, JOB, script);
	keep_record(tmpdir, JOB, "soak");
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	mirror = xasprintf("%s/calops/streams/local/" JOB ".jsonl", tmpdir);
	events = xasprintf("%s/jobs/" JOB "/events.jsonl", tmpdir);
	/* Followed from the host, then replayed from the mirror. */
	for (pass = 0; pass < 2; pass++) {
		l = loop_new();
		loop_watch_signal(l, SIGCHLD, jobfix_reap, NULL);
		lm = run_model(l, &lab);
		j = labmodel_job(lm, 0);
		assert_non_null(j);
		assert_int_equal(j->state, LJ_DONE);
		/* hello, four metrics, done, end */
		assert_int_equal(j->events, 7);
		assert_int_equal(j->bad_lines, 0);
		assert_int_equal(j->capped, 4);
		/* Said live, once; counted on replay (the Soak screen's). */
		if ((strstr(warned, "shown in part, its mirror keeps it "
		    "whole") == NULL) != (pass == 1))
			fail_msg("pass %d said: %s", pass, warned);
		labmodel_free(lm);
		loop_free(l);
		a = jobfix_slurp(mirror, &alen);
		b = jobfix_slurp(events, &blen);
		assert_int_equal(alen, blen);
		assert_memory_equal(a, b, blen);
		free(a);
		free(b);
	}
	free(mirror);
	free(events);
	lab_release(&lab);
}

/* A line of the rule's test: what it is, and the verdict it must get. */
struct judged {
	const char		*line;
	enum follow_verdict	 want;
};

#define EVL(seq, rest) "{\"v\":1,\"seq\":" #seq ",\"ts\":1,\"type\":" rest "}"

static const struct judged lying[] = {
	{ EVL(1, "\"hello\""), FOLLOW_TAKE },
	{ EVL(2, "\"log\",\"msg\":\"a\""), FOLLOW_TAKE },
	{ EVL(2, "\"log\",\"msg\":\"again\""), FOLLOW_REPEAT },
	{ EVL(1, "\"log\",\"msg\":\"back\""), FOLLOW_REPEAT },
	{ EVL(3, "\"metric\",\"chip\":99999,\"values\":{\"x\":1}"),
	    FOLLOW_BAD },
	{ "not json", FOLLOW_BAD },
	{ EVL(3, "\"metric\",\"chip\":1,\"values\":{\"x\":1}"), FOLLOW_TAKE },
	{ EVL(6, "\"log\",\"msg\":\"after a gap\""), FOLLOW_TAKE },
	{ EVL(7, "\"end\",\"exit_code\":0"), FOLLOW_TAKE },
	{ EVL(8, "\"log\",\"msg\":\"late\""), FOLLOW_LATE },
};

static void
test_one_rule(void **state)
{
	struct follow_stats st = { 0 };
	struct event ev;
	size_t i;

	(void)state;
	for (i = 0; i < nitems(lying); i++)
		if (follow_judge(&st, lying[i].line, strlen(lying[i].line),
		    false, &ev) != lying[i].want)
			fail_msg("line %zu '%s' not judged %d", i, lying[i].line,
			    lying[i].want);
	/* A line its reader had to cut is no event either. */
	assert_int_equal(follow_judge(&st, "{", 1, true, &ev), FOLLOW_BAD);
	assert_non_null(strstr(ev.err, "cut"));
	assert_int_equal(st.delivered, 5);
	assert_int_equal(st.duplicates, 2);
	assert_int_equal(st.bad, 3);
	assert_int_equal(st.late, 1);
	assert_int_equal(st.gaps, 1);
	assert_int_equal(st.missing, 2);
	assert_int_equal(st.last_seq, 7);
	assert_true(st.ended);
	/* The chip is said, for the job log's line. */
	st = (struct follow_stats){ 0 };
	assert_int_equal(follow_judge(&st, lying[4].line,
	    strlen(lying[4].line), false, &ev), FOLLOW_BAD);
	assert_non_null(strstr(ev.err, "'chip'"));
}

/* A mirror holding a lying host's lines is replayed by the same rule:
 * what the follower would not take is a bad line, never applied. */
static void
test_replay_same_rule(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	struct labmodel *lm;
	struct loop *l;
	struct lab lab;
	struct ljob *j;
	char err[512], *path, *bytes = xstrdup("");
	size_t i;

	(void)state;
	keep_record(tmpdir, "liar1", "golden");
	for (i = 0; i < nitems(lying); i++) {
		path = xasprintf("%s%s\n", bytes, lying[i].line);
		free(bytes);
		bytes = path;
	}
	path = xasprintf("%s/calops/streams/local/liar1.jsonl", tmpdir);
	assert_int_equal(fileio_replace(path, bytes, strlen(bytes), 0600,
	    false, err, sizeof err), 0);
	free(path);
	free(bytes);
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	l = loop_new();
	loop_watch_signal(l, SIGCHLD, jobfix_reap, NULL);
	lm = run_model(l, &lab);
	j = NULL;
	for (i = 0; i < labmodel_njobs(lm); i++)
		if (strcmp(labmodel_job(lm, i)->id, "liar1") == 0)
			j = labmodel_job(lm, i);
	assert_non_null(j);
	assert_int_equal(j->state, LJ_DONE);
	assert_int_equal(j->events, 5);
	assert_int_equal(j->bad_lines, 5);
	assert_int_equal(j->last_seq, 7);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mirror_keeps_every_event),
		cmocka_unit_test(test_one_rule),
		cmocka_unit_test(test_replay_same_rule),
	};

	calops = jobfix_main_args(argc, argv, tmpdir);
	return cmocka_run_group_tests(tests, jobfix_group_setup,
	    jobfix_group_teardown);
}
